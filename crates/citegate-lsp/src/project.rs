//! One repository as the language server sees it: its settings and target (re-read when
//! `.citegate.yaml` or the target's commit changes), a buffer checked exactly as `citegate audit`
//! run there would check the file, and the index of every doc's citations (who cites what).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use citegate_engine::audit::{self, load, AuditOptions};
use citegate_engine::config;
use citegate_engine::model::{AuditedDoc, DocKind, Report};

/// The repository, its settings and its target, as of one check. A new one is made when the
/// configuration file, the baseline or the target's commit changes: the repository's caches (the target's
/// blobs, read once) live as long as it does, so an edit re-reads no code.
pub struct Snapshot {
    pub session: audit::Session,
    /// The configuration file's and the baseline's.
    config: (Stamp, Stamp),
}

/// A snapshot is read as its session.
impl std::ops::Deref for Snapshot {
    type Target = audit::Session;

    fn deref(&self) -> &audit::Session {
        &self.session
    }
}

/// What says a configuration file changed: its size and modification time (`None`: absent).
type Stamp = Option<(u64, Option<SystemTime>)>;

fn stamp(path: &Path) -> Stamp {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()))
}

/// The docs of a repository with their citations, read and extracted (open buffers as edited),
/// and, once asked for, their audit.
pub(super) struct Index {
    pub docs: Vec<AuditedDoc>,
    pub snapshot: Arc<Snapshot>,
    audit: OnceLock<Report>,
}

impl Index {
    /// The index's docs checked as `citegate audit` checks them, against its snapshot: where
    /// each citation's content is now. Run once per index, the first time it is asked for
    /// (lenses; renames need only the citations), and forgotten with it.
    pub(super) fn audit(&self) -> &Report {
        self.audit.get_or_init(|| {
            let s = &self.snapshot;
            let docs = (self.docs.iter())
                .map(|d| AuditedDoc::new(d.doc.clone(), d.extracted.clone()))
                .collect();
            audit::check_docs(&s.repo, s.target, docs, &s.settings)
        })
    }
}

/// The docs of the repository at `root`, read and extracted; `open`: the buffers, by path, that
/// stand for their files.
fn load(
    root: &Path,
    s: &Snapshot,
    open: &HashMap<PathBuf, (DocKind, Arc<String>)>,
) -> Result<Vec<AuditedDoc>, String> {
    let opts = AuditOptions {
        paths: vec![root.to_path_buf()],
        repo: Some(root.to_path_buf()),
        ..AuditOptions::default()
    };
    let (mut docs, _) = audit::load_docs(&opts).map_err(|e| citegate_engine::error::chain(&e))?;
    for d in &mut docs {
        if let Some((kind, text)) = open.get(&d.doc.fs_path) {
            let path = d.doc.fs_path.clone();
            let text = text.to_string();
            *d = load::from_text(&path, *kind, text, &s.repo, &s.ctx, &s.settings.config);
        }
    }
    Ok(docs)
}

pub(super) struct Project {
    /// The work tree's root.
    pub root: PathBuf,
    current: Mutex<Option<Arc<Snapshot>>>,
    index: Mutex<Option<Arc<Index>>>,
}

impl Project {
    pub(super) fn new(root: PathBuf) -> Project {
        Project {
            root,
            current: Mutex::new(None),
            index: Mutex::new(None),
        }
    }

    /// The settings and target as of now: the last ones while the configuration file and the
    /// target's commit are unchanged, else read again. An error (a broken configuration, a
    /// target that does not resolve) is the command line's message.
    pub(super) fn snapshot(&self) -> Result<Arc<Snapshot>, String> {
        // The baseline too: `citegate baseline` run in a terminal changes what counts.
        let config = (
            stamp(&self.root.join(config::FILE_NAME)),
            stamp(&self.root.join(citegate_engine::model::baseline::FILE_NAME)),
        );
        let mut current = self.current.lock().expect("snapshot lock");
        if let Some(s) = current.as_ref() {
            let same_target = s
                .repo
                .open()
                .ok()
                .and_then(|git| s.repo.resolve(&git, &s.settings.target).ok())
                == Some(s.target);
            if s.config == config && same_target {
                return Ok(s.clone());
            }
        }
        let session = audit::Session::at(&self.root, None, None)
            .map_err(|e| citegate_engine::error::chain(&e))?;
        let fresh = Arc::new(Snapshot { session, config });
        if current.as_ref().is_some_and(|s| s.config != config) {
            // Who cites what may follow the configuration (include, exclude, syntaxes).
            self.forget_index();
        }
        *current = Some(fresh.clone());
        Ok(fresh)
    }

    /// Whether the configuration audits the doc at `path` (its include and exclude globs).
    pub(super) fn wants(&self, snapshot: &Snapshot, path: &Path) -> bool {
        let name = load::doc_name(&snapshot.repo, path);
        snapshot.settings.config.wants_doc(&name)
    }

    /// Check a doc's text as if it were the file at `path`: the audit's findings, spans,
    /// severities and messages, implied pins included.
    pub(super) fn check(
        snapshot: Arc<Snapshot>,
        path: &Path,
        kind: DocKind,
        text: String,
    ) -> Checked {
        let s = &snapshot;
        let doc = s.doc(path, kind, text);
        let report = audit::check_docs(&s.repo, s.target, vec![doc], &s.settings);
        Checked { report, snapshot }
    }

    /// Every doc of the repository with its citations (`open`: the buffers, by path, that stand
    /// for their files), built once until a doc, the configuration or the target's commit
    /// changes (its audit says where cited content is at the target: a commit moves it).
    pub(super) fn index(
        &self,
        open: &HashMap<PathBuf, (DocKind, Arc<String>)>,
    ) -> Result<Arc<Index>, String> {
        let snapshot = self.snapshot()?;
        let known = self.index.lock().expect("index lock").clone();
        if let Some(index) = known.filter(|i| Arc::ptr_eq(&i.snapshot, &snapshot)) {
            return Ok(index);
        }
        let docs = load(&self.root, &snapshot, open)?;
        let index = Arc::new(Index {
            docs,
            snapshot,
            audit: OnceLock::new(),
        });
        *self.index.lock().expect("index lock") = Some(index.clone());
        Ok(index)
    }

    /// A doc changed: the index is built again when next asked for.
    pub(super) fn forget_index(&self) {
        *self.index.lock().expect("index lock") = None;
    }
}

/// A doc's text checked: the one-doc report and what it was checked with.
pub struct Checked {
    pub report: Report,
    pub snapshot: Arc<Snapshot>,
}
