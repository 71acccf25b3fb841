//! Reporters: one file per output format. They only render a finished [`crate::model::Report`];
//! each escapes what it prints in one place, for its own format.

pub mod dump;
pub mod github;
pub mod github_review;
pub mod gitlab;
pub mod html;
pub mod human;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod rdjson;
pub mod regenerate;
pub mod sarif;
pub mod statistics;

use crate::registry::RuleId;

/// citegate's home page, named as the source of findings in formats that take one.
pub const HOME: &str = "https://github.com/citegate/citegate";

/// The catalogue entry of a rule (`rules/ID.yaml`, what `citegate explain ID` prints).
pub fn rule_url(rule: RuleId) -> String {
    format!("{HOME}/blob/main/rules/{}.yaml", rule.as_str())
}
