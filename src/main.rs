//! The `groundcheck` command: wires groundcheck-core to files, formats and exit codes.

mod args;
mod failure;
mod load;
mod output;

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::Parser;
use groundcheck_core::{resolve, verify_runs, Json, Report, ResolveError, Status};

use crate::args::{Cli, Command, FailOn, Format};
use crate::failure::Failure;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut out = Vec::new();
    let result = match cli.command {
        Command::Verify { policy, format, fail_on, paths } => {
            verify(&paths, &policy.policy(), format, fail_on, &mut out)
        }
        Command::Resolve { path, file } => resolve_command(&path, &file, &mut out),
    };
    // Output is written only once the command has succeeded: a failing command prints one
    // stderr line and nothing on stdout.
    match result {
        Ok(code) => {
            let mut stdout = std::io::stdout().lock();
            match stdout.write_all(&out).and_then(|()| stdout.flush()) {
                Ok(()) => ExitCode::from(code),
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("groundcheck: cannot write the output: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Err(failure) => {
            eprintln!("{}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}

fn verify(
    paths: &[std::path::PathBuf],
    policy: &groundcheck_core::Policy,
    format: Format,
    fail_on: FailOn,
    out: &mut Vec<u8>,
) -> Result<u8, Failure> {
    let runs = load::load_runs(paths)?;
    let report = verify_runs(&runs, policy);
    let color =
        format == Format::Human && std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    output::write_report(&report, format, color, out).map_err(|e| Failure::input(e.to_string()))?;
    Ok(u8::from(fail_on_met(&report, fail_on)))
}

fn fail_on_met(report: &Report, fail_on: FailOn) -> bool {
    let verdicts = || report.runs.iter().flat_map(|r| &r.invocations);
    match fail_on {
        FailOn::Never => false,
        FailOn::Unsupported => verdicts().any(|v| v.status == Status::Unsupported),
        FailOn::ClaimMismatch => verdicts().any(|v| v.is_claim_mismatch()),
    }
}

fn resolve_command(path: &str, file: &std::path::Path, out: &mut Vec<u8>) -> Result<u8, Failure> {
    let text = load::read_text(file)?;
    let doc = Json::parse(&text).map_err(|e| Failure::input(format!("{}: {e}", load::display(file))))?;
    let nodes = resolve(path, &doc).map_err(|e| match e {
        ResolveError::Path(e) => Failure::input(format!("--path {path:?}: {e}")),
        too_deep => Failure::input(format!("{}: {too_deep}", load::display(file))),
    })?;
    let mut text = String::from("[");
    for (i, node) in nodes.iter().enumerate() {
        let sep = if i + 1 < nodes.len() { "," } else { "" };
        let path = serde_json::to_string(&node.path).unwrap_or_default();
        text.push_str(&format!("\n  {{\"path\": {path}, \"value\": {}}}{sep}", node.value));
    }
    text.push_str(if nodes.is_empty() { "]\n" } else { "\n]\n" });
    out.extend_from_slice(text.as_bytes());
    Ok(0)
}
