//! Ctrl-C (SIGINT) during a job, and the command that resumes it.
//!
//! The first interrupt asks the pipeline to stop: no further run is read, the batch being
//! committed finishes, batches not yet committed are dropped, and the job says how far it got
//! and how to resume. A second interrupt stops at once; a commit then either happened or did
//! not, so `--resume` is still exact.

use std::future::Future;
use std::io;

use groundcheck_store::redact;
use tokio::sync::watch;

use crate::failure::INTERRUPTED;

/// Interrupts from the terminal, caught from the moment this is made.
pub struct Interrupts {
    #[cfg(unix)]
    signal: tokio::signal::unix::Signal,
}

impl Interrupts {
    /// Catches SIGINT from now on (until the process ends). Needs a tokio runtime with I/O.
    pub fn catch() -> io::Result<Interrupts> {
        #[cfg(unix)]
        {
            let signal = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
            Ok(Interrupts { signal })
        }
        #[cfg(not(unix))]
        Ok(Interrupts {})
    }

    /// The next interrupt.
    pub async fn next(&mut self) {
        #[cfg(unix)]
        if self.signal.recv().await.is_none() {
            std::future::pending::<()>().await;
        }
        #[cfg(not(unix))]
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// Drives `work` to its end while catching interrupts: the first sets `stop` (the work then
/// winds down by itself), a second calls `hard_stop` (which says what happened) and exits
/// with [`INTERRUPTED`] at once.
pub async fn drive<F: Future>(
    work: F,
    interrupts: &mut Interrupts,
    stop: &watch::Sender<bool>,
    hard_stop: impl Fn(),
) -> F::Output {
    tokio::pin!(work);
    loop {
        tokio::select! {
            done = &mut work => return done,
            () = interrupts.next() => {
                if *stop.borrow() {
                    hard_stop();
                    std::process::exit(i32::from(INTERRUPTED));
                }
                stop.send_replace(true);
            }
        }
    }
}

/// The command line that resumes this job: the one given, with `--resume` added when it was
/// missing. The database URL's password, wherever it appears, is shown as `***`.
pub fn resume_command(argv: &[String], url: &str) -> String {
    let redacted = redact(url);
    let mut words: Vec<String> = argv.iter().map(|a| a.replace(url, &redacted)).collect();
    if !words.iter().skip(1).any(|w| w == "--resume") {
        words.push("--resume".to_string());
    }
    words.iter().map(|w| shell_quote(w)).collect::<Vec<_>>().join(" ")
}

/// `word` as a POSIX shell reads it back: as is when it is plainly safe, else single-quoted.
fn shell_quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn the_resume_command_is_the_one_given_plus_resume() {
        let cmd =
            resume_command(&argv(&["groundcheck", "reverify", "--write", "--shard=2/8"]), "sqlite://x.db");
        assert_eq!(cmd, "groundcheck reverify --write --shard=2/8 --resume");
        let again =
            argv(&["gc", "reverify", "--resume", "--write", "--tool", "query logs", "--since", "it's"]);
        assert_eq!(
            resume_command(&again, "sqlite://x.db"),
            r"gc reverify --resume --write --tool 'query logs' --since 'it'\''s'"
        );
    }

    #[test]
    fn the_resume_command_never_shows_the_password() {
        let url = "mysql://gc:s3cret@db:3306/agent";
        for given in [vec!["gc", "reverify", "--database", url, "--write"], vec!["gc", "reverify", "--write"]]
        {
            let mut given = argv(&given);
            if given.len() == 3 {
                given.push(format!("--database={url}"));
            }
            let cmd = resume_command(&given, url);
            assert!(!cmd.contains("s3cret"), "{cmd}");
            assert!(cmd.contains("gc:***@db:3306/agent"), "{cmd}");
        }
    }
}
