//! A match never splits a number: `500` is not evidence found in `1500 ms`, `0.500` or
//! `1,500`, nor `0.95` in `0.950`. Where a match begins with a digit (`0`–`9`), the leaf
//! character just before it must be neither a digit nor a `.` or `,` with a digit before it;
//! where it ends with a digit, the character just after it must be neither a digit nor a `.`
//! or `,` with a digit after it. An occurrence that splits a number does not count, but a
//! later one may (`500` is found in `code 5000, then 500`, at the second).

use memchr::memmem::Finder;

/// A needle with what its ends need checked, searched occurrence by occurrence.
pub(crate) struct Whole<'n> {
    finder: Finder<'n>,
    len: usize,
    starts_with_digit: bool,
    ends_with_digit: bool,
}

impl<'n> Whole<'n> {
    pub(crate) fn new(needle: &'n str) -> Whole<'n> {
        Whole {
            finder: Finder::new(needle.as_bytes()),
            len: needle.len(),
            starts_with_digit: needle.bytes().next().is_some_and(|b| b.is_ascii_digit()),
            ends_with_digit: needle.bytes().next_back().is_some_and(|b| b.is_ascii_digit()),
        }
    }

    /// The needle without borrowing the text it was made from.
    pub(crate) fn into_owned(self) -> Whole<'static> {
        Whole { finder: self.finder.into_owned(), ..self }
    }

    /// The byte range of the first occurrence in `hay` at or after byte `from` that splits
    /// no number. Overlapping occurrences are all tried: in `55x5x5` the `5x5` at 1 splits a
    /// number, the one at 3 does not.
    pub(crate) fn find_from(&self, hay: &str, from: usize) -> Option<(usize, usize)> {
        let bytes = hay.as_bytes();
        let mut at = from;
        while at <= bytes.len() {
            let start = at + self.finder.find(&bytes[at..])?;
            let end = start + self.len;
            if !self.splits_number(bytes, start, end) {
                return Some((start, end));
            }
            // Next character: the needle is UTF-8, so `start` is on a character boundary.
            at = start + hay[start..].chars().next().map_or(1, char::len_utf8);
        }
        None
    }

    fn splits_number(&self, bytes: &[u8], start: usize, end: usize) -> bool {
        let digit = |i: Option<usize>| i.and_then(|i| bytes.get(i)).is_some_and(u8::is_ascii_digit);
        let separator = |i: usize| matches!(bytes.get(i), Some(b'.' | b','));
        // `.`, `,` and digits are ASCII, so stepping one byte from a character boundary
        // lands on the neighbouring character whenever it is one of them.
        let before = start.checked_sub(1);
        let split_before = self.starts_with_digit
            && (digit(before) || before.is_some_and(|b| separator(b) && digit(b.checked_sub(1))));
        let split_after =
            self.ends_with_digit && (digit(Some(end)) || (separator(end) && digit(Some(end + 1))));
        split_before || split_after
    }
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
}
