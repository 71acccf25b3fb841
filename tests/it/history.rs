//! History at scale: which docs are looked for in the history, which are discovered, and what an
//! object the history needs but cannot give does to the run.

use citegate::audit::{AuditError, AuditOptions};
use citegate::model::FileStat;
use citegate::testing::{self, Fixture};
use git2::{Oid, Repository};

const CODE: &str = "@@@ commit v1 code
@@@ file src/a.rs
fn keep() {
    let ttl = 30;
}
@@@ commit v2 more code
@@@ file src/b.rs
fn b() {}
";

/// Delete the loose object `id` (fixture repositories are not packed): what a partial clone
/// lacks.
fn remove_object(fx: &Fixture, id: Oid) {
    std::fs::remove_file(object_path(fx, id)).unwrap();
}

fn object_path(fx: &Fixture, id: Oid) -> std::path::PathBuf {
    let hex = id.to_string();
    fx.path()
        .join(".git/objects")
        .join(&hex[..2])
        .join(&hex[2..])
}

fn tree_of(fx: &Fixture, label: &str) -> Oid {
    let git = Repository::open(fx.path()).unwrap();
    let commit = git.find_commit(fx.labels[label]).unwrap();
    commit.tree_id()
}

fn blob_at(fx: &Fixture, label: &str, path: &str) -> Oid {
    let git = Repository::open(fx.path()).unwrap();
    let tree = git.find_commit(fx.labels[label]).unwrap().tree().unwrap();
    let entry = tree.get_path(std::path::Path::new(path)).unwrap();
    entry.id()
}

fn objects_error(result: Result<citegate::model::Report, AuditError>) -> String {
    match result {
        Err(e @ AuditError::Objects(_)) => e.to_string(),
        Err(e) => panic!("another error: {e}"),
        Ok(r) => panic!("no error; findings: {:?}", r.findings),
    }
}

#[test]
fn a_doc_git_never_had_is_not_looked_for_in_the_history() {
    // v1's tree is gone: any walk that reads the history fails. A doc that is not at the target,
    // not at HEAD and not in the index is audited without one.
    let spec = format!("{CODE}@@@ untracked answers/cache.md\nThe TTL: src/a.rs:2.\n");
    let fx = Fixture::build(&spec).unwrap();
    remove_object(&fx, tree_of(&fx, "v1"));
    let report = fx.audit(&["answers"], AuditOptions::default()).unwrap();
    assert_eq!(report.summary.citations, 1);
    assert!(report.findings.is_empty(), "{:?}", report.findings);
}

#[test]
fn a_doc_in_the_index_is_looked_for_along_the_targets_history() {
    // The same history, but the doc is in the index (gone at the target, added back): it is
    // looked for in the target's history, which cannot be read, so the run fails and says why.
    let spec = format!("{CODE}@@@ staged answers/cache.md\nThe TTL: src/a.rs:2.\n");
    let fx = Fixture::build(&spec).unwrap();
    let tree = tree_of(&fx, "v1");
    remove_object(&fx, tree);
    let message = objects_error(fx.audit(&["answers"], AuditOptions::default()));
    assert!(message.contains(&tree.to_string()), "{message}");
}

#[test]
fn a_blob_missing_from_a_partial_clone_is_an_error_naming_it_not_a_finding() {
    let spec = format!("{CODE}@@@ commit doc a doc\n@@@ file docs/a.md\nSee src/a.rs:2.\n");
    let fx = Fixture::build(&spec).unwrap();
    let blob = blob_at(&fx, "v1", "src/a.rs");
    remove_object(&fx, blob);
    let result = fx.audit(&["docs"], AuditOptions::default());
    assert_eq!(testing::exit_code(&result), 2);
    let message = objects_error(result);
    assert!(
        message.contains(&format!("blob {blob} is missing")),
        "{message}"
    );
    assert!(message.contains("git fetch --refetch"), "{message}");
}

#[test]
fn a_corrupt_blob_is_an_error_naming_it() {
    let spec = format!("{CODE}@@@ commit doc a doc\n@@@ file docs/a.md\nSee src/a.rs:2.\n");
    let fx = Fixture::build(&spec).unwrap();
    let blob = blob_at(&fx, "v1", "src/a.rs");
    let path = object_path(&fx, blob);
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&path, perms).unwrap();
    std::fs::write(&path, b"not a zlib stream").unwrap();
    let message = objects_error(fx.audit(&["docs"], AuditOptions::default()));
    assert!(message.contains(&blob.to_string()), "{message}");
    assert!(message.contains("git fsck"), "{message}");
}

#[test]
fn a_tracked_doc_matching_gitignore_is_audited_and_an_untracked_one_is_not() {
    let spec = format!(
        "{CODE}@@@ commit docs docs, one of them under an ignored folder
@@@ file .gitignore
generated/
@@@ file generated/page.md
Invented: src/nope.rs:1.
@@@ untracked generated/scratch.md
Also invented, never committed: src/nope.rs:2.
"
    );
    let fx = Fixture::build(&spec).unwrap();
    let report = fx.audit(&["."], AuditOptions::default()).unwrap();
    let docs: Vec<&str> = report
        .findings
        .iter()
        .map(|f| report.docs[f.doc].doc.name.as_str())
        .collect();
    assert_eq!(docs, vec!["generated/page.md"]);
}

/// `citegate audit --dump ARGS` in the fixture, as parsed JSON.
fn dump(fx: &Fixture, args: &[&str]) -> serde_json::Value {
    let out = assert_cmd::Command::cargo_bin("citegate")
        .unwrap()
        .args(["audit", "--dump", "--format", "json"])
        .args(args)
        .current_dir(fx.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn dump_says_where_each_citation_resolves_and_why() {
    let spec = format!(
        "{CODE}@@@ commit doc a doc written against v2
@@@ file docs/a.md
Implied: src/a.rs:2-3.
Own: https://github.com/acme/shop/blob/{{{{rev:v1}}}}/src/a.rs#L2
Whole file: [a](../src/b.rs).
@@@ file docs/pinned.md
---
citegate: {{rev: {{{{rev:v1}}}}}}
---
Doc pin: src/a.rs:1.
@@@ remote origin https://github.com/acme/shop.git
@@@ untracked docs/cache.md
Never committed: src/b.rs:1.
@@@ commit later the code moves on
@@@ file src/c.rs
fn c() {{}}
"
    );
    let fx = Fixture::build(&spec).unwrap();
    let (v1, doc) = (fx.labels["v1"].to_string(), fx.labels["doc"].to_string());
    let got = dump(&fx, &["docs"]);
    assert_eq!(got["version"], 1);
    let rows: Vec<String> = got["citations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{}:{}:{} {} {} {}-{} {} {} {}",
                c["doc"].as_str().unwrap(),
                c["line"],
                c["column"],
                c["syntax"].as_str().unwrap(),
                c["path"].as_str().unwrap(),
                c["start_line"],
                c["end_line"],
                c["pin"].as_str().unwrap(),
                c["revision"].as_str().unwrap(),
                c["pin_line_commit"].as_str().unwrap_or("-"),
            )
        })
        .collect();
    let target = fx.labels["later"].to_string();
    assert_eq!(got["target"], target.as_str());
    assert_eq!(
        rows,
        vec![
            format!("docs/a.md:1:10 bare src/a.rs 2-3 implied {doc} {doc}"),
            format!("docs/a.md:2:6 permalink src/a.rs 2-2 own {v1} -"),
            format!("docs/a.md:3:13 markdown_link src/b.rs null-null implied {doc} {doc}"),
            format!("docs/cache.md:1:18 bare src/b.rs 1-1 target {target} -"),
            format!("docs/pinned.md:4:10 bare src/a.rs 1-1 doc {v1} -"),
        ]
    );
    // --no-history: no implied pins, the target for every unpinned citation.
    let flat = dump(&fx, &["--no-history", "docs/a.md"]);
    assert_eq!(flat["citations"][0]["pin"], "target");
}

#[test]
fn renames_are_looked_for_only_where_something_was_deleted() {
    use citegate::resolve::folders::Folders;
    use citegate::resolve::renames::renames_between;
    let spec = "@@@ commit v1 code
@@@ file src/deep/a.rs
fn a() {}
fn b() {}
fn c() {}
@@@ commit add a file added, nothing deleted
@@@ file src/deep/b.rs
fn other() {}
@@@ commit move a.rs renamed into another folder
@@@ delete src/deep/a.rs
@@@ file lib/a.rs
fn a() {}
fn b() {}
fn c() {}
";
    let fx = Fixture::build(spec).unwrap();
    let git = Repository::open(fx.path()).unwrap();
    let tree = |label: &str| git.find_commit(fx.labels[label]).unwrap().tree_id();
    let folders = Folders::default();
    let limit = citegate::resolve::rename_rule::GIT_RENAME_LIMIT;
    assert!(
        renames_between((&git, None), &folders, tree("v1"), tree("add"), limit)
            .unwrap()
            .0
            .is_empty()
    );
    let (moved, _) =
        renames_between((&git, None), &folders, tree("add"), tree("move"), limit).unwrap();
    assert_eq!(
        moved.get("src/deep/a.rs").map(String::as_str),
        Some("lib/a.rs")
    );
}

/// A commit that renames more files than one thread reads alone: the blobs its scores need are
/// read on both threads, through lent handles, and the renames are the same as read on one.
#[test]
fn a_large_commits_renames_are_the_same_read_on_every_core() {
    use citegate::resolve::folders::Folders;
    use citegate::resolve::renames::renames_between;
    let files = 120;
    let body = |i: usize, edited: bool| -> String {
        let mut lines: Vec<String> = (0..8)
            .map(|l| format!("const F{i}_{l}: u32 = {l};"))
            .collect();
        if edited {
            lines[i % 8] = format!("const F{i}_EDITED: u32 = {i};");
        }
        lines.join("\n") + "\n"
    };
    let mut spec = String::from("@@@ commit v1 code\n");
    for i in 0..files {
        spec += &format!("@@@ file src/f{i}.rs\n{}", body(i, false));
    }
    spec += "@@@ commit move every file renamed, one line of each edited\n";
    for i in 0..files {
        spec += &format!(
            "@@@ delete src/f{i}.rs\n@@@ file lib/g{i}.rs\n{}",
            body(i, true)
        );
    }
    let fx = Fixture::build(&spec).unwrap();
    let git = Repository::open(fx.path()).unwrap();
    let tree = |label: &str| git.find_commit(fx.labels[label]).unwrap().tree_id();
    let (before, after) = (tree("v1"), tree("move"));
    let limit = citegate::resolve::rename_rule::GIT_RENAME_LIMIT;
    let alone = renames_between((&git, None), &Folders::default(), before, after, limit).unwrap();
    let lent = std::sync::atomic::AtomicUsize::new(0);
    let lend = |f: &mut dyn FnMut(&Repository)| {
        lent.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        f(&Repository::open(fx.path()).unwrap())
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let shared = pool.install(|| {
        let git = Repository::open(fx.path()).unwrap();
        renames_between(
            (&git, Some(&lend)),
            &Folders::default(),
            before,
            after,
            limit,
        )
        .unwrap()
    });
    assert!(lent.into_inner() > 1, "the blobs were read on lent handles");
    assert_eq!(alone.0.len(), files);
    assert_eq!(
        alone.0.get("src/f7.rs").map(String::as_str),
        Some("lib/g7.rs")
    );
    assert_eq!(alone, shared);
}

/// Peak resident memory (KiB) of `citegate ARGS` run in `dir`, its output sent to `out`: the
/// child's own figure (`getrusage` of the one child of a Python process), whatever other tests
/// run meanwhile.
#[cfg(target_os = "linux")]
fn peak_kib(dir: &std::path::Path, args: &[&str], out: &std::path::Path) -> u64 {
    const MEASURE: &str = "import resource, subprocess, sys\n\
        with open(sys.argv[1], 'wb') as out:\n\
        \x20   subprocess.run(sys.argv[2:], stdout=out, stderr=subprocess.DEVNULL, check=True)\n\
        print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n";
    let run = std::process::Command::new("python3")
        .args(["-c", MEASURE])
        .arg(out)
        .arg(env!("CARGO_BIN_EXE_citegate"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(run.status.success(), "{run:?}");
    String::from_utf8_lossy(&run.stdout).trim().parse().unwrap()
}

/// `audit --dump` writes each citation as it is resolved: a doc of 50,000 citations (a 22 MB
/// dump: a long doc name, holding a bidi control so every line is escaped) peaks below the audit
/// of the same doc, where holding the dump, its text and its escaped copy took more (121 MB
/// against the audit's 93 MB in a debug build); and the bytes are those of the pretty printer
/// over the whole dump.
#[cfg(target_os = "linux")]
#[test]
fn dump_streams_citations_in_the_bytes_of_one_pretty_json_document() {
    let mut spec = String::from("@@@ commit v1 code\n@@@ file src/a.rs\n");
    for i in 0..200 {
        spec.push_str(&format!("fn f{i}() {{}}\n"));
    }
    let doc = format!("docs/{}w\u{202e}iki.md", "section/".repeat(12));
    spec.push_str(&format!("@@@ file {doc}\n"));
    for i in 0..50_000 {
        spec.push_str(&format!("src/a.rs:{}\n", i % 200 + 1));
    }
    let fx = Fixture::build(&spec).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (json, report) = (dir.path().join("dump.json"), dir.path().join("report.json"));
    let audit = ["audit", "--jobs", "1", "--format", "json", "docs"];
    let audited = peak_kib(fx.path(), &audit, &report);
    let dump = ["audit", "--jobs", "1", "--dump", "--format", "json", "docs"];
    let peak = peak_kib(fx.path(), &dump, &json);
    let size = std::fs::metadata(&json).unwrap().len() / 1024;
    assert!(
        peak < audited,
        "--dump peaked at {peak} KiB (a {size} KiB dump); the audit of the same doc at {audited} KiB"
    );
    let text = std::fs::read_to_string(&json).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value["citations"].as_array().unwrap().len(), 50_000);
    let pretty = serde_json::to_string_pretty(&value).unwrap();
    assert!(
        text == pretty.replace('\u{202e}', "\\u202e") + "\n",
        "not the pretty printer's bytes"
    );
}

#[test]
fn a_doc_gits_index_vouches_for_gets_the_implied_pins_hashing_it_gives() {
    // The doc was written at v1; v2 moved the cited line down. Blame gives the citation v1 (the
    // doc is committed as is), where it holds: stale, moved.
    let spec = "@@@ commit v1 code and doc
@@@ file src/a.rs
fn keep() {
    let ttl = 30;
}
@@@ file docs/a.md
The TTL: src/a.rs:2.
@@@ commit v2 a line above
@@@ file src/a.rs
// cache
fn keep() {
    let ttl = 30;
}
";
    let fx = Fixture::build(spec).unwrap();
    let doc = fx.path().join("docs/a.md");
    let hour = std::time::Duration::from_secs(3600);
    let now = std::time::SystemTime::now();
    let file = std::fs::File::options().write(true).open(&doc).unwrap();
    file.set_modified(now - hour).unwrap();
    // Recorded again with the doc's stat data, in an index written after them.
    let git = Repository::open(fx.path()).unwrap();
    let mut index = git.index().unwrap();
    index.add_path(std::path::Path::new("docs/a.md")).unwrap();
    index.write().unwrap();
    let vouched = |git: &Repository| {
        let stat = FileStat::of(&std::fs::metadata(&doc).unwrap());
        citegate::resolve::index::vouched(git, &[("docs/a.md", stat)])[0]
    };
    assert!(vouched(&git).is_some(), "the index vouches for the doc");
    let trusted = fx.audit(&["docs"], AuditOptions::default()).unwrap();
    // The same index, as old as the doc: every entry racily clean, so the doc is hashed.
    let written = std::fs::File::options()
        .write(true)
        .open(fx.path().join(".git/index"));
    written.unwrap().set_modified(now - hour).unwrap();
    assert_eq!(vouched(&Repository::open(fx.path()).unwrap()), None);
    let hashed = fx.audit(&["docs"], AuditOptions::default()).unwrap();
    let rules = |r: &citegate::model::Report| -> Vec<String> {
        r.findings
            .iter()
            .map(|f| format!("{:?} {}", f.rule, f.message))
            .collect()
    };
    assert_eq!(rules(&trusted), rules(&hashed));
    assert!(
        rules(&trusted).iter().any(|r| r.starts_with("StaleMoved")),
        "{:?}",
        rules(&trusted)
    );
}

#[test]
fn following_a_file_past_the_rename_limit_says_so() {
    // Two files moved with an edit in one commit: 2 × 2 candidates are past a limit of 1, so
    // git diff pairs neither and the cited file reads as deleted; the run says which commit and
    // how far to raise the limit. Without the limit it is followed.
    let body = |name: &str| {
        (1..=10)
            .map(|i| format!("pub fn {name}_{i}() -> u32 {{ {i} }}\n"))
            .collect::<String>()
    };
    let (a, x) = (body("a"), body("x"));
    let edited = |text: &str| text.replacen("1() -> u32 { 1 }", "1() -> u64 { 100 }", 1);
    let spec = format!(
        "@@@ commit v1 code
@@@ file src/a.rs
{a}@@@ file src/x.rs
{x}@@@ commit m1 both moved with an edit
@@@ delete src/a.rs
@@@ delete src/x.rs
@@@ file lib/b.rs
{}@@@ file lib/y.rs
{}@@@ commit docs the doc
@@@ file docs/a.md
[five](https://github.com/acme/s/blob/{{{{short:v1}}}}/src/a.rs#L5)
",
        edited(&a),
        edited(&x)
    );
    let fx = Fixture::build(&spec).unwrap();
    let args = ["audit", "docs", "--repo-url", "https://github.com/acme/s"];
    let followed = crate::common::citegate(fx.path(), &args);
    let stdout = String::from_utf8_lossy(&followed.stdout);
    assert!(stdout.contains("lib/b.rs"), "{stdout}");
    assert!(!String::from_utf8_lossy(&followed.stderr).contains("renameLimit"));
    let git = Repository::open(fx.path()).unwrap();
    git.config()
        .unwrap()
        .set_i64("diff.renameLimit", 1)
        .unwrap();
    let out = crate::common::citegate(fx.path(), &args);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(stdout.contains("deleted"), "{stdout}");
    let m1 = &fx.labels["m1"].to_string()[..8];
    assert!(
        stderr.contains(&format!("skipped for too many files in commit {m1}"))
            && stderr.contains("at least 2"),
        "{stderr}"
    );
}
