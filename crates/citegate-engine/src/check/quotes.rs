//! Quote search: every quote of a blob in one pass over its normalised text, and the search of
//! other files for quotes found nowhere in their own.

use std::collections::{BTreeMap, HashMap, HashSet};

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use git2::Oid;
use rayon::prelude::*;

use super::facts::CiteFacts;
use crate::model::{AuditedDoc, LineRange};
use crate::normalize::{normalize, NormalizedSource};
use crate::resolve::reads::read_each;
use crate::resolve::{CodeRepo, FileAt};

/// Quotes searched in one pass over the files: the automata of 70,000 lost quotes of one answer
/// batch took about 45 MB at once (measured); passes of this many keep them to a few MB.
const QUOTES_PER_PASS: usize = 4_096;

/// Line ranges of every occurrence of each pattern in the normalised text, overlapping ones
/// included.
pub(crate) fn find_all(norm: &NormalizedSource, patterns: &[&str]) -> Vec<Vec<LineRange>> {
    let lines = |(start, end)| {
        let (s, e) = norm.lines_of(start, end);
        LineRange::new(s as i64, e as i64)
    };
    if patterns.len() <= PATTERNS_EACH && patterns.iter().all(|p| !p.is_empty()) {
        let each = |p: &&str| occurrences(&norm.text, p).map(lines).collect();
        return patterns.iter().map(each).collect();
    }
    let mut found = vec![Vec::new(); patterns.len()];
    // Many quotes: a contiguous NFA builds much faster than a DFA and searches nearly as fast
    // at that size.
    let ac = AhoCorasick::builder()
        .kind(Some(AhoCorasickKind::ContiguousNFA))
        .build(patterns);
    if let Ok(ac) = ac {
        for m in ac.find_overlapping_iter(&norm.text) {
            found[m.pattern().as_usize()].push(lines((m.start(), m.end())));
        }
    }
    found
}

/// Where each occurrence of `needle` (not empty) in `text` starts and ends, overlapping ones
/// included, in order.
fn occurrences<'a>(text: &'a str, needle: &'a str) -> impl Iterator<Item = (usize, usize)> + 'a {
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    // The next search starts a character after the last match's start: a match of valid UTF-8
    // in valid UTF-8 starts on a character boundary.
    let step = needle.chars().next().map_or(1, char::len_utf8);
    let mut from = 0;
    std::iter::from_fn(move || {
        let at = from + finder.find(&text.as_bytes()[from..])?;
        from = at + step;
        Some((at, at + needle.len()))
    })
}

/// Another file that holds each quote found nowhere in its own file, for
/// `QuoteFacts::elsewhere`: (index into `facts`, the file), searched at the revision the citation
/// was read at, among files of the same extension. `wanted` says whose quotes are searched for
/// (the rule that reports them is on for the doc). It only reads `facts`: the audit runs it
/// while the stale comparison runs, and writes what it found with `fill_elsewhere`.
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
pub(crate) fn fill_elsewhere(facts: &mut [CiteFacts], found: Vec<(usize, Option<String>)>) {
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
/// once for all the searches whose files it is, at whatever revisions and paths, and scanned once
/// for all their quotes' longest words ([`Prefilter`]); a quote whose longest word the blob does
/// not hold is not searched for in it.
fn search_elsewhere(
    repo: &CodeRepo,
    searches: &[Search],
    skip: &HashSet<&str>,
) -> Vec<Vec<Option<String>>> {
    // Blob → the (search, path) pairs it is a candidate file of. One revision's listing at a
    // time, kept only while its candidates are picked: a wiki citing many revisions would
    // otherwise hold all their listings at once.
    let mut wanted: Vec<usize> = (0..searches.len())
        .filter(|&k| !searches[k].quotes.is_empty())
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
    let (sets, words, blobs) = Prefilter::for_blobs(searches, by_blob);
    let commit_of = |k: usize| searches[k].commit;
    // Blobs are read and searched on every core (see `resolve::reads`).
    let hits: Vec<(usize, usize, String)> = read_each(
        repo,
        &blobs,
        |git, (id, _, places)| repo.blob_at(git, *id, commit_of(places[0].0)),
        |(_, set, places), read| {
            let Ok(FileAt::Text(text)) = read else {
                return Vec::new();
            };
            if text.len() > 1 << 20 {
                return Vec::new();
            }
            let mut norm: Option<String> = None;
            let mut out = Vec::new();
            for (k, quote) in sets[*set].quotes_in(&text, &words) {
                let norm = norm.get_or_insert_with(|| normalize(&text));
                let q = &searches[k].quotes[quote].1;
                if memchr::memmem::find(norm.as_bytes(), q.as_bytes()).is_none() {
                    continue;
                }
                let from = places.partition_point(|p| p.0 < k);
                let same = places[from..].iter().take_while(|p| p.0 == k);
                out.extend(same.map(|(_, path)| (k, quote, path.clone())));
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

/// The longest words of the quotes of every search a set of blobs are candidates of: a blob is
/// scanned for all of them at once, not once per search (a wiki's blob is a candidate of a dozen
/// searches, one per cited revision it is unchanged in), and only the quotes whose word it holds
/// are searched for. Normalisation only touches whitespace, so a quote's longest word occurs
/// verbatim in any file that holds the quote.
struct Prefilter {
    /// For each word, the quotes it is the longest word of: (search, index in its quotes).
    of_word: Vec<Vec<(usize, usize)>>,
    scan: Scan,
}

/// How a [`Prefilter`] finds its words in a text.
enum Scan {
    /// A few words: each with its own vectorised substring search (an automaton over a few
    /// words steps through the text several times slower).
    Each(Vec<memchr::memmem::Finder<'static>>),
    /// More: the run's automaton over every search's words ([`Words`]), one pass; each of
    /// its words that is one of this set's, by index.
    Shared(HashMap<usize, usize>),
}

/// Up to this many patterns (a blob's quotes, a [`Prefilter`]'s words), each is looked for with
/// its own vectorised substring search: an automaton over a few steps through the text several
/// times slower.
const PATTERNS_EACH: usize = 8;

/// The longest word of each quote of a run's searches, once each, and (when a set of searches
/// has more than [`PATTERNS_EACH`] of them) one automaton over all: a DFA, which steps through a
/// text several times faster than an NFA, built once for the run rather than once per set.
struct Words<'a> {
    ids: HashMap<&'a str, usize>,
    automaton: Option<AhoCorasick>,
}

/// Up to this many words the run's automaton is a DFA (its memory grows with them); more, a
/// contiguous NFA.
const WORDS_IN_A_DFA: usize = 2_000;

fn longest_word(quote: &str) -> &str {
    quote.split(' ').max_by_key(|w| w.len()).unwrap_or(quote)
}

impl<'a> Words<'a> {
    fn new(searches: &'a [Search], wanted: bool) -> Words<'a> {
        let mut ids: HashMap<&str, usize> = HashMap::new();
        let mut all: Vec<&str> = Vec::new();
        for (_, q) in searches.iter().flat_map(|s| &s.quotes) {
            let word = longest_word(q);
            ids.entry(word).or_insert_with(|| {
                all.push(word);
                all.len() - 1
            });
        }
        let kind = match all.len() <= WORDS_IN_A_DFA {
            true => AhoCorasickKind::DFA,
            false => AhoCorasickKind::ContiguousNFA,
        };
        let automaton = wanted
            .then(|| AhoCorasick::builder().kind(Some(kind)).build(&all).ok())
            .flatten();
        Words { ids, automaton }
    }
}

impl Prefilter {
    /// One prefilter per distinct set of searches among `by_blob`'s blobs (built on every core),
    /// the run's [`Words`], and each blob with its set's index and its places.
    #[allow(clippy::type_complexity)]
    fn for_blobs(
        searches: &[Search],
        by_blob: BTreeMap<Oid, Vec<(usize, String)>>,
    ) -> (
        Vec<Prefilter>,
        Words<'_>,
        Vec<(Oid, usize, Vec<(usize, String)>)>,
    ) {
        let mut sets: HashMap<Vec<usize>, usize> = HashMap::new();
        let mut blobs: Vec<(Oid, usize, Vec<(usize, String)>)> = by_blob
            .into_iter()
            .map(|(id, places)| {
                let mut set: Vec<usize> = places.iter().map(|p| p.0).collect();
                set.dedup();
                let next = sets.len();
                (id, *sets.entry(set).or_insert(next), places)
            })
            .collect();
        // The versions of one file are read one after another: each is stored as a delta of
        // another, and libgit2's cache of delta bases (16 MB, emptied whole when full) then
        // still holds the base the next one needs (in blob ID order, most reads inflated the
        // chain again: 2.7 inflations per object read).
        blobs.sort_by(|a, b| (&a.2[0].1, a.0).cmp(&(&b.2[0].1, b.0)));
        let mut sets: Vec<(Vec<usize>, usize)> = sets.into_iter().collect();
        sets.sort_by_key(|s| s.1);
        // One set per job: their costs differ by orders of magnitude.
        let mut built: Vec<Prefilter> = sets
            .into_par_iter()
            .with_max_len(1)
            .map(|(set, _)| Prefilter::new(searches, &set))
            .collect();
        let shared = |p: &Prefilter| matches!(p.scan, Scan::Shared(_));
        let words = Words::new(searches, built.iter().any(shared));
        for p in built.iter_mut().filter(|p| shared(p)) {
            p.share(searches, &words);
        }
        (built, words, blobs)
    }

    fn new(searches: &[Search], set: &[usize]) -> Prefilter {
        let mut ids: HashMap<&str, usize> = HashMap::new();
        let mut words: Vec<&str> = Vec::new();
        let mut of_word: Vec<Vec<(usize, usize)>> = Vec::new();
        for &k in set {
            for (i, (_, q)) in searches[k].quotes.iter().enumerate() {
                let word = longest_word(q);
                let id = *ids.entry(word).or_insert_with(|| {
                    words.push(word);
                    of_word.push(Vec::new());
                    words.len() - 1
                });
                of_word[id].push((k, i));
            }
        }
        let scan = match words.len() <= PATTERNS_EACH {
            true => {
                let finder = |w: &&str| memchr::memmem::Finder::new(w.as_bytes()).into_owned();
                Scan::Each(words.iter().map(finder).collect())
            }
            false => Scan::Shared(HashMap::new()),
        };
        Prefilter { of_word, scan }
    }

    /// Index this set's words by their place in the run's automaton.
    fn share(&mut self, searches: &[Search], words: &Words<'_>) {
        let ours = self.of_word.iter().enumerate().map(|(local, quotes)| {
            let (k, i) = quotes[0];
            (words.ids[longest_word(&searches[k].quotes[i].1)], local)
        });
        self.scan = Scan::Shared(ours.collect());
    }

    /// The quotes that may be in `text`, (search, index in its quotes), in order: those whose
    /// word it holds.
    fn quotes_in(&self, text: &str, words: &Words<'_>) -> Vec<(usize, usize)> {
        let held: Vec<bool> = match (&self.scan, &words.automaton) {
            (Scan::Each(finders), _) => (finders.iter())
                .map(|f| f.find(text.as_bytes()).is_some())
                .collect(),
            (Scan::Shared(ours), Some(automaton)) => {
                let mut held = vec![false; self.of_word.len()];
                for m in automaton.find_overlapping_iter(text) {
                    if let Some(&local) = ours.get(&m.pattern().as_usize()) {
                        held[local] = true;
                    }
                }
                held
            }
            // No automaton could be built: every quote is searched for.
            (Scan::Shared(_), None) => vec![true; self.of_word.len()],
        };
        let mut quotes: Vec<(usize, usize)> = (held.into_iter().zip(&self.of_word))
            .filter(|(held, _)| *held)
            .flat_map(|(_, quotes)| quotes.iter().copied())
            .collect();
        quotes.sort_unstable();
        quotes
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every occurrence of each pattern, overlapping ones included, by one automaton: what
    /// `find_all` returned for every blob before it searched a few quotes one by one.
    fn by_automaton(norm: &NormalizedSource, patterns: &[&str]) -> Vec<Vec<LineRange>> {
        let mut found = vec![Vec::new(); patterns.len()];
        let ac = AhoCorasick::new(patterns).unwrap();
        for m in ac.find_overlapping_iter(&norm.text) {
            let (s, e) = norm.lines_of(m.start(), m.end());
            found[m.pattern().as_usize()].push(LineRange::new(s as i64, e as i64));
        }
        found
    }

    #[test]
    fn overlapping_and_repeated_quotes_are_all_found() {
        let norm = NormalizedSource::new("aaa\n  é é é\naaa b\n");
        let patterns = ["aa", "é é", "a b", "aaa", "aa"];
        let found = find_all(&norm, &patterns);
        assert_eq!(found, by_automaton(&norm, &patterns));
        assert_eq!(found[0].len(), 4, "{found:?}");
        assert_eq!(found[1].len(), 2, "{found:?}");
        assert_eq!(found[2], vec![LineRange::new(3, 3)]);
    }

    /// The quotes each set's prefilter lets through for `text`, when a set has a few words (each
    /// looked for on its own) and when it has more (the run's automaton).
    #[test]
    fn a_prefilter_lets_through_exactly_the_quotes_whose_longest_word_a_text_holds() {
        let search = |quotes: &[&str]| Search {
            commit: Oid::ZERO_SHA1,
            extension: None,
            quotes: (quotes.iter().enumerate())
                .map(|(i, q)| (i, q.to_string()))
                .collect(),
        };
        let many: Vec<String> = (0..12).map(|i| format!("x = word{i:02}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let searches = [
            search(&["let alpha = 1", "beta()", "let alpha = 2"]),
            search(&many),
        ];
        let at = |n: u8| Oid::from_bytes(&[n; 20]).unwrap();
        let by_blob = BTreeMap::from([
            (at(1), vec![(0, "a.rs".to_string())]),
            (
                at(2),
                vec![(0, "b.rs".to_string()), (1, "b.rs".to_string())],
            ),
        ]);
        let (sets, words, blobs) = Prefilter::for_blobs(&searches, by_blob);
        let (few, both) = (&sets[blobs[0].1], &sets[blobs[1].1]);
        assert!(matches!(few.scan, Scan::Each(_)) && matches!(both.scan, Scan::Shared(_)));
        let text = "fn f() { alpha; beta(); word03 word11 word1 }";
        assert_eq!(few.quotes_in(text, &words), vec![(0, 0), (0, 1), (0, 2)]);
        assert_eq!(few.quotes_in("beta()", &words), vec![(0, 1)]);
        assert!(few.quotes_in("beta", &words).is_empty());
        assert_eq!(
            both.quotes_in(text, &words),
            vec![(0, 0), (0, 1), (0, 2), (1, 3), (1, 11)]
        );
        assert!(both.quotes_in("nothing here", &words).is_empty());
    }

    proptest::proptest! {
        #[test]
        fn a_few_quotes_one_by_one_are_found_as_by_one_automaton(
            text in "([abé \n]){0,60}",
            patterns in proptest::collection::vec("[abé ]{1,4}", 1..12),
        ) {
            let norm = NormalizedSource::new(&text);
            let patterns: Vec<&str> = patterns.iter().map(String::as_str).collect();
            proptest::prop_assert_eq!(find_all(&norm, &patterns), by_automaton(&norm, &patterns));
        }
    }
}
