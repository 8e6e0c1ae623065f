//! Raw outputs in files beside the session: what the engine does with what a file lookup
//! found (docs/verification.md, "Raw outputs in files"). The lookup itself, the template and
//! the reading are the binary's (`src/raw_outputs/`), tested through the real program below.

use groundcheck_core::{
    verify_invocation, verify_invocation_general, Invocation, Json, Policy, RawOutput, RawOutputFile,
    RefOutcome, Source, Verdict, Warning,
};

const DETAILS: &str =
    r#"{"evidence_status":"supported","evidence_refs":[{"raw_path":"$.logs[0].message","text":"refused"}]}"#;
const OUTPUT: &str = r#"{"logs":[{"message":"dial tcp: connection refused"}]}"#;

fn row(file: Option<RawOutputFile>) -> Invocation {
    Invocation {
        id: 7,
        tool_name: "query_logs".into(),
        retrieval_details: Some(Json::parse(DETAILS).unwrap()),
        raw_output_file: file,
        ..Invocation::default()
    }
}

fn verify(inv: &Invocation) -> Verdict {
    let verdict = verify_invocation(inv, &Policy::default());
    assert_eq!(verdict, verify_invocation_general(inv, &Policy::default()), "the routes disagree");
    verdict
}

#[test]
fn a_file_that_was_read_is_the_document_with_source_file() {
    let verdict = verify(&row(Some(RawOutputFile::Read(OUTPUT.into()))));
    assert_eq!((verdict.source, verdict.refs[0].outcome), (Source::File, RefOutcome::Verified));
    assert!(verdict.warnings.is_empty());
    // Read exactly like raw_output_text: text that is not JSON is one string.
    let verdict = verify(&row(Some(RawOutputFile::Read("connection refused".into()))));
    assert_eq!(verdict.refs[0].outcome, RefOutcome::PathNotFound);
}

#[test]
fn a_file_over_the_size_limit_is_limit_exceeded() {
    let verdict = verify(&row(Some(RawOutputFile::OverLimit)));
    assert_eq!((verdict.source, verdict.refs[0].outcome), (Source::File, RefOutcome::LimitExceeded));
}

#[test]
fn the_row_s_own_raw_output_wins_and_the_file_is_ignored() {
    let inv =
        Invocation { raw_output: Some(RawOutput::Text(OUTPUT.into())), ..row(Some(RawOutputFile::Missing)) };
    let verdict = verify(&inv);
    assert_eq!((verdict.source, verdict.refs[0].outcome), (Source::RawOutput, RefOutcome::Verified));
    assert!(verdict.warnings.is_empty());
}

#[test]
fn a_file_not_found_or_unsafe_or_unreadable_is_a_warning_and_the_preview_rule_applies() {
    for (file, warning) in [
        (RawOutputFile::PathUnsafe, Warning::RawOutputPathUnsafe),
        (RawOutputFile::Missing, Warning::RawOutputMissing),
        (RawOutputFile::Unreadable, Warning::RawOutputUnreadable),
    ] {
        let verdict = verify(&row(Some(file.clone())));
        assert_eq!(
            (verdict.source, verdict.refs[0].outcome),
            (Source::None, RefOutcome::RawOutputUnavailable)
        );
        assert_eq!(verdict.warnings, [warning]);
        // A complete preview still stands in.
        let inv = Invocation {
            output_preview: Some(OUTPUT.into()),
            output_length: Some(OUTPUT.chars().count() as i64),
            is_truncated: Some(false),
            ..row(Some(file))
        };
        let verdict = verify(&inv);
        assert_eq!((verdict.source, verdict.refs[0].outcome), (Source::Preview, RefOutcome::Verified));
        assert_eq!(verdict.warnings, [warning]);
    }
}

#[test]
fn file_warnings_sit_between_invalid_utf8_and_marker_with_refs() {
    let details =
        r#"{"evidence_refs":[{"raw_path":"$.a","text":"x"},{"raw_path":"$.no_evidence","text":""}]}"#;
    let inv = Invocation {
        invalid_utf8: true,
        retrieval_details: Some(Json::parse(details).unwrap()),
        ..row(Some(RawOutputFile::Missing))
    };
    assert_eq!(
        verify(&inv).warnings,
        [Warning::InvalidUtf8, Warning::RawOutputMissing, Warning::MarkerWithRefs]
    );
}
