//! `citegate mcp` talked to by a real MCP client nobody here wrote: the official Python SDK
//! (`mcp` on PyPI, installed by `.ci/run`), driven by `tests/mcp/client.py`.

use crate::common;

use std::path::Path;
use std::process::Command;

use citegate::testing::Fixture;
use serde_json::{json, Value};

pub(crate) const SPEC: &str = "@@@ remote origin https://github.com/acme/shop.git
@@@ commit v1 code
@@@ file src/cache.rs
/// How long a cached response stays fresh.
pub const TTL_SECONDS: u64 = 30;

pub fn ttl() -> u64 {
    TTL_SECONDS
}
@@@ file docs/ttl.md
The TTL is set in src/cache.rs:2, and read in src/cache.rs:9.
";

/// Run the Python client against `citegate mcp` in a fixture repository (its default calls).
fn session() -> (Fixture, Value) {
    let fixture = Fixture::build(SPEC).unwrap();
    let report = client(fixture.path(), None);
    (fixture, report)
}

/// Run the Python client against `citegate mcp` in `repo`: its default calls, or `calls`
/// (`{"NAME": {"tool", "arguments"}}`, or `{"NAME": {"tool", "cli": ["key=value"]}}`).
fn client(repo: &Path, calls: Option<Value>) -> Value {
    let script = tempfile::NamedTempFile::new().unwrap();
    let mut command = Command::new("python3");
    command
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp/client.py"))
        .arg(env!("CARGO_BIN_EXE_citegate"))
        .arg(repo);
    if let Some(calls) = calls {
        std::fs::write(script.path(), calls.to_string()).unwrap();
        command.arg(script.path());
    }
    let out = command.output().expect("python3 runs");
    assert!(
        out.status.success(),
        "the MCP client failed (is `mcp` installed? .ci/run installs it): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_real_mcp_client_lists_and_calls_the_four_tools() {
    let (fixture, r) = session();
    // Nothing written, not even the retrieval cache `citegate retrieve` keeps under `.git/`:
    // the server keeps its index in memory.
    assert!(
        r["retrieve"]["body"]["chunks"][0]["citation"].is_string(),
        "{}",
        r["retrieve"]
    );
    let cache = fixture.path().join(".git/citegate");
    let written: Vec<_> = std::fs::read_dir(&cache).into_iter().flatten().collect();
    assert!(written.is_empty(), "{written:?}");
    assert_eq!(
        r["tools"],
        serde_json::json!(["check_answer", "check_docs", "cite", "retrieve"])
    );
    // The whole tool list is small (README "Agents" records its size).
    let listed = r["tool_list_json"].as_str().unwrap();
    assert!(listed.len() < 6_000, "{} bytes", listed.len());
    // `cite` tells the agent its bounds, as the server applies them.
    let (min, max) = (citegate::mcp::MIN_QUOTE_CHARS, citegate::mcp::MAX_PLACES);
    assert!(listed.contains(&format!("a quote ({min} characters or more)")));
    assert!(listed.contains(&format!("(the first {max})")));

    // check_answer: the same verdicts as `citegate gate`.
    assert_eq!(r["grounded"]["body"]["passed"], true, "{}", r["grounded"]);
    assert_eq!(r["invented"]["body"]["passed"], false);
    assert_eq!(
        r["invented"]["body"]["violations"][0]["rule"],
        "invented-path"
    );
    assert_eq!(
        r["invented"]["body"]["refusal"]["refuse"]["reason"],
        "no_span_in_retrieval"
    );
    assert_eq!(r["broken_answer"]["body"]["passed"], false);
    assert_eq!(r["bad_payload"]["error"], true, "{}", r["bad_payload"]);
    for (answer, passed) in [("grounded", true), ("invented", false)] {
        let text = match answer {
            "grounded" => {
                r#"{"summary": "The TTL is 30 seconds.", "citations": [{"path": "src/cache.rs", "startLine": 2, "endLine": 2, "quote": "pub const TTL_SECONDS: u64 = 30;"}]}"#
            }
            _ => {
                r#"{"summary": "The TTL is 30 seconds.", "citations": [{"path": "src/ttl.rs", "startLine": 2, "endLine": 2, "quote": "TTL"}]}"#
            }
        };
        std::fs::write(
            fixture.path().join("r.json"),
            r#"[{"path": "src/cache.rs", "start_line": 1, "end_line": 7}]"#,
        )
        .unwrap();
        let gate = common::command(fixture.path())
            .args(["gate", "--retrieved", "r.json"])
            .write_stdin(text)
            .output()
            .unwrap();
        assert_eq!(
            gate.status.success(),
            passed,
            "gate and MCP agree on {answer}"
        );
    }

    // cite: exact lines, a citation the audit then passes, and the permalink.
    let cited = &r["cite_lines"]["body"];
    assert_eq!(cited["text"], "pub const TTL_SECONDS: u64 = 30;");
    assert_eq!(cited["citation"], "src/cache.rs:2");
    assert!(cited["permalink"]
        .as_str()
        .unwrap()
        .starts_with("https://github.com/acme/shop/blob/"));
    std::fs::write(
        fixture.path().join("docs/cited.md"),
        format!("The TTL: {}.\n", cited["citation"].as_str().unwrap()),
    )
    .unwrap();
    let audit = common::command(fixture.path())
        .args(["audit", "docs/cited.md"])
        .output()
        .unwrap();
    assert_eq!(audit.status.code(), Some(0));
    assert_eq!(r["cite_quote"]["body"]["count"], 1);
    assert_eq!(
        r["cite_quote"]["body"]["places"][0]["citation"],
        "src/cache.rs:4"
    );
    assert_eq!(r["cite_outside"]["error"], true);
    assert_eq!(r["cite_past_end"]["error"], true);

    // check_docs: the audit's findings, for paths or a doc's text; nothing outside the repository.
    let docs = &r["docs"]["body"];
    assert_eq!(docs["findings"][0]["rule"], "invented-lines", "{docs}");
    assert_eq!(
        r["doc_text"]["body"]["findings"][0]["rule"],
        "invented-lines"
    );
    assert_eq!(r["docs_outside"]["error"], true);

    // retrieve: chunks with their text, the TTL's first.
    let chunks = r["retrieve"]["body"]["chunks"].as_array().unwrap();
    assert!(!chunks.is_empty() && chunks.len() <= 2);
    assert!(chunks[0]["citation"]
        .as_str()
        .unwrap()
        .starts_with("src/cache.rs:"));
    assert_eq!(r["retrieve_empty"]["error"], true);
}

/// Issue 31: the server names itself, not the MCP library it is built on.
#[test]
fn the_server_names_citegate_and_its_version() {
    let (_fixture, r) = session();
    assert_eq!(r["server_info"]["name"], "citegate", "{}", r["server_info"]);
    assert_eq!(r["server_info"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(r["instructions"].as_str().unwrap().contains("check_answer"));
}

/// A strict function-calling schema, the subset OpenAI strict mode, Gemini and the MCP
/// Inspector's form filling all read: one `type` string per property, typed `items`, no
/// null, `anyOf`, `oneOf`, `allOf` or `$ref`, and `required` naming only real properties.
fn strict(schema: &Value, at: &str) -> Result<(), String> {
    const TYPES: [&str; 6] = ["string", "integer", "number", "boolean", "object", "array"];
    let object = schema.as_object().ok_or(format!("{at}: not an object"))?;
    for banned in ["anyOf", "oneOf", "allOf", "$ref", "$defs", "nullable"] {
        if object.contains_key(banned) {
            return Err(format!("{at}: `{banned}`"));
        }
    }
    let kind = object.get("type").and_then(Value::as_str);
    let kind = kind.filter(|k| TYPES.contains(k));
    let kind = kind.ok_or(format!("{at}: `type` is {:?}", object.get("type")))?;
    if object.get("default").is_some_and(Value::is_null) {
        return Err(format!("{at}: a null default"));
    }
    if kind == "array" {
        strict(
            object.get("items").unwrap_or(&Value::Null),
            &format!("{at}.items"),
        )?;
    }
    let properties = object.get("properties").and_then(Value::as_object);
    for (name, property) in properties.into_iter().flatten() {
        strict(property, &format!("{at}.{name}"))?;
    }
    for name in object
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = name
            .as_str()
            .ok_or(format!("{at}: `required` holds {name}"))?;
        if !properties.is_some_and(|p| p.contains_key(name)) {
            return Err(format!("{at}: `{name}` is required but no property"));
        }
    }
    Ok(())
}

#[test]
fn the_strict_subset_rejects_what_strict_clients_reject() {
    let nullable = json!({"type": "object", "properties": {"k": {"type": ["integer", "null"]}}});
    assert!(strict(&nullable, "t").is_err());
    let untyped = json!({"type": "object", "properties": {"answer": {"description": "x"}}});
    assert!(strict(&untyped, "t").is_err());
    let any = json!({"type": "object", "properties": {"r": {"anyOf": [{"type": "array"}]}}});
    assert!(strict(&any, "t").is_err());
    let items = json!({"type": "object", "properties": {"r": {"type": "array", "items": true}}});
    assert!(strict(&items, "t").is_err());
    let required = json!({"type": "object", "properties": {}, "required": ["x"]});
    assert!(strict(&required, "t").is_err());
}

/// Issue 31: every tool parameter has one concrete JSON type, so a strict client can call it and
/// a form-filling one (the MCP Inspector's command line) can turn `start_line=2` into a number.
#[test]
fn every_tool_parameter_has_a_concrete_type() {
    let fixture = Fixture::build(SPEC).unwrap();
    let calls = json!({
        "cite": {"tool": "cite", "cli": ["path=src/cache.rs", "start_line=2", "end_line=2"]},
        "retrieve": {"tool": "retrieve", "cli": ["question=cache TTL", "k=1"]},
        "gate": {"tool": "check_answer", "cli": [
            format!("answer={}", json!({"summary": "30 s", "citations": [{"path": "src/cache.rs",
                "startLine": 2, "endLine": 2, "quote": "pub const TTL_SECONDS: u64 = 30;"}]})),
            r#"retrieved=[{"path": "src/cache.rs", "start_line": 1, "end_line": 2}]"#.to_string(),
            "no_retrieval=false".to_string(),
        ]},
    });
    let r = client(fixture.path(), Some(calls));
    let schemas = r["schemas"].as_object().unwrap();
    assert_eq!(schemas.len(), 4);
    for (tool, schema) in schemas {
        strict(schema, tool).unwrap_or_else(|e| panic!("{e}: {schema}"));
    }
    let answer = &schemas["check_answer"]["properties"];
    assert_eq!(answer["answer"]["type"], "object");
    assert_eq!(answer["retrieved"]["items"]["type"], "object");
    assert_eq!(
        r["cite"]["arguments"]["start_line"], 2,
        "a number, not \"2\""
    );
    assert_eq!(
        r["cite"]["body"]["text"], "pub const TTL_SECONDS: u64 = 30;",
        "{}",
        r["cite"]
    );
    assert_eq!(r["retrieve"]["body"]["chunks"].as_array().unwrap().len(), 1);
    assert_eq!(r["gate"]["body"]["passed"], true, "{}", r["gate"]);
}

/// The answer as JSON text (`answer_json`, as received: a key written twice shows), or as an
/// object; one of the two.
#[test]
fn an_answer_is_given_as_an_object_or_as_its_text() {
    let fixture = Fixture::build(SPEC).unwrap();
    let retrieved = json!([{"path": "src/cache.rs", "start_line": 1, "end_line": 7}]);
    let twice = r#"{"summary": "s", "citations": [], "citations": [{"path": "src/cache.rs", "startLine": 2, "endLine": 2, "quote": "pub const TTL_SECONDS: u64 = 30;"}]}"#;
    let calls = json!({
        "text": {"tool": "check_answer", "arguments": {"answer_json": twice, "retrieved": retrieved}},
        "neither": {"tool": "check_answer", "arguments": {"retrieved": retrieved}},
        "both": {"tool": "check_answer", "arguments": {"answer": {}, "answer_json": "{}"}},
    });
    let r = client(fixture.path(), Some(calls));
    assert_eq!(r["text"]["body"]["passed"], false, "{}", r["text"]);
    assert_eq!(r["text"]["body"]["violations"][0]["rule"], "malformed-doc");
    assert_eq!(r["neither"]["error"], true);
    assert_eq!(r["both"]["error"], true);
}

/// Issue 31: an answer without retrieval is told what to pass in this surface's own words (tool
/// parameters), not the command line's flags.
#[test]
fn a_missing_retrieval_names_the_tool_parameters() {
    let fixture = Fixture::build(SPEC).unwrap();
    let answer = json!({"summary": "30 s", "citations": [{"path": "src/cache.rs", "startLine": 2,
        "endLine": 2, "quote": "pub const TTL_SECONDS: u64 = 30;"}]});
    let calls = json!({
        "bare": {"tool": "check_answer", "arguments": {"answer": answer}},
        "code_only": {"tool": "check_answer", "arguments": {"answer": answer, "no_retrieval": true}},
    });
    let r = client(fixture.path(), Some(calls));
    let v = &r["bare"]["body"]["violations"][0];
    assert_eq!(v["rule"], "not-retrieved", "{}", r["bare"]);
    let message = v["message"].as_str().unwrap();
    assert!(message.contains("parameter `retrieved`"), "{message}");
    assert!(message.contains("`no_retrieval`"), "{message}");
    assert!(
        !message.contains("--"),
        "no command line flag over MCP: {message}"
    );
    assert_eq!(r["code_only"]["body"]["passed"], true, "{}", r["code_only"]);
    // The command line keeps naming its flags.
    let gate = common::command(fixture.path())
        .arg("gate")
        .write_stdin(answer.to_string())
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&gate.stdout);
    assert!(
        out.contains("`--retrieved FILE`") && out.contains("`--no-retrieval`"),
        "{out}"
    );
}

/// Issue 31: the answers of `tests/cases/refusals.case`, over MCP: the audit's and the gate's
/// verdicts (a valid refusal passes whatever its summary says; a refusal that also cites fails on
/// its invented citation; a `refuse` that is none is `malformed-doc`).
#[test]
fn a_refusal_is_a_refusal_over_mcp() {
    let (spec, answers) = common::refusal_answers();
    let fixture = Fixture::build(&spec).unwrap();
    let retrieved = json!([{"path": "src/cache.rs", "start_line": 1, "end_line": 1}]);
    let calls: serde_json::Map<String, Value> = (answers.iter().enumerate())
        .map(|(i, a)| {
            let answer: Value = serde_json::from_str(a).unwrap();
            let args = json!({"answer": answer, "retrieved": retrieved});
            (
                format!("a{i}"),
                json!({"tool": "check_answer", "arguments": args}),
            )
        })
        .collect();
    let r = client(fixture.path(), Some(Value::Object(calls)));
    let body = |i: usize| &r[format!("a{i}")]["body"];
    assert_eq!(body(0)["passed"], true, "{}", body(0));
    assert_eq!(body(1)["passed"], true, "{}", body(1));
    assert_eq!(body(2)["passed"], false);
    let violations = body(2)["violations"].as_array().unwrap();
    assert!(
        violations.iter().any(|v| v["rule"] == "invented-path"),
        "{}",
        body(2)
    );
    assert!(
        violations.iter().all(|v| v["citation"] == "src/nope.rs:1"),
        "{}",
        body(2)
    );
    for i in 3..6 {
        let rules: Vec<&Value> = body(i)["violations"].as_array().unwrap().iter().collect();
        assert_eq!(body(i)["passed"], false);
        assert!(
            rules.iter().all(|v| v["rule"] == "malformed-doc"),
            "{}",
            body(i)
        );
        assert!(
            !body(i).to_string().contains("nor a refusal"),
            "{}",
            body(i)
        );
    }
}

const MOVED: &str = "@@@ remote origin https://github.com/acme/shop.git
@@@ commit v1 code
@@@ file src/cache.rs
/// How long a cached response stays fresh.
pub const TTL_SECONDS: u64 = 30;

pub fn ttl() -> u64 {
    TTL_SECONDS
}
@@@ file docs/ttl.md
Le délai « TTL » 🕒 est fixé dans src/cache.rs:2, et lu dans src/cache.rs:4-6.

Voir [le code](../src/cache.rs#L2) et `src/cache.rs:2`.
@@@ file docs/plain.md
The TTL is set in src/cache.rs:2.
@@@ commit v2 moved
@@@ file src/cache.rs
//! The response cache.

/// How long a cached response stays fresh.
pub const TTL_SECONDS: u64 = 30;

pub fn ttl() -> u64 {
    TTL_SECONDS
}
";

/// A byte offset of `text` from a 1-based line and a 1-based column in Unicode code points.
fn offset(text: &str, at: &Value) -> usize {
    let (line, column) = (at["line"].as_u64().unwrap(), at["column"].as_u64().unwrap());
    let start: usize = text
        .split_inclusive('\n')
        .take(line as usize - 1)
        .map(str::len)
        .sum();
    let rest = &text[start..];
    start
        + rest
            .char_indices()
            .nth(column as usize - 1)
            .map_or(rest.len(), |(i, _)| i)
}

/// Issue 31: a fix over MCP is an edit to apply as written (the bare `src/cache.rs:2` moved to
/// line 4 is not "replace `src/cache.rs:2` with `4`"): applied to the doc's bytes, the MCP fixes
/// give exactly what `citegate fix` writes, and their line/column name the same bytes.
#[test]
fn a_fix_over_mcp_is_the_edit_citegate_fix_makes() {
    let fixture = Fixture::build(MOVED).unwrap();
    let calls = json!({"docs": {"tool": "check_docs", "arguments": {"paths": ["docs"]}}});
    let r = client(fixture.path(), Some(calls));
    let findings = r["docs"]["body"]["findings"].as_array().unwrap();
    let docs = ["docs/plain.md", "docs/ttl.md"];
    let mut fixed = Vec::new();
    for doc in docs {
        let before = std::fs::read_to_string(fixture.path().join(doc)).unwrap();
        let mut fixes: Vec<&Value> = (findings.iter())
            .filter(|f| f["doc"] == doc)
            .filter_map(|f| f.get("fix"))
            .collect();
        assert!(!fixes.is_empty(), "{doc}: {findings:?}");
        fixes.sort_by_key(|f| std::cmp::Reverse(f["edit"]["byteStart"].as_u64()));
        let mut after = before.clone();
        for fix in fixes {
            let edit = &fix["edit"];
            assert_eq!(fix["applicability"], "safe", "{fix}");
            let (start, end) = (
                edit["byteStart"].as_u64().unwrap() as usize,
                edit["byteEnd"].as_u64().unwrap() as usize,
            );
            assert_eq!(offset(&before, &edit["start"]), start, "{fix}");
            assert_eq!(offset(&before, &edit["end"]), end, "{fix}");
            assert_eq!(fix["path"], "src/cache.rs");
            after.replace_range(start..end, edit["replacement"].as_str().unwrap());
        }
        fixed.push(after);
    }
    assert_eq!(
        fixed[0], "The TTL is set in src/cache.rs:4.\n",
        "applied as written"
    );
    let ttl = "Le délai « TTL » 🕒 est fixé dans src/cache.rs:4, et lu dans src/cache.rs:6-8.\n\n\
               Voir [le code](../src/cache.rs#L4) et `src/cache.rs:4`.\n";
    assert_eq!(fixed[1], ttl);
    let out = common::citegate(fixture.path(), &["fix", "docs"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (doc, mcp) in docs.iter().zip(&fixed) {
        let written = std::fs::read_to_string(fixture.path().join(doc)).unwrap();
        assert_eq!(
            &written, mcp,
            "{doc}: `citegate fix` and the MCP fixes agree"
        );
    }
}

/// A repository where a short text is on every line of many files (issue 32: `cite {"quote":
/// "a"}` found and serialised every match before cutting the reply).
fn everywhere() -> String {
    let mut spec = String::from("@@@ commit v1 code\n");
    for f in 0..40 {
        spec.push_str(&format!("@@@ file src/f{f:02}.rs\n"));
        for l in 0..50 {
            spec.push_str(&format!("let needle_{l} = {f};\n"));
        }
    }
    spec
}

#[test]
fn a_quote_found_everywhere_stops_at_the_first_places_and_a_short_one_is_refused() {
    let fixture = Fixture::build(&everywhere()).unwrap();
    let calls = json!({
        "short": {"tool": "cite", "arguments": {"quote": "a"}},
        "spaced": {"tool": "cite", "arguments": {"quote": "  a \n "}},
        "everywhere": {"tool": "cite", "arguments": {"quote": "needle"}},
        "in_one_file": {"tool": "cite", "arguments": {"quote": "let", "path": "src/f07.rs"}},
        "few": {"tool": "cite", "arguments": {"quote": "needle_3 = 1;"}},
    });
    let r = client(fixture.path(), Some(calls));
    let min = citegate::mcp::MIN_QUOTE_CHARS;
    assert_eq!(r["short"]["error"], true);
    assert_eq!(
        r["short"]["body"],
        format!("the quote has 1 character (whitespace-normalised): give at least {min}")
    );
    assert_eq!(r["spaced"]["error"], true, "{}", r["spaced"]);

    // 2,000 places: the first 100, in path then line order, and a note that there are more.
    let n = citegate::mcp::MAX_PLACES;
    let all = &r["everywhere"]["body"];
    assert_eq!(all["count"], n, "{all}");
    assert_eq!(all["places"].as_array().unwrap().len(), n);
    assert_eq!(all["places"][0]["citation"], "src/f00.rs:1");
    assert_eq!(all["places"][n - 1]["citation"], "src/f01.rs:50");
    let stopped = all["stopped"].as_str().unwrap();
    assert!(
        stopped.starts_with(&format!("at the first {n} places")),
        "{stopped}"
    );

    // With a path only that file is searched: its 50 lines, all of them, no note.
    let one = &r["in_one_file"]["body"];
    assert_eq!(one["count"], 50, "{one}");
    assert_eq!(one["places"][49]["citation"], "src/f07.rs:50");
    assert!(one.get("stopped").is_none());
    let few = &r["few"]["body"];
    assert_eq!(few["count"], 1, "{few}");
    assert_eq!(few["places"][0]["citation"], "src/f01.rs:4");
}

/// Over `citegate gate`'s and `citegate audit`'s input limit: refused (an answer) or reported
/// (a doc) as the command line does, with its message; a refusal of thousands of invented
/// citations within the reply budget.
#[test]
fn inputs_past_the_cli_limit_are_refused_and_every_reply_fits_the_budget() {
    let fixture = Fixture::build(SPEC).unwrap();
    let limit = citegate::mcp::MAX_INPUT_BYTES;
    let huge = format!(
        "{{\"summary\": \"{}\", \"citations\": []}}",
        "x".repeat(limit)
    );
    let doc = format!("The TTL: src/cache.rs:2.\n{}", "y".repeat(limit));
    std::fs::write(fixture.path().join("docs/huge.md"), &doc).unwrap();
    let invented: Vec<Value> = (0..3_000)
        .map(|i| json!({"path": format!("src/invented_{i}.rs"), "startLine": 1, "endLine": 2, "quote": "q".repeat(1_000)}))
        .collect();
    let calls = json!({
        "huge_json": {"tool": "check_answer", "arguments": {"answer_json": huge, "no_retrieval": true}},
        "huge_doc": {"tool": "check_docs", "arguments": {"path": "docs/other.md", "text": doc}},
        "invented": {"tool": "check_answer", "arguments": {"answer": {"summary": "z".repeat(1 << 20), "citations": invented}, "no_retrieval": true}},
        "long_path": {"tool": "cite", "arguments": {"path": format!("../{}", "p".repeat(1 << 20)), "start_line": 1}},
        "huge_retrieved": {"tool": "check_answer", "arguments": {"answer": {"summary": "s", "citations": []}, "retrieved": [{"path": "p".repeat(limit), "start_line": 1}]}},
        "long_k": {"tool": "retrieve", "arguments": {"question": "ttl", "k": "9".repeat(1 << 20)}},
        "bad_revision": {"tool": "cite", "arguments": {"path": "src/cache.rs", "start_line": 1, "revision": "nope"}},
    });
    let r = client(fixture.path(), Some(calls));

    let gate = common::command(fixture.path())
        .args(["gate", "--no-retrieval"])
        .write_stdin(huge.clone())
        .output()
        .unwrap();
    assert_eq!(gate.status.code(), Some(2));
    let said = String::from_utf8_lossy(&gate.stderr);
    assert!(said.contains("standard input: more than 16 MiB"), "{said}");
    assert_eq!(r["huge_json"]["error"], true);
    assert_eq!(r["huge_json"]["body"], "answer_json: more than 16 MiB");
    // The chunks too: one limit for every input.
    assert_eq!(r["huge_retrieved"]["body"], "retrieved: more than 16 MiB");

    let audit = common::command(fixture.path())
        .args(["audit", "--format", "json", "docs/huge.md"])
        .output()
        .unwrap();
    let audited: Value = serde_json::from_slice(&audit.stdout).unwrap();
    let finding = &r["huge_doc"]["body"]["findings"][0];
    assert_eq!(finding["rule"], "malformed-doc", "{}", r["huge_doc"]);
    assert_eq!(finding["message"], audited["findings"][0]["message"]);
    assert_eq!(
        finding["message"],
        "the doc is 16 MiB, over the 16 MiB limit"
    );

    let refused = &r["invented"]["body"];
    let text = refused.to_string();
    assert!(
        text.len() <= citegate::mcp::MAX_REPLY_BYTES,
        "{}",
        text.len()
    );
    assert_eq!(refused["passed"], false);
    let kept = refused["violations"].as_array().unwrap().len() as u64;
    assert!(kept > 0);
    assert_eq!(
        kept + refused["more"].as_u64().unwrap(),
        3_000,
        "{text:.400}"
    );
    assert!(
        refused["truncated"].as_object().unwrap().len() > 1,
        "{}",
        refused["truncated"]
    );

    assert_eq!(r["long_path"]["error"], true);
    let said = r["long_path"]["body"].as_str().unwrap();
    assert!(said.len() <= citegate::mcp::MAX_REPLY_BYTES && said.ends_with("more bytes)"));
    // Arguments the server cannot read: serde quotes the string given for a number, clipped.
    let said = r["long_k"]["body"].as_str().unwrap();
    assert_eq!(r["long_k"]["error"], true, "{said:.300}");
    assert!(
        said.contains("invalid type: string") && said.len() < 2_048,
        "{said:.300}"
    );
    // A message names the tool's parameter, not the command line's flag.
    let said = r["bad_revision"]["body"].as_str().unwrap();
    assert!(said.starts_with("revision nope: "), "{said}");
}

/// Issue 59: `check_docs` reports the findings that do not count as such, under `suppressed`
/// with why (baselined, suppressed with the comment's reason, waived with its day), never
/// silently dropped; `findings` keeps only those that count, as `citegate audit` does.
#[test]
fn check_docs_lists_baselined_suppressed_and_waived_findings_apart() {
    let fixture = Fixture::build(SPEC).unwrap();
    let dir = fixture.path();
    common::write(dir, "docs/a.md", "Invented: src/nowhere.rs:1.\n");
    let out = common::citegate(dir, &["baseline", "docs/a.md"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    common::write(
        dir,
        "docs/b.md",
        "Gone: src/gone.rs:1. <!-- citegate-ignore invented-path: the reader's own file -->\n",
    );
    common::write(dir, "docs/legacy/c.md", "Old: src/old.rs:1.\n");
    common::write(
        dir,
        ".citegate.yaml",
        "waivers:\n  - doc: \"docs/legacy/**\"\n    rules: [invented-path]\n    until: 2099-12-31\n    reason: \"rewritten with v2\"\n",
    );
    let calls = json!({
        "docs": {"tool": "check_docs", "arguments": {"paths": ["docs"]}},
        "text": {"tool": "check_docs", "arguments": {
            "path": "docs/b.md",
            "text": "Gone: src/gone.rs:1. <!-- citegate-ignore invented-path: the reader's own file -->\n\nNew: src/new.rs:1.\n",
        }},
    });
    let r = client(dir, Some(calls));
    let body = &r["docs"]["body"];
    let rules = |list: &Value| -> Vec<(String, String)> {
        (list.as_array().unwrap().iter())
            .map(|f| {
                (
                    f["doc"].as_str().unwrap().into(),
                    f["rule"].as_str().unwrap().into(),
                )
            })
            .collect()
    };
    assert_eq!(
        rules(&body["findings"]),
        [("docs/ttl.md".to_string(), "invented-lines".to_string())],
        "{body:#}"
    );
    let suppressed = body["suppressed"].as_array().unwrap();
    let why: Vec<(&str, &Value)> = (suppressed.iter())
        .map(|f| (f["doc"].as_str().unwrap(), &f["suppression"]))
        .collect();
    assert_eq!(
        why,
        [
            ("docs/a.md", &json!({"kind": "baselined"})),
            (
                "docs/b.md",
                &json!({"kind": "suppressed", "reason": "the reader's own file"})
            ),
            (
                "docs/legacy/c.md",
                &json!({"kind": "waived", "reason": "rewritten with v2", "until": "2099-12-31"})
            ),
        ],
        "{body:#}"
    );
    // Each as the JSON report has it, message and place included; none with a fix.
    let report: Value = serde_json::from_slice(
        &common::citegate(dir, &["audit", "--format", "json", "docs"]).stdout,
    )
    .unwrap();
    for (ours, cli) in suppressed
        .iter()
        .zip(report["suppressed"].as_array().unwrap())
    {
        assert_eq!(ours["message"], cli["message"]);
        assert_eq!(ours["line"], cli["line"]);
        assert_eq!(ours["suppression"], cli["suppression"]);
        assert!(ours.get("fix").is_none());
    }
    assert_eq!(
        suppressed.len(),
        report["suppressed"].as_array().unwrap().len()
    );
    // A doc's text checked in memory: its comment suppresses there too.
    let text = &r["text"]["body"];
    assert_eq!(
        rules(&text["findings"]),
        [("docs/b.md".to_string(), "invented-path".to_string())],
        "{text:#}"
    );
    assert_eq!(text["suppressed"][0]["suppression"]["kind"], "suppressed");
}
