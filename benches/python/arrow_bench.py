"""What the Arrow door costs, each figure against its floor, measured in the same run.

    N=2000 benches/python/arrow_bench.sh   (the package built in release into target/bench-venv)

1. `verify_batch` over the seeded corpus held as an Arrow table (the table's columns, the raw
   output and the JSON columns as text: what a Parquet export holds), against a Rust program
   given the same rows as a database gives it them (`Verifier._time_verify_run`: every text its
   own `String`, the JSON columns parsed, grouped, verified, dropped, on the same threads). The
   share of that throughput the Arrow path gets. Goal: at least 90 %. Beside it, `verify_run`
   over the same rows as dicts a DB driver returns, for comparison.
2. A local Spark job (`local[*]`) reading the corpus as Parquet and verifying it with
   `mapInArrow` (docs/arrow.md's job, its verdicts written to Spark's `noop` sink), against the
   same job reading the Parquet file alone (the rows passed through `mapInArrow` unchanged, and
   without `mapInArrow`). Rows a second of each, and the ratios.

Each figure is the best of several runs, alternated, so a machine's drift moves both sides."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterator

# This folder's profile.py would stand in for the standard library's (PySpark imports cProfile).
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

import groundcheck  # noqa: E402

COLUMNS = [
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
    ("raw_output_text", pa.string()),
]


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def timed(work: Callable[[], Any]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def db_rows(folder: Path) -> list[dict[str, Any]]:
    """The corpus's rows as a DB driver returns them: the raw output and the JSON columns as
    text."""
    rows: list[dict[str, Any]] = []
    for path in sorted(folder.glob("*.json")):
        bundle = json.loads(path.read_text())
        for row in bundle["invocations"]:
            row.setdefault("run_id", bundle.get("run_id"))
            row.setdefault("session_id", bundle.get("session_id"))
            if "raw_output" in row:
                row["raw_output_text"] = json.dumps(row.pop("raw_output"), separators=(",", ":"))
            for column in ("retrieval_details", "input_params"):
                if row.get(column) is not None and not isinstance(row[column], str):
                    row[column] = json.dumps(row[column])
            rows.append(row)
    return rows


def core_share(rows: list[dict[str, Any]], table: pa.Table) -> None:
    verifier = groundcheck.Verifier()
    batch = engine = run = float("inf")
    for _ in range(10):
        batch = min(batch, timed(lambda: groundcheck.verify_batch(table, verifier=verifier)))
        engine = min(engine, verifier._time_verify_run(rows))
        run = min(run, timed(lambda: verifier.verify_run(rows)))
    mib = table.nbytes / 2**20
    print(f"verify_batch, {len(rows)} rows ({mib:.0f} MiB) as an Arrow table: {batch:.3f} s; Rust alone on the "
          f"same rows as text: {engine:.3f} s: {engine / batch * 100:.0f} % of the core's throughput "
          f"(goal ≥ 90 %) ({load()})")
    print(f"  verify_run over the same rows as DB-driver dicts: {run:.3f} s: {engine / run * 100:.0f} % ({load()})")


def spark_job(table: pa.Table) -> None:
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    verdicts = (
        "id long, run_id string, session_id string, status string, reason string, "
        "claimed_status string, claim_agrees boolean, refs string"
    )

    def verify(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for b in batches:
            yield pa.record_batch(groundcheck.verify_batch(b))

    def unchanged(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        yield from batches

    spark = (
        SparkSession.builder.master("local[*]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "4g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "corpus.parquet")
        # Enough rows that a job's fixed costs (planning, the workers' start) are small beside them.
        repeats = max(1, 50_000 // table.num_rows)
        ids = pa.array(range(table.num_rows * repeats), pa.int64())
        big = pa.concat_tables([table] * repeats).set_column(0, "id", ids)
        pq.write_table(big, path, row_group_size=10_000)
        rows = big.num_rows
        jobs = {
            "read alone": lambda: spark.read.parquet(path).write.format("noop").mode("overwrite").save(),
            "read, mapInArrow unchanged": lambda: spark.read.parquet(path)
            .mapInArrow(unchanged, spark.read.parquet(path).schema)
            .write.format("noop").mode("overwrite").save(),
            "read, mapInArrow verify_batch": lambda: spark.read.parquet(path)
            .mapInArrow(verify, verdicts)
            .write.format("noop").mode("overwrite").save(),
        }
        for job in jobs.values():
            job()  # the workers started, the file cached
        best = {name: float("inf") for name in jobs}
        for _ in range(3):
            for name, job in jobs.items():
                best[name] = min(best[name], timed(job))
        alone = best["read alone"]
        for name, seconds in best.items():
            print(f"Spark local[{os.cpu_count()}], {rows} rows, {name}: {seconds:.2f} s, {rows / seconds:,.0f} rows/s, "
                  f"{alone / seconds * 100:.0f} % of reading alone ({load()})")
    spark.stop()


def main() -> None:
    folder = Path(sys.argv[1])
    rows = db_rows(folder)
    # A small folder (the fixtures) repeated under new ids, so that a call's fixed costs are
    # small beside its rows.
    repeats = max(1, 2000 // len(rows))
    rows = [{**r, "id": i} for i, r in enumerate(rows * repeats)]
    schema = pa.schema(COLUMNS)
    table = pa.Table.from_pylist([{name: r.get(name) for name in schema.names} for r in rows], schema=schema)
    core_share(rows, table)
    spark_job(table)


if __name__ == "__main__":
    main()
