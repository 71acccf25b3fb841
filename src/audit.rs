//! The audit pipeline: discover → read and extract (in parallel over docs) → resolve revisions →
//! check (in parallel over `(commit, path)` groups) → claim-level checks → sorted [`Report`].

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use git2::Oid;
use rayon::prelude::*;

use crate::check::{self, AuditedDoc, CiteRef, GroupResult, Subject};
use crate::citation::CitedPath;
use crate::discover::{self, DocFile};
use crate::doc::{Doc, Span};
use crate::extract::{self, ExtractContext, Extracted};
use crate::finding::Finding;
use crate::resolve::{CodeRepo, RevError};
use crate::rules::{
    foreign_citation, invented_lines, invented_path, invented_revision, not_retrieved, unsafe_path,
    unsupported_literal, RuleId, Severity,
};

/// Docs larger than this are reported, not read.
pub const MAX_DOC_BYTES: u64 = 16 << 20;

/// What to audit and how.
#[derive(Debug, Clone)]
pub struct AuditOptions {
    /// Doc files or folders.
    pub paths: Vec<PathBuf>,
    /// The code repository; `None`: the one holding the current folder.
    pub repo: Option<PathBuf>,
    /// Where unpinned citations resolve.
    pub rev: String,
    /// The audited repository's URL, when its remotes do not name it.
    pub repo_url: Option<String>,
    /// Worker threads; `None`: one per core.
    pub jobs: Option<usize>,
    /// `overbroad-span` threshold.
    pub max_span_lines: usize,
}

impl Default for AuditOptions {
    fn default() -> Self {
        AuditOptions {
            paths: vec![PathBuf::from(".")],
            repo: None,
            rev: "HEAD".to_string(),
            repo_url: None,
            jobs: None,
            max_span_lines: 200,
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
}

impl std::fmt::Display for AuditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuditError::Repo { path, error } => {
                write!(f, "{}: not a Git repository: {error}", path.display())
            }
            AuditError::Rev { rev, message } => write!(f, "--rev {rev}: {message}"),
            AuditError::Path { path, error } => write!(f, "{}: {error}", path.display()),
            AuditError::Threads(e) => write!(f, "cannot start worker threads: {e}"),
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

impl Summary {
    pub fn errors(&self) -> usize {
        self.by_severity.get("error").copied().unwrap_or(0)
    }
}

/// The outcome of an audit: every doc, every finding (sorted), and the counts.
#[derive(Debug)]
pub struct Report {
    /// Full SHA of `--rev`.
    pub revision: String,
    pub docs: Vec<AuditedDoc>,
    pub findings: Vec<Finding>,
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
    let default_rev = {
        let git = repo.open().map_err(|e| AuditError::Repo {
            path: repo_start.clone(),
            error: e.message().to_string(),
        })?;
        repo.resolve(&git, &opts.rev).map_err(|e| AuditError::Rev {
            rev: opts.rev.clone(),
            message: e.describe(&opts.rev).0,
        })?
    };

    let files = discover::discover(&opts.paths).map_err(|e| AuditError::Path {
        path: e.path,
        error: e.error,
    })?;
    let mut ctx = ExtractContext {
        repo_ids: repo.ids.clone(),
        workdir: repo.workdir.clone(),
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

    pool.install(|| {
        let docs: Vec<AuditedDoc> = files
            .par_iter()
            .map(|f| read_and_extract(f, &repo, &ctx))
            .collect();
        let git = repo.open().map_err(|e| AuditError::Repo {
            path: repo_start.clone(),
            error: e.message().to_string(),
        })?;
        Ok(check_all(&repo, &git, default_rev, docs, opts))
    })
}

/// Read a doc file and extract it. Unreadable docs become a `malformed-doc` problem.
fn read_and_extract(file: &DocFile, repo: &CodeRepo, ctx: &ExtractContext) -> AuditedDoc {
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
        AuditedDoc::new(doc, extracted)
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
    AuditedDoc::new(doc, extracted)
}

/// How a citation's revision was decided.
fn pin_of(d: &AuditedDoc, index: usize) -> Option<&str> {
    let c = d.citation(index);
    c.pin
        .as_deref()
        .or_else(|| c.answer.and_then(|a| d.extracted.answers[a].pin.as_deref()))
        .or(d.extracted.doc_pin.as_deref())
}

fn check_all(
    repo: &CodeRepo,
    git: &git2::Repository,
    default_rev: Oid,
    docs: Vec<AuditedDoc>,
    opts: &AuditOptions,
) -> Report {
    let mut findings: Vec<Finding> = Vec::new();
    let mut summary = Summary {
        docs: docs.iter().filter(|d| !d.extracted.skipped).count(),
        skipped: docs.iter().filter(|d| d.extracted.skipped).count(),
        citations: docs.iter().map(|d| d.extracted.citations.len()).sum(),
        ..Summary::default()
    };

    // Doc-level problems found by extraction.
    for (i, d) in docs.iter().enumerate() {
        for p in &d.extracted.problems {
            let mut f = Finding::new(p.rule, i, p.span, p.message.clone());
            f.help = p.help.clone();
            findings.push(f);
        }
    }

    // Resolve each distinct pin once.
    let mut revs: HashMap<String, Result<Oid, RevError>> = HashMap::new();
    let mut groups: BTreeMap<(Oid, String), Vec<CiteRef>> = BTreeMap::new();
    for (di, d) in docs.iter().enumerate() {
        for (ci, c) in d.extracted.citations.iter().enumerate() {
            let pin = pin_of(d, ci);
            let commit = match pin {
                None => Ok(default_rev),
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
                .push(CiteRef { doc: di, index: ci });
        }
    }

    // Read each blob once; one libgit2 handle per worker.
    let groups: Vec<((Oid, String), Vec<CiteRef>)> = groups.into_iter().collect();
    let results: Vec<((Oid, String), GroupResult)> = groups
        .par_iter()
        .map_init(
            || repo.open().ok(),
            |git, ((commit, path), cites)| {
                let result = match git {
                    Some(git) => check::check_group(
                        repo,
                        git,
                        *commit,
                        path,
                        cites,
                        &docs,
                        opts.max_span_lines,
                    ),
                    None => GroupResult::default(),
                };
                ((*commit, path.clone()), result)
            },
        )
        .collect();

    // Quotes found nowhere in their file: name another file that holds them.
    let mut support: HashMap<CiteRef, Vec<bool>> = HashMap::new();
    let mut lost: BTreeMap<Oid, Vec<(usize, String)>> = BTreeMap::new();
    for ((commit, _), result) in results {
        let base = findings.len();
        for (i, q) in result.lost_quotes {
            lost.entry(commit).or_default().push((base + i, q));
        }
        findings.extend(result.findings);
        support.extend(result.support);
    }
    let doc_paths: std::collections::HashSet<&str> = docs
        .iter()
        .filter(|d| d.doc.repo_dir.is_some())
        .map(|d| d.doc.name.as_str())
        .collect();
    for (commit, quotes) in lost {
        let texts: Vec<String> = quotes.iter().map(|(_, q)| q.clone()).collect();
        let hits = check::find_quotes_elsewhere(repo, git, commit, &texts, &doc_paths);
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
                let identifier = matches!(
                    kind,
                    crate::extract::literal::LiteralKind::Identifier { .. }
                );
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
    for f in &findings {
        let info = f.rule.info();
        *summary.by_rule.entry(f.rule.as_str()).or_default() += 1;
        *summary.by_family.entry(info.family.as_str()).or_default() += 1;
        *summary.by_severity.entry(f.severity.as_str()).or_default() += 1;
    }
    Report {
        revision: default_rev.to_string(),
        docs,
        findings,
        summary,
    }
}

/// Sort by doc, line, column, rule (whatever the thread count).
fn sort_findings(findings: &mut [Finding], docs: &[AuditedDoc]) {
    findings.sort_by(|a, b| {
        let key = |f: &Finding| {
            (
                docs[f.doc].doc.name.clone(),
                f.span.start,
                f.rule,
                f.message.clone(),
            )
        };
        key(a).cmp(&key(b))
    });
}
