"""Symbolic execution of straight-line loop IR.

Executing a block from a *head state* yields, for every scalar the block assigns, an
expression over the head state, and for every array it writes, the ordered list of stores
(index, value) applied to the head array. Reads of an array that was written earlier in the
block are resolved when the indices are provably equal or provably different (their
difference simplifies to a constant with sympy); otherwise the kernel is refused.

This is the single transition relation used both for expression-tree extraction
(synthesis, paper §5.3) and for the verification conditions (paper §4.1).
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal, assert_never

import sympy

from tenspiler.errors import NotLiftable
from tenspiler.ir.semantics import divides as sem_divides
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
    Return,
    Select,
    Stmt,
    Store,
    Unary,
    Var,
)
from tenspiler.loops.ir import (
    assigned_scalars as assigned_scalars,  # (re-exported: the analyses' helper)
)


@dataclass
class SymState:
    """Scalar values and pending array stores, both over the head state."""

    scalars: dict[str, Expr] = field(default_factory=dict)
    stores: dict[str, list[tuple[Expr, Expr]]] = field(default_factory=dict)
    returned: Expr | None = None
    has_return: bool = False

    def copy(self) -> SymState:
        return SymState(
            dict(self.scalars),
            {a: list(s) for a, s in self.stores.items()},
            self.returned,
            self.has_return,
        )


#: Integer selects seen by :func:`to_sympy`, each an uninterpreted function of the
#: variables it reads (``min(len(a[0]), len(b[0]))`` as a row length): name -> (select,
#: the symbols it was applied to).
_SELECTS: dict[str, tuple[Select, tuple[sympy.Symbol, ...]]] = {}
_SELECT_NAMES: dict[Select, str] = {}


def _vars_of(e: Expr | Cond) -> set[str]:
    match e:
        case Var(name):
            return {name}
        case Const():
            return set()
        case Load(_, index):
            return _vars_of(index)
        case Unary(_, x) | Cast(x) | Call(_, x):
            return _vars_of(x)
        case Binary(_, l, r) | Compare(_, l, r) | Logical(_, l, r):
            return _vars_of(l) | _vars_of(r)
        case Not(x):
            return _vars_of(x)
        case Select(c, a, b):
            return _vars_of(c) | _vars_of(a) | _vars_of(b)
    raise AssertionError(e)


def _select_atom(e: Select) -> sympy.Expr | None:
    """An integer select (no array read) as an uninterpreted function applied to the
    variables it reads: an opaque value in polynomial identities, whose ``has(x)`` is
    true when it reads ``x`` (so :func:`linear_in` never takes it for free of a counter);
    :func:`from_sympy` gives the select back only applied to the same symbols."""
    if e.dtype.is_float or _has_load(e):
        return None
    name = _SELECT_NAMES.get(e)
    if name is None:  # named by its structure: the same in every process, whatever came before
        name = "select__" + hashlib.sha256(repr(_structure(e)).encode()).hexdigest()[:12]
        _SELECT_NAMES[e] = name
    args = tuple(sympy.Symbol(v, integer=True) for v in sorted(_vars_of(e)))
    _SELECTS[name] = (e, args)
    return sympy.Function(name, integer=True)(*args) if args else sympy.Symbol(name, integer=True)


def _structure(e: object) -> object:
    """``e`` as nested tuples of its compared fields (locations left out)."""
    if dataclasses.is_dataclass(e) and not isinstance(e, type):
        return (type(e).__name__, *(_structure(getattr(e, f.name)) for f in dataclasses.fields(e) if f.compare))
    if isinstance(e, tuple):
        return tuple(_structure(x) for x in e)
    return e.value if isinstance(e, enum.Enum) else e


def _has_load(e: Expr | Cond) -> bool:
    match e:
        case Load():
            return True
        case Var() | Const():
            return False
        case Unary(_, x) | Cast(x) | Call(_, x) | Not(x):
            return _has_load(x)
        case Binary(_, l, r) | Compare(_, l, r) | Logical(_, l, r):
            return _has_load(l) or _has_load(r)
        case Select(c, a, b):
            return _has_load(c) or _has_load(a) or _has_load(b)
    raise AssertionError(e)


def to_sympy(e: Expr) -> sympy.Expr | None:
    """Integer index expression as a sympy expression, ``None`` if not polynomial (an
    integer select of variables is an opaque atom, :func:`_select_atom`)."""
    match e:
        case Const(v):
            return sympy.Integer(int(v)) if isinstance(v, int) else None
        case Var(name):
            return sympy.Symbol(name, integer=True)
        case Binary(op, l, r) if op in ("+", "-", "*"):
            a, b = to_sympy(l), to_sympy(r)
            if a is None or b is None:
                return None
            return a + b if op == "+" else a - b if op == "-" else a * b
        case Unary("-", x):
            a = to_sympy(x)
            return None if a is None else -a
        case Cast(x):
            return to_sympy(x)
        case Select():
            return _select_atom(e)
        case _:
            return None


def from_sympy(e: sympy.Expr) -> Expr | None:
    """An integer polynomial (symbols = INT variables) back as a loop-IR expression;
    ``None`` for anything else."""
    if e.is_Integer:
        return Const(int(e), DType.INT)
    if e.is_Symbol and e.name in _SELECTS and not _SELECTS[e.name][1]:
        return _SELECTS[e.name][0]
    if e.is_Symbol:
        return Var(e.name, DType.INT)
    if isinstance(e, sympy.core.function.AppliedUndef):
        known = _SELECTS.get(type(e).__name__)
        return known[0] if known is not None and tuple(e.args) == known[1] else None
    if e.is_Add or e.is_Mul:
        op: Literal["+", "*"] = "+" if e.is_Add else "*"
        parts = [from_sympy(a) for a in sorted(e.args, key=sympy.default_sort_key)]
        if any(p is None for p in parts):
            return None
        out = parts[0]
        for p in parts[1:]:
            out = Binary(op, out, p, DType.INT)  # type: ignore[arg-type]
        return out
    if e.is_Pow and e.exp.is_Integer and int(e.exp) > 0:
        base = from_sympy(e.base)
        if base is None:
            return None
        out = base
        for _ in range(int(e.exp) - 1):
            out = Binary("*", out, base, DType.INT)
        return out
    return None


def stride_of(index: Expr, var: str) -> tuple[int, int] | None:
    """``(c, d)`` when ``index`` is ``c * var + d`` for integer constants ``c >= 1`` and
    ``d`` (``(1, d)`` for ``var + d``), else ``None``."""
    d = index_difference(index, Var(var, DType.INT))
    if d is not None:
        return 1, d
    form = linear_in(index, (var,))
    if form is None:
        return None
    (coef,), rest = form
    if isinstance(coef, Const) and isinstance(rest, Const) and isinstance(coef.value, int) \
            and isinstance(rest.value, int) and coef.value >= 1:
        return coef.value, rest.value
    return None


def runtime_stride_of(index: Expr, var: str, invariant: Callable[[str], bool]) -> tuple[Expr, int] | None:
    """``(s, d)`` when ``index`` is ``s * var + d`` for an integer constant ``d`` and a
    coefficient ``s`` that is not a constant and reads only names for which ``invariant``
    holds (loop-invariant run-time scalars: ``x[i*incx]``, ``x[i*incx + 1]``), else
    ``None``. Constant coefficients are :func:`stride_of`'s."""
    form = linear_in(index, (var,))
    if form is None:
        return None
    (coef,), rest = form
    if isinstance(coef, Const) or not isinstance(rest, Const) or not isinstance(rest.value, int):
        return None
    names = reads(coef)
    if not names or not all(invariant(n) for n in names):
        return None
    return coef, rest.value


def linear_in(e: Expr, names: tuple[str, ...]) -> tuple[tuple[Expr, ...], Expr] | None:
    """``e = sum(coef_k * names[k]) + rest`` with coefficients and ``rest`` free of
    ``names`` (as loop-IR expressions); ``None`` if ``e`` is not of that form."""
    se = to_sympy(e)
    if se is None:
        return None
    se = sympy.expand(se)
    syms = [sympy.Symbol(n, integer=True) for n in names]
    coefs: list[Expr] = []
    rest = se
    for x in syms:
        c = sympy.expand(se).coeff(x, 1)
        if any(c.has(y) for y in syms):
            return None
        ce = from_sympy(c)
        if ce is None:
            return None
        coefs.append(ce)
        rest = sympy.expand(rest - c * x)
    if any(rest.has(y) for y in syms):
        return None
    re = from_sympy(rest)
    return None if re is None else (tuple(coefs), re)


@lru_cache(maxsize=4096)
def index_difference(a: Expr, b: Expr) -> int | None:
    """``a - b`` if it is a constant, else ``None``."""
    sa, sb = to_sympy(a), to_sympy(b)
    if sa is None or sb is None:
        return None
    d = sympy.expand(sa - sb)
    return int(d) if d.is_Integer else None


def substitute(e: Expr, st: SymState) -> Expr:
    """Rewrite ``e`` (over the current state) into an expression over the head state."""
    match e:
        case Const():
            return e
        case Var(name):
            return st.scalars.get(name, e)
        case Load(array, index, dtype, loc):
            idx = substitute(index, st)
            for s_idx, s_val in reversed(st.stores.get(array, [])):
                d = index_difference(idx, s_idx)
                if d == 0:
                    return s_val
                if d is None:
                    raise NotLiftable(
                        f"cannot tell whether {array}[...] reads the element written earlier "
                        "in the same iteration",
                        loc,
                    )
            return Load(array, idx, dtype, loc)
        case Unary(op, x, dtype, loc):
            return Unary(op, substitute(x, st), dtype, loc)
        case Binary(op, l, r, dtype, loc):
            return Binary(op, substitute(l, st), substitute(r, st), dtype, loc)
        case Cast(x, dtype, loc):
            return Cast(substitute(x, st), dtype, loc)
        case Select(c, a, b, dtype, loc):
            return Select(map_cond(c, lambda x: substitute(x, st)), substitute(a, st), substitute(b, st), dtype, loc)
        case Call(f, x, dtype, loc):
            return Call(f, substitute(x, st), dtype, loc)
        case _:
            assert_never(e)


def cond_exprs(c: Cond) -> list[Expr]:
    """The expressions a condition compares, left to right."""
    match c:
        case Compare(_, l, r):
            return [l, r]
        case Logical(_, l, r):
            return cond_exprs(l) + cond_exprs(r)
        case Not(x):
            return cond_exprs(x)
        case _:
            assert_never(c)


def map_cond(c: Cond, f: Callable[[Expr], Expr]) -> Cond:
    """Rebuild a condition with ``f`` applied to the expressions it compares."""
    match c:
        case Compare(op, l, r, loc):
            return Compare(op, f(l), f(r), loc)
        case Logical(op, l, r, loc):
            return Logical(op, map_cond(l, f), map_cond(r, f), loc)
        case Not(x, loc):
            return Not(map_cond(x, f), loc)
        case _:
            assert_never(c)


def execute(stmts: Iterable[Stmt], st: SymState | None = None) -> SymState:
    """Symbolically execute straight-line statements (no loops) from ``st``."""
    st = SymState() if st is None else st.copy()
    for s in stmts:
        if st.has_return:
            raise NotLiftable("statement after return", s.loc)
        match s:
            case Assign(target, value):
                st.scalars[target] = substitute(value, st)
            case Store(array, index, value):
                st.stores.setdefault(array, []).append(
                    (substitute(index, st), substitute(value, st))
                )
            case Return(value):
                st.has_return = True
                st.returned = None if value is None else substitute(value, st)
            case For():
                raise NotLiftable("a loop inside a straight-line block", s.loc)
            case _:
                assert_never(s)
    return st


def reads(e: Expr) -> set[str]:
    """Names of scalar variables and arrays read by ``e``."""
    match e:
        case Const():
            return set()
        case Var(name):
            return {name}
        case Load(array, index):
            return {array} | reads(index)
        case Unary(_, x) | Cast(x):
            return reads(x)
        case Binary(_, l, r):
            return reads(l) | reads(r)
        case Select(c, a, b):
            out = reads(a) | reads(b)
            for x in cond_exprs(c):
                out |= reads(x)
            return out
        case Call(_, x):
            return reads(x)
        case _:
            assert_never(e)


def loads(e: Expr) -> list[Load]:
    """All array loads in ``e``, in left-to-right order."""
    match e:
        case Const() | Var():
            return []
        case Load(_, index):
            return [*loads(index), e]
        case Unary(_, x) | Cast(x):
            return loads(x)
        case Binary(_, l, r):
            return loads(l) + loads(r)
        case Select(c, a, b):
            return [ld for x in cond_exprs(c) for ld in loads(x)] + loads(a) + loads(b)
        case Call(_, x):
            return loads(x)
        case _:
            assert_never(e)


def subexpressions(e: Expr) -> Iterator[Expr]:
    """``e`` and every expression inside it, pre-order, left to right (conditions'
    operands included)."""
    yield e
    match e:
        case Const() | Var():
            pass
        case Load(_, index):
            yield from subexpressions(index)
        case Unary(_, x) | Cast(x) | Call(_, x):
            yield from subexpressions(x)
        case Binary(_, l, r):
            yield from subexpressions(l)
            yield from subexpressions(r)
        case Select(c, a, b):
            for x in cond_exprs(c):
                yield from subexpressions(x)
            yield from subexpressions(a)
            yield from subexpressions(b)
        case _:
            assert_never(e)


def statement_expressions(stmts: Iterable[Stmt]) -> Iterator[Expr]:
    """Every expression in ``stmts`` and their sub-expressions (loops entered)."""
    for s in stmts:
        match s:
            case Assign(_, v):
                yield from subexpressions(v)
            case Store(_, i, v):
                yield from subexpressions(i)
                yield from subexpressions(v)
            case For(_, a, b, body):
                yield from subexpressions(a)
                yield from subexpressions(b)
                yield from statement_expressions(body)
            case Return(v):
                if v is not None:
                    yield from subexpressions(v)
            case _:
                assert_never(s)


def assignments(stmts: Iterable[Stmt]) -> Iterator[Assign]:
    """Every scalar assignment of ``stmts``, loops entered (a loop's counter is not one)."""
    for s in stmts:
        if isinstance(s, Assign):
            yield s
        elif isinstance(s, For):
            yield from assignments(s.body)


def upward_exposed(stmts: Iterable[Stmt]) -> set[str]:
    """Scalars read in ``stmts`` before any assignment to them (loop-carried candidates)."""
    assigned: set[str] = set()
    exposed: set[str] = set()
    for s in stmts:
        match s:
            case Assign(target, value):
                exposed |= reads(value) - assigned
                assigned.add(target)
            case Store(_, index, value):
                exposed |= (reads(index) | reads(value)) - assigned
            case Return(value):
                if value is not None:
                    exposed |= reads(value) - assigned
            case For(_, start, stop, body):
                exposed |= (reads(start) | reads(stop)) - assigned
                exposed |= upward_exposed(body) - assigned
            case _:
                assert_never(s)
    return exposed


def stored_arrays(stmts: Iterable[Stmt]) -> set[str]:
    out: set[str] = set()
    for s in stmts:
        match s:
            case Store(array):
                out.add(array)
            case For(_, _, _, body):
                out |= stored_arrays(body)
            case Assign() | Return():
                pass
            case _:
                assert_never(s)
    return out


def replace_vars(e: Expr, env: Mapping[str, Expr]) -> Expr:
    """Substitute scalar variables (no store resolution)."""
    return substitute(e, SymState(scalars=dict(env)))


def program_constants(stmts: tuple[Stmt, ...]) -> list[Const]:
    """Every literal of the program, in source order (the paper's §5.4 constant pool)."""
    return [e for e in statement_expressions(stmts) if isinstance(e, Const)]


def divisors(e: Expr, guard: tuple[Cond, ...] = ()) -> list[tuple[tuple[Cond, ...], Expr]]:
    """(guard, divisor) for every integer ``/``, ``%`` (and Python ``//``, ``mod``) in ``e``: C has undefined
    behaviour if the divisor is zero *when the division is evaluated*, i.e. when every
    condition of the guard (the selects it sits under) holds."""
    match e:
        case Binary(op, l, r, dtype):
            own = [(guard, r)] if sem_divides(op, dtype) else []
            return divisors(l, guard) + divisors(r, guard) + own
        case Load(_, index):
            return divisors(index, guard)
        case Unary(_, x) | Cast(x) | Call(_, x):
            return divisors(x, guard)
        case Select(c, a, b):
            return cond_divisors(c, guard) + divisors(a, (*guard, c)) + divisors(b, (*guard, Not(c)))
        case Const() | Var():
            return []
        case _:
            assert_never(e)


def cond_divisors(c: Cond, guard: tuple[Cond, ...] = ()) -> list[tuple[tuple[Cond, ...], Expr]]:
    """:func:`divisors` of a condition, with C's short-circuit evaluation (C11 §6.5.13,
    §6.5.14): the right operand of ``l && r`` is evaluated only when ``l`` holds, that of
    ``l || r`` only when ``l`` does not."""
    match c:
        case Compare(_, l, r):
            return divisors(l, guard) + divisors(r, guard)
        case Logical("&&", l, r):
            return cond_divisors(l, guard) + cond_divisors(r, (*guard, l))
        case Logical("||", l, r):
            return cond_divisors(l, guard) + cond_divisors(r, (*guard, Not(l)))
        case Not(x):
            return cond_divisors(x, guard)
        case _:
            raise AssertionError(f"not a condition: {c!r}")
