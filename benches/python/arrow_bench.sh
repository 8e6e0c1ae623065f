#!/usr/bin/env bash
# verify_batch against the Rust core, and a local Spark job against reading its Parquet alone
# (benches/python/arrow_bench.py): the package built in release with the test-hooks feature (the
# floors, _BatchFloor and Verifier._time_verify_run) as a wheel installed into
# target/bench-venv (not `maturin develop`, which would put the extension into the source tree
# the test suites import), over the seeded corpus of examples/corpus.rs (N invocations, default
# 2,000). Needs Java 17 for Spark; SPARK=0 measures verify_batch's share alone; ROUNDS (40)
# the rounds of it, the best of each side kept.
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${N:-2000}
venv=target/bench-venv
wheels=target/bench-wheels
[[ -x $venv/bin/python ]] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check maturin pyarrow pyspark 'pandas<3'
rm -rf "$wheels"
(cd crates/groundcheck-py && "../../$venv/bin/maturin" build --release --quiet --features test-hooks --out "../../$wheels")
"$venv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheels"/groundcheck-*.whl
cargo build --release --quiet --example corpus
corpus=target/bench-corpus-$N
[[ -d $corpus ]] || target/release/examples/corpus --invocations "$N" --out "$corpus" >/dev/null
spark=()
[[ ${SPARK:-1} == 0 ]] && spark=(--no-spark)
"$venv/bin/python" benches/python/arrow_bench.py "$corpus" "${spark[@]}"
