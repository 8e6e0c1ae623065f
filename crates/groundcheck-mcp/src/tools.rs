//! What each tool does with its arguments: an [`Invocation`] built from them and verified
//! by the core, or a path resolved by it. No verification rule is written here; this layer
//! only reads arguments, calls the core, and says the result in a sentence for the model.

use groundcheck_core::{
    explain, resolve_text_with, Invocation, Limit, Limits, Policy, RawOutput, RefOutcome, Report, SharedText,
    Status, Verdict,
};
use groundcheck_host::Engine;

use crate::arguments::{clip, Arguments, BadArgument};
use crate::raw::Text;

/// A tool's successful result: the structured content and the text block beside it.
#[derive(Debug)]
pub struct Output {
    /// The structured content's JSON text, which validates against the tool's `outputSchema`:
    /// written once, as text, never held as a `serde_json::Value` tree.
    pub structured: String,
    /// A short paragraph for the model.
    pub text: String,
}

/// `verify_evidence`'s argument names.
pub const EVIDENCE_ARGUMENTS: [&str; 13] = [
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

/// A string argument as a raw output's text: the message's own bytes when it holds no escape.
fn output_text(text: Text) -> RawOutput {
    match text {
        Text::Shared(raw) => RawOutput::Shared(SharedText::new(raw)),
        Text::Owned(text) => RawOutput::Text(text),
    }
}

/// The invocation and policy `verify_evidence`'s arguments describe.
///
/// A `raw_output` given as a JSON string is the output's exact text, read exactly as
/// `raw_output_text` (JSON, else JSON Lines or YAML, else one string): a tool that returns
/// text returns a string, and a database's JSON column is read back as its text, so a quote
/// is looked for in the output the tool gave, never in a string's JSON syntax. Any other
/// `raw_output` value (object, array, number, boolean) is a JSON value, handed to the core as
/// its JSON text, which the core reads as it reads `raw_output_text` holding JSON (the same
/// document, numbers as written): text costs the core a fraction of the memory a parsed tree
/// does. `null` is no raw output, as a column that is NULL.
pub fn evidence_invocation(mut args: Arguments) -> Result<(Invocation, Policy), BadArgument> {
    let mut policy = args.policy()?;
    let raw_output = match (args.take("raw_output"), args.text("raw_output_text")?) {
        (Some(_), Some(_)) => {
            return Err(BadArgument::new("raw_output", "give raw_output or raw_output_text, not both"));
        }
        (Some(value), None) if value.kind() == "a string" => {
            // The output's text, held to the text size limit as raw_output_text is.
            let text = value
                .string()
                .ok_or_else(|| BadArgument::new("raw_output", "a string that is not JSON text"))?;
            Some(output_text(text))
        }
        (Some(value), None) => {
            // A value is not held to the size limit of a text (as a bundle's inline raw_output
            // is not): its text, read as JSON, is the same document a parsed value would be.
            let bytes = policy.limits().get(Limit::OutputSize).max(value.as_str().len());
            policy = policy
                .with_limit(Limit::OutputSize, i128::try_from(bytes).unwrap_or(i128::MAX))
                .map_err(|e| BadArgument::new("raw_output", e))?;
            Some(RawOutput::Shared(SharedText::new(value)))
        }
        (None, Some(text)) => Some(output_text(text)),
        (None, None) => None,
    };
    // retrieval_details replaces the refs. A null one counts as absent beside evidence_refs (a
    // strict model sends every argument, null for those it does not use); given as null alone,
    // it is the column NULL: no claim.
    let retrieval_details = if args.has("retrieval_details") {
        if args.has("evidence_refs") || args.has("evidence_status") {
            return Err(BadArgument::new(
                "retrieval_details",
                "give retrieval_details or evidence_refs (with evidence_status), not both",
            ));
        }
        args.json("retrieval_details")?
    } else if args.given("retrieval_details") && !args.has("evidence_refs") && !args.has("evidence_status") {
        None
    } else {
        let refs =
            match args.take("evidence_refs") {
                Some(refs) if refs.kind() == "an array" => refs,
                Some(other) => {
                    return Err(BadArgument::new(
                        "evidence_refs",
                        format!("must be an array of {{raw_path, text}} objects, not {}", other.kind()),
                    ))
                }
                None => return Err(BadArgument::new(
                    "evidence_refs",
                    "required: the evidence to check, as [{\"raw_path\": \"$.logs[0]\", \"text\": \"...\"}]",
                )),
            };
        let mut details = String::with_capacity(refs.as_str().len() + 64);
        details.push('{');
        if let Some(status) = args.string("evidence_status")? {
            details.push_str("\"evidence_status\":");
            details.push_str(
                &serde_json::to_string(&status).map_err(|e| BadArgument::new("evidence_status", e))?,
            );
            details.push(',');
        }
        details.push_str("\"evidence_refs\":");
        details.push_str(refs.as_str());
        details.push('}');
        Some(groundcheck_core::Json::parse(&details).map_err(|e| BadArgument::new("evidence_refs", e))?)
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

/// `verify_evidence`: the invocation's verdict, and what it means for the model, which is
/// also the verdict's `advice`: frameworks (pydantic-ai, openai-agents with structured content
/// on) hand the model the structured content alone.
pub fn verify_evidence(invocation: Invocation, engine: &Engine) -> Result<Output, BadArgument> {
    // The call already runs on a thread with the engine's stack (`serve_stdio`).
    let verdict = engine.verify_row_where(invocation, true).map_err(|e| BadArgument(e.to_string()))?;
    let text = verdict_text(&verdict, &engine.policy().limits());
    let structured = serde_json::to_string(&verdict).unwrap_or_else(|_| "null".into());
    Ok(Output { structured: with_advice(structured, &text), text })
}

/// The JSON object `object` with one more member, `"advice": advice`, written at its end.
fn with_advice(mut object: String, advice: &str) -> String {
    if object.ends_with('}') {
        object.pop();
        if !object.ends_with('{') {
            object.push(',');
        }
        object.push_str("\"advice\":");
        object.push_str(&serde_json::to_string(advice).unwrap_or_else(|_| "\"\"".into()));
        object.push('}');
    }
    object
}

/// One paragraph: the status, why (each failed ref with its nearest text and where else the
/// quote is, in the core's words, which the OpenTelemetry explanation, the `human` table and the
/// page use), and what to do about a miss. `limits` are those the verdict was made under.
pub fn verdict_text(verdict: &Verdict, limits: &Limits) -> String {
    let mut text = format!("{}. {}.", verdict.status.as_str(), explain::verdict(verdict, limits));
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

/// `resolve_path`'s argument names.
pub const RESOLVE_ARGUMENTS: [&str; 3] = ["document", "document_text", "path"];

/// The document `resolve_path` looks in, as text: `document`'s JSON text (the same document,
/// numbers as written) or `document_text`, read as verification reads a raw output's text —
/// JSON, else (when the path selects nothing in it as one string) its JSON Lines or YAML view.
pub struct Document {
    /// `document` or `document_text`, for a message about it.
    pub field: &'static str,
    /// The text.
    pub text: Text,
}

/// `resolve_path`'s document and path.
pub fn resolve_arguments(mut args: Arguments) -> Result<(Document, String), BadArgument> {
    let path = args
        .string("path")?
        .ok_or_else(|| BadArgument::new("path", "required: a JSONPath or JSON Pointer"))?;
    let doc = match (args.take("document"), args.text("document_text")?) {
        (Some(_), Some(_)) => {
            return Err(BadArgument::new("document", "give document or document_text, not both"))
        }
        (Some(value), None) => Document { field: "document", text: Text::Shared(value) },
        (None, Some(text)) => Document { field: "document_text", text },
        (None, None) => {
            return Err(BadArgument::new("document", "required: the JSON document (or document_text)"))
        }
    };
    Ok((doc, path))
}

/// `resolve_path`: the nodes, as `groundcheck resolve` prints them, under the verification's
/// limits (the default ones): a path that would select more nodes than the node limit, or
/// nodes whose text is longer together than the output size limit, is refused naming the
/// limit, before the nodes are made.
pub fn resolve_path(doc: &Document, path: &str) -> Result<Output, BadArgument> {
    let limits = groundcheck_core::Limits::default();
    let nodes =
        resolve_text_with(path, doc.text.as_str(), &limits).map_err(|e| match (e.limit(), e.kind()) {
            (Some(limit), _) => BadArgument::new(
                "path",
                format!("{:?}: limit_exceeded ({}): {e}", clip(path), limit.as_str()),
            ),
            (None, groundcheck_core::ErrorKind::Path) => {
                BadArgument::new("path", format!("{:?}: {e}", clip(path)))
            }
            (None, _) => BadArgument::new(doc.field, e),
        })?;
    if let Some(deep) = nodes.iter().find(|n| nesting(&n.value) > crate::MAX_MESSAGE_DEPTH) {
        // A client's JSON reader stops at some depth (the MCP Python SDK's, about where ours
        // does) and would drop the whole answer: the call would never complete.
        return Err(BadArgument::new(
            "path",
            format!(
                "selects {} which is nested too deep to return as structured content (more than {} \
                 levels); select a node further down",
                clip(&deep.path),
                crate::MAX_MESSAGE_DEPTH
            ),
        ));
    }
    let mut structured = String::from("{\"nodes\":[");
    for (i, node) in nodes.iter().enumerate() {
        if i > 0 {
            structured.push(',');
        }
        structured.push_str("{\"path\":");
        structured.push_str(&serde_json::to_string(&node.path).unwrap_or_default());
        structured.push_str(",\"value\":");
        structured.push_str(&node.value);
        if node.descended {
            structured.push_str(",\"descended\":true");
        }
        if let Some(read_as) = node.read_as {
            structured.push_str(",\"read_as\":\"");
            structured.push_str(read_as.as_str());
            structured.push('"');
        }
        structured.push('}');
    }
    structured.push_str("]}");
    let text = match nodes.len() {
        0 => format!("The path {} selects nothing in the document.", clip(path)),
        n => {
            let shown: Vec<String> =
                nodes.iter().take(5).map(|n| format!("{} = {}", n.path, clip(&n.value))).collect();
            let more = if n > 5 { format!("; and {} more", n - 5) } else { String::new() };
            format!("The path selects {n} node{}: {}{more}.", if n == 1 { "" } else { "s" }, shown.join("; "))
        }
    };
    Ok(Output { structured, text })
}

/// The deepest nesting of arrays and objects in the JSON text `text` (0 for a scalar).
fn nesting(text: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for &b in text.as_bytes() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// `verify_run`: the report's structured content and its summary for the model, which is also
/// the report's `advice`.
pub fn report_output(report: &Report, limits: &Limits) -> Output {
    let structured = serde_json::to_string(report).unwrap_or_else(|_| "null".into());
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
                explain::verdict(v, limits)
            ));
        }
        lines.push(line);
    }
    let text = lines.join(" ");
    Output { structured: with_advice(structured, &text), text }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raw::RawText;
    use serde_json::{json, Value};

    fn call(args: Value) -> Result<Output, BadArgument> {
        let Value::Object(map) = args else { panic!("an object") };
        let (inv, policy) = evidence_invocation(Arguments::new(Some(map), &EVIDENCE_ARGUMENTS)?)?;
        verify_evidence(inv, &Engine::new(policy, None, None))
    }

    fn structured(out: &Output) -> Value {
        serde_json::from_str(&out.structured).unwrap()
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
        let verdict = structured(&out);
        assert_eq!(verdict["status"], "unsupported");
        assert_eq!(verdict["refs"][0]["outcome"], "text_not_found");
        assert!(verdict["refs"][0]["nearest"]["text"].is_string(), "{}", out.structured);
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
        let verdict = structured(&out);
        assert_eq!(verdict["status"], "supported", "{}", out.structured);
        assert_eq!(verdict["refs"][0]["match"], "exact");
    }

    #[test]
    fn a_string_raw_output_is_the_outputs_text() {
        // The quote begins with `"`: in a JSON string value's syntax it would be found at `$`.
        let output = r#"{"reason": "OOMKilled", "exit_code": 137}"#;
        let refs = json!([{"raw_path": "$", "text": "\"OOMKilled"}]);
        let as_string = structured(&call(json!({"raw_output": output, "evidence_refs": refs})).unwrap());
        let as_text = structured(&call(json!({"raw_output_text": output, "evidence_refs": refs})).unwrap());
        assert_eq!(as_string, as_text);
        assert_eq!(as_string["status"], "unsupported", "{as_string}");
        let refs = json!([{"raw_path": "$.exit_code", "text": "137"}]);
        let found = structured(&call(json!({"raw_output": output, "evidence_refs": refs})).unwrap());
        assert_eq!(found["status"], "supported", "{found}");
    }

    /// A call as a strict model makes it: every property present, null for the unused ones.
    fn strict(given: Value) -> Value {
        let mut all = serde_json::Map::new();
        for name in EVIDENCE_ARGUMENTS {
            all.insert(name.into(), Value::Null);
        }
        let Value::Object(given) = given else { panic!("an object") };
        all.extend(given);
        Value::Object(all)
    }

    fn without_advice(mut verdict: Value) -> Value {
        verdict.as_object_mut().unwrap().remove("advice");
        verdict
    }

    #[test]
    fn a_strict_call_with_nulls_gets_the_verdict_of_the_call_without_them() {
        let output = r#"{"logs": [{"message": "dial tcp 10.0.0.7:5432: connection refused"}]}"#;
        let refs = json!([{"raw_path": "$.logs[0].message", "text": "connection refused"}]);
        let plain = call(json!({"raw_output_text": output, "evidence_refs": refs})).unwrap();
        let strict_refs = strict(json!({"raw_output_text": output, "evidence_refs": refs}));
        assert_eq!(structured(&call(strict_refs).unwrap()), structured(&plain));
        assert_eq!(structured(&plain)["status"], "supported");
        // The column's text instead of the refs: evidence_refs and evidence_status null.
        let details = json!({"evidence_status": "supported", "evidence_refs": refs}).to_string();
        let strict_details = strict(json!({"raw_output_text": output, "retrieval_details": details}));
        assert_eq!(structured(&call(strict_details).unwrap())["claim_agrees"], true);
        // Given as null alone, retrieval_details is the column NULL (no claim), as before.
        let null_column =
            structured(&call(json!({"raw_output_text": output, "retrieval_details": null})).unwrap());
        assert_eq!((&null_column["status"], &null_column["refs"]), (&json!("no_evidence"), &json!([])));
        assert_eq!(structured(&call(strict(json!({"raw_output_text": output}))).unwrap()), null_column);
    }

    #[test]
    fn the_advice_is_the_text_and_a_member_of_the_structured_verdict() {
        let out = call(json!({
            "raw_output_text": r#"{"logs": [{"message": "connection refused"}]}"#,
            "evidence_refs": [{"raw_path": "$.logs[1].message", "text": "Connection refused"}]
        }))
        .unwrap();
        let verdict = structured(&out);
        assert_eq!(verdict["advice"], out.text.as_str());
        assert!(out.text.contains("cite that path instead"), "{}", out.text);
        // Beside the advice, the structured verdict is the report's invocation object.
        let report =
            serde_json::to_value(groundcheck_core::Verifier::new(Policy::default()).verify(&Invocation {
                id: 1,
                tool_name: "tool".into(),
                retrieval_details: Some(groundcheck_core::Json::parse(r#"{"evidence_refs": []}"#).unwrap()),
                ..Invocation::default()
            }))
            .unwrap();
        assert_eq!(without_advice(structured(&call(json!({"evidence_refs": []})).unwrap())), report);
        assert_eq!(with_advice("{}".into(), "a \"b\""), r#"{"advice":"a \"b\""}"#);
    }

    /// The paragraph is the core's explanation: an invalid path says why (the path parser's
    /// message and column), a limit names the flag and its value.
    #[test]
    fn the_text_says_why_a_path_is_invalid_and_which_flag_a_limit_is() {
        let out = call(json!({
            "raw_output_text": r#"{"logs": ["connection refused"]}"#,
            "evidence_refs": [
                {"raw_path": "$.logs[?@ ==", "text": "connection refused"},
                {"raw_path": format!("$.{}", "a".repeat(5000)), "text": "connection refused"}
            ]
        }))
        .unwrap();
        let verdict = structured(&out);
        let error = &verdict["refs"][0]["path_error"];
        assert_eq!(verdict["refs"][0]["outcome"], "invalid_path", "{}", out.structured);
        assert!(out.text.contains(error["message"].as_str().unwrap()), "{}", out.text);
        assert!(out.text.contains(&format!("at character {}", error["column"])), "{}", out.text);
        assert_eq!(verdict["refs"][1]["limit"], "path_length", "{}", out.structured);
        assert!(out.text.contains("--max-path-chars 4096"), "{}", out.text);
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
        let text = |t: &str| Text::Shared(RawText::owned(t.into()));
        let doc = Document { field: "document", text: text(r#"{"a": [1, 2.50]}"#) };
        let out = resolve_path(&doc, "$.a[*]").unwrap();
        assert_eq!(
            out.structured,
            r#"{"nodes":[{"path":"$['a'][0]","value":1},{"path":"$['a'][1]","value":2.50}]}"#
        );
        assert_eq!((nesting("1"), nesting(r#"[{"a":"]]]["}, [[]]]"#)), (0, 3));
        let e = resolve_path(&doc, "$[").unwrap_err().0;
        assert!(e.starts_with("path: \"$[\": "), "{e}");
        let logs = Document {
            field: "document_text",
            text: text("{\"msg\":\"a\"}\n{\"msg\":\"connection refused\"}\n"),
        };
        assert_eq!(
            resolve_path(&logs, "$[1].msg").unwrap().structured,
            r#"{"nodes":[{"path":"$[1]['msg']","value":"connection refused","read_as":"json_lines"}]}"#
        );
    }
}
