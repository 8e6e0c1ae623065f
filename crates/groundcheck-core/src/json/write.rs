//! Compact JSON text from [`Node`] trees, numbers exactly as written, without recursion.

use super::Node;

enum Pending<'a> {
    Node(&'a Node),
    Text(&'static str),
    Key(&'a str),
}

/// Appends the compact JSON text of `root` to `out`.
pub(crate) fn write_node(root: &Node, out: &mut String) {
    let mut stack = vec![Pending::Node(root)];
    while let Some(item) = stack.pop() {
        match item {
            Pending::Text(t) => out.push_str(t),
            Pending::Key(k) => {
                write_json_string(k, out);
                out.push(':');
            }
            Pending::Node(node) => match node {
                Node::Null => out.push_str("null"),
                Node::Bool(true) => out.push_str("true"),
                Node::Bool(false) => out.push_str("false"),
                Node::Number(text) => out.push_str(text),
                Node::String(s) => write_json_string(s, out),
                Node::Array(items) => {
                    out.push('[');
                    stack.push(Pending::Text("]"));
                    for (i, item) in items.iter().enumerate().rev() {
                        stack.push(Pending::Node(item));
                        if i > 0 {
                            stack.push(Pending::Text(","));
                        }
                    }
                }
                Node::Object(members) => {
                    out.push('{');
                    stack.push(Pending::Text("}"));
                    for (i, (k, v)) in members.iter().enumerate().rev() {
                        stack.push(Pending::Node(v));
                        stack.push(Pending::Key(k));
                        if i > 0 {
                            stack.push(Pending::Text(","));
                        }
                    }
                }
            },
        }
    }
}

/// Appends `s` as a JSON string literal, escaping what RFC 8259 requires and nothing else.
pub(crate) fn write_json_string(s: &str, out: &mut String) {
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let escaped = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0x00..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if escaped.is_empty() {
            out.push_str(&format!("\\u{:04x}", b));
        } else {
            out.push_str(escaped);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reports are read by other programs' JSON readers: a string is escaped as serde_json
    /// escapes it, byte for byte (the shortest escapes, `\u00XX` in lower case otherwise).
    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut cases: Vec<String> = (0u8..0x80).map(|b| char::from(b).to_string()).collect();
        for len in 0..40 {
            for special in ['"', '\\', '\u{0}', '\u{1f}', '\n', '\u{7f}', 'é', '\u{2028}'] {
                let mut s: String = "ab cd ef gh ".chars().cycle().take(len).collect();
                s.push(special);
                s.push_str("tail");
                cases.push(s);
            }
        }
        for s in cases {
            let mut out = String::new();
            write_json_string(&s, &mut out);
            assert_eq!(out, serde_json::to_string(&s).unwrap(), "{s:?}");
        }
    }
}
