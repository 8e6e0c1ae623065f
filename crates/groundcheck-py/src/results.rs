//! The typed results Python callers read: `Report`, `RunReport`, `Summary`, `Verdict`,
//! `RefReport` and `Nearest`, immutable, each with `to_json()` and `to_dict()` in the report
//! schema and a `__repr__`.
//!
//! They are views of the core's report, not copies: a `Verdict` inside a `Report` points at
//! the report it belongs to, and a field becomes a Python object only when it is read. So a
//! call returns as soon as the engine is done, and a caller who reads only `status` pays for
//! nothing else. JSON is written by the core's own serializer, so `Report.to_json()` is byte
//! for byte what `groundcheck verify --format json` prints.

use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

use groundcheck_core as core;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

use crate::errors::guard;
use crate::json::classes;

/// Where a verdict lives: on its own (`verify_invocation`), or inside a report, shared.
#[derive(Clone)]
enum Held {
    One(Arc<core::Verdict>),
    InReport(Arc<core::Report>, usize, usize),
}

impl Held {
    fn get(&self) -> &core::Verdict {
        match self {
            Held::One(verdict) => verdict,
            Held::InReport(report, run, i) => &report.runs[*run].invocations[*i],
        }
    }
}

/// `value` parsed by Python's `json` module: the report schema as plain Python values.
fn loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

/// Python's `repr` of a string (`'x'`), for `__repr__`s written in Rust.
fn quoted(py: Python<'_>, s: Option<&str>) -> String {
    match s {
        None => "None".into(),
        Some(s) => PyString::new(py, s).repr().map_or_else(|_| format!("{s:?}"), |r| r.to_string()),
    }
}

fn flag(b: Option<bool>) -> &'static str {
    match b {
        None => "None",
        Some(true) => "True",
        Some(false) => "False",
    }
}

/// A hash of a serializable value's JSON, for `__hash__` (equal values, equal JSON).
fn hash_json(value: &impl serde::Serialize) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_string(value).unwrap_or_default().hash(&mut hasher);
    hasher.finish()
}

/// A score as a `Decimal` with its three decimals (`Decimal('0.900')`).
fn decimal(py: Python<'_>, score: core::Score) -> PyResult<Py<PyAny>> {
    Ok(classes(py)?.decimal_class(py).call1((score.to_string(),))?.unbind())
}

/// One invocation's verdict: status, the reason that decided it, the claimed status and
/// whether it agrees, where the raw document came from, every ref, and warnings.
#[pyclass(frozen, module = "groundcheck", name = "Verdict")]
pub struct Verdict(Held);

impl Verdict {
    /// The verdict of `verify_invocation`, on its own.
    pub fn one(verdict: core::Verdict) -> Verdict {
        Verdict(Held::One(Arc::new(verdict)))
    }
}

#[pymethods]
impl Verdict {
    /// The row's `id`.
    #[getter]
    fn id(&self) -> PyResult<i64> {
        guard("Verdict.id", || Ok(self.0.get().id))
    }
    /// The row's `tool_name`.
    #[getter]
    fn tool_name(&self) -> PyResult<&str> {
        guard("Verdict.tool_name", || Ok(self.0.get().tool_name.as_str()))
    }
    /// `supported`, `unsupported` or `no_evidence` (no evidence found by this tool, never
    /// "the fault is absent").
    #[getter]
    fn status(&self) -> PyResult<&'static str> {
        guard("Verdict.status", || Ok(self.0.get().status.as_str()))
    }
    /// The classification row that decided the status, e.g. `verified`, `not_verified`.
    #[getter]
    fn reason(&self) -> PyResult<&'static str> {
        guard("Verdict.reason", || Ok(self.0.get().reason.as_str()))
    }
    /// The agent's `evidence_status`, as given, when it is a string.
    #[getter]
    fn claimed_status(&self) -> PyResult<Option<&str>> {
        guard("Verdict.claimed_status", || Ok(self.0.get().claimed_status.as_deref()))
    }
    /// Whether the claimed status equals the status; `None` when the claim is none of them.
    #[getter]
    fn claim_agrees(&self) -> PyResult<Option<bool>> {
        guard("Verdict.claim_agrees", || Ok(self.0.get().claim_agrees))
    }
    /// Where the raw document came from: `raw_output`, `file`, `preview` or `none`.
    #[getter]
    fn source(&self) -> PyResult<&'static str> {
        guard("Verdict.source", || Ok(self.0.get().source.as_str()))
    }
    /// Every evidence ref, in the order the claim gives them.
    #[getter]
    fn refs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        guard("Verdict.refs", || {
            let refs = (0..self.0.get().refs.len()).map(|i| RefReport { held: self.0.clone(), index: i });
            PyTuple::new(py, refs)
        })
    }
    /// Warnings, in their fixed order.
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        guard("Verdict.warnings", || PyTuple::new(py, self.0.get().warnings.iter().map(|w| w.as_str())))
    }
    /// The invocation object of the report schema, as compact JSON text (a score is written
    /// `0.900`, as the report writes it).
    fn to_json(&self) -> PyResult<String> {
        guard("Verdict.to_json", || Ok(serde_json::to_string(self.0.get()).unwrap_or_default()))
    }
    /// The invocation object of the report schema, as plain Python values.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        guard("Verdict.to_dict", || loads(py, &self.to_json()?))
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        guard("Verdict.__repr__", || {
            let v = self.0.get();
            let refs = self.refs(py)?.repr()?;
            let warnings = self.warnings(py)?.repr()?;
            Ok(format!(
                "Verdict(id={}, tool_name={}, status='{}', reason='{}', claimed_status={}, claim_agrees={}, \
                 source='{}', refs={refs}, warnings={warnings})",
                v.id,
                quoted(py, Some(&v.tool_name)),
                v.status.as_str(),
                v.reason.as_str(),
                quoted(py, v.claimed_status.as_deref()),
                flag(v.claim_agrees),
                v.source.as_str(),
            ))
        })
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        guard("Verdict.__eq__", || Ok(other.cast::<Verdict>().is_ok_and(|o| o.get().0.get() == self.0.get())))
    }
    fn __hash__(&self) -> PyResult<u64> {
        guard("Verdict.__hash__", || Ok(hash_json(self.0.get())))
    }
}

/// One evidence ref as reported: echoed as given, with its outcome and, when it failed, how
/// close it came.
#[pyclass(frozen, module = "groundcheck", name = "RefReport")]
pub struct RefReport {
    held: Held,
    index: usize,
}

impl RefReport {
    fn get(&self) -> &core::RefReport {
        &self.held.get().refs[self.index]
    }
}

#[pymethods]
impl RefReport {
    /// The ref's position in `evidence_refs`.
    #[getter]
    fn index(&self) -> PyResult<usize> {
        guard("RefReport.index", || Ok(self.get().index))
    }
    /// `raw_path` as given, when it is a string.
    #[getter]
    fn raw_path(&self) -> PyResult<Option<&str>> {
        guard("RefReport.raw_path", || Ok(self.get().raw_path.as_deref()))
    }
    /// `text` as given, when it is a string.
    #[getter]
    fn text(&self) -> PyResult<Option<&str>> {
        guard("RefReport.text", || Ok(self.get().text.as_deref()))
    }
    /// What checking the ref found, e.g. `verified`, `path_not_found`, `text_not_found`.
    #[getter]
    fn outcome(&self) -> PyResult<&'static str> {
        guard("RefReport.outcome", || Ok(self.get().outcome.as_str()))
    }
    /// The rung that verified it: `exact`, `normalized`, `elided` or `fuzzy`.
    #[getter(r#match)]
    fn rung(&self) -> PyResult<Option<&'static str>> {
        guard("RefReport.match", || Ok(self.get().rung.map(|r| r.as_str())))
    }
    /// The normalized path of the leaf where the quote was found.
    #[getter]
    fn matched_path(&self) -> PyResult<Option<&str>> {
        guard("RefReport.matched_path", || Ok(self.get().matched_path.as_deref()))
    }
    /// For a fuzzy match, the verifying leaf's score (a `Decimal` with three decimals).
    #[getter]
    fn score(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        guard("RefReport.score", || self.get().score.map(|s| decimal(py, s)).transpose())
    }
    /// For `raw_output_unavailable` with a string preview: whether the preview holds the text.
    #[getter]
    fn in_preview(&self) -> PyResult<Option<bool>> {
        guard("RefReport.in_preview", || Ok(self.get().in_preview))
    }
    /// For `text_not_found`: the selected leaf that came closest.
    #[getter]
    fn nearest(&self) -> PyResult<Option<Nearest>> {
        guard("RefReport.nearest", || Ok(self.get().nearest.as_ref().map(|n| Nearest(n.clone()))))
    }
    /// For `path_not_found` and `text_not_found`: the first leaf of the whole document that
    /// holds the text (the quote is right, the path points at the wrong node).
    #[getter]
    fn elsewhere(&self) -> PyResult<Option<&str>> {
        guard("RefReport.elsewhere", || Ok(self.get().elsewhere.as_deref()))
    }
    /// For `limit_exceeded`: the limit the ref hit (`output_size`, `depth`, `text_length`,
    /// `path_length`, `nodes`, `refs`), so a reader knows which bound would let it be checked.
    #[getter]
    fn limit(&self) -> PyResult<Option<&'static str>> {
        guard("RefReport.limit", || Ok(self.get().limit.map(|l| l.as_str())))
    }
    /// The ref object of the report schema, as compact JSON text.
    fn to_json(&self) -> PyResult<String> {
        guard("RefReport.to_json", || Ok(serde_json::to_string(self.get()).unwrap_or_default()))
    }
    /// The ref object of the report schema, as plain Python values.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        guard("RefReport.to_dict", || loads(py, &self.to_json()?))
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        guard("RefReport.__repr__", || {
            let r = self.get();
            let nearest = match self.nearest()? {
                Some(n) => n.__repr__(py)?,
                None => "None".into(),
            };
            let score = match r.score {
                Some(s) => format!("Decimal('{s}')"),
                None => "None".into(),
            };
            Ok(format!(
                "RefReport(index={}, raw_path={}, text={}, outcome='{}', match={}, matched_path={}, score={score}, \
                 in_preview={}, nearest={nearest}, elsewhere={}, limit={})",
                r.index,
                quoted(py, r.raw_path.as_deref()),
                quoted(py, r.text.as_deref()),
                r.outcome.as_str(),
                quoted(py, r.rung.map(|r| r.as_str())),
                quoted(py, r.matched_path.as_deref()),
                flag(r.in_preview),
                quoted(py, r.elsewhere.as_deref()),
                quoted(py, r.limit.map(|l| l.as_str())),
            ))
        })
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        guard("RefReport.__eq__", || Ok(other.cast::<RefReport>().is_ok_and(|o| o.get().get() == self.get())))
    }
    fn __hash__(&self) -> PyResult<u64> {
        guard("RefReport.__hash__", || Ok(hash_json(self.get())))
    }
}

/// The selected leaf that came closest to a quote that was not found: its score (the share
/// of the quote's characters kept, three decimals), its normalized path, and the closest text
/// in it. A high score is a misquote, a low one an invention.
#[pyclass(frozen, module = "groundcheck", name = "Nearest")]
pub struct Nearest(core::Nearest);

#[pymethods]
impl Nearest {
    /// The leaf's score, a `Decimal` with three decimals; never `0.000`.
    #[getter]
    fn score(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        guard("Nearest.score", || decimal(py, self.0.score))
    }
    /// The leaf's normalized path.
    #[getter]
    fn path(&self) -> PyResult<&str> {
        guard("Nearest.path", || Ok(self.0.path.as_str()))
    }
    /// The closest text in the leaf (normalised).
    #[getter]
    fn text(&self) -> PyResult<&str> {
        guard("Nearest.text", || Ok(self.0.text.as_str()))
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        guard("Nearest.__repr__", || {
            Ok({
                format!(
                    "Nearest(score=Decimal('{}'), path={}, text={})",
                    self.0.score,
                    quoted(py, Some(&self.0.path)),
                    quoted(py, Some(&self.0.text))
                )
            })
        })
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        guard("Nearest.__eq__", || Ok(other.cast::<Nearest>().is_ok_and(|o| o.get().0 == self.0)))
    }
    fn __hash__(&self) -> PyResult<u64> {
        guard("Nearest.__hash__", || Ok(hash_json(&self.0)))
    }
}

/// A run's counts: invocations by status, and claim mismatches.
/// `supported + unsupported + no_evidence == invocations`.
#[pyclass(frozen, module = "groundcheck", name = "Summary")]
pub struct Summary(core::Summary);

#[pymethods]
impl Summary {
    /// Invocations verified.
    #[getter]
    fn invocations(&self) -> PyResult<usize> {
        guard("Summary.invocations", || Ok(self.0.invocations))
    }
    /// Of which supported.
    #[getter]
    fn supported(&self) -> PyResult<usize> {
        guard("Summary.supported", || Ok(self.0.supported))
    }
    /// Of which unsupported.
    #[getter]
    fn unsupported(&self) -> PyResult<usize> {
        guard("Summary.unsupported", || Ok(self.0.unsupported))
    }
    /// Of which no_evidence.
    #[getter]
    fn no_evidence(&self) -> PyResult<usize> {
        guard("Summary.no_evidence", || Ok(self.0.no_evidence))
    }
    /// Of which the claimed status disagreed with the verdict.
    #[getter]
    fn claim_mismatches(&self) -> PyResult<usize> {
        guard("Summary.claim_mismatches", || Ok(self.0.claim_mismatches))
    }
    fn __repr__(&self) -> PyResult<String> {
        guard("Summary.__repr__", || {
            Ok({
                let s = &self.0;
                format!(
                    "Summary(invocations={}, supported={}, unsupported={}, no_evidence={}, claim_mismatches={})",
                    s.invocations, s.supported, s.unsupported, s.no_evidence, s.claim_mismatches
                )
            })
        })
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        guard("Summary.__eq__", || Ok(other.cast::<Summary>().is_ok_and(|o| o.get().0 == self.0)))
    }
    fn __hash__(&self) -> PyResult<u64> {
        guard("Summary.__hash__", || Ok(hash_json(&self.0)))
    }
}

/// One run's verdicts, ordered by invocation id, with its summary.
#[pyclass(frozen, module = "groundcheck", name = "RunReport")]
pub struct RunReport {
    report: Arc<core::Report>,
    run: usize,
}

impl RunReport {
    fn get(&self) -> &core::RunReport {
        &self.report.runs[self.run]
    }
}

#[pymethods]
impl RunReport {
    /// The run, or `None` for rows without `run_id` (grouped by session).
    #[getter]
    fn run_id(&self) -> PyResult<Option<&str>> {
        guard("RunReport.run_id", || Ok(self.get().run_id.as_deref()))
    }
    /// The session of the run's first invocation.
    #[getter]
    fn session_id(&self) -> PyResult<Option<&str>> {
        guard("RunReport.session_id", || Ok(self.get().session_id.as_deref()))
    }
    /// The run's counts.
    #[getter]
    fn summary(&self) -> PyResult<Summary> {
        guard("RunReport.summary", || Ok(Summary(self.get().summary)))
    }
    /// The run's verdicts, by invocation id.
    #[getter]
    fn invocations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        guard("RunReport.invocations", || {
            let verdicts = (0..self.get().invocations.len())
                .map(|i| Verdict(Held::InReport(Arc::clone(&self.report), self.run, i)));
            PyTuple::new(py, verdicts)
        })
    }
    /// The run object of the report schema, as compact JSON text.
    fn to_json(&self) -> PyResult<String> {
        guard("RunReport.to_json", || Ok(serde_json::to_string(self.get()).unwrap_or_default()))
    }
    /// The run object of the report schema, as plain Python values.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        guard("RunReport.to_dict", || loads(py, &self.to_json()?))
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        guard("RunReport.__repr__", || {
            let r = self.get();
            Ok(format!(
                "RunReport(run_id={}, session_id={}, summary={}, invocations=<{} verdicts>)",
                quoted(py, r.run_id.as_deref()),
                quoted(py, r.session_id.as_deref()),
                self.summary()?.__repr__()?,
                r.invocations.len()
            ))
        })
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        guard("RunReport.__eq__", || Ok(other.cast::<RunReport>().is_ok_and(|o| o.get().get() == self.get())))
    }
    fn __hash__(&self) -> PyResult<u64> {
        guard("RunReport.__hash__", || Ok(hash_json(self.get())))
    }
}

/// The `groundcheck.report/v1` report: runs in order of first appearance.
#[pyclass(frozen, module = "groundcheck", name = "Report")]
pub struct Report {
    report: Arc<core::Report>,
    json: OnceLock<String>,
}

impl Report {
    /// The Python view of `report`.
    pub fn new(report: core::Report) -> Report {
        Report { report: Arc::new(report), json: OnceLock::new() }
    }
}

#[pymethods]
impl Report {
    /// The schema name, `groundcheck.report/v1`.
    #[getter]
    fn schema(&self) -> PyResult<&str> {
        guard("Report.schema", || Ok(self.report.schema.as_str()))
    }
    /// The runs, in order of first appearance.
    #[getter]
    fn runs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        guard("Report.runs", || {
            let runs =
                (0..self.report.runs.len()).map(|run| RunReport { report: Arc::clone(&self.report), run });
            PyTuple::new(py, runs)
        })
    }
    /// The report as `groundcheck verify --format json` prints it, byte for byte (pretty
    /// JSON and a newline).
    fn to_json(&self) -> PyResult<&str> {
        guard("Report.to_json", || {
            Ok({
                self.json
                    .get_or_init(|| {
                        let mut text = serde_json::to_string_pretty(&*self.report).unwrap_or_default();
                        text.push('\n');
                        text
                    })
                    .as_str()
            })
        })
    }
    /// The report as plain Python values.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        guard("Report.to_dict", || loads(py, self.to_json()?))
    }
    fn __repr__(&self) -> PyResult<String> {
        guard("Report.__repr__", || {
            Ok({
                let invocations: usize = self.report.runs.iter().map(|r| r.invocations.len()).sum();
                format!(
                    "Report(schema='{}', runs=<{} runs, {invocations} verdicts>)",
                    self.report.schema,
                    self.report.runs.len()
                )
            })
        })
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        guard("Report.__eq__", || Ok(other.cast::<Report>().is_ok_and(|o| *o.get().report == *self.report)))
    }
    fn __hash__(&self) -> PyResult<u64> {
        guard("Report.__hash__", || Ok(hash_json(&*self.report)))
    }
}

/// Registers the result classes in the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Report>()?;
    m.add_class::<RunReport>()?;
    m.add_class::<Summary>()?;
    m.add_class::<Verdict>()?;
    m.add_class::<RefReport>()?;
    m.add_class::<Nearest>()?;
    Ok(())
}
