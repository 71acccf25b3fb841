//! The gate: audit's own checker run on one answer at the target, in memory. An answer passes
//! when none of its citations is invented, unsupported or stale (warnings included) there, and,
//! when a retrieval payload is given, every citation is inside a retrieved chunk. A refusal
//! passes: it claims nothing.

pub mod reply;
pub mod service;

use std::path::PathBuf;

use git2::Oid;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::audit::{check_docs, Settings};
use crate::contract::{self, KeptAs, RefusalReason};
use crate::extract::{self, ExtractContext};
use crate::model::{AuditedDoc, DocKind, Finding, Retrieved, Surface};
use crate::registry::{RuleId, Severity};
use crate::resolve::CodeRepo;

/// Why an answer fails the gate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// The rule that failed it (`invented-path`, `unsupported-quote`, `not-retrieved`…).
    pub rule: RuleId,
    /// The citation, as `path:start-end`, when the violation is about one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub citation: Option<String>,
    /// What is wrong, as the finding says it.
    pub message: String,
}

/// Whether a finding of `rule` at `severity` fails the gate: the invented, unsupported and stale
/// families (warnings included), and whatever cannot be checked here at all: a path that leaves
/// the repository or cannot be one (`unsafe-path`), a doc that cannot be read, a citation into
/// another repository (found by fuzzing: `../../etc/passwd:1` passed).
pub fn fails(rule: RuleId, severity: Severity) -> bool {
    wrong(rule, severity)
        || matches!(
            rule,
            RuleId::UnsafePath | RuleId::MalformedDoc | RuleId::ForeignCitation
        )
}

/// Whether a finding says a Markdown citation is wrong (the invented, unsupported and stale
/// families, warnings included): what `regenerate` re-grounds in a doc. A link into another
/// repository is no error in a wiki; only the gate, which cannot check it, refuses it.
pub fn wrong(rule: RuleId, severity: Severity) -> bool {
    rule.says_wrong(severity)
}

/// Where the cited spans of an answer must lie (seed 000: cited ⊆ retrieved).
#[derive(Debug, Clone, Copy)]
pub enum Retrieval<'a> {
    /// In these chunks, whatever the answer carries.
    Given(&'a [Retrieved]),
    /// In the answer's own `retrieved` payload; an answer without one fails: fidelity cannot be
    /// checked, and the gate fails closed.
    Required,
    /// In the answer's own payload when it has one; without one, the code alone is checked
    /// (`--no-retrieval`, and offline re-grounding, which has no retrieval of its own).
    Optional,
}

impl<'a> Retrieval<'a> {
    /// What the front ends' options ask for: the chunks given (`--retrieved`, the MCP server's
    /// `retrieved`), else the answer's own payload, required unless `no_retrieval`.
    pub fn asked(given: Option<&'a [Retrieved]>, no_retrieval: bool) -> Self {
        match (given, no_retrieval) {
            (Some(r), _) => Retrieval::Given(r),
            (None, true) => Retrieval::Optional,
            (None, false) => Retrieval::Required,
        }
    }

    /// The chunks when there are some, else the answer's own payload if it has one.
    pub fn of(payload: Option<&'a [Retrieved]>) -> Self {
        payload.map_or(Retrieval::Optional, Retrieval::Given)
    }
}

/// The gate of one run: its repository, target and settings (the run's configuration: a rule it
/// turns off is off here too, so `audit`, `fix`, `regenerate` and `gate` give one verdict), built
/// once and asked for every answer.
pub struct Gate<'r> {
    /// The repository answers are checked against.
    pub repo: &'r CodeRepo,
    /// The commit answers are checked at.
    pub target: Oid,
    settings: Settings,
    ctx: ExtractContext,
}

impl<'r> Gate<'r> {
    /// The gate at `target` with `settings` (history is never used: an answer is checked as if
    /// written at the target).
    pub fn new(repo: &'r CodeRepo, target: Oid, settings: &Settings) -> Gate<'r> {
        // Where else a lost quote occurs is help text, which no verdict prints: not searched.
        let settings = Settings {
            history: false,
            quote_hints: false,
            repins: false,
            progress: Default::default(),
            ..settings.clone()
        };
        let ctx = settings.extract_context(repo);
        Gate {
            repo,
            target,
            settings,
            ctx,
        }
    }

    /// The settings the gate checks with (the run's, history off).
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Check `answer` (one answer object, either seed schema) as if it were the doc `name` at the
    /// target. The value is written out and read back: prefer [`Gate::check_text`] on the text
    /// as received (a key written twice only shows there).
    pub fn check(&self, name: &str, answer: &Value, retrieval: Retrieval) -> Vec<Violation> {
        let text = serde_json::to_string(answer).unwrap_or_default();
        self.check_text(name, &text, retrieval)
    }

    /// Check one answer's JSON text as if it were the doc `name` at the target: its citations
    /// resolve at the target whatever revision it names. Nothing is written anywhere.
    pub fn check_text(&self, name: &str, text: &str, retrieval: Retrieval) -> Vec<Violation> {
        self.check_texts(vec![(name, text)], retrieval)
            .pop()
            .unwrap_or_default()
    }

    /// [`Gate::check_text`] for many answers at once: one audit over all of them (a stream is
    /// checked in batches, as fast as the audit). One list of violations per answer, in order.
    pub(crate) fn check_texts(
        &self,
        answers: Vec<(&str, &str)>,
        retrieval: Retrieval,
    ) -> Vec<Vec<Violation>> {
        let each = answers.into_iter().map(|(n, t)| (n, t, retrieval));
        self.check_each(each.collect())
    }

    /// `Gate::check_texts` with each answer's own retrieval (`regenerate` gates every
    /// candidate of a run at once, each against its own answer's payload): the answers are read
    /// in parallel and checked in one audit, so each cited blob is read and line-indexed once
    /// for all of them. One list of violations per answer, in order.
    pub fn check_each(&self, answers: Vec<(&str, &str, Retrieval)>) -> Vec<Vec<Violation>> {
        use rayon::prelude::*;
        let read: Vec<Result<AuditedDoc, Vec<Violation>>> = answers
            .into_par_iter()
            .map(|(name, text, retrieval)| self.answer_doc(name, text, retrieval))
            .collect();
        let mut verdicts: Vec<Vec<Violation>> = vec![Vec::new(); read.len()];
        let mut docs = Vec::new();
        let mut owner = Vec::new();
        for (i, doc) in read.into_iter().enumerate() {
            match doc {
                Ok(doc) => {
                    docs.push(doc);
                    owner.push(i);
                }
                Err(v) => verdicts[i] = v,
            }
        }
        if docs.is_empty() {
            return verdicts;
        }
        let report = check_docs(self.repo, self.target, docs, &self.settings);
        for f in report.findings.iter().filter(|f| fails(f.rule, f.severity)) {
            verdicts[owner[f.doc.index()]].push(violation(f));
        }
        verdicts
    }

    /// One answer's text as a doc ready to check: pinned at the target, its retrieval set; or
    /// why it cannot be checked at all.
    fn answer_doc(
        &self,
        name: &str,
        text: &str,
        retrieval: Retrieval,
    ) -> Result<AuditedDoc, Vec<Violation>> {
        let text = text.trim_start_matches('\u{feff}');
        if !text.trim_start().starts_with('{') {
            return Err(vec![not_an_answer("the answer is not a JSON object")]);
        }
        let mut doc = self.in_memory(name, DocKind::Json, text.to_string());
        let problems: Vec<Violation> = (doc.extracted.problems.iter())
            .map(|p| Violation {
                rule: p.rule,
                citation: None,
                message: p.message.clone(),
            })
            .collect();
        let [answer] = doc.extracted.answers.as_mut_slice() else {
            return Err(match problems.is_empty() {
                true => vec![not_an_answer(
                    "not an answer: it has neither `citations` nor `claims`",
                )],
                false => problems,
            });
        };
        if answer.refused && problems.is_empty() {
            return Err(Vec::new()); // a refusal claims nothing: it passes
        }
        answer.pin = Some(self.target.to_string());
        answer.pin_span = None;
        match retrieval {
            Retrieval::Given(r) => answer.retrieved = Some(r.to_vec()),
            Retrieval::Required if answer.retrieved.is_none() => {
                return Err(vec![no_retrieval(self.settings.surface)]);
            }
            Retrieval::Required | Retrieval::Optional => {}
        }
        Ok(doc)
    }

    /// A doc held in memory as if it were `name` in the repository, extracted and configured as
    /// the run's docs are.
    pub fn in_memory(&self, name: &str, kind: DocKind, text: String) -> AuditedDoc {
        let repo_dir = name.rsplit_once('/').map(|(d, _)| d.to_string());
        crate::audit::load::named(
            PathBuf::from(name),
            name.to_string(),
            Some(repo_dir.unwrap_or_default()),
            kind,
            text,
            &self.ctx,
            &self.settings.config,
        )
    }

    /// The findings of one in-memory doc at the target (no implied pins: its unpinned
    /// citations resolve at the target) that fail the gate, and the doc as checked.
    pub fn failing(&self, doc: AuditedDoc) -> (Vec<Finding>, AuditedDoc) {
        let mut report = check_docs(self.repo, self.target, vec![doc], &self.settings);
        report.findings.retain(|f| fails(f.rule, f.severity));
        let doc = report.docs.pop().expect("the doc checked");
        (report.findings, doc)
    }

    /// Check a rewritten Markdown paragraph (`was` before) as if it stood in the doc `name`, at
    /// the target: no citation in it fails, it cites something, every citation lies inside a
    /// `retrieved` chunk, and it adds no link `was` did not have.
    pub(crate) fn check_paragraph(
        &self,
        name: &str,
        was: &str,
        text: &str,
        retrieved: &[Retrieved],
    ) -> Vec<Violation> {
        let doc = self.in_memory(name, DocKind::Markdown, format!("{text}\n"));
        let mut out: Vec<Violation> = Vec::new();
        if doc.extracted.citations.is_empty() {
            out.push(Violation {
                rule: RuleId::UncitedClaim,
                citation: None,
                message: "the paragraph cites nothing".into(),
            });
        }
        for c in &doc.extracted.citations {
            let (Some(path), Some(lines)) = (c.repo_path(), c.lines) else {
                continue;
            };
            let inside = retrieved
                .iter()
                .any(|r| r.path == path && r.lines.contains(&lines));
            if !inside {
                out.push(Violation {
                    rule: RuleId::NotRetrieved,
                    citation: Some(format!("{path}:{lines}")),
                    message: format!("`{path}:{lines}` is not inside any retrieved chunk"),
                });
            }
        }
        let before = links(was);
        for added in links(text).into_iter().filter(|l| !before.contains(l)) {
            out.push(Violation {
                rule: RuleId::UnsupportedSource,
                citation: None,
                message: format!(
                    "the rewrite adds a link the paragraph did not have: `{added}` (cite code as \
                     `path:start-end`; links are kept, never added)"
                ),
            });
        }
        out.extend(self.failing(doc).0.iter().map(violation));
        out
    }
}

/// Every link destination in a Markdown text: inline, reference and autolinks, images, and bare
/// URLs, as GitHub renders them (the extractor's GFM autolink rules).
fn links(text: &str) -> std::collections::BTreeSet<String> {
    use pulldown_cmark::{Event, Parser, Tag};
    let mut out = std::collections::BTreeSet::new();
    for event in Parser::new(text) {
        match event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                out.insert(dest_url.to_string());
            }
            Event::Text(t) => {
                out.extend(extract::markdown::autolinks(&t).map(|(_, url)| url.to_string()));
            }
            _ => {}
        }
    }
    out
}

/// The violation of an answer that carries no retrieval payload where one is required, worded
/// for the run's front end.
fn no_retrieval(surface: Surface) -> Violation {
    Violation {
        rule: RuleId::NotRetrieved,
        citation: None,
        message: crate::rules::not_retrieved::no_payload(surface),
    }
}

fn not_an_answer(message: &str) -> Violation {
    Violation {
        rule: RuleId::MalformedDoc,
        citation: None,
        message: message.to_string(),
    }
}

fn violation(f: &Finding) -> Violation {
    Violation {
        rule: f.rule,
        citation: f.path.as_ref().map(|p| match f.lines {
            Some(l) => format!("{p}:{l}"),
            None => p.clone(),
        }),
        message: f.message.clone(),
    }
}

/// The refusal the gate gives an answer it turned down (`no_span_in_retrieval`, searched: the
/// chunks it was checked against), with the violations. `answer` is what was received, read as
/// a value (`null` when it could not be).
pub fn refused(answer: &Value, retrieval: Retrieval, violations: &[Violation]) -> Value {
    let own = answer
        .get("retrieved")
        .and_then(|r| contract::payload_of(r).ok());
    let searched: Vec<String> = match retrieval {
        Retrieval::Given(r) => r,
        Retrieval::Required | Retrieval::Optional => own.as_deref().unwrap_or_default(),
    }
    .iter()
    .map(|r| format!("{}:{}", r.path, r.lines))
    .collect();
    let mut refused = contract::refusal(
        answer,
        answer,
        RefusalReason::NoSpanInRetrieval,
        &searched,
        KeptAs::Rejected,
    );
    if let Some(o) = refused.as_object_mut() {
        o.insert("violations".into(), json!(violations));
    }
    refused
}
