#!/usr/bin/env bash
# What failing refs cost: `groundcheck verify --format json` of a seeded corpus
# with realistic failing refs (misquotes, wrong paths, inventions; examples/misses.rs) against the
# same corpus with those refs removed, and against the same with each added failing ref replaced
# by the hit it was made from (a hit loads its document too). Prints callgrind's instruction
# counts on one thread (the measure: deterministic on a shared machine), the ratios, and wall
# time on 1 and 2 threads.
#
#   benches/misses.sh                      # 1,000 invocations, 35 % of refs failing
#   N=300 CALLGRIND=0 benches/misses.sh    # smaller, wall time only
#
# Environment: N (default 1000), PER_FILE (35), SCALE (15), SEED (7), EXTRA (33: percentage of
# invocations given one more failing ref), REPEAT (3: wall-time rounds, interleaved, best kept),
# CALLGRIND (1; 0 skips valgrind), KEEP=1 keeps the temporary folder, CORPUS=DIR uses corpora
# already written there (DIR/with, DIR/without, DIR/hits), CARGO_TARGET_DIR is respected.
set -euo pipefail

N=${N:-1000}
PER_FILE=${PER_FILE:-35}
SCALE=${SCALE:-15}
SEED=${SEED:-7}
EXTRA=${EXTRA:-33}
REPEAT=${REPEAT:-3}
CALLGRIND=${CALLGRIND:-1}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/benches/lib.sh"
bench_tmp misses

cd "$ROOT"
cargo build --release --quiet --bin groundcheck --example misses
TARGET=$(realpath -m "${CARGO_TARGET_DIR:-$ROOT/target}")
GC="$TARGET/release/groundcheck"

CORPUS=${CORPUS:-$TMP/corpus}
if [[ ! -d "$CORPUS/hits" ]]; then
  "$TARGET/release/examples/misses" --invocations "$N" --per-file "$PER_FILE" --scale "$SCALE" \
    --seed "$SEED" --extra "$EXTRA" --out "$CORPUS"
fi
for side in with without hits; do
  echo "$side: $(find "$CORPUS/$side" -name '*.json' | wc -l) bundles, $(cat "$CORPUS/$side"/*.json | wc -c) bytes"
done
echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates src || echo ' (modified)'); $(date -u '+%F %R UTC')"
echo "load: $(uptime)"

if [[ "$CALLGRIND" == 1 ]]; then
  command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind), or CALLGRIND=0" >&2; exit 1; }
  for side in with without hits; do
    RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.$side" \
      "$GC" verify "$CORPUS/$side" --format json >"$TMP/report.$side" 2>"$TMP/vg.$side" || true
    grep -o 'Collected : [0-9]*' "$TMP/vg.$side" | grep -o '[0-9]*$' >"$TMP/ir.$side"
  done
  with=$(cat "$TMP/ir.with") without=$(cat "$TMP/ir.without") hits=$(cat "$TMP/ir.hits")
  printf 'instructions, 1 thread: with failing refs %s, without %s, ratio %.3f (target <= 1.3)\n' \
    "$with" "$without" "$(awk -v a="$with" -v b="$without" 'BEGIN {print a / b}')"
  printf 'instructions, 1 thread: hits in place of the added failing refs %s; with / hits %.3f\n' \
    "$hits" "$(awk -v a="$with" -v b="$hits" 'BEGIN {print a / b}')"
fi

# Wall time: best of REPEAT interleaved rounds.
best() {
  local label=$1 t0 secs
  shift
  t0=$EPOCHREALTIME
  "$@" >/dev/null
  secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {print b - a}')
  if [[ ! -f "$TMP/$label" ]] || awk -v a="$secs" -v b="$(cat "$TMP/$label")" 'BEGIN {exit !(a < b)}'; then
    echo "$secs" >"$TMP/$label"
  fi
}
"$GC" verify "$CORPUS/with" --format json >/dev/null || true # warm the page cache
for _ in $(seq 1 "$REPEAT"); do
  for threads in 1 2; do
    for side in with without hits; do
      best "$side.$threads" env RAYON_NUM_THREADS=$threads "$GC" verify "$CORPUS/$side" --format json || true
    done
  done
done
for threads in 1 2; do
  printf 'wall, %s thread(s): with %.3f s, without %.3f s, hits %.3f s, ratio %.2f (with / hits %.2f)\n' \
    "$threads" "$(cat "$TMP/with.$threads")" "$(cat "$TMP/without.$threads")" "$(cat "$TMP/hits.$threads")" \
    "$(awk -v a="$(cat "$TMP/with.$threads")" -v b="$(cat "$TMP/without.$threads")" 'BEGIN {print a / b}')" \
    "$(awk -v a="$(cat "$TMP/with.$threads")" -v b="$(cat "$TMP/hits.$threads")" 'BEGIN {print a / b}')"
done
