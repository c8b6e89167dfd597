"""The plain-C host emitter (``tenspiler.codegen.c_host``): emitted code compiled with ``cc``
into a shared library, called through ctypes and compared with the reference interpreter
``tenspiler.ir.interp.evaluate`` — integers exactly, reals bit for bit (sign of zero
included) except where the interpreter's NumPy differs legitimately (vectorised
``exp``/``log``/``tanh``, pairwise summation: tight relative tolerance).

* hand-written cases of every supported op, on chosen inputs (which must be valid: the
  interpreter must not raise) and on random inputs (hypothesis; the C code runs only
  where the interpreter does not raise, as its contract says);
* random integer term trees (hypothesis), their divisors made non-zero by selects;
* unsupported terms raise ``CHostError`` naming the op.

All hand-written cases share one compiled library (module fixture).
"""

from __future__ import annotations

import ctypes
import math
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tenspiler.codegen.c_host import CArray, CHostEmitter, CHostError, ctype, prelude
from tenspiler.ir.interp import evaluate
from tenspiler.ir.terms import (
    BoolOp,
    Cmp,
    Cond,
    Flatten,
    Lit,
    Matrix,
    NotCond,
    ReduceMax,
    ReduceRows,
    ReduceSum,
    ScalarApply,
    ScalarCast,
    ScalarOp,
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
    is_tensor,
)
from tenspiler.loops.ir import DType

CC = shutil.which("cc")
pytestmark = [
    pytest.mark.skipif(CC is None, reason="needs a C compiler (cc)"),
    # NumPy in the interpreter warns on inf / nan arithmetic that the cases do on purpose
    pytest.mark.filterwarnings("ignore::RuntimeWarning"),
]

INT, U8, FLOAT, DOUBLE = DType.INT, DType.UINT8, DType.FLOAT, DType.DOUBLE
CAP = 256  # elements of the output buffer

_CT: dict[str, Any] = {
    "int32_t": ctypes.c_int32,
    "int64_t": ctypes.c_int64,
    "unsigned char": ctypes.c_ubyte,
    "float": ctypes.c_float,
    "double": ctypes.c_double,
}
#: Errors of the interpreter on invalid inputs (the C code is then not run).
_INVALID = (ArithmeticError, IndexError, ValueError)


# ---------------------------------------------------------------- harness


@dataclass(frozen=True)
class Schema:
    """The C parameters every compiled case function takes: arrays (each with a
    ``<name>_len`` parameter) and scalars, then ``void *out, int64_t cap, int64_t *olen``."""

    arrays: tuple[tuple[str, str], ...]  # (name, C element type)
    scalars: tuple[tuple[str, str], ...]  # (name, C type)

    def emitter(self) -> CHostEmitter:
        return CHostEmitter(
            {n: CArray(n, ct, f"{n}_len") for n, ct in self.arrays},
            {n: n for n, _ in self.scalars},
        )

    def params(self) -> str:
        ps = [f"const {ct} *{n}, int64_t {n}_len" for n, ct in self.arrays]
        ps += [f"{ct} {n}" for n, ct in self.scalars]
        return ", ".join([*ps, "void *out", "int64_t cap", "int64_t *olen"])


@dataclass(frozen=True)
class Case:
    name: str
    term: Term
    dst: str | None = None  # C element type fill stores into (default: ctype(term.dtype))
    close: bool = False  # compare reals with a tight tolerance instead of bit for bit

    @property
    def dst_ctype(self) -> str:
        return self.dst or ctype(self.term.dtype)


def c_function(schema: Schema, emitter: CHostEmitter, case: Case) -> str:
    lines = [f"void {case.name}({schema.params()}) {{"]
    if is_tensor(case.term):
        lines += [
            f"    const int64_t len = {emitter.length(case.term)};",
            "    *olen = len;",
            "    if (len < 0 || len > cap) return;",
            *("    " + s for s in emitter.fill(f"(({case.dst_ctype} *)out)", case.term, case.dst_ctype)),
        ]
    else:
        ct = ctype(case.term.dtype)
        lines += ["    *olen = -1;", f"    *({ct} *)out = {emitter.scalar(case.term)};"]
    return "\n".join([*lines, "}"])


def build(schema: Schema, cases: Sequence[Case], tmp: Path) -> ctypes.CDLL:
    emitter = schema.emitter()
    src = "\n\n".join([prelude(), prelude(), *(c_function(schema, emitter, c) for c in cases)]) + "\n"
    (tmp / "cases.c").write_text(src)
    lib = tmp / "cases.so"
    cmd = [CC, "-O1", "-std=gnu11", "-Wall", "-Werror",
           "-ffp-contract=off", "-shared", "-fPIC", "-o", str(lib), str(tmp / "cases.c"), "-lm"]
    p = subprocess.run(cmd, capture_output=True, text=True)  # type: ignore[arg-type]
    assert p.returncode == 0, p.stderr + "\n" + src
    return ctypes.CDLL(str(lib))


def run_c(lib: ctypes.CDLL, schema: Schema, case: Case, env: Mapping[str, Any]) -> Any:
    """The case's value computed by the compiled C: a Python number or a NumPy array."""
    args: list[Any] = []
    for n, ct in schema.arrays:
        vals = list(env[n])
        args += [(_CT[ct] * max(len(vals), 1))(*vals), ctypes.c_int64(len(vals))]
    args += [_CT[ct](env[n]) for n, ct in schema.scalars]
    out = (ctypes.c_double * CAP)()
    olen = ctypes.c_int64(0)
    getattr(lib, case.name)(*args, out, ctypes.c_int64(CAP), ctypes.byref(olen))
    if olen.value == -1:
        return ctypes.cast(out, ctypes.POINTER(_CT[ctype(case.term.dtype)]))[0]
    assert 0 <= olen.value <= CAP, f"{case.name}: length {olen.value}"
    elems = ctypes.cast(out, ctypes.POINTER(_CT[case.dst_ctype]))
    return np.array([elems[i] for i in range(olen.value)])


def stored(expected: Any, dst: str) -> Any:
    """The interpreter's value as ``fill`` stores it into ``dst`` elements."""
    v = np.asarray(expected)
    if dst == "unsigned char":
        return np.mod(v.astype(np.int64), 256)
    if dst == "float":
        return v.astype(np.float64).astype(np.float32)
    return v


def same(got: Any, expected: Any, close: bool) -> bool:
    g, e = np.asarray(got), np.asarray(expected)
    if g.shape != e.shape:
        return False
    if g.dtype.kind in "iu" and e.dtype.kind in "iu":
        return bool(np.array_equal(g, e))
    g, e = g.astype(np.float64), e.astype(np.float64)
    nan = np.isnan(g) & np.isnan(e)
    if close:
        return bool(np.all(nan | np.isclose(g, e, rtol=1e-12, atol=1e-300) | (g == e)))
    return bool(np.all(nan | ((g == e) & (np.signbit(g) == np.signbit(e)))))


def check(lib: ctypes.CDLL, schema: Schema, case: Case, env: Mapping[str, Any]) -> bool:
    """Compare C with the interpreter on ``env``; False (nothing run) when the
    interpreter rejects ``env``."""
    try:
        expected = evaluate(case.term, env)
    except _INVALID:
        return False
    got = run_c(lib, schema, case, env)
    if is_tensor(case.term):
        expected = stored(expected, case.dst_ctype)
        assert isinstance(got, np.ndarray)
    else:
        assert not isinstance(expected, np.ndarray)
    assert same(got, expected, case.close), f"{case.name} on {dict(env)}: C {got!r}, interpreter {expected!r}"
    return True


# ---------------------------------------------------------------- hand-written cases

SCHEMA = Schema(
    arrays=(("a", "int32_t"), ("b", "int32_t"), ("u", "unsigned char"), ("x", "double"),
            ("y", "float"), ("m", "int32_t"), ("w", "double")),
    scalars=(("n", "int64_t"), ("k", "int64_t"), ("r", "int64_t"), ("c", "int64_t"),
             ("st", "int64_t"), ("s", "double")),
)
a, b, m = TensorVar("a", INT), TensorVar("b", INT), TensorVar("m", INT)
u = TensorVar("u", U8)
x, y, w = TensorVar("x", DOUBLE), TensorVar("y", FLOAT), TensorVar("w", DOUBLE)
n, k, r, c, stv = (ScalarVar(v, INT) for v in ("n", "k", "r", "c", "st"))
s = ScalarVar("s", DOUBLE)


def L(v: int | float, d: DType = INT) -> Lit:
    return Lit(v, d)


def sop(op: Any, p: Term, q: Term, d: DType = INT) -> ScalarOp:
    return ScalarOp(op, p, q, d)  # type: ignore[arg-type]


def tt(op: Any, p: Term, q: Term, d: DType = INT) -> TensorTensor:
    return TensorTensor(op, p, q, d)  # type: ignore[arg-type]


def ts(op: Any, t: Term, sc: Term, d: DType = INT, left: bool = False) -> TensorScalar:
    return TensorScalar(op, t, sc, left, d)  # type: ignore[arg-type]


def cmp(op: Any, p: Term, q: Term) -> Cmp:
    return Cmp(op, p, q)


MAT = Matrix(m, r, c)
MAT_S = Matrix(m, r, c, stv)
CASES: list[Case] = [
    # integer scalar arithmetic: C's truncating / and %, Python's // and mod
    *(Case(f"s_{name}", sop(op, n, k)) for name, op in
      [("add", "+"), ("sub", "-"), ("mul", "*"), ("div", "/"), ("rem", "%"), ("floordiv", "//"), ("pymod", "mod")]),
    Case("s_nested", sop("-", sop("*", n, L(3)), sop("/", sop("+", k, L(-7)), L(2)))),
    Case("s_int_min_lit", sop("+", L(-(2**63)), sop("*", n, n))),
    # casts
    Case("s_cast_u8", ScalarCast(sop("*", n, L(100)), U8)),
    Case("s_cast_u8_neg", ScalarCast(sop("-", L(0), n), U8)),
    Case("s_cast_real_int", ScalarCast(s, INT)),
    Case("s_cast_real_u8", ScalarCast(s, U8)),
    Case("s_cast_int_real", ScalarCast(n, DOUBLE)),
    Case("s_lit_real_as_int", sop("+", L(-2.75), n)),
    # real scalar arithmetic (int operands: exact, then converted; true division)
    Case("s_real_div_ints", sop("/", n, k, DOUBLE)),
    Case("s_real_mul_ints", sop("*", n, k, DOUBLE)),
    Case("s_real_rem_ints", sop("%", n, k, DOUBLE)),
    Case("s_real_div_of_int_products", sop("/", sop("*", n, k, DOUBLE), sop("+", k, L(10), DOUBLE), DOUBLE)),
    Case("s_real_mixed", sop("-", sop("+", n, s, DOUBLE), L(0.1, DOUBLE), DOUBLE)),
    Case("s_real_fmod", sop("%", s, L(0.75, DOUBLE), DOUBLE)),
    Case("s_real_negzero", sop("*", L(-0.0, DOUBLE), sop("*", s, s, DOUBLE), DOUBLE)),
    Case("s_real_float_var", sop("/", s, ScalarVar("k", FLOAT), DOUBLE)),
    # selects: only the chosen branch runs (the guarded division by k == 0 must not trap)
    Case("s_select_and", ScalarSelect(BoolOp("and", cmp("!=", k, L(0)), cmp(">", n, L(0))), sop("/", n, k), L(-1), INT)),
    Case("s_select_not_or", ScalarSelect(NotCond(BoolOp("or", cmp("==", k, L(0)), cmp("<", n, L(-100)))),
                                         sop("%", n, k), L(7), INT)),
    Case("s_select_real", ScalarSelect(cmp(">=", s, n), s, sop("*", n, L(2)), DOUBLE)),
    Case("s_select_to_int", ScalarSelect(cmp("<", s, L(0.5, DOUBLE)), s, k, INT)),
    # math functions
    Case("s_exp", ScalarApply("exp", sop("/", s, L(10.0, DOUBLE), DOUBLE), DOUBLE), close=True),
    Case("s_sqrt", ScalarApply("sqrt", ScalarApply("fabs", s, DOUBLE), DOUBLE)),
    Case("s_sqrt_int", ScalarApply("sqrt", sop("*", n, n), DOUBLE)),
    Case("s_log", ScalarApply("log", sop("+", ScalarApply("fabs", s, DOUBLE), L(1.0, DOUBLE), DOUBLE), DOUBLE), close=True),
    Case("s_tanh", ScalarApply("tanh", s, DOUBLE), close=True),
    Case("s_expm1", ScalarApply("expm1", sop("/", s, L(10.0, DOUBLE), DOUBLE), DOUBLE), close=True),
    Case("s_cos", ScalarApply("cos", s, DOUBLE), close=True),
    Case("s_sin", ScalarApply("sin", s, DOUBLE), close=True),
    Case("s_fabs_to_int", ScalarApply("fabs", s, INT)),
    # sizes
    Case("size_take", Size(Take(a, n))),
    Case("size_tail", Size(Tail(a, n))),
    Case("size_slice", Size(Slice(a, k, n))),
    Case("size_strided", Size(Strided(a, k, n, stv))),
    Case("size_select", Size(TensorSelect(cmp(">", a, L(0)), a, Take(b, L(1)), INT))),
    Case("size_rows", Size(ReduceRows(MAT, INT))),
    # reductions, over empty and non-empty views
    Case("sum", ReduceSum(a, INT)),
    Case("sum_take", ReduceSum(Take(a, n), INT)),
    Case("sum_empty", ReduceSum(Take(a, L(0)), INT)),
    Case("sum_tail", ReduceSum(Tail(a, n), INT)),
    Case("sum_slice", ReduceSum(Slice(a, k, n), INT)),
    Case("sum_strided", ReduceSum(Strided(a, k, n, stv), INT)),
    Case("sum_strided_step0", ReduceSum(Strided(a, k, n, L(0)), INT)),
    Case("sum_u8_no_wrap", ReduceSum(u, INT)),
    Case("sum_to_real", ReduceSum(a, DOUBLE)),
    Case("sum_real", ReduceSum(x, DOUBLE), close=True),
    Case("sum_real_to_int", ReduceSum(TensorCast(x, INT), INT)),
    Case("max", ReduceMax(a, INT)),
    Case("max_tail", ReduceMax(Tail(a, k), INT)),
    Case("max_real", ReduceMax(x, DOUBLE)),
    Case("max_float_to_int", ReduceMax(y, INT)),
    Case("max_of_select", ReduceMax(TensorSelect(cmp(">", a, b), a, ts("-", b, L(1)), INT), INT)),
    # views
    Case("take", Take(a, n)),
    Case("tail", Tail(a, n)),
    Case("slice", Slice(a, k, n)),
    Case("strided", Strided(a, k, n, stv)),
    Case("tail_of_take", Tail(Take(a, n), k)),
    Case("slice_of_strided", Slice(Strided(x, L(1), L(3), L(2)), L(1), k)),
    # elementwise integer arithmetic
    *(Case(f"tt_{name}", tt(op, a, b)) for name, op in
      [("add", "+"), ("sub", "-"), ("mul", "*"), ("div", "/"), ("rem", "%"), ("floordiv", "//"), ("pymod", "mod")]),
    Case("ts_div", ts("/", a, k)),
    Case("st_rem", ts("%", a, k, left=True)),
    Case("st_sub", ts("-", a, n, left=True)),
    Case("st_floordiv", ts("//", b, n, left=True)),
    Case("tt_u8_no_wrap", tt("+", u, tt("*", u, u, U8), U8)),
    Case("tt_u8_int", tt("-", u, a)),
    # elementwise casts
    Case("cast_u8", TensorCast(a, U8)),
    Case("cast_u8_product", TensorCast(tt("*", a, b), U8)),
    Case("cast_real_int", TensorCast(x, INT)),
    Case("cast_real_u8", TensorCast(x, U8)),
    Case("cast_u8_real", TensorCast(u, DOUBLE)),
    Case("cast_float", TensorCast(tt("+", y, y, FLOAT), DOUBLE)),
    # real elementwise arithmetic (division by zero: inf / nan, as NumPy)
    Case("tt_real_add", tt("+", x, y, DOUBLE)),
    Case("tt_real_div", tt("/", x, y, DOUBLE)),
    Case("tt_real_fmod", tt("%", x, y, DOUBLE)),
    Case("tt_real_int_operand", tt("-", x, a, DOUBLE)),
    Case("tt_int_real_operand", tt("*", a, x, INT)),
    Case("ts_real", ts("*", x, s, DOUBLE)),
    Case("st_real_int_scalar", ts("/", x, n, DOUBLE, left=True)),
    # fill converts as a C assignment
    Case("fill_u8", tt("+", a, b), dst="unsigned char"),
    Case("fill_float", ts("*", x, s, DOUBLE), dst="float"),
    Case("fill_int32", tt("-", a, b), dst="int32_t"),
    # selects, elementwise: and / or / not, scalar branches, guarded division, broadcasting
    Case("sel_max", TensorSelect(cmp(">", a, b), a, b, INT)),
    Case("sel_guard_div", TensorSelect(cmp("!=", b, L(0)), tt("/", a, b), L(-1), INT)),
    Case("sel_guard_rem_and_not", TensorSelect(BoolOp("and", cmp(">", a, L(0)), NotCond(cmp("==", b, L(0)))),
                                               tt("%", a, b), a, INT)),
    Case("sel_or", TensorSelect(BoolOp("or", cmp("<", a, n), cmp(">=", b, k)), ts("*", a, L(2)), b, INT)),
    Case("sel_scalars", TensorSelect(cmp("<", a, L(0)), L(0), n, INT)),
    Case("sel_scalar_cond", TensorSelect(cmp("<", n, k), a, L(5), INT)),
    Case("sel_broadcast", TensorSelect(cmp(">", a, Take(b, L(1))), a, Take(b, L(1)), INT)),
    Case("sel_real", TensorSelect(cmp(">", x, s), x, TensorCast(a, DOUBLE), DOUBLE)),
    Case("sel_mixed_to_int", TensorSelect(cmp("<=", x, a), x, a, INT)),
    Case("sel_guard_scalar_div", TensorSelect(cmp("!=", k, L(0)), ts("/", a, k), a, INT)),
    # math functions elementwise
    Case("map_exp", TensorMap("exp", ts("/", x, L(10.0, DOUBLE), DOUBLE), DOUBLE), close=True),
    Case("map_sqrt", TensorMap("sqrt", TensorMap("fabs", x, DOUBLE), DOUBLE)),
    Case("map_log", TensorMap("log", ts("+", TensorMap("fabs", x, DOUBLE), L(1.0, DOUBLE), DOUBLE), DOUBLE), close=True),
    Case("map_tanh", TensorMap("tanh", x, DOUBLE), close=True),
    Case("map_expm1", TensorMap("expm1", ts("/", x, L(10.0, DOUBLE), DOUBLE), DOUBLE), close=True),
    Case("map_cos_sin", TensorMap("cos", TensorMap("sin", x, DOUBLE), DOUBLE), close=True),
    Case("map_sqrt_u8_to_int", TensorMap("sqrt", u, INT)),
    Case("map_fabs_int", TensorMap("fabs", a, DOUBLE)),
    # loop-invariant scalars (hoisted) and reductions nested in elements
    Case("softmax", ts("/", TensorMap("exp", ts("-", x, ReduceMax(x, DOUBLE), DOUBLE), DOUBLE),
                       ReduceSum(TensorMap("exp", ts("-", x, ReduceMax(x, DOUBLE), DOUBLE), DOUBLE), DOUBLE), DOUBLE), close=True),
    Case("center", ts("-", a, sop("/", ReduceSum(a, INT), Size(a)))),
    Case("sel_branch_reduce", TensorSelect(cmp(">", a, L(0)), ts("+", a, ReduceSum(b, INT)), a, INT)),
    Case("sel_branch_guarded_scalar", TensorSelect(cmp(">", ReduceSum(b, INT), L(0)),
                                                   ts("/", a, ReduceSum(b, INT)), L(0), INT)),
    # 2-D: matrix (with and without stride), transpose, broadcast vector, reduce_rows
    Case("matvec", ReduceRows(tt("*", MAT, Take(a, c)), INT)),
    Case("matvec_strided", ReduceRows(tt("*", MAT_S, Take(a, c)), INT)),
    Case("matvec_transposed", ReduceRows(tt("*", Transpose(MAT), Take(a, r)), INT)),
    Case("rows_max", ReduceRows(MAT, INT, "max")),
    Case("rows_max_strided_transposed", ReduceRows(Transpose(MAT_S), INT, "max")),
    Case("vector_minus_matrix", ReduceRows(tt("-", Take(a, c), MAT), INT)),
    Case("matrix_floordiv_vector", ReduceRows(tt("//", MAT, Take(b, c)), INT)),
    Case("matrix_minus_matrix", ReduceRows(tt("-", MAT, MAT_S), INT)),
    Case("double_transpose", ReduceRows(Transpose(Transpose(MAT)), INT)),  # type: ignore[arg-type]
    Case("rows_scalar_op", ReduceRows(ts("mod", MAT, k), INT)),
    Case("rows_cast_map", ReduceRows(TensorMap("fabs", TensorCast(Matrix(w, r, c, stv), DOUBLE), DOUBLE), DOUBLE), close=True),
    Case("rows_real_to_int", ReduceRows(TensorCast(Matrix(w, r, c), INT), INT)),
    Case("rows_mixed", ReduceRows(tt("*", Matrix(w, r, c), Take(a, c), DOUBLE), DOUBLE), close=True),
    Case("rows_cast_u8", ReduceRows(TensorCast(MAT, U8), INT, "max")),
    Case("sum_of_matvec", ReduceSum(ReduceRows(tt("*", MAT, Take(a, c)), INT), INT)),
    # selects of matrices (NumPy's broadcasting: a vector is a row; one row or column stands for all)
    Case("relu_matrix", Flatten(TensorSelect(cmp(">", MAT, L(0)), MAT, L(0), INT))),
    Case("select_matrix_vector", Flatten(TensorSelect(cmp("<", MAT, Take(a, c)), Take(b, c), MAT_S, INT))),
    Case("select_one_row", Flatten(TensorSelect(cmp(">=", MAT, Matrix(a, L(1), c)), MAT, L(-1), INT))),
    Case("select_one_column", ReduceRows(TensorSelect(cmp("!=", Matrix(b, r, L(1)), L(2)), MAT, MAT_S, INT), INT)),
    Case("select_rows_max", ReduceRows(TensorSelect(NotCond(cmp("==", MAT, L(3))), TensorCast(Matrix(w, r, c), INT), L(9),
                                                    INT), INT, "max")),
    # stack: a scalar per row (1-D), a row per row (2-D), nested, of a reduction of the row variable
    Case("stack_scalars", Stack("$s:i", n, sop("*", ScalarVar("$s:i", INT), k))),
    Case("stack_windows", Flatten(Stack("$s:i", r, Take(Tail(a, ScalarVar("$s:i", INT)), L(2))))),
    Case("stack_window_sums", Stack("$s:i", r, ReduceSum(Take(Tail(m, sop("*", ScalarVar("$s:i", INT), c)), c), INT))),
    Case("stack_nested", Flatten(Stack("$s:i", r, Stack("$s:j", c, sop("-", ScalarVar("$s:i", INT),
                                                                          sop("*", ScalarVar("$s:j", INT), k)))))),
    Case("stack_rows_of_stack", ReduceRows(Stack("$s:i", r, Take(Tail(m, sop("*", ScalarVar("$s:i", INT), stv)),
                                                                 c)), INT)),
]


# Inputs on which each case must run (the interpreter accepts them): signs of division,
# uint8 wrap, empty views, shapes.
BASE_ENV: dict[str, Any] = {
    "a": [7, -7, 3, 0, -2, 9], "b": [2, 2, -2, 5, -3, -4], "u": [255, 0, 17, 200, 1, 128],
    "x": [1.5, -2.75, 0.0, -0.0, 1e10, -7.25], "y": [0.5, -3.0, 2.0, 0.0, 1.25, -0.0],
    "m": list(range(-5, 15)), "w": [0.5 * i - 3.0 for i in range(20)],
    "n": 5, "k": 3, "r": 3, "c": 4, "st": 5, "s": -2.5,
}
ENVS: list[dict[str, Any]] = [
    BASE_ENV,
    {**BASE_ENV, "n": -7, "k": 2, "s": 3.999},
    {**BASE_ENV, "n": 7, "k": -2, "s": -1.5, "r": 4, "c": 5, "st": 5},
    {**BASE_ENV, "n": -7, "k": -2, "s": 255.5, "r": 0, "c": 3},
    {**BASE_ENV, "n": 0, "k": 0, "s": -0.0, "r": 2, "c": 0, "st": 0},
    {**BASE_ENV, "n": 6, "k": 6, "s": 300.25, "r": 5, "c": 1, "st": 3},
    {**BASE_ENV, "n": 2, "k": 5, "b": [0, 3, 0, -1, 0, 2], "r": 1, "c": 6},
    {**BASE_ENV, "a": [], "b": [], "x": [], "y": [], "u": [], "n": 0, "k": 0},
    {**BASE_ENV, "a": [-4], "b": [-4], "x": [0.25], "y": [float("-inf")], "u": [9], "n": 1, "k": 1},
]


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> ctypes.CDLL:
    return build(SCHEMA, CASES, tmp_path_factory.mktemp("c_host"))


def test_case_names_unique() -> None:
    assert len({case.name for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_case_on_chosen_inputs(lib: ctypes.CDLL, case: Case) -> None:
    ran = [check(lib, SCHEMA, case, env) for env in ENVS]
    assert any(ran), f"{case.name}: the interpreter rejects every chosen input"


def test_chosen_inputs_cover_edge_cases(lib: ctypes.CDLL) -> None:
    """Some results the chosen inputs must produce (so the cases test what they claim)."""
    by_name = {case.name: case for case in CASES}

    def value(name: str, env: Mapping[str, Any]) -> Any:
        case = by_name[name]
        assert check(lib, SCHEMA, case, env)
        return run_c(lib, SCHEMA, case, env)

    neg = {**BASE_ENV, "n": -7, "k": 2}
    assert (value("s_div", neg), value("s_rem", neg), value("s_floordiv", neg), value("s_pymod", neg)) == (-3, -1, -4, 1)
    assert value("s_cast_u8_neg", {**BASE_ENV, "n": 1}) == 255
    assert value("s_cast_real_int", {**BASE_ENV, "s": -2.75}) == -2
    assert value("s_cast_real_u8", {**BASE_ENV, "s": -1.5}) == 255
    assert value("s_select_and", {**BASE_ENV, "k": 0}) == -1
    assert value("sum_empty", BASE_ENV) == 0
    assert value("sum_take", {**BASE_ENV, "n": 0}) == 0
    assert value("sum_u8_no_wrap", BASE_ENV) == 601
    assert value("tt_u8_no_wrap", BASE_ENV)[0] == 255 + 255 * 255
    assert list(value("sel_guard_div", ENVS[6]))[:3] == [-1, -2, -1]
    assert list(value("matvec", {**BASE_ENV, "r": 2, "c": 2, "a": [1, 10], "m": [1, 2, 3, 4]})) == [21, 43]
    assert list(value("matvec_strided", {**BASE_ENV, "r": 2, "c": 2, "st": 3, "a": [1, 10], "m": [1, 2, 0, 3, 4]})) == [21, 43]
    assert list(value("matvec_transposed", {**BASE_ENV, "r": 2, "c": 2, "a": [1, 10], "m": [1, 2, 3, 4]})) == [31, 42]
    assert list(value("vector_minus_matrix", {**BASE_ENV, "r": 2, "c": 2, "a": [1, 10], "m": [1, 2, 3, 4]})) == [8, 4]


# random inputs: lengths mostly equal (elementwise ops need equal lengths), small values
@st.composite
def envs(draw: st.DrawFn) -> dict[str, Any]:
    length = draw(st.integers(0, 7))

    def lst(elem: st.SearchStrategy[Any]) -> list[Any]:
        size = draw(st.one_of(st.just(length), st.just(length), st.integers(0, 8)))
        return draw(st.lists(elem, min_size=size, max_size=size))

    ints = st.integers(-20, 20)
    reals = st.one_of(st.floats(-1e6, 1e6, allow_nan=False), st.sampled_from([0.0, -0.0, 0.5, -2.5]))
    f32 = st.floats(-1e6, 1e6, allow_nan=False, width=32)
    rows, cols = draw(st.integers(0, 4)), draw(st.integers(0, 4))
    stride = cols + draw(st.integers(0, 2))
    need = max(rows * cols, (rows - 1) * stride + cols if rows and cols else 0)
    return {
        "a": lst(ints), "b": lst(ints), "u": lst(st.integers(0, 255)), "x": lst(reals), "y": lst(f32),
        "m": draw(st.lists(ints, min_size=need, max_size=need + 2)),
        "w": draw(st.lists(reals, min_size=need, max_size=need + 2)),
        "n": draw(st.integers(-3, 8)), "k": draw(st.integers(-3, 8)),
        "r": rows, "c": cols, "st": stride,
        "s": draw(st.one_of(reals, st.integers(-300, 300).map(float))),
    }


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(envs())
def test_cases_on_random_inputs(lib: ctypes.CDLL, env: dict[str, Any]) -> None:
    for case in CASES:
        check(lib, SCHEMA, case, env)


# ---------------------------------------------------------------- random integer terms

RSCHEMA = Schema(
    arrays=(("a", "int32_t"), ("b", "int64_t"), ("v", "unsigned char"), ("wide", "int32_t")),
    scalars=(("p", "int64_t"), ("q", "int32_t"), ("nn", "int64_t")),
)
_ARITH = ["+", "-", "*", "/", "%", "//", "mod"]
_CMPS = ["<", "<=", ">", ">=", "==", "!="]
_BOUND = 2**31  # every subterm's values stay below this: no int64 overflow anywhere


def _nonzero_scalar(t: Any, g: int) -> Term:
    return ScalarSelect(Cmp("==", t, Lit(0, INT)), Lit(g, INT), t, INT)


def _nonzero_tensor(t: Any, g: int) -> Term:
    return TensorSelect(Cmp("==", t, Lit(0, INT)), Lit(g, INT), t, INT)


@st.composite
def int_tensor(draw: st.DrawFn, size: int, depth: int) -> Any:
    """An integer 1-D term with ``size`` elements (arrays a, b, v have ``size``, wide
    ``2 * size + 3``, nn == size)."""
    wide = TensorVar("wide", INT)
    leaves = [TensorVar("a", INT), TensorVar("b", INT), TensorVar("v", U8),
              Slice(wide, Lit(o := draw(st.integers(0, 3)), INT), Lit(o + size, INT)),
              Tail(wide, Lit(size + 3, INT)), Take(wide, ScalarVar("nn", INT)),
              Strided(wide, Lit(draw(st.integers(0, 4)), INT), Lit(size, INT), Lit(2, INT))]
    kind = draw(st.integers(0, 5 if depth > 0 else 0))
    if kind == 0:
        return draw(st.sampled_from(leaves))
    sub = int_tensor(size, depth - 1)
    if kind == 1:
        op = draw(st.sampled_from(_ARITH))
        p, q = draw(sub), draw(sub)
        if op in ("/", "%", "//", "mod"):
            q = _nonzero_tensor(q, draw(st.sampled_from([-3, -1, 2, 5])))
        return TensorTensor(op, p, q, draw(st.sampled_from([INT, INT, U8])))  # type: ignore[arg-type]
    if kind == 2:
        op = draw(st.sampled_from(_ARITH))
        t, sc, left = draw(sub), draw(int_scalar(size, depth - 1)), draw(st.booleans())
        if op in ("/", "%", "//", "mod"):
            g = draw(st.sampled_from([-3, -1, 2, 5]))
            t, sc = (_nonzero_tensor(t, g), sc) if left else (t, _nonzero_scalar(sc, g))
        return TensorScalar(op, t, sc, left, INT)  # type: ignore[arg-type]
    if kind == 3:
        return TensorCast(draw(sub), draw(st.sampled_from([INT, U8])))
    if kind == 4:
        branch = st.one_of(sub, int_scalar(size, depth - 1))
        return TensorSelect(draw(cond(size, depth - 1, True)), draw(sub), draw(branch), INT)
    return TensorSelect(draw(cond(size, depth - 1, True)), draw(int_scalar(size, depth - 1)), draw(sub), INT)


@st.composite
def int_scalar(draw: st.DrawFn, size: int, depth: int) -> Any:
    kind = draw(st.integers(0, 7 if depth > 0 else 1))
    if kind == 0:
        return draw(st.sampled_from([ScalarVar("p", INT), ScalarVar("q", INT), ScalarVar("nn", INT)]))
    if kind == 1:
        return Lit(draw(st.integers(-10, 10)), INT)
    sub = int_scalar(size, depth - 1)
    if kind == 2:
        op = draw(st.sampled_from(_ARITH))
        p, q = draw(sub), draw(sub)
        if op in ("/", "%", "//", "mod"):
            q = _nonzero_scalar(q, draw(st.sampled_from([-3, -1, 2, 5])))
        return ScalarOp(op, p, q, INT)  # type: ignore[arg-type]
    t = draw(int_tensor(size, depth - 1))
    j = draw(st.integers(0, size))
    if kind == 3:
        return ReduceSum(draw(st.sampled_from([t, Take(t, Lit(j, INT)), Tail(t, Lit(j, INT))])), INT)
    if kind == 4 and size > 0:
        return ReduceMax(Tail(t, Lit(min(j, size - 1), INT)), INT)
    if kind == 5:
        return Size(Slice(t, Lit(j, INT), Lit(size, INT)))
    if kind == 6:
        return ScalarCast(draw(sub), U8)
    return ScalarSelect(draw(cond(size, depth - 1, False)), draw(sub), draw(sub), INT)


@st.composite
def cond(draw: st.DrawFn, size: int, depth: int, elementwise: bool) -> Cond:
    kind = draw(st.integers(0, 2 if depth > 0 else 0))
    if kind == 0:
        operand = st.one_of(int_tensor(size, depth), int_scalar(size, depth)) if elementwise else int_scalar(size, depth)
        return Cmp(draw(st.sampled_from(_CMPS)), draw(operand), draw(operand))  # type: ignore[arg-type]
    if kind == 1:
        return BoolOp(draw(st.sampled_from(["and", "or"])), draw(cond(size, depth - 1, elementwise)),
                      draw(cond(size, depth - 1, elementwise)))
    return NotCond(draw(cond(size, depth - 1, elementwise)))


def _bounded(t: Term, env: Mapping[str, Any]) -> bool:
    """Every subterm evaluates (divisors are non-zero by construction) to values below
    ``_BOUND``: neither the interpreter nor the C code can overflow int64."""
    v = evaluate(t, env)
    if np.any(np.abs(np.asarray(v, dtype=object)) >= _BOUND):
        return False
    subs: list[Term] = list(children(t))
    return all(_bounded(ch, env) for ch in subs)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_random_integer_terms(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    size = data.draw(st.integers(0, 5), label="size")
    terms = data.draw(st.lists(st.one_of(int_tensor(size, 3), int_scalar(size, 3)), min_size=1, max_size=10),
                      label="terms")
    cases = [Case(f"t{i}", t) for i, t in enumerate(terms)]
    lib = build(RSCHEMA, cases, tmp_path_factory.mktemp("c_host_random"))
    vals = st.integers(-50, 50)
    for _ in range(4):
        env = {
            "a": data.draw(st.lists(vals, min_size=size, max_size=size)),
            "b": data.draw(st.lists(vals, min_size=size, max_size=size)),
            "v": data.draw(st.lists(st.integers(0, 255), min_size=size, max_size=size)),
            "wide": data.draw(st.lists(vals, min_size=2 * size + 3, max_size=2 * size + 3)),
            "p": data.draw(vals), "q": data.draw(vals), "nn": size,
        }
        for case in cases:
            if _bounded(case.term, env):
                assert check(lib, RSCHEMA, case, env), f"{case.term!r} rejected on {env}"


# ---------------------------------------------------------------- unsupported terms


E = SCHEMA.emitter


@pytest.mark.parametrize(
    ("what", "term", "message"),
    [
        ("scalar", sop("//", s, s, DOUBLE), "//"),
        ("scalar", sop("mod", n, k, DOUBLE), "mod"),
        ("fill", tt("mod", x, x, DOUBLE), "mod"),
        ("fill", tt("//", x, a, DOUBLE), "//"),
        ("scalar", ScalarApply("erf", s, DOUBLE), "erf"),
        ("fill", TensorMap("erf", x, DOUBLE), "erf"),
        ("scalar", ReduceSum(MAT, INT), "reduce_sum"),
        ("scalar", ReduceMax(Transpose(MAT), INT), "reduce_max"),
        ("fill", MAT, "matrix"),
        ("fill", Transpose(MAT_S), "transpose"),
        ("fill", Take(MAT, n), "take"),
        ("fill", Strided(MAT_S, k, n, stv), "strided"),
        ("fill", Flatten(Stack("$s:i", n, Take(a, ScalarVar("$s:i", INT)))), "row variable"),
        ("fill", Flatten(Stack("$s:i", n, MAT)), "stack of 2-D"),
        ("fill", ReduceRows(a, INT), "reduce_rows"),
        ("fill", Transpose(a), "transpose"),  # type: ignore[arg-type]
        ("scalar", sop("+", s, n, INT), "scalar_op"),
        ("scalar", Size(a, DOUBLE), "size"),
        ("scalar", Size(MAT), "matrix"),
        ("scalar", ReduceSum(TensorVar("nope", INT), INT), "nope"),
        ("scalar", sop("+", ScalarVar("nope", INT), n), "nope"),
        ("scalar", ScalarSelect(cmp(">", a, L(0)), n, k, INT), "scalar_select"),
        ("scalar", a, "tensor_var"),
        ("fill", n, "scalar_var"),
        ("fill", ts("+", a, a), "tensor_scalar"),
        ("fill", tt("+", a, n), "scalar_var"),
        ("scalar", Lit(2**70, INT), "lit"),
        ("scalar", Lit(float("inf"), INT), "lit"),
        ("fill", Take(a, s), "take"),
        ("fill", ReduceRows(Matrix(a, r, s), INT), "matrix"),
        ("fill", TensorSelect(cmp(">", n, L(0)), L(1), L(2), INT), "tensor_select"),
        ("scalar", sop("^", s, s, DOUBLE), r"\^"),  # (bitwise operators on integers only)
    ],
)
def test_unsupported_terms_raise(what: str, term: Any, message: str) -> None:
    em = E()
    with pytest.raises(CHostError, match=message):
        if what == "scalar":
            em.scalar(term)
        else:
            em.fill("out", term, "int64_t")


def test_length_and_elem_need_the_right_rank() -> None:
    em = E()
    with pytest.raises(CHostError, match="2-D"):
        em.length(MAT)
    with pytest.raises(CHostError, match="scalar_var"):
        em.length(n)
    with pytest.raises(CHostError, match="1-D"):
        em.elem2(a, "0", "0")
    assert em.elem(Tail(a, n), "3") == "((int64_t)(a[((3) + ((int64_t)(n)))]))"
    assert em.elem2(Transpose(MAT), "i", "j") == "((int64_t)(m[((j) * ((int64_t)(c)) + (i))]))"


def test_reserved_names_and_aliasing_rejected() -> None:
    with pytest.raises(CHostError, match="tsp_"):
        CHostEmitter({"a": CArray("tsp_a", "int", "n")}, {})
    with pytest.raises(CHostError, match="identifier"):
        CHostEmitter({"a": CArray("a[0]", "int", "n")}, {})
    with pytest.raises(CHostError, match="tsp_"):
        CHostEmitter({}, {"n": "tsp_h1 + 1"})
    with pytest.raises(CHostError, match="overlap"):
        E().fill("a + 1", ts("*", a, L(2)), "int32_t")
    assert E().fill("out", ts("*", a, L(2)), "int32_t")  # another destination is fine


def test_prelude_helpers_and_types() -> None:
    text = prelude()
    for needed in ("#include <stdint.h>", "#include <math.h>", "tsp_floordiv", "tsp_floormod", "tsp_wrap_u8", "tsp_wrap"):
        assert needed in text
    ranged = {d: "int64_t" for d in DType if d.int_range is not None}  # every integer computed in int64_t
    assert {d: ctype(d) for d in DType} == {INT: "int64_t", **ranged, FLOAT: "double", DOUBLE: "double"}
    assert U8 in ranged


def test_hoisting_computes_loop_invariants_once() -> None:
    """softmax: each reduction appears outside the element loop (the loop body has no
    statement expression), and equal subterms share a local."""
    case = next(c for c in CASES if c.name == "softmax")
    lines = E().fill("out", case.term, "float")
    loop_body = next(line for line in lines if "(out)[" in line)
    assert "({" not in loop_body
    hoisted = [line for line in lines if line.strip().startswith("const double tsp_h")]
    assert len(hoisted) == 2  # max(x) once (shared by both occurrences), then the sum
    # a reduction inside a select branch is not hoisted: C evaluates it only when chosen
    guarded = next(c for c in CASES if c.name == "sel_branch_reduce")
    body = next(line for line in E().fill("out", guarded.term, "int64_t") if "(out)[" in line)
    assert "({" in body


def test_comparison_is_strict() -> None:
    """Sanity of the comparison itself: bitwise real comparison tells -0.0 from 0.0."""
    assert not same(np.array([0.0]), np.array([-0.0]), close=False)
    assert same(np.array([math.nan]), np.array([math.nan]), close=False)
    assert not same(np.array([1, 2]), np.array([1, 3]), close=False)
