//! `groundcheck verify`: bundle files (or standard input) → report, without a database.

use std::path::PathBuf;

use groundcheck_core::Policy;

use crate::args::{FailOn, Format};
use crate::failure::Failure;
use crate::load;
use crate::output::{exit_code, write_report_of_files, Output};
use crate::raw_outputs::Template;

/// What `verify` was asked to do.
pub struct VerifyArgs<'a> {
    pub paths: &'a [PathBuf],
    pub policy: Policy,
    /// Where rows without a raw output of their own find one (`--raw-outputs`).
    pub raw_outputs: Option<Template>,
    pub format: Format,
    pub fail_on: FailOn,
}

/// Verifies every bundle the PATHs name and prints the report; the exit code is `--fail-on`'s.
pub fn verify(args: VerifyArgs<'_>, out: &mut Output) -> Result<u8, Failure> {
    // One file at a time: memory holds no more than a file per thread, not every raw output.
    let loaded = load::verify_files(args.paths, &args.policy, args.raw_outputs.as_ref())?;
    write_report_of_files(&loaded.report, args.format, loaded.files, &mut out.head)?;
    out.notes.extend(loaded.notes);
    Ok(exit_code(&loaded.report, args.fail_on))
}
