//! OTLP attribute values: one constructor per value type, so the mapping reads as a table of
//! names and values.

use opentelemetry_proto::tonic::common::v1::{any_value::Value, AnyValue, KeyValue};

fn pair(key: &str, value: Value) -> KeyValue {
    KeyValue { key: key.to_string(), value: Some(AnyValue { value: Some(value) }), ..KeyValue::default() }
}

/// A string attribute.
pub fn string(key: &str, value: &str) -> KeyValue {
    pair(key, Value::StringValue(value.to_string()))
}

/// An integer attribute (OTLP JSON writes it as a decimal string).
pub fn int(key: &str, value: i64) -> KeyValue {
    pair(key, Value::IntValue(value))
}

/// A boolean attribute.
pub fn bool(key: &str, value: bool) -> KeyValue {
    pair(key, Value::BoolValue(value))
}

/// A double attribute.
pub fn double(key: &str, value: f64) -> KeyValue {
    pair(key, Value::DoubleValue(value))
}
