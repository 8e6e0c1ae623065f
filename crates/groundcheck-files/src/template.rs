//! `--raw-outputs TEMPLATE`: where a row's raw output file is, e.g.
//! `/var/lib/agent/sessions/{session_id}/tools/{id}.json`.
//!
//! Placeholders are `{id}`, `{session_id}`, `{run_id}`, `{step_id}` and `{tool_name}`; `{{`
//! and `}}` are literal braces. A value that could leave the template's folders (null, empty,
//! `.` or `..`, or holding `/`, `\` or NUL) names no file at all.
//!
//! A template's **root** is the folder before its first placeholder
//! (`/var/lib/agent/sessions` above; `.` when a placeholder comes first; the file's folder when
//! there is none): a row's file is only ever opened beneath it (`beneath.rs`).

use std::path::{Path, PathBuf};

use groundcheck_core::Invocation;
use thiserror::Error;

/// A template that cannot be used, pointing at the offending character.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("character {position}: {message}")]
pub struct TemplateError {
    /// 1-based character position in the template.
    pub position: usize,
    /// What is wrong there.
    pub message: String,
}

/// A row value a template can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Id,
    SessionId,
    RunId,
    StepId,
    ToolName,
}

impl Field {
    const ALL: [(&'static str, Field); 5] = [
        ("id", Field::Id),
        ("session_id", Field::SessionId),
        ("run_id", Field::RunId),
        ("step_id", Field::StepId),
        ("tool_name", Field::ToolName),
    ];

    fn value(self, inv: &Invocation) -> Option<String> {
        match self {
            Field::Id => Some(inv.id.to_string()),
            Field::SessionId => inv.session_id.clone(),
            Field::RunId => inv.run_id.clone(),
            Field::StepId => inv.step_id.map(|s| s.to_string()),
            Field::ToolName => Some(inv.tool_name.clone()),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Field(Field),
}

/// A parsed `--raw-outputs` template.
///
/// A file with more than one hard link is refused (`raw_output_path_unsafe`) unless
/// [`Template::allow_hard_links`] says otherwise: a hard link cannot be told from the file it
/// links to, so whoever may create one in the session folders could put any file of the same
/// filesystem that they cannot read themselves (`/etc/shadow` on a root filesystem) on the
/// report. Parsing gives the safe default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    text: String,
    root: PathBuf,
    /// What follows the root: the path beneath it, placeholders and all.
    pieces: Vec<Piece>,
    /// Whether a regular file with more than one link may be read.
    hard_links: bool,
}

/// Where a template puts one row's file: its root, and the path beneath the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePath<'t> {
    /// The folder the file must stay beneath.
    pub root: &'t Path,
    /// The path below the root, never absolute.
    pub below: PathBuf,
    /// Whether a regular file with more than one link may be read (see [`Template`]).
    pub allow_hard_links: bool,
}

impl FilePath<'_> {
    /// The whole path, as a person would look for the file.
    pub fn full(&self) -> PathBuf {
        self.root.join(&self.below)
    }
}

impl std::str::FromStr for Template {
    type Err = TemplateError;

    fn from_str(template: &str) -> Result<Template, TemplateError> {
        let mut pieces = Vec::new();
        let mut text = String::new();
        let mut chars = template.char_indices().enumerate().peekable();
        while let Some((position, (at, c))) = chars.next() {
            let error = |message: String| TemplateError { position: position + 1, message };
            match c {
                '{' if chars.peek().is_some_and(|(_, (_, next))| *next == '{') => {
                    chars.next();
                    text.push('{');
                }
                '}' if chars.peek().is_some_and(|(_, (_, next))| *next == '}') => {
                    chars.next();
                    text.push('}');
                }
                '}' => return Err(error("a lone `}` (write `}}` for a literal brace)".into())),
                '{' => {
                    let rest = &template[at + 1..];
                    let Some(end) = rest.find('}') else {
                        return Err(error(
                            "a `{` that is never closed (write `{{` for a literal brace)".into(),
                        ));
                    };
                    let name = &rest[..end];
                    let Some((_, field)) = Field::ALL.iter().find(|(n, _)| *n == name) else {
                        let expected: Vec<String> =
                            Field::ALL.iter().map(|(n, _)| format!("{{{n}}}")).collect();
                        return Err(error(format!(
                            "unknown placeholder `{{{name}}}` (expected one of {})",
                            expected.join(", ")
                        )));
                    };
                    for _ in 0..name.chars().count() + 1 {
                        chars.next();
                    }
                    if !text.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut text)));
                    }
                    pieces.push(Piece::Field(*field));
                }
                c => text.push(c),
            }
        }
        if !text.is_empty() {
            pieces.push(Piece::Text(text));
        }
        let root = split_root(&mut pieces);
        Ok(Template { text: template.to_string(), root, pieces, hard_links: false })
    }
}

/// Takes the root off the front of `pieces`: the leading text up to its last `/`.
fn split_root(pieces: &mut Vec<Piece>) -> PathBuf {
    let Some(Piece::Text(lead)) = pieces.first_mut() else { return PathBuf::from(".") };
    let Some(slash) = lead.rfind('/') else { return PathBuf::from(".") };
    let root = if slash == 0 { "/".to_string() } else { lead[..slash].to_string() };
    lead.replace_range(..=slash, "");
    if lead.is_empty() {
        pieces.remove(0);
    }
    PathBuf::from(root)
}

impl Template {
    /// The template as given, e.g. to name a reverify job by it.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The same template, reading files with more than one hard link too when `allow` is
    /// true (the operator's `--allow-hard-links`: every link in the tree is trusted, e.g. made
    /// by the agent's own deduplication). Without it such a file is `raw_output_path_unsafe`.
    #[must_use]
    pub fn allow_hard_links(mut self, allow: bool) -> Template {
        self.hard_links = allow;
        self
    }

    /// Whether files with more than one hard link are read.
    pub fn allows_hard_links(&self) -> bool {
        self.hard_links
    }

    /// The file the template names for `inv`, or `None` when a value it needs could leave
    /// the template's folders.
    pub fn path_for(&self, inv: &Invocation) -> Option<FilePath<'_>> {
        let mut below = String::new();
        for piece in &self.pieces {
            match piece {
                Piece::Text(text) => below.push_str(text),
                Piece::Field(field) => below.push_str(&safe(field.value(inv))?),
            }
        }
        Some(FilePath { root: &self.root, below: PathBuf::from(below), allow_hard_links: self.hard_links })
    }
}

/// A value that stays one path component: not null, empty, `.` or `..`, and no `/`, `\` or NUL.
fn safe(value: Option<String>) -> Option<String> {
    let value = value?;
    let unsafe_value = value.is_empty() || value == "." || value == ".." || value.contains(['/', '\\', '\0']);
    (!unsafe_value).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row() -> Invocation {
        Invocation {
            id: 101,
            session_id: Some("sess-01".into()),
            run_id: Some("run-001".into()),
            step_id: Some(7),
            tool_name: "query_logs".into(),
            ..Invocation::default()
        }
    }

    fn path(template: &str, inv: &Invocation) -> Option<String> {
        template.parse::<Template>().unwrap().path_for(inv).map(|p| p.full().display().to_string())
    }

    fn root_and_below(template: &str) -> (String, String) {
        let template = template.parse::<Template>().unwrap();
        let file = template.path_for(&row()).unwrap();
        (file.root.display().to_string(), file.below.display().to_string())
    }

    #[test]
    fn the_root_is_the_folder_before_the_first_placeholder() {
        let split = |root: &str, below: &str| (root.to_string(), below.to_string());
        assert_eq!(
            root_and_below("/srv/agent/sessions/{session_id}/tools/{id}.json"),
            split("/srv/agent/sessions", "sess-01/tools/101.json")
        );
        assert_eq!(root_and_below("/out/run-{id}.json"), split("/out", "run-101.json"));
        assert_eq!(root_and_below("/{id}.json"), split("/", "101.json"));
        assert_eq!(root_and_below("{session_id}/{id}.json"), split(".", "sess-01/101.json"));
        assert_eq!(root_and_below("out-{id}.json"), split(".", "out-101.json"));
        assert_eq!(root_and_below("a/b/fixed.json"), split("a/b", "fixed.json"));
        assert_eq!(root_and_below("a/{{x}}/{id}"), split("a/{x}", "101"));
    }

    #[test]
    fn every_placeholder_and_literal_braces() {
        assert_eq!(
            path("/s/{session_id}/{run_id}/{step_id}-{tool_name}/{id}.json", &row()).as_deref(),
            Some("/s/sess-01/run-001/7-query_logs/101.json")
        );
        assert_eq!(path("out/{{x}}/{id}}}.json", &row()).as_deref(), Some("out/{x}/101}.json"));
        assert_eq!(path("out/日志/{id}", &row()).as_deref(), Some("out/日志/101"));
    }

    #[test]
    fn unknown_placeholders_and_lone_braces_point_at_their_character() {
        let err = |t: &str| t.parse::<Template>().unwrap_err();
        assert_eq!(err("a/{sesion_id}/b").position, 3);
        assert!(err("a/{sesion_id}/b").message.contains("unknown placeholder `{sesion_id}`"));
        assert_eq!(err("日志/{").position, 4);
        assert_eq!(err("a}b").position, 2);
        assert_eq!(err("{}").position, 1);
    }

    #[test]
    fn values_that_could_leave_the_folder_name_no_file() {
        for session in ["", ".", "..", "../etc", "a/b", "a\\b", "a\0b"] {
            let inv = Invocation { session_id: Some(session.into()), ..row() };
            assert_eq!(path("s/{session_id}/{id}", &inv), None, "{session:?}");
        }
        let inv = Invocation { step_id: None, run_id: None, ..row() };
        assert_eq!(path("s/{step_id}", &inv), None);
        assert_eq!(path("s/{run_id}", &inv), None);
        assert_eq!(path("s/{id}", &inv).as_deref(), Some("s/101"), "unused nulls do not matter");
        // `..` inside a longer name is one component and stays in the folder.
        let inv = Invocation { session_id: Some("a..b".into()), ..row() };
        assert_eq!(path("s/{session_id}", &inv).as_deref(), Some("s/a..b"));
    }
}
