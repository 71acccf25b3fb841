//! The answer contract, one owner: what makes a JSON answer a refusal, which keys carry its pin,
//! the refusal reasons, the retrieval payload, the keys of a citation object and how it is
//! pointed elsewhere ([`object`]), and the response schema a reply is held to ([`schema`]).
//! Extraction reads answers as located trees ([`crate::json_spans::Node`]) and the gate
//! and `regenerate` hold model replies as [`serde_json::Value`]; both are read through [`Json`],
//! so the audit and the gate cannot disagree on whether an answer refused.
//!
//! Seed 000's contract: `{summary, citations: [{path, startLine, endLine, quote}], refuse?:
//! {reason}}`; seed 001's: `{summary, claims: [{text, path, start_line, end_line}],
//! open_questions}`, where no claim and an open question is the refusal.

mod json;
pub mod object;
pub mod refusal;
pub mod schema;

pub use json::Json;
pub use object::{cited, fields, repoint, Fields};
pub use refusal::{payload_value, refusal, KeptAs, RefusalReason, REFUSAL_REASONS};

pub use crate::model::Refuse;
use crate::model::{CitedPath, LineRange, Retrieved};
use crate::paths::resolve_path;

/// The keys an answer's pin may be written under, the first present counting.
pub const PIN_KEYS: [&str; 3] = ["revision", "rev", "commit"];

/// Why a retrieval payload cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PayloadError {
    /// The payload is neither a list nor an object.
    #[error("expected a list of chunks")]
    NotAList,
    /// An object without a list under `retrieved` or `chunks`.
    #[error("expected a list of chunks, or `retrieved: [...]`")]
    NoListInObject,
    /// The chunk at this index (from 0) lacks a `path` or a `start_line`.
    #[error("chunk {0}: needs `path` and `start_line`")]
    Incomplete(usize),
    /// A chunk's `path` is not a path inside the repository (absolute, or escaping it).
    #[error("chunk {index}: `{path}` is no path in the repository")]
    NotInRepository {
        /// The chunk's index (from 0).
        index: usize,
        /// The path as written.
        path: String,
    },
}

/// A retrieval payload: a list of `{path, start_line, end_line}` (also `startLine`/`endLine`,
/// `start`/`end`; an entry without an end is one line; other fields such as `text` ignored).
/// `Err` names the first entry that cannot be read: a payload is read whole or not at all.
pub fn payload<J: Json>(items: &[J]) -> Result<Vec<Retrieved>, PayloadError> {
    let line = |item: &J, keys: [&str; 3]| keys.iter().find_map(|k| item.field(k)?.integer());
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let path = item.field("path").and_then(Json::text);
            let start = line(item, ["start_line", "startLine", "start"]);
            let end = line(item, ["end_line", "endLine", "end"]).or(start);
            let (Some(path), Some(start), Some(end)) = (path, start, end) else {
                return Err(PayloadError::Incomplete(i));
            };
            match resolve_path(path, None, false) {
                CitedPath::Repo(path) => Ok(Retrieved {
                    path,
                    lines: LineRange::new(start, end),
                }),
                _ => Err(PayloadError::NotInRepository {
                    index: i,
                    path: path.to_string(),
                }),
            }
        })
        .collect()
}

/// A payload given on its own (`gate --retrieved FILE`, the MCP server's `retrieved`): the list,
/// or an object holding it under `retrieved` or `chunks`.
pub fn payload_of(value: &serde_json::Value) -> Result<Vec<Retrieved>, PayloadError> {
    use serde_json::Value;
    let items = match value {
        Value::Array(items) => items,
        Value::Object(o) => match o.get("retrieved").or_else(|| o.get("chunks")) {
            Some(Value::Array(items)) => items,
            _ => return Err(PayloadError::NoListInObject),
        },
        _ => return Err(PayloadError::NotAList),
    };
    payload(items)
}

/// Whether a value is an answer at all: it has `citations` or `claims`.
pub fn is_answer<J: Json>(answer: &J) -> bool {
    answer.field("citations").is_some() || answer.field("claims").is_some()
}

/// What the answer's `refuse` says.
pub(crate) fn refuse_of<J: Json>(answer: &J) -> Refuse {
    let Some(refuse) = answer.field("refuse").filter(|r| !r.falsy()) else {
        return Refuse::Absent;
    };
    let reason = refuse.field("reason").and_then(Json::text);
    match reason.is_some_and(|r| REFUSAL_REASONS.contains(&r)) {
        true => Refuse::Valid,
        false => Refuse::Invalid,
    }
}

/// Whether the answer gives evidence to check: a citation or a claim. Its summary is no
/// evidence: a refusal's summary says why it refuses ("I could not find where X is set"), and a
/// `path:line` written in it is extracted and checked like any other.
pub(crate) fn has_evidence<J: Json>(answer: &J) -> bool {
    let listed = |key| answer.field(key).and_then(Json::items);
    listed("citations").is_some_and(|c| !c.is_empty())
        || listed("claims").is_some_and(|c| !c.is_empty())
}

/// A `{claims, open_questions}` answer with no claim and an open question says it does not know
/// (seed 001's "put the gap in open_questions and omit the claim").
fn only_questions<J: Json>(answer: &J) -> bool {
    let listed = |key| answer.field(key).and_then(Json::items);
    listed("claims").is_some_and(<[J]>::is_empty)
        && listed("open_questions").is_some_and(|q| !q.is_empty())
}

/// Whether the answer refuses: a valid `refuse` with no citation and no claim, whatever its
/// summary says, or only open questions. A refusal that also cites is checked like any other
/// answer: what it cites must hold (fail closed), so `refuse` cannot wave an invented citation
/// through.
pub fn refuses<J: Json>(answer: &J) -> bool {
    (refuse_of(answer) == Refuse::Valid && !has_evidence(answer)) || only_questions(answer)
}

/// The answer's pin: the first of [`PIN_KEYS`] present.
pub fn pin<J: Json>(answer: &J) -> Option<&J> {
    PIN_KEYS.iter().find_map(|k| answer.field(k))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_spans;
    use serde_json::Value;

    fn both(text: &str) -> (bool, bool) {
        let node = json_spans::parse(text, 0).unwrap();
        let value: Value = serde_json::from_str(text).unwrap();
        (refuses(&node), refuses(&value))
    }

    #[test]
    fn a_refusal_names_a_known_reason_and_cites_nothing() {
        let valid = r#"{"summary": "", "citations": [], "refuse": {"reason": "ambiguous"}}"#;
        assert_eq!(both(valid), (true, true));
        // The summary of a refusal says why it refuses: that is no evidence to check.
        let explained = r#"{"summary": "I could not find where X is set.", "citations": [], "refuse": {"reason": "no_span_in_retrieval"}}"#;
        assert_eq!(both(explained), (true, true));
        for bogus in [
            r#"{"summary": "", "citations": [], "refuse": {}}"#,
            r#"{"summary": "", "citations": [], "refuse": true}"#,
            r#"{"summary": "", "citations": [], "refuse": {"reason": "busy"}}"#,
            r#"{"citations": [{"path": "a.rs"}], "refuse": {"reason": "stale_index"}}"#,
        ] {
            assert_eq!(both(bogus), (false, false), "{bogus}");
        }
        let questions = r#"{"summary": "s", "claims": [], "open_questions": ["where?"]}"#;
        assert_eq!(both(questions), (true, true));
        let bogus: Value = serde_json::from_str(r#"{"refuse": {}}"#).unwrap();
        assert_eq!(refuse_of(&bogus), Refuse::Invalid);
    }
}
