//! Reading bundle files, folders and standard input into runs.
//!
//! A PATH is a bundle file, `-` (standard input), or a folder, which means the `*.json` files
//! directly in it, in byte order of their names. Folders are not searched recursively, but
//! nothing is skipped silently: a folder's subfolders are named in a note, and a PATH that
//! yields no bundle file at all is an error.
//!
//! No file is read past a size limit (`--max-bundle-bytes`, see [`MaxBytes`]): `verify
//! /dev/zero`, or a `-` fed forever, stops one byte past it with one line, instead of reading
//! until memory runs out.

use std::path::{Path, PathBuf};

use groundcheck_core::{Bundle, Report, Run, RunSet, VerdictSet};
use groundcheck_files::Lookups;
use groundcheck_host::Engine;
use rayon::prelude::*;

use crate::failure::{display, Failure};

/// The most bytes one bundle file (or standard input) may hold, and the flag that sets it.
#[derive(Debug, Clone, Copy)]
pub struct MaxBytes {
    /// The limit, in bytes.
    pub bytes: usize,
    /// What a person changes to raise it, e.g. `--max-bundle-bytes`.
    pub flag: &'static str,
}

impl MaxBytes {
    /// The default limit of a bundle: four raw outputs at the default `--max-output-bytes`
    /// (64 MiB), which also leaves room for one such output written with JSON escapes. A file
    /// is held whole while it is parsed, and parsing takes a few times its size, so the limit
    /// also bounds the memory one file costs.
    pub const DEFAULT_BUNDLE: usize = 256 << 20;

    /// A bundle's limit: `given`, else four times the largest raw output verified (the
    /// default when that is the default).
    pub fn bundle(given: Option<usize>, max_output_bytes: usize) -> MaxBytes {
        let bytes = given.unwrap_or_else(|| max_output_bytes.saturating_mul(4).max(MaxBytes::DEFAULT_BUNDLE));
        MaxBytes { bytes, flag: "--max-bundle-bytes" }
    }
}

/// The bundle files the PATH arguments name, and what a person should know about them.
#[derive(Debug, Default)]
pub struct Inputs {
    /// Every bundle file, in argument order, each folder's in name order.
    pub files: Vec<PathBuf>,
    /// One line per folder whose subfolders were not read, starting with the folder's path.
    pub notes: Vec<String>,
}

/// Lists the bundle files of every PATH. A folder holding no `*.json` file, or standard input
/// named twice (it can be read only once), stops the command. A folder's subfolders that are
/// not PATHs themselves are named in a note.
pub fn inputs(paths: &[PathBuf]) -> Result<Inputs, Failure> {
    let mut inputs = Inputs::default();
    let stdin = Path::new("-");
    if paths.iter().filter(|p| p.as_path() == stdin).count() > 1 {
        return Err(Failure::input(format!(
            "{}: named twice, but standard input can be read only once",
            display(stdin)
        )));
    }
    // A subfolder that is itself a PATH is read, so it is not reported as unread.
    let given: Vec<PathBuf> = paths.iter().filter_map(|p| std::fs::canonicalize(p).ok()).collect();
    for path in paths {
        let mut listing = list(path)?;
        listing.subfolders.retain(|s| std::fs::canonicalize(s).map_or(true, |s| !given.contains(&s)));
        let note = unread_note(path, &listing);
        if listing.files.is_empty() {
            let empty = || format!("{}: {NO_BUNDLES}", display(path));
            return Err(Failure::input(note.unwrap_or_else(empty)));
        }
        inputs.notes.extend(note);
        inputs.files.extend(listing.files);
    }
    Ok(inputs)
}

/// Runs read from bundle files, with how many files they came from: what the `html` page
/// needs, since it shows the raw outputs (every other format verifies file by file, see
/// [`verify_files`]).
#[derive(Debug)]
pub struct Loaded {
    /// The runs, merged across files.
    pub runs: Vec<Run>,
    /// How many bundle files were read.
    pub files: usize,
    /// See [`Inputs::notes`].
    pub notes: Vec<String>,
}

/// Reads every bundle the PATH arguments name (see [`inputs`]) and merges them into runs,
/// keeping every raw output. Files are parsed in parallel and merged in order, so the runs
/// and the first problem reported are those of [`verify_files`], with any number of threads.
pub fn load_runs(paths: &[PathBuf], max: MaxBytes) -> Result<Loaded, Failure> {
    let Inputs { files, notes } = inputs(paths)?;
    let bundles: Vec<Result<Bundle, Failure>> = files.par_iter().map(|file| read_bundle(file, max)).collect();
    let mut runs = RunSet::default();
    for (file, bundle) in files.iter().zip(bundles) {
        for (i, inv) in bundle?.invocations.into_iter().enumerate() {
            runs.push(inv).map_err(|e| repeated_id(file, i, &e))?;
        }
    }
    Ok(Loaded { runs: runs.into_runs(), files: files.len(), notes })
}

/// A report of the bundles the PATH arguments name, with how many files it came from.
#[derive(Debug)]
pub struct Verified {
    /// The report: the same as the engine's report of every bundle's invocations merged into
    /// runs by a [`RunSet`](groundcheck_core::RunSet).
    pub report: Report,
    /// How many bundle files were read.
    pub files: usize,
    /// See [`Inputs::notes`].
    pub notes: Vec<String>,
    /// What the raw-output file lookups found (nothing without a template).
    pub lookups: Lookups,
}

/// Reads every bundle the PATH arguments name (see [`inputs`]) and verifies it with `engine`,
/// one file at a time on its threads: each file is read, parsed and its invocations verified
/// (each one's raw output file looked up just before, [`Engine::verify_each`]) before the
/// thread reads another, and each raw output is dropped once verified. So memory holds one
/// file and its bundle per thread plus the verdicts, never every raw output of the folder
/// (they are most of its bytes; holding them all made peak RSS many times the largest file).
/// Files are merged in order, so the runs, the verdicts and the first problem reported (a bad
/// file, an `id` repeated in a run) are the same with any number of threads.
pub fn verify_files(paths: &[PathBuf], engine: &Engine, max: MaxBytes) -> Result<Verified, Failure> {
    let Inputs { files, notes } = inputs(paths)?;
    let verify_file = |file: &PathBuf| Ok(engine.verify_each(read_bundle(file, max)?.invocations)?);
    let checked: Vec<Result<_, Failure>> =
        engine.threads().install(|| files.par_iter().map(verify_file).collect())?;
    let mut verdicts = VerdictSet::default();
    let mut lookups = Lookups::default();
    for (file, checked) in files.iter().zip(checked) {
        for (i, c) in checked?.into_iter().enumerate() {
            lookups.extend(c.lookup);
            verdicts.push(&c.run_id, &c.session_id, c.verdict).map_err(|e| repeated_id(file, i, &e))?;
        }
    }
    Ok(Verified { report: verdicts.into_report(), files: files.len(), notes, lookups })
}

/// An `id` repeated in a run, said at the place of the second: the same line whether the
/// runs are kept ([`load_runs`]) or only their verdicts ([`verify_files`]).
fn repeated_id(file: &Path, index: usize, e: &groundcheck_core::Error) -> Failure {
    Failure::input(format!("{}: $.invocations[{index}].id: {e}", display(file)))
}

/// Reads and parses one bundle file (or standard input for `-`), at most `max` bytes.
pub fn read_bundle(file: &Path, max: MaxBytes) -> Result<Bundle, Failure> {
    let text = read_text_at_most(file, max)?;
    Bundle::parse(&text).map_err(|e| Failure::input(format!("{}: {e}", display(file))))
}

/// What one PATH holds: bundle files, and (for a folder) the subfolders that are not read.
struct Listing {
    files: Vec<PathBuf>,
    subfolders: Vec<PathBuf>,
}

fn list(path: &Path) -> Result<Listing, Failure> {
    if path == Path::new("-") {
        return Ok(Listing { files: vec![path.to_path_buf()], subfolders: Vec::new() });
    }
    let meta = std::fs::metadata(path).map_err(|e| Failure::io(path, &e))?;
    if !meta.is_dir() {
        return Ok(Listing { files: vec![path.to_path_buf()], subfolders: Vec::new() });
    }
    let mut listing = Listing { files: Vec::new(), subfolders: Vec::new() };
    for entry in std::fs::read_dir(path).map_err(|e| Failure::io(path, &e))? {
        let entry = entry.map_err(|e| Failure::io(path, &e))?;
        let item = entry.path();
        if item.is_dir() {
            listing.subfolders.push(item);
        } else if item.extension().is_some_and(|x| x == "json") && item.is_file() {
            listing.files.push(item);
        }
    }
    let by_name = |a: &PathBuf, b: &PathBuf| {
        a.file_name().map(|n| n.as_encoded_bytes()).cmp(&b.file_name().map(|n| n.as_encoded_bytes()))
    };
    listing.files.sort_by(by_name);
    listing.subfolders.sort_by(by_name);
    Ok(listing)
}

/// Names at most this many subfolders in a note; the rest are counted.
const NAMED_SUBFOLDERS: usize = 5;

/// What a folder without bundle files is told.
const NO_BUNDLES: &str = "no bundle files (*.json) directly in this folder";

/// The line naming a folder's subfolders that were not read, and how to read them.
fn unread_note(folder: &Path, listing: &Listing) -> Option<String> {
    let first = listing.subfolders.first()?;
    let names: Vec<String> = listing
        .subfolders
        .iter()
        .take(NAMED_SUBFOLDERS)
        .map(|s| s.file_name().map_or_else(|| display(s), |n| n.to_string_lossy().into_owned()))
        .collect();
    let more = match listing.subfolders.len().saturating_sub(NAMED_SUBFOLDERS) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    let count = match listing.subfolders.len() {
        1 => "1 subfolder".to_string(),
        n => format!("{n} subfolders"),
    };
    let empty = if listing.files.is_empty() { format!("{NO_BUNDLES}; ") } else { String::new() };
    Some(format!(
        "{}: {empty}{count} not read: {}{more} (only the *.json files directly in a folder are read; \
         give a subfolder as a PATH to read it, e.g. {})",
        display(folder),
        names.join(", "),
        display(first)
    ))
}

/// Reads `reader` to its end, or until it has given one byte past `max`, whichever comes
/// first. The buffer is reserved once, for the whole limit when the size is not known (a pipe,
/// a device): untouched, the reservation costs no memory, and the buffer never grows, so an
/// endless input holds one byte past `max` at most, never the twice as many that doubling a
/// full buffer would reserve.
fn read_at_most(reader: impl std::io::Read, max: usize, size_hint: usize) -> std::io::Result<Vec<u8>> {
    let cap = max.saturating_add(1);
    let reserve = if size_hint > 0 { size_hint.saturating_add(1) } else { cap };
    let mut bytes: Vec<u8> = Vec::with_capacity(reserve.min(cap));
    std::io::Read::read_to_end(&mut reader.take(cap as u64), &mut bytes)?;
    Ok(bytes)
}

/// The UTF-8 encoding of U+FEFF, the byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// [`read_text_at_most`] of a document given to `resolve`: at most [`MaxBytes::DEFAULT_BUNDLE`]
/// bytes, as a bundle holding it would be.
pub fn read_text(path: &Path) -> Result<String, Failure> {
    read_text_at_most(
        path,
        MaxBytes { bytes: MaxBytes::DEFAULT_BUNDLE, flag: "the default --max-bundle-bytes" },
    )
}

/// Reads a file (or standard input for `-`) that must be UTF-8 and at most `max` bytes long.
/// A longer one stops the command as soon as the byte past the limit is read (a regular
/// file's size is checked before reading at all), so an endless input costs at most the
/// limit. A UTF-8 byte order mark at its start is dropped: Windows editors (Notepad,
/// PowerShell's `Out-File`) write one, and JSON forbids it (RFC 8259 lets a parser ignore
/// it), so the core's strict parser never sees it. Every bundle and document the binary reads
/// comes through here, files and stdin alike.
pub fn read_text_at_most(path: &Path, max: MaxBytes) -> Result<String, Failure> {
    let over = || {
        Failure::input(format!(
            "{}: larger than {} bytes, the most a bundle may hold (raise it with {})",
            display(path),
            max.bytes,
            max.flag
        ))
    };
    let io = |e: std::io::Error| Failure::io(path, &e);
    let mut bytes = if path == Path::new("-") {
        read_at_most(std::io::stdin().lock(), max.bytes, 0).map_err(io)?
    } else {
        let file = std::fs::File::open(path).map_err(io)?;
        let size = file.metadata().ok().filter(std::fs::Metadata::is_file).map(|m| m.len());
        if size.is_some_and(|size| size > max.bytes as u64) {
            return Err(over());
        }
        read_at_most(file, max.bytes, size.map_or(0, |s| s as usize)).map_err(io)?
    };
    if bytes.len() > max.bytes {
        return Err(over());
    }
    let skipped = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
    bytes.drain(..skipped);
    String::from_utf8(bytes).map_err(|e| {
        let at = skipped + e.utf8_error().valid_up_to(); // counted in the file as it is
        Failure::input(format!("{}: byte {at}: not valid UTF-8", display(path)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_stops_one_byte_past_the_limit() {
        let endless = std::io::repeat(b'x');
        assert_eq!(read_at_most(endless, 100_000, 0).unwrap().len(), 100_001);
        assert_eq!(read_at_most(&b"abc"[..], 3, 0).unwrap(), b"abc");
        assert_eq!(read_at_most(&b"abcd"[..], 3, 0).unwrap(), b"abcd");
        assert_eq!(read_at_most(&b""[..], 3, 0).unwrap(), b"");
        let big = vec![7u8; 70_000];
        assert_eq!(read_at_most(&big[..], 70_000, 70_000).unwrap(), big);
    }

    #[test]
    fn the_default_bundle_limit_is_four_default_raw_outputs() {
        let max_output = groundcheck_core::Limits::default().get(groundcheck_core::Limit::OutputSize);
        assert_eq!(MaxBytes::DEFAULT_BUNDLE, 4 * max_output);
        assert_eq!(MaxBytes::bundle(None, max_output).bytes, MaxBytes::DEFAULT_BUNDLE);
        assert_eq!(MaxBytes::bundle(None, 1024).bytes, MaxBytes::DEFAULT_BUNDLE, "never below the default");
        assert_eq!(MaxBytes::bundle(None, 100 << 20).bytes, 400 << 20);
        assert_eq!(MaxBytes::bundle(Some(10), max_output).bytes, 10);
    }
}
