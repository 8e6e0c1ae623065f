//! Documents on which the fast verification routes must give exactly the tree route's
//! verdicts: repeated keys, deep and cut-short nesting, text that is not JSON (a BOM, a lone
//! surrogate, trailing bytes), long strings, numbers beyond f64 and exponents serde_json
//! rewrites, full-width and CJK text, empty keys.
//!
//! One list for `tests/fast_path.rs` (which compares the routes on each) and the fuzz seed
//! writer `fuzz/examples/seeds.rs` (which starts the `verify_invocation` fuzzer from them);
//! both include this file with `#[path]`, as the fuzz package is outside the workspace.

/// The adversarial raw outputs, as text.
pub const DOCUMENTS: [&str; 13] = [
    r#"{"a":{"b":"x"},"a":{"c":"y"}}"#,
    r#"{"a":[1,2,{"b":[true,null,"0.950"]}],"a":[{"b":"late"}]}"#,
    "[[[[\"deep\"]]]]",
    "[[[x",
    "not json at all: connection refused",
    "\u{feff}{\"a\":\"bom\"}",
    r#"{"a":"\ud800"}"#,
    r#"{"a":1} trailing"#,
    r#"{"big":"0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789"}"#,
    r#"{"n":1E+400,"m":-0,"s":"ＣＯＮＮＥＣＴＩＯＮ refused … later","e":3E2}"#,
    r#"{"n":1E+400,"m":-0,"s":"ＣＯＮＮＥＣＴＩＯＮ refused … later"}"#,
    "  \"a bare string\"  ",
    r#"{"k":{"":"empty key"},"日志":["消息"]}"#,
];
