//! Reporters: one file per output format. They only render a finished [`crate::model::Report`];
//! each escapes what it prints in one place, for its own format.

pub mod dump;
pub mod github;
pub mod html;
pub mod human;
pub mod json;
pub mod markdown;
pub mod regenerate;
pub mod sarif;
