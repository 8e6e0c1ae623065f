//! The one integration-test binary: the real `groundcheck` program driven end to end, the
//! library's rules one by one, the JSONPath Compliance Test Suite, and insta snapshots of
//! every fixture.

mod cli;
mod connect;
/// The seeded corpus generator of `examples/corpus.rs`, shared by the tests that need volume.
#[path = "../examples/corpus.rs"]
mod corpus;
mod cts;
mod engines;
mod fast_path;
mod faults;
mod fuzz_regressions;
mod harness;
mod hostile;
mod properties;
mod read_only;
mod reverify;
mod rules;
mod schema;
mod secrets;
mod snapshots;
mod store;
