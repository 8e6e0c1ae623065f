//! groundcheck-files reads raw outputs from the files where an agent keeps them, beside its
//! sessions (`--raw-outputs TEMPLATE` on the command line): the I/O half of the rule, kept out
//! of the pure engine, which only sees what a lookup found ([`RawOutputFile`]). The command
//! line and the language bindings share it, so a file is found, refused or read the same way
//! from every caller.
//!
//! A [`Template`] names each row's file (`/var/lib/agent/sessions/{session_id}/tools/{id}.json`);
//! [`attach`] and [`attach_one`] look the files up and record what they found on the
//! invocations. Files are opened only beneath the template's root — the folder before its
//! first placeholder — one path component at a time, so neither a value in a row nor a
//! symbolic link planted in a session folder can make it read elsewhere; only regular files
//! with one link are read (a hard link is refused unless [`Template::allow_hard_links`]), never
//! more than one byte past the size limit (after decompressing `.gz` and `.zst`); every lookup
//! is counted ([`Lookups`]) so a wrong template is loud.
//!
//! ```
//! use groundcheck_core::{Invocation, RawOutputFile};
//! use groundcheck_files::{attach_one, Found, Template};
//!
//! let template: Template = "/var/lib/agent/sessions/{session_id}/tools/{id}.json".parse()?;
//! let mut row = Invocation { id: 7, session_id: Some("../etc".into()), ..Invocation::default() };
//! // A value that could leave the folder names no file: nothing is opened.
//! let lookup = attach_one(&template, &mut row, 64 << 20).expect("the row has no raw output of its own");
//! assert_eq!(lookup.found, Found::Unsafe);
//! assert_eq!(row.raw_output_file, Some(RawOutputFile::PathUnsafe));
//! # Ok::<(), groundcheck_files::TemplateError>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod beneath;
mod lookups;
mod read;
mod template;

use groundcheck_core::{Invocation, RawOutputFile, Run};
use rayon::prelude::*;

pub use crate::lookups::{row_key, Found, Lookup, LookupCounts, Lookups, Misses, RowKey};
pub use crate::template::{FilePath, Template, TemplateError};

/// Looks up the raw output file of every invocation of `runs` without a raw output of its
/// own, all in parallel, reading at most one byte past `max_bytes` of (decompressed) text per
/// file; returns what the lookups found, in input order. Without a template nothing is looked
/// up, and the lookups are empty.
pub fn attach(template: Option<&Template>, runs: &mut [Run], max_bytes: usize) -> Lookups {
    let Some(template) = template else { return Lookups::default() };
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
