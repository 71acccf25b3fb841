//! Retrieval at a revision: definition-level chunks ranked by BM25 over identifier-aware tokens,
//! boosted by the paths a query names, with the index cached on disk by tree ID.

use crate::common;
use assert_cmd::Command;
use citegate::resolve::CodeRepo;
use citegate::retrieve::{cache, Index, Query};
use citegate::testing::Fixture;

const SPEC: &str = "@@@ commit v1 code
@@@ file src/config.rs
use std::fs;

pub fn load_config(path: &str) -> String {
    fs::read_to_string(path).unwrap_or_default()
}

pub fn unrelated() -> u32 {
    7
}
@@@ file src/cache.rs
pub fn get_entry(key: &str) -> Option<String> {
    let _ = key;
    None
}
@@@ file docs/guide.md
# Caching

How entries are kept.

# Configuration

Where the config file is read.
";

fn index(fixture: &Fixture) -> (CodeRepo, Index) {
    let repo = CodeRepo::discover(fixture.path()).unwrap();
    let head = repo.resolve(&repo.open().unwrap(), "HEAD").unwrap();
    let index = Index::at(&repo, head).unwrap();
    (repo, index)
}

fn top(index: &Index, query: &Query, k: usize) -> Vec<String> {
    index
        .search(query, k)
        .iter()
        .map(|h| {
            let c = &index.chunks[h.chunk];
            format!("{}:{}-{}", c.path, c.start, c.end)
        })
        .collect()
}

fn query(text: &str) -> Query {
    Query {
        text: text.into(),
        ..Query::default()
    }
}

/// [`query`], docs retrieved too (`retrieve-docs: true`).
fn with_docs(text: &str) -> Query {
    Query {
        docs: true,
        ..query(text)
    }
}

#[test]
fn a_camel_case_query_finds_the_snake_case_function() {
    let fixture = Fixture::build(SPEC).unwrap();
    let (repo, index) = index(&fixture);
    let hits = index.search(&query("where is loadConfig"), 1);
    let chunk = &index.chunks[hits[0].chunk];
    assert_eq!(
        (
            chunk.path.as_str(),
            chunk.start,
            chunk.end,
            chunk.symbol.as_deref()
        ),
        ("src/config.rs", 3, 5, Some("load_config"))
    );
    let text = index.text(&repo, hits[0].chunk).unwrap();
    assert!(text.starts_with("pub fn load_config(path: &str)"));
    // Markdown is cut by heading.
    assert_eq!(
        top(&index, &with_docs("caching entries"), 1),
        ["docs/guide.md:1-3"]
    );
}

#[test]
fn paths_named_by_the_query_rank_first_and_excluded_ones_never_come_back() {
    let fixture = Fixture::build(SPEC).unwrap();
    let (_, index) = index(&fixture);
    let plain = top(&index, &query("config"), 2);
    assert_eq!(plain[0], "src/config.rs:3-5");
    let boosted = Query {
        paths: vec!["docs/guide.md".into()],
        ..with_docs("config")
    };
    assert_eq!(top(&index, &boosted, 1), ["docs/guide.md:5-7"]);
    let excluded = Query {
        exclude: std::sync::Arc::new(["src/config.rs".to_string()].into()),
        ..query("config")
    };
    assert!(top(&index, &excluded, 10)
        .iter()
        .all(|h| !h.starts_with("src/config.rs")));
}

#[test]
fn the_index_is_cached_by_tree_and_a_broken_cache_is_rebuilt() {
    let fixture = Fixture::build(SPEC).unwrap();
    let (repo, first) = index(&fixture);
    let file = cache::path(&repo.git_dir, first.tree);
    assert!(file.exists(), "written under the Git folder");
    // The cache is what a second run reads: an entry planted in it is found.
    let mut entries = cache::load(&repo.git_dir, first.tree, |_| true).unwrap();
    entries[0].terms = "plantedmarker".into();
    cache::store(&repo.git_dir, first.tree, &entries).unwrap();
    let (_, second) = index(&fixture);
    assert_eq!(second.search(&with_docs("plantedMarker"), 1).len(), 1);
    // A cache that cannot be read is rebuilt, not trusted.
    std::fs::write(&file, "{not json").unwrap();
    let (_, third) = index(&fixture);
    assert_eq!(third.chunks, first.chunks);
    let why = third.rejected_cache.as_deref().unwrap_or_default();
    assert!(
        why.ends_with("not a citegate index of this version: rebuilt"),
        "{why}"
    );
    assert!(cache::load(&repo.git_dir, first.tree, |_| true).is_ok());
    // The command says so.
    std::fs::write(&file, "{not json").unwrap();
    let out = Command::cargo_bin("citegate")
        .unwrap()
        .args(["retrieve", "cache"])
        .current_dir(fixture.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("warning: retrieval cache"), "{stderr}");
    assert!(
        stderr.contains("not a citegate index of this version: rebuilt"),
        "{stderr}"
    );
}

#[test]
fn the_retrieve_command_prints_chunks_with_their_lines() {
    let fixture = Fixture::build(SPEC).unwrap();
    let out = common::command(fixture.path())
        .args(["retrieve", "get entry", "-k", "1", "--show"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("src/cache.rs:1-4  "), "{text}");
    assert!(text.contains("get_entry\n     1 | pub fn get_entry(key: &str) -> Option<String> {\n"));
}

/// Issue 20: docs (a Markdown page, an answer file) are never retrieved unless asked for
/// (`retrieve-docs: true`): a model grounded in a wiki page cites the wiki, not the code.
#[test]
fn docs_are_never_retrieved_unless_asked_for() {
    let spec = format!(
        "{SPEC}@@@ file answers/a.json\n{{\"summary\": \"Where the config file is read\", \"citations\": []}}\n"
    );
    let fixture = Fixture::build(&spec).unwrap();
    let (_, index) = index(&fixture);
    let found = top(&index, &query("where the config file is read"), 20);
    assert!(!found.is_empty());
    assert!(
        found.iter().all(|c| c.starts_with("src/")),
        "a doc was retrieved: {found:?}"
    );
    let found = top(&index, &with_docs("where the config file is read"), 20);
    assert!(
        found.iter().any(|c| c.starts_with("docs/guide.md")),
        "{found:?}"
    );
    assert!(
        found.iter().any(|c| c.starts_with("answers/a.json")),
        "{found:?}"
    );
}

#[test]
fn an_index_built_for_its_queries_ranks_them_as_the_whole_index_does() {
    let fixture = Fixture::build(SPEC).unwrap();
    let (repo, whole) = index(&fixture);
    let queries = [
        query("loadConfig path"),
        query("get entry key"),
        Query {
            literals: vec!["read_to_string".into()],
            ..with_docs("config file")
        },
    ];
    let terms: Vec<String> = queries.iter().map(Query::terms).collect();
    let vocabulary = terms.iter().flat_map(|t| t.split(' ')).collect();
    let only = Index::for_terms(&repo, whole.commit, &vocabulary).unwrap();
    for q in &queries {
        let (a, b) = (whole.search(q, 10), only.search(q, 10));
        assert!(!a.is_empty());
        assert_eq!(a, b, "{q:?}");
    }
    // A token outside the vocabulary has no postings there.
    assert!(only.search(&query("unrelated"), 10).is_empty());
    assert!(!whole.search(&query("unrelated"), 10).is_empty());
}
