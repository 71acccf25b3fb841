//! Markdown output, for `$GITHUB_STEP_SUMMARY`, pull-request comments and sweep issues: counts per
//! family and a table of findings, with links to the doc line and to the cited span at its
//! revision when the repository's web address is known.

use std::fmt::Write;

use crate::forge;
use crate::model::Finding;
use crate::model::LineRange;
use crate::model::Report;
use crate::report::{human, printable};

/// Text for a Markdown table cell: on one line (a CR or LF would end the row and start Markdown of
/// its own), control characters replaced, `|` escaped, no raw HTML. Messages keep their code spans.
fn cell(text: &str) -> String {
    printable(&text.replace(['\r', '\n'], " "), false)
        .replace('|', "\\|")
        .replace('<', "&lt;")
}

/// `text` as a code span (in a table cell or a list): fenced by more backticks than it holds in a row, on one
/// line, with `|` escaped (GitHub splits table rows on it even inside code).
pub fn code(text: &str) -> String {
    let text = printable(&text.replace(['\r', '\n'], " "), false).replace('|', "\\|");
    let mut run = 0;
    let mut longest = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if longest > 0 { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}

fn doc_link(report: &Report, f: &Finding, line: usize) -> String {
    let doc = &report.docs[f.doc].doc;
    let label = format!("{}:{line}", doc.name);
    match (&report.web_url, doc.repo_dir.is_some()) {
        (Some(web), true) => {
            let at = Some(LineRange::single(line as i64));
            let url = forge::blob_url(web, &report.revision, &doc.name, at);
            format!("[{}]({url})", cell(&label))
        }
        _ => code(&label),
    }
}

fn cited_link(report: &Report, f: &Finding) -> String {
    let Some(path) = &f.path else {
        return String::new();
    };
    let label = match f.lines {
        Some(l) => format!("{path}:{l}"),
        None => path.clone(),
    };
    match (&report.web_url, &f.revision) {
        (Some(web), Some(rev)) => {
            let url = forge::blob_url(web, rev, path, f.lines);
            format!("[{}]({url})", cell(&label))
        }
        _ => code(&label),
    }
}

/// The report as Markdown, under a `## title` heading.
pub fn render(report: &Report, title: &str) -> String {
    let s = &report.summary;
    let mut out = String::new();
    let _ = writeln!(out, "## {title}\n");
    let _ = writeln!(out, "{}\n", human::summary_line(report).trim_end());
    if report.findings.is_empty() {
        out.push_str("No findings: every citation holds.\n");
        return out;
    }
    out.push_str("| family | findings |\n|---|---|\n");
    for (family, n) in &s.by_family {
        let _ = writeln!(out, "| {family} | {n} |");
    }
    out.push_str("\n| doc | rule | severity | cited | message |\n|---|---|---|---|---|\n");
    for f in &report.findings {
        let line = f.at.line;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            doc_link(report, f, line),
            code(f.rule.as_str()),
            f.severity.as_str(),
            cited_link(report, f),
            cell(&f.message),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_cannot_break_the_table_or_start_markdown() {
        assert_eq!(cell("a|b\r\n## x `y` <img>"), "a\\|b  ## x `y` &lt;img>");
        assert_eq!(code("a`b|c"), "`` a`b\\|c ``");
        assert_eq!(code("src/a.rs:1"), "`src/a.rs:1`");
        assert_eq!(cell("\u{1b}[2J"), "?[2J");
    }
}
