//! Inline-code literals in claims (`TTL_SECONDS = 30`, `setMode()`, `"utf-8"`), and which of them
//! `unsupported-literal` checks. Citations, paths, URLs, options and shell commands are not checked.

use std::sync::LazyLock;

use regex::Regex;

pub use crate::model::LiteralKind;
use crate::normalize::normalize;

static IDENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[A-Za-z_$][\w$]*(?:(?:\.|::|->|#)[A-Za-z_$][\w$]*)*(?:\(\))?$")
        .expect("identifier pattern")
});

/// A call with arguments, `name(args)` or `a.b::name(args)`: the name and the arguments.
static CALL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:[A-Za-z_$][\w$]*(?:\.|::|->))*([A-Za-z_$][\w$]*)\((.*)\)$")
        .expect("call pattern")
});

static SEGMENT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Za-z_$][\w$]*").expect("segment pattern"));

/// Extensions of files people name in prose; `self.cache` is an identifier, `cache.rs` a file.
const FILE_EXTENSIONS: &[&str] = &[
    "rs",
    "py",
    "js",
    "mjs",
    "cjs",
    "ts",
    "tsx",
    "jsx",
    "go",
    "java",
    "kt",
    "kts",
    "c",
    "h",
    "cc",
    "cpp",
    "cxx",
    "hpp",
    "hh",
    "cs",
    "rb",
    "php",
    "swift",
    "scala",
    "sh",
    "bash",
    "zsh",
    "ps1",
    "md",
    "mdx",
    "txt",
    "json",
    "jsonl",
    "yaml",
    "yml",
    "toml",
    "ini",
    "cfg",
    "conf",
    "xml",
    "html",
    "css",
    "scss",
    "vue",
    "svelte",
    "sql",
    "proto",
    "lock",
    "env",
    "gradle",
    "csv",
    "dockerfile",
    "mk",
    "cmake",
    "lua",
    "dart",
    "ex",
    "exs",
    "erl",
    "hs",
    "ml",
    "r",
    "pl",
    "tf",
];

/// Programs whose invocations are shell commands, not code.
const COMMANDS: &[&str] = &[
    "cargo",
    "git",
    "npm",
    "npx",
    "yarn",
    "pnpm",
    "pip",
    "pip3",
    "python",
    "python3",
    "node",
    "make",
    "docker",
    "kubectl",
    "curl",
    "wget",
    "go",
    "rustc",
    "rustup",
    "bash",
    "sh",
    "cd",
    "ls",
    "cat",
    "echo",
    "export",
    "sudo",
    "apt",
    "apt-get",
    "brew",
    "citegate",
    "mvn",
    "gradle",
    "dotnet",
    "uv",
    "poetry",
    "deno",
    "bun",
    "helm",
    "terraform",
    "ssh",
    "chmod",
    "mkdir",
    "rm",
];

fn is_file_name(text: &str) -> bool {
    if text.contains(char::is_whitespace) {
        return false;
    }
    if text.contains('/') && !text.contains("//") && !text.contains('(') {
        return true;
    }
    text.rsplit_once('.')
        .map(|(stem, ext)| {
            !stem.is_empty() && FILE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
        })
        .unwrap_or(false)
}

fn is_shell_command(text: &str) -> bool {
    if text.starts_with("$ ") || text.starts_with('-') {
        return true;
    }
    // `$HOME`, `${CI}`: environment variables, written as a shell would.
    if text.starts_with("${")
        || text
            .strip_prefix('$')
            .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_uppercase()))
    {
        return true;
    }
    let first = text.split_whitespace().next().unwrap_or("");
    text.contains(' ') && COMMANDS.contains(&first)
}

/// How `text` is checked, or `None` when it is not checked at all.
pub(crate) fn classify(text: &str) -> Option<LiteralKind> {
    let text = text.trim();
    // `:343-360` continues a citation of the sentence: a line reference, not code.
    let continuation = text
        .strip_prefix(':')
        .is_some_and(|r| !r.is_empty() && r.chars().all(|c| c.is_ascii_digit() || c == '-'));
    if text.is_empty()
        || continuation
        || !text.chars().any(|c| c.is_alphanumeric())
        || text.contains("://")
        || !super::bare::find(text).is_empty()
        || is_file_name(text)
        || is_shell_command(text)
    {
        return None;
    }
    if IDENT.is_match(text) {
        let name = SEGMENT
            .find_iter(text)
            .last()
            .map(|m| m.as_str().to_string())?;
        return Some(LiteralKind::Identifier { name });
    }
    if let Some(name) = call_name(text) {
        return Some(LiteralKind::Call { name });
    }
    Some(LiteralKind::Expression {
        normalized: normalize(text),
    })
}

/// The called name of `name(args)` when the parenthesis after the name closes at the end (so
/// `f(a) + g(b)` is an expression, not a call).
fn call_name(text: &str) -> Option<String> {
    let caps = CALL.captures(text)?;
    let args = caps.get(2)?.as_str();
    let mut depth = 1i32;
    for c in args.chars() {
        depth += match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        };
        if depth == 0 {
            return None;
        }
    }
    (depth == 1).then(|| caps[1].to_string())
}

/// Whether `name(` occurs in `text` with `name` a whole identifier: the function defined or
/// called there.
pub(crate) fn occurs_as_call(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(i, _)| {
        !text[..i].ends_with(|c: char| is_word(c) || c == '$')
            && text[i + name.len()..].starts_with('(')
    })
}

/// Identifiers in a piece of source text, for identifier literals.
pub fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    SEGMENT.find_iter(text).map(|m| m.as_str())
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether the normalised `needle` occurs in normalised `haystack` without being glued to a word
/// (`64` is not supported by `1640`).
pub(crate) fn occurs_as_text(haystack: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return false;
    }
    let starts_word = needle.starts_with(is_word);
    let ends_word = needle.ends_with(is_word);
    haystack.match_indices(needle).any(|(i, _)| {
        let before_ok = !starts_word || !haystack[..i].ends_with(is_word);
        let after_ok = !ends_word || !haystack[i + needle.len()..].starts_with(is_word);
        before_ok && after_ok
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ident(name: &str) -> Option<LiteralKind> {
        Some(LiteralKind::Identifier { name: name.into() })
    }

    #[test]
    fn classifies_identifiers_by_their_last_segment() {
        assert_eq!(classify("setMode()"), ident("setMode"));
        assert_eq!(
            classify("ColorConsts.DARK_MODE_SCHEME"),
            ident("DARK_MODE_SCHEME")
        );
        assert_eq!(classify("std::io::Read"), ident("Read"));
        assert_eq!(classify("self.cache"), ident("cache"));
    }

    #[test]
    fn calls_with_arguments_are_checked_by_name() {
        let call = |name: &str| Some(LiteralKind::Call { name: name.into() });
        assert_eq!(classify("align_offset(addr)"), call("align_offset"));
        assert_eq!(
            classify("self.set_flags(flags, is_huge)"),
            call("set_flags")
        );
        assert_eq!(classify("f(g(x))"), call("f"));
        assert!(matches!(
            classify("f(a) + g(b)"),
            Some(LiteralKind::Expression { .. })
        ));
        assert!(occurs_as_call("fn align_offset(a: usize)", "align_offset"));
        assert!(!occurs_as_call(
            "fn my_align_offset(a: usize)",
            "align_offset"
        ));
        assert!(!occurs_as_call("let align_offset = 3;", "align_offset"));
    }

    #[test]
    fn classifies_expressions_and_values() {
        assert_eq!(
            classify("TTL_SECONDS  = 30"),
            Some(LiteralKind::Expression {
                normalized: "TTL_SECONDS = 30".into()
            })
        );
        assert!(matches!(
            classify("\"utf-8\""),
            Some(LiteralKind::Expression { .. })
        ));
        assert!(matches!(
            classify("64"),
            Some(LiteralKind::Expression { .. })
        ));
    }

    #[test]
    fn skips_citations_paths_urls_and_commands() {
        for text in [
            "src/a.rs:10",
            "src/cache.rs",
            "Cargo.toml",
            "https://x.io/a",
            "cargo test --all",
            "$ make",
            "--jobs",
            "->",
            "$HOME",
            "${GITHUB_TOKEN}",
        ] {
            assert_eq!(classify(text), None, "{text}");
        }
    }

    #[test]
    fn values_must_not_be_glued_to_words() {
        assert!(occurs_as_text("let n = 64;", "64"));
        assert!(!occurs_as_text("let n = 1640;", "64"));
        assert!(occurs_as_text("x = \"utf-8\"", "\"utf-8\""));
    }
}
