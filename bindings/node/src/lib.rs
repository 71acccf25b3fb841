//! The Node addon behind the npm package `citegate`: `citegate_api` for JavaScript. A `Repo`
//! opened once; `gate`, `gateMany`, `audit` and `cite` return promises whose work runs on libuv's
//! thread pool (`AsyncTask`), off the event loop. An answer is an object (walked into JSON on the
//! calling thread, within `citegate gate`'s limits: see [`Walk`]) or its JSON string (checked as
//! received, as `citegate gate` reads it). Errors reject with the command line's messages; an
//! input refused (too large, nested too deep, not JSON, a doc path outside the repository) has
//! the `code` `InvalidArg`, a call that could not run `GenericFailure`.

use std::sync::Arc;

use citegate_api::{self as api, Budget};
use citegate_api::Retrieved;
use napi::bindgen_prelude::*;
use napi::{JsBoolean, JsNumber, JsObject, JsString, JsUnknown};
use napi_derive::napi;
use serde_json::{Map, Number, Value};

/// Some work for the thread pool, and what it resolves to.
pub struct Job<T: ToNapiValue + TypeName + Send + 'static> {
    work: Option<Box<dyn FnOnce() -> std::result::Result<T, api::Error> + Send>>,
}

impl<T: ToNapiValue + TypeName + Send + 'static> Job<T> {
    fn new(work: impl FnOnce() -> std::result::Result<T, api::Error> + Send + 'static) -> Self {
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
            .ok_or_else(|| failure(api::Error::input("the task ran twice")))?;
        // A panic (a bug) is a rejection: one that reached Node-API's C boundary would abort.
        api::caught(work).and_then(|r| r).map_err(failure)
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

/// The doc paths given to `audit` or `auditLines` (none: the folder opened).
fn doc_paths(paths: Option<Vec<String>>) -> Vec<std::path::PathBuf> {
    paths
        .unwrap_or_default()
        .into_iter()
        .map(Into::into)
        .collect()
}

/// A JavaScript error for `e`: `code` `InvalidArg` for input refused, else `GenericFailure`.
fn failure(e: api::Error) -> Error {
    let status = match e.kind {
        api::ErrorKind::Input => Status::InvalidArg,
        api::ErrorKind::Run => Status::GenericFailure,
    };
    Error::new(status, e.message)
}

/// A JavaScript value walked into JSON as `JSON.stringify` would write it (object keys in their
/// order, `undefined` and functions left out of objects and `null` in arrays, integers as
/// integers), within [`api::MAX_DEPTH`] and [`api::MAX_INPUT_BYTES`]: a body nested 20,000 deep,
/// or an object that refers to itself, is refused with where it went too deep, before the
/// conversion could overflow the event loop's stack. `at` names where the walk is, for errors.
struct Walk {
    budget: Budget,
    at: String,
}

type Walked<T> = std::result::Result<T, api::Error>;

impl Walk {
    /// `value` (the caller's `what`) as JSON.
    fn json(value: JsUnknown, what: &str) -> Walked<Value> {
        let mut walk = Walk {
            budget: Budget::default(),
            at: what.to_string(),
        };
        walk.value(value, 0)?
            .ok_or_else(|| walk.refused("undefined"))
    }

    fn refused(&self, what: &str) -> api::Error {
        api::Error::input(format!("{}: {what} is not JSON", self.at))
    }

    /// What Node-API answered, its error named where the walk is.
    fn host<T>(&self, answer: Result<T>) -> Walked<T> {
        answer.map_err(|e| api::Error::input(format!("{}: {}", self.at, e.reason)))
    }

    /// Room for `bytes` more of JSON text.
    fn take(&mut self, bytes: usize) -> Walked<()> {
        let at = &self.at;
        self.budget.take(bytes, || at.clone())
    }

    /// The value, or `None` where `JSON.stringify` writes nothing (`undefined`, a function, a
    /// symbol).
    fn value(&mut self, v: JsUnknown, depth: usize) -> Walked<Option<Value>> {
        self.budget.enter(depth, || self.at.clone())?;
        // SAFETY (each `cast`): the value's type was just asked of Node-API.
        let value = match self.host(v.get_type())? {
            ValueType::Undefined | ValueType::Function | ValueType::Symbol => return Ok(None),
            ValueType::Null => Value::Null,
            ValueType::Boolean => {
                Value::Bool(self.host(unsafe { v.cast::<JsBoolean>() }.get_value())?)
            }
            ValueType::Number => Value::Number(self.number(unsafe { v.cast::<JsNumber>() })?),
            ValueType::String => Value::String(self.text(unsafe { v.cast::<JsString>() })?),
            ValueType::Object => self.object(unsafe { v.cast::<JsObject>() }, depth)?,
            // A BigInt (`JSON.stringify` throws on one too), an external.
            _ => return Err(self.refused("this value")),
        };
        Ok(Some(value))
    }

    fn number(&mut self, n: JsNumber) -> Walked<Number> {
        let f = self.host(n.get_double())?;
        self.take(24)?;
        // An integer that JavaScript holds exactly (|n| < 2^53) is written without a fraction.
        if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 {
            return Ok(Number::from(f as i64));
        }
        Number::from_f64(f).ok_or_else(|| self.refused(&f.to_string()))
    }

    /// A string, its length counted before it is copied out of JavaScript.
    fn text(&mut self, s: JsString) -> Walked<String> {
        self.take(self.host(s.utf8_len())? + 2)?;
        self.host(s.into_utf8().and_then(|t| t.into_owned()))
    }

    fn object(&mut self, o: JsObject, depth: usize) -> Walked<Value> {
        let len = self.at.len();
        if self.host(o.is_array())? {
            let mut items = Vec::new();
            for i in 0..self.host(o.get_array_length())? {
                self.at.push_str(&format!("[{i}]"));
                self.take(1)?;
                let item = self.host(o.get_element::<JsUnknown>(i))?;
                items.push(self.value(item, depth + 1)?.unwrap_or(Value::Null));
                self.at.truncate(len);
            }
            return Ok(Value::Array(items));
        }
        let names = self.host(o.get_property_names())?;
        let mut map = Map::new();
        for i in 0..self.host(names.get_array_length())? {
            let key = self.host(names.get_element::<JsString>(i))?;
            let key = self.text(key)?;
            self.at.push('.');
            self.at.push_str(&api::key_shown(&key));
            let item = self.host(o.get_named_property::<JsUnknown>(&key))?;
            if let Some(value) = self.value(item, depth + 1)? {
                map.insert(key, value);
            }
            self.at.truncate(len);
        }
        Ok(Value::Object(map))
    }
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

impl From<citegate_api::Verdict> for Verdict {
    fn from(v: citegate_api::Verdict) -> Verdict {
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
    pub retrieved: Option<JsUnknown>,
    /// Check an answer without a payload against the code alone (`--no-retrieval`).
    pub no_retrieval: Option<bool>,
}

/// An answer as its JSON text: a string as given, else the value walked into JSON (`what` names
/// it in errors).
fn text_of(answer: JsUnknown, what: &str) -> Walked<String> {
    match Walk::json(answer, what)? {
        Value::String(text) => Ok(text),
        other => Ok(other.to_string()),
    }
}

/// The answers of an array, each as its JSON text.
fn texts_of(answers: JsUnknown) -> Walked<Vec<String>> {
    let walk = Walk {
        budget: Budget::default(),
        at: "answers".into(),
    };
    // SAFETY: the value's type is asked of Node-API before it is read as an object.
    let list = match walk.host(answers.get_type())? {
        ValueType::Object => unsafe { answers.cast::<JsObject>() },
        _ => return Err(walk.refused("a value other than an array")),
    };
    if !walk.host(list.is_array())? {
        return Err(walk.refused("an object other than an array"));
    }
    (0..walk.host(list.get_array_length())?)
        .map(|i| {
            text_of(
                walk.host(list.get_element::<JsUnknown>(i))?,
                &format!("answers[{i}]"),
            )
        })
        .collect()
}

/// What the options say: the payload (read here, on the calling thread) and whether none is
/// required.
fn read(options: Option<GateOptions>) -> (Walked<Option<Vec<Retrieved>>>, bool) {
    match options {
        None => (Ok(None), false),
        Some(o) => {
            let payload = o.retrieved.map(payload).transpose().map(Option::flatten);
            (payload, o.no_retrieval.unwrap_or(false))
        }
    }
}

/// The retrieval payload given as a value, or as its JSON text.
fn payload(value: JsUnknown) -> Walked<Option<Vec<Retrieved>>> {
    if matches!(value.get_type(), Ok(ValueType::Undefined | ValueType::Null)) {
        return Ok(None);
    }
    let value = match Walk::json(value, "retrieved")? {
        Value::String(text) => serde_json::from_str(&text)
            .map_err(|e| api::Error::input(format!("retrieved: invalid JSON: {e}")))?,
        value => value,
    };
    api::retrieved(&value).map(Some)
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
        let inner = api::Repo::open(path.as_ref(), target.as_deref()).map_err(failure)?;
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
    pub fn gate(&self, answer: JsUnknown, options: Option<GateOptions>) -> AsyncTask<Job<Verdict>> {
        let (payload, no_retrieval) = read(options);
        let (repo, text) = (self.inner.clone(), text_of(answer, "answer"));
        AsyncTask::new(Job::new(move || {
            let (text, payload) = (text?, payload?);
            Ok(repo.gate(&text, payload.as_deref(), no_retrieval)?.into())
        }))
    }

    /// `gate` on many answers checked together (as `gate --jsonl` checks a batch).
    #[napi(
        ts_args_type = "answers: Array<Record<string, unknown> | string>, options?: GateOptions",
        ts_return_type = "Promise<Verdict[]>"
    )]
    pub fn gate_many(
        &self,
        answers: JsUnknown,
        options: Option<GateOptions>,
    ) -> AsyncTask<Job<Vec<Verdict>>> {
        let (payload, no_retrieval) = read(options);
        let (repo, texts) = (self.inner.clone(), texts_of(answers));
        AsyncTask::new(Job::new(move || {
            let (texts, payload) = (texts?, payload?);
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            let verdicts = repo.gate_many(&texts, payload.as_deref(), no_retrieval)?;
            Ok(verdicts.into_iter().map(Verdict::from).collect())
        }))
    }

    /// `citegate audit --format json` on `paths` (relative to the folder opened; none: all of
    /// it).
    #[napi(ts_return_type = "Promise<Record<string, unknown>>")]
    pub fn audit(&self, paths: Option<Vec<String>>) -> AsyncTask<Job<Json>> {
        let (repo, paths) = (self.inner.clone(), doc_paths(paths));
        AsyncTask::new(Job::new(move || {
            let text = repo.audit_json(&paths)?;
            let report = serde_json::from_str(&text)
                .map_err(|e| api::Error::run(format!("the report: {e}")))?;
            Ok(Json(report))
        }))
    }

    /// The findings of `audit(paths)` that count, each as a site build logs it: `{doc, line,
    /// column, rule, severity, text}`, `text` being `doc:line:column: rule: message`.
    #[napi(
        ts_return_type = "Promise<Array<{ doc: string; line: number; column: number; rule: string; severity: 'error' | 'warning' | 'note'; text: string }>>"
    )]
    pub fn audit_lines(&self, paths: Option<Vec<String>>) -> AsyncTask<Job<Json>> {
        let (repo, paths) = (self.inner.clone(), doc_paths(paths));
        AsyncTask::new(Job::new(move || {
            let lines = repo.audit_lines(&paths)?;
            let value = serde_json::to_value(lines)
                .map_err(|e| api::Error::run(format!("the findings: {e}")))?;
            Ok(Json(value))
        }))
    }

    /// Where `quote` occurs at the target, in `path` or every text file.
    #[napi(
        ts_return_type = "Promise<{ revision: string; count: number; places: Array<{ citation: string; path: string; start_line: number; end_line: number }>; stopped?: string }>"
    )]
    pub fn cite(&self, quote: String, path: Option<String>) -> AsyncTask<Job<Json>> {
        let repo = self.inner.clone();
        AsyncTask::new(Job::new(move || {
            repo.cite(&quote, path.as_deref()).map(Json)
        }))
    }
}
