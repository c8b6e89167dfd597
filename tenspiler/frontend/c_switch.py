"""``switch`` statements as the ``if``/``else`` chain they mean (C11 §6.8.4.2), on the C AST
before it is typed and lowered.

``switch (E) { case K1: case K2: S1 ... default: Sd ... }`` jumps to the statement labelled
with the case constant equal to ``E`` after the integer promotions (each ``K`` converted to
the promoted type of ``E``), else to ``default:``, else past the body; a ``break`` of the
switch leaves it, and without one control falls through into the next labelled statements.
:func:`lower_switches` rewrites each switch of a function body into

    if (E == K1 || E == K2) { S1 S2 ... } else if (...) { ... } else { Sd ... }

where the block of each labelled group is its own statements followed by those of the groups
control falls through to, up to the first one that ends with ``break;`` (removed) or
``return``: exactly the statements C runs when it enters there. ``E`` is evaluated by each
condition until one holds — before any statement of the body has run, so it must have no side
effect (else refused). Each comparison is a :class:`SwitchMatch`; the lowering
(``c_exprs.Expressions.cond``) refuses one whose constant the promoted type of ``E`` does not
hold (there ``E == K`` and the switch's conversion of ``K`` can differ) or that it cannot
evaluate.

What is not lowered is kept as a :class:`RefusedSwitch` carrying the reason, refused only
where the lowering reaches it (a switch in a function the kernel does not call stops
nothing): a ``break`` that does not end its group (inside an ``if``, ...), a case label
nested in another statement of the body (Duff's device), a declaration directly in the body
(its scope spans the groups C may jump over), statements before the first label, a
controlling expression with side effects. ``break`` and ``continue`` inside loops of a group
are the loops' own, and ``continue`` of an enclosing loop keeps its meaning in the chain.
"""

from __future__ import annotations

import copy

from pycparser import c_ast

from tenspiler.frontend.c_bindings import render

__all__ = ["RefusedSwitch", "SwitchMatch", "lower_switches"]


class SwitchMatch(c_ast.BinaryOp):
    """``E == K``: entering a switch at ``case K:`` (left: a copy of the controlling
    expression ``E``, right: the case label's constant expression ``K``)."""

    __slots__ = ()


class RefusedSwitch(c_ast.Switch):
    """A switch :func:`lower_switches` does not lower; ``reason`` says why (located at the
    node ``at``)."""

    __slots__ = ("at", "reason")

    def __init__(self, sw: c_ast.Switch, reason: str, at: c_ast.Node) -> None:
        super().__init__(sw.cond, sw.stmt, sw.coord)
        self.reason = reason
        self.at = at


class _Refuse(Exception):
    def __init__(self, reason: str, at: c_ast.Node) -> None:
        super().__init__(reason)
        self.reason, self.at = reason, at


_LOOPS = (c_ast.For, c_ast.While, c_ast.DoWhile)


def lower_switches(node: c_ast.Node) -> c_ast.Node:
    """``node`` (a function body) with every ``switch`` inside it rewritten (innermost first),
    in place; returns the node that takes ``node``'s place."""
    _rewrite_children(node)
    if isinstance(node, c_ast.Switch) and not isinstance(node, RefusedSwitch):
        try:
            return _chain(node)
        except _Refuse as r:
            return RefusedSwitch(node, r.reason, r.at)
    return node


def _rewrite_children(node: c_ast.Node) -> None:
    for slot in node.__slots__:
        if slot in ("coord", "__weakref__"):
            continue
        value = getattr(node, slot, None)
        if isinstance(value, c_ast.Node):
            setattr(node, slot, lower_switches(value))
        elif isinstance(value, list):
            setattr(node, slot, [lower_switches(v) if isinstance(v, c_ast.Node) else v for v in value])


def _walk(node: c_ast.Node | None, skip: tuple[type, ...] = ()) -> list[c_ast.Node]:
    """``node`` and its descendants, not descending into nodes of the types ``skip``."""
    out: list[c_ast.Node] = []
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        out.append(n)
        if isinstance(n, skip):
            continue
        stack.extend(child for _, child in n.children())
    return out


def _pure(e: c_ast.Node) -> bool:
    return not any(
        isinstance(n, c_ast.Assignment | c_ast.FuncCall)
        or (isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--"))
        for n in _walk(e)
    )


def _ends(items: list[c_ast.Node]) -> tuple[list[c_ast.Node], bool]:
    """``items`` cut after its first top-level ``break;`` (removed), ``return`` or ``continue;``
    (of an enclosing loop; what follows is not reached from here: the next group starts with a
    label), and whether control leaves the switch there. A ``break;`` ending a block that ends ``items`` counts
    too (``case 1: { ...; break; }``)."""
    out: list[c_ast.Node] = []
    for it in items:
        if isinstance(it, c_ast.Break):
            return out, True
        out.append(it)
        if isinstance(it, c_ast.Return | c_ast.Continue):
            return out, True
    if out and isinstance(out[-1], c_ast.Compound):
        inner, ended = _ends(list(out[-1].block_items or []))
        if ended:
            out[-1] = c_ast.Compound(inner, out[-1].coord)
            return out, True
    return out, False


def _chain(sw: c_ast.Switch) -> c_ast.Node:
    e = sw.cond
    if not _pure(e):
        raise _Refuse(f"switch on '{render(e)}', an expression with side effects, is not supported", e)
    body = sw.stmt
    items = list(body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
    first = next((k for k, it in enumerate(items) if isinstance(it, c_ast.Case | c_ast.Default)), len(items))
    if first > 0:
        raise _Refuse("statement before the first case label of a switch is not supported", items[0])
    groups: list[tuple[list[c_ast.Node], bool, list[c_ast.Node], bool]] = []  # labels, default, stmts, ends
    labels: list[c_ast.Node] = []
    default = False
    for it in items:
        if isinstance(it, c_ast.Case):
            labels.append(it.expr)
        else:
            default = True
        stmts = list(it.stmts or [])
        for s in stmts:
            for n in _walk(s, skip=(c_ast.Switch,)):
                if isinstance(n, c_ast.Case | c_ast.Default):
                    raise _Refuse("case label inside another statement of a switch is not supported", n)
            if isinstance(s, c_ast.Decl):
                raise _Refuse(f"declaration of '{s.name}' directly in a switch body is not supported "
                              "(its scope spans the labels; declare it in a block)", s)
        kept, ended = _ends(stmts)
        for s in kept:
            for n in _walk(s, skip=(*_LOOPS, c_ast.Switch)):
                if isinstance(n, c_ast.Break):
                    raise _Refuse("'break' of a switch that does not end its case (inside an if or a "
                                  "block) is not supported", n)
        if not stmts and it is not items[-1]:
            continue  # 'case 1: case 2: S': the labels share the next statements
        groups.append((labels, default, kept, ended))
        labels, default = [], False
    # the statements C runs when it enters each group: its own and those it falls through to
    runs: list[list[c_ast.Node]] = []
    for k in range(len(groups)):
        run: list[c_ast.Node] = []
        for _, _, stmts, ended in groups[k:]:
            run.extend(copy.deepcopy(stmts))
            if ended:
                break
        runs.append(run)
    chain: c_ast.Node | None = None
    otherwise: c_ast.Node | None = None
    for (labels, default, _, _), run in reversed(list(zip(groups, runs, strict=True))):
        block = c_ast.Compound(run, sw.coord)
        if default:
            otherwise = copy.deepcopy(block)  # a node of its own (the gate types each node once)
        if not labels:
            continue
        cond: c_ast.Node | None = None
        for k in labels:
            match = SwitchMatch("==", copy.deepcopy(e), k, k.coord)
            cond = match if cond is None else c_ast.BinaryOp("||", cond, match, k.coord)
        assert cond is not None
        chain = c_ast.If(cond, block, chain, sw.coord)
    if otherwise is not None:
        # the default's group is reached when no label matches: the last else of the chain
        if chain is None:
            return otherwise
        last = chain
        while isinstance(last, c_ast.If) and last.iffalse is not None:
            last = last.iffalse
        assert isinstance(last, c_ast.If)
        last.iffalse = otherwise
    return chain if chain is not None else c_ast.Compound([], sw.coord)
