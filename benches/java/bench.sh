#!/usr/bin/env bash
# The Java binding's costs (benches/java/io/groundcheck/Bench.java), with the native library
# built in release and packaged into target/bench-java/groundcheck.jar as scripts/test-java.sh
# packages it.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=target/bench-java
rm -rf "$out"
mkdir -p "$out/classes" "$out/resources/native" "$out/bench"
cargo build --release --locked --quiet -p groundcheck-jni
platform="$(uname -s | tr '[:upper:]' '[:lower:]')-$(uname -m)"
mkdir -p "$out/resources/native/$platform"
strip --strip-debug -o "$out/resources/native/$platform/libgroundcheck_jni.so" target/release/libgroundcheck_jni.so
echo "$platform" >"$out/resources/native/platforms.txt"
javac --release 17 -encoding UTF-8 -d "$out/classes" $(find bindings/java/src/main/java -name '*.java')
jar --create --file "$out/groundcheck.jar" -C "$out/classes" . -C "$out/resources" .
javac --release 17 -encoding UTF-8 -cp "$out/groundcheck.jar" -d "$out/bench" benches/java/io/groundcheck/Bench.java
java -cp "$out/groundcheck.jar:$out/bench" io.groundcheck.Bench
