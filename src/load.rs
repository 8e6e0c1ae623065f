//! Reading bundle files and folders into runs (SPEC §2).

use std::path::{Path, PathBuf};

use groundcheck_core::{Bundle, Run, RunSet};
use rayon::prelude::*;

use crate::failure::Failure;

/// Reads every bundle named by `paths` (folders: their `*.json` files in byte order of
/// names) and merges them into runs. The first problem, in that order, stops everything.
///
/// Files are read and parsed in parallel (bundles are mostly raw-output text, and parsing
/// them dominated `verify` on one thread); they are merged in order, so the runs and the
/// error reported are the same with any number of threads.
pub fn load_runs(paths: &[PathBuf]) -> Result<Vec<Run>, Failure> {
    let mut files = Vec::new();
    for path in paths {
        files.extend(bundle_files(path)?);
    }
    let bundles: Vec<Result<Bundle, Failure>> = files
        .par_iter()
        .map(|file| {
            let text = read_text(file)?;
            Bundle::parse(&text).map_err(|e| Failure::input(format!("{}: {e}", file.display())))
        })
        .collect();
    let mut runs = RunSet::default();
    for (file, bundle) in files.iter().zip(bundles) {
        for (i, inv) in bundle?.invocations.into_iter().enumerate() {
            runs.push(inv)
                .map_err(|e| Failure::input(format!("{}: $.invocations[{i}].id: {e}", file.display())))?;
        }
    }
    Ok(runs.into_runs())
}

/// The bundle files a path names: itself, or a folder's `*.json` files in byte order of names.
pub fn bundle_files(path: &Path) -> Result<Vec<PathBuf>, Failure> {
    let meta = std::fs::metadata(path).map_err(|e| Failure::io(path, &e))?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path).map_err(|e| Failure::io(path, &e))? {
        let entry = entry.map_err(|e| Failure::io(path, &e))?;
        let file = entry.path();
        if file.extension().is_some_and(|x| x == "json") && file.is_file() {
            files.push(file);
        }
    }
    files.sort_by(|a, b| {
        a.file_name().map(|n| n.as_encoded_bytes()).cmp(&b.file_name().map(|n| n.as_encoded_bytes()))
    });
    Ok(files)
}

/// Reads a file (or standard input for `-`) that must be UTF-8.
pub fn read_text(path: &Path) -> Result<String, Failure> {
    let bytes = if path == Path::new("-") {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf).map_err(|e| Failure::io(path, &e))?;
        buf
    } else {
        std::fs::read(path).map_err(|e| Failure::io(path, &e))?
    };
    String::from_utf8(bytes).map_err(|e| {
        Failure::input(format!("{}: byte {}: not valid UTF-8", display(path), e.utf8_error().valid_up_to()))
    })
}

/// How a path is named in messages (`-` is standard input).
pub fn display(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}
