//! Human output: miette diagnostics into the doc (file:line:col, the citation underlined), with
//! the evidence (the lines actually at the revision) under each, then a one-line summary.

use std::fmt;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};

use crate::model::Finding;
use crate::model::Report;
use crate::registry::Severity;

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

/// A doc's text under its report name, borrowed for rendering.
struct DocSource<'a> {
    name: &'a str,
    text: &'a str,
}

impl SourceCode for DocSource<'_> {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner = self.text.read_span(span, before, after)?;
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.to_string(),
            inner.data(),
            *inner.span(),
            inner.line(),
            inner.column(),
            inner.line_count(),
        )))
    }
}

struct Diag<'a> {
    finding: &'a Finding,
    source: DocSource<'a>,
    help: Option<String>,
}

impl fmt::Debug for Diag<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.finding.message)
    }
}

impl fmt::Display for Diag<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.finding.message)
    }
}

impl std::error::Error for Diag<'_> {}

impl Diagnostic for Diag<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.finding.rule.as_str()))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.finding.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Note => miette::Severity::Advice,
        })
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
        let span = self.finding.span;
        let label = match (&self.finding.path, self.finding.lines) {
            (Some(p), Some(l)) => format!("{p}:{l}"),
            (Some(p), None) => p.clone(),
            _ => self.finding.rule.as_str().to_string(),
        };
        Some(Box::new(std::iter::once(
            LabeledSpan::new_primary_with_span(
                Some(label),
                SourceSpan::new(span.start.into(), span.len()),
            ),
        )))
    }
}

fn help_text(f: &Finding) -> Option<String> {
    let mut help = f.help.clone();
    if let Some(fix) = &f.fix {
        let line = format!(
            "fix: cite `{}:{}-{}`",
            fix.path, fix.start_line, fix.end_line
        );
        help = Some(match help {
            Some(h) => format!("{h}\n{line}"),
            None => line,
        });
    }
    if let (Some(evidence), Some(lines), Some(rev)) = (&f.evidence, f.lines, &f.revision) {
        let mut block = format!("at {} lines {lines}:", &rev[..8.min(rev.len())]);
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
        let diag = Diag {
            finding: f,
            source: DocSource {
                name: &doc.name,
                text: &doc.text,
            },
            help: help_text(f),
        };
        if handler.render_report(&mut out, &diag).is_err() {
            out.push_str(&format!("{}: {}\n", doc.name, f.message));
        }
        out.push('\n');
    }
    out.push_str(&summary_line(report));
    out
}

/// `12 citations in 3 docs (1 skipped) at abcd1234: 2 errors, 1 warning, 0 notes`.
pub fn summary_line(report: &Report) -> String {
    let s = &report.summary;
    let count = |k: &str| s.by_severity.get(k).copied().unwrap_or(0);
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let skipped = if s.skipped > 0 {
        format!(", {} skipped", s.skipped)
    } else {
        String::new()
    };
    format!(
        "{} in {}{skipped} at {}: {}, {}, {}\n",
        plural(s.citations, "citation"),
        plural(s.docs, "doc"),
        &report.revision[..8],
        plural(count("error"), "error"),
        plural(count("warning"), "warning"),
        plural(count("note"), "note"),
    )
}
