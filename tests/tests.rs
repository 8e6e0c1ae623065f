//! The one integration-test binary: the real `groundcheck` program driven end to end, the
//! library's rules one by one, the JSONPath Compliance Test Suite, the README's examples, and
//! insta snapshots of every fixture.

mod agent_schema;
mod agent_types;
mod browser;
mod bundle_limit;
mod cli;
mod connect;
mod conveniences;
/// The seeded corpus generator of `examples/corpus.rs`, shared by the tests that need volume.
#[path = "../examples/corpus.rs"]
mod corpus;
mod cts;
mod database_faults;
mod disk_full_and_locked;
mod engines;
mod fast_path;
mod fixture_tables;
mod frozen_database;
mod fuzz_regressions;
mod harness;
mod host_safety;
mod hostile_corpus;
mod json_in_strings;
mod near_misses;
mod otel;
mod otel_env;
mod properties;
mod proxy;
mod raw_output_files;
mod read_only;
mod readme;
mod recurring;
mod resolve_limits;
mod reverify;
mod rules;
mod schema;
mod secrets;
mod snapshots;
mod store;
mod store_hints;
mod structured_views;
mod template_guard;
mod tidy;
mod work_limits;
