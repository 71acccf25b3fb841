//! `citegate sweep`: the scheduled whole-repository pass. Every doc is audited against the
//! target; with an index manifest (the revision a RAG index or generated wiki was built at), the
//! docs and cited files changed since that revision are listed, since the index may now say
//! things the code no longer does.

pub mod history;

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write;
use std::path::Path;
use std::sync::Arc;

use git2::Repository;
use serde::Deserialize;

use crate::{html, markdown};
use citegate_engine::model::{LineIndex, LineRange, Report};
use citegate_engine::resolve::repo::{CodeRepo, FileAt, MAX_BLOB_BYTES};

/// A small YAML (or JSON) file written when an index or wiki is built, e.g. `revision: 1a2b3c4d`.
/// Other keys (`built_at`, `tool`…) are allowed and ignored.
#[derive(Debug, Clone, Deserialize)]
pub struct Manifest {
    pub revision: String,
}

/// What changed since the manifest's revision.
#[derive(Debug, Clone)]
pub struct Drift {
    pub manifest_revision: String,
    pub docs_changed: Vec<String>,
    pub cited_files_changed: Vec<String>,
}

#[derive(Debug)]
pub struct SweepError(pub String);

impl std::fmt::Display for SweepError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SweepError {}

/// Read a manifest file, with the location of a YAML error.
pub fn read_manifest(path: &Path) -> Result<Manifest, SweepError> {
    let fail = |e: String| SweepError(format!("{}: {e}", path.display()));
    let meta = std::fs::metadata(path).map_err(|e| fail(e.to_string()))?;
    if !meta.is_file() || meta.len() > citegate_engine::config::MAX_FILE_BYTES {
        return Err(fail(format!(
            "not a regular file of at most {} KiB",
            citegate_engine::config::MAX_FILE_BYTES >> 10
        )));
    }
    let text = std::fs::read_to_string(path).map_err(|e| fail(e.to_string()))?;
    if let Some(at) = citegate_engine::config::yaml_too_deep(&text) {
        return Err(fail(format!(
            "byte {at}: nested deeper than {} levels: not read",
            citegate_engine::config::MAX_YAML_DEPTH
        )));
    }
    serde_yaml_ng::from_str(&text).map_err(|e| {
        let at = e
            .location()
            .map(|l| format!(":{}:{}", l.line(), l.column()))
            .unwrap_or_default();
        SweepError(format!("{}{at}: {e}", path.display()))
    })
}

/// The docs and cited files that changed between the manifest's revision and the target.
pub fn drift(report: &Report, manifest: &Manifest) -> Result<Drift, SweepError> {
    let err = |e: git2::Error| {
        SweepError(format!(
            "manifest revision `{}`: {}",
            manifest.revision,
            e.message()
        ))
    };
    let git = Repository::open(&report.git_dir).map_err(err)?;
    let from = git
        .revparse_single(&manifest.revision)
        .and_then(|o| o.peel_to_commit())
        .map_err(err)?;
    let to = git
        .find_commit(git2::Oid::from_str(&report.revision).map_err(err)?)
        .map_err(err)?;
    let diff = git
        .diff_tree_to_tree(
            Some(&from.tree().map_err(err)?),
            Some(&to.tree().map_err(err)?),
            None,
        )
        .map_err(err)?;
    let mut changed = BTreeSet::new();
    for delta in diff.deltas() {
        for file in [delta.old_file(), delta.new_file()] {
            if let Some(p) = file.path() {
                changed.insert(p.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let docs: BTreeSet<&str> = report
        .docs
        .iter()
        .filter(|d| !d.extracted.skipped)
        .map(|d| d.doc.name.as_str())
        .collect();
    let cited: BTreeSet<&str> = report
        .docs
        .iter()
        .flat_map(|d| d.extracted.citations.iter().filter_map(|c| c.repo_path()))
        .collect();
    Ok(Drift {
        manifest_revision: from.id().to_string(),
        docs_changed: changed
            .iter()
            .filter(|p| docs.contains(p.as_str()))
            .cloned()
            .collect(),
        cited_files_changed: changed
            .iter()
            .filter(|p| cited.contains(p.as_str()))
            .cloned()
            .collect(),
    })
}

/// The sweep's Markdown report, in at most `max_bytes`: the audit, then the drift since the index
/// was built.
pub fn render(
    report: &Report,
    drift: Option<&Drift>,
    since: Option<&history::Since>,
    max_bytes: usize,
) -> String {
    let mut tail = String::new();
    if let Some(s) = since {
        let _ = writeln!(
            tail,
            "\n### Since the sweep of {} at {}\n\n{} new finding{}, {} fixed.\n",
            markdown::code(bounded(&s.date, history::MAX_DATE_BYTES)),
            markdown::code(bounded(&s.revision, 8)),
            s.new,
            if s.new == 1 { "" } else { "s" },
            s.fixed
        );
    }
    if let Some(d) = drift {
        let _ = writeln!(
            tail,
            "\n### Since the index was built at `{}`\n",
            citegate_engine::model::report::short(&d.manifest_revision)
        );
        // The drift lists take at most a quarter of the budget each; the audit gets the rest.
        let share = max_bytes / 4;
        let list = |title: &str, items: &[String], out: &mut String| {
            let start = out.len();
            let _ = writeln!(out, "{title}: {}", items.len());
            let mut shown = 0;
            for i in items.iter().take(50) {
                let line = format!("- {}\n", markdown::code(i));
                if out.len() - start + line.len() + 40 > share {
                    break;
                }
                out.push_str(&line);
                shown += 1;
            }
            if items.len() > shown {
                let _ = writeln!(out, "- … and {} more", items.len() - shown);
            }
            out.push('\n');
        };
        list("Docs changed", &d.docs_changed, &mut tail);
        list("Cited files changed", &d.cited_files_changed, &mut tail);
    }
    let budget = max_bytes.saturating_sub(tail.len());
    let mut out = markdown::render(report, "citegate sweep", budget);
    out.push_str(&tail);
    out
}

/// At most `max` bytes of `text`, cut at a character boundary.
fn bounded(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The cited lines at most shown at the target for one finding.
const MAX_TARGET_TEXT: usize = 16 << 10;

/// What the HTML dashboard shows besides the report: the date, the trend (this run last) and,
/// for each finding about a citation, the cited lines at its revision (when the finding does
/// not carry them) and, when that is older, at the target.
pub fn extras(report: &Report, trend: Option<&history::Trend>, date: String) -> html::Extras {
    let mut out = html::Extras {
        date,
        ..html::Extras::default()
    };
    if let Some(trend) = trend {
        out.trend = trend.runs.iter().map(point).collect();
        out.since = trend.since().map(|s| (s.date, s.new, s.fixed));
    }
    // Blobs are read through the audit's own reader, with its size limit: a cited file too large
    // for the audit is too large for the report.
    let (Ok(code), Ok(git)) = (
        CodeRepo::discover(&report.git_dir),
        Repository::open(&report.git_dir),
    ) else {
        return out;
    };
    // Each (revision, path) is read once, however many findings cite it.
    let mut files: HashMap<(git2::Oid, String), Option<Read>> = HashMap::new();
    let target = git2::Oid::from_str(&report.revision).ok();
    let mut lines_at = |rev: git2::Oid, path: &str, lines: LineRange| {
        let file = files
            .entry((rev, path.to_string()))
            .or_insert_with(|| read_file(&code, &git, rev, path));
        Some(match file.as_ref()? {
            Read::Text(text, index) => {
                let shown = index.slice(text, lines.start as usize, lines.end as usize);
                html::Shown::Lines(citegate_engine::escape::clip(
                    shown.to_string(),
                    MAX_TARGET_TEXT,
                ))
            }
            Read::Withheld(why) => html::Shown::Withheld(why.clone()),
        })
    };
    for f in &report.findings {
        let (Some(path), Some(lines), Some(rev)) = (&f.path, f.lines, f.revision) else {
            continue;
        };
        if lines.start < 1 {
            continue;
        }
        if f.evidence.is_none() {
            if let Some(text) = lines_at(rev, path, lines) {
                out.at_revision.insert(f.at.fingerprint.clone(), text);
            }
        }
        if let Some(target) = target.filter(|t| *t != rev) {
            if let Some(text) = lines_at(target, path, lines) {
                out.at_target.insert(f.at.fingerprint.clone(), text);
            }
        }
    }
    out
}

/// A cited file as the dashboard reads it.
enum Read {
    Text(Arc<str>, LineIndex),
    /// Not shown, and why (over the size limit, binary).
    Withheld(String),
}

/// The text of `path` at `rev` and its line index, or why it is not shown; `None` when the
/// file is not there (or not a file).
fn read_file(code: &CodeRepo, git: &Repository, commit: git2::Oid, path: &str) -> Option<Read> {
    match code.file_at(git, commit, path).ok()? {
        FileAt::Text(text) => {
            let index = LineIndex::new(&text);
            Some(Read::Text(text, index))
        }
        FileAt::TooLarge(_) => Some(Read::Withheld(format!(
            "not shown: over {} MiB",
            MAX_BLOB_BYTES >> 20
        ))),
        FileAt::Binary => Some(Read::Withheld("not shown: not text".to_string())),
        _ => None,
    }
}

fn point(run: &history::Run) -> html::Point {
    html::Point {
        date: run.date.clone(),
        revision: citegate_engine::model::report::short(&run.revision).to_string(),
        findings: run.findings,
        stale: run.by_family.get("stale").copied().unwrap_or(0),
    }
}

/// Write the dashboard's pages into `dir` (created when missing; never through a symbolic
/// link, each page replaced atomically).
pub fn write_html(dir: &Path, pages: &[(String, String)]) -> Result<(), SweepError> {
    let fail = |e: String| SweepError(format!("{}: {e}", dir.display()));
    citegate_engine::output::refuse_links_on_the_way(&dir.join("index.html"))
        .map_err(|e| fail(e.to_string()))?;
    std::fs::create_dir_all(dir).map_err(|e| fail(e.to_string()))?;
    for (name, text) in pages {
        citegate_engine::output::replace(&dir.join(name), text.as_bytes())
            .map_err(|e| fail(format!("{name}: {e}")))?;
    }
    Ok(())
}
