"""Recognisers of loop-carried scalar updates: which reduction a scalar's one-iteration
update ``x' = update(x, …)`` is — a running maximum or minimum (``x = F > x ? F : x`` in any
spelling), the index of an extremum (``if (F > m) { m = F; best = i; }``), a running product
(``x *= F``) or an accumulation (``x += F``) — and its per-iteration value ``F``.

They read the update after the search-only simplifications (:mod:`tenspiler.loops.simplify`):
a wrong recognition can only make the synthesizer propose a wrong candidate, which the proof
then rejects (verification conditions are built from the unsimplified transition relation).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from tenspiler.errors import NotLiftable
from tenspiler.loops.ir import (
    Binary,
    Cast,
    CmpOpName,
    Compare,
    Cond,
    Const,
    DType,
    Expr,
    Not,
    Select,
    Unary,
    Var,
)
from tenspiler.loops.simplify import simplify
from tenspiler.vc.kernel import ScalarTarget
from tenspiler.vc.symexec import cond_exprs, loads, reads


def maximum_part(s: ScalarTarget) -> Expr | None:
    """``F`` when the update is a running maximum ``x = F > x ? F : x`` (any of the
    equivalent spellings, after the search-only simplifications), else ``None``."""
    return _extremum_part(s, bigger=True)


def minimum_part(s: ScalarTarget) -> Expr | None:
    """``F`` when the update is a running minimum ``x = F < x ? F : x`` (any of the
    equivalent spellings, after the search-only simplifications), else ``None``."""
    return _extremum_part(s, bigger=False)


def _comparison(c: Cond, widen: bool = True) -> tuple[CmpOpName, Expr, Expr] | None:
    """``(op, left, right)`` of a comparison or of a negated one (``!(m >= a[i])`` is
    ``m < a[i]``: the model's values are the integers and the reals); ``widen``: with the
    integer promotions of narrow operands looked through (:func:`_widened`)."""
    w = _widened if widen else (lambda e: e)
    match c:
        case Compare(op, left, right):
            return op, w(left), w(right)
        case Not(Compare(op, left, right)):
            return _NEGATED[op], w(left), w(right)
    return None


def _widened(e: Expr) -> Expr:
    """``x`` for ``(int) x`` of a narrow integer ``x`` (the integer promotion of a compared
    ``int8_t`` / ``uint16_t`` value keeps it), else ``e``."""
    if isinstance(e, Cast) and e.dtype == DType.INT and e.operand.dtype.int_range is not None:
        return e.operand
    return e


def _extremum_part(s: ScalarTarget, bigger: bool) -> Expr | None:
    """``F`` of ``x = F ⋈ x ? F : x`` keeping the larger (``bigger``) or the smaller value."""
    u = simplify(s.update)
    x = Var(s.name, s.dtype)
    if not isinstance(u, Select):
        return None
    # the comparison as written first (``(int) img[i] < m`` stores ``(int) img[i]``), then with
    # the promotions of narrow operands looked through (``int8_t`` values compared as ``int``)
    for widen in (False, True):
        cmp = _comparison(u.cond, widen)
        if cmp is None:
            return None
        op, lhs, rhs = cmp
        a, b = u.then, u.else_
        greater = (">", ">=") if bigger else ("<", "<=")
        less = ("<", "<=") if bigger else (">", ">=")
        for f, here in ((lhs, rhs), (rhs, lhs)):
            if here != x or x.name in reads(f):
                continue
            f_first = f is lhs  # condition is "F op x"
            keeps_f = op in greater if f_first else op in less
            if keeps_f and a == f and b == x:
                return f
            if not keeps_f and op in ("<", "<=", ">", ">=") and a == x and b == f:
                return f
    return None


@dataclass(frozen=True)
class ArgExtremum:
    """The update ``best = F ⋈ m ? i : best`` of an index scalar ``best`` that follows a
    running maximum or minimum ``m`` of the same ``F`` (``if (a[i] > m) { m = a[i]; best = i; }``).

    Attributes:
        extremum: the running extremum's scalar ``m``.
        value: ``F``.
        bigger: ``m`` keeps the maximum (else the minimum).
        last: ties move ``best`` (``>=``/``<=``: the last extremal index), else the first.
        index: what ``best`` stores: the counter ``i``, or a function of it and of values
            the loop does not change (``n - c`` for an original count-down counter ``c``
            the kernel analysis expressed by the canonical one, ``kernel._ascending``).
    """

    extremum: ScalarTarget
    value: Expr
    bigger: bool
    last: bool
    index: Expr


_NEGATED: dict[CmpOpName, CmpOpName] = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
_FLIPPED: dict[CmpOpName, CmpOpName] = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def arg_extremum_part(s: ScalarTarget, scalars: tuple[ScalarTarget, ...], counter: str) -> ArgExtremum | None:
    """The :class:`ArgExtremum` of ``s`` when its update stores the loop ``counter`` under the
    condition that ``F`` beats (or ties with) a running extremum of ``F`` (any of the
    equivalent spellings, after the search-only simplifications), else ``None``."""
    u = simplify(s.update)
    x = Var(s.name, s.dtype)
    if not isinstance(u, Select) or (cmp := _comparison(u.cond)) is None or s.dtype != DType.INT:
        return None
    op, lhs, rhs = cmp
    if u.else_ == x:
        idx = u.then
    elif u.then == x:
        idx, op = u.else_, _NEGATED[op]
    else:
        return None
    if counter not in reads(idx) or reads(idx) & {m.name for m in scalars} or loads(idx):
        return None  # (an index reading the counter and loop-invariant scalars only)
    for m in scalars:
        if m.name == s.name:
            continue
        mv = Var(m.name, m.dtype)
        for bigger, f in ((True, maximum_part(m)), (False, minimum_part(m))):
            if f is None:
                continue
            if lhs == f and rhs == mv:
                o = op
            elif rhs == f and lhs == mv:
                o = _FLIPPED[op]
            else:
                continue
            strict, tie = (">", ">=") if bigger else ("<", "<=")
            if o in (strict, tie):
                return ArgExtremum(m, f, bigger, o == tie, idx)
    return None


def product_part(s: ScalarTarget) -> Expr | None:
    """``F`` when the update is a running product ``x = x * F`` or ``x = F * x`` (``F`` not
    reading ``x``, after the search-only simplifications), else ``None``. A guarded product
    ``if (c) x *= F`` is the product of ``c ? F : 1``."""
    u = simplify(s.update)
    x = Var(s.name, s.dtype)

    def factor(e: Expr) -> Expr | None:
        if isinstance(e, Binary) and e.op == "*":
            for own, f in ((e.left, e.right), (e.right, e.left)):
                if own == x and s.name not in reads(f):
                    return f
        return None

    if isinstance(u, Select) and not any(s.name in reads(c) for c in cond_exprs(u.cond)):
        for kept, moved, keep_when_true in ((u.else_, u.then, False), (u.then, u.else_, True)):
            f = factor(moved)
            if kept == x and f is not None:
                one = Const(1.0 if f.dtype.is_float else 1, f.dtype, f.loc)
                return Select(u.cond, one, f, f.dtype, u.loc) if keep_when_true else Select(u.cond, f, one, f.dtype, u.loc)
    return factor(u)


def _select_of_accumulations(update: Expr, name: str, dtype: DType, own_var: Callable[[Expr], bool]) -> Expr:
    """``c ? x ± F1 : x ± F2`` (an if-converted ``if (c) x += F1; else x -= F2;``) of a float
    accumulator ``x`` as ``x + (c ? ±F1 : ±F2)``: the same value (IEEE 754 §5.4.1 / C11
    §6.5.6: ``x - F`` is ``x + (-F)`` exactly, negation being exact), an accumulation of a
    select; ``update`` unchanged otherwise (integers: the ranges of the terms would change)."""
    if not dtype.is_float or not isinstance(update, Select) or update.dtype != dtype:
        return update

    def split(e: Expr) -> Expr | None:
        """``±F`` of ``x ± F`` (any +/- chain with one ``x`` under a ``+``), else ``None``."""
        terms: list[tuple[int, Expr]] = []

        def flatten(t: Expr, sign: int) -> None:
            if isinstance(t, Binary) and t.op in ("+", "-"):
                flatten(t.left, sign)
                flatten(t.right, sign if t.op == "+" else -sign)
            else:
                terms.append((sign, t))

        flatten(e, 1)
        own = [n for n, (_, t) in enumerate(terms) if own_var(t)]
        rest = [(sg, t) for n, (sg, t) in enumerate(terms) if n not in own]
        if len(own) != 1 or terms[own[0]][0] != 1 or not rest or any(name in reads(t) for _, t in rest):
            return None
        sg, out = rest[0]
        acc: Expr = out if sg == 1 else Unary("-", out, out.dtype, out.loc)
        for sg, t in rest[1:]:
            acc = Binary("+" if sg == 1 else "-", acc, t, e.dtype, e.loc)
        return acc

    then, else_ = split(update.then), split(update.else_)
    if then is None or else_ is None or any(name in reads(e) for e in cond_exprs(update.cond)) or \
            then.dtype != else_.dtype:
        return update
    x = Var(name, dtype, update.loc)
    return Binary("+", x, Select(update.cond, then, else_, then.dtype, update.loc), update.dtype, update.loc)


def reduction_parts(s: ScalarTarget) -> tuple[Literal["+", "-"], Expr]:
    """Split an accumulator update ``x = x ± F`` (any association of a +/- chain with one
    ``x`` under a ``+``) into the sign and ``F``."""
    terms: list[tuple[int, Expr]] = []

    def flatten(e: Expr, sign: int) -> None:
        match e:
            case Binary("+", l, r):
                flatten(l, sign)
                flatten(r, sign)
            case Binary("-", l, r):
                flatten(l, sign)
                flatten(r, -sign)
            case _:
                terms.append((sign, e))

    wrap = accumulation_wrap(s)
    update = simplify(s.update)
    wrapped = _wrapped_sum(s)
    if wrapped is not None:
        update = wrapped.operand
    # `float s; s += pow(..)`: C computes s + F in double and rounds the sum back to float
    # at every step; real-to-real conversions are exact in the real-number model
    # (semantics.py_cast), so the update is s + (float)F there
    narrowed = (s.dtype.is_float and isinstance(update, Cast) and update.dtype == s.dtype
                and update.operand.dtype.is_float and isinstance(update.operand, Binary)
                and update.operand.op in ("+", "-"))
    if narrowed:
        assert isinstance(update, Cast)
        update = update.operand

    def own_var(t: Expr) -> bool:
        if isinstance(t, Cast) and t.dtype == DType.INT and t.operand.dtype.int_range is not None:
            t = t.operand  # the promotion of a ranged accumulator (value-preserving)
        if narrowed and isinstance(t, Cast) and t.dtype.is_float:
            t = t.operand  # float promoted to double (exact)
        return isinstance(t, Var) and t.name == s.name

    update = _select_of_accumulations(update, s.name, s.dtype, own_var)
    flatten(update, 1)
    own = [i for i, (_, t) in enumerate(terms) if own_var(t)]
    if len(own) != 1 or terms[own[0]][0] != 1:
        u = simplify(s.update)
        if wrap is not None:
            raise NotLiftable(
                f"the update of '{s.name}' is not an accumulation '{s.name} += …' (a reduction, here reduced "
                f"modulo 2^{wrap.bits} to {_c_name(wrap)} at every step)", s.update.loc)
        if isinstance(u, Cast) and u.dtype == s.dtype and s.name in reads(u.operand):
            # `unsigned char s += a[i]`, `float s += exp(..)`: C computes s + F in a wider type
            # and converts the sum back to s's type at every step (a wrap or a rounding)
            raise NotLiftable(
                f"the update of '{s.name}' converts the sum back to {_c_name(s.dtype)} at every step (C computes "
                f"'{s.name} + …' in {_c_name(u.operand.dtype)}): a narrowing accumulation is not supported yet",
                s.update.loc,
            )
        raise NotLiftable(
            f"the update of '{s.name}' is not an accumulation '{s.name} += …' (a reduction)",
            s.update.loc,
        )
    rest = [t for i, t in enumerate(terms) if i != own[0]]
    if not rest:
        raise NotLiftable(f"'{s.name}' is assigned to itself", s.update.loc)
    # F = ±t1 ± t2 …, factored so the overall sign is the first term's
    sign0 = rest[0][0]
    f = rest[0][1]
    for sg, t in rest[1:]:
        f = Binary("+" if sg == sign0 else "-", f, t, DType.INT if wrap is not None else f.dtype if narrowed else s.dtype,
                   s.update.loc)
    if narrowed and f.dtype != s.dtype:
        f = Cast(f, s.dtype, s.update.loc)
    return ("+" if sign0 == 1 else "-"), f


def accumulation_wrap(s: ScalarTarget) -> DType | None:
    """The ranged integer type of an accumulator whose update ``s = (T)(s ± F)`` reduces
    the integer sum modulo 2ⁿ at every step (``unsigned int s; s += x[i]``: C computes
    ``s + x[i]`` and converts it back, C11 §6.3.1.3). Reduction modulo 2ⁿ commutes with
    ``+`` and ``-``, so the final value is the whole sum reduced once: ``(T)(s0 ± ΣF)``."""
    u = _wrapped_sum(s)
    return None if u is None else u.dtype


def _wrapped_sum(s: ScalarTarget) -> Cast | None:
    """The conversion ``(T)(s ± F)`` of :func:`accumulation_wrap`, also as the frontend
    writes it for an ``unsigned int`` scalar kept as a (mathematical) INT: ``(int)(T)(s ±
    F)``, the reduction into ``T``'s range converted back without change."""
    u = simplify(s.update)
    if isinstance(u, Cast) and s.dtype == DType.INT and u.dtype == DType.INT and isinstance(u.operand, Cast):
        u = u.operand  # (int)(uint32)(s + F): value-preserving outer conversion
    if (isinstance(u, Cast) and u.dtype.int_range is not None and s.dtype in (u.dtype, DType.INT)
            and u.operand.dtype == DType.INT and isinstance(u.operand, Binary) and u.operand.op in ("+", "-")):
        return u
    return None


def _c_name(d: DType) -> str:
    """A dtype as C spells it (for messages)."""
    return d.c_name if d.int_range is not None else d.value


def stores_counter(s: ScalarTarget, counter: str) -> bool:
    """Whether ``s``'s update is a select one of whose branches is the loop ``counter``
    (an index kept under a condition: an argmax, or a shape close to one)."""
    u = simplify(s.update)
    return isinstance(u, Select) and Var(counter, DType.INT) in (u.then, u.else_)
