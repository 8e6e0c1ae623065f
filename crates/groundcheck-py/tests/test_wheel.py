"""The wheel users install (scripts/build-wheel.sh): its tags, the glibc it needs, no debug
information, and a fresh virtual environment that installs it and gets the command line's
verdicts.

GROUNDCHECK_WHEEL names the wheel; scripts/test.sh builds it and sets it. Outside CI a run
without it skips these tests; under CI (CI set) that is a failure.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
WHEEL = os.environ.get("GROUNDCHECK_WHEEL")
UNDER_CI = os.environ.get("CI", "") not in ("", "false", "0")

if not WHEEL:
    if UNDER_CI:
        raise RuntimeError("GROUNDCHECK_WHEEL is not set: under CI the wheel's tests must run (scripts/test.sh)")
    pytest.skip("GROUNDCHECK_WHEEL is not set (scripts/build-wheel.sh builds one)", allow_module_level=True)

# glibc 2.17: manylinux2014, the oldest glibc of the servers agents run on (RHEL 7 on).
MAX_GLIBC = (2, 17)


def _wheel() -> Path:
    path = Path(WHEEL or "")
    assert path.is_file(), f"{path}: no such wheel"
    return path


def test_the_wheel_is_abi3_for_cpython_310_on_manylinux2014() -> None:
    name = _wheel().name
    match = re.fullmatch(r"groundcheck-([^-]+)-(cp310)-(abi3)-([^-]+)\.whl", name)
    assert match, name
    platforms = match.group(4).split(".")
    arch = os.uname().machine
    assert f"manylinux2014_{arch}" in platforms and f"manylinux_2_17_{arch}" in platforms, platforms
    with zipfile.ZipFile(_wheel()) as wheel:
        meta = next(n for n in wheel.namelist() if n.endswith(".dist-info/WHEEL"))
        tags = {line.split(": ", 1)[1] for line in wheel.read(meta).decode().splitlines() if line.startswith("Tag: ")}
    assert f"cp310-abi3-manylinux_2_17_{arch}" in tags or f"cp310-abi3-manylinux2014_{arch}" in tags, tags


def _extension(directory: Path) -> Path:
    with zipfile.ZipFile(_wheel()) as wheel:
        wheel.extractall(directory)
    found = list(directory.glob("groundcheck/_groundcheck*.so"))
    assert len(found) == 1, found
    return found[0]


def test_the_extension_needs_no_glibc_newer_than_2_17_and_carries_no_debug_information() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        library = _extension(Path(tmp))
        symbols = subprocess.run(["objdump", "-T", str(library)], check=True, capture_output=True, text=True).stdout
        sections = subprocess.run(["readelf", "-S", "-W", str(library)], check=True, capture_output=True, text=True).stdout
        dynamic = subprocess.run(["readelf", "-d", str(library)], check=True, capture_output=True, text=True).stdout
    versions = {tuple(int(p) for p in v.split(".")) for v in re.findall(r"\bGLIBC_([0-9]+(?:\.[0-9]+)+)\b", symbols)}
    assert versions, "no versioned glibc symbol found: objdump's output changed?"
    assert max(versions) <= MAX_GLIBC, sorted(versions)
    # Only libc's own libraries (and the dynamic loader) are needed: nothing a server lacks.
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic))
    allowed = {
        "libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", "libgcc_s.so.1",
        "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
    }
    assert needed <= allowed, needed - allowed
    assert ".debug_info" not in sections and ".debug_line" not in sections, "the extension carries debug information"


@pytest.mark.slow
def test_a_fresh_environment_installs_the_wheel_and_gets_the_command_lines_verdicts() -> None:
    bundle = ROOT / "fixtures" / "01_order_svc_5xx_spike.json"
    binary = os.environ.get("GROUNDCHECK_BIN") or str(ROOT / "target" / "debug" / "groundcheck")
    expected = subprocess.run([binary, "verify", "--format", "json", str(bundle)], check=True, capture_output=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        venv = Path(tmp) / "venv"
        # The environment has no pip of its own (installing one is most of the venv's making):
        # this interpreter's pip installs into it (`--python`), as the venv's own pip would.
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        python = venv / "bin" / "python"
        subprocess.run(
            [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-index",
             "--disable-pip-version-check", str(_wheel())],
            check=True,
        )
        script = "import groundcheck, sys; sys.stdout.write(groundcheck.verify_bundle(sys.argv[1]).to_json())"
        got = subprocess.run([str(python), "-c", script, str(bundle)], check=True, capture_output=True, cwd=tmp).stdout
    assert got == expected


def test_the_extension_carries_no_test_or_bench_hook() -> None:
    # The hooks (cargo feature test-hooks: injected panics, the benches' timers and row reader)
    # are left out of a release wheel; a PyO3 method's name is a C string in the library.
    with tempfile.TemporaryDirectory() as tmp:
        library = _extension(Path(tmp)).read_bytes()
    hooks = (b"_panic_at", b"_panic_for_test", b"_time_verify", b"_time_verify_run", b"_read_rows", b"_BatchFloor")
    for hook in hooks:
        assert hook + b"\0" not in library, hook
    assert b"verify_run\0" in library


def test_the_wheel_holds_the_package_and_nothing_else() -> None:
    # What a run from the source tree leaves beside the sources (Python's bytecode caches, the
    # debug extension the suites use) is not the package: only its sources, its stubs and marker,
    # the release extension and the wheel's metadata are.
    package = ROOT / "crates" / "groundcheck-py" / "python"
    sources = {p.relative_to(package).as_posix() for p in package.rglob("*") if p.suffix in (".py", ".pyi") or p.name == "py.typed"}
    with zipfile.ZipFile(_wheel()) as wheel:
        names = set(wheel.namelist())
    extensions = {n for n in names if re.fullmatch(r"groundcheck/_groundcheck\.abi3\.so", n)}
    metadata = {n for n in names if n.split("/", 1)[0].endswith(".dist-info")}
    assert len(extensions) == 1, sorted(names)
    assert names - extensions - metadata == sources, sorted(names ^ (sources | extensions | metadata))
