//! OpenTelemetry output: every verdict as a `gen_ai.evaluation.result` event (built by
//! `groundcheck-otel`), written as OTLP JSON lines to `--otel FILE` ([`file`]) and pushed to
//! `--otlp-endpoint URL` or the `OTEL_*` variables' endpoint ([`push`], [`endpoint`],
//! [`config`]), timed by [`time`].
//!
//! One [`Sink`] per command: `verify` and `run` hand it their report, `reverify` each batch
//! as it is committed; [`Sink::finish`] puts the file in place and waits, boundedly, for the
//! push. Neither output changes the report or the exit code; only a file that cannot be
//! written fails the command (it is an output that was asked for).

mod config;
mod endpoint;
mod file;
mod push;
mod time;

use groundcheck_core::{Limits, Policy, RunReport};
use groundcheck_otel::proto::tonic::logs::v1::LogsData;
use groundcheck_otel::{evaluation_record, json_line, Batcher, Context, Origin, RunIds};

use crate::args::OtelArgs;
use crate::failure::Failure;
use crate::otel::config::{process_env, Settings};
use crate::otel::file::Lines;
use crate::otel::push::Pusher;
use crate::otel::time::Clock;
use crate::output::Output;

/// `service.name` of every record.
const SERVICE_NAME: &str = "groundcheck";

/// Where a command's verdicts go as OpenTelemetry events.
pub struct Sink {
    batcher: Batcher,
    policy: String,
    limits: Limits,
    clock: Clock,
    lines: Option<Lines>,
    pusher: Option<Pusher>,
    /// Said when the command ends (`OTEL_SDK_DISABLED` with `--otlp-endpoint`).
    note: Option<String>,
}

impl Sink {
    /// The sink the flags and the `OTEL_*` variables ask for, if any; `policy` is the
    /// policy the verdicts are decided under (its key, and the limits an explanation
    /// names). Bad flags and variables fail before anything is verified.
    pub fn open(args: &OtelArgs, policy: Policy) -> Result<Option<Sink>, Failure> {
        let endpoint = args.otlp_endpoint.as_deref();
        let settings = Settings::read(endpoint, &args.otlp_headers, args.otel.is_some(), &process_env)?;
        if args.otel.is_none() && settings.push.is_none() && settings.note.is_none() {
            return Ok(None);
        }
        let clock = Clock::parse(args.otel_time.as_deref())?;
        let lines = args.otel.as_deref().map(Lines::create).transpose()?;
        let origin = Origin { service_name: SERVICE_NAME, version: env!("CARGO_PKG_VERSION") };
        Ok(Some(Sink {
            batcher: Batcher::with_resource(origin, &settings.resource),
            policy: policy.key(),
            limits: policy.limits(),
            clock,
            lines,
            pusher: settings.push.map(Pusher::start),
            note: settings.note,
        }))
    }

    /// Whether the OTLP lines take standard output (`--otel -`): the report is then not
    /// printed, so a pipeline reads one format.
    pub fn takes_stdout(&self) -> bool {
        self.lines.as_ref().is_some_and(Lines::is_stdout)
    }

    /// Records the verdicts of `runs`, all at the time of this call.
    pub fn runs(&mut self, runs: &[RunReport]) {
        if self.lines.is_none() && self.pusher.is_none() {
            return; // OTEL_SDK_DISABLED: nothing to make records for
        }
        let context =
            Context { time_unix_nano: self.clock.now(), policy: &self.policy, limits: &self.limits };
        for run in runs {
            let ids = RunIds { run_id: run.run_id.as_deref(), session_id: run.session_id.as_deref() };
            for verdict in &run.invocations {
                if let Some(full) = self.batcher.push(evaluation_record(verdict, ids, context)) {
                    emit(&mut self.lines, &mut self.pusher, full);
                }
            }
        }
    }

    /// Flushes the last batch, puts the file in place (standard output: into `out`'s spool)
    /// and waits for the push, at most its bound; a push that fell short is one note.
    pub fn finish(mut self, out: &mut Output) -> Result<(), Failure> {
        if let Some(last) = self.batcher.take() {
            emit(&mut self.lines, &mut self.pusher, last);
        }
        let warning = self.pusher.take().and_then(Pusher::finish);
        out.notes.extend(self.note.take());
        out.notes.extend(warning);
        if let Some(stdout) = self.lines.take().map(Lines::finish).transpose()?.flatten() {
            out.spool = Some(stdout);
        }
        Ok(())
    }
}

fn emit(lines: &mut Option<Lines>, pusher: &mut Option<Pusher>, data: LogsData) {
    if let Some(lines) = lines {
        lines.write(&json_line(&data));
    }
    if let Some(pusher) = pusher {
        pusher.send(data);
    }
}
