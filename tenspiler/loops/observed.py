"""Raising operations whose evaluation a program summary cannot show (Python kernels).

Python evaluates ``t = x / y`` when the statement runs, whatever later happens to ``t``;
where ``y == 0`` it raises ``ZeroDivisionError``. A program summary is a value: it holds
``x / y`` only where the source's *result* depends on it, and at the place where the result
reads it. The raise checks of the generated code (``tenspiler.codegen.raises``) are found in
the summary, so they miss such an operation when its value is

* never used (a dead store: ``s0 = max(x / y for ...)`` whose ``s0`` nobody reads, or a
  value overwritten before it is read), or
* read only under a condition (``t = x / y`` then ``t if x > 0 else 0.0``: the summary has
  ``select(x > 0, x / y, 0)`` and would raise only where ``x > 0``), or
* read by a later iteration only (``out.append(t); t = x / y``: the last quotient is
  never read).

:func:`unobserved_sites` finds them by a backward *must* analysis of the loop IR: a scalar
is *eagerly observed* after a statement when, on every path from there, it is read in an
eagerly evaluated position (the condition of a select or both its branches, not the right
operand of ``and`` / ``or``) by a statement whose own effect is observed (a store, a returned value, a loop
bound, or an assignment to a scalar that is itself eagerly observed). An assignment whose
value holds a raising operation (a division by anything but a non-zero literal, ``pow``,
``sqrt``, ``log``, ``exp``: the kinds of :func:`tenspiler.codegen.raises.source_sites`)
must be eagerly observed. Not covered (known): a dead list read ``t = ys[3]`` (Python raises
``IndexError`` where the list is shorter; the range checks are found in the summary too). In a loop the paths are the next iteration and the exit; before a
loop that is not inside another loop, a value read by the body counts as observed even when
the loop runs no iteration, because the raise checks evaluate a straight-line site once,
unconditionally (``codegen/raises.py``, "evaluated once").

The frontend refuses such an assignment by name (``tenspiler.frontend.py_stmts``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import assert_never

from tenspiler.errors import SourceLoc
from tenspiler.loops.ir import (
    Assign,
    Binary,
    Call,
    Cast,
    Compare,
    Cond,
    Const,
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
    assigned_scalars,
)

__all__ = ["UnobservedSite", "unobserved_sites"]

_DIVISIONS = ("/", "//", "mod", "%")
_RAISING_CALLS = ("sqrt", "log", "exp")


@dataclass(frozen=True)
class UnobservedSite:
    """An assignment to ``target`` whose value may raise (``kind``: ``"division"``,
    ``"pow"``, ``"sqrt"``, ``"log"``, ``"exp"``) but is not eagerly observed."""

    target: str
    kind: str
    loc: SourceLoc | None


def _raising(e: Expr | Cond) -> str | None:
    """The kind of the first raising operation of ``e`` (any position), or ``None``."""
    match e:
        case Binary(op=op, left=left, right=right):
            if op in _DIVISIONS and not (isinstance(right, Const) and right.value != 0):
                return "division"
            if op == "pow":
                return "pow"
            return _raising(left) or _raising(right)
        case Call(func=func, arg=arg):
            return func if func in _RAISING_CALLS else _raising(arg)
        case Select(cond=c, then=then, else_=else_):
            return _raising(c) or _raising(then) or _raising(else_)
        case Load(index=index):
            return _raising(index)
        case Unary(operand=operand) | Cast(operand=operand) | Not(operand=operand):
            return _raising(operand)
        case Compare(left=left, right=right) | Logical(left=left, right=right):
            return _raising(left) or _raising(right)
    return None


def _eager_reads(e: Expr | Cond) -> set[str]:
    """Scalars read by ``e`` in positions Python evaluates whenever ``e`` is evaluated."""
    match e:
        case Var(name=name):
            return {name}
        case Binary(left=left, right=right) | Compare(left=left, right=right):
            return _eager_reads(left) | _eager_reads(right)
        case Logical(left=left):
            return _eager_reads(left)  # the right operand is short-circuited
        case Select(cond=c, then=then, else_=else_):
            return _eager_reads(c) | (_eager_reads(then) & _eager_reads(else_))  # one branch or the other
        case Load(index=index):
            return _eager_reads(index)
        case Unary(operand=operand) | Cast(operand=operand) | Not(operand=operand) | Call(arg=operand):
            return _eager_reads(operand)
    return set()


def unobserved_sites(fn: Function) -> list[UnobservedSite]:
    """The assignments of ``fn`` whose value may raise but whose evaluation the summary
    cannot show (see the module docstring), in source order."""
    universe = {name for name, _ in fn.locals} | {p.name for p in fn.params} | assigned_scalars(fn.body)
    found: dict[int, UnobservedSite] = {}

    def block(body: Sequence[Stmt], after: set[str], in_loop: bool, report: bool) -> set[str]:
        live = set(after)
        for s in reversed(body):
            live = stmt(s, live, in_loop, report)
        return live

    def stmt(s: Stmt, after: set[str], in_loop: bool, report: bool) -> set[str]:
        match s:
            case Return(value=value):
                return set() if value is None else _eager_reads(value)
            case Store(index=index, value=value):
                return after | _eager_reads(index) | _eager_reads(value)
            case Assign(target=target, value=value):
                if target in after:
                    return (after - {target}) | _eager_reads(value)
                if report and id(s) not in found:
                    kind = _raising(value)
                    if kind is not None:
                        found[id(s)] = UnobservedSite(target, kind, s.loc)
                return after - {target}
            case For(start=start, stop=stop, body=inner):
                # greatest fixpoint: the body's end leads to the next iteration or the exit
                start_of_body = set(universe)
                while True:
                    new = block(inner, after & start_of_body, True, False)
                    if new == start_of_body:
                        break
                    start_of_body = new
                block(inner, after & start_of_body, True, report)
                bounds = _eager_reads(start) | _eager_reads(stop)
                if in_loop:
                    return bounds | (after & start_of_body)
                return bounds | after | start_of_body
            case _:
                assert_never(s)

    block(fn.body, set(), False, True)
    return sorted(found.values(), key=lambda u: (u.loc.line, u.loc.col) if u.loc else (0, 0))
