//! The report model of docs/verification.md#the-report (schema `groundcheck.report/v1`).
//!
//! Field order is the serialization order, and nothing time- or machine-dependent is in it,
//! so a report's bytes are a function of its input and policy alone: snapshots stay stable.

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::path::{limit_error, EvidencePath, PathError};
use crate::policy::{Limit, Rung};
use crate::score::Score;

/// The schema name every report carries.
pub const SCHEMA: &str = "groundcheck.report/v1";

/// An invocation's classification (docs/verification.md#classification).
///
/// `NoEvidence` means "no evidence found by this tool", never "the fault is absent".
///
/// Its names (serde, `as_str`, `FromStr`) are defined once, in `names.rs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    /// Every real ref (or, under `require any`, at least one) was found in the raw output.
    Supported,
    /// The claim is not backed by the raw output.
    Unsupported,
    /// The tool call yielded no evidence; not a negative finding.
    NoEvidence,
}

/// Why an invocation got its status: the row of docs/verification.md#classification that applied.
///
/// Its names (serde, `as_str`, `FromStr`) are defined once, in `names.rs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reason {
    /// `retrieval_details` is not a readable claim (row 1).
    MalformedDetails,
    /// Claimed `supported` with no real refs (row 2).
    ClaimedWithoutRefs,
    /// The tool call failed (rows 3 and 6).
    ToolFailed,
    /// Only no-evidence markers (row 4).
    NoEvidenceMarker,
    /// No refs at all (row 5).
    NoRefs,
    /// Enough real refs verified (row 7, or row 8 under `require any`).
    Verified,
    /// Some but not all real refs verified (row 8).
    PartiallyVerified,
    /// No real ref verified (row 9).
    NotVerified,
}

/// What checking one ref found (docs/verification.md#checking-a-ref).
///
/// Its names (serde, `as_str`, `FromStr`) are defined once, in `names.rs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RefOutcome {
    /// The text was found under the path.
    Verified,
    /// The text is empty or white space only.
    EmptyText,
    /// No raw document to check against.
    RawOutputUnavailable,
    /// Neither RFC 9535 JSONPath nor RFC 6901 JSON Pointer.
    InvalidPath,
    /// The path selects nothing.
    PathNotFound,
    /// No leaf under the path contains the text on any accepted rung.
    TextNotFound,
    /// Not an object with a string `raw_path` and a string `text`.
    MalformedRef,
    /// The call failed, so its refs are not evidence (docs/verification.md#classification row 6).
    NotChecked,
    /// A `$.no_evidence` marker.
    NoEvidenceMarker,
    /// A limit of docs/verification.md#limits was hit.
    LimitExceeded,
}

/// Where the raw document came from (docs/verification.md#the-raw-document).
///
/// Its names (serde, `as_str`, `FromStr`) are defined once, in `names.rs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// `raw_output` / `raw_output_text` / the database's raw output column.
    RawOutput,
    /// A raw-output file beside the session, found through the `--raw-outputs` template.
    File,
    /// A provably complete `output_preview`.
    Preview,
    /// Nothing to check against.
    None,
}

/// Something worth knowing about an invocation that does not change its status.
///
/// Its names (serde, `as_str`, `FromStr`) are defined once, in `names.rs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Warning {
    /// A text column read from a database, or a raw-output file, was not valid UTF-8 and
    /// was decoded lossily.
    InvalidUtf8,
    /// A value the raw-output template needs would reach outside its folders; no file was
    /// looked for.
    RawOutputPathUnsafe,
    /// The raw-output template names a file that does not exist.
    RawOutputMissing,
    /// The raw-output template names a file that could not be read.
    RawOutputUnreadable,
    /// No-evidence markers stood beside real refs; they were ignored.
    MarkerWithRefs,
    /// A ref's path selected nothing in a text that is not JSON and was decided on the text
    /// read as JSON Lines (one JSON object or array a line).
    ReadAsJsonLines,
    /// A ref's path selected nothing in a text that is not JSON and was decided on the text
    /// read as YAML (every scalar a string holding its value as written).
    ReadAsYaml,
    /// A ref's path selected nothing in the document as written and was decided on its
    /// expanded view, where strings that hold JSON are replaced by what they hold.
    DescendedIntoString,
}

/// How a text that is not JSON was read to give its structured view
/// (docs/verification.md#yaml-and-json-lines): the view a ref was decided on, or a node
/// [`resolve_text`](crate::resolve_text) selected in.
///
/// Its names (serde, `as_str`, `FromStr`) are defined once, in `names.rs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ReadAs {
    /// One JSON object or array a line: the view is the array of the lines' values.
    JsonLines,
    /// YAML: the view is the (first) document's root, or the array of several documents'.
    Yaml,
}

impl ReadAs {
    /// The warning an invocation gets when a ref was decided on this view.
    pub fn warning(self) -> Warning {
        match self {
            ReadAs::JsonLines => Warning::ReadAsJsonLines,
            ReadAs::Yaml => Warning::ReadAsYaml,
        }
    }
}

/// One evidence ref as reported: echoed as given, with its outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "RefFields")]
pub struct RefReport {
    /// Position in `evidence_refs`.
    pub index: usize,
    /// `raw_path` as given, when it is a string.
    pub raw_path: Option<String>,
    /// `text` as given, when it is a string.
    pub text: Option<String>,
    /// What checking it found.
    pub outcome: RefOutcome,
    /// The rung that verified it.
    #[serde(rename = "match", default, skip_serializing_if = "Option::is_none")]
    pub rung: Option<Rung>,
    /// The normalized path of the leaf where the winning rung held.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched_path: Option<String>,
    /// For a fuzzy match: the score of the leaf that verified it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<Score>,
    /// For `raw_output_unavailable` with a string preview: whether the preview contains the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_preview: Option<bool>,
    /// For `text_not_found`: the selected leaf that came closest, so a reader can tell a
    /// misquote (a high score) from an invention (none, or a low one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nearest: Option<Nearest>,
    /// For `path_not_found` and `text_not_found`: the first leaf of the whole document that
    /// does hold the text — the quote is right, the path points at the wrong node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elsewhere: Option<String>,
    /// For `limit_exceeded`: the limit the ref hit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<Limit>,
    /// For an `invalid_path` ref, and a `limit_exceeded` ref whose path passes a limit of its
    /// own: why, with the position counted in `raw_path` as given. In the JSON report as
    /// `path_error: {message, offset, line, column}` (added to schema v1 without changing any
    /// other field), so that a program reading the report, or a model reading a tool result,
    /// learns why the path is invalid; a report read back from JSON derives it again.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "path_error")]
    pub path_error: Option<Error>,
    /// For a `malformed_ref` ref: what is wrong with it (`unknown key rawPath; did you mean
    /// raw_path?`). In the JSON report as `malformed` (added to schema v1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub malformed: Option<String>,
}

/// [`RefReport`]'s fields as the JSON report holds them (everything but `path_error`), read
/// first so that reading a report derives each `path_error` again.
#[derive(Deserialize)]
struct RefFields {
    index: usize,
    raw_path: Option<String>,
    text: Option<String>,
    outcome: RefOutcome,
    #[serde(rename = "match", default)]
    rung: Option<Rung>,
    #[serde(default)]
    matched_path: Option<String>,
    #[serde(default)]
    score: Option<Score>,
    #[serde(default)]
    in_preview: Option<bool>,
    #[serde(default)]
    nearest: Option<Nearest>,
    #[serde(default)]
    elsewhere: Option<String>,
    #[serde(default)]
    limit: Option<Limit>,
    #[serde(default)]
    malformed: Option<String>,
}

/// `path_error` as the JSON report writes it: the message without the place, and the
/// position in `raw_path` (line 1; the column counts characters, the offset bytes).
fn path_error<S: serde::Serializer>(error: &Option<Error>, serializer: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let Some(error) = error else { return serializer.serialize_none() };
    let position = error.position();
    let mut map = serializer.serialize_map(None)?;
    map.serialize_entry("message", error.message())?;
    map.serialize_entry("offset", &position.map(|p| p.offset))?;
    map.serialize_entry("line", &position.map(|p| p.line))?;
    map.serialize_entry("column", &position.map(|p| p.column))?;
    map.end()
}

impl From<RefFields> for RefReport {
    fn from(f: RefFields) -> RefReport {
        let path_error = f
            .raw_path
            .as_deref()
            .and_then(|given| path_problem(f.outcome, given, |path| EvidencePath::parse(path).err()));
        RefReport {
            index: f.index,
            raw_path: f.raw_path,
            text: f.text,
            outcome: f.outcome,
            rung: f.rung,
            matched_path: f.matched_path,
            score: f.score,
            in_preview: f.in_preview,
            nearest: f.nearest,
            elsewhere: f.elsewhere,
            limit: f.limit,
            path_error,
            malformed: f.malformed,
        }
    }
}

/// The selected leaf that came closest to a quote that was not found (docs/verification.md#near-misses).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Nearest {
    /// The leaf's score; never `0.000` (then there is no `nearest`).
    pub score: Score,
    /// The leaf's normalized path.
    pub path: String,
    /// The substring of the leaf's normalised text that reaches the score: the one ending
    /// first, and of those the shortest.
    pub text: String,
}

/// The verdict on one invocation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// The row's `id`.
    pub id: i64,
    /// The row's `tool_name`.
    pub tool_name: String,
    /// The classification.
    pub status: Status,
    /// The docs/verification.md#classification row that applied.
    pub reason: Reason,
    /// `evidence_status` verbatim when it is a string.
    pub claimed_status: Option<String>,
    /// Whether the claim equals the status; null when the claim is not one of the statuses.
    pub claim_agrees: Option<bool>,
    /// Where the raw document came from.
    pub source: Source,
    /// Every ref in input order (empty with `malformed_details`).
    pub refs: Vec<RefReport>,
    /// Warnings in the fixed order of [`Warning`]'s declaration.
    pub warnings: Vec<Warning>,
    /// For `malformed_details`: what is malformed (`evidence_refs is an object, not an
    /// array`), for the texts a person or a model reads. Not in the JSON report: the same row
    /// given as a bundle's JSON or as a driver's column text (a string that is not JSON) says
    /// it in different words, and a report must be the same bytes from every door.
    #[serde(skip)]
    pub malformed: Option<String>,
}

impl Verdict {
    /// A claim mismatch: the agent claimed a status that verification did not find.
    pub fn is_claim_mismatch(&self) -> bool {
        self.claim_agrees == Some(false)
    }
}

/// Counts over a run's verdicts. `supported + unsupported + no_evidence == invocations`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Summary {
    /// Invocations verified.
    pub invocations: usize,
    /// Of which supported.
    pub supported: usize,
    /// Of which unsupported.
    pub unsupported: usize,
    /// Of which no_evidence.
    pub no_evidence: usize,
    /// Of which the claimed status disagreed with the verdict.
    pub claim_mismatches: usize,
}

impl Summary {
    /// Counts `verdicts`.
    pub fn of(verdicts: &[Verdict]) -> Summary {
        let mut s = Summary { invocations: verdicts.len(), ..Summary::default() };
        for v in verdicts {
            match v.status {
                Status::Supported => s.supported += 1,
                Status::Unsupported => s.unsupported += 1,
                Status::NoEvidence => s.no_evidence += 1,
            }
            s.claim_mismatches += usize::from(v.is_claim_mismatch());
        }
        s
    }
}

/// The verdicts of one run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunReport {
    /// The run, or null for rows without `run_id` (grouped by session).
    pub run_id: Option<String>,
    /// The first invocation's session (in input order).
    pub session_id: Option<String>,
    /// Counts.
    pub summary: Summary,
    /// Verdicts by `id`.
    pub invocations: Vec<Verdict>,
}

impl RunReport {
    /// The report of a run from its verdicts in any order: sorted by `id`, then counted.
    pub(crate) fn of(
        run_id: Option<String>,
        session_id: Option<String>,
        mut verdicts: Vec<Verdict>,
    ) -> RunReport {
        verdicts.sort_by_key(|v| v.id);
        RunReport { run_id, session_id, summary: Summary::of(&verdicts), invocations: verdicts }
    }
}

/// A whole report: every run verified by one command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// Runs in order of first appearance.
    pub runs: Vec<RunReport>,
}

impl Report {
    /// A report over `runs`.
    pub fn new(runs: Vec<RunReport>) -> Report {
        Report { schema: SCHEMA.to_string(), runs }
    }
}

/// Why a ref's path decided its outcome, for the typed report: an `invalid_path` ref's parse
/// error, or the limit a `limit_exceeded` ref's path passes of its own; the position counted
/// in `given`, the path as the ref gives it (verification trims it first). `parse` gives the
/// error of a trimmed path (from the verifier's cache, or parsed anew).
pub(crate) fn path_problem(
    outcome: RefOutcome,
    given: &str,
    parse: impl FnOnce(&str) -> Option<PathError>,
) -> Option<Error> {
    let trimmed = given.trim();
    let err = match outcome {
        RefOutcome::InvalidPath => parse(trimmed).filter(|e| !e.limit)?,
        RefOutcome::LimitExceeded => limit_error(trimmed)?,
        _ => return None,
    };
    Some(err.shifted(given, given.len() - given.trim_start().len()).into())
}
