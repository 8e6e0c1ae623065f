//! The floors `benches/floor.sh` holds `groundcheck verify` against: what merely reading the
//! same bundle files as JSON costs, in one process, as `verify` pays for it.
//!
//! ```sh
//! cargo run --release --example floor -- validate DIR   # serde_json validate-only
//! cargo run --release --example floor -- naive DIR      # Value of each bundle + each inner text validated
//! ```
//! `validate` reads every `*.json` file directly in DIR and checks it with
//! `serde_json::from_slice::<IgnoredAny>` (builds nothing): no verification of those bytes can
//! be faster. `naive` is the two-pass design a first attempt would write: a `serde_json::Value`
//! of each bundle, then every `raw_output_text` validated the same way. Each prints the bytes
//! it read; the script times the process.
use serde::de::IgnoredAny;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(mode), Some(dir)) = (args.next(), args.next()) else {
        eprintln!("usage: floor validate|naive DIR");
        std::process::exit(2);
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("DIR can be listed")
        .map(|e| e.expect("DIR can be listed").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut bytes = 0;
    let mut inner = 0;
    for file in &files {
        let text = std::fs::read(file).expect("the bundle can be read");
        bytes += text.len();
        match mode.as_str() {
            "validate" => {
                serde_json::from_slice::<IgnoredAny>(&text).expect("the bundle is JSON");
            }
            "naive" => {
                let bundle: serde_json::Value = serde_json::from_slice(&text).expect("the bundle is JSON");
                for inv in bundle["invocations"].as_array().into_iter().flatten() {
                    if let Some(raw) = inv["raw_output_text"].as_str() {
                        inner += usize::from(serde_json::from_str::<IgnoredAny>(raw).is_ok());
                    }
                }
            }
            other => panic!("unknown mode {other}: validate or naive"),
        }
    }
    println!("{} files, {bytes} bytes, {inner} inner texts that are JSON", files.len());
}
