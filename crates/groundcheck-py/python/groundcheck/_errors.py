"""The exceptions groundcheck raises: one class per kind of failure of the engine, all under
`GroundcheckError`; the ones about bad input are also `ValueError`s and carry where the problem
is (`LocatedError`).

A kind's class sits under the broader class that was raised for it before there was one per
kind, so an ``except`` written for the broader class still catches it:

- ``InvalidJsonError`` is an ``InvalidDocumentError`` (a ``resolve`` text that is not JSON);
- ``DuplicateIdError`` is an ``InvalidRowError`` (a repeated ``id`` among a run's rows) and
  also an ``InvalidBundleError`` (what it was raised as before, and what it is in a bundle);
- ``UnknownNameError``, ``ScoreError`` and ``LimitSettingError`` are ``InvalidPolicyError``s;
- ``PathLimitError`` and ``TooDeepError`` are ``LimitExceededError``s."""

from __future__ import annotations


class GroundcheckError(Exception):
    """Every error groundcheck raises."""


class LocatedError(GroundcheckError, ValueError):
    """Bad input, and where it is, as far as the engine knows (``None`` where it does not):

    ``place``, the JSON location inside a bundle (``$.invocations[2].id``) or the policy
    setting given a bad value (``min_score``, ``max_depth``); ``line``, ``column`` (1-based,
    in characters) and ``offset`` (in bytes) inside the text that is wrong (a bundle's text, a
    path, a ``resolve`` document); ``invocation``, which row (counted from 0 in the order
    given) or which of a bundle's invocations; ``field``, which column of it (``id``,
    ``raw_output``) or which policy setting."""

    place: str | None = None
    line: int | None = None
    column: int | None = None
    offset: int | None = None
    invocation: int | None = None
    field: str | None = None


class InvalidRowError(LocatedError):
    """A row that cannot be read: a missing ``id``, a wrong type, a value that is not
    JSON-like. ``field`` names the column (``retrieval_details``, ``raw_output``, …) and
    ``invocation`` the row's position in a run."""


class InvalidBundleError(LocatedError):
    """Bundle text or a bundle file that is not a valid bundle. ``place`` is the JSON
    location inside the bundle (``$.invocations[2].id``), ``line`` and ``column`` where the
    text itself is wrong."""


class InvalidPathError(LocatedError):
    """A path that is neither RFC 9535 JSONPath nor an RFC 6901 JSON Pointer. ``column`` is
    the offending character (1-based), ``offset`` its byte."""


class InvalidPolicyError(LocatedError):
    """A policy or limit that cannot be used: an unknown ``require`` or ``match``, a
    ``min_score`` outside 0.001–1, a limit below 1, a thread count or template out of range."""


class InvalidDocumentError(LocatedError):
    """A document given to `resolve` that is not JSON (text) or not JSON-like (an object)."""


class LimitExceededError(LocatedError):
    """A `resolve` stopped by one of the limits a verification is held to: ``limit`` names it
    (``nodes``, ``output_size``, ``path_length`` or ``depth``; a verification reports the same
    names in ``RefReport.limit``), so a caller knows which bound would let it through."""

    limit: str | None = None


class InvalidJsonError(InvalidDocumentError):
    """A `resolve` text that is not JSON, nor JSON Lines or YAML with a view to query;
    ``line``, ``column`` and ``offset`` say where it stops being JSON."""


class DuplicateIdError(InvalidRowError, InvalidBundleError):
    """An ``id`` seen twice in one run: ``invocation`` is the second row (or bundle
    invocation) with it, ``field`` is ``"id"``. Also an ``InvalidBundleError``, the class a
    repeated ``id`` was raised as before it had its own, and what it is in a bundle."""


class UnknownNameError(InvalidPolicyError):
    """A text that is not one of a setting's names: ``Policy(match="fuzzzy")``,
    ``Policy(require="some")``."""


class ScoreError(InvalidPolicyError):
    """A ``min_score`` that is not a score (a number above 0 and at most 1); ``place`` and
    ``field`` are ``"min_score"``."""


class LimitSettingError(InvalidPolicyError):
    """A limit set below 1 (``Limits(max_depth=0)``); ``place`` and ``field`` name the setting
    (``max_depth``)."""


class PathLimitError(LimitExceededError):
    """A path that may be valid JSONPath but is not run: its filters or parentheses are
    nested deeper than the engine runs. ``limit`` is ``path_length``, ``column`` where it
    passes the limit."""


class TooDeepError(LimitExceededError):
    """A JSONPath query on a document nested deeper than it may be: ``limit`` is ``depth``."""


class InternalError(GroundcheckError):
    """A bug in groundcheck, caught at the boundary (a Rust panic): the interpreter goes on.
    Please report the input."""
