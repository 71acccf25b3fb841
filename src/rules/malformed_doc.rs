//! `malformed-doc`: a doc that cannot be read or parsed: invalid JSON in an answer file, invalid
//! UTF-8, a binary or oversized file, broken YAML front matter.
//!
//! What it checks, why, and its fix safety: `rules/malformed-doc.yaml` (`citegate explain malformed-doc`).
