//! The `groundcheck` command: wires groundcheck-core and groundcheck-store to files, formats
//! and exit codes.

mod args;
mod cmd;
mod database;
mod failure;
mod load;
mod otel;
mod output;
mod reverify;
mod visible;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

use crate::args::{Cli, Command};

/// mimalloc, not the system allocator: verification allocates and frees millions of small
/// tree nodes and strings, and mimalloc spends clearly less CPU time on them for a somewhat
/// higher peak RSS. Its version 2, not 3: version 3 kept far more memory committed than the
/// heap's peak and faulted it back in. The measurements are in benches/README.md
/// ("The allocator").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use groundcheck_store::RunKey;

use crate::cmd::run::RunArgs;
use crate::failure::Failure;

fn main() -> ExitCode {
    let matches = match Cli::command().try_get_matches() {
        Ok(matches) => matches,
        Err(e) => return usage_error(e),
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    // Only `run` and `export` take RUN_IDs and --session; their relative order matters.
    let order = || matches.subcommand().map(|(_, m)| argument_order(m)).unwrap_or_default();
    if let Some(database) = cli.command.database() {
        database::set_statement_timeout(database.statement_timeout);
    }
    let mut output = output::Output::default();
    let out = &mut output.head;
    let result = match cli.command {
        Command::Verify { policy, report, raw, otel, bundle, paths } => raw.template().and_then(|raw| {
            let args = cmd::verify::VerifyArgs {
                paths: &paths,
                max_bundle: load::MaxBytes::bundle(
                    bundle.max_bundle_bytes,
                    policy.policy().limits().get(groundcheck_core::Limit::OutputSize),
                ),
                policy: policy.policy(),
                raw_outputs: raw,
                format: report.format,
                fail_on: report.fail_on,
                otel: otel::Sink::open(&otel, policy.policy())?,
            };
            cmd::verify::verify(args, &mut output)
        }),
        Command::Resolve { path, file, limits } => cmd::resolve::resolve(&path, &file, &limits.limits(), out),
        Command::Run {
            database,
            policy,
            report,
            raw,
            otel,
            write,
            write_without_raw_outputs,
            sessions,
            runs,
        } => raw.template().and_then(|raw| {
            let keys = run_keys(&runs, &sessions, &order());
            let args = RunArgs {
                url: &database.database,
                policy: policy.policy(),
                raw_outputs: raw,
                format: report.format,
                fail_on: report.fail_on,
                write,
                write_without_raw_outputs,
                keys,
                otel: otel::Sink::open(&otel, policy.policy())?,
            };
            block_on(cmd::run::run(args, &mut output))
        }),
        Command::Import { database, bundle, paths } => {
            let max = load::MaxBytes::bundle(bundle.max_bundle_bytes, 0);
            block_on(cmd::import::import(&database.database, &paths, max, &mut output))
        }
        Command::Export { database, raw, out: dir, sessions, runs } => raw.template().and_then(|raw| {
            let keys = run_keys(&runs, &sessions, &order());
            block_on(cmd::export::export(&database.database, &keys, raw.as_ref(), &dir, &mut output))
        }),
        Command::Reverify(args) => block_on(cmd::reverify::reverify(args, &mut output)),
        Command::Migrate { database } => block_on(cmd::migrate::migrate(&database.database, out)),
        Command::Completions { shell } => cmd::generate::completions(shell, out),
        Command::Man { command } => cmd::generate::man(command.as_deref(), out),
        Command::Mcp { database, raw } => raw.template().and_then(|raw| {
            groundcheck_mcp::serve_stdio(database.as_deref(), raw)
                .map(|()| 0)
                // A database error starts with the (redacted) URL, as every command's does.
                .map_err(|e| Failure::input(e.to_string()))
        }),
    };
    // Output is written only once the command has succeeded: a failing command prints one
    // stderr line and nothing on stdout.
    match result {
        Ok(code) => {
            let mut stdout = std::io::stdout().lock();
            match output.write_to(&mut stdout) {
                Ok(()) => ExitCode::from(code),
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(e) => {
                    crate::failure::say(&format!("stdout: cannot write the output: {e}"));
                    ExitCode::from(2)
                }
            }
        }
        Err(failure) => {
            crate::failure::say(&failure.message);
            ExitCode::from(failure.exit_code())
        }
    }
}

/// A flag with a bad value is one stderr line (`error: invalid value '0' for '--min-score
/// <S>': must be above 0`) and exit 2; everything else clap says (help, version, unknown
/// flags with their suggestions) is printed as clap prints it.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::InvalidValue | ErrorKind::ValueValidation) {
        let text = e.to_string();
        crate::failure::say(text.lines().next().unwrap_or("error: invalid value"));
        return ExitCode::from(2);
    }
    e.exit()
}

/// For each RUN_ID and `--session` value, in command-line order: whether it is a session.
fn argument_order(matches: &clap::ArgMatches) -> Vec<bool> {
    let indices =
        |id: &str| -> Vec<usize> { matches.indices_of(id).map(Iterator::collect).unwrap_or_default() };
    let mut all: Vec<(usize, bool)> = indices("runs").into_iter().map(|i| (i, false)).collect();
    all.extend(indices("sessions").into_iter().map(|i| (i, true)));
    all.sort_unstable();
    all.into_iter().map(|(_, is_session)| is_session).collect()
}

/// Runs and sessions interleaved as they were given, so a report lists them in that order.
fn run_keys(runs: &[String], sessions: &[String], order: &[bool]) -> Vec<RunKey> {
    let (mut runs, mut sessions) = (runs.iter(), sessions.iter());
    let mut keys: Vec<RunKey> = order
        .iter()
        .filter_map(|&is_session| {
            if is_session {
                sessions.next().map(|s| RunKey::Session(s.clone()))
            } else {
                runs.next().map(|r| RunKey::Run(r.clone()))
            }
        })
        .collect();
    keys.extend(runs.map(|r| RunKey::Run(r.clone())));
    keys.extend(sessions.map(|s| RunKey::Session(s.clone())));
    keys
}

/// Database commands are async (sqlx); one current-thread runtime is all they need, since
/// verification itself runs on rayon.
fn block_on<F: std::future::Future<Output = Result<u8, Failure>>>(future: F) -> Result<u8, Failure> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
    match runtime {
        Ok(runtime) => runtime.block_on(future),
        Err(e) => Err(Failure::input(format!("tokio runtime: cannot start: {e}"))),
    }
}
