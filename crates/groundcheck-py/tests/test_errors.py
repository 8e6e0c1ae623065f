"""groundcheck's exceptions: one class per kind of the engine's error, each raised by a real
call, under the class that was raised for it before, with where the problem is.

The kinds and their classes are the extension's table (``src/errors.rs``, ``CLASSES``), read
here from the source: a class added there and not here, not exported, not documented, or not
raised by any call fails a test."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable

import pytest

import groundcheck
from groundcheck import _errors

ROOT = Path(__file__).resolve().parents[3]
TABLE = (ROOT / "crates" / "groundcheck-py" / "src" / "errors.rs").read_text()
KINDS = dict(re.findall(r'^\s*\("([a-z_]+)", "([A-Za-z]+)"\),$', TABLE.split("pub const CLASSES", 1)[1], re.M))
# Every spelling of the core's ErrorKind::as_str, read from the core's source as well: the Rust
# test of the table runs only with `cargo test -p groundcheck-py --lib`.
CORE = (ROOT / "crates" / "groundcheck-core" / "src" / "error.rs").read_text()
CORE_KINDS = set(re.findall(r'ErrorKind::\w+(?:\(_\))? => "([a-z_]+)",', CORE))


def row(id: int = 1, **columns: Any) -> dict[str, Any]:
    return {"id": id, "tool_name": "query_logs", "raw_output": {"a": 1}, **columns}


# One real call per kind: the class it raises, the class raised for it before there was one per
# kind (every `except` written for that one still catches it), and attributes it carries.
RAISED: dict[str, tuple[Callable[[], object], type[Exception], dict[str, object]]] = {
    "json": (
        lambda: groundcheck.resolve("{not json", "$"),
        groundcheck.InvalidDocumentError,
        {"line": 1, "column": 2, "offset": 1},
    ),
    "bundle": (
        lambda: groundcheck.verify_bundle_json('{"invocations": [{"id": "7", "tool_name": "q"}]}'),
        groundcheck.InvalidBundleError,
        {"place": "$.invocations[0].id", "invocation": 0, "field": "id"},
    ),
    "path": (
        lambda: groundcheck.resolve({"a": 1}, "$.a/b"),
        groundcheck.InvalidPathError,
        {"line": 1, "column": 4, "offset": 3},
    ),
    "path_limit": (
        lambda: groundcheck.resolve({"a": 1}, "$" + "[?(" * 20 + "@.a" + ")]" * 20),
        groundcheck.LimitExceededError,
        {"limit": "path_length", "line": 1},
    ),
    "too_deep": (
        lambda: groundcheck.resolve("[" * 2000 + "]" * 2000, "$..a"),
        groundcheck.LimitExceededError,
        {"limit": "depth"},
    ),
    "over_limit": (
        lambda: groundcheck.resolve({"a": [1, 2, 3]}, "$.a[*]", limits=groundcheck.Limits(max_nodes=1)),
        groundcheck.LimitExceededError,
        {"limit": "nodes"},
    ),
    "duplicate_id": (
        lambda: groundcheck.verify_run([row(1), row(2), row(1)]),
        groundcheck.InvalidBundleError,
        {"invocation": 2, "field": "id"},
    ),
    "unknown_name": (
        lambda: groundcheck.Policy(match="fuzzzy"),
        groundcheck.InvalidPolicyError,
        {"place": None, "field": None},
    ),
    "score": (
        lambda: groundcheck.Policy(min_score="0"),
        groundcheck.InvalidPolicyError,
        {"place": "min_score", "field": "min_score"},
    ),
    "limit": (
        lambda: groundcheck.Limits(max_depth=0),
        groundcheck.InvalidPolicyError,
        {"place": "max_depth", "field": "max_depth"},
    ),
    "row": (
        lambda: groundcheck.verify_run([row(1), {"id": 2}]),
        groundcheck.InvalidRowError,
        {"invocation": 1, "field": "tool_name"},
    ),
}


def test_the_table_names_every_kind_and_a_class_each() -> None:
    assert len(CORE_KINDS) >= 11, CORE_KINDS
    assert sorted(KINDS) == sorted(CORE_KINDS) == sorted(RAISED)
    assert len(set(KINDS.values())) == len(KINDS)


@pytest.mark.parametrize("kind", sorted(RAISED))
def test_each_kind_is_raised_as_its_class_and_as_the_class_it_was(kind: str) -> None:
    call, before, attributes = RAISED[kind]
    cls = getattr(groundcheck, KINDS[kind])
    with pytest.raises(cls) as raised:
        call()
    assert type(raised.value) is cls
    assert isinstance(raised.value, before)
    assert isinstance(raised.value, (groundcheck.LocatedError, ValueError, groundcheck.GroundcheckError))
    assert {name: getattr(raised.value, name) for name in attributes} == attributes


def test_a_repeated_id_is_a_row_error_and_still_a_bundle_error() -> None:
    # A repeated id among a run's rows has no bundle in it: DuplicateIdError is an
    # InvalidRowError, and an InvalidBundleError as it was raised before (and in a bundle).
    with pytest.raises(groundcheck.InvalidRowError) as in_rows:
        groundcheck.verify_run([row(i) for i in range(100)] + [row(3)])
    assert isinstance(in_rows.value, groundcheck.DuplicateIdError)
    assert (in_rows.value.invocation, in_rows.value.field) == (100, "id")
    assert str(in_rows.value) == "id 3 appears twice in run (none)"
    bundle = '{"invocations": [{"id": 1, "tool_name": "q"}, {"id": 1, "tool_name": "q"}]}'
    with pytest.raises(groundcheck.DuplicateIdError) as in_bundle:
        groundcheck.verify_bundle_json(bundle)
    assert isinstance(in_bundle.value, groundcheck.InvalidBundleError)
    assert in_bundle.value.invocation == 1


def test_messages_are_as_they_were() -> None:
    with pytest.raises(groundcheck.InvalidJsonError, match=r"^document: line 1, column 2: unexpected character 'n'$"):
        groundcheck.resolve("{not json", "$")
    with pytest.raises(groundcheck.InvalidJsonError, match=r"^document: "):
        groundcheck.resolve("plain words, not a map", "$.a")
    with pytest.raises(groundcheck.ScoreError, match=r"^min_score: must be above 0$"):
        groundcheck.Policy(min_score="0")
    with pytest.raises(groundcheck.InvalidRowError, match=r"^row 1, tool_name: "):
        groundcheck.verify_run([row(1), {"id": 2}])


def test_located_errors_declare_their_attributes_once() -> None:
    located = ("place", "line", "column", "offset", "invocation", "field")
    for name in located:
        assert name in groundcheck.LocatedError.__annotations__
    for cls in set(KINDS.values()) | {"InvalidDocumentError", "InvalidPolicyError", "LimitExceededError"}:
        error_class = getattr(groundcheck, cls)
        assert issubclass(error_class, groundcheck.LocatedError)
        assert issubclass(error_class, ValueError)
        for name in located:
            # declared on the base alone (LimitExceededError adds `limit`)
            assert name not in vars(error_class).get("__annotations__", {}), (cls, name)
    error = groundcheck.ScoreError("x")
    assert all(getattr(error, name) is None for name in located)


def test_every_class_is_exported_documented_and_raised() -> None:
    classes = [
        value
        for value in vars(_errors).values()
        if isinstance(value, type) and issubclass(value, Exception) and value.__module__ == _errors.__name__
    ]
    docs = (ROOT / "docs" / "python.md").read_text()
    raised = set(KINDS.values()) | {"InternalError"}
    bases = {"GroundcheckError", "LocatedError"}
    # Broader classes raised for input that is not one of the engine's kinds: a bundle that is
    # not str or bytes, a policy's thread count, a resolve document that is not JSON-like.
    raised |= {"InvalidDocumentError", "InvalidPolicyError"}
    for cls in classes:
        assert cls.__name__ in groundcheck.__all__, cls
        assert getattr(groundcheck, cls.__name__) is cls
        assert (cls.__doc__ or "").strip(), cls
        assert f"`{cls.__name__}`" in docs, f"{cls.__name__} is not in docs/python.md"
        assert cls.__name__ in raised | bases, f"nothing raises {cls.__name__}"
    assert {cls.__name__ for cls in classes} == raised | bases
    with pytest.raises(groundcheck.InvalidDocumentError) as not_json_like:
        groundcheck.resolve({"a": object()}, "$")
    assert type(not_json_like.value) is groundcheck.InvalidDocumentError
    with pytest.raises(groundcheck.InvalidPolicyError) as threads:
        groundcheck.Verifier(threads=0)
    assert type(threads.value) is groundcheck.InvalidPolicyError
