//! Asking and repairing through the `ChatModel` seam, in process, with a scripted model (no
//! server): the gate decides every reply, a failing reply gets one repair turn holding the
//! violations, and a transport error is an error outcome. (The HTTP client's transport is tested
//! against a real 127.0.0.1 server in tests/it/llm.rs.)

use citegate::audit;
use citegate::gate::reply::Subject;
use citegate::gate::Gate;
use citegate::llm::scripted::Scripted;
use citegate::llm::{CallError, ErrorKind, Reply, Role};
use citegate::model::{LineRange, Retrieved};
use citegate::regenerate::ask::{ask, Question};
use citegate::regenerate::prompt::Contract;
use citegate::regenerate::trace::{self, Ended};
use citegate::testing::Fixture;

const SPEC: &str = "@@@ commit v1 code
@@@ file src/cache.rs
/// How long a cached response stays fresh.
pub const TTL_SECONDS: u64 = 30;
";

const INVENTED: &str = r#"{"summary": "The TTL is 30 seconds.", "citations": [{"path": "src/ttl.rs", "startLine": 2, "endLine": 2, "quote": "TTL"}], "refuse": null}"#;
const GROUNDED: &str = r#"{"summary": "The TTL is 30 seconds.", "citations": [{"path": "src/cache.rs", "startLine": 2, "endLine": 2, "quote": "pub const TTL_SECONDS: u64 = 30;"}], "refuse": null}"#;

fn reply(content: &str) -> Result<Reply, CallError> {
    Ok(Reply {
        content: content.to_string(),
        prompt_tokens: 10,
        completion_tokens: 5,
        requests: 1,
    })
}

fn question() -> Question {
    Question {
        doc: "answers/a.json".into(),
        subject: Subject::Answer,
        index: 0,
        contract: Contract::Citations,
        text: "How long does a cached response stay fresh?".into(),
        chunks: Vec::new(),
        chunk_ids: Vec::new(),
        retrieved: vec![Retrieved {
            path: "src/cache.rs".into(),
            lines: LineRange::new(1, 2),
        }],
    }
}

/// The fixture and the session a gate is built from (the fixture lives as long as the test).
fn session() -> (Fixture, audit::Session) {
    let fixture = Fixture::build(SPEC).unwrap();
    let session = audit::Session::at(fixture.path(), None, None).unwrap();
    (fixture, session)
}

#[test]
fn a_failing_reply_is_repaired_once_and_the_repair_is_gated() {
    let (_fixture, s) = session();
    let gate = Gate::new(&s.repo, s.target, &s.settings);
    let model = Scripted::new(vec![reply(INVENTED), reply(GROUNDED)]);
    let asked = ask(&model, &gate, &question());
    assert_eq!(asked.record.outcome, Ended::Regrounded);
    assert_eq!(
        asked.answer.unwrap()["citations"][0]["path"],
        "src/cache.rs"
    );
    assert_eq!(asked.calls, 2);
    let attempts = &asked.record.attempts;
    assert_eq!(attempts.len(), 2);
    assert!(!attempts[0].passed && attempts[1].passed);
    assert!(
        attempts[0]
            .violations
            .iter()
            .any(|v| v.rule == citegate::registry::RuleId::InventedPath),
        "{:?}",
        attempts[0].violations
    );
    // The repair turn restates the conversation and names what failed.
    let asked_messages = model.asked.lock().unwrap();
    let repair = &asked_messages[1];
    assert_eq!(repair.len(), 4);
    assert_eq!(repair[2].role, Role::Assistant);
    assert_eq!(repair[2].content, INVENTED);
    assert_eq!(repair[3].role, Role::User);
    assert!(repair[3].content.contains("src/ttl.rs"));
}

#[test]
fn two_failing_replies_are_refused_and_a_transport_error_is_an_error() {
    let (_fixture, s) = session();
    let gate = Gate::new(&s.repo, s.target, &s.settings);
    let model = Scripted::new(vec![reply(INVENTED), reply(INVENTED)]);
    let asked = ask(&model, &gate, &question());
    assert_eq!(asked.record.outcome, Ended::Refused);
    assert!(asked.answer.is_none());
    assert_eq!(asked.record.attempts.len(), 2);

    let broken = Scripted::new(vec![Err(CallError {
        message: "timed out after 2 s".into(),
        kind: ErrorKind::Timeout,
        requests: 3,
        endpoint: false,
    })]);
    let asked = ask(&broken, &gate, &question());
    assert_eq!(asked.record.outcome, Ended::Error);
    assert_eq!(asked.record.error_kind, Some(ErrorKind::Timeout));
    assert_eq!(asked.record.error.as_deref(), Some("timed out after 2 s"));
    assert_eq!(asked.calls, 3);
}

/// Issue 31: `replay` counts what was recorded. A reply that fails the gate followed by a repair
/// turn that gets no reply is an error (no reply to the last question), by its recorded kind,
/// not a refusal; a trace read back from JSONL replays to the same counts.
#[test]
fn replay_counts_a_repair_without_a_reply_as_an_error_of_its_kind() {
    let (_fixture, s) = session();
    let gate = Gate::new(&s.repo, s.target, &s.settings);
    let status = |code: u16| {
        Err(CallError {
            message: format!("the server answered {code} Service Unavailable"),
            kind: ErrorKind::Http(code),
            requests: 1,
            endpoint: false,
        })
    };
    let scripts = [
        vec![reply(GROUNDED)],
        vec![reply(INVENTED), reply(GROUNDED)],
        vec![reply(INVENTED), reply(INVENTED)],
        vec![reply(INVENTED), status(503)],
        vec![status(429)],
    ];
    // The chunk as the trace names it, so the replay checks against what the model saw.
    let mut q = question();
    q.chunk_ids = vec!["src/cache.rs:1-2@0123456789ab".into()];
    let records: Vec<trace::Record> = (scripts.into_iter())
        .map(|script| ask(&Scripted::new(script), &gate, &q).record)
        .collect();
    let outcomes: Vec<Ended> = records.iter().map(|r| r.outcome).collect();
    use Ended::*;
    assert_eq!(outcomes, [Regrounded, Regrounded, Refused, Error, Error]);
    assert_eq!(records[3].attempts.len(), 1, "the failed reply is recorded");
    let text = trace::to_jsonl(&records);
    assert!(text.contains(r#""error_kind":"HTTP 503""#), "{text}");
    let t = trace::replay(&s.repo, &s.settings, &text);
    let counts = (t.passed_first, t.passed_after_repair, t.refused, t.errors);
    assert_eq!(counts, (1, 1, 1, 2), "{t:?}");
    let kinds: Vec<(&str, usize)> = (t.errors_by_kind.iter())
        .map(|(k, n)| (k.as_str(), *n))
        .collect();
    assert_eq!(kinds, [("HTTP 429", 1), ("HTTP 503", 1)]);
    assert_eq!((t.records, t.replies, t.verdicts_changed), (5, 6, 0));
    assert!(!t.incomplete());
}
