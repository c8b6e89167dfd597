"""The helpers of generated array-library code (PyTorch, MLX, TensorFlow, JAX) that are the
same code in every library: Python's flooring ``//`` and ``%`` (every supported library's
operators floor), with a zero divisor replaced by 1 (:func:`_nz`).

The array backend emits :data:`FUNCTIONS` by their source
(:func:`tenspiler.codegen.python_host.function_source`) when the code calls them, next to
``_nz`` and the other helpers spelled per library
(:class:`~tenspiler.codegen.array_backend.Spelling`). :func:`_nz` here is that helper for
NumPy arrays: it is not emitted (each library has its own), it lets the functions here run,
and be tested, on NumPy arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["FUNCTIONS", "nonzero"]


def _nz(y: Any) -> Any:
    """The divisor `y` with 0 replaced by 1 (NumPy arrays, Python numbers)."""
    return np.where(y == 0, np.ones_like(y), y) if isinstance(y, np.ndarray) else (y or 1)


def _py_floordiv(x: Any, y: Any) -> Any:
    """Python floor division x // y, elementwise."""
    return x // _nz(y)


def _py_mod(x: Any, y: Any) -> Any:
    """Python modulo x % y (the sign of y), elementwise."""
    return x % _nz(y)


#: The library-independent helpers by the name generated code calls them (they call ``_nz``).
FUNCTIONS: dict[str, Callable[..., Any]] = {f.__name__: f for f in (_py_floordiv, _py_mod)}

#: :func:`_nz` for NumPy values (tests run the templated helpers against it).
nonzero = _nz
