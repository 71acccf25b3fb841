//! GitHub Actions workflow commands: one `::error`/`::warning`/`::notice` annotation per finding,
//! with `%`, CR and LF escaped as GitHub requires (and `:` and `,` in properties).

use crate::model::Report;
use crate::registry::Severity;

/// Escape a command's message: `%`, CR and LF as GitHub requires, other control characters
/// (terminal escapes) replaced.
pub fn escape_data(s: &str) -> String {
    let s = s
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    super::printable(&s, false).into_owned()
}

/// Escape a command's property value.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One workflow command per finding.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    for f in &report.findings {
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
        out.push_str(&format!("::{command} {props}::{}\n", escape_data(&message)));
    }
    out
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
