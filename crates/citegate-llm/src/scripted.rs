//! A model that gives set replies (test helpers only: the `testing` feature).

use serde_json::Value;

use super::{CallError, ChatModel, ErrorKind, Message, Reply};

/// A model that gives set replies, in order (then fails): asking, repairing and merging tested
/// in process, without a server (test helpers only: the `testing` feature).
pub struct Scripted {
    pub name: String,
    replies: std::sync::Mutex<std::collections::VecDeque<Result<Reply, CallError>>>,
    /// The messages of every question asked, in order.
    pub asked: std::sync::Mutex<Vec<Vec<Message>>>,
}

impl Scripted {
    pub fn new(replies: Vec<Result<Reply, CallError>>) -> Scripted {
        Scripted {
            name: "scripted".to_string(),
            replies: std::sync::Mutex::new(replies.into()),
            asked: Default::default(),
        }
    }
}

impl ChatModel for Scripted {
    fn model(&self) -> &str {
        &self.name
    }

    fn chat(&self, messages: &[Message], _format: &Value) -> Result<Reply, CallError> {
        self.asked
            .lock()
            .expect("asked lock")
            .push(messages.to_vec());
        let next = self.replies.lock().expect("replies lock").pop_front();
        next.unwrap_or_else(|| {
            Err(CallError {
                message: "the script has no more replies".to_string(),
                kind: ErrorKind::Other,
                requests: 0,
                endpoint: false,
            })
        })
    }

    fn endpoint_failure(&self) -> Option<String> {
        None
    }
}
