//! The bounded wait of every statement: a server that stops answering (frozen, a network
//! that drops packets without a reset) would otherwise keep a command waiting for ever, since
//! a connection that is open but silent never fails by itself. Each statement, each row of a
//! streamed read, each `BEGIN` and `COMMIT`, and taking a connection from the pool, waits at
//! most [`Store::statement_timeout`](crate::Store::statement_timeout); past it the call fails
//! with [`ErrorKind::NoAnswer`], naming the server's host and port. Migrations are not
//! bounded: building an index on a large agent table may rightly take longer than any
//! statement of a job.
//!
//! [`ErrorKind::NoAnswer`]: crate::ErrorKind::NoAnswer

use std::future::Future;
use std::time::Duration;

/// How long a statement may go without an answer unless
/// [`Store::set_statement_timeout`](crate::Store::set_statement_timeout)
/// says otherwise: far above what any statement of groundcheck's takes on a live server
/// (a batch's read or write), and short enough that a frozen one is noticed in a minute.
pub const STATEMENT_TIMEOUT: Duration = Duration::from_secs(60);

/// The error a statement past its wait fails with, carried inside an I/O error of kind
/// `TimedOut` so that it travels as any driver error does.
#[derive(Debug, thiserror::Error)]
#[error("no answer within {}", seconds(*.0))]
pub(crate) struct NoAnswer(pub(crate) Duration);

/// A wait, in words: `60 s`, `1.5 s`.
pub(crate) fn seconds(wait: Duration) -> String {
    format!("{} s", wait.as_secs_f64())
}

/// A driver call bounded by a wait.
pub(crate) trait Within<T>: Future<Output = Result<T, sqlx::Error>> + Sized {
    /// `self`, or a [`NoAnswer`] error once `wait` has passed without its answer.
    fn within(self, wait: Duration) -> impl Future<Output = Result<T, sqlx::Error>> {
        async move {
            match tokio::time::timeout(wait, self).await {
                Ok(result) => result,
                Err(_) => {
                    Err(sqlx::Error::Io(std::io::Error::new(std::io::ErrorKind::TimedOut, NoAnswer(wait))))
                }
            }
        }
    }
}

impl<T, F: Future<Output = Result<T, sqlx::Error>>> Within<T> for F {}

/// The wait behind a driver error, when it is a [`NoAnswer`].
pub(crate) fn no_answer(err: &sqlx::Error) -> Option<Duration> {
    let sqlx::Error::Io(io) = err else { return None };
    io.get_ref()?.downcast_ref::<NoAnswer>().map(|n| n.0)
}
