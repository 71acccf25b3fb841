//! The gate: audit's own checker run on one answer at the target, in memory. An answer passes
//! when none of its citations is invented, unsupported or stale (warnings included) there, and,
//! when a retrieval payload is given, every citation is inside a retrieved chunk. A refusal
//! passes: it claims nothing.

use std::path::PathBuf;

use git2::Oid;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::audit::{check_docs, Settings};
use crate::extract::{self, ExtractContext};
use crate::model::{AuditedDoc, Doc, DocKind, Retrieved};
use crate::registry::{Family, RuleId, Severity};
use crate::resolve::CodeRepo;

/// Why an answer fails the gate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// The finding ID (`invented-path`, `unsupported-quote`, `not-retrieved`…).
    pub rule: String,
    /// The citation, as `path:start-end`, when the violation is about one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub citation: Option<String>,
    pub message: String,
}

/// Whether a finding of `rule` at `severity` fails the gate.
pub fn fails(rule: RuleId, severity: Severity) -> bool {
    severity != Severity::Note
        && matches!(
            rule.info().family,
            Family::Invented | Family::Unsupported | Family::Stale
        )
}

/// The answer as retrieval payload entries: `{path, start_line, end_line}`.
pub fn payload(retrieved: &[Retrieved]) -> Value {
    retrieved
        .iter()
        .map(|r| json!({"path": r.path, "start_line": r.lines.start, "end_line": r.lines.end}))
        .collect()
}

/// Check `answer` (one answer object, either seed schema) as if it were the doc `name` pinned at
/// `target`, against `retrieved` when given. Nothing is written anywhere.
pub fn check(
    repo: &CodeRepo,
    target: Oid,
    name: &str,
    answer: &Value,
    retrieved: Option<&[Retrieved]>,
) -> Vec<Violation> {
    let refused = answer
        .get("refuse")
        .is_some_and(|r| !(r.is_null() || r == &Value::Bool(false) || r.as_str() == Some("")));
    if refused {
        return Vec::new();
    }
    let mut answer = answer.clone();
    let Some(object) = answer.as_object_mut() else {
        return vec![not_an_answer("the answer is not a JSON object")];
    };
    // Its citations resolve at the target, whatever revision it names.
    for key in ["rev", "commit"] {
        object.shift_remove(key);
    }
    object.insert("revision".into(), Value::String(target.to_string()));
    if let Some(r) = retrieved {
        object.insert("retrieved".into(), payload(r));
    }
    let text = serde_json::to_string(&answer).unwrap_or_default();
    let repo_dir = name.rsplit_once('/').map(|(d, _)| d.to_string());
    let doc = Doc::new(
        PathBuf::from(name),
        name.to_string(),
        Some(repo_dir.unwrap_or_default()),
        DocKind::Json,
        text,
    );
    let extracted = extract::extract(&doc, &ExtractContext::default());
    if extracted.answers.is_empty() {
        return vec![not_an_answer(
            "not an answer: it has neither `citations` nor `claims`",
        )];
    }
    let settings = Settings {
        history: false,
        ..Settings::default()
    };
    let report = check_docs(
        repo,
        target,
        vec![AuditedDoc::new(doc, extracted)],
        &settings,
    );
    report
        .findings
        .iter()
        .filter(|f| fails(f.rule, f.severity))
        .map(|f| Violation {
            rule: f.rule.as_str().to_string(),
            citation: f.path.as_ref().map(|p| match f.lines {
                Some(l) => format!("{p}:{l}"),
                None => p.clone(),
            }),
            message: f.message.clone(),
        })
        .collect()
}

fn not_an_answer(message: &str) -> Violation {
    Violation {
        rule: RuleId::MalformedDoc.as_str().to_string(),
        citation: None,
        message: message.to_string(),
    }
}
