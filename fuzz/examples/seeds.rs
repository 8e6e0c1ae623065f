//! Writes the seed corpora of the three fuzz targets from the repository's fixtures:
//! `fuzz/corpus/<target>/seed-*` (generated, not committed; see README.md).
//!
//! Run from `fuzz/` on stable or nightly: `cargo run --example seeds`.
//!
//! - `bundle_parse`: every fixture bundle as it is.
//! - `verify_invocation`: every fixture invocation in the target's input layout (raw output as
//!   text, inline JSON outputs once more as a parsed `Json`, and every output as JSON inside
//!   the string of an MCP-style wrapper, once and twice, its refs pointing through it), plus
//!   adversarial documents from `fuzz/adversarial.rs` (shared with `tests/fast_path.rs`) under
//!   general and singular refs.
//! - `resolve`: every ref's `raw_path` with its invocation's raw output.

use std::fs;
use std::path::{Path, PathBuf};

use groundcheck_core::{Bundle, Invocation, Policy, RawOutput, Verifier};

#[path = "../adversarial.rs"]
mod adversarial;

/// Claims tried on every adversarial document: singular, general, pointer and marker refs.
const CLAIMS: [&str; 4] = [
    r#"{"evidence_status":"supported","evidence_refs":[{"raw_path":"$.a","text":"x"},{"raw_path":"$.a[2].b[2]","text":"0.95"}]}"#,
    r#"{"evidence_status":"supported","evidence_refs":[{"raw_path":"$..b","text":"late"},{"raw_path":"$.n","text":"1E+400"},{"raw_path":"$[?@.m==0]","text":"connection refused ... later"}]}"#,
    r#"{"evidence_refs":[{"raw_path":"/a/0","text":"1"},{"raw_path":"$","text":"connection"},{"raw_path":"$[0][0][0][0]","text":"deep"}]}"#,
    r#""{\"evidence_status\":\"no_evidence\",\"evidence_refs\":[{\"raw_path\":\"$.no_evidence\",\"text\":\"\"}]}""#,
];

fn main() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixtures = fuzz.join("../fixtures");
    let mut files: Vec<PathBuf> = [fixtures.clone(), fixtures.join("agent-runs")]
        .iter()
        .flat_map(|dir| fs::read_dir(dir).expect("fixtures folder"))
        .map(|entry| entry.expect("fixture entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();

    let mut out = Seeds::new(fuzz.join("corpus"));
    for file in &files {
        let text = fs::read_to_string(file).expect("fixture text");
        out.write("bundle_parse", text.as_bytes());
        let bundle = Bundle::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for inv in &bundle.invocations {
            let raw = match &inv.raw_output {
                Some(RawOutput::Json(doc)) => Some((doc.to_json_string(), true)),
                Some(raw) => raw.text().map(|text| (text.to_string(), false)),
                None => None,
            };
            let details = inv.retrieval_details.as_ref().map(|d| d.to_json_string()).unwrap_or_default();
            let text_mode = if raw.is_some() { 1 } else { 0 };
            out.write("verify_invocation", &verify_input(inv, text_mode, &details, raw.as_ref()));
            if raw.as_ref().is_some_and(|(_, inline)| *inline) {
                out.write("verify_invocation", &verify_input(inv, 2, &details, raw.as_ref()));
            }
            if let Some((text, inline)) = &raw {
                // The same output as JSON inside a string (raw mode 3), once and encoded
                // twice, with every JSONPath ref pointing through the wrapper.
                let inside = details.replace(r#""raw_path":"$"#, r#""raw_path":"$.content[0].text"#);
                for prefix in ["", "!"] {
                    let wrapped = (format!("{prefix}{text}"), *inline);
                    out.write("verify_invocation", &verify_input(inv, 3, &inside, Some(&wrapped)));
                }
            }
            let doc = raw.map(|(text, _)| text).or_else(|| inv.output_preview.clone()).unwrap_or_default();
            for r in Verifier::new(Policy::default()).verify(inv).refs {
                if let Some(path) = r.raw_path {
                    out.write("resolve", format!("{path}\0{doc}").as_bytes());
                }
            }
        }
    }
    for doc in adversarial::DOCUMENTS {
        for claim in CLAIMS {
            let inv = Invocation { success: Some(true), ..Invocation::default() };
            out.write("verify_invocation", &verify_input(&inv, 1, claim, Some(&(doc.to_string(), false))));
        }
        for path in ["$.a", "$..b", "$['a'][2]", "/a/1", "$[?@.b]"] {
            out.write("resolve", format!("{path}\0{doc}").as_bytes());
        }
    }
    println!("wrote {} seeds under {}", out.count, out.root.display());
}

/// The `verify_invocation` target's input for `inv` (see its module docs): `raw_mode` is the
/// flags' bits 4-5; `output_length` is encoded as the count it equals, if any.
fn verify_input(inv: &Invocation, raw_mode: u8, details: &str, raw: Option<&(String, bool)>) -> Vec<u8> {
    let success = match inv.success {
        None => 0,
        Some(true) => 1,
        Some(false) => 2,
    };
    let truncated = match inv.is_truncated {
        None => 0,
        Some(false) => 1,
        Some(true) => 2,
    };
    let mut length = 0;
    if let (Some(p), Some(n)) = (&inv.output_preview, inv.output_length) {
        if usize::try_from(n) == Ok(p.chars().count()) {
            length = 1;
        } else if usize::try_from(n) == Ok(p.encode_utf16().count()) {
            length = 2;
        }
    }
    // Spread the third policy over every choice: the id varies from seed to seed.
    let policy_bits = (inv.id.rem_euclid(64) as u8) << 2;
    let mut bytes = vec![success | truncated << 2 | raw_mode << 4, length | policy_bits];
    bytes.extend_from_slice(details.as_bytes());
    bytes.push(0);
    if let Some((text, _)) = raw {
        bytes.extend_from_slice(text.as_bytes());
    }
    if let Some(preview) = &inv.output_preview {
        bytes.push(0);
        bytes.extend_from_slice(preview.as_bytes());
    }
    bytes
}

/// Numbered seed files under `corpus/<target>/`.
struct Seeds {
    root: PathBuf,
    count: usize,
}

impl Seeds {
    fn new(root: PathBuf) -> Seeds {
        Seeds { root, count: 0 }
    }

    fn write(&mut self, target: &str, bytes: &[u8]) {
        let dir = self.root.join(target);
        fs::create_dir_all(&dir).expect("corpus folder");
        self.count += 1;
        fs::write(dir.join(format!("seed-{:04}", self.count)), bytes).expect("seed file");
    }
}
