//! YAML front matter: a block between `---` lines at the very top of a Markdown doc (after a
//! byte-order mark). It may pin the whole doc (`citegate: {rev: REV}`) and list the files it was
//! written from (`sources: [src/a.ts]`). A `---` further down is a thematic break, never front
//! matter.

use crate::model::{Citation, DocProblem, Extracted, Span, Syntax};
use crate::registry::RuleId;

use crate::paths::resolve_path;

/// Front matter larger than this is reported, not parsed.
pub(super) const MAX_BYTES: usize = 64 << 10;

/// Where the front matter is: its YAML text, and where the Markdown after it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Block {
    pub yaml: Span,
    pub body_start: usize,
}

/// The front matter block starting at `from` (the doc's first byte after a byte-order mark).
pub(super) fn find(text: &str, from: usize) -> Option<Block> {
    let rest = &text[from..];
    let first = rest.split_inclusive('\n').next()?;
    if first.trim_end() != "---" {
        return None;
    }
    let yaml_start = from + first.len();
    let mut at = yaml_start;
    for line in text[yaml_start..].split_inclusive('\n') {
        let trimmed = line.trim_end();
        if trimmed == "---" || trimmed == "..." {
            return Some(Block {
                yaml: Span::new(yaml_start, at),
                body_start: at + line.len(),
            });
        }
        at += line.len();
    }
    None
}

/// Read the front matter's pin and sources into `ext`; invalid YAML is a located problem.
pub(super) fn read(text: &str, block: Block, ext: &mut Extracted) {
    #[derive(serde::Deserialize, Default)]
    struct FrontMatter {
        #[serde(default)]
        citegate: Option<Pin>,
        #[serde(default)]
        sources: Option<Vec<String>>,
    }
    #[derive(serde::Deserialize, Default)]
    struct Pin {
        rev: Option<String>,
    }
    let base = block.yaml.start;
    let yaml = &text[block.yaml.start..block.yaml.end];
    let problem = |ext: &mut Extracted, at: usize, message: String| {
        let at = at.min(text.len());
        ext.problems.push(DocProblem {
            rule: RuleId::MalformedDoc,
            span: Span::new(at, at),
            message,
            help: None,
        })
    };
    // Limits checked before the YAML parser sees the text (its time grows with nesting depth).
    if yaml.len() > MAX_BYTES {
        let message = format!("front matter over {} KiB: not read", MAX_BYTES >> 10);
        return problem(ext, base, message);
    }
    if let Some(at) = crate::config::yaml_too_deep(yaml) {
        let message = format!(
            "front matter nested deeper than {} levels: not read",
            crate::config::MAX_YAML_DEPTH
        );
        return problem(ext, base + at, message);
    }
    let parsed: Result<FrontMatter, _> = if yaml.trim().is_empty() {
        Ok(FrontMatter::default())
    } else {
        // Front matter that is not a mapping says nothing to citegate. A mapping is taken from
        // the parsed value when every field reads from it as is; otherwise (a number or a tag
        // where a string is wanted, a type error) it is read straight from the text, as YAML
        // reads scalars as strings, and a type error is located at its value. The text is
        // parsed a second time only then.
        serde_yaml_ng::from_str::<serde_yaml_ng::Value>(yaml).and_then(|v| match v {
            serde_yaml_ng::Value::Mapping(_) => {
                serde_yaml_ng::from_value(v).or_else(|_| serde_yaml_ng::from_str(yaml))
            }
            _ => Ok(FrontMatter::default()),
        })
    };
    let fm = match parsed {
        Ok(fm) => fm,
        // An agent's own front matter (Claude Code's `argument-hint: [issue-id] [reason]`, valid
        // for it, not strict YAML) that names none of citegate's keys says nothing to citegate.
        Err(_) if !names_our_keys(yaml) => return,
        Err(err) => {
            let at = err.location().map_or(base, |l| base + l.index());
            return problem(ext, at, format!("invalid YAML front matter: {err}"));
        }
    };
    if let Some(rev) = fm.citegate.and_then(|p| p.rev) {
        ext.doc_pin_span = pin_span(yaml, &rev).map(|s| s.shifted(base));
        ext.doc_pin = Some(rev);
    }
    let mut from = 0;
    for path in fm.sources.unwrap_or_default() {
        let span = match yaml[from..].find(path.as_str()) {
            Some(i) => {
                from += i + path.len();
                Span::new(base + from - path.len(), base + from)
            }
            None => block.yaml,
        };
        ext.citations.push(Citation::new(
            Syntax::FrontMatter,
            span,
            &path,
            resolve_path(&path, None, false),
        ));
    }
}

/// Whether a line of `yaml` starts with one of citegate's keys (`citegate:`, `sources:`).
fn names_our_keys(yaml: &str) -> bool {
    yaml.lines().any(|l| {
        let l = l.trim_start_matches(['\'', '"']);
        ["citegate", "sources"].iter().any(|k| {
            l.strip_prefix(k).is_some_and(|r| {
                r.trim_start_matches(['\'', '"'])
                    .trim_start()
                    .starts_with(':')
            })
        })
    })
}

/// Where the value of `citegate`'s `rev` is written: after the `citegate` key and its `rev` key.
fn pin_span(yaml: &str, rev: &str) -> Option<Span> {
    let key = yaml.find("citegate")?;
    let rev_key = key + yaml[key..].find("rev")? + "rev".len();
    let at = rev_key + yaml[rev_key..].find(rev)?;
    Some(Span::new(at, at + rev.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_block_at_the_very_top_is_front_matter() {
        let text = "---\ncitegate: {rev: abc}\n---\nbody\n";
        let block = find(text, 0).unwrap();
        assert_eq!(
            &text[block.yaml.start..block.yaml.end],
            "citegate: {rev: abc}\n"
        );
        assert_eq!(&text[block.body_start..], "body\n");
        assert_eq!(find("text\n---\na: b\n---\n", 0), None);
        assert_eq!(find("---\nno end\n", 0), None);
    }

    #[test]
    fn an_agents_front_matter_that_is_not_strict_yaml_is_not_ours_to_report() {
        // Issue 58: Claude Code's command front matter, valid for it, gave `malformed-doc`.
        let agent =
            "---\ndescription: Close an issue\nargument-hint: [issue-id] [reason]\n---\nDo it.\n";
        let mut ext = Extracted::default();
        read(agent, find(agent, 0).unwrap(), &mut ext);
        assert!(ext.problems.is_empty(), "{:?}", ext.problems);
        // With one of citegate's keys in it, the same error is citegate's to report.
        for key in ["sources: [src/a.rs]", "'citegate': {rev: v1}"] {
            let ours = agent.replace("description: Close an issue", key);
            let mut ext = Extracted::default();
            read(&ours, find(&ours, 0).unwrap(), &mut ext);
            assert_eq!(ext.problems.len(), 1, "{key}");
            assert!(ext.problems[0]
                .message
                .starts_with("invalid YAML front matter"));
        }
    }

    #[test]
    fn deep_large_and_mistyped_front_matter_is_a_located_problem() {
        let deep = format!("---\na: {}{}\n---\n", "[".repeat(1_000), "]".repeat(1_000));
        let mut ext = Extracted::default();
        read(&deep, find(&deep, 0).unwrap(), &mut ext);
        assert!(
            ext.problems[0].message.contains("nested deeper than"),
            "{:?}",
            ext.problems
        );
        assert_eq!(
            ext.problems[0].span.start,
            4 + 3 + crate::json_spans::MAX_DEPTH
        );
        let huge = format!(
            "---\na: {}{}\n---\n",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let mut ext = Extracted::default();
        read(&huge, find(&huge, 0).unwrap(), &mut ext);
        assert!(
            ext.problems[0].message.contains("over 64 KiB"),
            "{:?}",
            ext.problems
        );
        let typed = "---\ntitle: t\nsources: 3\n---\n";
        let mut ext = Extracted::default();
        read(typed, find(typed, 0).unwrap(), &mut ext);
        let at = ext.problems[0].span.start;
        assert_eq!(&typed[at..at + 1], "3", "{:?}", ext.problems);
    }

    #[test]
    fn the_parsed_value_reads_as_the_text_does() {
        // What the text reads as (the rule before the parsed value was used), against `read`.
        fn from_text(yaml: &str) -> Option<(Option<String>, Vec<String>)> {
            #[derive(serde::Deserialize)]
            struct Fm {
                citegate: Option<Pin>,
                sources: Option<Vec<String>>,
            }
            #[derive(serde::Deserialize)]
            struct Pin {
                rev: Option<String>,
            }
            match serde_yaml_ng::from_str::<serde_yaml_ng::Value>(yaml).ok()? {
                serde_yaml_ng::Value::Mapping(_) => {
                    let fm: Fm = serde_yaml_ng::from_str(yaml).ok()?;
                    let rev = fm.citegate.and_then(|p| p.rev);
                    Some((rev, fm.sources.unwrap_or_default()))
                }
                _ => Some((None, Vec::new())),
            }
        }
        for yaml in [
            "citegate: {rev: abc}\nsources: [a.rs, b/c.py]",
            "citegate:\n  rev: 1234567\nsources: [1, 2.50, true, ~x]",
            "citegate: {rev: !tag v1}\nsources: [!!str 3]",
            "citegate: [v2]\nsources: []",
            "citegate: ~\nsources: ~",
            "citegate: {rev: null}",
            "- a\n- b",
            "[null, [x.rs]]",
            "plain",
            "sources: {a: b}",
            "sources: [a.rs, [b]]",
            "citegate: {rev: 0x1f}\nsources: ['007', \"a.rs\"]",
            "a: &x [p.rs]\nsources: *x",
        ] {
            let text = format!("---\n{yaml}\n---\n");
            let mut ext = Extracted::default();
            read(&text, find(&text, 0).unwrap(), &mut ext);
            let got = ext.problems.is_empty().then(|| {
                let paths = ext.citations.iter().map(|c| c.raw_path.clone()).collect();
                (ext.doc_pin.clone(), paths)
            });
            assert_eq!(got, from_text(yaml), "{yaml}");
        }
    }

    #[test]
    fn the_pin_is_located_for_fixes() {
        let text = "---\ntitle: re\ncitegate:\n  rev: re\n---\n";
        let mut ext = Extracted::default();
        read(text, find(text, 0).unwrap(), &mut ext);
        assert_eq!(ext.doc_pin.as_deref(), Some("re"));
        let span = ext.doc_pin_span.unwrap();
        assert_eq!(&text[span.start..span.end], "re");
        assert!(span.start > text.find("rev").unwrap());
    }
}
