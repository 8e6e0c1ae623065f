//! One spelling for every report and policy enum: the name a report prints, a database
//! stores and the command line takes is written once, here, and serde, `as_str` and
//! `FromStr` all use it. Nothing else in the workspace spells these names by hand.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, ErrorKind};
use crate::policy::{Limit, Require, Rung};
use crate::report::{ReadAs, Reason, RefOutcome, Source, Status, Warning};

/// Gives an enum `ALL`, `as_str`, `Display`, `FromStr` and serde from one name table.
macro_rules! names {
    ($ty:ident, $kind:literal { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every value, in declaration order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];

            /// The name reports, storage and the command line use.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $ty {
            type Err = Error;

            /// Fails with [`ErrorKind::UnknownName`], naming what was read and every name.
            fn from_str(name: &str) -> Result<$ty, Error> {
                $ty::ALL.iter().copied().find(|v| v.as_str() == name).ok_or_else(|| {
                    let expected = $ty::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(", ");
                    let message = format!("unknown {} `{name}` (expected one of: {expected})", $kind);
                    Error::new(ErrorKind::UnknownName, message)
                })
            }
        }

        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<$ty, D::Error> {
                let name = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
                name.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

names!(Status, "status" {
    Supported => "supported",
    Unsupported => "unsupported",
    NoEvidence => "no_evidence",
});

names!(Reason, "reason" {
    MalformedDetails => "malformed_details",
    ClaimedWithoutRefs => "claimed_without_refs",
    ToolFailed => "tool_failed",
    NoEvidenceMarker => "no_evidence_marker",
    NoRefs => "no_refs",
    Verified => "verified",
    PartiallyVerified => "partially_verified",
    NotVerified => "not_verified",
});

names!(RefOutcome, "outcome" {
    Verified => "verified",
    EmptyText => "empty_text",
    RawOutputUnavailable => "raw_output_unavailable",
    InvalidPath => "invalid_path",
    PathNotFound => "path_not_found",
    TextNotFound => "text_not_found",
    MalformedRef => "malformed_ref",
    NotChecked => "not_checked",
    NoEvidenceMarker => "no_evidence_marker",
    LimitExceeded => "limit_exceeded",
});

names!(Source, "source" {
    RawOutput => "raw_output",
    File => "file",
    Preview => "preview",
    None => "none",
});

names!(Warning, "warning" {
    InvalidUtf8 => "invalid_utf8",
    RawOutputPathUnsafe => "raw_output_path_unsafe",
    RawOutputMissing => "raw_output_missing",
    RawOutputUnreadable => "raw_output_unreadable",
    MarkerWithRefs => "marker_with_refs",
    ReadAsJsonLines => "read_as_json_lines",
    ReadAsYaml => "read_as_yaml",
    DescendedIntoString => "descended_into_string",
});

names!(ReadAs, "structured view" {
    JsonLines => "json_lines",
    Yaml => "yaml",
});

names!(Limit, "limit" {
    OutputSize => "output_size",
    Depth => "depth",
    TextLength => "text_length",
    PathLength => "path_length",
    Nodes => "nodes",
    Refs => "refs",
});

names!(Rung, "match rung" {
    Exact => "exact",
    Normalized => "normalized",
    Elided => "elided",
    Fuzzy => "fuzzy",
});

names!(Require, "require rule" {
    All => "all",
    Any => "any",
});

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trips<T>(all: &[T])
    where
        T: Copy + PartialEq + std::fmt::Debug + std::str::FromStr<Err = Error> + Serialize,
        T: for<'de> Deserialize<'de> + std::fmt::Display,
    {
        for &v in all {
            let name = v.to_string();
            assert_eq!(name.parse::<T>(), Ok(v));
            assert_eq!(serde_json::to_string(&v).unwrap(), format!("\"{name}\""));
            assert_eq!(serde_json::from_str::<T>(&format!("\"{name}\"")).unwrap(), v);
        }
    }

    #[test]
    fn every_name_round_trips_through_from_str_and_serde() {
        round_trips(Status::ALL);
        round_trips(Reason::ALL);
        round_trips(RefOutcome::ALL);
        round_trips(Source::ALL);
        round_trips(Warning::ALL);
        round_trips(ReadAs::ALL);
        round_trips(Rung::ALL);
        round_trips(Limit::ALL);
        round_trips(Require::ALL);
    }

    #[test]
    fn an_unknown_name_says_what_was_expected() {
        let err = "Supported".parse::<Status>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown status `Supported` (expected one of: supported, unsupported, no_evidence)"
        );
        assert!(serde_json::from_str::<Rung>("\"Fuzzy\"").is_err());
    }
}
