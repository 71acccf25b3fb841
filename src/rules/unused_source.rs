//! `unused-source` (note): a source in the `Sources:` list that no `[n]` marker cites.
//!
//! What it checks, why, and its fix safety: `rules/unused-source.yaml` (`citegate explain unused-source`).
