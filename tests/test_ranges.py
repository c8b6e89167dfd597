"""The interval analysis that picks the narrow integer dtypes of generated code
(tenspiler.codegen.ranges): every concrete result lies in the computed interval, the chosen
dtype holds it, and generated NumPy code computed in those dtypes equals the reference
interpreter on the extreme inputs of ``unsigned char`` (0 and 255 everywhere)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tenspiler.codegen.numpy_backend import NumpyBackend
from tenspiler.codegen.ranges import INT_DTYPES, DtypePlan, Interval, binop_range, term_range
from tenspiler.frontend.c import parse_c_source
from tenspiler.ir.interp import evaluate
from tenspiler.ir.semantics import UndefinedBehaviour, py_binop
from tenspiler.ir.terms import (
    ArrayOutput,
    Cmp,
    Lit,
    ProgramSummary,
    ScalarVar,
    Take,
    TensorCast,
    TensorScalar,
    TensorSelect,
    TensorTensor,
    TensorVar,
    substitute,
)
from tenspiler.loops.ir import DType

INT, UINT8 = DType.INT, DType.UINT8


@st.composite
def intervals(draw: st.DrawFn) -> Interval:
    a = draw(st.integers(-300, 300))
    b = draw(st.integers(-300, 300))
    return Interval(min(a, b), max(a, b))


@settings(max_examples=300, deadline=None)
@given(intervals(), intervals(), st.sampled_from(["+", "-", "*", "/", "%", "//", "mod"]), st.data())
def test_binop_range_contains_every_result(x: Interval, y: Interval, op: str, data: st.DataObject) -> None:
    """Sound: for values drawn inside the operand intervals, the exact result (the
    one-semantics Python definition) is inside the interval of the result."""
    r = binop_range(op, x, y)
    a = data.draw(st.integers(x.lo, x.hi))  # type: ignore[arg-type]
    b = data.draw(st.integers(y.lo, y.hi))  # type: ignore[arg-type]
    try:
        v = py_binop(op, a, b, INT)  # type: ignore[arg-type]
    except (UndefinedBehaviour, ZeroDivisionError):
        return
    assert (r.lo is None or r.lo <= v) and (r.hi is None or v <= r.hi), (op, x, y, a, b, v, r)


def test_binop_range_is_tight_enough_for_blends() -> None:
    """The intervals of the blend arithmetic are the exact ones (else narrowing is lost)."""
    u8 = Interval(0, 255)
    assert binop_range("*", u8, u8) == Interval(0, 65025)
    assert binop_range("/", Interval(0, 65025), Interval(255, 255)) == Interval(0, 255)
    assert binop_range("-", binop_range("+", u8, u8), u8) == Interval(-255, 510)
    assert binop_range("%", Interval(-7, 100), Interval(10, 10)) == Interval(-7, 9)


def _screen(a: TensorVar, b: TensorVar) -> TensorCast:
    """base + active - base * active / 255, stored as unsigned char (screen blend)."""
    prod = TensorScalar("/", TensorTensor("*", a, b, INT), Lit(255, INT), False, INT)
    return TensorCast(TensorTensor("-", TensorTensor("+", a, b, INT), prod, INT), UINT8)


def test_plan_picks_narrow_dtypes_for_uint8_data() -> None:
    a, b = TensorVar("a", UINT8), TensorVar("b", UINT8)
    plan = DtypePlan({"a": Interval(0, 255), "b": Interval(0, 255)}, {"a": UINT8, "b": UINT8},
                     {"a": "uint8", "b": "uint8"}, tuple(INT_DTYPES))
    t = _screen(a, b)
    product = t.tensor.right.tensor  # type: ignore[attr-defined]
    assert plan.rep(product) == "uint16"
    assert plan.rep(t.tensor) == "int16"  # [-255, 510]
    assert plan.rep(t) == "uint8"
    # without candidates everything stays int64 (the backends that do not narrow)
    legacy = DtypePlan(plan.params, plan.param_dtypes, {"a": "int64", "b": "int64"})
    assert legacy.rep(product) == "int64" and legacy.rep(t) == "int64"
    # an int parameter is unbounded: no narrowing rests on 32-bit inputs
    assert term_range(TensorVar("k", INT), {}) == Interval(None, None)


SELECT = TensorSelect(
    Cmp(">", TensorVar("a", UINT8), TensorVar("b", UINT8)),
    TensorScalar("-", TensorVar("a", UINT8), Lit(300, INT), False, INT),
    TensorScalar("*", TensorVar("b", UINT8), Lit(-3, INT), False, INT),
    INT,
)


_WIDE = TensorScalar("-", TensorScalar("*", TensorVar("b", UINT8), Lit(3, INT), False, INT), Lit(255, INT), True, INT)
#: select(a == 0, 7, max(0, 255 - 3 * b)): the clamp is in [0, 255] although its operand is
#: an int16 in [-510, 255], so the outer select blends in uint8 (the clamp converted)
CLAMP = TensorSelect(
    Cmp("==", TensorVar("a", UINT8), Lit(0, INT)),
    Lit(7, INT),
    TensorSelect(Cmp("<", _WIDE, Lit(0, INT)), Lit(0, INT), _WIDE, INT),
    INT,
)


@st.composite
def open_intervals(draw: st.DrawFn) -> Interval:
    a, b = sorted((draw(st.integers(-50, 50)), draw(st.integers(-50, 50))))
    return Interval(draw(st.sampled_from([a, None])), draw(st.sampled_from([b, None])))


@settings(max_examples=300, deadline=None)
@given(open_intervals(), open_intervals(), st.booleans(), st.data())
def test_extremum_interval_contains_every_max_and_min(x: Interval, y: Interval, bigger: bool,
                                                     data: st.DataObject) -> None:
    r = x.extremum(y, bigger)
    a = data.draw(st.integers(x.lo, x.hi))
    b = data.draw(st.integers(y.lo, y.hi))
    v = max(a, b) if bigger else min(a, b)
    assert (r.lo is None or r.lo <= v) and (r.hi is None or v <= r.hi), (x, y, bigger, a, b, r)


def test_a_clamp_select_has_the_clamped_range_and_its_parent_blends_narrow() -> None:
    plan = DtypePlan({"a": Interval(0, 255), "b": Interval(0, 255)}, {"a": UINT8, "b": UINT8},
                     {"a": "uint8", "b": "uint8"}, tuple(INT_DTYPES), repack_selects=True)
    inner = CLAMP.else_
    assert plan.range(_WIDE) == Interval(-510, 255) and plan.rep(_WIDE) == "int16"
    assert plan.range(inner) == Interval(0, 255)  # max(0, x): not the hull of 0 and x
    assert plan.rep(CLAMP) == "uint8"
    keep = DtypePlan(plan.params, plan.param_dtypes, plan.param_reps, plan.candidates)
    assert keep.rep(CLAMP) == "int16"  # without repacking, never narrower than a branch


KERNEL = """
void k(unsigned char *a, unsigned char *b, unsigned char *out, int n) {
    for (int i = 0; i < n; i++) out[i] = 0;
}
"""


@pytest.mark.parametrize("fill", [0, 255, None])
@pytest.mark.parametrize("term", [_screen(TensorVar("a", UINT8), TensorVar("b", UINT8)), TensorCast(SELECT, UINT8),
                                  TensorCast(CLAMP, UINT8)])
def test_narrow_numpy_code_equals_interpreter(term: TensorCast, fill: int | None) -> None:
    """Generated NumPy (narrow dtypes) against the reference interpreter, on all-0 / all-255
    (and the complement) and random uint8 data, through the whole generated module (the
    store into ``unsigned char`` wraps modulo 256)."""
    n = 64
    rng = np.random.default_rng(1)
    if fill is None:
        a, b = (rng.integers(0, 256, n, dtype=np.uint8) for _ in range(2))
    else:
        a, b = np.full(n, fill, np.uint8), np.full(n, 255 - fill, np.uint8)
    fn = parse_c_source(KERNEL)
    nvar = ScalarVar("n", INT)
    value = substitute(term, {"a": Take(TensorVar("a", UINT8), nvar), "b": Take(TensorVar("b", UINT8), nvar)})
    ps = ProgramSummary("k", (ArrayOutput("out", Lit(0, INT), nvar, value),))
    code = NumpyBackend().generate(fn, ps)
    body = code.text.split("import numpy as np", 1)[1]
    assert "int64" not in body  # all of it narrowed
    ns: dict = {}
    exec(code.text, ns)
    got = ns["k"](a, b, np.zeros(n, np.uint8), n)
    want = np.mod(np.asarray(evaluate(value, {"a": a.astype(np.int64), "b": b.astype(np.int64), "n": n})), 256)
    np.testing.assert_array_equal(got, want)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(-(2**24) + 1, 2**24 - 1), st.integers(-(2**24) + 1, 2**24 - 1)), min_size=1, max_size=50),
       st.booleans())
def test_float32_division_helpers_are_exact(pairs: list[tuple[int, int]], floor: bool) -> None:
    """``_div24`` / ``_rem24`` (integer division by an array through float32) against exact
    integer arithmetic, including the extremes ±(2**24 - 1) and divisors ±1."""
    from tenspiler.codegen.numpy_backend import HELPERS

    ns: dict = {"np": np}
    exec(HELPERS["_div24"] + HELPERS["_rem24"], ns)
    pairs += [(2**24 - 1, 1), (-(2**24) + 1, 3), (2**24 - 1, -(2**24) + 2), (2**24 - 2, 2**24 - 1), (-7, 2)]
    x = np.array([p[0] for p in pairs], dtype=np.int32)
    y = np.array([p[1] or 1 for p in pairs], dtype=np.int32)
    ops = ("//", "mod") if floor else ("/", "%")
    for op, helper in zip(ops, ("_div24", "_rem24"), strict=True):
        got = ns[helper](x, y, np.int32, floor=floor)
        want = [py_binop(op, int(a), int(b), INT) for a, b in zip(x, y, strict=True)]  # type: ignore[arg-type]
        np.testing.assert_array_equal(got, np.array(want, dtype=np.int64), err_msg=op)


def test_store_helper_never_modifies_or_aliases_its_inputs() -> None:
    """``_store`` (array outputs): a partial store copies ``out``; a full one returns the
    value itself only when it is fresh and of out's dtype, else a converted copy (uint8
    wraps modulo 256)."""
    from tenspiler.codegen.numpy_backend import HELPERS

    ns: dict = {"np": np}
    exec(HELPERS["_store"], ns)
    store = ns["_store"]
    out = np.array([1, 2, 3], dtype=np.uint8)
    r = store(out, 1, 2, np.array([300], dtype=np.int16))
    assert r.tolist() == [1, 44, 3] and out.tolist() == [1, 2, 3]
    v = np.array([7, 8, 9], dtype=np.uint8)
    assert store(out, 0, 3, v, fresh=True) is v
    view = v[:]
    r = store(out, 0, 3, view, fresh=True)  # a view (not owning its data): copied
    assert r is not view and r.tolist() == [7, 8, 9]
    assert store(out, 0, 3, v) is not v  # not fresh: may be an input
    assert store(out, 0, 3, np.array([256, -1, 5])).tolist() == [0, 255, 5]
    assert out.tolist() == [1, 2, 3]


def test_common_subexpressions_are_bound_once_and_scoped_to_their_branch() -> None:
    """A repeated subterm is computed once (``:=`` at its first evaluation); a name bound in
    one branch of a Python conditional is not used in the other (which may run alone)."""
    from tenspiler.ir.terms import ReduceMax, ScalarOp, ScalarOutput, ScalarSelect

    fn = parse_c_source("int k(unsigned char *a, int n) { return 0; }")
    n = ScalarVar("n", INT)
    m = ReduceMax(Take(TensorVar("a", UINT8), n), INT)
    then = ScalarOp("+", m, m, INT)
    value = ScalarSelect(Cmp(">", n, Lit(1, INT)), ScalarSelect(Cmp(">", m, Lit(3, INT)), then, m, INT), m, INT)
    code = NumpyBackend().generate(fn, ProgramSummary("k", (ScalarOutput("return", value),))).text
    assert code.count("np.maximum.reduce(") == 2  # once per branch of the outer conditional
    ns: dict = {}
    exec(code, ns)
    for a, k in (([5, 9, 2], 3), ([7], 1), ([2, 1], 2)):
        want = evaluate(value, {"a": np.array(a), "n": k})
        assert ns["k"](np.array(a, dtype=np.uint8), k) == want


def test_numpy_edge_cases_of_selects_reductions_and_math() -> None:
    """Three NumPy code generation edge cases against the reference interpreter: a Python-int
    division by zero in the branch of an elementwise select that no lane takes (C never
    evaluates it); the row maxima of a matrix without rows; ``exp`` of a ``float`` operand in
    a ``double`` node (C's exp(double): computed in float64, not float32)."""
    from tenspiler.ir.terms import Matrix, ReduceRows, ScalarOp, TensorMap

    n, m = ScalarVar("n", INT), ScalarVar("m", INT)
    a = Take(TensorVar("a", INT), n)
    div = TensorSelect(Cmp(">", m, Lit(0, INT)), TensorScalar("+", a, ScalarOp("/", n, m, INT), False, INT), a, INT)
    rows = ReduceRows(Matrix(TensorVar("a", INT), m, n), INT, "max")
    f = Take(TensorVar("f", DType.FLOAT), n)
    exp = TensorMap("exp", TensorCast(f, DType.DOUBLE), DType.DOUBLE)
    exp_float = TensorMap("exp", f, DType.DOUBLE)
    cases = [(div, {"n": 3, "m": 0}), (rows, {"n": 0, "m": 0}), (exp, {"n": 3, "m": 0}), (exp_float, {"n": 3, "m": 0})]
    for value, scalars in cases:
        out_dtype = DType.DOUBLE if value.dtype.is_float else INT
        fn = parse_c_source(f"void k(int *a, float *f, {out_dtype.c_name} *out, int n, int m) {{ }}")
        hi = ScalarVar("m", INT) if isinstance(value, ReduceRows) else n
        ps = ProgramSummary("k", (ArrayOutput("out", Lit(0, INT), hi, value),))
        code = NumpyBackend().generate(fn, ps).text
        ns: dict = {}
        exec(code, ns)
        av = np.array([5, -7, 9], dtype=np.int64)
        fv = np.array([88.5, -3.25, 0.5], dtype=np.float32)
        got = ns["k"](av, fv, np.zeros(3), scalars["n"], scalars["m"])
        env = {"a": av, "f": fv.astype(np.float64), **scalars}
        want = np.asarray(evaluate(value, env))
        np.testing.assert_allclose(got[: want.shape[0]], want, rtol=1e-15)


def test_dot_of_narrow_products_accumulates_in_the_sum_type() -> None:
    """``reduce_sum(a * a)`` over ``unsigned char``: the products fit uint16, the sum does
    not; ``np.dot`` accumulates in its operands' dtype, so they must be widened first (a
    regression found by the random-term property test)."""
    from tenspiler.ir.terms import ReduceSum, ScalarOutput

    fn = parse_c_source("int k(unsigned char *a, int n) { return 0; }")
    n = ScalarVar("n", INT)
    a = Take(TensorVar("a", UINT8), n)
    value = ReduceSum(TensorTensor("*", a, a, INT), INT)
    ns: dict = {}
    exec(NumpyBackend().generate(fn, ProgramSummary("k", (ScalarOutput("return", value),))).text, ns)
    data = np.full(1000, 255, dtype=np.uint8)
    assert ns["k"](data, 1000) == 1000 * 255 * 255
