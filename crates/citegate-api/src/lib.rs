//! The library entry points the Python and Node bindings wrap (`bindings/`): a [`Repo`] opened
//! once at a target, then asked to gate answers, audit docs and find quotes. Each call runs the
//! same code as the command line (`citegate gate`, `citegate audit --format json`, the MCP
//! server's `cite`): the verdicts are the CLI's, byte for byte (`tests/it/api.rs` compares them).
//!
//! A [`Repo`] is `Send + Sync`: one is shared by a server's threads, each call building its
//! [`Gate`] (cheap: the settings and the repository are resolved once, at [`Repo::open`]).
//!
//! These calls run inside someone else's server, on input a stranger sent it, so each keeps the
//! command line's and the MCP server's promises there too: an answer is at most
//! [`MAX_INPUT_BYTES`] and a value given for one nests at most [`MAX_DEPTH`] deep (a binding walks
//! its host's values with a [`Budget`], refusing before it converts); a doc path is resolved inside
//! the work tree and no symbolic link on its way is followed; and the work runs on a thread pool
//! of the current process, made anew in a child after `fork()` (see [`pool`]).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use serde::Serialize;
use serde_json::Value;

use citegate_engine::audit::{AuditOptions, Session};
use citegate_engine::gate::service;
use citegate_engine::gate::{Gate, Retrieval};
use citegate_engine::model::{CitedPath, Report};
use citegate_engine::registry::Severity;

/// A gated answer's verdict, as `citegate gate` prints it (the engine's type).
pub use citegate_engine::gate::service::Verdict;
/// What an answer says was retrieved (the engine's type): the payload of [`Repo::gate`].
pub use citegate_engine::model::Retrieved;

/// The most bytes of one answer's JSON text: what `citegate gate` reads from standard input (and
/// the audit reads of one doc).
pub const MAX_INPUT_BYTES: usize = service::MAX_INPUT_BYTES;

/// How deep a value given as an answer or a payload may nest before it is refused, not converted:
/// twice the nesting the gate reads in an answer's text (`json_spans::MAX_DEPTH`), so every value
/// the gate could judge is judged, and a value that refers to itself ends here, not in a stack
/// overflow of the host process.
pub const MAX_DEPTH: usize = 2 * citegate_engine::json_spans::MAX_DEPTH;

/// Why a call could not run (not why an answer failed: that is a [`Verdict`]): the message the
/// command line prints after `citegate: error:`, and whether the caller's input was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub message: String,
    pub kind: ErrorKind,
}

/// `work`, a panic in it (a bug) caught and returned as an [`Error`]: a binding's host process
/// goes on (a panic that reached Node-API's C boundary would abort it; pyo3 would raise
/// `PanicException`, which `except Exception` misses).
pub fn caught<T>(work: impl FnOnce() -> T) -> Result<T, Error> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).map_err(|panic| {
        let why = (panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        Error::run(format!(
            "citegate failed inside (a bug; please report it with the input): {why}"
        ))
    })
}

/// What kind of [`Error`] it is: the bindings raise each as its own type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The caller's input was refused before any work: a doc path outside the repository, a value
    /// too large or nested too deep, a value that is not JSON, a payload of the wrong shape.
    Input,
    /// The call could not run: the repository or the revision cannot be opened, the audit failed.
    Run,
}

impl Error {
    /// The caller's input refused, with why.
    pub fn input(message: impl Into<String>) -> Error {
        Error {
            message: message.into(),
            kind: ErrorKind::Input,
        }
    }

    /// The call could not run, with why.
    pub fn run(message: impl Into<String>) -> Error {
        Error {
            message: message.into(),
            kind: ErrorKind::Run,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// A binding's count of what it has converted of one host value (a Python `dict`, a JavaScript
/// object) into JSON: how deep it is and about how many bytes of JSON text it has made, so the
/// walk stops at [`MAX_DEPTH`] or [`MAX_INPUT_BYTES`] before it overflows a stack or builds a
/// value `citegate gate` would never read. The text made from the value is checked against the
/// byte limit exactly afterwards ([`Repo::gate`]).
#[derive(Debug, Default)]
pub struct Budget {
    used: usize,
}

impl Budget {
    /// Going one level deeper, to `depth` (the top value is at 0), at `at` (`answer.citations[2]`).
    pub fn enter(&self, depth: usize, at: impl FnOnce() -> String) -> Result<(), Error> {
        match depth > MAX_DEPTH {
            true => Err(Error::input(format!(
                "{}: nested deeper than {MAX_DEPTH}",
                at()
            ))),
            false => Ok(()),
        }
    }

    /// `bytes` more of JSON text (a string's length, a key's, a number's), at `at`.
    pub fn take(&mut self, bytes: usize, at: impl FnOnce() -> String) -> Result<(), Error> {
        self.used = self.used.saturating_add(bytes.saturating_add(1));
        match self.used > MAX_INPUT_BYTES {
            true => Err(too_large(&at())),
            false => Ok(()),
        }
    }
}

/// How a binding names an object's `key` in a location (`answer.citations[0].key`): at most
/// [`KEY_SHOWN`] bytes of it, then `…`. A key is a stranger's text, and the location of a value
/// nested 128 deep names 128 of them.
pub fn key_shown(key: &str) -> std::borrow::Cow<'_, str> {
    if key.len() <= KEY_SHOWN {
        return key.into();
    }
    let mut end = KEY_SHOWN;
    while !key.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &key[..end]).into()
}

/// The most bytes of a key [`key_shown`] shows.
pub const KEY_SHOWN: usize = 32;

/// The refusal of an input over [`MAX_INPUT_BYTES`], as `citegate gate` words it.
fn too_large(what: &str) -> Error {
    Error::input(format!("{what}: more than {} MiB", MAX_INPUT_BYTES >> 20))
}

/// The thread pool a call's work runs on: one per process. rayon's global pool is made once and
/// its threads do not survive `fork()` (a gunicorn `--preload` worker, a Celery prefork child,
/// `multiprocessing` on Linux): a child that had inherited it would wait for them forever. So the
/// pool is this process's own, and a child (another process ID) makes its own at its first call;
/// the parent's is forgotten there, never dropped (dropping it would signal threads that are not
/// there). The lock is held only to read or swap the pool, never while work runs.
pub fn pool() -> Result<Arc<rayon::ThreadPool>, Error> {
    static POOL: Mutex<Option<(u32, Arc<rayon::ThreadPool>)>> = Mutex::new(None);
    let pid = std::process::id();
    let mut held = POOL.lock().unwrap_or_else(PoisonError::into_inner);
    match held.take() {
        Some((owner, pool)) if owner == pid => {
            *held = Some((owner, pool.clone()));
            return Ok(pool);
        }
        Some(inherited) => std::mem::forget(inherited),
        None => {}
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .thread_name(|i| format!("citegate-{i}"))
        .build()
        .map_err(|e| Error::run(format!("cannot start citegate's threads: {e}")))?;
    let pool = Arc::new(pool);
    *held = Some((pid, pool.clone()));
    Ok(pool)
}

/// Run `work` on [`pool`].
fn on_pool<T: Send>(work: impl FnOnce() -> T + Send) -> Result<T, Error> {
    Ok(pool()?.install(work))
}

/// A repository opened at a target, with its settings (`.citegate.yaml`), as `citegate gate
/// --repo PATH --target REV` opens it.
pub struct Repo {
    session: Session,
    /// The folder it was opened from: relative doc paths given to [`Repo::audit`] start here.
    root: PathBuf,
    /// That folder, relative to the work tree (`""` at its root; `None` outside it or without one).
    base: Option<String>,
}

/// What a [`Repo`] must be to be shared by threads (checked when the crate builds).
const _: fn() = || {
    fn shared<T: Send + Sync>() {}
    shared::<Repo>();
};

impl Repo {
    /// Open the repository holding `path` at `target` (else the configuration's target, else
    /// `HEAD`), reading its `.citegate.yaml`.
    pub fn open(path: &Path, target: Option<&str>) -> Result<Repo, Error> {
        let mut session = on_pool(|| Session::at(path, target, None))?
            .map_err(|e| Error::run(citegate_engine::error::chain(&e)))?;
        // The libraries offer no re-pins: none is made (see `AuditOptions::repins`).
        session.settings.repins = false;
        let base = session.repo.workdir.as_deref().and_then(|w| below(w, path));
        Ok(Repo {
            session,
            root: path.to_path_buf(),
            base,
        })
    }

    /// The commit answers are checked at (40 hex digits).
    pub fn revision(&self) -> String {
        self.session.target.to_string()
    }

    fn gate_at(&self) -> Gate<'_> {
        Gate::new(
            &self.session.repo,
            self.session.target,
            &self.session.settings,
        )
    }

    /// The verdict on one answer's JSON text, as `citegate gate` gives it: checked against
    /// `retrieved` when given, else the answer's own `retrieved` payload, required unless
    /// `no_retrieval` (`--retrieved`, `--no-retrieval`). An answer over [`MAX_INPUT_BYTES`] is
    /// refused, as `citegate gate` refuses it.
    pub fn gate(
        &self,
        answer: &str,
        retrieved: Option<&[Retrieved]>,
        no_retrieval: bool,
    ) -> Result<Verdict, Error> {
        within("answer", answer)?;
        let retrieval = Retrieval::asked(retrieved, no_retrieval);
        on_pool(|| service::check(&self.gate_at(), answer, retrieval))
    }

    /// [`Repo::gate`] on many answers at once, checked together (one audit over all of them, as
    /// `gate --jsonl` checks a batch): one verdict per answer, in order.
    pub fn gate_many(
        &self,
        answers: &[&str],
        retrieved: Option<&[Retrieved]>,
        no_retrieval: bool,
    ) -> Result<Vec<Verdict>, Error> {
        for (i, answer) in answers.iter().enumerate() {
            within(&format!("answers[{i}]"), answer)?;
        }
        let retrieval = Retrieval::asked(retrieved, no_retrieval);
        let texts: Vec<Result<&str, String>> = answers.iter().map(|a| Ok(*a)).collect();
        on_pool(|| service::check_all(&self.gate_at(), &texts, retrieval))
    }

    /// Audit the docs under `paths` (relative ones from the folder the repository was opened
    /// from; none: that whole folder), as `citegate audit` does. Unlike the command line, which
    /// audits a wiki cloned beside the code when told to, each path must lie inside the work tree,
    /// reached through no symbolic link: a server passing on a caller's paths never reads
    /// outside the repository.
    pub fn audit(&self, paths: &[PathBuf]) -> Result<Report, Error> {
        let paths = match paths.is_empty() {
            true => vec![self.root.clone()],
            false => self.docs(paths)?,
        };
        let opts = AuditOptions {
            paths,
            repo: Some(self.root.clone()),
            target: Some(self.revision()),
            ..AuditOptions::default()
        };
        on_pool(|| citegate_engine::audit::run_in(&self.session, &opts))?
            .map_err(|e| Error::run(citegate_engine::error::chain(&e)))
    }

    /// [`Repo::audit`]'s report as `citegate audit --format json` prints it.
    pub fn audit_json(&self, paths: &[PathBuf]) -> Result<String, Error> {
        self.audit(paths).map(|r| citegate_report::json::render(&r))
    }

    /// [`Repo::audit`]'s findings that count (not baselined, suppressed or waived), in the
    /// report's order, each as a site build logs it ([`FindingLine`]).
    pub fn audit_lines(&self, paths: &[PathBuf]) -> Result<Vec<FindingLine>, Error> {
        let report = self.audit(paths)?;
        let line = |f: &citegate_engine::model::Finding| FindingLine {
            doc: report.docs[f.doc].doc.name.clone(),
            line: f.at.line,
            column: f.at.column,
            rule: f.rule.as_str(),
            severity: f.severity,
            text: citegate_engine::escape::printable(&citegate_report::one_line(&report, f), false)
                .into_owned(),
        };
        let counted = report.findings.iter().filter(|f| f.suppressed.is_none());
        Ok(counted.map(line).collect())
    }

    /// Where `quote` occurs at the target, exactly (whitespace-normalised), in `path` (a
    /// repository path) or in every text file: `{"revision", "count", "places", "stopped"?}`,
    /// as the MCP server's `cite` answers.
    pub fn cite(&self, quote: &str, path: Option<&str>) -> Result<Value, Error> {
        let path = path.map(|p| inside(p, None)).transpose()?;
        let (repo, target) = (&self.session.repo, self.session.target);
        on_pool(|| citegate_engine::retrieve::quote::find(repo, target, quote, path.as_deref()))?
            .map_err(Error::run)
    }

    /// The doc paths given to [`Repo::audit`], each resolved inside the work tree.
    fn docs(&self, paths: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
        let (Some(workdir), Some(base)) = (&self.session.repo.workdir, &self.base) else {
            return Err(Error::input(format!(
                "`{}` is not inside a work tree: no doc path can be audited there",
                self.root.display()
            )));
        };
        let doc = |path: &PathBuf| {
            let text = path
                .to_str()
                .ok_or_else(|| Error::input(format!("`{}` is not valid UTF-8", path.display())))?;
            let rel = inside(text, Some(base))?;
            if rel.split('/').any(|part| part == ".git") {
                return Err(Error::input(format!(
                    "`{text}` is in the repository's Git folder: not a doc"
                )));
            }
            no_link_on_the_way(workdir, &rel, text)?;
            Ok(workdir.join(&rel))
        };
        paths.iter().map(doc).collect()
    }
}

/// One finding of [`Repo::audit_lines`], for a site build (the MkDocs plugin, the Sphinx
/// extension) to log at its page and line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FindingLine {
    /// The doc, a repository path (the JSON report's `doc`).
    pub doc: String,
    /// Where in the doc the finding starts, 1-based.
    pub line: usize,
    pub column: usize,
    pub rule: &'static str,
    pub severity: Severity,
    /// `doc:line:column: rule: message` (the JUnit report's text), control characters replaced.
    pub text: String,
}

/// `text` when it is at most [`MAX_INPUT_BYTES`].
fn within(what: &str, text: &str) -> Result<(), Error> {
    match text.len() > MAX_INPUT_BYTES {
        true => Err(too_large(what)),
        false => Ok(()),
    }
}

/// `path`, a folder inside `workdir`, as a repository path (`""` for the work tree itself), or
/// `None` when it is not inside it.
fn below(workdir: &Path, path: &Path) -> Option<String> {
    let (workdir, path) = (workdir.canonicalize().ok()?, path.canonicalize().ok()?);
    let rel = path.strip_prefix(&workdir).ok()?;
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parts?.join("/"))
}

/// A retrieval payload (a list of chunks, either seed's keys, or `{"chunks": [...]}`) read from
/// its JSON value, as `--retrieved` reads its file.
pub fn retrieved(value: &Value) -> Result<Vec<Retrieved>, Error> {
    citegate_engine::contract::payload_of(value)
        .map_err(|e| Error::input(format!("retrieved: {e}")))
}

/// `path` (from the repository folder `base`, else its root) as a repository path that stays
/// inside the repository, as the audit reads one (`""`: the root itself). Absolute paths and
/// `..` past the root are refused.
fn inside(path: &str, base: Option<&str>) -> Result<String, Error> {
    match citegate_engine::paths::resolve_path(path, base, false) {
        CitedPath::Repo(p) => Ok(p),
        CitedPath::Missing if base.is_some() => Ok(String::new()),
        _ => Err(Error::input(format!(
            "`{path}` is not a path inside the repository"
        ))),
    }
}

/// Refuse `rel` (a repository path, given as `given`) when a folder on its way down from
/// `workdir` is a symbolic link: it could lead anywhere. The last part may be one: the audit
/// reports a linked doc without reading it, and walks no linked folder.
fn no_link_on_the_way(workdir: &Path, rel: &str, given: &str) -> Result<(), Error> {
    let parts: Vec<&str> = rel.split('/').filter(|p| !p.is_empty()).collect();
    let mut at = workdir.to_path_buf();
    for part in parts.iter().take(parts.len().saturating_sub(1)) {
        at.push(part);
        if std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(Error::input(format!(
                "`{given}` is reached through a symbolic link (`{}`): not followed",
                at.strip_prefix(workdir).unwrap_or(&at).display()
            )));
        }
    }
    Ok(())
}
