//! The OpenTelemetry configuration as every OTLP exporter reads it: the flags, then the
//! OTLP exporter specification's `OTEL_*` environment variables, checked before any work.
//!
//! Precedence, per setting: a flag, then the logs-specific variable
//! (`OTEL_EXPORTER_OTLP_LOGS_*`), then the generic one (`OTEL_EXPORTER_OTLP_*`), then the
//! default. An empty variable counts as unset, as the specification says. A variable with a
//! bad value is one error line naming it — never its value when the value may be a secret
//! (headers) — and exit code 2 before anything is verified: a push that silently went
//! elsewhere, or without its token, would be found out only at the receiver.
//!
//! The push variables are read only when something is pushed (an endpoint from the flag or
//! the environment), and the resource variables only when records are made at all, so a
//! shell set up for another program's exporter does not break a plain `verify`.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use percent_encoding::percent_decode_str;

use crate::args::HeaderFlag;
use crate::failure::{display, Failure};
use crate::otel::endpoint::Endpoint;

/// How the environment is read: by name, `None` when unset or empty. Tests pass a map.
pub type Env<'a> = &'a dyn Fn(&str) -> Result<Option<String>, Failure>;

/// The process environment, as an [`Env`]: a value that is not UTF-8 is refused by name.
pub fn process_env(name: &str) -> Result<Option<String>, Failure> {
    match std::env::var(name) {
        Ok(value) if value.trim().is_empty() => Ok(None),
        Ok(value) => Ok(Some(value)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => Err(Failure::input(format!("{name}: not valid UTF-8"))),
    }
}

/// The default wait for one request's answer, and at the end of the command for what is
/// still queued: 5 s, not the specification's 10 s, so that a receiver that is down costs a
/// person at most 5 s (a variable sets it).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// The body encoding of the push (`OTEL_EXPORTER_OTLP_PROTOCOL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// `http/protobuf`: `application/x-protobuf`, the specification's default.
    Protobuf,
    /// `http/json`: `application/json`, the OTLP/JSON mapping.
    Json,
}

impl Protocol {
    /// The `Content-Type` of a request body.
    pub fn content_type(self) -> &'static str {
        match self {
            Protocol::Protobuf => "application/x-protobuf",
            Protocol::Json => "application/json",
        }
    }
}

/// Everything the push needs; header values are secrets, so its `Debug` shows `***` for them.
pub struct Push {
    pub endpoint: Endpoint,
    pub protocol: Protocol,
    /// Name and value of each header sent with every request, names in lower case.
    pub headers: Vec<(String, String)>,
    /// The wait for one request, and at the end of the command.
    pub timeout: Duration,
    /// A private CA (`OTEL_EXPORTER_OTLP_CERTIFICATE`): the only roots trusted when given;
    /// otherwise the system's trust store.
    pub ca: Option<Vec<ureq::tls::Certificate<'static>>>,
    /// The client certificate and key of mutual TLS (`OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE`,
    /// `OTEL_EXPORTER_OTLP_CLIENT_KEY`), for receivers that authenticate their senders so.
    pub client: Option<ureq::tls::ClientCert>,
}

impl std::fmt::Debug for Push {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let headers: Vec<(&str, &str)> =
            self.headers.iter().map(|(name, _)| (name.as_str(), "***")).collect();
        f.debug_struct("Push")
            .field("endpoint", &self.endpoint.shown)
            .field("protocol", &self.protocol)
            .field("headers", &headers)
            .field("timeout", &self.timeout)
            .field("ca", &self.ca.as_ref().map(Vec::len))
            .field("client", &self.client.as_ref().map(|_| "***"))
            .finish()
    }
}

/// What the command's OpenTelemetry output is: the push (if any), the resource attributes of
/// every record, and a note for the end of the command.
#[derive(Debug)]
pub struct Settings {
    pub push: Option<Push>,
    /// `OTEL_RESOURCE_ATTRIBUTES`, then `service.name` from `OTEL_SERVICE_NAME`.
    pub resource: Vec<(String, String)>,
    pub note: Option<String>,
}

impl Settings {
    /// Reads the flags (`endpoint`, `headers` as given to `--otlp-header`) and `env`.
    /// `records` says whether records are made for another reason (`--otel FILE`).
    pub fn read(
        endpoint: Option<&str>,
        headers: &[HeaderFlag],
        records: bool,
        env: Env<'_>,
    ) -> Result<Settings, Failure> {
        let from_env = match (env("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT")?, env("OTEL_EXPORTER_OTLP_ENDPOINT")?) {
            (Some(url), _) => Some(("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", url, false)),
            (None, Some(url)) => Some(("OTEL_EXPORTER_OTLP_ENDPOINT", url, true)),
            (None, None) => None,
        };
        if endpoint.is_none() && from_env.is_none() && !headers.is_empty() {
            return Err(Failure::input(
                "--otlp-header: nothing is pushed; give --otlp-endpoint URL or set OTEL_EXPORTER_OTLP_ENDPOINT",
            ));
        }
        let mut settings = Settings { push: None, resource: Vec::new(), note: None };
        if endpoint.is_none() && from_env.is_none() && !records {
            return Ok(settings);
        }
        if disabled(env)? {
            if endpoint.is_some() {
                settings.note =
                    Some("OTEL_SDK_DISABLED=true: --otlp-endpoint ignored, nothing pushed".into());
            }
        } else if let Some(given) = endpoint {
            settings.push = Some(push(Endpoint::flag(given)?, headers, env)?);
        } else if let Some((name, url, base)) = from_env {
            settings.push = Some(push(Endpoint::variable(name, &url, base)?, headers, env)?);
        }
        settings.resource = resource(env)?;
        Ok(settings)
    }
}

/// `OTEL_SDK_DISABLED`: `true` or `false`, in any case.
fn disabled(env: Env<'_>) -> Result<bool, Failure> {
    match env("OTEL_SDK_DISABLED")?.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(_) => Err(Failure::input("OTEL_SDK_DISABLED: expected true or false")),
    }
}

/// The logs-specific variable if set, else the generic one: (its name, its value).
fn signal(env: Env<'_>, setting: &str) -> Result<Option<(String, String)>, Failure> {
    for name in [format!("OTEL_EXPORTER_OTLP_LOGS_{setting}"), format!("OTEL_EXPORTER_OTLP_{setting}")] {
        if let Some(value) = env(&name)? {
            return Ok(Some((name, value)));
        }
    }
    Ok(None)
}

fn push(endpoint: Endpoint, flags: &[HeaderFlag], env: Env<'_>) -> Result<Push, Failure> {
    let protocol = match signal(env, "PROTOCOL")? {
        None => Protocol::Protobuf,
        Some((name, value)) => match value.trim() {
            "http/protobuf" => Protocol::Protobuf,
            "http/json" => Protocol::Json,
            "grpc" => {
                return Err(Failure::input(format!(
                    "{name}=grpc: groundcheck pushes OTLP over HTTP only, gRPC is not offered; set http/protobuf \
                     (or http/json) and the receiver's OTLP/HTTP endpoint (port 4318)"
                )))
            }
            other => {
                return Err(Failure::input(format!(
                    "{name}={other:?}: expected http/protobuf (the default) or http/json"
                )))
            }
        },
    };
    let timeout = match signal(env, "TIMEOUT")? {
        None => DEFAULT_TIMEOUT,
        Some((name, value)) => match value.trim().parse::<u64>() {
            Ok(ms) if ms > 0 => Duration::from_millis(ms),
            _ => {
                return Err(Failure::input(format!(
                    "{name}={value:?}: expected a whole number of milliseconds, at least 1"
                )))
            }
        },
    };
    let mut headers: BTreeMap<String, String> = match signal(env, "HEADERS")? {
        None => BTreeMap::new(),
        Some((name, value)) => pairs(&name, &value, true)?.into_iter().collect(),
    };
    for (i, HeaderFlag(flag)) in flags.iter().enumerate() {
        let Some((key, value)) = flag.split_once('=') else {
            return Err(Failure::input(format!(
                "--otlp-header (the {} one): expected NAME=VALUE (the value is not shown)",
                ordinal(i + 1)
            )));
        };
        let key = header_name("--otlp-header", key.trim(), i + 1)?;
        header_value("--otlp-header", &key, value.trim())?;
        headers.insert(key, value.trim().to_string());
    }
    let ca = match signal(env, "CERTIFICATE")? {
        None => None,
        Some((name, path)) => Some(certificates(&name, Path::new(&path))?),
    };
    let client = match (signal(env, "CLIENT_CERTIFICATE")?, signal(env, "CLIENT_KEY")?) {
        (None, None) => None,
        (Some((name, path)), Some((key_name, key_path))) => {
            let chain = certificates(&name, Path::new(&path))?;
            Some(ureq::tls::ClientCert::new_with_certs(&chain, private_key(&key_name, Path::new(&key_path))?))
        }
        (Some((name, _)), None) | (None, Some((name, _))) => {
            return Err(Failure::input(format!(
                "{name}: mutual TLS needs both OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY"
            )))
        }
    };
    Ok(Push { endpoint, protocol, headers: headers.into_iter().collect(), timeout, ca, client })
}

/// The private key of a PEM file (PKCS #8, PKCS #1 or SEC1); the key is a secret, so no
/// message shows any of the file.
fn private_key(name: &str, path: &Path) -> Result<ureq::tls::PrivateKey<'static>, Failure> {
    let pem = std::fs::read(path).map_err(|e| {
        let failure = Failure::io(path, &e);
        Failure::input(format!("{name} {}", failure.message))
    })?;
    ureq::tls::PrivateKey::from_pem(&pem).map_err(|_| {
        Failure::input(format!(
            "{name} {}: no PEM private key in it (-----BEGIN PRIVATE KEY-----)",
            display(path)
        ))
    })
}

/// `1st`, `2nd`, `3rd`, `4th`…: which entry of a list was wrong, without showing it.
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// `key=value,key2=value2` (the W3C Baggage form the specification uses for headers and
/// resource attributes): entries trimmed, empty entries skipped, values percent-decoded.
/// With `secret`, keys must be HTTP header names, and no message shows a value or an entry.
fn pairs(name: &str, text: &str, secret: bool) -> Result<Vec<(String, String)>, Failure> {
    let mut out = Vec::new();
    for (i, entry) in text.split(',').map(str::trim).enumerate().filter(|(_, e)| !e.is_empty()) {
        let n = i + 1;
        let Some((key, value)) = entry.split_once('=') else {
            return Err(Failure::input(format!(
                "{name}: the {} entry is not key=value (expected key=value,key2=value2{})",
                ordinal(n),
                if secret { "; values are not shown" } else { "" }
            )));
        };
        let (key, value) = (key.trim(), value.trim());
        let key = if secret {
            header_name(name, key, n)?
        } else if key.is_empty() {
            return Err(Failure::input(format!("{name}: the {} entry has an empty key", ordinal(n))));
        } else {
            key.to_string()
        };
        let Ok(value) = percent_decode_str(value).decode_utf8() else {
            return Err(Failure::input(format!(
                "{name}: the value of {key} is not UTF-8 once percent-decoded"
            )));
        };
        if secret {
            header_value(name, &key, &value)?;
        }
        out.push((key, value.into_owned()));
    }
    Ok(out)
}

/// A header name: an HTTP token (letters, digits and ``!#$%&'*+-.^_`|~``), in lower case.
fn header_name(source: &str, key: &str, n: usize) -> Result<String, Failure> {
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if key.is_empty() || !key.chars().all(token) {
        return Err(Failure::input(format!(
            "{source}: the {} header's name is not an HTTP header name (letters, digits, - and _)",
            ordinal(n)
        )));
    }
    Ok(key.to_ascii_lowercase())
}

/// A header value: no control characters (a line break would end the header).
fn header_value(source: &str, key: &str, value: &str) -> Result<(), Failure> {
    if value.chars().any(|c| c.is_control() && c != '\t') {
        return Err(Failure::input(format!(
            "{source}: the value of {key} holds a control character (the value is not shown)"
        )));
    }
    Ok(())
}

/// `OTEL_RESOURCE_ATTRIBUTES`, then `OTEL_SERVICE_NAME` as `service.name` (which wins).
fn resource(env: Env<'_>) -> Result<Vec<(String, String)>, Failure> {
    let mut attributes = match env("OTEL_RESOURCE_ATTRIBUTES")? {
        Some(text) => pairs("OTEL_RESOURCE_ATTRIBUTES", &text, false)?,
        None => Vec::new(),
    };
    if let Some(service) = env("OTEL_SERVICE_NAME")? {
        attributes.push(("service.name".into(), service.trim().to_string()));
    }
    Ok(attributes)
}

/// The certificates of a PEM file; a file without one is refused.
fn certificates(name: &str, path: &Path) -> Result<Vec<ureq::tls::Certificate<'static>>, Failure> {
    let refuse = |why: &dyn std::fmt::Display| Failure::input(format!("{name} {}: {why}", display(path)));
    let pem = std::fs::read(path).map_err(|e| {
        let failure = Failure::io(path, &e);
        Failure::input(format!("{name} {}", failure.message))
    })?;
    let mut certs = Vec::new();
    for item in ureq::tls::parse_pem(&pem) {
        match item {
            Ok(ureq::tls::PemItem::Certificate(cert)) => certs.push(cert),
            Ok(_) => {}
            Err(e) => return Err(refuse(&format!("not a PEM file: {e}"))),
        }
    }
    if certs.is_empty() {
        return Err(refuse(&"no PEM certificate in it (-----BEGIN CERTIFICATE-----)"));
    }
    Ok(certs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(vars: &[(&str, &str)], endpoint: Option<&str>, flags: &[&str]) -> Result<Settings, String> {
        let flags: Vec<HeaderFlag> = flags.iter().map(|s| HeaderFlag(s.to_string())).collect();
        let map: BTreeMap<String, String> =
            vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let env = move |name: &str| Ok(map.get(name).filter(|v| !v.trim().is_empty()).cloned());
        Settings::read(endpoint, &flags, false, &env).map_err(|f| f.message)
    }

    fn url(settings: &Settings) -> &str {
        &settings.push.as_ref().expect("a push").endpoint.url
    }

    #[test]
    fn endpoints_follow_the_specification_and_the_flag_wins() {
        let generic = [("OTEL_EXPORTER_OTLP_ENDPOINT", "http://gw:4318/otlp/")];
        assert_eq!(url(&read(&generic, None, &[]).unwrap()), "http://gw:4318/otlp/v1/logs");
        let both = [generic[0], ("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "https://logs:4318/ingest")];
        assert_eq!(url(&read(&both, None, &[]).unwrap()), "https://logs:4318/ingest");
        assert_eq!(url(&read(&both, Some("http://flag:4318"), &[]).unwrap()), "http://flag:4318/v1/logs");
        assert!(read(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "")], None, &[]).unwrap().push.is_none());
        let bad = read(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "ftp://u:hunter2@gw")], None, &[]).unwrap_err();
        assert!(bad.starts_with("OTEL_EXPORTER_OTLP_ENDPOINT"), "{bad}");
        assert!(!bad.contains("hunter2"), "{bad}");
    }

    #[test]
    fn headers_are_decoded_merged_and_never_shown() {
        let vars = [
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://gw"),
            ("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20s3cret, api-key=k1,x-scope-orgid=a"),
        ];
        let settings = read(&vars, None, &["X-Scope-OrgID=tenant=b"]).unwrap();
        let headers = &settings.push.unwrap().headers;
        assert_eq!(
            headers,
            &[
                ("api-key".into(), "k1".into()),
                ("authorization".into(), "Bearer s3cret".into()),
                ("x-scope-orgid".into(), "tenant=b".into())
            ]
        );
        // The logs-specific variable replaces the generic one.
        let logs = [vars[0], vars[1], ("OTEL_EXPORTER_OTLP_LOGS_HEADERS", "a=1")];
        assert_eq!(read(&logs, None, &[]).unwrap().push.unwrap().headers, [("a".into(), "1".into())]);
        for (value, says) in [
            ("Bearer s3cret", "the 1st entry is not key=value"),
            ("ok=1,Bad Name=s3cret", "the 2nd header's name"),
            ("a=s3cret%0A", "the value of a holds a control character"),
            ("a=s3cret%FF", "the value of a is not UTF-8"),
        ] {
            let bad = read(&[vars[0], ("OTEL_EXPORTER_OTLP_HEADERS", value)], None, &[]).unwrap_err();
            assert!(bad.starts_with("OTEL_EXPORTER_OTLP_HEADERS: ") && bad.contains(says), "{bad}");
            assert!(!bad.contains("s3cret"), "{bad}");
        }
        let bad = read(&vars[..1], None, &["Bearer s3cret"]).unwrap_err();
        let flag = HeaderFlag("Authorization=Bearer s3cret".into());
        assert_eq!(format!("{flag:?}"), "HeaderFlag(Authorization=***)");
        let shown = format!("{:?}", read(&vars, None, &[]).unwrap());
        assert!(shown.contains("(\"authorization\", \"***\")") && !shown.contains("s3cret"), "{shown}");
        assert!(bad.starts_with("--otlp-header") && !bad.contains("s3cret"), "{bad}");
    }

    #[test]
    fn protocol_timeout_and_switches() {
        let at = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://gw");
        let push =
            |vars: &[(&str, &str)]| read(&[&[at][..], vars].concat(), None, &[]).map(|s| s.push.unwrap());
        assert_eq!(push(&[]).unwrap().protocol, Protocol::Protobuf);
        assert_eq!(push(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")]).unwrap().protocol, Protocol::Json);
        let grpc = push(&[("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "grpc")]).err().unwrap();
        assert!(
            grpc.contains("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL=grpc: ") && grpc.contains("http/protobuf"),
            "{grpc}"
        );
        assert_eq!(push(&[]).unwrap().timeout, DEFAULT_TIMEOUT);
        assert_eq!(
            push(&[("OTEL_EXPORTER_OTLP_TIMEOUT", "250")]).unwrap().timeout,
            Duration::from_millis(250)
        );
        let zero = push(&[("OTEL_EXPORTER_OTLP_LOGS_TIMEOUT", "0")]).err().unwrap();
        assert!(zero.starts_with("OTEL_EXPORTER_OTLP_LOGS_TIMEOUT=\"0\": "), "{zero}");
        let off = read(&[at, ("OTEL_SDK_DISABLED", "TRUE")], Some("http://gw"), &[]).unwrap();
        assert!(off.push.is_none() && off.note.is_some());
        assert!(read(&[at, ("OTEL_SDK_DISABLED", "yes")], None, &[])
            .unwrap_err()
            .starts_with("OTEL_SDK_DISABLED"));
        let missing = push(&[("OTEL_EXPORTER_OTLP_CERTIFICATE", "/nonexistent/ca.pem")]).err().unwrap();
        assert_eq!(missing, "OTEL_EXPORTER_OTLP_CERTIFICATE /nonexistent/ca.pem: no such file or directory");
    }

    #[test]
    fn resource_attributes_then_the_service_name() {
        let vars = [
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://gw"),
            ("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment.name=prod,service.name=x,team=sre%2Fops"),
            ("OTEL_SERVICE_NAME", "verifier"),
        ];
        let resource = read(&vars, None, &[]).unwrap().resource;
        assert_eq!(resource.last().unwrap(), &("service.name".to_string(), "verifier".to_string()));
        assert!(resource.contains(&("team".into(), "sre/ops".into())));
        let bad = read(&[vars[0], ("OTEL_RESOURCE_ATTRIBUTES", "=x")], None, &[]).unwrap_err();
        assert!(bad.starts_with("OTEL_RESOURCE_ATTRIBUTES: the 1st entry has an empty key"), "{bad}");
    }
}
