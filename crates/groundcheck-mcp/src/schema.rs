//! The tools as MCP lists them: names, descriptions, annotations, and the JSON Schemas of
//! their arguments and results. The enums in the result schemas are read from the core's
//! own name tables (`Status::ALL`, …), so a name the engine adds appears here without a
//! second spelling to forget.
//!
//! The input schemas are written for the strict function-calling modes models are driven
//! with, as they are, without a rewrite by the client: OpenAI's strict mode (openai-agents'
//! `convert_schemas_to_strict`), pydantic-ai's strict transformer and Gemini's OpenAPI subset.
//! So every property and every array's items have a type (an `anyOf` of typed branches at
//! most), no type is an array of types, and each optional property is nullable: a strict model
//! sends every property, `null` for those it does not use, and the server reads `null` as
//! absent. No object is left without declared members (openai-agents refuses one when it
//! converts an MCP tool). `required` lists what the server requires, the first member of an
//! either-or pair (`evidence_refs`, unless `retrieval_details` is given instead), whose
//! description says so. A value that may be any JSON (`raw_output`, `document`) has no strict
//! form: it is accepted but not declared, and strict clients send its text.

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

/// `schema` or JSON `null`. Strict function calling (OpenAI's strict mode, pydantic-ai's
/// strict transformer) makes every property required, so a model sends each one and `null`
/// for those it does not use; the server reads a `null` argument as absent. `anyOf` with a
/// `null` branch is the form every strict mode takes, Gemini's OpenAPI subset included (its
/// `nullable`), where a type array such as `["string", "null"]` is not.
fn nullable(schema: Value, description: &str) -> Value {
    json!({"anyOf": [schema, {"type": "null"}], "description": description})
}

/// `{"anyOf": [{"type": T}, {"type": "null"}]}`: a result's member that may be null, written as
/// the input schemas write one (no type arrays), so that every schema reads the same way.
fn or_null(type_: &str) -> Value {
    json!({"anyOf": [{"type": type_}, {"type": "null"}]})
}

/// A string property, one of `names` (the core's own spellings), or `null`.
fn nullable_enum(names: Value, description: &str) -> Value {
    nullable(json!({"type": "string", "enum": names}), description)
}

fn policy_schema() -> Value {
    let policy = json!({
        "type": "object",
        "properties": {
            "require": nullable_enum(names(Require::ALL, Require::as_str),
                                     "How many real refs must verify: all (default) or any; null for the default."),
            "match": nullable_enum(names(Rung::ALL, Rung::as_str),
                                   "The loosest rung accepted (default elided); fuzzy also uses min_score. \
                                    null for the default."),
            "min_score": {"anyOf": [{"type": "number"}, {"type": "string"}, {"type": "null"}],
                          "description": "The fuzzy rung's threshold, above 0 and at most 1, three decimals \
                                          at most (default 0.9), as a number or its text; null for the default."}
        },
        "additionalProperties": false
    });
    nullable(
        policy,
        "How verdicts are decided; each field (and the whole policy) null or absent for the command \
                      line's default.",
    )
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
            "raw_path": or_null("string"),
            "text": or_null("string"),
            "outcome": {"enum": names(RefOutcome::ALL, RefOutcome::as_str)},
            "match": {"enum": names(Rung::ALL, Rung::as_str)},
            "matched_path": {"type": "string"},
            "score": {"type": "number"},
            "in_preview": {"type": "boolean"},
            "nearest": nearest,
            "elsewhere": {"type": "string"},
            "limit": {"enum": names(Limit::ALL, Limit::as_str)},
            "path_error": {
                "type": "object",
                "description": "For an invalid_path ref (and a limit_exceeded one whose path passes a limit of \
                                its own): why the path cannot be read, and where in raw_path as given (line 1; \
                                column in characters, offset in bytes; null when the message names no place).",
                "required": ["message", "offset", "line", "column"],
                "properties": {
                    "message": {"type": "string"},
                    "offset": or_null("integer"),
                    "line": or_null("integer"),
                    "column": or_null("integer")
                },
                "additionalProperties": false
            },
            "malformed": {"type": "string",
                          "description": "For a malformed_ref ref: what is wrong with it (unknown key rawPath; \
                                          did you mean raw_path?)."}
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
            "claimed_status": or_null("string"),
            "claim_agrees": or_null("boolean"),
            "source": {"enum": names(Source::ALL, Source::as_str)},
            "refs": {"type": "array", "items": reference},
            "warnings": {"type": "array", "items": {"enum": names(Warning::ALL, Warning::as_str)}}
        },
        "additionalProperties": false
    })
}

/// `schema` (an object's) with the member `advice`: the paragraph written for the model, also in
/// the text block. Frameworks (pydantic-ai, openai-agents with structured content on) hand the
/// model the structured content alone, so the advice must be in it.
fn with_advice(mut schema: Value) -> Value {
    let advice = json!({"type": "string",
                        "description": "What the result means for the model and what to do about a miss: the \
                                        text block's paragraph."});
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        properties.insert("advice".into(), advice);
    }
    if let Some(required) = schema.get_mut("required").and_then(Value::as_array_mut) {
        required.push("advice".into());
    }
    schema
}

fn verify_evidence() -> Tool {
    let reference = json!({
        "type": "object",
        "properties": {
            "raw_path": {"type": "string",
                         "description": "Where the quote is: RFC 9535 JSONPath (starting with $) or an RFC 6901 \
                                         JSON Pointer (starting with /)."},
            "text": nullable(json!({"type": "string"}),
                             "The quote, exactly as the output has it; null only in the $.no_evidence marker.")
        },
        "required": ["raw_path"]
    });
    let refs = json!({"type": "array", "items": reference});
    // The column as an object: the members the claim reads, typed (an object with no declared
    // members is refused by openai-agents' strict conversion of MCP tools).
    let details = json!({
        "type": "object",
        "properties": {
            "evidence_status": nullable(json!({"type": "string"}), "The status the agent claims."),
            "evidence_refs": nullable(refs.clone(), "The evidence refs.")
        }
    });
    // `raw_output` (any JSON value) is accepted but not declared: no strict mode can express
    // any JSON value (an object with no declared members is refused, and nothing recursive
    // fits Gemini's subset), and a declared string form would only double raw_output_text. So
    // the object leaves additionalProperties open (strict clients close it themselves); the
    // server still refuses an unknown name.
    let input = json!({
        "type": "object",
        "properties": {
            "raw_output_text": nullable(json!({"type": "string"}),
                                        "The tool's output as its exact text; parsed as JSON when it is JSON, \
                                         else as JSON Lines or YAML, else one string; null for no output. \
                                         Clients that send JSON values may give the output as raw_output \
                                         instead (any JSON value; a string is the output's text), never both; \
                                         under strict function calling send raw_output_text."),
            "evidence_refs": nullable(refs,
                                      "The evidence cited from the output: objects {raw_path, text}. \
                                       [{\"raw_path\": \"$.no_evidence\", \"text\": null}] marks a call \
                                       that yielded nothing. Required, unless retrieval_details is given \
                                       instead (then null)."),
            "evidence_status": nullable(json!({"type": "string"}),
                                        "The status the agent claims: supported, unsupported or no_evidence; \
                                         null for no claim."),
            "retrieval_details": nullable(json!({"anyOf": [details, {"type": "string"}]}),
                                          "Instead of evidence_refs and evidence_status: the whole \
                                           retrieval_details column as the agent wrote it, as an object or its \
                                           JSON text (under strict function calling, the text). null when \
                                           evidence_refs is given; null with no evidence_refs is a NULL column \
                                           (no claim)."),
            "tool_name": nullable(json!({"type": "string"}),
                                  "The tool that produced the output (null: \"tool\")."),
            "id": nullable(json!({"type": "integer"}), "An id echoed in the verdict (null: 1)."),
            "success": nullable(json!({"type": "boolean"}),
                                "Whether the tool call succeeded; false makes the verdict tool_failed."),
            "error_message": nullable(json!({"type": "string"}), "The tool call's error message, if any."),
            "output_preview": nullable(json!({"type": "string"}),
                                       "A preview of the output, used only when no output is given."),
            "output_length": nullable(json!({"type": "integer"}), "The output's length, beside the preview."),
            "is_truncated": nullable(json!({"type": "boolean"}), "Whether the preview is cut short."),
            "policy": policy_schema()
        },
        "required": ["evidence_refs"]
    });
    Tool::new(
        VERIFY_EVIDENCE,
        "Check evidence you cite against the tool output it came from, before you answer. Give the output \
         as raw_output_text (its exact text) and your evidence_refs ({raw_path, text}). Each quote is looked \
         for at its path: exactly, then normalized (case, width, white space), then with `...` elisions. The \
         verdict says which refs hold; for a miss it gives the nearest text at the path and where else in the \
         output the quote is, so you can correct the quote or the path.",
        object(input),
    )
    .with_raw_output_schema(object(with_advice(verdict_schema())))
    .annotate(annotations("Verify cited evidence"))
}

fn resolve_path() -> Tool {
    // `document` (any JSON value) is accepted but not declared, as verify_evidence's raw_output.
    let input = json!({
        "type": "object",
        "properties": {
            "document_text": nullable(json!({"type": "string"}),
                                      "The document as text, read as a tool output is: JSON, else (when the \
                                       path selects nothing in the text as one string) its JSON Lines or YAML \
                                       view. Clients that send JSON values may give the document as document \
                                       instead (any JSON value; then document_text null or absent)."),
            "path": {"type": "string",
                     "description": "RFC 9535 JSONPath (starting with $), or an RFC 6901 JSON Pointer (starting \
                                     with /), used exactly as given."}
        },
        "required": ["path", "document_text"]
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
            "run_id": nullable(json!({"type": "string"}),
                               "The diagnosis run to verify. Required, unless session_id is given instead \
                                (then null)."),
            "session_id": nullable(json!({"type": "string"}),
                                   "Instead of run_id: the session whose invocations have no run_id; null when \
                                    run_id is given."),
            "policy": policy_schema()
        },
        "required": ["run_id"],
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
                        "run_id": or_null("string"),
                        "session_id": or_null("string"),
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
    .with_raw_output_schema(object(with_advice(output)))
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
