//! Every file path at one commit, indexed for the suggestions a missing path gets (the same
//! file name elsewhere, a near name in the same or a near folder). [`super::CodeRepo`] builds one
//! per commit and caches it.

use rapidfuzz::distance::levenshtein;

/// Every file path at one commit, indexed by file name and folder for suggestions. The indexes
/// are positions into `paths`, sorted: a wiki citing many revisions keeps one index per
/// revision, so they hold no copies of the names.
#[derive(Debug, Default)]
pub struct PathIndex {
    /// Sorted.
    pub paths: Vec<String>,
    /// Positions in `paths`, by file name (in path order within a name).
    by_name: Vec<u32>,
    /// Positions in `paths`, by folder (in path order within a folder).
    by_dir: Vec<u32>,
    /// Each folder's run of `by_dir` (start, end), in folder order.
    dirs: Vec<(usize, usize)>,
}

/// A path's folder and file name (a byte search: the index splits every path of a revision).
fn split(p: &str) -> (&str, &str) {
    match memchr::memrchr(b'/', p.as_bytes()) {
        Some(i) => (&p[..i], &p[i + 1..]),
        None => ("", p),
    }
}

/// Positions in `paths` sorted by `key` of the path, then by position.
fn sorted_by(paths: &[String], key: fn(&str) -> &str) -> Vec<u32> {
    let mut keyed: Vec<(&str, u32)> = (paths.iter().zip(0..)).map(|(p, i)| (key(p), i)).collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, i)| i).collect()
}

impl PathIndex {
    pub fn new(mut paths: Vec<String>) -> PathIndex {
        paths.sort();
        let by_name = sorted_by(&paths, |p| split(p).1);
        let by_dir = sorted_by(&paths, |p| split(p).0);
        let dir = |i: &u32| split(&paths[*i as usize]).0;
        let mut dirs = Vec::new();
        let mut start = 0;
        for run in by_dir.chunk_by(|a, b| dir(a) == dir(b)) {
            dirs.push((start, start + run.len()));
            start += run.len();
        }
        PathIndex {
            paths,
            by_name,
            by_dir,
            dirs,
        }
    }

    /// The positions in `index` whose key (`key` of the path) is `want`.
    fn run<'a>(&self, index: &'a [u32], key: fn(&str) -> &str, want: &str) -> &'a [u32] {
        let at = |i: &u32| key(&self.paths[*i as usize]);
        let start = index.partition_point(|i| at(i) < want);
        let len = index[start..].partition_point(|i| at(i) == want);
        &index[start..start + len]
    }

    /// Whether `path` is a file at this commit.
    pub fn contains(&self, path: &str) -> bool {
        self.paths
            .binary_search_by(|p| p.as_str().cmp(path))
            .is_ok()
    }

    /// The closest existing paths to a missing one: the same file name elsewhere first, else a
    /// file name a small edit away in the same folder, or (when the folder does not exist) in a
    /// folder a small edit away. Edit distances are computed only against those few candidates.
    pub fn suggest(&self, missing: &str) -> Vec<String> {
        let (dir, name) = split(missing);
        let path = |i: &u32| &self.paths[*i as usize];
        // Each string is compared with many: its bit vectors are built once (a bit-parallel
        // edit distance, which stops once the limit is passed).
        let whole = levenshtein::BatchComparator::new(missing.chars());
        let same = self.run(&self.by_name, |p| split(p).1, name);
        if !same.is_empty() {
            let mut same: Vec<&String> = same.iter().map(path).collect();
            same.sort_by_cached_key(|p| (whole.distance(p.chars()), p.len()));
            return same.into_iter().take(3).cloned().collect();
        }
        let in_dir = self.run(&self.by_dir, |p| split(p).0, dir);
        let dirs: Vec<&[u32]> = match in_dir.is_empty() {
            false => vec![in_dir],
            true => {
                let near_dir = Near::new(dir);
                (self.dirs.iter())
                    .map(|&(start, end)| &self.by_dir[start..end])
                    .filter(|files| near_dir.is(split(path(&files[0])).0))
                    .collect()
            }
        };
        let near_name = Near::new(name);
        let mut found: Vec<(usize, &String)> = dirs
            .into_iter()
            .flatten()
            .map(path)
            .filter(|p| near_name.is(split(p).1))
            .map(|p| (whole.distance(p.chars()), p))
            .collect();
        found.sort();
        found.into_iter().take(3).map(|(_, p)| p.clone()).collect()
    }
}

/// Whether a name is near `to`: its length (in bytes) and its edit distance (in characters)
/// within a quarter of `to`'s length, or 2.
struct Near {
    to: levenshtein::BatchComparator<char>,
    len: usize,
    limit: usize,
}

impl Near {
    fn new(to: &str) -> Near {
        Near {
            to: levenshtein::BatchComparator::new(to.chars()),
            len: to.len(),
            limit: (to.len() / 4).max(2),
        }
    }

    fn is(&self, other: &str) -> bool {
        let args = levenshtein::Args::default().score_cutoff(self.limit);
        self.len.abs_diff(other.len()) <= self.limit
            && self.to.distance_with_args(other.chars(), &args).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The textbook edit distance over characters (what `strsim::levenshtein`, used before,
    /// computed).
    fn reference(a: &str, b: &str) -> usize {
        let b: Vec<char> = b.chars().collect();
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.chars().enumerate() {
            let mut diagonal = row[0];
            row[0] = i + 1;
            for (j, cb) in b.iter().enumerate() {
                let next = (diagonal + usize::from(ca != *cb))
                    .min(row[j] + 1)
                    .min(row[j + 1] + 1);
                diagonal = row[j + 1];
                row[j + 1] = next;
            }
        }
        row[b.len()]
    }

    proptest::proptest! {
        #[test]
        fn near_names_and_distances_are_the_textbook_ones(
            a in "[ab/é.]{0,12}",
            b in "[ab/é.]{0,12}",
        ) {
            let limit = (a.len() / 4).max(2);
            let near = a.len().abs_diff(b.len()) <= limit && reference(&a, &b) <= limit;
            proptest::prop_assert_eq!(Near::new(&a).is(&b), near);
            let whole = levenshtein::BatchComparator::new(a.chars());
            proptest::prop_assert_eq!(whole.distance(b.chars()), reference(&a, &b));
        }
    }

    #[test]
    fn suggests_the_same_file_name_then_near_paths() {
        let paths: Vec<String> = ["src/cache/mod.rs", "src/lib.rs", "lib/cache.rs"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let index = PathIndex::new(paths);
        assert_eq!(index.suggest("src/cache.rs"), vec!["lib/cache.rs"]);
        assert_eq!(index.suggest("src/lbi.rs"), vec!["src/lib.rs"]);
        assert_eq!(index.suggest("scr/lib.rs"), vec!["src/lib.rs"]);
        assert!(index.suggest("totally/else.go").is_empty());
    }

    #[test]
    fn ties_keep_path_order_and_near_folders_are_searched() {
        let paths: Vec<String> = [
            "b/x/cache.rs",
            "a/y/cache.rs",
            "a/y/other.rs",
            "lib/core.rs",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let index = PathIndex::new(paths);
        // The same name at the same distance and length: path order.
        assert_eq!(
            index.suggest("c/z/cache.rs"),
            vec!["a/y/cache.rs", "b/x/cache.rs"]
        );
        // No folder `lbi`: a near folder's near name.
        assert_eq!(index.suggest("lbi/cor.rs"), vec!["lib/core.rs"]);
        // The folder exists: only its own files are candidates.
        assert!(index.suggest("a/y/cor.rs").is_empty());
        assert!(index.contains("a/y/other.rs") && !index.contains("a/y"));
    }
}
