//! What a verification accepts: the `require` rule, the loosest rung, and the limits of §6.

/// A rung of the matching ladder, from strictest to loosest.
///
/// Also the policy's `--match`: the loosest rung accepted (default `elided`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Rung {
    /// The quoted text is a substring of the leaf as written.
    Exact,
    /// A substring after NFKC, typographic folding, lower casing and white-space folding.
    Normalized,
    /// Pieces around `...` occur in order, without overlap, in one normalised leaf.
    #[default]
    Elided,
}

/// How many real refs must verify for an invocation to be `supported` (§3.4 row 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Require {
    /// Every real ref must verify (the default).
    #[default]
    All,
    /// One verified ref is enough: row 8 becomes supported/`verified`.
    Any,
}

/// Bounds that keep hostile input from costing unbounded time or memory (§6).
///
/// Hitting one gives the ref outcome `limit_exceeded` at the step the spec names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Raw output text size in bytes (`raw_output_text`, a complete preview, a database column).
    pub max_output_bytes: usize,
    /// JSON nesting depth of the raw document; the root is depth 1. Whatever this is set to,
    /// JSONPath queries never run on documents deeper than [`Limits::QUERY_DEPTH_CEILING`].
    pub max_depth: usize,
    /// Length of a ref's `text`, in characters (Unicode scalar values).
    pub max_text_chars: usize,
    /// Length of a trimmed `raw_path`, in characters.
    pub max_path_chars: usize,
    /// Nodes one query may select.
    pub max_nodes: usize,
    /// Refs read per invocation; later ones are echoed with `limit_exceeded`.
    pub max_refs: usize,
}

impl Limits {
    /// The deepest document a JSONPath query runs on, whatever `max_depth` says.
    ///
    /// serde_json_path evaluates `..` and filters recursively, one stack frame chain per
    /// nesting level; measured on a 2 MiB thread (rayon's default) it overflows between 2,000
    /// and 4,000 levels in debug builds. Deeper documents give `limit_exceeded` for JSONPath
    /// refs; JSON Pointer refs, evaluated without recursion, still run.
    pub const QUERY_DEPTH_CEILING: usize = 1_000;

    /// The deepest nesting of filter queries (`$[?@.a[?@.b]]` is 2) a path may have.
    ///
    /// serde_json_path's parser takes about twice as long for each nested filter query
    /// (0.02 s at 10 levels, 3 s at 20); deeper paths give `limit_exceeded` (`resolve`:
    /// exit 2). Real evidence paths nest one or two.
    pub const FILTER_NESTING_CEILING: usize = 8;
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_output_bytes: 64 * 1024 * 1024,
            max_depth: 512,
            max_text_chars: 65_536,
            max_path_chars: 4_096,
            max_nodes: 100_000,
            max_refs: 1_000,
        }
    }
}

/// Everything that decides a verdict besides the row itself.
///
/// Stored verdicts are keyed by [`Policy::key`], so two runs under different policies never
/// overwrite each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Policy {
    /// How many real refs must verify.
    pub require: Require,
    /// The loosest rung accepted; looser rungs are not tried.
    pub max_rung: Rung,
    /// Input bounds.
    pub limits: Limits,
}

impl Policy {
    /// The short stable text that names this policy in storage, e.g. `require=all;match=elided`.
    ///
    /// Limits are not part of the key: they only turn pathological inputs into
    /// `limit_exceeded`, and changing them should update, not fork, stored verdicts.
    pub fn key(&self) -> String {
        format!("require={};match={}", self.require.as_str(), self.max_rung.as_str())
    }
}
