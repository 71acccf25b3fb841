//! Evidence: what the object database says about each citation, gathered per blob and judged
//! nowhere here (the rules decide from it, see [`crate::rules`]). Citations are grouped by
//! `(commit, path)` so that each blob is read once, all its quotes are searched with one
//! aho-corasick automaton over its normalised text, and it is parsed by tree-sitter at most once.

pub mod anchors;
mod facts;
pub mod quotes;
pub mod sections;
pub mod stale;
pub mod symbols;

pub use facts::{CiteFacts, FileFacts, Held, QuoteFacts, SameName};

use std::collections::HashMap;

use git2::Oid;

use crate::extract::literal;
use crate::model::{
    AuditedDoc, Citation, CiteRef, CitedPath, DocId, IncludePart, LineIndex, LineRange,
    LiteralKind, PathStyle, PinSource,
};
use crate::normalize::{normalize, NormalizedSource};
use crate::paths::resolve_path;
use crate::resolve::reads::read_each;
use crate::resolve::{CodeRepo, Entry, FileAt};

use quotes::find_all;
use symbols::Symbols;

/// Lines of evidence shown under a finding.
const EVIDENCE_LINES: usize = 8;

/// One blob to read and the citations of it, each with where its revision came from.
pub type Group = ((Oid, String), Vec<(CiteRef, PinSource)>);

/// What the enabled rules want gathered beyond the basics, per doc.
pub trait Needs: Sync {
    /// Whether literal support (tree-sitter included) is wanted for citations of this doc.
    fn literals(&self, doc: DocId) -> bool;
}

/// Gather the facts of every group, read and checked on every core (see
/// [`crate::resolve::reads`]). Groups whose path holds the same blob (a file unchanged between
/// revisions) read it once. `target`: what is held at any other revision is kept for the
/// comparison with it. `tick` is called per group.
pub fn gather(
    repo: &CodeRepo,
    groups: &[Group],
    docs: &[AuditedDoc],
    target: Oid,
    needs: &dyn Needs,
    tick: &(dyn Fn() + Sync),
) -> Vec<CiteFacts> {
    let entries = read_each(
        repo,
        groups,
        |git, ((commit, path), _)| repo.entry_at(git, *commit, path),
        |_, entry| [entry],
    );
    let mut reads = Read::of(groups, entries, target);
    // One file's versions are read one after another, so that the delta bases they share are
    // still in libgit2's cache (see `quotes::search_elsewhere`); facts are put back in group order.
    reads.sort_by(|a, b| groups[a.groups[0]].0 .1.cmp(&groups[b.groups[0]].0 .1));
    let run = Gathering {
        repo,
        groups,
        docs,
        target,
        needs,
        tick,
    };
    let mut facts: Vec<(usize, Vec<CiteFacts>)> = read_each(
        repo,
        &reads,
        |git, read| read.file(repo, git),
        |read, file| run.facts(read, file),
    );
    facts.sort_unstable_by_key(|(g, _)| *g);
    // Moved whole into a vector of the final size: one at a time into a growing one, it was
    // about 5% of the stage, on one thread.
    let mut all = Vec::with_capacity(facts.iter().map(|(_, f)| f.len()).sum());
    for (_, mut f) in facts {
        all.append(&mut f);
    }
    all
}

/// What [`gather`] works with.
struct Gathering<'a> {
    repo: &'a CodeRepo,
    groups: &'a [Group],
    docs: &'a [AuditedDoc],
    target: Oid,
    needs: &'a dyn Needs,
    tick: &'a (dyn Fn() + Sync),
}

impl Gathering<'_> {
    /// The facts of each group of `read` (by its index), given what was read.
    fn facts(
        &self,
        read: &Read,
        file: Result<FileAt, git2::Error>,
    ) -> Vec<(usize, Vec<CiteFacts>)> {
        // What is derived from a text once, for the citations of every group that reads it.
        let mut text = match &file {
            Ok(FileAt::Text(text)) => {
                let cites = read.groups.iter().flat_map(|&g| &self.groups[g].1);
                let cited = cites.map(|(c, _)| self.docs[c.doc].citation(c.index));
                Some(BlobText::new(text, cited.collect()))
            }
            _ => None,
        };
        let each = read.groups.iter().map(|&g| {
            (self.tick)();
            let ((commit, path), cites) = &self.groups[g];
            let blob = Blob {
                repo: self.repo,
                commit: *commit,
                path,
                compare: *commit != self.target,
            };
            let got = match (text.as_mut(), &file) {
                (Some(text), _) => Got::Text(text),
                (None, Ok(other)) => Got::Other(Some(other)),
                (None, Err(_)) => Got::Other(None),
            };
            (g, blob.facts(got, cites, self.docs, self.needs))
        });
        each.collect()
    }
}

/// One read for `groups` (indexes into the gathered groups): their path at each of their
/// revisions holds the same blob, or, for a group alone, what its path is when not a blob.
struct Read {
    groups: Vec<usize>,
    entry: Result<Entry, git2::Error>,
    /// The revision the blob is read at: the target when one of the groups is at it (the
    /// target's texts are kept for later readers).
    at: Oid,
}

impl Read {
    /// The reads of `groups`, in the order of each one's first group, given where each group's
    /// path leads.
    fn of(groups: &[Group], entries: Vec<Result<Entry, git2::Error>>, target: Oid) -> Vec<Read> {
        let mut reads: Vec<Read> = Vec::new();
        let mut blobs: HashMap<(Oid, &str), usize> = HashMap::new();
        for (g, entry) in entries.into_iter().enumerate() {
            let ((commit, path), _) = &groups[g];
            if let Ok(Entry::Blob(id)) = entry {
                if let Some(&r) = blobs.get(&(id, path.as_str())) {
                    reads[r].groups.push(g);
                    if *commit == target {
                        reads[r].at = target;
                    }
                    continue;
                }
                blobs.insert((id, path), reads.len());
            }
            reads.push(Read {
                groups: vec![g],
                entry,
                at: *commit,
            });
        }
        reads
    }

    fn file(&self, repo: &CodeRepo, git: &git2::Repository) -> Result<FileAt, git2::Error> {
        match &self.entry {
            Ok(Entry::Blob(id)) => repo.blob_at(git, *id, self.at),
            Ok(Entry::Other(file)) => Ok(file.clone()),
            Err(e) => Err(git2::Error::new(e.code(), e.class(), e.message())),
        }
    }
}

/// One `(commit, path)` being read.
struct Blob<'a> {
    repo: &'a CodeRepo,
    commit: Oid,
    path: &'a str,
    /// The revision is not the target: keep what each citation holds.
    compare: bool,
}

/// The blob's text and what is derived from it once for all its citations.
struct BlobText<'a> {
    text: &'a str,
    lines: LineIndex,
    line_count: usize,
    quotes: QuoteSearch<'a>,
    parsed: Option<Option<Symbols>>,
}

/// What a group's read gave.
enum Got<'r, 'a> {
    /// A text, indexed once for every group that reads it.
    Text(&'r mut BlobText<'a>),
    /// No text: the path is missing or could not be read (`None`), or holds something else.
    Other(Option<&'r FileAt>),
}

impl<'a> BlobText<'a> {
    /// `text`, indexed for `citations` (every citation that reads it).
    fn new(text: &'a str, citations: Vec<&Citation>) -> Self {
        let lines = LineIndex::new(text);
        BlobText {
            text,
            line_count: lines.line_count(text),
            lines,
            quotes: QuoteSearch::new(text, &citations),
            parsed: None,
        }
    }
}

impl Blob<'_> {
    fn facts(
        &self,
        got: Got<'_, '_>,
        cites: &[(CiteRef, PinSource)],
        docs: &[AuditedDoc],
        needs: &dyn Needs,
    ) -> Vec<CiteFacts> {
        let base = |(cite, pin): &(CiteRef, PinSource), file: FileFacts| CiteFacts {
            cite: *cite,
            commit: self.commit,
            pin: *pin,
            file,
            quote: None,
            evidence: None,
            support: None,
            holds: false,
            blank: false,
            anchor_missing: false,
            held: None,
        };
        let blob = match got {
            Got::Text(blob) => blob,
            Got::Other(None | Some(FileAt::Missing)) => {
                // A citation missing at its implied pin is judged again at the target: the
                // paths of that older revision are not worth listing for it.
                let later = |(_, pin): &(CiteRef, PinSource)| *pin == PinSource::Implied;
                if self.compare && cites.iter().all(later) {
                    let file = FileFacts::Missing {
                        suggestions: Vec::new(),
                        from_root: None,
                        same_name: None,
                    };
                    return cites.iter().map(|c| base(c, file.clone())).collect();
                }
                let layout = self.repo.layout(self.commit);
                let suggestions = layout.suggest(self.path);
                // Only a path written without a folder (`storage.go:33-36`) is looked for by its
                // name alone: the file found is read once for all of them, never for the others.
                let by_name = |c: &(CiteRef, PinSource)| {
                    !docs[c.0.doc].citation(c.0.index).raw_path.contains('/')
                };
                let unique = match cites.iter().any(by_name) {
                    true => match &layout.same_name(self.path, 2)[..] {
                        [one] => self.text_of(one).map(|text| (one.clone(), text)),
                        _ => None,
                    },
                    false => None,
                };
                return cites
                    .iter()
                    .map(|c| {
                        let citation = docs[c.0.doc].citation(c.0.index);
                        let from_root = from_root(citation).filter(|p| layout.contains(p));
                        let same_name = (unique.as_ref())
                            .filter(|_| !citation.raw_path.contains('/'))
                            .map(|(path, text)| same_name(path, text.as_deref(), citation));
                        let file = FileFacts::Missing {
                            suggestions: suggestions.clone(),
                            from_root,
                            same_name,
                        };
                        base(c, file)
                    })
                    .collect();
            }
            Got::Other(Some(other)) => {
                let file = FileFacts::NotText(other.clone());
                return cites.iter().map(|c| base(c, file.clone())).collect();
            }
        };
        cites
            .iter()
            .map(|item| {
                let citation = docs[item.0.doc].citation(item.0.index);
                let mut f = base(
                    item,
                    FileFacts::Text {
                        line_count: blob.line_count,
                    },
                );
                let literals = needs.literals(item.0.doc);
                self.cite_facts(&mut f, blob, citation, docs, literals);
                f
            })
            .collect()
    }

    /// The facts of one citation of a text blob.
    fn cite_facts(
        &self,
        f: &mut CiteFacts,
        blob: &mut BlobText<'_>,
        citation: &Citation,
        docs: &[AuditedDoc],
        literals: bool,
    ) {
        if citation
            .lines
            .is_some_and(|r| r.end as u64 > blob.line_count as u64)
        {
            return; // Past the end of the file: nothing else can be read.
        }
        let (start, end) = match citation.lines {
            Some(r) => (r.start as usize, r.end as usize),
            None => (1, blob.line_count.max(1)),
        };
        let span_text = blob.lines.slice(blob.text, start, end);
        f.blank = citation.lines.is_some() && span_text.trim().is_empty();
        let section = match &citation.include {
            Some(IncludePart::Section(markers)) => sections::lines(blob.text, markers),
            _ => None,
        };
        if let Some(IncludePart::Section(_)) = &citation.include {
            f.anchor_missing = section.is_none();
        }
        f.quote = citation.quote.as_ref().and_then(|q| {
            let n = normalize(&q.text);
            (!n.is_empty()).then(|| blob.quotes.find(n, citation.lines, span_text, start))
        });
        if f.quote.as_ref().is_some_and(|q| !q.in_span) {
            f.evidence = Some(evidence(blob.text, &blob.lines, start, end));
        }
        f.holds = f.quote.as_ref().is_none_or(|q| q.in_span);
        if f.holds && self.compare {
            f.held = Some(match section {
                Some(lines) => held_section(blob, lines),
                None => held(blob, citation, f.quote.as_ref(), span_text, start, end),
            });
        }
        let kinds = claim_kinds(docs, f.cite);
        if literals && !kinds.is_empty() {
            f.support = Some(self.support(blob, kinds, span_text, start));
        }
    }

    /// Which of the claim's literals the cited lines support.
    fn support(
        &self,
        blob: &mut BlobText<'_>,
        kinds: Vec<Option<&LiteralKind>>,
        span_text: &str,
        start: usize,
    ) -> Vec<bool> {
        let span_norm = normalize(span_text);
        let mut encloses = |name: &str| {
            let text = blob.text;
            // A definition's name is written in the file: a name found nowhere in it encloses
            // nothing, and the file is not parsed for it (parsing is most of an audit's time
            // where claims name what their span does not hold).
            if !text.contains(name) {
                return false;
            }
            let symbols = blob
                .parsed
                .get_or_insert_with(|| Symbols::parse(self.path, text));
            symbols
                .as_ref()
                .is_some_and(|sym| sym.enclosing(text, start).iter().any(|n| n == name))
        };
        kinds
            .into_iter()
            .map(|kind| match kind {
                None => true,
                Some(LiteralKind::Expression { normalized }) => {
                    literal::occurs_as_text(&span_norm, normalized)
                }
                Some(LiteralKind::Identifier { name }) => {
                    literal::identifiers(span_text).any(|i| i == name) || encloses(name)
                }
                Some(LiteralKind::Call { name }) => {
                    literal::occurs_as_call(span_text, name) || encloses(name)
                }
            })
            .collect()
    }
}

/// The path a relative Markdown link in a nested folder names when read from the repository root,
/// as some generators write them (`[p](src/p.rs#L1)` in `wiki/a/b.md`).
impl Blob<'_> {
    /// The text of `path` at the blob's commit (`Some(None)`: there, but not text).
    fn text_of(&self, path: &str) -> Option<Option<std::sync::Arc<str>>> {
        let file = (self.repo).with_handle(|git| self.repo.file_at(git, self.commit, path));
        match file.ok()? {
            FileAt::Text(text) => Some(Some(text)),
            FileAt::Missing => None,
            _ => Some(None),
        }
    }
}

/// What a citation's lines are in `path`, the one file with the name it gives (`text`: its text).
fn same_name(path: &str, text: Option<&str>, citation: &Citation) -> SameName {
    let lines: Option<Vec<&str>> = text.map(|t| t.lines().collect());
    let cited = lines.as_ref().and_then(|all| match citation.lines {
        None => Some(all.join("\n")),
        Some(r) if r.start >= 1 && r.start <= r.end && (r.end as usize) <= all.len() => {
            Some(all[r.start as usize - 1..r.end as usize].join("\n"))
        }
        Some(_) => None,
    });
    let quote = citation.quote.as_ref().map(|q| normalize(&q.text));
    let verified = match (cited, quote) {
        (Some(cited), Some(quote)) => !quote.is_empty() && normalize(&cited).contains(&quote),
        _ => false,
    };
    SameName {
        path: path.to_string(),
        line_count: lines.map(|l| l.len()),
        verified,
    }
}

fn from_root(citation: &Citation) -> Option<String> {
    let (
        _,
        PathStyle::Link {
            base: Some(base),
            rooted: false,
        },
    ) = citation.path_span.as_ref()?
    else {
        return None;
    };
    if base.is_empty() {
        return None;
    }
    match resolve_path(&citation.raw_path, None, false) {
        CitedPath::Repo(p) => Some(p),
        _ => None,
    }
}

/// What a citation holds: its quote, else its cited lines (without blank lines at either end,
/// which normalisation drops, so a match of the content never covers them).
fn held(
    blob: &BlobText<'_>,
    citation: &Citation,
    quote: Option<&QuoteFacts>,
    span_text: &str,
    start: usize,
    end: usize,
) -> Held {
    if let Some(q) = quote {
        let inside = citation.lines.unwrap_or(LineRange::new(1, i64::MAX));
        return Held {
            content: Some(q.normalized.clone()),
            anchor: q.found.iter().find(|f| inside.contains(f)).copied(),
            lines_text: citation.lines.map(|_| span_text.to_string()),
        };
    }
    let Some(_) = citation.lines else {
        return Held {
            content: None,
            anchor: None,
            lines_text: None,
        };
    };
    let blank = |l: &usize| blob.lines.slice(blob.text, *l, *l).trim().is_empty();
    let first = (start..=end).find(|l| !blank(l));
    let last = (start..=end).rev().find(|l| !blank(l));
    Held {
        content: Some(normalize(span_text)).filter(|c| !c.is_empty()),
        anchor: first
            .zip(last)
            .map(|(f, l)| LineRange::new(f as i64, l as i64)),
        lines_text: Some(span_text.to_string()),
    }
}

/// The quotes of one blob. Each is first looked for in its own cited lines; the whole blob is
/// normalised and searched (for all its quotes at once) only when one is not there.
struct QuoteSearch<'a> {
    text: &'a str,
    ids: HashMap<String, usize>,
    whole: Option<Vec<Vec<LineRange>>>,
}

impl<'a> QuoteSearch<'a> {
    fn new(text: &'a str, citations: &[&Citation]) -> Self {
        let mut ids: HashMap<String, usize> = HashMap::new();
        for c in citations {
            if let Some(q) = &c.quote {
                let n = normalize(&q.text);
                if !n.is_empty() {
                    let next = ids.len();
                    ids.entry(n).or_insert(next);
                }
            }
        }
        QuoteSearch {
            text,
            ids,
            whole: None,
        }
    }

    /// Where the normalised quote `n` occurs, for a citation of `lines` whose text is `span_text`
    /// starting at line `start`.
    fn find(
        &mut self,
        n: String,
        lines: Option<LineRange>,
        span_text: &str,
        start: usize,
    ) -> QuoteFacts {
        let in_window = lines.and_then(|_| {
            let window = NormalizedSource::new(span_text);
            let first = find_all(&window, &[n.as_str()]).pop()?.first().copied()?;
            let shift = start as i64 - 1;
            Some(LineRange::new(first.start + shift, first.end + shift))
        });
        let found = match in_window {
            Some(hit) => vec![hit],
            None => self.everywhere(&n),
        };
        let in_span = match lines {
            Some(range) => found.iter().any(|f| range.contains(f)),
            None => !found.is_empty(),
        };
        QuoteFacts {
            normalized: n,
            found,
            in_span,
            elsewhere: None,
        }
    }

    fn everywhere(&mut self, n: &str) -> Vec<LineRange> {
        let Some(&id) = self.ids.get(n) else {
            return Vec::new();
        };
        let (text, ids) = (self.text, &self.ids);
        let whole = self.whole.get_or_insert_with(|| {
            // Normalisation only touches whitespace, so a quote's longest word occurs verbatim in
            // a blob that holds the quote: quotes whose word is not in the blob (an altered
            // quote) are not searched, and a blob holding none of them is not normalised.
            let mut wanted: Vec<(usize, &str)> = ids
                .iter()
                .filter(|(q, _)| text.contains(q.split(' ').max_by_key(|w| w.len()).unwrap_or(q)))
                .map(|(q, &i)| (i, q.as_str()))
                .collect();
            let mut found = vec![Vec::new(); ids.len()];
            if wanted.is_empty() {
                return found;
            }
            wanted.sort_unstable();
            let patterns: Vec<&str> = wanted.iter().map(|(_, q)| *q).collect();
            let hits = find_all(&NormalizedSource::new(text), &patterns);
            for ((i, _), h) in wanted.iter().zip(hits) {
                found[*i] = h;
            }
            found
        });
        whole[id].clone()
    }
}

/// The cited lines, at most `EVIDENCE_LINES` of them.
pub fn evidence(text: &str, lines: &LineIndex, start: usize, end: usize) -> String {
    let shown_end = end.min(start + EVIDENCE_LINES - 1);
    let mut e = lines.slice(text, start, shown_end).to_string();
    if shown_end < end {
        e.push_str("\n…");
    }
    e
}

/// How each literal of the citation's claim is checked.
fn claim_kinds(docs: &[AuditedDoc], c: CiteRef) -> Vec<Option<&LiteralKind>> {
    let d = &docs[c.doc];
    match d.citation(c.index).claim {
        Some(claim) => d.extracted.claims[claim]
            .literals
            .iter()
            .map(|l| l.kind.as_ref())
            .collect(),
        None => Vec::new(),
    }
}

/// What a named section held: its lines' content, compared with the same section at the target
/// (wherever its markers moved), never searched for elsewhere.
fn held_section(blob: &BlobText<'_>, (start, end): (usize, usize)) -> Held {
    let text = match start <= end {
        true => blob.lines.slice(blob.text, start, end),
        false => "",
    };
    Held {
        content: Some(normalize(text)),
        anchor: Some(LineRange::new(start as i64, end as i64)),
        lines_text: Some(text.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u8) -> Oid {
        Oid::from_bytes(&[n; 20]).unwrap()
    }

    #[test]
    fn groups_reading_one_blob_at_one_path_share_a_read_made_at_the_target_if_one_is() {
        let (old, mid, target) = (id(1), id(2), id(3));
        let group = |commit: Oid, path: &str| -> Group { ((commit, path.to_string()), Vec::new()) };
        let groups = vec![
            group(old, "a.rs"),
            group(old, "b.rs"),
            group(old, "gone.rs"),
            group(mid, "a.rs"),
            group(mid, "copy.rs"),
            group(target, "a.rs"),
            group(target, "b.rs"),
        ];
        let (same, other, changed) = (id(10), id(11), id(12));
        let entries = vec![
            Ok(Entry::Blob(same)),
            Ok(Entry::Blob(other)),
            Ok(Entry::Other(FileAt::Missing)),
            Ok(Entry::Blob(same)),
            // The same blob at another path: another language, another read.
            Ok(Entry::Blob(same)),
            Ok(Entry::Blob(same)),
            // b.rs changed since: a read of its own.
            Ok(Entry::Blob(changed)),
        ];
        let reads = Read::of(&groups, entries, target);
        let seen: Vec<(Vec<usize>, Oid)> = reads.iter().map(|r| (r.groups.clone(), r.at)).collect();
        assert_eq!(
            seen,
            vec![
                (vec![0, 3, 5], target),
                (vec![1], old),
                (vec![2], old),
                (vec![4], mid),
                (vec![6], target),
            ]
        );
        assert!(matches!(reads[2].entry, Ok(Entry::Other(FileAt::Missing))));
    }
}
