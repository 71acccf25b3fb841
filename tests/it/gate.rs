//! `citegate gate`: one answer checked against a retrieval payload at a revision, printed as it is
//! or refused (exit 0/1); `--jsonl` streams one verdict per line and survives broken lines.

use crate::common;

use citegate::testing::Fixture;
use serde_json::Value;

const SPEC: &str = "@@@ commit v1 code
@@@ file src/cache.rs
/// How long a cached response stays fresh.
pub const TTL_SECONDS: u64 = 30;

pub fn ttl() -> u64 {
    TTL_SECONDS
}
";

const OK: &str = r#"{"summary": "30 s", "citations": [{"path": "src/cache.rs", "startLine": 2, "endLine": 2, "quote": "pub const TTL_SECONDS: u64 = 30;"}]}"#;

fn gate(
    fixture: &Fixture,
    args: &[&str],
    stdin: impl Into<Vec<u8>>,
) -> (Option<i32>, String, String) {
    std::fs::write(
        fixture.path().join("r.json"),
        r#"[{"path": "src/cache.rs", "start_line": 1, "end_line": 2, "text": "..."}]"#,
    )
    .unwrap();
    let out = common::command(fixture.path())
        .arg("gate")
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code(), text(out.stdout), text(out.stderr))
}

/// The rules of a refusal's violations.
fn rules(out: &str) -> Vec<String> {
    let got: Value = serde_json::from_str(out).unwrap();
    got["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["rule"].as_str().unwrap().to_string())
        .collect()
}

/// Each line of `--jsonl` output as JSON.
fn verdicts(out: &str) -> Vec<Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_grounded_answer_passes_unchanged() {
    let fixture = Fixture::build(SPEC).unwrap();
    let (code, out, _) = gate(&fixture, &["--retrieved", "r.json"], OK);
    assert_eq!(code, Some(0));
    let got: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(got, serde_json::from_str::<Value>(OK).unwrap());
}

#[test]
fn a_citation_outside_the_retrieval_is_refused_with_what_was_retrieved() {
    let fixture = Fixture::build(SPEC).unwrap();
    let outside = r#"{"summary": "s", "citations": [{"path": "src/cache.rs", "startLine": 4, "endLine": 6, "quote": "pub fn ttl() -> u64 {"}]}"#;
    let (code, out, _) = gate(&fixture, &["--retrieved", "r.json"], outside);
    assert_eq!(code, Some(1));
    let got: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(got["refuse"]["reason"], "no_span_in_retrieval");
    assert_eq!(got["refuse"]["searched"][0], "src/cache.rs:1-2");
    assert_eq!(got["citations"], Value::Array(vec![]));
    assert_eq!(got["violations"][0]["rule"], "not-retrieved");
    assert_eq!(got["rejected"]["citations"][0]["startLine"], 4);
    // Without a payload, fidelity cannot be checked: refused, unless the caller says so.
    let (code, out, _) = gate(&fixture, &[], outside);
    assert_eq!(code, Some(1));
    let got: Value = serde_json::from_str(&out).unwrap();
    assert!(got["violations"][0]["message"]
        .as_str()
        .unwrap()
        .contains("no retrieval payload"));
    // Told so, the same citation holds in the code: it passes, and says what was not checked.
    let (code, _, err) = gate(&fixture, &["--no-retrieval"], outside);
    assert_eq!(code, Some(0));
    assert!(err.contains("not checked (--no-retrieval)"), "{err}");
}

#[test]
fn jsonl_gives_one_verdict_per_line_and_survives_broken_lines() {
    let fixture = Fixture::build(SPEC).unwrap();
    let invented = OK.replace("src/cache.rs", "src/nope.rs");
    let input = format!("{OK}\n{{\"summary\": \n\n{invented}\n");
    let (code, out, _) = gate(&fixture, &["--jsonl", "--retrieved", "r.json"], input);
    assert_eq!(code, Some(1));
    let lines = verdicts(&out);
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["answer"]["summary"], "30 s");
    assert_eq!(lines[1]["answer"]["violations"][0]["rule"], "malformed-doc");
    assert_eq!(lines[2]["answer"]["violations"][0]["rule"], "invented-path");
    // Each verdict names its input line (blank lines count) and says whether it passed.
    let at: Vec<(i64, bool)> = lines
        .iter()
        .map(|l| (l["line"].as_i64().unwrap(), l["passed"].as_bool().unwrap()))
        .collect();
    assert_eq!(at, [(1, true), (2, false), (4, false)]);
}

#[test]
fn a_broken_retrieval_payload_is_an_error_with_its_location() {
    let fixture = Fixture::build(SPEC).unwrap();
    std::fs::write(fixture.path().join("bad.json"), "[{\"path\": \"a\"}]").unwrap();
    let (code, _, err) = gate(&fixture, &["--retrieved", "bad.json"], OK);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("bad.json: chunk 0: needs `path` and `start_line`"),
        "{err}"
    );
}

#[test]
fn a_refusal_passes_the_gate() {
    let fixture = Fixture::build(SPEC).unwrap();
    let refusal =
        r#"{"summary": "", "citations": [], "refuse": {"reason": "no_span_in_retrieval"}}"#;
    let (code, _, _) = gate(&fixture, &["--retrieved", "r.json"], refusal);
    assert_eq!(code, Some(0));
}

#[test]
fn a_line_that_is_not_utf8_is_refused_and_the_stream_goes_on() {
    let fixture = Fixture::build(SPEC).unwrap();
    let mut input = b"\xff\xfe{}\n".to_vec();
    input.extend_from_slice(OK.as_bytes());
    let (code, out, _) = gate(&fixture, &["--jsonl", "--retrieved", "r.json"], input);
    assert_eq!(code, Some(1));
    let lines = verdicts(&out);
    assert!(lines[0]["answer"]["violations"][0]["message"]
        .as_str()
        .unwrap()
        .contains("not UTF-8"));
    assert_eq!(lines[1]["answer"]["summary"], "30 s");
}

#[test]
fn paths_that_cannot_be_checked_here_are_refused() {
    // Found by fuzzing the gate: a path leaving the repository passed, as `unsafe-path` is not
    // in the invented, unsupported or stale families; a citation into another repository and a
    // path with control characters likewise.
    let fixture = Fixture::build(SPEC).unwrap();
    let cites = [
        r#"{"path": "../../etc/passwd", "startLine": 1, "endLine": 1, "quote": "root"}"#,
        r#"{"path": "src/a\u007fb\b.rs", "startLine": 1, "endLine": 1, "quote": "x"}"#,
    ];
    for cite in cites {
        let answer = format!(r#"{{"summary": "s", "citations": [{cite}]}}"#);
        let (code, out, _) = gate(&fixture, &["--no-retrieval"], answer);
        assert_eq!(code, Some(1), "{out}");
        assert_eq!(rules(&out), ["unsafe-path"], "{out}");
    }
    let foreign = "The TTL is set [here](https://github.com/other/repo/blob/0123456789abcdef0123456789abcdef01234567/src/cache.rs#L2).";
    let answer = serde_json::json!({"summary": foreign, "citations": [
        {"path": "https://github.com/other/repo/blob/0123456789abcdef0123456789abcdef01234567/src/cache.rs", "startLine": 2, "endLine": 2}
    ]});
    let (code, out, _) = gate(&fixture, &["--no-retrieval"], answer.to_string());
    assert_eq!(code, Some(1), "{out}");
}

#[test]
fn a_passing_answer_is_printed_byte_for_byte() {
    let fixture = Fixture::build(SPEC).unwrap();
    let answer = r#"{"summary":  "30 s", "citations": [{"path": "src/cache.rs", "startLine": 2, "endLine": 2, "quote": "TTL_SECONDS", "score": 0.1000000000000000055511151231257827}]}"#;
    let (code, out, _) = gate(&fixture, &["--no-retrieval"], answer);
    assert_eq!(code, Some(0));
    assert_eq!(out, format!("{answer}\n"));
}

/// Issue 20: each answer the seeds' own gate refuses, refused here with the reason named (each
/// exited 0 before), and the audit of the same answer reports the same rule.
#[test]
fn what_the_seed_gate_refuses_is_refused() {
    let fixture = Fixture::build(SPEC).unwrap();
    let quote = "pub const TTL_SECONDS: u64 = 30;";
    let valid =
        format!(r#"{{"path": "src/cache.rs", "startLine": 2, "endLine": 2, "quote": "{quote}"}}"#);
    let invented = r#"{"path": "src/nope.rs", "startLine": 1, "endLine": 1, "quote": "x"}"#;
    let cases = [
        // Printed byte for byte, the invented array first; checked on the last by serde.
        (
            format!(r#"{{"summary": "30 s", "citations": [{invented}], "citations": [{valid}]}}"#),
            "malformed-doc",
        ),
        (
            format!(r#"{{"summary": "It is cached.", "citations": [{invented}], "refuse": {{}}}}"#),
            "invented-path",
        ),
        (
            r#"{"summary": "", "citations": [], "refuse": {"reason": "because"}}"#.to_string(),
            "malformed-doc",
        ),
        (
            format!(r#"{{"summary": "It is 30 s.", "citations": [{invented}], "refuse": {{"reason": "ambiguous"}}}}"#),
            "invented-path",
        ),
        (
            r#"{"summary": "30 s", "citations": [{"path": "src/cache.rs", "startLine": 2, "endLine": 2}]}"#.to_string(),
            "uncited-claim",
        ),
        (
            r#"{"summary": "30 s", "citations": [{"path": "src/cache.rs", "startLine": 2, "endLine": 2, "quote": " \t"}]}"#.to_string(),
            "uncited-claim",
        ),
        (
            format!(r#"{{"summary": "30 s, see src/cache.rs:40", "citations": [{valid}]}}"#),
            "invented-lines",
        ),
        (
            format!(r#"{{"summary": "30 s, see src/cache.rs:5", "citations": [{valid}]}}"#),
            "not-retrieved",
        ),
        (
            format!(r#"{{"summary": "\ud800", "citations": [{valid}]}}"#),
            "malformed-doc",
        ),
    ];
    for (answer, rule) in cases {
        let (code, out, _) = gate(&fixture, &["--retrieved", "r.json"], answer.as_str());
        assert_eq!(code, Some(1), "{answer}: {out}");
        assert!(rules(&out).contains(&rule.to_string()), "{answer}: {out}");
        // The audit of the same answer, in a file, reports the same rule.
        let with_payload: String = match answer.rfind('}') {
            Some(end) => format!(
                r#"{}, "retrieved": [{{"path": "src/cache.rs", "start_line": 1, "end_line": 2}}]}}"#,
                &answer[..end]
            ),
            None => unreachable!(),
        };
        std::fs::write(fixture.path().join("a.json"), &with_payload).unwrap();
        let report = fixture.audit(&["a.json"], Default::default()).unwrap();
        let found: Vec<&str> = report.findings.iter().map(|f| f.rule.as_str()).collect();
        assert!(found.contains(&rule), "audit of {with_payload}: {found:?}");
    }
    // The valid forms still pass.
    let (code, out, _) = gate(&fixture, &["--retrieved", "r.json"], OK);
    assert_eq!(code, Some(0), "{out}");
    let prose = format!(r#"{{"summary": "30 s (src/cache.rs:2)", "citations": [{valid}]}}"#);
    let (code, out, _) = gate(&fixture, &["--retrieved", "r.json"], prose);
    assert_eq!(code, Some(0), "{out}");
}

/// The gate reads `.citegate.yaml` as the audit does: a rule turned off there is off here.
#[test]
fn the_gate_uses_the_configuration() {
    let fixture = Fixture::build(SPEC).unwrap();
    let literal = r#"{"summary": "The TTL is `45`.", "citations": [{"path": "src/cache.rs", "startLine": 2, "endLine": 2, "quote": "TTL_SECONDS"}]}"#;
    let (code, out, _) = gate(&fixture, &["--retrieved", "r.json"], literal);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(rules(&out), ["unsupported-literal"]);
    std::fs::write(
        fixture.path().join(".citegate.yaml"),
        "rules:\n  unsupported-literal: off\n",
    )
    .unwrap();
    let (code, out, _) = gate(&fixture, &["--retrieved", "r.json"], literal);
    assert_eq!(code, Some(0), "{out}");
}

/// `--jsonl` carries each answer's `id` and checks a large stream in batches, in order.
#[test]
fn jsonl_verdicts_carry_ids_and_keep_their_order() {
    let fixture = Fixture::build(SPEC).unwrap();
    let mut input = String::new();
    for i in 0..3000 {
        let answer = match i % 3 {
            0 => OK.replacen('{', &format!(r#"{{"id": "q{i}", "#), 1),
            1 => OK.replacen('{', &format!(r#"{{"id": {i}, "#), 1),
            _ => OK.replace("src/cache.rs", "src/nope.rs"),
        };
        input.push_str(&answer);
        input.push('\n');
    }
    let (code, out, _) = gate(&fixture, &["--jsonl", "--retrieved", "r.json"], input);
    assert_eq!(code, Some(1));
    let lines = verdicts(&out);
    assert_eq!(lines.len(), 3000);
    for (i, l) in lines.iter().enumerate() {
        assert_eq!(l["line"], i + 1);
        assert_eq!(l["passed"], i % 3 != 2, "{l}");
        match i % 3 {
            0 => assert_eq!(l["id"], format!("q{i}")),
            1 => assert_eq!(l["id"], i),
            _ => assert!(l.get("id").is_none()),
        }
    }
}

/// Issue 31: the answers of `tests/cases/refusals.case`, through the gate: a valid refusal passes
/// whatever its summary says; a refusal that also cites fails on its invented citation alone; a
/// `refuse` that is no refusal is `malformed-doc`, never "neither citations nor a refusal".
#[test]
fn a_refusal_is_a_refusal_whatever_its_summary_says() {
    let (spec, answers) = common::refusal_answers();
    let fixture = Fixture::build(&spec).unwrap();
    let verdicts: Vec<(Option<i32>, String)> = (answers.iter())
        .map(|a| {
            let (code, out, _) = gate(&fixture, &["--retrieved", "r.json"], a.as_str());
            (code, out)
        })
        .collect();
    for (code, out) in &verdicts[..2] {
        assert_eq!(*code, Some(0), "{out}");
    }
    let (code, out) = &verdicts[2];
    assert_eq!(*code, Some(1), "{out}");
    let got: Value = serde_json::from_str(out).unwrap();
    assert!(rules(out).contains(&"invented-path".to_string()), "{out}");
    let cited = got["violations"].as_array().unwrap().iter();
    assert!(
        cited.map(|v| &v["citation"]).all(|c| c == "src/nope.rs:1"),
        "{out}"
    );
    for (code, out) in &verdicts[3..] {
        assert_eq!(*code, Some(1), "{out}");
        assert_eq!(rules(out), ["malformed-doc"], "{out}");
        assert!(out.contains("`refuse` is not a refusal") && !out.contains("nor a refusal"));
    }
}

#[test]
fn a_refusal_shows_bidirectional_controls_escaped() {
    // Issue 32: a refusal carries the answer back; a right-to-left override in it was echoed
    // raw. It is written as `\u202e`, as every JSON citegate writes: the same value, inert.
    let fixture = Fixture::build(SPEC).unwrap();
    let answer = r#"{"summary": "evil \u202e txt", "citations": [{"path": "src/nope.rs", "startLine": 1, "endLine": 1, "quote": "x"}]}"#
        .replace("\\u202e", "\u{202e}");
    for args in [&["--no-retrieval"][..], &["--no-retrieval", "--jsonl"][..]] {
        let (code, out, _) = gate(&fixture, args, format!("{answer}\n"));
        assert_eq!(code, Some(1), "{out}");
        assert!(!out.contains('\u{202e}'), "{args:?}: {out}");
        assert!(out.contains("\\u202e"), "{args:?}: {out}");
        let line = out.lines().last().unwrap();
        let v: Value = serde_json::from_str(if args.len() == 2 { line } else { &out }).unwrap();
        let summary = match args.len() {
            2 => &v["answer"]["rejected"]["summary"],
            _ => &v["rejected"]["summary"],
        };
        assert_eq!(summary, "evil \u{202e} txt");
    }
}

#[test]
fn jsonl_stops_reading_while_its_output_is_not_read() {
    // Issue 32: with nobody reading its output, `gate --jsonl` read its whole input into memory
    // (213 MB measured). Now it reads at most READ_AHEAD_BYTES ahead of what it has written: the
    // writer below is blocked long before it has offered all it has.
    use std::io::Write;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let fixture = Fixture::build(SPEC).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_citegate"))
        .current_dir(fixture.path())
        .args(["gate", "--jsonl", "--no-retrieval"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let filler = "x".repeat(48 << 10);
    let line = format!(
        "{{\"summary\": \"{filler}\", \"citations\": [{{\"path\": \"src/nope.rs\", \"startLine\": 1, \"endLine\": 1, \"quote\": \"x\"}}]}}\n"
    );
    let offered = 160usize << 20;
    let written = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = written.clone();
    let mut stdin = child.stdin.take().unwrap();
    std::thread::spawn(move || {
        while counter.load(Ordering::Relaxed) < offered {
            if stdin.write_all(line.as_bytes()).is_err() {
                return;
            }
            counter.fetch_add(line.len(), Ordering::Relaxed);
        }
    });
    // Wait until the writer makes no progress for a second (it is blocked), or has written all.
    let mut last = usize::MAX;
    loop {
        std::thread::sleep(std::time::Duration::from_millis(1000));
        let now = written.load(Ordering::Relaxed);
        if now == last || now >= offered {
            break;
        }
        last = now;
    }
    let accepted = written.load(Ordering::Relaxed);
    child.kill().unwrap();
    child.wait().unwrap();
    let bound = citegate::gate::service::READ_AHEAD_BYTES + (8 << 20);
    assert!(
        accepted < bound,
        "{accepted} bytes accepted with nothing reading the output (bound {bound})"
    );
}
