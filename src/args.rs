//! The command line, parsed by clap: every command, its flags and its `--help`.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
use groundcheck_core::{Limit, Limits, Policy, Require, Rung, Score};

use crate::failure::Failure;
use groundcheck_files::Template;

/// Checks an AIOps agent's claimed evidence against its tools' raw outputs.
///
/// Every `tool_invocation` row claims evidence as a JSONPath `raw_path` into the tool's raw
/// output and the quoted `text` found there. groundcheck resolves each path, searches for the
/// text (exact, then normalized, then elided) and classifies each invocation as supported,
/// unsupported or no_evidence ("no evidence found by this tool"), saying exactly why.
#[derive(Debug, Parser)]
#[command(
    name = "groundcheck",
    version,
    propagate_version = true,
    max_term_width = 100,
    after_help = "Start here (from a clone of the repository):\n  \
        groundcheck verify fixtures/                          # the shipped bundles, no database\n  \
        groundcheck import fixtures/ && groundcheck reverify  # the same through groundcheck.db\n\n\
        `groundcheck help COMMAND` explains each command, with examples."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Verify bundle files, or folders of *.json bundles, and print a report.
    ///
    /// A bundle is a JSON file of tool_invocation rows, each with its tool's raw output. For
    /// every evidence ref an invocation claims, its raw_path is resolved in the raw output and
    /// its quoted text searched for there; each invocation is then supported, unsupported or
    /// no_evidence (no evidence found by this tool), with the reason. Runs with the same run_id
    /// in several files are merged. No database is used and nothing is written.
    ///
    /// Exit code 0 when done; 1 when the --fail-on condition is met (the report is printed all
    /// the same); 2 for bad usage, an unreadable or invalid bundle, or a PATH that holds no
    /// bundle: then one line on stderr naming the file and the place, and nothing on stdout.
    #[command(after_help = "Examples:\n  \
        groundcheck verify fixtures/\n  \
        groundcheck verify --format json --fail-on claim-mismatch fixtures/01_order_svc_5xx_spike.json\n  \
        groundcheck verify --match exact --require any fixtures/ fixtures/hostile/\n  \
        cat fixtures/12_match_ladder.json | groundcheck verify --format jsonl -")]
    Verify {
        #[command(flatten)]
        policy: PolicyArgs,
        #[command(flatten)]
        report: ReportArgs,
        #[command(flatten)]
        raw: RawOutputArgs,
        #[command(flatten)]
        otel: OtelArgs,
        #[command(flatten)]
        bundle: BundleArgs,
        /// Bundle files; `-` for standard input; folders, meaning the *.json files directly in
        /// them, in name order (subfolders are not read: a note on stderr names them).
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// Print the nodes a path selects in a JSON document.
    ///
    /// Shows what an evidence path points at: paste a path from a report as it is printed. The
    /// path is RFC 9535 JSONPath, or an RFC 6901 JSON Pointer when it starts with `/` and is
    /// not JSONPath — the resolution `verify` uses, except that `verify` first trims white
    /// space around a raw_path and `resolve` takes the path exactly as given.
    ///
    /// Prints a JSON array, one {"path": normalized path, "value": node} a line, numbers as
    /// written; `[]` when the path selects nothing. An invalid path, or a document that is not
    /// JSON, is exit code 2 with one line on stderr saying why.
    #[command(after_help = "Examples:\n  \
        groundcheck resolve --path '$.invocations[*].tool_name' fixtures/01_order_svc_5xx_spike.json\n  \
        groundcheck resolve --path /invocations/0/id fixtures/01_order_svc_5xx_spike.json\n  \
        echo '{\"data\":[{\"value\":[1700000000,\"0.950\"]}]}' | groundcheck resolve --path '$..value[1]'\n  \
        jq -r '.invocations[1].raw_output_text' fixtures/01_order_svc_5xx_spike.json \\\n    \
        | groundcheck resolve --path '$.data.result[0].stream'")]
    Resolve {
        /// The JSONPath (starting with `$`) or JSON Pointer (starting with `/`); quote it for
        /// the shell, e.g. '$.logs[0]'.
        #[arg(long, value_name = "PATH", allow_hyphen_values = true)]
        path: String,
        /// The JSON document (a bundle file is one too); `-` or nothing reads standard input.
        #[arg(value_name = "FILE", default_value = "-")]
        file: PathBuf,
        /// The limits verification applies (`--max-nodes` and the rest): a path past one is
        /// refused with the limit named, before its nodes are built.
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Verify runs read from the database and print a report, like `verify`.
    ///
    /// Each run is read in one query on the (run_id, id) index. Rows without a run_id are
    /// verified by session with --session. With --write, verdicts are stored in
    /// evidence_verification under the policy (re-running updates them, never duplicates).
    #[command(after_help = "Examples:\n  \
        groundcheck run run-20261130-order-5xx\n  \
        groundcheck run --database mysql://reader:***@db:3306/agent --format json run-001 run-002\n  \
        groundcheck run --session sess-4d1f8a20 --write --fail-on unsupported")]
    Run {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(flatten)]
        policy: PolicyArgs,
        #[command(flatten)]
        report: ReportArgs,
        #[command(flatten)]
        raw: RawOutputArgs,
        #[command(flatten)]
        otel: OtelArgs,
        /// Store the verdicts in evidence_verification.
        #[arg(long)]
        write: bool,
        /// With --write and --raw-outputs, store the verdicts even when the template finds no
        /// file at all (else nothing is written and the exit code is 2).
        #[arg(long, requires = "write")]
        write_without_raw_outputs: bool,
        /// Also verify the rows of this session that have no run_id (repeatable).
        #[arg(long = "session", value_name = "SESSION_ID")]
        sessions: Vec<String>,
        /// Runs to verify, reported in this order (sessions follow).
        #[arg(value_name = "RUN_ID", required_unless_present = "sessions")]
        runs: Vec<String>,
    },
    /// Import bundle files into the database.
    ///
    /// Each invocation becomes a tool_invocation row with the bundle's id, and its raw output
    /// a tool_invocation_output row. The tool_invocation table requires session_id and
    /// created_at (RFC 3339, e.g. 2026-11-30T10:00:01Z) on every row: give them on the
    /// invocation, or session_id once at the top of the bundle.
    ///
    /// Everything is checked before anything is written: an id repeated in the input, a
    /// missing column, or an id already in the database with different content refuses the
    /// whole command (exit code 2, one line on stderr). Rows already present with the same
    /// content are skipped, so importing a file twice changes nothing. One transaction per
    /// file, and one line per file saying how many rows it added.
    #[command(after_help = "Examples:\n  \
        groundcheck import fixtures/ fixtures/hostile/\n  \
        groundcheck import --database sqlite://review.db fixtures/01_order_svc_5xx_spike.json\n  \
        groundcheck import - < fixtures/15_two_runs_one_file.json")]
    Import {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(flatten)]
        bundle: BundleArgs,
        /// Bundle files; `-` for standard input; folders, meaning the *.json files directly in
        /// them, in name order (subfolders are not read: a note on stderr names them).
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// Write runs from the database as bundle files that `verify` accepts.
    ///
    /// One file per run, DIR/<run_id>.json (characters other than letters, digits, `.`, `_`
    /// and `-` become `_`); an existing file is replaced. Raw outputs are written as
    /// raw_output_text, exactly as stored. With --raw-outputs, a row without one gets its
    /// file's text (read as `run` reads it, at most 64 MiB), so the bundle holds the evidence;
    /// a line on stderr says how many files were found and missing.
    #[command(after_help = "Examples:\n  \
        groundcheck export run-20261130-order-5xx --out fixtures/\n  \
        groundcheck export --session sess-4d1f8a20 --out /tmp/snapshots\n  \
        groundcheck export --raw-outputs '/var/lib/agent/sessions/{session_id}/tools/{id}.json' \\\n    \
        run-20261130-order-5xx --out fixtures/agent-runs/")]
    Export {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(flatten)]
        raw: RawOutputArgs,
        /// The folder to write into (created if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Also export the rows of this session that have no run_id, as session-<id>.json.
        #[arg(long = "session", value_name = "SESSION_ID")]
        sessions: Vec<String>,
        /// Runs to export.
        #[arg(value_name = "RUN_ID", required_unless_present = "sessions")]
        runs: Vec<String>,
    },
    /// Re-verify stored runs in bulk: streamed, parallel, resumable, shardable.
    ///
    /// Walks every run (and every session's rows without run_id) in the database, or those the
    /// filters select, in bounded batches: reading, verifying and writing overlap, and memory
    /// stays flat however large the table. Reports what changed against the verdicts stored
    /// before for the same policy, or for the policy --compare-with names. Without --write
    /// nothing in the database changes. With --write, verdicts and a checkpoint are committed
    /// per batch, so after a crash or Ctrl-C --resume with the same arguments finishes the job
    /// and reports the whole job's totals. --shard K/N gives N independent workers disjoint
    /// sets of whole runs that together cover every run once.
    #[command(after_help = "Examples:\n  \
        groundcheck reverify\n  \
        groundcheck reverify --since 2026-11-01T00:00:00Z --tool query_logs --format json\n  \
        groundcheck reverify --match exact --compare-with 'require=all;match=elided'\n  \
        groundcheck reverify --database \"$DATABASE_URL\" --shard 3/8 --write --resume")]
    Reverify(ReverifyArgs),
    /// Create or update groundcheck's tables in the database (idempotent).
    ///
    /// tool_invocation exactly as the agent's schema defines it (created only if missing), plus
    /// tool_invocation_output and evidence_verification. SQLite databases are migrated
    /// automatically on first use; servers are migrated only by this command.
    #[command(after_help = "Examples:\n  \
        groundcheck migrate\n  \
        DATABASE_URL=mariadb://gc:***@127.0.0.1:3306/agent groundcheck migrate")]
    Migrate {
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// Print a shell completion script: bash, zsh, fish, elvish or powershell.
    ///
    /// Completes commands, flags and the values of flags that take one of a few words.
    #[command(after_help = "Examples:\n  \
        groundcheck completions bash > ~/.local/share/bash-completion/completions/groundcheck\n  \
        groundcheck completions zsh > \"${fpath[1]}/_groundcheck\"\n  \
        groundcheck completions fish > ~/.config/fish/completions/groundcheck.fish")]
    Completions {
        /// The shell the script is for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) of groundcheck, or of one of its commands.
    ///
    /// Generated from the same definitions as --help, so it always matches this binary.
    #[command(after_help = "Examples:\n  \
        groundcheck man | man -l -\n  \
        groundcheck man > /usr/local/share/man/man1/groundcheck.1\n  \
        groundcheck man verify > /usr/local/share/man/man1/groundcheck-verify.1")]
    Man {
        /// A command (verify, run, …): its own page, groundcheck-COMMAND(1).
        #[arg(value_name = "COMMAND")]
        command: Option<String>,
    },
    /// Serve the Model Context Protocol on stdin and stdout, for agents and MCP clients.
    ///
    /// An MCP host starts this command and talks to it over its standard input and output (one
    /// JSON-RPC message a line; logs go to stderr). Tools: verify_evidence (a tool output and the
    /// evidence cited from it: the verdict, with the nearest text and where else a quote is) and
    /// resolve_path (what a path selects); with --database, verify_run (a stored run's report),
    /// the database opened read only, and with --raw-outputs the raw outputs of its rows read
    /// from files as `run` reads them. The server runs until the client closes its stdin.
    #[command(after_help = "Examples:\n  \
        groundcheck mcp\n  \
        groundcheck mcp --database sqlite://groundcheck.db\n  \
        groundcheck mcp --database sqlite://groundcheck.db --raw-outputs 'sessions/{session_id}/tools/{id}.json'\n\n\
        An MCP host's configuration: {\"command\": \"groundcheck\", \"args\": [\"mcp\"]}")]
    Mcp {
        /// Offer verify_run, reading runs from this database (read only): sqlite:, mysql:/mariadb:
        /// or postgres:. Not read from $DATABASE_URL: without this flag there is no verify_run.
        #[arg(long, value_name = "URL")]
        database: Option<String>,
        // verify_run's raw outputs in files, for rows without one of their own (as for `run`).
        #[command(flatten)]
        raw: RawOutputArgs,
    },
}

impl Command {
    /// The database flags of a command that opens one.
    pub fn database(&self) -> Option<&DatabaseArgs> {
        match self {
            Command::Run { database, .. }
            | Command::Import { database, .. }
            | Command::Export { database, .. }
            | Command::Migrate { database } => Some(database),
            Command::Reverify(args) => Some(&args.database),
            _ => None,
        }
    }
}

/// The arguments of `reverify`.
#[derive(Debug, clap::Args)]
pub struct ReverifyArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
    #[command(flatten)]
    pub policy: PolicyArgs,
    #[command(flatten)]
    pub raw: RawOutputArgs,
    #[command(flatten)]
    pub otel: OtelArgs,
    /// Compare with the verdicts stored under this policy key instead of the job's own policy
    /// (e.g. 'require=all;match=elided', as `policy` in the output); it must have stored verdicts.
    #[arg(long, value_name = "POLICY")]
    pub compare_with: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReverifyFormat::Human)]
    pub format: ReverifyFormat,
    /// Only rows created at or after this time: RFC 3339 (2026-11-30T10:00:00Z), or a date
    /// (2026-11-30), meaning that day's start in UTC.
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
    /// Only rows created before this time: RFC 3339, or a date, meaning that day's start in
    /// UTC (--until 2026-12-01 ends with the last moment of November 30).
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,
    /// Only rows of this tool (repeatable); a tool no row has is named in a note.
    #[arg(long = "tool", value_name = "NAME")]
    pub tools: Vec<String>,
    /// Only this run (repeatable).
    #[arg(long = "run", value_name = "RUN_ID")]
    pub runs: Vec<String>,
    /// Take shard K of N (1-based): a stable, disjoint share of whole runs.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Verification threads (default: one per core).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Store verdicts (one row per invocation and policy) and a checkpoint per batch.
    #[arg(long)]
    pub write: bool,
    /// Continue the job with the same arguments from its checkpoint (needs --write).
    #[arg(long)]
    pub resume: bool,
    /// With --write and --raw-outputs, store the verdicts even when the template finds no file
    /// at all. Without it, the first batch whose rows needed a file and found none (while none
    /// was found before) is not written and the job stops (exit code 2): a wrong template would
    /// otherwise store raw_output_missing verdicts over good ones.
    #[arg(long, requires = "write")]
    pub write_without_raw_outputs: bool,
    /// Rows per batch: bounds memory and the work lost to a crash.
    #[arg(long, value_name = "ROWS", default_value_t = 1000)]
    pub batch_rows: usize,
}

/// How `reverify` prints its summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReverifyFormat {
    /// The summary as tables for people.
    Human,
    /// One `groundcheck.reverify/v1` summary object, every change listed last.
    Json,
    /// One change a line, then the `groundcheck.reverify/v1` summary on one line.
    Jsonl,
}

/// How large a bundle file may be.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct BundleArgs {
    /// Largest bundle file (or standard input) read, in bytes; a larger one stops the command
    /// (exit code 2, one line) as soon as the byte past the limit is read. Default: 268435456
    /// (256 MiB: four raw outputs at the default --max-output-bytes), or four times a larger
    /// --max-output-bytes.
    #[arg(long, value_name = "BYTES", value_parser = positive)]
    pub max_bundle_bytes: Option<usize>,
}

/// Where the database is.
#[derive(Debug, Clone, clap::Args)]
pub struct DatabaseArgs {
    /// Database URL: sqlite:, mysql:/mariadb: or postgres:. Defaults to $DATABASE_URL, else
    /// the embedded sqlite://groundcheck.db.
    #[arg(
        long,
        value_name = "URL",
        env = "DATABASE_URL",
        hide_env_values = true,
        default_value = "sqlite://groundcheck.db"
    )]
    pub database: String,
    /// How long each statement may wait for the database's answer, in seconds (decimals
    /// allowed). Past it the command stops with one line naming the server that did not
    /// answer (a reverify --write job keeps its committed batches and prints the command that
    /// resumes it). `migrate`'s own migrations are not bounded.
    #[arg(long, value_name = "SECONDS", default_value = "60", value_parser = seconds)]
    pub statement_timeout: std::time::Duration,
}

/// A number of seconds above 0, decimals allowed (`0.5`).
fn seconds(text: &str) -> Result<std::time::Duration, String> {
    match text.parse::<f64>() {
        Ok(s) if (0.001..=1e9).contains(&s) => Ok(std::time::Duration::from_secs_f64(s)),
        Ok(_) => Err("must be from 0.001 to 1000000000 seconds".into()),
        Err(e) => Err(format!("{e}")),
    }
}

/// Where raw outputs live when the rows do not carry them: files beside each session.
#[derive(Debug, Clone, clap::Args)]
pub struct RawOutputArgs {
    /// Where each row's raw output file is, for rows without a raw output of their own, e.g.
    /// '/var/lib/agent/sessions/{session_id}/tools/{id}.json'. Placeholders: {id},
    /// {session_id}, {run_id}, {step_id}, {tool_name}; {{ and }} are braces. A value that
    /// could leave the folders (empty, `.`, `..`, holding `/` or `\`) names no file. `.gz` and
    /// `.zst` files are decompressed; a missing file is also looked for with `.gz`, then `.zst`
    /// appended. A missing or unreadable file is a warning on its row, never an error.
    #[arg(long = "raw-outputs", value_name = "TEMPLATE", env = "GROUNDCHECK_RAW_OUTPUTS")]
    raw_outputs: Option<String>,
    /// Also read a raw-output file that has more than one hard link. By default such a file is
    /// raw_output_path_unsafe: a hard link cannot be told from its original, so anyone able to
    /// create one in the session folders could show any file of that filesystem on the report.
    #[arg(long)]
    allow_hard_links: bool,
}

impl RawOutputArgs {
    /// The parsed template; an empty one (an empty variable) counts as none.
    pub fn template(&self) -> Result<Option<Template>, Failure> {
        let Some(text) = self.raw_outputs.as_deref().filter(|t| !t.is_empty()) else { return Ok(None) };
        let template: Template =
            text.parse().map_err(|e| Failure::input(format!("--raw-outputs {text:?}: {e}")))?;
        Ok(Some(template.allow_hard_links(self.allow_hard_links)))
    }
}

/// Verdicts as OpenTelemetry `gen_ai.evaluation.result` events (docs/opentelemetry.md).
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "OpenTelemetry")]
pub struct OtelArgs {
    /// Also write every verdict as an OTLP log record to FILE: OTLP JSON, one LogsData a line
    /// (at most 512 records and 512 KiB a line), as a Collector's otlpjsonfile receiver reads
    /// it. FILE is replaced when the command ends. `-`: standard output, in place of the report.
    #[arg(long, value_name = "FILE")]
    pub otel: Option<PathBuf>,
    /// Also push the records to an OTLP/HTTP receiver, e.g. http://localhost:4318 or
    /// https://otlp.example.com (`/v1/logs` is appended unless the path already ends with it).
    /// Without it, OTEL_EXPORTER_OTLP_LOGS_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT, with the
    /// other OTEL_* variables of the OTLP exporter (docs/opentelemetry.md). Retried in the
    /// background; a receiver that is down or slow costs at most 5 s at the end and one
    /// warning line, never the report or the exit code.
    #[arg(long, value_name = "URL")]
    pub otlp_endpoint: Option<String>,
    /// A header sent with every push, e.g. 'Authorization=Bearer …' (repeatable; wins over
    /// OTEL_EXPORTER_OTLP_HEADERS for the same name). Values are never printed.
    #[arg(long = "otlp-header", value_name = "NAME=VALUE")]
    pub otlp_headers: Vec<HeaderFlag>,
    /// The time of every record (RFC 3339) instead of the verification's, e.g. for snapshots.
    #[arg(long, value_name = "TIME")]
    pub otel_time: Option<String>,
}

/// One `--otlp-header NAME=VALUE` as given: its value is a secret, so its `Debug` (the parsed
/// command line's) shows none of it, and clap, whose parser for it never fails, never prints
/// it in an error.
#[derive(Clone)]
pub struct HeaderFlag(pub String);

impl std::fmt::Debug for HeaderFlag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = self.0.split_once('=').map_or("?", |(name, _)| name);
        write!(f, "HeaderFlag({name}=***)")
    }
}

impl std::str::FromStr for HeaderFlag {
    type Err = std::convert::Infallible;
    fn from_str(text: &str) -> Result<HeaderFlag, Self::Err> {
        Ok(HeaderFlag(text.to_string()))
    }
}

/// How `verify` and `run` report: the format and the exit-code condition.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct ReportArgs {
    /// Output format. human: a table per run, each ref that did not verify under its row with
    /// its path exactly as given (control characters shown as <U+XXXX>); json: one
    /// groundcheck.report/v1 object; jsonl: one invocation a line, each starting with its
    /// run's run_id and session_id.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Exit with code 1 when this is found in any run; the report is printed all the same.
    #[arg(long, value_enum, default_value_t = FailOn::Never)]
    pub fail_on: FailOn,
}

/// The verification policy flags shared by every verifying command.
#[derive(Debug, Clone, clap::Args)]
pub struct PolicyArgs {
    /// How many of an invocation's evidence refs must be found for it to be supported.
    #[arg(long, value_enum, default_value_t = RequireArg::All)]
    require: RequireArg,
    /// How loosely a quoted text may match: each level also accepts the ones before it, and
    /// looser ones are not tried.
    #[arg(long = "match", value_name = "LEVEL", value_enum, default_value_t = MatchArg::Elided)]
    rung: MatchArg,
    /// With --match fuzzy: the lowest near-miss score (above 0, at most 1, three decimals at
    /// most) a value must reach to verify a quote.
    #[arg(long, value_name = "S", default_value_t = Score::DEFAULT_MIN, value_parser = min_score)]
    min_score: Score,
    #[command(flatten)]
    limits: LimitArgs,
}

/// The limits of the verification, on every command that verifies or selects nodes.
#[derive(Debug, Clone, clap::Args)]
pub struct LimitArgs {
    /// Largest raw output text verified, in bytes; larger ones give limit_exceeded.
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().get(Limit::OutputSize),
          value_parser = positive, help_heading = LIMITS)]
    max_output_bytes: usize,
    /// Deepest JSON nesting of a raw output (the root is depth 1).
    #[arg(long, value_name = "N", default_value_t = Limits::default().get(Limit::Depth),
          value_parser = positive, help_heading = LIMITS)]
    max_depth: usize,
    /// Longest evidence text, in characters.
    #[arg(long, value_name = "N", default_value_t = Limits::default().get(Limit::TextLength),
          value_parser = positive, help_heading = LIMITS)]
    max_text_chars: usize,
    /// Longest raw_path after trimming, in characters.
    #[arg(long, value_name = "N", default_value_t = Limits::default().get(Limit::PathLength),
          value_parser = positive, help_heading = LIMITS)]
    max_path_chars: usize,
    /// Most nodes one query may select (wildcards and `..` included).
    #[arg(long, value_name = "N", default_value_t = Limits::default().get(Limit::Nodes),
          value_parser = positive, help_heading = LIMITS)]
    max_nodes: usize,
    /// Most refs read per invocation; later ones are echoed with limit_exceeded.
    #[arg(long, value_name = "N", default_value_t = Limits::default().get(Limit::Refs),
          value_parser = positive, help_heading = LIMITS)]
    max_refs: usize,
}

/// The help heading of the limit flags: what hitting one does.
const LIMITS: &str = "Limits (a ref that hits one is limit_exceeded; resolve refuses a path past one)";

/// A limit: a whole number the core accepts as one (at least 1: a zero limit would refuse
/// every input). Every limit has the same rule, so one limit stands for all here.
fn positive(text: &str) -> Result<usize, String> {
    let n: i128 = text.parse().map_err(|e| format!("{e}"))?;
    Limits::default().with(Limit::Nodes, n).map(|l| l.get(Limit::Nodes)).map_err(|e| e.message().to_string())
}

/// `--min-score`: a score the core accepts as a threshold (above 0: a threshold of 0 would
/// verify any quote at all).
fn min_score(text: &str) -> Result<Score, String> {
    let score: Score = text.parse().map_err(|e| format!("{e} (a score is from 0.001 to 1)"))?;
    Policy::default().with_min_score(score).map(|p| p.min_score()).map_err(|e| e.message().to_string())
}

impl PolicyArgs {
    pub fn policy(&self) -> Policy {
        let require = match self.require {
            RequireArg::All => Require::All,
            RequireArg::Any => Require::Any,
        };
        let rung = match self.rung {
            MatchArg::Exact => Rung::Exact,
            MatchArg::Normalized => Rung::Normalized,
            MatchArg::Elided => Rung::Elided,
            MatchArg::Fuzzy => Rung::Fuzzy,
        };
        // `min_score` was checked by its parser, with the same rule.
        let policy =
            Policy::default().with_require(require).with_max_rung(rung).with_limits(self.limits.limits());
        policy.with_min_score(self.min_score).unwrap_or(policy)
    }
}

impl LimitArgs {
    /// The limits as the core takes them: every command that selects nodes applies the same.
    pub fn limits(&self) -> Limits {
        let given = [
            (Limit::OutputSize, self.max_output_bytes),
            (Limit::Depth, self.max_depth),
            (Limit::TextLength, self.max_text_chars),
            (Limit::PathLength, self.max_path_chars),
            (Limit::Nodes, self.max_nodes),
            (Limit::Refs, self.max_refs),
        ];
        // Each value was checked by `positive`, with the core's rule.
        given
            .into_iter()
            .fold(Limits::default(), |limits, (limit, n)| limits.with(limit, n as i128).unwrap_or(limits))
    }
}

/// `--require`: how many refs make an invocation supported.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum RequireArg {
    /// Every evidence ref is found.
    All,
    /// At least one evidence ref is found.
    Any,
}

/// `--match`: the loosest way a quote may match.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum MatchArg {
    /// The text occurs as written.
    Exact,
    /// Also after Unicode NFKC, folding quotes and dashes, lower case and collapsing white space.
    Normalized,
    /// Also when the text's pieces around `...` or `…` occur in order in one value.
    Elided,
    /// Also when part of one value comes within --min-score of the text (a near miss,
    /// typos and small edits, counted as evidence).
    Fuzzy,
}

/// Report formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For people; coloured on a terminal when NO_COLOR is unset.
    Human,
    /// One JSON object.
    Json,
    /// One JSON object a line.
    Jsonl,
    /// One self-contained HTML page: each quote shown inside the raw output.
    Html,
}

/// Conditions that make the exit code 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Any unsupported invocation.
    Unsupported,
    /// Any invocation whose claimed status disagrees with its verdict.
    ClaimMismatch,
    /// Never (the default).
    Never,
}
