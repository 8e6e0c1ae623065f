//! `groundcheck reverify`: the command line handed to the reverify wing ([`crate::reverify`]).

use crate::args::{ReverifyArgs, ReverifyFormat};
use crate::failure::Failure;
use crate::otel::Sink;
use crate::output::Output;
use crate::reverify::{self, Format, Request};

/// Runs `reverify` with the arguments clap parsed.
pub async fn reverify(args: ReverifyArgs, out: &mut Output) -> Result<u8, Failure> {
    let otel = Sink::open(&args.otel, args.policy.policy())?;
    let request = Request {
        url: &args.database.database,
        policy: args.policy.policy(),
        compare_with: args.compare_with.as_deref(),
        raw_outputs: args.raw.template()?,
        format: match args.format {
            ReverifyFormat::Human => Format::Human,
            ReverifyFormat::Json => Format::Json,
            ReverifyFormat::Jsonl => Format::Jsonl,
        },
        since: args.since.as_deref(),
        until: args.until.as_deref(),
        tools: args.tools,
        runs: args.runs,
        shard: args.shard.as_deref(),
        jobs: args.jobs,
        write: args.write,
        resume: args.resume,
        write_without_raw_outputs: args.write_without_raw_outputs,
        batch_rows: args.batch_rows,
        command_line: std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect(),
        otel,
    };
    reverify::reverify(request, out).await
}
