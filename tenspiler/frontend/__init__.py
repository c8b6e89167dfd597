"""The frontends: C / C++ (:mod:`tenspiler.frontend.c`) and Python
(:mod:`tenspiler.frontend.python`) source to the loop IR.

This package's own module holds only what choosing and reading a source file needs — the
file suffixes of each language and :func:`read_source` — so that a caller (the CLI, the
pipeline before its parse phase) can decide without loading a frontend.
"""

from __future__ import annotations

from pathlib import Path

from tenspiler.errors import BadInput

__all__ = ["CXX_SUFFIXES", "PY_SUFFIXES", "read_source"]

#: File suffixes read as the C++ ``std::vector`` subset (:mod:`tenspiler.frontend.cxx`).
CXX_SUFFIXES = (".cc", ".cpp", ".cxx", ".c++")

#: File suffixes read by the Python frontend.
PY_SUFFIXES = (".py",)


def read_source(path: str | Path) -> str:
    """The UTF-8 text of the source file at ``path``; a :class:`BadInput` if unreadable."""
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput(f"cannot read {p}: {e}") from e
