//! Reporters: one file per output format. They only render a finished [`crate::model::Report`];
//! each escapes what it prints in one place, for its own format.

pub mod dump;
pub mod github;
pub mod human;
pub mod json;
pub mod markdown;
pub mod sarif;

use std::borrow::Cow;

/// `text` with control characters (terminal escapes, CR, NUL…) replaced by `?`, one per byte, so
/// that offsets into it stay valid; `\n` and `\t` are kept when `lines` says so.
pub fn printable(text: &str, lines: bool) -> Cow<'_, str> {
    let bad = |c: char| c.is_control() && !(lines && (c == '\n' || c == '\t'));
    if !text.chars().any(bad) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if bad(c) {
            out.extend(std::iter::repeat_n('?', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_replaced_byte_for_byte() {
        assert_eq!(printable("a\u{1b}[31mb\r\nc", true), "a?[31mb?\nc");
        assert_eq!(printable("a\nb\u{85}", false), "a?b??");
        assert!(matches!(printable("plain", false), Cow::Borrowed(_)));
    }
}
