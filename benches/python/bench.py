"""What calling groundcheck from Python costs, each figure against its floor, measured in the same run.

    N=2000 benches/python/bench.sh     (builds the package in release into target/bench-venv)

1. `verify_invocation` on a small row (a 1.2 KB raw output), the raw output given as a dict and
   as the column's text: microseconds a call, and the ratio to the same verification in Rust
   alone, in the same process (`Verifier._time_verify`, the row read once). The floor of the
   text row is the engine verifying the text; the dict row's floor is a Rust caller holding
   the same output as JSON text (what a database or a tool gives a Rust program), and, for
   comparison, holding it already parsed into the engine's own document. Goal: at most 2×.
   Beside the dict row, `json.dumps` of it: what reading a dict's values out of Python costs
   when the C code of the standard library does it; and `orjson.dumps`, the fastest reader
   there is, which reads CPython's internal structures directly (a build per CPython version,
   where groundcheck is one abi3 build through the stable ABI, and no unsafe code of its own).
2. `verify_run` over the seeded corpus held as Python values (`raw_output` a dict) and as rows a
   DB driver returns (`raw_output_text`, `retrieval_details`, `input_params` as `str`), against
   a Rust program given the same rows as a database gives it them (`Verifier._time_verify_run`):
   every text its own `String`, the raw output and the JSON columns as their text; it parses
   the JSON columns (as the CLI's own path from stored rows does, `StoredRow::into_invocation`),
   groups, verifies and drops the rows, on the same threads. The share of that throughput a
   Python caller gets. Goal: at least 90 %. For the rows held as Python values, two more
   figures show what reading Python objects costs whoever does it: `verify_run`'s own reading
   of those rows with nothing verified (`Verifier._read_rows`), and `json.dumps` of the same
   values, the C-speed way any Python program hands such values to an engine outside Python.

   Why the floor parses the claim: a row comes out of a database as text, so a Rust program
   verifying it must parse `retrieval_details` too — that is the same job. A floor starting
   from invocations already parsed (the engine's `verify_runs` alone, the floor until
   2026-12-05) is a different job: it charges the Python caller for work every caller does.
   What the floor does not contain is what only a Python caller does: taking the values out
   of Python objects (under the GIL), handing the text over, giving the references back.
3. The GIL: the longest pause of a second Python thread (ticking every millisecond) while
   one `verify_run` works.
4. Two Python threads against one thread doing the same calls, where each call is sequential:
   `verify_invocation` on the small row (as its text and as a dict) and on the corpus's DB rows,
   and `verify_run` of a verifier limited to one thread (`Verifier(threads=1)`) on runs of 250
   rows. Goal: 1.8×. Beside each, the machine's own ceiling in the same run: the same
   verifications in Rust alone (`Verifier._time_verify`, the GIL let go) from two threads
   against one, which is what two cores give this work when no Python runs at all. Beside the
   corpus's rows, CPython's own C code making calls of the same lengths that let the GIL go
   (`hashlib.sha256`): what the GIL's hand-over costs such calls when almost nothing is done
   with it held.
5. The pure-Python peer of `benches/peer` (what a team would write instead) verifying the same
   rows in the same process.

The machine's load average is printed with the figures: on a shared machine, wall-clock ratios
move with it.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

import groundcheck
import orjson

ROW: dict[str, Any] = {
    "id": 1,
    "run_id": "r",
    "tool_name": "query_logs",
    "retrieval_details": {
        "evidence_status": "supported",
        "evidence_refs": [{"raw_path": "$.logs[7].message", "text": "connection refused"}],
    },
    "raw_output": {
        "logs": [
            {"ts": f"2026-11-30T10:00:{i:02}Z", "level": "ERROR", "message": f"dial tcp 10.0.0.{i}:5432: connection refused"}
            for i in range(12)
        ]
    },
}


def as_text_row(row: dict[str, Any]) -> dict[str, Any]:
    """`row` as a DB driver returns it: the raw output and the claim are the columns' text."""
    text = dict(row)
    text["raw_output_text"] = json.dumps(text.pop("raw_output"), separators=(",", ":"))
    text["retrieval_details"] = json.dumps(text["retrieval_details"])
    return text


def best_of(rounds: int, work: Callable[[], float]) -> float:
    return min(work() for _ in range(rounds))


def timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def settle() -> None:
    """Moves every object made so far out of the cyclic collector's reach (`gc.freeze`): the
    rows the bench holds are hundreds of thousands of objects, and a collection that walks them
    in the middle of a timing (one did: `verify_run` 0.103 s against 0.053 s) times the bench,
    not the call."""
    gc.collect()
    gc.freeze()


def repeat(n: int, work: Callable[[Any], object], arg: Any) -> None:
    """`work(arg)` `n` times, each result dropped at once."""
    for _ in range(n):
        work(arg)


def load() -> str:
    return "load average " + ", ".join(f"{x:.1f}" for x in os.getloadavg())


def goal(met: bool, what: str) -> str:
    return f"[goal {what}: {'met' if met else 'NOT met'}]"


def per_call() -> None:
    verifier = groundcheck.Verifier()
    n = 20_000
    size = len(json.dumps(ROW["raw_output"], separators=(",", ":")))
    for name, row, floors in (
        ("dict", ROW, (("the output's JSON text", "text"), ("the engine's parsed document", "tree"))),
        ("text", as_text_row(ROW), (("the output's text", None),)),
    ):

        def calls(row: dict[str, Any] = row) -> float:
            return timed(lambda: [verifier.verify_invocation(row) for _ in range(n)])

        py = best_of(5, calls) / n
        if name == "dict":
            # Each text dropped as soon as made: 20,000 kept alive would time the allocator too.
            dumps = best_of(5, lambda row=row: timed(lambda: repeat(n, json.dumps, row))) / n
            print(f"json.dumps of the dict row alone (what handing it to any engine outside Python "
                  f"starts with): {dumps * 1e6:.1f} µs ({load()})")
            fastest = best_of(5, lambda row=row: timed(lambda: repeat(n, orjson.dumps, row))) / n
            print(f"orjson.dumps of the same dict (a reader of CPython's internal structures, built per "
                  f"CPython version): {fastest * 1e6:.2f} µs ({load()})")
        for i, (held, form) in enumerate(floors):
            rust = best_of(5, lambda row=row, form=form: verifier._time_verify(row, n, form)) / n
            mark = f" {goal(py / rust <= 2, '≤ 2×')}" if i == 0 else ""
            print(f"verify_invocation, {size} B output as {name}: {py * 1e6:.1f} µs a call "
                  f"{goal(py < 10e-6, '< 10 µs')}; Rust alone holding {held}: "
                  f"{rust * 1e6:.1f} µs: {py / rust:.2f}×{mark} ({load()})")


def corpus(folder: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in sorted(folder.glob("*.json")):
        bundle = json.loads(path.read_text())
        for row in bundle["invocations"]:
            row.setdefault("run_id", bundle.get("run_id"))
            row.setdefault("session_id", bundle.get("session_id"))
            rows.append(row)
    return rows


def as_values(row: dict[str, Any]) -> dict[str, Any]:
    """`row` as a Python program holds its values: the raw output a dict (when it is JSON)."""
    values = dict(row)
    text = values.get("raw_output_text")
    if text is not None:
        try:
            values["raw_output"] = json.loads(text)
            del values["raw_output_text"]
        except ValueError:
            pass
    return values


def as_db_row(row: dict[str, Any]) -> dict[str, Any]:
    """`row` as a DB driver returns it: the raw output and the JSON columns as text."""
    db = dict(row)
    if "raw_output" in db:
        db["raw_output_text"] = json.dumps(db.pop("raw_output"), separators=(",", ":"))
    for column in ("retrieval_details", "input_params"):
        if db.get(column) is not None and not isinstance(db[column], str):
            db[column] = json.dumps(db[column])
    return db


def throughput(forms: list[tuple[str, list[dict[str, Any]]]]) -> None:
    verifier = groundcheck.Verifier()
    for name, given in forms:
        # Alternated, best of 10 each: one run is 10 ms, where a machine's drift between two
        # series of runs moves the share by ±10 %.
        run, engine = float("inf"), float("inf")
        for _ in range(10):
            run = min(run, timed(lambda given=given: verifier.verify_run(given)))
            engine = min(engine, verifier._time_verify_run(given))
        share = engine / run
        print(f"verify_run, {len(given)} rows as {name}: {run:.3f} s; Rust alone on the same rows as text: "
              f"{engine:.3f} s: {share * 100:.0f} % of the engine's throughput {goal(share >= 0.9, '≥ 90 %')} ({load()})")
        if any("raw_output" in row for row in given):
            read = best_of(5, lambda given=given: timed(lambda: verifier._read_rows(given)))
            dumps = best_of(5, lambda given=given: timed(lambda: [json.dumps(row, default=str) for row in given]))
            print(f"  of which reading the Python values (verify_run's reading alone): {read:.3f} s; "
                  f"json.dumps of the same rows: {dumps:.3f} s ({load()})")


def gil(rows: list[dict[str, Any]]) -> None:
    verifier = groundcheck.Verifier()
    gaps: list[float] = []
    done = threading.Event()

    def tick() -> None:
        last = time.perf_counter()
        while not done.is_set():
            time.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    ticker = threading.Thread(target=tick)
    ticker.start()
    took = timed(lambda: verifier.verify_run(rows))
    done.set()
    ticker.join()
    print(f"GIL: while verify_run worked {took:.3f} s, a second thread's longest pause was "
          f"{max(gaps) * 1000:.1f} ms (median tick {statistics.median(gaps) * 1000:.2f} ms) ({load()})")


def scaling(work: Callable[[], object], rounds: int = 5) -> float:
    """How much faster two threads each doing `work` once finish than one thread doing it
    twice: best of `rounds` each, the two measured in alternation."""

    def two() -> float:
        pair = [threading.Thread(target=work) for _ in range(2)]
        started = time.perf_counter()
        for t in pair:
            t.start()
        for t in pair:
            t.join()
        return time.perf_counter() - started

    one, both = float("inf"), float("inf")
    for _ in range(rounds):
        one = min(one, timed(lambda: (work(), work())))
        both = min(both, two())
    return one / both


def two_threads(name: str, work: Callable[[], object], ceiling: Callable[[], object]) -> None:
    """`work` done twice by one thread, against once by each of two threads at once; and the
    same for `ceiling`, the same verifications in Rust alone with the GIL let go."""
    python, rust = scaling(work), scaling(ceiling)
    print(f"two threads, {name}: {python:.2f}× one thread doing both shares "
          f"{goal(python >= 1.8, '≥ 1.8×')}; the same work in Rust alone: {rust:.2f}× "
          f"(Python's {python / rust * 100:.0f} % of it) ({load()})")


def threads(name: str, rows: list[dict[str, Any]], rounds: int) -> None:
    verifier = groundcheck.Verifier()

    def calls() -> None:
        for _ in range(rounds):
            for row in rows:
                verifier.verify_invocation(row)

    # One detached call for all the work: a call per row would be the GIL's hand-over again.
    alone = groundcheck.Verifier(threads=1)

    def in_rust() -> None:
        if len(rows) == 1:
            verifier._time_verify(rows[0], rounds, "text")
        else:
            for _ in range(rounds):
                alone._time_verify_run(rows)

    two_threads(f"{rounds * len(rows)} verify_invocation calls each on {name}", calls, in_rust)
    if len(rows) > 1:
        cpython_floor(verifier, rows, rounds)


def cpython_floor(verifier: groundcheck.Verifier, rows: list[dict[str, Any]], rounds: int) -> None:
    """Two threads of CPython's own C code making calls as long as `verifier`'s on `rows`, each
    letting the GIL go around its work: `hashlib.sha256` of data sized so that each call takes
    as long as the matching row's `verify_invocation`. What the GIL's hand-over costs calls of
    these lengths when almost nothing is done with the GIL held."""
    lengths = []
    for row in rows:
        lengths.append(timed(lambda row=row: [verifier.verify_invocation(row) for _ in range(5)]) / 5)
    sample = b"x" * 16384
    rate = len(sample) * 2000 / best_of(3, lambda: timed(lambda: [hashlib.sha256(sample) for _ in range(2000)]))
    # hashlib keeps the GIL under 2 KiB: every call here lets it go, as verify_invocation does.
    blobs = [b"x" * max(2048, int(seconds * rate)) for seconds in lengths]

    def calls() -> None:
        for _ in range(rounds):
            for blob in blobs:
                hashlib.sha256(blob)

    print(f"  CPython's own C code (hashlib.sha256) in calls of the same lengths, the GIL let go in "
          f"each: two threads {scaling(calls):.2f}× one ({load()})")


def one_thread_runs(rows: list[dict[str, Any]], size: int) -> None:
    verifier = groundcheck.Verifier(threads=1)
    runs = [rows[i : i + size] for i in range(0, len(rows), size)]

    def calls() -> None:
        for run in runs:
            verifier.verify_run(run)

    def in_rust() -> None:
        for run in runs:
            verifier._time_verify_run(run)

    two_threads(f"verify_run of Verifier(threads=1), {len(runs)} runs of {size} DB rows each", calls, in_rust)


def peer(rows: list[dict[str, Any]], db_rows: list[dict[str, Any]]) -> None:
    """The peer on rows held as Python values (parsed by its own reader before the clock
    starts, numbers keeping their text) and on DB rows (it parses their text itself, as
    groundcheck does)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "peer"))
    import peer as pure  # type: ignore[import-not-found]

    verifier = groundcheck.Verifier()
    peer_rows = [pure.parse_json(json.dumps(r)) for r in rows]
    settle()
    for name, theirs, ours in (("Python values", peer_rows, rows), ("DB rows", db_rows, db_rows)):
        python = best_of(3, lambda theirs=theirs: timed(lambda: [pure.verify_invocation(r, 2, False) for r in theirs]))
        each = best_of(3, lambda ours=ours: timed(lambda: [verifier.verify_invocation(r) for r in ours]))
        run = best_of(3, lambda ours=ours: timed(lambda: verifier.verify_run(ours)))
        print(f"pure-Python peer over the same {len(rows)} rows as {name}: {python:.3f} s; groundcheck "
              f"verify_invocation one by one {each:.3f} s ({python / each:.1f}× faster), verify_run {run:.3f} s "
              f"({python / run:.1f}× faster) ({load()})")


if __name__ == "__main__":
    print(f"{os.cpu_count()} cores, {load()}")
    per_call()
    threads("the small row as text", [as_text_row(ROW)], 20_000)
    threads("the small row as a dict", [ROW], 20_000)
    if len(sys.argv) > 1:
        rows = corpus(Path(sys.argv[1]))
        values = [as_values(r) for r in rows]
        db_rows = [as_db_row(r) for r in rows]
        settle()
        throughput([("Python values (raw_output a dict)", values), ("DB rows (columns as str)", db_rows)])
        gil(db_rows)
        threads("the corpus's DB rows", db_rows, 10)
        one_thread_runs(db_rows, 250)
        peer(values, db_rows)
