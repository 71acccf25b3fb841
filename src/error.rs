//! Errors as the user reads them: the outermost message, then each cause.

/// An error and each of its sources, outermost first: `outer: cause: root cause`.
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        out.push_str(": ");
        out.push_str(&cause.to_string());
        source = cause.source();
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_cause_follows_the_message() {
        let inner = std::io::Error::other("disk full");
        let outer = crate::sweep::history::HistoryError::Io("h.jsonl".into(), inner);
        assert_eq!(super::chain(&outer), "h.jsonl: disk full");
    }
}
