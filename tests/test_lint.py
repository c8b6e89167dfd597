"""Static checks are part of the test command: ruff (lint) and mypy (types)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> list[str]:
    if shutil.which(name) is None and subprocess.run(
        [sys.executable, "-m", name, "--version"], capture_output=True
    ).returncode != 0:
        pytest.skip(f"{name} is not installed (pip install -e '.[dev]')")
    return [sys.executable, "-m", name]


def test_ruff() -> None:
    p = subprocess.run([*_tool("ruff"), "check", "tenspiler", "tests", "benchmarks"], cwd=ROOT,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_mypy() -> None:
    p = subprocess.run([*_tool("mypy"), "tenspiler"], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
