//! Property tests (proptest) of two promises that examples cannot pin down:
//!
//! - docs/verification.md#classification: classification is per invocation, so a run
//!   verified in parallel (rayon) equals the sequential result, byte for byte — on
//!   generated runs, in 1- and 4-thread pools.
//! - docs/verification.md#exit-codes / docs/rules.md (Storage): `import` then `export`
//!   gives back the bundle, with the normalisations the rules name and nothing else.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::OnceLock;

use groundcheck_core::{
    Bundle, Invocation, Json, Limit, Limits, Policy, RawOutput, Report, Require, Run, RunReport, Rung,
    Summary, Verdict, Verifier,
};
use proptest::prelude::*;
use proptest::sample::{select, Index};
use serde_json::json;

use crate::harness::{run, temp_dir, write};

// --------------------------------------------------------------------- a small JSON generator

/// A JSON document whose number texts are kept as written (`1.50`, `1e3`).
#[derive(Debug, Clone)]
enum Doc {
    Null,
    Bool(bool),
    Num(&'static str),
    Str(String),
    Arr(Vec<Doc>),
    Obj(Vec<(String, Doc)>),
}

const NUMBERS: &[&str] =
    &["0", "-0", "7", "-12", "1.50", "0.950", "1e3", "3E2", "2.5e-3", "1.0", "12345678901234567890123456789"];

const WORDS: &[&str] = &[
    "connection refused",
    "dial tcp 10.0.0.7:5432: connection refused",
    "数据库连接池耗尽",
    "订单服务 order-svc 调用超时",
    "5xx 错误率 12.4%",
    "Timeout",
    "it's",
    "“quoted” ‘text’",
    "ＦＵＬＬ ｗｉｄｔｈ",
    "a\tb",
    "line\nbreak",
    "",
    " ",
    "null",
    "true",
    "1e3",
    "wait…",
    "back\\slash \"q\"",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀",
    "nul\u{0}byte",
    "\u{FFFF}",
];

/// Member names, some of which need brackets or escapes in a path.
const KEYS: &[&str] =
    &["a", "logs", "message", "value", "data", "it's", "中文", "no_evidence", "", "a b", "~/", "0", "\\"];

fn word() -> impl Strategy<Value = String> {
    prop_oneof![3 => select(WORDS).prop_map(String::from), 1 => "\\PC{0,12}"]
}

fn doc() -> impl Strategy<Value = Doc> {
    let leaf = prop_oneof![
        1 => Just(Doc::Null),
        1 => any::<bool>().prop_map(Doc::Bool),
        3 => select(NUMBERS).prop_map(Doc::Num),
        4 => word().prop_map(Doc::Str),
    ];
    leaf.prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Doc::Arr),
            prop::collection::vec((select(KEYS).prop_map(String::from), inner), 0..5).prop_map(Doc::Obj),
        ]
    })
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// The document's JSON text; `spaced` adds insignificant white space.
fn text_of(doc: &Doc, spaced: bool) -> String {
    let mut out = String::new();
    write_doc(doc, spaced, &mut out);
    out
}

fn write_doc(doc: &Doc, spaced: bool, out: &mut String) {
    let sep = if spaced { ", " } else { "," };
    match doc {
        Doc::Null => out.push_str("null"),
        Doc::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Doc::Num(n) => out.push_str(n),
        Doc::Str(s) => out.push_str(&json_string(s)),
        Doc::Arr(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(sep);
                }
                write_doc(item, spaced, out);
            }
            out.push(']');
        }
        Doc::Obj(members) => {
            out.push('{');
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(sep);
                }
                out.push_str(&json_string(k));
                out.push_str(if spaced { " : " } else { ":" });
                write_doc(v, spaced, out);
            }
            out.push('}');
        }
    }
}

#[derive(Debug, Clone)]
enum Seg {
    Key(String),
    Index(usize),
}

/// Every node's location with the texts of the leaves below it, as the matcher sees them
/// (docs/verification.md#the-ladder: strings decoded, numbers as written, `true`/`false`/`null`). Returns the
/// leaves of `doc`.
fn walk(doc: &Doc, at: &mut Vec<Seg>, nodes: &mut Vec<(Vec<Seg>, Vec<String>)>) -> Vec<String> {
    let slot = nodes.len();
    nodes.push((at.clone(), Vec::new()));
    let leaves = match doc {
        Doc::Null => vec!["null".into()],
        Doc::Bool(b) => vec![b.to_string()],
        Doc::Num(n) => vec![n.to_string()],
        Doc::Str(s) => vec![s.clone()],
        Doc::Arr(items) => {
            let mut all = Vec::new();
            for (i, item) in items.iter().enumerate() {
                at.push(Seg::Index(i));
                all.extend(walk(item, at, nodes));
                at.pop();
            }
            all
        }
        Doc::Obj(members) => {
            let mut all = Vec::new();
            for (k, v) in members {
                at.push(Seg::Key(k.clone()));
                all.extend(walk(v, at, nodes));
                at.pop();
            }
            all
        }
    };
    nodes[slot].1 = leaves.clone();
    leaves
}

/// RFC 9535 member-name-shorthand: `$.name` works without brackets.
fn shorthand(key: &str) -> bool {
    let mut chars = key.chars();
    let first = |c: char| c.is_ascii_alphabetic() || c == '_' || c as u32 >= 0x80;
    chars.next().is_some_and(first) && chars.all(|c| first(c) || c.is_ascii_digit())
}

fn bracket(key: &str) -> String {
    format!("['{}']", key.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// The ways a path to `segs` can be written: normalized brackets, dot shorthand, JSON Pointer.
fn spellings(segs: &[Seg]) -> Vec<String> {
    let (mut brackets, mut dots, mut pointer) = ("$".to_string(), "$".to_string(), String::new());
    for seg in segs {
        match seg {
            Seg::Key(k) => {
                brackets.push_str(&bracket(k));
                if shorthand(k) {
                    let _ = write!(dots, ".{k}");
                } else {
                    dots.push_str(&bracket(k));
                }
                let _ = write!(pointer, "/{}", k.replace('~', "~0").replace('/', "~1"));
            }
            Seg::Index(i) => {
                let _ = write!(brackets, "[{i}]");
                let _ = write!(dots, "[{i}]");
                let _ = write!(pointer, "/{i}");
            }
        }
    }
    vec![brackets, dots, pointer]
}

/// A node of the document: the ways to write its path, and the leaf texts below it.
type Target = (Vec<String>, Vec<String>);

/// Every node of the document as a [`Target`] (three spellings of its path; for a member,
/// also descendant and filter queries on its name), and the paths that select nothing or
/// are not paths at all: wildcards, slices, filters, missing members, syntax errors,
/// markers, blanks.
fn targets_of(doc: &Doc) -> (Vec<Target>, Vec<String>) {
    let mut nodes = Vec::new();
    walk(doc, &mut Vec::new(), &mut nodes);
    let targets = nodes
        .into_iter()
        .map(|(segs, leaves)| {
            let mut paths = spellings(&segs);
            if let Some(Seg::Key(k)) = segs.last() {
                paths.push(if shorthand(k) { format!("$..{k}") } else { format!("$..{}", bracket(k)) });
                paths.push(format!("$..[?@{}]", bracket(k)));
            }
            (paths, leaves)
        })
        .collect();
    let others = [
        "$[*]",
        "$..*",
        "$..[0]",
        "$.*.*",
        "$[0:2]",
        "$[-1]",
        "$..[?@ == 'connection refused']",
        "$..[?match(@, '.*time.*')]",
        "$.nope",
        "$[",
        "nope",
        "  $.logs  ",
        "$.no_evidence",
        "$['no_evidence']",
        "",
        "/",
        "/x/~2",
        "$..",
    ];
    (targets, others.iter().map(|p| p.to_string()).collect())
}

/// A quote made from a leaf: as is, cut, shouted, re-spaced, elided, typographic, invented.
fn perturb(text: &str, how: u8, a: Index, b: Index) -> String {
    let chars: Vec<char> = text.chars().collect();
    let n = chars.len();
    let cut = |i: usize, j: usize| chars[i.min(j)..i.max(j)].iter().collect::<String>();
    match how {
        0 | 1 => text.to_string(),
        2 if n > 0 => cut(a.index(n + 1), b.index(n + 1)),
        3 => text.to_uppercase(),
        4 => format!("  {}\t", text.replace(' ', "\n ")),
        5 => format!("{} ... {}", cut(0, n / 3), cut(n * 2 / 3, n)),
        6 => format!("{}…{}", cut(0, n / 2), cut(n / 2, n)),
        7 => format!("{text} invented"),
        8 => text.replace('\'', "’").replace('"', "“").replace('-', "–"),
        _ if a.index(4) == 0 => " ".to_string(),
        _ => text.to_string(),
    }
}

// --------------------------------------------------------------- generated runs to verify

fn refs(doc: &Doc) -> impl Strategy<Value = Vec<serde_json::Value>> {
    let (targets, others) = targets_of(doc);
    // Mostly a path to a node and a quote made from a leaf below it.
    let aimed = (select(targets), any::<Index>(), any::<Index>(), 0..10u8, any::<Index>(), any::<Index>())
        .prop_map(|((paths, leaves), p, l, how, a, b)| {
            let leaf =
                if leaves.is_empty() { "connection refused".to_string() } else { l.get(&leaves).clone() };
            json!({"raw_path": p.get(&paths), "text": perturb(&leaf, how, a, b)})
        });
    // Sometimes a path that selects many nodes, none, or is no path, with any quote.
    let stray = (select(others), word(), 0..10u8, any::<Index>(), any::<Index>())
        .prop_map(|(path, text, how, a, b)| json!({"raw_path": path, "text": perturb(&text, how, a, b)}));
    let one = prop_oneof![
        12 => aimed,
        3 => stray,
        1 => Just(json!({"raw_path": "$.no_evidence", "text": "nothing found"})),
        1 => Just(json!({"raw_path": " $['no_evidence'] "})),
        1 => select(vec![json!({"raw_path": 5, "text": "x"}), json!({"text": "x"}), json!("$.logs"), json!(null)]),
    ];
    prop::collection::vec(one, 0..5)
}

/// `retrieval_details` as the agent may have stored it: a claim object, or something broken.
fn details(refs: Vec<serde_json::Value>, status: Option<&str>, form: u8) -> Option<Json> {
    let mut claim = serde_json::Map::new();
    if let Some(status) = status {
        claim.insert("evidence_status".into(), json!(status));
    }
    claim.insert("evidence_refs".into(), json!(refs));
    let claim = serde_json::Value::Object(claim).to_string();
    let text = match form {
        0..=13 => claim,
        14 => json_string(&format!(" {claim}\n")), // a string holding the JSON text
        15 => return None,
        16 => "null".into(),
        17 => "[1, 2]".into(),
        18 => json_string("not json"),
        _ => r#"{"evidence_status": "supported", "evidence_refs": 5}"#.into(),
    };
    Some(Json::parse(&text).unwrap())
}

fn invocation() -> impl Strategy<Value = Invocation> {
    doc()
        .prop_flat_map(|doc| {
            let status = select(vec![
                Some("supported"),
                Some("unsupported"),
                Some("no_evidence"),
                Some("Supported"),
                None,
            ]);
            (
                Just(doc.clone()),
                refs(&doc),
                status,
                0..20u8,
                0..9u8,
                prop_oneof![4 => Just(None), 4 => Just(Some(true)), 1 => Just(Some(false))],
                select(vec!["query_logs", "query_metrics", "lookup_knowledge"]),
                any::<bool>(),
            )
        })
        .prop_map(|(doc, refs, status, form, raw_form, success, tool, spaced)| {
            let text = text_of(&doc, spaced);
            let mut inv = Invocation {
                tool_name: tool.into(),
                retrieval_details: details(refs, status, form),
                success,
                ..Invocation::default()
            };
            match raw_form {
                0..=2 => inv.raw_output = Some(RawOutput::Json(Json::parse(&text).unwrap())),
                3 | 4 => inv.raw_output = Some(RawOutput::Text(text)),
                5 => inv.raw_output = Some(RawOutput::Text(format!("plain text: {text} {{"))),
                6 => {
                    // A preview that is provably complete stands in for the output
                    // (docs/verification.md#the-raw-document).
                    inv.output_length = Some(text.chars().count() as i64);
                    inv.is_truncated = Some(false);
                    inv.output_preview = Some(text);
                }
                7 => {
                    inv.output_length = Some(text.chars().count() as i64 + 100);
                    inv.is_truncated = Some(true);
                    inv.output_preview = Some(text);
                }
                _ => {}
            }
            inv
        })
}

/// The ids made distinct by moving each repeat up to the next free value (a set strategy
/// would lose elements while shrinking).
fn distinct(ids: Vec<i64>) -> Vec<i64> {
    let mut seen = std::collections::HashSet::new();
    ids.into_iter()
        .map(|mut id| {
            while !seen.insert(id) {
                id = id.wrapping_add(1);
            }
            id
        })
        .collect()
}

/// Runs of invocations with distinct ids (within a run), in shuffled input order.
fn runs() -> impl Strategy<Value = Vec<Run>> {
    let run = prop::collection::vec(invocation(), 1..12).prop_flat_map(|invs| {
        let n = invs.len();
        (Just(invs), prop::collection::vec(-50i64..1_000, n).prop_map(distinct))
    });
    prop::collection::vec(run, 1..4).prop_map(|runs| {
        runs.into_iter()
            .enumerate()
            .map(|(k, (invs, ids))| {
                let run_id = (k % 3 != 2).then(|| format!("run-{k}"));
                let invocations: Vec<Invocation> = invs
                    .into_iter()
                    .zip(ids)
                    .map(|(inv, id)| Invocation {
                        id,
                        run_id: run_id.clone(),
                        session_id: Some(format!("sess-{k}")),
                        ..inv
                    })
                    .collect();
                Run { run_id, session_id: Some(format!("sess-{k}")), invocations }
            })
            .collect()
    })
}

fn policy() -> impl Strategy<Value = Policy> {
    let small = [
        (Limit::OutputSize, 120),
        (Limit::Depth, 3),
        (Limit::TextLength, 12),
        (Limit::PathLength, 10),
        (Limit::Nodes, 3),
        (Limit::Refs, 2),
    ]
    .into_iter()
    .fold(Limits::default(), |l, (limit, n)| l.with(limit, n).expect("a limit of at least 1"));
    select(vec![
        Policy::default(),
        Policy::default().with_max_rung(Rung::Exact),
        Policy::default().with_max_rung(Rung::Normalized),
        Policy::default().with_require(Require::Any),
        Policy::default().with_limits(small),
    ])
}

fn pool(threads: usize) -> &'static rayon::ThreadPool {
    static ONE: OnceLock<rayon::ThreadPool> = OnceLock::new();
    static FOUR: OnceLock<rayon::ThreadPool> = OnceLock::new();
    let cell = if threads == 1 { &ONE } else { &FOUR };
    cell.get_or_init(|| rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap())
}

/// What `Verifier::verify_run` must return, computed the plain way: one invocation after another,
/// then sorted by `id` (docs/verification.md#the-report: invocations within a run by `id`).
fn sequential(run: &Run, policy: &Policy) -> RunReport {
    let mut verdicts: Vec<Verdict> =
        run.invocations.iter().map(|inv| Verifier::new(*policy).verify(inv)).collect();
    verdicts.sort_by_key(|v| v.id);
    RunReport {
        run_id: run.run_id.clone(),
        session_id: run.session_id.clone(),
        summary: Summary::of(&verdicts),
        invocations: verdicts,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// docs/verification.md#classification (last rule) and docs/verification.md (snapshots are
    /// byte-for-byte deterministic): a run verified in parallel equals the sequential result,
    /// byte for byte. Generated runs mix documents with numbers as written, Chinese and
    /// typographic text, refs whose paths come from the document (three spellings, descendant
    /// and filter queries) or are junk, quotes cut, shouted, elided or invented, broken claims
    /// and every raw-output source, under five policies including tiny limits. `verify_run`
    /// and `verify_runs` in a 1-thread and a 4-thread rayon pool, and a plain `verify` loop
    /// sorted by id, must all agree, as values and as serialized JSON.
    #[test]
    fn parallel_verification_equals_sequential(runs in runs(), policy in policy()) {
        let verifier = Verifier::new(policy);
        for run in &runs {
            let expected = sequential(run, &policy);
            let one = pool(1).install(|| verifier.verify_run(run));
            let four = pool(4).install(|| verifier.verify_run(run));
            prop_assert_eq!(&one, &expected);
            prop_assert_eq!(&four, &expected);
            let bytes = serde_json::to_vec(&expected).unwrap();
            prop_assert_eq!(serde_json::to_vec(&one).unwrap(), bytes.clone());
            prop_assert_eq!(serde_json::to_vec(&four).unwrap(), bytes);
        }
        let expected = Report::new(runs.iter().map(|run| sequential(run, &policy)).collect());
        let one = pool(1).install(|| verifier.verify_runs(&runs));
        let four = pool(4).install(|| verifier.verify_runs(&runs));
        prop_assert_eq!(&one, &expected);
        prop_assert_eq!(&four, &expected);
        let bytes = serde_json::to_vec(&expected).unwrap();
        prop_assert_eq!(serde_json::to_vec(&one).unwrap(), bytes.clone());
        prop_assert_eq!(serde_json::to_vec(&four).unwrap(), bytes);
    }
}

/// The property above is only as good as its generator: generated runs must reach every
/// ref outcome, every rung, every classification reason, every document source and both
/// `in_preview` answers (docs/verification.md#checking-a-ref), or "parallel == sequential" would be checked
/// on verdicts that are all alike. Deterministic (a fixed-seed runner).
#[test]
fn generated_runs_reach_every_outcome_reason_and_source() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..200 {
        let runs = runs().new_tree(&mut runner).unwrap().current();
        let policy = policy().new_tree(&mut runner).unwrap().current();
        for verdict in Verifier::new(policy).verify_runs(&runs).runs.into_iter().flat_map(|r| r.invocations) {
            let v = serde_json::to_value(&verdict).unwrap();
            seen.insert(format!("reason {}", v["reason"].as_str().unwrap()));
            seen.insert(format!("source {}", v["source"].as_str().unwrap()));
            for warning in v["warnings"].as_array().unwrap() {
                seen.insert(format!("warning {}", warning.as_str().unwrap()));
            }
            for r in v["refs"].as_array().unwrap() {
                seen.insert(format!("outcome {}", r["outcome"].as_str().unwrap()));
                if let Some(rung) = r["match"].as_str() {
                    seen.insert(format!("match {rung}"));
                }
                if let Some(hint) = r["in_preview"].as_bool() {
                    seen.insert(format!("in_preview {hint}"));
                }
            }
        }
    }
    let mut want: Vec<String> = [
        "verified",
        "empty_text",
        "raw_output_unavailable",
        "invalid_path",
        "path_not_found",
        "text_not_found",
        "malformed_ref",
        "not_checked",
        "no_evidence_marker",
        "limit_exceeded",
    ]
    .iter()
    .map(|o| format!("outcome {o}"))
    .collect();
    want.extend(["exact", "normalized", "elided"].iter().map(|m| format!("match {m}")));
    want.extend(
        [
            "malformed_details",
            "claimed_without_refs",
            "tool_failed",
            "no_evidence_marker",
            "no_refs",
            "verified",
            "partially_verified",
            "not_verified",
        ]
        .iter()
        .map(|r| format!("reason {r}")),
    );
    want.extend(["raw_output", "preview", "none"].iter().map(|s| format!("source {s}")));
    want.extend([
        "in_preview true".to_string(),
        "in_preview false".into(),
        "warning marker_with_refs".into(),
    ]);
    let missing: Vec<&String> = want.iter().filter(|w| !seen.contains(*w)).collect();
    assert!(missing.is_empty(), "the generator never reaches {missing:?}");
}

// ------------------------------------------------------------------ import → export round trip

/// A column of a bundle row: left out, `null`, or a value.
#[derive(Debug, Clone)]
enum Col<T> {
    Absent,
    Null,
    Val(T),
}

fn col<T: std::fmt::Debug + Clone + 'static>(
    value: impl Strategy<Value = T> + 'static,
) -> BoxedStrategy<Col<T>> {
    prop_oneof![1 => Just(Col::Absent), 1 => Just(Col::Null), 3 => value.prop_map(Col::Val)].boxed()
}

/// A `created_at` written with an offset, and the instant it names (UTC, same day).
#[derive(Debug, Clone)]
struct Stamp {
    date: (u32, u32, u32),
    /// UTC minutes of the day, 06:00–15:59, so that every offset below stays on the same day.
    utc_minutes: u32,
    second: u32,
    fraction: String,
    separator: char,
    zone: &'static str,
}

impl Stamp {
    fn offset_minutes(&self) -> i64 {
        match self.zone {
            "+08:00" => 480,
            "-05:30" => -330,
            _ => 0, // Z, z, +00:00, none
        }
    }

    fn text(&self) -> String {
        let local = self.utc_minutes as i64 + self.offset_minutes();
        let (y, m, d) = self.date;
        let fraction = if self.fraction.is_empty() { String::new() } else { format!(".{}", self.fraction) };
        format!(
            "{y:04}-{m:02}-{d:02}{}{:02}:{:02}:{:02}{fraction}{}",
            self.separator,
            local / 60,
            local % 60,
            self.second,
            self.zone
        )
    }

    /// docs/rules.md (Storage): "`created_at` is stored in UTC; bundles may carry any RFC
    /// 3339 offset; exports say `Z`" — with the fraction's trailing zeros trimmed
    /// (groundcheck-store `to_rfc3339`).
    fn exported(&self) -> String {
        let (y, m, d) = self.date;
        let fraction = self.fraction.trim_end_matches('0');
        let fraction = if fraction.is_empty() { String::new() } else { format!(".{fraction}") };
        format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}{fraction}Z",
            self.utc_minutes / 60,
            self.utc_minutes % 60,
            self.second
        )
    }
}

fn stamp() -> impl Strategy<Value = Stamp> {
    (
        (1970u32..2100, 1u32..13, 1u32..29),
        360u32..960,
        0u32..60,
        "[0-9]{0,6}",
        select(vec!['T', 't', ' ']),
        select(vec!["Z", "z", "+00:00", "+08:00", "-05:30", ""]),
    )
        .prop_map(|(date, utc_minutes, second, fraction, separator, zone)| Stamp {
            date,
            utc_minutes,
            second,
            fraction,
            separator,
            zone,
        })
}

#[derive(Debug, Clone)]
enum Raw {
    Absent,
    Null,
    Json(Doc, bool),
    Text(String),
}

/// One bundle row; the session and run columns are resolved against its group when written.
#[derive(Debug, Clone)]
struct Row {
    session: Col<String>,
    run: Col<()>,
    step_id: Col<i64>,
    tool_name: String,
    input_params: Col<(Doc, bool)>,
    output_preview: Col<String>,
    ints: [Col<i32>; 4],     // output_length, l0_match_count, l1_match_count, duration_ms
    texts: [Col<String>; 4], // retrieval_layer, relevance_level, dedup_reason, error_message
    bools: [Col<bool>; 2],   // is_truncated, success
    retrieval_details: Col<(Doc, bool)>,
    created_at: Stamp,
    raw: Raw,
}

fn row() -> impl Strategy<Value = Row> {
    let raw = prop_oneof![
        1 => Just(Raw::Absent),
        1 => Just(Raw::Null),
        3 => (doc(), any::<bool>()).prop_map(|(d, s)| Raw::Json(d, s)),
        1 => (doc(), any::<bool>()).prop_map(|(d, s)| Raw::Text(text_of(&d, s))),
        2 => word().prop_map(Raw::Text),
    ];
    let ints = proptest::array::uniform4(col(any::<i32>()));
    let texts = proptest::array::uniform4(col(word()));
    (
        (col(word()), col(Just(())), col(any::<i64>()), word(), col((doc(), any::<bool>())), col(word())),
        (ints, texts, proptest::array::uniform2(col(any::<bool>()))),
        (col((doc(), any::<bool>())), stamp(), raw),
    )
        .prop_map(
            |(
                (session, run, step_id, tool_name, input_params, output_preview),
                (ints, texts, bools),
                (retrieval_details, created_at, raw),
            )| Row {
                session,
                run,
                step_id,
                tool_name,
                input_params,
                output_preview,
                ints,
                texts,
                bools,
                retrieval_details,
                created_at,
                raw,
            },
        )
}

/// A bundle file: a run (`run_id` at the top) or a session's rows without a `run_id`.
#[derive(Debug, Clone)]
struct Group {
    /// `Some(run_id)` for a run, `None` for run-less rows of the group's session.
    run_id: Option<String>,
    session_id: String,
    rows: Vec<(i64, Row)>,
}

fn groups() -> impl Strategy<Value = Vec<Group>> {
    let group = (
        any::<bool>(),
        select(vec!["run", "运行", "r.1", "run id"]),
        select(vec!["sess", "会话"]),
        prop::collection::vec(row(), 1..6),
    );
    prop::collection::vec(group, 1..4)
        .prop_flat_map(|groups| {
            let n: usize = groups.iter().map(|g| g.3.len()).sum();
            (
                Just(groups),
                prop::collection::btree_set(any::<i64>(), n).prop_map(Vec::from_iter).prop_shuffle(),
            )
        })
        .prop_map(|(groups, ids)| {
            let mut ids = ids.into_iter();
            groups
                .into_iter()
                .enumerate()
                .map(|(k, (is_session, run_prefix, session_prefix, rows))| Group {
                    run_id: (!is_session).then(|| format!("{run_prefix}-{k}")),
                    session_id: format!("{session_prefix}-{k}"),
                    rows: rows.into_iter().map(|r| (ids.next().unwrap(), r)).collect(),
                })
                .collect()
        })
}

fn member<T>(out: &mut Vec<String>, key: &str, col: &Col<T>, value: impl Fn(&T) -> String) {
    match col {
        Col::Absent => {}
        Col::Null => out.push(format!("{}: null", json_string(key))),
        Col::Val(v) => out.push(format!("{}: {}", json_string(key), value(v))),
    }
}

/// The group as a bundle file's text, JSON columns written verbatim (`1.50` stays `1.50`).
fn bundle_text(group: &Group) -> String {
    let mut rows = Vec::new();
    for (id, row) in &group.rows {
        let mut m = vec![format!("\"id\": {id}")];
        // A run-less group's rows belong to its session: an explicit session is that one.
        let session = match (&group.run_id, &row.session) {
            (None, Col::Val(_)) => Col::Val(group.session_id.clone()),
            (_, other) => other.clone(),
        };
        member(&mut m, "session_id", &session, |s| json_string(s));
        let run = match (&group.run_id, &row.run) {
            (Some(run), Col::Val(())) => Some(json_string(run)),
            (None, Col::Val(())) => Some("null".into()),
            (_, Col::Null) => Some("null".into()),
            (_, Col::Absent) => None,
        };
        if let Some(run) = run {
            m.push(format!("\"run_id\": {run}"));
        }
        member(&mut m, "step_id", &row.step_id, |n| n.to_string());
        m.push(format!("\"tool_name\": {}", json_string(&row.tool_name)));
        member(&mut m, "input_params", &row.input_params, |(d, s)| text_of(d, *s));
        member(&mut m, "output_preview", &row.output_preview, |s| json_string(s));
        for (key, c) in
            ["output_length", "l0_match_count", "l1_match_count", "duration_ms"].iter().zip(&row.ints)
        {
            member(&mut m, key, c, |n| n.to_string());
        }
        for (key, c) in
            ["retrieval_layer", "relevance_level", "dedup_reason", "error_message"].iter().zip(&row.texts)
        {
            member(&mut m, key, c, |s| json_string(s));
        }
        for (key, c) in ["is_truncated", "success"].iter().zip(&row.bools) {
            member(&mut m, key, c, |b| b.to_string());
        }
        member(&mut m, "retrieval_details", &row.retrieval_details, |(d, s)| text_of(d, *s));
        m.push(format!("\"created_at\": {}", json_string(&row.created_at.text())));
        match &row.raw {
            Raw::Absent => {}
            Raw::Null => m.push("\"raw_output\": null".into()),
            Raw::Json(d, s) => m.push(format!("\"raw_output\": {}", text_of(d, *s))),
            Raw::Text(t) => m.push(format!("\"raw_output_text\": {}", json_string(t))),
        }
        rows.push(format!("{{{}}}", m.join(", ")));
    }
    let run =
        group.run_id.as_deref().map(|r| format!("\"run_id\": {}, ", json_string(r))).unwrap_or_default();
    format!(
        "{{{run}\"session_id\": {}, \"invocations\": [\n{}\n]}}\n",
        json_string(&group.session_id),
        rows.join(",\n")
    )
}

/// What `export` must give back for a row read from the bundle: docs/rules.md (Storage) —
/// `created_at` in UTC with `Z`; an inline `raw_output` "stored as its compact JSON text,
/// numbers as written, and exported as `raw_output_text`". Nothing else changes.
fn exported_form(mut inv: Invocation, stamp: &Stamp) -> Invocation {
    inv.created_at = Some(stamp.exported());
    if let Some(RawOutput::Json(doc)) = &inv.raw_output {
        inv.raw_output = Some(RawOutput::Text(doc.to_json_string()));
    }
    inv
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: None,
        max_shrink_iters: 256,
        ..ProptestConfig::default()
    })]

    /// docs/verification.md#exit-codes (`import` / `export`: bundles into and out of the database) and README
    /// ("`export` writes runs back out as bundles"): a generated bundle — valid ids over all
    /// of i64, every optional column absent, null or set, Chinese and control characters,
    /// numbers like `1.50` and `1e3` in JSON columns, raw output inline or as text, runs and
    /// run-less sessions — imported into a fresh SQLite database by the real binary, then
    /// exported, reads back (`Bundle::parse` on both sides) as the same rows, up to the
    /// normalisations docs/rules.md names: `created_at` in UTC with `Z`, inline `raw_output`
    /// as its compact text in `raw_output_text`. Each exported file's top-level `run_id` is
    /// its run and its `session_id` the lowest id's (docs/rules.md: a database has no file
    /// order).
    #[test]
    fn import_then_export_gives_back_the_bundle(groups in groups()) {
        let dir = temp_dir();
        let db = format!("sqlite://{}", dir.path().join("round.db").display());
        let mut files = Vec::new();
        let mut stamps = BTreeMap::new();
        let mut expected: Vec<Invocation> = Vec::new();
        for (k, group) in groups.iter().enumerate() {
            let text = bundle_text(group);
            let original = Bundle::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            for (id, row) in &group.rows {
                stamps.insert(*id, row.created_at.clone());
            }
            expected.extend(original.invocations.into_iter().map(|inv| {
                let stamp = &stamps[&inv.id];
                exported_form(inv, stamp)
            }));
            files.push(write(dir.path(), &format!("in-{k}.json"), text).display().to_string());
        }
        let mut args = vec!["import".to_string(), "--database".into(), db.clone()];
        args.extend(files);
        let imported = run(&args);
        prop_assert_eq!(imported.code, 0, "import: {}", imported.stderr);

        let out = dir.path().join("out");
        let mut args = vec!["export".to_string(), "--database".into(), db, "--out".into(), out.display().to_string()];
        for group in &groups {
            match &group.run_id {
                Some(run) => args.push(run.clone()),
                None => args.extend(["--session".to_string(), group.session_id.clone()]),
            }
        }
        let exported = run(&args);
        prop_assert_eq!(exported.code, 0, "export: {}", exported.stderr);
        let paths: Vec<&str> = exported.stdout.lines().collect();
        prop_assert_eq!(paths.len(), groups.len());

        let mut got: Vec<Invocation> = Vec::new();
        for (group, path) in groups.iter().zip(paths) {
            let text = std::fs::read_to_string(path).unwrap();
            let bundle = Bundle::parse(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
            prop_assert_eq!(bundle.run_id.as_ref(), group.run_id.as_ref(), "{}", path);
            let lowest = bundle.invocations.iter().min_by_key(|i| i.id).unwrap();
            prop_assert_eq!(bundle.session_id.as_ref(), lowest.session_id.as_ref(), "{}", path);
            got.extend(bundle.invocations);
        }
        got.sort_by_key(|i| i.id);
        expected.sort_by_key(|i| i.id);
        prop_assert_eq!(got, expected);
    }
}

/// The counterexample the round-trip property found, pinned on every engine: a JSON column
/// whose whole value is a number (`input_params: 1.50`, `retrieval_details: 1e3`, `-0`, a
/// number beyond f64) keeps its text through `import` and `export` (ARCHITECTURE.md: "JSON
/// crosses as text, so numbers … survive a round trip";
/// docs/verification.md#the-raw-document: numbers keep their text), and importing the same
/// file again changes nothing (README: "importing again changes nothing"). On SQLite a
/// column declared `JSON` has NUMERIC affinity, which turns such a text into a number
/// (`1.50` → `1.5`, `1e3` → `1000`) unless groundcheck prevents it.
#[test]
fn bare_numbers_in_json_columns_keep_their_text_on_every_engine() {
    const BUNDLE: &str = r#"{"run_id": "r-bare", "session_id": "s-bare", "invocations": [
      {"id": 7001, "tool_name": "t", "created_at": "2026-11-30T10:00:00Z", "input_params": 1.50, "retrieval_details": 1e3},
      {"id": 7002, "tool_name": "t", "created_at": "2026-11-30T10:00:00Z", "input_params": -0,
       "retrieval_details": 12345678901234567890123456789},
      {"id": 7003, "tool_name": "t", "created_at": "2026-11-30T10:00:00Z", "input_params": 0.950, "retrieval_details": 3E2}]}"#;
    for engine in crate::engines::all() {
        let (name, url) = (engine.name, engine.url.as_str());
        let dir = temp_dir();
        let file = write(dir.path(), "bare.json", BUNDLE);
        let file = file.to_str().unwrap();
        assert_eq!(run(["migrate", "--database", url]).code, 0, "{name}");
        let first = run(["import", "--database", url, file]);
        assert_eq!(first.code, 0, "{name}: {}", first.stderr);
        let again = run(["import", "--database", url, file]);
        assert_eq!(
            (again.code, again.stdout.trim_end()),
            (0, format!("{file}: 0 imported, 3 already present").as_str()),
            "{name}: importing again changes nothing: {}",
            again.stderr
        );
        let out = dir.path().join("out");
        let exported = run(["export", "--database", url, "r-bare", "--out", out.to_str().unwrap()]);
        assert_eq!(exported.code, 0, "{name}: {}", exported.stderr);
        let back = Bundle::parse(&std::fs::read_to_string(out.join("r-bare.json")).unwrap()).unwrap();
        let texts: Vec<(String, String)> = back
            .invocations
            .iter()
            .map(|i| {
                let text = |j: &Option<Json>| j.as_ref().map(Json::to_json_string).unwrap_or_default();
                (text(&i.input_params), text(&i.retrieval_details))
            })
            .collect();
        let want = [("1.50", "1e3"), ("-0", "12345678901234567890123456789"), ("0.950", "3E2")];
        let want: Vec<(String, String)> = want.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        assert_eq!(texts, want, "{name}: number texts as written");
    }
}
