//! `sweep --html DIR --history FILE`: the static report checked in a real browser (headless
//! Chromium, installed by `.ci/run`), over two consecutive sweeps of a fixture repository whose
//! docs hold hostile names and text.

use std::path::Path;
use std::process::Command;

use citegate::testing::Fixture;

const SPEC: &str = "@@@ remote origin https://github.com/acme/shop.git
@@@ commit v1 code and a guide written against it
@@@ file src/cache.rs
pub const TTL_SECONDS: u64 = 30;

pub fn ttl() -> u64 {
    TTL_SECONDS
}
@@@ file docs/guide.md
# Guide

The getter is src/cache.rs:3-5.
@@@ commit v2 the code changes under the guide
@@@ file src/cache.rs
pub const TTL_SECONDS: u64 = 30;

pub fn ttl() -> u64 {
    TTL_SECONDS * 2
}
@@@ file src/evil.rs
// </code></pre><script>alert(5)</script>
@@@ untracked docs/<script>x.md
<script>alert(1)</script> and [run](javascript:alert(3)).
Also src/missing.rs:2.

```rust src/evil.rs:1
<script>alert(4)</script>
```
";

/// The browser: Debian's `chromium` (or `CHROMIUM` when set).
fn chromium() -> String {
    std::env::var("CHROMIUM").unwrap_or_else(|_| "chromium".to_string())
}

/// The DOM of a page as Chromium renders it from disk.
fn dom(page: &Path) -> String {
    let out = Command::new(chromium())
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs (.ci/run installs Debian's `chromium`)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A sweep writing its report, JSON and history into `out` (outside the repository: a JSON
/// report inside it would be read as an answer by the next sweep).
fn sweep(fixture: &Fixture, out: &Path, epoch: &str) -> serde_json::Value {
    let run = Command::new(env!("CARGO_BIN_EXE_citegate"))
        .arg("sweep")
        .arg("--html")
        .arg(out.join("report"))
        .arg("--history")
        .arg(out.join("history.jsonl"))
        .arg("--json")
        .arg(out.join("report.json"))
        .env("SOURCE_DATE_EPOCH", epoch)
        .current_dir(fixture.path())
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let json = std::fs::read_to_string(out.join("report.json")).unwrap();
    serde_json::from_str(&json).unwrap()
}

fn between<'a>(text: &'a str, from: &str, to: &str) -> &'a str {
    let start = text
        .find(from)
        .unwrap_or_else(|| panic!("{from} in {text}"))
        + from.len();
    &text[start..start + text[start..].find(to).unwrap()]
}

#[test]
fn two_sweeps_render_counts_a_trend_and_inert_hostile_text_in_chromium() {
    let fixture = Fixture::build(SPEC).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    let first = sweep(&fixture, out, "1800000000");
    // The second sweep: one invented citation fixed meanwhile.
    let hostile = fixture.path().join("docs/<script>x.md");
    let text = std::fs::read_to_string(&hostile).unwrap();
    std::fs::write(
        &hostile,
        text.replace("Also src/missing.rs:2.", "Also src/cache.rs:1."),
    )
    .unwrap();
    let second = sweep(&fixture, out, "1800604800");
    let findings = second["findings"].as_array().unwrap().len();
    assert_eq!(first["findings"].as_array().unwrap().len(), findings + 1);

    let index = dom(&out.join("report/index.html"));
    assert_eq!(
        between(&index, "<b id=\"findings\">", "<"),
        findings.to_string()
    );
    assert_eq!(
        between(&index, "<b id=\"errors\">", "<"),
        second["summary"]["errors"].to_string()
    );
    assert_eq!(between(&index, "<b id=\"fixed\">", "<"), "1");
    assert_eq!(between(&index, "<b id=\"new\">", "<"), "0");
    assert!(index.contains("<svg class=\"chart\""), "the trend is drawn");
    assert!(index.contains("2027-01-15T08:00:00Z") && index.contains("2027-01-22T08:00:00Z"));
    // The hostile doc's name is text, its page a plain relative link.
    assert!(index.contains("&lt;script&gt;x.md"), "{index}");

    let pages: Vec<_> = std::fs::read_dir(out.join("report"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let mut stale_seen = false;
    for page in &pages {
        let dom = dom(page);
        // Nothing runs and nothing is fetched: no script, no frame, no loaded resource, no
        // `javascript:` link; every link is the forge's, another page, or an anchor.
        for bad in [
            "<script",
            "<iframe",
            "<img",
            "<link",
            "src=",
            "javascript:",
            "url(",
        ] {
            assert!(!dom.contains(bad), "{bad} in {}:\n{dom}", page.display());
        }
        for href in dom.split("href=\"").skip(1) {
            let href = &href[..href.find('"').unwrap()];
            assert!(
                href == "https://github.com/acme/shop"
                    || href.starts_with("https://github.com/acme/shop/")
                    || href.ends_with(".html")
                    || href.starts_with('#'),
                "{href}"
            );
        }
        assert!(dom.contains("Content-Security-Policy"));
        if dom.contains("docs/guide.md</a></h1>") {
            stale_seen = true;
            // A finding at its line, the cited lines at their revision and at the target, the diff.
            assert!(dom.contains("id=\"L3\""), "{dom}");
            assert!(dom.contains("    TTL_SECONDS\n}"), "{dom}");
            assert!(dom.contains("    TTL_SECONDS * 2"), "{dom}");
            assert!(dom.contains("-    TTL_SECONDS"), "{dom}");
        }
    }
    assert!(stale_seen, "the guide's page");
    // The hostile code shown in a finding's help is text.
    let all: String = pages
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    assert!(
        all.contains("&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;alert(5)"),
        "{all}"
    );
    // Two runs recorded, one line each.
    let history = std::fs::read_to_string(out.join("history.jsonl")).unwrap();
    assert_eq!(history.lines().count(), 2);
}

/// `sweep --html` into `out/report`, run in the fixture (exit code not checked).
fn sweep_html(fixture: &Fixture, out: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_citegate"))
        .arg("sweep")
        .arg("--html")
        .arg(out)
        .env("SOURCE_DATE_EPOCH", "1800000000")
        .current_dir(fixture.path())
        .output()
        .unwrap()
}

#[test]
fn a_cited_blob_over_the_limit_is_not_shown_in_the_dashboard() {
    let fixture = Fixture::build("@@@ commit v1 code\n@@@ file src/a.rs\nfn a() {}\n").unwrap();
    // Over 32 MiB of one repeated line: a few kilobytes packed, too large for any reader.
    let git = git2::Repository::open(fixture.path()).unwrap();
    let huge = "let x = 1;\n".repeat((33 << 20) / 11);
    let blob = git.blob(huge.as_bytes()).unwrap();
    let head = git.head().unwrap().peel_to_commit().unwrap();
    let mut tree = git.treebuilder(Some(&head.tree().unwrap())).unwrap();
    tree.insert("huge.rs", blob, 0o100644).unwrap();
    let tree = git.find_tree(tree.write().unwrap()).unwrap();
    let sig = git2::Signature::now("t", "t@t").unwrap();
    git.commit(Some("HEAD"), &sig, &sig, "huge", &tree, &[&head])
        .unwrap();
    std::fs::create_dir_all(fixture.path().join("docs")).unwrap();
    std::fs::write(fixture.path().join("docs/a.md"), "See huge.rs:2-3.\n").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = sweep_html(&fixture, &dir.path().join("report"));
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    let page = std::fs::read_to_string(dir.path().join("report/doc-1.html")).unwrap();
    assert!(page.contains("not shown: over 32 MiB"), "{page}");
    assert!(!page.contains("let x = 1;"), "{page}");
}

#[cfg(unix)]
#[test]
fn the_dashboard_is_never_written_through_a_committed_link_even_after_dotdot() {
    let outside = tempfile::tempdir().unwrap();
    let spec = format!(
        "@@@ commit v1 a link committed in the repository\n@@@ file histdir/keep\n\n\
         @@@ symlink lnk {}\n@@@ file docs/a.md\nSee src/missing.rs:1.\n",
        outside.path().display()
    );
    let fixture = Fixture::build(&spec).unwrap();
    for dir in ["histdir/../lnk", "./lnk/sub", "lnk"] {
        let run = sweep_html(&fixture, Path::new(dir));
        assert_eq!(run.status.code(), Some(2), "{dir}: {run:?}");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(stderr.contains("symbolic link"), "{dir}: {stderr}");
        let written: Vec<_> = std::fs::read_dir(outside.path()).unwrap().collect();
        assert!(written.is_empty(), "{dir}: wrote {written:?} outside");
    }
}

#[cfg(unix)]
#[test]
fn dashboard_pages_are_readable_by_a_web_server_running_as_another_user() {
    use std::os::unix::fs::PermissionsExt;
    let fixture =
        Fixture::build("@@@ commit v1\n@@@ file docs/a.md\nSee src/missing.rs:1.\n").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = sweep_html(&fixture, &dir.path().join("report"));
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    for page in ["index.html", "doc-1.html"] {
        let mode = std::fs::metadata(dir.path().join("report").join(page))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o644, "{page}");
    }
}

#[test]
fn a_hostile_history_line_is_skipped_and_the_markdown_budget_holds() {
    let fixture =
        Fixture::build("@@@ commit v1\n@@@ file docs/a.md\nSee src/missing.rs:1.\n").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("history.jsonl");
    let line = serde_json::json!({
        "version": 1, "revision": "a".repeat(40), "date": "x".repeat(1 << 20),
        "docs": 1, "citations": 1, "findings": 0, "by_severity": {}, "by_family": {},
        "by_rule": {}, "by_folder": {}, "fingerprints": [],
    });
    std::fs::write(&history, format!("{line}\n")).unwrap();
    let summary = dir.path().join("summary.md");
    let run = Command::new(env!("CARGO_BIN_EXE_citegate"))
        .args(["sweep", "--max-bytes", "60000", "--history"])
        .arg(&history)
        .arg("--markdown")
        .arg(&summary)
        .current_dir(fixture.path())
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("history.jsonl:1: the date is longer than 64 bytes"),
        "{stderr}"
    );
    let text = std::fs::read_to_string(&summary).unwrap();
    assert!(text.len() <= 60_000, "{} bytes", text.len());
}

#[test]
fn a_foreign_permalink_keeps_its_own_host_and_repository_in_the_sweeps_html_and_markdown() {
    // Issue 60: each link into another repository was rewritten into the audited one (a 404).
    let fixture = Fixture::build(
        "@@@ remote origin https://github.com/acme/shop.git
@@@ commit v1 code and a doc citing other repositories
@@@ file src/cache.rs
pub const TTL_SECONDS: u64 = 30;
@@@ file docs/a.md
See [main](https://github.com/BurntSushi/ripgrep/blob/0123456789abcdef0123456789abcdef01234567/crates/core/main.rs#L10-L12)
and [lexer](https://gitlab.com/Group/Proj/-/blob/v1.2/src/lex%20er.rs#L7), and src/missing.rs:1.
",
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (html, md) = (dir.path().join("report"), dir.path().join("summary.md"));
    let run = Command::new(env!("CARGO_BIN_EXE_citegate"))
        .args(["sweep", "--html"])
        .arg(&html)
        .arg("--markdown")
        .arg(&md)
        .env("SOURCE_DATE_EPOCH", "1800000000")
        .current_dir(fixture.path())
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    let page = std::fs::read_to_string(html.join("doc-1.html")).unwrap();
    let md = std::fs::read_to_string(md).unwrap();
    let ripgrep = "https://github.com/BurntSushi/ripgrep/blob/0123456789abcdef0123456789abcdef01234567/crates/core/main.rs#L10-L12";
    let gitlab = "https://gitlab.com/Group/Proj/-/blob/v1.2/src/lex%20er.rs#L7";
    assert!(page.contains(&format!("href=\"{ripgrep}\"")), "{page}");
    assert!(page.contains(&format!("href=\"{gitlab}\"")), "{page}");
    assert!(md.contains(&format!("]({ripgrep})")), "{md}");
    assert!(md.contains(&format!("]({gitlab})")), "{md}");
    for text in [&page, &md] {
        assert!(!text.contains("acme/shop/blob/0123456789"), "{text}");
        // The audited repository's own citation still links into it.
        assert!(
            text.contains("https://github.com/acme/shop/blob/"),
            "{text}"
        );
    }
}
