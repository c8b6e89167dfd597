"""The frontends: C / C++ (:mod:`tenspiler.frontend.c`) and Python
(:mod:`tenspiler.frontend.python`) source to the loop IR.

This package's own module holds only what choosing and reading a source file needs — the
file suffixes of each language and :func:`read_source` — so that a caller (the CLI, the
pipeline before its parse phase) can decide without loading a frontend.
"""

from __future__ import annotations

from pathlib import Path

from tenspiler.errors import read_utf8

__all__ = ["CXX_SUFFIXES", "PY_SUFFIXES", "read_source"]

#: File suffixes read as the C++ ``std::vector`` subset (:mod:`tenspiler.frontend.cxx`).
CXX_SUFFIXES = (".cc", ".cpp", ".cxx", ".c++")

#: File suffixes read by the Python frontend.
PY_SUFFIXES = (".py",)


def read_source(path: str | Path) -> str:
    """The UTF-8 text of the source file at ``path``; a located :class:`BadInput` if it
    cannot be read or decoded (:func:`tenspiler.errors.read_utf8`)."""
    return read_utf8(path)
