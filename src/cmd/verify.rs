//! `groundcheck verify`: bundle files → report.

use std::path::PathBuf;

use groundcheck_core::{verify_runs, Policy};

use crate::args::{FailOn, Format};
use crate::failure::Failure;
use crate::load;
use crate::output::{exit_code, write_report};

pub fn verify(
    paths: &[PathBuf],
    policy: &Policy,
    format: Format,
    fail_on: FailOn,
    out: &mut Vec<u8>,
) -> Result<u8, Failure> {
    let runs = load::load_runs(paths)?;
    let report = verify_runs(&runs, policy);
    write_report(&report, format, out)?;
    Ok(exit_code(&report, fail_on))
}
