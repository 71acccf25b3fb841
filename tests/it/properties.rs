//! Properties over generated input (proptest): extraction never panics and every span it returns
//! lies inside the doc, on character boundaries; and applying the safe fixes converges: after one
//! `fix`, the fixed citations hold and a second run has nothing left to fix.

use citegate::audit::AuditOptions;
use citegate::fix;
use citegate::gate::{Gate, Retrieval};
use citegate::testing::{self, Fixture};
use proptest::prelude::*;

/// Pieces real docs are made of, and the characters that break parsers.
const PIECES: &[&str] = &[
    "src/a.rs:1",
    "src/a.rs:3-4",
    "a.rs:L2-L3",
    "`src/b.py:10`",
    "[x](src/a.rs#L1-L2)",
    "[y](https://github.com/o/r/blob/abc1234/src/a.rs#L5)",
    "https://github.com/o/r/blob/main/a.rs#L1-L9.",
    "[src/a.rs:1-2]()",
    "[1]",
    "Sources:\n[1] src/a.rs\n",
    "\n```rust\nfn a() {}\n```\n",
    "```12:15:app/a.tsx\n",
    "---\n",
    "citegate: {rev: abc}\n",
    "<a href=\"https://github.com/o/r/blob/x/y.rs#L1\">",
    "file://office/x.py#L3",
    "\\_",
    "\\*",
    "&amp;",
    "é",
    "日本",
    "\u{feff}",
    "\r\n",
    "\n",
    " ",
    "#",
    "(",
    ")",
    "[",
    "]",
    "`",
    "{",
    "}",
    "\"",
    ":",
    "#L",
    "-",
    "99999999999999999999",
    "{\"citations\": [",
    "{\"path\": \"a.rs\", \"startLine\": 1, \"endLine\": 2, \"quote\": \"x\"}",
    "]}",
    ",",
    "\t",
    "> ",
    "- ",
    "1. ",
    "|",
    "\u{1b}[31m",
    "vscode://file/a.rs:3",
];

fn doc_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => prop::sample::select(PIECES).prop_map(str::to_string),
            1 => any::<char>().prop_map(String::from),
        ],
        0..60,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(crate::common::proptest_cases(512))]

    #[test]
    fn extraction_never_panics_and_spans_lie_inside_the_doc(text in doc_text()) {
        if let Err(e) = testing::extract_all_kinds(&text) {
            return Err(TestCaseError::fail(e));
        }
        if let Err(e) = testing::parse_links(&text) {
            return Err(TestCaseError::fail(e));
        }
    }
}

/// A repository whose file moved down by `shift` lines between `v1` and `v2`.
fn moved_repo(lines: usize, shift: usize) -> String {
    let body: String = (1..=lines)
        .map(|i| format!("fn f{i}() {{ let v{i} = {i}; }}\n"))
        .collect();
    let header: String = (0..shift).map(|i| format!("// header {i}\n")).collect();
    format!(
        "@@@ remote origin https://github.com/acme/p\n@@@ commit v1 code\n@@@ file src/a.rs\n{body}\
         @@@ commit v2 code moves\n@@@ file src/a.rs\n{header}{body}"
    )
}

/// One cited piece of a doc: the syntax, its lines, and a second line (a quote's, a renamed
/// file's line).
type Piece = (usize, usize, usize, usize);

/// A piece in every syntax `fix` rewrites, as written against v1 (`v1`: its short SHA): moves
/// (permalinks, bare, deepwiki-open, link text naming lines), a rename, a range from line 0, an
/// exclusive end, a quote at other lines.
fn piece(v1: &str, (syntax, start, len, other): Piece) -> String {
    let end = (start + len).min(12);
    let blob = format!("https://github.com/acme/p/blob/{v1}/src/a.rs");
    let fence = |n: usize| format!("\n```rust\nfn f{n}() {{ let v{n} = {n}; }}\n```\n");
    match syntax {
        0 => format!("[p]({blob}#L{start}-L{end})"),
        1 => format!("src/a.rs:{start}-{end}{}", fence(start)),
        2 => format!("[a.rs L{start}-L{end}]({blob}#L{start}-L{end})"),
        3 => format!("`src/b.rs:{}`", other % 3 + 1),
        4 => format!("[z]({blob}#L0-L{end})"),
        5 => format!("src/a.rs:{start}-13"),
        6 => format!("[src/a.rs:{start}-{end}]()"),
        _ => format!("src/a.rs:{start}{}", fence(other % 12 + 1)),
    }
}

/// A JSON citation of src/a.rs written against v1: its quote at its lines, an exclusive end,
/// or its quote at other lines.
fn json_citation((kind, start, len, other): Piece) -> String {
    let end = (start + len).min(12);
    let quote = |n: usize| format!("fn f{n}() {{ let v{n} = {n}; }}");
    let (s, e, q) = match kind % 3 {
        0 => (start, end, quote(start)),
        1 => (start, 13, quote(start)),
        _ => (start, start, quote(other % 12 + 1)),
    };
    format!("{{\"path\": \"src/a.rs\", \"startLine\": {s}, \"endLine\": {e}, \"quote\": \"{q}\"}}")
}

/// A repository where src/a.rs moves down by `shift` lines and src/b.rs is renamed to src/c.rs
/// after the docs were committed, with the docs `pieces` make (pieces on one line or in
/// paragraphs; a doc pinned as a whole; an answer, pinned or not).
fn drifted_repo(shift: usize, pieces: &[(Piece, bool)], answer: &[Piece], pinned: bool) -> String {
    let body: String = (1..=12)
        .map(|i| format!("fn f{i}() {{ let v{i} = {i}; }}\n"))
        .collect();
    let header: String = (0..shift).map(|i| format!("// header {i}\n")).collect();
    let mut wiki = String::from("# Doc\n\n");
    let mut pinned_doc = String::from("---\ncitegate: {rev: {{short:v1}}}\n---\n\n");
    for (i, (p, same_line)) in pieces.iter().enumerate() {
        let text = piece("{{short:v1}}", *p);
        let sep = if *same_line { " and " } else { ".\n\n" };
        wiki.push_str(&format!("Claim {i}: {text}{sep}"));
        if p.0 != 3 {
            pinned_doc.push_str(&format!("Pinned {i}: src/a.rs:{}.\n", p.1));
        }
    }
    let citations: Vec<String> = answer.iter().map(|c| json_citation(*c)).collect();
    let revision = if pinned {
        "\"revision\": \"{{short:v1}}\", "
    } else {
        ""
    };
    let json = format!(
        "{{\"summary\": \"s\", {revision}\"citations\": [{}]}}\n",
        citations.join(", ")
    );
    format!(
        "@@@ remote origin https://github.com/acme/p\n@@@ commit v1 code\n@@@ file src/a.rs\n{body}\
         @@@ file src/b.rs\nconst B1: u8 = 1;\nconst B2: u8 = 2;\nconst B3: u8 = 3;\n\
         @@@ commit docs docs written against v1\n@@@ file docs/w.md\n{wiki}\n@@@ file docs/pinned.md\n{pinned_doc}\
         @@@ file answers/q.json\n{json}\
         @@@ commit v2 code moves, b.rs renamed\n@@@ file src/a.rs\n{header}{body}\
         @@@ delete src/b.rs\n@@@ file src/c.rs\nconst B1: u8 = 1;\nconst B2: u8 = 2;\nconst B3: u8 = 3;\n"
    )
}

fn a_piece() -> impl Strategy<Value = Piece> {
    (0usize..8, 1usize..=12, 0usize..3, 0usize..12)
}

proptest! {
    #![proptest_config(crate::common::proptest_cases(32))]

    /// Issue 31: `fix` reaches its fixpoint in one run, over every syntax and fix kind,
    /// citations sharing a line, a doc pinned as a whole and a JSON answer (pinned or not):
    /// after one `fix`, a second changes nothing, and every applied fix removed its finding.
    #[test]
    fn one_fix_run_reaches_the_fixpoint(
        shift in 1usize..4,
        pieces in prop::collection::vec((a_piece(), any::<bool>()), 1..8),
        answer in prop::collection::vec(a_piece(), 1..4),
        pinned in any::<bool>(),
    ) {
        let fx = Fixture::build(&drifted_repo(shift, &pieces, &answer, pinned)).unwrap();
        let opts = AuditOptions {
            repo: Some(fx.path().to_path_buf()),
            paths: vec![fx.path().join("docs"), fx.path().join("answers")],
            ..AuditOptions::default()
        };
        let session = citegate::audit::Session::open(&opts).unwrap();
        let audit = || citegate::audit::run_in(&session, &opts).unwrap();
        let before = audit();
        let plan = citegate::audit::fixpoint::plan(&session, &before, false);
        prop_assume!(!plan.docs.is_empty());
        for doc_fix in &plan.docs {
            let doc = &before.docs[doc_fix.doc].doc;
            fix::write_atomic(&doc.fs_path, doc.text.as_bytes(), doc_fix.after.as_bytes()).unwrap();
        }
        let after = audit();
        let again = fix::plan(&after, false);
        let changed: Vec<(&str, &str)> = again
            .docs
            .iter()
            .map(|d| (after.docs[d.doc].doc.text.as_str(), d.after.as_str()))
            .collect();
        prop_assert!(again.docs.is_empty(), "a second fix would change more: {:?}", changed);
        let fixable = |r: &citegate::model::Report| r.findings.iter().filter(|f| f.safe_fix().is_some()).count();
        prop_assert_eq!(fixable(&after), again.blocked.len());
        let moved_pins = plan.docs.iter().map(|d| d.pins).sum::<usize>();
        let applied = plan.docs.iter().map(|d| d.applied).sum::<usize>() + moved_pins;
        let wrong = |r: &citegate::model::Report| r.findings.iter().filter(|f| f.rule.says_wrong(f.severity)).count();
        prop_assert!(wrong(&after) + applied <= wrong(&before) + moved_pins,
            "fixing left or added findings: before {:?}, after {:?}",
            before.findings.iter().map(|f| (f.rule, &f.message)).collect::<Vec<_>>(),
            after.findings.iter().map(|f| (f.rule, &f.message)).collect::<Vec<_>>());
    }
}

proptest! {
    #![proptest_config(crate::common::proptest_cases(24))]

    #[test]
    fn fixes_converge_and_leave_the_fixed_citations_holding(
        shift in 1usize..6,
        cited in prop::collection::vec((1usize..12, 0usize..3, 0usize..3), 1..6),
    ) {
        let fx = Fixture::build(&moved_repo(12, shift)).unwrap();
        let v1 = fx.labels["v1"].to_string();
        let mut text = String::from("# Doc\n\n");
        for (i, (start, len, syntax)) in cited.iter().enumerate() {
            let end = (start + len).min(12);
            let line = match syntax {
                0 => format!("Claim {i} [p](https://github.com/acme/p/blob/{}/src/a.rs#L{start}-L{end}).\n\n", &v1[..8]),
                1 => format!("Claim {i}: quoted src/a.rs:{start}-{end}\n```rust\nfn f{start}() {{ let v{start} = {start}; }}\n```\n\n"),
                _ => format!("Claim {i} {{\"path\": \"src/a.rs\"}} [q](https://github.com/acme/p/blob/{}/src/a.rs#L{start})\n\n", &v1[..8]),
            };
            text.push_str(&line);
        }
        std::fs::create_dir_all(fx.path().join("docs")).unwrap();
        let path = fx.path().join("docs/a.md");
        std::fs::write(&path, &text).unwrap();
        let audit = || fx.audit(&["docs"], AuditOptions::default()).unwrap();

        let before = audit();
        let plan = fix::plan(&before, false);
        prop_assume!(!plan.docs.is_empty());
        for doc_fix in &plan.docs {
            let doc = &before.docs[doc_fix.doc].doc;
            fix::write_atomic(&doc.fs_path, doc.text.as_bytes(), doc_fix.after.as_bytes()).unwrap();
        }
        let after = audit();
        // Converged: nothing left to fix, and every finding that carried a fix is gone but those
        // held back because a citation on their line stays failing.
        let again = fix::plan(&after, false);
        prop_assert!(again.docs.is_empty(), "a second fix would change more");
        let fixable = |r: &citegate::model::Report| r.findings.iter().filter(|f| f.fix.is_some()).count();
        prop_assert_eq!(fixable(&after), again.blocked.len());
        prop_assert_eq!(again.blocked.len(), plan.blocked.len());
        prop_assert!(after.findings.len() + fixable(&before) <= before.findings.len() + plan.blocked.len(),
            "fixing added findings: before {:?}, after {:?}",
            before.findings.iter().map(|f| f.rule).collect::<Vec<_>>(),
            after.findings.iter().map(|f| f.rule).collect::<Vec<_>>());
    }
}

proptest! {
    #![proptest_config(crate::common::proptest_cases(512))]

    /// The byte-level whitespace normalisation is the character-level one: every run of Unicode
    /// whitespace becomes one space, ends trimmed; and its line map counts every `\n`.
    #[test]
    fn normalisation_is_unicode_whitespace_collapsing(
        text in proptest::collection::vec(
            prop_oneof![
                Just(" "), Just("\t"), Just("\n"), Just("\r\n"), Just("\u{a0}"), Just("\u{2003}"),
                Just("\u{85}"), Just("é"), Just("x"), Just("fn"), Just("😀"), Just("\u{b}"),
            ],
            0..40,
        ).prop_map(|parts| parts.concat())
    ) {
        let want = text.split_whitespace().collect::<Vec<_>>().join(" ");
        prop_assert_eq!(citegate::normalize::normalize(&text), want.clone());
        let source = citegate::normalize::NormalizedSource::new(&text);
        prop_assert_eq!(&source.text, &want);
        prop_assert_eq!(source.line_of(usize::MAX), text.matches('\n').count() + 1);
    }
}

/// JSON values as answers hold them: nested objects and arrays of strings (escapes, Unicode),
/// numbers, booleans and nulls.
fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::Bool),
        any::<i64>().prop_map(|n| serde_json::json!(n)),
        "[a-z\"\\\\\n\té😀 ]{0,12}".prop_map(serde_json::Value::String),
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::Array),
            proptest::collection::vec(("[a-zA-Z_]{1,6}", inner), 0..4)
                .prop_map(|kv| serde_json::Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(crate::common::proptest_cases(256))]

    /// A rewritten answer is exactly the new value (it parses back to it), laid out on one line
    /// when the old one was, whatever the old layout (indent unit, base indentation).
    #[test]
    fn rewritten_answers_parse_back_to_their_value(
        old in json_value(),
        new in json_value(),
        pretty in any::<bool>(),
        indent in prop_oneof![Just("  "), Just("    "), Just("\t")],
        base in prop_oneof![Just(""), Just("  "), Just("    ")],
    ) {
        let old_text = if pretty {
            let mut buf = Vec::new();
            let f = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
            let mut ser = serde_json::Serializer::with_formatter(&mut buf, f);
            serde::Serialize::serialize(&old, &mut ser).unwrap();
            String::from_utf8(buf).unwrap().replace('\n', &format!("\n{base}"))
        } else {
            old.to_string()
        };
        let doc = format!("[\n{base}{old_text}\n]\n");
        let start = 2 + base.len();
        let span = citegate::model::Span::new(start, start + old_text.len());
        let out = citegate::regenerate::write::layout(&new, &doc, span);
        let back: serde_json::Value = serde_json::from_str(&out).unwrap();
        prop_assert_eq!(back, new);
        if !old_text.contains('\n') {
            prop_assert!(!out.contains('\n'));
        }
    }
}

proptest! {
    #![proptest_config(crate::common::proptest_cases(512))]

    /// The audit's extraction (a located tree) and the gate (a value) read the answer contract
    /// alike: the same answers refuse, and the same `retrieved` payloads are read.
    #[test]
    fn extraction_and_the_gate_agree_on_refusal_and_retrieval(answer in answer_value()) {
        let text = answer.to_string();
        let doc = citegate::model::Doc::new(
            "a.json".into(), "a.json".into(), None, citegate::model::DocKind::Json, text.clone(),
        );
        let ext = citegate::extract::extract(&doc, &Default::default());
        let is_answer = citegate::contract::is_answer(&answer);
        prop_assert_eq!(ext.answers.len(), usize::from(is_answer));
        if let Some(a) = ext.answers.first() {
            prop_assert_eq!(a.refused, citegate::contract::refuses(&answer));
            // One parser: a payload read whole, or (unreadable) reported and empty.
            if let Some(r) = answer.get("retrieved").filter(|r| r.is_array()) {
                match citegate::contract::payload_of(r) {
                    Ok(payload) => prop_assert_eq!(a.retrieved.clone(), Some(payload)),
                    Err(_) => {
                        prop_assert_eq!(a.retrieved.clone(), Some(Vec::new()));
                        prop_assert!(!ext.problems.is_empty());
                    }
                }
            }
            // The gate passes a well-formed refusal, and refuses what the audit finds malformed.
            let (repo, head) = gate_repo();
            let gate = Gate::new(repo, head, &citegate::audit::Settings::default());
            let passed = gate.check_text("a.json", &text, Retrieval::Optional).is_empty();
            if a.refused && ext.problems.is_empty() {
                prop_assert!(passed);
            }
            if !ext.problems.is_empty() {
                prop_assert!(!passed);
            }
        }
    }
}

proptest! {
    #![proptest_config(crate::common::proptest_cases(128))]

    /// `citegate gate` on any input, JSON or not, answer or not: it never panics, always prints
    /// one JSON value, and passes only what it was given unchanged.
    #[test]
    fn the_gate_answers_any_input_with_json(
        text in prop_oneof![
            ".{0,80}",
            json_value().prop_map(|v| v.to_string()),
            (json_value(), "[a-z/.]{1,12}", 0i64..50, 0i64..50).prop_map(|(s, p, a, b)| {
                serde_json::json!({"summary": s, "citations": [
                    {"path": p, "startLine": a, "endLine": b, "quote": "pub fn a"}
                ]}).to_string()
            }),
        ]
    ) {
        let (repo, head) = gate_repo();
        let gate = Gate::new(repo, head, &citegate::audit::Settings::default());
        let g = citegate::gate::service::gate_text(&gate, &text, Retrieval::Optional, false);
        let out: serde_json::Value = serde_json::from_str(&g.output).unwrap();
        if g.passed {
            let given = text.trim_start_matches('\u{feff}');
            let given: serde_json::Value = serde_json::from_str(given).unwrap();
            prop_assert_eq!(out, given);
        } else {
            prop_assert!(out.get("refuse").is_some() || out.get("claims").is_some());
        }
    }
}

/// One small repository for every case of the gate property (built once).
/// An answer-shaped value: the contract's keys with arbitrary values, or valid ones.
fn answer_value() -> impl Strategy<Value = serde_json::Value> {
    let refuse = prop_oneof![
        json_value(),
        prop::sample::select(vec![
            "no_span_in_retrieval",
            "ambiguous",
            "stale_index",
            "busy"
        ])
        .prop_map(|r| serde_json::json!({"reason": r})),
    ];
    let retrieved = prop_oneof![
        json_value(),
        (0i64..9, 0i64..9).prop_map(|(a, b)| serde_json::json!([
            {"path": "src/a.rs", "start_line": a, "end_line": b}
        ])),
    ];
    let list = prop_oneof![
        json_value(),
        Just(serde_json::json!([])),
        Just(serde_json::json!([{"path": "src/a.rs", "startLine": 1, "quote": "pub fn a"}]))
    ];
    (
        prop::option::of(json_value()),
        prop::option::of(list.clone()),
        prop::option::of(list),
        prop::option::of(refuse),
        prop::option::of(retrieved),
        prop::option::of(json_value()),
    )
        .prop_map(|(summary, citations, claims, refuse, retrieved, open)| {
            let mut o = serde_json::Map::new();
            let keys = [
                "summary",
                "citations",
                "claims",
                "refuse",
                "retrieved",
                "open_questions",
            ];
            for (k, v) in keys
                .into_iter()
                .zip([summary, citations, claims, refuse, retrieved, open])
            {
                if let Some(v) = v {
                    o.insert(k.into(), v);
                }
            }
            serde_json::Value::Object(o)
        })
}

fn gate_repo() -> (&'static citegate::resolve::CodeRepo, git2::Oid) {
    type Built = (Fixture, citegate::resolve::CodeRepo, git2::Oid);
    static REPO: std::sync::OnceLock<Built> = std::sync::OnceLock::new();
    let (_, repo, head) = REPO.get_or_init(|| {
        let spec = "@@@ commit v1 code\n@@@ file src/a.rs\npub fn a() {}\n";
        let fixture = Fixture::build(spec).unwrap();
        let repo = citegate::resolve::CodeRepo::discover(fixture.path()).unwrap();
        let head = repo.resolve(&repo.open().unwrap(), "HEAD").unwrap();
        (fixture, repo, head)
    });
    (repo, *head)
}

proptest! {
    #![proptest_config(crate::common::proptest_cases(1024))]

    /// Whatever a doc, a path or a message holds, the Markdown report's escaping renders it as
    /// plain text: no link, image, HTML, emphasis or mention (`testing::markdown_inert`).
    #[test]
    fn markdown_escaping_is_inert(
        text in proptest::collection::vec(
            prop_oneof![
                Just("["), Just("]"), Just("("), Just(")"), Just("!"), Just("<"), Just(">"),
                Just("`"), Just("``"), Just("*"), Just("_"), Just("~"), Just("|"), Just("#"),
                Just("@"), Just("&"), Just("&amp;"), Just("\\"), Just("\n"), Just("\r"),
                Just("http://x.y/"), Just("www.e.com"), Just("img"), Just("a"), Just(" "),
                Just("\u{1b}"), Just("\u{202e}"), Just("<script>"), Just("javascript:"),
                Just("- "), Just("1. "), Just("> "), Just("---"), Just("é"),
            ],
            0..30,
        ).prop_map(|parts| parts.concat())
    ) {
        if let Err(e) = citegate::testing::markdown_inert(&text) {
            return Err(TestCaseError::fail(e));
        }
    }
}
