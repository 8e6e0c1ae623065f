//! The near-miss search (docs/verification.md#near-misses) over the leaves a path selected,
//! once the exact, normalized and elided rungs found nothing: the fuzzy rung (when the
//! policy accepts it) and `nearest`, from one distance per leaf.
//!
//! The cost is bounded before anything is computed: `m` (the quote's length) times the
//! total normalised length of the leaves searched may not pass [`COST_BOUND`], so the work
//! is at most `2^32 / 64` word operations per ref, whatever the input. Past it there is no
//! `nearest` and the fuzzy rung holds nowhere — decided by the sizes alone, so the same on
//! every machine.

use rayon::prelude::*;

use crate::boundary::splits_number;
use crate::distance::Quote;
use crate::leaves::Leaves;
use crate::policy::{Policy, Rung};
use crate::score::Score;

/// `m` × the leaves' total normalised length, in scalar values, above which no distance is
/// computed.
pub(crate) const COST_BOUND: u64 = 1 << 32;

/// Leaves are measured on rayon once their normalised text totals this many characters.
const PARALLEL_CHARS: u64 = 1 << 16;

/// What the near-miss search found; `ordinal` is the leaf's position in the search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Near {
    /// The fuzzy rung holds on this leaf: the first whose score reaches `min_score` and
    /// whose closest substring splits no number.
    Fuzzy { ordinal: usize, score: Score },
    /// The best leaf (the first of equals) and its closest substring.
    Nearest { ordinal: usize, score: Score, text: String },
    /// No leaf, an empty quote, a best score of `0.000`, or past the cost bound.
    Nothing,
}

/// Searches `texts` (each leaf's ordinal and raw text, in docs/verification.md#order order) for `quote`, the
/// ref's normalised text (`None`: it normalises to nothing).
pub(crate) fn near(
    quote: Option<&Quote>,
    texts: &[(usize, &str)],
    policy: &Policy,
    leaves: &mut Leaves,
) -> Near {
    let Some(quote) = quote else { return Near::Nothing };
    let raw: Vec<&str> = texts.iter().map(|&(_, text)| text).collect();
    leaves.prepare(&raw);
    let leaves = &*leaves;
    let m = quote.len();
    let total: u64 = raw.iter().map(|leaf| leaves.lookup(leaf).chars as u64).sum();
    if (m as u64).saturating_mul(total) > COST_BOUND {
        return Near::Nothing;
    }
    let measure = |leaf: &&str| quote.distance(&leaves.lookup(leaf).text);
    let distances: Vec<(usize, usize)> = if total >= PARALLEL_CHARS && raw.len() > 1 {
        raw.par_iter().map(measure).collect()
    } else {
        raw.iter().map(measure).collect()
    };
    let fuzzy = policy.max_rung == Rung::Fuzzy;
    let mut best: Option<(usize, Score)> = None;
    for (k, &(distance, end)) in distances.iter().enumerate() {
        let score = Score::of(m, distance);
        if fuzzy && score >= policy.min_score {
            let text = leaves.lookup(raw[k]).text;
            if !splits_number(&text, quote.start(&text, end, distance), end) {
                return Near::Fuzzy { ordinal: texts[k].0, score };
            }
        }
        if best.is_none_or(|(_, b)| score > b) {
            best = Some((k, score));
        }
    }
    match best {
        Some((k, score)) if score.thousandths() > 0 => {
            let text = leaves.lookup(raw[k]).text;
            let (distance, end) = distances[k];
            let start = quote.start(&text, end, distance);
            Near::Nearest { ordinal: texts[k].0, score, text: text[start..end].to_string() }
        }
        _ => Near::Nothing,
    }
}
