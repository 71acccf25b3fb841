//! `uncited-claim`: a JSON answer with neither citations nor `refuse`, or a claim without a usable
//! citation (no path, no line range).
//!
//! What it checks, why, and its fix safety: `rules/uncited-claim.yaml` (`citegate explain uncited-claim`).
