//! Reading the agent's claim out of `retrieval_details` (docs/verification.md#the-claim).

use crate::json::{Json, Node};

const MARKERS: [&str; 3] = ["$.no_evidence", "$['no_evidence']", "$[\"no_evidence\"]"];

/// A well-formed evidence ref: an object with a string `raw_path` and a string `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvidenceRef {
    /// The path as given (trimmed only when used).
    pub raw_path: String,
    /// The quoted evidence.
    pub text: String,
}

/// One element of `evidence_refs`, classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ClaimedRef {
    /// A `$.no_evidence` marker, whatever else it holds.
    Marker { raw_path: String, text: Option<String> },
    /// A real ref that can be checked.
    Evidence(EvidenceRef),
    /// A real ref of the wrong shape, and what is wrong with it.
    Malformed { raw_path: Option<String>, text: Option<String>, why: String },
    /// A ref past the refs-per-invocation limit: echoed, never read.
    Unread { raw_path: Option<String>, text: Option<String> },
}

impl ClaimedRef {
    pub(crate) fn is_marker(&self) -> bool {
        matches!(self, ClaimedRef::Marker { .. })
    }

    /// `raw_path` and `text` as given, when they are strings.
    pub(crate) fn echo(&self) -> (Option<String>, Option<String>) {
        match self {
            ClaimedRef::Marker { raw_path, text } => (Some(raw_path.clone()), text.clone()),
            ClaimedRef::Evidence(r) => (Some(r.raw_path.clone()), Some(r.text.clone())),
            ClaimedRef::Malformed { raw_path, text, .. } | ClaimedRef::Unread { raw_path, text } => {
                (raw_path.clone(), text.clone())
            }
        }
    }
}

/// What `retrieval_details` claims.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Claim {
    /// `evidence_status` verbatim, when it is a string.
    pub(crate) claimed_status: Option<String>,
    /// The refs, or what makes the details malformed.
    pub(crate) refs: Result<Vec<ClaimedRef>, String>,
}

/// Reads `retrieval_details`; refs from index `max_refs` on are [`ClaimedRef::Unread`].
pub(crate) fn read_claim(details: Option<&Json>, max_refs: usize) -> Claim {
    let Some(details) = details else {
        return Claim { claimed_status: None, refs: Ok(Vec::new()) };
    };
    match details.root() {
        Node::String(text) => match Json::parse(text) {
            Ok(inner) => from_value(inner.root(), max_refs),
            Err(e) => Claim {
                claimed_status: None,
                refs: Err(format!("retrieval_details is a string that is not JSON ({e})")),
            },
        },
        node => from_value(node, max_refs),
    }
}

fn from_value(node: &Node, max_refs: usize) -> Claim {
    let members = match node {
        Node::Null => return Claim { claimed_status: None, refs: Ok(Vec::new()) },
        Node::Object(_) => node,
        other => {
            let why = format!("retrieval_details is {}, not an object", other.what());
            return Claim { claimed_status: None, refs: Err(why) };
        }
    };
    let claimed_status = string_member(members, "evidence_status");
    let refs = match members.member("evidence_refs") {
        None | Some(Node::Null) => Ok(Vec::new()),
        Some(Node::Array(items)) => Ok(items
            .iter()
            .enumerate()
            .map(|(i, item)| if i < max_refs { classify(item) } else { unread(item) })
            .collect()),
        Some(other) => Err(format!("evidence_refs is {}, not an array", other.what())),
    };
    Claim { claimed_status, refs }
}

fn string_member(node: &Node, name: &str) -> Option<String> {
    match node.member(name) {
        Some(Node::String(s)) => Some(s.to_string()),
        _ => None,
    }
}

fn classify(item: &Node) -> ClaimedRef {
    let raw_path = string_member(item, "raw_path");
    let text = string_member(item, "text");
    match (raw_path, text) {
        (Some(raw_path), text) if MARKERS.contains(&raw_path.trim()) => ClaimedRef::Marker { raw_path, text },
        (Some(raw_path), Some(text)) => ClaimedRef::Evidence(EvidenceRef { raw_path, text }),
        (raw_path, text) => ClaimedRef::Malformed { raw_path, text, why: malformed(item) },
    }
}

/// What is wrong with a ref that is not an object with a string `raw_path` and a string
/// `text`: its shape, a key that looks like one of the two (`rawPath`: did you mean
/// `raw_path`?), or the member that is missing or not a string.
fn malformed(item: &Node) -> String {
    let Node::Object(members) = item else {
        return format!("the ref is {}, not an object with raw_path and text", item.what());
    };
    let squash = |key: &str| {
        key.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect::<String>()
    };
    for (key, _) in members {
        for wanted in ["raw_path", "text"] {
            if &**key != wanted && squash(key) == squash(wanted) && item.member(wanted).is_none() {
                return format!("unknown key {key}; did you mean {wanted}?");
            }
        }
    }
    for wanted in ["raw_path", "text"] {
        match item.member(wanted) {
            None => return format!("{wanted} is missing"),
            Some(Node::String(_)) => {}
            Some(other) => return format!("{wanted} is {}, not a string", other.what()),
        }
    }
    "the ref is not an object with raw_path and text".into()
}

fn unread(item: &Node) -> ClaimedRef {
    ClaimedRef::Unread { raw_path: string_member(item, "raw_path"), text: string_member(item, "text") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(details: &str) -> Claim {
        read_claim(Some(&Json::parse(details).unwrap()), 1000)
    }

    #[test]
    fn absent_null_and_string_null_are_no_claim() {
        let none = Claim { claimed_status: None, refs: Ok(vec![]) };
        assert_eq!(read_claim(None, 1000), none);
        assert_eq!(claim("null"), none);
        assert_eq!(claim(r#"" null ""#), none);
    }

    #[test]
    fn malformed_details_keep_the_claimed_status() {
        assert!(claim(r#""{not json""#)
            .refs
            .unwrap_err()
            .starts_with("retrieval_details is a string that is not JSON"));
        assert_eq!(claim("[1]").refs, Err("retrieval_details is an array, not an object".into()));
        assert_eq!(claim("3").refs, Err("retrieval_details is a number, not an object".into()));
        assert_eq!(claim("true").refs, Err("retrieval_details is a boolean, not an object".into()));
        let c = claim(r#"{"evidence_status":"supported","evidence_refs":{}}"#);
        assert_eq!(
            (c.claimed_status.as_deref(), c.refs),
            (Some("supported"), Err("evidence_refs is an object, not an array".into()))
        );
    }

    #[test]
    fn string_details_are_parsed_as_json_text() {
        let c = claim(r#"" {\"evidence_status\":\"Supported\",\"evidence_refs\":[]} ""#);
        assert_eq!(c.claimed_status.as_deref(), Some("Supported"));
        assert_eq!(c.refs, Ok(vec![]));
    }

    #[test]
    fn non_string_status_is_no_claim() {
        assert_eq!(claim(r#"{"evidence_status":1}"#).claimed_status, None);
    }

    #[test]
    fn refs_are_markers_evidence_or_malformed() {
        let c = claim(
            r#"{"evidence_refs":[{"raw_path":" $['no_evidence'] ","text":5},{"raw_path":"$.a","text":"x"},"s",{"raw_path":"$.a"},{"raw_path":1,"text":"x"},{"rawPath":"$.a","text":"x"}]}"#,
        );
        let refs = c.refs.unwrap();
        assert!(refs[0].is_marker());
        assert_eq!(refs[1], ClaimedRef::Evidence(EvidenceRef { raw_path: "$.a".into(), text: "x".into() }));
        let malformed = |raw_path: Option<&str>, text: Option<&str>, why: &str| ClaimedRef::Malformed {
            raw_path: raw_path.map(Into::into),
            text: text.map(Into::into),
            why: why.into(),
        };
        assert_eq!(
            refs[2],
            malformed(None, None, "the ref is a string, not an object with raw_path and text")
        );
        assert_eq!(refs[3], malformed(Some("$.a"), None, "text is missing"));
        assert_eq!(refs[4], malformed(None, Some("x"), "raw_path is a number, not a string"));
        assert_eq!(refs[5], malformed(None, Some("x"), "unknown key rawPath; did you mean raw_path?"));
    }

    #[test]
    fn refs_past_the_limit_are_unread() {
        let c = read_claim(
            Some(
                &Json::parse(
                    r#"{"evidence_refs":[{"raw_path":"$.no_evidence"},{"raw_path":"$.no_evidence"}]}"#,
                )
                .unwrap(),
            ),
            1,
        );
        let refs = c.refs.unwrap();
        assert!(refs[0].is_marker());
        assert!(matches!(refs[1], ClaimedRef::Unread { .. }));
    }
}
