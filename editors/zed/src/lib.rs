//! The citegate Zed extension: registers `citegate lsp` as a language server for Markdown and
//! JSON docs. The binary is the one `lsp.citegate.binary.path` names in Zed's settings, else
//! `citegate` on the worktree's `PATH`; nothing is downloaded.

use zed_extension_api::{self as zed, settings::LspSettings, LanguageServerId, Result};

/// What to tell a user without the binary.
const MISSING: &str = "citegate: no `citegate` binary on PATH. Install it with \
    `cargo install --locked citegate` (or a release binary: \
    https://github.com/citegate/citegate/releases), or set lsp.citegate.binary.path";

struct Citegate;

impl zed::Extension for Citegate {
    fn new() -> Self {
        Citegate
    }

    fn language_server_command(
        &mut self,
        id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<zed::Command> {
        let binary = LspSettings::for_worktree(id.as_ref(), worktree)
            .ok()
            .and_then(|s| s.binary);
        let configured = binary.as_ref().and_then(|b| b.path.clone());
        let command = match configured {
            Some(path) => path,
            None => worktree.which("citegate").ok_or_else(|| MISSING.to_string())?,
        };
        let args = binary
            .and_then(|b| b.arguments)
            .unwrap_or_else(|| vec!["lsp".to_string()]);
        Ok(zed::Command {
            command,
            args,
            env: worktree.shell_env(),
        })
    }
}

zed::register_extension!(Citegate);
