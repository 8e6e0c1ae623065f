//! `groundcheck verify`: bundle files (or standard input) → report, without a database.

use std::path::PathBuf;

use groundcheck_core::{verify_runs, Policy};

use crate::args::{FailOn, Format};
use crate::failure::Failure;
use crate::load;
use crate::output::{exit_code, write_report_of_files, Output};

/// Verifies every bundle the PATHs name and prints the report; the exit code is `--fail-on`'s.
pub fn verify(
    paths: &[PathBuf],
    policy: &Policy,
    format: Format,
    fail_on: FailOn,
    out: &mut Output,
) -> Result<u8, Failure> {
    let loaded = load::load_runs(paths)?;
    let report = verify_runs(&loaded.runs, policy);
    write_report_of_files(&report, format, loaded.files, &mut out.head)?;
    out.notes.extend(loaded.notes);
    Ok(exit_code(&report, fail_on))
}
