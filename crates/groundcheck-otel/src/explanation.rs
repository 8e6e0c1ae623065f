//! `gen_ai.evaluation.explanation`: why the verdict is what it is, for a person reading a
//! trace. The paragraph is the core's [`groundcheck_core::explain::verdict`] (the reason with
//! its counts, then each failed ref with what was found about it), so a trace says a verdict
//! in the words the `human` table and the HTML page use.

use groundcheck_core::{Limits, Verdict};

pub use groundcheck_core::explain::{ECHO_CHARS, FAILED_REFS_SHOWN};

/// The explanation of `verdict` as if it was made under the default limits (a limit's
/// sentence names the flag and its value). A record takes the limits of its [`Context`]
/// instead; callers that know the policy call [`groundcheck_core::explain::verdict`].
///
/// [`Context`]: crate::Context
pub fn explain(verdict: &Verdict) -> String {
    groundcheck_core::explain::verdict(verdict, &Limits::default())
}
