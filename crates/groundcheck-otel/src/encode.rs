//! The two OTLP encodings of a message: a JSON line for files (the file-exporter convention)
//! and the protobuf body of an OTLP/HTTP export request.

use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::logs::v1::LogsData;
use prost::Message;

/// `data` as one line of OTLP JSON, without the newline: the crate's serde mapping (keys in
/// lowerCamelCase, 64-bit integers as decimal strings, ids as hex, enums as integers).
pub fn json_line(data: &LogsData) -> String {
    // Serialising these types cannot fail: they hold no map with non-string keys.
    serde_json::to_string(data).unwrap_or_default()
}

/// `data` as the protobuf body of an OTLP/HTTP `POST /v1/logs` (`application/x-protobuf`).
pub fn export_request(data: LogsData) -> Vec<u8> {
    ExportLogsServiceRequest { resource_logs: data.resource_logs }.encode_to_vec()
}

/// How many records a receiver's OTLP/HTTP protobuf response says it rejected (its
/// `partial_success`); 0 for an empty or unreadable body, which OTLP reads as full success.
pub fn rejected_records(response: &[u8]) -> i64 {
    use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceResponse;
    ExportLogsServiceResponse::decode(response)
        .ok()
        .and_then(|r| r.partial_success)
        .map_or(0, |p| p.rejected_log_records.max(0))
}
