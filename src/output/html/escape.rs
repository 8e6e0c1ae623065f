//! Text from tool outputs and claims, made safe to put in the page.
//!
//! Everything that comes from a row is written through [`text`] (element content and
//! attribute values alike: it escapes both quote characters), so no input can open a tag,
//! end an attribute or start a script. Characters a reader could not see or that reorder
//! the text around them (control characters, U+2028/U+2029, the bidirectional controls) are
//! shown as `<U+XXXX>`, as the `human` format does.

use crate::visible::visible;

/// `s` as HTML text, hidden characters made visible.
pub fn text(s: &str) -> String {
    let shown = visible(s, false);
    let mut out = String::with_capacity(shown.len());
    for c in shown.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `s` as the inside of a JSON string literal (its escapes, without the quotes), as HTML
/// text: how a string leaf of the raw output is shown.
pub fn json_string(s: &str) -> String {
    let literal = serde_json::to_string(s).unwrap_or_default();
    text(&literal[1..literal.len().saturating_sub(1).max(1)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_hidden_characters_are_text() {
        assert_eq!(
            text("</script><img src=x onerror='alert(1)'>\u{2028}\u{202e}&"),
            "&lt;/script&gt;&lt;img src=x onerror=&#39;alert(1)&#39;&gt;&lt;U+2028&gt;&lt;U+202E&gt;&amp;"
        );
        assert_eq!(json_string("a\"b\n<"), "a\\&quot;b\\n&lt;");
        assert_eq!(json_string(""), "");
    }
}
