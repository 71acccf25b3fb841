//! Offline re-grounding of one answer: which of its citation objects fail at the target, what
//! content each one cited (its quote, else its span's text at the revision it was read at), and
//! where that content is now. A citation moves only to content found again, exactly and uniquely;
//! content that changed is never re-anchored.

use std::collections::HashMap;

use git2::Repository;

use citegate_engine::model::{Applicability, Finding, Fix, LineRange};
use citegate_engine::normalize::normalize;
use citegate_engine::registry::RuleId;
use citegate_engine::resolve::{CodeRepo, FileAt};

/// Where each content text is at the target (path, lines), as `check::quotes::locate` found it.
pub(super) type Located = HashMap<String, Vec<(String, LineRange)>>;

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
pub(super) fn contents(
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
    let rev = f.revision?;
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

/// Whether where a failing citation moves is decided without its content (a rule that never
/// moves it, or its safe fix): its content need not be read nor searched for.
pub(super) fn decided(findings: &[&Finding], fix: Option<&Fix>) -> bool {
    findings.iter().any(|f| NEVER_MOVED.contains(&f.rule))
        || fix.is_some_and(|f| f.applicability == Applicability::Safe)
}

/// Where a failing citation object moves: its safe fix (content found again exactly and uniquely
/// by the audit), else the first of its contents found exactly once at the target; `Err` says
/// why not.
pub(super) fn relocate(
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
pub(super) const MIN_MOVE_LINES: i64 = 2;
/// See [`MIN_MOVE_LINES`]: both must hold.
pub(super) const MIN_MOVE_CHARS: usize = 40;

/// Whether `content` (normalised), found at `lines`, is evidence enough for a move across files.
fn distinctive(content: &str, lines: LineRange) -> bool {
    let chars = content.chars().filter(|c| !c.is_whitespace()).count();
    lines.len() >= MIN_MOVE_LINES && chars >= MIN_MOVE_CHARS
}

#[cfg(test)]
mod tests {
    use super::*;

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
