//! How close a quote came to a leaf (docs/verification.md#near-misses): the smallest
//! Levenshtein distance between the normalised quote and any substring of the normalised
//! leaf, over Unicode scalar values.
//!
//! Myers' bit-parallel algorithm (1999) in the block form Hyyrö describes: the column of
//! the dynamic-programming table is held as vertical deltas, 64 rows to a machine word, and
//! advanced one leaf character at a time — `O(n · ⌈m/64⌉)` for a quote of `m` characters
//! against a leaf of `n`. No crate does this over scalar values with the tie rule below
//! (the ones that exist work on bytes, and their tracebacks choose other substrings).
//!
//! Semi-global: the top row is all zeros (the substring may start anywhere), the bottom row
//! is read after every leaf character (it may end anywhere). Which substring is reported
//! is fixed by the rule: the smallest end `e` at which the smallest distance `d` is reached,
//! then the shortest substring ending at `e` whose distance is `d` — found by running the
//! reversed quote *globally* backwards from `e`.

use std::collections::BTreeMap;

/// A normalised quote, prepared for searching many leaves.
pub(crate) struct Quote {
    forward: Pattern,
    backward: Pattern,
}

impl Quote {
    /// `None` for an empty quote: every leaf is at distance 0 from it and nothing is learnt.
    pub(crate) fn new(normalized: &str) -> Option<Quote> {
        let chars: Vec<char> = normalized.chars().collect();
        if chars.is_empty() {
            return None;
        }
        let backward = Pattern::new(chars.iter().rev().copied().collect());
        Some(Quote { forward: Pattern::new(chars), backward })
    }

    /// The quote's length `m`, in scalar values.
    pub(crate) fn len(&self) -> usize {
        self.forward.len
    }

    /// The smallest distance to any substring of `leaf`, and the smallest end (a byte
    /// offset) at which it is reached. The empty substring at 0 gives `(m, 0)`.
    pub(crate) fn distance(&self, leaf: &str) -> (usize, usize) {
        if self.forward.blocks == 1 {
            return self.distance_in_one_word(leaf);
        }
        let mut column = Column::new(&self.forward);
        let (mut best, mut end) = (column.score, 0);
        for (at, c) in leaf.char_indices() {
            if best == 0 {
                break;
            }
            column.advance(&self.forward, c, 0);
            if column.score < best {
                best = column.score;
                end = at + c.len_utf8();
            }
        }
        (best, end)
    }

    /// [`Quote::distance`] for a quote of at most 64 characters: the column in two words.
    fn distance_in_one_word(&self, leaf: &str) -> (usize, usize) {
        let pattern = &self.forward;
        let high = 1u64 << (pattern.len - 1);
        let (mut pv, mut mv, mut score) = (!0u64, 0u64, pattern.len);
        let (mut best, mut end) = (score, 0);
        for (at, c) in leaf.char_indices() {
            if best == 0 {
                break;
            }
            match step(&mut pv, &mut mv, pattern.masks(c)[0], 0, high) {
                1 => score += 1,
                -1 => score -= 1,
                _ => {}
            }
            if score < best {
                best = score;
                end = at + c.len_utf8();
            }
        }
        (best, end)
    }

    /// The start of the substring docs/verification.md#near-misses reports, given
    /// [`Quote::distance`]'s answer: the largest start at which `leaf[start..end]` is at
    /// distance `distance` from the quote. The global distance of the reversed quote to the
    /// reversed text read backwards from `end` is, after `k` characters, the distance of
    /// the substring of the last `k`: the first `k` where it equals `distance` (it is never
    /// smaller) is the shortest. No substring longer than `m + distance` can reach it,
    /// which bounds the scan.
    pub(crate) fn start(&self, leaf: &str, end: usize, distance: usize) -> usize {
        let mut column = Column::new(&self.backward);
        if column.score == distance {
            return end;
        }
        let mut start = end;
        for (at, c) in leaf[..end].char_indices().rev().take(self.len() + distance) {
            column.advance(&self.backward, c, 1);
            start = at;
            if column.score == distance {
                break;
            }
        }
        start
    }
}

/// The quote as bit masks: for each character, the rows (quote positions) it occupies, one
/// word per block of 64 rows.
struct Pattern {
    len: usize,
    blocks: usize,
    /// `ascii[c * blocks + b]`: the mask of ASCII character `c` in block `b`.
    ascii: Vec<u64>,
    /// The other characters, sorted, for a binary search: the quote is the input's, so no
    /// hash table an adversary could fill with colliding characters.
    other: Vec<(char, Vec<u64>)>,
    /// Masks of a character the quote does not hold.
    absent: Vec<u64>,
}

impl Pattern {
    fn new(chars: Vec<char>) -> Pattern {
        let blocks = chars.len().div_ceil(64);
        let mut ascii = vec![0u64; 128 * blocks];
        let mut other: BTreeMap<char, Vec<u64>> = BTreeMap::new();
        for (row, &c) in chars.iter().enumerate() {
            let (block, bit) = (row / 64, 1u64 << (row % 64));
            if c.is_ascii() {
                ascii[c as usize * blocks + block] |= bit;
            } else {
                other.entry(c).or_insert_with(|| vec![0; blocks])[block] |= bit;
            }
        }
        Pattern {
            len: chars.len(),
            blocks,
            ascii,
            other: other.into_iter().collect(),
            absent: vec![0; blocks],
        }
    }

    fn masks(&self, c: char) -> &[u64] {
        if c.is_ascii() {
            let at = c as usize * self.blocks;
            &self.ascii[at..at + self.blocks]
        } else {
            match self.other.binary_search_by_key(&c, |&(k, _)| k) {
                Ok(at) => &self.other[at].1,
                Err(_) => &self.absent,
            }
        }
    }
}

/// One column of the table as vertical deltas (`+1` rows in `pv`, `-1` rows in `mv`), and
/// its bottom value.
struct Column {
    pv: Vec<u64>,
    mv: Vec<u64>,
    score: usize,
}

impl Column {
    /// The first column: row `i` is `i` (deleting `i` quote characters).
    fn new(pattern: &Pattern) -> Column {
        Column { pv: vec![!0; pattern.blocks], mv: vec![0; pattern.blocks], score: pattern.len }
    }

    /// Advances past leaf character `c`. `top` is the top row's step: 0 when a substring
    /// may start anywhere, 1 when it must start at the first character read.
    fn advance(&mut self, pattern: &Pattern, c: char, top: i8) {
        let masks = pattern.masks(c);
        let last = pattern.blocks - 1;
        let mut carry = top;
        for (block, &eq) in masks.iter().enumerate() {
            let high = if block == last { 1u64 << ((pattern.len - 1) % 64) } else { 1u64 << 63 };
            carry = step(&mut self.pv[block], &mut self.mv[block], eq, carry, high);
        }
        match carry {
            1 => self.score += 1,
            -1 => self.score -= 1,
            _ => {}
        }
    }
}

/// Myers' `advance_block`: one block of rows past one character, given the horizontal delta
/// entering at its top; returns the delta leaving at row `high`. Rows above `high` in the
/// last block hold garbage that never reaches the rows below it (carries only go up).
fn step(pv: &mut u64, mv: &mut u64, eq: u64, carry_in: i8, high: u64) -> i8 {
    let xv = eq | *mv;
    let eq = if carry_in < 0 { eq | 1 } else { eq };
    let xh = ((eq & *pv).wrapping_add(*pv) ^ *pv) | eq;
    let mut ph = *mv | !(xh | *pv);
    let mut mh = *pv & xh;
    let carry_out = if ph & high != 0 {
        1
    } else if mh & high != 0 {
        -1
    } else {
        0
    };
    ph <<= 1;
    mh <<= 1;
    match carry_in {
        1 => ph |= 1,
        -1 => mh |= 1,
        _ => {}
    }
    *pv = mh | !(xv | ph);
    *mv = ph & xv;
    carry_out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Eq)]
    struct Closest {
        distance: usize,
        start: usize,
        end: usize,
    }

    impl Quote {
        fn closest(&self, leaf: &str) -> Closest {
            let (distance, end) = self.distance(leaf);
            Closest { distance, start: self.start(leaf, end, distance), end }
        }
    }

    /// The textbook table, for comparison: `O(m · n)`.
    fn naive(quote: &str, leaf: &str) -> Closest {
        let q: Vec<char> = quote.chars().collect();
        let l: Vec<(usize, char)> = leaf.char_indices().collect();
        let m = q.len();
        let lev = |s: &[char], t: &[char]| {
            let mut row: Vec<usize> = (0..=t.len()).collect();
            for (i, &a) in s.iter().enumerate() {
                let mut prev = row[0];
                row[0] = i + 1;
                for (j, &b) in t.iter().enumerate() {
                    let cur = row[j + 1];
                    row[j + 1] = (prev + usize::from(a != b)).min(row[j] + 1).min(cur + 1);
                    prev = cur;
                }
            }
            row[t.len()]
        };
        let chars: Vec<char> = l.iter().map(|&(_, c)| c).collect();
        let byte = |k: usize| l.get(k).map_or(leaf.len(), |&(b, _)| b);
        // Semi-global: row 0 is all zeros, the smallest value of row m (first one) wins.
        let mut rows = vec![vec![0usize; chars.len() + 1]; m + 1];
        for i in 1..=m {
            rows[i][0] = i;
            for j in 1..=chars.len() {
                rows[i][j] = (rows[i - 1][j - 1] + usize::from(q[i - 1] != chars[j - 1]))
                    .min(rows[i][j - 1] + 1)
                    .min(rows[i - 1][j] + 1);
            }
        }
        let d = *rows[m].iter().min().unwrap();
        let e = rows[m].iter().position(|&x| x == d).unwrap();
        let s = (0..=e).rev().find(|&s| lev(&q, &chars[s..e]) == d).unwrap();
        Closest { distance: d, start: byte(s), end: byte(e) }
    }

    fn closest(quote: &str, leaf: &str) -> (usize, &'static str) {
        let c = Quote::new(quote).unwrap().closest(leaf);
        (c.distance, leaf[c.start..c.end].to_string().leak())
    }

    #[test]
    fn hand_computed_cases() {
        // "abc" in "abXc": "ab" (ends at 2) is at distance 1 (insert c), and so is "abXc"
        // (ends at 4, delete X). The smallest end wins: "ab".
        assert_eq!(closest("abc", "abXc"), (1, "ab"));
        // "abcd" in "abxd": ends 1..4 give 3, 2, 2, 1 (substitute c→x): only "abxd" reaches
        // 1; the substrings ending at 4 are "d" 3, "xd" 2, "bxd" 2, "abxd" 1.
        assert_eq!(closest("abcd", "abxd"), (1, "abxd"));
        // "ba" in "aa": end 1 already gives 1 ("a": delete b). Ending at 1: "" is 2, "a" is 1.
        assert_eq!(closest("ba", "aa"), (1, "a"));
        // Exact: "ab" in "aab" ends at 3; ending there, "b" is 1, "ab" is 0.
        assert_eq!(closest("ab", "aab"), (0, "ab"));
        // Nothing in common: every substring is at distance 2 at best, first reached by the
        // empty one at 0.
        assert_eq!(closest("xy", "ab"), (2, ""));
        // A changed CJK character at the end: "检测死" (insert 锁) reaches 1 one character
        // before "检测死销" (substitute) does, so the shorter, earlier substring is reported.
        assert_eq!(closest("检测死锁", "日志: 检测死销 ok"), (1, "检测死"));
        // In the middle, nothing shorter reaches 1: "死销检测" (substitute 锁→销).
        assert_eq!(closest("死锁检测", "日志: 死销检测 ok"), (1, "死销检测"));
    }

    #[test]
    fn distance_is_bounded_by_the_quote_and_zero_for_a_substring() {
        let q = Quote::new("connection refused").unwrap();
        assert_eq!(q.distance("dial: connection refused by peer"), (0, 24));
        assert_eq!(q.distance(""), (18, 0));
        assert_eq!(q.distance("zzzz").0, 18);
    }

    #[test]
    fn agrees_with_the_table_on_small_cases() {
        let alphabet = ['a', 'b', 'c', 'é', '死'];
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..3000 {
            let q: String = (0..1 + next(7)).map(|_| alphabet[next(alphabet.len())]).collect();
            let l: String = (0..next(12)).map(|_| alphabet[next(alphabet.len())]).collect();
            assert_eq!(Quote::new(&q).unwrap().closest(&l), naive(&q, &l), "{q:?} in {l:?}");
        }
    }

    #[test]
    fn quotes_longer_than_one_word_use_several_blocks() {
        let mut seed = 7u64;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 33) % n as u64) as usize
        };
        for m in [63, 64, 65, 127, 128, 129, 200] {
            let q: String = (0..m).map(|_| ['a', 'b', 'c', '死'][next(4)]).collect();
            let mut l: String = (0..50).map(|_| ['a', 'b', 'c'][next(3)]).collect();
            // The quote with a few edits, inside noise.
            let edited: String = q
                .chars()
                .enumerate()
                .filter(|(i, _)| i % 17 != 3)
                .map(|(i, c)| if i % 23 == 5 { 'x' } else { c })
                .collect();
            l.push_str(&edited);
            l.push_str("cabbage");
            assert_eq!(Quote::new(&q).unwrap().closest(&l), naive(&q, &l), "m = {m}");
        }
    }
}
