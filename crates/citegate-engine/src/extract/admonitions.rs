//! MkDocs' admonitions (`!!! note`), collapsible details (`??? tip`, `???+ tip`, pymdownx.details)
//! and content tabs (`=== "Java"`, pymdownx.tabbed): a marker line, then a body indented by four
//! spaces that the site renders as prose. CommonMark reads that body as an indented code block,
//! so on a site with those extensions on (see [`super::site::MkDocs::indented_prose`]) the doc is
//! parsed with each marker line rewritten, byte for byte in place, into a list item whose
//! content starts at the body's column (`-   &`): the body is then the item's blocks (prose,
//! fences, nested markers, and code only where indented four more), and every offset is the
//! doc's own.
//!
//! Found as Python-Markdown finds them: at the start of a line at the body column of the
//! enclosing marker (the top: column 0), not inside a code fence or an indented code block; a
//! body ends at the first line indented less.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// A marker line, after its indentation: admonition, details, content tab.
static MARKER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"^(?:!!! ?[\w-]+(?: +[\w-]+)*(?: +"[^"]*")?|\?{3}\+? ?(?:[\w-]+(?: +[\w-]+)*(?: +"[^"]*")?|"[^"]*")|={3}!?\+? +"[^"]*") *$"#,
    )
    .expect("admonition marker pattern")
});

/// How far the body of a marker is indented past it (Python-Markdown's tab length).
const BODY: usize = 4;

/// An open code fence: its character, its length and the body column it is in.
struct OpenFence {
    mark: u8,
    len: usize,
    depth: usize,
}

/// The text to parse `text` as, with each marker line rewritten as a list item, and where each
/// such item starts (offsets in `text`). Borrowed when there is no marker.
pub(super) fn as_list_items(text: &str) -> (Cow<'_, str>, Vec<usize>) {
    if !text.contains("!!!") && !text.contains("???") && !text.contains("===") {
        return (Cow::Borrowed(text), Vec::new());
    }
    let mut items = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut fence: Option<OpenFence> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        let rest = content.trim_start_matches([' ', '\t']);
        if rest.is_empty() {
            continue;
        }
        let column = columns(&content[..content.len() - rest.len()]);
        if let Some(f) = &fence {
            if column >= f.depth {
                if closes(rest, f) {
                    fence = None;
                }
                continue;
            }
            fence = None;
        }
        while open.last().is_some_and(|&body| column < body) {
            open.pop();
        }
        let depth = open.last().copied().unwrap_or(0);
        if column >= depth + BODY {
            continue;
        }
        if let Some(f) = opens(rest, depth) {
            fence = Some(f);
        } else if column == depth && MARKER.is_match(rest) {
            items.push(start + content.len() - rest.len());
            open.push(column + BODY);
        }
    }
    if items.is_empty() {
        return (Cow::Borrowed(text), items);
    }
    let mut bytes = text.as_bytes().to_vec();
    for &item in &items {
        let end = item + text[item..].find(['\n', '\r']).unwrap_or(text.len() - item);
        let line = &mut bytes[item..end];
        line.fill(b' ');
        line[0] = b'-';
        // Something after the marker, so that the item can follow a paragraph and its content
        // starts at the body's column; every marker is at least five bytes but `!!!x`.
        if let Some(b) = line.get_mut(BODY) {
            *b = b'&';
        }
    }
    let rewritten = String::from_utf8(bytes).expect("ASCII written over whole ASCII lines");
    (Cow::Owned(rewritten), items)
}

/// The column a line's indentation reaches, a tab to the next multiple of four.
fn columns(indent: &str) -> usize {
    indent.bytes().fold(0, |col, b| match b {
        b'\t' => col + BODY - col % BODY,
        _ => col + 1,
    })
}

/// The code fence a line opens, if it does.
fn opens(rest: &str, depth: usize) -> Option<OpenFence> {
    let mark = *rest.as_bytes().first()?;
    if mark != b'`' && mark != b'~' {
        return None;
    }
    let len = rest.bytes().take_while(|&b| b == mark).count();
    let info_ok = mark == b'~' || !rest[len..].contains('`');
    (len >= 3 && info_ok).then_some(OpenFence { mark, len, depth })
}

/// Whether a line closes the open fence.
fn closes(rest: &str, fence: &OpenFence) -> bool {
    let len = rest.bytes().take_while(|&b| b == fence.mark).count();
    len >= fence.len && rest[len..].trim().is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(text: &str) -> String {
        as_list_items(text).0.into_owned()
    }

    #[test]
    fn markers_become_list_items_in_place_and_their_bodies_stay() {
        let text = "# T\n\n!!! note \"A title\"\n    Body `a.rs:1`.\n\n    ??? tip\n        Deep.\n\n=== \"Java\"\n\n    Tab.\n";
        let want = "# T\n\n-   &             \n    Body `a.rs:1`.\n\n    -   &  \n        Deep.\n\n-   &     \n\n    Tab.\n";
        assert_eq!(rewritten(text), want);
        assert_eq!(as_list_items(text).1, [5, 48, 71]);
    }

    #[test]
    fn markers_in_code_are_not_rewritten() {
        for text in [
            "```\n!!! note\n    x\n```\n",
            "    !!! note\n        x\n",
            "!!! note\n    ```\n    !!! tip\n    ```\n",
            "!!! note\n        !!! tip\n",
            "Para\n\n  !!! note\n",
        ] {
            let (out, items) = as_list_items(text);
            let expected_items = usize::from(text.starts_with("!!!"));
            assert_eq!(items.len(), expected_items, "{text:?}");
            assert_eq!(out.len(), text.len());
        }
        assert_eq!(rewritten("!!! note\nno body\n"), "-   &   \nno body\n");
        // A body ends at a line indented less: a marker after it is at the top again.
        let (_, items) = as_list_items("!!! a\n    x\ntext\n!!! b\n    y\n");
        assert_eq!(items, [0, 17]);
    }
}
