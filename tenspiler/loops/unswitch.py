"""Loop unswitching (Allen & Kennedy, *Optimizing Compilers for Modern Architectures*, 2001,
§7.2.2): a select inside a loop on a condition of the parameters' entry values is decided
once, before the loops, by splitting the function into two paths.

Shipped code chooses an element function by a parameter inside the loop, the choice inlined
from a helper's ``switch``::

    void activate_array(float *x, const int n, const ACTIVATION a) {
        for (i = 0; i < n; ++i) x[i] = activate(x[i], a);   // switch (a) { case LINEAR: … }
    }

The loop IR holds one chain of selects ``a == 3 ? x[i] : (a == 0 ? 1/(1 + exp(-x[i])) : …)``
per element, a summary no search finds in one piece. :func:`unswitched` returns the
function as a :class:`~tenspiler.loops.ir.PathSplit` on the outermost such condition ``c``,
recursively (a chain of selects becomes a chain of paths): the path where ``c`` holds is the function with every select on
``c`` replaced by its then-branch (and every select on ``!c`` by its else-branch), the other
path the reverse; each path states its condition among its
:attr:`~tenspiler.loops.ir.Function.requires`, as the frontend's paths do
(:func:`tenspiler.frontend.c_stmts.lower_paths`), and the pipeline proves each path on its
own. Exact: ``c`` reads only scalar parameters the function never assigns, so it has one
value during the whole call, and it cannot trap (no array read, call, division or
conversion of a float), so deciding it before the loops — also when they run zero times —
evaluates nothing C would not.

:func:`tenspiler.pipeline.lift_parsed` lifts the paths only when the function as written is
not lifted (so no verdict of a function that lifts as written changes); at most
:data:`MAX_PATHS` paths. darknet's ``activate_array`` (a ``switch`` of 14 activations
inlined into the loop) splits into 15 paths; the first eleven verify, the ``stair``
activation's (``(int) floor(x) % 2``) proof reaches the safety net.
"""

from __future__ import annotations

from dataclasses import replace

from tenspiler.loops.counters import TRAPPING_OPS
from tenspiler.loops.ir import (
    Binary,
    Call,
    Cast,
    Cond,
    Const,
    DType,
    Expr,
    For,
    Function,
    Load,
    Not,
    PathSplit,
    Select,
    Var,
    all_stmts,
    assigned_scalars,
    map_stmt_exprs,
    stmt_expressions,
    subexpressions,
)

__all__ = ["MAX_PATHS", "unswitched"]

#: The most paths one function is unswitched into (each is analysed and proved on its own).
MAX_PATHS = 16


def unswitched(fn: Function) -> Function | None:
    """``fn`` split into paths on the loop-invariant conditions of its selects (module
    docstring), or ``None`` when it has none or would need more than :data:`MAX_PATHS`
    paths."""
    if fn.split is not None:
        return None
    entry = {p.name for p in fn.scalars} - assigned_scalars(fn.body)
    if _condition(fn, entry) is None:
        return None
    paths = [0]
    out = _split(fn, entry, paths)
    return out if paths[0] <= MAX_PATHS else None


def _split(fn: Function, entry: set[str], paths: list[int]) -> Function:
    c = _condition(fn, entry)
    if c is None or paths[0] > MAX_PATHS:
        paths[0] += 1
        return fn
    arms = []
    for value in (True, False):
        def decide(e: Expr, v: bool = value, c: Cond = c) -> Expr:
            return _decided(e, c, v)

        arm = replace(fn, body=tuple(map_stmt_exprs(s, decide) for s in fn.body))
        held: Cond = c if value else Not(c, c.loc)
        flag = Select(held, Const(1, DType.INT, c.loc), Const(0, DType.INT, c.loc), DType.INT, c.loc)
        line = f" at line {c.loc.line}" if c.loc is not None else ""
        arm = replace(arm, requires=(*arm.requires, (Const(1, DType.INT, c.loc), flag,
                                                     f"the path condition of the select{line} holds ({'' if value else 'not '}taken)")))
        arms.append(_split(arm, entry, paths))
    return replace(fn, body=(), requires=(), split=PathSplit(c, arms[0], arms[1], c.loc))


def _decided(e: Expr, c: Cond, value: bool) -> Expr:
    """``e`` (rebuilt bottom-up) with a select on ``c`` (or on ``!c``) replaced by the branch
    ``c``'s ``value`` takes."""
    if isinstance(e, Select):
        if e.cond == c:
            return e.then if value else e.else_
        if isinstance(e.cond, Not) and e.cond.operand == c:
            return e.else_ if value else e.then
    return e


def _condition(fn: Function, entry: set[str]) -> Cond | None:
    """The condition of the outermost select (the first statement's first) inside a loop that
    reads only parameters in ``entry``, at least one, and cannot trap."""
    for st in all_stmts(fn.body):
        if not isinstance(st, For):
            continue
        for inner in st.body:
            for e in stmt_expressions(inner) if not isinstance(inner, For) else []:
                for x in reversed(subexpressions(e)):  # (outermost first: a chain splits into a chain)
                    if isinstance(x, Select):
                        c = x.cond.operand if isinstance(x.cond, Not) else x.cond
                        if _invariant(c, entry):
                            return c
    return None


def _invariant(c: Cond, entry: set[str]) -> bool:
    flag = Select(c, Const(1, DType.INT), Const(0, DType.INT), DType.INT)
    names: set[str] = set()
    for x in subexpressions(flag):
        if isinstance(x, Load | Call) or (isinstance(x, Binary) and x.op in TRAPPING_OPS):
            return False
        if isinstance(x, Cast) and x.operand.dtype in (DType.FLOAT, DType.DOUBLE):
            return False
        if isinstance(x, Var):
            names.add(x.name)
    return bool(names) and names <= entry

