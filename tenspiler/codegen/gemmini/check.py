"""The Gemmini part of ``--check``: the C file against the TensIR reference interpreter.

:func:`device_inputs` makes inputs for the kernel (the same generator as the differential
check, :func:`tenspiler.vc.concrete.random_examples`) and pushes integer array elements to
the int8 extremes -128 and 127 (some inputs all -128 or all 127, the largest products), with
trip counts up to 300 (long reductions: up to 300 × 300 matrix–vector products; 40 for a
nest deeper than two, e.g. 40 × 40 × 40 GEMM).
:func:`device_check` runs the C file on each (through its runner: every instruction on the
oracle, each call's instructions equal to its procedure's assembly) and compares each returned
value with :func:`tenspiler.ir.interp.evaluate` of the summary: integers bit-exactly, reals
with the float tolerance of the differential check (the proof's reals are exact; Gemmini's
float32 fused multiply-adds round). An output that casts a real to an integer is left to the
differential check against the original program (which rounds in float32 like Gemmini): a
cast is discontinuous, no tolerance applies. It reports the number of Gemmini instructions,
the number of device calls the host computed because their run-time contract failed (a
computed operand such as ``x - 1`` may leave int8 at the extremes; the check fails when no
input ran without such a fallback, i.e. when Gemmini never computed the kernel in full), and
the assembly text of the first input.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tenspiler.codegen.base import GeneratedCode, returned_outputs
from tenspiler.ir.interp import evaluate
from tenspiler.ir.printer import show_output
from tenspiler.ir.terms import (
    ArrayOutput,
    Output,
    ProgramSummary,
    ScalarCast,
    TensorCast,
    Term,
    children,
)
from tenspiler.loops.ir import DType, Function, PointerType

__all__ = ["device_check", "device_inputs"]


def device_inputs(k: Any, seed: int, count: int = 24) -> list[dict[str, Any]]:
    """Inputs at the int8 extremes and with long reductions (see the module docstring)."""
    from tenspiler.vc.blocks import BlockKernel
    from tenspiler.vc.concrete import random_examples

    if not getattr(k, "interpret", True):
        # literal sizes generalised (tenspiler.vc.generalize.AtSizes): every input is a
        # full-size run; three cover the patterns below (mixed, all -128, all 127)
        count = min(count, 3)
    rng = np.random.default_rng(seed + 7)
    big = max(1, count // 4)  # long reductions
    # a nest deeper than two (GEMM): trips³ products in the TensIR interpreter
    small, large = (12, 40) if isinstance(k, BlockKernel) else (40, 300)
    # admitted by the proof's preconditions; the source is not run (run=False): its elements
    # are replaced below, and the check compares with TensIR, skipping inputs on which the
    # summary is undefined or a result leaves its C type (device_check)
    exs = random_examples(k, rng, count - big, max_trips=small, magnitude=127, run=False)
    exs += random_examples(k, rng, big, max_trips=large, magnitude=127, run=False)
    out: list[dict[str, Any]] = []
    for i, e in enumerate(exs):
        inputs = dict(e.inputs)
        for p in k.fn.params:
            real = p.type.elem.is_float if isinstance(p.type, PointerType) else p.type.dtype.is_float
            if real:
                # reals: |x| ≤ 8 (exp and products of C floats stay finite; the int8 extremes are for integers)
                inputs[p.name] = np.asarray(inputs[p.name]) / 16 if isinstance(p.type, PointerType) else float(inputs[p.name]) / 16
            if isinstance(p.type, PointerType) and p.type.elem == DType.INT:
                a = np.asarray(inputs[p.name]).copy()
                if i % 6 == 1:
                    a[:] = -128
                elif i % 6 == 2:
                    a[:] = 127
                else:
                    pick = rng.random(a.shape) < 0.3
                    a[pick] = rng.choice(np.array([-128, 127]), size=int(pick.sum()))
                inputs[p.name] = a
        out.append(inputs)
    return out


def _overflows(fn: Function, outputs: Sequence[Output], want: Sequence[Any]) -> bool:
    """Whether an ``int``/``long`` result lies outside its C type (the model's integers are
    mathematical: the source overflowed, which C leaves undefined), or a ``float`` result
    outside float32's range (C's is infinite there, the model's real finite)."""
    from tenspiler.vc.concrete import C_INT_RANGES

    for o, w in zip(outputs, want, strict=True):
        dtype: DType | None = fn.param(o.array).elem if isinstance(o, ArrayOutput) else fn.return_dtype
        c_type = fn.param(o.array).c_type if isinstance(o, ArrayOutput) else fn.return_c_type
        if dtype == DType.FLOAT:
            # beyond FLT_MAX the C float is inf, the model's real is not: not comparable
            values = np.asarray(w, dtype=np.float64).ravel()
            if np.any(np.abs(values[np.isfinite(values)]) > float(np.finfo(np.float32).max)):
                return True
            continue
        if dtype != DType.INT:
            continue
        lo, hi = C_INT_RANGES.get(c_type, C_INT_RANGES[""])
        values = np.asarray(w, dtype=object).ravel()
        if any(not lo <= int(v) <= hi for v in values):
            return True
    return False


def _real_to_int(t: Term) -> bool:
    """``t`` converts a real to an integer somewhere (a cast is discontinuous: float32 and the
    interpreter's reals may land on either side of an integer)."""
    if isinstance(t, ScalarCast | TensorCast) and not t.dtype.is_float and _child_dtype(t).is_float:
        return True
    return any(_real_to_int(c) for c in children(t))


def _child_dtype(t: ScalarCast | TensorCast) -> DType:
    inner = t.scalar if isinstance(t, ScalarCast) else t.tensor
    return inner.dtype


def _expected(fn: Function, ps: ProgramSummary, inputs: dict[str, Any]) -> list[Any]:
    env = {k: (np.asarray(v) if isinstance(v, np.ndarray | list) else v) for k, v in inputs.items()}
    out: list[Any] = []
    for o in returned_outputs(ps):
        if isinstance(o, ArrayOutput):
            arr = np.asarray(inputs[o.array]).astype(np.float64 if fn.param(o.array).elem.is_float else np.int64)
            lo, hi = int(evaluate(o.lo, env)), int(evaluate(o.hi, env))
            arr[lo:hi] = evaluate(o.value, env)
            out.append(arr)
        else:
            out.append(evaluate(o.value, env))
    return out


def device_check(backend: Any, fn: Function, ps: ProgramSummary, code: GeneratedCode, inputs_list: list[dict[str, Any]]) -> dict[str, Any]:
    """Run the generated C file on ``inputs_list`` and compare with the interpreter (module
    docstring). Returns the JSON-able check record (``ok``, ``inputs``, ``passed``,
    ``first_failure``, ``instructions``, ``fallbacks``, ``assembly``)."""
    from tenspiler.ir.semantics import (
        results_agree,  # the differential check's comparison (float tolerance)
    )

    assert code.runner is not None
    namespace: dict[str, Any] = {"__name__": f"tenspiler_gemmini_{fn.name}"}
    exec(compile(code.runner.text, f"<gemmini:{fn.name}>", "exec"), namespace)
    runtime = namespace["_RUNNER"]
    outputs = returned_outputs(ps)
    passed, ran, first, clean = 0, 0, None, 0
    instructions = fallbacks = 0
    assembly = ""
    largest: list[Any] = []
    for i, inputs in enumerate(inputs_list):
        try:
            want = _expected(fn, ps, inputs)
        except (IndexError, ValueError, ArithmeticError):
            continue  # the summary is undefined there (e.g. a zero divisor): not a test
        if _overflows(fn, outputs, want):
            continue  # a result its C type cannot hold: signed overflow, undefined in the source
        ran += 1
        try:
            state = runtime.run({p.name: inputs[p.name] for p in fn.params})
        except Exception as e:
            first = first or f"input #{i}: the Gemmini C file raised {type(e).__name__}: {e}"
            continue
        res = runtime.calls[-1]
        instructions += len(res.instructions)
        fallbacks += res.fallbacks
        if not assembly:
            assembly = res.assembly
        if len(res.instructions) > len(largest):
            largest = res.instructions
        problem = None
        for o, w in zip(outputs, want, strict=True):
            if _real_to_int(o.value):
                continue  # rounding of float32 vs real arithmetic meets a discontinuous cast
            got = state[o.array] if isinstance(o, ArrayOutput) else state["return"]
            dtype = fn.param(o.array).elem if isinstance(o, ArrayOutput) else fn.return_dtype
            if not results_agree(w, got, dtype):  # type: ignore[arg-type]
                problem = f"{show_output(o)}: interpreter gave {np.asarray(w)!r}, Gemmini gave {np.asarray(got)!r}"
                break
        if problem is None:
            passed += 1
            clean += res.fallbacks == 0
        else:
            first = first or f"input #{i}: {problem}"
    from tenspiler.act.cost import estimate

    cost = estimate(runtime.runner.isa, largest)
    if ran and passed == ran and not clean:
        first = "every input sent some device call to the host (its run-time contract failed): Gemmini computed nothing in full"
    elif ran and passed == ran and (code.placement or {}).get("kernels") and not instructions:
        clean = 0
        first = "Gemmini ran no instruction on any check input although the code has device calls"
    skipped = [show_output(o) for o in outputs if _real_to_int(o.value)]
    return {
        "ok": ran > 0 and passed == ran and clean > 0,
        "inputs": ran,
        "passed": passed,
        "first_failure": first if ran else "no input on which the summary is defined",
        "reference": "TensIR interpreter (integers bit-exact, reals within the float tolerance)",
        "instructions": instructions,
        "fallbacks": fallbacks,
        "inputs_without_fallback": clean,
        # real→integer casts: compared with the original program by the differential check only
        "not_compared": skipped,
        # the cost model (tenspiler.act.cost) on the input with the most instructions
        "modelled": {"instructions": len(largest), "cycles": cost.cycles, "macs": cost.macs,
                     "utilization": round(cost.utilization, 4)},
        "assembly": assembly,
    }
