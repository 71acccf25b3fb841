//! JSON output, documented in the README. `version` changes when a field changes meaning.

use std::collections::BTreeMap;

use std::borrow::Cow;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use git2::Oid;

use citegate_engine::model::Fix;
use citegate_engine::model::Reason;
use std::path::Path;

use citegate_engine::escape::EscapingFormatter;
use citegate_engine::model::baseline::Entry;
use citegate_engine::model::{
    AuditedDoc, Doc, DocId, DocKind, Extracted, Finding, LineRange, Position, Report, Span,
    Summary, Suppressed,
};
use citegate_engine::registry::{Family, RuleId, Severity};

/// The report format version.
pub const VERSION: u32 = 1;

#[derive(Serialize)]
struct JsonReport<'a> {
    version: u32,
    revision: &'a str,
    /// The repository's web address, for links.
    #[serde(skip_serializing_if = "Option::is_none")]
    web_url: Option<&'a str>,
    /// With `--shard I/N`: `"I/N"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    shard: Option<String>,
    /// A digest of the settings the run used: `merge` refuses shards run with others.
    #[serde(skip_serializing_if = "Option::is_none")]
    settings: Option<&'a str>,
    summary: JsonSummary<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    selected: Option<Vec<JsonSelected<'a>>>,
    findings: Findings<'a>,
    /// Findings that do not count (baselined, suppressed, waived), each with why.
    #[serde(skip_serializing_if = "is_empty")]
    suppressed: Findings<'a>,
    /// Baseline entries of the audited docs that no finding matches any more.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    baseline_fixed: &'a [Entry],
    /// The docs that have findings, and whether each is inside the repository (linkable).
    docs: Vec<JsonDoc<'a>>,
}

fn is_empty(f: &Findings<'_>) -> bool {
    f.1.is_empty()
}

#[derive(Serialize, Deserialize)]
struct JsonDoc<'a> {
    name: Cow<'a, str>,
    in_repo: bool,
}

/// With `--since`: each audited doc and why it was selected.
#[derive(Serialize)]
struct JsonSelected<'a> {
    doc: &'a str,
    reasons: &'a [Reason],
}

#[derive(Serialize)]
struct JsonSummary<'a> {
    docs: usize,
    skipped: usize,
    citations: usize,
    /// Approximate line references in prose, not read as citations (only when there are some).
    #[serde(skip_serializing_if = "is_zero")]
    approximate: usize,
    findings: usize,
    errors: usize,
    warnings: usize,
    notes: usize,
    by_rule: &'a BTreeMap<&'static str, usize>,
    by_family: &'a BTreeMap<&'static str, usize>,
    /// Findings that do not count, by how: `baselined`, `suppressed`, `waived`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    suppressed: &'a BTreeMap<&'static str, usize>,
    #[serde(skip_serializing_if = "is_zero")]
    baseline_fixed: usize,
}

#[derive(Serialize)]
struct JsonFinding<'a> {
    rule: &'static str,
    family: Family,
    severity: Severity,
    doc: &'a str,
    line: usize,
    column: usize,
    /// Where the finding ends in the doc (`end_line` is the cited range's end).
    line_end: usize,
    column_end: usize,
    /// The doc text the finding covers.
    snippet: &'a str,
    /// The finding's identity across runs, whatever lines shift (see `model::fingerprint`).
    fingerprint: &'a str,
    path: Option<&'a str>,
    start_line: Option<i64>,
    end_line: Option<i64>,
    revision: Option<String>,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    help: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<&'a Fix>,
    /// Why it does not count, when it does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    suppression: Option<JsonSuppression>,
}

/// A finding's suppression as the report writes (and reads back) it.
#[derive(Serialize, Deserialize)]
struct JsonSuppression {
    /// `baselined`, `suppressed` or `waived`.
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    /// A waiver's last day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    until: Option<String>,
}

impl JsonSuppression {
    fn of(s: &Suppressed) -> JsonSuppression {
        let (reason, until) = match s {
            Suppressed::Baseline => (None, None),
            Suppressed::Inline { reason } => (Some(reason.clone()), None),
            Suppressed::Waiver { until, reason } => (Some(reason.clone()), Some(until.clone())),
        };
        JsonSuppression {
            kind: s.kind().to_string(),
            reason,
            until,
        }
    }

    fn read(self) -> Option<Suppressed> {
        let reason = self.reason.unwrap_or_default();
        match (self.kind.as_str(), self.until) {
            ("baselined", _) => Some(Suppressed::Baseline),
            ("suppressed", _) => Some(Suppressed::Inline { reason }),
            ("waived", Some(until)) => Some(Suppressed::Waiver { until, reason }),
            _ => None,
        }
    }
}

/// Findings of `report` (all of them, or a part), each written as it is made (a large report
/// is not held twice).
struct Findings<'a>(&'a Report, &'a [Finding]);

impl Serialize for Findings<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Findings(report, findings) = *self;
        serializer.collect_seq(findings.iter().map(|f| json_finding(report, f)))
    }
}

/// From this many findings on, they are rendered on every core: escaping and indenting the
/// wiki benchmark's 11,846 findings (11 MB) was a serial 30-60 ms at the end of its run.
const PARALLEL_FROM: usize = 1024;

/// Findings rendered at once, then written in order: only these (about 1 MB) are held.
const BATCH: usize = 1024;

/// Findings rendered by one task of a batch.
const PART: usize = 128;

/// Where the findings go in a report written without them.
const NO_FINDINGS: &[u8] = b"\n  \"findings\": []";

fn json_finding<'a>(report: &'a Report, f: &'a Finding) -> JsonFinding<'a> {
    let doc = &report.docs[f.doc].doc;
    let (line, column) = (f.at.line, f.at.column);
    JsonFinding {
        rule: f.rule.as_str(),
        family: f.rule.info().family,
        severity: f.severity,
        doc: &doc.name,
        line,
        column,
        line_end: f.at.end_line,
        column_end: f.at.end_column,
        snippet: &f.at.snippet,
        fingerprint: &f.at.fingerprint,
        path: f.path.as_deref(),
        start_line: f.lines.map(|l| l.start),
        end_line: f.lines.map(|l| l.end),
        revision: f.revision.map(|r| r.to_string()),
        message: &f.message,
        help: f.help.as_deref(),
        fix: f.offered_fix().filter(|_| f.suppressed.is_none()),
        suppression: f.suppressed.as_ref().map(JsonSuppression::of),
    }
}

/// The whole report as pretty-printed JSON, with a final newline.
pub fn render(report: &Report) -> String {
    let mut out = Vec::new();
    write(report, &mut out).expect("a report is written to memory");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// [`render`] streamed to `out` (bidirectional and C1 controls escaped as
/// [`citegate_engine::escape::json_escapes`] does). Many findings are rendered in batches on the current
/// rayon pool's threads, byte for byte as one serial pass writes them.
pub fn write(report: &Report, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    match report.findings.len() >= PARALLEL_FROM {
        true => write_in_parallel(report, out),
        false => write_with(report, &report.findings, out),
    }
}

/// The report, with `findings` (all of the report's, or none) under `findings`.
fn write_with(
    report: &Report,
    findings: &[Finding],
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let s = &report.summary;
    let count = |k: &str| s.by_severity.get(k).copied().unwrap_or(0);
    let mut with_findings: Vec<DocId> = report.findings.iter().map(|f| f.doc).collect();
    with_findings.sort_unstable();
    with_findings.dedup();
    let docs = with_findings
        .into_iter()
        .map(|i| JsonDoc {
            name: Cow::Borrowed(&report.docs[i].doc.name),
            in_repo: report.docs[i].doc.repo_dir.is_some(),
        })
        .collect();
    let json = JsonReport {
        version: VERSION,
        revision: &report.revision,
        web_url: report.web_url.as_deref(),
        shard: report.shard.map(|(i, n)| format!("{i}/{n}")),
        settings: report.settings.as_deref(),
        summary: JsonSummary {
            docs: s.docs,
            skipped: s.skipped,
            citations: s.citations,
            approximate: s.approximate,
            findings: report.findings.len(),
            errors: count("error"),
            warnings: count("warning"),
            notes: count("note"),
            by_rule: &s.by_rule,
            by_family: &s.by_family,
            suppressed: &s.suppressed,
            baseline_fixed: s.baseline_fixed,
        },
        selected: report.selection.as_ref().map(|reasons| {
            reasons
                .iter()
                .zip(&report.docs)
                .map(|(r, d)| JsonSelected {
                    doc: &d.doc.name,
                    reasons: r,
                })
                .collect()
        }),
        findings: Findings(report, findings),
        suppressed: Findings(report, &report.suppressed),
        baseline_fixed: &report.baseline_fixed,
        docs,
    };
    let mut ser = serde_json::Serializer::with_formatter(&mut *out, EscapingFormatter::pretty());
    json.serialize(&mut ser)?;
    out.write_all(b"\n")
}

/// [`write_with`] all findings, the findings rendered in parts on every core and spliced into
/// the report written without them. `"findings": []` at the start of a line is that key: a
/// string never holds a raw line break or an unescaped quote.
fn write_in_parallel(report: &Report, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut frame = Vec::new();
    write_with(report, &[], &mut frame)?;
    let at = memchr::memmem::find(&frame, NO_FINDINGS).expect("the report has a findings key");
    let (head, tail) = frame.split_at(at + NO_FINDINGS.len() - 1);
    out.write_all(head)?;
    for (k, batch) in report.findings.chunks(BATCH).enumerate() {
        let parts: Vec<Vec<u8>> = batch
            .par_chunks(PART)
            .map(|part| rendered(report, part))
            .collect();
        for (j, part) in parts.iter().enumerate() {
            if k + j > 0 {
                out.write_all(b",")?;
            }
            // The part's own brackets left out.
            out.write_all(&part[1..part.len() - b"\n  ]".len()])?;
        }
    }
    out.write_all(b"\n  ")?;
    out.write_all(tail)
}

/// `part` as an array written where the report's findings are (one object deep): `[`, the
/// findings as the whole report has them, then `\n  ]`.
fn rendered(report: &Report, part: &[Finding]) -> Vec<u8> {
    let mut buf = Vec::with_capacity(part.len() << 10);
    let formatter = EscapingFormatter::pretty_within(1);
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, formatter);
    (Findings(report, part).serialize(&mut ser)).expect("findings are written to memory");
    debug_assert!(buf.starts_with(b"[") && buf.ends_with(b"\n  ]"));
    buf
}

/// A JSON report as `read` takes it.
#[derive(Deserialize)]
struct InReport {
    version: u32,
    revision: String,
    #[serde(default)]
    web_url: Option<String>,
    #[serde(default)]
    shard: Option<String>,
    #[serde(default)]
    settings: Option<String>,
    summary: InSummary,
    #[serde(default)]
    selected: Option<Vec<InSelected>>,
    findings: Vec<InFinding>,
    #[serde(default)]
    suppressed: Vec<InFinding>,
    #[serde(default)]
    baseline_fixed: Vec<Entry>,
    #[serde(default)]
    docs: Vec<JsonDoc<'static>>,
}
#[derive(Deserialize)]
struct InSummary {
    docs: usize,
    skipped: usize,
    citations: usize,
}
#[derive(Deserialize)]
struct InSelected {
    doc: String,
    reasons: Vec<Reason>,
}
#[derive(Deserialize)]
struct InFinding {
    rule: String,
    severity: Severity,
    doc: String,
    line: usize,
    column: usize,
    line_end: usize,
    column_end: usize,
    #[serde(default)]
    snippet: String,
    #[serde(default)]
    fingerprint: String,
    path: Option<String>,
    start_line: Option<i64>,
    end_line: Option<i64>,
    revision: Option<String>,
    message: String,
    #[serde(default)]
    help: Option<String>,
    #[serde(default)]
    fix: Option<Fix>,
    #[serde(default)]
    suppression: Option<JsonSuppression>,
}

/// Why a JSON report cannot be read back.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("not a citegate JSON report")]
    Json(#[from] serde_json::Error),
    #[error("report version {0} (this citegate reads {VERSION})")]
    Version(u32),
    /// The revision as written, made printable.
    #[error("revision {0:?} is not a full commit ID")]
    Revision(String),
    #[error("shard {0}")]
    Shard(String),
    #[error("unknown rule `{0}`")]
    Rule(String),
    /// A finding under `suppressed` without a known suppression, or one with it under `findings`.
    #[error("finding {0}: its suppression does not match the list it is in")]
    Suppression(String),
}

/// A JSON report read back (`citegate merge`): what every format renders, without the docs' text.
/// Whether `s` is a full commit ID (SHA-1 or SHA-256).
fn full_sha(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A revision that is not a full commit ID, as written (made printable).
fn revision_error(written: &str) -> ReadError {
    ReadError::Revision(citegate_engine::escape::printable(written, false).into_owned())
}

pub fn read(text: &str) -> Result<Report, ReadError> {
    let r: InReport = serde_json::from_str(text)?;
    if r.version != VERSION {
        return Err(ReadError::Version(r.version));
    }
    if !full_sha(&r.revision) {
        return Err(revision_error(&r.revision));
    }
    let shard = match r.shard.as_deref() {
        None => None,
        Some(s) => {
            let shard: citegate_engine::audit::Shard = s.parse().map_err(ReadError::Shard)?;
            Some((shard.index, shard.count))
        }
    };
    let mut docs: Vec<AuditedDoc> = Vec::new();
    let mut index: BTreeMap<String, DocId> = BTreeMap::new();
    let mut doc_of = |name: &str, in_repo: bool, docs: &mut Vec<AuditedDoc>| -> DocId {
        *index.entry(name.to_string()).or_insert_with(|| {
            let dir = name.rsplit_once('/').map_or("", |(d, _)| d).to_string();
            let kind = DocKind::from_path(Path::new(name)).unwrap_or(DocKind::Markdown);
            let doc = Doc::new(
                name.into(),
                name.to_string(),
                in_repo.then_some(dir),
                kind,
                String::new(),
            );
            docs.push(AuditedDoc::new(doc, Extracted::default()));
            DocId::new(docs.len() - 1)
        })
    };
    // With `--since`, the selected docs come first, in their order: the selection is by doc.
    let in_repo: BTreeMap<&str, bool> = r.docs.iter().map(|d| (&*d.name, d.in_repo)).collect();
    for s in r.selected.iter().flatten() {
        let linked = in_repo.get(s.doc.as_str()).copied().unwrap_or(true);
        doc_of(&s.doc, linked, &mut docs);
    }
    for d in &r.docs {
        doc_of(&d.name, d.in_repo, &mut docs);
    }
    let mut findings = Vec::with_capacity(r.findings.len());
    let mut suppressed = Vec::with_capacity(r.suppressed.len());
    let all = (r.findings.into_iter().map(|f| (false, f)))
        .chain(r.suppressed.into_iter().map(|f| (true, f)));
    for (set_aside, f) in all {
        let rule = RuleId::from_id(&f.rule).ok_or_else(|| ReadError::Rule(f.rule.clone()))?;
        let doc = doc_of(&f.doc, false, &mut docs);
        let mut finding = Finding::new(rule, doc, Span::default(), f.message);
        finding.severity = f.severity;
        finding.path = f.path;
        finding.lines = f
            .start_line
            .zip(f.end_line)
            .map(|(s, e)| LineRange::new(s, e));
        finding.revision = match f.revision.as_deref() {
            Some(r) if full_sha(r) => Some(Oid::from_str(r).map_err(|_| revision_error(r))?),
            Some(r) => return Err(revision_error(r)),
            None => None,
        };
        finding.help = f.help;
        finding.fix = f.fix;
        finding.at = Position {
            line: f.line,
            column: f.column,
            end_line: f.line_end,
            end_column: f.column_end,
            snippet: f.snippet,
            fingerprint: f.fingerprint,
        };
        finding.suppressed = f.suppression.and_then(JsonSuppression::read);
        match (set_aside, finding.suppressed.is_some()) {
            (true, true) => suppressed.push(finding),
            (false, false) => findings.push(finding),
            _ => {
                let shown = citegate_engine::escape::printable(&finding.at.fingerprint, false);
                return Err(ReadError::Suppression(shown.into_owned()));
            }
        }
    }
    let selection = r
        .selected
        .map(|selected| selected.into_iter().map(|s| s.reasons).collect());
    let mut report = Report::new(r.revision, docs, findings);
    // The docs read back are those with findings: the counts are the run's.
    report.summary.docs = r.summary.docs;
    report.summary.skipped = r.summary.skipped;
    report.summary.citations = r.summary.citations;
    report.summary.suppressed = Summary::of(&suppressed, &[]).suppressed;
    report.summary.baseline_fixed = r.baseline_fixed.len();
    report.suppressed = suppressed;
    report.baseline_fixed = r.baseline_fixed;
    report.selection = selection;
    report.web_url = r.web_url;
    report.shard = shard;
    report.settings = r.settings;
    Ok(report)
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use citegate_engine::model::Edit;

    /// A report on two docs with `n` findings whose strings need escaping.
    fn report_of(n: usize) -> Report {
        let doc = |name: &str| {
            let text = "See src/a.rs:1.\n".to_string();
            let d = Doc::new(
                name.into(),
                name.into(),
                Some(String::new()),
                DocKind::Markdown,
                text,
            );
            AuditedDoc::new(d, Extracted::default())
        };
        let docs = vec![doc("a \"quoted\" page.md"), doc("wiki/b\u{202E}.md")];
        let findings: Vec<Finding> = (0..n)
            .map(|i| {
                let rule = [RuleId::InventedPath, RuleId::UnsupportedQuote][i % 2];
                let mut f = Finding::new(rule, DocId::new(i % 2), Span::new(4, 14), "m\n\"x\"");
                f.message = format!("finding {i}: `a\u{2066}b` \\ {}", "é".repeat(i % 7));
                f.help = (i % 3 == 0).then(|| format!("help {i}\t\u{85}"));
                f.path = Some(format!("src/{i}.rs"));
                f.at.snippet = format!("src/{i}.rs:1 \u{7f}");
                f.at.fingerprint = format!("{i:016x}");
                f.fix = (i % 5 == 0).then(|| Fix {
                    path: format!("src/{i}.rs"),
                    start_line: 2,
                    end_line: 3,
                    edit: Edit::new(Span::new(4, 14), format!("src/{i}.rs:2-3")),
                    applicability: Default::default(),
                    cite: None,
                });
                f
            })
            .collect();
        Report::new("0".repeat(40), docs, findings)
    }

    #[test]
    fn many_findings_are_written_in_parallel_as_one_serial_pass_writes_them() {
        // Two whole batches and part of a third, the last part short.
        let report = report_of(2 * BATCH + PART + 5);
        assert!(report.findings.len() >= PARALLEL_FROM);
        let mut serial = Vec::new();
        write_with(&report, &report.findings, &mut serial).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let parallel = pool.install(|| render(&report));
        assert!(parallel == String::from_utf8(serial).unwrap());
        let back: serde_json::Value = serde_json::from_str(&parallel).unwrap();
        assert_eq!(
            back["findings"].as_array().unwrap().len(),
            2 * BATCH + PART + 5
        );
        assert_eq!(
            back["findings"][8]["message"],
            "finding 8: `a\u{2066}b` \\ é"
        );
        assert!(parallel.contains("\\u2066") && !parallel.contains('\u{2066}'));
    }
}
