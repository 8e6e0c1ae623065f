#!/usr/bin/env bash
# `groundcheck reverify` against its floor on each engine: a bare sqlx SELECT of the same rows
# and columns (examples/bare_select.rs), timed in the same run. The targets (SQLite):
# 1 thread <= 1.5x the SELECT, --write <= 2x, 2 threads >= 1.8x as fast as 1. "1 thread" is
# RAYON_NUM_THREADS=1 (one verification thread; reading and writing still run beside it);
# "1 core" is the same pinned to one CPU with taskset, where every stage shares that core.
#
#   benches/reverify.sh                    # SQLite, 20,000 invocations
#   ENGINE=all benches/reverify.sh         # SQLite, MariaDB and PostgreSQL, one after the other
#   ENGINE=postgres N=200000 benches/reverify.sh
#
# Environment: ENGINE (sqlite, mariadb, postgres or all; default sqlite), N (default 20000),
# SEED (default 7), REPEAT (default 3: rounds of every command once, interleaved, the best of
# each kept), KEEP=1 keeps the temporary folder, CARGO_TARGET_DIR is respected. MariaDB and
# PostgreSQL are the servers of scripts/test-databases.sh (started here when not running;
# GROUNDCHECK_DB_STATE and the port variables are respected): the bench empties their test
# database, so do not run the storage tests against the same servers meanwhile. Prints one
# line per timed command and the ratios; peak RSS is measured with /usr/bin/time (Debian
# package `time`).
set -euo pipefail

ENGINE=${ENGINE:-sqlite}
N=${N:-20000}
SEED=${SEED:-7}
REPEAT=${REPEAT:-3}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/benches/lib.sh"
bench_tmp reverify
case "$ENGINE" in
  all) ENGINES=(sqlite mariadb postgres) ;;
  sqlite | mariadb | postgres) ENGINES=("$ENGINE") ;;
  *) echo "ENGINE: expected sqlite, mariadb, postgres or all, got $ENGINE" >&2; exit 2 ;;
esac
need_gnu_time

cd "$ROOT"
cargo build --release --bin groundcheck --example corpus --example bare_select
TARGET=$(realpath -m "${CARGO_TARGET_DIR:-$ROOT/target}")
GC="$TARGET/release/groundcheck"
"$TARGET/release/examples/corpus" --invocations "$N" --out "$TMP/corpus" --seed "$SEED"

servers=()
for engine in "${ENGINES[@]}"; do [[ $engine == sqlite ]] || servers+=("$engine"); done
if ((${#servers[@]})); then
  env=$(bash "$ROOT/scripts/test-databases.sh" start "${servers[@]}")
  eval "$env"
fi

# empty ENGINE URL: drops what groundcheck made in a server's test database, as the tests do.
empty() {
  case "$1" in
    mariadb)
      mariadb --protocol=tcp -h 127.0.0.1 -P "${GROUNDCHECK_MYSQL_PORT:-33306}" -u groundcheck \
        -pgroundcheck-test-pw groundcheck_test -e "DROP TABLE IF EXISTS evidence_verification, \
        tool_invocation_output, tool_invocation, reverify_checkpoint, _sqlx_migrations, groundcheck_migrations" ;;
    postgres)
      psql -q "$2" -c "DROP TABLE IF EXISTS evidence_verification, tool_invocation_output, \
        tool_invocation, reverify_checkpoint, _sqlx_migrations, groundcheck_migrations CASCADE" 2>/dev/null ;;
  esac
}

# analyze ENGINE URL: statistics for the tables just loaded, as a live server has them. Autovacuum
# analyses a bulk-loaded table within a minute or so; until then PostgreSQL plans the job's
# selects as for tables it knows nothing of, so which plan a round got depended on when the
# analysis came. SQLite has no such statistics unless someone runs ANALYZE: none is made.
analyze() {
  case "$1" in
    mariadb)
      mariadb --protocol=tcp -h 127.0.0.1 -P "${GROUNDCHECK_MYSQL_PORT:-33306}" -u groundcheck \
        -pgroundcheck-test-pw groundcheck_test -e "ANALYZE TABLE tool_invocation, tool_invocation_output, \
        evidence_verification" >/dev/null ;;
    postgres)
      psql -q "$2" -c "ANALYZE tool_invocation, tool_invocation_output, evidence_verification" ;;
  esac
}

# timed LABEL -- command...: runs the command once, keeping its best wall seconds and the
# peak RSS (KB) of that run. The caller repeats a round of every command REPEAT times, so
# that a change of load on the shared machine hits every command alike.
timed() {
  local label=$1 secs kb best
  shift 2
  /usr/bin/time -f '%e %M' -o "$TMP/t" "$@" >"$TMP/out" 2>/dev/null
  read -r secs kb <"$TMP/t"
  best=$(cat "$TMP/$label.secs" 2>/dev/null || true)
  if [[ -z "$best" ]] || awk -v a="$secs" -v b="$best" 'BEGIN {exit !(a < b)}'; then
    echo "$secs" >"$TMP/$label.secs"
    echo "$kb" >"$TMP/$label.rss"
  fi
}

# report LABEL: the best time of LABEL as one line.
report() {
  local best rss
  best=$(cat "$TMP/$1.secs") rss=$(cat "$TMP/$1.rss")
  printf '%-28s %8ss  %9.0f rows/s  %8s KB peak\n' "$1" "$best" "$(awk -v n="$N" -v s="$best" 'BEGIN {print n / s}')" "$rss"
}

ratio() { awk -v a="$(cat "$TMP/$1.secs")" -v b="$(cat "$TMP/$2.secs")" 'BEGIN {printf "%.2f", a / b}'; }

for engine in "${ENGINES[@]}"; do
  case "$engine" in
    sqlite) DB="sqlite://$TMP/gc.db" ;;
    mariadb) DB=$GROUNDCHECK_TEST_MYSQL_URL ;;
    postgres) DB=$GROUNDCHECK_TEST_POSTGRES_URL ;;
  esac
  empty "$engine" "$DB"
  [[ $engine == sqlite ]] || "$GC" migrate --database "$DB" >/dev/null
  "$GC" import --database "$DB" "$TMP/corpus" >/dev/null
  echo "== $engine: $N invocations; $(uptime)"

  "$GC" reverify --database "$DB" --write --format json >/dev/null # first write: inserts
  analyze "$engine" "$DB"
  rm -f "$TMP"/*.secs "$TMP"/*.rss
  for _ in $(seq 1 "$REPEAT"); do
    timed bare_select -- "$TARGET/release/examples/bare_select" "$DB"
    timed reverify_2_threads -- env RAYON_NUM_THREADS=2 "$GC" reverify --database "$DB" --format json
    timed reverify_1_thread -- env RAYON_NUM_THREADS=1 "$GC" reverify --database "$DB" --format json
    timed reverify_1_core -- taskset -c 0 env RAYON_NUM_THREADS=1 "$GC" reverify --database "$DB" --format json
    timed reverify_write_2_threads -- env RAYON_NUM_THREADS=2 "$GC" reverify --database "$DB" --write --format json
  done
  for label in bare_select reverify_2_threads reverify_1_thread reverify_1_core reverify_write_2_threads; do
    report "$label"
  done

  echo "$engine: reverify / bare SELECT time: $(ratio reverify_1_thread bare_select) (1 thread; target <= 1.5)," \
    "$(ratio reverify_2_threads bare_select) (2 threads), $(ratio reverify_write_2_threads bare_select)" \
    "(--write, 2 threads; target <= 2); 2 threads $(ratio reverify_1_thread reverify_2_threads)x as fast as 1 (target >= 1.8)," \
    "2 cores $(ratio reverify_1_core reverify_2_threads)x as fast as 1"
  [[ $engine == sqlite ]] || empty "$engine" "$DB"
done
