//! The Node addon behind the npm package `citegate`: `citegate::api` for JavaScript. A `Repo`
//! opened once; `gate`, `gateMany`, `audit` and `cite` return promises whose work runs on libuv's
//! thread pool (`AsyncTask`), off the event loop. An answer is an object (read into JSON on the
//! calling thread) or its JSON string (checked as received, as `citegate gate` reads it).
//! Errors reject with the command line's messages.

use std::sync::Arc;

use citegate::api;
use citegate::model::Retrieved;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;

/// Some work for the thread pool, and what it resolves to.
pub struct Job<T: ToNapiValue + TypeName + Send + 'static> {
    work: Option<Box<dyn FnOnce() -> std::result::Result<T, String> + Send>>,
}

impl<T: ToNapiValue + TypeName + Send + 'static> Job<T> {
    fn new(work: impl FnOnce() -> std::result::Result<T, String> + Send + 'static) -> Self {
        Job {
            work: Some(Box::new(work)),
        }
    }
}

impl<T: ToNapiValue + TypeName + Send + 'static> Task for Job<T> {
    type Output = T;
    type JsValue = T;

    fn compute(&mut self) -> Result<T> {
        let work = self
            .work
            .take()
            .ok_or_else(|| failure("the task ran twice".into()))?;
        work().map_err(failure)
    }

    fn resolve(&mut self, _: Env, output: T) -> Result<T> {
        Ok(output)
    }
}

/// A JSON value handed to JavaScript (a report, `cite`'s places): objects, arrays, numbers as
/// Node-API makes them from `serde_json`'s.
pub struct Json(Value);

impl TypeName for Json {
    fn type_name() -> &'static str {
        "Object"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for Json {
    unsafe fn to_napi_value(env: napi::sys::napi_env, json: Self) -> Result<napi::sys::napi_value> {
        // SAFETY: the same `env` Node-API handed us, passed on to serde_json's conversion.
        unsafe { Value::to_napi_value(env, json.0) }
    }
}

fn failure(message: String) -> Error {
    Error::new(Status::GenericFailure, message)
}

/// Why an answer fails the gate.
#[napi(object)]
pub struct Violation {
    /// The rule that failed it: `invented-path`, `unsupported-quote`, `not-retrieved`…
    pub rule: String,
    pub message: String,
    /// `path:start-end` when the violation is about one citation.
    pub citation: Option<String>,
}

/// The gate's verdict on one answer.
#[napi(object)]
pub struct Verdict {
    /// Whether the answer may leave.
    pub passed: bool,
    /// `"retrieval"` (cited ⊆ retrieved was checked) or `"code-only"` (`noRetrieval`).
    #[napi(ts_type = "'retrieval' | 'code-only'")]
    pub fidelity: String,
    /// Why it failed (empty when it passed).
    pub violations: Vec<Violation>,
    /// What to return instead of the answer (`null` when it passed): the refusal
    /// `citegate gate` prints, with the violations.
    #[napi(ts_type = "Record<string, unknown> | null")]
    pub refusal: Value,
}

impl From<citegate::gate::service::Verdict> for Verdict {
    fn from(v: citegate::gate::service::Verdict) -> Verdict {
        Verdict {
            passed: v.passed,
            fidelity: v.fidelity.to_string(),
            violations: (v.violations.into_iter())
                .map(|v| Violation {
                    rule: v.rule.as_str().to_string(),
                    message: v.message,
                    citation: v.citation,
                })
                .collect(),
            refusal: v.refusal.unwrap_or(Value::Null),
        }
    }
}

/// How an answer is checked.
#[napi(object)]
pub struct GateOptions {
    /// The retrieved chunks (`[{path, start_line, end_line, text?}]`, either seed's keys, or
    /// `{chunks: [...]}`); without them, the answer's own `retrieved` payload.
    #[napi(ts_type = "Array<Record<string, unknown>> | Record<string, unknown> | string")]
    pub retrieved: Option<Value>,
    /// Check an answer without a payload against the code alone (`--no-retrieval`).
    pub no_retrieval: Option<bool>,
}

/// An answer as its JSON text: a string as given, else the object written out.
fn text_of(answer: Value) -> String {
    match answer {
        Value::String(text) => text,
        other => other.to_string(),
    }
}

/// What the options say: the payload's value (read on the thread pool by [`payload`]) and
/// whether none is required.
fn read(options: Option<GateOptions>) -> (Option<Value>, bool) {
    match options {
        None => (None, false),
        Some(o) => (o.retrieved, o.no_retrieval.unwrap_or(false)),
    }
}

/// The retrieval payload given as a value, or as its JSON text.
fn payload(value: Option<Value>) -> std::result::Result<Option<Vec<Retrieved>>, String> {
    let value = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(text)) => {
            serde_json::from_str(&text).map_err(|e| format!("retrieved: invalid JSON: {e}"))?
        }
        Some(value) => value,
    };
    api::retrieved(&value).map(Some).map_err(|e| e.0)
}

/// A repository opened at a target with its `.citegate.yaml`: open it once, share it.
#[napi]
pub struct Repo {
    inner: Arc<api::Repo>,
}

#[napi]
impl Repo {
    /// Open the repository holding `path` (default `.`) at `target` (a revision; default: the
    /// configuration's target, else `HEAD`). Throws with the message `citegate` prints.
    #[napi(constructor)]
    pub fn new(path: Option<String>, target: Option<String>) -> Result<Self> {
        let path = path.unwrap_or_else(|| ".".into());
        let inner = api::Repo::open(path.as_ref(), target.as_deref()).map_err(|e| failure(e.0))?;
        Ok(Repo {
            inner: Arc::new(inner),
        })
    }

    /// The commit answers are checked at.
    #[napi(getter)]
    pub fn revision(&self) -> String {
        self.inner.revision()
    }

    /// `citegate gate`: checked against `options.retrieved` when given, else the answer's own
    /// `retrieved` payload, which is required unless `options.noRetrieval`.
    #[napi(
        ts_args_type = "answer: Record<string, unknown> | string, options?: GateOptions",
        ts_return_type = "Promise<Verdict>"
    )]
    pub fn gate(&self, answer: Value, options: Option<GateOptions>) -> AsyncTask<Job<Verdict>> {
        let (retrieved, no_retrieval) = read(options);
        let (repo, text) = (self.inner.clone(), text_of(answer));
        AsyncTask::new(Job::new(move || {
            let payload = payload(retrieved)?;
            Ok(repo.gate(&text, payload.as_deref(), no_retrieval).into())
        }))
    }

    /// `gate` on many answers checked together (as `gate --jsonl` checks a batch).
    #[napi(
        ts_args_type = "answers: Array<Record<string, unknown> | string>, options?: GateOptions",
        ts_return_type = "Promise<Verdict[]>"
    )]
    pub fn gate_many(
        &self,
        answers: Vec<Value>,
        options: Option<GateOptions>,
    ) -> AsyncTask<Job<Vec<Verdict>>> {
        let (retrieved, no_retrieval) = read(options);
        let repo = self.inner.clone();
        let texts: Vec<String> = answers.into_iter().map(text_of).collect();
        AsyncTask::new(Job::new(move || {
            let payload = payload(retrieved)?;
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            let verdicts = repo.gate_many(&texts, payload.as_deref(), no_retrieval);
            Ok(verdicts.into_iter().map(Verdict::from).collect())
        }))
    }

    /// `citegate audit --format json` on `paths` (relative to the folder opened; none: all of
    /// it).
    #[napi(ts_return_type = "Promise<Record<string, unknown>>")]
    pub fn audit(&self, paths: Option<Vec<String>>) -> AsyncTask<Job<Json>> {
        let repo = self.inner.clone();
        let paths: Vec<std::path::PathBuf> = paths
            .unwrap_or_default()
            .into_iter()
            .map(Into::into)
            .collect();
        AsyncTask::new(Job::new(move || {
            let text = repo.audit_json(&paths).map_err(|e| e.0)?;
            let report = serde_json::from_str(&text).map_err(|e| format!("the report: {e}"))?;
            Ok(Json(report))
        }))
    }

    /// Where `quote` occurs at the target, in `path` or every text file.
    #[napi(
        ts_return_type = "Promise<{ revision: string; count: number; places: Array<{ citation: string; path: string; start_line: number; end_line: number }>; stopped?: string }>"
    )]
    pub fn cite(&self, quote: String, path: Option<String>) -> AsyncTask<Job<Json>> {
        let repo = self.inner.clone();
        AsyncTask::new(Job::new(move || {
            repo.cite(&quote, path.as_deref())
                .map(Json)
                .map_err(|e| e.0)
        }))
    }
}
