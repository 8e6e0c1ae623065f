"""A driver for callgrind: one kind of call, n times, so that instructions a call are
(the count with n calls − the count with none) ÷ n — deterministic, unlike wall clock on a
shared machine (benches/README.md, "`benches/python/bench.sh`").

    valgrind --tool=callgrind --dump-instr=no target/bench-venv/bin/python \\
        benches/python/profile.py WHAT N [CORPUS]

WHAT is one of:

- `dict`, `text`: `verify_invocation` on bench.py's 1.2 KB row, the raw output a dict or the
  column's text; `dict-rust`, `text-rust`: the same verification in Rust alone
  (`Verifier._time_verify`, the output as its JSON text), the floor of the goal;
- `run`, `run-floor`: `Verifier(threads=1).verify_run` over CORPUS's rows as a DB driver
  returns them (columns as `str`), and the floor it is measured against
  (`Verifier(threads=1)._time_verify_run`: the JSON columns parsed and the rows verified in
  Rust alone); each is run once before the n counted runs, so the n runs are the steady state
  (CPython caches a `str`'s UTF-8 on it the first time it is asked); per row = ÷ (n × rows).
- `run-dicts`: `verify_run` over CORPUS's rows with `raw_output` a dict, likewise.
- `each`: `verify_invocation` on each of CORPUS's rows as a DB driver returns them, likewise
  (what is done with the GIL held: the whole count less what runs inside `Python::detach`).

A run of 0 calls does everything else (imports, rows built, the warm-up run).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench  # noqa: E402
import groundcheck  # noqa: E402


def main() -> None:
    what, n = sys.argv[1], int(sys.argv[2])
    if what in ("dict", "text", "dict-rust", "text-rust"):
        verifier = groundcheck.Verifier()
        row = bench.ROW if what.startswith("dict") else bench.as_text_row(bench.ROW)
        verifier.verify_invocation(row)
        if what.endswith("-rust"):
            verifier._time_verify(row, n, "text")
        else:
            for _ in range(n):
                verifier.verify_invocation(row)
        return
    rows = bench.corpus(Path(sys.argv[3]))
    rows = [bench.as_values(r) for r in rows] if what == "run-dicts" else [bench.as_db_row(r) for r in rows]
    verifier = groundcheck.Verifier(threads=1)
    work = verifier._time_verify_run if what == "run-floor" else verifier.verify_run
    if what == "each":
        work = lambda rows: [verifier.verify_invocation(r) for r in rows]  # noqa: E731
    work(rows)
    for _ in range(n):
        work(rows)


if __name__ == "__main__":
    main()
