//! `citegate gate`: the gate as a service for RAG backends ("validate before the response leaves
//! your API"). One answer on standard input, or one per line with `--jsonl` for a sidecar; each
//! is printed as it is when it passes, or as its refusal with the violations.

use git2::Oid;
use serde_json::{json, Value};

use super::gate;
use crate::model::Retrieved;
use crate::resolve::CodeRepo;

/// What the gate made of one input: the text to print and whether the answer passed.
pub struct Gated {
    pub output: String,
    pub passed: bool,
}

/// Gate one answer's JSON text. Text that is not JSON is refused (the reason says where it
/// broke); nothing a model wrote is ever passed through unchecked.
pub fn gate_text(
    repo: &CodeRepo,
    target: Oid,
    text: &str,
    retrieved: Option<&[Retrieved]>,
    pretty: bool,
) -> Gated {
    let answer: Value = match serde_json::from_str(text.trim_start_matches('\u{feff}')) {
        Ok(v) => v,
        Err(e) => {
            let refused = json!({
                "summary": "",
                "citations": [],
                "refuse": {"reason": "no_span_in_retrieval", "searched": []},
                "violations": [{"rule": "malformed-doc", "message": format!("invalid JSON: {e}")}],
            });
            return Gated {
                output: render(&refused, pretty),
                passed: false,
            };
        }
    };
    match gate::pass_or_refuse(repo, target, &answer, retrieved) {
        Ok(()) => Gated {
            output: render(&answer, pretty),
            passed: true,
        },
        Err((refused, _)) => Gated {
            output: render(&refused, pretty),
            passed: false,
        },
    }
}

fn render(value: &Value, pretty: bool) -> String {
    let text = match pretty {
        true => serde_json::to_string_pretty(value),
        false => serde_json::to_string(value),
    };
    text.unwrap_or_default() + "\n"
}
