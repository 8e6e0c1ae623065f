//! RFC 9535 normalized paths written out (`$['logs'][0]['message']`): the one writer every
//! module uses to name a node, escaping `'`, `\` and control characters as RFC 9535 §2.7
//! requires (serde_json_path's own formatter does not).

use super::Step;

/// `base` (a node's normalized path) followed by `steps` down from that node: the path of a
/// leaf found under a selected node.
pub(crate) fn join(mut base: String, steps: &[Step<'_>]) -> String {
    push_steps(&mut base, steps);
    base
}

/// Appends the normalized-path form of `steps` to `path`.
pub(crate) fn push_steps(path: &mut String, steps: &[Step<'_>]) {
    for step in steps {
        match *step {
            Step::Name(name) => push_name(path, name),
            Step::Index(i) => push_index(path, i),
        }
    }
}

/// Appends `['name']`, escaped.
pub(crate) fn push_name(path: &mut String, name: &str) {
    path.push_str("['");
    if !name.bytes().any(|b| b < 0x20 || b == b'\'' || b == b'\\') {
        path.push_str(name);
        path.push_str("']");
        return;
    }
    for c in name.chars() {
        match c {
            '\'' => path.push_str("\\'"),
            '\\' => path.push_str("\\\\"),
            '\u{8}' => path.push_str("\\b"),
            '\u{c}' => path.push_str("\\f"),
            '\n' => path.push_str("\\n"),
            '\r' => path.push_str("\\r"),
            '\t' => path.push_str("\\t"),
            c if (c as u32) < 0x20 => path.push_str(&format!("\\u{:04x}", c as u32)),
            c => path.push(c),
        }
    }
    path.push_str("']");
}

/// Appends `[index]`.
pub(crate) fn push_index(path: &mut String, index: usize) {
    // itoa: the formatting machinery costs more than the digits, on every step of a path.
    path.push('[');
    path.push_str(itoa::Buffer::new().format(index));
    path.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_escaped_as_rfc_9535_writes_them() {
        let name = |n: &str| {
            let mut path = String::from("$");
            push_name(&mut path, n);
            push_index(&mut path, 10);
            path
        };
        for index in [0, 7, 10, 99, 12345, usize::MAX] {
            let mut path = String::new();
            push_index(&mut path, index);
            assert_eq!(path, format!("[{index}]"));
        }
        assert_eq!(name("logs"), "$['logs'][10]");
        assert_eq!(name("日志 a\"b"), "$['日志 a\"b'][10]");
        assert_eq!(name("it's"), "$['it\\'s'][10]");
        assert_eq!(name("a\\b\n\t\u{1}\u{7f}"), "$['a\\\\b\\n\\t\\u0001\u{7f}'][10]");
    }
}
