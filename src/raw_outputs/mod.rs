//! Raw outputs read from the files where an agent keeps them (`--raw-outputs TEMPLATE`, or
//! `GROUNDCHECK_RAW_OUTPUTS`): the I/O half of the rule, kept out of the pure engine, which
//! only sees what a lookup found ([`RawOutputFile`]).

mod read;
mod template;

use groundcheck_core::{Invocation, RawOutputFile};
use rayon::prelude::*;

pub use crate::raw_outputs::template::Template;

/// Looks up the raw output file of every invocation without a raw output of its own, in
/// parallel, reading at most one byte past `max_bytes` of (decompressed) text per file.
pub fn attach(template: &Template, invocations: &mut [Invocation], max_bytes: usize) {
    invocations.par_iter_mut().filter(|inv| inv.raw_output.is_none()).for_each(|inv| {
        let (file, lossy) = match template.path_for(inv) {
            Some(path) => read::read(&path, max_bytes),
            None => (RawOutputFile::PathUnsafe, false),
        };
        inv.invalid_utf8 |= lossy;
        inv.raw_output_file = Some(file);
    });
}
