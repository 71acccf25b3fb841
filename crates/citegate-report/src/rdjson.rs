//! reviewdog's Diagnostic Format (`rdjson`, `proto/rdf` in reviewdog's repository): one diagnostic
//! per finding with its location, severity, rule code and catalogue link, and the offered fix as
//! a `suggestions` edit, so reviewdog posts findings and fixes as review comments on GitHub,
//! GitLab, Gitea or Bitbucket. Columns are UTF-8 byte columns and ranges end exclusively, as the
//! format defines them.

use serde_json::{json, Value};

use citegate_engine::model::{Doc, Edit, Finding, Report};
use citegate_engine::registry::Severity;

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "ERROR",
        Severity::Warning => "WARNING",
        Severity::Note => "INFO",
    }
}

/// 1-based line and UTF-8 byte column of `offset` in the doc.
fn position(doc: &Doc, offset: usize) -> Value {
    let offset = offset.min(doc.text.len());
    let line = doc.lines.line(offset);
    let start = doc.lines.line_start(line).unwrap_or(0);
    json!({"line": line, "column": offset - start + 1})
}

/// Whether the report holds the doc's text that its byte offsets point into (a report merged
/// from JSON shards has the docs' names only).
fn has_text(doc: &Doc, end: usize) -> bool {
    !doc.text.is_empty() && end <= doc.text.len()
}

fn range(doc: &Doc, start: usize, end: usize) -> Value {
    json!({"start": position(doc, start), "end": position(doc, end)})
}

/// A finding's range: from its span in the doc's text, or, without the text, from its recorded
/// lines and columns (code points: the same as bytes on ASCII lines).
fn finding_range(doc: &Doc, f: &Finding) -> Value {
    if has_text(doc, f.span.end) {
        return range(doc, f.span.start, f.span.end);
    }
    json!({
        "start": {"line": f.at.line, "column": f.at.column},
        "end": {"line": f.at.end_line, "column": f.at.end_column},
    })
}

fn suggestion(doc: &Doc, edit: &Edit) -> Option<Value> {
    has_text(doc, edit.byte_end).then(|| {
        json!({
            "range": range(doc, edit.byte_start, edit.byte_end),
            "text": edit.replacement,
        })
    })
}

fn diagnostic(report: &Report, f: &Finding) -> Value {
    let doc = &report.docs[f.doc].doc;
    let mut message = f.message.clone();
    if let Some(help) = &f.help {
        message.push('\n');
        message.push_str(help);
    }
    let mut out = json!({
        "message": message,
        "location": {"path": doc.name, "range": finding_range(doc, f)},
        "severity": severity(f.severity),
        "code": {"value": f.rule.as_str(), "url": super::rule_url(f.rule)},
    });
    if let Some(s) = f.offered_fix().and_then(|fix| suggestion(doc, &fix.edit)) {
        out["suggestions"] = json!([s]);
    }
    out
}

/// The report as one `DiagnosticResult` (for `reviewdog -f=rdjson`).
pub fn render(report: &Report) -> String {
    let out = json!({
        "source": {"name": "citegate", "url": super::HOME},
        "diagnostics": report.findings.iter().map(|f| diagnostic(report, f)).collect::<Vec<_>>(),
    });
    let mut text = citegate_engine::escape::json_escapes(
        serde_json::to_string_pretty(&out).expect("rdjson serialises"),
    );
    text.push('\n');
    text
}
