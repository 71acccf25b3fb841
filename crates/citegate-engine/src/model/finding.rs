//! A finding: one rule's verdict on one citation (or doc), located in the doc, with the evidence
//! and, when the content was found again, a fix.

use serde::{Deserialize, Serialize};

use super::citation::LineRange;
use super::doc::Doc;
use super::ids::{AnswerId, CiteId, ClaimId, DocId};
use super::span::Span;
use crate::registry::{RuleId, Severity};

/// Whether a fix may be applied without asking (ruff's applicability).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Applicability {
    /// The cited content was found again, exactly and uniquely: `citegate fix` applies it.
    #[default]
    Safe,
    /// Correct but a choice the user makes: applied only when asked (`citegate fix --repin`).
    OptIn,
}

/// One replacement in a doc: the bytes `[byte_start, byte_end)` become `replacement`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Edit {
    /// The text written in their place.
    pub replacement: String,
    /// The first byte replaced (an offset into the doc's text).
    pub byte_start: usize,
    /// The byte after the last one replaced; equal to `byte_start` for an insertion.
    pub byte_end: usize,
}

impl Edit {
    /// Replace the doc's bytes `span` with `replacement`.
    pub fn new(span: Span, replacement: impl Into<String>) -> Edit {
        Edit {
            replacement: replacement.into(),
            byte_start: span.start,
            byte_end: span.end,
        }
    }

    /// Whether the two replace some byte in common.
    pub fn overlaps(&self, other: &Edit) -> bool {
        self.byte_start < other.byte_end && other.byte_start < self.byte_end
    }

    /// Whether it lies inside `span`.
    pub fn within(&self, span: Span) -> bool {
        span.contains(Span::new(self.byte_start, self.byte_end))
    }
}

/// A content-verified fix of a citation: where the citation will cite, the edit that writes it
/// (in the citation's own syntax), and whether it may be applied without asking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "FixWire", from = "FixWire")]
pub struct Fix {
    /// The corrected citation.
    pub path: String,
    /// The first line it will cite; 0 for a whole file.
    pub start_line: i64,
    /// The last line it will cite, inclusive; 0 for a whole file.
    pub end_line: i64,
    /// The replacement that writes it in the doc.
    pub edit: Edit,
    /// Decided where the fix is built, not by the rule that carries it.
    pub applicability: Applicability,
    /// The citation it moves (in the doc of the finding or pin move that carries it).
    pub cite: Option<CiteId>,
}

impl Fix {
    /// The citation it writes, as `fix` writes it: `log.rs:16`, `log.rs:16-20`, `log.rs` (a
    /// whole file: line 0).
    pub fn label(&self) -> String {
        match self.start_line {
            0 => self.path.clone(),
            _ => {
                let lines = LineRange::new(self.start_line, self.end_line);
                format!("{}:{lines}", self.path)
            }
        }
    }
}

/// A fix as the JSON report writes it (version 1: one flat object).
#[derive(Serialize, Deserialize)]
struct FixWire {
    path: String,
    start_line: i64,
    end_line: i64,
    replacement: String,
    byte_start: usize,
    byte_end: usize,
}

impl From<Fix> for FixWire {
    fn from(f: Fix) -> FixWire {
        FixWire {
            path: f.path,
            start_line: f.start_line,
            end_line: f.end_line,
            replacement: f.edit.replacement,
            byte_start: f.edit.byte_start,
            byte_end: f.edit.byte_end,
        }
    }
}

impl From<FixWire> for Fix {
    fn from(w: FixWire) -> Fix {
        Fix {
            path: w.path,
            start_line: w.start_line,
            end_line: w.end_line,
            edit: Edit {
                replacement: w.replacement,
                byte_start: w.byte_start,
                byte_end: w.byte_end,
            },
            applicability: Applicability::Safe,
            cite: None,
        }
    }
}

/// One rule's verdict on a citation, a claim or a doc: where it is in the doc, what it says,
/// the evidence, and a fix when the cited content was found again.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The rule that made it.
    pub rule: RuleId,
    /// How much it matters: the rule's default, unless the configuration changed it or the rule
    /// found this case only worth a note.
    pub severity: Severity,
    /// The doc it is in.
    pub doc: DocId,
    /// What it points at in the doc (a citation's own text, a claim, a problem's place).
    pub span: Span,
    /// The cited path (repo-relative) and lines, when the finding is about a citation.
    pub path: Option<String>,
    /// The cited line range, when the citation has one.
    pub lines: Option<LineRange>,
    /// The commit the citation was resolved at (written as its full SHA).
    pub revision: Option<git2::Oid>,
    /// What is wrong, in one sentence.
    pub message: String,
    /// What to do about it, when there is more to say than the fix.
    pub help: Option<String>,
    /// The lines actually at the revision, shown under the diagnostic.
    pub evidence: Option<String>,
    /// The content-verified fix, when the cited content was found again.
    pub fix: Option<Fix>,
    /// Its fix is held back: the edit touches a doc line holding a citation that stays failing
    /// and was checked at the line's implied pin; editing the line would hide that citation
    /// from the next audit (see [`crate::fix::plan`]). No surface offers a held fix.
    pub held: bool,
    /// The citation it is about, as its index in the doc's citations: set by the rule that made
    /// it (never found again by span).
    pub cite: Option<CiteId>,
    /// The JSON answer it is in, as its index in the doc's answers: set with its citation, else
    /// when the audit finishes (the answer whose text holds it).
    pub answer: Option<AnswerId>,
    /// The claim it is about (a JSON claim, or the answer's summary): set by the rule that
    /// made it, or from its citation's claim.
    pub claim: Option<ClaimId>,
    /// Where `span` is in the doc, in lines and columns, and what it covers: set when the audit
    /// finishes, so that every format (and a report merged from shards) prints the same place
    /// without the doc's text.
    pub at: Position,
    /// Why it does not count, when it does not: reported as such (SARIF `suppressions`, a count
    /// in the summary), never failing a run. Set last, by `audit::suppress`.
    pub suppressed: Option<Suppressed>,
}

/// Why a finding does not count: the baseline holds it, a comment in the doc or a waiver in the
/// configuration suppresses it. Each is written where it is reported, with its reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Suppressed {
    /// Its fingerprint is in the baseline file (`.citegate-baseline.json`).
    Baseline,
    /// A `citegate-ignore` or `citegate-disable` comment in the doc, with the reason it gives.
    Inline {
        /// The reason the comment gives after its colon.
        reason: String,
    },
    /// A waiver in `.citegate.yaml` until `until` (a date, `YYYY-MM-DD`), with its reason.
    Waiver {
        /// The last day it holds (`YYYY-MM-DD`).
        until: String,
        /// Why the findings are waived, as the waiver says.
        reason: String,
    },
}

impl Suppressed {
    /// How the summary counts it: `baselined`, `suppressed` or `waived`.
    pub fn kind(&self) -> &'static str {
        match self {
            Suppressed::Baseline => "baselined",
            Suppressed::Inline { .. } => "suppressed",
            Suppressed::Waiver { .. } => "waived",
        }
    }

    /// Its justification, as SARIF's `justification` and the JSON report write it.
    pub fn reason(&self) -> String {
        match self {
            Suppressed::Baseline => "in the baseline (.citegate-baseline.json)".to_string(),
            Suppressed::Inline { reason } => reason.clone(),
            Suppressed::Waiver { until, reason } => format!("waived until {until}: {reason}"),
        }
    }
}

/// A finding's place in its doc: 1-based lines and columns (Unicode code points), start and end,
/// and the doc text it covers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Position {
    /// The 1-based line of the doc where `span` starts.
    pub line: usize,
    /// The 1-based column (in characters) where `span` starts.
    pub column: usize,
    /// The 1-based line where `span` ends.
    pub end_line: usize,
    /// The 1-based column (in characters) where `span` ends, exclusive.
    pub end_column: usize,
    /// The doc text `span` covers.
    pub snippet: String,
    /// What identifies the finding across runs while lines shift (SARIF `partialFingerprints`,
    /// new and fixed findings between sweeps): see [`fingerprint`].
    pub fingerprint: String,
}

/// Bytes of the doc line kept on each side of a finding's span in its fingerprint: a JSON
/// answer written on one line is not fingerprinted whole.
const CONTEXT_BYTES: usize = 200;

/// A finding's identity from what it says and where in the text it stands, never its line
/// numbers: the rule, the doc, the span's text and the doc line around it (whitespace
/// normalised, at most 200 bytes each side), and `occurrence`, how many findings
/// before it in the doc share all of these. Lines added above it, or the cited code moving,
/// leave it unchanged; a different citation gets a different one.
pub fn fingerprint(rule: RuleId, doc: &Doc, span: Span, occurrence: usize) -> String {
    use super::hash::{fnv1a, FNV_OFFSET};
    let text = doc.text.as_str();
    // The line(s) holding the span, from the line index (a doc written on one line holds many
    // findings: no scan to its line's ends).
    let lines = &doc.lines;
    let start = lines.line_start(lines.line(span.start)).unwrap_or(0);
    let end = lines
        .line_start(lines.line(span.end.min(text.len())) + 1)
        .map_or(text.len(), |next| next - 1);
    let mut from = start.max(span.start.saturating_sub(CONTEXT_BYTES));
    let mut to = end.min(span.end + CONTEXT_BYTES).max(from);
    while !text.is_char_boundary(from) {
        from -= 1;
    }
    while !text.is_char_boundary(to) {
        to += 1;
    }
    let context = words(&text[from..to]);
    let snippet = text.get(span.start..span.end).unwrap_or("");
    let mut h = fnv1a(FNV_OFFSET, rule.as_str().as_bytes());
    for part in [doc.name.as_bytes(), snippet.as_bytes(), context.as_bytes()] {
        h = fnv1a(h, &(part.len() as u64).to_le_bytes());
        h = fnv1a(h, part);
    }
    h = fnv1a(h, &(occurrence as u64).to_le_bytes());
    format!("{h:016x}")
}

/// `s`'s words (as `split_whitespace` splits them) joined by one space. An ASCII text without a
/// vertical tab (the one ASCII whitespace `split_ascii_whitespace` keeps) is split byte by byte,
/// not decoded character by character.
fn words(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut push = |w: &str| {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    };
    if s.is_ascii() && !s.as_bytes().contains(&0x0b) {
        s.split_ascii_whitespace().for_each(&mut push);
    } else {
        s.split_whitespace().for_each(&mut push);
    }
    out
}

impl Finding {
    /// A finding of `rule` at `span` of `doc`, with the rule's default severity and nothing else
    /// set.
    pub fn new(rule: RuleId, doc: DocId, span: Span, message: impl Into<String>) -> Self {
        Finding {
            rule,
            severity: rule.info().severity,
            doc,
            span,
            path: None,
            lines: None,
            revision: None,
            message: message.into(),
            help: None,
            evidence: None,
            fix: None,
            held: false,
            cite: None,
            answer: None,
            claim: None,
            at: Position::default(),
            suppressed: None,
        }
    }

    /// Its fix as every surface offers it: none while it is held back.
    pub fn offered_fix(&self) -> Option<&Fix> {
        self.fix.as_ref().filter(|_| !self.held)
    }

    /// Its fix, when it may be applied without asking.
    pub fn safe_fix(&self) -> Option<&Fix> {
        self.fix
            .as_ref()
            .filter(|x| x.applicability == Applicability::Safe)
    }

    /// The same finding, with `help` saying what to do.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn words_are_split_whitespaces_joined_by_one_space(
            s in proptest::collection::vec(
                proptest::sample::select(vec![
                    " ", "\t", "\n", "\r", "\x0b", "\x0c", "a", "Zz", "\u{a0}", "\u{2003}", "é", "\u{85}",
                ]),
                0..40,
            )
        ) {
            let s: String = s.concat();
            let expected = s.split_whitespace().collect::<Vec<_>>().join(" ");
            prop_assert_eq!(super::words(&s), expected);
        }
    }

    #[test]
    fn a_vertical_tab_splits_words_as_unicode_says() {
        assert_eq!(super::words(" a\x0bb \t\nc\r\n"), "a b c");
        assert_eq!(super::words("a\u{a0}b"), "a b");
    }
}
