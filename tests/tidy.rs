//! House rules checked on the sources themselves (rust-analyzer's `tidy` idea): a rule
//! nothing checks is a rule that drifts. Each test reads the workspace's `.rs` files, or its
//! Markdown files.
//!
//! - **Modules import each other without loops**, in every crate and at every level: inside
//!   each folder (the crate's `src/`, or a module's folder), the arrows between its children
//!   (`crate::`, `super::` and `self::` paths in the code, tests aside) form no cycle — which
//!   also rules out an arrow that runs back up from a submodule to a module that imports its
//!   parent (`json/walk.rs` → `path` while `path` → `json`).
//! - **Every source file opens with a `//!`** paragraph saying what it is for.
//! - **No bare `§<digit>`**: the rules live in `docs/verification.md`, whose sections have
//!   anchors; a `§` only follows an RFC number (`RFC 9535 §2.7`).
//! - **No measured figures in comments**: timings, throughputs (`rows/s`), ratios and
//!   percentages change with the machine and the code; they live in `benches/README.md`,
//!   beside the command that made them.
//! - **Comments fit the width** `rustfmt.toml` sets, which rustfmt does not wrap for them.
//! - **No `issue #` numbers in code**: an issue is history, kept in commit messages; a comment
//!   says the reason itself.
//! - **Markdown stays narrow**: in every git-tracked `.md` file, no prose line over 120
//!   characters outside fenced code blocks, and no table cell over 200 (such a table becomes a
//!   list).
//! - **The command line is an adapter**: the binary's `src/` builds no core `Verifier` and looks
//!   up no raw-output file itself; it verifies through the host layer's `Engine`, as every door.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::harness::repo;

/// Every `.rs` file of the workspace that is ours (no build output, no vendored data).
fn sources() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = ["src", "crates", "tests", "benches", "examples", "fuzz"].map(repo).to_vec();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy();
            if path.is_dir() {
                if !matches!(&*name, "target" | "data" | "corpus" | "artifacts" | "snapshots") {
                    stack.push(path);
                }
            } else if name.ends_with(".rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The source roots of the workspace's crates: the binary's `src/` and each `crates/*/src/`.
fn crate_roots() -> Vec<PathBuf> {
    let mut roots = vec![repo("src")];
    for entry in std::fs::read_dir(repo("crates")).unwrap() {
        let src = entry.unwrap().path().join("src");
        if src.is_dir() {
            roots.push(src);
        }
    }
    roots
}

/// The module path of `file` under its crate's `root`: `json/walk.rs` → `[json, walk]`,
/// `document/mod.rs` → `[document]`, `lib.rs` → `[]`.
fn module_of(root: &Path, file: &Path) -> Vec<String> {
    let mut parts: Vec<String> =
        file.strip_prefix(root).unwrap().iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if !(parts.is_empty() && matches!(stem, "lib" | "main")) && stem != "mod" {
        parts.push(stem.to_string());
    }
    parts
}

/// The module paths `code` (a file of module `module`) names through `crate::`, `super::`
/// and `self::`, comments and code under `#[cfg(test)]` at the end of the file aside.
fn imports(module: &[String], code: &str) -> Vec<Vec<String>> {
    let code = code.find("#[cfg(test)]\nmod tests").map_or(code, |at| &code[..at]);
    // Comments name modules without depending on them (a doc link is not an import).
    let code: String =
        code.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    let code = code.as_str();
    let mut found = Vec::new();
    for (prefix, base) in [
        ("crate::", Vec::new()),
        ("super::", module[..module.len().saturating_sub(1)].to_vec()),
        ("self::", module.to_vec()),
    ] {
        for (at, _) in code.match_indices(prefix) {
            // `pub(crate)`, `pub(super)`: not paths.
            if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let rest = &code[at + prefix.len()..];
            let mut names = Vec::new();
            collect(rest, &mut Vec::new(), &mut names);
            found.extend(names.into_iter().map(|tail| base.iter().cloned().chain(tail).collect()));
        }
    }
    found
}

/// The paths a `use` tree starting at `rest` names, each as its segments (at most the
/// first three are needed: modules nest no deeper).
fn collect(rest: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let word: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    if let Some(list) = rest.strip_prefix('{') {
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in list.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    collect(list[start..i].trim(), prefix, out);
                    return;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    collect(list[start..i].trim(), prefix, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        return;
    }
    if word.is_empty() || word == "self" {
        if !prefix.is_empty() {
            out.push(prefix.clone());
        }
        return;
    }
    prefix.push(word.clone());
    match rest[word.len()..].strip_prefix("::") {
        Some(more) if prefix.len() < 3 => collect(more, prefix, out),
        _ => out.push(prefix.clone()),
    }
    prefix.pop();
}

/// Whether `module` is a module of the crate at `root` (a file or a folder).
fn is_module(root: &Path, module: &[String]) -> bool {
    let dir: PathBuf = module.iter().collect();
    root.join(&dir).with_extension("rs").is_file() || root.join(&dir).join("mod.rs").is_file()
}

/// The arrows between sibling modules of every folder of the crate at `root`: for each
/// folder (as its module path), each child's set of siblings it names.
fn arrows(root: &Path) -> BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> {
    let mut folders: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let file = entry.unwrap().path();
            if file.is_dir() {
                stack.push(file);
                continue;
            }
            let from = module_of(root, &file);
            let code = std::fs::read_to_string(&file).unwrap();
            for to in imports(&from, &code) {
                // The longest prefix of `to` that is a module.
                let to: Vec<String> = (1..=to.len())
                    .rev()
                    .map(|n| to[..n].to_vec())
                    .find(|m| is_module(root, m))
                    .unwrap_or_default();
                let shared = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
                if shared < from.len() && shared < to.len() {
                    let folder = folders.entry(from[..shared].to_vec()).or_default();
                    folder.entry(from[shared].clone()).or_default().insert(to[shared].clone());
                }
            }
        }
    }
    folders
}

/// The first cycle in `edges`, as the way round, if there is one.
fn cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    for start in edges.keys() {
        let mut todo: Vec<Vec<&str>> = vec![vec![start.as_str()]];
        let mut seen = BTreeSet::new();
        while let Some(way) = todo.pop() {
            for next in edges.get(*way.last().unwrap()).into_iter().flatten() {
                if next == start {
                    return Some(way.iter().map(|s| s.to_string()).chain([next.clone()]).collect());
                }
                if seen.insert(next.as_str()) {
                    todo.push(way.iter().copied().chain([next.as_str()]).collect());
                }
            }
        }
    }
    None
}

/// The loops among the sibling modules of every folder of the crate at `root`.
fn loops(root: &Path) -> Vec<String> {
    arrows(root)
        .into_iter()
        .filter_map(|(folder, edges)| {
            cycle(&edges).map(|way| format!("{}: {}/ {}", root.display(), folder.join("/"), way.join(" → ")))
        })
        .collect()
}

#[test]
fn no_crate_has_an_import_loop_or_an_arrow_back_up() {
    let found: Vec<String> = crate_roots().iter().flat_map(|root| loops(root)).collect();
    assert!(found.is_empty(), "import loops:\n{}", found.join("\n"));
    // The check sees arrows at every level, or it would pass on anything.
    let binary = arrows(&repo("src"));
    assert!(binary[&Vec::new()]["cmd"].contains("load"), "{binary:?}");
    let core = arrows(&repo("crates/groundcheck-core/src"));
    assert!(core[&Vec::new()]["ladder"].contains("nearest"), "{core:?}");
    assert!(core[&vec!["document".to_string()]]["routes"].contains("views"), "{core:?}");
}

/// A planted loop is found: the check would fail on the shape it exists to refuse.
#[test]
fn a_planted_loop_is_found() {
    let dir = crate::harness::temp_dir();
    let root = dir.path();
    std::fs::create_dir(root.join("json")).unwrap();
    let files = [
        ("lib.rs", "//! A crate.\nmod json;\nmod path;\n"),
        ("path.rs", "//! Paths.\nuse crate::json::Node;\n"),
        ("json/mod.rs", "//! JSON.\nmod walk;\npub(crate) struct Node;\n"),
        ("json/walk.rs", "//! A walk.\nuse crate::{path::push_name, json::Node};\nuse super::Node as N;\n"),
    ];
    for (name, code) in files {
        std::fs::write(root.join(name), code).unwrap();
    }
    assert_eq!(loops(root).len(), 1, "{:?}", arrows(root));
    std::fs::write(root.join("json/walk.rs"), "//! A walk.\nuse super::Node;\n").unwrap();
    assert_eq!(loops(root), Vec::<String>::new());
}

#[test]
fn every_source_file_opens_with_a_module_comment() {
    let missing: Vec<String> = sources()
        .into_iter()
        .filter(|file| !std::fs::read_to_string(file).unwrap().trim_start().starts_with("//!"))
        .map(|file| file.display().to_string())
        .collect();
    assert!(missing.is_empty(), "no `//!` paragraph:\n{}", missing.join("\n"));
}

/// Whether `file` is one of the files that spell out what the rules refuse: this file, and
/// the Markdown rule's own test.
fn spells_out_the_rules(file: &Path) -> bool {
    file.ends_with("tidy.rs") || file.ends_with("readme/links.rs")
}

/// Each line of `code` that breaks `rule`, as `file:line: text`.
fn offending(rule: impl Fn(&str) -> bool) -> Vec<String> {
    let mut found = Vec::new();
    for file in sources().into_iter().filter(|file| !spells_out_the_rules(file)) {
        for (n, line) in std::fs::read_to_string(&file).unwrap().lines().enumerate() {
            if rule(line) {
                found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    found
}

/// Where each `//` comment of the Rust `code` starts, as (line index, byte offset in the
/// line): a small lexer that steps over string, raw string and character literals (a `//` in
/// `"https://…"` is not a comment), across lines, and over `/* … */` blocks.
fn comment_starts(code: &str) -> Vec<(usize, usize)> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    let (mut line, mut line_start, mut i) = (0, 0, 0);
    let ident = |at: usize| at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
    while i < bytes.len() {
        let rest = &code[i..];
        let skip = if rest.starts_with("//") {
            found.push((line, i - line_start));
            rest.find('\n').unwrap_or(rest.len())
        } else if rest.starts_with("/*") {
            block_comment_len(rest.as_bytes())
        } else if !ident(i) && raw_string_hashes(rest).is_some() {
            let (prefix, hashes) = raw_string_hashes(rest).unwrap();
            let close = format!("\"{}", "#".repeat(hashes));
            let body = prefix + hashes + 1;
            rest[body..].find(&close).map_or(rest.len(), |at| body + at + close.len())
        } else if let Some(body) = rest.strip_prefix('"') {
            let mut escaped = false;
            let end = body.char_indices().find(|&(_, c)| {
                let close = c == '"' && !escaped;
                escaped = c == '\\' && !escaped;
                close
            });
            end.map_or(rest.len(), |(at, _)| 1 + at + 1)
        } else if let Some(body) = rest.strip_prefix('\'') {
            // A character literal (`'"'`, `'\''`, `'\u{1F600}'`), else a lifetime or a label.
            let mut chars = body.char_indices();
            match (chars.next(), chars.next()) {
                (Some((_, '\\')), Some((at, c))) => {
                    let after = 1 + at + c.len_utf8();
                    rest[after..].find('\'').map_or(rest.len(), |end| after + end + 1)
                }
                (Some(_), Some((at, '\''))) => 1 + at + 1,
                _ => 1,
            }
        } else {
            rest.chars().next().map_or(1, char::len_utf8)
        };
        let end = (i + skip.max(1)).min(bytes.len());
        for (at, &b) in bytes[i..end].iter().enumerate() {
            if b == b'\n' {
                line += 1;
                line_start = i + at + 1;
            }
        }
        i = end;
    }
    found
}

/// The length of the (nested) `/* … */` block comment `rest` starts with.
fn block_comment_len(rest: &[u8]) -> usize {
    let (mut depth, mut at) = (0, 0);
    while at < rest.len() {
        if rest[at..].starts_with(b"/*") {
            depth += 1;
            at += 2;
        } else if rest[at..].starts_with(b"*/") {
            depth -= 1;
            at += 2;
            if depth == 0 {
                return at;
            }
        } else {
            at += 1;
        }
    }
    at
}

/// When `rest` starts with a raw string literal (`r"`, `r#"`, `br##"`, …): the length of its
/// prefix (`r` or `br`) and its number of `#`.
fn raw_string_hashes(rest: &str) -> Option<(usize, usize)> {
    let prefix = if rest.starts_with("br") { 2 } else { usize::from(rest.starts_with('r')) };
    let after = &rest[prefix..];
    let hashes = after.len() - after.trim_start_matches('#').len();
    (prefix > 0 && after[hashes..].starts_with('"')).then_some((prefix, hashes))
}

/// Each `//` comment of the workspace's sources whose line breaks `rule` (given the whole
/// line and the byte offset its comment starts at), as `file:line: text`.
fn offending_comments(rule: impl Fn(&str, usize) -> bool) -> Vec<String> {
    let mut found = Vec::new();
    for file in sources().into_iter().filter(|file| !spells_out_the_rules(file)) {
        let code = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = code.lines().collect();
        for (n, at) in comment_starts(&code) {
            if rule(lines[n], at) {
                found.push(format!("{}:{}: {}", file.display(), n + 1, lines[n].trim()));
            }
        }
    }
    found
}

/// The lexer finds comments where they are, and only there.
#[test]
fn comments_are_found_outside_literals() {
    let code = "let url = \"https://h/x\"; // one\nlet q = '\"'; let r = r#\"a // \"b\"#;\n\
                /* a // b */ let c = '\\''; fn f<'a>(x: &'a str) {} // two\n\"multi\n// line\" // three\n";
    let starts = comment_starts(code);
    assert_eq!(starts.len(), 3, "{starts:?}");
    let lines: Vec<&str> = code.lines().collect();
    let texts: Vec<&str> = starts.iter().map(|&(n, at)| &lines[n][at..]).collect();
    assert_eq!(texts, ["// one", "// two", "// three"]);
}

/// Whether `line` has a `§` followed by a digit that does not follow "RFC NNNN ".
fn bare_section(line: &str) -> bool {
    line.match_indices('§').any(|(at, _)| {
        let after = line[at + '§'.len_utf8()..].trim_start();
        let before = line[..at].trim_end();
        let rfc = before.len() >= 8
            && before.is_char_boundary(before.len() - 8)
            && before[before.len() - 8..].starts_with("RFC ")
            && before[before.len() - 4..].bytes().all(|b| b.is_ascii_digit());
        after.starts_with(|c: char| c.is_ascii_digit()) && !rfc
    })
}

#[test]
fn sections_are_named_by_their_anchor_not_a_bare_number() {
    assert!(bare_section("see §3.3") && !bare_section("RFC 9535 §2.7") && !bare_section("RFC 9535 § 2"));
    let found = offending(bare_section);
    assert!(
        found.is_empty(),
        "a bare §: point at the docs/verification.md anchor instead:\n{}",
        found.join("\n")
    );
}

/// The comment of `line` (from its first `//` outside a literal), with `code spans` and
/// "quoted" text taken out: a number there is data, not a measurement.
fn comment(line: &str) -> Option<String> {
    let &(_, at) = comment_starts(line).first()?;
    let mut text = String::new();
    let mut inside = None;
    for c in line[at..].chars() {
        match (inside, c) {
            (None, '`' | '"') => inside = Some(c),
            (Some(open), c) if c == open => inside = None,
            (None, c) => text.push(c),
            _ => {}
        }
    }
    Some(text)
}

/// The words of a comment's `text`, split where a figure ends: at spaces, `(`, `,` and `;`.
fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| c.is_whitespace() || c == '(' || c == ',' || c == ';').collect()
}

/// Whether `word` is a figure: `16`, `1.2`, `~16`, `≈3`, or a range `2–7`.
fn figure(word: &str) -> bool {
    let word = word.trim_start_matches(['~', '≈', '+', '-', '−']);
    !word.is_empty() && word.split('–').all(|n| n.parse::<f64>().is_ok())
}

/// Whether a comment states a timing: a figure in ns, µs or ms, a throughput (`MB/s`,
/// `rows/s`: any count per second), a measured ratio, or an instruction count.
fn timing(line: &str) -> bool {
    let Some(text) = comment(line) else { return false };
    let words = words(&text);
    words.windows(2).any(|w| {
        let unit = w[1].trim_end_matches(['.', ')', ':']);
        let per_second = unit
            .strip_suffix("/s")
            .is_some_and(|what| !what.is_empty() && what.chars().all(char::is_alphabetic));
        figure(w[0]) && (matches!(unit, "ns" | "µs" | "us" | "ms") || per_second)
    }) || words.iter().any(|w| {
        let w = w.trim_end_matches(['.', ')', ':']);
        ["ms", "µs", "ns"].iter().any(|u| w.strip_suffix(u).is_some_and(figure))
    }) || words.windows(2).any(|w| {
        // `1.67× less`, `2–7× slower`, `3.4× as fast`, `23x the largest file`: a measured ratio.
        let ratio = w[0].strip_suffix('×').or_else(|| w[0].strip_suffix('x'));
        ratio.is_some_and(figure) && matches!(w[1], "less" | "more" | "faster" | "slower" | "the" | "as")
    }) || (text.contains(" instructions") && text.contains(" M "))
}

#[test]
fn comments_hold_no_timing_figures() {
    assert!(timing("// 16 ms each") && timing("/// about 1.2 GB/s here") && timing("// took 300ms"));
    assert!(
        timing("/// 1.67× less CPU time") && timing("// made it 2–7× slower") && timing("// 3.4× as fast")
    );
    assert!(timing("//! slowed from 8,800 to 500 rows/s.") && timing("// ~2000 invocations/s"));
    assert!(!timing("// `1500 ms` is data") && !timing("let x = 5; // five") && !timing("// at most 5 s"));
    assert!(!timing("/// Prints `rows bytes seconds rows/s`") && !timing("// the human `N rows/s`"));
    assert!(!timing("let u = \"http://h/12 ms\";") && !timing("// 0x10 bytes"));
    let found = offending_comments(|line, at| timing(&line[at..]));
    assert!(found.is_empty(), "timings belong in benches/README.md:\n{}", found.join("\n"));
}

/// Whether a comment states a percentage: `16 %`, `16%`, `~16%`, `16–20 %`, `16 percent`.
fn percentage(line: &str) -> bool {
    let Some(text) = comment(line) else { return false };
    let text = text.replace("per cent", "percent");
    let words = words(&text);
    words.windows(2).any(|w| {
        figure(w[0]) && (w[1].starts_with('%') || w[1].trim_end_matches(['.', ')', ':']) == "percent")
    }) || words.iter().any(|w| w.trim_end_matches(['.', ')', ':']).strip_suffix('%').is_some_and(figure))
}

/// A share measured on a corpus changes with the corpus and the code, as a timing does.
#[test]
fn comments_hold_no_percentages() {
    assert!(
        percentage("/// was 11 % shorter") && percentage("// at 8% of the table") && percentage("//! (35%)")
    );
    assert!(
        percentage("// ~16–20 % of the time.") && percentage("// 12 percent") && percentage("// 3 per cent")
    );
    assert!(!percentage("let r = a % 7; // the remainder") && !percentage("// \"12.4%\" from its alert"));
    assert!(!percentage("/// `%2F` for `/`") && !percentage("// percent-decoded") && !percentage("// 100"));
    assert!(!percentage("let f = \"50%\"; // a format"));
    let found = offending_comments(|line, at| percentage(&line[at..]));
    assert!(found.is_empty(), "percentages belong in benches/README.md:\n{}", found.join("\n"));
}

/// The widest a line holding a comment may be, in characters: `max_width` of `rustfmt.toml`,
/// which rustfmt keeps for code but does not wrap comments to.
fn max_width() -> usize {
    let config = std::fs::read_to_string(repo("rustfmt.toml")).unwrap();
    let line = config.lines().find_map(|l| l.strip_prefix("max_width")).expect("rustfmt.toml sets max_width");
    line.trim_start_matches([' ', '=']).trim().parse().expect("max_width is a number")
}

/// Whether `line`, holding a comment from byte `at`, is wider than `width` characters. A
/// comment that is one unbreakable token (a long URL) may be wider, as it cannot wrap.
fn too_wide_comment(line: &str, at: usize, width: usize) -> bool {
    let body = line[at..].trim_start_matches(['/', '!']).trim();
    line.chars().count() > width
        && (body.contains(char::is_whitespace) || at > line.len() - line.trim_start().len())
}

/// Code is wrapped by rustfmt at `max_width`; comments are not, so they are held to it here.
#[test]
fn comment_lines_fit_the_width() {
    let width = max_width();
    assert_eq!(width, 110, "rustfmt.toml's max_width, which these docs call the width");
    let long = format!("//! {}", "word ".repeat(22));
    assert!(too_wide_comment(&long, 0, width) && too_wide_comment(&format!("  {long}"), 2, width));
    let code = format!("{} // a note", "x".repeat(101));
    assert!(too_wide_comment(&code, 102, width) && !too_wide_comment("/// short", 0, width));
    assert!(!too_wide_comment(&format!("/// <https://h/{}>", "x".repeat(120)), 0, width));
    let found = offending_comments(|line, at| too_wide_comment(line, at, width));
    assert!(found.is_empty(), "comment lines over {width} characters; rewrap:\n{}", found.join("\n"));
}

/// The folders whose files are code (and scripts, and their data): no issue number there.
const CODE_FOLDERS: [&str; 8] =
    ["crates", "src", "tests", "examples", "benches", "bindings", "scripts", "fuzz"];

/// Whether `line` names an issue by its number (`issue #31`, `Issue #16's`, `issues #5`), or
/// starts with `#31` after a `previous` line that ends in "issue".
fn issue_number(previous: &str, line: &str) -> bool {
    let lower = line.to_lowercase();
    let numbered =
        |rest: &str| rest.strip_prefix('#').is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit()));
    let text = |l: &str| l.trim().trim_start_matches(['/', '!', '#', '*']).trim().to_lowercase();
    lower.match_indices("issue").any(|(at, _)| numbered(lower[at + 5..].trim_start_matches('s').trim_start()))
        || (text(previous).ends_with("issue") && numbered(&text(line)))
}

/// An issue is history: what a line of code does and why is said in the code, not behind a
/// number only the tracker can resolve.
#[test]
fn code_names_no_issue_numbers() {
    assert!(issue_number("", "/// as before (issue #31).") && issue_number("", "# Issue #16's targets"));
    assert!(
        issue_number("//! the cost of a miss (see issue", "//! #31: normalising")
            && issue_number("", "issues #5")
    );
    assert!(!issue_number("", "/// PKCS #8 keys") && !issue_number("", "// openobserve/openobserve#14408"));
    assert!(!issue_number("", "// a known issue: #[cfg] is required"));
    let out = std::process::Command::new("git")
        .args(["ls-files", "-z", "--"])
        .args(CODE_FOLDERS)
        .current_dir(repo("."))
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git ls-files: {}", String::from_utf8_lossy(&out.stderr));
    let names = String::from_utf8(out.stdout).unwrap();
    let names: Vec<&str> = names
        .split('\0')
        .filter(|n| !n.is_empty() && !n.ends_with(".md") && !n.ends_with("tests/tidy.rs"))
        .filter(|n| !n.split('/').any(|part| matches!(part, "data" | "snapshots")))
        .collect();
    assert!(names.contains(&"src/main.rs") && names.contains(&"scripts/test.sh"), "{names:?}");
    let mut found = Vec::new();
    for name in names {
        // Binary files (images, archives) hold no prose.
        let Ok(text) = std::fs::read_to_string(repo(name)) else { continue };
        let mut previous = "";
        for (n, line) in text.lines().enumerate() {
            if issue_number(previous, line) {
                found.push(format!("{name}:{}: {}", n + 1, line.trim()));
            }
            previous = line;
        }
    }
    assert!(found.is_empty(), "say the reason, not the issue number:\n{}", found.join("\n"));
}

/// The longest prose line and the widest table cell a Markdown file may have, in characters.
const PROSE_LINE_MAX: usize = 120;
const TABLE_CELL_MAX: usize = 200;

/// Every Markdown file git tracks, as paths from the repository root.
fn markdown_files() -> Vec<String> {
    let out = std::process::Command::new("git")
        .args(["ls-files", "-z", "--", "*.md"])
        .current_dir(repo("."))
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git ls-files: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .split('\0')
        .filter(|name| !name.is_empty())
        .map(str::to_string)
        .collect()
}

/// The parts of `text` outside `code spans`, so that a `|` or a space inside one is not seen.
fn outside_code(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        parts.push(&rest[..open]);
        let ticks = rest[open..].len() - rest[open..].trim_start_matches('`').len();
        let after = &rest[open + ticks..];
        let fence = &rest[open..open + ticks];
        // The closing run has exactly as many backticks; an unclosed run is literal text.
        let close = after
            .match_indices(fence)
            .find(|(at, _)| !after[at + ticks..].starts_with('`') && !after[..*at].ends_with('`'));
        match close {
            Some((at, _)) => rest = &after[at + ticks..],
            None => {
                parts.push(after);
                return parts;
            }
        }
    }
    parts.push(rest);
    parts
}

/// The cells of a table row, split at each `|` that is neither escaped nor in a code span.
fn cells(row: &str) -> Vec<String> {
    let mut cells = vec![String::new()];
    let mut inside: Option<usize> = None;
    let mut chars = row.trim().trim_start_matches('|').chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => cells.last_mut().unwrap().push(chars.next().unwrap()),
            '`' => {
                let mut ticks = 1;
                while chars.next_if_eq(&'`').is_some() {
                    ticks += 1;
                }
                inside = match inside {
                    None => Some(ticks),
                    Some(open) if open == ticks => None,
                    open => open,
                };
                cells.last_mut().unwrap().push_str(&"`".repeat(ticks));
            }
            '|' if inside.is_none() => cells.push(String::new()),
            c => cells.last_mut().unwrap().push(c),
        }
    }
    cells.into_iter().map(|c| c.trim().to_string()).filter(|c| !c.is_empty()).collect()
}

/// The lines of `markdown` that break the width rules, as `line: why`. Fenced code blocks are
/// examples the tests run, and keep their width; a line that is one unbreakable token (a URL,
/// a long path or `code span`, maybe after a list marker) may be long, as it cannot wrap.
fn too_wide(markdown: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut fence: Option<usize> = None;
    for (n, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        let ticks = trimmed.len() - trimmed.trim_start_matches('`').len();
        match fence {
            Some(open) if ticks >= open && trimmed.trim_end().len() == ticks => fence = None,
            Some(_) => {}
            None if ticks >= 3 => fence = Some(ticks),
            None if trimmed.starts_with('|') => {
                let widest = cells(trimmed).iter().map(|c| c.chars().count()).max().unwrap_or(0);
                if widest > TABLE_CELL_MAX {
                    found.push(format!(
                        "{}: a table cell of {widest} characters; make the table a list",
                        n + 1
                    ));
                }
            }
            None => {
                let width = line.chars().count();
                let body = trimmed
                    .trim_start_matches(|c: char| c.is_ascii_digit() || "-*+>.)".contains(c))
                    .trim_start();
                let one_token = !outside_code(body).iter().any(|part| part.contains(char::is_whitespace));
                if width > PROSE_LINE_MAX && !one_token {
                    found.push(format!("{}: {width} characters; wrap at 100", n + 1));
                }
            }
        }
    }
    found
}

/// Long lines and wide tables cannot be read in a terminal or reviewed in a diff, so the docs
/// wrap prose by 120 characters and turn a table with cells over 200 into a list.
#[test]
fn markdown_prose_and_table_cells_stay_narrow() {
    let long = "word ".repeat(25);
    assert_eq!(too_wide(&format!("{long}\n")).len(), 1);
    assert_eq!(too_wide(&format!("```sh\n{long}\n```\n- `{}`\n", "x y ".repeat(40))), Vec::<String>::new());
    assert_eq!(too_wide(&format!("| a | `{}\\|` |\n", "|".repeat(150))), Vec::<String>::new());
    assert_eq!(too_wide(&format!("| a | {} |\n", long.repeat(2))).len(), 1);
    let files = markdown_files();
    assert!(files.iter().any(|f| f == "docs/rules.md"), "git lists the Markdown files: {files:?}");
    let found: Vec<String> = files
        .iter()
        .flat_map(|name| {
            let text = std::fs::read_to_string(repo(name)).unwrap();
            too_wide(&text).into_iter().map(move |why| format!("{name}:{why}"))
        })
        .collect();
    assert!(found.is_empty(), "Markdown too wide:\n{}", found.join("\n"));
}

/// The binary verifies through `groundcheck_host::Engine` (the verifier, the template and
/// the threads together), so a rule about rows, files or threads reaches it as it reaches
/// every other door: none of its files makes a `Verifier` or calls the files crate's lookup.
#[test]
fn the_command_line_verifies_through_the_host_layer() {
    let driven = ["Verifier::new(", "groundcheck_files::attach"];
    let found: Vec<String> = sources()
        .into_iter()
        .filter(|file| file.starts_with(repo("src")))
        .flat_map(|file| {
            let text = std::fs::read_to_string(&file).unwrap();
            let hits: Vec<String> = text
                .lines()
                .enumerate()
                .filter(|(_, line)| driven.iter().any(|d| line.contains(d)))
                .map(|(n, line)| format!("{}:{}: {}", file.display(), n + 1, line.trim()))
                .collect();
            hits
        })
        .collect();
    assert!(sources().contains(&repo("src/main.rs")), "the binary's sources are read");
    assert!(found.is_empty(), "verify through groundcheck_host::Engine:\n{}", found.join("\n"));
}
