//! `--otel FILE`: OTLP JSON lines, one `LogsData` a line (the OTLP file-exporter convention).
//!
//! Lines go to a temporary file beside FILE, which replaces FILE only when the command has
//! ended (done, or interrupted after committed batches): a failed command leaves FILE as it
//! was, and memory stays flat however many records a `reverify` job writes. With `-` the
//! temporary file becomes the command's standard output, held back like any output.

use std::io::{BufWriter, Seek, Write};
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
    file: BufWriter<tempfile::NamedTempFile>,
    /// The first write that failed: the command fails with it when it ends.
    error: Option<std::io::Error>,
}

impl Lines {
    /// A temporary file beside `path` (standard output: in the temporary folder).
    pub fn create(path: &Path) -> Result<Lines, Failure> {
        let (destination, temp) = if path == Path::new("-") {
            (Destination::Stdout, tempfile::NamedTempFile::new())
        } else {
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            (Destination::File(path.to_path_buf()), tempfile::NamedTempFile::new_in(dir))
        };
        let temp =
            temp.map_err(|e| Failure::input(format!("--otel {}: cannot create it: {e}", display(path))))?;
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

    /// Puts the lines in place: FILE replaced, or the file to copy to standard output.
    pub fn finish(self) -> Result<Option<std::fs::File>, Failure> {
        let shown = match &self.destination {
            Destination::File(path) => display(path),
            Destination::Stdout => "-".to_string(),
        };
        let failed =
            |e: &dyn std::fmt::Display| Failure::input(format!("--otel {shown}: cannot write it: {e}"));
        if let Some(e) = self.error {
            return Err(failed(&e));
        }
        let temp = self.file.into_inner().map_err(|e| failed(&e.into_error()))?;
        match self.destination {
            Destination::File(path) => {
                temp.persist(&path).map_err(|e| failed(&e.error))?;
                Ok(None)
            }
            Destination::Stdout => {
                let mut file = temp.into_file();
                file.rewind().map_err(|e| failed(&e))?;
                Ok(Some(file))
            }
        }
    }
}
