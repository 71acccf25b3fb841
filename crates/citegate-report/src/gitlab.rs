//! GitLab Code Quality JSON (`artifacts: reports: codequality`), shown in the merge request
//! widget: one issue per finding with the rule as `check_name`, the finding's content
//! fingerprint (the JSON report's and SARIF's: unchanged when lines shift, so GitLab matches an
//! issue between the base and the merge request) and GitLab's severity names.

use serde_json::{json, Value};

use citegate_engine::model::{Finding, Report};
use citegate_engine::registry::Severity;

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "major",
        Severity::Warning => "minor",
        Severity::Note => "info",
    }
}

fn issue(report: &Report, f: &Finding) -> Value {
    let doc = &report.docs[f.doc].doc;
    let mut description = f.message.clone();
    if let Some(help) = &f.help {
        description.push('\n');
        description.push_str(help);
    }
    json!({
        "type": "issue",
        "description": description,
        "check_name": f.rule.as_str(),
        "categories": ["Bug Risk"],
        "fingerprint": f.at.fingerprint,
        "severity": severity(f.severity),
        "location": {
            "path": doc.name,
            "lines": {"begin": f.at.line, "end": f.at.end_line.max(f.at.line)},
        },
    })
}

/// The report as a Code Quality report: a JSON array of issues, in report order.
pub fn render(report: &Report) -> String {
    let issues: Vec<Value> = report.findings.iter().map(|f| issue(report, f)).collect();
    let mut text = citegate_engine::escape::json_escapes(
        serde_json::to_string_pretty(&issues).expect("Code Quality JSON serialises"),
    );
    text.push('\n');
    text
}
