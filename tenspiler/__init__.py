"""tenspiler: verified lifting of legacy sequential kernels to tensor code.

Pipeline (see docs/ARCHITECTURE.md): frontend → loop IR → VCs → synthesis of a TensIR
program summary → cvc5 proof → code generation.

The Python API (:func:`lift`, :func:`lifted`, :class:`Lifted`, :class:`LiftWarning`) is
imported on first use (PEP 562), so importing a submodule — the CLI, a child process of the
checker — does not load the whole compiler.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tenspiler.errors import (
    BadInput,
    CodegenError,
    InternalError,
    LiftError,
    NotLiftable,
    VerificationError,
)
from tenspiler.version import __version__

if TYPE_CHECKING:
    from tenspiler.api import Lifted, LiftWarning, lift, lifted

__all__ = [
    "BadInput",
    "CodegenError",
    "InternalError",
    "LiftError",
    "LiftWarning",
    "Lifted",
    "NotLiftable",
    "VerificationError",
    "__version__",
    "lift",
    "lifted",
]

_API = ("Lifted", "LiftWarning", "lift", "lifted")


def __getattr__(name: str) -> Any:
    if name in _API:
        from tenspiler import api

        return getattr(api, name)
    raise AttributeError(f"module 'tenspiler' has no attribute {name!r}")
