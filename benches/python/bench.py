"""What calling groundcheck from Python costs, as ratios to floors measured in the same run.

    benches/python/bench.sh            (builds the package in release into target/bench-venv)

1. `verify_invocation` on a small row (a 1 KB raw output), the raw output given as a dict and
   as the column's text: microseconds a call, and the ratio to the same verification in Rust
   alone, in the same process (`Verifier._time_verify`: the row read once, then verified from
   its text, as the engine verifies a stored row).
2. `verify_run` over the seeded corpus held as Python dicts, and as rows a DB driver returns
   (`raw_output_text` a str), against the engine alone verifying the same invocations, read
   once (`Verifier._time_verify_run`): the share of the engine's throughput a Python caller
   gets.
3. The GIL: the longest pause of a second Python thread (ticking every millisecond) while
   one `verify_run` works.
4. Two threads calling `verify_invocation` against one thread doing the same number of calls:
   how the sequential per-call path scales, on the small row and on the corpus's rows.
5. The pure-Python peer of `benches/peer` (what a team would write instead) verifying the same
   rows in the same process.
"""

from __future__ import annotations

import json
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

import groundcheck

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


def per_call() -> None:
    verifier = groundcheck.Verifier()
    n = 20_000
    size = len(json.dumps(ROW["raw_output"], separators=(",", ":")))
    for name, row in (("dict", ROW), ("text", as_text_row(ROW))):

        def calls(row: dict[str, Any] = row) -> float:
            return timed(lambda: [verifier.verify_invocation(row) for _ in range(n)])

        py = best_of(5, calls) / n
        rust = best_of(5, lambda row=row: verifier._time_verify(row, n)) / n
        print(f"verify_invocation, {size} B output as {name}: {py * 1e6:.1f} µs a call from Python, "
              f"{rust * 1e6:.1f} µs in Rust alone: {py / rust:.2f}× (overhead {(py - rust) * 1e6:.1f} µs)")


def corpus(folder: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in sorted(folder.glob("*.json")):
        bundle = json.loads(path.read_text())
        for row in bundle["invocations"]:
            row.setdefault("run_id", bundle.get("run_id"))
            row.setdefault("session_id", bundle.get("session_id"))
            rows.append(row)
    return rows


def throughput(rows: list[dict[str, Any]]) -> None:
    verifier = groundcheck.Verifier()
    db_rows = [as_text_row(r) if "raw_output" in r else r for r in rows]
    for name, given in (("dicts", rows), ("DB rows (raw_output_text)", db_rows)):
        run = best_of(3, lambda given=given: timed(lambda: verifier.verify_run(given)))
        engine = best_of(3, lambda given=given: verifier._time_verify_run(given))
        print(f"verify_run, {len(rows)} rows as {name}: {run:.3f} s; the engine alone on the same invocations: "
              f"{engine:.3f} s: {engine / run * 100:.0f} % of the engine's throughput")


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
          f"{max(gaps) * 1000:.1f} ms (median tick {statistics.median(gaps) * 1000:.2f} ms)")


def threads(name: str, rows: list[dict[str, Any]], rounds: int) -> None:
    verifier = groundcheck.Verifier()

    def calls() -> None:
        for _ in range(rounds):
            for row in rows:
                verifier.verify_invocation(row)

    one = best_of(3, lambda: timed(lambda: (calls(), calls())))

    def two() -> float:
        pair = [threading.Thread(target=calls) for _ in range(2)]
        started = time.perf_counter()
        for t in pair:
            t.start()
        for t in pair:
            t.join()
        return time.perf_counter() - started

    both = best_of(3, two)
    print(f"two threads, {2 * rounds * len(rows)} verify_invocation calls on {name}: "
          f"{one / both:.2f}× one thread doing them all")


def peer(rows: list[dict[str, Any]]) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "peer"))
    import peer as pure  # type: ignore[import-not-found]

    verifier = groundcheck.Verifier()
    # The peer's rows are what its own bundle reader makes (numbers keep their text).
    peer_rows = [pure.parse_json(json.dumps(r)) for r in rows]
    python = best_of(3, lambda: timed(lambda: [pure.verify_invocation(r, 2, False) for r in peer_rows]))
    each = best_of(3, lambda: timed(lambda: [verifier.verify_invocation(r) for r in rows]))
    run = best_of(3, lambda: timed(lambda: verifier.verify_run(rows)))
    print(f"pure-Python peer over the same {len(rows)} rows: {python:.3f} s; groundcheck verify_invocation "
          f"one by one {each:.3f} s ({python / each:.1f}× faster), verify_run {run:.3f} s ({python / run:.1f}× faster)")


if __name__ == "__main__":
    per_call()
    threads("the small row", [ROW], 5_000)
    if len(sys.argv) > 1:
        rows = corpus(Path(sys.argv[1]))
        throughput(rows)
        gil(rows)
        db_rows = [as_text_row(r) if "raw_output" in r else r for r in rows]
        threads("the corpus's DB rows", db_rows, 1)
        peer(rows)
