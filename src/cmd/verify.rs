//! `groundcheck verify`: bundle files (or standard input) → report, without a database.

use std::path::PathBuf;

use groundcheck_core::Policy;
use groundcheck_files::Template;
use groundcheck_host::Engine;

use crate::args::{FailOn, Format};
use crate::cmd::deliver;
use crate::failure::Failure;
use crate::load;
use crate::otel::Sink;
use crate::output::{exit_code, Made, Output};

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

/// Verifies every bundle the PATHs name with one engine (the policy, the template, one
/// thread a core) and prints the report; the exit code is `--fail-on`'s.
///
/// One file at a time, so memory holds no more than a file per thread — except for the
/// `html` page, which shows the raw outputs and so keeps every run it shows.
pub fn verify(args: VerifyArgs<'_>, out: &mut Output) -> Result<u8, Failure> {
    let engine = Engine::new(args.policy, args.raw_outputs, None);
    let (verified, runs) = if args.format == Format::Html {
        // Parsed on the engine's threads too: one pool for the whole command.
        let mut loaded = engine.threads().install(|| load::load_runs(args.paths, args.max_bundle))??;
        let groundcheck_host::Verified { report, lookups } = engine.verify_runs(&mut loaded.runs)?;
        (load::Verified { report, files: loaded.files, notes: loaded.notes, lookups }, loaded.runs)
    } else {
        (load::verify_files(args.paths, &engine, args.max_bundle)?, Vec::new())
    };
    let load::Verified { report, files, notes, lookups } = verified;
    out.notes.extend(notes);
    out.notes.extend(engine.raw_outputs().and_then(|t| lookups.counts.line(Some(t.as_str()))));
    let made = Made { runs: &runs, policy: engine.policy(), files: Some(files), lookups: &lookups };
    deliver(&report, args.format, &made, args.otel, out)?;
    Ok(exit_code(&report, args.fail_on))
}
