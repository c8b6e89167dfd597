"""Code generation: the backends and their registry.

A backend turns a verified :class:`~tenspiler.ir.terms.ProgramSummary` of a
:class:`~tenspiler.loops.ir.Function` into source text (:class:`GeneratedCode`);
:mod:`tenspiler.codegen.base` holds what every backend shares (the ``Backend`` protocol, the
rule-table keys :func:`op_key`), :mod:`tenspiler.codegen.registry` the registry by name
(:func:`get_backend`; built-in backends are imported on first use).

Partial lowering: :meth:`Backend.supports` says whether the backend has a rule for every node
of one term, so a caller can hand a backend only the outputs (or subterms) it supports and
keep the rest in host code. :mod:`tenspiler.codegen.split` does that division for device
backends (``split_summary`` with the backend's ``DeviceRules``: per output, what a device kernel
computes and what the host computes, and why); such a backend reports it as
``GeneratedCode.placement`` and emits its host part as extra files.

The Python-hosted backends share :mod:`tenspiler.codegen.python_host` (guards, docstrings,
the C++/Python adapter, output assembly); NumPy is one dialect of it and the array libraries
(``array_backend.py``: a per-library spelling table) the others. They lower node by node:
``lower(term, operands, ctx)`` returns the snippet or ``None`` to decline the node, and the
generated code computes a declined node with NumPy host code (operands to NumPy, NumPy's rule,
result back).

This package imports no backend, and not even ``base`` or ``registry`` until one of the names
below is used (PEP 562): ``lift --help`` lists the backends without loading NumPy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tenspiler.codegen.base import (
        Backend,
        GeneratedCode,
        NoRule,
        Runner,
        missing_ops,
        no_rule_error,
        op_key,
        operands,
        output_term,
        returned_outputs,
    )
    from tenspiler.codegen.registry import (
        MissingExtra,
        backend_names,
        get_backend,
        register_backend,
        resolve_backends,
    )

#: Re-exported name → the module defining it.
_EXPORTS = {
    **dict.fromkeys(("Backend", "GeneratedCode", "NoRule", "Runner", "missing_ops", "no_rule_error", "op_key", "operands",
                     "output_term", "returned_outputs"), "tenspiler.codegen.base"),
    **dict.fromkeys(("MissingExtra", "backend_names", "get_backend", "register_backend", "resolve_backends"),
                    "tenspiler.codegen.registry"),
}

__all__ = [
    "Backend",
    "GeneratedCode",
    "MissingExtra",
    "NoRule",
    "Runner",
    "backend_names",
    "get_backend",
    "missing_ops",
    "no_rule_error",
    "op_key",
    "operands",
    "output_term",
    "register_backend",
    "resolve_backends",
    "returned_outputs",
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'tenspiler.codegen' has no attribute {name!r}")
