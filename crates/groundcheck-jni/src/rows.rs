//! Rows from Java — each the JSON text of one `tool_invocation` row, as `Row.toJson()` writes
//! it or as the caller holds it — read as one bundle's invocations, so every rule about a row
//! (required columns, types, raw outputs) is the core's own. Two things are the binding's:
//! a row's text must be exactly one JSON object (so no text can smuggle a second row or a
//! bundle key in beside it), and a JSON column given as a string is that column's text, read
//! as the groundcheck store reads it.

use groundcheck_core::{Bundle, Invocation, Json};

use crate::reply::{Failure, Place};

/// `rows` as invocations, in order.
pub fn invocations(rows: &[String]) -> Result<Vec<Invocation>, Failure> {
    let wrapper = "{\"invocations\":[";
    let mut text = String::with_capacity(rows.iter().map(|r| r.len() + 1).sum::<usize>() + wrapper.len() + 2);
    text.push_str(wrapper);
    // Where each row starts in `text`, to name the row a JSON syntax error is in.
    let mut starts = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        if !one_object(row) {
            return Err(row_failure(
                i,
                "row",
                "a row is one JSON object of tool_invocation columns",
                rows.len(),
            ));
        }
        if i > 0 {
            text.push(',');
        }
        starts.push(text.len());
        text.push_str(row);
    }
    text.push_str("]}");
    let bundle = Bundle::parse(&text).map_err(|e| {
        let place = e.place().unwrap_or("");
        match place.strip_prefix("$.invocations[").and_then(|rest| rest.split_once(']')) {
            Some((index, field)) => {
                let field = field.strip_prefix('.').filter(|f| !f.is_empty()).unwrap_or("row");
                row_failure(index.parse().unwrap_or(0), field, e.message(), rows.len())
            }
            None => {
                let offset = e.position().map_or(0, |p| p.offset);
                let row = starts.iter().rposition(|&start| start <= offset).unwrap_or(0);
                let mut failure = row_failure(row, "row", e.message(), rows.len());
                if e.kind() == groundcheck_core::ErrorKind::DuplicateId {
                    failure.kind = "DUPLICATE_ID";
                }
                failure
            }
        }
    })?;
    let mut invocations = bundle.invocations;
    for inv in &mut invocations {
        column_text(&mut inv.retrieval_details);
        column_text(&mut inv.input_params);
    }
    Ok(invocations)
}

/// A row that cannot be read: `ROW`, naming the field (and the row, when there are several).
fn row_failure(index: usize, field: &str, problem: &str, count: usize) -> Failure {
    let message =
        if count > 1 { format!("row {index}: {field}: {problem}") } else { format!("{field}: {problem}") };
    let at = Place { field: Some(field.to_string()), ..Place::default() };
    Failure { at: Some(Box::new(at)), ..Failure::new("ROW", message) }
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
