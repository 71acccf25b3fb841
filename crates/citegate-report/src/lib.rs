//! Reporters: one file per output format. They only render a finished [`citegate_engine::model::Report`];
//! each escapes what it prints in one place, for its own format.

pub mod dump;
pub mod github;
pub mod github_review;
pub mod gitlab;
pub mod html;
#[cfg(feature = "human")]
pub mod human;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod rdjson;
pub mod sarif;
pub mod statistics;
pub mod summary;
pub mod sweep;

use citegate_engine::model::{Finding, Report};
use citegate_engine::registry::RuleId;

/// citegate's home page, named as the source of findings in formats that take one.
pub const HOME: &str = "https://github.com/citegate/citegate";

/// A finding on one line, `doc:line:column: rule: message`, unescaped: the text of a JUnit
/// failure, and what a site build logs for it (`api::Repo::audit_lines`).
pub fn one_line(report: &Report, f: &Finding) -> String {
    let doc = &report.docs[f.doc].doc;
    format!(
        "{}:{}:{}: {}: {}",
        doc.name, f.at.line, f.at.column, f.rule, f.message
    )
}

/// The catalogue entry of a rule (`rules/ID.yaml`, what `citegate explain ID` prints).
pub fn rule_url(rule: RuleId) -> String {
    format!("{HOME}/blob/main/rules/{}.yaml", rule.as_str())
}

/// Where the code a finding cites is on the forge, unescaped: a permalink into another repository
/// goes where it was written (its own host, repository and revision); any other citation into
/// the audited repository's web address at the revision it was read at. A foreign citation read
/// back from a JSON report no longer knows its link: none.
pub fn cited_url(report: &Report, f: &Finding) -> Option<String> {
    let cite = (f.cite).and_then(|c| report.docs[f.doc].extracted.citations.get_id(c));
    if let Some(foreign) = cite.and_then(|c| c.foreign.as_ref()) {
        return citegate_engine::forge::parse(&foreign.url).map(|_| foreign.url.clone());
    }
    if f.rule == RuleId::ForeignCitation {
        return None;
    }
    let (web, path, rev) = (report.web_url.as_deref()?, f.path.as_ref()?, f.revision?);
    Some(citegate_engine::forge::blob_url(
        web,
        &rev.to_string(),
        path,
        f.lines,
    ))
}
