//! The `id` and `method` of a message that will not be read whole: one over the size limit,
//! or one nested deeper than the JSON reader goes. The scanner walks the bytes once, keeps
//! only the two top-level members it needs (each bounded), and never recurses, so that such
//! a message gets an answer naming its request instead of none at all.

use rmcp::model::RequestId;

/// Bytes kept of a top-level member name; longer names are not `id` or `method`.
const KEY_BYTES: usize = 16;

/// Bytes kept of a top-level value; longer values are not an id or a method name we answer.
const VALUE_BYTES: usize = 1024;

/// What is being read at the top level of the message.
#[derive(Debug, Default)]
enum Slot {
    /// Nothing we keep: between members, or inside a value we do not want.
    #[default]
    Idle,
    /// A member name, raw (quotes and escapes included).
    Key(Vec<u8>),
    /// The value of member `name`, raw; `None` once it grew past [`VALUE_BYTES`].
    Value { name: Vec<u8>, raw: Option<Vec<u8>> },
}

/// A streaming scanner over one message's bytes: feed it every chunk, then ask.
#[derive(Debug, Default)]
pub(crate) struct Envelope {
    depth: usize,
    in_string: bool,
    escaped: bool,
    expect_key: bool,
    slot: Slot,
    id: Option<Vec<u8>>,
    method: Option<Vec<u8>>,
}

impl Envelope {
    /// Reads `bytes`, the next part of the message.
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.byte(b);
        }
    }

    fn keep(&mut self, b: u8) {
        match &mut self.slot {
            Slot::Idle => {}
            Slot::Key(key) => {
                if key.len() < KEY_BYTES {
                    key.push(b);
                }
            }
            Slot::Value { raw, .. } => {
                if let Some(bytes) = raw {
                    if bytes.len() < VALUE_BYTES {
                        bytes.push(b);
                    } else {
                        *raw = None;
                    }
                }
            }
        }
    }

    fn finish_value(&mut self) {
        if let Slot::Value { name, raw: Some(raw) } = std::mem::take(&mut self.slot) {
            match name.as_slice() {
                b"\"id\"" => self.id = Some(raw),
                b"\"method\"" => self.method = Some(raw),
                _ => {}
            }
        }
    }

    fn byte(&mut self, b: u8) {
        if self.in_string {
            self.keep(b);
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
            }
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.expect_key {
                    self.slot = Slot::Key(Vec::new());
                }
                self.keep(b);
            }
            b'{' | b'[' => {
                self.depth += 1;
                if self.depth == 1 {
                    self.expect_key = b == b'{';
                } else {
                    self.keep(b);
                }
            }
            b'}' | b']' => {
                if self.depth == 1 {
                    self.finish_value();
                } else {
                    self.keep(b);
                }
                self.depth = self.depth.saturating_sub(1);
            }
            b':' if self.depth == 1 => {
                if let Slot::Key(name) = std::mem::take(&mut self.slot) {
                    self.slot = Slot::Value { name, raw: Some(Vec::new()) };
                }
                self.expect_key = false;
            }
            b',' if self.depth == 1 => {
                self.finish_value();
                self.expect_key = true;
            }
            b' ' | b'\t' | b'\r' | b'\n' => {}
            _ => self.keep(b),
        }
    }

    /// The request's id, when the top level has a readable one.
    pub(crate) fn id(&self) -> Option<RequestId> {
        self.id.as_deref().and_then(|raw| serde_json::from_slice(raw).ok())
    }

    /// The request's or notification's method, when the top level has a readable one.
    pub(crate) fn method(&self) -> Option<String> {
        self.method.as_deref().and_then(|raw| serde_json::from_slice(raw).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::NumberOrString;

    fn scan(text: &str) -> Envelope {
        let mut e = Envelope::default();
        // Fed in small pieces, as a discarded line arrives.
        for chunk in text.as_bytes().chunks(3) {
            e.feed(chunk);
        }
        e
    }

    #[test]
    fn finds_the_id_and_method_wherever_they_stand() {
        let e = scan(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"id":9,"method":"x"}}"#);
        assert_eq!(e.id(), Some(NumberOrString::Number(7)));
        assert_eq!(e.method().as_deref(), Some("tools/call"));
        let e =
            scan(r#"{"params":{"arguments":{"a":"\"id\":3,"}}, "method" : "tools/call" , "id" : "a\"b"}"#);
        assert_eq!(e.id(), Some(NumberOrString::String("a\"b".into())));
        assert_eq!(e.method().as_deref(), Some("tools/call"));
    }

    #[test]
    fn deep_values_and_garbage_give_nothing_and_cost_no_stack() {
        let deep = format!(r#"{{"params":{}{},"jsonrpc":"2.0"}}"#, "[".repeat(100_000), "]".repeat(100_000));
        let e = scan(&deep);
        assert_eq!((e.id(), e.method()), (None, None));
        let e = scan("not json at all } ] , : \"");
        assert_eq!((e.id(), e.method()), (None, None));
        let e = scan(r#"{"id":[1,2],"method":{"a":1}}"#);
        assert_eq!((e.id(), e.method()), (None, None));
    }
}
