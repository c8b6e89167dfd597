"""Expression trees (paper §5.3) and the candidate space they span (§5.1, §5.4).

The value a loop iteration computes for each output (after symbolic execution of the body)
is abstracted into a tree whose leaves are *typed holes*: a ``vector`` hole stands for an
array read at ``i + d`` (a slice of an input), a ``scalar`` hole for a loop-invariant value.
Internal nodes keep the source's operators. Candidates are TensIR terms of that shape whose
holes are filled from the *live* values of the loop (vector holes: the slices the loop
reads; scalar holes: the loop-invariant variables it reads and the program's constants).
``expanded=True`` also lets every operator vary (the paper's ``expand_holing_grammar``).
Nothing here knows any kernel by name.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal, TypeAlias, TypeVar, assert_never

from tenspiler.errors import NotLiftable
from tenspiler.ir.terms import (
    BoolOp,
    Cmp,
    Full,
    Iota,
    Lit,
    NotCond,
    ReduceSum,
    Scalar,
    ScalarApply,
    ScalarCast,
    ScalarOp,
    ScalarSelect,
    ScalarVar,
    Slice,
    Strided,
    Take,
    Tensor,
    TensorCast,
    TensorMap,
    TensorScalar,
    TensorSelect,
    TensorTensor,
    TensorVar,
    Term,
    as_scalar,
    as_tensor,
    negated,
    promote,
)
from tenspiler.ir.terms import Cond as TCond
from tenspiler.loops.ir import (
    BIN_OPS,
    Binary,
    BinOpName,
    Call,
    Cast,
    CmpOpName,
    Compare,
    Cond,
    Const,
    DType,
    Expr,
    Load,
    Logical,
    Not,
    Select,
    Unary,
    Var,
)
from tenspiler.loops.simplify import simplify
from tenspiler.vc.conditions import BOUND, lift_entry_scalar, plus_const, value_preserving
from tenspiler.vc.kernel import LoopKernel
from tenspiler.vc.symexec import (
    index_difference,
    program_constants,
    runtime_stride_of,
    stride_of,
    subexpressions,
)

_T = TypeVar("_T")

Kind: TypeAlias = Literal["vector", "scalar"]


@dataclass(frozen=True)
class Hole:
    """A leaf to fill; ``origin`` is the source's own leaf (a load, variable or constant),
    whose TensIR counterpart the enumeration tries first."""

    kind: Kind
    dtype: DType
    origin: Expr | None = None


@dataclass(frozen=True)
class Node:
    op: BinOpName
    left: Tree
    right: Tree
    dtype: DType
    kind: Kind


@dataclass(frozen=True)
class Neg:
    operand: Tree
    dtype: DType
    kind: Kind


@dataclass(frozen=True)
class Conv:
    """A C conversion that changes the value (int ↔ real, → uint8)."""

    operand: Tree
    dtype: DType
    kind: Kind


@dataclass(frozen=True)
class CmpNode:
    op: CmpOpName
    left: Tree
    right: Tree


@dataclass(frozen=True)
class BoolNode:
    op: Literal["and", "or"]
    left: CondTree
    right: CondTree


@dataclass(frozen=True)
class NotNode:
    operand: CondTree


CondTree: TypeAlias = CmpNode | BoolNode | NotNode


@dataclass(frozen=True)
class SelNode:
    """``cond ? then : else_`` — an elementwise select when any part is a vector."""

    cond: CondTree
    then: Tree
    else_: Tree
    dtype: DType
    kind: Kind


@dataclass(frozen=True)
class Fn:
    """A math function (``map`` of an uninterpreted unary function over a vector)."""

    func: str
    operand: Tree
    dtype: DType
    kind: Kind


Tree: TypeAlias = Hole | Node | Neg | Conv | SelNode | Fn


@dataclass(frozen=True)
class Pools:
    """Leaf candidates: slices for vector holes, loop-invariant scalars and constants."""

    vectors: tuple[Tensor, ...]
    scalars: tuple[Scalar, ...]
    origins: tuple[tuple[Expr, Term], ...] = ()  # source leaf → its pool term

    def for_hole(self, h: Hole) -> tuple[Term, ...]:
        """The pool for a hole, the source's own leaf first (a search order, not a
        restriction: every other live value and constant follows)."""
        pool: tuple[Term, ...] = self.vectors if h.kind == "vector" else self.scalars
        want_float = h.dtype.is_float
        out = [t for t in pool if t.dtype.is_float == want_float]
        first = next((t for leaf, t in self.origins if leaf == h.origin), None)
        if first is not None and first in out:
            out.remove(first)
            out.insert(0, first)
        return tuple(out)


def show_tree(t: Tree) -> str:
    """Pre-order text of an abstract tree, as in the paper: ``(+ vec vec)``."""
    match t:
        case Hole(kind):
            return "vec" if kind == "vector" else "sca"
        case Node(op, l, r):
            return f"({op} {show_tree(l)} {show_tree(r)})"
        case Neg(x):
            return f"(- {show_tree(x)})"
        case Conv(x, dtype):
            return f"(cast-{dtype.value} {show_tree(x)})"
        case SelNode(c, a, b):
            return f"(? {_show_cond_tree(c)} {show_tree(a)} {show_tree(b)})"
        case Fn(f, x):
            return f"({f} {show_tree(x)})"
        case _:
            assert_never(t)


def _show_cond_tree(c: CondTree) -> str:
    match c:
        case CmpNode(op, l, r):
            return f"({op} {show_tree(l)} {show_tree(r)})"
        case BoolNode(op, l, r):
            return f"({op} {_show_cond_tree(l)} {_show_cond_tree(r)})"
        case NotNode(x):
            return f"(not {_show_cond_tree(x)})"
        case _:
            assert_never(c)


# ---------------------------------------------------------------- extraction


@dataclass(frozen=True)
class TreeContext:
    """What the leaves of a per-iteration value mean: loads whose index is one of
    ``vector_indices`` plus a constant are vector holes; ``counters`` (loop counters) may
    not be used as values, except those in ``iota``, which are INT vector holes (the
    counter's values over the range: an ``iota`` leaf); ``carried`` scalars may not appear
    (a scan)."""

    vector_indices: tuple[Expr, ...]
    counters: frozenset[str]
    carried: frozenset[str]
    #: When set, decides which loads are vector holes (instead of ``vector_indices``).
    accepts: Callable[[Load], bool] | None = None
    iota: frozenset[str] = frozenset()


def loop_context(k: LoopKernel) -> TreeContext:
    return TreeContext(
        (Var(k.var, DType.INT),), frozenset({k.var}), frozenset(s.name for s in k.scalars),
        accepts=lambda ld: stride_of(ld.index, k.var) is not None
        or runtime_stride_of(ld.index, k.var, k.loop_invariant) is not None,
        iota=frozenset({k.var}),
    )


def expression_tree(e: Expr, k: LoopKernel | None = None, exclude: str | None = None,
                    ctx: TreeContext | None = None) -> Tree:
    """Abstract tree of a per-iteration value ``e`` (over the loop-head state), after the
    search-only simplifications of ``tenspiler.loops.simplify``."""
    if ctx is None:
        assert k is not None
        ctx = loop_context(k)
    return _tree(simplify(e), k, exclude, ctx)


def _tree(e: Expr, k: LoopKernel | None, exclude: str | None, ctx: TreeContext) -> Tree:
    match e:
        case Load(array, index, dtype, loc):
            if ctx.accepts is not None:
                if not ctx.accepts(e):
                    raise NotLiftable(f"read of '{array}' at an index this loop nest cannot view as a tensor", loc)
            elif all(index_difference(index, v) is None for v in ctx.vector_indices):
                where = " or ".join(_src_index(v) for v in ctx.vector_indices)
                raise NotLiftable(f"read of '{array}' at an index that is not {where} + constant", loc)
            return Hole("vector", dtype, e)
        case Var(name, dtype, loc):
            if name in ctx.iota:
                return Hole("vector", DType.INT, e)
            if name in ctx.counters:
                raise NotLiftable(f"the loop counter '{name}' is used as a value", loc)
            if name in ctx.carried and name != exclude:
                raise NotLiftable(
                    f"'{name}' carries a value between iterations here (a scan), which TensIR cannot express",
                    loc,
                )
            return Hole("scalar", dtype, e)
        case Const(_, dtype):
            return Hole("scalar", dtype, e)
        case Unary(_, x, dtype):
            inner = _tree(x, k, exclude, ctx)
            return Neg(inner, dtype, _kind_of(inner))
        case Binary(op, l, r, dtype):
            a, b = _tree(l, k, exclude, ctx), _tree(r, k, exclude, ctx)
            kind: Kind = "vector" if "vector" in (_kind_of(a), _kind_of(b)) else "scalar"
            return Node(op, a, b, dtype, kind)
        case Cast(x, dtype):
            inner = _tree(x, k, exclude, ctx)
            if value_preserving(x.dtype, dtype):
                return inner  # e.g. integer promotion of uint8: TensIR promotes too
            return Conv(inner, dtype, _kind_of(inner))
        case Select(c, a, b, dtype):
            ct = _cond_tree(c, k, exclude, ctx)
            ta, tb = _tree(a, k, exclude, ctx), _tree(b, k, exclude, ctx)
            vec = "vector" in (_kind_of(ta), _kind_of(tb)) or _cond_kind(ct) == "vector"
            return SelNode(ct, ta, tb, dtype, "vector" if vec else "scalar")
        case Call(f, x, dtype):
            inner = _tree(x, k, exclude, ctx)
            return Fn(f, inner, dtype, _kind_of(inner))
        case _:
            assert_never(e)


def _cond_tree(c: Cond, k: LoopKernel | None, exclude: str | None, ctx: TreeContext) -> CondTree:
    match c:
        case Compare(op, l, r):
            return CmpNode(op, _tree(l, k, exclude, ctx), _tree(r, k, exclude, ctx))
        case Logical(op, l, r):
            return BoolNode("and" if op == "&&" else "or", _cond_tree(l, k, exclude, ctx), _cond_tree(r, k, exclude, ctx))
        case Not(x):
            return NotNode(_cond_tree(x, k, exclude, ctx))
        case _:
            assert_never(c)


def _cond_kind(c: CondTree) -> Kind:
    match c:
        case CmpNode(_, l, r):
            return "vector" if "vector" in (_kind_of(l), _kind_of(r)) else "scalar"
        case BoolNode(_, l, r):
            return "vector" if "vector" in (_cond_kind(l), _cond_kind(r)) else "scalar"
        case NotNode(x):
            return _cond_kind(x)
        case _:
            assert_never(c)


def _src_index(e: Expr) -> str:
    match e:
        case Var(name):
            return name
        case Binary(op, l, r):
            return f"{_src_index(l)} {op} {_src_index(r)}"
        case Const(v):
            return str(v)
        case _:
            return "…"


def _kind_of(t: Tree) -> Kind:
    return t.kind


def running_min(init: Scalar, body: Tensor, start: Scalar, dtype: DType) -> Scalar:
    """The value of ``x = F < x ? F : x`` after the loop: ``-max(-init, -F...)`` — the
    minimum through the maximum of the negated values (exact on the integers and the reals,
    the model's domains), so its proofs use the maximum's definition."""
    from tenspiler.ir.terms import ScalarOp, TensorScalar

    d = promote(dtype, dtype)
    neg_body = TensorScalar("-", body, Lit(0, d), True, promote(body.dtype, body.dtype))
    neg_init = ScalarOp("-", Lit(0, d), init, d)
    return ScalarOp("-", Lit(0, d), running_max(neg_init, neg_body, start, d), d)


def running_max(init: Scalar, body: Tensor, start: Scalar, dtype: DType) -> Scalar:
    """``init`` if the range is empty, else ``max(init, reduce_max(body))`` (the value of
    ``x = F > x ? F : x`` after the loop; BOUND is the range's end)."""
    from tenspiler.ir.terms import Cmp, ReduceMax, ScalarSelect

    red = ReduceMax(body, dtype)
    both = ScalarSelect(Cmp(">", red, init), red, init, dtype)
    return ScalarSelect(Cmp(">", ScalarVar(BOUND, DType.INT), start), both, init, dtype)


def running_arg_extremum(init: Scalar, ext_init: Scalar, body: Tensor, start: Scalar, compare: DType,
                         bigger: bool, last: bool, stored: Callable[[Scalar], Scalar] | None = None) -> Scalar:
    """The value of ``best`` after ``if (F ⋈ m) { m = F; best = i; }`` over ``[start, BOUND)``:
    ``start + argmax(F…)`` when the range is non-empty and its extremum beats ``m``'s
    entry value ``ext_init`` (ties count with ``last``), else ``init``. A minimum is the
    maximum of the negated values (as :func:`running_min`). ``stored``: what ``best``
    stores as a function of the counter (``best = g(i)``), the identity when omitted."""
    from tenspiler.ir.terms import ArgMax, ReduceMax, TensorScalar

    d = compare if bigger else promote(compare, compare)  # as running_max / running_min
    if not bigger:
        body = TensorScalar("-", body, Lit(0, d), True, promote(body.dtype, body.dtype))
        ext_init = ScalarOp("-", Lit(0, d), ext_init, d)
    beats = Cmp(">=" if last else ">", ReduceMax(body, d), ext_init)
    arg = ArgMax(body, d, last)
    index: Scalar = arg if isinstance(start, Lit) and start.value == 0 else ScalarOp("+", start, arg, DType.INT)
    if stored is not None:
        index = stored(index)
    moved = ScalarSelect(beats, index, init, DType.INT)
    return ScalarSelect(Cmp(">", ScalarVar(BOUND, DType.INT), start), moved, init, DType.INT)


def running_product(init: Scalar, body: Tensor, dtype: DType) -> Scalar:
    """``init * reduce_prod(body)`` (the value of ``x = x * F`` after the loop);
    ``init`` omitted when it is the literal 1."""
    from tenspiler.ir.terms import ReduceProd

    red = ReduceProd(body, dtype)
    if isinstance(init, Lit) and init.value == 1:
        return red
    return ScalarOp("*", init, red, dtype)


# ---------------------------------------------------------------- pools


def counter_values(e: Expr, var: str) -> bool:
    """Whether the loop counter ``var`` is used as a value in ``e`` (not only inside the
    index of a load)."""
    match e:
        case Var(name):
            return name == var
        case Load():
            return False
        case _:
            return any(counter_values(c, var) for c in _direct_subexpressions(e))


def _direct_subexpressions(e: Expr) -> list[Expr]:
    match e:
        case Const() | Var() | Load():
            return []
        case Unary(_, x) | Cast(x) | Call(_, x):
            return [x]
        case Binary(_, l, r):
            return [l, r]
        case Select(c, a, b):
            return [*_cond_operands(c), a, b]
        case _:
            assert_never(e)


def _cond_operands(c: Cond) -> list[Expr]:
    match c:
        case Compare(_, l, r):
            return [l, r]
        case Logical(_, l, r):
            return _cond_operands(l) + _cond_operands(r)
        case Not(x):
            return _cond_operands(x)
        case _:
            assert_never(c)


def fill_over_range(k: LoopKernel, value: Scalar) -> Tensor:
    """``full(BOUND - start, value)``: a loop-invariant ``value`` stored at every iteration
    (a fill), as long as the slices :func:`leaf_pools` reads (``full(BOUND, value)`` when
    the loop starts at 0)."""
    start = lift_entry_scalar(k.start, k)
    bound = ScalarVar(BOUND, DType.INT)
    if isinstance(start, Lit) and not start.dtype.is_float:
        return Full(plus_const(bound, -int(start.value)), value)
    return Full(ScalarOp("-", bound, start, DType.INT), value)


def leaf_pools(k: LoopKernel, values: list[Expr]) -> Pools:
    """Vector pool: each distinct ``array[i + d]`` read in ``values``, and the counter's
    values ``iota(start, bound)`` when ``values`` use the counter as a value; scalar pool:
    the loop-invariant variables read there plus the program's constants (paper §5.4)."""
    start = lift_entry_scalar(k.start, k)
    bound = ScalarVar(BOUND, DType.INT)
    loop_var = Var(k.var, DType.INT)
    vectors: list[Tensor] = []
    scalars: list[Scalar] = []
    origins: list[tuple[Expr, Term]] = []

    def visit(e: Expr) -> None:
        match e:
            case Load(array, index, dtype):
                form = stride_of(index, k.var)
                v: Tensor
                if form is None:
                    runtime = runtime_stride_of(index, k.var, k.loop_invariant)
                    assert runtime is not None
                    st, d = runtime
                    v = _strided(TensorVar(array, dtype), start, bound, lift_entry_scalar(k.stride_entry(st), k), d)
                else:
                    c, d = form
                    v = slice_view(TensorVar(array, dtype), start, bound, d) if c == 1 else _strided(
                        TensorVar(array, dtype), start, bound, c, d)
                origins.append((e, v))
                if v not in vectors:
                    vectors.append(v)
            case Var(name) if name != k.var and name not in {s.name for s in k.scalars}:
                t = lift_entry_scalar(k.entry_value(name), k)
                origins.append((e, t))
                if t not in scalars:
                    scalars.append(t)
            case _:
                pass

    for value in values:
        if counter_values(value, k.var):
            it = Iota(start, bound)  # the counter's values: as long as the slices
            origins.append((loop_var, it))
            if it not in vectors:
                vectors.append(it)
        for e in subexpressions(value):
            if not isinstance(e, Load) or stride_of(e.index, k.var) is not None or runtime_stride_of(
                    e.index, k.var, k.loop_invariant) is not None:
                visit(e)
    for c in program_constants(k.fn.body):
        lit = Lit(c.value, c.dtype)
        origins.append((Const(c.value, c.dtype), lit))
        if lit not in scalars:
            scalars.append(lit)
    return Pools(tuple(vectors), tuple(scalars), tuple(origins))


def _strided(a: TensorVar, start: Scalar, bound: Scalar, c: int | Scalar, d: int) -> Tensor:
    """The reads ``a[c*i + d]`` for ``i`` in ``[start, bound)``: ``strided(a, c*start + d,
    bound - start, c)`` (literals folded); ``c`` a constant or a run-time stride (a scalar
    term over the entry state)."""
    if not isinstance(c, int):
        step = c
        if isinstance(start, Lit) and start.value == 0:
            return Strided(a, Lit(d, DType.INT), bound, step)
        return Strided(a, plus_const(ScalarOp("*", step, start, DType.INT), d),
                       ScalarOp("-", bound, start, DType.INT), step)
    if isinstance(start, Lit) and isinstance(start.value, int):
        first: Scalar = Lit(c * start.value + d, DType.INT)
        count: Scalar = bound if start.value == 0 else ScalarOp("-", bound, start, DType.INT)
    else:
        first = plus_const(ScalarOp("*", Lit(c, DType.INT), start, DType.INT), d)
        count = ScalarOp("-", bound, start, DType.INT)
    return Strided(a, first, count, Lit(c, DType.INT))


def slice_view(a: TensorVar, start: Scalar, bound: Scalar, d: int) -> Tensor:
    if isinstance(start, Lit) and start.value == 0 and d == 0:
        return Take(a, bound)
    return Slice(a, plus_const(start, d), plus_const(bound, d))


# ---------------------------------------------------------------- enumeration


#: Subterm alternatives kept per node when a node combines several children (the
#: combination is a lazy product, but each factor is materialised): bounds the work of one
#: enumeration step, so that the caller's deadline is checked often enough.
SUBTERM_CAP = 2000


def _first(it: Iterator[_T]) -> list[_T]:
    return list(itertools.islice(it, SUBTERM_CAP))


def enumerate_terms(t: Tree, pools: Pools, expanded: bool = False) -> Iterator[Term]:
    """All TensIR terms of the tree's shape (lazily, leaves in pool order)."""
    match t:
        case Hole():
            yield from pools.for_hole(t)
        case Neg(x, dtype, kind):
            for v in enumerate_terms(x, pools, expanded):
                yield negated(v, _arith(dtype), kind == "vector")
        case SelNode(cond, then, other, dtype, kind):
            conds = _first(_enumerate_cond(cond, pools, expanded))
            thens = _first(enumerate_terms(then, pools, expanded))
            elses = _first(enumerate_terms(other, pools, expanded))
            for cc, ta, tb in itertools.product(conds, thens, elses):
                if kind == "vector":
                    yield TensorSelect(cc, ta, tb, _arith(dtype))
                else:
                    yield ScalarSelect(cc, as_scalar(ta), as_scalar(tb), _arith(dtype))
        case Fn(f, x, dtype, kind):
            for v in enumerate_terms(x, pools, expanded):
                yield TensorMap(f, as_tensor(v), dtype) if kind == "vector" else ScalarApply(f, as_scalar(v), dtype)
        case Conv(x, dtype, kind):
            for v in enumerate_terms(x, pools, expanded):
                yield TensorCast(as_tensor(v), dtype) if kind == "vector" else ScalarCast(as_scalar(v), dtype)
        case Node(op, l, r, dtype, kind):
            ops: tuple[BinOpName, ...] = (op, *[o for o in BIN_OPS if o != op]) if expanded else (op,)
            if dtype.is_float:
                ops = tuple(o for o in ops if o != "%")
            lefts = _first(enumerate_terms(l, pools, expanded))
            rights = _first(enumerate_terms(r, pools, expanded))
            for o, a, b in itertools.product(ops, lefts, rights):
                yield combine(o, a, b, l.kind, r.kind, _arith(dtype))
        case _:
            assert_never(t)


def _enumerate_cond(c: CondTree, pools: Pools, expanded: bool) -> Iterator[TCond]:
    match c:
        case CmpNode(op, l, r):
            for a, b in itertools.product(_first(enumerate_terms(l, pools, expanded)), _first(enumerate_terms(r, pools, expanded))):
                yield Cmp(op, a, b)
        case BoolNode(op, l, r):
            for x, y in itertools.product(_first(_enumerate_cond(l, pools, expanded)), _first(_enumerate_cond(r, pools, expanded))):
                yield BoolOp(op, x, y)
        case NotNode(x):
            for z in _enumerate_cond(x, pools, expanded):
                yield NotCond(z)
        case _:
            assert_never(c)


def _arith(d: DType) -> DType:
    return promote(d, d)


def combine(op: BinOpName, a: Term, b: Term, ka: Kind, kb: Kind, dtype: DType) -> Term:
    if ka == "vector" and kb == "vector":
        return TensorTensor(op, as_tensor(a), as_tensor(b), dtype)
    if ka == "vector":
        return TensorScalar(op, as_tensor(a), as_scalar(b), False, dtype)
    if kb == "vector":
        return TensorScalar(op, as_tensor(b), as_scalar(a), True, dtype)
    return ScalarOp(op, as_scalar(a), as_scalar(b), dtype)


def accumulate(init: Scalar | None, sign: Literal["+", "-"], body: Tensor, dtype: DType) -> Scalar:
    """``init ± reduce_sum(body)``; ``init`` omitted when it is the literal 0."""
    red = ReduceSum(body, dtype)
    if init is None or (isinstance(init, Lit) and init.value == 0):
        return red if sign == "+" else ScalarOp("-", Lit(0, dtype), red, dtype)
    return ScalarOp(sign, init, red, dtype)
