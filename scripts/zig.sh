# Sourced by scripts/build-wheel.sh and scripts/build-jar.sh (from the repository's root): the
# one toolchain both link their release libraries with on Linux, so that what they ship loads
# on any Linux with glibc 2.17 or later (RHEL/CentOS 7 on, Ubuntu 18.04 on, Debian 10 on).
#
# Both builds name the same linker (scripts/zig-cc) for the same target, in the same target
# folder (target/TRIPLE/release): cargo counts the linker among what a compiled crate depends
# on, so the second of the two builds reuses every crate the first compiled and compiles only
# its own. (crates/groundcheck-jni's Cargo.toml says what else that takes.)

zig_venv=target/wheel-venv

# zig_tools: maturin and ziglang (zig itself, from PyPI) in target/wheel-venv, on first use:
# installed by uv when there is one (the one $UV names, else uv on PATH; it unpacks ziglang's
# large wheel for far less CPU than pip), else by pip.
zig_tools() {
  if [[ ! -x $zig_venv/bin/maturin ]] || ! "$zig_venv/bin/python" -c 'import ziglang' 2>/dev/null; then
    echo "zig.sh: installing maturin and ziglang into $zig_venv (PyPI)" >&2
    local uv="${UV:-$(command -v uv || true)}" tools=('maturin>=1.9,<2' ziglang)
    if [[ -x $uv ]]; then
      python3 -m venv --without-pip "$zig_venv"
      "$uv" pip install --quiet --python "$zig_venv/bin/python" "${tools[@]}"
    else
      python3 -m venv "$zig_venv"
      "$zig_venv/bin/pip" install --quiet --disable-pip-version-check "${tools[@]}"
    fi
  fi
}

# zig_link: points cargo's linker and cc's C compiler for this machine's target at
# scripts/zig-cc, and sets zig_triple to that target (what `--target` names in both builds).
zig_link() {
  zig_triple="$(rustc -vV | sed -n 's/^host: //p')"
  [[ $zig_triple == *-linux-gnu ]] || { echo "zig.sh: $zig_triple is not a glibc Linux" >&2; return 1; }
  export "CARGO_TARGET_$(tr 'a-z-' 'A-Z_' <<<"$zig_triple")_LINKER=$PWD/scripts/zig-cc"
  export "CC_${zig_triple//-/_}=$PWD/scripts/zig-cc"
  # One codegen unit a crate, not the release profile's sixteen: less CPU in all to build (on
  # the few cores of a CI machine, sooner too), and LLVM optimises each crate whole.
  export CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1
}
