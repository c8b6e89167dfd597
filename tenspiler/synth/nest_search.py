"""Candidate spaces of doubly nested kernels (see ``tenspiler.vc.nest``).

* A **linear** output's per-iteration value is an expression tree over matrix elements
  ``A[i*n + j + d]``; its holes are filled with 1-D slices of the flattened arrays, exactly
  as for a single loop (bound ``i*n + j``).
* An **inner accumulator** ``s = s ± F`` is enumerated *twice in lockstep* from one tree
  for ``F``: once over the prefix of row ``i`` (the inner invariant: slices
  ``A[i*n : i*n + j]`` and ``x[:j]``) and once over whole rows (the outer view:
  ``matrix(A, rows, n)`` and ``x[:n]``, reduced by ``reduce_rows``). Both come from the same
  leaf choice, so the invariant and the summary describe the same computation.
* A **row** output's value (written after the inner loop) is lifted directly from its
  expression, with each accumulator replaced by its row view.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any, assert_never

from tenspiler.budget import check_deadline
from tenspiler.errors import NotLiftable
from tenspiler.ir.terms import (
    Cmp,
    Full,
    Lit,
    Matrix,
    ReduceRows,
    ReduceSum,
    Scalar,
    ScalarApply,
    ScalarCast,
    ScalarOp,
    ScalarVar,
    Slice,
    Strided,
    Tail,
    Tensor,
    TensorCast,
    TensorMap,
    TensorScalar,
    TensorSelect,
    TensorTensor,
    TensorVar,
    Term,
    Transpose,
    as_scalar,
    as_tensor,
    is_tensor,
    negated,
    promote,
    rank,
    substitute,
)
from tenspiler.loops.ir import (
    Binary,
    Call,
    Cast,
    Const,
    DType,
    Expr,
    Load,
    Select,
    Unary,
    Var,
    binop,
)
from tenspiler.synth.trees import (
    Pools,
    TreeContext,
    accumulate,
    combine,
    enumerate_terms,
    expression_tree,
    running_max,
    show_tree,
    slice_view,
)
from tenspiler.vc.concrete import Example, mismatch
from tenspiler.vc.conditions import BOUND, COL, Candidate, lift_entry_scalar, value_preserving
from tenspiler.vc.nest import NestKernel, Read, classify_read, nest_summary
from tenspiler.vc.symexec import index_difference, loads, program_constants, subexpressions
from tenspiler.vc.updates import maximum_part, reduction_parts

INT = DType.INT
Combo = tuple[tuple[str, Any], ...]


def _context(k: NestKernel, with_rows: bool) -> TreeContext:
    idx: tuple[Expr, ...] = (k.linear_index(), Var(k.j, INT)) if with_rows else (k.linear_index(),)
    accepts = (lambda ld: classify_read(k, ld) is not None) if with_rows else None
    # row reductions and totals are head variables of the VCs: read by another value they make a scan
    carried = frozenset(s.name for s in (*k.scalars, *k.totals))
    return TreeContext(idx, frozenset({k.i, k.j}), carried, accepts)


def _entry_scalar(k: NestKernel, e: Var) -> Scalar:
    """A scalar leaf the nest does not write, as its value at the nest's entry. A scalar
    the nest writes has no such value (``analyze_nest`` substitutes or refuses every one
    of them); never fall back to its pre-nest value."""
    if e.name in k.assigned:
        raise NotLiftable(f"scalar '{e.name}' is written in the loop nest and cannot be read as its value "
                          "before the nest", e.loc)
    return lift_entry_scalar(k.entry_value(e.name))


def _scalar_pool(k: NestKernel, values: list[Expr], origins: list[tuple[Expr, Term]]) -> list[Scalar]:
    out: list[Scalar] = []
    carried = {s.name for s in (*k.scalars, *k.totals)}

    for v in values:
        for e in subexpressions(v):
            if isinstance(e, Var) and e.name not in (k.i, k.j) and e.name not in carried:
                t = _entry_scalar(k, e)
                origins.append((e, t))
                if t not in out:
                    out.append(t)
    for c in program_constants(k.fn.body):
        lit = Lit(c.value, c.dtype)
        origins.append((Const(c.value, c.dtype), lit))
        if lit not in out:
            out.append(lit)
    return out


def _vector_pools(
    k: NestKernel, values: list[Expr]
) -> tuple[list[Tensor], list[Tensor], list[Tensor], list[Load]]:
    """(linear, row-prefix, whole-rows) materialisations of each distinct load, in the
    same order. ``None``-free: loads that a view cannot express raise NotLiftable when
    that view is used (checked by the caller through the tree context)."""
    bound = ScalarVar(BOUND, INT)
    cols = lift_entry_scalar(k.cols)
    i = ScalarVar(k.i, INT)
    zero = Lit(0, INT)
    lin_pool: list[Tensor] = []
    row_pool: list[Tensor] = []
    mat_pool: list[Tensor] = []
    seen: set[tuple[str, str, int]] = set()
    seen_general: set[Read] = set()
    leaves: list[Load] = []  # the source load behind each pool entry
    for v in values:
        for ld in loads(v):
            d_lin = index_difference(ld.index, k.linear_index())
            a = TensorVar(ld.array, ld.dtype)
            r = classify_read(k, ld)
            if r is not None and (r.kind in ("strided", "transposed", "outer", "column") or not isinstance(r.offset, Const)):
                if r in seen_general:
                    continue
                seen_general.add(r)
                leaves.append(ld)
                lin_pool.append(_Unsupported(ld))  # type: ignore[arg-type]
                off = lift_entry_scalar(r.offset)
                base: Tensor = a if _is_zero(off) else Tail(a, off)
                if r.kind == "row":
                    row_pool.append(Slice(a, off, ScalarOp("+", off, bound, INT)))
                    mat_pool.append(Slice(a, off, ScalarOp("+", off, cols, INT)))
                elif r.kind == "outer":  # x[i + c]: one value per row, broadcast along the columns
                    row_pool.append(Strided(base, i, bound, zero))
                    mat_pool.append(Transpose(Matrix(base, cols, bound, zero)))
                elif r.kind == "column":  # x[j*s + c]: the same column for every row
                    assert r.stride is not None
                    s = lift_entry_scalar(r.stride)
                    row_pool.append(Strided(a, off, bound, s))
                    mat_pool.append(Strided(a, off, cols, s))
                elif r.kind == "strided":
                    assert r.stride is not None
                    s = lift_entry_scalar(r.stride)
                    lo = ScalarOp("*", i, s, INT)
                    row_pool.append(Slice(base, lo, ScalarOp("+", lo, bound, INT)))
                    mat_pool.append(Matrix(base, bound, cols, s))
                else:  # transposed: the inner loop walks down column i
                    assert r.stride is not None
                    s = lift_entry_scalar(r.stride)
                    row_pool.append(Strided(base, i, bound, s))
                    mat_pool.append(Transpose(Matrix(base, cols, bound, s)))
                continue
            if d_lin is not None:
                key = (ld.array, "matrix", d_lin)
                if key in seen:
                    continue
                seen.add(key)
                leaves.append(ld)
                lin_pool.append(slice_view(a, zero, bound, d_lin))
                if d_lin == 0:
                    lo = ScalarOp("*", i, cols, INT)
                    row_pool.append(Slice(a, lo, ScalarOp("+", lo, bound, INT)))
                    mat_pool.append(Matrix(a, bound, cols))
                else:
                    row_pool.append(_Unsupported(ld))  # type: ignore[arg-type]
                    mat_pool.append(_Unsupported(ld))  # type: ignore[arg-type]
            else:
                d = index_difference(ld.index, Var(k.j, INT))
                assert d is not None
                key = (ld.array, "row", d)
                if key in seen:
                    continue
                seen.add(key)
                leaves.append(ld)
                lin_pool.append(_Unsupported(ld))  # type: ignore[arg-type]
                row_pool.append(slice_view(a, zero, bound, d))
                mat_pool.append(slice_view(a, zero, cols, d))
    return lin_pool, row_pool, mat_pool, leaves


def _is_zero(t: Term) -> bool:
    return isinstance(t, Lit) and t.value == 0


class _Unsupported:
    """Placeholder for a load one view cannot express; using it raises NotLiftable."""

    def __init__(self, ld: Load) -> None:
        self.ld = ld
        self.dtype = ld.dtype

    def fail(self) -> NotLiftable:
        return NotLiftable(f"read of '{self.ld.array}' at this offset is not supported in a loop nest yet", self.ld.loc)


def _check(term: Term) -> Term:
    if isinstance(term, _Unsupported):
        raise term.fail()
    from tenspiler.ir.terms import children

    for c in children(term):
        _check(c)
    return term


def _has_unsupported(term: Term) -> bool:
    from tenspiler.ir.terms import children

    return isinstance(term, _Unsupported) or any(_has_unsupported(c) for c in children(term))


def nest_space(k: NestKernel) -> tuple[dict[str, str], Any]:
    """Expression trees (for reports) and a function enumerating filtered candidates."""
    trees: dict[str, str] = {}
    lin_trees = {}
    matrix_outs: set[str] = set()
    fills: set[str] = set()  # outputs storing a loop-invariant value: full(BOUND, value)
    flat_refusal: dict[str, NotLiftable] = {}
    for o in k.linear:
        try:
            t = expression_tree(o.value, ctx=_context(k, with_rows=False))
        except NotLiftable as err:  # no flat view: perhaps a matrix output (below)
            flat_refusal[o.array] = err
            continue
        if t.kind != "vector":
            fills.add(o.array)
        lin_trees[o.array] = t
        trees[o.array] = show_tree(t)
    acc_trees: dict[str, tuple[str, Any, Any]] = {}
    for s in k.scalars:
        peak = maximum_part(s)
        sign: str
        if peak is not None:
            sign, f = "max", peak
        else:
            sign, f = reduction_parts(s)
        t = expression_tree(f, ctx=_context(k, with_rows=True))
        if t.kind != "vector":
            raise NotLiftable(f"'{s.name}' accumulates a value that does not depend on the inner counter", s.update.loc)
        acc_trees[s.name] = (sign, t, s)
        trees[s.name] = show_tree(t)
    total_trees = {}
    per_row_totals: set[str] = set()  # no flat view: kept per row (vc.nest.total_at)
    for s in k.totals:
        sign, f = reduction_parts(s)
        try:
            t = expression_tree(f, ctx=_context(k, with_rows=False))
        except NotLiftable as err:
            # a window of a wider matrix (A[i*s + j]) or a row vector (x[j]): the sum of
            # the finished rows' sums and the current row's prefix
            if not _is_zero(lift_entry_scalar(k.start)):
                raise NotLiftable(f"'{s.name}' sums reads with no view of the flattened nest; summed row by row "
                                  "that needs the outer loop to start at 0", s.update.loc) from err
            try:
                t = expression_tree(f, ctx=_context(k, with_rows=True))
            except NotLiftable:
                raise err from None
            per_row_totals.add(s.name)
        if t.kind != "vector":
            raise NotLiftable(f"'{s.name}' accumulates a value that does not depend on the loop counters", s.update.loc)
        total_trees[s.name] = (sign, t, s)
        trees[s.name] = show_tree(t)
    values = [o.value for o in k.linear] + [_summand(s) for s in (*k.scalars, *k.totals)]
    lin_pool, row_pool, mat_pool, leaves = _vector_pools(k, values)
    scalar_origins: list[tuple[Expr, Term]] = []
    scalars = tuple(_scalar_pool(k, values + [r.value for r in k.rows], scalar_origins))

    # matrix outputs: a linear output reading a per-row value (x[i], an outer product or
    # row scaling) or a row vector (y[j]) has no flat 1-D view; its candidates are 2-D terms
    # over whole rows (the mat_pool), summarised as flatten(...) (vc/nest.py)
    unsupported = {id(ld) for ld, t in zip(leaves, lin_pool, strict=True) if isinstance(t, _Unsupported)}
    for o in k.linear:
        if o.array in flat_refusal or any(ld == leaf and id(leaf) in unsupported
                                          for ld in loads(o.value) for leaf in leaves):
            if not _is_zero(lift_entry_scalar(k.start)):
                raise NotLiftable(f"'{o.array}' reads per-row or per-column values: a matrix output needs the outer "
                                  "loop to start at 0", k.outer.loc)
            try:
                t = expression_tree(o.value, ctx=_context(k, with_rows=True))
            except NotLiftable:
                raise flat_refusal.get(o.array) or NotLiftable("no view of this output's reads", o.value.loc) from None
            if t.kind != "vector":
                raise NotLiftable(f"'{o.array}' stores a value that does not depend on the inner counter", o.value.loc)
            lin_trees[o.array] = t
            trees[o.array] = show_tree(t)
            matrix_outs.add(o.array)

    def pools(vectors: list[Tensor]) -> Pools:
        # loads equal up to location map to the same entry: all occurrences of a leaf
        origins = [(ld, t) for v in values for ld in loads(v) for leaf, t in zip(leaves, vectors, strict=True) if ld == leaf]
        return Pools(tuple(vectors), scalars, tuple(origins + scalar_origins))

    def candidates(examples: list[Example], expanded: bool, max_enumerate: int, max_survivors: int,
                   deadline: float, stats: Any) -> Iterator[Combo] | None:
        per_hole: list[list[tuple[str, Any]]] = []
        for name, tree in lin_trees.items():
            keep: list[tuple[str, Any]] = []
            matrix = name in matrix_outs
            for n, t in enumerate(enumerate_terms(tree, pools(mat_pool if matrix else lin_pool), expanded)):
                check_deadline(deadline)
                if n >= max_enumerate:
                    break
                stats.enumerated += 1
                if matrix:
                    if not is_tensor(t) or rank(t) != 2 or _has_unsupported(t):
                        continue
                else:
                    _check(t)
                if name in fills:  # as long as the linear views take(a, BOUND)
                    t = Full(ScalarVar(BOUND, INT), t)  # type: ignore[arg-type]
                ps = nest_summary(k, Candidate((), ((name, t),)), partial=True)  # type: ignore[arg-type]
                if all(mismatch(ps, ex, only=name) is None for ex in examples):
                    keep.append((name, t))
                    if len(keep) >= max_survivors:
                        break
            if not keep:
                return None
            per_hole.append(keep)
        keep_t: list[tuple[str, Any]]
        if total_trees:
            spaces_t = []
            for name, (sign, tree, s) in total_trees.items():
                init = lift_entry_scalar(s.init)
                if name in per_row_totals:
                    spaces_t.append(list(_per_row_totals(name, sign, tree, s, init, pools(row_pool), pools(mat_pool),
                                                         expanded, max_enumerate)))
                    continue
                spaces_t.append([(name, accumulate(init, sign, _check(f), s.dtype))  # type: ignore[arg-type]
                                 for f in itertools.islice(enumerate_terms(tree, pools(lin_pool), expanded), max_enumerate)])
            keep_t = []
            for tcombo in itertools.product(*spaces_t):
                check_deadline(deadline)
                stats.enumerated += 1
                ps = nest_summary(k, Candidate(tuple(tcombo), ()), partial=True)
                observed = (["return"] if k.result is not None else []) + list(k.live_out) + [
                    a for a, _, _ in k.post_stores]
                if all(mismatch(ps, ex, only=n) is None for ex in examples for n in observed):
                    keep_t = list(tcombo)
                    break
            if not keep_t:
                return None
        else:
            keep_t = []
        row_keep: list[Combo] = [()]
        if acc_trees:
            spaces = []
            for name, (how, tree, s) in acc_trees.items():
                init = lift_entry_scalar(s.init)  # over the outer head: may read row i
                init_rows = _lift_row(k, s.init, {})  # the same, for every row at once
                pairs = zip(
                    enumerate_terms(tree, pools(row_pool), expanded),
                    enumerate_terms(tree, pools(mat_pool), expanded),
                    strict=True,
                )
                space = []
                for f1, f2 in itertools.islice(pairs, max_enumerate):
                    if not is_tensor(f2) or rank(f2) != 2:
                        continue  # the summand must read the matrix, or rows are all equal
                    _check(f1)
                    _check(f2)
                    if how == "max":
                        inner_t = running_max(init, f1, Lit(0, INT), s.dtype)  # type: ignore[arg-type]
                        space.append((name, inner_t, _row_max(init_rows, f2, s.dtype)))
                    else:
                        add_sub: Any = how
                        space.append((name, accumulate(init, add_sub, f1, s.dtype), _row_total(init_rows, how, f2, s.dtype)))  # type: ignore[arg-type]
                spaces.append(space)
            row_keep = []
            for combo in itertools.product(*spaces):
                check_deadline(deadline)
                stats.enumerated += 1
                totals = {name: total for name, _, total in combo}
                arrays = tuple((r.array, _lift_row(k, r.value, totals)) for r in k.rows)
                ps = nest_summary(k, Candidate(tuple((n, t) for n, t, _ in combo), arrays), partial=True)  # type: ignore[arg-type]
                if all(mismatch(ps, ex, only=r.array) is None for r in k.rows for ex in examples):
                    row_keep.append(tuple((n, t) for n, t, _ in combo) + arrays)
                    if len(row_keep) >= max_survivors:
                        break
            if not row_keep:
                return None
        elif k.rows:
            # row outputs with no accumulator to enumerate (e.g. a per-row counter): their
            # values lift directly, or the space is empty
            try:
                arrays = tuple((r.array, _lift_row(k, r.value, {})) for r in k.rows)
            except (KeyError, TypeError, ValueError, NotLiftable):
                return None
            ps = nest_summary(k, Candidate((), arrays), partial=True)  # type: ignore[arg-type]
            if not all(mismatch(ps, ex, only=r.array) is None for r in k.rows for ex in examples):
                return None
            row_keep = [arrays]
        stats.survivors += len(row_keep) + sum(len(p) for p in per_hole)

        def combos() -> Iterator[Combo]:
            for arrays in itertools.product(*per_hole):
                for rest in row_keep:
                    yield tuple(keep_t) + tuple(rest) + tuple(arrays)

        return combos()

    return trees, candidates


def _per_row_totals(name: str, sign: Any, tree: Any, s: Any, init: Scalar, row_pools: Pools, mat_pools: Pools,
                    expanded: bool, limit: int) -> Iterator[tuple[str, Scalar]]:
    """Candidates of a total kept per row (:func:`tenspiler.vc.nest.total_at`):
    ``(init ± reduce_sum(reduce_rows(M))) ± reduce_sum(P)``, the whole-row term ``M`` and the
    row-prefix term ``P`` from the same leaf choice (enumerated in lockstep, as for a row
    reduction), ``P``'s length the placeholder ``COL``."""
    pairs = zip(enumerate_terms(tree, row_pools, expanded), enumerate_terms(tree, mat_pools, expanded), strict=True)
    for prefix, whole in itertools.islice(pairs, limit):
        if not is_tensor(whole) or rank(whole) != 2 or _has_unsupported(prefix) or _has_unsupported(whole):
            continue
        rows_sum = accumulate(init, sign, ReduceRows(whole, promote(s.dtype, s.dtype)), s.dtype)
        row_prefix = substitute(prefix, {BOUND: ScalarVar(COL, INT)})
        yield name, ScalarOp(binop(sign), as_scalar(rows_sum), ReduceSum(as_tensor(row_prefix), s.dtype), s.dtype)


def _summand(s: Any) -> Expr:
    """``F`` of an accumulator ``x = x ± F`` or of a running maximum ``x = max(x, F)``."""
    peak = maximum_part(s)
    return peak if peak is not None else reduction_parts(s)[1]


def _row_max(init: Term, rows2d: Tensor, dtype: DType) -> Tensor:
    """``max(init, reduce_rows_max(rows2d))`` per row (rows are non-empty: a stated
    precondition of nests that keep a running maximum)."""
    red: Tensor = ReduceRows(rows2d, promote(dtype, dtype), "max")
    return TensorSelect(Cmp(">", red, init), red, init, red.dtype)


def _row_total(init: Term, sign: str, rows2d: Tensor, dtype: DType) -> Tensor:
    """``init ± reduce_rows(rows2d)`` as a 1-D tensor over rows (``init`` a scalar, or a
    vector with one initial value per row, e.g. ``y[i]`` for ``y[i] += …``)."""
    red: Tensor = ReduceRows(rows2d, promote(dtype, dtype))
    if isinstance(init, Lit) and init.value == 0:
        return red if sign == "+" else TensorScalar("-", red, Lit(0, dtype), True, red.dtype)
    if is_tensor(init):
        return TensorTensor(binop(sign), init, red, red.dtype)
    return TensorScalar(binop(sign), red, as_scalar(init), True, red.dtype)


def _lift_row(k: NestKernel, e: Expr, totals: dict[str, Tensor]) -> Term:
    """A ``post_i`` value (over the inner exit state) as a term over rows ``start..BOUND``."""
    start = lift_entry_scalar(k.start)
    bound = ScalarVar(BOUND, INT)
    match e:
        case Var(name) if name in totals:
            return totals[name]
        case Var(name, _, loc) if name in (k.i, k.j):
            raise NotLiftable(f"the loop counter '{name}' is used as a value", loc)
        case Var():
            return _entry_scalar(k, e)
        case Const(value, d):
            return Lit(value, d)
        case Load(array, index, dtype, loc):
            d_ = index_difference(index, Var(k.i, INT))
            if d_ is None:
                raise NotLiftable(f"read of '{array}' at an index that is not {k.i} + constant", loc)
            return slice_view(TensorVar(array, dtype), start, bound, d_)
        case Unary(_, x, d):
            neg = _lift_row(k, x, totals)
            return negated(neg, promote(d, d), is_tensor(neg))
        case Binary(op, l, r, d):
            a, b = _lift_row(k, l, totals), _lift_row(k, r, totals)
            return combine(op, a, b, "vector" if is_tensor(a) else "scalar",
                            "vector" if is_tensor(b) else "scalar", promote(d, d))
        case Select(loc=loc):
            raise NotLiftable("a select after the inner loop is not supported yet", loc)
        case Cast(x, d):
            conv = _lift_row(k, x, totals)
            if value_preserving(x.dtype, d):
                return conv
            return TensorCast(conv, d) if is_tensor(conv) else ScalarCast(as_scalar(conv), d)
        case Call(f, x, d):
            arg = _lift_row(k, x, totals)
            return TensorMap(f, arg, d) if is_tensor(arg) else ScalarApply(f, as_scalar(arg), d)
        case _:
            assert_never(e)
