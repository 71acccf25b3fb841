//! What `regenerate` did to each answer (or claim, or Markdown citation): kept, re-grounded (old
//! and new citation) or refused (why, and what was searched), with the run's counts.

use serde::Serialize;

use crate::contract::RefusalReason;
use crate::gate::Violation;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Kept,
    Regrounded,
    Refused,
}

/// Why an outcome was refused, or kept with a finding (its `reason` in the JSON report).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// Refused as the contract says it: what was retrieved is older than the code.
    StaleIndex,
    /// Refused as the contract says it: nothing retrieved supports it.
    NoSpanInRetrieval,
    /// Refused as the contract says it: more than one place could be meant.
    Ambiguous,
    /// Refused: its content is found nowhere exactly and once at the target.
    NotRegrounded,
    /// Refused: a Markdown citation whose move another citation on its line blocks.
    Blocked,
    /// Refused: a Markdown citation held by its doc's pin.
    DocPin,
    /// Kept with a finding that says nothing is wrong with what is cited: regenerate leaves it.
    Hygiene,
}

impl Reason {
    /// The outcome reason of a refusal written with `reason`.
    pub fn refused(reason: RefusalReason) -> Reason {
        match reason {
            RefusalReason::StaleIndex => Reason::StaleIndex,
            RefusalReason::NoSpanInRetrieval => Reason::NoSpanInRetrieval,
            RefusalReason::Ambiguous => Reason::Ambiguous,
        }
    }

    /// The reason as the JSON report writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::StaleIndex => "stale_index",
            Reason::NoSpanInRetrieval => "no_span_in_retrieval",
            Reason::Ambiguous => "ambiguous",
            Reason::NotRegrounded => "not_regrounded",
            Reason::Blocked => "blocked",
            Reason::DocPin => "doc_pin",
            Reason::Hygiene => "hygiene",
        }
    }
}

/// A citation moved by re-grounding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Moved {
    pub from: String,
    pub to: String,
}

/// The outcome of one answer (`{summary, citations}`), one claim, or one Markdown citation.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub doc: String,
    /// Index of the answer in its doc (Markdown: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<usize>,
    /// Index of the claim in its answer's `claims`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim: Option<usize>,
    /// Markdown: the 1-based line of the citation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    pub outcome: Kind,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub moved: Vec<Moved>,
    /// Why it was refused, or kept with a finding.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
    /// A refusal that is listed but not written into the doc (a Markdown citation, an answer
    /// that cannot be read or rewritten): the doc keeps it as written.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub left_as_written: bool,
    /// What could not be re-grounded, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The top retrieved chunks at the target (`path:start-end`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub searched: Vec<String>,
    /// What the gate found in the last candidate.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub violations: Vec<Violation>,
    /// The model wrote it (and it passed the gate): its citations.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub model: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub citations: Vec<String>,
    /// The fingerprints of the audit's error and warning findings this outcome accounts for:
    /// every one of a run's is in exactly one outcome.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<String>,
}

impl Outcome {
    pub fn new(doc: &str, outcome: Kind) -> Outcome {
        Outcome {
            doc: doc.to_string(),
            answer: None,
            claim: None,
            line: None,
            outcome,
            moved: Vec::new(),
            reason: None,
            why: None,
            searched: Vec::new(),
            violations: Vec::new(),
            model: false,
            citations: Vec::new(),
            left_as_written: false,
            findings: Vec::new(),
        }
    }
}

/// Counts for the summary line and the JSON report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub kept: usize,
    pub regrounded: usize,
    pub refused: usize,
    /// Of the refused, those written into their doc (a `refuse` object, or an `open_questions`
    /// entry per claim); the others are listed and left as written.
    pub refusals_written: usize,
    pub model_calls: usize,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

impl Counts {
    pub fn of(outcomes: &[Outcome]) -> Counts {
        let mut c = Counts::default();
        for o in outcomes {
            match o.outcome {
                Kind::Kept => c.kept += 1,
                Kind::Regrounded => c.regrounded += 1,
                Kind::Refused => {
                    c.refused += 1;
                    c.refusals_written += usize::from(!o.left_as_written);
                }
            }
        }
        c
    }
}

/// A doc's text before and after re-grounding.
#[derive(Debug)]
pub struct Rewritten {
    pub name: String,
    pub fs_path: std::path::PathBuf,
    pub before: String,
    pub after: String,
}

/// What a run found and would write.
#[derive(Debug)]
pub struct Regenerated {
    pub revision: String,
    pub outcomes: Vec<Outcome>,
    pub docs: Vec<Rewritten>,
    pub counts: Counts,
    /// One record per answer the model was asked about (`--trace`).
    pub traces: Vec<super::trace::Record>,
    /// Why the model endpoint failed, when it did (the run is incomplete: exit 2).
    pub endpoint_failure: Option<String>,
}
