//! The text normalisation of the `normalized` rung (docs/verification.md#checking-a-ref),
//! applied to both sides of a match.
//!
//! Order matters and is fixed by the spec: NFKC, typographic folding, full Unicode lower
//! casing, white-space runs to one space, trim. NFKC also turns `…` into `...`, which the
//! `elided` rung then splits on.

use icu_normalizer::ComposingNormalizerBorrowed;

/// Normalises `text` for the `normalized` and `elided` rungs.
pub(crate) fn normalize(text: &str) -> String {
    #[cfg(test)]
    tests::CALLS.with(|calls| calls.set(calls.get() + 1));
    if text.is_ascii() {
        return normalize_ascii(text);
    }
    let nfkc = ComposingNormalizerBorrowed::new_nfkc().normalize(text);
    let mut out = Collapsed::with_capacity(nfkc.len());
    // Folding, lower casing and white space one character at a time: what the three passes
    // of `normalize_in_passes` give, since no character's lower case is white space and
    // `str::to_lowercase` maps each character alone — except capital sigma, whose lower
    // case depends on its neighbours (final `ς`), which is left to those passes.
    for c in nfkc.chars() {
        match c {
            // ASCII: folding leaves it, so only its white space and lower case remain.
            '\0'..='\x7f' if ascii_space(c as u8) => out.space(),
            '\0'..='\x7f' => out.push(c.to_ascii_lowercase()),
            'Σ' => return normalize_in_passes(&nfkc),
            c if c.is_whitespace() => out.space(),
            c => match fold(c) {
                c if c.is_ascii() || UNCASED.iter().any(|range| range.contains(&c)) => out.push(c),
                c => c.to_lowercase().for_each(|lower| out.push(lower)),
            },
        }
    }
    out.text
}

/// Blocks whose characters have no lower case of their own (CJK and kana, Yi, Hangul
/// syllables: tested below), so that the lookup `char::to_lowercase` does in its case
/// tables — a binary search per character — is skipped for the text of East Asian logs.
const UNCASED: [std::ops::RangeInclusive<char>; 2] = ['\u{3000}'..='\u{a63f}', '\u{ac00}'..='\u{d7a3}'];

/// The pipeline after NFKC as the spec states it, one whole-text pass per step.
fn normalize_in_passes(nfkc: &str) -> String {
    let folded: String = nfkc.chars().map(fold).collect();
    let lower = folded.to_lowercase();
    let mut out = Collapsed::with_capacity(lower.len());
    for c in lower.chars() {
        if c.is_whitespace() {
            out.space();
        } else {
            out.push(c);
        }
    }
    out.text
}

/// [`normalize`] for ASCII text, most of a tool output's leaves: NFKC and the folding leave
/// ASCII as it is, so only lower casing and white space remain — one pass, no tables.
fn normalize_ascii(text: &str) -> String {
    let mut out = Collapsed::with_capacity(text.len());
    for b in text.bytes() {
        if ascii_space(b) {
            out.space();
        } else {
            out.push(char::from(b.to_ascii_lowercase()));
        }
    }
    out.text
}

/// Text written with every run of white space as one space, and none at either end.
struct Collapsed {
    text: String,
    /// White space was met since the last character (and after the first).
    pending: bool,
}

impl Collapsed {
    fn with_capacity(bytes: usize) -> Collapsed {
        Collapsed { text: String::with_capacity(bytes), pending: false }
    }

    #[inline]
    fn space(&mut self) {
        self.pending = !self.text.is_empty();
    }

    #[inline]
    fn push(&mut self, c: char) {
        if self.pending {
            self.text.push(' ');
            self.pending = false;
        }
        self.text.push(c);
    }
}

/// The ASCII characters with the Unicode White_Space property (`char::is_whitespace`).
fn ascii_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ')
}

/// Typographic folding: quotes to ASCII quotes, dashes and minus to `-`.
fn fold(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{00AB}' | '\u{00BB}' | '\u{300C}'
        | '\u{300D}' | '\u{300E}' | '\u{300F}' => '"',
        '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
        c => c,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::cell::Cell;

    use icu_normalizer::ComposingNormalizerBorrowed;

    use super::normalize;

    thread_local! {
        /// How many texts this thread normalised: the cost the leaf cache must keep down.
        pub(crate) static CALLS: Cell<usize> = const { Cell::new(0) };
    }

    #[test]
    fn nfkc_then_fold_then_lower_then_space() {
        assert_eq!(normalize("ＣＯＮＮＥＣＴＩＯＮ  Refused"), "connection refused");
        assert_eq!(normalize("“quoted” ‘it’ «x» 「y」"), "\"quoted\" 'it' \"x\" \"y\"");
        assert_eq!(normalize("a\u{2013}b\u{2212}c\u{2010}d"), "a-b-c-d");
        assert_eq!(normalize("  many \n\t spaces\u{3000}here  "), "many spaces here");
        assert_eq!(normalize("wait…"), "wait...");
        assert_eq!(normalize("ΣΑΣ İ"), "σας i̇");
    }

    /// The one-pass loop is the spec's pipeline, pass by pass, on every kind of character it
    /// treats alike: lower casing that grows (`İ`), white space of every kind, folded
    /// punctuation, compatibility forms, combining marks and CJK.
    #[test]
    fn one_pass_is_the_pipeline_in_passes() {
        let pieces = [
            "İ",
            "ẞ",
            "Ǆ",
            "ﬃ",
            "Ａ",
            "\u{3000}",
            "\u{2028}",
            "\u{85}",
            " ",
            "\t",
            "“",
            "–",
            "…",
            "e\u{301}",
            "数据库",
            "x",
            "Ω",
            "\u{212a}",
            "①",
            "ᾈ",
            "ǅ",
        ];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let text = format!("{a}{b} {c}{a}");
                    let nfkc = ComposingNormalizerBorrowed::new_nfkc().normalize(&text);
                    assert_eq!(normalize(&text), super::normalize_in_passes(&nfkc), "{text:?}");
                }
            }
        }
        // Sigma takes the passes: its lower case depends on what follows.
        assert_eq!(normalize("ΟΔΟΣ ΣΑΣ"), "οδος σας");
        assert_eq!(normalize("\u{3f9}Α\u{3f9}"), "σας", "NFKC makes the lunate sigma a capital sigma");
    }

    #[test]
    fn uncased_blocks_have_no_lower_case() {
        for range in super::UNCASED {
            for c in range {
                assert!(c.to_lowercase().eq([c]), "{c:?}");
            }
        }
    }

    /// What the one-pass loop relies on, for every character: lower casing neither makes nor
    /// unmakes white space.
    #[test]
    fn lower_case_keeps_white_space_apart() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            assert_eq!(c.to_lowercase().any(char::is_whitespace), c.is_whitespace(), "{c:?}");
        }
    }

    /// The ASCII fast path is the general pipeline on every ASCII character, alone and in runs.
    #[test]
    fn ascii_takes_a_shortcut_to_the_same_result() {
        let slow = |text: &str| {
            let mut marked = String::from("\u{e9}");
            marked.push_str(text);
            let n = normalize(&marked);
            n.strip_prefix('\u{e9}').map(|rest| rest.to_string()).unwrap_or(n)
        };
        for b in 0u8..128 {
            let c = char::from(b);
            for text in [format!("a{c}b"), format!("{c}{c}x{c}"), format!("X {c} Y"), c.to_string()] {
                let expected = slow(&text);
                // The marker keeps the leading white space from being trimmed by the slow path.
                let expected = if text.starts_with(char::is_whitespace) {
                    expected.trim_start().to_string()
                } else {
                    expected
                };
                assert_eq!(normalize(&text), expected, "{:?}", text);
            }
        }
        assert!(!char::is_whitespace('\u{1c}'), "U+001C..U+001F are not White_Space");
    }
}
