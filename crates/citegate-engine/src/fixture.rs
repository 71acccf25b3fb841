//! Fixture repositories described in plain text and built at test time with a fixed author and
//! date, so commit IDs are stable. Used by the tests, the benchmarks, the bundled example and
//! `citegate explain` (which runs a rule's catalogue example in a temporary folder).
//!
//! ```text
//! @@@ remote origin https://github.com/acme/shop.git
//! @@@ commit v1 first version
//! @@@ file src/cache.rs
//! pub const TTL_SECONDS: u64 = 30;
//! @@@ commit v2 move things
//! @@@ crlf src/win.rs
//! line one
//! @@@ delete src/old.rs
//! @@@ file docs/a.md
//! pinned at {{rev:v1}} ({{short:v1}})
//! ```
//!
//! Directives: `commit LABEL MESSAGE` (starts a commit; files that follow belong to it),
//! `file PATH` / `crlf PATH` (content: the lines up to the next directive; `crlf` writes CRLF line
//! ends), `binary PATH` (content then NUL bytes), `bad-utf8 PATH` (content then bytes that are not
//! UTF-8), `symlink PATH TARGET`, `submodule PATH SHA`, `delete PATH`, `tag NAME` (on the last commit),
//! `remote NAME URL`, `untracked PATH` (written to disk, never committed), `staged PATH` (written
//! to disk and added to the index after the last commit, never committed), `parents LABEL…` (after
//! `commit`: its parents, the first giving the tree it starts from; a branch or a merge; the last
//! commit is always the branch's tip), `shallow LABEL` (after the commits: the clone's history
//! stops at that commit, as `git clone --depth` leaves it). `{{rev:LABEL}}` and
//! `{{short:LABEL}}` in content are replaced by the full or 8-hex SHA of an earlier commit.

use std::collections::HashMap;
use std::path::Path;

use git2::{Oid, Repository, Signature, Time};

/// The fixed identity and clock of fixture commits.
const AUTHOR: &str = "citegate fixtures";
const EMAIL: &str = "fixtures@citegate.invalid";
const EPOCH: i64 = 1_767_225_600; // 2026-01-01T00:00:00Z

/// Commit labels and the SHAs they got.
pub type Labels = HashMap<String, Oid>;

/// Why a fixture could not be built: a directive out of place or unknown, a label never
/// committed, or Git's error.
#[derive(Debug)]
pub struct FixtureError(pub String);

impl std::fmt::Display for FixtureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FixtureError {}

impl From<git2::Error> for FixtureError {
    fn from(e: git2::Error) -> Self {
        FixtureError(e.message().to_string())
    }
}

impl From<std::io::Error> for FixtureError {
    fn from(e: std::io::Error) -> Self {
        FixtureError(e.to_string())
    }
}

enum Op {
    Write {
        path: String,
        bytes: Vec<u8>,
    },
    Symlink {
        path: String,
        target: String,
    },
    /// A submodule entry pointing at a commit of another repository.
    Gitlink {
        path: String,
        commit: Oid,
    },
    Delete(String),
    Untracked {
        path: String,
        bytes: Vec<u8>,
    },
}

/// Build the repository described by `spec` in the (empty or missing) folder `dir`.
pub fn build(spec: &str, dir: &Path) -> Result<Labels, FixtureError> {
    std::fs::create_dir_all(dir)?;
    let repo = Repository::init_opts(dir, git2::RepositoryInitOptions::new().initial_head("main"))?;
    let mut labels = Labels::new();
    let mut pending: Option<Pending> = None;
    let mut branched = false;
    // `shallow` labels: written to `.git/shallow` once every commit is made.
    let mut shallow: Vec<String> = Vec::new();
    // `staged` files: written and added to the index after the last commit.
    let mut staged: Vec<(String, Vec<u8>)> = Vec::new();
    let mut lines = spec.lines().peekable();
    let mut count = 0i64;
    while let Some(line) = lines.next() {
        let Some(directive) = line.strip_prefix("@@@ ") else {
            if line.trim().is_empty() {
                continue;
            }
            return Err(FixtureError(format!("content outside a file: {line:?}")));
        };
        let mut words = directive.splitn(3, ' ');
        let verb = words.next().unwrap_or("");
        let arg1 = words.next().unwrap_or("").to_string();
        let rest = words.next().unwrap_or("").to_string();
        let mut content = || {
            let mut text = String::new();
            while let Some(l) = lines.peek() {
                if l.starts_with("@@@ ") {
                    break;
                }
                text.push_str(l);
                text.push('\n');
                lines.next();
            }
            text
        };
        match verb {
            "commit" => {
                if let Some(p) = pending.take() {
                    commit(&repo, dir, &mut labels, p, count)?;
                    count += 1;
                }
                pending = Some(Pending {
                    label: arg1,
                    message: rest,
                    ops: Vec::new(),
                    parents: None,
                });
            }
            "staged" => staged.push((arg1, substitute(&content(), &labels)?.into_bytes())),
            "file" | "crlf" | "untracked" | "binary" | "bad-utf8" => {
                let op = file_op(verb, arg1, substitute(&content(), &labels)?);
                ops_of(&mut pending, verb)?.push(op);
            }
            "symlink" => ops_of(&mut pending, verb)?.push(Op::Symlink {
                path: arg1,
                target: rest,
            }),
            "delete" => ops_of(&mut pending, verb)?.push(Op::Delete(arg1)),
            "submodule" => {
                let commit = Oid::from_str(rest.trim())
                    .map_err(|_| FixtureError(format!("`@@@ submodule {arg1}` needs a SHA")))?;
                ops_of(&mut pending, verb)?.push(Op::Gitlink { path: arg1, commit });
            }
            "tag" => {
                if let Some(p) = pending.take() {
                    commit(&repo, dir, &mut labels, p, count)?;
                    count += 1;
                }
                let head = repo.head()?.peel_to_commit()?;
                repo.tag_lightweight(&arg1, head.as_object(), false)?;
                labels.insert(arg1, head.id());
            }
            "remote" => {
                repo.remote(&arg1, rest.trim())?;
            }
            "parents" => {
                let p = pending.as_mut().ok_or_else(|| {
                    FixtureError("`@@@ parents` before any `@@@ commit`".to_string())
                })?;
                let names = format!("{arg1} {rest}");
                p.parents = Some(names.split_whitespace().map(str::to_string).collect());
                branched = true;
            }
            "shallow" => shallow.push(arg1),
            other => return Err(FixtureError(format!("unknown directive `@@@ {other}`"))),
        }
    }
    if let Some(p) = pending.take() {
        commit(&repo, dir, &mut labels, p, count)?;
    }
    if branched {
        // Branch commits left other versions of files on disk: the work tree is the last commit's.
        repo.checkout_head(Some(git2::build::CheckoutBuilder::new().force()))?;
    }
    stage(&repo, dir, staged)?;
    cut_history(&repo, &labels, &shallow)?;
    Ok(labels)
}

/// Make the clone shallow at the commits labelled `at`: their parents are no longer read.
fn cut_history(repo: &Repository, labels: &Labels, at: &[String]) -> Result<(), FixtureError> {
    if at.is_empty() {
        return Ok(());
    }
    let mut list = String::new();
    for label in at {
        let id = labels
            .get(label)
            .ok_or_else(|| FixtureError(format!("`@@@ shallow`: unknown label `{label}`")))?;
        list.push_str(&format!("{id}\n"));
    }
    std::fs::write(repo.path().join("shallow"), list)
        .map_err(|e| FixtureError(format!("writing .git/shallow: {e}")))
}

/// Write `staged` files and add them to the index, after the last commit.
fn stage(
    repo: &Repository,
    dir: &Path,
    staged: Vec<(String, Vec<u8>)>,
) -> Result<(), FixtureError> {
    if staged.is_empty() {
        return Ok(());
    }
    let mut index = repo.index()?;
    for (path, bytes) in staged {
        write_file(dir, &path, &bytes)?;
        index.add_path(Path::new(&path))?;
    }
    index.write()?;
    Ok(())
}

/// A file written by `file`, `crlf`, `untracked`, `binary` or `bad-utf8`.
fn file_op(verb: &str, path: String, mut text: String) -> Op {
    if verb == "crlf" {
        text = text.replace('\n', "\r\n");
    }
    let mut bytes = text.into_bytes();
    match verb {
        "binary" => bytes.extend_from_slice(&[0, 1, 2, 0xff]),
        "bad-utf8" => bytes.extend_from_slice(&[0xff, 0xfe, b'\n']),
        _ => {}
    }
    if verb == "untracked" {
        Op::Untracked { path, bytes }
    } else {
        Op::Write { path, bytes }
    }
}

fn ops_of<'a>(
    pending: &'a mut Option<Pending>,
    verb: &str,
) -> Result<&'a mut Vec<Op>, FixtureError> {
    pending
        .as_mut()
        .map(|p| &mut p.ops)
        .ok_or_else(|| FixtureError(format!("`@@@ {verb}` before any `@@@ commit`")))
}

/// Replace `{{rev:LABEL}}` and `{{short:LABEL}}` (mdBook's `{{#…}}` directives are kept).
pub fn substitute(text: &str, labels: &Labels) -> Result<String, FixtureError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[i..]);
            rest = "";
            break;
        };
        let key = &after[..end];
        if key.starts_with('#') {
            // An mdBook directive (`{{#include a.rs:1:2}}`) is content, kept as written.
            out.push_str(&rest[i..i + 2 + end + 2]);
            rest = &after[end + 2..];
            continue;
        }
        let (kind, label) = key.split_once(':').unwrap_or(("", key));
        let oid = labels
            .get(label)
            .ok_or_else(|| FixtureError(format!("unknown label in `{{{{{key}}}}}`")))?;
        match kind {
            "rev" => out.push_str(&oid.to_string()),
            "short" => out.push_str(&oid.to_string()[..8]),
            _ => return Err(FixtureError(format!("unknown placeholder `{{{{{key}}}}}`"))),
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// A commit being described: its label, message, changes and, when given, its parents.
struct Pending {
    label: String,
    message: String,
    ops: Vec<Op>,
    /// `@@@ parents A B`: labels of its parents (the first gives the starting tree); default: the
    /// last commit.
    parents: Option<Vec<String>>,
}

fn commit(
    repo: &Repository,
    dir: &Path,
    labels: &mut Labels,
    pending: Pending,
    count: i64,
) -> Result<(), FixtureError> {
    let Pending {
        label,
        message,
        ops,
        parents,
    } = pending;
    let mut index = repo.index()?;
    let parents = match parents {
        Some(names) => {
            let commits = names
                .iter()
                .map(|n| {
                    let oid = labels.get(n).ok_or_else(|| {
                        FixtureError(format!("`@@@ parents`: unknown label `{n}`"))
                    })?;
                    Ok(repo.find_commit(*oid)?)
                })
                .collect::<Result<Vec<_>, FixtureError>>()?;
            if let Some(first) = commits.first() {
                index.read_tree(&first.tree()?)?;
            }
            Some(commits)
        }
        None => None,
    };
    for op in ops {
        match op {
            Op::Write { path, bytes } => {
                write_file(dir, &path, &bytes)?;
                index.add_path(Path::new(&path))?;
            }
            Op::Untracked { path, bytes } => write_file(dir, &path, &bytes)?,
            Op::Symlink { path, target } => {
                let full = dir.join(&path);
                if let Some(parent) = full.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                let _ = std::fs::remove_file(&full);
                #[cfg(unix)]
                std::os::unix::fs::symlink(&target, &full)?;
                index.add_path(Path::new(&path))?;
            }
            Op::Gitlink { path, commit } => {
                index.add(&git2::IndexEntry {
                    ctime: git2::IndexTime::new(0, 0),
                    mtime: git2::IndexTime::new(0, 0),
                    dev: 0,
                    ino: 0,
                    mode: 0o160000,
                    uid: 0,
                    gid: 0,
                    file_size: 0,
                    id: commit,
                    flags: path.len().min(0xfff) as u16,
                    flags_extended: 0,
                    path: path.into_bytes(),
                })?;
            }
            Op::Delete(path) => {
                let _ = std::fs::remove_file(dir.join(&path));
                index.remove_path(Path::new(&path))?;
            }
        }
    }
    index.write()?;
    let tree = repo.find_tree(index.write_tree()?)?;
    let time = Time::new(EPOCH + count * 3600, 0);
    let sig = Signature::new(AUTHOR, EMAIL, &time)?;
    let parents = match parents {
        Some(p) => p,
        None => match repo.head() {
            Ok(h) => vec![h.peel_to_commit()?],
            Err(_) => Vec::new(),
        },
    };
    let parent_refs: Vec<&git2::Commit<'_>> = parents.iter().collect();
    let msg = if message.is_empty() { &label } else { &message };
    // The branch moves to every new commit, whatever its parents.
    let oid = repo.commit(None, &sig, &sig, msg, &tree, &parent_refs)?;
    repo.reference("refs/heads/main", oid, true, "fixture")?;
    labels.insert(label, oid);
    Ok(())
}

fn write_file(dir: &Path, path: &str, bytes: &[u8]) -> Result<(), FixtureError> {
    let full = dir.join(path);
    if let Some(parent) = full.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let _ = std::fs::remove_file(&full);
    std::fs::write(&full, bytes)?;
    Ok(())
}
