//! Fenced code blocks: a fence whose info string names the span it quotes (Cursor's
//! `12:15:app/a.tsx`, `title="src/a.rs"`, `python src/main.py`), and whether a fence holds code
//! at all (a mermaid diagram or a program's output quotes nothing).

use std::sync::LazyLock;

use regex::Regex;

use crate::model::{Citation, LineRange, LineStyle, PathStyle, Span, Syntax};

use super::bare;
use crate::paths::resolve_path;

static CURSOR_INFO: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\d+):(\d+):(\S+)$").expect("cursor info pattern"));
static TITLE_INFO: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"title=["']([^"']+)["']"#).expect("title info pattern"));

/// Languages of fences that are diagrams, maths or output, never a copy of source code.
const NOT_CODE: &[&str] = &[
    "mermaid",
    "plantuml",
    "puml",
    "dot",
    "graphviz",
    "d2",
    "svgbob",
    "ascii",
    "math",
    "latex",
    "tex",
    "katex",
    "text",
    "txt",
    "plain",
    "plaintext",
    "output",
    "console",
    "terminal",
    "log",
    "shell-session",
    "sh-session",
];

/// A fenced or indented code block as the Markdown walk saw it.
pub(super) struct Fence {
    pub info: String,
    pub span: Span,
    pub body: String,
    pub body_span: Option<Span>,
}

/// The fence languages that quote a file, by the file's extension (or name, for files without
/// one); an extension not listed is quoted by a fence named after it (`toml` for `.toml`).
pub(super) const LANGUAGES: &[(&[&str], &[&str])] = &[
    (&["rs"], &["rust", "rs"]),
    (&["py", "pyi"], &["python", "py", "python3", "py3"]),
    (&["ts", "mts", "cts"], &["typescript", "ts"]),
    (&["tsx"], &["tsx", "typescript", "ts"]),
    (&["js", "mjs", "cjs"], &["javascript", "js", "node"]),
    (&["jsx"], &["jsx", "javascript", "js"]),
    (&["go"], &["go", "golang"]),
    (&["java"], &["java"]),
    (&["kt", "kts"], &["kotlin", "kt"]),
    (&["c", "h"], &["c", "h", "cpp", "c++"]),
    (
        &["cc", "cpp", "cxx", "hpp", "hh", "hxx"],
        &["cpp", "c++", "cc", "cxx", "hpp"],
    ),
    (&["cs"], &["csharp", "cs", "c#"]),
    (&["rb"], &["ruby", "rb"]),
    (&["sh", "bash", "zsh"], &["sh", "bash", "shell", "zsh"]),
    (&["yml", "yaml"], &["yaml", "yml"]),
    (&["json"], &["json", "jsonc", "json5"]),
    (&["md", "mdx"], &["markdown", "md", "mdx"]),
    (&["html", "htm"], &["html", "htm"]),
    (&["dockerfile"], &["dockerfile", "docker"]),
    (&["makefile"], &["make", "makefile", "mk"]),
];

impl Fence {
    /// Whether the fence may hold a copy of source code (it is not a diagram or output).
    pub(super) fn is_code(&self) -> bool {
        !NOT_CODE.contains(&self.lang().as_str())
    }

    /// Whether the fence's body is filled from a file when the site is built, by mdBook
    /// (`{{#include …}}`, `{{#rustdoc_include …}}`, `{{#playground …}}`) or MkDocs' snippets
    /// (`--8<-- "a.py"`): a listing, never a quote of the citation before it. The directive is a
    /// citation of its own.
    pub(super) fn includes(&self) -> bool {
        ["{{#include ", "{{#rustdoc_include ", "{{#playground "]
            .iter()
            .any(|d| self.body.contains(d))
            || self.body.lines().any(|l| {
                let l = l.trim();
                l.starts_with('-') && l.contains("8<-")
            })
    }

    /// The fence's language, lowercased (`{.rust}` and `rust,ignore` read as `rust`).
    fn lang(&self) -> String {
        let lang = self.info.split_whitespace().next().unwrap_or("");
        let lang = lang.trim_start_matches('{').trim_start_matches('.');
        let lang = lang.split([',', '}']).next().unwrap_or_default();
        lang.to_ascii_lowercase()
    }

    /// Whether the fence can quote `path`: its info string is empty, or names the file's
    /// language (a ```` ```sh ```` block after a Rust citation is a command, not its quote).
    pub(super) fn quotes(&self, path: &str) -> bool {
        let lang = self.lang();
        if lang.is_empty() {
            return true;
        }
        let file = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
        let ext = match file.rsplit_once('.') {
            Some((_, ext)) => ext.to_string(),
            None => file,
        };
        match LANGUAGES
            .iter()
            .find(|(exts, _)| exts.contains(&ext.as_str()))
        {
            Some((_, langs)) => langs.contains(&lang.as_str()),
            None => lang == ext,
        }
    }
}

/// A fence whose info string names the span: Cursor's ```` ```12:15:app/a.tsx ````,
/// ```` ```rust title="src/a.rs:10-20" ````, or ```` ```python src/main.py ````.
pub(super) fn citation(text: &str, fence: &Fence) -> Option<Citation> {
    let info = fence.info.trim();
    if info.is_empty() {
        return None;
    }
    let source = &text[fence.span.start..fence.span.end];
    let info_at = fence.span.start + source.find(info).unwrap_or(0);
    let span_of = |part: &str| {
        let i = source
            .find(part)
            .map(|i| fence.span.start + i)
            .unwrap_or(info_at);
        Span::new(i, i + part.len())
    };
    if let Some(caps) = CURSOR_INFO.captures(info) {
        let (start, end) = (caps[1].parse().ok()?, caps[2].parse().ok()?);
        let path = &caps[3];
        let mut c = Citation::new(
            Syntax::FenceInfo,
            span_of(info),
            path,
            resolve_path(path, None, false),
        )
        .with_lines(Some(LineRange::new(start, end)));
        let spec = &info[..caps[1].len() + 1 + caps[2].len()];
        c.lines_span = Some((Span::new(info_at, info_at + spec.len()), LineStyle::Cursor));
        let path_at = info_at + spec.len() + 1;
        c.path_span = Some((Span::new(path_at, path_at + path.len()), PathStyle::Repo));
        return Some(c);
    }
    let candidates: Vec<&str> = match TITLE_INFO.captures(info) {
        // A title with a space is a caption (`Run from: my_agent/ directory`,
        // `my_agent/pom.xml (partial)`), not a path.
        Some(caps) if caps[1].trim().contains(char::is_whitespace) => return None,
        Some(caps) => vec![caps.get(1).expect("title").as_str().trim()],
        None => info.split_whitespace().collect(),
    };
    for (i, token) in candidates.iter().enumerate() {
        let found = bare::find(token);
        if let Some(b) = found
            .first()
            .filter(|b| b.span.start == 0 && b.span.end == token.len())
        {
            let at = span_of(token);
            let mut c = b.citation(Syntax::FenceInfo, at);
            c.lines_span = Some((b.lines_span.shifted(at.start), b.style));
            c.path_span = b.path_span.map(|p| (p.shifted(at.start), PathStyle::Repo));
            return Some(c);
        }
        // A lone first token is the language; a path needs a `/` or to follow the language.
        let pathy = token.contains('/') || (i > 0 && bare::looks_like_path(token));
        if pathy && !token.contains('=') && !token.contains("://") {
            let mut c = Citation::new(
                Syntax::FenceInfo,
                span_of(token),
                token,
                resolve_path(token, None, false),
            );
            c.in_known_folder = true;
            return Some(c);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fence(info: &str) -> Fence {
        Fence {
            info: info.to_string(),
            span: Span::new(0, 0),
            body: String::new(),
            body_span: None,
        }
    }

    #[test]
    fn diagrams_and_output_are_not_code() {
        assert!(fence("rust").is_code());
        assert!(fence("").is_code());
        assert!(!fence("mermaid").is_code());
        assert!(!fence("Text").is_code());
        assert!(!fence("console").is_code());
    }
}
