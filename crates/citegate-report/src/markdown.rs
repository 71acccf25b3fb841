//! Markdown output, for `$GITHUB_STEP_SUMMARY`, pull-request comments and sweep issues: counts by
//! family and rule, the docs with the most errors, and the findings grouped by doc, with links to
//! the doc line and to the cited span at its revision when the repository's web address is known;
//! kept within a size budget that fits where it goes (an issue body takes 65,536 characters).

use std::fmt::Write;

use crate::summary;
use citegate_engine::escape::printable;
use citegate_engine::forge;
use citegate_engine::model::{DocId, Finding, LineRange, Report};
use citegate_engine::registry::Severity;

/// A message for a Markdown table cell: on one line (a CR or LF would end the row and start
/// Markdown of its own), control characters replaced. Its code spans (CommonMark's: a run of
/// backticks closed by a run of the same length) stay code spans, refenced to hold whatever they
/// hold; everything else is plain text (see [`text`]), so no doc, path or quote can add a link,
/// an image, HTML or a mention.
pub fn cell(message: &str) -> String {
    let line = printable(&message.replace(['\r', '\n'], " "), false).into_owned();
    let bytes = line.as_bytes();
    let run_at = |i: usize| bytes[i..].iter().take_while(|&&b| b == b'`').count();
    let (mut out, mut plain, mut i) = (String::new(), 0, 0);
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let n = run_at(i);
        let mut j = i + n;
        let close = loop {
            match bytes[j..].iter().position(|&b| b == b'`') {
                None => break None,
                Some(k) if run_at(j + k) == n => break Some(j + k),
                Some(k) => j += k + run_at(j + k),
            }
        };
        match close {
            Some(end) => {
                out.push_str(&text(&line[plain..i]));
                out.push_str(&code(strip_one_space(&line[i + n..end])));
                i = end + n;
                plain = i;
            }
            None => i += n,
        }
    }
    out.push_str(&text(&line[plain..]));
    out
}

/// A code span's content as CommonMark reads it: one space each side is dropped when both are
/// there and it is not all spaces.
fn strip_one_space(s: &str) -> &str {
    match s.strip_prefix(' ').and_then(|t| t.strip_suffix(' ')) {
        Some(inner) if !s.trim().is_empty() => inner,
        _ => s,
    }
}

/// Plain text in Markdown: every ASCII punctuation character that Markdown could read as syntax
/// is backslash-escaped (links, images, emphasis, HTML, tables, headings), and `@` is followed by
/// a zero-width space so that `@org/team` mentions nobody (as Renovate does).
pub fn text(s: &str) -> String {
    let s = printable(&s.replace(['\r', '\n'], " "), false).into_owned();
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '@' => out.push_str("@&#8203;"),
            // `.` and `:` too: `www.x` and `http://x` would become links of their own.
            // `^` and `$`: superscript and math in renderers that have them.
            '\\' | '`' | '*' | '_' | '{' | '}' | '[' | ']' | '(' | ')' | '#' | '+' | '!' | '|'
            | '<' | '>' | '~' | '&' | '.' | ':' | '^' | '$' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
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
            format!("[{}]({url})", text(&label))
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
    match super::cited_url(report, f) {
        Some(url) => format!("[{}]({})", text(&label), destination(&url)),
        None => code(&label),
    }
}

/// A URL as a Markdown link destination: what could end it or break out of a table cell
/// (spaces, brackets, parentheses, `|`, controls) percent-encoded. A foreign permalink is written
/// here as the doc wrote it.
pub fn destination(url: &str) -> String {
    const BREAKS: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
        .add(b' ')
        .add(b'"')
        .add(b'<')
        .add(b'>')
        .add(b'(')
        .add(b')')
        .add(b'[')
        .add(b']')
        .add(b'`')
        .add(b'\\')
        .add(b'|');
    percent_encoding::utf8_percent_encode(url, BREAKS).to_string()
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
    let _ = writeln!(out, "{}\n", summary::summary_line(report).trim_end());
    if report.findings.is_empty() {
        out.push_str("No findings: every citation holds.\n");
        return out;
    }
    counts(report, &mut out);
    let by_doc = by_doc(report);
    worst_docs(report, &by_doc, &mut out, max_bytes);
    out.push_str("### Findings\n\n");
    let mut left_out = 0;
    let mut docs_left_out = 0;
    for (doc, findings) in &by_doc {
        let block = doc_block(report, *doc, findings);
        // Room is kept for the closing line.
        if out.len() + block.len() + RESERVED <= max_bytes {
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
            let id = citegate_engine::registry::RuleId::from_id(rule)?;
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
pub fn by_doc(report: &Report) -> Vec<(DocId, Vec<&Finding>)> {
    let mut groups: std::collections::BTreeMap<DocId, Vec<&Finding>> = Default::default();
    for f in &report.findings {
        groups.entry(f.doc).or_default().push(f);
    }
    let mut out: Vec<(DocId, Vec<&Finding>)> = groups.into_iter().collect();
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

/// The ten docs with the most errors, when there are several docs with errors, as many of them as
/// fit in `max_bytes` with room left for the closing line.
fn worst_docs(
    report: &Report,
    by_doc: &[(DocId, Vec<&Finding>)],
    out: &mut String,
    max_bytes: usize,
) {
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
        let row = format!(
            "| {} | {} | {} | {} |\n",
            code(name),
            n(Severity::Error),
            n(Severity::Warning),
            n(Severity::Note)
        );
        if out.len() + row.len() + RESERVED > max_bytes {
            break;
        }
        out.push_str(&row);
    }
    out.push('\n');
}

/// Bytes kept free for the headings and the closing line that follow a table.
const RESERVED: usize = 600;

/// One doc's findings, in a collapsible section.
fn doc_block(report: &Report, doc: DocId, findings: &[&Finding]) -> String {
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

/// Text inside HTML (a `<summary>`): escaped, on one line, mentioning nobody.
fn html(text: &str) -> String {
    printable(&text.replace(['\r', '\n'], " "), false)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('@', "@&#8203;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_cannot_break_the_table_or_start_markdown() {
        assert_eq!(
            cell("a|b\r\n## x `y` <img>"),
            "a\\|b  \\#\\# x `y` \\<img\\>"
        );
        assert_eq!(code("a`b|c"), "`` a`b\\|c ``");
        assert_eq!(code("src/a.rs:1"), "`src/a.rs:1`");
        assert_eq!(cell("\u{1b}[2J"), "?\\[2J");
    }

    #[test]
    fn a_link_destination_cannot_end_the_link_or_the_cell() {
        let written = "https://x.io/o/r/blob/v1/a b).rs|<img>\n[x]#L1";
        assert_eq!(
            destination(written),
            "https://x.io/o/r/blob/v1/a%20b%29.rs%7C%3Cimg%3E%0A%5Bx%5D#L1"
        );
        let kept = "https://gitlab.com/G/P/-/blob/v1.2/src/lex%20er.rs#L7-9";
        assert_eq!(destination(kept), kept);
    }
}
