#!/usr/bin/env bash
# `groundcheck verify` of bundle files against its floor: serde_json validate-only of the same
# bytes (examples/floor.rs), every process timed the same way in one run.
#
#   benches/floor.sh                          # 1,000 invocations in 22 bundles, 81 MB
#   N=5000 PER_FILE=250 SCALE=10 benches/floor.sh
#
# Environment: N (default 1000), PER_FILE (default 35), SCALE (default 15: output sizes),
# SEED (default 7), REPEAT (default 5; the rounds are interleaved, best of each kept), KEEP=1
# keeps the temporary folder, CORPUS=DIR uses bundles already there, CARGO_TARGET_DIR is
# respected. Every raw output is a `raw_output_text`. Prints MB/s of bundle bytes, peak RSS
# (/usr/bin/time, Debian package `time`) and the ratios to the floor.
set -euo pipefail

N=${N:-1000}
PER_FILE=${PER_FILE:-35}
SCALE=${SCALE:-15}
SEED=${SEED:-7}
REPEAT=${REPEAT:-5}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/benches/lib.sh"
bench_tmp floor
need_gnu_time

cd "$ROOT"
cargo build --release --quiet --bin groundcheck --example corpus --example floor
TARGET=$(realpath -m "${CARGO_TARGET_DIR:-$ROOT/target}")
GC="$TARGET/release/groundcheck"
FLOOR="$TARGET/release/examples/floor"

CORPUS=${CORPUS:-$TMP/corpus}
if [[ ! -d "$CORPUS" ]]; then
  "$TARGET/release/examples/corpus" --invocations "$N" --per-file "$PER_FILE" --scale "$SCALE" \
    --seed "$SEED" --out "$CORPUS" 2>/dev/null
fi
BYTES=$(cat "$CORPUS"/*.json | wc -c)
LARGEST=$(find "$CORPUS" -maxdepth 1 -name '*.json' -printf '%s\n' | sort -n | tail -1)
FILES=$(find "$CORPUS" -maxdepth 1 -name '*.json' | wc -l)
echo "corpus: $FILES bundles, $BYTES bytes, largest $LARGEST bytes"
echo "load: $(uptime)"

# run LABEL command...: wall seconds, CPU seconds (user + system) and peak RSS (KB) of one
# run; the run with the least wall time is kept in $TMP/LABEL. On a loaded machine the CPU
# time of the one-thread runs is the steadier figure: wall time there includes waiting for a core.
run() {
  local label=$1
  shift
  local t0=$EPOCHREALTIME secs user sys kb
  /usr/bin/time -f '%U %S %M' -o "$TMP/t" "$@" >"$TMP/out" 2>"$TMP/err" || { cat "$TMP/err" >&2; exit 1; }
  secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {print b - a}')
  read -r user sys kb <"$TMP/t"
  if [[ ! -f "$TMP/$label" ]] || awk -v a="$secs" -v b="$(cut -d' ' -f1 "$TMP/$label")" 'BEGIN {exit !(a < b)}'; then
    echo "$secs $(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}') $kb" >"$TMP/$label"
  fi
}
"$GC" verify "$CORPUS" --format json >/dev/null # warm the page cache
for _ in $(seq 1 "$REPEAT"); do
  run validate "$FLOOR" validate "$CORPUS"
  run verify_1 env RAYON_NUM_THREADS=1 "$GC" verify "$CORPUS" --format json
  run verify_2 env RAYON_NUM_THREADS=2 "$GC" verify "$CORPUS" --format json
  run naive "$FLOOR" naive "$CORPUS"
done

secs() { cut -d' ' -f1 "$TMP/$1"; }
cpu() { cut -d' ' -f2 "$TMP/$1"; }
printf '%-34s %8s %10s %6s %8s %8s %13s\n' "" wall MB/s floor/x cpu floor/x "peak RSS"
line() {
  read -r s c kb <"$TMP/$1"
  printf '%-34s %7.3fs %10.1f %6.2f %7.2fs %8.2f %10d KB\n' "$2" "$s" \
    "$(awk -v b="$BYTES" -v s="$s" 'BEGIN {print b / s / 1e6}')" \
    "$(awk -v f="$(secs validate)" -v s="$s" 'BEGIN {print f / s}')" "$c" \
    "$(awk -v f="$(cpu validate)" -v c="$c" 'BEGIN {print (c > 0 ? f / c : 0)}')" "$kb"
}
line validate "floor: serde_json validate-only"
line naive "naive: Value + each inner text"
line verify_1 "verify, 1 thread"
line verify_2 "verify, 2 threads"
awk -v one="$(secs verify_1)" -v two="$(secs verify_2)" -v kb="$(cut -d' ' -f3 "$TMP/verify_1")" -v big="$LARGEST" \
  'BEGIN {printf "2 threads / 1 thread: %.2fx (target >= 1.8); verify 1 thread peak RSS / largest file: %.1fx\n", one / two, kb * 1024 / big}'
echo "floor/x: the floor's time over this line's (1.00: as fast as the floor). Targets: verify 1 thread >= 0.50 x floor; peak RSS <= 2 x largest file + a constant"
