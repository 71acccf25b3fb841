//! The public in-process entry point: docs held in memory are checked at a revision without being
//! written anywhere, and rules that are off do no work.

use citegate::audit::{check_docs, Settings};
use citegate::check::{self, Needs};
use citegate::config::Config;
use citegate::extract::{self, ExtractContext};
use citegate::model::{AuditedDoc, CiteRef, Doc, DocId, DocKind, PinSource};
use citegate::resolve::CodeRepo;
use citegate::testing::Fixture;

const REPO: &str =
    "@@@ commit v1 code\n@@@ file src/cache.rs\npub const TTL_SECONDS: u64 = 30;\nfn load() {}\n";

/// A Markdown doc that exists only in memory, named as if it were at `name` in the repository.
fn doc(name: &str, text: &str) -> AuditedDoc {
    let doc = Doc::new(
        name.into(),
        name.into(),
        Some("docs".into()),
        DocKind::Markdown,
        text.to_string(),
    );
    let extracted = extract::extract(&doc, &ExtractContext::default());
    AuditedDoc::new(doc, extracted)
}

#[test]
fn docs_in_memory_are_checked_without_touching_the_disk() {
    let fixture = Fixture::build(REPO).unwrap();
    let repo = CodeRepo::discover(fixture.path()).unwrap();
    let head = repo.resolve(&repo.open().unwrap(), "HEAD").unwrap();
    let docs = vec![
        doc(
            "docs/new.md",
            "The TTL is `TTL_SECONDS: u64 = 30` (src/cache.rs:1).\n",
        ),
        doc(
            "docs/bad.md",
            "Loading is in src/cache.rs:9. The TTL is `TTL = 5` in src/cache.rs:1.\n",
        ),
    ];
    let report = check_docs(&repo, head, docs, &Settings::default());
    let got: Vec<(&str, &str)> = report
        .findings
        .iter()
        .map(|f| (report.docs[f.doc].doc.name.as_str(), f.rule.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("docs/bad.md", "invented-lines"),
            ("docs/bad.md", "unsupported-literal")
        ]
    );
    assert_eq!(report.summary.citations, 3);
    assert!(!fixture.path().join("docs").exists(), "nothing was written");
}

#[test]
fn a_rule_turned_off_is_not_reported_for_the_docs_it_is_off_for() {
    let fixture = Fixture::build(REPO).unwrap();
    let repo = CodeRepo::discover(fixture.path()).unwrap();
    let head = repo.resolve(&repo.open().unwrap(), "HEAD").unwrap();
    let config = "rules: {overbroad-span: off}\noverrides:\n  - paths: ['docs/gen/**']\n    rules: {unsupported-literal: off}\n";
    let settings = Settings {
        config: Config::parse(".citegate.yaml".as_ref(), config).unwrap(),
        max_span_lines: 1,
        ..Settings::default()
    };
    let text = "`TTL = 5` is in src/cache.rs:1-2.\n";
    let docs = vec![doc("docs/a.md", text), doc("docs/gen/b.md", text)];
    let report = check_docs(&repo, head, docs, &settings);
    let got: Vec<(&str, &str)> = report
        .findings
        .iter()
        .map(|f| (report.docs[f.doc].doc.name.as_str(), f.rule.as_str()))
        .collect();
    assert_eq!(got, [("docs/a.md", "unsupported-literal")]);
}

struct Literals(bool);

impl Needs for Literals {
    fn literals(&self, _doc: DocId) -> bool {
        self.0
    }
}

#[test]
fn literal_support_is_gathered_only_when_asked_for() {
    let fixture = Fixture::build(REPO).unwrap();
    let repo = CodeRepo::discover(fixture.path()).unwrap();
    let head = repo.resolve(&repo.open().unwrap(), "HEAD").unwrap();
    let docs = vec![doc("docs/a.md", "`load()` is in src/cache.rs:2.\n")];
    let cite = CiteRef {
        doc: DocId::new(0),
        index: citegate::model::CiteId::new(0),
    };
    let groups = vec![(
        (head, "src/cache.rs".to_string()),
        vec![(cite, PinSource::Target)],
    )];
    let with = check::gather(&repo, &groups, &docs, head, &Literals(true), &|| {});
    assert_eq!(with[0].support, Some(vec![true]));
    let without = check::gather(&repo, &groups, &docs, head, &Literals(false), &|| {});
    assert_eq!(without[0].support, None);
    assert!(without[0].holds);
}
