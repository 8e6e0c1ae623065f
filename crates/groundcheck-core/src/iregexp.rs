//! The patterns of `match()` and `search()` (docs/verification.md#limits: I-Regexp, RFC 9485).
//!
//! serde_json_path hands a pattern to the `regex` crate as it is, wrapped in `^(…)$`, and
//! compiles it again for every node it tests. So a pattern outside I-Regexp is not refused
//! (`\d`, `(?i)` work; `x)|(a` escapes the wrapper), and one that cannot compile costs a full,
//! failed compile per node (milliseconds each for `(a{1000}){1000}`). RFC 9535 §2.4.6: such a pattern
//! makes the function's result LogicalFalse. [`neutralize`] finds the string-literal patterns
//! of a path and replaces each one that is not I-Regexp, or does not compile, by `(`, which
//! fails at once — the same LogicalFalse, in microseconds. A pattern taken from the document
//! (a query as second argument) is beyond this check and keeps serde_json_path's behaviour.

use std::ops::Range;

/// What a pattern that must give LogicalFalse is replaced by: it never compiles.
const NEVER: &str = "'('";

/// `path` with every `match()`/`search()` string-literal pattern that is not I-Regexp, or
/// that the regex engine cannot compile, replaced by one that fails at once; `None` when
/// there is nothing to replace. `path` must already be valid JSONPath.
pub(crate) fn neutralize(path: &str) -> Option<String> {
    let mut out = String::new();
    let mut last = 0;
    for (function, range, pattern) in literal_patterns(path) {
        if is_iregexp(&pattern) && compiles(function, &pattern) {
            continue;
        }
        out.push_str(&path[last..range.start]);
        out.push_str(NEVER);
        last = range.end;
    }
    (last > 0).then(|| out + &path[last..])
}

/// Whether the regex engine compiles `pattern` as serde_json_path will.
fn compiles(function: &str, pattern: &str) -> bool {
    let wrapped = if function == "match" { format!("(?R)^({pattern})$") } else { format!("(?R)({pattern})") };
    regex::Regex::new(&wrapped).is_ok()
}

/// The function (`match` or `search`), byte range and decoded text of every string literal
/// given as the second argument of `match(` or `search(` in `path`.
fn literal_patterns(path: &str) -> Vec<(&'static str, Range<usize>, String)> {
    let bytes = path.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\'' | b'"' => i = string_end(bytes, i),
            _ => {
                let name_start =
                    i == 0 || !matches!(bytes[i - 1], b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'.');
                let function = ["match", "search"].into_iter().find(|f| {
                    // Bytes, not `&path[i..]`: `i` may fall inside a multi-byte character.
                    name_start
                        && bytes[i..].starts_with(f.as_bytes())
                        && bytes.get(i + f.len()) == Some(&b'(')
                });
                match function {
                    Some(function) => {
                        if let Some((range, text)) = second_argument(path, i + function.len() + 1) {
                            found.push((function, range, text));
                        }
                        i += function.len() + 1;
                    }
                    None => i += 1,
                }
            }
        }
    }
    found
}

/// The second argument starting after `(` at `start`, when it is a string literal.
fn second_argument(path: &str, start: usize) -> Option<(Range<usize>, String)> {
    let bytes = path.as_bytes();
    let (mut i, mut depth) = (start, 0usize);
    loop {
        match *bytes.get(i)? {
            b'\'' | b'"' => i = string_end(bytes, i),
            b'(' | b'[' => (depth, i) = (depth + 1, i + 1),
            b')' | b']' if depth == 0 => return None,
            b')' | b']' => (depth, i) = (depth - 1, i + 1),
            b',' if depth == 0 => break,
            _ => i += 1,
        }
    }
    i += 1;
    while matches!(bytes.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    if !matches!(bytes.get(i), Some(b'\'' | b'"')) {
        return None;
    }
    let end = string_end(bytes, i);
    Some((i..end, decode(&path[i + 1..end - 1])))
}

/// The index just past the string literal whose quote is at `start`.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let quote = bytes[start];
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b if b == quote => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The value of a JSONPath string literal's content (RFC 9535 §2.3.1.1 escapes).
fn decode(content: &str) -> String {
    let mut out = String::with_capacity(content.len());
    let mut chars = content.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('u') => {
                let hex = |chars: &mut std::str::Chars<'_>| {
                    let digits: String = chars.by_ref().take(4).collect();
                    u32::from_str_radix(&digits, 16).unwrap_or(0xFFFD)
                };
                let high = hex(&mut chars);
                let code = if (0xD800..0xDC00).contains(&high) && chars.as_str().starts_with("\\u") {
                    chars.next();
                    chars.next();
                    0x10000 + ((high - 0xD800) << 10) + (hex(&mut chars).wrapping_sub(0xDC00) & 0x3FF)
                } else {
                    high
                };
                out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// Whether `pattern` is an I-Regexp (RFC 9485 §5's ABNF). Groups nest by a counter, not
/// by recursion, so a hostile pattern cannot exhaust the stack.
pub(crate) fn is_iregexp(pattern: &str) -> bool {
    let mut chars = pattern.chars().peekable();
    let mut depth = 0usize;
    // Whether the previous item can take a quantifier (an atom or a closed group).
    let mut quantifiable = false;
    while let Some(c) = chars.next() {
        match c {
            '(' => {
                depth += 1;
                quantifiable = false;
                continue;
            }
            ')' if depth == 0 => return false,
            ')' => depth -= 1,
            '|' => {
                quantifiable = false;
                continue;
            }
            '*' | '+' | '?' | '{' => {
                if !quantifiable {
                    return false;
                }
                if c == '{' && !range_quantifier(&mut chars) {
                    return false;
                }
                quantifiable = false;
                continue;
            }
            '\\' if escape(&mut chars).is_none() => return false,
            '[' if !class(&mut chars) => return false,
            '\\' | '[' => {}
            ']' | '}' => return false,
            _ => {} // `.` and every NormalChar
        }
        quantifiable = true;
    }
    depth == 0
}

type Chars<'a> = std::iter::Peekable<std::str::Chars<'a>>;

/// After `{`: `n}`, `n,}` or `n,m}`.
fn range_quantifier(chars: &mut Chars<'_>) -> bool {
    let digits = |chars: &mut Chars<'_>| {
        let mut n = 0;
        while chars.next_if(char::is_ascii_digit).is_some() {
            n += 1;
        }
        n
    };
    if digits(chars) == 0 {
        return false;
    }
    if chars.next_if_eq(&',').is_some() {
        digits(chars);
    }
    chars.next() == Some('}')
}

/// After `\`: a single-character escape (`Some(true)`, it stands for one character), or a
/// category escape `\p{…}`/`\P{…}` (`Some(false)`); `None` if neither.
fn escape(chars: &mut Chars<'_>) -> Option<bool> {
    match chars.next()? {
        '(' | ')' | '*' | '+' | '-' | '.' | '?' | '[' | '\\' | ']' | '^' | 'n' | 'r' | 't' | '{' | '|'
        | '}' => Some(true),
        'p' | 'P' => {
            if chars.next()? != '{' {
                return None;
            }
            let mut name = String::new();
            loop {
                match chars.next()? {
                    '}' => break,
                    c => name.push(c),
                }
            }
            const CATEGORIES: [&str; 36] = [
                "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn", "N", "Nd", "Nl", "No", "P", "Pc",
                "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "Z", "Zl", "Zp", "Zs", "S", "Sc", "Sk", "Sm", "So", "C",
                "Cc", "Cf", "Cn", "Co",
            ];
            CATEGORIES.contains(&name.as_str()).then_some(false)
        }
        _ => None,
    }
}

/// After `[`: `[^]? ( "-" / CCE1 ) *CCE1 [ "-" ] "]"`.
fn class(chars: &mut Chars<'_>) -> bool {
    chars.next_if_eq(&'^');
    let mut first = true;
    loop {
        match chars.peek().copied() {
            None => return false,
            Some(']') if !first => {
                chars.next();
                return true;
            }
            Some('-') => {
                chars.next();
                // A `-` is allowed first, or last just before `]`.
                if !first && chars.peek() != Some(&']') {
                    return false;
                }
            }
            Some(_) => {
                let Some(single) = class_char(chars) else { return false };
                // A range `a-z`, unless the `-` is the class's last character.
                if single && chars.peek() == Some(&'-') {
                    let mut ahead = chars.clone();
                    ahead.next();
                    if ahead.peek() != Some(&']') {
                        chars.next();
                        if class_char(chars) != Some(true) {
                            return false;
                        }
                    }
                }
            }
        }
        first = false;
    }
}

/// One class element: a CCchar or single-character escape (`Some(true)`), a category escape
/// (`Some(false)`), or `None` for `[`, `]`, `-` or a bad escape.
fn class_char(chars: &mut Chars<'_>) -> Option<bool> {
    match chars.next()? {
        '\\' => escape(chars),
        '[' | ']' | '-' => None,
        _ => Some(true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_rfc_9485_and_refuses_the_rest() {
        for ok in [
            "",
            "a",
            "a.c",
            "ab*",
            "a+b?",
            "a{3}",
            "a{3,}",
            "a{3,5}",
            "(a|b)*",
            "()",
            "[a-z]",
            "[^a-z0-9_]",
            "[-a]",
            "[a-]",
            "\\p{Lu}",
            "\\P{Nd}+",
            "[\\p{L}\\-]",
            "\\.\\*\\\\",
            "^a$",
            "$",
            "[\\n\\t]",
            "a|",
            "[a\\-z]",
        ] {
            assert!(is_iregexp(ok), "{ok:?} is I-Regexp");
        }
        for bad in [
            "\\d", "\\w", "(?i)abc", "x)|(a", "a**", "*a", "a{", "a{x}", "a{1,2", "[]", "[^]", "[a", "a]",
            "}", "\\p{Xx}", "\\p{L", "[z-]a]", "[a-b-c]", "\\", "(a", "a)", "|*", "\\b", "[[]", "(?)",
        ] {
            assert!(!is_iregexp(bad), "{bad:?} is not I-Regexp");
        }
    }

    #[test]
    fn only_bad_literal_patterns_are_replaced() {
        assert_eq!(neutralize("$[?match(@, 'a.c')]"), None);
        assert_eq!(neutralize("$[?match(@.a, 'a\\\\d')]").as_deref(), Some("$[?match(@.a, '(')]"));
        assert_eq!(
            neutralize(r#"$[?search(@.m, "(a{1000}){1000}") && match(@.n, 'x)|(a')]"#).as_deref(),
            Some("$[?search(@.m, '(') && match(@.n, '(')]")
        );
        assert_eq!(neutralize("$[?match(@.a, @.b)]"), None, "patterns from the document are not checked");
        assert_eq!(neutralize("$..日志[?search(@, '\\\\w')]").as_deref(), Some("$..日志[?search(@, '(')]"));
        assert_eq!(neutralize("$['match(@, \\'\\\\d\\')']"), None, "a name is not a call");
        assert_eq!(neutralize("$[?match(value(@.a), '[x')]").as_deref(), Some("$[?match(value(@.a), '(')]"));
    }

    #[test]
    fn decodes_literal_escapes() {
        assert_eq!(decode(r"a\'b\\d\u0041\ud83d\ude00"), "a'b\\dA😀");
    }
}
