"""Loop interchange (Allen & Kennedy, *Optimizing Compilers for Modern Architectures*, 2001,
§5.2): a nest whose inner loop runs over the elements it updates, moved inside out.

Shipped matrix products accumulate over the middle loop of an ``i, k, j`` nest, with a
value of the middle loop hoisted out of the inner one::

    for (k = 0; k < K; ++k) {
        register float A_PART = ALPHA * A[i*lda + k];
        for (j = 0; j < N; ++j)
            C[i*ldc + j] += A_PART * B[k*ldb + j];
    }

The kernel shapes (``tenspiler.vc``) take a nest whose inner loop reduces into an element
of the outer one. :func:`interchanged` rewrites a loop ``for k { t1 = e1; ...; for j { S } }``
into ``for j { for k { t1 = e1; ...; S } }`` when that ends in the same state on every
input:

* the inner loop's bounds read neither ``k`` nor anything the nest assigns (the iteration
  domain is a rectangle, so both orders run the same iterations);
* the hoisted scalars ``t`` are assigned only there, from values that read no array the
  nest writes and no scalar it assigns but ``k`` and the earlier ``t`` (recomputing them per
  ``j`` gives the same values: ``j`` itself has its value before the nest, then its final
  one, where C computes them); they, ``j`` and ``k`` are
  read nowhere outside the nest (their values after it may differ), and their values
  cannot raise (no division, remainder or call: a Python error must not move);
* ``S`` stores into arrays and assigns only scalars private to an iteration (assigned
  before any read of them in ``S``, read nowhere else); every access to an array the nest
  writes is at one index ``j + e`` (``e`` free of ``j``, ``k`` and what the nest assigns):
  two iterations ``(k, j)``, ``(k', j')`` touch the same element only when ``j = j'``, and
  for each ``j`` the iterations over ``k`` keep their order — every dependence of the nest
  has distance ``(+, 0)``, which the interchange keeps lexicographically positive. No
  reassociation is involved (each element sees the same operations in the same order),
  so the rewrite is exact for floats too; distinct array parameters do not alias (an
  assumption the proof states).

:func:`tenspiler.vc.analyze.analyze_kernel` uses the rewritten function only when the
function as written (and its scalar replacement) is outside every kernel shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tenspiler.loops.ir import (
    Assign,
    Binary,
    Call,
    Expr,
    For,
    Function,
    Load,
    Stmt,
    Store,
    all_stmts,
    assigned_scalars,
    expr_reads,
    is_offset_index,
    stmt_expressions,
    subexpressions,
)

__all__ = ["interchanged"]


def interchanged(fn: Function) -> Function | None:
    """``fn`` with every eligible nest interchanged (module docstring), or ``None`` when no
    nest is eligible."""
    changed = False

    def block(body: Sequence[Stmt]) -> tuple[Stmt, ...]:
        nonlocal changed
        out: list[Stmt] = []
        for s in body:
            if isinstance(s, For):
                new = _interchange(fn, s)
                if new is not None:
                    changed = True
                    out.append(new)
                    continue
                s = replace(s, body=block(s.body))
            out.append(s)
        return tuple(out)

    body = block(fn.body)
    return replace(fn, body=body) if changed else None


def _interchange(fn: Function, outer: For) -> For | None:
    *hoisted, inner = outer.body or (None,)
    if not isinstance(inner, For) or not all(isinstance(s, Assign) for s in hoisted):
        return None
    if outer.descending or inner.descending:
        return None
    k, j = outer.var, inner.var
    assigned = assigned_scalars([outer])
    if (expr_reads(inner.start) | expr_reads(inner.stop)) & assigned:
        return None
    # the inner body: stores, and scalars private to an iteration (assigned before any read
    # of them in it: an if-converted condition's flag)
    private: list[str] = []
    for n, s in enumerate(inner.body):
        if isinstance(s, Store):
            continue
        if not isinstance(s, Assign) or s.target in private or s.target in {k, j}:
            return None
        if any(s.target in expr_reads(e) for st in (*hoisted, *inner.body[: n + 1]) for e in stmt_expressions(st)):
            return None
        private.append(s.target)
    written = {s.array for s in inner.body if isinstance(s, Store)}
    temps = [s.target for s in hoisted if isinstance(s, Assign)]
    if len(set(temps)) != len(temps) or {k, j} & set(temps) or set(temps) & set(private):
        return None
    for p, s in enumerate(hoisted):
        assert isinstance(s, Assign)
        # a hoisted value reads k, the parameters and the earlier hoisted values only: the
        # inner counter or another scalar the nest assigns has another value there after
        # the interchange (j: its value before the nest, then N, as C runs it)
        if expr_reads(s.value) & (assigned - {k} - set(temps[:p])):
            return None
        for e in subexpressions(s.value):
            if isinstance(e, Load) and e.array in written:
                return None
            if isinstance(e, Call) or (isinstance(e, Binary) and e.op in ("/", "%")):
                return None
    # every access to a written array: at one index j + e, e free of j, k and the nest's scalars
    index: dict[str, Expr] = {}
    for s in all_stmts(outer.body):
        # (an access's row / plane, the column checks of a 2-D array element, are checked in
        # either order: the same accesses run)
        accesses: list[tuple[str, Expr]] = []
        if isinstance(s, Store):
            accesses.append((s.array, s.index))
        for e in stmt_expressions(s):
            accesses += [(x.array, x.index) for x in subexpressions(e) if isinstance(x, Load)]
        for array, idx in accesses:
            if array not in written:
                continue
            if not is_offset_index(idx, j, assigned):
                return None
            if index.setdefault(array, idx) != idx:
                return None
    # the hoisted scalars and both counters are read only inside the nest
    if _read_outside(fn.body, outer, {k, j, *temps, *private}):
        return None
    new_inner = For(k, outer.start, outer.stop, (*hoisted, *inner.body), outer.loc, False)
    return For(j, inner.start, inner.stop, (new_inner,), inner.loc, False)


def _read_outside(body: Sequence[Stmt], nest: For, names: set[str]) -> bool:
    """Whether a statement of ``body`` other than ``nest`` reads one of ``names`` (inside
    another loop over one of them, that loop's own counter does not count)."""
    for s in body:
        if s is nest:
            continue
        if any(expr_reads(e) & names for e in stmt_expressions(s)):
            return True
        if isinstance(s, For) and _read_outside(s.body, nest, names - {s.var}):
            return True
    return False
