//! Records grouped into bounded `LogsData` messages: the OTLP file-exporter convention writes
//! one `LogsData` a line, and a Collector's `otlpjsonfile` receiver (like any line reader)
//! wants lines of a bounded size; OTLP/HTTP receivers bound a request's size too.

use opentelemetry_proto::tonic::common::v1::InstrumentationScope;
use opentelemetry_proto::tonic::logs::v1::{LogRecord, LogsData, ResourceLogs, ScopeLogs};
use opentelemetry_proto::tonic::resource::v1::Resource;

use crate::attribute::string;

/// Most records in one `LogsData`.
pub const MAX_RECORDS: usize = 512;

/// Most bytes of one `LogsData` as an OTLP JSON line (newline excluded) — half the 1 MiB a
/// Collector's file reader takes in one line by default. A record larger than this on its
/// own (a claim's ids would have to be hundreds of kilobytes long) gets a line to itself.
pub const MAX_LINE_BYTES: usize = 512 * 1024;

/// Who made the records: the resource and instrumentation scope every `LogsData` carries.
#[derive(Debug, Clone, Copy)]
pub struct Origin<'a> {
    /// `service.name`, e.g. `groundcheck`.
    pub service_name: &'a str,
    /// `service.version` and the scope's version: the engine version, as stored verdicts
    /// record it.
    pub version: &'a str,
}

/// Collects records and hands out full `LogsData` messages, each within [`MAX_RECORDS`] and
/// [`MAX_LINE_BYTES`].
#[derive(Debug)]
pub struct Batcher {
    resource: Resource,
    scope: InstrumentationScope,
    /// The bytes of a line with no record.
    envelope: usize,
    records: Vec<LogRecord>,
    /// The JSON bytes of `records`, separators included.
    bytes: usize,
}

impl Batcher {
    /// A batcher whose messages all come from `origin`.
    pub fn new(origin: Origin<'_>) -> Batcher {
        Batcher::with_resource(origin, &[])
    }

    /// A batcher whose messages all come from `origin`, their resource also carrying
    /// `attributes` (a deployment's own, e.g. `OTEL_RESOURCE_ATTRIBUTES` and
    /// `OTEL_SERVICE_NAME`), so the verdicts land beside the deployment's other telemetry. An
    /// attribute named like one of `origin`'s (`service.name`) replaces it in place; a later
    /// one of the same key replaces an earlier. The instrumentation scope stays `origin`'s:
    /// it names the code that made the records, not the deployment.
    pub fn with_resource(origin: Origin<'_>, attributes: &[(String, String)]) -> Batcher {
        let mut pairs: Vec<(&str, &str)> =
            vec![("service.name", origin.service_name), ("service.version", origin.version)];
        for (key, value) in attributes {
            match pairs.iter_mut().find(|(k, _)| k == key) {
                Some(pair) => pair.1 = value,
                None => pairs.push((key, value)),
            }
        }
        let resource = Resource {
            attributes: pairs.into_iter().map(|(k, v)| string(k, v)).collect(),
            ..Resource::default()
        };
        let scope = InstrumentationScope {
            name: origin.service_name.to_string(),
            version: origin.version.to_string(),
            ..InstrumentationScope::default()
        };
        let mut batcher = Batcher { resource, scope, envelope: 0, records: Vec::new(), bytes: 0 };
        batcher.envelope = json_len(&batcher.message(Vec::new()));
        batcher
    }

    /// Adds `record`; returns the message of the records before it when `record` would not
    /// fit beside them.
    pub fn push(&mut self, record: LogRecord) -> Option<LogsData> {
        let size = json_len(&record);
        let full = !self.records.is_empty()
            && (self.records.len() == MAX_RECORDS || self.envelope + self.bytes + 1 + size > MAX_LINE_BYTES);
        let done = if full { self.take() } else { None };
        self.bytes += size + usize::from(!self.records.is_empty());
        self.records.push(record);
        done
    }

    /// The message of the records not yet handed out, if any.
    pub fn take(&mut self) -> Option<LogsData> {
        if self.records.is_empty() {
            return None;
        }
        self.bytes = 0;
        let records = std::mem::take(&mut self.records);
        Some(self.message(records))
    }

    fn message(&self, log_records: Vec<LogRecord>) -> LogsData {
        LogsData {
            resource_logs: vec![ResourceLogs {
                resource: Some(self.resource.clone()),
                scope_logs: vec![ScopeLogs {
                    scope: Some(self.scope.clone()),
                    log_records,
                    ..ScopeLogs::default()
                }],
                ..ResourceLogs::default()
            }],
        }
    }
}

/// The length of `value` as compact JSON (the only way a type of the crate fails to
/// serialise is a map with non-string keys, which OTLP messages do not have).
fn json_len<T: serde::Serialize>(value: &T) -> usize {
    serde_json::to_vec(value).map_or(0, |v| v.len())
}

/// How many records `data` holds.
pub fn record_count(data: &LogsData) -> usize {
    data.resource_logs.iter().flat_map(|r| &r.scope_logs).map(|s| s.log_records.len()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORIGIN: Origin<'static> = Origin { service_name: "groundcheck", version: "0.1.0" };

    fn record(body_len: usize) -> LogRecord {
        LogRecord { attributes: vec![string("x", &"y".repeat(body_len))], ..LogRecord::default() }
    }

    fn drain(records: impl Iterator<Item = LogRecord>) -> Vec<LogsData> {
        let mut batcher = Batcher::new(ORIGIN);
        let mut out: Vec<LogsData> = records.filter_map(|r| batcher.push(r)).collect();
        out.extend(batcher.take());
        out
    }

    #[test]
    fn lines_hold_at_most_max_records() {
        let lines = drain((0..MAX_RECORDS * 2 + 1).map(|_| record(1)));
        let counts: Vec<usize> = lines.iter().map(record_count).collect();
        assert_eq!(counts, [MAX_RECORDS, MAX_RECORDS, 1]);
    }

    #[test]
    fn lines_stay_within_max_line_bytes_and_the_sizes_are_exact() {
        let lines = drain((0..40).map(|_| record(40_000)));
        assert!(lines.len() > 1);
        assert_eq!(lines.iter().map(record_count).sum::<usize>(), 40);
        for line in &lines {
            assert!(json_len(line) <= MAX_LINE_BYTES, "{}", json_len(line));
        }
        // The estimate is the line's exact length: a line one record fuller would not fit.
        let mut batcher = Batcher::new(ORIGIN);
        for _ in 0..3 {
            assert!(batcher.push(record(10)).is_none());
        }
        assert_eq!(batcher.envelope + batcher.bytes, json_len(&batcher.take().unwrap()));
    }

    #[test]
    fn resource_attributes_replace_and_extend_the_origin_but_not_the_scope() {
        let attributes = [("team".into(), "sre".into()), ("service.name".into(), "verifier".into())];
        let mut batcher = Batcher::with_resource(ORIGIN, &attributes);
        batcher.push(record(1));
        let data = batcher.take().unwrap();
        let resource = data.resource_logs[0].resource.as_ref().unwrap();
        let keys: Vec<(&str, String)> = resource
            .attributes
            .iter()
            .map(|kv| (kv.key.as_str(), format!("{:?}", kv.value.as_ref().unwrap().value)))
            .collect();
        assert_eq!(keys.len(), 3);
        assert_eq!(keys[0].0, "service.name");
        assert!(keys[0].1.contains("verifier"), "{keys:?}");
        assert_eq!((keys[1].0, keys[2].0), ("service.version", "team"));
        assert_eq!(data.resource_logs[0].scope_logs[0].scope.as_ref().unwrap().name, "groundcheck");
    }

    #[test]
    fn an_oversized_record_gets_a_line_of_its_own() {
        let lines = drain([record(1), record(MAX_LINE_BYTES), record(1)].into_iter());
        let counts: Vec<usize> = lines.iter().map(record_count).collect();
        assert_eq!(counts, [1, 1, 1]);
    }
}
