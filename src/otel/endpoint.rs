//! Where the OTLP/HTTP logs export goes: `--otlp-endpoint URL`, else
//! `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT`.
//!
//! The rules, after the OTLP exporter specification: the logs-specific variable is the full
//! URL and is used as it is; the generic variable is a base endpoint and always gets
//! `/v1/logs` appended to its path (`http://collector:4318` →
//! `http://collector:4318/v1/logs`). The flag, older than the variables, does either: a path
//! ending in `/v1/logs` is kept, any other gets `/v1/logs` appended. `http://` and `https://`
//! are accepted (https verified by the system's trust store or
//! `OTEL_EXPORTER_OTLP_CERTIFICATE`).

use groundcheck_store::redact;

use crate::failure::Failure;

/// A checked endpoint: the URL requests go to, and the same with credentials redacted for
/// every message about it.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub url: String,
    pub shown: String,
}

impl Endpoint {
    /// `--otlp-endpoint URL`: `/v1/logs` appended unless the path already ends with it.
    pub fn flag(given: &str) -> Result<Endpoint, Failure> {
        Endpoint::parse(given, "--otlp-endpoint ", !given.ends_with("/v1/logs"))
    }

    /// The variable `name`: `base` (the generic variable) gets `/v1/logs` appended.
    pub fn variable(name: &str, given: &str, base: bool) -> Result<Endpoint, Failure> {
        Endpoint::parse(given.trim(), &format!("{name}="), base)
    }

    /// Checks `given` (named by `source` in any refusal) and appends `/v1/logs` if `base`.
    fn parse(given: &str, source: &str, base: bool) -> Result<Endpoint, Failure> {
        let shown = redact(given);
        let refuse = |why: &str| Failure::input(format!("{source}{shown}: {why}"));
        let Some(rest) = given.strip_prefix("http://").or_else(|| given.strip_prefix("https://")) else {
            return Err(refuse("not an http:// or https:// URL (e.g. http://localhost:4318)"));
        };
        let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        if rest[..authority_end].rsplit('@').next().is_none_or(str::is_empty) {
            return Err(refuse("no host"));
        }
        if rest[authority_end..].contains(['?', '#']) {
            return Err(refuse("a query or fragment has no place in an OTLP endpoint"));
        }
        let url = if base { format!("{}/v1/logs", given.trim_end_matches('/')) } else { given.to_string() };
        Ok(Endpoint { shown: redact(&url), url })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_endpoint_gets_v1_logs_and_a_signal_endpoint_is_kept() {
        let url = |given: &str| Endpoint::flag(given).map(|e| e.url).map_err(|f| f.message);
        assert_eq!(url("http://localhost:4318").unwrap(), "http://localhost:4318/v1/logs");
        assert_eq!(url("http://localhost:4318/").unwrap(), "http://localhost:4318/v1/logs");
        assert_eq!(url("http://gw/otlp").unwrap(), "http://gw/otlp/v1/logs");
        assert_eq!(url("http://gw:4318/v1/logs").unwrap(), "http://gw:4318/v1/logs");
        assert_eq!(url("https://gw:4318").unwrap(), "https://gw:4318/v1/logs");
        assert!(url("gw:4318").unwrap_err().contains("not an http:// or https:// URL"));
        assert!(url("http:///v1/logs").unwrap_err().contains("no host"));
        let variable = |name, given, base| Endpoint::variable(name, given, base).unwrap().url;
        assert_eq!(
            variable("OTEL_EXPORTER_OTLP_ENDPOINT", "http://gw/v1/logs", true),
            "http://gw/v1/logs/v1/logs"
        );
        assert_eq!(variable("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "http://gw/in", false), "http://gw/in");
    }

    #[test]
    fn credentials_are_never_shown() {
        let endpoint = Endpoint::flag("http://user:hunter2@gw:4318").unwrap();
        assert_eq!(endpoint.url, "http://user:hunter2@gw:4318/v1/logs");
        assert!(!endpoint.shown.contains("hunter2"), "{}", endpoint.shown);
        let refused = Endpoint::variable("OTEL_EXPORTER_OTLP_ENDPOINT", "gw://user:hunter2@gw:4318", true);
        let message = refused.unwrap_err().message;
        assert!(
            message.starts_with("OTEL_EXPORTER_OTLP_ENDPOINT=") && !message.contains("hunter2"),
            "{message}"
        );
    }
}
