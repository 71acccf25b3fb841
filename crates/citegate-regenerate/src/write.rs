//! Writing re-grounded answers back into their doc: each changed answer's bytes are replaced by
//! its new JSON, laid out like the old one (indented on several lines, or on one line); every
//! other byte of the doc is kept.

use serde::Serialize;
use serde_json::Value;

use super::outcome::Rewritten;
use citegate_engine::json_spans::{self, Node, Value as NodeValue};
use citegate_engine::model::{DocId, Report, Span};

/// The JSON docs with their changed answers rewritten, by doc.
pub fn json_docs(report: &Report, mut edits: Vec<(DocId, Span, Value)>) -> Vec<Rewritten> {
    edits.sort_by_key(|(d, s, _)| (*d, s.start));
    let mut out: Vec<Rewritten> = Vec::new();
    let mut i = 0;
    while i < edits.len() {
        let d = edits[i].0;
        let doc = &report.docs[d].doc;
        let mut after = String::with_capacity(doc.text.len());
        let mut at = 0;
        while i < edits.len() && edits[i].0 == d {
            let (_, span, value) = &edits[i];
            after.push_str(&doc.text[at..span.start]);
            after.push_str(&layout(value, &doc.text, *span));
            at = span.end;
            i += 1;
        }
        after.push_str(&doc.text[at..]);
        if after != doc.text {
            out.push(Rewritten {
                name: doc.name.clone(),
                fs_path: doc.fs_path.clone(),
                before: doc.text.clone(),
                after,
            });
        }
    }
    out
}

/// `value` as JSON laid out like the text at `span`: on one line when that was; else indented
/// as it was (its indent unit, its first line's indentation on every following line), and with
/// values at the depth the old text wrote on one line (`{"path": …}` in a list) on one line.
pub fn layout(value: &Value, text: &str, span: Span) -> String {
    let old = &text[span.start..span.end];
    if !old.contains('\n') {
        return compact(value);
    }
    let line_start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let base: String = text[line_start..span.start]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    // The indent unit: what the second line adds to the first line's indentation.
    let unit = old
        .lines()
        .nth(1)
        .map(|l| {
            let indent = &l[..l.len() - l.trim_start().len()];
            indent
                .strip_prefix(base.as_str())
                .unwrap_or(indent)
                .to_string()
        })
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "  ".to_string());
    let style = Style { base, unit, old };
    let mut out = String::new();
    let node = json_spans::parse(old, 0);
    style.write(&mut out, value, node.as_ref(), 0);
    out
}

/// How the old text was laid out: its indentation, and which values it wrote on one line.
struct Style<'a> {
    base: String,
    unit: String,
    old: &'a str,
}

impl Style<'_> {
    fn newline(&self, out: &mut String, depth: usize) {
        out.push('\n');
        out.push_str(&self.base);
        out.push_str(&self.unit.repeat(depth));
    }

    /// A non-empty object or array the old text wrote on one line stays on one line; a new
    /// array element is laid out like its old siblings.
    fn flat(&self, old: Option<&Node>) -> bool {
        old.is_some_and(|n| {
            let container = match &n.value {
                NodeValue::Object(kv) => !kv.is_empty(),
                NodeValue::Array(items) => !items.is_empty(),
                _ => false,
            };
            container && !self.old[n.span.start..n.span.end].contains('\n')
        })
    }

    fn write(&self, out: &mut String, value: &Value, old: Option<&Node>, depth: usize) {
        let flat = self.flat(old);
        match value {
            Value::Array(items) if !items.is_empty() && !flat => {
                let siblings = old.and_then(Node::as_array).unwrap_or_default();
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    self.newline(out, depth + 1);
                    let like = siblings.get(i).or(siblings.last());
                    self.write(out, item, like, depth + 1);
                }
                self.newline(out, depth);
                out.push(']');
            }
            Value::Object(map) if !map.is_empty() && !flat => {
                out.push('{');
                for (i, (key, item)) in map.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    self.newline(out, depth + 1);
                    out.push_str(&compact(&Value::String(key.clone())));
                    out.push_str(": ");
                    self.write(out, item, old.and_then(|o| o.get(key)), depth + 1);
                }
                self.newline(out, depth);
                out.push('}');
            }
            _ => out.push_str(&compact(value)),
        }
    }
}

/// One line, with a space after `:` and `,` as people write it.
fn compact(value: &Value) -> String {
    let mut buf = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, Spaced);
    if value.serialize(&mut ser).is_err() {
        return value.to_string();
    }
    String::from_utf8(buf).unwrap_or_else(|_| value.to_string())
}

/// `, ` before every element but the first.
fn comma<W: ?Sized + std::io::Write>(writer: &mut W, first: bool) -> std::io::Result<()> {
    match first {
        true => Ok(()),
        false => writer.write_all(b", "),
    }
}

/// serde_json's compact layout with `, ` and `: `.
struct Spaced;

impl serde_json::ser::Formatter for Spaced {
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        comma(writer, first)
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        comma(writer, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
    ) -> std::io::Result<()> {
        writer.write_all(b": ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_answers_stay_on_one_line() {
        let text = r#"[{"a": 1, "b": [1, 2]}]"#;
        let v: Value = serde_json::from_str(r#"{"a": 2, "b": [1, 2]}"#).unwrap();
        assert_eq!(
            layout(&v, text, Span::new(1, text.len() - 1)),
            r#"{"a": 2, "b": [1, 2]}"#
        );
    }

    #[test]
    fn indented_answers_keep_their_indentation() {
        let text = "[\n    {\n        \"a\": 1\n    }\n]\n";
        let start = text.find('{').unwrap();
        let end = text.find('}').unwrap() + 1;
        let v: Value = serde_json::from_str(r#"{"a": 2, "b": [3]}"#).unwrap();
        assert_eq!(
            layout(&v, text, Span::new(start, end)),
            "{\n        \"a\": 2,\n        \"b\": [\n            3\n        ]\n    }"
        );
    }

    #[test]
    fn what_was_written_on_one_line_stays_on_one_line() {
        let text = "{\n  \"c\": [\n    {\"p\": 1, \"q\": [2]}\n  ],\n  \"d\": {\"e\": 1}\n}";
        let v: Value =
            serde_json::from_str(r#"{"c": [{"p": 3, "q": [2]}, {"p": 4}], "d": {"e": 2}}"#)
                .unwrap();
        assert_eq!(
            layout(&v, text, Span::new(0, text.len())),
            "{\n  \"c\": [\n    {\"p\": 3, \"q\": [2]},\n    {\"p\": 4}\n  ],\n  \"d\": {\"e\": 2}\n}"
        );
    }
}
