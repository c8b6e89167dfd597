"""Boolean and select simplification of per-iteration values, for synthesis only.

If-conversion in the frontend turns ``if (c) x = a; else x = b;`` into a flag
``f = c ? 1 : 0`` and guarded selects ``x = f != 0 ? a : x; x = f == 0 ? b : x``. The
expression tree extracted from that is needlessly deep (and its constant holes invite odd
candidates). These rewrites recover ``c ? a : b`` *for the search only*: verification
conditions are always built from the unsimplified transition relation, so a wrong rule
could only cost a failed proof, never a wrong "verified". Each rule is nevertheless checked
with z3 in ``tests/test_simplify.py``.

Rules (``c`` a condition, ``a, b, x`` expressions):

* ``(c ? 1 : 0) != 0  →  c``  and  ``(c ? 1 : 0) == 0  →  !c``
* ``!!c  →  c``
* ``!c ? a : b  →  c ? b : a``
* ``c ? (c ? a : x) : b  →  c ? a : b``  and  ``c ? a : (c ? x : b)  →  c ? a : b``
* ``c ? x ± f : x  →  x ± (c ? f : 0)``  and  ``c ? x : x ± f  →  x ± (c ? 0 : f)``
  (a conditional accumulation is an accumulation of a select)
* ``c ? a : b  →  c ? a[c := true] : b[c := false]``: inside a branch, the branch's
  condition (and its negation, and ``&&``/``||`` built from it) is known, so nested
  selects on it collapse (nested ``if``/``else`` chains that re-test a flag)
"""

from __future__ import annotations

from typing import assert_never

from tenspiler.loops.ir import (
    Binary,
    Call,
    Cast,
    Compare,
    Cond,
    Const,
    Expr,
    Load,
    Logical,
    Not,
    Select,
    Unary,
    Var,
)


def _flag_of(e: Expr) -> Cond | None:
    """``c`` when ``e`` is ``c ? 1 : 0``."""
    if (
        isinstance(e, Select)
        and isinstance(e.then, Const) and e.then.value == 1
        and isinstance(e.else_, Const) and e.else_.value == 0
    ):
        return e.cond
    return None


def simplify_cond(c: Cond) -> Cond:
    match c:
        case Compare(op, l, r, loc):
            sl, sr = simplify(l), simplify(r)
            flag = _flag_of(sl)
            if flag is not None and isinstance(sr, Const) and sr.value == 0 and op in ("!=", "=="):
                return flag if op == "!=" else simplify_cond(Not(flag, loc))
            return Compare(op, sl, sr, loc)
        case Logical(op, l, r, loc):
            return Logical(op, simplify_cond(l), simplify_cond(r), loc)
        case Not(x, loc):
            inner = simplify_cond(x)
            if isinstance(inner, Not):
                return inner.operand
            return Not(inner, loc)
        case _:
            assert_never(c)


def assume(e: Expr, c: Cond, value: bool) -> Expr:
    """``e`` with condition ``c`` known to be ``value``: selects on ``c`` (or on
    conditions built from it with ``!``, ``&&``, ``||``) that become decided collapse."""

    def cond(x: Cond) -> Cond | bool:
        if x == c:
            return value
        match x:
            case Not(y, loc):
                r = cond(y)
                return (not r) if isinstance(r, bool) else Not(r, loc)
            case Logical(op, left, right, loc):
                a, b = cond(left), cond(right)
                absorbing = op == "||"  # True absorbs ||, False absorbs &&
                if a is absorbing or b is absorbing:
                    return absorbing
                if isinstance(a, bool):
                    return b
                if isinstance(b, bool):
                    return a
                return Logical(op, a, b, loc)
            case Compare(op, left, right, loc):
                return Compare(op, go(left), go(right), loc)
            case _:
                assert_never(x)

    def go(x: Expr) -> Expr:
        match x:
            case Const() | Var():
                return x
            case Load(a, i, d, loc):
                return Load(a, go(i), d, loc)
            case Unary(op, y, d, loc):
                return Unary(op, go(y), d, loc)
            case Binary(op, left, right, d, loc):
                return Binary(op, go(left), go(right), d, loc)
            case Cast(y, d, loc):
                return Cast(go(y), d, loc)
            case Call(f, y, d, loc):
                return Call(f, go(y), d, loc)
            case Select(sc, a, b, d, loc):
                r = cond(sc)
                if r is True:
                    return go(a)
                if r is False:
                    return go(b)
                return Select(r, go(a), go(b), d, loc)
            case _:
                assert_never(x)

    return go(e)


def simplify(e: Expr) -> Expr:
    """The rewrites of the module docstring, bottom-up, to a fixed point per node."""
    match e:
        case Const() | Var():
            return e
        case Load(a, i, d, loc):
            return Load(a, simplify(i), d, loc)
        case Unary(op, x, d, loc):
            return Unary(op, simplify(x), d, loc)
        case Binary(op, l, r, d, loc):
            return Binary(op, simplify(l), simplify(r), d, loc)
        case Cast(x, d, loc):
            return Cast(simplify(x), d, loc)
        case Select(c, a, b, d, loc):
            sc, sa, sb = simplify_cond(c), simplify(a), simplify(b)
            if isinstance(sc, Not):
                sc, sa, sb = sc.operand, sb, sa
            na, nb = assume(sa, sc, True), assume(sb, sc, False)
            if na != sa or nb != sb:
                sa, sb = simplify(na), simplify(nb)
            if isinstance(sa, Select) and sa.cond == sc:
                sa = sa.then
            if isinstance(sb, Select) and sb.cond == sc:
                sb = sb.else_
            zero = Const(0.0 if d.is_float else 0, d, loc)
            for upd, same, upd_first in ((sa, sb, True), (sb, sa, False)):
                if isinstance(upd, Binary) and upd.op in ("+", "-") and upd.left == same and upd.dtype == d:
                    f = upd.right
                    picked = Select(sc, f, zero, d, loc) if upd_first else Select(sc, zero, f, d, loc)
                    return Binary(upd.op, same, picked, d, loc)
            return Select(sc, sa, sb, d, loc)
        case Call(f, x, d, loc):
            return Call(f, simplify(x), d, loc)
        case _:
            assert_never(e)
