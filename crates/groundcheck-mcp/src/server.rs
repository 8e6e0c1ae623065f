//! The MCP server: rmcp's `ServerHandler` answering `tools/list` and `tools/call` (rmcp
//! answers `initialize`, `ping` and cancellation). Each call's work runs on the blocking pool
//! under a panic guard, at most [`Server::concurrent_calls`] at once, and a cancelled call's
//! answer is dropped by rmcp.

use std::sync::Arc;

use groundcheck_files::Template;
use groundcheck_store::{into_run, RunKey, Store, Window};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, InitializeResult,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::Value;
use tokio::sync::Semaphore;

use crate::arguments::{Arguments, BadArgument};
use crate::engines::Engines;
use crate::schema::{self, RESOLVE_PATH, VERIFY_EVIDENCE, VERIFY_RUN};
use crate::tools::{self, Output, EVIDENCE_ARGUMENTS, RESOLVE_ARGUMENTS};
use crate::transport::{structured_marker, CallSlot, RawCall};

/// The groundcheck MCP server: its tools, and the database `verify_run` reads, if any.
#[derive(Clone)]
pub struct Server {
    store: Option<Arc<Store>>,
    engines: Arc<Engines>,
    permits: Arc<Semaphore>,
}

impl Server {
    /// A server with the tools that need no database.
    pub fn new() -> Server {
        Server {
            store: None,
            engines: Arc::new(Engines::new(None)),
            permits: Arc::new(Semaphore::new(Server::concurrent_calls())),
        }
    }

    /// A server whose `verify_run` reads runs from `store` (opened read only by the caller).
    pub fn with_store(store: Store) -> Server {
        Server { store: Some(Arc::new(store)), ..Server::new() }
    }

    /// The same server, whose `verify_run` reads the raw output of every row that has none
    /// of its own from the file `template` names, as `groundcheck run --raw-outputs` does
    /// (same template, same root rules: the host layer's engine).
    pub fn with_raw_outputs(self, template: Option<Template>) -> Server {
        Server { engines: Arc::new(Engines::new(template)), ..self }
    }

    /// Calls verified at once: one per core. More would only queue on the CPUs while each
    /// held its document in memory; calls past this wait their turn.
    pub fn concurrent_calls() -> usize {
        std::thread::available_parallelism().map_or(2, |n| n.get())
    }

    /// Runs `work` on the blocking pool with a panic caught by the host layer's guard, unless
    /// the call is cancelled first.
    async fn blocking(
        &self,
        context: &RequestContext<RoleServer>,
        work: impl FnOnce() -> Result<Output, BadArgument> + Send + 'static,
    ) -> Result<CallToolResult, McpError> {
        // The call's place among those in flight and on a core both go with the work: a
        // cancelled call's verification still ends before either is freed.
        let slot = context.extensions.get::<CallSlot>().cloned();
        let raw = context.extensions.get::<RawCall>().cloned();
        let work = async {
            let permit = self
                .permits
                .clone()
                .acquire_owned()
                .await
                .map_err(|_| McpError::internal_error("shutting down", None))?;
            let joined = tokio::task::spawn_blocking(move || {
                let _held = (permit, slot);
                groundcheck_host::guard(|| Ok(work()))
            })
            .await;
            Ok(match joined {
                Ok(Ok(result)) => result_of(result, raw.as_ref()),
                Ok(Err(e)) => {
                    crate::log(&format!("a tool call panicked: {e}"));
                    tool_error(&e.to_string())
                }
                Err(e) => tool_error(&format!("groundcheck failed (a bug; please report the input): {e}")),
            })
        };
        tokio::select! {
            result = work => result,
            () = context.ct.cancelled() => Err(McpError::internal_error("cancelled by the client", None)),
        }
    }

    async fn verify_run(
        &self,
        store: Arc<Store>,
        arguments: Result<Arguments, BadArgument>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let (key, policy) = match arguments.and_then(run_arguments) {
            Ok(read) => read,
            Err(e) => return Ok(tool_error(&e.0)),
        };
        let window = Window::default();
        let rows = tokio::select! {
            rows = store.read_key(&key, &window) => rows,
            () = context.ct.cancelled() => return Err(McpError::internal_error("cancelled by the client", None)),
        };
        let rows = match rows {
            Ok(rows) => rows,
            // The store's messages name the database by its redacted URL only.
            Err(e) => return Ok(tool_error(&e.to_string())),
        };
        let Some(mut run) = into_run(rows) else {
            return Ok(tool_error(&format!("{}: {key}: no invocations found", store.display_url())));
        };
        let engine = self.engines.get(policy);
        self.blocking(context, move || {
            let limits = engine.policy().limits();
            let report = engine
                .verify_rows(std::mem::take(&mut run.invocations))
                .map_err(|e| BadArgument(e.to_string()))?;
            Ok(tools::report_output(&report, &limits))
        })
        .await
    }
}

impl Server {
    /// The protocol error for a tool this server does not have (`-32602`, as MCP says).
    fn unknown_tool(&self, name: &str) -> McpError {
        let known: Vec<String> =
            schema::tools(self.store.is_some()).iter().map(|t| t.name.to_string()).collect();
        McpError::invalid_params(
            format!(
                "unknown tool {:?} (this server has: {})",
                crate::arguments::clip(name),
                known.join(", ")
            ),
            None,
        )
    }
}

impl Default for Server {
    fn default() -> Server {
        Server::new()
    }
}

fn run_arguments(mut args: Arguments) -> Result<(RunKey, groundcheck_core::Policy), BadArgument> {
    let policy = args.policy()?;
    let key = match (args.string("run_id")?, args.string("session_id")?) {
        (Some(_), Some(_)) => return Err(BadArgument::new("run_id", "give run_id or session_id, not both")),
        (Some(run), None) => RunKey::Run(run),
        (None, Some(session)) => RunKey::Session(session),
        (None, None) => {
            return Err(BadArgument::new("run_id", "required: the run to verify (or session_id)"))
        }
    };
    Ok((key, policy))
}

/// The call's result. Its structured content goes to the transport as text when the
/// transport asked for it ([`RawCall`]): a marker stands in the result, which the transport
/// replaces with the text as it writes the answer, so no `serde_json::Value` tree of a large
/// result is ever made.
fn result_of(result: Result<Output, BadArgument>, raw: Option<&RawCall>) -> CallToolResult {
    match result {
        Ok(output) => {
            let structured = match raw {
                Some(raw) => {
                    raw.put_structured(output.structured);
                    structured_marker()
                }
                None => match serde_json::from_str::<Value>(&output.structured) {
                    Ok(value) => value,
                    Err(e) => {
                        return tool_error(&format!("the result cannot be given as structured content: {e}"))
                    }
                },
            };
            let mut result = CallToolResult::structured(structured);
            result.content = vec![ContentBlock::text(output.text)];
            result
        }
        Err(e) => tool_error(&e.0),
    }
}

fn tool_error(message: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.to_string())])
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let mut info = InitializeResult::new(ServerCapabilities::builder().enable_tools().build()).with_instructions(
            "groundcheck checks evidence you cite against the tool output it came from. Before you state a \
             diagnosis, call verify_evidence with the output and your evidence_refs ({raw_path, text}); correct \
             or drop every ref it does not verify. resolve_path shows what a path selects.",
        );
        let mut implementation = Implementation::default();
        implementation.name = "groundcheck".into();
        implementation.title = Some("groundcheck evidence verification".into());
        implementation.version = env!("CARGO_PKG_VERSION").into();
        info.server_info = implementation;
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(schema::tools(self.store.is_some())))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // The arguments as the transport kept them (their text), else as rmcp parsed them.
        let raw = context.extensions.get::<RawCall>().and_then(RawCall::take_arguments);
        let given = request.arguments;
        let arguments = move |known: &[&str]| match raw {
            Some(members) => Arguments::from_raw(members, known),
            None => Arguments::new(given, known),
        };
        let result = match request.name.as_ref() {
            VERIFY_EVIDENCE => {
                let engines = Arc::clone(&self.engines);
                self.blocking(&context, move || {
                    let (invocation, policy) = tools::evidence_invocation(arguments(&EVIDENCE_ARGUMENTS)?)?;
                    tools::verify_evidence(invocation, &engines.get(policy))
                })
                .await
            }
            RESOLVE_PATH => {
                self.blocking(&context, move || {
                    let (doc, path) = tools::resolve_arguments(arguments(&RESOLVE_ARGUMENTS)?)?;
                    tools::resolve_path(&doc, &path)
                })
                .await
            }
            VERIFY_RUN if self.store.is_some() => match self.store.clone() {
                Some(store) => {
                    let args = arguments(&["run_id", "session_id", "policy"]);
                    self.verify_run(store, args, &context).await
                }
                None => Err(self.unknown_tool(VERIFY_RUN)),
            },
            other => Err(self.unknown_tool(other)),
        };
        result.map(CallToolResponse::from)
    }
}
