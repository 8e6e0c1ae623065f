//! Replays every input saved under `fuzz/regressions/<target>/` through the checks of the
//! cargo-fuzz target of that name, on stable Rust, so a fixed fuzz finding stays fixed.
//!
//! The checks are the fuzz targets' own, `fuzz/checks.rs`, included here with `#[path]` (the
//! fuzz package is built on nightly, outside the workspace, so there is no crate to share).
//! Files directly in `fuzz/regressions/` (its README) are not inputs.

use std::fs;
use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::Duration;

#[path = "../fuzz/checks.rs"]
mod checks;

use crate::harness::repo;

/// What a fuzz target checks on one input (it panics when a check fails).
type Check = fn(&[u8]);

/// The targets, each with the check its fuzz target runs on one input.
const TARGETS: [(&str, Check); 3] = [
    ("bundle_parse", checks::bundle_parse),
    ("verify_invocation", checks::verify),
    ("resolve", checks::resolve_path),
];

/// The saved inputs of one target, sorted; none when its folder does not exist.
fn inputs(target: &str) -> Vec<PathBuf> {
    let dir = repo("fuzz/regressions").join(target);
    let Ok(entries) = fs::read_dir(&dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).filter(|p| p.is_file()).collect();
    files.sort();
    files
}

/// How long one input may take. The fuzzers stop at 10 s (`-timeout=10`, release build);
/// this is a debug build, but every saved input takes milliseconds once its bug is fixed,
/// and the hangs kept here take minutes while they are not.
const TIME_LIMIT: Duration = Duration::from_secs(20);

/// Runs `check` on every input, each on its own thread within [`TIME_LIMIT`]: how many ran,
/// and each input that panicked or overran (all of them, not just the first).
fn replay(target: &str, check: Check) -> (usize, Vec<String>) {
    let files = inputs(target);
    let failed: Vec<String> = files
        .iter()
        .filter_map(|file| {
            let bytes = fs::read(file).unwrap();
            let (done, finished) = mpsc::channel();
            // A panic drops `done` unsent; an overrun leaves the thread behind until the
            // test binary exits.
            thread::spawn(move || {
                check(&bytes);
                let _ = done.send(());
            });
            match finished.recv_timeout(TIME_LIMIT) {
                Ok(()) => None,
                Err(RecvTimeoutError::Disconnected) => Some(format!("{}: panicked", file.display())),
                Err(RecvTimeoutError::Timeout) => {
                    Some(format!("{}: still running after {TIME_LIMIT:?}", file.display()))
                }
            }
        })
        .collect();
    (files.len(), failed)
}

/// Every saved input of every target passes its target's checks.
#[test]
fn saved_fuzz_inputs_pass_their_targets_checks() {
    let root = repo("fuzz/regressions");
    assert!(root.is_dir(), "{} is missing", root.display());
    for entry in fs::read_dir(&root).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            !path.is_dir() || TARGETS.iter().any(|(t, _)| *t == name),
            "{}: not a fuzz target's folder",
            path.display()
        );
    }
    let mut failed = Vec::new();
    for (target, check) in TARGETS {
        let (n, failures) = replay(target, check);
        println!("fuzz regressions: {n} {target} input(s) replayed");
        failed.extend(failures);
    }
    assert!(failed.is_empty(), "these saved fuzz inputs fail again: {failed:#?}");
}
