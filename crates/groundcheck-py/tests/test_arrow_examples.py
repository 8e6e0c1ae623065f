"""docs/arrow.md's examples, run as written on the fixtures' Parquet file (arrow_rows.py): Ray
Data, DuckDB and polars each verify every row and give the command line's verdicts. The Spark
job is run by test_spark.py."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import groundcheck
from arrow_rows import ROOT, assert_cli_verdicts, cli_verdicts, parquet


def examples() -> dict[str, str]:
    """The doc's Python blocks marked ``<!-- example: NAME -->``, by name."""
    text = (ROOT / "docs" / "arrow.md").read_text()
    return dict(re.findall(r"<!-- example: (\w+) -->\n```python\n(.*?)```", text, re.S))


def run_example(name: str, folder: Path, out: Path) -> dict[str, Any]:
    scope: dict[str, Any] = {"PARQUET": str(parquet(folder)), "OUT": str(out), "DATABASE": str(folder / "fixtures.db")}
    exec(compile(examples()[name], f"docs/arrow.md ({name})", "exec"), scope)
    return scope


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("arrow-examples")


@pytest.fixture(scope="module")
def expected() -> dict[int, dict[str, Any]]:
    return cli_verdicts()


def test_the_doc_has_every_example() -> None:
    assert set(examples()) == {"spark", "ray", "duckdb", "polars", "export"}


# Ray's own configuration warns of its deprecated settings when it starts.
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.slow(longest=True)
def test_the_ray_data_example(folder: Path, tmp_path: Path, expected: dict[int, dict[str, Any]]) -> None:
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        run_example("ray", folder, tmp_path / "verdicts")
    finally:
        ray.shutdown()
    assert_cli_verdicts(pq.read_table(tmp_path / "verdicts").to_pylist(), expected)


def test_the_duckdb_example(folder: Path, tmp_path: Path, expected: dict[int, dict[str, Any]]) -> None:
    scope = run_example("duckdb", folder, tmp_path / "by_status.parquet")
    assert_cli_verdicts(scope["verdicts"].to_pylist(), expected)
    counts = Counter(v["status"] for v in expected.values())
    assert {r["status"]: r["n"] for r in pq.read_table(tmp_path / "by_status.parquet").to_pylist()} == counts


def test_the_polars_example(folder: Path, tmp_path: Path, expected: dict[int, dict[str, Any]]) -> None:
    scope = run_example("polars", folder, tmp_path / "unsupported.parquet")
    assert_cli_verdicts(scope["verdicts"].to_dicts(), expected)
    unsupported = pq.read_table(tmp_path / "unsupported.parquet").column("id").to_pylist()
    assert sorted(unsupported) == sorted(i for i, v in expected.items() if v["status"] == "unsupported")
    assert len(unsupported) > 10


def test_the_export_example_writes_what_verify_batch_reads(folder: Path, tmp_path: Path, expected: dict[int, dict[str, Any]]) -> None:
    parquet(folder)  # the fixtures imported into folder/fixtures.db
    run_example("export", folder, tmp_path / "exported.parquet")
    table = pq.read_table(tmp_path / "exported.parquet")
    assert table.schema.field("success").type == "int8"  # 0/1 as SQLite returns them
    assert_cli_verdicts(pa.record_batch(groundcheck.verify_batch(table)).to_pylist(), expected)
