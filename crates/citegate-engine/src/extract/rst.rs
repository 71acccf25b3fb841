//! Sphinx's `literalinclude`: the directive in reStructuredText (`.. literalinclude:: PATH`) and
//! in MyST Markdown (```` ```{literalinclude} PATH ````), with its option lines after it. Sphinx
//! renders the file's lines when it builds the site, so the directive is a citation:
//!
//! | option | cites |
//! |---|---|
//! | none | the whole file |
//! | `:lines: 10-20` | lines 10-20 (`10`, `-20` from line 1, `1-3,8-9` several citations) |
//! | `:lines: 10-` | line 10 to the end: the file, checked as a whole |
//! | `:start-at:`, `:start-after:`, `:end-before:`, `:end-at:` | the lines between the texts, as Sphinx finds them: checked by the texts, stale when their lines changed (`:lines:` then counts inside them) |
//! | `:pyobject: Class.method` | the Python class or function of that dotted name, found in the file with tree-sitter as Sphinx's parser finds it: checked by its name, stale when its lines changed (the other options then count inside it) |
//!
//! docutils' `include` (`.. include:: PATH`, MyST's ```` ```{include} PATH ````) puts a file's
//! lines in the page too, parsed as markup or, with `:literal:` or `:code:`, shown as code: a
//! citation alike, with docutils' options:
//!
//! | option | cites |
//! |---|---|
//! | none | the whole file |
//! | `:start-line: 9`, `:end-line: 20` | lines 10-20 (a Python slice: 0-based, the end excluded); only a start: line 10 to the end; a negative one counts from the end: the file, checked whole |
//! | `:start-after:`, `:end-before:` | the lines between the texts, found as for `literalinclude` |
//!
//! PATH is relative to the doc's folder, or to the source root (the folder of `conf.py`) when
//! it starts with `/`, as Sphinx resolves it; docutils' own `<isonum.txt>` is no file of the
//! repository. A reStructuredText doc is read for these directives only; one shown in a literal
//! block (after `::`, in a `code-block`) is text.

use std::ops::Not;
use std::sync::LazyLock;

use regex::Regex;

use super::context::ExtractContext;
use crate::model::{
    Citation, Doc, Extracted, IncludePart, LineRange, LineStyle, Markers, PathStyle, Span, Syntax,
    TextMark,
};
use crate::paths::resolve_path;

/// `.. literalinclude:: path` or `.. include:: path` in reStructuredText.
static RST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?P<indent>[ \t]*)\.\.[ \t]+(?P<name>literalinclude|include)::[ \t]*(?P<path>\S.*?)[ \t]*$",
    )
    .expect("literalinclude pattern")
});

/// Which directive: Sphinx's `literalinclude` or docutils' `include`, whose options differ.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Directive {
    LiteralInclude,
    Include,
}

impl Directive {
    fn named(name: &str) -> Option<Directive> {
        match name {
            "literalinclude" => Some(Directive::LiteralInclude),
            "include" => Some(Directive::Include),
            _ => None,
        }
    }
}

/// A reStructuredText directive whose body is shown as code, not read.
static CODE_DIRECTIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[ \t]*\.\.[ \t]+(?:code-block|code|sourcecode|highlight|parsed-literal)::")
        .expect("code directive pattern")
});

/// A MyST directive's fence: ```` ```{literalinclude} path ````, `:::{…}` too.
static MYST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^[ \t]*(?P<fence>`{3,}|~{3,}|:{3,})[ \t]*\{(?P<name>[-\w:]+)\}[ \t]*(?P<path>.*?)[ \t]*$",
    )
    .expect("MyST directive pattern")
});

/// A Markdown code fence's opening or closing line.
static FENCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[ \t]{0,3}(?P<fence>`{3,}|~{3,})(?P<info>.*)$").expect("fence pattern")
});

/// An option line: `:lines: 10-20` (`lines: 10-20` in MyST's YAML options).
static OPTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[ \t]*(?P<colon>:?)(?P<key>[-\w]+):(?:[ \t]+(?P<value>.*?))?[ \t]*$")
        .expect("option pattern")
});

/// The lines of a text, each with its byte offset, without its line end.
fn lines(text: &str) -> Vec<(usize, &str)> {
    let mut at = 0;
    text.split_inclusive('\n')
        .map(|l| {
            let start = at;
            at += l.len();
            (start, l.trim_end_matches(['\n', '\r']))
        })
        .collect()
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Add the `literalinclude` and `include` directives of a reStructuredText doc to its citations.
pub(super) fn directives(doc: &Doc, ctx: &ExtractContext, ext: &mut Extracted) {
    if !doc.text.contains("include::") {
        return;
    }
    let lines = lines(&doc.text);
    let mut found = Vec::new();
    // The indent a literal block's lines are deeper than, while in one.
    let mut literal: Option<usize> = None;
    let mut i = 0;
    while i < lines.len() {
        let (at, line) = lines[i];
        i += 1;
        if let Some(depth) = literal {
            if line.trim().is_empty() || indent(line) > depth {
                continue;
            }
            literal = None;
        }
        let Some(caps) = RST.captures(line) else {
            let is_directive = line.trim_start().starts_with("..");
            if CODE_DIRECTIVE.is_match(line) || (!is_directive && line.ends_with("::")) {
                literal = Some(indent(line));
            }
            continue;
        };
        let depth = caps["indent"].len();
        let path = caps.name("path").expect("path group");
        let mut options = Vec::new();
        let mut end = at + line.len();
        while let Some(&(o_at, o_line)) = lines.get(i) {
            let o = OPTION.captures(o_line);
            match o.filter(|o| indent(o_line) > depth && !o["colon"].is_empty()) {
                Some(o) => options.push(option(&o, o_at)),
                None => break,
            }
            end = o_at + o_line.len();
            i += 1;
        }
        let written = Written {
            directive: Directive::named(&caps["name"]).expect("a directive the pattern names"),
            span: Span::new(at + depth, end),
            path: path.as_str(),
            path_at: at + path.start(),
            options,
        };
        written.cite(doc, ctx, &mut found);
    }
    ext.supersede(found, &[]);
}

/// Add the MyST `{literalinclude}` and `{include}` directives of a Markdown doc to its
/// citations; one inside a code fence (a doc showing the syntax) is text.
pub(super) fn myst(doc: &Doc, ctx: &ExtractContext, ext: &mut Extracted) {
    if !doc.text.contains("{literalinclude}") && !doc.text.contains("{include}") {
        return;
    }
    let lines = lines(&doc.text);
    let mut found = Vec::new();
    // The code fence the line is in (its marker), while in one.
    let mut code: Option<&str> = None;
    let mut i = 0;
    while i < lines.len() {
        let (at, line) = lines[i];
        i += 1;
        if let Some(fence) = code {
            let closes = FENCE.captures(line).is_some_and(|c| {
                c["fence"].starts_with(&fence[..1])
                    && c["fence"].len() >= fence.len()
                    && c["info"].trim().is_empty()
            });
            if closes {
                code = None;
            }
            continue;
        }
        let Some(caps) = MYST.captures(line) else {
            // A directive's fence (```` ```{note} ````) holds Markdown; any other holds code.
            if let Some(c) = FENCE.captures(line) {
                if !c["info"].trim_start().starts_with('{') {
                    code = Some(c.name("fence").expect("fence group").as_str());
                }
            }
            continue;
        };
        let Some(directive) = Directive::named(&caps["name"]) else {
            continue;
        };
        let fence = &caps["fence"];
        let path = caps.name("path").expect("path group");
        let mut options = Vec::new();
        let mut end = at + line.len();
        let mut yaml = false;
        while let Some(&(o_at, o_line)) = lines.get(i) {
            i += 1;
            end = o_at + o_line.len();
            let trimmed = o_line.trim();
            if trimmed.starts_with(&fence[..1]) && trimmed.len() >= fence.len() {
                break; // The directive's closing fence.
            }
            if trimmed == "---" {
                yaml = !yaml; // Options written as YAML: `key: value` between two `---`.
                continue;
            }
            // Written as YAML, an option has no leading `:`.
            let o = OPTION
                .captures(o_line)
                .filter(|o| o["colon"].is_empty() == yaml);
            options.extend(o.map(|o| option(&o, o_at)));
        }
        let written = Written {
            directive,
            span: Span::new(at + indent(line), end),
            path: path.as_str(),
            path_at: at + path.start(),
            options,
        };
        written.cite(doc, ctx, &mut found);
    }
    ext.supersede(found, &[]);
}

/// One option of a directive: its key, its value and where the value is written.
struct Opt {
    key: String,
    value: String,
    at: usize,
}

fn option(caps: &regex::Captures<'_>, line_at: usize) -> Opt {
    let value = caps.name("value");
    Opt {
        key: caps["key"].to_string(),
        value: value.map_or("", |v| v.as_str()).to_string(),
        at: line_at + value.map_or(0, |v| v.start()),
    }
}

/// A directive as written: which, where, its path and its options.
struct Written<'a> {
    directive: Directive,
    span: Span,
    path: &'a str,
    path_at: usize,
    options: Vec<Opt>,
}

impl Written<'_> {
    fn get(&self, key: &str) -> Option<&Opt> {
        self.options.iter().find(|o| o.key == key)
    }

    /// The directive's citations: one per range of its `:lines:`, else one.
    fn cite(&self, doc: &Doc, ctx: &ExtractContext, found: &mut Vec<Citation>) {
        let path = self.path.trim();
        let standard = path.starts_with('<') && path.ends_with('>');
        if path.is_empty() || path.contains("://") || standard {
            return;
        }
        let rooted = path.starts_with('/');
        let base = match rooted {
            true => ctx.sites.sphinx_root(ctx.workdir.as_deref(), doc),
            false => doc.repo_dir.clone(),
        }
        .unwrap_or_default();
        let cited = resolve_path(path.trim_start_matches('/'), Some(&base), false);
        let citation = || {
            let mut c = Citation::new(Syntax::LiteralInclude, self.span, path, cited.clone());
            c.path_span = Some((
                Span::new(self.path_at, self.path_at + path.len()),
                PathStyle::Include {
                    base: base.clone(),
                    rooted,
                },
            ));
            c
        };
        let mark = |at: &str, after: &str| match (self.get(at), self.get(after)) {
            (Some(o), _) => Some(TextMark {
                text: o.value.clone(),
                at: true,
            }),
            (None, Some(o)) => Some(TextMark {
                text: o.value.clone(),
                at: false,
            }),
            (None, None) => None,
        };
        let pyobject = self
            .get("pyobject")
            .filter(|o| o.value.trim().is_empty().not());
        if let Some(o) = pyobject.filter(|_| self.directive == Directive::LiteralInclude) {
            let mut c = citation();
            let name = o.value.trim().to_string();
            c.include = Some(IncludePart::Section(Markers::PyObject(name)));
            found.push(c);
            return;
        }
        let (start, end) = match self.directive {
            Directive::LiteralInclude => (
                mark("start-at", "start-after"),
                mark("end-at", "end-before"),
            ),
            // docutils has no `-at` options: `start-at` is no option of its.
            Directive::Include => (mark("", "start-after"), mark("", "end-before")),
        };
        if start.is_some() || end.is_some() {
            let mut c = citation();
            c.include = Some(IncludePart::Section(Markers::Text { start, end }));
            found.push(c);
            return;
        }
        if self.directive == Directive::Include {
            let mut c = citation();
            match self.slice() {
                Ok(Some(Part::Lines(r))) => c.lines = Some(r),
                Ok(Some(Part::From(n))) => c.include = Some(IncludePart::From(n)),
                Ok(_) => {}
                Err(written) => c.bad_lines = Some(written),
            }
            found.push(c);
            return;
        }
        let Some(lines) = self.get("lines").filter(|_| self.get("pyobject").is_none()) else {
            found.push(citation());
            return;
        };
        for (part, at) in parts(&lines.value, lines.at) {
            let mut c = citation();
            match part {
                Part::Lines(r) => {
                    c.lines = Some(r);
                    c.lines_span = Some((at, LineStyle::Plain));
                }
                Part::From(n) => c.include = Some(IncludePart::From(n)),
                Part::Bad(written) => c.bad_lines = Some(written),
            }
            found.push(c);
        }
    }
}

impl Written<'_> {
    /// What docutils' `:start-line:` and `:end-line:` (a Python slice of the file's lines)
    /// cite: lines, from a line to the end, or (`None`: none given, or one counted from the end)
    /// the whole file; a value that is no number is what was written, as an error.
    fn slice(&self) -> Result<Option<Part>, String> {
        let number = |key: &str| match self.get(key) {
            None => Ok(None),
            Some(o) => (o.value.trim().parse::<i64>())
                .map(Some)
                .map_err(|_| format!(":{key}: {}", o.value)),
        };
        let (start, end) = (number("start-line")?, number("end-line")?);
        if start.is_some_and(|s| s < 0) || end.is_some_and(|e| e < 0) {
            return Ok(None);
        }
        Ok(match (start.unwrap_or(0), end) {
            (0, None) => None,
            (s, None) => Some(Part::From(s + 1)),
            (s, Some(e)) => Some(Part::Lines(LineRange::new(s + 1, e))),
        })
    }
}

/// What one part of a `:lines:` value cites.
#[derive(Debug, PartialEq, Eq)]
enum Part {
    Lines(LineRange),
    From(i64),
    /// Not a line spec Sphinx reads (its build fails): reported.
    Bad(String),
}

/// The parts of a `:lines:` value written at `at` (Sphinx's `parselinenos`), each with where.
fn parts(value: &str, at: usize) -> Vec<(Part, Span)> {
    let mut out = Vec::new();
    let mut offset = at;
    for raw in value.split(',') {
        let lead = raw.len() - raw.trim_start().len();
        let part = raw.trim();
        let span = Span::new(offset + lead, offset + lead + part.len());
        offset += raw.len() + 1;
        let number = |s: &str| s.trim().parse::<i64>().ok();
        let read = match part.split_once('-') {
            None => number(part).map(|n| Part::Lines(LineRange::single(n))),
            Some(("", end)) => number(end).map(|e| Part::Lines(LineRange::new(1, e))),
            Some((start, "")) => number(start).map(Part::From),
            Some((start, end)) => number(start)
                .zip(number(end))
                .map(|(s, e)| Part::Lines(LineRange::new(s, e))),
        };
        out.push((read.unwrap_or_else(|| Part::Bad(part.to_string())), span));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CitedPath, DocKind};

    fn read(name: &str, kind: DocKind, text: &str) -> (Vec<Citation>, String) {
        let dir = name.rsplit_once('/').map(|(d, _)| d.to_string());
        let doc = Doc::new(name.into(), name.into(), dir, kind, text.into());
        let mut ext = Extracted::default();
        match kind {
            DocKind::Rst => directives(&doc, &ExtractContext::default(), &mut ext),
            _ => myst(&doc, &ExtractContext::default(), &mut ext),
        }
        (ext.citations.to_vec(), text.to_string())
    }

    #[test]
    fn lines_are_read_as_sphinx_reads_them() {
        let p = |v: &str| parts(v, 0).into_iter().map(|(p, _)| p).collect::<Vec<_>>();
        assert_eq!(p("10-20"), [Part::Lines(LineRange::new(10, 20))]);
        assert_eq!(
            p("1, 3-4"),
            [
                Part::Lines(LineRange::single(1)),
                Part::Lines(LineRange::new(3, 4))
            ]
        );
        assert_eq!(p("-5"), [Part::Lines(LineRange::new(1, 5))]);
        assert_eq!(p("7-"), [Part::From(7)]);
        assert_eq!(p("x"), [Part::Bad("x".into())]);
    }

    #[test]
    fn rst_directives_with_their_options_and_none_in_a_literal_block() {
        let text = "Title\n=====\n\n.. literalinclude:: ../src/a.py\n   :language: python\n   :lines: 2-4, 9\n\n.. literalinclude:: /src/b.py\n   :start-after: # start\n   :end-before: # end\n\nShown::\n\n    .. literalinclude:: shown.py\n\n.. code-block:: rst\n\n   .. literalinclude:: shown.py\n\n.. literalinclude:: c.py\n";
        let (found, text) = read("docs/guide.rst", DocKind::Rst, text);
        let cited: Vec<String> = found.iter().map(Citation::label).collect();
        assert_eq!(
            cited,
            ["src/a.py:2-4", "src/a.py:9", "src/b.py", "docs/c.py"]
        );
        let (span, _) = found[0].lines_span.unwrap();
        assert_eq!(&text[span.start..span.end], "2-4");
        assert_eq!(found[2].path, CitedPath::Repo("src/b.py".into()));
        assert!(matches!(
            &found[2].include,
            Some(IncludePart::Section(Markers::Text { start: Some(s), end: Some(e) }))
                if s.text == "# start" && !s.at && e.text == "# end" && !e.at
        ));
        let (span, style) = found[2].path_span.clone().unwrap();
        assert_eq!(&text[span.start..span.end], "/src/b.py");
        assert_eq!(style.render("lib/b.py"), "/lib/b.py");
    }

    #[test]
    fn docutils_includes_read_their_line_slice_and_texts() {
        let text = ".. include:: a.py\n   :start-line: 3\n   :end-line: 6\n\n.. include:: a.py\n   :start-line: 2\n\n.. include:: a.py\n   :end-line: -1\n\n.. include:: a.py\n   :start-line: x\n\n.. include:: a.py\n   :start-at: no such option\n   :end-before: # end\n\n.. include:: <isonum.txt>\n";
        let (found, _) = read("docs/i.rst", DocKind::Rst, text);
        let cited: Vec<String> = found.iter().map(Citation::label).collect();
        assert_eq!(
            cited,
            [
                "docs/a.py:4-6",
                "docs/a.py",
                "docs/a.py",
                "docs/a.py",
                "docs/a.py"
            ]
        );
        assert_eq!(found[1].include, Some(IncludePart::From(3)));
        assert_eq!(found[2].include, None);
        assert_eq!(found[3].bad_lines.as_deref(), Some(":start-line: x"));
        assert!(matches!(
            &found[4].include,
            Some(IncludePart::Section(Markers::Text { start: None, end: Some(e) }))
                if e.text == "# end" && !e.at
        ));
    }

    #[test]
    fn myst_directives_and_none_in_a_code_fence() {
        let text = "# T\n\n```{literalinclude} ../src/a.py\n:lines: 3-5\n```\n\n````md\n```{literalinclude} shown.py\n```\n````\n\n:::{literalinclude} b.py\n---\nstart-at: def main\n---\n:::\n";
        let (found, text) = read("docs/page.md", DocKind::Markdown, text);
        let cited: Vec<String> = found.iter().map(Citation::label).collect();
        assert_eq!(cited, ["src/a.py:3-5", "docs/b.py"]);
        let (span, _) = found[0].lines_span.unwrap();
        assert_eq!(&text[span.start..span.end], "3-5");
        assert!(matches!(
            &found[1].include,
            Some(IncludePart::Section(Markers::Text { start: Some(s), end: None }))
                if s.text == "def main" && s.at
        ));
    }
}
