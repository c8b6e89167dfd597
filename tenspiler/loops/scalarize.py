"""Scalar replacement of an array element (Carr & Kennedy, "Scalar replacement in the
presence of conditional control flow", SPE 1994): the loop IR with one element kept in a
scalar where a block accumulates into it.

Shipped loop nests accumulate into an output element rather than a local::

    for (i = 0; i < filters; ++i) {
        mean[i] = 0;
        for (j = 0; j < batch; ++j)
            for (k = 0; k < spatial; ++k)
                mean[i] += x[j*filters*spatial + i*spatial + k];
        mean[i] *= scale;
    }

The kernel shapes (``tenspiler.vc``) take a scalar accumulator stored once after the nest,
not stores into the output inside it. :func:`scalar_replaced` rewrites a block that starts
with a store ``A[e] = v`` and in whose rest ``A`` is accessed only at that same element
``e`` — the same expression, whose variables the rest does not assign and which reads no
array — into ``t = v``, the rest with ``A[e]`` read and written as the fresh local ``t``,
and a final ``A[e] = t`` at the end of the block (before its ``return``). Nothing else
reads ``A`` in between, so every read sees the value it saw, and the last value stored into
``A[e]`` is stored: the two programs end in the same state (the model's arrays do not
alias: an assumption the proof states). Only float, double and ``int`` elements (a ranged
type's store wraps: it is left alone).

:func:`tenspiler.vc.analyze.analyze_kernel` uses the rewritten function only when the
function as written is outside every kernel shape, so a kernel that lifts today keeps its
analysis.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from tenspiler.loops.ir import (
    Assign,
    DType,
    Expr,
    For,
    Function,
    Load,
    PointerType,
    Return,
    Stmt,
    Store,
    Var,
    all_stmts,
    assigned_scalars,
    expr_reads,
    map_expr,
    map_stmt_exprs,
    stmt_expressions,
    subexpressions,
)

__all__ = ["scalar_replaced"]

_ELEMENTS = (DType.FLOAT, DType.DOUBLE, DType.INT)


def scalar_replaced(fn: Function) -> Function | None:
    """``fn`` with every eligible array element accumulated in a scalar (module docstring),
    or ``None`` when no block is eligible."""
    names = {n for n, _ in fn.locals} | {p.name for p in fn.params}
    new_locals: list[tuple[str, DType]] = []

    def fresh(array: str) -> str:
        k = 0
        while f"{array}__elem{k}" in names:
            k += 1
        name = f"{array}__elem{k}"
        names.add(name)
        return name

    def block(body: Sequence[Stmt]) -> tuple[Stmt, ...]:
        stmts = [s if not isinstance(s, For) else replace(s, body=block(s.body)) for s in body]
        p = 0
        while p < len(stmts):
            out = _replace_at(fn, stmts, p, fresh)
            if out is not None:
                stmts, local = out
                new_locals.append(local)
            p += 1
        return tuple(stmts)

    body = block(fn.body)
    if not new_locals:
        return None
    return replace(fn, body=body, locals=(*fn.locals, *new_locals))


def _replace_at(
    fn: Function, stmts: list[Stmt], p: int, fresh: Callable[[str], str]
) -> tuple[list[Stmt], tuple[str, DType]] | None:
    first = stmts[p]
    if not isinstance(first, Store) or first.row is not None:
        return None
    array, index = first.array, first.index
    try:
        param = fn.param(array)
    except KeyError:
        return None
    if not isinstance(param.type, PointerType) or param.type.elem not in _ELEMENTS:
        return None
    end = len(stmts)
    if end > p + 1 and isinstance(stmts[-1], Return):
        end -= 1
    rest = stmts[p + 1:end]
    if not any(isinstance(s, For) for s in rest) or _loads(index):
        return None
    if expr_reads(index) & assigned_scalars(rest):
        return None
    if any(isinstance(s, Return) for s in all_stmts(rest)):
        return None
    tail = stmts[end:]
    if any(_touches(s, array) for s in tail):
        return None
    if not all(_only_at(s, array, index) for s in rest):
        return None
    dtype = param.type.elem
    t = fresh(array)
    elem = Var(t, dtype, first.loc)

    def load_to_var(e: Expr) -> Expr:
        return elem if isinstance(e, Load) and e.array == array else e

    def rewrite(s: Stmt) -> Stmt:
        match s:
            case Store(array=a, value=value, loc=loc) if a == array:
                return Assign(t, map_expr(value, load_to_var), loc)
            case For(body=inner):
                return replace(s, body=tuple(rewrite(b) for b in inner), start=map_expr(s.start, load_to_var),
                               stop=map_expr(s.stop, load_to_var))
        return map_stmt_exprs(s, load_to_var)

    new = [*stmts[:p], Assign(t, first.value, first.loc), *(rewrite(s) for s in rest),
           Store(array, index, elem, first.loc), *tail]
    return new, (t, dtype)


def _loads(e: Expr) -> bool:
    return any(isinstance(n, Load) for n in subexpressions(e))


def _touches(s: Stmt, array: str) -> bool:
    return any(
        (isinstance(x, Store) and x.array == array)
        or any(isinstance(n, Load) and n.array == array for e in stmt_expressions(x) for n in subexpressions(e))
        for x in all_stmts([s])
    )


def _only_at(s: Stmt, array: str, index: Expr) -> bool:
    """Every access to ``array`` in ``s`` is a plain ``array[index]``."""
    for x in all_stmts([s]):
        if isinstance(x, Store) and x.array == array and (x.index != index or x.row is not None):
            return False
        for e in stmt_expressions(x):
            for n in subexpressions(e):
                if isinstance(n, Load) and n.array == array and (
                        n.index != index or n.row is not None or n.plane is not None):
                    return False
    return True
