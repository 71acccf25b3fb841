//! `unused-suppression` (warning): a suppression comment that does not do its job: it suppresses
//! nothing, names a rule that does not exist or one that is never suppressed (an `input` rule),
//! or gives no reason.
//!
//! What it checks, why, and its fix safety: `rules/unused-suppression.yaml` (`citegate explain
//! unused-suppression`). Decided after every other rule, when it is known which findings each
//! comment suppressed (`audit::suppress`).

use crate::model::{DocId, Finding, InlineSuppression};
use crate::registry::RuleId;

/// What is wrong with a suppression, worst first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trouble {
    /// It names no rule at all.
    NoRule,
    /// A name that is no rule's ID.
    UnknownRule(String),
    /// An `input` rule (or this one): refused, it suppresses nothing.
    Refused(RuleId),
    /// No finding of its rules is on the lines it covers.
    Unused,
    /// It suppresses, but says not why.
    NoReason,
}

/// The `unused-suppression` finding on the comment `s`, saying what is wrong with it.
pub fn check(doc: DocId, s: &InlineSuppression, trouble: &Trouble) -> Finding {
    let (first, last) = s.lines;
    let lines = match first == last {
        true => format!("line {first}"),
        false => format!("lines {first}-{last}"),
    };
    let (message, help) = match trouble {
        Trouble::NoRule => (
            "this suppression names no rule".to_string(),
            "write the rule it suppresses: `citegate-ignore RULE: reason`".to_string(),
        ),
        Trouble::UnknownRule(name) => (
            format!("this suppression names `{name}`, which is no rule"),
            "`citegate rules` lists the rule IDs".to_string(),
        ),
        Trouble::Refused(rule) => (
            format!("`{rule}` cannot be suppressed: the suppression is refused"),
            "a doc that cannot be read or checked hides every citation in it: fix the doc (or the clone's history)".to_string(),
        ),
        Trouble::Unused => (
            format!("this suppression of {} suppresses nothing on {lines}", s.rules.join(", ")),
            "delete it: a suppression left behind hides the next finding written there".to_string(),
        ),
        Trouble::NoReason => (
            format!("this suppression of {} gives no reason", s.rules.join(", ")),
            "write why after a colon: `citegate-ignore RULE: why`".to_string(),
        ),
    };
    Finding::new(RuleId::UnusedSuppression, doc, s.span, message).help(help)
}
