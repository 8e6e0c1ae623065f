//! How many values a JSON text holds, counted on its text: a general JSONPath query runs on a
//! tree of the whole document, which costs memory per value whatever the value's length (an
//! array of 39 million zeros is 78 MB of text and several gigabytes of tree), so the count is
//! taken before any tree is built.

use serde_json::value::RawValue;

/// Whether `text`, read as JSON, holds more than `cap` values (containers and scalars alike).
///
/// The count is an upper bound read in one pass, outside strings: the root, and one more
/// value for every `,`, `[` and `{` (each member after a container's first follows a comma,
/// and each container's first is counted with its bracket). Only a text past `cap` is then
/// validated (without building anything): a text that is not JSON holds no values here, as it
/// is read as one string.
pub(crate) fn holds_more_values_than(text: &str, cap: usize) -> bool {
    let is_json = || serde_json::from_str::<&RawValue>(text).is_ok();
    if cap == 0 {
        return is_json();
    }
    let bytes = text.as_bytes();
    let mut count = 1usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                // To the closing quote, stepping over escapes.
                loop {
                    let Some(k) = bytes.get(i..).and_then(|rest| memchr::memchr2(b'"', b'\\', rest)) else {
                        return false;
                    };
                    if bytes[i + k] == b'\\' {
                        i += k + 2;
                    } else {
                        i += k + 1;
                        break;
                    }
                }
                continue;
            }
            b',' | b'[' | b'{' => {
                count += 1;
                if count > cap {
                    return is_json();
                }
            }
            _ => {}
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::holds_more_values_than;
    use crate::json::{holds_at_most, parse_with_depth_limit};

    /// The count is never below the tree's: `holds_at_most` on the parsed tree is the truth.
    #[test]
    fn the_count_bounds_the_trees_values_from_above() {
        let texts = [
            "0",
            "[]",
            "{}",
            "[0,1,2]",
            r#"{"a":[1,{"b":"x,[{"}],"c":[]}"#,
            r#"["\",[{", "\\", "\\\"", [[[]]], {"k": {"k": null}}]"#,
            r#"[{"a": 1, "b": [true, false, null]}, "s", 1e3, -0.5]"#,
        ];
        for text in texts {
            let tree = parse_with_depth_limit(text, usize::MAX).expect("JSON");
            for cap in 0..20 {
                if !holds_at_most(tree.root(), cap) {
                    assert!(holds_more_values_than(text, cap), "{text} over {cap}");
                }
            }
        }
    }

    #[test]
    fn a_text_that_is_not_json_holds_no_values_here() {
        assert!(!holds_more_values_than("a, b, c, [d, {e", 2));
        assert!(!holds_more_values_than("\"unterminated, , ,", 1));
        assert!(!holds_more_values_than("[1,2,3", 1));
        assert!(holds_more_values_than("[1,2,3]", 3));
        assert!(!holds_more_values_than("[1,2,3]", 4));
    }
}
