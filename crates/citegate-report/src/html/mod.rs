//! `sweep --html DIR`: a static report that opens from disk, with no server and no network: one
//! page for the run (totals, the trend, the worst docs, the tree of doc folders) and one per doc
//! with findings (each finding at its line, the cited lines at their revision and at the target,
//! the diff of a stale one, links to the forge). Written with maud, which escapes every value it
//! is given; inline CSS and SVG only, and a Content-Security-Policy that forbids any fetch and any
//! script, so a hostile doc name or text cannot do more than be shown.

mod chart;

pub use chart::Point;

use std::collections::BTreeMap;

use maud::{html, Markup, PreEscaped, DOCTYPE};

use citegate_engine::forge;
use citegate_engine::model::report::short;
use citegate_engine::model::{DocId, Finding, LineRange, Report};
use citegate_engine::registry::Severity;

/// What a dashboard shows besides the report.
#[derive(Debug, Clone, Default)]
pub struct Extras {
    /// When the sweep ran.
    pub date: String,
    /// The sweeps recorded so far, this one last.
    pub trend: Vec<Point>,
    /// Since the previous sweep: (its date, new findings, fixed findings).
    pub since: Option<(String, usize, usize)>,
    /// The cited lines at the finding's revision, by fingerprint, when it carries no evidence.
    pub at_revision: BTreeMap<String, Shown>,
    /// The cited lines at the target, by finding fingerprint (unique in a report), for findings
    /// about a citation read at an older revision.
    pub at_target: BTreeMap<String, Shown>,
}

/// Cited lines read for a page: the lines, or why they are not shown (a file over the size
/// limit every reader of blobs keeps to).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shown {
    Lines(String),
    Withheld(String),
}

const CSS: &str = include_str!("style.css");

/// Every page: (file name, HTML). `index.html` first, then `doc-N.html` per doc with findings.
pub fn render(report: &Report, extras: &Extras) -> Vec<(String, String)> {
    let groups = super::markdown::by_doc(report);
    let page_of: BTreeMap<DocId, String> = (groups.iter().enumerate())
        .map(|(i, (doc, _))| (*doc, format!("doc-{}.html", i + 1)))
        .collect();
    let mut pages = vec![(
        "index.html".to_string(),
        page("citegate sweep", index(report, extras, &groups, &page_of)).into_string(),
    )];
    for (doc, findings) in &groups {
        let name = &report.docs[*doc].doc.name;
        let body = doc_page(report, extras, *doc, findings);
        pages.push((page_of[doc].clone(), page(name, body).into_string()));
    }
    pages
}

fn page(title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta http-equiv="Content-Security-Policy"
                    content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";
                meta name="referrer" content="no-referrer";
                title { (title) " · citegate" }
                style { (PreEscaped(CSS)) }
            }
            body {
                a.skip href="#main" { "Skip to the report" }
                main #main { (body) }
            }
        }
    }
}

/// A link only to the forge (an `https://` address built from the repository's remote): never
/// to anything a doc wrote.
fn forge_link(url: Option<String>, label: &str) -> Markup {
    match url.filter(|u| u.starts_with("https://")) {
        Some(url) => html! { a href=(url) rel="noreferrer" { (label) } },
        None => html! { code { (label) } },
    }
}

fn count(findings: &[&Finding], s: Severity) -> usize {
    findings.iter().filter(|f| f.severity == s).count()
}

fn index(
    report: &Report,
    extras: &Extras,
    groups: &[(DocId, Vec<&Finding>)],
    page_of: &BTreeMap<DocId, String>,
) -> Markup {
    let s = &report.summary;
    let n = |k: &str| s.by_severity.get(k).copied().unwrap_or(0);
    html! {
        h1 { "citegate sweep" }
        p.meta {
            @if let Some(web) = &report.web_url { (forge_link(Some(web.clone()), web)) " · " }
            "revision " code { (short(&report.revision)) }
            @if !extras.date.is_empty() { " · " (extras.date) }
        }
        section aria-label="Totals" {
            ul.cards {
                li { b { (s.docs) } " docs" }
                li { b { (s.citations) } " citations" }
                li { b #findings { (report.findings.len()) } " findings" }
                li.error { b #errors { (n("error")) } " errors" }
                li.warning { b #warnings { (n("warning")) } " warnings" }
                li.note { b #notes { (n("note")) } " notes" }
            }
        }
        (trend(extras))
        section {
            h2 { "By family and rule" }
            p #families {
                @for (i, (family, k)) in s.by_family.iter().enumerate() {
                    @if i > 0 { " · " }
                    (family) " " b { (k) }
                }
            }
            table {
                thead { tr { th scope="col" { "rule" } th scope="col" { "family" } th.num scope="col" { "findings" } } }
                tbody {
                    @for (rule, k) in &s.by_rule {
                        tr { td { code { (rule) } } td { (family_of(rule)) } td.num { (k) } }
                    }
                }
            }
        }
        (worst(report, groups, page_of))
        section {
            h2 { "Docs by folder" }
            (tree(report, groups, page_of))
        }
    }
}

fn family_of(rule: &str) -> &'static str {
    citegate_engine::registry::RuleId::from_id(rule).map_or("", |r| r.info().family.as_str())
}

fn trend(extras: &Extras) -> Markup {
    html! {
        @if extras.trend.len() > 1 || extras.since.is_some() {
            section #trend {
                h2 { "Trend" }
                @if let Some((date, new, fixed)) = &extras.since {
                    p { "Since the sweep of " (date) ": " b #new { (new) } " new, " b #fixed { (fixed) } " fixed." }
                }
                @if let Some(chart) = chart::trend(&extras.trend) {
                    (chart)
                    p.legend { span.all { "findings" } " " span.stale { "stale citations" } }
                }
            }
        }
    }
}

fn worst(
    report: &Report,
    groups: &[(DocId, Vec<&Finding>)],
    page_of: &BTreeMap<DocId, String>,
) -> Markup {
    html! {
        section {
            h2 { "Docs with the most findings" }
            table #worst {
                thead { tr {
                    th scope="col" { "doc" } th.num scope="col" { "errors" }
                    th.num scope="col" { "warnings" } th.num scope="col" { "notes" }
                } }
                tbody {
                    @for (doc, fs) in groups.iter().take(20) {
                        tr {
                            td { a href=(page_of[doc]) { (report.docs[*doc].doc.name) } }
                            td.num { (count(fs, Severity::Error)) }
                            td.num { (count(fs, Severity::Warning)) }
                            td.num { (count(fs, Severity::Note)) }
                        }
                    }
                }
            }
        }
    }
}

/// The doc folders as nested, collapsible lists with their finding counts.
fn tree(
    report: &Report,
    groups: &[(DocId, Vec<&Finding>)],
    page_of: &BTreeMap<DocId, String>,
) -> Markup {
    let mut folders: BTreeMap<&str, Vec<(&str, usize, &str)>> = BTreeMap::new();
    for (doc, fs) in groups {
        let name = report.docs[*doc].doc.name.as_str();
        let (folder, file) = name.rsplit_once('/').unwrap_or((".", name));
        folders
            .entry(folder)
            .or_default()
            .push((file, fs.len(), &page_of[doc]));
    }
    html! {
        ul.tree {
            @for (folder, docs) in &folders {
                li {
                    details open {
                        summary { code { (folder) } " · " (docs.iter().map(|d| d.1).sum::<usize>()) }
                        ul {
                            @for (file, k, page) in docs {
                                li { a href=(page) { (file) } " · " (k) }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn doc_page(report: &Report, extras: &Extras, doc: DocId, findings: &[&Finding]) -> Markup {
    let d = &report.docs[doc].doc;
    let web = report.web_url.as_deref();
    let doc_url = web
        .filter(|_| d.repo_dir.is_some())
        .map(|w| forge::blob_url(w, &report.revision, &d.name, None));
    html! {
        p { a href="index.html" { "← all docs" } }
        h1 { (forge_link(doc_url, &d.name)) }
        p.meta { (findings.len()) " findings at " code { (short(&report.revision)) } }
        @for f in findings {
            (finding(report, extras, f))
        }
    }
}

fn finding(report: &Report, extras: &Extras, f: &Finding) -> Markup {
    let at_target = extras.at_target.get(&f.at.fingerprint);
    let d = &report.docs[f.doc].doc;
    let web = report.web_url.as_deref();
    let line_url = web.filter(|_| d.repo_dir.is_some()).map(|w| {
        forge::blob_url(
            w,
            &report.revision,
            &d.name,
            Some(LineRange::single(f.at.line as i64)),
        )
    });
    let cited = f.path.as_ref().map(|p| match f.lines {
        Some(l) => format!("{p}:{l}"),
        None => p.clone(),
    });
    let revision = f.revision.map(|r| r.to_string());
    let cited_url = crate::cited_url(report, f);
    html! {
        article.finding.(f.severity.as_str()) id=(format!("L{}", f.at.line)) {
            h2 {
                (forge_link(line_url, &format!("line {}:{}", f.at.line, f.at.column)))
                " · " span.badge { (f.severity.as_str()) } " " code { (f.rule.as_str()) }
            }
            p.message { (message(&f.message)) }
            pre.snippet { code { (f.at.snippet) } }
            @if let Some(cited) = &cited {
                p { "Cites " (forge_link(cited_url, cited))
                    @if let Some(rev) = &revision { " at " code { (short(rev)) } } }
            }
            @if let Some(shown) = f.evidence.clone().map(Shown::Lines).or(extras.at_revision.get(&f.at.fingerprint).cloned()) {
                h3 { "At " @if let Some(rev) = &revision { code { (short(rev)) } } @else { "its revision" } }
                (lines(&shown))
            }
            @if let Some(shown) = at_target {
                h3 { "At the target, " code { (short(&report.revision)) } } (lines(shown))
            }
            @if let Some(help) = &f.help {
                h3 { "Help" } pre.help { code { (help) } }
            }
            @if let Some(fix) = f.offered_fix() {
                p.fix { "Fix: cite " code { (fix.path) ":" (fix.start_line) "-" (fix.end_line) } }
            }
        }
    }
}

/// A finding's message with its code spans (`` `src/a.rs` ``, as CommonMark reads them: a run of
/// backticks closed by the next run of the same length) as `<code>`; every piece escaped by maud.
fn message(text: &str) -> Markup {
    // The backtick runs, (start, length), in one pass.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for (i, _) in text.match_indices('`') {
        match runs.last_mut() {
            Some((start, len)) if *start + *len == i => *len += 1,
            _ => runs.push((i, 1)),
        }
    }
    let mut parts: Vec<(bool, &str)> = Vec::new();
    let (mut at, mut open) = (0, 0);
    while open < runs.len() {
        let (start, ticks) = runs[open];
        let Some(close) = (open + 1..runs.len()).find(|&k| runs[k].1 == ticks) else {
            open += 1;
            continue;
        };
        let code = &text[start + ticks..runs[close].0];
        // `` `` a`b `` ``: one space each side pads a span that holds a backtick.
        let code = match code.strip_prefix(' ').and_then(|c| c.strip_suffix(' ')) {
            Some(c) if !c.is_empty() => c,
            _ => code,
        };
        parts.push((false, &text[at..start]));
        parts.push((true, code));
        at = runs[close].0 + ticks;
        open = close + 1;
    }
    parts.push((false, &text[at..]));
    html! {
        @for (code, part) in parts {
            @if code { code { (part) } } @else { (part) }
        }
    }
}

fn lines(shown: &Shown) -> Markup {
    match shown {
        Shown::Lines(text) => html! { pre { code { (text) } } },
        Shown::Withheld(why) => html! { p.withheld { (why) } },
    }
}

#[cfg(test)]
mod tests {
    use super::message;

    #[test]
    fn code_spans_in_messages_are_code_and_everything_is_escaped() {
        let html = |m: &str| message(m).into_string();
        assert_eq!(
            html("`src/a.rs` does not exist at 1a2b3c4d"),
            "<code>src/a.rs</code> does not exist at 1a2b3c4d"
        );
        assert_eq!(
            html("the quote is not in `<b>&x.rs` line 2"),
            "the quote is not in <code>&lt;b&gt;&amp;x.rs</code> line 2"
        );
        // A span holding a backtick, as the Markdown report writes one; an unclosed run is text.
        assert_eq!(
            html("cite `` a`b.rs `` now"),
            "cite <code>a`b.rs</code> now"
        );
        assert_eq!(html("one ` alone"), "one ` alone");
        assert_eq!(html("``"), "``");
        assert_eq!(html("`é` and `ü`"), "<code>é</code> and <code>ü</code>");
    }
}
