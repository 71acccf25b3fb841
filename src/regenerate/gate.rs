//! The gate: audit's own checker run on one answer at the target, in memory. An answer passes
//! when none of its citations is invented, unsupported or stale (warnings included) there, and,
//! when a retrieval payload is given, every citation is inside a retrieved chunk. A refusal
//! passes: it claims nothing.

use std::path::PathBuf;

use git2::Oid;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::audit::{check_docs, Settings};
use crate::extract::{self, ExtractContext};
use crate::model::{AuditedDoc, Doc, DocKind, Finding, LineRange, Retrieved};
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

/// Whether a finding of `rule` at `severity` fails the gate: the invented, unsupported and stale
/// families (warnings included), and whatever cannot be checked here at all: a path that leaves
/// the repository or cannot be one (`unsafe-path`), a doc that cannot be read, a citation into
/// another repository (found by fuzzing: `../../etc/passwd:1` passed).
pub fn fails(rule: RuleId, severity: Severity) -> bool {
    wrong(rule, severity)
        || matches!(
            rule,
            RuleId::UnsafePath | RuleId::MalformedDoc | RuleId::ForeignCitation
        )
}

/// Whether a finding says a Markdown citation is wrong (the invented, unsupported and stale
/// families, warnings included): what `regenerate` re-grounds in a doc. A link into another
/// repository is no error in a wiki; only the gate, which cannot check it, refuses it.
pub fn wrong(rule: RuleId, severity: Severity) -> bool {
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
    let doc = in_memory(name, DocKind::Json, text);
    if doc.extracted.answers.is_empty() {
        return vec![not_an_answer(
            "not an answer: it has neither `citations` nor `claims`",
        )];
    }
    at_target(repo, target, doc)
}

/// A doc held in memory as if it were `name` in the repository, extracted.
pub fn in_memory(name: &str, kind: DocKind, text: String) -> AuditedDoc {
    let repo_dir = name.rsplit_once('/').map(|(d, _)| d.to_string());
    let doc = Doc::new(
        PathBuf::from(name),
        name.to_string(),
        Some(repo_dir.unwrap_or_default()),
        kind,
        text,
    );
    let extracted = extract::extract(&doc, &ExtractContext::default());
    AuditedDoc::new(doc, extracted)
}

/// The audit of one in-memory doc at `target` (no implied pins), as gate violations.
fn at_target(repo: &CodeRepo, target: Oid, doc: AuditedDoc) -> Vec<Violation> {
    failing_at_target(repo, target, doc)
        .0
        .iter()
        .map(violation)
        .collect()
}

/// The findings of one in-memory doc at `target` (no implied pins: its unpinned citations
/// resolve at the target) that fail the gate, with their spans, and the doc as checked.
pub fn failing_at_target(
    repo: &CodeRepo,
    target: Oid,
    doc: AuditedDoc,
) -> (Vec<Finding>, AuditedDoc) {
    let settings = Settings {
        history: false,
        ..Settings::default()
    };
    let mut report = check_docs(repo, target, vec![doc], &settings);
    report.findings.retain(|f| fails(f.rule, f.severity));
    let doc = report.docs.pop().expect("the doc checked");
    (report.findings, doc)
}

fn not_an_answer(message: &str) -> Violation {
    Violation {
        rule: RuleId::MalformedDoc.as_str().to_string(),
        citation: None,
        message: message.to_string(),
    }
}

/// Check a rewritten Markdown paragraph as if it stood in the doc `name`, at `target`: no
/// citation in it fails, it cites something, and every citation lies inside a `retrieved` chunk.
pub fn check_paragraph(
    repo: &CodeRepo,
    target: Oid,
    name: &str,
    text: &str,
    retrieved: &[Retrieved],
) -> Vec<Violation> {
    let doc = in_memory(name, DocKind::Markdown, format!("{text}\n"));
    let mut out: Vec<Violation> = Vec::new();
    if doc.extracted.citations.is_empty() {
        out.push(Violation {
            rule: RuleId::UncitedClaim.as_str().to_string(),
            citation: None,
            message: "the paragraph cites nothing".into(),
        });
    }
    for c in &doc.extracted.citations {
        let (Some(path), Some(lines)) = (c.repo_path(), c.lines) else {
            continue;
        };
        let inside = retrieved
            .iter()
            .any(|r| r.path == path && r.lines.start <= lines.start && lines.end <= r.lines.end);
        if !inside {
            out.push(Violation {
                rule: RuleId::NotRetrieved.as_str().to_string(),
                citation: Some(format!("{path}:{lines}")),
                message: format!("`{path}:{lines}` is not inside any retrieved chunk"),
            });
        }
    }
    out.extend(at_target(repo, target, doc));
    out
}

fn violation(f: &Finding) -> Violation {
    Violation {
        rule: f.rule.as_str().to_string(),
        citation: f.path.as_ref().map(|p| match f.lines {
            Some(l) => format!("{p}:{l}"),
            None => p.clone(),
        }),
        message: f.message.clone(),
    }
}

/// A retrieval payload: a list of `{path, start_line, end_line}` (also `startLine`/`endLine`,
/// `start`/`end`; other fields such as `text` are ignored), or an object holding one under
/// `retrieved` or `chunks`. `Err` names the first entry that cannot be read.
pub fn retrieved_of(value: &Value) -> Result<Vec<Retrieved>, String> {
    let items = match value {
        Value::Array(items) => items,
        Value::Object(o) => match o.get("retrieved").or_else(|| o.get("chunks")) {
            Some(Value::Array(items)) => items,
            _ => return Err("expected a list of chunks, or `retrieved: [...]`".into()),
        },
        _ => return Err("expected a list of chunks".into()),
    };
    let line = |item: &Value, keys: [&str; 3]| keys.iter().find_map(|k| item.get(*k)?.as_i64());
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let path = item.get("path").and_then(Value::as_str);
            let start = line(item, ["start_line", "startLine", "start"]);
            let end = line(item, ["end_line", "endLine", "end"]).or(start);
            match (path, start, end) {
                (Some(path), Some(start), Some(end)) => Ok(Retrieved {
                    path: path.trim_start_matches("./").to_string(),
                    lines: LineRange::new(start, end),
                }),
                _ => Err(format!("chunk {i}: needs `path` and `start_line`")),
            }
        })
        .collect()
}

/// The refusal of an answer: no summary and no citations (`{summary, citations}`), or no claims,
/// each old claim listed in `open_questions` (`{summary, claims}`); `refuse` with the reason
/// and what was searched; the old text under `kept_as` (`stale` for an answer the code moved
/// away from, `rejected` for one the gate turned down). Other fields keep their place.
pub fn refusal(
    old: &Value,
    at_target: &Value,
    reason: &str,
    searched: &[String],
    kept_as: &str,
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
        json!({"reason": reason, "searched": searched}),
    );
    let mut stale = Map::new();
    for key in ["summary", "citations", "claims"] {
        if let Some(v) = old.get(key) {
            stale.insert(key.into(), v.clone());
        }
    }
    out.insert(kept_as.into(), Value::Object(stale));
    Value::Object(out)
}

/// The gate as a service: `answer` as it is when it passes, else its refusal
/// (`no_span_in_retrieval`, searched: the retrieved chunks) with the violations.
pub fn pass_or_refuse(
    repo: &CodeRepo,
    target: Oid,
    answer: &Value,
    retrieved: Option<&[Retrieved]>,
) -> Result<(), (Value, Vec<Violation>)> {
    // Without a payload here, the answer's own `retrieved` (if any) is checked as audit reads it.
    let violations = check(repo, target, "answer.json", answer, retrieved);
    if violations.is_empty() {
        return Ok(());
    }
    let own = answer.get("retrieved").and_then(|r| retrieved_of(r).ok());
    let searched: Vec<String> = retrieved
        .or(own.as_deref())
        .unwrap_or_default()
        .iter()
        .map(|r| format!("{}:{}", r.path, r.lines))
        .collect();
    let mut refused = refusal(
        answer,
        answer,
        "no_span_in_retrieval",
        &searched,
        "rejected",
    );
    if let Some(o) = refused.as_object_mut() {
        o.insert("violations".into(), json!(violations));
    }
    Err((refused, violations))
}
