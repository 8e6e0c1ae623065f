//! The input model: one `tool_invocation` row and its raw output.

use crate::json::Json;

/// The tool's raw output, as far as it was captured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawOutput {
    /// The output as a JSON value (a bundle's inline `raw_output`). Size limits do not apply:
    /// it was already parsed by whoever built it.
    Json(Json),
    /// The output's exact text as stored (`raw_output_text`, the database column). Parsed as
    /// JSON when verified; text that is not JSON is one string leaf.
    Text(String),
}

/// One row of `tool_invocation` with every column of the seed table, plus its raw output.
///
/// Only `id` and `tool_name` are required; everything else may be missing in real data and
/// verification gives every such row a defined verdict. JSON columns are [`Json`] so that a
/// number in them keeps its text.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Invocation {
    /// Auto-increment primary key.
    pub id: i64,
    /// Owning session; the fallback grouping key for rows without `run_id`.
    pub session_id: Option<String>,
    /// Owning diagnosis run.
    pub run_id: Option<String>,
    /// The agent step that made the call, if recorded.
    pub step_id: Option<i64>,
    /// Tool name, e.g. `lookup_knowledge`, `query_logs`.
    pub tool_name: String,
    /// Tool input parameters.
    pub input_params: Option<Json>,
    /// Summary or prefix of the output; display only unless provably complete (§3.2).
    pub output_preview: Option<String>,
    /// Length of the full output in characters (scalar values or UTF-16 units).
    pub output_length: Option<i64>,
    /// RAG layer: `L0`, `L1`, `L0+L1`.
    pub retrieval_layer: Option<String>,
    /// L0 hits.
    pub l0_match_count: Option<i64>,
    /// L1 hits.
    pub l1_match_count: Option<i64>,
    /// Whether `output_preview` was truncated.
    pub is_truncated: Option<bool>,
    /// `PRECISE`, `HIGHLY_RELEVANT`, `REFERENCE`, `DEDUPED`.
    pub relevance_level: Option<String>,
    /// Why a row was deduplicated, e.g. `doc_retrieved`.
    pub dedup_reason: Option<String>,
    /// The agent's claim: evidence status and refs (§3.1).
    pub retrieval_details: Option<Json>,
    /// Tool latency.
    pub duration_ms: Option<i64>,
    /// Whether the tool call succeeded; null counts as success.
    pub success: Option<bool>,
    /// Failure reason.
    pub error_message: Option<String>,
    /// Creation time as text.
    pub created_at: Option<String>,
    /// The raw output, when captured.
    pub raw_output: Option<RawOutput>,
    /// Set by a reader that had to decode a text column lossily; reported as `invalid_utf8`.
    pub invalid_utf8: bool,
}
