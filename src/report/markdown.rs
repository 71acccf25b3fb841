//! Markdown output, for `$GITHUB_STEP_SUMMARY`, pull-request comments and sweep issues: counts by
//! family and rule, the docs with the most errors, and the findings grouped by doc, with links to
//! the doc line and to the cited span at its revision when the repository's web address is known;
//! kept within a size budget that fits where it goes (an issue body takes 65,536 characters).

use std::fmt::Write;

use crate::forge;
use crate::model::{Finding, LineRange, Report};
use crate::registry::Severity;
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

/// GitHub refuses an issue or comment body over 65,536 characters; the default budget leaves room
/// for what a workflow adds around the report.
pub const DEFAULT_MAX_BYTES: usize = 60_000;

/// The report as Markdown, under a `## title` heading, in at most `max_bytes`: what a reader acts
/// on first (counts by family and rule, the docs with the most errors), then the findings grouped
/// by doc in collapsible sections, the docs with the most severe findings first; what does not fit
/// is counted at the end, with where the full report is.
pub fn render(report: &Report, title: &str, max_bytes: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## {title}\n");
    let _ = writeln!(out, "{}\n", human::summary_line(report).trim_end());
    if report.findings.is_empty() {
        out.push_str("No findings: every citation holds.\n");
        return out;
    }
    counts(report, &mut out);
    let by_doc = by_doc(report);
    worst_docs(report, &by_doc, &mut out);
    out.push_str("### Findings\n\n");
    let mut left_out = 0;
    let mut docs_left_out = 0;
    for (doc, findings) in &by_doc {
        let block = doc_block(report, *doc, findings);
        // Room is kept for the closing line.
        if out.len() + block.len() + 400 <= max_bytes {
            out.push_str(&block);
        } else {
            left_out += findings.len();
            docs_left_out += 1;
        }
    }
    if left_out > 0 {
        let _ = writeln!(
            out,
            "_{left_out} finding{} in {docs_left_out} doc{} not shown: this report is kept under {max_bytes} bytes. \
             The full report is the run's JSON or SARIF (`--write json=citegate.json`, or the uploaded SARIF)._",
            if left_out == 1 { " is" } else { "s are" },
            if docs_left_out == 1 { "" } else { "s" },
        );
    }
    out
}

/// Findings by family and by rule.
fn counts(report: &Report, out: &mut String) {
    out.push_str("| family | rule | findings |\n|---|---|---|\n");
    let mut rows: Vec<(&str, &str, usize)> = report
        .summary
        .by_rule
        .iter()
        .filter_map(|(rule, n)| {
            let id = crate::registry::RuleId::from_id(rule)?;
            Some((id.info().family.as_str(), *rule, *n))
        })
        .collect();
    rows.sort();
    for (family, rule, n) in rows {
        let _ = writeln!(out, "| {family} | {} | {n} |", code(rule));
    }
    out.push('\n');
}

/// Findings by doc, the most severe docs first (errors, then warnings, then notes, then name);
/// within a doc, the most severe findings first, then by line.
fn by_doc(report: &Report) -> Vec<(usize, Vec<&Finding>)> {
    let mut groups: std::collections::BTreeMap<usize, Vec<&Finding>> = Default::default();
    for f in &report.findings {
        groups.entry(f.doc).or_default().push(f);
    }
    let mut out: Vec<(usize, Vec<&Finding>)> = groups.into_iter().collect();
    for (_, findings) in &mut out {
        findings.sort_by_key(|f| (f.severity, f.at.line, f.at.column));
    }
    let weight = |fs: &Vec<&Finding>| {
        let n = |s: Severity| fs.iter().filter(|f| f.severity == s).count();
        (n(Severity::Error), n(Severity::Warning), n(Severity::Note))
    };
    out.sort_by(|(a, fa), (b, fb)| {
        weight(fb)
            .cmp(&weight(fa))
            .then_with(|| report.docs[*a].doc.name.cmp(&report.docs[*b].doc.name))
    });
    out
}

/// The ten docs with the most errors, when there are several docs with errors.
fn worst_docs(report: &Report, by_doc: &[(usize, Vec<&Finding>)], out: &mut String) {
    let with_errors: Vec<_> = by_doc
        .iter()
        .filter(|(_, fs)| fs.iter().any(|f| f.severity == Severity::Error))
        .take(10)
        .collect();
    if with_errors.len() < 2 {
        return;
    }
    out.push_str(
        "### Docs with the most errors\n\n| doc | errors | warnings | notes |\n|---|---|---|---|\n",
    );
    for (doc, fs) in with_errors {
        let n = |s: Severity| fs.iter().filter(|f| f.severity == s).count();
        let name = &report.docs[*doc].doc.name;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            code(name),
            n(Severity::Error),
            n(Severity::Warning),
            n(Severity::Note)
        );
    }
    out.push('\n');
}

/// One doc's findings, in a collapsible section.
fn doc_block(report: &Report, doc: usize, findings: &[&Finding]) -> String {
    let n = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let name = &report.docs[doc].doc.name;
    let mut block = String::new();
    let _ = writeln!(
        block,
        "<details><summary>{}: {} error{}, {} warning{}, {} note{}</summary>\n",
        html(name),
        n(Severity::Error),
        if n(Severity::Error) == 1 { "" } else { "s" },
        n(Severity::Warning),
        if n(Severity::Warning) == 1 { "" } else { "s" },
        n(Severity::Note),
        if n(Severity::Note) == 1 { "" } else { "s" },
    );
    block.push_str("| line | rule | severity | cited | message |\n|---|---|---|---|---|\n");
    for f in findings {
        let _ = writeln!(
            block,
            "| {} | {} | {} | {} | {} |",
            doc_link(report, f, f.at.line),
            code(f.rule.as_str()),
            f.severity.as_str(),
            cited_link(report, f),
            cell(&f.message),
        );
    }
    block.push_str("\n</details>\n\n");
    block
}

/// Text inside HTML (a `<summary>`): escaped, on one line.
fn html(text: &str) -> String {
    printable(&text.replace(['\r', '\n'], " "), false)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
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
