//! What ends a command early: one line for a person on stderr, then exit code 2 (130 when
//! it was interrupted).

use std::io::Write;
use std::path::Path;

use crate::visible::visible;

/// The exit code of a command stopped by Ctrl-C: 128 + SIGINT, as shells report it.
pub const INTERRUPTED: u8 = 130;

/// A command that cannot finish: bad usage, bad input, a database that failed, or Ctrl-C.
/// Printed as one stderr line. (Exit code 1 means a `--fail-on` condition was met, which is
/// a finished command, not a failure.)
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    /// Whether the command was interrupted (SIGINT): exit code 130, as shells expect, not 2.
    pub interrupted: bool,
}

impl Failure {
    /// Bad usage or input: exit code 2.
    pub fn input(message: impl Into<String>) -> Failure {
        Failure { message: message.into(), interrupted: false }
    }

    /// Stopped by Ctrl-C, cleanly: exit code 130.
    pub fn interrupted(message: impl Into<String>) -> Failure {
        Failure { message: message.into(), interrupted: true }
    }

    /// The process exit code for this failure.
    pub fn exit_code(&self) -> u8 {
        if self.interrupted {
            INTERRUPTED
        } else {
            2
        }
    }

    /// A file that cannot be read, named with the reason.
    pub fn io(path: &Path, err: &std::io::Error) -> Failure {
        let reason = match err.kind() {
            std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
            std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
            _ => err.to_string(),
        };
        Failure::input(format!("{}: {reason}", display(path)))
    }
}

impl From<groundcheck_host::HostError> for Failure {
    /// The host layer's error as its own line: the engine's threads could not start, or a
    /// core error a command did not place itself.
    fn from(e: groundcheck_host::HostError) -> Failure {
        Failure::input(e.to_string())
    }
}

/// How a path is named at the start of a message: as given, except `-`, which is standard
/// input and reads better as `<stdin>`. Every file-related line starts with it, so failures
/// and the code that reads files name paths the same way.
pub fn display(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// Writes `line` to stderr as one line a terminal cannot be steered by: every control
/// character (an `ESC[2J` in a bundle key, a newline in a server's message) and every
/// character that would reorder the text is shown as `<U+XXXX>`. Every line groundcheck
/// prints on stderr goes through here, errors included. A failed write (a closed stderr) is
/// not worth a second failure.
pub fn say(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{}", visible(line, false));
}
