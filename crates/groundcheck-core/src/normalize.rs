//! The text normalisation of the `normalized` rung (§3.3), applied to both sides of a match.
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
    let folded: String = nfkc.chars().map(fold).collect();
    let lower = folded.to_lowercase();
    let mut out = String::with_capacity(lower.len());
    let mut pending_space = false;
    for c in lower.chars() {
        if c.is_whitespace() {
            pending_space = !out.is_empty();
        } else {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(c);
        }
    }
    out
}

/// [`normalize`] for ASCII text, most of a tool output's leaves: NFKC and the folding leave
/// ASCII as it is, so only lower casing and white space remain — one pass, no tables.
fn normalize_ascii(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    // The ASCII characters with the Unicode White_Space property (`char::is_whitespace`).
    for b in text.bytes() {
        if matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ') {
            pending_space = !out.is_empty();
        } else {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(char::from(b.to_ascii_lowercase()));
        }
    }
    out
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
