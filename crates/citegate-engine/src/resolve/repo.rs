//! The audited repository, read through libgit2. A `git2::Repository` is not `Sync`, so each
//! worker opens its own with [`CodeRepo::open`]; what is shared (remotes, shallowness, path lists
//! for suggestions) lives in [`CodeRepo`].

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use git2::{ObjectType, Oid, Repository};

use super::folders::{Folder, Folders};
use super::lanes::{self, Handles};
use super::paths::{Layout, PathIndex};
use super::renames::Follower;

/// Blobs larger than this are not read as source text.
pub const MAX_BLOB_BYTES: usize = 32 << 20;

/// The repository under audit.
#[derive(Debug)]
pub struct CodeRepo {
    /// The `.git` folder (or bare repository).
    pub git_dir: PathBuf,
    /// Where libgit2 opens it from: `git_dir`, or a stand-in when libgit2 cannot read its
    /// `shallow` file as git does (see [`Shadow`]), kept for as long as the repository is.
    opened_from: Option<Shadow>,
    /// The work tree, when there is one.
    pub workdir: Option<PathBuf>,
    /// The clone is shallow: its history stops at the commits `cut` holds.
    pub shallow: bool,
    /// The commits past which this clone has no true history: a shallow clone's boundary
    /// (`shallow`) and grafted commits (`info/grafts`). What blame attributes to one of them may
    /// have been written earlier.
    pub cut: BTreeSet<Oid>,
    /// `host/owner/repo` of each remote, for telling foreign permalinks apart.
    pub ids: Vec<String>,
    /// `host/owner/repo` of the `origin` remote (else the first), for links in reports.
    pub home: Option<String>,
    /// The URL of `origin` (else the first remote) when no remote names a forge repository (a
    /// local path: a mirror, a CI cache): permalinks into other repositories cannot be told apart.
    pub local_origin: Option<String>,
    /// The branch, tag and remote-tracking branch names that hold a `/` (`release/v7.1.x`), so a
    /// permalink `blob/release/v7.1.x/a.go` is read at that ref, as GitHub reads it.
    pub slash_refs: Vec<String>,
    /// Each commit's file paths, listed once: a thread asking while another lists them waits.
    paths: PerCommit<PathIndex>,
    /// Each commit's folders by path, for suggestions (the same).
    layouts: PerCommit<Layout>,
    /// Files followed through renames, with its caches.
    renames: Follower,
    /// The folders (tree objects) read so far, each once: shared by the path lookups, the
    /// listings and layouts of revisions, rename detection and the follower.
    tree_cache: Arc<Folders>,
    /// The target's text blobs, by object ID, once read: the checks at the target and the stale
    /// comparisons (and any older revision with the same blob) share one read. Older revisions'
    /// blobs are not kept, which bounds the cache by the files cited at the target.
    target_blobs: Mutex<HashMap<Oid, Arc<str>>>,
    /// The commit whose text blobs are kept once read (see `target_blobs`), named when the
    /// session is built ([`CodeRepo::with_target`]); `None`: none kept.
    target: Option<Oid>,
    /// Canonical paths of doc folders, as [`Self::relative`] resolved them.
    folders: Mutex<HashMap<PathBuf, PathBuf>>,
    /// Handles lent by [`Self::with_handle`] and given back: each keeps its object caches.
    handles: Handles,
    /// Objects the audit needed and could not read (missing from a partial clone, or corrupt),
    /// by ID: the run fails on them rather than report the docs wrongly.
    broken: Mutex<std::collections::BTreeMap<Oid, ObjectError>>,
}

/// A value per commit, computed once: a thread asking while another computes it waits.
struct PerCommit<T>(Mutex<HashMap<Oid, Arc<OnceLock<Arc<T>>>>>);

impl<T> Default for PerCommit<T> {
    fn default() -> Self {
        PerCommit(Mutex::new(HashMap::new()))
    }
}

impl<T> std::fmt::Debug for PerCommit<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PerCommit(..)")
    }
}

impl<T> PerCommit<T> {
    /// The value for `commit`, computed by `make` on the first call.
    fn get(&self, commit: Oid, make: impl FnOnce() -> T) -> Arc<T> {
        let slot = self
            .0
            .lock()
            .expect("per-commit lock")
            .entry(commit)
            .or_default()
            .clone();
        slot.get_or_init(|| Arc::new(make())).clone()
    }
}

/// The commits listed in `shallow` and the grafted ones of `info/grafts` (the first ID of each
/// line), under the repository's common Git folder. A file that cannot be read lists none.
fn history_cuts(common: &Path) -> BTreeSet<Oid> {
    let ids = |name: &str| {
        let text = std::fs::read_to_string(common.join(name)).unwrap_or_default();
        let first = |l: &str| {
            l.split_whitespace()
                .next()
                .and_then(|w| Oid::from_str(w).ok())
        };
        text.lines().filter_map(first).collect::<Vec<Oid>>()
    };
    ids("shallow")
        .into_iter()
        .chain(ids("info/grafts"))
        .collect()
}

/// The first line of a `shallow` or `info/grafts` file that git reads and libgit2 refuses: one
/// ending in a carriage return (CRLF line ends) or a blank one. git trims and skips these;
/// libgit2 stops at them ("invalid parent OID") and, reading both files when it opens a
/// repository, opens nothing.
fn odd_line(file: &Path) -> Option<usize> {
    let text = std::fs::read_to_string(file).ok()?;
    let odd = |l: &&str| l.ends_with("\r\n") || l.trim().is_empty();
    text.split_inclusive('\n')
        .position(|l| odd(&l))
        .map(|n| n + 1)
}

/// A Git folder libgit2 opens in place of a repository whose `shallow` file it refuses (see
/// [`odd_line`]): a linked work tree's Git folder whose `commondir` is the repository's (objects,
/// refs, configuration and `info/grafts` are read from there), whose `HEAD` is a link to the
/// repository's, whose `gitdir` names its work tree, and whose `shallow` lists the same commits
/// with LF line ends (libgit2 reads `shallow` from this folder). Nothing in the repository is
/// written; the folder is removed when the repository is dropped.
#[derive(Debug)]
struct Shadow(tempfile::TempDir);

impl Shadow {
    /// The stand-in for the Git folder `git_dir`, when its `shallow` file is one libgit2 refuses
    /// and git reads.
    fn of(git_dir: &Path) -> Option<Shadow> {
        let shallow = git_dir.join("shallow");
        odd_line(&shallow)?;
        let ids: String = std::fs::read_to_string(&shallow)
            .ok()?
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(|l| format!("{l}\n"))
            .collect();
        let dir = tempfile::Builder::new()
            .prefix("citegate-shallow-")
            .tempdir()
            .ok()?;
        let common = git_dir.canonicalize().ok()?;
        std::fs::write(dir.path().join("shallow"), ids).ok()?;
        std::fs::write(dir.path().join("commondir"), common.to_str()?).ok()?;
        #[cfg(unix)]
        std::os::unix::fs::symlink(common.join("HEAD"), dir.path().join("HEAD")).ok()?;
        #[cfg(not(unix))]
        std::fs::copy(common.join("HEAD"), dir.path().join("HEAD")).ok()?;
        if common.file_name().is_some_and(|n| n == ".git") {
            std::fs::write(dir.path().join("gitdir"), common.to_str()?).ok()?;
        }
        Some(Shadow(dir))
    }
}

/// The repository holding `path`, opened as git would open it: through a [`Shadow`] when libgit2
/// refuses its `shallow` file; else libgit2's refusal, with the reason when it is a file git reads
/// and libgit2 cannot (`info/grafts` with CRLF line ends, read from the common folder, has no
/// stand-in).
fn discover(path: &Path) -> Result<(Repository, Option<Shadow>), git2::Error> {
    let e = match Repository::discover(path) {
        Ok(repo) => return Ok((repo, None)),
        Err(e) => e,
    };
    let no_ceiling: [&std::ffi::OsStr; 0] = [];
    let Ok(git_dir) = Repository::discover_path(path, no_ceiling) else {
        return Err(e);
    };
    if let Some(shadow) = Shadow::of(&git_dir) {
        if let Ok(repo) = Repository::open(shadow.0.path()) {
            return Ok((repo, Some(shadow)));
        }
    }
    for name in ["shallow", "info/grafts"] {
        let file = git_dir.join(name);
        if let Some(n) = odd_line(&file) {
            return Err(git2::Error::from_str(&format!(
                "{}; {} line {n} is blank or ends in a carriage return (CRLF), which git reads \
                 and libgit2 cannot: rewrite it with LF line ends and no blank lines \
                 (sed -i 's/\\r$//; /^$/d' {})",
                e.message(),
                file.display(),
                file.display()
            )));
        }
    }
    Err(e)
}

/// Every file path at `commit`, sorted (none when it cannot be read).
fn list_paths(repo: &Repository, folders: &Folders, commit: Oid) -> PathIndex {
    let files = files_at(repo, folders, commit);
    // Not collected in place: that would keep the listing's buffer, twice the size of the paths'
    // (a list is kept per revision for the whole run).
    let mut paths = Vec::with_capacity(files.len());
    paths.extend(files.into_iter().map(|f| f.0));
    PathIndex::new(paths)
}

/// Every file at `commit` (symbolic links included): its path, blob and mode, in tree order
/// (as a pre-order `git_tree_walk` lists them); none when the commit's tree cannot be read, and
/// what was listed before a folder that cannot be read. Folders are read through `folders`: the
/// revisions a run lists share most of theirs.
fn files_at(repo: &Repository, folders: &Folders, commit: Oid) -> Vec<(String, Oid, i32)> {
    let mut out = Vec::new();
    if let Ok(tree) = repo
        .find_commit(commit)
        .and_then(|c| folders.read(repo, c.tree_id()))
    {
        let _ = files_under(repo, folders, &tree, &mut String::new(), &mut out);
    }
    out
}

/// The files under `folder`, their paths prefixed with `prefix` (restored on return). A name
/// that is not UTF-8 cannot be cited from a doc and is left out.
fn files_under(
    repo: &Repository,
    folders: &Folders,
    folder: &Folder,
    prefix: &mut String,
    out: &mut Vec<(String, Oid, i32)>,
) -> Result<(), git2::Error> {
    let at = prefix.len();
    for entry in folder.iter() {
        let Ok(name) = std::str::from_utf8(entry.name) else {
            continue;
        };
        match entry.kind() {
            ObjectType::Blob => {
                let mut path = String::with_capacity(at + name.len());
                path.push_str(prefix);
                path.push_str(name);
                out.push((path, entry.id(), entry.filemode()));
            }
            ObjectType::Tree => {
                let sub = folders.read(repo, entry.id())?;
                prefix.push_str(name);
                prefix.push('/');
                let listed = files_under(repo, folders, &sub, prefix, out);
                prefix.truncate(at);
                listed?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// What a path is in a commit's trees (see [`CodeRepo::look_up`]).
enum Looked {
    /// An entry: its object and normalised mode.
    Found(Oid, i32),
    Missing,
    /// Inside the submodule at this path.
    InSubmodule(String),
}

/// Why a revision did not resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RevError {
    /// No object by that name; in a shallow clone it may exist but not have been fetched.
    NotFound {
        /// The clone is shallow: the commit may exist and not have been fetched.
        shallow: bool,
    },
    /// The name resolves to something that is not a commit (a blob, a tree).
    NotACommit,
}

impl RevError {
    /// What to say of the revision `rev` that did not resolve: the message, and what to do about
    /// it when there is something to do.
    pub fn describe(&self, rev: &str) -> (String, Option<String>) {
        match self {
            RevError::NotFound { shallow: true } => (
                format!("revision `{rev}` is not in this shallow clone: it was not fetched, or does not exist"),
                Some("fetch the full history (`git fetch --unshallow`, or `fetch-depth: 0` in actions/checkout) and run again".into()),
            ),
            RevError::NotFound { shallow: false } => (
                format!("revision `{rev}` names no commit in this repository"),
                None,
            ),
            RevError::NotACommit => (format!("revision `{rev}` is not a commit"), None),
        }
    }
}

/// An object the history needs that the object database cannot give: missing (a partial clone)
/// or corrupt. Blame never guesses past one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectError {
    /// The object's ID.
    pub id: Oid,
    /// `commit`, `tree` or `blob`.
    pub kind: &'static str,
    /// It is not in the object database (a partial clone); otherwise it is there but unreadable.
    pub missing: bool,
    /// libgit2's message.
    pub message: String,
}

impl std::fmt::Display for ObjectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = if self.missing {
            "missing"
        } else {
            "unreadable"
        };
        write!(f, "{} {} is {state}: {}", self.kind, self.id, self.message)
    }
}

impl std::error::Error for ObjectError {}

impl ObjectError {
    /// The error of reading object `id` of `kind` (`commit`, `tree`, `blob`), from libgit2's.
    pub fn new(id: Oid, kind: &'static str, e: &git2::Error) -> Self {
        ObjectError {
            id,
            kind,
            missing: e.code() == git2::ErrorCode::NotFound,
            message: e.message().to_string(),
        }
    }
}

/// What a path names at a commit, before its blob is read (see `CodeRepo::entry_at`).
#[derive(Debug, Clone)]
pub enum Entry {
    /// A regular file: its blob.
    Blob(Oid),
    /// Anything else, as [`CodeRepo::file_at`] says it.
    Other(FileAt),
}

/// What a path names at a commit.
#[derive(Debug, Clone)]
pub enum FileAt {
    /// A text file: its content.
    Text(Arc<str>),
    /// Nothing by that name.
    Missing,
    /// A directory.
    Directory,
    /// A submodule.
    Submodule,
    /// A path inside a submodule (the one named here): its files are another repository's.
    InSubmodule(String),
    /// A symbolic link.
    Symlink,
    /// A blob that is not text: a NUL in its first 8000 bytes, or not UTF-8.
    Binary,
    /// A blob past [`MAX_BLOB_BYTES`], never read: its size in bytes.
    TooLarge(usize),
}

/// The names a default branch goes by: asked for one the repository does not have (`main` where
/// the branch is `master`), the branch it is on is what was meant.
const DEFAULT_BRANCHES: [&str; 5] = ["main", "master", "trunk", "develop", "default"];

/// The refs a missing revision `rev` may have meant, at most three: the branch HEAD is on (or
/// `origin/HEAD`'s) when `rev` is a default branch's name, then the branches, tags and
/// remote-tracking branches whose name is within an edit distance of a third of `rev`'s length
/// (at least 1, at most 3), nearest first, ties in name order.
pub(crate) fn near_refs(repo: &Repository, rev: &str) -> Vec<String> {
    use rapidfuzz::distance::levenshtein;
    let mut out: Vec<String> = Vec::new();
    let bare = rev.strip_prefix("origin/").unwrap_or(rev);
    if DEFAULT_BRANCHES.contains(&bare) {
        let head = (repo.head().ok()).filter(|h| h.is_branch()).or_else(|| {
            repo.find_reference("refs/remotes/origin/HEAD")
                .ok()?
                .resolve()
                .ok()
        });
        out.extend(head.and_then(|h| h.shorthand().ok().map(str::to_string)));
    }
    let limit = (rev.chars().count() / 3).clamp(1, 3);
    let args = levenshtein::Args::default().score_cutoff(limit);
    let near = levenshtein::BatchComparator::new(rev.chars());
    let mut names: Vec<(usize, String)> = (repo.references().ok().into_iter())
        .flat_map(|refs| refs.flatten().collect::<Vec<_>>())
        .filter(|r| r.is_branch() || r.is_tag() || r.is_remote())
        .filter_map(|r| r.shorthand().ok().map(str::to_string))
        .filter(|n| !n.ends_with("/HEAD") && n != rev)
        .filter_map(|n| Some((near.distance_with_args(n.chars(), &args)?, n)))
        .collect();
    names.sort();
    for (_, n) in names {
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out.truncate(3);
    out
}

/// The short names of the branches, tags and remote-tracking branches (without the remote's
/// name) that hold a `/`, sorted and without duplicates: read once per run.
fn slash_refs(repo: &Repository) -> Vec<String> {
    let remotes: Vec<String> = (repo.remotes().ok())
        .map(|r| {
            r.iter()
                .flatten()
                .flatten()
                .map(|n| format!("refs/remotes/{n}/"))
                .collect()
        })
        .unwrap_or_default();
    let mut out = Vec::new();
    let Ok(refs) = repo.references() else {
        return out;
    };
    for r in refs.flatten() {
        let Ok(name) = r.name() else { continue };
        let short = (name.strip_prefix("refs/heads/"))
            .or_else(|| name.strip_prefix("refs/tags/"))
            .or_else(|| remotes.iter().find_map(|p| name.strip_prefix(p.as_str())));
        if let Some(short) = short.filter(|s| s.contains('/')) {
            out.push(short.to_string());
        }
    }
    out.sort();
    out.dedup();
    out
}

impl CodeRepo {
    /// Open the repository holding `path` (searching upwards, as `git` does).
    pub fn discover(path: &Path) -> Result<CodeRepo, git2::Error> {
        // Objects are only read, never written: skip re-hashing every object read (a measured
        // 5% of an audit).
        git2::opts::strict_hash_verification(false);
        let (repo, opened_from) = discover(path)?;
        let mut ids: Vec<String> = Vec::new();
        let (mut home, mut local_origin) = (None, None);
        if let Ok(remotes) = repo.remotes() {
            for name in remotes.iter().flatten().flatten() {
                if let Ok(remote) = repo.find_remote(name) {
                    if name == "origin" || local_origin.is_none() {
                        local_origin = remote.url().ok().map(str::to_string);
                    }
                    if let Some(id) = remote.url().ok().and_then(crate::forge::repo_id) {
                        if name == "origin" || home.is_none() {
                            home = Some(id.clone());
                        }
                        ids.push(id);
                    }
                }
            }
        }
        ids.sort();
        ids.dedup();
        let local_origin = local_origin.filter(|_| ids.is_empty());
        let slash_refs = slash_refs(&repo);
        let tree_cache = Arc::new(Folders::default());
        let git_dir = match &opened_from {
            Some(_) => PathBuf::from(repo.commondir()),
            None => repo.path().to_path_buf(),
        };
        Ok(CodeRepo {
            git_dir,
            opened_from,
            workdir: repo
                .workdir()
                .map(|w| w.canonicalize().unwrap_or_else(|_| w.to_path_buf())),
            shallow: repo.is_shallow(),
            cut: history_cuts(repo.commondir()),
            ids,
            home,
            local_origin,
            slash_refs,
            paths: PerCommit::default(),
            layouts: PerCommit::default(),
            renames: Follower::new(tree_cache.clone()),
            tree_cache,
            target_blobs: Mutex::new(HashMap::new()),
            target: None,
            folders: Mutex::new(HashMap::new()),
            handles: Handles::default(),
            broken: Mutex::new(std::collections::BTreeMap::new()),
        })
    }

    /// Record an object that could not be read.
    pub(crate) fn broken_object(&self, e: ObjectError) {
        self.broken
            .lock()
            .expect("broken lock")
            .entry(e.id)
            .or_insert(e);
    }

    /// The objects that could not be read so far, by ID.
    pub(crate) fn broken_objects(&self) -> Vec<ObjectError> {
        self.broken
            .lock()
            .expect("broken lock")
            .values()
            .cloned()
            .collect()
    }

    /// The docs Git tracks (index entries with a doc's extension), as absolute paths in the work
    /// tree; none in a bare repository or when the index cannot be read.
    pub(crate) fn tracked_docs(&self) -> Vec<PathBuf> {
        let (Some(workdir), Ok(git)) = (&self.workdir, self.open()) else {
            return Vec::new();
        };
        let Ok(index) = git.index() else {
            return Vec::new();
        };
        index
            .iter()
            .filter_map(|e| {
                std::str::from_utf8(&e.path)
                    .ok()
                    .map(Path::new)
                    .map(Path::to_path_buf)
            })
            .filter(|p| crate::model::DocKind::from_path(p).is_some())
            .map(|p| workdir.join(p))
            .collect()
    }

    /// A handle for this thread.
    pub fn open(&self) -> Result<Repository, git2::Error> {
        match &self.opened_from {
            Some(shadow) => Repository::open(shadow.0.path()),
            None => Repository::open(&self.git_dir),
        }
    }

    /// A handle for a worker thread, reading through its lane's own pack files (see
    /// [`lanes`]). The repository already opened on the main thread, so a failure
    /// here means it vanished mid-run: that breaks the run loudly rather than dropping the
    /// citations the worker was given.
    pub fn worker(&self) -> Repository {
        let git = self.open().unwrap_or_else(|e| {
            panic!(
                "{}: the repository could not be opened again: {}",
                self.git_dir.display(),
                e.message()
            )
        });
        // A lane that cannot be set up leaves the handle as opened: it reads the same objects
        // through the shared packs.
        let _ = lanes::own_packs(&git, lanes::lane());
        git
    }

    /// Run `f` with a handle lent from the run's spare ones of the current thread's lane (opened
    /// when none is spare; see [`lanes::Handles`]), given back after: for short work done from
    /// any thread (following a file gone at the target, resolving a pin, reading Git's index),
    /// where opening a handle each time cost more than the work, and a fresh handle starts
    /// with cold caches.
    pub(crate) fn with_handle<R>(&self, f: impl FnOnce(&Repository) -> R) -> R {
        self.handles.with(|| self.worker(), f)
    }

    /// Resolve a revision name (full or short SHA, branch, tag, `HEAD~2`) to a commit. A branch
    /// that only exists as `origin/NAME` (a fresh CI clone) resolves there.
    pub fn resolve(&self, repo: &Repository, rev: &str) -> Result<Oid, RevError> {
        let rev = rev.trim();
        let found = repo
            .revparse_single(rev)
            .or_else(|_| repo.revparse_single(&format!("refs/remotes/origin/{rev}")));
        match found {
            Ok(obj) => obj
                .peel(ObjectType::Commit)
                .map(|c| c.id())
                .map_err(|_| RevError::NotACommit),
            Err(_) => Err(RevError::NotFound {
                shallow: self.shallow,
            }),
        }
    }

    /// [`CodeRepo::resolve`] for a revision option (`--target`, `--since`): what went wrong and
    /// what to do, a missing name with the refs it may have meant ([`near_refs`]).
    pub(crate) fn resolve_option(
        &self,
        repo: &Repository,
        rev: &str,
    ) -> Result<Oid, (String, Option<String>)> {
        self.resolve(repo, rev).map_err(|e| {
            let (message, hint) = e.describe(rev);
            let near = near_refs(repo, rev.trim());
            let near =
                (!near.is_empty() && e == RevError::NotFound { shallow: false }).then(|| {
                    let names: Vec<String> = near.iter().map(|n| format!("`{n}`")).collect();
                    format!("did you mean {}?", names.join(" or "))
                });
            (message, hint.or(near))
        })
    }

    /// The work tree as a commit, for `--worktree`: every tracked and untracked, not ignored, file
    /// as it is on disk, over HEAD. Like `git stash create`, this writes the blobs and trees into
    /// the object database and moves no ref and not the index file; symbolic links are stored as
    /// links, never followed, so nothing outside the repository is read.
    pub(crate) fn snapshot_worktree(&self, repo: &Repository) -> Result<Oid, git2::Error> {
        let head = repo.head()?.peel_to_commit()?;
        let mut index = repo.index()?;
        index.add_all(["*"], git2::IndexAddOption::DEFAULT, None)?;
        index.update_all(["*"], None)?;
        let tree = repo.find_tree(index.write_tree()?)?;
        // The in-memory index is dropped here, never written back.
        let sig = git2::Signature::new("citegate", "citegate@localhost", &head.time())?;
        repo.commit(None, &sig, &sig, "citegate --worktree", &tree, &[&head])
    }

    /// The object ID of what `path` names at `commit`, without reading it.
    pub fn blob_id(&self, repo: &Repository, commit: Oid, path: &str) -> Option<Oid> {
        let root = repo.find_commit(commit).ok()?.tree_id();
        match self.look_up(repo, root, path) {
            Ok(Looked::Found(id, _)) => Some(id),
            _ => None,
        }
    }

    /// The repository keeping `target`'s text blobs once read (see `target_blobs`): what a
    /// session is built with, once its target is resolved.
    pub(crate) fn with_target(mut self, target: Oid) -> CodeRepo {
        self.target = Some(target);
        self.target_blobs.get_mut().expect("blobs lock").clear();
        self
    }

    /// What `path` is at `commit`: text is read once and shared by every citation of it.
    pub fn file_at(
        &self,
        repo: &Repository,
        commit: Oid,
        path: &str,
    ) -> Result<FileAt, git2::Error> {
        match self.entry_at(repo, commit, path)? {
            Entry::Blob(id) => self.blob_at(repo, id, commit),
            Entry::Other(file) => Ok(file),
        }
    }

    /// What `path` names at `commit`, from its trees alone: a regular file's blob (not read), or
    /// what else is there.
    pub(crate) fn entry_at(
        &self,
        repo: &Repository,
        commit: Oid,
        path: &str,
    ) -> Result<Entry, git2::Error> {
        let root = repo.find_commit(commit)?.tree_id();
        let (id, mode) = match self.look_up(repo, root, path) {
            Ok(Looked::Found(id, mode)) => (id, mode),
            Ok(Looked::Missing) => return Ok(Entry::Other(FileAt::Missing)),
            Ok(Looked::InSubmodule(module)) => {
                return Ok(Entry::Other(FileAt::InSubmodule(module)))
            }
            Err((tree, e)) => {
                // A folder on the way that cannot be read: the path's existence is unknown.
                self.broken_object(ObjectError::new(tree, "tree", &e));
                return Err(e);
            }
        };
        Ok(match mode {
            0o040000 => Entry::Other(FileAt::Directory),
            0o160000 => Entry::Other(FileAt::Submodule),
            0o120000 => Entry::Other(FileAt::Symlink),
            _ => Entry::Blob(id),
        })
    }

    /// What `path` is under the tree `root`, its folders read through the session's cache (a
    /// path asked for at many revisions is mostly in folders already read). A path libgit2's
    /// `git_tree_entry_bypath` would not find (an empty component, a file on the way) is missing;
    /// a submodule on the way is said. Else the error reading a folder, with the folder.
    fn look_up(
        &self,
        repo: &Repository,
        root: Oid,
        path: &str,
    ) -> Result<Looked, (Oid, git2::Error)> {
        let read = |tree: Oid| self.tree_cache.read(repo, tree).map_err(|e| (tree, e));
        let mut folder = read(root)?;
        let mut at = 0;
        loop {
            let rest = &path[at..];
            let (name, next) = match rest.find('/') {
                Some(i) => (&rest[..i], Some(at + i + 1)),
                None => (rest, None),
            };
            let found = folder.position(name.as_bytes()).and_then(|i| folder.get(i));
            let Some(entry) = found.filter(|_| !name.is_empty()) else {
                return Ok(Looked::Missing);
            };
            let Some(next) = next else {
                return Ok(Looked::Found(entry.id(), entry.filemode()));
            };
            match entry.kind() {
                ObjectType::Commit => return Ok(Looked::InSubmodule(path[..next - 1].to_string())),
                // `folder/`: the folder itself.
                ObjectType::Tree if next == path.len() => {
                    return Ok(Looked::Found(entry.id(), entry.filemode()))
                }
                ObjectType::Tree => folder = read(entry.id())?,
                _ => return Ok(Looked::Missing),
            }
            at = next;
        }
    }

    /// A regular file's blob `id`, read at `commit`: its text, or why it has none (too large,
    /// binary). The target's texts are kept for every later reader.
    pub fn blob_at(&self, repo: &Repository, id: Oid, commit: Oid) -> Result<FileAt, git2::Error> {
        if let Some(text) = self.target_blobs.lock().expect("blobs lock").get(&id) {
            return Ok(FileAt::Text(text.clone()));
        }
        // The size is read from the object's header: a huge blob that compresses well
        // (512 MiB in 676 KB) is refused without being inflated.
        let unreadable = |e: git2::Error| {
            self.broken_object(ObjectError::new(id, "blob", &e));
            e
        };
        let (size, _) = repo.odb()?.read_header(id).map_err(unreadable)?;
        if size > MAX_BLOB_BYTES {
            return Ok(FileAt::TooLarge(size));
        }
        let blob = repo.find_blob(id).map_err(unreadable)?;
        let content = blob.content();
        // Git's own test for binary content: a NUL in the first 8000 bytes (searched with
        // `memchr`'s vector search: the slice's own `contains` looked at each byte, 3% of the
        // versioned-docs audit's instructions).
        if memchr::memchr(0, &content[..content.len().min(8000)]).is_some() {
            return Ok(FileAt::Binary);
        }
        Ok(match std::str::from_utf8(blob.content()) {
            Ok(text) => {
                let text: Arc<str> = Arc::from(text);
                if self.target == Some(commit) {
                    self.target_blobs
                        .lock()
                        .expect("blobs lock")
                        .insert(id, text.clone());
                }
                FileAt::Text(text)
            }
            Err(_) => FileAt::Binary,
        })
    }

    /// Every regular file at `commit` (not a symbolic link or submodule) with its blob ID, in
    /// tree order.
    pub(crate) fn blob_ids(&self, repo: &Repository, commit: Oid) -> Vec<(String, Oid)> {
        let files = files_at(repo, &self.tree_cache, commit).into_iter();
        let regular = files.filter(|f| f.2 != 0o120000);
        regular.map(|(path, id, _)| (path, id)).collect()
    }

    /// `Self::paths_at` from any thread: a handle is opened only when they are not known yet,
    /// and dropped after. (A lent handle, kept for the run with its caches, added 3-4 MB to the
    /// wiki corpus's peak and saved no measurable time on the versioned-docs corpus.)
    pub fn paths(&self, commit: Oid) -> Arc<PathIndex> {
        (self.paths).get(commit, || {
            list_paths(&self.worker(), &self.tree_cache, commit)
        })
    }

    /// Every file path at `commit`, sorted; computed once per commit, only when a cross-file
    /// search needs it.
    pub(crate) fn paths_at(&self, repo: &Repository, commit: Oid) -> Arc<PathIndex> {
        (self.paths).get(commit, || list_paths(repo, &self.tree_cache, commit))
    }

    /// The folders of `commit` by path, for a missing path's suggestions; read once per commit
    /// (none when the commit cannot be read).
    pub fn layout(&self, commit: Oid) -> Arc<Layout> {
        self.layouts.get(commit, || {
            let git = self.worker();
            let root = git.find_commit(commit).map(|c| c.tree_id());
            match root {
                Ok(root) => Layout::read(&git, &self.tree_cache, root),
                Err(_) => Layout::default(),
            }
        })
    }

    /// Where `path` (a file at `from`, gone at `to`) is at `to` when it was renamed, as
    /// `git log --follow` finds it; `None` when it was deleted (see `Follower::renamed`).
    pub fn renamed(&self, repo: &Repository, from: Oid, to: Oid, path: &str) -> Option<String> {
        let lend = |f: &mut dyn FnMut(&Repository)| self.with_handle(|git| f(git));
        self.renames.renamed(repo, Some(&lend), from, to, path)
    }

    /// Whether following a file stopped short at git's rename limit in some commit (see
    /// `Follower::renames_skipped`).
    pub fn renames_skipped(&self) -> Option<crate::model::RenamesSkipped> {
        self.renames.renames_skipped()
    }

    /// The repo-relative POSIX path of `path` when it is inside the work tree. Its folder is
    /// resolved once per folder (a canonical path costs a system call per component, and a wiki
    /// has many docs per folder); the file itself is never followed, as docs are not.
    pub fn relative(&self, path: &Path) -> Option<String> {
        let workdir = self.workdir.as_ref()?;
        let (parent, name) = (path.parent()?, path.file_name()?);
        let parent = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
        let known = self
            .folders
            .lock()
            .expect("folders lock")
            .get(parent)
            .cloned();
        let folder = match known {
            Some(f) => f,
            None => {
                let f = parent.canonicalize().ok()?;
                self.folders
                    .lock()
                    .expect("folders lock")
                    .insert(parent.to_path_buf(), f.clone());
                f
            }
        };
        let abs = folder.join(name);
        let rel = abs.strip_prefix(workdir).ok()?;
        Some(rel.to_string_lossy().replace('\\', "/"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shallow_file_with_crlf_line_ends_is_read_as_git_reads_it() {
        // Issue 57: a `.git/shallow` with CRLF line ends (and a blank line), which git reads,
        // stopped the run with libgit2's bare "invalid parent OID at line 1".
        let dir = tempfile::tempdir().unwrap();
        let spec = "@@@ commit v1 c\n@@@ file a.rs\nx\n@@@ commit v2 c\n@@@ file a.rs\ny\n";
        let v2 = crate::fixture::build(spec, dir.path()).unwrap()["v2"];
        let shallow = dir.path().join(".git/shallow");
        let crlf = format!("{v2}\r\n\r\n");
        std::fs::write(&shallow, &crlf).unwrap();
        assert!(
            Repository::discover(dir.path()).is_err(),
            "libgit2 reads it now"
        );
        let repo = CodeRepo::discover(dir.path()).unwrap();
        assert_eq!((repo.shallow, &repo.cut), (true, &BTreeSet::from([v2])));
        let workdir = dir.path().canonicalize().unwrap();
        assert_eq!(repo.workdir.as_deref(), Some(workdir.as_path()));
        assert_eq!(repo.git_dir.canonicalize().unwrap(), workdir.join(".git"));
        // Every handle reads the repository's objects and HEAD, from any thread.
        let git = repo.worker();
        assert_eq!(git.head().unwrap().target(), Some(v2));
        assert!(matches!(repo.file_at(&git, v2, "a.rs"), Ok(FileAt::Text(t)) if &*t == "y\n"));
        // Nothing in the repository was written; the stand-in goes with the repository.
        let stand_in = repo.opened_from.as_ref().unwrap().0.path().to_path_buf();
        drop((git, repo));
        assert_eq!(std::fs::read_to_string(&shallow).unwrap(), crlf);
        assert!(!stand_in.exists());
    }

    #[test]
    fn grafts_with_crlf_line_ends_are_named_with_their_fix() {
        // `info/grafts` is read from the common folder: no stand-in, so the error says what to do.
        let dir = tempfile::tempdir().unwrap();
        let spec = "@@@ commit v1 c\n@@@ file a.rs\nx\n@@@ commit v2 c\n@@@ file a.rs\ny\n";
        let v2 = crate::fixture::build(spec, dir.path()).unwrap()["v2"];
        let grafts = dir.path().join(".git/info/grafts");
        std::fs::create_dir_all(grafts.parent().unwrap()).unwrap();
        std::fs::write(&grafts, format!("{v2}\r\n")).unwrap();
        let message = CodeRepo::discover(dir.path())
            .unwrap_err()
            .message()
            .to_string();
        assert!(
            message.contains("invalid parent OID at line 1"),
            "{message}"
        );
        let named = format!("{} line 1 is blank", grafts.display());
        assert!(message.contains(&named), "{message}");
        assert!(message.contains("sed -i"), "{message}");
    }

    #[test]
    fn handles_are_lent_and_kept_between_calls() {
        let dir = tempfile::tempdir().unwrap();
        Repository::init(dir.path()).unwrap();
        let repo = CodeRepo::discover(dir.path()).unwrap();
        let kept = |repo: &CodeRepo| repo.handles.kept();
        assert_eq!(kept(&repo), 0);
        let first = repo.with_handle(|git| git.path().to_path_buf());
        assert_eq!(first, repo.git_dir);
        // The handle is given back, and the next call takes it instead of opening another.
        assert_eq!(kept(&repo), 1);
        repo.with_handle(|_| assert_eq!(kept(&repo), 0));
        // A call while one is lent (another thread) opens a second handle; both are kept.
        repo.with_handle(|_| repo.with_handle(|_| ()));
        assert_eq!(kept(&repo), 2);
    }

    #[test]
    fn files_are_listed_as_libgit2s_pre_order_walk_lists_them() {
        let dir = tempfile::tempdir().unwrap();
        let spec = "@@@ commit v1 c\n@@@ file b.rs\nx\n@@@ file a/z/deep.rs\ny\n\
                    @@@ file a/b.rs\nz\n@@@ file a-b/c.rs\nw\n@@@ symlink a/link.rs b.rs\n\
                    @@@ submodule vendor/lib 0123456789abcdef0123456789abcdef01234567\n";
        let commit = crate::fixture::build(spec, dir.path()).unwrap()["v1"];
        let git = Repository::open(dir.path()).unwrap();
        let tree = git.find_commit(commit).unwrap().tree().unwrap();
        let mut walked = Vec::new();
        tree.walk(git2::TreeWalkMode::PreOrder, |folder, entry| {
            if entry.kind() == Some(ObjectType::Blob) {
                let path = format!("{folder}{}", entry.name().unwrap());
                walked.push((path, entry.id(), entry.filemode()));
            }
            git2::TreeWalkResult::Ok
        })
        .unwrap();
        let listed = files_at(&git, &Folders::default(), commit);
        assert_eq!(listed, walked);
        let paths: Vec<&str> = listed.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(
            paths,
            ["a-b/c.rs", "a/b.rs", "a/link.rs", "a/z/deep.rs", "b.rs"]
        );
        assert_eq!(
            listed[2].2, 0o120000,
            "the symbolic link is listed with its mode"
        );
        assert!(files_at(&git, &Folders::default(), Oid::ZERO_SHA1).is_empty());
    }

    /// What libgit2 says `path` is in `tree`: the entry `get_path` finds, else the first
    /// submodule among its parent folders (what `entry_at` answered before it read folders
    /// itself).
    fn libgit2_entry(tree: &git2::Tree<'_>, path: &str) -> String {
        let Ok(e) = tree.get_path(Path::new(path)) else {
            let mut end = 0;
            while let Some(i) = path[end..].find('/') {
                end += i;
                match tree.get_path(Path::new(&path[..end])) {
                    Ok(e) if e.filemode() == 0o160000 => return format!("in {}", &path[..end]),
                    Ok(_) => end += 1,
                    Err(_) => break,
                }
            }
            return "missing".into();
        };
        match e.filemode() {
            0o040000 => "folder".into(),
            0o160000 => "submodule".into(),
            0o120000 => "link".into(),
            _ => format!("blob {}", e.id()),
        }
    }

    #[test]
    fn a_path_is_looked_up_as_libgit2_looks_it_up() {
        let dir = tempfile::tempdir().unwrap();
        let spec = "@@@ commit v1 c\n@@@ file b.rs\nx\n@@@ file a/z/deep.rs\ny\n\
                    @@@ file a/b.rs\nz\n@@@ file a-b/c.rs\nw\n@@@ file a.b\nv\n\
                    @@@ symlink a/link.rs b.rs\n\
                    @@@ submodule vendor/lib 0123456789abcdef0123456789abcdef01234567\n";
        let commit = crate::fixture::build(spec, dir.path()).unwrap()["v1"];
        let git = Repository::open(dir.path()).unwrap();
        let tree = git.find_commit(commit).unwrap().tree().unwrap();
        let repo = CodeRepo::discover(dir.path()).unwrap();
        let ours = |path: &str| match repo.entry_at(&git, commit, path).unwrap() {
            Entry::Blob(id) => format!("blob {id}"),
            Entry::Other(FileAt::Directory) => "folder".into(),
            Entry::Other(FileAt::Submodule) => "submodule".into(),
            Entry::Other(FileAt::Symlink) => "link".into(),
            Entry::Other(FileAt::Missing) => "missing".into(),
            Entry::Other(FileAt::InSubmodule(m)) => format!("in {m}"),
            Entry::Other(other) => format!("{other:?}"),
        };
        let paths = [
            "b.rs",
            "a/b.rs",
            "a/z/deep.rs",
            "a-b/c.rs",
            "a.b",
            "a",
            "a/",
            "a/z",
            "a/z/",
            "a/link.rs",
            "vendor",
            "vendor/lib",
            "vendor/lib/",
            "vendor/lib/src/x.rs",
            "vendor/lib/x",
            "b.rs/x",
            "b.rs/",
            "a//b.rs",
            "a/missing.rs",
            "nope/x.rs",
            "a-",
            "a/b.rs/",
            "a/z/deep.rs/more",
            "vendor/other/x",
            "",
            "/b.rs",
            "./b.rs",
        ];
        for path in paths {
            assert_eq!(ours(path), libgit2_entry(&tree, path), "{path}");
        }
        let blob = |path: &str| tree.get_path(Path::new(path)).ok().map(|e| e.id());
        for path in ["b.rs", "a", "a/z/deep.rs", "vendor/lib", "nope", "b.rs/x"] {
            assert_eq!(repo.blob_id(&git, commit, path), blob(path), "{path}");
        }
    }

    #[test]
    fn a_commits_paths_are_listed_once_for_threads_asking_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let labels = crate::fixture::build("@@@ commit v1 c\n@@@ file src/a.rs\nx\n", dir.path());
        let commit = labels.unwrap()["v1"];
        let repo = CodeRepo::discover(dir.path()).unwrap();
        let (a, b) = rayon::join(|| repo.paths(commit), || repo.paths(commit));
        assert!(Arc::ptr_eq(&a, &b));
        assert!(Arc::ptr_eq(&a, &repo.paths_at(&repo.worker(), commit)));
        assert_eq!(a.paths, vec!["src/a.rs"]);
    }
}
