//! A message's JSON kept as text: the pieces of a line the server reads without building a
//! `serde_json::Value` tree for them.
//!
//! A tree costs about a hundred bytes for every number or string in the message (numbers keep
//! their text, so each is a map and a `String`), so a tool call of 78 MB of `0,` became 11 GB.
//! The transport therefore reads a `tools/call` only down to its arguments, each kept as its
//! JSON text ([`RawText`]), and a tool hands a document's text to the core, which reads text
//! natively. Lone surrogate escapes are rewritten in place first ([`replace_lone_surrogates`]),
//! so every string of a message is Unicode text.

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// One JSON value of a message, as its text: a range of the message's line, which is shared
/// (never copied) by every piece taken from it and freed with the last of them.
#[derive(Clone)]
pub struct RawText {
    line: Arc<String>,
    range: Range<usize>,
}

impl RawText {
    /// A whole text of its own (a value serialized by the server itself).
    pub fn owned(text: String) -> RawText {
        let range = 0..text.len();
        RawText { line: Arc::new(text), range }
    }

    /// `range` of `line`, which must hold one JSON value.
    pub fn new(line: Arc<String>, range: Range<usize>) -> RawText {
        RawText { line, range }
    }

    /// The value's JSON text.
    pub fn as_str(&self) -> &str {
        &self.line[self.range.clone()]
    }

    /// A part of this text (`within` counted from its start), sharing the same line.
    pub fn slice(&self, within: Range<usize>) -> RawText {
        let start = self.range.start + within.start;
        RawText { line: self.line.clone(), range: start..self.range.start + within.end }
    }

    /// What kind of JSON value the text holds, from its first byte, for a message saying what
    /// was found instead of what was needed.
    pub fn kind(&self) -> &'static str {
        match self.as_str().as_bytes().first() {
            Some(b'n') => "null",
            Some(b't' | b'f') => "a boolean",
            Some(b'"') => "a string",
            Some(b'[') => "an array",
            Some(b'{') => "an object",
            _ => "a number",
        }
    }

    /// Whether the value is JSON `null`.
    pub fn is_null(&self) -> bool {
        self.as_str() == "null"
    }

    /// The members of an object's text, in order, a repeated name keeping its last value (as a
    /// JSON object is read everywhere else); `None` when the text is not an object.
    pub fn members(&self) -> Option<Vec<(String, RawText)>> {
        let text = self.as_str();
        let Members(members) = serde_json::from_str::<Members<'_>>(text).ok()?;
        let base = text.as_ptr() as usize;
        let mut out: Vec<(String, RawText)> = Vec::with_capacity(members.len());
        for (name, value) in members {
            let start = value.get().as_ptr() as usize - base;
            let piece = self.slice(start..start + value.get().len());
            match out.iter_mut().find(|(n, _)| *n == name) {
                Some(slot) => slot.1 = piece,
                None => out.push((name, piece)),
            }
        }
        Some(out)
    }

    /// A string value's text: shared with the line when it holds no escape, else decoded.
    pub fn string(&self) -> Option<Text> {
        let text = self.as_str();
        if !text.starts_with('"') {
            return None;
        }
        if !text.contains('\\') {
            return Some(Text::Shared(self.slice(1..text.len() - 1)));
        }
        serde_json::from_str::<String>(text).ok().map(Text::Owned)
    }
}

impl AsRef<str> for RawText {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Debug for RawText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawText({} bytes)", self.range.len())
    }
}

/// A decoded string argument: a slice of the message when it had no escapes, else a copy.
pub enum Text {
    /// The string's bytes in the line (no escape in it).
    Shared(RawText),
    /// The decoded string.
    Owned(String),
}

impl Text {
    /// The text.
    pub fn as_str(&self) -> &str {
        match self {
            Text::Shared(raw) => raw.as_str(),
            Text::Owned(text) => text,
        }
    }

    /// The text as a `String` (a copy when shared).
    pub fn into_string(self) -> String {
        match self {
            Text::Shared(raw) => raw.as_str().to_string(),
            Text::Owned(text) => text,
        }
    }
}

/// An object's members as raw values, in order (repeats kept; [`RawText::members`] resolves
/// them).
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Members<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Each<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Each<'a> {
            type Value = Members<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Members<'a>, M::Error> {
                let mut members = Vec::new();
                while let Some((name, value)) = map.next_entry::<String, &'de RawValue>()? {
                    members.push((name, value));
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(Each(std::marker::PhantomData))
    }
}

/// The members of the object `line` holds (a message), as ranges of `line`; the error says
/// why the line is not one.
pub fn top_members(line: &[u8]) -> Result<Vec<(String, Range<usize>)>, serde_json::Error> {
    let Members(members) = serde_json::from_slice::<Members<'_>>(line)?;
    let base = line.as_ptr() as usize;
    Ok(members
        .into_iter()
        .map(|(name, value)| {
            let start = value.get().as_ptr() as usize - base;
            (name, start..start + value.get().len())
        })
        .collect())
}

/// Rewrites every lone surrogate escape (`\ud800` not followed by its low half, or a low half
/// alone) in the JSON text `line` to `\ufffd`, in place: the same six bytes. A client whose
/// strings are UTF-16 (JavaScript, Java, Python's `json.dumps` of text cut mid-emoji) writes
/// them; the string it meant is read with U+FFFD REPLACEMENT CHARACTER there, as a lossy
/// reader of its text would, and as the JVM library reads a lone surrogate. Outside strings a
/// backslash is not JSON at all, so every backslash met starts an escape.
pub fn replace_lone_surrogates(line: &mut [u8]) {
    let hex = |bytes: &[u8]| -> Option<u16> {
        let text = std::str::from_utf8(bytes.get(..4)?).ok()?;
        u16::from_str_radix(text, 16).ok()
    };
    let mut i = 0;
    while let Some(at) = line.get(i..).and_then(|rest| rest.iter().position(|&b| b == b'\\')) {
        let escape = i + at;
        if line.get(escape + 1) != Some(&b'u') {
            i = escape + 2;
            continue;
        }
        let Some(unit) = hex(&line[escape + 2..]) else {
            i = escape + 2;
            continue;
        };
        let low_follows = || {
            line.get(escape + 6..escape + 8) == Some(b"\\u")
                && hex(&line[escape + 8..]).is_some_and(|u| (0xDC00..=0xDFFF).contains(&u))
        };
        match unit {
            0xD800..=0xDBFF if low_follows() => i = escape + 12,
            0xD800..=0xDFFF => {
                line[escape + 2..escape + 6].copy_from_slice(b"fffd");
                i = escape + 6;
            }
            _ => i = escape + 6,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(text: &str) -> String {
        let mut bytes = text.as_bytes().to_vec();
        replace_lone_surrogates(&mut bytes);
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn lone_surrogates_become_the_replacement_character_and_pairs_stay() {
        assert_eq!(fixed(r#"["a\ud800", "\uDC00b"]"#), r#"["a\ufffd", "\ufffdb"]"#);
        assert_eq!(fixed(r#""\ud83d\ude00""#), r#""\ud83d\ude00""#);
        assert_eq!(fixed(r#""\ud83d\ud83d\ude00""#), r#""\ufffd\ud83d\ude00""#);
        // An escaped backslash before `u` is not an escape.
        assert_eq!(fixed(r#""\\ud800""#), r#""\\ud800""#);
        assert_eq!(fixed(r#""\ud800"#), r#""\ufffd"#);
        assert_eq!(fixed(r#""\u12"#), r#""\u12"#);
        let value: String = serde_json::from_str(&fixed(r#""x\ud800""#)).unwrap();
        assert_eq!(value, "x\u{fffd}");
    }

    #[test]
    fn members_keep_their_text_order_and_the_last_repeat() {
        let raw = RawText::owned(r#"{"b": [1, 2.50], "a": "x", "b": {"c": 0.950}}"#.into());
        let members = raw.members().unwrap();
        let pairs: Vec<(&str, &str)> = members.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        assert_eq!(pairs, [("b", r#"{"c": 0.950}"#), ("a", r#""x""#)]);
        assert!(RawText::owned("[1]".into()).members().is_none());
        assert_eq!(members[1].1.string().unwrap().as_str(), "x");
        assert_eq!(RawText::owned(r#""a\nb""#.into()).string().unwrap().as_str(), "a\nb");
    }
}
