"""groundcheck from Python: the same verdicts as the command line, typed results, errors as
Python users expect them, and no input that crashes or hangs the interpreter.

The command line under comparison is ``GROUNDCHECK_BIN`` (``scripts/test.sh`` sets it to the
binary it built); the fixtures are the repository's own."""

from __future__ import annotations

import decimal
import json
import os
import sqlite3
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

import groundcheck

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = sorted((ROOT / "fixtures").glob("*.json"))
# Every shipped bundle, as the Java suite reads them: the hostile corpus and the agents' runs too.
ALL_FIXTURES = FIXTURES + sorted((ROOT / "fixtures" / "agent-runs").glob("*.json")) + sorted(
    (ROOT / "fixtures" / "hostile").glob("*.json")
)
BIN = os.environ.get("GROUNDCHECK_BIN", str(ROOT / "target" / "debug" / "groundcheck"))


def cli(*args: str, cwd: Path | None = None) -> str:
    done = subprocess.run([BIN, *args], capture_output=True, text=True, cwd=cwd)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def row(**columns: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": 1,
        "tool_name": "query_logs",
        "retrieval_details": {
            "evidence_status": "supported",
            "evidence_refs": [{"raw_path": "$.logs[0].message", "text": "connection refused"}],
        },
        "raw_output": {"logs": [{"message": "dial tcp 10.0.0.7:5432: connection refused"}]},
    }
    base.update(columns)
    return base


# --------------------------------------------------------------------------------------------
# The command line's verdicts
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fixture", ALL_FIXTURES, ids=[f"{f.parent.name}/{f.name}" for f in ALL_FIXTURES])
def test_every_fixture_is_the_cli_report_byte_for_byte(fixture: Path) -> None:
    expected = cli("verify", "--format", "json", str(fixture))
    report = groundcheck.verify_bundle(fixture)
    assert report.to_json() == expected
    assert groundcheck.verify_bundle_json(fixture.read_bytes()).to_json() == expected
    # Each verdict's own JSON is the report's object for it.
    objects = [v for run in json.loads(expected)["runs"] for v in run["invocations"]]
    assert [json.loads(v.to_json()) for run in report.runs for v in run.invocations] == objects


def test_the_hostile_and_agent_run_fixtures_are_read() -> None:
    names = {f"{f.parent.name}/{f.name}" for f in ALL_FIXTURES}
    assert "agent-runs/run-20261130-order-5xx.json" in names
    assert sum(n.startswith("hostile/") for n in names) >= 16


def test_fixtures_exist() -> None:
    assert len(FIXTURES) >= 25


@pytest.mark.parametrize("match", ["exact", "normalized", "fuzzy"])
def test_a_policy_gives_the_cli_report_under_the_same_flags(match: str) -> None:
    fixture = ROOT / "fixtures" / "16_policy_sensitivity_cpu_throttling.json"
    policy = groundcheck.Policy(require="any", match=match, min_score="0.8")
    expected = cli("verify", "--format", "json", "--require", "any", "--match", match, "--min-score", "0.8", str(fixture))
    assert groundcheck.verify_bundle(fixture, policy=policy).to_json() == expected
    assert groundcheck.verify_bundle_json(fixture.read_bytes(), policy=policy).to_json() == expected


def test_rows_read_with_sqlite3_give_the_run_command_s_verdicts(tmp_path: Path) -> None:
    db = tmp_path / "gc.db"
    cli("import", "--database", f"sqlite://{db}", str(ROOT / "fixtures"), cwd=tmp_path)
    connection = sqlite3.connect(db)
    connection.row_factory = sqlite3.Row
    rows = [
        {**dict(r), "raw_output_text": r["raw_output"]}
        for r in connection.execute(
            "SELECT t.*, o.raw_output FROM tool_invocation t "
            "LEFT JOIN tool_invocation_output o ON o.invocation_id = t.id ORDER BY t.id"
        )
    ]
    for r in rows:
        del r["raw_output"]
    run_ids = sorted({r["run_id"] for r in rows if r["run_id"] is not None})
    expected = json.loads(cli("run", "--database", f"sqlite://{db}", "--format", "json", *run_ids, cwd=tmp_path))
    got = groundcheck.verify_run(r for r in rows if r["run_id"] is not None)
    by_id = {v["id"]: v for run in expected["runs"] for v in run["invocations"]}
    verdicts = [v for run in got.runs for v in run.invocations]
    assert len(verdicts) == len(by_id) > 100
    for verdict in verdicts:
        assert verdict.to_dict() == by_id[verdict.id], verdict.id


def fixture_rows(fixture: Path) -> list[dict[str, Any]]:
    """A bundle's invocations as the rows a Python program holds, the bundle's defaults
    applied."""
    bundle = json.loads(fixture.read_text(), parse_float=decimal.Decimal, parse_int=int)
    rows = []
    for invocation in bundle["invocations"]:
        for key in ("run_id", "session_id"):
            if invocation.get(key) is None and bundle.get(key) is not None:
                invocation[key] = bundle[key]
        rows.append(invocation)
    return rows


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f.name for f in FIXTURES])
def test_every_fixture_s_rows_as_dicts_give_the_cli_report(fixture: Path) -> None:
    # Numbers read as Decimal keep their text, as the engine keeps numbers as written.
    assert groundcheck.verify_run(fixture_rows(fixture)).to_json() == cli("verify", "--format", "json", str(fixture))


@pytest.mark.parametrize("threads", [1, 2])
def test_a_verifier_on_its_own_threads_gives_the_same_report(threads: int) -> None:
    # The calling thread alone (1) and a pool of the verifier's own (2), on every fixture's
    # rows (chunks of many rows) and on a bundle.
    verifier = groundcheck.Verifier(threads=threads)
    assert verifier.threads == threads
    assert repr(verifier).endswith(f", threads={threads})")
    rows = [r for fixture in FIXTURES for r in fixture_rows(fixture)]
    assert verifier.verify_run(rows) == groundcheck.verify_run(rows)
    assert verifier.verify_run(rows).to_json() == groundcheck.verify_run(rows).to_json()
    fixture = FIXTURES[0]
    assert verifier.verify_bundle(fixture).to_json() == cli("verify", "--format", "json", str(fixture))
    assert groundcheck.Verifier().threads is None


@pytest.mark.parametrize("threads", [0, -1, 10_000])
def test_a_thread_count_out_of_range_is_an_invalid_policy(threads: int) -> None:
    with pytest.raises(groundcheck.InvalidPolicyError, match="threads"):
        groundcheck.Verifier(threads=threads)


@pytest.mark.parametrize("threads", [None, 1])
def test_a_run_s_errors_are_found_in_any_chunk(threads: int | None) -> None:
    verifier = groundcheck.Verifier(threads=threads)
    rows = [row(id=i) for i in range(100)]
    with pytest.raises(groundcheck.InvalidRowError, match=r"^row 70, tool_name: "):
        verifier.verify_run(rows[:70] + [row(id=70, tool_name=None)] + rows[70:])
    # A repeated id is found after every row is read, as the command line finds it.
    with pytest.raises(groundcheck.GroundcheckError, match="id 3 appears twice"):
        verifier.verify_run(rows + [row(id=3)])
    assert verifier.verify_run(rows).runs[0].summary.invocations == 100


# --------------------------------------------------------------------------------------------
# Rows as Python holds them
# --------------------------------------------------------------------------------------------


def test_columns_as_drivers_return_them() -> None:
    as_driver = row(
        id=decimal.Decimal("7"),
        success=1,
        is_truncated=0,
        output_length=12,
        input_params=b'{"query": "{app=\\"order\\"}"}',
        retrieval_details=json.dumps(row()["retrieval_details"]).encode(),
    )
    verdict = groundcheck.verify_invocation(as_driver)
    assert (verdict.id, verdict.status, verdict.reason) == (7, "supported", "verified")
    # A JSON column's text that is not JSON is a string of that text, as the store reads it.
    assert groundcheck.verify_invocation(row(retrieval_details="not json")).reason == "malformed_details"


@pytest.mark.parametrize(
    ("columns", "field", "says"),
    [
        ({"id": None}, "id", "required integer is missing"),
        ({"id": True}, "id", "must be an int or None, not bool"),
        ({"id": 2**63}, "id", "not an integer within BIGINT"),
        ({"id": decimal.Decimal("1.5")}, "id", "1.5 is not an integer"),
        ({"output_length": 2**31}, "output_length", "not an integer within INT"),
        ({"success": 2}, "success", "must be True, False, 0, 1 or None, not int"),
        ({"tool_name": b"q"}, "tool_name", "must be a str or None, not bytes"),
        ({"rawPath": "$"}, "rawPath", "unknown key"),
        ({"raw_output_text": "{}"}, "raw_output", "both given"),
        ({"created_at": 1.5}, "created_at", "must be a str or None, not float"),
        ({"retrieval_details": "\ud800"}, "retrieval_details", "lone surrogate"),
    ],
)
def test_a_row_error_names_its_field(columns: dict[str, Any], field: str, says: str) -> None:
    with pytest.raises(groundcheck.InvalidRowError, match=says) as error:
        groundcheck.verify_invocation(row(**columns))
    assert error.value.field == field
    assert str(error.value).startswith(f"{field}: ")


def test_a_row_error_in_a_run_names_the_row_too() -> None:
    with pytest.raises(groundcheck.InvalidRowError, match=r"^row 2, tool_name: ") as error:
        groundcheck.verify_run([row(id=1), row(id=2), row(id=3, tool_name=None)])
    assert error.value.field == "tool_name"
    with pytest.raises(groundcheck.InvalidRowError, match="a row is a mapping"):
        groundcheck.verify_run([row(), ["id", 1]])  # type: ignore[list-item]


def test_python_code_a_value_runs_cannot_change_what_is_read() -> None:
    output: dict[str, Any] = {"logs": [{"message": "dial tcp: connection refused"}]}

    class Meddling(decimal.Decimal):
        def __str__(self) -> str:
            output.clear()
            output["logs"] = "gone"
            return "1"

    output["took"] = Meddling("1")
    verdict = groundcheck.verify_invocation(row(raw_output=output))
    assert verdict.status == "supported"


def test_retrieval_details_as_json_text_and_a_datetime_created_at() -> None:
    import datetime

    details = json.dumps(row()["retrieval_details"])
    created = datetime.datetime(2026, 11, 30, 10, 0, 1, tzinfo=datetime.timezone.utc)
    verdict = groundcheck.verify_invocation(row(retrieval_details=details, created_at=created))
    assert (verdict.status, verdict.reason, verdict.claim_agrees) == ("supported", "verified", True)


def test_a_decimal_keeps_its_text_as_written() -> None:
    details = {"evidence_refs": [{"raw_path": "$.ratio", "text": "0.950"}]}
    assert groundcheck.verify_invocation(row(retrieval_details=details, raw_output={"ratio": decimal.Decimal("0.950")})).status == "supported"
    # A float has no such text: 0.95 is written 0.95, so "0.950" is not in it.
    assert groundcheck.verify_invocation(row(retrieval_details=details, raw_output={"ratio": 0.95})).status == "unsupported"


def outputs_of_every_size_and_kind() -> list[Any]:
    """Raw outputs a row may give as values, small and large, with strings that need escaping
    in JSON text, numbers of every kind, tuples, empty containers and nesting."""
    awkward = 'say "no" \\ back\\slash\ttab\nline\x00nul\x1f é ☃ 🎉 \u2028'
    small: dict[str, Any] = {
        "logs": [{"message": awkward, "n": -12, "big": 10**30, "ratio": decimal.Decimal("0.950"), "f": 1e16}],
        "empty": [{}, [], ()],
        "flags": (True, False, None),
    }
    large = {"logs": [{"ts": f"2026-11-30T10:00:{i % 60:02}Z", "message": f"{awkward} #{i}"} for i in range(400)]}
    deep: Any = awkward
    for _ in range(40):
        deep = {"d": [deep]}
    return [small, large, {"deep": deep, "pad": "x" * 20_000}, [awkward] * 3, awkward, 7]


@pytest.mark.parametrize("output", outputs_of_every_size_and_kind(), ids=["small", "large", "deep", "list", "string", "number"])
def test_a_raw_output_value_verifies_as_the_same_value_in_a_bundle(output: Any) -> None:
    # Built from Python objects, the value verifies as the bundle's inline raw_output: the
    # same refs found at the same paths, the same misses.
    paths = ["$.logs[0].message", "$.logs[399].message", "$.logs[*].ratio", "$..d[0]", "$[2]", "$", "$.nowhere"]
    quotes = ['say "no"', "\u2028", "0.950", "🎉 #399", "nul\x1f", "7", "absent text"]
    refs = [{"raw_path": p, "text": q} for p in paths for q in quotes]
    details = {"evidence_status": "supported", "evidence_refs": refs}
    policy = groundcheck.Policy(limits=groundcheck.Limits(max_refs=len(refs)))
    as_value = groundcheck.verify_invocation(row(retrieval_details=details, raw_output=output), policy=policy)
    bundle = {"invocations": [{"id": 1, "tool_name": "query_logs", "retrieval_details": details, "raw_output": output}]}
    # A Decimal written as its own text (json.dumps has no way to), through a marker.
    text = json.dumps(bundle, default=lambda d: f"<decimal {d}>").replace('"<decimal 0.950>"', "0.950")
    in_bundle = groundcheck.verify_bundle_json(text, policy=policy).runs[0].invocations[0]
    assert as_value.to_json() == in_bundle.to_json()


def test_a_raw_output_value_is_not_bound_by_max_output_bytes_whatever_its_size() -> None:
    # As a bundle's inline raw_output: the limit is on text the engine is given, and a value
    # is not text. Given as text, the same output is over the limit.
    policy = groundcheck.Policy(limits=groundcheck.Limits(max_output_bytes=100))
    for output in outputs_of_every_size_and_kind()[:2]:
        details = {"evidence_refs": [{"raw_path": "$.logs[0].message", "text": 'say "no"'}]}
        verdict = groundcheck.verify_invocation(row(retrieval_details=details, raw_output=output), policy=policy)
        assert verdict.status == "supported"
        text = row(retrieval_details=details, raw_output_text=json.dumps(output, default=str))
        del text["raw_output"]
        assert groundcheck.verify_invocation(text, policy=policy).refs[0].limit == "output_size"


def test_a_number_whose_text_is_not_json_is_refused_in_a_value_of_any_size() -> None:
    class Odd(decimal.Decimal):
        def __str__(self) -> str:
            return "0x1F"

    for output in ({"x": Odd(1)}, {"x": Odd(1), "pad": ["y" * 100] * 100}):
        with pytest.raises(groundcheck.InvalidRowError, match="raw_output: a number that is not a JSON number"):
            groundcheck.verify_invocation(row(raw_output=output))


@pytest.mark.parametrize("threads", [None, 1, 2])
def test_the_strs_a_row_is_read_from_are_let_go(threads: int | None) -> None:
    # The raw output's text is shared with its str, not copied; the binding gives every
    # reference back, whichever thread verified the row.
    import sys

    verifier = groundcheck.Verifier(threads=threads)
    texts = [json.dumps({"logs": [{"message": f"connection refused {i}" + "." * (i * 97)}]}) for i in range(70)]
    details = json.dumps({"evidence_refs": [{"raw_path": "$.logs[0].message", "text": "connection refused"}]})
    rows = [{"id": i, "tool_name": "t", "run_id": "r", "retrieval_details": details, "raw_output_text": t} for i, t in enumerate(texts)]
    before = [sys.getrefcount(t) for t in texts] + [sys.getrefcount(details)]
    for _ in range(3):
        report = verifier.verify_run(rows)
        assert report.runs[0].summary.supported == len(rows)
        for r in rows:
            assert verifier.verify_invocation(r).status == "supported"
    del report
    assert [sys.getrefcount(t) for t in texts] + [sys.getrefcount(details)] == before


def test_a_float_is_written_as_python_s_repr_writes_it() -> None:
    # The binding writes a float's text itself; it must be repr's, digit for digit: random
    # bit patterns (every exponent), and the edges of repr's layout and of the format.
    import random
    import struct

    rng = random.Random(26)
    floats = [struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0] for _ in range(100_000)]
    floats += [rng.uniform(-1e6, 1e6) for _ in range(20_000)] + [rng.random() for _ in range(20_000)]
    floats += [0.0, -0.0, 1.0, -1.0, 0.1, 0.95, 1e15, 1e16, 9999999999999998.0, 1e-4, 1e-5, 0.00012345, 5e-324,
               2.2250738585072014e-308, 1.7976931348623157e308, 2.0**53, 2.0**53 + 2, 123456789012345680.0, 1/3]
    floats = [f for f in floats if f == f and abs(f) != float("inf")]
    from groundcheck._groundcheck import _resolve

    for start in range(0, len(floats), 1000):
        some = floats[start : start + 1000]
        assert [text for _, text, _, _ in _resolve(some, "$[*]")] == [repr(f) for f in some]


def test_yaml_and_json_lines_outputs_are_read_on_their_view() -> None:
    pod = "status:\n  containerStatuses:\n  - lastState:\n      terminated:\n        exitCode: 137\n        reason: OOMKilled\n"
    refs = {"evidence_refs": [{"raw_path": "$.status.containerStatuses[0].lastState.terminated.exitCode", "text": "137"}]}
    verdict = groundcheck.verify_invocation(row(raw_output=None, raw_output_text=pod, retrieval_details=refs))
    assert (verdict.status, verdict.warnings) == ("supported", ("read_as_yaml",))
    assert verdict.refs[0].matched_path == "$['status']['containerStatuses'][0]['lastState']['terminated']['exitCode']"
    logs = '{"level":"info","msg":"starting"}\n{"level":"error","msg":"connection refused"}\n'
    nodes = groundcheck.resolve(logs, "$[1].msg")
    assert nodes == [groundcheck.ResolvedNode("$[1]['msg']", "connection refused", False, "json_lines")]
    # A scalar keeps its text: no type resolution in the view.
    assert groundcheck.resolve(pod, "$..exitCode")[0].value == "137"
    # `$` is decided on the text as one string; text that only looks like `key: value` has a view.
    assert groundcheck.resolve("ERROR: connection refused", "$")[0].value == "ERROR: connection refused"
    assert groundcheck.resolve("ERROR: connection refused", "$.ERROR")[0].read_as == "yaml"
    # Plain text has no view: not a document to resolve in, as for the command line.
    with pytest.raises(groundcheck.InvalidDocumentError):
        groundcheck.resolve("plain words, not a map", "$.a")


def test_raw_output_text_and_a_mapping_that_is_not_a_dict() -> None:
    from types import MappingProxyType

    text = json.dumps(row()["raw_output"])
    verdict = groundcheck.verify_invocation(MappingProxyType(row(raw_output=None, raw_output_text=text)))
    assert verdict.status == "supported"


# --------------------------------------------------------------------------------------------
# A string is text: a raw output given as str or bytes is read as raw_output_text
# --------------------------------------------------------------------------------------------


def cli_verdicts(tmp_path: Path, invocations: list[dict[str, Any]]) -> dict[int, Any]:
    """The command line's verdict objects for a bundle of `invocations`, by id."""
    bundle = tmp_path / "bundle.json"
    bundle.write_text(json.dumps({"invocations": invocations}))
    return {v["id"]: v for run in json.loads(cli("verify", "--format", "json", str(bundle)))["runs"] for v in run["invocations"]}


def test_a_json_column_as_pymysql_returns_it_is_the_output_s_text(tmp_path: Path) -> None:
    # PyMySQL (and sqlite3, and JDBC's getString) hand a JSON column back as its text. Read as
    # a JSON string value, the quote '"OOMKilled' would match the JSON syntax's own quote
    # character in that text: a false `supported`. Read as the output's text, it is not there.
    text = '{"reason": "OOMKilled", "exitCode": 137}'
    refs = [{"raw_path": "$", "text": '"OOMKilled'}, {"raw_path": "$.reason", "text": "OOMKilled"}]
    details = {"evidence_status": "supported", "evidence_refs": refs}
    expected = cli_verdicts(tmp_path, [{"id": 1, "tool_name": "kubectl", "retrieval_details": details, "raw_output_text": text}])[1]
    for given in (text, text.encode(), bytearray(text.encode()), memoryview(text.encode())):
        verdict = groundcheck.verify_invocation({"id": 1, "tool_name": "kubectl", "retrieval_details": details, "raw_output": given})
        assert verdict.to_dict() == expected, type(given)
        assert (verdict.status, [r.outcome for r in verdict.refs]) == ("unsupported", ["text_not_found", "verified"])
    # raw_output_text takes the same bytes.
    as_text = {"id": 1, "tool_name": "kubectl", "retrieval_details": details, "raw_output_text": text.encode()}
    assert groundcheck.verify_invocation(as_text).to_dict() == expected
    # Text, it is bound by max_output_bytes, as raw_output_text is.
    small = groundcheck.Policy(limits=groundcheck.Limits(max_output_bytes=10))
    verdict = groundcheck.verify_invocation({"id": 1, "tool_name": "kubectl", "retrieval_details": details, "raw_output": text}, policy=small)
    assert verdict.refs[1].limit == "output_size"


RAW_TEXTS = {
    "json": '{"logs": [{"message": "dial tcp: connection refused"}], "ratio": 0.950}',
    "json_string": '"dial tcp: connection refused"',
    "json_lines": '{"level":"info","msg":"starting"}\n{"level":"error","msg":"connection refused"}\n',
    "yaml": "status:\n  phase: Failed\n  reason: connection refused\n",
    "plain": "ERROR 2026-11-30 dial tcp: connection refused",
    "empty": "",
    "null": "null",
}


@pytest.mark.parametrize("kind", sorted(RAW_TEXTS))
def test_a_raw_output_str_or_bytes_verifies_as_the_bundle_s_raw_output_text(tmp_path: Path, kind: str) -> None:
    text = RAW_TEXTS[kind]
    paths = ["$", "$.logs[0].message", "$.ratio", "$[1].msg", "$.status.reason", "$.nowhere"]
    quotes = ["connection refused", "0.950", '"dial', "null"]
    details = {"evidence_status": "supported", "evidence_refs": [{"raw_path": p, "text": q} for p in paths for q in quotes]}
    expected = cli_verdicts(tmp_path, [{"id": 1, "tool_name": "q", "retrieval_details": details, "raw_output_text": text}])[1]
    for given in (text, text.encode()):
        verdict = groundcheck.verify_invocation({"id": 1, "tool_name": "q", "retrieval_details": details, "raw_output": given})
        assert verdict.to_dict() == expected, (kind, type(given))
        as_text = {"id": 1, "tool_name": "q", "retrieval_details": details, "raw_output_text": given}
        assert groundcheck.verify_invocation(as_text).to_dict() == expected, (kind, type(given))
        # verify_run, and a Verifier on the calling thread, read it the same way.
        assert groundcheck.Verifier(threads=1).verify_run([as_text]).runs[0].invocations[0].to_dict() == expected


def test_a_parsed_value_stays_a_json_value(tmp_path: Path) -> None:
    # A dict, a list, a number, a bool: a JSON value, as a bundle's inline raw_output. A str
    # inside a value is a JSON string, not text to parse.
    details = {"evidence_refs": [{"raw_path": "$", "text": '"OOMKilled'}, {"raw_path": "$.s", "text": '"OOMKilled'}]}
    values = [{"s": '"OOMKilled" at 10:00'}, ['"OOMKilled"'], 137, decimal.Decimal("0.950"), True]
    invocations = [{"id": i, "tool_name": "q", "retrieval_details": details, "raw_output": v} for i, v in enumerate(values)]
    text = json.dumps({"invocations": invocations}, default=str).replace('"0.950"', "0.950")
    (tmp_path / "values.json").write_text(text)
    expected = {v["id"]: v for run in json.loads(cli("verify", "--format", "json", str(tmp_path / "values.json")))["runs"] for v in run["invocations"]}
    for invocation in invocations:
        assert groundcheck.verify_invocation(invocation).to_dict() == expected[invocation["id"]]
    # The quote is in the string's own text (a value), where a str given as the output's
    # text ('"OOMKilled" at 10:00' is one string) has it too, at `$` only.
    assert [r.outcome for r in groundcheck.verify_invocation(invocations[0]).refs] == ["verified", "verified"]


def test_none_is_no_raw_output_and_the_text_null_is_a_document(tmp_path: Path) -> None:
    # SQL NULL (None) is "no raw output", as a bundle's `"raw_output": null`; a JSON null
    # document is given as its text, "null".
    details = {"evidence_refs": [{"raw_path": "$", "text": "null"}]}
    expected = cli_verdicts(tmp_path, [
        {"id": 1, "tool_name": "q", "retrieval_details": details, "raw_output": None},
        {"id": 2, "tool_name": "q", "retrieval_details": details, "raw_output_text": "null"},
    ])
    for key in ("raw_output", "raw_output_text"):
        none = groundcheck.verify_invocation({"id": 1, "tool_name": "q", "retrieval_details": details, key: None})
        assert none.to_dict() == expected[1]
        assert none.refs[0].outcome == "raw_output_unavailable"
        null = groundcheck.verify_invocation({"id": 2, "tool_name": "q", "retrieval_details": details, key: "null"})
        assert null.to_dict() == expected[2]
        assert null.status == "supported"


def test_bytes_that_are_not_utf8_are_read_as_the_run_command_reads_the_column(tmp_path: Path) -> None:
    # A raw output, or a claim, stored as bytes that are not UTF-8 (a SQLite blob, a BLOB
    # column): decoded with U+FFFD and warned `invalid_utf8`, as `groundcheck run` does.
    db = tmp_path / "gc.db"
    bundle = tmp_path / "one.json"
    details = {"evidence_status": "supported", "evidence_refs": [{"raw_path": "$.state", "text": "OOMKilled"}]}
    bundle.write_text(json.dumps({"run_id": "r1", "session_id": "s1", "invocations": [
        {"id": 1, "tool_name": "q", "created_at": "2026-11-30T10:00:07Z", "raw_output_text": "{}", "retrieval_details": details},
        {"id": 2, "tool_name": "q", "created_at": "2026-11-30T10:00:08Z", "raw_output_text": '{"state": "OOMKilled"}', "retrieval_details": details},
    ]}))
    cli("import", "--database", f"sqlite://{db}", str(bundle), cwd=tmp_path)
    connection = sqlite3.connect(db)
    connection.execute("UPDATE tool_invocation_output SET raw_output = ? WHERE invocation_id = 1", (b'{"state": "OOMKilled\xff"}',))
    connection.execute("UPDATE tool_invocation SET retrieval_details = ? WHERE id = 2",
                       (json.dumps(details).encode().replace(b'"supported"', b'"supported\xfe"'),))
    connection.commit()
    connection.row_factory = sqlite3.Row
    rows = [dict(r) for r in connection.execute(
        "SELECT t.*, o.raw_output FROM tool_invocation t "
        "LEFT JOIN tool_invocation_output o ON o.invocation_id = t.id ORDER BY t.id")]
    assert isinstance(rows[0]["raw_output"], bytes) and isinstance(rows[1]["retrieval_details"], bytes)
    printed = cli("run", "--database", f"sqlite://{db}", "--format", "json", "r1", cwd=tmp_path)
    by_id = {v["id"]: v for run in json.loads(printed)["runs"] for v in run["invocations"]}
    assert [by_id[i]["warnings"] for i in (1, 2)] == [["invalid_utf8"], ["invalid_utf8"]]
    for r in rows:
        assert groundcheck.verify_invocation(r).to_dict() == by_id[r["id"]]
    assert groundcheck.verify_run(rows).to_json() == printed
    # A bytes value inside a parsed value is still not JSON-like.
    with pytest.raises(groundcheck.InvalidRowError, match="raw_output: .*not UTF-8"):
        groundcheck.verify_invocation(row(raw_output={"x": b"\xff"}))


def test_a_raw_output_text_that_is_not_text_names_its_field() -> None:
    with pytest.raises(groundcheck.InvalidRowError, match=r"^raw_output_text: must be a str, bytes or None, not int"):
        groundcheck.verify_invocation({"id": 1, "tool_name": "q", "raw_output_text": 7})
    with pytest.raises(groundcheck.InvalidRowError, match="both given"):
        groundcheck.verify_invocation({"id": 1, "tool_name": "q", "raw_output": "{}", "raw_output_text": b"{}"})


def test_results_are_typed_immutable_and_say_why() -> None:
    misquote = {"evidence_refs": [{"raw_path": "$.logs[0].message", "text": "connection refused by pear"}]}
    verdict = groundcheck.verify_invocation(row(retrieval_details=misquote))
    ref = verdict.refs[0]
    assert (verdict.status, verdict.reason, ref.outcome) == ("unsupported", "not_verified", "text_not_found")
    assert ref.nearest is not None and ref.nearest.path == "$['logs'][0]['message']"
    assert isinstance(ref.nearest.score, decimal.Decimal) and str(ref.nearest.score).count(".") == 1
    with pytest.raises(AttributeError):
        verdict.status = "supported"  # type: ignore[misc]
    assert "text_not_found" in repr(verdict) and "Nearest(score=Decimal(" in repr(verdict)
    assert ref.to_dict() == verdict.to_dict()["refs"][0] and json.loads(ref.to_json())["outcome"] == "text_not_found"
    # Equal results are equal, and hash alike.
    same = groundcheck.verify_invocation(row(retrieval_details=misquote))
    assert same == verdict and hash(same) == hash(verdict) and same.refs == verdict.refs
    assert same != groundcheck.verify_invocation(row())
    # The same verdict inside a report writes the same JSON (a score keeps its three decimals).
    again = groundcheck.verify_run([row(retrieval_details=misquote)])
    assert again.runs[0].invocations[0].to_json() == verdict.to_json()


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


def test_errors_have_a_class_per_kind_and_input_errors_are_value_errors() -> None:
    with pytest.raises(groundcheck.InvalidPolicyError):
        groundcheck.Policy(match="fuzzzy")
    with pytest.raises(groundcheck.InvalidPolicyError):
        groundcheck.Policy(min_score="0")
    with pytest.raises(groundcheck.InvalidPolicyError):
        groundcheck.Limits(max_depth=0)
    with pytest.raises(groundcheck.InvalidRowError) as bad_row:
        groundcheck.verify_invocation({"tool_name": "q"})
    assert isinstance(bad_row.value, ValueError)
    with pytest.raises(groundcheck.InvalidRowError, match="tool_name"):
        groundcheck.verify_invocation({"id": 1, "tool_name": 7})
    with pytest.raises(groundcheck.InvalidBundleError) as bad_bundle:
        groundcheck.verify_bundle_json('{"invocations": [}')
    assert (bad_bundle.value.line, bad_bundle.value.column) == (1, 18)
    with pytest.raises(groundcheck.InvalidPathError) as bad_path:
        groundcheck.resolve({"a": 1}, "$.a/b")
    assert bad_path.value.column == 4
    with pytest.raises(groundcheck.InvalidDocumentError):
        groundcheck.resolve("{not json", "$")
    for error in (groundcheck.InvalidRowError, groundcheck.InvalidBundleError, groundcheck.InternalError):
        assert issubclass(error, groundcheck.GroundcheckError)


def test_a_panic_inside_rust_is_an_internal_error_and_the_interpreter_goes_on() -> None:
    # The guard's own test; tests/test_safety.py makes every real entry point panic.
    with pytest.raises(groundcheck.InternalError, match="boom"):
        getattr(groundcheck._groundcheck, "_panic_for_test")("boom")
    assert not isinstance(groundcheck.InternalError("x"), BaseException) or issubclass(groundcheck.InternalError, Exception)
    assert groundcheck.verify_invocation(row()).status == "supported"


# --------------------------------------------------------------------------------------------
# Hostile input: a defined verdict or a typed exception, never a crash or a hang
# --------------------------------------------------------------------------------------------


def test_a_dict_that_contains_itself_is_an_invalid_row() -> None:
    output: dict[str, Any] = {"logs": []}
    output["logs"].append(output)
    with pytest.raises(groundcheck.InvalidRowError, match="contains itself"):
        groundcheck.verify_invocation(row(raw_output=output))
    # The control: one list held twice, side by side and nested, contains nothing of itself.
    shared = [{"message": "connection refused"}]
    both = {"logs": shared, "again": shared, "deeper": {"logs": shared, "pair": [shared, shared]}}
    details = {"evidence_refs": [{"raw_path": "$.deeper.pair[1][0].message", "text": "connection refused"}]}
    assert groundcheck.verify_invocation(row(raw_output=both, retrieval_details=details)).status == "supported"


def test_a_container_that_contains_itself_far_from_the_root_is_an_invalid_row() -> None:
    # The walk scans the first levels of its path and keeps deeper ones in a set: a cycle back
    # to a shallow container and one between two deep containers are both found.
    for depth, back_to in ((100, 0), (100, 20), (100, 60), (31, 30), (32, 31), (33, 32)):
        chain: list[list[Any]] = [[]]
        for _ in range(depth):
            chain[-1].append([])
            chain.append(chain[-1][0])
        chain[-1].append(chain[back_to])
        with pytest.raises(groundcheck.InvalidRowError, match="contains itself"):
            groundcheck.verify_invocation(row(raw_output={"logs": chain[0]}))
    # The control: the same value 100 deep without the cycle, and one list in two deep branches.
    deep: Any = "connection refused"
    for _ in range(100):
        deep = [deep]
    shared = [deep]
    wide = {"logs": [[[shared]] * 40, shared]}
    details = {"evidence_refs": [{"raw_path": "$.logs[1][0]" + "[0]" * 100, "text": "connection refused"}]}
    assert groundcheck.verify_invocation(row(raw_output=wide, retrieval_details=details)).status == "supported"


def test_ten_thousand_deep_nesting_is_limit_exceeded() -> None:
    deep: Any = "connection refused"
    for _ in range(10_000):
        deep = [deep]
    verdict = groundcheck.verify_invocation(row(raw_output={"logs": deep}))
    assert (verdict.refs[0].outcome, verdict.refs[0].limit) == ("limit_exceeded", "depth")
    assert verdict.refs[0].to_dict()["limit"] == "depth"


@pytest.mark.parametrize(
    ("output", "says"),
    [
        ({1: "x"}, "key of type int"),
        ({"x": float("nan")}, "not a JSON number"),
        ({"x": decimal.Decimal("NaN")}, "not a JSON number"),
        ({"x": b"\xff\xfe"}, "not UTF-8"),
        ({"x": (i for i in range(3))}, "not JSON-like"),
        ({"x": {1, 2}}, "not JSON-like"),
        ({"x": "\ud800"}, "lone surrogate"),
    ],
)
def test_values_that_are_not_json_are_invalid_rows(output: Any, says: str) -> None:
    with pytest.raises(groundcheck.InvalidRowError, match=says):
        groundcheck.verify_invocation(row(raw_output=output))


def test_an_int_of_ten_thousand_digits_is_read_as_the_interpreter_allows() -> None:
    # CPython 3.11 and later refuse to write an int of more than `sys.get_int_max_str_digits()`
    # digits (4,300 by default) in decimal; 3.10 has no such limit. The row is refused exactly
    # when Python refuses the digits, and read to its last digit otherwise.
    import sys

    details = {"evidence_refs": [{"raw_path": "$.x", "text": "1" + "0" * 9_999 + "1"}]}
    big_row = row(raw_output={"x": 10**10_000 + 1}, retrieval_details=details)
    if sys.version_info < (3, 11):
        assert groundcheck.verify_invocation(big_row).status == "supported"
        return
    limit = sys.get_int_max_str_digits()
    if limit == 0 or limit > 10_001:
        assert groundcheck.verify_invocation(big_row).status == "supported"
    else:
        with pytest.raises(groundcheck.InvalidRowError, match=r"^raw_output: .*int_max_str_digits"):
            groundcheck.verify_invocation(big_row)
    sys.set_int_max_str_digits(0)
    try:
        assert groundcheck.verify_invocation(big_row).status == "supported"
    finally:
        sys.set_int_max_str_digits(limit)


def test_a_mapping_whose_items_or_getitem_raises_passes_its_exception_on() -> None:
    from collections.abc import Iterator, Mapping

    class Hostile(dict[str, Any]):
        def items(self) -> Any:  # type: ignore[override]
            raise RuntimeError("no items")

    with pytest.raises(RuntimeError, match="no items"):
        groundcheck.verify_invocation(Hostile(id=1, tool_name="q"))

    # A Mapping's own items() reads each value through __getitem__: its exception is the one
    # raised, whether the mapping is the row or a value inside it.
    asked: list[str] = []

    class Raising(Mapping[str, Any]):
        def __init__(self, **members: Any) -> None:
            self.members = members

        def __getitem__(self, key: str) -> Any:
            asked.append(key)
            raise RuntimeError(f"no {key}")

        def __iter__(self) -> Iterator[str]:
            return iter(self.members)

        def __len__(self) -> int:
            return len(self.members)

    with pytest.raises(RuntimeError, match="no id"):
        groundcheck.verify_invocation(Raising(id=1, tool_name="q"))
    assert asked == ["id"]
    with pytest.raises(RuntimeError, match="no logs"):
        groundcheck.verify_invocation(row(raw_output=Raising(logs=[])))
    assert asked == ["id", "logs"]
    assert groundcheck.verify_invocation(row()).status == "supported"


def test_a_generator_of_rows_is_a_run() -> None:
    report = groundcheck.verify_run(row(id=i, run_id="r") for i in range(1, 4))
    assert report.runs[0].summary.invocations == 3
    assert report.to_dict()["runs"][0]["summary"]["supported"] == 3
    assert report.runs[0].to_dict() == report.to_dict()["runs"][0]
    assert repr(report.runs[0].summary) == (
        "Summary(invocations=3, supported=3, unsupported=0, no_evidence=0, claim_mismatches=0)"
    )


def test_a_bundle_that_is_not_utf8_or_not_text_is_an_invalid_bundle(tmp_path: Path) -> None:
    with pytest.raises(groundcheck.InvalidBundleError, match="not UTF-8 \\(byte 16\\)"):
        groundcheck.verify_bundle_json(b'{"invocations": \xff]}')
    with pytest.raises(groundcheck.InvalidBundleError, match="str or bytes, not int"):
        groundcheck.verify_bundle_json(7)  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError):
        groundcheck.verify_bundle(tmp_path / "missing.json")


# --------------------------------------------------------------------------------------------
# Threads
# --------------------------------------------------------------------------------------------


def test_one_verifier_shared_by_threads_gives_the_sequential_verdicts() -> None:
    verifier = groundcheck.Verifier(groundcheck.Policy(match="fuzzy"))
    expected = [verifier.verify_bundle(f).to_json() for f in FIXTURES]
    results: dict[int, list[str]] = {}

    def work(n: int) -> None:
        results[n] = [verifier.verify_bundle(f).to_json() for f in FIXTURES]

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(results[n] == expected for n in range(8))


def test_raw_output_files_through_a_template(tmp_path: Path) -> None:
    (tmp_path / "s1").mkdir()
    (tmp_path / "s1" / "1.json").write_text(json.dumps(row()["raw_output"]))
    verifier = groundcheck.Verifier(raw_outputs=str(tmp_path / "{session_id}" / "{id}.json"))
    verdict = verifier.verify_invocation(row(raw_output=None, session_id="s1"))
    assert (verdict.status, verdict.source) == ("supported", "file")
    missing = verifier.verify_invocation(row(raw_output=None, session_id="s2"))
    assert missing.warnings == ("raw_output_missing",)


def test_the_readme_python_examples_run_as_shown() -> None:
    readme = (ROOT / "README.md").read_text()
    blocks = [b.split("\n", 1)[1] for b in readme.split("```python")[1:]]
    blocks = [b[: b.index("```")] for b in blocks]
    assert blocks, "the README has a Python example"
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        for block in blocks:
            exec(compile(block, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)


# --------------------------------------------------------------------------------------------
# Types: the stubs match the module, and the package and the README's example type-check
# --------------------------------------------------------------------------------------------

PACKAGE = ROOT / "crates" / "groundcheck-py"


def python(*args: str, cwd: Path = PACKAGE) -> subprocess.CompletedProcess[str]:
    import sys

    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd)


@pytest.mark.slow
def test_the_stubs_match_the_module() -> None:
    done = python(
        "-m",
        "mypy.stubtest",
        "groundcheck",
        "--allowlist",
        "tests/stubtest-allowlist.txt",
        "--mypy-config-file",
        "pyproject.toml",
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_the_package_and_the_readme_example_pass_mypy_strict(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    block = readme.split("```python", 1)[1].split("\n", 1)[1]
    example = tmp_path / "readme_example.py"
    example.write_text(block[: block.index("```")])
    done = python("-m", "mypy", "--strict", "--no-incremental", "python/groundcheck", str(example))
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_public_name_has_a_docstring() -> None:
    import typing

    for name in groundcheck.__all__:
        value = getattr(groundcheck, name)
        # The Literal aliases (Status, Outcome, …) cannot carry one; groundcheck._types has it.
        if callable(value) and typing.get_origin(value) is not typing.Literal:
            assert (value.__doc__ or "").strip(), name
            for member, attribute in vars(value).items() if isinstance(value, type) else ():
                if not member.startswith("_") and callable(getattr(attribute, "__get__", None)):
                    assert (attribute.__doc__ or "").strip(), f"{name}.{member}"


# --------------------------------------------------------------------------------------------
# Real objects from a library no one here wrote: MCP tool results from the official SDK
# --------------------------------------------------------------------------------------------


def test_mcp_call_tool_results_verify_as_the_cli_verifies_them(tmp_path: Path) -> None:
    import mcp.types as mcp

    logs = {"items": [{"level": "ERROR", "message": "dial tcp 10.0.0.7:5432: connection refused"}]}
    results = [
        mcp.CallToolResult(content=[mcp.TextContent(type="text", text=json.dumps(logs))], is_error=False),
        mcp.CallToolResult(
            content=[mcp.TextContent(type="text", text="see structuredContent")],
            structured_content=logs,
            is_error=False,
        ),
        mcp.CallToolResult(content=[mcp.TextContent(type="text", text="upstream timed out")], is_error=True),
    ]
    refs = [
        {"raw_path": "$.content[0].text.items[0].message", "text": "connection refused"},
        {"raw_path": "$.structuredContent.items[0].message", "text": "connection refused"},
        {"raw_path": "$.content[0].text", "text": "timed out"},
    ]
    rows = [
        {
            "id": i + 1,
            "run_id": "run-mcp",
            "tool_name": "loki_query",
            "success": not result.is_error,
            "retrieval_details": {"evidence_status": "supported", "evidence_refs": [ref]},
            "raw_output": result.model_dump(mode="json", by_alias=True, exclude_none=True),
        }
        for i, (result, ref) in enumerate(zip(results, refs))
    ]
    bundle = tmp_path / "mcp.json"
    bundle.write_text(json.dumps({"invocations": rows}))
    report = groundcheck.verify_run(rows)
    assert report.to_json() == cli("verify", "--format", "json", str(bundle))
    statuses = [(v.status, v.reason) for v in report.runs[0].invocations]
    assert statuses == [("supported", "verified"), ("supported", "verified"), ("unsupported", "tool_failed")]
    assert report.runs[0].invocations[0].warnings == ("descended_into_string",)
