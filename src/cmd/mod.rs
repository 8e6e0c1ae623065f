//! One module per command; each returns the exit code or a [`Failure`](crate::failure::Failure).

pub mod export;
pub mod import;
pub mod migrate;
pub mod resolve;
pub mod reverify;
pub mod run;
pub mod verify;
