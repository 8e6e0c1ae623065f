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
//! work runs on this library's own threads ([`on_engine_threads`], stacks of
//! [`ENGINE_STACK`]), except a text too small to nest deeply in any format
//! ([`may_nest_deeply`]), run on the caller's thread without the hand-over.

use std::sync::OnceLock;

use groundcheck_core::{Bundle, ErrorKind, Invocation, Report, RunSet, Verifier};
use groundcheck_files::Template;
use serde_json::json;

use crate::handles::{self, Held};
use crate::policy;
use crate::reply::{Failure, Reply};
use crate::rows;

/// Stack size of the engine's threads: the query ceiling's recursion with room to spare (it
/// is reserved address space; only what is used becomes memory).
const ENGINE_STACK: usize = 16 << 20;

/// A text longer than this may nest too deeply for a small stack without a single bracket:
/// YAML nests by `- ` and indentation (`- - - … - b`, 510 levels in a kilobyte, once crashed
/// a 256 KiB Java thread), and JSON held in a string may write its brackets as `\u005b`.
/// A text of at most this many bytes nests at most this many levels, whatever its format.
const INLINE_BYTES: usize = 256;

/// A text with more `[`, `{` and `(` than this (inside strings too, so a claim's paths are
/// counted) may nest filters and parentheses in a path deeper than a small stack allows for:
/// the path parser's frames are large, about four times larger in a debug build (where 16 take
/// 275 KiB, against 63 KiB in a release build; `stack_probe`).
const INLINE_NESTING: usize = if cfg!(debug_assertions) { 4 } else { 16 };

fn engine_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .stack_size(ENGINE_STACK)
            .thread_name(|i| format!("groundcheck-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// Runs `work` on the engine's threads (a run's parallel verification too, as the pool is
/// the current one inside). Without them (threads could not be started) it runs here.
fn on_engine_threads<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    match engine_pool() {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// Whether `text` may nest deeper than the calling thread's stack allows for, in any format
/// the engine reads it as (JSON, JSON inside strings, JSON Lines, YAML, a path): a text of at
/// most [`INLINE_BYTES`] with at most [`INLINE_NESTING`] brackets and parentheses does not,
/// and runs on a 256 KiB Java stack (the tests run the deepest such texts there).
fn may_nest_deeply(text: &str) -> bool {
    text.len() > INLINE_BYTES
        || text.bytes().filter(|&b| matches!(b, b'[' | b'{' | b'(')).count() > INLINE_NESTING
}

/// The verifier numbered `id`, or `CLOSED`.
fn held(id: i64) -> Result<std::sync::Arc<Held>, Failure> {
    handles::get(id).ok_or_else(|| Failure::new("CLOSED", "the verifier was closed"))
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
    Ok(handles::insert(Held { core: Verifier::new(policy), raw_outputs }).to_string())
}

impl Held {
    fn attach(&self, invocation: &mut Invocation) {
        if let Some(template) = &self.raw_outputs {
            groundcheck_files::attach_one(template, invocation, self.core.policy().limits().get(groundcheck_core::Limit::OutputSize));
        }
    }

    /// The report of `invocations` grouped into runs, as `verify --format json` prints it.
    fn report(&self, invocations: Vec<Invocation>) -> Reply {
        let mut runs = RunSet::default();
        for inv in invocations {
            runs.push(inv).map_err(|e| Failure::from_core(&e))?;
        }
        let mut runs = runs.into_runs();
        let max = self.core.policy().limits().get(groundcheck_core::Limit::OutputSize);
        on_engine_threads(|| {
            groundcheck_files::attach(self.raw_outputs.as_ref(), &mut runs, max);
            Ok(report_json(&self.core.verify_runs(&runs)))
        })
    }
}

/// `report` as `verify --format json` prints it: pretty JSON and a newline.
fn report_json(report: &Report) -> String {
    let mut text = serde_json::to_string_pretty(report).unwrap_or_default();
    text.push('\n');
    text
}

/// One row's verdict, as the compact JSON of one invocation object of the report.
pub fn verify_invocation(id: i64, row: String) -> Reply {
    let held = held(id)?;
    let mut invocations = rows::invocations(std::slice::from_ref(&row))?;
    let invocation = &mut invocations[0];
    // A file's text is not seen before it is read: rows that may have one go to the pool too.
    let hand_over = held.raw_outputs.is_some() || may_nest_deeply(&row);
    let mut work = move || {
        held.attach(invocation);
        Ok(serde_json::to_string(&held.core.verify(invocation)).unwrap_or_default())
    };
    if hand_over {
        on_engine_threads(work)
    } else {
        work()
    }
}

/// The report of rows grouped into runs.
pub fn verify_run(id: i64, rows: &[String]) -> Reply {
    let held = held(id)?;
    held.report(rows::invocations(rows)?)
}

/// The report of bundle text.
pub fn verify_bundle(id: i64, text: &str) -> Reply {
    let held = held(id)?;
    let bundle = Bundle::parse(text).map_err(|e| Failure::from_core(&e))?;
    held.report(bundle.invocations)
}

/// What `path` selects in `document`: `[{"path", "value" (the value's JSON text, as a
/// string), "descended", "read_as"}]`, the document read as a tool output's text is (JSON,
/// else its JSON Lines or YAML view). Values cross as text so that a deeply nested one costs
/// the Java reader nothing.
pub fn resolve(document: &str, path: &str) -> Reply {
    let resolved = if may_nest_deeply(document) || may_nest_deeply(path) {
        on_engine_threads(|| groundcheck_core::resolve_text(path, document))
    } else {
        groundcheck_core::resolve_text(path, document)
    };
    let nodes = resolved.map_err(|e| match e.kind() {
        ErrorKind::Json => {
            Failure { message: format!("document: {}", e.message()), ..Failure::from_core(&e) }
        }
        _ => Failure::from_core(&e),
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
pub fn time_verify(id: i64, row: String, n: u32) -> Reply {
    let held = held(id)?;
    let invocations = rows::invocations(std::slice::from_ref(&row))?;
    let started = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(held.core.verify(std::hint::black_box(&invocations[0])));
    }
    Ok(started.elapsed().as_secs_f64().to_string())
}

/// Seconds for `n` reports of rows read once, verified as runs in Rust alone (the core's
/// `verify_runs`, on rayon): the floor for a run verified from Java.
pub fn time_run(id: i64, rows: &[String], n: u32) -> Reply {
    let held = held(id)?;
    let mut set = RunSet::default();
    for inv in rows::invocations(rows)? {
        set.push(inv).map_err(|e| Failure::from_core(&e))?;
    }
    let runs = set.into_runs();
    on_engine_threads(|| {
        let started = std::time::Instant::now();
        for _ in 0..n {
            std::hint::black_box(held.core.verify_runs(std::hint::black_box(&runs)));
        }
        Ok(started.elapsed().as_secs_f64().to_string())
    })
}
