//! The input model: one `tool_invocation` row and its raw output.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

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
    /// The output's exact text, read exactly as [`Text`](RawOutput::Text), but held by an
    /// owner the caller shares instead of copied into a `String`: a binding keeps a tool
    /// output in its host language's own string object, and a copy of it per row is most of
    /// what handing a row over would cost beyond verifying it.
    Shared(SharedText),
}

impl RawOutput {
    /// The output's text, when it is given as text ([`Text`](RawOutput::Text) or
    /// [`Shared`](RawOutput::Shared)): one question for callers that treat both alike.
    pub fn text(&self) -> Option<&str> {
        match self {
            RawOutput::Text(text) => Some(text),
            RawOutput::Shared(text) => Some(text),
            RawOutput::Json(_) => None,
        }
    }
}

/// Text whose bytes belong to an owner shared by reference count: cloning or dropping one
/// never copies the text, and the owner may be any type that gives its text as `&str` (a
/// `String`, an `Arc<str>`, a binding's handle on a host-language string).
///
/// The owner is dropped with the last clone, on whatever thread that is: an owner whose drop
/// must happen elsewhere (a Python object, whose reference count needs the interpreter's
/// lock) is kept alive by the caller, who lets its own clone go last, where it may.
///
/// ```
/// use groundcheck_core::SharedText;
///
/// let text = SharedText::new(String::from(r#"{"ok":true}"#));
/// let again = text.clone(); // the same bytes, not a copy
/// assert_eq!(again.as_str().as_ptr(), text.as_str().as_ptr());
/// assert_eq!(&*text, r#"{"ok":true}"#);
/// ```
#[derive(Clone)]
pub struct SharedText(Arc<dyn AsRef<str> + Send + Sync>);

impl SharedText {
    /// Text held by `owner`, which is moved behind a reference count.
    pub fn new(owner: impl AsRef<str> + Send + Sync + 'static) -> SharedText {
        SharedText(Arc::new(owner))
    }

    /// Text held by an owner already shared: the caller keeps its own clone of `owner` (to
    /// decide where the owner is dropped, say) and the text is still not copied.
    pub fn from_arc(owner: Arc<dyn AsRef<str> + Send + Sync>) -> SharedText {
        SharedText(owner)
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        (*self.0).as_ref()
    }
}

impl Deref for SharedText {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

/// Equal when the texts are: who owns them does not matter.
impl PartialEq for SharedText {
    fn eq(&self, other: &SharedText) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for SharedText {}

/// The text, as a `String`'s `Debug` shows it.
impl fmt::Debug for SharedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// What looking for a row's raw output in a file beside its session found.
///
/// The core reads no files: a caller that knows where the outputs live (the binary's
/// `--raw-outputs` template) looks for rows without a raw output of their own and records
/// what it found here. A file's text is then the document, read like `raw_output_text`, with
/// source `file`; anything else is a warning, and the row goes on to the preview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawOutputFile {
    /// The file's text, decompressed and decoded (lossily, with `invalid_utf8` set, when it
    /// was not UTF-8).
    Read(String),
    /// The file's text is longer than the size limit; reading stopped one byte past it.
    OverLimit,
    /// A value the template needs was null, empty, `.` or `..`, or held `/`, `\` or NUL, so
    /// no file was looked for: a template never reaches outside its folders.
    PathUnsafe,
    /// No file at the path.
    Missing,
    /// A file that could not be read: permission, a folder, an I/O or decompression error.
    Unreadable,
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
    /// Summary or prefix of the output; display only unless provably complete
    /// (docs/verification.md#the-raw-document).
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
    /// The agent's claim: evidence status and refs (docs/verification.md#the-claim).
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
    /// What a raw-output file lookup found, when one was made (only for rows without a
    /// `raw_output`, which always wins).
    pub raw_output_file: Option<RawOutputFile>,
    /// Set by a reader that had to decode a text column or a raw-output file lossily;
    /// reported as `invalid_utf8`.
    pub invalid_utf8: bool,
}
