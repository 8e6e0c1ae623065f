//! Rows given as JSON text — each the text of one `tool_invocation` row, as Java's
//! `Row.toJson()` writes it or as a caller holds it — read as one bundle's invocations, so
//! every rule about a row (required columns, types, raw outputs) is the core's own. Two things
//! are a row's, not a bundle's:
//! a row's text must be exactly one JSON object (so no text can smuggle a second row or a
//! bundle key in beside it), a JSON column given as a string is that column's text, read
//! as the groundcheck store reads it, and a `raw_output` given as a string is the output's
//! exact text, read exactly as `raw_output_text` (JSON, else JSON Lines or YAML, else one
//! string) — a JDBC driver hands a JSON column back as its text, and a row's JSON holding
//! that text holds it as a string. (In a bundle file a string `raw_output` is a JSON string
//! document; a row is not a bundle.)

use groundcheck_core::{Bundle, Error, Invocation, Json, RawOutput};

/// `rows` as invocations, in order; a row that cannot be read is an
/// [`ErrorKind::Row`](groundcheck_core::ErrorKind::Row) error naming the row
/// ([`Error::invocation`]) and, when the problem is one column's, the column
/// ([`Error::field`]).
pub fn invocations(rows: &[String]) -> Result<Vec<Invocation>, Error> {
    let wrapper = "{\"invocations\":[";
    let mut text = String::with_capacity(rows.iter().map(|r| r.len() + 1).sum::<usize>() + wrapper.len() + 2);
    text.push_str(wrapper);
    // Where each row starts in `text`, to name the row a JSON syntax error is in.
    let mut starts = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        if !one_object(row) {
            return Err(Error::row(None, "a row is one JSON object of tool_invocation columns")
                .in_invocation(i, None));
        }
        if i > 0 {
            text.push(',');
        }
        starts.push(text.len());
        text.push_str(row);
    }
    text.push_str("]}");
    let bundle = Bundle::parse(&text).map_err(|e| {
        let row = e.invocation().unwrap_or_else(|| {
            // A syntax error: the row is the one whose text holds the offending byte.
            let offset = e.position().map_or(0, |p| p.offset);
            starts.iter().rposition(|&start| start <= offset).unwrap_or(0)
        });
        Error::row(e.field(), e.message()).in_invocation(row, None)
    })?;
    let mut invocations = bundle.invocations;
    for (inv, row) in invocations.iter_mut().zip(rows) {
        column_text(&mut inv.retrieval_details);
        column_text(&mut inv.input_params);
        if member_is_string(row, "raw_output") {
            output_text(&mut inv.raw_output);
        }
    }
    Ok(invocations)
}

/// A raw output given as a JSON string: the string is the output's text, as
/// `raw_output_text` is read.
fn output_text(raw: &mut Option<RawOutput>) {
    let Some(RawOutput::Json(doc)) = raw else { return };
    if let Ok(text) = serde_json::from_str::<String>(&doc.to_json_string()) {
        *raw = Some(RawOutput::Text(text));
    }
}

/// Whether the object `text` (one row, already checked by [`one_object`]) has a member `name`
/// whose value is a string (the last such member, as a repeated name is read). Only the
/// object's own members count; a name is compared with its escapes decoded. No tree is built,
/// so a flat array of millions of values costs no copy to be told apart from a string.
fn member_is_string(text: &str, name: &str) -> bool {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut key: Option<(usize, usize)> = None;
    let mut in_value = false;
    let mut found = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'"' {
            let start = i;
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            if depth == 1 {
                if in_value {
                    if key.is_some_and(|k| key_is(text, k, name)) {
                        found = true;
                    }
                    in_value = false;
                } else {
                    key = Some((start, i.min(bytes.len())));
                }
            }
            continue;
        }
        match b {
            b':' if depth == 1 => in_value = true,
            b' ' | b'\t' | b'\n' | b'\r' => {}
            _ => {
                if depth == 1 && in_value {
                    // Any other value: an object, array, number, literal.
                    if key.is_some_and(|k| key_is(text, k, name)) {
                        found = false;
                    }
                    in_value = false;
                }
                match b {
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
        }
        i += 1;
    }
    found
}

/// Whether the quoted key at `at` of `text` is `name`, its escapes decoded.
fn key_is(text: &str, at: (usize, usize), name: &str) -> bool {
    let quoted = text.get(at.0..at.1).unwrap_or("");
    if !quoted.contains('\\') {
        return quoted.len() == name.len() + 2 && &quoted[1..quoted.len() - 1] == name;
    }
    serde_json::from_str::<String>(quoted).is_ok_and(|k| k == name)
}

/// A JSON column given as a string holds the column's text: JSON text is that JSON, other
/// text a string of it, JSON `null` nothing — what the store makes of the same column.
fn column_text(doc: &mut Option<Json>) {
    let Some(given) = doc else { return };
    // A string is depth 1; so are small objects, which the written text then tells apart.
    if given.depth() != 1 {
        return;
    }
    let written = given.to_json_string();
    if !written.starts_with('"') {
        return;
    }
    let Ok(text) = serde_json::from_str::<String>(&written) else { return };
    *doc = Json::from_column(&text);
}

/// Whether `text` is, at most, one JSON object and white space around it: it starts with `{`
/// and the bracket opened there closes at its last character. Strings are skipped, escapes
/// and all; whether the text is JSON at all is the bundle reader's to say.
fn one_object(text: &str) -> bool {
    let bytes = text.trim_matches([' ', '\t', '\n', '\r']).as_bytes();
    if bytes.first() != Some(&b'{') {
        return false;
    }
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i == bytes.len() - 1;
                }
            }
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use groundcheck_core::RawOutput;

    use super::{invocations, member_is_string};

    #[test]
    fn a_string_raw_output_is_text_and_any_other_value_json() {
        let rows = [
            r#"{"id": 1, "tool_name": "q", "raw_output": "{\"reason\": \"OOMKilled\"}"}"#,
            r#"{"id": 2, "tool_name": "q", "raw_output": {"reason": "OOMKilled"}}"#,
            r#"{"id": 3, "tool_name": "q", "raw_output": null}"#,
            r#"{"id": 4, "tool_name": "q", "raw_output": "null"}"#,
            r#"{"id": 5, "tool_name": "q", "raw_output_text": "\"x\""}"#,
        ]
        .map(String::from);
        let read = invocations(&rows).unwrap_or_else(|_| panic!("rows"));
        assert!(matches!(&read[0].raw_output, Some(RawOutput::Text(t)) if t == r#"{"reason": "OOMKilled"}"#));
        assert!(matches!(&read[1].raw_output, Some(RawOutput::Json(_))));
        assert!(read[2].raw_output.is_none());
        assert!(matches!(&read[3].raw_output, Some(RawOutput::Text(t)) if t == "null"));
        assert!(matches!(&read[4].raw_output, Some(RawOutput::Text(t)) if t == "\"x\""));
    }

    #[test]
    fn a_string_member_is_told_from_any_other_value() {
        let yes = [
            r#"{"raw_output": "{\"a\": 1}"}"#,
            r#"{"id": 1, "raw_output" : "x", "tool_name": "q"}"#,
            r#"{"raw\u005foutput": "x"}"#,
            r#"{"raw_output": [1], "raw_output": "x"}"#,
            r#"{"input_params": {"raw_output": 1}, "raw_output": "\"}"}"#,
        ];
        for row in yes {
            assert!(member_is_string(row, "raw_output"), "{row}");
        }
        let no = [
            r#"{"raw_output": {"a": "x"}}"#,
            r#"{"raw_output": ["x"]}"#,
            r#"{"raw_output": 1}"#,
            r#"{"raw_output": null}"#,
            r#"{"raw_output_text": "x"}"#,
            r#"{"input_params": {"raw_output": "x"}}"#,
            r#"{"tool_name": "raw_output", "id": "raw_output"}"#,
            r#"{"raw_output": "x", "raw_output": {}}"#,
        ];
        for row in no {
            assert!(!member_is_string(row, "raw_output"), "{row}");
        }
    }
}
