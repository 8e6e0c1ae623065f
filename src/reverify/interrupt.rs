//! Ctrl-C (SIGINT) during a job, and the command that resumes it.
//!
//! The first interrupt asks the pipeline to stop: no further run is read, the batch being
//! committed finishes, batches not yet committed are dropped, and the job says how far it got
//! and how to resume. A second interrupt stops at once, in every state; a commit then either
//! happened or did not, so `--resume` is still exact.

use std::io;
use std::sync::atomic::AtomicU8;
use std::sync::atomic::Ordering::SeqCst;

use groundcheck_store::redact;
use tokio::sync::watch;

use crate::failure::INTERRUPTED;

/// Interrupts from the terminal, heard on a thread of their own from the moment this is
/// made until the process ends. A thread, not a task of the job's runtime: whatever the job
/// is doing — a statement that does not return, a thread it waits for, a file that blocks —
/// the second Ctrl-C is heard and stops the process at once.
pub struct Interrupts {
    #[cfg(unix)]
    _thread: std::thread::JoinHandle<()>,
    /// Without a thread to own it, the sender is kept here: a dropped one would read as stop.
    #[cfg(not(unix))]
    _stop: watch::Sender<bool>,
}

impl Interrupts {
    /// Watches SIGINT: the first sets `stop` (the job then winds down by itself), a second
    /// calls `hard_stop` (which says what happened) and exits with [`INTERRUPTED`].
    pub fn watch(stop: watch::Sender<bool>, hard_stop: impl Fn() + Send + 'static) -> io::Result<Interrupts> {
        #[cfg(unix)]
        {
            let mut signals = signal_hook::iterator::Signals::new([signal_hook::consts::SIGINT])?;
            let thread =
                std::thread::Builder::new().name("groundcheck-interrupts".into()).spawn(move || {
                    for _ in signals.forever() {
                        // Once the job has ended, the command is printing its own last line
                        // and ends within moments (its output, at most the OTLP push's bounded
                        // wait): a Ctrl-C then changes nothing, so that line is never cut.
                        if *stop.borrow()
                            && ENDING.compare_exchange(RUNNING, STOPPING, SeqCst, SeqCst).is_ok()
                        {
                            hard_stop();
                            std::process::exit(i32::from(INTERRUPTED));
                        }
                        stop.send_replace(true);
                    }
                })?;
            Ok(Interrupts { _thread: thread })
        }
        #[cfg(not(unix))]
        {
            let _ = hard_stop;
            Ok(Interrupts { _stop: stop })
        }
    }
}

/// How the command is ending: still [`RUNNING`], [`ENDED`] on its own ([`ending`]), or
/// [`STOPPING`] on a second Ctrl-C. Whichever end comes first prints the last line.
static ENDING: AtomicU8 = AtomicU8::new(RUNNING);
const RUNNING: u8 = 0;
const ENDED: u8 = 1;
const STOPPING: u8 = 2;

/// The job is over and the command ends by itself, printing its own last line; a Ctrl-C from
/// now on changes nothing. If a second Ctrl-C is already stopping the process, this waits for
/// it to exit, so that only its line is printed.
pub fn ending() {
    if ENDING.compare_exchange(RUNNING, ENDED, SeqCst, SeqCst).is_err() {
        loop {
            std::thread::park();
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
