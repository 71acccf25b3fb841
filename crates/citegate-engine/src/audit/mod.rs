//! The audit pipeline: [`load`] (discover, read and extract docs in parallel) → `plan` (resolve
//! pins, citation-level rules, group by blob) → [`crate::check`] (evidence per blob, in parallel)
//! → [`history`] (implied pins) → the rules at the blob, on stale verdicts, on claims and on docs →
//! a sorted [`Report`]. [`check_docs`] runs everything after loading, on docs held in memory.

mod aside;
pub mod dump;
pub mod fixpoint;
pub mod history;
pub mod load;
mod options;
mod order;
pub mod pins;
mod plan;
mod progress;
mod session;
mod settings;
mod split;
pub mod suppress;
pub mod verify;

use std::collections::{BTreeMap, HashMap};

use git2::Oid;
use rayon::prelude::*;

use crate::check::stale::{self, StaleItem, StaleVerdict};
use crate::check::{self, quotes, CiteFacts, Needs};
use crate::discover;
use crate::fix::Relocation;
use crate::model::{
    AnswerId, Applicability, AuditedDoc, CiteRef, DocId, Finding, Fix, PinMove, PinSource, Reason,
    RenamesSkipped, Report,
};
use crate::registry::{RuleId, Severity};
use crate::resolve::reads::read_each;
use crate::resolve::CodeRepo;
use crate::rules::{Rules, Subject};
use crate::select;
use aside::drop_aside;
use order::{position, sort_key};

pub use load::MAX_DOC_BYTES;
pub use options::{AuditError, AuditOptions, Shard};
pub use progress::{Progress, ProgressSink};
pub use session::Session;
pub use settings::{Levels, Settings, TODAY_VAR};
use split::{DOCS_PER_JOB, ITEMS_PER_JOB};

/// Run an audit: open the repository, resolve the settings and the target, load the docs (only
/// those a change can affect, with `--since`), and check them.
pub fn run(opts: &AuditOptions) -> Result<Report, AuditError> {
    let session = Session::open(opts)?;
    let report = run_in(&session, opts);
    // What the run read is freed while the caller writes the report: a run over a long history
    // holds thousands of folders and libgit2's caches, and freeing them was a serial tenth of a
    // second at the end of each run.
    drop_aside(session);
    report
}

/// Run an audit in a session already open (`regenerate` audits, then gates, in one); `opts`
/// selects the docs and the run's options, the session is what `opts` opened.
pub fn run_in(session: &Session, opts: &AuditOptions) -> Result<Report, AuditError> {
    with_docs(session, opts, |loaded| {
        let Loaded {
            repo,
            settings,
            target,
            docs,
            selection,
            renames_skipped,
        } = loaded;
        let mut report = check_docs(repo, target, docs, settings);
        settings.progress.finish();
        let broken = repo.broken_objects();
        if !broken.is_empty() {
            return Err(AuditError::Objects(broken));
        }
        report.selection = selection;
        // `--since`'s range first; else a commit a cited file was followed through.
        report.renames_skipped = renames_skipped.or_else(|| repo.renames_skipped());
        report.shard = opts.shard.map(|s| (s.index, s.count));
        report.settings = Some(settings.digest());
        // Links in reports go to --repo-url when given, else to the origin remote.
        let home = opts
            .repo_url
            .as_deref()
            .and_then(crate::forge::repo_id)
            .or_else(|| repo.home.clone());
        report.web_url = home.map(|id| format!("https://{id}"));
        Ok(report)
    })
}

/// `audit --dump`: every extracted citation and where it resolves, without checking it, written
/// into `sink` as it is resolved.
pub fn dump(opts: &AuditOptions, sink: &mut (dyn dump::Sink + Send)) -> Result<(), AuditError> {
    with_docs(&Session::open(opts)?, opts, |loaded| {
        let planned = dump::plan(loaded.repo, loaded.target, loaded.docs, loaded.settings);
        let broken = |repo: &crate::resolve::CodeRepo| match repo.broken_objects() {
            b if b.is_empty() => Ok(()),
            b => Err(AuditError::Objects(b)),
        };
        broken(loaded.repo)?;
        planned.write(sink).map_err(AuditError::Write)?;
        loaded.settings.progress.finish();
        // Resolving a pin reads no object that could be missing: what the history needed was
        // checked before anything was written.
        broken(loaded.repo)
    })
}

/// The docs an audit would check, read and extracted but not checked (the language server's
/// index of who cites what).
pub fn load_docs(opts: &AuditOptions) -> Result<(Vec<AuditedDoc>, Settings), AuditError> {
    let session = Session::open(opts)?;
    with_docs(&session, opts, |loaded| {
        Ok((loaded.docs, loaded.settings.clone()))
    })
}

/// What an audit has loaded: the repository, its settings, the target and the docs read.
pub(crate) struct Loaded<'a> {
    pub repo: &'a CodeRepo,
    pub settings: &'a Settings,
    pub target: Oid,
    pub docs: Vec<AuditedDoc>,
    /// With `--since`: why each doc was selected.
    pub selection: Option<Vec<Vec<Reason>>>,
    /// With `--since`: whether rename detection in the range stopped at the rename limit.
    pub renames_skipped: Option<RenamesSkipped>,
}

/// Load the docs of `session`'s repository that `opts` selects (only those a change can affect,
/// with `--since`) and hand them to `then`, inside the run's thread pool.
fn with_docs<T>(
    session: &Session,
    opts: &AuditOptions,
    then: impl FnOnce(Loaded<'_>) -> Result<T, AuditError> + Send,
) -> Result<T, AuditError>
where
    T: Send,
{
    let Session {
        repo,
        target,
        settings,
        ctx,
    } = session;
    let (repo, target) = (repo, *target);
    let repo_error = |e: git2::Error| AuditError::Repo {
        path: repo.git_dir.clone(),
        source: e.into(),
    };
    // Include and exclude globs are written from the repository root, where the file is.
    let wanted = |p: &std::path::Path| {
        let name = repo.relative(p);
        let name = name.unwrap_or_else(|| p.to_string_lossy().replace('\\', "/"));
        settings.config.wants_doc(&name)
    };
    let tracked = || repo.tracked_docs();
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = opts.jobs {
        pool = pool.num_threads(jobs(n)?);
    }
    let pool = pool
        .build()
        .map_err(|e| AuditError::Threads(e.to_string()))?;
    pool.install(|| {
        // Discovered on the run's threads: the index is read while the folders are walked.
        let mut files =
            discover::discover(&opts.paths, &wanted, &tracked).map_err(|e| AuditError::Path {
                path: e.path,
                error: e.error,
            })?;
        if let Some(shard) = opts.shard {
            files.retain(|f| shard.holds(&load::doc_name(repo, &f.path)));
        }
        let git = repo.open().map_err(repo_error)?;
        // With --since, the change is known before any doc is parsed: docs that cannot cite a
        // changed file (their text does not hold its name) are not even extracted.
        let change = match &opts.since {
            Some(since) => Some(since_change(repo, &git, since, target)?),
            None => None,
        };
        let keep =
            |name: &str, bytes: &[u8]| change.as_ref().is_none_or(|c| c.may_affect(name, bytes));
        settings.progress.stage("reading docs", files.len());
        let docs: Vec<AuditedDoc> = files
            .par_iter()
            .with_max_len(DOCS_PER_JOB)
            .filter_map(|f| {
                let d = load::read_and_extract(f, repo, ctx, &keep).map(|mut d| {
                    load::configure(&mut d, &settings.config);
                    d
                });
                settings.progress.advance();
                d
            })
            .collect();
        let (docs, selection) = match &change {
            Some(change) => {
                let (docs, reasons) = change.keep_selected(docs);
                (docs, Some(reasons))
            }
            None => (docs, None),
        };
        let renames_skipped = change.as_ref().and_then(select::Change::renames_skipped);
        then(Loaded {
            repo,
            settings,
            target,
            docs,
            selection,
            renames_skipped,
        })
    })
}

/// Worker threads per core, at most: each opens its own repository handle, and thousands of them
/// cost more than they bring (`-j 16000` did not finish in 100 s).
pub(crate) const MAX_JOBS_PER_CORE: usize = 8;

/// `--jobs N`, checked against the cores before any thread starts.
fn jobs(n: usize) -> Result<usize, AuditError> {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let max = MAX_JOBS_PER_CORE * cores;
    if n > max {
        return Err(AuditError::Threads(format!(
            "--jobs {n}: at most {max} ({MAX_JOBS_PER_CORE} per core, {cores} core{} here)",
            if cores == 1 { "" } else { "s" }
        )));
    }
    Ok(n.max(1))
}

/// What changed between merge-base(`since`, target) and the target.
fn since_change(
    repo: &CodeRepo,
    git: &git2::Repository,
    since: &str,
    target: Oid,
) -> Result<select::Change, AuditError> {
    let rev_error = |(message, hint): (String, Option<String>)| AuditError::Rev {
        flag: "--since",
        rev: since.to_string(),
        message,
        hint,
    };
    let base = repo.resolve_option(git, since).map_err(rev_error)?;
    select::Change::new(git, base, target).map_err(|e| rev_error((e.message().to_string(), None)))
}

/// Check docs held in memory against `target`: the whole audit after loading. Findings of rules
/// that are off for a doc are never made; the rest get the severity the settings give them.
/// Every fix is re-checked before it is kept ([`verify`]).
pub fn check_docs(
    repo: &CodeRepo,
    target: Oid,
    docs: Vec<AuditedDoc>,
    settings: &Settings,
) -> Report {
    let mut report = check_unverified(repo, target, docs, settings, &verify::Focus::default());
    let recheck = |docs: Vec<AuditedDoc>, s: &Settings, focus: &verify::Focus| {
        check_unverified(repo, target, docs, s, focus)
    };
    verify::fixes(repo, settings, &mut report, &recheck);
    suppress::apply(&mut report, settings);
    report
}

/// [`check_docs`] without re-checking the fixes; `focus`: the citations to check (all, or the
/// ones fixes wrote) and implied pins that blame does not decide (see [`verify::Focus`]).
fn check_unverified(
    repo: &CodeRepo,
    target: Oid,
    mut docs: Vec<AuditedDoc>,
    settings: &Settings,
    focus: &verify::Focus,
) -> Report {
    let wanted = |c: CiteRef| focus.wants(c);
    let mut implied = history::implied_when(settings.history, repo, target, &docs, &wanted);
    implied.extend(focus.kept.iter().map(|(c, i)| (*c, *i)));
    let implied = plan::drop_tentative(repo, target, &mut docs, implied);
    // Sorted in parallel: the map is then built from sorted entries in one pass.
    let mut implied_pins: Vec<(CiteRef, Oid)> =
        implied.par_iter().map(|(c, i)| (*c, i.pin)).collect();
    implied_pins.par_sort_unstable_by_key(|(c, _)| *c);
    let implied_pins: BTreeMap<CiteRef, Oid> = implied_pins.into_iter().collect();
    let levels = settings.levels(&docs);
    let enabled = |rule: RuleId, doc: DocId| levels.on(rule, doc);
    let rules = Rules {
        enabled: &enabled,
        max_span_lines: settings.max_span_lines,
        // --repo-url names the repository when no remote does.
        local_origin: (repo.local_origin.as_deref()).filter(|_| settings.repo_url_id.is_none()),
    };
    // A re-check of fixes judges the citations they wrote: the doc's own rules are not asked.
    let mut findings = match focus.only {
        None => per_doc(&docs, |i, d, out| rules.on_doc(i, d, out)),
        Some(_) => Vec::new(),
    };
    if focus.only.is_none() {
        // Links to headings: the pages they point into, each read once.
        let wanted = |doc: DocId| levels.on(RuleId::DeadDocAnchor, doc);
        for f in check::anchors::gather(repo, target, &docs, &wanted) {
            rules.on_anchor(&f, &mut findings);
        }
    }
    for (doc, (cut, boundary)) in history::cut_short(repo, &implied) {
        rules.on_history(doc, &docs[doc], &cut, boundary, repo.shallow, &mut findings);
    }
    let plan = plan::plan(repo, target, &docs, &implied, &rules, &wanted);
    findings.extend(plan.findings);
    settings
        .progress
        .stage("checking citations", plan.groups.len());
    let tick = || settings.progress.advance();
    let needs = LiteralsOn(&levels);
    let mut facts = check::gather(repo, &plan.groups, &docs, target, &needs, &tick);
    drop(plan.groups);
    history::recheck_at_target(repo, target, &docs, &mut facts, &needs);
    // The search for lost quotes (help-only, reading files no citation names) runs while the
    // stale comparison does: neither reads what the other writes.
    let (found, (mut stale_findings, repins, pin_moves)) = rayon::join(
        || match settings.quote_hints {
            true => quotes::elsewhere(repo, &docs, &facts, |f| {
                levels.on(RuleId::UnsupportedQuote, f.cite.doc)
            }),
            false => Vec::new(),
        },
        || stale_stage(repo, target, &docs, &facts, &rules, settings.repins),
    );
    quotes::fill_elsewhere(&mut facts, found);
    // The rules at the blob, in parallel; findings keep the facts' order (they are sorted later).
    let at_blob: Vec<Finding> = facts
        .par_iter()
        .with_max_len(ITEMS_PER_JOB)
        .flat_map_iter(|f| {
            let s = Subject::at(&docs, f.cite, f.commit, f.pin);
            let mut out = Vec::new();
            rules.at_blob(&s, f, &mut out);
            out
        })
        .collect();
    findings.extend(at_blob);
    findings.append(&mut stale_findings);
    claims_stage(&docs, &facts, &rules, &mut findings);
    // What the rules decided from is not needed past here: give it back, on every core, before
    // the report's positions and snippets are made (freed aside, it raised the wiki corpus's
    // peak RSS by up to 3 MB).
    facts
        .into_par_iter()
        .with_max_len(ITEMS_PER_JOB)
        .for_each(drop);
    let levels = Graded {
        levels: &levels,
        config: &settings.config,
    };
    let mut report = finish(repo, target, docs, findings, repins, &levels);
    report.pin_moves = pin_moves;
    report.implied = implied_pins;
    report
}

/// Literal support is gathered only for docs where `unsupported-literal` is on.
struct LiteralsOn<'a>(&'a Levels);

impl Needs for LiteralsOn<'_> {
    fn literals(&self, doc: DocId) -> bool {
        self.0.on(RuleId::UnsupportedLiteral, doc)
    }
}

/// Compare what held at an older revision with the target (in parallel by path); the `stale-*`
/// rules report the verdicts. Returns their findings, the opt-in re-pins of citations whose own
/// older pin still holds at the target (when `make_repins`), and the moves of doc pins
/// with their citations.
fn stale_stage(
    repo: &CodeRepo,
    target: Oid,
    docs: &[AuditedDoc],
    facts: &[CiteFacts],
    rules: &Rules<'_>,
    make_repins: bool,
) -> (Vec<Finding>, Vec<(DocId, Fix)>, Vec<PinMove>) {
    let mut findings = Vec::new();
    let mut by_path: BTreeMap<&str, Vec<StaleItem>> = BTreeMap::new();
    for f in facts.iter().filter(|f| f.commit != target) {
        let Some(held) = &f.held else { continue };
        let path = docs[f.cite.doc]
            .citation(f.cite.index)
            .repo_path()
            .unwrap_or("");
        by_path.entry(path).or_default().push(StaleItem {
            cite: f.cite,
            pin: f.pin,
            from: f.commit,
            held,
        });
    }
    let by_path: Vec<(&str, Vec<StaleItem>)> = by_path.into_iter().collect();
    // Blob IDs and the target's files are read and compared on every core (see `resolve::reads`).
    let verdicts: Vec<(StaleItem, StaleVerdict)> = read_each(
        repo,
        &by_path,
        |git, (path, items)| stale::read(repo, git, target, path, items),
        |(path, items), read| {
            stale::classify(repo, target, path, items, docs, read)
                .into_iter()
                .map(|(i, v)| (items[i], v))
                .collect::<Vec<_>>()
        },
    );
    let verdict_of: HashMap<CiteRef, &StaleVerdict> =
        verdicts.iter().map(|(item, v)| (item.cite, v)).collect();
    let pin_moves = pins::moves(docs, facts, &verdict_of, target);
    let mut repins = Vec::new();
    for (item, verdict) in &verdicts {
        let s = Subject::at(docs, item.cite, item.from, item.pin);
        if *verdict == StaleVerdict::Holds {
            if make_repins {
                repins.extend(repin(&s, target).map(|fix| (s.doc, fix)));
            }
            continue;
        }
        let answer = s
            .citation
            .answer
            .filter(|a| docs[s.doc].extracted.answers[*a].pin.is_some());
        let pin_move = pin_moves
            .iter()
            .find(|m| m.doc == s.doc && m.answer == answer);
        rules.on_stale(&s, target, verdict, pin_move, &mut findings);
    }
    repins.sort_by(|(a, x), (b, y)| {
        (&docs[*a].doc.name, x.edit.byte_start).cmp(&(&docs[*b].doc.name, y.edit.byte_start))
    });
    (findings, repins, pin_moves)
}

/// A citation whose own pin is older than the target but whose content is unchanged at the same
/// lines can be re-pinned: correct, but the user's choice (`citegate fix --repin`).
fn repin(s: &Subject<'_>, target: Oid) -> Option<Fix> {
    if s.pin != PinSource::Citation {
        return None;
    }
    let to = Relocation {
        rev: Some(target),
        ..Relocation::default()
    };
    s.fix(&to, Applicability::OptIn)
}

/// Claims: every checked literal must be supported by one of the claim's spans. Claims with a
/// citation that did not resolve to text are left alone (that citation is already a finding).
fn claims_stage(
    docs: &[AuditedDoc],
    facts: &[CiteFacts],
    rules: &Rules<'_>,
    findings: &mut Vec<Finding>,
) {
    let support: HashMap<_, &Vec<bool>> = facts
        .iter()
        .filter_map(|f| Some((f.cite, f.support.as_ref()?)))
        .collect();
    findings.extend(per_doc(docs, |di, d, out| {
        for (id, claim) in d.extracted.claims.enumerated() {
            if claim.citations.is_empty() || claim.literals.iter().all(|l| l.kind.is_none()) {
                continue;
            }
            let supports: Option<Vec<&Vec<bool>>> = (claim.citations.iter())
                .map(|&index| support.get(&CiteRef { doc: di, index }).copied())
                .collect();
            let Some(supports) = supports else { continue };
            let labels: Vec<String> = (claim.citations.iter())
                .map(|&ci| d.citation(ci).label())
                .collect();
            rules.on_claim(di, (id, claim), &supports, &labels, out);
        }
    }));
}

/// The findings `each` makes on every doc, per doc in parallel, in the docs' order.
fn per_doc(
    docs: &[AuditedDoc],
    each: impl Fn(DocId, &AuditedDoc, &mut Vec<Finding>) + Sync,
) -> Vec<Finding> {
    let found: Vec<Vec<Finding>> = (docs.par_iter().enumerate().with_max_len(DOCS_PER_JOB))
        .map(|(i, d)| {
            let mut out = Vec::new();
            each(DocId::new(i), d, &mut out);
            out
        })
        .collect();
    found.into_iter().flatten().collect()
}

/// Each finding of a JSON doc that no rule tied to an answer (a literal, a claim without a
/// usable citation, a problem inside one) is in the answer whose text holds it.
fn in_answers(docs: &[AuditedDoc], findings: &mut [Finding]) {
    for f in findings.iter_mut().filter(|f| f.answer.is_none()) {
        let answers = &docs[f.doc].extracted.answers;
        let after = answers.partition_point(|a| a.span.start <= f.span.start);
        f.answer = after
            .checked_sub(1)
            .map(AnswerId::new)
            .filter(|&i| f.span.end <= answers[i].span.end);
    }
}

/// The settings' severities, and the configuration's `generated` paths: a missing path it says
/// is generated at build time is a note, not an error.
struct Graded<'a> {
    levels: &'a Levels,
    config: &'a crate::config::Config,
}

impl Graded<'_> {
    fn grade(&self, f: &mut Finding) -> bool {
        let Some(severity) = self.levels.severity(f.rule, f.doc) else {
            return false;
        };
        // A rule that found its case only worth a note (a ref never fetched) keeps it a note.
        let noted = f.severity == Severity::Note && f.rule.info().severity != Severity::Note;
        f.severity = if noted { Severity::Note } else { severity };
        let generated = |p: &str| self.config.generated(p);
        if f.rule == RuleId::InventedPath && f.path.as_deref().is_some_and(generated) {
            f.severity = crate::registry::Severity::Note;
            f.help = Some("generated at build time (`generated` in .citegate.yaml)".into());
        }
        true
    }
}

/// Severities from the settings, findings sorted by doc, line, column and rule (whatever the
/// thread count), and the counts.
fn finish(
    repo: &CodeRepo,
    target: Oid,
    docs: Vec<AuditedDoc>,
    mut findings: Vec<Finding>,
    repins: Vec<(DocId, Fix)>,
    levels: &Graded,
) -> Report {
    findings.retain_mut(|f| levels.grade(f));
    findings.par_sort_unstable_by(|a, b| sort_key(a, &docs).cmp(&sort_key(b, &docs)));
    in_answers(&docs, &mut findings);
    // Positions and first fingerprints in parallel; then findings alike in everything a
    // fingerprint reads are told apart by their order in the doc.
    findings
        .par_iter_mut()
        .with_max_len(ITEMS_PER_JOB)
        .for_each(|f| {
            let doc = &docs[f.doc].doc;
            f.at = position(doc, f.span);
            f.at.fingerprint = crate::model::fingerprint(f.rule, doc, f.span, 0);
        });
    let mut alike: HashMap<&str, usize> = HashMap::new();
    let mut again = Vec::new();
    for (i, f) in findings.iter().enumerate() {
        let occurrence = alike.entry(&f.at.fingerprint).or_default();
        if *occurrence > 0 {
            again.push((i, *occurrence));
        }
        *occurrence += 1;
    }
    drop(alike);
    for (i, n) in again {
        let f = &mut findings[i];
        f.at.fingerprint = crate::model::fingerprint(f.rule, &docs[f.doc].doc, f.span, n);
    }
    let mut report = Report::new(target.to_string(), docs, findings);
    report.repins = repins;
    report.git_dir = repo.git_dir.clone();
    report
}
