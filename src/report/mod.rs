//! Reporters: one file per output format. They only render a finished [`crate::model::Report`];
//! each escapes what it prints in one place, for its own format.

pub mod dump;
pub mod github;
pub mod github_review;
pub mod gitlab;
pub mod html;
pub mod human;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod rdjson;
pub mod sarif;

use std::borrow::Cow;

use crate::registry::RuleId;

/// citegate's home page, named as the source of findings in formats that take one.
pub const HOME: &str = "https://github.com/citegate/citegate";

/// The catalogue entry of a rule (`rules/ID.yaml`, what `citegate explain ID` prints).
pub fn rule_url(rule: RuleId) -> String {
    format!("{HOME}/blob/main/rules/{}.yaml", rule.as_str())
}

/// `text` with control characters (terminal escapes, CR, NUL…) replaced by `?`, one per byte, so
/// that offsets into it stay valid; `\n` and `\t` are kept when `lines` says so.
pub fn printable(text: &str, lines: bool) -> Cow<'_, str> {
    let bad = |c: char| (c.is_control() || is_bidi(c)) && !(lines && (c == '\n' || c == '\t'));
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

/// `text` cut to at most `max` bytes (on a character boundary), saying so when it was.
pub fn clip(mut text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = text.len() - end;
    text.truncate(end);
    text.push_str(&format!("\n… ({cut} more bytes)"));
    text
}

/// The bidirectional-text controls (the "Trojan Source" characters): they reorder what a reader
/// sees, so every format shows them escaped rather than acting on them.
pub fn is_bidi(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// JSON text with every bidirectional control written as a `\uXXXX` escape (valid JSON: they
/// can only stand inside strings), and with C1 and DEL controls escaped the same way.
pub fn json_escapes(json: String) -> String {
    let odd = |c: char| is_bidi(c) || ('\u{7f}'..='\u{9f}').contains(&c);
    // The lead bytes of every such character in UTF-8 (U+0080-U+009F, U+061C, U+200E-U+2069),
    // and DEL: a large report without any is passed through after one vectorised scan.
    let bytes = json.as_bytes();
    if memchr::memchr3(0xc2, 0xd8, 0xe2, bytes).is_none() && memchr::memchr(0x7f, bytes).is_none() {
        return json;
    }
    if !json.chars().any(odd) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if odd(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bidi_controls_are_shown_escaped() {
        assert_eq!(printable("a\u{202E}b", false), "a???b");
        let json = json_escapes("{\"a\": \"x\u{2066}y\u{85}\"}".to_string());
        assert_eq!(json, "{\"a\": \"x\\u2066y\\u0085\"}");
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back["a"], "x\u{2066}y\u{85}");
    }

    #[test]
    fn control_characters_are_replaced_byte_for_byte() {
        assert_eq!(printable("a\u{1b}[31mb\r\nc", true), "a?[31mb?\nc");
        assert_eq!(printable("a\nb\u{85}", false), "a?b??");
        assert!(matches!(printable("plain", false), Cow::Borrowed(_)));
    }
}
