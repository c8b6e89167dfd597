"""Shared test fixtures.

Golden files: ``golden(name, text)`` compares ``text`` with ``tests/golden/<name>``; run
``pytest --update-golden`` to (re)write the files instead, then review the diff.

The test session writes nothing under the user's home: before any test module is imported,
:func:`_sandbox_home` points ``HOME`` and every cache and configuration folder the tests'
libraries use (tenspiler's cache and certificates, Keras, matplotlib, Ray's token, torch
hub, XDG caches) at one temporary folder, removed when the session ends. Child processes
inherit it. Tools that must keep the real home (pyenv, pip, cargo) and the corpora
(``$TENSPILER_CORPORA``, read only) get it explicitly.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

GOLDEN_DIR = Path(__file__).parent / "golden"


def _sandbox_home() -> Path:
    """Point ``HOME`` and the cache / configuration variables at a fresh temporary folder
    (see the module docstring); returns it."""
    real = Path.home()
    base = Path(tempfile.mkdtemp(prefix="tenspiler-tests-"))
    atexit.register(shutil.rmtree, base, True)
    keep = {  # things that live in the real home and must stay found there
        "PYENV_ROOT": real / ".pyenv",
        "PIP_CACHE_DIR": real / ".cache" / "pip",
        "CARGO_HOME": real / ".cargo",
        "RUSTUP_HOME": real / ".rustup",
        # the third-party corpora (read only): tenspiler.bench.corpora's default location
        "TENSPILER_CORPORA": real / ".cache" / "tenspiler-corpora",
    }
    for name, path in keep.items():
        if name not in os.environ and path.exists():
            os.environ[name] = str(path)
    home = base / "home"
    home.mkdir()
    sandbox = {
        "HOME": home,
        "XDG_CACHE_HOME": base / "xdg-cache",
        "XDG_CONFIG_HOME": base / "xdg-config",
        "XDG_DATA_HOME": base / "xdg-data",
        "TENSPILER_CACHE_DIR": base / "tenspiler-cache",
        "KERAS_HOME": base / "keras",
        "MPLCONFIGDIR": base / "matplotlib",
        "TORCH_HOME": base / "torch",
        "JAX_COMPILATION_CACHE_DIR": base / "jax",
    }
    for name, path in sandbox.items():
        os.environ[name] = str(path)
    return base


#: The session's stand-in for the home folder and the caches (see the module docstring).
SANDBOX = _sandbox_home()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite the golden files under tests/golden/ instead of comparing with them",
    )


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Callable[[str, str], None]:
    """``golden(name, text)``: assert ``text`` equals ``tests/golden/<name>`` (a relative
    path such as ``"numpy/vadd.py"``), or rewrite that file under ``--update-golden``."""
    update = bool(request.config.getoption("--update-golden"))

    def check(name: str, text: str) -> None:
        path = GOLDEN_DIR / name
        if update:
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
            return
        if not path.exists():
            pytest.fail(f"golden file {path} is missing; run pytest with --update-golden")
        expected = path.read_text(encoding="utf-8")
        assert text == expected, (
            f"output differs from golden file {path}; if the change is intended, "
            f"run pytest with --update-golden and review the diff"
        )

    return check


#: Test files that import the array frameworks (TensorFlow, PyTorch, JAX, MLX start thread
#: pools on import). They run last: the rest of the suite forks worker processes (cvc5,
#: the compiled C), and forking a process whose threads hold locks can deadlock the child.
HEAVY_LAST = ("test_backends.py",)


#: Node ids of tests whose expectation a merged change altered and that are not yet rewritten
#: (the file says why); marked xfail(strict=True), so one that passes again fails the run.


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.path.name in HEAVY_LAST)


@pytest.fixture
def jump_clock(monkeypatch: pytest.MonkeyPatch) -> Callable[[float], None]:
    """``jump_clock(step)``: from then on every reading of ``time.monotonic`` and
    ``time.perf_counter`` is ``step`` seconds after the previous one (a machine as slow as
    one likes), to show that a budget does not read the clock (issue 33)."""

    def start(step: float) -> None:
        clock = [time.monotonic()]

        def jumping() -> float:
            clock[0] += step
            return clock[0]

        monkeypatch.setattr(time, "monotonic", jumping)
        monkeypatch.setattr(time, "perf_counter", jumping)

    return start
