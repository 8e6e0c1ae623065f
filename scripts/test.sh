#!/usr/bin/env bash
# Every test suite of groundcheck, in one command, on a fresh Debian machine with Rust:
#
#   scripts/test.sh [CARGO TEST ARGS...]
#
# 1. Installs what the suites need and the machine lacks (Debian packages, with apt-get when
#    run as root or with password-less sudo; otherwise it names the packages and stops).
# 2. Starts throwaway MariaDB and PostgreSQL servers on 127.0.0.1 (scripts/test-databases.sh),
#    unless GROUNDCHECK_TEST_MYSQL_URL and GROUNDCHECK_TEST_POSTGRES_URL already name servers.
# 3. Runs every suite: the Rust workspace (unit, integration, browser, database and doc tests),
#    then the Python package (crates/groundcheck-py) built into a virtual environment under
#    target/ and tested with pytest against the same binary, then `groundcheck mcp` driven by
#    the official MCP Python SDK (crates/groundcheck-mcp/tests-python) in the same environment,
#    then the Java library (bindings/java over crates/groundcheck-jni) with JUnit 5
#    (scripts/test-java.sh).
# 4. Stops the servers it started, and only those, however the suites ended.
#
# Run it again and it reuses what is installed; servers that were running before it started
# (yours, or the script's from an earlier `start`) are used and left running. Arguments go to
# `cargo test` (e.g. `scripts/test.sh -- host_safety` runs one module of each test binary).
set -euo pipefail
cd "$(dirname "$0")/.."

log() { echo "test.sh: $*" >&2; }

# ------------------------------------------------------------------ what the suites need
# A command the suites run, and the Debian package that brings it.
needs=(
  "chromium chromium"
  "chromedriver chromium-driver"
  "jq jq"
  "javac default-jdk-headless"
)
missing=()
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

if ((${#missing[@]})); then
  if [[ $EUID -eq 0 ]]; then sudo=()
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo=(sudo)
  else
    log "missing Debian packages: ${missing[*]}"
    log "install them, then run this again: sudo apt-get install --no-install-recommends ${missing[*]}"
    exit 1
  fi
  log "installing ${missing[*]} (apt-get)"
  # No services are started by these packages here: the test servers are our own, on
  # their own ports (with no init system, or a policy-rc.d that says no, apt starts none).
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi

# ------------------------------------------------------------------ the database servers
if [[ -z "${GROUNDCHECK_TEST_MYSQL_URL:-}" || -z "${GROUNDCHECK_TEST_POSTGRES_URL:-}" ]]; then
  already="$(bash scripts/test-databases.sh running)"
  stop_started() {
    local engine
    for engine in mariadb postgres; do
      if ! grep -qx "$engine" <<<"$already"; then bash scripts/test-databases.sh stop "$engine" || true; fi
    done
  }
  trap stop_started EXIT
  # Two steps, not `eval "$(…)"`, so that a failed start stops this script.
  db_env="$(bash scripts/test-databases.sh start)"
  eval "$db_env"
fi

# ------------------------------------------------------------------ the suites
log "Rust: cargo test --workspace --locked $*"
cargo test --workspace --locked "$@"

# The Python package: built from source into a fresh virtual environment (maturin and pytest
# from PyPI), tested against the binary the Rust suite built.
venv=target/python-venv
log "Python: crates/groundcheck-py in $venv, pytest"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check maturin pytest mypy mcp jsonschema 'psycopg[binary]' pymysql sqlalchemy
(cd crates/groundcheck-py && VIRTUAL_ENV="$PWD/../../$venv" "../../$venv/bin/maturin" develop --quiet --features test-hooks)
# The wheel users install (manylinux2014, release), which tests/test_wheel.py checks.
log "Python: the release wheel, scripts/build-wheel.sh"
rm -rf target/wheels
bash scripts/build-wheel.sh --out target/wheels
wheel="$(ls target/wheels/groundcheck-*-manylinux2014_*.whl)"
GROUNDCHECK_WHEEL="$PWD/$wheel" GROUNDCHECK_BIN="$PWD/target/debug/groundcheck" \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider crates/groundcheck-py/tests

# The MCP server: the official MCP Python SDK (`mcp`) drives the binary over stdio. Nothing in
# it is skipped: a missing package or binary fails the suite.
log "MCP: crates/groundcheck-mcp/tests-python, pytest"
GROUNDCHECK_BIN="$PWD/target/debug/groundcheck" "$venv/bin/python" -m pytest -q -p no:cacheprovider crates/groundcheck-mcp/tests-python

# The Java library: the JNI crate built, the jar packaged with it, JUnit 5 run on the console
# launcher; a skipped test fails it, and its JDBC test needs the MariaDB server started above.
log "Java: bindings/java, scripts/test-java.sh"
bash scripts/test-java.sh
