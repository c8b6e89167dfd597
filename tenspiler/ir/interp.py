"""Reference interpreter of TensIR (NumPy): the executable definition of every op.

Values: 1-D tensors are ``np.ndarray`` (int64 for integer dtypes, float64 for reals);
scalars are Python ``int`` / ``float``. Arithmetic goes through
``tenspiler.ir.semantics`` so it is C's (truncating ``/`` and ``%``).

Errors: :class:`IndexError` when an access op is out of range (``take(t, n)`` with
``n > size(t)`` …), :class:`~tenspiler.ir.semantics.UndefinedBehaviour` on a zero integer
divisor, :class:`ValueError` for ``reduce_max`` of an empty tensor or a length mismatch.
"""

from __future__ import annotations

import contextvars
from collections.abc import Mapping
from typing import Any

import numpy as np

from tenspiler.ir.semantics import (
    UndefinedBehaviour,
    divides,
    np_binop,
    np_call,
    np_cast,
    py_binop,
    py_call,
    py_cast,
)
from tenspiler.ir.terms import (
    ArgMax,
    BoolOp,
    Cmp,
    Cond,
    Flatten,
    Full,
    Iota,
    Lit,
    MatMul,
    Matrix,
    NotCond,
    ReduceMax,
    ReduceProd,
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
    cols,
    is_tensor,
    row,
    rows,
)
from tenspiler.loops.ir import DType


def _as_tensor(v: Any, dtype: DType) -> np.ndarray:
    return np.asarray(v, dtype=np.float64 if dtype.is_float else np.int64)


def _scalar(v: Any, dtype: DType) -> int | float:
    return float(v) if dtype.is_float else int(v)


def _check_range(what: str, lo: int, hi: int, size: int) -> None:
    if not (0 <= lo <= hi <= size):
        raise IndexError(f"{what}: range [{lo}, {hi}) outside a tensor of size {size}")


#: Inside the branches of a select, lanes the condition discards may divide by zero
#: (C evaluates only the chosen branch); their values are computed with divisor 1 instead.
_discarded_lanes = contextvars.ContextVar("_discarded_lanes", default=False)


def _check_divisor(op: str, divisor: Any, dtype: DType) -> None:
    zero = divides(op, dtype) and np.any(np.asarray(divisor) == 0)
    if zero and not _discarded_lanes.get():
        raise UndefinedBehaviour(f"integer {op} by zero")


def _safe(op: str, divisor: Any, dtype: DType) -> Any:
    if divides(op, dtype) and _discarded_lanes.get():
        return np.where(np.asarray(divisor) == 0, 1, divisor)
    return divisor


def eval_cond(c: Cond, env: Mapping[str, Any]) -> Any:
    """Truth value(s) of a condition: a bool, or a bool array for elementwise operands."""
    match c:
        case Cmp(op, l, r):
            x, y = evaluate(l, env), evaluate(r, env)
            return {
                "<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
                "==": np.equal, "!=": np.not_equal,
            }[op](x, y)
        case BoolOp(op, l, r):
            a, b = eval_cond(l, env), eval_cond(r, env)
            return np.logical_and(a, b) if op == "and" else np.logical_or(a, b)
        case NotCond(x):
            return np.logical_not(eval_cond(x, env))
    raise TypeError(f"not a TensIR condition: {c!r}")


def _select(c: Cond, a: Term, b: Term, env: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    cond = eval_cond(c, env)
    token = _discarded_lanes.set(True)
    try:
        return cond, evaluate(a, env), evaluate(b, env)
    finally:
        _discarded_lanes.reset(token)


def _broadcastable(x: np.ndarray, y: np.ndarray) -> bool:
    """A matrix and a vector as long as a row (the vector is broadcast along the rows)."""
    a, b = (x, y) if x.ndim == 2 else (y, x)
    return a.ndim == 2 and b.ndim == 1 and a.shape[1] == b.shape[0]


def evaluate(t: Term, env: Mapping[str, Any]) -> Any:
    """Value of ``t`` where ``env`` maps each free variable name to its value."""
    match t:
        case ScalarVar(name, dtype):
            return _scalar(env[name], dtype)
        case TensorVar(name, dtype):
            return _as_tensor(env[name], dtype)
        case Lit(value, dtype):
            return _scalar(value, dtype)
        case ScalarOp(op, l, r, dtype):
            x, y = evaluate(l, env), evaluate(r, env)
            _check_divisor(op, y, dtype)
            return _scalar(py_binop(op, x, _safe(op, y, dtype), dtype), dtype)
        case ReduceSum(x, dtype):
            v = evaluate(x, env)
            return _scalar(np.sum(v) if v.size else 0, dtype)
        case ReduceProd(x, dtype):
            out: Any = 1.0 if dtype.is_float else 1
            for e in evaluate(x, env).tolist():  # left to right; integers exact (Python ints)
                out = py_binop("*", out, e, dtype)
            return _scalar(out, dtype)
        case ReduceMax(x, dtype):
            v = evaluate(x, env)
            if v.size == 0:
                raise ValueError("reduce_max of an empty tensor")
            return _scalar(np.max(v), dtype)
        case ArgMax(x, compare, last):
            v = evaluate(x, env)
            if v.size == 0:
                raise ValueError("argmax of an empty tensor")
            es = [py_cast(e, compare) for e in v.tolist()]  # compared exactly, in `compare`
            best = 0
            for k in range(1, len(es)):  # C's loop: strict > keeps the first maximum
                if es[k] > es[best] or (last and es[k] == es[best]):
                    best = k
            return best
        case Size(x):
            return int(evaluate(x, env).shape[0])
        case ScalarCast(x, dtype):
            return _scalar(py_cast(evaluate(x, env), dtype), dtype)
        case ScalarApply(fn, x, dtype):
            return _scalar(py_call(fn, evaluate(x, env)), dtype)
        case TensorMap(fn, x, dtype):
            v = evaluate(x, env)
            if not _discarded_lanes.get() and fn in ("sqrt", "log") and np.any(v < 0 if fn == "sqrt" else v <= 0):
                raise UndefinedBehaviour(f"{fn} outside its domain")
            return _as_tensor(np_call(fn, v), dtype)
        case TensorCast(x, dtype):
            return _as_tensor(np_cast(evaluate(x, env), dtype), dtype)
        case Flatten(m):
            return np.asarray(evaluate(m, env)).reshape(-1)
        case Full(n, x):
            length, value = evaluate(n, env), evaluate(x, env)
            if length < 0:
                raise IndexError(f"full: negative length {length}")
            return _as_tensor(np.full(length, value), x.dtype)
        case Iota(start, stop):
            lo, hi = evaluate(start, env), evaluate(stop, env)
            if hi < lo:
                raise IndexError(f"iota: stop {hi} below start {lo}")
            return _as_tensor(np_binop("+", lo, np.arange(hi - lo, dtype=np.int64), DType.INT), DType.INT)
        case Take(x, n):
            v, k = evaluate(x, env), evaluate(n, env)
            _check_range("take", 0, k, v.shape[0])
            return v[:k]
        case Tail(x, n):
            v, k = evaluate(x, env), evaluate(n, env)
            _check_range("tail", k, v.shape[0], v.shape[0])
            return v[k:]
        case Slice(x, lo, hi):
            v, a, b = evaluate(x, env), evaluate(lo, env), evaluate(hi, env)
            _check_range("slice", a, b, v.shape[0])
            return v[a:b]
        case Matrix(x, nr, nc, None):
            v, r, c = evaluate(x, env), evaluate(nr, env), evaluate(nc, env)
            if r < 0 or c < 0:
                raise IndexError(f"matrix: negative shape {r} x {c}")
            _check_range("matrix", 0, r * c, v.shape[0])
            return v[: r * c].reshape(r, c)
        case Matrix(x, nr, nc, stride):
            v, r, c, st = evaluate(x, env), evaluate(nr, env), evaluate(nc, env), evaluate(stride, env)  # type: ignore[arg-type]
            if r < 0 or c < 0 or st < 0:
                raise IndexError(f"matrix: negative shape {r} x {c} or stride {st}")
            if r > 0 and c > 0:
                _check_range("matrix", 0, (r - 1) * st + c, v.shape[0])
            return v[np.arange(r)[:, None] * st + np.arange(c)[None, :]] if r and c else v[:0].reshape(r, c)
        case Transpose(m):
            return evaluate(m, env).T.copy()
        case MatMul(a, b, _, dtype):
            # by its definition, row by row (terms.row): one semantics with the proofs
            n_rows, n_cols = int(evaluate(rows(t), env)), int(evaluate(cols(t), env))
            if n_rows < 0 or n_cols < 0:
                raise IndexError(f"matmul: negative shape {n_rows} x {n_cols}")
            out = [evaluate(row(t, Lit(r, DType.INT)), env) for r in range(n_rows)]
            return _as_tensor(np.stack(out) if out else np.zeros((0, n_cols)), dtype)
        case Stack(var, count, body):
            n_rows = int(evaluate(count, env))
            if n_rows < 0:
                raise IndexError(f"stack: negative count {n_rows}")
            parts = [evaluate(body, {**env, var: r}) for r in range(n_rows)]
            if not is_tensor(body):
                return _as_tensor(np.asarray(parts), body.dtype).reshape(n_rows)
            widths = {p.shape for p in parts}
            if len(widths) > 1 or any(len(w) != 1 for w in widths):
                raise ValueError(f"stack: rows of different shapes {sorted(widths)}")
            if parts:
                return _as_tensor(np.stack(parts), body.dtype)
            try:  # no rows: the row length as a term (it does not depend on the row)
                width = max(int(evaluate(cols(t), {**env, var: 0})), 0)
            except (IndexError, ValueError, KeyError):
                width = 0
            return _as_tensor(np.zeros((0, width)), body.dtype)
        case Strided(x, a0, n, step):
            v, a, c, st = evaluate(x, env), evaluate(a0, env), evaluate(n, env), evaluate(step, env)
            if a < 0 or c < 0 or st < 0:
                raise IndexError(f"strided: negative start {a}, count {c} or step {st}")
            if c > 0:
                _check_range("strided", a, a + (c - 1) * st + 1, v.shape[0])
            return v[a + np.arange(c) * st]
        case ReduceRows(x, dtype, kind):
            m = evaluate(x, env)
            if m.ndim != 2:
                raise ValueError("reduce_rows of a tensor that is not 2-D")
            if kind == "max":
                if m.shape[1] == 0 and m.shape[0] > 0:
                    raise ValueError("reduce_rows(max) of empty rows")
                return _as_tensor(np.max(m, axis=1, initial=0) if m.shape[1] == 0 else np.max(m, axis=1), dtype)
            return _as_tensor(np.sum(m, axis=1), dtype)
        case TensorTensor(op, l, r, dtype):
            x, y = evaluate(l, env), evaluate(r, env)
            if x.shape != y.shape and not _broadcastable(x, y):
                raise ValueError(f"tensor_tensor on shapes {x.shape} and {y.shape}")
            _check_divisor(op, y, dtype)
            y = _safe(op, y, dtype)
            return _as_tensor(np_binop(op, _as_tensor(x, dtype), _as_tensor(y, dtype), dtype), dtype)
        case TensorScalar(op, x, s, scalar_left, dtype):
            v = _as_tensor(evaluate(x, env), dtype)
            c = _as_tensor(evaluate(s, env), dtype)
            a, b = (c, v) if scalar_left else (v, c)
            if v.size:  # a broadcast divisor is used only if there are elements to divide
                _check_divisor(op, b, dtype)
            return _as_tensor(np_binop(op, a, _safe(op, b, dtype), dtype), dtype)
        case ScalarSelect(c, a, b, dtype):
            # like C's ?:, only the chosen operand is evaluated
            return _scalar(evaluate(a if bool(eval_cond(c, env)) else b, env), dtype)
        case TensorSelect(c, a, b, dtype):
            cond, x, y = _select(c, a, b, env)
            return _as_tensor(np.where(cond, _as_tensor(x, dtype), _as_tensor(y, dtype)), dtype)
    raise TypeError(f"not a TensIR term: {t!r}")
