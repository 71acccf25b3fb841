//! `citegate regenerate`: answers and docs re-grounded at the target behind the audit's own
//! fail-closed gate. The audit says what fails; `ground` moves what can be moved (content found
//! again, exactly and uniquely); `offline` gates each answer's result at the target and refuses
//! the rest; Markdown docs get `fix`'s re-anchoring in their own syntax (`markdown`); with
//! `--llm`, [`ask`] asks the model for what is still refused, and `paragraph` for Markdown
//! paragraphs. Nothing is written here: the caller prints the diff or writes the docs
//! atomically ([`write`](mod@write) lays a new answer out like the old one).

pub mod ask;
mod ground;
mod markdown;
mod offline;
pub mod outcome;
mod paragraph;
pub mod prompt;
pub mod report;
pub mod trace;
pub mod write;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use git2::Oid;
use serde_json::Value;

use citegate_engine::audit::{self, AuditError, AuditOptions};
use citegate_engine::check::quotes;
use citegate_engine::check::symbols::Symbols;
use citegate_engine::gate;
use citegate_engine::model::{
    AnswerId, DocId, DocKind, DocList, Finding, LineRange, PinMove, Report, Retrieved,
};
use citegate_engine::registry::{RuleId, Severity};
use citegate_engine::resolve::{CodeRepo, FileAt};
use citegate_engine::retrieve::{Index, Query};
use citegate_llm as llm;

pub use outcome::{
    Counts, Decision, Kind, Outcome, Place, Reason, Refusal, Regenerated, Rewritten,
};

/// How many chunks are retrieved per answer (and listed as searched in a refusal).
pub const DEFAULT_TOP_K: usize = 8;

#[derive(Debug, Clone)]
pub struct Options {
    pub audit: AuditOptions,
    pub top_k: usize,
    /// Ask this model for what offline re-grounding could not do.
    pub llm: Option<llm::LlmOptions>,
}

/// Why a run failed as a whole.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Audit(#[from] AuditError),
    /// The model named by `--llm` cannot be asked.
    #[error("--llm")]
    Model(#[source] llm::ModelError),
}

fn repo_error(path: &std::path::Path, e: git2::Error) -> AuditError {
    AuditError::Repo {
        path: path.to_path_buf(),
        source: e.into(),
    }
}

/// Audit the docs, then re-ground every answer and Markdown citation that fails, in stages:
/// plan (what fails, what it cited, where that content is now) → offline (answers moved to
/// content found again, exactly and once, or refused) → query (retrieval for the refused) → ask
/// (with `--llm`, the model for what is still refused) → outcome (one per answer, claim and
/// citation) → write (the new text of every doc) → trace (one record per question).
pub fn run(opts: &Options) -> Result<Regenerated, Error> {
    if let Some(llm) = &opts.llm {
        llm::check_url(&llm.url).map_err(Error::Model)?;
    }
    // One session for the audit, the re-grounding and the gate: one repository, one target,
    // one `.citegate.yaml`, so the gate's verdict is the audit's.
    let session = audit::Session::open(&opts.audit)?;
    let report = audit::run_in(&session, &opts.audit)?;
    let (repo, target) = (&session.repo, session.target);
    let plan = plan(repo, target, &report, &opts.audit.paths);
    let gate = gate::Gate::new(repo, target, &session.settings);
    let ctx = offline::Ctx {
        repo,
        target,
        gate: &gate,
        located: &plan.located,
    };
    let relocated = markdown::relocations(&gate, &report, &plan.failing_md, &plan.located, target);
    let paragraphs = match opts.llm {
        Some(_) => paragraph::failing(&report, &relocated),
        None => Vec::new(),
    };
    let mut work = offline_stage(&ctx, plan.pending);
    let index = query_stage(
        &session,
        opts,
        &report,
        &plan.docs,
        &ctx,
        &mut work,
        &paragraphs,
    )?;
    let asked = ask_stage(
        opts,
        &ctx,
        index.as_ref(),
        &plan.docs,
        &paragraphs,
        &mut work,
    )?;
    let mut outcomes = kept(&report);
    outcomes.extend(plan.unwritable);
    let (md_docs, md_outcomes) = markdown::docs(&report, &relocated, &asked.rewrites);
    outcomes.extend(md_outcomes);
    let mut run = assemble(&report, work, md_docs, asked.spent, outcomes);
    run.endpoint_failure = asked.endpoint_failure;
    Ok(run)
}

/// What a run works on, decided from the audit before anything moves.
struct Plan<'r> {
    /// The failing answers, each with the content its citations cited.
    pending: Vec<offline::Pending<'r>>,
    /// Outcomes decided already: answers that cannot be rewritten.
    unwritable: Vec<Outcome>,
    /// The failing Markdown citations.
    failing_md: Vec<markdown::Failing<'r>>,
    /// The run's own docs (never retrieved).
    docs: Arc<HashSet<String>>,
    /// Where the cited content is at the target.
    located: ground::Located,
}

/// Stage 1, plan: the failing answers and Markdown citations, what they cited (read once, on
/// one handle), and where that content is found at the target.
fn plan<'r>(
    repo: &CodeRepo,
    target: Oid,
    report: &'r Report,
    paths: &[std::path::PathBuf],
) -> Plan<'r> {
    let (mut pending, unwritable) = pending(report);
    let git = repo.worker();
    for p in &mut pending {
        p.read_contents(repo, &git);
    }
    let failing_md = markdown::failing(repo, report);
    let docs = Arc::new(doc_names(repo, report, paths));
    let located = locate(repo, target, &docs, &pending, &failing_md);
    Plan {
        pending,
        unwritable,
        failing_md,
        docs,
        located,
    }
}

/// Stage 2, offline: every failing answer moved where its content is found again, or refused;
/// nothing is retrieved yet (what moves needs no index).
fn offline_stage<'r>(
    ctx: &offline::Ctx,
    pending: Vec<offline::Pending<'r>>,
) -> Vec<offline::Work<'r>> {
    offline::Work::all(ctx, pending)
}

/// Stage 3, query: the retrieval index, read or built only when something is refused (its
/// refusal says what was searched; a model is asked with what was retrieved) or a paragraph is
/// to be rewritten; the refused answers' chunks retrieved, and their refusals written again
/// with what was searched.
fn query_stage(
    session: &audit::Session,
    opts: &Options,
    report: &Report,
    docs: &Arc<HashSet<String>>,
    ctx: &offline::Ctx,
    work: &mut [offline::Work],
    paragraphs: &[paragraph::Paragraph],
) -> Result<Option<Index>, Error> {
    let refused: Vec<usize> = (work.iter().enumerate())
        .filter(|(_, w)| w.refused())
        .map(|(i, _)| i)
        .collect();
    if refused.is_empty() && paragraphs.is_empty() {
        return Ok(None);
    }
    let (repo, target) = (&session.repo, session.target);
    let index =
        index(repo, target, opts, work, &refused).map_err(|e| repo_error(&report.git_dir, e))?;
    let wanted = Wanted {
        exclude: docs,
        docs: session.settings.config.retrieve_docs,
        top_k: opts.top_k,
    };
    // Only the refused need it: what was searched for their refusal, or the question to a model.
    retrieve(repo, &repo.worker(), &index, &wanted, work, &refused);
    offline::Work::redo(ctx, work, &refused);
    Ok(Some(index))
}

/// What asking the model gave: its cost and traces, the paragraphs it rewrote, and why the
/// endpoint failed when it did.
struct Asked {
    spent: ask::Spent,
    rewrites: Vec<paragraph::Rewrite>,
    endpoint_failure: Option<String>,
}

/// Stage 4, ask: with `--llm`, the model for each answer still refused and each failing
/// paragraph, every reply behind the gate.
fn ask_stage(
    opts: &Options,
    ctx: &offline::Ctx,
    index: Option<&Index>,
    docs: &Arc<HashSet<String>>,
    paragraphs: &[paragraph::Paragraph],
    work: &mut [offline::Work],
) -> Result<Asked, Error> {
    let (Some(llm), Some(index)) = (&opts.llm, index) else {
        return Ok(Asked {
            spent: ask::Spent::default(),
            rewrites: Vec::new(),
            endpoint_failure: None,
        });
    };
    let client = connect(llm)?;
    let client = client.as_ref();
    let mut spent = ask::stage(client, ctx, index, work, llm.concurrency);
    let (rewrites, more) = paragraph::stage(
        client,
        ctx,
        index,
        docs,
        paragraphs,
        opts.top_k,
        llm.concurrency,
    );
    spent.add(more);
    Ok(Asked {
        spent,
        rewrites,
        endpoint_failure: client.endpoint_failure(),
    })
}

/// The model at `--llm`: the HTTP client when citegate is built with the `llm` feature.
fn connect(llm: &llm::LlmOptions) -> Result<Box<dyn llm::ChatModel>, Error> {
    #[cfg(feature = "llm")]
    {
        Ok(Box::new(llm::http::Client::new(llm).map_err(Error::Model)?))
    }
    #[cfg(not(feature = "llm"))]
    {
        let _ = llm;
        Err(Error::Model(llm::ModelError::NotBuilt))
    }
}

/// Stages 5 to 7, outcome, write and trace: the run's outcomes (`outcomes`: those decided
/// before, with each answer's and claim's; every finding accounted for; sorted), the docs it
/// changes (by name), counts and traces.
fn assemble(
    report: &Report,
    work: Vec<offline::Work>,
    mut md_docs: Vec<Rewritten>,
    mut spent: ask::Spent,
    mut outcomes: Vec<Outcome>,
) -> Regenerated {
    let mut edits = Vec::new();
    for mut w in work {
        outcomes.append(&mut w.outcomes);
        edits.push((w.pending.doc, w.pending.span, w.value));
    }
    let mut changed = write::json_docs(report, edits);
    changed.append(&mut md_docs);
    changed.sort_by(|a, b| a.name.cmp(&b.name));
    account(report, &mut outcomes);
    // By place; at one place, the model's answer after what it replaced.
    outcomes.sort_by(|a, b| (&a.at, a.by_model()).cmp(&(&b.at, b.by_model())));
    let mut counts = Counts::of(&outcomes);
    counts.model_calls = spent.calls;
    counts.prompt_tokens = spent.prompt_tokens;
    counts.completion_tokens = spent.completion_tokens;
    spent
        .records
        .sort_by(|a, b| (&a.doc, a.answer).cmp(&(&b.doc, b.answer)));
    Regenerated {
        revision: report.revision.clone(),
        outcomes,
        docs: changed,
        counts,
        traces: spent.records,
        endpoint_failure: None,
    }
}

/// Every error and warning finding of the audit in one outcome: those the stages above decided
/// already are; the rest are about nothing regenerate can move (a path outside the repository,
/// a doc that cannot be read: refused and left as written) or say nothing is wrong with what is
/// cited (a blank or overbroad span, a dead doc link: kept, saying why).
fn account(report: &Report, outcomes: &mut Vec<Outcome>) {
    let mut seen: HashSet<String> = (outcomes.iter())
        .flat_map(|o| o.findings.iter().cloned())
        .collect();
    for f in &report.findings {
        if f.severity == Severity::Note || !seen.insert(f.at.fingerprint.clone()) {
            continue;
        }
        let doc = &report.docs[f.doc].doc;
        let answer = f.answer.map(AnswerId::index);
        let place = |o: &Outcome| o.at.doc == doc.name && answer.is_some() && o.at.answer == answer;
        // A link into another repository fails an answer (the gate cannot check it), never a
        // wiki.
        let markdown = doc.kind == DocKind::Markdown;
        let fails =
            gate::fails(f.rule, f.severity) && !(markdown && f.rule == RuleId::ForeignCitation);
        let why = format!("{}: {}", f.rule, f.message);
        let hygiene = format!("{why}; not a wrong citation: left as written");
        if !fails {
            if let Some(o) = outcomes.iter_mut().find(|o| place(o)) {
                o.findings.push(f.at.fingerprint.clone());
                if let Decision::Kept { hygiene: h @ None } = &mut o.decision {
                    *h = Some(hygiene);
                }
                continue;
            }
        }
        let at = Place {
            doc: doc.name.clone(),
            answer,
            line: answer.is_none().then_some(f.at.line),
            ..Place::default()
        };
        let decision = match fails {
            true => Decision::Refused(Refusal::new(Reason::NotRegrounded, why).left()),
            false => Decision::Kept {
                hygiene: Some(hygiene),
            },
        };
        let mut o = Outcome::new(at, decision);
        o.findings.push(f.at.fingerprint.clone());
        outcomes.push(o);
    }
    for o in outcomes.iter_mut() {
        o.findings.sort();
    }
}

/// What retrieval is asked for: the run's docs left out, docs at all only when configured.
struct Wanted<'a> {
    exclude: &'a Arc<HashSet<String>>,
    docs: bool,
    top_k: usize,
}

/// The retrieval index: offline, every query is known before the first search (those of the
/// refused answers), so only their tokens' postings are built; a model or a paragraph rewrite
/// searches for what it cannot know yet, so with `--llm` the index is whole.
fn index(
    repo: &CodeRepo,
    target: Oid,
    opts: &Options,
    work: &[offline::Work],
    refused: &[usize],
) -> Result<Index, git2::Error> {
    if opts.llm.is_some() {
        return Index::at(repo, target);
    }
    let none = Enclosing(Default::default());
    let terms: Vec<String> = (refused.iter())
        .map(|&i| query(&work[i].pending, &none).terms())
        .collect();
    let vocabulary = terms.iter().flat_map(|t| t.split(' ')).collect();
    Index::for_terms(repo, target, &vocabulary)
}

/// Retrieve at the target for the answers `which` (their own docs left out).
fn retrieve(
    repo: &CodeRepo,
    git: &git2::Repository,
    index: &Index,
    wanted: &Wanted,
    work: &mut [offline::Work],
    which: &[usize],
) {
    let top_k = wanted.top_k;
    let names = Enclosing::of(repo, git, index, which.iter().map(|&i| &work[i].pending));
    for &i in which {
        let p = &mut work[i].pending;
        let mut query = query(p, &names);
        query.exclude = wanted.exclude.clone();
        query.docs = wanted.docs;
        p.chunks = index
            .search(&query, top_k)
            .iter()
            .map(|h| h.chunk)
            .collect();
        p.retrieved = p.chunks.iter().map(|&c| index.retrieved(c)).collect();
        p.searched = searched(&p.retrieved);
    }
}

/// What a refusal lists as searched: each retrieved span as `path:lines`, in rank order, the
/// spans of one path that overlap (retrieval's chunks overlap by design) merged into the first.
fn searched(retrieved: &[Retrieved]) -> Vec<String> {
    let mut spans: Vec<(&str, LineRange)> = Vec::new();
    for r in retrieved {
        let mut span = r.lines;
        let mut first = None;
        let mut i = 0;
        // The listed spans are disjoint: the new one joins every one it overlaps, the first
        // keeping its place.
        while i < spans.len() {
            let (path, l) = spans[i];
            if path != r.path || l.end < span.start || span.end < l.start {
                i += 1;
                continue;
            }
            span = LineRange::new(l.start.min(span.start), l.end.max(span.end));
            if first.is_none() {
                first = Some(i);
                i += 1;
            } else {
                spans.remove(i);
            }
        }
        match first {
            Some(i) => spans[i].1 = span,
            None => spans.push((&r.path, span)),
        }
    }
    spans.iter().map(|(p, l)| format!("{p}:{l}")).collect()
}

/// The JSON answers with no finding that fails the gate: kept as they are.
fn kept(report: &Report) -> Vec<Outcome> {
    let mut out = Vec::new();
    let failing: HashSet<(DocId, AnswerId)> = (report.findings.iter())
        .filter(|f| gate::fails(f.rule, f.severity))
        .filter_map(|f| Some((f.doc, f.answer?)))
        .collect();
    for (d, doc) in report.docs.enumerated() {
        for (i, _) in doc.extracted.answers.enumerated() {
            if !failing.contains(&(d, i)) {
                out.push(Outcome::kept(Place::answer(&doc.doc.name, i.index())));
            }
        }
    }
    out
}

/// Every JSON answer with a finding that fails the gate.
fn pending(report: &Report) -> (Vec<offline::Pending<'_>>, Vec<Outcome>) {
    let mut out = Vec::new();
    let mut unwritable = Vec::new();
    // Grouped once: a scan of every pin move per answer grows with the square of the answers.
    let mut moves_of: HashMap<(DocId, AnswerId), Vec<&PinMove>> = HashMap::new();
    for m in &report.pin_moves {
        if let Some(a) = m.answer {
            moves_of.entry((m.doc, a)).or_default().push(m);
        }
    }
    for (d, doc) in report.docs.enumerated() {
        if doc.doc.kind == DocKind::Markdown {
            continue;
        }
        let failing: Vec<&Finding> = report
            .findings_of(d)
            .filter(|f| gate::fails(f.rule, f.severity))
            .collect();
        // What cannot be read as an answer (a key written twice, broken JSON) has no single
        // meaning to re-ground: listed as refused, left as written. A malformed part of an
        // answer that was read (`"refuse": {}`) is that answer's: it is refused with it, once.
        let unreadable = |f: &&&Finding| f.rule == RuleId::MalformedDoc && f.answer.is_none();
        for f in failing.iter().filter(unreadable) {
            let at = Place::line(&doc.doc.name, f.at.line);
            let why = format!("cannot be read as an answer: {}", f.message);
            let refusal = Refusal::new(Reason::NotRegrounded, why).left();
            let mut o = Outcome::new(at, Decision::Refused(refusal));
            o.findings.push(f.at.fingerprint.clone());
            unwritable.push(o);
        }
        let mut by_answer: HashMap<AnswerId, Vec<&Finding>> = HashMap::new();
        for f in &failing {
            if let Some(a) = f.answer {
                by_answer.entry(a).or_default().push(f);
            }
        }
        for (i, a) in doc.extracted.answers.enumerated() {
            let Some(findings) = by_answer.remove(&i) else {
                continue;
            };
            let text = &doc.doc.text[a.span.start..a.span.end];
            let value = match serde_json::from_str::<Value>(text) {
                Ok(v) => v,
                Err(e) => {
                    // Read by the audit, but not as a JSON value (a number past f64): listed,
                    // left as written.
                    let why = format!("the answer cannot be rewritten: {e}");
                    let refusal = Refusal::new(Reason::NotRegrounded, why).left();
                    let at = Place::answer(&doc.doc.name, i.index());
                    let mut o = Outcome::new(at, Decision::Refused(refusal));
                    o.findings = findings.iter().map(|f| f.at.fingerprint.clone()).collect();
                    unwritable.push(o);
                    continue;
                }
            };
            // A pinned answer's citations move with its pin: their fixes are the pin move's.
            let moves = moves_of.get(&(d, i)).into_iter().flatten();
            let fixes = findings
                .iter()
                .filter_map(|f| f.fix.as_ref())
                .chain(moves.flat_map(|m| &m.moves))
                .collect();
            out.push(offline::Pending {
                doc: d,
                fixes,
                chunks: Vec::new(),
                name: doc.doc.name.clone(),
                answer: i,
                span: a.span,
                units: &a.units,
                value,
                findings,
                contents: Vec::new(),
                retrieved: Vec::new(),
                searched: Vec::new(),
                own: a.retrieved.clone(),
            });
        }
    }
    (out, unwritable)
}

/// What to retrieve for an answer: its `question` (else its summary and claims), the paths it
/// cited, the definitions that enclosed its old spans, and its code literals.
/// The innermost definition that enclosed each failing citation's first line, at the revision it
/// was read at. At the index's own revision the index's definition chunks say it (no parse);
/// elsewhere each file is read and parsed once for all the answers citing it (parsing was most of
/// what a query cost), and only the names are kept.
struct Enclosing(std::collections::HashMap<(Oid, String, usize), String>);

impl Enclosing {
    fn of<'p, 'r: 'p>(
        repo: &CodeRepo,
        git: &git2::Repository,
        index: &Index,
        pending: impl Iterator<Item = &'p offline::Pending<'r>>,
    ) -> Enclosing {
        let mut wanted: std::collections::BTreeMap<(Oid, String), BTreeSet<usize>> =
            Default::default();
        for f in pending.flat_map(|p| &p.findings) {
            if let Some(key) = Self::key(f) {
                wanted.entry((key.0, key.1)).or_default().insert(key.2);
            }
        }
        let mut names = std::collections::HashMap::new();
        let mut at_index: std::collections::HashMap<
            &str,
            Vec<&citegate_engine::retrieve::chunk::Chunk>,
        > = Default::default();
        if wanted.keys().any(|(rev, _)| *rev == index.commit) {
            for c in index.chunks.iter().filter(|c| c.symbol.is_some()) {
                at_index.entry(c.path.as_str()).or_default().push(c);
            }
        }
        for ((rev, path), lines) in wanted {
            if rev == index.commit {
                let chunks = at_index
                    .get(path.as_str())
                    .map(Vec::as_slice)
                    .unwrap_or_default();
                for line in lines {
                    let innermost = chunks
                        .iter()
                        .filter(|c| c.start <= line && line <= c.end)
                        .min_by_key(|c| c.end - c.start);
                    if let Some(name) = innermost.and_then(|c| c.symbol.clone()) {
                        names.insert((rev, path.clone(), line), name);
                    }
                }
                continue;
            }
            let Ok(FileAt::Text(text)) = repo.file_at(git, rev, &path) else {
                continue;
            };
            let Some(symbols) = Symbols::parse(&path, &text) else {
                continue;
            };
            for line in lines {
                if let Some(name) = symbols.enclosing(&text, line).into_iter().next() {
                    names.insert((rev, path.clone(), line), name);
                }
            }
        }
        Enclosing(names)
    }

    /// A finding's revision, path and first line.
    fn key(f: &Finding) -> Option<(Oid, String, usize)> {
        let rev = f.revision?;
        let line = usize::try_from(f.lines?.start).ok()?;
        Some((rev, f.path.clone()?, line))
    }

    fn get(&self, f: &Finding) -> Option<&String> {
        self.0.get(&Self::key(f)?)
    }
}

fn query(p: &offline::Pending, names: &Enclosing) -> Query {
    let v = &p.value;
    let mut text = String::new();
    let mut push = |s: Option<&str>| {
        if let Some(s) = s {
            text.push_str(s);
            text.push('\n');
        }
    };
    match v.get("question").and_then(Value::as_str) {
        Some(q) => push(Some(q)),
        None => {
            push(v.get("summary").and_then(Value::as_str));
            for c in v
                .get("claims")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                push(c.get("text").and_then(Value::as_str));
            }
        }
    }
    let literals = text
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect();
    let mut paths = BTreeSet::new();
    let mut symbols = BTreeSet::new();
    for f in &p.findings {
        let Some(path) = f.path.as_deref() else {
            continue;
        };
        paths.insert(path.to_string());
        if let Some(name) = names.get(f) {
            symbols.insert(name.clone());
        }
    }
    Query {
        text,
        paths: paths.into_iter().collect(),
        symbols: symbols.into_iter().collect(),
        literals,
        exclude: Default::default(),
        docs: false,
    }
}

/// Every doc under the doc paths, audited in this run or not (another shard's, one the
/// configuration leaves out): docs are never evidence for docs.
fn doc_names(repo: &CodeRepo, report: &Report, paths: &[std::path::PathBuf]) -> HashSet<String> {
    let mut names: HashSet<String> = report.docs.iter().map(|d| d.doc.name.clone()).collect();
    if let Ok(files) = citegate_engine::discover::discover(paths, &|_| true, &Vec::new) {
        names.extend(files.iter().map(|f| audit::load::doc_name(repo, &f.path)));
    }
    names
}

/// Where every cited content is at the target, in one search of the tree (the docs themselves
/// are left out: they always hold what they quote).
fn locate(
    repo: &CodeRepo,
    target: Oid,
    docs: &HashSet<String>,
    pending: &[offline::Pending],
    markdown: &[markdown::Failing],
) -> ground::Located {
    let answers = pending
        .iter()
        .flat_map(|p| p.contents.iter().flat_map(|(_, c)| c.iter().cloned()));
    let texts: Vec<String> = answers
        .chain(markdown.iter().flat_map(|m| m.contents.iter().cloned()))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let skip: HashSet<&str> = docs.iter().map(String::as_str).collect();
    let found = quotes::locate(repo, target, &texts, &skip);
    texts.into_iter().zip(found).collect()
}

#[cfg(test)]
mod tests {
    use super::searched;
    use citegate_engine::model::{LineRange, Retrieved};

    #[test]
    fn overlapping_searched_spans_of_a_path_are_listed_once() {
        let r = |path: &str, start, end| Retrieved {
            path: path.into(),
            lines: LineRange::new(start, end),
        };
        let retrieved = [
            r("src/a.rs", 10, 20),
            r("src/b.rs", 1, 5),
            r("src/a.rs", 15, 30),
            r("src/a.rs", 40, 50),
            r("src/a.rs", 28, 41),
            r("src/b.rs", 6, 9),
            r("src/b.rs", 1, 5),
        ];
        assert_eq!(
            searched(&retrieved),
            ["src/a.rs:10-50", "src/b.rs:1-5", "src/b.rs:6-9"]
        );
    }
}
