"""The differential check: the generated code and the loop IR (the proof's model) against the
original on the same inputs.

For a C / C++ kernel the reference is the compiled source (:mod:`tenspiler.check.c`), for a
Python kernel (``Function.python``) the original function (:mod:`tenspiler.check.python`); the
generated module runs through :mod:`tenspiler.check.generated`; results are compared with
:func:`tenspiler.ir.semantics.results_agree` (integers exactly, floats with the model's
tolerances) on the outputs :func:`tenspiler.check.values.outputs_of` reads from the C
function's final state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tenspiler.check.c import compile_c, run_c_all
from tenspiler.check.generated import run_generated
from tenspiler.check.values import (
    format_inputs,
    output_dtype,
    outputs_of,
    show_value,
    snapshot,
    term_magnitude,
    vector_inputs,
)
from tenspiler.codegen import GeneratedCode, returned_outputs
from tenspiler.ir.printer import show_output
from tenspiler.ir.semantics import results_agree
from tenspiler.ir.terms import ArrayOutput, ProgramSummary
from tenspiler.loops.ir import DType, Function


@dataclass(frozen=True)
class CheckResult:
    """Outcome of :func:`differential_check`.

    Attributes:
        backend: the backend whose code was checked.
        n_inputs: number of inputs run.
        n_passed: inputs on which every returned value matched the C function's.
        first_failure: description of the first mismatch (input number, output, both
            values), or ``None``.
        ok: ``n_passed == n_inputs``.
    """

    backend: str
    n_inputs: int
    n_passed: int
    first_failure: str | None
    ok: bool


# ---------------------------------------------------------------- comparing


def _check_one(
    fn: Function,
    ps: ProgramSummary,
    code: GeneratedCode,
    state: dict[str, object] | str,
    inputs: Mapping[str, object],
) -> str | None:
    """``None`` when the generated code agrees with the C final ``state`` on ``inputs``,
    else what differs."""
    if isinstance(state, str):
        return state
    if fn.python is not None:
        from tenspiler.check.python import check_one_python

        return check_one_python(fn, ps, code, state, inputs)
    if fn.cxx is not None:
        return _check_one_cxx(fn, ps, code, state, inputs)
    outputs = returned_outputs(ps)
    written = {o.array for o in outputs if isinstance(o, ArrayOutput)}
    for p in fn.arrays:
        if p.name not in written and not results_agree(inputs[p.name], state[p.name], p.elem):
            return f"C modified {p.name!r} but the summary has no output for it"
    expected = outputs_of(fn, ps, state)

    given = snapshot(inputs)
    try:
        got = run_generated(code, given)
    except Exception as e:  # the generated code must not raise on valid inputs
        return f"{code.backend} code raised {type(e).__name__}: {e}"
    if len(outputs) == 0:
        got_values: object = () if got is None else got
    else:
        got_values = (got,) if len(outputs) == 1 else got
    if not isinstance(got_values, tuple) or len(got_values) != len(outputs):
        return f"{code.backend} code returned {got!r}, expected {len(outputs)} value(s)"
    for k, v in given.items():
        if not np.array_equal(np.asarray(v), np.asarray(inputs[k])):
            return f"{code.backend} code modified its input {k!r}"
    magnitude = term_magnitude(fn, ps, inputs) if any(output_dtype(fn, o) == DType.FLOAT for o in outputs) else 0.0
    for o, want, g in zip(outputs, expected, got_values, strict=True):
        if not results_agree(want, g, output_dtype(fn, o), magnitude):
            return f"{show_output(o)}: C gave {show_value(want)}, {code.backend} gave {show_value(g)}"
    return None


def _check_one_cxx(
    fn: Function, ps: ProgramSummary, code: GeneratedCode, state: dict[str, object], inputs: Mapping[str, object]
) -> str | None:
    """C++ kernels: the generated entry (C++ signature) on the vector view of ``inputs``
    against what the compiled C++ function returned (the vector, shape included, or the
    scalar)."""
    assert fn.cxx is not None
    r = fn.cxx.result
    want = state["result"] if r is not None else state["return"]
    if isinstance(want, str):
        return want
    given = vector_inputs(fn, inputs)
    before = snapshot(given)
    try:
        got = run_generated(code, given)
    except Exception as e:  # the generated code must not raise on valid inputs
        return f"{code.backend} code raised {type(e).__name__}: {e}"
    for k, v in before.items():
        if not np.array_equal(np.asarray(v), np.asarray(given[k])):
            return f"{code.backend} code modified its input {k!r}"
    dtype = r.elem if r is not None else fn.return_dtype
    if dtype is None:
        return None if got is None else f"{code.backend} code returned {got!r} for a void function"
    if r is not None and r.rank == 2 and np.asarray(want).shape[:1] == (0,) and np.asarray(got).shape[:1] == (0,):
        return None  # a vector of no rows: both empty (the C++ side has no row length to report)
    magnitude = term_magnitude(fn, ps, inputs) if dtype == DType.FLOAT else 0.0
    if not results_agree(want, got, dtype, magnitude):
        what = "the returned vector" if r is not None else "the return value"
        w, g = np.asarray(want), np.asarray(got)
        shapes = f" (shapes {w.shape} and {g.shape})" if w.shape != g.shape else ""
        return f"{what}: C++ gave {show_value(w)}, {code.backend} gave {show_value(g)}{shapes}"
    return None


def differential_check(
    fn: Function,
    ps: ProgramSummary,
    code: GeneratedCode,
    inputs_list: Sequence[Mapping[str, object]],
    workdir: Path,
    states: Sequence[dict[str, object] | str] | None = None,
) -> CheckResult:
    """Run the compiled C function and the generated code on each input and compare.

    Compared: every value the generated code returns (:func:`outputs_of`), whole arrays
    including the elements outside the written range; also, arrays without an output in
    ``ps`` must be left unchanged by the C function. Integer outputs must be equal; float
    outputs must satisfy ``np.allclose(got, expected, rtol=1e-5, atol=1e-6)`` (the C code
    computes in float32 and may sum in a different order). An exception in the generated
    code, a wrong number of results, or a modified input counts as a mismatch; so does a
    crash of the C function (it runs in a forked child process, so a ``SIGFPE`` or
    ``SIGSEGV`` is reported instead of killing the caller). ``states``: the reference's
    results on ``inputs_list`` (:func:`reference_states`) when already computed, e.g. once for
    several backends.

    Raises:
        ValueError: ``inputs_list`` is empty (a check on no inputs proves nothing), or an
            input does not fit its C type.
        CodegenError: the C source does not compile.
    """
    if not inputs_list:
        raise ValueError("differential_check needs at least one input")
    if states is None:
        states = reference_states(fn, inputs_list, workdir)
    passed = 0
    first: str | None = None
    for i, (inputs, state) in enumerate(zip(inputs_list, states, strict=True)):
        problem = _check_one(fn, ps, code, state, inputs)
        if problem is None:
            passed += 1
        elif first is None:
            first = f"input #{i} ({format_inputs(inputs)}): {problem}"
    n = len(inputs_list)
    return CheckResult(code.backend, n, passed, first, passed == n)


@dataclass(frozen=True)
class CheckJob:
    """The arguments of one :func:`differential_check` against reference states already
    computed (:func:`reference_states`), as one picklable item: the unit of work a fresh
    interpreter runs (:func:`check_job`)."""

    fn: Function
    ps: ProgramSummary
    code: GeneratedCode
    inputs: Sequence[Mapping[str, object]]
    states: Sequence[dict[str, object] | str]


def check_job(job: CheckJob) -> CheckResult:
    """:func:`differential_check` of ``job``: run where the array libraries the generated
    code imports may start threads (``runner.FreshInterpreters``, ``"tenspiler.check.differential:check_job"``)."""
    return differential_check(job.fn, job.ps, job.code, job.inputs, Path(), job.states)


def reference_states(
    fn: Function, inputs_list: Sequence[Mapping[str, object]], workdir: Path,
    sanitize: bool = False,
) -> list[dict[str, object] | str]:
    """What :func:`differential_check` compares with, per input: the final state of the C /
    C++ function compiled under ``workdir`` (run in forked children; with UBSan if
    ``sanitize``, then :data:`UB_MESSAGE` marks an input with undefined behaviour), or the
    original Python function's result; a string says how the reference failed on that input.

    Raises:
        ValueError: an input does not fit its C type.
        CodegenError: the C source does not compile.
    """
    if fn.python is not None:  # the reference is the original Python function
        from tenspiler.check.python import run_python_all

        return run_python_all(fn, inputs_list)
    return run_c_all(compile_c(fn, workdir, sanitize), fn, inputs_list)


def model_mismatch(fn: Function, model: Mapping[str, object], state: Mapping[str, object]) -> str | None:
    """Translation validation of the frontend: ``None`` when the loop-IR interpreter's final
    state ``model`` (:func:`tenspiler.loops.interp.run_function`) equals the
    compiled source's ``state`` on the same input — the return value and every pointer
    parameter, exactly for integers, within the float tolerances otherwise — else what
    differs. For C and C++ kernels (a Python kernel's reference has another format).
    Floats are modelled as reals: a float element that C computed as infinite or NaN
    (overflow of the float type, outside the model) is not compared."""

    def same(c: object, m: object, dtype: DType) -> bool:
        if dtype.is_float:
            c_arr, m_arr = np.asarray(c, dtype=np.float64), np.asarray(m, dtype=np.float64)
            if c_arr.shape == m_arr.shape:
                finite = np.isfinite(c_arr)
                return results_agree(c_arr[finite], m_arr[finite], dtype)
        return results_agree(c, m, dtype)

    if fn.return_dtype is not None and not same(state["return"], model["return"], fn.return_dtype):
        return f"return: C gave {show_value(state['return'])}, the loop IR {show_value(model['return'])}"
    for p in fn.arrays:
        if p.name in state and p.name in model:
            elem = p.elem
            if not same(state[p.name], model[p.name], elem):
                return f"{p.name}: C gave {show_value(state[p.name])}, the loop IR {show_value(model[p.name])}"
    return None
