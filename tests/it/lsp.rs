//! `citegate lsp` driven over stdio by a real LSP client nobody here wrote: pytest-lsp (pygls,
//! installed by `.ci/run`), running `tests/lsp/test_lsp.py` against a fixture repository whose
//! guide has an invented, a stale and a moved citation, and whose `follow.md` cites code that
//! then moved, changed, went or was renamed (go to definition and lenses follow the content).
//! The CLI's output and `git show` are the oracles there.

use crate::common;

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
    let bin = env!("CARGO_BIN_EXE_citegate");
    common::pytest("lsp", "test_lsp.py", bin, fixture.path(), 20);
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

    /// A repository whose code changed under its doc: go to definition on `src/a.rs:1` opens
    /// the file as it was written (a copy under the Git folder).
    const HOSTILE: &str = "@@@ commit v1 code and a doc
@@@ file src/a.rs
one
two
@@@ file docs/a.md
A is src/a.rs:1.
@@@ commit v2 the line changes
@@@ file src/a.rs
uno
two
";

    fn uri_of(path: &std::path::Path) -> String {
        format!("file://{}", path.display())
    }

    /// The position of the first `needle` in `text` (ASCII text: bytes are characters).
    fn at(text: &str, needle: &str) -> Value {
        let offset = text.find(needle).expect("needle in text");
        let line = text[..offset].matches('\n').count();
        let character = offset - text[..offset].rfind('\n').map_or(0, |i| i + 1);
        json!({"line": line, "character": character + 1})
    }

    fn definition(client: &mut Client, uri: &str, text: &str, needle: &str) -> Value {
        let params = json!({"textDocument": {"uri": uri}, "position": at(text, needle)});
        client.request("textDocument/definition", params)
    }

    /// The local path of a location's URI, canonicalised (every link on the way followed).
    fn real(location: &Value) -> std::path::PathBuf {
        let uri = location["uri"].as_str().unwrap();
        let path = uri.strip_prefix("file://").unwrap();
        std::fs::canonicalize(percent(path)).unwrap()
    }

    fn percent(path: &str) -> String {
        let mut out = Vec::new();
        let b = path.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'%' {
                out.push(u8::from_str_radix(&path[i + 1..i + 3], 16).unwrap());
                i += 3;
            } else {
                out.push(b[i]);
                i += 1;
            }
        }
        String::from_utf8(out).unwrap()
    }

    #[cfg(unix)]
    #[test]
    fn definition_never_leaves_the_repository_through_a_linked_git_folder() {
        let fixture = Fixture::build(HOSTILE).unwrap();
        let root = fixture.path().canonicalize().unwrap();
        // The workspace's `.git` is a link to a folder elsewhere: the copy at the written
        // revision would be written, and opened, there.
        let elsewhere = tempfile::tempdir().unwrap();
        let moved = elsewhere.path().join("git");
        std::fs::rename(root.join(".git"), &moved).unwrap();
        std::os::unix::fs::symlink(&moved, root.join(".git")).unwrap();
        let doc = root.join("docs/a.md");
        let text = std::fs::read_to_string(&doc).unwrap();
        let mut client = Client::start(json!({"textDocument": {"diagnostic": {}}}));
        open(&client, &uri_of(&doc), 1, &text);
        let found = definition(&mut client, &uri_of(&doc), &text, "src/a.rs:1");
        client.stop();
        assert!(
            found.is_null() || real(&found).starts_with(&root),
            "{found}"
        );
        assert!(!moved.join("citegate").exists(), "nothing written outside");
    }

    #[cfg(unix)]
    #[test]
    fn definition_never_follows_a_work_tree_link_or_a_remap_out_of_the_repository() {
        let fixture = Fixture::build(HOSTILE).unwrap();
        let root = fixture.path().canonicalize().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let outside = elsewhere.path().canonicalize().unwrap();
        // The cited file, in the work tree, is a link to a file outside with the same text.
        std::fs::write(outside.join("a.rs"), "uno\ntwo\n").unwrap();
        std::fs::remove_file(root.join("src/a.rs")).unwrap();
        std::os::unix::fs::symlink(outside.join("a.rs"), root.join("src/a.rs")).unwrap();
        let mut client = Client::start(json!({"textDocument": {"diagnostic": {}}}));
        let doc = root.join("docs/a.md");
        let text = "A is src/a.rs:2.\n";
        open(&client, &uri_of(&doc), 1, text);
        let linked = definition(&mut client, &uri_of(&doc), text, "src/a.rs:2");
        // And a remap sends another doc's citations above the repository (a configuration
        // error now, which the server reports; either way no location leaves the repository).
        std::fs::create_dir_all(root.join("up")).unwrap();
        std::fs::write(root.join("up/b.md"), "B is x/a.rs:2.\n").unwrap();
        let config = "remap:\n  - docs: up/\n    repo: ../../\n";
        std::fs::write(root.join(".citegate.yaml"), config).unwrap();
        let up = root.join("up/b.md");
        let text = "B is x/a.rs:2.\n";
        open(&client, &uri_of(&up), 1, text);
        let remapped = definition(&mut client, &uri_of(&up), text, "x/a.rs:2");
        client.stop();
        for found in [&linked, &remapped] {
            assert!(found.is_null() || real(found).starts_with(&root), "{found}");
        }
        // The link's lines are still found: in a copy of the file at the target.
        assert!(!linked.is_null());
    }

    fn hover(client: &mut Client, uri: &str, text: &str, needle: &str) -> String {
        let params = json!({"textDocument": {"uri": uri}, "position": at(text, needle)});
        let found = client.request("textDocument/hover", params);
        found["contents"]["value"]
            .as_str()
            .unwrap_or("")
            .to_string()
    }

    /// The links, images and HTML a Markdown text renders.
    fn live(markdown: &str) -> Vec<String> {
        use pulldown_cmark::{Event, Parser, Tag};
        Parser::new_ext(markdown, pulldown_cmark::Options::all())
            .filter_map(|e| match e {
                Event::Start(t @ (Tag::Link { .. } | Tag::Image { .. })) => Some(format!("{t:?}")),
                Event::Html(h) | Event::InlineHtml(h) => Some(h.to_string()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn hover_renders_no_link_or_image_from_a_doc() {
        let fixture = Fixture::build(HOSTILE).unwrap();
        let root = fixture.path().canonicalize().unwrap();
        let doc = root.join("docs/a.md");
        // A link's path that closes the message's code span, and one that is a link itself.
        let text = "See [k](../src/a`[c](command:workbench.action.quit)`.rs) and \
                    [c](<../src/[c](command:y).rs>).\n";
        let mut client = Client::start(json!({"textDocument": {"diagnostic": {}}}));
        open(&client, &uri_of(&doc), 1, text);
        let spanned = hover(&mut client, &uri_of(&doc), text, "workbench");
        let linked = hover(&mut client, &uri_of(&doc), text, "command:y");
        client.stop();
        for shown in [&spanned, &linked] {
            assert!(!shown.is_empty(), "the citation has a hover");
            assert_eq!(live(shown), Vec::<String>::new(), "{shown}");
        }
        // Shown as text, not dropped.
        assert!(linked.contains("command:y"), "{linked}");
    }

    #[test]
    fn a_hover_of_a_huge_span_is_cut_and_says_so() {
        let fixture = Fixture::build(HOSTILE).unwrap();
        let root = fixture.path().canonicalize().unwrap();
        // 4 MB of lines, committed: the citation cites them all.
        let big: String = (0..40_000).map(|i| format!("{i:099}\n")).collect();
        std::fs::write(root.join("src/big.rs"), &big).unwrap();
        let git = |args: &[&str]| {
            let ok = std::process::Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@t"])
                .args(args)
                .current_dir(&root)
                .status()
                .unwrap();
            assert!(ok.success());
        };
        git(&["add", "src/big.rs"]);
        git(&["commit", "-qm", "big"]);
        let doc = root.join("docs/a.md");
        let text = "All of src/big.rs:1-40000.\n";
        let mut client = Client::start(json!({"textDocument": {"diagnostic": {}}}));
        open(&client, &uri_of(&doc), 1, text);
        let shown = hover(&mut client, &uri_of(&doc), text, "big.rs");
        client.stop();
        assert!(shown.len() < 200_000, "{} bytes", shown.len());
        assert!(shown.contains("cut"), "{}", &shown[shown.len() - 300..]);
        assert!(shown.contains(&format!("{:099}", 0)));
    }

    #[test]
    fn renaming_a_file_out_of_the_repository_gets_no_edit() {
        let fixture = Fixture::build(HOSTILE).unwrap();
        let root = fixture.path().canonicalize().unwrap();
        let mut client = Client::start(json!({"textDocument": {"diagnostic": {}}}));
        let old = uri_of(&root.join("src/a.rs"));
        let rename = |client: &mut Client, new: String| {
            let params = json!({"files": [{"oldUri": old, "newUri": new}]});
            client.request("workspace/willRenameFiles", params)
        };
        // Inside: the citation follows.
        let inside = rename(&mut client, uri_of(&root.join("src/b.rs")));
        assert!(inside.to_string().contains("src/b.rs"), "{inside}");
        let up = rename(&mut client, format!("{}/../elsewhere/a.rs", uri_of(&root)));
        let far = rename(&mut client, "file:///tmp/elsewhere/a.rs".to_string());
        #[cfg(unix)]
        let linked = {
            let elsewhere = tempfile::tempdir().unwrap();
            std::os::unix::fs::symlink(elsewhere.path(), root.join("out")).unwrap();
            let gone = elsewhere.path().join("gone");
            std::os::unix::fs::symlink(&gone, root.join("dangling")).unwrap();
            let dangling = rename(&mut client, uri_of(&root.join("dangling/a.rs")));
            assert_eq!(dangling, Value::Null, "{dangling}");
            rename(&mut client, uri_of(&root.join("out/a.rs")))
        };
        #[cfg(not(unix))]
        let linked = Value::Null;
        client.stop();
        assert_eq!(up, Value::Null, "{up}");
        assert_eq!(far, Value::Null, "{far}");
        assert_eq!(linked, Value::Null, "{linked}");
    }

    #[test]
    fn an_initialize_that_cannot_be_read_is_answered_and_another_awaited() {
        let (server, conn) = Connection::memory();
        let server = std::thread::spawn(move || citegate::lsp::run(&server));
        let mut client = Client {
            conn,
            server: Some(server),
            next: 0,
        };
        let refused = client
            .answer("initialize", json!({"capabilities": 3}))
            .unwrap_err();
        assert_eq!(refused.code, lsp_server::ErrorCode::InvalidParams as i32);
        let ok = client.request("initialize", json!({"capabilities": {}}));
        assert_eq!(ok["serverInfo"]["name"], "citegate");
        client.notify("initialized", json!({}));
        client.stop();
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

/// `citegate lsp` as a process, fed raw bytes on its standard input: the framing.
mod framing {
    use std::io::{BufReader, Write};
    use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

    use citegate::lsp::framing::{read_frame, Frame, MAX_MESSAGE_BYTES};
    use serde_json::{json, Value};

    struct Server {
        child: Child,
        stdin: ChildStdin,
        stdout: BufReader<ChildStdout>,
    }

    impl Server {
        fn start() -> Server {
            let mut child = Command::new(env!("CARGO_BIN_EXE_citegate"))
                .arg("lsp")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let stdin = child.stdin.take().unwrap();
            let stdout = BufReader::new(child.stdout.take().unwrap());
            Server {
                child,
                stdin,
                stdout,
            }
        }

        fn raw(&mut self, bytes: &[u8]) {
            self.stdin.write_all(bytes).unwrap();
            self.stdin.flush().unwrap();
        }

        fn send(&mut self, message: Value) {
            let body = message.to_string();
            self.raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
        }

        /// The next message with an `id` (a response), skipping the server's notifications and
        /// requests.
        fn response(&mut self) -> Value {
            loop {
                let frame = read_frame(&mut self.stdout, MAX_MESSAGE_BYTES).unwrap();
                let Some(Frame::Body(body)) = frame else {
                    panic!("the server stopped or wrote a bad frame: {frame:?}");
                };
                let message: Value = serde_json::from_slice(&body).unwrap();
                if message.get("method").is_none() {
                    return message;
                }
            }
        }

        fn initialize(&mut self) {
            let params = json!({"processId": null, "rootUri": null, "capabilities": {}});
            self.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}));
            assert_eq!(self.response()["id"], 1);
            self.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
        }

        /// The peak memory the server has mapped so far, in kB (Linux): what it allocated,
        /// touched or not.
        fn peak_kb(&self) -> u64 {
            let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()));
            let status = status.unwrap();
            let line = status.lines().find(|l| l.starts_with("VmPeak:")).unwrap();
            line.split_whitespace().nth(1).unwrap().parse().unwrap()
        }
    }

    fn error_of(response: &Value) -> (Value, i64, String) {
        let e = &response["error"];
        let message = e["message"].as_str().unwrap_or("").to_string();
        (response["id"].clone(), e["code"].as_i64().unwrap(), message)
    }

    #[test]
    fn malformed_messages_are_answered_and_the_server_stays_up() {
        let mut server = Server::start();
        server.initialize();
        // No Content-Length.
        server.raw(b"Content-Type: x\r\n\r\n");
        let (id, code, message) = error_of(&server.response());
        assert_eq!((id, code), (Value::Null, -32700), "{message}");
        assert!(message.contains("Content-Length"), "{message}");
        // A header that is no header, and one that is no number.
        server.raw(b"garbage\r\nContent-Length: 2\r\n\r\n{}");
        assert_eq!(error_of(&server.response()).1, -32700);
        server.raw(b"Content-Length: -3\r\n\r\n");
        assert_eq!(error_of(&server.response()).1, -32700);
        // A body that is not JSON, and JSON that is no message (answered with its id).
        server.raw(b"Content-Length: 5\r\n\r\n{oops");
        assert_eq!(error_of(&server.response()).1, -32700);
        server.send(json!({"jsonrpc": "2.0", "id": 7, "params": 3}));
        let (id, code, _) = error_of(&server.response());
        assert_eq!((id, code), (json!(7), -32600));
        // A header line of 1 MB is skipped, not kept.
        let mut long = b"X-Long: ".to_vec();
        long.extend(std::iter::repeat_n(b'a', 1 << 20));
        long.extend(b"\r\nContent-Length: 2\r\n\r\n{}");
        server.raw(&long);
        assert_eq!(error_of(&server.response()).1, -32700);
        // A message over the limit is skipped whole and refused; the next is read.
        let over = MAX_MESSAGE_BYTES + 1;
        server.raw(format!("Content-Length: {over}\r\n\r\n").as_bytes());
        server.raw(&vec![b' '; over]);
        let (id, code, message) = error_of(&server.response());
        assert_eq!((id, code), (Value::Null, -32600), "{message}");
        assert!(message.contains("limit"), "{message}");
        // Still up: a request is answered, and the server exits when told.
        server.send(json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}));
        assert_eq!(server.response()["id"], 2);
        server.send(json!({"jsonrpc": "2.0", "method": "exit"}));
        let status = server.child.wait().unwrap();
        assert!(status.success(), "{status}");
    }

    /// The server's thread count now (Linux).
    fn threads(pid: u32) -> usize {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let line = status.lines().find(|l| l.starts_with("Threads:"));
        line.and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
            .unwrap_or(0)
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_hundred_hovers_after_an_edit_start_no_thread() {
        let fixture = citegate::testing::Fixture::build(super::SPEC).unwrap();
        let guide = fixture.path().canonicalize().unwrap().join("docs/guide.md");
        let uri = format!("file://{}", guide.display());
        let text = std::fs::read_to_string(&guide).unwrap();
        let mut server = Server::start();
        server.initialize();
        let doc = json!({"uri": uri, "languageId": "markdown", "version": 1, "text": text});
        server.send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                           "params": {"textDocument": doc}}));
        let line = text
            .lines()
            .position(|l| l.contains("src/cache.rs:3-5"))
            .unwrap();
        let hover = |id: i64| {
            json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/hover",
            "params": {"textDocument": {"uri": uri},
                       "position": {"line": line, "character": 20}}})
        };
        // One hover first: every pool the server starts once (its workers, the audit's) is up.
        server.send(hover(10));
        assert_eq!(server.response()["id"], 10);
        let before = threads(server.child.id());
        let change = json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"text": format!("{text}\nMore.\n")}]}});
        server.send(change);
        let pid = server.child.id();
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let sampler = {
            let done = done.clone();
            std::thread::spawn(move || {
                let mut peak = 0;
                while !done.load(std::sync::atomic::Ordering::Relaxed) {
                    peak = peak.max(threads(pid));
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                peak
            })
        };
        for id in 100..200 {
            server.send(hover(id));
        }
        let answered: Vec<Value> = (0..100).map(|_| server.response()).collect();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        let peak = sampler.join().unwrap();
        assert!(answered.iter().all(|r| r["result"]["contents"]["value"]
            .as_str()
            .is_some_and(|v| v.contains("src/cache.rs:3-5"))));
        server.send(json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}));
        assert_eq!(server.response()["id"], 2);
        server.send(json!({"jsonrpc": "2.0", "method": "exit"}));
        assert!(server.child.wait().unwrap().success());
        assert!(peak <= before + 2, "{before} threads, then {peak}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_claimed_length_is_not_allocated_before_it_arrives() {
        let mut server = Server::start();
        server.initialize();
        let before = server.peak_kb();
        // 4 GiB claimed: allocated ahead, it maps 4 GiB or aborts the server. A new thread's
        // malloc arena (64 MiB reserved, a few of them) is the only growth allowed.
        server.raw(b"Content-Length: 4294967296\r\n\r\n{\"jsonrpc\"");
        std::thread::sleep(std::time::Duration::from_millis(1000));
        let alive = server.child.try_wait().unwrap().is_none();
        let after = if alive { server.peak_kb() } else { u64::MAX };
        let _ = server.child.kill();
        let _ = server.child.wait();
        assert!(alive, "the server died");
        assert!(
            after < before + 1024 * 1024,
            "peak memory {before} kB -> {after} kB"
        );
    }
}

/// The framing reader over generated bytes (proptest, on stable; FUZZING.md): it never panics,
/// always makes progress, keeps no body over its limit, refuses an oversize message whole and
/// stays in step with the next, and allocates a body only as its bytes arrive (with no limit at
/// all, a claimed length of up to 2^64 - 1 costs nothing: an allocation made ahead would abort
/// the test binary). The unsafe code a counting allocator needs is forbidden here; the process
/// test `framing::a_claimed_length_is_not_allocated_before_it_arrives` reads the memory.
mod framing_properties {
    use std::io::Cursor;

    use citegate::lsp::framing::{decode, read_frame, Frame, MAX_HEADER_LINE_BYTES};
    use proptest::prelude::*;

    /// The body limit of these runs: small, so that claimed lengths dwarf it.
    const MAX: usize = 256;

    const PIECES: &[&str] = &[
        "Content-Length: ",
        "content-length:",
        "Content-Type: application/vscode-jsonrpc; charset=utf-8",
        "0",
        "2",
        "17",
        "300",
        "1073741824",
        "18446744073709551615",
        "18446744073709551616",
        "-1",
        " ",
        ":",
        "\r\n",
        "\n",
        "\r",
        "{}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":null}",
        "{\"id\":[]}",
        "é",
        "\u{0}",
    ];

    fn input() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            3 => prop::sample::select(PIECES).prop_map(|p| p.as_bytes().to_vec()),
            1 => prop::collection::vec(any::<u8>(), 0..24),
            1 => (0..2 * MAX_HEADER_LINE_BYTES).prop_map(|n| vec![b'a'; n]),
        ];
        prop::collection::vec(piece, 0..40).prop_map(|parts| parts.concat())
    }

    /// Every frame of `bytes` read with bodies of at most `max` bytes, checking progress and the
    /// limit (and decoding each body, which must not panic either).
    fn frames(bytes: &[u8], max: usize) -> Vec<Frame> {
        let mut cursor = Cursor::new(bytes);
        let mut out = Vec::new();
        loop {
            let before = cursor.position();
            let Some(frame) = read_frame(&mut cursor, max).unwrap() else {
                break;
            };
            assert!(cursor.position() > before, "no progress at byte {before}");
            if let Frame::Body(body) = &frame {
                assert!(body.len() <= max);
                let _ = decode(body);
            }
            out.push(frame);
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn any_bytes_are_read_without_panic_within_the_limit(bytes in input()) {
            frames(&bytes, MAX);
            // No limit at all: a claimed length is still not allocated ahead of its bytes.
            frames(&bytes, usize::MAX);
        }

        #[test]
        fn a_claimed_length_costs_nothing_until_it_arrives(
            claim in (1u64 << 32)..u64::MAX,
            sent in prop::collection::vec(any::<u8>(), 0..64),
        ) {
            let mut bytes = format!("Content-Length: {claim}\r\n\r\n").into_bytes();
            bytes.extend(&sent);
            // The input ends first: the end of input, whatever the limit.
            prop_assert!(frames(&bytes, usize::MAX).is_empty());
            prop_assert!(frames(&bytes, MAX).is_empty());
        }

        #[test]
        fn oversize_messages_are_refused_whole_and_the_next_is_read(
            sizes in prop::collection::vec(0..3 * MAX, 1..6),
        ) {
            let mut bytes = Vec::new();
            for (i, n) in sizes.iter().enumerate() {
                bytes.extend(format!("Content-Length: {n}\r\n\r\n").as_bytes());
                bytes.extend(std::iter::repeat_n(b'0' + (i % 10) as u8, *n));
            }
            let got = frames(&bytes, MAX);
            prop_assert_eq!(got.len(), sizes.len());
            for (i, (frame, n)) in got.iter().zip(&sizes).enumerate() {
                match frame {
                    Frame::Body(body) => {
                        prop_assert!(*n <= MAX);
                        prop_assert_eq!(body.len(), *n);
                        prop_assert!(body.iter().all(|&b| b == b'0' + (i % 10) as u8));
                    }
                    Frame::Refused(refusal) => {
                        prop_assert!(*n > MAX);
                        let invalid = lsp_server::ErrorCode::InvalidRequest as i32;
                        prop_assert_eq!(refusal.code, invalid);
                    }
                }
            }
        }
    }
}
