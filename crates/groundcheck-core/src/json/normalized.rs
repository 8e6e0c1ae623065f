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
    path.push('[');
    path.push_str(&index.to_string());
    path.push(']');
}
