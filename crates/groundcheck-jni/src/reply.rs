//! What every entry point hands back to Java: one `byte[]`, a tag byte then UTF-8 text. `O` and
//! the result (a report's JSON, a verdict's JSON, a handle), or `E` and a failure as a small JSON
//! object (`kind`, `message`, `field`, `place`, `line`, `column`, `offset`) from which the Java
//! side builds its one `GroundcheckException`. Errors cross as data, not as exceptions thrown
//! from Rust, so the Java side decides how they look and no JNI call is made on an error path.
//! A panic in the work is caught here and becomes the kind `INTERNAL`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use groundcheck_core::Error;
use serde::Serialize;

/// Why a call failed, as the Java exception will carry it.
#[derive(Debug, Serialize)]
pub struct Failure {
    /// A `GroundcheckException.Kind` name, in any case: the core's error kinds as
    /// `ErrorKind::as_str` spells them, plus the binding's own.
    pub kind: &'static str,
    pub message: String,
    /// Which limit stopped the call, by its report name (`nodes`, `depth`, `path_length`,
    /// `output_size`), for every failure a limit caused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<&'static str>,
    /// Where, when known (boxed: most failures have no place, and results stay small).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub at: Option<Box<Place>>,
}

/// Where a failure is: the row's field, the place inside a bundle, the position in a text.
#[derive(Debug, Default, Serialize)]
pub struct Place {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub place: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,
}

impl Failure {
    /// A failure of `kind` with `message` and nothing else.
    pub fn new(kind: &'static str, message: impl Into<String>) -> Failure {
        Failure { kind, message: message.into(), limit: None, at: None }
    }

    /// The core's `error`, its kind named as the Java enum names it.
    pub fn from_core(error: &Error) -> Failure {
        // The core's own spelling; Java reads it in upper case, as its `Kind` names it.
        let kind = error.kind().as_str();
        let position = error.position();
        let place = Place {
            field: error.field().map(str::to_string),
            place: error.place().map(str::to_string),
            line: position.map(|p| p.line),
            column: position.map(|p| p.column),
            offset: position.map(|p| p.offset),
        };
        let known = place.place.is_some() || place.field.is_some() || position.is_some();
        Failure {
            kind,
            message: error.to_string(),
            limit: error.limit().map(|l| l.as_str()),
            at: known.then(|| Box::new(place)),
        }
    }
}

/// The result of one call: the text for Java, or why there is none.
pub type Reply = Result<String, Failure>;

/// Runs `work` with panics caught, and encodes what it gave as the tagged bytes Java reads.
pub fn guarded(work: impl FnOnce() -> Reply) -> Vec<u8> {
    quiet_panics();
    let reply =
        catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|payload| Err(panicked(payload.as_ref())));
    match reply {
        Ok(text) => tagged(b'O', &text),
        Err(failure) => tagged(b'E', &serde_json::to_string(&failure).unwrap_or_default()),
    }
}

fn tagged(tag: u8, text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + 1);
    out.push(tag);
    out.extend_from_slice(text.as_bytes());
    out
}

thread_local! {
    /// Where this thread's last panic happened, kept by the hook [`quiet_panics`] installs.
    static PANICKED_AT: std::cell::Cell<Option<String>> = const { std::cell::Cell::new(None) };
}

/// Replaces the standard panic hook of this library (a `cdylib` has its own copy of std, so
/// no other Rust code in the JVM is touched) with one that prints nothing and keeps where the
/// panic happened: every panic here is caught at the boundary and reaches Java as an
/// exception carrying that place, so the message and backtrace the standard hook writes to
/// the JVM's standard error would only be noise in the host's logs.
fn quiet_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            PANICKED_AT.set(info.location().map(|at| format!("{}:{}", at.file(), at.line())));
        }))
    });
}

/// A panic caught at the boundary, as the failure `INTERNAL`, with where it happened.
pub fn panicked(payload: &(dyn std::any::Any + Send)) -> Failure {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string());
    let at = PANICKED_AT.take().map(|at| format!(" (at {at})")).unwrap_or_default();
    Failure::new("INTERNAL", format!("groundcheck panicked (a bug; please report the input): {what}{at}"))
}

/// `bytes` from Java as text. Java encodes with each lone surrogate already replaced, so
/// this only fails for bytes that did not come from the Java library.
pub fn text(bytes: Vec<u8>, what: &str) -> Result<String, Failure> {
    String::from_utf8(bytes).map_err(|e| {
        Failure::new("BUNDLE", format!("{what}: not UTF-8 (byte {})", e.utf8_error().valid_up_to()))
    })
}
