//! SARIF 2.1.0 output, for code-scanning upload: rule metadata from the `rules/` catalogue,
//! locations in the doc, and fixes as SARIF fixes (byte-addressed replacements).

use std::collections::BTreeMap;

use serde_json::{json, Value};

use citegate_engine::model::Finding;
use citegate_engine::model::Report;
use citegate_engine::registry::{RuleId, Severity};

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
                citegate_engine::registry::FixSafety::Safe => "safe",
                citegate_engine::registry::FixSafety::None => "none",
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
    if !f.at.fingerprint.is_empty() {
        // From the doc text and the rule, never line numbers: code scanning keeps the alert
        // when lines shift.
        out["partialFingerprints"] = json!({FINGERPRINT_KEY: f.at.fingerprint});
    }
    if let (Some(path), Some(rev)) = (&f.path, &f.revision) {
        out["properties"] = json!({
            "citedPath": path,
            "citedStartLine": f.lines.map(|l| l.start),
            "citedEndLine": f.lines.map(|l| l.end),
            "revision": rev.to_string(),
        });
    }
    if let Some(why) = &f.suppressed {
        // Suppressed outside the log's own source (a baseline, a comment, a waiver): code
        // scanning shows the alert as dismissed, never failing.
        out["suppressions"] =
            json!([{"kind": "external", "status": "accepted", "justification": why.reason()}]);
    }
    if let Some(fix) = f.offered_fix().filter(|_| f.suppressed.is_none()) {
        out["fixes"] = json!([{
            "description": {"text": format!("cite `{}:{}-{}`", fix.path, fix.start_line, fix.end_line)},
            "artifactChanges": [{
                "artifactLocation": {"uri": uri(&doc.name), "uriBaseId": "SRCROOT"},
                "replacements": [{
                    "deletedRegion": {"byteOffset": fix.edit.byte_start, "byteLength": fix.edit.byte_end - fix.edit.byte_start},
                    "insertedContent": {"text": fix.edit.replacement},
                }],
            }],
        }]);
    }
    out
}

/// The key of citegate's fingerprint in `partialFingerprints` (versioned: a new way of computing
/// it gets a new key, so old alerts are not matched wrongly).
pub const FINGERPRINT_KEY: &str = "citegate/v1";

/// GitHub code scanning's limits for one run: results, and bytes of the uploaded file (its
/// limit is 10 MB gzip-compressed; the results are kept under 9 MiB before compression, which
/// leaves room for the rule descriptors and is on the safe side).
pub const MAX_RESULTS: usize = 25_000;
pub const MAX_RESULT_BYTES: usize = 9 << 20;

/// The results that fit code scanning's limits, the most severe kept first (errors, then
/// warnings, then notes, each in report order), shown in report order; how many of each
/// severity were left out; and their bytes written compactly.
fn within_limits(report: &Report) -> (Vec<Value>, BTreeMap<&'static str, usize>, usize) {
    // The findings that count first (by severity), then the suppressed ones, each in report order.
    let all: Vec<&citegate_engine::model::Finding> =
        report.findings.iter().chain(&report.suppressed).collect();
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by_key(|&i| (all[i].suppressed.is_some(), all[i].severity));
    let mut kept: Vec<(usize, Value)> = Vec::new();
    let mut bytes = 0;
    let mut omitted: BTreeMap<&'static str, usize> = BTreeMap::new();
    for i in order {
        let f = all[i];
        let value = result(report, f);
        let size = value.to_string().len() + 1;
        if kept.len() < MAX_RESULTS && bytes + size <= MAX_RESULT_BYTES {
            bytes += size;
            kept.push((i, value));
        } else {
            *omitted.entry(level(f.severity)).or_default() += 1;
        }
    }
    kept.sort_by_key(|(i, _)| *i);
    (kept.into_iter().map(|(_, v)| v).collect(), omitted, bytes)
}

/// Logs past this many bytes of results are written compactly (indentation would take a
/// large log past the byte limit its results were counted against).
const PRETTY_UP_TO: usize = 1 << 20;

/// The report as one SARIF log with one run.
pub fn render(report: &Report) -> String {
    let (results, omitted, bytes) = within_limits(report);
    let mut run = json!({
        "tool": {"driver": {
            "name": "citegate",
            "version": env!("CARGO_PKG_VERSION"),
            "semanticVersion": env!("CARGO_PKG_VERSION"),
            "informationUri": "https://github.com/citegate/citegate",
            "rules": RuleId::ALL.iter().map(|r| rule_descriptor(*r)).collect::<Vec<_>>(),
        }},
        "columnKind": "unicodeCodePoints",
        "results": results,
    });
    if !omitted.is_empty() {
        run["properties"] = json!({
            "omittedResults": omitted.values().sum::<usize>(),
            "omittedByLevel": omitted,
            "omittedWhy": "code scanning takes at most 25,000 results and 10 MB per run: the most severe were kept",
        });
    }
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
    let written = match bytes <= PRETTY_UP_TO {
        true => serde_json::to_string_pretty(&log),
        false => serde_json::to_string(&log),
    };
    let mut text = citegate_engine::escape::json_escapes(written.expect("SARIF serialises"));
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

#[cfg(test)]
mod limit_tests {
    use super::*;
    use citegate_engine::model::{AuditedDoc, Doc, DocId, DocKind, Extracted, Span};

    fn report(findings: Vec<Finding>) -> Report {
        let doc = Doc::new(
            "d.md".into(),
            "d.md".into(),
            Some(String::new()),
            DocKind::Markdown,
            String::new(),
        );
        Report::new(
            "0".repeat(40),
            vec![AuditedDoc::new(doc, Extracted::default())],
            findings,
        )
    }

    #[test]
    fn past_code_scannings_limits_the_most_severe_are_kept_and_the_rest_counted() {
        // 24,990 notes, then 20 errors at the end: the errors are kept, 10 notes left out.
        let mut findings: Vec<Finding> = (0..MAX_RESULTS - 10)
            .map(|i| {
                let mut f =
                    Finding::new(RuleId::OverbroadSpan, DocId::new(0), Span::new(i, i), "n");
                f.severity = Severity::Note;
                f
            })
            .collect();
        findings.extend(
            (0..20)
                .map(|i| Finding::new(RuleId::InventedPath, DocId::new(0), Span::new(i, i), "e")),
        );
        let log: Value = serde_json::from_str(&render(&report(findings))).unwrap();
        let run = &log["runs"][0];
        let results = run["results"].as_array().unwrap();
        assert_eq!(results.len(), MAX_RESULTS);
        let errors = results.iter().filter(|r| r["level"] == "error").count();
        assert_eq!(errors, 20);
        assert_eq!(run["properties"]["omittedResults"], 10);
        assert_eq!(run["properties"]["omittedByLevel"]["note"], 10);
    }

    #[test]
    fn results_stay_under_the_byte_limit() {
        let long = "x".repeat(4_000);
        let findings: Vec<Finding> = (0..3_000)
            .map(|i| {
                Finding::new(
                    RuleId::InventedPath,
                    DocId::new(0),
                    Span::new(i, i),
                    long.clone(),
                )
            })
            .collect();
        let text = render(&report(findings));
        assert!(text.len() < 10 << 20, "{} bytes", text.len());
        assert!(
            text.len() > 9 << 20,
            "{} bytes: the limit is used",
            text.len()
        );
        let log: Value = serde_json::from_str(&text).unwrap();
        let kept = log["runs"][0]["results"].as_array().unwrap().len();
        assert!(kept < 3_000 && kept > 2_000, "{kept}");
        assert_eq!(log["runs"][0]["properties"]["omittedResults"], 3_000 - kept);
    }
}
