//! The YAML view of a text (docs/verification.md#yaml-and-json-lines): every scalar a string
//! holding its value as written.
//!
//! `kubectl get -o yaml` and the Kubernetes MCP servers answer in YAML, and an agent cites
//! paths into its structure (`$.status.containerStatuses[0].state`). The view is that
//! structure as our tree, with no type resolution: `exitCode: 137` gives the string `"137"`,
//! `ratio: 0.950` gives `"0.950"`, `ready: true` gives `"true"`, `x: ~` gives `"~"`, so a
//! quote is matched against exactly what the tool printed. Tags are ignored and comments are
//! not leaves; an alias stands for a copy of its anchored node. One document gives its root;
//! several (`---`) give an array of their roots.
//!
//! The parser (saphyr-parser, a pull parser with no recursion of its own) is read event by
//! event, and the tree is built on an explicit stack of open containers: no recursion per
//! nesting level, and a tree dropped half-built is dropped flat. Aliases are expanded by
//! replaying the events of their anchored node, recorded once; the nodes they add are counted
//! (keys add none) and the view is over the node limit past it, so an alias bomb costs at most
//! that many nodes. Events are recorded only from the first anchor on: a text without anchors
//! (nearly every real output) is built in one pass with nothing kept.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser};

use super::{drop_flat, Json, Node};

/// Which limit a YAML view passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Over {
    /// Deeper than the depth limit (the root is depth 1; several documents' wrapper array
    /// counts).
    Depth,
    /// Alias expansions added more nodes than the node limit.
    Nodes,
}

/// What reading a text as YAML gives.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum YamlView {
    /// The view.
    View(Json),
    /// The text is YAML whose (first) root is a mapping or a sequence, but its view passes a
    /// limit.
    Over(Over),
    /// No view: not YAML, a scalar root, a key that is not a scalar, an alias to an undefined
    /// or unfinished node, an escape that yields a surrogate.
    None,
}

/// A container being built.
enum Frame {
    Seq(Vec<Node>),
    Map { members: Vec<(Box<str>, Node)>, index: Option<HashMap<Box<str>, usize>>, key: Option<Box<str>> },
}

/// Past this many members a mapping finds a repeated key through a hash index.
const LINEAR_KEYS: usize = 16;

/// A key that is not a scalar (a mapping or a sequence): the text has no view.
struct NotScalarKey;

impl Frame {
    /// Adds `node` to this container: the next item, a member's key (a scalar only), or that
    /// member's value.
    fn add(&mut self, node: Node) -> Result<(), NotScalarKey> {
        match self {
            Frame::Seq(items) => items.push(node),
            Frame::Map { members, index, key } => match key.take() {
                None => match node {
                    Node::String(text) => *key = Some(text),
                    other => {
                        drop_flat(other);
                        return Err(NotScalarKey);
                    }
                },
                Some(name) => {
                    let at = match index {
                        Some(index) => index.get(&name).copied(),
                        None => members.iter().position(|(k, _)| *k == name),
                    };
                    match at {
                        // A repeated key keeps its last value at its first position.
                        Some(at) => drop_flat(std::mem::replace(&mut members[at].1, node)),
                        None => {
                            if let Some(index) = index {
                                index.insert(name.clone(), members.len());
                            } else if members.len() == LINEAR_KEYS {
                                let mut built: HashMap<Box<str>, usize> =
                                    members.iter().enumerate().map(|(i, (k, _))| (k.clone(), i)).collect();
                                built.insert(name.clone(), members.len());
                                *index = Some(built);
                            }
                            members.push((name, node));
                        }
                    }
                }
            },
        }
        Ok(())
    }

    /// The finished container (a well-formed event stream never ends a mapping between a key
    /// and its value).
    fn into_node(self) -> Node {
        match self {
            Frame::Seq(items) => Node::Array(items),
            Frame::Map { members, .. } => Node::Object(members),
        }
    }
}

/// The containers still open and the documents' roots read so far, dropped flat whatever
/// way the reading ends.
#[derive(Default)]
struct Building {
    frames: Vec<Frame>,
    roots: Vec<Node>,
}

impl Drop for Building {
    fn drop(&mut self) {
        for frame in self.frames.drain(..) {
            drop_flat(frame.into_node());
        }
        drop_flat(Node::Array(std::mem::take(&mut self.roots)));
    }
}

/// Where an anchored node's events are in the recording: from `start`, up to `end` once the
/// node is complete.
#[derive(Clone, Copy)]
struct Anchored {
    start: usize,
    end: Option<usize>,
}

/// Reads `text` as YAML, its view at most `max_depth` deep and with at most `max_nodes` nodes
/// added by alias expansions.
pub(crate) fn yaml_view(text: &str, max_depth: usize, max_nodes: usize) -> YamlView {
    let mut parser = Parser::new_from_str(text);
    // Events from the first anchor on, for aliases to replay; replays are not recorded again.
    let mut recorded: Vec<Event<'_>> = Vec::new();
    let mut recording = false;
    let mut anchors: HashMap<usize, Anchored> = HashMap::new();
    // Open anchored containers: (anchor id, depth of their frame).
    let mut open: Vec<(usize, usize)> = Vec::new();
    // Replays under way: (next event, end) in `recorded`.
    let mut replays: Vec<(usize, usize)> = Vec::new();
    let mut added: usize = 0;
    let mut built = Building::default();
    let mut deepest = 0;
    let mut over: Option<Over> = None;

    loop {
        let replaying = !replays.is_empty();
        let event = if let Some((next, end)) = replays.last_mut() {
            let event = recorded[*next].clone();
            *next += 1;
            if *next == *end {
                replays.pop();
            }
            event
        } else {
            match parser.next_event() {
                None => break,
                Some(Err(_)) => return YamlView::None,
                Some(Ok((event, _))) => event,
            }
        };
        if replaying {
            // Keys add no node; values and containers do.
            let key = matches!(built.frames.last(), Some(Frame::Map { key: None, .. }));
            let adds = match event {
                Event::Scalar(..) => !key,
                Event::SequenceStart(..) | Event::MappingStart(..) => true,
                _ => false,
            };
            added += usize::from(adds);
            if added > max_nodes {
                over.get_or_insert(Over::Nodes);
            }
        } else {
            let anchor = match &event {
                Event::Scalar(_, _, anchor, _)
                | Event::SequenceStart(anchor, _)
                | Event::MappingStart(anchor, _) => *anchor,
                _ => 0,
            };
            if anchor > 0 {
                recording = true;
            }
            if recording {
                let at = recorded.len();
                recorded.push(event.clone());
                if anchor > 0 {
                    let scalar = matches!(event, Event::Scalar(..));
                    anchors.insert(anchor, Anchored { start: at, end: scalar.then_some(at + 1) });
                    if !scalar {
                        open.push((anchor, built.frames.len() + 1));
                    }
                }
            }
        }
        // Once over a limit, only the parse goes on: a later syntax error still means no view.
        if over.is_some() {
            replays.clear();
            match event {
                Event::StreamEnd => break,
                _ => continue,
            }
        }
        let node = match event {
            Event::StreamStart | Event::DocumentStart(_) | Event::DocumentEnd | Event::Nothing => continue,
            Event::StreamEnd => break,
            Event::Alias(id) => {
                let Some(Anchored { start, end: Some(end) }) = anchors.get(&id).copied() else {
                    // An alias to a node not yet complete: a recursive structure.
                    return YamlView::None;
                };
                if start < end {
                    replays.push((start, end));
                }
                continue;
            }
            Event::Scalar(value, ..) => Node::String(value.into_owned().into_boxed_str()),
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                let frame = if matches!(event, Event::SequenceStart(..)) {
                    Frame::Seq(Vec::new())
                } else {
                    Frame::Map { members: Vec::new(), index: None, key: None }
                };
                built.frames.push(frame);
                deepest = deepest.max(built.frames.len());
                if built.frames.len() > max_depth {
                    over = Some(Over::Depth);
                }
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let depth = built.frames.len();
                let Some(frame) = built.frames.pop() else { return YamlView::None };
                if !replaying && open.last().is_some_and(|(_, d)| *d == depth) {
                    if let Some((anchor, _)) = open.pop() {
                        if let Some(anchored) = anchors.get_mut(&anchor) {
                            anchored.end = Some(recorded.len());
                        }
                    }
                }
                frame.into_node()
            }
        };
        match built.frames.last_mut() {
            Some(frame) => {
                if frame.add(node).is_err() {
                    return YamlView::None;
                }
            }
            None => {
                if built.roots.is_empty() && !matches!(node, Node::Array(_) | Node::Object(_)) {
                    return YamlView::None;
                }
                built.roots.push(node);
            }
        }
    }
    if let Some(over) = over {
        return YamlView::Over(over);
    }
    let mut roots = std::mem::take(&mut built.roots);
    match roots.len() {
        0 => YamlView::None,
        1 => YamlView::View(Json { root: roots.pop().unwrap_or(Node::Null), depth: deepest }),
        _ if deepest + 1 > max_depth => {
            drop_flat(Node::Array(roots));
            YamlView::Over(Over::Depth)
        }
        _ => YamlView::View(Json { root: Node::Array(roots), depth: deepest + 1 }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(text: &str) -> Option<String> {
        match yaml_view(text, 512, 100_000) {
            YamlView::View(doc) => Some(doc.to_json_string()),
            YamlView::Over(over) => Some(format!("over {over:?}")),
            YamlView::None => None,
        }
    }

    #[test]
    fn every_scalar_is_a_string_of_its_value_as_written() {
        assert_eq!(
            view("exitCode: 137\nratio: 0.950\nready: true\nx: ~\ny:\nz: null\nq: '0.50'\n").as_deref(),
            Some(r#"{"exitCode":"137","ratio":"0.950","ready":"true","x":"~","y":"","z":"null","q":"0.50"}"#)
        );
        assert_eq!(
            view("k: |\n  line1\n  line2\n# a comment\nf: >\n  a\n  b\ne: \"tab\\there\"\n").as_deref(),
            Some(r#"{"k":"line1\nline2\n","f":"a b\n","e":"tab\there"}"#)
        );
        assert_eq!(
            view("- a\n- !!int 5\n- !tag x\n").as_deref(),
            Some(r#"["a","5","x"]"#),
            "tags are ignored"
        );
        assert_eq!(view("? 1\n: one\n").as_deref(), Some(r#"{"1":"one"}"#), "keys are read the same way");
    }

    #[test]
    fn a_repeated_key_keeps_its_last_value_at_its_first_position() {
        assert_eq!(view("a: 1\nb: 2\na: 3\n").as_deref(), Some(r#"{"a":"3","b":"2"}"#));
        let many: String = (0..40).map(|i| format!("k{i}: {i}\n")).collect::<String>() + "k3: again\n";
        assert!(view(&many).unwrap().contains(r#""k3":"again","k4":"4""#));
    }

    #[test]
    fn aliases_stand_for_copies_of_their_anchored_nodes() {
        assert_eq!(
            view("a: &x [1, {c: 2}]\nb: *x\n").as_deref(),
            Some(r#"{"a":["1",{"c":"2"}],"b":["1",{"c":"2"}]}"#)
        );
        assert_eq!(view("a: &x k\n*x : 3\n").as_deref(), Some(r#"{"a":"k","k":"3"}"#), "an alias as a key");
        assert_eq!(
            view("base: &b {x: 1}\nd: {<<: *b}\n").as_deref(),
            Some(r#"{"base":{"x":"1"},"d":{"<<":{"x":"1"}}}"#)
        );
    }

    #[test]
    fn texts_without_a_view() {
        for text in [
            "just text",
            "NAME    READY   STATUS\npod-1   1/1     Running\n",
            "a: &x [1]\nb: *x\n*x : 3\n",
            "? [a]\n: b\n",
            "&a [*a]\n",
            "a: *nope\n",
            "a: \"\\ud800\"\n",
            "a: [1\n",
            "---\n---\na: 1\n",
            "",
            "# only a comment\n",
            "a: &x 1\nb: [*x]\nc: bad: [\n",
        ] {
            assert_eq!(view(text), None, "{text:?}");
        }
    }

    #[test]
    fn several_documents_are_an_array_and_an_empty_one_is_an_empty_string() {
        assert_eq!(view("a: 1\n---\n---\n- x\n").as_deref(), Some(r#"[{"a":"1"},"",["x"]]"#));
        assert_eq!(view("- 1\n--- two\n").as_deref(), Some(r#"[["1"],"two"]"#));
    }

    #[test]
    fn flow_nesting_past_255_levels_is_a_parse_error() {
        let flow = |n: usize| format!("a: {}{}", "[".repeat(n), "]".repeat(n));
        assert!(matches!(yaml_view(&flow(200), 512, 10), YamlView::View(doc) if doc.depth() == 201));
        assert_eq!(yaml_view(&flow(300), 512, 10), YamlView::None);
    }

    #[test]
    fn depth_and_node_limits() {
        let depth = |text, max| match yaml_view(text, max, 10) {
            YamlView::View(doc) => Ok(doc.depth()),
            other => Err(other),
        };
        assert_eq!(depth("a: [[1]]", 3), Ok(3));
        assert_eq!(depth("a: [[1]]", 2), Err(YamlView::Over(Over::Depth)));
        assert_eq!(depth("a: [1]\n---\nb: 2", 3), Ok(3), "the documents' array counts");
        assert_eq!(depth("a: [1]\n---\nb: 2", 2), Err(YamlView::Over(Over::Depth)));
        let text = "a: &x [1]\nb: *x\nc: *x\n";
        assert!(matches!(yaml_view(text, 10, 4), YamlView::View(_)));
        assert_eq!(yaml_view(text, 10, 3), YamlView::Over(Over::Nodes));
        assert!(matches!(yaml_view("a: &x {k: 1}\nb: *x\n", 10, 2), YamlView::View(_)), "keys add none");
    }
}
