//! `audit --dump`: every extracted citation and where it resolves, without checking it (like
//! `lychee --dump`). It answers "why is this citation checked at that commit?": its own pin, its
//! doc's, its implied pin (with the commit that wrote its doc line), or the target.

use std::collections::HashMap;

use git2::Oid;
use serde::Serialize;

use super::history::{self, Implied};
use super::plan;
use super::settings::Settings;
use crate::model::{AuditedDoc, CiteRef, PinSource};
use crate::resolve::CodeRepo;

/// The dump of one run: the target and every citation, in doc order.
#[derive(Debug, Serialize)]
pub struct Dump {
    pub version: u32,
    /// Full SHA of the target.
    pub target: String,
    pub citations: Vec<Resolved>,
}

/// One citation and the revision it is checked at.
#[derive(Debug, Serialize)]
pub struct Resolved {
    pub doc: String,
    /// 1-based line and column (in characters) of the citation in the doc.
    pub line: usize,
    pub column: usize,
    pub syntax: &'static str,
    /// The repo-relative path; null when it cannot be one (absolute, escaping the root, missing).
    pub path: Option<String>,
    /// Null for a whole-file citation.
    pub start_line: Option<i64>,
    pub end_line: Option<i64>,
    /// Full SHA the citation is checked at; null when its pin names no commit, or it cites
    /// another repository.
    pub revision: Option<String>,
    /// `own`, `doc`, `implied` or `target`.
    pub pin: &'static str,
    /// For an implied pin: the commit that wrote the citation's line of the doc.
    pub pin_line_commit: Option<String>,
}

/// Resolve every citation of `docs` as the audit would, without reading what it cites.
pub fn dump(repo: &CodeRepo, target: Oid, mut docs: Vec<AuditedDoc>, settings: &Settings) -> Dump {
    let git = repo.worker();
    let implied = history::implied_when(settings.history, repo, target, &docs, &|_| true);
    let implied = plan::drop_tentative(repo, &git, target, &mut docs, implied);
    let mut revs: HashMap<String, Option<Oid>> = HashMap::new();
    let mut citations = Vec::new();
    for (doc, d) in docs.iter().enumerate() {
        for (index, c) in d.extracted.citations.enumerated() {
            let (pin, source) = d.pin_of(index);
            let resolve = |revs: &mut HashMap<String, Option<Oid>>, p: &str| {
                *revs
                    .entry(p.to_string())
                    .or_insert_with(|| repo.resolve(&git, p).ok())
            };
            let (revision, pin_name, line_commit) =
                match (implied.get(&CiteRef { doc, index }), source, pin) {
                    (Some(Implied { pin, line_commit }), _, _) => {
                        (Some(*pin), "implied", Some(*line_commit))
                    }
                    (None, PinSource::Citation, Some(p)) => (resolve(&mut revs, p), "own", None),
                    (None, PinSource::Doc, Some(p)) => (resolve(&mut revs, p), "doc", None),
                    _ => (Some(target), "target", None),
                };
            let (line, column) = d.doc.lines.line_col(&d.doc.text, c.span.start);
            citations.push(Resolved {
                doc: d.doc.name.clone(),
                line,
                column,
                syntax: c.syntax.as_str(),
                path: c.repo_path().map(str::to_string),
                start_line: c.lines.map(|l| l.start),
                end_line: c.lines.map(|l| l.end),
                revision: revision
                    .filter(|_| c.foreign.is_none())
                    .map(|r| r.to_string()),
                pin: pin_name,
                pin_line_commit: line_commit.map(|r| r.to_string()),
            });
        }
    }
    Dump {
        version: 1,
        target: target.to_string(),
        citations,
    }
}
