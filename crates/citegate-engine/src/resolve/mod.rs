//! Resolution: revisions to commits and `(commit, path)` to what the object database holds there.
//! Code is read straight from the object database: no checkout, no `git` process.

pub mod blame;
pub mod folders;
pub mod index;
pub mod lanes;
pub mod paths;
pub mod reads;
pub mod rename_rule;
pub mod renames;
pub mod repo;
pub mod trees;

pub use repo::{CodeRepo, Entry, FileAt, RevError};
