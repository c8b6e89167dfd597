"""Shape analysis of a kernel: pre-loop code, one counted loop, post-loop code.

``analyze`` turns a loop-IR :class:`~tenspiler.loops.ir.Function` into a
:class:`LoopKernel`: the loop's bounds, its transition relation (symbolic execution of the
body), the loop-carried scalars and the arrays it writes — exactly the holes a program
summary and loop invariant must fill (paper §4.1). Kernels outside the supported shape raise
:class:`~tenspiler.errors.NotLiftable` with the offending location.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, runtime_checkable

from tenspiler.errors import NotLiftable, SourceLoc
from tenspiler.ir.terms import ProgramSummary
from tenspiler.loops.ir import (
    Binary,
    Compare,
    Const,
    DType,
    Expr,
    For,
    Function,
    Return,
    Select,
    Stmt,
    Store,
    Var,
    map_stmt_exprs,
)
from tenspiler.vc import symexec

if TYPE_CHECKING:
    from tenspiler.vc.conditions import VC
from tenspiler.vc.symexec import SymState


@dataclass(frozen=True)
class ArrayTarget:
    """An array the loop writes at ``loop_var + offset``; ``value`` is the value stored in
    one iteration, over the loop-head state. With a ``stride`` (a loop-invariant integer
    expression over the head state, constant or run-time): written at ``stride*loop_var +
    offset`` (``y[i*incy]``), under the precondition ``stride >= 1`` — the iterations write
    distinct elements (a stride of 0 writes one element again and again: refused)."""

    array: str
    offset: int
    value: Expr
    dtype: DType
    stride: Expr | None = None


@dataclass(frozen=True)
class ScalarTarget:
    """A loop-carried scalar; ``update`` is its value after one iteration (over the head
    state), ``init`` its value on loop entry (over the function-entry state)."""

    name: str
    update: Expr
    init: Expr
    dtype: DType


@dataclass(frozen=True)
class Induction:
    """A scalar the loop steps by a constant: ``x = x + step`` each iteration, so at the
    head of iteration ``i`` it is ``init + step * (i - start)`` (``init`` over the
    function-entry state). Pointer walking lowers to such offsets."""

    name: str
    init: Expr
    step: int
    dtype: DType


@dataclass(frozen=True)
class LoopKernel:
    """A single-loop kernel.

    Attributes:
        fn: the function.
        pre: state after the pre-loop statements, over the function-entry state.
        loop: the ``For`` statement.
        start, stop: loop bounds over the function-entry state (``stop`` exclusive).
        body: state after one iteration, over the loop-head state.
        scalars: loop-carried scalars (read before written in the body, or read after it).
        arrays: arrays written by the loop.
        result: the returned expression over the loop-exit state (``None`` for void).
        inductions: scalars stepped by a constant; ``body`` already reads them through
            their closed form (justified by an invariant conjunct per induction).
        live_out: scalars whose values after the loop a later loop phase reads
            (:mod:`tenspiler.vc.phases`): each is an output of the summary, proved by the
            post clause like the returned value.
        post_stores: ``(array, index, value)`` of each store after the loop (``*result =
            s;``), over the loop-exit state; ``index`` reads only values fixed before the
            loop. An output ``array[index:index+1] = full(1, value)`` of the summary.
    """

    fn: Function
    pre: SymState
    loop: For
    start: Expr
    stop: Expr
    body: SymState
    scalars: tuple[ScalarTarget, ...]
    arrays: tuple[ArrayTarget, ...]
    result: Expr | None
    inductions: tuple[Induction, ...] = ()
    live_out: tuple[str, ...] = ()
    post_stores: tuple[tuple[str, Expr, Expr], ...] = ()
    #: live-out scalars assigned after the loop: ``(name, value over the exit state)``
    post_scalars: tuple[tuple[str, Expr], ...] = ()

    def final_value(self, name: str) -> Expr:
        """Scalar ``name`` at the end of the function, over the loop-exit state."""
        return dict(self.post_scalars).get(name, Var(name, self.fn.dtype_of(name)))

    def closed_form(self, ind: Induction, at: Expr) -> Expr:
        """Value of induction ``ind`` at the head of iteration ``at`` (an INT expression
        over the entry state and the loop counter)."""
        int_ = DType.INT
        steps = at if _is_const(self.start, 0) else Binary("-", at, self.start, int_)
        moved = steps if ind.step == 1 else Binary("*", Const(ind.step, int_), steps, int_)
        return moved if _is_const(ind.init, 0) else Binary("+", ind.init, moved, int_)

    @property
    def var(self) -> str:
        return self.loop.var

    def entry_value(self, name: str) -> Expr:
        """Value of scalar ``name`` on loop entry, over the function-entry state."""
        return self.pre.scalars.get(name, Var(name, self.fn.dtype_of(name)))

    @property
    def strided_reads(self) -> dict[str, set[tuple[int, int]]]:
        """Array → ``(c, d)`` of every read ``array[c*i + d]`` with a stride ``c >= 2`` (a
        ``strided`` view: decimation, interleaved data)."""
        out: dict[str, set[tuple[int, int]]] = {}
        for e in [a.value for a in self.arrays] + [s.update for s in self.scalars]:
            for ld in symexec.loads(e):
                form = symexec.stride_of(ld.index, self.var)
                if form is not None and form[0] >= 2:
                    out.setdefault(ld.array, set()).add(form)
        return out

    def loop_invariant(self, name: str) -> bool:
        """Whether scalar ``name`` keeps one value through the loop, a value computed from
        scalar parameters: not the counter, not assigned in the body (an induction is: its
        value moves), not read from an array before the loop."""
        return name != self.var and name not in self.body.scalars and name not in {ind.name for ind in self.inductions} \
            and not symexec.loads(self.entry_value(name))

    @property
    def runtime_strided_reads(self) -> dict[str, set[tuple[Expr, int]]]:
        """Array → ``(s, d)`` of every read ``array[s*i + d]`` whose stride ``s`` is a
        loop-invariant run-time integer expression (``x[i*incx]``), ``s`` over the head
        state (:meth:`stride_entry` gives it over the entry state): a ``strided`` view with
        a symbolic step, under the precondition ``s >= 0`` (:meth:`trip_counts`)."""
        out: dict[str, set[tuple[Expr, int]]] = {}
        for e in [a.value for a in self.arrays] + [s.update for s in self.scalars]:
            for ld in symexec.loads(e):
                if symexec.stride_of(ld.index, self.var) is not None:
                    continue
                form = symexec.runtime_stride_of(ld.index, self.var, self.loop_invariant)
                if form is not None:
                    out.setdefault(ld.array, set()).add(form)
        return out

    def stride_entry(self, stride: Expr) -> Expr:
        """A loop-invariant stride over the function-entry state."""
        return symexec.substitute(stride, self.pre)

    def runtime_strides(self) -> list[tuple[Expr, str]]:
        """The distinct run-time strides (over the entry state) and the arrays read at each."""
        out: dict[Expr, list[str]] = {}
        for a, forms in sorted(self.runtime_strided_reads.items()):
            for s, _ in sorted(forms, key=repr):
                arrays = out.setdefault(self.stride_entry(s), [])
                if a not in arrays:
                    arrays.append(a)
        return [(s, ", ".join(arrays)) for s, arrays in out.items()]

    @property
    def access_offsets(self) -> dict[str, set[int]]:
        """Array → the offsets ``d`` of every access ``array[i + d]`` in the loop body."""
        loop_var = Var(self.var, DType.INT)
        out: dict[str, set[int]] = {}
        exprs = [a.value for a in self.arrays] + [s.update for s in self.scalars]
        for e in exprs:
            for ld in symexec.loads(e):
                d = symexec.index_difference(ld.index, loop_var)
                if d is not None:
                    out.setdefault(ld.array, set()).add(d)
        for a in self.arrays:
            if a.stride is None:
                out.setdefault(a.array, set()).add(a.offset)
        return out

    def strided_writes(self) -> list[tuple[ArrayTarget, Expr]]:
        """Each array written at a stride, with the stride over the entry state."""
        return [(a, self.stride_entry(a.stride)) for a in self.arrays if a.stride is not None]

    # ------------------------------------------------------------ shape-generic interface
    # (shared with tenspiler.vc.nest.NestKernel; the synthesizer and verifier call these)

    nested = False

    @property
    def bounds(self) -> tuple[Expr, ...]:
        """The loop bounds the test inputs are sized for."""
        return (self.stop,)

    def admits(self, inputs: Mapping[str, Any]) -> bool:
        """Whether concrete ``inputs`` satisfy the proof's preconditions: non-negative trip
        count and every index the summary reads or writes inside its array."""
        from tenspiler.ir.interp import evaluate
        from tenspiler.vc.conditions import lift_entry_scalar

        start = int(evaluate(lift_entry_scalar(self.start), inputs))
        stop = int(evaluate(lift_entry_scalar(self.stop), inputs))
        if start > stop:
            return False
        if stop > start and not all(
            c * start + d >= 0 and c * (stop - 1) + d < len(inputs[a])
            for a, forms in self.strided_reads.items() for c, d in forms
        ):
            return False
        for a, rforms in self.runtime_strided_reads.items():
            for st, d in rforms:
                s = int(evaluate(lift_entry_scalar(self.stride_entry(st)), inputs))
                if s < 0:
                    return False  # the stated precondition: the stride is non-negative
                if stop > start and not (s * start + d >= 0 and s * (stop - 1) + d < len(inputs[a])):
                    return False
        for target, se in self.strided_writes():
            s = int(evaluate(lift_entry_scalar(se), inputs))
            if s < 1:
                return False  # the stated precondition: the iterations write distinct elements
            if stop > start and not (s * start + target.offset >= 0
                                     and s * (stop - 1) + target.offset < len(inputs[target.array])):
                return False
        for array, idx, _ in self.post_stores:
            at = int(evaluate(lift_entry_scalar(symexec.substitute(idx, self.pre)), inputs))
            if not 0 <= at < len(inputs[array]):
                return False
        return all(
            start + min(offs) >= 0 and stop + max(offs) <= len(inputs[a])
            for a, offs in self.access_offsets.items()
        )

    def summary(self, cand: Any) -> ProgramSummary:
        from tenspiler.vc.conditions import summary

        return summary(self, cand)

    def vc(self, cand: Any, ps: ProgramSummary | None = None) -> VC:
        from tenspiler.vc.conditions import build_vc

        return build_vc(self, cand, ps)

    def invariants(self, cand: Any) -> list[str]:
        from tenspiler.vc.conditions import invariant_text

        return [invariant_text(self, cand)]

    def trip_counts(self) -> list[tuple[Any, Any, str]]:
        """The loop runs a non-negative number of times, and each run-time stride of a read
        is non-negative (over the entry state)."""
        from tenspiler.ir.terms import Lit
        from tenspiler.vc.conditions import c_text, lift_entry_scalar

        out = [(lift_entry_scalar(self.start), lift_entry_scalar(self.stop),
                "the loop runs a non-negative number of times")]
        for s, arrays in self.runtime_strides():
            out.append((Lit(0, DType.INT), lift_entry_scalar(s),
                        f"the run-time stride {c_text(s)} of the reads of {arrays} is non-negative"))
        for a, se in self.strided_writes():
            if not isinstance(se, Const):
                out.append((Lit(1, DType.INT), lift_entry_scalar(se),
                            f"the run-time stride {c_text(se)} of the writes of {a.array} is positive (distinct "
                            "elements written)"))
        return out

    @property
    def modified(self) -> set[str]:
        return {t.name for t in self.scalars} | {a.array for a in self.arrays} | {self.var}


@runtime_checkable
class KernelShape(Protocol):
    """What the synthesizer and the verifier ask of every kernel shape (one loop, a two-deep
    nest, loop phases, a block loop): the interface that replaces ``Any`` between ``vc`` and
    ``synth``. The shapes proved by one VC (:data:`ProvableKernel`) also have
    ``vc(cand, ps)``; loop phases are proved phase by phase."""

    @property
    def nested(self) -> bool: ...

    @property
    def bounds(self) -> tuple[Expr, ...]: ...

    def admits(self, inputs: Mapping[str, Any]) -> bool: ...

    def summary(self, cand: Any) -> ProgramSummary:
        """The program summary a candidate (the holes' terms) stands for."""
        ...

    def invariants(self, cand: Any) -> list[str]: ...

    def trip_counts(self) -> Sequence[tuple[Any, Any, str]]:
        """The trip counts ``(left, right, what)``, TensIR scalars with ``left <= right``
        over the entry state, that the proof assumes (generated code checks them)."""
        ...


#: The shape dispatch (:func:`tenspiler.vc.analyze.analyze_kernel`), passed to the shapes
#: whose parts are kernels of any shape again (loop phases, a block loop's row function).
Analyze: TypeAlias = Callable[[Function, tuple[str, ...]], KernelShape]


def analyze(fn: Function, live_out: tuple[str, ...] = ()) -> LoopKernel:
    """Split ``fn`` into pre-loop code, one loop, post-loop code and classify the loop;
    ``live_out``: scalars read after the function by a later loop phase."""
    loops = [i for i, s in enumerate(fn.body) if isinstance(s, For)]
    if not loops:
        raise NotLiftable(f"function '{fn.name}' has no loop to lift", fn.loc)
    if len(loops) > 1:
        raise NotLiftable("several top-level loops are not supported yet", fn.body[loops[1]].loc)
    k = loops[0]
    loop = fn.body[k]
    assert isinstance(loop, For)
    for s in loop.body:
        if isinstance(s, For):
            raise NotLiftable("nested loops are not supported yet (they need 2-D TensIR)", s.loc)
        if isinstance(s, Return):
            raise NotLiftable("return inside a loop is not supported", s.loc)
    pre_stmts, post_stmts = fn.body[:k], fn.body[k + 1 :]
    pre = symexec.execute(pre_stmts)
    if pre.has_return:
        raise NotLiftable("return before the loop", loop.loc)
    if pre.stores:
        raise NotLiftable("array writes before the loop are not supported yet", pre_stmts[0].loc)
    start = symexec.substitute(loop.start, pre)
    stop = symexec.substitute(loop.stop, pre)
    body = symexec.execute(loop.body)
    loop_var = Var(loop.var, DType.INT)
    inductions = _inductions(fn, pre, body)
    if inductions:
        # re-execute the body reading each induction through its closed form
        probe = LoopKernel(fn, pre, loop, start, stop, body, (), (), None, inductions)
        head = SymState(scalars={ind.name: probe.closed_form(ind, loop_var) for ind in inductions})
        body = symexec.execute(loop.body, head)

    assigned = set(body.scalars)
    post_reads: set[str] = symexec.upward_exposed(post_stmts) | set(live_out)
    if loop.descending:
        if inductions:
            up = _ascending(fn, k, pre, assigned | {loop.var})
            if up is None or loop.var in post_reads:
                raise NotLiftable("a descending loop stepping a scalar (pointer walking) is not supported yet", loop.loc)
            return analyze(up, live_out)
        if loop.var in post_reads:
            raise NotLiftable(f"the counter '{loop.var}' of a descending loop is read after it", loop.loc)
    exposed = symexec.upward_exposed(loop.body)
    for name in sorted((symexec.reads(loop.start) | symexec.reads(loop.stop)) & assigned):
        raise NotLiftable(f"loop bound depends on '{name}', which the loop assigns", loop.loc)

    scalars: list[ScalarTarget] = []
    # Loop-carried scalars the outputs depend on: read after the loop, or read by the
    # update of another output (a coupling the synthesizer then refuses as a scan). An
    # accumulator nobody reads afterwards is dead and needs no invariant.
    others_read: set[str] = set()
    for target, value in body.scalars.items():
        others_read |= symexec.reads(value) - {target}
    for _, stores in body.stores.items():
        for idx, val in stores:
            others_read |= symexec.reads(idx) | symexec.reads(val)
    names = [n for n, _ in fn.locals] + [p.name for p in fn.scalars]
    induction_names = {ind.name for ind in inductions}
    for name in names:
        if name not in assigned or name == loop.var or name in induction_names:
            continue
        if name in post_reads or (name in exposed and name in others_read):
            scalars.append(
                ScalarTarget(
                    name,
                    body.scalars[name],
                    pre.scalars.get(name, Var(name, fn.dtype_of(name))),
                    fn.dtype_of(name),
                )
            )

    arrays: list[ArrayTarget] = []
    moving = set(body.scalars) | {loop.var} | {ind.name for ind in inductions} | {
        name for name, v in pre.scalars.items() if symexec.loads(v)}  # a stride read from an array: not taken
    for array, stores in body.stores.items():
        offsets = set()
        strides: set[Expr] = set()
        for idx, _ in stores:
            d = symexec.index_difference(idx, loop_var)
            if d is None:
                runtime = symexec.runtime_stride_of(idx, loop.var, lambda n: n not in moving)
                const = symexec.stride_of(idx, loop.var)
                if runtime is None and const is None:
                    raise NotLiftable(
                        f"write to '{array}' at an index that is not {loop.var} + constant or "
                        f"stride*{loop.var} + constant (a loop-invariant stride)",
                        _loc_of_store(loop, array),
                    )
                if loop.descending:
                    raise NotLiftable(f"a descending loop writing '{array}' at a stride is not supported yet",
                                      _loc_of_store(loop, array))
                if runtime is not None:
                    stride_e, d = runtime
                else:
                    assert const is not None
                    stride_e, d = Const(const[0], DType.INT), const[1]
                strides.add(stride_e)
            offsets.add(d)
        mixed = bool(strides) and any(symexec.index_difference(i, loop_var) is not None for i, _ in stores)
        if len(offsets) > 1 or len(strides) > 1 or mixed:
            raise NotLiftable(
                f"the loop writes '{array}' at several offsets per iteration",
                _loc_of_store(loop, array),
            )
        offset = offsets.pop()
        arrays.append(ArrayTarget(array, offset, stores[-1][1], fn.dtype_of(array),
                                  strides.pop() if strides else None))

    post_stores: list[tuple[str, Expr, Expr]] = []
    if post_stmts:
        post = symexec.execute(post_stmts)
        post_stores = stores_after(post_stmts, post, set(body.stores), assigned | {loop.var}, "loop")
        post_scalars = tuple((n, v) for n, v in sorted(post.scalars.items()) if n in live_out)
        result = post.returned
        for e in [result] if result is not None else []:
            for ld in symexec.loads(e):
                raise NotLiftable("reading an array after the loop is not supported yet", ld.loc)
    else:
        result = None
        post_scalars = ()

    kernel = LoopKernel(
        fn, pre, loop, start, stop, body, tuple(scalars), tuple(arrays), result, inductions, live_out,
        tuple(post_stores), post_scalars,
    )
    _check_reads(kernel)
    return kernel


def _is_const(e: Expr, value: int) -> bool:
    return isinstance(e, Const) and e.value == value


def _ascending(fn: Function, k: int, pre: SymState, written: set[str]) -> Function | None:
    """``fn`` with its descending loop ``fn.body[k]`` (iterations ``var = stop - 1, ...,
    start``) run in the same order by an ascending counter: ``For(var, start, stop)`` whose
    body reads ``stop - 1 - (var - start)`` where the original read ``var`` — the
    original counter as an affine function of the canonical one, so that scalars stepped in
    the body (pointer walking, ``*p++``) are inductions of that counter. ``start`` and
    ``stop`` are taken over the entry state; ``None`` (not rewritten) when they read a
    variable the code before the loop or the loop (``written``) assigns, whose value the
    rewritten body would read at the wrong time. The counter's own value after the loop
    differs (the caller refuses a read of it)."""
    loop = fn.body[k]
    assert isinstance(loop, For) and loop.descending
    start, stop = symexec.substitute(loop.start, pre), symexec.substitute(loop.stop, pre)
    if (symexec.reads(start) | symexec.reads(stop)) & (set(pre.scalars) | written):
        return None
    int_ = DType.INT
    var = Var(loop.var, int_, loop.loc)
    last = Binary("-", stop, Const(1, int_, loop.loc), int_, loop.loc)
    steps = var if _is_const(start, 0) else Binary("-", var, start, int_, loop.loc)
    original = Binary("-", last, steps, int_, loop.loc)

    def rewrite(e: Expr) -> Expr:
        return original if isinstance(e, Var) and e.name == loop.var else e

    body = tuple(map_stmt_exprs(st, rewrite) for st in loop.body)
    up = For(loop.var, start, stop, body, loop.loc, descending=False)
    return replace(fn, body=(*fn.body[:k], up, *fn.body[k + 1:]))


def _inductions(fn: Function, pre: SymState, body: SymState) -> tuple[Induction, ...]:
    """Integer scalars whose per-iteration update is ``x + c`` for a constant ``c``."""
    out: list[Induction] = []
    for name, update in body.scalars.items():
        if fn.dtype_of(name) != DType.INT:
            continue
        step: int | None = None
        match update:
            case Binary("+", Var(x), Const(c)) | Binary("+", Const(c), Var(x)) if x == name and isinstance(c, int):
                step = c
            case Binary("-", Var(x), Const(c)) if x == name and isinstance(c, int):
                step = -c
            case _:
                pass
        if step is not None:
            out.append(Induction(name, pre.scalars.get(name, Var(name, DType.INT)), step, DType.INT))
    return tuple(out)


_COMPLEMENT = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


def _complementary_selects(e: Expr) -> Expr:
    """``c ? a : (c' ? b : e)`` with ``c'`` the negation of ``c`` (the two branches of an
    if-converted ``if``/``else``, integer comparisons of its flag) is ``c ? a : b``: where
    ``c`` is false, ``c'`` holds."""
    if isinstance(e, Select):
        inner = _complementary_selects(e.else_)
        c1, c2 = e.cond, inner.cond if isinstance(inner, Select) else None
        if isinstance(inner, Select) and isinstance(c1, Compare) and isinstance(c2, Compare) \
                and not c1.left.dtype.is_float and c2.op == _COMPLEMENT[c1.op] and c2.left == c1.left \
                and c2.right == c1.right:
            return Select(c1, e.then, inner.then, e.dtype, e.loc)
        return Select(e.cond, e.then, inner, e.dtype, e.loc)
    return e


def stores_after(post_stmts: tuple[Stmt, ...], post: SymState, written: set[str], assigned: set[str],
                 what: str) -> list[tuple[str, Expr, Expr]]:
    """``(array, index, value)`` of each store of the code after a loop (``what``: "loop" or
    "loop nest"), over the exit state: one store per array, not written by the loop, at an
    index that reads none of ``assigned``, no array read. Refused by name otherwise."""
    out: list[tuple[str, Expr, Expr]] = []
    for array, stores in post.stores.items():
        loc = next((st.loc for st in post_stmts if isinstance(st, Store) and st.array == array),
                   post_stmts[0].loc if post_stmts else None)
        if array in written:
            raise NotLiftable(f"'{array}' is written by the {what} and again after it: not supported yet", loc)
        if len(stores) > 1 and all(isinstance(i, Const) and i == stores[-1][0] for i, _ in stores):
            # one element written several times (an if/else storing in each branch): its last
            # value, whose reads of the element resolve to the earlier stores (symexec)
            stores = [(stores[-1][0], _complementary_selects(stores[-1][1]))]
        if len(stores) > 1:
            raise NotLiftable(f"'{array}' is written more than once after the {what}: not supported yet", loc)
        (idx, val), = stores
        if symexec.reads(idx) & assigned:
            raise NotLiftable(f"'{array}' is written after the {what} at an index the {what.split()[-1]} computes: "
                              "not supported yet", loc)
        for ld in symexec.loads(idx) + symexec.loads(val):
            raise NotLiftable(f"reading an array after the {what} is not supported yet", ld.loc)
        out.append((array, idx, val))
    return out


def _loc_of_store(loop: For, array: str) -> SourceLoc | None:
    for s in loop.body:
        if getattr(s, "array", None) == array:
            return s.loc
    return loop.loc


def _check_reads(k: LoopKernel) -> None:
    """Reads of arrays the loop writes must see unwritten elements only (no recurrences)."""
    written = {a.array: a.offset for a in k.arrays}
    strided = {a.array: a for a in k.arrays if a.stride is not None}
    loop_var = Var(k.var, DType.INT)
    exprs = [a.value for a in k.arrays] + [s.update for s in k.scalars]
    for e in exprs:
        for ld in symexec.loads(e):
            if ld.array in strided:
                w = strided[ld.array]
                at = symexec.index_difference(ld.index, Binary("*", w.stride, loop_var, DType.INT))  # type: ignore[arg-type]
                if at != w.offset:
                    raise NotLiftable(
                        f"'{ld.array}' is written at a stride and read at another index in the loop "
                        "(a read of an element another iteration writes is not supported)", ld.loc)
                continue  # the element this iteration writes, read before the write
            d = symexec.index_difference(ld.index, loop_var)
            form = symexec.stride_of(ld.index, k.var) if d is None else None
            if form is None and d is None:
                form = symexec.runtime_stride_of(ld.index, k.var, k.loop_invariant)  # type: ignore[assignment]
            if form is not None and ld.array not in written:
                continue  # a strided read c*i + d (c constant or run-time) of an array the loop does not write
            if d is None:
                carried = sorted(symexec.reads(ld.index) & {s.name for s in k.scalars})
                why = (" (a strided read of an array the loop writes)" if form is not None else
                       f" (it depends on '{carried[0]}', which the loop updates: a gather at a running index; "
                       f"for an argmax keep the maximum in a scalar, 'if ({ld.array}[{k.var}] > m) "
                       f"{{ m = {ld.array}[{k.var}]; best = {k.var}; }}')" if carried else "")
                raise NotLiftable(f"read of '{ld.array}' at an index that is not {k.var} + constant{why}", ld.loc)
            if ld.array in written and d < written[ld.array]:
                raise NotLiftable(
                    f"'{ld.array}' is read at an element an earlier iteration wrote "
                    "(a recurrence, not expressible in TensIR)",
                    ld.loc,
                )
