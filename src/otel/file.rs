//! `--otel FILE`: OTLP JSON lines, one `LogsData` a line (the OTLP file-exporter convention).
//!
//! Lines go to an unnamed temporary file, and into FILE only when the command has ended
//! (done, or interrupted after committed batches): a failed command leaves FILE as it was,
//! and memory stays flat however many records a `reverify` job writes. FILE is then written
//! as a shell's `>` would write it — opened for writing, created or truncated — so a FIFO a
//! Collector reads, a device, or a symlink is written through, not replaced by a regular
//! file; a new FILE gets the umask's mode and an existing one keeps its mode (and owner), so
//! a Collector running as another user can still read it. With `-` the temporary file
//! becomes the command's standard output, held back like any output.

use std::fs::File;
use std::io::{self, BufWriter, Seek, Write};
use std::path::{Path, PathBuf};

use crate::failure::{display, Failure};

/// Where the lines go.
pub enum Destination {
    /// FILE, once the command ends.
    File(PathBuf),
    /// Standard output, in place of the report.
    Stdout,
}

/// The lines written so far, in a temporary file.
pub struct Lines {
    destination: Destination,
    file: BufWriter<File>,
    /// The first write that failed: the command fails with it when it ends.
    error: Option<io::Error>,
}

impl Lines {
    /// An unnamed temporary file for the lines bound for `path` (`-`: standard output).
    pub fn create(path: &Path) -> Result<Lines, Failure> {
        let destination = if path == Path::new("-") {
            Destination::Stdout
        } else {
            writable(path)
                .map_err(|e| Failure::input(format!("--otel {}: cannot create it: {e}", display(path))))?;
            Destination::File(path.to_path_buf())
        };
        let temp = tempfile::tempfile().map_err(|e| {
            let dir = std::env::temp_dir();
            Failure::input(format!(
                "--otel {}: cannot create a temporary file in {}: {e}",
                display(path),
                dir.display()
            ))
        })?;
        Ok(Lines { destination, file: BufWriter::new(temp), error: None })
    }

    /// Whether the lines replace the report on standard output.
    pub fn is_stdout(&self) -> bool {
        matches!(self.destination, Destination::Stdout)
    }

    /// Appends one line; a failure is kept for [`Lines::finish`].
    pub fn write(&mut self, line: &str) {
        if self.error.is_none() {
            if let Err(e) = writeln!(self.file, "{line}") {
                self.error = Some(e);
            }
        }
    }

    /// Puts the lines in place: written into FILE, or the file to copy to standard output.
    pub fn finish(self) -> Result<Option<File>, Failure> {
        let shown = match &self.destination {
            Destination::File(path) => display(path),
            Destination::Stdout => "-".to_string(),
        };
        let failed =
            |e: &dyn std::fmt::Display| Failure::input(format!("--otel {shown}: cannot write it: {e}"));
        if let Some(e) = self.error {
            return Err(failed(&e));
        }
        let mut temp = self.file.into_inner().map_err(|e| failed(&e.into_error()))?;
        temp.rewind().map_err(|e| failed(&e))?;
        match self.destination {
            Destination::File(path) => {
                let mut file = File::create(&path).map_err(|e| failed(&e))?;
                io::copy(&mut temp, &mut file).map_err(|e| failed(&e))?;
                file.flush().map_err(|e| failed(&e))?;
                Ok(None)
            }
            Destination::Stdout => Ok(Some(temp)),
        }
    }
}

/// Whether FILE can be written, found out before the command does any work, as a shell finds
/// it out before it runs the command: a regular file is opened for writing (not truncated); a
/// FILE that does not exist is created and removed again. A FIFO or a device is not opened
/// now — opening a FIFO waits for its reader — and is found out when the lines are written.
fn writable(path: &Path) -> io::Result<()> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => std::fs::OpenOptions::new().write(true).open(path).map(drop),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            File::create_new(path)?;
            std::fs::remove_file(path)
        }
        Err(e) => Err(e),
    }
}
