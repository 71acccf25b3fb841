//! The protocol's framing on standard input and output, done here rather than by `lsp-server`'s
//! `Connection::stdio()`: that reader allocates whatever `Content-Length` a client claims before
//! the body arrives (1 GB claimed, 966 MB allocated) and ends the server on the first message it
//! cannot read. Here a header line is at most [`MAX_HEADER_LINE_BYTES`], a body at most
//! [`MAX_MESSAGE_BYTES`] and grown only as its bytes arrive; a message that cannot be read is
//! skipped (whole, when its length is known) and answered with JSON-RPC's parse or invalid-request
//! error, and the server reads on. Only the end of input, an I/O error or `exit` stops the reader.

use std::io::{self, BufRead, Read, Write};
use std::thread;

use crossbeam_channel::Sender;
use lsp_server::{Connection, ErrorCode, Message, RequestId};

/// The largest message body read (64 MiB: four times a doc's 16 MiB limit, as JSON-escaped text).
pub const MAX_MESSAGE_BYTES: usize = 64 << 20;

/// The longest header line read; the rest of a longer one is skipped without being kept.
pub const MAX_HEADER_LINE_BYTES: usize = 4 << 10;

/// One message read from the stream.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A body, at most the limit long (not yet known to be JSON).
    Body(Vec<u8>),
    /// A message that could not be read, skipped: the error to answer it with.
    Refused(Refusal),
}

/// Why a message is refused: a JSON-RPC error code and a message naming the fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// JSON-RPC's code (`lsp_server::ErrorCode as i32`).
    pub code: i32,
    pub message: String,
}

impl Refusal {
    fn new(code: ErrorCode, message: impl Into<String>) -> Refusal {
        Refusal {
            code: code as i32,
            message: message.into(),
        }
    }
}

/// Read the next message's headers and body, with bodies of at most `max` bytes. `Ok(None)` at
/// the end of input (a body cut short by it included); an error only when reading fails.
pub fn read_frame(inp: &mut impl BufRead, max: usize) -> io::Result<Option<Frame>> {
    let mut length: Option<usize> = None;
    let mut fault: Option<String> = None;
    let mut any = false;
    loop {
        let Some(line) = header_line(inp)? else {
            return Ok(None);
        };
        let line = match line {
            Line::Text(text) => text,
            Line::TooLong => {
                fault.get_or_insert(format!("a header line over {MAX_HEADER_LINE_BYTES} bytes"));
                any = true;
                continue;
            }
        };
        if line.is_empty() {
            // Blank lines between messages are tolerated; one ends the headers.
            if any {
                break;
            }
            continue;
        }
        any = true;
        match parse_header(&line) {
            Ok(Some(n)) => length = Some(n),
            Ok(None) => {}
            Err(why) => {
                fault.get_or_insert(why);
            }
        }
    }
    let Some(length) = length else {
        let why = fault.unwrap_or_else(|| "no Content-Length header".to_string());
        return Ok(Some(Frame::Refused(Refusal::new(
            ErrorCode::ParseError,
            why,
        ))));
    };
    if length > max {
        if !skip(inp, length as u64)? {
            return Ok(None);
        }
        let why = format!("a message of {length} bytes, over the {max}-byte limit: skipped");
        return Ok(Some(Frame::Refused(Refusal::new(
            ErrorCode::InvalidRequest,
            why,
        ))));
    }
    let mut body = Vec::new();
    // Grown as bytes arrive: a claimed length costs nothing until it is sent.
    inp.take(length as u64).read_to_end(&mut body)?;
    if body.len() < length {
        return Ok(None);
    }
    Ok(Some(match fault {
        Some(why) => Frame::Refused(Refusal::new(ErrorCode::ParseError, why)),
        None => Frame::Body(body),
    }))
}

enum Line {
    /// A line without its line end (a lone `\n` is taken as one too), lossily decoded.
    Text(String),
    TooLong,
}

/// The next header line, at most [`MAX_HEADER_LINE_BYTES`] kept; `None` at the end of input.
fn header_line(inp: &mut impl BufRead) -> io::Result<Option<Line>> {
    let mut line = Vec::new();
    let n = inp
        .take(MAX_HEADER_LINE_BYTES as u64 + 1)
        .read_until(b'\n', &mut line)?;
    if n == 0 {
        return Ok(None);
    }
    if line.last() != Some(&b'\n') {
        if line.len() <= MAX_HEADER_LINE_BYTES {
            return Ok(None); // cut short by the end of input
        }
        // Skip the rest of the line, a buffer at a time, keeping none of it.
        loop {
            let buf = inp.fill_buf()?;
            if buf.is_empty() {
                return Ok(None);
            }
            match buf.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    inp.consume(i + 1);
                    return Ok(Some(Line::TooLong));
                }
                None => {
                    let n = buf.len();
                    inp.consume(n);
                }
            }
        }
    }
    line.pop();
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Ok(Some(Line::Text(
        String::from_utf8_lossy(&line).into_owned(),
    )))
}

/// A header's `Content-Length` (`None`: another header); an error for a malformed line.
fn parse_header(line: &str) -> Result<Option<usize>, String> {
    let shown: String = line.chars().take(80).collect();
    let Some((name, value)) = line.split_once(':') else {
        return Err(format!("malformed header {shown:?}: no `:`"));
    };
    if !name.trim().eq_ignore_ascii_case("Content-Length") {
        return Ok(None);
    }
    let value = value.trim();
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("malformed Content-Length {shown:?}"));
    }
    // Digits only: a number too large for usize is over any limit.
    Ok(Some(value.parse().unwrap_or(usize::MAX)))
}

/// Read and drop `n` bytes; `false` when the input ends first.
fn skip(inp: &mut impl BufRead, n: u64) -> io::Result<bool> {
    let skipped = io::copy(&mut inp.take(n), &mut io::sink())?;
    Ok(skipped == n)
}

/// A body as a message, or the error to answer it with: not JSON is a parse error, JSON that is
/// no message an invalid request (answered with its `id` when it has one).
pub fn decode(body: &[u8]) -> Result<Message, (Option<RequestId>, Refusal)> {
    let value: serde_json::Value = serde_json::from_slice(body).map_err(|e| {
        let why = format!("the message is not JSON: {e}");
        (None, Refusal::new(ErrorCode::ParseError, why))
    })?;
    let id = (value.get("id").cloned()).and_then(|id| serde_json::from_value::<RequestId>(id).ok());
    serde_json::from_value(value).map_err(|e| {
        let why = format!("not a JSON-RPC message: {e}");
        (id, Refusal::new(ErrorCode::InvalidRequest, why))
    })
}

/// The error answering a message that could not be read: JSON-RPC's `id` is null when the
/// message's own could not be read (`lsp-server`'s `Response` cannot hold a null `id`: the text
/// is written as is).
fn error_text(id: Option<RequestId>, refusal: &Refusal) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": refusal.code, "message": refusal.message},
    })
    .to_string()
}

fn write_text(out: &mut impl Write, text: &str) -> io::Result<()> {
    write!(out, "Content-Length: {}\r\n\r\n", text.len())?;
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// The reader and writer threads of a [`Connection`] on standard input and output.
pub struct IoThreads {
    reader: thread::JoinHandle<io::Result<()>>,
    writer: thread::JoinHandle<io::Result<()>>,
}

impl IoThreads {
    /// Wait for both threads (the writer ends once every sender of the connection is dropped).
    pub fn join(self) -> io::Result<()> {
        let reader = self.reader.join().unwrap_or_else(|_| Err(panicked()));
        let writer = self.writer.join().unwrap_or_else(|_| Err(panicked()));
        reader.and(writer)
    }
}

fn panicked() -> io::Error {
    io::Error::other("an I/O thread panicked")
}

/// A connection on standard input and output, framed as above.
pub fn stdio() -> (Connection, IoThreads) {
    let (to_server, receiver) = crossbeam_channel::bounded::<Message>(0);
    let (sender, to_client) = crossbeam_channel::unbounded::<Message>();
    let writer = thread::spawn(move || {
        for message in to_client {
            message.write(&mut io::stdout().lock())?;
        }
        Ok(())
    });
    let reader = thread::spawn(move || {
        // The standard output's lock is held for a whole message, by the writer as here.
        let answer = |text: &str| write_text(&mut io::stdout().lock(), text);
        read_all(&mut io::stdin().lock(), &to_server, answer)
    });
    let threads = IoThreads { reader, writer };
    (Connection { sender, receiver }, threads)
}

/// Read messages until the end of input or `exit`, handing them to the server; a message that
/// cannot be read is answered (the error's JSON text given to `answer`) and the next one read.
pub fn read_all(
    inp: &mut impl BufRead,
    to_server: &Sender<Message>,
    mut answer: impl FnMut(&str) -> io::Result<()>,
) -> io::Result<()> {
    while let Some(frame) = read_frame(inp, MAX_MESSAGE_BYTES)? {
        let (id, refusal) = match frame {
            Frame::Body(body) => match decode(&body) {
                Ok(message) => {
                    let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
                    if to_server.send(message).is_err() || exit {
                        return Ok(());
                    }
                    continue;
                }
                Err(refused) => refused,
            },
            Frame::Refused(refusal) => (None, refusal),
        };
        answer(&error_text(id, &refusal))?;
    }
    Ok(())
}
