"""The backend registry: backends by name, imported only when asked for.

Backends are registered by name (:func:`register_backend`) and looked up with
:func:`get_backend` — never ``if target == ...`` (STYLE.md, guideline 3). The built-in
backends are known by name before any of them is imported (:data:`BUILTIN`): the module of one
is imported the first time :func:`get_backend` asks for it, and registers itself on import.
So ``lift --help`` and ``lift --to numpy`` import neither the Gemmini backend nor the array
libraries' spelling tables, and a backend whose optional dependencies are not installed is
reported by name with the extra to install (:class:`MissingExtra`) instead of an
``ImportError``.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tenspiler.errors import CodegenError

if TYPE_CHECKING:
    from tenspiler.codegen.base import Backend

__all__ = [
    "BUILTIN",
    "BuiltinBackend",
    "MissingExtra",
    "backend_names",
    "get_backend",
    "register_backend",
    "require_runtime",
    "resolve_backends",
]


@dataclass(frozen=True)
class BuiltinBackend:
    """Where a built-in backend lives and what it needs beyond the core install.

    Attributes:
        module: the module that registers the backend when imported.
        requires: top-level modules the backend imports (lazily) to generate code.
        extra: the ``pip install 'tenspiler[EXTRA]'`` extra that provides them.
        runs_with: top-level modules the generated code imports: ``--check`` runs it, so it
            needs them (:func:`require_runtime`); generating the code does not.
        runtime_extra: the extra that provides ``runs_with``.
    """

    module: str
    requires: tuple[str, ...] = ()
    extra: str | None = None
    runs_with: tuple[str, ...] = ()
    runtime_extra: str | None = None


#: The built-in backends by registry name. The array libraries (torch, mlx, tensorflow,
#: jax) are imported only by the generated code and by ``--check`` running it, not to
#: generate it: their extras are the generated code's requirements, not the backends'.
BUILTIN: dict[str, BuiltinBackend] = {
    "numpy": BuiltinBackend("tenspiler.codegen.numpy_backend"),
    "torch": BuiltinBackend("tenspiler.codegen.torch_backend", runs_with=("torch",), runtime_extra="torch"),
    "mlx": BuiltinBackend("tenspiler.codegen.mlx_backend", runs_with=("mlx",), runtime_extra="mlx"),
    "tensorflow": BuiltinBackend("tenspiler.codegen.tensorflow_backend", runs_with=("tensorflow",),
                                 runtime_extra="tf"),
    "jax": BuiltinBackend("tenspiler.codegen.jax_backend", runs_with=("jax", "jaxlib"), runtime_extra="jax"),
    "tpc_c": BuiltinBackend("tenspiler.codegen.tpc_c"),
    # the ACT backend: egglog (e-graph instruction selection), OR-tools (CP-SAT allocation)
    "gemmini": BuiltinBackend("tenspiler.codegen.gemmini", ("egglog", "ortools"), "act"),
    "hlo": BuiltinBackend("tenspiler.codegen.hlo_backend"),
}

_REGISTRY: dict[str, Backend] = {}


class MissingExtra(CodegenError):
    """A built-in backend whose optional dependencies are not installed; the message names
    the missing modules and the ``pip install`` command (the CLI exits with code 2)."""

    def __init__(self, backend: str, missing: Sequence[str], extra: str, message: str | None = None) -> None:
        self.backend = backend
        self.missing = tuple(missing)
        self.extra = extra
        super().__init__(message or (
            f"backend {backend!r} needs {', '.join(missing)}, which the core install does not "
            f"include: pip install 'tenspiler[{extra}]'"
        ))


def register_backend(backend: Backend) -> None:
    """Add ``backend`` to the registry under ``backend.name``.

    Raises:
        ValueError: a backend of that name is already registered.
    """
    if backend.name in _REGISTRY:
        raise ValueError(f"a backend named {backend.name!r} is already registered")
    _REGISTRY[backend.name] = backend


def get_backend(name: str) -> Backend:
    """The backend registered as ``name``; a built-in one is imported on first use.

    Raises:
        MissingExtra: a built-in backend whose optional dependencies are not installed.
        CodegenError: no such backend; the message lists the known names, sorted.
    """
    if name not in _REGISTRY and name in BUILTIN:
        spec = BUILTIN[name]
        missing = [m for m in spec.requires if importlib.util.find_spec(m) is None]
        if missing:
            raise MissingExtra(name, missing, spec.extra or name)
        importlib.import_module(spec.module)  # registers the backend
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(backend_names()) or "(none)"
        raise CodegenError(f"unknown backend {name!r}; known backends: {known}") from None


def require_runtime(name: str) -> None:
    """Check that the code of backend ``name`` can run here (``--check`` runs it): the
    modules it imports are found (``importlib.util.find_spec``; none is imported).

    Raises:
        MissingExtra: one is missing; the message names it and the ``pip install`` line.
    """
    spec = BUILTIN.get(name)
    if spec is None or not spec.runs_with:
        return
    missing = [m for m in spec.runs_with if importlib.util.find_spec(m) is None]
    if missing:
        extra = spec.runtime_extra or name
        raise MissingExtra(name, missing, extra, (
            f"--check runs the generated {name} code, which imports {', '.join(missing)}, not part of the core "
            f"install: pip install 'tenspiler[{extra}]' (or --no-check: the code is generated without it)"
        ))


def backend_names() -> list[str]:
    """Names of the registered and built-in backends, sorted (nothing is imported)."""
    return sorted(set(_REGISTRY) | set(BUILTIN))


def resolve_backends(names: Sequence[str], runnable: bool = False) -> list[str]:
    """Backend names as requested (``--to``): ``"all"`` stands for every backend whose
    dependencies are installed (sorted); duplicates are dropped, the order otherwise kept.
    With ``runnable`` (``--check``), the generated code must be able to run here too
    (:func:`require_runtime`).

    Raises:
        MissingExtra: a backend named explicitly whose optional dependencies are missing.
        CodegenError: an unknown name (the message lists the known ones).
    """
    out: list[str] = []
    for n in names:
        for b in backend_names() if n == "all" else [n]:
            try:
                get_backend(b)
                if runnable:
                    require_runtime(b)
            except MissingExtra:
                if n == "all":
                    continue
                raise
            if b not in out:
                out.append(b)
    return out
