//! The node budget of a JSONPath query, decided before serde_json_path builds a node list.
//!
//! serde_json_path evaluates a query segment by segment, each segment's node list built in
//! full. RFC 9535 lets a union repeat a selector, so `$[*,*][*,*]…` doubles the list with each
//! segment (and a second `..` repeats every node once per ancestor): a short path could ask
//! for billions of nodes, inside a filter's query too. So before a query runs, its
//! [`Plan`] (the path's segments and selectors, read off its text) bounds how often a node
//! can repeat in any list: `m × D^p`, `m` the product of the union sizes and `D^p` the
//! document's depth for each `..` after the first. Every list of a query then holds at most
//! `nodes × m × D^p` entries, `nodes` the document's node count.
//!
//! - A filter's own queries (`@…`, `$…`) must fit the budget by that bound: they run inside
//!   serde_json_path, once per candidate node.
//! - The path itself, when the bound does not fit, is counted exactly first ([`count`]): one
//!   entry per distinct node with its number of repeats, never the repeated list, one segment
//!   at a time, each selector run by serde_json_path on one node. A filter that refers to the
//!   root (`$`) cannot run on one node alone, so it counts as selecting every child there: an
//!   upper bound.
//!
//! The budget ([`Budget`]) is [`FACTOR`] times the larger of the node limit and the
//! document's node count: a query whose lists fit it runs as before; one that selects more
//! than the node limit, or whose lists would pass the budget, is refused with the node limit
//! before any list is built past it.

use std::collections::HashMap;

use serde_json::Value;
use serde_json_path::JsonPath;

/// How many times the larger of the node limit and the document's node count a query's node
/// lists may hold, counting repeats.
pub(crate) const FACTOR: u64 = 8;

/// A query's segments, as [`Plan::read`] found them in the path's text.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// The path's own segments, each selector ready to run on one node.
    segments: Vec<Segment>,
    /// The path's repeat bound.
    top: Repeats,
    /// The largest repeat bound of any query inside a filter, at any depth.
    filters: Repeats,
}

/// The repeat bound `m × D^p` of a query's node lists (see the module's docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Repeats {
    /// The product of the union sizes (saturating).
    unions: u64,
    /// How many descendant segments run on a list that may hold a node and its descendant.
    nested_descents: u32,
}

impl Repeats {
    const ONE: Repeats = Repeats { unions: 1, nested_descents: 0 };

    /// The bound for a document `depth` deep.
    fn at(self, depth: u64) -> u64 {
        self.unions.saturating_mul(depth.max(1).saturating_pow(self.nested_descents))
    }

    fn max(self, other: Repeats) -> Repeats {
        // Neither dominates in general: keep the larger of each (still an upper bound).
        Repeats {
            unions: self.unions.max(other.unions),
            nested_descents: self.nested_descents.max(other.nested_descents),
        }
    }

    /// Whether the bound is at most [`FACTOR`] whatever the document: no count needed.
    fn small(self) -> bool {
        self.nested_descents == 0 && self.unions <= FACTOR
    }
}

/// One segment of the path, each selector compiled to run alone on one node.
#[derive(Debug, Clone)]
struct Segment {
    selectors: Vec<Selector>,
}

#[derive(Debug, Clone)]
struct Selector {
    /// `$[sel]`, or `$..[sel]` in a descendant segment: what the selector selects from the
    /// node it runs on, that node being its root. Compiled only when a count needs it.
    alone: String,
    /// A filter that refers to the root: on any node but the root, it counts as `[*]`.
    refers_to_root: bool,
}

/// A segment as written: whether it is a descendant segment, and its selectors.
#[derive(Debug)]
struct SegmentText<'p> {
    descendant: bool,
    selectors: Vec<SelectorText<'p>>,
}

#[derive(Debug, Clone, Copy)]
enum SelectorText<'p> {
    Wildcard,
    /// A member-name shorthand (`.name`): letters, digits, `_`, non-ASCII; no quote.
    Shorthand(&'p str),
    /// One selector of a bracketed segment, as written, without surrounding blanks.
    Bracketed(&'p str),
}

impl SelectorText<'_> {
    fn bracketed(&self) -> String {
        match self {
            SelectorText::Wildcard => "[*]".to_string(),
            SelectorText::Shorthand(name) => format!("['{name}']"),
            SelectorText::Bracketed(text) => format!("[{text}]"),
        }
    }

    /// The filter expression, for a filter selector.
    fn filter(&self) -> Option<&str> {
        match self {
            SelectorText::Bracketed(text) => text.strip_prefix('?'),
            _ => None,
        }
    }
}

impl Plan {
    /// The plan of `path`, a text serde_json_path parsed as a JSONPath query; `None` when its
    /// segments cannot be read (no valid path is known to give `None`: a test reads every
    /// valid query of the JSONPath Compliance Test Suite).
    pub(crate) fn read(path: &str) -> Option<Plan> {
        if !path.starts_with('$') {
            return None;
        }
        let (texts, end) = segments(path, 0)?;
        if !path[end..].bytes().all(blank) {
            return None;
        }
        let mut filters = Repeats::default();
        let mut segments = Vec::with_capacity(texts.len());
        for text in &texts {
            let mut selectors = Vec::with_capacity(text.selectors.len());
            for selector in &text.selectors {
                let mut root_ref = false;
                if let Some(expression) = selector.filter() {
                    let (repeats, refers_to_root) = filter_repeats(expression)?;
                    filters = filters.max(repeats);
                    root_ref = refers_to_root;
                }
                let prefix = if text.descendant { "$.." } else { "$" };
                selectors.push(Selector {
                    alone: format!("{prefix}{}", selector.bracketed()),
                    refers_to_root: root_ref,
                });
            }
            segments.push(Segment { selectors });
        }
        Some(Plan { segments, top: repeats(&texts), filters })
    }
}

/// Why a query may not run: it selects, or would pass through, more nodes than allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OverBudget;

/// Runs `path` (whose plan is `plan`) on `root`: its nodes, or [`OverBudget`] when it selects
/// more than `max_nodes` nodes or one of its node lists (or a filter's) would pass the
/// budget. No list longer than the budget is ever built.
pub(crate) fn query<'v>(
    path: &JsonPath,
    plan: Option<&Plan>,
    root: &'v Value,
    max_nodes: usize,
) -> Result<Vec<&'v Value>, OverBudget> {
    let plan = plan.ok_or(OverBudget)?;
    if !(plan.top.small() && plan.filters.small()) {
        let (nodes, depth) = size_of(root);
        let budget = FACTOR.saturating_mul((max_nodes as u64).max(nodes));
        if plan.filters.at(depth).saturating_mul(nodes) > budget {
            return Err(OverBudget);
        }
        if plan.top.at(depth).saturating_mul(nodes) > budget {
            match count(plan, root, budget)? {
                0 => return Ok(Vec::new()),
                n if n > max_nodes as u64 => return Err(OverBudget),
                _ => {}
            }
        }
    }
    let nodes = path.query(root).all();
    if nodes.len() > max_nodes {
        return Err(OverBudget);
    }
    Ok(nodes)
}

/// How many nodes (counting repeats) the plan's path selects in `root`, or [`OverBudget`] as
/// soon as one segment's list would hold more than `budget`: lists are kept as distinct
/// nodes with their repeats, each no longer than the document.
pub(crate) fn count(plan: &Plan, root: &Value, budget: u64) -> Result<u64, OverBudget> {
    let compile = |text: &str| JsonPath::parse(text).map_err(|_| OverBudget);
    let mut compiled = Vec::with_capacity(plan.segments.len());
    for segment in &plan.segments {
        let mut selectors = Vec::with_capacity(segment.selectors.len());
        for selector in &segment.selectors {
            let every = if selector.alone.starts_with("$..") { "$..[*]" } else { "$[*]" };
            let bound = if selector.refers_to_root { Some(compile(every)?) } else { None };
            selectors.push((compile(&selector.alone)?, bound));
        }
        compiled.push(selectors);
    }
    let mut list: Vec<(&Value, u64)> = vec![(root, 1)];
    for selectors in &compiled {
        let mut next: Vec<(&Value, u64)> = Vec::new();
        let mut at: HashMap<*const Value, usize> = HashMap::new();
        let mut total = 0u64;
        for &(node, repeats) in &list {
            for (exact, bound) in selectors {
                let query = match bound {
                    Some(bound) if !std::ptr::eq(node, root) => bound,
                    _ => exact,
                };
                for selected in query.query(node).all() {
                    total = total.saturating_add(repeats);
                    if total > budget {
                        return Err(OverBudget);
                    }
                    match at.entry(selected as *const Value) {
                        std::collections::hash_map::Entry::Occupied(slot) => {
                            let entry = &mut next[*slot.get()].1;
                            *entry = entry.saturating_add(repeats);
                        }
                        std::collections::hash_map::Entry::Vacant(slot) => {
                            slot.insert(next.len());
                            next.push((selected, repeats));
                        }
                    }
                }
            }
        }
        if next.is_empty() {
            return Ok(0);
        }
        list = next;
    }
    Ok(list.iter().fold(0u64, |sum, &(_, n)| sum.saturating_add(n)))
}

/// The number of nodes of `root`'s tree (containers included) and its depth (a scalar root
/// is 1, like an empty container), walked without recursion.
fn size_of(root: &Value) -> (u64, u64) {
    let (mut nodes, mut deepest) = (0u64, 1u64);
    let mut stack = vec![(root, 1u64)];
    while let Some((value, depth)) = stack.pop() {
        nodes += 1;
        deepest = deepest.max(depth);
        match value {
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, depth + 1))),
            Value::Object(members) => stack.extend(members.values().map(|v| (v, depth + 1))),
            _ => {}
        }
    }
    (nodes, deepest)
}

/// The repeat bound of a query of these segments.
fn repeats(segments: &[SegmentText<'_>]) -> Repeats {
    let mut bound = Repeats::ONE;
    let mut nested = false;
    for segment in segments {
        bound.unions = bound.unions.saturating_mul(segment.selectors.len() as u64);
        if segment.descendant {
            if nested {
                bound.nested_descents = bound.nested_descents.saturating_add(1);
            }
            nested = true;
        }
    }
    bound
}

/// The largest repeat bound of the queries in a filter expression (nested filters
/// included), and whether one of them starts at the root (`$`); `None` when a query's
/// segments cannot be read.
fn filter_repeats(expression: &str) -> Option<(Repeats, bool)> {
    let bytes = expression.as_bytes();
    let (mut bound, mut root) = (Repeats::ONE, false);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\'' | b'"' => i = skip_string(bytes, i),
            b'@' | b'$' => {
                root |= bytes[i] == b'$';
                let (texts, end) = segments(expression, i)?;
                bound = bound.max(repeats(&texts));
                for text in &texts {
                    for selector in &text.selectors {
                        if let Some(inner) = selector.filter() {
                            let (inner_bound, inner_root) = filter_repeats(inner)?;
                            bound = bound.max(inner_bound);
                            root |= inner_root;
                        }
                    }
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    Some((bound, root))
}

fn blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The offset just past the string literal opening at `start`.
fn skip_string(bytes: &[u8], start: usize) -> usize {
    let quote = bytes[start];
    let mut i = start + 1;
    while i < bytes.len() && bytes[i] != quote {
        i += if bytes[i] == b'\\' { 2 } else { 1 };
    }
    (i + 1).min(bytes.len())
}

/// The segments of the query whose identifier (`$` or `@`) is at `start` of `text`, and the
/// offset where the query ends (before any blank space after its last segment).
fn segments(text: &str, start: usize) -> Option<(Vec<SegmentText<'_>>, usize)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut end = start + 1;
    loop {
        let mut i = end;
        while i < bytes.len() && blank(bytes[i]) {
            i += 1;
        }
        let descendant = text[i..].starts_with("..");
        let after_dots = if descendant {
            i + 2
        } else if bytes.get(i) == Some(&b'.') {
            i + 1
        } else if bytes.get(i) == Some(&b'[') {
            i
        } else {
            return Some((found, end));
        };
        let (selectors, next) = match bytes.get(after_dots) {
            Some(b'[') if descendant || after_dots == i => bracketed(text, after_dots)?,
            Some(b'*') => (vec![SelectorText::Wildcard], after_dots + 1),
            _ => {
                let name_end = shorthand_end(text, after_dots);
                if name_end == after_dots {
                    return None;
                }
                (vec![SelectorText::Shorthand(&text[after_dots..name_end])], name_end)
            }
        };
        found.push(SegmentText { descendant, selectors });
        end = next;
    }
}

/// The end of the member-name shorthand starting at `start` (`start` itself when none).
fn shorthand_end(text: &str, start: usize) -> usize {
    let mut end = start;
    for (k, c) in text[start..].char_indices() {
        let first = c.is_ascii_alphabetic() || c == '_' || c as u32 >= 0x80;
        if !(first || (k > 0 && c.is_ascii_digit())) {
            break;
        }
        end = start + k + c.len_utf8();
    }
    end
}

/// The selectors of the bracketed segment opening at `open`, and the offset past its `]`.
fn bracketed(text: &str, open: usize) -> Option<(Vec<SelectorText<'_>>, usize)> {
    let bytes = text.as_bytes();
    let mut selectors = Vec::new();
    let (mut depth, mut from, mut i) = (0usize, open + 1, open + 1);
    let piece = |from: usize, to: usize| {
        let piece = text[from..to].trim_matches(|c: char| c.is_ascii() && blank(c as u8));
        (!piece.is_empty()).then_some(piece)
    };
    while i < bytes.len() {
        match bytes[i] {
            b'\'' | b'"' => {
                i = skip_string(bytes, i);
                continue;
            }
            b'[' | b'(' => depth += 1,
            b')' => depth = depth.checked_sub(1)?,
            b']' if depth > 0 => depth -= 1,
            b']' => {
                selectors.push(SelectorText::Bracketed(piece(from, i)?));
                return Some((selectors, i + 1));
            }
            b',' if depth == 0 => {
                selectors.push(SelectorText::Bracketed(piece(from, i)?));
                from = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(path: &str) -> Vec<(bool, Vec<String>)> {
        let (segments, end) = segments(path, 0).unwrap();
        assert_eq!(end, path.trim_end().len(), "{path}");
        segments
            .into_iter()
            .map(|s| (s.descendant, s.selectors.iter().map(SelectorText::bracketed).collect()))
            .collect()
    }

    #[test]
    fn segments_and_selectors_are_read_off_the_text() {
        assert_eq!(texts("$"), []);
        assert_eq!(
            texts("$.a..b[0, 'x,]y' ,?@[1] == $[\"]\"]] ..*[*].日志"),
            [
                (false, vec!["['a']".to_string()]),
                (true, vec!["['b']".to_string()]),
                (false, vec!["[0]".into(), "['x,]y']".into(), "[?@[1] == $[\"]\"]]".into()]),
                (true, vec!["[*]".to_string()]),
                (false, vec!["[*]".to_string()]),
                (false, vec!["['日志']".to_string()]),
            ]
        );
        assert_eq!(texts("$..[?match(@.a, 'x(')]"), [(true, vec!["[?match(@.a, 'x(')]".to_string()])]);
    }

    #[test]
    fn repeat_bounds_count_unions_and_nested_descents() {
        let plan = |p: &str| Plan::read(p).unwrap();
        assert_eq!(plan("$.a[*]..b").top, Repeats::ONE);
        assert_eq!(plan("$[*,*][0,1,2]").top, Repeats { unions: 6, nested_descents: 0 });
        assert_eq!(plan("$..a..b..c").top, Repeats { unions: 1, nested_descents: 2 });
        assert_eq!(plan("$[?@[*,*][*,*]]").filters, Repeats { unions: 4, nested_descents: 0 });
        assert_eq!(plan("$[?@[?@..a..b]]").filters, Repeats { unions: 1, nested_descents: 1 });
        assert!(plan("$[?@.a == $.b]").segments[0].selectors[0].refers_to_root);
        assert!(!plan("$[?@.a == '$']").segments[0].selectors[0].refers_to_root);
    }

    /// The doubling path of the issue: `$[*,*]` 22 times on a 22-deep nested array selects
    /// 2^22 nodes; one more segment doubles that. It is refused before any list is built.
    #[test]
    fn the_doubling_path_is_refused_before_it_is_built() {
        let doc: Value = serde_json::from_str(&format!("{}1{}", "[".repeat(22), "]".repeat(22))).unwrap();
        for n in [22, 40, 1000] {
            let path = format!("${}", "[*,*]".repeat(n));
            let compiled = JsonPath::parse(&path).unwrap();
            let plan = Plan::read(&path);
            assert!(plan.is_some());
            assert_eq!(query(&compiled, plan.as_ref(), &doc, 100_000), Err(OverBudget), "{n}");
        }
        // Within the limit the same path runs as before, repeats and all.
        let path = "$[*,*][*,*]";
        let nodes = query(&JsonPath::parse(path).unwrap(), Plan::read(path).as_ref(), &doc, 100_000).unwrap();
        assert_eq!(nodes.len(), 4);
        // A filter's own query doubles the same way, once per candidate node.
        let path = format!("$[?@{}]", "[*,*]".repeat(30));
        let plan = Plan::read(&path);
        assert_eq!(query(&JsonPath::parse(&path).unwrap(), plan.as_ref(), &doc, 100_000), Err(OverBudget));
    }

    /// The count with repeats is exact: it equals the length of serde_json_path's list, on
    /// random paths over random documents (filters that refer to the root give an upper
    /// bound).
    #[test]
    fn the_count_is_exact_and_the_bound_holds_on_random_paths() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let selectors = ["*", "0", "1", "-1", "'a'", "'b'", "0:2", "::-1", "?@.a", "?@[0]", "?@ == $[0]"];
        let mut checked = 0;
        for _ in 0..3_000 {
            let doc = random_doc(&mut next, 4);
            let mut path = String::from("$");
            for _ in 0..1 + next(5) {
                path.push_str(if next(3) == 0 { ".." } else { "" });
                let union: Vec<&str> =
                    (0..1 + next(3)).map(|_| selectors[next(selectors.len() as u64) as usize]).collect();
                path.push_str(&format!("[{}]", union.join(",")));
            }
            let compiled = JsonPath::parse(&path).unwrap();
            let plan = Plan::read(&path).unwrap_or_else(|| panic!("{path}"));
            let truth = compiled.query(&doc).all().len() as u64;
            let counted = count(&plan, &doc, u64::MAX).unwrap();
            if path.contains('$') && path[1..].contains('$') {
                assert!(counted >= truth, "{path} on {doc}: {counted} < {truth}");
            } else {
                assert_eq!(counted, truth, "{path} on {doc}");
            }
            let (nodes, depth) = size_of(&doc);
            assert!(plan.top.at(depth) * nodes >= truth, "{path} on {doc}");
            checked += 1;
        }
        assert_eq!(checked, 3_000);
    }

    fn random_doc(next: &mut impl FnMut(u64) -> u64, depth: u32) -> Value {
        match next(if depth == 0 { 2 } else { 5 }) {
            0 => Value::from(next(3)),
            1 => Value::from("a"),
            2 | 3 => Value::Array((0..next(4)).map(|_| random_doc(next, depth - 1)).collect()),
            _ => Value::Object(
                (0..next(3))
                    .map(|k| (["a", "b", "c"][k as usize].to_string(), random_doc(next, depth - 1)))
                    .collect(),
            ),
        }
    }
}
