//! What `regenerate` did to each answer (or claim, or Markdown citation): kept, re-grounded (old
//! and new citation) or refused (why, and what was searched), with the run's counts. An outcome
//! is its place, a [`Decision`] that carries only what its kind can have, and the findings it
//! accounts for; the JSON report writes it flat, as it always has.

use serde::Serialize;

use citegate_engine::contract::RefusalReason;
use citegate_engine::gate::Violation;

/// The kind of an outcome, without what it carries (its `outcome` in the JSON report).
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

/// Where an outcome is: its doc, and the answer, claim or Markdown line in it (ordered so).
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Place {
    pub doc: String,
    /// Index of the answer in its doc (Markdown: none).
    pub answer: Option<usize>,
    /// Index of the claim in its answer's `claims`.
    pub claim: Option<usize>,
    /// Markdown: the 1-based line of the citation.
    pub line: Option<usize>,
}

impl Place {
    /// The `index`th answer of `doc`.
    pub fn answer(doc: &str, index: usize) -> Place {
        Place {
            doc: doc.to_string(),
            answer: Some(index),
            ..Place::default()
        }
    }

    /// A Markdown citation on `line` of `doc`.
    pub fn line(doc: &str, line: usize) -> Place {
        Place {
            doc: doc.to_string(),
            line: Some(line),
            ..Place::default()
        }
    }
}

/// Why an answer, claim or citation was refused, and what was tried.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    pub reason: Reason,
    /// What could not be re-grounded, in words.
    pub why: String,
    /// A refusal that is listed but not written into the doc (a Markdown citation, an answer
    /// that cannot be read or rewritten): the doc keeps it as written.
    pub left_as_written: bool,
    /// The top retrieved chunks at the target (`path:start-end`).
    pub searched: Vec<String>,
    /// What the gate found in the last candidate.
    pub violations: Vec<Violation>,
}

impl Refusal {
    /// A refusal for `reason`, written into its doc, with nothing searched.
    pub fn new(reason: Reason, why: impl Into<String>) -> Refusal {
        Refusal {
            reason,
            why: why.into(),
            left_as_written: false,
            searched: Vec::new(),
            violations: Vec::new(),
        }
    }

    /// The same refusal, listed but left as written in its doc.
    pub fn left(self) -> Refusal {
        Refusal {
            left_as_written: true,
            ..self
        }
    }
}

/// What happened: each kind carries only what it can have.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Kept as written; with a finding that says nothing is wrong with what is cited (hygiene),
    /// the words saying so.
    Kept {
        hygiene: Option<String>,
    },
    /// Moved: its citations' old and new places, or the model's gated citations.
    Regrounded {
        moved: Vec<Moved>,
        /// The model wrote it (and it passed the gate): its citations.
        model: Option<Vec<String>>,
    },
    Refused(Refusal),
}

/// The outcome of one answer (`{summary, citations}`), one claim, or one Markdown citation.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub at: Place,
    pub decision: Decision,
    /// The fingerprints of the audit's error and warning findings this outcome accounts for:
    /// every one of a run's is in exactly one outcome.
    pub findings: Vec<String>,
}

impl Outcome {
    pub fn new(at: Place, decision: Decision) -> Outcome {
        Outcome {
            at,
            decision,
            findings: Vec::new(),
        }
    }

    /// Kept as written, nothing to say.
    pub fn kept(at: Place) -> Outcome {
        Outcome::new(at, Decision::Kept { hygiene: None })
    }

    pub fn kind(&self) -> Kind {
        match self.decision {
            Decision::Kept { .. } => Kind::Kept,
            Decision::Regrounded { .. } => Kind::Regrounded,
            Decision::Refused(_) => Kind::Refused,
        }
    }

    pub fn refusal(&self) -> Option<&Refusal> {
        match &self.decision {
            Decision::Refused(r) => Some(r),
            _ => None,
        }
    }

    /// Why it was refused, or kept with a finding.
    pub fn reason(&self) -> Option<Reason> {
        match &self.decision {
            Decision::Kept { hygiene: Some(_) } => Some(Reason::Hygiene),
            Decision::Refused(r) => Some(r.reason),
            _ => None,
        }
    }

    /// The words behind [`Outcome::reason`].
    pub fn why(&self) -> Option<&str> {
        match &self.decision {
            Decision::Kept { hygiene } => hygiene.as_deref(),
            Decision::Refused(r) => Some(&r.why),
            Decision::Regrounded { .. } => None,
        }
    }

    /// Whether the model wrote it.
    pub fn by_model(&self) -> bool {
        matches!(self.decision, Decision::Regrounded { model: Some(_), .. })
    }

    /// The citations it moved (none unless re-grounded).
    pub fn moved(&self) -> &[Moved] {
        match &self.decision {
            Decision::Regrounded { moved, .. } => moved,
            _ => &[],
        }
    }
}

/// An outcome as the JSON report writes it: one flat object, each field only where its kind
/// has it.
#[derive(Serialize)]
struct Wire<'a> {
    doc: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    answer: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    claim: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    outcome: Kind,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    moved: &'a [Moved],
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<Reason>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    left_as_written: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    searched: &'a [String],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    violations: &'a [Violation],
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    model: bool,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    citations: &'a [String],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    findings: &'a [String],
}

impl Serialize for Outcome {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let refusal = self.refusal();
        let model = match &self.decision {
            Decision::Regrounded { model, .. } => model.as_deref(),
            _ => None,
        };
        Wire {
            doc: &self.at.doc,
            answer: self.at.answer,
            claim: self.at.claim,
            line: self.at.line,
            outcome: self.kind(),
            moved: self.moved(),
            reason: self.reason(),
            left_as_written: refusal.is_some_and(|r| r.left_as_written),
            why: self.why(),
            searched: refusal.map_or(&[], |r| &r.searched),
            violations: refusal.map_or(&[], |r| &r.violations),
            model: model.is_some(),
            citations: model.unwrap_or_default(),
            findings: &self.findings,
        }
        .serialize(s)
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
            match &o.decision {
                Decision::Kept { .. } => c.kept += 1,
                Decision::Regrounded { .. } => c.regrounded += 1,
                Decision::Refused(r) => {
                    c.refused += 1;
                    c.refusals_written += usize::from(!r.left_as_written);
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
