//! Errors as the user reads them: the outermost message, then each cause.

/// A libgit2 error as a cause: its message, without the class and code libgit2's own `Display`
/// appends (`; class=Repository (6); code=NotFound (-3)`).
#[derive(Debug)]
pub struct GitError(pub git2::Error);

impl std::fmt::Display for GitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.message())
    }
}

impl std::error::Error for GitError {}

impl From<git2::Error> for GitError {
    fn from(e: git2::Error) -> Self {
        GitError(e)
    }
}

/// An error and each of its sources, outermost first: `outer: cause: root cause`.
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        out.push_str(": ");
        out.push_str(&cause.to_string());
        source = cause.source();
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_cause_follows_the_message() {
        let inner = std::io::Error::other("disk full");
        let outer = crate::audit::AuditError::Write(inner);
        assert_eq!(super::chain(&outer), "cannot write the output: disk full");
        let git = git2::Error::from_str("could not find repository");
        let audit = crate::audit::AuditError::Repo {
            path: "/tmp".into(),
            source: git.into(),
        };
        assert_eq!(
            super::chain(&audit),
            "/tmp: not a Git repository: could not find repository"
        );
    }
}
