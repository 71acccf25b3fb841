//! Reading blobs and checking what was read, on every core. Each job borrows a repository
//! handle of its own, opened in its thread's lane (see [`super::lanes`]): libgit2 (1.9) reads
//! from separate handles in parallel (the wiki corpus's 16,804 `REV:PATH`: 0.46 s on one
//! thread, 0.23 s on two; `examples/read_speed.rs`), and from separate pack files without
//! waiting on each other. The handles live for one call: each caches the trees it read, and
//! keeping them for the run cost 10-15 MB of peak memory.

use git2::Repository;
use rayon::prelude::*;

use super::lanes::Handles;
use super::CodeRepo;

/// Items per job: enough to keep a handle's caches warm, few enough to share the work evenly.
pub(crate) const STEP: usize = 64;

/// `read` each of `items` with a handle of the job's own and `process` it with what was read,
/// in parallel over jobs of [`STEP`] items, each job one piece of rayon's split (a thread that
/// runs out of work takes over the next job, not a run of them). Results keep the order of
/// `items`.
pub(crate) fn read_each<T, R, O, I>(
    repo: &CodeRepo,
    items: &[T],
    read: impl Fn(&Repository, &T) -> R + Sync,
    process: impl Fn(&T, R) -> I + Sync + Send,
) -> Vec<O>
where
    T: Sync,
    R: Send,
    O: Send,
    I: IntoIterator<Item = O>,
{
    // Handles of this call only, dropped with their caches when it returns.
    let spare = Handles::default();
    let with_handle = |f: &dyn Fn(&Repository) -> Vec<O>| spare.with(|| repo.worker(), f);
    items
        .par_chunks(STEP)
        .with_max_len(1)
        .flat_map_iter(|step| {
            with_handle(&|git| {
                step.iter()
                    .flat_map(|item| process(item, read(git, item)))
                    .collect::<Vec<O>>()
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::FileAt;

    #[test]
    fn every_item_is_read_and_results_keep_the_items_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut spec = String::from("@@@ commit v1 many files\n");
        let n = STEP * 3 + 5;
        for i in 0..n {
            spec.push_str(&format!("@@@ file src/f{i}.txt\nfile {i}\n"));
        }
        let labels = crate::fixture::build(&spec, dir.path()).unwrap();
        let repo = CodeRepo::discover(dir.path()).unwrap();
        // Every file, a missing one among them, and a second output for each: in order.
        let mut items: Vec<String> = (0..n).rev().map(|i| format!("src/f{i}.txt")).collect();
        items.insert(7, "src/missing.txt".to_string());
        let out: Vec<String> = read_each(
            &repo,
            &items,
            |git, path| repo.file_at(git, labels["v1"], path),
            |path, read| match read {
                Ok(FileAt::Text(t)) => vec![path.clone(), t.trim().to_string()],
                _ => vec![format!("{path}: not read")],
            },
        );
        let want: Vec<String> = items
            .iter()
            .flat_map(|p| match p.strip_prefix("src/f") {
                Some(i) => vec![p.clone(), format!("file {}", &i[..i.len() - 4])],
                None => vec![format!("{p}: not read")],
            })
            .collect();
        assert_eq!(out, want);
    }
}
