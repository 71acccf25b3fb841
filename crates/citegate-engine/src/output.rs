//! Files citegate writes besides the docs it fixes: reports, traces, caches. In CI a pull request
//! from a stranger controls what is committed in the work tree, symbolic links included, so an
//! output file is never written through a link: a file is replaced by a new one renamed over its
//! path (a link there is replaced, not followed), an appended file is opened without following a
//! link, and inside the current folder no folder on the way may be a link either.

use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

/// Temporary files being written (a doc's or a report's new content before its rename): an
/// interrupt (SIGINT, SIGTERM) removes them instead of leaving `.tmpXXXX` files behind.
static IN_FLIGHT: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A temporary file registered as in flight until this is dropped.
pub struct InFlight(PathBuf);

impl InFlight {
    /// Register `path` as in flight: an interrupt removes it until this is dropped.
    pub fn new(path: &Path) -> InFlight {
        if let Ok(mut list) = IN_FLIGHT.lock() {
            list.push(path.to_path_buf());
        }
        InFlight(path.to_path_buf())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Ok(mut list) = IN_FLIGHT.lock() {
            list.retain(|p| p != &self.0);
        }
    }
}

/// Remove every temporary file in flight (the interrupt handler calls this, then exits).
pub fn remove_in_flight() {
    if let Ok(list) = IN_FLIGHT.lock() {
        remove_all(&list);
    }
}

fn remove_all(paths: &[PathBuf]) {
    for p in paths {
        let _ = std::fs::remove_file(p);
    }
}

/// Why an output file was not written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// A folder on the way to the file, inside the current folder, is a symbolic link.
    #[error("{} is a symbolic link: nothing is written through one", .0.display())]
    ThroughLink(PathBuf),
    /// The file system refused (creating, writing or renaming the file), with its error.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Write `bytes` to a new file and rename it over `path`: a symbolic link at `path` is replaced,
/// never written through, and a reader never sees half a file.
pub fn replace(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    refuse_links_on_the_way(path)?;
    // A report is read by others (a web server serving the dashboard): readable by all, as a
    // file created the ordinary way is, not the temporary file's 0600.
    #[cfg(unix)]
    let perms = {
        use std::os::unix::fs::PermissionsExt;
        Some(std::fs::Permissions::from_mode(0o644))
    };
    #[cfg(not(unix))]
    let perms = None;
    swap_in(path, bytes, perms, || Ok(()))?;
    Ok(())
}

/// The one way citegate replaces a file (a report, a fixed doc): a temporary file in the same
/// folder (removed if the run is interrupted), given `perms`, synced, `check`ed right before the
/// rename (a doc edited meanwhile is not lost), then renamed over `path`: a reader never sees
/// half a file, and a symbolic link at `path` is replaced, never written through.
pub(crate) fn swap_in(
    path: &Path,
    bytes: &[u8],
    perms: Option<std::fs::Permissions>,
    check: impl Fn() -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut tmp = tempfile::NamedTempFile::new_in(folder_of(path))?;
    let _in_flight = InFlight::new(tmp.path());
    tmp.write_all(bytes)?;
    if let Some(perms) = perms {
        tmp.as_file().set_permissions(perms)?;
    }
    tmp.as_file().sync_all()?;
    check()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Append `bytes` to `path` (created when missing), as `$GITHUB_STEP_SUMMARY` wants: a symbolic
/// link at `path` is refused, never followed.
pub fn append(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    refuse_links_on_the_way(path)?;
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(OutputError::ThroughLink(path.to_path_buf()));
    }
    let mut open = std::fs::OpenOptions::new();
    open.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // A link made between the check above and the open is refused by the system (ELOOP).
        open.custom_flags(libc::O_NOFOLLOW);
    }
    let mut file = open.open(path)?;
    file.write_all(bytes)?;
    Ok(())
}

/// The folder a file at `path` is created in.
fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Refuse a path whose folders, from the current folder down, include a symbolic link (a
/// committed `reports -> ../../elsewhere`). Folders above the current one, and absolute paths
/// outside it (`$RUNNER_TEMP`), are the machine's, not the work tree's. A `..` is followed
/// lexically: every folder before it was checked not to be a link, so its parent is the one
/// the system goes to (`histdir/../lnk` checks `lnk`).
pub fn refuse_links_on_the_way(path: &Path) -> Result<(), OutputError> {
    let cwd = std::env::current_dir()?;
    let mut at = if path.is_absolute() {
        PathBuf::new()
    } else {
        cwd.clone()
    };
    let folders: Vec<Component<'_>> = path.components().collect();
    for c in folders.iter().take(folders.len().saturating_sub(1)) {
        match c {
            Component::CurDir => continue,
            Component::ParentDir => {
                at.pop();
                continue;
            }
            Component::Normal(_) | Component::RootDir | Component::Prefix(_) => at.push(c),
        }
        let inside = at.starts_with(&cwd) && at != cwd;
        if inside && std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(OutputError::ThroughLink(at));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interrupt_removes_the_temporary_files_in_flight() {
        let dir = tempfile::tempdir().unwrap();
        let tmp = tempfile::NamedTempFile::new_in(dir.path()).unwrap();
        let (_file, path) = tmp.keep().unwrap();
        let guard = InFlight::new(&path);
        // What the handler removes (not called here: other tests' files are in flight too).
        let listed: Vec<PathBuf> = IN_FLIGHT.lock().unwrap().clone();
        assert!(listed.contains(&path));
        remove_all(std::slice::from_ref(&path));
        assert!(!path.exists());
        drop(guard);
        assert!(IN_FLIGHT.lock().unwrap().iter().all(|p| p != &path));
    }

    #[cfg(unix)]
    #[test]
    fn a_link_at_the_path_is_replaced_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim.sh");
        std::fs::write(&victim, "echo safe\n").unwrap();
        let link = dir.path().join("report.sarif");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        replace(&link, b"{}").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "echo safe\n");
        assert!(!std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&link).unwrap(), b"{}");
    }

    #[cfg(unix)]
    #[test]
    fn appending_refuses_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "x").unwrap();
        let link = dir.path().join("summary.md");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        assert!(append(&link, b"more").is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "x");
        let plain = dir.path().join("plain.md");
        append(&plain, b"a").unwrap();
        append(&plain, b"b").unwrap();
        assert_eq!(std::fs::read_to_string(&plain).unwrap(), "ab");
    }
}
