//! The push: records sent over OTLP/HTTP (protobuf or JSON, http or https) by a background
//! thread, so that a collector that is down, slow or refusing never blocks or fails the
//! verification.
//!
//! Messages wait in a queue of [`QUEUE`] messages (when it is full, a message is dropped and
//! counted, never waited for). Each is POSTed with the configured headers and a timeout
//! (`OTEL_EXPORTER_OTLP_TIMEOUT`, 5 s by default); connection errors, timeouts and
//! 429/502/503/504 are retried up to [`ATTEMPTS`] times with a doubling backoff from
//! [`BACKOFF`] (a `Retry-After` in seconds is honoured up to [`RETRY_AFTER_CAP`]); other
//! statuses, and a certificate that is not trusted, are final. When the command ends,
//! [`Pusher::finish`] waits at most the same timeout for the queue to drain, then gives up:
//! what was not delivered is one warning line, and the report and exit code are the same.
//! Header values never reach a message.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use groundcheck_otel::proto::tonic::logs::v1::LogsData;
use groundcheck_otel::{export_request, json_line, record_count, rejected_records};

use crate::otel::config::{Protocol, Push};
use crate::otel::endpoint::Endpoint;

/// Messages (each up to `MAX_RECORDS` records) waiting to be sent.
pub const QUEUE: usize = 64;
/// Tries per message.
pub const ATTEMPTS: u32 = 4;
/// The first retry's wait; each later one waits twice as long.
pub const BACKOFF: Duration = Duration::from_millis(250);
/// Longest `Retry-After` honoured.
pub const RETRY_AFTER_CAP: Duration = Duration::from_secs(2);

/// What the sending thread shares with the command.
#[derive(Debug, Default)]
struct Shared {
    delivered: AtomicU64,
    /// The last reason a message was not delivered.
    problem: Mutex<Option<String>>,
    /// Set by `finish`: no wait or request goes past it.
    deadline: OnceLock<Instant>,
}

impl Shared {
    fn failed(&self, why: String) {
        if let Ok(mut problem) = self.problem.lock() {
            *problem = Some(why);
        }
    }

    /// How long until the deadline (forever before `finish`).
    fn left(&self) -> Duration {
        self.deadline.get().map_or(Duration::MAX, |d| d.saturating_duration_since(Instant::now()))
    }
}

/// The sending side: a queue and the thread that empties it.
pub struct Pusher {
    endpoint: Endpoint,
    /// The wait for one request, and at the end of the command.
    timeout: Duration,
    queue: Option<SyncSender<LogsData>>,
    shared: Arc<Shared>,
    done: Receiver<()>,
    /// Records handed to `send`.
    records: u64,
}

impl Pusher {
    /// Starts the sending thread for `push`.
    pub fn start(push: Push) -> Pusher {
        let (queue, messages) = mpsc::sync_channel(QUEUE);
        let (done_tx, done) = mpsc::channel();
        let shared = Arc::new(Shared::default());
        let thread_shared = Arc::clone(&shared);
        let endpoint = push.endpoint.clone();
        let timeout = push.timeout;
        let spawned = thread::Builder::new().name("groundcheck-otlp".into()).spawn(move || {
            send_all(&push, &messages, &thread_shared);
            let _ = done_tx.send(());
        });
        if let Err(e) = spawned {
            shared.failed(format!("cannot start the sending thread: {e}"));
        }
        Pusher { endpoint, timeout, queue: Some(queue), shared, done, records: 0 }
    }

    /// Queues `data`; a full queue (a collector slower than verification) drops it.
    pub fn send(&mut self, data: LogsData) {
        self.records += record_count(&data) as u64;
        let Some(queue) = &self.queue else { return };
        match queue.try_send(data) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                self.shared.failed(format!("the queue of {QUEUE} messages was full"))
            }
            Err(TrySendError::Disconnected(_)) => {}
        }
    }

    /// Waits at most the timeout for the queue to drain; the warning line when anything
    /// was not delivered.
    pub fn finish(mut self) -> Option<String> {
        let _ = self.shared.deadline.set(Instant::now() + self.timeout);
        self.queue = None; // the thread ends once the queue is empty
        let _ = self.done.recv_timeout(self.timeout + Duration::from_millis(500));
        let delivered = self.shared.delivered.load(Ordering::Relaxed).min(self.records);
        if delivered == self.records {
            return None;
        }
        let why = self.shared.problem.lock().ok().and_then(|p| p.clone());
        let why = why.unwrap_or_else(|| format!("not answered within {} ms", self.timeout.as_millis()));
        Some(format!(
            "{}: OpenTelemetry push: {} of {} records not delivered ({why}); the report is complete",
            self.endpoint.shown,
            self.records - delivered,
            self.records,
        ))
    }
}

fn send_all(push: &Push, messages: &Receiver<LogsData>, shared: &Shared) {
    let mut tls = ureq::tls::TlsConfig::builder().client_cert(push.client.clone());
    tls = match &push.ca {
        Some(certs) => tls.root_certs(ureq::tls::RootCerts::new_with_certs(certs)),
        None => tls.root_certs(ureq::tls::RootCerts::PlatformVerifier),
    };
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(push.timeout))
        .tls_config(tls.build())
        .user_agent(concat!("groundcheck/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    while let Ok(data) = messages.recv() {
        let records = record_count(&data) as u64;
        if shared.left().is_zero() {
            continue; // past the deadline: counted as not delivered, never sent
        }
        let body = match push.protocol {
            Protocol::Protobuf => export_request(data),
            Protocol::Json => json_line(&data).into_bytes(),
        };
        match post(&agent, push, &body, shared) {
            Ok(rejected) => {
                let rejected = u64::try_from(rejected).unwrap_or(0).min(records);
                if rejected > 0 {
                    shared.failed(format!("the receiver rejected {rejected} records"));
                }
                shared.delivered.fetch_add(records - rejected, Ordering::Relaxed);
            }
            Err(why) => shared.failed(why),
        }
    }
}

/// One message, retried; `Ok` with the records the receiver says it rejected.
fn post(agent: &ureq::Agent, push: &Push, body: &[u8], shared: &Shared) -> Result<i64, String> {
    let mut wait = BACKOFF;
    let mut attempt = 1;
    loop {
        let timeout = push.timeout.min(shared.left());
        let mut request = agent
            .post(&push.endpoint.url)
            .config()
            .timeout_global(Some(timeout))
            .build()
            .header("Content-Type", push.protocol.content_type());
        for (name, value) in &push.headers {
            request = request.header(name, value);
        }
        let sent = request.send(body);
        let (why, retry_after) = match sent {
            Ok(mut response) => {
                let status = response.status().as_u16();
                if (200..300).contains(&status) {
                    let answer = response.body_mut().read_to_vec().unwrap_or_default();
                    return Ok(match push.protocol {
                        Protocol::Protobuf => rejected_records(&answer),
                        Protocol::Json => rejected_json(&answer),
                    });
                }
                if !matches!(status, 429 | 502 | 503 | 504) {
                    return Err(format!("HTTP {status}"));
                }
                let retry_after = response
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .map(|s| Duration::from_secs(s).min(RETRY_AFTER_CAP));
                (format!("HTTP {status}"), retry_after)
            }
            Err(e) if is_certificate(&e) => return Err(error_text(&e)),
            Err(e) => (error_text(&e), None),
        };
        let pause = retry_after.unwrap_or(wait);
        if attempt == ATTEMPTS || pause >= shared.left() {
            return Err(why);
        }
        thread::sleep(pause);
        attempt += 1;
        wait *= 2;
    }
}

/// How many records an OTLP/JSON response's `partialSuccess` rejects (an int64, written as a
/// string or a number); 0 for an empty or unreadable body, which OTLP reads as full success.
fn rejected_json(answer: &[u8]) -> i64 {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(answer) else { return 0 };
    match &value["partialSuccess"]["rejectedLogRecords"] {
        serde_json::Value::String(text) => text.parse().unwrap_or(0),
        serde_json::Value::Number(n) => n.as_i64().unwrap_or(0),
        _ => 0,
    }
    .max(0)
}

/// rustls's error in `e`: ureq hands it over as its own, or inside an I/O error from the
/// handshake.
fn tls_error(e: &ureq::Error) -> Option<&rustls::Error> {
    match e {
        ureq::Error::Rustls(tls) => Some(tls),
        ureq::Error::Io(io) => io.get_ref().and_then(|inner| inner.downcast_ref::<rustls::Error>()),
        _ => None,
    }
}

/// The certificate problem of `e`, if that is what it is.
fn certificate_error(e: &ureq::Error) -> Option<&rustls::CertificateError> {
    match tls_error(e) {
        Some(rustls::Error::InvalidCertificate(why)) => Some(why),
        _ => None,
    }
}

/// Whether the receiver asked for a client certificate that was not sent.
fn client_certificate_required(e: &ureq::Error) -> bool {
    matches!(tls_error(e), Some(rustls::Error::AlertReceived(rustls::AlertDescription::CertificateRequired)))
}

/// Whether `e` is a certificate problem, on either side: retrying cannot help.
fn is_certificate(e: &ureq::Error) -> bool {
    certificate_error(e).is_some() || client_certificate_required(e)
}

fn error_text(e: &ureq::Error) -> String {
    use rustls::CertificateError;
    if client_certificate_required(e) {
        return "TLS: the receiver asks for a client certificate (mutual TLS); set \
                OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY"
            .into();
    }
    if let Some(why) = certificate_error(e) {
        return match why {
            CertificateError::UnknownIssuer | CertificateError::BadSignature => format!(
                "TLS: the receiver's certificate is not signed by a trusted CA ({why:?}); set \
                 OTEL_EXPORTER_OTLP_CERTIFICATE to the PEM file of the CA that signed it"
            ),
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                "TLS: the receiver's certificate is not valid for the endpoint's host name".into()
            }
            other => format!("TLS: the receiver's certificate was refused ({other:?})"),
        };
    }
    match e {
        ureq::Error::Timeout(_) => "no answer in time".to_string(),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            "connection refused".into()
        }
        other => other.to_string(),
    }
}
