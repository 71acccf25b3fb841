//! A checked doc in the protocol's terms: its findings as diagnostics, their fixes as code
//! actions, what a citation reads at its revision (hover) and where it points (definition).

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Diagnostic, DiagnosticSeverity, Hover,
    HoverContents, Location, MarkupContent, MarkupKind, NumberOrString, Position, Range, TextEdit,
    Uri, WorkspaceEdit,
};

use super::place::{self, Cite, Place};
use super::project::Checked;
use super::revision;
use super::suppress;
use super::text::{self, path_uri, Encoding, Positions};
use citegate_engine::fix;
use citegate_engine::model::report::short_id;
use citegate_engine::model::{
    AuditedDoc, Citation, CiteId, CiteRef, DocId, Finding, Fix, LineRange, PinSource, Report,
};
use citegate_engine::registry::Severity;
use citegate_engine::resolve::FileAt;
use citegate_report::markdown::{cell, code};

/// A doc's text as checked, at one version of its buffer.
pub struct Analysis {
    pub version: Option<i32>,
    pub checked: Checked,
}

/// The kind of the action that applies every safe fix of a doc.
pub(super) fn fix_all_kind() -> CodeActionKind {
    CodeActionKind::new("source.fixAll.citegate")
}

/// The kind of "suppress with reason": a quick fix of its own kind, so a client asking for the
/// `quickfix` kind alone (eglot and Neovim compare it exactly) is offered the citation's fix, and
/// one asking for any quick fix (the LSP's prefix rule) is offered both.
pub(super) fn suppress_kind() -> CodeActionKind {
    CodeActionKind::new("quickfix.citegate.suppress")
}

impl Analysis {
    pub fn report(&self) -> &Report {
        &self.checked.report
    }

    fn doc(&self) -> &AuditedDoc {
        &self.checked.report.docs[0]
    }

    fn positions(&self, encoding: Encoding) -> Positions<'_> {
        let d = &self.doc().doc;
        Positions::new(&d.text, &d.lines, encoding)
    }

    /// The byte offset of a position in the doc as checked.
    pub fn offset(&self, at: Position, encoding: Encoding) -> usize {
        let d = &self.doc().doc;
        text::offset(&d.text, &d.lines, encoding, at)
    }

    /// Every finding as a diagnostic: the rule's ID as its code, the CLI's message (and help);
    /// then, unless `set_aside` is false, those that do not count, greyed out.
    pub fn diagnostics(&self, encoding: Encoding, set_aside: bool) -> Vec<Diagnostic> {
        let mut at = self.positions(encoding);
        let mut out: Vec<Diagnostic> = (self.report().findings.iter())
            .map(|f| diagnostic(f, at.range(f.span.start, f.span.end)))
            .collect();
        if set_aside {
            for f in self.report().suppressed.iter() {
                let d = diagnostic(f, at.range(f.span.start, f.span.end));
                out.push(suppress::set_aside(f, d));
            }
        }
        out
    }

    /// Quick fixes for the findings whose span meets `range`, re-pins there (opt-in, as
    /// `fix --repin`), and the action that applies every safe fix as `citegate fix` would.
    pub fn code_actions(
        &self,
        uri: &Uri,
        range: Range,
        only: Option<&[CodeActionKind]>,
        encoding: Encoding,
    ) -> Vec<CodeActionOrCommand> {
        let wanted = |kind: &CodeActionKind| {
            only.is_none_or(|only| {
                only.iter().any(|o| {
                    kind.as_str() == o.as_str()
                        || kind.as_str().starts_with(&format!("{}.", o.as_str()))
                })
            })
        };
        let (from, to) = (
            self.offset(range.start, encoding),
            self.offset(range.end, encoding),
        );
        let meets = |start: usize, end: usize| start <= to && from <= end;
        let mut out = Vec::new();
        let mut at = self.positions(encoding);
        if wanted(&CodeActionKind::QUICKFIX) {
            for f in self.report().findings.iter() {
                let offered = f
                    .offered_fix()
                    .filter(|x| x.applicability == citegate_engine::model::Applicability::Safe);
                let Some(fix) = offered.filter(|_| meets(f.span.start, f.span.end)) else {
                    continue;
                };
                let diagnostic = diagnostic(f, at.range(f.span.start, f.span.end));
                let title = format!("Cite {} ({})", cited(fix), f.rule.as_str());
                let mut action = self.action(uri, title, CodeActionKind::QUICKFIX, fix, &mut at);
                action.diagnostics = Some(vec![diagnostic]);
                action.is_preferred = Some(true);
                out.push(CodeActionOrCommand::CodeAction(action));
            }
            let snapshot = &self.checked.snapshot;
            for (f, edit) in suppress::edits(self.report(), snapshot, meets, &mut at) {
                out.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: format!("citegate: suppress with reason ({})", f.rule.as_str()),
                    kind: Some(suppress_kind()),
                    diagnostics: Some(vec![diagnostic(f, at.range(f.span.start, f.span.end))]),
                    edit: Some(workspace_edit(uri, vec![edit])),
                    ..CodeAction::default()
                }));
            }
        }
        if wanted(&CodeActionKind::REFACTOR_REWRITE) {
            for (_, fix) in &self.report().repins {
                if meets(fix.edit.byte_start, fix.edit.byte_end) {
                    let title = format!("Re-pin to the target ({})", cited(fix));
                    let kind = CodeActionKind::REFACTOR_REWRITE;
                    let action = self.action(uri, title, kind, fix, &mut at);
                    out.push(CodeActionOrCommand::CodeAction(action));
                }
            }
        }
        let all = fix_all_kind();
        if wanted(&all) || wanted(&CodeActionKind::SOURCE_FIX_ALL) {
            if let Some(edit) = self.fix_all(encoding) {
                out.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: "Fix all citegate citations (safe fixes)".to_string(),
                    kind: Some(all),
                    edit: Some(workspace_edit(uri, vec![edit])),
                    ..CodeAction::default()
                }));
            }
        }
        out
    }

    /// What `citegate fix` writes to this doc, as one edit.
    pub fn fix_all(&self, encoding: Encoding) -> Option<TextEdit> {
        let plan = fix::plan(self.report(), false);
        let after = &plan.docs.first()?.after;
        text::edit_between(&self.doc().doc.text, after, encoding)
    }

    fn action(
        &self,
        uri: &Uri,
        title: String,
        kind: CodeActionKind,
        fix: &Fix,
        at: &mut Positions<'_>,
    ) -> CodeAction {
        let edit = TextEdit::new(
            at.range(fix.edit.byte_start, fix.edit.byte_end),
            fix.edit.replacement.clone(),
        );
        CodeAction {
            title,
            kind: Some(kind),
            edit: Some(workspace_edit(uri, vec![edit])),
            ..CodeAction::default()
        }
    }

    /// The citation under a byte offset (the innermost, when spans nest).
    fn citation_at(&self, offset: usize) -> Option<(CiteId, &Citation)> {
        self.doc()
            .extracted
            .citations
            .enumerated()
            .filter(|(_, c)| c.span.start <= offset && offset <= c.span.end)
            .min_by_key(|(_, c)| c.span.len())
    }

    /// The revision a citation is read at: its implied pin, its own or its doc's, else the
    /// target; and how it got it.
    fn revision_of(&self, index: CiteId) -> (Option<git2::Oid>, &'static str) {
        let report = self.report();
        let s = &self.checked.snapshot;
        if let Some(sha) = report.implied.get(&CiteRef {
            doc: DocId::new(0),
            index,
        }) {
            return (Some(*sha), "implied pin: the commit that wrote this line");
        }
        let resolve = |p: &str| s.repo.open().ok().and_then(|g| s.repo.resolve(&g, p).ok());
        match self.doc().pin_of(index) {
            (Some(p), PinSource::Citation) => (resolve(p), "its own pin"),
            (Some(p), PinSource::Doc) => (resolve(p), "the doc's pin"),
            _ => (Some(s.target), "the target"),
        }
    }

    /// The cited lines at the citation's revision and, when a rule says it is wrong, what it
    /// says (a stale citation's help is the diff to the target).
    pub fn hover(&self, offset: usize, encoding: Encoding) -> Option<Hover> {
        let (index, c) = self.citation_at(offset)?;
        let path = c.repo_path()?;
        let (rev, why) = self.revision_of(index);
        // The label is a doc's text (a link's path may be Markdown): a code span, inert.
        let label = code(&c.label());
        let mut out = match rev {
            Some(rev) => format!("**{label}** at `{}` ({why})\n\n", short_id(rev)),
            None => format!("**{label}**: its pin names no commit here\n\n"),
        };
        if let Some(rev) = rev {
            out.push_str(&self.cited_text(rev, path, c.lines));
        }
        for f in self.findings_of(c) {
            out.push_str(&format!(
                "\n\n**{}** ({}): {}",
                f.rule.as_str(),
                f.severity.as_str(),
                cell(&f.message)
            ));
            if let Some(help) = &f.help {
                out.push_str(&format!("\n\n{}", fenced(help, "")));
            }
        }
        let mut at = self.positions(encoding);
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: out,
            }),
            range: Some(at.range(c.span.start, c.span.end)),
        })
    }

    fn findings_of<'a>(&'a self, c: &'a Citation) -> impl Iterator<Item = &'a Finding> + 'a {
        self.report()
            .findings
            .iter()
            .filter(move |f| f.span == c.span)
    }

    /// The lines a citation cites at `rev`, fenced; or what the path is there instead.
    fn cited_text(&self, rev: git2::Oid, path: &str, lines: Option<LineRange>) -> String {
        let repo = &self.checked.snapshot.repo;
        let Ok(git) = repo.open() else {
            return String::new();
        };
        match repo.file_at(&git, rev, path) {
            Ok(FileAt::Text(text)) => {
                let index = citegate_engine::model::LineIndex::new(&text);
                let shown = match lines {
                    Some(r) if r.start >= 1 => index.slice(&text, r.start as usize, r.end as usize),
                    Some(_) => "",
                    None => index.slice(&text, 1, 40),
                };
                let language = path.rsplit('.').next().unwrap_or("");
                fenced(shown, language)
            }
            Ok(FileAt::Missing) => format!("{} does not exist at this revision.", code(path)),
            Ok(other) => format!("{} is not text here ({other:?}).", code(path)),
            Err(e) => format!("{} could not be read: {}", code(path), cell(e.message())),
        }
    }

    /// Where the cited content is: at the target when the audit found it there (where it is
    /// cited, or where a fix re-cites a moved or renamed citation), else at the revision the
    /// citation was written for. The work tree's file when it holds those lines as they are at
    /// that revision, else a read-only copy of the file at the revision; `None` when the cited
    /// path or lines exist at neither (an invented citation).
    pub fn definition(&self, offset: usize) -> Option<Location> {
        let (index, c) = self.citation_at(offset)?;
        if c.foreign.is_some() {
            return None;
        }
        let s = &self.checked.snapshot;
        let cite = Cite {
            doc: DocId::new(0),
            index,
        };
        let report = self.report();
        let written = || {
            let rev = place::disputed_at(report, cite).or(self.revision_of(index).0)?;
            Some(Place {
                path: c.repo_path()?.to_string(),
                lines: c.lines,
                rev,
            })
        };
        if let Some(moved) = place::relocated(report, cite, s.target) {
            return open(&s.repo, &moved);
        }
        if let Some(now) = place::at_target(report, cite, s.target) {
            // Found where it is cited. Unless those lines read otherwise where the citation was
            // written (its rule turned off), open them at the target; a whole file is the file.
            let same = |w: &Place| {
                if w.lines.is_none() {
                    return true;
                }
                let read = |p: &Place| {
                    let text = revision::text_at(&s.repo, p.rev, &p.path)?;
                    lines_of(&text, p.lines).map(str::to_string)
                };
                let then = read(w);
                then.is_none() || then == read(&now)
            };
            if written().is_none_or(|w| w.rev == s.target || same(&w)) {
                return open(&s.repo, &now);
            }
        }
        open(&s.repo, &written()?)
    }
}

/// The 1-based inclusive `lines` of `text` (all of it for `None`); `None` when the file has no
/// such lines.
fn lines_of(text: &str, lines: Option<LineRange>) -> Option<&str> {
    let Some(r) = lines else {
        return Some(text);
    };
    let count = text.lines().count() as i64;
    if r.start < 1 || r.end < r.start || r.end > count {
        return None;
    }
    let index = citegate_engine::model::LineIndex::new(text);
    Some(index.slice(text, r.start as usize, r.end as usize))
}

/// A location at `place`: in the work tree when its file there holds the same lines (for a whole
/// file, when it is there), else in a read-only copy of the file at the place's revision.
fn open(repo: &citegate_engine::resolve::CodeRepo, place: &Place) -> Option<Location> {
    let text = revision::text_at(repo, place.rev, &place.path)?;
    let cited = lines_of(&text, place.lines)?;
    let in_work_tree = revision::work_text(repo, &place.path)
        .is_some_and(|work| place.lines.is_none() || lines_of(&work, place.lines) == Some(cited));
    let file = match in_work_tree {
        true => repo.workdir.as_ref()?.join(&place.path),
        false => revision::written(repo, place.rev, &place.path, &text).ok()?,
    };
    if !revision::in_repository(repo, &file) {
        return None;
    }
    let (start, end) = match place.lines {
        Some(r) => ((r.start - 1) as u32, (r.end - 1) as u32),
        None => (0, 0),
    };
    Some(Location::new(
        path_uri(&file)?,
        Range::new(Position::new(start, 0), Position::new(end, u32::MAX >> 1)),
    ))
}

/// `src/a.rs:3-5`: what a fix makes the citation cite.
fn cited(fix: &Fix) -> String {
    match fix.start_line {
        0 => fix.path.clone(),
        s if s == fix.end_line => format!("{}:{s}", fix.path),
        s => format!("{}:{s}-{}", fix.path, fix.end_line),
    }
}

/// The most bytes of one fenced block a hover shows (the cited lines, a finding's help): a
/// citation of a whole 32 MiB file is a hover of 32 MiB, which no editor shows usefully.
pub(super) const MAX_HOVER_BLOCK_BYTES: usize = 64 << 10;

/// `text` in a Markdown code fence longer than any run of backticks inside it; cut at a line end
/// within [`MAX_HOVER_BLOCK_BYTES`], with a line after the fence that says so.
fn fenced(text: &str, language: &str) -> String {
    let (text, cut) = bounded(text, MAX_HOVER_BLOCK_BYTES);
    let mut out = fence(text, language);
    if let Some(cut) = cut {
        out.push_str(&cut);
    }
    out
}

/// `text` within `max` bytes (cut at the last line end before, else at a character boundary),
/// and, when cut, the note that says how much is shown.
fn bounded(text: &str, max: usize) -> (&str, Option<String>) {
    if text.len() <= max {
        return (text, None);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let end = text[..end].rfind('\n').map_or(end, |i| i + 1);
    let note = format!(
        "\n\n*(cut: the first {end} of {} bytes are shown)*",
        text.len()
    );
    (&text[..end], Some(note))
}

fn fence(text: &str, language: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let language: String = language
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    format!("{fence}{language}\n{text}\n{fence}")
}

pub(super) fn diagnostic(f: &Finding, range: Range) -> Diagnostic {
    let severity = match f.severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Note => DiagnosticSeverity::INFORMATION,
    };
    let message = match &f.help {
        Some(help) => format!("{}\nhelp: {help}", f.message),
        None => f.message.clone(),
    };
    Diagnostic {
        range,
        severity: Some(severity),
        code: Some(NumberOrString::String(f.rule.as_str().to_string())),
        source: Some("citegate".to_string()),
        message,
        ..Diagnostic::default()
    }
}

pub(super) fn workspace_edit(uri: &Uri, edits: Vec<TextEdit>) -> WorkspaceEdit {
    WorkspaceEdit {
        changes: Some([(uri.clone(), edits)].into_iter().collect()),
        ..WorkspaceEdit::default()
    }
}
