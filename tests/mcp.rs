//! `citegate mcp` talked to by a real MCP client nobody here wrote: the official Python SDK
//! (`mcp` on PyPI, installed by `.ci/run`), driven by `tests/mcp/client.py`.
#![cfg(feature = "mcp")]

use std::process::Command;

use citegate::testing::Fixture;
use serde_json::Value;

const SPEC: &str = "@@@ remote origin https://github.com/acme/shop.git
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

/// Run the Python client against `citegate mcp` in a fixture repository.
fn session() -> (Fixture, Value) {
    let fixture = Fixture::build(SPEC).unwrap();
    let out = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp/client.py"))
        .arg(env!("CARGO_BIN_EXE_citegate"))
        .arg(fixture.path())
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "the MCP client failed (is `mcp` installed? .ci/run installs it): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = serde_json::from_slice(&out.stdout).unwrap();
    (fixture, report)
}

#[test]
fn a_real_mcp_client_lists_and_calls_the_four_tools() {
    let (fixture, r) = session();
    assert_eq!(
        r["tools"],
        serde_json::json!(["check_answer", "check_docs", "cite", "retrieve"])
    );
    // The whole tool list is small (README "Agents" records its size).
    let listed = r["tool_list_json"].as_str().unwrap();
    assert!(listed.len() < 6_000, "{} bytes", listed.len());

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
        let gate = assert_cmd::Command::cargo_bin("citegate")
            .unwrap()
            .current_dir(fixture.path())
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
    let audit = assert_cmd::Command::cargo_bin("citegate")
        .unwrap()
        .current_dir(fixture.path())
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
