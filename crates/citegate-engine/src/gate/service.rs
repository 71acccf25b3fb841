//! `citegate gate`: the gate as a service for RAG backends ("validate before the response leaves
//! your API"). One answer on standard input, or one per line with `--jsonl` for a sidecar; each
//! is printed as it is when it passes, or as its refusal with the violations.

use std::io::{BufRead, Read, Write};

use serde_json::{json, Value};

use super::{self as gate, Gate, Retrieval, Violation};
use crate::contract::RefusalReason;
use crate::json_spans::{self, Value as NodeValue};
use crate::registry::RuleId;

/// The gate's verdict on one answer: the value the command line prints and the MCP server
/// serialises.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Whether the answer passed: no violation.
    pub passed: bool,
    /// Why it failed (empty when it passed).
    pub violations: Vec<Violation>,
    /// What to return instead of the answer: its refusal, with the violations (`None` when it
    /// passed).
    pub refusal: Option<Value>,
    /// Whether cited ⊆ retrieved was checked: `retrieval` (against a payload) or `code-only`
    /// (`--no-retrieval`: an answer without a payload was checked against the code alone).
    pub fidelity: &'static str,
}

impl Verdict {
    /// The verdict on an answer's text given its violations.
    fn of(text: &str, retrieval: Retrieval, violations: Vec<Violation>) -> Verdict {
        let refusal = (!violations.is_empty()).then(|| refusal_of(text, retrieval, &violations));
        Verdict {
            passed: violations.is_empty(),
            violations,
            refusal,
            fidelity: fidelity(retrieval),
        }
    }

    /// The verdict as one JSON object: `{"passed", "fidelity", "violations", "refusal"}` (the
    /// refusal `null` when it passed), what the library's bindings hand back.
    pub fn to_value(&self) -> Value {
        json!({
            "passed": self.passed,
            "fidelity": self.fidelity,
            "violations": self.violations,
            "refusal": self.refusal,
        })
    }

    /// What `gate --jsonl` prints for it, the answer's `text` (`None`: unreadable) on input line
    /// `line`: `{"line", "id"?, "passed", "fidelity", "answer"}`, `answer` the input byte for
    /// byte when it passed, else the refusal.
    pub fn line(&self, line: usize, text: Option<&str>) -> String {
        let text = text.map(|t| t.trim_start_matches('\u{feff}'));
        let answer = match &self.refusal {
            None => text.unwrap_or_default().trim().to_string(),
            Some(refusal) => json_text(refusal),
        };
        let id = text.and_then(id_of);
        verdict_line(line, id.as_deref(), self, &answer)
    }

    /// The verdict on input that cannot be read as an answer: refused, `why` its violation.
    fn unreadable(why: &str, retrieval: Retrieval) -> Verdict {
        let violation = Violation {
            rule: RuleId::MalformedDoc,
            citation: None,
            message: why.to_string(),
        };
        Verdict {
            passed: false,
            refusal: Some(json!({
                "summary": "",
                "citations": [],
                "refuse": {"reason": RefusalReason::NoSpanInRetrieval.as_str(), "searched": []},
                "violations": [&violation],
            })),
            violations: vec![violation],
            fidelity: fidelity(retrieval),
        }
    }

    /// What `citegate gate` prints for it: the answer's `text` as it was given when it passed,
    /// else the refusal (pretty-printed unless `--jsonl`).
    pub fn print(&self, text: &str, pretty: bool) -> String {
        match &self.refusal {
            None => format!("{}\n", text.trim_start_matches('\u{feff}').trim_end()),
            Some(refusal) => render(refusal, pretty),
        }
    }
}

/// What the gate made of one input: the text to print and whether the answer passed.
pub struct Gated {
    /// What to print: the answer as given when it passed, else its refusal.
    pub output: String,
    /// Whether the answer passed.
    pub passed: bool,
}

/// One input of a stream: its line number (from 1), and its text or why it could not be read.
pub type Input = (usize, Result<String, String>);

/// The verdict on one answer's JSON text. Text that is not JSON is refused (the reason says
/// where it broke); nothing a model wrote is ever passed through unchecked.
pub fn check(gate: &Gate, text: &str, retrieval: Retrieval) -> Verdict {
    check_all(gate, &[Ok(text)], retrieval)
        .pop()
        .expect("one verdict per answer")
}

/// The verdicts on many answers' texts, checked together (one audit over all of them), in
/// order. An input that is `Err` could not be read (too long, not UTF-8): refused, the reason
/// its violation, as is one that is not JSON.
pub fn check_all(
    gate: &Gate,
    texts: &[Result<&str, String>],
    retrieval: Retrieval,
) -> Vec<Verdict> {
    // Each input validated once: the JSON text, or why it is refused unread.
    let read: Vec<Result<&str, String>> = texts
        .iter()
        .map(|text| {
            let text = text.as_deref().map_err(Clone::clone)?;
            let text = text.trim_start_matches('\u{feff}');
            match serde_json::from_str::<serde::de::IgnoredAny>(text) {
                Ok(_) => Ok(text),
                Err(e) => Err(format!("invalid JSON: {e}")),
            }
        })
        .collect();
    // Each answer a doc of its own name: a report's findings are found per doc by name.
    let names: Vec<String> = (0..read.len()).map(answer_name).collect();
    let readable = (read.iter().zip(&names))
        .filter_map(|(t, name)| Some((name.as_str(), *t.as_ref().ok()?)))
        .collect();
    let mut violations = gate.check_texts(readable, retrieval).into_iter();
    read.iter()
        .map(|text| match text {
            Err(why) => Verdict::unreadable(why, retrieval),
            Ok(t) => Verdict::of(t, retrieval, violations.next().unwrap_or_default()),
        })
        .collect()
}

/// The name the `i`th answer of a batch is checked under (`answer.json` for the first, so one
/// answer reads as it always did).
fn answer_name(i: usize) -> String {
    match i {
        0 => "answer.json".to_string(),
        i => format!("answer-{i}.json"),
    }
}

/// Gate one answer's JSON text: printed as it was given, byte for byte, when it passes (a
/// number is not rounded through a float), else its refusal with the violations.
pub fn gate_text(gate: &Gate, text: &str, retrieval: Retrieval, pretty: bool) -> Gated {
    let verdict = check(gate, text, retrieval);
    Gated {
        output: verdict.print(text, pretty),
        passed: verdict.passed,
    }
}

/// Gate a batch of stream lines at once (one audit over all of them): one verdict line per
/// input, in order, each `{"line", "id"?, "passed", "fidelity", "answer"}` where `answer` is the
/// input byte for byte when it passed, else its refusal.
pub(crate) fn gate_lines(gate: &Gate, inputs: &[Input], retrieval: Retrieval) -> Vec<Gated> {
    let texts: Vec<Result<&str, String>> = inputs
        .iter()
        .map(|(_, text)| text.as_deref().map_err(Clone::clone))
        .collect();
    let verdicts = check_all(gate, &texts, retrieval);
    inputs
        .iter()
        .zip(texts)
        .zip(verdicts)
        .map(|(((line, _), text), verdict)| Gated {
            output: verdict.line(*line, text.ok()),
            passed: verdict.passed,
        })
        .collect()
}

/// The answer's `id`, as written, when it has one that is a string or a number.
fn id_of(text: &str) -> Option<String> {
    if !text.contains("\"id\"") {
        return None;
    }
    let root = json_spans::parse(text, 0)?;
    let id = root.get("id")?;
    matches!(id.value, NodeValue::String(_) | NodeValue::Number(_))
        .then(|| text[id.span.start..id.span.end].to_string())
}

/// Whether cited ⊆ retrieved was checked: `retrieval` (against a payload) or `code-only`
/// (`--no-retrieval`: an answer without a payload was checked against the code alone).
fn fidelity(retrieval: Retrieval) -> &'static str {
    match retrieval {
        Retrieval::Optional => "code-only",
        Retrieval::Given(_) | Retrieval::Required => "retrieval",
    }
}

fn verdict_line(line: usize, id: Option<&str>, verdict: &Verdict, answer: &str) -> String {
    let id = id.map(|id| format!(",\"id\":{id}")).unwrap_or_default();
    let (passed, fidelity) = (verdict.passed, verdict.fidelity);
    format!("{{\"line\":{line}{id},\"passed\":{passed},\"fidelity\":\"{fidelity}\",\"answer\":{answer}}}\n")
}

/// The refusal of an answer's text that failed the gate.
fn refusal_of(text: &str, retrieval: Retrieval, violations: &[Violation]) -> Value {
    let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    gate::refused(&value, retrieval, violations)
}

/// How many stream lines are checked together at most: a batch is what has arrived while the
/// previous one was checked, so a sidecar sending one answer at a time gets each verdict at once
/// and a piped file is checked at the audit's speed.
const BATCH: usize = 4096;

/// The most bytes of input read ahead of the verdicts written (a line longer than this is
/// still read, alone): when the reader of the output stops reading, the input stops being
/// read too, instead of piling up in memory (213 MB was measured before this bound).
pub const READ_AHEAD_BYTES: usize = 16 << 20;

/// The bytes read but not yet answered, shared by the reading thread and the writer.
#[derive(Default)]
struct InFlight {
    bytes: std::sync::Mutex<usize>,
    freed: std::sync::Condvar,
}

impl InFlight {
    /// Wait until `n` more bytes fit in [`READ_AHEAD_BYTES`] (or nothing is in flight).
    fn reserve(&self, n: usize) {
        let mut held = self.bytes.lock().unwrap_or_else(|e| e.into_inner());
        while *held > 0 && *held + n > READ_AHEAD_BYTES {
            held = self.freed.wait(held).unwrap_or_else(|e| e.into_inner());
        }
        *held += n;
    }

    fn release(&self, n: usize) {
        let mut held = self.bytes.lock().unwrap_or_else(|e| e.into_inner());
        *held = held.saturating_sub(n);
        self.freed.notify_all();
    }
}

/// The bytes an input holds while in flight.
fn size_of(input: &std::io::Result<Input>) -> usize {
    match input {
        Ok((_, Ok(text))) => text.len(),
        _ => 0,
    }
}

/// `gate --jsonl`: one verdict line per input line, flushed after each batch. Lines are read on
/// their own thread, so whatever arrived while a batch was checked forms the next one. Returns
/// whether every answer passed; stops quietly when the reader of `out` goes away.
pub fn stream(
    gate: &Gate,
    input: impl Read + Send + 'static,
    out: &mut impl Write,
    retrieval: Retrieval,
) -> std::io::Result<bool> {
    let (tx, rx) = std::sync::mpsc::sync_channel::<std::io::Result<Input>>(BATCH);
    let in_flight = std::sync::Arc::new(InFlight::default());
    let reading = in_flight.clone();
    // Not joined: a sidecar's input may never end, and nothing it reads outlives the process.
    std::thread::spawn(move || {
        let mut reader = std::io::BufReader::new(input);
        let mut n = 0;
        loop {
            n += 1;
            let next = match next_line(&mut reader, MAX_INPUT_BYTES) {
                Ok(Some(line)) => Ok((n, line)),
                Ok(None) => break,
                Err(e) => Err(e),
            };
            let stop = next.is_err();
            reading.reserve(size_of(&next));
            if tx.send(next).is_err() || stop {
                break;
            }
        }
    });
    let mut all_passed = true;
    while let Ok(first) = rx.recv() {
        // What arrived, up to a read error: the lines before it still get their verdicts.
        let mut batch = Vec::new();
        let mut failed = None;
        let mut next = Some(first);
        let mut bytes = 0;
        while let Some(item) = next.take() {
            bytes += size_of(&item);
            match item {
                Ok(input) => batch.push(input),
                Err(e) => failed = Some(e),
            }
            if failed.is_none() && batch.len() < BATCH {
                next = rx.try_recv().ok();
            }
        }
        batch.retain(|(_, l)| l.as_ref().map_or(true, |l| !l.trim().is_empty()));
        for g in gate_lines(gate, &batch, retrieval) {
            all_passed &= g.passed;
            if out.write_all(g.output.as_bytes()).is_err() {
                return Ok(all_passed); // the reader went away
            }
        }
        if out.flush().is_err() {
            return Ok(all_passed);
        }
        in_flight.release(bytes);
        if let Some(e) = failed {
            return Err(e);
        }
    }
    Ok(all_passed)
}

/// `gate` on one answer: all of `input`, at most [`MAX_INPUT_BYTES`].
pub fn one(gate: &Gate, input: &mut impl Read, retrieval: Retrieval) -> Result<Gated, String> {
    let mut bytes = Vec::new();
    input
        .take(MAX_INPUT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("standard input: {e}"))?;
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(format!(
            "standard input: more than {} MiB",
            MAX_INPUT_BYTES >> 20
        ));
    }
    Ok(match String::from_utf8(bytes) {
        Ok(text) => gate_text(gate, &text, retrieval, true),
        Err(e) => {
            let why = format!("not UTF-8 (byte {})", e.utf8_error().valid_up_to());
            Gated {
                output: Verdict::unreadable(&why, retrieval).print("", true),
                passed: false,
            }
        }
    })
}

/// The most bytes of one answer read from standard input (the audit's limit for a doc).
pub const MAX_INPUT_BYTES: usize = crate::audit::MAX_DOC_BYTES as usize;

/// The next line of `reader` (without its line ending), read at most `limit` bytes at a time: an
/// over-long line is skipped to its end and reported, as is one that is not UTF-8. `None` at the
/// end of the input.
pub(crate) fn next_line(
    reader: &mut impl BufRead,
    limit: usize,
) -> std::io::Result<Option<Result<String, String>>> {
    let mut buf = Vec::new();
    let n = reader
        .by_ref()
        .take(limit as u64 + 1)
        .read_until(b'\n', &mut buf)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.len() > limit && buf.last() != Some(&b'\n') {
        // Too long: drop the rest of the line without holding it.
        let mut rest = Vec::new();
        while reader.by_ref().take(1 << 16).read_until(b'\n', &mut rest)? > 0 {
            if rest.last() == Some(&b'\n') {
                break;
            }
            rest.clear();
        }
        return Ok(Some(Err(format!("the line is longer than {limit} bytes"))));
    }
    while matches!(buf.last(), Some(b'\n' | b'\r')) {
        buf.pop();
    }
    Ok(Some(String::from_utf8(buf).map_err(|e| {
        format!("not UTF-8 (byte {})", e.utf8_error().valid_up_to())
    })))
}

/// A refusal citegate writes, with the bidirectional and C1 controls a model (or a stranger)
/// put in the answer escaped as `\uXXXX`, as in every JSON citegate writes: the same JSON value,
/// inert in a terminal or a log. An answer that passes is echoed as it was given.
fn render(value: &Value, pretty: bool) -> String {
    let text = match pretty {
        true => serde_json::to_string_pretty(value),
        false => serde_json::to_string(value),
    };
    crate::escape::json_escapes(text.unwrap_or_default()) + "\n"
}

/// [`render`] on one line, without its line end.
fn json_text(value: &Value) -> String {
    crate::escape::json_escapes(value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_and_broken_lines_are_reported_and_skipped() {
        let input = b"short\nthis line is far too long\n\xff\xfe\nlast".to_vec();
        let mut reader = std::io::Cursor::new(input);
        let mut got = Vec::new();
        while let Some(line) = next_line(&mut reader, 10).unwrap() {
            got.push(line);
        }
        assert_eq!(got[0], Ok("short".to_string()));
        assert!(got[1].as_ref().unwrap_err().contains("longer than 10"));
        assert!(got[2].as_ref().unwrap_err().contains("not UTF-8"));
        assert_eq!(got[3], Ok("last".to_string()));
        assert_eq!(got.len(), 4);
    }
}
