"""Several loops one after another in one function: loop phases and their composition.

A function whose body holds several top-level loops (``softmax``: a maximum loop, an
exp-and-sum loop, a divide loop) is split into **phases**: phase ``p`` is the straight-line
code after loop ``p - 1`` followed by loop ``p`` (the last phase also takes the code after the
last loop, e.g. the ``return``). Each phase is an ordinary kernel
(:func:`tenspiler.vc.kernel.analyze_kernel`: one loop or a two-deep nest) of its own
function, whose parameters are the function's parameters plus the locals it reads before
assigning them (values an earlier phase computed, *live-in*); the scalars a later phase
reads are the phase's *live-out* values — outputs of its summary, proved by its post
clause like a returned value.

Each phase gets its own summary, loop invariant and proof, valid for **every** state at the
phase's entry (its VCs quantify over the entry values of arrays and live-in scalars). The
function's summary is their composition (:func:`compose`): phase ``p``'s terms read arrays
and scalars at the phase's entry, which are the results of the phases before it, so each
such name is replaced by the term an earlier phase proved for it. This substitution is the
only step between the proofs and the composed summary; it is exact:

* a scalar read at phase entry is replaced by the term of the phase that last assigned it
  (or its straight-line value);
* a view of an array an earlier phase wrote (``take``, ``slice``, ``matrix``) is rewritten
  onto that phase's value only if the elements it reads lie inside the written range, and
  left on the entry array only if they lie outside it — both decided by exact polynomial
  arithmetic (sympy) on the bounds; anything else is refused;
* an array written by two phases must be written over the same range by the later one
  (the earlier value is then read through it, or not at all).

Refused (named reasons): a loop bound that depends on a value an earlier loop computes, a
view whose range cannot be placed inside or outside the written range, two writes of one
array over different ranges.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import sympy

from tenspiler.errors import NotLiftable, SourceLoc
from tenspiler.ir.printer import show
from tenspiler.ir.terms import (
    ArrayOutput,
    Lit,
    Matrix,
    ProgramSummary,
    Scalar,
    ScalarOp,
    ScalarOutput,
    ScalarVar,
    Slice,
    Strided,
    Tail,
    Take,
    TensorVar,
    Term,
    as_scalar,
    as_tensor,
    free_vars,
    length,
    map_children,
    rank,
    substitute,
)
from tenspiler.ir.terms import cols as t_cols
from tenspiler.ir.terms import rows as t_rows
from tenspiler.loops.ir import (
    DType,
    Expr,
    For,
    Function,
    Param,
    ScalarType,
    Stmt,
)
from tenspiler.vc import symexec
from tenspiler.vc.kernel import Analyze
from tenspiler.vc.symexec import SymState


@dataclass(frozen=True)
class Phase:
    """One loop phase.

    Attributes:
        index: 0-based position.
        fn: the phase as a function: the original parameters, then each live-in local as a
            scalar parameter (its value at the phase's entry).
        kernel: its kernel analysis (a ``LoopKernel`` or ``NestKernel``).
        live_in: locals read before the phase assigns them.
        live_out: scalars (locals or parameters) the phase assigns and a later phase reads.
        entry_env: straight-line values at the phase's entry, over the function's entry
            state, of the scalars no earlier loop assigns (for the trip counts).
    """

    index: int
    fn: Function
    kernel: Any
    live_in: tuple[str, ...]
    live_out: tuple[str, ...]
    entry_env: Mapping[str, Expr] = field(default_factory=dict)


@dataclass(frozen=True)
class PhasedKernel:
    """A function of several loop phases (see the module docstring)."""

    fn: Function
    phases: tuple[Phase, ...]

    @property
    def nested(self) -> bool:
        return any(getattr(p.kernel, "nested", False) for p in self.phases)

    @property
    def bounds(self) -> tuple[Expr, ...]:
        """Every phase's loop bounds (over the phase's entry)."""
        return tuple(b for p in self.phases for b in p.kernel.bounds)

    @property
    def live_out(self) -> tuple[str, ...]:
        return ()

    def admits(self, inputs: Mapping[str, Any]) -> bool:
        """Whether every phase's preconditions hold on the state at its entry (the source
        run phase by phase with the loop-IR interpreter)."""
        from tenspiler.loops.interp import run_function

        state = dict(inputs)
        for p in self.phases:
            entry = {q.name: state[q.name] for q in p.fn.params}
            if not p.kernel.admits(entry):
                return False
            out = run_function(p.fn, entry, observe=p.live_out)
            for name, value in out.items():
                if name != "return":
                    state[name] = value
        return True

    def summary(self, cand: Sequence[Any]) -> ProgramSummary:
        """The composed summary of per-phase candidates ``cand``."""
        return compose(self, [p.kernel.summary(c) for p, c in zip(self.phases, cand, strict=True)])

    def trip_counts(self) -> list[tuple[Scalar, Scalar, str]]:
        """Each phase's trip counts (:meth:`KernelShape.trip_counts`), over its entry state
        with the straight-line values of the scalars they read (a bound never depends on a
        value an earlier loop computes: :func:`analyze_phases` refuses that), without
        repeats."""
        from tenspiler.vc.conditions import lift_entry_scalar

        out: list[tuple[Scalar, Scalar, str]] = []
        for ph in self.phases:
            env = {name: lift_entry_scalar(v) for name, v in ph.entry_env.items()}
            for left, right, what in ph.kernel.trip_counts():
                t = (as_scalar(substitute(left, env)), as_scalar(substitute(right, env)), what)
                if t not in out:
                    out.append(t)
        return out

    def invariants(self, cand: Sequence[Any]) -> list[str]:
        out: list[str] = []
        for p, c in zip(self.phases, cand, strict=True):
            where = f"loop {p.index + 1} of {len(self.phases)}"
            if p.kernel.fn.loc is not None:
                loop = next(s for s in p.fn.body if isinstance(s, For))
                where += f" (line {loop.loc.line})" if loop.loc is not None else ""
            out += [f"{where}: {inv}" for inv in p.kernel.invariants(c)]
        return out


def split_phases(fn: Function) -> list[tuple[Stmt, ...]]:
    """The statements of each phase: code before loop ``p`` (after loop ``p - 1``) and loop
    ``p``; the code after the last loop joins the last phase."""
    loops = [k for k, s in enumerate(fn.body) if isinstance(s, For)]
    out: list[tuple[Stmt, ...]] = []
    start = 0
    for k in loops:
        out.append(tuple(fn.body[start : k + 1]))
        start = k + 1
    out[-1] = out[-1] + tuple(fn.body[start:])
    return out


def analyze_phases(fn: Function, analyze: Analyze) -> PhasedKernel:
    """Split ``fn`` into loop phases and analyze each with ``analyze`` (the shape dispatch,
    :func:`tenspiler.vc.analyze.analyze_kernel`; see the module docstring).

    Raises:
        NotLiftable: a phase outside the supported shapes, or a loop bound depending on a
            value an earlier loop computes (located).
    """
    parts = split_phases(fn)
    local_names = {n for n, _ in fn.locals}
    scalar_names = local_names | {p.name for p in fn.scalars}
    phases: list[Phase] = []
    # straight-line values of scalars, over the function entry; a scalar an earlier loop
    # assigned, or whose straight-line value reads one (or reads an array an earlier loop
    # wrote), is "late": its value is known only through the proofs, never here
    env: dict[str, Expr] = {}
    late: set[str] = set()
    written_arrays: set[str] = set()
    param_names = {p.name for p in fn.scalars}
    for k, stmts in enumerate(parts):
        later = [s for rest in parts[k + 1 :] for s in rest]
        live_in = tuple(sorted(_exposed(stmts) & local_names))
        assigned = symexec.assigned_scalars(stmts)
        live_out = tuple(sorted(assigned & _exposed(later) & scalar_names))
        params = fn.params + tuple(Param(x, ScalarType(fn.dtype_of(x)), fn.loc) for x in live_in)
        locals_ = tuple((n, d) for n, d in fn.locals if n not in live_in)
        pfn = replace(fn, params=params, locals=locals_, body=stmts)
        loop = next(s for s in stmts if isinstance(s, For))
        pre_stmts = stmts[: stmts.index(loop)]
        # the straight-line state before this phase's loop, over the function entry
        st = symexec.execute(pre_stmts, SymState(scalars=dict(env)))
        for n, v in st.scalars.items():
            fresh = n not in env or v is not env[n]
            if fresh and (symexec.reads(v) & late or any(ld.array in written_arrays for ld in symexec.loads(v))):
                late.add(n)
        for bound in (loop.start, loop.stop):
            b = symexec.substitute(bound, st)  # over the function entry
            for name in sorted(symexec.reads(b)):
                if name in late:
                    raise NotLiftable(
                        f"the bound of this loop depends on '{name}', whose value here an earlier loop "
                        "computes (a loop phase's trip count must be known from the parameters)", loop.loc)
                if name not in param_names:
                    raise NotLiftable(f"the bound of this loop reads '{name}' before any assignment to it", loop.loc)
            if any(ld.array in written_arrays for ld in symexec.loads(b)):
                raise NotLiftable("the bound of this loop reads an array an earlier loop writes", loop.loc)
        kernel = analyze(pfn, live_out)
        phases.append(Phase(k, pfn, kernel, live_in, live_out, {n: v for n, v in env.items() if n not in late}))
        # the straight-line state after this phase, for the next phases' trip counts
        late |= symexec.assigned_scalars([loop])
        env = {n: v for n, v in st.scalars.items() if n not in late}
        written_arrays |= symexec.stored_arrays(stmts)
    return PhasedKernel(fn, tuple(phases))


def _exposed(stmts: Sequence[Stmt]) -> set[str]:
    """Scalars read before any assignment to them, a loop's counter being assigned by its
    header before its body runs."""
    assigned: set[str] = set()
    exposed: set[str] = set()
    for s in stmts:
        if isinstance(s, For):
            exposed |= (symexec.reads(s.start) | symexec.reads(s.stop)) - assigned
            exposed |= _exposed(s.body) - assigned - {s.var}
            assigned.add(s.var)
        else:
            exposed |= symexec.upward_exposed([s]) - assigned
            assigned |= symexec.assigned_scalars([s])
    return exposed


# ---------------------------------------------------------------- composition


def compose(k: PhasedKernel, summaries: Sequence[ProgramSummary]) -> ProgramSummary:
    """The function's summary from its phases' proved summaries (see the module docstring).

    Raises:
        NotLiftable: a phase reads an array range an earlier phase wrote only in part, or
            two phases write one array over different ranges.
    """
    scalars: dict[str, Scalar] = {}  # value at the current phase's entry, over the function entry
    writes: dict[str, ArrayOutput] = {}  # each written array: its range and value so far
    order: list[str] = []
    result: Scalar | None = None
    preconditions: list[tuple[Scalar, Scalar]] = []
    # every phase's trip counts over the function entry: the composed summary is claimed
    # only where they hold (each is an assumption of a phase's proof, checked by generated
    # code), so they may place a view inside a written range
    from tenspiler.vc.conditions import lift_entry_scalar

    facts: list[Scalar] = []
    for phase in k.phases:
        env = {name: lift_entry_scalar(v) for name, v in phase.entry_env.items()}
        for left, right, _ in phase.kernel.trip_counts():
            facts.append(_minus(as_scalar(substitute(right, env)), as_scalar(substitute(left, env))))
    for phase, ps in zip(k.phases, summaries, strict=True):
        loop = next(s for s in phase.fn.body if isinstance(s, For))
        rw = _Rewriter(scalars, writes, phase.index, loop.loc, facts)
        new_scalars: dict[str, Scalar] = {}
        new_writes: dict[str, ArrayOutput] = {}
        for o in ps.outputs:
            if isinstance(o, ScalarOutput):
                value = rw.scalar(o.value)
                if o.name == "return":
                    result = value
                else:
                    new_scalars[o.name] = value
            else:
                lo, hi = rw.scalar(o.lo), rw.scalar(o.hi)
                step = None if o.step is None else rw.scalar(o.step)
                new_writes[o.array] = ArrayOutput(o.array, lo, hi, as_tensor(rw.term(o.value)), step)
        for a, b in ps.preconditions:
            preconditions.append((rw.scalar(a), rw.scalar(b)))
        scalars.update(new_scalars)
        for array, w in new_writes.items():
            old = writes.get(array)
            if old is not None and (old.step is None) != (w.step is None):
                raise NotLiftable(
                    f"loop {phase.index + 1} writes '{array}' {'at a stride' if w.step is not None else 'contiguously'}, "
                    f"an earlier loop {'at a stride' if old.step is not None else 'contiguously'}: not supported yet",
                    loop.loc)
            if old is not None and old.step is not None and w.step is not None and not same_int(old.step, w.step):
                raise NotLiftable(f"loop {phase.index + 1} writes '{array}' at another stride than an earlier loop: "
                                  "not supported yet", loop.loc)
            if old is not None and old.step is not None and w.step is not None and (
                    rank(old.value) != rank(w.value)
                    or (rank(w.value) == 2 and not same_int(t_cols(old.value), t_cols(w.value)))):
                # (a later write replaces the earlier one only where it writes every element it wrote)
                raise NotLiftable(f"loop {phase.index + 1} writes '{array}' in another shape of rows than an earlier "
                                  "loop: not supported yet", loop.loc)
            if old is not None and not (same_int(old.lo, w.lo) and same_int(old.hi, w.hi)):
                raise NotLiftable(
                    f"loop {phase.index + 1} writes '{array}' over [{show(w.lo)}, {show(w.hi)}), an earlier loop "
                    f"over [{show(old.lo)}, {show(old.hi)}): writes of one array over different ranges in "
                    "several loops are not supported yet", loop.loc)
            writes[array] = w
            if array not in order:
                order.append(array)
    outputs: list[ScalarOutput | ArrayOutput] = []
    if result is not None:
        outputs.append(ScalarOutput("return", result))
    outputs += [writes[a] for a in order]
    unique = tuple(dict.fromkeys(preconditions))
    params = {p.name for p in k.fn.params}
    for o in outputs:
        terms = [o.value] if isinstance(o, ScalarOutput) else [o.lo, o.hi, o.value] + (
            [o.step] if o.step is not None else [])
        for name in sorted(set().union(*(free_vars(t) for t in terms)) - params):
            raise NotLiftable(f"'{name}' is read before any assignment to it", k.fn.loc)
    return ProgramSummary(k.fn.name, tuple(outputs), unique)


class _Rewriter:
    """Terms of one phase (over its entry state) rewritten over the function's entry."""

    def __init__(self, scalars: Mapping[str, Scalar], writes: Mapping[str, ArrayOutput], index: int,
                 loc: SourceLoc | None, facts: Sequence[Scalar] = ()) -> None:
        self.facts = facts
        self.scalars = scalars
        self.writes = writes
        self.index = index
        self.loc = loc

    def scalar(self, t: Scalar) -> Scalar:
        return as_scalar(self.term(t))

    def term(self, t: Term) -> Term:
        match t:
            case ScalarVar(name) if name in self.scalars:
                return self.scalars[name]
            case Take(TensorVar(a), n) if a in self.writes:
                n2 = self.scalar(n)
                return self.view(a, Lit(0, DType.INT), n2, _slice, t,
                                 Take(TensorVar(a, t.dtype), n2))
            case Take(Tail(TensorVar(a), c), n) if a in self.writes:
                c2, n2 = self.scalar(c), self.scalar(n)
                end: Scalar = ScalarOp("+", c2, n2, DType.INT)
                return self.view(a, c2, end, _slice, t,
                                 Take(Tail(TensorVar(a, t.dtype), c2), n2))
            case Tail(TensorVar(a), c) if a in self.writes:
                c2 = self.scalar(c)
                if self.nonneg(_minus(c2, self.writes[a].lo)) and self.nonneg(_minus(c2, self.writes[a].hi)):
                    return Tail(TensorVar(a, t.dtype), c2)  # only elements after the written range
                raise self.refuse(a, t)
            case Slice(TensorVar(a), lo, hi) if a in self.writes:
                lo2, hi2 = self.scalar(lo), self.scalar(hi)
                return self.view(a, lo2, hi2, _slice, t,
                                 Slice(TensorVar(a, t.dtype), lo2, hi2))
            case Matrix(TensorVar(a), nr, nc, stride) if a in self.writes and self.writes[a].step is not None and \
                    rank(self.writes[a].value) == 2:
                # the block of rows an earlier loop wrote (rows stored `step` apart), all of it: its value
                w = self.writes[a]
                r2, c2 = self.scalar(nr), self.scalar(nc)
                s2 = None if stride is None else self.scalar(stride)
                if s2 is not None and same_int(w.lo, Lit(0, DType.INT)) and w.step is not None and same_int(s2, w.step) and same_int(r2, t_rows(w.value)) and \
                        same_int(c2, t_cols(w.value)):
                    return w.value
                raise self.refuse(a, t)
            case Matrix(TensorVar(a), rows, cols, stride) if a in self.writes:
                r2, c2 = self.scalar(rows), self.scalar(cols)
                s2 = None if stride is None else self.scalar(stride)
                # the elements read: [0, rows*cols), or [0, (rows-1)*stride + cols) with a row
                # stride (every element r*stride + c, r < rows, c < cols, lies below it)
                size: Scalar = (ScalarOp("*", r2, c2, DType.INT) if s2 is None else
                                ScalarOp("+", ScalarOp("*", ScalarOp("-", r2, Lit(1, DType.INT), DType.INT), s2, DType.INT),
                                         c2, DType.INT))

                def mat(v: Term, lo: Scalar, hi: Scalar) -> Term:
                    if not same_int(lo, Lit(0, DType.INT)):
                        raise self.refuse(a, t)
                    return Matrix(as_tensor(v), r2, c2, s2)

                return self.view(a, Lit(0, DType.INT), size, mat, t, Matrix(TensorVar(a, t.dtype), r2, c2, s2),
                                 whole=False)
            case Strided(TensorVar(a), start, count, step) if a in self.writes:
                # the elements an earlier loop wrote at the same stride, all of them: its value
                w = self.writes[a]
                s2, n2, st2 = self.scalar(start), self.scalar(count), self.scalar(step)
                if w.step is not None and rank(w.value) == 1 and same_int(s2, w.lo) and same_int(st2, w.step) and \
                        same_int(n2, length(w.value)):
                    return w.value
                raise self.refuse(a, t)
            case TensorVar(a) if a in self.writes:
                raise self.refuse(a, t)
            case Tail(TensorVar(a), _) if a in self.writes:
                raise self.refuse(a, t)
        return map_children(t, self.term)

    def view(self, a: str, lo: Scalar, hi: Scalar, onto: Any, t: Term, outside: Term, whole: bool = True) -> Term:
        """The view ``t`` reading ``a[lo:hi]`` (bounds over the function entry): ``onto``
        the written value when it reads only written elements (the value itself when
        ``whole`` and it reads all of them), ``outside`` (the view of the entry array) when
        it reads none."""
        w = self.writes[a]
        inside = self.nonneg(_minus(lo, w.lo)) and self.nonneg(_minus(w.hi, hi))
        if inside and w.step is not None:
            raise self.refuse(a, t)  # a contiguous view of a strided write: not every element is written
        if inside:
            rel_lo, rel_hi = _minus(lo, w.lo), _minus(hi, w.lo)
            if whole and same_int(rel_lo, Lit(0, DType.INT)) and same_int(rel_hi, _minus(w.hi, w.lo)):
                return w.value  # the whole written range
            return onto(w.value, rel_lo, rel_hi)
        if self.nonneg(_minus(w.lo, hi)) or self.nonneg(_minus(lo, w.hi)):
            return outside
        raise self.refuse(a, t)

    def nonneg(self, t: Scalar) -> bool:
        """``t >= 0`` follows from exact arithmetic: ``t`` is a non-negative constant, or a
        trip count ``d >= 0`` (:data:`facts`) plus one."""
        return _nonneg(t) or any(_nonneg(_minus(t, d)) for d in self.facts)

    def refuse(self, a: str, t: Term) -> NotLiftable:
        w = self.writes[a]
        return NotLiftable(
            f"loop {self.index + 1} reads {show(t)}, which an earlier loop wrote only in part "
            f"('{a}'[{show(w.lo)}:{show(w.hi)}]): not supported yet", self.loc)


def _slice(v: Term, lo: Scalar, hi: Scalar) -> Term:
    """``v[lo:hi]`` with the whole-value and prefix cases simplified (``v`` has length
    ``hi`` when ``hi`` is the written range's length — the caller passes bounds relative
    to the written range's start)."""
    zero = same_int(lo, Lit(0, DType.INT))
    if zero:
        return Take(as_tensor(v), hi)
    return Slice(as_tensor(v), lo, hi)


# ---------------------------------------------------------------- exact index arithmetic


def _sym(t: Scalar) -> sympy.Expr | None:
    match t:
        case Lit(v, DType.INT) if isinstance(v, int):
            return sympy.Integer(v)
        case ScalarVar(name, DType.INT):
            return sympy.Symbol(name, integer=True)
        case ScalarOp(op, l, r, DType.INT) if op in ("+", "-", "*"):
            a, b = _sym(l), _sym(r)
            if a is None or b is None:
                return None
            return a + b if op == "+" else a - b if op == "-" else a * b
    return None


def _from_sym(e: sympy.Expr) -> Scalar | None:
    from tenspiler.vc.conditions import lift_entry_scalar

    x = symexec.from_sympy(sympy.expand(e))
    return None if x is None else lift_entry_scalar(x)


def _minus(a: Scalar, b: Scalar) -> Scalar:
    """``a - b`` simplified exactly when both are integer polynomials."""
    sa, sb = _sym(a), _sym(b)
    if sa is not None and sb is not None:
        out = _from_sym(sa - sb)
        if out is not None:
            return out
    if isinstance(b, Lit) and b.value == 0:
        return a
    return ScalarOp("-", a, b, DType.INT)


def _nonneg(t: Scalar) -> bool:
    """``t`` is a non-negative integer constant (exactly)."""
    return isinstance(t, Lit) and isinstance(t.value, int) and t.value >= 0


def same_int(a: Scalar, b: Scalar) -> bool:
    """``a == b`` for every value of the variables: equal terms, or integer polynomials with
    the same expansion (``R * C`` and ``C * R``)."""
    if a == b:
        return True
    sa, sb = _sym(a), _sym(b)
    return sa is not None and sb is not None and sympy.expand(sa - sb) == 0
