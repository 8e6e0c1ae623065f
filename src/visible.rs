//! Showing text from tool outputs and claims in a table without letting it break the table.
//!
//! Paths are printed exactly as given, so they can be pasted into `groundcheck resolve`. The
//! only characters changed are those a terminal would not show as themselves: control
//! characters (U+0000–U+001F, U+007F–U+009F), the line and paragraph separators U+2028 and
//! U+2029, and the bidirectional formatting controls (U+061C, U+200E, U+200F,
//! U+202A–U+202E, U+2066–U+2069), which could make one path look like another. Each is
//! written `<U+XXXX>` (four or more upper-case hex digits, as `less` does), and on a colour
//! terminal in reverse video as well, so it cannot be mistaken for text in the path.

/// `text` with every invisible or line-breaking character written `<U+XXXX>`; with `mark`,
/// those are also shown in reverse video. Every other character is kept as it is.
pub fn visible(text: &str, mark: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if is_hidden(c) {
            let code = format!("<U+{:04X}>", u32::from(c));
            if mark {
                out.push_str(&format!("\x1b[7m{code}\x1b[27m"));
            } else {
                out.push_str(&code);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Characters a terminal does not print as themselves.
fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{061C}' | '\u{200E}' | '\u{200F}')
        || ('\u{202A}'..='\u{202E}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::visible;

    #[test]
    fn only_hidden_characters_change() {
        let path = "$['kafka.topic'][\"a\\b\"]";
        assert_eq!(visible(path, false), path, "quotes and backslashes stay as given");
        assert_eq!(visible("$.no_evidence\n", false), "$.no_evidence<U+000A>");
        assert_eq!(visible("a\tb\u{1b}[31m\u{7f}\u{85}", false), "a<U+0009>b<U+001B>[31m<U+007F><U+0085>");
        assert_eq!(visible("x\u{2028}y\u{202E}z", false), "x<U+2028>y<U+202E>z");
        assert_eq!(visible("引用 ‘x’ …", false), "引用 ‘x’ …");
        assert_eq!(visible("\0", true), "\x1b[7m<U+0000>\x1b[27m");
    }
}
