//! What extraction knows about the audited repository.

/// What extraction needs to know about the audited repository.
#[derive(Debug, Clone, Default)]
pub struct ExtractContext {
    /// The audited repository's identities (`github.com/o/r`), from its remotes or `--repo-url`.
    pub repo_ids: Vec<String>,
    /// The repository's work tree, to map absolute editor links (`vscode://file/…`) back into it.
    pub workdir: Option<std::path::PathBuf>,
    /// In-house citation syntaxes from the configuration.
    pub patterns: Vec<crate::config::Pattern>,
}
