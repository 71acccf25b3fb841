//! Settings: the command line, the configuration file and the defaults merged once, before the run
//! (command line > file > default), so no stage looks at more than one source.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use super::options::{AuditError, AuditOptions};
use super::progress::ProgressSink;
use crate::config::{self, Config, Date};
use crate::extract::ExtractContext;
use crate::model::baseline::{self, Baseline, BaselineError};
use crate::model::{AuditedDoc, DocId, Surface};
use crate::registry::{RuleId, Severity};
use crate::resolve::CodeRepo;

/// `overbroad-span`'s threshold when neither the command line nor the file sets one.
pub(super) const DEFAULT_MAX_SPAN_LINES: usize = 200;

/// Everything a run decides by, resolved.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The validated configuration (`--config`, else `.citegate.yaml`, else the defaults).
    pub config: Config,
    /// The target revision's name (`HEAD`, a branch, a SHA).
    pub target: String,
    /// `overbroad-span`'s threshold: the command line's, else the file's, else 200.
    pub max_span_lines: usize,
    /// Compare citations that held at an older revision with the target; find implied pins.
    pub history: bool,
    /// Search the other files of the tree for a quote found nowhere in its own file, to name
    /// where it is in the help. Help only: no verdict depends on it (the gate turns it off).
    pub quote_hints: bool,
    /// Make the opt-in re-pins (see [`AuditOptions::repins`]).
    pub repins: bool,
    /// `--repo-url`'s identity (`github.com/o/r`): its permalinks cite this repository too.
    pub repo_url_id: Option<String>,
    /// Where the run reports its stages.
    pub progress: ProgressSink,
    /// The front end the run serves: help names its flags or parameters (no verdict depends on
    /// it).
    pub surface: Surface,
    /// The baseline (`--baseline`, else `.citegate-baseline.json` at the root when present).
    pub baseline: Option<Arc<Baseline>>,
    /// The day waivers are judged on: `CITEGATE_TODAY` (`YYYY-MM-DD`) when set, else the clock.
    /// Read here only, so a test gives the date and never depends on when it runs.
    pub today: Date,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            config: Config::default(),
            target: "HEAD".to_string(),
            max_span_lines: DEFAULT_MAX_SPAN_LINES,
            history: true,
            quote_hints: true,
            repins: true,
            repo_url_id: None,
            progress: ProgressSink::default(),
            surface: Surface::default(),
            baseline: None,
            today: Date::today(),
        }
    }
}

impl Settings {
    /// Merge the options with the configuration file (`--config`, else `.citegate.yaml` at the
    /// repository root when present).
    pub fn resolve(opts: &AuditOptions, repo: &CodeRepo) -> Result<Settings, AuditError> {
        let config = load_config(opts.config.as_ref(), repo)?;
        Ok(Settings {
            target: opts
                .target
                .clone()
                .or_else(|| config.target.clone())
                .unwrap_or_else(|| "HEAD".to_string()),
            max_span_lines: opts
                .max_span_lines
                .or(config.max_span_lines)
                .unwrap_or(DEFAULT_MAX_SPAN_LINES),
            history: opts.history,
            quote_hints: true,
            repins: opts.repins,
            repo_url_id: opts.repo_url.as_deref().and_then(crate::forge::repo_id),
            progress: opts.progress.clone(),
            surface: Surface::default(),
            config,
            baseline: load_baseline(opts.baseline.as_ref(), repo)?.map(Arc::new),
            today: today()?,
        })
    }

    /// What extraction needs to know of `repo` under these settings.
    pub(crate) fn extract_context(&self, repo: &CodeRepo) -> ExtractContext {
        let mut repo_ids = repo.ids.clone();
        repo_ids.extend(self.repo_url_id.clone());
        ExtractContext {
            repo_ids,
            workdir: repo.workdir.clone(),
            slash_refs: repo.slash_refs.clone(),
            patterns: self.config.patterns.clone(),
            sites: Default::default(),
        }
    }

    /// A digest of what decides the findings besides the docs and the target: the configuration
    /// file's text, the span limit and whether history is on. Shards of one run share it.
    pub fn digest(&self) -> String {
        use crate::model::hash::{fnv1a, FNV_OFFSET};
        let mut h = fnv1a(FNV_OFFSET, &self.config.digest.to_le_bytes());
        h = fnv1a(h, &(self.max_span_lines as u64).to_le_bytes());
        h = fnv1a(h, &[u8::from(self.history)]);
        format!("{h:016x}")
    }

    /// Each rule's severity for each doc (`None`: off), computed once per doc: the rules ask for
    /// every citation.
    pub fn levels(&self, docs: &[AuditedDoc]) -> Levels {
        Levels(
            docs.par_iter()
                .map(|d| {
                    RuleId::ALL
                        .iter()
                        .map(|r| self.config.severity(*r, &d.doc.name))
                        .collect()
                })
                .collect(),
        )
    }
}

/// Severities by doc and rule (in [`RuleId::ALL`] order); `None` is off.
#[derive(Debug, Clone)]
pub struct Levels(Vec<Vec<Option<Severity>>>);

impl Levels {
    /// The severity of `rule`'s findings in the doc `doc`; `None`: the rule is off there.
    pub fn severity(&self, rule: RuleId, doc: DocId) -> Option<Severity> {
        let at = RuleId::ALL.iter().position(|r| *r == rule)?;
        self.0.get(doc.index()).and_then(|rules| rules[at])
    }

    /// Whether `rule` is on for the doc `doc`.
    pub fn on(&self, rule: RuleId, doc: DocId) -> bool {
        self.severity(rule, doc).is_some()
    }
}

fn load_config(path: Option<&PathBuf>, repo: &CodeRepo) -> Result<Config, AuditError> {
    let loaded = match path {
        Some(path) => Config::load(path, false),
        None => match &repo.workdir {
            // Errors name the file as users know it: at the repository root.
            Some(w) => Config::load(&w.join(config::FILE_NAME), true).map_err(|mut e| {
                e.path = PathBuf::from(config::FILE_NAME);
                e
            }),
            None => Ok(None),
        },
    };
    Ok(loaded.map_err(AuditError::Config)?.unwrap_or_default())
}

/// The environment variable that sets the day waivers are judged on (tests, reproducible runs).
pub const TODAY_VAR: &str = "CITEGATE_TODAY";

/// `CITEGATE_TODAY` when set (a malformed one fails the run), else the clock's day.
fn today() -> Result<Date, AuditError> {
    match std::env::var(TODAY_VAR) {
        Ok(s) => Date::parse(&s).ok_or(AuditError::Today(s)),
        Err(_) => Ok(Date::today()),
    }
}

/// The baseline: `path` (it must exist), else the repository root's when present. A link is not
/// followed and a malformed file is an error with its line: never ignored.
fn load_baseline(path: Option<&PathBuf>, repo: &CodeRepo) -> Result<Option<Baseline>, AuditError> {
    let (path, shown, optional) = match (path, &repo.workdir) {
        (Some(p), _) => (p.clone(), p.clone(), false),
        (None, Some(w)) => (
            w.join(baseline::FILE_NAME),
            PathBuf::from(baseline::FILE_NAME),
            true,
        ),
        (None, None) => return Ok(None),
    };
    let fail = |message: String| AuditError::Baseline {
        path: shown.clone(),
        error: BaselineError {
            line: 0,
            column: 0,
            message,
        },
    };
    let text = match read_regular(&path) {
        Ok(text) => text,
        Err(e) if optional && e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(fail(e.to_string())),
    };
    Baseline::parse(&text)
        .map(Some)
        .map_err(|error| AuditError::Baseline {
            path: shown.clone(),
            error,
        })
}

/// A regular file's text, at most [`config::MAX_FILE_BYTES`] times 64: a link or anything not
/// a regular file is refused (a committed file is a stranger's in CI).
fn read_regular(path: &Path) -> std::io::Result<String> {
    let meta = std::fs::symlink_metadata(path)?;
    let refuse = |why: &str| std::io::Error::other(why.to_string());
    if meta.file_type().is_symlink() {
        return Err(refuse("a symbolic link: not followed"));
    }
    if !meta.file_type().is_file() {
        return Err(refuse("not a regular file: not read"));
    }
    if meta.len() > config::MAX_FILE_BYTES * 64 {
        return Err(refuse("over 64 MiB: not read"));
    }
    std::fs::read_to_string(path)
}
