//! Hardening, round 2 (issue 18): what a pull request from a stranger controls (the docs' text and
//! names, committed symbolic links) cannot make citegate write outside where it was asked, act on
//! a reader's terminal or Markdown, or mention anyone. Each test fails without its fix.

use std::path::Path;

use citegate::testing::Fixture;

use crate::common::{citegate, write};

const REPO: &str = "@@@ commit v1 code\n@@@ file src/a.rs\nfn a() {}\nfn b() {}\n";

/// A file outside the repository and a link to it inside, at `link`.
#[cfg(unix)]
fn victim_behind(fx: &Fixture, link: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("comment.sh");
    std::fs::write(&victim, "echo safe\n").unwrap();
    let at = fx.path().join(link);
    std::fs::create_dir_all(at.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&victim, &at).unwrap();
    (outside, victim)
}

#[cfg(unix)]
fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

#[cfg(unix)]
#[test]
fn report_files_replace_a_link_and_never_write_through_it() {
    let fx = Fixture::build(REPO).unwrap();
    write(fx.path(), "docs/a.md", "Missing: src/nope.rs:1.\n");
    for (args, link) in [
        (
            vec!["audit", "docs", "--write", "sarif=out.sarif"],
            "out.sarif",
        ),
        (
            vec!["audit", "docs", "--write", "json=out.json"],
            "out.json",
        ),
        (vec!["sweep", "docs", "--json", "sweep.json"], "sweep.json"),
        (
            vec!["regenerate", "docs", "--trace", "trace.jsonl"],
            "trace.jsonl",
        ),
    ] {
        let (_outside, victim) = victim_behind(&fx, link);
        citegate(fx.path(), &args);
        assert_eq!(
            std::fs::read_to_string(&victim).unwrap(),
            "echo safe\n",
            "{args:?}"
        );
        assert!(!is_link(&fx.path().join(link)), "{args:?}: the link stays");
        assert!(fx.path().join(link).is_file(), "{args:?}: not written");
    }
    // Appending (the step summary) refuses a link, and says so.
    let (_outside, victim) = victim_behind(&fx, "summary.md");
    let out = citegate(fx.path(), &["sweep", "docs", "--markdown", "summary.md"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("symbolic link"));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "echo safe\n");
}

#[cfg(unix)]
#[test]
fn a_report_in_a_linked_folder_is_refused() {
    let fx = Fixture::build(REPO).unwrap();
    write(fx.path(), "docs/a.md", "Missing: src/nope.rs:1.\n");
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), fx.path().join("reports")).unwrap();
    let out = citegate(
        fx.path(),
        &["audit", "docs", "--write", "json=reports/out.json"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("symbolic link"));
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

#[cfg(unix)]
#[test]
fn fix_never_writes_a_doc_behind_a_linked_folder() {
    let fx = Fixture::build(REPO).unwrap();
    let outside = tempfile::tempdir().unwrap();
    // A doc that `fix` would rewrite (a root-relative link in a nested folder), reached through
    // a committed `wiki/sub -> outside`.
    std::fs::write(
        outside.path().join("page.md"),
        "[a](src/a.rs#L1) is in the code.\n",
    )
    .unwrap();
    std::fs::create_dir_all(fx.path().join("wiki")).unwrap();
    std::os::unix::fs::symlink(outside.path(), fx.path().join("wiki/sub")).unwrap();
    let out = citegate(
        fx.path(),
        &["audit", "wiki/sub/page.md", "--format", "json"],
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let finding = &report["findings"][0];
    assert_eq!(finding["rule"], "malformed-doc", "{report}");
    assert!(finding["message"]
        .as_str()
        .unwrap()
        .contains("symbolic link"));
    citegate(fx.path(), &["fix", "wiki/sub/page.md"]);
    assert_eq!(
        std::fs::read_to_string(outside.path().join("page.md")).unwrap(),
        "[a](src/a.rs#L1) is in the code.\n"
    );
}

/// What a Markdown renderer makes of `markdown` that a doc could have put there: link and image
/// destinations, raw HTML other than the report's own `<details>`/`<summary>`, and text with a
/// `@` that a zero-width space does not follow (a mention; code spans never mention).
fn live(markdown: &str) -> Vec<String> {
    use pulldown_cmark::{Event, Options, Parser, Tag};
    let ours = ["<details>", "<summary>", "</summary>", "</details>"];
    let mut found = Vec::new();
    // Text as the reader sees it: adjacent text events joined (an entity is an event of its own).
    let mut text = String::new();
    for e in Parser::new_ext(markdown, Options::all()) {
        if !matches!(e, Event::Text(_)) {
            text.push('\n');
        }
        match e {
            Event::Start(Tag::Link { dest_url, .. })
            | Event::Start(Tag::Image { dest_url, .. })
                if !dest_url.starts_with("https://github.com/acme/shop/blob/") =>
            {
                found.push(format!("link {dest_url}"));
            }
            Event::Html(h) | Event::InlineHtml(h) => {
                let mut rest = h.to_string();
                for tag in ours {
                    rest = rest.replace(tag, "");
                }
                if rest.contains('<') {
                    found.push(format!("html {h}"));
                }
            }
            Event::Text(t) => text.push_str(&t),
            _ => {}
        }
    }
    for (i, _) in text.match_indices('@') {
        if !text[i + 1..].starts_with('\u{200B}') {
            found.push(format!("mention in {:?}", &text[i.saturating_sub(20)..]));
        }
    }
    found
}

#[test]
fn markdown_reports_hold_no_link_mention_or_html_a_doc_put_there() {
    let spec = format!("{REPO}@@@ remote origin https://github.com/acme/shop.git\n");
    let fx = Fixture::build(&spec).unwrap();
    write(
        fx.path(),
        "docs/@acme/security-team notes.md",
        "Missing: src/nope.rs:1.\n",
    );
    write(
        fx.path(),
        "docs/x](http:evil.example)[y.md",
        "Missing: src/nope.rs:2.\n",
    );
    // A code literal and an answer path with backticks: they must not break out of a code span.
    write(
        fx.path(),
        "docs/a.json",
        r#"{"summary": "s", "citations": [{"path": "a`![i](http://evil.example/p.png)<img src=x>`@acme/x.rs", "startLine": 1, "endLine": 1, "quote": "q"}]}"#,
    );
    let out = citegate(fx.path(), &["audit", "docs", "--format", "markdown"]);
    let md = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{md}");
    let found = live(&md);
    assert!(found.is_empty(), "{found:?}\n{md}");
}

#[test]
fn bidirectional_controls_are_shown_escaped_in_every_format() {
    let fx = Fixture::build(REPO).unwrap();
    write(
        fx.path(),
        "docs/a.json",
        "{\"summary\": \"s\", \"citations\": [{\"path\": \"src/\u{202E}sr.a\", \"startLine\": 1}]}",
    );
    for format in ["human", "json", "markdown", "sarif", "github"] {
        let out = citegate(
            fx.path(),
            &["audit", "docs", "--format", format, "--color", "never"],
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{format}: {stdout}");
        assert!(!stdout.contains('\u{202E}'), "{format}: {stdout}");
    }
}

#[test]
fn diffs_show_terminal_escapes_escaped() {
    // A committed doc whose citation moved (a fix rewrites its line) and whose line holds a
    // terminal hyperlink and a clear-screen.
    let spec = "@@@ commit v1 code and doc
@@@ file src/a.rs
fn a() {}
fn b() {}
@@@ file docs/a.md
\u{1b}]8;;http://evil\u{7}link\u{1b}]8;;\u{7} b is at src/a.rs:2 \u{1b}[2J
@@@ commit v2 the code moves
@@@ file src/a.rs
// top
fn a() {}
fn b() {}
";
    let fx = Fixture::build(spec).unwrap();
    let out = citegate(fx.path(), &["fix", "--diff", "docs"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("src/a.rs:3"), "{stdout}");
    assert!(
        !stdout.contains('\u{1b}') && !stdout.contains('\u{7}'),
        "{stdout:?}"
    );
}

#[test]
fn deeply_nested_yaml_is_refused_before_it_is_parsed() {
    let deep = format!("x: {}{}\n", "[".repeat(20_000), "]".repeat(20_000));
    let fx = Fixture::build(REPO).unwrap();
    write(fx.path(), "docs/a.md", "Fine: src/a.rs:1.\n");
    // The configuration: a located error, exit 2.
    write(fx.path(), ".citegate.yaml", &deep);
    let out = citegate(fx.path(), &["audit", "docs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nested deeper than 64 levels"));
    std::fs::remove_file(fx.path().join(".citegate.yaml")).unwrap();
    // A sweep manifest: an error naming it.
    write(fx.path(), "index.yaml", &deep);
    let out = citegate(fx.path(), &["sweep", "docs", "--manifest", "index.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nested deeper than 64 levels"));
    // Front matter, in a stranger's doc: one finding, the batch goes on. A quote does not hide
    // the nesting (in YAML a `'` inside a plain scalar is not a quote).
    let doc = format!(
        "---\nx: don't {}{}\n---\nFine: src/a.rs:1.\n",
        "[".repeat(20_000),
        "]".repeat(20_000)
    );
    write(fx.path(), "docs/b.md", doc);
    let out = citegate(fx.path(), &["audit", "docs", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let messages: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("nested deeper than 64 levels")),
        "{messages:?}"
    );
}

#[cfg(unix)]
#[test]
fn a_committed_configuration_is_not_read_through_a_link_or_a_fifo() {
    let fx = Fixture::build(REPO).unwrap();
    write(fx.path(), "docs/a.md", "Fine: src/a.rs:1.\n");
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.yaml");
    std::fs::write(&secret, "SECRET-TOKEN: 1\n").unwrap();
    std::os::unix::fs::symlink(&secret, fx.path().join(".citegate.yaml")).unwrap();
    let out = citegate(fx.path(), &["audit", "docs"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("symbolic link") && !stderr.contains("SECRET"),
        "{stderr}"
    );
    std::fs::remove_file(fx.path().join(".citegate.yaml")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(fx.path().join(".citegate.yaml"))
        .status()
        .unwrap();
    assert!(made.success());
    // Would block forever if opened.
    let out = citegate(fx.path(), &["audit", "docs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a regular file"));
}

#[test]
fn absurd_numbers_are_refused_with_a_message_not_a_panic() {
    let fx = Fixture::build(REPO).unwrap();
    for args in [
        vec!["regenerate", "docs", "--timeout", "18446744073709551615"],
        vec!["regenerate", "docs", "--top-k", "99999999999"],
        vec!["audit", "docs", "--max-bytes", "1"],
        vec!["audit", "docs", "--max-span-lines", "0"],
        vec!["retrieve", "x", "-k", "1001"],
    ] {
        let out = citegate(fx.path(), &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("invalid value"), "{args:?}: {stderr}");
    }
}

#[test]
fn a_doc_past_the_citation_limit_is_one_finding() {
    let fx = Fixture::build(REPO).unwrap();
    let limit = citegate::model::MAX_CITATIONS_PER_DOC;
    write(fx.path(), "docs/huge.md", "a.rs:1 ".repeat(limit + 1));
    write(fx.path(), "docs/ok.md", "Missing: src/nope.rs:1.\n");
    let out = citegate(fx.path(), &["audit", "docs", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let found: Vec<(&str, &str)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["doc"].as_str().unwrap(), f["rule"].as_str().unwrap()))
        .collect();
    assert_eq!(
        found,
        [
            ("docs/huge.md", "malformed-doc"),
            ("docs/ok.md", "invented-path")
        ]
    );
    assert!(report["findings"][0]["message"]
        .as_str()
        .unwrap()
        .contains(&format!("more than the {limit}")));
}

#[test]
fn a_markdown_report_stays_within_its_budget_whatever_the_doc_names() {
    // Ten docs with errors and very long names (the worst-docs table), a budget far below them.
    let fx = Fixture::build(REPO).unwrap();
    for i in 0..10 {
        let name = format!("docs/{}{i}.md", "n".repeat(200));
        write(
            fx.path(),
            &name,
            "Missing: src/nope.rs:1 and src/nope.rs:2.\n",
        );
    }
    for budget in ["1024", "2000", "5000"] {
        let out = citegate(
            fx.path(),
            &[
                "audit",
                "docs",
                "--format",
                "markdown",
                "--max-bytes",
                budget,
            ],
        );
        let n: usize = budget.parse().unwrap();
        assert!(out.stdout.len() <= n, "{} bytes over {n}", out.stdout.len());
        assert!(String::from_utf8_lossy(&out.stdout).contains("not shown"));
    }
}

#[test]
fn the_pre_commit_hook_passes_file_names_after_a_double_dash() {
    let hooks = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(".pre-commit-hooks.yaml"),
    )
    .unwrap();
    let hooks: serde_yaml_ng::Value = serde_yaml_ng::from_str(&hooks).unwrap();
    let hook = &hooks[0];
    assert_eq!(hook["entry"], "citegate audit");
    assert_eq!(hook["args"].as_sequence().unwrap().last().unwrap(), "--");
    assert_eq!(hook["pass_filenames"], true);
    // What pre-commit runs: entry, args, then the file names. A file named like an option is a doc.
    let fx = Fixture::build(REPO).unwrap();
    write(fx.path(), "--write=json=planted.md", "Fine: src/a.rs:1.\n");
    let out = citegate(fx.path(), &["audit", "--", "--write=json=planted.md"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!fx.path().join("planted.md").exists());
}
