//! What the server holds between messages: the open docs, their last check, and the
//! repositories (one [`Project`] per work tree, found from each doc's folder).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use lsp_server::{Message, Notification, Request, RequestId};
use lsp_types::{Diagnostic, DiagnosticSeverity, Position, PublishDiagnosticsParams, Range, Uri};

use super::analysis::Analysis;
use super::project::{Project, Snapshot};
use super::text::{uri_path, Encoding};
use citegate_engine::model::DocKind;

/// An open doc: its buffer as last sent.
#[derive(Clone)]
pub(super) struct Open {
    pub version: i32,
    pub path: PathBuf,
    pub kind: DocKind,
    pub text: Arc<String>,
}

pub(super) struct State {
    pub sender: crossbeam_channel::Sender<Message>,
    pub encoding: Encoding,
    /// Publish diagnostics (the client does not pull them).
    pub push: bool,
    pub roots: Mutex<Vec<PathBuf>>,
    /// By URI text (a `Uri` caches its parts inside: not a key).
    docs: Mutex<HashMap<String, (Uri, Open)>>,
    /// By URI text: the check of one version of the doc, against one snapshot, made once and
    /// shared by every request that asks for it meanwhile (100 hovers after an edit wait for one
    /// check, not 100). Only the [`KEPT_CHECKS`] docs used last keep theirs: a check is most of
    /// what an open doc costs (its one-doc report, some 18x the doc's text), so the others are
    /// checked again when next asked about.
    analyses: Mutex<HashMap<String, Shared>>,
    /// A clock of uses, for [`KEPT_CHECKS`].
    uses: AtomicU64,
    projects: Mutex<HashMap<PathBuf, Arc<Project>>>,
    next_id: AtomicI32,
    /// Publish the findings that do not count, greyed out (the client's `suppressed` setting:
    /// `show`, the default, or `hide`).
    pub set_aside: AtomicBool,
}

/// How many open docs keep their last check between requests (those used last). 100 open docs
/// of 3,000 citations kept 363 MiB with every check kept, 82 MiB with none (BENCHMARKS.md).
pub(super) const KEPT_CHECKS: usize = 16;

/// The check of a doc's version against a snapshot: made by the first request that needs it,
/// waited for by the others.
#[derive(Clone)]
struct Shared {
    version: i32,
    snapshot: Arc<Snapshot>,
    analysis: Arc<OnceLock<Arc<Analysis>>>,
    /// When it was last asked for (of [`State::uses`]).
    used: Arc<AtomicU64>,
}

/// Why a doc has no analysis.
pub(super) enum Unchecked {
    /// Not a doc citegate reads (not open, not Markdown or JSON, outside any repository, or
    /// left out by the configuration).
    NotADoc,
    /// Its repository could not be checked (a broken configuration, a target that does not
    /// resolve): the command line's message.
    Failed(String),
}

impl State {
    pub(super) fn new(
        sender: crossbeam_channel::Sender<Message>,
        encoding: Encoding,
        push: bool,
        roots: Vec<PathBuf>,
    ) -> State {
        State {
            sender,
            encoding,
            push,
            roots: Mutex::new(roots),
            docs: Mutex::default(),
            analyses: Mutex::default(),
            uses: AtomicU64::new(0),
            projects: Mutex::default(),
            next_id: AtomicI32::new(1),
            set_aside: AtomicBool::new(true),
        }
    }

    pub(super) fn open(&self, uri: &Uri) -> Option<Open> {
        let docs = self.docs.lock().expect("docs lock");
        docs.get(uri.as_str()).map(|(_, open)| open.clone())
    }

    /// Every open doc, by URI (sorted, for a deterministic order).
    pub(super) fn open_docs(&self) -> Vec<(Uri, Open)> {
        let docs = self.docs.lock().expect("docs lock");
        let mut out: Vec<(Uri, Open)> = docs.values().cloned().collect();
        out.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
        out
    }

    /// A doc's new text. Returns whether it is a doc citegate reads (Markdown, JSON).
    pub(super) fn set_text(&self, uri: &Uri, version: i32, text: String) -> bool {
        let Some(path) = uri_path(uri) else {
            return false;
        };
        let Some(kind) = DocKind::from_path(&path) else {
            return false;
        };
        // Inside a Git folder: a file as it was at a revision (go to definition writes those
        // under `.git/citegate/rev/`), not a doc of the work tree to check against the target.
        if path.components().any(|c| c.as_os_str() == ".git") {
            return false;
        }
        if let Some(project) = self.project_of(&path) {
            project.forget_index();
        }
        let open = Open {
            version,
            path,
            kind,
            text: Arc::new(text),
        };
        self.docs
            .lock()
            .expect("docs lock")
            .insert(uri.as_str().to_string(), (uri.clone(), open));
        true
    }

    pub(super) fn close(&self, uri: &Uri) {
        let closed = self.docs.lock().expect("docs lock").remove(uri.as_str());
        if let Some((_, open)) = closed {
            if let Some(project) = self.project_of(&open.path) {
                project.forget_index();
            }
        }
        self.analyses
            .lock()
            .expect("analyses lock")
            .remove(uri.as_str());
    }

    /// The project (repository work tree) holding `path`: the nearest folder up with a `.git`.
    pub(super) fn project_of(&self, path: &Path) -> Option<Arc<Project>> {
        let root = path.ancestors().skip(1).find(|d| d.join(".git").exists())?;
        let mut projects = self.projects.lock().expect("projects lock");
        let project = projects
            .entry(root.to_path_buf())
            .or_insert_with(|| Arc::new(Project::new(root.to_path_buf())));
        Some(project.clone())
    }

    /// Every project met so far.
    pub(super) fn projects(&self) -> Vec<Arc<Project>> {
        let projects = self.projects.lock().expect("projects lock");
        let mut out: Vec<Arc<Project>> = projects.values().cloned().collect();
        out.sort_by(|a, b| a.root.cmp(&b.root));
        out
    }

    /// The open buffers of docs, by path, standing for their files (shared, not copied: asked
    /// for by every lens and rename request, and read only when the index is built again).
    pub(super) fn buffers(&self) -> HashMap<PathBuf, (DocKind, Arc<String>)> {
        let docs = self.docs.lock().expect("docs lock");
        docs.values()
            .map(|(_, o)| (o.path.clone(), (o.kind, o.text.clone())))
            .collect()
    }

    /// The check of an open doc's current text: the last one when its version is the same,
    /// else a new one (kept when the doc has not changed meanwhile).
    pub(super) fn analysis(&self, uri: &Uri) -> Result<Arc<Analysis>, Unchecked> {
        let open = self.open(uri).ok_or(Unchecked::NotADoc)?;
        let project = self.project_of(&open.path).ok_or(Unchecked::NotADoc)?;
        let snapshot = project.snapshot().map_err(Unchecked::Failed)?;
        if !project.wants(&snapshot, &open.path) {
            return Err(Unchecked::NotADoc);
        }
        let shared = self.shared(uri, &open, snapshot);
        let analysis = shared.analysis.get_or_init(|| {
            let checked = Project::check(
                shared.snapshot.clone(),
                &open.path,
                open.kind,
                open.text.to_string(),
            );
            Arc::new(Analysis {
                version: Some(open.version),
                checked,
            })
        });
        Ok(analysis.clone())
    }

    /// The shared check of `open` (a doc's version) against `snapshot`: the one known when it is
    /// for both, else a new one, kept for the requests to come unless the doc changed since.
    fn shared(&self, uri: &Uri, open: &Open, snapshot: Arc<Snapshot>) -> Shared {
        let now = self.uses.fetch_add(1, Ordering::Relaxed) + 1;
        let mut analyses = self.analyses.lock().expect("analyses lock");
        let known = analyses
            .get(uri.as_str())
            .filter(|s| s.version == open.version && Arc::ptr_eq(&s.snapshot, &snapshot));
        if let Some(known) = known {
            known.used.store(now, Ordering::Relaxed);
            return known.clone();
        }
        let fresh = Shared {
            version: open.version,
            snapshot,
            analysis: Arc::default(),
            used: Arc::new(AtomicU64::new(now)),
        };
        if self.open(uri).is_some_and(|o| o.version == open.version) {
            analyses.insert(uri.as_str().to_string(), fresh.clone());
            keep_last_used(&mut analyses);
        }
        fresh
    }

    /// An open doc's diagnostics now: its findings, or one error saying why it could not be
    /// checked (never none in silence).
    pub(super) fn diagnostics(&self, uri: &Uri) -> (Option<i32>, Vec<Diagnostic>) {
        match self.analysis(uri) {
            Ok(a) => (
                a.version,
                a.diagnostics(self.encoding, self.shows_set_aside()),
            ),
            Err(Unchecked::NotADoc) => (None, Vec::new()),
            Err(Unchecked::Failed(message)) => {
                let version = self.open(uri).map(|o| o.version);
                (version, vec![failure(message)])
            }
        }
    }

    /// Whether findings that do not count are published, greyed out.
    pub(super) fn shows_set_aside(&self) -> bool {
        self.set_aside.load(Ordering::Relaxed)
    }

    /// Check an open doc and publish its diagnostics, unless it changed while it was checked
    /// (the newer text is checked next).
    pub(super) fn publish(&self, uri: &Uri) {
        let Some(open) = self.open(uri) else {
            return;
        };
        let (_, diagnostics) = self.diagnostics(uri);
        if self.open(uri).is_some_and(|o| o.version == open.version) {
            self.publish_these(uri, Some(open.version), diagnostics);
        }
    }

    pub(super) fn publish_these(
        &self,
        uri: &Uri,
        version: Option<i32>,
        diagnostics: Vec<Diagnostic>,
    ) {
        let params = PublishDiagnosticsParams {
            uri: uri.clone(),
            diagnostics,
            version,
        };
        self.notify("textDocument/publishDiagnostics", params);
    }

    pub(super) fn notify(&self, method: &str, params: impl serde::Serialize) {
        let n = Notification::new(method.to_string(), params);
        let _ = self.sender.send(Message::Notification(n));
    }

    /// A request to the client (its answer is not waited for).
    pub(super) fn ask(&self, method: &str, params: impl serde::Serialize) {
        let id = RequestId::from(self.next_id.fetch_add(1, Ordering::Relaxed));
        let r = Request::new(id, method.to_string(), params);
        let _ = self.sender.send(Message::Request(r));
    }

    /// Every analysis is stale (the configuration or the code changed).
    pub(super) fn forget_analyses(&self) {
        self.analyses.lock().expect("analyses lock").clear();
        for project in self.projects() {
            project.forget_index();
        }
    }
}

/// Drop the checks of all but the [`KEPT_CHECKS`] docs used last (a request still holding one
/// keeps it until it is answered).
fn keep_last_used(analyses: &mut HashMap<String, Shared>) {
    if analyses.len() <= KEPT_CHECKS {
        return;
    }
    let mut used: Vec<u64> = (analyses.values())
        .map(|s| s.used.load(Ordering::Relaxed))
        .collect();
    used.sort_unstable_by(|a, b| b.cmp(a));
    let oldest_kept = used[KEPT_CHECKS - 1];
    analyses.retain(|_, s| s.used.load(Ordering::Relaxed) >= oldest_kept);
}

/// The one diagnostic of a doc that could not be checked.
pub(super) fn failure(message: String) -> Diagnostic {
    Diagnostic {
        range: Range::new(Position::new(0, 0), Position::new(0, 0)),
        severity: Some(DiagnosticSeverity::ERROR),
        source: Some("citegate".to_string()),
        message: format!("citegate could not check this doc: {message}"),
        ..Diagnostic::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A repository with one commit: `src/a.rs` and a doc citing it.
    fn repo() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let git = git2::Repository::init(&root).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(root.join("src/a.rs"), "one\ntwo\n").unwrap();
        std::fs::write(root.join("docs/a.md"), "A is src/a.rs:1.\n").unwrap();
        let mut index = git.index().unwrap();
        index.add_path(Path::new("src/a.rs")).unwrap();
        index.add_path(Path::new("docs/a.md")).unwrap();
        let tree = git.find_tree(index.write_tree().unwrap()).unwrap();
        let who = git2::Signature::now("t", "t@t").unwrap();
        git.commit(Some("HEAD"), &who, &who, "one", &tree, &[])
            .unwrap();
        (dir, root)
    }

    #[test]
    fn concurrent_requests_on_one_version_share_one_check() {
        let (_dir, root) = repo();
        let (sender, _receiver) = crossbeam_channel::unbounded();
        let state = State::new(sender, Encoding::Utf16, false, vec![root.clone()]);
        let uri = super::super::text::path_uri(&root.join("docs/a.md")).unwrap();
        assert!(state.set_text(&uri, 1, "A is src/a.rs:1 and src/a.rs:2.\n".to_string()));
        let start = std::sync::Barrier::new(8);
        let checks: Vec<Arc<Analysis>> = std::thread::scope(|s| {
            let asks: Vec<_> = (0..8)
                .map(|_| {
                    s.spawn(|| {
                        start.wait();
                        state.analysis(&uri).ok().expect("checked")
                    })
                })
                .collect();
            asks.into_iter().map(|a| a.join().unwrap()).collect()
        });
        assert!(checks.iter().all(|a| Arc::ptr_eq(a, &checks[0])));
        // A new version is a new check.
        assert!(state.set_text(&uri, 2, "A is src/a.rs:2.\n".to_string()));
        let again = state.analysis(&uri).ok().expect("checked");
        assert!(!Arc::ptr_eq(&again, &checks[0]));
        assert_eq!(again.version, Some(2));
    }

    #[test]
    fn only_the_docs_used_last_keep_their_check() {
        let (_dir, root) = repo();
        let (sender, _receiver) = crossbeam_channel::unbounded();
        let state = State::new(sender, Encoding::Utf16, false, vec![root.clone()]);
        let uris: Vec<Uri> = (0..KEPT_CHECKS + 4)
            .map(|i| {
                let uri = super::super::text::path_uri(&root.join(format!("docs/d{i}.md")));
                let uri = uri.unwrap();
                assert!(state.set_text(&uri, 1, format!("Doc {i}: src/a.rs:3.\n")));
                uri
            })
            .collect();
        let first = state.analysis(&uris[0]).ok().expect("checked");
        for uri in &uris[1..] {
            state.analysis(uri).ok().expect("checked");
            // The first doc, used again each time, keeps its check.
            let again = state.analysis(&uris[0]).ok().expect("checked");
            assert!(Arc::ptr_eq(&again, &first));
        }
        assert_eq!(state.analyses.lock().unwrap().len(), KEPT_CHECKS);
        // A doc whose check was dropped is checked again, to the same findings.
        let kept = state
            .analysis(&uris[KEPT_CHECKS + 3])
            .ok()
            .expect("checked");
        let dropped = state
            .analyses
            .lock()
            .unwrap()
            .contains_key(uris[1].as_str());
        assert!(!dropped);
        let again = state.analysis(&uris[1]).ok().expect("checked");
        assert_eq!(again.report().findings.len(), 1);
        assert_eq!(again.report().findings.len(), kept.report().findings.len());
        assert_eq!(state.analyses.lock().unwrap().len(), KEPT_CHECKS);
    }
}
