//! The rule registry: every finding ID with its catalogue entry (family, default severity, fix
//! safety, explanation, a runnable example), read from `rules/ID.yaml` at the repository root and
//! embedded at build time. The bottom of the crate: the data model and every stage name rules by
//! [`RuleId`].

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

/// How much a finding matters: whether it fails a run (`--fail-on`) and how reports show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Fails a run by default (`--fail-on error`).
    Error,
    /// Fails a run only with `--fail-on warning`.
    Warning,
    /// Reported, never failing a run (a ref never fetched, a generated path).
    Note,
}

impl Severity {
    /// The severity as configurations and reports spell it (`error`, `warning`, `note`).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// What kind of failure a finding is, as users count them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// The path, lines or revision never existed.
    Invented,
    /// The citation exists but does not support what is said with it.
    Unsupported,
    /// The citation held when it was written and no longer holds at the target.
    Stale,
    /// Citations that are risky or out of scope, not wrong.
    Hygiene,
    /// The doc or the citation could not be read safely.
    Input,
}

impl Family {
    /// The family as reports and the summary spell it (`invented`, `stale`…).
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Invented => "invented",
            Family::Unsupported => "unsupported",
            Family::Stale => "stale",
            Family::Hygiene => "hygiene",
            Family::Input => "input",
        }
    }
}

/// Whether a rule's fix may be applied without a human looking at it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FixSafety {
    /// The cited content was found again, exactly and uniquely.
    Safe,
    /// No fix is offered.
    None,
}

/// A rule's catalogue entry, read from `rules/ID.yaml` (embedded at build time): the single
/// source for `citegate rules`, `citegate explain`, the README's rule table and severities.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleInfo {
    /// The rule's stable ID (`invented-path`); must match the file's name.
    pub id: String,
    /// The kind of failure its findings are counted as.
    pub family: Family,
    /// The severity its findings have unless the configuration changes it.
    pub severity: Severity,
    /// One line saying what the rule finds (the README's table and `citegate rules`).
    pub summary: String,
    /// Whether its fix may be applied without a human looking at it.
    pub fix: FixSafety,
    /// What the rule finds, in full (`citegate explain`).
    pub description: String,
    /// Why it matters, and why its fix is safe or not offered (`citegate explain`).
    pub why: String,
    /// The failing and the passing doc `citegate explain` runs.
    pub example: Example,
}

/// A failing and a passing doc for a rule, over a fixture repository (see
/// `crate::fixture`, built with the `testing` feature); run as tests and shown by `citegate explain`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Example {
    /// Where the doc is written in the repository (its extension decides Markdown or JSON).
    pub doc: String,
    /// The fixture repository the docs are checked against, in `crate::fixture`'s text form.
    pub repo: String,
    /// A doc the rule reports (`{{rev:LABEL}}` and `{{short:LABEL}}` name fixture commits).
    pub fail: String,
    /// The same doc written so that the rule reports nothing.
    pub pass: String,
}

/// The catalogue files, in [`RuleId::ALL`] order.
const CATALOGUE: [&str; 24] = [
    include_str!("../rules/invented-path.yaml"),
    include_str!("../rules/invented-lines.yaml"),
    include_str!("../rules/invented-revision.yaml"),
    include_str!("../rules/not-a-file.yaml"),
    include_str!("../rules/unsupported-quote.yaml"),
    include_str!("../rules/unsupported-literal.yaml"),
    include_str!("../rules/unsupported-source.yaml"),
    include_str!("../rules/unused-source.yaml"),
    include_str!("../rules/uncited-claim.yaml"),
    include_str!("../rules/not-retrieved.yaml"),
    include_str!("../rules/unsafe-path.yaml"),
    include_str!("../rules/foreign-citation.yaml"),
    include_str!("../rules/overbroad-span.yaml"),
    include_str!("../rules/malformed-doc.yaml"),
    include_str!("../rules/stale-moved.yaml"),
    include_str!("../rules/stale-renamed.yaml"),
    include_str!("../rules/stale-changed.yaml"),
    include_str!("../rules/stale-deleted.yaml"),
    include_str!("../rules/stale-ambiguous.yaml"),
    include_str!("../rules/blank-span.yaml"),
    include_str!("../rules/dead-doc-link.yaml"),
    include_str!("../rules/dead-doc-anchor.yaml"),
    include_str!("../rules/history-cut.yaml"),
    include_str!("../rules/unused-suppression.yaml"),
];

static INFOS: LazyLock<Vec<RuleInfo>> = LazyLock::new(|| {
    CATALOGUE
        .iter()
        .map(|text| serde_yaml_ng::from_str(text).expect("rules/*.yaml is checked by tests"))
        .collect()
});

/// Every finding ID. IDs are stable: reports, configs and the next features use them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RuleId {
    /// The cited file does not exist at the citation's revision.
    InventedPath,
    /// The cited line range is impossible or past the end of the file.
    InventedLines,
    /// The citation's pinned revision names no commit in the repository.
    InventedRevision,
    /// The cited path is a directory, submodule, symlink or binary blob.
    NotAFile,
    /// The quoted code is not inside the cited span.
    UnsupportedQuote,
    /// A code literal in the claim is not in any span the claim cites.
    UnsupportedLiteral,
    /// A numbered marker `[n]` has no source n in the `Sources:` list.
    UnsupportedSource,
    /// A listed source is never cited by a marker.
    UnusedSource,
    /// An answer or claim cites nothing and does not refuse.
    UncitedClaim,
    /// The cited span is not inside any chunk the answer was generated from.
    NotRetrieved,
    /// The cited path points outside the repository and is never read.
    UnsafePath,
    /// The permalink points into another repository and was not checked.
    ForeignCitation,
    /// One citation covers more lines than the threshold.
    OverbroadSpan,
    /// The doc cannot be read or parsed.
    MalformedDoc,
    /// The cited content moved to other lines of the same file.
    StaleMoved,
    /// The cited file was renamed; the content is in the new file.
    StaleRenamed,
    /// The cited content no longer occurs at the target.
    StaleChanged,
    /// The cited file is gone at the target and was not renamed.
    StaleDeleted,
    /// The cited content occurs more than once at the target.
    StaleAmbiguous,
    /// Every cited line is blank.
    BlankSpan,
    /// A link to a doc (Markdown, HTML, text) that does not exist.
    DeadDocLink,
    /// A link to a heading that its page does not have.
    DeadDocAnchor,
    /// Citations resolve by line history this clone does not have.
    HistoryCut,
    /// A suppression comment that suppresses nothing, is refused, or gives no reason.
    UnusedSuppression,
}

impl RuleId {
    /// Every rule, in catalogue order (as `citegate rules` lists them and SARIF indexes them).
    pub const ALL: [RuleId; 24] = [
        RuleId::InventedPath,
        RuleId::InventedLines,
        RuleId::InventedRevision,
        RuleId::NotAFile,
        RuleId::UnsupportedQuote,
        RuleId::UnsupportedLiteral,
        RuleId::UnsupportedSource,
        RuleId::UnusedSource,
        RuleId::UncitedClaim,
        RuleId::NotRetrieved,
        RuleId::UnsafePath,
        RuleId::ForeignCitation,
        RuleId::OverbroadSpan,
        RuleId::MalformedDoc,
        RuleId::StaleMoved,
        RuleId::StaleRenamed,
        RuleId::StaleChanged,
        RuleId::StaleDeleted,
        RuleId::StaleAmbiguous,
        RuleId::BlankSpan,
        RuleId::DeadDocLink,
        RuleId::DeadDocAnchor,
        RuleId::HistoryCut,
        RuleId::UnusedSuppression,
    ];

    /// Whether a finding of this rule at `severity` says a citation is wrong: the invented,
    /// unsupported and stale families, warnings included.
    pub fn says_wrong(self, severity: Severity) -> bool {
        severity != Severity::Note
            && matches!(
                self.info().family,
                Family::Invented | Family::Unsupported | Family::Stale
            )
    }

    /// The catalogue entry.
    pub fn info(self) -> &'static RuleInfo {
        let index = RuleId::ALL
            .iter()
            .position(|r| *r == self)
            .expect("every rule is in ALL");
        &INFOS[index]
    }

    /// The stable ID (`invented-path`).
    pub fn as_str(self) -> &'static str {
        match self {
            RuleId::InventedPath => "invented-path",
            RuleId::InventedLines => "invented-lines",
            RuleId::InventedRevision => "invented-revision",
            RuleId::NotAFile => "not-a-file",
            RuleId::UnsupportedQuote => "unsupported-quote",
            RuleId::UnsupportedLiteral => "unsupported-literal",
            RuleId::UnsupportedSource => "unsupported-source",
            RuleId::UnusedSource => "unused-source",
            RuleId::UncitedClaim => "uncited-claim",
            RuleId::NotRetrieved => "not-retrieved",
            RuleId::UnsafePath => "unsafe-path",
            RuleId::ForeignCitation => "foreign-citation",
            RuleId::OverbroadSpan => "overbroad-span",
            RuleId::MalformedDoc => "malformed-doc",
            RuleId::StaleMoved => "stale-moved",
            RuleId::StaleRenamed => "stale-renamed",
            RuleId::StaleChanged => "stale-changed",
            RuleId::StaleDeleted => "stale-deleted",
            RuleId::StaleAmbiguous => "stale-ambiguous",
            RuleId::BlankSpan => "blank-span",
            RuleId::DeadDocLink => "dead-doc-link",
            RuleId::DeadDocAnchor => "dead-doc-anchor",
            RuleId::HistoryCut => "history-cut",
            RuleId::UnusedSuppression => "unused-suppression",
        }
    }

    /// The rule with the stable ID `id` (`invented-path`); `None` when no rule is called so.
    pub fn from_id(id: &str) -> Option<RuleId> {
        RuleId::ALL.into_iter().find(|r| r.as_str() == id)
    }

    /// The rule an unknown ID was probably meant to name (`invented-paht`): the nearest by edit
    /// distance, within a third of the ID's length (at least 2); ties go to catalogue order.
    pub fn nearest(id: &str) -> Option<RuleId> {
        use rapidfuzz::distance::levenshtein;
        let limit = (id.chars().count() / 3).max(2);
        let args = levenshtein::Args::default().score_cutoff(limit);
        let near = levenshtein::BatchComparator::new(id.chars());
        (RuleId::ALL.into_iter())
            .filter_map(|r| Some((near.distance_with_args(r.as_str().chars(), &args)?, r)))
            .min_by_key(|(d, _)| *d)
            .map(|(_, r)| r)
    }
}

/// A rule ID is written as its stable string (`invented-path`) wherever it is serialised.
impl Serialize for RuleId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for RuleId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let id = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        RuleId::from_id(&id)
            .ok_or_else(|| serde::de::Error::custom(format_args!("no rule is called `{id}`")))
    }
}

impl std::fmt::Display for RuleId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_has_its_catalogue_entry() {
        for rule in RuleId::ALL {
            let info = rule.info();
            assert_eq!(info.id, rule.as_str(), "rules/{}.yaml", rule.as_str());
            assert!(!info.summary.is_empty() && !info.why.is_empty());
            assert_eq!(RuleId::from_id(rule.as_str()), Some(rule));
        }
        let files = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/rules"))
            .unwrap()
            .count();
        assert_eq!(
            files,
            RuleId::ALL.len(),
            "one YAML file per rule, no strays"
        );
    }
}
