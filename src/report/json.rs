//! JSON output, documented in the README. `version` changes when a field changes meaning.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::Fix;
use crate::model::Reason;
use crate::model::Report;
use crate::registry::{Family, Severity};

/// The report format version.
pub const VERSION: u32 = 1;

#[derive(Serialize)]
struct JsonReport<'a> {
    version: u32,
    revision: &'a str,
    summary: JsonSummary<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    selected: Option<Vec<JsonSelected<'a>>>,
    findings: Vec<JsonFinding<'a>>,
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
    findings: usize,
    errors: usize,
    warnings: usize,
    notes: usize,
    by_rule: &'a BTreeMap<&'static str, usize>,
    by_family: &'a BTreeMap<&'static str, usize>,
}

#[derive(Serialize)]
struct JsonFinding<'a> {
    rule: &'static str,
    family: Family,
    severity: Severity,
    doc: &'a str,
    line: usize,
    column: usize,
    path: Option<&'a str>,
    start_line: Option<i64>,
    end_line: Option<i64>,
    revision: Option<&'a str>,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    help: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<&'a Fix>,
}

/// The whole report as pretty-printed JSON, with a final newline.
pub fn render(report: &Report) -> String {
    let s = &report.summary;
    let count = |k: &str| s.by_severity.get(k).copied().unwrap_or(0);
    let findings = report
        .findings
        .iter()
        .map(|f| {
            let doc = &report.docs[f.doc].doc;
            let (line, column) = doc.lines.line_col(&doc.text, f.span.start);
            JsonFinding {
                rule: f.rule.as_str(),
                family: f.rule.info().family,
                severity: f.severity,
                doc: &doc.name,
                line,
                column,
                path: f.path.as_deref(),
                start_line: f.lines.map(|l| l.start),
                end_line: f.lines.map(|l| l.end),
                revision: f.revision.as_deref(),
                message: &f.message,
                help: f.help.as_deref(),
                fix: f.fix.as_ref(),
            }
        })
        .collect();
    let out = JsonReport {
        version: VERSION,
        revision: &report.revision,
        summary: JsonSummary {
            docs: s.docs,
            skipped: s.skipped,
            citations: s.citations,
            findings: report.findings.len(),
            errors: count("error"),
            warnings: count("warning"),
            notes: count("note"),
            by_rule: &s.by_rule,
            by_family: &s.by_family,
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
        findings,
    };
    let mut text = serde_json::to_string_pretty(&out).expect("report serialises");
    text.push('\n');
    text
}
