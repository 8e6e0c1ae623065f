#!/usr/bin/env bash
# Side-by-side: groundcheck (1 and 2 rayon threads) against peer.py, the Python a team would
# write instead, on a generated corpus. See benches/peer/README.md.
#
#   benches/peer/compare.sh              # 20,000 invocations
#   N=200000 benches/peer/compare.sh     # 200,000 invocations
#
# Environment: N (invocations, default 20000), REPEAT (default 3), SEED (default 7),
# PYTHON (default python3.11, else python3), KEEP=1 keeps the temporary folder,
# CARGO_TARGET_DIR is respected.
set -euo pipefail

N=${N:-20000}
REPEAT=${REPEAT:-3}
SEED=${SEED:-7}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/benches/lib.sh"
bench_tmp peer

say() { printf '\n== %s\n' "$*"; }

# --- /usr/bin/time (Debian package `time`) -------------------------------------------------
need_gnu_time

# --- 1. build ----------------------------------------------------------------------------------
say "building groundcheck and the corpus generator (release)"
cd "$ROOT"
cargo build --release --bin groundcheck --example corpus
TARGET=$(realpath -m "${CARGO_TARGET_DIR:-$ROOT/target}")
GC="$TARGET/release/groundcheck"
GEN="$TARGET/release/examples/corpus"

# --- 2. corpus ---------------------------------------------------------------------------------
say "generating $N invocations (seed $SEED)"
"$GEN" --invocations "$N" --out "$TMP/corpus" --seed "$SEED"
CORPUS_BYTES=$(find "$TMP/corpus" -maxdepth 1 -name '*.json' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
FILES=$(find "$TMP/corpus" -maxdepth 1 -name '*.json' | wc -l)
echo "corpus: $FILES files, $CORPUS_BYTES bytes"

# --- 3. the peer's venv ------------------------------------------------------------------------
if [[ -x "$HERE/.venv/bin/python" ]]; then
  VENV="$HERE/.venv"
  say "reusing $VENV"
else
  PY=${PYTHON:-$(command -v python3.11 || command -v python3)}
  VENV="$TMP/venv"
  say "creating a venv with $PY"
  "$PY" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$HERE/requirements.txt"
PEER_PY="$VENV/bin/python"
echo "peer runs on $("$PEER_PY" --version 2>&1)"

# --- 4. timings --------------------------------------------------------------------------------
LOAD_BEFORE=$(uptime)
TIMES="$TMP/times.tsv"
: >"$TIMES"
timed() { # timed TOOL THREADS OUT -- command...
  local tool=$1 threads=$2 out=$3
  shift 4
  # %e wall seconds, %M peak RSS in KB; %U %S (user, system CPU seconds) as well, since
  # on a shared machine CPU time is steadier than wall time.
  /usr/bin/time -f '%e %M %U %S' -o "$TMP/time.txt" "$@" >"$out"
  read -r secs rss user sys <"$TMP/time.txt"
  printf '%s\t%s\t%s\t%s\t%s\n' "$tool" "$threads" "$secs" "$rss" "$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')" >>"$TIMES"
  printf '  %-12s threads=%s  %6ss wall  %6ss cpu  %8s KB\n' "$tool" "$threads" "$secs" "$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')" "$rss"
}
say "timing, $REPEAT rounds (each round: groundcheck 1 thread, 2 threads, peer)"
for round in $(seq 1 "$REPEAT"); do
  echo "round $round"
  RAYON_NUM_THREADS=1 timed groundcheck 1 "$TMP/gc-1.jsonl" -- "$GC" verify --format jsonl "$TMP/corpus"
  RAYON_NUM_THREADS=2 timed groundcheck 2 "$TMP/gc-2.jsonl" -- "$GC" verify --format jsonl "$TMP/corpus"
  timed peer.py 1 "$TMP/peer.jsonl" -- "$PEER_PY" "$HERE/peer.py" "$TMP/corpus"
done
LOAD_AFTER=$(uptime)

# --- 5. the table ------------------------------------------------------------------------------
say "results: $N invocations, $(awk -v b="$CORPUS_BYTES" 'BEGIN {printf "%.1f", b / 1e6}') MB of bundles in $FILES files, median of $REPEAT"
"$PEER_PY" "$HERE/report.py" table "$TIMES" "$CORPUS_BYTES" "$N"
echo
echo "machine: $(nproc) cores; load before: ${LOAD_BEFORE#*load average: }; after: ${LOAD_AFTER#*load average: }"
echo "note: the machine may be shared; for the scaling figure re-run when the second core is idle (load average well below 1)."

# --- 6. agreement ------------------------------------------------------------------------------
say "agreement (status and reason per invocation, peer vs groundcheck 1 thread)"
if ! cmp -s "$TMP/gc-1.jsonl" "$TMP/gc-2.jsonl"; then
  echo "warning: groundcheck's output differs between 1 and 2 threads"
fi
"$PEER_PY" "$HERE/report.py" agree "$TMP/peer.jsonl" "$TMP/gc-1.jsonl"
