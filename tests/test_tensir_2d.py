"""2-D TensIR (matrix views, broadcasting, row reductions): the reference interpreter, the
SMT encoding (checked with cvc5) and the NumPy rules agree."""

from __future__ import annotations

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tenspiler.codegen.numpy_backend import NUMPY, EmitContext
from tenspiler.ir.interp import evaluate
from tenspiler.ir.semantics import SMT_PRELUDE, smt_const
from tenspiler.ir.smt import SmtEncoder
from tenspiler.ir.terms import (
    Flatten,
    Matrix,
    ReduceRows,
    ScalarVar,
    Strided,
    Tail,
    Take,
    Tensor,
    TensorScalar,
    TensorTensor,
    TensorVar,
    Transpose,
)
from tenspiler.loops.ir import DType
from tenspiler.verify.certificate import recheck_text

INT = DType.INT
A, B, X = TensorVar("A", INT), TensorVar("B", INT), TensorVar("x", INT)
M, N, S = ScalarVar("M", INT), ScalarVar("N", INT), ScalarVar("s", INT)

TERMS: dict[str, Tensor] = {
    "matvec": ReduceRows(TensorTensor("*", Matrix(A, M, N), Take(X, N), INT), INT),
    "rowsum": ReduceRows(Matrix(A, M, N), INT),
    "rowsum_of_sum": ReduceRows(TensorTensor("+", Matrix(A, M, N), Matrix(B, M, N), INT), INT),
    "scaled_rows": ReduceRows(TensorScalar("/", Matrix(A, M, N), S, False, INT), INT),
    "vec_minus_matrix": ReduceRows(TensorTensor("-", Take(X, N), Matrix(B, M, N), INT), INT),
    "row_max": ReduceRows(TensorTensor("+", Matrix(A, M, N), Take(X, N), INT), INT, "max"),
    # row-major flattening of a computed matrix: element k is (k div N, k mod N)
    "flat_broadcast": Flatten(TensorTensor("+", Matrix(A, M, N), Take(X, N), INT)),
    "flat_scaled": Flatten(TensorScalar("-", Matrix(A, M, N), S, True, INT)),
}


def _arrays(env: dict[str, object]) -> str:
    out = "(declare-const A (Array Int Int))(declare-const B (Array Int Int))(declare-const x (Array Int Int))"
    for name in ("A", "B", "x"):
        for i, v in enumerate(np.asarray(env[name]).tolist()):
            out += f"(assert (= (select {name} {i}) {smt_const(v, INT)}))"
    return out


@settings(max_examples=40, deadline=None)
@given(
    name=st.sampled_from(sorted(TERMS)),
    m=st.integers(0, 3),
    n=st.integers(0, 3),
    s=st.integers(1, 3) | st.integers(-3, -1),
    data=st.data(),
)
def test_interpreter_smt_and_numpy_agree(name: str, m: int, n: int, s: int, data: st.DataObject) -> None:
    assume(name != "row_max" or n > 0)  # a row maximum is defined for non-empty rows only
    ints = st.integers(-6, 6)
    env: dict[str, object] = {
        "A": np.array(data.draw(st.lists(ints, min_size=m * n, max_size=m * n + 2)), dtype=np.int64),
        "B": np.array(data.draw(st.lists(ints, min_size=m * n, max_size=m * n + 2)), dtype=np.int64),
        "x": np.array(data.draw(st.lists(ints, min_size=n, max_size=n + 2)), dtype=np.int64),
        "M": m, "N": n, "s": s,
    }
    t = TERMS[name]
    want = evaluate(t, env)
    length = m * n if isinstance(t, Flatten) else m
    assert want.shape == (length,)
    enc = SmtEncoder({"A": "A", "B": "B", "x": "x", "M": str(m), "N": str(n), "s": smt_const(s, INT)})
    checks = [f"(push 1)(assert (not (= {enc.length(t)} {length})))(check-sat)(pop 1)"]
    for k, v in enumerate(want.tolist()):
        checks.append(f"(push 1)(assert (not (= {enc.at(t, str(k))} {smt_const(v, INT)})))(check-sat)(pop 1)")
    script = "(set-logic ALL)(set-option :incremental true)\n" + SMT_PRELUDE + _arrays(env)
    script += "\n".join(enc.definitions) + "\n".join(checks)
    assert recheck_text(script) == ["unsat"] * len(checks)
    from tenspiler.codegen.numpy_backend import HELPERS

    ctx = EmitContext({k: k for k in env}, dict.fromkeys(env, INT))
    code = NUMPY.render(t, ctx)
    ns: dict[str, object] = {"np": np, **env}
    for helper in HELPERS.values():
        exec(helper, ns)
    got = eval(code, ns)
    assert np.asarray(got).tolist() == want.tolist()


def test_matvec_value() -> None:
    env = {"A": np.arange(12) - 5, "x": np.array([1, -2, 3, 4]), "M": 3, "N": 4}
    assert evaluate(TERMS["matvec"], env).tolist() == [-14, 10, 34]


def test_row_of_inner_and_outer_view_share_one_reduction() -> None:
    """A row reduction seen at row i (inner loop) and through reduce_rows (outer loop) must
    encode to the same recursive function: the proofs rely on it."""
    from tenspiler.ir.terms import ReduceSum, ScalarOp, Slice

    i = ScalarVar("i", INT)
    lo = ScalarOp("*", i, N, INT)
    inner = ReduceSum(TensorTensor("*", Slice(A, lo, ScalarOp("+", lo, N, INT)), Take(X, N), INT), INT)
    enc = SmtEncoder({"A": "A", "x": "x", "i": "i", "N": "N", "M": "M"})
    a = enc.scalar(inner)
    b = enc.at(TERMS["matvec"], "i")
    assert len(enc.definitions) == 1
    assert a.split()[0] == b.split()[0]


C, W = ScalarVar("c", INT), ScalarVar("w", INT)
STRIDED_TERMS: dict[str, Tensor] = {
    # rows of a wider matrix, starting at column c: a column slice of row-major data
    "strided_matvec": ReduceRows(TensorTensor("*", Matrix(Tail(A, C), M, N, W), Take(X, N), INT), INT),
    # columns c .. c+M of an N-row matrix, as rows: a transposed product
    "transposed_matvec": ReduceRows(
        TensorTensor("*", Transpose(Matrix(Tail(A, C), N, M, W)), Take(X, N), INT), INT
    ),
    # one column, as a vector
    "column_times_x": TensorTensor("*", Strided(A, C, M, W), Take(X, M), INT),
}


@settings(max_examples=30, deadline=None)
@given(
    name=st.sampled_from(sorted(STRIDED_TERMS)),
    m=st.integers(0, 3),
    n=st.integers(0, 3),
    c=st.integers(0, 2),
    extra=st.integers(0, 2),
    data=st.data(),
)
def test_strided_views_agree_in_interpreter_smt_and_numpy(
    name: str, m: int, n: int, c: int, extra: int, data: st.DataObject
) -> None:
    w = max(m, n) + extra  # row length of the underlying row-major data
    ints = st.integers(-6, 6)
    size = c + max(m, n) * w + 1
    env: dict[str, object] = {
        "A": np.array(data.draw(st.lists(ints, min_size=size, max_size=size)), dtype=np.int64),
        "B": np.zeros(1, dtype=np.int64),
        "x": np.array(data.draw(st.lists(ints, min_size=max(m, n), max_size=max(m, n))), dtype=np.int64),
        "M": m, "N": n, "c": c, "w": w,
    }
    t = STRIDED_TERMS[name]
    want = evaluate(t, env)
    length = m * n if isinstance(t, Flatten) else m
    assert want.shape == (length,)
    a = np.asarray(env["A"])
    x = np.asarray(env["x"])
    rows = [[a[c + r * w + q] for q in range(n)] for r in range(m)]
    cols = [[a[c + q * w + r] for q in range(n)] for r in range(m)]
    expected = {
        "strided_matvec": [sum(v * x[q] for q, v in enumerate(row)) for row in rows],
        "transposed_matvec": [sum(v * x[q] for q, v in enumerate(col)) for col in cols],
        "column_times_x": [a[c + r * w] * x[r] for r in range(m)],
    }[name]
    assert want.tolist() == expected
    enc = SmtEncoder({"A": "A", "B": "B", "x": "x", "M": str(m), "N": str(n), "c": str(c), "w": str(w)},
                     {"A": str(size)})
    checks = [f"(push 1)(assert (not (= {enc.length(t)} {length})))(check-sat)(pop 1)"]
    for k, v in enumerate(want.tolist()):
        checks.append(f"(push 1)(assert (not (= {enc.at(t, str(k))} {smt_const(v, INT)})))(check-sat)(pop 1)")
    script = "(set-logic ALL)(set-option :incremental true)\n" + SMT_PRELUDE + _arrays(env)
    script += "\n".join(enc.definitions) + "\n".join(checks)
    assert recheck_text(script) == ["unsat"] * len(checks)
    ctx = EmitContext({k: k for k in env}, dict.fromkeys(env, INT))
    got = eval(NUMPY.render(t, ctx), {"np": np, **env})
    assert np.asarray(got).tolist() == want.tolist()


def test_strided_views_refuse_out_of_range_reads() -> None:
    import pytest

    env = {"A": np.arange(5), "M": 2, "N": 2, "c": 0, "w": 4}
    with pytest.raises(IndexError):
        evaluate(Matrix(A, M, N, W), env)  # row 1 would need elements 4 and 5
    with pytest.raises(IndexError):
        evaluate(Strided(A, C, M, W), {**env, "M": 3, "w": 3})  # A[3] ok, A[6] not
    assert evaluate(Strided(A, C, M, W), {**env, "w": 4}).tolist() == [0, 4]
