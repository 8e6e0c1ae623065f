//! What a verification accepts: the `require` rule, the loosest rung (with the fuzzy rung's
//! minimum score), and the limits of docs/verification.md#limits.

use crate::score::Score;

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
    /// The leaf's near-miss score (docs/verification.md#near-misses) is at least the policy's `min_score`. Tried only
    /// when the policy names it: a near miss is not a quote unless someone says it counts.
    Fuzzy,
}

/// How many real refs must verify for an invocation to be `supported` (docs/verification.md#classification row 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Require {
    /// Every real ref must verify (the default).
    #[default]
    All,
    /// One verified ref is enough: row 8 becomes supported/`verified`.
    Any,
}

/// Which of the [`Limits`] a `limit_exceeded` ref hit, as the report names it (`limit`), so
/// that a reader knows which bound — and which flag — would let the ref be checked.
///
/// Its names (serde, `as_str`, `FromStr`) are defined once, in `names.rs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Limit {
    /// The raw output's text is longer than `max_output_bytes`.
    OutputSize,
    /// The document (or the view a path was run on) nests deeper than `max_depth`, or than
    /// [`Limits::QUERY_DEPTH_CEILING`] for a JSONPath query.
    Depth,
    /// The ref's `text` is longer than `max_text_chars`.
    TextLength,
    /// The trimmed `raw_path` is longer than `max_path_chars`, or nests filters or
    /// parentheses deeper than a path may ([`Limits::FILTER_NESTING_CEILING`]).
    PathLength,
    /// The path selects more than `max_nodes` nodes, or a YAML view's aliases add more.
    Nodes,
    /// The ref comes after the first `max_refs` refs of its invocation, which are all that
    /// are read.
    Refs,
}

/// Bounds that keep hostile input from costing unbounded time or memory (docs/verification.md#limits).
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
    /// serde_json_path's parser takes about twice as long for each nested filter query, so
    /// twenty levels take seconds; deeper paths give `limit_exceeded` (`resolve`: exit 2).
    /// Real evidence paths nest one or two.
    pub const FILTER_NESTING_CEILING: usize = 8;

    /// The deepest nesting of parentheses (grouping, and function calls: `length(length(@))`
    /// is 2) a path may have.
    ///
    /// serde_json_path's parser recurses for each one, using kilobytes of stack a level: a
    /// thousand overflow an 8 MiB thread in a debug build, and a path of the default length
    /// holds two thousand; deeper paths give `limit_exceeded` (`resolve`: exit 2). Real
    /// evidence paths nest two or three.
    pub const PAREN_NESTING_CEILING: usize = 32;
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Policy {
    /// How many real refs must verify.
    pub require: Require,
    /// The loosest rung accepted; looser rungs are not tried.
    pub max_rung: Rung,
    /// The fuzzy rung's threshold (`--min-score`); read only when `max_rung` is
    /// [`Rung::Fuzzy`]. Above 0: a threshold of 0 would verify any quote at all.
    pub min_score: Score,
    /// Input bounds.
    pub limits: Limits,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            require: Require::default(),
            max_rung: Rung::default(),
            min_score: Score::DEFAULT_MIN,
            limits: Limits::default(),
        }
    }
}

impl Policy {
    /// The short stable text that names this policy in storage, e.g. `require=all;match=elided`,
    /// or `require=all;match=fuzzy;min_score=0.900` (the threshold only where it is read).
    ///
    /// Limits are not part of the key: they only turn pathological inputs into
    /// `limit_exceeded`, and changing them should update, not fork, stored verdicts.
    pub fn key(&self) -> String {
        let key = format!("require={};match={}", self.require.as_str(), self.max_rung.as_str());
        match self.max_rung {
            Rung::Fuzzy => format!("{key};min_score={}", self.min_score),
            _ => key,
        }
    }

    /// The loosest rung a quote may hold on for `in_preview` and `elsewhere`, which never
    /// use the fuzzy rung: they say where the text *is*, not where something like it is.
    pub(crate) fn loosest_exact_rung(&self) -> Rung {
        self.max_rung.min(Rung::Elided)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_names_the_threshold_only_for_the_fuzzy_rung() {
        assert_eq!(Policy::default().key(), "require=all;match=elided");
        let fuzzy = Policy { max_rung: Rung::Fuzzy, ..Policy::default() };
        assert_eq!(fuzzy.key(), "require=all;match=fuzzy;min_score=0.900");
        let strict = Policy { min_score: Score::ONE, require: Require::Any, ..fuzzy };
        assert_eq!(strict.key(), "require=any;match=fuzzy;min_score=1.000");
        assert_eq!(Policy { min_score: Score::ONE, ..Policy::default() }.key(), "require=all;match=elided");
    }
}
