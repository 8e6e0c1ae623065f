"""The exceptions groundcheck raises: one class per kind of failure, all under
`GroundcheckError`; the ones about bad input are also `ValueError`s."""

from __future__ import annotations


class GroundcheckError(Exception):
    """Every error groundcheck raises."""


class InvalidRowError(GroundcheckError, ValueError):
    """A row that cannot be read: a missing ``id``, a wrong type, a value that is not
    JSON-like. ``field`` names the column (``retrieval_details``, ``raw_output``, …)."""

    field: str | None = None


class InvalidBundleError(GroundcheckError, ValueError):
    """Bundle text or a bundle file that is not a valid bundle. ``place`` is the JSON
    location inside the bundle (``$.invocations[2].id``), ``line`` and ``column`` where the
    text itself is wrong."""

    place: str | None = None
    line: int | None = None
    column: int | None = None
    offset: int | None = None


class InvalidPathError(GroundcheckError, ValueError):
    """A path that is neither RFC 9535 JSONPath nor an RFC 6901 JSON Pointer, or one past a
    limit. ``column`` is the offending character (1-based), ``offset`` its byte."""

    place: str | None = None
    line: int | None = None
    column: int | None = None
    offset: int | None = None


class InvalidPolicyError(GroundcheckError, ValueError):
    """A policy or limit that cannot be used: an unknown ``require`` or ``match``, a
    ``min_score`` outside 0.001–1, a limit below 1."""

    place: str | None = None
    line: int | None = None
    column: int | None = None
    offset: int | None = None


class LimitExceededError(GroundcheckError, ValueError):
    """A `resolve` stopped by one of the limits a verification is held to: ``limit`` names it
    (``nodes``, ``output_size``, ``path_length`` or ``depth``; a verification reports the same
    names in ``RefReport.limit``), so a caller knows which bound would let it through."""

    limit: str | None = None
    place: str | None = None
    line: int | None = None
    column: int | None = None
    offset: int | None = None


class InternalError(GroundcheckError):
    """A bug in groundcheck, caught at the boundary (a Rust panic): the interpreter goes on.
    Please report the input."""


class InvalidDocumentError(GroundcheckError, ValueError):
    """A document given to `resolve` that is not JSON (text) or not JSON-like (an object)."""

    place: str | None = None
    line: int | None = None
    column: int | None = None
    offset: int | None = None
