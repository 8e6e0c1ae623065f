//! Plain text: what the quick test and the anchor filter of `elsewhere` rest on — a text whose
//! normalised runs of letters, digits and ideographs are its own runs in lower case.

/// The runs of the normalised quote made of ASCII letters and digits (lower case already) and
/// CJK ideographs, longest first: the normalised text of every leaf the normalized or elided
/// rung holds on contains each of them. (An elided piece is a part of the normalised quote
/// between `...`s, trimmed, so each run lies inside one piece, and every piece must hold.)
pub(super) struct Anchor(pub(super) Vec<String>);

impl Anchor {
    pub(super) fn of(normalized: &str) -> Option<Anchor> {
        let mut runs: Vec<String> = normalized
            .split(|c: char| !anchoring(c))
            .filter(|run| !run.is_empty())
            .map(String::from)
            .collect();
        runs.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        runs.dedup();
        (!runs.is_empty()).then_some(Anchor(runs))
    }
}

/// A character an [`Anchor`] is made of.
pub(super) fn anchoring(c: char) -> bool {
    c.is_ascii_alphanumeric() || ('\u{4e00}'..='\u{9fff}').contains(&c)
}

/// The non-ASCII characters of a [`plain`] text: CJK ideographs, and punctuation (CJK, general,
/// full-width) that normalises to neither an ASCII letter or digit nor an ideograph (tested
/// below, character by character and beside ASCII letters).
const PLAIN: [std::ops::RangeInclusive<char>; 5] = [
    '\u{4e00}'..='\u{9fff}',
    '\u{3000}'..='\u{3029}',
    '\u{2010}'..='\u{2027}',
    '\u{ff01}'..='\u{ff0f}',
    '\u{ff1a}'..='\u{ff20}',
];

/// Whether every character of `leaf` is ASCII or [`PLAIN`]. Normalising such a text maps
/// each ASCII letter or digit to its lower case and each ideograph to itself, every other
/// character to characters that are neither, and combines no two characters (NFKC composes
/// none of these): so a run of letters, digits and ideographs in its normalised text is a run
/// of its text with ASCII letters in lower case.
pub(super) fn plain(leaf: &str) -> bool {
    let bytes = leaf.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            i += 1 + ascii_run(&bytes[i + 1..]);
        } else if (0xe5..=0xe9).contains(&b) || (b == 0xe4 && bytes.get(i + 1).is_some_and(|&c| c >= 0xb8)) {
            // U+4E00..=U+9FFF, the ideographs, written in three bytes.
            i += 3;
        } else {
            let Some(c) = leaf.get(i..).and_then(|rest| rest.chars().next()) else { return false };
            if !PLAIN.iter().any(|range| range.contains(&c)) {
                return false;
            }
            i += c.len_utf8();
        }
    }
    true
}

/// `text` with ASCII letters in lower case, and the length of its start that is ASCII, to a
/// multiple of 64 bytes (that start ends on a character boundary). The copy is lowered as it
/// is made, and the start is found 64 bytes at a time: copying the text, lowering the copy and
/// testing all of it for ASCII read it three times, on every leaf a failing ref searches.
pub(super) fn lower_case(text: &str) -> (Vec<u8>, usize) {
    const STRETCH: usize = 64;
    let bytes = text.as_bytes();
    let lower = bytes.iter().map(u8::to_ascii_lowercase).collect();
    let ascii = bytes
        .chunks(STRETCH)
        .position(|stretch| stretch.iter().fold(0, |all, &b| all | b) >= 0x80)
        .map_or(bytes.len(), |k| k * STRETCH);
    (lower, ascii)
}

/// How many of the first bytes of `bytes` are ASCII, counted 8 at a time (a run shorter than
/// 8 is not counted), then 32 at a time: most of a tool output is ASCII, and a byte at a time
/// was most of the cost of [`plain`], while the runs between the ideographs of a Chinese log
/// line are short.
fn ascii_run(bytes: &[u8]) -> usize {
    const HIGH: u64 = u64::from_le_bytes([0x80; 8]);
    let word = |at: usize| {
        let mut word = [0; 8];
        word.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(word)
    };
    let mut run = 0;
    while run + 8 <= bytes.len() && word(run) & HIGH == 0 {
        run += 8;
        if run == 16 {
            while run + 32 <= bytes.len()
                && (word(run) | word(run + 8) | word(run + 16) | word(run + 24)) & HIGH == 0
            {
                run += 32;
            }
        }
    }
    run
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::normalize;

    /// What [`plain`] rests on, character by character over every [`PLAIN`] character, alone
    /// and between ASCII letters: normalising it gives no ASCII letter or digit, and no
    /// ideograph but itself; it joins nothing to its neighbours.
    #[test]
    fn plain_characters_normalise_to_no_anchor_but_themselves() {
        for c in PLAIN.iter().flat_map(|range| range.clone()) {
            let alone: String = normalize(&c.to_string()).chars().filter(|&n| anchoring(n)).collect();
            let expected = if anchoring(c) { c.to_string() } else { String::new() };
            assert_eq!(alone, expected, "U+{:04X}", c as u32);
            let beside: String = normalize(&format!("a{c}Z9")).chars().filter(|&n| anchoring(n)).collect();
            assert_eq!(beside, format!("a{expected}z9"), "U+{:04X}", c as u32);
            assert!(plain(&format!("x{c}y")));
        }
        for text in ["é", "Ａ", "㎏", "①", "ﬁ", "İ", "\u{212a}", "\u{3038}", "a\u{301}", "Привет"]
        {
            assert!(!plain(text), "{text}");
        }
        assert!(plain("订单服务 order-svc 调用超时 after 3000ms（重试）…"));
    }

    /// `lower_case` is the copy in lower case, and the start it calls ASCII is ASCII, ends on a
    /// character boundary no further than 64 bytes before the first byte that is not, and
    /// leaves `plain` the same answer on the rest.
    #[test]
    fn lower_case_is_the_lowered_copy_and_an_ascii_start() {
        let long = "Order-SVC TIMEOUT after 3000ms ".repeat(9);
        for text in [
            String::new(),
            "ABC".to_string(),
            long.clone(),
            format!("{long}调用超时"),
            format!("{}é{long}", &long[..63]),
            format!("{}é{long}", &long[..64]),
            format!("{}Ａ", &long[..130]),
            format!("超时{long}"),
        ] {
            let (lower, ascii) = lower_case(&text);
            assert_eq!(lower, text.as_bytes().to_ascii_lowercase(), "{text}");
            let first = text.bytes().position(|b| b >= 0x80).unwrap_or(text.len());
            assert!(
                ascii <= first && (ascii == text.len() || (ascii % 64 == 0 && first - ascii < 64)),
                "{text}"
            );
            assert!(text.is_char_boundary(ascii) && text[..ascii].is_ascii(), "{text}");
            assert_eq!(plain(&text[ascii..]), plain(&text), "{text}");
        }
    }
}
