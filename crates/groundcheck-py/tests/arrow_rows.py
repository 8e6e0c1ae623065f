"""The fixtures as a table export holds them, for the Arrow suites (test_batch.py, test_spark.py,
test_arrow_examples.py): every bundle of fixtures/ imported into SQLite by ``groundcheck
import``, read back as the table's rows (JSON columns and the raw output as their text) and
written as one Parquet file; and the verdicts ``groundcheck verify --format json`` gives each
row."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = sorted((ROOT / "fixtures").glob("*.json"))
BIN = os.environ.get("GROUNDCHECK_BIN", str(ROOT / "target" / "debug" / "groundcheck"))

# The seed table's columns with the Arrow types a Parquet export of it has.
SCHEMA = pa.schema(
    [
        ("id", pa.int64()),
        ("session_id", pa.string()),
        ("run_id", pa.string()),
        ("step_id", pa.int64()),
        ("tool_name", pa.string()),
        ("input_params", pa.string()),
        ("output_preview", pa.string()),
        ("output_length", pa.int32()),
        ("retrieval_layer", pa.string()),
        ("l0_match_count", pa.int32()),
        ("l1_match_count", pa.int32()),
        ("is_truncated", pa.bool_()),
        ("relevance_level", pa.string()),
        ("dedup_reason", pa.string()),
        ("retrieval_details", pa.string()),
        ("duration_ms", pa.int32()),
        ("success", pa.bool_()),
        ("error_message", pa.string()),
        ("created_at", pa.string()),
        ("raw_output", pa.string()),
    ]
)

BOOLEANS = ("is_truncated", "success")


def cli(*args: str, cwd: Path | None = None) -> str:
    done = subprocess.run([BIN, *args], capture_output=True, text=True, cwd=cwd)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def table_rows(folder: Path) -> list[dict[str, Any]]:
    """Every fixture's rows as the table holds them after ``groundcheck import``, by id."""
    db = folder / "fixtures.db"
    if not db.exists():
        cli("import", "--database", f"sqlite://{db}", *map(str, FIXTURES), cwd=folder)
    connection = sqlite3.connect(db)
    connection.row_factory = sqlite3.Row
    names = [f"t.{f.name}" for f in SCHEMA if f.name != "raw_output"]
    rows = [
        dict(r)
        for r in connection.execute(
            f"SELECT {', '.join(names)}, o.raw_output FROM tool_invocation t "
            "LEFT JOIN tool_invocation_output o ON o.invocation_id = t.id ORDER BY t.id"
        )
    ]
    connection.close()
    for r in rows:
        for column in BOOLEANS:
            if r[column] is not None:
                r[column] = bool(r[column])
    return rows


def parquet(folder: Path) -> Path:
    """The fixtures' rows as one Parquet file (made once in ``folder``)."""
    path = folder / "tool_invocation.parquet"
    if not path.exists():
        pq.write_table(pa.Table.from_pylist(table_rows(folder), schema=SCHEMA), path)
    return path


def cli_verdicts() -> dict[int, dict[str, Any]]:
    """Every fixture row's verdict object as ``groundcheck verify --format json`` prints it,
    by id (ids are unique across the fixtures)."""
    verdicts: dict[int, dict[str, Any]] = {}
    for fixture in FIXTURES:
        report = json.loads(cli("verify", "--format", "json", str(fixture)))
        for run in report["runs"]:
            for verdict in run["invocations"]:
                verdicts[verdict["id"]] = verdict
    return verdicts


def assert_cli_verdicts(out: list[dict[str, Any]], expected: dict[int, dict[str, Any]]) -> None:
    """Each answer row carries the CLI's verdict for its id: status, reason, the claim's
    columns and the refs (compared as JSON values; test_batch.py compares their bytes)."""
    assert len(out) == len(expected) and {r["id"] for r in out} == set(expected)
    for r in out:
        verdict = expected[r["id"]]
        assert r["status"] == verdict["status"], r["id"]
        assert r["reason"] == verdict["reason"], r["id"]
        assert r["claimed_status"] == verdict.get("claimed_status"), r["id"]
        assert r["claim_agrees"] == verdict.get("claim_agrees"), r["id"]
        assert json.loads(r["refs"]) == verdict["refs"], r["id"]
