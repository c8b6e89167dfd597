"""Loop nests whose outer loop writes one row per iteration: *block loops* (every nest deeper
than two; a two-deep nest the nest shape of :mod:`tenspiler.vc.nest` does not take).

Supported shape (GEMM in all four transpose variants, batched matrix–vector products,
row-wise nests of any depth)::

    for (i = 0; i < m; i++) { body_i }        // body_i: any kernel tenspiler lifts

where ``body_i`` writes each array ``X`` it writes only at ``i*S + e`` (``S`` fixed, ``e``
free of ``i``): row ``i`` of ``X`` seen as rows of ``S`` elements. The proof is modular:

1. **Rebase.** ``body_i`` becomes the *row function*: its parameters are the function's,
   ``i``, and one array ``X__row`` per rebased array standing for ``X`` *shifted* by ``i*S``
   (element ``e`` is ``X[i*S + e]`` for every integer ``e``, so the rewrite is exact — no
   range is involved). Arrays the body only reads at ``i*S + e`` are rebased too (the rows of
   ``A`` in GEMM); other reads keep the original array and ``i`` (``B``, or the strided column
   ``A[k*m + i]`` of a transposed ``A``).
2. **Row kernel.** The row function is an ordinary kernel (one loop, a two-deep nest, or
   again a block loop), synthesized and proved on its own over *every* state at its entry:
   its summary ``F`` is row ``i`` of each written array.
3. **Rows to a matrix** (:func:`lift_rows`): ``F`` becomes a 2-D term ``T`` meant to have
   ``F`` (at ``i = r``) as its row ``r``: ``take(X__row, S)`` → ``matrix(X, m, S)``,
   ``strided(X, i, c, s)`` → ``transpose(matrix(X, c, s))``, a matrix–vector product of a row
   → ``matmul``. Only a proposal: step 4 proves it.
4. **Outer loop** (:func:`build_block_vc`): invariant — rows ``< i`` of each written array
   equal ``T``'s rows, every other element its entry value; the transition of one iteration
   is the row kernel's proved summary instantiated at the current state (``X__row`` is
   ``tail(X, i*S)``). Clauses: ``initiation``, ``step``, ``row-preconditions`` (the row
   kernel's own assumptions that mention ``i`` or a row hold at every iteration),
   ``exit``, ``post``. The certificate is the row kernel's certificate and this one,
   separated by ``(reset)``.

Rows written in part (``C[i*ldc + j]`` for ``0 <= j < n``: a block of a matrix stored with a
leading dimension, BLAS's ``LDC``) are a block output (:class:`~tenspiler.ir.terms.ArrayOutput`
with a step and a 2-D value) under the precondition ``n <= S`` (the rows' blocks do not
overlap; stated, checked by generated code): the invariant adds that the rest of each row
written so far keeps its entry value.

Refused (named reasons): a written array accessed other than as row ``i``, a scalar carried
from one row to the next, code before or after the nest, an outer loop not starting at 0 or
descending, a row value ``lift_rows`` cannot express in 2-D TensIR.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from tenspiler.errors import NotLiftable, SourceLoc
from tenspiler.ir.printer import show
from tenspiler.ir.semantics import smt_const
from tenspiler.ir.smt import SmtEncoder, array_sort
from tenspiler.ir.terms import (
    ArrayOutput,
    Flatten,
    Full,
    Lit,
    MatMul,
    Matrix,
    ProgramSummary,
    ReduceMax,
    ReduceRows,
    ReduceSum,
    Scalar,
    ScalarOp,
    ScalarOutput,
    ScalarVar,
    Stack,
    Strided,
    Tail,
    Take,
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
    children,
    cols,
    free_vars,
    is_tensor,
    map_children,
    rank,
    rows,
    substitute,
    transposed,
)
from tenspiler.loops.ir import (
    Assign,
    Binary,
    Const,
    DType,
    Expr,
    For,
    Function,
    Load,
    Param,
    PointerType,
    Return,
    ScalarType,
    Stmt,
    Store,
    Var,
    all_stmts,
    expr_reads,
    forward_index_temporaries,
    map_expr,
    map_stmt_exprs,
    stmt_expressions,
)
from tenspiler.vc import symexec
from tenspiler.vc.conditions import (
    STRIDE_DECLS,
    STRIDE_J,
    STRIDE_R,
    VC,
    Clause,
    block_index,
    certificate_title,
    encode_expr,
    entry_declarations,
    entry_name,
    head_name,
    input_assumptions,
    lift_entry_scalar,
    matrix_element,
    summary_goal,
    summary_lines,
)
from tenspiler.vc.kernel import Analyze
from tenspiler.vc.nest import NestKernel
from tenspiler.vc.phases import PhasedKernel, same_int

INT = DType.INT


@dataclass(frozen=True)
class RowView:
    """An array the outer loop's body accesses only as row ``i`` (``i*stride + e``).

    Attributes:
        array: the function's array parameter.
        param: the row function's parameter standing for ``array`` shifted by ``i*stride``.
        stride: the row length ``S`` (over the function's entry state).
        written: whether the body writes it.
        width: for a written array whose rows are written only in part (``C[i*ldc + j]`` for
            ``0 <= j < n``, a block of a matrix stored with a leading dimension): ``n``, the
            columns each row writes (over the entry state; :func:`_row_width`), under the
            precondition ``n <= S``; ``None`` for whole rows.
    """

    array: str
    param: str
    stride: Expr
    written: bool
    width: Expr | None = None


@dataclass(frozen=True)
class BlockKernel:
    """A block loop (see the module docstring)."""

    fn: Function
    outer: For
    row_fn: Function
    kernel: Any
    views: tuple[RowView, ...]
    #: Inductions (``out[k++]``, a list built by appends): the row function's offset
    #: variable (0 at each row's start) and the step of the induction per row (over the
    #: entry state); the row kernel's summary proves the offset at each row's end
    #: (:func:`_rebase_inductions`, clause ``induction step``).
    steps: tuple[tuple[str, Expr], ...] = ()
    #: Inductions a later level reads after the loop (an enclosing block loop's offset
    #: stepped in this one, :func:`_rebase_inductions`): name → (value before the loop,
    #: step per row); each leaves the loop as ``v0 + m * D``.
    inductions_out: tuple[tuple[str, Expr, Expr], ...] = ()

    @property
    def var(self) -> str:
        return self.outer.var

    @property
    def nested(self) -> bool:
        return True

    @property
    def live_out(self) -> tuple[str, ...]:
        return tuple(name for name, _, _ in self.inductions_out)

    @property
    def bounds(self) -> tuple[Expr, ...]:
        return (self.outer.start, self.outer.stop, *(v.stride for v in self.views), *self.kernel.bounds)

    def view(self, param: str) -> RowView:
        return next(v for v in self.views if v.param == param)

    def admits(self, inputs: Mapping[str, Any]) -> bool:
        """Whether the rows run: ``0 <= m``, every stride ``>= 0``, the trip counts of
        :func:`block_trip_counts` hold and the row kernel admits the state of every row
        (rebased arrays as suffixes from ``i*S``)."""
        from tenspiler.ir.interp import evaluate

        m = int(evaluate(lift_entry_scalar(self.outer.stop), inputs))
        strides = {v.param: int(evaluate(lift_entry_scalar(v.stride), inputs)) for v in self.views}
        if m < 0 or any(s < 0 for s in strides.values()):
            return False
        for lhs, rhs in _shape_equalities(self):  # stated for every input, rows or not
            if evaluate(lift_entry_scalar(lhs), inputs) != evaluate(lift_entry_scalar(rhs), inputs):
                return False
        if any(evaluate(left, inputs) > evaluate(right, inputs)
               for left, right, _ in (*block_trip_counts(self), *_width_bounds(self))):
            return False  # the proof's trip-count preconditions (generated code checks them)
        for r in range(m):
            row_in = dict(inputs)
            row_in[self.var] = r
            for v in self.views:
                row_in[v.param] = inputs[v.array][r * strides[v.param]:]
            if not self.kernel.admits(row_in):
                return False
        return True

    def summary(self, cand: Any) -> ProgramSummary:
        return block_summary(self, cand)

    def trip_counts(self) -> list[tuple[Scalar, Scalar, str]]:
        return block_trip_counts(self) + _width_bounds(self)

    def vc(self, cand: Any, ps: ProgramSummary | None = None) -> VC:
        return build_block_vc(self, cand, ps)

    def invariants(self, cand: Any) -> list[str]:
        ps = self.summary(cand)
        facts = [f"{o.array}[0:{show(ScalarOp('*', ScalarVar(self.var, INT), lift_entry_scalar(self.view(_param(self, o.array)).stride), INT))}]"
                 f" == flatten(rows 0..{self.var} of {show(o.value.matrix)})"
                 for o in ps.outputs if isinstance(o, ArrayOutput) and isinstance(o.value, Flatten)]
        facts += [f"{o.array}[0:{show(ScalarOp('*', ScalarVar(self.var, INT), o.step, INT))}].rows({show(o.step)})"
                  f"[:, :{show(cols(o.value))}] == rows 0..{self.var} of {show(o.value)}"
                  for o in ps.outputs if isinstance(o, ArrayOutput) and o.step is not None]
        outer = f"outer: 0 <= {self.var} <= {show(lift_entry_scalar(self.outer.stop))}" + "".join(f" and {f}" for f in facts)
        return [outer, *(f"row {self.var}: {x}" for x in self.kernel.invariants(cand))]


def _shape_equalities(k: BlockKernel) -> list[tuple[Expr, Expr]]:
    """The shape preconditions ``a == b`` of the row kernels at every level (two rows of a
    ``vector<vector>`` of one length) over the function's own parameters: the summary
    states them unconditionally, so generated code checks them even when no row runs."""
    params = {p.name for p in k.fn.params}
    out: list[tuple[Expr, Expr]] = []
    inner: Any = k.kernel
    while True:
        if isinstance(inner, NestKernel):
            out += [(a, b) for a, b in inner.same_cols if (symexec.reads(a) | symexec.reads(b)) <= params]
        if not isinstance(inner, BlockKernel):
            return out
        inner = inner.kernel


def _param(k: BlockKernel, array: str) -> str:
    return next(v.param for v in k.views if v.array == array)


# ---------------------------------------------------------------- analysis


def is_block_loop(fn: Function) -> bool:
    """Whether ``fn``'s only loop holds a loop that holds a loop (a nest deeper than two)."""
    loops = [s for s in fn.body if isinstance(s, For)]
    return len(loops) == 1 and any(
        isinstance(s, For) and any(isinstance(t, For) for t in s.body) for s in loops[0].body
    )


def analyze_block(fn: Function, analyze: Analyze, live_out: tuple[str, ...] = ()) -> BlockKernel:
    """Rebase the outer loop's body onto rows and analyze the row function with ``analyze``
    (the shape dispatch, :func:`tenspiler.vc.analyze.analyze_kernel`; see the module
    docstring).

    Raises:
        NotLiftable: outside the supported shape (the message names the reason).
    """
    k = next(n for n, s in enumerate(fn.body) if isinstance(s, For))
    outer = _forwarded(fn, k)
    for s in fn.body[k + 1:]:
        if not (isinstance(s, Return) and s.value is None):
            raise NotLiftable("code after a loop nest deeper than two is not supported yet", s.loc)
    # straight-line scalar code before the nest (``int n = len(A)``): each value the nest
    # reads but never assigns is substituted into the nest (one value for every row); a
    # value the nest also assigns before reading it is carried (refused below)
    pre = symexec.execute(fn.body[:k])
    if pre.stores or pre.has_return:
        raise NotLiftable("array writes or a return before a loop nest deeper than two are not supported yet",
                          fn.body[0].loc)
    inner_assigned = symexec.assigned_scalars(outer.body)
    invariant = {name: value for name, value in pre.scalars.items() if name not in inner_assigned}
    if invariant:
        substituted = map_stmt_exprs(outer, lambda e: symexec.replace_vars(e, invariant) if isinstance(e, Var) else e)
        assert isinstance(substituted, For)
        outer = substituted
    outer, steps = _rebase_inductions(outer, pre.scalars)
    inner_assigned = symexec.assigned_scalars(outer.body)
    carried_pre = sorted(set(pre.scalars) & inner_assigned & _live_in(outer.body, set()))
    if carried_pre:
        raise NotLiftable(
            f"'{carried_pre[0]}' is set before the nest and carried from one iteration of the outer loop to the "
            "next (a value across rows, e.g. an accumulator not reset per row): not supported in a nest deeper "
            "than two", outer.loc)
    # an enclosing block loop's offset stepped here (a result built by appends two or more
    # loops deep): it leaves the loop as its closed form
    rebased = {off.removesuffix("__off"): step for off, step in steps.items()}
    if any(name not in rebased for name in live_out) or fn.return_dtype is not None:
        raise NotLiftable("a loop nest deeper than two that computes a returned value is not supported yet", outer.loc)
    inductions_out = tuple((name, pre.scalars[name], rebased[name]) for name in live_out)
    if outer.descending:
        raise NotLiftable("a descending outer loop of a nest deeper than two is not supported yet", outer.loc)
    if not (isinstance(outer.start, Const) and outer.start.value == 0):
        raise NotLiftable("the outer loop of a nest deeper than two must start at 0", outer.loc)
    i = outer.var
    params = {p.name for p in fn.params}
    assigned = symexec.assigned_scalars(outer.body)
    if i in assigned:
        raise NotLiftable(f"the loop nest assigns the outer counter '{i}'", outer.loc)
    if assigned & params:
        name = sorted(assigned & params)[0]
        raise NotLiftable(f"the loop nest assigns the parameter '{name}'", outer.loc)
    carried = sorted(_live_in(outer.body, set()) - params - {i})
    if carried:
        raise NotLiftable(
            f"'{carried[0]}' is carried from one iteration of the outer loop to the next "
            "(a value across rows): not supported in a nest deeper than two", outer.loc)
    if symexec.reads(outer.stop) & assigned:
        raise NotLiftable("the outer loop's bound changes inside the nest", outer.loc)

    written = symexec.stored_arrays(outer.body)
    views: list[RowView] = []
    for p in fn.arrays:
        acc = list(_accesses(outer.body, p.name))
        if not acc:
            continue
        stride = _common_stride(acc, i, assigned)
        if stride is not None and p.name not in written and isinstance(stride, Const):
            # a read-only array indexed i + e (a column of a transposed matrix): kept whole,
            # the row kernel reads it at a column offset i (a strided view)
            stride = None
        if stride is None:
            if p.name in written:
                loc = next((loc for _, loc in acc if loc is not None), outer.loc)
                raise NotLiftable(
                    f"the loop nest writes '{p.name}' but does not access it only as row {i} "
                    f"({i}*S + e with one row length S): not supported in a nest deeper than two", loc)
            continue
        views.append(RowView(p.name, f"{p.name}__row", stride, p.name in written))
    by_array = {v.array: v for v in views}

    def rebase(e: Expr) -> Expr:
        if isinstance(e, Load) and e.array in by_array:
            v = by_array[e.array]
            form = symexec.linear_in(e.index, (i,))
            assert form is not None
            return Load(v.param, form[1], e.dtype, e.loc, e.row)
        return e

    def rebase_stmt(s: Stmt) -> Stmt:
        s = map_stmt_exprs(s, rebase)
        match s:
            case Store(array, index, value, loc, row) if array in by_array:
                form = symexec.linear_in(index, (i,))
                assert form is not None
                return Store(by_array[array].param, form[1], value, loc, row)
            case For(var, start, stop, body, loc, desc):
                return For(var, start, stop, tuple(rebase_stmt(b) for b in body), loc, desc)
        return s

    body = tuple(rebase_stmt(s) for s in outer.body)
    row_params = (
        *fn.params,
        Param(i, ScalarType(INT), outer.loc),
        *(Param(v.param, PointerType(fn.param(v.array).elem), outer.loc, fn.param(v.array).c_type)
          for v in views),
    )
    row_fn = Function(
        f"{fn.name}__row", row_params, None,
        (*((n, d) for n, d in fn.locals if n != i), *((off, INT) for off in steps)), body,
        fn.source, outer.loc, "",
    )
    kernel = analyze(row_fn, tuple(steps))
    views = [v if not v.written else replace(v, width=_row_width(body, v, assigned | {i})) for v in views]
    return BlockKernel(fn, outer, row_fn, kernel, tuple(views), tuple(steps.items()), inductions_out)


def _forwarded(fn: Function, k: int) -> For:
    """The loop ``fn.body[k]`` with its index temporaries substituted into their uses
    (:func:`~tenspiler.loops.ir.forward_index_temporaries`: ``int index = j*F*S + i*S + k``
    then ``x[index]``) and the assignments left dead removed (read nowhere in ``fn``)."""
    outer = fn.body[k]
    assert isinstance(outer, For)
    fwd = forward_index_temporaries((outer,), dict(fn.locals))[0]
    assert isinstance(fwd, For)
    if fwd == outer:
        return outer
    stmts = (*fn.body[:k], fwd, *fn.body[k + 1:])
    read = {n for st in all_stmts(stmts) for e in stmt_expressions(st) for n in expr_reads(e)}

    def live(body: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
        return tuple(replace(s, body=live(s.body)) if isinstance(s, For) else s for s in body
                     if not (isinstance(s, Assign) and s.target not in read))

    return replace(fwd, body=live(fwd.body))


def _row_width(body: Sequence[Stmt], v: RowView, assigned: set[str]) -> Expr | None:
    """The ``n`` of a row written only at ``0 <= j < n`` (every store to the row is at the
    counter ``j`` of an ascending loop from 0 to ``n``, ``n`` the same for every store and
    free of what the nest assigns), when ``n`` is not syntactically the row length ``S`` and
    ``S`` is a run-time value (a leading dimension: ``n <= S`` for a literal ``S``, e.g. rows
    of 1 element for ``y[j + k]``, would make a precondition few inputs meet);
    else ``None`` (whole rows, or a form this does not read: the row kernel's summary then
    has to write whole rows). Only a proposal: :func:`block_summary` checks that the row
    kernel's proved summary writes exactly ``0 .. n`` of the row."""
    widths: list[Expr] = []

    def walk(stmts: Sequence[Stmt], loops: tuple[For, ...]) -> bool:
        for s in stmts:
            if isinstance(s, For):
                if not walk(s.body, (*loops, s)):
                    return False
            elif isinstance(s, Store) and s.array == v.param:
                loop = next((lp for lp in reversed(loops) if isinstance(s.index, Var) and lp.var == s.index.name), None)
                if loop is None or loop.descending or not (isinstance(loop.start, Const) and loop.start.value == 0):
                    return False
                if symexec.reads(loop.stop) & (assigned | {lp.var for lp in loops}):
                    return False
                widths.append(loop.stop)
        return True

    if not walk(body, ()) or not widths:
        return None
    if any(symexec.index_difference(widths[0], w) != 0 for w in widths[1:]):
        return None
    if not symexec.reads(v.stride):
        return None  # rows of a literal length: a leading dimension is a run-time value (BLAS's LDC)
    d = symexec.index_difference(widths[0], v.stride)
    if d is not None and d >= 0:
        return None  # whole rows, or rows longer than S (they overlap: refused as not whole)
    if d is None and symexec.reads(widths[0]) & symexec.reads(v.stride):
        return None  # (n <= S could hold only for degenerate sizes, e.g. 2*N <= N)
    return widths[0]


def _width_bounds(k: BlockKernel) -> list[tuple[Scalar, Scalar, str]]:
    """The preconditions of rows written in part (:attr:`RowView.width`): ``n <= S``, the
    rows' written blocks do not overlap (BLAS's ``LDC >= max(1, N)``, its documented
    argument requirement) — assumed by the proof, checked by generated code."""
    return [(lift_entry_scalar(v.width), lift_entry_scalar(v.stride),
             f"the rows of '{v.array}' do not overlap (each writes {show(lift_entry_scalar(v.width))} of its "
             f"{show(lift_entry_scalar(v.stride))} elements)")
            for v in k.views if v.width is not None]


def _rebase_inductions(outer: For, pre: Mapping[str, Expr]) -> tuple[For, dict[str, Expr]]:
    """Inductions of the nest — a scalar ``v`` set before it (``v0``) and only stepped by
    constants ``v = v + c`` directly in the body of the innermost of a chain of loops
    ``for (j = a; j < b; j++)`` (one per level) at the top of the outer body (``out[k++] =
    ...``; Python's ``C.append(row)`` of rows built by appends; a flat result of a 3-D nest)
    — rewritten as ``v = base + v__off`` with ``base = v0 + i*D``, ``D = (sum of c) * (b - a)
    * …`` over the chain (the step per row) and ``v__off`` a local of the row starting at 0.

    The rewrite is exact when ``v`` equals ``base`` at the start of row ``i``: true for row 0;
    for the next row because the row kernel's summary, which outputs ``v__off`` at the row's
    end, is proved equal to ``D`` by the outer loop's ``induction step`` clause. Returns the
    rewritten loop and ``{v__off: D}``."""
    out_steps: dict[str, Expr] = {}
    i = Var(outer.var, INT)
    for name, v0 in sorted(pre.items()):
        if symexec.reads(v0) & symexec.assigned_scalars(outer.body):
            continue
        # the chain of loops down to the one whose body steps `name` (one loop per level)
        chain: list[For] = []
        level: tuple[Stmt, ...] = outer.body
        elsewhere: set[str] = set()
        incs: list[Assign] = []
        while True:
            loops = [s for s in level if isinstance(s, For) and name in symexec.assigned_scalars(s.body)]
            steps = [s for s in level if isinstance(s, Assign) and s.target == name]
            if steps and not loops:
                incs = steps
                elsewhere |= symexec.assigned_scalars([s for s in level if s not in steps])
                break
            if len(loops) != 1 or loops[0].descending or steps:
                break
            elsewhere |= symexec.assigned_scalars([s for s in level if s is not loops[0]])
            chain.append(loops[0])
            level = loops[0].body
        consts = [_step(s, name) for s in incs]
        if not incs or any(c is None for c in consts):
            continue
        bounds = set().union(*(symexec.reads(lp.start) | symexec.reads(lp.stop) for lp in chain))
        if name in elsewhere or bounds & symexec.assigned_scalars(outer.body) or pre[name].dtype != INT:
            continue
        off = f"{name}__off"
        step: Expr = Const(sum(c for c in consts if c is not None), INT)
        for lp in chain:
            step = Binary("*", step, Binary("-", lp.stop, lp.start, INT), INT)
        base = Binary("+", v0, Binary("*", i, step, INT), INT)
        value = Binary("+", base, Var(off, INT), INT)

        def subst(e: Expr, name: str = name, value: Expr = value) -> Expr:
            return value if isinstance(e, Var) and e.name == name else e

        def rewrite(st: Stmt, name: str = name, off: str = off, subst: Any = subst) -> Stmt:
            if isinstance(st, Assign) and st.target == name:
                c = _step(st, name)
                assert c is not None
                return Assign(off, Binary("+", Var(off, INT), Const(c, INT), INT), st.loc)
            if isinstance(st, For):
                return For(st.var, map_expr(st.start, subst), map_expr(st.stop, subst),
                           tuple(rewrite(b) for b in st.body), st.loc, st.descending)
            return map_stmt_exprs(st, subst)

        body = (Assign(off, Const(0, INT), outer.loc), *(rewrite(s) for s in outer.body))
        outer = For(outer.var, outer.start, outer.stop, body, outer.loc, outer.descending)
        out_steps[off] = step
    return outer, out_steps


def _step(s: Assign, name: str) -> int | None:
    """``c`` when ``s`` is ``name = name + c`` (or ``c + name``) for an integer constant."""
    match s.value:
        case Binary("+", Var(n), Const(c)) | Binary("+", Const(c), Var(n)) if n == name and isinstance(c, int):
            return c
    return None


def _live_in(stmts: Sequence[Stmt], assigned: set[str]) -> set[str]:
    """Names ``stmts`` read before assigning them (a loop's counter is assigned for its
    body; its bounds are read before); array names included, as ``symexec.reads`` lists
    them."""
    exposed: set[str] = set()
    done = set(assigned)
    for s in stmts:
        match s:
            case Assign(target, value):
                exposed |= symexec.reads(value) - done
                done.add(target)
            case Store(_, index, value):
                exposed |= (symexec.reads(index) | symexec.reads(value)) - done
            case Return(value):
                if value is not None:
                    exposed |= symexec.reads(value) - done
            case For(var, start, stop, body):
                exposed |= (symexec.reads(start) | symexec.reads(stop)) - done
                exposed |= _live_in(body, done | {var})
                done |= {var}
    return exposed  # array names too (reads() lists them): callers drop the parameters


def _accesses(stmts: Sequence[Stmt], array: str) -> Iterator[tuple[Expr, SourceLoc | None]]:
    """Every index ``array`` is read or written at in ``stmts`` (loops entered)."""
    for e in symexec.statement_expressions(stmts):
        if isinstance(e, Load) and e.array == array:
            yield e.index, e.loc
    yield from _store_indices(stmts, array)


def _store_indices(stmts: Sequence[Stmt], array: str) -> Iterator[tuple[Expr, SourceLoc | None]]:
    for s in stmts:
        if isinstance(s, Store) and s.array == array:
            yield s.index, s.loc
        elif isinstance(s, For):
            yield from _store_indices(s.body, array)


def _common_stride(acc: Sequence[tuple[Expr, SourceLoc | None]], i: str, assigned: set[str]) -> Expr | None:
    """The ``S`` of ``i*S + e`` common to every access (``e`` free of ``i``, ``S`` a
    non-zero expression of values the nest does not assign), else ``None``."""
    stride: Expr | None = None
    for index, _ in acc:
        form = symexec.linear_in(index, (i,))
        if form is None:
            return None
        (coef,), _rest = form
        if (isinstance(coef, Const) and coef.value == 0) or symexec.reads(coef) & (assigned | {i}):
            return None
        if stride is None:
            stride = coef
        elif symexec.index_difference(stride, coef) != 0:
            return None
    return stride


# ---------------------------------------------------------------- rows to a matrix


def lift_rows(k: BlockKernel, t: Term) -> Tensor:
    """The 2-D term whose row ``r`` is the row value ``t`` at ``i = r`` (see the module
    docstring): a proposal the outer loop's VC proves or refutes.

    Raises:
        NotLiftable: ``t`` reads the row or ``i`` in a way 2-D TensIR cannot express.
    """
    m = lift_entry_scalar(k.outer.stop)
    rowish = {k.var} | {v.param for v in k.views}

    def refuse(x: Term) -> NotLiftable:
        return NotLiftable(f"the rows of the nest compute {show(x)}, which has no 2-D form in TensIR yet",
                           k.outer.loc)

    def lift(x: Term) -> tuple[Term, bool]:
        if not (free_vars(x) & rowish):
            return x, False
        match x:
            case Take(TensorVar(p, d), n) if p in rowish and p != k.var:
                view = k.view(p)
                stride = lift_entry_scalar(view.stride)
                if free_vars(n) & rowish:
                    raise refuse(x)
                # the first n elements of each row of S (a Python row of another list's length)
                return (Matrix(TensorVar(view.array, d), m, stride) if same_int(n, stride)
                        else Matrix(TensorVar(view.array, d), m, n, stride)), True
            case Strided(TensorVar(a, d), ScalarVar(v), count, step) if v == k.var and a not in rowish and not (
                (free_vars(count) | free_vars(step)) & rowish
            ):
                # column i of count rows stored step apart: m columns of them (all of each
                # row only when m is the row length)
                cols_ = Matrix(TensorVar(a, d), count, step) if same_int(m, step) else Matrix(TensorVar(a, d), count, m, step)
                return Transpose(cols_), True
            case ReduceRows(TensorTensor("*", a, b, pd), d, "sum"):
                la, ca = lift(a)
                lb, cb = lift(b)
                if ca and not cb and rank(a) == 1 and isinstance(b, Matrix | Transpose):
                    return MatMul(la, _dense(transposed(b)), pd, d, True), True  # type: ignore[arg-type]
                if cb and not ca and rank(b) == 1 and isinstance(a, Matrix | Transpose):
                    return MatMul(lb, _dense(transposed(a)), pd, d, False), True  # type: ignore[arg-type]
                raise refuse(x)
            case Full(Lit(1), ReduceSum(t, d) | ReduceMax(t, d) as red):
                # one value per row, a reduction of the row's tensor: the row reductions of
                # the lifted 2-D tensor, one column (a 3-D array summed per plane)
                lt, changed = lift(t)
                if not changed or not is_tensor(lt) or rank(lt) != 2:
                    raise refuse(x)
                per_row = ReduceRows(lt, d, "sum" if isinstance(red, ReduceSum) else "max")
                return Matrix(per_row, m, Lit(1, INT)), True
            case TensorTensor() | TensorScalar() | TensorCast() | TensorMap() | TensorSelect():
                def child(c: Term) -> Term:
                    nc, changed = lift(c)
                    if changed and not is_tensor(c):
                        raise refuse(x)  # a scalar that depends on the row
                    if not changed and is_tensor(c) and rank(c) == 2:
                        raise refuse(x)  # a matrix per row: a 3-D value
                    return nc

                return map_children(x, child), True
        raise refuse(x)

    try:
        out, _ = lift(t)
    except NotLiftable:
        return stack_rows(k, t)
    return as_tensor(out)


def stack_rows(k: BlockKernel, t: Term) -> Tensor:
    """The row value ``t`` stacked over the rows, ``stack(i < m: t)`` with each row array
    ``X__row`` read as ``tail(X, i*S)``: the 2-D term whose row ``r`` is ``t`` at ``i = r``
    by definition (:class:`~tenspiler.ir.terms.Stack`), for a row value no other 2-D term
    expresses (a window of a wider matrix per element). One value per row
    (``full(1, v)``) stacks ``v``, as one column.

    Raises:
        NotLiftable: ``t`` is not a 1-D value (no 3-D TensIR).
    """
    m = lift_entry_scalar(k.outer.stop)
    taken = _names(t)
    var = f"$s:{k.var}"
    while var in taken:
        var += "'"
    r = ScalarVar(var, INT)
    env: dict[str, Term] = {k.var: r}
    for v in k.views:
        d = k.fn.param(v.array).elem
        env[v.param] = Tail(TensorVar(v.array, d), ScalarOp("*", r, lift_entry_scalar(v.stride), INT))
    match t:
        case Full(Lit(1), value):
            return Matrix(Stack(var, m, substitute(value, env)), m, Lit(1, INT))
        case Flatten(Matrix(Stack(_, count) as column, nr, Lit(1), None)) if nr == count:
            t = column  # the rows of an inner stack of one value per row: that stack
    if not is_tensor(t) or rank(t) != 1:
        raise NotLiftable(f"the rows of the nest compute {show(t)}, which has no 2-D form in TensIR yet", k.outer.loc)
    return Stack(var, m, substitute(t, env))


#: Prefix of the variable standing for an outer loop's compound trip count in its VC.
BOUND_VAR = "$m:"


def _replace_term(ps: ProgramSummary, old: Scalar, new: Scalar) -> ProgramSummary:
    """``ps`` with every occurrence of the term ``old`` replaced by ``new``."""

    def rep(t: Term) -> Term:
        return new if t == old else map_children(t, rep)

    def rs(t: Scalar) -> Scalar:
        return as_scalar(rep(t))

    outs = tuple(ArrayOutput(o.array, rs(o.lo), rs(o.hi), as_tensor(rep(o.value)),
                             None if o.step is None else rs(o.step)) if isinstance(o, ArrayOutput)
                 else ScalarOutput(o.name, rs(o.value)) for o in ps.outputs)
    return ProgramSummary(ps.function, outs, tuple((rs(a), rs(b)) for a, b in ps.preconditions))


def _names(t: Term) -> set[str]:
    """Every variable name in ``t``, free or bound."""
    out = {t.name} if isinstance(t, ScalarVar | TensorVar) else set()
    if isinstance(t, Stack):
        out.add(t.var)
    for c in children(t):
        out |= _names(c)
    return out


def _dense(m: Tensor) -> Tensor:
    """``matrix(x, r, c, c)`` as ``matrix(x, r, c)`` (the same rows, by definition), also
    under a transpose: generated code then reshapes instead of gathering."""
    match m:
        case Matrix(x, r, c, s) if s == c:
            return Matrix(x, r, c)
        case Transpose(Matrix(x, r, c, s)) if s == c:
            return Transpose(Matrix(x, r, c))
    return m


def block_summary(k: BlockKernel, cand: Any) -> ProgramSummary:
    """The function's summary: each written array's rows ``0 .. m`` are the row kernel's
    summary lifted to 2-D (:func:`lift_rows`), flattened.

    Raises:
        NotLiftable: the row kernel writes part of a row only, or its value has no 2-D form.
    """
    ps = k.kernel.summary(cand)
    m = lift_entry_scalar(k.outer.stop)
    rowish = {k.var} | {v.param for v in k.views}
    outs: list[ArrayOutput | ScalarOutput] = []
    offsets = {off for off, _ in k.steps}
    for o in ps.outputs:
        if isinstance(o, ScalarOutput) and o.name in offsets:
            continue  # an induction's offset at the row's end: the outer VC proves it is the step
        if not isinstance(o, ArrayOutput):
            raise NotLiftable("the rows of the nest compute a scalar result: not supported yet", k.outer.loc)
        if o.step is not None:
            raise NotLiftable(f"the rows of the nest write '{o.array}' at a stride: not supported yet", k.outer.loc)
        view = k.view(o.array)
        stride = lift_entry_scalar(view.stride)
        # a block of each row (a matrix with a leading dimension: rows of n <= S written), or whole rows
        block = view.width is not None and o.lo == Lit(0, INT) and same_int(o.hi, lift_entry_scalar(view.width))
        width = lift_entry_scalar(view.width) if block and view.width is not None else stride
        if not block and (o.lo != Lit(0, INT) or not same_int(o.hi, stride)):
            raise NotLiftable(
                f"the nest writes {show(o.lo)} .. {show(o.hi)} of each row of '{view.array}' (rows of "
                f"{show(stride)} elements): only whole rows are supported in a nest deeper than two",
                k.outer.loc)
        value = lift_rows(k, o.value)
        if rank(value) == 1:
            # every row the same vector (it reads no row and not i): that vector repeated,
            # a matrix view with row stride 0
            value = Matrix(value, m, width, Lit(0, INT))
        if rows(value) != m or not same_int(cols(value), width):
            raise NotLiftable(
                f"the rows of '{view.array}' lift to {show(value)}, not a {show(m)} x {show(width)} matrix",
                k.outer.loc)
        total = ScalarOp("*", m, stride, INT)
        outs.append(ArrayOutput(view.array, Lit(0, INT), total, value, stride) if block
                    else ArrayOutput(view.array, Lit(0, INT), total, Flatten(value)))
    for a, b in ps.preconditions:
        if (free_vars(a) | free_vars(b)) & rowish:
            raise NotLiftable("a shape precondition of the rows depends on the row", k.outer.loc)
    for name, v0, step in k.inductions_out:
        outs.append(ScalarOutput(name, lift_entry_scalar(Binary("+", v0, Binary("*", k.outer.stop, step, INT), INT))))
    return ProgramSummary(k.fn.name, tuple(outs), ps.preconditions)


def block_trip_counts(k: BlockKernel) -> list[tuple[Scalar, Scalar, str]]:
    """The trip counts the proof assumes (``left <= right`` over the entry state): the outer
    loop's, and the row kernel's that do not depend on the row (those that do are proved
    for every row by the ``row-preconditions`` clause)."""
    rowish = {k.var} | {v.param for v in k.views}
    out: list[tuple[Scalar, Scalar, str]] = [
        (Lit(0, INT), lift_entry_scalar(k.outer.stop), "the outer loop runs a non-negative number of times")]
    for left, right, what in k.kernel.trip_counts():
        if not ((free_vars(left) | free_vars(right)) & rowish):
            out.append((left, right, f"every row: {what}"))
    return out


# ---------------------------------------------------------------- verification conditions


def _row_assumptions(k: BlockKernel, cand: Any) -> list[tuple[str, str]]:
    """The assumptions of the row kernel's proof (every phase's, for several loops in a row),
    over the row function's entry state.

    Raises:
        NotLiftable: a later phase of the row assumes something about a value an earlier
            phase of the row computes (not expressible at the outer loop).
    """
    if not isinstance(k.kernel, PhasedKernel):
        return list(k.kernel.vc(cand).assumptions)
    out: list[tuple[str, str]] = []
    for p, c in zip(k.kernel.phases, cand, strict=True):
        names = [entry_name(x) for x in p.live_in]
        for a in p.kernel.vc(c).assumptions:
            if a[1] != "true" and any(n in a[1] for n in names):
                raise NotLiftable(
                    f"loop {p.index + 1} of a row of the nest assumes {a[0]}, about a value an earlier loop of the "
                    "row computes: not supported yet", k.outer.loc)
            if a not in out:
                out.append(a)
    return out


def build_block_vc(k: BlockKernel, cand: Any, ps: ProgramSummary | None = None) -> VC:
    """The outer loop's clauses (module docstring, step 4), given the row kernel's proved
    candidate ``cand``; ``ps`` (default :func:`block_summary`) is the summary checked by
    the post clause."""
    fn = k.fn
    ps = block_summary(k, cand) if ps is None else ps
    row_ps = k.kernel.summary(cand)
    decls, entry_scalars, entry_arrays = entry_declarations(fn)
    iv = head_name(k.var)
    decls.append(f"(declare-const {iv} Int)")
    written = [v for v in k.views if v.written]
    nexts = {v.array: f"{v.array}.n" for v in written}
    heads = {v.array: head_name(v.array) for v in written}
    for v in written:
        sort = array_sort(fn.param(v.array).elem)
        decls += [f"(declare-const {heads[v.array]} {sort})", f"(declare-const {nexts[v.array]} {sort})"]
    entry = SmtEncoder({**entry_scalars, **entry_arrays})

    def enc(e: Expr) -> str:
        return encode_expr(e, entry_scalars, entry_arrays)

    m = m_entry = enc(k.outer.stop)  # (assumptions are stated over the entry state: m_entry)
    shown = ps
    bound = lift_entry_scalar(k.outer.stop)
    if not isinstance(bound, ScalarVar | Lit):
        # a compound trip count (`i + k <= h`: h - k + 1) as a named constant, equal to it by
        # a global definition: cvc5 then matches the rows' facts to the summary's (a timeout
        # on the post clause of a 2-D convolution otherwise, 0.07 s named)
        name = f"{k.var}.m"
        decls += [f"(declare-const {name} Int)", f"(assert (= {name} {m}))"]
        m = name
        entry = SmtEncoder({**entry_scalars, **entry_arrays, BOUND_VAR + k.var: name}, {}, entry.definitions,
                           entry._rec_names)
        ps = _replace_term(ps, bound, ScalarVar(BOUND_VAR + k.var, INT))
    value_of = {o.array: o.value.matrix for o in ps.outputs if isinstance(o, ArrayOutput) and isinstance(o.value, Flatten)}
    value_of |= {o.array: o.value for o in ps.outputs if isinstance(o, ArrayOutput) and o.step is not None}
    # the columns each row writes: the row length, or n <= S for rows written in part
    width = {v.array: enc(v.stride if v.width is None else v.width) for v in written}
    if any(v.width is not None for v in written):
        decls += list(STRIDE_DECLS)  # the post clause's block fact (summary_goal)
    for v in written:
        if v.array not in value_of:
            raise NotLiftable(f"the summary does not define the rows of '{v.array}'", k.outer.loc)

    def inv(ivar: str, arrs: Mapping[str, str]) -> str:
        parts = [f"(<= 0 {ivar})", f"(<= {ivar} {m})"]
        for v in written:
            s, w = enc(v.stride), width[v.array]
            elem = matrix_element(entry, value_of[v.array], "rr", "cc")
            parts.append(
                f"(forall ((rr Int) (cc Int)) (=> (and (<= 0 rr) (< rr {ivar}) (<= 0 cc) (< cc {w})) "
                f"(= (select {arrs[v.array]} (+ (* rr {s}) cc)) {elem})))")
            if v.width is not None:  # the rest of each row written so far keeps its entry value
                parts.append(
                    f"(forall ((rr Int) (cc Int)) (=> (and (<= 0 rr) (< rr {ivar}) (<= {w} cc) (< cc {s})) "
                    f"(= (select {arrs[v.array]} (+ (* rr {s}) cc)) (select {entry_arrays[v.array]} (+ (* rr {s}) cc)))))")
            parts.append(
                f"(forall ((x Int)) (=> (or (< x 0) (>= x (* {ivar} {s}))) "
                f"(= (select {arrs[v.array]} x) (select {entry_arrays[v.array]} x))))")
            if (r := ranged(v)) is not None:  # its elements stay in their C type's range (the row kernel assumes it)
                parts.append(f"(forall ((x Int)) (<= {smt_const(r[0], DType.INT)} (select {arrs[v.array]} x) {r[1]}))")
        return "(and " + " ".join(parts) + ")"

    def ranged(v: RowView) -> tuple[int, int] | None:
        return fn.param(v.array).elem.int_range

    # the row kernel's assumptions: those over the shared parameters hold for the whole
    # function; those about the row (its counter or a row array) are proved per iteration
    row_assumptions = _row_assumptions(k, cand)
    row_names = [entry_name(k.var)] + [entry_name(v.param) for v in k.views]
    per_row = [(t, s) for t, s in row_assumptions if s != "true" and any(n in s for n in row_names)]
    shared = [(t, s) for t, s in row_assumptions if (t, s) not in per_row]
    assumptions: list[tuple[str, str]] = [
        (f"the outer loop runs a non-negative number of times: 0 <= {show(lift_entry_scalar(k.outer.stop))}",
         f"(<= 0 {m_entry})"),
        *input_assumptions(fn),
        *((f"{what}: {show(left)} <= {show(right)}", f"(<= {entry.scalar(left)} {entry.scalar(right)})")
          for left, right, what in _width_bounds(k)),
    ]
    for a in shared:
        if a not in assumptions:
            assumptions.append(a)

    # one iteration: the row kernel's summary at the current state, X__row = tail(X, i*S)
    cur = {**entry_scalars, **entry_arrays, **heads, k.var: iv}
    enc_cur = SmtEncoder(cur, {}, entry.definitions, entry._rec_names)
    shifted: dict[str, Term] = {
        v.param: Tail(TensorVar(v.array, fn.param(v.array).elem),
                      ScalarOp("*", ScalarVar(k.var, INT), lift_entry_scalar(v.stride), INT))
        for v in k.views
    }
    transition: list[str] = []
    induction_goals: list[str] = []
    row_values: dict[str, Any] = {}
    for o in row_ps.outputs:
        if isinstance(o, ScalarOutput):
            step = dict(k.steps)[o.name]
            induction_goals.append(f"(= {enc_cur.scalar(o.value)} {enc(step)})")
            continue
        v = k.view(o.array)
        s, w = enc(v.stride), width[v.array]
        value = substitute(o.value, shifted)
        at = enc_cur.at(value, "cc")  # type: ignore[arg-type]
        row_values[v.array] = lambda c, value=value: enc_cur.at(value, c)
        # stated as "the row" and "everything else" (equivalent to one ite over the index;
        # cvc5 then matches the rows before i without arithmetic on x: timeout vs 0.2 s)
        transition.append(
            f"(forall ((cc Int)) (=> (and (<= 0 cc) (< cc {w})) "
            f"(= (select {nexts[v.array]} (+ (* {iv} {s}) cc)) {at})))")
        transition.append(
            f"(forall ((x Int)) (=> (or (< x (* {iv} {s})) (>= x (+ (* {iv} {s}) {w}))) "
            f"(= (select {nexts[v.array]} x) (select {heads[v.array]} x))))")
    # the step's goal, one clause per conjunct, with the quantified row, column and index
    # of each fact as fresh constants (cvc5 then needs no skolemization under the
    # non-linear row offsets rr*S: a timeout vs 0.2 s on GEMM)
    decls += ["(declare-const rr.s Int)", "(declare-const cc.s Int)", "(declare-const x.s Int)"]
    step_hyps = (inv(iv, heads), f"(< {iv} {m})", *transition)
    nxt = f"(+ {iv} 1)"
    clauses = [
        Clause("initiation", (), inv("0", {v.array: entry_arrays[v.array] for v in written})),
        Clause("step: bounds", step_hyps, f"(and (<= 0 {nxt}) (<= {nxt} {m}))"),
    ]
    for v in written:
        s, w = enc(v.stride), width[v.array]
        arr = nexts[v.array]

        def elem(r: str, c: str, v: RowView = v) -> str:
            return matrix_element(entry, value_of[v.array], r, c)

        before = ("(<= 0 rr.s)", f"(< rr.s {iv})", "(<= 0 cc.s)", f"(< cc.s {w})")
        # element (rr, cc) of an earlier row lies before row i: non-linear (rr*S), proved on
        # its own (pure integer arithmetic, milliseconds) and then assumed by the next clause
        # (cvc5 timed out on the two together for a transposed GEMM)
        order = f"(< (+ (* rr.s {s}) cc.s) (* {iv} {s}))"
        # the invariant's and the transition's facts at (rr, cc), instances of hypotheses of
        # the clause (implied by them): E-matching cannot trigger on rr*S + cc when the row's
        # value does not mention rr (a row that reads no row of anything: every row equal)
        at = f"(+ (* rr.s {s}) cc.s)"
        instances = (
            f"(=> (and {' '.join(before)}) (= (select {heads[v.array]} {at}) {elem('rr.s', 'cc.s')}))",
            f"(=> (< {at} (* {iv} {s})) (= (select {arr} {at}) (select {heads[v.array]} {at})))",
        )
        clauses += [
            Clause(f"step: rows before {k.var} of {v.array} lie before row {k.var}", before, order),
            Clause(f"step: rows before {k.var} of {v.array}", (*step_hyps, *before, order, *instances),
                   f"(= (select {arr} (+ (* rr.s {s}) cc.s)) {elem('rr.s', 'cc.s')})"),
            Clause(f"step: row {k.var} of {v.array}", (*step_hyps, "(<= 0 cc.s)", f"(< cc.s {w})", *(
                # the transition's fact at cc, an instance of a hypothesis, where E-matching
                # cannot find it: a row value that does not mention cc (one reduction per row;
                # a timeout vs 0.1 s). Not otherwise: it slows GEMM's clause to a timeout
                [f"(= (select {arr} (+ (* {iv} {s}) cc.s)) {row_values[v.array]('cc.s')})"]
                if v.array in row_values and "cc.s" not in row_values[v.array]("cc.s") else [])),
                   f"(= (select {arr} (+ (* {iv} {s}) cc.s)) {elem(iv, 'cc.s')})"),
            Clause(f"step: rest of {v.array}", (*step_hyps, f"(or (< x.s 0) (>= x.s (* {nxt} {s})))"),
                   f"(= (select {arr} x.s) (select {entry_arrays[v.array]} x.s))"),
        ]
        if v.width is not None:
            # the unwritten columns w <= cc < S of the rows so far: of an earlier row (before
            # row i, the order proved on its own as above), and of row i (past its block)
            gap = ("(<= 0 rr.s)", f"(< rr.s {iv})", f"(<= {w} cc.s)", f"(< cc.s {s})")
            gap_order = f"(< (+ (* rr.s {s}) cc.s) (* {iv} {s}))"
            ent = entry_arrays[v.array]
            at, here = f"(+ (* rr.s {s}) cc.s)", f"(+ (* {iv} {s}) cc.s)"
            # the invariant's and the transition's facts at the element, as instances of
            # hypotheses (E-matching finds no trigger for an arithmetic index)
            gap_instances = (
                f"(=> (and {' '.join(gap)}) (= (select {heads[v.array]} {at}) (select {ent} {at})))",
                f"(=> (< {at} (* {iv} {s})) (= (select {arr} {at}) (select {heads[v.array]} {at})))",
            )
            row_instances = (
                f"(=> (>= {here} (+ (* {iv} {s}) {w})) (= (select {arr} {here}) (select {heads[v.array]} {here})))",
                f"(=> (>= {here} (* {iv} {s})) (= (select {heads[v.array]} {here}) (select {ent} {here})))",
            )
            clauses += [
                Clause(f"step: the rest of the rows before {k.var} of {v.array} lies before row {k.var}", gap, gap_order),
                Clause(f"step: the rest of the rows before {k.var} of {v.array}",
                       (*step_hyps, *gap, gap_order, *gap_instances), f"(= (select {arr} {at}) (select {ent} {at}))"),
                Clause(f"step: the rest of row {k.var} of {v.array}",
                       (*step_hyps, f"(<= {w} cc.s)", f"(< cc.s {s})", *row_instances),
                       f"(= (select {arr} {here}) (select {ent} {here}))"),
            ]
        if (r := ranged(v)) is not None:
            # every element stays in its C type's range: row i's from the row's (stored) values, the
            # rest unchanged; the row's fact at x - i*S as an explicit instance (implied by
            # the transition: E-matching cannot find cc = x - i*S)
            in_row = f"(and (<= (* {iv} {s}) x.s) (< x.s (+ (* {iv} {s}) {s})))"
            row_value = row_values[v.array](f"(- x.s (* {iv} {s}))")
            clauses.append(Clause(
                f"step: {v.array} holds {fn.param(v.array).elem.c_name} values",
                (*step_hyps, f"(=> {in_row} (= (select {arr} x.s) {row_value}))"),
                f"(<= {smt_const(r[0], DType.INT)} (select {arr} x.s) {r[1]})"))
    if per_row:
        # the row function's entry state at iteration i: its counter, and each row array
        # equal to the current array shifted by i*S
        decls.append(f"(declare-const {entry_name(k.var)} Int)")
        inst = [f"(= {entry_name(k.var)} {iv})"]
        for v in k.views:
            sort = array_sort(fn.param(v.array).elem)
            decls.append(f"(declare-const {entry_name(v.param)} {sort})")
            base = heads.get(v.array, entry_arrays[v.array])
            inst.append(f"(forall ((e Int)) (= (select {entry_name(v.param)} e) "
                        f"(select {base} (+ (* {iv} {enc(v.stride)}) e))))")
        goal = "(and " + " ".join(s for _, s in per_row) + ")"
        clauses.append(Clause("row-preconditions", (inv(iv, heads), f"(< {iv} {m})", *inst), goal))
    if induction_goals:
        # each row steps every induction by D: its value at the next row's start is the
        # base the row function was written with (v0 + (i+1)*D)
        clauses.append(Clause("induction step", (inv(iv, heads), f"(< {iv} {m})"),
                              "(and " + " ".join(induction_goals) + ")"))
    clauses.append(Clause("exit", (inv(iv, heads), f"(not (< {iv} {m}))"), f"(= {iv} {m})"))
    # an induction read after the loop: its value there is its closed form at the last row
    # (the rewrite of _rebase_inductions is exact, by the `induction step` clause)
    finals = {name: enc(Binary("+", v0, Binary("*", k.outer.stop, step, INT), INT)) for name, v0, step in k.inductions_out}
    goal = summary_goal(k, ps, entry, None, heads, finals)
    post_hyps: list[str] = []
    for v in written:
        if v.width is None:
            continue
        # the block fact's element (summary_goal: block_facts) is in row J of the rows
        # written, past their columns, or outside them: each case's invariant fact at it as
        # an instance (an arithmetic index has no E-matching trigger), and where the
        # element lies, proved on its own (non-linear: S*J)
        s, w, ent, arr = enc(v.stride), width[v.array], entry_arrays[v.array], heads[v.array]
        bj, br = STRIDE_J, STRIDE_R
        idx = block_index("0", s)
        belem = matrix_element(entry, value_of[v.array], bj, br)
        inside = f"(and (<= 0 {bj}) (< {bj} {m}) (<= 0 {br}) (< {br} {s}))"
        outside = f"(and (or (< {bj} 0) (>= {bj} {m})) (<= 0 {br}) (< {br} {s}))"
        where = f"(or (< {idx} 0) (>= {idx} (* {m} {s})))"
        clauses.append(Clause(f"post: the rows of {v.array} past row {m} lie past the rows written",
                              (f"(= {iv} {m})", outside), where))
        post_hyps += [
            f"(=> {outside} {where})",
            f"(=> (and {inside} (< {br} {w})) (= (select {arr} {idx}) {belem}))",
            f"(=> (and {inside} (<= {w} {br})) (= (select {arr} {idx}) (select {ent} {idx})))",
            f"(=> {where} (= (select {arr} {idx}) (select {ent} {idx})))",
        ]
    clauses.append(Clause("post", (inv(iv, heads), f"(= {iv} {m})", *post_hyps), goal))
    comments = (
        certificate_title(fn, ": the outer loop of a block loop"),
        "(the row kernel's certificate precedes this one; its summary is the transition of one iteration)",
        "program summary:",
        *("  " + line for line in summary_lines(shown)),
        "loop invariant:",
        *("  " + line for line in k.invariants(cand)[:1]),
        "Each (check-sat) below must answer unsat: the negated clause has no model.",
    )
    options = ("(set-option :full-saturate-quant true)",)
    return VC(tuple(decls), tuple(entry.definitions), tuple(assumptions), tuple(clauses), comments, options)
