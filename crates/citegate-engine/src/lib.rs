//! citegate's engine: a doc's text to citations and claims, each citation resolved against the
//! Git revision it was written for, checked, decided by one rule per file, and fixed where its
//! content is found again; the audit over a repository and the gate over an answer.
//!
//! The crate is laid out as its pipeline, with dependencies pointing one way: each layer uses
//! only itself and those before it (`scripts/structure.py` holds this table and fails CI on an
//! upward edge; the crates above this one are the layers above it):
//!
//! 1. [`registry`] (every rule's ID and catalogue entry), [`error`] (how an error reads),
//!    [`escape`] (what is printed, escaped for where it goes).
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
//!    raw reply, the `citegate gate` service; [`fixture`]: repositories built from text (the
//!    tests' and `citegate explain`'s examples).
//!
//! The engine never prints. Errors are types with their cause as `source` ([`error::chain`]
//! prints them whole).
//!
//! **The API is a deliberate surface, not yet a stable one.** What no other crate of the
//! workspace uses is `pub(crate)`; every public item is documented (`missing_docs` is denied, and
//! CI builds these docs with warnings as errors); `scripts/semver.sh` compares it with the last
//! release once there is one. Before 1.0 it changes with citegate's own crates; what citegate
//! promises is its command line, its JSON report (version 1), its configuration file and the
//! protocols it serves.
#![warn(clippy::print_stdout, clippy::print_stderr, unreachable_pub)]
#![deny(missing_docs)]

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
pub mod model;
pub mod normalize;
pub mod output;
pub mod paths;
pub mod registry;
pub mod resolve;
pub mod retrieve;
pub mod rules;
pub mod select;
