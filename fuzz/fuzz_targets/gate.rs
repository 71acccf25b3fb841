//! The gate service on arbitrary input (what a RAG backend may pipe in): one JSON value out,
//! never a panic, and an answer passed only as it was given.
#![no_main]

use std::sync::OnceLock;

use citegate::regenerate::gate::{Gate, Retrieval};
use citegate::resolve::CodeRepo;
use citegate::testing::Fixture;
use libfuzzer_sys::fuzz_target;

fn repo() -> &'static (Fixture, CodeRepo, git2::Oid) {
    static REPO: OnceLock<(Fixture, CodeRepo, git2::Oid)> = OnceLock::new();
    REPO.get_or_init(|| {
        let spec = "@@@ commit v1 code\n@@@ file src/a.rs\npub fn a() -> u32 {\n    1\n}\n";
        let fixture = Fixture::build(spec).expect("fixture");
        let repo = CodeRepo::discover(fixture.path()).expect("repo");
        let head = repo.resolve(&repo.open().expect("open"), "HEAD").expect("HEAD");
        (fixture, repo, head)
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (_, repo, head) = repo();
    let gate = Gate::new(repo, *head, &citegate::audit::Settings::default());
    let g = citegate::regenerate::service::gate_text(&gate, text, Retrieval::Optional, false);
    let out: serde_json::Value = serde_json::from_str(&g.output).expect("one JSON value");
    if g.passed {
        // A byte-order mark before the answer is read past, as editors write one.
        let given = text.trim_start_matches('\u{feff}');
        let given: serde_json::Value = serde_json::from_str(given).expect("a passed answer is JSON");
        assert_eq!(out, given);
    }
});
