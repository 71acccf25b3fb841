//! The library entry points (`citegate::api`, what the Python and Node bindings wrap) against the
//! command line: byte-equal verdicts from `Repo::gate` and `citegate gate`, from
//! `Repo::gate_many` and `gate --jsonl`, on every answer of the shared fixtures
//! (`tests/bindings/`) and on generated answers; the audit's JSON and `cite` likewise.

use std::path::Path;

use citegate::api::{self, Repo};
use citegate::testing::Fixture;
use proptest::prelude::*;

use crate::common;

const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/bindings");

/// The shared fixture repository (`tests/bindings/repo/`, one commit), with the retrieval
/// payload beside it as `r.json`.
fn fixture() -> Fixture {
    let mut spec = String::from("@@@ commit v1 code\n");
    for path in ["src/cache.rs", "docs/cache.md"] {
        let text = std::fs::read_to_string(Path::new(SHARED).join("repo").join(path)).unwrap();
        spec.push_str(&format!("@@@ file {path}\n{text}"));
    }
    let fixture = Fixture::build(&spec).unwrap();
    let payload = std::fs::read(Path::new(SHARED).join("retrieved.json")).unwrap();
    std::fs::write(fixture.path().join("r.json"), payload).unwrap();
    fixture
}

/// The shared answers, one JSON text each, with the answers of `tests/cases/refusals.case`.
fn answers() -> Vec<String> {
    let text = std::fs::read_to_string(Path::new(SHARED).join("answers.jsonl")).unwrap();
    let mut all: Vec<String> = text.lines().map(str::to_string).collect();
    all.extend(common::refusal_answers().1);
    all
}

/// The three ways of asking: a payload given, none required, none (`--no-retrieval`).
const MODES: [&[&str]; 3] = [&["--retrieved", "r.json"], &[], &["--no-retrieval"]];

/// The library's options for one of [`MODES`].
fn options(fixture: &Fixture, mode: &[&str]) -> (Option<Vec<citegate::model::Retrieved>>, bool) {
    let payload = match mode.first() {
        Some(&"--retrieved") => {
            let text = std::fs::read_to_string(fixture.path().join("r.json")).unwrap();
            Some(api::retrieved(&serde_json::from_str(&text).unwrap()).unwrap())
        }
        _ => None,
    };
    (payload, mode == ["--no-retrieval"])
}

/// `citegate gate MODE` on `stdin`: its exit code and standard output.
fn cli(fixture: &Fixture, mode: &[&str], stdin: &str) -> (Option<i32>, String) {
    let out = common::command(fixture.path())
        .arg("gate")
        .args(mode)
        .write_stdin(stdin)
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8(out.stdout).unwrap())
}

/// Every answer through `Repo::gate` and through `citegate gate`, one process each: the same
/// bytes printed, the same exit code; then all of them through `gate_many` and `gate --jsonl`.
#[test]
fn the_library_and_the_cli_give_byte_equal_verdicts_on_the_shared_answers() {
    let fixture = fixture();
    let repo = Repo::open(fixture.path(), None).unwrap();
    let answers = answers();
    for mode in MODES {
        let (payload, no_retrieval) = options(&fixture, mode);
        for answer in &answers {
            let verdict = repo.gate(answer, payload.as_deref(), no_retrieval).unwrap();
            let (code, out) = cli(&fixture, mode, answer);
            assert_eq!(verdict.print(answer, true), out, "{mode:?} {answer}");
            assert_eq!(code, Some(if verdict.passed { 0 } else { 1 }), "{answer}");
        }
        jsonl_equal(&fixture, &repo, mode, &answers);
    }
}

/// `gate_many` against one `gate --jsonl` run: line for line, byte for byte.
fn jsonl_equal(fixture: &Fixture, repo: &Repo, mode: &[&str], answers: &[String]) {
    let (payload, no_retrieval) = options(fixture, mode);
    let texts: Vec<&str> = answers.iter().map(String::as_str).collect();
    let verdicts = repo
        .gate_many(&texts, payload.as_deref(), no_retrieval)
        .unwrap();
    let ours: String = (verdicts.iter().zip(&texts).enumerate())
        .map(|(i, (v, t))| v.line(i + 1, Some(t)))
        .collect();
    let args: Vec<&str> = [&["--jsonl"][..], mode].concat();
    let (code, out) = cli(fixture, &args, &(answers.join("\n") + "\n"));
    assert_eq!(ours, out, "{mode:?}");
    let all = verdicts.iter().all(|v| v.passed);
    assert_eq!(code, Some(if all { 0 } else { 1 }));
}

/// One piece of a generated answer's citation.
fn citation() -> impl Strategy<Value = String> {
    let path = prop::sample::select(vec!["src/cache.rs", "src/nope.rs", "docs/cache.md", "../x"]);
    let quote = prop::sample::select(vec![
        "pub const TTL_SECONDS: u64 = 30;",
        "TTL_SECONDS",
        "pub fn ttl() -> u64 {",
        "nowhere",
        "",
    ]);
    (path, 0i64..9, 0i64..4, quote, any::<bool>()).prop_map(|(path, start, len, quote, with)| {
        let quote = match with {
            true => format!(r#", "quote": "{quote}""#),
            false => String::new(),
        };
        let end = start + len;
        format!(r#"{{"path": "{path}", "startLine": {start}, "endLine": {end}{quote}}}"#)
    })
}

/// A generated answer: a summary, citations, maybe a refusal or its own payload.
fn answer() -> impl Strategy<Value = String> {
    let summary = prop::sample::select(vec!["30 s", "", "see src/cache.rs:4", "The TTL is `45`."]);
    let refuse = prop::sample::select(vec!["", r#", "refuse": {"reason": "ambiguous"}"#]);
    let own = prop::sample::select(vec![
        "",
        r#", "retrieved": [{"path": "src/cache.rs", "start_line": 1, "end_line": 6}]"#,
    ]);
    let cites = prop::collection::vec(citation(), 0..3);
    (summary, cites, refuse, own).prop_map(|(summary, cites, refuse, own)| {
        let cites = cites.join(", ");
        format!(r#"{{"summary": "{summary}", "citations": [{cites}]{refuse}{own}}}"#)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4, ..ProptestConfig::default() })]

    /// Generated answers: `gate_many` and `gate --jsonl` agree byte for byte, in each mode, and
    /// `Repo::gate` gives each answer the verdict `gate_many` gave it.
    #[test]
    fn generated_answers_get_the_cli_verdicts(answers in prop::collection::vec(answer(), 1..40)) {
        let fixture = fixture();
        let repo = Repo::open(fixture.path(), None).unwrap();
        for mode in MODES {
            jsonl_equal(&fixture, &repo, mode, &answers);
            let (payload, no_retrieval) = options(&fixture, mode);
            let texts: Vec<&str> = answers.iter().map(String::as_str).collect();
            let many = repo.gate_many(&texts, payload.as_deref(), no_retrieval).unwrap();
            for (text, verdict) in texts.iter().zip(&many) {
                prop_assert_eq!(&repo.gate(text, payload.as_deref(), no_retrieval).unwrap(), verdict);
            }
        }
    }
}

#[test]
fn the_audit_is_the_cli_report() {
    let fixture = fixture();
    let repo = Repo::open(fixture.path(), None).unwrap();
    let ours = repo.audit_json(&["docs".into()]).unwrap();
    let out = common::citegate(fixture.path(), &["audit", "--format", "json", "docs"]);
    assert_eq!(ours, String::from_utf8(out.stdout).unwrap());
    assert!(ours.contains("src/evict.rs"), "{ours}");
}

/// Issue 62: a site build logs `audit_lines`, the report's findings that count, each on one line
/// in the report's words; a suppressed finding is not among them.
#[test]
fn audit_lines_are_the_reports_findings_on_one_line_each() {
    let fixture = fixture();
    let suppressed = "Gone: src/gone.rs:1 <!-- citegate-ignore invented-path: a test -->\n";
    std::fs::write(fixture.path().join("docs/quiet.md"), suppressed).unwrap();
    let repo = Repo::open(fixture.path(), None).unwrap();
    let lines = repo.audit_lines(&["docs".into()]).unwrap();
    let report: serde_json::Value =
        serde_json::from_str(&repo.audit_json(&["docs".into()]).unwrap()).unwrap();
    assert_eq!(
        report["suppressed"].as_array().map(Vec::len),
        Some(1),
        "{report}"
    );
    let str_of = |v: &serde_json::Value| v.as_str().unwrap().to_string();
    let expected: Vec<_> = (report["findings"].as_array().unwrap().iter())
        .map(|f| {
            let (doc, line, column) = (str_of(&f["doc"]), &f["line"], &f["column"]);
            let (rule, message) = (str_of(&f["rule"]), str_of(&f["message"]));
            let text = format!("{doc}:{line}:{column}: {rule}: {message}");
            (
                doc,
                line.as_u64().unwrap() as usize,
                rule,
                str_of(&f["severity"]),
                text,
            )
        })
        .collect();
    let ours: Vec<_> = (lines.iter())
        .map(|l| {
            let severity = l.severity.as_str().to_string();
            (
                l.doc.clone(),
                l.line,
                l.rule.to_string(),
                severity,
                l.text.clone(),
            )
        })
        .collect();
    assert!(!lines.is_empty());
    assert_eq!(ours, expected);
}

#[test]
fn cite_finds_a_quote_and_errors_read_as_the_cli_says_them() {
    let fixture = fixture();
    let repo = Repo::open(fixture.path(), None).unwrap();
    let found = repo.cite("TTL_SECONDS", None).unwrap();
    assert_eq!(found["count"], 2, "{found}");
    assert_eq!(found["places"][0]["citation"], "src/cache.rs:2");
    let none = repo.cite("TTL_SECONDS", Some("docs/cache.md")).unwrap();
    assert_eq!(none["count"], 0);
    assert!(repo.cite("TTL", Some("../etc/passwd")).is_err());
    assert!(repo
        .cite("ab", None)
        .unwrap_err()
        .message
        .contains("at least 3"));
    // A target that names nothing: the message `citegate gate --target` prints.
    let Err(err) = Repo::open(fixture.path(), Some("no-such-rev")) else {
        panic!("opened at a revision that does not exist");
    };
    let out = common::citegate(fixture.path(), &["gate", "--target", "no-such-rev"]);
    let cli = String::from_utf8(out.stderr).unwrap();
    assert!(cli.contains(&err.message), "{cli} / {err}");
    assert_eq!(err.kind, api::ErrorKind::Run);
    let bad = api::retrieved(&serde_json::json!([{"path": "a"}])).unwrap_err();
    assert!(
        bad.message
            .contains("chunk 0: needs `path` and `start_line`"),
        "{bad}"
    );
}

/// A server passes its caller's paths on to `audit`: none of them reads outside the work tree
/// (`..`, an absolute path, a folder reached through a committed link, the Git folder), each is
/// refused as input, naming the path; paths inside, `..` included, are audited as the CLI does.
#[test]
fn the_audit_reads_no_path_outside_the_work_tree() {
    let fixture = fixture();
    let outside = tempfile::tempdir().unwrap();
    let secret = "[secret](src/cache.rs:1) `sk-live-0123456789`\n";
    common::write(outside.path(), "leak.md", secret);
    let link = fixture.path().join("docs/elsewhere");
    std::os::unix::fs::symlink(outside.path(), &link).unwrap();
    let repo = Repo::open(&fixture.path().join("docs"), None).unwrap();
    let abs = outside.path().join("leak.md");
    for path in [
        "../../outside/leak.md".to_string(),
        abs.display().to_string(),
        "elsewhere/leak.md".to_string(),
        "../.git/config".to_string(),
    ] {
        let err = repo.audit_json(&[path.clone().into()]).unwrap_err();
        assert_eq!(err.kind, api::ErrorKind::Input, "{path}: {err}");
        assert!(err.message.contains(&format!("`{path}`")), "{err}");
    }
    // The link itself, named: reported as a link, never read through.
    let report = repo.audit_json(&["elsewhere".into()]).unwrap();
    assert!(!report.contains("sk-live"), "{report}");
    assert!(report.contains("symbolic link"), "{report}");
    // Inside the work tree: `..` from the folder opened is fine, and is the CLI's report.
    let ours = repo.audit_json(&["../docs/cache.md".into()]).unwrap();
    let out = common::citegate(
        fixture.path(),
        &["audit", "--format", "json", "docs/cache.md"],
    );
    assert_eq!(ours, String::from_utf8(out.stdout).unwrap());
}

/// An answer over the command line's limit is refused as `citegate gate` refuses it, before any
/// work, by `gate` and by `gate_many` (naming which answer).
#[test]
fn an_answer_over_the_limit_is_refused_as_input() {
    let fixture = fixture();
    let repo = Repo::open(fixture.path(), None).unwrap();
    let huge = format!(r#"{{"summary": "{}"}}"#, "x".repeat(api::MAX_INPUT_BYTES));
    let err = repo.gate(&huge, None, true).unwrap_err();
    assert_eq!(err.kind, api::ErrorKind::Input);
    assert_eq!(err.message, "answer: more than 16 MiB");
    let err = repo.gate_many(&["{}", &huge], None, true).unwrap_err();
    assert_eq!(err.message, "answers[1]: more than 16 MiB");
}

/// A binding's walk over a host value stops at the limits, naming where.
#[test]
fn a_budget_stops_at_the_depth_and_the_size() {
    let mut budget = api::Budget::default();
    assert!(budget.enter(api::MAX_DEPTH, || "a".into()).is_ok());
    let deep = budget
        .enter(api::MAX_DEPTH + 1, || "answer.a[0]".into())
        .unwrap_err();
    assert_eq!(deep.message, "answer.a[0]: nested deeper than 128");
    assert!(budget.take(api::MAX_INPUT_BYTES - 1, || "x".into()).is_ok());
    let big = budget.take(1, || "answer.summary".into()).unwrap_err();
    assert_eq!(
        (big.kind, big.message.as_str()),
        (api::ErrorKind::Input, "answer.summary: more than 16 MiB")
    );
}
