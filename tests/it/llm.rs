//! `citegate regenerate --llm` against a real HTTP server started here on 127.0.0.1 that speaks
//! the chat-completions protocol with scripted replies: the gate, exactly one repair, refusals,
//! retries that honour `Retry-After`, timeouts, the chaos test (retrieval emptied), traces and
//! `replay`, and the API key never printed, traced or written.

use crate::common;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use citegate::testing::Fixture;
use serde_json::{json, Value};

const KEY: &str = "sk-test-9f8e7d6c5b4a";

const SPEC: &str = r#"@@@ commit v1 code
@@@ file src/cache.rs
/// How long a cached response stays fresh.
pub const TTL_SECONDS: u64 = 30;

pub fn ttl() -> u64 {
    TTL_SECONDS
}
@@@ commit v2 an answer whose file is gone
@@@ file answers/ttl.json
{
  "question": "How long is the TTL?",
  "summary": "The TTL is 30 seconds.",
  "citations": [{"path": "src/old_cache.rs", "startLine": 1, "endLine": 1}]
}
"#;

const GROUNDED: &str = r#"{"summary": "The TTL is 30 seconds.", "citations": [{"path": "src/cache.rs", "startLine": 2, "endLine": 2, "quote": "pub const TTL_SECONDS: u64 = 30;"}]}"#;

/// One scripted reply: status, extra headers, the message content (or a raw body), a delay.
#[derive(Clone)]
struct Reply {
    status: u16,
    headers: Vec<(&'static str, &'static str)>,
    body: String,
    delay: Duration,
    /// Send the body one byte at a time, this far apart.
    drip: Option<Duration>,
}

fn content(text: &str) -> Reply {
    let body = json!({
        "choices": [{"message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20}
    });
    Reply {
        status: 200,
        headers: Vec::new(),
        body: body.to_string(),
        delay: Duration::ZERO,
        drip: None,
    }
}

fn status(code: u16, headers: Vec<(&'static str, &'static str)>) -> Reply {
    Reply {
        status: code,
        headers,
        body: "{\"error\": \"slow down\"}".into(),
        delay: Duration::ZERO,
        drip: None,
    }
}

/// A request as the server received it.
struct Seen {
    head: String,
    body: Value,
}

/// A real HTTP/1.1 server on 127.0.0.1 answering each request with the next scripted reply.
struct Server {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

fn serve(script: Vec<Reply>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        let mut script = script.into_iter();
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let reply = script.next().unwrap_or_else(|| status(500, Vec::new()));
            if let Some(s) = answer(stream, &reply) {
                log.lock().unwrap().push(s);
            }
        }
    });
    Server { url, seen }
}

fn answer(stream: TcpStream, reply: &Reply) -> Option<Seen> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 || line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let length = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().parse::<usize>())
        })
        .and_then(Result::ok)
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    std::thread::sleep(reply.delay);
    let mut out = format!(
        "HTTP/1.1 {} Scripted\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        reply.status,
        reply.body.len()
    );
    for (k, v) in &reply.headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    let mut stream = stream;
    match reply.drip {
        None => {
            out.push_str(&reply.body);
            let _ = stream.write_all(out.as_bytes());
        }
        Some(every) => {
            let _ = stream.write_all(out.as_bytes());
            for b in reply.body.bytes() {
                if stream.write_all(&[b]).and_then(|_| stream.flush()).is_err() {
                    break; // the client gave up
                }
                std::thread::sleep(every);
            }
        }
    }
    Some(Seen {
        head,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    })
}

struct Run {
    out: Value,
    stderr: String,
    doc: String,
    trace: String,
    elapsed: Duration,
}

fn regenerate(fixture: &Fixture, server: &Server, extra: &[&str]) -> Run {
    regenerate_doc(fixture, server, "answers/ttl.json", extra)
}

fn regenerate_doc(fixture: &Fixture, server: &Server, doc: &str, extra: &[&str]) -> Run {
    let (code, run) = regenerate_at(fixture, &server.url, doc, extra);
    assert_eq!(code, Some(0), "{}", run.stderr);
    run
}

/// `regenerate --llm URL` on `doc`, whatever it exits with; the key checked absent everywhere.
fn regenerate_at(fixture: &Fixture, url: &str, doc: &str, extra: &[&str]) -> (Option<i32>, Run) {
    let trace = fixture.path().join("trace.jsonl");
    let started = Instant::now();
    let out = common::command(fixture.path())
        .env("CITEGATE_API_KEY", KEY)
        .args(["regenerate", doc, "--write", "--format", "json", "--llm"])
        .arg(url)
        .args(["--model", "qwen2.5-coder", "--trace"])
        .arg(&trace)
        .args(extra)
        .output()
        .unwrap();
    let elapsed = started.elapsed();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let trace = std::fs::read_to_string(&trace).unwrap_or_default();
    for text in [&stdout, &stderr, &trace] {
        assert!(!text.contains(KEY), "the API key leaked");
    }
    let run = Run {
        out: serde_json::from_str(&stdout).unwrap_or(Value::Null),
        stderr,
        doc: read(fixture.path(), doc),
        trace,
        elapsed,
    };
    (out.status.code(), run)
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

/// `citegate replay trace.jsonl ARGS` in the fixture.
fn replay(fixture: &Fixture, args: &[&str]) -> String {
    let out = common::command(fixture.path())
        .args(["replay", "trace.jsonl"])
        .args(args)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

fn outcome(run: &Run) -> &Value {
    &run.out["outcomes"][0]
}

#[test]
fn a_grounded_reply_is_written_with_its_citations() {
    let fixture = Fixture::build(SPEC).unwrap();
    let server = serve(vec![content(GROUNDED)]);
    let run = regenerate(&fixture, &server, &[]);
    assert_eq!(outcome(&run)["outcome"], "regrounded");
    assert_eq!(outcome(&run)["model"], true);
    assert_eq!(outcome(&run)["citations"], json!(["src/cache.rs:2"]));
    assert_eq!(run.out["counts"]["model_calls"], 1);
    assert_eq!(run.out["counts"]["prompt_tokens"], 100);
    let doc: Value = serde_json::from_str(&run.doc).unwrap();
    assert_eq!(doc["citations"][0]["path"], "src/cache.rs");
    assert_eq!(
        doc["question"], "How long is the TTL?",
        "other fields are kept"
    );
    assert!(run.stderr.contains("1 model request"));

    let seen = server.seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    let request = &seen[0];
    assert!(request.head.starts_with("POST /v1/chat/completions "));
    assert!(request.head.to_ascii_lowercase().contains(&format!(
        "authorization: bearer {}",
        KEY.to_ascii_lowercase()
    )));
    assert_eq!(request.body["model"], "qwen2.5-coder");
    assert_eq!(request.body["response_format"]["type"], "json_schema");
    let schema = &request.body["response_format"]["json_schema"]["schema"];
    assert_eq!(schema["additionalProperties"], false);
    let messages = request.body["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "system");
    assert!(messages[0]["content"]
        .as_str()
        .unwrap()
        .contains("Never invent paths"));
    let user = messages[1]["content"].as_str().unwrap();
    assert!(user.contains("QUESTION:\nHow long is the TTL?"));
    assert!(
        user.contains("] src/cache.rs:1-2\n    1 | /// How long a cached response stays fresh.\n")
    );

    // The trace has the exchange; replay agrees with it.
    let record: Value = serde_json::from_str(run.trace.lines().next().unwrap()).unwrap();
    assert_eq!(record["outcome"], "regrounded");
    assert_eq!(record["attempts"][0]["passed"], true);
    assert!(record["retrieved"][0].as_str().unwrap().contains("@"));
    let t: Value = serde_json::from_str(&replay(&fixture, &["--json"])).unwrap();
    assert_eq!(
        (t["records"].clone(), t["passed_first"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(t["verdicts_changed"], 0);
}

#[test]
fn a_paraphrased_quote_gets_one_repair_turn_that_lists_it() {
    let fixture = Fixture::build(SPEC).unwrap();
    let paraphrase = GROUNDED.replace("pub const TTL_SECONDS: u64 = 30;", "TTL is thirty seconds");
    let server = serve(vec![content(&paraphrase), content(GROUNDED)]);
    let run = regenerate(&fixture, &server, &[]);
    assert_eq!(outcome(&run)["outcome"], "regrounded");
    assert_eq!(run.out["counts"]["model_calls"], 2);
    let seen = server.seen.lock().unwrap();
    let repair = seen[1].body["messages"].as_array().unwrap();
    assert_eq!(
        repair[0]["role"], "system",
        "the rules are restated on the repair turn"
    );
    assert_eq!(repair[2]["role"], "assistant");
    assert!(repair[3]["content"]
        .as_str()
        .unwrap()
        .contains("unsupported-quote (src/cache.rs:2)"));
    let text = replay(&fixture, &[]);
    assert!(text.contains("1 after the repair"), "{text}");
    assert!(text.contains("unsupported-quote    1"), "{text}");
}

#[test]
fn a_hallucinated_path_twice_is_refused_after_exactly_one_repair() {
    let fixture = Fixture::build(SPEC).unwrap();
    let invented = GROUNDED.replace("src/cache.rs", "src/ttl_config.rs");
    let server = serve(vec![
        content(&invented),
        content(&invented),
        content(GROUNDED),
    ]);
    let run = regenerate(&fixture, &server, &[]);
    assert_eq!(outcome(&run)["outcome"], "refused");
    assert_eq!(outcome(&run)["reason"], "no_span_in_retrieval");
    assert_eq!(outcome(&run)["violations"][0]["rule"], "invented-path");
    assert_eq!(
        server.seen.lock().unwrap().len(),
        2,
        "one repair, no third try"
    );
    assert!(
        !run.doc.contains("ttl_config"),
        "nothing that failed the gate is written"
    );
    let doc: Value = serde_json::from_str(&run.doc).unwrap();
    assert_eq!(doc["refuse"]["reason"], "no_span_in_retrieval");
    assert_eq!(doc["citations"], json!([]));
    assert_eq!(doc["stale"]["summary"], "The TTL is 30 seconds.");
}

#[test]
fn malformed_json_from_the_model_is_a_violation_not_an_answer() {
    let fixture = Fixture::build(SPEC).unwrap();
    let server = serve(vec![
        content("{\"summary\": \"The TTL"),
        content("Sure! The TTL is 30."),
    ]);
    let run = regenerate(&fixture, &server, &[]);
    assert_eq!(outcome(&run)["outcome"], "refused");
    assert_eq!(outcome(&run)["violations"][0]["rule"], "malformed-doc");
    assert!(run.trace.contains("\"raw\":\"Sure! The TTL is 30.\""));
}

#[test]
fn too_many_requests_waits_for_retry_after_then_succeeds() {
    let fixture = Fixture::build(SPEC).unwrap();
    let server = serve(vec![
        status(429, vec![("Retry-After", "1")]),
        content(GROUNDED),
    ]);
    let run = regenerate(&fixture, &server, &[]);
    assert_eq!(outcome(&run)["outcome"], "regrounded");
    assert_eq!(run.out["counts"]["model_calls"], 2);
    assert!(
        run.elapsed >= Duration::from_secs(1),
        "Retry-After was honoured"
    );
}

#[test]
fn a_model_that_does_not_answer_in_time_leaves_the_answer_refused() {
    let fixture = Fixture::build(SPEC).unwrap();
    let mut slow = content(GROUNDED);
    slow.delay = Duration::from_secs(4);
    let server = serve(vec![slow]);
    let run = regenerate(&fixture, &server, &["--timeout", "1", "--retries", "0"]);
    assert_eq!(outcome(&run)["outcome"], "refused");
    assert!(outcome(&run)["why"]
        .as_str()
        .unwrap()
        .contains("the model gave no answer"));
    let doc: Value = serde_json::from_str(&run.doc).unwrap();
    assert_eq!(doc["citations"], json!([]));
    assert!(run.trace.contains("\"outcome\":\"error\""));
}

#[test]
fn chaos_retrieval_emptied_means_refusal_never_an_answer() {
    let fixture = Fixture::build(SPEC).unwrap();
    // The model "knows" the right answer, but nothing was retrieved: cited ⊄ retrieved.
    let server = serve(vec![content(GROUNDED), content(GROUNDED)]);
    let run = regenerate(&fixture, &server, &["--top-k", "0"]);
    assert_eq!(outcome(&run)["outcome"], "refused");
    assert_eq!(outcome(&run)["violations"][0]["rule"], "not-retrieved");
    let doc: Value = serde_json::from_str(&run.doc).unwrap();
    assert_eq!(doc["citations"], json!([]));
    assert!(doc.get("refuse").is_some());
}

const WIKI: &str = "@@@ commit v1 code
@@@ file src/cache.rs
/// How long a cached response stays fresh.
pub const TTL_SECONDS: u64 = 30;
@@@ commit v2 a wiki page
@@@ file docs/ttl.md
# Cache

The cache keeps a response for `TTL_SECONDS: u64 = 30`
seconds (src/old_cache.rs:1).

Unrelated text stays.
";

#[test]
fn a_markdown_paragraph_is_rewritten_by_the_model_and_gated() {
    let fixture = Fixture::build(WIKI).unwrap();
    let rewrite = r#"{"paragraph": "The cache keeps a response for `TTL_SECONDS: u64 = 30`\nseconds (src/cache.rs:2)."}"#;
    let server = serve(vec![content(rewrite)]);
    let run = regenerate_doc(&fixture, &server, "docs/ttl.md", &[]);
    assert_eq!(outcome(&run)["outcome"], "regrounded");
    assert_eq!(outcome(&run)["model"], true);
    assert_eq!(outcome(&run)["citations"], json!(["src/cache.rs:2"]));
    assert_eq!(
        run.doc,
        "# Cache\n\nThe cache keeps a response for `TTL_SECONDS: u64 = 30`\nseconds (src/cache.rs:2).\n\nUnrelated text stays.\n"
    );
    let seen = server.seen.lock().unwrap();
    let user = seen[0].body["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.starts_with("PARAGRAPH:\nThe cache keeps a response"),
        "{user}"
    );
    let record: Value = serde_json::from_str(run.trace.lines().next().unwrap()).unwrap();
    assert_eq!(record["subject"], "paragraph");
}

#[test]
fn a_paragraph_rewrite_that_fails_twice_leaves_the_paragraph_as_written() {
    let fixture = Fixture::build(WIKI).unwrap();
    let uncited = r#"{"paragraph": "The cache keeps responses for a while."}"#;
    let wrong = r#"{"paragraph": "The TTL is `TTL_SECONDS: u64 = 300` (src/cache.rs:2)."}"#;
    let server = serve(vec![content(uncited), content(wrong)]);
    let run = regenerate_doc(&fixture, &server, "docs/ttl.md", &[]);
    assert_eq!(outcome(&run)["outcome"], "refused");
    assert_eq!(
        outcome(&run)["violations"][0]["rule"],
        "unsupported-literal"
    );
    assert!(
        run.doc.contains("seconds (src/old_cache.rs:1)."),
        "left as written"
    );
    let seen = server.seen.lock().unwrap();
    let repair = seen[1].body["messages"][3]["content"].as_str().unwrap();
    assert!(
        repair.contains("uncited-claim: the paragraph cites nothing"),
        "{repair}"
    );
    drop(seen);
    let t: Value = serde_json::from_str(&replay(&fixture, &["--json"])).unwrap();
    assert_eq!(t["refused"], 1);
    assert_eq!(t["violations"]["uncited-claim"], 1);
    assert_eq!(t["verdicts_changed"], 0);
}

#[test]
fn a_reply_without_end_is_cut_off_and_the_answer_refused() {
    let fixture = Fixture::build(SPEC).unwrap();
    let mut huge = content(GROUNDED);
    huge.body = format!("{{\"pad\": \"{}\"}}", "x".repeat(17 << 20));
    let server = serve(vec![huge]);
    let run = regenerate(&fixture, &server, &["--retries", "0"]);
    assert_eq!(outcome(&run)["outcome"], "refused");
    let why = outcome(&run)["why"].as_str().unwrap();
    assert!(why.contains("larger than 16 MiB"), "{why}");
}

#[test]
fn retry_after_as_an_http_date_is_honoured_too() {
    let fixture = Fixture::build(SPEC).unwrap();
    let at = std::time::SystemTime::now() + Duration::from_secs(2);
    let date: &'static str = Box::leak(httpdate::fmt_http_date(at).into_boxed_str());
    let server = serve(vec![
        status(503, vec![("Retry-After", date)]),
        content(GROUNDED),
    ]);
    let run = regenerate(&fixture, &server, &[]);
    assert_eq!(outcome(&run)["outcome"], "regrounded");
    assert_eq!(run.out["counts"]["model_calls"], 2);
    // The date has whole seconds: the wait is between one and two of them.
    assert!(run.elapsed >= Duration::from_secs(1), "{:?}", run.elapsed);
}

#[test]
fn model_concurrency_and_retries_are_bounded_before_anything_runs() {
    for args in [["--concurrency", "100000"], ["--retries", "1000"]] {
        let out = Command::cargo_bin("citegate")
            .unwrap()
            .args([
                "regenerate",
                "--llm",
                "http://127.0.0.1:9/v1",
                "--model",
                "m",
            ])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("is not in"));
    }
}

/// Issue 20: `--timeout` is a deadline for the whole request: a server that sends one byte per
/// second is cut at the timeout, not when it stops.
#[test]
fn a_dripping_server_is_cut_at_the_timeout() {
    let fixture = Fixture::build(SPEC).unwrap();
    let mut drip = content(GROUNDED);
    drip.drip = Some(Duration::from_millis(500));
    let server = serve(vec![drip]);
    let run = regenerate(&fixture, &server, &["--timeout", "2", "--retries", "0"]);
    assert!(run.elapsed < Duration::from_secs(6), "{:?}", run.elapsed);
    assert_eq!(outcome(&run)["outcome"], "refused");
    assert!(run.trace.contains("timed out after 2 s"), "{}", run.trace);
}

/// Errors say what happened: the status with the start of the body, connection refused.
#[test]
fn errors_say_what_happened() {
    let fixture = Fixture::build(SPEC).unwrap();
    let explained = Reply {
        status: 400,
        headers: Vec::new(),
        body: r#"{"error": {"message": "Invalid schema for response_format: extra required key"}}"#
            .into(),
        delay: Duration::ZERO,
        drip: None,
    };
    let server = serve(vec![explained]);
    let run = regenerate(&fixture, &server, &["--retries", "0"]);
    assert!(run.trace.contains("400"), "{}", run.trace);
    assert!(
        run.trace.contains("Invalid schema for response_format"),
        "{}",
        run.trace
    );
    // Nothing listening: connection refused, and the run could not complete (exit 2).
    let fixture = Fixture::build(SPEC).unwrap();
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", closed.local_addr().unwrap());
    drop(closed);
    let (code, run) = regenerate_at(&fixture, &url, "answers/ttl.json", &["--retries", "0"]);
    assert_eq!(code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("model endpoint failed: connection refused"),
        "{}",
        run.stderr
    );
}

/// Credentials refused is the endpoint failing: exit 2, nothing more asked.
#[test]
fn an_auth_failure_exits_2() {
    let fixture = Fixture::build(SPEC).unwrap();
    let server = serve(vec![status(401, Vec::new())]);
    let (code, run) = regenerate_at(&fixture, &server.url, "answers/ttl.json", &[]);
    assert_eq!(code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("401"), "{}", run.stderr);
    assert_eq!(server.seen.lock().unwrap().len(), 1, "a 401 is not retried");
}

/// `--llm` must be an http(s) URL, checked before any work.
#[test]
fn the_llm_url_is_checked_first() {
    let fixture = Fixture::build(SPEC).unwrap();
    for url in ["ftp://127.0.0.1/v1", "127.0.0.1:11434/v1", "http://"] {
        let out = common::command(fixture.path())
            .args(["regenerate", "answers", "--llm", url, "--model", "m"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{url}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--llm"), "{url}: {err}");
    }
}

/// A reply in one ```json fence, or led by a <think> block, is unwrapped; a reply holding the
/// key is refused, and the key is written nowhere (checked by `regenerate_at`).
#[test]
fn fenced_and_thinking_replies_are_read_and_a_reply_with_the_key_is_refused() {
    for wrapped in [
        format!("```json\n{GROUNDED}\n```"),
        format!("<think>The TTL lives in src/cache.rs.</think>\n{GROUNDED}"),
    ] {
        let fixture = Fixture::build(SPEC).unwrap();
        let server = serve(vec![content(&wrapped)]);
        let run = regenerate(&fixture, &server, &[]);
        assert_eq!(outcome(&run)["outcome"], "regrounded", "{wrapped}");
    }
    let fixture = Fixture::build(SPEC).unwrap();
    let leaky = GROUNDED.replace("The TTL is 30 seconds.", &format!("Key: {KEY}"));
    let server = serve(vec![content(&leaky)]);
    let run = regenerate(&fixture, &server, &[]);
    assert_eq!(outcome(&run)["outcome"], "refused");
    assert!(run.trace.contains("contains the API key"), "{}", run.trace);
}

/// A reply is held to the schema it was sent: a citation without its quote, or with a key the
/// schema does not have, is a violation (repaired once, then refused), never written.
#[test]
fn a_reply_outside_the_schema_is_never_written() {
    let fixture = Fixture::build(SPEC).unwrap();
    let no_quote = r#"{"summary": "The TTL is 30 seconds.", "citations": [{"path": "src/cache.rs", "startLine": 2, "endLine": 2}]}"#;
    let extra = GROUNDED.replace("\"quote\"", "\"score\": 1, \"quote\"");
    let server = serve(vec![content(no_quote), content(&extra)]);
    let run = regenerate(&fixture, &server, &[]);
    assert_eq!(outcome(&run)["outcome"], "refused");
    let t: Value = serde_json::from_str(run.trace.lines().next().unwrap()).unwrap();
    let first = t["attempts"][0]["violations"][0]["message"]
        .as_str()
        .unwrap();
    assert!(first.contains("`quote` is missing"), "{first}");
    let second = t["attempts"][1]["violations"][0]["message"]
        .as_str()
        .unwrap();
    assert!(second.contains("`score` is not in the schema"), "{second}");
    assert!(!run.doc.contains("\"score\""));
    // The schema sent is valid for strict structured outputs: no anyOf at the root, every
    // property required, `refuse` nullable.
    let seen = server.seen.lock().unwrap();
    let schema = &seen[0].body["response_format"]["json_schema"]["schema"];
    assert!(schema.get("anyOf").is_none());
    assert_eq!(
        schema["required"],
        json!(["summary", "citations", "refuse"])
    );
    assert_eq!(
        schema["properties"]["refuse"]["type"],
        json!(["object", "null"])
    );
}

/// `--fail-on refused` exits 1 when anything was refused; the diff lists each refusal's reason.
#[test]
fn fail_on_refused_exits_1_and_refusals_are_listed() {
    let fixture = Fixture::build(SPEC).unwrap();
    let invented = GROUNDED.replace("src/cache.rs", "src/ttl_config.rs");
    let server = serve(vec![content(&invented), content(&invented)]);
    let (code, run) = regenerate_at(
        &fixture,
        &server.url,
        "answers/ttl.json",
        &["--fail-on", "refused"],
    );
    assert_eq!(code, Some(1), "{}", run.stderr);
    // Offline, in diff mode (nothing written): the refusal is listed with its reason.
    let fixture = Fixture::build(SPEC).unwrap();
    let out = common::command(fixture.path())
        .args(["regenerate", "answers/ttl.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("refused: answers/ttl.json answer 0: "),
        "{err}"
    );
}

/// `replay` counts the model's own refusal as a refusal, breaks errors down by kind, exits 1
/// when a verdict differs from the recorded one, and says when the trace is from elsewhere.
#[test]
fn replay_counts_refusals_and_errors_and_fails_on_a_changed_verdict() {
    let fixture = Fixture::build(SPEC).unwrap();
    let refusal =
        r#"{"summary": "", "citations": [], "refuse": {"reason": "no_span_in_retrieval"}}"#;
    let server = serve(vec![content(refusal)]);
    let run = regenerate(&fixture, &server, &[]);
    assert_eq!(outcome(&run)["outcome"], "refused");
    let t: Value = serde_json::from_str(&replay(&fixture, &["--json"])).unwrap();
    assert_eq!(
        (t["refused"].clone(), t["model_refused"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(t["passed_first"], 0);

    let fixture = Fixture::build(SPEC).unwrap();
    let server = serve(vec![status(401, Vec::new())]);
    let (code, _) = regenerate_at(&fixture, &server.url, "answers/ttl.json", &[]);
    assert_eq!(code, Some(2));
    let t: Value = serde_json::from_str(&replay(&fixture, &["--json"])).unwrap();
    assert_eq!(t["errors_by_kind"], json!({"HTTP 401": 1}));

    // A recorded verdict the gate no longer gives, from another repository.
    let fixture = Fixture::build(SPEC).unwrap();
    let server = serve(vec![content(GROUNDED)]);
    regenerate(&fixture, &server, &[]);
    let path = fixture.path().join("trace.jsonl");
    let mut record: Value = serde_json::from_str(&read(fixture.path(), "trace.jsonl")).unwrap();
    record["attempts"][0]["passed"] = json!(false);
    record["repository"] = json!("github.com/someone/else");
    std::fs::write(&path, format!("{record}\n")).unwrap();
    let out = common::command(fixture.path())
        .args(["replay", "trace.jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("1 replies get another verdict"), "{text}");
    assert!(
        text.contains("written in github.com/someone/else, not this repository"),
        "{text}"
    );
}

/// A paragraph rewrite adds no link the paragraph did not have (a model's URL, or a link into
/// the repository instead of a `path:start-end` citation); replay gives the same verdict.
#[test]
fn a_paragraph_rewrite_adds_no_link() {
    let fixture = Fixture::build(WIKI).unwrap();
    let linked = r#"{"paragraph": "The cache keeps a response for `TTL_SECONDS: u64 = 30`\nseconds (src/cache.rs:2), see https://example.com/ttl-docs."}"#;
    let into_repo = r#"{"paragraph": "The cache keeps a response for `TTL_SECONDS: u64 = 30`\nseconds (src/cache.rs:2, [the code](src/cache.rs#L2))."}"#;
    let server = serve(vec![content(linked), content(into_repo)]);
    let run = regenerate_doc(&fixture, &server, "docs/ttl.md", &[]);
    assert_eq!(outcome(&run)["outcome"], "refused");
    assert!(
        run.doc.contains("seconds (src/old_cache.rs:1)."),
        "left as written"
    );
    let record: Value = serde_json::from_str(run.trace.lines().next().unwrap()).unwrap();
    let first = record["attempts"][0]["violations"].to_string();
    assert!(
        first.contains("adds a link the paragraph did not have: `https://example.com/ttl-docs`"),
        "{first}"
    );
    let second = record["attempts"][1]["violations"].to_string();
    assert!(second.contains("`src/cache.rs#L2`"), "{second}");
    let t: Value = serde_json::from_str(&replay(&fixture, &["--json"])).unwrap();
    assert_eq!(t["verdicts_changed"], 0);
}

/// A TLS failure says so: `https://` to a server that does not speak TLS.
#[test]
fn a_tls_failure_says_so() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("https://{}/v1", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
        }
    });
    let fixture = Fixture::build(SPEC).unwrap();
    let (code, run) = regenerate_at(&fixture, &url, "answers/ttl.json", &["--retries", "0"]);
    assert_eq!(code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("TLS failed"), "{}", run.stderr);
}

/// A hand-written trace record: `attempts` as given, `outcome`, and an `error` (with its kind
/// when `kind` is given; traces written before `error_kind` was recorded have none).
fn record(
    revision: &str,
    attempts: Value,
    outcome: &str,
    error: Option<&str>,
    kind: Option<&str>,
) -> String {
    let mut r = json!({
        "trace_id": "t", "doc": "answers/ttl.json", "answer": 0, "revision": revision,
        "query": "How long is the TTL?", "retrieved": ["src/cache.rs:1-6@0123456789ab"],
        "model": "m", "prompt_hash": "h", "attempts": attempts, "outcome": outcome,
    });
    if let Some(e) = error {
        r["error"] = json!(e);
    }
    if let Some(k) = kind {
        r["error_kind"] = json!(k);
    }
    r.to_string() + "\n"
}

/// Issue 31: `replay` counts errors by kind (the recorded `error_kind`, else read from the
/// message of an older trace: timeout, HTTP status, oversize, connection), a repair without a
/// reply as an error, and a trace whose revisions this repository does not have lists them
/// and exits 2: its taxonomy is not the whole trace's.
#[test]
fn replay_counts_errors_by_kind_and_names_revisions_it_does_not_have() {
    let fixture = Fixture::build(SPEC).unwrap();
    let v2 = fixture.substitute("{{rev:v2}}").unwrap();
    let failing = json!([{"repair": false, "raw": "not json", "passed": false,
        "violations": [{"rule": "malformed-doc", "message": "the reply is not JSON"}]}]);
    let grounded = json!([{"repair": false, "raw": GROUNDED, "passed": true}]);
    let mut trace = String::new();
    trace += &record(&v2, grounded, "regrounded", None, None);
    trace += &record(
        &v2,
        json!([]),
        "error",
        Some("timed out after 60 s (--timeout)"),
        None,
    );
    trace += &record(
        &v2,
        json!([]),
        "error",
        Some("the reply is larger than 16 MiB"),
        None,
    );
    trace += &record(
        &v2,
        json!([]),
        "error",
        Some("connection refused: tcp connect error"),
        None,
    );
    trace += &record(
        &v2,
        json!([]),
        "error",
        Some("the server answered 503"),
        None,
    );
    trace += &record(
        &v2,
        failing,
        "error",
        Some("the server answered 429"),
        Some("HTTP 429"),
    );
    std::fs::write(fixture.path().join("trace.jsonl"), &trace).unwrap();
    let t: Value = serde_json::from_str(&replay(&fixture, &["--json"])).unwrap();
    assert_eq!(
        t["errors_by_kind"],
        json!({"HTTP 429": 1, "HTTP 503": 1, "connection": 1, "oversize": 1, "timeout": 1}),
        "{t:#}"
    );
    let counts = [
        &t["passed_first"],
        &t["refused"],
        &t["errors"],
        &t["records"],
    ];
    assert_eq!(counts, [1, 0, 5, 6], "{t:#}");
    let out = common::command(fixture.path())
        .args(["replay", "trace.jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));

    let gone = "0123456789abcdef0123456789abcdef01234567";
    trace += &record(gone, json!([]), "error", Some("timed out"), Some("timeout"));
    trace += &record(gone, json!([]), "error", Some("timed out"), Some("timeout"));
    std::fs::write(fixture.path().join("trace.jsonl"), &trace).unwrap();
    let out = common::command(fixture.path())
        .args(["replay", "trace.jsonl"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains(&format!("revisions not in this repository: {gone}\n")),
        "{stdout}"
    );
    let t: Value = serde_json::from_str(&replay(&fixture, &["--json"])).unwrap();
    assert_eq!(t["missing_revisions"], json!([gone]));
    assert_eq!(t["records"], 6, "the others are replayed");
}
