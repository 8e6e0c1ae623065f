//! `groundcheck verify`: bundle files (or standard input) → report, without a database.

use std::path::PathBuf;

use groundcheck_core::{Policy, Verifier};

use crate::args::{FailOn, Format};
use crate::cmd::deliver;
use crate::failure::Failure;
use crate::load;
use crate::otel::Sink;
use crate::output::{exit_code, Made, Output};
use groundcheck_files::Template;

/// What `verify` was asked to do.
pub struct VerifyArgs<'a> {
    pub paths: &'a [PathBuf],
    /// The most bytes one bundle file may hold (`--max-bundle-bytes`).
    pub max_bundle: load::MaxBytes,
    pub policy: Policy,
    /// Where rows without a raw output of their own find one (`--raw-outputs`).
    pub raw_outputs: Option<Template>,
    pub format: Format,
    pub fail_on: FailOn,
    /// `--otel`, `--otlp-endpoint`: the verdicts as OpenTelemetry events too.
    pub otel: Option<Sink>,
}

/// Verifies every bundle the PATHs name and prints the report; the exit code is `--fail-on`'s.
///
/// One file at a time, so memory holds no more than a file per thread — except for the
/// `html` page, which shows the raw outputs and so keeps every run it shows.
pub fn verify(args: VerifyArgs<'_>, out: &mut Output) -> Result<u8, Failure> {
    let (verified, runs) = if args.format == Format::Html {
        let mut loaded = load::load_runs(args.paths, args.max_bundle)?;
        let max = args.policy.limits().get(groundcheck_core::Limit::OutputSize);
        let lookups = groundcheck_files::attach(args.raw_outputs.as_ref(), &mut loaded.runs, max);
        let report = Verifier::new(args.policy).verify_runs(&loaded.runs);
        (load::Verified { report, files: loaded.files, notes: loaded.notes, lookups }, loaded.runs)
    } else {
        (
            load::verify_files(args.paths, &args.policy, args.raw_outputs.as_ref(), args.max_bundle)?,
            Vec::new(),
        )
    };
    let load::Verified { report, files, notes, lookups } = verified;
    out.notes.extend(notes);
    out.notes.extend(args.raw_outputs.as_ref().and_then(|t| lookups.counts.line(Some(t.as_str()))));
    let made = Made { runs: &runs, policy: &args.policy, files: Some(files), lookups: &lookups };
    deliver(&report, args.format, &made, args.otel, out)?;
    Ok(exit_code(&report, args.fail_on))
}
