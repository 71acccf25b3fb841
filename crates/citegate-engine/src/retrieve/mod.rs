//! Retrieval at a revision: every text file cut into [`chunk::Chunk`]s, ranked by BM25 over
//! identifier-aware `tokens`, boosted by the paths and symbols a query names. The index is built
//! once per tree and cached on disk under the repository's Git folder ([`cache`]).

mod bm25;
pub mod cache;
pub mod chunk;
pub mod quote;
mod tokens;

use git2::Oid;
use rayon::prelude::*;

pub use chunk::Chunk;

use crate::model::{LineRange, Retrieved};
use crate::resolve::{CodeRepo, FileAt};

/// Files larger than this are not indexed (generated code, data).
pub const MAX_FILE_BYTES: usize = 1 << 20;
/// How much a chunk's score is multiplied by when its path, or its symbol, is one the query names.
pub(crate) const PATH_BOOST: f32 = 1.5;
pub(crate) const SYMBOL_BOOST: f32 = 1.5;

/// What to look for: words, and what the old citation knew.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// The words to look for: a question, or the text of the answer being re-grounded.
    pub text: String,
    /// Paths cited before (a chunk of one of them ranks higher).
    pub paths: Vec<String>,
    /// Names of the definitions that enclosed the old spans.
    pub symbols: Vec<String>,
    /// Code literals of the claim (`TTL_SECONDS = 30`): their tokens count twice.
    pub literals: Vec<String>,
    /// Paths never returned (the docs being re-grounded: they always hold what they say),
    /// shared by every query of a run.
    pub exclude: std::sync::Arc<std::collections::HashSet<String>>,
    /// Also retrieve docs (Markdown pages, answer files): the configuration's `retrieve-docs`.
    pub docs: bool,
}

impl Query {
    /// The tokens the query is scored by, joined by spaces: its text's, and its literals' twice.
    pub fn terms(&self) -> String {
        let mut terms = tokens::tokens(&self.text);
        for literal in &self.literals {
            let t = tokens::tokens(literal);
            terms.extend(t.iter().cloned());
            terms.extend(t);
        }
        terms.join(" ")
    }
}

/// A ranked chunk.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Index into [`Index::chunks`].
    pub chunk: usize,
    /// Its BM25 score, boosted when its path or symbol is one the query names.
    pub score: f32,
}

/// The retrieval index of one tree.
pub struct Index {
    /// The commit it was asked for, and its tree (what the index is keyed by).
    pub commit: Oid,
    /// The tree of `commit`.
    pub tree: Oid,
    /// The tree's chunks, as [`Hit::chunk`] indexes them.
    pub chunks: Vec<Chunk>,
    /// The chunks' BM25 index, over their tokens as cached (written out with spaces).
    bm25: bm25::Bm25,
    /// Why the cached index on disk was not used (it was rebuilt), for the caller to say.
    pub rejected_cache: Option<String>,
}

impl Index {
    /// The index of `commit`'s tree: read from the cache, else built (and cached).
    pub fn at(repo: &CodeRepo, commit: Oid) -> Result<Index, git2::Error> {
        Index::load(repo, commit, None, true)
    }

    /// The index of `commit`'s tree: read from the cache, else built and not cached (for the MCP
    /// server, which writes nothing and keeps its index in memory instead).
    pub fn unwritten(repo: &CodeRepo, commit: Oid) -> Result<Index, git2::Error> {
        Index::load(repo, commit, None, false)
    }

    /// The index of `commit`'s tree for a run that knows its queries before it searches
    /// (offline `regenerate`): the same hits for queries whose [`Query::terms`] are all in
    /// `vocabulary`, the postings of no other token built.
    pub fn for_terms(
        repo: &CodeRepo,
        commit: Oid,
        vocabulary: &std::collections::HashSet<&str>,
    ) -> Result<Index, git2::Error> {
        Index::load(repo, commit, Some(vocabulary), true)
    }

    fn load(
        repo: &CodeRepo,
        commit: Oid,
        vocabulary: Option<&std::collections::HashSet<&str>>,
        write: bool,
    ) -> Result<Index, git2::Error> {
        let git = repo.open()?;
        let tree = git.find_commit(commit)?.tree_id();
        let files = repo.paths_at(&git, commit);
        let valid = |c: &chunk::Chunk| c.start >= 1 && c.start <= c.end && files.contains(&c.path);
        let mut rejected = None;
        let entries = match cache::load(&repo.git_dir, tree, valid) {
            Ok(entries) => entries,
            Err(miss) => {
                if let cache::Miss::Rejected(why) = miss {
                    rejected = Some(why);
                }
                let entries = build(repo, commit);
                // A cache that cannot be written (read-only repository) only costs the next run.
                if write {
                    let _ = cache::store(&repo.git_dir, tree, &entries);
                }
                entries
            }
        };
        let terms: Vec<&str> = entries.iter().map(|e| e.terms.as_str()).collect();
        let bm25 = match vocabulary {
            Some(v) => bm25::Bm25::for_vocabulary(&terms, v),
            None => bm25::Bm25::new(&terms),
        };
        let mut index = Index::new(commit, tree, entries, bm25);
        index.rejected_cache = rejected;
        Ok(index)
    }

    fn new(commit: Oid, tree: Oid, entries: Vec<cache::Entry>, bm25: bm25::Bm25) -> Index {
        let chunks = entries.into_iter().map(|e| e.chunk).collect();
        Index {
            commit,
            tree,
            chunks,
            bm25,
            rejected_cache: None,
        }
    }

    /// The `k` best chunks for `query`, best first (ties in chunk order: path, then line).
    pub fn search(&self, query: &Query, k: usize) -> Vec<Hit> {
        let terms = query.terms();
        let mut hits: Vec<Hit> = self
            .bm25
            .scores(terms.split(' '))
            .into_iter()
            .map(|(id, score)| (id as usize, score))
            .filter(|&(id, _)| query.docs || !self.chunks[id].doc)
            .filter(|&(id, _)| !query.exclude.contains(&self.chunks[id].path))
            .map(|(id, score)| {
                let chunk = &self.chunks[id];
                let mut score = score;
                if query.paths.contains(&chunk.path) {
                    score *= PATH_BOOST;
                }
                if chunk
                    .symbol
                    .as_ref()
                    .is_some_and(|s| query.symbols.contains(s))
                {
                    score *= SYMBOL_BOOST;
                }
                Hit { chunk: id, score }
            })
            .filter(|h| h.score > 0.0)
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.chunk.cmp(&b.chunk)));
        hits.truncate(k);
        hits
    }

    /// A chunk's ID in traces and payloads: `path:start-end@tree` (the tree's short ID).
    pub fn id(&self, chunk: usize) -> String {
        let c = &self.chunks[chunk];
        let tree = self.tree.to_string();
        format!("{}:{}-{}@{}", c.path, c.start, c.end, &tree[..12])
    }

    /// A chunk as a retrieval payload entry (the lines every citation must lie in).
    pub fn retrieved(&self, chunk: usize) -> Retrieved {
        let c = &self.chunks[chunk];
        Retrieved {
            path: c.path.clone(),
            lines: LineRange::new(c.start as i64, c.end as i64),
        }
    }

    /// A chunk's lines at the index's commit.
    pub fn text(&self, repo: &CodeRepo, chunk: usize) -> Option<String> {
        let c = &self.chunks[chunk];
        let FileAt::Text(text) = repo.file_at(&repo.worker(), self.commit, &c.path).ok()? else {
            return None;
        };
        let lines: Vec<&str> = text.lines().collect();
        // A range past the file (an index that does not match it) gives nothing, not a guess.
        let range = c.start.checked_sub(1)?..c.end;
        Some(lines.get(range)?.join("\n"))
    }
}

/// Every chunk of every text file at `commit`, with its tokens (path, symbol and lines), in path
/// order; files are read in parallel.
fn build(repo: &CodeRepo, commit: Oid) -> Vec<cache::Entry> {
    let paths = repo.paths_at(&repo.worker(), commit);
    paths
        .paths
        .par_iter()
        .map_init(
            || repo.worker(),
            |git, path| {
                let Ok(FileAt::Text(text)) = repo.file_at(git, commit, path) else {
                    return Vec::new();
                };
                if text.len() > MAX_FILE_BYTES {
                    return Vec::new();
                }
                let lines: Vec<&str> = text.lines().collect();
                chunk::chunks(path, &text)
                    .into_iter()
                    .map(|c| {
                        let mut terms = tokens::tokens(&c.path);
                        terms.extend(c.symbol.iter().flat_map(|s| tokens::tokens(s)));
                        for line in &lines[c.start - 1..c.end] {
                            terms.extend(tokens::tokens(line));
                        }
                        cache::Entry {
                            chunk: c,
                            terms: terms.join(" "),
                        }
                    })
                    .collect()
            },
        )
        .flatten()
        .collect()
}
