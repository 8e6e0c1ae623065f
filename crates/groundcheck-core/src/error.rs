//! The crate's one error type: every failure a caller can meet (a text that is not JSON, a
//! path that is not a path, a bundle file that breaks the format, a name or a score that is
//! not one) is an [`Error`] with an [`ErrorKind`], a message and, where there is one, a place.
//!
//! Problems inside a well-formed row are never errors: they are verdicts.

use std::fmt;

/// Why an operation of this crate failed: its [`kind`](Error::kind), what is wrong
/// ([`message`](Error::message)) and where ([`position`](Error::position) in a text,
/// [`place`](Error::place) inside a bundle file).
///
/// One type for the whole crate, so a binding maps each [`ErrorKind`] to one exception class
/// and reads the place the same way whatever failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    position: Option<Position>,
    place: Option<String>,
    invocation: Option<usize>,
    field: Option<Box<str>>,
}

/// What kind of failure an [`Error`] is. New kinds may come in minor versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A text is not JSON (RFC 8259, strictly): [`Json::parse`](crate::Json::parse).
    Json,
    /// A bundle file is not JSON, or breaks the bundle format: [`Bundle::parse`](crate::Bundle::parse).
    Bundle,
    /// A path is neither RFC 9535 JSONPath nor an RFC 6901 JSON Pointer.
    Path,
    /// A path may be valid JSONPath but is not run, because it passes a limit
    /// ([`Limits::FILTER_NESTING_CEILING`](crate::Limits::FILTER_NESTING_CEILING),
    /// [`Limits::PAREN_NESTING_CEILING`](crate::Limits::PAREN_NESTING_CEILING)): verification
    /// gives such a ref `limit_exceeded`, not `invalid_path`.
    PathLimit,
    /// [`resolve`](crate::resolve) would run a JSONPath query on a document nested deeper
    /// than [`Limits::QUERY_DEPTH_CEILING`](crate::Limits::QUERY_DEPTH_CEILING), or on an
    /// expanded or structured view nested deeper than the depth limit.
    TooDeep,
    /// [`resolve_with`](crate::resolve_with) stopped at this limit of its
    /// [`Limits`](crate::Limits): the path selects more than `max_nodes` nodes (or would
    /// pass through more on its way, or a YAML view's aliases add more), the text or the
    /// selected nodes are longer than `max_output_bytes`, or the path is longer than
    /// `max_path_chars`. The message names the limit and its value; [`Error::limit`] tells
    /// the limit of every limit error, this kind's and those of `TooDeep` and `PathLimit`.
    Limit(crate::Limit),
    /// An `id` seen twice in one run ([`RunSet::push`](crate::RunSet::push),
    /// [`VerdictSet::push`](crate::VerdictSet::push)).
    DuplicateId,
    /// A text that is not one of an enum's names (a stored `status` written by a future
    /// engine version, a misspelt `--match`).
    UnknownName,
    /// A text that is not a [`Score`](crate::Score), or a fuzzy threshold of 0.
    Score,
    /// A limit set below 1 ([`Limits::set`](crate::Limits::set)); the message names the
    /// setting (`max_depth: must be at least 1, not 0`).
    LimitSetting,
    /// A row's column holds a value it cannot
    /// ([`Invocation::set`](crate::Invocation::set)): a wrong type, an integer past the
    /// column's bounds, a required column missing. [`Error::field`] names the column.
    Row,
}

impl ErrorKind {
    /// The kind's one spelling, for the doors that name it (Java's `Kind` is this in upper
    /// case, Python's exception classes are one per name): `json`, `bundle`, `path`,
    /// `path_limit`, `too_deep`, `over_limit` (every [`ErrorKind::Limit`]), `duplicate_id`,
    /// `unknown_name`, `score`, `limit`, `row`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Json => "json",
            ErrorKind::Bundle => "bundle",
            ErrorKind::Path => "path",
            ErrorKind::PathLimit => "path_limit",
            ErrorKind::TooDeep => "too_deep",
            ErrorKind::Limit(_) => "over_limit",
            ErrorKind::DuplicateId => "duplicate_id",
            ErrorKind::UnknownName => "unknown_name",
            ErrorKind::Score => "score",
            ErrorKind::LimitSetting => "limit",
            ErrorKind::Row => "row",
        }
    }

    /// One kind of each spelling (the [`ErrorKind::Limit`] of `nodes`), for doors that list
    /// their classes from the core and tests that check every kind has one.
    pub const ALL: [ErrorKind; 11] = [
        ErrorKind::Json,
        ErrorKind::Bundle,
        ErrorKind::Path,
        ErrorKind::PathLimit,
        ErrorKind::TooDeep,
        ErrorKind::Limit(crate::Limit::Nodes),
        ErrorKind::DuplicateId,
        ErrorKind::UnknownName,
        ErrorKind::Score,
        ErrorKind::LimitSetting,
        ErrorKind::Row,
    ];
}

/// Where in a text an error is: a byte offset, and the 1-based line and column (in
/// characters) of the same place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    /// Byte offset of the offending character (the text's length when it ends too early).
    pub offset: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters (Unicode scalar values).
    pub column: usize,
}

impl Error {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// What is wrong, without the place: `unexpected end of input`, `required integer is
    /// missing`.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Where in the text the problem is, when the error is about a text: a JSON text (and a
    /// bundle file that is not JSON), or a path (line 1; the column counts the path's
    /// characters).
    pub fn position(&self) -> Option<Position> {
        self.position
    }

    /// Where the problem is, when it is not a position in a text: a JSON location inside a
    /// bundle file such as `$.invocations[2].id` (a bundle that is JSON but breaks the
    /// format), or the policy setting given a bad value (`min_score`, `max_depth`).
    pub fn place(&self) -> Option<&str> {
        self.place.as_deref()
    }

    /// Which invocation the error is about, counted from 0 in the order the caller gave them:
    /// the bundle's `invocations[i]`, or the `i`-th invocation pushed into a
    /// [`RunSet`](crate::RunSet) or [`VerdictSet`](crate::VerdictSet) (an `id` seen twice). A
    /// binding names the row from it without reading [`place`](Error::place)'s text.
    pub fn invocation(&self) -> Option<usize> {
        self.invocation
    }

    /// Which column of that invocation the error is about (`id`, `output_length`,
    /// `raw_output`), when it is about one column; `None` for the row as a whole (not an
    /// object, `raw_output` and `raw_output_text` both given).
    pub fn field(&self) -> Option<&str> {
        self.field.as_deref()
    }

    /// This error, said to be about invocation `index` (and its column `field`, when the
    /// error does not name one already): a reader of rows that are not a bundle (a binding's
    /// rows, a database's) tells which row it was reading.
    pub fn in_invocation(mut self, index: usize, field: Option<&str>) -> Error {
        self.invocation = Some(index);
        if self.field.is_none() {
            self.field = field.map(Into::into);
        }
        self
    }

    /// Which limit stopped the operation, when one did: the limit of
    /// [`ErrorKind::Limit`], `Depth` for [`ErrorKind::TooDeep`] and `PathLength` for
    /// [`ErrorKind::PathLimit`]; `None` for every other kind. A binding reports it by its
    /// report name ([`Limit::as_str`](crate::Limit::as_str): `nodes`, `depth`, …).
    pub fn limit(&self) -> Option<crate::Limit> {
        match self.kind {
            ErrorKind::Limit(limit) => Some(limit),
            ErrorKind::TooDeep => Some(crate::Limit::Depth),
            ErrorKind::PathLimit => Some(crate::Limit::PathLength),
            _ => None,
        }
    }

    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error { kind, message: message.into(), position: None, place: None, invocation: None, field: None }
    }

    /// A bundle that is JSON but breaks the format at `place`.
    pub(crate) fn bundle(place: impl Into<String>, message: impl Into<String>) -> Error {
        Error { place: Some(place.into()), ..Error::new(ErrorKind::Bundle, message) }
    }

    /// A row that cannot be read ([`ErrorKind::Row`]), about its column `field` if there is
    /// one: for readers of rows outside this crate (a binding's rows as JSON text or host
    /// values), so that a bad row is one kind of error whoever read it.
    pub fn row(field: Option<&str>, message: impl Into<String>) -> Error {
        Error { field: field.map(Into::into), ..Error::new(ErrorKind::Row, message) }
    }

    /// This error, about the column `field` of whichever row its reader was reading.
    pub(crate) fn with_field(mut self, field: &str) -> Error {
        self.field = Some(field.into());
        self
    }

    /// A policy setting (`min_score`, `max_depth`) given a value it cannot have: the setting
    /// is the error's place and field, so it reads `max_depth: must be at least 1, not 0`
    /// and a door with its own way of naming the setting (a command-line flag) takes the
    /// message alone.
    pub(crate) fn setting(kind: ErrorKind, setting: &str, message: impl Into<String>) -> Error {
        Error { place: Some(setting.to_string()), field: Some(setting.into()), ..Error::new(kind, message) }
    }

    /// An invocation of a bundle that breaks the format: at `$.invocations[index]`, and at
    /// its member `field` when there is one.
    pub(crate) fn in_bundle(index: usize, field: Option<&str>, message: impl Into<String>) -> Error {
        let place = match field {
            Some(field) => format!("$.invocations[{index}].{field}"),
            None => format!("$.invocations[{index}]"),
        };
        Error::bundle(place, message).in_invocation(index, field)
    }

    /// An error of `kind` at `position` of a text.
    pub(crate) fn at(kind: ErrorKind, message: impl Into<String>, position: Position) -> Error {
        Error { position: Some(position), ..Error::new(kind, message) }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.kind, &self.place, &self.position) {
            (_, Some(place), _) => write!(f, "{place}: {}", self.message),
            (ErrorKind::Path | ErrorKind::PathLimit, None, Some(at)) => {
                write!(f, "invalid path at character {}: {}", at.column, self.message)
            }
            (_, None, Some(at)) => write!(f, "line {}, column {}: {}", at.line, at.column, self.message),
            (_, None, None) => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_send_sync_and_static() {
        fn check<E: std::error::Error + Send + Sync + 'static>() {}
        check::<Error>();
    }

    #[test]
    fn every_kind_has_its_own_spelling() {
        let names: std::collections::HashSet<&str> = ErrorKind::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(names.len(), ErrorKind::ALL.len());
        assert!(names.iter().all(|n| n.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')), "{names:?}");
    }

    #[test]
    fn each_kind_says_where() {
        let json = crate::Json::parse("{\n  \"a\": tru }").unwrap_err();
        assert_eq!(json.kind(), ErrorKind::Json);
        assert_eq!(json.position(), Some(Position { offset: 9, line: 2, column: 8 }));
        assert_eq!(json.message(), "unexpected character 't'");
        assert_eq!(json.to_string(), "line 2, column 8: unexpected character 't'");

        let bundle = crate::Bundle::parse(r#"{"invocations": [{"id": "7"}]}"#).unwrap_err();
        assert_eq!(
            (bundle.kind(), bundle.place(), bundle.position()),
            (ErrorKind::Bundle, Some("$.invocations[0].id"), None)
        );
        let syntax = crate::Bundle::parse("{\n,").unwrap_err();
        assert_eq!(syntax.kind(), ErrorKind::Bundle);
        assert_eq!(syntax.position(), Some(Position { offset: 2, line: 2, column: 1 }));

        let path = crate::resolve("$.a[", &crate::Json::parse("{}").unwrap()).unwrap_err();
        assert_eq!(path.kind(), ErrorKind::Path);
        assert_eq!(path.position().map(|p| (p.offset, p.line, p.column)), Some((3, 1, 4)));
        assert_eq!(path.to_string(), format!("invalid path at character 4: {}", path.message()));

        let field =
            crate::Bundle::parse(r#"{"invocations": [{"id": 1, "tool_name": "t"}, {"id": 2}]}"#).unwrap_err();
        assert_eq!((field.invocation(), field.field()), (Some(1), Some("tool_name")));
        let whole = crate::Bundle::parse(r#"{"invocations": [[]]}"#).unwrap_err();
        assert_eq!(
            (whole.invocation(), whole.field(), whole.place()),
            (Some(0), None, Some("$.invocations[0]"))
        );
        let mut runs = crate::RunSet::default();
        let row = |id| crate::Invocation { id, tool_name: "t".into(), ..Default::default() };
        runs.push(row(1)).unwrap();
        runs.push(row(2)).unwrap();
        let twice = runs.push(row(1)).unwrap_err();
        assert_eq!(
            (twice.kind(), twice.invocation(), twice.field()),
            (ErrorKind::DuplicateId, Some(2), Some("id"))
        );

        let setting = crate::Limits::default().with(crate::Limit::Depth, 0).unwrap_err();
        assert_eq!((setting.field(), setting.message()), (Some("max_depth"), "must be at least 1, not 0"));

        let name = "fuzzy-ish".parse::<crate::Rung>().unwrap_err();
        assert_eq!((name.kind(), name.position()), (ErrorKind::UnknownName, None));
        assert_eq!("1.5".parse::<crate::Score>().unwrap_err().kind(), ErrorKind::Score);
    }
}
