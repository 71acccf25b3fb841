//! A client for any OpenAI-compatible chat-completions endpoint (Ollama, llama.cpp server, vLLM,
//! OpenAI): `POST URL/chat/completions` with a JSON-schema `response_format`, bounded retries with
//! backoff on 429 and 5xx (honouring `Retry-After`) and on transport errors, and a timeout. The
//! key comes from `CITEGATE_API_KEY` and is only ever sent as a Bearer token: it is not in any
//! error, trace, output or `Debug` text.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{check_url, CallError, ChatModel, ErrorKind, LlmOptions, Message, ModelError, Reply};

/// The environment variable the API key is read from.
pub const KEY_VARIABLE: &str = "CITEGATE_API_KEY";
/// The longest wait a `Retry-After` header is honoured for.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

pub struct Client {
    http: reqwest::blocking::Client,
    endpoint: String,
    model: String,
    key: Option<String>,
    retries: u32,
    /// The deadline of one request, from sending it to the last byte of the reply.
    timeout: Duration,
    /// Why the endpoint itself failed, once it has: later questions are not sent.
    failed: std::sync::Mutex<Option<String>>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("endpoint", &self.endpoint)
            .field("model", &self.model)
            .field("key", &self.key.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

impl Client {
    pub fn new(opts: &LlmOptions) -> Result<Client, ModelError> {
        check_url(&opts.url)?;
        let http = reqwest::blocking::Client::builder()
            .timeout(opts.timeout)
            .connect_timeout(opts.timeout)
            .build()
            .map_err(|e| ModelError::Client(e.to_string()))?;
        let key = std::env::var(KEY_VARIABLE).ok().filter(|k| !k.is_empty());
        Ok(Client {
            http,
            endpoint: format!("{}/chat/completions", opts.url.trim_end_matches('/')),
            model: opts.model.clone(),
            key,
            retries: opts.retries,
            timeout: opts.timeout,
            failed: Default::default(),
        })
    }

    fn send_once_failed(&self) -> Option<String> {
        self.failed.lock().map(|f| f.clone()).unwrap_or_default()
    }
}

impl ChatModel for Client {
    fn model(&self) -> &str {
        &self.model
    }

    fn endpoint_failure(&self) -> Option<String> {
        self.send_once_failed()
    }

    /// One chat completion, retried when the server says so or the connection fails. Once the
    /// endpoint has failed, nothing more is sent.
    fn chat(&self, messages: &[Message], response_format: &Value) -> Result<Reply, CallError> {
        if let Some(why) = self.endpoint_failure() {
            let message = format!("not sent: the endpoint failed earlier ({why})");
            return Err(CallError {
                message,
                kind: ErrorKind::NotSent,
                requests: 0,
                endpoint: true,
            });
        }
        let result = self.send(messages, response_format);
        if let Err(e) = &result {
            if let (true, Ok(mut failed)) = (e.endpoint, self.failed.lock()) {
                failed.get_or_insert_with(|| e.message.clone());
            }
        }
        result
    }
}

impl Client {
    fn send(&self, messages: &[Message], response_format: &Value) -> Result<Reply, CallError> {
        let body = json!({
            "model": self.model,
            "messages": messages,
            "temperature": 0,
            "response_format": response_format,
        });
        let mut requests = 0;
        let mut attempt = 0;
        loop {
            requests += 1;
            let fail = |(kind, message): (ErrorKind, String), endpoint: bool| CallError {
                message: self.redact(&message),
                kind,
                requests,
                endpoint,
            };
            let bad = |message: String| (ErrorKind::BadReply, message);
            let deadline = Instant::now() + self.timeout;
            let mut request = self.http.post(&self.endpoint).json(&body);
            if let Some(key) = &self.key {
                request = request.bearer_auth(key);
            }
            let wait = match request.send() {
                Ok(resp) if resp.status().is_success() => {
                    let body =
                        read_body(resp, deadline, self.timeout).map_err(|e| fail(e, false))?;
                    let value = serde_json::from_slice(&body)
                        .map_err(|e| fail(bad(format!("the reply is not JSON: {e}")), false))?;
                    let reply = reply(&value, requests).map_err(|e| fail(bad(e), false))?;
                    return (self.refuse_key(reply))
                        .map_err(|e| fail((ErrorKind::KeyInReply, e), false));
                }
                Ok(resp) => {
                    let status = resp.status();
                    let retryable = status.as_u16() == 429 || status.is_server_error();
                    if !retryable || attempt >= self.retries {
                        let endpoint = matches!(status.as_u16(), 401 | 403 | 404 | 405);
                        let kind = ErrorKind::Http(status.as_u16());
                        let message = status_error(resp, deadline, self.timeout);
                        return Err(fail((kind, message), endpoint));
                    }
                    retry_after(&resp).unwrap_or_else(|| backoff(attempt))
                }
                Err(e) => {
                    if attempt >= self.retries {
                        let endpoint = e.is_connect() && !e.is_timeout();
                        return Err(fail(describe(&e, self.timeout), endpoint));
                    }
                    backoff(attempt)
                }
            };
            std::thread::sleep(wait);
            attempt += 1;
        }
    }
}

/// The most bytes of one reply read (a server that streams without end is cut off).
pub const MAX_REPLY_BYTES: u64 = 16 << 20;

impl Client {
    /// The key, wherever a message might hold it (a server echoing the request), replaced.
    fn redact(&self, text: &str) -> String {
        match &self.key {
            Some(key) => text.replace(key.as_str(), "<redacted>"),
            None => text.to_string(),
        }
    }

    /// A reply holding the API key is refused: it is never recorded, gated or written.
    fn refuse_key(&self, reply: Reply) -> Result<Reply, String> {
        match &self.key {
            Some(key) if reply.content.contains(key.as_str()) => {
                Err("the reply contains the API key: refused, and not recorded".into())
            }
            _ => Ok(reply),
        }
    }
}

/// A reply's body, read up to [`MAX_REPLY_BYTES`] and by `deadline`: a server that sends one
/// byte at a time is cut when the request's time is up, not when it stops.
fn read_body(
    mut resp: reqwest::blocking::Response,
    deadline: Instant,
    timeout: Duration,
) -> Result<Vec<u8>, (ErrorKind, String)> {
    let timed_out = || {
        let message = format!("timed out after {} s (--timeout)", timeout.as_secs());
        (ErrorKind::Timeout, message)
    };
    use std::io::Read;
    let mut body = Vec::new();
    let mut buf = [0u8; 16 << 10];
    loop {
        if Instant::now() >= deadline {
            return Err(timed_out());
        }
        let n = match resp.read(&mut buf) {
            Ok(0) => return Ok(body),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => return Err(timed_out()),
            Err(e) => {
                let message = format!("the reply could not be read: {e}");
                return Err((ErrorKind::Connection, message));
            }
        };
        body.extend_from_slice(&buf[..n]);
        if body.len() as u64 > MAX_REPLY_BYTES {
            let message = format!("the reply is larger than {} MiB", MAX_REPLY_BYTES >> 20);
            return Err((ErrorKind::Oversize, message));
        }
    }
}

/// The most bytes of an error reply quoted: an OpenAI 400 explains itself in its first lines.
const QUOTED_ERROR_BYTES: usize = 300;

/// An HTTP error status with the first bytes of its body (control characters escaped).
fn status_error(resp: reqwest::blocking::Response, deadline: Instant, timeout: Duration) -> String {
    let status = resp.status();
    let body = read_body(resp, deadline, timeout).unwrap_or_default();
    let mut text = String::from_utf8_lossy(&body[..body.len().min(QUOTED_ERROR_BYTES)]).to_string();
    text = text.escape_debug().to_string();
    if body.len() > QUOTED_ERROR_BYTES {
        text.push('…');
    }
    match text.trim().is_empty() {
        true => format!("the server answered {status}"),
        false => format!("the server answered {status}: {}", text.trim()),
    }
}

/// Words rustls and the platform verifiers use for a failed TLS handshake.
const TLS_WORDS: [&str; 6] = [
    "tls",
    "certificate",
    "handshake",
    "corrupt message",
    "alert",
    "peer is incompatible",
];

/// A transport error as a user reads it: timed out, connection refused, TLS, with its causes.
fn describe(e: &reqwest::Error, timeout: Duration) -> (ErrorKind, String) {
    if e.is_timeout() {
        let message = format!("timed out after {} s (--timeout)", timeout.as_secs());
        return (ErrorKind::Timeout, message);
    }
    let mut causes = Vec::new();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        causes.push(s.to_string());
        source = s.source();
    }
    let chain = causes.join(": ");
    let lower = chain.to_ascii_lowercase();
    let (kind, what) = if lower.contains("connection refused") {
        (ErrorKind::Connection, "connection refused")
    } else if TLS_WORDS.iter().any(|w| lower.contains(w)) {
        (ErrorKind::Tls, "TLS failed")
    } else if lower.contains("dns") || lower.contains("resolve") || lower.contains("lookup") {
        (ErrorKind::Dns, "the host name could not be resolved")
    } else if e.is_connect() {
        (ErrorKind::Connection, "cannot connect")
    } else {
        (ErrorKind::Connection, "request failed")
    };
    match chain.is_empty() {
        true => (kind, what.to_string()),
        false => (kind, format!("{what}: {chain}")),
    }
}

/// `Retry-After`: seconds, or an HTTP date (the wait until then), capped.
fn retry_after(resp: &reqwest::blocking::Response) -> Option<Duration> {
    let value = resp
        .headers()
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim();
    let wait = match value.parse::<u64>() {
        Ok(secs) => Duration::from_secs(secs),
        Err(_) => {
            let at = httpdate::parse_http_date(value).ok()?;
            at.duration_since(std::time::SystemTime::now())
                .unwrap_or(Duration::ZERO)
        }
    };
    Some(wait.min(MAX_RETRY_AFTER))
}

/// 250 ms, 500 ms, 1 s, … up to 8 s.
fn backoff(attempt: u32) -> Duration {
    Duration::from_millis(250u64 << attempt.min(5))
}

fn reply(value: &Value, requests: usize) -> Result<Reply, String> {
    let content = value
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)
        .ok_or("the reply has no choices[0].message.content")?;
    let tokens = |key: &str| {
        value
            .pointer(&format!("/usage/{key}"))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    Ok(Reply {
        content: content.to_string(),
        prompt_tokens: tokens("prompt_tokens"),
        completion_tokens: tokens("completion_tokens"),
        requests,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_bounded() {
        assert_eq!(backoff(0), Duration::from_millis(250));
        assert_eq!(backoff(2), Duration::from_secs(1));
        assert_eq!(backoff(30), Duration::from_secs(8));
    }

    #[test]
    fn replies_without_content_are_errors() {
        let ok =
            json!({"choices": [{"message": {"content": "{}"}}], "usage": {"prompt_tokens": 3}});
        let r = reply(&ok, 1).unwrap();
        assert_eq!((r.content.as_str(), r.prompt_tokens), ("{}", 3));
        assert!(reply(&json!({"choices": []}), 1).is_err());
    }
}
