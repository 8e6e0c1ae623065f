//! The time on every record: the verification's, read from the clock as each batch of
//! verdicts is done, or the one `--otel-time` fixes (for snapshot tests, or to stamp a
//! re-verification with the time of an audit).

use std::time::{SystemTime, UNIX_EPOCH};

use groundcheck_store::to_unix_nanos;

use crate::failure::Failure;

/// Where record times come from.
#[derive(Debug, Clone, Copy)]
pub enum Clock {
    /// The system clock, read once per batch of verdicts.
    System,
    /// Nanoseconds since the Unix epoch, for every record.
    Fixed(u64),
}

impl Clock {
    /// `--otel-time`, when given.
    pub fn parse(fixed: Option<&str>) -> Result<Clock, Failure> {
        match fixed {
            None => Ok(Clock::System),
            Some(text) => to_unix_nanos(text)
                .map(Clock::Fixed)
                .map_err(|e| Failure::input(format!("--otel-time: {e}, at or after 1970"))),
        }
    }

    /// The time now, in nanoseconds since the Unix epoch.
    pub fn now(self) -> u64 {
        match self {
            Clock::Fixed(nanos) => nanos,
            Clock::System => SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)),
        }
    }
}
