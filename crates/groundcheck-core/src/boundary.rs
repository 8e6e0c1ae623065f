//! A match never splits a number: `500` is not evidence found in `1500 ms`, `0.500` or
//! `1,500`, nor `0.95` in `0.950`. Where a match begins with a digit (`0`–`9`), the leaf
//! character just before it must be neither a digit nor a `.` or `,` with a digit before it;
//! where it ends with a digit, the character just after it must be neither a digit nor a `.`
//! or `,` with a digit after it. An occurrence that splits a number does not count, but a
//! later one may (`500` is found in `code 5000, then 500`, at the second).

use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use memchr::arch::all::rabinkarp;
use memchr::memmem::Finder;

/// Until a needle has been searched through this many bytes of haystack, it is searched
/// without building its [`Finder`] (Rabin-Karp). Building one costs about 5,700 instructions,
/// which its SIMD search saves back over about a kilobyte.
const BUDGET: usize = 1024;

/// A needle, searched occurrence by occurrence for one that splits no number.
///
/// Its [`Finder`] is built once [`BUDGET`] bytes have been searched: a quote is usually
/// searched once, in one short leaf, where building a finder costs more than the search.
pub(crate) struct Whole<'n> {
    needle: Cow<'n, str>,
    finder: OnceLock<Finder<'static>>,
    /// Haystack bytes searched without the finder.
    searched: AtomicUsize,
}

impl<'n> Whole<'n> {
    pub(crate) fn new(needle: &'n str) -> Whole<'n> {
        Whole { needle: Cow::Borrowed(needle), finder: OnceLock::new(), searched: AtomicUsize::new(0) }
    }

    /// The needle without borrowing the text it was made from.
    pub(crate) fn into_owned(self) -> Whole<'static> {
        Whole { needle: Cow::Owned(self.needle.into_owned()), finder: self.finder, searched: self.searched }
    }

    /// Where the needle first occurs in `hay`, splitting a number or not: a candidate to
    /// confirm with [`Whole::find_from`] on the leaf it lies in.
    pub(crate) fn candidate(&self, hay: &[u8]) -> Option<usize> {
        let needle = self.needle.as_bytes();
        if hay.len() < needle.len() {
            return None;
        }
        if let Some(finder) = self.finder.get() {
            return finder.find(hay);
        }
        // Relaxed: the count only decides when to build the finder; any order gives the same
        // matches.
        if self.searched.fetch_add(hay.len(), Ordering::Relaxed) + hay.len() < BUDGET {
            return rabinkarp::Finder::new(needle).find(hay, needle);
        }
        self.finder.get_or_init(|| Finder::new(needle).into_owned()).find(hay)
    }

    /// The byte range of the first occurrence in `hay` at or after byte `from` that splits
    /// no number. Overlapping occurrences are all tried: in `55x5x5` the `5x5` at 1 splits a
    /// number, the one at 3 does not.
    pub(crate) fn find_from(&self, hay: &str, from: usize) -> Option<(usize, usize)> {
        let bytes = hay.as_bytes();
        let mut at = from;
        while at <= bytes.len() {
            let start = at + self.candidate(&bytes[at..])?;
            let end = start + self.needle.len();
            if !splits_number(hay, start, end) {
                return Some((start, end));
            }
            // Next character: the needle is UTF-8, so `start` is on a character boundary.
            at = start + hay[start..].chars().next().map_or(1, char::len_utf8);
        }
        None
    }
}

/// Whether `hay[start..end]`, taken as a match, splits a number of `hay`.
pub(crate) fn splits_number(hay: &str, start: usize, end: usize) -> bool {
    let bytes = hay.as_bytes();
    let digit = |i: Option<usize>| i.and_then(|i| bytes.get(i)).is_some_and(u8::is_ascii_digit);
    let separator = |i: usize| matches!(bytes.get(i), Some(b'.' | b','));
    if start >= end {
        return false;
    }
    // `.`, `,` and digits are ASCII, so stepping one byte from a character boundary lands on
    // the neighbouring character whenever it is one of them.
    let before = start.checked_sub(1);
    let split_before = digit(Some(start))
        && (digit(before) || before.is_some_and(|b| separator(b) && digit(b.checked_sub(1))));
    let split_after = digit(Some(end - 1)) && (digit(Some(end)) || (separator(end) && digit(Some(end + 1))));
    split_before || split_after
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(needle: &str, hay: &str) -> Option<usize> {
        Whole::new(needle).find_from(hay, 0).map(|(start, _)| start)
    }

    #[test]
    fn the_examples_of_the_rule() {
        assert_eq!(found("500", "code 5000, then 500"), Some(16), "the second occurrence");
        for hay in ["1500 ms", "0.500", "1,500", "5000", "500.5", "500,1"] {
            assert_eq!(found("500", hay), None, "{hay}");
        }
        assert_eq!(found("0.95", "0.950"), None);
        assert_eq!(found("9", "0.950"), None);
        assert_eq!(found("0.27", "0.274"), None);
        assert_eq!(found("0.950", "p99=0.950s"), Some(4));
    }

    #[test]
    fn only_digit_ends_are_checked_and_separators_need_a_digit_beyond() {
        assert_eq!(found("500 ms", "1500 ms"), None, "starts with a digit");
        assert_eq!(found("code 5", "code 50"), None, "ends with a digit");
        assert_eq!(found("ms", "1500ms"), Some(4), "no digit at either end");
        assert_eq!(found("500", "took 500."), Some(5), "a full stop after the number");
        assert_eq!(found("500", "v.500 and ,500"), Some(2), "a separator with no digit before it");
        assert_eq!(found("500", "x500y"), Some(1), "letters are not digits");
        assert_eq!(found("1", "１1"), Some(3), "only 0-9 are digits (the normalized rung folds ｜１｜ to 1)");
    }

    #[test]
    fn overlapping_occurrences_are_all_tried_and_multibyte_text_is_stepped_over() {
        assert_eq!(found("5x5", "55x5x5"), Some(3));
        assert_eq!(found("日1", "日日1日1"), Some(3));
        assert_eq!(found("1", "11日1"), Some(5));
        assert_eq!(Whole::new("").find_from("abc", 0), Some((0, 0)));
    }

    /// Before and after the finder is built, the same occurrences are found.
    #[test]
    fn the_finder_finds_what_rabin_karp_finds() {
        let long = "x".repeat(BUDGET);
        for (needle, hay) in [
            ("500", "code 5000, then 500"),
            ("5x5", "55x5x5"),
            ("日1", "日日1日1"),
            ("0.95", "0.950"),
            ("", "abc"),
        ] {
            let searched = Whole::new(needle);
            assert_eq!(searched.find_from(&long, 0).is_some(), needle.is_empty());
            assert!(searched.finder.get().is_some(), "{needle}: built after {BUDGET} bytes");
            let fresh = Whole::new(needle);
            assert_eq!(fresh.find_from(hay, 0), searched.find_from(hay, 0), "{needle} in {hay}");
            assert!(fresh.finder.get().is_none(), "{needle}: not built for a short leaf");
        }
    }

    #[test]
    fn a_substring_splits_a_number_by_the_same_rule() {
        let hay = "took 1500 ms, code 0.950";
        let at = |s: &str| (hay.find(s).unwrap(), hay.find(s).unwrap() + s.len());
        let (s, e) = at("500");
        assert!(splits_number(hay, s, e));
        let (s, e) = at("1500");
        assert!(!splits_number(hay, s, e));
        let (s, e) = at("0.95");
        assert!(splits_number(hay, s, e));
        let (s, e) = at("ms, code");
        assert!(!splits_number(hay, s, e), "no digit at either end");
        assert!(!splits_number(hay, 3, 3), "the empty substring");
    }
}
