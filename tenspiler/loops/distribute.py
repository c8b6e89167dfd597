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

Two statements that only write an array (neither reads it) at elements that are distinct
for every pair of their iterations are no dependence either: cvc5 answers ``unsat`` for
"both iterations in their loops' ranges and both indices equal", over the integers, within a
resource limit (``out[(nx+ny)*j + i]`` for ``i < nx`` and ``out[(nx+ny)*j + nx + i]``).

:func:`tenspiler.vc.analyze.analyze_kernel` uses the rewritten function only when the
function as written is outside every kernel shape.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import replace

from tenspiler.loops.ir import (
    Assign,
    Binary,
    Const,
    DType,
    Expr,
    For,
    Function,
    Load,
    Return,
    Stmt,
    Store,
    Var,
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
            dep = _dependence(body[a], body[b], loop, assigned, private)
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


def _dependence(first: Stmt, second: Stmt, loop: For, assigned: set[str], private: Set[str] = frozenset()) -> str | None:
    """How ``second`` (after ``first`` in the body of ``loop``) depends on ``first``:
    ``"both"`` (possibly across iterations either way), ``"forward"`` (within an
    iteration only), or ``None``. ``private``: recomputed scalars (each part has its own
    copy, so none is a dependence)."""
    var = loop.var
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
        if _writes_disjoint(first, second, x, loop, assigned):
            continue  # (only written, never the same element: in any order the same array)
        return "both"
    return out


#: cvc5 resource units for one disjointness query (a deterministic budget, as for VC clauses).
_DISJOINT_RLIMIT = 200_000


def _writes_disjoint(first: Stmt, second: Stmt, array: str, loop: For, assigned: set[str]) -> bool:
    """Whether ``first`` and ``second`` only write ``array`` (neither reads it) and no
    element one writes, at any iteration of ``loop``, is an element the other writes: for
    every pair of their stores, the integer constraints "both iterations in their loops'
    ranges and both indices equal" are ``unsat`` for cvc5 (within a resource limit; anything
    else — ``sat``, ``unknown``, an index that is not a polynomial of loop counters and
    values the loop leaves unchanged — is a dependence). The two statements then commute as
    far as ``array`` goes: its final contents are the same in either order."""
    if _reads_array(first, array) or _reads_array(second, array):
        return False
    spaces = [_store_spaces(st, array, loop, assigned, tag) for st, tag in ((first, "a"), (second, "b"))]
    if spaces[0] is None or spaces[1] is None:
        return False
    for cons1, idx1, names1 in spaces[0]:
        for cons2, idx2, names2 in spaces[1]:
            decls = "".join(f"(declare-const {n} Int)" for n in sorted(names1 | names2))
            facts = "".join(f"(assert {c})" for c in (*cons1, *cons2, f"(= {idx1} {idx2})"))
            if _answer(f"(set-logic ALL){decls}{facts}(check-sat)") != "unsat":
                return False
    return True


def _reads_array(s: Stmt, array: str) -> bool:
    return any(isinstance(n, Load) and n.array == array
               for x in all_stmts([s]) for e in stmt_expressions(x) for n in subexpressions(e))


_Space = tuple[tuple[str, ...], str, set[str]]


def _store_spaces(s: Stmt, array: str, loop: For, assigned: set[str], tag: str) -> list[_Space] | None:
    """For each store of ``s`` to ``array``: the range constraints of the loops around it
    (``loop`` and those inside ``s``, counters renamed by ``tag``), its index, and the names
    they read, as SMT-LIB; ``None`` when an index or bound is not a polynomial of those
    counters and of scalars the loop leaves unchanged."""
    out: list[_Space] = []

    def walk(st: Stmt, loops: tuple[For, ...]) -> bool:
        if isinstance(st, For):
            return all(walk(b, (*loops, st)) for b in st.body)
        if isinstance(st, Store) and st.array == array:
            counters = {lp.var for lp in loops}
            names: set[str] = set()
            cons: list[str] = []
            for lp in loops:
                lo, hi = _smt(lp.start, counters, assigned, tag, names), _smt(lp.stop, counters, assigned, tag, names)
                if lo is None or hi is None:
                    return False
                v = _name(lp.var, counters, tag)
                names.add(v)
                cons += [f"(<= {lo} {v})", f"(< {v} {hi})"]
            idx = _smt(st.index, counters, assigned, tag, names)
            if idx is None:
                return False
            out.append((tuple(cons), idx, names))
        return True

    return out if walk(s, (loop,)) else None


def _name(name: str, counters: set[str], tag: str) -> str:
    return f"|{name}.{tag}|" if name in counters else f"|{name}|"


def _smt(e: Expr, counters: set[str], assigned: set[str], tag: str, names: set[str]) -> str | None:
    """``e`` as an SMT-LIB integer term, or ``None`` outside ``+ - *`` of integer literals,
    loop counters and scalars the loop leaves unchanged."""
    match e:
        case Const(value=v) if isinstance(v, int) and not isinstance(v, bool):
            return str(v) if v >= 0 else f"(- {-v})"
        case Var(name=n, dtype=DType.INT) if n in counters or n not in assigned:
            names.add(_name(n, counters, tag))
            return _name(n, counters, tag)
        case Binary(op, left, right) if op in ("+", "-", "*"):
            a, b = _smt(left, counters, assigned, tag, names), _smt(right, counters, assigned, tag, names)
            return None if a is None or b is None else f"({op} {a} {b})"
    return None


def _answer(script: str) -> str:
    import cvc5  # (where a disjointness is asked: a lift that asks none does not load it here)

    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    solver.setOption("rlimit-per", str(_DISJOINT_RLIMIT))
    parser = cvc5.InputParser(solver)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, script, "disjoint")
    symbols = parser.getSymbolManager()
    answer = ""
    while True:
        cmd = parser.nextCommand()
        if cmd.isNull():
            return answer
        answer = cmd.invoke(solver, symbols).strip() or answer


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
