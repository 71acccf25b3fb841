//! Where review happens: reviewdog's `rdjson`, GitLab Code Quality and JUnit XML, validated
//! against their published schemas (vendored in `schemas/`, see its README), on the bundled
//! example; `merge` writes them too.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn example() -> (tempfile::TempDir, PathBuf) {
    let spec = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/example.fixture"),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("shop");
    citegate::fixture::build(&spec, &repo).unwrap();
    (dir, repo)
}

fn schema(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("schemas")
        .join(name)
}

/// `citegate ARGS` in `dir`, its standard output (exit 0 or 1: findings are expected).
fn run(dir: &Path, args: &[&str]) -> String {
    let out = common::citegate(dir, args);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Validate the JSON `value` against the JSON Schema file `schema` (draft from its `$schema`),
/// with `items: true` each element of the array instead, by Python's `jsonschema` (installed by
/// `scripts/test-clients.sh`).
fn validate_json(value: &Value, schema: &Path, items: bool) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("instance.json");
    std::fs::write(&file, value.to_string()).unwrap();
    let script = r#"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
instance = json.load(open(sys.argv[2]))
cls = jsonschema.validators.validator_for(schema)
cls.check_schema(schema)
for one in (instance if sys.argv[3] == "items" else [instance]):
    cls(schema).validate(one)
print("valid")
"#;
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(schema)
        .arg(&file)
        .arg(if items { "items" } else { "whole" })
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success() && out.stdout.starts_with(b"valid"),
        "{} does not validate (Python's jsonschema is installed by scripts/test-clients.sh):\n{}",
        schema.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Validate XML against an XSD with `xmllint` (Debian `libxml2-utils`, installed by
/// `scripts/test-clients.sh`).
fn validate_xml(xml: &str, xsd: &Path) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.xml");
    std::fs::write(&file, xml).unwrap();
    let out = Command::new("xmllint")
        .args(["--noout", "--schema"])
        .arg(xsd)
        .arg(&file)
        .output()
        .expect("xmllint runs (Debian libxml2-utils, installed by scripts/test-clients.sh)");
    assert!(
        out.status.success(),
        "the JUnit XML does not validate:\n{}\n{xml}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Apply reviewdog suggestions (1-based lines, UTF-8 byte columns, end exclusive) to `text`.
fn apply_suggestions(text: &str, suggestions: &[&Value]) -> String {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let offset = |p: &Value| {
        let line = p["line"].as_u64().unwrap() as usize;
        starts[line - 1] + p["column"].as_u64().unwrap() as usize - 1
    };
    let mut edits: Vec<(usize, usize, &str)> = suggestions
        .iter()
        .map(|s| {
            let r = &s["range"];
            (
                offset(&r["start"]),
                offset(&r["end"]),
                s["text"].as_str().unwrap(),
            )
        })
        .collect();
    edits.sort();
    let mut out = text.to_string();
    for (start, end, new) in edits.into_iter().rev() {
        out.replace_range(start..end, new);
    }
    out
}

#[test]
fn rdjson_validates_and_its_suggestions_write_what_fix_writes() {
    let (_dir, repo) = example();
    let rd: Value = serde_json::from_str(&run(&repo, &["audit", "--format", "rdjson"])).unwrap();
    validate_json(&rd, &schema("reviewdog-DiagnosticResult.json"), false);
    let report: Value = serde_json::from_str(&run(&repo, &["audit", "--format", "json"])).unwrap();
    let diagnostics = rd["diagnostics"].as_array().unwrap();
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(diagnostics.len(), findings.len());
    for (d, f) in diagnostics.iter().zip(findings) {
        assert_eq!(d["code"]["value"], f["rule"]);
        let url = format!(
            "https://github.com/citegate/citegate/blob/main/rules/{}.yaml",
            f["rule"].as_str().unwrap()
        );
        assert_eq!(d["code"]["url"], url.as_str());
        assert_eq!(d["location"]["path"], f["doc"]);
        assert_eq!(d["location"]["range"]["start"]["line"], f["line"]);
        let severity = f["severity"].as_str().unwrap().to_uppercase();
        let severity = if severity == "NOTE" {
            "INFO".into()
        } else {
            severity
        };
        assert_eq!(d["severity"], severity.as_str());
        // A suggestion exactly where the JSON report offers a fix.
        assert_eq!(
            d.get("suggestions").is_some(),
            f.get("fix").is_some(),
            "{d}"
        );
    }
    // Applying every suggestion writes what `citegate fix` writes.
    let mut by_doc: std::collections::BTreeMap<&str, Vec<&Value>> = Default::default();
    for d in diagnostics {
        for s in d["suggestions"].as_array().into_iter().flatten() {
            by_doc
                .entry(d["location"]["path"].as_str().unwrap())
                .or_default()
                .push(s);
        }
    }
    assert!(!by_doc.is_empty(), "the example offers a fix");
    let before: Vec<(String, String, String)> = by_doc
        .iter()
        .map(|(doc, s)| {
            let text = std::fs::read_to_string(repo.join(doc)).unwrap();
            let applied = apply_suggestions(&text, s);
            (doc.to_string(), text, applied)
        })
        .collect();
    run(&repo, &["fix"]);
    for (doc, text, applied) in before {
        let fixed = std::fs::read_to_string(repo.join(&doc)).unwrap();
        assert_ne!(fixed, text, "{doc}: fix changed nothing");
        assert_eq!(applied, fixed, "{doc}");
    }
}

#[test]
fn gitlab_code_quality_validates_with_the_reports_fingerprints() {
    let (_dir, repo) = example();
    let gl: Value = serde_json::from_str(&run(&repo, &["audit", "--format", "gitlab"])).unwrap();
    validate_json(&gl, &schema("gitlab-codeclimate.json"), true);
    validate_json(&gl, &schema("gitlab-codequality-report.json"), false);
    let report: Value = serde_json::from_str(&run(&repo, &["audit", "--format", "json"])).unwrap();
    let issues = gl.as_array().unwrap();
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(issues.len(), findings.len());
    let mut seen = std::collections::BTreeSet::new();
    for (i, f) in issues.iter().zip(findings) {
        assert_eq!(i["fingerprint"], f["fingerprint"]);
        assert!(seen.insert(i["fingerprint"].as_str().unwrap()), "{i}");
        assert_eq!(i["check_name"], f["rule"]);
        assert_eq!(i["location"]["path"], f["doc"]);
        assert_eq!(i["location"]["lines"]["begin"], f["line"]);
        let severity = match f["severity"].as_str().unwrap() {
            "error" => "major",
            "warning" => "minor",
            _ => "info",
        };
        assert_eq!(i["severity"], severity);
    }
}

#[test]
fn junit_has_a_case_per_doc_and_a_failure_per_error() {
    let (_dir, repo) = example();
    let xml = run(&repo, &["audit", "--format", "junit"]);
    validate_xml(&xml, &schema("junit-10.xsd"));
    let report: Value = serde_json::from_str(&run(&repo, &["audit", "--format", "json"])).unwrap();
    let errors = report["summary"]["errors"].as_u64().unwrap() as usize;
    assert_eq!(xml.matches("<failure ").count(), errors, "{xml}");
    // Every audited doc is a case: the two with findings, and one that passes.
    assert_eq!(xml.matches("<testcase ").count(), 3, "{xml}");
    for doc in report["docs"].as_array().unwrap() {
        let case = format!(
            r#"<testcase name="{}" classname="citegate">"#,
            doc["name"].as_str().unwrap()
        );
        assert!(xml.contains(&case), "{case}\n{xml}");
    }
    assert!(
        xml.contains(r#"<testcase name="package.json" classname="citegate"/>"#),
        "{xml}"
    );
}

#[test]
fn junit_escapes_what_a_doc_holds_and_stays_valid() {
    let dir = tempfile::tempdir().unwrap();
    let spec = "@@@ commit one code and a doc\n@@@ file src/a.rs\nfn a() {}\n\
                @@@ file docs/a&b<c>.md\nSee `src/gone<&]]>\"'\u{1b}[31m.rs:1`.\n";
    citegate::fixture::build(spec, dir.path()).unwrap();
    let xml = run(dir.path(), &["audit", "--format", "junit"]);
    validate_xml(&xml, &schema("junit-10.xsd"));
    assert!(xml.contains(r#"name="docs/a&amp;b&lt;c&gt;.md""#), "{xml}");
    assert!(!xml.contains('\u{1b}'), "{xml}");
    assert!(xml.contains("<failure type=\"invented-path\""), "{xml}");
}

#[test]
fn merge_writes_the_review_formats() {
    let (dir, repo) = example();
    let mut shards = Vec::new();
    for shard in ["1/2", "2/2"] {
        let text = run(&repo, &["audit", "--format", "json", "--shard", shard]);
        let path = dir.path().join(format!("shard{}.json", shards.len()));
        std::fs::write(&path, text).unwrap();
        shards.push(path.display().to_string());
    }
    let merge = |format: &str| {
        let mut args = vec!["merge", "--format", format];
        args.extend(shards.iter().map(String::as_str));
        run(&repo, &args)
    };
    // GitLab's issues need nothing but the report: the same bytes as from the audit.
    assert_eq!(
        merge("gitlab"),
        run(&repo, &["audit", "--format", "gitlab"])
    );
    let rd: Value = serde_json::from_str(&merge("rdjson")).unwrap();
    validate_json(&rd, &schema("reviewdog-DiagnosticResult.json"), false);
    let whole: Value = serde_json::from_str(&run(&repo, &["audit", "--format", "rdjson"])).unwrap();
    assert_eq!(
        rd["diagnostics"].as_array().unwrap().len(),
        whole["diagnostics"].as_array().unwrap().len()
    );
    validate_xml(&merge("junit"), &schema("junit-10.xsd"));
}
