//! `--otel` and `--otlp-endpoint`: every line the real binary writes decodes as OTLP
//! `LogsData` with the official types (the `opentelemetry-proto` crate), one record per
//! invocation with the attributes of docs/opentelemetry.md; the push is received and decoded
//! by a real HTTP server on loopback; a receiver that is down, answers 503 or never answers
//! changes neither the report nor the exit code. The `OTEL_*` variables, https and headers
//! are in `otel_env`, on the same receiver.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::Duration;

use groundcheck_otel::proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use groundcheck_otel::proto::tonic::common::v1::any_value::Value as Any;
use groundcheck_otel::proto::tonic::logs::v1::{LogRecord, LogsData};
use groundcheck_otel::{MAX_LINE_BYTES, MAX_RECORDS};
use prost::Message;
use serde_json::Value;

use crate::harness::{repo, run, run_with, summary_total, temp_dir, write, Outcome};

/// Decodes one OTLP JSON line with the official types. serde_json_lenient, not serde_json:
/// the workspace builds serde_json with `arbitrary_precision`, which hands every number to
/// opentelemetry-proto's `doubleValue` visitor as a map (openobserve/openobserve#14408).
pub(crate) fn decode(line: &str) -> LogsData {
    serde_json_lenient::from_str(line).unwrap_or_else(|e| panic!("not OTLP LogsData: {e}: {line}"))
}

pub(crate) fn records(data: &LogsData) -> Vec<&LogRecord> {
    data.resource_logs.iter().flat_map(|r| &r.scope_logs).flat_map(|s| &s.log_records).collect()
}

/// Every line of an `--otel` file, decoded; each within the documented bounds.
pub(crate) fn decode_file(path: &Path) -> Vec<LogsData> {
    let text = std::fs::read_to_string(path).expect("the --otel file exists");
    assert!(text.ends_with('\n'), "the last line ends with a newline");
    text.lines()
        .map(|line| {
            let data = decode(line);
            assert!(records(&data).len() <= MAX_RECORDS);
            assert!(line.len() <= MAX_LINE_BYTES || records(&data).len() == 1, "{} bytes", line.len());
            data
        })
        .collect()
}

fn attributes(record: &LogRecord) -> BTreeMap<&str, &Any> {
    let mut map = BTreeMap::new();
    for kv in &record.attributes {
        let value = kv.value.as_ref().and_then(|v| v.value.as_ref()).expect("every attribute has a value");
        assert!(map.insert(kv.key.as_str(), value).is_none(), "{} twice", kv.key);
    }
    map
}

fn string(value: Option<&&Any>) -> Option<String> {
    match value {
        Some(Any::StringValue(s)) => Some(s.clone()),
        None => None,
        other => panic!("not a string: {other:?}"),
    }
}

/// The report's verdicts by (run_id, id), with their run's session.
fn verdicts(report: &Value) -> BTreeMap<(Option<String>, i64), (Option<String>, Value)> {
    let mut map = BTreeMap::new();
    for run in report["runs"].as_array().unwrap() {
        let run_id = run["run_id"].as_str().map(str::to_string);
        let session = run["session_id"].as_str().map(str::to_string);
        for v in run["invocations"].as_array().unwrap() {
            let key = (run_id.clone(), v["id"].as_i64().unwrap());
            assert!(map.insert(key, (session.clone(), v.clone())).is_none());
        }
    }
    map
}

/// Checks that `data` holds exactly one record per verdict of `report`, each saying what the
/// verdict says; returns how many records there were.
fn check_against_report(data: &[LogsData], report: &Value, policy: &str) -> usize {
    check_records(data, report, policy, true)
}

/// Like [`check_against_report`]; `sessions`: whether the conversation ids are compared too
/// (a run's session is its first invocation's: in input order for files, in id order for a
/// database, so `reverify` may name another session of a run that spans several).
fn check_records(data: &[LogsData], report: &Value, policy: &str, sessions: bool) -> usize {
    let mut expected = verdicts(report);
    let mut seen = 0;
    for line in data {
        let resource = line.resource_logs[0].resource.as_ref().expect("a resource");
        let service: Vec<_> = resource.attributes.iter().map(|kv| kv.key.as_str()).collect();
        assert_eq!(service, ["service.name", "service.version"]);
        for record in records(line) {
            seen += 1;
            assert_eq!(record.event_name, "gen_ai.evaluation.result");
            assert!(record.time_unix_nano > 0 && record.observed_time_unix_nano == record.time_unix_nano);
            let a = attributes(record);
            let run_id = string(a.get("groundcheck.run.id"));
            let Some(Any::IntValue(id)) = a.get("groundcheck.invocation.id") else { panic!("no id: {a:?}") };
            let (session, v) = expected.remove(&(run_id.clone(), *id)).unwrap_or_else(|| {
                panic!("a record for ({run_id:?}, {id}) that the report does not have, or a second one")
            });
            let label = string(a.get("gen_ai.evaluation.score.label"));
            assert_eq!(string(a.get("gen_ai.evaluation.name")).as_deref(), Some("groundcheck.evidence"));
            assert_eq!(label.as_deref(), v["status"].as_str());
            assert_eq!(string(a.get("groundcheck.reason")).as_deref(), v["reason"].as_str());
            assert_eq!(string(a.get("gen_ai.tool.name")).as_deref(), v["tool_name"].as_str());
            if sessions {
                assert_eq!(string(a.get("gen_ai.conversation.id")), session);
            }
            assert_eq!(string(a.get("groundcheck.claimed_status")).as_deref(), v["claimed_status"].as_str());
            assert_eq!(string(a.get("groundcheck.policy")).as_deref(), Some(policy));
            let agrees = a.get("groundcheck.claim_agrees").map(|b| matches!(b, Any::BoolValue(true)));
            assert_eq!(agrees, v["claim_agrees"].as_bool());
            let explanation = string(a.get("gen_ai.evaluation.explanation")).expect("an explanation");
            assert!(explanation.starts_with(v["reason"].as_str().unwrap()), "{explanation}");

            let refs = v["refs"].as_array().unwrap();
            let real = refs.iter().filter(|r| r["outcome"] != "no_evidence_marker").count();
            let verified = refs.iter().filter(|r| r["outcome"] == "verified").count();
            match a.get("gen_ai.evaluation.score.value") {
                Some(Any::DoubleValue(share)) => {
                    assert!(real > 0 && label.as_deref() != Some("no_evidence"));
                    assert_eq!(*share, verified as f64 / real as f64);
                }
                None => assert_eq!(real, 0, "a verdict with real refs has a score: {v}"),
                other => panic!("score.value is a double: {other:?}"),
            }
            let malformed = v["reason"] == "malformed_details";
            assert_eq!(string(a.get("error.type")).is_some(), malformed);
            let severity = if label.as_deref() == Some("unsupported") { 13 } else { 9 };
            assert_eq!(record.severity_number, severity);
        }
    }
    assert!(expected.is_empty(), "verdicts without a record: {:?}", expected.keys().collect::<Vec<_>>());
    seen
}

fn json(out: &Outcome) -> Value {
    assert!(out.code == 0 || out.code == 1, "exit {}: {}", out.code, out.stderr);
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
}

const POLICY: &str = "require=all;match=elided";

/// The protocol's own examples decode with the same types: the decoder is the official one.
#[test]
fn the_official_otlp_examples_decode() {
    let logs = decode(include_str!("data/otel/logs.json"));
    let record = records(&logs)[0];
    assert_eq!(record.trace_id.len(), 16);
    assert!(matches!(attributes(record)["double.attribute"], Any::DoubleValue(d) if *d == 637.704));
    let events = decode(include_str!("data/otel/events.json"));
    assert_eq!(records(&events)[0].event_name, "browser.page_view");
}

#[test]
fn every_fixture_verdict_is_one_record_with_its_attributes() {
    let dir = temp_dir();
    let file = dir.path().join("verdicts.jsonl");
    let paths = ["fixtures", "fixtures/hostile"];
    let mut args = vec!["verify", "--format", "json", "--otel", file.to_str().unwrap()];
    args.extend(paths);
    let with = run(&args);
    let report = json(&with);
    let lines = decode_file(&file);
    let seen = check_against_report(&lines, &report, POLICY);
    let total = summary_total(&report, "invocations");
    assert_eq!(seen as u64, total);

    // The report is the same bytes as without --otel.
    let without = run([&["verify", "--format", "json"][..], &paths].concat());
    assert_eq!((with.stdout, with.code), (without.stdout, without.code));
}

#[test]
fn the_policy_is_the_one_the_verdicts_were_decided_under() {
    let dir = temp_dir();
    let file = dir.path().join("v.jsonl");
    let out = run([
        "verify",
        "--format",
        "json",
        "--match",
        "fuzzy",
        "--min-score",
        "0.9",
        "--require",
        "any",
        "--otel",
        file.to_str().unwrap(),
        "fixtures/25_near_misses.json",
    ]);
    check_against_report(&decode_file(&file), &json(&out), "require=any;match=fuzzy;min_score=0.900");
}

#[test]
fn otel_to_stdout_replaces_the_report_and_keeps_the_exit_code() {
    let fixture = "fixtures/17_claim_agreement_kafka.json";
    let out = run(["verify", "--fail-on", "unsupported", "--otel", "-", fixture]);
    let plain = run(["verify", "--fail-on", "unsupported", "--format", "json", fixture]);
    assert_eq!(out.code, plain.code, "{}", out.stderr);
    let lines: Vec<LogsData> = out.stdout.lines().map(decode).collect();
    assert!(!lines.is_empty());
    check_against_report(&lines, &json(&plain), POLICY);
}

/// One fixture's OTLP JSON, with the time fixed: the mapping, byte for byte.
#[test]
fn snapshot_of_one_fixture_with_a_fixed_time() {
    let out = run([
        "verify",
        "--otel",
        "-",
        "--otel-time",
        "2026-11-30T10:00:00Z",
        "fixtures/23_json_in_strings_near_misses.json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.lines().count(), 1);
    let line: Value = serde_json::from_str(&out.stdout).unwrap();
    let pretty = serde_json::to_string_pretty(&line).unwrap().replace(env!("CARGO_PKG_VERSION"), "[version]");
    insta::assert_snapshot!(pretty);
}

#[test]
fn a_bad_otel_flag_is_one_line_and_exit_2() {
    let fixture = "fixtures/01_order_svc_5xx_spike.json";
    for (flags, says) in [
        (&["--otel-time", "yesterday", "--otel", "-"][..], "--otel-time: "),
        (&["--otlp-endpoint", "gw://user:hunter2@gw:4318"][..], "not an http:// or https:// URL"),
        (
            &["--otel", "/nonexistent-folder/v.jsonl"][..],
            "--otel /nonexistent-folder/v.jsonl: cannot create it",
        ),
    ] {
        let out = run([&["verify"][..], flags, &[fixture]].concat());
        assert_eq!(out.code, 2, "{flags:?}");
        assert_eq!(out.stdout, "", "{flags:?}");
        assert_eq!(out.stderr.lines().count(), 1, "{flags:?}: {}", out.stderr);
        assert!(out.stderr.contains(says), "{flags:?}: {}", out.stderr);
        assert!(!out.stderr.contains("hunter2"), "{}", out.stderr);
    }
}

#[test]
fn reverify_writes_a_record_per_invocation_from_a_sqlite_database() {
    let dir = temp_dir();
    let url = format!("sqlite://{}", dir.path().join("otel.db").display());
    let import = run(["import", "--database", &url, "fixtures"]);
    assert_eq!(import.code, 0, "{}", import.stderr);
    let file = dir.path().join("reverify.jsonl");
    let out = run([
        "reverify",
        "--database",
        &url,
        "--format",
        "json",
        "--batch-rows",
        "7",
        "--otel",
        file.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let summary = json(&out);
    let lines = decode_file(&file);
    // Against `verify` of the same fixtures: the same verdicts, one record each.
    let report = json(&run(["verify", "--format", "json", "fixtures"]));
    let seen = check_records(&lines, &report, POLICY, false);
    assert_eq!(seen as u64, summary["summary"]["invocations"].as_u64().unwrap());

    // `--otel -`: the lines are the standard output, the summary is not printed.
    let stdout = run(["reverify", "--database", &url, "--otel", "-"]);
    assert_eq!(stdout.code, 0, "{}", stdout.stderr);
    let lines: Vec<LogsData> = stdout.stdout.lines().map(decode).collect();
    assert_eq!(check_records(&lines, &report, POLICY, false), seen);
}

/// How a loopback receiver behaves.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Receiver {
    /// Answers 200 and hands every request to the test.
    Collector,
    /// Answers every request 503 with `Retry-After: 1`.
    Unavailable,
    /// Accepts connections and never answers.
    Hangs,
}

/// A request the collector received: its path, headers (names in lower case) and body.
pub(crate) struct Received {
    pub path: String,
    pub headers: BTreeMap<String, String>,
    pub body: Vec<u8>,
}

impl Received {
    fn content_type(&self) -> &str {
        self.headers.get("content-type").map_or("", String::as_str)
    }
}

/// Starts a real HTTP server on 127.0.0.1; returns its base URL.
pub(crate) fn serve(behaviour: Receiver) -> (String, mpsc::Receiver<Received>) {
    serve_with(behaviour, None)
}

/// Starts a real HTTP server on 127.0.0.1, speaking TLS with `tls`; returns its base URL.
pub(crate) fn serve_with(
    behaviour: Receiver,
    tls: Option<Arc<rustls::ServerConfig>>,
) -> (String, mpsc::Receiver<Received>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let scheme = if tls.is_some() { "https" } else { "http" };
    let url = format!("{scheme}://{}", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            if behaviour == Receiver::Hangs {
                held.push(stream); // open, never read, never answered
                continue;
            }
            let tx = tx.clone();
            let tls = tls.clone();
            thread::spawn(move || match tls {
                // A client that refuses the certificate ends the handshake: nothing to answer.
                Some(config) => match rustls::ServerConnection::new(config) {
                    Ok(connection) => answer(rustls::StreamOwned::new(connection, stream), behaviour, &tx),
                    Err(e) => panic!("a TLS server connection: {e}"),
                },
                None => answer(stream, behaviour, &tx),
            });
        }
    });
    (url, rx)
}

fn answer<S: Read + Write>(stream: S, behaviour: Receiver, tx: &mpsc::Sender<Received>) {
    let mut reader = BufReader::new(stream);
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        let (mut length, mut headers) = (0, BTreeMap::new());
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).is_err() {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            let (name, value) = header.split_once(':').unwrap();
            let name = name.to_ascii_lowercase();
            if name == "content-length" {
                length = value.trim().parse().unwrap();
            }
            headers.insert(name, value.trim().to_string());
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let reply: &[u8] = match behaviour {
            Receiver::Collector => {
                let path = request_line.split_whitespace().nth(1).unwrap_or("").to_string();
                let _ = tx.send(Received { path, headers, body });
                b"HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\nContent-Length: 0\r\n\r\n"
            }
            _ => b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n",
        };
        let stream = reader.get_mut();
        if stream.write_all(reply).and_then(|()| stream.flush()).is_err() {
            return;
        }
    }
}

/// Runs the binary on a thread and fails the test if it has not finished in `watchdog`
/// (generous: this asserts that the run ends, not how fast).
pub(crate) fn run_watched(args: Vec<String>, watchdog: Duration) -> Outcome {
    run_watched_with(args, Vec::new(), watchdog)
}

/// [`run_watched`] with environment variables.
pub(crate) fn run_watched_with(args: Vec<String>, env: Vec<(String, String)>, watchdog: Duration) -> Outcome {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let _ = tx.send(run_with(&args, &env, None));
    });
    rx.recv_timeout(watchdog).unwrap_or_else(|_| panic!("groundcheck was still running after {watchdog:?}"))
}

pub(crate) fn verify_args(extra: &[&str]) -> Vec<String> {
    let fixtures = repo("fixtures");
    let mut args: Vec<String> =
        ["verify", "--format", "json", "--fail-on", "claim-mismatch"].map(String::from).to_vec();
    args.extend(extra.iter().map(|s| s.to_string()));
    args.push(fixtures.to_str().unwrap().to_string());
    args
}

#[test]
fn the_push_is_received_and_decodes_to_the_records_of_the_file() {
    let (url, received) = serve(Receiver::Collector);
    let dir = temp_dir();
    let file = dir.path().join("v.jsonl");
    let out = run_watched(
        verify_args(&["--otlp-endpoint", &url, "--otel", file.to_str().unwrap()]),
        Duration::from_secs(120),
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(!out.stderr.contains("not delivered"), "{}", out.stderr);
    let from_file: Vec<LogRecord> =
        decode_file(&file).iter().flat_map(|d| records(d).into_iter().cloned().collect::<Vec<_>>()).collect();
    let mut pushed = Vec::new();
    while pushed.len() < from_file.len() {
        let request = received.recv_timeout(Duration::from_secs(60)).expect("the collector got every record");
        assert_eq!(request.path, "/v1/logs");
        assert_eq!(request.content_type(), "application/x-protobuf");
        let decoded = ExportLogsServiceRequest::decode(request.body.as_slice()).expect("OTLP protobuf");
        let data = LogsData { resource_logs: decoded.resource_logs };
        pushed.extend(records(&data).into_iter().cloned());
    }
    assert_eq!(pushed, from_file);
}

/// A receiver that is down, refuses, or hangs: the same report bytes and exit code as without
/// `--otlp-endpoint`, one warning line naming the endpoint (credentials redacted), and the
/// run ends.
#[test]
fn a_dead_slow_or_refusing_receiver_changes_nothing_but_one_warning() {
    let plain = run(verify_args(&[]));
    let closed = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    }; // dropped: nothing listens there any more
    let (unavailable, _requests) = serve(Receiver::Unavailable);
    let (hangs, _none) = serve(Receiver::Hangs);
    for (name, base) in [("down", closed), ("503", unavailable), ("hangs", hangs)] {
        let endpoint = base.replace("http://", "http://gc:hunter2@");
        let out = run_watched(verify_args(&["--otlp-endpoint", &endpoint]), Duration::from_secs(120));
        assert_eq!(out.code, plain.code, "{name}: {}", out.stderr);
        assert_eq!(out.stdout, plain.stdout, "{name}");
        let extra: Vec<&str> = out.stderr.lines().filter(|l| !plain.stderr.contains(*l)).collect();
        assert_eq!(extra.len(), 1, "{name}: {}", out.stderr);
        assert!(
            extra[0].contains("OpenTelemetry push:") && extra[0].contains("not delivered"),
            "{name}: {}",
            extra[0]
        );
        assert!(
            extra[0].starts_with(&format!("{}/v1/logs: ", base.replace("http://", "http://gc:***@"))),
            "{}",
            extra[0]
        );
        assert!(!out.stderr.contains("hunter2"), "{name}: {}", out.stderr);
    }
}

/// A failed ref reads the same in the `human` table and in the OpenTelemetry explanation: every
/// column of every line the table writes under a ref (its layout splits them by two spaces)
/// is, word for word, in the explanation of that ref's invocation — near misses, the text
/// elsewhere, nothing close (after a path and after a text not found), a refused path, a
/// limit with its flag, and what the preview of a row without raw output holds.
#[test]
fn the_human_table_and_the_explanation_say_a_failed_ref_in_the_same_words() {
    let dir = temp_dir();
    let bundle = serde_json::json!({"invocations": [
        {"id": 1, "tool_name": "query_logs",
         "raw_output": {"logs": ["dial tcp: connection refused", "pool exhausted after 30s"]},
         "retrieval_details": {"evidence_refs": [
            {"raw_path": "$.logs[0]", "text": "connection refused by the peer"},
            {"raw_path": "$.logs[0]", "text": "conection refused"},
            {"raw_path": "$.logs[0]", "text": "pool exhausted"},
            {"raw_path": "$.nowhere", "text": "disk full on node-7"},
            {"raw_path": "$.logs[1]", "text": "zzzzqqqq"}]}},
        {"id": 2, "tool_name": "query_metrics", "output_preview": "p99 latency 950ms",
         "retrieval_details": {"evidence_refs": [
            {"raw_path": "$.p99", "text": "950ms"},
            {"raw_path": "$.p50", "text": "20ms"}]}},
        {"id": 3, "tool_name": "query_traces", "raw_output": {"a": "p99 9500ms"},
         "retrieval_details": {"evidence_refs": [
            {"raw_path": "$[", "text": "refused"},
            {"raw_path": "$.a", "text": "p99 950"}]}}]});
    let file = write(dir.path(), "bundle.json", bundle.to_string());
    let otel = dir.path().join("otel.jsonl");
    let args = ["verify", "--max-text-chars", "20", "--otel", otel.to_str().unwrap(), file.to_str().unwrap()];
    let human = run(args);
    assert_eq!(human.code, 0, "{}", human.stderr);
    let mut explanations = BTreeMap::new();
    for data in decode_file(&otel) {
        for record in records(&data) {
            let a = attributes(record);
            let Some(Any::IntValue(id)) = a.get("groundcheck.invocation.id") else { panic!("no id: {a:?}") };
            explanations.insert(*id, string(a.get("gen_ai.evaluation.explanation")).expect("an explanation"));
        }
    }
    // `  1  query_logs  …` starts an invocation; `      ref 2  path_not_found  …` a ref of it;
    // deeper lines are what the table says about that ref.
    let (mut id, mut said) = (0, 0);
    for line in human.stdout.lines() {
        let columns: Vec<&str> = line.trim().split("  ").filter(|c| !c.is_empty()).collect();
        if let Some(first) = line.strip_prefix("  ").and_then(|l| l.split_whitespace().next()) {
            if let Ok(n) = first.parse::<i64>() {
                id = n;
                continue;
            }
        }
        let Some(explanation) = explanations.get(&id) else { continue };
        if let Some(index) = line.trim().strip_prefix("ref ").and_then(|l| l.split_whitespace().next()) {
            // `raw_output_unavailable (found in the preview)`: the outcome with what the preview holds.
            let outcome = columns[1].split(" (").next().unwrap();
            assert!(explanation.contains(&format!("ref {index} {outcome}: ")), "{line}\n{explanation}");
            if let Some(hint) = columns[1].strip_prefix(outcome) {
                assert!(explanation.contains(hint), "{line}\n{explanation}");
            }
        } else if line.starts_with("             ") {
            for column in &columns {
                assert!(explanation.contains(column), "{column:?} of {line:?} is not in\n{explanation}");
                said += 1;
            }
        }
    }
    let kinds = [
        "nearest 0.941",
        "found elsewhere",
        "nowhere in the output",
        "nothing under the path",
        "--max-text-chars 20",
        "invalid path at",
        "(all of it is there",
        "(found in the preview)",
        "(not in the preview either)",
    ];
    for words in kinds {
        assert!(human.stdout.contains(words), "the bundle shows {words:?}:\n{}", human.stdout);
    }
    assert!(said >= 14, "{}", human.stdout);
}
