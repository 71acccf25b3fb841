//! Writing the contract: a refusal (seed 000's `refuse` with its reason and what was searched,
//! or seed 001's open questions), and a retrieval payload.

use serde_json::{json, Map, Value};

use crate::model::Retrieved;

/// Why an answer refuses: seed 000's three reasons, the only ones a refusal may give.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RefusalReason {
    /// Nothing retrieved supports an answer.
    NoSpanInRetrieval,
    /// More than one place could be meant.
    Ambiguous,
    /// What was retrieved is older than the code.
    StaleIndex,
}

impl RefusalReason {
    /// Every reason, in the order the contract lists them.
    pub const ALL: [RefusalReason; 3] = [
        RefusalReason::NoSpanInRetrieval,
        RefusalReason::Ambiguous,
        RefusalReason::StaleIndex,
    ];

    /// The reason as the contract writes it.
    pub const fn as_str(self) -> &'static str {
        match self {
            RefusalReason::NoSpanInRetrieval => "no_span_in_retrieval",
            RefusalReason::Ambiguous => "ambiguous",
            RefusalReason::StaleIndex => "stale_index",
        }
    }

    /// The reason the contract writes as `id`; `None` when it is none of the three.
    pub fn from_id(id: &str) -> Option<RefusalReason> {
        RefusalReason::ALL.into_iter().find(|r| r.as_str() == id)
    }
}

/// The reasons a refusal may give, as written (seed 000).
pub const REFUSAL_REASONS: [&str; 3] = [
    RefusalReason::NoSpanInRetrieval.as_str(),
    RefusalReason::Ambiguous.as_str(),
    RefusalReason::StaleIndex.as_str(),
];

/// Under which key a refused answer keeps its old text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeptAs {
    /// The code moved away from it (`regenerate`).
    Stale,
    /// The gate turned it down.
    Rejected,
}

impl KeptAs {
    /// The key the old text is kept under (`stale`, `rejected`).
    pub fn key(self) -> &'static str {
        match self {
            KeptAs::Stale => "stale",
            KeptAs::Rejected => "rejected",
        }
    }
}

/// The refusal of an answer: no summary and no citations (`{summary, citations}`), or no claims,
/// each old claim listed in `open_questions` (`{summary, claims}`); `refuse` with the reason
/// and what was searched; the old text under `kept_as` (`stale` for an answer the code moved
/// away from, `rejected` for one the gate turned down). Other fields keep their place.
pub fn refusal(
    old: &Value,
    at_target: &Value,
    reason: RefusalReason,
    searched: &[String],
    kept_as: KeptAs,
) -> Value {
    let mut out = Map::new();
    let old = old.as_object().cloned().unwrap_or_default();
    let claims: Vec<Value> = old
        .get("claims")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (k, v) in at_target.as_object().into_iter().flatten() {
        match k.as_str() {
            "summary" => out.insert(k.clone(), Value::String(String::new())),
            "citations" | "claims" => out.insert(k.clone(), Value::Array(Vec::new())),
            "open_questions" => {
                let mut open = v.as_array().cloned().unwrap_or_default();
                for c in &claims {
                    let text = c.get("text").and_then(Value::as_str).unwrap_or_default();
                    open.push(Value::String(format!("Not grounded: {text}")));
                }
                out.insert(k.clone(), Value::Array(open))
            }
            "refuse" | "stale" | "rejected" => None,
            _ => out.insert(k.clone(), v.clone()),
        };
    }
    out.insert(
        "refuse".into(),
        json!({"reason": reason.as_str(), "searched": searched}),
    );
    let mut stale = Map::new();
    for key in ["summary", "citations", "claims"] {
        if let Some(v) = old.get(key) {
            stale.insert(key.into(), v.clone());
        }
    }
    out.insert(kept_as.key().into(), Value::Object(stale));
    Value::Object(out)
}

/// Retrieved chunks written as a retrieval payload (what [`super::payload`] reads back): `{path, start_line, end_line}`.
pub fn payload_value(retrieved: &[Retrieved]) -> Value {
    retrieved
        .iter()
        .map(|r| json!({"path": r.path, "start_line": r.lines.start, "end_line": r.lines.end}))
        .collect()
}
