//! The work behind each entry point, on Rust values only: no JNI here, so every function is
//! an ordinary call that `reply::guarded` wraps. Reports are written exactly as
//! `groundcheck verify --format json` writes them.
//!
//! A native method runs on the calling Java thread, whose stack is the JVM's choice (1 MiB by
//! default, less under `-Xss`), and a stack overflow in native code kills the JVM. The engine
//! recurses once per nesting level up to its ceilings (1,000 levels of a queried document,
//! in serde_json_path's `..` and filters; 8 nested filters and 32 nested parentheses in its
//! path parser), which needs more than a small Java stack has (the core's `stack_probe`
//! example measures it: up to 171 KiB in a release build, 487 KiB in a debug build); so the
//! work runs on the host layer's threads (`groundcheck_host::Threads`, 16 MiB stacks), except
//! a text too small to nest deeply in any format (`groundcheck_host::stack`), run on the
//! caller's thread without the hand-over.

use groundcheck_core::{Error, ErrorKind, Report};
use groundcheck_host::{rows, stack, Engine, HostError, Template};
use serde_json::json;

use crate::handles::{self, Held};
use crate::policy;
use crate::reply::{Failure, Place, Reply};

/// The verifier numbered `id`, or `CLOSED`.
fn held(id: i64) -> Result<std::sync::Arc<Held>, Failure> {
    handles::get(id).ok_or_else(|| Failure::new("CLOSED", "the verifier was closed"))
}

/// A host failure as Java's: the core's error by its kind, a row named as Java's `ROW`
/// names it (`row 2: id: …` among several rows, `id: …` for one), the rest `INTERNAL`.
fn failure(e: HostError, rows: usize) -> Failure {
    match e {
        HostError::Core(e) if e.kind() == ErrorKind::Row => row_failure(&e, rows),
        HostError::Core(e) => Failure::from_core(&e),
        other => Failure::new("INTERNAL", other.to_string()),
    }
}

/// A row that cannot be read: `ROW`, naming the field (and the row, when there are several).
fn row_failure(e: &Error, rows: usize) -> Failure {
    let field = e.field().unwrap_or("row");
    let message = match e.invocation() {
        Some(index) if rows > 1 => format!("row {index}: {field}: {}", e.message()),
        _ => format!("{field}: {}", e.message()),
    };
    let at = Place { field: Some(field.to_string()), ..Place::default() };
    Failure { at: Some(Box::new(at)), ..Failure::new("ROW", message) }
}

/// Checks a policy and returns it with every value filled in.
pub fn check_policy(spec: &str) -> Reply {
    Ok(policy::describe(&policy::parse(spec)?))
}

/// A new verifier under `spec`, raw outputs looked up through `raw_outputs` if given; returns
/// its number.
pub fn create(spec: &str, raw_outputs: Option<&str>) -> Reply {
    let policy = policy::parse(spec)?;
    let raw_outputs = raw_outputs
        .map(|t| t.parse::<Template>().map_err(|e| Failure::new("TEMPLATE", format!("raw_outputs: {e}"))))
        .transpose()?;
    Ok(handles::insert(Engine::new(policy, raw_outputs, None)).to_string())
}

/// `report` as `verify --format json` prints it: pretty JSON and a newline.
fn report_json(report: &Report) -> String {
    let mut text = serde_json::to_string_pretty(report).unwrap_or_default();
    text.push('\n');
    text
}

/// One row's verdict, as the compact JSON of one invocation object of the report. A row too
/// small to nest runs on the caller's thread; any other on the engine's.
pub fn verify_invocation(id: i64, row: String) -> Reply {
    let held = held(id)?;
    let inline = stack::runs_inline([row.as_str()]);
    let mut invocations = rows::invocations(std::slice::from_ref(&row)).map_err(|e| failure(e.into(), 1))?;
    let verdict = held.verify_row_where(invocations.remove(0), inline).map_err(|e| failure(e, 1))?;
    Ok(serde_json::to_string(&verdict).unwrap_or_default())
}

/// The report of rows grouped into runs.
pub fn verify_run(id: i64, rows: &[String]) -> Reply {
    let held = held(id)?;
    let invocations = rows::invocations(rows).map_err(|e| failure(e.into(), rows.len()))?;
    Ok(report_json(&held.verify_rows(invocations).map_err(|e| failure(e, rows.len()))?))
}

/// The report of bundle text.
pub fn verify_bundle(id: i64, text: &str) -> Reply {
    let held = held(id)?;
    Ok(report_json(&held.verify_bundle(text).map_err(|e| failure(e, 0))?))
}

/// What `path` selects in `document`: `[{"path", "value" (the value's JSON text, as a
/// string), "descended", "read_as"}]`, the document read as a tool output's text is (JSON,
/// else its JSON Lines or YAML view), under the default policy's limits. Values cross as
/// text so that a deeply nested one costs the Java reader nothing.
pub fn resolve(document: &str, path: &str) -> Reply {
    static ENGINE: std::sync::OnceLock<Engine> = std::sync::OnceLock::new();
    let engine = ENGINE.get_or_init(|| Engine::new(groundcheck_core::Policy::default(), None, None));
    let nodes = engine.resolve(document, path).map_err(|e| match e {
        HostError::Core(e) if e.kind() == ErrorKind::Json => {
            Failure { message: format!("document: {}", e.message()), ..Failure::from_core(&e) }
        }
        other => failure(other, 0),
    })?;
    let nodes: Vec<_> = nodes
        .into_iter()
        .map(|n| {
            json!({"path": n.path, "value": n.value, "descended": n.descended,
                   "read_as": n.read_as.map(|r| r.as_str())})
        })
        .collect();
    Ok(serde_json::Value::Array(nodes).to_string())
}

/// Seconds for `n` verifications of one row read once, in Rust alone: the floor the Java
/// call's overhead is measured against (`benches/java/`).
#[cfg(feature = "test-hooks")] // a bench hook: not in the release jar
pub fn time_verify(id: i64, row: String, n: u32) -> Reply {
    let held = held(id)?;
    let invocations = rows::invocations(std::slice::from_ref(&row)).map_err(|e| failure(e.into(), 1))?;
    let started = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(held.verifier().verify(std::hint::black_box(&invocations[0])));
    }
    Ok(started.elapsed().as_secs_f64().to_string())
}

/// Seconds for `n` reports of rows read once, verified as runs in Rust alone (the core's
/// `verify_runs`, on rayon): the floor for a run verified from Java.
#[cfg(feature = "test-hooks")] // a bench hook: not in the release jar
pub fn time_run(id: i64, rows: &[String], n: u32) -> Reply {
    let held = held(id)?;
    let mut set = groundcheck_core::RunSet::default();
    for inv in rows::invocations(rows).map_err(|e| failure(e.into(), rows.len()))? {
        set.push(inv).map_err(|e| Failure::from_core(&e))?;
    }
    let runs = set.into_runs();
    held.threads()
        .install(|| {
            let started = std::time::Instant::now();
            for _ in 0..n {
                std::hint::black_box(held.verifier().verify_runs(std::hint::black_box(&runs)));
            }
            Ok(started.elapsed().as_secs_f64().to_string())
        })
        .map_err(|e| failure(e, rows.len()))?
}
