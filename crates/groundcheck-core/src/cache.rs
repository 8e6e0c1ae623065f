//! Compiled evidence paths shared by every invocation of one call: a run's refs repeat the
//! same few paths, and parsing one (serde_json_path plus our checks) costs more than
//! selecting with it on a small output.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use crate::path::{EvidencePath, PathError};

/// A parsed path, or why it is not one.
pub(crate) type Compiled = Arc<Result<EvidencePath, PathError>>;

/// How many compiled paths a cache keeps. A run repeats a few paths, but a
/// [`Verifier`](crate::Verifier) may live as long as its host — a Python agent, an MCP server, a JVM
/// service, a `reverify` job over millions of rows — and every distinct path text an agent
/// writes would otherwise stay. Past this many, a new path is compiled for its call only.
const MAX_ENTRIES: usize = 4096;

/// Compiled paths keyed by trimmed path text, shared across rayon's threads.
#[derive(Default)]
pub(crate) struct PathCache(RwLock<HashMap<String, Compiled>>);

impl PathCache {
    /// The compiled form of `path`, parsed on first use.
    pub(crate) fn get(&self, path: &str) -> Compiled {
        // A poisoned lock only means another thread panicked mid-insert of a complete value.
        if let Some(hit) = self.0.read().unwrap_or_else(|e| e.into_inner()).get(path) {
            return Arc::clone(hit);
        }
        let compiled = Arc::new(EvidencePath::parse(path));
        let mut map = self.0.write().unwrap_or_else(|e| e.into_inner());
        if map.len() >= MAX_ENTRIES && !map.contains_key(path) {
            return compiled;
        }
        Arc::clone(map.entry(path.to_string()).or_insert(compiled))
    }
}
