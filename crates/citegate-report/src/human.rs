//! Human output: miette diagnostics into the doc (file:line:col, the citation underlined), with
//! the evidence (the lines actually at the revision) under each, then a one-line summary.

use std::borrow::Cow;
use std::fmt;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};

use citegate_engine::config::ConfigError;
use citegate_engine::escape::printable;
use citegate_engine::model::report::short_id;
use citegate_engine::model::{Finding, LineIndex, Report, Span};
use citegate_engine::registry::Severity;

use crate::summary::{adoption_line, summary_line};

/// Rendering choices the binary makes (colour, width).
#[derive(Debug, Clone, Copy)]
pub struct HumanStyle {
    pub color: bool,
    pub unicode: bool,
    pub width: usize,
}

impl Default for HumanStyle {
    fn default() -> Self {
        HumanStyle {
            color: false,
            unicode: true,
            width: 100,
        }
    }
}

/// Lines longer than this are shown as a window around the finding (a minified JSON batch, a
/// doc written on one line): the renderer pads by column and cannot take columns past 65,535.
const MAX_SHOWN_LINE: usize = 240;
/// How much of a long line is shown on each side of the finding.
const WINDOW_MARGIN: usize = 60;

/// What of a doc is shown for one finding, under its report name: the whole text, or a window of
/// it (`first_line` and `first_col` say where the window starts in the doc, 0-based, in lines and
/// characters), so that line and column numbers stay the doc's.
struct DocSource<'a> {
    name: Cow<'a, str>,
    text: Cow<'a, str>,
    first_line: usize,
    first_col: usize,
}

impl SourceCode for DocSource<'_> {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let text: &str = &self.text;
        let inner = text.read_span(span, before, after)?;
        // Columns count characters, as in every other format.
        let start = span.offset().min(text.len());
        let line_start = self.text[..start].rfind('\n').map_or(0, |i| i + 1);
        let mut column = self
            .text
            .get(line_start..start)
            .map_or(0, |s| s.chars().count());
        if line_start == 0 {
            column += self.first_col;
        }
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.to_string(),
            inner.data(),
            *inner.span(),
            inner.line() + self.first_line,
            column,
            inner.line_count(),
        )))
    }
}

/// The part of `text` shown for a finding at `span`, and the span within it: the finding's lines
/// with a line of context on each side, or, when a line is long, a window of a few hundred bytes
/// around the finding. The renderer reads only this (it scans what it is given from the start, and
/// pads by column), so a doc with thousands of findings on one line renders in linear time.
fn window<'a>(text: &'a str, lines: &LineIndex, span: Span) -> (DocSource<'a>, Span) {
    let floor = |mut i: usize| {
        i = i.min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = floor(span.start);
    let end = span.end.clamp(start, text.len());
    // At most a few lines' worth of a long span (a whole JSON answer) is shown.
    let cut = floor(end.min(start + 4 * MAX_SHOWN_LINE));
    let bounds = |line: usize| {
        let from = lines.line_start(line).unwrap_or(text.len());
        let to = lines
            .line_start(line + 1)
            .map_or(text.len(), |next| next - 1);
        (from, to.max(from))
    };
    let short = |line: usize| {
        let (from, to) = bounds(line);
        to - from <= MAX_SHOWN_LINE
    };
    let (first, last) = (lines.line(start), lines.line(cut));
    let (from, to, cut) = if (first..=last).all(short) {
        let from = match first > 1 && short(first - 1) {
            true => bounds(first - 1).0,
            false => bounds(first).0,
        };
        // Up to the start of the line after the last one shown, newline included.
        let shown = match lines.line_start(last + 1).is_some() && short(last + 1) {
            true => last + 1,
            false => last,
        };
        let to = lines.line_start(shown + 1).unwrap_or(text.len());
        (from, to, cut)
    } else {
        let (line_start, line_end) = (bounds(first).0, bounds(last).1);
        let from = floor(start.saturating_sub(WINDOW_MARGIN).max(line_start));
        let cut = floor(end.min(start + MAX_SHOWN_LINE));
        (
            from,
            floor((cut + WINDOW_MARGIN).min(line_end.max(cut))),
            cut,
        )
    };
    let (line, col) = lines.line_col(text, from);
    let shown = DocSource {
        name: Cow::Borrowed(""),
        // Terminal escapes and other control characters in a doc are never printed raw.
        text: printable(&text[from..to], true),
        first_line: line - 1,
        first_col: col - 1,
    };
    (shown, Span::new(start - from, cut - from))
}

/// One diagnostic into a doc: a finding, or a configuration error.
struct Diag<'a> {
    message: Cow<'a, str>,
    code: Option<&'a str>,
    severity: miette::Severity,
    source: DocSource<'a>,
    /// Where it points within `source`, and the label under it.
    span: Span,
    label: String,
    help: Option<String>,
}

impl fmt::Debug for Diag<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for Diag<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diag<'_> {}

impl Diagnostic for Diag<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.code.map(|c| Box::new(c) as Box<dyn fmt::Display + 'a>)
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display + 'a>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let span = SourceSpan::new(self.span.start.into(), self.span.len());
        Some(Box::new(std::iter::once(
            LabeledSpan::new_primary_with_span(Some(self.label.clone()), span),
        )))
    }
}

impl<'a> Diag<'a> {
    fn of_finding(f: &'a Finding, name: &'a str, text: &'a str, lines: &LineIndex) -> Self {
        let (mut source, span) = window(text, lines, f.span);
        source.name = printable(name, false);
        let label = match (&f.path, f.lines) {
            (Some(p), Some(l)) => format!("{p}:{l}"),
            (Some(p), None) => p.clone(),
            _ => f.rule.as_str().to_string(),
        };
        Diag {
            message: printable(&f.message, true),
            code: Some(f.rule.as_str()),
            severity: match f.severity {
                Severity::Error => miette::Severity::Error,
                Severity::Warning => miette::Severity::Warning,
                Severity::Note => miette::Severity::Advice,
            },
            source,
            span,
            label: printable(&label, false).into_owned(),
            help: help_text(f).map(|h| printable(&h, true).into_owned()),
        }
    }
}

/// A configuration error pointing at the rest of its line in the file, e.g.
/// `.citegate.yaml:3` with the offending key underlined.
pub fn config_error(e: &ConfigError) -> String {
    let name = e.path.display().to_string();
    let at = e.at.min(e.text.len());
    let len = e.text[at..].find('\n').unwrap_or(e.text.len() - at).max(1);
    let span = Span::new(at, (at + len).min(e.text.len()));
    let lines = LineIndex::new(&e.text);
    let (mut source, span) = window(&e.text, &lines, span);
    source.name = printable(&name, false);
    let diag = Diag {
        message: printable(&e.message, true),
        code: None,
        severity: miette::Severity::Error,
        source,
        span,
        label: "here".to_string(),
        help: None,
    };
    let mut out = String::from("citegate: error: bad configuration\n");
    let handler = GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor());
    if handler.render_report(&mut out, &diag).is_err() {
        out.push_str(&e.to_string());
    }
    out
}

fn help_text(f: &Finding) -> Option<String> {
    let mut help = f.help.clone();
    if let Some(fix) = f.offered_fix() {
        let line = format!("fix: cite `{}`", fix.label());
        help = Some(match help {
            Some(h) => format!("{h}\n{line}"),
            None => line,
        });
    }
    if let (Some(evidence), Some(lines), Some(rev)) = (&f.evidence, f.lines, &f.revision) {
        let mut block = format!("at {} {}:", short_id(*rev), lines.named());
        let start = lines.start.max(1);
        for (i, line) in evidence.lines().enumerate() {
            if line == "…" {
                block.push_str("\n      …");
            } else {
                block.push_str(&format!("\n{:>5} | {line}", start + i as i64));
            }
        }
        help = Some(match help {
            Some(h) => format!("{h}\n{block}"),
            None => block,
        });
    }
    help
}

/// Render every finding, then the summary line.
pub fn render(report: &Report, style: HumanStyle) -> String {
    let theme = match (style.color, style.unicode) {
        (true, true) => GraphicalTheme::unicode(),
        (true, false) => GraphicalTheme::ascii(),
        (false, true) => GraphicalTheme::unicode_nocolor(),
        (false, false) => GraphicalTheme::none(),
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(style.width)
        .with_links(false)
        .with_context_lines(1);
    let mut out = String::new();
    for f in &report.findings {
        let doc = &report.docs[f.doc].doc;
        let diag = Diag::of_finding(f, &doc.name, &doc.text, &doc.lines);
        if handler.render_report(&mut out, &diag).is_err() {
            out.push_str(&format!("{}: {}\n", doc.name, f.message));
        }
        out.push('\n');
    }
    out.push_str(&summary_line(report));
    out.push_str(&adoption_line(report));
    out
}
