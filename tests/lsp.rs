//! `citegate lsp` driven over stdio by a real LSP client nobody here wrote: pytest-lsp (pygls,
//! installed by `.ci/run`), running `tests/lsp/test_lsp.py` against a fixture repository whose
//! guide has an invented, a stale and a moved citation, and whose `follow.md` cites code that
//! then moved, changed, went or was renamed (go to definition and lenses follow the content).
//! The CLI's output and `git show` are the oracles there.
#![cfg(feature = "lsp")]

use std::process::Command;

use citegate::testing::Fixture;

const SPEC: &str = "@@@ remote origin https://github.com/acme/shop.git
@@@ commit v1 code and a guide written against it
@@@ file src/cache.rs
pub const TTL_SECONDS: u64 = 30;

pub fn ttl() -> u64 {
    TTL_SECONDS
}
@@@ file src/old.rs
pub fn old() {}
@@@ file docs/guide.md
# Guide

The TTL is set in src/cache.rs:1.

The getter is src/cache.rs:3-5.

Invented: src/nowhere.rs:3.

The old helper is src/old.rs:1.
@@@ file src/shop.rs
pub fn total(items: &[u32]) -> u32 {
    items.iter().sum()
}
@@@ file src/price.rs
pub fn price() -> u32 {
    10
}
@@@ file src/legacy.rs
// Legacy pricing.
pub fn legacy() -> u32 {
    7
}
@@@ file src/util.rs
pub fn half(x: u32) -> u32 {
    x / 2
}
@@@ file src/tax.rs
pub fn tax(x: u32) -> u32 {
    x / 5
}
@@@ file docs/follow.md
# Following the content

The total is src/shop.rs:1-3.

The price is src/price.rs:1-3.

The legacy price is src/legacy.rs:2-4.

Halving is src/util.rs:1-3.

Tax is src/tax.rs:1-3.

Nothing is at src/util.rs:40.

The whole [shop](../src/shop.rs).
@@@ commit v2 the code moves under the guide
@@@ file src/cache.rs
// Cache settings.
// Shared by every handler.
pub const TTL_SECONDS: u64 = 30;

pub fn ttl() -> u64 {
    TTL_SECONDS * 2
}
@@@ file src/shop.rs
// Totals.
// Summed in cents.
pub fn total(items: &[u32]) -> u32 {
    items.iter().sum()
}
@@@ file src/price.rs
pub fn price() -> u32 {
    12
}
@@@ delete src/legacy.rs
@@@ delete src/tax.rs
@@@ file src/vat.rs
pub fn tax(x: u32) -> u32 {
    x / 5
}
@@@ file answers/a.json
{\"summary\": \"The TTL lives in src/ttl.rs.\", \"citations\": [{\"path\": \"src/ttl.rs\", \"startLine\": 1, \"endLine\": 1, \"quote\": \"TTL\"}]}
";

#[test]
fn a_real_lsp_client_sees_the_cli_verdicts() {
    let fixture = Fixture::build(SPEC).unwrap();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/lsp");
    let out = Command::new("python3")
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .args(["-o", "asyncio_mode=auto"])
        .args(["-o", "asyncio_default_fixture_loop_scope=function"])
        .arg(format!("--rootdir={dir}"))
        .arg(format!("{dir}/test_lsp.py"))
        .env("CITEGATE_BIN", env!("CARGO_BIN_EXE_citegate"))
        .env("CITEGATE_REPO", fixture.path())
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "pytest-lsp failed (is `pytest-lsp` installed? .ci/run installs it):\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Every test ran: none skipped or deselected.
    assert!(stdout.contains("15 passed"), "{stdout}");
}

/// The server in this process over an in-memory connection: the handlers without a subprocess.
mod in_process {
    use std::time::Duration;

    use citegate::testing::Fixture;
    use lsp_server::{Connection, Message, Notification, Request, RequestId};
    use serde_json::{json, Value};

    struct Client {
        conn: Connection,
        server: Option<std::thread::JoinHandle<Result<(), citegate::lsp::LspError>>>,
        next: i32,
    }

    impl Client {
        fn start(capabilities: Value) -> Client {
            let (server, conn) = Connection::memory();
            let server = std::thread::spawn(move || citegate::lsp::run(&server));
            let mut client = Client {
                conn,
                server: Some(server),
                next: 0,
            };
            client.request("initialize", json!({"capabilities": capabilities}));
            client.notify("initialized", json!({}));
            client
        }

        fn notify(&self, method: &str, params: Value) {
            let n = Notification::new(method.to_string(), params);
            self.conn.sender.send(Message::Notification(n)).unwrap();
        }

        /// Send a request and wait for its answer (other messages meanwhile are dropped).
        fn request(&mut self, method: &str, params: Value) -> Value {
            self.answer(method, params)
                .unwrap_or_else(|e| panic!("{method}: {e:?}"))
        }

        fn answer(
            &mut self,
            method: &str,
            params: Value,
        ) -> Result<Value, lsp_server::ResponseError> {
            self.next += 1;
            let id = RequestId::from(self.next);
            let r = Request::new(id.clone(), method.to_string(), params);
            self.conn.sender.send(Message::Request(r)).unwrap();
            loop {
                match self
                    .conn
                    .receiver
                    .recv_timeout(Duration::from_secs(60))
                    .unwrap()
                {
                    Message::Response(r) if r.id == id => return r.response_result,
                    _ => {}
                }
            }
        }

        /// The next diagnostics published for `uri`.
        fn published(&self, uri: &str) -> Value {
            loop {
                let m = self.conn.receiver.recv_timeout(Duration::from_secs(60));
                if let Message::Notification(n) = m.unwrap() {
                    if n.method == "textDocument/publishDiagnostics" && n.params["uri"] == uri {
                        return n.params;
                    }
                }
            }
        }

        fn stop(mut self) {
            self.request("shutdown", Value::Null);
            self.notify("exit", Value::Null);
            let server = self.server.take().unwrap();
            let stopped = server.join().unwrap();
            assert!(stopped.is_ok(), "{stopped:?}");
        }
    }

    fn open(client: &Client, uri: &str, version: i32, text: &str) {
        let doc = json!({"uri": uri, "languageId": "markdown", "version": version, "text": text});
        client.notify("textDocument/didOpen", json!({"textDocument": doc}));
    }

    fn codes(published: &Value) -> Vec<String> {
        let mut out: Vec<String> = (published["diagnostics"].as_array().unwrap().iter())
            .map(|d| d["code"].as_str().unwrap().to_string())
            .collect();
        out.sort();
        out
    }

    #[test]
    fn edits_in_quick_succession_publish_the_last_text_only() {
        let fixture = Fixture::build(super::SPEC).unwrap();
        let guide = fixture.path().join("docs/guide.md").canonicalize().unwrap();
        let uri = format!("file://{}", guide.display());
        let client = Client::start(json!({}));
        let text = std::fs::read_to_string(&guide).unwrap();
        open(&client, &uri, 1, &text);
        // Within the debounce: only version 3 is ever checked and published.
        let change = |version: i32, text: &str| {
            let params = json!({
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": text}],
            });
            client.notify("textDocument/didChange", params);
        };
        change(2, &text.replace("src/nowhere.rs:3", "src/old.rs:1"));
        change(3, &text.replace("src/nowhere.rs:3", "src/gone.rs:1"));
        let published = client.published(&uri);
        assert_eq!(published["version"], 3);
        assert_eq!(
            codes(&published),
            ["invented-path", "stale-changed", "stale-moved"]
        );
        let message = published["diagnostics"].as_array().unwrap().iter();
        let invented = message
            .filter(|d| d["code"] == "invented-path")
            .map(|d| d["message"].as_str().unwrap())
            .collect::<Vec<_>>();
        assert!(invented[0].contains("src/gone.rs"), "{invented:?}");
        client.stop();
    }

    #[test]
    fn a_copy_at_a_revision_under_the_git_folder_is_no_doc() {
        let fixture = Fixture::build(super::SPEC).unwrap();
        let root = fixture.path().canonicalize().unwrap();
        let guide = std::fs::read_to_string(root.join("docs/guide.md")).unwrap();
        // Where go to definition writes a doc's content at a revision.
        let copy = root.join(".git/citegate/rev/0123/docs/guide.md");
        std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
        std::fs::write(&copy, &guide).unwrap();
        let mut client = Client::start(json!({"textDocument": {"diagnostic": {}}}));
        let pull = |client: &mut Client, uri: &str| {
            let params = json!({"textDocument": {"uri": uri}});
            client.request("textDocument/diagnostic", params)["items"].clone()
        };
        let uri = format!("file://{}", copy.display());
        open(&client, &uri, 1, &guide);
        assert_eq!(pull(&mut client, &uri), json!([]));
        // The same text as the work tree's doc is checked.
        let uri = format!("file://{}", root.join("docs/guide.md").display());
        open(&client, &uri, 1, &guide);
        assert_eq!(pull(&mut client, &uri).as_array().unwrap().len(), 3);
        client.stop();
    }

    #[test]
    fn a_doc_outside_any_repository_and_unknown_requests_are_answered() {
        let dir = tempfile::tempdir().unwrap();
        let doc = dir.path().canonicalize().unwrap().join("notes.md");
        std::fs::write(&doc, "see src/a.rs:1\n").unwrap();
        let uri = format!("file://{}", doc.display());
        let mut client = Client::start(json!({"textDocument": {"diagnostic": {}}}));
        open(&client, &uri, 1, "see src/a.rs:1\n");
        let pulled = client.request(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": uri}}),
        );
        assert_eq!(pulled["items"], json!([]));
        let hover = client.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 5}}),
        );
        assert_eq!(hover, Value::Null);
        let unknown = client
            .answer("textDocument/unheardOf", json!({}))
            .unwrap_err();
        assert_eq!(unknown.code, lsp_server::ErrorCode::MethodNotFound as i32);
        let bad = client
            .answer("textDocument/hover", json!({"position": 3}))
            .unwrap_err();
        assert_eq!(bad.code, lsp_server::ErrorCode::InvalidParams as i32);
        client.stop();
    }
}
