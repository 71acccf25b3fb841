//! GitHub Actions workflow commands: `::error`/`::warning`/`::notice` annotations, as many as GitHub
//! shows (10 of each level per step), the ones a reviewer must see first, then a notice of how many
//! were left out; `%`, CR and LF escaped as GitHub requires (and `:` and `,` in properties).

use citegate_engine::model::{Finding, Reason, Report};
use citegate_engine::registry::Severity;

/// Escape a command's message: `%`, CR and LF as GitHub requires, other control characters
/// (terminal escapes) replaced.
pub fn escape_data(s: &str) -> String {
    let s = s
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    citegate_engine::escape::printable(&s, false).into_owned()
}

/// Escape a command's property value.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub shows at most this many annotations of each level per step (and 50 per job), and drops
/// the rest without a word.
pub const PER_STEP: usize = 10;

/// How urgently a reviewer must see a finding: errors in docs the change touched, then the other
/// errors, then warnings, then notes.
fn urgency(report: &Report, f: &Finding) -> u8 {
    let changed = report
        .selection
        .as_ref()
        .and_then(|s| s.get(f.doc.index()))
        .is_some_and(|reasons| reasons.contains(&Reason::DocChanged));
    match f.severity {
        Severity::Error if changed => 0,
        Severity::Error => 1,
        Severity::Warning => 2,
        Severity::Note => 3,
    }
}

/// One workflow command per finding GitHub will show, the most urgent first, and a closing notice
/// of how many were not annotated and where they are.
pub fn render(report: &Report) -> String {
    let mut order: Vec<&Finding> = report.findings.iter().collect();
    order.sort_by_key(|f| urgency(report, f)); // stable: doc order within each level
    let mut shown = [0usize; 3];
    let mut out = String::new();
    let mut left = 0;
    for f in order {
        let level = match f.severity {
            Severity::Error => 0,
            Severity::Warning => 1,
            Severity::Note => 2,
        };
        // One notice is kept for the closing one.
        let room = if level == 2 { PER_STEP - 1 } else { PER_STEP };
        if shown[level] == room {
            left += 1;
            continue;
        }
        shown[level] += 1;
        out.push_str(&annotation(report, f));
    }
    if left > 0 {
        out.push_str(&format!(
            "::notice title=citegate::{left} more finding{} not annotated here (GitHub shows {PER_STEP} errors, {PER_STEP} warnings and {PER_STEP} notices per step): see the step summary and the SARIF upload for every finding\n",
            if left == 1 { " is" } else { "s are" }
        ));
    }
    out
}

fn annotation(report: &Report, f: &Finding) -> String {
    let doc = &report.docs[f.doc].doc;
    let (line, col) = (f.at.line, f.at.column);
    let (end_line, end_col) = (f.at.end_line, f.at.end_column);
    let command = match f.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "notice",
    };
    let mut message = f.message.clone();
    if let Some(help) = &f.help {
        message.push('\n');
        message.push_str(help);
    }
    let mut props = format!("file={},line={line},col={col}", escape_property(&doc.name));
    if end_line == line {
        props.push_str(&format!(",endColumn={end_col}"));
    } else {
        props.push_str(&format!(",endLine={end_line}"));
    }
    props.push_str(&format!(
        ",title={}",
        escape_property(&format!("citegate {}", f.rule))
    ));
    format!("::{command} {props}::{}\n", escape_data(&message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_github_requires() {
        assert_eq!(escape_data("50% a\r\nb"), "50%25 a%0D%0Ab");
        assert_eq!(escape_property("a:b,c%"), "a%3Ab%2Cc%25");
        assert_eq!(escape_data("a\u{1b}[31m"), "a?[31m");
    }
}
