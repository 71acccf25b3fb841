//! citegate: audit `path:line` code citations in Markdown wikis and AI answer files against the Git
//! revision they were written for.
//!
//! The crate is laid out as its pipeline: [`discover`] finds docs, [`extract`] turns each doc into
//! [`citation::Citation`]s with their [`doc::Span`]s, [`resolve`] reads the cited blobs from the object
//! database at the right revision, [`check`] runs the [`rules`] and yields [`finding::Finding`]s, and
//! [`report`] renders them. The library never prints; the binary maps a [`audit::Report`] to an exit code.

pub mod audit;
pub mod check;
pub mod citation;
pub mod config;
pub mod discover;
pub mod doc;
pub mod extract;
pub mod finding;
pub mod fix;
pub mod fixture;
pub mod normalize;
pub mod report;
pub mod resolve;
pub mod rules;
pub mod select;
pub mod sweep;
