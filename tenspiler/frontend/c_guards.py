"""Early-return argument guards (``if (n <= 0) return;``, ``if (n <= 0) return 0;`` at the
top of a C function): the guard is *redundant* in the loop-IR model when, wherever its
condition ``G`` holds, the rest of the function runs no loop iteration, stores nothing and
returns the guard's value. That is proved with cvc5 (its z3-compatible ``cvc5.pythonic``
API, a deterministic resource limit per query: ``unknown`` is not a proof) over the model's
exact integers (reals for floats, as every proof here) by symbolic execution of the rest's top-level statements:
scalar assignments are substituted, each loop's trip count must be ``<= 0`` under ``G``
(so the scalars it writes keep their values), a store is refused, and the returned value
must equal the guard's. The function is then lowered without the guard: on every input it
computes what the C function computes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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
    Load,
    Logical,
    Not,
    PointerType,
    Return,
    Select,
    Stmt,
    Store,
    Type,
    Unary,
    Var,
)

__all__ = ["RETURNS_OTHER", "redundant_guard", "stores_only_where"]

#: The reason given when only the returned value differs (the caller may then select it).
RETURNS_OTHER = "where its condition holds, the rest of the function does not return its value"


class _Unknown(Exception):
    pass


def stores_only_where(cond: Cond, value: Expr | None, rest: Sequence[Stmt], params: list[tuple[str, Type]],
                      locals_: dict[str, DType], allowed: set[tuple[str, Any]],
                      ranges: dict[str, tuple[int, int]] | None = None) -> str | None:
    """For a guard that stores into the elements ``allowed`` (``(array, index)``) before
    ``return value;``: ``None`` when, where ``cond`` holds, ``rest`` stores only into
    those elements at its top level, every loop of it that stores runs no iteration (a loop
    that stores nothing may run: the scalars it writes take unknown values) and it returns
    ``value``; :data:`RETURNS_OTHER` when only the returned value is not proved equal; else
    the reason."""
    return redundant_guard(cond, value, rest, params, locals_, ranges, allowed)


def redundant_guard(cond: Cond, value: Expr | None, rest: Sequence[Stmt], params: list[tuple[str, Type]],
                    locals_: dict[str, DType], ranges: dict[str, tuple[int, int]] | None = None,
                    allowed: set[tuple[str, Any]] | None = None) -> str | None:
    """``None`` when the guard ``if (cond) return value;`` is proved redundant in front of
    ``rest`` (the lowered statements after it), else the reason. ``ranges``: the value
    range of an integer parameter's C type (an ``unsigned int`` parameter, INT in the loop
    IR, is called with a value in ``[0, 2^32)``, C11 §6.2.5p9), assumed at the guard.
    ``allowed``: see :func:`stores_only_where`."""
    from fractions import Fraction

    import cvc5.pythonic as smt

    state: dict[str, Any] = {}
    facts: list[Any] = []
    for name, ty in params:
        if not isinstance(ty, PointerType):
            state[name] = smt.Real(name) if ty.dtype.is_float else smt.Int(name)
            if ranges and name in ranges and not ty.dtype.is_float:
                lo, hi = ranges[name]
                facts.append(smt.And(state[name] >= lo, state[name] <= hi))
    count = [0]

    def fresh(d: DType) -> Any:
        count[0] += 1
        return smt.Real(f"__v{count[0]}") if d.is_float else smt.Int(f"__v{count[0]}")

    def ex(e: Expr) -> Any:
        match e:
            case Const(v, d):
                if d.is_float:
                    q = Fraction(v)  # the constant's exact value
                    return smt.Q(q.numerator, q.denominator)
                return smt.IntVal(int(v))
            case Var(name, d):
                if name not in state:
                    state[name] = fresh(d)
                return state[name]
            case Binary("+" | "-" | "*" as op, a, b):
                x, y = ex(a), ex(b)
                return x + y if op == "+" else x - y if op == "-" else x * y
            case Unary("-", a):
                return -ex(a)
            case Cast(a, d) if d.is_float and a.dtype.is_float:
                return ex(a)
            case Cast(a, d) if d.is_float and a.dtype == DType.INT:
                return smt.ToReal(ex(a))
            case Cast(a, DType.INT) if a.dtype == DType.INT or a.dtype.int_range is not None:
                return ex(a)
            case Cast(a, d) if d.int_range is not None and (a.dtype == DType.INT or a.dtype.int_range is not None):
                lo, hi = d.int_range  # the conversion into a ranged integer type wraps (py_wrap_to)
                return (ex(a) - lo) % (hi - lo + 1) + lo
            case Select(c, a, b):
                return smt.If(cd(c), ex(a), ex(b))
            case Load() | Call() | _:
                raise _Unknown(type(e).__name__)

    def cd(c: Cond) -> Any:
        match c:
            case Compare(op, a, b):
                x, y = ex(a), ex(b)
                return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "==": x == y, "!=": x != y}[op]
            case Logical("&&", a, b):
                return smt.And(cd(a), cd(b))
            case Logical("||", a, b):
                return smt.Or(cd(a), cd(b))
            case Not(a):
                return smt.Not(cd(a))
        raise _Unknown("condition")

    def proved(claim: Any) -> bool:
        s = smt.Solver()
        s.set("rlimit-per", 2_000_000)
        s.add(guard, *facts, smt.Not(claim))
        return s.check() == smt.unsat

    try:
        guard = cd(cond)
    except _Unknown:
        return "its condition is not an integer or real comparison of scalars"
    try:  # the guard's value, in the state where the guard is tested
        returned = None if value is None else ex(value)
    except _Unknown:
        return "its value is not an integer or real expression of scalars"
    for st in rest:
        match st:
            case Assign(target, e):
                try:
                    state[target] = ex(e)
                except _Unknown:
                    state[target] = fresh(locals_.get(target, DType.INT))
            case For(var, start, stop, body, _, descending):
                try:
                    lo, hi = ex(start), ex(stop)
                    skipped = proved(hi <= lo)
                except _Unknown:
                    skipped = False
                if not skipped and allowed is not None and not _stores_in(body):
                    # it may run: what it writes is unknown after it (and stored nowhere)
                    for name in {var} | _assigned_in(body):
                        state[name] = fresh(locals_.get(name, DType.INT))
                    continue
                if not skipped:
                    return "where its condition holds, a loop after it is not proved to run zero times"
                # a loop that runs no iteration leaves its counter at start (or stop - 1)
                state[var] = hi - 1 if descending else lo
            case Store(array, Const(index)) if allowed is not None and (array, index) in allowed:
                pass  # (the caller selects the guard's value for it)
            case Store():
                return "a store after it would run where its condition holds"
            case Return(e):
                if (e is None) != (value is None):
                    return "the function's return does not match it"
                if e is None:
                    return None
                try:
                    same = proved(ex(e) == returned)
                except _Unknown:
                    same = False
                return None if same else RETURNS_OTHER
    return None if value is None else "the function's return does not match it"


def _stores_in(body: Sequence[Stmt]) -> bool:
    return any(isinstance(s, Store) or (isinstance(s, For) and _stores_in(s.body)) for s in body)


def _assigned_in(body: Sequence[Stmt]) -> set[str]:
    out: set[str] = set()
    for s in body:
        if isinstance(s, Assign):
            out.add(s.target)
        elif isinstance(s, For):
            out |= {s.var} | _assigned_in(s.body)
    return out
