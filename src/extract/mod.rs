//! Extraction: a doc's text → citations, claims and doc-level problems, each with its span.
//!
//! One file per doc format ([`markdown`], [`answer`]) and per citation syntax family ([`bare`],
//! [`link`], [`forge`]); [`literal`] classifies the inline-code literals that claims make.

pub mod answer;
pub mod bare;
pub mod forge;
mod json_spans;
pub mod link;
pub mod literal;
pub mod markdown;

use crate::citation::{Citation, CitedPath, Claim, LineRange};
use crate::doc::{Doc, DocKind, Span};
use crate::rules::RuleId;

/// What extraction needs to know about the audited repository.
#[derive(Debug, Clone, Default)]
pub struct ExtractContext {
    /// The audited repository's identities (`github.com/o/r`), from its remotes or `--repo-url`.
    pub repo_ids: Vec<String>,
    /// The repository's work tree, to map absolute editor links (`vscode://file/…`) back into it.
    pub workdir: Option<std::path::PathBuf>,
    /// In-house citation syntaxes from the configuration.
    pub patterns: Vec<crate::config::Pattern>,
}

/// A retrieved chunk of a JSON answer's retrieval payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retrieved {
    pub path: String,
    pub lines: LineRange,
}

/// One JSON answer: the pin and retrieval payload its citations share.
#[derive(Debug, Clone, Default)]
pub struct Answer {
    pub span: Span,
    pub pin: Option<String>,
    pub retrieved: Option<Vec<Retrieved>>,
}

/// A problem found in the doc itself, before any revision is read (a broken doc, an uncited answer,
/// a numbered marker with no source).
#[derive(Debug, Clone)]
pub struct DocProblem {
    pub rule: RuleId,
    pub span: Span,
    pub message: String,
    pub help: Option<String>,
}

/// Everything extracted from one doc.
#[derive(Debug, Clone, Default)]
pub struct Extracted {
    pub citations: Vec<Citation>,
    pub claims: Vec<Claim>,
    pub answers: Vec<Answer>,
    /// A whole-doc pin from front matter (`citegate: {rev: REV}`).
    pub doc_pin: Option<String>,
    pub problems: Vec<DocProblem>,
    /// The doc is valid JSON but not an answer (package.json…): skipped, counted in the summary.
    pub skipped: bool,
}

impl Extracted {
    /// Keep only the citations `keep` accepts, and the claims' references to them.
    pub fn retain_citations(&mut self, keep: impl Fn(&Citation) -> bool) {
        let mut new_index = Vec::with_capacity(self.citations.len());
        let mut kept = 0;
        for c in &self.citations {
            new_index.push(keep(c).then(|| {
                kept += 1;
                kept - 1
            }));
        }
        if kept == self.citations.len() {
            return;
        }
        let mut i = 0;
        self.citations.retain(|_| {
            i += 1;
            new_index[i - 1].is_some()
        });
        for claim in &mut self.claims {
            claim.citations = claim
                .citations
                .iter()
                .filter_map(|&c| new_index[c])
                .collect();
        }
    }

    pub fn problem(&mut self, rule: RuleId, span: Span, message: impl Into<String>) {
        self.problems.push(DocProblem {
            rule,
            span,
            message: message.into(),
            help: None,
        });
    }
}

/// Extract a doc according to its kind, then the configuration's in-house patterns.
pub fn extract(doc: &Doc, ctx: &ExtractContext) -> Extracted {
    let mut ext = match doc.kind {
        DocKind::Markdown => markdown::extract(doc, ctx),
        DocKind::Json => answer::extract_json(doc),
        DocKind::JsonLines => answer::extract_jsonl(doc),
    };
    if !ctx.patterns.is_empty() && !ext.skipped {
        patterns(doc, ctx, &mut ext);
    }
    ext
}

/// Citations written in an in-house syntax: a regex with named groups `path`, `start`, optional
/// `end` and `rev`. A built-in citation found inside one of these (`SRC(a.rs:1-2)` also holds the
/// bare `a.rs:1-2`) gives way to it, so nothing is reported twice.
fn patterns(doc: &Doc, ctx: &ExtractContext, ext: &mut Extracted) {
    let mut found = Vec::new();
    for p in &ctx.patterns {
        for caps in p.regex.captures_iter(&doc.text) {
            let (Some(whole), Some(path), Some(start)) =
                (caps.get(0), caps.name("path"), caps.name("start"))
            else {
                continue;
            };
            let Ok(first) = start.as_str().parse::<i64>() else {
                continue;
            };
            let last = caps
                .name("end")
                .and_then(|e| e.as_str().parse::<i64>().ok())
                .unwrap_or(first);
            let mut c = Citation::new(
                crate::citation::Syntax::Pattern,
                Span::new(whole.start(), whole.end()),
                path.as_str(),
                resolve_path(path.as_str(), None, false),
            )
            .with_lines(Some(LineRange::new(first, last)));
            c.path_span = Some((
                Span::new(path.start(), path.end()),
                crate::citation::PathStyle::Repo,
            ));
            c.pin = caps.name("rev").map(|r| r.as_str().to_string());
            c.pin_span = caps.name("rev").map(|r| Span::new(r.start(), r.end()));
            found.push(c);
        }
    }
    ext.retain_citations(|c| {
        !found
            .iter()
            .any(|p| p.span.start <= c.span.start && c.span.end <= p.span.end)
    });
    ext.citations.extend(found);
}

/// Normalise a cited path against the repository root. `base` is the folder it is relative to
/// (a Markdown doc's folder), `None` for repo-relative paths. A leading `/` is the repository root
/// when `rooted` (Markdown links), an absolute path otherwise.
pub fn resolve_path(raw: &str, base: Option<&str>, rooted: bool) -> CitedPath {
    let unsafe_path = |reason: &str| CitedPath::Unsafe {
        raw: raw.to_string(),
        reason: reason.to_string(),
    };
    if raw.chars().any(|c| c.is_control()) {
        return unsafe_path("the path contains control characters");
    }
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return CitedPath::Missing;
    }
    let bytes = trimmed.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if drive || trimmed.starts_with("\\\\") || trimmed.starts_with('~') {
        return unsafe_path("absolute paths are never read");
    }
    let (mut parts, rest): (Vec<&str>, &str) = if let Some(rest) = trimmed.strip_prefix('/') {
        if !rooted {
            return unsafe_path("absolute paths are never read");
        }
        (Vec::new(), rest)
    } else {
        let parts = base
            .map(|b| b.split('/').filter(|s| !s.is_empty()).collect())
            .unwrap_or_default();
        (parts, trimmed)
    };
    for seg in rest.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return unsafe_path("`..` escapes the repository root");
                }
            }
            s => parts.push(s),
        }
    }
    if parts.is_empty() {
        return CitedPath::Missing;
    }
    CitedPath::Repo(parts.join("/"))
}

/// Decode `%XX` escapes in a URL path; invalid UTF-8 is kept as written.
pub fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8()
        .map(|c| c.into_owned())
        .unwrap_or_else(|_| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo(p: &str) -> CitedPath {
        CitedPath::Repo(p.to_string())
    }

    #[test]
    fn resolves_relative_and_rooted_paths() {
        assert_eq!(
            resolve_path("../src/a.rs", Some("docs"), true),
            repo("src/a.rs")
        );
        assert_eq!(
            resolve_path("/src/a.rs", Some("docs"), true),
            repo("src/a.rs")
        );
        assert_eq!(resolve_path("./src//a.rs", None, false), repo("src/a.rs"));
    }

    #[test]
    fn refuses_hostile_paths() {
        for raw in [
            "/etc/passwd",
            "../../etc/passwd",
            "C:\\x.rs",
            "a\u{7}.rs",
            "~/x.rs",
        ] {
            assert!(
                matches!(resolve_path(raw, None, false), CitedPath::Unsafe { .. }),
                "{raw}"
            );
        }
        assert!(matches!(
            resolve_path("../../x.rs", Some("docs"), true),
            CitedPath::Unsafe { .. }
        ));
    }
}
