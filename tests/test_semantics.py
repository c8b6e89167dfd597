"""The one-semantics rule for scalar arithmetic (tenspiler.ir.semantics).

Each C operator is defined three times — ``py_*`` (Python numbers), ``np_*`` (NumPy arrays)
and ``smt_*`` (SMT-LIB text). These tests check the three against each other on random
inputs, the SMT side by asking cvc5 to refute ``term ≠ expected`` (one script per batch of
checks, one ``push``/``pop`` block per check), plus known C facts as explicit examples.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tenspiler.ir.semantics import (
    SMT_PRELUDE,
    UndefinedBehaviour,
    np_binop,
    np_cast,
    py_binop,
    py_cast,
    smt_binop,
    smt_cast,
    smt_const,
)
from tenspiler.ir.terms import promote
from tenspiler.loops.ir import BIN_OPS, FLOOR_OPS, BinOpName, DType
from tenspiler.verify.certificate import recheck_text

INT = DType.INT
UINT8 = DType.UINT8
DOUBLE = DType.DOUBLE

# Small values (where sign and zero cases live) mixed with C ``int``-sized ones.
ints = st.one_of(
    st.integers(-20, 20),
    st.just(0),
    st.integers(-(2**31), 2**31 - 1),
)
reals = st.one_of(
    st.floats(-10.0, 10.0, allow_nan=False, allow_infinity=False),
    st.floats(-1e9, 1e9, allow_nan=False, allow_infinity=False),
    st.sampled_from([-2.5, -0.5, -0.0, 0.0, 0.5, 2.5, 255.9, 256.0, -256.5]),
)
triples = st.tuples(st.sampled_from(BIN_OPS), ints, ints)


def smt_refutes_all(checks: list[tuple[str, str]]) -> list[str]:
    """cvc5's answers to ``term ≠ expected`` for each ``(term, expected)``: one script,
    one push/pop block per check. All ``unsat`` ⇔ the SMT side computes every value."""
    from tenspiler.ir.semantics import smt_extra_declarations

    lines = ["(set-logic ALL)", "(set-option :incremental true)", SMT_PRELUDE.rstrip()]
    lines += smt_extra_declarations("\n".join(t for t, _ in checks))
    for term, expected in checks:
        lines += ["(push 1)", f"(assert (not (= {term} {expected})))", "(check-sat)", "(pop 1)"]
    return recheck_text("\n".join(lines) + "\n", "test_semantics")


def assert_smt_computes(checks: list[tuple[str, str]]) -> None:
    answers = smt_refutes_all(checks)
    assert len(answers) == len(checks)
    bad = [(t, e, a) for (t, e), a in zip(checks, answers, strict=True) if a != "unsat"]
    assert not bad, f"SMT disagrees (term, expected, cvc5 answer): {bad}"


# ---------------------------------------------------------------- binary operators


@settings(max_examples=60, deadline=None)
@given(st.lists(triples, min_size=1, max_size=40))
@example([("/", 7, -2), ("/", -7, 2), ("%", -7, 2), ("%", 7, -2), ("/", 1, -3)])
@example([("/", 0, -5), ("%", 0, 5), ("/", 0, 1), ("%", 0, -1), ("/", -(2**31), -1)])
@example([(op, x, y) for op in BIN_OPS for x in (-7, -1, 0, 1, 7) for y in (-3, -1, 1, 3)])
def test_int_binops_agree(batch: list[tuple[BinOpName, int, int]]) -> None:
    batch = [(op, x, y) for op, x, y in batch if not (op in ("/", "%") and y == 0)]
    if not batch:
        return
    checks: list[tuple[str, str]] = []
    for op in BIN_OPS:
        rows = [(x, y) for o, x, y in batch if o == op]
        if not rows:
            continue
        xs = np.array([x for x, _ in rows], dtype=np.int64)
        ys = np.array([y for _, y in rows], dtype=np.int64)
        np_out = np.asarray(np_binop(op, xs, ys, INT))
        assert np_out.dtype == np.int64
        for (x, y), nv in zip(rows, np_out.tolist(), strict=True):
            pv = py_binop(op, x, y, INT)
            assert isinstance(pv, int)
            assert pv == nv, f"py {x} {op} {y} = {pv}, numpy gives {nv}"
            checks.append(
                (smt_binop(op, smt_const(x, INT), smt_const(y, INT), INT), smt_const(pv, INT))
            )
            if op in ("/", "%"):
                # C11 6.5.5: (a/b)*b + a%b == a, |a%b| < |b|, a%b has the sign of a.
                q, r = py_binop("/", x, y, INT), py_binop("%", x, y, INT)
                assert q * y + r == x
                assert abs(r) < abs(y)
                assert r == 0 or (r > 0) == (x > 0)
                assert abs(q) == abs(x) // abs(y)
    assert_smt_computes(checks)


@pytest.mark.parametrize(
    ("op", "x", "y", "expected"),
    [
        ("/", 7, -2, -3),
        ("/", -7, 2, -3),
        ("/", -7, -2, 3),
        ("/", 7, 2, 3),
        ("%", -7, 2, -1),
        ("%", 7, -2, 1),
        ("%", -7, -2, -1),
        ("%", 7, 2, 1),
        ("/", 1, -3, 0),
        ("/", -1, 3, 0),
        ("%", 1, -3, 1),
        ("%", -1, 3, -1),
        ("/", 0, -3, 0),
        ("%", 0, -3, 0),
        ("-", 3, 5, -2),
        ("*", -4, 5, -20),
    ],
)
def test_known_c_facts(op: BinOpName, x: int, y: int, expected: int) -> None:
    assert py_binop(op, x, y, INT) == expected
    assert np.asarray(np_binop(op, np.int64(x), np.int64(y), INT)).item() == expected
    got = np_binop(op, np.array([x, x], dtype=np.int64), np.array([y, y], dtype=np.int64), INT)
    assert np.asarray(got).tolist() == [expected, expected]
    assert_smt_computes(
        [(smt_binop(op, smt_const(x, INT), smt_const(y, INT), INT), smt_const(expected, INT))]
    )


@pytest.mark.parametrize("op", ["/", "%"])
@pytest.mark.parametrize("x", [-5, 0, 5])
@pytest.mark.parametrize("dtype", [INT, UINT8, DOUBLE])
def test_zero_divisor_is_undefined(op: BinOpName, x: int, dtype: DType) -> None:
    with pytest.raises(UndefinedBehaviour):
        py_binop(op, x, 0, dtype)


def test_uint8_operands_are_promoted_to_int() -> None:
    # C: unsigned char operands are converted to int before arithmetic, so no wrap-around
    # until the result is stored back into an unsigned char.
    d = promote(UINT8, UINT8)
    assert d == INT
    assert promote(UINT8, INT) == INT
    assert py_binop("+", 200, 100, d) == 300
    assert py_binop("-", 5, 10, d) == -5
    assert py_cast(py_binop("+", 200, 100, d), UINT8) == 44
    assert py_cast(py_binop("-", 5, 10, d), UINT8) == 251
    assert np_cast(np_binop("-", np.array([5, 255]), np.array([10, 10]), d), UINT8).tolist() == [
        251,
        245,
    ]
    assert_smt_computes(
        [
            (smt_binop("+", "200", "100", d), "300"),
            (smt_cast(smt_binop("+", "200", "100", d), INT, UINT8), "44"),
            (smt_cast(smt_binop("-", "5", "10", d), INT, UINT8), "251"),
        ]
    )


# ---------------------------------------------------------------- conversions


@settings(max_examples=40, deadline=None)
@given(st.lists(ints, min_size=1, max_size=40))
@example([300, -1, 0, 255, 256, -256, -257, 511, 2**31 - 1, -(2**31)])
def test_int_to_uint8_wraps(xs: list[int]) -> None:
    np_out = np.asarray(np_cast(np.array(xs, dtype=np.int64), UINT8)).tolist()
    checks = []
    for x, nv in zip(xs, np_out, strict=True):
        pv = py_cast(x, UINT8)
        assert pv == nv == x % 256
        assert 0 <= pv < 256
        checks.append((smt_cast(smt_const(x, INT), INT, UINT8), smt_const(pv, INT)))
    assert_smt_computes(checks)


@settings(max_examples=40, deadline=None)
@given(st.lists(reals, min_size=1, max_size=40))
@example([-2.5, 2.5, -0.5, 0.5, -0.0, 3.0, -3.0, -1e9 + 0.5])
def test_real_to_int_truncates(xs: list[float]) -> None:
    np_out = np.asarray(np_cast(np.array(xs, dtype=np.float64), INT))
    assert np_out.dtype == np.int64
    checks = []
    for x, nv in zip(xs, np_out.tolist(), strict=True):
        pv = py_cast(x, INT)
        assert isinstance(pv, int)
        assert pv == nv == math.trunc(x)
        checks.append((smt_cast(smt_const(x, DOUBLE), DOUBLE, INT), smt_const(pv, INT)))
    assert_smt_computes(checks)


@settings(max_examples=30, deadline=None)
@given(st.lists(reals, min_size=1, max_size=30))
@example([-2.5, 255.9, 256.0, -256.5, -0.5, 300.7])
def test_real_to_uint8_truncates_then_wraps(xs: list[float]) -> None:
    np_out = np.asarray(np_cast(np.array(xs, dtype=np.float64), UINT8)).tolist()
    checks = []
    for x, nv in zip(xs, np_out, strict=True):
        pv = py_cast(x, UINT8)
        assert pv == nv == math.trunc(x) % 256
        checks.append((smt_cast(smt_const(x, DOUBLE), DOUBLE, UINT8), smt_const(pv, INT)))
    assert_smt_computes(checks)


@settings(max_examples=30, deadline=None)
@given(st.lists(ints, min_size=1, max_size=40))
def test_int_to_real_is_exact(xs: list[int]) -> None:
    np_out = np.asarray(np_cast(np.array(xs, dtype=np.int64), DOUBLE))
    assert np_out.dtype == np.float64
    checks = []
    for x, nv in zip(xs, np_out.tolist(), strict=True):
        pv = py_cast(x, DOUBLE)
        assert isinstance(pv, float)
        assert pv == nv == x  # exact: |x| < 2**53
        checks.append((smt_cast(smt_const(x, INT), INT, DOUBLE), smt_const(pv, DOUBLE)))
    assert_smt_computes(checks)


@pytest.mark.parametrize(
    ("x", "src", "dst", "expected"),
    [
        (300, INT, UINT8, 44),
        (-1, INT, UINT8, 255),
        (256, INT, UINT8, 0),
        (-2.5, DOUBLE, INT, -2),
        (2.5, DOUBLE, INT, 2),
        (-0.5, DOUBLE, INT, 0),
        (-2.5, DOUBLE, UINT8, 254),
        (300.9, DOUBLE, UINT8, 44),
        (7, INT, DOUBLE, 7.0),
        (-7, INT, DOUBLE, -7.0),
        (200, UINT8, INT, 200),
    ],
)
def test_known_casts(x: int | float, src: DType, dst: DType, expected: int | float) -> None:
    assert py_cast(x, dst) == expected
    assert np.asarray(np_cast(np.array([x]), dst)).tolist() == [expected]
    assert_smt_computes([(smt_cast(smt_const(x, src), src, dst), smt_const(expected, dst))])


# ---------------------------------------------------------------- Python floor division

floor_triples = st.tuples(st.sampled_from(FLOOR_OPS), ints, ints)


@settings(max_examples=60, deadline=None)
@given(st.lists(floor_triples, min_size=1, max_size=40))
@example([(op, x, y) for op in FLOOR_OPS for x in (-7, -6, -1, 0, 1, 6, 7) for y in (-3, -1, 1, 3)])
@example([("//", -(2**31), -1), ("mod", -(2**31), -1), ("//", 2**31 - 1, -(2**31))])
def test_python_floor_ops_agree_with_python(batch: list[tuple[BinOpName, int, int]]) -> None:
    """``//`` and ``mod`` are Python's ``//`` and ``%`` (floor; the remainder has the sign
    of the divisor) in all three definitions, and differ from C's ``/`` and ``%``."""
    batch = [(op, x, y) for op, x, y in batch if y != 0]
    if not batch:
        return
    checks: list[tuple[str, str]] = []
    for op in FLOOR_OPS:
        rows = [(x, y) for o, x, y in batch if o == op]
        if not rows:
            continue
        xs = np.array([x for x, _ in rows], dtype=np.int64)
        ys = np.array([y for _, y in rows], dtype=np.int64)
        np_out = np.asarray(np_binop(op, xs, ys, INT))
        assert np_out.dtype == np.int64
        for (x, y), nv in zip(rows, np_out.tolist(), strict=True):
            want = x // y if op == "//" else x % y
            pv = py_binop(op, x, y, INT)
            assert isinstance(pv, int) and pv == want == nv, (op, x, y, pv, nv)
            checks.append((smt_binop(op, smt_const(x, INT), smt_const(y, INT), INT), smt_const(want, INT)))
    assert_smt_computes(checks)


@pytest.mark.parametrize(("x", "y"), [(-7, 2), (7, -2), (-7, 3), (-1, 255)])
def test_python_floor_ops_differ_from_c(x: int, y: int) -> None:
    assert py_binop("//", x, y, INT) != py_binop("/", x, y, INT)
    assert py_binop("mod", x, y, INT) != py_binop("%", x, y, INT)
    with pytest.raises(UndefinedBehaviour):
        py_binop("//", x, 0, INT)
    with pytest.raises(UndefinedBehaviour):
        py_binop("mod", x, 0, INT)


# ---------------------------------------------------------------- pow


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(-50.0, 50.0), st.floats(-6.0, 6.0)), min_size=1, max_size=30))
@example([(2.0, 10.0), (-2.0, 3.0), (0.0, 0.0), (0.0, 2.5), (-1.5, -2.0), (1e-3, 0.5)])
def test_pow_is_c_pow_where_it_is_real(pairs: list[tuple[float, float]]) -> None:
    """``pow`` is the C library's ``pow`` (``math.pow``) in both concrete definitions where
    it is a real; elsewhere the Python one raises ``OutsideModel`` and NumPy gives C's
    NaN / inf. In SMT-LIB it is the uninterpreted ``tenspiler.pow`` (declared by the scripts
    that use it)."""
    from tenspiler.ir.semantics import OutsideModel, smt_extra_declarations

    xs = np.array([x for x, _ in pairs])
    ys = np.array([y for _, y in pairs])
    np_out = np.asarray(np_binop("pow", xs, ys, DOUBLE)).tolist()
    for (x, y), nv in zip(pairs, np_out, strict=True):
        try:
            want = math.pow(x, y)
        except (ValueError, OverflowError, ZeroDivisionError):
            with pytest.raises(OutsideModel):
                py_binop("pow", x, y, DOUBLE)
            assert not math.isfinite(nv)
            continue
        assert py_binop("pow", x, y, DOUBLE) == want
        assert nv == pytest.approx(want, rel=1e-15, abs=0.0)
    text = smt_binop("pow", "x", "y", DOUBLE)
    assert text == "(tenspiler.pow x y)" and smt_extra_declarations(text)


# ---------------------------------------------------------------- the harness itself


def test_harness_detects_a_wrong_value() -> None:
    """The SMT check is not vacuous: a wrong expected value is satisfiable (``sat``)."""
    assert smt_refutes_all(
        [
            (smt_binop("/", "(- 7)", "2", INT), "(- 4)"),  # floor division, not C's
            (smt_binop("%", "(- 7)", "2", INT), "1"),  # Euclidean remainder, not C's
            (smt_cast("(- 2.5)", DOUBLE, INT), "(- 3)"),  # floor, not truncation
            (smt_binop("/", "(- 7)", "2", INT), "(- 3)"),
        ]
    ) == ["sat", "sat", "sat", "unsat"]
