//! The command line (SPEC §5), parsed by clap.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
use groundcheck_core::{Policy, Require, Rung};

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
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Exit with code 1 when this is found in any run.
        #[arg(long, value_enum, default_value_t = FailOn::Never)]
        fail_on: FailOn,
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
            ..Policy::default()
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
