//! CLI behaviour that the data-driven cases cannot express: exit codes of failed runs, shallow
//! clones, docs outside the repository, determinism across thread counts, closed pipes, fixes in
//! the JSON report, and snapshots of the rendered reports.

use crate::common;

use std::path::Path;
use std::process::Stdio;

use serde_json::Value;

use crate::common::command as citegate;

fn json(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stdout));
    })
}

#[test]
fn outside_a_repository_the_run_fails_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = citegate(dir.path())
        .args(["audit", "--repo", "."])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a Git repository"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn an_unknown_rev_fails_the_run_and_a_missing_path_too() {
    let (_d, repo) = common::example();
    let out = citegate(&repo)
        .args(["audit", "--rev", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--target nope"));
    let out = citegate(&repo)
        .args(["audit", "no/such/dir"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/dir"));
}

#[test]
fn bad_arguments_exit_2() {
    let (_d, repo) = common::example();
    let out = citegate(&repo)
        .args(["audit", "--format", "xml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn output_is_the_same_whatever_the_thread_count() {
    let (_d, repo) = common::example();
    let one = citegate(&repo)
        .args(["audit", "-j", "1", "--format", "json"])
        .output()
        .unwrap();
    let many = citegate(&repo)
        .args(["audit", "-j", "4", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(one.status.code(), Some(1));
    assert_eq!(one.stdout, many.stdout);
}

#[test]
fn json_report_carries_fixes_with_their_byte_range() {
    let (_d, repo) = common::example();
    let out = citegate(&repo)
        .args(["audit", "docs", "--format", "json"])
        .output()
        .unwrap();
    let report = json(&out);
    let doc = std::fs::read_to_string(repo.join("docs/wiki/cache.md")).unwrap();
    let fixes: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["fix"].is_object())
        .collect();
    assert_eq!(fixes.len(), 1, "{fixes:?}");
    let fix = &fixes[0]["fix"];
    let (a, b) = (
        fix["byte_start"].as_u64().unwrap() as usize,
        fix["byte_end"].as_u64().unwrap() as usize,
    );
    assert_eq!(&doc[a..b], "17-18");
    assert_eq!(fix["replacement"], "16-17");
    assert_eq!(
        (fix["start_line"].as_i64(), fix["end_line"].as_i64()),
        (Some(16), Some(17))
    );
}

#[test]
fn one_fix_or_regenerate_run_on_the_bundled_example_leaves_nothing_for_a_second() {
    let (_d, repo) = common::example();
    let fixed = citegate(&repo).arg("fix").output().unwrap();
    assert_eq!(
        fixed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&fixed.stderr)
    );
    assert!(
        !String::from_utf8_lossy(&fixed.stdout).starts_with("0 citations fixed"),
        "the example has fixes to make"
    );
    let again = citegate(&repo).args(["fix", "--diff"]).output().unwrap();
    assert_eq!(
        again.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&again.stdout)
    );
    assert!(
        again.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&again.stdout)
    );

    // regenerate --write reaches its fixpoint in one run too: a second changes no byte.
    let (_d, repo) = common::example();
    let docs = ["docs/wiki/cache.md", "docs/answers/ttl.json"];
    let read = || docs.map(|d| std::fs::read(repo.join(d)).unwrap());
    let before = read();
    citegate(&repo)
        .args(["regenerate", "--write"])
        .output()
        .unwrap();
    let once = read();
    assert_ne!(once, before, "the example has answers to regenerate");
    citegate(&repo)
        .args(["regenerate", "--write"])
        .output()
        .unwrap();
    assert_eq!(read(), once);
}

#[test]
fn other_json_is_counted_as_skipped() {
    let (_d, repo) = common::example();
    let out = citegate(&repo)
        .args(["audit", "--format", "json"])
        .output()
        .unwrap();
    let report = json(&out);
    assert_eq!(report["summary"]["skipped"], 1, "package.json");
    assert_eq!(report["summary"]["docs"], 2);
}

/// `git clone --depth DEPTH` of `full` into `into`.
fn shallow_clone(full: &Path, into: &Path, depth: &str) {
    let status = std::process::Command::new("git")
        .args(["clone", "-q", "--depth", depth])
        .arg(format!("file://{}", full.display()))
        .arg(into)
        .status()
        .expect("git clone");
    assert!(status.success());
}

#[test]
fn history_cut_short_is_a_finding_never_a_pass() {
    // Issue 32: a doc cites src/a.rs:3, then line 3 changes. The full clone says stale-changed;
    // a depth-1 or depth-2 clone (actions/checkout's default is 1) or a graft used to report
    // nothing and exit 0. Now each says that the history stops, and fails; turned off on
    // purpose (--no-history), history is not used and the run passes.
    let spec = "@@@ commit v1 code\n@@@ file src/a.rs\nfn a() {}\nfn b() {}\nfn c() {}\n\
                @@@ commit docs the doc\n@@@ file docs/a.md\nThe third function is src/a.rs:3.\n\
                @@@ commit v2 line 3 changes\n@@@ file src/a.rs\nfn a() {}\nfn b() {}\nfn c2() {}\n\
                @@@ commit v3 unrelated\n@@@ file README.md\nhello\n";
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full");
    let labels = citegate::fixture::build(spec, &full).unwrap();
    let audit = |repo: &Path, extra: &[&str]| {
        let out = citegate(repo)
            .args(["audit", "docs", "--format", "json"])
            .args(extra)
            .output()
            .unwrap();
        let rules: Vec<String> = json(&out)["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                format!(
                    "{} {}",
                    f["rule"].as_str().unwrap(),
                    f["message"].as_str().unwrap()
                )
            })
            .collect();
        (out.status.code(), rules)
    };
    let (code, rules) = audit(&full, &[]);
    assert_eq!(code, Some(1));
    assert!(rules[0].starts_with("stale-changed"), "{rules:?}");

    for depth in ["1", "2"] {
        let clone = dir.path().join(format!("depth{depth}"));
        shallow_clone(&full, &clone, depth);
        let (code, rules) = audit(&clone, &[]);
        assert_eq!(code, Some(1), "depth {depth}: {rules:?}");
        assert_eq!(rules.len(), 1, "depth {depth}: {rules:?}");
        assert!(
            rules[0].starts_with("history-cut 1 citation of this doc resolves by line history"),
            "{rules:?}"
        );
        assert!(rules[0].contains("shallow clone"), "{rules:?}");
        // Issue 57: its `.git/shallow` rewritten with CRLF line ends (as an editor or a Windows
        // tool may leave it; git reads it) gives the same verdict, not exit 2.
        let shallow = clone.join(".git/shallow");
        let lf = std::fs::read_to_string(&shallow).unwrap();
        std::fs::write(&shallow, lf.replace('\n', "\r\n")).unwrap();
        assert_eq!(audit(&clone, &[]), (code, rules), "depth {depth}, CRLF");
        std::fs::write(&shallow, lf).unwrap();
        let (code, rules) = audit(&clone, &["--no-history"]);
        assert_eq!(
            (code, rules),
            (Some(0), vec![]),
            "depth {depth}, --no-history"
        );
    }

    // A graft that cuts the history at v3 (its parents forgotten).
    let grafted = dir.path().join("grafted");
    shallow_clone(&full, &grafted, "10");
    std::fs::write(
        grafted.join(".git/info/grafts"),
        format!("{}\n", labels["v3"]),
    )
    .unwrap();
    let (code, rules) = audit(&grafted, &[]);
    assert_eq!(code, Some(1), "{rules:?}");
    assert!(
        rules
            .iter()
            .any(|r| r.starts_with("history-cut") && r.contains("grafted commit")),
        "{rules:?}"
    );
}

#[test]
fn a_shallow_clone_says_the_pin_was_not_fetched() {
    let spec = "@@@ remote origin https://github.com/acme/x\n\
                @@@ commit old first\n@@@ file src/a.rs\nfn a() {}\n\
                @@@ commit new second\n@@@ file docs/a.md\n\
                [a](https://github.com/acme/x/blob/{{rev:old}}/src/a.rs#L1)\n";
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full");
    citegate::fixture::build(spec, &full).unwrap();
    let shallow = dir.path().join("shallow");
    let status = std::process::Command::new("git")
        .args(["clone", "-q", "--depth", "1"])
        .arg(format!("file://{}", full.display()))
        .arg(&shallow)
        .status()
        .expect("git clone");
    assert!(status.success());
    let audit = |repo: &Path| {
        let out = citegate(repo)
            .args([
                "audit",
                "docs",
                "--repo-url",
                "https://github.com/acme/x",
                "--format",
                "json",
            ])
            .output()
            .unwrap();
        json(&out)["findings"].clone()
    };
    let f = &audit(&shallow)[0];
    assert_eq!(f["rule"], "invented-revision");
    assert!(
        f["message"].as_str().unwrap().contains("shallow clone"),
        "{f}"
    );
    assert!(
        f["help"].as_str().unwrap().contains("fetch-depth: 0"),
        "{f}"
    );
    // The same pin in the full repository holds.
    assert_eq!(audit(&full), Value::Array(vec![]));
}

#[test]
fn docs_may_live_outside_the_repository() {
    let (_d, repo) = common::example();
    let wiki = tempfile::tempdir().unwrap();
    std::fs::write(
        wiki.path().join("Home.md"),
        "The TTL is set in src/cache.rs:4 and src/cache.rs:99.\nLinks resolve from the root: [c](src/cache.rs#L4).\n",
    )
    .unwrap();
    let out = citegate(wiki.path())
        .args(["audit", "Home.md", "--repo"])
        .arg(&repo)
        .args(["--format", "json"])
        .output()
        .unwrap();
    let report = json(&out);
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0]["rule"], "invented-lines");
    assert_eq!(findings[0]["doc"], "Home.md");
    assert_eq!(report["summary"]["citations"], 3);
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let (_d, repo) = common::example();
    // A report far larger than any pipe buffer, so the writer really meets the closed pipe.
    let doc: String = (1..=5000)
        .map(|i| format!("Line {i}: src/cache.rs:{}.\n", 100 + i))
        .collect();
    std::fs::write(repo.join("docs/big.md"), doc).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("citegate");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "'{}' audit docs/big.md --format json; echo \"exit=$?\" >&2",
            bin.display()
        ))
        .current_dir(&repo)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read one byte, then close our end of the pipe.
    let mut child = out;
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 1];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // No error message, no panic: only the exit code the findings call for.
    assert_eq!(stderr.trim(), "exit=1", "{stderr}");
}

#[test]
fn quiet_prints_nothing_and_keeps_the_exit_code() {
    let (_d, repo) = common::example();
    let out = citegate(&repo).args(["audit", "-q"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
}

#[test]
fn json_report_snapshot() {
    let (_d, repo) = common::example();
    let out = citegate(&repo)
        .args(["audit", "--format", "json"])
        .output()
        .unwrap();
    insta::assert_snapshot!("example_json", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn human_report_snapshot() {
    let (_d, repo) = common::example();
    let out = citegate(&repo)
        .args(["audit", "--color", "never"])
        .output()
        .unwrap();
    insta::assert_snapshot!("example_human", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn since_reports_why_each_doc_was_selected() {
    let spec = "@@@ commit v1 first\n@@@ file src/a.rs\nfn a() {}\nfn b() {}\n\
                @@@ file docs/cites.md\nsrc/a.rs:2\n@@@ file docs/quiet.md\nsrc/a.rs:1\n@@@ tag v1\n\
                @@@ commit v2 second\n@@@ file src/a.rs\nfn a() {}\nfn b2() {}\n";
    let dir = tempfile::tempdir().unwrap();
    citegate::fixture::build(spec, dir.path()).unwrap();
    std::fs::write(dir.path().join("docs/new.md"), "Uncommitted: src/a.rs:1\n").unwrap();
    let out = citegate(dir.path())
        .args(["audit", "docs", "--since", "v1", "--format", "json"])
        .output()
        .unwrap();
    let report = json(&out);
    assert_eq!(
        report["selected"],
        serde_json::json!([
            {"doc": "docs/cites.md", "reasons": ["cites-changed-code"]},
            {"doc": "docs/new.md", "reasons": ["doc-changed"]},
        ])
    );
}

#[test]
fn sweep_writes_markdown_and_json_and_lists_drift_since_the_manifest() {
    let (dir, repo) = common::example();
    let first = {
        let git = git2::Repository::open(&repo).unwrap();
        let mut walk = git.revwalk().unwrap();
        walk.push_head().unwrap();
        walk.last().unwrap().unwrap().to_string()
    };
    let manifest = dir.path().join("index.yaml");
    std::fs::write(
        &manifest,
        format!("revision: {first}\nbuilt_at: 2026-01-01\n"),
    )
    .unwrap();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let json_out = dir.path().join("report.json");
    let out = citegate(&repo)
        .args(["sweep", "--manifest"])
        .arg(&manifest)
        .arg("--markdown")
        .arg(&summary)
        .arg("--json")
        .arg(&json_out)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "errors fail by default");
    assert!(out.stdout.is_empty());
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(
        md.starts_with("earlier step\n## citegate sweep"),
        "appends: {md}"
    );
    assert!(
        md.contains("[docs/wiki/cache\\.md\\:20](https://github.com/acme/shop/blob/"),
        "{md}"
    );
    assert!(
        md.contains("Docs changed: 2\n- `docs/answers/ttl.json`\n- `docs/wiki/cache.md`"),
        "{md}"
    );
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json_out).unwrap()).unwrap();
    assert_eq!(report["summary"]["errors"], 9);

    let out = citegate(&repo)
        .args(["sweep", "--fail-on", "never"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, "revision: [\n").unwrap();
    let out = citegate(&repo)
        .args(["sweep", "--manifest"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.yaml:"));
}

#[test]
fn markdown_report_snapshot() {
    let (_d, repo) = common::example();
    let out = citegate(&repo)
        .args(["audit", "--format", "markdown"])
        .output()
        .unwrap();
    insta::assert_snapshot!("example_markdown", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn completions_man_page_and_config_schema_come_from_the_definitions() {
    let dir = tempfile::tempdir().unwrap();
    let out = citegate(dir.path())
        .args(["completions", "bash"])
        .output()
        .unwrap();
    let bash = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && bash.contains("_citegate()") && bash.contains("--since"));
    let out = citegate(dir.path()).arg("man").output().unwrap();
    let man = String::from_utf8_lossy(&out.stdout);
    assert!(man.contains(".SH NAME") && man.contains("audit"), "{man}");
    let out = citegate(dir.path()).arg("config-schema").output().unwrap();
    let committed = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/citegate.schema.json"),
    )
    .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), committed);
}

#[test]
fn github_and_sarif_formats_snapshot() {
    let (_d, repo) = common::example();
    let out = citegate(&repo)
        .args(["audit", "--format", "github"])
        .output()
        .unwrap();
    insta::assert_snapshot!("example_github", String::from_utf8_lossy(&out.stdout));
    let out = citegate(&repo)
        .args(["audit", "--format", "sarif"])
        .output()
        .unwrap();
    insta::assert_snapshot!("example_sarif", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn rules_explain_and_config_error_snapshots() {
    let (_d, repo) = common::example();
    let out = citegate(&repo).arg("rules").output().unwrap();
    insta::assert_snapshot!("rules", String::from_utf8_lossy(&out.stdout));
    let out = citegate(&repo)
        .args(["explain", "unsupported-quote"])
        .output()
        .unwrap();
    insta::assert_snapshot!(
        "explain_unsupported_quote",
        String::from_utf8_lossy(&out.stdout)
    );
    std::fs::write(
        repo.join(".citegate.yaml"),
        "rules:\n  unsupported-quote: loud\n",
    )
    .unwrap();
    let out = citegate(&repo).arg("audit").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    insta::assert_snapshot!("config_error", String::from_utf8_lossy(&out.stderr));
}

/// Issue 60: `explain` printed the catalogue's `{{short:v1}}` in nine rules' examples, and the
/// stale examples without the change that made them stale. Every rule's example is run (outside
/// any repository: `explain` builds its own), with commit IDs and the cited file's diff.
#[test]
fn explain_shows_each_example_with_commit_ids_and_a_stale_one_with_its_change() {
    use citegate::registry::{Family, RuleId};
    let dir = tempfile::tempdir().unwrap();
    for rule in RuleId::ALL {
        let out = citegate(dir.path())
            .args(["explain", rule.as_str()])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{rule}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!text.contains("{{"), "{rule}: a template token:\n{text}");
        if rule.info().family == Family::Stale {
            assert!(
                text.contains("    diff --git a/"),
                "{rule}: no change:\n{text}"
            );
        }
        if rule == RuleId::StaleMoved {
            insta::assert_snapshot!("explain_stale_moved", text);
        }
    }
}

/// Code whose function moves down twice, and a wiki (its own repository) written when the code
/// was at its second commit.
const CODE_SPEC: &str = "@@@ commit c1 first\n@@@ file src/a.rs\nfn keep() {}\n\
     @@@ commit c2 pushed down\n@@@ file src/a.rs\n// one\nfn keep() {}\n\
     @@@ commit c3 pushed down again\n@@@ file src/a.rs\n// one\n// two\nfn keep() {}\n";
const WIKI_SPEC: &str = "@@@ commit w1 start\n@@@ file Home.md\n# Home\n\
     @@@ commit w2 written when the code was at c2\n@@@ file Home.md\n# Home\n\
     The function is at src/a.rs:2\n```rust\nfn keep() {}\n```\n";

#[test]
fn a_wiki_in_another_repository_is_pinned_by_commit_time() {
    // Both repositories count their fixed commit times from the same epoch, an hour apart.
    let (code_spec, wiki_spec) = (CODE_SPEC, WIKI_SPEC);
    let dir = tempfile::tempdir().unwrap();
    let code = dir.path().join("code");
    let wiki = dir.path().join("wiki");
    citegate::fixture::build(code_spec, &code).unwrap();
    citegate::fixture::build(wiki_spec, &wiki).unwrap();
    let out = citegate(&wiki)
        .args(["audit", "Home.md", "--format", "json", "--repo"])
        .arg(&code)
        .output()
        .unwrap();
    let report = json(&out);
    let f = &report["findings"][0];
    assert_eq!(report["findings"].as_array().unwrap().len(), 1, "{report}");
    assert_eq!(f["rule"], "stale-moved", "{f}");
    assert!(f["message"].as_str().unwrap().contains("at line 3"), "{f}");
}

#[test]
fn a_wiki_kept_as_a_submodule_is_pinned_by_its_own_history() {
    // Issue 32: the same wiki as above, as a submodule of the code repository. It used to be
    // read as unversioned text (checked at the target: passes, exit 0); its lines are blamed in
    // its own repository, as a wiki cloned beside the code is.
    let (code_spec, wiki_spec) = (CODE_SPEC, WIKI_SPEC);
    let dir = tempfile::tempdir().unwrap();
    let code = dir.path().join("code");
    let wiki = dir.path().join("wiki");
    citegate::fixture::build(code_spec, &code).unwrap();
    citegate::fixture::build(wiki_spec, &wiki).unwrap();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args([
                "-c",
                "protocol.file.allow=always",
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
            ])
            .args(args)
            .current_dir(&code)
            .output()
            .expect("git");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    git(&[
        "submodule",
        "add",
        "-q",
        &format!("file://{}", wiki.display()),
        "wiki",
    ]);
    git(&["commit", "-q", "-m", "the wiki as a submodule"]);
    let out = citegate(&code)
        .args(["audit", "wiki", "--format", "json"])
        .output()
        .unwrap();
    let report = json(&out);
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{report}");
    assert_eq!(findings[0]["rule"], "stale-moved", "{report}");
    assert!(
        findings[0]["message"]
            .as_str()
            .unwrap()
            .contains("at line 3"),
        "{report}"
    );
    assert_eq!(out.status.code(), Some(0), "a warning");
}

#[test]
fn worktree_checks_uncommitted_code_without_touching_refs_or_the_index() {
    let spec = "@@@ commit v1 code\n@@@ file src/a.rs\nfn one() {}\nfn two() {}\n\
                @@@ file docs/a.md\nsrc/a.rs:2\n```rust\nfn two() {}\n```\n";
    let dir = tempfile::tempdir().unwrap();
    citegate::fixture::build(spec, dir.path()).unwrap();
    let index_before = std::fs::read(dir.path().join(".git/index")).unwrap();
    // An uncommitted edit moves the cited line down.
    std::fs::write(
        dir.path().join("src/a.rs"),
        "// new header\nfn one() {}\nfn two() {}\n",
    )
    .unwrap();
    let committed = citegate(dir.path())
        .args(["audit", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(json(&committed)["findings"], Value::Array(vec![]));
    let out = citegate(dir.path())
        .args(["audit", "--worktree", "--format", "json"])
        .output()
        .unwrap();
    let report = json(&out);
    // The doc line was committed with the code: it held then, and moved on disk.
    assert_eq!(report["findings"][0]["rule"], "stale-moved", "{report}");
    assert!(report["findings"][0]["message"]
        .as_str()
        .unwrap()
        .contains("at line 3"));
    // No ref moved, the index file is untouched.
    let git = git2::Repository::open(dir.path()).unwrap();
    assert_eq!(
        git.head()
            .unwrap()
            .peel_to_commit()
            .unwrap()
            .message()
            .unwrap(),
        "code"
    );
    assert_eq!(
        std::fs::read(dir.path().join(".git/index")).unwrap(),
        index_before
    );
    let out = citegate(dir.path())
        .args(["audit", "--worktree", "--target", "HEAD"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn human_report_of_stale_citations_snapshot() {
    let case = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/stale.case"),
    )
    .unwrap();
    let spec = common::fixture_spec(&case);
    let dir = tempfile::tempdir().unwrap();
    citegate::fixture::build(&spec, dir.path()).unwrap();
    let out = citegate(dir.path())
        .args([
            "audit",
            "docs/pinned.md",
            "--repo-url",
            "https://github.com/acme/s",
            "--color",
            "never",
        ])
        .output()
        .unwrap();
    insta::assert_snapshot!("stale_human", String::from_utf8_lossy(&out.stdout));
}

/// One line is "line 16", and the help's fix is written as `fix` writes it (`log.rs:16`, never
/// `log.rs:16-16`): issue 60.
#[test]
fn human_report_names_one_line_as_fix_writes_it_snapshot() {
    let spec = "@@@ commit v1 code and a doc
@@@ file src/log.rs
fn level() {}
fn flush() {}
@@@ file docs/a.md
Flush is at src/log.rs:2.

```rust src/log.rs:1
fn not_there() {}
```
@@@ commit v2 a line above
@@@ file src/log.rs
// logging
fn level() {}
fn flush() {}
";
    let dir = tempfile::tempdir().unwrap();
    citegate::fixture::build(spec, dir.path()).unwrap();
    let out = citegate(dir.path())
        .args(["audit", "docs", "--color", "never"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("-16") && !text.contains(":3-3"), "{text}");
    insta::assert_snapshot!("one_line_human", text);
}

/// `--since main` where the branch is `master` (issue 60): the help names the branch the
/// repository is on, and a near name (`v1.0` for `v1.O`) the refs it may have meant.
#[test]
fn a_missing_revision_suggests_the_default_branch_and_near_refs() {
    let spec =
        "@@@ commit v1 first\n@@@ file src/a.rs\nfn a() {}\n@@@ file docs/a.md\nsrc/a.rs:1\n\
                @@@ tag v1.0\n";
    let dir = tempfile::tempdir().unwrap();
    citegate::fixture::build(spec, dir.path()).unwrap();
    let git = git2::Repository::open(dir.path()).unwrap();
    let head = git.head().unwrap().peel_to_commit().unwrap();
    git.branch("master", &head, false).unwrap();
    git.set_head("refs/heads/master").unwrap();
    git.find_reference("refs/heads/main")
        .unwrap()
        .delete()
        .unwrap();
    for (args, help) in [
        (["--since", "main"], "help: did you mean `master`?"),
        (["--target", "origin/main"], "help: did you mean `master`?"),
        (["--since", "v1.O"], "help: did you mean `v1.0`?"),
    ] {
        let out = citegate(dir.path())
            .args(["audit", "docs"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(help), "{args:?}: {err}");
    }
    // A name near nothing gets no guess.
    let out = citegate(dir.path())
        .args(["audit", "docs", "--since", "nosuchref"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("did you mean"));
}

/// The first-audit chapter's CI line run in a local shell (issue 60): `$GITHUB_STEP_SUMMARY`
/// is empty there, and the error says what the variable is and what to do, before any work.
#[test]
fn sweep_to_an_empty_summary_file_says_it_is_for_ci() {
    let dir = tempfile::tempdir().unwrap();
    citegate::fixture::build(
        "@@@ commit v1\n@@@ file docs/a.md\nsrc/a.rs:1\n",
        dir.path(),
    )
    .unwrap();
    let out = citegate(dir.path())
        .args(["sweep", "--markdown", ""])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the path is empty")
            && err.contains("$GITHUB_STEP_SUMMARY` is set only in a GitHub Actions job"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

/// A revision option that names no commit is named in the error: `--since`, not `--target`.
#[test]
fn a_bad_revision_names_its_option() {
    let spec =
        "@@@ commit v1 first\n@@@ file src/a.rs\nfn a() {}\n@@@ file docs/a.md\nsrc/a.rs:1\n";
    let dir = tempfile::tempdir().unwrap();
    citegate::fixture::build(spec, dir.path()).unwrap();
    for (args, named) in [
        (
            ["--since", "nosuchref"],
            "--since nosuchref: revision `nosuchref` names no commit",
        ),
        (
            ["--target", "nosuchref"],
            "--target nosuchref: revision `nosuchref` names no commit",
        ),
    ] {
        let out = citegate(dir.path())
            .args(["audit", "docs"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(named), "{err}");
        assert_eq!(err.matches("--").count(), 1, "one option named: {err}");
    }
}

#[test]
fn statistics_snapshot() {
    let (_d, repo) = common::example();
    let out = citegate(&repo)
        .args(["audit", "--statistics"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "the exit code is the audit's");
    insta::assert_snapshot!("example_statistics", String::from_utf8_lossy(&out.stdout));
    // Run twice, the same bytes (every table sorted by count, then name).
    let again = citegate(&repo)
        .args(["audit", "--statistics", "-j", "1"])
        .output()
        .unwrap();
    assert_eq!(out.stdout, again.stdout);
    // Baselined, every finding is counted as such and the next step is nothing.
    assert!(citegate(&repo)
        .args(["baseline"])
        .output()
        .unwrap()
        .status
        .success());
    let out = citegate(&repo)
        .args(["audit", "--statistics"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!(
        "example_statistics_baselined",
        String::from_utf8_lossy(&out.stdout)
    );
}
