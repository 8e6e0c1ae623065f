//! Raw outputs that are YAML or JSON Lines (docs/verification.md#yaml-and-json-lines), verified
//! on every route: a generator of such texts — valid, broken by a few random edits, with
//! anchors and aliases, several documents, CRLF line ends, comments, JSON inside strings — and
//! of refs into them (singular paths for the located route, general ones for the `Value`
//! route, pointers), each verified by the fast routes and by the tree route, which must give the
//! same verdict. This is the fuzz mode the YAML view asked for, run on stable Rust as a test:
//! `cargo test` runs a few thousand cases; `GROUNDCHECK_STRUCTURED_CASES=1000000` runs a million
//! (see `fuzz/README.md`, "Runs").

use groundcheck_core::{Invocation, Json, Limits, Policy, RawOutput, Verdict, Verifier, Warning};
use serde_json::{json, Value};

/// xorshift64*: deterministic, so a failing case names its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
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
fn tree(rng: &mut Rng, depth: usize) -> Value {
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
fn scalar(rng: &mut Rng, text: &str) -> String {
    match rng.below(4) {
        0 => format!("'{}'", text.replace('\'', "''")),
        1 => serde_json::to_string(text).unwrap(),
        _ if !text.is_empty() && text.chars().all(|c| c.is_alphanumeric() || c == '.') => text.to_string(),
        _ => serde_json::to_string(text).unwrap(),
    }
}

/// `value` as block YAML at `indent`, sometimes in flow style, sometimes anchored.
fn yaml(rng: &mut Rng, value: &Value, indent: usize, out: &mut String) {
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
fn text(rng: &mut Rng) -> String {
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
fn refs(rng: &mut Rng, raw: &str) -> Vec<Value> {
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

/// Runs `cases` generated cases from `seed`, under the default policy and small limits,
/// each on the fast routes and the tree route.
fn run(seed: u64, cases: u64) -> u64 {
    let policies = [
        Policy::default(),
        Policy { limits: Limits { max_depth: 3, max_nodes: 5, ..Limits::default() }, ..Policy::default() },
    ];
    let verifiers: Vec<(Verifier, Verifier)> =
        policies.iter().map(|p| (Verifier::new(*p), Verifier::new(*p).tree_route_only())).collect();
    let mut rng = Rng(seed | 1);
    let mut executions = 0;
    for case in 0..cases {
        let raw = text(&mut rng);
        let details = json!({"evidence_status": "supported", "evidence_refs": refs(&mut rng, &raw)});
        let inv = Invocation {
            id: case as i64,
            retrieval_details: Some(Json::parse(&details.to_string()).unwrap()),
            raw_output: Some(RawOutput::Text(raw.clone())),
            ..Invocation::default()
        };
        let (fast, tree) = &verifiers[rng.below(verifiers.len())];
        let (a, b): (Verdict, Verdict) = (fast.verify(&inv), tree.verify(&inv));
        assert_eq!(a, b, "seed {seed}, case {case}: the routes disagree on {raw:?} with {details}");
        let read_as =
            a.warnings.iter().filter(|w| matches!(w, Warning::ReadAsYaml | Warning::ReadAsJsonLines));
        assert!(read_as.count() <= 1, "seed {seed}, case {case}: {:?}", a.warnings);
        assert!(a.warnings.windows(2).all(|w| w[0] < w[1]), "warnings in order: {:?}", a.warnings);
        executions += 1;
    }
    // Every route was exercised: located (singular paths), `Value` (general ones) and the tree.
    for (fast, tree) in &verifiers {
        let (taken, all_tree) = (fast.route_counts(), tree.route_counts());
        if cases >= 1_000 {
            assert!(taken.located > 0 && taken.value > 0 && all_tree.tree > 0, "{taken:?} {all_tree:?}");
        }
    }
    executions
}

#[test]
fn every_route_gives_the_same_verdict_on_generated_yaml_and_json_lines() {
    let cases =
        std::env::var("GROUNDCHECK_STRUCTURED_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(3_000);
    let seed = std::env::var("GROUNDCHECK_STRUCTURED_SEED").ok().and_then(|n| n.parse().ok()).unwrap_or(27);
    let started = std::time::Instant::now();
    let executions = run(seed, cases);
    if cases > 3_000 {
        eprintln!("{executions} cases (seed {seed}) in {:?}", started.elapsed());
    }
}

/// The generator makes what it is meant to: texts of each view, and texts with none.
#[test]
fn the_generator_makes_both_views_and_texts_without_one() {
    let mut rng = Rng(27);
    let (mut yaml_views, mut lines_views, mut none) = (0, 0, 0);
    for _ in 0..400 {
        let raw = text(&mut rng);
        let details = json!({"evidence_refs": [{"raw_path": "$.zz.zz", "text": "q"}, {"raw_path": "$[0]", "text": "q"}]});
        let inv = Invocation {
            retrieval_details: Some(Json::parse(&details.to_string()).unwrap()),
            raw_output: Some(RawOutput::Text(raw)),
            ..Invocation::default()
        };
        let v = Verifier::default().verify(&inv);
        match v.warnings.first() {
            Some(Warning::ReadAsYaml) => yaml_views += 1,
            Some(Warning::ReadAsJsonLines) => lines_views += 1,
            _ => none += 1,
        }
    }
    assert!(yaml_views > 40 && lines_views > 40 && none > 40, "{yaml_views} {lines_views} {none}");
}
