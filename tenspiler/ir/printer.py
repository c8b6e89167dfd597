"""TensIR text in the paper's concrete syntax (Fig. 2), e.g.
``tensor_tensor(take(a, n), take(b, n), +)``. Golden-tested."""

from __future__ import annotations

import numpy as np

from tenspiler.ir.terms import (
    ArgMax,
    ArrayOutput,
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
    Output,
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
    cols,
    rank,
)
from tenspiler.loops.ir import DType


def stack_name(var: str) -> str:
    """The name a :class:`~tenspiler.ir.terms.Stack`'s bound variable is printed with (its
    loop counter's: ``$s:j`` is ``j``)."""
    return var.removeprefix("$s:")


def show(t: Term) -> str:
    match t:
        case ScalarVar(name) | TensorVar(name):
            return stack_name(name)
        case Lit(v, dtype):
            if isinstance(v, float) and dtype == DType.FLOAT:
                # a float literal holds a float32 value: its shortest float32 spelling
                return str(np.float32(v))
            return repr(v) if isinstance(v, float) else str(v)
        case ScalarOp("pow", l, r):
            return f"pow({show(l)}, {show(r)})"
        case ScalarOp(op, l, r):
            return f"({show(l)} {op} {show(r)})"
        case ReduceSum(x):
            return f"reduce_sum({show(x)})"
        case ReduceProd(x):
            return f"reduce_prod({show(x)})"
        case ReduceMax(x):
            return f"reduce_max({show(x)})"
        case ArgMax(x, _, last):
            return f"{'argmax_last' if last else 'argmax'}({show(x)})"
        case Size(x):
            return f"size({show(x)})"
        case ScalarCast(x, d) | TensorCast(x, d):
            return f"cast({show(x)}, {d.value})"
        case ScalarApply(fn, x):
            return f"{fn}({show(x)})"
        case TensorMap(fn, x):
            return f"map({fn}, {show(x)})"
        case ScalarSelect(c, a, b) | TensorSelect(c, a, b):
            return f"select({show_cond(c)}, {show(a)}, {show(b)})"
        case Matrix(x, r, c, None):
            return f"matrix({show(x)}, {show(r)}, {show(c)})"
        case Matrix(x, r, c, stride):
            return f"matrix({show(x)}, {show(r)}, {show(c)}, {show(stride)})"  # type: ignore[arg-type]
        case Transpose(m):
            return f"transpose({show(m)})"
        case Strided(x, a0, n, step):
            return f"strided({show(x)}, {show(a0)}, {show(n)}, {show(step)})"
        case ReduceRows(x, _, kind):
            return f"reduce_rows({show(x)})" if kind == "sum" else f"reduce_rows_max({show(x)})"
        case Flatten(m):
            return f"flatten({show(m)})"
        case MatMul(a, b):
            return f"matmul({show(a)}, {show(b)})"
        case Stack(var, n, body):
            return f"stack({stack_name(var)} < {show(n)}: {show(body)})"
        case Full(n, v):
            return f"full({show(n)}, {show(v)})"
        case Iota(a, b):
            return f"iota({show(a)}, {show(b)})"
        case Take(x, n):
            return f"take({show(x)}, {show(n)})"
        case Tail(x, n):
            return f"tail({show(x)}, {show(n)})"
        case Slice(x, lo, hi):
            return f"slice({show(x)}, {show(lo)}, {show(hi)})"
        case TensorTensor(op, l, r):
            return f"tensor_tensor({show(l)}, {show(r)}, {op})"
        case TensorScalar(op, x, s, left):
            return (
                f"scalar_tensor({show(s)}, {show(x)}, {op})"
                if left
                else f"tensor_scalar({show(x)}, {show(s)}, {op})"
            )
    raise TypeError(f"not a TensIR term: {t!r}")


def show_cond(c: Cond) -> str:
    match c:
        case Cmp(op, l, r):
            return f"{show(l)} {op} {show(r)}"
        case BoolOp(op, l, r):
            return f"({show_cond(l)} {op} {show_cond(r)})"
        case NotCond(x):
            return f"not ({show_cond(x)})"
    raise TypeError(f"not a TensIR condition: {c!r}")


def show_output(o: Output) -> str:
    match o:
        case ArrayOutput(array, lo, hi, value, None):
            return f"{array}[{show(lo)}:{show(hi)}] = {show(value)}"
        case ArrayOutput(array, lo, hi, value, step) if step is not None and rank(value) == 2:
            return f"{array}[{show(lo)}:{show(hi)}].rows({show(step)})[:, :{show(cols(value))}] = {show(value)}"
        case ArrayOutput(array, lo, hi, value, step):
            assert step is not None
            return f"{array}[{show(lo)}:{show(hi)}:{show(step)}] = {show(value)}"
        case ScalarOutput(name, value):
            return f"{name} = {show(value)}"
    raise TypeError(o)


def show_summary(ps: ProgramSummary) -> str:
    pre = [f"assume {show(a)} == {show(b)}" for a, b in ps.preconditions]
    return "\n".join([*pre, *(show_output(o) for o in ps.outputs)])
