"""Inputs and outputs of a check: the C function's final state as the summary's outputs, the
C++ / Python calling convention's arguments, a printable form of inputs, and the magnitude of
a float result's terms (the scale of its rounding error).

Input format (shared with the loop-IR interpreter): parameter name → Python int/float for a
scalar parameter, 1-D array-like for a pointer parameter (long enough for the kernel); a
struct parameter is given by its flat parameters (``Function.structs``), the rows of a
``T **`` field as one row-major array (row ``r`` starts at ``r * cols``).
Final-state format: ``{"return": value or None, <pointer param>: final array}`` with int64
arrays for ``int`` / ``unsigned char`` elements and float64 arrays for ``float`` /
``double``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import assert_never

import numpy as np

from tenspiler.codegen import returned_outputs
from tenspiler.ir.terms import ArrayOutput, Output, ProgramSummary, ScalarOutput
from tenspiler.loops.ir import DType, Function, PointerType, ScalarType


def outputs_of(fn: Function, ps: ProgramSummary, final_state: Mapping[str, object]) -> tuple:
    """The values the generated function returns, picked from a final state
    ``{"return": v, <array>: final array}``, in summary order (:func:`returned_outputs`)."""
    out: list[object] = []
    for o in returned_outputs(ps):
        match o:
            case ArrayOutput(array):
                out.append(final_state[array])
            case ScalarOutput():
                out.append(final_state["return"])
            case _:
                assert_never(o)
    return tuple(out)


def output_dtype(fn: Function, o: Output) -> DType:
    if isinstance(o, ArrayOutput):
        t = fn.param(o.array).type
        assert isinstance(t, PointerType)
        return t.elem
    assert fn.return_dtype is not None
    return fn.return_dtype


def term_magnitude(fn: Function, ps: ProgramSummary, inputs: Mapping[str, object]) -> float:
    """The largest magnitude the summary's outputs reach on ``inputs`` with every float input
    replaced by its absolute value (evaluated over the reals): for a sum of products it is
    the sum of the terms' magnitudes, the scale of any order's rounding error (the forward
    error bound of floating-point summation, Higham, *Accuracy and Stability of Numerical
    Algorithms*, §4.2). 0.0 where the summary cannot be evaluated on them."""
    from tenspiler.ir.interp import evaluate

    env: dict[str, object] = {}
    for name, v in inputs.items():
        a = np.asarray(v)
        env[name] = np.abs(a.astype(np.float64)) if a.dtype.kind == "f" else v
    for p in fn.params:
        if isinstance(p.type, ScalarType) and p.type.dtype.is_float and p.name in env:
            env[p.name] = abs(float(env[p.name]))  # type: ignore[arg-type]
    top = 0.0
    for o in ps.outputs:
        try:
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # ±inf / NaN are skipped below
                x = np.abs(np.asarray(evaluate(o.value, env), dtype=np.float64))
        except Exception:  # a precondition or an undefined operation on the changed inputs
            return 0.0
        x = x[np.isfinite(x)]
        top = max(top, float(np.max(x, initial=0.0)))
    return top


def show_value(v: object) -> str:
    if isinstance(v, np.ndarray):
        return np.array2string(v, threshold=20, separator=", ")
    return repr(v)


def format_inputs(inputs: Mapping[str, object]) -> str:
    return ", ".join(
        f"{k}={show_value(np.asarray(v)) if not np.isscalar(v) else show_value(v)}" for k, v in inputs.items()
    )


def snapshot(inputs: Mapping[str, object]) -> dict[str, object]:
    return {k: np.array(v, copy=True) if not np.isscalar(v) else v for k, v in inputs.items()}


def vector_inputs(fn: Function, inputs: Mapping[str, object]) -> dict[str, object]:
    """The C++ view of flat inputs of ``fn`` (``fn.cxx``): per vector parameter a 1-D
    array of its length, a 2-D array (rows x cols) or a 3-D one (planes x rows x cols);
    scalars as they are."""
    assert fn.cxx is not None
    out: dict[str, object] = {}
    for v in fn.cxx.signature:
        if isinstance(v, str):
            out[v] = inputs[v]
            continue
        dims = [max(int(inputs[n]), 0) for n in v.sizes]  # type: ignore[call-overload]
        flat = np.asarray(inputs[v.name])[: int(np.prod(dims))]
        out[v.name] = flat.copy() if v.rank == 1 else flat.reshape(dims)
    return out
