//! `unsupported-source`: a numbered marker `[n]` in a doc with a `Sources:` list has no source `n`.
//!
//! What it checks, why, and its fix safety: `rules/unsupported-source.yaml` (`citegate explain unsupported-source`).
