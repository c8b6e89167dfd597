"""Logic shared by the C / C++ (:mod:`tenspiler.frontend.c`) and the Python
(:mod:`tenspiler.frontend.python`) frontends: reading the source file, loop-IR helpers
(conversions, the variables an expression reads and a body writes), the kernel's locals
and fresh names (:class:`KernelNames`) and if-conversion (:class:`IfConversion`).

The other shared pieces: :mod:`tenspiler.frontend.lists` (list and vector parameters, the
returned list built by appends) and :mod:`tenspiler.frontend.counted` (counted loops)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from tenspiler.errors import BadInput, SourceLoc
from tenspiler.frontend import read_source
from tenspiler.ir.semantics import py_binop, py_cast
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

__all__ = [
    "DefiniteAssignment",
    "IfConversion",
    "KernelNames",
    "Scalar",
    "and_guard",
    "cond_vars_read",
    "convert",
    "fold_cond",
    "fold_integer",
    "names_read",
    "names_written",
    "read_source",
    "vars_read",
    "writes",
]


# ---------------------------------------------------------------- bindings


@dataclass(frozen=True)
class Scalar:
    """What a name of the kernel denotes when it is a scalar (a number) variable: a
    parameter or a local of ``dtype`` (both frontends' bindings)."""

    dtype: DType


# ---------------------------------------------------------------- loop-IR helpers


def rounds_twice(inner: Expr, dtype: DType) -> str | None:
    """Why converting ``inner`` to ``dtype`` is a second rounding the model cannot state,
    or ``None``. The proof is over the reals, where conversions between real types are
    exact; a single conversion's rounding is the documented float rounding of a result, but
    a value rounded to one real type and then converted to another is observably rounded
    twice (C11 §6.3.1.4p2, §6.3.1.5): ``(float)(double) a`` of a ``long`` beyond 2**53,
    ``(double)(float) d`` — a summary drops the intermediate conversion."""
    if not dtype.is_float or not isinstance(inner, Cast) or not inner.dtype.is_float or inner.dtype == dtype:
        return None
    src = inner.operand.dtype
    if src == inner.dtype:
        return None
    what = "an integer" if not src.is_float else f"a {src.c_name}"
    return (f"{what} converted to {inner.dtype.c_name} and then to {dtype.c_name} is rounded twice "
            "(C11 §6.3.1.4, §6.3.1.5), which the real-number model does not state: not supported "
            "(convert once)")


def convert(e: Expr, dtype: DType) -> Expr:
    """``e`` converted to ``dtype`` (a ``Cast``; folded on literals).

    Raises:
        BadInput: the conversion would round a second time (:func:`rounds_twice`).
    """
    if e.dtype == dtype:
        return e
    if isinstance(e, Const):
        return Const(py_cast(e.value, dtype), dtype, e.loc)
    why = rounds_twice(e, dtype)
    if why is not None:
        raise BadInput(why, e.loc)
    return Cast(e, dtype, e.loc)


def fold_integer(e: Expr) -> Const | None:
    """The value of integer expression ``e`` when it reads nothing (constants under
    ``+ - * / % // mod & | ^``, casts and selects of such), computed by the one semantics
    (``ir.semantics``) as the loop-IR interpreter computes it, else ``None`` (also for a
    zero divisor: C leaves it undefined)."""
    if e.dtype.is_float:
        return None
    match e:
        case Const():
            return e
        case Cast(operand=operand, dtype=dtype):
            v = fold_integer(operand)
            return None if v is None else Const(py_cast(v.value, dtype), dtype, e.loc)
        case Unary(op="-", operand=operand):
            v = fold_integer(operand)
            return None if v is None else Const(-v.value, e.dtype, e.loc)  # (as loops.interp)
        case Binary(op=op, left=left, right=right, dtype=dtype):
            a, b = fold_integer(left), fold_integer(right)
            if a is None or b is None or (op in ("/", "%", "//", "mod") and b.value == 0):
                return None
            return Const(py_binop(op, a.value, b.value, dtype), dtype, e.loc)  # (as loops.interp)
        case Select(cond=cond, then=then, else_=else_):
            c = fold_cond(cond)
            return None if c is None else fold_integer(then if c else else_)
    return None


def fold_cond(c: Cond) -> bool | None:
    """The truth of condition ``c`` when it compares only foldable integer expressions
    (:func:`fold_integer`), else ``None``."""
    match c:
        case Compare(op=op, left=left, right=right):
            a, b = fold_integer(left), fold_integer(right)
            if a is None or b is None:
                return None
            u, v = a.value, b.value
            return {"<": u < v, "<=": u <= v, ">": u > v, ">=": u >= v, "==": u == v, "!=": u != v}[op]
        case Logical(op=op, left=left, right=right):
            x = fold_cond(left)
            if x is not None and x == (op == "||"):
                return x  # short-circuit, as C
            y = fold_cond(right)
            return None if x is None or y is None else y
        case Not(operand=operand):
            x = fold_cond(operand)
            return None if x is None else not x


def and_guard(guard: Cond | None, c: Cond, loc: SourceLoc | None) -> Cond:
    """``guard && c`` (just ``c`` without an enclosing guard)."""
    return c if guard is None else Logical("&&", guard, c, loc)


def vars_read(e: Expr) -> Iterator[tuple[str, SourceLoc | None]]:
    """Scalar variables and arrays read by ``e`` (also inside math calls), with the
    location of each read."""
    match e:
        case Var(name=name, loc=loc):
            yield name, loc
        case Load(array=array, index=index, loc=loc):
            yield array, loc
            yield from vars_read(index)
        case Unary(operand=x) | Cast(operand=x) | Call(arg=x):
            yield from vars_read(x)
        case Binary(left=left, right=right):
            yield from vars_read(left)
            yield from vars_read(right)
        case Select(cond=c, then=then, else_=else_):
            yield from cond_vars_read(c)
            yield from vars_read(then)
            yield from vars_read(else_)


def cond_vars_read(c: Cond) -> Iterator[tuple[str, SourceLoc | None]]:
    """Scalar variables and arrays read by the condition ``c`` (see :func:`vars_read`)."""
    match c:
        case Compare(left=left, right=right):
            yield from vars_read(left)
            yield from vars_read(right)
        case Logical(left=left_c, right=right_c):
            yield from cond_vars_read(left_c)
            yield from cond_vars_read(right_c)
        case Not(operand=operand):
            yield from cond_vars_read(operand)


def writes(body: Sequence[Stmt]) -> Iterator[tuple[str, SourceLoc | None]]:
    """Scalar variables and arrays written by ``body`` (with the writing statement's loc)."""
    for s in body:
        match s:
            case Assign(target=target, loc=loc):
                yield target, loc
            case Store(array=array, loc=loc):
                yield array, loc
            case For(var=var, body=inner, loc=loc):
                yield var, loc
                yield from writes(inner)
            case Return():
                pass


def names_read(e: Expr) -> set[str]:
    """The names :func:`vars_read` yields for ``e``."""
    return {name for name, _ in vars_read(e)}


def names_written(body: Sequence[Stmt]) -> set[str]:
    """The names :func:`writes` yields for ``body``."""
    return {name for name, _ in writes(body)}


# ---------------------------------------------------------------- if-conversion


class DefiniteAssignment(Protocol):
    """What tracks definite assignment at a program point (``c_bindings.Env``, the Python
    ``py_stmts.Kernel``): ``assigned`` holds the scalars assigned on every path reaching
    the point, ``written`` those some guarded (if-converted) assignment before it writes
    (see :meth:`IfConversion.guarded`)."""

    assigned: set[str]
    written: set[str]


class KernelNames:
    """The locals of the kernel being lowered and fresh names for the ones the lowering
    adds, mixed into both frontends' ``Kernel``."""

    #: Locals of the kernel being lowered (fresh names avoid them).
    locals: dict[str, DType]
    #: Identifiers of the source function (fresh names avoid them).
    taken: set[str]

    def fresh(self, base: str) -> str:
        """A name like ``base`` that no identifier of the function or local uses."""
        name, k = base, 1
        while name in self.taken or name in self.locals:
            name, k = f"{base}{k}", k + 1
        self.taken.add(name)
        return name


class IfConversion(KernelNames):
    """If-conversion, mixed into both frontends' ``Kernel``: ``if (C) S1 else S2`` becomes
    ``__ifK = C ? 1 : 0`` once, then S1 guarded by ``__ifK != 0`` and S2 by ``__ifK == 0``
    (conjoined with the enclosing guard); see the C module docstring."""

    #: Guard of the statements being lowered (inside an ``if``), else ``None``.
    guard: Cond | None
    if_count: int

    def fresh_if_local(self) -> str:
        """A fresh INT local ``__ifK`` holding an ``if`` condition (added to ``locals``)."""
        while True:
            self.if_count += 1
            name = f"__if{self.if_count}"
            if name not in self.taken and name not in self.locals:
                self.locals[name] = DType.INT
                return name

    def guarded(self, stmts: list[Stmt], defined: set[str], written: set[str]) -> list[Stmt]:
        """``stmts`` (assignments and stores) under the current guard ``g``.

        ``x = e`` becomes ``x = g ? e : x`` and ``a[i] = e`` becomes
        ``a[i] = g ? e : a[i]``. ``defined`` holds the scalars that hold a value in the IR
        before ``stmts`` (``assigned | written``). For a scalar outside it -- the source may
        see an indeterminate value there, and the IR has none to keep -- the else value is
        ``0`` instead of ``x``: the definite-assignment check refuses every later read of
        ``x`` that could observe that ``0`` (``x`` stays unassigned after the ``if`` unless
        both branches assign it, and then the other branch's guarded write, or a later one,
        replaces the ``0``), so the IR never reads an unassigned variable. Guarded scalars
        are added to ``defined`` and ``written``.
        """
        g = self.guard
        if g is None:
            return stmts
        out: list[Stmt] = []
        for s in stmts:
            match s:
                case Assign(target=target, value=value, loc=loc):
                    dtype = value.dtype
                    old: Expr = (
                        Var(target, dtype, loc)
                        if target in defined
                        else Const(py_cast(0, dtype), dtype, loc)
                    )
                    out.append(Assign(target, Select(g, value, old, dtype, loc), loc))
                    defined.add(target)
                    written.add(target)
                case Store(array=array, index=index, value=value, loc=loc, row=row):
                    dtype = value.dtype
                    kept = Load(array, index, dtype, loc, row)
                    out.append(Store(array, index, Select(g, value, kept, dtype, loc), loc, row))
                case _:  # pragma: no cover - loops and returns are refused in an if
                    raise AssertionError(f"cannot guard {s!r}")
        return out

    def if_branches(
        self,
        flag: str,
        zero: Const,
        loc: SourceLoc | None,
        state: DefiniteAssignment,
        then: Callable[[], list[Stmt]],
        orelse: Callable[[], list[Stmt]] | None,
    ) -> list[Stmt]:
        """The branches of an if-converted ``if`` whose condition the INT local ``flag``
        holds: ``then()`` lowered under ``flag != 0``, ``orelse()`` (if any) under
        ``flag == 0`` (``zero``: the INT literal 0 of these comparisons, located by the
        caller). Afterwards ``state.assigned`` holds what both paths assign."""
        outer = self.guard
        then_guard = and_guard(outer, Compare("!=", Var(flag, DType.INT, loc), zero, loc), loc)
        else_guard = and_guard(outer, Compare("==", Var(flag, DType.INT, loc), zero, loc), loc)
        before = set(state.assigned)
        out: list[Stmt] = []
        try:
            self.guard = then_guard
            out.extend(then())
            after_then, state.assigned = state.assigned, set(before)
            if orelse is not None:
                self.guard = else_guard
                out.extend(orelse())
            state.assigned &= after_then  # definitely assigned: on both paths
        finally:
            self.guard = outer
        return out

    def guarded_lowering(self, state: DefiniteAssignment, lower: Callable[[], list[Stmt]]) -> list[Stmt]:
        """The statements ``lower()`` produces, under the current guard (:meth:`guarded`;
        what holds a value is taken before ``lower`` runs)."""
        defined = state.assigned | state.written
        return self.guarded(lower(), defined, state.written)

    def convert_if(
        self,
        state: DefiniteAssignment,
        loc: SourceLoc | None,
        zero: Const,
        head: Callable[[str], list[Stmt]],
        then: Callable[[], list[Stmt]],
        orelse: Callable[[], list[Stmt]] | None,
    ) -> list[Stmt]:
        """If-conversion of one ``if`` statement at ``loc``: ``head(flag)`` evaluates the
        condition once into the fresh INT local ``flag`` (:meth:`flag_assignment`), under
        the enclosing guard; then the branches (:meth:`if_branches`, ``zero`` as there)."""
        defined = state.assigned | state.written
        flag = self.fresh_if_local()
        out = self.guarded(head(flag), defined, state.written)
        state.assigned.add(flag)
        return out + self.if_branches(flag, zero, loc, state, then, orelse)

    @staticmethod
    def flag_assignment(flag: str, c: Cond, loc: SourceLoc | None, cloc: SourceLoc | None) -> Assign:
        """``flag = c ? 1 : 0`` (at ``loc``; the select at the condition's ``cloc``)."""
        one, zero = Const(1, DType.INT, cloc), Const(0, DType.INT, cloc)
        return Assign(flag, Select(c, one, zero, DType.INT, cloc), loc)
