//! Every file path at one commit, indexed for the suggestions a missing path gets (the same
//! file name elsewhere, a near name in the same or a near folder). [`super::CodeRepo`] builds one
//! per commit and caches it.

use std::collections::HashMap;

/// Every file path at one commit, indexed by file name and folder for suggestions.
#[derive(Debug, Default)]
pub struct PathIndex {
    /// Sorted.
    pub paths: Vec<String>,
    by_name: HashMap<String, Vec<usize>>,
    by_dir: HashMap<String, Vec<usize>>,
}

fn split(p: &str) -> (&str, &str) {
    p.rsplit_once('/').unwrap_or(("", p))
}

impl PathIndex {
    pub fn new(mut paths: Vec<String>) -> PathIndex {
        paths.sort();
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
        let mut by_dir: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, p) in paths.iter().enumerate() {
            let (dir, name) = split(p);
            by_name.entry(name.to_string()).or_default().push(i);
            by_dir.entry(dir.to_string()).or_default().push(i);
        }
        PathIndex {
            paths,
            by_name,
            by_dir,
        }
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
        if let Some(same) = self.by_name.get(name) {
            let mut same: Vec<&String> = same.iter().map(|&i| &self.paths[i]).collect();
            same.sort_by_key(|p| (strsim::levenshtein(missing, p), p.len()));
            return same.into_iter().take(3).cloned().collect();
        }
        let near = |a: &str, b: &str| {
            let limit = (a.len() / 4).max(2);
            a.len().abs_diff(b.len()) <= limit && strsim::levenshtein(a, b) <= limit
        };
        let dirs: Vec<&Vec<usize>> = match self.by_dir.get(dir) {
            Some(files) => vec![files],
            None => self
                .by_dir
                .iter()
                .filter(|(d, _)| near(dir, d))
                .map(|(_, files)| files)
                .collect(),
        };
        let mut found: Vec<(usize, &String)> = dirs
            .into_iter()
            .flatten()
            .map(|&i| &self.paths[i])
            .filter(|p| near(name, split(p).1))
            .map(|p| (strsim::levenshtein(missing, p), p))
            .collect();
        found.sort();
        found.into_iter().take(3).map(|(_, p)| p.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
