//! The sentences that explain a verdict to a person, shared by every format that shows one
//! (the `human` table, the HTML page), so they say the same thing in the same words.

use std::path::Path;

use groundcheck_core::{Limit, Limits, ReadAs, RefOutcome, Warning};

/// Under a `nearest` of score 1.000: every character of the quote is in the leaf, so only
/// the rule that a match never splits a number, or a stricter `--match`, kept it out.
pub const ALL_THERE: &str = "all of it is there, but only by splitting a number or on a looser --match";

/// What a failed ref with neither a near miss nor the text elsewhere says. `elsewhere`
/// searches the whole output up to the policy's loosest rung; a near miss is looked for only
/// under the path, which for `path_not_found` selects nothing.
pub fn nothing_close(outcome: RefOutcome) -> &'static str {
    match outcome {
        RefOutcome::PathNotFound => "the text is nowhere in the output (probably invented)",
        _ => concat!(
            "nothing under the path comes close, and the text is nowhere else in the output ",
            "(probably invented)"
        ),
    }
}

/// Which limit a `limit_exceeded` ref hit, and the flag (with the value it had) that would
/// let the ref be checked.
pub fn limit(limit: Limit, limits: &Limits) -> String {
    match limit {
        Limit::OutputSize => format!(
            "the raw output is longer than --max-output-bytes {} bytes (limit output_size)",
            limits.max_output_bytes
        ),
        Limit::Depth => format!(
            "the document nests deeper than --max-depth {} (limit depth; a JSONPath query never runs past {} levels)",
            limits.max_depth,
            Limits::QUERY_DEPTH_CEILING
        ),
        Limit::TextLength => {
            format!("the text is longer than --max-text-chars {} characters (limit text_length)", limits.max_text_chars)
        }
        Limit::PathLength => format!(
            "the raw_path is longer than --max-path-chars {} characters, or nests deeper than a path may (limit path_length)",
            limits.max_path_chars
        ),
        Limit::Nodes => format!("the path selects more than --max-nodes {} nodes (limit nodes)", limits.max_nodes),
        Limit::Refs => format!("only the first --max-refs {} refs are read (limit refs)", limits.max_refs),
    }
}

/// Where a row's raw-output lookup went, for a warning about it: `not found at PATH` and the
/// like, so that a wrong template shows itself on the first row. `None` for other warnings,
/// or when no path was made (an unsafe value).
pub fn lookup(w: Warning, tried: Option<&Path>) -> Option<String> {
    let tried = tried?.display();
    match w {
        Warning::RawOutputMissing => Some(format!("not found at {tried}")),
        Warning::RawOutputUnreadable => Some(format!("{tried} is no regular file that can be read")),
        Warning::RawOutputPathUnsafe => {
            Some(format!("{tried} leads outside the template's folder (a link, or a hard link)"))
        }
        _ => None,
    }
}

/// What a warning means.
pub fn warning(w: Warning) -> &'static str {
    match w {
        Warning::InvalidUtf8 => {
            "a text column or raw-output file was not valid UTF-8 and was read with U+FFFD replacements"
        }
        Warning::RawOutputPathUnsafe => {
            "the --raw-outputs path could leave the template's folder (a value it needs, a link on the way, or a file with more than one hard link without --allow-hard-links), so no file was read"
        }
        Warning::RawOutputMissing => "the --raw-outputs file does not exist",
        Warning::RawOutputUnreadable => "the --raw-outputs file could not be read",
        Warning::MarkerWithRefs => "no-evidence markers beside real refs were ignored",
        Warning::ReadAsJsonLines => {
            "the output is not JSON; a path selected nothing in it as text and was run on it read as JSON Lines (one value a line)"
        }
        Warning::ReadAsYaml => {
            "the output is not JSON; a path selected nothing in it as text and was run on it read as YAML (every scalar a string as written)"
        }
        Warning::DescendedIntoString => {
            "a path selected nothing as written and was run on the JSON inside its strings"
        }
    }
}

/// How a text that is not JSON was read, for people: `YAML`, `JSON Lines`.
pub fn read_as(read_as: ReadAs) -> &'static str {
    match read_as {
        ReadAs::JsonLines => "JSON Lines",
        ReadAs::Yaml => "YAML",
    }
}
