//! `Policy` and `Limits` for Python: the command line's `--require`, `--match`,
//! `--min-score` and limit flags, validated when built — a bad value raises
//! `InvalidPolicyError` at construction, never at first use.

use groundcheck_core::{
    Limit as CoreLimit, Limits as CoreLimits, Policy as CorePolicy, Require, Rung, Score,
};
use pyo3::prelude::*;

use crate::errors::{from_core, guard};

/// Input bounds (every one at least 1); the defaults are the command line's.
#[pyclass(frozen, module = "groundcheck", name = "Limits")]
#[derive(Clone, Copy)]
pub struct Limits(pub CoreLimits);

#[pymethods]
impl Limits {
    #[new]
    #[pyo3(signature = (*, max_output_bytes=None, max_depth=None, max_text_chars=None, max_path_chars=None, max_nodes=None, max_refs=None))]
    fn new(
        py: Python<'_>,
        max_output_bytes: Option<i128>,
        max_depth: Option<i128>,
        max_text_chars: Option<i128>,
        max_path_chars: Option<i128>,
        max_nodes: Option<i128>,
        max_refs: Option<i128>,
    ) -> PyResult<Limits> {
        guard("Limits.__new__", || {
            let given = [
                (CoreLimit::OutputSize, max_output_bytes),
                (CoreLimit::Depth, max_depth),
                (CoreLimit::TextLength, max_text_chars),
                (CoreLimit::PathLength, max_path_chars),
                (CoreLimit::Nodes, max_nodes),
                (CoreLimit::Refs, max_refs),
            ];
            let mut limits = CoreLimits::default();
            for (limit, value) in given {
                if let Some(value) = value {
                    limits.set(limit, value).map_err(|e| from_core(py, &e))?;
                }
            }
            Ok(Limits(limits))
        })
    }

    /// Raw output text size in bytes.
    #[getter]
    fn max_output_bytes(&self) -> PyResult<usize> {
        guard("Limits.max_output_bytes", || Ok(self.0.get(CoreLimit::OutputSize)))
    }
    /// JSON nesting depth of a raw document (the root is depth 1).
    #[getter]
    fn max_depth(&self) -> PyResult<usize> {
        guard("Limits.max_depth", || Ok(self.0.get(CoreLimit::Depth)))
    }
    /// Length of a ref's `text`, in characters.
    #[getter]
    fn max_text_chars(&self) -> PyResult<usize> {
        guard("Limits.max_text_chars", || Ok(self.0.get(CoreLimit::TextLength)))
    }
    /// Length of a trimmed `raw_path`, in characters.
    #[getter]
    fn max_path_chars(&self) -> PyResult<usize> {
        guard("Limits.max_path_chars", || Ok(self.0.get(CoreLimit::PathLength)))
    }
    /// Nodes one query may select.
    #[getter]
    fn max_nodes(&self) -> PyResult<usize> {
        guard("Limits.max_nodes", || Ok(self.0.get(CoreLimit::Nodes)))
    }
    /// Refs read per invocation.
    #[getter]
    fn max_refs(&self) -> PyResult<usize> {
        guard("Limits.max_refs", || Ok(self.0.get(CoreLimit::Refs)))
    }

    fn __repr__(&self) -> PyResult<String> {
        guard("Limits.__repr__", || {
            Ok({
                let each: Vec<String> =
                    CoreLimit::ALL.iter().map(|&l| format!("{}={}", l.setting(), self.0.get(l))).collect();
                format!("Limits({})", each.join(", "))
            })
        })
    }

    fn __eq__(&self, other: &Limits) -> PyResult<bool> {
        guard("Limits.__eq__", || Ok(self.0 == other.0))
    }
}

/// How verdicts are decided: `require` (`"all"` or `"any"` real refs verified), `match` (the
/// loosest rung accepted: `"exact"`, `"normalized"`, `"elided"`, `"fuzzy"`), `min_score` (the
/// fuzzy rung's threshold, 0.001 to 1, at most three decimals) and the `limits`.
#[pyclass(frozen, module = "groundcheck", name = "Policy")]
#[derive(Clone, Copy)]
pub struct Policy(pub CorePolicy);

#[pymethods]
impl Policy {
    #[new]
    #[pyo3(signature = (*, require="all", r#match="elided", min_score=None, limits=None))]
    fn new(
        py: Python<'_>,
        require: &str,
        r#match: &str,
        min_score: Option<&Bound<'_, PyAny>>,
        limits: Option<PyRef<'_, Limits>>,
    ) -> PyResult<Policy> {
        guard("Policy.__new__", || {
            let require: Require = require.parse().map_err(|e| from_core(py, &e))?;
            let max_rung: Rung = r#match.parse().map_err(|e| from_core(py, &e))?;
            let min_score = match min_score {
                None => Score::DEFAULT_MIN,
                Some(given) => {
                    // `0.9`, `"0.9"`, `Decimal("0.9")` alike: the number's text decides.
                    let text = if given.is_instance_of::<pyo3::types::PyString>() {
                        given.extract::<String>()?
                    } else {
                        given.str()?.extract::<String>()?
                    };
                    text.parse().map_err(|e| from_core(py, &e))?
                }
            };
            let limits = limits.map_or_else(CoreLimits::default, |l| l.0);
            let policy =
                CorePolicy::default().with_require(require).with_max_rung(max_rung).with_limits(limits);
            Ok(Policy(policy.with_min_score(min_score).map_err(|e| from_core(py, &e))?))
        })
    }

    /// `"all"` or `"any"`.
    #[getter]
    fn require(&self) -> PyResult<&'static str> {
        guard("Policy.require", || Ok(self.0.require().as_str()))
    }
    /// The loosest rung accepted.
    #[getter(r#match)]
    fn rung(&self) -> PyResult<&'static str> {
        guard("Policy.match", || Ok(self.0.max_rung().as_str()))
    }
    /// The fuzzy rung's threshold, as text with three decimals (`"0.900"`).
    #[getter]
    fn min_score(&self) -> PyResult<String> {
        guard("Policy.min_score", || Ok(self.0.min_score().to_string()))
    }
    /// The input bounds.
    #[getter]
    fn limits(&self) -> PyResult<Limits> {
        guard("Policy.limits", || Ok(Limits(self.0.limits())))
    }
    /// The policy's name, as stored verdicts are keyed: `require=all;match=elided`.
    #[getter]
    fn key(&self) -> PyResult<String> {
        guard("Policy.key", || Ok(self.0.key()))
    }

    pub fn __repr__(&self) -> PyResult<String> {
        guard("Policy.__repr__", || Ok(format!("Policy({:?})", self.0.key())))
    }

    fn __eq__(&self, other: &Policy) -> PyResult<bool> {
        guard("Policy.__eq__", || Ok(self.0 == other.0))
    }
}
