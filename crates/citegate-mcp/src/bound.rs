//! The MCP server's two promises about size: an input is at most what the command line reads
//! ([`MAX_INPUT_BYTES`], the audit's doc limit), and a reply, success or error, is at most
//! [`MAX_REPLY_BYTES`] of valid JSON. An agent's context window is the scarce resource, and a
//! reply that echoes its input (a refusal carries the answer it refuses) would otherwise grow
//! with that input.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::Write;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer};
use serde_json::{json, Map, Value};

use citegate_engine::escape::clip;

/// The most bytes of one tool reply: past it, lists are cut and long strings clipped, each place
/// saying how much more there was.
pub const MAX_REPLY_BYTES: usize = 64 << 10;

/// The most bytes of any one text input (an answer, a doc's text, a quote, a question): the
/// limit `citegate gate` and `citegate audit` apply.
pub const MAX_INPUT_BYTES: usize = citegate_engine::audit::MAX_DOC_BYTES as usize;

/// Room kept for the `truncated` record itself.
const RECORD_BYTES: usize = 4 << 10;
/// At most this many places are named in `truncated` (the rest are counted under `…`).
const RECORD_PLACES: usize = 16;
/// A string is never clipped below this many bytes.
const MIN_STRING: usize = 256;

/// `text`, when it is at most [`MAX_INPUT_BYTES`], else the command line's refusal naming what
/// was too large.
pub(super) fn input<'t>(what: &str, text: &'t str) -> Result<&'t str, String> {
    match text.len() > MAX_INPUT_BYTES {
        true => Err(format!("{what}: more than {} MiB", MAX_INPUT_BYTES >> 20)),
        false => Ok(text),
    }
}

/// `value`, when its JSON text would be at most [`MAX_INPUT_BYTES`] (counted, not written), else
/// the refusal [`input`] gives.
pub(super) fn input_value<'v>(what: &str, value: &'v Value) -> Result<&'v Value, String> {
    match json_len(value) > MAX_INPUT_BYTES {
        true => Err(format!("{what}: more than {} MiB", MAX_INPUT_BYTES >> 20)),
        false => Ok(value),
    }
}

/// A tool's input `T`, read as serde reads it, but an error that quotes the input clipped: serde
/// quotes a string given where a number belongs (`"k": "…"`), and the MCP library sends that
/// error back as it is. Its schema is `T`'s.
pub(super) struct Args<T>(pub(super) T);

/// The most bytes of a message about unreadable arguments.
const ARGS_ERROR_BYTES: usize = 1 << 10;

impl<'de, T: DeserializeOwned> Deserialize<'de> for Args<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        T::deserialize(value)
            .map(Args)
            .map_err(|e| D::Error::custom(clip(e.to_string(), ARGS_ERROR_BYTES)))
    }
}

impl<T: JsonSchema> JsonSchema for Args<T> {
    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }
    fn schema_id() -> Cow<'static, str> {
        T::schema_id()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        T::json_schema(generator)
    }
    fn inline_schema() -> bool {
        T::inline_schema()
    }
}

/// An error reply within the budget (an error message may quote its input).
pub(super) fn error(message: String) -> String {
    clip(message, MAX_REPLY_BYTES - 64)
}

/// `value` (an object) as JSON text of at most [`MAX_REPLY_BYTES`]. Past the budget the largest
/// parts are cut, a little at a time so that every list keeps a share: a list loses its last
/// items, an object below the top its last keys, a string its end (saying `(N more bytes)`).
/// `truncated` then maps each cut place (a JSON pointer) to how many items or keys it lost, and
/// `more` counts those of the reply's main `list`.
pub(super) fn bounded(mut value: Value, list: &str) -> String {
    let text = value.to_string();
    if text.len() <= MAX_REPLY_BYTES {
        return text;
    }
    let mut cuts = BTreeMap::new();
    let mut size = text.len();
    while size > MAX_REPLY_BYTES - RECORD_BYTES {
        let excess = size - (MAX_REPLY_BYTES - RECORD_BYTES);
        if !shrink(&mut value, "", excess, &mut cuts) {
            return json!({"truncated": format!("a reply of {size} bytes, over the {MAX_REPLY_BYTES}-byte budget")}).to_string();
        }
        size = json_len(&value);
    }
    marked(value, cuts, list)
}

/// `value`, cut to leave [`RECORD_BYTES`], with the record of its `cuts` (and `more`) added.
fn marked(mut value: Value, cuts: BTreeMap<String, usize>, list: &str) -> String {
    if let Some(out) = value.as_object_mut() {
        if let Some(more) = cuts.get(&format!("/{}", escape(list))) {
            let before = out.get("more").and_then(Value::as_u64).unwrap_or(0);
            out.insert("more".into(), json!(before + *more as u64));
        }
        let total: usize = cuts.values().sum();
        out.insert("truncated".into(), record(cuts));
        let text = value.to_string();
        if text.len() <= MAX_REPLY_BYTES {
            return text;
        }
        // Places named by keys that escape to six bytes a character: counted, not named.
        value["truncated"] = json!({"…": total});
    }
    value.to_string()
}

/// The cut places as a JSON object, at most [`RECORD_PLACES`] of them, each pointer clipped.
fn record(cuts: BTreeMap<String, usize>) -> Value {
    let mut out = Map::new();
    let mut rest = 0;
    for (i, (place, n)) in cuts.into_iter().enumerate() {
        match i < RECORD_PLACES {
            true => out.insert(clip(place, 120), json!(n)),
            false => {
                rest += n;
                None
            }
        };
    }
    if rest > 0 {
        out.insert("…".into(), json!(rest));
    }
    Value::Object(out)
}

/// Cut some of `value` (about `excess` bytes, at most half of any one part): descend into a
/// child that holds most of its parent, else cut the parent. False when nothing can be cut.
fn shrink(value: &mut Value, at: &str, excess: usize, cuts: &mut BTreeMap<String, usize>) -> bool {
    match value {
        // Clipping adds its own note (`… (N more bytes)`): only a string well past it shrinks.
        Value::String(s) if s.len() > 2 * MIN_STRING => {
            let keep = s
                .len()
                .saturating_sub(excess)
                .max(s.len() / 4)
                .max(MIN_STRING);
            let keep = keep.min(s.len() - MIN_STRING / 4);
            *s = clip(std::mem::take(s), keep);
            true
        }
        Value::Array(items) => {
            let sizes: Vec<usize> = items.iter().map(json_len).collect();
            let total: usize = sizes.iter().sum::<usize>().max(1);
            if let Some((i, &largest)) = sizes.iter().enumerate().max_by_key(|(_, s)| **s) {
                if largest * 2 > total && shrink(&mut items[i], &format!("{at}/{i}"), excess, cuts)
                {
                    return true;
                }
            }
            let keep = kept(&sizes, excess);
            let cut = items.len() - keep;
            items.truncate(keep);
            *cuts.entry(at.to_string()).or_default() += cut;
            cut > 0
        }
        Value::Object(map) => {
            let mut sizes: Vec<(String, usize)> =
                map.iter().map(|(k, v)| (k.clone(), json_len(v))).collect();
            let total: usize = sizes.iter().map(|(_, s)| s).sum::<usize>().max(1);
            sizes.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            // The top level is the tool's own reply: its keys are never dropped, only their values.
            let top = at.is_empty();
            for (key, size) in &sizes {
                if !top && size * 2 <= total {
                    break;
                }
                let child = map.get_mut(key).expect("a key of the map");
                if shrink(child, &format!("{at}/{}", escape(key)), excess, cuts) {
                    return true;
                }
            }
            if top || map.is_empty() {
                return false;
            }
            let by_order: Vec<usize> = map.values().map(json_len).collect();
            let keep = kept(&by_order, excess);
            let dropped: Vec<String> = map.keys().skip(keep).cloned().collect();
            for key in &dropped {
                map.remove(key);
            }
            *cuts.entry(at.to_string()).or_default() += dropped.len();
            true
        }
        _ => false,
    }
}

/// How many leading parts to keep so that about `excess` bytes go, but never more than half.
fn kept(sizes: &[usize], excess: usize) -> usize {
    let (mut keep, mut gone) = (sizes.len(), 0);
    while keep > sizes.len() / 2 && gone < excess {
        keep -= 1;
        gone += sizes[keep] + 1;
    }
    keep
}

/// A key as written in a JSON pointer (RFC 6901).
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The length of `value` as JSON text, counted without building it.
fn json_len(value: &Value) -> usize {
    struct Count(usize);
    impl Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::inside;

    #[test]
    fn replies_are_cut_to_the_bound_and_say_how_many_more() {
        let items: Vec<Value> = (0..20_000)
            .map(|i| json!({"citation": format!("src/a.rs:{i}")}))
            .collect();
        let text = bounded(json!({"findings": items}), "findings");
        assert!(text.len() <= MAX_REPLY_BYTES);
        let back: Value = serde_json::from_str(&text).unwrap();
        let kept = back["findings"].as_array().unwrap().len();
        assert_eq!(kept as u64 + back["more"].as_u64().unwrap(), 20_000);
        assert_eq!(back["truncated"]["/findings"], back["more"]);
        assert!(inside("../../etc/passwd").is_err() && inside("/etc").is_err());
        assert_eq!(inside("./src/a.rs").unwrap(), "src/a.rs");
        let long = "é".repeat(40_000);
        let clipped = citegate_engine::escape::clip(long, 1001);
        assert!(clipped.starts_with("éé") && clipped.ends_with("(79000 more bytes)"));
    }

    /// A refusal carries the answer it refuses: every list and string in it is cut, each list
    /// keeps a share, and the reply stays one JSON value.
    #[test]
    fn nested_lists_and_long_strings_are_cut_each_keeping_a_share() {
        let citations: Vec<Value> = (0..3_000)
            .map(|i| json!({"path": format!("src/x{i}.rs"), "startLine": 1, "quote": "q".repeat(2_000)}))
            .collect();
        let reply = json!({
            "passed": false,
            "violations": (0..3_000).map(|i| json!({"rule": "invented-path", "i": i})).collect::<Vec<_>>(),
            "refusal": {"summary": "s".repeat(4 << 20), "rejected": {"citations": citations}},
        });
        let text = bounded(reply, "violations");
        assert!(text.len() <= MAX_REPLY_BYTES, "{}", text.len());
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["passed"], false);
        let kept = back["violations"].as_array().unwrap().len() as u64;
        assert!(kept > 0);
        assert_eq!(
            kept + back["truncated"]["/violations"].as_u64().unwrap(),
            3_000
        );
        assert_eq!(back["more"], back["truncated"]["/violations"]);
        let cut = back["truncated"]["/refusal/rejected/citations"]
            .as_u64()
            .unwrap();
        assert!(cut > 0 && cut < 3_000, "{cut}");
        let summary = back["refusal"]["summary"].as_str().unwrap();
        assert!(
            summary.ends_with("more bytes)"),
            "{}",
            &summary[summary.len() - 40..]
        );
        assert!(error("e".repeat(1 << 20)).len() <= MAX_REPLY_BYTES);
    }

    /// Cut places whose names are long and escape to six bytes a character (a refusal copies an
    /// answer's own keys): the record of them still fits.
    #[test]
    fn the_record_of_cut_places_fits_whatever_their_names() {
        let cuts: BTreeMap<String, usize> = (0..40)
            .map(|i| (format!("/refusal/{i:02}{}", "\u{1}".repeat(500)), 7))
            .collect();
        let filler = "f".repeat(MAX_REPLY_BYTES - RECORD_BYTES - 100);
        let text = marked(json!({"findings": [], "filler": filler}), cuts, "findings");
        assert!(text.len() <= MAX_REPLY_BYTES, "{}", text.len());
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["truncated"], json!({"…": 280}));
    }
}
