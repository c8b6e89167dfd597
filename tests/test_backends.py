"""The array-library backends (torch, mlx, tensorflow, jax): differential tests against the
reference interpreter (``tenspiler.ir.interp.evaluate`` on the summary).

* every TensIR op (:data:`OP_CASES`, which covers every key of NumPy's rule table) on random
  inputs drawn by hypothesis: integers exactly, ``float`` within ``check.results_agree``'s float32
  tolerance, ``double`` within 1e-9 (relative) / 1e-9 (absolute);
* the project's own kernels (tests/kernels, a sample of benchmarks/kernels with the blend
  ``uint8`` and Llama ``float`` kernels), lifted once per session, on the pipeline's random
  program states (``random_examples``) seeded by hypothesis; the C++/Python-signature entry
  is compared with NumPy's;
* explicit cases: C's truncating ``/`` and ``%`` on negative operands (not the libraries'
  flooring ones), Python's ``//`` / ``mod``, ``uint8`` wrap-around, the calling convention
  (native arrays in and out, NumPy arrays and lists accepted, inputs never modified),
  guards, the ``_jit`` entries, partial lowering (an op a backend declines runs as NumPy
  host code), JAX's 64-bit context, ``--to all`` and ``--check``.

A backend whose library is not installed is skipped (``pip install -e '.[dev]'`` installs
all four). The libraries are imported once per session.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.util
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tenspiler.check import term_magnitude, vector_inputs
from tenspiler.codegen import (
    GeneratedCode,
    backend_names,
    get_backend,
    op_key,
    resolve_backends,
    returned_outputs,
)
from tenspiler.codegen import numpy_backend as nb
from tenspiler.codegen.array_backend import ARRAY_RULES, ArrayBackend
from tenspiler.errors import CodegenError
from tenspiler.ir.interp import evaluate
from tenspiler.ir.semantics import UndefinedBehaviour, np_cast, py_cast, results_agree
from tenspiler.ir.terms import (
    ArgMax,
    ArrayOutput,
    BoolOp,
    Cmp,
    Flatten,
    Full,
    Iota,
    Lit,
    MatMul,
    Matrix,
    NotCond,
    ProgramSummary,
    ReduceMax,
    ReduceProd,
    ReduceRows,
    ReduceSum,
    ScalarApply,
    ScalarCast,
    ScalarOp,
    ScalarOutput,
    ScalarSelect,
    ScalarVar,
    Size,
    Slice,
    Stack,
    Strided,
    Tail,
    Take,
    TensorCast,
    TensorMap,
    TensorScalar,
    TensorSelect,
    TensorTensor,
    TensorVar,
    Term,
    Transpose,
    children,
    map_children,
)
from tenspiler.loops.ir import (
    BIN_OPS,
    BITWISE_OPS,
    FLOOR_OPS,
    DType,
    Function,
    Param,
    PointerType,
    ScalarType,
)

ROOT = Path(__file__).resolve().parents[1]
INT, UINT8, FLOAT, DOUBLE = DType.INT, DType.UINT8, DType.FLOAT, DType.DOUBLE

#: backend → (module to import, the pip extra that installs it, native array type path)
LIBRARIES = {
    "torch": ("torch", "torch", "torch.Tensor"),
    "mlx": ("mlx.core", "mlx", "mlx.core.array"),
    "tensorflow": ("tensorflow", "tf", "tensorflow.Tensor"),
    "jax": ("jax", "jax", "jax.Array"),
}
BACKENDS = sorted(LIBRARIES)
STORED = {INT: np.int64, UINT8: np.uint8, FLOAT: np.float32, DOUBLE: np.float64}


def require(name: str) -> ArrayBackend:
    """The backend ``name``; skips the test when its library is missing."""
    module, extra, _ = LIBRARIES[name]
    pytest.importorskip(module, reason=f"{module} is not installed (pip install -e '.[{extra}]')")
    b = get_backend(name)
    assert isinstance(b, ArrayBackend)
    return b


def native_type(name: str) -> type:
    path = LIBRARIES[name][2]
    mod_name, _, attr = path.rpartition(".")
    return getattr(importlib.import_module(mod_name), attr)  # type: ignore[no-any-return]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> ArrayBackend:
    return require(request.param)


_MODULES: dict[tuple[str, str], dict[str, Any]] = {}


def load(code: GeneratedCode) -> dict[str, Any]:
    """The generated module's namespace (executed once per text)."""
    key = (code.backend, code.text)
    if key not in _MODULES:
        ns: dict[str, Any] = {"__name__": f"generated_{code.backend}_{code.entry}"}
        exec(compile(code.text, f"<{code.backend}:{code.entry}>", "exec"), ns)
        _MODULES[key] = ns
    return _MODULES[key]


def close(want: Any, got: Any, dtype: DType, rounded: bool = False, magnitude: float = 0.0) -> bool:
    """Integers exactly; ``float`` as ``check.results_agree`` (``magnitude``: the terms'
    scale, ``check.term_magnitude``, which bounds a cancelling sum's rounding error);
    ``double`` within 1e-9, or as ``float`` when ``rounded`` (a float32 value went into it:
    the interpreter computes reals in float64)."""
    w, g = np.asarray(want), np.asarray(got)
    if w.shape != g.shape:
        return False
    if dtype == DOUBLE and not rounded:
        return bool(np.allclose(g, w, rtol=1e-9, atol=1e-9, equal_nan=True))
    return results_agree(w, g, FLOAT if dtype == DOUBLE else dtype, magnitude)


def has_float32(ps: ProgramSummary) -> bool:
    def walk(t: Term) -> bool:
        return getattr(t, "dtype", None) == FLOAT or any(walk(c) for c in children(t))

    return any(walk(o.value) for o in ps.outputs)


# ---------------------------------------------------------------- the op table

OP_PARAMS = (
    "int* a, int* b, uchar* u, uchar* v, float* f, float* g, double* d, double* e, "
    "int* oi, uchar* ou, float* of, double* od, "
    "int s, int t, int n, int lo, int hi, int r, int c, int w, int k, float x, double y"
)
_CTYPES = {"int": INT, "uchar": UINT8, "float": FLOAT, "double": DOUBLE}


def op_fn(ret: DType | None) -> Function:
    params = []
    for item in OP_PARAMS.split(","):
        ty, name = item.split()
        t = _CTYPES[ty.rstrip("*")]
        params.append(Param(name, PointerType(t) if ty.endswith("*") else ScalarType(t)))
    return Function("op", tuple(params), ret, (), ())


def tv(name: str) -> TensorVar:
    return TensorVar(name, {"a": INT, "b": INT, "u": UINT8, "v": UINT8, "f": FLOAT, "g": FLOAT, "d": DOUBLE, "e": DOUBLE}[name])


def sv(name: str, dtype: DType = INT) -> ScalarVar:
    return ScalarVar(name, dtype)


def lit(value: float, dtype: DType = INT) -> Lit:
    return Lit(value, dtype)


N, S, T, LO, HI, R, C, W, K = (sv(p) for p in ("n", "s", "t", "lo", "hi", "r", "c", "w", "k"))
X, Y = sv("x", FLOAT), sv("y", DOUBLE)


def tk(name: str) -> Take:
    return Take(tv(name), N)


def positive(t: Any, dtype: DType) -> TensorScalar:
    """|t| + 0.25: a valid argument of sqrt and log."""
    return TensorScalar("+", TensorMap("fabs", t, dtype), lit(0.25, dtype), False, dtype)


#: name → (term, output array or None for ``return``, the output's length for arrays)
Case = tuple[Term, str | None, Term | None]
OP_CASES: dict[str, Case] = {}
for _op in BIN_OPS + FLOOR_OPS + BITWISE_OPS:
    # b and t are never 0: they are the divisors; a and s may be 0 and negative
    OP_CASES[f"tensor_tensor({_op}) int"] = (TensorTensor(_op, tk("a"), tk("b"), INT), "oi", N)
    OP_CASES[f"tensor_scalar({_op}) int"] = (TensorScalar(_op, tk("a"), T, False, INT), "oi", N)
    OP_CASES[f"scalar_tensor({_op}) int"] = (TensorScalar(_op, tk("b"), S, True, INT), "oi", N)
    OP_CASES[f"scalar_op({_op}) static"] = (ScalarOp(_op, S, T, INT), None, None)
    OP_CASES[f"scalar_op({_op}) device"] = (ScalarOp(_op, ReduceSum(tk("a"), INT), T, INT), None, None)
    OP_CASES[f"scalar_op({_op}) device divisor"] = (ScalarOp(_op, S, ReduceMax(tk("b"), INT), INT), None, None)
    OP_CASES[f"tensor_scalar({_op}) device scalar"] = (
        TensorScalar(_op, tk("a"), ReduceMax(tk("b"), INT), False, INT), "oi", N)
for _op in BIN_OPS:
    OP_CASES[f"tensor_tensor({_op}) float"] = (TensorTensor(_op, tk("f"), tk("g"), FLOAT), "of", N)
    OP_CASES[f"tensor_tensor({_op}) double"] = (TensorTensor(_op, tk("d"), tk("e"), DOUBLE), "od", N)
    OP_CASES[f"scalar_tensor({_op}) float"] = (TensorScalar(_op, tk("g"), X, True, FLOAT), "of", N)
    OP_CASES[f"scalar_op({_op}) double"] = (ScalarOp(_op, Y, ReduceSum(tk("e"), DOUBLE), DOUBLE), None, None)
    OP_CASES[f"scalar_op({_op}) float literals"] = (ScalarOp(_op, lit(0.1, FLOAT), X, FLOAT), None, None)
for _op in ("+", "-", "*"):
    OP_CASES[f"tensor_tensor({_op}) uint8 -> int"] = (TensorTensor(_op, tk("u"), tk("v"), INT), "oi", N)
    OP_CASES[f"tensor_tensor({_op}) uint8 stored"] = (TensorTensor(_op, tk("u"), tk("v"), INT), "ou", N)
for _d, _x, _y in ((FLOAT, "f", "g"), (DOUBLE, "d", "e")):
    # pow of a positive base (the reals: semantics.py_pow), by an array and by a scalar
    OP_CASES[f"tensor_tensor(pow) {_d.c_name}"] = (
        TensorTensor("pow", positive(tk(_x), _d), TensorScalar("*", tk(_y), lit(0.25, _d), False, _d), _d),
        "of" if _d == FLOAT else "od", N)
    OP_CASES[f"tensor_scalar(pow) {_d.c_name}"] = (
        TensorScalar("pow", positive(tk(_x), _d), lit(1.5, _d), False, _d), "of" if _d == FLOAT else "od", N)
OP_CASES["scalar_tensor(pow) double"] = (
    TensorScalar("pow", TensorScalar("*", tk("e"), lit(0.25, DOUBLE), False, DOUBLE), lit(1.5, DOUBLE), True, DOUBLE), "od", N)
OP_CASES["scalar_op(pow) double"] = (
    ScalarOp("pow", ScalarOp("+", ScalarApply("fabs", Y, DOUBLE), lit(0.25, DOUBLE), DOUBLE), lit(-0.5, DOUBLE), DOUBLE),
    None, None)
for _fn in ("exp", "sqrt", "log", "tanh", "fabs", "expm1", "cos", "sin", "round", "floor"):
    for _d, _x in ((FLOAT, "f"), (DOUBLE, "d")):
        OP_CASES[f"map({_fn}) {_d.c_name}"] = (TensorMap(_fn, positive(tk(_x), _d), _d), "of" if _d == FLOAT else "od", N)
    OP_CASES[f"scalar_apply({_fn}) double"] = (
        ScalarApply(_fn, ScalarOp("+", ScalarApply("fabs", Y, DOUBLE), lit(0.25, DOUBLE), DOUBLE), DOUBLE), None, None)
    OP_CASES[f"scalar_apply({_fn}) float"] = (
        ScalarApply(_fn, ScalarOp("+", ScalarApply("fabs", X, FLOAT), lit(0.25, FLOAT), FLOAT), FLOAT), None, None)
OP_CASES.update({
    "map(exp) of float, in double": (TensorMap("exp", tk("f"), DOUBLE), "od", N),
    "lit int": (lit(-17), None, None),
    "lit float": (lit(0.1, FLOAT), None, None),
    "lit double": (lit(2.5, DOUBLE), None, None),
    "size": (Size(tv("a")), None, None),
    "take": (tk("a"), "oi", N),
    "tail": (Tail(tv("a"), LO), "oi", ScalarOp("-", Size(tv("a")), LO, INT)),
    "slice": (Slice(tv("a"), LO, HI), "oi", ScalarOp("-", HI, LO, INT)),
    "reduce_sum int": (ReduceSum(tk("a"), INT), None, None),
    "reduce_sum uint8": (ReduceSum(tk("u"), INT), None, None),
    "reduce_sum float": (ReduceSum(tk("f"), FLOAT), None, None),
    "reduce_sum float products in double": (
        ReduceSum(TensorTensor("*", tk("f"), tk("g"), FLOAT), DOUBLE), None, None),
    "reduce_max int": (ReduceMax(tk("a"), INT), None, None),
    "reduce_max float": (ReduceMax(tk("f"), FLOAT), None, None),
    # (integers: random products leave int64, where C has undefined behaviour)
    "reduce_prod float": (ReduceProd(TensorScalar("*", tk("f"), lit(0.5, FLOAT), False, FLOAT), FLOAT), None, None),
    "argmax int (ties: small values)": (ArgMax(TensorScalar("%", tk("a"), lit(3), False, INT), INT), None, None),
    "argmax float": (ArgMax(tk("f"), FLOAT), None, None),
    "argmax_last int compared as double": (ArgMax(tk("a"), DOUBLE, True), None, None),
    "tensor_cast float -> int (truncates)": (TensorCast(tk("f"), INT), "oi", N),
    "tensor_cast int -> uint8 (wraps)": (TensorCast(tk("a"), UINT8), "ou", N),
    "tensor_cast of a difference -> uint8": (TensorCast(TensorTensor("-", tk("a"), tk("b"), INT), UINT8), "ou", N),
    "uint8 store of a difference": (TensorTensor("-", tk("u"), tk("v"), INT), "ou", N),
    "scalar_cast of a difference -> uint8 static": (ScalarCast(ScalarOp("-", S, T, INT), UINT8), None, None),
    "scalar_cast of a select -> uint8 device": (
        ScalarCast(ScalarSelect(Cmp(">", ReduceSum(tk("a"), INT), S), ScalarOp("-", S, ReduceSum(tk("a"), INT), INT), T, INT), UINT8),
        None, None),
    "tensor_cast double -> uint8": (
        TensorCast(TensorScalar("*", tk("d"), lit(100.0, DOUBLE), False, DOUBLE), UINT8), "ou", N),
    "tensor_cast int -> float": (TensorCast(tk("a"), FLOAT), "of", N),
    "tensor_cast float -> double": (TensorCast(tk("f"), DOUBLE), "od", N),
    "tensor_cast double -> float": (TensorCast(tk("d"), FLOAT), "of", N),
    "scalar_cast float -> int": (ScalarCast(X, INT), None, None),
    "scalar_cast int -> uint8 static": (ScalarCast(S, UINT8), None, None),
    "scalar_cast int -> uint8 device": (ScalarCast(ReduceSum(tk("a"), INT), UINT8), None, None),
    "scalar_cast int -> double": (ScalarCast(S, DOUBLE), None, None),
    "scalar_cast double -> float": (ScalarCast(Y, FLOAT), None, None),
    "tensor_select": (TensorSelect(Cmp(">", tk("a"), tk("b")), tk("a"), tk("b"), INT), "oi", N),
    "tensor_select and/not": (
        TensorSelect(BoolOp("and", Cmp(">", tk("a"), lit(0)), NotCond(Cmp("==", tk("b"), S))), tk("a"), S, INT), "oi", N),
    "tensor_select or, uint8": (
        TensorSelect(BoolOp("or", Cmp(">=", tk("u"), lit(128)), Cmp("<", tk("v"), lit(3))), lit(255), tk("u"), UINT8), "ou", N),
    "tensor_select two literals": (
        ReduceSum(TensorSelect(Cmp(">", tk("a"), lit(0)), lit(1), lit(0), INT), INT), None, None),
    "tensor_select float (relu)": (
        TensorSelect(Cmp(">", tk("f"), lit(0.0, FLOAT)), tk("f"), lit(0.0, FLOAT), FLOAT), "of", N),
    "tensor_select static condition": (TensorSelect(Cmp(">", N, lit(3)), tk("a"), tk("b"), INT), "oi", N),
    "tensor_select mixed condition": (
        TensorSelect(BoolOp("and", Cmp(">", N, lit(3)), Cmp(">", tk("a"), tk("b"))), tk("a"), lit(7), INT), "oi", N),
    "tensor_select discards x / 0 (burn)": (
        TensorSelect(
            Cmp("==", tk("a"), lit(0)), lit(255),
            TensorScalar("-", TensorTensor("/", TensorScalar("-", tk("u"), lit(255), True, INT), tk("a"), INT), lit(255), True, INT),
            INT),
        "ou", N),
    "scalar_select static": (ScalarSelect(Cmp(">", S, T), S, T, INT), None, None),
    "scalar_select device condition": (
        ScalarSelect(Cmp(">", ReduceSum(tk("a"), INT), S), ReduceSum(tk("a"), INT), S, INT), None, None),
    "scalar_select static condition, device branch": (
        ScalarSelect(Cmp(">", N, lit(0)), ReduceMax(tk("a"), INT), lit(-1000), INT), None, None),
    "scalar_select mixed and/not": (
        ScalarSelect(BoolOp("and", Cmp(">", N, lit(0)), NotCond(Cmp("<", ReduceSum(tk("a"), INT), S))), S, T, INT),
        None, None),
    "scalar_select discards s / 0": (
        ScalarSelect(Cmp(">", ReduceSum(tk("a"), INT), lit(0)), ScalarOp("/", T, S, INT), lit(-1), INT), None, None),
    "tensor_select discards s % 0": (
        TensorSelect(Cmp("!=", S, lit(0)), TensorScalar("%", tk("a"), ScalarOp("%", T, S, INT), False, INT), tk("a"), INT),
        "oi", N),
    "scalar_select float": (
        ScalarSelect(Cmp("<", X, lit(0.0, FLOAT)), ScalarOp("-", lit(0.0, FLOAT), X, FLOAT), X, FLOAT), None, None),
    "matrix (row sums)": (ReduceRows(Matrix(tv("a"), R, C), INT), "oi", R),
    "matrix-vector product": (ReduceRows(TensorTensor("*", Matrix(tv("a"), R, C), Take(tv("b"), C), INT), INT), "oi", R),
    "reduce_rows max": (
        ReduceRows(TensorTensor("+", Matrix(tv("a"), R, C), Take(tv("b"), C), INT), INT, "max"), "oi", R),
    "matrix strided": (
        ReduceRows(TensorTensor("*", Matrix(Tail(tv("a"), K), R, C, W), Take(tv("b"), C), INT), INT), "oi", R),
    "transpose": (ReduceRows(Transpose(Matrix(Tail(tv("a"), K), C, R, W)), INT), "oi", R),
    "strided": (TensorTensor("*", Strided(tv("a"), K, R, W), Take(tv("b"), R), INT), "oi", R),
    "strided at a selected start": (
        Strided(tv("a"), ScalarSelect(Cmp(">", S, lit(0)), K, lit(0), INT), R, W), "oi", R),
    "matrix float matvec": (
        ReduceRows(TensorTensor("*", Matrix(tv("f"), R, C), Take(tv("g"), C), FLOAT), FLOAT), "of", R),
    "matrix double exp rows": (ReduceRows(TensorMap("exp", Matrix(tv("d"), R, C), DOUBLE), DOUBLE), "od", R),
    "full": (TensorTensor("+", Full(R, S), Take(tv("b"), R), INT), "oi", R),
    "iota": (TensorTensor("*", Iota(K, ScalarOp("+", K, R, INT)), Take(tv("b"), R), INT), "oi", R),
    "flatten (column bias)": (
        Flatten(TensorTensor("+", Matrix(tv("a"), R, C), Take(tv("b"), C), INT)), "oi", ScalarOp("*", R, C, INT)),
    "matmul int": (
        Flatten(MatMul(Matrix(tv("a"), R, C), Matrix(tv("b"), C, R), INT, INT)), "oi", ScalarOp("*", R, R, INT)),
    "matmul float transposed": (
        Flatten(MatMul(Matrix(tv("f"), R, C), Transpose(Matrix(tv("g"), R, C)), FLOAT, FLOAT, False)), "of",
        ScalarOp("*", R, R, INT)),
})
# stack: batched (rows along a leading axis: windows gathered at index arrays) or, for a body
# the batching does not cover, a comprehension over the rows
_I, _J = ScalarVar("$s:i", INT), ScalarVar("$s:j", INT)
_WINDOW = Matrix(Tail(tv("f"), _I), K, K, W)
OP_CASES.update({
    "stack batched (a window sum, scaled)": (Stack("$s:i", R, ScalarOp(
        "*", ReduceSum(ReduceRows(_WINDOW, FLOAT), FLOAT), lit(0.5, FLOAT), FLOAT)), "of", R),
    "stack batched (window products)": (Stack("$s:i", R, ReduceSum(ReduceRows(
        TensorTensor("*", _WINDOW, Matrix(tv("g"), K, K), FLOAT), FLOAT), FLOAT)), "of", R),
    "stack batched 2-D (nested)": (Flatten(Stack("$s:i", R, Stack("$s:j", C, ReduceSum(ReduceRows(
        Matrix(Tail(Tail(tv("d"), ScalarOp("*", _I, W, INT)), _J), K, K, W), DOUBLE), DOUBLE)))), "od",
        ScalarOp("*", R, C, INT)),
    "stack batched rows (column sums of windows)": (Flatten(Stack("$s:i", R, ReduceRows(
        Transpose(Matrix(Tail(tv("a"), _I), K, C, W)), INT))), "oi", ScalarOp("*", R, C, INT)),
    "stack comprehension (int rows of a slice times the row)": (Flatten(Stack("$s:i", R, TensorScalar(
        "*", Slice(tv("a"), _I, ScalarOp("+", _I, K, INT)), _I, False, INT))), "oi", ScalarOp("*", R, K, INT)),
})


def _keys(t: Term) -> set[str]:
    out = {op_key(t)}
    for ch in children(t):
        out |= _keys(ch)
    return out


def op_summary(case: Case) -> tuple[Function, ProgramSummary]:
    term, out, length = case
    if out is None:
        return op_fn(term.dtype), ProgramSummary("op", (ScalarOutput("return", term),))  # type: ignore[arg-type]
    assert length is not None
    return op_fn(None), ProgramSummary("op", (ArrayOutput(out, lit(0), length, term),))  # type: ignore[arg-type]


#: Ops only the NumPy backend generates (the array backends decline them): none.
NUMPY_ONLY: set[str] = set()


def test_op_cases_cover_every_op() -> None:
    keys: set[str] = set()
    for term, _, _ in OP_CASES.values():
        keys |= _keys(term)
    assert keys == set(nb.RULES) - NUMPY_ONLY
    assert set(ARRAY_RULES) == set(nb.RULES) - NUMPY_ONLY  # every array backend has a rule for every other op


def nonzero_ints() -> st.SearchStrategy[int]:
    return st.integers(-300, 300).filter(lambda v: v != 0) | st.sampled_from([1, -1, 7, -7, 255, -256])


@st.composite
def op_inputs(draw: st.DrawFn) -> dict[str, Any]:
    """One program state for :func:`op_fn`: arrays long enough for every matrix view."""
    r, c, k = draw(st.integers(0, 3)), draw(st.integers(0, 3)), draw(st.integers(0, 1))
    w = draw(st.integers(max(r, c), max(r, c) + 1))
    length = draw(st.integers(k + max(r, c) * w + 1, k + max(r, c) * w + 6))
    ints = st.integers(-300, 300) | st.sampled_from([0, 1, -1, 255, 256, -256, 128, -7])

    def arr(elems: st.SearchStrategy[Any], dtype: type) -> np.ndarray:
        return np.array(draw(st.lists(elems, min_size=length, max_size=length)), dtype=dtype)

    # no subnormal floats: TensorFlow and JAX (XLA) flush them to zero (module docstrings)
    f32 = st.floats(-4, 4, width=32, allow_subnormal=False)
    f64 = st.floats(-4, 4, allow_subnormal=False)
    lo = draw(st.integers(0, length))
    return {
        "a": arr(ints, np.int64), "b": arr(nonzero_ints(), np.int64),
        "u": arr(st.integers(0, 255), np.uint8), "v": arr(st.integers(0, 255), np.uint8),
        "f": arr(f32, np.float32), "g": arr(f32, np.float32),
        "d": arr(f64, np.float64), "e": arr(f64, np.float64),
        "oi": arr(ints, np.int64), "ou": arr(st.integers(0, 255), np.uint8),
        "of": arr(f32, np.float32), "od": arr(f64, np.float64),
        "s": draw(ints), "t": draw(nonzero_ints()), "n": draw(st.integers(0, length)),
        "lo": lo, "hi": draw(st.integers(lo, length)), "r": r, "c": c, "w": w, "k": k,
        "x": draw(f32), "y": draw(f64),
    }


def expected(fn: Function, ps: ProgramSummary, env: dict[str, Any]) -> list[tuple[Any, DType]] | None:
    """The outputs by the reference interpreter, stored as C stores them; None when the
    input violates a precondition (the interpreter raises)."""
    with np.errstate(all="ignore"):  # x / 0.0 is inf in C too
        return _expected(fn, ps, env)


def _expected(fn: Function, ps: ProgramSummary, env: dict[str, Any]) -> list[tuple[Any, DType]] | None:
    out: list[tuple[Any, DType]] = []
    try:
        for o in returned_outputs(ps):
            if isinstance(o, ScalarOutput):
                assert fn.return_dtype is not None
                v = py_cast(evaluate(o.value, env), fn.return_dtype)
                out.append((np.float32(v) if fn.return_dtype == FLOAT else v, fn.return_dtype))
                continue
            p = fn.param(o.array)
            assert isinstance(p.type, PointerType)
            elem = p.type.elem
            lo, hi = evaluate(o.lo, env), evaluate(o.hi, env)
            value = evaluate(o.value, env)
            base = np.array(env[o.array], dtype=STORED[elem])
            if not 0 <= lo <= hi <= base.shape[0] or np.shape(value) != (hi - lo,):
                return None
            base[lo:hi] = np.asarray(np_cast(value, elem)).astype(STORED[elem])
            out.append((base, elem))
    except (UndefinedBehaviour, IndexError, ValueError):
        return None
    return out


_GENERATED: dict[tuple[str, str], tuple[Function, ProgramSummary, Callable[..., Any]]] = {}


def op_entry(b: ArrayBackend, case: str) -> tuple[Function, ProgramSummary, Callable[..., Any]]:
    key = (b.name, case)
    if key not in _GENERATED:
        fn, ps = op_summary(OP_CASES[case])
        _GENERATED[key] = (fn, ps, load(b.generate(fn, ps))["op"])
    return _GENERATED[key]


def _float32_literals(t: Term) -> Term:
    if isinstance(t, Lit) and t.dtype == FLOAT:
        return Lit(float(np.float32(t.value)), FLOAT)
    return map_children(t, _float32_literals)


def at_a_float32_discontinuity(fn: Function, ps: ProgramSummary, env: dict[str, Any], want: Any) -> bool:
    """Whether a ``float`` remainder or floor division meets a discontinuity on ``env``: the
    interpreter's reals and C's float32 literals (``0.1`` against ``x = 0.1f``) give results a
    whole divisor apart, so the input is not a test of the backend (``0.1 % 0.1f``: 0.1 or 0)."""
    def discontinuous(t: Term) -> bool:
        hit = isinstance(t, ScalarOp | TensorTensor | TensorScalar) and t.op in ("%", "//", "mod") and t.dtype == FLOAT
        return hit or any(discontinuous(c) for c in children(t))

    if not any(discontinuous(o.value) for o in ps.outputs):
        return False
    rounded = ProgramSummary(ps.function, tuple(
        dataclasses.replace(o, value=_float32_literals(o.value)) for o in ps.outputs), ps.preconditions)
    other = expected(fn, rounded, env)
    return other is None or any(not close(w, np.asarray(v), d, True, 0.0) for (w, d), (v, _) in zip(want, other, strict=True))


def check_call(b: ArrayBackend, fn: Function, ps: ProgramSummary, f: Callable[..., Any], env: dict[str, Any],
               native: bool, what: str, numpy_f: Callable[..., Any] | None = None) -> bool:
    """Call the generated ``f`` on ``env`` (as native arrays or NumPy) and compare it with
    the interpreter. False when the input violates a precondition.

    The interpreter computes reals exactly (in float64), C and the backends compute
    ``float`` in float32; an *integer* output computed from float32 values (a pixel
    ``(unsigned char)(opacity * a + ...)``) is therefore compared with NumPy's code
    (``numpy_f``, float32 like C, checked against C by ``lift --check``) instead."""
    want = expected(fn, ps, env)
    if want is None:
        return False
    if at_a_float32_discontinuity(fn, ps, env, want):
        return False
    if numpy_f is not None and has_float32(ps):
        with np.errstate(all="ignore"):
            np_got = numpy_f(*(env[p.name] for p in fn.params))
        np_got = np_got if isinstance(np_got, tuple) else (np_got,)
        want = [(g if not d.is_float else w, d) for (w, d), g in zip(want, np_got, strict=True)]
    args = {k: b.to_native(v) if native and isinstance(v, np.ndarray) else v for k, v in env.items()}
    before = {k: np.array(b.to_numpy(v)) for k, v in args.items() if isinstance(env[k], np.ndarray)}
    magnitude = term_magnitude(fn, ps, env)
    with np.errstate(all="ignore"):
        got = f(*(args[p.name] for p in fn.params))
    results = got if isinstance(got, tuple) else (got,)
    assert len(results) == len(want), what
    for (w, dtype), g in zip(want, results, strict=True):
        assert isinstance(g, native_type(b.name)), f"{what}: returned {type(g).__name__}"
        gn = b.to_numpy(g)
        assert gn.dtype == STORED[dtype], f"{what}: dtype {gn.dtype}, expected {STORED[dtype]}"
        assert close(w, gn, dtype, has_float32(ps), magnitude), f"{what}: interpreter {w!r}, {b.name} {gn!r}"
    for k, v in before.items():
        assert np.array_equal(np.asarray(b.to_numpy(args[k])), v, equal_nan=True), f"{what}: input {k} modified"
    return True


@pytest.mark.parametrize("name", BACKENDS)
def test_every_op_matches_the_interpreter(name: str) -> None:
    b = require(name)
    for case in OP_CASES:  # generate every case first: a codegen error fails fast
        op_entry(b, case)

    checked: dict[str, int] = dict.fromkeys(OP_CASES, 0)

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(env=op_inputs(), native=st.booleans())
    def run(env: dict[str, Any], native: bool) -> None:
        for case in OP_CASES:
            fn, ps, f = op_entry(b, case)
            checked[case] += check_call(b, fn, ps, f, env, native, f"{name} {case}")

    run()
    never = [case for case, count in checked.items() if count == 0]
    assert not never, f"no valid input drawn for {never}"


# ---------------------------------------------------------------- explicit semantics


def _call_op(b: ArrayBackend, term: Term, out: str | None, length: Term | None, /, **values: Any) -> np.ndarray:
    fn, ps = op_summary((term, out, length))
    f = load(b.generate(fn, ps))["op"]
    env = {p.name: 0 for p in fn.params}
    for p in fn.params:
        if isinstance(p.type, PointerType):
            env[p.name] = np.zeros(8, dtype=STORED[p.type.elem])
    env.update(values)
    return np.asarray(b.to_numpy(f(*(env[p.name] for p in fn.params))))


def test_c_division_truncates_and_python_floor_ops_floor(backend: ArrayBackend) -> None:
    a = np.array([7, -7, 7, -7, 0, -1, 5, -5])
    bb = np.array([2, 2, -2, -2, 5, 3, 5, 3])
    kw = {"a": a, "b": bb, "oi": np.zeros(8, dtype=np.int64), "n": 8}
    div = _call_op(backend, TensorTensor("/", tk("a"), tk("b"), INT), "oi", N, **kw)
    mod = _call_op(backend, TensorTensor("%", tk("a"), tk("b"), INT), "oi", N, **kw)
    assert div.tolist() == [3, -3, -3, 3, 0, 0, 1, -1]
    assert mod.tolist() == [1, -1, 1, -1, 0, -1, 0, -2]
    assert (div * bb + mod == a).all()
    fdiv = _call_op(backend, TensorTensor("//", tk("a"), tk("b"), INT), "oi", N, **kw)
    fmod = _call_op(backend, TensorTensor("mod", tk("a"), tk("b"), INT), "oi", N, **kw)
    assert fdiv.tolist() == [3, -4, -4, 3, 0, -1, 1, -2]
    assert fmod.tolist() == [1, 1, -1, -1, 0, 2, 0, 1]
    # scalar left, tensor right: k % a[i], not a[i] % k
    kmod = _call_op(backend, TensorScalar("%", tk("b"), S, True, INT), "oi", N, s=-7, **kw)
    assert kmod.tolist() == [-1, -1, -1, -1, -2, -1, -2, -1]
    # a scalar quotient of a device value (a sum) and of Python ints: -7 / 2 == -3
    mean = ScalarOp("/", ReduceSum(Take(tv("a"), lit(2)), INT), T, INT)
    assert _call_op(backend, mean, None, None, a=np.array([-3, -4] + [0] * 6), t=2).item() == -3
    assert _call_op(backend, ScalarOp("%", S, T, INT), None, None, s=-7, t=2).item() == -1


def test_a_view_of_no_rows_with_a_row_stride_beyond_int32(backend: ArrayBackend) -> None:
    """``matrix(d, 0, c, ld)`` with ``ld`` beyond int32 (a Python kernel's ``a[i * ld + j]``
    over no row reads nothing): the index arrays are int64, the sum is 0 (MLX's default
    int32 ``arange`` raised "Converting 4611686018427387903 to int32 would result in overflow")."""
    total = ReduceSum(ReduceRows(Matrix(tv("d"), R, C, W), DOUBLE), DOUBLE)
    assert _call_op(backend, total, None, None, r=0, c=3, w=2**62 - 1).item() == 0.0


def test_uint8_wraps_on_store_and_cast(backend: ArrayBackend) -> None:
    kw = {"u": np.array([200, 1, 255, 0] * 2, dtype=np.uint8), "v": np.array([100, 2, 255, 0] * 2, dtype=np.uint8),
          "ou": np.full(8, 9, dtype=np.uint8), "n": 4}
    out = _call_op(backend, TensorTensor("+", tk("u"), tk("v"), INT), "ou", N, **kw)
    assert out.dtype == np.uint8 and out.tolist() == [44, 3, 254, 0, 9, 9, 9, 9]
    # a negative float converted to unsigned char: truncated toward zero, then modulo 256
    d = np.array([-457.92, 300.5, -0.5, 255.9] * 2)
    out = _call_op(backend, TensorCast(tk("d"), UINT8), "ou", N, d=d, ou=np.zeros(8, dtype=np.uint8), n=4)
    assert out.tolist() == [55, 44, 0, 255, 0, 0, 0, 0]
    assert _call_op(backend, ScalarCast(S, UINT8), None, None, s=-1).item() == 255


def test_float_is_float32_and_double_float64(backend: ArrayBackend) -> None:
    f = np.array([0.1, 0.2, 0.3] + [0.0] * 5, dtype=np.float32)
    s = _call_op(backend, ReduceSum(tk("f"), FLOAT), None, None, f=f, n=3)
    assert s.dtype == np.float32 and s.item() == pytest.approx(float(np.float32(0.1) + np.float32(0.2) + np.float32(0.3)), rel=1e-6)
    d = _call_op(backend, ReduceSum(TensorTensor("*", tk("f"), tk("f"), FLOAT), DOUBLE), None, None, f=f, n=3)
    assert d.dtype == np.float64
    assert d.item() == pytest.approx(sum(float(np.float32(v) * np.float32(v)) for v in f[:3]), rel=1e-12)
    # exp of a double: float64 accuracy (MLX leaves it to NumPy host code)
    dd = np.linspace(-3, 3, 8)
    e = _call_op(backend, TensorMap("exp", tk("d"), DOUBLE), "od", N, d=dd, od=np.zeros(8), n=8)
    assert np.allclose(e, np.exp(dd), rtol=1e-15, atol=0)


# ---------------------------------------------------------------- the project's kernels

KERNEL_FILES = [
    *(p.relative_to(ROOT).as_posix() for p in sorted((ROOT / "tests" / "kernels").glob("*.c*"))
      # not liftable / slow to lift / a stack of rows, which only NumPy has a rule for
      if p.name not in ("prefix_sum.c", "recurrence.c", "overlay_u8.c", "row_broadcast3.c")),
    "benchmarks/kernels/blend/darken_blend.cc",
    "benchmarks/kernels/blend/screen_blend.cc",
    "benchmarks/kernels/blend/linear_burn.cc",
    "benchmarks/kernels/blend/normal_blend_f.cc",
    "benchmarks/kernels/llama/softmax_part1.cc",
    "benchmarks/kernels/llama/softmax_part2.cc",
    "benchmarks/kernels/llama/softmax_part3.cc",
    "benchmarks/kernels/llama/rmsnorm_part2.cc",
    "benchmarks/kernels/llama/matmul.cc",
    "benchmarks/kernels/llama/transformer_part1.cc",
    "benchmarks/kernels/llama/transformer_part3.cc",
    "benchmarks/kernels/python/normal_blend_8bit.py",
    "benchmarks/kernels/python/running_max.py",
    "benchmarks/kernels/python/matvec.py",
]

_LIFTED: dict[str, Any] = {}


def lifted(path: str) -> tuple[Function, Any, ProgramSummary]:
    """(function, kernel shape, verified summary) of a kernel file, lifted once per session."""
    if path not in _LIFTED:
        from tenspiler.pipeline import parse_source_file
        from tenspiler.synth.search import synthesize
        from tenspiler.vc.analyze import analyze_kernel
        from tenspiler.vc.generalize import AtSizes, generalize_sizes

        fn = parse_source_file(ROOT / path)
        gen = generalize_sizes(fn)  # literal sizes as the pipeline lifts them
        if gen is None:
            k = analyze_kernel(fn)
            _LIFTED[path] = (fn, k, synthesize(k).summary)
        else:
            kg = analyze_kernel(gen.fn)
            _LIFTED[path] = (fn, AtSizes(kg, gen), gen.instantiate(synthesize(kg).summary))
    return _LIFTED[path]  # type: ignore[no-any-return]


SAXPY = "examples/saxpy.c"
#: reference results of ``mean_int`` for the ``--check`` test (see :func:`_lift_first`)
_STATES: dict[str, Any] = {}


@pytest.fixture(scope="module", autouse=True)
def _lift_first(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Lift every kernel (and run the C reference of the ``--check`` test) before a test
    imports an array library: synthesis and the C reference fork worker processes, and
    forking a process that runs the libraries' threads may deadlock."""
    from tenspiler.check import reference_states
    from tenspiler.pipeline import check_examples

    for path in [*KERNEL_FILES, SAXPY, "tests/kernels/sum_long.c"]:
        lifted(path)
    fn, k, _ = lifted("tests/kernels/mean_int.c")
    inputs = check_examples(k, 0)
    _STATES["mean_int"] = (inputs, reference_states(fn, inputs, tmp_path_factory.mktemp("cc")))


@pytest.mark.parametrize("path", KERNEL_FILES)
def test_kernels_match_the_interpreter(path: str) -> None:
    from tenspiler.vc.concrete import random_examples

    fn, k, ps = lifted(path)
    backends = [require(name) for name in BACKENDS if _installed(name)]
    if not backends:
        pytest.skip("none of torch, mlx, tensorflow, jax is installed (pip install -e '.[dev]')")
    numpy_code = load(get_backend("numpy").generate(fn, ps))
    modules = {b.name: load(b.generate(fn, ps)) for b in backends}
    flat = fn.name if fn.cxx is None else f"_{fn.name}_flat"

    @settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
    @given(seed=st.integers(0, 2**32 - 1))
    def run(seed: int) -> None:
        examples = random_examples(k, np.random.default_rng(seed), 3, max_trips=6, magnitude=9)
        for i, ex in enumerate(examples):
            env = {p: np.asarray(v) if isinstance(v, list | np.ndarray) else v for p, v in ex.inputs.items()}
            for b in backends:
                ok = check_call(b, fn, ps, modules[b.name][flat], env, i % 2 == 0, f"{b.name} {path} #{i}",
                                numpy_code[flat])
                assume(ok)
                if fn.cxx is None:
                    continue
                # the C++ / Python signature: as NumPy's entry (checked against c++ / Python)
                view = vector_inputs(fn, env)
                params = [view[v if isinstance(v, str) else v.name] for v in fn.cxx.signature]
                if fn.python is not None:
                    params = [np.asarray(v).tolist() if isinstance(v, np.ndarray) else v for v in params]
                with np.errstate(all="ignore"):
                    want = numpy_code[fn.name](*params)
                got = b.to_numpy(modules[b.name][fn.name](*params))
                dtype = fn.cxx.result.elem if fn.cxx.result is not None else fn.return_dtype
                assert dtype is not None and close(want, got, dtype), f"{b.name} {path}: {want!r} vs {got!r}"

    run()


def _installed(name: str) -> bool:
    return importlib.util.find_spec(LIBRARIES[name][0].split(".")[0]) is not None


# ---------------------------------------------------------------- calling convention


def test_calling_convention(backend: ArrayBackend) -> None:
    fn, _, ps = lifted(SAXPY)
    mod = load(backend.generate(fn, ps))
    x = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    y = np.array([10.0, 20.0, 30.0])
    for xs, ys in ((x, y), (x.tolist(), y.tolist()), (backend.to_native(x), backend.to_native(y))):
        out = mod["saxpy"](2, 0.5, xs, ys)
        assert isinstance(out, native_type(backend.name))
        got = backend.to_numpy(out)
        assert got.dtype == np.float32 and got.tolist() == [10.5, 21.0, 30.0]
    native_y = backend.to_native(y)
    mod["saxpy"](3, 0.5, x, native_y)
    assert backend.to_numpy(native_y).tolist() == [10.0, 20.0, 30.0]  # never modified
    with pytest.raises(ValueError, match="precondition violated"):
        mod["saxpy"](4, 0.5, x, y)
    text = backend.generate(fn, ps).text
    assert "Calling convention" in text and "Device:" in text and "saxpy_jit" in text
    imports = [ast.unparse(n) for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Import | ast.ImportFrom)]
    allowed = {"import numpy as np", "import functools", *backend.sp.imports}
    assert set(imports) <= allowed and "import numpy as np" in imports


def test_scalar_results_are_0d_native_arrays(backend: ArrayBackend) -> None:
    fn, _, ps = lifted("tests/kernels/mean_int.c")
    r = load(backend.generate(fn, ps))["mean_int"](np.array([-3, -4, 0]), 2)
    assert isinstance(r, native_type(backend.name))
    v = backend.to_numpy(r)
    assert v.shape == () and v.dtype == np.int64 and v.item() == -3


@pytest.mark.parametrize(
    ("name", "path"),
    # torch.compile takes seconds per graph: one kernel for torch
    [(b, p) for b in BACKENDS if b != "torch" for p in ("tests/kernels/gemv_bias.c", "tests/kernels/img_avg.cc")]
    + [("torch", SAXPY)],
)
def test_jit_entry_equals_the_eager_one(name: str, path: str) -> None:
    b = require(name)
    from tenspiler.vc.concrete import random_examples

    fn, k, ps = lifted(path)
    mod = load(b.generate(fn, ps))
    entry = fn.name
    for ex in random_examples(k, np.random.default_rng(7), 3, max_trips=5, magnitude=9):
        args = vector_inputs(fn, ex.inputs) if fn.cxx is not None else dict(ex.inputs)
        params = b.generate(fn, ps).params
        call = [args[p] for p in params]
        with np.errstate(all="ignore"):
            want = b.to_numpy(mod[entry](*call))
            got = b.to_numpy(mod[f"{entry}_jit"](*call))
        assert np.array_equal(want, got) or np.allclose(want, got, rtol=1e-6)
    with pytest.raises(ValueError, match="precondition"):  # guards run outside the compiled code
        bad = dict(args)
        if fn.cxx is None:
            bad[next(p.name for p in fn.params if isinstance(p.type, ScalarType))] = 10**6
            mod[f"{entry}_jit"](*[bad[p] for p in params])
        else:
            mod[f"{entry}_jit"](np.zeros((2, 3)), np.zeros((2, 4)))


def test_jax_runs_in_a_64_bit_context_without_changing_the_process() -> None:
    require("jax")
    import jax

    fn, _, ps = lifted("tests/kernels/sum_long.c")
    mod = load(get_backend("jax").generate(fn, ps))
    big = np.array([2**40, 2**41, 3])
    r = mod["sum_long"](big, 3)
    assert np.asarray(r).dtype == np.int64 and int(np.asarray(r)) == 2**40 + 2**41 + 3
    assert not jax.config.jax_enable_x64
    assert "jax.enable_x64(True)" in get_backend("jax").generate(fn, ps).text


# ---------------------------------------------------------------- partial lowering


def test_mlx_declines_double_exp_and_computes_it_on_the_host() -> None:
    mlx = get_backend("mlx")
    assert isinstance(mlx, ArrayBackend)
    double_exp = TensorMap("exp", tk("d"), DOUBLE)
    float_exp = TensorMap("exp", tk("f"), FLOAT)
    assert not mlx.supports(double_exp) and mlx.supports(float_exp)
    assert not mlx.supports(TensorTensor("%", tk("f"), tk("g"), FLOAT))
    assert all(get_backend(n).supports(double_exp) for n in ("torch", "tensorflow", "jax"))
    fn, ps = op_summary((double_exp, "od", N))
    code = mlx.generate(fn, ps)
    assert "np.exp(_to_numpy(" in code.text and "Computed by NumPy host code" in code.text
    assert "op_jit = op" in code.text  # host code cannot run under mx.compile
    require("mlx")
    d = np.linspace(-5, 5, 8)
    got = mlx.to_numpy(load(code)["op"](*[{"d": d, "od": np.zeros(8), "n": 8}.get(p.name, np.zeros(8) if isinstance(p.type, PointerType) else 0) for p in fn.params]))
    assert np.array_equal(got, np.exp(d))  # NumPy's float64 exp, exactly


def test_a_backend_without_a_rule_falls_back_to_numpy_host_code() -> None:
    """A rule that is missing or returns None: that node is NumPy host code; the rest stays
    on the device; the result is unchanged."""
    b = require("torch")

    def decline(t: Term, args: Any, ctx: Any) -> None:
        return None

    class NoMul(type(b)):  # type: ignore[misc]
        name = "torch_nomul"
        rules: ClassVar = {**b.rules, "tensor_tensor(+)": decline}

    del NoMul.rules["tensor_tensor(*)"]
    partial = NoMul()
    term = TensorTensor("+", TensorTensor("*", tk("a"), tk("b"), INT), tk("a"), INT)
    assert not partial.supports(term) and partial.supports(tk("a"))
    fn, ps = op_summary((term, "oi", N))
    text = partial.generate(fn, ps).text
    assert text.count("_to_numpy(") >= 2 and "torch.as_tensor(" in text
    env = {"a": np.arange(8) - 3, "b": np.arange(8) * 2 - 5, "oi": np.zeros(8, dtype=np.int64), "n": 6}
    f = load(partial.generate(fn, ps))["op"]
    got = f(*(env.get(p.name, np.zeros(8, dtype=np.int64) if isinstance(p.type, PointerType) else 0) for p in fn.params))
    a, bb = env["a"], env["b"]
    assert b.to_numpy(got).tolist() == [*(a[:6] * bb[:6] + a[:6]).tolist(), 0, 0]

    class Nothing(type(b)):  # type: ignore[misc]
        name = "torch_nothing"
        rules: ClassVar = {}

    u8 = TensorTensor("+", TensorCast(tk("u"), INT), TensorScalar("*", tk("a"), lit(0.5, FLOAT), False, FLOAT), FLOAT)
    fn, ps = op_summary((u8, "of", N))
    code = Nothing().generate(fn, ps)
    core = code.text.split("def _op_core")[1].split("def _op_args")[0]
    assert core.count("_to_numpy(") >= 6 and "Computed by NumPy host code" in code.text
    env = {"u": np.array([250, 3, 7, 0, 0, 0, 0, 0], dtype=np.uint8), "a": np.array([-3, 4, 5, 0, 0, 0, 0, 0]), "n": 3}
    got = load(code)["op"](*(env.get(p.name, np.zeros(8) if isinstance(p.type, PointerType) else 0) for p in fn.params))
    assert b.to_numpy(got)[:3].tolist() == [248.5, 5.0, 9.5]  # every op on the host, still right


# ---------------------------------------------------------------- registry and CLI


def test_backends_are_registered_and_all_resolves() -> None:
    names = backend_names()
    assert set(BACKENDS) <= set(names)
    assert resolve_backends(["all"]) == names
    assert resolve_backends(["torch", "all", "torch"])[0] == "torch"
    with pytest.raises(CodegenError, match=r"known backends: .*jax.*mlx.*numpy.*tensorflow.*torch"):
        resolve_backends(["pytorch"])
    for b in BACKENDS:
        code = get_backend(b).generate(*lifted(SAXPY)[::2])
        assert code.filename_suffix == f"_{b}.py" and code.language == "python"


def test_cli_to_several_backends_with_check(tmp_path: Path) -> None:
    names = [b for b in BACKENDS if _installed(b)]
    if not names:
        pytest.skip("none of torch, mlx, tensorflow, jax is installed")
    p = subprocess.run(
        [sys.executable, "-m", "tenspiler.cli", str(ROOT / SAXPY), "--to", ",".join(["numpy", *names]),
         "--check", "--json", "-o", str(tmp_path / "o")],
        capture_output=True, text=True, cwd=tmp_path, timeout=600,
        env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin", "TF_CPP_MIN_LOG_LEVEL": "3",
             "HOME": str(tmp_path)},
    )
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    for b in names:
        assert d["check"][b]["ok"] and d["check"][b]["passed"] == d["check"][b]["inputs"]
        assert Path(d["outputs"][b]).name == f"saxpy_{b}.py"


def test_cli_rejects_an_unknown_backend(tmp_path: Path) -> None:
    p = subprocess.run([sys.executable, "-m", "tenspiler.cli", str(ROOT / SAXPY), "--to", "torch,cuda"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120,
                       env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert p.returncode == 2 and "unknown backend 'cuda'" in p.stderr and "torch" in p.stderr


def test_check_runs_native_code_and_catches_a_wrong_backend(tmp_path: Path) -> None:
    """``--check`` (check.run_generated) converts inputs and outputs; a backend that
    computes C's ``/`` with flooring division is caught."""
    from tenspiler.check import differential_check

    b = require("torch")
    fn, _, ps = lifted("tests/kernels/mean_int.c")
    good = b.generate(fn, ps)
    inputs, states = _STATES["mean_int"]
    assert differential_check(fn, ps, good, inputs, tmp_path, states).ok
    bad = dataclasses.replace(good, text=good.text.replace('rounding_mode="trunc"', 'rounding_mode="floor"'))
    assert bad.text != good.text
    r = differential_check(fn, ps, bad, inputs, tmp_path, states)
    assert not r.ok and "torch gave" in (r.first_failure or "")


# ---------------------------------------------------------------- random uint8 terms

#: ``out[0:n] = value`` for random integer terms over two ``unsigned char`` arrays: the
#: range analysis picks uint8 / int16 / uint16 / int32 temporaries for them
_RANDOM_KERNEL = "void k(unsigned char *a, unsigned char *b, int *out, int n) { }"
_N = ScalarVar("n", INT)


@st.composite
def _u8_terms(draw: st.DrawFn, depth: int = 3) -> Term:
    leaves = [Take(TensorVar("a", UINT8), _N), Take(TensorVar("b", UINT8), _N)]
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(leaves))
    kind = draw(st.sampled_from(["tt", "ts", "sel", "cast"]))
    x = draw(_u8_terms(depth - 1))
    if kind == "cast":
        return TensorCast(x, UINT8)
    if kind == "sel":
        y, z = draw(_u8_terms(depth - 1)), draw(_u8_terms(depth - 1))
        op = draw(st.sampled_from(["<", "<=", ">", ">=", "==", "!="]))
        return TensorSelect(Cmp(op, x, y), y if draw(st.booleans()) else z, x if draw(st.booleans()) else z, INT)
    op = draw(st.sampled_from(["+", "-", "*", "/", "%"]))
    if kind == "ts":
        lit = draw(st.integers(-300, 300).filter(lambda v: v != 0 or op not in "/%"))
        return TensorScalar(op, x, Lit(lit, INT), draw(st.booleans()) and op not in "/%", INT)
    return TensorTensor(op, x, draw(_u8_terms(depth - 1)), INT)


@pytest.mark.parametrize("name", ["numpy", *BACKENDS])
def test_random_uint8_terms_match_the_interpreter(name: str) -> None:
    """Compositions of the integer ops over ``unsigned char`` data (the narrowed dtypes of
    :mod:`tenspiler.codegen.ranges` at work: mixed widths, signs, selects, wrapping casts,
    C division) against the reference interpreter, exactly, on random data and on 0 / 255."""
    from tenspiler.frontend.c import parse_c_source

    b = get_backend("numpy") if name == "numpy" else require(name)
    fn = parse_c_source(_RANDOM_KERNEL)

    @settings(max_examples=60 if name == "numpy" else 10, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(_u8_terms(), st.sampled_from(["random", "zeros", "max"]), st.integers(0, 2**32 - 1))
    def check(value: Term, fill: str, seed: int) -> None:
        n = 24
        rng = np.random.default_rng(seed)
        data = {
            "random": [rng.integers(0, 256, n, dtype=np.uint8) for _ in range(2)],
            "zeros": [np.zeros(n, np.uint8), rng.integers(0, 256, n, dtype=np.uint8)],
            "max": [np.full(n, 255, np.uint8), rng.integers(0, 256, n, dtype=np.uint8)],
        }[fill]
        env = {"a": data[0].astype(np.int64), "b": data[1].astype(np.int64), "n": n}
        try:
            with np.errstate(all="ignore"):
                want = np.asarray(evaluate(value, env))
        except (ZeroDivisionError, ArithmeticError, ValueError):
            assume(False)  # a zero divisor: undefined in C
        code = b.generate(fn, ProgramSummary("k", (ArrayOutput("out", Lit(0, INT), _N, value),)))
        mod = load(code)
        args = [data[0], data[1], np.zeros(n, np.int64), n]
        if name != "numpy":
            args = [b.to_native(a) if isinstance(a, np.ndarray) else a for a in args]
        with np.errstate(all="ignore"):
            got = np.asarray(b.to_numpy(mod["k"](*args)) if name != "numpy" else mod["k"](*args))
        assert got.tolist() == want.tolist(), code.text.split("# out[0:n]", 1)[1]

    check()


@st.composite
def _u8_scalar_terms(draw: st.DrawFn) -> Term:
    """A scalar expression over reductions of a small pool of tensor terms, so that subterms
    repeat (common subexpressions, also across the branches of scalar selects)."""
    pool = [draw(_u8_terms(2)) for _ in range(2)]
    reductions = [ReduceSum(t, INT) for t in pool] + [ReduceMax(t, INT) for t in pool] + [Lit(3, INT)]

    def scalar(depth: int) -> Term:
        if depth == 0 or draw(st.integers(0, 2)) == 0:
            return draw(st.sampled_from(reductions))
        kind = draw(st.sampled_from(["op", "sel"]))
        x, y = scalar(depth - 1), scalar(depth - 1)
        if kind == "op":
            return ScalarOp(draw(st.sampled_from(["+", "-", "*", "/", "%"])), x, y, INT)
        op = draw(st.sampled_from(["<", ">=", "=="]))
        return ScalarSelect(Cmp(op, x, y), scalar(depth - 1), x if draw(st.booleans()) else scalar(depth - 1), INT)

    return scalar(3)


@pytest.mark.parametrize("name", ["numpy", *BACKENDS])
def test_random_uint8_reductions_match_the_interpreter(name: str) -> None:
    """Scalar compositions of sums and maxima of narrowed ``unsigned char`` terms (selects
    run one branch, repeated subterms are computed once) against the interpreter."""
    from tenspiler.frontend.c import parse_c_source

    b = get_backend("numpy") if name == "numpy" else require(name)
    fn = parse_c_source("int k(unsigned char *a, unsigned char *b, int n) { return 0; }")

    @settings(max_examples=60 if name == "numpy" else 10, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(_u8_scalar_terms(), st.integers(1, 6), st.integers(0, 2**32 - 1))
    def check(value: Term, n: int, seed: int) -> None:
        rng = np.random.default_rng(seed)
        a, bb = (rng.integers(0, 256, n, dtype=np.uint8) for _ in range(2))
        try:
            with np.errstate(all="ignore"):
                want = int(evaluate(value, {"a": a.astype(np.int64), "b": bb.astype(np.int64), "n": n}))
        except (ZeroDivisionError, ArithmeticError, ValueError, UndefinedBehaviour):
            assume(False)
        mod = load(b.generate(fn, ProgramSummary("k", (ScalarOutput("return", value),))))
        args = [a, bb, n] if name == "numpy" else [b.to_native(a), b.to_native(bb), n]
        with np.errstate(all="ignore"):
            got = mod["k"](*args)
        assert int(np.asarray(b.to_numpy(got) if name != "numpy" else got)) == want

    check()
