//! The anchors a page defines, as the site generator that renders it names them: each Markdown
//! heading's slug (GitHub's, mdBook's, MkDocs' `toc`, Docusaurus'), explicit heading ids
//! (`{#id}`, MkDocs' attribute lists `{: #id }`) and HTML `id=`/`name=` attributes. Facts only:
//! whether a link's anchor is among them is `dead-doc-anchor`'s decision.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use regex::Regex;

/// How a site generator turns a heading into its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Slugger {
    /// GitHub's rendering of a repository's Markdown: lowercase, punctuation dropped, each
    /// space a `-`, repeats suffixed `-1`, `-2`. Fragments match ids whatever their case.
    GitHub,
    /// Docusaurus: GitHub's slugs (github-slugger), and explicit `{#id}` headings.
    Docusaurus,
    /// mdBook: alphanumerics, `_` and `-` kept (ASCII letters lowercased), whitespace a `-`,
    /// repeats suffixed `-1`, `-2`.
    MdBook,
    /// MkDocs' `toc` extension (Python-Markdown): `slugify` (ASCII) or `slugify_unicode`;
    /// repeats suffixed `_1`, `_2`.
    MkDocs {
        /// `slugify_unicode`: letters beyond ASCII are kept.
        unicode: bool,
    },
}

impl Slugger {
    /// Whether the site finds an anchor whatever its case (GitHub's page script does).
    pub(crate) fn any_case(self) -> bool {
        self == Slugger::GitHub
    }

    /// The generator's name, as the help says it.
    pub fn name(self) -> &'static str {
        match self {
            Slugger::GitHub => "GitHub",
            Slugger::Docusaurus => "Docusaurus",
            Slugger::MdBook => "mdBook",
            Slugger::MkDocs { .. } => "MkDocs",
        }
    }

    /// The id of a heading whose text is `text`, before repeats are told apart; `None` when it
    /// cannot be computed here (MkDocs' ASCII folding of accented letters).
    pub fn slug(self, text: &str) -> Option<String> {
        match self {
            Slugger::GitHub | Slugger::Docusaurus => Some(github(text)),
            Slugger::MdBook => Some(mdbook(text)),
            Slugger::MkDocs { unicode } => mkdocs(text, unicode),
        }
    }

    /// The id of the `n`th repeat (1 for the second heading with the same slug).
    fn repeat(self, slug: &str, n: usize) -> String {
        match self {
            Slugger::MkDocs { .. } => format!("{slug}_{n}"),
            _ => format!("{slug}-{n}"),
        }
    }
}

/// A heading of a page: its text and the id the generator gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heading {
    /// The heading's text, as the slug is computed from it.
    pub text: String,
    /// The anchor the generator gives it.
    pub id: String,
}

/// The anchors a page defines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageAnchors {
    /// Every id the page defines: headings' slugs, explicit ids, HTML `id`/`name` attributes.
    pub ids: HashSet<String>,
    /// The headings in page order, for suggestions.
    pub headings: Vec<Heading>,
    /// Some heading's id could not be computed: an anchor not found may be that heading's.
    pub incomplete: bool,
}

impl PageAnchors {
    pub(super) fn add(&mut self, id: &str) {
        if !id.is_empty() {
            self.ids.insert(id.to_string());
        }
    }
}

/// The anchors of a Markdown page rendered by `slugger`.
pub fn markdown(text: &str, slugger: Slugger) -> PageAnchors {
    let mut page = html(text);
    let mut seen: HashMap<String, usize> = HashMap::new();
    for raw in heading_texts(after_front_matter(text)) {
        let (title, explicit) = split_attributes(&raw);
        for id in &explicit {
            page.add(id);
        }
        if let (Some(id), Slugger::Docusaurus) = (explicit.first(), slugger) {
            // Docusaurus gives a heading its explicit id instead of a slug.
            page.headings.push(Heading {
                text: title.trim().to_string(),
                id: id.clone(),
            });
            continue;
        }
        // GitHub reads no attribute list: `{#id}` is part of its heading's text. Elsewhere the
        // slug of the title is kept too (MkDocs reads `{: #id }` only with `attr_list` on).
        let title = if slugger == Slugger::GitHub {
            raw.as_str()
        } else {
            title
        };
        let Some(slug) = slugger.slug(title) else {
            page.incomplete = true;
            continue;
        };
        let n = seen.entry(slug.clone()).or_insert(0);
        let id = match *n {
            0 => slug.clone(),
            n => slugger.repeat(&slug, n),
        };
        *n += 1;
        // A heading with an explicit id is found by that id (and by its slug, which some
        // generators also keep): either is never reported.
        page.add(&id);
        page.add(id.trim_end_matches(['-', '_']));
        let shown = explicit.first().cloned().unwrap_or(id);
        page.headings.push(Heading {
            text: title.trim().to_string(),
            id: shown,
        });
    }
    page
}

/// The page after its YAML front matter (`---` … `---` at the top), which renders no heading.
fn after_front_matter(text: &str) -> &str {
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return text;
    };
    let mut at = 0;
    for line in rest.split_inclusive('\n') {
        at += line.len();
        if matches!(line.trim_end(), "---" | "...") {
            return &rest[at..];
        }
    }
    text
}

/// The ids an HTML page (or raw HTML in Markdown) defines: every `id=` and `name=` attribute.
pub fn html(text: &str) -> PageAnchors {
    static TAG: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"<[A-Za-z][A-Za-z0-9-]*(\s[^<>]*)?>").expect("tag pattern"));
    static ATTR: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?i)\s(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>/]+))"#)
            .expect("attribute pattern")
    });
    let mut page = PageAnchors::default();
    for tag in TAG.find_iter(text) {
        for c in ATTR.captures_iter(tag.as_str()) {
            if let Some(v) = c.get(1).or_else(|| c.get(2)).or_else(|| c.get(3)) {
                page.add(&decode_entities(v.as_str()));
            }
        }
    }
    page
}

/// The few entities an attribute value is written with.
fn decode_entities(v: &str) -> String {
    v.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// Each heading's text content, in page order (ATX and setext; inline code and link text
/// kept, raw HTML and images left out, as a rendered heading's text is).
fn heading_texts(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut current: Option<String> = None;
    let mut image = 0usize;
    // GitHub's tables: a `|` line under a heading's text makes a table, not a setext heading.
    for event in Parser::new_ext(text, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::Heading { .. }) => current = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => found.extend(current.take()),
            Event::Start(Tag::Image { .. }) => image += 1,
            Event::End(TagEnd::Image) => image = image.saturating_sub(1),
            Event::Text(t) | Event::Code(t) if image == 0 => {
                if let Some(h) = current.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(h) = current.as_mut() {
                    h.push(' ');
                }
            }
            _ => {}
        }
    }
    found
}

/// A heading's title and the ids of its trailing attribute list (`{#id .class}`, MkDocs'
/// `{: #id }`), when it ends with one.
fn split_attributes(raw: &str) -> (&str, Vec<String>) {
    let trimmed = raw.trim_end();
    let Some(open) = trimmed.rfind('{').filter(|_| trimmed.ends_with('}')) else {
        return (raw, Vec::new());
    };
    let inner = trimmed[open + 1..trimmed.len() - 1].trim_start_matches(':');
    let ids: Vec<String> = (inner.split_whitespace())
        .filter_map(|w| w.strip_prefix('#'))
        .filter(|id| !id.is_empty())
        .map(str::to_string)
        .collect();
    match ids.is_empty() {
        true => (raw, Vec::new()),
        false => (&trimmed[..open], ids),
    }
}

/// GitHub's (and github-slugger's) slug: lowercase, every character but letters, marks,
/// numbers, `_`, `-` and spaces dropped, each space a `-`.
pub(super) fn github(text: &str) -> String {
    text.to_lowercase()
        .chars()
        .filter(|&c| c.is_alphanumeric() || is_mark(c) || matches!(c, '_' | '-' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// Combining marks in the common blocks (`\p{M}` keeps them in GitHub's slugs).
fn is_mark(c: char) -> bool {
    matches!(c, '\u{300}'..='\u{36f}' | '\u{1ab0}'..='\u{1aff}' | '\u{20d0}'..='\u{20ff}' | '\u{fe20}'..='\u{fe2f}')
}

/// A letter or digit that Unicode's compatibility decomposition (NFKD) may fold to ASCII
/// (`é` → `e`, `ﬁ` → `fi`, `²` → `2`): slugs that fold before dropping what is not ASCII
/// (MkDocs' `slugify`, docutils' `make_id`) are not computed here for text holding one.
pub(super) fn folded(c: char) -> bool {
    !c.is_ascii()
        && c.is_alphanumeric()
        && (c < '\u{3000}' || ('\u{f900}'..='\u{ffff}').contains(&c))
}

/// mdBook's `normalize_id`: alphanumerics, `_` and `-` kept with ASCII letters lowercased,
/// whitespace a `-`, the rest dropped; the text trimmed (and of leading `#`s) first.
fn mdbook(text: &str) -> String {
    let text = text.trim().trim_start_matches('#').trim();
    text.chars()
        .filter_map(|c| match c {
            c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c.to_ascii_lowercase()),
            c if c.is_whitespace() => Some('-'),
            _ => None,
        })
        .collect()
}

/// Python-Markdown's `toc.slugify` (`unicode`: `slugify_unicode`): word characters, spaces and
/// `-` kept, trimmed, lowercased, each run of `-` and spaces one `-`. The ASCII one folds
/// accented letters (NFKD) before dropping what is not ASCII: a heading holding such a letter
/// has no id here (`None`).
fn mkdocs(text: &str, unicode: bool) -> Option<String> {
    if !unicode && text.chars().any(folded) {
        return None;
    }
    let kept: String = text
        .chars()
        .filter(|&c| unicode || c.is_ascii())
        .filter(|&c| c.is_alphanumeric() || c == '_' || c == '-' || c.is_whitespace())
        .collect();
    let kept = kept.trim().to_lowercase();
    let mut slug = String::with_capacity(kept.len());
    for c in kept.chars() {
        let dash = c == '-' || c.is_whitespace();
        match dash {
            true if slug.ends_with('-') => {}
            true => slug.push('-'),
            false => slug.push(c),
        }
    }
    Some(slug)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(text: &str, s: Slugger) -> Vec<String> {
        markdown(text, s)
            .headings
            .into_iter()
            .map(|h| h.id)
            .collect()
    }

    #[test]
    fn github_slugs_drop_punctuation_and_number_repeats() {
        let text = "# Hello, World!\n## Hello, World!\n## `run()` — the loop 🚀\n## C++ & Rust\nSetext\n======\n";
        assert_eq!(
            ids(text, Slugger::GitHub),
            [
                "hello-world",
                "hello-world-1",
                "run--the-loop-",
                "c--rust",
                "setext"
            ]
        );
    }

    #[test]
    fn explicit_ids_are_anchors_and_github_reads_them_as_text() {
        let text = "## Install {#setup}\n## Tune {: #tuning .wide }\n";
        let page = markdown(text, Slugger::Docusaurus);
        assert!(page.ids.contains("setup") && page.ids.contains("tuning"));
        assert_eq!(page.headings[0].id, "setup");
        let page = markdown(text, Slugger::GitHub);
        assert!(page.ids.contains("install-setup") && page.ids.contains("setup"));
    }

    #[test]
    fn mdbook_keeps_underscores_and_non_ascii_case() {
        assert_eq!(mdbook("The `foo_bar` API: Ünits"), "the-foo_bar-api-Ünits");
        assert_eq!(ids("# A\n# A\n# A\n", Slugger::MdBook), ["a", "a-1", "a-2"]);
    }

    #[test]
    fn mkdocs_collapses_dashes_and_numbers_repeats_with_underscores() {
        let s = Slugger::MkDocs { unicode: false };
        assert_eq!(ids("# A -- b\n# A -- b\n", s), ["a-b", "a-b_1"]);
        assert_eq!(s.slug("Café"), None);
        assert_eq!(s.slug("日本 guide"), Some("guide".into()));
        let u = Slugger::MkDocs { unicode: true };
        assert_eq!(u.slug("Café au lait"), Some("café-au-lait".into()));
    }

    #[test]
    fn html_ids_and_names_are_anchors() {
        let page = html("<a name=\"old-name\"></a>\n<h2 id='x'>X</h2><div class=a id=y>");
        let mut ids: Vec<_> = page.ids.into_iter().collect();
        ids.sort();
        assert_eq!(ids, ["old-name", "x", "y"]);
    }
}
