#!/usr/bin/env bash
# The Java library as users install it, in one command:
#
#   scripts/build-jar.sh [--out DIR] [--profile release|dev]
#       Builds, for this machine's platform, into DIR (default target/java-release):
#         groundcheck-VERSION.jar          the classes and the native library, optimised and
#                                          stripped, under /native/PLATFORM/, with the pom inside
#                                          (META-INF/maven/io.groundcheck/groundcheck/)
#         groundcheck-VERSION-sources.jar  the Java sources
#         groundcheck-VERSION.pom          coordinates io.groundcheck:groundcheck:VERSION
#       `--profile dev` packages the debug library instead (quicker to build, slower to run).
#
#   scripts/build-jar.sh assemble --platforms P1,P2,... --out DIR JAR...
#       One jar for several platforms: the JARs (each built by the command above on its own
#       machine) merged into DIR/groundcheck-VERSION.jar, every /native/PLATFORM/ folder kept.
#       Fails, naming them, when a platform of --platforms has no library in any JAR, or when
#       the JARs' classes differ (they must come from one commit).
#
# Platforms are named as the jar's loader names them: linux-x86_64, linux-aarch64,
# macos-aarch64, windows-x86_64. Needs cargo, a JDK (javac, jar) and, for the release
# library on Linux, strip (binutils) and python3 with its venv module (for the zig below).
#
# On Linux the release library is linked, like the release wheel, by zig against glibc 2.17's
# symbols (scripts/zig.sh; maturin and ziglang are installed into target/wheel-venv from PyPI
# on first use), so the jar loads on any Linux with glibc 2.17 or later — RHEL/CentOS 7 on,
# Ubuntu 18.04 on — not only on one as new as the build machine's. The two builds share their
# crates: built after the wheel, the library compiles only crates/groundcheck-jni; built before
# it, the wheel compiles only its own crate and PyO3's and Arrow's.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { echo "build-jar.sh: $*" >&2; }
die() { log "$*"; exit 1; }
source scripts/jdk.sh

version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)"
[[ -n "$version" ]] || die "no version in Cargo.toml's [workspace.package]"
name="groundcheck-$version"

# This machine as the jar names its folders (Native.platform() in Java).
this_platform() {
  local os arch
  os="$(uname -s | tr '[:upper:]' '[:lower:]')"
  case "$os" in darwin) os=macos ;; mingw*|msys*|cygwin*) os=windows ;; esac
  arch="$(uname -m)"
  case "$arch" in amd64) arch=x86_64 ;; arm64) arch=aarch64 ;; esac
  echo "$os-$arch"
}

library_file() {
  case "$1" in macos-*) echo libgroundcheck_jni.dylib ;; windows-*) echo groundcheck_jni.dll ;; *) echo libgroundcheck_jni.so ;; esac
}

pom() {
  cat <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>io.groundcheck</groupId>
  <artifactId>groundcheck</artifactId>
  <version>$version</version>
  <packaging>jar</packaging>
  <name>groundcheck</name>
  <description>Checks an AIOps agent's claimed evidence against its tools' raw outputs, in-process (JNI over the Rust engine)</description>
  <licenses>
    <license><name>MIT OR Apache-2.0</name></license>
  </licenses>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
  </properties>
</project>
EOF
}

build() {
  local out=target/java-release profile=release
  while (($#)); do
    case "$1" in
      --out) out="${2:?--out needs a folder}"; shift 2 ;;
      --profile) profile="${2:?--profile needs release or dev}"; shift 2 ;;
      *) die "unknown argument $1 (see the top of scripts/build-jar.sh)" ;;
    esac
  done
  local platform lib dir target="${CARGO_TARGET_DIR:-target}"
  platform="$(this_platform)"
  lib="$(library_file "$platform")"
  case "$profile:$platform" in
    release:linux-*) log "building crates/groundcheck-jni (release, linked through zig for glibc 2.17)"
      source scripts/zig.sh
      zig_tools
      zig_link
      dir="$zig_triple/release"
      cargo build --locked --release --target "$zig_triple" -p groundcheck-jni --quiet ;;
    release:*) dir=release; log "building crates/groundcheck-jni (release)"
      cargo build --locked --release -p groundcheck-jni --quiet ;;
    dev:*) dir=debug; log "building crates/groundcheck-jni (debug)"
      cargo build --locked -p groundcheck-jni --quiet ;;
    *) die "--profile is release or dev, not $profile" ;;
  esac
  command -v javac >/dev/null || die "missing javac (apt-get install default-jdk-headless)"

  local work="$out/.work"
  rm -rf "$work"
  mkdir -p "$work/classes/META-INF/maven/io.groundcheck/groundcheck" "$work/classes/native/$platform"
  log "compiling bindings/java (Java 17)"
  jdk_tool javac --release 17 -Xlint:all -Werror -encoding UTF-8 -d "$work/classes" \
    $(find bindings/java/src/main/java -name '*.java')
  # Debug information out of the library users load: symbols for a backtrace stay.
  if command -v strip >/dev/null && [[ $platform == linux-* ]]; then
    strip --strip-debug -o "$work/classes/native/$platform/$lib" "$target/$dir/$lib"
  else
    cp "$target/$dir/$lib" "$work/classes/native/$platform/$lib"
  fi
  echo "$platform" >"$work/classes/native/platforms.txt"
  pom >"$out/$name.pom"
  cp "$out/$name.pom" "$work/classes/META-INF/maven/io.groundcheck/groundcheck/pom.xml"
  printf 'groupId=io.groundcheck\nartifactId=groundcheck\nversion=%s\n' "$version" \
    >"$work/classes/META-INF/maven/io.groundcheck/groundcheck/pom.properties"
  manifest "$work/manifest.txt"
  rm -f "$out/$name.jar" "$out/$name-sources.jar"
  jdk_tool jar --create --file "$out/$name.jar" --manifest "$work/manifest.txt" -C "$work/classes" .
  jdk_tool jar --create --file "$out/$name-sources.jar" -C bindings/java/src/main/java .
  rm -rf "$work"
  log "$out/$name.jar: $(du -k "$out/$name.jar" | cut -f1) KiB ($profile library for $platform); $out/$name-sources.jar; $out/$name.pom"
}

manifest() {
  printf 'Automatic-Module-Name: io.groundcheck\nImplementation-Title: groundcheck\nImplementation-Version: %s\n' \
    "$version" >"$1"
}

assemble() {
  local out="" platforms="" jars=()
  while (($#)); do
    case "$1" in
      --out) out="${2:?--out needs a folder}"; shift 2 ;;
      --platforms) platforms="${2:?--platforms needs a list}"; shift 2 ;;
      -*) die "unknown argument $1 (see the top of scripts/build-jar.sh)" ;;
      *) jars+=("$1"); shift ;;
    esac
  done
  [[ -n $out && -n $platforms && ${#jars[@]} -gt 0 ]] \
    || die "usage: scripts/build-jar.sh assemble --platforms P1,P2,... --out DIR JAR..."
  local work="$out/.assemble" jarfile first=""
  rm -rf "$work"
  mkdir -p "$work/merged" "$work/one"
  for jarfile in "${jars[@]}"; do
    [[ -r $jarfile ]] || die "$jarfile: no such jar"
    rm -rf "$work/one" && mkdir -p "$work/one"
    local abs
    abs="$(realpath "$jarfile")"
    (cd "$work/one" && jdk_tool jar --extract --file "$abs")
    # Every jar must carry the same classes: one commit, several machines.
    local sum
    sum="$(cd "$work/one" && find io -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"
    if [[ -z $first ]]; then first="$sum"
    elif [[ $sum != "$first" ]]; then die "$jarfile: its classes differ from ${jars[0]}'s (build every jar from one commit)"
    fi
    rm -f "$work/one/native/platforms.txt" "$work/one/META-INF/MANIFEST.MF"
    cp -R "$work/one/." "$work/merged/"
  done
  rm -rf "$work/one"
  local missing=() platform
  IFS=, read -r -a wanted <<<"$platforms"
  for platform in "${wanted[@]}"; do
    [[ -f "$work/merged/native/$platform/$(library_file "$platform")" ]] || missing+=("$platform")
  done
  ((${#missing[@]} == 0)) || die "no native library for ${missing[*]} in ${jars[*]} (each is built by scripts/build-jar.sh on its platform)"
  (cd "$work/merged/native" && find . -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort) \
    >"$work/merged/native/platforms.txt"
  manifest "$work/manifest.txt"
  mkdir -p "$out"
  rm -f "$out/$name.jar"
  jdk_tool jar --create --file "$out/$name.jar" --manifest "$work/manifest.txt" -C "$work/merged" .
  log "$out/$name.jar: $(du -k "$out/$name.jar" | cut -f1) KiB, native libraries for $(paste -sd' ' "$work/merged/native/platforms.txt")"
  rm -rf "$work"
}

case "${1:-}" in
  assemble) shift; assemble "$@" ;;
  *) build "$@" ;;
esac
