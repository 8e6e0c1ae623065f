#!/usr/bin/env bash
# The Python binding's costs (benches/python/bench.py), with the package built in release into
# target/bench-venv and the seeded corpus of examples/corpus.rs (N invocations, default 2,000).
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${N:-2000}
venv=target/bench-venv
[[ -x $venv/bin/python ]] || python3 -m venv "$venv"
# maturin builds the package; the peer (benches/peer) needs its pinned JSONPath library, and
# the bench its floors (benches/python/requirements.txt).
"$venv/bin/pip" install --quiet --disable-pip-version-check maturin -r benches/peer/requirements.txt \
  -r benches/python/requirements.txt
(cd crates/groundcheck-py && VIRTUAL_ENV="$PWD/../../$venv" "../../$venv/bin/maturin" develop --release --quiet --features test-hooks)
cargo build --release --quiet --example corpus
corpus=target/bench-corpus-$N
[[ -d $corpus ]] || target/release/examples/corpus --invocations "$N" --out "$corpus" >/dev/null
"$venv/bin/python" benches/python/bench.py "$corpus"
