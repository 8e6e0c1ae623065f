//! The tools as MCP lists them: names, descriptions, annotations, and the JSON Schemas of
//! their arguments and results. The enums in the result schemas are read from the core's
//! own name tables (`Status::ALL`, …), so a name the engine adds appears here without a
//! second spelling to forget.

use std::sync::Arc;

use groundcheck_core::{Limit, ReadAs, Reason, RefOutcome, Require, Rung, Source, Status, Warning, SCHEMA};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{json, Value};

/// `verify_evidence`: one tool output and the evidence an agent cites from it.
pub const VERIFY_EVIDENCE: &str = "verify_evidence";
/// `resolve_path`: what a path selects in a document.
pub const RESOLVE_PATH: &str = "resolve_path";
/// `verify_run`: a stored run's report (only with `--database`).
pub const VERIFY_RUN: &str = "verify_run";

/// The `limit` names a `limit_exceeded` ref may carry in the report.
fn names<T: Copy>(all: &[T], name: impl Fn(T) -> &'static str) -> Value {
    Value::Array(all.iter().map(|&v| Value::from(name(v))).collect())
}

fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

/// Every tool is a pure function of its arguments (and, for `verify_run`, of rows it only
/// reads): read-only, idempotent, and closed-world, so a host may call them without asking.
fn annotations(title: &str) -> ToolAnnotations {
    ToolAnnotations::with_title(title).read_only(true).idempotent(true).open_world(false).destructive(false)
}

fn policy_schema() -> Value {
    json!({
        "type": "object",
        "description": "How verdicts are decided; each field defaults to the command line's default.",
        "properties": {
            "require": {"enum": names(Require::ALL, Require::as_str),
                        "description": "How many real refs must verify: all (default) or any."},
            "match": {"enum": names(Rung::ALL, Rung::as_str),
                      "description": "The loosest rung accepted (default elided); fuzzy also uses min_score."},
            "min_score": {"type": ["number", "string"],
                          "description": "The fuzzy rung's threshold, above 0 and at most 1, three decimals \
                                          at most (default 0.9)."}
        },
        "additionalProperties": false
    })
}

fn verdict_schema() -> Value {
    let nearest = json!({
        "type": "object",
        "required": ["score", "path", "text"],
        "properties": {"score": {"type": "number"}, "path": {"type": "string"}, "text": {"type": "string"}},
        "additionalProperties": false
    });
    let reference = json!({
        "type": "object",
        "required": ["index", "raw_path", "text", "outcome"],
        "properties": {
            "index": {"type": "integer", "minimum": 0},
            "raw_path": {"type": ["string", "null"]},
            "text": {"type": ["string", "null"]},
            "outcome": {"enum": names(RefOutcome::ALL, RefOutcome::as_str)},
            "match": {"enum": names(Rung::ALL, Rung::as_str)},
            "matched_path": {"type": "string"},
            "score": {"type": "number"},
            "in_preview": {"type": "boolean"},
            "nearest": nearest,
            "elsewhere": {"type": "string"},
            "limit": {"enum": names(Limit::ALL, Limit::as_str)}
        },
        "additionalProperties": false
    });
    json!({
        "type": "object",
        "required": ["id", "tool_name", "status", "reason", "claimed_status", "claim_agrees", "source", "refs",
                     "warnings"],
        "properties": {
            "id": {"type": "integer"},
            "tool_name": {"type": "string"},
            "status": {"enum": names(Status::ALL, Status::as_str)},
            "reason": {"enum": names(Reason::ALL, Reason::as_str)},
            "claimed_status": {"type": ["string", "null"]},
            "claim_agrees": {"type": ["boolean", "null"]},
            "source": {"enum": names(Source::ALL, Source::as_str)},
            "refs": {"type": "array", "items": reference},
            "warnings": {"type": "array", "items": {"enum": names(Warning::ALL, Warning::as_str)}}
        },
        "additionalProperties": false
    })
}

fn verify_evidence() -> Tool {
    let input = json!({
        "type": "object",
        "properties": {
            "raw_output": {"description": "The tool's output. A string is the output's exact text, read as \
                                           raw_output_text is; an object, array, number or boolean is that \
                                           JSON value."},
            "raw_output_text": {"type": "string",
                                "description": "The tool's output as its exact text; parsed as JSON when it is \
                                                JSON, else as JSON Lines or YAML, else one string. Give this or \
                                                raw_output."},
            "evidence_refs": {"type": "array",
                              "description": "The evidence cited from the output, as in retrieval_details: \
                                              objects {raw_path, text}; raw_path is RFC 9535 JSONPath or an \
                                              RFC 6901 JSON Pointer, text the quote. {raw_path: \"$.no_evidence\"} \
                                              marks a call that yielded nothing.",
                              "items": {"properties": {"raw_path": {"type": "string"}, "text": {"type": "string"}}}},
            "evidence_status": {"type": "string",
                                "description": "The status the agent claims: supported, unsupported or no_evidence."},
            "retrieval_details": {"description": "Instead of evidence_refs and evidence_status: the whole \
                                                  retrieval_details column as the agent wrote it."},
            "tool_name": {"type": "string", "description": "The tool that produced the output (default \"tool\")."},
            "id": {"type": "integer", "description": "An id echoed in the verdict (default 1)."},
            "success": {"type": ["boolean", "null"],
                        "description": "Whether the tool call succeeded; false makes the verdict tool_failed."},
            "error_message": {"type": ["string", "null"]},
            "output_preview": {"type": ["string", "null"],
                               "description": "A preview of the output, used only when no output is given."},
            "output_length": {"type": ["integer", "null"]},
            "is_truncated": {"type": ["boolean", "null"]},
            "policy": policy_schema()
        },
        "additionalProperties": false
    });
    Tool::new(
        VERIFY_EVIDENCE,
        "Check evidence you cite against the tool output it came from, before you answer. Give the output \
         (raw_output as JSON or as its text) and your evidence_refs ({raw_path, text}). Each quote is looked \
         for at its path: exactly, then normalized (case, width, white space), then with `...` elisions. The \
         verdict says which refs hold; for a miss it gives the nearest text at the path and where else in the \
         output the quote is, so you can correct the quote or the path.",
        object(input),
    )
    .with_raw_output_schema(object(verdict_schema()))
    .annotate(annotations("Verify cited evidence"))
}

fn resolve_path() -> Tool {
    let input = json!({
        "type": "object",
        "properties": {
            "document": {"description": "The JSON document (any JSON value)."},
            "document_text": {"type": "string",
                              "description": "The document as text, read as a tool output is: JSON, else (when \
                                              the path selects nothing in the text as one string) its JSON Lines \
                                              or YAML view. Give this or document."},
            "path": {"type": "string",
                     "description": "RFC 9535 JSONPath (starting with $), or an RFC 6901 JSON Pointer (starting \
                                     with /), used exactly as given."}
        },
        "required": ["path"],
        "additionalProperties": false
    });
    let output = json!({
        "type": "object",
        "required": ["nodes"],
        "properties": {
            "nodes": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["path", "value"],
                    "properties": {
                        "path": {"type": "string", "description": "The node's RFC 9535 normalized path."},
                        "value": {"description": "The node, numbers as written."},
                        "descended": {"const": true,
                                      "description": "Present when the node was found in JSON held inside a \
                                                      string of the document."},
                        "read_as": {"enum": names(ReadAs::ALL, ReadAs::as_str),
                                    "description": "Present when the node was found in the JSON Lines or YAML \
                                                    view of a document_text that is not JSON."}
                    },
                    "additionalProperties": false
                }
            }
        },
        "additionalProperties": false
    });
    Tool::new(
        RESOLVE_PATH,
        "Show the nodes a JSONPath or JSON Pointer selects in a JSON document, with their normalized paths: \
         the resolution verify_evidence uses, to find the right path before citing evidence.",
        object(input),
    )
    .with_raw_output_schema(object(output))
    .annotate(annotations("Resolve a path"))
}

fn verify_run() -> Tool {
    let input = json!({
        "type": "object",
        "properties": {
            "run_id": {"type": "string", "description": "The diagnosis run to verify."},
            "session_id": {"type": "string",
                           "description": "Instead of run_id: the session whose invocations have no run_id."},
            "policy": policy_schema()
        },
        "additionalProperties": false
    });
    let summary = json!({
        "type": "object",
        "required": ["invocations", "supported", "unsupported", "no_evidence", "claim_mismatches"],
        "properties": {
            "invocations": {"type": "integer"}, "supported": {"type": "integer"},
            "unsupported": {"type": "integer"}, "no_evidence": {"type": "integer"},
            "claim_mismatches": {"type": "integer"}
        },
        "additionalProperties": false
    });
    let output = json!({
        "type": "object",
        "required": ["schema", "runs"],
        "properties": {
            "schema": {"const": SCHEMA},
            "runs": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["run_id", "session_id", "summary", "invocations"],
                    "properties": {
                        "run_id": {"type": ["string", "null"]},
                        "session_id": {"type": ["string", "null"]},
                        "summary": summary,
                        "invocations": {"type": "array", "items": verdict_schema()}
                    },
                    "additionalProperties": false
                }
            }
        },
        "additionalProperties": false
    });
    Tool::new(
        VERIFY_RUN,
        "Verify every tool invocation of a diagnosis run stored in the database this server was started with \
         (read only), and return the run's report: each invocation's verdict and the run's counts.",
        object(input),
    )
    .with_raw_output_schema(object(output))
    .annotate(annotations("Verify a stored run"))
}

/// The tools this server offers: `verify_run` only when it has a database.
pub fn tools(with_database: bool) -> Vec<Tool> {
    let mut tools = vec![verify_evidence(), resolve_path()];
    if with_database {
        tools.push(verify_run());
    }
    tools
}
