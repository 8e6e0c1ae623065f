//! Running the real `groundcheck` binary and capturing what it did.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};

/// What one run of the binary produced.
#[derive(Debug)]
pub struct Outcome {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Whether the tests run under CI: `CI` set to anything but empty, `false` or `0` (CI services
/// set `true` or `1`). There a test that cannot run here fails instead of skipping.
pub fn under_ci() -> bool {
    means_ci(std::env::var("CI").ok().as_deref())
}

fn means_ci(ci: Option<&str>) -> bool {
    ci.is_some_and(|ci| !matches!(ci.trim(), "" | "false" | "0"))
}

#[test]
fn any_ci_value_but_empty_false_or_0_means_ci() {
    for (ci, means) in [(None, false), (Some(""), false), (Some("false"), false), (Some("0"), false)] {
        assert_eq!(means_ci(ci), means, "{ci:?}");
    }
    for ci in ["true", "1", "yes", "TRUE", "woodpecker"] {
        assert!(means_ci(Some(ci)), "{ci}");
    }
}

/// The repository root, where `fixtures/` lives.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A path under the repository root.
pub fn repo(path: &str) -> PathBuf {
    root().join(path)
}

/// Runs `groundcheck ARGS...` from the repository root.
pub fn run<I, S>(args: I) -> Outcome
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    run_with(args, &[], None)
}

/// Runs `groundcheck ARGS...` with extra environment variables and optional stdin.
pub fn run_with<I, S>(args: I, env: &[(&str, &str)], stdin: Option<&[u8]>) -> Outcome
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    run_in(&root(), args, env, stdin)
}

/// Runs `groundcheck ARGS...` in folder `dir` (where the default `groundcheck.db` lands).
pub fn run_in<I, S>(dir: &Path, args: I, env: &[(&str, &str)], stdin: Option<&[u8]>) -> Outcome
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_groundcheck"));
    cmd.args(args)
        .current_dir(dir)
        .env_remove("DATABASE_URL")
        .env_remove("NO_COLOR")
        .env_remove("GROUNDCHECK_RAW_OUTPUTS");
    // The OpenTelemetry exporter's variables of the shell running the tests would push.
    for (name, _) in std::env::vars_os().filter(|(n, _)| n.to_string_lossy().starts_with("OTEL_")) {
        cmd.env_remove(name);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the groundcheck binary runs");
    if let Some(input) = stdin {
        // A command may exit without reading all of its input (`verify - -` reads it once):
        // the pipe then breaks, which is its business, not the harness's.
        match child.stdin.take().expect("stdin is piped").write_all(input) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            Err(e) => panic!("stdin accepts input: {e}"),
        }
    }
    let out = child.wait_with_output().expect("groundcheck finishes");
    Outcome {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    }
}

/// A temporary folder that disappears with the test.
pub fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary folder")
}

/// Writes `text` to `dir/name` and returns its path.
pub fn write(dir: &Path, name: &str, text: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("the file is written");
    path
}

/// The output size of the corpora the job tests import (`examples/corpus.rs`'s `--scale`): what
/// they test is the job (batches, checkpoints, kills, resumes, shards), which takes as many
/// batches at any output size, while importing and reading the outputs is most of their cost.
/// At this scale an output has a few entries (some hundred bytes), at 1 some kilobytes.
pub const JOB_CORPUS_SCALE: f64 = 0.1;

/// Imports `n` invocations of the seeded corpus of `examples/corpus.rs` (runs of 10–40
/// invocations, ids from `first_id`, outputs at [`JOB_CORPUS_SCALE`]) into the database at
/// `url` with `groundcheck import`, from bundle files of 500 invocations; fails the test if the
/// import fails. Each corpus is generated once per process: the tests import the same one into
/// every engine, and generating it in a test build costs more than writing it out again.
pub fn import_corpus(url: &str, seed: u64, n: u64, first_id: i64) {
    type Bundles = Arc<OnceLock<Vec<String>>>;
    type Made = Mutex<HashMap<(u64, u64, i64), Bundles>>;
    static MADE: OnceLock<Made> = OnceLock::new();
    let bundles = {
        let mut made = MADE.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
        Arc::clone(made.entry((seed, n, first_id)).or_default())
    };
    let bundles = bundles.get_or_init(|| crate::corpus::bundles(seed, n, first_id, JOB_CORPUS_SCALE, 500));
    let dir = temp_dir();
    for (i, text) in bundles.iter().enumerate() {
        write(dir.path(), &format!("c{i:03}.json"), text);
    }
    let out = run(["import", "--database", url, dir.path().to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

/// A summary count (`invocations`, `unsupported`, …) added up over the runs of a JSON report:
/// the report's total, which it states only run by run.
pub fn summary_total(report: &serde_json::Value, key: &str) -> u64 {
    let runs = report["runs"].as_array().expect("the report has runs");
    runs.iter().map(|r| r["summary"][key].as_u64().unwrap_or_else(|| panic!("summary.{key}: {r}"))).sum()
}

/// The bundle files shipped in `fixtures/`, in name order.
pub fn fixture_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo("fixtures"))
        .expect("fixtures/ exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

/// Runs `script` with `sh -c` in folder `dir`, with the built `groundcheck` first on `PATH`:
/// for commands written as a user types them (pipes, redirections), such as `--help` examples.
pub fn run_shell(dir: &Path, script: &str) -> Outcome {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_groundcheck"));
    let bin_dir = bin.parent().expect("the binary is in a folder");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![bin_dir.to_path_buf()];
    dirs.extend(std::env::split_paths(&path));
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("PATH", std::env::join_paths(dirs).expect("PATH entries join"))
        .env_remove("DATABASE_URL")
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .output()
        .expect("sh runs");
    Outcome {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A temporary folder in which `fixtures` is the repository's `fixtures/` (a symbolic link),
/// so commands can name shipped bundles as a user would while writing only to the folder.
pub fn temp_dir_with_fixtures() -> tempfile::TempDir {
    let dir = temp_dir();
    std::os::unix::fs::symlink(repo("fixtures"), dir.path().join("fixtures")).expect("a symbolic link");
    dir
}
