//! Writes seeded corpora for `benches/misses.sh` (what failing refs cost): `with/`, the
//! bundles of `examples/corpus.rs` with failing refs added in realistic shares; `without/`,
//! the same invocations with every ref that fails (`path_not_found`, `text_not_found`)
//! removed; and `hits/`, the same as `without/` but each added ref that fails replaced by
//! the hit it was made from (the leaf's own path and text), so that a miss can be set
//! against a hit on the same document, which loads that document too.
//!
//! ```sh
//! cargo run --release --example misses -- --out /tmp/misses [--invocations 1000] [--per-file 35] \
//!     [--scale 15] [--seed 7] [--extra 33]
//! ```
//! `--extra` is the percentage of invocations given one more ref that fails: a misquote (a
//! leaf's text lightly edited: a digit changed, a word dropped or two swapped; half the added
//! refs), a wrong path (a real quote under the path of another leaf, or a path that selects
//! nothing; three in ten) or an invention (a plausible line found nowhere; two in ten). One
//! added ref in ten uses a wildcard path. Which refs fail is not guessed: every invocation of
//! `with/` is verified with the default policy, and `without/` keeps only the refs that did
//! not fail. The share of failing refs is printed.
#![allow(dead_code)]

#[path = "corpus.rs"]
mod corpus;

use corpus::Rng;
use groundcheck_core::{Bundle, RefOutcome, Verifier};
use serde_json::Value;

/// Every string leaf of `value` with at least 8 bytes, with a JSONPath selecting it.
fn string_leaves(value: &Value, path: String, out: &mut Vec<(String, String)>) {
    match value {
        Value::String(s) if s.len() >= 8 => out.push((path, s.clone())),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                string_leaves(item, format!("{path}[{i}]"), out);
            }
        }
        Value::Object(members) => {
            for (key, item) in members {
                let dotted = key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && !key.starts_with(|c: char| c.is_ascii_digit());
                let child = if dotted { format!("{path}.{key}") } else { format!("{path}['{key}']") };
                string_leaves(item, child, out);
            }
        }
        _ => {}
    }
}

/// `text` lightly edited, the way an agent misquotes: a digit changed, a word dropped, or
/// two words swapped.
fn misquote(rng: &mut Rng, text: &str) -> String {
    let words: Vec<&str> = text.split(' ').collect();
    match rng.below(3) {
        0 if text.chars().any(|c| c.is_ascii_digit()) => {
            let digits = text.chars().filter(char::is_ascii_digit).count() as u64;
            let pick = rng.below(digits);
            let mut seen = 0;
            text.chars()
                .map(|c| {
                    if !c.is_ascii_digit() {
                        return c;
                    }
                    seen += 1;
                    if seen - 1 == pick {
                        char::from(b'0' + (c as u8 - b'0' + 1) % 10)
                    } else {
                        c
                    }
                })
                .collect()
        }
        1 if words.len() > 3 => {
            let drop = 1 + rng.below(words.len() as u64 - 1) as usize;
            words
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != drop)
                .map(|(_, w)| *w)
                .collect::<Vec<_>>()
                .join(" ")
        }
        _ if words.len() > 2 => {
            let at = rng.below(words.len() as u64 - 1) as usize;
            let mut words = words;
            words.swap(at, at + 1);
            words.join(" ")
        }
        _ => format!("{text} (retried)"),
    }
}

const INVENTED: [&str; 6] = [
    "connection pool recovered after failover to replica db-2",
    "支付服务 payment-svc 熔断已触发 circuit breaker open",
    "disk pressure eviction on node worker-7: 92% used",
    "certificate expired for gateway.internal at 03:00 UTC",
    "消费者组 refund-consumer 重平衡 rebalance in progress",
    "GC pause 4.2s exceeded liveness probe timeout",
];

/// A path that selects nothing: a key misspelled, or an index past the end.
fn wrong_path(rng: &mut Rng, path: &str) -> String {
    if rng.below(2) == 0 {
        if let Some(open) = path.rfind('[') {
            if path[open + 1..].starts_with(|c: char| c.is_ascii_digit()) {
                return format!(
                    "{}[{}]{}",
                    &path[..open],
                    90_000 + rng.below(1000),
                    &path[path[open..].find(']').map_or(path.len(), |e| open + e + 1)..]
                );
            }
        }
    }
    match path.split_once('.') {
        Some((head, tail)) => format!("{head}.results.{tail}"),
        None => format!("{path}.message"),
    }
}

/// A wildcard path over the same leaves as `path`: its last index (when it has one) is `*`.
fn wildcard(path: &str) -> String {
    let mut out = String::new();
    let mut rest = path;
    let last = path.rfind('[').filter(|&i| path[i + 1..].starts_with(|c: char| c.is_ascii_digit()));
    if let Some(i) = last {
        let close = i + path[i..].find(']').unwrap_or(0);
        out.push_str(&path[..i]);
        out.push_str("[*]");
        rest = &path[close + 1..];
    }
    out.push_str(rest);
    out
}

/// The failing ref added to an invocation whose raw output is `raw`, and the hit it was made
/// from.
fn failing_ref(rng: &mut Rng, raw: &str) -> Option<(Value, Value)> {
    let doc: Value = serde_json::from_str(raw).ok()?;
    let mut leaves = Vec::new();
    string_leaves(&doc, "$".to_string(), &mut leaves);
    if leaves.len() < 2 {
        return None;
    }
    let (path, text) = leaves[rng.below(leaves.len() as u64) as usize].clone();
    let mut hit = (path.clone(), text.clone());
    let kind = rng.below(10);
    let (mut path, text) = match kind {
        0..=4 => (path, misquote(rng, &text)),
        5..=6 => {
            let (other, _) = &leaves[rng.below(leaves.len() as u64) as usize];
            (if *other == path { wrong_path(rng, &path) } else { other.clone() }, text)
        }
        7 => (wrong_path(rng, &path), text),
        _ => (path, INVENTED[rng.below(INVENTED.len() as u64) as usize].to_string()),
    };
    if rng.below(10) == 0 {
        path = wildcard(&path);
        hit.0 = wildcard(&hit.0);
    }
    Some((
        serde_json::json!({ "raw_path": path, "text": text }),
        serde_json::json!({ "raw_path": hit.0, "text": hit.1 }),
    ))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut invocations, mut out, mut seed, mut scale, mut per_file, mut extra) =
        (1_000u64, None, 7u64, 15.0f64, 35u64, 33u64);
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_default();
        match flag.as_str() {
            "--invocations" => invocations = value.parse().expect("--invocations N"),
            "--out" => out = Some(std::path::PathBuf::from(value)),
            "--seed" => seed = value.parse().expect("--seed N"),
            "--scale" => scale = value.parse().ok().filter(|s: &f64| *s > 0.0).expect("--scale N, above 0"),
            "--per-file" => per_file = value.parse().expect("--per-file N"),
            "--extra" => extra = value.parse().expect("--extra PERCENT"),
            other => panic!("unknown flag {other}; see the file's doc comment"),
        }
    }
    let out = out.expect("--out DIR is required");
    let (with_dir, without_dir, hits_dir) = (out.join("with"), out.join("without"), out.join("hits"));
    for dir in [&with_dir, &without_dir, &hits_dir] {
        std::fs::create_dir_all(dir).expect("the output folders can be created");
    }
    let mut rng = Rng::new(seed ^ 0x6d69_7373);
    let verifier = Verifier::default();
    let (mut refs, mut failing) = (0usize, 0usize);
    for (i, text) in corpus::bundles(seed, invocations, 1, scale, per_file).iter().enumerate() {
        let mut bundle: Value = serde_json::from_str(text).expect("the corpus is JSON");
        let items = bundle["invocations"].as_array_mut().expect("a bundle has invocations");
        // Per invocation: where the added ref is, and the hit it was made from.
        let mut added_at: Vec<Option<(usize, Value)>> = vec![None; items.len()];
        for (n, item) in items.iter_mut().enumerate() {
            let raw = item["raw_output_text"].as_str().unwrap_or_default().to_string();
            if rng.below(100) < extra && item["success"] != Value::Bool(false) {
                if let Some((added, hit)) = failing_ref(&mut rng, &raw) {
                    if let Some(list) = item["retrieval_details"]["evidence_refs"].as_array_mut() {
                        let at = rng.below(list.len() as u64 + 1) as usize;
                        list.insert(at, added);
                        added_at[n] = Some((at, hit));
                    }
                }
            }
        }
        let with = serde_json::to_string(&bundle).expect("a bundle is written");
        let verdicts: Vec<_> = Bundle::parse(&with)
            .expect("the bundle parses")
            .invocations
            .iter()
            .map(|inv| verifier.verify(inv))
            .collect();
        let mut hits = bundle.clone();
        let items = bundle["invocations"].as_array_mut().expect("a bundle has invocations");
        let hit_items = hits["invocations"].as_array_mut().expect("a bundle has invocations");
        for (n, (item, verdict)) in items.iter_mut().zip(&verdicts).enumerate() {
            let fails: Vec<bool> = verdict
                .refs
                .iter()
                .map(|r| matches!(r.outcome, RefOutcome::PathNotFound | RefOutcome::TextNotFound))
                .collect();
            refs += fails.len();
            failing += fails.iter().filter(|&&f| f).count();
            let keep = |list: &mut Vec<Value>, replaced: Option<&(usize, Value)>| {
                let mut k = 0;
                list.retain_mut(|r| {
                    k += 1;
                    let fails = fails.get(k - 1).copied().unwrap_or(false);
                    match replaced {
                        Some((at, hit)) if fails && *at == k - 1 => {
                            *r = hit.clone();
                            true
                        }
                        _ => !fails,
                    }
                });
            };
            if let Some(list) = item["retrieval_details"]["evidence_refs"].as_array_mut() {
                keep(list, None);
            }
            if let Some(list) = hit_items[n]["retrieval_details"]["evidence_refs"].as_array_mut() {
                keep(list, added_at[n].as_ref());
            }
        }
        let without = serde_json::to_string(&bundle).expect("a bundle is written");
        let name = format!("corpus-{seed}-{i:05}.json");
        std::fs::write(with_dir.join(&name), with).expect("the bundle is written");
        std::fs::write(without_dir.join(&name), without).expect("the bundle is written");
        let hits = serde_json::to_string(&hits).expect("a bundle is written");
        std::fs::write(hits_dir.join(&name), hits).expect("the bundle is written");
    }
    eprintln!(
        "{invocations} invocations; {refs} refs, {failing} failing ({:.1} %), removed in {}",
        100.0 * failing as f64 / refs.max(1) as f64,
        without_dir.display()
    );
}
