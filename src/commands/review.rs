//! `audit --format github-review`: gathers what the review is made from (the docs as `citegate
//! fix` would write them, and the lines the pull request changed, from `--since`) and renders it.

use citegate::audit::Session;
use citegate::model::Report;
use citegate::report::github_review::{self, Input};

/// The review's JSON body, or why it cannot be made.
pub fn body(session: &Session, report: &Report, since: &str) -> Result<String, String> {
    let git = session
        .repo
        .open()
        .map_err(|e| format!("cannot open the repository: {}", e.message()))?;
    let base = session
        .repo
        .resolve(&git, since)
        .map_err(|e| format!("--since {since}: {}", e.describe(since).0))?;
    let mut lines = citegate::select::changed_lines(&git, base, session.target)
        .map_err(|e| format!("--since {since}: {}", e.message()))?;
    let mut input = Input::default();
    for audited in &report.docs {
        let doc = &audited.doc;
        // Line numbers are the pull request's only when the doc audited is the doc committed.
        let committed = session
            .repo
            .blob_id(&git, session.target, &doc.name)
            .and_then(|id| git.find_blob(id).ok())
            .is_some_and(|blob| blob.content() == doc.text.as_bytes());
        if let (true, Some(changed)) = (committed, lines.remove(&doc.name)) {
            input.changed.insert(doc.name.clone(), changed);
        }
    }
    let plan = citegate::audit::fixpoint::plan(session, report, false);
    input.fixed = plan.docs.into_iter().map(|d| (d.doc, d.after)).collect();
    Ok(github_review::render(report, &input))
}
