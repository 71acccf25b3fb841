//! Traces (`--trace FILE`, JSONL): one record per answer the model was asked about: what was
//! retrieved, the prompt's hash, each raw reply with the gate's verdict, and the outcome.
//! [`replay`] re-runs the gate on the recorded replies offline and counts the failure taxonomy.

use std::collections::BTreeMap;

use git2::Oid;
use serde::{Deserialize, Serialize};

use citegate_engine::gate::reply::{self, Subject};
use citegate_engine::gate::{Gate, Violation};
use citegate_llm::ErrorKind;

use citegate_engine::audit::Settings;
use citegate_engine::model::{LineRange, Retrieved};
use citegate_engine::resolve::CodeRepo;

/// One model reply and what the gate found in it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// Whether this was the repair turn.
    pub repair: bool,
    pub raw: String,
    pub passed: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub violations: Vec<Violation>,
}

/// How an exchange with the model ended (a trace record's `outcome`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ended {
    /// A reply passed the gate and was written.
    Regrounded,
    /// No reply passed the gate, or the model itself refused.
    Refused,
    /// A question got no reply (the first, or the repair: see `attempts`).
    Error,
}

/// One answer's (or paragraph's) exchange with the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub trace_id: String,
    pub doc: String,
    #[serde(default)]
    pub subject: Subject,
    pub answer: usize,
    pub revision: String,
    pub query: String,
    /// `path:start-end@tree` of each chunk in CONTEXT.
    pub retrieved: Vec<String>,
    pub model: String,
    pub prompt_hash: String,
    pub attempts: Vec<Attempt>,
    pub outcome: Ended,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What kind of failure `error` was (traces written before it was recorded: read from the
    /// message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<ErrorKind>,
    /// The repository the exchange was about (its forge identity, else its folder's name), so
    /// a replay elsewhere says so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
}

/// How a trace names a repository: its forge identity (`github.com/o/r`), else its folder.
pub fn repository_name(repo: &CodeRepo) -> Option<String> {
    repo.ids.first().cloned().or_else(|| {
        let dir = repo.workdir.as_ref()?.file_name()?;
        Some(dir.to_string_lossy().to_string())
    })
}

/// The kind of a model error recorded before `error_kind` was: read from its message's words.
fn error_kind(message: &str) -> ErrorKind {
    const KINDS: [(&str, ErrorKind); 10] = [
        ("timed out", ErrorKind::Timeout),
        ("connection refused", ErrorKind::Connection),
        ("cannot connect", ErrorKind::Connection),
        ("could not be read", ErrorKind::Connection),
        ("TLS failed", ErrorKind::Tls),
        ("the host name could not be resolved", ErrorKind::Dns),
        ("contains the API key", ErrorKind::KeyInReply),
        ("not sent: the endpoint failed earlier", ErrorKind::NotSent),
        ("is not JSON", ErrorKind::BadReply),
        ("larger than", ErrorKind::Oversize),
    ];
    if let Some((_, kind)) = KINDS.iter().find(|(k, _)| message.contains(k)) {
        return *kind;
    }
    let status = message
        .strip_prefix("the server answered ")
        .and_then(|rest| {
            let code = rest.split([' ', ':']).next()?;
            code.parse().ok()
        });
    status.map_or(ErrorKind::Other, ErrorKind::Http)
}

/// The traces as JSONL, in the order given.
pub fn to_jsonl(records: &[Record]) -> String {
    records
        .iter()
        .filter_map(|r| serde_json::to_string(r).ok())
        .map(|l| l + "\n")
        .collect()
}

/// A chunk ID `path:start-end@tree` as a retrieval payload entry.
pub fn parse_id(id: &str) -> Option<Retrieved> {
    let (span, _tree) = id.rsplit_once('@')?;
    let (path, lines) = span.rsplit_once(':')?;
    let (start, end) = lines.split_once('-').unwrap_or((lines, lines));
    Some(Retrieved {
        path: path.to_string(),
        lines: LineRange::new(start.parse().ok()?, end.parse().ok()?),
    })
}

/// What a replay found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Taxonomy {
    pub records: usize,
    pub replies: usize,
    pub passed_first: usize,
    pub passed_after_repair: usize,
    pub refused: usize,
    /// Of the refused: the model itself refused, in a reply that passed the gate.
    pub model_refused: usize,
    /// Records whose last question got no reply (the first, or the repair after a reply that
    /// failed the gate), as recorded.
    pub errors: usize,
    /// Errors by kind ([`ErrorKind::label`]): `timeout`, `HTTP 503`, `oversize`, `connection`, …
    pub errors_by_kind: BTreeMap<String, usize>,
    /// Violations by finding ID, over every reply.
    pub violations: BTreeMap<String, usize>,
    /// Replies whose verdict now differs from the recorded one.
    pub verdicts_changed: usize,
    /// Records that could not be replayed (unknown revision, unreadable line), with why.
    pub unreadable: Vec<String>,
    /// The revisions records were written at that this repository does not have (sorted): their
    /// records are not replayed.
    pub missing_revisions: Vec<String>,
    /// The repositories the trace names that are not this one (the replay's verdicts are then
    /// about other code).
    pub other_repositories: Vec<String>,
}

/// Re-run the gate on every recorded reply, at its record's revision and retrieval.
pub fn replay(repo: &CodeRepo, settings: &Settings, text: &str) -> Taxonomy {
    let mut t = Taxonomy::default();
    let git = repo.open().ok();
    let here = repository_name(repo);
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let record: Record = match serde_json::from_str(line) {
            Ok(r) => r,
            Err(e) => {
                t.unreadable.push(format!("line {}: {e}", n + 1));
                continue;
            }
        };
        if let Some(there) = record
            .repository
            .as_ref()
            .filter(|r| Some(*r) != here.as_ref())
        {
            if !t.other_repositories.contains(there) {
                t.other_repositories.push(there.clone());
            }
        }
        let known = Oid::from_str(&record.revision)
            .ok()
            .filter(|r| git.as_ref().is_some_and(|g| g.find_commit(*r).is_ok()));
        let Some(revision) = known else {
            t.unreadable.push(format!(
                "line {}: revision {} is not in this repository",
                n + 1,
                record.revision
            ));
            if !t.missing_revisions.contains(&record.revision) {
                t.missing_revisions.push(record.revision.clone());
            }
            continue;
        };
        let retrieved: Vec<Retrieved> = record
            .retrieved
            .iter()
            .filter_map(|i| parse_id(i))
            .collect();
        t.records += 1;
        let gate = Gate::new(repo, revision, settings);
        let mut passed_at = None;
        for (i, attempt) in record.attempts.iter().enumerate() {
            t.replies += 1;
            let violations = reply::check_reply(
                &gate,
                record.subject,
                &record.doc,
                &attempt.raw,
                &retrieved,
                &record.query,
            );
            for v in &violations {
                *t.violations.entry(v.rule.as_str().to_string()).or_default() += 1;
            }
            if violations.is_empty() != attempt.passed {
                t.verdicts_changed += 1;
            }
            if violations.is_empty() && passed_at.is_none() {
                passed_at = Some(i);
            }
        }
        t.count(&record, passed_at);
    }
    t.missing_revisions.sort();
    t
}

impl Taxonomy {
    /// Count one replayed record: which reply passes the gate now (`passed_at`), else how it
    /// ended as recorded. A record whose repair got no reply is an error, as it was recorded,
    /// not a refusal.
    fn count(&mut self, record: &Record, passed_at: Option<usize>) {
        let no_reply = record.attempts.is_empty() || record.outcome == Ended::Error;
        match passed_at {
            Some(i) if reply::refuses(&record.attempts[i].raw) => {
                self.refused += 1;
                self.model_refused += 1;
            }
            Some(0) => self.passed_first += 1,
            Some(_) => self.passed_after_repair += 1,
            None if no_reply => {
                self.errors += 1;
                let kind = (record.error_kind)
                    .unwrap_or_else(|| error_kind(record.error.as_deref().unwrap_or_default()));
                *self.errors_by_kind.entry(kind.label()).or_default() += 1;
            }
            None => self.refused += 1,
        }
    }

    /// Whether some record could not be replayed: the taxonomy is not the whole trace's.
    pub fn incomplete(&self) -> bool {
        !self.unreadable.is_empty()
    }
}

/// The taxonomy as text.
pub fn render(t: &Taxonomy) -> String {
    let mut out = String::new();
    for other in &t.other_repositories {
        out.push_str(&format!(
            "note: the trace was written in {other}, not this repository: verdicts are about this code\n"
        ));
    }
    out.push_str(&format!(
        "{} answers, {} replies: {} passed the gate first, {} after the repair, {} refused ({} by the model itself), {} without a reply\n",
        t.records, t.replies, t.passed_first, t.passed_after_repair, t.refused, t.model_refused, t.errors
    ));
    if !t.errors_by_kind.is_empty() {
        out.push_str("errors by kind:\n");
        for (kind, n) in &t.errors_by_kind {
            out.push_str(&format!("  {kind:<20} {n}\n"));
        }
    }
    if !t.violations.is_empty() {
        out.push_str("violations by kind:\n");
        for (rule, n) in &t.violations {
            out.push_str(&format!("  {rule:<20} {n}\n"));
        }
    }
    if t.verdicts_changed > 0 {
        out.push_str(&format!(
            "{} replies get another verdict than when recorded\n",
            t.verdicts_changed
        ));
    }
    for u in &t.unreadable {
        out.push_str(&format!("not replayed: {u}\n"));
    }
    if !t.missing_revisions.is_empty() {
        out.push_str(&format!(
            "revisions not in this repository: {}\n",
            t.missing_revisions.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_ids_read_back() {
        let r = parse_id("src/a:b.rs:3-9@0123456789ab").unwrap();
        assert_eq!(
            (r.path.as_str(), r.lines),
            ("src/a:b.rs", LineRange::new(3, 9))
        );
        assert_eq!(parse_id("a.rs:4@x").unwrap().lines, LineRange::new(4, 4));
        assert!(parse_id("a.rs").is_none());
    }
}
