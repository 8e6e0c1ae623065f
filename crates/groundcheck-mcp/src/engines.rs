//! The host layer's engines the server verifies with, one per policy a client asks for, kept
//! across calls: a verifier's compiled paths are reused by the next call under the same
//! policy instead of being thrown away with a verifier made per call.

use std::sync::{Arc, Mutex, PoisonError};

use groundcheck_core::Policy;
use groundcheck_host::{Engine, Template};

/// Engines kept at most: the default policy's and a few a client varies between. A client
/// sending a new policy on every call gets a new engine each time, as before, without the
/// list growing past this.
const KEPT: usize = 8;

/// The engines of one server, newest last.
pub struct Engines {
    raw_outputs: Option<Template>,
    kept: Mutex<Vec<Arc<Engine>>>,
}

impl Engines {
    /// Engines whose rows without a raw output of their own find it through `raw_outputs`.
    pub fn new(raw_outputs: Option<Template>) -> Engines {
        Engines { raw_outputs, kept: Mutex::new(Vec::new()) }
    }

    /// The engine for `policy`, made now if none is kept.
    pub fn get(&self, policy: Policy) -> Arc<Engine> {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(engine) = kept.iter().find(|e| *e.policy() == policy) {
            return Arc::clone(engine);
        }
        let engine = Arc::new(Engine::new(policy, self.raw_outputs.clone(), None));
        if kept.len() == KEPT {
            kept.remove(0);
        }
        kept.push(Arc::clone(&engine));
        engine
    }
}

#[cfg(test)]
mod tests {
    use groundcheck_core::Rung;

    use super::*;

    #[test]
    fn one_engine_per_policy_is_kept() {
        let engines = Engines::new(None);
        let first = engines.get(Policy::default());
        assert!(Arc::ptr_eq(&first, &engines.get(Policy::default())));
        let exact = engines.get(Policy::default().with_max_rung(Rung::Exact));
        assert!(!Arc::ptr_eq(&first, &exact));
        for n in 1..=KEPT as i128 {
            engines.get(Policy::default().with_limit(groundcheck_core::Limit::Refs, n).unwrap());
        }
        assert_eq!(engines.kept.lock().unwrap().len(), KEPT);
    }
}
