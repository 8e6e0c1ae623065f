#!/usr/bin/env bash
# Criterion figures of this checkout against another commit's, measured in one sitting on
# one machine: the other commit's bench runs first and is saved as criterion's `base`
# baseline, then this checkout's runs against it, and criterion prints each change.
#
#   benches/compare.sh d8d3d38 'rung/(1MB|8MB)/miss'   # the near-miss search against before it
#
# The other commit is checked out in a temporary git worktree and built into this
# checkout's target directory, so only the workspace crates are compiled twice.
set -euo pipefail
base=${1:?usage: benches/compare.sh COMMIT [FILTER]}
filter=${2:-}
root=$(git rev-parse --show-toplevel)
tree=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$tree" >/dev/null 2>&1 || true; rm -rf "$tree"' EXIT
git -C "$root" worktree add --detach --quiet "$tree" "$base"
export CARGO_TARGET_DIR="$root/target"
echo "== $base" >&2
(cd "$tree" && cargo bench --quiet --bench verify -- --save-baseline base "$filter")
echo "== $(git -C "$root" rev-parse --short HEAD) against $base" >&2
(cd "$root" && cargo bench --quiet --bench verify -- --baseline base "$filter")
