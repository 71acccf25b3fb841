//! The anchors that links to headings point into: for each link's page (the doc itself, another
//! doc as the audit reads docs, a permalink's page at its revision), the ids its site generator
//! gives it ([`crate::extract::anchors`]). Each page is read and parsed once per run: pages are
//! kept by the audited doc they are, or by blob ID, and site configurations by folder.
//!
//! A page that cannot be read as one whose anchors are known (missing: `dead-doc-link`'s or no
//! finding; not Markdown, HTML, reStructuredText or AsciiDoc; a site with its own `slugify`; a
//! revision that names no commit: `invented-revision`'s) gives no facts, so its links are never
//! reported.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use git2::{Oid, Repository};

use crate::extract::anchors::{self, PageAnchors, Slugger};
use crate::extract::markup_anchors;
use crate::extract::site;
use crate::model::{AnchorLink, AnchorPage, AuditedDoc, DocId};
use crate::resolve::{CodeRepo, FileAt};

/// A link's anchor and the anchors of the page it points into.
#[derive(Debug, Clone)]
pub struct AnchorFacts<'d> {
    /// The doc the link is in.
    pub doc: DocId,
    /// The link whose anchor is looked for.
    pub link: &'d AnchorLink,
    /// The page as reports name it (repo-relative; the linking doc's own name for `#section`).
    pub page: String,
    /// The commit a permalink's page was read at.
    pub commit: Option<Oid>,
    /// How the page's generator names its headings' anchors.
    pub slugger: Slugger,
    /// Whose anchors they are, as messages say it: the generator's for Markdown, else the
    /// markup's (`HTML`, `reStructuredText`, `AsciiDoc`).
    pub naming: &'static str,
    /// The anchors the page defines.
    pub anchors: Arc<PageAnchors>,
}

/// Where a page's text was read from: what its anchors are kept by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Source {
    Doc(DocId),
    Blob(Oid),
}

/// What the stage keeps for the run: pages parsed, and each folder's generator.
struct Pages<'a> {
    repo: &'a CodeRepo,
    docs: &'a [AuditedDoc],
    by_name: HashMap<&'a str, DocId>,
    parsed: HashMap<(Source, Slugger), Arc<PageAnchors>>,
    sluggers: HashMap<String, Option<Slugger>>,
}

/// The facts of every anchor link of the docs `wanted` accepts, in doc order.
pub fn gather<'d>(
    repo: &CodeRepo,
    target: Oid,
    docs: &'d [AuditedDoc],
    wanted: &dyn Fn(DocId) -> bool,
) -> Vec<AnchorFacts<'d>> {
    let any = (0..docs.len()).any(|i| {
        let doc = DocId::new(i);
        wanted(doc) && !docs[doc].extracted.anchor_links.is_empty()
    });
    if !any {
        return Vec::new();
    }
    let mut pages = Pages {
        repo,
        docs,
        by_name: (docs.iter().enumerate())
            .map(|(i, d)| (d.doc.name.as_str(), DocId::new(i)))
            .collect(),
        parsed: HashMap::new(),
        sluggers: HashMap::new(),
    };
    repo.with_handle(|git| {
        let mut out = Vec::new();
        for (i, d) in docs.iter().enumerate() {
            let doc = DocId::new(i);
            if !wanted(doc) {
                continue;
            }
            for link in &d.extracted.anchor_links {
                out.extend(pages.facts(git, target, doc, link));
            }
        }
        out
    })
}

impl<'a> Pages<'a> {
    fn facts<'d>(
        &mut self,
        git: &Repository,
        target: Oid,
        doc: DocId,
        link: &'d AnchorLink,
    ) -> Option<AnchorFacts<'d>> {
        let (page, commit, source, slugger) = match &link.page {
            AnchorPage::Same => {
                let d = &self.docs[doc].doc;
                let slugger = self.slugger(d.repo_dir.as_deref().unwrap_or(""))?;
                (d.name.clone(), None, Source::Doc(doc), slugger)
            }
            AnchorPage::Relative(path) => {
                let slugger = self.slugger(path.rsplit_once('/').map_or("", |(dir, _)| dir))?;
                let source = match self.by_name.get(path.as_str()) {
                    Some(&d) => Source::Doc(d),
                    None => Source::Blob(self.repo.blob_id(git, target, path)?),
                };
                (path.clone(), None, source, slugger)
            }
            AnchorPage::Permalink { rev, path } => {
                // Rendered on GitHub, whatever site the repository builds.
                let commit = self.repo.resolve(git, rev).ok()?;
                let blob = self.repo.blob_id(git, commit, path)?;
                (
                    path.clone(),
                    Some(commit),
                    Source::Blob(blob),
                    Slugger::GitHub,
                )
            }
        };
        let kind = page_kind(&page)?;
        let anchors = self.anchors(git, kind, commit.unwrap_or(target), source, slugger)?;
        let naming = match kind {
            PageKind::Markdown => slugger.name(),
            PageKind::Html => "HTML",
            PageKind::Rst => "reStructuredText",
            PageKind::AsciiDoc => "AsciiDoc",
        };
        Some(AnchorFacts {
            doc,
            link,
            page,
            commit,
            slugger,
            naming,
            anchors,
        })
    }

    /// The generator of the pages in `dir`, found once per folder.
    fn slugger(&mut self, dir: &str) -> Option<Slugger> {
        let workdir = self.repo.workdir.as_deref();
        *(self.sluggers.entry(dir.to_string()))
            .or_insert_with(|| site::slugger(workdir.map(Path::new), dir))
    }

    /// The anchors of a page of `kind` read from `source` (a blob at `commit`), parsed once.
    fn anchors(
        &mut self,
        git: &Repository,
        kind: PageKind,
        commit: Oid,
        source: Source,
        slugger: Slugger,
    ) -> Option<Arc<PageAnchors>> {
        if let Some(found) = self.parsed.get(&(source, slugger)) {
            return Some(found.clone());
        }
        let blob;
        let text = match source {
            Source::Doc(d) => {
                let doc = &self.docs[d].doc;
                &doc.text[doc.body_start()..]
            }
            Source::Blob(id) => {
                let FileAt::Text(text) = self.repo.blob_at(git, id, commit).ok()? else {
                    return None;
                };
                blob = text;
                &blob[..]
            }
        };
        let parsed = match kind {
            PageKind::Markdown => anchors::markdown(text, slugger),
            PageKind::Html => anchors::html(text),
            PageKind::Rst => markup_anchors::rst(text),
            PageKind::AsciiDoc => markup_anchors::asciidoc(text),
        };
        let parsed = Arc::new(parsed);
        self.parsed.insert((source, slugger), parsed.clone());
        Some(parsed)
    }
}

/// What a page is, by its name: the pages whose anchors are known here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PageKind {
    Markdown,
    Html,
    Rst,
    AsciiDoc,
}

fn page_kind(name: &str) -> Option<PageKind> {
    let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
    match ext.as_str() {
        "md" | "mdx" | "markdown" => Some(PageKind::Markdown),
        "html" | "htm" => Some(PageKind::Html),
        "rst" => Some(PageKind::Rst),
        "adoc" | "asciidoc" => Some(PageKind::AsciiDoc),
        _ => None,
    }
}
