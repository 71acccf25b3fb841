//! `citegate lsp`: the audit as a language server over stdio (`lsp-server`, synchronous like the
//! engine). Docs are checked in memory as they are edited, with the same target, configuration
//! and verdicts as `citegate audit` run in their repository; fixes are code actions, a citation
//! shows its lines on hover and "go to definition" opens its content where it is now (or, gone
//! or changed, as it was written); in code files, lenses say who cites the content of a span and
//! renaming a file returns the edits that keep its citations valid.
//!
//! The message loop never checks anything itself: requests run on a fixed pool of workers
//! ([`workers`]) and published diagnostics on a debouncing checker thread, so the editor is never
//! blocked and a burst of requests starts no threads (100 hovers after an edit started 108).

mod analysis;
mod code;
pub mod framing;
mod handlers;
mod place;
mod project;
mod revision;
mod state;
mod suppress;
mod text;

use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::{
    notification::{self as n, Notification as _},
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, CodeLensOptions,
    DiagnosticOptions, DiagnosticServerCapabilities, FileOperationFilter, FileOperationPattern,
    FileOperationRegistrationOptions, HoverProviderCapability, InitializeParams, OneOf,
    PositionEncodingKind, ServerCapabilities, TextDocumentSyncCapability, TextDocumentSyncKind,
    TextDocumentSyncOptions, TextDocumentSyncSaveOptions, Uri,
    WorkspaceFileOperationsServerCapabilities, WorkspaceFoldersServerCapabilities,
    WorkspaceServerCapabilities,
};

pub use analysis::Analysis;
use state::State;
use text::{uri_path, Encoding};

/// The first `initialize` request whose params can be read; one that cannot is answered with
/// an invalid-params error, and the server waits for another (a client's bad message is never
/// the end of the server).
fn initialize_params(connection: &Connection) -> Result<(RequestId, InitializeParams), LspError> {
    loop {
        let (id, params) = connection.initialize_start()?;
        match serde_json::from_value::<InitializeParams>(params) {
            Ok(params) => return Ok((id, params)),
            Err(e) => {
                let why = format!("initialize: the params cannot be read: {e}");
                let refused = Response::new_err(id, ErrorCode::InvalidParams as i32, why);
                let _ = connection.sender.send(Message::Response(refused));
            }
        }
    }
}

/// How long a doc must rest after an edit before it is checked and its diagnostics published.
pub const DEBOUNCE: Duration = Duration::from_millis(250);

/// Why the server stopped before the client said `exit`.
#[derive(Debug, thiserror::Error)]
pub enum LspError {
    /// The client broke the protocol (no `initialize` first, a message after `exit`…).
    #[error("protocol")]
    Protocol(#[from] lsp_server::ProtocolError),
    #[error("standard input or output")]
    Io(#[from] std::io::Error),
}

/// Serve the Language Server Protocol on standard input and output until the client exits.
pub fn serve() -> Result<(), LspError> {
    let (connection, io) = framing::stdio();
    run(&connection)?;
    drop(connection);
    Ok(io.join()?)
}

/// Initialise and run the server on a connection until `shutdown` and `exit`.
pub fn run(connection: &Connection) -> Result<(), LspError> {
    let (id, params) = initialize_params(connection)?;
    let encoding = encoding(&params);
    let result = serde_json::json!({
        "capabilities": capabilities(encoding),
        "serverInfo": {"name": "citegate", "version": env!("CARGO_PKG_VERSION")},
    });
    connection.initialize_finish(id, result)?;
    let pulls = params
        .capabilities
        .text_document
        .as_ref()
        .is_some_and(|t| t.diagnostic.is_some());
    let state = Arc::new(State::new(
        connection.sender.clone(),
        encoding,
        !pulls,
        roots(&params),
    ));
    let settings = params.initialization_options.as_ref();
    if let Some(show) = settings.and_then(suppress::shows_set_aside) {
        state
            .set_aside
            .store(show, std::sync::atomic::Ordering::Relaxed);
    }
    watch_files(&state, &params);
    let (queue, rx) = mpsc::channel::<Uri>();
    let checker = {
        let state = state.clone();
        std::thread::spawn(move || debounce(&state, &rx))
    };
    let (jobs, pool) = pool(&state, workers());
    let result = main_loop(connection, &state, &queue, &jobs);
    drop(queue);
    drop(jobs);
    let _ = checker.join();
    for worker in pool {
        let _ = worker.join();
    }
    result
}

/// How many requests are answered at once: one per core, at least 2 (a slow workspace pass
/// leaves a worker for hovers) and at most 8.
pub fn workers() -> usize {
    let cores = std::thread::available_parallelism().map_or(2, |c| c.get());
    cores.clamp(2, 8)
}

/// `n` workers answering the requests sent on the returned channel, in the order they came.
fn pool(
    state: &Arc<State>,
    n: usize,
) -> (
    crossbeam_channel::Sender<Request>,
    Vec<std::thread::JoinHandle<()>>,
) {
    let (jobs, rx) = crossbeam_channel::unbounded::<Request>();
    let workers = (0..n)
        .map(|_| {
            let (state, rx) = (state.clone(), rx.clone());
            std::thread::spawn(move || {
                for request in rx {
                    let response: Response = handlers::respond(&state, request);
                    let _ = state.sender.send(Message::Response(response));
                }
            })
        })
        .collect();
    (jobs, workers)
}

fn main_loop(
    connection: &Connection,
    state: &Arc<State>,
    queue: &mpsc::Sender<Uri>,
    jobs: &crossbeam_channel::Sender<Request>,
) -> Result<(), LspError> {
    for message in &connection.receiver {
        match message {
            Message::Request(request) => {
                if connection.handle_shutdown(&request)? {
                    return Ok(());
                }
                let _ = jobs.send(request);
            }
            Message::Notification(notification) => notified(state, notification, queue),
            Message::Response(_) => {}
        }
    }
    Ok(())
}

/// What a notification changes; checks it asks for go to the checker thread. Each is decoded
/// as its method's params; one that cannot be is logged to the client (`window/logMessage`),
/// never dropped silently.
fn notified(state: &Arc<State>, n: Notification, queue: &mpsc::Sender<Uri>) {
    let recheck_all = |state: &State| {
        state.forget_analyses();
        for (uri, _) in state.open_docs() {
            let _ = queue.send(uri);
        }
        if !state.push {
            state.ask("workspace/diagnostic/refresh", ());
        }
    };
    Dispatch::new(state, n)
        .on::<n::DidOpenTextDocument>(|state, p| {
            let d = p.text_document;
            if state.set_text(&d.uri, d.version, d.text) {
                let _ = queue.send(d.uri);
            }
        })
        .on::<n::DidChangeTextDocument>(|state, p| {
            // Full sync: the last change holds the whole text.
            let Some(change) = p.content_changes.into_iter().last() else {
                return;
            };
            let d = p.text_document;
            if state.set_text(&d.uri, d.version, change.text) {
                let _ = queue.send(d.uri);
            }
        })
        .on::<n::DidCloseTextDocument>(|state, p| {
            state.close(&p.text_document.uri);
            if state.push {
                state.publish_these(&p.text_document.uri, None, Vec::new());
            }
        })
        .on::<n::DidSaveTextDocument>(|state, p| {
            if is_config(&p.text_document.uri) {
                recheck_all(state);
            }
        })
        .on::<n::DidChangeWatchedFiles>(|state, _| recheck_all(state))
        .on::<n::DidChangeConfiguration>(|state, p| {
            if let Some(show) = suppress::shows_set_aside(&p.settings) {
                state
                    .set_aside
                    .store(show, std::sync::atomic::Ordering::Relaxed);
                recheck_all(state);
            }
        })
        .on::<n::DidChangeWorkspaceFolders>(|state, p| {
            let mut roots = state.roots.lock().expect("roots lock");
            let gone: Vec<PathBuf> = (p.event.removed.iter())
                .filter_map(|f| uri_path(&f.uri))
                .collect();
            roots.retain(|r| !gone.contains(r));
            roots.extend(p.event.added.iter().filter_map(|f| uri_path(&f.uri)));
        });
}

/// A notification on its way to the handler of its method (rust-analyzer's
/// `NotificationDispatcher`): `on::<N>` decodes `N`'s params and runs the handler, or logs why
/// they could not be read. A method no handler takes is ignored, as the protocol allows.
struct Dispatch<'s> {
    state: &'s State,
    pending: Option<Notification>,
}

impl<'s> Dispatch<'s> {
    fn new(state: &'s State, n: Notification) -> Self {
        Dispatch {
            state,
            pending: Some(n),
        }
    }

    fn on<N: n::Notification>(mut self, handle: impl FnOnce(&State, N::Params)) -> Self {
        let Some(n) = self.pending.take_if(|n| n.method == N::METHOD) else {
            return self;
        };
        match serde_json::from_value::<N::Params>(n.params) {
            Ok(params) => handle(self.state, params),
            Err(e) => self.state.notify(
                n::LogMessage::METHOD,
                lsp_types::LogMessageParams {
                    typ: lsp_types::MessageType::WARNING,
                    message: format!(
                        "citegate: {} ignored: its params cannot be read: {e}",
                        N::METHOD
                    ),
                },
            ),
        }
        self
    }
}

fn is_config(uri: &Uri) -> bool {
    uri_path(uri).is_some_and(|p| {
        p.file_name()
            .is_some_and(|n| n == citegate_engine::config::FILE_NAME)
    })
}

/// The checker thread: a doc is checked once no edit of any doc arrived for [`DEBOUNCE`]; an
/// edit arriving meanwhile makes the check's result stale, and it is not published (the newer
/// text is checked next).
fn debounce(state: &State, rx: &mpsc::Receiver<Uri>) {
    let mut pending: Vec<Uri> = Vec::new();
    loop {
        if pending.is_empty() {
            match rx.recv() {
                Ok(uri) => pending.push(uri),
                Err(_) => return,
            }
        }
        match rx.recv_timeout(DEBOUNCE) {
            Ok(uri) => {
                if !pending.contains(&uri) {
                    pending.push(uri);
                }
                continue;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        for uri in std::mem::take(&mut pending) {
            if state.push {
                state.publish(&uri);
            } else {
                // Pulled later: checked now so the pull finds it ready.
                let _ = state.analysis(&uri);
            }
        }
    }
}

/// UTF-8 positions when the client offers them (no conversion), else UTF-16, the default.
fn encoding(params: &InitializeParams) -> Encoding {
    let offered = params
        .capabilities
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref());
    match offered {
        Some(kinds) if kinds.contains(&PositionEncodingKind::UTF8) => Encoding::Utf8,
        _ => Encoding::Utf16,
    }
}

/// The workspace folders (else the root URI).
fn roots(params: &InitializeParams) -> Vec<PathBuf> {
    let folders = params
        .workspace_folders
        .iter()
        .flatten()
        .filter_map(|f| uri_path(&f.uri));
    let mut roots: Vec<PathBuf> = folders.collect();
    #[allow(deprecated)]
    if roots.is_empty() {
        roots.extend(params.root_uri.as_ref().and_then(uri_path));
    }
    roots
}

/// Ask the client to say when docs or configuration files change on disk (a pull, a checkout).
fn watch_files(state: &State, params: &InitializeParams) {
    let dynamic = params
        .capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.did_change_watched_files.as_ref())
        .and_then(|d| d.dynamic_registration)
        .unwrap_or(false);
    if !dynamic {
        return;
    }
    let watchers: Vec<serde_json::Value> = [
        "**/.citegate.yaml",
        "**/*.{md,markdown,json,jsonl}",
        "**/.git/HEAD",
    ]
    .iter()
    .map(|glob| serde_json::json!({"globPattern": glob}))
    .collect();
    state.ask(
        "client/registerCapability",
        serde_json::json!({"registrations": [{
            "id": "citegate-watch",
            "method": n::DidChangeWatchedFiles::METHOD,
            "registerOptions": {"watchers": watchers},
        }]}),
    );
}

fn capabilities(encoding: Encoding) -> ServerCapabilities {
    let kinds = vec![
        CodeActionKind::QUICKFIX,
        CodeActionKind::REFACTOR_REWRITE,
        CodeActionKind::SOURCE_FIX_ALL,
        analysis::fix_all_kind(),
        analysis::suppress_kind(),
    ];
    let rename = FileOperationRegistrationOptions {
        filters: vec![FileOperationFilter {
            scheme: Some("file".to_string()),
            pattern: FileOperationPattern {
                glob: "**/*".to_string(),
                matches: None,
                options: None,
            },
        }],
    };
    ServerCapabilities {
        position_encoding: Some(match encoding {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::FULL),
                save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                ..TextDocumentSyncOptions::default()
            },
        )),
        diagnostic_provider: Some(DiagnosticServerCapabilities::Options(DiagnosticOptions {
            identifier: Some("citegate".to_string()),
            inter_file_dependencies: false,
            workspace_diagnostics: true,
            ..DiagnosticOptions::default()
        })),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(kinds),
            resolve_provider: Some(false),
            ..CodeActionOptions::default()
        })),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        code_lens_provider: Some(CodeLensOptions {
            resolve_provider: Some(false),
        }),
        workspace: Some(WorkspaceServerCapabilities {
            workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                supported: Some(true),
                change_notifications: Some(OneOf::Left(true)),
            }),
            file_operations: Some(WorkspaceFileOperationsServerCapabilities {
                will_rename: Some(rename),
                ..WorkspaceFileOperationsServerCapabilities::default()
            }),
        }),
        ..ServerCapabilities::default()
    }
}
