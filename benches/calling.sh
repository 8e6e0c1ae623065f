#!/usr/bin/env bash
# What each way of calling groundcheck costs, one after the other in one sitting: the Python
# binding (benches/python), the Java binding (benches/java) and a verify_evidence call over MCP
# (benches/mcp). Each prints its figures against floors taken in its own process (the same
# verification in Rust alone); the load average is printed before each, since two shared cores
# make wall-clock figures move. `benches/README.md`, "What each way of calling costs", gathers
# them in one table.
set -euo pipefail
cd "$(dirname "$0")/.."
for bench in python java mcp; do
  echo "== $bench: $(uptime)"
  bash "benches/$bench/bench.sh"
done
echo "== done: $(uptime)"
