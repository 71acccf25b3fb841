//! The requests the server answers, on the worker pool: a panic is an error response,
//! never a dead server.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use lsp_server::{ErrorCode, Request, Response};
use lsp_types::{
    request::{self as r, Request as _},
    CodeActionParams, CodeLens, CodeLensParams, Diagnostic, DocumentDiagnosticParams,
    DocumentDiagnosticReport, FullDocumentDiagnosticReport, GotoDefinitionParams, HoverParams,
    RelatedFullDocumentDiagnosticReport, RenameFilesParams, Uri, WorkspaceDiagnosticParams,
    WorkspaceDiagnosticReport, WorkspaceDocumentDiagnosticReport, WorkspaceEdit,
    WorkspaceFullDocumentDiagnosticReport,
};
use serde_json::Value;

use super::analysis::diagnostic;
use super::code;
use super::state::{failure, State};
use super::text::{path_uri, uri_path, Positions};
use citegate_engine::audit::{self, AuditOptions};
use citegate_engine::model::DocList;

pub(super) fn respond(state: &State, request: Request) -> Response {
    let id = request.id.clone();
    let method = request.method.clone();
    match catch_unwind(AssertUnwindSafe(|| answer(state, request))) {
        Ok(Ok(value)) => Response::new_ok(id, value),
        Ok(Err((code, message))) => Response::new_err(id, code as i32, message),
        Err(_) => Response::new_err(
            id,
            ErrorCode::InternalError as i32,
            format!("citegate failed while answering {method}"),
        ),
    }
}

type Answer = Result<Value, (ErrorCode, String)>;

fn params<T: serde::de::DeserializeOwned>(request: Request) -> Result<T, (ErrorCode, String)> {
    serde_json::from_value(request.params).map_err(|e| (ErrorCode::InvalidParams, e.to_string()))
}

fn json(value: impl serde::Serialize) -> Answer {
    serde_json::to_value(value).map_err(|e| (ErrorCode::InternalError, e.to_string()))
}

fn answer(state: &State, request: Request) -> Answer {
    match request.method.as_str() {
        r::DocumentDiagnosticRequest::METHOD => {
            let p: DocumentDiagnosticParams = params(request)?;
            let (version, items) = state.diagnostics(&p.text_document.uri);
            json(DocumentDiagnosticReport::Full(
                RelatedFullDocumentDiagnosticReport {
                    related_documents: None,
                    full_document_diagnostic_report: FullDocumentDiagnosticReport {
                        result_id: version.map(|v| v.to_string()),
                        items,
                    },
                },
            ))
        }
        r::WorkspaceDiagnosticRequest::METHOD => {
            let _: WorkspaceDiagnosticParams = params(request)?;
            json(workspace_diagnostics(state))
        }
        r::CodeActionRequest::METHOD => {
            let p: CodeActionParams = params(request)?;
            let uri = &p.text_document.uri;
            let Ok(a) = state.analysis(uri) else {
                return Ok(Value::Null);
            };
            let only = p.context.only.as_deref();
            json(a.code_actions(uri, p.range, only, state.encoding))
        }
        r::HoverRequest::METHOD => {
            let p: HoverParams = params(request)?;
            let at = p.text_document_position_params;
            let Ok(a) = state.analysis(&at.text_document.uri) else {
                return Ok(Value::Null);
            };
            let offset = a.offset(at.position, state.encoding);
            json(a.hover(offset, state.encoding))
        }
        r::GotoDefinition::METHOD => {
            let p: GotoDefinitionParams = params(request)?;
            let at = p.text_document_position_params;
            let Ok(a) = state.analysis(&at.text_document.uri) else {
                return Ok(Value::Null);
            };
            json(a.definition(a.offset(at.position, state.encoding)))
        }
        r::CodeLensRequest::METHOD => {
            let p: CodeLensParams = params(request)?;
            json(lenses(state, &p.text_document.uri))
        }
        r::WillRenameFiles::METHOD => {
            let p: RenameFilesParams = params(request)?;
            json(rename(state, &p))
        }
        method => Err((
            ErrorCode::MethodNotFound,
            format!("unknown method {method}"),
        )),
    }
}

/// Every doc of every workspace folder, as `citegate audit` there reports it (open docs as
/// edited).
fn workspace_diagnostics(state: &State) -> WorkspaceDiagnosticReport {
    let roots = state.roots.lock().expect("roots lock").clone();
    let open = state.open_docs();
    let mut items: BTreeMap<String, WorkspaceDocumentDiagnosticReport> = BTreeMap::new();
    let mut add = |uri: Uri, version: Option<i32>, diagnostics: Vec<Diagnostic>| {
        let report = WorkspaceFullDocumentDiagnosticReport {
            uri: uri.clone(),
            version: version.map(i64::from),
            full_document_diagnostic_report: FullDocumentDiagnosticReport {
                result_id: None,
                items: diagnostics,
            },
        };
        items.insert(uri.as_str().to_string(), report.into());
    };
    for root in roots {
        let opts = AuditOptions {
            paths: vec![root.clone()],
            repo: Some(root.clone()),
            // Diagnostics only: the re-pin actions come from the open docs' own check.
            repins: false,
            ..AuditOptions::default()
        };
        let report = match audit::run(&opts) {
            Ok(report) => report,
            // A folder outside any repository has nothing to check.
            Err(audit::AuditError::Repo { .. }) => continue,
            Err(e) => {
                if let Some(uri) = path_uri(&root.join(citegate_engine::config::FILE_NAME)) {
                    add(uri, None, vec![failure(citegate_engine::error::chain(&e))]);
                }
                continue;
            }
        };
        for (i, d) in report.docs.enumerated() {
            let Some(uri) = path_uri(&absolute(&d.doc.fs_path)) else {
                continue;
            };
            if open.iter().any(|(u, _)| *u == uri) {
                continue;
            }
            let mut at = Positions::new(&d.doc.text, &d.doc.lines, state.encoding);
            let mut diagnostics: Vec<Diagnostic> = report
                .findings_of(i)
                .map(|f| diagnostic(f, at.range(f.span.start, f.span.end)))
                .collect();
            if state.shows_set_aside() {
                let set_aside = report.suppressed.iter().filter(|f| f.doc == i);
                diagnostics.extend(set_aside.map(|f| {
                    let d = diagnostic(f, at.range(f.span.start, f.span.end));
                    super::suppress::set_aside(f, d)
                }));
            }
            add(uri, None, diagnostics);
        }
    }
    for (uri, _) in open {
        let (version, diagnostics) = state.diagnostics(&uri);
        if version.is_some() {
            add(uri, version, diagnostics);
        }
    }
    WorkspaceDiagnosticReport {
        items: items.into_values().collect(),
    }
}

fn absolute(path: &std::path::Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The lenses of a code file: who cites its lines.
fn lenses(state: &State, uri: &Uri) -> Vec<CodeLens> {
    let Some(path) = uri_path(uri) else {
        return Vec::new();
    };
    let Some(project) = state.project_of(&path) else {
        return Vec::new();
    };
    let Ok(index) = project.index(&state.buffers()) else {
        return Vec::new();
    };
    match index.snapshot.repo.relative(&path) {
        Some(name) => code::lenses(&index, &name),
        None => Vec::new(),
    }
}

/// The edits that keep the citations of renamed files valid, in every repository concerned.
// `WorkspaceEdit::changes` is keyed by `Uri`, which caches its parts inside (clippy's
// `mutable_key_type`): the protocol's type, not one of ours.
#[allow(clippy::mutable_key_type)]
fn rename(state: &State, p: &RenameFilesParams) -> Option<WorkspaceEdit> {
    let mut changes = std::collections::HashMap::new();
    for project in projects_of(state, p) {
        let Ok(index) = project.index(&state.buffers()) else {
            continue;
        };
        let repo = &index.snapshot.repo;
        let renames: Vec<(String, String)> = (p.files.iter())
            .filter_map(|f| {
                let old = uri_path(&parse_uri(&f.old_uri)?)?;
                let new = uri_path(&parse_uri(&f.new_uri)?)?;
                Some((relative_to(repo, &old)?, relative_to(repo, &new)?))
            })
            .collect();
        changes.extend(code::rename_edits(&index, &renames, state.encoding));
    }
    (!changes.is_empty()).then(|| WorkspaceEdit {
        changes: Some(changes),
        ..WorkspaceEdit::default()
    })
}

/// The projects a rename touches.
fn projects_of(
    state: &State,
    p: &RenameFilesParams,
) -> Vec<std::sync::Arc<super::project::Project>> {
    let mut out: Vec<std::sync::Arc<super::project::Project>> = Vec::new();
    for f in &p.files {
        let Some(path) = parse_uri(&f.old_uri).and_then(|u| uri_path(&u)) else {
            continue;
        };
        if let Some(project) = state.project_of(&path) {
            if !out.iter().any(|o| o.root == project.root) {
                out.push(project);
            }
        }
    }
    out
}

/// A path's name in the repository (it need not exist: the new name of a rename does not yet).
/// `None` when it is not in the work tree once its nearest existing folder is resolved, every
/// link followed, or when it names a folder on the way with `..` or `.`: a rename's edits never
/// make a citation leave the repository.
fn relative_to(
    repo: &citegate_engine::resolve::CodeRepo,
    path: &std::path::Path,
) -> Option<String> {
    use std::path::Component;
    let workdir = repo.workdir.as_ref()?.canonicalize().ok()?;
    // An entry that is there, a dangling link included (which then resolves nowhere: `None`).
    let existing = path.ancestors().find(|a| a.symlink_metadata().is_ok())?;
    let rest = path.strip_prefix(existing).ok()?;
    if !rest.components().all(|c| matches!(c, Component::Normal(_))) {
        return None;
    }
    let real = existing.canonicalize().ok()?.join(rest);
    let rel = real.strip_prefix(&workdir).ok()?;
    let plain = rel.components().all(|c| matches!(c, Component::Normal(_)));
    (plain && rel.components().next().is_some()).then(|| rel.to_string_lossy().replace('\\', "/"))
}

fn parse_uri(text: &str) -> Option<Uri> {
    text.parse().ok()
}
