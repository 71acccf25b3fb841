//! `citegate explain ID`: a rule's catalogue entry (`rules/ID.yaml`) and its example, run as the
//! rule tests run it. The example's repository is built in a temporary folder, so the docs show
//! the commit IDs they cite (not the catalogue's `{{short:v1}}`), and the change to a cited file
//! between the commit a flagged citation was written for and the target is shown as `git diff`
//! shows it: without it a stale example's two docs differ by a number only.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::ExitCode;

use git2::{DiffFindOptions, DiffFormat, Oid, Repository};

use citegate::audit::{self, AuditOptions};
use citegate::fixture;
use citegate::registry::{FixSafety, RuleId};

use super::common::{chain, failed, print_out};

pub fn explain(id: &str) -> ExitCode {
    let Some(rule) = RuleId::from_id(id) else {
        return failed(format_args!("no rule `{id}`; `citegate rules` lists them"));
    };
    let shown = match run_example(rule) {
        Ok(shown) => shown,
        Err(e) => return failed(format_args!("explain {id}: running its example: {e}")),
    };
    let info = rule.info();
    let fix = match info.fix {
        FixSafety::Safe => "safe (the content was found again, exactly and uniquely)",
        FixSafety::None => "none",
    };
    let mut text = format!(
        "{} ({}, {} by default)\n\n{}\n\n{}\n\nFix: {fix}\n\nThe example's repository:\n{}\n\
         Flagged ({}):\n{}\n",
        rule.as_str(),
        info.family.as_str(),
        info.severity.as_str(),
        info.description,
        info.why,
        indent(&shown.history),
        info.example.doc,
        indent(&shown.fail),
    );
    for change in &shown.changes {
        text.push_str(&format!(
            "{} from {} (the citation's commit) to {} (the target):\n{}\n",
            change.path,
            short(change.from),
            short(change.to),
            indent(&change.diff)
        ));
    }
    text.push_str(&format!("Not flagged:\n{}", indent(&shown.pass)));
    print_out(&text, ExitCode::SUCCESS)
}

/// A rule's example as it ran: the repository's commits, the two docs with their commit IDs, and
/// what changed in the files the flagged citations cite.
struct Shown {
    history: String,
    fail: String,
    pass: String,
    changes: Vec<Change>,
}

/// A cited file from the commit its citation was resolved at to the target.
struct Change {
    path: String,
    from: Oid,
    to: Oid,
    diff: String,
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    {l}\n")).collect()
}

fn short(oid: Oid) -> String {
    oid.to_string()[..8].to_string()
}

/// Build the example's repository, write its failing doc where the rule tests write it
/// (`docs/fail.EXT`, which a history example commits) and audit it.
fn run_example(rule: RuleId) -> Result<Shown, String> {
    let example = &rule.info().example;
    let dir = tempfile::tempdir().map_err(|e| format!("a temporary folder: {e}"))?;
    let root = dir.path();
    let labels = fixture::build(&example.repo, root).map_err(|e| e.to_string())?;
    let fail = fixture::substitute(&example.fail, &labels).map_err(|e| e.to_string())?;
    let pass = fixture::substitute(&example.pass, &labels).map_err(|e| e.to_string())?;
    let ext = example.doc.rsplit('.').next().unwrap_or("md");
    let doc = format!("docs/fail.{ext}");
    std::fs::create_dir_all(root.join("docs"))
        .and_then(|()| std::fs::write(root.join(&doc), &fail))
        .map_err(|e| format!("writing {doc}: {e}"))?;
    let report = audit::run(&AuditOptions {
        paths: vec![root.join(&doc)],
        repo: Some(root.to_path_buf()),
        jobs: Some(1),
        repins: false,
        ..AuditOptions::default()
    })
    .map_err(|e| chain(&e))?;
    let repo = Repository::open(root).map_err(|e| e.message().to_string())?;
    let target = Oid::from_str(&report.revision).map_err(|e| e.message().to_string())?;
    let cited: BTreeSet<(Oid, &str)> = report
        .findings
        .iter()
        .filter(|f| f.rule == rule && report.docs[f.doc].doc.name == doc)
        .filter_map(|f| Some((f.revision?, f.path.as_deref()?)))
        .filter(|(from, _)| *from != target)
        .collect();
    let changes = cited
        .into_iter()
        .map(|(from, path)| change(&repo, from, target, path))
        .collect::<Result<Vec<_>, git2::Error>>()
        .map_err(|e| e.message().to_string())?;
    Ok(Shown {
        history: history(&repo, &labels, target).map_err(|e| e.message().to_string())?,
        fail,
        pass,
        changes,
    })
}

/// One line per commit, oldest first: its short ID, label and message; the target marked.
fn history(
    repo: &Repository,
    labels: &fixture::Labels,
    target: Oid,
) -> Result<String, git2::Error> {
    let mut commits = labels
        .iter()
        .map(|(label, oid)| Ok((repo.find_commit(*oid)?, label)))
        .collect::<Result<Vec<_>, git2::Error>>()?;
    commits.sort_by_key(|(c, label)| (c.time().seconds(), label.to_string()));
    Ok(commits
        .iter()
        .map(|(c, label)| {
            let head = if c.id() == target {
                " (HEAD, the target)"
            } else {
                ""
            };
            let message = String::from_utf8_lossy(c.message_bytes());
            let message = message.lines().next().unwrap_or("");
            format!("{} {label}: {message}{head}\n", short(c.id()))
        })
        .collect())
}

/// `path` from `from` to `to` as `git diff` prints it, renames followed (a renamed file is shown
/// under its new name).
fn change(repo: &Repository, from: Oid, to: Oid, path: &str) -> Result<Change, git2::Error> {
    let old = repo.find_commit(from)?.tree()?;
    let new = repo.find_commit(to)?.tree()?;
    let mut diff = repo.diff_tree_to_tree(Some(&old), Some(&new), None)?;
    diff.find_similar(Some(DiffFindOptions::new().renames(true)))?;
    let mut text = String::new();
    diff.print(DiffFormat::Patch, |delta, _hunk, line| {
        if delta.old_file().path() == Some(Path::new(path)) {
            if let origin @ ('+' | '-' | ' ') = line.origin() {
                text.push(origin);
            }
            text.push_str(&String::from_utf8_lossy(line.content()));
        }
        true
    })?;
    if text.is_empty() {
        text.push_str("(no change)\n");
    }
    Ok(Change {
        path: path.to_string(),
        from,
        to,
        diff: text,
    })
}
