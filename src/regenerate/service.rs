//! `citegate gate`: the gate as a service for RAG backends ("validate before the response leaves
//! your API"). One answer on standard input, or one per line with `--jsonl` for a sidecar; each
//! is printed as it is when it passes, or as its refusal with the violations.

use std::io::{BufRead, Read};

use git2::Oid;
use serde_json::{json, Value};

use super::gate;
use crate::model::Retrieved;
use crate::resolve::CodeRepo;

/// What the gate made of one input: the text to print and whether the answer passed.
pub struct Gated {
    pub output: String,
    pub passed: bool,
}

/// Gate one answer's JSON text. Text that is not JSON is refused (the reason says where it
/// broke); nothing a model wrote is ever passed through unchecked.
pub fn gate_text(
    repo: &CodeRepo,
    target: Oid,
    text: &str,
    retrieved: Option<&[Retrieved]>,
    pretty: bool,
) -> Gated {
    let answer: Value = match serde_json::from_str(text.trim_start_matches('\u{feff}')) {
        Ok(v) => v,
        Err(e) => {
            return Gated {
                output: unreadable(&format!("invalid JSON: {e}"), pretty),
                passed: false,
            };
        }
    };
    match gate::pass_or_refuse(repo, target, &answer, retrieved) {
        // Passed as it was given, byte for byte (a number is not rounded through a float).
        Ok(()) => Gated {
            output: format!("{}\n", text.trim_start_matches('\u{feff}').trim_end()),
            passed: true,
        },
        Err((refused, _)) => Gated {
            output: render(&refused, pretty),
            passed: false,
        },
    }
}

/// The most bytes of one answer read from standard input (the audit's limit for a doc).
pub const MAX_INPUT_BYTES: usize = crate::audit::MAX_DOC_BYTES as usize;

/// The next line of `reader` (without its line ending), read at most `limit` bytes at a time: an
/// over-long line is skipped to its end and reported, as is one that is not UTF-8. `None` at the
/// end of the input.
pub fn next_line(
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

/// The refusal printed for input that cannot be read as an answer.
pub fn unreadable(why: &str, pretty: bool) -> String {
    let refused = json!({
        "summary": "",
        "citations": [],
        "refuse": {"reason": "no_span_in_retrieval", "searched": []},
        "violations": [{"rule": "malformed-doc", "message": why}],
    });
    render(&refused, pretty)
}

fn render(value: &Value, pretty: bool) -> String {
    let text = match pretty {
        true => serde_json::to_string_pretty(value),
        false => serde_json::to_string(value),
    };
    text.unwrap_or_default() + "\n"
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
