//! The ladder (docs/verification.md#the-ladder): each rung, and the rung each policy allows.

use super::*;

#[test]
fn rung_exact() {
    assert_eq!(
        hit("$", "connection refused", r#"{"m":"dial: connection refused"}"#),
        Some((Rung::Exact, "$['m']".into()))
    );
    // Exact is byte-for-byte: surrounding white space in the quote must be there too.
    assert_eq!(
        hit_with("$", " connection refused ", r#"{"m":"dial: connection refused"}"#, Rung::Exact),
        None
    );
}

#[test]
fn rung_normalized_nfkc_full_width() {
    let doc = r#"{"m":"ＣＯＮＮＥＣＴＩＯＮ ＲＥＦＵＳＥＤ by ｐｅｅｒ"}"#;
    assert_eq!(hit("$", "connection refused", doc), Some((Rung::Normalized, "$['m']".into())));
    // Both sides are normalised.
    assert_eq!(hit("$", "ｒｅｆｕｓｅｄ", r#"{"m":"refused"}"#), Some((Rung::Normalized, "$['m']".into())));
    assert_eq!(hit("$", "x²", r#"{"m":"x2 squared"}"#), Some((Rung::Normalized, "$['m']".into())));
}

#[test]
fn rung_normalized_typographic_quotes() {
    let doc = r#"{"m":"he said “stop” and ‘it’s’ «fine» 「ok」 『yes』 „low‟ ‚a‛ 5′"}"#;
    assert_eq!(hit("$", r#"he said "stop" and 'it's'"#, doc), Some((Rung::Normalized, "$['m']".into())));
    assert_eq!(hit("$", r#""fine" "ok" "yes" "low" 'a' 5'"#, doc), Some((Rung::Normalized, "$['m']".into())));
    // And the other way round.
    assert_eq!(
        hit("$", "“quoted”", r#"{"m":"a \"quoted\" word"}"#),
        Some((Rung::Normalized, "$['m']".into()))
    );
}

#[test]
fn rung_normalized_dashes_and_minus() {
    let doc =
        "{\"m\":\"range 1\u{2013}5, delta \u{2212}3 ms, re\u{2010}try, a\u{2014}b, c\u{2015}d, e\u{2011}f\"}";
    assert_eq!(
        hit("$", "range 1-5, delta -3 ms, re-try, a-b, c-d, e-f", doc),
        Some((Rung::Normalized, "$['m']".into()))
    );
}

#[test]
fn rung_normalized_case() {
    assert_eq!(
        hit("$", "Connection REFUSED", r#"{"m":"connection refused"}"#),
        Some((Rung::Normalized, "$['m']".into()))
    );
    // Full Unicode lower casing, not ASCII only.
    assert_eq!(hit("$", "ΣΦΑΛΜΑ", r#"{"m":"σφαλμα δικτύου"}"#), Some((Rung::Normalized, "$['m']".into())));
    assert_eq!(hit("$", "ÉCHEC", r#"{"m":"échec de connexion"}"#), Some((Rung::Normalized, "$['m']".into())));
}

#[test]
fn rung_normalized_white_space() {
    let doc = "{\"m\":\"connection\\n\\t  refused\u{3000}by\u{a0}peer  \"}";
    assert_eq!(hit("$", "connection refused by peer", doc), Some((Rung::Normalized, "$['m']".into())));
    assert_eq!(hit("$", "  connection   refused\n", doc), Some((Rung::Normalized, "$['m']".into())));
}

#[test]
fn rung_normalized_quote_of_only_invisible_characters_proves_nothing() {
    // U+200B is not white space (so not empty_text) but is no visible evidence either.
    let r = one("$", "\u{200b}", Some(r#"{"m":"anything"}"#));
    assert_ne!(r.outcome, RefOutcome::EmptyText);
    assert_ne!(r.outcome, RefOutcome::Verified, "{r:?}");
}

#[test]
fn rung_elided() {
    let doc = r#"{"m":"dial tcp 10.0.0.7:5432: connection refused"}"#;
    assert_eq!(hit("$", "dial tcp ... connection refused", doc), Some((Rung::Elided, "$['m']".into())));
    assert_eq!(hit("$", "dial tcp…refused", doc), Some((Rung::Elided, "$['m']".into())));
    assert_eq!(hit("$", "Dial TCP … 5432 … REFUSED", doc), Some((Rung::Elided, "$['m']".into())));
    assert_eq!(hit("$", "... dial tcp ... refused ...", doc), Some((Rung::Elided, "$['m']".into())));
}

#[test]
fn rung_elided_lone_trailing_ellipsis_does_not_elide() {
    let doc = r#"{"m":"dial tcp 10.0.0.7:5432: connection refused"}"#;
    assert_eq!(hit("$", "dial tcp 10.0.0.7...", doc), None);
    assert_eq!(hit("$", "dial tcp 10.0.0.7…", doc), None);
    assert_eq!(hit("$", "dial tcp ... ", doc), None);
}

#[test]
fn rung_elided_pieces_in_order_without_overlap() {
    let doc = r#"{"m":"dial tcp 10.0.0.7:5432: connection refused"}"#;
    assert_eq!(hit("$", "refused ... dial tcp", doc), None, "order matters");
    assert_eq!(hit("$", "abca ... abc", r#"{"m":"abcabc"}"#), None, "pieces must not overlap");
    assert_eq!(hit("$", "abc ... abc", r#"{"m":"abcabc"}"#), Some((Rung::Elided, "$['m']".into())));
    assert_eq!(hit("$", "abc ... abc", r#"{"m":"abc"}"#), None);
}

#[test]
fn rung_elided_pieces_must_be_in_one_leaf() {
    let doc = r#"{"a":"dial tcp 10.0.0.7","b":"connection refused","c":"dial tcp then refused"}"#;
    assert_eq!(hit("$['a','b']", "dial tcp ... refused", doc), None);
    assert_eq!(hit("$", "dial tcp ... refused", doc), Some((Rung::Elided, "$['c']".into())));
}

#[test]
fn each_rung_is_tried_on_every_leaf_before_the_next() {
    // Exact in a later leaf beats normalized in an earlier one.
    let doc = r#"[{"m":"Connection Refused"},{"m":"xx connection refused xx"}]"#;
    assert_eq!(hit("$[*]", "connection refused", doc), Some((Rung::Exact, "$[1]['m']".into())));
    assert_eq!(hit("$", "connection refused", doc), Some((Rung::Exact, "$[1]['m']".into())));
    // Normalized in a later leaf beats elided in an earlier one.
    let doc = r#"{"a":"dial tcp to db refused","b":"DIAL TCP ... REFUSED"}"#;
    assert_eq!(hit("$", "dial tcp ... refused", doc), Some((Rung::Normalized, "$['b']".into())));
    // Within one rung, the first leaf in order wins.
    let doc = r#"{"a":"Refused once","b":"REFUSED twice"}"#;
    assert_eq!(hit("$", "refused", doc), Some((Rung::Normalized, "$['a']".into())));
}

#[test]
fn match_exact_makes_looser_hits_text_not_found() {
    let doc = r#"{"m":"Dial TCP: connection refused"}"#;
    assert_eq!(hit_with("$", "Dial TCP", doc, Rung::Exact), Some((Rung::Exact, "$['m']".into())));
    assert_eq!(hit_with("$", "dial tcp", doc, Rung::Exact), None);
    assert_eq!(hit_with("$", "Dial ... refused", doc, Rung::Exact), None);
    let v = verify_with(
        &inv(&claim(&[("$", "dial tcp")]), Some(doc)),
        Policy::default().with_max_rung(Rung::Exact),
    );
    assert_eq!(status_reason(&v), (Status::Unsupported, Reason::NotVerified));
    assert_eq!(outcomes(&v), [RefOutcome::TextNotFound]);
}

#[test]
fn match_normalized_makes_elided_hits_text_not_found() {
    let doc = r#"{"m":"Dial TCP: connection refused"}"#;
    assert_eq!(hit_with("$", "Dial TCP", doc, Rung::Normalized), Some((Rung::Exact, "$['m']".into())));
    assert_eq!(hit_with("$", "dial tcp", doc, Rung::Normalized), Some((Rung::Normalized, "$['m']".into())));
    assert_eq!(hit_with("$", "dial ... refused", doc, Rung::Normalized), None);
    assert_eq!(hit_with("$", "dial ... refused", doc, Rung::Elided), Some((Rung::Elided, "$['m']".into())));
}
