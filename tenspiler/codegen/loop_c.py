"""The kernel's own loops as C text, printed from the loop IR.

A generated C entry (``lift --to gemmini``) takes the kernel's C parameters and cannot raise
an error. Outside the proof's trip-count and shape preconditions
(:mod:`tenspiler.codegen.preconditions`) C is still defined — a loop whose bound is below its
start runs zero times — while the summary is not (``take(A, m * n)`` with ``m = n = -1``
reads one element). There the entry runs these statements instead: the kernel as the
frontend read it (C's conversions explicit, helpers inlined, ``if`` converted to ``?:``), so
it does what the original does.

Types: each local is declared with its dtype's C type (``int`` as ``int_type``: ``long long``
for a Python kernel, whose integers are unbounded); literals of ``float`` type get the ``f``
suffix; ``float`` math calls are the ``f``-suffixed functions. The Python frontend's floor
division and modulo on integers use ``tsp_floordiv`` / ``tsp_floormod`` of
:func:`tenspiler.codegen.c_host.prelude`.
"""

from __future__ import annotations

import math
from typing import assert_never

from tenspiler.loops.ir import (
    Assign,
    Binary,
    Call,
    Cast,
    Compare,
    Cond,
    Const,
    DType,
    Expr,
    For,
    Function,
    Load,
    Logical,
    Not,
    Return,
    Select,
    Stmt,
    Store,
    Unary,
    Var,
)

__all__ = ["function_body_c"]


def function_body_c(fn: Function, ret_type: str | None, int_type: str = "int") -> list[str]:
    """Lines of C (without indentation of their own beyond nesting) declaring ``fn``'s
    locals and running its body; they end with a ``return`` (of ``ret_type``, or a bare one
    for ``None``: a void function)."""
    p = _Printer(fn, int_type)
    params = {q.name for q in fn.params}
    lines = [f"{p.ctype(d)} {name};" for name, d in fn.locals if name not in params]
    for s in fn.body:
        lines += p.stmt(s, ret_type)
    if not fn.body or not isinstance(fn.body[-1], Return):
        lines.append("return;")
    return lines


class _Printer:
    def __init__(self, fn: Function, int_type: str) -> None:
        self.fn, self.int_type = fn, int_type

    def ctype(self, d: DType) -> str:
        return self.int_type if d == DType.INT else d.c_name

    def stmt(self, s: Stmt, ret_type: str | None) -> list[str]:
        match s:
            case Assign(target, value):
                return [f"{target} = {self.expr(value)};"]
            case Store(array, index, value):
                return [f"{array}[{self.expr(index)}] = {self.expr(value)};"]
            case For(var, start, stop, body, _, descending):
                inner = [line for b in body for line in self.stmt(b, ret_type)]
                header = (f"for ({var} = ({self.expr(stop)}) - 1; {var} >= {self.expr(start)}; {var}--) {{"
                          if descending else f"for ({var} = {self.expr(start)}; {var} < {self.expr(stop)}; {var}++) {{")
                return [
                    header,
                    *(f"    {line}" for line in inner),
                    "}",
                ]
            case Return(value):
                if value is None or ret_type is None:
                    return ["return;"]
                return [f"return ({ret_type})({self.expr(value)});"]
            case _:
                assert_never(s)

    def expr(self, e: Expr) -> str:
        match e:
            case Const(value, d):
                return _literal(value, d)
            case Var(name):
                return name
            case Load(array, index):
                return f"{array}[{self.expr(index)}]"
            case Unary(_, x):
                return f"(-{self.expr(x)})"
            case Binary(op, left, right, d):
                a, b = self.expr(left), self.expr(right)
                if op == "pow" and not d.is_float:  # pow(2, k) of a run-time shift count
                    return f"((long long) 1 << ({b}))"
                if op == "pow":
                    return f"pow{'f' if d == DType.FLOAT else ''}({a}, {b})"
                if op in ("+", "-", "*", "/", "%"):
                    return f"({a} {op} {b})" if op != "%" or not d.is_float else f"fmod({a}, {b})"
                if not d.is_float:
                    return f"tsp_floordiv({a}, {b})" if op == "//" else f"tsp_floormod({a}, {b})"
                floor = f"floor({a} / {b})"  # Python's // and % on reals
                return floor if op == "//" else f"({a} - {b} * {floor})"
            case Cast(x, d):
                return f"(({self.ctype(d)})({self.expr(x)}))"
            case Select(cond, then, other):
                return f"({self.cond(cond)} ? {self.expr(then)} : {self.expr(other)})"
            case Call(func, arg, d):
                return f"{func}{'f' if d == DType.FLOAT else ''}({self.expr(arg)})"
        raise TypeError(f"not a loop-IR expression: {e!r}")

    def cond(self, c: Cond) -> str:
        match c:
            case Compare(op, left, right):
                return f"({self.expr(left)} {op} {self.expr(right)})"
            case Logical(op, left, right):
                return f"({self.cond(left)} {op} {self.cond(right)})"
            case Not(x):
                return f"(!{self.cond(x)})"
        raise TypeError(f"not a loop-IR condition: {c!r}")


def _literal(value: int | float, d: DType) -> str:
    if not d.is_float:
        v = int(value)
        text = str(v) if -(2**31) < v < 2**31 else f"{v}LL"
        return f"({text})" if v < 0 else text
    f = float(value)
    if math.isnan(f):
        return "((float)NAN)" if d == DType.FLOAT else "((double)NAN)"
    if math.isinf(f):
        text = "INFINITY" if f > 0 else "(-INFINITY)"
        return f"((float){text})" if d == DType.FLOAT else f"((double){text})"
    return f"({f.hex()}{'f' if d == DType.FLOAT else ''})"
