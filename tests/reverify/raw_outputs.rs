//! `reverify --raw-outputs`: rows whose outputs live only in files beside their
//! sessions, verified straight from the database on every engine, killed (SIGKILL) mid-job
//! and resumed with nothing lost or duplicated.

use std::io::Write;
use std::path::Path;

use serde_json::Value;

use super::{gc, json, kill_mid_job, stored_count};
use crate::corpus;
use crate::engines;
use crate::harness::{temp_dir, write};

/// Writes the generated corpus as bundles without raw outputs, each output moved to
/// `files/<session_id>/<id>.json` (every third one gzipped as `.json.gz`, found beside the
/// name the template gives); returns the bundles' folder and how many rows there are.
fn corpus_in_files(root: &Path, n: u64) -> (std::path::PathBuf, i64) {
    let bundles = root.join("bundles");
    std::fs::create_dir_all(&bundles).unwrap();
    let mut rows = 0;
    for (i, text) in corpus::bundles(29, n, 1, crate::harness::JOB_CORPUS_SCALE, 500).iter().enumerate() {
        let mut bundle: Value = serde_json::from_str(text).unwrap();
        let default_session = bundle["session_id"].clone();
        for inv in bundle["invocations"].as_array_mut().unwrap() {
            let inv = inv.as_object_mut().unwrap();
            let output = match (inv.remove("raw_output_text"), inv.remove("raw_output")) {
                (Some(Value::String(text)), _) => text,
                (_, Some(value)) if !value.is_null() => value.to_string(),
                _ => continue,
            };
            let session = inv.get("session_id").filter(|s| !s.is_null()).unwrap_or(&default_session);
            let folder = root.join("files").join(session.as_str().unwrap());
            std::fs::create_dir_all(&folder).unwrap();
            let id = inv["id"].as_i64().unwrap();
            if id % 3 == 0 {
                let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                gz.write_all(output.as_bytes()).unwrap();
                std::fs::write(folder.join(format!("{id}.json.gz")), gz.finish().unwrap()).unwrap();
            } else {
                std::fs::write(folder.join(format!("{id}.json")), output).unwrap();
            }
            rows += 1;
        }
        write(&bundles, &format!("c{i:03}.json"), bundle.to_string());
    }
    (bundles, rows)
}

#[test]
fn a_killed_job_reading_raw_output_files_resumes_with_nothing_lost_or_duplicated() {
    let dir = temp_dir();
    let (bundles, with_files) = corpus_in_files(dir.path(), 1_500);
    let template = format!("{}/files/{{session_id}}/{{id}}.json", dir.path().display());
    let raw = ["--raw-outputs", template.as_str()];
    // What the rows say with their files, straight from the bundles: the reference.
    let reference = json(&crate::harness::run(
        [&["verify", "--format", "json"][..], &raw[..], &[bundles.to_str().unwrap()]].concat(),
    ));
    let runs = reference["runs"].as_array().unwrap();
    let count = |field: &str| -> i64 { runs.iter().map(|r| r["summary"][field].as_i64().unwrap()).sum() };
    let (supported, total) = (count("supported"), count("invocations"));
    assert!(with_files > total / 2, "most rows have their output in a file");

    for engine in engines::all() {
        let url = engine.url.as_str();
        assert_eq!(gc(url, &["migrate"]).code, 0);
        let imported = gc(url, &["import", bundles.to_str().unwrap()]);
        assert_eq!(imported.code, 0, "{}: {}", engine.name, imported.stderr);
        for attempt in 0..2 {
            let args = ["reverify", "--database", url, "--write", "--batch-rows", "20", raw[0], raw[1]];
            kill_mid_job(url, &args, attempt, total, engine.name);
        }
        let last = json(&gc(
            url,
            &["reverify", "--write", "--resume", "--batch-rows", "20", "--format", "json", raw[0], raw[1]],
        ));
        assert_eq!(last["summary"]["invocations"].as_i64(), Some(total), "{}: the whole job", engine.name);
        assert_eq!(last["summary"]["supported"].as_i64(), Some(supported), "{}: as verify says", engine.name);
        assert_eq!(stored_count(url), total, "{}: every invocation has exactly one verdict", engine.name);
        // The stored verdicts are the ones the files give, and differ from the ones without.
        let again = json(&gc(url, &["reverify", "--format", "json", raw[0], raw[1]]));
        assert!(again["changes"].as_array().unwrap().is_empty(), "{}: stored = fresh", engine.name);
        let without = json(&gc(url, &["reverify", "--format", "json"]));
        assert!(!without["changes"].as_array().unwrap().is_empty(), "{}: the files mattered", engine.name);
    }
}
