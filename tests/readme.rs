//! Every example in `README.md` (and in `docs/`) runs as shown, against the binary under test;
//! [`links`] checks that the docs refer to nothing outside the repository.
//!
//! The examples are read from the README each time, so an example added later is tested
//! without touching this file. What counts as an example, block by block (fenced blocks only;
//! inline code is prose):
//!
//! - **Transcripts**: a `sh`, `shell`, `bash`, `console` or `text` block with lines starting
//!   with `$ `. Each `$ ` line is a command (a line ending in `\` continues it); the lines
//!   after it, up to the next `$ ` line, are its shown output, compared line by line with what
//!   the command prints on stdout and stderr together (trailing white space and trailing blank
//!   lines aside). A shown line that is exactly `...` stands for any number of lines. Commands
//!   in [`UNSTABLE_OUTPUT`] run, but their output is not compared.
//! - **Scripts**: a `sh`, `shell` or `bash` block without `$ ` lines. Each line that is not
//!   blank or a `#` comment is a command (a line ending in `\` continues it); output is not
//!   compared. A `text` block without `$ ` lines (a usage synopsis, sample output) is not run.
//! - **Bundles**: a `json` block whose value is an object with an `invocations` key. It is
//!   written to a file, and `groundcheck verify` and `groundcheck import` (into a database of
//!   its own) must both accept it. Other `json` blocks are shown data, not run.
//! - **Rust**: a `rust` block must appear, line for line, in this file's `rust_examples`
//!   module, which the compiler checks and [`readme_rust_examples_run`] runs.
//! - **Skipped blocks**: languages in [`SKIPPED_LANGUAGES`] (with the reason there).
//!
//! How commands run: in README order, one after another, in one temporary folder holding a
//! copy of `fixtures/` (so a later example sees what an earlier one wrote, as for a reader
//! following along), each by `sh -c`, with a `groundcheck` first on `PATH` that is the binary
//! under test, stdin empty, and the variables of [`ENVIRONMENT`] set. [`REWRITES`] turns
//! `cargo run` into that binary. Every command must exit 0; an example that shows a failure
//! says so itself (`groundcheck verify bad.json || echo "exit code $?"`).
//!
//! What is not run: a command containing an entry of [`SKIPPED_COMMANDS`] (servers, the test
//! suite itself, long runs, the repository's git checkout), each entry with its reason. The
//! list of what ran and what was skipped, and why, is printed (`cargo test --test integration
//! readme:: -- --nocapture` shows it). An example that cannot run here for a new reason is
//! added to that list, with the reason, rather than left failing or made to pass.

mod links;
mod markdown;

use std::path::Path;
use std::process::{Command as Process, Stdio};

use markdown::{Block, Command};

use crate::harness;

/// Commands not run, by a piece of their text, and why.
const SKIPPED_COMMANDS: &[(&str, &str)] = &[
    ("cargo test", "runs the test suite, of which this test is a part"),
    ("scripts/test.sh", "sets up and runs the test suite, of which this test is a part"),
    ("cargo build", "a release build; the suite has already built the binary it tests"),
    ("cargo bench", "a benchmark run of minutes"),
    ("cargo insta", "reviews snapshots interactively (and needs cargo-insta)"),
    ("cargo install", "installs a tool from the network"),
    ("scripts/test-databases.sh", "installs, starts or stops MariaDB and PostgreSQL servers"),
    ("git ", "works on the repository's own git checkout, which the temporary folder is not"),
    ("200,000", "needs the generated 200,000-invocation corpus in a database"),
    ("benches/", "a benchmark script of minutes"),
    ("pip install", "builds the Python package from source in release, with maturin from the network"),
    ("maturin build", "builds the Python wheel in release; the suite builds and tests the package itself"),
    (
        "scripts/build-wheel.sh",
        "builds the release wheel; scripts/test.sh builds it and tests/test_wheel.py tests it",
    ),
    (
        "scripts/build-jar.sh",
        "builds the release jar; scripts/test-java.sh builds it and runs the Java suite on it",
    ),
    ("mvn ", "installs the built jar into a Maven repository (needs Maven)"),
];

/// Block languages not run, and why.
const SKIPPED_LANGUAGES: &[(&str, &str)] =
    &[("yaml", "Kubernetes manifests and other configuration: they need a cluster")];

/// Commands whose output is not compared: it holds times or rates.
const UNSTABLE_OUTPUT: &[(&str, &str)] =
    &[("groundcheck reverify", "prints elapsed time and rows per second")];

/// Text replaced in every command before it runs: `cargo run` is the binary under test.
const REWRITES: &[(&str, &str)] =
    &[("cargo run --release -- ", "groundcheck "), ("cargo run -- ", "groundcheck ")];

/// Variables every command sees, for examples that name a database of the reader's.
const ENVIRONMENT: &[(&str, &str)] = &[
    // "The agent's database": here the one the README's first example fills (`import fixtures/`).
    ("AGENT_DB", "sqlite://groundcheck.db"),
];

/// Block languages whose transcripts or scripts are run.
const SHELL_LANGUAGES: &[&str] = &["sh", "shell", "bash", "console"];

/// What happened to one example.
enum Done {
    Ran,
    Skipped(&'static str),
}

/// The folder the examples run in, and the `PATH` that finds the binary under test there.
struct Sandbox {
    dir: tempfile::TempDir,
    path: std::ffi::OsString,
    _bin: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = harness::temp_dir();
        copy_dir(&harness::repo("fixtures"), &dir.path().join("fixtures"));
        let bin = harness::temp_dir();
        let exe = Path::new(env!("CARGO_BIN_EXE_groundcheck"));
        // A folder holding only the binary, so PATH finds nothing else of the build there.
        std::os::unix::fs::symlink(exe, bin.path().join("groundcheck")).expect("the binary is linked");
        let mut paths = vec![bin.path().to_path_buf()];
        paths.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
        let path = std::env::join_paths(paths).expect("PATH entries join");
        Sandbox { dir, path, _bin: bin }
    }

    /// Runs `command` by `sh -c`; returns the exit code and stdout and stderr together.
    fn sh(&self, command: &str) -> (i32, String) {
        let mut process = Process::new("sh");
        process
            .arg("-c")
            .arg(format!("exec 2>&1\n{command}"))
            .current_dir(self.dir.path())
            .env("PATH", &self.path)
            .env_remove("DATABASE_URL")
            .env_remove("NO_COLOR")
            .envs(ENVIRONMENT.iter().copied())
            .stdin(Stdio::null())
            .stderr(Stdio::null());
        let out = process.output().expect("sh runs");
        (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder is created");
    for entry in std::fs::read_dir(from).expect("the folder is readable") {
        let entry = entry.expect("a directory entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("a file is copied");
        }
    }
}

/// The first entry of `list` whose key occurs in `text`.
fn listed(list: &[(&str, &'static str)], text: &str) -> Option<&'static str> {
    list.iter().find(|(key, _)| text.contains(key)).map(|&(_, why)| why)
}

fn rewrite(command: &str) -> String {
    REWRITES.iter().fold(command.to_string(), |text, (from, to)| text.replace(from, to))
}

/// Whether `got` is what `shown` shows: line by line, `...` standing for any lines.
fn output_matches(shown: &[String], got: &[&str]) -> bool {
    match shown.split_first() {
        None => got.is_empty(),
        Some((first, rest)) if first.trim() == "..." => {
            (0..=got.len()).any(|skip| output_matches(rest, &got[skip..]))
        }
        Some((first, rest)) => {
            got.first().is_some_and(|line| line.trim_end() == first.trim_end())
                && output_matches(rest, &got[1..])
        }
    }
}

fn run_command(sandbox: &Sandbox, command: &Command) -> Result<Done, String> {
    if let Some(why) = listed(SKIPPED_COMMANDS, &command.text) {
        return Ok(Done::Skipped(why));
    }
    let text = rewrite(&command.text);
    let (code, output) = sandbox.sh(&text);
    let hint = "if this example cannot run in a test (it needs a server, the network or a long run), \
                add it to SKIPPED_COMMANDS in tests/readme.rs with the reason";
    if code != 0 {
        return Err(format!("line {}: `{}` exited {code} ({hint}):\n{output}", command.line, command.text));
    }
    let Some(shown) = &command.shown else { return Ok(Done::Ran) };
    if listed(UNSTABLE_OUTPUT, &text).is_some() {
        return Ok(Done::Ran);
    }
    let mut got: Vec<&str> = output.lines().collect();
    while got.last().is_some_and(|l| l.trim().is_empty()) {
        got.pop();
    }
    if output_matches(shown, &got) {
        Ok(Done::Ran)
    } else {
        Err(format!(
            "line {}: `{}` printed\n{}\nbut the example shows\n{}",
            command.line,
            command.text,
            got.join("\n"),
            shown.join("\n")
        ))
    }
}

/// The report schema name, which marks a `json` block as a report.
const REPORT_SCHEMA: &str = "groundcheck.report/v1";

/// A `json` block: a bundle (`verify` and `import` must accept it; its file becomes
/// `last_bundle`), a report (what `verify --format json` prints for `last_bundle`), or data
/// (`None`). Returns the log line.
fn run_json(
    sandbox: &Sandbox,
    block: &Block,
    last_bundle: &mut Option<String>,
) -> Result<Option<String>, String> {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(&block.text()) else { return Ok(None) };
    if value.get("schema").and_then(serde_json::Value::as_str) == Some(REPORT_SCHEMA) {
        let Some(bundle) = last_bundle.as_deref() else { return Ok(None) };
        let (code, output) = sandbox.sh(&format!("groundcheck verify --format json {bundle}"));
        let printed: Option<serde_json::Value> = serde_json::from_str(&output).ok();
        if code != 0 || printed.as_ref() != Some(&value) {
            return Err(format!(
                "line {}: the report example is not what `groundcheck verify --format json` prints \
                 for the bundle example above it (exit {code}):\n{output}",
                block.line
            ));
        }
        return Ok(Some(format!(
            "line {}: the report example is what verify prints for the bundle",
            block.line
        )));
    }
    if value.get("invocations").is_none() {
        return Ok(None);
    }
    let file = format!("bundle-example-line-{}.json", block.line);
    std::fs::write(sandbox.dir.path().join(&file), block.text()).expect("the bundle is written");
    for command in [
        format!("groundcheck verify {file}"),
        format!("groundcheck import --database sqlite://bundle-example-line-{}.db {file}", block.line),
    ] {
        let (code, output) = sandbox.sh(&command);
        if code != 0 {
            return Err(format!("line {}: the bundle example fails `{command}`: {output}", block.line));
        }
    }
    *last_bundle = Some(file);
    Ok(Some(format!("line {}: the bundle example: verify and import accept it", block.line)))
}

/// Runs the example blocks of one Markdown text; returns one line per example (what ran,
/// what was skipped and why), or the first failure as `line N: problem`.
fn run_examples(markdown_text: &str) -> Result<Vec<String>, String> {
    let sandbox = Sandbox::new();
    let mut log = Vec::new();
    let mut last_bundle = None;
    for block in markdown::blocks(markdown_text) {
        if let Some(why) = listed(SKIPPED_LANGUAGES, &block.lang) {
            log.push(format!("line {}: skipped the {} block: {why}", block.line, block.lang));
            continue;
        }
        let commands = match block.lang.as_str() {
            "json" => {
                log.extend(run_json(&sandbox, &block, &mut last_bundle)?);
                continue;
            }
            lang if markdown::is_transcript(&block)
                && (SHELL_LANGUAGES.contains(&lang) || lang == "text") =>
            {
                markdown::transcript_commands(&block)
            }
            lang if SHELL_LANGUAGES.contains(&lang) => markdown::script_commands(&block),
            _ => continue,
        };
        for command in commands {
            match run_command(&sandbox, &command)? {
                Done::Ran => log.push(format!("line {}: ran `{}`", command.line, command.text)),
                Done::Skipped(why) => {
                    log.push(format!("line {}: skipped `{}`: {why}", command.line, command.text))
                }
            }
        }
    }
    Ok(log)
}

/// Runs the examples of the repository file `name`, failing with the file's name.
fn run_file(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(harness::repo(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    run_examples(&text).unwrap_or_else(|problem| panic!("{name} {problem}"))
}

#[test]
fn readme_examples_run_as_shown() {
    let log = run_file("README.md");
    // Shown with --nocapture: nothing is skipped without a line saying so.
    println!("{}", log.join("\n"));
    let ran = log.iter().filter(|l| l.contains(": ran `")).count();
    assert!(ran >= 3, "only {ran} README command(s) ran; is the extraction broken?\n{}", log.join("\n"));
    assert!(
        log.iter().any(|l| l.contains("the bundle example")),
        "the README's bundle example was not found"
    );
}

/// The examples in `docs/` follow the same rules; `verification.md`'s report example is what
/// `verify` prints for its bundle example.
#[test]
fn docs_examples_run_as_shown() {
    let mut names: Vec<String> = std::fs::read_dir(harness::repo("docs"))
        .expect("docs/ is readable")
        .map(|e| e.expect("a directory entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    names.sort();
    let mut checked_report = false;
    for name in &names {
        let log = run_file(name);
        println!("{name}:\n{}", log.join("\n"));
        checked_report |=
            name == "docs/verification.md" && log.iter().any(|l| l.contains("the report example"));
    }
    assert!(checked_report, "docs/verification.md's report example was not checked against its bundle");
}

/// The rules themselves, on a README written for the purpose: a transcript whose shown output
/// is wrong fails, a failing command fails, skips and `...` hold.
#[test]
fn wrong_examples_are_caught_and_skips_are_explicit() {
    let good = "```console\n$ echo one; echo two; echo three\none\n...\n```\n\
                ```sh\ncargo test --workspace\ngroundcheck resolve --path '$' fixtures/01_order_svc_5xx_spike.json\n```\n\
                ```yaml\nkind: Job\n```\n";
    let log = run_examples(good).expect("the good README runs");
    assert_eq!(
        log,
        [
            "line 2: ran `echo one; echo two; echo three`",
            "line 7: skipped `cargo test --workspace`: runs the test suite, of which this test is a part",
            "line 8: ran `groundcheck resolve --path '$' fixtures/01_order_svc_5xx_spike.json`",
            "line 11: skipped the yaml block: Kubernetes manifests and other configuration: they need a cluster",
        ]
    );
    let wrong_output = "```text\n$ groundcheck resolve --path '$.a' -\n[]\n```\n";
    let problem = run_examples(wrong_output).expect_err("stdin is empty: not JSON, exit 2");
    assert!(problem.starts_with("line 2: `groundcheck resolve --path '$.a' -` exited 2"), "{problem}");
    let shown_wrong = "```sh\n$ echo '{\"a\":1}' | groundcheck resolve --path '$.a'\n[]\n```\n";
    let problem = run_examples(shown_wrong).expect_err("the shown output is wrong");
    assert!(problem.contains("but the example shows\n[]"), "{problem}");
    let bad_bundle = "```json\n{\"invocations\": [{\"id\": 1, \"tool_name\": \"t\"}]}\n```\n";
    let problem = run_examples(bad_bundle).expect_err("import needs session_id and created_at");
    assert!(problem.contains("the bundle example fails `groundcheck import"), "{problem}");
}

/// The README's `rust` blocks, verbatim, compiled here.
mod rust_examples {
    pub fn in_process() -> Result<(), Box<dyn std::error::Error>> {
        use groundcheck_core::{Bundle, Policy, Verifier};

        let verifier = Verifier::new(Policy::default()); // Send + Sync: build once, share
        let bundle = Bundle::parse(&std::fs::read_to_string("fixtures/01_order_svc_5xx_spike.json")?)?;
        for invocation in &bundle.invocations {
            let verdict = verifier.verify(invocation); // never panics
            println!("{} {}: {} ({})", verdict.id, verdict.tool_name, verdict.status, verdict.reason);
        }
        Ok(())
    }
}

/// Each `rust` block of the README appears, line for line (indentation aside), in
/// `rust_examples`, and that code runs.
#[test]
fn readme_rust_examples_run() {
    let readme = std::fs::read_to_string(harness::repo("README.md")).expect("README.md is readable");
    let source = include_str!("readme.rs");
    let module = &source[source.find("mod rust_examples {").expect("the module is in this file")..];
    let module: Vec<&str> = module.lines().map(str::trim).collect();
    let mut checked = 0;
    for block in markdown::blocks(&readme).iter().filter(|b| b.lang == "rust") {
        let lines: Vec<&str> = block.lines.iter().map(|l| l.trim()).collect();
        assert!(
            !lines.is_empty() && module.windows(lines.len()).any(|w| w == lines.as_slice()),
            "README.md line {}: this rust block is not in tests/readme.rs's rust_examples module, so \
             nothing compiles it; copy it there:\n{}",
            block.line,
            block.text()
        );
        checked += 1;
    }
    assert!(checked >= 1, "the README has no rust block; remove rust_examples from tests/readme.rs");
    rust_examples::in_process().expect("the README's in-process example runs");
}
