//! The gate on a model's raw reply: unwrapped from what models put around JSON, held to the
//! schema it was sent, then checked as an answer (or a rewritten paragraph) at the target.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Gate, Retrieval, Violation};
use crate::contract::schema::{schema, schema_violations, Contract};
use crate::model::Retrieved;
use crate::registry::RuleId;

/// What the model was asked to write.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Subject {
    /// A JSON answer (`answer` is its index in the doc).
    #[default]
    Answer,
    /// A Markdown paragraph (`answer` is its first line).
    Paragraph,
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

/// Whether a reply that passed the gate is the model declining: a refusal by the contract, or an
/// empty paragraph.
pub fn refuses(raw: &str) -> bool {
    let value: Value = serde_json::from_str(unwrap_reply(raw)).unwrap_or(Value::Null);
    declines(&value)
}

/// [`refuses`] on a reply already read.
pub fn declines(value: &Value) -> bool {
    crate::contract::refuses(value)
        || value
            .get("claims")
            .and_then(Value::as_array)
            .is_some_and(|c| c.is_empty())
        || value.get("paragraph").and_then(Value::as_str) == Some("")
}

/// The gate's verdict on one raw reply (text that is not JSON, or a paragraph reply without its
/// `paragraph` string, is a violation too). `asked` is the question: for a paragraph, the
/// paragraph as it was (its rewrite may add no link).
pub fn check_reply(
    gate: &Gate,
    subject: Subject,
    doc: &str,
    raw: &str,
    retrieved: &[Retrieved],
    asked: &str,
) -> Vec<Violation> {
    let malformed = |message: String| {
        vec![Violation {
            rule: RuleId::MalformedDoc,
            citation: None,
            message,
        }]
    };
    let raw = unwrap_reply(raw);
    let value = match serde_json::from_str::<Value>(raw) {
        Ok(value) => value,
        Err(e) => return malformed(format!("the reply is not JSON: {e}")),
    };
    let contract = match subject {
        Subject::Answer => Contract::of(&value),
        Subject::Paragraph => Contract::Paragraph,
    };
    let mut broken = Vec::new();
    schema_violations(&schema(contract), &value, "reply", &mut broken);
    if !broken.is_empty() {
        let message = format!(
            "the reply breaks the schema it was sent: {}",
            broken.join("; ")
        );
        return malformed(message);
    }
    match subject {
        // The text as the model wrote it: a key written twice only shows there.
        Subject::Answer => gate.check_text(doc, raw, Retrieval::Given(retrieved)),
        Subject::Paragraph => match value.get("paragraph").and_then(Value::as_str) {
            // An empty paragraph is the model declining: nothing to check, nothing written.
            Some("") => Vec::new(),
            Some(text) => gate.check_paragraph(doc, asked, text, retrieved),
            None => malformed("the reply has no `paragraph` string".into()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
