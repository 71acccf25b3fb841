//! Quote search: every quote of a blob in one pass over its normalised text, and the search of
//! other files for quotes found nowhere in their own.

use std::collections::{BTreeMap, HashSet};

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use git2::Oid;

use super::facts::CiteFacts;
use crate::model::{AuditedDoc, LineRange};
use crate::normalize::{normalize, NormalizedSource};
use crate::resolve::reads::read_each;
use crate::resolve::{CodeRepo, FileAt};

/// Quotes searched in one pass over the files: the automata of 70,000 lost quotes of one answer
/// batch took about 45 MB at once (measured); passes of this many keep them to a few MB.
const QUOTES_PER_PASS: usize = 4_096;

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

/// Another file that holds each quote found nowhere in its own file, for
/// `QuoteFacts::elsewhere`: (index into `facts`, the file), searched at the revision the citation
/// was read at, among files of the same extension. `wanted` says whose quotes are searched for
/// (the rule that reports them is on for the doc). It only reads `facts`: the audit runs it
/// while the stale comparison runs, and writes what it found with [`fill_elsewhere`].
pub fn elsewhere(
    repo: &CodeRepo,
    docs: &[AuditedDoc],
    facts: &[CiteFacts],
    wanted: impl Fn(&CiteFacts) -> bool,
) -> Vec<(usize, Option<String>)> {
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
    // Searches of at most `QUOTES_PER_PASS` quotes each; a run of them, holding at most that
    // many quotes in all, shares its reads: each blob is read once for every search of the run.
    let mut searches: Vec<Search> = Vec::new();
    for ((commit, ext), quotes) in &lost {
        for pass in quotes.chunks(QUOTES_PER_PASS) {
            searches.push(Search {
                commit: *commit,
                extension: ext.clone(),
                quotes: pass.to_vec(),
            });
        }
    }
    let mut out = Vec::new();
    let mut from = 0;
    while from < searches.len() {
        let mut to = from + 1;
        let mut held = searches[from].quotes.len();
        while to < searches.len() && held + searches[to].quotes.len() <= QUOTES_PER_PASS {
            held += searches[to].quotes.len();
            to += 1;
        }
        let run = &searches[from..to];
        let hits = search_elsewhere(repo, run, &doc_paths);
        for (search, found) in run.iter().zip(hits) {
            out.extend(search.quotes.iter().map(|(i, _)| *i).zip(found));
        }
        from = to;
    }
    out
}

/// Write what [`elsewhere`] found into the facts' quotes.
pub fn fill_elsewhere(facts: &mut [CiteFacts], found: Vec<(usize, Option<String>)>) {
    for (i, hit) in found {
        if let Some(q) = facts[i].quote.as_mut() {
            q.elsewhere = hit;
        }
    }
}

/// Lost quotes (index into the facts, normalised quote) searched for at `commit` among the files
/// with this extension.
struct Search {
    commit: Oid,
    extension: Option<String>,
    quotes: Vec<(usize, String)>,
}

/// For each search, for each of its quotes: the first other file at its revision, with its
/// extension, that holds the quote (text blobs up to 1 MiB; the audited docs, in `skip`, are not
/// searched: a quote is always found in the doc that quotes it). A blob is read and normalised
/// once for all the searches whose files it is, at whatever revisions and paths; a file that
/// holds none of a search's quotes' longest words is not searched for them.
fn search_elsewhere(
    repo: &CodeRepo,
    searches: &[Search],
    skip: &HashSet<&str>,
) -> Vec<Vec<Option<String>>> {
    struct Ready {
        prefilter: AhoCorasick,
        ac: AhoCorasick,
    }
    let ready: Vec<Option<Ready>> = searches
        .iter()
        .map(|s| {
            let words: Vec<&str> = s
                .quotes
                .iter()
                .map(|(_, q)| q.split(' ').max_by_key(|w| w.len()).unwrap_or(q))
                .collect();
            let prefilter = AhoCorasick::builder()
                .kind(Some(AhoCorasickKind::DFA))
                .build(&words)
                .ok()?;
            let ac = AhoCorasick::new(s.quotes.iter().map(|(_, q)| q)).ok()?;
            Some(Ready { prefilter, ac })
        })
        .collect();
    // Blob → the (search, path) pairs it is a candidate file of. One revision's listing at a
    // time, kept only while its candidates are picked: a wiki citing many revisions would
    // otherwise hold all their listings at once.
    let mut wanted: Vec<usize> = (0..searches.len())
        .filter(|&k| ready[k].is_some() && !searches[k].quotes.is_empty())
        .collect();
    wanted.sort_by_key(|&k| (searches[k].commit, k));
    let git = repo.worker();
    let mut by_blob: BTreeMap<Oid, Vec<(usize, String)>> = BTreeMap::new();
    for same in wanted.chunk_by(|a, b| searches[*a].commit == searches[*b].commit) {
        for (id, k, path) in candidates(repo, &git, searches, same, skip) {
            by_blob.entry(id).or_default().push((k, path));
        }
    }
    // Each blob's places by search, as if the searches were listed in order.
    by_blob
        .values_mut()
        .for_each(|places| places.sort_by_key(|p| p.0));
    let blobs: Vec<(Oid, Vec<(usize, String)>)> = by_blob.into_iter().collect();
    let commit_of = |k: usize| searches[k].commit;
    // Blobs are read and searched on every core (see `resolve::reads`).
    let hits: Vec<(usize, usize, String)> = read_each(
        repo,
        &blobs,
        |git, (id, places)| repo.blob_at(git, *id, commit_of(places[0].0)),
        |(_, places), read| {
            let Ok(FileAt::Text(text)) = read else {
                return Vec::new();
            };
            if text.len() > 1 << 20 {
                return Vec::new();
            }
            let mut norm: Option<String> = None;
            let mut out = Vec::new();
            for (k, path) in places {
                let Some(r) = &ready[*k] else { continue };
                if !r.prefilter.is_match(text.as_bytes()) {
                    continue;
                }
                let norm = norm.get_or_insert_with(|| normalize(&text));
                out.extend(
                    r.ac.find_overlapping_iter(norm.as_str())
                        .map(|m| (*k, m.pattern().as_usize(), path.clone())),
                );
            }
            out
        },
    );
    let mut out: Vec<Vec<Option<String>>> = searches
        .iter()
        .map(|s| vec![None; s.quotes.len()])
        .collect();
    // The first file in path order wins, whatever the thread count.
    for (k, quote, path) in hits {
        let slot = &mut out[k][quote];
        if slot.as_ref().is_none_or(|p| path < *p) {
            *slot = Some(path);
        }
    }
    out
}

/// The candidate files of the searches `same` (all at one revision): (blob, search, path) for
/// each file with the search's extension that is not an audited doc.
fn candidates(
    repo: &CodeRepo,
    git: &git2::Repository,
    searches: &[Search],
    same: &[usize],
    skip: &HashSet<&str>,
) -> Vec<(Oid, usize, String)> {
    fn ext(p: &str) -> Option<&str> {
        p.rsplit_once('.').map(|(_, e)| e)
    }
    let files = repo.blob_ids(git, searches[same[0]].commit);
    let mut out = Vec::new();
    for &k in same {
        let wanted = |path: &str| ext(path) == searches[k].extension.as_deref();
        for (path, id) in files
            .iter()
            .filter(|(p, _)| wanted(p) && !skip.contains(p.as_str()))
        {
            out.push((*id, k, path.clone()));
        }
    }
    out
}

/// Every place at `commit` where each text (normalised) occurs, in path then line order, searched
/// in every text file but those `skip` names: what re-anchoring a citation whose content left its
/// file asks (found exactly once, or not re-anchored).
pub fn locate(
    repo: &CodeRepo,
    commit: Oid,
    texts: &[String],
    skip: &HashSet<&str>,
) -> Vec<Vec<(String, LineRange)>> {
    let mut found = scan(
        repo,
        commit,
        texts,
        |p| !skip.contains(p),
        |ac, text| {
            let norm = NormalizedSource::new(text);
            ac.find_overlapping_iter(&norm.text)
                .map(|m| {
                    let (s, e) = norm.lines_of(m.start(), m.end());
                    (m.pattern().as_usize(), LineRange::new(s as i64, e as i64))
                })
                .collect()
        },
    );
    for places in &mut found {
        places.sort_by(|a, b| (&a.0, a.1.start, a.1.end).cmp(&(&b.0, b.1.start, b.1.end)));
    }
    found
}

/// Search the text files at `commit` that `wanted` accepts (up to 1 MiB, in parallel) for the
/// normalised `quotes`; `search` lists the (quote, lines) found in one file. Normalisation only
/// touches whitespace, so each quote's longest word occurs verbatim in any file that holds the
/// quote: files holding none of them are not searched at all.
fn scan(
    repo: &CodeRepo,
    commit: Oid,
    quotes: &[String],
    wanted: impl Fn(&str) -> bool + Sync,
    search: impl Fn(&AhoCorasick, &str) -> Vec<(usize, LineRange)> + Sync,
) -> Vec<Vec<(String, LineRange)>> {
    quotes
        .chunks(QUOTES_PER_PASS)
        .flat_map(|pass| scan_pass(repo, commit, pass, &wanted, &search))
        .collect()
}

/// One pass of [`scan`].
fn scan_pass(
    repo: &CodeRepo,
    commit: Oid,
    quotes: &[String],
    wanted: &(impl Fn(&str) -> bool + Sync),
    search: &(impl Fn(&AhoCorasick, &str) -> Vec<(usize, LineRange)> + Sync),
) -> Vec<Vec<(String, LineRange)>> {
    let mut out = vec![Vec::new(); quotes.len()];
    if quotes.is_empty() {
        return out; // nothing to look for: no file is read
    }
    let words: Vec<&str> = quotes
        .iter()
        .map(|q| q.split(' ').max_by_key(|w| w.len()).unwrap_or(q))
        .collect();
    // The prefilter runs over every candidate file's bytes: a DFA scans fastest (at most
    // `QUOTES_PER_PASS` words: its memory grows with them).
    let prefilter = AhoCorasick::builder()
        .kind(Some(AhoCorasickKind::DFA))
        .build(&words);
    let (Ok(ac), Ok(prefilter)) = (AhoCorasick::new(quotes), prefilter) else {
        return out;
    };
    let paths = repo.paths(commit);
    let candidates: Vec<usize> = (0..paths.paths.len())
        .filter(|&i| wanted(&paths.paths[i]))
        .collect();
    // Files are read and searched on every core (see `resolve::reads`).
    let hits: Vec<(usize, usize, LineRange)> = read_each(
        repo,
        &candidates,
        |git, &i| repo.file_at(git, commit, &paths.paths[i]),
        |&i, read| {
            let Ok(FileAt::Text(text)) = read else {
                return Vec::new();
            };
            if text.len() > 1 << 20 || !prefilter.is_match(text.as_bytes()) {
                return Vec::new();
            }
            search(&ac, &text)
                .into_iter()
                .map(|(quote, lines)| (quote, i, lines))
                .collect()
        },
    );
    for (quote, i, lines) in hits {
        out[quote].push((paths.paths[i].clone(), lines));
    }
    out
}
