//! The Python module `citegate._citegate`: `citegate_api` for Python. A `Repo` opened once and
//! shared by threads; `gate` takes an answer as a `dict` (walked into JSON text here, no Python
//! `json` round trip) or as its JSON `str` (checked as received), and checks it with the GIL
//! released. Errors are `citegate.Error` with the command line's messages; input refused (a
//! value too large or nested too deep, a doc path outside the repository) is
//! `citegate.InputError`, a `citegate.Error` and a `ValueError`. A panic inside (a bug) reaches
//! Python as a `citegate.Error` too, never as pyo3's `PanicException`, which `except Exception`
//! does not catch.

use std::path::PathBuf;

use citegate_api::{self as api, Budget};
use citegate_api::Verdict as CoreVerdict;
use citegate_api::Retrieved;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};
use serde_json::{Map, Number, Value};

create_exception!(
    _citegate,
    Error,
    PyException,
    "A call that could not run: the repository or the revision cannot be opened, a retrieval \
     payload or a doc path is wrong. The message is the one `citegate` prints."
);

/// `citegate.InputError`, made when the module is (a subclass of `citegate.Error` and of
/// `ValueError`, which one base in `create_exception!` cannot say).
static INPUT_ERROR: GILOnceCell<Py<PyType>> = GILOnceCell::new();

fn input_error(py: Python<'_>) -> PyResult<Bound<'_, PyType>> {
    let made = INPUT_ERROR.get_or_try_init(py, || {
        let bases = (py.get_type::<Error>(), py.get_type::<PyValueError>());
        let doc = PyDict::new(py);
        doc.set_item(
            "__doc__",
            "Input refused before any work: a value too large or nested too deep, a doc path \
             outside the repository. A citegate.Error and a ValueError.",
        )?;
        doc.set_item("__module__", "citegate")?;
        let made = py.get_type::<PyType>().call1(("InputError", bases, doc))?;
        Ok::<_, PyErr>(made.downcast_into::<PyType>()?.unbind())
    })?;
    Ok(made.bind(py).clone())
}

fn error(e: api::Error) -> PyErr {
    match e.kind {
        api::ErrorKind::Run => Error::new_err(e.message),
        api::ErrorKind::Input => input(e.message),
    }
}

/// `citegate.InputError` with `message`.
fn input(message: String) -> PyErr {
    Python::with_gil(|py| match input_error(py) {
        Ok(kind) => PyErr::from_type(kind, message),
        Err(e) => e,
    })
}

/// `work` with the GIL released, a panic in it (a bug) raised as `citegate.Error`.
fn guarded<T: Send>(py: Python<'_>, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    py.allow_threads(|| api::caught(work)).map_err(error)
}

/// A Python value (`dict`, `list`, `tuple`, `str`, `int`, `float`, `bool`, `None`) as JSON; `at`
/// names where it is, for the error. The walk stops at `citegate gate`'s limits ([`Budget`]:
/// nested deeper than `api::MAX_DEPTH`, or more JSON text than `api::MAX_INPUT_BYTES`), before a
/// list that holds itself could exhaust the stack.
fn to_json(obj: &Bound<'_, PyAny>, at: &str, depth: usize, budget: &mut Budget) -> PyResult<Value> {
    budget.enter(depth, || at.to_string()).map_err(error)?;
    budget.take(8, || at.to_string()).map_err(error)?;
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.downcast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        let text: String = obj.str()?.extract()?;
        let n: Number = serde_json::from_str(&text)
            .map_err(|_| input(format!("{at}: {text} is no JSON number")))?;
        return Ok(Value::Number(n));
    }
    if let Ok(f) = obj.downcast::<PyFloat>() {
        let n = Number::from_f64(f.value())
            .ok_or_else(|| input(format!("{at}: {} is no JSON number", f.value())))?;
        return Ok(Value::Number(n));
    }
    if let Ok(s) = obj.downcast::<PyString>() {
        return text(s, at, budget).map(Value::String);
    }
    if let Ok(d) = obj.downcast::<PyDict>() {
        let mut map = Map::new();
        for (k, v) in d.iter() {
            let Ok(key) = k.downcast::<PyString>() else {
                return Err(PyTypeError::new_err(format!(
                    "{at}: a key is not a str: {k}"
                )));
            };
            let key = text(key, at, budget)?;
            let at = format!("{at}.{}", api::key_shown(&key));
            let value = to_json(&v, &at, depth + 1, budget)?;
            map.insert(key, value);
        }
        return Ok(Value::Object(map));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let items = (obj.try_iter()?.enumerate())
            .map(|(i, v)| to_json(&v?, &format!("{at}[{i}]"), depth + 1, budget))
            .collect::<PyResult<Vec<Value>>>()?;
        return Ok(Value::Array(items));
    }
    let kind = obj.get_type().name()?;
    Err(PyTypeError::new_err(format!("{at}: a {kind} is not JSON")))
}

/// A `str` as Rust text, counted against `budget`; one holding a lone surrogate (which no UTF-8
/// text can) is refused.
fn text(s: &Bound<'_, PyString>, at: &str, budget: &mut Budget) -> PyResult<String> {
    let text = s.to_cow().map_err(|_| {
        input(format!(
            "{at}: a str with a lone surrogate is not valid text"
        ))
    })?;
    budget
        .take(text.len() + 2, || at.to_string())
        .map_err(error)?;
    Ok(text.into_owned())
}

/// A JSON value as a Python one (objects as `dict`, in their order).
fn to_py(py: Python<'_>, value: &Value) -> PyResult<PyObject> {
    Ok(match value {
        Value::Null => py.None(),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any().unbind(),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.into_pyobject(py)?.into_any().unbind(),
            (_, Some(u), _) => u.into_pyobject(py)?.into_any().unbind(),
            _ if !n.to_string().contains(['.', 'e', 'E']) => {
                let int = py.get_type::<PyInt>();
                int.call1((n.to_string(),))?.unbind()
            }
            (_, _, f) => f.unwrap_or(f64::NAN).into_pyobject(py)?.into_any().unbind(),
        },
        Value::String(s) => s.into_pyobject(py)?.into_any().unbind(),
        Value::Array(items) => {
            let items = items
                .iter()
                .map(|v| to_py(py, v))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any().unbind()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_py(py, v)?)?;
            }
            dict.into_any().unbind()
        }
    })
}

/// An answer as its JSON text: a `str` as given (byte for byte, as `citegate gate` reads
/// standard input), else the value written out.
fn answer_text(obj: &Bound<'_, PyAny>, at: &str) -> PyResult<String> {
    let mut budget = Budget::default();
    match obj.downcast::<PyString>() {
        Ok(s) => text(s, at, &mut budget),
        Err(_) => Ok(to_json(obj, at, 0, &mut budget)?.to_string()),
    }
}

/// A retrieval payload: a list of chunks (either seed's keys), a `{"chunks": [...]}` object, or
/// its JSON text.
fn payload(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<Retrieved>>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    let value = match obj.downcast::<PyString>() {
        Ok(s) => serde_json::from_str(&text(s, "retrieved", &mut Budget::default())?)
            .map_err(|e| input(format!("retrieved: invalid JSON: {e}")))?,
        Err(_) => to_json(obj, "retrieved", 0, &mut Budget::default())?,
    };
    api::retrieved(&value).map(Some).map_err(error)
}

/// Why an answer fails the gate: the rule, the message, the citation (`path:start-end`) when
/// the violation is about one.
#[pyclass(frozen, module = "citegate")]
struct Violation {
    #[pyo3(get)]
    rule: String,
    #[pyo3(get)]
    message: String,
    #[pyo3(get)]
    citation: Option<String>,
}

#[pymethods]
impl Violation {
    fn __repr__(&self) -> String {
        let citation = self
            .citation
            .as_deref()
            .map(|c| format!(" at {c}"))
            .unwrap_or_default();
        format!("<Violation {}{}: {}>", self.rule, citation, self.message)
    }
}

/// The gate's verdict on one answer.
#[pyclass(frozen, module = "citegate")]
struct Verdict {
    inner: CoreVerdict,
}

#[pymethods]
impl Verdict {
    /// Whether the answer may leave: none of its citations is invented, unsupported or stale,
    /// and each lies in the retrieval payload.
    #[getter]
    fn passed(&self) -> bool {
        self.inner.passed
    }

    /// `"retrieval"` (cited ⊆ retrieved was checked) or `"code-only"` (`no_retrieval=True`).
    #[getter]
    fn fidelity(&self) -> &'static str {
        self.inner.fidelity
    }

    /// Why it failed (empty when it passed).
    #[getter]
    fn violations(&self) -> Vec<Violation> {
        (self.inner.violations.iter())
            .map(|v| Violation {
                rule: v.rule.as_str().to_string(),
                message: v.message.clone(),
                citation: v.citation.clone(),
            })
            .collect()
    }

    /// What to return instead of the answer (`None` when it passed): the refusal
    /// `citegate gate` prints, with the violations.
    #[getter]
    fn refusal(&self, py: Python<'_>) -> PyResult<PyObject> {
        match &self.inner.refusal {
            Some(r) => to_py(py, r),
            None => Ok(py.None()),
        }
    }

    /// The verdict as a `dict`: `passed`, `fidelity`, `violations`, `refusal`.
    fn to_dict(&self, py: Python<'_>) -> PyResult<PyObject> {
        to_py(py, &self.inner.to_value())
    }

    fn __bool__(&self) -> bool {
        self.inner.passed
    }

    fn __repr__(&self) -> String {
        let rules: Vec<&str> = self
            .inner
            .violations
            .iter()
            .map(|v| v.rule.as_str())
            .collect();
        match self.inner.passed {
            true => format!("<Verdict passed ({})>", self.inner.fidelity),
            false => format!("<Verdict refused: {}>", rules.join(", ")),
        }
    }
}

/// A repository opened at a target, with its `.citegate.yaml`: open it once, share it.
#[pyclass(frozen, module = "citegate")]
struct Repo {
    inner: api::Repo,
}

#[pymethods]
impl Repo {
    #[new]
    #[pyo3(signature = (path = PathBuf::from("."), target = None))]
    fn new(py: Python<'_>, path: PathBuf, target: Option<String>) -> PyResult<Repo> {
        let inner = guarded(py, || api::Repo::open(&path, target.as_deref()))?.map_err(error)?;
        Ok(Repo { inner })
    }

    /// The commit answers are checked at.
    #[getter]
    fn revision(&self) -> String {
        self.inner.revision()
    }

    #[pyo3(signature = (answer, retrieved = None, no_retrieval = false))]
    fn gate(
        &self,
        py: Python<'_>,
        answer: &Bound<'_, PyAny>,
        retrieved: Option<&Bound<'_, PyAny>>,
        no_retrieval: bool,
    ) -> PyResult<Verdict> {
        let text = answer_text(answer, "answer")?;
        let payload = payload(retrieved)?;
        let repo = &self.inner;
        let inner = guarded(py, || repo.gate(&text, payload.as_deref(), no_retrieval))?;
        Ok(Verdict {
            inner: inner.map_err(error)?,
        })
    }

    #[pyo3(signature = (answers, retrieved = None, no_retrieval = false))]
    fn gate_many(
        &self,
        py: Python<'_>,
        answers: &Bound<'_, PyAny>,
        retrieved: Option<&Bound<'_, PyAny>>,
        no_retrieval: bool,
    ) -> PyResult<Vec<Verdict>> {
        let texts = (answers.try_iter()?.enumerate())
            .map(|(i, a)| answer_text(&a?, &format!("answers[{i}]")))
            .collect::<PyResult<Vec<String>>>()?;
        let payload = payload(retrieved)?;
        let repo = &self.inner;
        let verdicts = guarded(py, || {
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            repo.gate_many(&texts, payload.as_deref(), no_retrieval)
        })?
        .map_err(error)?;
        Ok(verdicts
            .into_iter()
            .map(|inner| Verdict { inner })
            .collect())
    }

    #[pyo3(signature = (paths = Vec::new()))]
    fn audit(&self, py: Python<'_>, paths: Vec<PathBuf>) -> PyResult<PyObject> {
        let repo = &self.inner;
        let text = guarded(py, || repo.audit_json(&paths))?.map_err(error)?;
        let value: Value =
            serde_json::from_str(&text).map_err(|e| Error::new_err(format!("the report: {e}")))?;
        to_py(py, &value)
    }

    #[pyo3(signature = (paths = Vec::new()))]
    fn audit_lines(&self, py: Python<'_>, paths: Vec<PathBuf>) -> PyResult<PyObject> {
        let repo = &self.inner;
        let lines = guarded(py, || repo.audit_lines(&paths))?.map_err(error)?;
        let value = serde_json::to_value(lines).map_err(|e| Error::new_err(e.to_string()))?;
        to_py(py, &value)
    }

    #[pyo3(signature = (quote, path = None))]
    fn cite(&self, py: Python<'_>, quote: String, path: Option<String>) -> PyResult<PyObject> {
        let repo = &self.inner;
        let found = guarded(py, || repo.cite(&quote, path.as_deref()))?.map_err(error)?;
        to_py(py, &found)
    }

    fn __repr__(&self) -> String {
        format!("<citegate.Repo at {}>", self.inner.revision())
    }
}

/// Panic inside the library with `message`: how the tests show that a panic (a bug) reaches
/// Python as `citegate.Error`. Not part of the API.
#[pyfunction]
fn _panic(py: Python<'_>, message: String) -> PyResult<()> {
    guarded(py, || -> () { panic!("{message}") })
}

#[pymodule]
fn _citegate(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Repo>()?;
    m.add_class::<Verdict>()?;
    m.add_class::<Violation>()?;
    m.add("Error", m.py().get_type::<Error>())?;
    m.add("InputError", input_error(m.py())?)?;
    m.add_function(wrap_pyfunction!(_panic, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
