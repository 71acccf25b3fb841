//! `audit --since` selects every doc citing a path the range renamed or deleted, with `git diff
//! --find-renames --name-status BASE HEAD` as the oracle (issue 60: a `git mv` of a cited file
//! selected nothing, where the full audit reports `stale-renamed`). Each repository cites line 1
//! of every file from a doc of its own; edits change only a file's last line, so a file modified
//! in place selects nothing, and the cited paths of the selected docs must be exactly the old
//! paths git reports renamed (`R`) or deleted (`D`). Past `diff.renameLimit` git skips inexact
//! renames and says so; citegate must skip the same ones, say so with the limit git names, and
//! still select the old paths (a delete and an add).
//!
//! Git pairs a moved file by its unchanged name before it checks the limit, and citegate does not:
//! past the limit such a move is a rename to git and a deletion to citegate, which selects the
//! same docs; only the scenario without such moves compares the warning's numbers.

use std::collections::BTreeSet;

use citegate::audit::AuditOptions;
use citegate::model::RenamesSkipped;
use citegate::testing::Fixture;

/// A file's eight lines, its own (no two files share a line); `edited`: the last one changed.
fn body(name: &str, edited: bool) -> String {
    let stem = name.replace(['/', '.'], "_");
    let mut lines: Vec<String> = (1..=8).map(|i| format!("fn {stem}_{i}() {{}}")).collect();
    if edited {
        lines[7] = format!("fn {stem}_8_edited() {{}}");
    }
    lines.join("\n") + "\n"
}

/// What the range does to a file of the base.
enum Change {
    Keep,
    Edit,
    Delete,
    /// Renamed to the path, with the last line edited or not.
    Rename(&'static str, bool),
}

/// The fixture: base files, each cited at line 1 by `docs/N.md`; then one commit that applies
/// the changes.
fn spec(files: &[(&str, Change)]) -> String {
    let mut spec = String::from("@@@ commit base code and docs\n");
    for (i, (path, _)) in files.iter().enumerate() {
        spec += &format!("@@@ file {path}\n{}", body(path, false));
        spec += &format!("@@@ file docs/{i}.md\nIt starts at {path}:1.\n");
    }
    spec += "@@@ tag base\n@@@ commit head change the code\n";
    for (path, change) in files {
        match change {
            Change::Keep => {}
            Change::Edit => spec += &format!("@@@ file {path}\n{}", body(path, true)),
            Change::Delete => spec += &format!("@@@ delete {path}\n"),
            Change::Rename(to, edited) => {
                spec += &format!("@@@ delete {path}\n@@@ file {to}\n{}", body(path, *edited))
            }
        }
    }
    spec
}

/// git's answer: the old paths it reports renamed or deleted, and the limit it would have needed
/// when it skipped inexact renames.
fn oracle(dir: &std::path::Path) -> (BTreeSet<String>, Option<usize>) {
    let out = std::process::Command::new("git")
        .args(["diff", "--find-renames", "--name-status", "base", "HEAD"])
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", dir)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "{out:?}");
    let gone = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with('R') || l.starts_with('D'))
        .map(|l| l.split('\t').nth(1).unwrap().to_string())
        .collect();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let needed = stderr
        .split("diff.renameLimit variable to at least ")
        .nth(1)
        .map(|rest| rest.split(' ').next().unwrap().parse().unwrap());
    (gone, needed)
}

/// citegate's answer: the cited paths of the docs `--since base` selected, and its skip.
fn selected(fixture: &Fixture) -> (BTreeSet<String>, Option<RenamesSkipped>) {
    let opts = AuditOptions {
        since: Some("base".into()),
        ..AuditOptions::default()
    };
    let report = fixture.audit(&["docs"], opts).unwrap();
    let cited = (report.docs.iter())
        .flat_map(|d| &d.extracted.citations)
        .filter_map(|c| c.repo_path().map(str::to_string))
        .collect();
    (cited, report.renames_skipped)
}

/// Build the scenario (with `diff.renameLimit` set when given), and compare with git.
fn compare(files: &[(&str, Change)], limit: Option<i64>) -> Option<(usize, RenamesSkipped)> {
    let fixture = Fixture::build(&spec(files)).unwrap();
    if let Some(limit) = limit {
        let git = git2::Repository::open(fixture.path()).unwrap();
        git.config()
            .unwrap()
            .set_i64("diff.renameLimit", limit)
            .unwrap();
    }
    let (gone, needed) = oracle(fixture.path());
    let (cited, skipped) = selected(&fixture);
    assert_eq!(cited, gone, "selected (left) against git's R and D (right)");
    assert_eq!(
        skipped.is_some(),
        needed.is_some(),
        "{skipped:?} {needed:?}"
    );
    needed.zip(skipped)
}

#[test]
fn since_selects_renamed_paths_as_git_finds_them() {
    use Change::*;
    let files = [
        ("src/cache.rs", Rename("src/store.rs", false)),
        ("src/edited.rs", Rename("src/renamed.rs", true)),
        ("src/util/a.rs", Rename("lib/util/a.rs", false)),
        ("src/util/b.rs", Rename("lib/util/b.rs", true)),
        ("src/gone.rs", Delete),
        ("src/changed.rs", Edit),
        ("src/kept.rs", Keep),
    ];
    assert_eq!(compare(&files, None), None);
}

#[test]
fn since_past_the_rename_limit_says_so_and_still_selects() {
    use Change::*;
    // Two renames with an edit and a deletion left after the exact rename: 3 × 2 > 1².
    let files = [
        ("src/one.rs", Rename("src/first.rs", true)),
        ("src/two.rs", Rename("src/second.rs", true)),
        ("src/same.rs", Rename("src/exact.rs", false)),
        ("src/gone.rs", Delete),
        ("src/changed.rs", Edit),
    ];
    let (needed, skipped) = compare(&files, Some(1)).expect("git skipped");
    assert_eq!(skipped.limit, 1);
    assert_eq!(skipped.needed, needed);
    // Within the limit, nothing is skipped and the renames are pairs again.
    assert_eq!(compare(&files, Some(3)), None);
}

#[test]
fn since_past_the_rename_limit_selects_folder_moves() {
    use Change::*;
    // git pairs these by name before its limit; citegate takes them for deletions: the same docs.
    let files = [
        ("src/util/a.rs", Rename("lib/util/a.rs", true)),
        ("src/util/b.rs", Rename("lib/util/b.rs", true)),
    ];
    let fixture = Fixture::build(&spec(&files)).unwrap();
    let git = git2::Repository::open(fixture.path()).unwrap();
    let mut config = git.config().unwrap();
    config.set_i64("diff.renameLimit", 1).unwrap();
    let (gone, _) = oracle(fixture.path());
    let (cited, skipped) = selected(&fixture);
    assert_eq!(cited, gone);
    assert_eq!(
        skipped,
        Some(RenamesSkipped {
            commit: None,
            limit: 1,
            needed: 2
        })
    );
    // The command line says so, and how to follow them.
    let out = crate::common::citegate(fixture.path(), &["audit", "docs", "--since", "base"]);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("rename detection was skipped") && stderr.contains("at least 2"),
        "{stderr}"
    );
}
