//! `--otlp-endpoint URL`: where the OTLP/HTTP logs export goes.
//!
//! The rule, after the OTLP exporter specification: a URL whose path ends in `/v1/logs` is
//! signal-specific and used as it is; any other URL is a base endpoint and gets `/v1/logs`
//! appended to its path (`http://collector:4318` → `http://collector:4318/v1/logs`). Only
//! `http://` is accepted: groundcheck ships no TLS stack, so it pushes to a collector
//! nearby (a sidecar, a node agent, a gateway in the cluster), which exports onwards.

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
    /// Checks `given` and applies the `/v1/logs` rule.
    pub fn parse(given: &str) -> Result<Endpoint, Failure> {
        let shown = redact(given);
        let refuse = |why: &str| Failure::input(format!("--otlp-endpoint {shown}: {why}"));
        let Some(rest) = given.strip_prefix("http://") else {
            return Err(refuse(if given.starts_with("https://") {
                "https is not supported (push to a collector over http, e.g. http://localhost:4318)"
            } else {
                "not an http:// URL (e.g. http://localhost:4318)"
            }));
        };
        let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        if rest[..authority_end].rsplit('@').next().is_none_or(str::is_empty) {
            return Err(refuse("no host"));
        }
        if rest[authority_end..].contains(['?', '#']) {
            return Err(refuse("a query or fragment has no place in an OTLP endpoint"));
        }
        let url = if given.ends_with("/v1/logs") {
            given.to_string()
        } else {
            format!("{}/v1/logs", given.trim_end_matches('/'))
        };
        Ok(Endpoint { shown: redact(&url), url })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_endpoint_gets_v1_logs_and_a_signal_endpoint_is_kept() {
        let url = |given: &str| Endpoint::parse(given).map(|e| e.url).map_err(|f| f.message);
        assert_eq!(url("http://localhost:4318").unwrap(), "http://localhost:4318/v1/logs");
        assert_eq!(url("http://localhost:4318/").unwrap(), "http://localhost:4318/v1/logs");
        assert_eq!(url("http://gw/otlp").unwrap(), "http://gw/otlp/v1/logs");
        assert_eq!(url("http://gw:4318/v1/logs").unwrap(), "http://gw:4318/v1/logs");
        assert!(url("https://gw:4318").unwrap_err().contains("https is not supported"));
        assert!(url("gw:4318").unwrap_err().contains("not an http:// URL"));
        assert!(url("http:///v1/logs").unwrap_err().contains("no host"));
    }

    #[test]
    fn credentials_are_never_shown() {
        let endpoint = Endpoint::parse("http://user:hunter2@gw:4318").unwrap();
        assert_eq!(endpoint.url, "http://user:hunter2@gw:4318/v1/logs");
        assert!(!endpoint.shown.contains("hunter2"), "{}", endpoint.shown);
        let refused = Endpoint::parse("https://user:hunter2@gw:4318").unwrap_err();
        assert!(!refused.message.contains("hunter2"), "{}", refused.message);
    }
}
