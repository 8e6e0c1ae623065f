//! What a `reverify` job found: counts by status, reason, tool and retrieval layer, and the
//! changes against the verdicts stored before it, with their transition table.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Seek, Write};

use groundcheck_core::{Reason, Status, Verdict};
use serde::Serialize;

/// A status and reason pair, as stored and compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Outcome {
    pub status: Status,
    pub reason: Reason,
}

/// One invocation whose stored verdict differs from the new one (or had none).
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    pub id: i64,
    pub run_id: Option<String>,
    /// `null` when nothing was stored for the policy before.
    pub from: Option<Outcome>,
    pub to: Outcome,
}

/// Status counts of one slice of the job.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct StatusCounts {
    pub supported: u64,
    pub unsupported: u64,
    pub no_evidence: u64,
}

impl StatusCounts {
    fn add(&mut self, status: Status) {
        match status {
            Status::Supported => self.supported += 1,
            Status::Unsupported => self.unsupported += 1,
            Status::NoEvidence => self.no_evidence += 1,
        }
    }
}

/// The running totals of a job. Maps are ordered, so the output is deterministic.
#[derive(Debug, Default, Serialize)]
pub struct Tally {
    pub invocations: u64,
    pub runs: u64,
    #[serde(flatten)]
    pub status: StatusCounts,
    pub claim_mismatches: u64,
    pub by_reason: BTreeMap<String, u64>,
    pub by_tool: BTreeMap<String, StatusCounts>,
    pub by_retrieval_layer: BTreeMap<String, StatusCounts>,
    /// `from → to` status transitions against the stored verdicts; `new` when none.
    #[serde(skip)]
    pub transitions: BTreeMap<(String, String), u64>,
    /// Where changes go, when the output lists them.
    #[serde(skip)]
    pub changes: Option<Spool>,
}

/// Changes written to an anonymous temporary file as they are found: a first run over
/// millions of rows changes every one of them, and memory must not grow with that.
#[derive(Debug)]
pub struct Spool {
    file: BufWriter<File>,
    count: u64,
    /// Elements of a JSON array (`,` between, indented) instead of JSON lines.
    array: bool,
}

impl Spool {
    pub fn new(array: bool) -> io::Result<Spool> {
        Ok(Spool { file: BufWriter::new(tempfile::tempfile()?), count: 0, array })
    }

    fn push(&mut self, change: &Change) -> io::Result<()> {
        if self.array {
            self.file.write_all(if self.count == 0 { b"\n    " } else { b",\n    " })?;
        }
        serde_json::to_writer(&mut self.file, change)?;
        if !self.array {
            self.file.write_all(b"\n")?;
        }
        self.count += 1;
        Ok(())
    }

    /// The changes written, rewound for reading.
    pub fn finish(self) -> io::Result<(File, u64)> {
        let mut file = self.file.into_inner().map_err(|e| e.into_error())?;
        file.rewind()?;
        Ok((file, self.count))
    }
}

impl Tally {
    /// Counts one verdict. `layer` is the row's `retrieval_layer`; `before` what was stored.
    pub fn add(
        &mut self,
        run_id: Option<&str>,
        verdict: &Verdict,
        layer: Option<&str>,
        before: Option<Outcome>,
    ) -> io::Result<()> {
        self.invocations += 1;
        self.status.add(verdict.status);
        self.claim_mismatches += u64::from(verdict.is_claim_mismatch());
        *self.by_reason.entry(verdict.reason.as_str().to_string()).or_default() += 1;
        self.by_tool.entry(verdict.tool_name.clone()).or_default().add(verdict.status);
        self.by_retrieval_layer.entry(layer.unwrap_or("(none)").to_string()).or_default().add(verdict.status);
        let to = Outcome { status: verdict.status, reason: verdict.reason };
        let from_name = before.map_or_else(|| "new".to_string(), |b| b.status.as_str().to_string());
        *self.transitions.entry((from_name, to.status.as_str().to_string())).or_default() += 1;
        if let (Some(spool), true) = (&mut self.changes, before != Some(to)) {
            spool.push(&Change { id: verdict.id, run_id: run_id.map(str::to_string), from: before, to })?;
        }
        Ok(())
    }
}
