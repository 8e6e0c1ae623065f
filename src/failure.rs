//! What ends a command early: one line for a person on stderr, then exit code 2.

use std::path::Path;

/// A command that cannot finish: bad usage, bad input, or a database that failed. Printed as
/// one stderr line; the exit code is always 2 (1 means a `--fail-on` condition was met,
/// which is a finished command, not a failure).
#[derive(Debug)]
pub struct Failure {
    pub message: String,
}

impl Failure {
    /// Bad usage or input.
    pub fn input(message: impl Into<String>) -> Failure {
        Failure { message: message.into() }
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
