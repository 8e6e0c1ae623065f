//! `groundcheck run`: verify runs read from the database, optionally storing the verdicts.

use groundcheck_core::{verify_runs, Policy, Run};
use groundcheck_store::{Store, StoredRow};

use crate::args::{FailOn, Format};
use crate::database;
use crate::failure::Failure;
use crate::output::{exit_code, write_report};

/// Where a run comes from: a `run_id`, or a session's rows without one.
pub enum Selector<'a> {
    Run(&'a str),
    Session(&'a str),
}

/// Reads each selected run in one query; a selector that matches no row is an error.
pub async fn read_runs(store: &Store, selectors: &[Selector<'_>]) -> Result<Vec<Run>, Failure> {
    let mut runs = Vec::with_capacity(selectors.len());
    for selector in selectors {
        let (rows, what) = match selector {
            Selector::Run(id) => (store.read_run(id).await, format!("run {id}")),
            Selector::Session(id) => {
                (store.read_session(id).await, format!("session {id} (rows without run_id)"))
            }
        };
        let rows = rows.map_err(database::failure)?;
        if rows.is_empty() {
            return Err(Failure::input(format!("{}: {what}: no invocations found", store.display_url())));
        }
        runs.push(into_run(rows));
    }
    Ok(runs)
}

/// A run's rows (non-empty, in id order) as the core's `Run`: its session is the first row's.
pub fn into_run(rows: Vec<StoredRow>) -> Run {
    let invocations: Vec<_> = rows.into_iter().map(StoredRow::into_invocation).collect();
    Run { run_id: invocations[0].run_id.clone(), session_id: invocations[0].session_id.clone(), invocations }
}

pub struct RunArgs<'a> {
    pub url: &'a str,
    pub policy: Policy,
    pub format: Format,
    pub fail_on: FailOn,
    pub write: bool,
    pub selectors: Vec<Selector<'a>>,
}

pub async fn run(args: RunArgs<'_>, out: &mut Vec<u8>) -> Result<u8, Failure> {
    let store = database::open(args.url).await?;
    let runs = read_runs(&store, &args.selectors).await?;
    let report = verify_runs(&runs, &args.policy);
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
    write_report(&report, args.format, out)?;
    Ok(exit_code(&report, args.fail_on))
}
