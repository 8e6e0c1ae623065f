//! Raw outputs that are not JSON (docs/verification.md#yaml-and-json-lines): a text's
//! structured view, JSON Lines then YAML, tried only when a path selects nothing in the text.
//! One small test a rule; every verification runs on the fast routes and the tree route.

use std::time::{Duration, Instant};

use groundcheck_core::{resolve_text, ReadAs};

use super::*;

/// The verdict of refs `(raw_path, text)` against `raw`.
fn against(raw: &str, refs: &[(&str, &str)]) -> Verdict {
    verify(&inv(&claim(refs), Some(raw)))
}

/// Each ref's `(outcome, matched_path)`.
fn found(verdict: &Verdict) -> Vec<(RefOutcome, Option<&str>)> {
    verdict.refs.iter().map(|r| (r.outcome, r.matched_path.as_deref())).collect()
}

/// "At once" for a document whose naive reading explodes (9⁹ aliased nodes, or recursion and
/// rescanning per level): a bound far above the bounded reading's time in a debug build on a
/// loaded 2-core machine (a second bound failed there), and far below the explosion's.
const AT_ONCE: Duration = Duration::from_secs(10);

const LOGS: &str = concat!(
    r#"{"level":"info","msg":"starting worker"}"#,
    "\r\n\r\n   \n",
    r#"{"level":"error","msg":"dial tcp 10.0.0.7:5432: connection refused"}"#,
    "\n",
);

#[test]
fn json_lines_are_an_array_of_the_non_blank_lines_in_order() {
    let v = against(LOGS, &[("$[1].msg", "connection refused"), ("$[*].level", "info")]);
    assert_eq!(
        found(&v),
        [(RefOutcome::Verified, Some("$[1]['msg']")), (RefOutcome::Verified, Some("$[0]['level']"))]
    );
    assert_eq!(v.warnings, [Warning::ReadAsJsonLines]);
}

#[test]
fn json_lines_need_every_line_to_be_an_object_or_array() {
    for raw in [
        concat!(r#"{"msg":"a"}"#, "\n", r#"{"msg":"connection refused""#, "\n"),
        concat!(r#"{"msg":"a"}"#, "\n", "42\n", r#"{"msg":"connection refused"}"#),
        concat!(r#"{"msg":"a"}"#, "\n", "plain text: connection refused\n"),
    ] {
        let v = against(raw, &[("$[1].msg", "connection refused")]);
        assert_eq!(found(&v), [(RefOutcome::PathNotFound, None)], "{raw:?}");
        assert_eq!(v.warnings, [], "{raw:?}");
        assert_eq!(v.refs[0].elsewhere.as_deref(), Some("$"), "only the text holds it: {raw:?}");
    }
}

#[test]
fn json_lines_come_before_yaml() {
    // Two flow sequences on two lines: JSON Lines, although a line alone would be YAML too.
    let v = against("[\"a\", 1]\n[\"b\", 2]\n", &[("$[1][0]", "b")]);
    assert_eq!(v.warnings, [Warning::ReadAsJsonLines]);
    assert_eq!(found(&v), [(RefOutcome::Verified, Some("$[1][0]"))]);
}

#[test]
fn yaml_scalars_are_strings_holding_their_value_as_written() {
    let pod = "status:\n  exitCode: 137\n  ratio: 0.950\n  ready: true\n  node: ~\n  quoted: \"a\\tb\"\n";
    let v = against(
        pod,
        &[
            ("$.status.exitCode", "137"),
            ("$.status.ratio", "0.950"),
            ("$.status.ready", "true"),
            ("$.status.node", "~"),
        ],
    );
    assert_eq!(outcomes(&v), [RefOutcome::Verified; 4]);
    assert_eq!(v.warnings, [Warning::ReadAsYaml]);
    // No type resolution: `0.950` is not `0.95`, and a match never splits a number.
    assert_eq!(outcome("$.status.ratio", "0.95", Some(pod)), RefOutcome::TextNotFound);
    assert_eq!(hit("$.status.quoted", "a\tb", pod), Some((Rung::Exact, "$['status']['quoted']".into())));
}

#[test]
fn yaml_block_scalars_are_folded_by_yaml_s_rules() {
    let raw = "message: |\n  line one\n  line two\nfolded: >\n  one\n  two\n";
    assert_eq!(hit("$.message", "line one\nline two", raw), Some((Rung::Exact, "$['message']".into())));
    assert_eq!(hit("$.folded", "one two", raw), Some((Rung::Exact, "$['folded']".into())));
}

#[test]
fn several_yaml_documents_are_an_array_of_their_roots() {
    let raw = "kind: Pod\nmetadata:\n  name: a\n---\nkind: Pod\nmetadata:\n  name: order-svc-7d9\n";
    let v = against(raw, &[("$[1].metadata.name", "order-svc")]);
    assert_eq!(found(&v), [(RefOutcome::Verified, Some("$[1]['metadata']['name']"))]);
    // An empty document in the stream is the empty string.
    let nodes = resolve_text("$[1]", "a: 1\n---\n---\nb: 2\n").unwrap();
    assert_eq!((nodes[0].value.as_str(), nodes[0].read_as), ("\"\"", Some(ReadAs::Yaml)));
}

#[test]
fn a_repeated_yaml_key_keeps_its_last_value_at_its_first_position() {
    let raw = "phase: Pending\nname: web\nphase: Running\n";
    assert_eq!(hit("$.*", "Running", raw), Some((Rung::Exact, "$['phase']".into())));
    assert_eq!(outcome("$.phase", "Pending", Some(raw)), RefOutcome::TextNotFound);
}

#[test]
fn yaml_keys_are_read_as_written_and_tags_ignored() {
    let raw = "? 8080\n: http\nport: !!int 8080\n";
    assert_eq!(hit("$['8080']", "http", raw), Some((Rung::Exact, "$['8080']".into())));
    assert_eq!(hit("$.port", "8080", raw), Some((Rung::Exact, "$['port']".into())));
}

#[test]
fn yaml_comments_are_not_leaves() {
    let raw = "# connection refused at 10:00\nphase: Running\n";
    let r = one("$.*", "connection refused", Some(raw));
    assert_eq!(r.outcome, RefOutcome::TextNotFound);
    // Not in the view: `elsewhere` falls back to the whole text.
    assert_eq!(r.elsewhere.as_deref(), Some("$"));
}

#[test]
fn a_yaml_alias_stands_for_a_copy_of_its_anchored_node() {
    let raw = "defaults: &d\n  image: nginx:1.25\nweb: *d\n";
    assert_eq!(hit("$.web.image", "nginx:1.25", raw), Some((Rung::Exact, "$['web']['image']".into())));
}

#[test]
fn texts_with_neither_view_stay_one_string() {
    for raw in [
        "NAME                      READY   STATUS    RESTARTS   AGE\norder-svc-7d9c6b5f4-x2k8p 0/1     OOMKilled 3          5m\n",
        "just one line of plain log text\n",
        "? [a]\n: OOMKilled\n",
        "reason: *undefined\n",
        "&a [*a, OOMKilled]\n",
        "reason: \"\\ud800 OOMKilled\"\n",
        "reason: [OOMKilled\n",
        "---\n---\nreason: OOMKilled\n",
    ] {
        let v = against(raw, &[("$.reason", "OOMKilled"), ("$[0]", "OOMKilled")]);
        assert_eq!(outcomes(&v), [RefOutcome::PathNotFound; 2], "{raw:?}");
        assert_eq!(v.warnings, [], "{raw:?}");
    }
}

#[test]
fn the_text_comes_first_and_a_ref_at_the_root_never_needs_the_view() {
    let raw = "reason: OOMKilled\n";
    let v = against(raw, &[("$", "reason: OOMKilled")]);
    assert_eq!((found(&v), v.warnings.as_slice()), (vec![(RefOutcome::Verified, Some("$"))], &[][..]));
    // Text that merely looks like `key: value` is a mapping, and the text still comes first.
    let v = against("ERROR: connection refused", &[("$", "ERROR"), ("$.ERROR", "refused")]);
    assert_eq!(found(&v), [(RefOutcome::Verified, Some("$")), (RefOutcome::Verified, Some("$['ERROR']"))]);
    assert_eq!(v.warnings, [Warning::ReadAsYaml]);
}

#[test]
fn json_inside_the_view_s_strings_is_expanded_last() {
    let raw = "kind: Event\nmessage: '{\"code\": 503, \"error\": \"upstream timeout\"}'\n";
    let v = against(raw, &[("$.message", "503"), ("$.message.error", "upstream timeout")]);
    assert_eq!(
        found(&v),
        [(RefOutcome::Verified, Some("$['message']")), (RefOutcome::Verified, Some("$['message']['error']"))]
    );
    assert_eq!(v.warnings, [Warning::ReadAsYaml, Warning::DescendedIntoString]);
    // In JSON Lines too: a line's string holding JSON.
    let logs = concat!(r#"{"msg":"a"}"#, "\n", r#"{"msg":"{\"code\":503}"}"#, "\n");
    assert_eq!(hit("$[1].msg.code", "503", logs), Some((Rung::Exact, "$[1]['msg']['code']".into())));
}

#[test]
fn elsewhere_looks_in_the_view_first_then_at_the_text() {
    let raw = "phase: Running\nreason: OOMKilled\n";
    let r = one("$.phase", "OOMKilled", Some(raw));
    assert_eq!((r.outcome, r.elsewhere.as_deref()), (RefOutcome::TextNotFound, Some("$['reason']")));
    let r = one("$.missing", "OOMKilled", Some(raw));
    assert_eq!((r.outcome, r.elsewhere.as_deref()), (RefOutcome::PathNotFound, Some("$['reason']")));
    // Then the view's expanded view.
    let raw = "phase: Running\nbody: '{\"reason\": \"OOMKilled\"}'\n";
    let r = one("$.phase", "\"reason\"", Some(raw));
    assert_eq!(r.elsewhere.as_deref(), Some("$['body']"), "the view's string holds the quote as written");
    let r = one("$.phase", "OOMKilled", Some(raw));
    assert_eq!(r.elsewhere.as_deref(), Some("$['body']"), "the leaf as written holds it first");
    // The text only when neither view holds it: `: ` spans a key and its value.
    let r = one("$.phase", "phase: Running", Some("phase: Running\n"));
    assert_eq!(r.elsewhere.as_deref(), Some("$"));
}

#[test]
fn a_ref_for_which_nothing_selects_anything_gets_no_warning() {
    let v = against("phase: Running\n", &[("$.status.phase", "Running")]);
    assert_eq!((outcomes(&v), v.warnings), (vec![RefOutcome::PathNotFound], vec![]));
}

#[test]
fn a_view_past_the_depth_limit_is_limit_exceeded_with_its_warning() {
    let deep: String = (0..600).map(|i| format!("{}a:\n", "  ".repeat(i))).collect();
    let v = against(&deep, &[("$.a", "x")]);
    assert_eq!(outcomes(&v), [RefOutcome::LimitExceeded]);
    assert_eq!(v.warnings, [Warning::ReadAsYaml]);
    // The documents' array counts: two documents of depth 2 are 3 deep.
    let limits = Limits::default().with(Limit::Depth, 2).unwrap();
    let v = verify_with(&inv(&claim(&[("$[1].b", "y")]), Some("a: [x]\n---\nb: y\n")), policy_with(limits));
    assert_eq!(outcomes(&v), [RefOutcome::LimitExceeded]);
    let logs = "[[1]]\n{\"b\": \"y\"}\n";
    let v = verify_with(&inv(&claim(&[("$[1].b", "y")]), Some(logs)), policy_with(limits));
    assert_eq!((outcomes(&v), v.warnings), (vec![RefOutcome::LimitExceeded], vec![Warning::ReadAsJsonLines]));
}

/// Billion laughs: nine levels of nine aliases would be 9⁹ nodes. Past the node limit of
/// nodes the aliases add, the view is over it: at once, in bounded memory.
#[test]
fn a_yaml_alias_bomb_is_limit_exceeded() {
    let mut bomb =
        String::from("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    let names: Vec<char> = "abcdefghi".chars().collect();
    for w in names.windows(2) {
        let (p, c) = (w[0], w[1]);
        bomb += &format!("{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n");
    }
    let started = Instant::now();
    let v = against(&bomb, &[("$.i[0][0]", "lol"), ("$", "lol")]);
    assert_eq!(outcomes(&v), [RefOutcome::LimitExceeded, RefOutcome::Verified]);
    assert_eq!(v.warnings, [Warning::ReadAsYaml]);
    assert!(started.elapsed() < AT_ONCE, "{:?}", started.elapsed());
    // Nodes the text writes itself are not limited: a long log written out is a view.
    let written: String = (0..60_000).map(|i| format!("- msg: line {i}\n")).collect();
    assert_eq!(hit("$[59999].msg", "line 59999", &written), Some((Rung::Exact, "$[59999]['msg']".into())));
}

/// 10,000 levels of block mappings: parsed and refused without recursion (on a small
/// stack), at once.
#[test]
fn a_10000_deep_yaml_document_is_refused_at_once_on_a_small_stack() {
    let deep: String = (0..10_000).map(|i| format!("{}a:\n", " ".repeat(i))).collect::<String>();
    let started = Instant::now();
    let v = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || Verifier::default().verify(&inv(&claim(&[("$.a", "x")]), Some(&deep))))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!((outcomes(&v), v.warnings), (vec![RefOutcome::LimitExceeded], vec![Warning::ReadAsYaml]));
    assert!(started.elapsed() < AT_ONCE, "{:?}", started.elapsed());
}

#[test]
fn resolve_reads_the_view_and_marks_its_nodes() {
    let nodes = resolve_text("$.status.phase", "status:\n  phase: Running\n").unwrap();
    assert_eq!(
        (nodes[0].path.as_str(), nodes[0].value.as_str(), nodes[0].read_as, nodes[0].descended),
        ("$['status']['phase']", "\"Running\"", Some(ReadAs::Yaml), false)
    );
    let nodes = resolve_text("$", "status:\n  phase: Running\n").unwrap();
    assert_eq!((nodes[0].value.as_str(), nodes[0].read_as), ("\"status:\\n  phase: Running\\n\"", None));
    let nodes = resolve_text("$[1].msg.code", "{\"msg\":1}\n{\"msg\":\"{\\\"code\\\":7}\"}\n").unwrap();
    assert_eq!(
        (nodes[0].value.as_str(), nodes[0].read_as, nodes[0].descended),
        ("7", Some(ReadAs::JsonLines), true)
    );
    assert_eq!(resolve_text("$", "plain text").unwrap_err().kind(), ErrorKind::Json);
    assert_eq!(resolve_text("$", "{\"a\":1}").unwrap()[0].read_as, None);
}

#[test]
fn json_pointers_are_decided_on_the_view_too() {
    let pod = "status:\n  containerStatuses:\n  - lastState:\n      terminated:\n        reason: OOMKilled\n";
    let path = "/status/containerStatuses/0/lastState/terminated/reason";
    let v = against(pod, &[(path, "OOMKilled")]);
    assert_eq!(
        found(&v),
        [(
            RefOutcome::Verified,
            Some("$['status']['containerStatuses'][0]['lastState']['terminated']['reason']")
        )]
    );
    assert_eq!(v.warnings, [Warning::ReadAsYaml]);
    assert_eq!(hit("/1/msg", "refused", LOGS), Some((Rung::Exact, "$[1]['msg']".into())));
}
