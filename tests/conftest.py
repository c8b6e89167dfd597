"""Shared test fixtures.

Golden files: ``golden(name, text)`` compares ``text`` with ``tests/golden/<name>``; run
``pytest --update-golden`` to (re)write the files instead, then review the diff.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

GOLDEN_DIR = Path(__file__).parent / "golden"


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


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.path.name in HEAVY_LAST)
