//! Asking the model for what offline re-grounding could not do: one turn with the question and
//! the retrieved CONTEXT, the gate on its reply (at the target, cited ⊆ retrieved), exactly one
//! repair turn listing the violations, then the answer is refused. Nothing that failed the gate
//! comes out of here.

use rayon::prelude::*;
use serde_json::Value;

use super::offline::{Ctx, Pending, Work};
use super::outcome::{Decision, Outcome, Place, Reason};
use super::prompt::{self, ContextChunk, Contract};
use super::trace::{self, Attempt, Record};
use citegate_engine::contract::{self, RefusalReason};
use citegate_engine::gate::reply;
use citegate_engine::gate::{self, Violation};
use citegate_engine::model::Retrieved;
use citegate_engine::resolve::CodeRepo;
use citegate_engine::retrieve::Index;
use citegate_llm::{CallError, ChatModel, Message, Role};

/// What asking the model gave: a reply that passed the gate (if any), its cost and its trace.
pub struct Asked {
    pub answer: Option<Value>,
    pub calls: usize,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub record: Record,
}

/// One thing to ask the model about: a JSON answer, or a Markdown paragraph.
pub struct Question {
    pub doc: String,
    pub subject: reply::Subject,
    /// The answer's index in its doc, or the paragraph's first line.
    pub index: usize,
    pub contract: Contract,
    /// The question (for a paragraph, its text).
    pub text: String,
    pub chunks: Vec<ContextChunk>,
    /// `path:start-end@tree` of each chunk, for the trace.
    pub chunk_ids: Vec<String>,
    /// The chunks as the payload every citation must lie in.
    pub retrieved: Vec<Retrieved>,
}

impl Question {
    /// CONTEXT for `chunks` (indices into `index`), read at the index's commit.
    pub fn context(&mut self, repo: &CodeRepo, index: &Index, chunks: &[usize]) {
        self.chunks = chunks
            .iter()
            .map(|&c| {
                let chunk = &index.chunks[c];
                ContextChunk {
                    path: chunk.path.clone(),
                    start: chunk.start,
                    end: chunk.end,
                    text: index.text(repo, c).unwrap_or_default(),
                }
            })
            .collect();
        self.chunk_ids = chunks.iter().map(|&c| index.id(c)).collect();
    }
}

/// Ask once, gate the reply, repair once, gate again.
pub fn ask(client: &dyn ChatModel, gate: &gate::Gate, q: &Question) -> Asked {
    let target = gate.target;
    let system = prompt::system(q.contract, &target.to_string());
    let user = prompt::user(q.contract, &q.text, &q.chunks);
    let format = prompt::response_format(q.contract);
    let mut record = Record {
        trace_id: prompt::hash(&[&q.doc, &q.index.to_string(), &target.to_string()]),
        doc: q.doc.clone(),
        subject: q.subject,
        answer: q.index,
        revision: target.to_string(),
        query: q.text.clone(),
        retrieved: q.chunk_ids.clone(),
        model: client.model().to_string(),
        prompt_hash: prompt::hash(&[&system, &user]),
        attempts: Vec::new(),
        outcome: trace::Ended::Refused,
        error: None,
        error_kind: None,
        repository: trace::repository_name(gate.repo),
    };
    let mut asked = Asked {
        answer: None,
        calls: 0,
        prompt_tokens: 0,
        completion_tokens: 0,
        record: record.clone(),
    };
    let mut messages = vec![
        Message::new(Role::System, system),
        Message::new(Role::User, user),
    ];
    for repair in [false, true] {
        let reply = match client.chat(&messages, &format) {
            Ok(r) => r,
            Err(CallError {
                message,
                kind,
                requests,
                ..
            }) => {
                asked.calls += requests;
                record.outcome = trace::Ended::Error;
                record.error = Some(message);
                record.error_kind = Some(kind);
                break;
            }
        };
        asked.calls += reply.requests;
        asked.prompt_tokens += reply.prompt_tokens;
        asked.completion_tokens += reply.completion_tokens;
        let violations = reply::check_reply(
            gate,
            q.subject,
            &q.doc,
            &reply.content,
            &q.retrieved,
            &q.text,
        );
        let passed = violations.is_empty();
        record.attempts.push(Attempt {
            repair,
            raw: reply.content.clone(),
            passed,
            violations: violations.clone(),
        });
        if passed {
            let value: Value =
                serde_json::from_str(reply::unwrap_reply(&reply.content)).unwrap_or(Value::Null);
            if !reply::declines(&value) {
                record.outcome = trace::Ended::Regrounded;
                asked.answer = Some(value);
            }
            break;
        }
        if repair {
            break;
        }
        // The system message is restated on the repair turn too: it is the first message.
        messages.push(Message::new(Role::Assistant, reply.content.clone()));
        messages.push(Message::new(Role::User, prompt::repair(&violations)));
    }
    asked.record = record;
    asked
}

/// The violations of the last reply, for the outcome.
pub fn last_violations(record: &Record) -> Vec<Violation> {
    record
        .attempts
        .last()
        .map(|a| a.violations.clone())
        .unwrap_or_default()
}

/// What the model stage cost, and its traces.
#[derive(Debug, Default)]
pub struct Spent {
    pub calls: usize,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub records: Vec<Record>,
}

impl Spent {
    /// Count what one exchange cost.
    pub fn charge(&mut self, a: &Asked) {
        self.calls += a.calls;
        self.prompt_tokens += a.prompt_tokens;
        self.completion_tokens += a.completion_tokens;
    }

    pub fn add(&mut self, other: Spent) {
        self.calls += other.calls;
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.records.extend(other.records);
    }
}

/// Ask the model about every answer offline re-grounding refused (in whole or in part), at most
/// `concurrency` at a time, and merge each reply that passed the gate into its answer.
pub fn stage(
    client: &dyn ChatModel,
    ctx: &Ctx,
    index: &Index,
    work: &mut [Work],
    concurrency: usize,
) -> Spent {
    let asks: Vec<usize> = (0..work.len()).filter(|&i| work[i].refused()).collect();
    let ask_one = |&i: &usize| {
        let p = &work[i].pending;
        let mut q = Question {
            doc: p.name.clone(),
            subject: reply::Subject::Answer,
            index: p.answer.index(),
            contract: Contract::of(&p.value),
            text: prompt::question(&p.value),
            chunks: Vec::new(),
            chunk_ids: Vec::new(),
            retrieved: p.retrieved.clone(),
        };
        q.context(ctx.repo, index, &p.chunks);
        (i, ask(client, ctx.gate, &q))
    };
    let asked = limited(concurrency, &asks, ask_one);
    let mut spent = Spent::default();
    for (i, a) in asked {
        spent.charge(&a);
        let w = &mut work[i];
        if let Some(reply) = &a.answer {
            merge(ctx, &w.pending, reply, (&mut w.value, &mut w.outcomes));
        } else {
            for o in w.outcomes.iter_mut() {
                let Decision::Refused(r) = &mut o.decision else {
                    continue;
                };
                r.reason = Reason::NoSpanInRetrieval;
                r.violations = last_violations(&a.record);
                if let Some(e) = &a.record.error {
                    r.why = format!("the model gave no answer: {e}");
                }
            }
            retitle(&mut w.value);
        }
        spent.records.push(a.record);
    }
    spent
}

/// `f` over `items`, at most `concurrency` at a time, in the order given.
pub fn limited<T: Sync, R: Send>(
    concurrency: usize,
    items: &[T],
    f: impl Fn(&T) -> R + Sync + Send,
) -> Vec<R> {
    match rayon::ThreadPoolBuilder::new()
        .num_threads(concurrency.max(1))
        .build()
    {
        Ok(pool) => pool.install(|| items.par_iter().map(&f).collect()),
        Err(_) => items.iter().map(f).collect(),
    }
}

/// A refusal after the model also failed: the reason is the seeds' `no_span_in_retrieval`.
fn retitle(value: &mut Value) {
    if let Some(r) = value.pointer_mut("/refuse/reason") {
        *r = Value::String(RefusalReason::NoSpanInRetrieval.as_str().into());
    }
}

/// Merge a reply that passed the gate: a `{summary, citations}` answer takes the reply's summary
/// and citations; a `{summary, claims}` answer keeps its grounded claims and gains the reply's
/// claims and open questions (its ungrounded claims stay in `open_questions`). The merged answer
/// is gated once more; if it fails, the offline result stands.
fn merge(ctx: &Ctx, p: &Pending, reply: &Value, result: (&mut Value, &mut Vec<Outcome>)) {
    let contract = prompt::Contract::of(&p.value);
    let (merged, cited) = match contract {
        prompt::Contract::Citations => {
            let mut v = p.at_target(ctx);
            if let Some(o) = v.as_object_mut() {
                for key in ["summary", "citations"] {
                    o.insert(key.into(), reply.get(key).cloned().unwrap_or(Value::Null));
                }
                o.shift_remove("refuse");
                o.shift_remove("stale");
                // The new answer's record of what its model saw: the chunks it was given.
                if o.contains_key("retrieved") {
                    o.insert("retrieved".into(), contract::payload_value(&p.retrieved));
                }
            }
            (v, reply_list(reply, "citations"))
        }
        _ => {
            let mut v = result.0.clone();
            let new = reply_list(reply, "claims");
            // The kept claims came from the old chunks, the new ones from these: both recorded.
            if let Some(list) = v.get_mut("retrieved").and_then(Value::as_array_mut) {
                list.extend(
                    contract::payload_value(&p.retrieved)
                        .as_array()
                        .into_iter()
                        .flatten()
                        .cloned(),
                );
            }
            for (key, add) in [
                ("claims", &new),
                ("open_questions", &reply_list(reply, "open_questions")),
            ] {
                if let Some(list) = v.get_mut(key).and_then(Value::as_array_mut) {
                    list.extend(add.iter().cloned());
                }
            }
            (v, new)
        }
    };
    if !ctx
        .gate
        .check(&p.name, &merged, gate::Retrieval::Given(&p.retrieved))
        .is_empty()
    {
        return;
    }
    let model = Some(cited.iter().map(citegate_engine::contract::cited).collect());
    let at = Place::answer(&p.name, p.answer.index());
    let mut o = Outcome::new(
        at,
        Decision::Regrounded {
            moved: Vec::new(),
            model,
        },
    );
    match contract {
        // The model's answer replaces the refused one: it accounts for the same findings.
        prompt::Contract::Citations => {
            o.findings = result.1.iter().flat_map(|x| x.findings.clone()).collect();
            *result.1 = vec![o];
        }
        _ => result.1.push(o),
    }
    *result.0 = merged;
}

fn reply_list(reply: &Value, key: &str) -> Vec<Value> {
    reply
        .get(key)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}
