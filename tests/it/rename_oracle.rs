//! Where a pinned file is at the target is where `git log --follow` says. Histories are generated
//! (files edited, renamed with or without an edit, deleted, added, a deleted path written again
//! by an unrelated file, branches merged), and for every file of every usable pin that is gone
//! at the target, citegate's verdict (renamed to X, or deleted) is compared with the oracle:
//! `git log --follow --name-status TARGET -- X` for each file X at the target, read back from
//! the target to the pin. X is the pin's file when the names it went by lead back to the pin's
//! path: each `R old new` naming the followed path switches to `old`; an `A` of the followed path
//! ends it (that file was created there: git itself goes on past an addition with the same
//! path, which is how a deleted path written again by an unrelated file would be taken for the
//! old one); a `D` is another branch's (the path lived on along the one being read). No X: the
//! file was deleted. The `git` CLI is the oracle here only; citegate never runs it.
//!
//! Where git's answer is not well defined, the generator or the comparison leaves the shape out:
//! - `--follow` keeps one path for the whole walk, in date order, across branches. A pin is
//!   compared only when every commit made after it descends from it (commit times grow with
//!   each commit), so the walk reads every commit between pin and target before anything older.
//! - Two files at the target that both lead back (a copy): not compared (never generated).
//! - A file renamed on both sides of a branch (to two names, the merge keeping one): git's one
//!   path goes down the side whose name the merge kept and misses a pin on the other side; a
//!   merge follows both. A file is renamed on a branch only while the other side has it as it was.
//! - Files that compete for one deleted file: `--follow` pairs the followed file alone, a whole
//!   diff pairs every added file at once (citegate's follower does, as `git diff` does). Every
//!   file's lines carry its own identity (two files share no line), and a commit changes at most
//!   one of a file's eight lines (87% similar); renames never reuse a name.
//! - A deleted path written again on a branch while the other side still has it (or had it where
//!   the branch forked): a merge of the two is an add/add or modify/delete conflict whose
//!   resolution git's date-ordered walk does not read the way a merge is followed. A path is
//!   written again only where neither side nor the fork point has it.
//! - Paths still at the target are not followed (they are compared in place): not compared.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use citegate::resolve::CodeRepo;
use git2::{Oid, Repository, Signature, Time};
use proptest::prelude::*;

/// A file: which file it is (its lines say it), and its lines.
#[derive(Debug, Clone, PartialEq)]
struct File {
    id: u32,
    lines: Vec<String>,
}

/// The files of a commit, by path.
type Files = BTreeMap<String, File>;

const FOLDERS: &[&str] = &["", "src/", "src/deep/", "lib/"];

struct History {
    rng: fastrand::Rng,
    git: Repository,
    dir: tempfile::TempDir,
    clock: i64,
    ids: u32,
    names: u32,
    edits: u32,
    /// Paths that held a file once and are free to be written again.
    gone: Vec<String>,
    /// Every commit, oldest first, with its parents' indices.
    commits: Vec<(Oid, Vec<usize>)>,
}

impl History {
    fn new(seed: u64) -> History {
        let dir = tempfile::tempdir().unwrap();
        let git = Repository::init(dir.path()).unwrap();
        History {
            rng: fastrand::Rng::with_seed(seed),
            git,
            dir,
            clock: 1_767_225_600,
            ids: 0,
            names: 0,
            edits: 0,
            gone: Vec::new(),
            commits: Vec::new(),
        }
    }

    fn new_file(&mut self) -> File {
        self.ids += 1;
        let id = self.ids;
        let lines = (0..8)
            .map(|k| format!("file {id} line {k}: {}", self.rng.u32(..)))
            .collect();
        File { id, lines }
    }

    fn fresh_path(&mut self) -> String {
        self.names += 1;
        let folder = FOLDERS[self.rng.usize(..FOLDERS.len())];
        format!("{folder}n{}.txt", self.names)
    }

    fn edit(&mut self, file: &mut File) {
        self.edits += 1;
        let k = self.rng.usize(..file.lines.len());
        file.lines[k] = format!("file {} line {k}: edit {}", file.id, self.edits);
    }

    /// One change to `files`. `others` are trees a path written again must be absent from too
    /// (the other side of an open branch and its fork point).
    fn change(&mut self, files: &mut Files, others: &[&Files]) {
        let paths: Vec<String> = files.keys().cloned().collect();
        let pick = |rng: &mut fastrand::Rng| paths[rng.usize(..paths.len())].clone();
        let p0 = match paths.is_empty() {
            true => String::new(),
            false => pick(&mut self.rng),
        };
        match self.rng.u8(0..10) {
            0..=2 if !paths.is_empty() => {
                let p = pick(&mut self.rng);
                let mut f = files[&p].clone();
                self.edit(&mut f);
                files.insert(p, f);
            }
            // On a branch, only a file the other side still has at that path is renamed.
            3..=5 if !paths.is_empty() && others.first().is_none_or(|o| o.contains_key(&p0)) => {
                let p = p0;
                let mut f = files.remove(&p).unwrap();
                if self.rng.bool() {
                    self.edit(&mut f);
                }
                let to = self.fresh_path();
                files.insert(to, f);
                self.gone.push(p);
            }
            6 if paths.len() > 1 => {
                let p = pick(&mut self.rng);
                files.remove(&p);
                self.gone.push(p);
            }
            7 => {
                let free: Vec<String> = (self.gone.iter())
                    .filter(|g| {
                        !files.contains_key(*g) && others.iter().all(|o| !o.contains_key(*g))
                    })
                    .cloned()
                    .collect();
                let f = self.new_file();
                let path = match free.is_empty() {
                    true => self.fresh_path(),
                    false => free[self.rng.usize(..free.len())].clone(),
                };
                files.insert(path, f);
            }
            _ => {
                let f = self.new_file();
                let path = self.fresh_path();
                files.insert(path, f);
            }
        }
    }

    /// Commit `files` with these parents (indices into `commits`); its index.
    fn commit(&mut self, files: &Files, parents: &[usize]) -> usize {
        let tree = self.tree(files, "");
        self.clock += 60;
        let sig = Signature::new("t", "t@t", &Time::new(self.clock, 0)).unwrap();
        let parent_commits: Vec<git2::Commit<'_>> = parents
            .iter()
            .map(|&p| self.git.find_commit(self.commits[p].0).unwrap())
            .collect();
        let refs: Vec<&git2::Commit<'_>> = parent_commits.iter().collect();
        let tree = self.git.find_tree(tree).unwrap();
        let id = self
            .git
            .commit(None, &sig, &sig, "c", &tree, &refs)
            .unwrap();
        self.commits.push((id, parents.to_vec()));
        self.commits.len() - 1
    }

    /// The tree of the files under `prefix`.
    fn tree(&self, files: &Files, prefix: &str) -> Oid {
        let mut here = self.git.treebuilder(None).unwrap();
        let mut folders: Vec<&str> = Vec::new();
        for (path, file) in files.range(prefix.to_string()..) {
            let Some(rest) = path.strip_prefix(prefix) else {
                break;
            };
            match rest.split_once('/') {
                Some((dir, _)) if folders.last() != Some(&dir) => folders.push(dir),
                Some(_) => {}
                None => {
                    let text = file.lines.join("\n") + "\n";
                    let blob = self.git.blob(text.as_bytes()).unwrap();
                    here.insert(rest, blob, 0o100644).unwrap();
                }
            }
        }
        for dir in folders {
            let inner = self.tree(files, &format!("{prefix}{dir}/"));
            here.insert(dir, inner, 0o040000).unwrap();
        }
        here.write().unwrap()
    }
}

/// The merge of two sides of a branch, file by file (a file is known by its identity): a file
/// deleted on one side is deleted; one renamed on a side is at its new name (ours when both
/// renamed it); its text is ours when ours changed it, else theirs.
fn merge(base: &Files, ours: &Files, theirs: &Files) -> Files {
    let by_id = |files: &Files| -> HashMap<u32, (String, File)> {
        files
            .iter()
            .map(|(p, f)| (f.id, (p.clone(), f.clone())))
            .collect()
    };
    let (b, o, t) = (by_id(base), by_id(ours), by_id(theirs));
    let mut out = Files::new();
    for (id, (path, file)) in &o {
        match (t.get(id), b.get(id)) {
            (Some((tp, tf)), Some((bp, bf))) => {
                let path = if path == bp { tp } else { path };
                let file = if file == bf { tf } else { file };
                out.insert(path.clone(), file.clone());
            }
            (None, Some(_)) => {}
            (_, None) => {
                out.insert(path.clone(), file.clone());
            }
        }
    }
    for (id, (path, file)) in &t {
        if !o.contains_key(id) && !b.contains_key(id) {
            out.insert(path.clone(), file.clone());
        }
    }
    out
}

/// Build a history from the seed: a main line with branches, each merged back. Returns every
/// commit's files.
fn generate(h: &mut History, steps: usize) -> Vec<Files> {
    let mut files = Files::new();
    for _ in 0..h.rng.usize(2..5) {
        let f = h.new_file();
        let p = h.fresh_path();
        files.insert(p, f);
    }
    let mut trees = vec![files.clone()];
    let mut head = h.commit(&files, &[]);
    for _ in 0..steps {
        if h.rng.u8(0..3) == 0 {
            head = branch(h, &mut trees, head);
        } else {
            let mut next = trees[head].clone();
            h.change(&mut next, &[]);
            head = h.commit(&next, &[head]);
            trees.push(next);
        }
    }
    trees
}

/// A branch from `fork`, a few commits on each side (one side's first, then the other's), and
/// their merge; the merge's index.
fn branch(h: &mut History, trees: &mut Vec<Files>, fork: usize) -> usize {
    let base = trees[fork].clone();
    let (mut tips, mut sides) = ([fork, fork], [base.clone(), base.clone()]);
    let first = h.rng.usize(0..2);
    for side in [first, 1 - first] {
        for _ in 0..h.rng.usize(usize::from(side == 1)..4) {
            let [a, b] = &mut sides;
            let (mine, other) = if side == 0 { (a, &*b) } else { (b, &*a) };
            h.change(mine, &[other, &base]);
            tips[side] = h.commit(mine, &[tips[side]]);
            trees.push(mine.clone());
        }
    }
    let merged = merge(&base, &sides[0], &sides[1]);
    let at = h.commit(&merged, &tips);
    trees.push(merged);
    at
}

/// One `git log --follow --name-status` entry: a commit and its status lines, split on tabs.
type LogEntry = (Oid, Vec<Vec<String>>);

/// `git log --follow --name-status TARGET -- PATH`, with no configuration read.
fn follow_log(dir: &Path, target: Oid, path: &str) -> Vec<LogEntry> {
    let target = target.to_string();
    let args = [
        "log",
        "--follow",
        "--name-status",
        "--format=%x01%H",
        &target,
        "--",
        path,
    ];
    parse_log(&String::from_utf8_lossy(&crate::common::git_oracle(
        dir, &args,
    )))
}

fn parse_log(text: &str) -> Vec<LogEntry> {
    let mut entries: Vec<LogEntry> = Vec::new();
    for line in text.lines() {
        if let Some(sha) = line.strip_prefix('\u{1}') {
            entries.push((Oid::from_str(sha).unwrap(), Vec::new()));
        } else if let (Some(last), false) = (entries.last_mut(), line.is_empty()) {
            last.1.push(line.split('\t').map(str::to_string).collect());
        }
    }
    entries
}

/// The name the file at the target (whose log this is) had at the pin, reading the log back
/// over the commits after the pin (`after`); `None` when it was created after the pin.
fn name_at_pin(log: &[LogEntry], mut name: String, after: &HashSet<Oid>) -> Option<String> {
    for (commit, statuses) in log {
        if !after.contains(commit) {
            break;
        }
        for s in statuses {
            match s.as_slice() {
                [status, old, new] if status.starts_with('R') && *new == name => {
                    name = old.clone();
                    break;
                }
                [status, path] if status == "A" && *path == name => return None,
                _ => {}
            }
        }
    }
    Some(name)
}

/// Every ancestor of each commit (itself included), by index.
fn ancestors(commits: &[(Oid, Vec<usize>)]) -> Vec<HashSet<usize>> {
    let mut out: Vec<HashSet<usize>> = Vec::with_capacity(commits.len());
    for (i, (_, parents)) in commits.iter().enumerate() {
        let mut set: HashSet<usize> = HashSet::from([i]);
        for &p in parents {
            set.extend(out[p].iter().copied());
        }
        out.push(set);
    }
    out
}

/// Build a history and compare every usable pin's gone files with git's answer; how many
/// (pin, path) pairs were compared: (renamed, deleted).
fn compare(seed: u64, steps: usize) -> Result<(usize, usize), TestCaseError> {
    let mut h = History::new(seed);
    let trees = generate(&mut h, steps);
    let target = h.commits.len() - 1;
    let to = h.commits[target].0;
    let logs: Vec<(String, Vec<LogEntry>)> = trees[target]
        .keys()
        .map(|x| (x.clone(), follow_log(h.dir.path(), to, x)))
        .collect();
    let repo = CodeRepo::discover(h.dir.path()).unwrap();
    let git = repo.open().unwrap();
    let ancestry = ancestors(&h.commits);
    let mut compared = (0, 0);
    for pin in 0..target {
        // Usable: every commit made before the pin is one of its ancestors (so every one made
        // after descends from it, and git's date-ordered walk reads them all first).
        if ancestry[pin].len() != pin + 1 {
            continue;
        }
        let after: HashSet<Oid> = (pin + 1..=target).map(|i| h.commits[i].0).collect();
        let from = h.commits[pin].0;
        for path in trees[pin]
            .keys()
            .filter(|p| !trees[target].contains_key(*p))
        {
            let expected: Vec<&String> = (logs.iter())
                .filter(|(x, log)| name_at_pin(log, x.clone(), &after).as_ref() == Some(path))
                .map(|(x, _)| x)
                .collect();
            if expected.len() > 1 {
                continue;
            }
            let got = repo.renamed(&git, from, to, path);
            prop_assert_eq!(
                got.as_ref(),
                expected.first().copied(),
                "seed {}: {} at commit {} (of {})",
                seed,
                path,
                pin,
                target
            );
            match got {
                Some(_) => compared.0 += 1,
                None => compared.1 += 1,
            }
        }
    }
    Ok(compared)
}

proptest! {
    #![proptest_config(crate::common::proptest_cases(32))]

    #[test]
    fn followed_files_are_where_git_log_follow_says(seed in any::<u64>(), steps in 2usize..12) {
        compare(seed, steps)?;
    }
}

#[test]
fn the_generated_histories_compare_renames_deletions_and_merges() {
    // The property above must not pass by comparing nothing: over a few fixed seeds, files gone
    // at the target are compared both ways (renamed and deleted), with merges on the way.
    let (mut renamed, mut deleted) = (0, 0);
    for seed in 0..12 {
        let (r, d) = compare(seed, 10).unwrap();
        renamed += r;
        deleted += d;
    }
    assert!(
        renamed > 100 && deleted > 60,
        "{renamed} renamed, {deleted} deleted"
    );
}

#[test]
fn the_oracle_reads_renames_back_and_stops_at_an_addition() {
    let a = Oid::from_str(&"a".repeat(40)).unwrap();
    let b = Oid::from_str(&"b".repeat(40)).unwrap();
    let c = Oid::from_str(&"c".repeat(40)).unwrap();
    let text = format!("\u{1}{a}\n\nR090\tsrc/x.txt\tlib/y.txt\n\u{1}{b}\n\nA\tsrc/x.txt\n\u{1}{c}\n\nM\tsrc/x.txt\n");
    let log = parse_log(&text);
    assert_eq!(log.len(), 3);
    let after: HashSet<Oid> = [a].into();
    assert_eq!(
        name_at_pin(&log, "lib/y.txt".into(), &after).as_deref(),
        Some("src/x.txt")
    );
    let after: HashSet<Oid> = [a, b].into();
    assert_eq!(name_at_pin(&log, "lib/y.txt".into(), &after), None);
}

#[test]
fn a_path_written_again_on_a_merged_branch_is_not_the_deleted_file() {
    // Main deleted `a`; a branch from there added an unrelated `a`, merged, and then renamed to
    // `z`. `git log --follow z` goes on past the branch's addition into the deleted file's
    // history (one path, whatever file it names): read back as the oracle reads it, the
    // addition ends it, and citegate says deleted.
    let mut h = History::new(7);
    let (f, g, x) = (h.new_file(), h.new_file(), h.new_file());
    let files = |list: &[(&str, &File)]| -> Files {
        list.iter()
            .map(|(p, f)| (p.to_string(), (*f).clone()))
            .collect()
    };
    let mut x2 = x.clone();
    h.edit(&mut x2);
    let pin = h.commit(&files(&[("src/a.txt", &f), ("x.txt", &x)]), &[]);
    let gone = h.commit(&files(&[("x.txt", &x)]), &[pin]);
    let added = h.commit(&files(&[("src/a.txt", &g), ("x.txt", &x)]), &[gone]);
    let main = h.commit(&files(&[("x.txt", &x2)]), &[gone]);
    let merged = h.commit(&files(&[("src/a.txt", &g), ("x.txt", &x2)]), &[main, added]);
    let target = h.commit(&files(&[("lib/z.txt", &g), ("x.txt", &x2)]), &[merged]);
    let id = |i: usize| h.commits[i].0;
    let log = follow_log(h.dir.path(), id(target), "lib/z.txt");
    let seen: Vec<Oid> = log.iter().map(|(c, _)| *c).collect();
    assert!(
        seen.contains(&id(pin)),
        "git reads on into the old file: {log:?}"
    );
    let after: HashSet<Oid> = (pin + 1..=target).map(id).collect();
    assert_eq!(name_at_pin(&log, "lib/z.txt".into(), &after), None);
    let repo = CodeRepo::discover(h.dir.path()).unwrap();
    let git = repo.open().unwrap();
    assert_eq!(repo.renamed(&git, id(pin), id(target), "src/a.txt"), None);
    // The file the branch added is followed: from the branch, it is lib/z.txt.
    assert_eq!(
        repo.renamed(&git, id(added), id(target), "src/a.txt")
            .as_deref(),
        Some("lib/z.txt")
    );
}

/// `git diff --find-renames --name-status A B` read as old path → new path, with the repository's
/// own configuration (its `diff.renameLimit`) and no other.
fn diff_renames(dir: &Path, a: Oid, b: Oid) -> HashMap<String, String> {
    let args = [
        "diff",
        "--find-renames",
        "--name-status",
        &a.to_string(),
        &b.to_string(),
    ];
    let out = crate::common::git_oracle(dir, &args);
    String::from_utf8_lossy(&out)
        .lines()
        .filter(|l| l.starts_with('R'))
        .filter_map(|l| {
            let mut f = l.split('\t').skip(1);
            Some((f.next()?.to_string(), f.next()?.to_string()))
        })
        .collect()
}

/// A commit that moves `count` files from `src/` to `lib/` (each edited once and renamed from
/// `fN.txt` to `gN.txt` when `edited` is `Some(true)`, edited only when `Some(false)`), in a
/// repository whose `diff.renameLimit` is `limit` when given; every 97th file (and the first
/// and last) is cited. Where each cited file is at the target, by citegate and by `git diff
/// --find-renames` (the move is one commit, so `git diff` and the commit's own diff agree).
fn mass_move(count: usize, edited: Option<bool>, limit: Option<i64>) -> (usize, usize) {
    let mut h = History::new(count as u64);
    if let Some(limit) = limit {
        let mut config = h.git.config().unwrap();
        config.set_i64("diff.renameLimit", limit).unwrap();
    }
    let mut before = Files::new();
    let mut after = Files::new();
    for i in 0..count {
        let file = h.new_file();
        let mut moved = file.clone();
        if edited.is_some() {
            h.edit(&mut moved);
        }
        let name = if edited == Some(true) { "g" } else { "f" };
        before.insert(format!("src/d{}/f{i}.txt", i % 30), file);
        after.insert(format!("lib/d{}/{name}{i}.txt", i % 30), moved);
    }
    let pin = h.commit(&before, &[]);
    let target = h.commit(&after, &[pin]);
    let (from, to) = (h.commits[pin].0, h.commits[target].0);
    let expected = diff_renames(h.dir.path(), from, to);
    let repo = CodeRepo::discover(h.dir.path()).unwrap();
    let git = repo.open().unwrap();
    let (mut renamed, mut deleted) = (0, 0);
    for i in (0..count).step_by(97).chain([count - 1]) {
        let path = format!("src/d{}/f{i}.txt", i % 30);
        let got = repo.renamed(&git, from, to, &path);
        assert_eq!(got.as_ref(), expected.get(&path), "{path}");
        match got {
            Some(_) => renamed += 1,
            None => deleted += 1,
        }
    }
    (renamed, deleted)
}

#[test]
fn a_commit_moving_3000_files_is_followed_as_git_diff_pairs_them() {
    // Exact renames come before git's limit: all 3,000 are followed.
    assert_eq!(mass_move(3000, None, None), (32, 0));
}

#[test]
fn edited_moves_past_the_rename_limit_are_deletions_as_git_diff_says() {
    // 1,100 × 1,100 inexact candidates are past git's default limit of 1,000: git diff pairs
    // none, and neither does citegate (it says so: see `cli::`)...
    assert_eq!(mass_move(1100, Some(true), None), (0, 13));
    // ...under a raised `diff.renameLimit` both pair every one...
    assert_eq!(mass_move(1100, Some(true), Some(1100)), (13, 0));
    // ...and a file that keeps its name is paired by it before the limit is looked at.
    assert_eq!(mass_move(1100, Some(false), None), (13, 0));
}
