//! SARIF 2.1.0 output, for code-scanning upload: rule metadata from the `rules/` catalogue,
//! locations in the doc, and fixes as SARIF fixes (byte-addressed replacements).

use serde_json::{json, Value};

use crate::model::Finding;
use crate::model::Report;
use crate::registry::{RuleId, Severity};

/// A repository path as a relative URI reference (RFC 3986): every byte but the unreserved ones
/// and `/` percent-encoded, so `#`, `?`, `%`, spaces and a `:` in the first segment stay in the path.
pub fn uri(path: &str) -> String {
    const KEEP: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'/')
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~');
    percent_encoding::utf8_percent_encode(path, KEEP).to_string()
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

fn rule_descriptor(rule: RuleId) -> Value {
    let info = rule.info();
    // A friendly name distinct from the ID, as SARIF asks: `invented-path` → `InventedPath`.
    let name: String = rule
        .as_str()
        .split('-')
        .map(|w| w[..1].to_uppercase() + &w[1..])
        .collect();
    json!({
        "id": rule.as_str(),
        "name": name,
        "shortDescription": {"text": info.summary},
        "fullDescription": {"text": info.description},
        "help": {"text": format!("{}\n\n{}", info.description, info.why)},
        "defaultConfiguration": {"level": level(info.severity)},
        "properties": {
            "family": info.family.as_str(),
            "fixSafety": match info.fix {
                crate::registry::FixSafety::Safe => "safe",
                crate::registry::FixSafety::None => "none",
            },
        },
    })
}

fn result(report: &Report, f: &Finding) -> Value {
    let doc = &report.docs[f.doc].doc;
    let (start_line, start_col) = (f.at.line, f.at.column);
    let (end_line, end_col) = (f.at.end_line, f.at.end_column);
    let mut message = f.message.clone();
    if let Some(help) = &f.help {
        message.push('\n');
        message.push_str(help);
    }
    let artifact = json!({"uri": uri(&doc.name), "uriBaseId": "SRCROOT"});
    let mut region = json!({
        "startLine": start_line,
        "startColumn": start_col,
        "endLine": end_line,
        "endColumn": end_col.max(start_col + usize::from(end_line == start_line && f.at.snippet.is_empty())),
    });
    if !f.at.snippet.is_empty() {
        region["snippet"] = json!({"text": f.at.snippet});
    }
    let mut out = json!({
        "ruleId": f.rule.as_str(),
        "ruleIndex": RuleId::ALL.iter().position(|r| *r == f.rule).unwrap_or(0),
        "level": level(f.severity),
        "message": {"text": message},
        "locations": [{"physicalLocation": {"artifactLocation": artifact, "region": region}}],
    });
    if let (Some(path), Some(rev)) = (&f.path, &f.revision) {
        out["properties"] = json!({
            "citedPath": path,
            "citedStartLine": f.lines.map(|l| l.start),
            "citedEndLine": f.lines.map(|l| l.end),
            "revision": rev,
        });
    }
    if let Some(fix) = &f.fix {
        out["fixes"] = json!([{
            "description": {"text": format!("cite `{}:{}-{}`", fix.path, fix.start_line, fix.end_line)},
            "artifactChanges": [{
                "artifactLocation": {"uri": uri(&doc.name), "uriBaseId": "SRCROOT"},
                "replacements": [{
                    "deletedRegion": {"byteOffset": fix.byte_start, "byteLength": fix.byte_end - fix.byte_start},
                    "insertedContent": {"text": fix.replacement},
                }],
            }],
        }]);
    }
    out
}

/// The report as one SARIF log with one run.
pub fn render(report: &Report) -> String {
    let mut run = json!({
        "tool": {"driver": {
            "name": "citegate",
            "version": env!("CARGO_PKG_VERSION"),
            "semanticVersion": env!("CARGO_PKG_VERSION"),
            "informationUri": "https://github.com/citegate/citegate",
            "rules": RuleId::ALL.iter().map(|r| rule_descriptor(*r)).collect::<Vec<_>>(),
        }},
        "columnKind": "unicodeCodePoints",
        "results": report.findings.iter().map(|f| result(report, f)).collect::<Vec<_>>(),
    });
    if let Some(web) = &report.web_url {
        run["versionControlProvenance"] = json!([{
            "repositoryUri": web,
            "revisionId": report.revision,
            "mappedTo": {"uriBaseId": "SRCROOT"},
        }]);
    }
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [run],
    });
    let mut text =
        super::json_escapes(serde_json::to_string_pretty(&log).expect("SARIF serialises"));
    text.push('\n');
    text
}

#[cfg(test)]
mod uri_tests {
    use super::uri;

    #[test]
    fn artifact_uris_are_percent_encoded() {
        assert_eq!(uri("d o#c?s/a%25b.md"), "d%20o%23c%3Fs/a%2525b.md");
        assert_eq!(uri("x:y/c.md"), "x%3Ay/c.md");
        assert_eq!(uri("docs/ünï.md"), "docs/%C3%BCn%C3%AF.md");
    }
}
