//! The citegate Zed extension: registers `citegate lsp` as a language server for Markdown and
//! JSON docs. The binary is the one `lsp.citegate.binary.path` names in Zed's settings, else
//! `citegate` on the worktree's `PATH`, unless that one lies in the worktree; nothing is
//! downloaded.

use zed_extension_api::{self as zed, settings::LspSettings, LanguageServerId, Result};

/// How to get a binary, the end of every message about a missing or refused one.
const INSTALL: &str = "Install citegate with `cargo install --locked citegate` (or a release \
    binary: https://github.com/citegate/citegate/releases), or set lsp.citegate.binary.path \
    to the binary in your Zed settings.";

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
            None => on_path(worktree.which("citegate"), &worktree.root_path())?,
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

/// The `citegate` that `PATH` found, if it may run. Zed looks through the worktree's shell
/// `PATH`, whose relative entries (and entries a project's environment adds) can lead into the
/// repository just opened: a relative result, or one inside `root`, is refused, so that opening
/// a repository never runs a `bin/citegate` committed in it.
fn on_path(found: Option<String>, root: &str) -> Result<String> {
    let found =
        found.ok_or_else(|| format!("citegate: no `citegate` binary on PATH. {INSTALL}"))?;
    let why = if !is_absolute(&found) {
        "which is not an absolute path".to_string()
    } else if inside(&found, root) {
        format!("which is inside the worktree {root}")
    } else {
        return Ok(found);
    };
    Err(format!(
        "citegate: the `citegate` on PATH is \"{found}\", {why}; a binary from the \
         opened repository is not run. {INSTALL}"
    ))
}

/// Whether `path` is absolute on the machine Zed runs on (`/…`, `C:\…`, `\\server\…`): the
/// extension runs as WebAssembly, where `std::path` knows only `/`.
fn is_absolute(path: &str) -> bool {
    let b = path.as_bytes();
    let drive =
        b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && matches!(b[2], b'/' | b'\\');
    path.starts_with('/') || path.starts_with("\\\\") || drive
}

/// The parts of `path` with `.` dropped and `..` applied, compared without regard to case (as
/// the file systems of Windows and macOS compare names).
fn parts(path: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            _ => out.push(part.to_ascii_lowercase()),
        }
    }
    out
}

/// Whether `path` is `root` or lies under it.
fn inside(path: &str, root: &str) -> bool {
    parts(path).starts_with(&parts(root))
}

zed::register_extension!(Citegate);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_outside_the_worktree_runs() {
        let found = on_path(Some("/home/me/.cargo/bin/citegate".into()), "/home/me/repo");
        assert_eq!(found, Ok("/home/me/.cargo/bin/citegate".to_string()));
        let sibling = on_path(Some("/home/me/repo2/bin/citegate".into()), "/home/me/repo");
        assert_eq!(sibling, Ok("/home/me/repo2/bin/citegate".to_string()));
    }

    #[test]
    fn a_binary_committed_in_the_worktree_is_refused() {
        let error =
            on_path(Some("/home/me/repo/bin/citegate".into()), "/home/me/repo").unwrap_err();
        assert!(error.contains("\"/home/me/repo/bin/citegate\""), "{error}");
        assert!(
            error.contains("inside the worktree /home/me/repo"),
            "{error}"
        );
        assert!(error.contains("lsp.citegate.binary.path"), "{error}");
        for root in ["/home/me/repo/", "/home/me/Repo", "/home/me/./repo"] {
            assert!(
                on_path(Some("/home/me/repo/bin/citegate".into()), root).is_err(),
                "{root}"
            );
        }
        let dotted = on_path(
            Some("/home/me/other/../repo/citegate".into()),
            "/home/me/repo",
        );
        assert!(dotted.is_err());
    }

    #[test]
    fn windows_paths_are_compared_too() {
        let root = "C:\\Users\\me\\repo";
        assert!(on_path(Some("c:\\users\\me\\repo\\bin\\citegate.exe".into()), root).is_err());
        let outside = "C:\\Users\\me\\.cargo\\bin\\citegate.exe";
        assert_eq!(on_path(Some(outside.into()), root), Ok(outside.to_string()));
    }

    #[test]
    fn a_relative_result_is_refused() {
        for found in ["bin/citegate", "./citegate", "citegate"] {
            let error = on_path(Some(found.into()), "/home/me/repo").unwrap_err();
            assert!(error.contains("not an absolute path"), "{error}");
        }
    }

    #[test]
    fn no_binary_says_how_to_install_one() {
        let error = on_path(None, "/home/me/repo").unwrap_err();
        assert!(
            error.starts_with("citegate: no `citegate` binary on PATH."),
            "{error}"
        );
        assert!(error.contains("cargo install --locked citegate"), "{error}");
    }
}
