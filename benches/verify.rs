//! Criterion benchmarks of groundcheck-core: the cost of verification in the engine alone.
//!
//! Every figure is a throughput in bytes of raw output, so criterion prints MB/s (MiB/s) and
//! each `path/…` figure can be read as a ratio to the `floor/…` figures of the same document.
//! See `benches/README.md` for the groups and how to read them.
//!
//! Documents are generated here, deterministically (a xorshift generator with fixed seeds), to
//! look like the outputs an AIOps agent's tools return: Loki log query results with Chinese and
//! English lines, Prometheus range-query matrices, Kubernetes event lists and Zipkin v2 span
//! arrays, at 4 KiB, 64 KiB, 1 MiB and 8 MiB. The quoted text always comes from a node at the
//! end of the document, so a path that selects many nodes is searched to the end.
//!
//! Each benched invocation is verified once before it is timed and its outcome asserted, so a
//! figure never silently measures a `path_not_found` or a `limit_exceeded`.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, SamplingMode, Throughput};
use groundcheck_core::{
    Invocation, Json, Policy, RawOutput, RefOutcome, Run, Rung, Status, Verifier, Warning,
};
use serde::de::IgnoredAny;

const KIB: usize = 1024;
const MIB: usize = 1024 * 1024;
const SIZES: [(&str, usize); 4] = [("4KB", 4 * KIB), ("64KB", 64 * KIB), ("1MB", MIB), ("8MB", 8 * MIB)];

// ---------------------------------------------------------------------------------------------
// Deterministic generation
// ---------------------------------------------------------------------------------------------

/// xorshift64*: small, fast, deterministic; no randomness crate needed.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    fn hex(&mut self, digits: usize) -> String {
        (0..digits).map(|_| char::from_digit(self.below(16) as u32, 16).unwrap()).collect()
    }

    fn alnum(&mut self, n: usize) -> String {
        const A: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
        (0..n).map(|_| *self.pick(A) as char).collect()
    }
}

/// A JSON string literal (quotes and escapes included).
fn js(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

const APPS: [&str; 6] = ["order-svc", "payment-svc", "inventory-svc", "user-svc", "gateway", "notify-svc"];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Logs,
    Metrics,
    Events,
    Traces,
}

impl Kind {
    const ALL: [Kind; 4] = [Kind::Logs, Kind::Metrics, Kind::Events, Kind::Traces];

    fn name(self) -> &'static str {
        match self {
            Kind::Logs => "logs",
            Kind::Metrics => "metrics",
            Kind::Events => "events",
            Kind::Traces => "traces",
        }
    }

    fn tool(self) -> &'static str {
        match self {
            Kind::Logs => "query_logs",
            Kind::Metrics => "query_metrics",
            Kind::Events => "get_k8s_events",
            Kind::Traces => "query_traces",
        }
    }

    fn generate(self, target: usize, seed: u64) -> Doc {
        let mut rng = Rng::new(seed ^ ((self as u64 + 1) * 0x1000_0001));
        match self {
            Kind::Logs => logs(target, &mut rng),
            Kind::Metrics => metrics(target, &mut rng),
            Kind::Events => events(target, &mut rng),
            Kind::Traces => traces(target, &mut rng),
        }
    }
}

/// A generated document with the four paths that reach its final node and the text quoted
/// from it.
struct Doc {
    text: String,
    /// `singular`, `wildcard`, `filter`, `descendant`, in that order.
    paths: [(&'static str, String); 4],
    /// Found exactly (rung `exact`) under every path.
    quote: String,
}

const PATH_NAMES: [&str; 4] = ["singular", "wildcard", "filter", "descendant"];

fn paths(singular: String, wildcard: &str, filter: &str, descendant: &str) -> [(&'static str, String); 4] {
    [
        (PATH_NAMES[0], singular),
        (PATH_NAMES[1], wildcard.to_string()),
        (PATH_NAMES[2], filter.to_string()),
        (PATH_NAMES[3], descendant.to_string()),
    ]
}

// The final node of every generated document carries these markers, and nothing before it does.
const LOG_FINAL_LINE: &str =
    "2026-11-30T10:59:59.998Z ERROR [payment-svc] 支付回调处理失败: req-final-7q2x Connection pool exhausted after 30000ms";
const LOG_QUOTE: &str = "req-final-7q2x Connection pool exhausted";
/// Not in any document: "ERROR" is in many lines, so the elided rung has real work to do.
const LOG_MISS: &str = "ERROR … 死锁检测 deadlock detected on req-final-0000";
const METRIC_FINAL_VALUE: &str = "4242.424242";
const EVENT_FINAL_POD: &str = "payment-svc-final-zz9q";
const SPAN_FINAL_ERROR: &str = "支付服务超时: payment-svc-final-span read timeout after 3000ms";
const SPAN_QUOTE: &str = "payment-svc-final-span read timeout";

/// Full-width upper case: found only after NFKC and lower casing (rung `normalized`).
fn full_width_upper(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            ' ' => '\u{3000}',
            '!'..='~' => char::from_u32(c.to_ascii_uppercase() as u32 + 0xFEE0).unwrap(),
            c => c,
        })
        .collect()
}

fn log_line(rng: &mut Rng, ns: u64, app: &str) -> String {
    let sec = ns / 1_000_000_000 % 3600;
    let ts = format!("2026-11-30T10:{:02}:{:02}.{:03}Z", sec / 60, sec % 60, rng.below(1000));
    let ip = format!("10.0.{}.{}", rng.below(16), rng.range(2, 250));
    match rng.below(9) {
        0 => format!(
            "{ts} ERROR [{app}] 数据库连接失败: dial tcp {ip}:5432: connect: connection refused trace_id={}",
            rng.hex(16)
        ),
        1 => format!(
            "level=warn ts={ts} caller=pool.go:{} msg=\"连接池使用率过高\" active={} max=100 service={app}",
            rng.range(40, 400),
            rng.range(80, 100)
        ),
        2 => format!(
            "{{\"level\":\"info\",\"ts\":\"{ts}\",\"msg\":\"订单创建成功\",\"order_id\":\"ORD-{}\",\"latency_ms\":{}}}",
            rng.range(100_000, 999_999),
            rng.range(3, 900)
        ),
        3 => format!(
            "{ts} INFO  c.e.{}.Controller - Request processed: GET /api/v1/orders/{} status=200 耗时 {}ms",
            app.trim_end_matches("-svc"),
            rng.range(1, 99_999),
            rng.range(1, 500)
        ),
        4 => format!("{ts} ERROR 支付网关超时 upstream request timeout after 30000ms, retry {}/3", rng.range(1, 3)),
        5 => format!("{ts} WARN  Redis 命令执行缓慢: GET session:{} took {}ms", rng.hex(12), rng.range(50, 2000)),
        6 => format!(
            "{ts} INFO  [{app}] Kafka consumer group order-events rebalanced, partitions assigned: [{}, {}, {}]",
            rng.below(12),
            rng.below(12),
            rng.below(12)
        ),
        7 => format!(
            "{ts} WARN  GC pause {}ms (G1 Evacuation Pause) heap {}M->{}M(2048M) 内存压力较大",
            rng.range(20, 900),
            rng.range(1200, 2000),
            rng.range(300, 1100)
        ),
        _ => format!(
            "{ts} ERROR [{app}] java.net.SocketTimeoutException: Read timed out\n\tat java.net.SocketInputStream.socketRead0(Native Method)\n\tat 下游服务 {ip} 无响应"
        ),
    }
}

/// Loki `query_range` result, `resultType: streams`.
fn logs(target: usize, rng: &mut Rng) -> Doc {
    const TAIL: &str = "]},\"stats\":{\"summary\":{\"bytesProcessedPerSecond\":48213376,\"linesProcessedPerSecond\":171250,\"totalBytesProcessed\":9214,\"totalLinesProcessed\":33,\"execTime\":0.000192,\"queueTime\":0.000031,\"shards\":1}}}";
    let mut out = String::from("{\"status\":\"success\",\"data\":{\"resultType\":\"streams\",\"result\":[");
    let reserve = 1200 + TAIL.len();
    let mut streams = 0usize;
    let mut ns: u64 = 1_764_496_800_000_000_000;
    let stream_head = |out: &mut String, rng: &mut Rng, app: &str, level: &str| {
        let pod = format!("{app}-{}-{}", rng.alnum(9), rng.alnum(5));
        write!(
            out,
            "{{\"stream\":{{\"app\":{},\"container\":{},\"job\":\"prod/{app}\",\"level\":\"{level}\",\"namespace\":\"prod\",\"node_name\":\"node-{}\",\"pod\":\"{pod}\",\"service_name\":\"{app}\"}},\"values\":[",
            js(app),
            js(app),
            rng.below(12)
        )
        .unwrap();
    };
    while out.len() + reserve < target || streams == 0 {
        if streams > 0 {
            out.push(',');
        }
        let app = *rng.pick(&APPS);
        let level = *rng.pick(&["error", "warn", "info"]);
        stream_head(&mut out, rng, app, level);
        let lines = rng.range(4, 40);
        for i in 0..lines {
            if i > 0 {
                out.push(',');
            }
            ns += rng.range(1_000_000, 900_000_000);
            write!(out, "[\"{ns}\",{}]", js(&log_line(rng, ns, app))).unwrap();
            if out.len() + reserve >= target {
                break;
            }
        }
        out.push_str("]}");
        streams += 1;
    }
    // The final stream: four lines, the last one quoted.
    out.push(',');
    stream_head(&mut out, rng, "payment-svc", "error");
    for _ in 0..3 {
        ns += rng.range(1_000_000, 900_000_000);
        write!(out, "[\"{ns}\",{}],", js(&log_line(rng, ns, "payment-svc"))).unwrap();
    }
    write!(out, "[\"{}\",{}]]}}", ns + 1, js(LOG_FINAL_LINE)).unwrap();
    out.push_str(TAIL);
    Doc {
        text: out,
        paths: paths(
            format!("$.data.result[{streams}].values[3][1]"),
            "$.data.result[*].values[*][1]",
            "$.data.result[?@.stream.app=='payment-svc'].values[*][1]",
            "$..values",
        ),
        quote: LOG_QUOTE.to_string(),
    }
}

/// Prometheus `query_range` result, `resultType: matrix`.
///
/// The wildcard is `$.data.result[*].values` rather than `…values[*][1]`: an 8 MiB matrix holds
/// ~300,000 samples, over the default `max_nodes` (100,000), so `values[*][1]` is
/// `limit_exceeded` there (see the README).
fn metrics(target: usize, rng: &mut Rng) -> Doc {
    const TAIL: &str = "]}}";
    let mut out = String::from("{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[");
    let reserve = 1100 + TAIL.len();
    let mut series = 0usize;
    let series_head = |out: &mut String, rng: &mut Rng, app: &str| {
        let pod = format!("{app}-{}-{}", rng.alnum(9), rng.alnum(5));
        write!(
            out,
            "{{\"metric\":{{\"__name__\":\"container_cpu_usage_seconds_total\",\"container\":\"{app}\",\"cpu\":\"total\",\"endpoint\":\"https-metrics\",\"id\":\"/kubepods/burstable/pod{}-{}/{}\",\"image\":\"registry.example.com/prod/{app}:1.4.{}\",\"instance\":\"10.0.{}.{}:10250\",\"job\":\"kubelet\",\"metrics_path\":\"/metrics/cadvisor\",\"namespace\":\"prod\",\"node\":\"node-{}\",\"pod\":\"{pod}\",\"service\":\"kubelet\"}},\"values\":[",
            rng.hex(8),
            rng.hex(12),
            rng.hex(24),
            rng.below(30),
            rng.below(16),
            rng.range(2, 250),
            rng.below(12)
        )
        .unwrap();
    };
    let start = 1_764_496_800u64;
    while out.len() + reserve < target || series == 0 {
        if series > 0 {
            out.push(',');
        }
        let app = *rng.pick(&APPS);
        series_head(&mut out, rng, app);
        let samples = rng.range(60, 240);
        let base = rng.below(4);
        for i in 0..samples {
            if i > 0 {
                out.push(',');
            }
            write!(
                out,
                "[{}.{:03},\"{}.{:06}\"]",
                start + 15 * i,
                rng.below(1000),
                base,
                rng.below(1_000_000)
            )
            .unwrap();
            if out.len() + reserve >= target {
                break;
            }
        }
        out.push_str("]}");
        series += 1;
    }
    out.push(',');
    series_head(&mut out, rng, "payment-svc");
    for i in 0..7 {
        write!(out, "[{}.{:03},\"0.{:06}\"],", start + 15 * i, rng.below(1000), rng.below(1_000_000))
            .unwrap();
    }
    write!(out, "[{}.000,\"{METRIC_FINAL_VALUE}\"]]}}", start + 105).unwrap();
    out.push_str(TAIL);
    Doc {
        text: out,
        paths: paths(
            format!("$.data.result[{series}].values[7][1]"),
            "$.data.result[*].values",
            "$.data.result[?@.metric.container=='payment-svc'].values",
            "$..values",
        ),
        quote: METRIC_FINAL_VALUE.to_string(),
    }
}

#[allow(clippy::too_many_arguments)]
fn event(
    out: &mut String,
    rng: &mut Rng,
    n: u64,
    app: &str,
    pod: &str,
    reason: &str,
    message: &str,
    kind: &str,
) {
    let uid = format!("{}-{}-{}-{}-{}", rng.hex(8), rng.hex(4), rng.hex(4), rng.hex(4), rng.hex(12));
    let min = n / 60 % 60;
    write!(
        out,
        "{{\"metadata\":{{\"name\":\"{pod}.{}\",\"namespace\":\"prod\",\"uid\":\"{uid}\",\"resourceVersion\":\"{}\",\"creationTimestamp\":\"2026-11-30T10:{min:02}:{:02}Z\",\"managedFields\":[{{\"manager\":\"kubelet\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"time\":\"2026-11-30T10:{min:02}:{:02}Z\"}}]}},\"involvedObject\":{{\"kind\":\"Pod\",\"namespace\":\"prod\",\"name\":\"{pod}\",\"uid\":\"{}-{}-{}-{}-{}\",\"apiVersion\":\"v1\",\"resourceVersion\":\"{}\",\"fieldPath\":\"spec.containers{{{app}}}\"}},\"reason\":{},\"message\":{},\"source\":{{\"component\":\"kubelet\",\"host\":\"node-{}\"}},\"firstTimestamp\":\"2026-11-30T10:{min:02}:{:02}Z\",\"lastTimestamp\":\"2026-11-30T10:{min:02}:{:02}Z\",\"count\":{},\"type\":{},\"eventTime\":null,\"reportingComponent\":\"kubelet\",\"reportingInstance\":\"node-{}\"}}",
        rng.hex(16),
        rng.range(1_000_000, 9_999_999),
        n % 60,
        n % 60,
        rng.hex(8),
        rng.hex(4),
        rng.hex(4),
        rng.hex(4),
        rng.hex(12),
        rng.range(1_000_000, 9_999_999),
        js(reason),
        js(message),
        rng.below(12),
        n % 60,
        n % 60,
        rng.range(1, 60),
        js(kind),
        rng.below(12),
    )
    .unwrap();
}

/// Kubernetes `v1` `EventList`.
fn events(target: usize, rng: &mut Rng) -> Doc {
    const TAIL: &str = "]}";
    let mut out = String::from(
        "{\"kind\":\"EventList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"48213376\"},\"items\":[",
    );
    let reserve = 1300 + TAIL.len();
    let mut items = 0usize;
    while out.len() + reserve < target || items == 0 {
        if items > 0 {
            out.push(',');
        }
        let app = *rng.pick(&APPS);
        let pod = format!("{app}-{}-{}", rng.alnum(9), rng.alnum(5));
        let ip = format!("10.0.{}.{}", rng.below(16), rng.range(2, 250));
        let image = format!("registry.example.com/prod/{app}:1.4.{}", rng.below(30));
        let (reason, message, kind) = match rng.below(10) {
            0 => ("Scheduled", format!("Successfully assigned prod/{pod} to node-{}", rng.below(12)), "Normal"),
            1 => ("Pulling", format!("Pulling image \"{image}\""), "Normal"),
            2 => {
                let s = rng.range(100, 9999);
                ("Pulled", format!("Successfully pulled image \"{image}\" in {s}ms ({s}ms including waiting)"), "Normal")
            }
            3 => ("Created", format!("Created container {app}"), "Normal"),
            4 => ("Started", format!("Started container {app}"), "Normal"),
            5 => ("BackOff", format!("Back-off restarting failed container {app} in pod {pod}_prod"), "Warning"),
            6 => (
                "Unhealthy",
                format!("Readiness probe failed: Get \"http://{ip}:8080/healthz\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)"),
                "Warning",
            ),
            7 => (
                "FailedScheduling",
                format!("0/12 nodes are available: {} Insufficient memory, {} node(s) didn't match Pod's node affinity/selector. preemption: 0/12 nodes are available: 12 Preemption is not helpful for scheduling.", rng.range(1, 6), rng.range(1, 6)),
                "Warning",
            ),
            8 => ("ConfigReloaded", format!("配置热加载完成: configmap prod/{app}-config 版本 {}", rng.range(1, 500)), "Normal"),
            _ => ("Killing", format!("Stopping container {app}"), "Normal"),
        };
        event(&mut out, rng, items as u64, app, &pod, reason, &message, kind);
        items += 1;
    }
    out.push(',');
    let message = format!("Back-off restarting failed container payment-svc in pod {EVENT_FINAL_POD}_prod");
    event(&mut out, rng, items as u64, "payment-svc", EVENT_FINAL_POD, "BackOff", &message, "Warning");
    out.push_str(TAIL);
    Doc {
        text: out,
        paths: paths(
            format!("$.items[{items}].message"),
            "$.items[*].message",
            "$.items[?@.reason=='BackOff'].message",
            "$..message",
        ),
        quote: EVENT_FINAL_POD.to_string(),
    }
}

#[allow(clippy::too_many_arguments)]
fn span(
    out: &mut String,
    rng: &mut Rng,
    trace: &str,
    t: u64,
    from: &str,
    to: &str,
    status: &str,
    error: Option<&str>,
) {
    let path =
        *rng.pick(&["/api/v1/orders", "/api/v1/payments", "/api/v1/stock/reserve", "/api/v1/users/me"]);
    let method = *rng.pick(&["GET", "POST", "PUT"]);
    let duration = rng.range(200, 3_000_000);
    write!(
        out,
        "{{\"traceId\":\"{trace}\",\"parentId\":\"{}\",\"id\":\"{}\",\"kind\":\"CLIENT\",\"name\":\"{} {path}\",\"timestamp\":{t},\"duration\":{duration},\"localEndpoint\":{{\"serviceName\":\"{from}\",\"ipv4\":\"10.0.{}.{}\",\"port\":8080}},\"remoteEndpoint\":{{\"serviceName\":\"{to}\",\"ipv4\":\"10.0.{}.{}\",\"port\":8443}},\"annotations\":[{{\"timestamp\":{},\"value\":\"ws\"}},{{\"timestamp\":{},\"value\":\"wr\"}}],\"tags\":{{\"http.method\":\"{method}\",\"http.path\":\"{path}\",\"http.status_code\":\"{status}\",\"peer.service\":\"{to}\",\"component\":\"spring-webmvc\",\"otel.library.name\":\"io.opentelemetry.spring-webmvc-6.0\"",
        rng.hex(16),
        rng.hex(16),
        method.to_ascii_lowercase(),
        rng.below(16),
        rng.range(2, 250),
        rng.below(16),
        rng.range(2, 250),
        t + 15,
        t + duration - 20,
    )
    .unwrap();
    if let Some(error) = error {
        write!(out, ",\"error\":{}", js(error)).unwrap();
    }
    out.push_str("}}");
}

/// Zipkin v2 span array (`GET /api/v2/trace/{id}`, several traces concatenated).
fn traces(target: usize, rng: &mut Rng) -> Doc {
    let mut out = String::from("[");
    let reserve = 1000;
    let mut spans = 0usize;
    let mut t = 1_764_496_800_000_000u64;
    let mut trace = rng.hex(16);
    while out.len() + reserve < target || spans == 0 {
        if spans > 0 {
            out.push(',');
        }
        if rng.below(20) == 0 {
            trace = rng.hex(16);
        }
        t += rng.range(10, 50_000);
        let from = *rng.pick(&APPS);
        let to = *rng.pick(&APPS);
        let (status, error) = match rng.below(12) {
            0 => ("503", Some(format!("下游服务不可用: {to} 503 Service Unavailable"))),
            1 => ("500", Some(format!("java.lang.IllegalStateException: {to} returned malformed body"))),
            2 => ("504", Some("upstream request timeout".to_string())),
            3 => ("201", None),
            _ => ("200", None),
        };
        span(&mut out, rng, &trace, t, from, to, status, error.as_deref());
        spans += 1;
    }
    out.push(',');
    span(&mut out, rng, &trace, t + 1, "order-svc", "payment-svc", "500", Some(SPAN_FINAL_ERROR));
    out.push(']');
    Doc {
        text: out,
        paths: paths(
            format!("$[{spans}].tags.error"),
            "$[*].tags",
            "$[?@.tags['http.status_code']=='500'].tags.error",
            "$..error",
        ),
        quote: SPAN_QUOTE.to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// Invocations and the outcome check
// ---------------------------------------------------------------------------------------------

fn invocation(id: i64, tool: &str, path: &str, text: &str, doc: &str) -> Invocation {
    let details = serde_json::json!({
        "evidence_status": "supported",
        "evidence_refs": [{"raw_path": path, "text": text}],
    });
    Invocation {
        id,
        tool_name: tool.to_string(),
        retrieval_details: Some(Json::parse(&details.to_string()).unwrap()),
        raw_output: Some(RawOutput::Text(doc.to_string())),
        ..Invocation::default()
    }
}

/// The policy a case runs under: the default, or the fuzzy rung (at its default
/// `--min-score`) for a case the fuzzy rung must verify.
fn policy_for(rung: Option<Rung>) -> Policy {
    match rung {
        Some(Rung::Fuzzy) => Policy::default().with_max_rung(Rung::Fuzzy),
        _ => Policy::default(),
    }
}

/// Verifies once, outside the timed loop: the bench must measure what its name says.
fn expect(name: &str, inv: &Invocation, rung: Option<Rung>) {
    let verdict = Verifier::new(policy_for(rung)).verify(inv);
    let r = &verdict.refs[0];
    match rung {
        Some(rung) => {
            assert_eq!(
                (verdict.status, r.outcome, r.rung),
                (Status::Supported, RefOutcome::Verified, Some(rung)),
                "{name}: {r:?}"
            );
        }
        None => assert_eq!(r.outcome, RefOutcome::TextNotFound, "{name}: {r:?}"),
    }
}

/// Benches `Verifier::verify` of `inv`, after checking its outcome once. The check runs only
/// when the benchmark does (criterion calls the closure only for ids that pass the filter).
fn bench_verify(
    group: &mut BenchmarkGroup<'_, WallTime>,
    id: &str,
    name: &str,
    inv: &Invocation,
    rung: Option<Rung>,
) {
    let verifier = Verifier::new(policy_for(rung));
    let mut unchecked = true;
    group.bench_function(id, |b| {
        if std::mem::take(&mut unchecked) {
            expect(name, inv, rung);
        }
        b.iter(|| verifier.verify(black_box(inv)))
    });
}

fn configure(group: &mut BenchmarkGroup<'_, WallTime>, bytes: usize) {
    group.throughput(Throughput::Bytes(bytes as u64));
    // Ten samples need far fewer than criterion's default 100,000 bootstrap resamples, which
    // cost more time than many of the measurements.
    group.sample_size(10).nresamples(10_000);
    if bytes >= MIB {
        // One iteration takes milliseconds to a second: same count per sample, no 1+2+…+10.
        group.sampling_mode(SamplingMode::Flat);
        group.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    } else {
        // At most a few milliseconds an iteration: half a second is hundreds of iterations.
        group.warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_millis(500));
    }
}

// ---------------------------------------------------------------------------------------------
// Groups
// ---------------------------------------------------------------------------------------------

fn floor(c: &mut Criterion, label: &str, name: &str, doc: &str) {
    let mut group = c.benchmark_group(format!("floor/{name}/{label}"));
    configure(&mut group, doc.len());
    floor_functions(&mut group, doc);
    group.finish();
}

fn floor_functions(group: &mut BenchmarkGroup<'_, WallTime>, doc: &str) {
    group.bench_function("validate", |b| {
        b.iter(|| serde_json::from_slice::<IgnoredAny>(black_box(doc.as_bytes())).unwrap())
    });
    group.bench_function("value", |b| {
        b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(doc.as_bytes())).unwrap())
    });
    group.bench_function("json_parse", |b| b.iter(|| Json::parse(black_box(doc)).unwrap()));
}

fn bench_generated(c: &mut Criterion) {
    for (label, size) in SIZES {
        for kind in Kind::ALL {
            let doc = kind.generate(size, size as u64);
            floor(c, label, kind.name(), &doc.text);

            let mut group = c.benchmark_group(format!("path/{}/{label}", kind.name()));
            configure(&mut group, doc.text.len());
            for (id, (path_name, path)) in doc.paths.iter().enumerate() {
                let inv = invocation(id as i64, kind.tool(), path, &doc.quote, &doc.text);
                let name = format!("path/{}/{label}/{path_name} {path}", kind.name());
                bench_verify(&mut group, path_name, &name, &inv, Some(Rung::Exact));
                if id > 0 {
                    // The general-path floor: serde_json `Value` parse plus the serde_json_path
                    // query alone, on the same bytes.
                    let query = serde_json_path::JsonPath::parse(path).expect("bench paths are valid");
                    group.bench_function(format!("{path_name}_floor"), |b| {
                        b.iter(|| {
                            let v: serde_json::Value =
                                serde_json::from_slice(black_box(doc.text.as_bytes())).unwrap();
                            query.query(&v).len()
                        })
                    });
                }
            }
            group.finish();

            if kind == Kind::Logs {
                let wildcard = &doc.paths[1].1;
                let cases = [
                    ("exact", LOG_QUOTE.to_string(), Some(Rung::Exact)),
                    ("normalized", full_width_upper(LOG_QUOTE), Some(Rung::Normalized)),
                    ("miss", LOG_MISS.to_string(), None),
                    ("fuzzy", LOG_QUOTE.replace("exhausted", "exhasted"), Some(Rung::Fuzzy)),
                ];
                let mut group = c.benchmark_group(format!("rung/{label}"));
                configure(&mut group, doc.text.len());
                for (i, (case, text, rung)) in cases.iter().enumerate() {
                    let inv = invocation(i as i64, kind.tool(), wildcard, text, &doc.text);
                    bench_verify(&mut group, case, &format!("rung/{label}/{case}"), &inv, *rung);
                }
                group.finish();
                if size == MIB {
                    bench_misses(c, label, &doc);
                }
            }
        }
    }
}

/// What a failing ref costs: a miss beside a hit on the same 1 MB `logs` document and its
/// singular path (`$.data.result[N].values[3][1]`): `text_not_found` (a misquote: `nearest`
/// is found), `path_not_found` with `elsewhere` (the right quote under an index past the
/// end) and without (an invented quote under that path).
fn bench_misses(c: &mut Criterion, label: &str, doc: &Doc) {
    let singular = &doc.paths[0].1;
    let wrong = singular.replace("values[3]", "values[99999]");
    assert_ne!(&wrong, singular, "the singular path indexes values[3]");
    let misquote = format!("{} after 3000ms", LOG_QUOTE);
    let cases: [(&str, &str, &str, RefOutcome, bool); 4] = [
        ("hit", singular, LOG_QUOTE, RefOutcome::Verified, false),
        ("text_not_found", singular, &misquote, RefOutcome::TextNotFound, false),
        ("path_not_found_elsewhere", &wrong, LOG_QUOTE, RefOutcome::PathNotFound, true),
        ("path_not_found", &wrong, LOG_MISS, RefOutcome::PathNotFound, false),
    ];
    let mut group = c.benchmark_group(format!("miss/logs/{label}"));
    configure(&mut group, doc.text.len());
    let verifier = Verifier::default();
    for (i, (case, path, text, outcome, elsewhere)) in cases.into_iter().enumerate() {
        let inv = invocation(i as i64, Kind::Logs.tool(), path, text, &doc.text);
        let mut unchecked = true;
        group.bench_function(case, |b| {
            if std::mem::take(&mut unchecked) {
                let r = &verifier.verify(&inv).refs[0];
                assert_eq!((r.outcome, r.elsewhere.is_some()), (outcome, elsewhere), "miss/{case}: {r:?}");
                if outcome == RefOutcome::TextNotFound {
                    assert!(r.nearest.is_some(), "miss/{case}: {r:?}");
                }
            }
            b.iter(|| verifier.verify(black_box(&inv)))
        });
    }
    group.finish();
}

/// JSON inside strings: each 1 MB document wrapped as an MCP tool result (the whole output
/// one string in `content[0].text`), every path pointing through the wrapper, against the
/// same document and path unwrapped. The wrapped case pays for the first evaluation missing,
/// then the expanded view (the document parsed again, the string parsed once).
fn bench_expanded(c: &mut Criterion) {
    for kind in Kind::ALL {
        let doc = kind.generate(MIB, MIB as u64);
        let wrapped =
            format!(r#"{{"content":[{{"type":"text","text":{}}}],"isError":false}}"#, js(&doc.text));
        let mut group = c.benchmark_group(format!("expanded/{}/1MB", kind.name()));
        configure(&mut group, doc.text.len());
        for (id, (path_name, path)) in doc.paths.iter().enumerate() {
            let plain = invocation(id as i64, kind.tool(), path, &doc.quote, &doc.text);
            let name = format!("expanded/{}/plain/{path_name}", kind.name());
            bench_verify(&mut group, &format!("plain/{path_name}"), &name, &plain, Some(Rung::Exact));
            let through = path.replacen('$', "$.content[0].text", 1);
            let inside = invocation(id as i64, kind.tool(), &through, &doc.quote, &wrapped);
            let name = format!("expanded/{}/wrapped/{path_name} {through}", kind.name());
            bench_verify(&mut group, &format!("wrapped/{path_name}"), &name, &inside, Some(Rung::Exact));
        }
        group.finish();
    }
}

/// The Verifier's in-process call: one run of 50 invocations with 64 KiB outputs each, every
/// kind and every path style, verified in parallel by `verify_run`.
fn bench_run(c: &mut Criterion) {
    let policy = Policy::default();
    let mut invocations = Vec::new();
    let mut bytes = 0;
    for i in 0..50u64 {
        let kind = Kind::ALL[i as usize % 4];
        let doc = kind.generate(64 * KIB, 1000 + i);
        let (_, path) = &doc.paths[(i as usize / 4) % 4];
        bytes += doc.text.len();
        invocations.push(invocation(i as i64 + 1, kind.tool(), path, &doc.quote, &doc.text));
    }
    let run = Run { run_id: Some("run-bench".into()), session_id: Some("sess-bench".into()), invocations };

    let mut group = c.benchmark_group("run");
    configure(&mut group, bytes);
    let mut unchecked = true;
    group.bench_function("50x64KB", |b| {
        if std::mem::take(&mut unchecked) {
            let report = Verifier::new(policy).verify_run(&run);
            assert_eq!(report.summary.supported, 50, "{:?}", report.summary);
        }
        let verifier = Verifier::new(policy);
        b.iter(|| verifier.verify_run(black_box(&run)))
    });
    group.finish();
    bench_run_logs(c, &policy);
}

/// The in-process target: `Verifier::verify_run` of 50 Loki outputs of 64 KiB (lines that are
/// JSON, so the text is dense with escapes), each with one singular ref, on one thread (a
/// pool of its own), beside serde_json's validate-only of the same 50 texts.
fn bench_run_logs(c: &mut Criterion, policy: &Policy) {
    let docs: Vec<Doc> = (0..50u64).map(|i| Kind::Logs.generate(64 * KIB, 2000 + i)).collect();
    let invocations = docs
        .iter()
        .enumerate()
        .map(|(i, doc)| invocation(i as i64 + 1, Kind::Logs.tool(), &doc.paths[0].1, &doc.quote, &doc.text))
        .collect();
    let run = Run { run_id: Some("run-bench".into()), session_id: Some("sess-bench".into()), invocations };
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let mut group = c.benchmark_group("run/50x64KB-logs");
    configure(&mut group, docs.iter().map(|d| d.text.len()).sum());
    group.bench_function("validate", |b| {
        b.iter(|| {
            for doc in &docs {
                serde_json::from_slice::<IgnoredAny>(black_box(doc.text.as_bytes())).unwrap();
            }
        })
    });
    let mut unchecked = true;
    group.bench_function("singular_1_thread", |b| {
        if std::mem::take(&mut unchecked) {
            let report = one.install(|| Verifier::new(*policy).verify_run(&run));
            assert_eq!(report.summary.supported, 50, "{:?}", report.summary);
        }
        let verifier = Verifier::new(*policy);
        b.iter(|| one.install(|| verifier.verify_run(black_box(&run))))
    });
    group.finish();
}

/// The last string leaf of at least 8 bytes, in document order: the text a real-file bench
/// quotes, so the whole document is searched before the hit.
fn last_string(value: &serde_json::Value) -> Option<&str> {
    let mut stack = vec![value];
    let mut last = None;
    // Pre-order, document order: children pushed in reverse.
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::String(s) if s.len() >= 8 && !s.trim().is_empty() => last = Some(s.as_str()),
            serde_json::Value::Array(items) => stack.extend(items.iter().rev()),
            serde_json::Value::Object(map) => stack.extend(map.values().rev()),
            _ => {}
        }
    }
    last
}

/// Real tool outputs, `benches/data/tool-outputs/*.json` (each with its source and license).
fn bench_real(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/data/tool-outputs");
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect(),
        Err(_) => Vec::new(),
    };
    if files.is_empty() {
        eprintln!("note: {} has no *.json files; skipping the real/ group", dir.display());
        return;
    }
    files.sort();
    for file in files {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        let Ok(text) = std::fs::read_to_string(&file) else {
            eprintln!("note: {} is not UTF-8 text; skipped", file.display());
            continue;
        };
        let mut group = c.benchmark_group(format!("real/{name}"));
        configure(&mut group, text.len());
        group.bench_function("validate", |b| {
            b.iter(|| serde_json::from_slice::<IgnoredAny>(black_box(text.as_bytes())).unwrap())
        });
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        match last_string(&value) {
            Some(quote) => {
                let inv = invocation(1, "real", "$", quote, &text);
                bench_verify(&mut group, "verify", &format!("real/{name}/verify"), &inv, Some(Rung::Exact));
            }
            None => eprintln!("note: real/{name} has no string leaf to quote; verify skipped"),
        }
        group.finish();
    }
}

criterion_group!(benches, bench_generated, bench_expanded, bench_run, bench_real, bench_yaml);
criterion_main!(benches);

/// `value` as block YAML the way `kubectl get -o yaml` writes it (keys as given, sequences
/// unindented), strings plain when they stay one plain token and double-quoted otherwise.
/// Recursive: bench input only, a handful of levels deep.
fn to_yaml(value: &serde_json::Value) -> String {
    use serde_json::Value;
    fn scalar(v: &Value) -> String {
        match v {
            Value::String(s) => {
                let word = ["true", "false", "null", "yes", "no", "on", "off"]
                    .contains(&s.to_ascii_lowercase().as_str());
                let plain = s.starts_with(|c: char| c.is_ascii_alphabetic())
                    && s.chars().all(|c| c.is_ascii_alphanumeric() || "._/-".contains(c))
                    && !word;
                if plain {
                    s.clone()
                } else {
                    js(s)
                }
            }
            Value::Array(_) => "[]".into(),
            Value::Object(_) => "{}".into(),
            other => other.to_string(),
        }
    }
    fn nested(v: &Value) -> bool {
        v.as_array().is_some_and(|a| !a.is_empty()) || v.as_object().is_some_and(|m| !m.is_empty())
    }
    /// Writes `v` at `indent`; `first` is what goes before its first line (`- ` of an item).
    fn write(v: &Value, indent: usize, first: &str, out: &mut String) {
        let pad = " ".repeat(indent);
        let lead = |out: &mut String, i: usize| {
            if i == 0 && !first.is_empty() {
                out.push_str(first);
            } else {
                out.push_str(&pad);
            }
        };
        match v {
            Value::Object(map) => {
                for (i, (k, child)) in map.iter().enumerate() {
                    lead(out, i);
                    match child {
                        Value::Object(_) if nested(child) => {
                            out.push_str(&format!("{k}:\n"));
                            write(child, indent + 2, "", out);
                        }
                        Value::Array(_) if nested(child) => {
                            out.push_str(&format!("{k}:\n"));
                            write(child, indent, "", out);
                        }
                        _ => out.push_str(&format!("{k}: {}\n", scalar(child))),
                    }
                }
            }
            Value::Array(items) => {
                for item in items {
                    if nested(item) {
                        write(item, indent + 2, &format!("{pad}- "), out);
                    } else {
                        out.push_str(&format!("{pad}- {}\n", scalar(item)));
                    }
                }
            }
            other => out.push_str(&format!("{}\n", scalar(other))),
        }
    }
    let mut out = String::new();
    write(value, 0, "", &mut out);
    out
}

/// The structured view of a text that is not JSON: a 1 MB `kubectl get pods -o yaml` pod list
/// against the same list as `-o json` (the pods of `k8s_pods_kube-system_sonobuoy.json`,
/// repeated under new names), with a singular path and a filter into the last pod.
fn bench_yaml(c: &mut Criterion) {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches/data/tool-outputs/k8s_pods_kube-system_sonobuoy.json");
    let Ok(text) = std::fs::read_to_string(&file) else {
        eprintln!("note: {} is missing; skipping the yaml/ group", file.display());
        return;
    };
    let pods: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let mut items = Vec::new();
    let mut bytes = 0;
    while bytes < MIB {
        let mut pod = pods[items.len() % pods.len()].clone();
        let name = format!("bench-pod-{}", items.len());
        pod["metadata"]["name"] = serde_json::Value::String(name);
        bytes += pod.to_string().len();
        items.push(pod);
    }
    let last = items.len() - 1;
    let list = serde_json::json!({"apiVersion": "v1", "items": items, "kind": "List",
                                  "metadata": {"resourceVersion": "", "selfLink": ""}});
    let json_text = serde_json::to_string_pretty(&list).unwrap();
    let yaml_text = to_yaml(&list);
    let paths = [
        ("singular", format!("$.items[{last}].metadata.name")),
        ("filter", format!("$.items[?@.metadata.name=='bench-pod-{last}'].metadata.name")),
    ];
    let quote = format!("bench-pod-{last}");
    for (format, doc) in [("json", &json_text), ("yaml", &yaml_text)] {
        let mut group = c.benchmark_group(format!("yaml/podlist/1MB/{format}"));
        configure(&mut group, doc.len());
        for (path_name, path) in &paths {
            let inv = invocation(1, "kubectl_get", path, &quote, doc);
            let verdict = Verifier::default().verify(&inv);
            let read_as = if format == "yaml" { vec![Warning::ReadAsYaml] } else { vec![] };
            assert_eq!(verdict.warnings, read_as, "yaml/{format}/{path_name}: {verdict:?}");
            bench_verify(
                &mut group,
                path_name,
                &format!("yaml/{format}/{path_name}"),
                &inv,
                Some(Rung::Exact),
            );
        }
        group.finish();
    }
}
