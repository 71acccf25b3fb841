//! `audit --format github-review`: gathers what the review is made from (the docs as `citegate
//! fix` would write them, and the lines the pull request changed, from `--since`) and renders it.
//! With `--review-head`, the lines are the pull request's head's: its diff from merge-base(base,
//! head), and each audited line placed on the head's identical line.

use std::collections::{BTreeMap, BTreeSet};

use citegate::audit::Session;
use citegate::model::Report;
use citegate::report::github_review::{self, Input};

/// The review's JSON body, or why it cannot be made.
pub fn body(
    session: &Session,
    report: &Report,
    since: &str,
    head: Option<&str>,
) -> Result<String, String> {
    let git = session
        .repo
        .open()
        .map_err(|e| format!("cannot open the repository: {}", e.message()))?;
    let resolve = |flag: &str, rev: &str| {
        session
            .repo
            .resolve(&git, rev)
            .map_err(|e| format!("{flag} {rev}: {}", e.describe(rev).0))
    };
    let base = resolve("--since", since)?;
    let head = head.map(|rev| resolve("--review-head", rev)).transpose()?;
    let mut lines = citegate::select::changed_lines(&git, base, head.unwrap_or(session.target))
        .map_err(|e| format!("--since {since}: {}", e.message()))?;
    let text_at = |commit, name: &str| {
        let id = session.repo.blob_id(&git, commit, name)?;
        git.find_blob(id).ok().map(|b| b.content().to_vec())
    };
    let mut input = Input {
        commit_id: head.map(|h| h.to_string()),
        ..Input::default()
    };
    for audited in &report.docs {
        let doc = &audited.doc;
        // Line numbers are the pull request's only when the doc audited is the doc committed.
        let committed =
            text_at(session.target, &doc.name).is_some_and(|t| t == doc.text.as_bytes());
        let Some(changed) = lines.remove(&doc.name).filter(|_| committed) else {
            continue;
        };
        let anchors: BTreeMap<usize, usize> = match head {
            None => changed.iter().map(|&l| (l, l)).collect(),
            Some(head) => match text_at(head, &doc.name) {
                Some(text) => on_head(&doc.text, &text, &changed),
                None => continue,
            },
        };
        input.anchors.insert(doc.name.clone(), anchors);
    }
    let plan = citegate::audit::fixpoint::plan(session, report, false);
    input.fixed = plan.docs.into_iter().map(|d| (d.doc, d.after)).collect();
    Ok(github_review::render(report, &input))
}

/// The audited lines placed on the head's text of the doc (not UTF-8 there: none).
fn on_head(audited: &str, head: &[u8], changed: &BTreeSet<usize>) -> BTreeMap<usize, usize> {
    match std::str::from_utf8(head) {
        Ok(head) => github_review::anchors(audited, head, changed),
        Err(_) => BTreeMap::new(),
    }
}
