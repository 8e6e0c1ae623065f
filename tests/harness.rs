//! Running the real `groundcheck` binary and capturing what it did.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What one run of the binary produced.
#[derive(Debug)]
pub struct Outcome {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
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
    cmd.args(args).current_dir(dir).env_remove("DATABASE_URL").env_remove("NO_COLOR");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the groundcheck binary runs");
    if let Some(input) = stdin {
        child.stdin.take().expect("stdin is piped").write_all(input).expect("stdin accepts input");
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
