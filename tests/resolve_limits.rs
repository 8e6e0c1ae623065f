//! `groundcheck resolve` under the limits verification uses: a path that selects more nodes
//! than the node limit, or would build more on its way, stops with one line naming the limit
//! before its nodes are built.

use crate::harness::{run_shell, temp_dir, write};

/// RFC 9535 lets a union repeat a selector, so `$[*,*]` doubles the nodes with each segment:
/// 22 segments on a 22-deep nested array select 2^22 nodes (before: 398 MB printed, 1.6 GB
/// peak memory), each further segment twice as many. The command runs in an address space of
/// 1 GiB, which the old resolution could not finish in (it aborted), and stops at the limit.
#[test]
fn a_path_whose_nodes_double_with_each_segment_stops_at_the_node_limit() {
    let dir = temp_dir();
    write(dir.path(), "deep.json", format!("{}1{}", "[".repeat(22), "]".repeat(22)));
    for segments in [22, 40, 800] {
        let path = format!("${}", "[*,*]".repeat(segments));
        let script = format!("ulimit -v 1048576; exec groundcheck resolve --path '{path}' deep.json");
        let out = run_shell(dir.path(), &script);
        assert_eq!(out.code, 2, "{segments} segments: {}", out.stderr);
        assert_eq!(out.stdout, "");
        assert_eq!(
            out.stderr,
            "deep.json: the path selects more than 100000 nodes (the node limit), counting repeats, or would \
             pass through more on its way\n"
        );
    }
    // Below the limit the same kind of path prints every node, repeats and all: 2^16.
    let path = format!("${}", "[*,*]".repeat(16));
    let out = run_shell(dir.path(), &format!("exec groundcheck resolve --path '{path}' deep.json"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.matches("\"path\": ").count(), 1 << 16);
}

/// A filter's own query doubles the same way, once per node it tests; and a path longer
/// than the path length limit is refused as verification refuses it, naming the flag's limit.
#[test]
fn filter_queries_and_long_paths_stop_at_their_limits() {
    let dir = temp_dir();
    write(dir.path(), "deep.json", format!("{}1{}", "[".repeat(22), "]".repeat(22)));
    let path = format!("$[?@{}]", "[*,*]".repeat(30));
    let out = run_shell(
        dir.path(),
        &format!("ulimit -v 1048576; exec groundcheck resolve --path '{path}' deep.json"),
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.starts_with("deep.json: the path selects more than 100000 nodes"), "{}", out.stderr);

    let long = format!("$.{}", "a".repeat(4_095));
    let out = run_shell(dir.path(), &format!("exec groundcheck resolve --path '{long}' deep.json"));
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.ends_with(
            ": the path is 4097 characters long, more than the path length limit (4096 characters)\n"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(out.stderr.lines().count(), 1);
}

/// The limits are resolve's flags as they are verification's: `--max-nodes` lets the doubling
/// path through where the default stops it, and `--max-path-chars` lets a long pointer be
/// followed, so whatever a raised limit verifies, `resolve` can show.
#[test]
fn the_limit_flags_raise_resolves_limits_as_they_raise_verifications() {
    let dir = temp_dir();
    write(dir.path(), "deep.json", format!("{}1{}", "[".repeat(22), "]".repeat(22)));
    let path = format!("${}", "[*,*]".repeat(17));
    let out = run_shell(dir.path(), &format!("exec groundcheck resolve --path '{path}' deep.json"));
    assert_eq!(out.code, 2, "{}", out.stderr);
    let out = run_shell(
        dir.path(),
        &format!("exec groundcheck resolve --max-nodes 200000 --path '{path}' deep.json"),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.matches("\"path\": ").count(), 1 << 17);

    write(dir.path(), "deep.json", format!("{}1{}", "[".repeat(2_100), "]".repeat(2_100)));
    let long = "/0".repeat(2_100);
    let out = run_shell(dir.path(), &format!("exec groundcheck resolve --path '{long}' deep.json"));
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("more than the path length limit (4096 characters)"), "{}", out.stderr);
    let out = run_shell(
        dir.path(),
        &format!("exec groundcheck resolve --max-path-chars 5000 --path '{long}' deep.json"),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("\"value\": 1}"), "{}", &out.stdout[..200.min(out.stdout.len())]);
}

/// serde_json_path runs a filter's query once per node the filter tests, so descendant
/// segments nested in filters cost about the depth once more per filter:
/// `$..[?@..[?@..[?@..b]]]` on a chain 1,000 deep never ended (two such filters: 31 s in a
/// debug build). Resolve stops at the node limit before the path runs, for a chain of
/// objects and of arrays, and for eight such filters on a 512-deep document; the command
/// runs under `timeout 60`, so a path that still ran would fail here with exit 124.
#[test]
fn descendant_segments_nested_in_filters_stop_at_the_node_limit() {
    let dir = temp_dir();
    let eight = format!("$..{}b{}", "[?@..".repeat(8), "]".repeat(8));
    for (open, close) in [("{\"a\":", "}"), ("[", "]")] {
        write(dir.path(), "deep.json", format!("{}1{}", open.repeat(1_000), close.repeat(1_000)));
        write(dir.path(), "512.json", format!("{}1{}", open.repeat(511), close.repeat(511)));
        for (path, file) in [("$..[?@..[?@..[?@..b]]]", "deep.json"), (eight.as_str(), "512.json")] {
            let out =
                run_shell(dir.path(), &format!("exec timeout 60 groundcheck resolve --path '{path}' {file}"));
            assert_eq!(out.code, 2, "{path} {open}: {}", out.stderr);
            assert_eq!(
                out.stderr,
                format!(
                    "{file}: the path selects more than 100000 nodes (the node limit), counting repeats, or \
                     would pass through more on its way\n"
                )
            );
        }
        // One such filter is within the budget and runs.
        let out = run_shell(dir.path(), "exec timeout 60 groundcheck resolve --path '$..[?@..b]' deep.json");
        assert_eq!((out.code, out.stdout.as_str()), (0, "[]\n"), "{}", out.stderr);
    }
}
