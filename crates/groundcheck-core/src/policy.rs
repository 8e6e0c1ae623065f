//! What a verification accepts: the `require` rule, the loosest rung (with the fuzzy rung's
//! minimum score), and the limits of docs/verification.md#limits.

use crate::error::{Error, ErrorKind};
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
    /// The leaf's near-miss score (docs/verification.md#near-misses) is at least the
    /// policy's `min_score`. Tried only when the policy names it: a near miss is not a
    /// quote unless someone says it counts.
    Fuzzy,
}

/// How many real refs must verify for an invocation to be `supported`
/// (docs/verification.md#classification row 8).
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
/// Hitting one gives the ref outcome `limit_exceeded` at the step the spec names. Every limit
/// is at least 1 (a zero limit would refuse every input): the fields are private so that
/// [`Limits::set`] is the one place a value is checked, whichever door it came through.
///
/// ```
/// use groundcheck_core::{Limit, Limits};
///
/// let limits = Limits::default().with(Limit::Nodes, 500)?;
/// assert_eq!(limits.get(Limit::Nodes), 500);
/// let zero = Limits::default().with(Limit::Depth, 0).unwrap_err();
/// assert_eq!(zero.to_string(), "max_depth: must be at least 1, not 0");
/// # Ok::<(), groundcheck_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Raw output text size in bytes (`raw_output_text`, a complete preview, a database column).
    pub(crate) max_output_bytes: usize,
    /// JSON nesting depth of the raw document; the root is depth 1. Whatever this is set to,
    /// JSONPath queries never run on documents deeper than [`Limits::QUERY_DEPTH_CEILING`].
    pub(crate) max_depth: usize,
    /// Length of a ref's `text`, in characters (Unicode scalar values).
    pub(crate) max_text_chars: usize,
    /// Length of a trimmed `raw_path`, in characters.
    pub(crate) max_path_chars: usize,
    /// Nodes one query may select.
    pub(crate) max_nodes: usize,
    /// Refs read per invocation; later ones are echoed with `limit_exceeded`.
    pub(crate) max_refs: usize,
}

impl Limit {
    /// The name of the setting that holds this limit (`max_nodes`): the policy field every
    /// binding takes, and, with `-` for `_`, the command line's flag (`--max-nodes`).
    pub fn setting(self) -> &'static str {
        match self {
            Limit::OutputSize => "max_output_bytes",
            Limit::Depth => "max_depth",
            Limit::TextLength => "max_text_chars",
            Limit::PathLength => "max_path_chars",
            Limit::Nodes => "max_nodes",
            Limit::Refs => "max_refs",
        }
    }

    /// The limit whose [`setting`](Limit::setting) is `name`, for a door that reads limits by
    /// name (a JSON policy, keyword arguments).
    pub fn by_setting(name: &str) -> Option<Limit> {
        Limit::ALL.iter().copied().find(|l| l.setting() == name)
    }
}

impl Limits {
    /// The value of `limit`.
    pub fn get(&self, limit: Limit) -> usize {
        match limit {
            Limit::OutputSize => self.max_output_bytes,
            Limit::Depth => self.max_depth,
            Limit::TextLength => self.max_text_chars,
            Limit::PathLength => self.max_path_chars,
            Limit::Nodes => self.max_nodes,
            Limit::Refs => self.max_refs,
        }
    }

    /// Sets `limit` to `value`, which must be a whole number of at least 1; otherwise an
    /// [`ErrorKind::LimitSetting`](crate::ErrorKind::LimitSetting) error naming the setting
    /// (`max_depth: must be at least 1, not 0`). Takes any integer a door may hold (a JSON
    /// number, a Python int, a Java long) so that no door narrows it first.
    pub fn set(&mut self, limit: Limit, value: i128) -> Result<&mut Limits, Error> {
        let value = usize::try_from(value).ok().filter(|&n| n >= 1).ok_or_else(|| {
            Error::setting(
                ErrorKind::LimitSetting,
                limit.setting(),
                format!("must be at least 1, not {value}"),
            )
        })?;
        *match limit {
            Limit::OutputSize => &mut self.max_output_bytes,
            Limit::Depth => &mut self.max_depth,
            Limit::TextLength => &mut self.max_text_chars,
            Limit::PathLength => &mut self.max_path_chars,
            Limit::Nodes => &mut self.max_nodes,
            Limit::Refs => &mut self.max_refs,
        } = value;
        Ok(self)
    }

    /// These limits with `limit` set to `value`, checked as [`Limits::set`] checks it.
    pub fn with(mut self, limit: Limit, value: i128) -> Result<Limits, Error> {
        self.set(limit, value)?;
        Ok(self)
    }

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
/// overwrite each other. The fields are private and every setter checks its value, so a
/// policy that exists is a valid one, and the rules of validity live here for every door.
///
/// ```
/// use groundcheck_core::{Policy, Rung, Score};
///
/// let policy = Policy::default().with_max_rung(Rung::Fuzzy).with_min_score("0.8".parse()?)?;
/// assert_eq!(policy.key(), "require=all;match=fuzzy;min_score=0.800");
/// assert!(Policy::default().with_min_score(Score::ZERO).is_err());
/// # Ok::<(), groundcheck_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Policy {
    /// How many real refs must verify.
    pub(crate) require: Require,
    /// The loosest rung accepted; looser rungs are not tried.
    pub(crate) max_rung: Rung,
    /// The fuzzy rung's threshold (`--min-score`); read only when `max_rung` is
    /// [`Rung::Fuzzy`]. Above 0: a threshold of 0 would verify any quote at all.
    pub(crate) min_score: Score,
    /// Input bounds.
    pub(crate) limits: Limits,
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
    /// How many real refs must verify.
    pub fn require(&self) -> Require {
        self.require
    }

    /// The loosest rung accepted; looser rungs are not tried.
    pub fn max_rung(&self) -> Rung {
        self.max_rung
    }

    /// The fuzzy rung's threshold (`--min-score`); read only when the loosest rung is
    /// [`Rung::Fuzzy`].
    pub fn min_score(&self) -> Score {
        self.min_score
    }

    /// The input bounds.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// This policy with `require`.
    pub fn with_require(self, require: Require) -> Policy {
        Policy { require, ..self }
    }

    /// This policy with `max_rung` as the loosest rung.
    pub fn with_max_rung(self, max_rung: Rung) -> Policy {
        Policy { max_rung, ..self }
    }

    /// This policy with the fuzzy threshold `min_score`, which must be above 0 (a threshold of
    /// 0 would verify any quote at all): otherwise an [`ErrorKind::Score`] error,
    /// `min_score: must be above 0`.
    pub fn with_min_score(self, min_score: Score) -> Result<Policy, Error> {
        if min_score.thousandths() == 0 {
            return Err(Error::setting(ErrorKind::Score, "min_score", "must be above 0"));
        }
        Ok(Policy { min_score, ..self })
    }

    /// This policy with `limits`.
    pub fn with_limits(self, limits: Limits) -> Policy {
        Policy { limits, ..self }
    }

    /// This policy with one limit set, checked as [`Limits::set`] checks it.
    pub fn with_limit(self, limit: Limit, value: i128) -> Result<Policy, Error> {
        Ok(Policy { limits: self.limits.with(limit, value)?, ..self })
    }

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

    #[test]
    fn every_limit_is_set_and_read_by_its_setting() {
        for (n, &limit) in Limit::ALL.iter().enumerate() {
            assert_eq!(Limit::by_setting(limit.setting()), Some(limit));
            let value = 7 + n as i128;
            let limits = Limits::default().with(limit, value).unwrap();
            assert_eq!(limits.get(limit) as i128, value);
            for &other in Limit::ALL.iter().filter(|&&o| o != limit) {
                assert_eq!(limits.get(other), Limits::default().get(other));
            }
            for bad in [0, -1, i128::MAX] {
                let err = Limits::default().with(limit, bad).unwrap_err();
                assert_eq!(err.kind(), ErrorKind::LimitSetting);
                assert_eq!(err.to_string(), format!("{}: must be at least 1, not {bad}", limit.setting()));
            }
        }
        assert_eq!(Limit::by_setting("max_everything"), None);
    }

    #[test]
    fn a_zero_threshold_is_refused_and_a_policy_reads_back_what_it_was_given() {
        let err = Policy::default().with_min_score(Score::ZERO).unwrap_err();
        assert_eq!((err.kind(), err.to_string().as_str()), (ErrorKind::Score, "min_score: must be above 0"));
        let policy = Policy::default()
            .with_require(Require::Any)
            .with_max_rung(Rung::Exact)
            .with_min_score(Score::ONE)
            .unwrap()
            .with_limit(Limit::Refs, 3)
            .unwrap();
        assert_eq!(
            (policy.require(), policy.max_rung(), policy.min_score()),
            (Require::Any, Rung::Exact, Score::ONE)
        );
        assert_eq!(policy.limits().get(Limit::Refs), 3);
    }
}
