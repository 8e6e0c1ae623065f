//! Strict RFC 8259 parsing into [`Node`] trees, without recursion.
//!
//! The parser is an explicit-stack state machine so nesting depth costs heap, not stack. It
//! stops at the first problem met reading from the start, which is how
//! docs/verification.md#limits decides between "too deep" and "not JSON" for a text that is both.

use super::{drop_flat, Json, Node};
use crate::error::{Error, ErrorKind, Position};

impl From<JsonError> for Error {
    fn from(e: JsonError) -> Error {
        e.into_error(ErrorKind::Json)
    }
}

/// Why a text is not acceptable JSON, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonError {
    /// What went wrong.
    pub(crate) kind: JsonErrorKind,
    /// Byte offset of the offending character.
    pub(crate) offset: usize,
    /// 1-based line of the offending character.
    pub(crate) line: usize,
    /// 1-based column, in characters, of the offending character.
    pub(crate) column: usize,
}

/// The kinds of [`JsonError`]. Only `TooDeep` is a limit; every other kind means "not JSON".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum JsonErrorKind {
    /// Nesting went beyond the depth limit before any syntax problem was met.
    #[error("nesting deeper than {0}")]
    TooDeep(usize),
    /// The text ended inside a value.
    #[error("unexpected end of input")]
    UnexpectedEnd,
    /// A character that cannot start or continue a value here.
    #[error("unexpected {0}")]
    Unexpected(String),
    /// A byte order mark; RFC 8259 forbids it in JSON texts.
    #[error("byte order mark is not allowed")]
    ByteOrderMark,
    /// A `\uD800`-`\uDFFF` escape that is not part of a surrogate pair.
    #[error("lone surrogate escape")]
    LoneSurrogate,
    /// An unknown or incomplete `\` escape.
    #[error("invalid escape")]
    InvalidEscape,
    /// A raw control character (U+0000-U+001F) inside a string.
    #[error("control character in string")]
    ControlCharacter,
    /// A number that breaks the RFC 8259 grammar (`01`, `1.`, `.5`, `NaN`).
    #[error("invalid number")]
    InvalidNumber,
    /// Something follows the value.
    #[error("trailing characters after the value")]
    Trailing,
}

impl JsonError {
    /// The public error, of `kind` (a bundle file that is not JSON is a bundle error).
    pub(crate) fn into_error(self, kind: ErrorKind) -> Error {
        let position = Position { offset: self.offset, line: self.line, column: self.column };
        Error::at(kind, self.kind.to_string(), position)
    }

    /// Whether this is the depth limit rather than "not JSON".
    pub(crate) fn too_deep(&self) -> bool {
        matches!(self.kind, JsonErrorKind::TooDeep(_))
    }

    fn at(text: &str, offset: usize, kind: JsonErrorKind) -> JsonError {
        let before = &text[..offset];
        let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() + 1;
        JsonError { kind, offset, line, column }
    }
}

enum Frame {
    Array(Vec<Node>),
    Object(Vec<(Box<str>, Node)>, Box<str>),
}

pub(super) struct Parser<'a> {
    pub(super) text: &'a str,
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
    /// Where strings are decoded before being copied out at their exact size: reused, so a
    /// long string never grows (and copies) its buffer step by step.
    scratch: String,
}

/// Parses `text`; nesting beyond `max_depth` is a [`JsonErrorKind::TooDeep`] error.
pub(crate) fn parse_with_depth_limit(text: &str, max_depth: usize) -> Result<Json, JsonError> {
    let mut parser = Parser::new(text);
    if text.starts_with('\u{feff}') {
        return Err(JsonError::at(text, 0, JsonErrorKind::ByteOrderMark));
    }
    let mut stack: Vec<Frame> = Vec::new();
    let result = parser.run(&mut stack, max_depth);
    if result.is_err() {
        for frame in stack.drain(..) {
            match frame {
                Frame::Array(items) => items.into_iter().for_each(drop_flat),
                Frame::Object(members, _) => members.into_iter().for_each(|(_, v)| drop_flat(v)),
            }
        }
    }
    let (root, depth) = result?;
    Ok(Json { root, depth: depth.max(1) })
}

impl<'a> Parser<'a> {
    pub(super) fn new(text: &'a str) -> Parser<'a> {
        Parser { text, bytes: text.as_bytes(), pos: 0, scratch: String::new() }
    }

    fn run(&mut self, stack: &mut Vec<Frame>, max_depth: usize) -> Result<(Node, usize), JsonError> {
        let mut max_seen = 0;
        'value: loop {
            // Parse one value; containers push a frame and go round again.
            self.skip_ws();
            let mut node = match self.peek() {
                None => return Err(self.error(JsonErrorKind::UnexpectedEnd)),
                Some(b'[') | Some(b'{') => {
                    if stack.len() + 1 > max_depth {
                        return Err(self.error(JsonErrorKind::TooDeep(max_depth)));
                    }
                    let open = self.bytes[self.pos];
                    self.pos += 1;
                    max_seen = max_seen.max(stack.len() + 1);
                    self.skip_ws();
                    if open == b'[' {
                        if self.peek() == Some(b']') {
                            self.pos += 1;
                            Node::Array(Vec::new())
                        } else {
                            stack.push(Frame::Array(Vec::new()));
                            continue 'value;
                        }
                    } else if self.peek() == Some(b'}') {
                        self.pos += 1;
                        Node::Object(Vec::new())
                    } else {
                        let key = self.member_name()?;
                        stack.push(Frame::Object(Vec::new(), key));
                        continue 'value;
                    }
                }
                Some(b'"') => Node::String(self.string()?),
                Some(b't') => self.literal("true", Node::Bool(true))?,
                Some(b'f') => self.literal("false", Node::Bool(false))?,
                Some(b'n') => self.literal("null", Node::Null)?,
                Some(b'-' | b'0'..=b'9') => Node::Number(self.number()?.into()),
                Some(_) => return Err(self.unexpected()),
            };
            // Attach the finished value to its parent, closing every container that ends here.
            loop {
                let Some(frame) = stack.last_mut() else {
                    self.skip_ws();
                    if self.pos < self.bytes.len() {
                        return Err(self.error(JsonErrorKind::Trailing));
                    }
                    return Ok((node, max_seen));
                };
                self.skip_ws();
                match frame {
                    Frame::Array(items) => {
                        items.push(node);
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                continue 'value;
                            }
                            Some(b']') => self.pos += 1,
                            None => return Err(self.error(JsonErrorKind::UnexpectedEnd)),
                            Some(_) => return Err(self.unexpected()),
                        }
                    }
                    Frame::Object(members, key) => {
                        members.push((std::mem::take(key), node));
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                self.skip_ws();
                                *key = self.member_name()?;
                                continue 'value;
                            }
                            Some(b'}') => self.pos += 1,
                            None => return Err(self.error(JsonErrorKind::UnexpectedEnd)),
                            Some(_) => return Err(self.unexpected()),
                        }
                    }
                }
                node = match stack.pop() {
                    Some(Frame::Array(items)) => Node::Array(items),
                    Some(Frame::Object(members, _)) => Node::Object(dedup_members(members)),
                    None => unreachable!("a frame was just inspected"),
                };
            }
        }
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    pub(super) fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    pub(super) fn error(&self, kind: JsonErrorKind) -> JsonError {
        JsonError::at(self.text, self.pos, kind)
    }

    pub(super) fn unexpected(&self) -> JsonError {
        let shown = match self.text[self.pos..].chars().next() {
            Some(c) if c.is_control() || c.is_whitespace() => format!("character {:?}", c),
            Some(c) => format!("character '{c}'"),
            None => return self.error(JsonErrorKind::UnexpectedEnd),
        };
        self.error(JsonErrorKind::Unexpected(shown))
    }

    /// `"name"` followed by `:`, with white space around the colon.
    pub(super) fn member_name(&mut self) -> Result<Box<str>, JsonError> {
        if self.peek() != Some(b'"') {
            return Err(self.unexpected_or_end());
        }
        let name = self.string()?;
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(self.unexpected_or_end());
        }
        self.pos += 1;
        Ok(name)
    }

    /// Like [`Parser::member_name`], borrowing the name from the text when it has no escapes.
    pub(super) fn member_key(&mut self) -> Result<std::borrow::Cow<'a, str>, JsonError> {
        if self.peek() != Some(b'"') {
            return Err(self.unexpected_or_end());
        }
        let start = self.pos;
        self.skip_string()?;
        let raw = &self.text[start + 1..self.pos - 1];
        let name = if raw.contains('\\') {
            let end = self.pos;
            self.pos = start;
            let decoded = self.string()?;
            debug_assert_eq!(self.pos, end);
            std::borrow::Cow::Owned(decoded.into_string())
        } else {
            std::borrow::Cow::Borrowed(raw)
        };
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(self.unexpected_or_end());
        }
        self.pos += 1;
        Ok(name)
    }

    /// Like [`Parser::member_name`], without decoding or allocating the name; a colon right
    /// after the name (the usual form) is taken without looking for white space.
    #[inline(always)]
    fn skip_member_name(&mut self) -> Result<(), JsonError> {
        if self.peek() != Some(b'"') {
            return Err(self.unexpected_or_end());
        }
        self.skip_string()?;
        if self.peek() == Some(b':') {
            self.pos += 1;
            return Ok(());
        }
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(self.unexpected_or_end());
        }
        self.pos += 1;
        Ok(())
    }

    /// Validates one value (after white space) without building anything; `open` is how many
    /// containers enclose it. Same grammar, same depth rule and same errors, at the same
    /// places, as [`Parser::run`]: the locator skips what no path enters with it. `kinds` is
    /// scratch space (true: array), reused across calls so skipping allocates nothing.
    pub(super) fn skip_value(
        &mut self,
        open: usize,
        max_depth: usize,
        kinds: &mut Vec<bool>,
    ) -> Result<(), JsonError> {
        kinds.clear();
        'value: loop {
            self.skip_ws();
            match self.peek() {
                None => return Err(self.error(JsonErrorKind::UnexpectedEnd)),
                Some(c @ (b'[' | b'{')) => {
                    if open + kinds.len() + 1 > max_depth {
                        return Err(self.error(JsonErrorKind::TooDeep(max_depth)));
                    }
                    self.pos += 1;
                    self.skip_ws();
                    let array = c == b'[';
                    if self.peek() == Some(if array { b']' } else { b'}' }) {
                        self.pos += 1;
                    } else {
                        kinds.push(array);
                        if !array {
                            self.skip_member_name()?;
                        }
                        continue 'value;
                    }
                }
                Some(b'"') => self.skip_string()?,
                Some(b't') => {
                    self.literal("true", Node::Null)?;
                }
                Some(b'f') => {
                    self.literal("false", Node::Null)?;
                }
                Some(b'n') => {
                    self.literal("null", Node::Null)?;
                }
                Some(b'-' | b'0'..=b'9') => {
                    self.number()?;
                }
                Some(_) => return Err(self.unexpected()),
            }
            // Close every container that ends here, then go on to the next member or item.
            loop {
                let Some(&array) = kinds.last() else { return Ok(()) };
                self.skip_ws();
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        if !array {
                            self.skip_ws();
                            self.skip_member_name()?;
                        }
                        continue 'value;
                    }
                    Some(b']') if array => self.pos += 1,
                    Some(b'}') if !array => self.pos += 1,
                    None => return Err(self.error(JsonErrorKind::UnexpectedEnd)),
                    Some(_) => return Err(self.unexpected()),
                }
                kinds.pop();
            }
        }
    }

    pub(super) fn unexpected_or_end(&self) -> JsonError {
        if self.pos >= self.bytes.len() {
            self.error(JsonErrorKind::UnexpectedEnd)
        } else {
            self.unexpected()
        }
    }

    pub(super) fn literal(&mut self, word: &str, node: Node) -> Result<Node, JsonError> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(node)
        } else {
            Err(self.unexpected())
        }
    }

    pub(super) fn number(&mut self) -> Result<&str, JsonError> {
        let start = self.pos;
        let digits = |p: &mut Self| {
            let from = p.pos;
            while let Some(b'0'..=b'9') = p.peek() {
                p.pos += 1;
            }
            p.pos - from
        };
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(self.error(JsonErrorKind::InvalidNumber)),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if digits(self) == 0 {
                return Err(self.error(JsonErrorKind::InvalidNumber));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if digits(self) == 0 {
                return Err(self.error(JsonErrorKind::InvalidNumber));
            }
        }
        if let Some(b'0'..=b'9') = self.peek() {
            // `01`: a leading zero followed by digits.
            return Err(self.error(JsonErrorKind::InvalidNumber));
        }
        Ok(&self.text[start..self.pos])
    }

    /// A string starting at the opening quote; returns the decoded value.
    pub(super) fn string(&mut self) -> Result<Box<str>, JsonError> {
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        let scanned = self.scan_string(Some(&mut out));
        let decoded = scanned.map(|()| Box::from(out.as_str()));
        self.scratch = out;
        decoded
    }

    /// A string starting at the opening quote, decoded onto the end of `out`.
    pub(super) fn decode_into(&mut self, out: &mut String) -> Result<(), JsonError> {
        self.scan_string(Some(out))
    }

    /// A string starting at the opening quote, validated but not decoded (nothing allocated):
    /// what the locator does with values it does not need. Inlined into the skipping loops,
    /// since most strings there are short names and numbers in quotes, ended by the first
    /// special byte; a string with an escape, a control character or no end is read again
    /// from its quote by the tree parser's own scanner, out of line.
    #[inline]
    pub(super) fn skip_string(&mut self) -> Result<(), JsonError> {
        let end = self.pos + 1 + special_byte(&self.bytes[self.pos + 1..]);
        if self.bytes.get(end) == Some(&b'"') {
            self.pos = end + 1;
            return Ok(());
        }
        self.scan_string(None)
    }

    /// Kept out of line: besides decoding, it is the rare path of [`Parser::skip_string`],
    /// which is inlined into the skipping loops and should stay small there.
    #[inline(never)]
    fn scan_string(&mut self, mut out: Option<&mut String>) -> Result<(), JsonError> {
        self.pos += 1;
        loop {
            let run_start = self.pos;
            self.pos += special_byte(&self.bytes[self.pos..]);
            if let Some(out) = out.as_deref_mut() {
                out.push_str(&self.text[run_start..self.pos]);
            }
            match self.bytes.get(self.pos) {
                None => return Err(self.error(JsonErrorKind::UnexpectedEnd)),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    let c = self.escape()?;
                    if let Some(out) = out.as_deref_mut() {
                        out.push(c);
                    }
                }
                Some(_) => return Err(self.error(JsonErrorKind::ControlCharacter)),
            }
        }
    }

    /// The character an escape (at its backslash) stands for.
    fn escape(&mut self) -> Result<char, JsonError> {
        let at = self.pos;
        self.pos += 1;
        let Some(c) = self.peek() else {
            return Err(self.error(JsonErrorKind::UnexpectedEnd));
        };
        self.pos += 1;
        let simple = match c {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let high = self.hex4(at)?;
                let ch = match high {
                    0xD800..=0xDBFF => {
                        if !self.bytes[self.pos..].starts_with(b"\\u") {
                            return Err(JsonError::at(self.text, at, JsonErrorKind::LoneSurrogate));
                        }
                        let low_at = self.pos;
                        self.pos += 2;
                        let low = self.hex4(low_at)?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return Err(JsonError::at(self.text, at, JsonErrorKind::LoneSurrogate));
                        }
                        0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                    }
                    0xDC00..=0xDFFF => {
                        return Err(JsonError::at(self.text, at, JsonErrorKind::LoneSurrogate))
                    }
                    _ => high,
                };
                // Every value outside the surrogate range is a scalar value.
                char::from_u32(ch)
                    .ok_or_else(|| JsonError::at(self.text, at, JsonErrorKind::LoneSurrogate))?
            }
            _ => return Err(JsonError::at(self.text, at, JsonErrorKind::InvalidEscape)),
        };
        Ok(simple)
    }

    fn hex4(&mut self, escape_at: usize) -> Result<u32, JsonError> {
        let digits = self.bytes.get(self.pos..self.pos + 4);
        let value = digits
            .and_then(|d| d.iter().try_fold(0u32, |acc, &b| (b as char).to_digit(16).map(|v| acc * 16 + v)));
        match value {
            Some(v) => {
                self.pos += 4;
                Ok(v)
            }
            None => Err(JsonError::at(self.text, escape_at, JsonErrorKind::InvalidEscape)),
        }
    }
}

/// The value of a string's content as written between its quotes, decoded by the parser's
/// own string rules; `None` when it is not such a content (a bad escape, a `"` or a control
/// character). Content without a backslash is its own value. (Read through the parser's
/// whole string path, quotes added, so that the string scanner keeps its one caller.)
pub(crate) fn unescape(content: &str) -> Option<std::borrow::Cow<'_, str>> {
    if !content.contains('\\') {
        return Some(std::borrow::Cow::Borrowed(content));
    }
    let quoted = format!("\"{content}\"");
    let mut p = Parser::new(&quoted);
    let mut value = String::with_capacity(content.len());
    p.decode_into(&mut value).ok()?;
    (p.pos == quoted.len()).then_some(std::borrow::Cow::Owned(value))
}

/// The offset of the first byte that ends a run of plain string content — `"`, `\\` or a raw
/// control character, which JSON forbids inside strings — or `bytes.len()`.
///
/// Most runs are short (member names, numbers in quotes, log lines; JSON held in a JSON
/// string, a bundle's `raw_output_text`, escapes every quote): the first bytes are looked at
/// sixteen at a time, compared lane by lane in a way LLVM turns into SSE2 byte compares, and
/// only a run longer than a typical log line pays for the setup of the SIMD search of the
/// two bytes plus a vectorised control-character check, out of line.
#[inline]
fn special_byte(bytes: &[u8]) -> usize {
    const SHORT: usize = 128;
    let mut at = 0;
    while at < SHORT {
        let Some(chunk) = bytes[at..].first_chunk::<16>() else {
            return at + special_byte_slowly(&bytes[at..]);
        };
        let found = specials(chunk);
        if found != 0 {
            return at + (found.trailing_zeros() / 8) as usize;
        }
        at += 16;
    }
    at + special_byte_far(&bytes[at..])
}

/// [`special_byte`] byte by byte: for the last few bytes of a text.
#[inline(never)]
fn special_byte_slowly(bytes: &[u8]) -> usize {
    bytes.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).unwrap_or(bytes.len())
}

/// [`special_byte`] past the first bytes of a long run.
#[inline(never)]
fn special_byte_far(bytes: &[u8]) -> usize {
    let stop = memchr::memchr2(b'"', b'\\', bytes).unwrap_or(bytes.len());
    let run = &bytes[..stop];
    // Whether the run holds a control character, without stopping early, so it vectorises;
    // only a run that does (not JSON) is searched byte by byte.
    if run.iter().fold(0u8, |seen, &b| seen | u8::from(b < 0x20)) == 0 {
        return stop;
    }
    run.iter().position(|&b| b < 0x20).unwrap_or(stop)
}

/// The bytes of `chunk` that are `"`, `\\` or below 0x20 as 0xff lanes (little-endian), the
/// others zero. Written as a loop of non-short-circuiting tests over fixed-size arrays so
/// that it compiles to a handful of SSE2 instructions rather than sixteen branches
/// (`[u8; 16]::map` does too, but is not inlined).
#[inline(always)]
fn specials(chunk: &[u8; 16]) -> u128 {
    let mut lanes = [0u8; 16];
    for (lane, &b) in lanes.iter_mut().zip(chunk) {
        *lane = 0u8.wrapping_sub(u8::from(b == b'"') | u8::from(b == b'\\') | u8::from(b < 0x20));
    }
    u128::from_le_bytes(lanes)
}

/// Applies docs/verification.md#order's rule for repeated keys: the last value, at the first position.
pub(super) fn dedup_members(mut members: Vec<(Box<str>, Node)>) -> Vec<(Box<str>, Node)> {
    if members.len() < 2 {
        return members;
    }
    let moves = repeats(&members);
    if moves.is_empty() {
        return members;
    }
    let mut keep = vec![true; members.len()];
    for &(from, to) in &moves {
        let value = std::mem::replace(&mut members[from].1, Node::Null);
        drop_flat(std::mem::replace(&mut members[to].1, value));
        keep[from] = false;
    }
    let mut keep = keep.into_iter();
    members.retain(|_| keep.next().unwrap_or(true));
    members
}

/// Each member whose key came before, with the position of that key's first member. Most
/// objects are small, and comparing each key with those before it is then far cheaper than
/// building (and hashing into) a map; only a large object gets one.
fn repeats(members: &[(Box<str>, Node)]) -> Vec<(usize, usize)> {
    const SMALL: usize = 16;
    if members.len() <= SMALL {
        repeats_by_scan(members)
    } else {
        repeats_by_map(members)
    }
}

/// [`repeats`] by comparing each key with every key before it.
fn repeats_by_scan(members: &[(Box<str>, Node)]) -> Vec<(usize, usize)> {
    let mut moves = Vec::new();
    for (i, (k, _)) in members.iter().enumerate().skip(1) {
        if let Some(j) = members[..i].iter().position(|(earlier, _)| earlier == k) {
            moves.push((i, j));
        }
    }
    moves
}

/// [`repeats`] through a map from each key to its first position.
fn repeats_by_map(members: &[(Box<str>, Node)]) -> Vec<(usize, usize)> {
    let mut first: std::collections::HashMap<&str, usize> =
        std::collections::HashMap::with_capacity(members.len());
    let mut moves = Vec::new();
    for (i, (k, _)) in members.iter().enumerate() {
        if let Some(&j) = first.get(&**k) {
            moves.push((i, j));
        } else {
            first.insert(k, i);
        }
    }
    moves
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> JsonErrorKind {
        parse_with_depth_limit(text, usize::MAX).unwrap_err().kind
    }

    #[test]
    fn special_byte_finds_the_first_quote_backslash_or_control_character() {
        let plain = |b: u8| b != b'"' && b != b'\\' && b >= 0x20;
        for len in 0..200 {
            for at in 0..=len {
                for special in [b'"', b'\\', 0x00, 0x1f, b'"'] {
                    // Bytes around each special one that a borrow could confuse: 0x21, 0x5d, 0x20, 0xff.
                    let mut bytes: Vec<u8> =
                        (0..len).map(|i| [b'a', 0x21, 0x5d, 0x20, 0xff, b'#'][i % 6]).collect();
                    if at < len {
                        bytes[at] = special;
                        if at + 1 < len {
                            bytes[at + 1] = b'"';
                        }
                    }
                    let expected = bytes.iter().position(|&b| !plain(b)).unwrap_or(len);
                    assert_eq!(special_byte(&bytes), expected, "{bytes:?}");
                }
            }
        }
    }

    /// The plain reading of a string that [`Parser::skip_string`] must match: one byte at a
    /// time, with the parser's own escape rule.
    fn skip_string_byte_by_byte(p: &mut Parser<'_>) -> Result<(), JsonError> {
        p.pos += 1;
        loop {
            match p.peek() {
                None => return Err(p.error(JsonErrorKind::UnexpectedEnd)),
                Some(b'"') => {
                    p.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    p.escape()?;
                }
                Some(b) if b < 0x20 => return Err(p.error(JsonErrorKind::ControlCharacter)),
                Some(_) => p.pos += 1,
            }
        }
    }

    /// Strings of random pieces — plain runs of every length around the chunk size, multi-byte
    /// UTF-8, good and bad escapes, raw control characters, quotes — with something after.
    fn random_strings() -> Vec<String> {
        const PIECES: [&str; 16] = [
            "a",
            "0123456789abcdef",
            "metric_name",
            "é",
            "😀",
            "\\\"",
            "\\\\",
            "\\n",
            "\\u0041",
            "\\ud83d\\ude00",
            "\\ud800",
            "\\x",
            "\u{1}",
            "\u{1f}",
            "\"",
            " ",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        (0..3000)
            .map(|_| {
                let mut text = String::from("\"");
                for _ in 0..next(12) {
                    // Mostly plain pieces, so that many strings get past their first chunks.
                    let piece = if next(3) == 0 { next(PIECES.len()) } else { next(4) };
                    text.push_str(&PIECES[piece].repeat(1 + next(3)));
                }
                text.push_str(["\"", "\",1]", ""][next(3)]);
                text
            })
            .collect()
    }

    #[test]
    fn skip_string_is_the_byte_by_byte_reading_at_every_end_of_input() {
        for text in random_strings() {
            for cut in (1..=text.len()).filter(|&cut| text.is_char_boundary(cut)) {
                let text = &text[..cut];
                let (mut fast, mut plain, mut tree) =
                    (Parser::new(text), Parser::new(text), Parser::new(text));
                let skipped = fast.skip_string();
                assert_eq!(skipped, skip_string_byte_by_byte(&mut plain), "{text:?}");
                assert_eq!(fast.pos, plain.pos, "{text:?}");
                assert_eq!(skipped, tree.string().map(|_| ()), "{text:?}");
            }
        }
    }

    #[test]
    fn repeated_keys_are_found_alike_by_scan_and_by_map() {
        let mut seed = 7u64;
        for len in 0..40 {
            for _ in 0..50 {
                let members: Vec<(Box<str>, Node)> = (0..len)
                    .map(|_| {
                        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                        (format!("k{}", (seed >> 33) % (len as u64 + 1)).into(), Node::Null)
                    })
                    .collect();
                assert_eq!(repeats_by_scan(&members), repeats_by_map(&members));
            }
        }
    }

    #[test]
    fn keeps_number_text() {
        let doc = Json::parse(r#"{"a":0.950,"b":1e3,"c":-0,"d":1E+400}"#).unwrap();
        assert_eq!(doc.to_json_string(), r#"{"a":0.950,"b":1e3,"c":-0,"d":1E+400}"#);
    }

    #[test]
    fn rejects_what_rfc_8259_rejects() {
        assert_eq!(kind("\u{feff}{}"), JsonErrorKind::ByteOrderMark);
        assert_eq!(kind("{} x"), JsonErrorKind::Trailing);
        assert_eq!(kind(r#"["\ud800"]"#), JsonErrorKind::LoneSurrogate);
        assert_eq!(kind(r#"["\udc00\ud800"]"#), JsonErrorKind::LoneSurrogate);
        assert_eq!(kind(r#"["\ud800\u0041"]"#), JsonErrorKind::LoneSurrogate);
        assert_eq!(kind("[01]"), JsonErrorKind::InvalidNumber);
        assert_eq!(kind("[1.]"), JsonErrorKind::InvalidNumber);
        assert!(matches!(kind("NaN"), JsonErrorKind::Unexpected(_)));
        assert_eq!(kind("[\"a\u{1}\"]"), JsonErrorKind::ControlCharacter);
        assert_eq!(kind(r#"["\x"]"#), JsonErrorKind::InvalidEscape);
        assert_eq!(kind("[1,"), JsonErrorKind::UnexpectedEnd);
        assert_eq!(kind(""), JsonErrorKind::UnexpectedEnd);
    }

    #[test]
    fn accepts_pairs_and_noncharacters() {
        let doc = Json::parse(r#"["\ud83d\ude00", "\uffff"]"#).unwrap();
        assert_eq!(
            doc.root(),
            &Node::Array(vec![Node::String("😀".into()), Node::String("\u{ffff}".into())])
        );
    }

    #[test]
    fn repeated_key_keeps_last_value_at_first_position() {
        let doc = Json::parse(r#"{"a":1,"b":2,"a":3}"#).unwrap();
        assert_eq!(doc.to_json_string(), r#"{"a":3,"b":2}"#);
        // Past the size at which repeats are found through a map.
        let keys: Vec<String> = (0..20).chain([3, 19, 3]).map(|i| format!(r#""k{i}":{i}"#)).collect();
        let doc = Json::parse(&format!("{{{},\"k3\":true}}", keys.join(","))).unwrap();
        let expected: Vec<String> = (0..20)
            .map(|i| format!(r#""k{i}":{}"#, if i == 3 { "true".into() } else { i.to_string() }))
            .collect();
        assert_eq!(doc.to_json_string(), format!("{{{}}}", expected.join(",")));
    }

    #[test]
    fn depth_counts_containers_only() {
        assert_eq!(Json::parse("1").unwrap().depth(), 1);
        assert_eq!(Json::parse("[1]").unwrap().depth(), 1);
        assert_eq!(Json::parse(r#"{"a":1}"#).unwrap().depth(), 1);
        assert_eq!(Json::parse("[[]]").unwrap().depth(), 2);
        assert_eq!(Json::parse(r#"[{"a":[]},[]]"#).unwrap().depth(), 3);
    }

    #[test]
    fn first_problem_decides_between_too_deep_and_not_json() {
        let deep_then_broken = format!("{}x", "[".repeat(5));
        assert_eq!(parse_with_depth_limit(&deep_then_broken, 3).unwrap_err().kind, JsonErrorKind::TooDeep(3));
        let broken_then_deep = format!("[x{}", "[".repeat(5));
        assert!(matches!(
            parse_with_depth_limit(&broken_then_deep, 3).unwrap_err().kind,
            JsonErrorKind::Unexpected(_)
        ));
    }

    #[test]
    fn ten_thousand_deep_neither_recurses_nor_overflows() {
        let text = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        let doc = std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(move || Json::parse(&text).map(|d| d.depth()))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(doc.unwrap(), 10_000);
        let unterminated = "[".repeat(10_000);
        let err = std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(move || parse_with_depth_limit(&unterminated, usize::MAX).map(|_| ()))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(err.unwrap_err().kind, JsonErrorKind::UnexpectedEnd);
    }

    #[test]
    fn error_points_at_line_and_column() {
        let err = parse_with_depth_limit("{\n  \"a\": tru\n}", usize::MAX).unwrap_err();
        assert_eq!((err.line, err.column), (2, 8));
        assert_eq!(crate::Error::from(err).to_string(), "line 2, column 8: unexpected character 't'");
    }
}
