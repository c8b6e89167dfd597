"""Counters of loops normalised: copies of loop bounds forwarded, unread counters rebased to 0.

Shipped C counts loops down with a counter reset before each inner loop and walks arrays
with pointer bumps (CMSIS-DSP style)::

    while (blkCntVector > 0) {
        pOut = out;  w = *pW++;
        blkCntSample = vecDim;
        while (blkCntSample > 0) { *pOut = *pOut + *pIn++ * w; pOut++; blkCntSample--; }
        blkCntVector--;
    }

The frontend's induction-variable analysis (:mod:`tenspiler.frontend.c_induction`) reads
each ``while`` as a counted loop ``for k in [1, e + 1)`` over a copy ``e`` of the counter's
entry value, with the counter's exit value assigned after the loop. Inside a nest that copy
is assigned in the outer loop (``e = blkCntSample`` after ``blkCntSample = vecDim``), so the
inner loop's bound looks as if the nest changed it, and the inner loop does not start at 0.
:func:`counters_rebased` rewrites the function without changing any state it ends in:

1. **copy propagation** of ``INT`` temporaries of scalars
   (:func:`~tenspiler.loops.ir.forward_index_temporaries`) over the whole body, so the
   inner bound reads ``vecDim`` itself;
2. **dead-assignment elimination** of scalars read nowhere afterwards (none of the
   function's expressions reads them and no later analysis is told they are live): only
   assignments of ``INT`` values that cannot trap (no array read, call, division or conversion), so nothing that could fail at run time is dropped;
3. **rebasing**: a loop whose counter no expression of the function reads runs the same
   body ``max(0, stop - start)`` times whatever the counter's values, so ``for k in [a, b)``
   becomes ``for k in [0, b - a)`` (``[1, e + 1)`` becomes ``[0, e)``);
4. **induction-variable substitution** (Allen & Kennedy 2001, §4.5.2) in loops from 0 that
   ascend, innermost first: a scalar ``p`` of the mathematical ``INT`` type that the body
   assigns only at its top level and only as steps ``p = p + e_1``, …, ``p = p + e_m``
   (each ``e`` loop-invariant; a pointer bump ``*pW++``) is read as its closed form
   ``p0 + E*k + e_1 + … + e_{l-1}`` between steps ``l-1`` and ``l`` (``E`` the sum of the
   steps, ``p0`` a copy of its entry value), and leaves the loop as ``p0 + E*trips`` when
   something may read it afterwards. ``trips`` is the bound when it cannot be negative (a
   literal, an unsigned parameter) or is an expression of parameters — then under the
   precondition ``0 <= bound`` (``Function.requires``), which every loop kernel states
   about its trip count anyway —, else ``bound > 0 ? bound : 0``. ``w = *pW++`` becomes
   ``w = W[k]``, a value of the iteration alone, which loop distribution may then
   recompute (:mod:`tenspiler.loops.distribute`).

Steps 1 and 2 run again after step 4 (the entry copies are forwarded and dropped), and step 4
again while it finds an induction (``pIn`` stepped by the inner loop's trip count is one of
the outer loop).

:func:`tenspiler.vc.analyze.analyze_kernel` uses the rewritten function only when the
function as written is outside every kernel shape.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from tenspiler.loops.ir import (
    Assign,
    Binary,
    Call,
    Cast,
    Compare,
    Const,
    DType,
    Expr,
    For,
    Function,
    Load,
    Select,
    Stmt,
    Var,
    all_stmts,
    assigned_scalars,
    expr_reads,
    forward_index_temporaries,
    map_stmt_exprs,
    stmt_expressions,
    subexpressions,
)

__all__ = ["TRAPPING_OPS", "counters_rebased"]

#: Operators that can trap or are undefined on some operands (C11 §6.5.5p5, §6.5.7p3).
TRAPPING_OPS = frozenset({"/", "%", "//", "mod", "pow"})


def counters_rebased(fn: Function, live_out: Iterable[str] = ()) -> Function | None:
    """``fn`` with its loop counters normalised (module docstring), or ``None`` when that
    changes nothing. ``live_out``: scalars a later analysis reads after ``fn`` (kept)."""
    dtypes = dict(fn.locals)
    body = forward_index_temporaries(fn.body, dtypes)
    keep = set(live_out)
    body = _pruned(body, keep, dtypes)
    read = _reads(body)
    body = tuple(_rebased(s, read) for s in body)
    entry = {p.name for p in fn.scalars} - assigned_scalars(fn.body)  # parameters at their entry values
    unsigned = {p.name for p in fn.scalars if p.c_type.startswith("unsigned") and p.name in entry}
    requires: list[tuple[Expr, Expr, str]] = []

    def trip_count(loop: For) -> Expr:
        """The number of iterations of ``loop`` (from 0 to ``stop``): ``stop`` when it cannot
        be negative (a literal or an unsigned parameter) or is an expression of parameters,
        stated as a precondition ``0 <= stop`` (as every loop kernel states it); else
        ``stop > 0 ? stop : 0``."""
        n = loop.stop
        if (isinstance(n, Const) and isinstance(n.value, int) and n.value >= 0) or (
                isinstance(n, Var) and n.name in unsigned):
            return n
        if expr_reads(n) <= entry and not any(isinstance(x, Load | Call) for x in subexpressions(n)):
            line = f" at line {loop.loc.line}" if loop.loc is not None else ""
            requires.append((Const(0, DType.INT), n, f"the loop{line} runs a non-negative number of times"))
            return n
        return Select(Compare(">", n, Const(0, DType.INT)), n, Const(0, DType.INT), DType.INT)

    copies: list[str] = []
    while True:  # (a step by an inner loop's trip count is an induction of the outer loop once that is done)
        body, more = _inductions_substituted(body, dtypes, keep, trip_count)
        if not more:
            break
        copies += more
        body = _pruned(forward_index_temporaries(body, dtypes), keep, dtypes)
    if body == fn.body:
        return None
    return replace(fn, body=body, locals=(*fn.locals, *((c, DType.INT) for c in copies)),
                   requires=(*fn.requires, *dict.fromkeys(requires)))


def _pruned(body: tuple[Stmt, ...], keep: set[str], dtypes: dict[str, DType]) -> tuple[Stmt, ...]:
    while True:
        pruned = _without_dead(body, _reads(body) | keep, dtypes)
        if pruned == body:
            return body
        body = pruned


def _inductions_substituted(body: tuple[Stmt, ...], dtypes: dict[str, DType], keep: set[str] | None,
                            trip_count: Callable[[For], Expr]) -> tuple[tuple[Stmt, ...], list[str]]:
    """Step 4 of the module docstring on each loop of ``body``, innermost first; the entry
    copies it introduced. ``keep``: scalars read after ``body`` (``None`` for a loop's body:
    any may be, by a later iteration). ``trip_count``: a loop's number of iterations."""
    out: list[Stmt] = []
    copies: list[str] = []
    for at, s in enumerate(body):
        if not isinstance(s, For):
            out.append(s)
            continue
        inner, more = _inductions_substituted(s.body, dtypes, None, trip_count)
        copies += more
        s = replace(s, body=inner)
        if s.descending or not (isinstance(s.start, Const) and s.start.value == 0):
            out.append(s)
            continue
        later = None if keep is None else _reads(body[at + 1:]) | keep
        exits: list[Stmt] = []
        while (found := _steps(s, dtypes)):
            p, steps = found[0]
            copy = _fresh(f"{p}__iv", dtypes, copies)
            copies.append(copy)
            dtypes[copy] = DType.INT
            k = Var(s.var, DType.INT)
            base = Var(copy, DType.INT)
            total = _sum([e for _, e in steps])
            # the statements between step m-1 and step m read p0 + E*k + e_1 + … + e_{m-1}
            new_body: list[Stmt] = []
            done: list[Expr] = []
            last = -1
            for pos, e in [*steps, (len(s.body), None)]:
                value = _plus(base, _times(total, k))
                if done:
                    value = _plus(value, _sum(done))
                new_body += _substituted(s.body[last + 1:pos], p, value)
                if e is not None:
                    done.append(e)
                last = pos
            out.append(Assign(copy, Var(p, DType.INT), s.loc))
            s = replace(s, body=tuple(new_body))
            if later is None or p in later:
                trips = trip_count(s)
                exits.append(Assign(p, _plus(base, _times(total, trips)), s.loc))
        out.append(s)
        out.extend(exits)
    return tuple(out), copies


def _substituted(stmts: Sequence[Stmt], name: str, value: Expr) -> list[Stmt]:
    """``stmts`` reading ``value`` where they read the scalar ``name``."""
    def sub(n: Expr) -> Expr:
        return value if isinstance(n, Var) and n.name == name else n

    return [map_stmt_exprs(st, sub) for st in stmts]


def _steps(loop: For, dtypes: dict[str, DType]) -> list[tuple[str, list[tuple[int, Expr]]]]:
    """``(p, [(position, e), …])`` for each scalar ``p`` (of type ``INT``, not the counter)
    that ``loop``'s body assigns only at its top level and only as ``p = p + e``, each step
    ``e`` an ``INT`` expression of scalars the loop leaves unchanged (no array read, call or
    division), in order of the first step."""
    out: dict[str, list[tuple[int, Expr]]] = {}
    assigned = assigned_scalars([loop])
    nested = assigned_scalars([st for st in loop.body if isinstance(st, For)])
    wrong: set[str] = set(nested) | {loop.var}
    for pos, st in enumerate(loop.body):
        if not isinstance(st, Assign):
            continue
        match st:
            case Assign(p, Binary("+", Var(name=q), step)) if (
                    p == q and dtypes.get(p) is DType.INT and getattr(step, "dtype", None) is DType.INT
                    and _cannot_trap(step) and not expr_reads(step) & assigned):
                out.setdefault(p, []).append((pos, step))
            case _:
                wrong.add(st.target)
    return [(p, steps) for p, steps in out.items() if p not in wrong]


def _sum(es: Sequence[Expr]) -> Expr:
    total = es[0]
    for e in es[1:]:
        total = _plus(total, e)
    return total


def _plus(a: Expr, b: Expr) -> Expr:
    return Binary("+", a, b, DType.INT)


def _times(c: Expr, k: Expr) -> Expr:
    return k if isinstance(c, Const) and c.value == 1 else Binary("*", c, k, DType.INT)


def _fresh(stem: str, dtypes: dict[str, DType], taken: list[str]) -> str:
    name, n = stem, 0
    while name in dtypes or name in taken:
        n += 1
        name = f"{stem}{n}"
    return name


def _reads(body: Sequence[Stmt]) -> set[str]:
    return {n for st in all_stmts(body) for e in stmt_expressions(st) for n in expr_reads(e)}


def _cannot_trap(e: Expr) -> bool:
    return not any(isinstance(x, Load | Call | Cast) or (isinstance(x, Binary) and x.op in TRAPPING_OPS)
                   for x in subexpressions(e))


def _without_dead(body: Sequence[Stmt], read: set[str], dtypes: dict[str, DType]) -> tuple[Stmt, ...]:
    out: list[Stmt] = []
    for s in body:
        if isinstance(s, For):
            out.append(replace(s, body=_without_dead(s.body, read, dtypes)))
        elif (isinstance(s, Assign) and s.target not in read and dtypes.get(s.target) is DType.INT
              and _cannot_trap(s.value)):
            continue
        else:
            out.append(s)
    return tuple(out)


def _rebased(s: Stmt, read: set[str]) -> Stmt:
    if not isinstance(s, For):
        return s
    body = tuple(_rebased(b, read) for b in s.body)
    if s.var in read or (isinstance(s.start, Const) and s.start.value == 0):
        return replace(s, body=body)
    stop: Expr
    match s.stop:
        case Binary("+", left, Const(value=c)) if isinstance(s.start, Const) and c == s.start.value:
            stop = left
        case _:
            stop = Binary("-", s.stop, s.start, DType.INT, s.stop.loc)
    return replace(s, start=Const(0, DType.INT, s.start.loc), stop=stop, body=body)
