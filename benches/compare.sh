#!/usr/bin/env bash
# Criterion figures of this checkout against another commit's, measured in one sitting on
# one machine: the other commit's bench runs first and is saved as criterion's `base`
# baseline, then this checkout's runs against it, and criterion prints each change.
#
#   benches/compare.sh d8d3d38 'rung/(1MB|8MB)/miss'   # the near-miss search against before it
#
# The other commit is checked out in a temporary git worktree and built in a target
# directory of its own (`target/compare-base`, kept between runs so only what changed is
# rebuilt). Never this checkout's: cargo names workspace artifacts by their path relative to
# the workspace, so two checkouts sharing one target directory overwrite each other's
# artifacts and judge them fresh by time stamps. Both runs keep criterion's results in
# this checkout's `target/criterion`.
set -euo pipefail
base=${1:?usage: benches/compare.sh COMMIT [FILTER]}
filter=${2:-}
root=$(git rev-parse --show-toplevel)
tree=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$tree" >/dev/null 2>&1 || true; rm -rf "$tree"' EXIT
git -C "$root" worktree add --detach --quiet "$tree" "$base"
export CRITERION_HOME="$root/target/criterion"
echo "== $base" >&2
(cd "$tree" && CARGO_TARGET_DIR="$root/target/compare-base" cargo bench --quiet --bench verify -- --save-baseline base "$filter")
echo "== $(git -C "$root" rev-parse --short HEAD) against $base" >&2
(cd "$root" && cargo bench --quiet --bench verify -- --baseline-lenient base "$filter")
