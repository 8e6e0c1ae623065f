#!/usr/bin/env bash
# What a verify_evidence call over MCP costs (benches/mcp/bench.py): `groundcheck mcp` built in
# release, the Python package built in release into target/bench-venv with the MCP Python SDK.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=target/bench-venv
[[ -x $venv/bin/python ]] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check maturin mcp
(cd crates/groundcheck-py && VIRTUAL_ENV="$PWD/../../$venv" "../../$venv/bin/maturin" develop --release --quiet >&2)
cargo build --release --quiet --bin groundcheck
"$venv/bin/python" benches/mcp/bench.py target/release/groundcheck
