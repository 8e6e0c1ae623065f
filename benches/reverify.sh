#!/usr/bin/env bash
# `groundcheck reverify` from SQLite against its floor: a bare sqlx SELECT of the same rows
# (examples/bare_select.rs). Issue #5's target: reverify's rows/s within 2x of the SELECT's.
#
#   benches/reverify.sh              # 20,000 invocations
#   N=200000 benches/reverify.sh     # the issue's large corpus (about 1.4 GB of database)
#
# Environment: N (default 20000), SEED (default 7), REPEAT (default 3), KEEP=1 keeps the
# temporary folder, CARGO_TARGET_DIR is respected. Prints one line per timed command and the
# ratios; peak RSS is measured with /usr/bin/time (Debian package `time`).
set -euo pipefail

N=${N:-20000}
SEED=${SEED:-7}
REPEAT=${REPEAT:-3}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/groundcheck-reverify.XXXXXX")
if [[ "${KEEP:-0}" == 1 ]]; then echo "keeping $TMP"; else trap 'rm -rf "$TMP"' EXIT; fi
if [[ ! -x /usr/bin/time ]]; then
  SUDO=$([[ $(id -u) == 0 ]] && echo "" || echo sudo)
  $SUDO apt-get install -y -qq time >/dev/null || { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq time >/dev/null; }
fi

cd "$ROOT"
cargo build --release --bin groundcheck --example corpus --example bare_select
TARGET=$(realpath -m "${CARGO_TARGET_DIR:-$ROOT/target}")
GC="$TARGET/release/groundcheck"
DB="sqlite://$TMP/gc.db"

"$TARGET/release/examples/corpus" --invocations "$N" --out "$TMP/corpus" --seed "$SEED"
"$GC" import --database "$DB" "$TMP/corpus" >/dev/null
echo "database: $(du -h "$TMP/gc.db" | cut -f1), $N invocations; $(uptime)"

# timed LABEL -- command...: wall seconds and peak RSS (KB) of the command, best of REPEAT.
timed() {
  local label=$1 best="" rss=""
  shift 2
  for _ in $(seq 1 "$REPEAT"); do
    /usr/bin/time -f '%e %M' -o "$TMP/t" "$@" >"$TMP/out" 2>/dev/null
    read -r secs kb <"$TMP/t"
    if [[ -z "$best" ]] || awk -v a="$secs" -v b="$best" 'BEGIN {exit !(a < b)}'; then best=$secs rss=$kb; fi
  done
  printf '%-28s %8ss  %9.0f rows/s  %8s KB peak\n' "$label" "$best" "$(awk -v n="$N" -v s="$best" 'BEGIN {print n / s}')" "$rss"
  echo "$best" >"$TMP/$label.secs"
}

timed bare_select -- "$TARGET/release/examples/bare_select" "$DB"
timed reverify_2_threads -- env RAYON_NUM_THREADS=2 "$GC" reverify --database "$DB" --format json
timed reverify_1_thread -- env RAYON_NUM_THREADS=1 "$GC" reverify --database "$DB" --format json
"$GC" reverify --database "$DB" --write --format json >/dev/null # first write: inserts
timed reverify_write_2_threads -- env RAYON_NUM_THREADS=2 "$GC" reverify --database "$DB" --write --format json

ratio() { awk -v a="$(cat "$TMP/$1.secs")" -v b="$(cat "$TMP/bare_select.secs")" 'BEGIN {printf "%.2f", a / b}'; }
echo "reverify / bare SELECT time: $(ratio reverify_2_threads) (2 threads), $(ratio reverify_1_thread) (1 thread), $(ratio reverify_write_2_threads) (--write, 2 threads); target <= 2"
