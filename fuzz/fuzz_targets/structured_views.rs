//! The `structured_views` fuzz target (raw outputs in YAML or JSON Lines): the fuzzer's
//! bytes are the choices of the YAML / JSON Lines generator in `../structured.rs`, whose
//! cases it checks on every route.
#![no_main]

use std::sync::OnceLock;

use groundcheck_core::Verifier;

#[path = "../structured.rs"]
#[allow(dead_code)]
mod structured;

static VERIFIERS: OnceLock<Vec<(Verifier, Verifier)>> = OnceLock::new();

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let verifiers = VERIFIERS.get_or_init(structured::verifiers);
    structured::check(&mut structured::Bytes(data), verifiers, 1);
});
