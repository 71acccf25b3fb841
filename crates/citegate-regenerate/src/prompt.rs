//! The prompt contract: the seeds' rules restated in the system message every turn, the question,
//! a CONTEXT block of retrieved chunks (each with a `[chunk N] PATH:START-END` header and numbered
//! lines), and a JSON schema of the answer's own contract for `response_format`.

use serde_json::{json, Value};

pub use citegate_engine::contract::schema::{schema, schema_violations, Contract};
use citegate_engine::gate::Violation;
use citegate_engine::model::hash::{fnv1a, FNV_OFFSET};

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
    let cite = citegate_engine::contract::schema::cited_as(contract);
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
    fn equal_prompts_hash_equal() {
        assert_eq!(hash(&["a", "b"]), hash(&["a", "b"]));
        assert_ne!(hash(&["a", "b"]), hash(&["ab"]));
    }
}
