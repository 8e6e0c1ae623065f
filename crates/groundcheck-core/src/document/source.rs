//! Where an invocation's raw document comes from, decided once per invocation: the row's raw
//! output, else a raw-output file the caller read, else a preview that is provably complete,
//! else nothing ([the raw document](../../../docs/verification.md#the-raw-document)).

use crate::invocation::{Invocation, RawOutput, RawOutputFile};
use crate::json::Json;
use crate::report::{Source, Warning};

/// The raw document of an invocation, as found; nothing parsed yet.
#[derive(Clone, Copy)]
pub(crate) enum Raw<'a> {
    /// The raw output, given as JSON.
    Json(&'a Json),
    /// Text: the raw output as text, a raw-output file's text, or a complete preview.
    Text(&'a str),
    /// A raw-output file longer than the size limit (reading stopped one byte past it).
    OverLimit,
    /// Nothing to check against.
    Absent,
}

impl<'a> Raw<'a> {
    /// `inv`'s raw document and where it comes from.
    pub(crate) fn of(inv: &'a Invocation) -> (Source, Raw<'a>) {
        match (&inv.raw_output, &inv.raw_output_file) {
            (Some(RawOutput::Json(doc)), _) => (Source::RawOutput, Raw::Json(doc)),
            (Some(RawOutput::Text(text)), _) => (Source::RawOutput, Raw::Text(text)),
            (Some(RawOutput::Shared(text)), _) => (Source::RawOutput, Raw::Text(text)),
            (None, Some(RawOutputFile::Read(text))) => (Source::File, Raw::Text(text)),
            (None, Some(RawOutputFile::OverLimit)) => (Source::File, Raw::OverLimit),
            (None, _) => match complete_preview(inv) {
                Some(preview) => (Source::Preview, Raw::Text(preview)),
                None => (Source::None, Raw::Absent),
            },
        }
    }

    /// The document as text, when it is given as text.
    pub(crate) fn text(self) -> Option<&'a str> {
        match self {
            Raw::Text(text) => Some(text),
            Raw::Json(_) | Raw::OverLimit | Raw::Absent => None,
        }
    }
}

/// The warning a raw-output file lookup gives, if any (only for rows without a raw output).
pub(crate) fn file_warning(inv: &Invocation) -> Option<Warning> {
    if inv.raw_output.is_some() {
        return None;
    }
    match inv.raw_output_file.as_ref()? {
        RawOutputFile::Read(_) | RawOutputFile::OverLimit => None,
        RawOutputFile::PathUnsafe => Some(Warning::RawOutputPathUnsafe),
        RawOutputFile::Missing => Some(Warning::RawOutputMissing),
        RawOutputFile::Unreadable => Some(Warning::RawOutputUnreadable),
    }
}

/// The preview, when it provably is the whole output: not truncated, and `output_length`
/// equal to its length in scalar values or in UTF-16 code units (a JVM writer counts those).
fn complete_preview(inv: &Invocation) -> Option<&str> {
    let preview = inv.output_preview.as_deref()?;
    let length = inv.output_length?;
    let fits = |n: usize| i64::try_from(n).is_ok_and(|n| n == length);
    let complete = inv.is_truncated == Some(false)
        && (fits(preview.chars().count()) || fits(preview.encode_utf16().count()));
    complete.then_some(preview)
}
