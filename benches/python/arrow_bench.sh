#!/usr/bin/env bash
# verify_batch against the Rust core, and a local Spark job against reading its Parquet alone
# (benches/python/arrow_bench.py): the package built in release (with the test-hooks feature, for
# Verifier._time_verify_run) into target/bench-venv, the
# seeded corpus of examples/corpus.rs (N invocations, default 2,000). Needs Java 17 for Spark.
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${N:-2000}
venv=target/bench-venv
[[ -x $venv/bin/python ]] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check maturin pyarrow pyspark 'pandas<3'
(cd crates/groundcheck-py && VIRTUAL_ENV="$PWD/../../$venv" "../../$venv/bin/maturin" develop --release --quiet --features test-hooks)
cargo build --release --quiet --example corpus
corpus=target/bench-corpus-$N
[[ -d $corpus ]] || target/release/examples/corpus --invocations "$N" --out "$corpus" >/dev/null
"$venv/bin/python" benches/python/arrow_bench.py "$corpus"
