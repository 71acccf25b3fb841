//! A JSON tree that remembers where each value is written, so findings in answer files point at
//! the citation object and fixes can rewrite a single number. Input is validated by serde_json
//! first (for its located error messages); this reader only adds spans.

use std::borrow::Cow;

use crate::model::Span;

/// A JSON value and where it is written. Strings and numbers borrow from the doc's text (a string
/// is copied only when it holds escapes), so a large answer file is not held twice.
#[derive(Debug, Clone)]
pub struct Node<'a> {
    /// Where the value is written in the text (a string's quotes included).
    pub span: Span,
    /// What is written there.
    pub value: Value<'a>,
}

/// A JSON value, its members and items located.
#[derive(Debug, Clone)]
pub enum Value<'a> {
    /// An object's members in the order written, keys decoded.
    Object(Vec<(Cow<'a, str>, Node<'a>)>),
    /// An array's items.
    Array(Vec<Node<'a>>),
    /// A string's value, escapes decoded (borrowed from the text when it has none).
    String(Cow<'a, str>),
    /// The number as written.
    Number(&'a str),
    /// `true` or `false`.
    Bool(bool),
    /// `null` (the contract reads it as absent, as it reads `false`).
    Null,
}

impl<'a> Node<'a> {
    /// The value of the member `key`, when this is an object that has one (the first, when it
    /// is written twice).
    pub fn get(&self, key: &str) -> Option<&Node<'a>> {
        match &self.value {
            Value::Object(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The first of `keys` present (a key and its aliases).
    pub fn get_any(&self, keys: &[&str]) -> Option<&Node<'a>> {
        keys.iter().find_map(|k| self.get(k))
    }

    /// The value, when this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The items, when this is an array.
    pub fn as_array(&self) -> Option<&[Node<'a>]> {
        match &self.value {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// Whether this is an object.
    pub fn is_object(&self) -> bool {
        matches!(self.value, Value::Object(_))
    }

    /// `null` and `false` say "absent" as loudly as a missing key.
    pub(crate) fn is_falsy(&self) -> bool {
        matches!(self.value, Value::Null | Value::Bool(false))
    }

    /// An integer, also when written as a string (`"12"`), as models sometimes do. A number that
    /// is not exactly an integer a line can be (`1.5`, `1e30`, past `i64`) is none: never clamped.
    pub fn as_i64(&self) -> Option<i64> {
        /// Integers up to 2^53 survive a round trip through `f64` exactly.
        const EXACT: f64 = 9_007_199_254_740_992.0;
        match &self.value {
            Value::Number(n) => n.parse::<i64>().ok().or_else(|| {
                n.parse::<f64>()
                    .ok()
                    .filter(|f| f.fract() == 0.0 && f.abs() <= EXACT)
                    .map(|f| f as i64)
            }),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// A number (or numeric string) as written, whether or not it fits a line number.
    pub(crate) fn number_text(&self) -> Option<&str> {
        match &self.value {
            Value::Number(n) => Some(n),
            Value::String(s) if !s.trim().is_empty() && s.trim().parse::<f64>().is_ok() => {
                Some(s.trim())
            }
            _ => None,
        }
    }
}

/// How deep arrays and objects may nest in a doc (JSON, or YAML flow collections). Answers nest
/// three or four levels; a parser that recursed 5,000 levels would overflow its stack.
pub const MAX_DEPTH: usize = 64;

/// Where `[`/`{` nesting first goes deeper than [`MAX_DEPTH`] (strings skipped), if it does: one
/// linear pass, before any parser that recurses sees the text.
pub(crate) fn too_deep(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut escaped = false;
    for (i, &b) in text.as_bytes().iter().enumerate() {
        if let Some(q) = quote {
            match b {
                _ if escaped => escaped = false,
                b'\\' if q == b'"' => escaped = true,
                _ if b == q => quote = None,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' | b'\'' => quote = Some(b),
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(i);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// Parse valid JSON text starting at `offset` in the doc. Returns `None` if the text is not valid
/// JSON (callers validate with serde_json first).
pub fn parse(text: &str, offset: usize) -> Option<Node<'_>> {
    parse_located(text, offset).ok()
}

/// [`parse`], saying where it stopped when it cannot read the text: serde_json validates a
/// string it skips without decoding its escapes, so `"\ud800"` (a lone surrogate, no character)
/// passes validation and is only found here. The offset is the doc's.
pub(crate) fn parse_located(text: &str, offset: usize) -> Result<Node<'_>, usize> {
    let mut p = Reader::new(text, offset);
    p.skip_ws();
    let node = p.value().ok_or_else(|| p.failed_at())?;
    p.skip_ws();
    match p.pos == text.len() {
        true => Ok(node),
        false => Err(p.failed_at()),
    }
}

/// The first key written twice in one object anywhere under `node`, and where its second
/// occurrence is written. JSON readers disagree on which value wins (serde_json and Python take
/// the last, a streaming reader the first), so a doc holding one has no single meaning.
pub(crate) fn duplicate_key<'n>(node: &'n Node<'_>) -> Option<(&'n str, Span)> {
    match &node.value {
        Value::Object(fields) => {
            let mut seen = std::collections::HashSet::with_capacity(fields.len());
            for (key, value) in fields {
                if !seen.insert(key.as_ref()) {
                    return Some((key.as_ref(), value.span));
                }
            }
            fields.iter().find_map(|(_, v)| duplicate_key(v))
        }
        Value::Array(items) => items.iter().find_map(duplicate_key),
        _ => None,
    }
}

/// Parse valid JSON text and hand each top-level value to `f`: every element of a root array, one
/// at a time (so a batch of answers is never held whole as a tree), or the root itself. Returns
/// whether the text was read to its end, or where (in the doc) reading stopped.
pub(crate) fn each_top<'a>(
    text: &'a str,
    offset: usize,
    mut f: impl FnMut(Node<'a>),
) -> Result<(), usize> {
    let mut p = Reader::new(text, offset);
    p.skip_ws();
    if p.peek() != Some(b'[') {
        let node = p.value().ok_or_else(|| p.failed_at())?;
        p.skip_ws();
        if p.pos != text.len() {
            return Err(p.failed_at());
        }
        f(node);
        return Ok(());
    }
    p.pos += 1;
    p.skip_ws();
    if p.peek() == Some(b']') {
        p.pos += 1;
    } else {
        loop {
            let node = p.value().ok_or_else(|| p.failed_at())?;
            f(node);
            p.skip_ws();
            match p.peek() {
                Some(b',') => p.pos += 1,
                Some(b']') => {
                    p.pos += 1;
                    break;
                }
                _ => return Err(p.failed_at()),
            }
        }
    }
    p.skip_ws();
    match p.pos == text.len() {
        true => Ok(()),
        false => Err(p.failed_at()),
    }
}

struct Reader<'a> {
    text: &'a str,
    pos: usize,
    offset: usize,
    /// Where a string that could not be decoded starts, when one could not.
    bad_string: Option<usize>,
}

impl<'a> Reader<'a> {
    fn new(text: &'a str, offset: usize) -> Self {
        Reader {
            text,
            pos: 0,
            offset,
            bad_string: None,
        }
    }

    /// Where reading stopped, as a doc offset on a character boundary.
    fn failed_at(&self) -> usize {
        let mut at = self.bad_string.unwrap_or(self.pos).min(self.text.len());
        while !self.text.is_char_boundary(at) {
            at -= 1;
        }
        at + self.offset
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, b: u8) -> Option<()> {
        self.skip_ws();
        (self.peek()? == b).then(|| self.pos += 1)
    }

    fn node(&self, start: usize, value: Value<'a>) -> Node<'a> {
        Node {
            span: Span::new(start + self.offset, self.pos + self.offset),
            value,
        }
    }

    fn value(&mut self) -> Option<Node<'a>> {
        self.skip_ws();
        let start = self.pos;
        match self.peek()? {
            b'{' => {
                self.pos += 1;
                let mut fields = Vec::new();
                self.skip_ws();
                if self.peek()? == b'}' {
                    self.pos += 1;
                    return Some(self.node(start, Value::Object(fields)));
                }
                loop {
                    self.skip_ws();
                    let key = self.string()?;
                    self.eat(b':')?;
                    let v = self.value()?;
                    fields.push((key, v));
                    self.skip_ws();
                    match self.peek()? {
                        b',' => self.pos += 1,
                        b'}' => {
                            self.pos += 1;
                            return Some(self.node(start, Value::Object(fields)));
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                self.pos += 1;
                let mut items = Vec::new();
                self.skip_ws();
                if self.peek()? == b']' {
                    self.pos += 1;
                    return Some(self.node(start, Value::Array(items)));
                }
                loop {
                    items.push(self.value()?);
                    self.skip_ws();
                    match self.peek()? {
                        b',' => self.pos += 1,
                        b']' => {
                            self.pos += 1;
                            return Some(self.node(start, Value::Array(items)));
                        }
                        _ => return None,
                    }
                }
            }
            b'"' => {
                let s = self.string()?;
                Some(self.node(start, Value::String(s)))
            }
            b't' => self.keyword("true", Value::Bool(true), start),
            b'f' => self.keyword("false", Value::Bool(false), start),
            b'n' => self.keyword("null", Value::Null, start),
            _ => {
                while matches!(
                    self.peek(),
                    Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                ) {
                    self.pos += 1;
                }
                (self.pos > start).then(|| {
                    let raw = &self.text[start..self.pos];
                    self.node(start, Value::Number(raw))
                })
            }
        }
    }

    fn keyword(&mut self, word: &str, value: Value<'a>, start: usize) -> Option<Node<'a>> {
        self.text[self.pos..].starts_with(word).then(|| {
            self.pos += word.len();
            self.node(start, value)
        })
    }

    fn string(&mut self) -> Option<Cow<'a, str>> {
        let start = self.pos;
        if self.peek()? != b'"' {
            return None;
        }
        self.pos += 1;
        let text: &'a str = self.text;
        let bytes = text.as_bytes();
        let mut escaped = false;
        while self.pos < bytes.len() {
            match bytes[self.pos] {
                b'\\' => {
                    escaped = true;
                    self.pos += 2;
                }
                b'"' => {
                    self.pos += 1;
                    let quoted = &text[start..self.pos];
                    return match escaped {
                        false => Some(Cow::Borrowed(&quoted[1..quoted.len() - 1])),
                        true => {
                            let decoded = serde_json::from_str::<String>(quoted).ok();
                            if decoded.is_none() {
                                self.bad_string = Some(start);
                            }
                            decoded.map(Cow::Owned)
                        }
                    };
                }
                _ => self.pos += 1,
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_know_where_they_are_written() {
        let text = r#"{"a": [1, "x\"y"], "b": {"c": null}}"#;
        let root = parse(text, 10).unwrap();
        let a = root.get("a").unwrap().as_array().unwrap();
        assert_eq!(&text[a[0].span.start - 10..a[0].span.end - 10], "1");
        assert_eq!(a[1].as_str(), Some("x\"y"));
        assert!(root.get("b").unwrap().get("c").unwrap().is_falsy());
        assert!(parse("{\"a\":}", 0).is_none());
    }

    #[test]
    fn a_lone_surrogate_is_located_and_a_duplicate_key_found() {
        let text = r#"{"a": "ok", "b": "\ud800"}"#;
        assert_eq!(
            parse_located(text, 5).err(),
            Some(5 + text.find("\"\\").unwrap())
        );
        let text = r#"[{"a": 1}, {"b": {"c": 1, "c": 2}}]"#;
        let root = parse(text, 0).unwrap();
        let (key, span) = duplicate_key(&root).unwrap();
        assert_eq!((key, &text[span.start..span.end]), ("c", "2"));
        assert!(duplicate_key(&parse(r#"{"a": {"c": 1}, "b": {"c": 1}}"#, 0).unwrap()).is_none());
    }
}
