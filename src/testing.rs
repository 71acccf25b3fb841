//! Test helpers (the `testing` feature, never in the installed CLI): fixture repositories built
//! from their text description at test time, and audits run in process on them.

use std::path::{Path, PathBuf};

use crate::audit::{self, AuditError, AuditOptions};
use crate::fixture::{self, FixtureError, Labels};
use crate::model::Report;

/// A fixture repository in a temporary folder (removed when dropped), with its commit labels.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub labels: Labels,
}

impl Fixture {
    /// Build the repository `spec` describes (see [`crate::fixture`]).
    pub fn build(spec: &str) -> Result<Fixture, FixtureError> {
        let dir = tempfile::tempdir()?;
        let labels = fixture::build(spec, dir.path())?;
        Ok(Fixture { dir, labels })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `text` with `{{rev:LABEL}}` and `{{short:LABEL}}` replaced by this repository's SHAs.
    pub fn substitute(&self, text: &str) -> Result<String, FixtureError> {
        fixture::substitute(text, &self.labels)
    }

    /// Audit in process as `citegate audit PATHS` would from the repository's root: `paths` are
    /// relative to it, and `opts` says the rest (its `paths` and `repo` are replaced).
    pub fn audit(&self, paths: &[&str], mut opts: AuditOptions) -> Result<Report, AuditError> {
        opts.repo = Some(self.path().to_path_buf());
        opts.paths = paths
            .iter()
            .map(|p| self.path().join(p))
            .collect::<Vec<PathBuf>>();
        if let Some(config) = opts.config.as_mut().filter(|c| c.is_relative()) {
            *config = self.path().join(&*config);
        }
        audit::run(&opts)
    }
}

/// The exit code `citegate audit` gives a report (0: no error finding, 1: error findings) or a
/// run that failed (2), with the default `--fail-on error`.
pub fn exit_code(result: &Result<Report, AuditError>) -> i32 {
    match result {
        Ok(report) if report.has_errors() => 1,
        Ok(_) => 0,
        Err(_) => 2,
    }
}
