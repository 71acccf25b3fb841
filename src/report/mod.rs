//! Reporters: one file per output format. They only render a finished [`crate::model::Report`].

pub mod github;
pub mod human;
pub mod json;
pub mod markdown;
pub mod sarif;
