//! The response schema of each contract a reply is held to: JSON Schema valid for OpenAI's
//! strict structured outputs, and the check of a reply against it (the subset the schemas use).

use serde_json::{json, Value};

/// Which seed contract an answer follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contract {
    /// `{summary, citations: [{path, startLine, endLine, quote}], refuse?}` (seed 000).
    Citations,
    /// `{summary, claims: [{text, path, start_line, end_line}], open_questions}` (seed 001).
    Claims,
    /// `{paragraph}`: a Markdown paragraph rewritten with `path:start-end` citations.
    Paragraph,
}

impl Contract {
    /// The contract an answer is written in: `{summary, claims}` without `citations` is seed 001's,
    /// anything else seed 000's.
    pub fn of(answer: &Value) -> Contract {
        match answer.get("claims").is_some() && answer.get("citations").is_none() {
            true => Contract::Claims,
            false => Contract::Citations,
        }
    }
}

/// How the contract's citations are written, for the system message.
pub fn cited_as(contract: Contract) -> &'static str {
    match contract {
        Contract::Citations => "citations[] (path, startLine, endLine, quote)",
        _ => "a claim with path, start_line and end_line",
    }
}

/// The JSON schema of the contract, valid for OpenAI's strict structured outputs: every
/// property required (an optional one is nullable: `refuse` is `null` when the answer does not
/// refuse), `additionalProperties: false` everywhere, no `anyOf` at the root. What strict mode
/// cannot say (citations non-empty unless the answer refuses) the gate enforces: an answer that
/// neither cites nor refuses fails it (`uncited-claim`).
pub fn schema(contract: Contract) -> Value {
    let object = |properties: Value| {
        let required: Vec<&String> = properties
            .as_object()
            .map_or(Vec::new(), |o| o.keys().collect());
        json!({"type": "object", "additionalProperties": false, "required": required, "properties": properties})
    };
    let line = json!({"type": "integer", "minimum": 1});
    let string = json!({"type": "string"});
    match contract {
        Contract::Citations => {
            let mut refuse = object(json!({
                "reason": {"type": "string", "enum": crate::contract::REFUSAL_REASONS}
            }));
            refuse["type"] = json!(["object", "null"]);
            object(json!({
                "summary": string,
                "citations": {"type": "array", "items": object(json!({
                    "path": string, "startLine": line, "endLine": line, "quote": string
                }))},
                "refuse": refuse
            }))
        }
        Contract::Paragraph => object(json!({"paragraph": string})),
        Contract::Claims => object(json!({
            "summary": string,
            "claims": {"type": "array", "items": object(json!({
                "text": string, "path": string, "start_line": line, "end_line": line
            }))},
            "open_questions": {"type": "array", "items": string}
        })),
    }
}

/// Where `value` breaks `schema` (the subset [`schema`] uses: `type`, `properties`, `required`,
/// `additionalProperties: false`, `items`, `enum`, `minimum`), each as `at: what`; a nullable
/// property may be left out (strict mode writes it as `null`, other servers omit it). A reply is
/// held to the schema it was sent: a citation without its `quote`, or with a key the schema does
/// not have, is never written.
pub fn schema_violations(schema: &Value, value: &Value, at: &str, out: &mut Vec<String>) {
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let is = |t: &str| match t {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "null" => value.is_null(),
        _ => false,
    };
    if !types.is_empty() && !types.iter().any(|t| is(t)) {
        return out.push(format!("{at}: expected {}", types.join(" or ")));
    }
    if schema["enum"]
        .as_array()
        .is_some_and(|a| !a.contains(value))
    {
        return out.push(format!("{at}: not one of the allowed values"));
    }
    if let (Some(min), Some(n)) = (schema["minimum"].as_i64(), value.as_i64()) {
        if n < min {
            out.push(format!("{at}: below {min}"));
        }
    }
    if let (Some(props), Some(fields)) = (schema["properties"].as_object(), value.as_object()) {
        // A nullable property is optional in the contract: absent reads as `null`.
        let nullable = |key: &str| {
            props[key]["type"]
                .as_array()
                .is_some_and(|t| t.contains(&json!("null")))
        };
        for key in schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !fields.contains_key(key) && !nullable(key) {
                out.push(format!("{at}: `{key}` is missing"));
            }
        }
        for (key, v) in fields {
            match props.get(key) {
                Some(s) => schema_violations(s, v, &format!("{at}.{key}"), out),
                None => out.push(format!("{at}: `{key}` is not in the schema")),
            }
        }
    }
    if let (Some(items), Some(values)) = (schema.get("items"), value.as_array()) {
        for (i, v) in values.iter().enumerate() {
            schema_violations(items, v, &format!("{at}[{i}]"), out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_is_strict_and_holds_replies_to_it() {
        for contract in [Contract::Citations, Contract::Claims, Contract::Paragraph] {
            let schema = schema(contract);
            assert!(schema.get("anyOf").is_none());
            // Strict mode: every property of every object is required.
            fn all_required(s: &Value) {
                if let Some(props) = s["properties"].as_object() {
                    let required = s["required"].as_array().unwrap();
                    assert_eq!(required.len(), props.len(), "{s}");
                    props.values().for_each(all_required);
                    assert_eq!(s["additionalProperties"], false);
                }
                if let Some(items) = s.get("items") {
                    all_required(items);
                }
            }
            all_required(&schema);
        }
        let check = |v: Value| {
            let mut out = Vec::new();
            schema_violations(&schema(Contract::Citations), &v, "reply", &mut out);
            out
        };
        let cite = json!({"path": "a.rs", "startLine": 1, "endLine": 1, "quote": "q"});
        assert!(check(json!({"summary": "s", "citations": [cite], "refuse": null})).is_empty());
        assert!(check(json!({"summary": "s", "citations": [cite]})).is_empty());
        let refusal = json!({"summary": "", "citations": [], "refuse": {"reason": "ambiguous"}});
        assert!(check(refusal).is_empty());
        let no_quote = json!({"summary": "s", "citations": [{"path": "a.rs", "startLine": 1, "endLine": 1}], "refuse": null});
        assert_eq!(check(no_quote), ["reply.citations[0]: `quote` is missing"]);
        let extra = json!({"summary": "s", "citations": [], "refuse": null, "score": 1});
        assert_eq!(check(extra), ["reply: `score` is not in the schema"]);
        let bad = json!({"summary": "s", "citations": [], "refuse": {"reason": "busy"}});
        assert_eq!(
            check(bad),
            ["reply.refuse.reason: not one of the allowed values"]
        );
    }

    #[test]
    fn the_contract_follows_the_answer() {
        assert_eq!(Contract::of(&json!({"claims": []})), Contract::Claims);
        assert_eq!(Contract::of(&json!({"citations": []})), Contract::Citations);
    }
}
