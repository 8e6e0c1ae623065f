//! `groundcheck run`: verify runs read from the database, optionally storing the verdicts.

use groundcheck_core::{Policy, Run};
use groundcheck_files::Template;
use groundcheck_host::{Engine, Verified};
use groundcheck_store::{into_run, RunKey, Store, Window};

use crate::args::{FailOn, Format};
use crate::cmd::deliver;
use crate::database;
use crate::failure::Failure;
use crate::otel::Sink;
use crate::output::{exit_code, Made, Output};

/// Reads each selected run in one query; a selector that matches no row is an error.
pub async fn read_runs(store: &Store, keys: &[RunKey]) -> Result<Vec<Run>, Failure> {
    let mut runs = Vec::with_capacity(keys.len());
    for key in keys {
        let rows = store.read_key(key, &Window::default()).await.map_err(database::failure)?;
        let Some(run) = into_run(rows) else {
            return Err(Failure::input(format!("{}: {key}: no invocations found", store.display_url())));
        };
        runs.push(run);
    }
    Ok(runs)
}

pub struct RunArgs<'a> {
    pub url: &'a str,
    pub policy: Policy,
    /// Where rows without a raw output of their own find one (`--raw-outputs`).
    pub raw_outputs: Option<Template>,
    pub format: Format,
    pub fail_on: FailOn,
    pub write: bool,
    /// `--write-without-raw-outputs`: write even when the template found no file at all.
    pub write_without_raw_outputs: bool,
    pub keys: Vec<RunKey>,
    /// `--otel`, `--otlp-endpoint`: the verdicts as OpenTelemetry events too.
    pub otel: Option<Sink>,
}

/// Verifies the selected runs with one engine (the policy, the template, one thread a core),
/// stores the verdicts with `--write`, and prints the report.
pub async fn run(args: RunArgs<'_>, out: &mut Output) -> Result<u8, Failure> {
    let store =
        if args.write { database::open(args.url).await? } else { database::open_read_only(args.url).await? };
    let mut runs = read_runs(&store, &args.keys).await?;
    let engine = Engine::new(args.policy, args.raw_outputs, None);
    let verified = engine.verify_runs(&mut runs);
    let Verified { report, lookups } = match verified {
        Ok(verified) => verified,
        Err(e) => {
            store.close().await;
            return Err(e.into());
        }
    };
    out.notes.extend(engine.raw_outputs().and_then(|t| lookups.counts.line(Some(t.as_str()))));
    if let (true, false, Some(template)) = (args.write, args.write_without_raw_outputs, engine.raw_outputs())
    {
        if let Some(why) = lookups.counts.none_found() {
            store.close().await;
            return Err(Failure::input(format!(
                "{}: --raw-outputs {}: {why}; no verdict was written: check the template, or pass \
                 --write-without-raw-outputs to store them anyway",
                store.display_url(),
                template.as_str()
            )));
        }
    }
    if args.write {
        let verdicts: Vec<_> = report
            .runs
            .iter()
            .flat_map(|r| r.invocations.iter().map(move |v| (r.run_id.as_deref(), v)))
            .collect();
        store
            .write_verdicts(&args.policy.key(), env!("CARGO_PKG_VERSION"), &verdicts)
            .await
            .map_err(database::failure)?;
    }
    store.close().await;
    let made = Made { runs: &runs, policy: engine.policy(), files: None, lookups: &lookups };
    deliver(&report, args.format, &made, args.otel, out)?;
    Ok(exit_code(&report, args.fail_on))
}
