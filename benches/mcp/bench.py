"""What a `verify_evidence` call over MCP costs, beside the same verification in-process.

    benches/mcp/bench.sh            (builds the binary and the Python package in release)

1. The round trip over stdio: a request written on `groundcheck mcp`'s stdin until its answer
   is read from stdout, 1,000 calls one after another, each on a 1 KB raw output. The client is
   a bare pipe: every request is encoded before timing starts and the answer is not parsed
   while timed, so client time is as small as it can be. Median and p99.
2. The same call through the official MCP Python SDK (`ClientSession.call_tool`, which also
   validates the result against the tool's outputSchema): what an agent written in Python pays.
3. The same verification in-process: the Python binding's `verify_invocation` (median over
   1,000 calls) and the core alone in Rust (`Verifier._time_verify`, mean).

Prints one line each, and the ratio of the stdio round trip to the in-process call.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

import groundcheck

CALLS = 1_000
RAW_OUTPUT = {
    "logs": [
        {"ts": f"2026-11-30T10:00:{i:02}Z", "level": "ERROR", "message": f"dial tcp 10.0.0.{i}:5432: connection refused"}
        for i in range(10)
    ]
}
REFS = [{"raw_path": "$.logs[7].message", "text": "connection refused"}]
ARGUMENTS = {"tool_name": "query_logs", "raw_output": RAW_OUTPUT, "evidence_status": "supported", "evidence_refs": REFS}
ROW = {"id": 1, "tool_name": "query_logs", "raw_output": RAW_OUTPUT,
       "retrieval_details": {"evidence_status": "supported", "evidence_refs": REFS}}


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def stdio(binary: str) -> list[float]:
    server = subprocess.Popen([binary, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert server.stdin is not None and server.stdout is not None
    out = server.stdout

    def line(message: dict[str, Any]) -> bytes:
        return json.dumps(message, separators=(",", ":")).encode() + b"\n"

    def answer() -> bytes:
        data = b""
        while not data.endswith(b"\n"):
            data += out.read1(1 << 16) if hasattr(out, "read1") else os.read(out.fileno(), 1 << 16)
        return data

    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}
    server.stdin.write(line({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}))
    answer()
    server.stdin.write(line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    requests = [
        line({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
              "params": {"name": "verify_evidence", "arguments": ARGUMENTS}})
        for i in range(CALLS + 100)
    ]
    samples = []
    for i, request in enumerate(requests):
        started = time.perf_counter()
        server.stdin.write(request)
        reply = answer()
        elapsed = time.perf_counter() - started
        if i >= 100:  # the first 100 warm up
            samples.append(elapsed)
    verdict = json.loads(reply)["result"]["structuredContent"]
    assert verdict["status"] == "supported", verdict
    server.stdin.close()
    server.wait()
    return samples


async def sdk(binary: str) -> list[float]:
    samples = []
    params = StdioServerParameters(command=binary, args=["mcp"])
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await session.list_tools()
                for i in range(CALLS + 100):
                    started = time.perf_counter()
                    result = await session.call_tool("verify_evidence", ARGUMENTS)
                    elapsed = time.perf_counter() - started
                    if i >= 100:
                        samples.append(elapsed)
                assert isinstance(result, types.CallToolResult) and not result.is_error
    return samples


def in_process() -> tuple[list[float], float]:
    verifier = groundcheck.Verifier()
    for _ in range(100):
        verifier.verify_invocation(ROW)
    samples = []
    for _ in range(CALLS):
        started = time.perf_counter()
        verifier.verify_invocation(ROW)
        samples.append(time.perf_counter() - started)
    rust = min(verifier._time_verify(ROW, 20_000, "text") for _ in range(5)) / 20_000
    return samples, rust


def main() -> None:
    binary = sys.argv[1]
    size = len(json.dumps(RAW_OUTPUT, separators=(",", ":")))
    pipe = stdio(binary)
    client = anyio.run(sdk, binary)
    python, rust = in_process()
    us = 1e6
    print(f"raw output {size} B, {CALLS} calls each (after 100 to warm up)")
    print(f"stdio round trip, bare pipe: median {statistics.median(pipe) * us:.0f} µs, "
          f"p99 {percentile(pipe, 0.99) * us:.0f} µs")
    print(f"stdio round trip, MCP Python SDK: median {statistics.median(client) * us:.0f} µs, "
          f"p99 {percentile(client, 0.99) * us:.0f} µs")
    print(f"in-process, Python binding verify_invocation: median {statistics.median(python) * us:.1f} µs, "
          f"p99 {percentile(python, 0.99) * us:.1f} µs; Rust alone {rust * us:.1f} µs")
    print(f"ratio, stdio (bare pipe) / in-process (Python binding): {statistics.median(pipe) / statistics.median(python):.1f}×; "
          f"/ Rust alone: {statistics.median(pipe) / rust:.1f}×")


if __name__ == "__main__":
    main()
