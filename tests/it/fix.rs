//! `citegate fix`: safe fixes only, in the citation's own syntax, every other byte kept (BOM, CRLF,
//! no final newline, JSON formatting), idempotent, and `--diff` writes nothing.

use crate::common;

use crate::common::citegate;

const SPEC: &str = "@@@ remote origin https://github.com/acme/f
@@@ commit v1 first
@@@ file src/a.rs
fn one() {}
fn two() {}
@@@ file src/b.rs
fn bee() {}
@@@ file src/dup.rs
fn twice() {}
@@@ file src/same.rs
fn same() {}
@@@ file answers/old.json
{
  \"summary\": \"s\",
  \"citations\": [
    {\"path\": \"src/b.rs\", \"startLine\": 1, \"endLine\": 1, \"quote\": \"fn bee() {}\"}
  ]
}
@@@ commit v2 move, rename, duplicate
@@@ file src/a.rs
// moved down
fn one() {}
fn two() {}
@@@ delete src/b.rs
@@@ file src/bee.rs
fn bee() {}
@@@ file src/dup.rs
// header
fn twice() {}
fn twice() {}
";

#[test]
fn fixes_keep_every_byte_outside_their_spans_and_converge() {
    let dir = tempfile::tempdir().unwrap();
    let labels = citegate::fixture::build(SPEC, dir.path()).unwrap();
    let v1 = &labels["v1"].to_string()[..8];
    let v2 = &labels["v2"].to_string()[..8];
    let md = format!(
        "\u{feff}# Fix\r\n[one](https://github.com/acme/f/blob/{v1}/src/a.rs#L1) and \
         [dup](https://github.com/acme/f/blob/{v1}/src/dup.rs#L1)\r\nno final newline"
    );
    std::fs::create_dir_all(dir.path().join("docs")).unwrap();
    std::fs::write(dir.path().join("docs/a.md"), &md).unwrap();
    let json = "{\n    \"summary\":\"s\",\n    \"citations\":[ { \"path\" : \"src/a.rs\" , \"startLine\" : 1, \"endLine\":1, \"quote\": \"fn two() {}\" } ]\n}";
    std::fs::write(dir.path().join("answers/q.json"), json).unwrap();
    let old_json = std::fs::read_to_string(dir.path().join("answers/old.json")).unwrap();

    // --diff shows the change and writes nothing.
    let out = citegate(dir.path(), &["fix", "--diff"]);
    assert_eq!(out.status.code(), Some(1));
    let diff = String::from_utf8_lossy(&out.stdout);
    assert!(diff.contains("+++ b/docs/a.md"), "{diff}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("docs/a.md")).unwrap(),
        md
    );

    let out = citegate(dir.path(), &["fix"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("3 citations fixed in 3 docs"), "{stdout}");

    // Markdown: re-pinned and re-lined; the ambiguous citation, BOM, CRLF and the missing final
    // newline are untouched.
    let expected_md = md.replace(&format!("{v1}/src/a.rs#L1)"), &format!("{v2}/src/a.rs#L2)"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("docs/a.md")).unwrap(),
        expected_md
    );
    // JSON: only the two numbers change, spacing kept.
    let expected_json = json.replace(
        "\"startLine\" : 1, \"endLine\":1",
        "\"startLine\" : 3, \"endLine\":3",
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("answers/q.json")).unwrap(),
        expected_json
    );
    // A committed answer whose file was renamed: the path follows the rename (implied pin).
    let expected_old = old_json.replace("\"src/b.rs\"", "\"src/bee.rs\"");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("answers/old.json")).unwrap(),
        expected_old
    );

    // A second run changes nothing.
    let out = citegate(dir.path(), &["fix"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("0 citations fixed in 0 docs"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("docs/a.md")).unwrap(),
        expected_md
    );
    let out = citegate(dir.path(), &["fix", "--diff"]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn repin_moves_unchanged_citations_to_the_target_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let labels = citegate::fixture::build(SPEC, dir.path()).unwrap();
    let v1 = &labels["v1"].to_string()[..8];
    let v2 = &labels["v2"].to_string()[..8];
    let md = format!("See [s](https://github.com/acme/f/blob/{v1}/src/same.rs#L1).\n");
    std::fs::create_dir_all(dir.path().join("docs")).unwrap();
    std::fs::write(dir.path().join("docs/a.md"), &md).unwrap();
    let read = || std::fs::read_to_string(dir.path().join("docs/a.md")).unwrap();

    // Unchanged content at the same lines is fine: nothing to fix by default.
    let out = citegate(dir.path(), &["fix", "docs"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(read(), md);

    let out = citegate(dir.path(), &["fix", "docs", "--repin"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(read(), md.replace(v1, v2));
}

#[test]
fn re_pins_are_made_only_for_a_run_that_offers_them() {
    let fixture = citegate::testing::Fixture::build(SPEC).unwrap();
    let v1 = fixture.substitute("{{short:v1}}").unwrap();
    let md = format!("See [s](https://github.com/acme/f/blob/{v1}/src/same.rs#L1).\n");
    std::fs::create_dir_all(fixture.path().join("docs")).unwrap();
    std::fs::write(fixture.path().join("docs/a.md"), &md).unwrap();
    let audit = |repins| {
        let opts = citegate::audit::AuditOptions {
            repins,
            ..Default::default()
        };
        fixture.audit(&["docs"], opts).unwrap()
    };
    // The language server's default: the re-pin is made (and re-checked).
    let offered = audit(true);
    assert_eq!(offered.repins.len(), 1, "{:?}", offered.repins);
    // `audit` and the libraries offer none: none made, the same report.
    let plain = audit(false);
    assert!(plain.repins.is_empty());
    let json = citegate::report::json::render;
    assert_eq!(json(&plain), json(&offered));
}

#[test]
fn an_unpinned_citation_whose_code_shifted_is_moved_by_fix() {
    let spec = "@@@ commit v1 code and doc\n@@@ file src/a.rs\nfn keep() {\n    let ttl = 30;\n}\n\
                @@@ file docs/a.md\nThe TTL lives in src/a.rs:2.\n\
                @@@ commit v2 a header pushes the code down\n@@@ file src/a.rs\n// one\n// two\nfn keep() {\n    let ttl = 30;\n}\n";
    let dir = tempfile::tempdir().unwrap();
    citegate::fixture::build(spec, dir.path()).unwrap();
    let out = citegate(dir.path(), &["fix", "docs"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fixed = std::fs::read_to_string(dir.path().join("docs/a.md")).unwrap();
    assert_eq!(fixed, "The TTL lives in src/a.rs:4.\n");
    // The doc is now uncommitted: its line resolves at the target, where it holds.
    let out = citegate(dir.path(), &["audit", "docs", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["findings"], serde_json::json!([]));
}

#[test]
fn doc_pins_move_with_their_citations_or_not_at_all() {
    let case = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/cases/pins.case"
    ))
    .unwrap();
    let spec = common::fixture_spec(&case);
    let dir = tempfile::tempdir().unwrap();
    let labels = citegate::fixture::build(&spec, dir.path()).unwrap();
    let (v1, v2) = (
        &labels["v1"].to_string()[..8],
        &labels["v2"].to_string()[..8],
    );
    let read = |p: &str| std::fs::read_to_string(dir.path().join(p)).unwrap();
    let blocked = read("docs/blocked.md");
    let all = read("docs/all.md");
    let answer = read("docs/answer.json");

    let out = citegate(dir.path(), &["fix", "docs"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("docs/all.md: fixed 1 citation and moved 1 pin"),
        "{stdout}"
    );
    assert!(
        stdout.contains("docs/blocked.md: the doc's pin stays where it is: these citations cannot move with it: `src/b.rs:1`"),
        "{stdout}"
    );
    assert_eq!(
        read("docs/all.md"),
        all.replace(&format!("rev: {v1}"), &format!("rev: {v2}"))
            .replace("src/a.rs:1.", "src/a.rs:2.")
    );
    assert_eq!(
        read("docs/answer.json"),
        answer
            .replace(
                &format!("\"revision\": \"{v1}\""),
                &format!("\"revision\": \"{v2}\"")
            )
            .replace(
                "\"startLine\": 1, \"endLine\": 1",
                "\"startLine\": 2, \"endLine\": 2"
            )
    );
    assert_eq!(
        read("docs/blocked.md"),
        blocked,
        "a blocked doc is not touched"
    );

    // The moved docs hold at the target; a second run changes nothing.
    let out = citegate(
        dir.path(),
        &[
            "audit",
            "docs/all.md",
            "docs/answer.json",
            "--format",
            "json",
        ],
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["findings"], serde_json::json!([]));
    let out = citegate(dir.path(), &["fix", "docs", "--diff"]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_link_written_from_the_root_in_a_nested_folder_is_rewritten_relative_to_the_doc() {
    let spec = "@@@ commit v1 code\n@@@ file src/a.rs\nfn a() {}\nfn b() {}\n\
                @@@ file wiki/a/b.md\nSee [a:1-2](src/a.rs#L1-L2) and [ok](../../src/a.rs#L1).\n";
    let (text, report) = fixed(spec, "wiki", "wiki/a/b.md");
    assert_eq!(
        text,
        "See [a:1-2](../../src/a.rs#L1-L2) and [ok](../../src/a.rs#L1).\n"
    );
    assert_eq!(report["findings"], serde_json::json!([]));
}

/// Issue 58 item 6: a file cited by its name alone gets its full path when the one file with that
/// name holds the quoted lines; the same name unquoted is left as written.
#[test]
fn a_file_cited_by_its_name_alone_gets_its_full_path_when_the_quote_is_there() {
    let spec = "@@@ commit v1 code\n@@@ file cmd/bd/storage.go\npackage main\n\nfunc open() {\n}\n\
                @@@ file docs/a.md\nOpened at storage.go:3:\n\n```go\nfunc open() {\n```\n\nUnquoted: `storage.go:3`.\n";
    let (text, report) = fixed(spec, "docs", "docs/a.md");
    assert_eq!(
        text,
        "Opened at cmd/bd/storage.go:3:\n\n```go\nfunc open() {\n```\n\nUnquoted: `storage.go:3`.\n"
    );
    let paths: Vec<&str> = (report["findings"].as_array().unwrap().iter())
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["storage.go"], "{report:#}");
}

/// `citegate fix FOLDER` in the fixture repository `spec` (it must succeed), then the text of
/// `doc` and the JSON report of an audit of FOLDER after it.
fn fixed(spec: &str, folder: &str, doc: &str) -> (String, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    citegate::fixture::build(spec, dir.path()).unwrap();
    let out = citegate(dir.path(), &["fix", folder]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.path().join(doc)).unwrap();
    let out = citegate(dir.path(), &["audit", folder, "--format", "json"]);
    (text, serde_json::from_slice(&out.stdout).unwrap())
}

/// Issue 20: a line holding a citation that stays failing is not edited, in `fix` and in
/// `regenerate` alike: the doc's line would get a new last commit, and the failing citation
/// (resolved by the line's history) would be checked as if written there, hidden from the next
/// audit. The move is reported as blocked; a line with only movable citations is still fixed.
#[test]
fn a_line_holding_a_citation_that_stays_failing_is_not_edited() {
    let spec = "@@@ commit v1 code
@@@ file src/a.rs
fn one() {}
@@@ file src/b.rs
const B: u32 = 1;
@@@ commit docs the wiki, written against v1
@@@ file docs/w.md
Moved and changed on one line: src/a.rs:1 and `const B: u32 = 1;` in src/b.rs:1.

Moved alone: src/a.rs:1.
@@@ commit v2 a.rs moves down, b.rs changes
@@@ file src/a.rs
// header
fn one() {}
@@@ file src/b.rs
const B: u32 = 2;
";
    let dir = tempfile::tempdir().unwrap();
    citegate::fixture::build(spec, dir.path()).unwrap();
    let before = std::fs::read_to_string(dir.path().join("docs/w.md")).unwrap();
    let out = citegate(dir.path(), &["fix", "docs"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(
            "docs/w.md:1: not moved to src/a.rs:2: a citation on this line stays failing"
        ),
        "{stdout}"
    );
    let after = std::fs::read_to_string(dir.path().join("docs/w.md")).unwrap();
    assert_eq!(after.lines().next(), before.lines().next(), "line 1 kept");
    assert!(after.contains("Moved alone: src/a.rs:2."), "{after}");
    // The next audit still reports the changed citation (it is not hidden).
    let audit = citegate(dir.path(), &["audit", "docs", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&audit.stdout).unwrap();
    let rules: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"stale-changed"), "{rules:?}");

    // regenerate: the same move is blocked, said so, and the line kept.
    let dir = tempfile::tempdir().unwrap();
    citegate::fixture::build(spec, dir.path()).unwrap();
    let out = citegate(dir.path(), &["regenerate", "docs", "--format", "json"]);
    let run: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let blocked: Vec<&serde_json::Value> = run["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["reason"] == "blocked")
        .collect();
    assert_eq!(blocked.len(), 1, "{run}");
    assert_eq!(blocked[0]["line"], 1);
}

/// A 20-line file whose line 5 holds the quote that answers cite past the end.
fn twenty_lines() -> String {
    let mut code = String::new();
    for i in 1..=20 {
        match i {
            5 => code.push_str("    println!(\"{bytes_printed} bytes printed\");\n"),
            _ => code.push_str(&format!("    let x{i} = {i};\n")),
        }
    }
    format!("@@@ commit v1 code\n@@@ file src/main.rs\n{code}")
}

#[test]
fn a_fix_that_would_still_fail_is_not_offered_and_one_that_holds_is() {
    // Issue 31: an exclusive-end range (20-21 on a 20-line file) whose quote is at line 5. The
    // convention's fix (20-20) is not where the quote is: re-checked, it is composed with the
    // quote's own fix and the citation moves to line 5 in one run. A quote found nowhere leaves
    // no fix at all.
    let dir = tempfile::tempdir().unwrap();
    citegate::fixture::build(&twenty_lines(), dir.path()).unwrap();
    let cite = |quote: &str| {
        format!("{{\"summary\": \"s\", \"citations\": [{{\"path\": \"src/main.rs\", \"startLine\": 20, \"endLine\": 21, \"quote\": \"{quote}\"}}]}}\n")
    };
    common::write(
        dir.path(),
        "answers/found.json",
        cite("{bytes_printed} bytes printed"),
    );
    let lost = cite("nowhere in the file");
    common::write(dir.path(), "answers/lost.json", &lost);

    let out = citegate(dir.path(), &["audit", "answers", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = report["findings"].as_array().unwrap();
    let of = |doc: &str| {
        findings
            .iter()
            .find(|f| f["doc"] == doc)
            .unwrap_or_else(|| panic!("no finding in {doc}: {findings:?}"))
    };
    let found = of("answers/found.json");
    assert_eq!(found["rule"], "invented-lines");
    assert_eq!(found["fix"]["start_line"], 5, "{found}");
    assert_eq!(found["fix"]["end_line"], 5, "{found}");
    let lost_finding = of("answers/lost.json");
    assert!(lost_finding["fix"].is_null(), "{lost_finding}");
    let help = lost_finding["help"].as_str().unwrap();
    assert!(
        help.contains("no fix: re-cited as `src/main.rs:20`"),
        "{help}"
    );
    assert!(help.contains("unsupported-quote"), "{help}");

    let out = citegate(dir.path(), &["fix", "answers"]);
    assert_eq!(out.status.code(), Some(0));
    let fixed = std::fs::read_to_string(dir.path().join("answers/found.json")).unwrap();
    assert!(
        fixed.contains("\"startLine\": 5, \"endLine\": 5"),
        "{fixed}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("answers/lost.json")).unwrap(),
        lost
    );
    // One run reached the fixpoint.
    let out = citegate(dir.path(), &["fix", "answers", "--diff"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_fixed_citation_is_rechecked_at_the_revision_it_was_written_for() {
    // A link written from the root (`src/cache.rs#L2` in docs/) when the TTL was at line 2;
    // the code then moved down by two. Fixing the path alone would write `../src/cache.rs#L2`,
    // and the edited line, now checked at the target, would hide that line 2 is no longer the
    // TTL. Re-checked at the doc line's own revision, the fix also moves the lines.
    let spec = "@@@ commit v1 code\n@@@ file src/cache.rs\n/// How long.\npub const TTL_SECONDS: u64 = 30;\n\
                @@@ commit docs the doc\n@@@ file docs/ttl.md\nThe TTL is [x](src/cache.rs#L2).\n\
                @@@ commit v2 the code moves down\n@@@ file src/cache.rs\n// a\n// b\n/// How long.\npub const TTL_SECONDS: u64 = 30;\n";
    let dir = tempfile::tempdir().unwrap();
    citegate::fixture::build(spec, dir.path()).unwrap();
    let out = citegate(dir.path(), &["fix", "docs"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fixed = std::fs::read_to_string(dir.path().join("docs/ttl.md")).unwrap();
    assert_eq!(fixed, "The TTL is [x](../src/cache.rs#L4).\n");
    let again = citegate(dir.path(), &["fix", "docs", "--diff"]);
    assert_eq!(again.status.code(), Some(0));
}

#[test]
fn a_move_is_offered_when_what_still_fails_failed_before_it_too() {
    // Issue 58: a citation whose code moved down a line, in a claim whose literal `ibc-go` was
    // never in the span. Re-cited at its new line it still has that literal missing, as it had
    // at its pin: the move repairs the staleness and leaves the older problem as it was, visible.
    // It used to be withheld ("it would still fail at the target").
    let spec = "@@@ commit v1 code and doc\n@@@ file src/a.go\nfunc Start() {}\nfunc Stop() {}\n\
                @@@ file docs/a.md\nThe `ibc-go` module stops it: `func Stop() {}` (src/a.go:2).\n\
                @@@ commit v2 a header pushes the code down\n@@@ file src/a.go\n// header\nfunc Start() {}\nfunc Stop() {}\n";
    let dir = tempfile::tempdir().unwrap();
    citegate::fixture::build(spec, dir.path()).unwrap();
    let out = citegate(dir.path(), &["audit", "docs", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rules: Vec<&str> = (report["findings"].as_array().unwrap().iter())
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["unsupported-literal", "stale-moved"], "{report}");
    let moved = &report["findings"][1];
    assert_eq!(moved["fix"]["start_line"], 3, "{moved}");
    let help = moved["help"].as_str().unwrap();
    assert!(
        help.contains("the fix leaves `unsupported-literal` as it was"),
        "{help}"
    );
    let out = citegate(dir.path(), &["fix", "docs"]);
    assert_eq!(out.status.code(), Some(0));
    let fixed = std::fs::read_to_string(dir.path().join("docs/a.md")).unwrap();
    assert!(fixed.ends_with("(src/a.go:3).\n"), "{fixed}");
    let out = citegate(dir.path(), &["audit", "docs", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let left: Vec<&str> = (report["findings"].as_array().unwrap().iter())
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(left, ["unsupported-literal"], "{report}");
    // A second run has nothing to do.
    let out = citegate(dir.path(), &["fix", "docs", "--diff"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Issue 58: the docs toolchains' includes (MkDocs snippets, Sphinx's literalinclude in
/// reStructuredText and MyST, AsciiDoc's include, remark-code-import) are re-cited in their own
/// syntax when the code they render moved, and the fixed docs then hold.
#[test]
fn code_includes_of_the_docs_toolchains_are_re_cited_in_their_own_syntax() {
    let spec = "@@@ commit v1 code\n@@@ file src/app.py\nimport os\n\ndef main():\n    return 0\n\
                @@@ commit docs the docs\n\
                @@@ file docs/snippets.md\n--8<-- \"src/app.py:3:4\"\n\n--8<--\nsrc/app.py::1,3:4\n--8<--\n\
                @@@ file docs/sphinx.rst\n.. literalinclude:: ../src/app.py\n   :lines: 3-4, 1\n\
                @@@ file docs/myst.md\n```{literalinclude} ../src/app.py\n:lines: 3-4\n```\n\
                @@@ file docs/page.adoc\ninclude::../src/app.py[lines=3..4;1]\n\
                @@@ file docs/import.md\n```py file=../src/app.py#L3-L4\n```\n\
                @@@ commit v2 a header pushes the code down\n@@@ file src/app.py\n\"\"\"The app.\"\"\"\nimport os\n\ndef main():\n    return 0\n";
    let dir = tempfile::tempdir().unwrap();
    citegate::fixture::build(spec, dir.path()).unwrap();
    let out = citegate(dir.path(), &["fix", "docs"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let read = |name: &str| std::fs::read_to_string(dir.path().join("docs").join(name)).unwrap();
    assert_eq!(
        read("snippets.md"),
        "--8<-- \"src/app.py:4:5\"\n\n--8<--\nsrc/app.py:2:2,4:5\n--8<--\n"
    );
    assert_eq!(
        read("sphinx.rst"),
        ".. literalinclude:: ../src/app.py\n   :lines: 4-5, 2\n"
    );
    assert_eq!(
        read("myst.md"),
        "```{literalinclude} ../src/app.py\n:lines: 4-5\n```\n"
    );
    assert_eq!(read("page.adoc"), "include::../src/app.py[lines=4..5;2]\n");
    assert_eq!(read("import.md"), "```py file=../src/app.py#L4-L5\n```\n");
    let out = citegate(dir.path(), &["audit", "docs", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["findings"], serde_json::json!([]));
}

/// Issue 58 item 7: a DeepWiki book's link text (`[src/map.rs(L14 - L47)&emsp;](…#L14-L47)`)
/// and the other ways a link's text repeats its range move with the URL, and the fixed doc holds;
/// a text whose numbers read as prose keeps its citation unfixed, and the help says why.
#[test]
fn a_link_text_naming_the_moved_lines_is_rewritten_with_its_url() {
    let spec = "@@@ remote origin https://github.com/acme/f\n\
                @@@ commit v1 code\n@@@ file src/map.rs\nuse std::fmt;\n\nfn map() {\n    let m = 1;\n}\n\
                @@@ commit v2 a header pushes the code down\n@@@ file src/map.rs\n// The map.\n// Kept small.\nuse std::fmt;\n\nfn map() {\n    let m = 1;\n}\n";
    let dir = tempfile::tempdir().unwrap();
    let labels = citegate::fixture::build(spec, dir.path()).unwrap();
    let v1 = &labels["v1"].to_string()[..8];
    let v2 = &labels["v2"].to_string()[..8];
    let url =
        |rev: &str, frag: &str| format!("https://github.com/acme/f/blob/{rev}/src/map.rs#{frag}");
    let texts = |a: &str, b: &str, one: &str, rev: &str| {
        format!(
            "- [src/map.rs({a} - {b})&emsp;]({})\n\
             - [src/map.rs({one})&emsp;]({})\n\
             - [map.rs {a}-{b}]({})\n\
             - [src/map.rs:{}-{}]({})\n\
             - [lines {}-{}]({})\n\
             - [src/map.rs#{a}-{b}]({})\n",
            url(rev, &format!("{a}-{b}")),
            url(rev, one),
            url(rev, &format!("{a}-{b}")),
            &a[1..],
            &b[1..],
            url(rev, &format!("{a}-{b}")),
            &a[1..],
            &b[1..],
            url(rev, &format!("{a}-{b}")),
            url(rev, &format!("{a}-{b}")),
        )
    };
    let prose = |rev: &str| format!("- [see the 3 to 5 range]({})\n", url(rev, "L3-L5"));
    let md = texts("L3", "L5", "L4", v1) + &prose(v1);
    common::write(dir.path(), "docs/a.md", &md);
    let read = || std::fs::read_to_string(dir.path().join("docs/a.md")).unwrap();

    let out = citegate(dir.path(), &["fix", "docs"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(read(), texts("L5", "L7", "L6", v2) + &prose(v1));

    // The text in prose is not rewritten, and the help says why.
    let out = citegate(dir.path(), &["audit", "docs", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let help = findings[0]["help"].as_str().unwrap_or_default();
    assert!(help.contains("link text names lines 3-5"), "{help}");

    let out = citegate(dir.path(), &["fix", "docs", "--diff"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn an_anchor_off_only_by_case_is_rewritten_to_the_heading_s_and_a_dead_one_is_left() {
    let spec = "@@@ remote origin https://github.com/acme/f\n@@@ commit v1 docs\n@@@ file docs/a.md\n# Setup\n\n## API\n<a name=\"Api\"></a>\n\n[s](#Setup), [apis](#API), [api](#aPI), [dead](#gone), [other](b.md#Usage).\n@@@ file docs/b.md\n# Usage\n";
    let dir = tempfile::tempdir().unwrap();
    citegate::fixture::build(spec, dir.path()).unwrap();
    let out = citegate(dir.path(), &["fix", "docs"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fixed = std::fs::read_to_string(dir.path().join("docs/a.md")).unwrap();
    // `#API` and `#aPI` name the heading's `#api` and the HTML anchor `#Api` alike but for case:
    // the reader chooses.
    assert!(
        fixed.ends_with(
            "[s](#setup), [apis](#API), [api](#aPI), [dead](#gone), [other](b.md#usage).\n"
        ),
        "{fixed}"
    );
    let again = citegate(dir.path(), &["fix", "docs"]);
    assert!(String::from_utf8_lossy(&again.stdout).contains("0 citations fixed"));
}
