"""Doubly nested loops: shape analysis and verification conditions.

Supported shape (the flattened 2-D kernels of the corpus)::

    pre;  for (i = s; i < m; i++) { pre_i;  for (j = 0; j < n; j++) body;  post_i }  post

with ``n`` invariant in both loops. Outputs:

* **linear** arrays, written in ``body`` at ``i*n + j + c``: after rows ``< i`` and columns
  ``< j`` of row ``i`` the written elements are exactly the prefix ``[c, i*n + j + c)`` of
  the flattened array, so the 1-D pointwise machinery applies with the bound
  ``L = i*n + j`` (outer invariant: ``L = i*n``);
* **row** arrays, written in ``post_i`` at ``i + c`` from per-row reductions: inner
  accumulators reset in ``pre_i`` and updated ``s = s ± F`` in ``body``. Their summaries are
  1-D tensors over rows built with ``reduce_rows`` of 2-D terms (``matrix(A, m, n)``); the
  inner invariant is the same reduction over the prefix ``j`` of row ``i``.

Clauses (each must be ``unsat`` when negated): ``initiation`` (outer), ``inner-initiation``,
``inner-preservation``, ``inner-exit``, ``outer-step`` (inner exit + ``post_i`` re-establish
the outer invariant at ``i + 1``), ``exit``, ``post``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, assert_never, cast

from tenspiler.errors import NotLiftable
from tenspiler.ir import semantics as sem
from tenspiler.ir.printer import show, show_summary
from tenspiler.ir.smt import SmtEncoder, array_sort
from tenspiler.ir.terms import (
    ArrayOutput,
    Flatten,
    Full,
    Lit,
    ProgramSummary,
    Scalar,
    ScalarOp,
    ScalarOutput,
    ScalarVar,
    TensorVar,
    Term,
    as_tensor,
    free_vars,
    substitute,
)
from tenspiler.loops.ir import (
    Assign,
    Binary,
    Call,
    Cast,
    Const,
    DType,
    Expr,
    For,
    Function,
    Load,
    Return,
    Select,
    Stmt,
    Store,
    Unary,
    Var,
    all_stmts,
    map_stmt_exprs,
)
from tenspiler.vc import symexec
from tenspiler.vc.conditions import (
    BOUND,
    COL,
    DIVISORS_ASSUMPTION,
    VC,
    Candidate,
    Clause,
    c_text,
    certificate_title,
    encode_expr,
    entry_declarations,
    entry_name,
    fold_summary,
    head_name,
    input_assumptions,
    lift_entry_scalar,
    matrix_element,
    nonzero_divisors,
    plus_const,
    smt_add,
    summary_goal,
)
from tenspiler.vc.kernel import ScalarTarget, stores_after
from tenspiler.vc.symexec import SymState

INT = DType.INT


@dataclass(frozen=True)
class LinearOutput:
    """An array the inner body writes at ``i*n + j + offset``; ``value`` over the inner head."""

    array: str
    offset: int
    value: Expr
    dtype: DType


@dataclass(frozen=True)
class RowOutput:
    """An array ``post_i`` writes at ``i + offset``; ``value`` over the inner-loop exit state."""

    array: str
    offset: int
    value: Expr
    dtype: DType


@dataclass(frozen=True)
class NestInduction:
    """A scalar stepped by constants in a loop nest (pointer walking, ``out[k++]``).

    ``outer``: its value at the outer-loop head (over the entry state and ``i``), or
    ``None`` when ``pre_i`` resets it before use; ``inner``: its value at the inner-loop
    head (over the entry state, ``i`` and ``j``), or ``None`` when the inner loop does not
    step it."""

    name: str
    outer: Expr | None
    inner: Expr | None


@dataclass(frozen=True)
class NestKernel:
    """A doubly nested kernel (see the module docstring). Expressions named ``*_entry`` are
    over the function-entry state; ``pre_i`` is over the outer-loop head, ``body`` over the
    inner-loop head, ``post_i`` over the inner-loop exit state."""

    fn: Function
    pre: SymState
    outer: For
    inner: For
    start: Expr
    stop: Expr
    cols: Expr
    pre_i: SymState
    body: SymState
    post_i: SymState
    scalars: tuple[ScalarTarget, ...]  # inner accumulators; init over the outer head
    linear: tuple[LinearOutput, ...]
    rows: tuple[RowOutput, ...]
    result: Expr | None
    inductions: tuple[NestInduction, ...] = ()
    totals: tuple[ScalarTarget, ...] = ()  # accumulated over the whole nest; init over the entry
    #: Shape preconditions ``(cols of a vector<vector<T>> parameter, n)`` over the entry
    #: state (see :func:`unify_row_strides`).
    same_cols: tuple[tuple[Expr, Expr], ...] = ()
    #: Every scalar the nest assigns and its role (:data:`ROLES`), sorted by name.
    roles: tuple[tuple[str, str], ...] = ()
    #: Scalars a later loop phase reads (:mod:`tenspiler.vc.phases`): totals of the nest or
    #: values set before it; outputs of the summary, proved by the post clause.
    live_out: tuple[str, ...] = ()
    #: ``(array, index, value)`` of each store after the nest (``*total = s;``), over the
    #: exit state: as :attr:`tenspiler.vc.kernel.LoopKernel.post_stores`.
    post_stores: tuple[tuple[str, Expr, Expr], ...] = ()
    #: live-out scalars assigned after the nest: ``(name, value over the exit state)``
    post_scalars: tuple[tuple[str, Expr], ...] = ()

    def final_value(self, name: str) -> Expr:
        """Scalar ``name`` at the end of the function, over the nest's exit state."""
        return dict(self.post_scalars).get(name, Var(name, self.fn.dtype_of(name)))

    @property
    def i(self) -> str:
        return self.outer.var

    @property
    def j(self) -> str:
        return self.inner.var

    nested = True

    @property
    def bounds(self) -> tuple[Expr, ...]:
        """The loop bounds the test inputs are sized for."""
        return (self.stop, self.cols)

    def entry_value(self, name: str) -> Expr:
        return self.pre.scalars.get(name, Var(name, self.fn.dtype_of(name)))

    def admits(self, inputs: Mapping[str, Any]) -> bool:
        """Preconditions on concrete inputs: ``0 <= start <= stop``, ``n >= 0`` and every
        array long enough for the rows, row vectors and outer elements the summary uses."""
        from tenspiler.ir.interp import evaluate

        start, stop, cols = (int(evaluate(lift_entry_scalar(e), inputs)) for e in (self.start, self.stop, self.cols))
        if not (0 <= start <= stop and cols >= (1 if self.keeps_row_maximum else 0)):
            return False
        for lhs, rhs in self.same_cols:
            if evaluate(lift_entry_scalar(lhs), inputs) != evaluate(lift_entry_scalar(rhs), inputs):
                return False
        for r in self.general_reads():
            if not self._fits(r, inputs, stop, cols):
                return False
        for a, (kind, d) in self.accesses().items():
            need = {"matrix": stop * cols, "row": cols, "outer": stop}[kind] + d
            if len(inputs[a]) < need or (kind == "outer" and start + d < 0) or (d < 0 and kind != "outer"):
                return False
        return True

    def trip_counts(self) -> list[tuple[Scalar, Scalar, str]]:
        """Each loop runs a non-negative number of times (the rows at least once for a row
        maximum), and the nest's first row is a row of the arrays."""
        zero = Lit(0, DType.INT)
        start, stop, cols = (lift_entry_scalar(e) for e in (self.start, self.stop, self.cols))
        inner = (
            (Lit(1, DType.INT), cols, "the inner loop runs at least once (a row maximum of an empty row is undefined)")
            if self.keeps_row_maximum
            else (zero, cols, "the inner loop runs a non-negative number of times")
        )
        return [
            (start, stop, "the outer loop runs a non-negative number of times"),
            inner,
            (zero, start, "the nest's first row is a row of the arrays"),
        ]

    @property
    def keeps_row_maximum(self) -> bool:
        """Some row is reduced by a running maximum (rows must then be non-empty)."""
        from tenspiler.vc.updates import maximum_part

        return any(maximum_part(s) is not None for s in self.scalars)

    def accesses(self) -> dict[str, tuple[str, int]]:
        """Array → (``"matrix"`` for ``A[i*n + j + d]``, ``"row"`` for ``x[j + d]``,
        ``"outer"`` for ``b[i + d]``; the largest ``d``)."""
        out: dict[str, tuple[str, int]] = {}
        lin = self.linear_index()

        def note(a: str, kind: str, d: int) -> None:
            old = out.get(a)
            out[a] = (kind, d if old is None else max(d, old[1]))

        for e in [o.value for o in self.linear] + [s.update for s in (*self.scalars, *self.totals)]:
            for ld in symexec.loads(e):
                d = symexec.index_difference(ld.index, lin)
                if d is not None:
                    note(ld.array, "matrix", d)
                elif (d := symexec.index_difference(ld.index, Var(self.j, INT))) is not None:
                    note(ld.array, "row", d)
                # strided, transposed and symbolic-offset reads: see general_reads()
        for o in self.linear:
            note(o.array, "matrix", o.offset)
        for r in self.rows:
            note(r.array, "outer", r.offset)
            for ld in symexec.loads(r.value):
                note(ld.array, "outer", symexec.index_difference(ld.index, Var(self.i, INT)) or 0)
        return out

    @property
    def assigned(self) -> set[str]:
        """Variables the nest assigns (counters included)."""
        return set(self.pre_i.scalars) | set(self.body.scalars) | set(self.post_i.scalars) | {self.i, self.j}

    def general_reads(self) -> list[Read]:
        """The inner body's reads that are not ``A[i*n + j + d]`` / ``x[j + d]`` with a
        constant ``d`` (deduplicated)."""
        out: list[Read] = []
        for e in [o.value for o in self.linear] + [s.update for s in (*self.scalars, *self.totals)]:
            for ld in symexec.loads(e):
                r = classify_read(self, ld)
                general = r is not None and (r.kind in ("strided", "transposed", "outer", "column") or not isinstance(r.offset, Const))
                if general and r not in out:
                    out.append(r)  # type: ignore[arg-type]
        return out

    def _fits(self, r: Read, inputs: Mapping[str, Any], stop: int, cols: int) -> bool:
        """Concrete inputs: every element read ``r`` covers exists (non-negative offsets)."""
        from tenspiler.ir.interp import evaluate

        n = len(inputs[r.array])
        off = int(evaluate(lift_entry_scalar(r.offset), inputs))
        if not 0 <= off <= n:
            return False  # the summary views the array from element off on
        if r.kind == "row":
            return off + max(cols, 0) <= n
        if r.kind == "outer":
            return off + max(stop, 0) <= n
        s = int(evaluate(lift_entry_scalar(r.stride), inputs)) if r.stride is not None else cols
        if s < 0:
            return False
        if stop <= 0 or cols <= 0:
            return True
        last = off + (stop - 1) * s + cols if r.kind == "strided" else off + (cols - 1) * s + stop
        return off >= 0 and s >= 0 and last <= n

    def summary(self, cand: Candidate) -> ProgramSummary:
        return nest_summary(self, cand)

    def vc(self, cand: Candidate, ps: ProgramSummary | None = None) -> VC:
        return build_nest_vc(self, cand, ps)

    def invariants(self, cand: Candidate) -> list[str]:
        return nest_invariants(self, cand)

    def linear_index(self) -> Expr:
        """``i*n + j`` over the inner head."""
        return Binary("+", Binary("*", Var(self.i, INT), self.cols, INT), Var(self.j, INT), INT)


def analyze_nest(fn: Function, live_out: tuple[str, ...] = ()) -> NestKernel:
    """Classify a doubly nested kernel; :class:`NotLiftable` (located) outside the shape.
    ``live_out``: scalars a later loop phase reads."""
    loops = [k for k, s in enumerate(fn.body) if isinstance(s, For)]
    if len(loops) != 1:
        raise NotLiftable("exactly one top-level loop nest is supported", fn.loc)
    outer = fn.body[loops[0]]
    assert isinstance(outer, For)
    inner_at = [k for k, s in enumerate(outer.body) if isinstance(s, For)]
    if len(inner_at) != 1:
        raise NotLiftable("the outer loop must contain exactly one inner loop", outer.loc)
    inner = outer.body[inner_at[0]]
    assert isinstance(inner, For)
    for lp in (outer, inner):
        if lp.descending:
            raise NotLiftable("descending loops in a loop nest are not supported yet", lp.loc)
    for s in inner.body:
        if isinstance(s, For):
            raise NotLiftable("loop nests deeper than two are not supported yet", s.loc)
        if isinstance(s, Return):
            raise NotLiftable("return inside a loop is not supported", s.loc)
    pre_stmts, post_stmts = fn.body[: loops[0]], fn.body[loops[0] + 1 :]
    pre = symexec.execute(pre_stmts)
    nest_writes = {st.target for st in all_stmts(outer.body) if isinstance(st, Assign)}
    nest_writes |= {outer.var, inner.var}
    # locals fixed before the nest (``int n = cols;``) read as their values inside it
    fixed = {x: v for x, v in pre.scalars.items()
             if x not in nest_writes and not any(True for _ in symexec.loads(v)) and not symexec.reads(v) & nest_writes}
    if fixed:
        outer = replace(outer, body=tuple(map_stmt_exprs(st, lambda e: fixed.get(e.name, e) if isinstance(e, Var) else e) for st in outer.body))
        inner = outer.body[inner_at[0]]
        assert isinstance(inner, For)
    inner, same_cols = unify_row_strides(inner, pre, nest_writes)
    outer = replace(outer, body=(*outer.body[: inner_at[0]], inner, *outer.body[inner_at[0] + 1 :]))
    fn = replace(fn, body=(*fn.body[: loops[0]], outer, *fn.body[loops[0] + 1 :]))
    pre_i_stmts, post_i_stmts = outer.body[: inner_at[0]], outer.body[inner_at[0] + 1 :]
    if pre.stores or pre.has_return:
        raise NotLiftable("array writes or return before the loop nest are not supported", outer.loc)
    start = symexec.substitute(outer.start, pre)
    stop = symexec.substitute(outer.stop, pre)
    fn, pre_i_list, inner, post_i_list, cells = promote_cells(fn, inner, pre_i_stmts, post_i_stmts)
    pre_i_stmts, post_i_stmts = tuple(pre_i_list), tuple(post_i_list)
    written = symexec.assigned_scalars((*pre_i_stmts, inner, *post_i_stmts)) | {outer.var, inner.var}
    for name in sorted((symexec.reads(outer.start) | symexec.reads(outer.stop)) & written):
        raise NotLiftable(f"the outer loop bound depends on '{name}', which the loop nest assigns", outer.loc)
    if outer.var in symexec.reads(inner.stop) | symexec.reads(inner.start):
        raise NotLiftable(f"the inner loop's bounds depend on the outer counter '{outer.var}' (a triangular "
                          "nest): not supported yet", inner.loc)
    if symexec.reads(inner.stop) & written:
        raise NotLiftable("the inner loop bound must not change inside the nest", inner.loc)
    # the first symbolic execution of each part, over its own head: finds the inductions
    pre_i = symexec.execute(pre_i_stmts)
    body = symexec.execute(inner.body)
    post_i = symexec.execute(post_i_stmts)
    if post_i.has_return or pre_i.has_return:
        raise NotLiftable("return inside a loop is not supported", outer.loc)
    inner_start = symexec.substitute(inner.start, pre_i)
    if not (isinstance(inner_start, Const) and inner_start.value == 0):
        raise NotLiftable("the inner loop must start at 0", inner.loc)
    cols = symexec.substitute(inner.stop, pre)
    inductions = _nest_inductions(fn, pre, pre_i, body, post_i, inner.stop, start, outer.var, inner.var)
    stepped = {d.name for d in inductions}
    # The transition relation of the nest, executed once from the real head states: at the
    # outer head the inductions are their closed forms; at the inner head (and its exit)
    # also every scalar pre_i sets and the inner loop leaves alone (a per-row value, fixed
    # during the row) is its pre_i value. Any other scalar the nest writes is read at a
    # head only if it is an accumulator (a head variable of the VCs) or refused below by
    # :func:`nest_scalar_roles` and :func:`_check_closed`: no read falls back to a
    # pre-nest value.
    # a store to a promoted cell before the inner loop is overwritten by the store-back
    # (``cells``: indices over the outer head as pre_i's first execution sees it)
    overwritten = {array for array, stores in pre_i.stores.items()
                   if array in cells and all(symexec.index_difference(idx, cells[array]) == 0 for idx, _ in stores)}
    outer_head = {d.name: d.outer for d in inductions if d.outer is not None}
    pre_i = _run(pre_i_stmts, outer_head)
    for array in overwritten:
        del pre_i.stores[array]
    if pre_i.stores:
        raise NotLiftable("array writes between the loop headers are not supported yet", outer.loc)
    assigned_inner = symexec.assigned_scalars(inner.body)
    row_locals = {x: v for x, v in pre_i.scalars.items() if x not in assigned_inner and x not in stepped}
    body_stores = symexec.stored_arrays(inner.body)
    for x, v in sorted(row_locals.items()):
        for ld in symexec.loads(v):
            if ld.array in body_stores and (x in symexec.upward_exposed(inner.body)
                                            or x in symexec.upward_exposed(post_i_stmts)):
                raise NotLiftable(f"scalar '{x}' set before the inner loop reads '{ld.array}', which the inner "
                                  "loop writes (not supported)", ld.loc)
    inner_head: dict[str, Expr] = {d.name: d.inner if d.inner is not None else d.outer  # type: ignore[misc]
                                   for d in inductions if (d.inner or d.outer) is not None}
    exit_head = {n: symexec.replace_vars(e, {inner.var: inner.stop}) for n, e in inner_head.items()}
    body = _run(inner.body, {**row_locals, **inner_head})
    post_i = _run(post_i_stmts, {**row_locals, **exit_head})

    # inner accumulators: reset in pre_i, accumulated in the body, read by post_i
    post_i_reads = symexec.upward_exposed(post_i_stmts)
    post_reads = symexec.upward_exposed(post_stmts) | set(live_out)
    scalars: list[ScalarTarget] = []
    totals: list[ScalarTarget] = []
    for name in sorted(assigned_inner - stepped - {inner.var}):
        if name in post_reads:
            if name in pre_i.scalars or name in post_i_reads or name in post_i.scalars:
                raise NotLiftable(_carried(name, "carries a value out of the loop nest"), inner.loc)
            # accumulated over the whole nest: a reduction over the flattened matrix
            totals.append(ScalarTarget(name, body.scalars[name], pre.scalars.get(name, Var(name, fn.dtype_of(name))), fn.dtype_of(name)))
            continue
        if name not in post_i_reads:
            continue  # not read after the inner loop: a temporary, or refused by nest_scalar_roles
        if name not in pre_i.scalars:
            raise NotLiftable(_carried(name, "its value after the inner loop is read, but it is not reset before "
                                             "the inner loop"), inner.loc)
        scalars.append(ScalarTarget(name, body.scalars[name], pre_i.scalars[name], fn.dtype_of(name)))
    for name in sorted(set(post_i.scalars) - stepped):
        if name in post_reads:
            raise NotLiftable(_carried(name, "carries a value out of the loop nest"), outer.loc)
    roles = nest_scalar_roles(fn, outer.var, inner.var, pre_i_stmts, inner, post_i_stmts, post_stmts,
                              {d.name: d for d in inductions}, {s.name for s in scalars}, {t.name for t in totals})

    linear_idx = Binary("+", Binary("*", Var(outer.var, INT), inner.stop, INT), Var(inner.var, INT), INT)
    linear: list[LinearOutput] = []
    for array, stores in body.stores.items():
        offsets = {symexec.index_difference(idx, linear_idx) for idx, _ in stores}
        if None in offsets or len(offsets) != 1:
            raise NotLiftable(
                f"the inner loop writes '{array}' at an index that is not {outer.var}*{c_text(inner.stop)} + {inner.var} + constant",
                inner.loc,
            )
        (off,) = offsets
        assert off is not None
        linear.append(LinearOutput(array, off, stores[-1][1], fn.dtype_of(array)))
    rows: list[RowOutput] = []
    outer_var = Var(outer.var, INT)
    for array, stores in post_i.stores.items():
        if array in body.stores:
            raise NotLiftable(f"'{array}' is written by both loops", outer.loc)
        offsets = {symexec.index_difference(idx, outer_var) for idx, _ in stores}
        if None in offsets or len(offsets) != 1:
            raise NotLiftable(f"the outer loop writes '{array}' at an index that is not {outer.var} + constant", outer.loc)
        (off,) = offsets
        assert off is not None
        rows.append(RowOutput(array, off, stores[-1][1], fn.dtype_of(array)))

    result = None
    post_stores: list[tuple[str, Expr, Expr]] = []
    post_scalars: tuple[tuple[str, Expr], ...] = ()
    if post_stmts:
        post = symexec.execute(post_stmts)
        post_scalars = tuple((n, symexec.replace_vars(v, {outer.var: outer.stop}))
                             for n, v in sorted(post.scalars.items()) if n in live_out)
        written_in_nest = set(body.stores) | set(post_i.stores) | set(pre_i.stores)
        for array, idx, val in stores_after(post_stmts, post, written_in_nest, set(roles) | {outer.var, inner.var},
                                            "loop nest"):
            # the index reads nothing the nest assigns: its value on entry to the nest
            post_stores.append((array, symexec.substitute(idx, pre), symexec.replace_vars(val, {outer.var: outer.stop})))
        result = post.returned
        if result is not None:
            # at the exit of the nest the outer counter is the bound (``start <= stop`` is assumed)
            result = symexec.replace_vars(result, {outer.var: outer.stop})
    k = NestKernel(fn, pre, outer, inner, start, stop, cols, pre_i, body, post_i,
                   tuple(scalars), tuple(linear), tuple(rows), result, inductions, tuple(totals), same_cols,
                   tuple(sorted(roles.items())), live_out, tuple(post_stores), post_scalars)
    total_names = {t.name for t in totals}
    # an induction stepped per row (not reset by pre_i) leaves the nest with its closed form
    # at i = stop, proved by the post clause (a block loop's row offset, vc/blocks.py)
    total_names |= {d.name for d in inductions if d.outer is not None}
    for name in live_out:
        if name in k.assigned and name not in total_names:
            raise NotLiftable(_carried(name, "carries a value out of the loop nest into a later loop"), outer.loc)
    _check_closed(k)
    _check_reads(k)
    return k


#: The roles :func:`nest_scalar_roles` gives the scalars a loop nest writes.
ROLES = {
    "counter": "a loop counter",
    "induction": "stepped by constants (closed form in i, j)",
    "row reduction": "reset before the inner loop, accumulated in it, read after it",
    "total": "accumulated over the whole nest, read after it",
    "row value": "set before the inner loop and not changed in it: its value in the row is substituted",
    "temporary": "assigned before every read in the same iteration: its defining expression is substituted",
}


def _carried(name: str, why: str = "") -> str:
    """The reason a kernel is refused for a scalar its loop nest carries unsupported."""
    return (f"scalar '{name}' is carried across iterations of the loop nest (not a reduction or counter)"
            + (f": {why}" if why else ""))


def nest_scalar_roles(
    fn: Function, i: str, j: str, pre_i: Sequence[Stmt], inner: For, post_i: Sequence[Stmt],
    post: Sequence[Stmt], inductions: Mapping[str, NestInduction], row_reductions: set[str],
    totals: set[str],
) -> dict[str, str]:
    """The role (a key of :data:`ROLES`) of **every** scalar the loop nest assigns, from
    where each is read before it is assigned (upward-exposed reads):

    * at the head of an outer iteration (``pre_i``, or the inner loop / ``post_i`` before
      ``pre_i`` sets it): its value comes from the previous row or from before the nest;
    * at the head of an inner iteration, when the inner body assigns it: from the previous
      column (or from before the inner loop);
    * after the inner loop, when the inner body assigns it: the last column's value;
    * after the nest.

    Only counters, inductions, row reductions and totals — the scalars the verification
    conditions carry as head variables or closed forms — may be read there; any other
    scalar so read raises :class:`NotLiftable` naming it. The rest are per-iteration values
    (``row value``, ``temporary``) that the symbolic execution substitutes by their
    defining expressions in the same iteration."""
    outer_body = (*pre_i, inner, *post_i)
    at_outer_head = symexec.upward_exposed(outer_body)
    at_inner_head = symexec.upward_exposed(inner.body)
    after_inner = symexec.upward_exposed(post_i)
    after_nest = symexec.upward_exposed(post)
    in_pre_i = symexec.assigned_scalars(pre_i)
    in_body = symexec.assigned_scalars(inner.body)
    roles: dict[str, str] = {}
    for x in sorted(symexec.assigned_scalars(outer_body) | {i, j}):
        if x in (i, j):
            if x == j and x in after_nest:
                raise NotLiftable(f"the inner loop counter '{j}' is read after the loop nest (not supported)", inner.loc)
            roles[x] = "counter"
            continue
        if x in inductions:
            if x in after_nest:
                raise NotLiftable(_carried(x, "a counter stepped in the nest is read after it (not supported yet)"),
                                  inner.loc)
            roles[x] = "induction"
        elif x in row_reductions:
            roles[x] = "row reduction"
        elif x in totals:
            roles[x] = "total"
        elif x in at_outer_head:
            why = ("its value is read before it is assigned in an iteration of the outer loop, so it comes from "
                   "the previous row (or from before the nest)")
            raise NotLiftable(_carried(x, why), inner.loc)
        elif x in in_body and x in at_inner_head:
            why = ("its value is read before it is assigned in an iteration of the inner loop, so it comes from "
                   "the previous iteration (e.g. a running sum or a flag)")
            raise NotLiftable(_carried(x, why), inner.loc)
        elif x in in_body and x in after_inner:
            raise NotLiftable(_carried(x, "its value after the inner loop's last iteration is read"), inner.loc)
        elif x in after_nest:
            raise NotLiftable(_carried(x, "it carries a value out of the loop nest"), inner.loc)
        else:
            roles[x] = "row value" if x in in_pre_i and x not in in_body else "temporary"
    return roles


def _check_closed(k: NestKernel) -> None:
    """Every expression of the nest's transition relation reads, of the scalars the nest
    writes, only those the verification conditions carry at that point (counters, row
    reductions, totals); everything else it reads is unchanged since the nest's entry.
    A read of any other scalar written in the nest would silently take its pre-nest value
    in the VCs: refused instead (a second, independent guard behind
    :func:`nest_scalar_roles`)."""
    written = k.assigned
    red = {s.name for s in k.scalars}
    tot = {t.name for t in k.totals}

    def exprs(st: SymState) -> list[Expr]:
        out = list(st.scalars.values())
        for sts in st.stores.values():
            for idx, val in sts:
                out += [idx, val]
        return out

    parts: list[tuple[str, list[Expr], set[str]]] = [
        ("before the inner loop", exprs(k.pre_i), {k.i}),
        ("in the inner loop", exprs(k.body), {k.i, k.j} | red | tot),
        ("after the inner loop", exprs(k.post_i), {k.i, k.j} | red),
        ("after the loop nest", [k.result] if k.result is not None else [], tot),
    ]
    for where, es, allowed in parts:
        for e in es:
            for x in sorted((symexec.reads(e) & written) - allowed):
                raise NotLiftable(_carried(x, f"its value {where} depends on earlier iterations"), e.loc)


def _run(stmts: Sequence[Stmt], head: Mapping[str, Expr]) -> SymState:
    """Symbolic execution of ``stmts`` from a head state in which the scalars of ``head``
    have the given values (over the enclosing head state); the result's ``scalars`` are
    the ones ``stmts`` assign."""
    st = symexec.execute(stmts, SymState(scalars=dict(head)))
    mine = symexec.assigned_scalars(stmts)
    st.scalars = {x: v for x, v in st.scalars.items() if x in mine}
    return st


def unify_row_strides(
    inner: For, pre: SymState, written: set[str]
) -> tuple[For, tuple[tuple[Expr, Expr], ...]]:
    """Reads ``v[r][j + c]`` of a C++ ``vector<vector<T>>`` parameter, and reads and
    writes ``m.g[r][j + c]`` of a ``T **`` field of a C struct parameter (flattened as
    ``r * v__cols + j + c``, see ``Load.row`` / ``Store.row``) in the inner loop
    ``for (j = 0; j < n; j++)`` whose row length ``v__cols`` is not ``n``: rewritten to
    ``r * n + j + c`` under the shape precondition ``v__cols == n`` (returned as
    ``(v__cols, n)`` over the entry state, to be assumed by the proof and checked by
    generated code). Accesses whose column is not ``j + c`` are left alone; so is
    everything when ``n``'s entry value reads a variable in ``written`` (what the nest
    assigns)."""
    n_entry = symexec.substitute(inner.stop, pre)
    found: dict[str, tuple[Expr, Expr]] = {}

    def unified(index: Expr, row: tuple[Expr, Expr] | None) -> tuple[Expr, tuple[Expr, Expr]] | None:
        if row is None:
            return None
        col, cols = row
        if not isinstance(cols, Var) or symexec.index_difference(col, Var(inner.var, INT)) is None:
            return None
        cols_entry = symexec.substitute(cols, pre)
        if symexec.index_difference(cols_entry, n_entry) == 0:
            return None
        found[cols.name] = (cols_entry, n_entry)
        return symexec.replace_vars(index, {cols.name: n_entry}), (col, n_entry)

    def fix(e: Expr) -> Expr:
        if not isinstance(e, Load) or (u := unified(e.index, e.row)) is None:
            return e
        return Load(e.array, u[0], e.dtype, e.loc, u[1])

    def fix_store(st: Stmt) -> Stmt:
        if not isinstance(st, Store) or (u := unified(st.index, st.row)) is None:
            return st
        return Store(st.array, u[0], st.value, st.loc, u[1])

    if symexec.reads(n_entry) & written:
        return inner, ()
    body = tuple(fix_store(map_stmt_exprs(st, fix)) for st in inner.body)
    return replace(inner, body=body), tuple(found.values())


def promote_cells(
    fn: Function, inner: For, pre_i: Sequence[Stmt], post_i: Sequence[Stmt]
) -> tuple[Function, list[Stmt], For, list[Stmt], dict[str, Expr]]:
    """Scalar replacement: an array element the inner loop reads and writes at one index
    that does not change during the inner loop (``y[i] += A[i*n + j] * x[j]``) becomes a
    local accumulator — loaded before the inner loop, stored back after it. Sound because
    every access to that array in the inner loop is at that very element (checked) and
    distinct pointer parameters do not alias (a stated assumption).

    Returns the function (with the new locals), the rewritten statements, and
    array → index (over the outer-loop head after ``pre_i``) of each promoted element."""
    assigned = symexec.assigned_scalars(inner.body) | {inner.var}
    stored = symexec.stored_arrays(inner.body)
    cells: dict[str, Expr] = {}
    for st in inner.body:
        if isinstance(st, Store) and st.array not in cells:
            r = symexec.reads(st.index)
            if not (r & (assigned | stored)) and not symexec.loads(st.index):
                cells[st.array] = st.index
    for array, idx in list(cells.items()):
        accesses = [e.index for e in symexec.statement_expressions(inner.body) if isinstance(e, Load) and e.array == array]
        accesses += [st.index for st in inner.body if isinstance(st, Store) and st.array == array]
        if any(symexec.index_difference(a, idx) != 0 for a in accesses):
            del cells[array]
    if not cells:
        return fn, list(pre_i), inner, list(post_i), {}
    names = {n for n, _ in fn.locals} | {p.name for p in fn.params}
    cell_var: dict[str, Var] = {}
    new_locals = list(fn.locals)
    for array in cells:
        name = f"{array}__cell"
        while name in names:
            name += "_"
        names.add(name)
        cell_var[array] = Var(name, fn.dtype_of(array))
        new_locals.append((name, fn.dtype_of(array)))

    def rewrite(e: Expr) -> Expr:
        match e:
            case Load(array, index, dtype, loc) if array in cells:
                return cell_var[array]
            case Load(array, index, dtype, loc):
                return Load(array, rewrite(index), dtype, loc)
            case Const() | Var():
                return e
            case Unary(op, x, dtype, loc):
                return Unary(op, rewrite(x), dtype, loc)
            case Binary(op, l, r, dtype, loc):
                return Binary(op, rewrite(l), rewrite(r), dtype, loc)
            case Cast(x, dtype, loc):
                return Cast(rewrite(x), dtype, loc)
            case Select(c, a, b, dtype, loc):
                return Select(symexec.map_cond(c, rewrite), rewrite(a), rewrite(b), dtype, loc)
            case Call(f, x, dtype, loc):
                return Call(f, rewrite(x), dtype, loc)
            case _:
                assert_never(e)

    body: list[Stmt] = []
    for st in inner.body:
        match st:
            case Store(array, _, value, loc) if array in cells:
                body.append(Assign(cell_var[array].name, rewrite(value), loc))
            case Store(array, index, value, loc):
                body.append(Store(array, rewrite(index), rewrite(value), loc))
            case Assign(target, value, loc):
                body.append(Assign(target, rewrite(value), loc))
            case _:
                body.append(st)
    loads_in = [Assign(v.name, Load(a, cells[a], v.dtype, inner.loc), inner.loc) for a, v in cell_var.items()]
    stores_out = [Store(a, cells[a], v, inner.loc) for a, v in cell_var.items()]
    new_inner = For(inner.var, inner.start, inner.stop, tuple(body), inner.loc, inner.descending)
    pre_state = symexec.execute(pre_i)
    at_head = {a: symexec.substitute(idx, pre_state) for a, idx in cells.items()}
    return (
        replace(fn, locals=tuple(new_locals)),
        [*pre_i, *loads_in],
        new_inner,
        [*stores_out, *post_i],
        at_head,
    )


def _const_step(update: Expr, name: str) -> int | None:
    d = symexec.index_difference(update, Var(name, INT))
    return d if d is not None and symexec.reads(update) <= {name} else None


def _is(e: Expr, v: int) -> bool:
    return isinstance(e, Const) and e.value == v


def _iadd(a: Expr, b: Expr) -> Expr:
    return b if _is(a, 0) else a if _is(b, 0) else Binary("+", a, b, INT)


def _isub(a: Expr, b: Expr) -> Expr:
    return a if _is(b, 0) else Binary("-", a, b, INT)


def _imul(a: Expr, b: Expr) -> Expr:
    if _is(a, 0) or _is(b, 0):
        return Const(0, INT)
    return b if _is(a, 1) else a if _is(b, 1) else Binary("*", a, b, INT)


def _nest_inductions(
    fn: Function, pre: SymState, pre_i: SymState, body: SymState, post_i: SymState,
    cols: Expr, start: Expr, i: str, j: str,
) -> tuple[NestInduction, ...]:
    """Integer scalars the nest steps by constants: ``x += c`` in the inner body (value
    ``entry + c*j`` at the inner head, the entry being ``pre_i``'s reset or the outer-head
    value) and/or ``x += d`` in ``post_i`` (outer step ``c*n + d``)."""
    out: list[NestInduction] = []
    names = set(body.scalars) | set(post_i.scalars)
    for x in sorted(names):
        if fn.dtype_of(x) != INT or x in (i, j):
            continue
        c = _const_step(body.scalars[x], x) if x in body.scalars else 0
        d = _const_step(post_i.scalars[x], x) if x in post_i.scalars else 0
        if c is None or d is None or (c == 0 and d == 0):
            continue
        reset = pre_i.scalars.get(x)
        if reset is not None and x in symexec.reads(reset):
            continue  # pre_i updates it from its old value: not a simple induction
        steps = _isub(Var(i, INT), start)
        outer_val: Expr | None = None
        if reset is None:
            per_row: Expr = _iadd(_imul(Const(c, INT), cols), Const(d, INT))
            x0 = pre.scalars.get(x, Var(x, INT))
            outer_val = _iadd(x0, _imul(per_row, steps))
        elif d != 0:
            continue  # reset each row and stepped after it: dead at the outer head
        entry = reset if reset is not None else outer_val
        assert entry is not None
        inner_val = _iadd(entry, _imul(Const(c, INT), Var(j, INT))) if c else None
        out.append(NestInduction(x, outer_val, inner_val))
    return tuple(out)


@dataclass(frozen=True)
class Read:
    """How the inner body reads ``array`` (``i``/``j``: outer/inner counters, ``n``: inner
    trip count; ``offset`` and ``stride`` over the entry state, loop-invariant):

    * ``"matrix"``: ``A[i*n + j + d]`` (``offset`` the constant ``d``);
    * ``"row"``: ``x[j + c]``;
    * ``"strided"``: ``A[i*s + j + c]`` (rows of a wider row-major matrix; ``stride`` s);
    * ``"transposed"``: ``A[j*s + i + c]`` (the inner loop walks down a column);
    * ``"column"``: ``A[j*s + c]`` (``s`` not 1: the inner loop walks down a column at a
      fixed offset, the same for every row — GEMM's transposed ``A`` as a row kernel);
    * ``"outer"``: ``x[i + c]``, one value per row, the same for every column (in row
      reductions only: ``x`` broadcast along the columns, ``transpose(matrix(x, n, m, 0))``)."""

    array: str
    kind: str
    offset: Expr
    stride: Expr | None = None


def classify_read(k: NestKernel, ld: Load) -> Read | None:
    """The :class:`Read` of load ``ld`` in the inner body, ``None`` if it has none."""
    d = symexec.index_difference(ld.index, k.linear_index())
    if d is not None:
        return Read(ld.array, "matrix", Const(d, INT))
    d = symexec.index_difference(ld.index, Var(k.j, INT))
    if d is not None:
        return Read(ld.array, "row", Const(d, INT))
    lin = symexec.linear_in(ld.index, (k.i, k.j))
    if lin is None:
        return None
    (ci, cj), rest = lin
    assigned = k.assigned
    if any(symexec.reads(e) & assigned for e in (ci, cj, rest)):
        return None
    ci, cj, rest = (symexec.substitute(e, k.pre) for e in (ci, cj, rest))

    def is_(e: Expr, v: int) -> bool:
        return symexec.index_difference(e, Const(v, INT)) == 0

    if is_(ci, 0) and is_(cj, 1):
        return Read(ld.array, "row", rest)
    if is_(cj, 1) and not is_(ci, 0):
        return Read(ld.array, "strided", rest, ci)
    if is_(ci, 1) and not is_(cj, 0):
        return Read(ld.array, "transposed", rest, cj)
    if is_(ci, 1) and is_(cj, 0):
        return Read(ld.array, "outer", rest)
    if is_(ci, 0) and not is_(cj, 0):
        return Read(ld.array, "column", rest, cj)
    return None


def _check_reads(k: NestKernel) -> None:
    """Loads must be of a matrix element ``A[i*n + j + d]``, a row-vector element
    ``x[j + d]`` (inner body) or an outer element ``b[i + d]`` (``post_i``); arrays the nest
    writes may only be read at the element being written."""
    written = {o.array: o.offset for o in k.linear} | {o.array: o.offset for o in k.rows}
    lin = k.linear_index()
    values = [(o.value, True) for o in k.linear] + [(s.update, False) for s in k.scalars]
    for e, _elementwise in values:
        for ld in symexec.loads(e):
            d_lin = symexec.index_difference(ld.index, lin)
            r = classify_read(k, ld)
            if r is None:
                raise NotLiftable(
                    f"read of '{ld.array}' at an index that is not {k.i}*n + {k.j} + c, {k.j} + c, {k.i} + c, "
                    f"{k.i}*s + {k.j} + c, {k.j}*s + {k.i} + c or {k.j}*s + c (s, c fixed in the nest)", ld.loc
                )
            if r.kind in ("strided", "transposed", "outer", "column") and not _zero_expr(k.start):
                raise NotLiftable(f"a strided read of '{ld.array}' needs the outer loop to start at 0", ld.loc)
            if ld.array in written and d_lin != written[ld.array]:
                raise NotLiftable(f"'{ld.array}' is read at an element the nest writes elsewhere", ld.loc)
    for o in k.rows:
        for ld in symexec.loads(o.value):
            d = symexec.index_difference(ld.index, Var(k.i, INT))
            if d is None:
                raise NotLiftable(f"read of '{ld.array}' at an index that is not {k.i} + c", ld.loc)
            if ld.array in written and d != written[ld.array]:
                raise NotLiftable(f"'{ld.array}' is read at an element the nest writes elsewhere", ld.loc)


# ---------------------------------------------------------------- summaries


def linear_bound(k: NestKernel, rows_done: Scalar, col: Scalar | None = None) -> Scalar:
    """``rows_done * n (+ col)`` as a TensIR index term."""
    t: Scalar = ScalarOp("*", rows_done, lift_entry_scalar(k.cols), INT)
    return t if col is None else ScalarOp("+", t, col, INT)


def nest_summary(k: NestKernel, cand: Candidate, partial: bool = False) -> ProgramSummary:
    """The program summary; ``partial`` leaves out the outputs ``cand`` has no term for
    (used to test one output's candidates on their own)."""
    given = {n for n, _ in cand.arrays}
    stop = lift_entry_scalar(k.stop)
    start = lift_entry_scalar(k.start)
    outputs: list[ArrayOutput | ScalarOutput] = []
    total = linear_bound(k, stop)
    if k.result is not None:
        env = {t.name: total_at(cand.scalar(t.name), total, stop) for t in k.totals if t.name in dict(cand.scalars)}
        env |= {n: lift_entry_scalar(v) for n, v in k.pre.scalars.items() if n not in env and n not in k.assigned}
        if not partial or all(t.name in env for t in k.totals):
            outputs.append(ScalarOutput("return", lift_entry_scalar(k.result, None, env)))
    if k.post_stores:
        env = {t.name: total_at(cand.scalar(t.name), total, stop) for t in k.totals if t.name in dict(cand.scalars)}
        env |= {n: lift_entry_scalar(v) for n, v in k.pre.scalars.items() if n not in env and n not in k.assigned}
        if not partial or all(t.name in env for t in k.totals):
            for array, idx, stored in k.post_stores:  # `*total = s;` after the nest
                at = lift_entry_scalar(idx, None, env)
                one = Full(Lit(1, INT), lift_entry_scalar(stored, None, env))
                outputs.append(ArrayOutput(array, at, plus_const(at, 1), one))
    if k.live_out:
        env = {t.name: total_at(cand.scalar(t.name), total, stop) for t in k.totals if t.name in dict(cand.scalars)}
        env |= {d.name: lift_entry_scalar(symexec.replace_vars(d.outer, {k.i: k.stop}))
                for d in k.inductions if d.outer is not None and d.name in k.live_out}
        env |= {n: lift_entry_scalar(v) for n, v in k.pre.scalars.items() if n not in env and n not in k.assigned}
        for name in k.live_out:
            if not partial or name in env or name not in k.assigned:
                outputs.append(ScalarOutput(name, lift_entry_scalar(k.final_value(name), None, env)))
    for o in k.linear:
        if partial and o.array not in given:
            continue
        if is_matrix_output(cand.array(o.array)):
            # rows 0..stop of the 2-D value, flattened (matrix outputs need start == 0)
            value = Flatten(as_tensor(substitute(cand.array(o.array), {BOUND: stop})))
            outputs.append(ArrayOutput(o.array, Lit(o.offset, INT), plus_const(total, o.offset), value))
            continue
        lo = plus_const(ScalarOp("*", start, lift_entry_scalar(k.cols), INT), o.offset) if not _zero(start) else plus_const(start, o.offset)
        outputs.append(ArrayOutput(o.array, lo, plus_const(total, o.offset),
                                   as_tensor(substitute(cand.array(o.array), {BOUND: total}))))
    for r in k.rows:
        if partial and r.array not in given:
            continue
        outputs.append(ArrayOutput(r.array, plus_const(start, r.offset), plus_const(stop, r.offset),
                                   as_tensor(substitute(cand.array(r.array), {BOUND: stop}))))
    same = tuple((lift_entry_scalar(a), lift_entry_scalar(b)) for a, b in k.same_cols)
    return fold_summary(ProgramSummary(k.fn.name, tuple(outputs), same))


def total_at(t: Scalar, lin: Scalar, rows_done: Scalar, col: Scalar | None = None) -> Scalar:
    """A total's candidate at a loop head. A *flat* total (``init ± reduce_sum`` of views of
    the flattened prefix) is its term at the linear index ``lin``. A total *kept per row* (its
    reads have no flat view: a window of a wider matrix ``A[i*s + j]``, a row vector ``x[j]``)
    is ``(init ± reduce_sum(reduce_rows(M))) ± reduce_sum(P)``, ``M`` over ``BOUND`` whole rows
    and ``P`` the prefix of row ``i`` over ``COL`` columns: at ``rows_done`` finished rows and
    ``col`` elements of the current row (``col`` ``None``: the outer head, no current row)."""
    if COL not in free_vars(t):
        return cast(Scalar, substitute(t, {BOUND: lin}))
    if col is None:
        assert isinstance(t, ScalarOp)
        return cast(Scalar, substitute(t.left, {BOUND: rows_done}))
    return cast(Scalar, substitute(t, {BOUND: rows_done, COL: col}))


def _zero_expr(e: Expr) -> bool:
    return isinstance(e, Const) and e.value == 0


def _zero(t: Scalar) -> bool:
    from tenspiler.ir.terms import Lit

    return isinstance(t, Lit) and t.value == 0


def nest_invariants(k: NestKernel, cand: Candidate) -> list[str]:
    """Outer and inner invariants in TensIR syntax (for reports)."""
    i, j = ScalarVar(k.i, INT), ScalarVar(k.j, INT)
    start, stop, cols = (show(lift_entry_scalar(e)) for e in (k.start, k.stop, k.cols))
    outs: list[LinearOutput | RowOutput] = [*k.linear, *k.rows]
    env0: dict[str, Term] = {o.array: TensorVar(f"{o.array}_0", o.dtype) for o in outs}

    def facts(lin: Scalar, rows_done: Scalar) -> list[str]:
        out = []
        for o in k.linear:
            if is_matrix_output(cand.array(o.array)):
                t = substitute(cand.array(o.array), {**env0, BOUND: rows_done})
                out.append(f"{o.array}[{o.offset}:{show(plus_const(linear_bound(k, rows_done), o.offset))}] == "
                           f"flatten({show(t)})")
                continue
            t = substitute(cand.array(o.array), {**env0, BOUND: lin})
            out.append(f"{o.array}[{o.offset}:{show(plus_const(lin, o.offset))}] == {show(t)}")
        for r in k.rows:
            t = substitute(cand.array(r.array), {**env0, BOUND: rows_done})
            out.append(f"{r.array}[{show(plus_const(lift_entry_scalar(k.start), r.offset))}:{show(plus_const(rows_done, r.offset))}] == {show(t)}")
        return out

    def extra(lin: Scalar, inner_loop: bool) -> list[str]:
        out = [f"{t.name} == {show(total_at(cand.scalar(t.name), lin, i, j if inner_loop else None))}"
               for t in k.totals]
        for d in k.inductions:
            form = (d.inner or d.outer) if inner_loop else d.outer
            if form is not None:
                out.append(f"{d.name} == {show(lift_entry_scalar(form))}")
        return out

    outer = [f"{start} <= {k.i} <= {stop}", *facts(linear_bound(k, i), i), *extra(linear_bound(k, i), False)]
    inner = [f"{start} <= {k.i} < {stop}", f"0 <= {k.j} <= {cols}", *facts(linear_bound(k, i, j), i)]
    for o in k.linear:
        if is_matrix_output(cand.array(o.array)):
            t = substitute(cand.array(o.array), {**env0, BOUND: ScalarOp("+", i, Lit(1, INT), INT)})
            inner.append(f"{o.array}[{show(plus_const(linear_bound(k, i), o.offset))}:"
                         f"{show(plus_const(linear_bound(k, i, j), o.offset))}] == take(row({show(t)}, {k.i}), {k.j})")
    inner += [f"{s.name} == {show(substitute(cand.scalar(s.name), {BOUND: j}))}" for s in k.scalars]
    inner += extra(linear_bound(k, i, j), True)
    return ["outer: " + " and ".join(outer), "inner: " + " and ".join(inner)]


# ---------------------------------------------------------------- verification conditions


def build_nest_vc(k: NestKernel, cand: Candidate, ps: ProgramSummary | None = None) -> VC:
    fn = k.fn
    decls, entry_scalars, entry_arrays = entry_declarations(fn)
    iv, jv = head_name(k.i), head_name(k.j)
    decls += [f"(declare-const {iv} Int)", f"(declare-const {jv} Int)"]
    decls += [f"(declare-const {head_name(d.name)} Int)" for d in k.inductions]
    ind_heads = {d.name: head_name(d.name) for d in k.inductions}
    for s in (*k.scalars, *k.totals):
        decls.append(f"(declare-const {head_name(s.name)} {sem.smt_sort(s.dtype)})")
    written_arrays = [o.array for o in k.linear] + [r.array for r in k.rows]
    outs: list[LinearOutput | RowOutput] = [*k.linear, *k.rows]
    for o in outs:
        decls.append(f"(declare-const {head_name(o.array)} {array_sort(o.dtype)})")
    tensir = SmtEncoder({**entry_scalars, **entry_arrays})

    def entry_enc(e: Expr) -> str:
        return encode_expr(e, entry_scalars, entry_arrays)

    start, stop, cols = entry_enc(k.start), entry_enc(k.stop), entry_enc(k.cols)
    # scalar environment at the loop heads: parameters and pre-loop locals the nest does not
    # write keep their values; a scalar the nest writes is never read through its pre-nest
    # value (the head variables below carry the ones the VCs need, _check_closed refuses
    # the rest)
    written = k.assigned
    base: dict[str, str] = {p.name: entry_enc(k.entry_value(p.name)) for p in fn.scalars if p.name not in written}
    for name, e in k.pre.scalars.items():
        if name not in written:
            base[name] = entry_enc(e)
    head_arrays = {a: (head_name(a) if a in written_arrays else entry_arrays[a]) for a in entry_arrays}

    def enc_at(extra: Mapping[str, str]) -> SmtEncoder:
        return SmtEncoder({**entry_scalars, **entry_arrays, **extra}, {}, tensir.definitions, tensir._rec_names)

    def array_fact(array: str, lo: str, hi: str, value: Any, enc: SmtEncoder, arr: str,
                   point: tuple[str, str] | None) -> list[str]:
        sel = f"(select {arr} k)"
        fact = (f"(ite (and (<= {lo} k) (< k {hi})) (= {sel} {enc.at(value, f'(- k {lo})')}) "
                f"(= {sel} (select {entry_arrays[array]} k)))")
        if point is None:
            return [f"(forall ((k Int)) {fact})"]
        idx, v = point
        return [
            f"(= (select {arr} {idx}) {v})",
            f"(ite (and (<= {lo} {idx}) (< {idx} {hi})) (= {v} {enc.at(value, f'(- {idx} {lo})')}) "
            f"(= {v} (select {entry_arrays[array]} {idx})))",
            f"(forall ((k Int)) (=> (not (= k {idx})) {fact}))",
        ]

    def matrix_facts(o: LinearOutput, rows_done: str, col: str | None, arr: str) -> list[str]:
        """A matrix output (a 2-D candidate, the nest starting at row 0): rows ``< i`` of
        the flattened array are the candidate's rows, the first ``col`` elements of row
        ``i`` the row of the candidate over ``i + 1`` rows, every element from
        ``i*n + col`` on (and before the offset) its entry value; stated per row and
        column, without division by the row length."""
        m = cand.array(o.array)
        done = enc_at({BOUND: rows_done})
        elem = matrix_element(done, m, "rr", "cc")
        # the conjunct rr*n + cc < i*n (itself proved: it is part of the invariant) lets the
        # solver tell a finished row's elements from the one being written without
        # non-linear reasoning about rr*n + cc != i*n + j
        out = [f"(forall ((rr Int) (cc Int)) (=> (and (<= 0 rr) (< rr {rows_done}) (<= 0 cc) (< cc {cols})) "
               f"(and (< (+ (* rr {cols}) cc) (* {rows_done} {cols})) "
               f"(= (select {arr} (+ (* rr {cols}) cc {o.offset})) {elem}))))"]
        lin = f"(* {rows_done} {cols})"
        if col is not None:
            cur = matrix_element(enc_at({BOUND: f"(+ {rows_done} 1)"}), m, rows_done, "cc")
            out.append(f"(forall ((cc Int)) (=> (and (<= 0 cc) (< cc {col})) "
                       f"(= (select {arr} (+ (* {rows_done} {cols}) cc {o.offset})) {cur})))")
            lin = f"(+ {lin} {col})"
        out.append(f"(forall ((k Int)) (=> (or (< k {o.offset}) (>= k (+ {lin} {o.offset}))) "
                   f"(= (select {arr} k) (select {entry_arrays[o.array]} k))))")
        return out

    def facts(lin: str, rows_done: str, arrs: Mapping[str, str],
              points: Mapping[str, tuple[str, str]] | None = None, col: str | None = None) -> list[str]:
        out: list[str] = []
        lin_enc = enc_at({BOUND: lin})
        rows_enc = enc_at({BOUND: rows_done})
        lo_lin = smt_add(f"(* {start} {cols})", 0)
        for o in k.linear:
            if is_matrix_output(cand.array(o.array)):
                out += matrix_facts(o, rows_done, col, arrs[o.array])
                continue
            out += array_fact(o.array, smt_add(lo_lin, o.offset), smt_add(lin, o.offset), cand.array(o.array),
                              lin_enc, arrs[o.array], (points or {}).get(o.array))
        for r in k.rows:
            out += array_fact(r.array, smt_add(start, r.offset), smt_add(rows_done, r.offset), cand.array(r.array),
                              rows_enc, arrs[r.array], (points or {}).get(r.array))
        return out

    def closed(e: Expr, i: str, j: str | None) -> str:
        env = {**entry_scalars, k.i: i} if j is None else {**entry_scalars, k.i: i, k.j: j}
        return encode_expr(e, env, entry_arrays)

    def inductions_at(i: str, j: str | None, values: Mapping[str, str]) -> list[str]:
        """Induction conjuncts: each stepped scalar equals its closed form."""
        out = []
        for d in k.inductions:
            form = d.outer if j is None else (d.inner if d.inner is not None else d.outer)
            if form is not None:
                out.append(f"(= {values[d.name]} {closed(form, i, j)})")
        return out

    def totals_at(lin: str, i: str, j: str | None, values: Mapping[str, str]) -> list[str]:
        out = []
        for t in k.totals:
            term = cand.scalar(t.name)
            if COL not in free_vars(term):  # flat: at the linear index
                out.append(f"(= {values[t.name]} {enc_at({BOUND: lin}).scalar(term)})")
            elif j is None:  # kept per row (total_at), at the outer head: the finished rows
                assert isinstance(term, ScalarOp)
                out.append(f"(= {values[t.name]} {enc_at({BOUND: i}).scalar(term.left)})")
            else:  # and the prefix of row i
                out.append(f"(= {values[t.name]} {enc_at({BOUND: i, COL: j, k.i: i}).scalar(term)})")
        return out

    total_heads = {t.name: head_name(t.name) for t in k.totals}

    def inv_outer(i: str, arrs: Mapping[str, str], points: Mapping[str, tuple[str, str]] | None = None,
                  ind: Mapping[str, str] = ind_heads, tot: Mapping[str, str] = total_heads) -> str:
        parts = [f"(<= {start} {i})", f"(<= {i} {stop})", *facts(f"(* {i} {cols})", i, arrs, points)]
        parts += inductions_at(i, None, ind)
        parts += totals_at(f"(* {i} {cols})", i, None, tot)
        return "(and " + " ".join(parts) + ")"

    def inv_inner(i: str, j: str, scal: Mapping[str, str], arrs: Mapping[str, str],
                  points: Mapping[str, tuple[str, str]] | None = None, ind: Mapping[str, str] = ind_heads,
                  tot: Mapping[str, str] = total_heads) -> str:
        parts = [f"(<= {start} {i})", f"(< {i} {stop})", f"(<= 0 {j})", f"(<= {j} {cols})"]
        parts += facts(f"(+ (* {i} {cols}) {j})", i, arrs, points, j)
        parts += inductions_at(i, j, ind)
        parts += totals_at(f"(+ (* {i} {cols}) {j})", i, j, tot)
        enc = enc_at({BOUND: j, k.i: i})
        for s in k.scalars:
            parts.append(f"(= {scal[s.name]} {enc.scalar(cand.scalar(s.name))})")
        return "(and " + " ".join(parts) + ")"

    heads = {a: head_name(a) for a in written_arrays}
    outer_env = {**base, k.i: iv}
    inner_env = {**outer_env, k.j: jv, **{s.name: head_name(s.name) for s in (*k.scalars, *k.totals)}}

    def enc(e: Expr, env: Mapping[str, str]) -> str:
        return encode_expr(e, env, head_arrays)

    clauses: list[Clause] = []
    entry_arrs = {a: entry_arrays[a] for a in written_arrays}
    ind_entry = {d.name: entry_enc(k.entry_value(d.name)) for d in k.inductions if d.outer is not None}
    tot_entry = {t.name: entry_enc(t.init) for t in k.totals}
    clauses.append(Clause("initiation", (), inv_outer(start, entry_arrs, None, ind_entry, tot_entry)))
    # inner initiation: pre_i runs on the outer head state
    init_scal = {s.name: enc(s.init, outer_env) for s in k.scalars}
    pre_i_div = nonzero_divisors(k.pre_i.scalars.values(), outer_env, head_arrays)
    ind_inner_entry = {n: enc(k.pre_i.scalars[n], outer_env) if n in k.pre_i.scalars else h
                       for n, h in ind_heads.items()}
    clauses.append(Clause("inner-initiation", (inv_outer(iv, heads), f"(< {iv} {stop})", *pre_i_div),
                          inv_inner(iv, "0", init_scal, heads, None, ind_inner_entry)))
    # inner preservation
    next_scal = {s.name: enc(k.body.scalars[s.name], inner_env) for s in k.scalars}
    next_arrs = dict(heads)
    points: dict[str, tuple[str, str]] = {}
    for o in k.linear:
        term = heads[o.array]
        for idx, val in k.body.stores[o.array]:
            term = f"(store {term} {enc(idx, inner_env)} {enc(val, inner_env)})"
        next_arrs[o.array] = term
        points[o.array] = (smt_add(f"(+ (* {iv} {cols}) {jv})", o.offset), enc(o.value, inner_env))
    body_exprs = list(k.body.scalars.values()) + [x for st in k.body.stores.values() for pair in st for x in pair]
    body_div = nonzero_divisors(body_exprs, inner_env, head_arrays)
    head_scal = {s.name: head_name(s.name) for s in k.scalars}
    ind_next = {n: enc(k.body.scalars[n], inner_env) if n in k.body.scalars else h for n, h in ind_heads.items()}
    tot_next = {t.name: enc(k.body.scalars[t.name], inner_env) for t in k.totals}
    clauses.append(Clause("inner-preservation",
                          (inv_inner(iv, jv, head_scal, heads), f"(< {jv} {cols})", *body_div),
                          inv_inner(iv, f"(+ {jv} 1)", next_scal, next_arrs, points, ind_next, tot_next)))
    clauses.append(Clause("inner-exit", (inv_inner(iv, jv, head_scal, heads), f"(not (< {jv} {cols}))"),
                          f"(= {jv} {cols})"))
    # outer step: post_i on the inner exit state
    exit_env = {**inner_env}
    after: dict[str, str] = dict(heads)
    row_points: dict[str, tuple[str, str]] = {}
    for r in k.rows:
        term = heads[r.array]
        for idx, val in k.post_i.stores[r.array]:
            term = f"(store {term} {enc(idx, exit_env)} {enc(val, exit_env)})"
        after[r.array] = term
        row_points[r.array] = (smt_add(iv, r.offset), enc(r.value, exit_env))
    post_i_exprs = list(k.post_i.scalars.values()) + [x for st in k.post_i.stores.values() for pair in st for x in pair]
    post_i_div = nonzero_divisors(post_i_exprs, exit_env, head_arrays)
    ind_after = {n: enc(k.post_i.scalars[n], exit_env) if n in k.post_i.scalars else h for n, h in ind_heads.items()}
    clauses.append(Clause("outer-step",
                          (inv_inner(iv, jv, head_scal, heads), f"(= {jv} {cols})", *post_i_div),
                          inv_outer(f"(+ {iv} 1)", after, row_points, ind_after)))
    clauses.append(Clause("exit", (inv_outer(iv, heads), f"(not (< {iv} {stop}))"), f"(= {iv} {stop})"))
    ps = nest_summary(k, cand) if ps is None else ps
    penc = enc_at({})
    result = None
    post_div: list[str] = []
    if k.result is not None:
        result = encode_expr(k.result, {**base, k.i: iv, **total_heads}, head_arrays)
        post_div = nonzero_divisors([k.result], {**base, k.i: iv, **total_heads}, head_arrays)
    finals = {x: encode_expr(k.final_value(x), {**base, k.i: iv, **total_heads, **ind_heads}, head_arrays)
              for x in k.live_out}
    final_arrays = dict(heads)
    exit_scalars = {**base, k.i: iv, **total_heads}
    for array, idx, stored in k.post_stores:  # the stores after the nest, over its exit state
        final_arrays[array] = (f"(store {entry_name(array)} {encode_expr(idx, exit_scalars, head_arrays)} "
                               f"{encode_expr(stored, exit_scalars, head_arrays)})")
        post_div += nonzero_divisors([idx, stored], exit_scalars, head_arrays)
    goal = summary_goal(k, ps, penc, result, final_arrays, finals)
    clauses.append(Clause("post", (inv_outer(iv, heads), f"(= {iv} {stop})", *post_div), goal))

    assumptions: list[tuple[str, str]] = [
        (f"the outer loop runs a non-negative number of times: {c_text(k.outer.start)} <= {c_text(k.outer.stop)}",
         f"(<= {start} {stop})"),
        (f"the inner loop runs a non-negative number of times: 0 <= {c_text(k.inner.stop)}", f"(<= 0 {cols})")
        if not k.keeps_row_maximum else
        (f"the inner loop runs at least once (a row maximum of an empty row is undefined): 1 <= {c_text(k.inner.stop)}",
         f"(<= 1 {cols})"),
        (f"every array has an element at every index the nest reads or writes (rows {c_text(k.outer.start)}.."
         f"{c_text(k.outer.stop)} of {c_text(k.inner.stop)} elements); {c_text(k.outer.start)} >= 0", f"(<= 0 {start})"),
    ]
    if pre_i_div or body_div or post_i_div or post_div:
        assumptions.append(DIVISORS_ASSUMPTION)
    for a, b in k.same_cols:
        assumptions.append((
            f"shape: the rows of the row-pointer matrix read with row length {c_text(a)} (a "
            f"vector<vector> or T** parameter) have {c_text(b)} elements, {c_text(a)} == {c_text(b)} "
            f"(the proof is of the program read with row length {c_text(b)}; generated code "
            "checks this)", "true"))
    for array, idx, _ in k.post_stores:
        assumptions.append((f"{array} has an element at index {c_text(symexec.substitute(idx, k.pre))}, which the "
                            "code after the loop nest writes", "true"))
    assumptions += input_assumptions(fn)
    comments = (
        certificate_title(fn),
        "program summary:",
        *("  " + line for line in show_summary(ps).splitlines()),
        "loop invariants:",
        *("  " + line for line in nest_invariants(k, cand)),
        "Each (check-sat) below must answer unsat: the negated clause has no model.",
    )
    # matrix outputs: E-matching alone misses the per-row instances cvc5 needs (measured:
    # "unknown" in 0.04 s vs "unsat" in 0.9 s with saturation)
    matrix = any(is_matrix_output(cand.array(o.array)) for o in k.linear if o.array in dict(cand.arrays))
    options = ("(set-option :full-saturate-quant true)",) if matrix else ()
    return VC(tuple(decls), tuple(tensir.definitions), tuple(assumptions), tuple(clauses), comments, options)


def is_matrix_output(t: Term) -> bool:
    """A linear output's candidate is 2-D (its rows read per-row values, e.g. an outer
    product or row scaling): a *matrix output*, whose facts are stated per row and column
    and whose summary value is ``flatten(candidate)``."""
    from tenspiler.ir.terms import is_tensor, rank

    return is_tensor(t) and rank(t) == 2


#: A kernel of any supported shape.
