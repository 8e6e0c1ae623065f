"""docs/arrow.md's Spark job, run as written with PySpark in local mode on the fixtures' Parquet
file (arrow_rows.py): every verdict it writes as Parquet is ``groundcheck verify``'s."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Iterator

import pyarrow.parquet as pq
import pytest

from arrow_rows import assert_cli_verdicts, cli_verdicts, parquet
from test_arrow_examples import run_example


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    # The workers run this interpreter, which has groundcheck and pyarrow.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        # A short job in a fresh JVM: the first compiler tier alone and the serial collector
        # take about half the CPU of the default (C2 compiling Spark's paths, parallel GC threads).
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        .config("spark.sql.shuffle.partitions", "3")
        # Batches of a few rows: a partition's rows reach the worker in several batches.
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "16")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.mark.slow(longest=True)
def test_the_spark_job_writes_the_cli_s_verdict_for_every_row(spark: Any, tmp_path: Path) -> None:
    run_example("spark", tmp_path, tmp_path / "verdicts")
    written = pq.read_table(tmp_path / "verdicts").to_pylist()
    assert_cli_verdicts(written, cli_verdicts())
    assert len(written) > 100
