//! One verdict per answer across `audit`, `fix`, `regenerate` and `gate` under one
//! `.citegate.yaml`: an answer the audit fails is refused by the gate and not kept by
//! `regenerate`; one `fix` moves (a safe fix) passes the gate once moved and is re-grounded by
//! `regenerate`; the rest are kept and pass. The configuration turns `unsupported-literal` off,
//! so an answer that fails under the defaults passes under it, everywhere at once.

use crate::common;

use crate::common::citegate;
use citegate::testing::Fixture;
use serde_json::Value;

const R: &str = r#""retrieved": [{"path": "src/cache.rs", "start_line": 1, "end_line": 9}]"#;

fn spec() -> String {
    let answers = [
        // Grounded: kept, passes.
        r#"{"summary": "The TTL is `TTL_SECONDS`.", "revision": "{{rev:v2}}", R, "citations": [{"path": "src/cache.rs", "startLine": 4, "endLine": 4, "quote": "pub const TTL_SECONDS: u64 = 30;"}]}"#,
        // A literal the span does not hold: off under this configuration, failing by default.
        r#"{"summary": "The TTL is `MAX_AGE`.", "revision": "{{rev:v2}}", R, "citations": [{"path": "src/cache.rs", "startLine": 4, "endLine": 4, "quote": "pub const TTL_SECONDS: u64 = 30;"}]}"#,
        // An invented path.
        r#"{"summary": "The TTL is 30.", "revision": "{{rev:v2}}", R, "citations": [{"path": "src/nope.rs", "startLine": 2, "endLine": 2, "quote": "pub const TTL_SECONDS: u64 = 30;"}]}"#,
        // Written at v1: the line moved down by two at v2, found again exactly once (a safe fix).
        r#"{"summary": "The TTL is 30.", "revision": "{{rev:v1}}", R, "citations": [{"path": "src/cache.rs", "startLine": 2, "endLine": 2, "quote": "pub const TTL_SECONDS: u64 = 30;"}]}"#,
    ]
    .map(|a| a.replace("R,", &format!("{R},")))
    .join("\n");
    format!(
        "@@@ commit v1 code
@@@ file src/cache.rs
/// How long a cached response stays fresh.
pub const TTL_SECONDS: u64 = 30;
@@@ commit v2 two lines above
@@@ file src/cache.rs
// The cache.

/// How long a cached response stays fresh.
pub const TTL_SECONDS: u64 = 30;
@@@ file .citegate.yaml
rules: {{unsupported-literal: off}}
@@@ commit v3 answers
@@@ file answers/a.jsonl
{answers}
"
    )
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// Whether `citegate gate` passes each line of `answers/a.jsonl`, as written now.
fn gate_passes(dir: &std::path::Path) -> Vec<bool> {
    let text = std::fs::read_to_string(dir.join("answers/a.jsonl")).unwrap();
    let out = common::command(dir)
        .args(["gate", "--jsonl"])
        .write_stdin(text)
        .output()
        .unwrap();
    stdout(&out)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|v| v["passed"].as_bool().unwrap())
        .collect()
}

/// Which answers (by line) the audit fails: a finding of the invented, unsupported or stale
/// family above a note (README "The gate").
fn audit_fails(dir: &std::path::Path) -> Vec<bool> {
    let out = citegate(dir, &["audit", "answers", "--format", "json"]);
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let mut fails = vec![false; 4];
    for f in report["findings"].as_array().unwrap() {
        let family = f["family"].as_str().unwrap();
        if ["invented", "unsupported", "stale"].contains(&family) && f["severity"] != "note" {
            fails[f["line"].as_u64().unwrap() as usize - 1] = true;
        }
    }
    fails
}

/// What `regenerate` does to each answer, in order.
fn regenerated(dir: &std::path::Path) -> Vec<String> {
    let out = citegate(dir, &["regenerate", "answers", "--format", "json"]);
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let outcomes = report["outcomes"].as_array().unwrap();
    let answers: Vec<u64> = outcomes
        .iter()
        .map(|o| o["answer"].as_u64().unwrap())
        .collect();
    assert_eq!(answers, [0, 1, 2, 3]);
    outcomes
        .iter()
        .map(|o| o["outcome"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn audit_fix_regenerate_and_gate_agree_on_every_answer() {
    let fixture = Fixture::build(&spec()).unwrap();
    let dir = fixture.path();

    // Before: the audit fails the last two; the gate refuses them; regenerate keeps the first
    // two and re-grounds the moved one.
    assert_eq!(audit_fails(dir), [false, false, true, true]);
    assert_eq!(gate_passes(dir), [true, true, false, false]);
    assert_eq!(regenerated(dir), ["kept", "kept", "refused", "regrounded"]);

    // `fix` applies the one safe fix: the moved answer now passes the audit, the gate and
    // `regenerate`; the others keep their verdicts.
    let out = citegate(dir, &["fix", "answers"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(audit_fails(dir), [false, false, true, false]);
    assert_eq!(gate_passes(dir), [true, true, false, true]);
    assert_eq!(regenerated(dir), ["kept", "kept", "refused", "kept"]);

    // The same answers under the defaults: the literal fails, and every command says so.
    std::fs::remove_file(dir.join(".citegate.yaml")).unwrap();
    assert_eq!(audit_fails(dir), [false, true, true, false]);
    assert_eq!(gate_passes(dir), [true, false, false, true]);
    assert_eq!(regenerated(dir), ["kept", "refused", "refused", "kept"]);
}
