//! A citation object of an answer (`{path, startLine, endLine, quote}`, or a claim carrying its
//! own `path`/`start_line`/`end_line`): the keys it may be written with, and how `regenerate`
//! points it elsewhere keeping the keys it uses.

use serde_json::Value;

use super::json::Json;
use crate::model::LineRange;

/// The keys a cited path may be written under, the first present counting.
pub(crate) const PATH_KEYS: [&str; 2] = ["path", "file"];
/// The keys of the first cited line (seed 000 writes `startLine`, seed 001 `start_line`).
pub(crate) const START_KEYS: [&str; 2] = ["startLine", "start_line"];
/// The keys of the last cited line; without one, the citation is its first line.
pub(crate) const END_KEYS: [&str; 2] = ["endLine", "end_line"];

/// Where a citation object writes its path and lines (each as written: a number, a string…).
pub struct Fields<'j, J> {
    /// The path field (`path`, else `file`).
    pub path: Option<&'j J>,
    /// The first line's field (`startLine`, else `start_line`).
    pub start: Option<&'j J>,
    /// The last line's field (`endLine`, else `end_line`).
    pub end: Option<&'j J>,
}

fn first<'j, J: Json>(object: &'j J, keys: &[&str]) -> Option<&'j J> {
    keys.iter().find_map(|k| object.field(k))
}

/// The path and line fields of a citation object.
pub fn fields<J: Json>(object: &J) -> Fields<'_, J> {
    Fields {
        path: first(object, &PATH_KEYS),
        start: first(object, &START_KEYS),
        end: first(object, &END_KEYS),
    }
}

/// Point a citation object at `path:lines`, keeping the key names it uses.
pub fn repoint(object: &mut Value, path: &str, lines: LineRange) {
    let Some(o) = object.as_object_mut() else {
        return;
    };
    let path_key = match o.contains_key(PATH_KEYS[1]) && !o.contains_key(PATH_KEYS[0]) {
        true => PATH_KEYS[1],
        false => PATH_KEYS[0],
    };
    o.insert(path_key.into(), Value::String(path.to_string()));
    let snake = o.contains_key(START_KEYS[1]) || o.contains_key(END_KEYS[1]);
    let style = usize::from(snake);
    o.insert(START_KEYS[style].into(), lines.start.into());
    o.insert(END_KEYS[style].into(), lines.end.into());
}

/// `path:start-end` of a citation object as written.
pub fn cited(object: &Value) -> String {
    let f = fields(object);
    let path = f.path.and_then(Value::as_str).unwrap_or("?");
    let start = f.start.and_then(Value::as_i64);
    let end = f.end.and_then(Value::as_i64).or(start);
    match (start, end) {
        (Some(s), Some(e)) => format!("{path}:{}", LineRange::new(s, e)),
        _ => path.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_spans;

    #[test]
    fn repointing_keeps_the_key_names() {
        let mut v: Value =
            serde_json::from_str(r#"{"path": "a", "start_line": 1, "end_line": 2, "text": "t"}"#)
                .unwrap();
        repoint(&mut v, "b", LineRange::new(5, 6));
        assert_eq!(
            v.to_string(),
            r#"{"path":"b","start_line":5,"end_line":6,"text":"t"}"#
        );
        assert_eq!(cited(&v), "b:5-6");
        let mut camel: Value = serde_json::from_str(r#"{"file": "a", "startLine": 1}"#).unwrap();
        repoint(&mut camel, "c", LineRange::new(2, 2));
        assert_eq!(
            camel.to_string(),
            r#"{"file":"c","startLine":2,"endLine":2}"#
        );
    }

    #[test]
    fn both_trees_read_the_same_fields() {
        let text = r#"{"file": "a.rs", "path": "b.rs", "start_line": 3}"#;
        let node = json_spans::parse(text, 0).unwrap();
        let value: Value = serde_json::from_str(text).unwrap();
        let (n, v) = (fields(&node), fields(&value));
        assert_eq!(n.path.and_then(Json::text), Some("b.rs"));
        assert_eq!(v.path.and_then(Json::text), Some("b.rs"));
        assert_eq!(n.start.and_then(Json::integer), Some(3));
        assert_eq!(v.start.and_then(Json::integer), Some(3));
        assert!(n.end.is_none() && v.end.is_none());
    }
}
