//! The two JSON trees the contract is read from: the extractor's located tree ([`Node`], spans
//! kept) and a `serde_json::Value` (a model's reply, an answer being rewritten).

use serde_json::Value;

use crate::json_spans::{Node, Value as NodeValue};

/// A JSON value as the contract reads it: a located tree or a `serde_json::Value`.
pub trait Json: Sized {
    /// The value of the member `key`, when this is an object that has one.
    fn field(&self, key: &str) -> Option<&Self>;
    /// The string, when this is a string.
    fn text(&self) -> Option<&str>;
    /// The items, when this is an array.
    fn items(&self) -> Option<&[Self]>;
    /// `null` or `false`: as absent as a missing key.
    fn falsy(&self) -> bool;
    /// An integer, also written as a string (`"12"`); never a rounded or clamped one.
    fn integer(&self) -> Option<i64>;
}

impl<'a> Json for Node<'a> {
    fn field(&self, key: &str) -> Option<&Self> {
        self.get(key)
    }
    fn text(&self) -> Option<&str> {
        self.as_str()
    }
    fn items(&self) -> Option<&[Self]> {
        self.as_array()
    }
    fn falsy(&self) -> bool {
        matches!(self.value, NodeValue::Null | NodeValue::Bool(false))
    }
    fn integer(&self) -> Option<i64> {
        self.as_i64()
    }
}

impl Json for Value {
    fn field(&self, key: &str) -> Option<&Self> {
        self.get(key)
    }
    fn text(&self) -> Option<&str> {
        self.as_str()
    }
    fn items(&self) -> Option<&[Self]> {
        self.as_array().map(Vec::as_slice)
    }
    fn falsy(&self) -> bool {
        matches!(self, Value::Null | Value::Bool(false))
    }
    fn integer(&self) -> Option<i64> {
        match self {
            // The number as written: the located reader's rules apply to both.
            Value::Number(n) => Node {
                span: Default::default(),
                value: NodeValue::Number(&n.to_string()),
            }
            .as_i64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        }
    }
}
