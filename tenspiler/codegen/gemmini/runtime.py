"""What the generated runner module (``GeneratedCode.runner``) imports: :func:`load` compiles
the Gemmini C file once per process and returns a :class:`Runtime` that calls it on NumPy
inputs (:class:`~.harness.GemminiRunner`) and keeps the last call's record (instructions,
assembly text, fallbacks) for ``--check``."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from tenspiler.codegen.gemmini.harness import CallResult, GemminiRunner

__all__ = ["Runtime", "load"]

_LOCK = threading.Lock()
_LOADED: dict[tuple[Any, ...], Runtime] = {}


class Runtime:
    """A loaded Gemmini C file. ``calls``: the :class:`~.harness.CallResult` of every call, in
    order (the check reads them)."""

    def __init__(self, runner: GemminiRunner) -> None:
        self.runner = runner
        self.calls: list[CallResult] = []

    def run(self, inputs: Mapping[str, Any]) -> dict[str, Any]:
        """The final state ``{array: values, "return": value}`` of one call.

        Raises:
            CodegenError: the C file's instructions differ from its assembly, or the oracle
                rejects an instruction.
        """
        res = self.runner.call(inputs)
        self.calls.append(res)
        return res.state


def load(c_text: str, entry: str, params: Sequence[Sequence[str]], ret: str | None, procs: Sequence[str], dim: int,
         config: str) -> Runtime:
    """The :class:`Runtime` of a C file (compiled once per process and content)."""
    from tenspiler.codegen.gemmini import procs_by_name

    key = (c_text, entry, tuple(map(tuple, params)), ret, tuple(procs), dim, config)
    with _LOCK:
        if key not in _LOADED:
            runner = GemminiRunner(c_text, entry, [tuple(p) for p in params], ret,  # type: ignore[misc]
                                   procs_by_name(dim, config, list(procs)), dim, config)
            _LOADED[key] = Runtime(runner)
        return _LOADED[key]
