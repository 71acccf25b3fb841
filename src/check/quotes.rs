//! Quote search: every quote of a blob in one pass over its normalised text, and the search of
//! other files for quotes found nowhere in their own.

use std::collections::{BTreeMap, HashSet};

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use git2::Oid;
use rayon::prelude::*;

use super::facts::CiteFacts;
use crate::model::{AuditedDoc, LineRange};
use crate::normalize::{normalize, NormalizedSource};
use crate::resolve::{CodeRepo, FileAt};

/// Line ranges of every occurrence of each pattern in the normalised text, in one pass.
pub fn find_all(norm: &NormalizedSource, patterns: &[&str]) -> Vec<Vec<LineRange>> {
    let mut found = vec![Vec::new(); patterns.len()];
    let push = |found: &mut Vec<Vec<LineRange>>, id: usize, start: usize, end: usize| {
        let (s, e) = norm.lines_of(start, end);
        found[id].push(LineRange::new(s as i64, e as i64));
    };
    match patterns {
        [] => return found,
        // Most blobs have one quote: a substring search needs no automaton.
        [one] if !one.is_empty() => {
            let step = one.chars().next().map_or(1, char::len_utf8);
            let mut from = 0;
            while let Some(i) = norm.text[from..].find(one) {
                push(&mut found, 0, from + i, from + i + one.len());
                from += i + step;
            }
            return found;
        }
        _ => {}
    }
    // A blob has few quotes: a contiguous NFA builds much faster than a DFA and searches nearly as
    // fast at that size.
    let ac = AhoCorasick::builder()
        .kind(Some(AhoCorasickKind::ContiguousNFA))
        .build(patterns);
    if let Ok(ac) = ac {
        for m in ac.find_overlapping_iter(&norm.text) {
            push(&mut found, m.pattern().as_usize(), m.start(), m.end());
        }
    }
    found
}

/// Name another file that holds each quote found nowhere in its own file (`QuoteFacts::elsewhere`),
/// searched at the revision the citation was read at, among files of the same extension. `wanted`
/// says whose quotes are searched for (the rule that reports them is on for the doc).
pub fn fill_elsewhere(
    repo: &CodeRepo,
    docs: &[AuditedDoc],
    facts: &mut [CiteFacts],
    wanted: impl Fn(&CiteFacts) -> bool,
) {
    // Lost quotes by (revision, file extension): (index into facts, quote).
    type Lost = BTreeMap<(Oid, Option<String>), Vec<(usize, String)>>;
    let mut lost = Lost::new();
    for (i, f) in facts.iter().enumerate() {
        let Some(q) = f.quote.as_ref().filter(|q| q.found.is_empty()) else {
            continue;
        };
        if !wanted(f) {
            continue;
        }
        let ext = docs[f.cite.doc]
            .citation(f.cite.index)
            .repo_path()
            .and_then(|p| p.rsplit_once('.'))
            .map(|(_, e)| e.to_string());
        lost.entry((f.commit, ext))
            .or_default()
            .push((i, q.normalized.clone()));
    }
    // The audited docs are skipped: a quote is always found in the doc that quotes it.
    let doc_paths: HashSet<&str> = docs
        .iter()
        .filter(|d| d.doc.repo_dir.is_some())
        .map(|d| d.doc.name.as_str())
        .collect();
    for ((commit, ext), quotes) in lost {
        let texts: Vec<String> = quotes.iter().map(|(_, q)| q.clone()).collect();
        let hits = find_quotes_elsewhere(repo, commit, &texts, ext.as_deref(), &doc_paths);
        for ((i, _), hit) in quotes.iter().zip(hits) {
            if let Some(q) = facts[*i].quote.as_mut() {
                q.elsewhere = hit;
            }
        }
    }
}

/// For quotes found nowhere in their own file: the first other file at `commit`, with the same
/// extension as the cited one, that holds each (text blobs up to 1 MiB, one automaton for all the
/// quotes). The audited docs are skipped: a quote is always found in the doc that quotes it.
pub fn find_quotes_elsewhere(
    repo: &CodeRepo,
    commit: Oid,
    quotes: &[String],
    extension: Option<&str>,
    skip: &HashSet<&str>,
) -> Vec<Option<String>> {
    let Ok(ac) = AhoCorasick::new(quotes) else {
        return vec![None; quotes.len()];
    };
    // Normalisation only touches whitespace, so each quote's longest word occurs verbatim in any
    // file that holds the quote: files holding none of them are not normalised at all.
    let words: Vec<&str> = quotes
        .iter()
        .map(|q| q.split(' ').max_by_key(|w| w.len()).unwrap_or(q))
        .collect();
    let Ok(prefilter) = AhoCorasick::new(&words) else {
        return vec![None; quotes.len()];
    };
    let paths = repo.paths_at(&repo.worker(), commit);
    let ext = |p: &str| p.rsplit_once('.').map(|(_, e)| e.to_string());
    // A quote is looked for in files of the cited file's language only, in parallel; the first
    // file in path order wins, whatever the thread count.
    let hits: Vec<(usize, usize)> = paths
        .paths
        .par_iter()
        .enumerate()
        .filter(|(_, p)| !skip.contains(p.as_str()) && ext(p).as_deref() == extension)
        .map_init(
            || repo.worker(),
            |git, (i, path)| {
                let Ok(FileAt::Text(text)) = repo.file_at(git, commit, path) else {
                    return Vec::new();
                };
                if text.len() > 1 << 20 || !prefilter.is_match(text.as_bytes()) {
                    return Vec::new();
                }
                let norm = normalize(&text);
                ac.find_overlapping_iter(&norm)
                    .map(|m| (m.pattern().as_usize(), i))
                    .collect()
            },
        )
        .flatten()
        .collect();
    let mut first: Vec<Option<usize>> = vec![None; quotes.len()];
    for (quote, i) in hits {
        let slot = &mut first[quote];
        *slot = Some(slot.map_or(i, |best| best.min(i)));
    }
    first
        .into_iter()
        .map(|f| f.map(|i| paths.paths[i].clone()))
        .collect()
}
