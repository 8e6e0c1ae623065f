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

from dataclasses import dataclass
import os
from typing import Any, Iterable, Mapping

from ._errors import (
    DuplicateIdError,
    GroundcheckError,
    InternalError,
    InvalidBundleError,
    InvalidDocumentError,
    InvalidJsonError,
    InvalidPathError,
    InvalidPolicyError,
    InvalidRowError,
    LimitExceededError,
    LimitSettingError,
    LocatedError,
    PathLimitError,
    ScoreError,
    TooDeepError,
    UnknownNameError,
)
from ._groundcheck import (
    SCHEMA,
    Limits,
    Nearest,
    Policy,
    RefReport,
    Report,
    RunReport,
    Summary,
    Verdict,
    Verifier,
    __version__,
    _loads,
    _resolve,
    _verify_batch,
)
from ._types import LimitName, Outcome, ReadAs, Reason, Rung, Source, Status, WarningName

__all__ = [
    "SCHEMA",
    "DuplicateIdError",
    "GroundcheckError",
    "InternalError",
    "InvalidBundleError",
    "InvalidDocumentError",
    "InvalidJsonError",
    "InvalidPathError",
    "InvalidPolicyError",
    "InvalidRowError",
    "LimitExceededError",
    "LimitSettingError",
    "LocatedError",
    "PathLimitError",
    "ScoreError",
    "TooDeepError",
    "UnknownNameError",
    "LimitName",
    "Limits",
    "Nearest",
    "Outcome",
    "Policy",
    "ReadAs",
    "Reason",
    "RefReport",
    "Report",
    "ResolvedNode",
    "Rung",
    "RunReport",
    "Source",
    "Status",
    "Summary",
    "Verdict",
    "Verifier",
    "WarningName",
    "__version__",
    "resolve",
    "verify_bundle",
    "verify_batch",
    "verify_bundle_json",
    "verify_invocation",
    "verify_run",
]

@dataclass(frozen=True)
class ResolvedNode:
    """A node a path selects: its RFC 9535 normalized path, its value, whether it was
    selected on the expanded view (inside a string that holds JSON), and, for a text that is
    not JSON, the structured view it was selected on (``json_lines`` or ``yaml``)."""

    path: str
    value: Any
    descended: bool = False
    read_as: ReadAs | None = None


# The verifier of the module's functions under the default policy: built once, so its
# compiled paths are shared by every call.
_DEFAULT = Verifier()


def _verifier(policy: Policy | None) -> Verifier:
    return _DEFAULT if policy is None else Verifier(policy)


def verify_invocation(row: Mapping[str, Any], policy: Policy | None = None) -> Verdict:
    """The verdict of one ``tool_invocation`` row under ``policy`` (the default when
    ``None``).

    A ``raw_output`` given as ``str``, ``bytes``, ``bytearray`` or ``memoryview`` is the
    output's exact text, read as ``raw_output_text`` is (JSON, else JSON Lines or YAML, else
    one string) — how PyMySQL, ``sqlite3`` and psycopg with text loaders return a JSON
    column; any other value is a parsed JSON value; ``None`` is no raw output."""
    return _verifier(policy).verify_invocation(row)


def verify_run(rows: Iterable[Mapping[str, Any]], policy: Policy | None = None) -> Report:
    """The report of rows grouped into runs, verified in parallel with the GIL released."""
    return _verifier(policy).verify_run(rows)


def verify_batch(batch: Any, policy: Policy | None = None, *, verifier: Verifier | None = None) -> Any:
    """The verdicts of an Arrow table or record batch of ``tool_invocation`` rows: anything
    with ``__arrow_c_stream__`` or ``__arrow_c_array__`` (pyarrow, polars, DuckDB, Spark's
    ``mapInArrow``, Ray Data's ``map_batches``), read from its buffers with the GIL released
    and verified in parallel, under ``policy`` (the default when ``None``) or by ``verifier``
    (its policy, ``raw_outputs`` template and threads).

    Columns are the table's (``id`` and ``tool_name`` required) plus ``raw_output`` or
    ``raw_output_text``, the output's text; JSON columns are their text, a null is absent.
    Returns an Arrow record batch (``pyarrow.record_batch(result)`` takes it), one row per
    invocation in input order: ``id``, ``run_id``, ``session_id``, ``status``, ``reason``,
    ``claimed_status``, ``claim_agrees``, ``refs`` (the report's ref objects as JSON text).
    Rows are grouped into runs as ``verify_run`` groups them: keep a run's rows in one call.
    A column of the wrong Arrow type, an unknown or missing required column, or a bad value
    raise ``InvalidRowError`` whose ``field`` names the column."""
    if verifier is not None and policy is not None:
        raise InvalidPolicyError("give a policy or a verifier, not both")
    return _verify_batch(verifier if verifier is not None else _verifier(policy), batch)


def verify_bundle(path: str | os.PathLike[str], policy: Policy | None = None) -> Report:
    """The report of a bundle file, as ``groundcheck verify --format json`` prints it."""
    return _verifier(policy).verify_bundle(path)


def verify_bundle_json(text: str | bytes, policy: Policy | None = None) -> Report:
    """The report of bundle text."""
    return _verifier(policy).verify_bundle_json(text)


def resolve(document: Any, path: str, limits: Limits | None = None) -> list[ResolvedNode]:
    """The nodes ``path`` selects in ``document``, exactly as ``groundcheck resolve`` finds
    them: RFC 9535 JSONPath, the RFC 6901 JSON Pointer fallback, then the expanded view of
    strings holding JSON. A ``str`` is a tool output's text, read as verification reads one:
    JSON, else (when the path selects nothing in the text as one string) its JSON Lines or
    YAML view; any other value is a JSON-like value.

    ``limits`` (the defaults when ``None``) bound it as they bound a verification: a path
    that would select more than ``max_nodes`` nodes, a longer path, a larger text or answer,
    a deeper document raise ``LimitExceededError``, whose ``limit`` names the bound."""
    return [ResolvedNode(p, _loads(v), d, r) for p, v, d, r in _resolve(document, path, limits)]
