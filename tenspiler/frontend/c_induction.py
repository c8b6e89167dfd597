"""Induction-variable analysis of C ``while`` / ``do``-``while`` loops (and ``for`` loops
without an initialiser), on the pycparser AST.

A loop is *counted* when one integer variable ``c`` (its *counter*) is stepped by ``+1`` or
``-1`` exactly once per iteration on every path, and the loop condition compares ``c`` with
a bound the loop does not change. Every path: the step is a top-level statement of the body
(``c++``, ``--c``, ``c += 1``, ``c = c - 1`` ...), or a ``c++`` / ``c--`` inside the
expression of one top-level statement, or the condition itself (``while (n--)``,
``do ... while (--n)``); nothing else in the body or the condition writes ``c`` (nor
anything the bound reads), and the body has no ``break`` / ``continue`` / ``goto`` /
``return`` (the lowering refuses those inside loops on its own).

:func:`analyze` finds the counter; :mod:`tenspiler.frontend.c_loops` lowers the loop to a
loop-IR ``For`` from it, and :mod:`tenspiler.frontend.c_types` uses it to accept the step of
an *unsigned* counter where it cannot wrap (:func:`unsigned_step_ok`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pycparser import c_ast

from tenspiler.frontend.c_bindings import int_literal

__all__ = ["Induction", "analyze", "step_of", "writes_of"]

Where = Literal["first", "last", "inside", "cond-post", "cond-pre"]
_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}


@dataclass(frozen=True)
class Induction:
    """The counter of a loop.

    ``op`` / ``bound``: the condition is ``counter op bound`` (``bound is None``: compared
    with 0, ``while (n)``); for ``cond-post`` / ``cond-pre`` the comparison is of the value
    before / after the step. ``where``: the step is the ``first`` or ``last`` top-level
    statement of the body, ``inside`` the expression of one top-level statement
    (``update`` is that statement), or in the condition (``cond-post``: ``n--``,
    ``cond-pre``: ``--n``). ``step_node`` is the node that steps."""

    counter: str
    step: int
    op: str
    bound: c_ast.Node | None
    where: Where
    update: c_ast.Node | None
    step_node: c_ast.Node


def _is_var(n: c_ast.Node | None, name: str) -> bool:
    return isinstance(n, c_ast.ID) and n.name == name


def _is_one(n: c_ast.Node) -> bool:
    return isinstance(n, c_ast.Constant) and n.type.endswith("int") and int_literal(n.value) == 1


def step_of(n: c_ast.Node | None) -> tuple[str, int] | None:
    """``(c, ±1)`` when ``n`` is a unit step of a variable as a whole expression:
    ``c++``, ``++c``, ``c--``, ``--c``, ``c += 1``, ``c -= 1``, ``c = c + 1``, ``c = 1 + c``,
    ``c = c - 1``."""
    match n:
        case c_ast.UnaryOp(op="++" | "p++" | "--" | "p--" as op, expr=c_ast.ID(name=name)):
            return name, (1 if "++" in op else -1)
        case c_ast.Assignment(op="+=" | "-=" as op, lvalue=c_ast.ID(name=name), rvalue=one) if _is_one(one):
            return name, (1 if op == "+=" else -1)
        case c_ast.Assignment(op="=", lvalue=c_ast.ID(name=name), rvalue=c_ast.BinaryOp(op="+", left=a, right=b)) if (
            (_is_var(a, name) and _is_one(b)) or (_is_one(a) and _is_var(b, name))
        ):
            return name, 1
        case c_ast.Assignment(op="=", lvalue=c_ast.ID(name=name), rvalue=c_ast.BinaryOp(op="-", left=a, right=b)) if (
            _is_var(a, name) and _is_one(b)
        ):
            return name, -1
    return None


def writes_of(node: c_ast.Node | None) -> list[tuple[str, c_ast.Node]]:
    """Every ``(variable, node)`` where ``node`` (an assignment or ``++`` / ``--``) writes a
    plain variable, in ``node`` and below (declarations excluded)."""
    out: list[tuple[str, c_ast.Node]] = []

    def walk(n: c_ast.Node | None) -> None:
        if n is None:
            return
        match n:
            case c_ast.Assignment(lvalue=c_ast.ID(name=name)):
                out.append((name, n))
            case c_ast.UnaryOp(op="++" | "p++" | "--" | "p--", expr=c_ast.ID(name=name)):
                out.append((name, n))
        for _, child in n.children():
            walk(child)

    walk(node)
    return out


def _path(root: c_ast.Node, target: c_ast.Node) -> list[c_ast.Node] | None:
    """The nodes from ``root`` down to ``target`` (both included), or ``None``."""
    if root is target:
        return [root]
    for _, c in root.children():
        p = _path(c, target)
        if p is not None:
            return [root, *p]
    return None


def _always_runs(stmt: c_ast.Node, node: c_ast.Node) -> bool:
    """Whether ``node`` is evaluated every time statement ``stmt`` runs: no ``if``, loop,
    ``switch``, ``?:``, ``&&`` or ``||`` lies between them."""
    path = _path(stmt, node)
    if path is None:
        return False
    for n in path[:-1]:
        if isinstance(n, c_ast.If | c_ast.For | c_ast.While | c_ast.DoWhile | c_ast.Switch | c_ast.TernaryOp
                      | c_ast.Case | c_ast.Default | c_ast.Label):
            return False
        if isinstance(n, c_ast.BinaryOp) and n.op in ("&&", "||"):
            return False
    return True


def _mentions(n: c_ast.Node | None, name: str) -> bool:
    if n is None:
        return False
    return _is_var(n, name) or any(_mentions(c, name) for _, c in n.children())


def _ids(n: c_ast.Node | None) -> set[str]:
    if n is None:
        return set()
    out = {n.name} if isinstance(n, c_ast.ID) else set()
    for _, c in n.children():
        out |= _ids(c)
    return out


def _condition(cond: c_ast.Node | None) -> list[tuple[str, str, c_ast.Node | None, Where | None, c_ast.Node | None]]:
    """Candidate readings of a loop condition: ``(counter, op, bound, where, step node)``
    (``where`` set when the condition steps the counter)."""
    out: list[tuple[str, str, c_ast.Node | None, Where | None, c_ast.Node | None]] = []
    match cond:
        case c_ast.ID(name=name):
            out.append((name, "!=", None, None, None))
        case c_ast.UnaryOp(op="p++" | "p--", expr=c_ast.ID(name=name)):
            out.append((name, "!=", None, "cond-post", cond))
        case c_ast.UnaryOp(op="++" | "--", expr=c_ast.ID(name=name)):
            out.append((name, "!=", None, "cond-pre", cond))
        case c_ast.BinaryOp(op="<" | "<=" | ">" | ">=" | "!=" as op, left=left, right=right):
            for side, other, o in ((left, right, op), (right, left, _MIRROR[op])):
                match side:
                    case c_ast.ID(name=name) if not _mentions(other, name):
                        out.append((name, o, other, None, None))
                    case c_ast.UnaryOp(op="p++" | "p--", expr=c_ast.ID(name=name)) if not _mentions(other, name):
                        out.append((name, o, other, "cond-post", side))
                    case c_ast.UnaryOp(op="++" | "--", expr=c_ast.ID(name=name)) if not _mentions(other, name):
                        out.append((name, o, other, "cond-pre", side))
    return out


def analyze(loop: c_ast.While | c_ast.DoWhile | c_ast.For) -> Induction | str:
    """The counter of ``loop`` (a ``for`` loop: one without an initialiser, its step in the
    header: ``where == "last"``), or the reason there is none."""
    cond = loop.cond
    if cond is None:
        return "a loop without a condition"
    body = loop.stmt
    items = list(body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
    items = [it for it in items if not isinstance(it, c_ast.EmptyStatement)]
    reasons: list[str] = []
    for name, op, bound, cwhere, cstep in _condition(cond):
        body_writes = [n for v, n in writes_of(body) if v == name]
        cond_writes = [n for v, n in writes_of(cond) if v == name]
        if isinstance(loop, c_ast.For):
            if cwhere is not None or body_writes:
                continue
            st = step_of(loop.next)
            if st is None or st[0] != name:
                continue
            found = Induction(name, st[1], op, bound, "last", None, loop.next)
        elif cwhere is not None:
            if body_writes or len(cond_writes) != 1:
                reasons.append(f"'{name}' is also written in the loop body")
                continue
            assert cstep is not None
            found = Induction(name, 1 if "++" in cstep.op else -1, op, bound, cwhere, None, cstep)
        else:
            if cond_writes or len(body_writes) != 1:
                reasons.append(f"'{name}' is not written exactly once in the loop body" if not cond_writes
                               else f"the condition writes '{name}'")
                continue
            w = body_writes[0]
            top = next((it for it in items if it is w), None)
            if top is not None:
                st = step_of(w)
                if st is None:
                    reasons.append(f"'{name}' is not stepped by a constant 1")
                    continue
                where: Where = "last" if items and items[-1] is w else "first" if items and items[0] is w else "inside"
                if where == "inside":
                    reasons.append(f"the step of '{name}' is neither the first nor the last statement of the body")
                    continue
                found = Induction(name, st[1], op, bound, where, w, w)
            else:
                holder = next((it for it in items if any(n is w for _, n in writes_of(it))), None)
                if holder is None or not isinstance(w, c_ast.UnaryOp) or not _always_runs(holder, w):
                    reasons.append(f"'{name}' is not stepped on every path of the loop body")
                    continue
                found = Induction(name, 1 if "++" in w.op else -1, op, bound, "inside", holder, w)
        if found.bound is not None and any(v in _ids(found.bound) for v, _ in writes_of(body) + writes_of(cond)):
            reasons.append("the loop bound is written in the loop")
            continue
        return found
    if reasons:
        return reasons[0]
    return "no variable is compared with a bound and stepped by 1 once per iteration"
