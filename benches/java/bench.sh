#!/usr/bin/env bash
# The Java binding's costs (benches/java/io/groundcheck/Bench.java), with the native library
# built in release and packaged into target/bench-java/groundcheck.jar as scripts/build-jar.sh
# packages it, but with the cargo feature test-hooks: the Rust floors are the tests' hooks
# (bindings/java/src/test/java/io/groundcheck/TestHooks.java, compiled beside the bench).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=target/bench-java
rm -rf "$out"
mkdir -p "$out/classes" "$out/resources/native" "$out/bench"
cargo build --release --locked --quiet -p groundcheck-jni --features test-hooks
platform="$(uname -s | tr '[:upper:]' '[:lower:]')-$(uname -m)"
mkdir -p "$out/resources/native/$platform"
strip --strip-debug -o "$out/resources/native/$platform/libgroundcheck_jni.so" target/release/libgroundcheck_jni.so
echo "$platform" >"$out/resources/native/platforms.txt"
javac --release 17 -encoding UTF-8 -d "$out/classes" $(find bindings/java/src/main/java -name '*.java')
jar --create --file "$out/groundcheck.jar" -C "$out/classes" . -C "$out/resources" .
javac --release 17 -encoding UTF-8 -cp "$out/groundcheck.jar" -d "$out/bench" benches/java/io/groundcheck/Bench.java \
  bindings/java/src/test/java/io/groundcheck/TestHooks.java
java -cp "$out/groundcheck.jar:$out/bench" io.groundcheck.Bench
