//! groundcheck-mcp serves groundcheck over the Model Context Protocol, on stdio, so that an
//! agent checks the evidence it cites against its tools' outputs *before* it answers, in
//! the same loop in which it calls those tools.
//!
//! `groundcheck mcp` (the binary's subcommand) calls [`serve_stdio`]. The tools:
//!
//! - `verify_evidence`: one tool output and the refs cited from it → the invocation's verdict
//!   in the report schema, with each miss's nearest text and where else the quote is;
//! - `resolve_path`: the nodes a path selects, as `groundcheck resolve` prints them;
//! - `verify_run` (only with a database): a stored run's report, as `groundcheck run` gives.
//!
//! This crate is the only one that depends on rmcp, the official Rust SDK, pinned to one
//! exact version: the SDK changes fast, and its churn stays here, out of the core and the
//! command line. The core's verification is used as it is ([`groundcheck_core::Verifier`]);
//! no rule is written here. The transport ([`LineTransport`]) is our own so that every
//! message gets an answer — a malformed one a JSON-RPC error, one too large or too deep to
//! read an error naming the limit — and the server keeps serving. Logs go to stderr only:
//! stdout carries protocol messages and nothing else.
//!
//! ```no_run
//! // What `groundcheck mcp` does: serve on stdin and stdout until the client closes stdin.
//! groundcheck_mcp::serve_stdio(None, None)?;
//! # Ok::<(), groundcheck_mcp::Error>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod arguments;
mod engines;
mod envelope;
mod raw;
mod schema;
mod server;
mod tools;
mod transport;

pub use crate::server::Server;
pub use crate::transport::{
    LineTransport, BYTES_IN_FLIGHT, CALLS_IN_FLIGHT, MAX_MESSAGE_BYTES, MAX_MESSAGE_DEPTH,
    MAX_OTHER_MESSAGE_BYTES,
};

use groundcheck_files::Template;
use rmcp::ServiceExt;
use tokio::io::{AsyncRead, AsyncWrite};

/// The stack of each thread a tool call's work runs on: reserved address space, of which a
/// call touches only what its document's depth needs. The engine recurses once per nesting
/// level in JSONPath's descendant segments and filters (up to the query depth ceiling), which
/// tokio's default of 2 MiB does not always hold in a debug build.
pub const ENGINE_STACK: usize = 16 << 20;

/// Why the server could not start or stopped on its own account (never a client's message:
/// those are answered and the server goes on).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The `--database` could not be opened; the message names it with its password redacted.
    #[error("{0}")]
    Database(#[from] groundcheck_store::StoreError),
    /// The async runtime could not start.
    #[error("tokio runtime: cannot start: {0}")]
    Runtime(std::io::Error),
    /// The MCP session ended in an error rmcp reported (the transport failed).
    #[error("mcp: {0}")]
    Session(String),
}

/// Writes one log line on stderr: stdout belongs to the protocol.
pub(crate) fn log(message: &str) {
    eprintln!("groundcheck mcp: {message}");
}

/// Serves on stdin and stdout until the client closes stdin. With `database` (a URL, as
/// `--database` takes it), `verify_run` is offered and reads runs from it, opened read only;
/// with `raw_outputs` (`--raw-outputs`), the rows without a raw output of their own find it in
/// the file the template names, as `groundcheck run` finds it.
pub fn serve_stdio(database: Option<&str>, raw_outputs: Option<Template>) -> Result<(), Error> {
    // One thread for the protocol; verification runs on the blocking pool beside it, on
    // stacks of ENGINE_STACK (tokio's default, 2 MiB, is less than the deepest documents the
    // limits let a query run on may take in a debug build).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .thread_stack_size(ENGINE_STACK)
        .build()
        .map_err(Error::Runtime)?;
    runtime.block_on(async {
        let server = match database {
            Some(url) => {
                let store = groundcheck_store::Store::connect_read_only(url).await?;
                log(&format!("verify_run reads {} (read only)", store.display_url()));
                if let Some(template) = &raw_outputs {
                    log(&format!("verify_run reads raw outputs from files: {}", template.as_str()));
                }
                Server::with_store(store).with_raw_outputs(raw_outputs)
            }
            None => Server::new(),
        };
        serve(server, tokio::io::stdin(), tokio::io::stdout(), MAX_MESSAGE_BYTES).await
    })
}

/// Serves `server` over `read` and `write` (one message a line, each at most `max_bytes`)
/// until `read` ends. A client that leaves before `initialize` is not an error.
pub async fn serve<R, W>(server: Server, read: R, write: W, max_bytes: usize) -> Result<(), Error>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let transport = LineTransport::new(read, write, max_bytes);
    let running = match server.serve(transport).await {
        Ok(running) => running,
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
        Err(e) => return Err(Error::Session(e.to_string())),
    };
    running.waiting().await.map(|_| ()).map_err(|e| Error::Session(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    /// The server on an in-memory pipe with a 4 KiB message limit: every line gets its answer
    /// (or, a notification, none), in order, and the server goes on after each.
    #[tokio::test]
    async fn every_bad_line_is_answered_and_the_server_goes_on() {
        // One pipe each way, so that dropping the client's end is the server's end of input.
        let (mut write, server_read) = tokio::io::duplex(1 << 16);
        let (server_write, read) = tokio::io::duplex(1 << 16);
        let server = tokio::spawn(serve(Server::new(), server_read, server_write, 4096));
        let mut lines = BufReader::new(read).lines();
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params":
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
        let big = format!(
            r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"resolve_path","arguments":{{"path":"$","document_text":"{}"}}}},"id":"big"}}"#,
            "x".repeat(10_000)
        );
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"verify_evidence","_meta":{{"x":{}{}}}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let sent = [
            init.to_string(),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
            "\u{feff}not json".to_string(),
            r#"{"jsonrpc":"2.0","id":1}"#.to_string(),
            big,
            deep,
            r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#.to_string(),
        ];
        for line in sent {
            write.write_all(format!("{line}\n").as_bytes()).await.unwrap();
        }
        let mut answers = Vec::new();
        for _ in 0..6 {
            let line = lines.next_line().await.unwrap().unwrap();
            answers.push(serde_json::from_str::<Value>(&line).unwrap());
        }
        assert_eq!(answers[0]["id"], 0);
        assert_eq!((&answers[1]["id"], &answers[1]["error"]["code"]), (&Value::Null, &json!(-32700)));
        assert_eq!((&answers[2]["id"], &answers[2]["error"]["code"]), (&json!(1), &json!(-32600)));
        assert_eq!((&answers[3]["id"], &answers[3]["result"]["isError"]), (&json!("big"), &json!(true)));
        assert!(answers[3]["result"]["content"][0]["text"].as_str().unwrap().contains("over the 4096 bytes"));
        assert_eq!((&answers[4]["id"], &answers[4]["result"]["isError"]), (&json!(3), &json!(true)));
        assert_eq!(answers[5], json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
        drop(write);
        assert!(lines.next_line().await.unwrap().is_none());
        server.await.unwrap().unwrap();
    }
}
