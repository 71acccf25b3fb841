//! BM25 (k1 = 1.2, b = 0.75) over the chunks' tokens, with the scores the `bm25` crate gave
//! (this replaces it): a chunk's weight for a token is `tf·(k1+1) / (tf + k1·(1−b+b·dl/avgdl))`,
//! a token's IDF `ln(1 + (N−n+0.5)/(n+0.5))`, and a chunk's score the sum, over the query's tokens
//! in order (a repeated token counting again), of IDF × weight, in `f32` in the same order.
//!
//! Built as one inverted index (token → the chunks holding it, with their weights) from the
//! chunks' tokens borrowed where they are: no string per token, no embedding per chunk, no set
//! per token. Tokens are told apart by their text (the crate compared 32-bit hashes).

use foldhash::{HashMap, HashMapExt, HashSet};
use rayon::prelude::*;

const K1: f32 = 1.2;
const B: f32 = 0.75;
/// The average length used when there is none (an empty index), as the crate did.
const FALLBACK_AVGDL: f32 = 256.0;

/// The inverted index of a set of docs (chunks), each a string of tokens separated by spaces.
pub(super) struct Bm25 {
    ids: HashMap<Box<str>, u32>,
    /// By token ID: every doc holding the token (ascending), with its weight there.
    postings: Vec<Vec<(u32, f32)>>,
    docs: usize,
}

/// A doc's tokens: split on spaces, empty ones skipped.
fn tokens(doc: &str) -> impl Iterator<Item = &str> {
    doc.split(' ').filter(|t| !t.is_empty())
}

/// A doc's length in tokens and its term frequencies (of the tokens `keep` accepts), by token.
fn counted<'d>(doc: &'d str, keep: &impl Fn(&str) -> bool) -> (usize, Vec<(&'d str, u32)>) {
    let mut len = 0;
    let mut kept: Vec<&str> = tokens(doc)
        .inspect(|_| len += 1)
        .filter(|t| keep(t))
        .collect();
    kept.sort_unstable();
    let mut tf: Vec<(&str, u32)> = Vec::with_capacity(kept.len());
    for t in kept {
        match tf.last_mut() {
            Some((last, n)) if *last == t => *n += 1,
            _ => tf.push((t, 1)),
        }
    }
    (len, tf)
}

impl Bm25 {
    /// The index of every token of `docs`.
    pub(super) fn new(docs: &[&str]) -> Bm25 {
        Bm25::build(docs, |_| true)
    }

    /// The index of `docs` for queries made of `vocabulary` only: the same scores for them,
    /// postings kept for those tokens alone (the lengths still count every token).
    pub(super) fn for_vocabulary(
        docs: &[&str],
        vocabulary: &std::collections::HashSet<&str>,
    ) -> Bm25 {
        let only: HashSet<&str> = vocabulary.iter().copied().collect();
        Bm25::build(docs, |t| only.contains(t))
    }

    fn build(docs: &[&str], keep: impl Fn(&str) -> bool + Sync) -> Bm25 {
        // Each doc's length and term frequencies, in parallel; the index is filled in doc order.
        let counted: Vec<(usize, Vec<(&str, u32)>)> =
            docs.par_iter().map(|doc| counted(doc, &keep)).collect();
        let total: u64 = counted.iter().map(|(len, _)| *len as u64).sum();
        let avgdl = match docs.is_empty() {
            true => 0.0,
            false => (total as f64 / docs.len() as f64) as f32,
        };
        let avgdl = if avgdl <= 0.0 { FALLBACK_AVGDL } else { avgdl };
        let mut index = Bm25 {
            ids: HashMap::new(),
            postings: Vec::new(),
            docs: docs.len(),
        };
        for (doc, (len, tfs)) in counted.into_iter().enumerate() {
            let norm = K1 * (1.0 - B + B * (len as f32 / avgdl));
            for (token, tf) in tfs {
                let tf = tf as f32;
                let weight = tf * (K1 + 1.0) / (tf + norm);
                let id = index.id(token);
                index.postings[id as usize].push((doc as u32, weight));
            }
        }
        index
    }

    fn id(&mut self, token: &str) -> u32 {
        if let Some(&id) = self.ids.get(token) {
            return id;
        }
        let id = self.postings.len() as u32;
        self.ids.insert(token.into(), id);
        self.postings.push(Vec::new());
        id
    }

    fn idf(&self, id: u32) -> f32 {
        let n = self.postings[id as usize].len() as f32;
        (1.0 + (self.docs as f32 - n + 0.5) / (n + 0.5)).ln()
    }

    /// Every doc holding at least one of `query`'s tokens, with its score, in doc order.
    pub(super) fn scores<'q>(&self, query: impl IntoIterator<Item = &'q str>) -> Vec<(u32, f32)> {
        let mut score: HashMap<u32, f32> = HashMap::new();
        for token in query.into_iter().filter(|t| !t.is_empty()) {
            let Some(&id) = self.ids.get(token) else {
                continue;
            };
            let idf = self.idf(id);
            for &(doc, weight) in &self.postings[id as usize] {
                *score.entry(doc).or_insert(0.0) += idf * weight;
            }
        }
        let mut out: Vec<(u32, f32)> = score.into_iter().collect();
        out.sort_unstable_by_key(|(doc, _)| *doc);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_bm25_and_only_for_docs_holding_a_token() {
        let docs = ["cache ttl cache", "rate limit", "ttl"];
        let index = Bm25::new(&docs);
        let got = index.scores(["ttl"]);
        assert_eq!(got.iter().map(|(d, _)| *d).collect::<Vec<_>>(), [0, 2]);
        // By hand: avgdl = 6/3 = 2; N = 3, n = 2; doc 2 has tf 1, dl 1.
        let idf = (1.0f32 + (3.0 - 2.0 + 0.5) / (2.0 + 0.5)).ln();
        let weight = 1.0 * (K1 + 1.0) / (1.0 + K1 * (1.0 - B + B * (1.0 / 2.0)));
        assert_eq!(got[1].1, idf * weight);
        // A repeated query token counts again; an unknown one adds nothing.
        let twice = index.scores(["ttl", "ttl", "nowhere"]);
        assert_eq!(twice[1].1, idf * weight + idf * weight);
        assert!(index.scores(["nowhere"]).is_empty());
        assert!(Bm25::new(&[]).scores(["a"]).is_empty());
        // Built for a vocabulary, the same scores for queries of it.
        let vocabulary = ["ttl", "nowhere"].into_iter().collect();
        let only = Bm25::for_vocabulary(&docs, &vocabulary);
        assert_eq!(only.scores(["ttl", "ttl", "nowhere"]), twice);
        assert!(only.scores(["cache"]).is_empty());
    }
}
