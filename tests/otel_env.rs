//! The push configured as every OTLP exporter is: the `OTEL_EXPORTER_OTLP_*` variables, a
//! repeatable `--otlp-header`, `OTEL_SERVICE_NAME` / `OTEL_RESOURCE_ATTRIBUTES`,
//! `OTEL_SDK_DISABLED`, and https verified against a CA made here (rcgen) by a real rustls
//! server on loopback. Header values are secrets: no test output may show one.

use std::sync::Arc;
use std::time::{Duration, Instant};

use groundcheck_otel::proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use groundcheck_otel::proto::tonic::common::v1::any_value::Value as Any;
use groundcheck_otel::proto::tonic::logs::v1::{LogsData, ResourceLogs};
use prost::Message;

use crate::harness::{run_with, temp_dir, write};
use crate::otel::{
    decode, records, run_watched, run_watched_with, serve, serve_with, verify_args, Received, Receiver,
};

/// The token no output may show.
const TOKEN: &str = "s3cret-token-4f1c";

/// How long a test run may take before it counts as stuck (a deadline, not a speed claim).
const WATCHDOG: Duration = Duration::from_secs(120);

fn vars(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// Every request until `count` records have come, decoded by the body's content type.
fn collect(received: &std::sync::mpsc::Receiver<Received>, count: usize) -> Vec<(Received, LogsData)> {
    let mut got = Vec::new();
    let mut seen = 0;
    while seen < count {
        let request = received.recv_timeout(Duration::from_secs(60)).expect("the receiver got every record");
        let data = match request.headers.get("content-type").map(String::as_str) {
            Some("application/x-protobuf") => {
                let decoded =
                    ExportLogsServiceRequest::decode(request.body.as_slice()).expect("OTLP protobuf");
                LogsData { resource_logs: decoded.resource_logs }
            }
            Some("application/json") => decode(std::str::from_utf8(&request.body).expect("UTF-8 JSON")),
            other => panic!("content type {other:?}"),
        };
        seen += records(&data).len();
        got.push((request, data));
    }
    got
}

/// The string attributes of a resource.
fn resource(logs: &ResourceLogs) -> Vec<(String, String)> {
    let resource = logs.resource.as_ref().expect("a resource");
    resource
        .attributes
        .iter()
        .map(|kv| match kv.value.as_ref().and_then(|v| v.value.as_ref()) {
            Some(Any::StringValue(s)) => (kv.key.clone(), s.clone()),
            other => panic!("{}: {other:?}", kv.key),
        })
        .collect()
}

/// The number of records `verify` of the fixtures makes.
fn fixture_records() -> usize {
    let dir = temp_dir();
    let file = dir.path().join("v.jsonl");
    let out = run_watched(verify_args(&["--otel", file.to_str().unwrap()]), WATCHDOG);
    assert_eq!(out.code, 1, "{}", out.stderr);
    crate::otel::decode_file(&file).iter().map(|d| records(d).len()).sum()
}

/// A CA and what it signed for a test: the CA's PEM, the TLS configuration of a server for
/// 127.0.0.1 (asking for a client certificate the CA signed when `mutual`), and a client
/// certificate and key (PEM) for mutual TLS.
struct Pki {
    ca_pem: String,
    server: Arc<rustls::ServerConfig>,
    client_pem: String,
    client_key_pem: String,
}

fn certificates(mutual: bool) -> Pki {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params.distinguished_name.push(rcgen::DnType::CommonName, "groundcheck test CA");
    let ca = rcgen::CertifiedIssuer::self_signed(ca_params, ca_key).unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let server =
        rcgen::CertificateParams::new(vec!["127.0.0.1".to_string()]).unwrap().signed_by(&key, &ca).unwrap();
    let key_der = rustls::pki_types::PrivateKeyDer::try_from(key.serialize_der()).unwrap();
    let client_key = rcgen::KeyPair::generate().unwrap();
    let mut client_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    client_params.distinguished_name.push(rcgen::DnType::CommonName, "groundcheck");
    client_params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ClientAuth];
    let client = client_params.signed_by(&client_key, &ca).unwrap();
    // The one crypto provider compiled in (ring, as the client's).
    let builder = rustls::ServerConfig::builder();
    let builder = if mutual {
        let mut roots = rustls::RootCertStore::empty();
        roots.add(ca.der().clone()).unwrap();
        let verifier = rustls::server::WebPkiClientVerifier::builder(Arc::new(roots)).build().unwrap();
        builder.with_client_cert_verifier(verifier)
    } else {
        builder.with_no_client_auth()
    };
    let config = builder.with_single_cert(vec![server.der().clone(), ca.der().clone()], key_der).unwrap();
    Pki {
        ca_pem: ca.pem(),
        server: Arc::new(config),
        client_pem: client.pem(),
        client_key_pem: client_key.serialize_pem(),
    }
}

/// The case: an https receiver, the endpoint, the bearer token and the CA set only
/// through `OTEL_*` variables; the resource carries the deployment's service name and
/// attributes. Without the CA the push fails with a line that says why and what to set.
#[test]
fn an_https_receiver_gets_the_push_with_a_bearer_token_set_only_by_otel_variables() {
    let expected = fixture_records();
    let pki = certificates(false);
    let (url, received) = serve_with(Receiver::Collector, Some(pki.server));
    assert!(url.starts_with("https://127.0.0.1:"), "{url}");
    let dir = temp_dir();
    let ca = write(dir.path(), "ca.pem", pki.ca_pem);
    let bearer = format!("Authorization=Bearer%20{TOKEN}");
    let env = [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", url.as_str()),
        ("OTEL_EXPORTER_OTLP_HEADERS", bearer.as_str()),
        ("OTEL_SERVICE_NAME", "aiops-verifier"),
        ("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment.name=staging,team=sre%2Fops"),
    ];
    let with_ca = [&env[..], &[("OTEL_EXPORTER_OTLP_CERTIFICATE", ca.to_str().unwrap())]].concat();
    let out = run_watched_with(verify_args(&[]), vars(&with_ca), WATCHDOG);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(!out.stderr.contains("OpenTelemetry"), "{}", out.stderr);
    for (request, data) in collect(&received, expected) {
        assert_eq!(request.path, "/v1/logs");
        assert_eq!(
            request.headers.get("authorization").map(String::as_str),
            Some(&*format!("Bearer {TOKEN}"))
        );
        let resource = resource(&data.resource_logs[0]);
        assert_eq!(resource[0], ("service.name".into(), "aiops-verifier".into()));
        assert!(resource.contains(&("deployment.environment.name".into(), "staging".into())), "{resource:?}");
        assert!(resource.contains(&("team".into(), "sre/ops".into())), "{resource:?}");
    }

    let without = run_watched_with(verify_args(&[]), vars(&env), WATCHDOG);
    assert_eq!((without.code, &without.stdout), (out.code, &out.stdout));
    let line = without.stderr.lines().find(|l| l.contains("OpenTelemetry push")).expect("a warning line");
    assert!(
        line.starts_with(&format!("{url}/v1/logs: OpenTelemetry push: {expected} of {expected} records")),
        "{line}"
    );
    assert!(
        line.contains("not signed by a trusted CA") && line.contains("OTEL_EXPORTER_OTLP_CERTIFICATE"),
        "{line}"
    );
    assert!(received.try_recv().is_err(), "nothing reached the receiver without the CA");
    for text in [&out.stdout, &out.stderr, &without.stderr] {
        assert!(!text.contains(TOKEN), "{text}");
    }
}

/// Mutual TLS: a receiver that asks for a client certificate gets the one of
/// `OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE` / `_CLIENT_KEY`; without it the push is refused;
/// one of the two alone is an error; the key never reaches any output.
#[test]
fn mutual_tls_sends_the_client_certificate_of_the_variables() {
    let expected = fixture_records();
    let pki = certificates(true);
    let (url, received) = serve_with(Receiver::Collector, Some(pki.server));
    let dir = temp_dir();
    let ca = write(dir.path(), "ca.pem", &pki.ca_pem);
    let cert = write(dir.path(), "client.pem", &pki.client_pem);
    let key = write(dir.path(), "client.key", &pki.client_key_pem);
    let (ca, cert, key) = (ca.to_str().unwrap(), cert.to_str().unwrap(), key.to_str().unwrap());
    let env = [
        ("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", &*format!("{url}/v1/logs")),
        ("OTEL_EXPORTER_OTLP_CERTIFICATE", ca),
    ];
    let mutual = [
        &env[..],
        &[("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", cert), ("OTEL_EXPORTER_OTLP_CLIENT_KEY", key)],
    ]
    .concat();
    let out = run_watched_with(verify_args(&[]), vars(&mutual), WATCHDOG);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(!out.stderr.contains("OpenTelemetry"), "{}", out.stderr);
    assert_eq!(collect(&received, expected).iter().map(|(_, d)| records(d).len()).sum::<usize>(), expected);

    let without = run_watched_with(verify_args(&[]), vars(&env), WATCHDOG);
    assert_eq!(without.code, 1, "{}", without.stderr);
    // Under TLS 1.3 the client finishes its side of the handshake and starts writing before
    // the receiver's refusal arrives: depending on timing, the push sees the alert or only the
    // closed connection. Either way nothing is delivered and the line says so.
    assert!(
        without.stderr.contains("records not delivered (TLS: the receiver asks for a client certificate")
            || without.stderr.contains("records not delivered (io: "),
        "{}",
        without.stderr
    );
    assert!(received.try_recv().is_err(), "nothing reached the receiver without the client certificate");

    let half = run_with(
        ["verify", "fixtures/01_order_svc_5xx_spike.json"],
        &[env[0], env[1], ("OTEL_EXPORTER_OTLP_CLIENT_KEY", key)],
        None,
    );
    assert_eq!((half.code, half.stdout.as_str()), (2, ""));
    assert!(
        half.stderr.starts_with("OTEL_EXPORTER_OTLP_CLIENT_KEY: mutual TLS needs both"),
        "{}",
        half.stderr
    );
    let secret = pki.client_key_pem.lines().nth(1).expect("a line of the key");
    for text in [&out.stderr, &without.stderr, &half.stderr] {
        assert!(!text.contains(secret), "{text}");
    }
}

/// The logs-specific endpoint is used as it is; `http/json` sends OTLP/JSON; the flag wins
/// over the variables, and `--otlp-header` over `OTEL_EXPORTER_OTLP_HEADERS` for its name.
#[test]
fn the_variables_choose_endpoint_protocol_and_headers_and_the_flags_win() {
    let expected = fixture_records();
    let (logs_url, logs) = serve(Receiver::Collector);
    let (generic_url, generic) = serve(Receiver::Collector);
    let env = [
        ("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", &*format!("{logs_url}/ingest/logs")),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", &*generic_url),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
        ("OTEL_EXPORTER_OTLP_HEADERS", "x-scope-orgid=tenant-a,api-key=k1"),
    ];
    let out =
        run_watched_with(verify_args(&["--otlp-header", "X-Scope-OrgID=tenant-b"]), vars(&env), WATCHDOG);
    assert_eq!(out.code, 1, "{}", out.stderr);
    for (request, _) in collect(&logs, expected) {
        assert_eq!(request.path, "/ingest/logs");
        assert_eq!(request.headers["x-scope-orgid"], "tenant-b");
        assert_eq!(request.headers["api-key"], "k1");
    }
    assert!(generic.try_recv().is_err(), "the logs-specific endpoint wins over the generic one");

    // The flag's endpoint wins over both variables; the generic one gets /v1/logs.
    let (flag_url, flag) = serve(Receiver::Collector);
    let out = run_watched_with(verify_args(&["--otlp-endpoint", &flag_url]), vars(&env[1..]), WATCHDOG);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(collect(&flag, expected)[0].0.path, "/v1/logs");
    let out = run_watched_with(verify_args(&[]), vars(&env[1..2]), WATCHDOG);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(collect(&generic, expected)[0].0.path, "/v1/logs");
    assert!(logs.try_recv().is_err() && flag.try_recv().is_err());
}

/// `OTEL_SDK_DISABLED=true` pushes nothing: silently when the endpoint came from the
/// environment, with one note when `--otlp-endpoint` asked for it.
#[test]
fn otel_sdk_disabled_pushes_nothing() {
    let (url, received) = serve(Receiver::Collector);
    let plain = run_watched(verify_args(&[]), WATCHDOG);
    let env = vars(&[("OTEL_EXPORTER_OTLP_ENDPOINT", &url), ("OTEL_SDK_DISABLED", "true")]);
    let out = run_watched_with(verify_args(&[]), env.clone(), WATCHDOG);
    assert_eq!((out.code, &out.stdout, &out.stderr), (plain.code, &plain.stdout, &plain.stderr));
    let out = run_watched_with(verify_args(&["--otlp-endpoint", &url]), env, WATCHDOG);
    assert_eq!((out.code, &out.stdout), (plain.code, &plain.stdout));
    let extra: Vec<&str> = out.stderr.lines().filter(|l| !plain.stderr.contains(*l)).collect();
    assert_eq!(extra, ["OTEL_SDK_DISABLED=true: --otlp-endpoint ignored, nothing pushed"]);
    assert!(received.recv_timeout(Duration::from_secs(1)).is_err(), "nothing was pushed");
}

/// `OTEL_EXPORTER_OTLP_TIMEOUT` bounds the wait for a receiver that never answers (the
/// default is 5 s at the end of the command).
#[test]
fn the_timeout_variable_bounds_the_wait_for_a_silent_receiver() {
    let (url, _none) = serve(Receiver::Hangs);
    let fixture = "fixtures/01_order_svc_5xx_spike.json";
    let args = |extra: &[&str]| -> Vec<String> {
        [&["verify", "--format", "json"][..], extra, &[fixture]]
            .concat()
            .into_iter()
            .map(String::from)
            .collect()
    };
    let started = Instant::now();
    let env = vars(&[("OTEL_EXPORTER_OTLP_LOGS_TIMEOUT", "200")]);
    let out = run_watched_with(args(&["--otlp-endpoint", &url]), env, WATCHDOG);
    let short = started.elapsed();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("not delivered"), "{}", out.stderr);
    let started = Instant::now();
    let out = run_watched(args(&["--otlp-endpoint", &url]), WATCHDOG);
    let default = started.elapsed();
    assert!(out.stderr.contains("not delivered"), "{}", out.stderr);
    assert!(default >= Duration::from_secs(5), "{default:?}");
    assert!(short + Duration::from_secs(3) < default, "200 ms: {short:?}; default: {default:?}");
}

/// A bad-value case: the variables, the flags, and how the error line starts.
type Case<'a> = (&'a [(&'a str, &'a str)], &'a [&'a str], &'a str);

/// A bad value is one line naming the variable, exit 2, nothing on stdout and nothing pushed
/// — and never the header's value.
#[test]
fn a_bad_otel_variable_is_one_line_naming_it_and_exit_2() {
    let fixture = "fixtures/01_order_svc_5xx_spike.json";
    let (url, received) = serve(Receiver::Collector);
    let secret = format!("Authorization=Bearer {TOKEN}");
    let bare = format!("Bearer {TOKEN}");
    let cases: [Case<'_>; 9] = [
        (&[("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")], &[], "OTEL_EXPORTER_OTLP_PROTOCOL=grpc: "),
        (&[("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "http/xml")], &[], "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL="),
        (&[("OTEL_EXPORTER_OTLP_HEADERS", &bare)], &[], "OTEL_EXPORTER_OTLP_HEADERS: the 1st entry is not"),
        (&[("OTEL_EXPORTER_OTLP_HEADERS", "a=%0A")], &[], "OTEL_EXPORTER_OTLP_HEADERS: the value of a"),
        (&[], &["--otlp-header", &bare], "--otlp-header (the 1st one): expected NAME=VALUE"),
        (&[("OTEL_EXPORTER_OTLP_TIMEOUT", "5s")], &[], "OTEL_EXPORTER_OTLP_TIMEOUT=\"5s\": "),
        (&[("OTEL_SDK_DISABLED", "1")], &[], "OTEL_SDK_DISABLED: expected true or false"),
        (
            &[("OTEL_EXPORTER_OTLP_CERTIFICATE", "/nonexistent/ca.pem")],
            &[],
            "OTEL_EXPORTER_OTLP_CERTIFICATE ",
        ),
        (&[("OTEL_RESOURCE_ATTRIBUTES", "team")], &[], "OTEL_RESOURCE_ATTRIBUTES: the 1st entry"),
    ];
    for (env, flags, says) in cases {
        let env = [&[("OTEL_EXPORTER_OTLP_ENDPOINT", url.as_str())][..], env].concat();
        let out = run_with([&["verify"][..], flags, &[fixture]].concat(), &env, None);
        assert_eq!(out.code, 2, "{says}: {}", out.stderr);
        assert_eq!(out.stdout, "", "{says}");
        assert_eq!(out.stderr.lines().count(), 1, "{says}: {}", out.stderr);
        assert!(out.stderr.starts_with(says), "{says}: {}", out.stderr);
        assert!(!out.stderr.contains(TOKEN), "{}", out.stderr);
    }
    // Nothing to push to: the header has nowhere to go, said rather than dropped.
    let out = run_with(["verify", "--otlp-header", "a=1", fixture], &[], None);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.starts_with("--otlp-header: nothing is pushed"), "{}", out.stderr);
    // --help names the flag but shows no value from the environment.
    let help = run_with(["verify", "--help"], &[("OTEL_EXPORTER_OTLP_HEADERS", &secret)], None);
    assert!(help.stdout.contains("--otlp-header") && !help.stdout.contains(TOKEN), "{}", help.stdout);
    assert!(received.try_recv().is_err(), "nothing was pushed");
}
