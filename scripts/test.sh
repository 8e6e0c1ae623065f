#!/usr/bin/env bash
# Every test suite of groundcheck, in one command, on a fresh Debian machine with Rust:
#
#   scripts/test.sh [CARGO TEST ARGS...]
#   scripts/test.sh --prepare        step 1 alone (CI runs it while step 3 runs)
#   scripts/test.sh --build          step 3 alone (it needs nothing step 1 installs)
#
# 1. Installs what the suites need and the machine lacks (Debian packages, with apt-get when
#    run as root or with password-less sudo; otherwise it names the packages and stops), makes
#    the Python virtual environment target/python-venv with the suites' PyPI packages, and the
#    wheel's build tools (scripts/build-wheel.sh --prepare).
# 2. Starts throwaway MariaDB and PostgreSQL servers on 127.0.0.1 (scripts/test-databases.sh),
#    unless GROUNDCHECK_TEST_MYSQL_URL and GROUNDCHECK_TEST_POSTGRES_URL already name servers.
# 3. Builds the debug crate graph once, in one cargo invocation: every crate and test target of
#    the workspace, the Python extension and the JNI library (their `test-hooks` on) included. Every later
#    debug step uses what it built: `cargo test` compiles nothing more, the Python package is
#    that extension installed into the environment, and the Python, MCP and Java suites run the
#    `groundcheck` binary it made. (Built on its own, the extension or the binary would resolve
#    the workspace's features differently and compile the engine again.)
# 4. Runs every suite: the Rust workspace (unit, integration, browser, database and doc tests;
#    RUST_TEST_THREADS at least 6 by default, since the storage tests mostly wait on their
#    servers and each has a database of its own); the Python package (crates/groundcheck-py/tests)
#    with pytest; the Java library (bindings/java over crates/groundcheck-jni, the release jar)
#    with JUnit 5 (scripts/test-java.sh); `groundcheck mcp` driven by the official MCP Python
#    SDK (crates/groundcheck-mcp/tests-python); and the release wheel's own checks
#    (test_wheel.py). The release jar, then the release wheel (scripts/build-jar.sh,
#    scripts/build-wheel.sh) build in the background from the start of the suites, which leave
#    the CPU idle for long spells (the database and browser tests wait): the Java suite waits
#    for the jar, the wheel's checks for the wheel, nothing else for either.
#    The two share one linker and one feature set (scripts/zig.sh), so the wheel compiles only
#    the extension's crate and what only it needs (PyO3, Arrow): the rest is the jar's.
# 5. Stops the servers it started, and only those, however the suites ended, and prints how
#    long each step took.
#
# Run it again and it reuses what is installed (the virtual environment too, while its package
# list is unchanged); servers that were running before it started (yours, or the script's from
# an earlier `start`) are used and left running. Arguments go to `cargo test` (e.g.
# `scripts/test.sh -- host_safety` runs one module of each test binary).
set -euo pipefail
cd "$(dirname "$0")/.."

log() { echo "test.sh: $*" >&2; }

# Python writes the bytecode of what it imports, so each of the suites' many Python processes
# (pytest's workers, the examples, Spark's and Ray's workers) reuses what the first compiled:
# an environment that says otherwise (some CI images do) makes every one of them compile
# every module it imports again.
unset PYTHONDONTWRITEBYTECODE

# ------------------------------------------------------------------ step times
# timed NAME COMMAND...: runs the command, logs its elapsed seconds, and keeps them for the
# summary printed at exit (CI's log shows where the time goes). Not in an `if` or `||`: a
# failing command still stops the script (set -e), and the summary names the step it stopped in.
step_times=() step="" step_start=0
timed() {
  step="$1" step_start=$SECONDS
  shift
  "$@"
  step_times+=("$(printf '%5d s  %s' $((SECONDS - step_start)) "$step")")
  log "[$((SECONDS - step_start)) s] $step"
  step=""
}
summary() {
  [[ -z $step ]] || step_times+=("$(printf '%5d s  %s (failed)' $((SECONDS - step_start)) "$step")")
  ((${#step_times[@]})) || return 0
  log "step times:"
  printf 'test.sh: %s\n' "${step_times[@]}" >&2
  log "$(printf '%5d s  in all' "$SECONDS")"
}

target="${CARGO_TARGET_DIR:-target}"
venv=target/python-venv
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)"

# ------------------------------------------------------------------ what the suites need
# A command the suites run, and the Debian package that brings it.
needs=(
  "chromium chromium"
  "chromedriver chromium-driver"
  "jq jq"
  "javac default-jdk-headless"
)
debian_packages() {
  local missing=() need cmd package sudo
  for need in "${needs[@]}"; do
    read -r cmd package <<<"$need"
    command -v "$cmd" >/dev/null || missing+=("$package")
  done
  # The Java suite's JUnit 5 console launcher and the MariaDB and PostgreSQL JDBC drivers (jars).
  [[ -r /usr/share/java/junit-platform-console-standalone.jar ]] || missing+=(junit5)
  [[ -r /usr/share/java/mariadb-java-client.jar ]] || missing+=(libmariadb-java)
  [[ -r /usr/share/java/postgresql.jar ]] || missing+=(libpostgresql-jdbc-java)
  # Python's venv (Debian splits it out of python3).
  python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
  # The database servers, unless the caller brings its own.
  if [[ -z "${GROUNDCHECK_TEST_MYSQL_URL:-}" || -z "${GROUNDCHECK_TEST_POSTGRES_URL:-}" ]]; then
    { command -v mariadbd || [[ -x /usr/sbin/mariadbd ]]; } >/dev/null || missing+=(mariadb-server)
    compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || command -v initdb >/dev/null || missing+=(postgresql)
  fi
  ((${#missing[@]})) || return 0
  if [[ $EUID -eq 0 ]]; then sudo=()
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo=(sudo)
  else
    log "missing Debian packages: ${missing[*]}"
    log "install them, then run this again: sudo apt-get install --no-install-recommends ${missing[*]}"
    return 1
  fi
  log "installing ${missing[*]} (apt-get)"
  # No services are started by these packages here: the test servers are our own, on
  # their own ports (with no init system, or a policy-rc.d that says no, apt starts none).
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
}

# The Python suites' packages from PyPI, one a line (add a package on a line of its own).
pip_packages=(
  maturin
  pytest
  pytest-xdist
  mypy
  mcp
  jsonschema
  'psycopg[binary]'
  pymysql
  sqlalchemy
  'pydantic-ai-slim[mcp]'
  openai-agents
  google-genai
  langchain
  langgraph
  langchain-core
  pyarrow
  polars
  duckdb
  pyspark
  'pandas<3'
  ray
)
# The environment is made afresh whenever this list changes; target/python-venv/.packages
# holds the list it was made with.
python_env() {
  local wanted
  wanted="$(printf '%s\n' "${pip_packages[@]}")"
  if [[ -x $venv/bin/python && -r $venv/.packages && "$(cat "$venv/.packages")" == "$wanted" ]]; then
    log "Python: $venv has the suites' packages"
    return 0
  fi
  log "Python: making $venv (PyPI: ${pip_packages[*]})"
  rm -rf "$venv"
  python3 -m venv "$venv"
  # uv (from PyPI) installs the packages: the same resolution as pip's, for far less CPU (it
  # resolves, unpacks and links in parallel, in Rust). Like pip with --no-compile, it
  # leaves modules to be byte-compiled on first use: compiling every module of every package
  # (pyspark and ray are large) costs more CPU than the suites' imports compile.
  "$venv/bin/pip" install --quiet --disable-pip-version-check uv
  # pyspark comes as an sdist only: uv builds a wheel of it (about 450 MB, Spark's jars) and
  # installs that. Its wheel stored rather than deflated takes half the CPU, for the same files.
  "$venv/bin/uv" pip install --quiet --python "$venv/bin/python" \
    --config-settings-package 'pyspark:--build-option=--compression=stored' "${pip_packages[@]}"
  # But ray: its worker processes start together and each compiles the modules it imports (a
  # module's bytecode is written only once compiled): from a fresh environment the Ray example
  # took more than twice as long. Compiled here instead, once, on every core.
  "$venv/bin/python" -m compileall -q -j 0 \
    "$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/ray" >/dev/null
  echo "$wanted" >"$venv/.packages"
}

prepare() {
  timed "Debian packages" debian_packages
  timed "Python environment" python_env
  # The wheel's build tools installed by the uv just installed (scripts/zig.sh).
  timed "the wheel's build tools" env UV="$venv/bin/uv" bash scripts/build-wheel.sh --prepare
}

# ------------------------------------------------------------------ the one debug build
# The same packages, targets and features in the build and in `cargo test`: one feature
# resolution, so every crate compiles once.
cargo_debug=(--workspace --locked --features groundcheck-py/test-hooks,groundcheck-jni/test-hooks)
# Four codegen units a crate, not the sixteen of a build without incremental compilation: the
# build runs several crates at once anyway, and each unit repeats the generic code it uses, so
# fewer units take less CPU in all, and on two cores less time too (the commit that set this
# has the figures). `cargo build` and `cargo test` here both see it, so the suites compile
# nothing more; a `cargo test` by hand without it builds its own.
export CARGO_PROFILE_DEV_CODEGEN_UNITS="${CARGO_PROFILE_DEV_CODEGEN_UNITS:-4}"
debug_build() {
  timed "debug build (cargo build --all-targets)" cargo build "${cargo_debug[@]}" --all-targets
}

case "${1:-}" in
  --prepare) trap summary EXIT; prepare; exit 0 ;;
  --build) trap summary EXIT; debug_build; exit 0 ;;
esac
# Tried first, so a missing package is named before anything runs; after `--prepare` this
# finds everything in place.
prepare

# ------------------------------------------------------------------ the database servers
background=""
stop_started() {
  local status=$? engine
  # A release build still running when a suite failed: stopped, it would only hold the CPU.
  if [[ -n $background ]] && kill -0 "$background" 2>/dev/null; then kill -- -"$background" 2>/dev/null || true; fi
  if [[ -n "${already+set}" ]]; then
    for engine in mariadb postgres; do
      if ! grep -qx "$engine" <<<"$already"; then bash scripts/test-databases.sh stop "$engine" || true; fi
    done
  fi
  summary
  return "$status"
}
trap stop_started EXIT
start_databases() {
  already="$(bash scripts/test-databases.sh running)"
  # Two steps, not `eval "$(…)"`, so that a failed start stops this script.
  db_env="$(bash scripts/test-databases.sh start)"
  eval "$db_env"
}
if [[ -z "${GROUNDCHECK_TEST_MYSQL_URL:-}" || -z "${GROUNDCHECK_TEST_POSTGRES_URL:-}" ]]; then
  timed "database servers" start_databases
fi

debug_build

# The release jar, then the release wheel, in the background: they build while the suites that
# need neither run (the Rust suite, then the Python suite but for the wheel's own tests), then
# beside the Java suite, which waits for the jar, and the MCP suite; the wheel's tests wait for
# the wheel. The MCP suite comes last because it keeps both cores busy to its end (two pytest
# workers), while the wheel's build ends on one crate and the Java suite runs mostly on one core:
# last, either would leave a core idle. The wheel reuses the crates the jar compiled
# (scripts/zig.sh). Their output goes to a log printed once both are built.
release_log="$target/release-builds.log"
jar_built="$target/release-builds.jar-built"
release_builds() {
  rm -rf target/wheels "$jar_built"
  local start=$SECONDS
  bash scripts/build-jar.sh --out target/java-release
  echo "test.sh: [$((SECONDS - start)) s] release jar (in the background)"
  touch "$jar_built"
  start=$SECONDS
  bash scripts/build-wheel.sh --out target/wheels
  echo "test.sh: [$((SECONDS - start)) s] release wheel (in the background)"
}
log "release jar and wheel: building in the background ($release_log)"
export -f release_builds
export jar_built
# Without CI's lint wrapper (.ci/run): the debug build has linted the same code.
setsid env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS bash -c 'set -euo pipefail; release_builds' \
  >"$release_log" 2>&1 &
background=$!

# ------------------------------------------------------------------ the suites
# The storage tests wait on their servers most of the time: more of them at once than cores.
export RUST_TEST_THREADS="${RUST_TEST_THREADS:-$(($(nproc) < 6 ? 6 : $(nproc)))}"
log "Rust: cargo test ${cargo_debug[*]} $*"
timed "Rust suite (cargo test)" cargo test "${cargo_debug[@]}" "$@"

# The Python package: the extension the debug build made (test-hooks on), installed into the
# environment as `maturin develop` installs it (the module beside the package's Python sources,
# a .pth naming them, the distribution's metadata), without compiling it again.
install_extension() {
  local library site dist
  case "$(uname -s)" in Darwin) library=lib_groundcheck.dylib ;; *) library=lib_groundcheck.so ;; esac
  cp "$target/debug/$library" crates/groundcheck-py/python/groundcheck/_groundcheck.abi3.so
  site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"
  rm -rf "$site"/groundcheck-*.dist-info
  echo "$PWD/crates/groundcheck-py/python" >"$site/groundcheck.pth"
  dist="$site/groundcheck-$version.dist-info"
  mkdir -p "$dist"
  printf 'Metadata-Version: 2.1\nName: groundcheck\nVersion: %s\nRequires-Python: >=3.10\n' "$version" >"$dist/METADATA"
  echo "scripts/test.sh" >"$dist/INSTALLER"
  printf 'groundcheck.pth,,\n%s,,\n' "$(basename "$dist")/METADATA" >"$dist/RECORD"
}
timed "Python: install the debug extension" install_extension

# Two pytest-xdist workers, handed one test at a time (each folder's conftest.py puts the tests
# marked slow first, so the longest are shared from the start); the tests depend on no order.
# langsmith's plugin comes with langchain and is of no use here.
pytest_args=(-q -p no:cacheprovider -p no:langsmith_plugin -n 2 --maxschedchunk 1)
wheel_tests=crates/groundcheck-py/tests/test_wheel.py
log "Python: crates/groundcheck-py/tests, pytest (the wheel's tests once it is built)"
timed "Python suite (pytest)" env GROUNDCHECK_BIN="$PWD/$target/debug/groundcheck" \
  "$venv/bin/python" -m pytest "${pytest_args[@]}" --ignore="$wheel_tests" crates/groundcheck-py/tests

# wait_release [jar]: until the jar is built (or both are), failing if the builds failed.
wait_release() {
  local status=0
  if [[ ${1:-} == jar ]]; then
    while [[ ! -e $jar_built ]] && kill -0 "$background" 2>/dev/null; do sleep 1; done
    [[ -e $jar_built ]] && return 0
  fi
  wait "$background" || status=$?
  background=""
  sed 's/^/  /' "$release_log" >&2
  ((status == 0)) || { log "the release builds failed (exit $status)"; return "$status"; }
}
timed "waiting for the release jar" wait_release jar

# The Java library: the release jar built above, JUnit 5 run on the console launcher; a skipped
# test fails it, and its JDBC tests need the servers started above.
log "Java: bindings/java, scripts/test-java.sh"
timed "Java suite (JUnit 5)" env GROUNDCHECK_BIN="$PWD/$target/debug/groundcheck" \
  GROUNDCHECK_JAR="$PWD/target/java-release/groundcheck-$version.jar" bash scripts/test-java.sh

# The MCP server: the official MCP Python SDK (`mcp`) drives the binary over stdio. Nothing in
# it is skipped: a missing package or binary fails the suite.
log "MCP: crates/groundcheck-mcp/tests-python, pytest"
timed "MCP suite (pytest)" env GROUNDCHECK_BIN="$PWD/$target/debug/groundcheck" \
  "$venv/bin/python" -m pytest "${pytest_args[@]}" crates/groundcheck-mcp/tests-python

timed "waiting for the release wheel" wait_release
wheel="$(ls target/wheels/groundcheck-*-manylinux2014_*.whl)"
log "Python: $wheel_tests (the wheel: $wheel)"
timed "Python: the wheel's tests (pytest)" env GROUNDCHECK_WHEEL="$PWD/$wheel" \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider -p no:langsmith_plugin "$wheel_tests"
