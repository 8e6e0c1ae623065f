//! Writes a seeded corpus of realistic `tool_invocation` bundles for end-to-end tests and
//! measurements: runs of 10–40 invocations of log, metric, event, trace and knowledge tools,
//! with Chinese and English text, a size mix of raw outputs, and evidence refs that verify
//! exactly, after normalisation, with elisions, or not at all (invented quotes, markers).
//!
//! ```sh
//! cargo run --release --example corpus -- --invocations 200000 --out /tmp/corpus \
//!     [--seed 7] [--scale 1] [--per-file 2000]
//! groundcheck import /tmp/corpus && groundcheck reverify
//! ```
//! The same seed gives the same bytes. `--scale` multiplies output sizes (1 ≈ 2 KB median; a
//! fraction such as 0.1 gives outputs of a few entries, for tests of jobs rather than documents);
//! `--per-file` is how many invocations a bundle file holds (a run is never split).
#![allow(dead_code)] // The integration tests include this file for `bundles`.

use std::fmt::Write;

/// A tiny deterministic generator (xorshift64*), so corpora are reproducible anywhere.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const SERVICES: [&str; 6] =
    ["order-svc", "payment-svc", "inventory-svc", "gateway", "refund-consumer", "user-svc"];
const MESSAGES: [&str; 8] = [
    "dial tcp 10.0.0.7:5432: connection refused",
    "数据库连接池耗尽 (pool exhausted: 50/50 in use)",
    "订单服务 order-svc 调用超时 after 3000ms",
    "upstream request timeout while calling payment-svc",
    "OOMKilled: container exceeded memory limit 512Mi",
    "Kafka consumer group lag 18342 on topic refunds",
    "读取库存缓存失败: redis timeout",
    "TLS handshake error from 10.2.3.4: EOF",
];

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// One invocation: its tool, raw output text and evidence claim, sized by `scale`.
fn invocation(rng: &mut Rng, id: i64, run: &str, session: &str, scale: f64) -> String {
    let tool = rng.pick(&[
        "query_logs",
        "query_logs",
        "query_metrics",
        "get_k8s_events",
        "query_traces",
        "lookup_knowledge",
    ]);
    // Size mix: mostly small, some medium, a few large outputs.
    let entries = match rng.below(100) {
        0..=69 => 4 + rng.below(12),
        70..=94 => 40 + rng.below(80),
        _ => 400 + rng.below(400),
    };
    // At least one entry (the quote's); at scale 1 exactly the counts above, so a seed's bytes
    // stay what they were when the scale was a whole number.
    let entries = ((entries as f64 * scale).round() as u64).max(1);
    let mut raw = String::new();
    let path: String;
    let target = rng.below(entries);
    let message_at =
        |i: u64, rng: &mut Rng| format!("{} [{}] {}", i, rng.pick(&SERVICES), rng.pick(&MESSAGES));
    let mut quoted = String::new();
    match tool {
        "query_metrics" => {
            raw.push_str(r#"{"status":"success","data":{"resultType":"vector","result":["#);
            for i in 0..entries {
                let value = format!("0.{:03}", rng.below(1000));
                if i == target {
                    quoted = value.clone();
                }
                let _ = write!(
                    raw,
                    r#"{}{{"metric":{{"__name__":"http_error_ratio","pod":"{}-{}"}},"value":[1796032800.{},"{}"]}}"#,
                    if i > 0 { "," } else { "" },
                    rng.pick(&SERVICES),
                    i,
                    i % 1000,
                    value
                );
            }
            raw.push_str("]}}");
            path = format!("$.data.result[{target}].value[1]");
        }
        "lookup_knowledge" => {
            raw.push_str(r#"{"hits":{"total":{"value":"#);
            let _ = write!(raw, "{entries}}},\"hits\":[");
            for i in 0..entries {
                let content = format!(
                    "{} 处置建议: 检查 {} 的连接数与超时配置 (runbook #{i})",
                    rng.pick(&MESSAGES),
                    rng.pick(&SERVICES)
                );
                if i == target {
                    quoted = content.clone();
                }
                let _ = write!(
                    raw,
                    r#"{}{{"_index":"kb-l{}","_id":"kb-{}","_source":{{"content":{}}}}}"#,
                    if i > 0 { "," } else { "" },
                    i % 2,
                    i,
                    json_string(&content)
                );
            }
            raw.push_str("]}}");
            path = format!("$.hits.hits[{target}]._source");
        }
        _ => {
            raw.push_str(r#"{"status":"success","data":{"resultType":"streams","result":[{"stream":{"app":"order"},"values":["#);
            for i in 0..entries {
                let line = message_at(i, rng);
                if i == target {
                    quoted = line.clone();
                }
                let _ = write!(
                    raw,
                    r#"{}["17960328{:08}",{}]"#,
                    if i > 0 { "," } else { "" },
                    i,
                    json_string(&line)
                );
            }
            raw.push_str("]}]}}");
            path = format!("$.data.result[0].values[{target}][1]");
        }
    }
    // How the agent quoted it.
    let (refs, claimed) = match rng.below(100) {
        0..=59 => (
            format!(r#"[{{"raw_path":{},"text":{}}}]"#, json_string(&path), json_string(&quoted)),
            "supported",
        ),
        60..=69 => {
            let shouted = quoted.to_uppercase();
            (
                format!(r#"[{{"raw_path":{},"text":{}}}]"#, json_string(&path), json_string(&shouted)),
                "supported",
            )
        }
        70..=76 => {
            let chars: Vec<char> = quoted.chars().collect();
            let (head, tail): (String, String) =
                (chars[..chars.len() / 3].iter().collect(), chars[chars.len() * 2 / 3..].iter().collect());
            let text = format!("{} … {}", head.trim(), tail.trim());
            (format!(r#"[{{"raw_path":{},"text":{}}}]"#, json_string(&path), json_string(&text)), "supported")
        }
        77..=88 => {
            let invented = format!("{} recovered automatically", rng.pick(&SERVICES));
            (
                format!(r#"[{{"raw_path":{},"text":{}}}]"#, json_string(&path), json_string(&invented)),
                "supported",
            )
        }
        89..=94 => {
            (r#"[{"raw_path":"$.no_evidence","text":"no matching lines"}]"#.to_string(), "no_evidence")
        }
        _ => ("[]".to_string(), "no_evidence"),
    };
    let layer =
        if tool == "lookup_knowledge" { rng.pick(&["\"L0\"", "\"L1\"", "\"L0+L1\""]) } else { "null" };
    let success = rng.below(50) != 0;
    format!(
        r#"{{"id":{id},"session_id":"{session}","run_id":"{run}","step_id":{},"tool_name":"{tool}","input_params":{{"service":"{}","limit":{entries}}},"output_preview":{},"output_length":{},"is_truncated":true,"retrieval_layer":{layer},"retrieval_details":{{"evidence_status":"{claimed}","evidence_refs":{refs}}},"duration_ms":{},"success":{success},"created_at":"2026-11-{:02}T{:02}:{:02}:00Z","raw_output_text":{}}}"#,
        id % 100,
        rng.pick(&SERVICES),
        json_string(&raw.chars().take(120).collect::<String>()),
        raw.chars().count(),
        5 + rng.below(900),
        1 + id % 28,
        id % 24,
        id % 60,
        json_string(&raw)
    )
}

/// Bundle texts holding `invocations` invocations in runs of 10–40, ids from `first_id`.
pub fn bundles(seed: u64, invocations: u64, first_id: i64, scale: f64, per_file: u64) -> Vec<String> {
    let mut rng = Rng::new(seed);
    let mut files = Vec::new();
    let mut current = String::new();
    let mut in_file = 0;
    let mut id = first_id;
    let mut made = 0;
    let mut run_no = 0;
    while made < invocations {
        run_no += 1;
        let run = format!("run-{seed}-{run_no:07}");
        let session = format!("sess-{seed}-{:05}", run_no / 3);
        let size = (10 + rng.below(31)).min(invocations - made);
        for _ in 0..size {
            if !current.is_empty() {
                current.push(',');
            }
            current.push_str(&invocation(&mut rng, id, &run, &session, scale));
            id += 1;
            made += 1;
            in_file += 1;
        }
        if in_file >= per_file || made == invocations {
            files.push(format!("{{\"invocations\":[{current}]}}"));
            current.clear();
            in_file = 0;
        }
    }
    files
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut invocations, mut out, mut seed, mut scale, mut per_file) =
        (10_000u64, None, 7u64, 1.0f64, 2_000u64);
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_default();
        match flag.as_str() {
            "--invocations" => invocations = value.parse().expect("--invocations N"),
            "--out" => out = Some(std::path::PathBuf::from(value)),
            "--seed" => seed = value.parse().expect("--seed N"),
            "--scale" => scale = value.parse().ok().filter(|s: &f64| *s > 0.0).expect("--scale N, above 0"),
            "--per-file" => per_file = value.parse().expect("--per-file N"),
            other => panic!("unknown flag {other}; see the file's doc comment"),
        }
    }
    let out = out.expect("--out DIR is required");
    std::fs::create_dir_all(&out).expect("the output folder can be created");
    let files = bundles(seed, invocations, 1, scale, per_file);
    let mut bytes = 0;
    for (i, text) in files.iter().enumerate() {
        bytes += text.len();
        std::fs::write(out.join(format!("corpus-{seed}-{i:05}.json")), text).expect("the bundle is written");
    }
    eprintln!(
        "{invocations} invocations in {} files, {} MB, under {}",
        files.len(),
        bytes / 1_000_000,
        out.display()
    );
}
