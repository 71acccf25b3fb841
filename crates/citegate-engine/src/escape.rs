//! Escaping what citegate prints, for where it goes: control characters out of terminal text,
//! bidirectional and C1 controls as `\uXXXX` in JSON, long text clipped on a character
//! boundary. Every front end and reporter uses these; the reporters escape for their own format
//! on top.

use std::borrow::Cow;
use std::io::{self, Write};

use serde_json::ser::{Formatter, PrettyFormatter};

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

/// What JSON output writes as a `\uXXXX` escape: the bidirectional controls, C1 controls and DEL.
fn json_escaped(c: char) -> bool {
    is_bidi(c) || ('\u{7f}'..='\u{9f}').contains(&c)
}

/// Whether `bytes` may hold a character of [`json_escaped`]: the lead bytes of every such
/// character in UTF-8 (U+0080-U+009F, U+061C, U+200E-U+2069), and DEL. Text without any is
/// passed through after one vectorised scan.
fn may_need_escapes(bytes: &[u8]) -> bool {
    memchr::memchr3(0xc2, 0xd8, 0xe2, bytes).is_some() || memchr::memchr(0x7f, bytes).is_some()
}

/// JSON text with every bidirectional control written as a `\uXXXX` escape (valid JSON: they
/// can only stand inside strings), and with C1 and DEL controls escaped the same way.
/// [`EscapingFormatter`] writes the same while serialising.
pub fn json_escapes(json: String) -> String {
    if !may_need_escapes(json.as_bytes()) || !json.chars().any(json_escaped) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if json_escaped(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// serde_json's pretty printer writing what [`json_escapes`] makes of its output, straight to a
/// writer: a large report is streamed, not held in memory twice.
pub struct EscapingFormatter(PrettyFormatter<'static>);

impl EscapingFormatter {
    /// serde_json's pretty printer (two-space indents) writing the escapes [`json_escapes`] makes.
    pub fn pretty() -> EscapingFormatter {
        EscapingFormatter(PrettyFormatter::new())
    }

    /// [`EscapingFormatter::pretty`] writing as it does inside `depth` objects: a part of a
    /// document rendered on its own is indented as it is in the whole.
    pub fn pretty_within(depth: usize) -> EscapingFormatter {
        let mut pretty = PrettyFormatter::new();
        for _ in 0..depth {
            let _ = pretty.begin_object(&mut io::sink());
        }
        EscapingFormatter(pretty)
    }
}

impl Formatter for EscapingFormatter {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        text: &str,
    ) -> io::Result<()> {
        if !may_need_escapes(text.as_bytes()) {
            return w.write_all(text.as_bytes());
        }
        let mut rest = text;
        while let Some((i, c)) = rest.char_indices().find(|&(_, c)| json_escaped(c)) {
            w.write_all(&rest.as_bytes()[..i])?;
            write!(w, "\\u{:04x}", c as u32)?;
            rest = &rest[i + c.len_utf8()..];
        }
        w.write_all(rest.as_bytes())
    }

    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
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

    /// `value` through [`EscapingFormatter`].
    fn streamed(value: &serde_json::Value) -> String {
        let mut out = Vec::new();
        let mut ser = serde_json::Serializer::with_formatter(&mut out, EscapingFormatter::pretty());
        serde::Serialize::serialize(value, &mut ser).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_streaming_formatter_writes_what_json_escapes_makes() {
        let value = serde_json::json!({
            "k\u{202E}ey": ["x\u{2066}y\u{85}z", "plain", "\u{7f}\u{9f}\u{a0}\u{61c}é\n\"", {}],
            "empty": [],
            "n": 1,
        });
        let streamed = streamed(&value);
        assert_eq!(
            streamed,
            json_escapes(serde_json::to_string_pretty(&value).unwrap())
        );
        assert!(streamed.contains("x\\u2066y\\u0085z") && streamed.contains("\\u202e"));
        assert!(streamed.contains("\\u007f\\u009f\u{a0}\\u061cé"));
    }

    proptest::proptest! {
        #[test]
        fn any_text_is_escaped_alike_streamed_or_after(text in "(\\PC|[\u{7f}-\u{9f}\u{200e}\u{2066}\n])*") {
            let value = serde_json::json!({ "a": [text.clone()], text.clone(): 1 });
            let after = json_escapes(serde_json::to_string_pretty(&value).unwrap());
            proptest::prop_assert_eq!(streamed(&value), after);
        }
    }

    #[test]
    fn control_characters_are_replaced_byte_for_byte() {
        assert_eq!(printable("a\u{1b}[31mb\r\nc", true), "a?[31mb?\nc");
        assert_eq!(printable("a\nb\u{85}", false), "a?b??");
        assert!(matches!(printable("plain", false), Cow::Borrowed(_)));
    }
}
