//! Bundle files (docs/verification.md#bundles): JSON files holding invocations, for
//! `verify`, fixtures and snapshots.
//!
//! Parsing is strict so that a typo never silently hides evidence: unknown keys, wrong column
//! types and both raw-output keys at once are file errors, each pointing at its place.

use crate::columns::{Cell, Column, ColumnType};
use crate::error::{Error, ErrorKind};
use crate::invocation::{Invocation, RawOutput};
use crate::json::{drop_flat, parse_with_depth_limit, write_json_string, Json, Node};

/// A parsed bundle: top-level defaults already applied to every invocation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Bundle {
    /// Default `run_id` of the file.
    pub run_id: Option<String>,
    /// Default `session_id` of the file.
    pub session_id: Option<String>,
    /// Invocations in file order.
    pub invocations: Vec<Invocation>,
}

impl Bundle {
    /// Parses a bundle file's text.
    pub fn parse(text: &str) -> Result<Bundle, Error> {
        let doc = parse_with_depth_limit(text, usize::MAX).map_err(|e| e.into_error(ErrorKind::Bundle))?;
        // The tree is taken apart, not copied: raw outputs are most of a bundle's bytes.
        let members = match doc.into_root() {
            Node::Object(members) => Members(members.into_iter()),
            other => {
                let problem = format!("a bundle must be a JSON object, not {}", other.what());
                drop_flat(other);
                return Err(Error::bundle("$", problem));
            }
        };
        let mut bundle = Bundle::default();
        let mut invocations = None;
        for (key, value) in members {
            match &*key {
                "run_id" => bundle.run_id = string(value, "$.run_id")?,
                "session_id" => bundle.session_id = string(value, "$.session_id")?,
                "invocations" => {
                    invocations = Some(match value {
                        Node::Array(items) => Ok(Items(items.into_iter())),
                        other => {
                            let found = other.what();
                            drop_flat(other);
                            Err(found)
                        }
                    })
                }
                other => {
                    return Err(Error::bundle(
                        format!("$.{other}"),
                        "unknown key (a bundle has only run_id, session_id and invocations)",
                    ))
                }
            }
        }
        let items = match invocations {
            Some(Ok(items)) => items,
            Some(Err(found)) => {
                return Err(Error::bundle(
                    "$.invocations",
                    format!("must be an array of invocations, not {found}"),
                ))
            }
            None => return Err(Error::bundle("$.invocations", "required array is missing")),
        };
        bundle.invocations.reserve(items.0.len());
        for (i, item) in items.enumerate() {
            let mut inv = invocation(item, i)?;
            if inv.run_id.is_none() {
                inv.run_id = bundle.run_id.clone();
            }
            if inv.session_id.is_none() {
                inv.session_id = bundle.session_id.clone();
            }
            bundle.invocations.push(inv);
        }
        Ok(bundle)
    }
}

impl Bundle {
    /// The bundle as a file: every column of every invocation on its own line (null when
    /// absent), values compact, numbers in JSON columns exactly as written. [`Bundle::parse`]
    /// reads it back to an equal bundle.
    pub fn to_json_string(&self) -> String {
        let mut out = String::from("{\n  \"run_id\": ");
        opt_string(&mut out, self.run_id.as_deref());
        out.push_str(",\n  \"session_id\": ");
        opt_string(&mut out, self.session_id.as_deref());
        out.push_str(",\n  \"invocations\": [");
        for (i, inv) in self.invocations.iter().enumerate() {
            out.push_str(if i == 0 { "\n    {" } else { ",\n    {" });
            write_invocation(&mut out, inv);
            out.push_str("\n    }");
        }
        out.push_str(if self.invocations.is_empty() { "]\n}\n" } else { "\n  ]\n}\n" });
        out
    }
}

fn write_invocation(out: &mut String, inv: &Invocation) {
    let mut first = true;
    let mut key = |out: &mut String, name: &str| {
        out.push_str(if first { "\n      \"" } else { ",\n      \"" });
        first = false;
        out.push_str(name);
        out.push_str("\": ");
    };
    let int = |out: &mut String, v: Option<i64>| match v {
        Some(n) => out.push_str(&n.to_string()),
        None => out.push_str("null"),
    };
    let boolean = |out: &mut String, v: Option<bool>| {
        out.push_str(match v {
            Some(true) => "true",
            Some(false) => "false",
            None => "null",
        })
    };
    let json = |out: &mut String, v: Option<&Json>| match v {
        Some(doc) => out.push_str(&doc.to_json_string()),
        None => out.push_str("null"),
    };
    key(out, "id");
    int(out, Some(inv.id));
    key(out, "session_id");
    opt_string(out, inv.session_id.as_deref());
    key(out, "run_id");
    opt_string(out, inv.run_id.as_deref());
    key(out, "step_id");
    int(out, inv.step_id);
    key(out, "tool_name");
    opt_string(out, Some(&inv.tool_name));
    key(out, "input_params");
    json(out, inv.input_params.as_ref());
    key(out, "output_preview");
    opt_string(out, inv.output_preview.as_deref());
    key(out, "output_length");
    int(out, inv.output_length);
    key(out, "retrieval_layer");
    opt_string(out, inv.retrieval_layer.as_deref());
    key(out, "l0_match_count");
    int(out, inv.l0_match_count);
    key(out, "l1_match_count");
    int(out, inv.l1_match_count);
    key(out, "is_truncated");
    boolean(out, inv.is_truncated);
    key(out, "relevance_level");
    opt_string(out, inv.relevance_level.as_deref());
    key(out, "dedup_reason");
    opt_string(out, inv.dedup_reason.as_deref());
    key(out, "retrieval_details");
    json(out, inv.retrieval_details.as_ref());
    key(out, "duration_ms");
    int(out, inv.duration_ms);
    key(out, "success");
    boolean(out, inv.success);
    key(out, "error_message");
    opt_string(out, inv.error_message.as_deref());
    key(out, "created_at");
    opt_string(out, inv.created_at.as_deref());
    match &inv.raw_output {
        Some(RawOutput::Json(doc)) => {
            key(out, "raw_output");
            json(out, Some(doc));
        }
        Some(raw @ (RawOutput::Text(_) | RawOutput::Shared(_))) => {
            key(out, "raw_output_text");
            opt_string(out, raw.text());
        }
        None => {}
    }
}

fn opt_string(out: &mut String, s: Option<&str>) {
    match s {
        Some(s) => write_json_string(s, out),
        None => out.push_str("null"),
    }
}

/// A container's members, taken by value. Those left when it is dropped (an early return on
/// an error) are dropped without recursion: a rejected bundle may hold a 10,000-deep value.
struct Members(std::vec::IntoIter<(Box<str>, Node)>);

impl Iterator for Members {
    type Item = (Box<str>, Node);
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next()
    }
}

impl Drop for Members {
    fn drop(&mut self) {
        self.0.by_ref().for_each(|(_, v)| drop_flat(v));
    }
}

/// An array's items, taken by value; like [`Members`].
struct Items(std::vec::IntoIter<Node>);

impl Iterator for Items {
    type Item = Node;
    fn next(&mut self) -> Option<Node> {
        self.0.next()
    }
}

impl Drop for Items {
    fn drop(&mut self) {
        self.0.by_ref().for_each(drop_flat);
    }
}

fn invocation(node: Node, index: usize) -> Result<Invocation, Error> {
    let place = format!("$.invocations[{index}]");
    let members = match node {
        Node::Object(members) => Members(members.into_iter()),
        other => {
            let problem = format!("an invocation must be a JSON object, not {}", other.what());
            drop_flat(other);
            return Err(Error::in_bundle(index, None, problem));
        }
    };
    let mut inv = Invocation::default();
    let mut raw_text = None;
    // The required columns given a value; a `null` one counts as missing, once all is read.
    let mut given = Vec::with_capacity(2);
    for (key, value) in members {
        let tag = |e: Error| Error::in_bundle(index, Some(&key), e.message());
        match &*key {
            "raw_output" => inv.raw_output = json(value).map(RawOutput::Json),
            "raw_output_text" => {
                raw_text = string(value, &format!("{place}.{key}"))
                    .map_err(|e| e.in_invocation(index, Some(&key)))?
            }
            name => {
                let Some(column) = Column::named(name) else {
                    drop_flat(value);
                    return Err(Error::in_bundle(
                        index,
                        Some(&key),
                        "unknown key (expected a tool_invocation column, raw_output or raw_output_text)",
                    ));
                };
                let cell = cell(value, column).map_err(tag)?;
                if column.required() && cell != Cell::Null {
                    given.push(column);
                }
                if cell != Cell::Null || !column.required() {
                    inv.set(column, cell).map_err(tag)?;
                }
            }
        }
    }
    if let Some(text) = raw_text {
        if inv.raw_output.is_some() {
            return Err(Error::in_bundle(
                index,
                None,
                "raw_output and raw_output_text are both given; keep one",
            ));
        }
        inv.raw_output = Some(RawOutput::Text(text));
    }
    for column in Column::ALL.into_iter().filter(|c| c.required() && !given.contains(c)) {
        inv.set(column, Cell::Null).map_err(|e| Error::in_bundle(index, Some(column.name()), e.message()))?;
    }
    Ok(inv)
}

/// `node` as a value of `column`, or the error for a value it cannot hold. Numbers are
/// read from their text, so one past i64 is named as written.
fn cell(node: Node, column: Column) -> Result<Cell, Error> {
    let cell = match (column.ty(), node) {
        (_, Node::Null) => Cell::Null,
        (ColumnType::Json, node) => Cell::Json(Json::from_node(node)),
        (ColumnType::Bigint | ColumnType::Int, Node::Number(text)) => {
            Cell::Integer(column.integer_text(&text)?)
        }
        (ColumnType::Text, Node::String(s)) => Cell::Text(s.into_string()),
        (ColumnType::Boolean, Node::Bool(b)) => Cell::Bool(b),
        (_, other) => {
            let found = other.what();
            drop_flat(other);
            return Err(column.wrong_type(found));
        }
    };
    Ok(cell)
}

/// The error for a value of the wrong type at `at`: what is needed, then what was found.
fn not(found: Node, at: &str, needed: &str) -> Error {
    let problem = format!("{needed}, not {}", found.what());
    drop_flat(found);
    Error::bundle(at, problem)
}

fn json(node: Node) -> Option<Json> {
    (!matches!(node, Node::Null)).then(|| Json::from_node(node))
}

fn string(node: Node, at: &str) -> Result<Option<String>, Error> {
    match node {
        Node::Null => Ok(None),
        Node::String(s) => Ok(Some(s.into_string())),
        other => Err(not(other, at, "must be a string or null")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        Bundle::parse(text).unwrap_err().to_string()
    }

    #[test]
    fn rejected_deep_values_are_dropped_without_recursion() {
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        let texts = [
            format!(r#"{{"invocations":[{{"id":1,"tool_name":{deep}}}]}}"#),
            format!(r#"{{"invocations":[{{"input_params":{deep},"id":"x","tool_name":"t"}}]}}"#),
            format!(r#"{{"invocations":[{{"id":1,"tool_name":"t","bad":1,"raw_output":{deep}}}]}}"#),
            format!(r#"{{"invocations":{deep}}}"#),
            format!(r#"{{"invocations":[{{"id":1}},{deep}],"x":1}}"#),
            format!(r#"{{"run_id":{deep}}}"#),
            deep.clone(),
        ];
        for text in texts {
            let result = std::thread::Builder::new()
                .stack_size(128 * 1024)
                .spawn(move || Bundle::parse(&text).map(|_| ()))
                .unwrap()
                .join()
                .expect("no stack overflow");
            assert!(result.is_err());
        }
    }

    #[test]
    fn defaults_apply_to_absent_or_null_columns() {
        let b = Bundle::parse(
            r#"{"run_id":"r","session_id":"s","invocations":[
                {"id":1,"tool_name":"t"},{"id":2,"tool_name":"t","run_id":null,"session_id":"own"},
                {"id":3,"tool_name":"t","run_id":"other"}]}"#,
        )
        .unwrap();
        let ids: Vec<_> =
            b.invocations.iter().map(|i| (i.run_id.as_deref(), i.session_id.as_deref())).collect();
        assert_eq!(ids, [(Some("r"), Some("s")), (Some("r"), Some("own")), (Some("other"), Some("s"))]);
    }

    #[test]
    fn raw_output_forms() {
        let b = Bundle::parse(
            r#"{"invocations":[{"id":1,"tool_name":"t","raw_output":{"v":1.50}},
                {"id":2,"tool_name":"t","raw_output_text":"plain"},
                {"id":3,"tool_name":"t","raw_output":null,"raw_output_text":null}]}"#,
        )
        .unwrap();
        assert_eq!(b.invocations[0].raw_output, Some(RawOutput::Json(Json::parse(r#"{"v":1.50}"#).unwrap())));
        assert_eq!(b.invocations[1].raw_output, Some(RawOutput::Text("plain".into())));
        assert_eq!(b.invocations[2].raw_output, None);
    }

    #[test]
    fn written_bundles_read_back_equal() {
        let text = r#"{"run_id":"r","session_id":"s","invocations":[
            {"id":1,"tool_name":"t","input_params":{"q":"up{job=\"x\"}","n":1.50},"retrieval_details":"{\"a\":1}",
             "raw_output":{"v":[1e3,"引用"]},"is_truncated":false,"created_at":"2026-11-30T10:00:01Z"},
            {"id":2,"tool_name":"t","run_id":"other","raw_output_text":"plain\ntext","output_length":-1}]}"#;
        let bundle = Bundle::parse(text).unwrap();
        let written = bundle.to_json_string();
        assert_eq!(Bundle::parse(&written).unwrap(), bundle);
        assert!(written.contains("\"n\":1.50"), "{written}");
        assert!(written.contains("\n      \"raw_output_text\": \"plain\\ntext\""), "{written}");
        let empty = Bundle::default().to_json_string();
        assert_eq!(Bundle::parse(&empty).unwrap(), Bundle::default());
    }

    #[test]
    fn problems_name_their_place() {
        assert_eq!(err("{\n\"invocations\": [}"), "line 2, column 17: unexpected character '}'");
        assert_eq!(err("[]"), "$: a bundle must be a JSON object, not an array");
        assert_eq!(
            err(r#"{"invocations":{}}"#),
            "$.invocations: must be an array of invocations, not an object"
        );
        assert_eq!(
            err(r#"{"invocations":null}"#),
            "$.invocations: must be an array of invocations, not null"
        );
        assert_eq!(
            err(r#"{"invocations":[7]}"#),
            "$.invocations[0]: an invocation must be a JSON object, not a number"
        );
        assert_eq!(
            err(r#"{"run_id":1,"invocations":[]}"#),
            "$.run_id: must be a string or null, not a number"
        );
        assert_eq!(
            err(r#"{"invocations":[],"extra":1}"#),
            "$.extra: unknown key (a bundle has only run_id, session_id and invocations)"
        );
        assert_eq!(err(r#"{"run_id":"r"}"#), "$.invocations: required array is missing");
        assert_eq!(
            err(r#"{"invocations":[{"id":1,"tool_name":"t","raw_ouput":{}}]}"#),
            "$.invocations[0].raw_ouput: unknown key (expected a tool_invocation column, raw_output or raw_output_text)"
        );
        assert_eq!(
            err(r#"{"invocations":[{"tool_name":"t"}]}"#),
            "$.invocations[0].id: required integer is missing"
        );
        assert_eq!(
            err(r#"{"invocations":[{"id":"1","tool_name":"t"}]}"#),
            "$.invocations[0].id: must be an integer within BIGINT (i64) or null, not a string"
        );
        assert_eq!(
            err(r#"{"invocations":[{"id":9223372036854775808,"tool_name":"t"}]}"#),
            "$.invocations[0].id: 9223372036854775808 is not an integer within BIGINT (i64)"
        );
        assert_eq!(
            err(r#"{"invocations":[{"id":1.0,"tool_name":"t"}]}"#),
            "$.invocations[0].id: 1.0 is not an integer within BIGINT (i64)"
        );
        assert_eq!(
            err(r#"{"invocations":[{"id":1}]}"#),
            "$.invocations[0].tool_name: required string is missing"
        );
        assert_eq!(
            err(r#"{"invocations":[{"id":1,"tool_name":"t","output_length":3000000000}]}"#),
            "$.invocations[0].output_length: 3000000000 is not an integer within INT (i32)"
        );
        assert_eq!(
            err(r#"{"invocations":[{"id":1,"tool_name":"t","is_truncated":"no"}]}"#),
            "$.invocations[0].is_truncated: must be true, false or null, not a string"
        );
        assert_eq!(
            err(r#"{"invocations":[{"id":1,"tool_name":"t","raw_output":1,"raw_output_text":"1"}]}"#),
            "$.invocations[0]: raw_output and raw_output_text are both given; keep one"
        );
        assert_eq!(
            err(r#"{"invocations":[{"id":1,"tool_name":"t","raw_output":["\ud800"]}]}"#),
            "line 1, column 56: lone surrogate escape"
        );
    }
}
