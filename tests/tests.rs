//! The one integration-test binary: the real `groundcheck` program driven end to end, the
//! library's rules one by one, the JSONPath Compliance Test Suite, and insta snapshots of
//! every fixture.

mod cli;
mod cts;
mod engines;
mod harness;
mod reverify;
mod rules;
mod schema;
mod snapshots;
mod store;
