//! Which work may run on the calling thread, without the hand-over to the package's threads
//! ([`crate::engine`]): work too small to nest deeply, to take long, or to reach a rayon pool.
//!
//! A hand-over costs two thread wake-ups, as much as verifying a small row; so a small row is
//! verified where it is called. "Small" is measured on what the engine will read ([`Shape`]):
//! at most [`INLINE_BYTES`] of text and values, and at most [`INLINE_NESTING`] marks that can
//! open a nesting level — `[`, `{` and `(` anywhere (inside strings too: the expanded view
//! parses JSON held in a string, and a path nests filters in parentheses), a line break and a
//! `- `/`? ` (a YAML block opens a level on a new line or after a dash), and, for a value, its
//! own containers' depth. The engine's recursion is bounded by that count, so its stack use
//! is too, on any thread a Python program starts (`threading.stack_size` allows 32 KiB and
//! up). Small text selects fewer nodes than the engine's parallel searches start at, and is
//! verified in well under a signal's slice of waiting.
//!
//! One more condition: the process ran no inline work before a fork ([`allowed`]). Inline work
//! that did reach rayon's global pool in a parent would find it without threads in a child;
//! a child of such a parent hands everything over (to pools it builds itself).

use std::sync::atomic::{AtomicU32, Ordering};

/// Bytes of text (and nodes of a value) at most, for work on the calling thread.
pub const INLINE_BYTES: usize = 4096;

/// Nesting marks at most, for work on the calling thread.
pub const INLINE_NESTING: usize = 12;

/// What the engine will read of a row or a document, as far as [`INLINE_BYTES`] decides.
#[derive(Default, Clone, Copy)]
pub struct Shape {
    bytes: usize,
    nesting: usize,
}

impl Shape {
    /// Counts a whole text the engine reads: a raw output's text, a JSON column's text, a path.
    #[inline]
    pub fn text(&mut self, text: &str) {
        self.bytes += text.len();
        if self.bytes <= INLINE_BYTES {
            self.nesting += nesting_bound(text.as_bytes());
        }
    }

    /// Counts a string inside a value built from Python objects (it may hold JSON, which the
    /// expanded view parses, or be a path).
    #[inline]
    pub fn string(&mut self, text: &str) {
        self.bytes += text.len();
        if self.bytes <= INLINE_BYTES {
            self.nesting += text.bytes().map(mark).sum::<usize>();
        }
    }

    /// Counts a text that is only copied or searched, never parsed.
    #[inline]
    pub fn plain(&mut self, text: &str) {
        self.bytes += text.len();
    }

    /// Counts one node of a value built from Python objects.
    #[inline]
    pub fn node(&mut self) {
        self.bytes += 1;
    }

    /// Counts a value's own depth (its containers).
    pub fn depth(&mut self, depth: usize) {
        self.nesting += depth;
    }

    /// Whether work on this much may run on the calling thread (this process permitting).
    pub fn small(&self) -> bool {
        self.bytes <= INLINE_BYTES && self.nesting <= INLINE_NESTING
    }
}

/// What one byte may add to a nesting level, wherever it is: `[`, `{`, `(` one; `?` more than
/// the whole allowance — a filter (`$[?@.a == 1]`), however shallow, takes more stack to parse
/// than a small thread has (as a YAML `? ` key nests).
#[inline]
fn mark(b: u8) -> usize {
    match b {
        b'[' | b'{' | b'(' => 1,
        b'?' => INLINE_NESTING + 1,
        _ => 0,
    }
}

/// At least the deepest nesting any reading of `text` has (JSON, JSON held in its strings,
/// JSON Lines, YAML block or flow, a path). A text that opens with `[` or `{` and has no `'`
/// (so no YAML single-quoted string hides a bracket) is read as flow: its depth outside
/// `"…"` strings, every opening mark inside them (JSON held in a string), and every YAML
/// block opener outside them (`:` at a line's end, `- `). Any other text: every mark that
/// may open a level — `[`, `{`, `(`, a line break, a `- `.
fn nesting_bound(text: &[u8]) -> usize {
    let first = text.iter().find(|b| !b.is_ascii_whitespace());
    if !matches!(first, Some(b'[' | b'{')) || text.contains(&b'\'') {
        return all_marks(text);
    }
    let (mut depth, mut deepest, mut more) = (0usize, 0usize, 0usize);
    let (mut in_string, mut escaped, mut last) = (false, false, b' ');
    for (i, &b) in text.iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => more += mark(b),
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return all_marks(text), // not flow after all
            },
            b'\n' | b'\r' if last == b':' => more += 1,
            b'-' if matches!(text.get(i + 1), None | Some(b' ' | b'\t' | b'\n' | b'\r')) => more += 1,
            _ => more += mark(b),
        }
        if !b.is_ascii_whitespace() || b == b'\n' {
            last = b;
        }
    }
    deepest + more
}

/// Every mark in `text` that may open a nesting level in some reading of it.
fn all_marks(text: &[u8]) -> usize {
    let mut marks = 0;
    for (i, &b) in text.iter().enumerate() {
        marks += match b {
            b'\n' | b'\r' => 1,
            b'-' => matches!(text.get(i + 1), None | Some(b' ' | b'\t' | b'\n' | b'\r')) as usize,
            _ => mark(b),
        };
    }
    marks
}

/// The process that ran inline work first (0: none yet).
static INLINE_PID: AtomicU32 = AtomicU32::new(0);

/// Whether this process may run inline work: it is the one that ran it first, or none did.
/// A forked child of a process that did never does (see the module's comment).
pub fn allowed() -> bool {
    let pid = std::process::id();
    match INLINE_PID.compare_exchange(0, pid, Ordering::Relaxed, Ordering::Relaxed) {
        Ok(_) => true,
        Err(first) => first == pid,
    }
}
