//! `sweep --history FILE`: one JSON line per sweep (the counts per rule, family, severity and doc
//! folder, with the revision and the date, and the findings' fingerprints), appended to a file
//! the workflow keeps; read back, the last runs are the trend and the previous run says which
//! findings are new and which were fixed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use citegate_engine::model::Report;

/// The format of a history line.
pub const VERSION: u32 = 1;

/// The most bytes of a history file read (about ten years of weekly runs of a large wiki).
pub const MAX_HISTORY_BYTES: u64 = 256 << 20;

/// The most bytes of a recorded date (RFC 3339 takes 20): a longer one is not a run's.
pub const MAX_DATE_BYTES: usize = 64;

/// One sweep, as recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub version: u32,
    /// Full SHA of the target.
    pub revision: String,
    /// When the sweep ran, RFC 3339 in UTC (`SOURCE_DATE_EPOCH` when set).
    pub date: String,
    pub docs: usize,
    pub citations: usize,
    pub findings: usize,
    pub by_severity: BTreeMap<String, usize>,
    pub by_family: BTreeMap<String, usize>,
    pub by_rule: BTreeMap<String, usize>,
    /// Findings by the doc's folder (`.` for the root).
    pub by_folder: BTreeMap<String, usize>,
    /// Every finding's fingerprint, sorted: what is new and what was fixed since.
    pub fingerprints: Vec<String>,
}

/// What changed since the previous run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Since {
    pub date: String,
    pub revision: String,
    pub new: usize,
    pub fixed: usize,
}

/// The runs recorded so far and this one: the series the dashboard draws.
#[derive(Debug, Clone, Default)]
pub struct Trend {
    /// Oldest first, this run last.
    pub runs: Vec<Run>,
    /// Lines of the file that could not be read, with why (the rest is used).
    pub skipped: Vec<String>,
}

impl Trend {
    pub fn since(&self) -> Option<Since> {
        let [.., before, now] = self.runs.as_slice() else {
            return None;
        };
        let old: BTreeSet<&String> = before.fingerprints.iter().collect();
        let new: BTreeSet<&String> = now.fingerprints.iter().collect();
        Some(Since {
            date: before.date.clone(),
            revision: before.revision.clone(),
            new: new.difference(&old).count(),
            fixed: old.difference(&new).count(),
        })
    }
}

/// This sweep as a history line.
pub fn run_of(report: &Report, date: String) -> Run {
    let s = &report.summary;
    let owned = |m: &BTreeMap<&'static str, usize>| {
        m.iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect::<BTreeMap<String, usize>>()
    };
    let mut by_folder: BTreeMap<String, usize> = BTreeMap::new();
    for f in &report.findings {
        let name = &report.docs[f.doc].doc.name;
        let folder = name.rsplit_once('/').map_or(".", |(d, _)| d);
        *by_folder.entry(folder.to_string()).or_default() += 1;
    }
    let mut fingerprints: Vec<String> = report
        .findings
        .iter()
        .map(|f| f.at.fingerprint.clone())
        .collect();
    fingerprints.sort_unstable();
    Run {
        version: VERSION,
        revision: report.revision.clone(),
        date,
        docs: s.docs,
        citations: s.citations,
        findings: report.findings.len(),
        by_severity: owned(&s.by_severity),
        by_family: owned(&s.by_family),
        by_rule: owned(&s.by_rule),
        by_folder,
        fingerprints,
    }
}

/// Now, or `SOURCE_DATE_EPOCH` (seconds) when set, as RFC 3339 in UTC.
pub fn now() -> String {
    let epoch = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok());
    let at = match epoch {
        Some(secs) => std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs),
        None => std::time::SystemTime::now(),
    };
    humantime::format_rfc3339_seconds(at).to_string()
}

/// Why a history file cannot be read or written; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("{}", .0.display())]
    Io(PathBuf, #[source] std::io::Error),
    #[error("{}: not a regular file of at most {} MiB", .0.display(), MAX_HISTORY_BYTES >> 20)]
    NotAFile(PathBuf),
    #[error("{}", .0.display())]
    Write(PathBuf, #[source] citegate_engine::output::OutputError),
}

/// The runs recorded in `path` (none when it does not exist yet). A line that is not a run is
/// skipped and named (`FILE:LINE: why`); a file that is not a regular file, or too large, is an
/// error.
pub fn read(path: &Path) -> Result<Trend, HistoryError> {
    let io = |e| HistoryError::Io(path.to_path_buf(), e);
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Trend::default()),
        Err(e) => return Err(io(e)),
    };
    if !meta.is_file() || meta.len() > MAX_HISTORY_BYTES {
        return Err(HistoryError::NotAFile(path.to_path_buf()));
    }
    let bytes = std::fs::read(path).map_err(io)?;
    let mut trend = Trend::default();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let why = match serde_json::from_slice::<Run>(line) {
            Ok(run) if run.version == VERSION => match invalid(&run) {
                None => {
                    trend.runs.push(run);
                    continue;
                }
                Some(why) => why.to_string(),
            },
            Ok(run) => format!(
                "history version {} (this citegate reads {VERSION})",
                run.version
            ),
            Err(e) => e.to_string(),
        };
        trend
            .skipped
            .push(format!("{}:{}: {why}", path.display(), i + 1));
    }
    Ok(trend)
}

/// Why a parsed line is not a run this citegate wrote: its date and revision are shown in every
/// report, so a line from elsewhere (a 1 MiB date) must not reach them.
fn invalid(run: &Run) -> Option<&'static str> {
    let hex = |s: &str| s.bytes().all(|b| b.is_ascii_hexdigit());
    if run.date.len() > MAX_DATE_BYTES {
        Some("the date is longer than 64 bytes")
    } else if !matches!(run.revision.len(), 40 | 64) || !hex(&run.revision) {
        Some("the revision is not a full commit ID")
    } else {
        None
    }
}

/// Append `run` to the file as one line (never through a symbolic link).
pub fn append(path: &Path, run: &Run) -> Result<(), HistoryError> {
    // A run is maps of strings and numbers: it always serialises.
    let mut line = serde_json::to_string(run).expect("a run serialises");
    line.push('\n');
    citegate_engine::output::append(path, line.as_bytes())
        .map_err(|e| HistoryError::Write(path.to_path_buf(), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(date: &str, fingerprints: &[&str]) -> Run {
        Run {
            version: VERSION,
            revision: "a".repeat(40),
            date: date.to_string(),
            docs: 1,
            citations: 3,
            findings: fingerprints.len(),
            by_severity: BTreeMap::new(),
            by_family: BTreeMap::new(),
            by_rule: BTreeMap::new(),
            by_folder: BTreeMap::new(),
            fingerprints: fingerprints.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn new_and_fixed_come_from_the_fingerprints() {
        let trend = Trend {
            runs: vec![
                run("d1", &["a", "b", "c"]),
                run("d2", &["b", "c", "d", "e"]),
            ],
            skipped: Vec::new(),
        };
        let since = trend.since().unwrap();
        assert_eq!((since.new, since.fixed, since.date.as_str()), (2, 1, "d1"));
        assert_eq!(Trend::default().since(), None);
    }

    #[test]
    fn a_broken_line_is_named_and_the_rest_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.jsonl");
        append(&path, &run("d1", &["a"])).unwrap();
        citegate_engine::output::append(&path, b"{not json\n\n").unwrap();
        append(&path, &run("d2", &["b"])).unwrap();
        let trend = read(&path).unwrap();
        assert_eq!(trend.runs.len(), 2);
        assert_eq!(trend.skipped.len(), 1);
        assert!(
            trend.skipped[0].contains("h.jsonl:2: "),
            "{:?}",
            trend.skipped
        );
        assert!(read(&dir.path().join("none")).unwrap().runs.is_empty());
        assert!(read(dir.path()).is_err());
    }
}
