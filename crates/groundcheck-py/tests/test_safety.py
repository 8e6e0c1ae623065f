"""groundcheck under every caller: a forked child, Ctrl-C, a 64 KiB thread, a path that
doubles its nodes, a panic at any entry point. Each test that could hang runs its work in a
child process under a deadline, so a regression fails instead of hanging the suite."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any, Callable

import pytest

import groundcheck
from groundcheck import _groundcheck

ROOT = Path(__file__).resolve().parents[3]
DEADLINE = 120  # seconds a child process may take before the test fails (it never should)


def run_python(code: str, deadline: float = DEADLINE) -> subprocess.CompletedProcess[str]:
    """Runs `code` in a fresh interpreter, failing (not hanging) past the deadline."""
    try:
        return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                              timeout=deadline)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"the child did not finish within {deadline} s: {e.stdout!r} {e.stderr!r}")


def row(i: int = 1, nodes: int = 1, **columns: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": i,
        "run_id": "r",
        "tool_name": "q",
        "retrieval_details": {"evidence_refs": [{"raw_path": "$.logs[*]", "text": "refused"}]},
        "raw_output": {"logs": ["x"] * nodes + ["connection refused"]},
    }
    base.update(columns)
    return base


# --------------------------------------------------------------------------------------------
# fork(): a child works as a fresh process would
# --------------------------------------------------------------------------------------------

# What the child runs: every way of calling that hands work to a pool, among them the ones a
# parent's pools were started by (the default pool, a verifier's own, and rayon's global pool
# through a one-thread verifier's search of 300 nodes).
CHILD_WORK = """
def child_work():
    import groundcheck
    rows = [row(i) for i in range(100)]
    out = [groundcheck.verify_run(rows).runs[0].summary.supported]
    out.append(groundcheck.Verifier(threads=1).verify_invocation(row(1, 300)).status)
    out.append(groundcheck.Verifier(threads=1).verify_run(rows + [row(100, 300)]).runs[0].summary.supported)
    out.append(groundcheck.Verifier(threads=2).verify_run(rows).runs[0].summary.supported)
    out.append(len(groundcheck.resolve({"a": list(range(500))}, "$.a[*]")))
    out.append(groundcheck.verify_invocation(row(1, 5000)).status)
    return out
"""

EXPECTED_CHILD = [100, "supported", 101, 100, 500, "supported"]


def parent_prelude() -> str:
    return f"""
import json, os, signal, sys, time
import groundcheck
def row(i, nodes=1):
    return {{"id": i, "run_id": "r", "tool_name": "q",
            "retrieval_details": {{"evidence_refs": [{{"raw_path": "$.logs[*]", "text": "refused"}}]}},
            "raw_output": {{"logs": ["x"] * nodes + ["connection refused"]}}}}
{CHILD_WORK}
# The parent starts every pool first.
first = child_work()
own = groundcheck.Verifier(threads=2)
own.verify_run([row(i) for i in range(100)])
"""


def test_a_forked_child_verifies_as_a_fresh_process() -> None:
    done = run_python(parent_prelude() + """
read, write = os.pipe()
pid = os.fork()
if pid == 0:
    signal.alarm(60)  # a hang ends the child (and fails the test) instead of the suite
    os.close(read)
    os.write(write, json.dumps(child_work() + [len(own.verify_run([row(i) for i in range(50)]).runs[0].invocations)]).encode())
    os._exit(0)
os.close(write)
_, status = os.waitpid(pid, 0)
print(json.dumps({"status": status, "child": os.read(read, 1 << 16).decode(), "first": first}))
""")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == 0, "the child hung (SIGALRM) or crashed"
    assert result["first"] == EXPECTED_CHILD
    assert json.loads(result["child"]) == EXPECTED_CHILD + [50]


def test_multiprocessing_fork_workers_verify() -> None:
    done = run_python(parent_prelude() + """
import multiprocessing
def work(n):
    return child_work() + [n]
if __name__ == "__main__":
    with multiprocessing.get_context("fork").Pool(2) as pool:
        print(json.dumps(pool.map_async(work, range(4)).get(timeout=90)))
""")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [EXPECTED_CHILD + [n] for n in range(4)]


# --------------------------------------------------------------------------------------------
# Ctrl-C reaches Python at once, and the abandoned work stops
# --------------------------------------------------------------------------------------------

# Rows each checked on the fuzzy rung against a 1 MB leaf with 4,000-character quotes that are
# not in it: a fraction of a second a ref, so the calls below take minutes uninterrupted.
LONG_CALLS = """
import json, os, random, resource, sys, time
import groundcheck
rng = random.Random(1)
words = ["".join(rng.choice("abcdefghij") for _ in range(6)) for _ in range(500)]
leaf = json.dumps({"log": " ".join(rng.choice(words) for _ in range(150_000))})
def refs(n):
    return {"evidence_refs": [{"raw_path": "$.log", "text": " ".join(rng.choice(words) for _ in range(570)) + f" q{i}"}
                              for i in range(n)]}
fuzzy = groundcheck.Policy(match="fuzzy", limits=groundcheck.Limits(max_refs=1000))
which = sys.argv[1]
if which == "invocation":
    call = lambda: groundcheck.Verifier(fuzzy).verify_invocation(
        {"id": 1, "tool_name": "q", "raw_output_text": leaf, "retrieval_details": refs(400)})
else:
    rows = [{"id": i, "run_id": "r", "tool_name": "q", "raw_output_text": leaf, "retrieval_details": refs(2)}
            for i in range(400)]
    verifier = groundcheck.Verifier(fuzzy, threads=1 if which == "run-one-thread" else None)
    call = lambda: verifier.verify_run(rows)
def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
print("calling", flush=True)
try:
    call()
    print("finished", flush=True)
except KeyboardInterrupt:
    interrupted = time.monotonic()
    print("interrupted", flush=True)
    if which == "invocation":
        # The one verification already running goes on to its end (minutes): nothing to
        # measure, so the process ends now rather than keep a core busy while the test waits.
        print(json.dumps({}), flush=True)
        os._exit(0)
    time.sleep(5)  # work already running on a row ends (seconds at most, on a loaded machine)
    before = cpu()
    time.sleep(2)
    print(json.dumps({"cpu_after": cpu() - before}), flush=True)
"""


@pytest.mark.parametrize("which", ["invocation", "run", "run-one-thread"])
@pytest.mark.slow
def test_ctrl_c_interrupts_a_long_call(which: str) -> None:
    child = subprocess.Popen([sys.executable, "-c", LONG_CALLS, which], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "calling"
        time.sleep(1.0)  # inside the call
        child.send_signal(signal.SIGINT)
        signalled = time.monotonic()
        line = child.stdout.readline().strip()
        waited = time.monotonic() - signalled
        # Uninterrupted, the call takes minutes; the interrupt comes within the slices the
        # caller waits in (loosely: far sooner than the call would end).
        assert line == "interrupted", child.stderr.read() if child.stderr else ""
        assert waited < 20, waited
        stats = json.loads(child.stdout.readline())
        child.wait(timeout=DEADLINE)
        assert child.returncode == 0
    finally:
        child.kill()
        child.wait()
    if which != "invocation":
        # The run's rows not begun are skipped: nothing keeps working once the call raised.
        # (One verification already running ends on its own: the engine has no way in.)
        assert stats["cpu_after"] < 0.5, stats


# --------------------------------------------------------------------------------------------
# A 64 KiB thread: the deepest documents the limits allow, in every format, at every entry
# --------------------------------------------------------------------------------------------

# Two verifiers: the shared pool's threads do the work, or (threads=1) the calling thread does.
# The child turns Python's cycle collector off: it ends within seconds, reference counting
# frees what it drops, and each collection would walk every deep value it still holds.
SMALL_STACK = """
import gc, json, sys, threading, tempfile, os
import groundcheck
gc.disable()
D = 999  # the query ceiling is 1,000 levels
objects = '{"a":' * D + '"connection refused"' + '}' * D
arrays = '[' * D + '"connection refused"' + ']' * D
in_string = json.dumps({"s": arrays})
lines = "\\n".join([objects, arrays, '{"a": "b"}'])
yaml_block = "- " * 510 + "b: connection refused\\n"
yaml_flow = "x: " + "[" * 510 + "connection refused" + "]" * 510 + "\\n"
yaml_map = "".join(" " * i + "a:\\n" for i in range(510)) + " " * 510 + "a: connection refused\\n"
filters = "$" + "[?(@.a || " * 8 + "@.b" + ")]" * 8
parens = "$[?" + "(" * 31 + "@.a" + ")" * 31 + "]"
docs = {"objects": objects, "arrays": arrays, "in_string": in_string, "lines": lines,
        "yaml_block": yaml_block, "yaml_flow": yaml_flow, "yaml_map": yaml_map}
paths = ["$..a", "$..b", "$..*", "$..[?search(@, 'refused')]", filters, parens]
policy = groundcheck.Policy(match="fuzzy", limits=groundcheck.Limits(max_depth=1000))
verifiers = [groundcheck.Verifier(policy), groundcheck.Verifier(policy, threads=1)]

def outcome(call):
    try:
        result = call()
    except groundcheck.GroundcheckError as e:
        return ["error", type(e).__name__]
    return ["ok", result]

def every_call():
    out = []
    for name, doc in docs.items():
        for path in paths:
            details = {"evidence_refs": [{"raw_path": path, "text": "connection refused"}]}
            rows = [{"id": 1, "run_id": "r", "tool_name": "q", "raw_output_text": doc, "retrieval_details": details},
                    {"id": 2, "run_id": "r", "tool_name": "q", "raw_output_text": doc,
                     "retrieval_details": json.dumps(details)}]
            out.append(outcome(lambda: [len(n) for n in [groundcheck.resolve(doc, path)]]))
            out.append(outcome(lambda: groundcheck.resolve(doc, path, groundcheck.Limits(max_depth=1000))[:1] and 1))
            for v in verifiers:
                out.append(outcome(lambda: [v.verify_invocation(r).to_json() for r in rows]))
                out.append(outcome(lambda: v.verify_run(rows).to_json()))
                out.append(outcome(lambda: v.verify_bundle_json(json.dumps({"invocations": rows})).to_json()))
    # Values built from Python objects: the deepest the limits query, and far deeper.
    for depth in (999, 5000):
        value = "connection refused"
        for _ in range(depth):
            value = {"a": [value]}
        r = {"id": 1, "tool_name": "q", "raw_output": value,
             "retrieval_details": {"evidence_refs": [{"raw_path": "$..a", "text": "refused"}]}}
        for v in verifiers:
            out.append(outcome(lambda: v.verify_invocation(r).to_json()))
            out.append(outcome(lambda: v.verify_run([r]).to_json()))
        out.append(outcome(lambda: len(groundcheck.resolve(value, "$..a", groundcheck.Limits(max_depth=1000)))))
    with tempfile.TemporaryDirectory() as tmp:
        bundle = os.path.join(tmp, "deep.json")
        with open(bundle, "w") as f:
            json.dump({"invocations": [{"id": 1, "tool_name": "q", "raw_output_text": arrays,
                                        "retrieval_details": {"evidence_refs": [{"raw_path": "$..*", "text": "x"}]}}]}, f)
        for v in verifiers:
            out.append(outcome(lambda: v.verify_bundle(bundle).to_json()))
    return out

on_main = every_call()
on_small = []
threading.stack_size(64 * 1024)
t = threading.Thread(target=lambda: on_small.extend(every_call()))
t.start()
t.join()
print(json.dumps({"same": on_small == on_main, "calls": len(on_main), "errors": sorted({o[1] for o in on_main if o[0] == "error"})}))
"""


@pytest.mark.slow(longest=True)
def test_every_entry_point_on_a_64_kib_thread_with_the_deepest_documents() -> None:
    done = run_python(SMALL_STACK, deadline=600)
    # A crash is a signal (SIGSEGV: -11), not an exception.
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    result = json.loads(done.stdout)
    assert result["same"], "the 64 KiB thread answered otherwise than the main thread"
    assert result["calls"] > 300
    # Every call answered, or raised a typed error of its input (`resolve` past a limit, a
    # filter nested past the path ceilings): none an InternalError.
    for name in result["errors"]:
        error = getattr(groundcheck, name)
        allowed = (groundcheck.LimitExceededError, groundcheck.InvalidDocumentError, groundcheck.InvalidPathError)
        assert issubclass(error, allowed), name


# --------------------------------------------------------------------------------------------
# resolve: the limits of a verification, and which one stopped it
# --------------------------------------------------------------------------------------------


def test_a_doubling_path_is_stopped_by_the_node_limit() -> None:
    # `$[*,*]` repeated selects each node twice: 22 segments on a 22-deep array would be 4 M
    # nodes (373 MB of answer); the node limit stops it before any is built.
    document: Any = 0
    for _ in range(22):
        document = [document]
    path = "$" + "[*,*]" * 22
    for doc in (document, json.dumps(document)):
        with pytest.raises(groundcheck.LimitExceededError, match="node") as stopped:
            groundcheck.resolve(doc, path)
        assert stopped.value.limit == "nodes"
        assert isinstance(stopped.value, groundcheck.GroundcheckError) and isinstance(stopped.value, ValueError)
    # Below the limit, the same path gives every node, repeats included.
    assert len(groundcheck.resolve(document, "$" + "[*,*]" * 10)) == 1024


def test_resolve_takes_the_limits_and_names_the_one_that_stopped_it() -> None:
    ten = list(range(10))
    assert len(groundcheck.resolve(ten, "$[*]", groundcheck.Limits(max_nodes=10))) == 10
    cases: list[tuple[Any, str, groundcheck.Limits, str]] = [
        (ten, "$[*]", groundcheck.Limits(max_nodes=9), "nodes"),
        (ten, "$[0]", groundcheck.Limits(max_path_chars=3), "path_length"),
        (json.dumps(ten), "$[0]", groundcheck.Limits(max_output_bytes=5), "output_size"),
        ("[" * 1001 + "]" * 1001, "$..*", groundcheck.Limits(), "depth"),
    ]
    for document, path, limits, name in cases:
        with pytest.raises(groundcheck.LimitExceededError) as stopped:
            groundcheck.resolve(document, path, limits)
        assert stopped.value.limit == name, (path, str(stopped.value))


# --------------------------------------------------------------------------------------------
# Every entry point turns a panic into InternalError (the test build injects one)
# --------------------------------------------------------------------------------------------

_VERIFIER = groundcheck.Verifier()
_REPORT = groundcheck.verify_run([row(), row(2, retrieval_details={"evidence_refs": [
    {"raw_path": "$.logs[1]", "text": "connection refused by pear"}]})])
_RUN = _REPORT.runs[0]
_VERDICT = _RUN.invocations[1]
_REF = _VERDICT.refs[0]
_NEAREST = _REF.nearest
_LIMITS = groundcheck.Limits()
_POLICY = groundcheck.Policy()
assert _NEAREST is not None

ENTRIES: dict[str, Callable[[], object]] = {
    "resolve": lambda: groundcheck.resolve({"a": 1}, "$.a"),
    "loads": lambda: groundcheck.resolve({"a": [1, {"b": 2.5}]}, "$.a"),
    "Limits.__new__": lambda: groundcheck.Limits(max_nodes=5),
    "Policy.__new__": lambda: groundcheck.Policy(match="fuzzy"),
    "Verifier.__new__": lambda: groundcheck.Verifier(),
    "Verifier.verify_invocation": lambda: _VERIFIER.verify_invocation(row()),
    "Verifier.verify_run": lambda: _VERIFIER.verify_run([row()]),
    "Verifier.verify_bundle": lambda: _VERIFIER.verify_bundle(ROOT / "fixtures" / "01_order_svc_5xx_spike.json"),
    "Verifier.verify_bundle_json": lambda: _VERIFIER.verify_bundle_json('{"invocations": []}'),
    "Verifier._time_verify": lambda: _VERIFIER._time_verify(row(), 1),
    "Verifier._time_verify_run": lambda: _VERIFIER._time_verify_run([row()]),
    "Verifier._read_rows": lambda: getattr(_VERIFIER, "_read_rows")([row()]),
    "engine": lambda: _VERIFIER.verify_run([row(i, 300) for i in range(40)]),
}
for _cls, _obj in [(groundcheck.Limits, _LIMITS), (groundcheck.Policy, _POLICY), (groundcheck.Verifier, _VERIFIER),
                   (groundcheck.Report, _REPORT), (groundcheck.RunReport, _RUN), (groundcheck.Summary, _RUN.summary),
                   (groundcheck.Verdict, _VERDICT), (groundcheck.RefReport, _REF), (groundcheck.Nearest, _NEAREST)]:
    for _name in vars(_cls):
        if _name.startswith("_") and _name not in ("__repr__", "__eq__", "__hash__"):
            continue
        _attr = vars(_cls)[_name]
        if _name == "__eq__":
            ENTRIES[f"{_cls.__name__}.{_name}"] = lambda o=_obj: o == o
        elif _name == "__hash__":
            if _attr is not None:
                ENTRIES[f"{_cls.__name__}.{_name}"] = lambda o=_obj: hash(o)
        elif _name == "__repr__":
            ENTRIES[f"{_cls.__name__}.{_name}"] = lambda o=_obj: repr(o)
        elif isinstance(_attr, type(groundcheck.Verdict.status)):  # a getter
            ENTRIES[f"{_cls.__name__}.{_name}"] = lambda o=_obj, n=_name: getattr(o, n)
        elif _name in ("to_json", "to_dict"):
            ENTRIES[f"{_cls.__name__}.{_name}"] = lambda o=_obj, n=_name: getattr(o, n)()


@pytest.mark.parametrize("entry", sorted(ENTRIES))
def test_a_panic_at_any_entry_point_is_an_internal_error(entry: str) -> None:
    call = ENTRIES[entry]
    call()  # works unarmed
    _groundcheck._panic_at(entry)  # type: ignore[attr-defined]
    try:
        with pytest.raises(groundcheck.InternalError, match=f"injected panic at {entry}"):
            call()
    finally:
        _groundcheck._panic_at(None)  # type: ignore[attr-defined]
    call()  # and the interpreter goes on


def test_the_guarded_entries_are_every_method_of_every_class() -> None:
    names = {e.split(".")[1] for e in ENTRIES if "." in e}
    for cls in (groundcheck.Verdict, groundcheck.RefReport, groundcheck.Report, groundcheck.RunReport):
        for method in ("to_json", "to_dict", "__eq__", "__hash__", "__repr__"):
            assert f"{cls.__name__}.{method}" in ENTRIES
    assert {"status", "refs", "nearest", "score", "limit", "summary", "invocations", "runs", "max_nodes", "key"} <= names
    assert len(ENTRIES) > 80


# --------------------------------------------------------------------------------------------
# The GIL: another thread runs while verify_run works
# --------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_another_thread_runs_while_verify_run_verifies() -> None:
    text = json.dumps({"logs": ["x " * 50 for _ in range(20_000)] + ["connection refused"]})
    details = json.dumps({"evidence_refs": [{"raw_path": "$.logs[*]", "text": "connection refused"}]})
    rows = [{"id": i, "run_id": "r", "tool_name": "q", "raw_output_text": text, "retrieval_details": details}
            for i in range(40)]
    ticks = [0]
    stop = threading.Event()

    def count() -> None:
        while not stop.is_set():
            ticks[0] += 1

    counter = threading.Thread(target=count)
    for verifier in (groundcheck.Verifier(), groundcheck.Verifier(threads=1)):
        counter_before = ticks[0]
        if not counter.is_alive():
            counter.start()
        started = ticks[0]
        report = verifier.verify_run(rows)
        during = ticks[0] - started
        assert report.runs[0].summary.supported == 40
        # Holding the GIL throughout, the call would let the counter run not at all.
        assert during > 1000, during
        assert ticks[0] >= counter_before
    stop.set()
    counter.join()
