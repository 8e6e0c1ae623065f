//! The command line (SPEC §5), parsed by clap.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
use groundcheck_core::{Limits, Policy, Require, Rung};

/// Checks an AIOps agent's claimed evidence against its tools' raw outputs.
///
/// Every `tool_invocation` row claims evidence as a JSONPath `raw_path` into the tool's raw
/// output and the quoted `text` found there. groundcheck resolves each path, searches for the
/// text (exact, then normalized, then elided) and classifies each invocation as supported,
/// unsupported or no_evidence ("no evidence found by this tool"), saying exactly why.
#[derive(Debug, Parser)]
#[command(name = "groundcheck", version, propagate_version = true, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Verify bundle files, or folders of *.json bundles, and print a report.
    ///
    /// Runs with the same run_id in several files are merged. Nothing is written anywhere;
    /// exit code 1 only when --fail-on is met, 2 for an invalid bundle (one line on stderr
    /// naming the file and the place, nothing on stdout).
    #[command(after_help = "Examples:\n  \
        groundcheck verify fixtures/\n  \
        groundcheck verify --format json --fail-on claim-mismatch run-2026-11-30.json\n  \
        groundcheck verify --match exact --require any fixtures/ | less")]
    Verify {
        #[command(flatten)]
        policy: PolicyArgs,
        #[command(flatten)]
        report: ReportArgs,
        /// Bundle files, or folders whose *.json files are read in name order.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// Print the nodes a path selects in a JSON document.
    ///
    /// The path is RFC 9535 JSONPath exactly as given (not trimmed), with the RFC 6901 JSON
    /// Pointer fallback for paths starting with `/` — the resolution `verify` uses. Prints a
    /// JSON array of {"path": normalized path, "value": node}, numbers as written.
    #[command(after_help = "Examples:\n  \
        groundcheck resolve --path '$.data.result[*].metric.pod' output.json\n  \
        kubectl get events -o json | groundcheck resolve --path \"\\$.items[?@.reason=='BackOff'].message\"\n  \
        groundcheck resolve --path /logs/0/message output.json")]
    Resolve {
        /// The JSONPath or JSON Pointer to run.
        #[arg(long, value_name = "PATH", allow_hyphen_values = true)]
        path: String,
        /// The JSON document; `-` or nothing reads standard input.
        #[arg(value_name = "FILE", default_value = "-")]
        file: PathBuf,
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
        /// Store the verdicts in evidence_verification.
        #[arg(long)]
        write: bool,
        /// Also verify the rows of this session that have no run_id (repeatable).
        #[arg(long = "session", value_name = "SESSION_ID")]
        sessions: Vec<String>,
        /// Runs to verify, reported in this order (sessions follow).
        #[arg(value_name = "RUN_ID", required_unless_present = "sessions")]
        runs: Vec<String>,
    },
    /// Import bundle files into the database.
    ///
    /// Bundle ids become tool_invocation ids. Everything is checked before anything is
    /// written: an id repeated in the input, or already in the database with different
    /// content, refuses the whole command (exit 2). Rows already present with the same content
    /// are skipped, so importing a file twice changes nothing. One transaction per file.
    #[command(after_help = "Examples:\n  \
        groundcheck import fixtures/\n  \
        groundcheck import --database postgres://gc:***@127.0.0.1/agent run-001.json")]
    Import {
        #[command(flatten)]
        database: DatabaseArgs,
        /// Bundle files, or folders whose *.json files are read in name order.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// Write runs from the database as bundle files that `verify` accepts.
    ///
    /// One file per run, DIR/<run_id>.json (characters other than letters, digits, `.`, `_`
    /// and `-` become `_`); an existing file is replaced. Raw outputs are written as
    /// raw_output_text, exactly as stored.
    #[command(after_help = "Examples:\n  \
        groundcheck export run-20261130-order-5xx --out fixtures/\n  \
        groundcheck export --session sess-4d1f8a20 --out /tmp/snapshots")]
    Export {
        #[command(flatten)]
        database: DatabaseArgs,
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
    /// tool_invocation exactly as the seed defines it (created only if missing), plus
    /// tool_invocation_output and evidence_verification. SQLite databases are migrated
    /// automatically on first use; servers are migrated only by this command.
    #[command(after_help = "Examples:\n  \
        groundcheck migrate\n  \
        DATABASE_URL=mariadb://gc:***@127.0.0.1:3306/agent groundcheck migrate")]
    Migrate {
        #[command(flatten)]
        database: DatabaseArgs,
    },
}

/// The arguments of `reverify`.
#[derive(Debug, clap::Args)]
pub struct ReverifyArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Compare with the verdicts stored under this policy key instead of the job's own policy
    /// (e.g. 'require=all;match=elided', as `policy` in the output); it must have stored verdicts.
    #[arg(long, value_name = "POLICY")]
    pub compare_with: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReverifyFormat::Human)]
    pub format: ReverifyFormat,
    /// Only rows created at or after this time (RFC 3339).
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
    /// Only rows created before this time (RFC 3339).
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,
    /// Only rows of this tool (repeatable).
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
}

/// How `verify` and `run` report: the format and the exit-code condition.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct ReportArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Exit with code 1 when this is found in any run.
    #[arg(long, value_enum, default_value_t = FailOn::Never)]
    pub fail_on: FailOn,
}

/// The verification policy flags shared by every verifying command.
#[derive(Debug, Clone, clap::Args)]
pub struct PolicyArgs {
    /// How many real refs must verify for `supported`.
    #[arg(long, value_enum, default_value_t = RequireArg::All)]
    require: RequireArg,
    /// The loosest matching rung accepted; looser rungs are not tried.
    #[arg(long = "match", value_enum, default_value_t = MatchArg::Elided)]
    rung: MatchArg,
    /// Largest raw output text verified, in bytes; larger ones give limit_exceeded.
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_output_bytes,
          value_parser = positive, help_heading = "Limits (SPEC §6)")]
    max_output_bytes: usize,
    /// Deepest JSON nesting of a raw output (the root is depth 1).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_depth,
          value_parser = positive, help_heading = "Limits (SPEC §6)")]
    max_depth: usize,
    /// Longest evidence text, in characters.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_text_chars,
          value_parser = positive, help_heading = "Limits (SPEC §6)")]
    max_text_chars: usize,
    /// Longest raw_path after trimming, in characters.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_path_chars,
          value_parser = positive, help_heading = "Limits (SPEC §6)")]
    max_path_chars: usize,
    /// Most nodes one query may select (wildcards and `..` included).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_nodes,
          value_parser = positive, help_heading = "Limits (SPEC §6)")]
    max_nodes: usize,
    /// Most refs read per invocation; later ones are echoed with limit_exceeded.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_refs,
          value_parser = positive, help_heading = "Limits (SPEC §6)")]
    max_refs: usize,
}

/// A limit: a whole number of at least 1 (a zero limit would refuse every input).
fn positive(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("{e}")),
    }
}

impl PolicyArgs {
    pub fn policy(&self) -> Policy {
        Policy {
            require: match self.require {
                RequireArg::All => Require::All,
                RequireArg::Any => Require::Any,
            },
            max_rung: match self.rung {
                MatchArg::Exact => Rung::Exact,
                MatchArg::Normalized => Rung::Normalized,
                MatchArg::Elided => Rung::Elided,
            },
            limits: Limits {
                max_output_bytes: self.max_output_bytes,
                max_depth: self.max_depth,
                max_text_chars: self.max_text_chars,
                max_path_chars: self.max_path_chars,
                max_nodes: self.max_nodes,
                max_refs: self.max_refs,
            },
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum RequireArg {
    All,
    Any,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum MatchArg {
    Exact,
    Normalized,
    Elided,
}

/// Report formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A table for people, coloured on a terminal.
    Human,
    /// One `groundcheck.report/v1` object.
    Json,
    /// One invocation object a line, each with its run_id.
    Jsonl,
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
