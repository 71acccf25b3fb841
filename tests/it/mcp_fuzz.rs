//! The MCP tools fuzzed on stable (issue 32): arbitrary JSON argument objects, built from the
//! tools' own parameter names and values of every JSON type (long strings, paths that leave the
//! repository, huge and negative numbers, nesting), sent to each tool in process through
//! `Server::call`, the route a client's call takes. What must hold: no panic, and an error or a
//! reply within `MAX_REPLY_BYTES` (a reply one JSON value). More cases: `PROPTEST_CASES=10000
//! cargo test --release --test mcp_fuzz`.

use std::sync::OnceLock;

use citegate::mcp::{Server, MAX_REPLY_BYTES};
use citegate::testing::Fixture;
use proptest::prelude::*;
use serde_json::{json, Map, Value};

use crate::mcp::SPEC;

/// Every tool's parameter names, and a few no tool has.
const KEYS: &[&str] = &[
    "answer",
    "answer_json",
    "retrieved",
    "no_retrieval",
    "revision",
    "paths",
    "text",
    "path",
    "start_line",
    "end_line",
    "quote",
    "question",
    "k",
    "summary",
    "citations",
    "startLine",
    "",
];

/// Strings the tools give meaning to, and ones that break parsers.
const STRINGS: &[&str] = &[
    "src/cache.rs",
    "docs",
    "docs/ttl.md",
    "docs/new.md",
    "answer.json",
    "../../etc/passwd",
    "/etc",
    "HEAD",
    "v1",
    "HEAD~9",
    "pub const TTL_SECONDS: u64 = 30;",
    "TTL",
    "{\"summary\": \"s\", \"citations\": [{\"path\": \"src/cache.rs\", \"startLine\": 2}]}",
    "{not json",
    "src/cache.rs:2",
    "\u{202e}\u{0}\n\r\t",
    "é",
    "",
];

/// The fixture repository, built once for every case.
fn server() -> &'static Server {
    static SERVER: OnceLock<(Fixture, Server)> = OnceLock::new();
    let (_, server) = SERVER.get_or_init(|| {
        let fixture = Fixture::build(SPEC).unwrap();
        let server = Server::new(fixture.path().to_path_buf());
        (fixture, server)
    });
    server
}

fn a_string() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(STRINGS).prop_map(str::to_string),
        "[a-z/._ {}\\[\\]\":,0-9-]{0,40}",
        // Long enough to need cutting if echoed.
        (prop::sample::select(STRINGS), 1usize..40_000)
            .prop_map(|(s, n)| s.repeat(n.min(200_000 / (s.len() + 1)))),
    ]
}

fn a_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-3i64..100).prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        a_string().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..6).prop_map(|kv| {
                Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
            }),
        ]
    })
}

/// An arguments object: some of the parameter names (and a few others), any values.
fn arguments() -> impl Strategy<Value = Value> {
    prop::collection::vec((prop::sample::select(KEYS), a_value()), 0..5).prop_map(|kv| {
        let map: Map<String, Value> = kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        Value::Object(map)
    })
}

fn a_line() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-2i64..20).prop_map(Value::from),
        any::<i64>().prop_map(Value::from)
    ]
}

/// A citation object as answers carry them, its fields each maybe absent or odd.
fn a_citation() -> impl Strategy<Value = Value> {
    (a_string(), a_line(), a_line(), a_string(), a_value()).prop_map(|(path, start, end, quote, odd)| {
        json!({"path": path, "startLine": start, "endLine": end, "quote": quote, "odd": odd})
    })
}

/// Arguments of the types `tool` reads (each one maybe absent), so that most cases reach the
/// tool itself, not only the reading of its arguments.
fn typed(tool: &'static str) -> BoxedStrategy<Value> {
    let maybe = |v: BoxedStrategy<Value>| prop::option::weighted(0.6, v).boxed();
    let strings = || {
        prop::collection::vec(a_string(), 0..4)
            .prop_map(|v| json!(v))
            .boxed()
    };
    let string = || a_string().prop_map(Value::from).boxed();
    let fields: Vec<(&str, BoxedStrategy<Option<Value>>)> = match tool {
        "check_answer" => vec![
            ("answer", maybe(prop_oneof![
                (a_string(), prop::collection::vec(a_citation(), 0..6))
                    .prop_map(|(summary, citations)| json!({"summary": summary, "citations": citations})),
                a_value(),
            ].boxed())),
            ("answer_json", maybe(string())),
            ("retrieved", maybe(prop::collection::vec(
                (a_string(), a_line(), a_line()).prop_map(|(p, s, e)| json!({"path": p, "start_line": s, "end_line": e})),
                0..4,
            ).prop_map(Value::Array).boxed())),
            ("no_retrieval", maybe(any::<bool>().prop_map(Value::from).boxed())),
            ("revision", maybe(string())),
        ],
        "check_docs" => vec![
            ("paths", maybe(strings())),
            ("text", maybe(string())),
            ("path", maybe(string())),
        ],
        "cite" => vec![
            ("path", maybe(string())),
            ("start_line", maybe(a_line().boxed())),
            ("end_line", maybe(a_line().boxed())),
            ("quote", maybe(string())),
            ("revision", maybe(string())),
        ],
        _ => vec![
            ("question", maybe(string())),
            ("k", maybe(prop_oneof![(0u64..30).prop_map(Value::from), any::<u64>().prop_map(Value::from)].boxed())),
        ],
    };
    let (keys, values): (Vec<&str>, Vec<_>) = fields.into_iter().unzip();
    values
        .prop_map(move |values| {
            let set = keys
                .iter()
                .zip(values)
                .filter_map(|(k, v)| Some((k.to_string(), v?)));
            Value::Object(set.collect())
        })
        .boxed()
}

/// A tool and its arguments: mostly of the types it reads, else anything.
fn a_call() -> impl Strategy<Value = (&'static str, Value)> {
    prop::sample::select(&["check_answer", "check_docs", "cite", "retrieve"][..])
        .prop_flat_map(|tool| (Just(tool), prop_oneof![3 => typed(tool), 1 => arguments()]))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_tool_answers_any_arguments_within_the_budget(
        (tool, arguments) in a_call(),
    ) {
        let called: String = arguments.to_string().chars().take(300).collect();
        let reply = server().call(tool, arguments);
        if let Ok(text) = &reply {
            let one: Result<Value, _> = serde_json::from_str(text);
            prop_assert!(one.is_ok(), "{tool} {called}: not one JSON value");
        }
        let (Ok(text) | Err(text)) = reply;
        prop_assert!(text.len() <= MAX_REPLY_BYTES, "{tool} {called}: {} bytes", text.len());
    }
}
