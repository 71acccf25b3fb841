//! What extraction knows about the audited repository.

/// What extraction needs to know about the audited repository.
#[derive(Debug, Clone, Default)]
pub struct ExtractContext {
    /// The audited repository's identities (`github.com/o/r`), from its remotes or `--repo-url`.
    pub repo_ids: Vec<String>,
    /// The repository's work tree, to map absolute editor links (`vscode://file/…`) back into it.
    pub workdir: Option<std::path::PathBuf>,
    /// The repository's ref names that hold a `/` (`release/v7.1.x`): a permalink's revision is
    /// the longest of them that starts its path.
    pub slash_refs: Vec<String>,
    /// In-house citation syntaxes from the configuration.
    pub patterns: Vec<crate::config::Pattern>,
    /// The docs sites' configurations (`mkdocs.yml`, Sphinx's `conf.py`), read from `workdir` as
    /// docs ask.
    pub sites: super::site::Sites,
}
