#!/usr/bin/env python3
"""Helpers for compare.sh (standard library only).

report.py table TIMES_TSV CORPUS_BYTES INVOCATIONS
    TIMES_TSV lines: `tool<TAB>threads<TAB>wall_s<TAB>max_rss_kb<TAB>cpu_s`, one per run.
    Prints the median table and the ratios.
report.py agree PEER_JSONL GROUNDCHECK_JSONL
    Compares status and reason per (run_id, id); prints the count and the first 10
    disagreements with both lines. Exit status 1 below 99 % agreement.
"""

import json
import statistics
import sys


def table(times_path: str, corpus_bytes: int, invocations: int) -> int:
    rows: dict = {}
    for line in open(times_path, encoding="utf-8"):
        if not line.strip():
            continue
        tool, threads, seconds, rss_kb, cpu = line.rstrip("\n").split("\t")
        rows.setdefault((tool, threads), []).append((float(seconds), int(rss_kb), float(cpu)))

    header = ("tool", "threads", "median s", "runs (s)", "invocations/s", "MB/s", "peak RSS MB",
              "median CPU s")
    lines = []
    medians, cpus = {}, {}
    for (tool, threads), samples in rows.items():
        secs = [s for s, _, _ in samples]
        median = statistics.median(secs)
        medians[(tool, threads)] = median
        cpus[(tool, threads)] = statistics.median(c for _, _, c in samples)
        rss_mb = max(r for _, r, _ in samples) / 1024
        rate = invocations / median if median > 0 else float("inf")
        mbps = corpus_bytes / 1e6 / median if median > 0 else float("inf")
        lines.append((tool, threads, f"{median:.2f}", " ".join(f"{s:.2f}" for s in secs),
                      f"{rate:,.0f}", f"{mbps:.1f}", f"{rss_mb:.0f}",
                      f"{cpus[(tool, threads)]:.2f}"))
    widths = [max(len(str(r[i])) for r in [header, *lines]) for i in range(len(header))]
    fmt = "  ".join("{:<%d}" % w if i < 2 else "{:>%d}" % w for i, w in enumerate(widths))
    print(fmt.format(*header))
    print(fmt.format(*("-" * w for w in widths)))
    for row in lines:
        print(fmt.format(*row))
    print()
    gc1, gc2 = medians.get(("groundcheck", "1")), medians.get(("groundcheck", "2"))
    peer = medians.get(("peer.py", "1"))
    if gc1 and peer:
        print(f"peer / groundcheck (1 thread):         {peer / gc1:6.1f}x  (wall time)")
        cpu_gc1, cpu_peer = cpus[("groundcheck", "1")], cpus[("peer.py", "1")]
        if cpu_gc1 > 0:
            print(f"peer / groundcheck (1 thread), CPU:    {cpu_peer / cpu_gc1:6.1f}x  (user + system time)")
    if gc1 and gc2:
        print(f"groundcheck 1 thread / 2 threads:      {gc1 / gc2:6.2f}x  (scaling; 2.00 is perfect)")
    return 0


def load(path: str) -> dict:
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                v = json.loads(line)
                out[(v.get("run_id"), v["id"])] = v
    return out


def ref_key(v: dict):
    return [(r.get("outcome"), r.get("match"), r.get("matched_path")) for r in v.get("refs", [])]


def agree(peer_path: str, gc_path: str) -> int:
    peer, gc = load(peer_path), load(gc_path)
    keys = list(gc.keys()) + [k for k in peer if k not in gc]
    agreeing, refs_agreeing, shown = 0, 0, []
    for k in keys:
        p, g = peer.get(k), gc.get(k)
        if p is not None and g is not None and (p["status"], p["reason"]) == (g["status"], g["reason"]):
            agreeing += 1
            if ref_key(p) == ref_key(g):
                refs_agreeing += 1
        elif len(shown) < 10:
            shown.append((k, p, g))
    total = len(keys)
    share = agreeing / total if total else 0.0
    print(f"agreement on status and reason: {agreeing} / {total} invocations ({share:.2%})"
          f"; groundcheck printed {len(gc)}, peer printed {len(peer)}")
    print(f"  of those, identical per-ref outcome, match and matched_path: {refs_agreeing}")
    for k, p, g in shown:
        print(f"- run {k[0]} id {k[1]}:")
        print("  groundcheck: " + (json.dumps(g, ensure_ascii=False) if g else "(missing)"))
        print("  peer:        " + (json.dumps(p, ensure_ascii=False) if p else "(missing)"))
    return 0 if share >= 0.99 else 1


def main() -> int:
    if len(sys.argv) == 5 and sys.argv[1] == "table":
        return table(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    if len(sys.argv) == 4 and sys.argv[1] == "agree":
        return agree(sys.argv[2], sys.argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
