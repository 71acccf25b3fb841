//! `--shape wiki --real`: the wiki and answer cache of the `wiki` shape, written over a real
//! repository's history instead of a generated one (issue 61 item 3's held-out corpus). DIR is an
//! existing clone with its history; its last `--commits` first-parent commits (default 2,000) are
//! the history the docs cite, its source files (the extensions of [`EXTENSIONS`], as UTF-8) the
//! code, and one commit on top of HEAD adds the docs. `origin` is pointed at the URL the docs'
//! permalinks name, and the new objects are packed (`git repack -d`).

use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;

use git2::{Delta, Oid, Repository};

use super::{write_wiki, Args, File, Snapshot, Writer, EXTENSIONS};

/// The last `commits` first-parent commits of `repo`'s HEAD, oldest first, each with its source
/// files; a path keeps one index in every snapshot.
fn history(repo: &Repository, commits: usize) -> Result<Vec<(Oid, Snapshot)>, git2::Error> {
    let mut chain = Vec::with_capacity(commits);
    let mut at = repo.head()?.peel_to_commit()?;
    loop {
        chain.push(at.id());
        match at.parent(0) {
            Ok(parent) if chain.len() < commits => at = parent,
            _ => break,
        }
    }
    chain.reverse();
    let mut index_of: HashMap<String, usize> = HashMap::new();
    let mut files: Snapshot = Vec::new();
    let mut history = Vec::with_capacity(chain.len());
    let mut before: Option<git2::Tree<'_>> = None;
    for id in chain {
        let tree = repo.find_commit(id)?.tree()?;
        let diff = repo.diff_tree_to_tree(before.as_ref(), Some(&tree), None)?;
        for delta in diff.deltas() {
            let old = delta.old_file().path().and_then(|p| p.to_str());
            if let Some(&i) = old.and_then(|p| index_of.get(p)) {
                files[i] = None;
            }
            if delta.status() == Delta::Deleted {
                continue;
            }
            let Some(path) = delta.new_file().path().and_then(|p| p.to_str()) else {
                continue;
            };
            let Some(file) = source(repo, path, delta.new_file().id())? else {
                continue;
            };
            let i = *index_of.entry(path.to_string()).or_insert_with(|| {
                files.push(None);
                files.len() - 1
            });
            files[i] = Some(file);
        }
        history.push((id, files.clone()));
        before = Some(tree);
    }
    Ok(history)
}

/// The file at `path` with blob `id` when it is source code (an extension of [`EXTENSIONS`],
/// UTF-8, not empty).
fn source(repo: &Repository, path: &str, id: Oid) -> Result<Option<File>, git2::Error> {
    let ext = path.rsplit_once('.').map(|(_, e)| e);
    if !ext.is_some_and(|e| EXTENSIONS.contains(&e)) {
        return Ok(None);
    }
    let blob = repo.find_blob(id)?;
    let Ok(text) = std::str::from_utf8(blob.content()) else {
        return Ok(None);
    };
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    Ok((!lines.is_empty()).then(|| File {
        path: path.to_string(),
        lines: Rc::new(lines),
    }))
}

pub(crate) fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let dir = Path::new(&args.dir);
    let repo = Repository::open(dir)?;
    repo.remote_set_url("origin", "https://github.com/citegate/corpus.git")?;
    let commits = if args.commits_given {
        args.commits
    } else {
        2_000
    };
    let history = history(&repo, commits)?;
    let head = history.last().ok_or("the clone has no commit")?.0;
    let mut rng = fastrand::Rng::with_seed(args.seed);
    let mut w = Writer {
        repo: &repo,
        index: repo.index()?,
        parent: Some(head),
        count: 0,
    };
    let (rows, written) = write_wiki(&mut w, &args, &mut rng, &history)?;
    w.commit("docs")?;
    std::fs::write(
        format!("{}.citations.tsv", args.dir.trim_end_matches('/')),
        rows,
    )?;
    let mut index = w.index;
    index.write()?;
    repo.checkout_index(
        Some(&mut index),
        Some(git2::build::CheckoutBuilder::new().force()),
    )?;
    let packed = std::process::Command::new("git")
        .args(["repack", "-d", "-q"])
        .current_dir(dir)
        .status();
    if !packed.is_ok_and(|s| s.success()) {
        eprintln!("corpus: `git repack` failed: the docs are left unpacked");
    }
    let code = history
        .last()
        .map_or(0, |(_, s)| s.iter().flatten().count());
    println!(
        "{}: {} source files, {} commits cited, {} citations in {} docs",
        dir.display(),
        code,
        history.len(),
        written,
        args.docs + args.answer_files
    );
    Ok(())
}
