//! What a citation is: a path, an optional 1-based inclusive line range, an optional quote and pin,
//! and the span in the doc where it was written.

use super::ids::{AnswerId, CiteId, ClaimId};
use super::span::Span;

/// 1-based, inclusive. Kept signed so that impossible ranges (`0`, `-3`, end before start) survive
/// extraction and are reported as `invented-lines` instead of being lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LineRange {
    /// The first cited line (as written: may be 0 or negative).
    pub start: i64,
    /// The last cited line, inclusive (as written: may be before `start`).
    pub end: i64,
}

/// ASCII digits, at least one.
fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

impl LineRange {
    /// The lines `start` to `end`, as written: nothing is checked.
    pub fn new(start: i64, end: i64) -> Self {
        LineRange { start, end }
    }

    /// Parse a whole line spec: `10`, `L10`, `10-20`, `L10-L20`, `L10-20`.
    pub fn parse(spec: &str) -> Option<LineRange> {
        let (first, last) = match spec.split_once('-') {
            Some((a, b)) => (a, Some(b)),
            None => (spec, None),
        };
        let number = |s: &str| -> Option<i64> {
            let digits = s.strip_prefix('L').unwrap_or(s);
            // GitHub's column fragments (`L238C4`, `L883C24`) select within the line: the line
            // is what is cited, the columns are ignored.
            let digits = match digits.split_once('C') {
                Some((line, col)) if s.starts_with('L') && is_number(col) => line,
                _ => digits,
            };
            if !is_number(digits) {
                return None;
            }
            digits.parse().ok()
        };
        let start = number(first)?;
        let end = match last {
            Some(l) => number(l)?,
            None => start,
        };
        Some(LineRange::new(start, end))
    }

    /// The one line `line`.
    pub fn single(line: i64) -> Self {
        LineRange::new(line, line)
    }

    /// How many lines it covers; 0 or less when the end is before the start.
    pub fn len(&self) -> i64 {
        self.end - self.start + 1
    }

    /// Whether it covers no line (its end is before its start).
    pub fn is_empty(&self) -> bool {
        self.len() <= 0
    }

    /// Whether `other` lies wholly inside this range.
    pub fn contains(&self, other: &LineRange) -> bool {
        self.start <= other.start && other.end <= self.end
    }

    /// The range in words: `line 16`, `lines 16-20`.
    pub fn named(&self) -> String {
        match self.len() {
            1 => format!("line {self}"),
            _ => format!("lines {self}"),
        }
    }
}

impl std::fmt::Display for LineRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.start == self.end {
            write!(f, "{}", self.start)
        } else {
            write!(f, "{}-{}", self.start, self.end)
        }
    }
}

/// How the line numbers were written, so that a fix rewrites them in the citation's own syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineStyle {
    /// `10-20` (bare, deepwiki-open, GitLab fragments after `#L`).
    Plain,
    /// `L10-L20` (GitHub fragments, `path:L10-L20`).
    PrefixedBoth,
    /// `L10-20` (GitLab, Copilot).
    PrefixedFirst,
    /// `L10 - L20` (a DeepWiki book's link text, `[src/a.rs(L10 - L20)&emsp;](…)`).
    Spaced,
    /// `lines-10:20` (Bitbucket).
    Bitbucket,
    /// `12:15:` in a Cursor fence info string (and `10:20` in an mdBook or MkDocs include).
    Cursor,
    /// `10..20` (AsciiDoc's `lines=`).
    Dots,
    /// Two JSON number fields; the span runs from the first written to the last.
    JsonFields {
        /// The start field is written before the end field.
        start_first: bool,
    },
}

impl LineStyle {
    /// The text that replaces the line spec for `range`.
    pub fn render(self, range: LineRange) -> String {
        let (s, e) = (range.start, range.end);
        match self {
            LineStyle::Plain if s == e => format!("{s}"),
            LineStyle::Plain => format!("{s}-{e}"),
            LineStyle::PrefixedBoth if s == e => format!("L{s}"),
            LineStyle::PrefixedBoth => format!("L{s}-L{e}"),
            LineStyle::PrefixedFirst if s == e => format!("L{s}"),
            LineStyle::PrefixedFirst => format!("L{s}-{e}"),
            LineStyle::Spaced if s == e => format!("L{s}"),
            LineStyle::Spaced => format!("L{s} - L{e}"),
            LineStyle::Bitbucket if s == e => format!("lines-{s}"),
            LineStyle::Bitbucket => format!("lines-{s}:{e}"),
            LineStyle::Cursor => format!("{s}:{e}"),
            LineStyle::Dots if s == e => format!("{s}"),
            LineStyle::Dots => format!("{s}..{e}"),
            LineStyle::JsonFields { .. } => format!("{s}-{e}"),
        }
    }

    /// The replacement for `written` (the doc text at the citation's line span) that cites `range`.
    /// For JSON the span holds both fields and what lies between them, which is kept.
    pub fn rewrite(self, written: &str, range: LineRange) -> String {
        let LineStyle::JsonFields { start_first } = self else {
            return self.render(range);
        };
        let num = |c: char| c.is_ascii_digit() || c == '-' || c == '"';
        let head = written.len() - written.trim_start_matches(num).len();
        let tail = written.len() - written.trim_end_matches(num).len();
        if head + tail > written.len() {
            return self.render(range);
        }
        let (first, last) = if start_first {
            (range.start, range.end)
        } else {
            (range.end, range.start)
        };
        format!("{first}{}{last}", &written[head..written.len() - tail])
    }
}

/// How a path is written, so that a fix for a renamed file writes the new one the same way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathStyle {
    /// Repo-relative as is (bare citations, fences, front matter).
    Repo,
    /// A Markdown link target: relative to the doc's folder (`base`), or to the root when it
    /// starts with `/`; percent-encoded.
    Link {
        /// The doc's folder, repo-relative; `None`: the repository root.
        base: Option<String>,
        /// The target starts with `/`: it is relative to the root, not to `base`.
        rooted: bool,
    },
    /// Inside a forge URL: percent-encoded.
    Url,
    /// Inside a JSON string.
    Json,
    /// An include directive's path, not encoded: relative to `base` (the doc's folder, a snippets
    /// `base_path`, Sphinx's source root), written after a `/` when `rooted` (Sphinx's paths
    /// from its source root).
    Include {
        /// The folder the path is relative to, repo-relative.
        base: String,
        /// The path is written after a `/`.
        rooted: bool,
    },
}

impl PathStyle {
    /// `path` (repo-relative) written in this style.
    pub fn render(&self, path: &str) -> String {
        match self {
            PathStyle::Repo => path.to_string(),
            PathStyle::Url => encode_path(path),
            PathStyle::Json => {
                let quoted = serde_json::to_string(path).unwrap_or_default();
                quoted[1..quoted.len().saturating_sub(1)].to_string()
            }
            PathStyle::Link { rooted: true, .. } => format!("/{}", encode_path(path)),
            PathStyle::Link {
                base,
                rooted: false,
            } => relative(base.as_deref().unwrap_or(""), path, encode_path),
            PathStyle::Include { base, rooted } => {
                let path = relative(base, path, str::to_string);
                format!("{}{path}", if *rooted { "/" } else { "" })
            }
        }
    }
}

/// `path` (repo-relative) written relative to the folder `base`, each segment through `segment`.
fn relative(base: &str, path: &str, segment: fn(&str) -> String) -> String {
    let base: Vec<&str> = base.split('/').filter(|s| !s.is_empty()).collect();
    let target: Vec<&str> = path.split('/').collect();
    let common = base
        .iter()
        .zip(&target)
        .take_while(|(a, b)| a == b)
        .count()
        .min(target.len().saturating_sub(1));
    let mut parts: Vec<String> = vec!["..".to_string(); base.len() - common];
    parts.extend(target[common..].iter().map(|s| segment(s)));
    parts.join("/")
}

fn encode_path(path: &str) -> String {
    const KEEP: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'/')
        .remove(b'.')
        .remove(b'-')
        .remove(b'_')
        .remove(b'~')
        .remove(b'+')
        .remove(b'@');
    percent_encoding::utf8_percent_encode(path, KEEP).to_string()
}

/// Where a citation's revision came from; decides what a fix may rewrite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PinSource {
    /// Written in the citation (a permalink's revision): a fix re-pins it.
    Citation,
    /// The doc's front matter or the answer's `revision`: a fix for one citation cannot move it.
    Doc,
    /// The commit that last touched the citation's line of the doc (blame).
    Implied,
    /// None: the citation resolves at the target.
    Target,
}

/// The syntax a citation was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Syntax {
    /// `[t](src/a.rs#L10-L20)`, Copilot links.
    MarkdownLink,
    /// A forge URL with a revision: GitHub, GitLab, Bitbucket, Gitea/Forgejo.
    Permalink,
    /// `src/a.rs:10-20` in text or inline code.
    Bare,
    /// `[src/a.rs:10-20]()`: deepwiki-open.
    EmptyLink,
    /// A fence whose info string names the span (Cursor, `title="…"`, `lang path`).
    FenceInfo,
    /// `sources:` in front matter (file-level provenance).
    FrontMatter,
    /// `[n] path (52%)` under `Sources:`.
    SourceList,
    /// A citation object in a JSON answer.
    Json,
    /// `vscode://file/…:line`.
    EditorLink,
    /// An in-house syntax from the configuration's `patterns`.
    Pattern,
    /// mdBook's `{{#include path:10:20}}` and `{{#rustdoc_include …}}`.
    Include,
    /// MkDocs' `--8<-- "path:10:20"` (pymdownx.snippets), inline or in a block.
    Snippet,
    /// Sphinx's `literalinclude` directive, in reStructuredText or MyST Markdown.
    LiteralInclude,
    /// AsciiDoc's (and Antora's) `include::path[lines=10..20]`.
    AsciidocInclude,
    /// Docusaurus: a ```` ```js reference ```` permalink, or remark-code-import's `file=./a.js#L1-L5`.
    CodeImport,
}

impl Syntax {
    /// The syntax's name, as the configuration's `syntaxes` keys spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Syntax::MarkdownLink => "markdown_link",
            Syntax::Permalink => "permalink",
            Syntax::Bare => "bare",
            Syntax::EmptyLink => "empty_link",
            Syntax::FenceInfo => "fence_info",
            Syntax::FrontMatter => "front_matter",
            Syntax::SourceList => "source_list",
            Syntax::Json => "json",
            Syntax::EditorLink => "editor_link",
            Syntax::Pattern => "pattern",
            Syntax::Include => "mdbook_include",
            Syntax::Snippet => "mkdocs_snippet",
            Syntax::LiteralInclude => "sphinx_literalinclude",
            Syntax::AsciidocInclude => "asciidoc_include",
            Syntax::CodeImport => "docusaurus_code",
        }
    }

    /// Whether the site renders the cited lines from the code at build time: an include (a
    /// citation like any other, whatever the file, never a link to a doc).
    pub(crate) fn is_include(self) -> bool {
        matches!(
            self,
            Syntax::Include
                | Syntax::Snippet
                | Syntax::LiteralInclude
                | Syntax::AsciidocInclude
                | Syntax::CodeImport
        )
    }
}

/// What an include cites of a file, when it is not a line range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IncludePart {
    /// `file.rs:N:`: line N to the end.
    From(i64),
    /// A named section, between marker lines: checked by its name, and stale when its content
    /// changed (wherever its markers moved).
    Section(Markers),
}

/// How a named section's first and last lines are marked in the code, per toolchain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Markers {
    /// mdBook: `ANCHOR: name` … `ANCHOR_END: name`.
    MdBook(String),
    /// pymdownx.snippets: `--8<-- [start:name]` … `--8<-- [end:name]`.
    Snippets(String),
    /// AsciiDoc: `tag::name[]` … `end::name[]`.
    AsciiDoc(String),
    /// Sphinx: from the first line holding a text (`:start-at:`, or after it: `:start-after:`)
    /// to the next holding another (`:end-at:`, or before it: `:end-before:`).
    Text {
        /// The text that opens the section; `None`: it starts at the file's first line.
        start: Option<TextMark>,
        /// The text that closes it; `None`: it runs to the file's end.
        end: Option<TextMark>,
    },
    /// Sphinx's `:pyobject: Class.method`: the lines of a Python class or function (its
    /// decorators included), found by its dotted name as Sphinx's Python parser finds it.
    PyObject(String),
}

/// One of Sphinx's `literalinclude` text markers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextMark {
    /// The text looked for in the file's lines.
    pub text: String,
    /// `:start-at:` and `:end-at:` include the marker's line; `-after`/`-before` do not.
    pub at: bool,
}

impl Markers {
    /// How the section is named in messages: `helper` (`ANCHOR: helper` … `ANCHOR_END: helper`).
    pub fn describe(&self) -> String {
        let pair = |name: &str, a: String, b: String| format!("`{name}` (`{a}` … `{b}`)");
        match self {
            Markers::MdBook(n) => pair(n, format!("ANCHOR: {n}"), format!("ANCHOR_END: {n}")),
            Markers::Snippets(n) => pair(
                n,
                format!("--8<-- [start:{n}]"),
                format!("--8<-- [end:{n}]"),
            ),
            Markers::AsciiDoc(n) => pair(n, format!("tag::{n}[]"), format!("end::{n}[]")),
            Markers::Text { start, end } => {
                let mark = |m: &Option<TextMark>, at: &str, other: &str| {
                    m.as_ref().map(|m| {
                        let kind = if m.at { at } else { other };
                        format!(":{kind}: {}", m.text)
                    })
                };
                let marks: Vec<String> = [
                    mark(start, "start-at", "start-after"),
                    mark(end, "end-at", "end-before"),
                ]
                .into_iter()
                .flatten()
                .collect();
                format!("`{}`", marks.join("` … `"))
            }
            Markers::PyObject(name) => format!("`:pyobject: {name}`"),
        }
    }
}

/// A path as cited, after URL-decoding and normalisation against the repository root.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CitedPath {
    /// A clean repo-relative POSIX path (`src/a.rs`).
    Repo(String),
    /// Never resolved or read: absolute, escapes the root, control characters.
    Unsafe {
        /// The path as written.
        raw: String,
        /// Why it is never read, as `unsafe-path` says it (`absolute paths are never read`).
        reason: String,
    },
    /// The citation names no path at all (an exporter bug, e.g. `blob/SHA/110-111`).
    Missing,
}

/// A quote the citation claims is in its span: a fence body or a JSON `quote` field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quote {
    /// The quoted text, as written (a fence's body, a JSON string's value).
    pub text: String,
    /// Where the quote is in the doc.
    pub span: Span,
}

/// Where a forge link points when it is not the audited repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Foreign {
    /// `host/owner/repo`, lowercase.
    pub repo_url: String,
    /// The link as written: reports link there, never into the audited repository.
    pub url: String,
}

/// One citation found in a doc.
#[derive(Debug, Clone)]
pub struct Citation {
    /// The syntax it was written in: decides how a fix rewrites it.
    pub syntax: Syntax,
    /// The citation's own text in the doc (what the human report underlines).
    pub span: Span,
    /// The path as written, before normalisation (for messages).
    pub raw_path: String,
    /// The path after decoding and normalisation: what is resolved.
    pub path: CitedPath,
    /// `None` cites the whole file (unless `bad_lines` says lines were written but unreadable).
    pub lines: Option<LineRange>,
    /// A line reference that was written but cannot be read (`#Lfoo`, `#L31-`, a number past what
    /// a line number can be): reported, never taken for a whole-file citation.
    pub bad_lines: Option<String>,
    /// Read as a citation only if its path exists at the target (a bare `dir/name:3` whose file
    /// name has no extension could be a model ID or a URL path).
    pub tentative: bool,
    /// Read as a citation only if the folder its path names exists at the target or at its own
    /// revision: a fence titled with a file and no lines (```` ```go title="my_agent/agent.go" ````)
    /// may name the file a tutorial tells its reader to create, under a folder the repository
    /// never had; under one it has (`src/cahce.rs`), it is a citation like any other.
    pub in_known_folder: bool,
    /// Where the line numbers are written in the doc, and how, so a fix can rewrite them.
    pub lines_span: Option<(Span, LineStyle)>,
    /// Where a link's text repeats the same range (DeepWiki: `[a.js L559-L562](…#L559-L562)`),
    /// so the text moves with its URL.
    pub text_lines_span: Option<(Span, LineStyle)>,
    /// Where a link's text names the cited file, as its path (`true`) or its file name, so a
    /// rename rewrites the text with the URL.
    pub text_path_span: Option<(Span, bool)>,
    /// An mdBook include that cites the file from a line to its end, or between anchors: the
    /// file is checked whole, and the line or anchor must be in it.
    pub include: Option<IncludePart>,
    /// Where the path is written, and how, so a fix for a renamed file can rewrite it.
    pub path_span: Option<(Span, PathStyle)>,
    /// Where the citation's own pin is written (a permalink's revision).
    pub pin_span: Option<Span>,
    /// The code the citation says is in its span (a fence's body, a JSON `quote`).
    pub quote: Option<Quote>,
    /// A revision written in the citation itself (a permalink's SHA, branch or tag).
    pub pin: Option<String>,
    /// Set when a forge link points into another repository.
    pub foreign: Option<Foreign>,
    /// The claim (sentence, list item, JSON claim) this citation supports, as an index into
    /// [`super::Extracted::claims`].
    pub claim: Option<ClaimId>,
    /// For JSON answers: the answer this citation belongs to (its `revision` and `retrieved` apply).
    pub answer: Option<AnswerId>,
}

impl Citation {
    /// A citation written in `syntax` at `span`, citing `path` (written as `raw_path`): the whole
    /// file, unpinned, until the extractor sets more.
    pub fn new(syntax: Syntax, span: Span, raw_path: &str, path: CitedPath) -> Citation {
        Citation {
            syntax,
            span,
            raw_path: raw_path.to_string(),
            path,
            lines: None,
            bad_lines: None,
            tentative: false,
            in_known_folder: false,
            lines_span: None,
            text_lines_span: None,
            text_path_span: None,
            include: None,
            path_span: None,
            pin_span: None,
            quote: None,
            pin: None,
            foreign: None,
            claim: None,
            answer: None,
        }
    }

    pub(crate) fn with_lines(mut self, lines: Option<LineRange>) -> Self {
        self.lines = lines;
        self
    }

    /// The repo-relative path, when the citation has a safe one.
    pub fn repo_path(&self) -> Option<&str> {
        match &self.path {
            CitedPath::Repo(p) => Some(p),
            _ => None,
        }
    }

    /// `src/a.rs:10-20` for messages.
    pub fn label(&self) -> String {
        let path = self.repo_path().unwrap_or(&self.raw_path);
        match self.lines {
            Some(r) => format!("{path}:{r}"),
            None => path.to_string(),
        }
    }
}

/// How a literal must be supported by a cited span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LiteralKind {
    /// A bare or qualified identifier, optionally called: supported when `name` (its last segment)
    /// occurs as an identifier in the span, or names the function/type enclosing the span.
    Identifier {
        /// The identifier's last segment (`len` of `Vec::len`).
        name: String,
    },
    /// A call with arguments (`align_offset(addr)`): supported when `name(` occurs in the span
    /// (a definition or a call) or `name` encloses it; the arguments are the writer's shorthand.
    Call {
        /// The called name, without its arguments.
        name: String,
    },
    /// An expression or value: must occur as normalised text in the span.
    Expression {
        /// The literal's text, normalised as the span's text is before it is searched.
        normalized: String,
    },
}

/// A literal written in inline code in a claim, checked by `unsupported-literal`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Literal {
    /// The code between the backticks.
    pub text: String,
    /// Where it is in the doc (in a JSON answer, the string that holds it).
    pub span: Span,
    /// How it is checked; `None`: not checked (a path, a URL, an option, a shell command…).
    pub kind: Option<LiteralKind>,
}

/// A claim: the sentence, list item or JSON claim that holds citations. Its literals must be
/// supported by at least one of its citations' spans.
#[derive(Debug, Clone, Default)]
pub struct Claim {
    /// The claim's text in the doc (a JSON claim's object, an answer's whole object).
    pub span: Span,
    /// The code literals written in it, each to be found in one of its citations' spans.
    pub literals: Vec<Literal>,
    /// The citations that support it.
    pub citations: Vec<CiteId>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_render_in_their_own_syntax() {
        let r = LineRange::new(3, 7);
        assert_eq!(LineStyle::Plain.render(r), "3-7");
        assert_eq!(LineStyle::PrefixedBoth.render(r), "L3-L7");
        assert_eq!(LineStyle::PrefixedFirst.render(r), "L3-7");
        assert_eq!(LineStyle::Spaced.render(r), "L3 - L7");
        assert_eq!(LineStyle::Bitbucket.render(r), "lines-3:7");
        assert_eq!(LineStyle::PrefixedBoth.render(LineRange::single(4)), "L4");
    }

    #[test]
    fn paths_render_in_their_own_style() {
        let link = PathStyle::Link {
            base: Some("docs/guide".into()),
            rooted: false,
        };
        assert_eq!(link.render("src/a b.rs"), "../../src/a%20b.rs");
        let link = PathStyle::Link {
            base: Some("src".into()),
            rooted: false,
        };
        assert_eq!(link.render("src/x/a.rs"), "x/a.rs");
        assert_eq!(PathStyle::Json.render("a\"b.rs"), "a\\\"b.rs");
        assert_eq!(PathStyle::Url.render("a b/c.rs"), "a%20b/c.rs");
    }

    #[test]
    fn json_rewrites_keep_what_lies_between_the_fields() {
        let style = LineStyle::JsonFields { start_first: true };
        let r = LineRange::new(12, 14);
        assert_eq!(
            style.rewrite("3,\n  \"endLine\": 5", r),
            "12,\n  \"endLine\": 14"
        );
        let style = LineStyle::JsonFields { start_first: false };
        assert_eq!(
            style.rewrite("5, \"start_line\": 3", r),
            "14, \"start_line\": 12"
        );
    }
}
