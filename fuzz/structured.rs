//! Generated YAML and JSON Lines raw outputs, verified on every route: shared by
//! the `structured_views` fuzz target (its choices read from the fuzzer's bytes, so coverage
//! steers the generator) and `tests/structured_views.rs` (a seeded xorshift, on stable Rust).
//!
//! A case is a text that is JSON Lines (CRLF, blank lines) or YAML (block and flow styles,
//! every quoting style, anchors and aliases, `---` streams, comments, CRLF), sometimes broken
//! by a few edits (no view, or another one), and refs whose paths are built from its keys
//! (singular for the located route, wildcards, descendants and filters for the `Value` route,
//! JSON Pointers) and whose quotes are cut from the text. [`check`] verifies it under the
//! default policy or small limits, on the fast routes and on the tree route: the verdicts must
//! be equal, warnings in order with at most one `read_as_…`.

use groundcheck_core::{Invocation, Json, Limit, Limits, Policy, RawOutput, Verdict, Verifier, Warning};
use serde_json::{json, Value};

/// Where the generator's choices come from.
pub trait Choose {
    /// A number below `n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize;

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T
    where
        Self: Sized,
    {
        &items[self.below(items.len()).min(items.len() - 1)]
    }
}

/// xorshift64*: deterministic, so a failing case names its seed.
pub struct Rng(pub u64);

impl Choose for Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n.max(1) as u64) as usize
    }
}

/// The fuzzer's bytes, one a choice; zeros once they run out.
pub struct Bytes<'a>(pub &'a [u8]);

impl Choose for Bytes<'_> {
    fn below(&mut self, n: usize) -> usize {
        let Some((&first, rest)) = self.0.split_first() else { return 0 };
        self.0 = rest;
        usize::from(first) % n.max(1)
    }
}

const WORDS: &[&str] = &[
    "OOMKilled",
    "137",
    "0.950",
    "true",
    "~",
    "null",
    "connection refused",
    "a: b",
    "- x",
    "#c",
    "'q'",
    "\"d\"",
    "{\"k\":1}",
    "[1,2]",
    "订单超时",
    "",
    " ",
    "1e3",
    "NaN",
    "*x",
    "&y",
    "!!str 5",
    "|",
    ">",
    "?",
];
const KEYS: &[&str] = &["a", "status", "msg", "reason", "0", "x y", "k:", "it's", "长"];

/// A random tree of keys and scalar texts, at most `depth` deep.
pub fn tree(rng: &mut impl Choose, depth: usize) -> Value {
    match (depth, rng.below(5)) {
        (0, _) | (_, 0 | 1) => Value::String(rng.pick(WORDS).to_string()),
        (_, 2 | 3) => {
            let n = rng.below(4);
            Value::Object((0..n).map(|_| (rng.pick(KEYS).to_string(), tree(rng, depth - 1))).collect())
        }
        _ => Value::Array((0..rng.below(4)).map(|_| tree(rng, depth - 1)).collect()),
    }
}

/// A scalar written in one of YAML's styles (plain only where it stays one token).
fn scalar(rng: &mut impl Choose, text: &str) -> String {
    match rng.below(4) {
        0 => format!("'{}'", text.replace('\'', "''")),
        1 => serde_json::to_string(text).unwrap(),
        _ if !text.is_empty() && text.chars().all(|c| c.is_alphanumeric() || c == '.') => text.to_string(),
        _ => serde_json::to_string(text).unwrap(),
    }
}

/// `value` as block YAML at `indent`, sometimes in flow style, sometimes anchored.
fn yaml(rng: &mut impl Choose, value: &Value, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match value {
        Value::String(s) => {
            out.push_str(&scalar(rng, s));
            out.push('\n');
        }
        Value::Object(map) if !map.is_empty() && rng.below(6) > 0 => {
            out.push('\n');
            for (k, v) in map {
                out.push_str(&format!("{pad}{}: ", scalar(rng, k)));
                yaml(rng, v, indent + 2, out);
            }
        }
        Value::Array(items) if !items.is_empty() && rng.below(6) > 0 => {
            out.push('\n');
            for v in items {
                // A nested block container starts on the next line, indented.
                out.push_str(&format!("{pad}- "));
                yaml(rng, v, indent + 2, out);
            }
        }
        other => {
            out.push_str(&other.to_string());
            out.push('\n');
        }
    }
}

/// A YAML or JSON Lines text, sometimes edited at random.
pub fn text(rng: &mut impl Choose) -> String {
    let mut out = String::new();
    match rng.below(3) {
        0 => {
            for _ in 0..1 + rng.below(4) {
                let line = match tree(rng, 3) {
                    v @ (Value::Object(_) | Value::Array(_)) => v,
                    v => json!({ "msg": v }),
                };
                out.push_str(&line.to_string());
                out.push_str(if rng.below(3) == 0 { "\r\n" } else { "\n" });
                if rng.below(5) == 0 {
                    out.push_str("  \n");
                }
            }
        }
        _ => {
            let docs = if rng.below(4) == 0 { 2 + rng.below(2) } else { 1 };
            for d in 0..docs {
                if d > 0 || rng.below(4) == 0 {
                    out.push_str("---");
                }
                if rng.below(5) == 0 {
                    out.push_str(" # comment");
                }
                let root = match tree(rng, 4) {
                    v @ (Value::Object(_) | Value::Array(_)) => v,
                    v => json!({ "reason": v }),
                };
                let mut doc = String::new();
                yaml(rng, &root, 0, &mut doc);
                out.push_str(&doc);
                if !out.ends_with('\n') {
                    out.push('\n');
                }
            }
            if rng.below(4) == 0 {
                out.push_str("extra: &x [a, {b: OOMKilled}]\nagain: *x\nkey: *x\n");
            }
            if rng.below(6) == 0 {
                out = out.replace('\n', "\r\n");
            }
        }
    }
    // A few random edits: most texts stay valid, some break (no view, or another view).
    for _ in 0..rng.below(3).saturating_sub(1) {
        let pieces =
            ["", ":", " ", "-", "\n", "[", "]", "{", "}", "&a ", "*a", "'", "\"", "#", "\t", "---\n"];
        let at = rng.below(out.len() + 1);
        if out.is_char_boundary(at) {
            let piece = rng.pick(&pieces);
            let end = (at + rng.below(3)).min(out.len());
            if out.is_char_boundary(end) {
                out.replace_range(at..end, piece);
            }
        }
    }
    out
}

/// Refs into `raw`: paths built from its keys, singular and general, and quotes taken from it.
pub fn refs(rng: &mut impl Choose, raw: &str) -> Vec<Value> {
    let steps: Vec<String> = KEYS
        .iter()
        .map(|k| format!("[{}]", serde_json::to_string(k).unwrap().replace('"', "'")))
        .chain((0..3).map(|i| format!("[{i}]")))
        .chain(["[*]", "..*", "[?@.reason]", "..reason", "[-1]"].map(String::from))
        .collect();
    let mut refs = Vec::new();
    for _ in 0..1 + rng.below(4) {
        let path = match rng.below(8) {
            0 => "$".to_string(),
            1 => format!("/{}/{}", rng.pick(KEYS), rng.below(2)),
            _ => {
                let n = 1 + rng.below(4);
                let mut p = String::from("$");
                for _ in 0..n {
                    let step: &String = rng.pick(&steps);
                    p.push_str(step);
                }
                p
            }
        };
        let quote = match rng.below(3) {
            0 => rng.pick(WORDS).to_string(),
            _ => {
                let chars: Vec<char> = raw.chars().collect();
                let start = rng.below(chars.len());
                chars[start..(start + 1 + rng.below(8)).min(chars.len())].iter().collect()
            }
        };
        refs.push(json!({"raw_path": path, "text": quote}));
    }
    refs
}

/// The two policies a case runs under: the default, and small limits that views pass.
pub fn policies() -> [Policy; 2] {
    [
        Policy::default(),
        Policy::default()
            .with_limits(Limits::default().with(Limit::Depth, 3).unwrap().with(Limit::Nodes, 5).unwrap()),
    ]
}

/// Generates one case from `choose` and checks it with `verifiers` (fast, tree-only) pairs,
/// one per policy of [`policies`]. Panics, naming the case, when the routes disagree.
pub fn check(choose: &mut impl Choose, verifiers: &[(Verifier, Verifier)], id: i64) {
    let raw = text(choose);
    let details = json!({"evidence_status": "supported", "evidence_refs": refs(choose, &raw)});
    let inv = Invocation {
        id,
        retrieval_details: Some(Json::parse(&details.to_string()).unwrap()),
        raw_output: Some(RawOutput::Text(raw.clone())),
        ..Invocation::default()
    };
    let (fast, tree) = &verifiers[choose.below(verifiers.len())];
    let (a, b): (Verdict, Verdict) = (fast.verify(&inv), tree.verify(&inv));
    assert_eq!(a, b, "the routes disagree on {raw:?} with {details}");
    let read_as = a.warnings.iter().filter(|w| matches!(w, Warning::ReadAsYaml | Warning::ReadAsJsonLines));
    assert!(read_as.count() <= 1, "{:?}", a.warnings);
    assert!(a.warnings.windows(2).all(|w| w[0] < w[1]), "warnings in order: {:?}", a.warnings);
}

/// Verifier pairs (fast, tree route only) for [`policies`].
pub fn verifiers() -> Vec<(Verifier, Verifier)> {
    policies().iter().map(|p| (Verifier::new(*p), Verifier::new(*p).tree_route_only())).collect()
}
