"""Loop distribution (Allen & Kennedy, *Optimizing Compilers for Modern Architectures*, 2001,
§2.4.1, "loop fission"): a loop whose body computes independent things split into one loop
per strongly connected component of its statements' dependence graph.

Shipped kernels compute a row value and, in the same outer loop, accumulate across rows::

    for (i = 0; i < m; i++) {
        tmp[i] = 0;
        for (j = 0; j < n; j++) tmp[i] += A[i][j] * x[j];     // row i's value
        for (j = 0; j < n; j++) y[j] += A[i][j] * tmp[i];     // a sum over the rows
    }

The kernel shapes (``tenspiler.vc``) take a loop per row value or per reduction, not both:
:func:`distributed` rewrites it into ``for i { tmp[i] = 0; for j ... }`` followed by ``for i {
for j y[j] += ... }`` when that ends in the same state on every input. The dependence graph
is conservative: two statements of the body depend on each other in both directions (one
component) when they share a scalar one of them assigns (other than a counter each resets
before reading it: an inner loop's) or an array one of them writes, unless every access of
both to that array is at one index ``i + e`` (``e`` free of what the loop assigns), whose
dependences stay within an iteration and run forward (the earlier statement first). The
components are emitted in a topological order of the forward edges, ties in source order
(networkx), so each dependence keeps its direction; a loop whose statements form one
component is left alone.

A value of the iteration alone is *recomputed* rather than shared: ``t = e`` where ``e``
reads, of what the loop changes, only its counter (no array the loop writes, no other scalar
it assigns), ``t`` assigned once and before any read in the body, is no dependence: each
part gets its own copy, which computes the same value at the same iteration.
``w = W[k]; acc += w; for j: out[j] += in[k*n + j] * w`` becomes a loop for the sum and a
loop nest for the weighted rows.

:func:`tenspiler.vc.analyze.analyze_kernel` uses the rewritten function only when the
function as written is outside every kernel shape.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import replace

from tenspiler.loops.ir import (
    Assign,
    Expr,
    For,
    Function,
    Load,
    Return,
    Stmt,
    Store,
    all_stmts,
    assigned_scalars,
    expr_reads,
    is_offset_index,
    stmt_expressions,
    subexpressions,
)

__all__ = ["distributed"]


def distributed(fn: Function) -> Function | None:
    """``fn`` with every loop that computes independent things distributed (module
    docstring; inner loops first), or ``None`` when none is."""
    changed = False

    def block(body: Sequence[Stmt]) -> tuple[Stmt, ...]:
        nonlocal changed
        out: list[Stmt] = []
        for s in body:
            if isinstance(s, For):
                s = replace(s, body=block(s.body))
                parts = _distribute(s)
                if parts is not None:
                    changed = True
                    out.extend(parts)
                    continue
            out.append(s)
        return tuple(out)

    body = block(fn.body)
    return replace(fn, body=body) if changed else None


def _distribute(loop: For) -> list[For] | None:
    import networkx as nx  # (imported where a loop is distributed: a lift that needs none does not pay for it)

    body = loop.body
    if len(body) < 2:
        return None
    if any(isinstance(s, Return) for s in all_stmts(body)):
        return None
    assigned = assigned_scalars([loop])
    if loop.var in assigned_scalars(body):
        return None
    arrays = _arrays_written(loop)
    recomputed = {k for k, s in enumerate(body) if _recomputable(k, body, loop.var, assigned, arrays)}
    rest = [k for k in range(len(body)) if k not in recomputed]
    private = {_target(body[k]) for k in recomputed}
    g = nx.DiGraph()
    g.add_nodes_from(rest)
    for a in rest:
        for b in rest:
            if b <= a:
                continue
            dep = _dependence(body[a], body[b], loop.var, assigned, private)
            if dep == "both":
                g.add_edge(a, b)
                g.add_edge(b, a)
            elif dep == "forward":
                g.add_edge(a, b)
    dag = nx.condensation(g)
    if dag.number_of_nodes() < 2:
        return None
    members = {c: sorted(dag.nodes[c]["members"]) for c in dag.nodes}
    order = list(nx.lexicographical_topological_sort(dag, key=lambda c: members[c][0]))
    # each part gets its own copy of the recomputed values it reads (the first part also
    # those no part reads, whose last value may be read after the loop)
    parts: list[For] = []
    for n, c in enumerate(order):
        reads = {x for k in members[c] for st in all_stmts([body[k]]) for e in stmt_expressions(st)
                 for x in expr_reads(e)}
        copies = [k for k in recomputed if n == 0 or _target(body[k]) in reads]
        if n == 0:
            copies = [k for k in copies if _target(body[k]) in reads or not _read_by_any(body, rest, _target(body[k]))]
        parts.append(replace(loop, body=tuple(body[k] for k in sorted([*members[c], *copies]))))
    return parts


def _target(s: Stmt) -> str:
    if not isinstance(s, Assign):
        raise TypeError("a recomputed statement is an assignment")
    return s.target


def _read_by_any(body: Sequence[Stmt], at: Sequence[int], name: str) -> bool:
    return any(name in expr_reads(e) for k in at for st in all_stmts([body[k]]) for e in stmt_expressions(st))


def _recomputable(k: int, body: Sequence[Stmt], var: str, assigned: set[str], arrays: set[str]) -> bool:
    """Whether statement ``k`` of a loop body is a scalar ``t = e`` that each part of the
    distributed loop may recompute for itself: ``e`` reads, of what the loop changes, only
    its counter (no other scalar the loop assigns, no array it writes), ``t`` is assigned
    nowhere else in the loop and not read before it in the body (each iteration sets it
    before reading it). Every copy then computes the same value at the same iteration."""
    s = body[k]
    if not isinstance(s, Assign):
        return False
    if (expr_reads(s.value) & assigned) - {var}:
        return False
    if any(isinstance(n, Load) and n.array in arrays for n in subexpressions(s.value)):
        return False
    others = (*body[:k], *body[k + 1:])
    if s.target in assigned_scalars(others) or s.target == var:
        return False
    return not any(s.target in expr_reads(e) for st in all_stmts(body[:k]) for e in stmt_expressions(st))


def _dependence(first: Stmt, second: Stmt, var: str, assigned: set[str], private: Set[str] = frozenset()) -> str | None:
    """How ``second`` (after ``first`` in the loop body over ``var``) depends on ``first``:
    ``"both"`` (possibly across iterations either way), ``"forward"`` (within an
    iteration only), or ``None``. ``private``: recomputed scalars (each part has its own
    copy, so none is a dependence)."""
    out: str | None = None
    for v in (_scalars_written(first) | _scalars_written(second)) - {var} - private:
        if _touches_scalar(first, v) and _touches_scalar(second, v):
            return "both"
    arrays_written = _arrays_written(first) | _arrays_written(second)
    for x in arrays_written:
        ia, ib = _indices(first, x), _indices(second, x)
        if not ia or not ib:
            continue
        both = ia | ib
        if len(both) == 1 and is_offset_index(next(iter(both)), var, assigned):
            out = "forward"  # the same element of iteration i in both: within the iteration
            continue
        return "both"
    return out


def _scalars_written(s: Stmt) -> set[str]:
    """The scalars ``s`` assigns, except counters of its loops that it reads only inside
    them (each loop resets its counter before reading it)."""
    written = assigned_scalars([s])
    counters = {x.var for x in all_stmts([s]) if isinstance(x, For)}
    return {v for v in written if v not in counters or _read_outside_loops(s, v)}


def _read_outside_loops(s: Stmt, v: str) -> bool:
    if any(v in expr_reads(e) for e in stmt_expressions(s)):
        return True
    if isinstance(s, For):
        return s.var != v and any(_read_outside_loops(b, v) for b in s.body)
    return False


def _touches_scalar(s: Stmt, v: str) -> bool:
    return v in _scalars_written(s) or _read_outside_loops(s, v)


def _arrays_written(s: Stmt) -> set[str]:
    return {x.array for x in all_stmts([s]) if isinstance(x, Store)}


def _indices(s: Stmt, array: str) -> set[Expr]:
    """Every index ``s`` accesses ``array`` at (loads and stores)."""
    out: set[Expr] = set()
    for x in all_stmts([s]):
        if isinstance(x, Store) and x.array == array:
            out.add(x.index)
        for e in stmt_expressions(x):
            out |= {n.index for n in subexpressions(e) if isinstance(n, Load) and n.array == array}
    return out
