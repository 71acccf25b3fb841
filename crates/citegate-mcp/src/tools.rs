//! What each MCP tool does, as plain functions over the repository (the server only routes):
//! inputs validated (each parameter one concrete JSON type), paths kept inside the repository,
//! inputs and replies bounded ([`super::bound`]), a fix given as the edit every other surface
//! makes.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use git2::Oid;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;
use serde_json::{json, Value};

use super::bound::{self, bounded, MAX_REPLY_BYTES};
use citegate_engine::audit::{self, AuditError, AuditOptions, Settings};
use citegate_engine::gate::service;
use citegate_engine::gate::{Gate, Retrieval};
use citegate_engine::model::{
    Applicability, CitedPath, DocKind, Finding, LineRange, Report, Span, Suppressed, Surface,
};
use citegate_engine::paths::resolve_path;
use citegate_engine::registry::RuleId;
use citegate_engine::resolve::{CodeRepo, FileAt};
use citegate_engine::retrieve::{Index, Query};

/// `check_answer`'s input.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = concrete)]
pub struct CheckAnswer {
    /// The answer object: {summary, citations[{path,startLine,endLine,quote}], refuse?} or
    /// {summary, claims, open_questions}.
    #[serde(default)]
    #[schemars(schema_with = "an_object")]
    pub answer: Option<Value>,
    /// The answer as JSON text, checked as received (instead of `answer`).
    #[serde(default)]
    pub answer_json: Option<String>,
    /// The chunks it was generated from, as `retrieve` gives them. Else its own `retrieved`.
    #[serde(default)]
    #[schemars(schema_with = "chunks")]
    pub retrieved: Option<Value>,
    /// Check against the code only when the answer carries no retrieval.
    #[serde(default)]
    pub no_retrieval: bool,
    /// Revision (default: HEAD).
    #[serde(default)]
    pub revision: Option<String>,
}

/// `check_docs`'s input.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = concrete)]
pub struct CheckDocs {
    /// Doc files or folders, relative to the repository.
    #[serde(default)]
    pub paths: Vec<String>,
    /// A doc's text, checked as if it were at `path` (history not used).
    #[serde(default)]
    pub text: Option<String>,
    /// Where `text` stands, relative to the repository.
    #[serde(default)]
    pub path: Option<String>,
}

/// `cite`'s input.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = concrete)]
pub struct Cite {
    /// A repository-relative file.
    #[serde(default)]
    pub path: Option<String>,
    /// First line (from 1).
    #[serde(default)]
    pub start_line: Option<i64>,
    /// Last line (default: `start_line`).
    #[serde(default)]
    pub end_line: Option<i64>,
    /// Text to find exactly (whitespace-normalised), in `path` or anywhere.
    #[serde(default)]
    pub quote: Option<String>,
    /// Revision (default: HEAD).
    #[serde(default)]
    pub revision: Option<String>,
}

/// `retrieve`'s input.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = concrete)]
pub struct Retrieve {
    pub question: String,
    /// How many chunks (default 5, at most 20).
    #[serde(default)]
    pub k: Option<usize>,
}

/// Every parameter one concrete JSON type, as clients that read a function schema strictly
/// (Gemini, OpenAI-style function schemas) or fill a form from it (the MCP Inspector) need: an
/// optional parameter is simply not `required`, never `["integer", "null"]`. A `null` sent
/// anyway still reads as absent.
fn concrete(schema: &mut Schema) {
    let properties = schema.get_mut("properties").and_then(Value::as_object_mut);
    for property in properties.into_iter().flat_map(|p| p.values_mut()) {
        let Some(property) = property.as_object_mut() else {
            continue;
        };
        // `#[serde(default)]` on an `Option` writes `default: null`, no value of the type.
        if property.get("default").is_some_and(Value::is_null) {
            property.remove("default");
        }
        let Some(types) = property.get_mut("type") else {
            continue;
        };
        if let Some(list) = types.as_array() {
            let concrete: Vec<&Value> = list.iter().filter(|t| *t != "null").collect();
            if let [only] = concrete[..] {
                *types = only.clone();
            }
        }
    }
}

/// `answer`'s schema: an object (a JSON text in `answer` is still read, as before
/// `answer_json`).
fn an_object(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "object"})
}

/// `retrieved`'s schema: the chunks [`citegate_engine::contract::payload_of`] reads (it also reads
/// `startLine`/`endLine`, and the list under an object's `retrieved` or `chunks`).
fn chunks(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "start_line": {"type": "integer"},
                "end_line": {"type": "integer"},
            },
            "required": ["path", "start_line"],
        },
    })
}

fn open(root: &Path, revision: Option<&str>) -> Result<(CodeRepo, Oid, Settings), String> {
    let s = audit::Session::at(root, revision, None).map_err(|e| match e {
        // The tools' parameter is `revision`, not the command line's flag.
        AuditError::Rev {
            flag: "--target",
            rev,
            message,
            hint,
        } => citegate_engine::error::chain(&AuditError::Rev {
            flag: "revision",
            rev,
            message,
            hint,
        }),
        e => citegate_engine::error::chain(&e),
    })?;
    Ok((s.repo, s.target, s.settings))
}

/// A repository-relative path that stays inside the repository, as the audit reads one.
pub(super) fn inside(path: &str) -> Result<String, String> {
    match resolve_path(path, None, false) {
        CitedPath::Repo(p) => Ok(p),
        _ => Err(format!("`{path}` is not a path inside the repository")),
    }
}

pub(super) fn check_answer(root: &Path, p: CheckAnswer) -> Result<String, String> {
    let text = match (p.answer, p.answer_json) {
        (Some(Value::String(text)), None) => bound::input("answer", &text)?.to_string(),
        (None, Some(text)) => bound::input("answer_json", &text)?.to_string(),
        (Some(answer), None) => bound::input_value("answer", &answer)?.to_string(),
        (None, None) => return Err("give `answer` (the object) or `answer_json` (its text)".into()),
        (Some(_), Some(_)) => return Err("give `answer` or `answer_json`, not both".into()),
    };
    let (repo, target, settings) = open(root, p.revision.as_deref())?;
    let settings = Settings {
        surface: Surface::Mcp,
        ..settings
    };
    let gate = Gate::new(&repo, target, &settings);
    let retrieved = match &p.retrieved {
        Some(r) => {
            let r = bound::input_value("retrieved", r)?;
            Some(citegate_engine::contract::payload_of(r).map_err(|e| format!("retrieved: {e}"))?)
        }
        None => None,
    };
    let retrieval = Retrieval::asked(retrieved.as_deref(), p.no_retrieval);
    let verdict = service::check(&gate, &text, retrieval);
    let out = match verdict.refusal {
        None => json!({"passed": true, "revision": target.to_string()}),
        Some(refusal) => json!({
            "passed": false,
            "revision": target.to_string(),
            "violations": verdict.violations,
            "refusal": refusal,
        }),
    };
    Ok(bounded(out, "violations"))
}

pub(super) fn check_docs(root: &Path, p: CheckDocs) -> Result<String, String> {
    let report = match (&p.text, &p.path) {
        (Some(text), Some(path)) => in_memory(root, &inside(path)?, text)?,
        (Some(_), None) => return Err("`text` needs the `path` it stands at".into()),
        (None, _) if p.paths.is_empty() => return Err("give `paths`, or `text` and `path`".into()),
        (None, _) => {
            let paths = p
                .paths
                .iter()
                .map(|d| inside(d).map(|d| root.join(d)))
                .collect::<Result<Vec<PathBuf>, String>>()?;
            // The tools offer no re-pins: none is made (see `AuditOptions::repins`).
            let opts = AuditOptions {
                paths,
                repo: Some(root.to_path_buf()),
                repins: false,
                ..AuditOptions::default()
            };
            audit::run(&opts).map_err(|e| citegate_engine::error::chain(&e))?
        }
    };
    Ok(bounded(findings(&report), "findings"))
}

/// A doc's text checked in memory as if it stood at `path` (no history: its citations resolve at
/// their own pins, else the target).
fn in_memory(root: &Path, path: &str, text: &str) -> Result<Report, String> {
    let (repo, target, settings) = open(root, None)?;
    let kind = DocKind::from_path(Path::new(path))
        .ok_or_else(|| format!("`{path}` is not a doc (.md, .json, .jsonl)"))?;
    let gate = Gate::new(&repo, target, &settings);
    let doc = match text.len() as u64 > audit::MAX_DOC_BYTES {
        false => gate.in_memory(path, kind, text.to_string()),
        // As `audit` reports the file (`audit::load::from_text`): a finding, the doc not read.
        true => {
            let mut doc = gate.in_memory(path, kind, String::new());
            let message = format!(
                "the doc is {} MiB, over the {} MiB limit",
                text.len() >> 20,
                audit::MAX_DOC_BYTES >> 20
            );
            let at = Span::new(0, 0);
            doc.extracted.problem(RuleId::MalformedDoc, at, message);
            doc
        }
    };
    let settings = Settings {
        history: false,
        ..settings
    };
    Ok(audit::check_docs(&repo, target, vec![doc], &settings))
}

/// The findings as an agent needs them: where, what, why, and the fix when there is one. Those
/// that do not count (baselined, suppressed by a comment, waived) are listed apart, under
/// `suppressed`, each with its `suppression` (kind, reason, a waiver's last day) and no fix.
fn findings(report: &Report) -> Value {
    let findings: Vec<Value> = (report.findings.iter())
        .map(|f| finding(report, f))
        .collect();
    let mut out = json!({
        "revision": report.revision,
        "citations": report.summary.citations,
        "findings": findings,
    });
    if !report.suppressed.is_empty() {
        let set_aside: Vec<Value> = (report.suppressed.iter())
            .map(|f| finding(report, f))
            .collect();
        out["suppressed"] = json!(set_aside);
    }
    out
}

/// One finding: where, what, why; its fix, or why it does not count.
fn finding(report: &Report, f: &Finding) -> Value {
    let mut v = json!({
                "rule": f.rule.as_str(),
                "severity": f.severity.as_str(),
                "doc": report.docs[f.doc].doc.name,
                "line": f.at.line,
                "column": f.at.column,
                "message": f.message,
    });
    if let Some(help) = &f.help {
        v["help"] = json!(help);
    }
    match &f.suppressed {
        None => {
            if let Some(fix) = fix_of(report, f) {
                v["fix"] = fix;
            }
        }
        Some(s) => {
            let mut why = json!({"kind": s.kind()});
            match s {
                Suppressed::Baseline => {}
                Suppressed::Inline { reason } => why["reason"] = json!(reason),
                Suppressed::Waiver { until, reason } => {
                    why["reason"] = json!(reason);
                    why["until"] = json!(until);
                }
            }
            v["suppression"] = why;
        }
    }
    v
}

/// A finding's fix as every surface carries it: where the citation will cite, and the edit that
/// writes it (the bytes it replaces, the same place in 1-based lines and columns counted in
/// Unicode code points, as a finding's own `line`/`column`, and the text that replaces them).
fn fix_of(report: &Report, f: &Finding) -> Option<Value> {
    let fix = f.offered_fix()?;
    let doc = &report.docs[f.doc].doc;
    let at = |byte| {
        let (line, column) = doc.lines.line_col(&doc.text, byte);
        json!({"line": line, "column": column})
    };
    let edit = &fix.edit;
    let applicability = match fix.applicability {
        Applicability::Safe => "safe",
        Applicability::OptIn => "opt-in",
    };
    Some(json!({
        "path": fix.path,
        "startLine": fix.start_line,
        "endLine": fix.end_line,
        "edit": {
            "byteStart": edit.byte_start,
            "byteEnd": edit.byte_end,
            "start": at(edit.byte_start),
            "end": at(edit.byte_end),
            "replacement": edit.replacement,
        },
        "applicability": applicability,
    }))
}

pub(super) fn cite(root: &Path, p: Cite) -> Result<String, String> {
    let (repo, target, _) = open(root, p.revision.as_deref())?;
    match (&p.quote, &p.path, p.start_line) {
        (Some(quote), path, _) => {
            let quote = bound::input("quote", quote)?;
            let path = path.as_deref().map(inside).transpose()?;
            let found =
                citegate_engine::retrieve::quote::find(&repo, target, quote, path.as_deref())?;
            Ok(bounded(found, "places"))
        }
        (None, Some(path), Some(start)) => {
            let lines = LineRange::new(start, p.end_line.unwrap_or(start));
            cite_lines(&repo, target, &inside(path)?, lines)
        }
        _ => Err("give `path` with `start_line` (and `end_line`), or a `quote`".into()),
    }
}

/// The exact text of `lines` of `path` at `target`, its citation and its permalink.
fn cite_lines(
    repo: &CodeRepo,
    target: Oid,
    path: &str,
    lines: LineRange,
) -> Result<String, String> {
    if lines.start < 1 || lines.end < lines.start {
        return Err(format!("lines {lines} cannot exist: lines count from 1"));
    }
    let git = repo.open().map_err(|e| e.message().to_string())?;
    let text = match repo.file_at(&git, target, path) {
        Ok(FileAt::Text(t)) => t,
        Ok(FileAt::Missing) => return Err(format!("`{path}` does not exist at {target}")),
        Ok(_) => return Err(format!("`{path}` is not a text file at {target}")),
        Err(e) => return Err(e.message().to_string()),
    };
    let all: Vec<&str> = text.lines().collect();
    if lines.end as usize > all.len() {
        return Err(format!("`{path}` has {} lines at {target}", all.len()));
    }
    let cited = all[lines.start as usize - 1..lines.end as usize].join("\n");
    let cited = citegate_engine::escape::clip(cited, MAX_REPLY_BYTES / 2);
    let web = repo.home.as_ref().map(|id| format!("https://{id}"));
    let permalink =
        web.map(|w| citegate_engine::forge::blob_url(&w, &target.to_string(), path, Some(lines)));
    let out = json!({
        "citation": format!("{path}:{lines}"),
        "revision": target.to_string(),
        "text": cited,
        "permalink": permalink,
    });
    Ok(bounded(out, "text"))
}

/// The retrieval index the server keeps between calls: one tree's, replaced when the target's
/// tree changes (the server writes nothing, so it does not use the on-disk cache's writes).
pub(super) type HeldIndex = Mutex<Option<Arc<Index>>>;

/// The index of `target`'s tree: the one held, else read from the cache or built, then held.
fn index(held: &HeldIndex, repo: &CodeRepo, target: Oid) -> Result<Arc<Index>, String> {
    let git = repo.open().map_err(|e| e.message().to_string())?;
    let tree = git
        .find_commit(target)
        .map_err(|e| e.message().to_string())?
        .tree_id();
    // A panic elsewhere while it was held leaves a whole index or none: still usable.
    let mut slot = held.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(index) = slot.as_ref().filter(|i| i.tree == tree) {
        return Ok(index.clone());
    }
    let index = Arc::new(Index::unwritten(repo, target).map_err(|e| e.message().to_string())?);
    *slot = Some(index.clone());
    Ok(index)
}

pub(super) fn retrieve(root: &Path, held: &HeldIndex, p: Retrieve) -> Result<String, String> {
    if bound::input("question", &p.question)?.trim().is_empty() {
        return Err("the question is empty".into());
    }
    let (repo, target, settings) = open(root, None)?;
    let index = index(held, &repo, target)?;
    let query = Query {
        text: p.question,
        docs: settings.config.retrieve_docs,
        ..Query::default()
    };
    let k = p.k.unwrap_or(5).clamp(1, 20);
    let chunks: Vec<Value> = index
        .search(&query, k)
        .iter()
        .map(|h| {
            let c = &index.chunks[h.chunk];
            let text =
                citegate_engine::escape::clip(index.text(&repo, h.chunk).unwrap_or_default(), 4096);
            json!({"citation": format!("{}:{}-{}", c.path, c.start, c.end), "text": text})
        })
        .collect();
    Ok(bounded(
        json!({"revision": target.to_string(), "chunks": chunks}),
        "chunks",
    ))
}
