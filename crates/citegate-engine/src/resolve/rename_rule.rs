//! git's rename rule: which deleted file an added one was renamed from, as `git diff
//! --find-renames`, `git log --follow` and `git blame` pair them (diffcore-rename, git 2.33 and
//! later), so that every history walk here agrees with git near the 50% threshold too, where
//! libgit2's own similarity measure scores differently.
//!
//! The passes, in git's order, each over what the one before left:
//! 1. exact: an added file whose blob a deleted file had (the first such by path, one with the
//!    same file name first);
//! 2. same file name: a deleted and an added file whose name is unique on its side among the files
//!    left, at least 75% similar;
//! 3. the limit: more than `limit`² pairs of deleted × added files left and the inexact pass is
//!    skipped (a limit of 0 or less: none), reported as [`RenamesSkipped`];
//! 4. inexact: each added file's four best candidates by score (then same file name), all
//!    candidates ranked, and pairs taken best first while both files are free, down to 50%.
//!
//! The score is git's (diffcore-delta): both files cut into chunks at each line end or every 64
//! bytes (a CR before a LF left out of a text file; a last line without its line end is a chunk
//! too), each chunk hashed; the bytes of the chunks the
//! added file shares with the deleted one, over the larger file's size. A file whose size differs
//! by more than half from the other's is not scored at all. Only regular files are scored.

use foldhash::HashMap;
use git2::{Oid, Repository};
use rayon::prelude::*;

use crate::model::RenamesSkipped;

/// git's `diff.renameLimit` when it is not set (the default of `git diff`; merges use more; `git
/// blame` reads no configuration and always uses it).
pub const GIT_RENAME_LIMIT: i64 = 1000;

/// A score of 100%.
const MAX_SCORE: u64 = 60_000;
/// git's default `-M` threshold, 50%.
const MIN_SCORE: u64 = MAX_SCORE / 2;
/// The threshold of the same-file-name pass, halfway from 50% to 100%.
const MIN_BASENAME_SCORE: u64 = MIN_SCORE + (MAX_SCORE - MIN_SCORE) / 2;
/// How many candidates each added file keeps.
const CANDIDATES: usize = 4;
/// How many files with the very same blob git looks at for one added file.
const IDENTICAL_ALTERNATIVES: usize = 100;

/// Lends a handle on the same repository to work on another thread (`CodeRepo::with_handle`), so
/// that the blobs of a large matrix are read on every core.
pub type Lend<'a> = &'a (dyn Fn(&mut dyn FnMut(&Repository)) + Sync);

/// A matrix with fewer blobs than this to read, or fewer pairs to score, is done on the asking
/// thread.
const PARALLEL_READS: usize = 64;

/// A deleted or an added file of a diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    /// The file's repo-relative path.
    pub path: String,
    /// The file's blob on its side of the diff.
    pub blob: Oid,
    /// The file mode (`0o100644`, `0o100755`, `0o120000`, …).
    pub mode: u32,
}

impl Side {
    fn regular(&self) -> bool {
        self.mode & 0o170000 == 0o100000
    }
}

/// The files a diff deletes and adds.
#[derive(Debug, Default)]
pub(crate) struct Sides {
    pub deleted: Vec<Side>,
    pub added: Vec<Side>,
}

/// The pairs found, as (index in `sources`, index in `targets`), and whether the inexact pass was
/// skipped at the limit.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// Each rename, as (index in `sources`, index in `targets`).
    pub pairs: Vec<(usize, usize)>,
    /// Set when the inexact pass was skipped at the rename limit.
    pub skipped: Option<RenamesSkipped>,
}

/// Whether a matrix of `sources` × `targets` files is past git's `limit` (0 or less: no limit).
pub(crate) fn too_many(sources: usize, targets: usize, limit: i64) -> bool {
    limit > 0 && (sources as u128) * (targets as u128) > (limit as u128).pow(2)
}

/// The limit of the repository's configuration: `diff.renameLimit`, else git's default.
pub(crate) fn configured_limit(git: &Repository) -> i64 {
    git.config()
        .and_then(|c| c.get_i64("diff.renameLimit"))
        .unwrap_or(GIT_RENAME_LIMIT)
}

/// Pair the deleted files `sources` with the added files `targets` as git does (see the module
/// doc), reading blobs from `git` only where a score is needed (a large matrix's on every core,
/// through handles `lend` lends, when it is given).
pub fn find(
    git: &Repository,
    lend: Option<Lend<'_>>,
    sources: &[Side],
    targets: &[Side],
    limit: i64,
) -> Result<Found, git2::Error> {
    let mut m = Matcher {
        git,
        lend,
        sources: by_path(sources),
        targets: by_path(targets),
        used: vec![false; sources.len()],
        taken: vec![false; targets.len()],
        sizes: HashMap::default(),
        spans: HashMap::default(),
        found: Found::default(),
        all: (sources, targets),
    };
    m.exact();
    m.same_name()?;
    let left_sources = m.sources.iter().filter(|&&s| !m.used[s]).count();
    let left_targets = m.targets.iter().filter(|&&t| !m.taken[t]).count();
    if left_sources == 0 || left_targets == 0 {
        return Ok(m.found);
    }
    if too_many(left_sources, left_targets, limit) {
        m.found.skipped = Some(RenamesSkipped {
            commit: None,
            limit: limit as usize,
            needed: left_sources.max(left_targets),
        });
        return Ok(m.found);
    }
    m.inexact()?;
    Ok(m.found)
}

/// Indices of `files`, by path (git keeps both lists sorted so).
fn by_path(files: &[Side]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by(|&a, &b| files[a].path.cmp(&files[b].path));
    order
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// A candidate pair: its score, whether the file names are the same, and the pair.
type Candidate = (u64, bool, usize, usize);

struct Matcher<'a> {
    git: &'a Repository,
    lend: Option<Lend<'a>>,
    all: (&'a [Side], &'a [Side]),
    sources: Vec<usize>,
    targets: Vec<usize>,
    used: Vec<bool>,
    taken: Vec<bool>,
    /// Each blob's size, and its chunks once read.
    sizes: HashMap<Oid, u64>,
    spans: HashMap<Oid, Spans>,
    found: Found,
}

impl<'a> Matcher<'a> {
    fn pair(&mut self, s: usize, t: usize) {
        self.used[s] = true;
        self.taken[t] = true;
        self.found.pairs.push((s, t));
    }

    /// Pass 1: the same blob.
    fn exact(&mut self) {
        let (sources, targets) = self.all;
        let mut by_blob: HashMap<Oid, Vec<usize>> = HashMap::default();
        for &s in &self.sources {
            by_blob.entry(sources[s].blob).or_default().push(s);
        }
        for &t in &self.targets.clone() {
            let target = &targets[t];
            let Some(same) = by_blob.get(&target.blob) else {
                continue;
            };
            let fits = |s: &&usize| {
                let source = &sources[**s];
                !self.used[**s]
                    && ((source.regular() && target.regular()) || source.mode == target.mode)
            };
            let looked: Vec<usize> = same
                .iter()
                .filter(fits)
                .take(IDENTICAL_ALTERNATIVES)
                .copied()
                .collect();
            let named = looked
                .iter()
                .find(|&&s| file_name(&sources[s].path) == file_name(&target.path));
            if let Some(&s) = named.or(looked.first()) {
                self.pair(s, t);
            }
        }
    }

    /// Pass 2: a file name unique among the deleted files left and among the added files left.
    fn same_name(&mut self) -> Result<(), git2::Error> {
        let (sources, targets) = self.all;
        let unique = |files: &'a [Side], order: &[usize], free: &[bool]| {
            let mut names: HashMap<&'a str, Option<usize>> = HashMap::default();
            for &i in order.iter().filter(|&&i| free[i]) {
                names
                    .entry(file_name(&files[i].path))
                    .and_modify(|e| *e = None)
                    .or_insert(Some(i));
            }
            names
        };
        let free_sources: Vec<bool> = self.used.iter().map(|u| !u).collect();
        let free_targets: Vec<bool> = self.taken.iter().map(|u| !u).collect();
        let source_names = unique(sources, &self.sources, &free_sources);
        let target_names = unique(targets, &self.targets, &free_targets);
        for &t in &self.targets.clone() {
            let name = file_name(&targets[t].path);
            let (Some(Some(s)), Some(Some(_))) = (source_names.get(name), target_names.get(name))
            else {
                continue;
            };
            if self.taken[t] || self.used[*s] {
                continue;
            }
            if self.score(*s, t, MIN_BASENAME_SCORE)? >= MIN_BASENAME_SCORE {
                self.pair(*s, t);
            }
        }
        Ok(())
    }

    /// Pass 4: the best candidates first. Every pair is scored: the blobs those scores need are
    /// read first, then each added file's candidates are found on every core.
    fn inexact(&mut self) -> Result<(), git2::Error> {
        let free = |order: &[usize], done: &[bool]| -> Vec<usize> {
            order.iter().copied().filter(|&i| !done[i]).collect()
        };
        let (sources, targets) = (
            free(&self.sources, &self.used),
            free(&self.targets, &self.taken),
        );
        self.read_scored(&sources, &targets)?;
        let scores = self.scores();
        let best_of = |&t: &usize| scores.best(t, &sources);
        let rows: Vec<Vec<Candidate>> = match targets.len() * sources.len() >= PARALLEL_READS {
            true => targets.par_iter().map(best_of).collect(),
            false => targets.iter().map(best_of).collect(),
        };
        let mut ranked: Vec<Candidate> = rows.into_iter().flatten().collect();
        // Stable: equal candidates stay in the order of the added, then the deleted, files.
        ranked.sort_by_key(|c| std::cmp::Reverse(rank(c)));
        for (score, _, s, t) in ranked {
            if score < MIN_SCORE {
                break;
            }
            if !self.taken[t] && !self.used[s] {
                self.pair(s, t);
            }
        }
        Ok(())
    }

    /// Read the blobs that scoring every pair of `sources` × `targets` needs (each size read in
    /// the order the pairs are scored in, as [`Matcher::score`] reads them).
    fn read_scored(&mut self, sources: &[usize], targets: &[usize]) -> Result<(), git2::Error> {
        let (mut source_needed, mut target_needed) =
            (vec![false; sources.len()], vec![false; targets.len()]);
        for (j, &t) in targets.iter().enumerate() {
            for (i, &s) in sources.iter().enumerate() {
                if self.needs_read(s, t, MIN_SCORE)? {
                    (source_needed[i], target_needed[j]) = (true, true);
                }
            }
        }
        let (all_sources, all_targets) = self.all;
        let needed = (sources.iter().zip(&source_needed))
            .map(|(&s, &n)| (all_sources[s].blob, n))
            .chain((targets.iter().zip(&target_needed)).map(|(&t, &n)| (all_targets[t].blob, n)));
        let mut blobs: Vec<Oid> = Vec::new();
        let mut seen: foldhash::HashSet<Oid> = foldhash::HashSet::default();
        for (blob, n) in needed {
            if n && !self.spans.contains_key(&blob) && seen.insert(blob) {
                blobs.push(blob);
            }
        }
        self.read_all(blobs)
    }

    /// Read the chunks of `blobs`: through lent handles on every core when there are many.
    fn read_all(&mut self, blobs: Vec<Oid>) -> Result<(), git2::Error> {
        let threads = rayon::current_num_threads();
        let lend = match self.lend {
            Some(lend) if threads > 1 && blobs.len() >= PARALLEL_READS => lend,
            _ => return blobs.into_iter().try_for_each(|b| self.read(b)),
        };
        let per_job = blobs.len().div_ceil(threads * 2);
        let read: Vec<Result<Vec<(Oid, Spans)>, git2::Error>> = (blobs.par_chunks(per_job))
            .map(|chunk| {
                let mut out = Err(git2::Error::from_str("no handle was lent"));
                lend(&mut |git| {
                    out = (chunk.iter())
                        .map(|&b| Ok((b, Spans::of(git.find_blob(b)?.content()))))
                        .collect();
                });
                out
            })
            .collect();
        for chunk in read {
            self.spans.extend(chunk?);
        }
        Ok(())
    }

    /// git's similarity of the deleted file `s` and the added file `t` (0 when their sizes alone
    /// rule out `minimum`, or either is not a regular file).
    fn score(&mut self, s: usize, t: usize, minimum: u64) -> Result<u64, git2::Error> {
        if self.needs_read(s, t, minimum)? {
            self.read(self.all.0[s].blob)?;
            self.read(self.all.1[t].blob)?;
        }
        Ok(self.scores().score(s, t, minimum))
    }

    /// Whether scoring `s` against `t` reads their blobs: both regular files whose sizes do not
    /// rule out `minimum` alone.
    fn needs_read(&mut self, s: usize, t: usize, minimum: u64) -> Result<bool, git2::Error> {
        let (source, target) = (&self.all.0[s], &self.all.1[t]);
        if !source.regular() || !target.regular() {
            return Ok(false);
        }
        let (a, b) = (self.size(source.blob)?, self.size(target.blob)?);
        Ok(close_enough(a, b, minimum))
    }

    fn scores(&self) -> Scores<'_> {
        Scores {
            all: self.all,
            sizes: &self.sizes,
            spans: &self.spans,
        }
    }

    fn size(&mut self, blob: Oid) -> Result<u64, git2::Error> {
        if let Some(&size) = self.sizes.get(&blob) {
            return Ok(size);
        }
        let (size, _) = self.git.odb()?.read_header(blob)?;
        self.sizes.insert(blob, size as u64);
        Ok(size as u64)
    }

    fn read(&mut self, blob: Oid) -> Result<(), git2::Error> {
        if let std::collections::hash_map::Entry::Vacant(slot) = self.spans.entry(blob) {
            let bytes = self.git.find_blob(blob)?;
            slot.insert(Spans::of(bytes.content()));
        }
        Ok(())
    }
}

/// How a candidate ranks: by score, then by a same file name.
fn rank(c: &Candidate) -> (u64, bool) {
    (c.0, c.1)
}

/// Whether sizes `a` and `b` leave a score of `minimum` possible: git scores no pair whose larger
/// file is bigger by more than `minimum` allows.
fn close_enough(a: u64, b: u64, minimum: u64) -> bool {
    let (max, base) = (a.max(b), a.min(b));
    max * (MAX_SCORE - minimum) >= (max - base) * MAX_SCORE
}

/// Scores from sizes and chunks already read, shared by the threads of a matrix.
struct Scores<'m> {
    all: (&'m [Side], &'m [Side]),
    sizes: &'m HashMap<Oid, u64>,
    spans: &'m HashMap<Oid, Spans>,
}

impl Scores<'_> {
    /// [`Matcher::score`], from what was read for it.
    fn score(&self, s: usize, t: usize, minimum: u64) -> u64 {
        let (source, target) = (&self.all.0[s], &self.all.1[t]);
        if !source.regular() || !target.regular() {
            return 0;
        }
        let (a, b) = (self.sizes[&source.blob], self.sizes[&target.blob]);
        if !close_enough(a, b, minimum) {
            return 0;
        }
        let copied = self.spans[&source.blob].copied_to(&self.spans[&target.blob]);
        copied * MAX_SCORE / a.max(b).max(1)
    }

    /// The added file `t`'s best candidates among `sources`, in the order git keeps them.
    fn best(&self, t: usize, sources: &[usize]) -> Vec<Candidate> {
        let (all_sources, targets) = self.all;
        let mut best: Vec<Candidate> = Vec::with_capacity(CANDIDATES + 1);
        for &s in sources {
            let named = file_name(&all_sources[s].path) == file_name(&targets[t].path);
            let c = (self.score(s, t, MIN_SCORE), named, s, t);
            // Kept only when strictly better than the worst kept: the first of equals stays.
            if best.len() < CANDIDATES {
                best.push(c);
            } else if let Some(worst) = (0..CANDIDATES).min_by_key(|&i| rank(&best[i])) {
                if rank(&c) > rank(&best[worst]) {
                    best[worst] = c;
                }
            }
        }
        best
    }
}

/// A file's chunks, as git counts them: bytes per chunk hash, sorted by hash.
#[derive(Debug)]
struct Spans {
    counts: Vec<(u32, u64)>,
}

/// The prime git takes chunk hashes modulo.
const HASHBASE: u32 = 107_927;

impl Spans {
    fn of(bytes: &[u8]) -> Spans {
        // git's test for a binary file: a NUL in its first 8,000 bytes.
        let text = !bytes[..bytes.len().min(8000)].contains(&0);
        // Each chunk's hash and size, then summed per hash once sorted (no hash table: a file
        // has about as many chunks as lines, most of them distinct).
        let mut chunks: Vec<(u32, u64)> = Vec::with_capacity(bytes.len() / 32 + 1);
        let (mut n, mut acc1, mut acc2) = (0u64, 0u32, 0u32);
        for (i, &c) in bytes.iter().enumerate() {
            if text && c == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
                continue;
            }
            let old1 = acc1;
            acc1 = (acc1 << 7) ^ (acc2 >> 25);
            acc2 = (acc2 << 7) ^ (old1 >> 25);
            acc1 = acc1.wrapping_add(u32::from(c));
            n += 1;
            if n < 64 && c != b'\n' {
                continue;
            }
            chunks.push((acc1.wrapping_add(acc2.wrapping_mul(0x61)) % HASHBASE, n));
            (n, acc1, acc2) = (0, 0, 0);
        }
        if n > 0 {
            // The last line, without its line end: a chunk too (as git 2.47 counts it).
            chunks.push((acc1.wrapping_add(acc2.wrapping_mul(0x61)) % HASHBASE, n));
        }
        chunks.sort_unstable_by_key(|c| c.0);
        chunks.dedup_by(|next, kept| {
            let same = next.0 == kept.0;
            if same {
                kept.1 += next.1;
            }
            same
        });
        Spans { counts: chunks }
    }

    /// The bytes of `self` found again in `to`: per chunk hash, the smaller of the two counts.
    fn copied_to(&self, to: &Spans) -> u64 {
        let (mut copied, mut theirs) = (0, to.counts.iter().peekable());
        for &(hash, count) in &self.counts {
            while theirs.next_if(|(h, _)| *h < hash).is_some() {}
            if let Some((_, other)) = theirs.next_if(|(h, _)| *h == hash) {
                copied += count.min(*other);
            }
        }
        copied
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_end_at_line_ends_and_every_64_bytes() {
        let s = Spans::of(b"ab\ncd\nab\n");
        // Two distinct lines, "ab\n" twice.
        assert_eq!(s.counts.len(), 2);
        assert_eq!(s.counts.iter().map(|c| c.1).sum::<u64>(), 9);
        let long = Spans::of(&[b'x'; 130]);
        // Two chunks of 64, then the last two bytes.
        assert_eq!(long.counts.len(), 2);
        assert_eq!(long.counts.iter().map(|c| c.1).sum::<u64>(), 130);
    }

    #[test]
    fn a_cr_before_a_lf_is_left_out_of_text_only() {
        let crlf = Spans::of(b"ab\r\n");
        let lf = Spans::of(b"ab\n");
        assert_eq!(crlf.counts, lf.counts);
        let binary = Spans::of(b"\0b\r\n");
        assert_eq!(binary.counts[0].1, 4);
    }

    #[test]
    fn copied_bytes_are_the_smaller_count_per_chunk() {
        let a = Spans::of(b"one\none\ntwo\n");
        let b = Spans::of(b"one\nthree\n");
        assert_eq!(a.copied_to(&b), 4);
        assert_eq!(b.copied_to(&a), 4);
    }

    #[test]
    fn the_limit_is_a_square_and_zero_is_none() {
        assert!(!too_many(1000, 1000, 1000));
        assert!(too_many(1001, 1000, 1000));
        assert!(!too_many(1_000_000, 1, 1000));
        assert!(!too_many(5000, 5000, 0));
    }
}
