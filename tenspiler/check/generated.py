"""Running generated code on concrete inputs: a Python-hosted backend's module executed in a
fresh namespace, an array library's code given the library's arrays (results back as NumPy),
or a non-Python backend through its :class:`~tenspiler.codegen.base.Runner`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np

from tenspiler.codegen import GeneratedCode, backend_names, get_backend
from tenspiler.errors import CodegenError


def run_generated(code: GeneratedCode, inputs: Mapping[str, object]) -> object:
    """Execute the generated module in a fresh namespace and call its entry on ``inputs``.

    Arguments are passed positionally in ``code.params`` order (keywords when ``params`` is
    empty). Returns whatever the entry returns. Code that is not Python runs through its
    ``code.runner`` module (same calling convention). Code of an array-library backend
    (torch, mlx, tensorflow, jax) gets its NumPy inputs as the library's arrays and returns
    NumPy (:func:`_run_array_code`).

    Raises:
        CodegenError: ``code`` is not Python and has no runner.
    """
    text = code.text
    if code.language != "python":
        if code.runner is None:
            raise CodegenError(f"cannot run {code.language} code from backend {code.backend!r}")
        text = code.runner.text  # e.g. a device kernel under emulation plus its host part
    backend = get_backend(code.backend) if code.backend in backend_names() else None
    if code.language == "python" and hasattr(backend, "to_native"):
        return _run_array_code(backend, code, inputs)
    namespace: dict[str, Any] = {"__name__": f"tenspiler_generated_{code.entry}"}
    exec(compile(text, f"<{code.backend}:{code.entry}>", "exec"), namespace)
    entry = namespace[code.entry]
    # float overflow to inf (exp of a large input) happens in the C as well: compare, not warn
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        if code.params:
            return entry(*(inputs[p] for p in code.params))
        return entry(**inputs)


@functools.lru_cache(maxsize=16)
def _array_module(backend: str, entry: str, text: str) -> dict[str, Any]:
    """The namespace of a generated array-library module (executed once per text: its
    ``_jit`` cache and the library's per-shape caches are kept between inputs)."""
    namespace: dict[str, Any] = {"__name__": f"tenspiler_generated_{entry}"}
    exec(compile(text, f"<{backend}:{entry}>", "exec"), namespace)
    return namespace


def _run_array_code(backend: Any, code: GeneratedCode, inputs: Mapping[str, object]) -> object:
    """:func:`run_generated` for an array-library backend (``ArrayBackend``: torch, mlx,
    tensorflow, jax): NumPy array inputs become the library's arrays (lists and numbers
    stay), the results come back as NumPy (``backend.to_numpy``).

    Raises:
        CodegenError: the code modified one of its (native) inputs.
    """
    entry = _array_module(code.backend, code.entry, code.text)[code.entry]
    args = {k: backend.to_native(v) if isinstance(v, np.ndarray) else v for k, v in inputs.items()}
    before = {k: np.array(backend.to_numpy(v), copy=True) for k, v in args.items() if k in inputs and isinstance(inputs[k], np.ndarray)}
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        got = entry(*(args[p] for p in code.params)) if code.params else entry(**args)
    for k, v in before.items():
        if not np.array_equal(np.asarray(backend.to_numpy(args[k])), v, equal_nan=v.dtype.kind == "f"):
            raise CodegenError(f"{code.backend} code modified its input {k!r}")
    return backend.to_numpy(got)
