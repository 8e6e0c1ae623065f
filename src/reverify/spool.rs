//! The changes a job finds, written to an anonymous temporary file as they are found: a first
//! run over millions of rows changes every one of them, and memory must not grow with that.
//! Each change is one compact JSON line; the JSON summary streams them back as its last member.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Seek, Write};

use serde::ser::{Error as _, SerializeSeq};
use serde::{Serialize, Serializer};

use crate::reverify::change::Change;

/// Changes being written.
#[derive(Debug)]
pub struct Spool {
    file: BufWriter<File>,
    count: u64,
}

impl Spool {
    /// An empty spool in a new temporary file.
    pub fn new() -> io::Result<Spool> {
        Ok(Spool { file: BufWriter::new(tempfile::tempfile()?), count: 0 })
    }

    /// Appends one change.
    pub fn push(&mut self, change: &Change) -> io::Result<()> {
        serde_json::to_writer(&mut self.file, change)?;
        self.file.write_all(b"\n")?;
        self.count += 1;
        Ok(())
    }

    /// The changes written, rewound for reading.
    pub fn finish(self) -> io::Result<Spooled> {
        let mut file = self.file.into_inner().map_err(|e| e.into_error())?;
        file.rewind()?;
        Ok(Spooled { file, count: self.count })
    }
}

/// Changes written and rewound: JSON lines to copy out as they are, or a JSON array that
/// serializes by streaming them from the file.
#[derive(Debug)]
pub struct Spooled {
    file: File,
    count: u64,
}

impl Spooled {
    /// The file of JSON lines, positioned at its start.
    pub fn into_lines(self) -> File {
        self.file
    }
}

/// A JSON array of the changes, each element written exactly as spooled (compact, one a
/// line in pretty output), read from the file while serializing.
impl Serialize for Spooled {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.count as usize))?;
        for line in BufReader::new(&self.file).lines() {
            let line = line.map_err(S::Error::custom)?;
            let raw = serde_json::value::RawValue::from_string(line).map_err(S::Error::custom)?;
            seq.serialize_element(&raw)?;
        }
        seq.end()
    }
}
