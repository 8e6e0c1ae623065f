#!/usr/bin/env bash
# The Java binding's suite (bindings/java, over crates/groundcheck-jni), in one command:
#
#   scripts/test-java.sh [JUNIT CONSOLE ARGS...]
#
# 1. Builds the release jar exactly as users get it (scripts/build-jar.sh: the native library
#    optimised and stripped, in target/java-release/), unless GROUNDCHECK_JAR names that jar
#    already built (scripts/test.sh builds it in the background). The command line the tests
#    compare with is GROUNDCHECK_BIN, else target/debug/groundcheck as scripts/test.sh's one
#    debug build makes it (run when the binary is missing; never a build of the binary alone,
#    whose features would differ from the test build's and overwrite its binary).
# 2. Compiles the Java library's classes alone too (no native library beside them), for the
#    test of loading from java.library.path, and the test of a panic, which runs them in a JVM
#    of its own over the debug library built with the test hooks (TestHooks, in the tests).
# 3. Compiles the README's Java example against the jar alone, and the JUnit 5 tests.
# 4. Runs them with the JUnit console launcher (Debian's junit5) and fails on any failure, and
#    on any test skipped or aborted: a suite that did not run is not a passing one.
#
# Needs javac and jar (default-jdk-headless), /usr/share/java/junit-platform-console-standalone.jar
# (junit5), /usr/share/java/mariadb-java-client.jar (libmariadb-java) and
# /usr/share/java/postgresql.jar (libpostgresql-jdbc-java); scripts/test.sh installs them. The JDBC
# tests read GROUNDCHECK_TEST_MYSQL_URL and GROUNDCHECK_TEST_POSTGRES_URL (scripts/test-databases.sh
# prints them) and fail without them.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { echo "test-java.sh: $*" >&2; }

junit="${GROUNDCHECK_JUNIT_JAR:-/usr/share/java/junit-platform-console-standalone.jar}"
mariadb="${GROUNDCHECK_MARIADB_JAR:-/usr/share/java/mariadb-java-client.jar}"
postgres="${GROUNDCHECK_POSTGRES_JAR:-/usr/share/java/postgresql.jar}"
for need in "$junit" "$mariadb" "$postgres"; do
  [[ -r "$need" ]] || { log "missing $need (apt-get install junit5 libmariadb-java libpostgresql-jdbc-java)"; exit 1; }
done
command -v javac >/dev/null || { log "missing javac (apt-get install default-jdk-headless)"; exit 1; }

# This machine as the jar names its folders (Native.platform() in Java).
os="$(uname -s | tr '[:upper:]' '[:lower:]')"
case "$os" in darwin) os=macos ;; mingw*|msys*|cygwin*) os=windows ;; esac
arch="$(uname -m)"
case "$arch" in amd64) arch=x86_64 ;; arm64) arch=aarch64 ;; esac
platform="$os-$arch"
case "$os" in macos) lib=libgroundcheck_jni.dylib ;; windows) lib=groundcheck_jni.dll ;; *) lib=libgroundcheck_jni.so ;; esac

version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)"
if [[ -n "${GROUNDCHECK_JAR:-}" ]]; then
  jarfile="$GROUNDCHECK_JAR"
  [[ -r $jarfile ]] || { log "GROUNDCHECK_JAR: no jar at $jarfile"; exit 1; }
else
  release=target/java-release
  jarfile="$release/groundcheck-$version.jar"
  log "building the release jar (scripts/build-jar.sh)"
  bash scripts/build-jar.sh --out "$release"
fi
jarfile="$(realpath "$jarfile")"
bin="${GROUNDCHECK_BIN:-$PWD/${CARGO_TARGET_DIR:-target}/debug/groundcheck}"
# The library with the test hooks (cargo feature test-hooks of groundcheck-jni: the tests'
# io.groundcheck.TestHooks), which scripts/test.sh's debug build makes beside the binary; the
# release jar has none. GROUNDCHECK_HOOKS_LIB names another.
hooks="${GROUNDCHECK_HOOKS_LIB:-$PWD/${CARGO_TARGET_DIR:-target}/debug/$lib}"
if [[ ! -x $bin ]] || ! grep -q Java_io_groundcheck_TestHooks_panicForTest "$hooks" 2>/dev/null; then
  log "building the groundcheck binary and the hooks library (debug, as scripts/test.sh builds them)"
  cargo build --workspace --locked --features groundcheck-py/test-hooks,groundcheck-jni/test-hooks --all-targets --quiet
fi

source scripts/jdk.sh

out=target/java
rm -rf "$out"
mkdir -p "$out/classes" "$out/native" "$out/hooks-native" "$out/test-classes" "$out/readme"
cp "$hooks" "$out/hooks-native/$lib"

log "compiling bindings/java's classes alone (Java 17)"
jdk_tool javac --release 17 -Xlint:all -Werror -encoding UTF-8 -d "$out/classes" $(find bindings/java/src/main/java -name '*.java')
# The jar's own library, for the test that loads it from java.library.path.
(cd "$out/native" && jdk_tool jar --extract --file "$jarfile" "native/$platform/$lib")
mv "$out/native/native/$platform/$lib" "$out/native/$lib"
rm -rf "$out/native/native"
cp "$jarfile" "$out/groundcheck.jar"

# The README's Java example (the first ```java block of its "## Java" section), compiled against
# the jar alone as a user would; GroundcheckTest runs it.
awk '/^## Java/{s=1;next} s&&/^## /{exit} s&&/^```java/{b=1;next} b&&/^```/{exit} b{print}' README.md >"$out/readme/example.java"
class="$(sed -n 's/^public \(final \)\{0,1\}class \([A-Za-z0-9_]*\).*/\2/p' "$out/readme/example.java" | head -n1)"
[[ -n "$class" ]] || { log "README.md: no public class in the Java example of '## Java'"; exit 1; }
mv "$out/readme/example.java" "$out/readme/$class.java"
jdk_tool javac --release 17 -Xlint:all -Werror -encoding UTF-8 -cp "$out/groundcheck.jar" -d "$out/readme" "$out/readme/$class.java"

log "compiling the tests"
jdk_tool javac --release 17 -Xlint:all -encoding UTF-8 -cp "$out/groundcheck.jar:$junit:$mariadb:$postgres" -d "$out/test-classes" \
  $(find bindings/java/src/test/java -name '*.java')

log "running JUnit 5"
set +e
java -Xmx512m "${short_jvm[@]}" \
  -Dgroundcheck.root="$PWD" \
  -Dgroundcheck.bin="$bin" \
  -Dgroundcheck.readme.classes="$PWD/$out/readme" -Dgroundcheck.readme.class="$class" \
  -Dgroundcheck.jar="$PWD/$out/groundcheck.jar" -Dgroundcheck.release.jar="$jarfile" \
  -Dgroundcheck.classes="$PWD/$out/classes" -Dgroundcheck.test.classes="$PWD/$out/test-classes" \
  -Dgroundcheck.native.dir="$PWD/$out/native" \
  -Dgroundcheck.hooks.native.dir="$PWD/$out/hooks-native" \
  -jar "$junit" --disable-banner --disable-ansi-colors --details=tree --fail-if-no-tests \
  --class-path "$out/groundcheck.jar:$out/test-classes:$mariadb:$postgres" --scan-class-path "$out/test-classes" \
  "$@" 2>&1 | tee "$out/junit.txt"
status=${PIPESTATUS[0]}
set -e
((status == 0)) || { log "JUnit failed (exit $status)"; exit 1; }
for what in skipped aborted; do
  count="$(sed -n "s/^\[ *\([0-9]*\) tests $what *\]$/\1/p" "$out/junit.txt" | tail -n1)"
  [[ "$count" == 0 ]] || { log "$count tests $what: a suite that did not run is not a passing one"; exit 1; }
done
log "Java suite passed"
