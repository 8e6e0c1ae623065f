//! What each tool does with its arguments: an [`Invocation`] built from them and verified
//! by the core, or a path resolved by it. No verification rule is written here; this layer
//! only reads arguments, calls the core, and says the result in a sentence for the model.

use groundcheck_core::{
    resolve, resolve_text, Invocation, Json, Policy, RawOutput, RefOutcome, Report, Status, Verdict, Verifier,
};
use rmcp::model::JsonObject;
use serde_json::{json, Value};

use crate::arguments::{clip, to_json, Arguments, BadArgument};

/// A tool's successful result: the structured content and the text block beside it.
#[derive(Debug)]
pub struct Output {
    /// Validates against the tool's `outputSchema`.
    pub structured: Value,
    /// A short paragraph for the model.
    pub text: String,
}

const EVIDENCE_ARGUMENTS: [&str; 13] = [
    "raw_output",
    "raw_output_text",
    "evidence_refs",
    "evidence_status",
    "retrieval_details",
    "tool_name",
    "id",
    "success",
    "error_message",
    "output_preview",
    "output_length",
    "is_truncated",
    "policy",
];

/// The invocation and policy `verify_evidence`'s arguments describe.
pub fn evidence_invocation(arguments: Option<JsonObject>) -> Result<(Invocation, Policy), BadArgument> {
    let mut args = Arguments::new(arguments, &EVIDENCE_ARGUMENTS)?;
    let policy = args.policy()?;
    let raw_output = match (args.take("raw_output"), args.string("raw_output_text")?) {
        (Some(_), Some(_)) => {
            return Err(BadArgument::new("raw_output", "give raw_output or raw_output_text, not both"));
        }
        (Some(value), None) => Some(RawOutput::Json(to_json("raw_output", &value)?)),
        (None, Some(text)) => Some(RawOutput::Text(text)),
        (None, None) => None,
    };
    // retrieval_details given, even as null (the column NULL: no claim), replaces the refs.
    let retrieval_details = if args.given("retrieval_details") {
        if args.has("evidence_refs") || args.has("evidence_status") {
            return Err(BadArgument::new(
                "retrieval_details",
                "give retrieval_details or evidence_refs (with evidence_status), not both",
            ));
        }
        args.take("retrieval_details").map(|v| to_json("retrieval_details", &v)).transpose()?
    } else {
        let refs =
            match args.take("evidence_refs") {
                Some(refs @ Value::Array(_)) => refs,
                Some(other) => {
                    return Err(BadArgument::new(
                        "evidence_refs",
                        format!("must be an array of {{raw_path, text}} objects, not {}", kind(&other)),
                    ))
                }
                None => return Err(BadArgument::new(
                    "evidence_refs",
                    "required: the evidence to check, as [{\"raw_path\": \"$.logs[0]\", \"text\": \"...\"}]",
                )),
            };
        let mut details = JsonObject::new();
        if let Some(status) = args.string("evidence_status")? {
            details.insert("evidence_status".into(), Value::String(status));
        }
        details.insert("evidence_refs".into(), refs);
        Some(to_json("evidence_refs", &Value::Object(details))?)
    };
    let invocation = Invocation {
        id: args.integer("id")?.unwrap_or(1),
        tool_name: args.string("tool_name")?.unwrap_or_else(|| "tool".into()),
        retrieval_details,
        raw_output,
        success: args.boolean("success")?,
        error_message: args.string("error_message")?,
        output_preview: args.string("output_preview")?,
        output_length: args.integer("output_length")?,
        is_truncated: args.boolean("is_truncated")?,
        ..Invocation::default()
    };
    Ok((invocation, policy))
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `verify_evidence`: the invocation's verdict, and what it means for the model.
pub fn verify_evidence(invocation: &Invocation, policy: Policy) -> Output {
    let verdict = Verifier::new(policy).verify(invocation);
    let structured = serde_json::to_value(&verdict).unwrap_or(Value::Null);
    Output { structured, text: verdict_text(&verdict) }
}

/// One paragraph: the status, why (each failed ref with its nearest text and where else the
/// quote is, as the OpenTelemetry explanation says it), and what to do about a miss.
pub fn verdict_text(verdict: &Verdict) -> String {
    let mut text = format!("{}. {}.", verdict.status.as_str(), groundcheck_otel::explain(verdict));
    let misses = verdict
        .refs
        .iter()
        .filter(|r| matches!(r.outcome, RefOutcome::TextNotFound | RefOutcome::PathNotFound));
    let (mut elsewhere, mut nearest) = (false, false);
    for r in misses {
        elsewhere |= r.elsewhere.is_some();
        nearest |= r.nearest.is_some();
    }
    if elsewhere {
        text.push_str(" Where a quote was found elsewhere, cite that path instead.");
    }
    if nearest {
        text.push_str(" Where only a nearest text was found, quote it exactly or drop the ref.");
    }
    if verdict.status == Status::Supported {
        text.push_str(" The cited evidence holds.");
    }
    text
}

const RESOLVE_ARGUMENTS: [&str; 3] = ["document", "document_text", "path"];

/// The document `resolve_path` looks in: a JSON value, or a tool output's text.
pub enum Document {
    /// `document`: any JSON value.
    Value(Json),
    /// `document_text`: read as verification reads a raw output's text — JSON, else (when
    /// the path selects nothing in it as one string) its JSON Lines or YAML view.
    Text(String),
}

/// `resolve_path`'s document and path.
pub fn resolve_arguments(arguments: Option<JsonObject>) -> Result<(Document, String), BadArgument> {
    let mut args = Arguments::new(arguments, &RESOLVE_ARGUMENTS)?;
    let path = args
        .string("path")?
        .ok_or_else(|| BadArgument::new("path", "required: a JSONPath or JSON Pointer"))?;
    let doc = match (args.take("document"), args.string("document_text")?) {
        (Some(_), Some(_)) => {
            return Err(BadArgument::new("document", "give document or document_text, not both"))
        }
        (Some(value), None) => Document::Value(to_json("document", &value)?),
        (None, Some(text)) => Document::Text(text),
        (None, None) => {
            return Err(BadArgument::new("document", "required: the JSON document (or document_text)"))
        }
    };
    Ok((doc, path))
}

/// `resolve_path`: the nodes, as `groundcheck resolve` prints them.
pub fn resolve_path(doc: &Document, path: &str) -> Result<Output, BadArgument> {
    let (resolved, field) = match doc {
        Document::Value(doc) => (resolve(path, doc), "document"),
        Document::Text(text) => (resolve_text(path, text), "document_text"),
    };
    let nodes = resolved.map_err(|e| match e.kind() {
        groundcheck_core::ErrorKind::Path | groundcheck_core::ErrorKind::PathLimit => {
            BadArgument::new("path", format!("{:?}: {e}", clip(path)))
        }
        _ => BadArgument::new(field, e),
    })?;
    let mut items = Vec::with_capacity(nodes.len());
    for node in &nodes {
        let value: Value = serde_json::from_str(&node.value).map_err(|_| {
            BadArgument::new(
                "path",
                format!(
                    "selects {} which is nested too deep to return as structured content; select a node \
                     further down",
                    node.path
                ),
            )
        })?;
        let mut item = json!({"path": node.path, "value": value});
        if node.descended {
            item["descended"] = Value::Bool(true);
        }
        if let Some(read_as) = node.read_as {
            item["read_as"] = Value::from(read_as.as_str());
        }
        items.push(item);
    }
    let text = match nodes.len() {
        0 => format!("The path {} selects nothing in the document.", clip(path)),
        n => {
            let shown: Vec<String> =
                nodes.iter().take(5).map(|n| format!("{} = {}", n.path, clip(&n.value))).collect();
            let more = if n > 5 { format!("; and {} more", n - 5) } else { String::new() };
            format!("The path selects {n} node{}: {}{more}.", if n == 1 { "" } else { "s" }, shown.join("; "))
        }
    };
    Ok(Output { structured: json!({"nodes": items}), text })
}

/// `verify_run`: the report's structured content and its summary for the model.
pub fn report_output(report: &Report) -> Output {
    let structured = serde_json::to_value(report).unwrap_or(Value::Null);
    let mut lines = Vec::new();
    for run in &report.runs {
        let s = run.summary;
        let name = run.run_id.as_deref().or(run.session_id.as_deref()).unwrap_or("(no run)");
        let mut line = format!(
            "Run {name}: {} invocations, {} supported, {} unsupported, {} no_evidence, {} claim mismatches.",
            s.invocations, s.supported, s.unsupported, s.no_evidence, s.claim_mismatches
        );
        for v in run.invocations.iter().filter(|v| v.status == Status::Unsupported).take(5) {
            line.push_str(&format!(
                " Invocation {} ({}): {}.",
                v.id,
                v.tool_name,
                groundcheck_otel::explain(v)
            ));
        }
        lines.push(line);
    }
    Output { structured, text: lines.join(" ") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(args: Value) -> Result<Output, BadArgument> {
        let Value::Object(map) = args else { panic!("an object") };
        let (inv, policy) = evidence_invocation(Some(map))?;
        Ok(verify_evidence(&inv, policy))
    }

    #[test]
    fn a_misquote_gets_its_nearest_text_in_the_verdict_and_the_sentence() {
        let out = call(json!({
            "raw_output": {"logs": [{"message": "dial tcp 10.0.0.7:5432: connection refused"}]},
            "evidence_refs": [{"raw_path": "$.logs[0].message", "text": "connection reset"}],
            "evidence_status": "supported",
            "tool_name": "query_logs"
        }))
        .unwrap();
        assert_eq!(out.structured["status"], "unsupported");
        assert_eq!(out.structured["refs"][0]["outcome"], "text_not_found");
        assert!(out.structured["refs"][0]["nearest"]["text"].is_string(), "{}", out.structured);
        assert!(out.text.starts_with("unsupported. not_verified: "), "{}", out.text);
        assert!(out.text.contains("nearest"), "{}", out.text);
    }

    #[test]
    fn numbers_keep_their_text_from_the_arguments_to_the_verdict() {
        let out = call(json!({
            "raw_output": serde_json::from_str::<Value>(r#"{"ratio": 0.950}"#).unwrap(),
            "evidence_refs": [{"raw_path": "$.ratio", "text": "0.950"}]
        }))
        .unwrap();
        assert_eq!(out.structured["status"], "supported", "{}", out.structured);
        assert_eq!(out.structured["refs"][0]["match"], "exact");
    }

    #[test]
    fn bad_arguments_are_one_sentence_each() {
        let e = |v: Value| call(v).unwrap_err().0;
        assert_eq!(
            e(json!({"raw_output": 1, "raw_output_text": "1", "evidence_refs": []})),
            "raw_output: give raw_output or raw_output_text, not both"
        );
        assert!(
            e(json!({"raw_output": 1, "evidence_refs": "x"})).starts_with("evidence_refs: must be an array")
        );
        assert!(e(json!({"raw_output": 1})).starts_with("evidence_refs: required"));
        assert!(
            e(json!({"raw_output": 1, "evidence_refs": [], "id": 1.5})).starts_with("id: must be an integer")
        );
    }

    #[test]
    fn resolve_prints_what_the_command_prints_and_refuses_a_bad_path() {
        let doc = Document::Value(Json::parse(r#"{"a": [1, 2.50]}"#).unwrap());
        let out = resolve_path(&doc, "$.a[*]").unwrap();
        assert_eq!(
            out.structured.to_string(),
            r#"{"nodes":[{"path":"$['a'][0]","value":1},{"path":"$['a'][1]","value":2.50}]}"#
        );
        let e = resolve_path(&doc, "$[").unwrap_err().0;
        assert!(e.starts_with("path: \"$[\": "), "{e}");
        let logs = Document::Text("{\"msg\":\"a\"}\n{\"msg\":\"connection refused\"}\n".into());
        assert_eq!(
            resolve_path(&logs, "$[1].msg").unwrap().structured.to_string(),
            r#"{"nodes":[{"path":"$[1]['msg']","value":"connection refused","read_as":"json_lines"}]}"#
        );
    }
}
