//! The anchors of reStructuredText and AsciiDoc pages: section titles' ids as docutils (Sphinx,
//! GitHub) and Asciidoctor (Antora, GitHub) make them, and the explicit targets each writes
//! (`.. _label:`, `:name:`; `[[id]]`, `[#id]`, `anchor:id[]`). Where renderers differ, every id one
//! of them gives is an anchor: a link is reported only when no renderer would find it.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::anchors::{folded, github, html, Heading, PageAnchors};

/// Characters a reStructuredText title is underlined (or overlined) with.
const ADORNMENTS: &str = "=-`:'\"~^_*+#<>!$%&(),./;?@[\\]{|}";

/// The anchors of a reStructuredText page. A title whose id docutils folds (an accented
/// letter), or two titles with the same id (docutils numbers them its own way), leave the
/// page incomplete.
pub fn rst(text: &str) -> PageAnchors {
    let mut page = html(text);
    let lines: Vec<&str> = text.lines().collect();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        if let Some(label) = trimmed
            .strip_prefix(".. _")
            .and_then(|r| r.strip_suffix(':'))
        {
            let label = label.trim_matches('`');
            page.add(label);
            page.add(&make_id(label).unwrap_or_default());
        }
        if let Some(name) = trimmed.strip_prefix(":name:") {
            page.add(name.trim());
            page.add(&make_id(name.trim()).unwrap_or_default());
        }
        let underlined = lines.get(i + 1).is_some_and(|next| adornment(next));
        if trimmed.is_empty() || adornment(line) || !underlined {
            continue;
        }
        let Some(id) = make_id(trimmed) else {
            page.incomplete = true;
            continue;
        };
        let n = seen.entry(id.clone()).or_insert(0);
        *n += 1;
        page.incomplete |= *n > 1;
        page.add(&id);
        page.add(&github(trimmed));
        page.headings.push(Heading {
            text: trimmed.to_string(),
            id,
        });
    }
    page
}

/// A line of one adornment character repeated (at least 3 times): a title's underline.
fn adornment(line: &str) -> bool {
    let t = line.trim_end();
    let mut chars = t.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    ADORNMENTS.contains(first) && t.chars().count() >= 3 && chars.all(|c| c == first)
}

/// docutils' `make_id`: lowercase, each run of characters but ASCII letters and digits one `-`,
/// leading digits and `-` and trailing `-` dropped. `None` where docutils would fold an accented
/// letter to ASCII first (NFKD), which is not done here.
fn make_id(text: &str) -> Option<String> {
    if text.chars().any(folded) {
        return None;
    }
    let mut id = String::new();
    for c in text.to_lowercase().chars() {
        match c {
            'a'..='z' | '0'..='9' => id.push(c),
            _ if !id.ends_with('-') => id.push('-'),
            _ => {}
        }
    }
    let id = id.trim_start_matches(|c: char| c == '-' || c.is_ascii_digit());
    Some(id.trim_end_matches('-').to_string())
}

/// The anchors of an AsciiDoc page: explicit ids, and each section title's id as Asciidoctor
/// makes it with the page's `:idprefix:`/`:idseparator:` (default `_`, `_`) and as GitHub
/// renders it (no prefix, `-`). Two titles with the same id (numbered `_2`) leave it incomplete.
pub(crate) fn asciidoc(text: &str) -> PageAnchors {
    let mut page = html(text);
    let attribute = |name: &str| {
        let key = format!(":{name}:");
        (text.lines()).find_map(|l| Some(l.strip_prefix(key.as_str())?.trim().to_string()))
    };
    let prefix = attribute("idprefix").unwrap_or_else(|| "_".into());
    let separator = attribute("idseparator").unwrap_or_else(|| "_".into());
    // `[[id]]`, `[[id,reftext]]`, `[#id.role]`, `anchor:id[]`, `[id=id]`.
    static EXPLICIT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"\[\[([^\],\s]+)[^\]]*\]\]|\[#([^\].,%\s]+)|anchor:([^\[\s]+)\[|\[id=([^\],\s]+)",
        )
        .expect("anchor pattern")
    });
    for c in EXPLICIT.captures_iter(text) {
        let id = (1..=4)
            .find_map(|i| c.get(i))
            .map(|m| m.as_str())
            .unwrap_or("");
        page.add(id);
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    for line in text.lines() {
        let Some(title) = section_title(line) else {
            continue;
        };
        let id = asciidoctor_id(title, &prefix, &separator);
        let n = seen.entry(id.clone()).or_insert(0);
        *n += 1;
        page.incomplete |= *n > 1;
        page.add(&id);
        page.add(&asciidoctor_id(title, "", "-"));
        page.headings.push(Heading {
            text: title.to_string(),
            id,
        });
    }
    page
}

/// The title of a section line (`== Title`, or Markdown's `## Title`), not the document's.
fn section_title(line: &str) -> Option<&str> {
    let marks = line.chars().take_while(|&c| c == '=' || c == '#').count();
    let rest = &line[marks..];
    ((2..=6).contains(&marks) && rest.starts_with(' '))
        .then(|| rest.trim())
        .filter(|t| !t.is_empty())
}

/// Asciidoctor's generated section id: lowercase, markup and characters but word characters,
/// spaces, `-` and `.` dropped, each run of spaces, `.` and `-` one `separator`, after `prefix`.
fn asciidoctor_id(title: &str, prefix: &str, separator: &str) -> String {
    let lower = title.to_lowercase();
    let mut id = String::new();
    let mut in_tag = false;
    let mut pending = false;
    for c in lower.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if in_tag => {}
            ' ' | '.' | '-' => pending = true,
            c if c.is_alphanumeric() || c == '_' => {
                if pending && !id.is_empty() {
                    id.push_str(separator);
                }
                pending = false;
                id.push(c);
            }
            _ => {}
        }
    }
    format!("{prefix}{id}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docutils_ids_drop_leading_digits_and_fold_nothing_here() {
        assert_eq!(
            make_id("2. Step two: the `end`").as_deref(),
            Some("step-two-the-end")
        );
        assert_eq!(make_id("C++ & Rust").as_deref(), Some("c-rust"));
        assert_eq!(make_id("Café"), None);
    }

    #[test]
    fn rst_titles_labels_and_names_are_anchors_and_repeats_leave_it_incomplete() {
        let page = rst("=====\nGuide\n=====\n\n.. _my_label:\n\nInstall it\n----------\n\n.. image:: a.png\n   :name: pic\n\nNot a title\n\n---\n");
        for id in ["guide", "my_label", "my-label", "install-it", "pic"] {
            assert!(page.ids.contains(id), "{id}: {:?}", page.ids);
        }
        assert!(!page.ids.contains("not-a-title") && !page.incomplete);
        assert!(rst("A\n===\n\nA\n===\n").incomplete);
    }

    #[test]
    fn asciidoc_ids_follow_the_page_prefix_and_separator() {
        assert_eq!(asciidoctor_id("First Section", "_", "_"), "_first_section");
        assert_eq!(asciidoctor_id("A - b. <em>c</em>", "", "-"), "a-b-c");
        let page = asciidoc(":idprefix: id_\n:idseparator: .\n\n== Two Words\n");
        assert!(page.ids.contains("id_two.words") && page.ids.contains("two-words"));
    }
}
