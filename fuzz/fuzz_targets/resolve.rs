//! The `resolve` fuzz target: its input layout and what it asserts are in `../checks.rs`.
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code)] // each target uses one of the checks
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::resolve_path(data));
