//! `audit --dump`: every extracted citation and where it resolves, without checking it (like
//! `lychee --dump`). It answers "why is this citation checked at that commit?": its own pin, its
//! doc's, its implied pin (with the commit that wrote its doc line), or the target.

use std::collections::HashMap;

use git2::Oid;
use serde::Serialize;

use super::history::{self, Implied};
use super::plan;
use super::settings::Settings;
use crate::model::{AuditedDoc, CiteRef, DocList, PinSource};
use crate::resolve::CodeRepo;

/// The dump's format version.
pub const VERSION: u32 = 1;

/// Where a dump goes, citation by citation: a run of many large docs never holds every
/// citation's line (nor the whole output) at once.
pub trait Sink {
    /// Before the first citation: the target's full SHA.
    fn start(&mut self, target: &str) -> std::io::Result<()>;
    /// One citation and the revision it is checked at (called in doc order).
    fn citation(&mut self, c: &Resolved) -> std::io::Result<()>;
    /// After the last citation.
    fn finish(&mut self) -> std::io::Result<()>;
}

/// One citation and the revision it is checked at.
#[derive(Debug, Serialize)]
pub struct Resolved {
    /// The doc, by its name in reports.
    pub doc: String,
    /// 1-based line and column (in characters) of the citation in the doc.
    pub line: usize,
    /// The citation's column in the doc (1-based, in characters).
    pub column: usize,
    /// The syntax it is written in, as the configuration's `syntaxes` keys spell it.
    pub syntax: &'static str,
    /// The repo-relative path; null when it cannot be one (absolute, escaping the root, missing).
    pub path: Option<String>,
    /// Null for a whole-file citation.
    pub start_line: Option<i64>,
    /// The last cited line, inclusive; null for a whole-file citation.
    pub end_line: Option<i64>,
    /// Full SHA the citation is checked at; null when its pin names no commit, or it cites
    /// another repository.
    pub revision: Option<String>,
    /// `own`, `doc`, `implied` or `target`.
    pub pin: &'static str,
    /// For an implied pin: the commit that wrote the citation's line of the doc.
    pub pin_line_commit: Option<String>,
}

/// The citations of a run with their implied pins found (the history walked): what is left is
/// resolving each pin, as each is written.
pub struct Planned<'r> {
    repo: &'r CodeRepo,
    target: Oid,
    docs: Vec<AuditedDoc>,
    implied: HashMap<CiteRef, Implied>,
}

/// Walk the history for the implied pins of `docs` (before anything is written: an object the
/// walk cannot read fails the run with no output).
pub fn plan<'r>(
    repo: &'r CodeRepo,
    target: Oid,
    mut docs: Vec<AuditedDoc>,
    settings: &Settings,
) -> Planned<'r> {
    let implied = history::implied_when(settings.history, repo, target, &docs, &|_| true);
    let implied = plan::drop_tentative(repo, target, &mut docs, implied);
    Planned {
        repo,
        target,
        docs,
        implied,
    }
}

impl Planned<'_> {
    /// Resolve every citation as the audit would, without reading what it cites, into `sink` in
    /// doc order.
    pub fn write(self, sink: &mut (dyn Sink + Send)) -> std::io::Result<()> {
        let Planned {
            repo,
            target,
            docs,
            implied,
        } = self;
        let git = repo.worker();
        let mut revs: HashMap<String, Option<Oid>> = HashMap::new();
        sink.start(&target.to_string())?;
        for (doc, d) in docs.enumerated() {
            for (index, c) in d.extracted.citations.enumerated() {
                let (pin, source) = d.pin_of(index);
                let mut resolve = |p: &str| {
                    *revs
                        .entry(p.to_string())
                        .or_insert_with(|| repo.resolve(&git, p).ok())
                };
                let (revision, pin_name, line_commit) =
                    match (implied.get(&CiteRef { doc, index }), source, pin) {
                        (Some(Implied { pin, line_commit }), _, _) => {
                            (Some(*pin), "implied", Some(*line_commit))
                        }
                        (None, PinSource::Citation, Some(p)) => (resolve(p), "own", None),
                        (None, PinSource::Doc, Some(p)) => (resolve(p), "doc", None),
                        _ => (Some(target), "target", None),
                    };
                let (line, column) = d.doc.lines.line_col(&d.doc.text, c.span.start);
                sink.citation(&Resolved {
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
                })?;
            }
        }
        sink.finish()
    }
}
