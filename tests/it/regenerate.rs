//! `citegate regenerate` offline: answers in both seed schemas re-grounded at the target when
//! their content is found again exactly and uniquely (a moved function, a renamed file, content
//! that left its file), refused when it changed, gated at the target, nothing lost, and a
//! re-audit of the output clean.

use crate::common;

use citegate::audit::{AuditOptions, Shard};
use citegate::regenerate::{self, Kind, Options};
use citegate::registry::Family;
use citegate::testing::Fixture;
use serde_json::Value;

const SPEC: &str = r#"@@@ commit v1 code
@@@ file src/cache.rs
pub fn load() -> u32 {
    let ttl = 30;
    ttl
}
@@@ file src/old.rs
pub fn renamed_but_same() -> u32 {
    42
}
@@@ file src/rate.rs
const RATE: u32 = 10;
@@@ commit v2 code moves, a rename, a change
@@@ file src/cache.rs
// a comment pushes everything down
// and another

pub fn load() -> u32 {
    let ttl = 30;
    ttl
}
@@@ delete src/old.rs
@@@ file src/new.rs
pub fn renamed_but_same() -> u32 {
    42
}
@@@ file src/rate.rs
const RATE: u32 = 20;
@@@ file src/legacy.rs
// the old rate, kept for reference: changed content is never re-anchored here
const RATE: u32 = 10;
@@@ file src/lib/helpers.rs
// helpers
pub fn other() {}
pub fn helper() -> &'static str {
    "moved across files"
}
@@@ commit v3 answers
@@@ file answers/a.json
[
  {
    "summary": "`load()` sets the TTL to 30.",
    "revision": "{{rev:v1}}",
    "citations": [
      {"path": "src/cache.rs", "startLine": 1, "endLine": 4, "quote": "let ttl = 30;"}
    ]
  },
  {"summary": "Renamed.", "revision": "{{rev:v1}}", "citations": [{"path": "src/old.rs", "startLine": 1, "endLine": 3, "quote": "pub fn renamed_but_same() -> u32 {"}]},
  {"summary": "The rate is `10`.", "revision": "{{rev:v1}}", "citations": [{"path": "src/rate.rs", "startLine": 1, "endLine": 1, "quote": "const RATE: u32 = 10;"}]},
  {"summary": "The helper.", "citations": [{"path": "src/nowhere.rs", "startLine": 1, "endLine": 3, "quote": "\"moved across files\""}]},
  {"summary": "`renamed_but_same()` returns 42.", "citations": [{"path": "src/new.rs", "startLine": 1, "endLine": 3, "quote": "pub fn renamed_but_same() -> u32 {"}],
   "retrieved": [{"path": "src/cache.rs", "start_line": 1, "end_line": 3}]},
  {"summary": "Fine.", "citations": [{"path": "src/new.rs", "startLine": 1, "endLine": 3, "quote": "pub fn renamed_but_same() -> u32 {"}]}
]
@@@ file answers/b.jsonl
{"summary": "s", "revision": "{{rev:v1}}", "claims": [{"text": "`load()` returns the TTL.", "path": "src/cache.rs", "start_line": 1, "end_line": 4}, {"text": "The rate is `10`.", "path": "src/rate.rs", "start_line": 1, "end_line": 1}], "open_questions": ["Who calls it?"]}
"#;

fn run(fixture: &Fixture) -> regenerate::Regenerated {
    run_shard(fixture, None)
}

/// `regenerate` over the fixture's `docs/` folder, offline.
fn run_docs(fixture: &Fixture) -> regenerate::Regenerated {
    let audit = AuditOptions {
        paths: vec![fixture.path().join("docs")],
        repo: Some(fixture.path().to_path_buf()),
        ..AuditOptions::default()
    };
    regenerate::run(&Options {
        audit,
        top_k: regenerate::DEFAULT_TOP_K,
        llm: None,
    })
    .unwrap()
}

fn run_shard(fixture: &Fixture, shard: Option<Shard>) -> regenerate::Regenerated {
    let audit = AuditOptions {
        paths: vec![fixture.path().join("answers")],
        repo: Some(fixture.path().to_path_buf()),
        shard,
        ..AuditOptions::default()
    };
    regenerate::run(&Options {
        audit,
        top_k: regenerate::DEFAULT_TOP_K,
        llm: None,
    })
    .unwrap()
}

type Row = (
    String,
    Option<usize>,
    Option<usize>,
    Kind,
    Vec<(String, String)>,
);

fn rows(run: &regenerate::Regenerated) -> Vec<Row> {
    run.outcomes
        .iter()
        .map(|o| {
            let moved = o
                .moved()
                .iter()
                .map(|m| (m.from.clone(), m.to.clone()))
                .collect();
            (o.at.doc.clone(), o.at.answer, o.at.claim, o.kind(), moved)
        })
        .collect()
}

fn row(doc: &str, answer: usize, claim: Option<usize>, kind: Kind, moved: &[(&str, &str)]) -> Row {
    let moved = moved
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    (doc.to_string(), Some(answer), claim, kind, moved)
}

#[test]
fn stale_answers_are_regrounded_or_refused_and_nothing_is_lost() {
    let fixture = Fixture::build(SPEC).unwrap();
    let run = run(&fixture);
    let a = "answers/a.json";
    let b = "answers/b.jsonl";
    assert_eq!(
        rows(&run),
        [
            row(
                a,
                0,
                None,
                Kind::Regrounded,
                &[("src/cache.rs:1-4", "src/cache.rs:4-7")]
            ),
            row(
                a,
                1,
                None,
                Kind::Regrounded,
                &[("src/old.rs:1-3", "src/new.rs:1-3")]
            ),
            row(a, 2, None, Kind::Refused, &[]),
            // Its one-line quote is found once, in another file: too little to move it there.
            row(a, 3, None, Kind::Refused, &[]),
            // It cited outside its own retrieval: what its model saw is not swapped for the
            // target's, so it is refused (issue 20).
            row(a, 4, None, Kind::Refused, &[]),
            row(a, 5, None, Kind::Kept, &[]),
            row(
                b,
                0,
                Some(0),
                Kind::Regrounded,
                &[("src/cache.rs:1-4", "src/cache.rs:4-7")]
            ),
            row(b, 0, Some(1), Kind::Refused, &[]),
        ]
    );
    let head = run.revision.clone();
    let doc = |name: &str| run.docs.iter().find(|d| d.name == name).unwrap();
    let why = run.outcomes[3].why().unwrap_or_default();
    assert!(why.contains("too little to move a citation"), "{why}");

    // The changed answer is refused, its old text kept under `stale`; the old rate's line in
    // src/legacy.rs is not taken for it.
    let answers: Value = serde_json::from_str(&doc(a).after).unwrap();
    let answers = answers.as_array().unwrap();
    assert_eq!(answers.len(), 6, "no answer is dropped");
    let refused = &answers[2];
    assert_eq!(refused["refuse"]["reason"], "stale_index");
    assert_eq!(refused["citations"], Value::Array(vec![]));
    assert_eq!(refused["summary"], "");
    assert_eq!(refused["stale"]["summary"], "The rate is `10`.");
    assert_eq!(refused["stale"]["citations"][0]["path"], "src/rate.rs");
    assert_eq!(refused["revision"], head);
    let searched = refused["refuse"]["searched"].as_array().unwrap();
    assert!(searched
        .iter()
        .any(|s| s.as_str().unwrap().starts_with("src/rate.rs:")));
    assert!(searched
        .iter()
        .all(|s| !s.as_str().unwrap().starts_with("answers/")));

    // The answer that carried a retrieval payload keeps it, as written: the record of what its
    // model saw.
    assert_eq!(
        answers[4]["retrieved"],
        serde_json::json!([{"path": "src/cache.rs", "start_line": 1, "end_line": 3}])
    );
    assert_eq!(answers[4]["refuse"]["reason"], "no_span_in_retrieval");
    assert_eq!(answers[0]["revision"], head);
    // The kept answer's bytes are untouched, and so is every byte around the answers.
    let before = &doc(a).before;
    let kept = r#"{"summary": "Fine.", "citations": [{"path": "src/new.rs", "startLine": 1, "endLine": 3, "quote": "pub fn renamed_but_same() -> u32 {"}]}"#;
    assert!(before.contains(kept) && doc(a).after.contains(kept));
    assert!(doc(a)
        .after
        .starts_with("[\n  {\n    \"summary\": \"`load()` sets the TTL to 30.\",\n"));

    // The claim that cannot be grounded moves to open_questions, after the ones already there.
    let b_after: Value = serde_json::from_str(doc(b).after.trim_end()).unwrap();
    assert_eq!(b_after["claims"].as_array().unwrap().len(), 1);
    assert_eq!(b_after["claims"][0]["start_line"], 4);
    let open = b_after["open_questions"].as_array().unwrap();
    assert_eq!(open[0], "Who calls it?");
    assert!(open[1].as_str().unwrap().contains("The rate is `10`."));
    assert_eq!(
        doc(b).after.lines().count(),
        1,
        "JSONL stays one answer per line"
    );
}

#[test]
fn the_output_audits_clean_and_a_second_run_changes_nothing() {
    let fixture = Fixture::build(SPEC).unwrap();
    let first = run(&fixture);
    for d in &first.docs {
        citegate::fix::write_atomic(&d.fs_path, d.before.as_bytes(), d.after.as_bytes()).unwrap();
    }
    let report = fixture
        .audit(&["answers"], AuditOptions::default())
        .unwrap();
    let failing: Vec<&str> = report
        .findings
        .iter()
        .filter(|f| {
            let family = f.rule.info().family;
            matches!(
                family,
                Family::Invented | Family::Unsupported | Family::Stale
            )
        })
        .map(|f| f.rule.as_str())
        .collect();
    assert_eq!(failing, Vec::<&str>::new());
    let second = run(&fixture);
    assert!(second.docs.is_empty(), "regenerate is idempotent");
    assert_eq!(second.counts.refused, 0);
    assert_eq!(second.counts.regrounded, 0);
}

#[test]
fn shards_together_regenerate_what_one_run_does() {
    let fixture = Fixture::build(SPEC).unwrap();
    let whole = run(&fixture);
    let mut parts = Vec::new();
    let mut docs = Vec::new();
    for index in 1..=2 {
        let part = run_shard(&fixture, Some(Shard { index, count: 2 }));
        parts.extend(rows(&part));
        docs.extend(part.docs.into_iter().map(|d| (d.name, d.after)));
    }
    parts.sort_by(|a, b| (&a.0, a.1, a.2).cmp(&(&b.0, b.1, b.2)));
    docs.sort();
    assert_eq!(parts, rows(&whole));
    let whole_docs: Vec<(String, String)> =
        whole.docs.into_iter().map(|d| (d.name, d.after)).collect();
    assert_eq!(docs, whole_docs);
}

#[test]
fn nothing_to_reground_reads_no_more_than_the_audit() {
    let spec = "@@@ commit v1 code
@@@ file src/a.rs
pub fn a() -> u32 {
    1
}
@@@ file answers/ok.json
{\"summary\": \"s\", \"citations\": [{\"path\": \"src/a.rs\", \"startLine\": 1, \"endLine\": 3, \"quote\": \"pub fn a() -> u32 {\"}]}
";
    let fixture = Fixture::build(spec).unwrap();
    let run = run(&fixture);
    assert_eq!(run.counts.kept, 1);
    assert!(run.docs.is_empty());
    // No retrieval index was built (it reads and cuts every file of the tree).
    assert!(!fixture.path().join(".git/citegate").exists());
}

#[test]
fn answers_regrounded_offline_need_no_retrieval_index_and_a_refusal_does() {
    let spec = "@@@ commit v1 code
@@@ file src/a.rs
pub fn answer_value() -> u32 {
    1
}
@@@ commit v2 the code moves down
@@@ file src/a.rs
// a header
// more
// and more

pub fn answer_value() -> u32 {
    1
}
@@@ untracked answers/moved.json
{\"summary\": \"`answer_value()` returns 1.\", \"revision\": \"{{rev:v1}}\", \"citations\": [{\"path\": \"src/a.rs\", \"startLine\": 1, \"endLine\": 3, \"quote\": \"pub fn answer_value() -> u32 {\"}]}
";
    let fixture = Fixture::build(spec).unwrap();
    let run = run(&fixture);
    assert_eq!((run.counts.regrounded, run.counts.refused), (1, 0));
    // Everything moved offline: no index read or built.
    assert!(!fixture.path().join(".git/citegate").exists());
    // A refusal says what was searched: then the index is built.
    let answer = fixture.path().join("answers/moved.json");
    let text = std::fs::read_to_string(&answer).unwrap();
    std::fs::write(
        &answer,
        text.replace("pub fn answer_value() -> u32 {", "pub fn other() {"),
    )
    .unwrap();
    let run = run_shard(&fixture, None);
    assert_eq!(run.counts.refused, 1);
    let refused = run
        .outcomes
        .iter()
        .find(|o| o.kind() == Kind::Refused)
        .unwrap();
    assert!(
        !refused.refusal().unwrap().searched.is_empty(),
        "{refused:?}"
    );
    assert!(fixture.path().join(".git/citegate").exists());
}

#[test]
fn values_are_kept_exactly_and_an_answer_with_a_key_twice_is_not_rewritten() {
    // Issue 20: a number past f64 and a 30-digit integer in fields the audit does not use are
    // written back exactly as they were (they were rounded, or the answer left unwritable).
    let spec = "@@@ commit v1 code
@@@ file src/a.rs
fn a() {}
@@@ file answers/big.json
{\"summary\": \"s\", \"trace\": 123456789012345678901234567890, \"citations\": [{\"path\": \"src/nope.rs\", \"startLine\": 1, \"endLine\": 1, \"quote\": \"fn a() {}\", \"n\": 1e400}]}
@@@ file answers/twice.json
{\"summary\": \"s\", \"citations\": [{\"path\": \"src/nope.rs\", \"startLine\": 1, \"endLine\": 1, \"quote\": \"x\"}], \"citations\": []}
";
    let fixture = Fixture::build(spec).unwrap();
    let run = run(&fixture);
    let big: Vec<_> = run
        .docs
        .iter()
        .filter(|d| d.name == "answers/big.json")
        .collect();
    assert_eq!(big.len(), 1);
    let after = &big[0].after;
    assert!(after.contains("123456789012345678901234567890"), "{after}");
    // The same number (serde_json spells the exponent `e+400`), not one rounded to f64.
    assert!(
        after.contains("1e400") || after.contains("1e+400"),
        "{after}"
    );
    // The answer with a key written twice is never rewritten: it has no single meaning.
    assert!(run.docs.iter().all(|d| d.name != "answers/twice.json"));
    let twice: Vec<_> = run
        .outcomes
        .iter()
        .filter(|o| o.at.doc == "answers/twice.json")
        .collect();
    assert_eq!(twice.len(), 1);
    assert_eq!(twice[0].kind(), Kind::Refused);
    let why = twice[0].why().unwrap();
    assert!(why.contains("`citations` is written twice"), "{why}");
}

const WIKI: &str = r#"@@@ remote origin https://github.com/acme/shop.git
@@@ commit v1 code
@@@ file src/util.rs
pub fn helper() -> &'static str {
    "moved across files"
}
@@@ file src/rate.rs
const RATE: u32 = 10;
@@@ commit v2 the helper moves into a bigger file, the rate changes
@@@ delete src/util.rs
@@@ file src/lib/helpers.rs
// Helpers gathered from around the code base.
pub fn first() -> u32 { 1 }
pub fn second() -> u32 { 2 }
pub fn third() -> u32 { 3 }
pub fn fourth() -> u32 { 4 }
pub fn fifth() -> u32 { 5 }
pub fn helper() -> &'static str {
    "moved across files"
}
@@@ file src/rate.rs
const RATE: u32 = 20;
@@@ commit v3 a wiki page
@@@ file docs/wiki.md
The helper is [here](https://github.com/acme/shop/blob/{{rev:v1}}/src/util.rs#L1-L3).

The string is in src/nowhere.rs:2

```rust
"moved across files"
```

The rate is [set here](https://github.com/acme/shop/blob/{{rev:v1}}/src/rate.rs#L1).

The first helper is src/lib/helpers.rs:2

```rust
fn not_here() {}
```

It is `never_defined_here()` that returns src/gone.rs:2

```rust
"moved across files"
```
"#;

#[test]
fn markdown_citations_move_in_their_own_syntax_to_content_found_once() {
    let fixture = Fixture::build(WIKI).unwrap();
    let run = run_docs(&fixture);
    let head = &run.revision;
    let moved: Vec<(Kind, Vec<(String, String)>)> = run
        .outcomes
        .iter()
        .map(|o| {
            let m = o
                .moved()
                .iter()
                .map(|m| (m.from.clone(), m.to.clone()))
                .collect();
            (o.kind(), m)
        })
        .collect();
    let pair = |a: &str, b: &str| vec![(a.to_string(), b.to_string())];
    assert_eq!(
        moved,
        [
            (
                Kind::Regrounded,
                pair("src/util.rs:1-3", "src/lib/helpers.rs:7-9")
            ),
            // One line found once in another file is too little evidence to move it there
            // (issue 20: at least 2 lines and 40 non-space characters across files).
            (Kind::Refused, vec![]),
            (Kind::Refused, vec![]),
            // The quote is what failed: the span's own text is not looked for (it would anchor
            // the quote where it is not).
            (Kind::Refused, vec![]),
            // Its content is found once, but moved there its sentence's literal is not
            // supported: the gate keeps it where it was.
            (Kind::Refused, vec![]),
        ]
    );
    let after = &run.docs[0].after;
    // The permalink is re-pinned at the target, written as long as it was.
    assert!(
        after.contains(&format!("blob/{head}/src/lib/helpers.rs#L7-L9)")),
        "{after}"
    );
    assert!(
        after.contains("The string is in src/nowhere.rs:2\n"),
        "{after}"
    );

    // The changed rate is left as written.
    assert!(after.contains("/src/rate.rs#L1)."), "{after}");
    // Written, the page audits with only that one left.
    let d = &run.docs[0];
    citegate::fix::write_atomic(&d.fs_path, d.before.as_bytes(), d.after.as_bytes()).unwrap();
    let report = fixture.audit(&["docs"], AuditOptions::default()).unwrap();
    let rules: Vec<&str> = report.findings.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(
        rules,
        [
            "invented-path",
            "stale-changed",
            "unsupported-quote",
            "invented-path"
        ]
    );
}

/// Issue 20: DeepWiki's link text moves with its URL (`[a.js L2-L3](…#L2-L3)`), every range of
/// a comma list is listed as moved (`[a.js:2, 5]()` moves two), and a whole-file citation moves
/// to a whole file, never `path:0`.
#[test]
fn link_text_ranges_and_whole_files_move_as_written() {
    let spec = r#"@@@ remote origin https://github.com/acme/shop.git
@@@ commit v1 code
@@@ file src/a.js
function first() {
  return 1;
}
function second() {
  return 2;
}
@@@ file src/old.js
export const OLD = "a whole file that is renamed";
@@@ commit docs the wiki
@@@ file docs/w.md
See [src/a.js L2-L3](https://github.com/acme/shop/blob/{{rev:v1}}/src/a.js#L2-L3).

Both: [src/a.js:2, 5]().

Whole: [the old file](../src/old.js).
@@@ commit v2 code moves down, a rename
@@@ file src/a.js
// header
// another
function first() {
  return 1;
}
function second() {
  return 2;
}
@@@ delete src/old.js
@@@ file src/new.js
export const OLD = "a whole file that is renamed";
"#;
    let fixture = Fixture::build(spec).unwrap();
    let run = run_docs(&fixture);
    let after = &run.docs[0].after;
    assert!(
        after.contains("[src/a.js L4-L5](https://github.com/acme/shop/blob/"),
        "{after}"
    );
    assert!(after.contains("/src/a.js#L4-L5)"), "{after}");
    assert!(after.contains("[src/a.js:4, 7]()"), "{after}");
    assert!(after.contains("[the old file](../src/new.js)"), "{after}");
    let mut moved: Vec<(String, String)> = run
        .outcomes
        .iter()
        .flat_map(|o| o.moved().iter().map(|m| (m.from.clone(), m.to.clone())))
        .collect();
    moved.sort();
    assert_eq!(
        moved,
        [
            ("src/a.js:2".to_string(), "src/a.js:4".to_string()),
            ("src/a.js:2-3".to_string(), "src/a.js:4-5".to_string()),
            ("src/a.js:5".to_string(), "src/a.js:7".to_string()),
            ("src/old.js".to_string(), "src/new.js".to_string()),
        ]
    );
}

/// A refusal caused by a doc pin says so: a moved citation under `citegate: {rev}` moves only
/// with the pin and all its citations, which `fix` does and `regenerate` leaves to it.
#[test]
fn a_refusal_caused_by_a_doc_pin_says_so() {
    let spec = "@@@ commit v1 code
@@@ file src/a.rs
fn a() {}
@@@ file src/b.rs
const B: u32 = 1;
@@@ commit docs pinned at v1
@@@ file docs/p.md
---
citegate: {rev: {{short:v1}}}
---

Moved: src/a.rs:1. Changed: src/b.rs:1.
@@@ commit v2 a.rs moves down, b.rs changes
@@@ file src/a.rs
// header
fn a() {}
@@@ file src/b.rs
const B: u32 = 2;
";
    let fixture = Fixture::build(spec).unwrap();
    let run = run_docs(&fixture);
    let reasons: Vec<(&str, &str)> = run
        .outcomes
        .iter()
        .map(|o| {
            (
                o.reason()
                    .map(citegate::regenerate::Reason::as_str)
                    .unwrap_or_default(),
                o.why().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(
        reasons
            .iter()
            .any(|(r, why)| *r == "doc_pin" && why.contains("the doc's pin")),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|(r, _)| *r == "not_regrounded"),
        "{reasons:?}"
    );
}

/// Issue 21: a rename rewrites the link text that names the old file (its path, its file name,
/// a DeepWiki `name Lx-Ly` label) with the URL, in `fix` as in `regenerate`.
#[test]
fn a_rename_rewrites_the_link_text_that_names_the_file() {
    let spec = r#"@@@ remote origin https://github.com/acme/shop.git
@@@ commit v1 code
@@@ file src/old_name.js
export function first() {
  return 1;
}
@@@ commit docs the wiki
@@@ file docs/w.md
Path: [src/old_name.js](https://github.com/acme/shop/blob/{{rev:v1}}/src/old_name.js).

Label: [old_name.js L1-L3](https://github.com/acme/shop/blob/{{rev:v1}}/src/old_name.js#L1-L3).

Relative: [the old_name.js file](../src/old_name.js).

Twice: [old_name.js, see old_name.js](../src/old_name.js).
@@@ commit v2 a rename
@@@ delete src/old_name.js
@@@ file src/new_name.js
export function first() {
  return 1;
}
"#;
    let fixture = Fixture::build(spec).unwrap();
    let run = run_docs(&fixture);
    let after = &run.docs[0].after;
    assert!(
        after.contains("Path: [src/new_name.js](https://github.com/acme/shop/blob/"),
        "{after}"
    );
    assert!(
        after.contains("Label: [new_name.js L1-L3](https://github.com/acme/shop/blob/"),
        "{after}"
    );
    assert!(
        after.contains("Relative: [the new_name.js file](../src/new_name.js)."),
        "{after}"
    );
    // Text that names the file twice cannot move with it: not moved (issue 31).
    let twice = "Twice: [old_name.js, see old_name.js](../src/old_name.js).";
    assert!(after.contains(twice), "{after}");
    assert_eq!(after.matches("old_name").count(), 3, "{after}");
    // `fix` writes the same bytes.
    let report = fixture.audit(&["docs"], AuditOptions::default()).unwrap();
    let plan = citegate::fix::plan(&report, false);
    assert_eq!(&plan.docs[0].after, after);
}

/// A fixture for the run's accounting: answers of both schemas (one moved, some refused, one
/// citing outside the repository, one written with a key twice), a wiki with citations outside
/// the repository, a blank span and a move on a line that holds a refused citation.
const ACCOUNTED: &str = r#"@@@ commit v1 code
@@@ file src/a.rs
pub fn load() -> u32 {
    let ttl = 30;
    ttl
}
@@@ file src/b.rs
const B: u32 = 1;

@@@ commit docs written against v1
@@@ file docs/w.md
# Wiki

Moved and changed on one line: src/a.rs:1-4 and `const B: u32 = 1;` in src/b.rs:1.

Outside: ../outside.rs:1 and /etc/passwd:1, blank: src/b.rs:2.

Moved alone: src/a.rs:1-4.
@@@ file docs/a.jsonl
{"summary": "dup", "summary": "again", "citations": [{"path": "src/a.rs", "startLine": 1, "endLine": 1, "quote": "x"}]}
{"summary": "unsafe", "citations": [{"path": "../outside.rs", "startLine": 1, "endLine": 1, "quote": "x"}]}
{"summary": "moved", "citations": [{"path": "src/a.rs", "startLine": 1, "endLine": 4, "quote": "let ttl = 30;"}]}
{"summary": "s", "claims": [{"text": "a", "path": "src/a.rs", "start_line": 9, "end_line": 9}, {"text": "b", "path": "/etc/x.rs", "start_line": 1, "end_line": 1}], "open_questions": ["Who calls it?"]}
{"summary": "changed", "citations": [{"path": "src/b.rs", "startLine": 1, "endLine": 1, "quote": "const B: u32 = 1;"}]}
{"summary": "", "citations": [], "refuse": {}}
{"summary": "bogus", "citations": [{"path": "src/b.rs", "startLine": 1, "endLine": 1, "quote": "const B: u32 = 1;"}], "refuse": {"reason": "bogus"}}
@@@ commit v2 a.rs moves into c.rs, b.rs changes
@@@ delete src/a.rs
@@@ file src/c.rs
// the loader, moved here
pub fn load() -> u32 {
    let ttl = 30;
    ttl
}
@@@ file src/b.rs
const B: u32 = 2;

"#;

/// The JSON report of `citegate ARGS` in `dir`.
fn json_of(dir: &std::path::Path, args: &[&str]) -> Value {
    let out = common::citegate(dir, args);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stderr)))
}

/// The refusals written in the JSON answers of `dir/docs/a.jsonl`: `refuse` objects with a
/// reason and `open_questions` entries for claims not grounded.
fn refusals_in(dir: &std::path::Path) -> usize {
    let text = std::fs::read_to_string(dir.join("docs/a.jsonl")).unwrap();
    let reasons = ["no_span_in_retrieval", "ambiguous", "stale_index"];
    let mut n = 0;
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue; // The answer with a key twice is read by no one: left as written.
        };
        let reason = v["refuse"]["reason"].as_str().unwrap_or_default();
        n += usize::from(reasons.contains(&reason));
        let open = v["open_questions"].as_array().into_iter().flatten();
        n += open
            .filter(|q| q.as_str().is_some_and(|q| q.starts_with("Not grounded at")))
            .count();
    }
    n
}

/// Issue 31: what `regenerate --format json` counts is what `--write` writes: the refusals
/// written into the answers are `refusals_written`; the others (a Markdown citation, an answer
/// that cannot be read) are listed as `left_as_written`, and the docs keep them. An answer with
/// a malformed part (`"refuse": {}`) is refused once, not also listed as unreadable (it was
/// counted twice, written once).
#[test]
fn the_counts_are_what_write_writes() {
    let dir = tempfile::tempdir().unwrap();
    citegate::fixture::build(ACCOUNTED, dir.path()).unwrap();
    let before = refusals_in(dir.path());
    let run = json_of(dir.path(), &["regenerate", "docs", "--format", "json"]);
    let counts = &run["counts"];
    let outcomes = run["outcomes"].as_array().unwrap();
    let count = |pred: &dyn Fn(&Value) -> bool| outcomes.iter().filter(|o| pred(o)).count();
    let left = count(&|o| o["outcome"] == "refused" && o["left_as_written"] == true);
    // The answer with a key twice, and the wiki's four: two on line 3 (one blocked), two paths
    // outside the repository. The answers with a malformed `refuse` are refused in writing.
    assert_eq!(left, 5, "{run:#}");
    assert_eq!(
        counts["refused"].as_u64().unwrap() as usize,
        counts["refusals_written"].as_u64().unwrap() as usize + left,
        "{run:#}"
    );
    let out = common::citegate(dir.path(), &["regenerate", "docs", "--write"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = refusals_in(dir.path()) - before;
    assert_eq!(
        written,
        counts["refusals_written"].as_u64().unwrap() as usize
    );
    // Four answers refused whole, two claims moved to open_questions.
    assert_eq!(written, 6, "{run:#}");
}

/// Issue 60: the summary names the revision in 8 hex digits, as every other message does.
#[test]
fn the_summary_names_the_revision_as_everything_else_does() {
    let dir = tempfile::tempdir().unwrap();
    citegate::fixture::build(ACCOUNTED, dir.path()).unwrap();
    let head = git2::Repository::open(dir.path())
        .unwrap()
        .head()
        .unwrap()
        .peel_to_commit()
        .unwrap()
        .id()
        .to_string();
    let out = common::citegate(dir.path(), &["regenerate", "docs"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let summary = stderr.lines().find(|l| l.contains(" kept, ")).unwrap();
    assert!(
        summary.ends_with(&format!(" at {}", &head[..8])),
        "{stderr}"
    );
}

/// Issue 31: every error and warning finding of the audit is in exactly one of regenerate's
/// outcomes (by its fingerprint): re-grounded, refused, or kept saying why. Paths outside the
/// repository (33 `unsafe-path` findings were in no outcome) are refused and left as written; a
/// blank span is kept as hygiene.
#[test]
fn every_failing_finding_of_the_audit_has_an_outcome() {
    let dir = tempfile::tempdir().unwrap();
    citegate::fixture::build(ACCOUNTED, dir.path()).unwrap();
    let audit = json_of(dir.path(), &["audit", "docs", "--format", "json"]);
    let run = json_of(dir.path(), &["regenerate", "docs", "--format", "json"]);
    let outcomes = run["outcomes"].as_array().unwrap();
    let of = |fp: &str| -> Vec<&Value> {
        (outcomes.iter())
            .filter(|o| (o["findings"].as_array().into_iter().flatten()).any(|x| x == fp))
            .collect()
    };
    let mut rules = std::collections::BTreeSet::new();
    for f in audit["findings"].as_array().unwrap() {
        if f["severity"] == "note" {
            continue;
        }
        let fp = f["fingerprint"].as_str().unwrap();
        let found = of(fp);
        assert_eq!(found.len(), 1, "{f:#} in {found:#?}");
        let o = found[0];
        let rule = f["rule"].as_str().unwrap();
        rules.insert(rule);
        match rule {
            "unsafe-path" | "malformed-doc" => {
                assert_eq!(o["outcome"], "refused", "{o:#}");
                if f["doc"] == "docs/w.md" {
                    assert_eq!(o["line"], f["line"], "{o:#}");
                    assert_eq!(o["left_as_written"], true, "{o:#}");
                }
            }
            "blank-span" => {
                assert_eq!(o["outcome"], "kept", "{o:#}");
                assert_eq!(o["reason"], "hygiene", "{o:#}");
            }
            _ => assert_ne!(o["outcome"], "kept", "{o:#}"),
        }
    }
    for rule in [
        "unsafe-path",
        "malformed-doc",
        "blank-span",
        "stale-changed",
    ] {
        assert!(
            rules.contains(rule),
            "the fixture has a {rule} finding: {rules:?}"
        );
    }
}

/// Issue 31: a citation `regenerate` refuses keeps its finding after `--write`. The move of
/// another citation on its line (to the file its content was renamed into) is held back
/// and said `blocked`: the edited line would get a new last commit, and the refused citation,
/// resolved by the line's history, would pass as if just written.
#[test]
fn a_refused_citation_keeps_its_finding_after_write() {
    let dir = tempfile::tempdir().unwrap();
    citegate::fixture::build(ACCOUNTED, dir.path()).unwrap();
    let run = json_of(dir.path(), &["regenerate", "docs", "--format", "json"]);
    let line3: Vec<&Value> = (run["outcomes"].as_array().unwrap().iter())
        .filter(|o| o["doc"] == "docs/w.md" && o["line"] == 3)
        .collect();
    let reasons: Vec<&str> = line3.iter().filter_map(|o| o["reason"].as_str()).collect();
    assert_eq!(reasons, ["blocked", "not_regrounded"], "{line3:#?}");
    let refused = |report: &Value| -> Vec<String> {
        (report["findings"].as_array().unwrap().iter())
            .filter(|f| f["doc"] == "docs/w.md" && f["rule"] != "blank-span")
            .filter(|f| f["severity"] != "note")
            .map(|f| format!("{}:{} {}", f["line"], f["column"], f["rule"]))
            .collect()
    };
    let before = json_of(dir.path(), &["audit", "docs", "--format", "json"]);
    common::citegate(dir.path(), &["regenerate", "docs", "--write"]);
    let text = std::fs::read_to_string(dir.path().join("docs/w.md")).unwrap();
    assert!(text.contains("Moved alone: src/c.rs:2-5."), "{text}");
    assert!(text.contains("src/a.rs:1-4 and"), "line 3 kept: {text}");
    let after = json_of(dir.path(), &["audit", "docs", "--format", "json"]);
    let (before, after) = (refused(&before), refused(&after));
    let lost: Vec<&String> = (before.iter())
        .filter(|f| !f.starts_with("7:") && !after.contains(f))
        .collect();
    assert!(
        lost.is_empty(),
        "lost {lost:?}: before {before:?}, after {after:?}"
    );
}

/// Issue 31: link text that names the lines (DeepWiki's `[colors.rs L131-L133](…#L131-L133)`
/// and the other forms writers use) moves with its URL, in its own form; text that names them
/// twice, or in words (`lines 1 to 3`), cannot, and the citation is refused rather than left
/// contradicting its URL (6 such disagreements were written on a generated wiki).
#[test]
fn link_text_naming_the_lines_moves_with_the_url_in_every_form() {
    let forms = [
        "a.rs L1-L3",
        "a.rs:1-3",
        "a.rs L1-3",
        "1-3",
        "a.rs#L1-L3",
        "lines 1-3",
        "a.rs (L1-L3)",
    ];
    let mut wiki = String::new();
    for (i, text) in forms.iter().enumerate() {
        let url = "https://github.com/acme/shop/blob/{{rev:v1}}/src/a.rs#L1-L3";
        wiki.push_str(&format!("Form {i} [{text}]({url}).\n\n"));
    }
    wiki.push_str("One [src/a.rs:2](../src/a.rs#L2) and [a.rs L2-L2](../src/a.rs#L2-L2).\n\n");
    wiki.push_str("Twice [a.rs:1-3 (L1-L3)](../src/a.rs#L1-L3).\n\n");
    wiki.push_str("Words [a.rs, lines 1 to 3](../src/a.rs#L1-L3).\n");
    let spec = format!(
        "@@@ remote origin https://github.com/acme/shop.git
@@@ commit v1 code
@@@ file src/a.rs
pub fn load() -> u32 {{
    let ttl = 30;
    ttl
}}
@@@ commit docs the wiki
@@@ file docs/w.md
{wiki}@@@ commit v2 code moves down
@@@ file src/a.rs
// header
// another
pub fn load() -> u32 {{
    let ttl = 30;
    ttl
}}
"
    );
    let fixture = Fixture::build(&spec).unwrap();
    let run = run_docs(&fixture);
    let after = &run.docs[0].after;
    let link = regex::Regex::new(r"\[([^\]]*)\]\(([^)]*)\)").unwrap();
    let digits = regex::Regex::new(r"\d+").unwrap();
    let numbers = |s: &str| -> Vec<u32> {
        (digits.find_iter(s))
            .map(|m| m.as_str().parse().unwrap())
            .collect()
    };
    let mut seen = 0;
    let unmoved = |l: &&str| !l.starts_with("Twice") && !l.starts_with("Words");
    for line in after.lines().filter(unmoved) {
        for m in link.captures_iter(line) {
            let (text, url) = (&m[1], &m[2]);
            let fragment = url.rsplit_once('#').unwrap().1;
            let (from_url, from_text) = (numbers(fragment), numbers(text));
            assert_eq!(from_text, from_url, "the text agrees with its URL: {line}");
            assert!(from_url.first().is_some_and(|&n| n >= 3), "moved: {line}");
            seen += 1;
        }
    }
    assert_eq!(seen, forms.len() + 2, "{after}");
    assert!(
        after.contains("[a.rs L3-5](https://"),
        "each in its own form: {after}"
    );
    assert!(after.contains("[src/a.rs:4](../src/a.rs#L4)"), "{after}");
    // Named twice, or in words: not moved, refused.
    assert!(
        after.contains("Twice [a.rs:1-3 (L1-L3)](../src/a.rs#L1-L3)."),
        "{after}"
    );
    assert!(
        after.contains("Words [a.rs, lines 1 to 3](../src/a.rs#L1-L3)."),
        "{after}"
    );
    for line in [2 * forms.len() + 3, 2 * forms.len() + 5] {
        let o = (run.outcomes.iter())
            .find(|o| o.at.line == Some(line))
            .expect("an outcome for the link naming its lines where they cannot move");
        assert_eq!(o.kind(), Kind::Refused, "{o:?}");
    }
}

/// Issue 31: two citations in one link (`[src/a.rs:1, 2]()`) share its span; the move of the
/// first is no cover for the second, which stays failing: the line is not edited (by
/// `regenerate`, nor by `fix`), and the next audit still reports the refused citation.
/// Before, the move was written and the changed citation, resolved at the edited line's new
/// commit, passed.
#[test]
fn a_move_in_a_link_shared_with_a_refused_citation_is_held() {
    let spec = "@@@ commit v1 code
@@@ file src/a.rs
fn one() {}
const B: u32 = 1;
@@@ commit docs the wiki, written against v1
@@@ file docs/w.md
Both: [src/a.rs:1, 2]().
@@@ commit v2 one moves down, B changes
@@@ file src/a.rs
// header
fn one() {}
const B: u32 = 2;
";
    for command in [&["regenerate", "docs", "--write"][..], &["fix", "docs"]] {
        let dir = tempfile::tempdir().unwrap();
        citegate::fixture::build(spec, dir.path()).unwrap();
        if command[0] == "regenerate" {
            let run = json_of(dir.path(), &["regenerate", "docs", "--format", "json"]);
            let reasons: Vec<&str> = (run["outcomes"].as_array().unwrap().iter())
                .map(|o| o["reason"].as_str().unwrap_or("moved"))
                .collect();
            assert_eq!(reasons, ["blocked", "not_regrounded"], "{run:#}");
        }
        common::citegate(dir.path(), command);
        let text = std::fs::read_to_string(dir.path().join("docs/w.md")).unwrap();
        assert_eq!(text, "Both: [src/a.rs:1, 2]().\n", "{command:?}");
        let audit = json_of(dir.path(), &["audit", "docs", "--format", "json"]);
        let rules: Vec<&str> = (audit["findings"].as_array().unwrap().iter())
            .map(|f| f["rule"].as_str().unwrap())
            .collect();
        assert!(rules.contains(&"stale-changed"), "{command:?}: {rules:?}");
    }
}
