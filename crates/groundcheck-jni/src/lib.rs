//! groundcheck for the JVM: the native half of the Java library in `bindings/java/` (package
//! `io.groundcheck`), a thin layer over `groundcheck-core` — no verification rule is written
//! here or in Java.
//!
//! Every entry point is a static method of `io.groundcheck.Native` (the test and bench hooks,
//! in the `test-hooks` build alone, of the tests' `io.groundcheck.TestHooks`) that takes and returns
//! `byte[]`: UTF-8 text in (rows, bundles, policies as JSON; Java encodes each lone surrogate
//! as U+FFFD), and one tagged reply out (`reply.rs`): the report's JSON exactly as
//! `groundcheck verify --format json` prints it, or a failure the Java side throws as its one
//! `GroundcheckException`. Plain bytes keep the crossing cheap and the JNI surface small: no
//! Java object is built from Rust, and the only local references made are the arrays read and
//! the one returned, each in its own local frame where there are many.
//!
//! Nothing may unwind into the JVM: the work runs under `catch_unwind` (`reply::guarded`,
//! a panic is the failure `INTERNAL`), and the JNI code around it under the jni crate's
//! `with_env`, whose panics [`ThrowInternal`] turns into a `GroundcheckException`. A Java
//! `Verifier` holds a number, never a pointer (`handles.rs`).

mod handles;
mod ops;
mod policy;
mod reply;

use jni::errors::ErrorPolicy;
use jni::objects::{JByteArray, JClass, JObjectArray};
use jni::sys::jlong;
use jni::{jni_mangle, jni_str, Env, EnvUnowned};

use crate::reply::{guarded, Failure};

/// Handles what escapes the guarded work: a JNI failure (an array that cannot be read or
/// made) or a panic in the JNI code itself. An exception already pending (an
/// `OutOfMemoryError`, say) is left to propagate; otherwise a `GroundcheckException` of kind
/// `INTERNAL` is thrown. Either way the method returns null, which Java never reads.
struct ThrowInternal;

impl<T: Default, E: std::error::Error> ErrorPolicy<T, E> for ThrowInternal {
    type Captures<'unowned_env_local: 'native_method, 'native_method> = ();

    fn on_error<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _captures: &mut (),
        err: E,
    ) -> jni::errors::Result<T> {
        throw(env, &format!("groundcheck: JNI call failed: {err}"));
        Ok(T::default())
    }

    fn on_panic<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _captures: &mut (),
        payload: Box<dyn std::any::Any + Send + 'static>,
    ) -> jni::errors::Result<T> {
        throw(env, &reply::panicked(payload.as_ref()).message);
        Ok(T::default())
    }
}

/// Throws `GroundcheckException(message)` (kind `INTERNAL`) unless an exception is pending.
fn throw(env: &mut Env<'_>, message: &str) {
    if !env.exception_check() {
        let message = jni::strings::JNIString::from(message);
        let _ = env.throw_new(jni_str!("io/groundcheck/GroundcheckException"), message);
    }
}

/// The bytes of `array`, as text; a null array is the failure `INTERNAL` (the Java library checks
/// its arguments first, so only a direct caller of `Native` meets it).
fn read(env: &Env<'_>, array: &JByteArray<'_>, what: &str) -> jni::errors::Result<Result<String, Failure>> {
    if array.is_null() {
        return Ok(Err(Failure::new("INTERNAL", format!("{what} is null"))));
    }
    Ok(reply::text(env.convert_byte_array(array)?, what))
}

/// The texts of a `byte[][]`, each element read in a local frame of its own so that a run of
/// any length holds one element reference at a time.
fn read_all(
    env: &mut Env<'_>,
    rows: &JObjectArray<'_, JByteArray<'_>>,
) -> jni::errors::Result<Result<Vec<String>, Failure>> {
    if rows.is_null() {
        return Ok(Err(Failure::new("INTERNAL", "rows is null")));
    }
    let count = rows.len(env)?;
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let row = env.with_local_frame(2, |env| -> jni::errors::Result<_> {
            let element = rows.get_element(env, i)?;
            read(env, &element, "row")
        })?;
        match row {
            Ok(text) => out.push(text),
            Err(failure) => return Ok(Err(failure)),
        }
    }
    Ok(Ok(out))
}

// SAFETY (every `allow(unsafe_code)` below): the only unsafe construct is the exported symbol
// name (`jni_mangle` writes `export_name`), which the JVM resolves for the matching `static
// native` method of `io.groundcheck.Native`; each signature here is that method's, with the
// JNI types the jni crate defines for it. The functions contain no unsafe code.

/// `static native byte[] checkPolicy(byte[] spec)`.
#[allow(unsafe_code)]
#[jni_mangle("io.groundcheck.Native")]
pub fn check_policy<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    spec: JByteArray<'local>,
) -> JByteArray<'local> {
    env.with_env(|env| -> jni::errors::Result<_> {
        let spec = read(env, &spec, "policy")?;
        env.byte_array_from_slice(&guarded(|| ops::check_policy(&spec?)))
    })
    .resolve::<ThrowInternal>()
}

/// `static native byte[] create(byte[] spec, byte[] rawOutputs)`; `rawOutputs` may be null.
#[allow(unsafe_code)]
#[jni_mangle("io.groundcheck.Native")]
pub fn create<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    spec: JByteArray<'local>,
    raw_outputs: JByteArray<'local>,
) -> JByteArray<'local> {
    env.with_env(|env| -> jni::errors::Result<_> {
        let spec = read(env, &spec, "policy")?;
        let raw_outputs =
            if raw_outputs.is_null() { None } else { Some(read(env, &raw_outputs, "raw_outputs")?) };
        env.byte_array_from_slice(&guarded(|| ops::create(&spec?, raw_outputs.transpose()?.as_deref())))
    })
    .resolve::<ThrowInternal>()
}

/// `static native void destroy(long id)`: forgets a verifier (closing twice is harmless).
#[allow(unsafe_code)]
#[jni_mangle("io.groundcheck.Native")]
pub fn destroy<'local>(mut env: EnvUnowned<'local>, _class: JClass<'local>, id: jlong) {
    env.with_env(|_env| -> jni::errors::Result<_> {
        handles::remove(id);
        Ok(())
    })
    .resolve::<ThrowInternal>()
}

/// `static native byte[] verifyInvocation(long id, byte[] row)`.
#[allow(unsafe_code)]
#[jni_mangle("io.groundcheck.Native")]
pub fn verify_invocation<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    id: jlong,
    row: JByteArray<'local>,
) -> JByteArray<'local> {
    env.with_env(|env| -> jni::errors::Result<_> {
        let row = read(env, &row, "row")?;
        env.byte_array_from_slice(&guarded(|| ops::verify_invocation(id, row?)))
    })
    .resolve::<ThrowInternal>()
}

/// `static native byte[] verifyRun(long id, byte[][] rows)`.
#[allow(unsafe_code)]
#[jni_mangle("io.groundcheck.Native")]
pub fn verify_run<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    id: jlong,
    rows: JObjectArray<'local, JByteArray<'local>>,
) -> JByteArray<'local> {
    env.with_env(|env| -> jni::errors::Result<_> {
        let rows = read_all(env, &rows)?;
        env.byte_array_from_slice(&guarded(|| ops::verify_run(id, &rows?)))
    })
    .resolve::<ThrowInternal>()
}

/// `static native byte[] verifyBundle(long id, byte[] text)`.
#[allow(unsafe_code)]
#[jni_mangle("io.groundcheck.Native")]
pub fn verify_bundle<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    id: jlong,
    text: JByteArray<'local>,
) -> JByteArray<'local> {
    env.with_env(|env| -> jni::errors::Result<_> {
        let text = read(env, &text, "bundle")?;
        env.byte_array_from_slice(&guarded(|| ops::verify_bundle(id, &text?)))
    })
    .resolve::<ThrowInternal>()
}

/// `static native byte[] resolve(byte[] document, byte[] path)`.
#[allow(unsafe_code)]
#[jni_mangle("io.groundcheck.Native")]
pub fn resolve<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    document: JByteArray<'local>,
    path: JByteArray<'local>,
) -> JByteArray<'local> {
    env.with_env(|env| -> jni::errors::Result<_> {
        let document = read(env, &document, "document")?;
        let path = read(env, &path, "path")?;
        env.byte_array_from_slice(&guarded(|| ops::resolve(&document?, &path?)))
    })
    .resolve::<ThrowInternal>()
}

/// `static native byte[] panicForTest(byte[] message)` of `io.groundcheck.TestHooks` (a class
/// of the Java tests; this export only in the `test-hooks` build): panics inside the guarded
/// work, to show that a panic reaches Java as `GroundcheckException` of kind `INTERNAL`.
#[cfg(feature = "test-hooks")]
#[allow(unsafe_code)]
#[jni_mangle("io.groundcheck.TestHooks")]
pub fn panic_for_test<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    message: JByteArray<'local>,
) -> JByteArray<'local> {
    env.with_env(|env| -> jni::errors::Result<_> {
        let message = read(env, &message, "message")?;
        env.byte_array_from_slice(&guarded(|| panic!("{}", message.unwrap_or_default())))
    })
    .resolve::<ThrowInternal>()
}

/// `static native byte[] timeVerify(long id, byte[] row, int n)` of `TestHooks` (`test-hooks`
/// build): the Rust floor for the benchmark.
#[cfg(feature = "test-hooks")]
#[allow(unsafe_code)]
#[jni_mangle("io.groundcheck.TestHooks")]
pub fn time_verify<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    id: jlong,
    row: JByteArray<'local>,
    n: jni::sys::jint,
) -> JByteArray<'local> {
    env.with_env(|env| -> jni::errors::Result<_> {
        let row = read(env, &row, "row")?;
        env.byte_array_from_slice(&guarded(|| ops::time_verify(id, row?, n.max(0).unsigned_abs())))
    })
    .resolve::<ThrowInternal>()
}

/// `static native byte[] timeRun(long id, byte[][] rows, int n)` of `TestHooks` (`test-hooks`
/// build): the Rust floor for the benchmark's run.
#[cfg(feature = "test-hooks")]
#[allow(unsafe_code)]
#[jni_mangle("io.groundcheck.TestHooks")]
pub fn time_run<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    id: jlong,
    rows: JObjectArray<'local, JByteArray<'local>>,
    n: jni::sys::jint,
) -> JByteArray<'local> {
    env.with_env(|env| -> jni::errors::Result<_> {
        let rows = read_all(env, &rows)?;
        env.byte_array_from_slice(&guarded(|| ops::time_run(id, &rows?, n.max(0).unsigned_abs())))
    })
    .resolve::<ThrowInternal>()
}
