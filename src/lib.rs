//! citegate: audit `path:line` code citations in Markdown wikis and AI answer files against the Git
//! revision they were written for.
//!
//! This crate is the command line's (the `citegate` binary's) own: [`args`], its types, and the
//! test helpers (feature `testing`). The layers below it are crates of their own under
//! `crates/`, re-exported here under the module names they have always had, so
//! `citegate::audit`, `citegate::report` and the rest read as before:
//!
//! - `citegate-engine`: the data model, extraction, resolution, checks, rules, fixes, the audit,
//!   the contract and the gate ([`registry`] … [`gate`]);
//! - `citegate-llm`: the model client, a leaf ([`llm`]);
//! - `citegate-regenerate`: `regenerate` and `replay`, and their report ([`regenerate`]);
//! - `citegate-report`: one renderer per output format, and the sweep ([`report`], [`sweep`]);
//! - `citegate-lsp` and `citegate-mcp`: the servers (default features `lsp`, `mcp`);
//! - `citegate-api`: the entry points the Python and Node libraries wrap ([`api`]).
//!
//! `scripts/structure.py` holds the layer table and fails CI on an upward edge inside a crate;
//! Cargo refuses one between crates. The library never prints; the binary maps a report to an
//! exit code.
#![warn(clippy::print_stdout, clippy::print_stderr, unreachable_pub)]

pub use citegate_api as api;
pub use citegate_engine::{
    audit, check, config, contract, discover, error, escape, extract, fix, fixture, forge, gate,
    json_spans, model, normalize, output, paths, registry, resolve, retrieve, rules, select,
};
pub use citegate_llm as llm;
#[cfg(feature = "lsp")]
pub use citegate_lsp as lsp;
#[cfg(feature = "mcp")]
pub use citegate_mcp as mcp;
pub use citegate_regenerate as regenerate;
pub use citegate_report as report;
pub use citegate_report::sweep;

pub mod args;
#[cfg(feature = "testing")]
pub mod testing;
