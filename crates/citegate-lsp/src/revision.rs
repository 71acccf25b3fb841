//! A file as it was at a revision, where any editor can open it: go to definition on a citation
//! whose lines only hold at an older commit must show those lines, never whatever the work tree
//! has there now. The protocol has no standard way to serve a file's content at a revision that
//! every client follows (3.18's `workspace/textDocumentContent` is not in `lsp-types` nor in most
//! editors yet), so the file is written, read-only, under the repository's Git folder:
//! `<git dir>/citegate/rev/<full sha>/<path>`. Git ignores that folder and a checkout never
//! touches it; a commit's file never changes, so a copy once written is reused.
//!
//! The path comes from a doc (a stranger's pull request may write it): only plain components are
//! accepted, no folder on the way may be a symbolic link, and the file is written to a temporary
//! file renamed over its place (a link there is replaced, never followed).

use std::io::Write;
use std::path::{Component, Path, PathBuf};

use git2::Oid;

use citegate_engine::output::InFlight;
use citegate_engine::resolve::repo::MAX_BLOB_BYTES;
use citegate_engine::resolve::{CodeRepo, FileAt};

/// The folder, inside the Git folder, that holds the files written at revisions.
const FOLDER: [&str; 2] = ["citegate", "rev"];

/// The text of `path` at `rev` (`None`: missing there, not text, or larger than the blob limit).
pub(super) fn text_at(repo: &CodeRepo, rev: Oid, path: &str) -> Option<std::sync::Arc<str>> {
    let git = repo.open().ok()?;
    match repo.file_at(&git, rev, path) {
        Ok(FileAt::Text(text)) => Some(text),
        _ => None,
    }
}

/// The work tree's copy of `path` (`None`: absent, a link, not a regular file, too large or not
/// UTF-8). Links are not followed: a link in the work tree may point anywhere.
pub(super) fn work_text(repo: &CodeRepo, path: &str) -> Option<String> {
    let file = repo.workdir.as_ref()?.join(plain(path)?);
    let mut at = repo.workdir.clone()?;
    for c in plain(path)?.components() {
        at.push(c);
        if std::fs::symlink_metadata(&at)
            .ok()?
            .file_type()
            .is_symlink()
        {
            return None;
        }
    }
    let meta = std::fs::symlink_metadata(&file).ok()?;
    if !meta.is_file() || meta.len() > MAX_BLOB_BYTES as u64 {
        return None;
    }
    std::fs::read_to_string(&file).ok()
}

/// `path` when it is relative and made only of plain names (no `..`, `.`, root or prefix).
fn plain(path: &str) -> Option<&Path> {
    let p = Path::new(path);
    let ok = !path.is_empty() && p.components().all(|c| matches!(c, Component::Normal(_)));
    ok.then_some(p)
}

/// Write `text`, the content of `path` at `rev`, as a read-only file under the repository's Git
/// folder, and return its path. Reused when already there with the same content.
pub(super) fn written(
    repo: &CodeRepo,
    rev: Oid,
    path: &str,
    text: &str,
) -> Result<PathBuf, std::io::Error> {
    let refused =
        |why: &str| std::io::Error::new(std::io::ErrorKind::InvalidInput, why.to_string());
    let relative = plain(path).ok_or_else(|| refused("not a plain relative path"))?;
    if !placed_by_git(repo) {
        return Err(refused(
            "the Git folder is not the work tree's own: nothing is written there",
        ));
    }
    if text.len() > MAX_BLOB_BYTES {
        return Err(refused("larger than the blob limit"));
    }
    let sha = rev.to_string();
    let mut folders: Vec<&std::ffi::OsStr> = FOLDER.iter().map(|s| s.as_ref()).collect();
    folders.push(sha.as_ref());
    let names: Vec<&std::ffi::OsStr> = relative.iter().collect();
    let (file_name, above) = names.split_last().ok_or_else(|| refused("empty path"))?;
    folders.extend(above);
    let mut dir = repo.git_dir.clone();
    for name in folders {
        dir.push(name);
        folder(&dir)?;
    }
    let file = dir.join(file_name);
    let same = std::fs::symlink_metadata(&file).is_ok_and(|m| m.is_file())
        && std::fs::read(&file).is_ok_and(|b| b == text.as_bytes());
    if !same {
        replace_read_only(&dir, &file, text.as_bytes())?;
    }
    Ok(file)
}

/// Whether Git itself placed the Git folder: the work tree's `.git` is that folder, or a
/// `gitdir:` file (a linked work tree's). A `.git` that is a link, or a work tree without one
/// (Git read the link and took the folder above it as the work tree), may point anywhere.
fn placed_by_git(repo: &CodeRepo) -> bool {
    let Some(workdir) = repo.workdir.as_ref() else {
        return false;
    };
    let dot_git = workdir.join(".git");
    match std::fs::symlink_metadata(&dot_git) {
        Ok(m) if m.is_file() => true,
        Ok(m) if m.is_dir() => dot_git.canonicalize().ok() == repo.git_dir.canonicalize().ok(),
        _ => false,
    }
}

/// Whether `file`, every link followed, is in the repository: in its work tree or its Git
/// folder, both as Git placed them (see [`placed_by_git`]). What go to definition opens must be,
/// whatever a doc, the configuration or a link in the work tree says.
pub(super) fn in_repository(repo: &CodeRepo, file: &Path) -> bool {
    let Ok(real) = file.canonicalize() else {
        return false;
    };
    let under = |dir: &Path| dir.canonicalize().is_ok_and(|d| real.starts_with(d));
    placed_by_git(repo) && (repo.workdir.as_deref().is_some_and(under) || under(&repo.git_dir))
}

/// `dir` as a real folder: created when missing, refused when it is a link or anything else.
fn folder(dir: &Path) -> Result<(), std::io::Error> {
    match std::fs::create_dir(dir) {
        Ok(()) => return Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let meta = std::fs::symlink_metadata(dir)?;
    if meta.is_dir() {
        return Ok(());
    }
    Err(std::io::Error::other(format!(
        "{} is not a folder (a link?): nothing is written through it",
        dir.display()
    )))
}

/// Write `bytes` to a new read-only file in `dir` and rename it over `file`.
fn replace_read_only(dir: &Path, file: &Path, bytes: &[u8]) -> Result<(), std::io::Error> {
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    let _in_flight = InFlight::new(tmp.path());
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    let mut perms = tmp.as_file().metadata()?.permissions();
    perms.set_readonly(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        perms.set_mode(0o444);
    }
    tmp.as_file().set_permissions(perms)?;
    tmp.persist(file).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_relative_paths_are_written() {
        assert!(plain("src/a.rs").is_some());
        for bad in ["", "../x", "src/../../x", "/etc/passwd", "./a"] {
            assert!(plain(bad).is_none(), "{bad}");
        }
    }

    fn repo() -> (tempfile::TempDir, CodeRepo) {
        let dir = tempfile::tempdir().unwrap();
        git2::Repository::init(dir.path()).unwrap();
        let repo = CodeRepo::discover(dir.path()).unwrap();
        (dir, repo)
    }

    #[cfg(unix)]
    #[test]
    fn the_copy_is_read_only_and_written_again_only_when_it_differs() {
        use std::os::unix::fs::PermissionsExt;
        let (_dir, repo) = repo();
        let rev = Oid::from_str("1234567812345678123456781234567812345678").unwrap();
        let file = written(&repo, rev, "src/a.rs", "one\n").unwrap();
        assert!(file.ends_with("citegate/rev/1234567812345678123456781234567812345678/src/a.rs"));
        assert!(file.starts_with(&repo.git_dir));
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o444);
        assert_eq!(written(&repo, rev, "src/a.rs", "one\n").unwrap(), file);
        // Replaced (renamed over), though read-only.
        written(&repo, rev, "src/a.rs", "two\n").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "two\n");
        assert!(written(&repo, rev, "../../config", "x").is_err());
    }

    #[cfg(unix)]
    #[test]
    fn nothing_is_written_through_a_link_on_the_way() {
        let (_dir, repo) = repo();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), repo.git_dir.join("citegate")).unwrap();
        let rev = Oid::from_str("1234567812345678123456781234567812345678").unwrap();
        assert!(written(&repo, rev, "src/a.rs", "x").is_err());
        assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    }
}
