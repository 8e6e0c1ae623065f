"""``groundcheck.verify_batch``: Arrow tables and record batches from pyarrow, polars and
DuckDB give the command line's verdicts and ``verify_run``'s, byte for byte; every Arrow type a
column may have is read as the same row given as Python values; a column or value that cannot
be read is one ``InvalidRowError`` naming the column."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import groundcheck
from arrow_rows import SCHEMA, assert_cli_verdicts, cli_verdicts, parquet, table_rows


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("arrow")


@pytest.fixture(scope="module")
def expected() -> dict[int, dict[str, Any]]:
    return cli_verdicts()


def rows_of(result: Any) -> list[dict[str, Any]]:
    return pa.record_batch(result).to_pylist()


def refs_json(verdict: groundcheck.Verdict) -> str:
    return "[" + ",".join(r.to_json() for r in verdict.refs) + "]"


def verify_run_rows(rows: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """``verify_run``'s verdicts of ``rows`` as answer rows, by id."""
    report = groundcheck.verify_run(rows)
    return {
        v.id: {
            "status": v.status,
            "reason": v.reason,
            "claimed_status": v.claimed_status,
            "claim_agrees": v.claim_agrees,
            "refs": refs_json(v),
        }
        for run in report.runs
        for v in run.invocations
    }


def dict_rows(folder: Path) -> list[dict[str, Any]]:
    # As verify_run reads a row from a database: the raw output's text as raw_output_text.
    return [{**{k: v for k, v in r.items() if k != "raw_output"}, "raw_output_text": r["raw_output"]} for r in table_rows(folder)]


def test_the_answer_s_schema_and_order(folder: Path) -> None:
    table = pq.read_table(parquet(folder))
    out = pa.record_batch(groundcheck.verify_batch(table))
    assert out.schema == pa.schema(
        [
            pa.field("id", pa.int64(), nullable=False),
            ("run_id", pa.string()),
            ("session_id", pa.string()),
            pa.field("status", pa.string(), nullable=False),
            pa.field("reason", pa.string(), nullable=False),
            ("claimed_status", pa.string()),
            ("claim_agrees", pa.bool_()),
            pa.field("refs", pa.string(), nullable=False),
        ]
    )
    # Input order, whatever it is: the rows reversed come back reversed.
    reversed_table = table.take(list(range(table.num_rows - 1, -1, -1)))
    assert out.column("id").to_pylist() == table.column("id").to_pylist()
    assert rows_of(groundcheck.verify_batch(reversed_table)) == out.to_pylist()[::-1]
    assert out.column("run_id").to_pylist() == table.column("run_id").to_pylist()
    assert out.column("session_id").to_pylist() == table.column("session_id").to_pylist()


def test_every_fixture_row_from_pyarrow_is_the_cli_s_verdict_and_verify_run_s_bytes(
    folder: Path, expected: dict[int, dict[str, Any]]
) -> None:
    table = pq.read_table(parquet(folder))
    out = rows_of(groundcheck.verify_batch(table))
    assert len(out) > 100
    assert_cli_verdicts(out, expected)
    by_run = verify_run_rows(dict_rows(folder))
    for r in out:
        assert {k: r[k] for k in by_run[r["id"]]} == by_run[r["id"]], r["id"]


def test_a_record_batch_a_stream_and_several_batches_give_the_same_answer(folder: Path) -> None:
    table = pq.read_table(parquet(folder))
    want = rows_of(groundcheck.verify_batch(table))
    # __arrow_c_array__ (one record batch) and __arrow_c_stream__ of several batches.
    assert rows_of(groundcheck.verify_batch(table.combine_chunks().to_batches()[0])) == want
    small = pa.Table.from_batches(table.to_batches(max_chunksize=7))
    assert len(small.to_batches()) > 10
    assert rows_of(groundcheck.verify_batch(small)) == want
    reader = pa.RecordBatchReader.from_batches(table.schema, iter(table.to_batches(max_chunksize=5)))
    assert rows_of(groundcheck.verify_batch(reader)) == want


def test_polars_and_duckdb_inputs_give_the_cli_s_verdicts(folder: Path, expected: dict[int, dict[str, Any]]) -> None:
    path = parquet(folder)
    frame = pl.read_parquet(path)
    assert frame.schema["tool_name"] == pl.String  # a string_view column across the interface
    assert_cli_verdicts(rows_of(groundcheck.verify_batch(frame)), expected)
    relation = duckdb.sql(f"SELECT * FROM read_parquet('{path}')")
    assert_cli_verdicts(rows_of(groundcheck.verify_batch(relation.arrow())), expected)
    # A DuckDB relation itself speaks the stream interface.
    assert_cli_verdicts(rows_of(groundcheck.verify_batch(duckdb.sql(f"SELECT * FROM read_parquet('{path}')"))), expected)


def test_a_policy_and_a_verifier_decide_the_verdicts(folder: Path) -> None:
    rows = [r for r in dict_rows(folder) if r["id"] // 100 == 16]
    table = pa.Table.from_pylist(
        [{**{k: v for k, v in r.items() if k != "raw_output_text"}, "raw_output": r["raw_output_text"]} for r in rows]
    )
    policy = groundcheck.Policy(require="any", match="fuzzy", min_score="0.8")
    got = rows_of(groundcheck.verify_batch(table, policy=policy))
    report = groundcheck.verify_run(rows, policy=policy)
    want = {v.id: (v.status, refs_json(v)) for run in report.runs for v in run.invocations}
    assert {r["id"]: (r["status"], r["refs"]) for r in got} == want
    assert got != rows_of(groundcheck.verify_batch(table)), "the policy changes some verdict"
    verifier = groundcheck.Verifier(policy, threads=1)
    assert rows_of(groundcheck.verify_batch(table, verifier=verifier)) == got
    with pytest.raises(groundcheck.InvalidPolicyError):
        groundcheck.verify_batch(table, policy=policy, verifier=groundcheck.Verifier())


# --------------------------------------------------------------------------------------------
# Every Arrow type a column may have
# --------------------------------------------------------------------------------------------

DETAILS = json.dumps({"evidence_status": "supported", "evidence_refs": [{"raw_path": "$.logs[0]", "text": "refused"}]})
OUTPUT = json.dumps({"logs": ["dial tcp: connection refused"]})

BASE: dict[str, Any] = {
    "id": 7,
    "session_id": "sess-1",
    "run_id": "run-1",
    "step_id": 3,
    "tool_name": "query_logs",
    "input_params": '{"q": "error"}',
    "output_preview": "dial tcp",
    "output_length": 30,
    "retrieval_layer": "L0",
    "l0_match_count": 1,
    "l1_match_count": 0,
    "is_truncated": False,
    "relevance_level": "high",
    "dedup_reason": None,
    "retrieval_details": DETAILS,
    "duration_ms": 12,
    "success": True,
    "error_message": None,
    "created_at": "2026-11-30T10:00:01Z",
    "raw_output": OUTPUT,
}

TEXT_COLUMNS = [f.name for f in SCHEMA if pa.types.is_string(f.type) and f.name != "created_at"]
INT_COLUMNS = ["id", "step_id", "output_length", "l0_match_count", "l1_match_count", "duration_ms"]


def one_row(column: str, array: pa.Array, rows: int = 2) -> pa.Table:
    """``BASE`` twice (ids 7 and 8), ``column`` given as ``array``."""
    columns = {k: pa.array([v, v] if k != "id" else [7, 8][:rows], type=SCHEMA.field(k).type) for k, v in BASE.items()}
    columns[column] = array
    return pa.table(columns)


def answer_of(table: pa.Table) -> list[dict[str, Any]]:
    return rows_of(groundcheck.verify_batch(table))


@pytest.fixture(scope="module")
def base_answer() -> list[dict[str, Any]]:
    table = one_row("id", pa.array([7, 8], pa.int64()))
    out = answer_of(table)
    assert [r["status"] for r in out] == ["supported", "supported"]
    assert out[0]["claim_agrees"] is True
    return out


@pytest.mark.parametrize("column", TEXT_COLUMNS)
@pytest.mark.parametrize("kind", ["large_string", "string_view", "dictionary", "binary", "large_binary", "binary_view"])
def test_text_columns_of_every_string_type_are_read_alike(column: str, kind: str, base_answer: list[dict[str, Any]]) -> None:
    value = BASE[column]
    values = [value, value]
    if kind == "large_string":
        array = pa.array(values, pa.large_string())
    elif kind == "string_view":
        array = pa.array(values, pa.string_view())
    elif kind == "dictionary":
        array = pa.array(values, pa.string()).dictionary_encode()
    else:
        encoded = [None if v is None else v.encode() for v in values]
        array = pa.array(encoded, {"binary": pa.binary(), "large_binary": pa.large_binary(), "binary_view": pa.binary_view()}[kind])
    assert answer_of(one_row(column, array)) == base_answer


@pytest.mark.parametrize("column", INT_COLUMNS)
@pytest.mark.parametrize("arrow_type", [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64()])
def test_integer_columns_of_every_width_are_read_alike(column: str, arrow_type: pa.DataType, base_answer: list[dict[str, Any]]) -> None:
    values = [7, 8] if column == "id" else [BASE[column]] * 2
    assert answer_of(one_row(column, pa.array(values, arrow_type))) == base_answer


@pytest.mark.parametrize("column", ["is_truncated", "success"])
@pytest.mark.parametrize("arrow_type", [pa.bool_(), pa.int8(), pa.uint8(), pa.int64()])
def test_boolean_columns_read_booleans_and_0_or_1(column: str, arrow_type: pa.DataType, base_answer: list[dict[str, Any]]) -> None:
    value = BASE[column] if arrow_type == pa.bool_() else int(BASE[column])
    assert answer_of(one_row(column, pa.array([value, value], arrow_type))) == base_answer


@pytest.mark.parametrize(
    "array",
    [
        pa.array([datetime.datetime(2026, 11, 30, 10, 0, 1)] * 2, pa.timestamp(unit)) for unit in ("s", "ms", "us", "ns")
    ]
    + [
        pa.array([datetime.datetime(2026, 11, 30, 10, 0, 1, 5, tzinfo=datetime.timezone.utc)] * 2, pa.timestamp("us", tz="UTC")),
        pa.array([datetime.datetime(2026, 11, 30, 10, 0, 1)] * 2, pa.timestamp("ns", tz="Europe/Paris")),
        pa.array([datetime.date(2026, 11, 30)] * 2, pa.date32()),
        pa.array([datetime.date(2026, 11, 30)] * 2, pa.date64()),
        pa.array(["2026-11-30T10:00:01Z"] * 2, pa.large_string()),
    ],
    ids=lambda a: str(a.type),
)
def test_created_at_as_a_timestamp_or_a_date(array: pa.Array, base_answer: list[dict[str, Any]]) -> None:
    assert answer_of(one_row("created_at", array)) == base_answer


def test_nulls_are_absent_values(base_answer: list[dict[str, Any]]) -> None:
    # A column of nulls (Arrow's null type too) is the row without that column.
    table = one_row("id", pa.array([7, 8], pa.int64()))
    for column in ("session_id", "step_id", "input_params", "is_truncated", "created_at", "error_message"):
        want = [{**r, "session_id": None} for r in base_answer] if column == "session_id" else base_answer
        assert answer_of(table.set_column(table.schema.get_field_index(column), column, pa.nulls(2))) == want
    no_output = table.set_column(table.schema.get_field_index("raw_output"), "raw_output", pa.nulls(2, pa.string()))
    out = answer_of(no_output)
    expected = groundcheck.verify_invocation({k: v for k, v in BASE.items() if k != "raw_output"})
    assert [(r["status"], r["reason"], r["refs"]) for r in out] == [(expected.status, expected.reason, refs_json(expected))] * 2
    # Some columns absent altogether.
    minimal = pa.table({"id": [1], "tool_name": ["q"]})
    assert [(r["status"], r["reason"], r["refs"]) for r in answer_of(minimal)] == [("no_evidence", "no_refs", "[]")]


def test_raw_output_text_and_bytes_that_are_not_utf8(base_answer: list[dict[str, Any]]) -> None:
    table = one_row("id", pa.array([7, 8], pa.int64())).rename_columns(
        [c if c != "raw_output" else "raw_output_text" for c in SCHEMA.names]
    )
    assert answer_of(table) == base_answer
    broken = b'{"logs": ["dial tcp: connection \xff refused"]}'
    row = {**BASE, "raw_output": broken}
    expected = groundcheck.verify_invocation(row)
    assert "invalid_utf8" in expected.warnings
    out = answer_of(one_row("raw_output", pa.array([broken, broken], pa.binary())))
    assert [(r["status"], r["reason"], r["refs"]) for r in out] == [(expected.status, expected.reason, refs_json(expected))] * 2


def test_a_string_column_holding_bytes_that_are_not_utf8_is_read_as_a_binary_one() -> None:
    # An Arrow string column promises UTF-8; a producer that breaks the promise (pyarrow builds
    # one from raw buffers unchecked) gets the binary column's verdict, not the bytes as text.
    broken = b'{"logs": ["dial tcp: connection \xff refused"]}'
    offsets = pa.py_buffer(pa.array([0, len(broken), 2 * len(broken)], pa.int32()).buffers()[1])
    strings = pa.Array.from_buffers(pa.string(), 2, [None, offsets, pa.py_buffer(broken * 2)])
    expected = groundcheck.verify_invocation({**BASE, "raw_output": broken})
    assert "invalid_utf8" in expected.warnings
    out = answer_of(one_row("raw_output", strings))
    assert [(r["status"], r["reason"], r["refs"]) for r in out] == [(expected.status, expected.reason, refs_json(expected))] * 2
    assert out == answer_of(one_row("raw_output", pa.array([broken, broken], pa.binary())))


def test_raw_outputs_of_a_sliced_or_chunked_table_are_each_row_s_own(base_answer: list[dict[str, Any]]) -> None:
    # A raw output is read in place from its column's buffers: a column that starts at an
    # offset (a slice) or comes in chunks gives each row its own text.
    other = json.dumps({"logs": ["nothing to see"]})
    outputs = [other, OUTPUT, other, OUTPUT, other]
    for arrow_type in (pa.string(), pa.large_string(), pa.string_view()):
        table = pa.table(
            {
                **{k: pa.array([v] * 5, type=SCHEMA.field(k).type) for k, v in BASE.items() if k not in ("id", "raw_output")},
                "id": pa.array(range(5), pa.int64()),
                "raw_output": pa.array(outputs, arrow_type),
            }
        )
        whole = [(r["status"], r["refs"]) for r in answer_of(table)]
        assert [s for s, _ in whole] == ["unsupported", "supported", "unsupported", "supported", "unsupported"]
        assert [(r["status"], r["refs"]) for r in answer_of(table.slice(1, 3))] == whole[1:4]
        chunked = pa.concat_tables([table.slice(0, 2), table.slice(2)])
        assert chunked.column("raw_output").num_chunks == 2
        assert [(r["status"], r["refs"]) for r in answer_of(chunked)] == whole


def test_the_bench_s_rust_floor_gives_verify_batch_s_answer(folder: Path) -> None:
    # benches/python/arrow_bench.py measures verify_batch against a Rust program that starts
    # from the rows' texts and writes the same answer (a test-hooks build's hook): the two
    # answers are one, so the bench compares like with like.
    rows = dict_rows(folder)
    table = pq.read_table(parquet(folder))
    verifier = groundcheck.Verifier()
    floor = groundcheck._groundcheck._BatchFloor(verifier, rows)
    assert pa.record_batch(floor.run()).equals(pa.record_batch(groundcheck.verify_batch(table, verifier=verifier)))
    with pytest.raises(groundcheck.InternalError, match="the rows were used"):
        floor.run()


def test_json_text_that_is_not_json_is_a_string_of_that_text() -> None:
    table = one_row("retrieval_details", pa.array(["{not json", "{not json"]))
    expected = groundcheck.verify_invocation({**BASE, "retrieval_details": "{not json"})
    assert [(r["status"], r["reason"]) for r in answer_of(table)] == [(expected.status, expected.reason)] * 2


# --------------------------------------------------------------------------------------------
# Errors name the column
# --------------------------------------------------------------------------------------------


def raises(table: Any, field: str, match: str) -> None:
    with pytest.raises(groundcheck.InvalidRowError, match=match) as caught:
        groundcheck.verify_batch(table)
    assert caught.value.field == field


@pytest.mark.parametrize(
    "column,array,match",
    [
        ("id", pa.array(["7", "8"]), "id: must be an Arrow integer column, not the Arrow type Utf8"),
        ("tool_name", pa.array([1, 2]), "tool_name: must be an Arrow string"),
        ("step_id", pa.array([1.5, 2.5]), "step_id: must be an Arrow integer column, not the Arrow type Float64"),
        ("is_truncated", pa.array(["no", "no"]), "is_truncated: must be an Arrow boolean"),
        ("retrieval_details", pa.array([{"a": 1}, {"a": 2}]), "retrieval_details: must be an Arrow string"),
        ("raw_output", pa.array([[1], [2]]), "raw_output: must be an Arrow string"),
        ("created_at", pa.array([1.0, 2.0]), "created_at: must be an Arrow string, timestamp or date column"),
    ],
)
def test_a_column_of_the_wrong_type_names_it(column: str, array: pa.Array, match: str) -> None:
    raises(one_row(column, array), column, match)


def test_missing_required_and_unknown_columns_are_named() -> None:
    table = one_row("id", pa.array([7, 8]))
    raises(table.drop_columns(["id"]), "id", "id: required column is missing")
    raises(table.drop_columns(["tool_name"]), "tool_name", "tool_name: required column is missing")
    raises(table.append_column("toolname", pa.array(["a", "b"])), "batch", "unknown column toolname")
    raises(pa.table([pa.array([1]), pa.array(["q"]), pa.array([2])], names=["id", "tool_name", "id"]), "id", "given twice")


@pytest.mark.parametrize(
    "column,array,match",
    [
        ("id", pa.array([7, 2**63], pa.uint64()), r"row 1, id: 9223372036854775808 is not an integer within BIGINT \(i64\)"),
        ("duration_ms", pa.array([1, 2**31], pa.int64()), r"row 1, duration_ms: 2147483648 is not an integer within INT \(i32\)"),
        ("success", pa.array([1, 2], pa.int8()), "row 1, success: must be true, false, 0, 1 or null, not 2"),
        ("id", pa.array([7, None], pa.int64()), "row 1, id: required integer is missing"),
        ("tool_name", pa.array(["q", None]), "row 1, tool_name: required string is missing"),
    ],
)
def test_a_bad_value_names_its_row_and_column(column: str, array: pa.Array, match: str) -> None:
    raises(one_row(column, array), column, match)


def test_both_raw_outputs_in_a_row_and_a_repeated_id() -> None:
    table = one_row("id", pa.array([7, 8])).append_column("raw_output_text", pa.array([None, "x"]))
    raises(table, "raw_output", "row 1, raw_output: raw_output and raw_output_text are both given")
    with pytest.raises(groundcheck.InvalidBundleError, match="id 7 appears twice in run run-1"):
        groundcheck.verify_batch(one_row("id", pa.array([7, 7])))
    with pytest.raises(groundcheck.InvalidBundleError, match="id 7 appears twice in run run-1"):
        groundcheck.verify_run([BASE, BASE])


def test_what_is_not_arrow_is_refused() -> None:
    raises([{"id": 1, "tool_name": "q"}], "batch", "not an Arrow table or record batch")


def test_an_arrow_array_that_is_not_a_record_batch_is_refused() -> None:
    # `__arrow_c_array__` of a plain array hands over one column, not rows.
    raises(pa.array([1, 2]), "batch", "an array of Int64, not a record batch")
    nullable = pa.StructArray.from_arrays([pa.array([1])], ["id"], mask=pa.array([True]))
    raises(nullable, "batch", "null rows, not a record batch")


def test_the_answer_is_read_as_a_batch_a_table_or_a_stream_each_time_anew() -> None:
    table = pa.table({"id": [1, 2], "run_id": ["r", "r"], "tool_name": ["q", "q"]})
    answer = groundcheck.verify_batch(table)
    assert len(answer) == 2
    batch = pa.record_batch(answer)
    assert pa.table(answer).to_pylist() == batch.to_pylist() == pa.record_batch(answer).to_pylist()
    assert [row["status"] for row in batch.to_pylist()] == ["no_evidence", "no_evidence"]
    assert pl.from_arrow(pa.table(answer)).height == 2
