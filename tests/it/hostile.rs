//! Hostile inputs through the binary: each test is a row of the hardening pass (issue 10) and
//! fails without its fix. The rule behind them: bad input gets a located finding or a clear error,
//! the rest of the batch runs, exit codes keep their meaning, nothing outside the repository is
//! read, printed or written through.

use citegate::testing::Fixture;

use crate::common::{citegate, write};

const REPO: &str = "@@@ commit v1 code\n@@@ file src/a.rs\nfn a() {}\nfn b() {}\n";

fn json(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}); exit {:?}; stderr: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// (rule, doc, message) of each finding of a JSON report.
fn triples(report: &serde_json::Value) -> Vec<(String, String, String)> {
    let text = |f: &serde_json::Value, k: &str| f[k].as_str().unwrap().to_string();
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (text(f, "rule"), text(f, "doc"), text(f, "message")))
        .collect()
}

#[test]
fn json_nested_5000_deep_does_not_stop_the_batch() {
    let fx = Fixture::build(REPO).unwrap();
    let deep = format!("{}{}", "[".repeat(5_000), "]".repeat(5_000));
    write(fx.path(), "docs/deep.json", &deep);
    write(
        fx.path(),
        "docs/deep-answer.json",
        format!("{{\"citations\": {deep}}}"),
    );
    write(fx.path(), "docs/a.md", "Missing: src/nope.rs:1.\n");
    let out = citegate(fx.path(), &["audit", "docs", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    assert_eq!(
        triples(&report)
            .into_iter()
            .map(|(rule, doc, _)| (rule, doc))
            .collect::<Vec<_>>(),
        [
            ("invented-path".to_string(), "docs/a.md".to_string()),
            (
                "malformed-doc".to_string(),
                "docs/deep-answer.json".to_string()
            )
        ]
    );
    assert_eq!(report["summary"]["skipped"], 1);
}

#[test]
fn a_finding_past_column_65535_is_shown_not_a_panic() {
    let fx = Fixture::build(REPO).unwrap();
    let mut answers: Vec<String> = (0..1000)
        .map(|_| {
            format!(
                "{{\"summary\": \"\", \"refuse\": {{\"reason\": \"ambiguous\", \"note\": \"{}\"}}, \"citations\": []}}",
                "s".repeat(100)
            )
        })
        .collect();
    answers.push(
        "{\"summary\": \"x\", \"citations\": [{\"path\": \"src/nope.rs\", \"startLine\": 1, \"quote\": \"q\"}]}"
            .into(),
    );
    write(
        fx.path(),
        "docs/batch.json",
        format!("[{}]", answers.join(", ")),
    );
    let out = citegate(fx.path(), &["audit", "docs", "--color", "never"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // 1-based: the `[`, each answer and its `, `, then the citation object in the last answer.
    let before: usize = answers[..1000].iter().map(|a| a.len() + 2).sum();
    let column = 1 + before + answers[1000].find("{\"path\"").unwrap() + 1;
    assert!(column > 65_536);
    assert!(
        stdout.contains(&format!("docs/batch.json:1:{column}]")),
        "{stdout}"
    );
    assert!(stdout.contains("src/nope.rs"), "{stdout}");
    // The same column in JSON: every format counts characters.
    let report = json(&citegate(fx.path(), &["audit", "docs", "--format", "json"]));
    assert_eq!(report["findings"][0]["column"], column);
}

#[test]
fn a_config_error_on_a_very_long_line_is_located_not_a_panic() {
    let fx = Fixture::build(REPO).unwrap();
    let regex = format!(
        "(?P<path>\\w+):(?P<start>\\d+){}",
        "(a{1000}){1000}".repeat(20)
    );
    write(
        fx.path(),
        ".citegate.yaml",
        format!("patterns:\n  - name: huge\n    regex: '{regex}'\n"),
    );
    let out = citegate(fx.path(), &["audit"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("bad configuration"), "{stderr}");
    assert!(stderr.contains(".citegate.yaml:3:"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn doc_names_and_paths_cannot_inject_into_any_output() {
    let fx = Fixture::build(REPO).unwrap();
    // A doc name with a terminal escape, and an answer whose path holds CR and a heading.
    write(
        fx.path(),
        "docs/e\u{1b}[31mvil.md",
        "Missing: src/nope.rs:1.\n",
    );
    write(
        fx.path(),
        "docs/a.json",
        "{\"summary\": \"s\", \"citations\": [{\"path\": \"x\\r\\n## heading | cell\", \"startLine\": 1, \"quote\": \"q\"}]}",
    );
    for format in ["human", "github", "markdown"] {
        let out = citegate(
            fx.path(),
            &["audit", "docs", "--format", format, "--color", "never"],
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{format}: {stdout}");
        assert!(
            !stdout.contains('\u{1b}'),
            "{format} prints a raw escape: {stdout:?}"
        );
        assert!(
            !stdout.contains('\r'),
            "{format} prints a raw CR: {stdout:?}"
        );
        if format == "markdown" {
            assert!(
                !stdout.lines().any(|l| l.starts_with("## heading")),
                "{stdout}"
            );
            let rows = stdout.lines().filter(|l| l.contains(" | error | ")).count();
            assert_eq!(rows, 2, "one table row per finding: {stdout}");
        }
    }
}

#[test]
fn sarif_artifact_uris_are_percent_encoded() {
    let fx = Fixture::build(REPO).unwrap();
    write(
        fx.path(),
        "docs/d o#c?s/a%25b.md",
        "Missing: src/nope.rs:1.\n",
    );
    write(fx.path(), "x:y/c.md", "Missing: src/nope.rs:2.\n");
    let out = citegate(fx.path(), &["audit", "docs", "x:y", "--format", "sarif"]);
    let sarif = json(&out);
    let uris: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(uris, ["docs/d%20o%23c%3Fs/a%2525b.md", "x%3Ay/c.md"]);
}

fn findings(fx: &Fixture, args: &[&str]) -> (Option<i32>, Vec<(String, String, String)>) {
    let mut all = vec!["audit"];
    all.extend_from_slice(args);
    all.extend(["--format", "json"]);
    let out = citegate(fx.path(), &all);
    (out.status.code(), triples(&json(&out)))
}

#[cfg(unix)]
#[test]
fn a_symlinked_doc_is_reported_not_followed_and_fix_never_replaces_it() {
    let fx = Fixture::build(REPO).unwrap();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.md");
    std::fs::write(&secret, "SECRET src/a.rs:9\n").unwrap();
    std::fs::create_dir_all(fx.path().join("docs")).unwrap();
    std::os::unix::fs::symlink(&secret, fx.path().join("docs/link.md")).unwrap();
    let (code, got) = findings(&fx, &["docs/link.md"]);
    assert_eq!(code, Some(1));
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, "malformed-doc");
    assert!(got[0].2.contains("symbolic link"), "{got:?}");
    let out = citegate(fx.path(), &["audit", "docs/link.md", "--color", "never"]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("SECRET"));
    citegate(fx.path(), &["fix", "docs/link.md"]);
    assert!(std::fs::symlink_metadata(fx.path().join("docs/link.md"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        std::fs::read_to_string(&secret).unwrap(),
        "SECRET src/a.rs:9\n"
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_named_as_a_doc_is_reported_not_opened() {
    let fx = Fixture::build(REPO).unwrap();
    let fifo = fx.path().join("pipe.md");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        panic!("mkfifo is needed for this test");
    }
    let (code, got) = findings(&fx, &["pipe.md"]);
    assert_eq!(code, Some(1));
    assert_eq!(got[0].0, "malformed-doc");
    assert!(got[0].2.contains("not a regular file"), "{got:?}");
}

#[test]
fn a_utf16_doc_is_named_as_such() {
    let fx = Fixture::build(REPO).unwrap();
    let mut bytes = vec![0xff, 0xfe];
    for unit in "src/a.rs:1\n".encode_utf16() {
        bytes.extend(unit.to_le_bytes());
    }
    write(fx.path(), "docs/u16.md", bytes);
    let (_, got) = findings(&fx, &["docs"]);
    assert_eq!(got[0].0, "malformed-doc");
    assert!(got[0].2.contains("UTF-16"), "{got:?}");
}

#[test]
fn absurd_job_counts_are_refused_before_any_thread_starts() {
    let fx = Fixture::build(REPO).unwrap();
    let out = citegate(fx.path(), &["audit", "-j", "16000"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--jobs 16000: at most"), "{stderr}");
}

#[test]
fn fix_refuses_a_rename_it_could_not_write_back_bare() {
    let spec = "@@@ commit v1 code\n@@@ file src/old.rs\nfn kept() {}\nfn also() {}\n\
                @@@ file docs/a.md\nSee src/old.rs:1-2.\n\
                @@@ commit v2 renamed to a path with parentheses\n@@@ delete src/old.rs\n@@@ file src/pa(r).rs\nfn kept() {}\nfn also() {}\n";
    let fx = Fixture::build(spec).unwrap();
    let (_, got) = findings(&fx, &["docs"]);
    assert_eq!(got[0].0, "stale-renamed", "{got:?}");
    citegate(fx.path(), &["fix", "docs"]);
    assert_eq!(
        std::fs::read_to_string(fx.path().join("docs/a.md")).unwrap(),
        "See src/old.rs:1-2.\n",
        "a bare `src/pa(r).rs:1-2` would not be read back whole"
    );
}

#[test]
fn a_path_inside_a_submodule_is_not_a_file() {
    let spec =
        "@@@ commit v1 code\n@@@ submodule vendor/lib 0123456789abcdef0123456789abcdef01234567\n\
                @@@ file docs/a.md\nIn the vendored library: vendor/lib/src/x.rs:3.\n";
    let fx = Fixture::build(spec).unwrap();
    let (_, got) = findings(&fx, &["docs"]);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, "not-a-file");
    assert!(
        got[0].2.contains("inside the submodule `vendor/lib`"),
        "{got:?}"
    );
}

#[test]
fn a_huge_blob_is_refused_from_its_size() {
    let fx = Fixture::build(REPO).unwrap();
    // 33 MiB of zeros compresses to almost nothing in the object database.
    let git = git2::Repository::open(fx.path()).unwrap();
    let huge = vec![b'a'; (32 << 20) + 1024];
    let blob = git.blob(&huge).unwrap();
    let head = git.head().unwrap().peel_to_commit().unwrap();
    let mut tree = git.treebuilder(Some(&head.tree().unwrap())).unwrap();
    tree.insert("huge.txt", blob, 0o100644).unwrap();
    let tree = git.find_tree(tree.write().unwrap()).unwrap();
    let sig = git2::Signature::now("t", "t@t").unwrap();
    git.commit(Some("HEAD"), &sig, &sig, "huge", &tree, &[&head])
        .unwrap();
    write(fx.path(), "docs/a.md", "In huge.txt:1.\n");
    let (_, got) = findings(&fx, &["docs"]);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, "not-a-file");
    assert!(got[0].2.contains("too large to read"), "{got:?}");
}
