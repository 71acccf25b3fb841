//! JUnit XML (Jenkins, Azure Pipelines, GitLab test reports): one test case per audited doc, a
//! `<failure>` per error finding in it; warnings and notes are listed in the case's
//! `<system-out>` without failing it. No times or timestamps: the same audit writes the same
//! bytes. Text is escaped for XML 1.0, whose characters exclude most control characters even as
//! references: those are written as `?`.

use std::collections::BTreeMap;

use citegate_engine::model::{DocId, DocList};
use citegate_engine::model::{Finding, Report};
use citegate_engine::registry::Severity;

/// `text` escaped for XML character data (`attribute`: an attribute value): the five markup
/// characters as entities, CR as a reference, LF and tab as references in an attribute (which
/// would otherwise read them as spaces), and the characters XML 1.0 excludes (C0 controls,
/// U+FFFE, U+FFFF) and the bidirectional controls as `?`.
pub fn escape(text: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\n' | '\t' => out.push(c),
            '\r' => out.push_str("&#13;"),
            '\u{FFFE}' | '\u{FFFF}' => out.push('?'),
            c if c.is_control() || citegate_engine::escape::is_bidi(c) => out.push('?'),
            c => out.push(c),
        }
    }
    out
}

/// [`super::one_line`], and the help on the next line.
fn described(report: &Report, f: &Finding) -> String {
    let mut text = super::one_line(report, f);
    if let Some(help) = &f.help {
        text.push('\n');
        text.push_str(help);
    }
    text
}

/// The report as one `<testsuites>` holding one `<testsuite>`.
pub fn render(report: &Report) -> String {
    let mut by_doc: BTreeMap<DocId, Vec<&Finding>> = BTreeMap::new();
    for f in &report.findings {
        by_doc.entry(f.doc).or_default().push(f);
    }
    let tests = report.docs.len();
    let failures = report
        .docs
        .enumerated()
        .filter(|(i, _)| {
            by_doc
                .get(i)
                .is_some_and(|fs| fs.iter().any(|f| f.severity == Severity::Error))
        })
        .count();
    let counts = format!(r#"tests="{tests}" failures="{failures}" errors="0""#);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!("<testsuites name=\"citegate\" {counts}>\n"));
    out.push_str(&format!(
        "  <testsuite name=\"citegate audit\" {counts} skipped=\"0\">\n"
    ));
    for (i, audited) in report.docs.enumerated() {
        let name = escape(&audited.doc.name, true);
        let findings = by_doc.get(&i).map_or(&[][..], |v| v.as_slice());
        if findings.is_empty() {
            out.push_str(&format!(
                "    <testcase name=\"{name}\" classname=\"citegate\"/>\n"
            ));
            continue;
        }
        out.push_str(&format!(
            "    <testcase name=\"{name}\" classname=\"citegate\">\n"
        ));
        let mut other = String::new();
        for f in findings {
            if f.severity == Severity::Error {
                out.push_str(&format!(
                    "      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                    f.rule,
                    escape(&f.message, true),
                    escape(&described(report, f), false)
                ));
            } else {
                other.push_str(&format!(
                    "{}: {}\n",
                    f.severity.as_str(),
                    described(report, f)
                ));
            }
        }
        if !other.is_empty() {
            out.push_str(&format!(
                "      <system-out>{}</system-out>\n",
                escape(&other, false)
            ));
        }
        out.push_str("    </testcase>\n");
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn xml_markup_and_forbidden_characters_are_escaped() {
        let text = "a<b>&\"c'\n\r\u{1b}[31m\u{202e}\u{FFFF}";
        assert_eq!(
            escape(text, true),
            "a&lt;b&gt;&amp;&quot;c&apos;&#10;&#13;?[31m??"
        );
        assert_eq!(
            escape(text, false),
            "a&lt;b&gt;&amp;&quot;c&apos;\n&#13;?[31m??"
        );
    }
}
