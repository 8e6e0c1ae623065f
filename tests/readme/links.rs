//! The docs stand alone: `README.md`, `ARCHITECTURE.md` and `docs/**/*.md` refer to nothing
//! outside the repository, every relative link reaches a file in it, and every `#anchor`
//! names a heading of its target.

use std::path::{Path, PathBuf};

use crate::harness;

/// Anchors of `docs/verification.md` that code comments and other docs link to: renaming one
/// of these headings breaks those links, so it fails here first.
const STABLE_ANCHORS: &[&str] = &[
    "evidence",
    "bundles",
    "the-claim",
    "the-raw-document",
    "raw-outputs-in-files",
    "checking-a-ref",
    "json-inside-strings",
    "the-ladder",
    "classification",
    "warnings",
    "limits",
    "order",
    "the-report",
    "exit-codes",
];

/// Text that points outside the repository, and why it may not appear. (The folder beside
/// the checkout is spelled in two pieces so that searching the repository for it finds only
/// real uses.)
const OUTSIDE: &[(&str, &str)] = &[
    (concat!("..", "/shared"), "a folder beside the checkout, absent from a clone"),
    ("/work/", "a path on one machine"),
    ("SPEC.md", "a contract outside the repository; describe the rule or link to docs/verification.md"),
    ("SPEC §", "a contract outside the repository; link to docs/verification.md instead"),
];

/// The Markdown files that must stand alone.
fn doc_files() -> Vec<PathBuf> {
    let mut files = vec![harness::repo("README.md"), harness::repo("ARCHITECTURE.md")];
    let mut folders = vec![harness::repo("docs")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("docs/ is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|x| x == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The lines of `text` outside fenced code blocks, with their 1-based numbers.
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push((i + 1, line));
        }
    }
    out
}

/// A heading's anchor as GitHub makes it: lower case, punctuation other than `-` and `_`
/// dropped, spaces to `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown text's headings.
fn anchors(text: &str) -> Vec<String> {
    prose_lines(text)
        .into_iter()
        .filter_map(|(_, line)| {
            let hashes = line.chars().take_while(|&c| c == '#').count();
            (hashes > 0 && line[hashes..].starts_with(' ')).then(|| slug(&line[hashes..]))
        })
        .collect()
}

/// The targets of the inline links `[text](target)` on one line.
fn link_targets(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let Some(end) = after.find(')') else { break };
        out.push(after[..end].trim());
        rest = &after[end..];
    }
    out
}

/// A section sign with a number (`§3.2`) that is not an RFC's (`RFC 9535 §2.7`): the
/// numbering of a contract that is not in the repository.
fn bare_section(line: &str) -> Option<String> {
    line.match_indices('§').find_map(|(at, _)| {
        let after = &line[at + '§'.len_utf8()..];
        let number: String = after.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
        if number.is_empty() {
            return None;
        }
        let before: Vec<&str> = line[..at]
            .split_whitespace()
            .rev()
            .take(2)
            .map(|w| w.trim_start_matches(|c: char| !c.is_alphanumeric()))
            .collect();
        let rfc = matches!(before.as_slice(), [n, "RFC"] if n.bytes().all(|b| b.is_ascii_digit()));
        (!rfc).then(|| format!("§{number}"))
    })
}

/// Every problem of one file: text pointing outside, links that reach nothing.
fn problems(root: &Path, file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).expect("the doc is UTF-8");
    let name = file.strip_prefix(root).unwrap_or(file).display().to_string();
    let mut out = Vec::new();
    for (number, line) in text.lines().enumerate() {
        for (needle, why) in OUTSIDE {
            if line.contains(needle) {
                out.push(format!("{name}:{}: `{needle}`: {why}", number + 1));
            }
        }
        if let Some(section) = bare_section(line) {
            out.push(format!(
                "{name}:{}: `{section}` names a section of no document here; link to docs/verification.md",
                number + 1
            ));
        }
    }
    for (number, line) in prose_lines(&text) {
        for target in link_targets(line) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
            let folder = file.parent().unwrap_or(root);
            let resolved = if path.is_empty() { file.to_path_buf() } else { folder.join(path) };
            let inside = resolved.canonicalize().ok().filter(|p| p.starts_with(root));
            let Some(resolved) = inside else {
                out.push(format!("{name}:{number}: link `{target}` reaches no file in the repository"));
                continue;
            };
            if anchor.is_empty() || resolved.extension().is_none_or(|x| x != "md") {
                continue;
            }
            let target_text = std::fs::read_to_string(&resolved).expect("the linked doc is UTF-8");
            if !anchors(&target_text).iter().any(|a| a == anchor) {
                out.push(format!("{name}:{number}: link `{target}`: no heading has the anchor `#{anchor}`"));
            }
        }
    }
    out
}

#[test]
fn docs_refer_to_nothing_outside_the_repository_and_every_link_lands() {
    let root = harness::root().canonicalize().expect("the repository root exists");
    let files = doc_files();
    assert!(files.iter().any(|f| f.ends_with("docs/verification.md")), "docs/verification.md is missing");
    let problems: Vec<String> = files.iter().flat_map(|f| problems(&root, f)).collect();
    assert!(problems.is_empty(), "{} problem(s) in the docs:\n  {}", problems.len(), problems.join("\n  "));
}

#[test]
fn the_stable_anchors_of_verification_md_exist() {
    let text = std::fs::read_to_string(harness::repo("docs/verification.md")).expect("docs/verification.md");
    let found = anchors(&text);
    let missing: Vec<&&str> = STABLE_ANCHORS.iter().filter(|a| !found.iter().any(|f| f == *a)).collect();
    assert!(missing.is_empty(), "docs/verification.md has no heading for {missing:?}");
}

#[test]
fn slugs_and_links_are_read_as_github_does() {
    assert_eq!(slug(" The raw document"), "the-raw-document");
    assert_eq!(slug("`reverify`: batch jobs, 2 of them"), "reverify-batch-jobs-2-of-them");
    assert_eq!(
        link_targets("see [a](docs/a.md#x) and [`b`](https://e.org/(y)) or [c](#z)"),
        ["docs/a.md#x", "https://e.org/(y", "#z"]
    );
    assert_eq!(bare_section("as RFC 9535 §2.7 says, and (RFC 9485 §4)"), None);
    assert_eq!(bare_section("the rule of §3.4 row 6").as_deref(), Some("§3.4"));
    assert_eq!(bare_section("(§2)").as_deref(), Some("§2"));
    let text = "# Top\n```sh\n# not a heading\n```\n## Second one\n";
    assert_eq!(anchors(text), ["top", "second-one"]);
}
