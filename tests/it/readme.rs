//! The README and the guide (`docs/`) stay true: the guide's rule table is the catalogue, its usage
//! block is `--help`, every section of the old long README has a chapter the README links to, and
//! every relative link and mdBook include resolves to a file.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use pulldown_cmark::{Event, Parser, Tag};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn between<'a>(text: &'a str, start: &str, end: &str, file: &str) -> &'a str {
    let a = text
        .find(start)
        .unwrap_or_else(|| panic!("{start} in {file}"))
        + start.len();
    let b = text[a..]
        .find(end)
        .unwrap_or_else(|| panic!("{end} in {file}"))
        + a;
    text[a..b].trim()
}

#[test]
fn rule_table_matches_the_catalogue() {
    let mut table =
        String::from("| rule | family | default severity | what it flags |\n|---|---|---|---|\n");
    for rule in citegate::registry::RuleId::ALL {
        let info = rule.info();
        table.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            rule.as_str(),
            info.family.as_str(),
            info.severity.as_str(),
            info.summary
        ));
    }
    let file = "docs/src/rules.md";
    assert_eq!(
        between(
            &read(file),
            "<!-- rules:start -->",
            "<!-- rules:end -->",
            file
        ),
        table.trim()
    );
}

#[test]
fn usage_block_is_the_help_text() {
    let out = Command::cargo_bin("citegate")
        .unwrap()
        .args(["audit", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let file = "docs/src/usage.md";
    let usage = read(file);
    let block = between(&usage, "<!-- usage:start -->", "<!-- usage:end -->", file);
    let block = block
        .strip_prefix("```text")
        .and_then(|b| b.strip_suffix("```"))
        .expect("a text fence");
    assert_eq!(block.trim(), help.trim());
}

/// Each section of the README as it was before the guide (1,193 lines), the guide chapter that
/// holds it now, and that chapter's heading for it.
const OLD_SECTIONS: &[(&str, &str, &str)] = &[
    ("Quick start", "first-audit.md", "Quick start"),
    ("What it reads", "syntaxes.md", "What it reads"),
    (
        "History: stale citations",
        "history.md",
        "History: stale citations",
    ),
    ("`audit --since REF`", "history.md", "`audit --since REF`"),
    ("`citegate fix`", "fix.md", "`citegate fix`"),
    (
        "What \"safe\" means, and how it is checked",
        "fix.md",
        "What \"safe\" means, and how it is checked",
    ),
    ("`citegate sweep`", "sweeps.md", "`citegate sweep`"),
    (
        "Regenerate: audit → regenerate → review the diff",
        "regenerate.md",
        "Regenerate: audit → regenerate → review the diff",
    ),
    ("Rules", "rules.md", "Rules"),
    ("Usage", "usage.md", "Usage"),
    ("Configuration", "configuration.md", "Configuration"),
    ("Output formats", "output-formats.md", "Output formats"),
    ("GitHub Action", "action.md", "GitHub Action"),
    (
        "Agents: `citegate mcp`",
        "agents.md",
        "Agents: `citegate mcp`",
    ),
    (
        "Editor: `citegate lsp`",
        "editors.md",
        "Editors: `citegate lsp`",
    ),
    ("pre-commit", "action.md", "pre-commit"),
    ("JSON report", "json-report.md", "JSON report"),
    ("How it is built", "internals.md", "How it is built"),
    ("Benchmarks", "benchmarks.md", "Benchmarks"),
    ("Dependencies", "dependencies.md", "Dependencies"),
    ("Limits", "limits.md", "Limits"),
    ("Security", "security.md", "Security"),
];

#[test]
fn every_old_readme_section_has_a_chapter_the_readme_links_to() {
    let readme = read("README.md");
    let summary = read("docs/src/SUMMARY.md");
    for (old, chapter, heading) in OLD_SECTIONS {
        let path = format!("docs/src/{chapter}");
        let text = read(&path);
        assert!(
            text.lines()
                .any(|l| l.trim_start_matches('#').trim() == *heading && l.starts_with('#')),
            "the old README's `{old}` has no heading `{heading}` in {path}"
        );
        assert!(
            summary.contains(&format!("]({chapter})")),
            "{path} (the old README's `{old}`) is not in SUMMARY.md"
        );
        assert!(
            readme.contains(&format!("]({path}")),
            "the README does not link to {path} (the old README's `{old}`)"
        );
    }
}

/// A heading's anchor as GitHub and mdBook write it: lowercase, spaces to `-`, punctuation gone.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The relative link targets of a Markdown file (links and images, never inside code), and its
/// headings' anchors.
fn links_and_anchors(text: &str) -> (Vec<String>, Vec<String>) {
    let (mut links, mut anchors, mut heading) = (Vec::new(), Vec::new(), None::<String>);
    for event in Parser::new(text) {
        match event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                links.push(dest_url.to_string())
            }
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t)
                }
            }
            Event::End(pulldown_cmark::TagEnd::Heading(_)) => {
                anchors.extend(heading.take().map(|h| anchor(&h)))
            }
            _ => {}
        }
    }
    let relative = |l: &String| !l.contains("://") && !l.starts_with("mailto:");
    (links.into_iter().filter(relative).collect(), anchors)
}

/// The README and every guide page.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![Path::new(ROOT).join("README.md")];
    let src = Path::new(ROOT).join("docs/src");
    let mut chapters: Vec<PathBuf> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    chapters.sort();
    pages.extend(chapters);
    pages
}

#[test]
fn every_relative_link_and_include_resolves() {
    let mut broken = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let dir = page.parent().unwrap();
        let (links, _) = links_and_anchors(&text);
        for link in links {
            let (file, fragment) = link.split_once('#').unwrap_or((&link, ""));
            let target = if file.is_empty() {
                page.clone()
            } else {
                dir.join(file)
            };
            if !target.exists() {
                broken.push(format!("{}: {link}: no such file", page.display()));
            } else if !fragment.is_empty() && target.extension().is_some_and(|e| e == "md") {
                let (_, anchors) = links_and_anchors(&std::fs::read_to_string(&target).unwrap());
                if !anchors.iter().any(|a| a == fragment) {
                    broken.push(format!("{}: {link}: no such heading", page.display()));
                }
            }
        }
        for include in includes(&text) {
            if !dir.join(&include).is_file() {
                broken.push(format!(
                    "{}: include {include}: no such file",
                    page.display()
                ));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The files of a page's mdBook `{{#include PATH…}}` directives (an escaped `\{{#…}}` is text).
fn includes(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices("{{#include ") {
        if text[..at].ends_with('\\') {
            continue;
        }
        let rest = &text[at + "{{#include ".len()..];
        let end = rest.find(['}', ':', ' ']).unwrap_or(rest.len());
        found.push(rest[..end].to_string());
    }
    found
}

#[test]
fn the_readme_stays_short_and_every_guide_chapter_is_in_the_summary() {
    let lines = read("README.md").lines().count();
    assert!(lines <= 160, "the README has {lines} lines: keep it short");
    let summary = read("docs/src/SUMMARY.md");
    for page in pages().iter().skip(1) {
        let name = page.file_name().unwrap().to_str().unwrap();
        if name != "SUMMARY.md" {
            assert!(
                summary.contains(&format!("]({name})")),
                "{name} is not in SUMMARY.md"
            );
        }
    }
}

/// Issue 60: the README said `pip install citegate`, which installs an unrelated project (PyPI's
/// `citegate` is a BibTeX checker), and `npm install citegate`, a name nothing is published under.
/// Every `pip install citegate…` and `npm install citegate…` in the README, the guide and the
/// Python package's README names the package as `pyproject.toml` and `package.json` do.
#[test]
fn every_install_command_names_the_published_package() {
    let python = between(
        &read("bindings/python/pyproject.toml"),
        "[project]\nname = \"",
        "\"",
        "pyproject.toml",
    )
    .to_string();
    let node: serde_json::Value =
        serde_json::from_str(&read("bindings/node/package.json")).unwrap();
    let node = node["name"].as_str().unwrap().to_string();
    assert_eq!(
        (python.as_str(), node.as_str()),
        ("citegate-python", "citegate-node")
    );
    let command = regex::Regex::new(r"\b(pip|npm) install (citegate[\w.-]*)").unwrap();
    let mut pages = pages();
    pages.push(Path::new(ROOT).join("bindings/python/README.md"));
    let mut wrong = Vec::new();
    for page in pages {
        let text = std::fs::read_to_string(&page).unwrap();
        for c in command.captures_iter(&text) {
            let want = if &c[1] == "pip" { &python } else { &node };
            if &c[2] != want {
                wrong.push(format!(
                    "{}: `{}` (the package is {want})",
                    page.display(),
                    &c[0]
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
