//! The integration tests, one binary (as ripgrep keeps them): a module per area, all on
//! `common`. Linking the crate once instead of once per area is most of what CI spends on tests.

mod action;
mod api;
mod baseline;
mod blame_oracle;
mod cases;
mod check_docs;
mod cli;
mod common;
mod config;
mod dashboard;
mod doc_sites;
mod editors;
mod fingerprints;
mod fix;
mod fuzz_regressions;
mod gate;
mod history;
mod hostile;
mod hostile_pr;
#[cfg(feature = "llm")]
mod llm;
#[cfg(feature = "lsp")]
mod lsp;
#[cfg(feature = "mcp")]
mod mcp;
#[cfg(feature = "mcp")]
mod mcp_fuzz;
mod mdbook;
mod node_binding;
mod properties;
mod python_binding;
mod readme;
mod regenerate;
mod rename_oracle;
mod report_budget;
mod retrieve;
mod review;
mod review_fork;
mod rules;
mod scripted_model;
mod shards;
mod since_oracle;
mod structure;
mod surfaces;
mod verdicts;
mod vscode;
mod workflows;
