//! A run's state, built once before its first doc is read: the repository, the settings and the
//! target commit (ripgrep's `HiArgs`, lychee's `ClientBuilder → Client`). Every command that
//! checks docs or answers — `audit`, `regenerate` and its gate, `gate`, the language server and
//! the MCP server — starts from one, so they read the same `.citegate.yaml` and the same target,
//! and nothing re-discovers the repository halfway through a run.

use std::path::{Path, PathBuf};

use git2::Oid;

use super::options::{AuditError, AuditOptions};
use super::settings::Settings;
use crate::extract::ExtractContext;
use crate::model::{AuditedDoc, DocKind};
use crate::resolve::CodeRepo;

/// The repository, its settings and the target, resolved once.
pub struct Session {
    /// The repository, keeping the target's blobs once read.
    pub repo: CodeRepo,
    /// The commit docs are checked against: where unpinned citations resolve.
    pub target: Oid,
    /// Everything the run decides by (configuration and options merged).
    pub settings: Settings,
    /// How docs are extracted under these settings, built once.
    pub ctx: ExtractContext,
}

impl Session {
    /// Open the repository holding `opts.repo` (else the current folder), resolve the settings
    /// (`--config`, else `.citegate.yaml`, then the flags) and the target (`--worktree`,
    /// `--target`, the configuration's, else HEAD).
    pub fn open(opts: &AuditOptions) -> Result<Session, AuditError> {
        let start = opts.repo.clone().unwrap_or_else(|| PathBuf::from("."));
        let repo = CodeRepo::discover(&start).map_err(|e| AuditError::Repo {
            path: start.clone(),
            source: e.into(),
        })?;
        let settings = Settings::resolve(opts, &repo)?;
        let target = resolve_target(&repo, opts, &settings)?;
        let repo = repo.with_target(target);
        let ctx = settings.extract_context(&repo);
        Ok(Session {
            repo,
            target,
            settings,
            ctx,
        })
    }

    /// The session of a command that checks answers (`gate`, `replay`, the servers): the
    /// repository holding `start`, `target` (else the configuration's, else HEAD) and `config`
    /// (else `.citegate.yaml`).
    pub fn at(
        start: &Path,
        target: Option<&str>,
        config: Option<&PathBuf>,
    ) -> Result<Session, AuditError> {
        Session::open(&AuditOptions {
            repo: Some(start.to_path_buf()),
            target: target.map(str::to_string),
            config: config.cloned(),
            ..AuditOptions::default()
        })
    }
}

impl Session {
    /// A doc held in memory (an editor's buffer) as if it were the file at `path`, read as the
    /// run reads its docs (the size cap, extraction, the configuration).
    pub fn doc(&self, path: &Path, kind: DocKind, text: String) -> AuditedDoc {
        super::load::from_text(
            path,
            kind,
            text,
            &self.repo,
            &self.ctx,
            &self.settings.config,
        )
    }
}

/// The target commit: the `--worktree` snapshot, or the settings' target revision.
fn resolve_target(
    repo: &CodeRepo,
    opts: &AuditOptions,
    settings: &Settings,
) -> Result<Oid, AuditError> {
    let git = repo.open().map_err(|e| AuditError::Repo {
        path: repo.git_dir.clone(),
        source: e.into(),
    })?;
    if opts.worktree {
        return repo.snapshot_worktree(&git).map_err(|e| AuditError::Rev {
            flag: "--worktree",
            rev: String::new(),
            message: e.message().to_string(),
            hint: None,
        });
    }
    let name = &settings.target;
    repo.resolve_option(&git, name)
        .map_err(|(message, hint)| AuditError::Rev {
            flag: "--target",
            rev: name.clone(),
            message,
            hint,
        })
}
