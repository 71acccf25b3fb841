//! What to audit and how, as the command line says it, and the ways a run can fail as a whole.

use std::path::PathBuf;

use super::progress::ProgressSink;
use crate::config::ConfigError;
use crate::model::hash::{fnv1a, FNV_OFFSET};

/// What to audit and how, as the command line says it.
#[derive(Debug, Clone)]
pub struct AuditOptions {
    /// Doc files or folders.
    pub paths: Vec<PathBuf>,
    /// The code repository; `None`: the one holding the current folder.
    pub repo: Option<PathBuf>,
    /// What docs are checked against, and where unpinned citations resolve (default: the
    /// configuration's `target`, else `HEAD`).
    pub target: Option<String>,
    /// Check against the files on disk (uncommitted edits) instead of a revision.
    pub worktree: bool,
    /// Compare citations that held at an older revision with the target, and find the implied pin
    /// of unpinned citations that fail (blame).
    pub history: bool,
    /// The audited repository's URL, when its remotes do not name it.
    pub repo_url: Option<String>,
    /// Worker threads; `None`: one per core.
    pub jobs: Option<usize>,
    /// `overbroad-span` threshold (default: the configuration's, else 200).
    pub max_span_lines: Option<usize>,
    /// The configuration file (default: `.citegate.yaml` at the repository root, when present).
    pub config: Option<PathBuf>,
    /// Only the docs a change since this revision can affect.
    pub since: Option<String>,
    /// Only this shard of the docs (`--shard I/N`).
    pub shard: Option<Shard>,
    /// The baseline file (default: `.citegate-baseline.json` at the repository root, when
    /// present).
    pub baseline: Option<PathBuf>,
    /// Where the run reports its stages (a bar on a terminal; nothing by default).
    pub progress: ProgressSink,
    /// Make the opt-in re-pins ([`crate::model::Report::repins`]: citations whose own older pin
    /// still holds at the target, moved to it by `fix --repin` and the language server's re-pin
    /// actions). Each is re-checked before it is offered, which is most of the fix re-check on
    /// docs with many pinned citations: a run that offers none (`audit`, `sweep`, the gate, the
    /// libraries) leaves them out. On by default.
    pub repins: bool,
}

impl Default for AuditOptions {
    fn default() -> Self {
        AuditOptions {
            paths: vec![PathBuf::from(".")],
            repo: None,
            target: None,
            worktree: false,
            history: true,
            repo_url: None,
            jobs: None,
            max_span_lines: None,
            config: None,
            since: None,
            shard: None,
            baseline: None,
            progress: ProgressSink::default(),
            repins: true,
        }
    }
}

/// One of N disjoint parts of the docs, by a stable hash of each doc's name, so that N runs on N
/// machines audit every doc exactly once (`--shard I/N`, I from 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// Which part this is, from 1 to `count`.
    pub index: u32,
    /// How many parts the docs are split into.
    pub count: u32,
}

impl Shard {
    /// Whether the doc named `name` is in this shard: FNV-1a over its bytes, stable across runs,
    /// machines and versions.
    pub fn holds(&self, name: &str) -> bool {
        let hash = fnv1a(FNV_OFFSET, name.as_bytes());
        hash % u64::from(self.count) == u64::from(self.index - 1)
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| format!("`{s}`: expected I/N, e.g. 2/3"))?;
        let index: u32 = i
            .trim()
            .parse()
            .map_err(|_| format!("`{s}`: I is not a number"))?;
        let count: u32 = n
            .trim()
            .parse()
            .map_err(|_| format!("`{s}`: N is not a number"))?;
        if count == 0 || index == 0 || index > count {
            return Err(format!("`{s}`: I must be from 1 to N"));
        }
        Ok(Shard { index, count })
    }
}

/// A run that could not be made at all (exit code 2). The message names the flag or file that
/// was wrong; the cause, where there is one, is its source ([`crate::error::chain`] prints both).
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// The repository (`--repo`, else the current folder) is not a Git repository, or cannot be
    /// opened.
    #[error("{}: not a Git repository", path.display())]
    Repo {
        /// The folder given, or the repository's Git folder.
        path: PathBuf,
        /// Why it could not be opened.
        #[source]
        source: crate::error::GitError,
    },
    /// A revision option that names no usable commit: the option (`--target`, `--since`,
    /// `--worktree`), what was given, why, and what to do about it (a shallow clone).
    #[error("{flag} {rev}: {message}{}", help(hint))]
    Rev {
        /// The option, as the command line spells it.
        flag: &'static str,
        /// The revision it was given.
        rev: String,
        /// Why it names no usable commit.
        message: String,
        /// What to do about it, when there is something to do.
        hint: Option<String>,
    },
    /// A doc path given that could not be walked.
    #[error("{}: {error}", path.display())]
    Path {
        /// The path as given.
        path: PathBuf,
        /// Why it could not be walked.
        error: String,
    },
    /// The worker threads could not be had (`--jobs` past the limit, or the pool not started).
    #[error("worker threads: {0}")]
    Threads(String),
    /// The configuration file cannot be read or is not valid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// `CITEGATE_TODAY` set to something not a date.
    #[error("CITEGATE_TODAY `{0}` is not a date (YYYY-MM-DD)")]
    Today(String),
    /// A baseline file that cannot be read: never ignored (every finding it holds would fail).
    #[error("{}:{error}", path.display())]
    Baseline {
        /// The baseline file that cannot be read.
        path: PathBuf,
        /// Where it cannot be read, and why.
        error: crate::model::baseline::BaselineError,
    },
    /// Objects the audit needed that the object database cannot give.
    #[error("{}", Objects(.0))]
    Objects(Vec<crate::resolve::repo::ObjectError>),
    /// The output (of `--dump`, written as the run goes) could not be written.
    #[error("cannot write the output")]
    Write(#[source] std::io::Error),
}

fn help(hint: &Option<String>) -> String {
    hint.as_ref()
        .map_or(String::new(), |h| format!("\n  help: {h}"))
}

/// The objects of [`AuditError::Objects`], as printed.
struct Objects<'a>(&'a [crate::resolve::repo::ObjectError]);

impl std::fmt::Display for Objects<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        broken_objects(f, self.0)
    }
}

/// Name every object that could not be read, and how to get the missing ones.
fn broken_objects(
    f: &mut std::fmt::Formatter<'_>,
    objects: &[crate::resolve::repo::ObjectError],
) -> std::fmt::Result {
    write!(f, "the object database cannot give what the docs cite:")?;
    for o in objects {
        write!(f, "\n  {o}")?;
    }
    if objects.iter().any(|o| o.missing) {
        write!(
            f,
            "\nhelp: a partial clone (`git clone --filter=blob:none`) lacks these objects and \
             citegate does not fetch; fetch them with `git fetch --refetch origin` (or clone \
             without `--filter`) and run again"
        )?;
    }
    if objects.iter().any(|o| !o.missing) {
        write!(
            f,
            "\nhelp: a corrupt object: `git fsck` names the damage; fetch the repository again"
        )?;
    }
    Ok(())
}
