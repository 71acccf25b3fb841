//! citegate: audit `path:line` code citations in Markdown wikis and AI answer files against the Git
//! revision they were written for.
//!
//! The crate is laid out as its pipeline, with dependencies pointing one way: each layer uses
//! only itself and those before it (`scripts/structure.py` holds this table and fails CI on an
//! upward edge):
//!
//! 1. [`registry`] (every rule's ID and catalogue entry), [`error`] (how an error reads),
//!    [`escape`] (what is printed, escaped for where it goes), [`llm`] (the model client, a leaf).
//! 2. [`model`]: plain data: docs, spans, typed IDs, citations, claims, answers and their
//!    citation objects, findings, edits and fixes, the report.
//! 3. [`forge`], [`normalize`], [`config`], [`discover`], [`output`], [`json_spans`], [`paths`]:
//!    forge URLs, the one whitespace leniency, configuration, finding docs, writing files never
//!    through a link, JSON with spans, a cited path made a repository path.
//! 4. [`contract`] (the answer contract, read and written), [`extract`] (a doc's text →
//!    citations and claims, facts only), [`resolve`] (revisions and blobs from the object
//!    database, blame), [`fix`] (a citation's fix in its own syntax, and applying a report's
//!    edits to the docs), [`select`] (`--since`).
//! 5. [`check`]: evidence per blob (quotes, extents, literal support, stale verdicts), the facts
//!    the rules decide from; [`retrieve`]: chunks, tokens and BM25 at a revision.
//! 6. [`rules`]: one file per rule deciding from facts, and the dispatch that orders them.
//! 7. [`audit`]: a [`audit::Session`] (repository, target and settings, resolved once), then load
//!    → plan → check → history → rules → [`model::Report`]; [`audit::check_docs`] checks docs
//!    held in memory; [`audit::verify`] re-checks every fix before it is offered, and
//!    [`audit::fixpoint`] plans `fix` to its fixpoint.
//! 8. [`gate`]: an answer, a text or a paragraph checked at the target, the verdict on a model's
//!    raw reply, the `citegate gate` service.
//! 9. [`regenerate`]: offline re-grounding, asking the model, outcomes, traces.
//! 10. [`report`] (one file per output format, regenerate's included), [`sweep`].
//! 11. The servers, [`mcp`] and [`lsp`] (default features), and [`args`], the command line's
//!     types (the binary's `commands/` run them).
//! 12. [`api`]: the library entry points the Python and Node bindings wrap (`bindings/`): a
//!     repository opened once, then gate, audit and cite, the CLI's code and verdicts.
//!
//! The library never prints; the binary maps a report to an exit code. Errors are types with
//! their cause as `source` ([`error::chain`] prints them whole).
//!
//! **The library API is not stable.** It is public for citegate's own binary, its servers and
//! its tests, and changes with them; what citegate promises is its command line, its JSON report
//! (version 1), its configuration file and the protocols it serves. Items only the crate uses are
//! not public (`unreachable_pub` is checked); the public ones are documented where their meaning
//! is not their name (`missing_docs` is not enforced: 550 fields and variants would need a line
//! each).
#![warn(clippy::print_stdout, clippy::print_stderr, unreachable_pub)]

pub mod api;
pub mod args;
pub mod audit;
pub mod check;
pub mod config;
pub mod contract;
pub mod discover;
pub mod error;
pub mod escape;
pub mod extract;
pub mod fix;
pub mod fixture;
pub mod forge;
pub mod gate;
pub mod json_spans;
pub mod llm;
#[cfg(feature = "lsp")]
pub mod lsp;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod model;
pub mod normalize;
pub mod output;
pub mod paths;
pub mod regenerate;
pub mod registry;
pub mod report;
pub mod resolve;
pub mod retrieve;
pub mod rules;
pub mod select;
pub mod sweep;
#[cfg(feature = "testing")]
pub mod testing;
