//! A commit's files, for the suggestions a missing path gets (the same file name elsewhere, a
//! near name in the same or a near folder) and for the cross-file search of a lost quote.
//! [`super::CodeRepo`] builds each once per commit and caches it.

use rapidfuzz::distance::levenshtein;

use git2::{ObjectType, Oid, Repository};

use super::folders::{Entry, Folder, Folders};

/// Every file path at one commit, sorted: what the search for a lost quote reads.
#[derive(Debug, Default)]
pub struct PathIndex {
    /// Sorted.
    pub paths: Vec<String>,
}

impl PathIndex {
    /// The index of `paths` (sorted here).
    pub fn new(mut paths: Vec<String>) -> PathIndex {
        // A tree lists its files in path order already: this checks it, in one pass.
        paths.sort();
        PathIndex { paths }
    }

    /// Whether `path` is a file at this commit.
    pub fn contains(&self, path: &str) -> bool {
        self.paths
            .binary_search_by(|p| p.as_str().cmp(path))
            .is_ok()
    }
}

/// A path's folder and file name.
fn split(p: &str) -> (&str, &str) {
    match memchr::memrchr(b'/', p.as_bytes()) {
        Some(i) => (&p[..i], &p[i + 1..]),
        None => ("", p),
    }
}

/// `dir/name`, or `name` in the root.
fn join(dir: &str, name: &str) -> String {
    match dir {
        "" => name.to_string(),
        _ => format!("{dir}/{name}"),
    }
}

/// The name of a file entry (a blob: a symbolic link too) that a doc can cite (UTF-8).
fn file_name<'a>(e: &Entry<'a>) -> Option<&'a str> {
    match e.kind() {
        ObjectType::Blob => std::str::from_utf8(e.name).ok(),
        _ => None,
    }
}

/// Whether `folder` holds a file named `name`.
fn has_file(folder: &Folder, name: &str) -> bool {
    let found = folder.position(name.as_bytes()).and_then(|i| folder.get(i));
    found.is_some_and(|e| file_name(&e).is_some())
}

/// The names of a folder's files, in path order.
fn files(folder: &Folder) -> impl Iterator<Item = &str> + '_ {
    folder.iter().filter_map(|e| file_name(&e))
}

/// A commit's folders by path (sorted; the root is `""`), each as read from the object database:
/// what a missing path's suggestions look at. Nothing per file is built: a folder's entries are
/// searched where they are, and the folders are the session's (shared by the revisions that have
/// them), so a wiki citing many revisions keeps little per revision.
#[derive(Debug, Default)]
pub struct Layout {
    dirs: Vec<(String, Folder)>,
}

impl Layout {
    /// The layout of the tree `root`, its folders read through `folders` (a folder that cannot
    /// be read, or whose name is not UTF-8, is left out with what is under it).
    pub fn read(repo: &Repository, folders: &Folders, root: Oid) -> Layout {
        let mut dirs = Vec::new();
        let mut todo: Vec<(String, Folder)> = folders
            .read(repo, root)
            .map(|f| (String::new(), f))
            .into_iter()
            .collect();
        while let Some((dir, folder)) = todo.pop() {
            for e in folder.iter().filter(|e| e.kind() == ObjectType::Tree) {
                let Ok(name) = std::str::from_utf8(e.name) else {
                    continue;
                };
                if let Ok(sub) = folders.read(repo, e.id()) {
                    todo.push((join(&dir, name), sub));
                }
            }
            dirs.push((dir, folder));
        }
        dirs.sort_by(|a, b| a.0.cmp(&b.0));
        Layout { dirs }
    }

    fn folder(&self, dir: &str) -> Option<&Folder> {
        let at = self.dirs.binary_search_by(|d| d.0.as_str().cmp(dir)).ok()?;
        Some(&self.dirs[at].1)
    }

    /// Whether `path` is a file at this commit.
    pub fn contains(&self, path: &str) -> bool {
        let (dir, name) = split(path);
        if dir.is_empty() && name.len() != path.len() {
            return false; // `/name`: not the root's
        }
        self.folder(dir).is_some_and(|f| has_file(f, name))
    }

    /// The files with the file name of `missing` (its last segment) in any folder, in path
    /// order; at most `limit`.
    pub(crate) fn same_name(&self, missing: &str, limit: usize) -> Vec<String> {
        let (_, name) = split(missing);
        (self.dirs.iter())
            .filter(|(_, f)| has_file(f, name))
            .map(|(d, _)| join(d, name))
            .take(limit)
            .collect()
    }

    /// The closest existing paths to a missing one: the same file name elsewhere first, else a
    /// file name a small edit away in the same folder, or (when the folder holds no file) in a
    /// folder a small edit away. Edit distances are computed only against those few candidates.
    pub fn suggest(&self, missing: &str) -> Vec<String> {
        let (dir, name) = split(missing);
        // Each string is compared with many: its bit vectors are built once (a bit-parallel
        // edit distance, which stops once the limit is passed).
        let whole = levenshtein::BatchComparator::new(missing.chars());
        let mut same = self.same_name(missing, usize::MAX);
        if !same.is_empty() {
            // Ties (the same distance and length) keep path order: the folders are in the order
            // of their paths, and two of one length sort as the paths in them do.
            same.sort_by_cached_key(|p| (whole.distance(p.chars()), p.len()));
            same.truncate(3);
            return same;
        }
        let here = self.folder(dir).filter(|f| files(f).next().is_some());
        let dirs: Vec<(&str, &Folder)> = match here {
            Some(folder) => vec![(dir, folder)],
            None => {
                let near_dir = Near::new(dir);
                (self.dirs.iter())
                    .filter(|(d, f)| files(f).next().is_some() && near_dir.is(d))
                    .map(|(d, f)| (d.as_str(), f))
                    .collect()
            }
        };
        let near_name = Near::new(name);
        let mut found: Vec<(usize, String)> = (dirs.into_iter())
            .flat_map(|(d, f)| {
                files(f)
                    .filter(|n| near_name.is(n))
                    .map(move |n| join(d, n))
            })
            .map(|p| (whole.distance(p.chars()), p))
            .collect();
        found.sort();
        found.into_iter().take(3).map(|(_, p)| p).collect()
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

    /// The layout of a commit holding `paths`.
    fn layout(paths: &[&str]) -> Layout {
        let dir = tempfile::tempdir().unwrap();
        let mut spec = String::from("@@@ commit v1 c\n");
        for p in paths {
            spec.push_str(&format!("@@@ file {p}\nx\n"));
        }
        let commit = crate::fixture::build(&spec, dir.path()).unwrap()["v1"];
        let git = Repository::open(dir.path()).unwrap();
        let root = git.find_commit(commit).unwrap().tree_id();
        Layout::read(&git, &Folders::default(), root)
    }

    #[test]
    fn suggests_the_same_file_name_then_near_paths() {
        let index = layout(&["src/cache/mod.rs", "src/lib.rs", "lib/cache.rs"]);
        assert_eq!(index.suggest("src/cache.rs"), vec!["lib/cache.rs"]);
        assert_eq!(index.suggest("src/lbi.rs"), vec!["src/lib.rs"]);
        assert_eq!(index.suggest("scr/lib.rs"), vec!["src/lib.rs"]);
        assert!(index.suggest("totally/else.go").is_empty());
    }

    #[test]
    fn ties_keep_path_order_and_near_folders_are_searched() {
        let index = layout(&[
            "b/x/cache.rs",
            "a/y/cache.rs",
            "a/y/other.rs",
            "lib/core.rs",
        ]);
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

    /// The suggestions for `missing` among `paths` (sorted), by their definition over the
    /// list (what an index over every path answered before suggestions read folders).
    fn listed(paths: &[String], missing: &str) -> Vec<String> {
        let (dir, name) = split(missing);
        let distance = |p: &str| levenshtein::distance(missing.chars(), p.chars());
        let mut same: Vec<&String> = paths.iter().filter(|p| split(p).1 == name).collect();
        if !same.is_empty() {
            same.sort_by_key(|p| (distance(p), p.len()));
            return same.into_iter().take(3).cloned().collect();
        }
        let in_dir: Vec<&String> = paths.iter().filter(|p| split(p).0 == dir).collect();
        let near_dir = Near::new(dir);
        let candidates = match in_dir.is_empty() {
            false => in_dir,
            true => paths.iter().filter(|p| near_dir.is(split(p).0)).collect(),
        };
        let near_name = Near::new(name);
        let mut found: Vec<(usize, &String)> = (candidates.into_iter())
            .filter(|p| near_name.is(split(p).1))
            .map(|p| (distance(p), p))
            .collect();
        found.sort();
        found.into_iter().take(3).map(|(_, p)| p.clone()).collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        #[test]
        fn suggestions_from_folders_are_the_listed_ones(
            paths in proptest::collection::btree_set("[ab][ab.-]?(/[ab][ab.-]?){0,2}", 1..12),
            missing in proptest::collection::vec("[ab.-]{0,2}(/[ab.-]{1,2}){0,2}", 1..8),
        ) {
            // A path that is also a folder of another is left out (a tree cannot hold both).
            let paths: Vec<String> = (paths.iter())
                .filter(|p| !paths.iter().any(|q| q.starts_with(&format!("{p}/"))))
                .cloned()
                .collect();
            let strs: Vec<&str> = paths.iter().map(String::as_str).collect();
            let index = layout(&strs);
            for m in missing.iter().chain(&paths) {
                proptest::prop_assert_eq!(index.suggest(m), listed(&paths, m), "{}", m);
                proptest::prop_assert_eq!(index.contains(m), paths.contains(m), "{}", m);
            }
        }
    }
}
