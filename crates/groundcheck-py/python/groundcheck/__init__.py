"""groundcheck checks an AIOps agent's claimed evidence against its tools' raw outputs.

Each ``tool_invocation`` row claims evidence in ``retrieval_details``: a JSONPath
``raw_path`` into the tool's raw output and the quoted ``text`` found there. groundcheck
resolves every path, searches for every quote, and classifies the invocation as
``supported``, ``unsupported`` or ``no_evidence`` (no evidence found by this tool, never "the
fault is absent"), saying exactly why.

This package is the Rust engine in-process, with the verdicts of ``groundcheck verify``:
``Report.to_json()`` is byte for byte what ``groundcheck verify --format json`` prints for the
same rows and policy. Rows are what a Python program already holds — a ``dict`` (or any
``Mapping``) of ``tool_invocation`` columns as a DB driver returns them. Calls release the
GIL while they verify; a ``Verifier`` is built once and shared by every thread.

>>> import groundcheck
>>> row = {"id": 1, "tool_name": "query_logs",
...        "retrieval_details": {"evidence_refs": [{"raw_path": "$.logs[0]", "text": "refused"}]},
...        "raw_output": {"logs": ["dial tcp: connection refused"]}}
>>> groundcheck.verify_invocation(row).status
'supported'
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Iterable, Literal, Mapping, TypeAlias

from ._errors import (
    GroundcheckError,
    InternalError,
    InvalidBundleError,
    InvalidDocumentError,
    InvalidPathError,
    InvalidPolicyError,
    InvalidRowError,
)
from ._groundcheck import SCHEMA, Limits, Policy, __version__
from ._groundcheck import Verifier as _Verifier
from ._groundcheck import _resolve

__all__ = [
    "SCHEMA",
    "GroundcheckError",
    "InternalError",
    "InvalidBundleError",
    "InvalidDocumentError",
    "InvalidPathError",
    "InvalidPolicyError",
    "InvalidRowError",
    "Limits",
    "Nearest",
    "Policy",
    "RefReport",
    "Report",
    "ResolvedNode",
    "RunReport",
    "Summary",
    "Verdict",
    "Verifier",
    "__version__",
    "resolve",
    "verify_bundle",
    "verify_bundle_json",
    "verify_invocation",
    "verify_run",
]

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
    "descended_into_string",
]


@dataclass(frozen=True)
class Nearest:
    """The selected leaf that came closest to a quote that was not found: its score (the
    share of the quote's characters kept, three decimals), its normalized path, and the
    closest text in it. A high score is a misquote, a low one an invention."""

    score: Decimal
    path: str
    text: str


@dataclass(frozen=True)
class RefReport:
    """One evidence ref as reported: echoed as given, with its outcome and, when it failed,
    how close it came."""

    index: int
    raw_path: str | None
    text: str | None
    outcome: Outcome
    match: Rung | None = None
    matched_path: str | None = None
    score: Decimal | None = None
    in_preview: bool | None = None
    nearest: Nearest | None = None
    elsewhere: str | None = None

    @staticmethod
    def _of(d: Mapping[str, Any]) -> RefReport:
        nearest = d.get("nearest")
        return RefReport(
            index=d["index"],
            raw_path=d["raw_path"],
            text=d["text"],
            outcome=d["outcome"],
            match=d.get("match"),
            matched_path=d.get("matched_path"),
            score=d.get("score"),
            in_preview=d.get("in_preview"),
            nearest=Nearest(**nearest) if nearest is not None else None,
            elsewhere=d.get("elsewhere"),
        )


@dataclass(frozen=True)
class Verdict:
    """One invocation's verdict: status, the reason that decided it, the claimed status and
    whether it agrees, where the raw document came from, every ref, and warnings."""

    id: int
    tool_name: str
    status: Status
    reason: Reason
    claimed_status: str | None
    claim_agrees: bool | None
    source: Source
    refs: tuple[RefReport, ...]
    warnings: tuple[WarningName, ...]
    _raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)
    _json: str | None = field(default=None, repr=False, compare=False)

    @staticmethod
    def _of(d: Mapping[str, Any], text: str | None = None) -> Verdict:
        return Verdict(
            id=d["id"],
            tool_name=d["tool_name"],
            status=d["status"],
            reason=d["reason"],
            claimed_status=d["claimed_status"],
            claim_agrees=d["claim_agrees"],
            source=d["source"],
            refs=tuple(RefReport._of(r) for r in d["refs"]),
            warnings=tuple(d["warnings"]),
            _raw=d,
            _json=text,
        )

    def to_json(self) -> str:
        """The invocation object of the report schema, as compact JSON text (numbers as the
        report writes them: a score is ``0.900``)."""
        return self._json if self._json is not None else _compact(self._raw)

    def to_dict(self) -> dict[str, Any]:
        """The invocation object of the report schema, as plain Python values."""
        result: dict[str, Any] = json.loads(self.to_json())
        return result


@dataclass(frozen=True)
class Summary:
    """A run's counts: invocations by status, and claim mismatches."""

    invocations: int
    supported: int
    unsupported: int
    no_evidence: int
    claim_mismatches: int


@dataclass(frozen=True)
class RunReport:
    """One run's verdicts, ordered by invocation id, with its summary."""

    run_id: str | None
    session_id: str | None
    summary: Summary
    invocations: tuple[Verdict, ...]
    _raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @staticmethod
    def _of(d: Mapping[str, Any]) -> RunReport:
        return RunReport(
            run_id=d["run_id"],
            session_id=d["session_id"],
            summary=Summary(**d["summary"]),
            invocations=tuple(Verdict._of(v) for v in d["invocations"]),
            _raw=d,
        )

    def to_json(self) -> str:
        """The run object of the report schema, as compact JSON text."""
        return _compact(self._raw)

    def to_dict(self) -> dict[str, Any]:
        """The run object of the report schema, as plain Python values."""
        result: dict[str, Any] = json.loads(self.to_json())
        return result


@dataclass(frozen=True)
class Report:
    """The ``groundcheck.report/v1`` report: runs in order of first appearance."""

    schema: str
    runs: tuple[RunReport, ...]
    _json: str = field(default="", repr=False, compare=False)

    @staticmethod
    def _of(text: str) -> Report:
        d = json.loads(text, parse_float=Decimal)
        return Report(schema=d["schema"], runs=tuple(RunReport._of(r) for r in d["runs"]), _json=text)

    def to_json(self) -> str:
        """The report as ``groundcheck verify --format json`` prints it, byte for byte."""
        return self._json

    def to_dict(self) -> dict[str, Any]:
        """The report as plain Python values."""
        result: dict[str, Any] = json.loads(self._json)
        return result


@dataclass(frozen=True)
class ResolvedNode:
    """A node a path selects: its RFC 9535 normalized path, its value, and whether it was
    selected on the expanded view (inside a string that holds JSON)."""

    path: str
    value: Any
    descended: bool = False


def _compact(value: Any) -> str:
    """``value`` (read with ``parse_float=Decimal``) as compact JSON, as the engine writes it:
    numbers keep their text, strings are escaped as ``json`` escapes them."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, Decimal)):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(_compact(item) for item in value) + "]"
    members = (json.dumps(k, ensure_ascii=False) + ":" + _compact(v) for k, v in value.items())
    return "{" + ",".join(members) + "}"


class Verifier:
    """The engine under one policy, built once and shared by every thread.

    ``raw_outputs`` is a template for rows without a raw output of their own, as
    ``--raw-outputs``: ``/var/lib/agent/sessions/{session_id}/tools/{id}.json``."""

    __slots__ = ("_inner",)

    def __init__(self, policy: Policy | None = None, *, raw_outputs: str | None = None) -> None:
        self._inner = _Verifier(policy, raw_outputs=raw_outputs)

    @property
    def policy(self) -> Policy:
        """The policy verdicts are decided under."""
        return self._inner.policy

    def verify_invocation(self, row: Mapping[str, Any]) -> Verdict:
        """The verdict of one ``tool_invocation`` row."""
        text = self._inner._verify_invocation(row)
        return Verdict._of(json.loads(text, parse_float=Decimal), text)

    def verify_run(self, rows: Iterable[Mapping[str, Any]]) -> Report:
        """The report of rows grouped into runs (by ``run_id``, else ``session_id``), verified
        in parallel with the GIL released."""
        return Report._of(self._inner._verify_run(rows))

    def verify_bundle(self, path: str | os.PathLike[str]) -> Report:
        """The report of a bundle file: what ``groundcheck verify --format json FILE`` prints."""
        with open(os.fspath(path), "rb") as f:
            data = f.read()
        return self.verify_bundle_json(data)

    def verify_bundle_json(self, text: str | bytes) -> Report:
        """The report of bundle text (``str``, or UTF-8 ``bytes``)."""
        if isinstance(text, (bytes, bytearray, memoryview)):
            try:
                text = bytes(text).decode("utf-8")
            except UnicodeDecodeError as e:
                raise InvalidBundleError(f"the bundle is not UTF-8 (byte {e.start})") from None
        return Report._of(self._inner._verify_bundle_json(text))

    def __repr__(self) -> str:
        return f"Verifier({self.policy!r})"


def verify_invocation(row: Mapping[str, Any], policy: Policy | None = None) -> Verdict:
    """The verdict of one ``tool_invocation`` row under ``policy`` (the default when
    ``None``)."""
    return Verifier(policy).verify_invocation(row)


def verify_run(rows: Iterable[Mapping[str, Any]], policy: Policy | None = None) -> Report:
    """The report of rows grouped into runs, verified in parallel with the GIL released."""
    return Verifier(policy).verify_run(rows)


def verify_bundle(path: str | os.PathLike[str], policy: Policy | None = None) -> Report:
    """The report of a bundle file, as ``groundcheck verify --format json`` prints it."""
    return Verifier(policy).verify_bundle(path)


def verify_bundle_json(text: str | bytes, policy: Policy | None = None) -> Report:
    """The report of bundle text."""
    return Verifier(policy).verify_bundle_json(text)


def resolve(document: Any, path: str) -> list[ResolvedNode]:
    """The nodes ``path`` selects in ``document`` (JSON text, or a JSON-like value), exactly
    as ``groundcheck resolve`` finds them: RFC 9535 JSONPath, the RFC 6901 JSON Pointer
    fallback, then the expanded view of strings holding JSON."""
    return [ResolvedNode(p, json.loads(v), d) for p, v, d in _resolve(document, path)]
