"""What the Arrow door costs, each figure against its floor, measured in the same run.

    N=2000 benches/python/arrow_bench.sh   (the package built in release into target/bench-venv)
    SPARK=0 N=2000 benches/python/arrow_bench.sh   (the first figure alone)
    arrow_bench.py --callgrind batch|columns|core N CORPUS   (one side n times, for callgrind)

1. `verify_batch` over the seeded corpus held as an Arrow table (the table's columns, the raw
   output and the JSON columns as text: what a Parquet export holds), against a Rust program
   given the same rows' texts as a database gives it them and writing the same answer
   (`_BatchFloor`: every text its own `String`, read before the clock starts; timed: the JSON
   columns parsed, every row verified in parallel on the same threads, the ids checked by run,
   the eight answer columns written as Arrow arrays). Both sides start from the rows' texts and
   end with the answer's columns; the bench checks the two answers are equal. Each side is
   timed around one call from Python, in wall time (the throughput on this machine's cores)
   and in the process's CPU time (rows per CPU second, steadier on a shared machine). What `verify_batch` does beyond the
   floor is reading the Arrow columns and the hand-over between Python and the package's
   threads. The share of the floor's throughput the Arrow path gets. Goal: at least 90 %.
   Beside it, the older floor (`Verifier._time_verify_run`: the same texts to verdict objects
   grouped into a report, no columns written) and `verify_run` over the same rows as dicts a
   DB driver returns.
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


ROUNDS = int(os.environ.get("ROUNDS", "40"))


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


def timed_both(work: Callable[[], Any]) -> tuple[float, float]:
    """Wall seconds and the process's CPU seconds (every thread's) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - wall, time.process_time() - cpu


def core_share(rows: list[dict[str, Any]], table: pa.Table) -> None:
    verifier = groundcheck.Verifier()
    floor = groundcheck._groundcheck._BatchFloor
    best = {side: (float("inf"), float("inf")) for side in ("batch", "floor")}
    engine = run = float("inf")
    for round in range(ROUNDS):
        # The floor's rows are read from Python before its clock starts, as the table was; the
        # side that goes first alternates.
        prepared = floor(verifier, rows)
        sides = [("batch", lambda: groundcheck.verify_batch(table, verifier=verifier)), ("floor", prepared.run)]
        for side, work in sides[:: 1 if round % 2 else -1]:
            wall, cpu = timed_both(work)
            best[side] = (min(best[side][0], wall), min(best[side][1], cpu))
        engine = min(engine, verifier._time_verify_run(rows))
        run = min(run, timed(lambda: verifier.verify_run(rows)))
    # Both sides give the same answer.
    assert pa.record_batch(floor(verifier, rows).run()).equals(pa.record_batch(groundcheck.verify_batch(table)))
    (batch, batch_cpu), (columns, columns_cpu) = best["batch"], best["floor"]
    mib = table.nbytes / 2**20
    print(f"{len(rows)} rows ({mib:.0f} MiB of Arrow), the same rows on each side, best of {ROUNDS} ({load()}):")
    print(f"  verify_batch, from the rows as an Arrow table (its columns read from the buffers, the raw output "
          f"shared, every text checked as UTF-8, the JSON columns parsed) to the answer batch handed to "
          f"Python: {batch:.3f} s wall, "
          f"{batch_cpu:.3f} s CPU")
    print(f"  Rust alone, from the rows' texts (every text its own String, UTF-8 already checked when it was "
          f"made, the raw output and the JSON columns their text) to the same answer columns (the JSON columns parsed, verified in parallel, ids checked "
          f"by run, the eight columns written): {columns:.3f} s wall, {columns_cpu:.3f} s CPU")
    print(f"  verify_batch: {columns / batch * 100:.0f} % of Rust alone's throughput on {os.cpu_count()} cores, "
          f"{columns_cpu / batch_cpu * 100:.0f} % of its rows per CPU second (goal ≥ 90 %)")
    print(f"  beside them: Rust alone from the same texts to verdict objects grouped into a report "
          f"(verify_run's floor, no columns written): {engine:.3f} s; verify_batch {engine / batch * 100:.0f} % of it; "
          f"verify_run over the rows as DB-driver dicts {engine / run * 100:.0f} % ({run:.3f} s) ({load()})")


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


def callgrind(what: str, n: int, rows: list[dict[str, Any]], table: pa.Table) -> None:
    """One side of the share, once and then `n` times, for callgrind: instructions a call are
    (the count with n calls − the count with none) ÷ n. `batch`: verify_batch over the table;
    `columns`: Rust alone from the rows' texts to the same answer (`_BatchFloor`); `core`: Rust
    alone from the rows' texts to a report (`Verifier._time_verify_run`). The floors' rows are
    read from Python before their clock starts, but inside the count: subtract the calling
    thread's share of `_BatchFloor::new` / `__pymethod__time_verify_run__`
    (callgrind_annotate --inclusive)."""
    verifier = groundcheck.Verifier()
    if what == "batch":
        work: Callable[[], Any] = lambda: groundcheck.verify_batch(table, verifier=verifier)  # noqa: E731
    elif what == "columns":
        work = lambda: groundcheck._groundcheck._BatchFloor(verifier, rows).run()  # noqa: E731
    elif what == "core":
        work = lambda: verifier._time_verify_run(rows)  # noqa: E731
    else:
        raise SystemExit(f"--callgrind: batch, columns or core, not {what}")
    work()
    for _ in range(n):
        work()


def main() -> None:
    args = sys.argv[1:]
    profile = None
    if args[:1] == ["--callgrind"]:
        profile, args = (args[1], int(args[2])), args[3:]
    spark = "--no-spark" not in args
    folder = Path([a for a in args if not a.startswith("--")][0])
    rows = db_rows(folder)
    # A small folder (the fixtures) repeated under new ids, so that a call's fixed costs are
    # small beside its rows.
    repeats = max(1, 2000 // len(rows))
    rows = [{**r, "id": i} for i, r in enumerate(rows * repeats)]
    schema = pa.schema(COLUMNS)
    table = pa.Table.from_pylist([{name: r.get(name) for name in schema.names} for r in rows], schema=schema)
    if profile:
        callgrind(*profile, rows, table)
        return
    core_share(rows, table)
    if spark:
        spark_job(table)


if __name__ == "__main__":
    main()
