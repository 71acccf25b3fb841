//! Building a fix: the edit that makes a citation cite where its content was found again, written
//! in the citation's own syntax and touching no byte outside the citation's spans.

use git2::Oid;

use crate::model::{
    Applicability, Citation, Edit, Fix, LineRange, PathStyle, PinSource, Span, Syntax,
};

/// Where a citation's content was found again.
#[derive(Debug, Clone, Default)]
pub struct Relocation {
    /// The new path, when the file was renamed.
    pub path: Option<String>,
    /// The new line range; `None`: the lines stay as cited.
    pub lines: Option<LineRange>,
    /// The revision the new location holds at (a citation with its own pin is re-pinned).
    pub rev: Option<Oid>,
}

/// Whether a path can be written bare (`src/a.rs:1-2`, a fence's info string) and read back whole:
/// the characters the bare-citation reader takes for a path (see `extract::bare`).
fn bare_safe(path: &str) -> bool {
    !path.is_empty()
        && path
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.@~+/-".contains(&b))
}

/// A link's text (`[TEXT](…)`), when the citation is a link.
fn link_text<'d>(doc_text: &'d str, citation: &Citation) -> Option<&'d str> {
    if !matches!(citation.syntax, Syntax::MarkdownLink | Syntax::Permalink) {
        return None;
    }
    let link = doc_text.get(citation.span.start..citation.span.end)?;
    link.strip_prefix('[')?;
    Some(&link[1..link.rfind("](")?])
}

/// Whether a link's text names `lines` where the citation cannot rewrite them.
fn text_names_lines(doc_text: &str, citation: &Citation, lines: LineRange) -> bool {
    let Some(text) = link_text(doc_text, citation) else {
        return false;
    };
    // Its first and last line as numbers of their own (`lines 12 to 14`): a form not read.
    let numbers: Vec<i64> = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter_map(|w| w.trim_start_matches('L').parse().ok())
        .collect();
    let named = numbers.contains(&lines.start) && numbers.contains(&lines.end);
    named || !crate::extract::link::range_in_text(text, lines).is_empty()
}

/// The lines a link's text names in words a fix cannot rewrite (`see the 14 to 47 range`): the
/// citation cannot move without its text contradicting its URL.
pub fn lines_held_by_text(doc_text: &str, citation: &Citation) -> Option<LineRange> {
    let old = citation
        .lines
        .filter(|_| citation.text_lines_span.is_none())?;
    text_names_lines(doc_text, citation, old).then_some(old)
}

/// Whether a link's text names the file of `path` where the citation cannot rewrite it (twice).
fn text_names_file(doc_text: &str, citation: &Citation, path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    let Some(text) = link_text(doc_text, citation) else {
        return false;
    };
    let joined = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    (text.match_indices(file)).any(|(i, _)| {
        !joined(text[..i].chars().next_back()) && !joined(text[i + file.len()..].chars().next())
    })
}

/// The fix that makes `citation` cite `to`, or `None` when the citation's syntax cannot express
/// it safely (no span for a part that must change, or a pin shared by the whole doc).
pub fn build(
    doc_text: &str,
    citation: &Citation,
    pin: PinSource,
    to: &Relocation,
    applicability: Applicability,
) -> Option<Fix> {
    let mut edits: Vec<(Span, String)> = Vec::new();
    let current = citation.repo_path()?;
    let path = to.path.as_deref().unwrap_or(current);
    if path != current {
        let (span, style) = citation.path_span.as_ref()?;
        if *style == PathStyle::Repo && !bare_safe(path) {
            return None; // Written bare, the new path would not be read back as one citation.
        }
        edits.push((*span, style.render(path)));
        if citation.text_path_span.is_none() && text_names_file(doc_text, citation, current) {
            return None; // Moved, the text would name the old file.
        }
        if let Some((span, whole)) = citation.text_path_span {
            // The link text names the old file: it names the new one.
            let file = path.rsplit('/').next().unwrap_or(path);
            edits.push((span, if whole { path } else { file }.to_string()));
        }
    }
    let lines = match (to.lines, citation.lines) {
        (Some(new), old) if Some(new) != old => {
            let (span, style) = citation.lines_span?;
            edits.push((
                span,
                style.rewrite(doc_text.get(span.start..span.end)?, new),
            ));
            if let Some((span, style)) = citation.text_lines_span {
                edits.push((span, style.render(new)));
            } else if lines_held_by_text(doc_text, citation).is_some() {
                // The link text names the old lines where they cannot be rewritten (twice, or
                // in a form not read): moved, the text would contradict its URL.
                return None;
            }
            Some(new)
        }
        (_, old) => old,
    };
    if let Some(rev) = to.rev {
        match pin {
            PinSource::Citation => {
                let span = citation.pin_span?;
                let written = span.len().clamp(8, 40);
                edits.push((span, rev.to_string()[..written].to_string()));
            }
            // One citation of a doc pinned as a whole cannot move on its own.
            PinSource::Doc => return None,
            PinSource::Implied | PinSource::Target => {}
        }
    }
    if edits.is_empty() {
        return None;
    }
    edits.sort_by_key(|(s, _)| s.start);
    let start = edits.first()?.0.start;
    let end = edits.iter().map(|(s, _)| s.end).max()?;
    let mut replacement = String::new();
    let mut at = start;
    for (span, text) in &edits {
        if span.start < at {
            return None;
        }
        replacement.push_str(doc_text.get(at..span.start)?);
        replacement.push_str(text);
        at = span.end;
    }
    replacement.push_str(doc_text.get(at..end)?);
    let lines = lines.unwrap_or(LineRange::new(0, 0));
    Some(Fix {
        path: path.to_string(),
        start_line: lines.start,
        end_line: lines.end,
        edit: Edit::new(Span::new(start, end), replacement),
        applicability,
        cite: None,
    })
}
