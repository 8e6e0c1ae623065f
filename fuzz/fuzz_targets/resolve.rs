//! Fuzzes `resolve`: JSONPath (RFC 9535) and JSON Pointer (RFC 6901) on our own JSON tree.
//!
//! Input layout: `path \0 document`, split at the first NUL (neither a path nor JSON text can
//! hold a raw NUL) and decoded lossily; documents that `Json::parse` rejects are skipped.
//! Asserts, besides "no panic, no hang, bounded memory", for the first few selected nodes:
//! - the node's value is JSON text that parses;
//! - its normalized path, resolved again, selects exactly that node (or, on a document deeper
//!   than the query ceiling, is refused as too deep).
//!
//! `tests/fuzz_regressions.rs` replays `fuzz/regressions/resolve/` through the same checks on
//! stable Rust; keep the two in step.
#![no_main]

use groundcheck_core::{resolve, Json, Limits, ResolveError};
use libfuzzer_sys::fuzz_target;

/// Re-resolving every node of `$..*` on a big document would be quadratic: check a few.
const RECHECKED: usize = 8;

fuzz_target!(|data: &[u8]| {
    let (path, doc) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &b"{}"[..]),
    };
    let path = String::from_utf8_lossy(path);
    let Ok(doc) = Json::parse(&String::from_utf8_lossy(doc)) else { return };
    let Ok(nodes) = resolve(&path, &doc) else { return };
    for node in nodes.iter().take(RECHECKED) {
        assert!(Json::parse(&node.value).is_ok(), "{node:?} is not JSON");
        match resolve(&node.path, &doc) {
            Ok(again) => assert_eq!(again, std::slice::from_ref(node), "{node:?} does not resolve to itself"),
            Err(ResolveError::TooDeep { .. }) if doc.depth() > Limits::QUERY_DEPTH_CEILING => {}
            Err(e) => panic!("the normalized path of {node:?} does not resolve: {e}"),
        }
    }
});
