//! The Action's shell step, run as GitHub runs it: the event payload with the pull request's base,
//! `GITHUB_STEP_SUMMARY`, `GITHUB_OUTPUT` and the `INPUT_*` variables, over a fixture repository
//! with a docs change. Only the docs the change can affect are annotated.

use std::path::Path;
use std::process::Command;

const SPEC: &str = "@@@ commit base code and docs
@@@ file src/a.rs
fn a() {}
fn b() {}
@@@ file docs/old.md
Untouched and broken, but not part of this change: src/a.rs:40.
@@@ commit head the pull request's change
@@@ file docs/new.md
Broken in this change: src/a.rs:9.
Fine: src/a.rs:1.
";

#[test]
fn action_step_annotates_the_change_writes_the_summary_and_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let labels = citegate::fixture::build(SPEC, &repo).unwrap();
    let event = dir.path().join("event.json");
    std::fs::write(
        &event,
        format!(
            r#"{{"pull_request": {{"base": {{"ref": "main", "sha": "{}"}}, "head": {{"sha": "{}"}}}}}}"#,
            labels["base"], labels["head"]
        ),
    )
    .unwrap();
    let summary = dir.path().join("summary.md");
    let output = dir.path().join("output.txt");
    let sarif = dir.path().join("out.sarif");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/action.sh");
    let out = Command::new("bash")
        .arg(&script)
        .current_dir(&repo)
        .env("CITEGATE", env!("CARGO_BIN_EXE_citegate"))
        .env("GITHUB_EVENT_PATH", &event)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &output)
        .env("INPUT_PATHS", "docs")
        .env("INPUT_FAIL_ON", "error")
        .env("INPUT_SARIF", &sarif)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let annotations: Vec<&str> = stdout.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(annotations.len(), 1, "{stdout}");
    assert!(
        annotations[0].starts_with(
            "::error file=docs/new.md,line=1,col=24,endColumn=34,title=citegate invented-lines::"
        ),
        "{}",
        annotations[0]
    );
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.starts_with("## citegate audit"), "{md}");
    assert!(md.contains("`docs/new.md:1`"), "{md}");
    assert!(!md.contains("docs/old.md"), "{md}");
    let outputs = std::fs::read_to_string(&output).unwrap();
    for line in ["errors=1", "warnings=0", "findings=1", "docs=1"] {
        assert!(outputs.lines().any(|l| l == line), "{line} in {outputs}");
    }
    assert!(outputs.contains(&format!("sarif={}", sarif.display())));
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(log["runs"][0]["results"][0]["ruleId"], "invented-lines");
}

#[test]
fn action_step_says_what_to_fetch_when_the_base_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    citegate::fixture::build(SPEC, &repo).unwrap();
    let event = dir.path().join("event.json");
    std::fs::write(
        &event,
        r#"{"pull_request": {"base": {"sha": "1111111111111111111111111111111111111111"}}}"#,
    )
    .unwrap();
    let out = Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/action.sh"))
        .current_dir(&repo)
        .env("CITEGATE", env!("CARGO_BIN_EXE_citegate"))
        .env("GITHUB_EVENT_PATH", &event)
        .env("INPUT_PATHS", "docs")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("::error title=citegate::") && stdout.contains("fetch-depth: 0"),
        "{stdout}"
    );
}
