//! Where review happens: reviewdog's `rdjson`, GitLab Code Quality and JUnit XML, validated
//! against their published schemas (vendored in `schemas/`, see its README), on the bundled
//! example; `merge` writes them too.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

pub(super) fn schema(name: &str) -> PathBuf {
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
pub(super) fn validate_json(value: &Value, schema: &Path, items: bool) {
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
    let (_dir, repo) = common::example();
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
    let (_dir, repo) = common::example();
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
    let (_dir, repo) = common::example();
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
    let (dir, repo) = common::example();
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
    // A review needs the pull request's diff and the docs' text, which a merged report lacks.
    let mut args = vec!["merge", "--format", "github-review"];
    args.extend(shards.iter().map(String::as_str));
    let out = common::citegate(&repo, &args);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("merge renders json"));
}

/// A pull request that adds a doc paragraph whose quote sits one line higher than it cites (a
/// safe fix, on a line the pull request added; its line holds a run of four backticks), under a
/// paragraph from before with the same mistake (a safe fix outside the diff).
const PR: &str = "@@@ commit base code and docs
@@@ file src/a.rs
// header
fn a() {
    one();
}
fn b() {
    two();
}
@@@ file docs/guide.md
# Guide

src/a.rs:1-2
```rust
fn a() {
    one();
```
@@@ commit head the pull request's change
@@@ file docs/guide.md
# Guide

src/a.rs:1-2
```rust
fn a() {
    one();
```

New ```` `` ```` here, src/a.rs:6-7
```rust
fn b() {
    two();
```
";

/// The text of a ```` ```suggestion ```` block in a comment body (its fence is the longest
/// backtick run before `suggestion`), and that fence.
pub(super) fn suggested(body: &str) -> (String, String) {
    let at = body.find("suggestion\n").expect("a suggestion block");
    let fence_start = body[..at].rfind(|c| c != '`').map_or(0, |i| i + 1);
    let fence = &body[fence_start..at];
    let rest = &body[at + "suggestion\n".len()..];
    let close = format!("\n{fence}");
    let text = match rest.strip_prefix(fence) {
        Some(_) => String::new(),
        None => rest[..rest.rfind(&close).expect("a closing fence")].to_string(),
    };
    (text, fence.to_string())
}

#[test]
fn the_review_suggests_the_safe_fixes_on_changed_lines_and_replaces_only_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let labels = citegate::fixture::build(PR, &repo).unwrap();
    let event = dir.path().join("event.json");
    let payload = serde_json::json!({"pull_request": {
        "number": 7,
        "base": {"ref": "main", "sha": labels["base"].to_string()},
        "head": {"sha": labels["head"].to_string()},
    }});
    std::fs::write(&event, payload.to_string()).unwrap();
    let temp = dir.path().join("runner-temp");
    std::fs::create_dir_all(&temp).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("bash")
        .arg(root.join("scripts/action.sh"))
        .current_dir(&repo)
        .env("CITEGATE", env!("CARGO_BIN_EXE_citegate"))
        .env("RUNNER_TEMP", &temp)
        .env("GITHUB_STEP_SUMMARY", temp.join("summary.md"))
        .env("GITHUB_OUTPUT", temp.join("output.txt"))
        .env("GITHUB_EVENT_PATH", &event)
        .env("INPUT_PATHS", "docs")
        .env("INPUT_REVIEW", "true")
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let outputs = std::fs::read_to_string(temp.join("output.txt")).unwrap();
    let review = outputs
        .lines()
        .skip_while(|l| !l.starts_with("review<<"))
        .nth(1)
        .expect("a review output")
        .to_string();
    assert!(Path::new(&review).starts_with(&temp), "{review}");

    // A stand-in `gh`: a stranger's comment and review that start with the marker, our comment
    // and review of the last push, and our review already marked superseded; records every call
    // and keeps what is posted.
    let (log, posted) = (dir.path().join("gh.log"), dir.path().join("posted.json"));
    let marker = "<!-- citegate-review -->";
    let superseded = format!("{marker}\ncitegate: superseded by a newer review.");
    let comments = serde_json::json!([
        {"id": 666, "user": {"login": "mallory"}, "body": format!("{marker} pwned")},
        {"id": 4242, "user": {"login": "github-actions[bot]"}, "body": format!("{marker}\nold")},
        {"id": 9, "user": {"login": "github-actions[bot]"}, "body": "a reviewer's own"},
    ]);
    let reviews = serde_json::json!([
        {"id": 777, "user": {"login": "mallory"}, "body": format!("{marker} pwned")},
        {"id": 5150, "user": {"login": "github-actions[bot]"}, "body": superseded},
        {"id": 5151, "user": {"login": "github-actions[bot]"}, "body": format!("{marker}\nold")},
    ]);
    std::fs::write(dir.path().join("comments.json"), comments.to_string()).unwrap();
    std::fs::write(dir.path().join("reviews.json"), reviews.to_string()).unwrap();
    let path = common::fake_gh(
        dir.path(),
        &format!(
            "#!/bin/sh\necho \"$@\" >> {log}\ncase \"$*\" in\n  graphql*) exit 1 ;;\n  *pulls/7/comments\\ --paginate*) cat {d}/comments.json ;;\n  *pulls/7/reviews\\ --paginate*) cat {d}/reviews.json ;;\n  *--method\\ POST*--input*) cp \"$6\" {posted} ;;\nesac\n",
            log = log.display(),
            d = dir.path().display(),
            posted = posted.display()
        ),
    );
    let out = Command::new("bash")
        .arg(root.join("scripts/review.sh"))
        .arg(&review)
        .env("PATH", &path)
        .env("GITHUB_REPOSITORY", "acme/docs")
        .env("GITHUB_EVENT_PATH", &event)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let calls = std::fs::read_to_string(&log).unwrap();
    // Reads first, then the new review, then only our own earlier comment and review replaced.
    let writes = &calls[calls.find("api --method").expect("a write")..];
    let expected = format!(
        "api --method POST repos/acme/docs/pulls/7/reviews --input {review}\n\
         api --method DELETE repos/acme/docs/pulls/comments/4242\n\
         api --method PUT repos/acme/docs/pulls/7/reviews/5151 -f body={superseded}\n"
    );
    assert_eq!(writes, expected, "{calls}");

    // The request GitHub gets is what its REST schema for reviews takes.
    let request: Value = serde_json::from_str(&std::fs::read_to_string(&posted).unwrap()).unwrap();
    validate_json(&request, &schema("github-pulls-create-review.json"), false);
    let comments = request["comments"].as_array().unwrap();
    // One suggestion: the fix on the line the pull request added; the one above it, on a line
    // from before, stays in the summary and the report comment.
    assert_eq!(comments.len(), 1, "{request}");
    assert_eq!(comments[0]["path"], "docs/guide.md");
    assert_eq!(comments[0]["line"], 9);
    assert_eq!(comments[0]["side"], "RIGHT");
    let body = comments[0]["body"].as_str().unwrap();
    assert!(body.starts_with(marker), "{body}");
    assert!(body.contains("unsupported-quote"), "{body}");
    let (text, fence) = suggested(body);
    assert_eq!(fence, "`````", "longer than the doc's run of four: {body}");

    // Applying the suggestion writes what `citegate fix` writes on those lines.
    let doc = repo.join("docs/guide.md");
    let before = std::fs::read_to_string(&doc).unwrap();
    let mut lines: Vec<String> = before.lines().map(str::to_string).collect();
    let end = comments[0]["line"].as_u64().unwrap() as usize;
    let start = comments[0]["start_line"]
        .as_u64()
        .map_or(end, |s| s as usize);
    lines.splice(start - 1..end, text.lines().map(str::to_string));
    let applied = lines.join("\n") + "\n";
    run(&repo, &["fix"]);
    let fixed = std::fs::read_to_string(&doc).unwrap();
    let fixed_lines: Vec<&str> = fixed.lines().collect();
    assert_eq!(
        applied.lines().nth(end - 1),
        Some("New ```` `` ```` here, src/a.rs:5-6")
    );
    // `fix` also rewrites line 3, outside the diff, which no suggestion touches: apart from it,
    // the doc with the suggestion applied is byte for byte the doc `fix` writes.
    assert_eq!(fixed_lines[2], "src/a.rs:2-3");
    let mut expected: Vec<&str> = fixed_lines.clone();
    expected[2] = "src/a.rs:1-2";
    assert_eq!(applied, expected.join("\n") + "\n");
}

#[test]
fn a_github_review_needs_the_pull_requests_base() {
    let (_dir, repo) = common::example();
    let out = common::citegate(&repo, &["audit", "--format", "github-review"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needs --since"), "{err}");
}

#[test]
fn the_review_input_is_true_or_false_and_needs_a_pull_request() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    citegate::fixture::build(PR, &repo).unwrap();
    let temp = dir.path().join("runner-temp");
    std::fs::create_dir_all(&temp).unwrap();
    let action = |review: &str| {
        Command::new("bash")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/action.sh"))
            .current_dir(&repo)
            .env("CITEGATE", env!("CARGO_BIN_EXE_citegate"))
            .env("RUNNER_TEMP", &temp)
            .env("GITHUB_OUTPUT", temp.join("output.txt"))
            .env("INPUT_PATHS", "docs")
            .env("INPUT_REVIEW", review)
            .output()
            .unwrap()
    };
    let out = action("yes");
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("input review must be true or false"),
        "{stdout}"
    );
    // No pull request (no event, no `since`): no diff to suggest on, no review written.
    let out = action("true");
    assert!(matches!(out.status.code(), Some(0 | 1)));
    let outputs = std::fs::read_to_string(temp.join("output.txt")).unwrap();
    assert!(outputs.contains("errors<<"), "{outputs}");
    assert!(!outputs.contains("review<<"), "{outputs}");
}

#[test]
fn the_examples_review_formats() {
    let (_dir, repo) = common::example();
    for (name, format) in [
        ("example_rdjson", "rdjson"),
        ("example_gitlab", "gitlab"),
        ("example_junit", "junit"),
    ] {
        insta::assert_snapshot!(name, run(&repo, &["audit", "--format", format]));
    }
}
