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
//! The budget is [`FACTOR`] times the larger of the node limit and the document's node
//! count: a query whose lists fit it runs as before; one that selects more than the node
//! limit, or whose lists would pass the budget, is refused with the node limit before any
//! list is built past it.
//!
//! Short lists can still cost without bound: serde_json_path runs a filter's queries once
//! per node the filter tests, so `@..x` inside a filter of a `..` segment visits every node
//! below every node (the depth squared on a chain), and each filter nested inside multiplies
//! that by the depth again: `$..[?@..[?@..[?@..b]]]` on a chain 1,000 deep would never end.
//! So the evaluation's work is bounded too, before it runs: the [`work`] model follows
//! serde_json_path's evaluation with lists of distinct nodes and their repeats, every filter
//! keeping every node it tests, and counts a unit for each node a segment enters, visits,
//! tests, selects or copies, plus what comparisons and `match()`/`search()`/`length()` read
//! (and each pattern compiled). A query whose work would pass [`WORK_FACTOR`] times the
//! budget is refused with the node limit, the same refusal. The model's own cost is a few
//! passes over the document per segment of the path (a filter's queries run on all its
//! tested nodes at once), and paths with neither a filter nor a second `..` skip it (their
//! work follows from their lists, or from the document's size and depth).

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
    /// The path as the work model reads it (see [`work`]).
    work: QueryPlan,
    /// What the work model needs to look at: nothing when the path has neither a filter nor
    /// a descendant segment (its work is its lists'), the document's size and depth alone when
    /// it has no filter and one descendant segment, the model otherwise.
    cost: CostClass,
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
        let work = query_plan(&texts)?;
        let has_filter = path_has_filter(&work);
        let descents = work.segments.iter().filter(|s| s.descendant).count();
        let cost = match (has_filter, descents) {
            (false, 0) => CostClass::Lists,
            (false, 1) => CostClass::OneDescent,
            _ => CostClass::Model,
        };
        Some(Plan { segments, top: repeats(&texts), filters, work, cost })
    }
}

/// How much of the document the work check needs (see [`Plan`]'s `cost`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CostClass {
    Lists,
    OneDescent,
    Model,
}

/// Whether any segment of the query has a filter selector.
fn path_has_filter(query: &QueryPlan) -> bool {
    query.segments.iter().any(|s| s.selectors.iter().any(|sel| matches!(sel, SelectorPlan::Filter(_))))
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
    let mut sized = None;
    if plan.cost != CostClass::Lists {
        let (nodes, depth) = *sized.get_or_insert_with(|| size_of(root));
        let budget = work_budget(max_nodes, nodes);
        let fits_statically = plan.cost == CostClass::OneDescent
            && one_descent_bound(plan, nodes, depth).is_some_and(|bound| bound <= budget);
        if !fits_statically {
            work(&plan.work, root, budget)?;
        }
    }
    if !(plan.top.small() && plan.filters.small()) {
        let (nodes, depth) = *sized.get_or_insert_with(|| size_of(root));
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

/// How many work units per node of the node budget ([`FACTOR`] times the larger of the node
/// limit and the document's node count) a query's evaluation may spend: the paths of the
/// fixtures, the JSONPath Compliance Test Suite and the hostile corpus spend at most a
/// twenty-fifth of it (`$..` on a document 1,000 deep), and a unit costs serde_json_path
/// about a node visit.
pub(crate) const WORK_FACTOR: u64 = 16;

/// The string bytes (values and member names) that cost one work unit where serde_json_path
/// compares two values: equal strings are compared a machine word at a time.
const COMPARED_BYTES_PER_UNIT: u64 = 512;

/// The string bytes that cost one work unit where `match()`, `search()` or `length()` reads
/// a string through.
const SCANNED_BYTES_PER_UNIT: u64 = 16;

/// The work units of one `match()` or `search()` call beyond the bytes it reads:
/// serde_json_path compiles the pattern anew on every call, which costs as much as visiting
/// thousands of nodes. Charged at a fraction of that (the commit that set it has the
/// figures), so that a pattern tested on a few thousand strings (the hostile corpus's `item-…` case) still
/// runs while one tested on a hundred thousand does not.
const REGEX_CALL_UNITS: u64 = 2_048;

/// The work budget of a query on a document of `nodes` nodes.
fn work_budget(max_nodes: usize, nodes: u64) -> u64 {
    FACTOR.saturating_mul((max_nodes as u64).max(nodes)).saturating_mul(WORK_FACTOR)
}

/// A query as the work model reads it: its segments, each selector with what the model
/// needs to know of it.
#[derive(Debug, Clone)]
struct QueryPlan {
    segments: Vec<SegmentPlan>,
}

#[derive(Debug, Clone)]
struct SegmentPlan {
    descendant: bool,
    selectors: Vec<SelectorPlan>,
}

#[derive(Debug, Clone)]
enum SelectorPlan {
    Wildcard,
    /// A name, index or slice, as `$[selector]`: run on one node, it selects what the
    /// selector selects among that node's children.
    Plain(String),
    Filter(Box<FilterPlan>),
}

/// What a filter expression costs on one candidate node.
#[derive(Debug, Clone, Default)]
struct FilterPlan {
    /// The expression's queries, each with whether it starts at the root (`$`).
    queries: Vec<(bool, QueryPlan)>,
    /// The comparisons' and functions' own costs.
    costs: Vec<Cost>,
    /// The expression as written, for the tests' reference evaluation only.
    #[cfg(test)]
    text: String,
}

/// A bound on the size (in work units) of a value an expression compares or hands to a
/// function, on a candidate node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Size {
    /// A literal of so many bytes (or a number, a boolean, a function's number: none).
    Literal(u64),
    /// At most the candidate's subtree: what a query from `@` selects.
    Current,
    /// At most the whole document: what a query from `$` selects.
    Root,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Cost {
    /// A comparison: equality stops at the smaller side.
    Min(Size, Size),
    /// `length()`: its argument read through.
    Scan(Size),
    /// `match()`, `search()`: the pattern compiled, both arguments read through.
    Regex(Vec<Size>),
}

/// The work plan of a query of these segments; `None` when a filter expression cannot be
/// read (see [`ExpressionReader`]).
fn query_plan(segments: &[SegmentText<'_>]) -> Option<QueryPlan> {
    let mut plans = Vec::with_capacity(segments.len());
    for segment in segments {
        let mut selectors = Vec::with_capacity(segment.selectors.len());
        for selector in &segment.selectors {
            selectors.push(match selector {
                SelectorText::Wildcard => SelectorPlan::Wildcard,
                SelectorText::Bracketed("*") => SelectorPlan::Wildcard,
                _ => match selector.filter() {
                    Some(expression) => SelectorPlan::Filter(Box::new(filter_plan(expression)?)),
                    None => SelectorPlan::Plain(format!("${}", selector.bracketed())),
                },
            });
        }
        plans.push(SegmentPlan { descendant: segment.descendant, selectors });
    }
    Some(QueryPlan { segments: plans })
}

/// The work plan of a filter expression (text serde_json_path has parsed, so valid).
fn filter_plan(expression: &str) -> Option<FilterPlan> {
    #[cfg(test)]
    let plan = FilterPlan { text: expression.to_string(), ..FilterPlan::default() };
    #[cfg(not(test))]
    let plan = FilterPlan::default();
    let mut reader = ExpressionReader { text: expression, at: 0, plan };
    reader.sequence()?;
    (reader.at >= expression.len()).then_some(reader.plan)
}

/// Reads a filter expression for its costs: its queries (each with its own plan), its
/// comparisons and the arguments of the functions that read a value in full. Logical
/// operators and negations change no cost (an upper bound evaluates every operand).
struct ExpressionReader<'t> {
    text: &'t str,
    at: usize,
    plan: FilterPlan,
}

impl ExpressionReader<'_> {
    fn skip_blanks(&mut self) {
        let bytes = self.text.as_bytes();
        while self.at < bytes.len() && blank(bytes[self.at]) {
            self.at += 1;
        }
    }

    /// Operands and operators up to the end, a `)` or a `,` of this level; the size of the
    /// value when the sequence is one operand.
    fn sequence(&mut self) -> Option<Size> {
        let bytes = self.text.as_bytes();
        let (mut operands, mut last, mut compared) = (0, Size::Literal(0), None);
        loop {
            self.skip_blanks();
            let Some(&b) = bytes.get(self.at) else { break };
            let next = bytes.get(self.at + 1).copied();
            match b {
                b')' | b',' => break,
                b'!' if next != Some(b'=') => self.at += 1,
                b'=' | b'!' | b'<' | b'>' => {
                    self.at += if next == Some(b'=') { 2 } else { 1 };
                    compared = Some(last);
                }
                b'&' | b'|' => {
                    self.at += if next == Some(b) { 2 } else { 1 };
                    compared = None;
                }
                _ => {
                    let size = self.operand()?;
                    operands += 1;
                    if let Some(left) = compared.take() {
                        self.plan.costs.push(Cost::Min(left, size));
                    }
                    last = size;
                }
            }
        }
        Some(if operands == 1 { last } else { Size::Literal(0) })
    }

    /// One operand: a parenthesised expression, a query, a literal or a function call.
    fn operand(&mut self) -> Option<Size> {
        let bytes = self.text.as_bytes();
        let start = self.at;
        match bytes[start] {
            b'(' => {
                self.at += 1;
                self.sequence()?;
                (bytes.get(self.at) == Some(&b')')).then(|| self.at += 1)?;
                Some(Size::Literal(0))
            }
            b'@' | b'$' => {
                let (texts, end) = segments(self.text, start)?;
                let root = bytes[start] == b'$';
                self.plan.queries.push((root, query_plan(&texts)?));
                self.at = end;
                Some(if root { Size::Root } else { Size::Current })
            }
            b'\'' | b'"' => {
                self.at = skip_string(bytes, start);
                Some(Size::Literal((self.at - start) as u64))
            }
            _ => {
                let word = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'+' | b'-');
                while self.at < bytes.len() && word(bytes[self.at]) {
                    self.at += 1;
                }
                if self.at == start {
                    return None;
                }
                if bytes.get(self.at) != Some(&b'(') {
                    return Some(Size::Literal(0));
                }
                let name = &self.text[start..self.at];
                self.at += 1;
                let mut arguments = Vec::new();
                loop {
                    arguments.push(self.sequence()?);
                    match bytes.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b')') => break,
                        _ => return None,
                    }
                }
                self.at += 1;
                match name {
                    "match" | "search" => self.plan.costs.push(Cost::Regex(arguments.clone())),
                    "length" => self.plan.costs.push(Cost::Scan(arguments[0])),
                    _ => {}
                }
                Some(if name == "value" { arguments[0] } else { Size::Literal(0) })
            }
        }
    }
}

/// A bound on the work of a query with one descendant segment and no filter, from the
/// document's node count and depth alone: every list holds each node at most `unions`
/// times, nodes at one depth before the descendant segment (disjoint subtrees), so each
/// segment visits at most `unions × nodes` entries, each with its selectors, and copies a
/// selected node at most once per level it is passed up.
fn one_descent_bound(plan: &Plan, nodes: u64, depth: u64) -> Option<u64> {
    let widest = plan.work.segments.iter().map(|s| s.selectors.len() as u64).max()?;
    let per_segment = plan.top.unions.checked_mul(widest)?.checked_mul(nodes)?.checked_mul(depth + 5)?;
    per_segment.checked_mul(plan.work.segments.len() as u64 + 1)
}

/// The document as the work model walks it: nodes in pre-order (a node's subtree is the
/// range from it to its `end`), each with its depth and its subtree's string bytes.
struct Tree<'v> {
    values: Vec<&'v Value>,
    end: Vec<u32>,
    depth: Vec<u32>,
    /// The bytes of the strings and member names in the node's subtree (its own name too).
    bytes: Vec<u64>,
}

impl<'v> Tree<'v> {
    /// Walks `root` without recursion.
    fn of(root: &'v Value) -> Tree<'v> {
        enum Step<'v> {
            Enter(&'v Value, u32, usize),
            Leave(usize),
        }
        let mut tree = Tree { values: Vec::new(), end: Vec::new(), depth: Vec::new(), bytes: Vec::new() };
        let mut own = Vec::new();
        let mut stack = vec![Step::Enter(root, 0, 0)];
        while let Some(step) = stack.pop() {
            match step {
                Step::Enter(value, depth, name_bytes) => {
                    let at = tree.values.len();
                    tree.values.push(value);
                    tree.end.push(0);
                    tree.depth.push(depth);
                    own.push((name_bytes + value.as_str().map_or(0, str::len)) as u64);
                    stack.push(Step::Leave(at));
                    match value {
                        Value::Array(items) => {
                            stack.extend(items.iter().rev().map(|v| Step::Enter(v, depth + 1, 0)))
                        }
                        Value::Object(members) => stack
                            .extend(members.iter().rev().map(|(k, v)| Step::Enter(v, depth + 1, k.len()))),
                        _ => {}
                    }
                }
                Step::Leave(at) => tree.end[at] = tree.values.len() as u32,
            }
        }
        let mut before = Vec::with_capacity(own.len() + 1);
        before.push(0u64);
        for units in &own {
            before.push(before.last().unwrap().saturating_add(*units));
        }
        tree.bytes = (0..own.len()).map(|i| before[tree.end[i] as usize] - before[i]).collect();
        tree
    }

    /// The work units of reading the value at `node` through, `bytes_per_unit` of its
    /// strings costing one unit as each of its nodes does.
    fn units(&self, node: u32, bytes_per_unit: u64) -> u64 {
        let at = node as usize;
        u64::from(self.end[at] - node) + self.bytes[at] / bytes_per_unit
    }

    fn children(&self, node: u32) -> impl Iterator<Item = u32> + '_ {
        let end = self.end[node as usize];
        let first = Some(node + 1).filter(|&child| child < end);
        std::iter::successors(first, move |&child| Some(self.end[child as usize]).filter(|&next| next < end))
    }
}

/// A list of the model: distinct nodes, each with how many times it is in the list.
type List = Vec<(u32, u64)>;

/// Checks that evaluating `query` on `root` costs at most `budget` work units, by the work
/// model: [`OverBudget`] as soon as it would cost more. The model follows serde_json_path's
/// evaluation with each list kept as distinct nodes and their repeats, every filter taken to
/// keep every node it tests (an upper bound), and counts one unit for each time it enters a
/// segment or a query on a node, visits a node of a descendant segment, tests, selects or
/// copies a node from one list into the next (once per level a descendant segment passes it
/// up), and the sizes [`Cost`] names for comparisons and functions. A filter's queries run,
/// in serde_json_path, once per node tested: the model runs each on all the tested nodes at
/// once, with their repeats, so its own cost is a few passes over the document per segment
/// of the path, whatever the path would cost.
fn work(query: &QueryPlan, root: &Value, budget: u64) -> Result<u64, OverBudget> {
    let tree = Tree::of(root);
    let slots = vec![0; tree.values.len()];
    let mut model = Model { tree: &tree, budget, spent: 0, slots };
    model.query(query, vec![(0, 1)])?;
    Ok(model.spent)
}

struct Model<'t, 'v> {
    tree: &'t Tree<'v>,
    budget: u64,
    spent: u64,
    /// Scratch for [`Model::segment`]: one slot per node of the tree.
    slots: Vec<u32>,
}

/// One node a segment runs on, with its repeats and how many copies each node it selects
/// costs (its repeats, times the levels a descendant segment passes it up).
struct Visit {
    node: u32,
    repeats: u64,
    copies: u64,
}

impl Model<'_, '_> {
    fn spend(&mut self, units: u64) -> Result<(), OverBudget> {
        self.spent = self.spent.saturating_add(units);
        if self.spent > self.budget {
            return Err(OverBudget);
        }
        Ok(())
    }

    fn query(&mut self, query: &QueryPlan, start: List) -> Result<List, OverBudget> {
        self.spend(total(&start))?;
        let mut list = start;
        for segment in &query.segments {
            if list.is_empty() {
                break;
            }
            list = self.segment(segment, &list)?;
        }
        Ok(list)
    }

    fn segment(&mut self, segment: &SegmentPlan, list: &List) -> Result<List, OverBudget> {
        let visits = if segment.descendant {
            self.descend(list)
        } else {
            list.iter().map(|&(node, repeats)| Visit { node, repeats, copies: repeats }).collect()
        };
        let mut next: List = Vec::new();
        // Where each node is in `next`, plus one (0: not there); cleared again at the end.
        let mut slots = std::mem::take(&mut self.slots);
        let mut filters = Vec::new();
        let mut add = |next: &mut List, node: u32, repeats: u64| match slots[node as usize] {
            0 => {
                next.push((node, repeats));
                slots[node as usize] = next.len() as u32;
            }
            at => {
                let entry = &mut next[at as usize - 1].1;
                *entry = entry.saturating_add(repeats);
            }
        };
        for selector in &segment.selectors {
            let compiled = match selector {
                SelectorPlan::Plain(text) => Some(JsonPath::parse(text).map_err(|_| OverBudget)?),
                _ => None,
            };
            let mut tested: List = Vec::new();
            for visit in &visits {
                self.spend(visit.repeats)?;
                let children: Vec<u32> = match (selector, &compiled) {
                    (SelectorPlan::Plain(_), Some(compiled)) => self.select(compiled, visit.node),
                    _ => self.tree.children(visit.node).collect(),
                };
                let count = children.len() as u64;
                self.spend(visit.repeats.saturating_add(visit.repeats.saturating_mul(count)))?;
                self.spend(visit.copies.saturating_mul(count))?;
                for child in children {
                    add(&mut next, child, visit.repeats);
                    if let SelectorPlan::Filter(_) = selector {
                        tested.push((child, visit.repeats));
                    }
                }
            }
            if let SelectorPlan::Filter(filter) = selector {
                filters.push((filter, tested));
            }
        }
        for &(node, _) in &next {
            slots[node as usize] = 0;
        }
        self.slots = slots;
        // A filter's queries run after the scratch is back: they use it too.
        for (filter, tested) in filters {
            self.filter(filter, tested)?;
        }
        Ok(next)
    }

    /// The children of `node` that `compiled` (`$[selector]`) selects.
    fn select(&self, compiled: &JsonPath, node: u32) -> Vec<u32> {
        let value = self.tree.values[node as usize];
        let selected = compiled.query(value).all();
        if selected.is_empty() {
            return Vec::new();
        }
        let children: Vec<u32> = self.tree.children(node).collect();
        selected
            .into_iter()
            .filter_map(|s| children.iter().copied().find(|&c| std::ptr::eq(self.tree.values[c as usize], s)))
            .collect()
    }

    /// Every node of the subtrees of the list's nodes, each with the repeats of the list's
    /// nodes it lies in (itself included), as serde_json_path's descendant segment visits
    /// them, and the copies a node it selects there costs.
    fn descend(&self, list: &List) -> Vec<Visit> {
        let tree = self.tree;
        let mut sorted = list.clone();
        sorted.sort_unstable_by_key(|&(node, _)| node);
        let mut visits = Vec::new();
        // (end of the list node's subtree, repeats, repeats × depth) summed down the stack.
        let mut open: Vec<(u32, u64, u64)> = Vec::new();
        let mut k = 0;
        while k < sorted.len() {
            let top_end = tree.end[sorted[k].0 as usize];
            let mut node = sorted[k].0;
            while node < top_end {
                while open.last().is_some_and(|&(end, _, _)| end <= node) {
                    open.pop();
                }
                let (mut repeats, mut deep) = open.last().map_or((0, 0), |&(_, r, d)| (r, d));
                while k < sorted.len() && sorted[k].0 == node {
                    repeats = repeats.saturating_add(sorted[k].1);
                    let depth = u64::from(tree.depth[node as usize]);
                    deep = deep.saturating_add(sorted[k].1.saturating_mul(depth));
                    open.push((tree.end[node as usize], repeats, deep));
                    k += 1;
                }
                let levels = repeats.saturating_mul(u64::from(tree.depth[node as usize]) + 1);
                visits.push(Visit { node, repeats, copies: levels.saturating_sub(deep) });
                node += 1;
            }
            open.clear();
        }
        visits
    }

    /// The cost of testing a filter on every node of `tested`, with its repeats.
    fn filter(&mut self, filter: &FilterPlan, tested: List) -> Result<(), OverBudget> {
        let times = total(&tested);
        if times == 0 {
            return Ok(());
        }
        for cost in &filter.costs {
            for &(node, repeats) in &tested {
                let units = cost_at(self.tree, cost, node);
                self.spend(repeats.saturating_mul(units))?;
            }
        }
        for (from_root, query) in &filter.queries {
            if *from_root {
                // The same query on the same root, once per test: its cost times the tests.
                let before = self.spent;
                self.query(query, vec![(0, 1)])?;
                self.spend((self.spent - before).saturating_mul(times - 1))?;
            } else {
                self.query(query, tested.clone())?;
            }
        }
        Ok(())
    }
}

/// The work units of a comparison or function on the node `node` tests.
fn cost_at(tree: &Tree<'_>, cost: &Cost, node: u32) -> u64 {
    let size = |size: &Size, bytes_per_unit: u64| match size {
        Size::Literal(bytes) => 1 + bytes / bytes_per_unit,
        Size::Current => tree.units(node, bytes_per_unit),
        Size::Root => tree.units(0, bytes_per_unit),
    };
    match cost {
        Cost::Min(left, right) => {
            size(left, COMPARED_BYTES_PER_UNIT).min(size(right, COMPARED_BYTES_PER_UNIT))
        }
        Cost::Scan(argument) => size(argument, SCANNED_BYTES_PER_UNIT),
        Cost::Regex(arguments) => arguments
            .iter()
            .map(|a| size(a, SCANNED_BYTES_PER_UNIT))
            .fold(REGEX_CALL_UNITS, u64::saturating_add),
    }
}

/// The number of entries of a list, counting repeats.
fn total(list: &List) -> u64 {
    list.iter().fold(0u64, |sum, &(_, n)| sum.saturating_add(n))
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

    /// A chain `depth` deep: objects (`{"a":{"a":…}}`) or arrays (`[[…]]`).
    fn chain(depth: usize, objects: bool) -> Value {
        let mut value = Value::from(1);
        for _ in 0..depth {
            value = if objects { serde_json::json!({ "a": value }) } else { Value::Array(vec![value]) };
        }
        value
    }

    fn run(path: &str, doc: &Value) -> Result<usize, OverBudget> {
        query(&JsonPath::parse(path).unwrap(), Plan::read(path).as_ref(), doc, 100_000).map(|n| n.len())
    }

    /// serde_json_path evaluates a filter's query once per node it tests, so descendant
    /// segments nested in filters cost about the depth once more per filter: three on a
    /// chain 1,000 deep would never end. They are refused before they run; one such filter,
    /// whose work is about the depth squared over two, runs.
    #[test]
    fn descendant_segments_nested_in_filters_are_refused_before_they_run() {
        for objects in [true, false] {
            let deep = chain(1_000, objects);
            assert_eq!(run("$..[?@..[?@..[?@..b]]]", &deep), Err(OverBudget), "{objects}");
            assert_eq!(run("$..[?@..[?@..b]]", &deep), Err(OverBudget), "{objects}");
            assert_eq!(run("$..[?@..b]", &deep), Ok(0), "{objects}");
            let eight = format!("$..{}b{}", "[?@..".repeat(8), "]".repeat(8));
            assert_eq!(run(&eight, &chain(512, objects)), Err(OverBudget), "{objects}");
            // A filter's root query runs once per node tested too.
            assert_eq!(run("$..[?$..[?$..b]]", &deep), Err(OverBudget), "{objects}");
        }
        // Wildcards nest the same way on wide arrays: each `[*]` filter tests every element
        // of every element.
        let wide: Value =
            serde_json::from_str(&format!("[{}]", vec!["[1,2,3,4,5,6,7,8,9,10]"; 30_000].join(","))).unwrap();
        assert_eq!(run("$[?@[*]]", &wide), Ok(30_000));
        let doc = serde_json::json!({"a": vec![0; 200_000], "b": "x".repeat(1 << 20)});
        // Each of 200,000 tests compares a 1 MiB string with itself.
        assert_eq!(run("$.a[?$.b == $.b]", &doc), Err(OverBudget));
        assert_eq!(run("$.a[?@ == $.b]", &doc), Ok(0));
        // serde_json_path compiles a pattern anew for every string it tests: 100,000 calls
        // are refused, 1,000 run.
        let strings = |n: usize| serde_json::json!(vec!["abcd"; n]);
        assert_eq!(run("$[?match(@, 'a.c')]", &strings(100_000)), Err(OverBudget));
        assert_eq!(run("$[?search(@, 'a.c')]", &strings(1_000)), Ok(1_000));
    }

    /// The model's work is an upper bound of serde_json_path's: a reference evaluation that
    /// follows serde_json_path's own algorithm step by step (each list built in full, each
    /// filter tested on each node for real, its queries run once per node tested), counting
    /// the units the model counts, never spends more than the model says; and its lists are
    /// serde_json_path's, node for node, so it does follow that algorithm.
    #[test]
    fn the_work_bound_holds_against_a_reference_evaluation_on_random_paths() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let selectors = [
            "*",
            "0",
            "-1",
            "'a'",
            "'b'",
            "0:2",
            "::-1",
            "?@.a",
            "?@..a",
            "?@[*]",
            "?@.a == @.b",
            "?@..[?@.b]",
            "?@[?@..a] || @ == 1",
            "?$..a",
            "?length(@) > 1",
            "?match(@, 'a')",
            "?count(@..*) > 2",
            "?value(@..a) == 1",
            "?@ == $[0]",
            "?!@..[?@[*]]",
            "?search(@.a, 'a.')",
        ];
        let (mut checked, mut one_descent) = (0, 0);
        let mut most = 0u64;
        for _ in 0..4_000 {
            let doc = random_doc(&mut next, 5);
            let mut path = String::from("$");
            for _ in 0..1 + next(4) {
                path.push_str(if next(2) == 0 { ".." } else { "" });
                let union: Vec<&str> =
                    (0..1 + next(2)).map(|_| selectors[next(selectors.len() as u64) as usize]).collect();
                path.push_str(&format!("[{}]", union.join(",")));
            }
            let compiled = JsonPath::parse(&path).unwrap();
            let plan = Plan::read(&path).unwrap_or_else(|| panic!("{path}"));
            let bound = work(&plan.work, &doc, u64::MAX).unwrap();
            let tree = Tree::of(&doc);
            let mut reference = Reference { tree: &tree, root: &doc, spent: 0 };
            let list = reference.query(&plan.work, &doc);
            if !path[1..].contains('$') {
                let truth = compiled.query(&doc).all();
                assert_eq!(list.len(), truth.len(), "{path} on {doc}");
                assert!(list.iter().zip(&truth).all(|(a, b)| std::ptr::eq(*a, *b)), "{path} on {doc}");
            }
            assert!(bound >= reference.spent, "{path} on {doc}: {bound} < {}", reference.spent);
            if plan.cost == CostClass::OneDescent {
                let (nodes, depth) = size_of(&doc);
                let shortcut = one_descent_bound(&plan, nodes, depth).unwrap();
                assert!(shortcut >= reference.spent, "{path} on {doc}: {shortcut} < {}", reference.spent);
                one_descent += 1;
            }
            most = most.max(reference.spent);
            checked += 1;
        }
        assert_eq!(checked, 4_000);
        assert!(most > 1_000 && one_descent > 50, "{most} {one_descent}");
    }

    /// serde_json_path's evaluation, step by step, counting the model's units.
    struct Reference<'t, 'v> {
        tree: &'t Tree<'v>,
        root: &'v Value,
        spent: u64,
    }

    impl<'v> Reference<'_, 'v> {
        fn index(&self, value: &Value) -> usize {
            self.tree.values.iter().position(|v| std::ptr::eq(*v, value)).unwrap()
        }

        fn query(&mut self, query: &QueryPlan, start: &'v Value) -> Vec<&'v Value> {
            self.spent += 1;
            let mut list = vec![start];
            for segment in &query.segments {
                let mut next = Vec::new();
                for node in list {
                    next.extend(self.segment(segment, node, node));
                }
                list = next;
            }
            list
        }

        /// What `segment` selects from `node`, and below it for a descendant segment started
        /// at `from`; each node returned is copied once into the caller's list.
        fn segment(&mut self, segment: &SegmentPlan, node: &'v Value, from: &'v Value) -> Vec<&'v Value> {
            let mut found = Vec::new();
            let levels = (self.tree.depth[self.index(node)] - self.tree.depth[self.index(from)]) as u64 + 1;
            let children: Vec<&'v Value> = match node {
                Value::Array(items) => items.iter().collect(),
                Value::Object(members) => members.values().collect(),
                _ => Vec::new(),
            };
            for selector in &segment.selectors {
                self.spent += 1;
                let selected: Vec<&'v Value> = match selector {
                    SelectorPlan::Wildcard => children.clone(),
                    SelectorPlan::Plain(text) => JsonPath::parse(text).unwrap().query(node).all(),
                    SelectorPlan::Filter(filter) => {
                        let passing: Option<Vec<&Value>> = (!filter.text.contains('$')).then(|| {
                            JsonPath::parse(&format!("$[?{}]", filter.text)).unwrap().query(node).all()
                        });
                        let mut kept = Vec::new();
                        for &child in &children {
                            self.test(filter, child);
                            if passing.as_ref().is_none_or(|p| p.iter().any(|v| std::ptr::eq(*v, child))) {
                                kept.push(child);
                            }
                        }
                        kept
                    }
                };
                self.spent += 1 + selected.len() as u64 + levels * selected.len() as u64;
                found.extend(selected);
            }
            if segment.descendant {
                for child in children {
                    found.extend(self.segment(segment, child, from));
                }
            }
            found
        }

        fn test(&mut self, filter: &FilterPlan, node: &'v Value) {
            let at = self.index(node) as u32;
            for cost in &filter.costs {
                self.spent += cost_at(self.tree, cost, at);
            }
            for (from_root, query) in &filter.queries {
                self.query(query, if *from_root { self.root } else { node });
            }
        }
    }
}
