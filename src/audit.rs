//! The audit pipeline: discover → read and extract (in parallel over docs) → resolve revisions →
//! check (in parallel over `(commit, path)` groups) → claim-level checks → sorted [`Report`].

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use git2::Oid;
use rayon::prelude::*;

use crate::check::stale::{self, StaleItem};
use crate::check::{self, AuditedDoc, CiteOutcome, CiteRef, Subject};
use crate::citation::{CitedPath, PinSource, Syntax};
use crate::config::{self, Config, ConfigError};
use crate::discover::{self, DocFile};
use crate::doc::{Doc, Span};
use crate::extract::literal::LiteralKind;
use crate::extract::{self, ExtractContext, Extracted};
use crate::finding::{Finding, Fix};
use crate::resolve::{blame, CodeRepo, RevError};
use crate::rules::{
    foreign_citation, invented_lines, invented_path, invented_revision, not_retrieved, unsafe_path,
    unsupported_literal, RuleId, Severity,
};
use crate::select::{self, Reason};

/// Docs larger than this are reported, not read.
pub const MAX_DOC_BYTES: u64 = 16 << 20;

/// Where progress is reported (a bar on a terminal); called from worker threads. The library
/// never prints: the binary decides whether and how to show it.
pub trait Progress: Send + Sync {
    /// A new stage with `total` steps.
    fn stage(&self, name: &'static str, total: usize);
    fn advance(&self, steps: usize);
    fn finish(&self);
}

/// An optional [`Progress`] sink.
#[derive(Clone, Default)]
pub struct ProgressSink(pub Option<std::sync::Arc<dyn Progress>>);

impl ProgressSink {
    fn stage(&self, name: &'static str, total: usize) {
        if let Some(p) = &self.0 {
            p.stage(name, total);
        }
    }

    fn advance(&self) {
        if let Some(p) = &self.0 {
            p.advance(1);
        }
    }

    fn finish(&self) {
        if let Some(p) = &self.0 {
            p.finish();
        }
    }
}

impl std::fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "ProgressSink(on)"
        } else {
            "ProgressSink(off)"
        })
    }
}

/// What to audit and how.
#[derive(Debug, Clone)]
pub struct AuditOptions {
    /// Doc files or folders.
    pub paths: Vec<PathBuf>,
    /// The code repository; `None`: the one holding the current folder.
    pub repo: Option<PathBuf>,
    /// What docs are checked against, and where unpinned citations resolve (default: the
    /// configuration's `target`, else `HEAD`).
    pub target: Option<String>,
    /// Check against the files on disk (uncommitted edits) instead of a revision.
    pub worktree: bool,
    /// Compare citations that held at an older revision with the target, and find the implied pin
    /// of unpinned citations that fail (blame).
    pub history: bool,
    /// The audited repository's URL, when its remotes do not name it.
    pub repo_url: Option<String>,
    /// Worker threads; `None`: one per core.
    pub jobs: Option<usize>,
    /// `overbroad-span` threshold (default: the configuration's, else 200).
    pub max_span_lines: Option<usize>,
    /// The configuration file (default: `.citegate.yaml` at the repository root, when present).
    pub config: Option<PathBuf>,
    /// Only the docs a change since this revision can affect.
    pub since: Option<String>,
    pub progress: ProgressSink,
}

impl Default for AuditOptions {
    fn default() -> Self {
        AuditOptions {
            paths: vec![PathBuf::from(".")],
            repo: None,
            target: None,
            worktree: false,
            history: true,
            repo_url: None,
            jobs: None,
            max_span_lines: None,
            config: None,
            since: None,
            progress: ProgressSink::default(),
        }
    }
}

/// A run that could not be made at all (exit code 2).
#[derive(Debug)]
pub enum AuditError {
    Repo { path: PathBuf, error: String },
    Rev { rev: String, message: String },
    Path { path: PathBuf, error: String },
    Threads(String),
    Config(ConfigError),
}

impl std::fmt::Display for AuditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuditError::Repo { path, error } => {
                write!(f, "{}: not a Git repository: {error}", path.display())
            }
            AuditError::Rev { rev, message } => write!(f, "--target {rev}: {message}"),
            AuditError::Path { path, error } => write!(f, "{}: {error}", path.display()),
            AuditError::Threads(e) => write!(f, "cannot start worker threads: {e}"),
            AuditError::Config(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for AuditError {}

/// Counts for the report's summary.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub docs: usize,
    /// JSON files that are not answers (package.json…).
    pub skipped: usize,
    pub citations: usize,
    pub by_rule: BTreeMap<&'static str, usize>,
    pub by_family: BTreeMap<&'static str, usize>,
    pub by_severity: BTreeMap<&'static str, usize>,
}

/// The outcome of an audit: every doc, every finding (sorted), and the counts.
#[derive(Debug)]
pub struct Report {
    /// Full SHA of the target.
    pub revision: String,
    pub docs: Vec<AuditedDoc>,
    pub findings: Vec<Finding>,
    /// Fixes that re-pin citations whose content is unchanged at an older pin (by doc index).
    pub repins: Vec<(usize, Fix)>,
    /// With `--since`: why each doc (same order as `docs`) was selected.
    pub selection: Option<Vec<Vec<Reason>>>,
    /// The repository's web address (`https://github.com/o/r`), for links in reports.
    pub web_url: Option<String>,
    /// The audited repository's Git folder.
    pub git_dir: PathBuf,
    pub summary: Summary,
}

impl Report {
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Error)
    }
}

/// Run an audit.
pub fn run(opts: &AuditOptions) -> Result<Report, AuditError> {
    let repo_start = opts.repo.clone().unwrap_or_else(|| PathBuf::from("."));
    let repo = CodeRepo::discover(&repo_start).map_err(|e| AuditError::Repo {
        path: repo_start.clone(),
        error: e.message().to_string(),
    })?;
    let config = match &opts.config {
        Some(path) => Config::load(path, false),
        None => match &repo.workdir {
            // Errors name the file as users know it: at the repository root.
            Some(w) => Config::load(&w.join(config::FILE_NAME), true).map_err(|mut e| {
                e.path = PathBuf::from(config::FILE_NAME);
                e
            }),
            None => Ok(None),
        },
    }
    .map_err(AuditError::Config)?
    .unwrap_or_default();
    let target_name = opts
        .target
        .clone()
        .or_else(|| config.target.clone())
        .unwrap_or_else(|| "HEAD".to_string());
    let max_span_lines = opts.max_span_lines.or(config.max_span_lines).unwrap_or(200);
    let default_rev = {
        let git = repo.open().map_err(|e| AuditError::Repo {
            path: repo_start.clone(),
            error: e.message().to_string(),
        })?;
        if opts.worktree {
            repo.snapshot_worktree(&git).map_err(|e| AuditError::Rev {
                rev: "--worktree".to_string(),
                message: e.message().to_string(),
            })?
        } else {
            repo.resolve(&git, &target_name)
                .map_err(|e| AuditError::Rev {
                    rev: target_name.clone(),
                    message: e.describe(&target_name).0,
                })?
        }
    };

    let files = discover::discover(&opts.paths, &|p| config.wants_doc(p)).map_err(|e| {
        AuditError::Path {
            path: e.path,
            error: e.error,
        }
    })?;
    let mut ctx = ExtractContext {
        repo_ids: repo.ids.clone(),
        workdir: repo.workdir.clone(),
        patterns: config.patterns.clone(),
    };
    if let Some(url) = &opts.repo_url {
        ctx.repo_ids.extend(crate::extract::forge::repo_id(url));
    }

    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = opts.jobs {
        builder = builder.num_threads(n.max(1));
    }
    let pool = builder
        .build()
        .map_err(|e| AuditError::Threads(e.to_string()))?;

    let progress = &opts.progress;
    pool.install(|| {
        let git = repo.open().map_err(|e| AuditError::Repo {
            path: repo_start.clone(),
            error: e.message().to_string(),
        })?;
        // With --since, the change is known before any doc is parsed: docs that cannot cite a
        // changed file (their text does not hold its name) are not even extracted.
        let change = match &opts.since {
            Some(since) => {
                let rev_error = |message: String| AuditError::Rev {
                    rev: format!("--since {since}"),
                    message,
                };
                let base = repo
                    .resolve(&git, since)
                    .map_err(|e| rev_error(e.describe(since).0))?;
                Some(
                    select::Change::new(&git, base, default_rev)
                        .map_err(|e| rev_error(e.message().to_string()))?,
                )
            }
            None => None,
        };
        let keep =
            |name: &str, bytes: &[u8]| change.as_ref().is_none_or(|c| c.may_affect(name, bytes));
        progress.stage("reading docs", files.len());
        let mut docs: Vec<AuditedDoc> = files
            .par_iter()
            .filter_map(|f| {
                let mut d = read_and_extract(f, &repo, &ctx, &keep);
                if let Some(d) = d.as_mut() {
                    configure(d, &config);
                }
                progress.advance();
                d
            })
            .collect();
        let mut selection = None;
        if let Some(change) = &change {
            let chosen = change.select(&docs);
            let mut kept = Vec::new();
            let mut reasons = Vec::new();
            for (i, d) in docs.into_iter().enumerate() {
                if let Some(r) = chosen.get(&i) {
                    reasons.push(r.iter().copied().collect());
                    kept.push(d);
                }
            }
            docs = kept;
            selection = Some(reasons);
        }
        let mut report = check_all(
            &repo,
            &git,
            default_rev,
            docs,
            opts.history,
            max_span_lines,
            progress,
        );
        progress.finish();
        apply_severities(&mut report, &config);
        report.selection = selection;
        // Links in reports go to --repo-url when given, else to the origin remote.
        let home = opts
            .repo_url
            .as_deref()
            .and_then(crate::extract::forge::repo_id)
            .or_else(|| repo.home.clone());
        report.web_url = home.map(|id| format!("https://{id}"));
        Ok(report)
    })
}

/// Read a doc file and extract it. Unreadable docs become a `malformed-doc` problem.
/// `keep` decides, from the doc's name and bytes, whether it is audited at all (`--since`).
fn read_and_extract(
    file: &DocFile,
    repo: &CodeRepo,
    ctx: &ExtractContext,
    keep: &(dyn Fn(&str, &[u8]) -> bool + Sync),
) -> Option<AuditedDoc> {
    let rel = repo.relative(&file.path);
    let name = rel
        .clone()
        .unwrap_or_else(|| file.path.to_string_lossy().replace('\\', "/"));
    let repo_dir = rel.map(|r| match r.rsplit_once('/') {
        Some((dir, _)) => dir.to_string(),
        None => String::new(),
    });
    let broken = |text: String, at: usize, message: String| {
        let doc = Doc::new(
            file.path.clone(),
            name.clone(),
            repo_dir.clone(),
            file.kind,
            text,
        );
        let mut extracted = Extracted::default();
        extracted.problem(RuleId::MalformedDoc, Span::new(at, at), message);
        keep(&name, doc.text.as_bytes()).then(|| AuditedDoc::new(doc, extracted))
    };
    match std::fs::metadata(&file.path) {
        Ok(m) if m.len() > MAX_DOC_BYTES => {
            return broken(
                String::new(),
                0,
                format!(
                    "the doc is {} MiB, over the {} MiB limit",
                    m.len() >> 20,
                    MAX_DOC_BYTES >> 20
                ),
            )
        }
        Err(e) => return broken(String::new(), 0, format!("cannot read the doc: {e}")),
        _ => {}
    }
    let bytes = match std::fs::read(&file.path) {
        Ok(b) => b,
        Err(e) => return broken(String::new(), 0, format!("cannot read the doc: {e}")),
    };
    if !keep(&name, &bytes) {
        return None;
    }
    if bytes.iter().take(8192).any(|&b| b == 0) {
        return broken(String::new(), 0, "the doc is a binary file".to_string());
    }
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
            // The lossy text has the same bytes up to the first invalid one.
            return broken(lossy, at, "the doc is not valid UTF-8".to_string());
        }
    };
    let doc = Doc::new(file.path.clone(), name, repo_dir, file.kind, text);
    let extracted = extract::extract(&doc, ctx);
    Some(AuditedDoc::new(doc, extracted))
}

/// A citation's own or doc-level pin, and where it came from.
fn pin_of(d: &AuditedDoc, index: usize) -> (Option<&str>, PinSource) {
    let c = d.citation(index);
    if let Some(p) = c.pin.as_deref() {
        return (Some(p), PinSource::Citation);
    }
    let doc_pin = c
        .answer
        .and_then(|a| d.extracted.answers[a].pin.as_deref())
        .or(d.extracted.doc_pin.as_deref());
    match doc_pin {
        Some(p) => (Some(p), PinSource::Doc),
        None => (None, PinSource::Target),
    }
}

/// Citations to check, grouped by the blob they cite.
type Groups = BTreeMap<(Oid, String), Vec<(CiteRef, PinSource)>>;

/// Check every group in parallel, one libgit2 handle per worker.
fn check_groups(
    repo: &CodeRepo,
    groups: Groups,
    docs: &[AuditedDoc],
    max_span_lines: usize,
    target: Oid,
    progress: &ProgressSink,
) -> Vec<(Oid, CiteOutcome)> {
    let groups: Vec<_> = groups.into_iter().collect();
    groups
        .par_iter()
        .map_init(
            || repo.worker(),
            |git, ((commit, path), cites)| {
                progress.advance();
                let compare = *commit != target;
                check::check_group(
                    repo,
                    git,
                    *commit,
                    path,
                    cites,
                    docs,
                    max_span_lines,
                    compare,
                )
                .into_iter()
                .map(|o| (*commit, o))
                .collect::<Vec<_>>()
            },
        )
        .flatten()
        .collect()
}

/// Drop the citations of syntaxes the configuration turns off, and apply path remaps.
fn configure(d: &mut AuditedDoc, config: &Config) {
    d.extracted.retain_citations(|c| config.syntax_on(c.syntax));
    for remap in &config.remap {
        if !d.doc.name.starts_with(remap.docs.as_str()) {
            continue;
        }
        for c in &mut d.extracted.citations {
            if c.syntax == Syntax::Permalink {
                continue;
            }
            if let CitedPath::Repo(p) = &c.path {
                c.path = crate::extract::resolve_path(p, Some(&remap.repo), false);
                // A rename fix would write the remapped path back: none is offered.
                c.path_span = None;
            }
        }
    }
}

/// Severities from the configuration (rules, per-path overrides); `off` drops the finding.
fn apply_severities(report: &mut Report, config: &Config) {
    let docs = &report.docs;
    report
        .findings
        .retain_mut(|f| match config.severity(f.rule, &docs[f.doc].doc.name) {
            Some(s) => {
                f.severity = s;
                true
            }
            None => false,
        });
    report.summary = summarize(&report.findings, &report.docs);
}

fn summarize(findings: &[Finding], docs: &[AuditedDoc]) -> Summary {
    let mut summary = Summary {
        docs: docs.iter().filter(|d| !d.extracted.skipped).count(),
        skipped: docs.iter().filter(|d| d.extracted.skipped).count(),
        citations: docs.iter().map(|d| d.extracted.citations.len()).sum(),
        ..Summary::default()
    };
    for f in findings {
        let info = f.rule.info();
        *summary.by_rule.entry(f.rule.as_str()).or_default() += 1;
        *summary.by_family.entry(info.family.as_str()).or_default() += 1;
        *summary.by_severity.entry(f.severity.as_str()).or_default() += 1;
    }
    summary
}

fn check_all(
    repo: &CodeRepo,
    git: &git2::Repository,
    target: Oid,
    docs: Vec<AuditedDoc>,
    history: bool,
    max_span_lines: usize,
    progress: &ProgressSink,
) -> Report {
    let mut findings: Vec<Finding> = Vec::new();
    repo.set_target(target);

    // Doc-level problems found by extraction.
    for (i, d) in docs.iter().enumerate() {
        for p in &d.extracted.problems {
            let mut f = Finding::new(p.rule, i, p.span, p.message.clone());
            f.help = p.help.clone();
            findings.push(f);
        }
    }

    // 1. Each citation at its pin (or the target), each distinct pin resolved once.
    let mut revs: HashMap<String, Result<Oid, RevError>> = HashMap::new();
    let mut groups = Groups::new();
    for (di, d) in docs.iter().enumerate() {
        for (ci, c) in d.extracted.citations.iter().enumerate() {
            let (pin, source) = pin_of(d, ci);
            let commit = match pin {
                None => Ok(target),
                Some(p) => revs
                    .entry(p.to_string())
                    .or_insert_with(|| repo.resolve(git, p))
                    .clone(),
            };
            let subject = Subject {
                doc: di,
                doc_text: &d.doc.text,
                citation: c,
                revision: commit.as_ref().ok().copied(),
                pin: source,
            };
            if let Some(foreign) = &c.foreign {
                findings.push(foreign_citation::finding(&subject, &foreign.repo_url));
                continue;
            }
            let path = match &c.path {
                CitedPath::Repo(p) => p,
                CitedPath::Unsafe { raw, reason } => {
                    findings.push(unsafe_path::finding(&subject, raw, reason));
                    continue;
                }
                CitedPath::Missing => {
                    findings.push(invented_path::no_path(&subject));
                    continue;
                }
            };
            let commit = match commit {
                Ok(c) => c,
                Err(e) => {
                    findings.push(invented_revision::finding(&subject, pin.unwrap_or(""), &e));
                    continue;
                }
            };
            if let Some(range) = c.lines {
                if let Some(f) = invented_lines::check_shape(&subject, range) {
                    findings.push(f);
                    continue;
                }
            }
            if let Some(retrieved) = c
                .answer
                .and_then(|a| d.extracted.answers[a].retrieved.as_deref())
            {
                findings.extend(not_retrieved::check(&subject, path, c.lines, retrieved));
            }
            groups
                .entry((commit, path.clone()))
                .or_default()
                .push((CiteRef { doc: di, index: ci }, source));
        }
    }
    let mut outcomes: Vec<(Oid, PinSource, CiteOutcome)> = Vec::new();
    let sources: HashMap<CiteRef, PinSource> = groups.values().flatten().copied().collect();
    progress.stage("checking citations", groups.len());
    for (commit, o) in check_groups(repo, groups, &docs, max_span_lines, target, progress) {
        outcomes.push((commit, sources[&o.cite], o));
    }

    // 2. Unpinned citations that fail at the target: did they hold when their line was written?
    if history {
        let failing: Vec<CiteRef> = outcomes
            .iter()
            .filter(|(_, source, o)| *source == PinSource::Target && o.held.is_none())
            .map(|(_, _, o)| o.cite)
            .collect();
        let implied = if failing.is_empty() {
            HashMap::new()
        } else {
            blame::implied_pins(git, target, &docs, &failing)
        };
        let mut again = Groups::new();
        for (cite, pin) in &implied {
            if *pin != target {
                if let Some(path) = docs[cite.doc].citation(cite.index).repo_path() {
                    again
                        .entry((*pin, path.to_string()))
                        .or_default()
                        .push((*cite, PinSource::Implied));
                }
            }
        }
        let held_then: HashMap<CiteRef, (Oid, CiteOutcome)> = check_groups(
            repo,
            again,
            &docs,
            max_span_lines,
            target,
            &ProgressSink::default(),
        )
        .into_iter()
        .filter(|(_, o)| o.held.is_some())
        .map(|(commit, o)| (o.cite, (commit, o)))
        .collect();
        for entry in &mut outcomes {
            if let Some((commit, then)) = held_then.get(&entry.2.cite) {
                // It held when written: its verdict is the comparison with the target.
                entry.0 = *commit;
                entry.1 = PinSource::Implied;
                entry.2.findings.clear();
                entry.2.held = then.held.clone();
                entry.2.lost_quote = None;
            }
        }
    }

    // 3. Collect, and compare what held at an older revision with the target.
    let mut support: HashMap<CiteRef, Vec<bool>> = HashMap::new();
    // Quotes found nowhere in their file, by (revision, file extension): (finding, quote).
    type LostQuotes = BTreeMap<(Oid, Option<String>), Vec<(usize, String)>>;
    let mut lost = LostQuotes::new();
    let mut stale_groups: BTreeMap<String, Vec<StaleItem>> = BTreeMap::new();
    for (commit, source, o) in outcomes {
        let quote_finding = o
            .findings
            .iter()
            .position(|f| f.rule == RuleId::UnsupportedQuote);
        if let (Some(q), Some(at)) = (o.lost_quote, quote_finding) {
            let ext = docs[o.cite.doc]
                .citation(o.cite.index)
                .repo_path()
                .and_then(|p| p.rsplit_once('.'))
                .map(|(_, e)| e.to_string());
            lost.entry((commit, ext))
                .or_default()
                .push((findings.len() + at, q));
        }
        findings.extend(o.findings);
        if let Some(s) = o.support {
            support.insert(o.cite, s);
        }
        if let Some(held) = o.held {
            if commit != target {
                let path = docs[o.cite.doc]
                    .citation(o.cite.index)
                    .repo_path()
                    .unwrap_or("")
                    .to_string();
                stale_groups.entry(path).or_default().push(StaleItem {
                    cite: o.cite,
                    pin: source,
                    from: commit,
                    held,
                });
            }
        }
    }
    let stale_groups: Vec<(String, Vec<StaleItem>)> = stale_groups.into_iter().collect();
    let stale: Vec<stale::StaleOutcome> = stale_groups
        .par_iter()
        .map_init(
            || repo.worker(),
            |git, (path, items)| stale::check_group(repo, git, target, path, items, &docs),
        )
        .collect();
    let mut repins = Vec::new();
    for s in stale {
        findings.extend(s.findings);
        repins.extend(s.repins);
    }
    repins.sort_by_key(|(doc, fix)| (docs[*doc].doc.name.clone(), fix.byte_start));

    // Quotes found nowhere in their file: name another file that holds them.
    let doc_paths: std::collections::HashSet<&str> = docs
        .iter()
        .filter(|d| d.doc.repo_dir.is_some())
        .map(|d| d.doc.name.as_str())
        .collect();
    for ((commit, ext), quotes) in lost {
        let texts: Vec<String> = quotes.iter().map(|(_, q)| q.clone()).collect();
        let hits = check::find_quotes_elsewhere(repo, commit, &texts, ext.as_deref(), &doc_paths);
        for ((fi, _), hit) in quotes.iter().zip(hits) {
            if let Some(other) = hit {
                findings[*fi].help = Some(format!(
                    "the quote is not in this file; it occurs in `{other}`"
                ));
            }
        }
    }

    // Claims: every checked literal must be supported by one of the claim's spans. Claims with a
    // citation that did not resolve to text are left alone (that citation is already a finding).
    for (di, d) in docs.iter().enumerate() {
        for (ki, claim) in d.extracted.claims.iter().enumerate() {
            let kinds = &d.literal_kinds[ki];
            if kinds.iter().all(Option::is_none) || claim.citations.is_empty() {
                continue;
            }
            let supports: Option<Vec<&Vec<bool>>> = claim
                .citations
                .iter()
                .map(|&ci| support.get(&CiteRef { doc: di, index: ci }))
                .collect();
            let Some(supports) = supports else { continue };
            let labels: Vec<String> = claim
                .citations
                .iter()
                .map(|&ci| d.citation(ci).label())
                .collect();
            for (li, kind) in kinds.iter().enumerate() {
                let Some(kind) = kind else { continue };
                if supports.iter().any(|s| s.get(li).copied().unwrap_or(false)) {
                    continue;
                }
                let identifier = matches!(kind, LiteralKind::Identifier { .. });
                findings.push(unsupported_literal::finding(
                    di,
                    &claim.literals[li],
                    &labels,
                    identifier,
                ));
            }
        }
    }

    sort_findings(&mut findings, &docs);
    let summary = summarize(&findings, &docs);
    Report {
        revision: target.to_string(),
        docs,
        findings,
        repins,
        selection: None,
        web_url: None,
        git_dir: repo.git_dir.clone(),
        summary,
    }
}

/// Sort by doc, line, column, rule (whatever the thread count).
fn sort_findings(findings: &mut [Finding], docs: &[AuditedDoc]) {
    fn key<'a>(f: &'a Finding, docs: &'a [AuditedDoc]) -> (&'a str, usize, RuleId, &'a str) {
        (&docs[f.doc].doc.name, f.span.start, f.rule, &f.message)
    }
    findings.sort_unstable_by(|a, b| key(a, docs).cmp(&key(b, docs)));
}
