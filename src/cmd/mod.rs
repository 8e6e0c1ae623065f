//! One module per command; each returns the exit code or a [`Failure`](crate::failure::Failure).

pub mod export;
pub mod generate;
pub mod import;
pub mod migrate;
pub mod resolve;
pub mod reverify;
pub mod run;
pub mod verify;

use groundcheck_core::Report;

use crate::args::Format;
use crate::failure::Failure;
use crate::otel::Sink;
use crate::output::{self, Made, Output};

/// Writes `report` to `out` in `format` and hands it to the OpenTelemetry sink, if any:
/// what `verify` and `run` end with. `--otel -` takes standard output, so the report is then
/// not written (a pipeline reads one format).
pub fn deliver(
    report: &Report,
    format: Format,
    made: &Made<'_>,
    otel: Option<Sink>,
    out: &mut Output,
) -> Result<(), Failure> {
    if !otel.as_ref().is_some_and(Sink::takes_stdout) {
        output::write_report(report, format, made, &mut out.head)?;
    }
    if let Some(mut otel) = otel {
        otel.runs(&report.runs);
        otel.finish(out)?;
    }
    Ok(())
}
