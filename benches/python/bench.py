"""What calling groundcheck from Python costs, as ratios to floors measured in the same run.

    benches/python/bench.sh            (builds the package in release into target/bench-venv)

1. `verify_invocation` on a small row (a 1 KB raw output): microseconds a call, and the ratio
   to the same verification in Rust alone, in the same process (`Verifier._time_verify`).
2. `verify_run` over a corpus of rows held as Python dicts, against `verify_bundle_json` of
   the same rows as bundle text (the engine reading JSON itself, no Python objects): the
   share of the engine's throughput a Python caller gets.
3. The GIL: the longest pause of a second Python thread (ticking every millisecond) while
   one `verify_run` works.
4. Two threads calling `verify_invocation` against one thread doing the same number of
   calls: how the sequential per-call path scales.
"""

from __future__ import annotations

import json
import statistics
import sys
import threading
import time
from pathlib import Path

import groundcheck

ROW = {
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


def best_of(rounds: int, work) -> float:  # type: ignore[no-untyped-def]
    return min(work() for _ in range(rounds))


def per_call() -> None:
    verifier = groundcheck.Verifier()
    n = 20_000
    size = len(json.dumps(ROW["raw_output"]))

    def python() -> float:
        started = time.perf_counter()
        for _ in range(n):
            verifier.verify_invocation(ROW)
        return time.perf_counter() - started

    py = best_of(5, python) / n
    rust = best_of(5, lambda: verifier._inner._time_verify(ROW, n)) / n
    print(f"verify_invocation, {size} B output: {py * 1e6:.1f} µs a call from Python, "
          f"{rust * 1e6:.1f} µs in Rust alone: {py / rust:.2f}× (overhead {(py - rust) * 1e6:.1f} µs)")


def corpus(folder: Path) -> tuple[list[dict], str]:  # type: ignore[type-arg]
    rows: list[dict] = []  # type: ignore[type-arg]
    for path in sorted(folder.glob("*.json")):
        rows.extend(json.loads(path.read_text())["invocations"])
    return rows, json.dumps({"invocations": rows})


def throughput(rows: list[dict], text: str) -> None:  # type: ignore[type-arg]
    verifier = groundcheck.Verifier()
    run = best_of(3, lambda: timed(lambda: verifier.verify_run(rows)))
    bundle = best_of(3, lambda: timed(lambda: verifier.verify_bundle_json(text)))
    print(f"verify_run, {len(rows)} rows as dicts: {run:.3f} s; verify_bundle_json of the same "
          f"rows as text: {bundle:.3f} s: {bundle / run * 100:.0f} % of the engine's throughput")


def timed(work) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def gil(rows: list[dict]) -> None:  # type: ignore[type-arg]
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


def threads() -> None:
    verifier = groundcheck.Verifier()
    n = 5_000

    def calls() -> None:
        for _ in range(n):
            verifier.verify_invocation(ROW)

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
    print(f"two threads, {2 * n} verify_invocation calls: {one / both:.2f}× one thread doing them all")


if __name__ == "__main__":
    per_call()
    if len(sys.argv) > 1:
        rows, text = corpus(Path(sys.argv[1]))
        throughput(rows, text)
        gil(rows)
    threads()
