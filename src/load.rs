//! Reading bundle files, folders and standard input into runs.
//!
//! A PATH is a bundle file, `-` (standard input), or a folder, which means the `*.json` files
//! directly in it, in byte order of their names. Folders are not searched recursively, but
//! nothing is skipped silently: a folder's subfolders are named in a note, and a PATH that
//! yields no bundle file at all is an error.

use std::path::{Path, PathBuf};

use groundcheck_core::{Bundle, Policy, Report, Run, RunSet, Verdict, VerdictSet, Verifier};
use rayon::prelude::*;

use crate::failure::{display, Failure};
use groundcheck_files::{Lookup, Lookups, Template};

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
pub fn load_runs(paths: &[PathBuf]) -> Result<Loaded, Failure> {
    let Inputs { files, notes } = inputs(paths)?;
    let bundles: Vec<Result<Bundle, Failure>> = files.par_iter().map(|file| read_bundle(file)).collect();
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
    /// The report: the same as [`Verifier::verify_runs`](groundcheck_core::Verifier::verify_runs) of every
    /// bundle's invocations merged into runs by a [`RunSet`](groundcheck_core::RunSet).
    pub report: Report,
    /// How many bundle files were read.
    pub files: usize,
    /// See [`Inputs::notes`].
    pub notes: Vec<String>,
    /// What the raw-output file lookups found (nothing without a template).
    pub lookups: Lookups,
}

/// Reads every bundle the PATH arguments name (see [`inputs`]) and verifies it, one file at a
/// time: each file is read, parsed and its invocations verified (each one's raw output file
/// looked up with `template` just before) before the thread reads another, and each raw
/// output is dropped once verified. So memory holds one file and its bundle per thread plus the verdicts, never
/// every raw output of the folder (they are most of its bytes; holding them all made peak
/// RSS many times the largest file). Files are merged in order, so the runs, the verdicts and the
/// first problem reported (a bad file, an `id` repeated in a run) are the same with any
/// number of threads.
pub fn verify_files(
    paths: &[PathBuf],
    policy: &Policy,
    template: Option<&Template>,
) -> Result<Verified, Failure> {
    let Inputs { files, notes } = inputs(paths)?;
    let verifier = Verifier::new(*policy);
    let verify_file = |file: &PathBuf| -> Result<Vec<Checked>, Failure> {
        let bundle = read_bundle(file)?;
        Ok(bundle
            .invocations
            .into_par_iter()
            .map(|mut inv| {
                let lookup = template.and_then(|template| {
                    groundcheck_files::attach_one(template, &mut inv, policy.limits.max_output_bytes)
                });
                Checked {
                    verdict: verifier.verify(&inv),
                    run_id: inv.run_id,
                    session_id: inv.session_id,
                    lookup,
                }
            })
            .collect())
    };
    let checked: Vec<Result<Vec<Checked>, Failure>> = files.par_iter().map(verify_file).collect();
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

/// One invocation's verdict and the keys of its run, its raw output already dropped.
struct Checked {
    verdict: Verdict,
    run_id: Option<String>,
    session_id: Option<String>,
    lookup: Option<Lookup>,
}

/// An `id` repeated in a run, said at the place of the second: the same line whether the
/// runs are kept ([`load_runs`]) or only their verdicts ([`verify_files`]).
fn repeated_id(file: &Path, index: usize, e: &groundcheck_core::Error) -> Failure {
    Failure::input(format!("{}: $.invocations[{index}].id: {e}", display(file)))
}

/// Reads and parses one bundle file (or standard input for `-`).
pub fn read_bundle(file: &Path) -> Result<Bundle, Failure> {
    let text = read_text(file)?;
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

/// The UTF-8 encoding of U+FEFF, the byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Reads a file (or standard input for `-`) that must be UTF-8. A UTF-8 byte order mark at
/// its start is dropped: Windows editors (Notepad, PowerShell's `Out-File`) write one, and JSON
/// forbids it (RFC 8259 lets a parser ignore it), so the core's strict parser never sees it.
/// Every bundle and document the binary reads comes through here, files and stdin alike.
pub fn read_text(path: &Path) -> Result<String, Failure> {
    let mut bytes = if path == Path::new("-") {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf).map_err(|e| Failure::io(path, &e))?;
        buf
    } else {
        std::fs::read(path).map_err(|e| Failure::io(path, &e))?
    };
    let skipped = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
    bytes.drain(..skipped);
    String::from_utf8(bytes).map_err(|e| {
        let at = skipped + e.utf8_error().valid_up_to(); // counted in the file as it is
        Failure::input(format!("{}: byte {at}: not valid UTF-8", display(path)))
    })
}
