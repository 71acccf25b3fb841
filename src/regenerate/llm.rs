//! A client for any OpenAI-compatible chat-completions endpoint (Ollama, llama.cpp server, vLLM,
//! OpenAI): `POST URL/chat/completions` with a JSON-schema `response_format`, bounded retries with
//! backoff on 429 and 5xx (honouring `Retry-After`) and on transport errors, and a timeout. The
//! key comes from `CITEGATE_API_KEY` and is only ever sent as a Bearer token: it is not in any
//! error, trace, output or `Debug` text.

use std::time::Duration;

use serde_json::{json, Value};

/// The environment variable the API key is read from.
pub const KEY_VARIABLE: &str = "CITEGATE_API_KEY";
/// The longest wait a `Retry-After` header is honoured for.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// How to reach the model.
#[derive(Debug, Clone)]
pub struct LlmOptions {
    /// The API base, e.g. `http://127.0.0.1:11434/v1` (`/chat/completions` is appended).
    pub url: String,
    pub model: String,
    /// Per request.
    pub timeout: Duration,
    /// Retries after the first attempt, on 429, 5xx and transport errors.
    pub retries: u32,
    /// Requests in flight at once.
    pub concurrency: usize,
}

/// A model's reply: the message content and the tokens it cost.
#[derive(Debug, Clone, Default)]
pub struct Reply {
    pub content: String,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// HTTP requests made for it (retries included).
    pub requests: usize,
}

/// Why no reply came (the key never appears in it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallError {
    pub message: String,
    pub requests: usize,
}

pub struct Client {
    http: reqwest::blocking::Client,
    endpoint: String,
    model: String,
    key: Option<String>,
    retries: u32,
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
    pub fn new(opts: &LlmOptions) -> Result<Client, String> {
        let http = reqwest::blocking::Client::builder()
            .timeout(opts.timeout)
            .connect_timeout(opts.timeout)
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        let key = std::env::var(KEY_VARIABLE).ok().filter(|k| !k.is_empty());
        Ok(Client {
            http,
            endpoint: format!("{}/chat/completions", opts.url.trim_end_matches('/')),
            model: opts.model.clone(),
            key,
            retries: opts.retries,
        })
    }

    pub fn model(&self) -> &str {
        &self.model
    }

    /// One chat completion, retried when the server says so or the connection fails.
    pub fn chat(&self, messages: &[Value], response_format: &Value) -> Result<Reply, CallError> {
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
            let fail = |message: String| CallError { message, requests };
            let mut request = self.http.post(&self.endpoint).json(&body);
            if let Some(key) = &self.key {
                request = request.bearer_auth(key);
            }
            let wait = match request.send() {
                Ok(resp) if resp.status().is_success() => {
                    let value = read_reply(resp).map_err(fail)?;
                    return reply(&value, requests).map_err(fail);
                }
                Ok(resp) => {
                    let status = resp.status();
                    let retryable = status.as_u16() == 429 || status.is_server_error();
                    if !retryable || attempt >= self.retries {
                        return Err(fail(format!("the server answered {status}")));
                    }
                    retry_after(&resp).unwrap_or_else(|| backoff(attempt))
                }
                Err(e) => {
                    if attempt >= self.retries {
                        return Err(fail(format!("request failed: {}", e.without_url())));
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

/// A reply's body as JSON, read up to [`MAX_REPLY_BYTES`].
fn read_reply(resp: reqwest::blocking::Response) -> Result<Value, String> {
    use std::io::Read;
    let mut body = Vec::new();
    resp.take(MAX_REPLY_BYTES + 1)
        .read_to_end(&mut body)
        .map_err(|e| format!("the reply could not be read: {e}"))?;
    if body.len() as u64 > MAX_REPLY_BYTES {
        return Err(format!(
            "the reply is larger than {} MiB",
            MAX_REPLY_BYTES >> 20
        ));
    }
    serde_json::from_slice(&body).map_err(|e| format!("the reply is not JSON: {e}"))
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
