//! The smallest thread stack each of the deepest inputs the limits allow needs, in every
//! format: what a binding must give the engine when it calls it on a thread it does not own.
//!
//! `cargo run --release -p groundcheck-core --example stack_probe` prints one line per input:
//! the smallest stack (in KiB, found by halving the interval between a stack that crashed and
//! one that did not) on which verifying it (a ref that holds and one that does not, so
//! `nearest` and `elsewhere` run too) and resolving it both finish. Each try runs in a child
//! process, as a stack overflow kills the process. `stack_probe CASE KIB` is one try.

use std::process::Command;

use groundcheck_core::{resolve_text, Invocation, Json, Limit, Limits, Policy, RawOutput, Verifier};

/// The inputs: a name, the raw output's text, the paths its refs use, and the depth limit of
/// the policy (the default, or raised to the query ceiling).
fn cases() -> Vec<(&'static str, String, Vec<String>, usize)> {
    let default = Limits::default().get(Limit::Depth);
    let ceiling = Limits::QUERY_DEPTH_CEILING;
    let nested = |n: usize| format!("{}{{\"b\":\"x\"}}{}", "[".repeat(n - 1), "]".repeat(n - 1));
    let descend = vec!["$..b".to_string(), "$..*".to_string()];
    let filters = format!("$[?{}@.b{}]", "@[?".repeat(7), "]".repeat(7));
    // One filter with its own `..` inside a `..`: the two recursions add up to the ceiling (each
    // further one multiplies the time by the depth, the recursion adds nothing).
    let deep_filters = "$..[?@..b]".to_string();
    let parens = format!("$[?{}@.b{}]", "(".repeat(32), ")".repeat(32));
    let yaml_map: String = (0..default - 1).map(|i| format!("{}a:\n", "  ".repeat(i))).collect();
    vec![
        ("json, default depth limit", nested(default), descend.clone(), default),
        ("json at the query ceiling", nested(ceiling), descend.clone(), ceiling),
        (
            "json inside a string",
            serde_json::json!({ "s": nested(default - 1) }).to_string(),
            descend.clone(),
            default,
        ),
        (
            "json lines",
            format!("{}\n{}\n", nested(default - 1), nested(default - 1)),
            descend.clone(),
            default,
        ),
        ("yaml block sequences", format!("{}b: x\n", "- ".repeat(default - 1)), descend.clone(), default),
        (
            "yaml block mappings",
            format!("{yaml_map}{}b: x\n", "  ".repeat(default - 1)),
            descend.clone(),
            default,
        ),
        ("flow yaml", format!("a: {}{{b: x}}{}\n", "[".repeat(254), "]".repeat(254)), descend, default),
        (
            "paths: 8 nested filters, 32 parentheses",
            r#"[{"b":"x"}]"#.to_string(),
            vec![filters, parens],
            default,
        ),
        ("a descendant filter at the query ceiling", nested(ceiling), vec![deep_filters], ceiling),
        // What the bindings run on the caller's thread: 256 bytes, 16 brackets and parentheses.
        (
            "256 bytes of yaml block sequences",
            format!("{}b: x", "- ".repeat(125)),
            vec!["$..b".into()],
            default,
        ),
        (
            "16 brackets and parentheses",
            nested(8),
            vec![format!("$[?{}({}@.b{}){}]", "@[?".repeat(6), "(".repeat(7), ")".repeat(7), "]".repeat(6))],
            default,
        ),
    ]
}

/// Verifies and resolves case `index`; a stack overflow here kills the process.
fn run(index: usize) {
    let (_, text, paths, max_depth) = cases().swap_remove(index);
    let refs: Vec<_> = paths
        .iter()
        .flat_map(|p| {
            [
                serde_json::json!({"raw_path": p, "text": "x"}),
                serde_json::json!({"raw_path": p, "text": "zz"}),
            ]
        })
        .collect();
    let details = serde_json::json!({ "evidence_refs": refs }).to_string();
    let policy =
        Policy::default().with_limits(Limits::default().with(Limit::Depth, max_depth as i128).unwrap());
    let invocation = Invocation {
        retrieval_details: Json::parse(&details).ok(),
        raw_output: Some(RawOutput::Text(text.clone())),
        ..Invocation::default()
    };
    let verdict = Verifier::new(policy).verify(&invocation);
    assert!(verdict.refs.iter().any(|r| r.matched_path.is_some()), "{:?}", verdict.refs[0]);
    for path in &paths {
        let _ = resolve_text(path, &text);
    }
    drop(invocation);
}

/// Whether case `index` finishes on a thread of `kib` KiB, tried in a child process.
fn fits(index: usize, kib: usize) -> bool {
    let me = std::env::current_exe().expect("the probe knows where it is");
    let out = Command::new(me).args([index.to_string(), kib.to_string()]).output().expect("the probe runs");
    out.status.success()
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    if let [index, kib] = args[..] {
        let worker = std::thread::Builder::new().stack_size(kib * 1024).spawn(move || run(index));
        std::process::exit(if worker.map(|w| w.join().is_ok()).unwrap_or(false) { 0 } else { 1 });
    }
    for (index, (name, text, _, _)) in cases().iter().enumerate() {
        let (mut low, mut high) = (8, 64 * 1024);
        if !fits(index, high) {
            println!("{name} ({} bytes): more than {high} KiB", text.len());
            continue;
        }
        while high - low > 4 {
            let mid = (low + high) / 2;
            if fits(index, mid) {
                high = mid;
            } else {
                low = mid;
            }
        }
        println!("{name} ({} bytes): {high} KiB", text.len());
    }
}
