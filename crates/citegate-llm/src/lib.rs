//! The model client, a leaf (it uses nothing else of citegate): [`ChatModel`], one chat
//! completion with a JSON response format. [`http::Client`] for OpenAI-compatible endpoints is one
//! implementation, behind the default cargo feature `llm` (without it the library builds with no
//! HTTP stack); `scripted::Scripted` (feature `testing`) replays set replies, for in-process
//! tests of asking and repairing.

#[cfg(feature = "http")]
pub mod http;
#[cfg(any(test, feature = "testing"))]
pub mod scripted;

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

/// Who says a message of a chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

/// One message of a chat, serialised as the chat-completions API reads it
/// (`{"role": "user", "content": "…"}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn new(role: Role, content: impl Into<String>) -> Message {
        Message {
            role,
            content: content.into(),
        }
    }
}

/// A chat model: what `regenerate` asks a question through.
pub trait ChatModel: Sync {
    /// The model's name, as recorded in traces.
    fn model(&self) -> &str;
    /// One chat completion of `messages`, its reply held to `response_format`.
    fn chat(&self, messages: &[Message], response_format: &Value) -> Result<Reply, CallError>;
    /// Why the endpoint itself failed, once it has (no later question is sent).
    fn endpoint_failure(&self) -> Option<String>;
}

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
    /// What kind of failure, for the trace and `replay`'s taxonomy (the message has details).
    pub kind: ErrorKind,
    pub requests: usize,
    /// The endpoint itself failed (unreachable, TLS, refused the credentials, no such route):
    /// no other answer would fare better, and the run exits 2.
    pub endpoint: bool,
}

/// What kind of failure left a question without a reply: recorded in the trace (`error_kind`,
/// as its [`label`](ErrorKind::label)), counted by `replay`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ErrorKind {
    /// The deadline (`--timeout`) passed before the reply's last byte.
    Timeout,
    /// The server answered this error status.
    Http(u16),
    /// The reply was larger than the most read.
    Oversize,
    /// No connection, or it broke (refused, reset, unreadable).
    Connection,
    Tls,
    /// The host name could not be resolved.
    Dns,
    /// The reply is not JSON, or not a chat completion.
    BadReply,
    /// The reply held the API key: refused, unrecorded.
    KeyInReply,
    /// Not sent: the endpoint had failed before.
    NotSent,
    Other,
}

impl ErrorKind {
    /// The kind as the trace and the taxonomy write it: `timeout`, `HTTP 503`, `oversize`, …
    pub fn label(self) -> String {
        match self {
            ErrorKind::Http(status) => format!("HTTP {status}"),
            other => other.word().to_string(),
        }
    }

    fn word(self) -> &'static str {
        match self {
            ErrorKind::Timeout => "timeout",
            ErrorKind::Http(_) => "HTTP",
            ErrorKind::Oversize => "oversize",
            ErrorKind::Connection => "connection",
            ErrorKind::Tls => "TLS",
            ErrorKind::Dns => "DNS",
            ErrorKind::BadReply => "bad reply",
            ErrorKind::KeyInReply => "API key in reply",
            ErrorKind::NotSent => "not sent",
            ErrorKind::Other => "other",
        }
    }

    /// A label read back (an unknown one is `Other`).
    pub fn parse(label: &str) -> ErrorKind {
        if let Some(status) = label.strip_prefix("HTTP ") {
            return status.parse().map_or(ErrorKind::Other, ErrorKind::Http);
        }
        const ALL: [ErrorKind; 9] = [
            ErrorKind::Timeout,
            ErrorKind::Oversize,
            ErrorKind::Connection,
            ErrorKind::Tls,
            ErrorKind::Dns,
            ErrorKind::BadReply,
            ErrorKind::KeyInReply,
            ErrorKind::NotSent,
            ErrorKind::Other,
        ];
        (ALL.into_iter())
            .find(|k| k.word() == label)
            .unwrap_or(ErrorKind::Other)
    }
}

impl serde::Serialize for ErrorKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.label())
    }
}

impl<'de> serde::Deserialize<'de> for ErrorKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let label = String::deserialize(d)?;
        Ok(ErrorKind::parse(&label))
    }
}

/// Why no model can be asked at all (the run fails before any work, naming `--llm`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    #[error("`{0}` is not a URL: no scheme")]
    NoScheme(String),
    #[error("`{url}`: the scheme must be http or https, not {scheme}")]
    Scheme { url: String, scheme: String },
    #[error("`{0}` names no host")]
    NoHost(String),
    /// The HTTP client could not be built (its TLS backend), as the client said.
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
    #[error("citegate was built without the `llm` feature: no model can be asked")]
    NotBuilt,
}

/// Check an `--llm` URL before any work: an absolute `http` or `https` URL with a host.
pub fn check_url(url: &str) -> Result<(), ModelError> {
    let Some((scheme, rest)) = url.split_once("://") else {
        return Err(ModelError::NoScheme(url.to_string()));
    };
    if !matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https") {
        let (url, scheme) = (url.to_string(), scheme.to_string());
        return Err(ModelError::Scheme { url, scheme });
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit('@').next().unwrap_or("");
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host.split(':').next().unwrap_or(""),
    };
    if host.is_empty() || host.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(ModelError::NoHost(url.to_string()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_url;

    #[test]
    fn llm_urls_are_http_with_a_host() {
        assert!(check_url("http://127.0.0.1:11434/v1").is_ok());
        assert!(check_url("https://api.example.com").is_ok());
        assert!(check_url("http://[::1]:8080/v1").is_ok());
        let err = |url: &str| check_url(url).unwrap_err().to_string();
        assert!(err("file:///etc/passwd").contains("scheme must be"));
        assert!(err("http:///v1").contains("names no host"));
        assert!(err("localhost:8080").contains("not a URL"));
    }
}
