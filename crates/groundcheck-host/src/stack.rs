//! Which calls may run on the caller's own thread: the one rule for every door that is
//! called on threads it does not own (the JVM's, Python's). A text too small to nest deeply
//! in any format the engine reads it as (JSON, JSON inside strings, JSON Lines, YAML, a path)
//! runs where it was called, without the hand-over to the engine's threads; anything else
//! runs on [`Threads`](crate::Threads).

/// A text longer than this may nest too deeply for a small stack without a single bracket:
/// YAML nests by `- ` and indentation (`- - - … - b`, 510 levels in a kilobyte, once crashed
/// a 256 KiB Java thread), and JSON held in a string may write its brackets as `\u005b`.
/// A text of at most this many bytes nests at most this many levels, whatever its format.
pub const INLINE_BYTES: usize = 256;

/// A text with more `[`, `{` and `(` than this (inside strings too, so a claim's paths are
/// counted) may nest filters and parentheses in a path deeper than a small stack allows for:
/// the path parser's frames are large, about four times larger in a debug build (where 16
/// take 275 KiB, against 63 KiB in a release build; `stack_probe`).
pub const INLINE_NESTING: usize = if cfg!(debug_assertions) { 4 } else { 16 };

/// Whether work on `texts` (a row's text, a document and a path) may run on a 256 KiB
/// stack: every text at most [`INLINE_BYTES`] long, and [`INLINE_NESTING`] brackets and
/// parentheses in all of them together at most.
pub fn runs_inline<'a>(texts: impl IntoIterator<Item = &'a str>) -> bool {
    let mut brackets = 0;
    for text in texts {
        if text.len() > INLINE_BYTES {
            return false;
        }
        brackets += text.bytes().filter(|&b| matches!(b, b'[' | b'{' | b'(')).count();
    }
    brackets <= INLINE_NESTING
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_or_bracketed_texts_go_to_the_engines_threads() {
        assert!(runs_inline(["{}", "$.a"]));
        assert!(!runs_inline(["- ".repeat(200).as_str()]), "YAML nests without brackets");
        assert!(!runs_inline(["[".repeat(INLINE_NESTING + 1).as_str()]));
        let half = "(".repeat(INLINE_NESTING / 2 + 1);
        assert!(!runs_inline([half.as_str(), half.as_str()]), "counted over every text together");
    }
}
