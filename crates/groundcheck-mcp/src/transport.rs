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
//! Memory stays bounded whatever a client sends: a line is kept up to the limit, at most
//! [`CALLS_IN_FLIGHT`] tool calls are held at once (the next line is not read until one ends,
//! so a client that floods the server waits on its pipe), and at most a few answers wait for a
//! client that does not read them.

use std::sync::Arc;

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, GetExtensions, JsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};

use crate::envelope::Envelope;

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

/// A tool call's place among the [`CALLS_IN_FLIGHT`], carried in the request's extensions and
/// freed when the call's work is done (the server moves it into that work).
#[derive(Clone)]
pub struct CallSlot {
    _permit: Arc<OwnedSemaphorePermit>,
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

    /// The answer to the line in `self.line` when rmcp cannot take it, or the message.
    fn parse(&self) -> Parsed {
        let mut line = self.line.as_slice();
        line = line.strip_suffix(b"\r").unwrap_or(line);
        line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return Parsed::Skip;
        }
        let error = match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
            Ok(message) => return Parsed::Message(Box::new(message)),
            Err(e) => e,
        };
        if error.to_string().starts_with("recursion limit exceeded") {
            let mut envelope = Envelope::default();
            envelope.feed(line);
            let problem = format!(
                "the message is nested deeper than {MAX_MESSAGE_DEPTH} levels, the most an MCP message may be \
                 here; send a deeply nested document as raw_output_text (a string), where the verification's \
                 depth limit judges it"
            );
            return answer_unread(&envelope, &problem);
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
    Message(Box<ClientJsonRpcMessage>),
    Answer(Vec<u8>),
    Skip,
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
        async move {
            let line = message_line(&item)?;
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
                Line::Whole => {
                    let parsed = self.parse();
                    self.line.clear();
                    if self.line.capacity() > 1024 * 1024 {
                        // A huge message's buffer is not kept for the small ones after it.
                        self.line = Vec::new();
                    }
                    parsed
                }
            };
            match parsed {
                Parsed::Message(mut message) => {
                    if let JsonRpcMessage::Request(request) = message.as_mut() {
                        if let ClientRequest::CallToolRequest(call) = &mut request.request {
                            if let Some(slot) = self.slot.take() {
                                call.extensions_mut().insert(CallSlot { _permit: Arc::new(slot) });
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

fn message_line(item: &ServerJsonRpcMessage) -> std::io::Result<Vec<u8>> {
    let mut line = serde_json::to_vec(item)?;
    line.push(b'\n');
    Ok(line)
}
