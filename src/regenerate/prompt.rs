//! The prompt contract: the seeds' rules restated in the system message every turn, the question,
//! a CONTEXT block of retrieved chunks (each with a `[chunk N] PATH:START-END` header and numbered
//! lines), and a JSON schema of the answer's own contract for `response_format`.

use serde_json::{json, Value};

use super::gate::Violation;
use crate::model::hash::{fnv1a, FNV_OFFSET};

/// Which seed contract an answer follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contract {
    /// `{summary, citations: [{path, startLine, endLine, quote}], refuse?}` (seed 000).
    Citations,
    /// `{summary, claims: [{text, path, start_line, end_line}], open_questions}` (seed 001).
    Claims,
    /// `{paragraph}`: a Markdown paragraph rewritten with `path:start-end` citations.
    Paragraph,
}

impl Contract {
    pub fn of(answer: &Value) -> Contract {
        match answer.get("claims").is_some() && answer.get("citations").is_none() {
            true => Contract::Claims,
            false => Contract::Citations,
        }
    }
}

/// A retrieved chunk as the model sees it.
#[derive(Debug, Clone)]
pub struct ContextChunk {
    pub path: String,
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// The system message, sent on every turn.
pub fn system(contract: Contract, revision: &str) -> String {
    if contract == Contract::Paragraph {
        return format!(
            "You rewrite one paragraph of a Markdown doc about a code repository at revision \
             {revision}, using only the CONTEXT chunks.\nRules:\n\
             1. Answer ONLY with JSON matching the response schema: {{\"paragraph\": \"...\"}}.\n\
             2. Keep what CONTEXT supports; every statement about the code cites `path:start-end` \
             (repository-relative), with lines inside one CONTEXT chunk.\n\
             3. Code in backticks is copied verbatim from the lines you cite.\n\
             4. If CONTEXT does not support the paragraph, answer {{\"paragraph\": \"\"}}.\n\
             5. Never invent paths, symbols or line numbers; never use knowledge from outside CONTEXT."
        );
    }
    let refuse = match contract {
        Contract::Citations => {
            "If CONTEXT lacks the answer, set refuse.reason to \"no_span_in_retrieval\" and leave citations empty."
        }
        _ => "If CONTEXT lacks evidence for a claim, omit the claim and put the gap in open_questions.",
    };
    let cite = match contract {
        Contract::Citations => "citations[] (path, startLine, endLine, quote)",
        _ => "a claim with path, start_line and end_line",
    };
    format!(
        "You answer questions about a code repository at revision {revision}, using only the \
         CONTEXT chunks.\nRules:\n\
         1. Answer ONLY with JSON matching the response schema.\n\
         2. Every factual claim needs {cite}, with a path and lines from one CONTEXT chunk header, \
         inside that chunk's lines.\n\
         3. A quote is copied verbatim from the CONTEXT lines you cite (line numbers left out).\n\
         4. {refuse}\n\
         5. Never invent paths, symbols or line numbers; never use knowledge from outside CONTEXT."
    )
}

/// The user message: the question (for a paragraph: the paragraph) and the CONTEXT block.
pub fn user(contract: Contract, question: &str, chunks: &[ContextChunk]) -> String {
    let label = match contract {
        Contract::Paragraph => "PARAGRAPH",
        _ => "QUESTION",
    };
    let mut out =
        format!("{label}:\n{question}\n\nCONTEXT (authoritative; cite only from here):\n");
    for (n, c) in chunks.iter().enumerate() {
        out.push_str(&format!(
            "[chunk {}] {}:{}-{}\n",
            n + 1,
            c.path,
            c.start,
            c.end
        ));
        for (i, line) in c.text.lines().enumerate() {
            out.push_str(&format!("{:>5} | {line}\n", c.start + i));
        }
    }
    if chunks.is_empty() {
        out.push_str("(nothing was retrieved)\n");
    }
    out
}

/// The repair turn: what the gate found, and the rule restated.
pub fn repair(violations: &[Violation]) -> String {
    let mut out = String::from("Your answer failed verification. Violations:\n");
    for v in violations {
        match &v.citation {
            Some(c) => out.push_str(&format!("- {} ({}): {}\n", v.rule, c, v.message)),
            None => out.push_str(&format!("- {}: {}\n", v.rule, v.message)),
        }
    }
    out.push_str(
        "Answer again. Cite only lines inside the CONTEXT chunks, copy quotes verbatim, and refuse \
         (or leave the claim out) when CONTEXT does not support it.",
    );
    out
}

/// The question to ask for an answer: its `question`, else its summary and claims.
pub fn question(answer: &Value) -> String {
    if let Some(q) = answer.get("question").and_then(Value::as_str) {
        return q.to_string();
    }
    let mut out = answer
        .get("summary")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    for c in answer
        .get("claims")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(t) = c.get("text").and_then(Value::as_str) {
            out.push('\n');
            out.push_str(t);
        }
    }
    out
}

/// `response_format` for the contract: its [`schema`], strict.
pub fn response_format(contract: Contract) -> Value {
    json!({
        "type": "json_schema",
        "json_schema": {"name": "grounded_answer", "strict": true, "schema": schema(contract)}
    })
}

/// The JSON schema of the contract, valid for OpenAI's strict structured outputs: every
/// property required (an optional one is nullable: `refuse` is `null` when the answer does not
/// refuse), `additionalProperties: false` everywhere, no `anyOf` at the root. What strict mode
/// cannot say (citations non-empty unless the answer refuses) the gate enforces: an answer that
/// neither cites nor refuses fails it (`uncited-claim`).
pub fn schema(contract: Contract) -> Value {
    let object = |properties: Value| {
        let required: Vec<&String> = properties
            .as_object()
            .map_or(Vec::new(), |o| o.keys().collect());
        json!({"type": "object", "additionalProperties": false, "required": required, "properties": properties})
    };
    let line = json!({"type": "integer", "minimum": 1});
    let string = json!({"type": "string"});
    match contract {
        Contract::Citations => {
            let mut refuse = object(json!({
                "reason": {"type": "string", "enum": crate::answer::REFUSAL_REASONS}
            }));
            refuse["type"] = json!(["object", "null"]);
            object(json!({
                "summary": string,
                "citations": {"type": "array", "items": object(json!({
                    "path": string, "startLine": line, "endLine": line, "quote": string
                }))},
                "refuse": refuse
            }))
        }
        Contract::Paragraph => object(json!({"paragraph": string})),
        Contract::Claims => object(json!({
            "summary": string,
            "claims": {"type": "array", "items": object(json!({
                "text": string, "path": string, "start_line": line, "end_line": line
            }))},
            "open_questions": {"type": "array", "items": string}
        })),
    }
}

/// Where `value` breaks `schema` (the subset [`schema`] uses: `type`, `properties`, `required`,
/// `additionalProperties: false`, `items`, `enum`, `minimum`), each as `at: what`; a nullable
/// property may be left out (strict mode writes it as `null`, other servers omit it). A reply is
/// held to the schema it was sent: a citation without its `quote`, or with a key the schema does
/// not have, is never written.
pub fn schema_violations(schema: &Value, value: &Value, at: &str, out: &mut Vec<String>) {
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let is = |t: &str| match t {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "null" => value.is_null(),
        _ => false,
    };
    if !types.is_empty() && !types.iter().any(|t| is(t)) {
        return out.push(format!("{at}: expected {}", types.join(" or ")));
    }
    if schema["enum"]
        .as_array()
        .is_some_and(|a| !a.contains(value))
    {
        return out.push(format!("{at}: not one of the allowed values"));
    }
    if let (Some(min), Some(n)) = (schema["minimum"].as_i64(), value.as_i64()) {
        if n < min {
            out.push(format!("{at}: below {min}"));
        }
    }
    if let (Some(props), Some(fields)) = (schema["properties"].as_object(), value.as_object()) {
        // A nullable property is optional in the contract: absent reads as `null`.
        let nullable = |key: &str| {
            props[key]["type"]
                .as_array()
                .is_some_and(|t| t.contains(&json!("null")))
        };
        for key in schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !fields.contains_key(key) && !nullable(key) {
                out.push(format!("{at}: `{key}` is missing"));
            }
        }
        for (key, v) in fields {
            match props.get(key) {
                Some(s) => schema_violations(s, v, &format!("{at}.{key}"), out),
                None => out.push(format!("{at}: `{key}` is not in the schema")),
            }
        }
    }
    if let (Some(items), Some(values)) = (schema.get("items"), value.as_array()) {
        for (i, v) in values.iter().enumerate() {
            schema_violations(items, v, &format!("{at}[{i}]"), out);
        }
    }
}

/// A reply as the strict parse reads it: one leading `<think>…</think>` block (local reasoning
/// models write one) and one enclosing ```` ```json ```` fence are taken off; anything else
/// around the JSON is left, and fails the parse.
pub fn unwrap_reply(raw: &str) -> &str {
    let mut text = raw.trim();
    if let Some(rest) = text.strip_prefix("<think>") {
        if let Some(end) = rest.find("</think>") {
            text = rest[end + "</think>".len()..].trim();
        }
    }
    let fenced = text
        .strip_prefix("```json")
        .or_else(|| text.strip_prefix("```"))
        .and_then(|t| t.strip_suffix("```"))
        .filter(|inner| inner.starts_with(['\n', '\r']) && !inner.contains("```"));
    fenced.map_or(text, str::trim)
}

/// A stable hash of a prompt (FNV-1a, 64 bits, hex) for traces: equal prompts, equal hashes.
pub fn hash(parts: &[&str]) -> String {
    let h = parts
        .iter()
        .fold(FNV_OFFSET, |h, part| fnv1a(fnv1a(h, part.as_bytes()), &[0]));
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_chunks_have_headers_and_numbered_lines() {
        let chunks = [ContextChunk {
            path: "src/a.rs".into(),
            start: 9,
            end: 10,
            text: "fn a() {\n}".into(),
        }];
        let u = user(Contract::Citations, "What is a?", &chunks);
        assert!(u.contains("[chunk 1] src/a.rs:9-10\n    9 | fn a() {\n   10 | }\n"));
    }

    #[test]
    fn the_schema_is_strict_and_holds_replies_to_it() {
        for contract in [Contract::Citations, Contract::Claims, Contract::Paragraph] {
            let schema = schema(contract);
            assert!(schema.get("anyOf").is_none());
            // Strict mode: every property of every object is required.
            fn all_required(s: &Value) {
                if let Some(props) = s["properties"].as_object() {
                    let required = s["required"].as_array().unwrap();
                    assert_eq!(required.len(), props.len(), "{s}");
                    props.values().for_each(all_required);
                    assert_eq!(s["additionalProperties"], false);
                }
                if let Some(items) = s.get("items") {
                    all_required(items);
                }
            }
            all_required(&schema);
        }
        let check = |v: Value| {
            let mut out = Vec::new();
            schema_violations(&schema(Contract::Citations), &v, "reply", &mut out);
            out
        };
        let cite = json!({"path": "a.rs", "startLine": 1, "endLine": 1, "quote": "q"});
        assert!(check(json!({"summary": "s", "citations": [cite], "refuse": null})).is_empty());
        assert!(check(json!({"summary": "s", "citations": [cite]})).is_empty());
        let refusal = json!({"summary": "", "citations": [], "refuse": {"reason": "ambiguous"}});
        assert!(check(refusal).is_empty());
        let no_quote = json!({"summary": "s", "citations": [{"path": "a.rs", "startLine": 1, "endLine": 1}], "refuse": null});
        assert_eq!(check(no_quote), ["reply.citations[0]: `quote` is missing"]);
        let extra = json!({"summary": "s", "citations": [], "refuse": null, "score": 1});
        assert_eq!(check(extra), ["reply: `score` is not in the schema"]);
        let bad = json!({"summary": "s", "citations": [], "refuse": {"reason": "busy"}});
        assert_eq!(
            check(bad),
            ["reply.refuse.reason: not one of the allowed values"]
        );
    }

    #[test]
    fn one_fence_and_one_think_block_are_unwrapped() {
        assert_eq!(unwrap_reply("```json\n{\"a\": 1}\n```"), "{\"a\": 1}");
        assert_eq!(
            unwrap_reply("<think>hmm {x}</think>\n{\"a\": 1}"),
            "{\"a\": 1}"
        );
        assert_eq!(
            unwrap_reply("<think>x</think>\n```\n{\"a\": 1}\n```\n"),
            "{\"a\": 1}"
        );
        // Anything else around the JSON stays, and fails the strict parse.
        assert_eq!(unwrap_reply("Sure! {\"a\": 1}"), "Sure! {\"a\": 1}");
        let two = "```json\n{}\n```\n```json\n{}\n```";
        assert_eq!(unwrap_reply(two), two);
    }

    #[test]
    fn the_contract_follows_the_answer() {
        assert_eq!(Contract::of(&json!({"claims": []})), Contract::Claims);
        assert_eq!(Contract::of(&json!({"citations": []})), Contract::Citations);
        assert_ne!(hash(&["a", "b"]), hash(&["ab"]));
    }
}
