//! Offline re-grounding of one answer: which of its citation objects fail at the target, what
//! content each one cited (its quote, else its span's text at the revision it was read at), and
//! where that content is now. A citation moves only to content found again, exactly and uniquely;
//! content that changed is never re-anchored.

use std::collections::HashMap;

use git2::Repository;
use serde_json::Value;

use crate::extract::json_spans::{self, Node};
use crate::model::{Applicability, Finding, Fix, LineRange, Span};
use crate::normalize::normalize;
use crate::registry::RuleId;
use crate::resolve::{CodeRepo, FileAt};

/// Where each content text is at the target (path, lines), as `check::quotes::locate` found it.
pub type Located = HashMap<String, Vec<(String, LineRange)>>;

/// A citation object of an answer: where it is in the answer (a JSON pointer) and in the doc.
#[derive(Debug, Clone)]
pub struct CiteObject {
    pub pointer: String,
    pub span: Span,
}

/// What a claim (or, for the `citations` schema, the whole answer) rests on.
#[derive(Debug, Clone)]
pub struct Unit {
    /// `/claims/N`; `None`: the answer itself (`{summary, citations}`).
    pub pointer: Option<String>,
    pub span: Span,
    pub cites: Vec<CiteObject>,
}

/// The units of an answer whose JSON text starts at `offset` in its doc.
pub fn units(text: &str, offset: usize) -> Vec<Unit> {
    let Some(node) = json_spans::parse(text, offset) else {
        return Vec::new();
    };
    let objects = |node: Option<&Node>, base: &str| -> Vec<CiteObject> {
        node.and_then(Node::as_array)
            .unwrap_or_default()
            .iter()
            .enumerate()
            .map(|(i, n)| CiteObject {
                pointer: format!("{base}/{i}"),
                span: n.span,
            })
            .collect()
    };
    let mut out = Vec::new();
    if node.get("citations").is_some() {
        out.push(Unit {
            pointer: None,
            span: node.span,
            cites: objects(node.get("citations"), "/citations"),
        });
    }
    for (j, claim) in node
        .get("claims")
        .and_then(Node::as_array)
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let pointer = format!("/claims/{j}");
        let cites = match claim.get("citations") {
            Some(nested) => objects(Some(nested), &format!("{pointer}/citations")),
            None => vec![CiteObject {
                pointer: pointer.clone(),
                span: claim.span,
            }],
        };
        out.push(Unit {
            pointer: Some(pointer),
            span: claim.span,
            cites,
        });
    }
    out
}

/// Whether `inner` lies within `outer`.
pub fn within(inner: Span, outer: Span) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

/// Rules whose citation is never moved: the cited code changed where it was (a copy of the old
/// text elsewhere may be dead code), occurs several times, or the citation names no readable
/// code. A deleted file's content found exactly once in another file is where it went.
const NEVER_MOVED: [RuleId; 4] = [
    RuleId::StaleChanged,
    RuleId::StaleAmbiguous,
    RuleId::InventedRevision,
    RuleId::NotAFile,
];

/// The contents a failing citation cited, in the order they are looked for: the text of its span
/// at the revision it was read at (normalised), then its quote; only its quote when the quote is
/// what failed.
pub fn contents(
    repo: &CodeRepo,
    git: &Repository,
    quote: Option<&str>,
    findings: &[&Finding],
) -> Vec<String> {
    let quote = quote.map(normalize).filter(|q| !q.is_empty());
    // When the quote is what failed, the span was wrong and the quote is the evidence: only the
    // quote is looked for (the span's own text would anchor it where the quote is not).
    if findings.iter().any(|f| f.rule == RuleId::UnsupportedQuote) {
        return quote.into_iter().collect();
    }
    let mut out: Vec<String> = [span_text(repo, git, findings), quote]
        .into_iter()
        .flatten()
        .collect();
    out.dedup();
    out
}

fn span_text(repo: &CodeRepo, git: &Repository, findings: &[&Finding]) -> Option<String> {
    let f = findings
        .iter()
        .find(|f| f.revision.is_some() && f.lines.is_some())?;
    let rev = git2::Oid::from_str(f.revision.as_deref()?).ok()?;
    let lines = f.lines?;
    let FileAt::Text(text) = repo.file_at(git, rev, f.path.as_deref()?).ok()? else {
        return None;
    };
    let start = usize::try_from(lines.start).ok()?.max(1);
    let end = usize::try_from(lines.end).ok()?;
    let span: Vec<&str> = text.lines().skip(start - 1).take(end + 1 - start).collect();
    (span.len() == end + 1 - start)
        .then(|| normalize(&span.join("\n")))
        .filter(|t| !t.is_empty())
}

/// Where a failing citation object moves: its safe fix (content found again exactly and uniquely
/// by the audit), else the first of its contents found exactly once at the target; `Err` says
/// why not.
pub fn relocate(
    findings: &[&Finding],
    fix: Option<&Fix>,
    contents: &[String],
    located: &Located,
) -> Result<(String, LineRange), String> {
    if let Some(f) = findings.iter().find(|f| NEVER_MOVED.contains(&f.rule)) {
        return Err(format!("{}: {}", f.rule, f.message));
    }
    if let Some(fix) = fix.filter(|f| f.applicability == Applicability::Safe) {
        return Ok((
            fix.path.clone(),
            LineRange::new(fix.start_line, fix.end_line),
        ));
    }
    if contents.is_empty() {
        let why = findings
            .first()
            .map_or(String::new(), |f| f.message.clone());
        return Err(format!("{why}; no quote or readable span to look for"));
    }
    let mut why = "its content is nowhere at the target".to_string();
    let from = findings.iter().find_map(|f| f.path.as_deref());
    for content in contents {
        match located.get(content).map(Vec::as_slice).unwrap_or_default() {
            [one] if from.is_some_and(|p| p != one.0) && !distinctive(content, one.1) => {
                why = format!(
                    "its content is found once, in `{}`, but is too little to move a citation \
                     to another file on (at least {MIN_MOVE_LINES} lines and {MIN_MOVE_CHARS} \
                     non-space characters)",
                    one.0
                );
            }
            [one] => return Ok(one.clone()),
            [] => {}
            many => why = format!("its content is at {} places at the target", many.len()),
        }
    }
    Err(why)
}

/// The least content a citation moves to another file on: found once in a whole tree, a short
/// line (`version="$1"`) is still a coincidence as often as it is the code that moved.
pub const MIN_MOVE_LINES: i64 = 2;
/// See [`MIN_MOVE_LINES`]: both must hold.
pub const MIN_MOVE_CHARS: usize = 40;

/// Whether `content` (normalised), found at `lines`, is evidence enough for a move across files.
fn distinctive(content: &str, lines: LineRange) -> bool {
    let chars = content.chars().filter(|c| !c.is_whitespace()).count();
    lines.len() >= MIN_MOVE_LINES && chars >= MIN_MOVE_CHARS
}

/// Point a citation object at `path:lines`, keeping the key names it uses.
pub fn repoint(object: &mut Value, path: &str, lines: LineRange) {
    let Some(o) = object.as_object_mut() else {
        return;
    };
    let path_key = if o.contains_key("file") && !o.contains_key("path") {
        "file"
    } else {
        "path"
    };
    o.insert(path_key.into(), Value::String(path.to_string()));
    let snake = o.contains_key("start_line") || o.contains_key("end_line");
    let (start, end) = if snake {
        ("start_line", "end_line")
    } else {
        ("startLine", "endLine")
    };
    o.insert(start.into(), lines.start.into());
    o.insert(end.into(), lines.end.into());
}

/// `path:start-end` of a citation object as written.
pub fn cited(object: &Value) -> String {
    let get = |keys: &[&str]| keys.iter().find_map(|k| object.get(*k));
    let path = get(&["path", "file"])
        .and_then(Value::as_str)
        .unwrap_or("?");
    let start = get(&["startLine", "start_line"]).and_then(Value::as_i64);
    let end = get(&["endLine", "end_line"])
        .and_then(Value::as_i64)
        .or(start);
    match (start, end) {
        (Some(s), Some(e)) => format!("{path}:{}", LineRange::new(s, e)),
        _ => path.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_follow_both_schemas() {
        let a = r#"{"summary": "s", "citations": [{"path": "a"}, {"path": "b"}]}"#;
        let u = units(a, 10);
        assert_eq!(u.len(), 1);
        assert_eq!(u[0].pointer, None);
        let pointers: Vec<&str> = u[0].cites.iter().map(|c| c.pointer.as_str()).collect();
        assert_eq!(pointers, ["/citations/0", "/citations/1"]);
        assert_eq!(
            u[0].cites[0].span.start,
            10 + a.find("{\"path\": \"a\"").unwrap()
        );

        let b = r#"{"claims": [{"text": "t", "path": "a"}, {"text": "u", "citations": [{"path": "b"}]}]}"#;
        let u = units(b, 0);
        let got: Vec<(Option<&str>, Vec<&str>)> = u
            .iter()
            .map(|u| {
                let c = u.cites.iter().map(|c| c.pointer.as_str()).collect();
                (u.pointer.as_deref(), c)
            })
            .collect();
        assert_eq!(
            got,
            [
                (Some("/claims/0"), vec!["/claims/0"]),
                (Some("/claims/1"), vec!["/claims/1/citations/0"])
            ]
        );
    }

    #[test]
    fn repointing_keeps_the_key_names() {
        let mut v: Value =
            serde_json::from_str(r#"{"path": "a", "start_line": 1, "end_line": 2, "text": "t"}"#)
                .unwrap();
        repoint(&mut v, "b", LineRange::new(5, 6));
        assert_eq!(
            v.to_string(),
            r#"{"path":"b","start_line":5,"end_line":6,"text":"t"}"#
        );
        assert_eq!(cited(&v), "b:5-6");
    }

    #[test]
    fn content_is_moved_only_when_found_exactly_once() {
        let mut located = Located::new();
        located.insert("x".into(), vec![("a.rs".into(), LineRange::new(3, 3))]);
        located.insert(
            "y".into(),
            vec![
                ("a.rs".into(), LineRange::new(1, 1)),
                ("b.rs".into(), LineRange::new(1, 1)),
            ],
        );
        let texts = |t: &[&str]| t.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let found = Ok(("a.rs".to_string(), LineRange::new(3, 3)));
        assert_eq!(relocate(&[], None, &texts(&["x"]), &located), found);
        assert_eq!(relocate(&[], None, &texts(&["y", "x"]), &located), found);
        let twice = relocate(&[], None, &texts(&["y"]), &located).unwrap_err();
        assert!(twice.contains("2 places"));
        assert!(relocate(&[], None, &texts(&["z"]), &located).is_err());
        assert!(relocate(&[], None, &[], &located).is_err());
    }
}
