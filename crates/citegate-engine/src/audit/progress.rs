//! Progress reporting: the library never prints, so stages report to a [`Progress`] the binary
//! may show (a bar on a terminal).

use std::sync::Arc;

/// Where progress is reported; called from worker threads.
pub trait Progress: Send + Sync {
    /// A new stage with `total` steps.
    fn stage(&self, name: &'static str, total: usize);
    /// `steps` more steps of the current stage are done.
    fn advance(&self, steps: usize);
    /// The last stage is done.
    fn finish(&self);
}

/// An optional [`Progress`] sink.
#[derive(Clone, Default)]
pub struct ProgressSink(pub Option<Arc<dyn Progress>>);

impl ProgressSink {
    /// Report a new stage with `total` steps.
    pub fn stage(&self, name: &'static str, total: usize) {
        if let Some(p) = &self.0 {
            p.stage(name, total);
        }
    }

    /// Report one more step of the current stage done.
    pub fn advance(&self) {
        if let Some(p) = &self.0 {
            p.advance(1);
        }
    }

    /// Report the last stage done.
    pub fn finish(&self) {
        if let Some(p) = &self.0 {
            p.finish();
        }
    }
}

impl std::fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "ProgressSink(on)"
        } else {
            "ProgressSink(off)"
        })
    }
}
