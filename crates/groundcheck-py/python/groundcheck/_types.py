"""The names a report's strings take, as ``Literal`` types: the type checker knows every
status, reason, outcome, rung, source and warning there is."""

from __future__ import annotations

from typing import Literal, TypeAlias

__all__ = ["LimitName", "Outcome", "ReadAs", "Reason", "Rung", "Source", "Status", "WarningName"]

Status: TypeAlias = Literal["supported", "unsupported", "no_evidence"]
Reason: TypeAlias = Literal[
    "malformed_details",
    "claimed_without_refs",
    "tool_failed",
    "no_evidence_marker",
    "no_refs",
    "verified",
    "partially_verified",
    "not_verified",
]
Outcome: TypeAlias = Literal[
    "verified",
    "empty_text",
    "raw_output_unavailable",
    "invalid_path",
    "path_not_found",
    "text_not_found",
    "malformed_ref",
    "not_checked",
    "no_evidence_marker",
    "limit_exceeded",
]
Rung: TypeAlias = Literal["exact", "normalized", "elided", "fuzzy"]
Source: TypeAlias = Literal["raw_output", "file", "preview", "none"]
WarningName: TypeAlias = Literal[
    "invalid_utf8",
    "raw_output_path_unsafe",
    "raw_output_missing",
    "raw_output_unreadable",
    "marker_with_refs",
    "read_as_json_lines",
    "read_as_yaml",
    "descended_into_string",
]
ReadAs: TypeAlias = Literal["json_lines", "yaml"]
LimitName: TypeAlias = Literal["output_size", "depth", "text_length", "path_length", "nodes", "refs"]
