# What every bench script does before it measures; sourced, not run:
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"     (from benches/peer: ../lib.sh)

# bench_tmp NAME: a new temporary folder in $TMP, removed at exit unless KEEP=1.
bench_tmp() {
  TMP=$(mktemp -d "${TMPDIR:-/tmp}/groundcheck-$1.XXXXXX")
  if [[ "${KEEP:-0}" == 1 ]]; then echo "keeping $TMP"; else trap 'rm -rf "$TMP"' EXIT; fi
}

# need_gnu_time: /usr/bin/time (Debian package `time`), which measures peak RSS, installed
# with apt when missing.
need_gnu_time() {
  [[ -x /usr/bin/time ]] && return
  local sudo
  sudo=$([[ $(id -u) == 0 ]] && echo "" || echo sudo)
  $sudo apt-get install -y -qq time >/dev/null || { $sudo apt-get update -qq && $sudo apt-get install -y -qq time >/dev/null; }
}
