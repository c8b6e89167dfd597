"""Error cases (and a few values) of the TensIR reference interpreter (tenspiler.ir.interp)."""

from __future__ import annotations

import numpy as np
import pytest

from tenspiler.ir.interp import evaluate
from tenspiler.ir.semantics import UndefinedBehaviour
from tenspiler.ir.terms import (
    Lit,
    ReduceMax,
    ReduceSum,
    ScalarOp,
    ScalarVar,
    Size,
    Slice,
    Tail,
    Take,
    TensorScalar,
    TensorTensor,
    TensorVar,
)
from tenspiler.loops.ir import BinOpName, DType

INT = DType.INT
a = TensorVar("a", INT)
b = TensorVar("b", INT)
s = ScalarVar("s", INT)


def lit(v: int) -> Lit:
    return Lit(v, INT)


# ---------------------------------------------------------------- access ops out of range


@pytest.mark.parametrize("n", [4, 5, -1])
def test_take_out_of_range(n: int) -> None:
    with pytest.raises(IndexError):
        evaluate(Take(a, lit(n)), {"a": [1, 2, 3]})


@pytest.mark.parametrize("n", [4, -1])
def test_tail_out_of_range(n: int) -> None:
    with pytest.raises(IndexError):
        evaluate(Tail(a, lit(n)), {"a": [1, 2, 3]})


@pytest.mark.parametrize(("lo", "hi"), [(2, 1), (-1, 2), (0, 4), (4, 4)])
def test_slice_out_of_range(lo: int, hi: int) -> None:
    with pytest.raises(IndexError):
        evaluate(Slice(a, lit(lo), lit(hi)), {"a": [1, 2, 3]})


def test_access_ops_at_the_boundaries() -> None:
    env = {"a": [1, 2, 3]}
    assert evaluate(Take(a, lit(3)), env).tolist() == [1, 2, 3]
    assert evaluate(Take(a, lit(0)), env).tolist() == []
    assert evaluate(Tail(a, lit(3)), env).tolist() == []
    assert evaluate(Tail(a, lit(0)), env).tolist() == [1, 2, 3]
    assert evaluate(Slice(a, lit(3), lit(3)), env).tolist() == []
    assert evaluate(Slice(a, lit(1), lit(3)), env).tolist() == [2, 3]
    assert evaluate(Take(a, lit(1)), {"a": [9]}).tolist() == [9]


def test_tail_drops_a_prefix_not_keeps_it() -> None:
    env = {"a": [1, 2, 3, 4]}
    assert evaluate(Tail(a, lit(2)), env).tolist() == [3, 4]
    assert evaluate(Take(a, lit(2)), env).tolist() == [1, 2]


# ---------------------------------------------------------------- shapes


def test_tensor_tensor_size_mismatch() -> None:
    with pytest.raises(ValueError):
        evaluate(TensorTensor("+", a, b, INT), {"a": [1, 2, 3], "b": [1, 2]})


def test_tensor_tensor_size_mismatch_with_empty() -> None:
    with pytest.raises(ValueError):
        evaluate(TensorTensor("*", a, b, INT), {"a": [], "b": [1]})


def test_reduce_max_of_empty() -> None:
    with pytest.raises(ValueError):
        evaluate(ReduceMax(a, INT), {"a": []})
    with pytest.raises(ValueError):
        evaluate(ReduceMax(Take(a, lit(0)), INT), {"a": [1, 2]})


def test_reduce_sum_of_empty_is_zero() -> None:
    v = evaluate(ReduceSum(a, INT), {"a": []})
    assert v == 0
    assert isinstance(v, int)


def test_reductions_and_size() -> None:
    env = {"a": [3, -5, 2]}
    assert evaluate(ReduceSum(a, INT), env) == 0
    assert evaluate(ReduceMax(a, INT), env) == 3
    assert evaluate(ReduceMax(TensorScalar("*", a, lit(-1), False, INT), INT), env) == 5
    assert evaluate(Size(a), env) == 3
    assert evaluate(Size(a), {"a": []}) == 0


# ---------------------------------------------------------------- division by zero


@pytest.mark.parametrize("op", ["/", "%"])
def test_tensor_tensor_division_by_a_zero_element(op: BinOpName) -> None:
    with pytest.raises(UndefinedBehaviour):
        evaluate(TensorTensor(op, a, b, INT), {"a": [1, 2, 3], "b": [1, 0, 1]})


@pytest.mark.parametrize("op", ["/", "%"])
def test_tensor_scalar_division_by_zero(op: BinOpName) -> None:
    with pytest.raises(UndefinedBehaviour):
        evaluate(TensorScalar(op, a, s, False, INT), {"a": [1, 2], "s": 0})


@pytest.mark.parametrize("op", ["/", "%"])
def test_scalar_left_division_by_a_zero_element(op: BinOpName) -> None:
    with pytest.raises(UndefinedBehaviour):
        evaluate(TensorScalar(op, a, s, True, INT), {"a": [2, 0], "s": 7})


@pytest.mark.parametrize("op", ["/", "%"])
def test_scalar_left_zero_dividend_is_fine(op: BinOpName) -> None:
    # s / a[i] with s == 0 divides 0 by non-zero elements: no undefined behaviour.
    assert evaluate(TensorScalar(op, a, s, True, INT), {"a": [2, -3], "s": 0}).tolist() == [0, 0]


@pytest.mark.parametrize("op", ["/", "%"])
def test_scalar_division_by_zero(op: BinOpName) -> None:
    with pytest.raises(UndefinedBehaviour):
        evaluate(ScalarOp(op, s, lit(0), INT), {"s": 5})
    with pytest.raises(UndefinedBehaviour):
        evaluate(ScalarOp(op, lit(0), ReduceSum(a, INT), INT), {"a": []})


@pytest.mark.parametrize("op", ["/", "%"])
@pytest.mark.parametrize("scalar_left", [False, True])
def test_tensor_scalar_of_empty_tensor_by_zero_is_fine(op: BinOpName, scalar_left: bool) -> None:
    # No element, so no division happens (a C loop over zero elements never divides).
    out = evaluate(TensorScalar(op, a, s, scalar_left, INT), {"a": [], "s": 0})
    assert isinstance(out, np.ndarray)
    assert out.shape == (0,)
    assert out.dtype == np.int64
    assert evaluate(ReduceSum(TensorScalar(op, a, lit(0), False, INT), INT), {"a": []}) == 0


def test_tensor_tensor_of_empty_tensors_with_division_is_fine() -> None:
    out = evaluate(TensorTensor("/", a, b, INT), {"a": [], "b": []})
    assert out.shape == (0,)


# ---------------------------------------------------------------- C arithmetic


def test_elementwise_division_truncates() -> None:
    env = {"a": [-7, 7, -1, 1, 0], "s": 2}
    assert evaluate(TensorScalar("/", a, s, False, INT), env).tolist() == [-3, 3, 0, 0, 0]
    assert evaluate(TensorScalar("%", a, s, False, INT), env).tolist() == [-1, 1, -1, 1, 0]
    env2 = {"a": [7, -7, 7, -7], "b": [-2, 2, 2, -2]}
    assert evaluate(TensorTensor("/", a, b, INT), env2).tolist() == [-3, -3, 3, 3]
    assert evaluate(TensorTensor("%", a, b, INT), env2).tolist() == [1, -1, 1, -1]


def test_scalar_left_operand_order() -> None:
    env = {"a": [1, 2, 10], "s": 7}
    assert evaluate(TensorScalar("-", a, s, True, INT), env).tolist() == [6, 5, -3]
    assert evaluate(TensorScalar("-", a, s, False, INT), env).tolist() == [-6, -5, 3]
    assert evaluate(TensorScalar("/", a, s, True, INT), env).tolist() == [7, 3, 0]


def test_scalar_op_truncates() -> None:
    assert evaluate(ScalarOp("/", lit(-7), lit(2), INT), {}) == -3
    assert evaluate(ScalarOp("%", lit(7), lit(-2), INT), {}) == 1


# ---------------------------------------------------------------- casts (C conversions)


def _cast_cases() -> list[tuple[object, object, list[int | float]]]:
    from tenspiler.loops.ir import DType as D

    return [
        (D.INT, D.UINT8, [300, -1, 255, 0]),
        (D.DOUBLE, D.INT, [-2.5, 2.5, -0.5, 7.0]),
        (D.INT, D.FLOAT, [-3, 0, 5]),
    ]


@pytest.mark.parametrize(("src", "dst", "values"), _cast_cases())
def test_cast_interpreter_matches_smt_and_codegen(src, dst, values) -> None:  # type: ignore[no-untyped-def]
    """cast(x) on every value: reference interpreter == SMT encoding (cvc5) == generated
    NumPy (one semantics for conversions too)."""
    import numpy as np

    from tenspiler.codegen.numpy_backend import NUMPY, EmitContext
    from tenspiler.ir.semantics import SMT_PRELUDE, smt_const
    from tenspiler.ir.smt import SmtEncoder
    from tenspiler.ir.terms import ScalarCast, ScalarVar, TensorCast, TensorVar
    from tenspiler.verify.certificate import recheck_text

    expected = evaluate(TensorCast(TensorVar("x", src), dst), {"x": np.array(values)})
    checks = []
    for v, e in zip(values, expected.tolist(), strict=True):
        enc = SmtEncoder({"x": smt_const(v, src)})
        got = enc.scalar(ScalarCast(ScalarVar("x", src), dst))
        assert evaluate(ScalarCast(ScalarVar("x", src), dst), {"x": v}) == e
        checks.append(f"(push 1)(assert (not (= {got} {smt_const(e, dst)})))(check-sat)(pop 1)")
    script = "(set-logic ALL)(set-option :incremental true)\n" + SMT_PRELUDE + "\n".join(checks)
    assert recheck_text(script) == ["unsat"] * len(values)
    ctx = EmitContext({"x": "x"}, {"x": src})
    code = NUMPY.render(TensorCast(TensorVar("x", src), dst), ctx)
    arr = np.array(values, dtype=np.float64 if src.is_float else np.int64)  # type: ignore[union-attr]
    got_np = eval(code, {"np": np, "x": arr})
    assert np.asarray(got_np).tolist() == expected.tolist()
