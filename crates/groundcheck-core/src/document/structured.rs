//! The structured view of a raw document that is text but not JSON
//! ([YAML and JSON Lines](../../../docs/verification.md#yaml-and-json-lines)): the text read
//! as JSON Lines, else as YAML, built only when a path selects nothing in the text itself,
//! with its own expanded view on top.

use std::borrow::Cow;

use super::views::{ExpandedView, Expansion, TreeDoc};
use super::OverLimit;
use crate::json::{
    holds_at_most, json_lines_view, parse_with_depth_limit, yaml_view, Json, LinesView, Over, YamlView,
};
use crate::policy::{Limit, Limits, Policy};
use crate::report::ReadAs;

/// What reading a text that is not JSON as JSON Lines, then as YAML, gives.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Reading {
    /// The view, and how the text was read.
    View(ReadAs, Json),
    /// The text has a view, but it passes the depth limit, or its aliases add more nodes
    /// than the node limit.
    Over(ReadAs, Over),
    /// Neither: the text is only a string.
    None,
}

/// Reads `text` (not JSON, within the size limit) as JSON Lines, else as YAML.
pub(crate) fn read_structured(text: &str, limits: &Limits) -> Reading {
    match json_lines_view(text, limits.max_depth) {
        LinesView::View(doc) => return Reading::View(ReadAs::JsonLines, doc),
        LinesView::TooDeep => return Reading::Over(ReadAs::JsonLines, Over::Depth),
        LinesView::None => {}
    }
    match yaml_view(text, limits.max_depth, limits.max_nodes) {
        YamlView::View(doc) => Reading::View(ReadAs::Yaml, doc),
        YamlView::Over(over) => Reading::Over(ReadAs::Yaml, over),
        YamlView::None => Reading::None,
    }
}

/// The structured view of `text` when it is not JSON (and within the size and depth limits
/// as a text): `None` when it is JSON, or has no view.
pub(crate) fn structured_of_text(text: &str, policy: &Policy) -> Reading {
    let limits = &policy.limits;
    if text.len() > limits.max_output_bytes {
        return Reading::None;
    }
    match parse_with_depth_limit(text, limits.max_depth) {
        Err(e) if !e.too_deep() => read_structured(text, limits),
        Ok(_) | Err(_) => Reading::None,
    }
}

/// A document's structured view, built on first need.
pub(crate) enum Structured {
    /// Not asked for yet.
    NotBuilt,
    /// The text has none.
    None,
    /// The view passes this limit: every ref that reaches it is `limit_exceeded`.
    Over(ReadAs, Limit),
    /// Built (boxed: most documents never build one).
    Built(Box<StructuredView>),
}

/// A built structured view.
pub(crate) struct StructuredView {
    /// How the text was read.
    pub(crate) read_as: ReadAs,
    /// The view.
    pub(crate) tree: TreeDoc<'static>,
    /// Its expanded view (JSON inside its strings), built on first need.
    expanded: Expansion,
    /// Whether it has at most the node limit's nodes, once counted.
    fits: Option<bool>,
}

impl StructuredView {
    /// Its expanded view; `None` when no string of it holds JSON.
    pub(crate) fn expanded(&mut self, policy: &Policy) -> Result<Option<&mut ExpandedView>, OverLimit> {
        self.expanded.get_of(&self.tree.doc, policy)
    }

    /// Whether the view has at most the node limit's nodes, containers included.
    pub(crate) fn fits(&mut self, policy: &Policy) -> bool {
        let root = self.tree.doc.root();
        *self.fits.get_or_insert_with(|| holds_at_most(root, policy.limits.max_nodes))
    }
}

impl Structured {
    /// The view of `text` (a text that is not JSON), built on first need: `Ok(None)` when it
    /// has none, `Err` with how it was read and the limit when it passes one.
    pub(crate) fn get(
        &mut self,
        text: &str,
        policy: &Policy,
    ) -> Result<Option<&mut StructuredView>, (ReadAs, Limit)> {
        if let Structured::NotBuilt = self {
            *self = match read_structured(text, &policy.limits) {
                Reading::View(read_as, doc) => Structured::Built(Box::new(StructuredView {
                    read_as,
                    tree: TreeDoc::new(Cow::Owned(doc)),
                    expanded: Expansion::NotBuilt,
                    fits: None,
                })),
                Reading::Over(read_as, Over::Depth) => Structured::Over(read_as, Limit::Depth),
                Reading::Over(read_as, Over::Nodes) => Structured::Over(read_as, Limit::Nodes),
                Reading::None => Structured::None,
            };
        }
        match self {
            Structured::Built(view) => Ok(Some(view)),
            Structured::Over(read_as, limit) => Err((*read_as, *limit)),
            Structured::None | Structured::NotBuilt => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_lines_come_before_yaml_and_json_has_no_view() {
        let policy = Policy::default();
        let read = |text| match structured_of_text(text, &policy) {
            Reading::View(read_as, doc) => Some((read_as, doc.to_json_string())),
            Reading::Over(..) | Reading::None => None,
        };
        // `[1]` and `[2]` on two lines are also one YAML document's… nothing: two flow
        // sequences in a row are not YAML. JSON Lines is tried first either way.
        assert_eq!(read("[1]\n[2]\n"), Some((ReadAs::JsonLines, "[[1],[2]]".into())));
        assert_eq!(read("{\"a\": NaN}"), Some((ReadAs::Yaml, r#"{"a":"NaN"}"#.into())));
        assert_eq!(read("{\"a\": 1}"), None, "JSON itself");
        assert_eq!(read("\"a: b\""), None, "a JSON string");
        assert_eq!(read("just text"), None);
    }
}
