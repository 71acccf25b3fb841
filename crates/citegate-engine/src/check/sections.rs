//! Named sections of a file, found as each toolchain finds them when it builds the site: the
//! lines between two marker lines (mdBook anchors, pymdownx.snippets sections, AsciiDoc tags), or
//! between two texts (Sphinx's `:start-after:` … `:end-before:`).

use std::sync::LazyLock;

use regex::Regex;

use crate::model::{Markers, TextMark};

/// pymdownx.snippets' section marker (its `RE_SNIPPET_SECTION`): `--8<-- [start:name]` anywhere
/// in a line, not escaped with a `;`.
static SNIPPET_SECTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?P<escape>;*)-+8<-+[ \t]+\[[ \t]*(?P<kind>start|end)[ \t]*:[ \t]*(?P<name>[a-z][-_0-9a-z]*)[ \t]*\]",
    )
    .expect("snippet section pattern")
});

/// The section's lines (1-based, inclusive; empty when `start > end`, which a start marker right
/// above its end gives), or `None` when the file does not have it: its start marker is missing,
/// or its end comes first, or a Sphinx text is not found.
pub fn lines(text: &str, markers: &Markers) -> Option<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let count = lines.len();
    // The first line at or after `from` (0-based) that `is` accepts.
    let find = |from: usize, is: &dyn Fn(&str) -> bool| (from..count).find(|&i| is(lines[i]));
    match markers {
        Markers::MdBook(name) => {
            let mark = |kind: &'static str| {
                move |l: &str| {
                    l.split_once(kind)
                        .is_some_and(|(_, rest)| rest.split_whitespace().next() == Some(name))
                }
            };
            let start = find(0, &mark("ANCHOR:"))?;
            let end = find(0, &mark("ANCHOR_END:")).filter(|&e| e > start)?;
            Some((start + 2, end))
        }
        Markers::Snippets(name) => {
            // As pymdownx reads them: the first start marker of the name opens it, the next end
            // closes it (none: to the end of the file); an end before any start means no section.
            let mark = |l: &str| {
                SNIPPET_SECTION
                    .captures(l)
                    .filter(|c| c["escape"].is_empty() && &c["name"] == name.as_str())
                    .map(|c| c["kind"].eq_ignore_ascii_case("start"))
            };
            let first = find(0, &|l| mark(l).is_some())?;
            if mark(lines[first]) != Some(true) {
                return None;
            }
            let end = find(first + 1, &|l| mark(l) == Some(false)).unwrap_or(count);
            Some((first + 2, end))
        }
        Markers::AsciiDoc(name) => {
            // Asciidoctor: `tag::name[]` opens, `end::name[]` closes (none: to the end).
            let open = format!("tag::{name}[]");
            let close = format!("end::{name}[]");
            let start = find(0, &|l| l.contains(&open))?;
            let end = find(start + 1, &|l| l.contains(&close)).unwrap_or(count);
            Some((start + 2, end))
        }
        Markers::Text { start, end } => {
            // Sphinx's start filter, then its end filter on what the start left.
            let first = match start {
                None => 0,
                Some(TextMark { text, at }) => {
                    let i = find(0, &|l| l.contains(text.as_str()))?;
                    if *at {
                        i
                    } else {
                        i + 1
                    }
                }
            };
            let last = match end {
                None => count,
                Some(TextMark { text, at }) => {
                    let i = find(first, &|l| l.contains(text.as_str()))?;
                    if *at {
                        i + 1
                    } else {
                        i
                    }
                }
            };
            Some((first + 1, last))
        }
        Markers::PyObject(name) => super::symbols::python_object(text, name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(start: Option<(&str, bool)>, end: Option<(&str, bool)>) -> Markers {
        let mark = |m: Option<(&str, bool)>| {
            m.map(|(t, at)| TextMark {
                text: t.to_string(),
                at,
            })
        };
        Markers::Text {
            start: mark(start),
            end: mark(end),
        }
    }

    #[test]
    fn each_toolchains_markers_bound_the_section_as_it_builds_it() {
        let code = "a\n// ANCHOR: x\nb\nc\n// ANCHOR_END: x\nd\n";
        assert_eq!(lines(code, &Markers::MdBook("x".into())), Some((3, 4)));
        assert_eq!(lines(code, &Markers::MdBook("y".into())), None);

        let code = "a\n# --8<-- [start:x]\nb\n# --8<-- [end:x]\nc\n";
        assert_eq!(lines(code, &Markers::Snippets("x".into())), Some((3, 3)));
        // Escaped markers are text; a section never closed runs to the end; an end first is none.
        let code = "# ;--8<-- [start:x]\n# --8<-- [start:x]\nb\nc\n";
        assert_eq!(lines(code, &Markers::Snippets("x".into())), Some((3, 4)));
        let code = "# --8<-- [end:x]\n# --8<-- [start:x]\nb\n";
        assert_eq!(lines(code, &Markers::Snippets("x".into())), None);

        let code = "a\n// tag::x[]\nb\n// end::x[]\n";
        assert_eq!(lines(code, &Markers::AsciiDoc("x".into())), Some((3, 3)));
        assert_eq!(lines(code, &Markers::AsciiDoc("b".into())), None);

        let code = "import os\ndef main():\n    run()\n# end\nmore\n";
        let m = text(Some(("def main", true)), Some(("# end", false)));
        assert_eq!(lines(code, &m), Some((2, 3)));
        let m = text(Some(("import", false)), Some(("# end", true)));
        assert_eq!(lines(code, &m), Some((2, 4)));
        assert_eq!(lines(code, &text(Some(("nothere", true)), None)), None);
        assert_eq!(
            lines(code, &text(None, Some(("import", false)))),
            Some((1, 0))
        );
    }
}
