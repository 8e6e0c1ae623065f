//! The near-miss score (docs/verification.md#near-misses): how much of a quote a leaf
//! holds, from `0.000` to `1.000`, with exactly three decimals rounded down — the form a
//! person reads in a report and a policy names (`min_score=0.900`). Kept in thousandths so
//! that comparing two scores, or a score with `--min-score`, never meets a floating-point
//! rounding.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, ErrorKind};

/// A score in thousandths: `Score::of(m, d)` is `floor(1000 · (m − d) / m) / 1000` for a
/// quote of `m` characters at Levenshtein distance `d` from a leaf's closest substring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Score(u16);

impl Score {
    /// `1.000`: the normalised quote is a substring of the leaf.
    pub const ONE: Score = Score(1000);
    /// `0.000`: nothing of the quote is in the leaf. A valid score, but not a threshold
    /// ([`Policy::with_min_score`](crate::Policy::with_min_score) refuses it).
    pub const ZERO: Score = Score(0);
    /// The fuzzy rung's default `--min-score`, `0.900`: about one edit in ten characters.
    pub const DEFAULT_MIN: Score = Score(900);

    /// The score of a quote of `m` characters at distance `distance` (at most `m`; `m > 0`).
    pub(crate) fn of(m: usize, distance: usize) -> Score {
        let kept = m.saturating_sub(distance) as u128;
        // At most 1000: `kept <= m`.
        Score((kept * 1000 / m.max(1) as u128) as u16)
    }

    /// The score in thousandths, `0..=1000`.
    pub fn thousandths(self) -> u16 {
        self.0
    }

    /// The score of `n` thousandths; `None` above 1000.
    pub fn from_thousandths(n: u16) -> Option<Score> {
        (n <= 1000).then_some(Score(n))
    }
}

impl fmt::Display for Score {
    /// Always three decimals: `0.912`, `1.000`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:03}", self.0 / 1000, self.0 % 1000)
    }
}

impl FromStr for Score {
    type Err = Error;

    /// A decimal from `0` to `1` with at most three decimals: `0.9`, `0.875`, `1`, `1.000`.
    fn from_str(text: &str) -> Result<Score, Error> {
        let not_a_number =
            || Error::new(ErrorKind::Score, format!("`{text}` is not a decimal number such as 0.9 or 0.875"));
        let (whole, decimals) = text.split_once('.').unwrap_or((text, ""));
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if whole.is_empty()
            || !digits(whole)
            || !digits(decimals)
            || (text.contains('.') && decimals.is_empty())
        {
            return Err(not_a_number());
        }
        if decimals.len() > 3 {
            return Err(Error::new(ErrorKind::Score, format!("`{text}` has more than three decimals")));
        }
        let whole = whole.trim_start_matches('0');
        if whole.len() > 1 || (whole == "1" && decimals.bytes().any(|b| b != b'0')) || whole > "1" {
            return Err(Error::new(ErrorKind::Score, format!("`{text}` is above 1")));
        }
        let fraction: u16 = format!("{decimals:0<3}").parse().map_err(|_| not_a_number())?;
        Ok(Score(if whole == "1" { 1000 } else { fraction }))
    }
}

impl Serialize for Score {
    /// A JSON number with exactly three decimals, as written (`1.000`, not `1.0`).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let number: serde_json::Number =
            self.to_string().parse().map_err(|_| serde::ser::Error::custom("a score is a number"))?;
        number.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Score {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Score, D::Error> {
        let number = serde_json::Number::deserialize(deserializer)?;
        number.to_string().parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_decimals_rounded_down() {
        assert_eq!(Score::of(18, 1).to_string(), "0.944", "17/18 = 0.9444…");
        assert_eq!(Score::of(3, 1).to_string(), "0.666", "not 0.667");
        assert_eq!(Score::of(10, 0), Score::ONE);
        assert_eq!(Score::of(10, 10).to_string(), "0.000");
        assert_eq!(Score::of(2001, 1).to_string(), "0.999", "2000/2001 = 0.99950…");
        assert_eq!(Score::of(65_536, 1).to_string(), "0.999");
    }

    #[test]
    fn parses_plain_decimals_from_zero_to_one() {
        for (text, n) in
            [("0.9", 900), ("0.875", 875), ("1", 1000), ("1.000", 1000), ("0", 0), ("00.50", 500)]
        {
            assert_eq!(text.parse::<Score>().map(Score::thousandths), Ok(n), "{text}");
        }
        for bad in ["", "x", "0.", ".5", "-0.5", "+0.5", "0.9e0", " 0.9", "0,9", "NaN"] {
            assert!(
                matches!(bad.parse::<Score>(), Err(e) if e.message().contains("not a decimal")),
                "{bad:?}"
            );
        }
        assert!(matches!("0.9001".parse::<Score>(), Err(e) if e.message().contains("three decimals")));
        for above in ["1.001", "2", "10", "1.5"] {
            assert!(matches!(above.parse::<Score>(), Err(e) if e.message().contains("above 1")), "{above}");
        }
    }

    #[test]
    fn serialized_as_a_number_with_three_decimals() {
        assert_eq!(serde_json::to_string(&Score::ONE).unwrap(), "1.000");
        assert_eq!(serde_json::to_string(&Score(90)).unwrap(), "0.090");
        assert_eq!(serde_json::from_str::<Score>("0.912").unwrap(), Score(912));
    }
}
