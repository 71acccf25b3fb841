//! Cited paths: URL-decoded and normalised against the repository root, or refused.

use crate::model::CitedPath;

/// Normalise a cited path against the repository root. `base` is the folder it is relative to
/// (a Markdown doc's folder), `None` for repo-relative paths. A leading `/` is the repository root
/// when `rooted` (Markdown links), an absolute path otherwise.
pub fn resolve_path(raw: &str, base: Option<&str>, rooted: bool) -> CitedPath {
    let unsafe_path = |reason: &str| CitedPath::Unsafe {
        raw: raw.to_string(),
        reason: reason.to_string(),
    };
    if raw.chars().any(|c| c.is_control()) {
        return unsafe_path("the path contains control characters");
    }
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return CitedPath::Missing;
    }
    let bytes = trimmed.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if drive || trimmed.starts_with("\\\\") || trimmed.starts_with('~') {
        return unsafe_path("absolute paths are never read");
    }
    let (mut parts, rest): (Vec<&str>, &str) = if let Some(rest) = trimmed.strip_prefix('/') {
        if !rooted {
            return unsafe_path("absolute paths are never read");
        }
        (Vec::new(), rest)
    } else {
        let parts = base
            .map(|b| b.split('/').filter(|s| !s.is_empty()).collect())
            .unwrap_or_default();
        (parts, trimmed)
    };
    for seg in rest.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return unsafe_path("`..` escapes the repository root");
                }
            }
            s => parts.push(s),
        }
    }
    if parts.is_empty() {
        return CitedPath::Missing;
    }
    CitedPath::Repo(parts.join("/"))
}

/// Decode `%XX` escapes in a URL path; invalid UTF-8 is kept as written.
pub(crate) fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8()
        .map(|c| c.into_owned())
        .unwrap_or_else(|_| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo(p: &str) -> CitedPath {
        CitedPath::Repo(p.to_string())
    }

    #[test]
    fn resolves_relative_and_rooted_paths() {
        assert_eq!(
            resolve_path("../src/a.rs", Some("docs"), true),
            repo("src/a.rs")
        );
        assert_eq!(
            resolve_path("/src/a.rs", Some("docs"), true),
            repo("src/a.rs")
        );
        assert_eq!(resolve_path("./src//a.rs", None, false), repo("src/a.rs"));
    }

    #[test]
    fn refuses_hostile_paths() {
        for raw in [
            "/etc/passwd",
            "../../etc/passwd",
            "C:\\x.rs",
            "a\u{7}.rs",
            "~/x.rs",
        ] {
            assert!(
                matches!(resolve_path(raw, None, false), CitedPath::Unsafe { .. }),
                "{raw}"
            );
        }
        assert!(matches!(
            resolve_path("../../x.rs", Some("docs"), true),
            CitedPath::Unsafe { .. }
        ));
    }
}
