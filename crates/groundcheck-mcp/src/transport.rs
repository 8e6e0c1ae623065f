//! The stdio transport: one JSON-RPC message a line in, one a line out.
//!
//! rmcp's own stdio transport ignores a line that is not JSON and drops an oversized one
//! without a word, so a client waits forever for its answer. This one reads a line at most
//! [`MAX_MESSAGE_BYTES`] long into memory (the rest of a longer line is scanned and thrown
//! away), and answers everything it cannot hand to rmcp itself: a line that is not JSON gets
//! a parse error (`-32700`, id null); JSON that is not an MCP message gets an invalid-request
//! error (`-32600`) with its id when it has one; a `tools/call` too large or nested too deep
//! to read gets a tool result with `isError: true` naming the limit. The server then reads
//! the next line. Everything written goes through one writer task, a line at a time, so
//! answers never interleave on stdout.
//!
//! Memory stays bounded whatever a client sends: a line is kept up to the limit; a
//! `tools/call` is read only down to its arguments, each kept as its JSON text (a slice of
//! the line, [`crate::raw`]), and only the small rest goes to rmcp, which would make a
//! `serde_json::Value` tree of it (a hundred bytes and more for every number); any other
//! message may be at most [`MAX_OTHER_MESSAGE_BYTES`]. A result's structured content comes
//! back as text too and is put into the answer line as it is written. Tool calls held at once
//! are bounded by count ([`CALLS_IN_FLIGHT`]) and by the bytes of their messages together
//! ([`BYTES_IN_FLIGHT`]): the next line is not read until there is room, so a client that
//! floods the server waits on its pipe; and at most a few answers wait for a client that does
//! not read them.
//!
//! Every request gets exactly one answer. An `id` MCP does not allow (a fraction, a number
//! past 64 bits, `null`, an object) gets an invalid-request error carrying that id when
//! JSON-RPC allows it (a number or null: it is written back exactly as sent), else id null.
//! A lone surrogate escape anywhere in a message reads as U+FFFD ([`crate::raw`]).

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, GetExtensions, JsonRpcMessage, RequestId, ServerJsonRpcMessage,
};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};

use crate::envelope::Envelope;
use crate::raw::{self, RawText};

/// The longest message read, in bytes: the 64 MiB a raw output's text may be (the
/// verification limit) and room for the refs and the JSON escapes around it. A longer line
/// is not kept in memory.
pub const MAX_MESSAGE_BYTES: usize = 80 * 1024 * 1024;

/// The deepest nesting a message may have: `serde_json`'s recursion limit, which the reader
/// of every MCP message keeps so that no message can overflow the stack.
pub const MAX_MESSAGE_DEPTH: usize = 128;

/// Tool calls read and not yet finished, at most: each holds its arguments (up to
/// [`MAX_MESSAGE_BYTES`]) in memory until its verification ends.
pub const CALLS_IN_FLIGHT: usize = 4;

/// The bytes of the messages of the tool calls read and not yet finished, together, at most
/// (a call is counted as at least 4 KiB): two calls of the largest size, or four smaller.
/// A call's memory is a small multiple of its message's bytes (the message, the core's reading
/// of its document, the result), so this bounds the server's memory, not only the count.
pub const BYTES_IN_FLIGHT: usize = 2 * MAX_MESSAGE_BYTES;

/// The longest message other than `tools/call`: none carries a document, and rmcp reads each
/// into a `serde_json::Value` tree, a hundred bytes and more for every value in it.
pub const MAX_OTHER_MESSAGE_BYTES: usize = 1024 * 1024;

/// The unit the byte budget is counted in (a semaphore counts at most `u32::MAX` at once).
const BUDGET_UNIT: usize = 1024;

/// A tool call's place among the [`CALLS_IN_FLIGHT`] and its share of [`BYTES_IN_FLIGHT`],
/// carried in the request's extensions and freed when the call's work is done (the server
/// moves it into that work).
#[derive(Clone)]
pub struct CallSlot {
    _permit: Arc<(OwnedSemaphorePermit, Option<OwnedSemaphorePermit>)>,
}

/// A tool call's arguments as the transport kept them: each name with its JSON text, in order.
pub type RawArguments = Vec<(String, RawText)>;

/// What the transport kept of a tool call for the server: its arguments as their JSON text,
/// and a place for the result's structured content as text (see [`STRUCTURED_MARKER`]).
#[derive(Clone)]
pub struct RawCall {
    arguments: Arc<Mutex<Option<RawArguments>>>,
    structured: Arc<Mutex<Option<String>>>,
}

impl RawCall {
    /// The arguments (name and JSON text, in order), once: the first caller takes them.
    pub fn take_arguments(&self) -> Option<RawArguments> {
        self.arguments.lock().ok()?.take()
    }

    /// Gives the result's structured content as JSON text; the result carries
    /// [`STRUCTURED_MARKER`] in its place.
    pub fn put_structured(&self, text: String) {
        if let Ok(mut slot) = self.structured.lock() {
            *slot = Some(text);
        }
    }
}

/// The one member of the object a result's `structuredContent` holds when its text is in the
/// call's [`RawCall`] (an object, as rmcp keeps only objects there): the transport writes the
/// text in its place. Inside a JSON string every quote is escaped, so `"structuredContent":`
/// followed by this object can only be the member itself.
pub const STRUCTURED_MARKER: &str = "groundcheck:structured-content-as-text";

/// The object standing in a result for its structured content given as text.
pub fn structured_marker() -> Value {
    json!({ STRUCTURED_MARKER: true })
}

/// Lines waiting for the writer: a client that stops reading stops the server's answers at
/// this many, instead of letting them pile up in memory.
const QUEUED_LINES: usize = 64;

/// The transport over a reader (stdin) and a writer (stdout).
pub struct LineTransport<R> {
    read: BufReader<R>,
    line: Vec<u8>,
    max: usize,
    /// Set while the rest of an oversized line is being thrown away.
    discarding: Option<Discard>,
    /// An answer of our own waiting for room in the queue.
    pending: Option<Vec<u8>>,
    out: Option<mpsc::Sender<Vec<u8>>>,
    writer: Option<tokio::task::JoinHandle<()>>,
    calls: Arc<Semaphore>,
    /// The place the next message takes if it is a tool call, taken before it is read.
    slot: Option<OwnedSemaphorePermit>,
    /// [`BYTES_IN_FLIGHT`], in [`BUDGET_UNIT`]s.
    bytes: Arc<Semaphore>,
    /// The structured content of the calls in flight, by request id, for [`Transport::send`].
    structured: HashMap<RequestId, Arc<Mutex<Option<String>>>>,
}

/// An oversized line being thrown away: its length so far, and its top-level members.
struct Discard {
    bytes: usize,
    envelope: Envelope,
}

impl<R: AsyncRead + Unpin + Send> LineTransport<R> {
    /// A transport reading messages from `read` and writing to `write`, each message at most
    /// `max` bytes long (normally [`MAX_MESSAGE_BYTES`]).
    pub fn new<W: AsyncWrite + Unpin + Send + 'static>(read: R, write: W, max: usize) -> Self {
        let (tx, rx) = mpsc::channel(QUEUED_LINES);
        let writer = tokio::spawn(write_lines(write, rx));
        LineTransport {
            read: BufReader::with_capacity(64 * 1024, read),
            line: Vec::new(),
            max,
            discarding: None,
            pending: None,
            out: Some(tx),
            writer: Some(writer),
            calls: Arc::new(Semaphore::new(CALLS_IN_FLIGHT)),
            slot: None,
            bytes: Arc::new(Semaphore::new(BYTES_IN_FLIGHT / BUDGET_UNIT)),
            structured: HashMap::new(),
        }
    }

    /// Reads until a whole line (without its newline) is in `self.line`; `false` at the end
    /// of input. Cancel-safe: a partial line stays in `self.line` (or `self.discarding`).
    async fn read_line(&mut self) -> std::io::Result<Option<Line>> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                // A last line without a newline is not a message: nothing to answer.
                return Ok(None);
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let chunk = &available[..newline.unwrap_or(take)];
            if let Some(discard) = &mut self.discarding {
                discard.bytes += chunk.len();
                discard.envelope.feed(chunk);
            } else if self.line.len() + chunk.len() > self.max {
                let mut envelope = Envelope::default();
                envelope.feed(&self.line);
                envelope.feed(chunk);
                let bytes = self.line.len() + chunk.len();
                // The memory goes back now, not when the next line comes.
                self.line = Vec::new();
                self.discarding = Some(Discard { bytes, envelope });
            } else {
                self.line.extend_from_slice(chunk);
            }
            self.read.consume(take);
            if newline.is_some() {
                return Ok(Some(match self.discarding.take() {
                    Some(discard) => Line::Oversized(discard),
                    None => Line::Whole,
                }));
            }
        }
    }

    /// Queues `line` (an answer of ours) for the writer; `false` when the writer is gone.
    async fn queue(&mut self, line: Vec<u8>) -> bool {
        self.pending = Some(line);
        self.flush_pending().await
    }

    async fn flush_pending(&mut self) -> bool {
        let Some(out) = &self.out else { return false };
        if self.pending.is_some() {
            // Reserve first, take second: cancelled while waiting, the answer stays pending.
            let Ok(permit) = out.reserve().await else { return false };
            if let Some(line) = self.pending.take() {
                permit.send(line);
            }
        }
        true
    }
}

/// What [`LineTransport::read_line`] read.
enum Line {
    /// A line of at most the limit, in `line`.
    Whole,
    /// A longer line, thrown away as it came.
    Oversized(Discard),
}

/// What to do with one line.
enum Parsed {
    /// A message for rmcp; for a tool call, what the transport kept of it and its bytes.
    Message(Box<ClientJsonRpcMessage>, Option<(RawCall, usize)>),
    Answer(Vec<u8>),
    Skip,
}

/// What to do with one whole line (without its newline).
fn parse_line(mut line: Vec<u8>) -> Parsed {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    if line.starts_with(b"\xEF\xBB\xBF") {
        line.drain(..3);
    }
    if line.iter().all(u8::is_ascii_whitespace) {
        return Parsed::Skip;
    }
    raw::replace_lone_surrogates(&mut line);
    let members = match raw::top_members(&line) {
        Ok(members) => members,
        Err(e) => return unreadable(&line, &e),
    };
    let get = |name: &str| members.iter().rev().find(|(n, _)| n == name).map(|(_, r)| r.clone());
    let method: Option<String> = get("method").and_then(|r| serde_json::from_slice(&line[r]).ok());
    let id = get("id").map(|r| &line[r]);
    if let Some(id) = id {
        if !valid_id(id) {
            if method.is_none() && (get("result").is_some() || get("error").is_some()) {
                // A response (the server sends no requests): nothing to answer.
                return Parsed::Skip;
            }
            let problem = format!(
                "invalid request: the id {} is not one MCP allows (a string, or an integer of 64 bits)",
                crate::arguments::clip(&String::from_utf8_lossy(id))
            );
            return Parsed::Answer(error_line_raw(echoed_id(id), -32600, &problem));
        }
    }
    let call = method.as_deref() == Some("tools/call") && id.is_some();
    if !call && line.len() > MAX_OTHER_MESSAGE_BYTES {
        let problem = format!(
            "the message is {} bytes, over the {} bytes a message other than tools/call may be",
            line.len(),
            MAX_OTHER_MESSAGE_BYTES
        );
        return match id {
            Some(id) => Parsed::Answer(error_line_raw(id, -32600, &problem)),
            None => {
                crate::log(&format!("a notification was not read: {problem}"));
                Parsed::Skip
            }
        };
    }
    match (call, get("params")) {
        (true, Some(params)) if line[params.start] == b'{' => tool_call(line, &members, params),
        _ => parse_message(&line, None),
    }
}

/// A `tools/call` line: its arguments kept as text, the rest handed to rmcp.
fn tool_call(line: Vec<u8>, members: &[(String, Range<usize>)], params: Range<usize>) -> Parsed {
    let bytes = line.len();
    let Ok(inner) = raw::top_members(&line[params.clone()]) else { return parse_message(&line, None) };
    let arguments = inner.iter().rev().find(|(n, _)| n == "arguments").map(|(_, r)| r.clone());
    // The message without its arguments, as rmcp will read it.
    let mut rest = Vec::with_capacity(1024);
    rest.push(b'{');
    for (i, (name, range)) in members.iter().enumerate() {
        if i > 0 {
            rest.push(b',');
        }
        rest.extend_from_slice(&serde_json::to_vec(name).unwrap_or_default());
        rest.push(b':');
        if *range == params {
            rest.push(b'{');
            let kept = inner.iter().filter(|(n, _)| n != "arguments");
            for (j, (name, r)) in kept.enumerate() {
                if j > 0 {
                    rest.push(b',');
                }
                rest.extend_from_slice(&serde_json::to_vec(name).unwrap_or_default());
                rest.push(b':');
                rest.extend_from_slice(&line[params.start + r.start..params.start + r.end]);
            }
            rest.push(b'}');
        } else {
            rest.extend_from_slice(&line[range.clone()]);
        }
    }
    rest.push(b'}');
    if rest.len() > MAX_OTHER_MESSAGE_BYTES {
        let problem = format!(
            "the call's fields other than its arguments are {} bytes, over the {} bytes they may be",
            rest.len(),
            MAX_OTHER_MESSAGE_BYTES
        );
        let mut envelope = Envelope::default();
        envelope.feed(&rest);
        return answer_unread(&envelope, &problem);
    }
    let arguments = arguments.map(|r| params.start + r.start..params.start + r.end);
    let Ok(line) = String::from_utf8(line) else { return parse_message(&rest, None) };
    let kept = match arguments {
        None => Vec::new(),
        Some(range) => {
            let text = RawText::new(Arc::new(line), range);
            match text.members() {
                Some(members) => members,
                None if text.is_null() => Vec::new(),
                None => {
                    let problem = format!("arguments: must be an object, not {}", text.kind());
                    let mut envelope = Envelope::default();
                    envelope.feed(&rest);
                    return answer_unread(&envelope, &problem);
                }
            }
        }
    };
    let call = RawCall { arguments: Arc::new(Mutex::new(Some(kept))), structured: Arc::default() };
    parse_message(&rest, Some((call, bytes)))
}

/// Whether `id` (its JSON text) is an id MCP allows: a string, or an integer of 64 bits.
fn valid_id(id: &[u8]) -> bool {
    match id.first() {
        Some(b'"') => serde_json::from_slice::<String>(id).is_ok(),
        _ => std::str::from_utf8(id).is_ok_and(|text| text.parse::<i64>().is_ok()),
    }
}

/// The id to answer a request with an id MCP does not allow: the id as sent when JSON-RPC
/// allows it (a number or null), else null.
fn echoed_id(id: &[u8]) -> &[u8] {
    match id.first() {
        Some(b'-' | b'0'..=b'9') => id,
        _ => b"null",
    }
}

/// The answer to a line that is not a JSON object (or cannot be read as one).
fn unreadable(line: &[u8], error: &serde_json::Error) -> Parsed {
    if error.to_string().starts_with("recursion limit exceeded") {
        return deep(line);
    }
    match error.classify() {
        serde_json::error::Category::Data => {
            Parsed::Answer(error_line(None, -32600, "invalid request: a message is a JSON object"))
        }
        _ => Parsed::Answer(error_line(None, -32700, &format!("parse error: {error}"))),
    }
}

/// The answer to a message nested deeper than rmcp's reader goes.
fn deep(line: &[u8]) -> Parsed {
    let mut envelope = Envelope::default();
    envelope.feed(line);
    let problem = format!(
        "the message is nested deeper than {MAX_MESSAGE_DEPTH} levels outside a tool call's arguments, the most \
         it may be there"
    );
    answer_unread(&envelope, &problem)
}

/// `line` (a JSON object) read by rmcp; an answer when rmcp cannot take it.
fn parse_message(line: &[u8], call: Option<(RawCall, usize)>) -> Parsed {
    let error = match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
        Ok(message) => return Parsed::Message(Box::new(message), call),
        Err(e) => e,
    };
    if error.to_string().starts_with("recursion limit exceeded") {
        return deep(line);
    }
    match serde_json::from_slice::<Value>(line) {
        Err(e) => Parsed::Answer(error_line(None, -32700, &format!("parse error: {e}"))),
        Ok(value) => {
            let id = value.get("id").cloned().filter(|id| id.is_string() || id.is_i64());
            if id.is_none() && value.get("method").is_some_and(Value::is_string) {
                // A notification (MCP's, or another protocol's): never answered.
                return Parsed::Skip;
            }
            Parsed::Answer(error_line(id, -32600, &format!("invalid request: {error}")))
        }
    }
}

/// The answer to a request that could not be read: a tool error for `tools/call` (the
/// client's model reads it), an invalid-request error for any other request, nothing for a
/// notification.
fn answer_unread(envelope: &Envelope, problem: &str) -> Parsed {
    let id = envelope.id();
    let method = envelope.method();
    match (id, method.as_deref()) {
        (Some(id), Some("tools/call")) => {
            let result = json!({"content": [{"type": "text", "text": problem}], "isError": true});
            let message = json!({"jsonrpc": "2.0", "id": id, "result": result});
            Parsed::Answer(to_line(&message))
        }
        (Some(id), _) => {
            Parsed::Answer(error_line(Some(serde_json::to_value(id).unwrap_or(Value::Null)), -32600, problem))
        }
        (None, Some(_)) => Parsed::Skip,
        (None, None) => Parsed::Answer(error_line(None, -32600, problem)),
    }
}

/// A JSON-RPC error response line with `id` as its JSON text.
fn error_line_raw(id: &[u8], code: i64, message: &str) -> Vec<u8> {
    let mut line = br#"{"jsonrpc":"2.0","id":"#.to_vec();
    line.extend_from_slice(id);
    let error = json!({"code": code, "message": message});
    line.extend_from_slice(br#","error":"#);
    line.extend_from_slice(&serde_json::to_vec(&error).unwrap_or_default());
    line.extend_from_slice(b"}\n");
    line
}

/// A JSON-RPC error response line; `id` null when the request's id could not be read.
fn error_line(id: Option<Value>, code: i64, message: &str) -> Vec<u8> {
    let message = json!({"jsonrpc": "2.0", "id": id.unwrap_or(Value::Null), "error": {"code": code, "message": message}});
    to_line(&message)
}

fn to_line(value: &Value) -> Vec<u8> {
    let mut line = serde_json::to_vec(value).unwrap_or_default();
    line.push(b'\n');
    line
}

/// Writes each queued line and flushes; ends when every sender is gone or the reader of
/// stdout is.
async fn write_lines<W: AsyncWrite + Unpin>(mut write: W, mut rx: mpsc::Receiver<Vec<u8>>) {
    while let Some(line) = rx.recv().await {
        if let Err(e) = write_line(&mut write, &line).await {
            crate::log(&format!("stdout: cannot write: {e}; no more answers"));
            return;
        }
    }
}

async fn write_line<W: AsyncWrite + Unpin>(write: &mut W, line: &[u8]) -> std::io::Result<()> {
    write.write_all(line).await?;
    write.flush().await
}

impl<R: AsyncRead + Unpin + Send> Transport<RoleServer> for LineTransport<R> {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let out = self.out.clone();
        let structured = match &item {
            JsonRpcMessage::Response(response) => self.structured.remove(&response.id),
            _ => None,
        };
        async move {
            let structured = structured.and_then(|slot| slot.lock().ok()?.take());
            let line = message_line(&item, structured)?;
            let out = out.ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotConnected, "closed"))?;
            out.send(line)
                .await
                .map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdout closed"))
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if !self.flush_pending().await {
                return None;
            }
            if self.slot.is_none() {
                // Waits while CALLS_IN_FLIGHT calls are being worked on: the next line stays
                // in the pipe. Cancel-safe: a permit is kept only once acquired.
                self.slot = Some(self.calls.clone().acquire_owned().await.ok()?);
            }
            let read = match self.read_line().await {
                Ok(Some(read)) => read,
                Ok(None) => return None,
                Err(e) => {
                    crate::log(&format!("stdin: cannot read: {e}"));
                    return None;
                }
            };
            let parsed = match read {
                Line::Oversized(discard) => {
                    const MIB: usize = 1024 * 1024;
                    let limit = match self.max {
                        max if max % MIB == 0 => format!("{} MiB", max / MIB),
                        max => format!("{max} bytes"),
                    };
                    let problem = format!(
                        "the message is {} bytes, over the {limit} one message may be; a raw output's text may be \
                         up to 64 MiB",
                        discard.bytes
                    );
                    crate::log(&format!(
                        "a message of {} bytes was over the limit and not read",
                        discard.bytes
                    ));
                    answer_unread(&discard.envelope, &problem)
                }
                // The line goes with the message (a tool call's arguments are slices of it);
                // the next line starts a buffer of its own.
                Line::Whole => parse_line(std::mem::take(&mut self.line)),
            };
            match parsed {
                Parsed::Message(mut message, raw) => {
                    if let JsonRpcMessage::Request(request) = message.as_mut() {
                        let id = request.id.clone();
                        if let ClientRequest::CallToolRequest(call) = &mut request.request {
                            let mut bytes = None;
                            if let Some((raw, size)) = raw {
                                // Waits until the calls in flight leave room for this one's bytes.
                                let units =
                                    size.div_ceil(BUDGET_UNIT).clamp(4, BYTES_IN_FLIGHT / BUDGET_UNIT);
                                let units = u32::try_from(units).unwrap_or(u32::MAX);
                                bytes = Some(self.bytes.clone().acquire_many_owned(units).await.ok()?);
                                // A slot is forgotten once its call ended without a result to
                                // write (no one else holds it, and it is empty); a result put in
                                // it waits for its answer to be written, which removes it.
                                self.structured.retain(|_, slot| {
                                    Arc::strong_count(slot) > 1
                                        || slot.lock().is_ok_and(|text| text.is_some())
                                });
                                self.structured.insert(id, raw.structured.clone());
                                call.extensions_mut().insert(raw);
                            }
                            if let Some(slot) = self.slot.take() {
                                call.extensions_mut().insert(CallSlot { _permit: Arc::new((slot, bytes)) });
                            }
                        }
                    }
                    return Some(*message);
                }
                Parsed::Answer(line) => {
                    if !self.queue(line).await {
                        return None;
                    }
                }
                Parsed::Skip => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // Every answer queued so far is written before the server ends.
        self.out = None;
        if let Some(writer) = self.writer.take() {
            let _ = writer.await;
        }
        Ok(())
    }
}

/// The line of an answer; `structured`, the text of a tool result's structured content,
/// written in place of [`STRUCTURED_MARKER`].
fn message_line(item: &ServerJsonRpcMessage, structured: Option<String>) -> std::io::Result<Vec<u8>> {
    let mut line = serde_json::to_vec(item)?;
    if let Some(text) = structured {
        let marker = format!("\"structuredContent\":{}", structured_marker());
        let found = line.windows(marker.len()).position(|w| w == marker.as_bytes());
        if let Some(at) = found {
            let value = at + "\"structuredContent\":".len();
            line.splice(value..at + marker.len(), text.into_bytes());
        }
    }
    line.push(b'\n');
    Ok(line)
}
