//! groundcheck-host is the porch every door of groundcheck shares: the command line, the
//! Python package, the JVM library and the MCP server each translate their own types and call
//! this, so that a row, a policy, a raw-output file or a panic is handled the same way from
//! every door.
//!
//! An [`Engine`] holds what a verification needs besides its rows: the core's `Verifier`
//! (its compiled-path cache kept across calls), the raw-output [`Template`] and the threads
//! ([`Threads`]). It verifies one row ([`Engine::verify_row`]), rows grouped into runs
//! ([`Engine::verify_rows`]), bundle text ([`Engine::verify_bundle`]), and resolves a path
//! under the policy's limits ([`Engine::resolve`]). A door that tells people what the
//! raw-output file lookups found verifies runs with them ([`Engine::verify_runs`], a batch at
//! a time for a stream) or rows one by one ([`Engine::verify_each`], many inputs grouped by
//! the door). [`rows::invocations`] reads rows given as JSON text. [`guard`] turns a panic
//! into one [`HostError`].
//!
//! Where the work runs is decided here too: a call on a thread the host chose (a Java or
//! Python thread, whose stack may be small) runs on the engine's own threads
//! ([`Threads`], 16 MiB stacks, rebuilt in a forked child) unless its texts are too small to
//! nest ([`stack::runs_inline`]).
//!
//! ```
//! use groundcheck_core::Policy;
//! use groundcheck_host::{rows, Engine};
//!
//! let engine = Engine::new(Policy::default(), None, None);
//! let row = r#"{"id": 1, "tool_name": "q", "raw_output": "{\"m\": \"disk full\"}",
//!               "retrieval_details": {"evidence_refs": [{"raw_path": "$.m", "text": "disk full"}]}}"#;
//! let mut invocations = rows::invocations(&[row.to_string()])?;
//! let verdict = engine.verify_row(invocations.remove(0))?;
//! assert_eq!(verdict.status.as_str(), "supported");
//! # Ok::<(), groundcheck_host::HostError>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod engine;
mod error;
mod guard;
pub mod rows;
pub mod stack;
mod threads;

pub use crate::engine::{Checked, Engine, Verified};
pub use crate::error::HostError;
pub use crate::guard::guard;
pub use crate::threads::{Threads, ENGINE_STACK};
pub use groundcheck_files::Template;
