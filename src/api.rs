//! The library entry points the Python and Node bindings wrap (`bindings/`): a [`Repo`] opened
//! once at a target, then asked to gate answers, audit docs and find quotes. Each call runs the
//! same code as the command line (`citegate gate`, `citegate audit --format json`, the MCP
//! server's `cite`): the verdicts are the CLI's, byte for byte (`tests/it/api.rs` compares them).
//!
//! A [`Repo`] is `Send + Sync`: one is shared by a server's threads, each call building its
//! [`Gate`] (cheap: the settings and the repository are resolved once, at [`Repo::open`]).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::audit::{AuditOptions, Session};
use crate::gate::service::{self, Verdict};
use crate::gate::{Gate, Retrieval};
use crate::model::{Report, Retrieved};

/// Why a call could not run (not why an answer failed: that is a [`Verdict`]): the message the
/// command line prints after `citegate: error:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(pub String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

/// A repository opened at a target, with its settings (`.citegate.yaml`), as `citegate gate
/// --repo PATH --target REV` opens it.
pub struct Repo {
    session: Session,
    /// The folder it was opened from: relative doc paths given to [`Repo::audit`] start here.
    root: PathBuf,
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
        let session =
            Session::at(path, target, None).map_err(|e| Error(crate::error::chain(&e)))?;
        Ok(Repo {
            session,
            root: path.to_path_buf(),
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
    /// `no_retrieval` (`--retrieved`, `--no-retrieval`).
    pub fn gate(
        &self,
        answer: &str,
        retrieved: Option<&[Retrieved]>,
        no_retrieval: bool,
    ) -> Verdict {
        let retrieval = Retrieval::asked(retrieved, no_retrieval);
        service::check(&self.gate_at(), answer, retrieval)
    }

    /// [`Repo::gate`] on many answers at once, checked together (one audit over all of them, as
    /// `gate --jsonl` checks a batch): one verdict per answer, in order.
    pub fn gate_many(
        &self,
        answers: &[&str],
        retrieved: Option<&[Retrieved]>,
        no_retrieval: bool,
    ) -> Vec<Verdict> {
        let retrieval = Retrieval::asked(retrieved, no_retrieval);
        let texts: Vec<Result<&str, String>> = answers.iter().map(|a| Ok(*a)).collect();
        service::check_all(&self.gate_at(), &texts, retrieval)
    }

    /// Audit the docs under `paths` (relative ones from the folder the repository was opened
    /// from; none: that whole folder), as `citegate audit` does.
    pub fn audit(&self, paths: &[PathBuf]) -> Result<Report, Error> {
        let paths = match paths.is_empty() {
            true => vec![self.root.clone()],
            false => paths.iter().map(|p| self.root.join(p)).collect(),
        };
        let opts = AuditOptions {
            paths,
            repo: Some(self.root.clone()),
            target: Some(self.revision()),
            ..AuditOptions::default()
        };
        crate::audit::run_in(&self.session, &opts).map_err(|e| Error(crate::error::chain(&e)))
    }

    /// [`Repo::audit`]'s report as `citegate audit --format json` prints it.
    pub fn audit_json(&self, paths: &[PathBuf]) -> Result<String, Error> {
        self.audit(paths).map(|r| crate::report::json::render(&r))
    }

    /// Where `quote` occurs at the target, exactly (whitespace-normalised), in `path` (a
    /// repository path) or in every text file: `{"revision", "count", "places", "stopped"?}`,
    /// as the MCP server's `cite` answers.
    pub fn cite(&self, quote: &str, path: Option<&str>) -> Result<Value, Error> {
        let path = path.map(inside).transpose()?;
        let (repo, target) = (&self.session.repo, self.session.target);
        crate::retrieve::quote::find(repo, target, quote, path.as_deref()).map_err(Error)
    }
}

/// A retrieval payload (a list of chunks, either seed's keys, or `{"chunks": [...]}`) read from
/// its JSON value, as `--retrieved` reads its file.
pub fn retrieved(value: &Value) -> Result<Vec<Retrieved>, Error> {
    crate::contract::payload_of(value).map_err(|e| Error(format!("retrieved: {e}")))
}

/// A repository path that stays inside the repository, as the audit reads one.
fn inside(path: &str) -> Result<String, Error> {
    match crate::paths::resolve_path(path, None, false) {
        crate::model::CitedPath::Repo(p) => Ok(p),
        _ => Err(Error(format!(
            "`{path}` is not a path inside the repository"
        ))),
    }
}
