//! The outcome of an audit: every doc, every finding (sorted), the counts. Reporters, `fix` and
//! `sweep` read it; only the audit builds it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::extracted::{AuditedDoc, CiteRef};
use super::finding::{Edit, Finding, Fix};
use super::ids::DocId;
use crate::registry::{RuleId, Severity};

/// Why `--since` selected a doc.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// The doc itself changed.
    DocChanged,
    /// A cited span intersects changed code.
    CitesChangedCode,
}

/// Inexact rename detection was skipped, as git does past `diff.renameLimit`: in `--since`'s range
/// (a file renamed with an edit there counts as deleted, and its old path still selects every doc
/// citing it), or in a commit a cited file was followed through (a file that commit renamed with
/// an edit reads as deleted by it). git's own `git diff` would not pair such a file either.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenamesSkipped {
    /// The commit whose own diff was past the limit, when following files through the history;
    /// `None` for `--since`'s range.
    pub commit: Option<git2::Oid>,
    /// The limit in effect (`diff.renameLimit`, else git's default for diffs).
    pub limit: usize,
    /// The smallest limit that would not skip: the larger of the deleted and the added files left
    /// after exact renames.
    pub needed: usize,
}

/// Counts for the report's summary.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// The docs audited (JSON files that are not answers aside).
    pub docs: usize,
    /// JSON files that are not answers (package.json…).
    pub skipped: usize,
    /// The citations found in the docs.
    pub citations: usize,
    /// Approximate line references in prose ("around line 80"): not citations.
    pub approximate: usize,
    /// Counted findings by rule ID (suppressed ones aside).
    pub by_rule: BTreeMap<&'static str, usize>,
    /// Counted findings by family (`invented`, `unsupported`…).
    pub by_family: BTreeMap<&'static str, usize>,
    /// Counted findings by severity (`error`, `warning`, `note`).
    pub by_severity: BTreeMap<&'static str, usize>,
    /// Findings that do not count, by how (`baselined`, `suppressed`, `waived`).
    pub suppressed: BTreeMap<&'static str, usize>,
    /// Baseline entries of the audited docs that no finding matches any more (fixed).
    pub baseline_fixed: usize,
}

/// Why reports cannot be merged: each names the reports (by their labels) and what differs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    /// No report was given.
    #[error("no report to merge")]
    Nothing,
    /// Two reports of different runs: what differs (revisions, repositories, settings, shard
    /// counts) and the two values.
    #[error("{first} and {other} are of different {what}: {a} and {b}")]
    Differ {
        /// The label of the first report.
        first: String,
        /// The label of the report that differs from it.
        other: String,
        /// What differs, in words (`revisions`, `shard counts`…).
        what: &'static str,
        /// The first report's value.
        a: String,
        /// The other report's value.
        b: String,
    },
    /// Two reports (by label) are the same shard: its index and the shard count.
    #[error("{0} and {1} are the same shard {2}/{3}")]
    SameShard(String, String, u32, u32),
    /// Two reports (by label) both audited the doc named last.
    #[error("{0} and {1} both audited {2}: shards hold disjoint docs")]
    SameDoc(String, String, String),
}

/// The reports to merge are shards of one run: same revision, repository, settings and shard
/// count; no shard twice; no doc in two of them.
fn check_shards(reports: &[(String, Report)]) -> Result<(), MergeError> {
    let Some((first_name, first)) = reports.first() else {
        return Ok(());
    };
    let mut seen_docs: BTreeMap<&str, &str> = BTreeMap::new();
    let mut seen_shards: BTreeMap<u32, &str> = BTreeMap::new();
    for (name, r) in reports {
        let differ = |what, a: &dyn std::fmt::Debug, b: &dyn std::fmt::Debug| MergeError::Differ {
            first: first_name.clone(),
            other: name.clone(),
            what,
            a: format!("{a:?}"),
            b: format!("{b:?}"),
        };
        if r.revision != first.revision {
            return Err(differ("revisions", &first.revision, &r.revision));
        }
        if r.web_url.is_some() && first.web_url.is_some() && r.web_url != first.web_url {
            return Err(differ("repositories", &first.web_url, &r.web_url));
        }
        if r.settings != first.settings {
            let what = "settings (configuration)";
            return Err(differ(what, &first.settings, &r.settings));
        }
        if r.shard.map(|s| s.1) != first.shard.map(|s| s.1) {
            return Err(differ("shard counts", &first.shard, &r.shard));
        }
        if let Some((index, count)) = r.shard {
            if let Some(other) = seen_shards.insert(index, name) {
                return Err(MergeError::SameShard(
                    other.into(),
                    name.clone(),
                    index,
                    count,
                ));
            }
        }
        for d in &r.docs {
            if let Some(other) = seen_docs.insert(&d.doc.name, name) {
                let doc = d.doc.name.clone();
                return Err(MergeError::SameDoc(other.into(), name.clone(), doc));
            }
        }
    }
    Ok(())
}

/// Moving a doc's pin (front matter `citegate: {rev}`, or an answer's `revision`) to the target
/// together with every citation under it: all of it in one write, or nothing.
#[derive(Debug, Clone)]
pub struct PinMove {
    /// The doc whose pin moves.
    pub doc: DocId,
    /// The answer whose `revision` moves; `None`: the doc's front matter.
    pub answer: Option<super::ids::AnswerId>,
    /// The target, as the pin will be written.
    pub to: String,
    /// Each citation that moves, re-cited; applied with the pin's edit, all or nothing.
    pub moves: Vec<Fix>,
    /// The edit that writes the new pin (`None` when the pin's place is unknown).
    pub pin: Option<Edit>,
    /// Citations that cannot move with the pin, with why; the pin stays while there are any.
    pub blocked_by: Vec<String>,
}

impl PinMove {
    /// Whether a citation keeps the pin where it is.
    pub fn blocked(&self) -> bool {
        !self.blocked_by.is_empty()
    }

    /// Every edit of the move: the citations' and the pin's.
    pub fn edits(&self) -> impl Iterator<Item = &Edit> {
        self.moves.iter().map(|f| &f.edit).chain(self.pin.iter())
    }
}

/// The outcome of an audit: every doc, every finding (sorted), and the counts.
#[derive(Debug)]
pub struct Report {
    /// Full SHA of the target.
    pub revision: String,
    /// Every audited doc with what was extracted from it, as [`DocId`]s index them.
    pub docs: Vec<AuditedDoc>,
    /// The findings that count, sorted by doc name, place, rule and message.
    pub findings: Vec<Finding>,
    /// Findings that do not count (each with its [`super::Suppressed`]), sorted as `findings`:
    /// no surface fails on them; SARIF, the JSON report and the language server show them as
    /// such, the others only count them.
    pub suppressed: Vec<Finding>,
    /// Baseline entries of the audited docs that no finding matches any more: fixed
    /// (`citegate baseline --prune` takes them out of the file).
    pub baseline_fixed: Vec<super::baseline::Entry>,
    /// Fixes that re-pin citations whose content is unchanged at an older pin (by doc index).
    pub repins: Vec<(DocId, Fix)>,
    /// Doc pins to move with their citations, by doc (and answer).
    pub pin_moves: Vec<PinMove>,
    /// The implied pin (full SHA) each citation was checked at, when it had one (the language
    /// server's hover says where a citation was read). Not kept in a report read back from JSON.
    pub implied: BTreeMap<CiteRef, git2::Oid>,
    /// With `--since`: why each doc (same order as `docs`) was selected.
    pub selection: Option<Vec<Vec<Reason>>>,
    /// Whether rename detection stopped at the rename limit: in `--since`'s range, else in a
    /// commit a cited file was followed through.
    pub renames_skipped: Option<RenamesSkipped>,
    /// The repository's web address (`https://github.com/o/r`), for links in reports.
    pub web_url: Option<String>,
    /// The audited repository's Git folder.
    pub git_dir: PathBuf,
    /// The counts: docs, citations, findings by rule, family and severity.
    pub summary: Summary,
    /// With `--shard I/N`: (I, N).
    pub shard: Option<(u32, u32)>,
    /// A digest of the settings the docs were checked with (configuration file, span limit,
    /// history): shards of one run share it.
    pub settings: Option<String>,
}

/// The first 8 characters of a revision (all of it when shorter): never a panic on a short one
/// read from a report or a manifest.
pub fn short(revision: &str) -> &str {
    revision.get(..8).unwrap_or(revision)
}

/// The first 8 hex digits of a commit ID, as every message and report writes it.
pub fn short_id(oid: git2::Oid) -> String {
    short(&oid.to_string()).to_string()
}

impl Report {
    /// The report of `findings` on `docs` at `revision` (a full SHA), with their summary and
    /// nothing else.
    pub fn new(revision: String, docs: Vec<AuditedDoc>, findings: Vec<Finding>) -> Report {
        Report {
            revision,
            summary: Summary::of(&findings, &docs),
            docs,
            findings,
            suppressed: Vec::new(),
            baseline_fixed: Vec::new(),
            repins: Vec::new(),
            pin_moves: Vec::new(),
            implied: BTreeMap::new(),
            selection: None,
            renames_skipped: None,
            web_url: None,
            git_dir: PathBuf::new(),
            shard: None,
            settings: None,
        }
    }

    /// The findings of one doc: a report's findings are sorted by doc name first (an audit's, a
    /// merged one's, one read back), so a per-doc loop reads only the run of its name, not every
    /// finding once per doc. Names may repeat (the answers of one `gate` batch): the run is
    /// filtered by ID.
    pub fn findings_of(&self, doc: DocId) -> impl Iterator<Item = &Finding> + '_ {
        let name = self.docs[doc].doc.name.as_str();
        let of = |f: &Finding| self.docs[f.doc].doc.name.as_str();
        let start = self.findings.partition_point(|f| of(f) < name);
        let len = self.findings[start..].partition_point(|f| of(f) == name);
        debug_assert_eq!(
            self.findings[start..start + len]
                .iter()
                .filter(|f| f.doc == doc)
                .count(),
            self.findings.iter().filter(|f| f.doc == doc).count(),
            "findings sorted by doc name"
        );
        self.findings[start..start + len]
            .iter()
            .filter(move |f| f.doc == doc)
    }

    /// Whether any finding that counts is an error.
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Error)
    }
}

impl Summary {
    /// The counts of a set of findings over a set of docs.
    pub fn of(findings: &[Finding], docs: &[AuditedDoc]) -> Summary {
        let mut summary = Summary {
            docs: docs.iter().filter(|d| !d.extracted.skipped).count(),
            skipped: docs.iter().filter(|d| d.extracted.skipped).count(),
            citations: docs.iter().map(|d| d.extracted.citations.len()).sum(),
            approximate: docs.iter().map(|d| d.extracted.approximate).sum(),
            ..Summary::default()
        };
        for f in findings {
            if let Some(s) = &f.suppressed {
                *summary.suppressed.entry(s.kind()).or_default() += 1;
                continue;
            }
            let info = f.rule.info();
            *summary.by_rule.entry(f.rule.as_str()).or_default() += 1;
            *summary.by_family.entry(info.family.as_str()).or_default() += 1;
            *summary.by_severity.entry(f.severity.as_str()).or_default() += 1;
        }
        summary
    }
}

impl Report {
    /// Docs in name order, as discovery orders them, with every reference to them renumbered.
    fn sort_docs(&mut self) {
        let mut order: Vec<usize> = (0..self.docs.len()).collect();
        order.sort_by(|&a, &b| self.docs[a].doc.name.cmp(&self.docs[b].doc.name));
        let mut new_index = vec![0; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_index[old] = new;
        }
        let mut docs: Vec<Option<AuditedDoc>> = std::mem::take(&mut self.docs)
            .into_iter()
            .map(Some)
            .collect();
        self.docs = order
            .iter()
            .map(|&old| docs[old].take().expect("each doc once"))
            .collect();
        let renumber = |d: DocId| DocId::new(new_index[d.index()]);
        for f in &mut self.findings {
            f.doc = renumber(f.doc);
        }
        for f in &mut self.suppressed {
            f.doc = renumber(f.doc);
        }
        for (doc, _) in &mut self.repins {
            *doc = renumber(*doc);
        }
        if let Some(selection) = self.selection.take() {
            let mut sorted = vec![Vec::new(); selection.len()];
            for (old, reasons) in selection.into_iter().enumerate() {
                if let Some(slot) = new_index.get(old).and_then(|&n| sorted.get_mut(n)) {
                    *slot = reasons;
                }
            }
            self.selection = Some(sorted);
        }
    }

    /// One report from the reports of shards of the same run (`--shard I/N`, each a disjoint set
    /// of docs), each with a label (its file) for errors: docs and findings put together and
    /// sorted as one audit sorts them, counts added up and recomputed. Reports of different
    /// revisions, repositories, settings or shard counts, a shard given twice, and a doc in two
    /// reports are errors naming the reports.
    pub fn merge(reports: Vec<(String, Report)>) -> Result<Report, MergeError> {
        check_shards(&reports)?;
        let mut reports = reports.into_iter().map(|(_, r)| r);
        let mut out = reports.next().ok_or(MergeError::Nothing)?;
        for r in reports {
            out.web_url = out.web_url.or(r.web_url);
            out.summary.docs += r.summary.docs;
            out.summary.skipped += r.summary.skipped;
            out.summary.citations += r.summary.citations;
            let offset = out.docs.len();
            let shift = |d: DocId| DocId::new(d.index() + offset);
            out.docs.extend(r.docs);
            out.findings.extend(r.findings.into_iter().map(|mut f| {
                f.doc = shift(f.doc);
                f
            }));
            out.suppressed.extend(r.suppressed.into_iter().map(|mut f| {
                f.doc = shift(f.doc);
                f
            }));
            out.baseline_fixed.extend(r.baseline_fixed);
            out.repins
                .extend(r.repins.into_iter().map(|(doc, fix)| (shift(doc), fix)));
            out.selection = match (out.selection, r.selection) {
                (Some(mut a), Some(b)) => {
                    a.extend(b);
                    Some(a)
                }
                (a, b) => a.or(b),
            };
        }
        // The shards together are the whole run.
        out.shard = None;
        out.sort_docs();
        let docs = &out.docs;
        fn key<'a>(
            f: &'a Finding,
            docs: &'a [AuditedDoc],
        ) -> (&'a str, usize, usize, RuleId, &'a str) {
            (
                &docs[f.doc].doc.name,
                f.at.line,
                f.at.column,
                f.rule,
                &f.message,
            )
        }
        out.findings.sort_by(|a, b| key(a, docs).cmp(&key(b, docs)));
        out.suppressed
            .sort_by(|a, b| key(a, docs).cmp(&key(b, docs)));
        out.baseline_fixed.sort();
        let counted = Summary::of(&out.findings, &[]);
        out.summary.by_rule = counted.by_rule;
        out.summary.by_family = counted.by_family;
        out.summary.by_severity = counted.by_severity;
        out.summary.suppressed = Summary::of(&out.suppressed, &[]).suppressed;
        out.summary.baseline_fixed = out.baseline_fixed.len();
        Ok(out)
    }
}
