//! AI answer files: a `.json` file with one answer or an array of answers, or `.jsonl` with one per
//! line. Both seed schemas are read, with their optional top-level `revision` pin and `retrieved`
//! payload; their keys and aliases are the answer contract's ([`crate::contract`]). Each answer
//! keeps its units: its claims and the citation objects each rests on, by citation ID.

use std::sync::LazyLock;

use regex::Regex;

use crate::contract::{self, Refuse, REFUSAL_REASONS};
use crate::model::{
    Answer, AnswerId, AnswerObject, AnswerUnit, Citation, CiteId, Claim, ClaimId, Doc, Extracted,
    LineRange, LineStyle, Literal, ObjectAt, PathStyle, Quote, Retrieved, Span, Syntax, Unusable,
    UnusableCitation,
};
use crate::registry::RuleId;

use super::bare;
use super::literal;
use crate::json_spans::{self, Node};
use crate::paths::resolve_path;

static BACKTICKS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"`([^`\n]+)`").expect("backtick pattern"));

fn is_answer(node: &Node) -> bool {
    contract::is_answer(node)
}

/// Whether broken JSON text was meant to be an answer (so it is reported, not skipped).
fn mentions_answer_keys(text: &str) -> bool {
    text.contains("\"citations\"") || text.contains("\"claims\"")
}

fn malformed(ext: &mut Extracted, doc: &Doc, base: usize, err: &serde_json::Error) {
    // serde_json counts lines and columns from 1 within the text it was given, which starts at
    // `base` (a line start, or just after a byte-order mark).
    let line = doc.lines.line(base) + err.line().saturating_sub(1);
    let line_begin = if err.line() <= 1 {
        base
    } else {
        doc.lines.line_start(line).unwrap_or(base)
    };
    let mut at = (line_begin + err.column().saturating_sub(1)).min(doc.text.len());
    while !doc.text.is_char_boundary(at) {
        at -= 1; // serde_json's columns count bytes: never point inside a character
    }
    ext.problem(
        RuleId::MalformedDoc,
        Span::new(at, at),
        format!("invalid JSON: {err}"),
    );
}

/// A doc (or line) nested deeper than any answer: reported where it goes too deep when it looks
/// like an answer, skipped like any other JSON otherwise; never parsed.
fn too_deep(at: usize, looks_like_answer: bool) -> Extracted {
    let mut ext = Extracted::default();
    if looks_like_answer {
        deep_problem(&mut ext, at);
    } else {
        ext.skipped = true;
    }
    ext
}

fn deep_problem(ext: &mut Extracted, at: usize) {
    let message = format!(
        "JSON nested deeper than {} levels: not read",
        json_spans::MAX_DEPTH
    );
    ext.problem(RuleId::MalformedDoc, Span::new(at, at), message);
}

/// Extract a `.json` doc.
pub(crate) fn extract_json(doc: &Doc) -> Extracted {
    let mut ext = Extracted::default();
    // Editors on Windows write a byte-order mark, which JSON parsers refuse: read after it.
    let bom = doc.body_start();
    let text = &doc.text[bom..];
    if let Some(at) = json_spans::too_deep(text) {
        return too_deep(bom + at, mentions_answer_keys(text));
    }
    if let Err(err) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        if mentions_answer_keys(text) {
            malformed(&mut ext, doc, bom, &err);
        } else {
            ext.skipped = true;
        }
        return ext;
    }
    // An array of answers is read one answer at a time: a batch file is never held as a tree.
    let mut any = false;
    let read = json_spans::each_top(text, bom, |node| {
        if is_answer(&node) {
            any = true;
            answer(&mut ext, &node);
        }
    });
    if let Err(at) = read {
        if mentions_answer_keys(text) {
            undecodable(&mut ext, at);
            return ext;
        }
    }
    ext.skipped = !(read.is_ok() && any);
    ext
}

/// A string serde_json validated without decoding that holds no character (`"\ud800"`, a lone
/// surrogate): the answer cannot be read as written, so it is a finding, never skipped.
fn undecodable(ext: &mut Extracted, at: usize) {
    ext.problem(
        RuleId::MalformedDoc,
        Span::new(at, at),
        "a string here holds an escape that is no character (a lone surrogate such as \\ud800)",
    );
}

/// Extract a `.jsonl` doc: one answer per line; a broken line is reported and the others still run.
pub(crate) fn extract_jsonl(doc: &Doc) -> Extracted {
    let mut ext = Extracted::default();
    let mut offset = 0;
    let mut broken = Vec::new();
    let mut deep = Vec::new();
    let mut undecodable_lines = Vec::new();
    for line in doc.text.split_inclusive('\n') {
        let mut start = offset;
        offset += line.len();
        let mut body = line.trim_end_matches(['\n', '\r']);
        if let Some(rest) = body.strip_prefix('\u{feff}') {
            body = rest;
            start += 3;
        }
        if body.trim().is_empty() {
            continue;
        }
        if let Some(at) = json_spans::too_deep(body) {
            deep.push((start + at, mentions_answer_keys(body)));
            continue;
        }
        match serde_json::from_str::<serde::de::IgnoredAny>(body) {
            Err(err) => broken.push((start, err, mentions_answer_keys(body))),
            Ok(_) => match json_spans::parse_located(body, start) {
                Ok(node) if is_answer(&node) => answer(&mut ext, &node),
                Ok(_) => {}
                Err(at) => undecodable_lines.push((at, mentions_answer_keys(body))),
            },
        }
    }
    let any_answer = !ext.answers.is_empty();
    for (at, looks) in deep {
        if any_answer || looks {
            deep_problem(&mut ext, at);
        }
    }
    for (start, err, looks) in broken {
        if any_answer || looks {
            malformed(&mut ext, doc, start, &err);
        }
    }
    for (at, looks) in undecodable_lines {
        if any_answer || looks {
            undecodable(&mut ext, at);
        }
    }
    ext.skipped = ext.answers.is_empty() && ext.problems.is_empty();
    ext
}

fn literals_in(node: Option<&Node>) -> Vec<Literal> {
    let Some(node) = node else {
        return Vec::new();
    };
    let Some(text) = node.as_str() else {
        return Vec::new();
    };
    BACKTICKS
        .captures_iter(text)
        .map(|c| Literal {
            text: c[1].to_string(),
            span: node.span,
            kind: literal::classify(&c[1]),
        })
        .collect()
}

/// The answer's `retrieved` payload, read by the contract's one parser. One that cannot be read
/// is reported and counts as empty: nothing the answer cites was retrieved (fail closed).
fn retrieved(ext: &mut Extracted, node: &Node) -> Option<Vec<Retrieved>> {
    let payload = node.get("retrieved").filter(|p| !p.is_falsy())?;
    let Some(items) = payload.as_array() else {
        let message = "`retrieved` is not a list of chunks: nothing counts as retrieved";
        ext.problem(RuleId::MalformedDoc, payload.span, message.to_string());
        return Some(Vec::new());
    };
    match contract::payload(items) {
        Ok(chunks) => Some(chunks),
        Err(why) => {
            let message = format!("`retrieved` {why}: nothing counts as retrieved");
            ext.problem(RuleId::MalformedDoc, payload.span, message);
            Some(Vec::new())
        }
    }
}

/// Whether the answer can be read as one: a key written twice anywhere in it gives it no single
/// meaning (JSON readers disagree on which value counts), and a `refuse` that is not a refusal is
/// reported (the answer is then checked like any other).
fn contract_problems(ext: &mut Extracted, node: &Node) -> bool {
    if let Some((key, span)) = json_spans::duplicate_key(node) {
        let message = format!(
            "the key `{key}` is written twice in one object: readers disagree on which counts, \
             so the answer is not read"
        );
        ext.problem(
            RuleId::MalformedDoc,
            Span::new(span.start, span.start),
            message,
        );
        return false;
    }
    if contract::refuse_of(node) == Refuse::Invalid {
        let at = node.get("refuse").map_or(node.span, |r| r.span);
        let message = format!(
            "`refuse` is not a refusal: it needs a `reason` ({})",
            REFUSAL_REASONS.join(", ")
        );
        ext.problem(RuleId::MalformedDoc, at, message);
    }
    true
}

fn answer(ext: &mut Extracted, node: &Node) {
    if !contract_problems(ext, node) {
        return;
    }
    let pin = contract::pin(node);
    let retrieved = retrieved(ext, node);
    let index = ext.answers.push_id(Answer {
        span: node.span,
        pin: pin.and_then(Node::as_str).map(str::to_string),
        pin_span: pin
            .filter(|n| n.as_str().is_some())
            .map(|n| Span::new(n.span.start + 1, n.span.end.saturating_sub(1))),
        retrieved,
        refused: contract::refuses(node),
        refuse: contract::refuse_of(node),
        cited: false,
        units: Vec::new(),
    });
    let before = ext.citations.len();
    let mut units = Vec::new();
    if let Some(cites) = node.get("citations").and_then(Node::as_array) {
        let claim = new_claim(ext, node.span, literals_in(node.get("summary")));
        let at = Place {
            answer: index,
            claim,
            what: "citation",
        };
        let objects = cites
            .iter()
            .enumerate()
            .map(|(i, item)| object(ObjectAt::Citation(at32(i)), citation(ext, item, at)))
            .collect();
        prose_citations(ext, node.get("summary"), at);
        units.push(AnswerUnit {
            claim_at: None,
            claim,
            objects,
        });
    }
    for (j, item) in node
        .get("claims")
        .and_then(Node::as_array)
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        units.push(claim_unit(ext, item, index, at32(j)));
    }
    let a = &mut ext.answers[index];
    a.cited = ext.citations.len() > before;
    a.units = units;
}

/// One claim of a `{claims}` answer (`claims[j]`): its own path and lines, or its nested
/// `citations`.
fn claim_unit(ext: &mut Extracted, item: &Node, answer: AnswerId, j: u32) -> AnswerUnit {
    let claim = new_claim(ext, item.span, literals_in(item.get("text")));
    let place = |what| Place {
        answer,
        claim,
        what,
    };
    let nested = item.get("citations").and_then(Node::as_array);
    let usable_before = ext.citations.len();
    let objects = match nested {
        Some(cites) => (cites.iter().enumerate())
            .map(|(k, c)| {
                let cite = citation(ext, c, place("claim citation"));
                object(ObjectAt::ClaimCitation(j, at32(k)), cite)
            })
            .collect(),
        None => vec![object(
            ObjectAt::Claim(j),
            citation(ext, item, place("claim")),
        )],
    };
    if ext.citations.len() == usable_before && nested.is_some_and(|c| c.is_empty()) {
        unusable(ext, item.span, place("claim"), Unusable::CitesNothing, None);
    }
    prose_citations(ext, item.get("text"), place("claim"));
    AnswerUnit {
        claim_at: Some(j),
        claim,
        objects,
    }
}

fn object(at: ObjectAt, cite: Option<CiteId>) -> AnswerObject {
    AnswerObject { at, cite }
}

/// A position in a JSON array: a doc holds far fewer than `u32::MAX` items (16 MiB at most).
fn at32(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// Where a citation object is: its answer, its claim, and what users call it ("citation",
/// "claim", "claim citation").
#[derive(Clone, Copy)]
struct Place {
    answer: AnswerId,
    claim: ClaimId,
    what: &'static str,
}

/// The `path:line` citations written in an answer's prose (its summary, a claim's text) that
/// none of the claim's citations covers: each is checked like a citation (it must hold, and lie
/// in the retrieval), since a reader clicks it all the same. Placed on the whole string when it
/// holds escapes (its decoded offsets are not the doc's); never rewritten by a fix.
fn prose_citations(ext: &mut Extracted, prose: Option<&Node>, at: Place) {
    let Some((node, text)) = prose.and_then(|n| Some((n, n.as_str()?))) else {
        return;
    };
    let verbatim = node.span.len() == text.len() + 2;
    for b in bare::find_at_most(text, crate::model::MAX_CITATIONS_PER_DOC) {
        let covered = ext.claims[at.claim].citations.iter().any(|&i| {
            let c = &ext.citations[i];
            c.repo_path() == Some(b.path.trim_start_matches("./"))
                && matches!((c.lines, b.lines), (Some(have), Some(l)) if have.contains(&l))
        });
        if covered {
            continue;
        }
        let span = match verbatim {
            true => Span::new(
                node.span.start + 1 + b.span.start,
                node.span.start + 1 + b.span.end,
            ),
            false => node.span,
        };
        push_citation(ext, b.citation(Syntax::Bare, span), at);
    }
}

/// Add `c` to the doc, in its answer and claim.
fn push_citation(ext: &mut Extracted, mut c: Citation, at: Place) -> CiteId {
    c.answer = Some(at.answer);
    c.claim = Some(at.claim);
    let id = ext.citations.push_id(c);
    ext.claims[at.claim].citations.push(id);
    id
}

fn unusable(ext: &mut Extracted, span: Span, at: Place, why: Unusable, cite: Option<CiteId>) {
    ext.unusable.push(UnusableCitation {
        span,
        what: at.what,
        why,
        answer: at.answer,
        claim: at.claim,
        cite,
    });
}

fn new_claim(ext: &mut Extracted, span: Span, literals: Vec<Literal>) -> ClaimId {
    ext.claims.push_id(Claim {
        span,
        literals,
        citations: Vec::new(),
    })
}

/// One citation object (or a claim that carries its own path and lines): the citation read from
/// it, if it gives one.
fn citation(ext: &mut Extracted, item: &Node, at: Place) -> Option<CiteId> {
    if !item.is_object() {
        unusable(ext, item.span, at, Unusable::NotAnObject, None);
        return None;
    }
    let fields = contract::fields(item);
    let Some(path) = fields.path.and_then(Node::as_str) else {
        unusable(ext, item.span, at, Unusable::NoPath, None);
        return None;
    };
    let (start, end) = (fields.start, fields.end);
    // A line number that is written but cannot be one (1.5, 1e30, past i64) is reported as such.
    let unreadable = [start, end]
        .into_iter()
        .flatten()
        .find(|n| n.as_i64().is_none() && n.number_text().is_some());
    let Some(start_line) = start.and_then(Node::as_i64).or(unreadable.map(|_| 0)) else {
        unusable(ext, item.span, at, Unusable::NoLines, None);
        return None;
    };
    let end_line = end.and_then(Node::as_i64).unwrap_or(start_line);
    let mut c = Citation::new(
        Syntax::Json,
        item.span,
        path,
        resolve_path(path, None, false),
    )
    .with_lines(Some(LineRange::new(start_line, end_line)));
    if let Some(n) = unreadable {
        c.lines = None;
        c.bad_lines = n.number_text().map(str::to_string);
    }
    if let (Some(s), Some(e), None) = (start, end, unreadable) {
        let start_first = s.span.start < e.span.start;
        let span = Span::new(s.span.start.min(e.span.start), s.span.end.max(e.span.end));
        c.lines_span = Some((span, LineStyle::JsonFields { start_first }));
    }
    c.path_span = fields.path.map(|n| {
        let inside = Span::new(n.span.start + 1, n.span.end.saturating_sub(1));
        (inside, PathStyle::Json)
    });
    let quote = item
        .get("quote")
        .filter(|q| q.as_str().is_some_and(|s| !s.trim().is_empty()));
    if let Some(q) = quote {
        c.quote = Some(Quote {
            text: q.as_str().unwrap_or_default().to_string(),
            span: q.span,
        });
    }
    let id = push_citation(ext, c, at);
    if quote.is_none() && at.what == "citation" {
        // Seed 000's contract: a citation carries the exact text it cites (`cite_ok` refuses a
        // missing or blank quote). The citation is still checked for what it does say.
        unusable(ext, item.span, at, Unusable::NoQuote, Some(id));
    }
    Some(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::DocKind;

    fn doc(kind: DocKind, text: &str) -> Doc {
        Doc::new(
            "a.json".into(),
            "a.json".into(),
            None,
            kind,
            text.to_string(),
        )
    }

    #[test]
    fn reads_both_seed_schemas() {
        let text = r#"[{"summary": "TTL is `TTL_SECONDS = 30`", "revision": "abc",
            "citations": [{"path": "src/c.rs", "startLine": 2, "endLine": 3, "quote": "x"}]},
           {"summary": "s", "claims": [{"text": "t", "path": "a.py", "start_line": 1, "end_line": 1}],
            "open_questions": []}]"#;
        let ext = extract_json(&doc(DocKind::Json, text));
        assert_eq!(ext.citations.len(), 2);
        assert_eq!(ext.answers.as_slice()[0].pin.as_deref(), Some("abc"));
        assert_eq!(
            ext.claims.as_slice()[0].literals[0].text,
            "TTL_SECONDS = 30"
        );
        assert_eq!(
            ext.citations.as_slice()[0].quote.as_ref().unwrap().text,
            "x"
        );
        assert!(ext.problems.is_empty());
    }

    #[test]
    fn units_name_their_citation_objects_by_pointer_and_id() {
        let a = r#"{"summary": "s", "citations": [{"path": "a", "startLine": 1, "quote": "q"}, {"quote": "q"}]}"#;
        let ext = extract_json(&doc(DocKind::Json, a));
        let units = &ext.answers.as_slice()[0].units;
        assert_eq!(units.len(), 1);
        assert_eq!(units[0].pointer(), None);
        let objects: Vec<(String, Option<CiteId>)> = (units[0].objects.iter())
            .map(|o| (o.pointer(), o.cite))
            .collect();
        let s = |x: &str| x.to_string();
        assert_eq!(
            objects,
            [
                (s("/citations/0"), Some(CiteId::new(0))),
                (s("/citations/1"), None)
            ]
        );
        assert_eq!(ext.unusable[0].why, Unusable::NoPath);
        assert_eq!(ext.unusable[0].claim, units[0].claim);

        let b = r#"{"claims": [{"text": "t", "path": "a", "start_line": 1}, {"text": "u", "citations": [{"path": "b", "start_line": 2}]}]}"#;
        let ext = extract_json(&doc(DocKind::Json, b));
        let units = &ext.answers.as_slice()[0].units;
        let got: Vec<(Option<String>, Vec<String>, ClaimId)> = units
            .iter()
            .map(|u| {
                let o = u.objects.iter().map(AnswerObject::pointer).collect();
                (u.pointer(), o, u.claim)
            })
            .collect();
        let one = (Some(s("/claims/0")), vec![s("/claims/0")], ClaimId::new(0));
        let two = (
            Some(s("/claims/1")),
            vec![s("/claims/1/citations/0")],
            ClaimId::new(1),
        );
        assert_eq!(got, [one, two]);
        assert_eq!(ext.citations[CiteId::new(1)].claim, Some(ClaimId::new(1)));
    }

    #[test]
    fn a_citation_without_its_quote_is_still_read_and_named() {
        let a = r#"{"summary": "s", "citations": [{"path": "a", "startLine": 1}]}"#;
        let ext = extract_json(&doc(DocKind::Json, a));
        assert_eq!(ext.citations.len(), 1);
        assert_eq!(ext.unusable[0].why, Unusable::NoQuote);
        assert_eq!(ext.unusable[0].cite, Some(CiteId::new(0)));
    }

    #[test]
    fn a_byte_order_mark_is_read_past() {
        let text =
            "\u{feff}{\"summary\": \"s\", \"citations\": [{\"path\": \"a.rs\", \"startLine\": 1}]}";
        let ext = extract_json(&doc(DocKind::Json, text));
        assert!(ext.problems.is_empty(), "{:?}", ext.problems);
        let span = ext.citations.as_slice()[0].span;
        assert!(text[span.start..span.end].starts_with("{\"path\""));
        let ext = extract_jsonl(&doc(DocKind::JsonLines, text));
        assert_eq!(ext.citations.len(), 1);
    }

    #[test]
    fn absurd_nesting_is_never_parsed() {
        let deep = format!("{}{}", "[".repeat(5_000), "]".repeat(5_000));
        assert!(extract_json(&doc(DocKind::Json, &deep)).skipped);
        let answer = format!(
            "{{\"citations\": {}{}}}",
            "[".repeat(5_000),
            "]".repeat(5_000)
        );
        let ext = extract_json(&doc(DocKind::Json, &answer));
        assert_eq!(ext.problems[0].rule, RuleId::MalformedDoc);
        assert!(ext.problems[0].message.contains("nested deeper than 64"));
        let lines = format!("{{\"summary\":\"\",\"refuse\":{{\"reason\":\"ambiguous\"}},\"citations\":[]}}\n{deep}\n");
        let ext = extract_jsonl(&doc(DocKind::JsonLines, &lines));
        assert_eq!((ext.answers.len(), ext.problems.len()), (1, 1));
    }

    #[test]
    fn other_json_is_skipped_not_malformed() {
        assert!(extract_json(&doc(DocKind::Json, r#"{"name": "pkg"}"#)).skipped);
        // tsconfig.json holds comments: still skipped.
        assert!(extract_json(&doc(DocKind::Json, "{ // c\n }")).skipped);
    }

    #[test]
    fn broken_answers_are_located() {
        let ext = extract_json(&doc(DocKind::Json, "{\"citations\": [\n  {,]}"));
        assert_eq!(ext.problems[0].rule, RuleId::MalformedDoc);
        let ext = extract_jsonl(&doc(
            DocKind::JsonLines,
            "{\"summary\":\"s\",\"refuse\":{\"reason\":\"ambiguous\"},\"citations\":[]}\n{broken\n",
        ));
        assert_eq!(ext.answers.len(), 1);
        assert_eq!(ext.problems.len(), 1);
        let text =
            "{\"summary\":\"s\",\"refuse\":{\"reason\":\"ambiguous\"},\"citations\":[]}\n{broken\n";
        let at = ext.problems[0].span.start;
        assert_eq!(&text[at..at + 6], "broken");
    }

    #[test]
    fn an_answer_without_citations_or_refuse_is_uncited() {
        let ext = extract_json(&doc(DocKind::Json, r#"{"summary": "s", "citations": []}"#));
        assert!(!ext.answers.as_slice()[0].cited && !ext.answers.as_slice()[0].refused);
        let ext = extract_json(&doc(
            DocKind::Json,
            r#"{"summary": "", "citations": [], "refuse": {"reason": "no_span_in_retrieval"}}"#,
        ));
        assert!(ext.answers.as_slice()[0].refused);
        let ext = extract_json(&doc(
            DocKind::Json,
            r#"{"summary": "", "claims": [{"text": "t", "citations": []}, {"text": "u", "path": "a.rs"}]}"#,
        ));
        let why: Vec<Unusable> = ext.unusable.iter().map(|u| u.why).collect();
        assert_eq!(why, [Unusable::CitesNothing, Unusable::NoLines]);
    }
}
