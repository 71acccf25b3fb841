//! Whitespace normalisation, the only leniency citegate allows: CRLF→LF, every run of whitespace
//! becomes one space, ends are trimmed. No fuzzy matching and no case folding.

/// `s` with whitespace runs collapsed to one space and both ends trimmed.
pub fn normalize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    collapse(s, &mut out, |_| {});
    out
}

/// Push `source` onto `out` normalised, calling `on_newline` with the output length at each `\n`.
fn collapse(source: &str, out: &mut String, mut on_newline: impl FnMut(usize)) {
    let bytes = source.as_bytes();
    let mut pending = false;
    // Runs of non-whitespace are copied as slices; ASCII is classified byte by byte, and only a
    // byte past ASCII is decoded to ask whether its character is whitespace.
    let mut run_start = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let (white, len) = if b < 0x80 {
            (matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c), 1)
        } else {
            let ch = source[i..].chars().next().unwrap_or(' ');
            (ch.is_whitespace(), ch.len_utf8())
        };
        if white {
            if let Some(s) = run_start.take() {
                out.push_str(&source[s..i]);
            }
            if b == b'\n' {
                on_newline(out.len());
            }
            pending = !out.is_empty();
        } else if run_start.is_none() {
            if pending {
                out.push(' ');
                pending = false;
            }
            run_start = Some(i);
        }
        i += len;
    }
    if let Some(s) = run_start {
        out.push_str(&source[s..]);
    }
}

/// A source file's normalised text, with the normalised offset where each source line begins, so
/// that a match in the normalised text maps back to 1-based source lines.
#[derive(Debug, Clone, Default)]
pub struct NormalizedSource {
    /// The normalised text.
    pub text: String,
    line_starts: Vec<usize>,
}

impl NormalizedSource {
    /// `source` normalised, with where each of its lines begins in the normalised text.
    pub fn new(source: &str) -> Self {
        let mut text = String::with_capacity(source.len());
        let mut line_starts = vec![0];
        collapse(source, &mut text, |at| line_starts.push(at));
        NormalizedSource { text, line_starts }
    }

    /// 1-based source line holding the normalised byte offset `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&s| s <= offset).max(1)
    }

    /// 1-based source lines spanned by the normalised byte range `[start, end)` (non-empty).
    pub fn lines_of(&self, start: usize, end: usize) -> (usize, usize) {
        (
            self.line_of(start),
            self.line_of(end.saturating_sub(1).max(start)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collapses_runs_and_trims() {
        assert_eq!(normalize("  a \r\n\t b  "), "a b");
        assert_eq!(normalize(""), "");
        // No case folding.
        assert_ne!(normalize("Foo"), normalize("foo"));
    }

    #[test]
    fn maps_normalised_offsets_to_source_lines() {
        let src = "fn a() {\r\n    let x = 1;\r\n}\r\n";
        let n = NormalizedSource::new(src);
        assert_eq!(n.text, "fn a() { let x = 1; }");
        let at = n.text.find("let").unwrap();
        assert_eq!(n.lines_of(at, at + "let x = 1;".len()), (2, 2));
        let brace = n.text.rfind('}').unwrap();
        assert_eq!(n.line_of(brace), 3);
    }
}
