"""docs/agents.md's examples run as written: every ```python block is a whole program, run in
its own interpreter (no network: each example's model is scripted)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "agents.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```$", DOC.read_text(), flags=re.S | re.M)


def test_the_page_has_an_example_per_framework() -> None:
    for module in ("pydantic_ai", "openai_agents", "langchain"):
        assert sum(f"groundcheck.agents.{module} import" in b for b in BLOCKS) == 1, module


@pytest.mark.parametrize("index", range(len(BLOCKS)))
@pytest.mark.slow
def test_the_example_runs(index: int, tmp_path: Path) -> None:
    example = tmp_path / f"example_{index}.py"
    example.write_text(BLOCKS[index])
    done = subprocess.run([sys.executable, str(example)], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
