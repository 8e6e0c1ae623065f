#!/usr/bin/env bash
# The Python package as users install it, in one command:
#
#   scripts/build-wheel.sh [--out DIR]
#   scripts/build-wheel.sh --prepare      only install the build tools (below), build nothing
#
# Builds into DIR (default target/wheels):
#   groundcheck-VERSION-cp310-abi3-manylinux2014_ARCH.manylinux_2_17_ARCH.whl
#       one wheel for every CPython from 3.10 (the stable ABI) on any Linux with glibc 2.17 or
#       later (RHEL/CentOS 7 on, Ubuntu 18.04 on, Debian 10 on), optimised and stripped;
#   groundcheck-VERSION.tar.gz
#       the sdist, for `pip install` on any other platform with Rust.
#
# The wheel links against glibc 2.17's symbols whatever glibc this machine has: it is linked,
# and its C compiled, by zig (the `ziglang` package from PyPI; scripts/zig.sh), so no manylinux
# container is needed, and maturin checks the symbols against manylinux2014's before it writes
# the wheel. maturin and ziglang are installed into target/wheel-venv (from PyPI) on first use.
# The release jar (scripts/build-jar.sh) is linked the same way, in the same target folder:
# whichever of the two is built second compiles only its own crate.
# The wheel's tags and the symbol versions it needs are checked by
# crates/groundcheck-py/tests/test_wheel.py (GROUNDCHECK_WHEEL names the wheel).
set -euo pipefail
cd "$(dirname "$0")/.."

log() { echo "build-wheel.sh: $*" >&2; }

out=target/wheels prepare_only=no
while (($#)); do
  case "$1" in
    --out) out="${2:?--out needs a folder}"; shift 2 ;;
    --prepare) prepare_only=yes; shift ;;
    *) log "unknown argument $1 (see the top of scripts/build-wheel.sh)"; exit 1 ;;
  esac
done
source scripts/zig.sh
zig_tools
[[ $prepare_only == no ]] || exit 0
mkdir -p "$out"
out="$(realpath "$out")"

log "building the manylinux2014 wheel (release, linked through zig)"
zig_link
maturin="$PWD/$zig_venv/bin/maturin"
(cd crates/groundcheck-py && "$maturin" build --quiet --release --locked --target "$zig_triple" \
  --compatibility manylinux2014 --out "$out")
log "building the sdist"
(cd crates/groundcheck-py && "$maturin" sdist --out "$out" >/dev/null)
ls -1 "$out" | sed 's/^/build-wheel.sh:   /' >&2
