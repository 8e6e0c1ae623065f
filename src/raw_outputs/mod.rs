//! Raw outputs read from the files where an agent keeps them (`--raw-outputs TEMPLATE`, or
//! `GROUNDCHECK_RAW_OUTPUTS`): the I/O half of the rule, kept out of the pure engine, which
//! only sees what a lookup found ([`RawOutputFile`]).

mod read;
mod template;

use groundcheck_core::{Invocation, RawOutputFile, Run};
use rayon::prelude::*;

pub use crate::raw_outputs::template::Template;

/// Looks up the raw output file of every invocation of `runs` without a raw output of its
/// own, all in parallel, reading at most one byte past `max_bytes` of (decompressed) text per
/// file.
pub fn attach(template: &Template, runs: &mut [Run], max_bytes: usize) {
    let invocations = runs.par_iter_mut().flat_map(|run| run.invocations.par_iter_mut());
    invocations.for_each(|inv| attach_one(template, inv, max_bytes));
}

/// [`attach`] for one invocation: its raw output file looked up (and read), unless it has a
/// raw output of its own.
pub fn attach_one(template: &Template, inv: &mut Invocation, max_bytes: usize) {
    if inv.raw_output.is_some() {
        return;
    }
    let (file, lossy) = match template.path_for(inv) {
        Some(path) => read::read(&path, max_bytes),
        None => (RawOutputFile::PathUnsafe, false),
    };
    inv.invalid_utf8 |= lossy;
    inv.raw_output_file = Some(file);
}
