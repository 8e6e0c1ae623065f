//! `groundcheck reverify`: batch re-verification of stored runs (SPEC §7).

pub mod pipeline;
pub mod shard;
pub mod tally;
