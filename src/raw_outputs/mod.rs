//! Raw outputs read from the files where an agent keeps them (`--raw-outputs TEMPLATE`, or
//! `GROUNDCHECK_RAW_OUTPUTS`): the I/O half of the rule, kept out of the pure engine, which
//! only sees what a lookup found ([`RawOutputFile`]). Files are opened only beneath the
//! template's root (`beneath.rs`), and every lookup is counted ([`Lookups`]).

mod beneath;
mod lookups;
mod read;
mod template;

use groundcheck_core::{Invocation, RawOutputFile, Run};
use rayon::prelude::*;

pub use crate::raw_outputs::lookups::{row_key, Lookup, LookupCounts, Lookups};
pub use crate::raw_outputs::template::Template;

/// Looks up the raw output file of every invocation of `runs` without a raw output of its
/// own, all in parallel, reading at most one byte past `max_bytes` of (decompressed) text per
/// file; returns what the lookups found, in input order.
pub fn attach(template: &Template, runs: &mut [Run], max_bytes: usize) -> Lookups {
    let invocations = runs.par_iter_mut().flat_map(|run| run.invocations.par_iter_mut());
    let found: Vec<Option<Lookup>> = invocations.map(|inv| attach_one(template, inv, max_bytes)).collect();
    let mut lookups = Lookups::default();
    found.into_iter().flatten().for_each(|lookup| lookups.add(lookup));
    lookups
}

/// [`attach`] for one invocation: its raw output file looked up (and read), unless it has a
/// raw output of its own (then `None`: nothing was looked up).
pub fn attach_one(template: &Template, inv: &mut Invocation, max_bytes: usize) -> Option<Lookup> {
    if inv.raw_output.is_some() {
        return None;
    }
    let path = template.path_for(inv);
    let (file, lossy) = match &path {
        Some(path) => read::read(path, max_bytes),
        None => (RawOutputFile::PathUnsafe, false),
    };
    inv.invalid_utf8 |= lossy;
    inv.raw_output_file = Some(file);
    Lookup::of(inv, path.map(|p| p.full()))
}
