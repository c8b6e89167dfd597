"""Verification conditions of a single-loop kernel (paper §4.1) as SMT-LIB text.

The holes are filled by a :class:`Candidate`: one TensIR term per loop-carried scalar and
per written array, written over the function-entry values and a bound placeholder
``BOUND``. The program summary instantiates ``BOUND`` with the loop's stop value, the loop
invariant with the loop counter (``out == PS(inputs[:i])``, DESIGN.md "Synthesis"):

    inv(i) ≡ start ≤ i ≤ stop
           ∧ ⋀ scalars x:  x = T_x(i)
           ∧ ⋀ arrays a:   ∀k. start+c ≤ k < i+c → a[k] = T_a(i)[k - start - c]
                          ∧ ∀k. ¬(start+c ≤ k < i+c) → a[k] = a₀[k]

Clauses (each proved by checking that its negation is ``unsat``):

* **initiation**: pre ⇒ inv(start) on the loop-entry state;
* **preservation**: pre ∧ inv(i) ∧ i < stop ∧ (divisors ≠ 0) ⇒ inv(i+1) after the body;
* **exit**: pre ∧ inv(i) ∧ ¬(i < stop) ⇒ i = stop;
* **post**: pre ∧ inv(i) ∧ i = stop ⇒ the summary holds for the outputs (with *exit*, this
  is the usual post-condition clause inv ∧ ¬guard ⇒ post).

Preconditions (``assumptions``) are explicit antecedents and are printed into the
certificate and the JSON: non-negative trip count, uint8 values in range, non-zero integer
divisors (C undefined behaviour otherwise), distinct pointer parameters do not alias
(modelled by separate arrays) and arrays are long enough for every access.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, assert_never

from tenspiler.errors import NotLiftable
from tenspiler.ir import semantics as sem
from tenspiler.ir.printer import show
from tenspiler.ir.smt import SmtEncoder, array_sort, fresh
from tenspiler.ir.terms import (
    ArrayOutput,
    BoolOp,
    Cmp,
    Flatten,
    Full,
    Lit,
    NotCond,
    ProgramSummary,
    ReduceSum,
    Scalar,
    ScalarApply,
    ScalarCast,
    ScalarOp,
    ScalarOutput,
    ScalarSelect,
    ScalarVar,
    Slice,
    Tensor,
    TensorVar,
    Term,
    as_scalar,
    as_tensor,
    cols,
    map_children,
    negated,
    promote,
    rank,
    row,
    rows,
    substitute,
)
from tenspiler.ir.terms import Cond as TCond
from tenspiler.loops.ir import (
    Binary,
    Call,
    Cast,
    Compare,
    Cond,
    Const,
    DType,
    Expr,
    Function,
    Load,
    Logical,
    Not,
    Param,
    PointerType,
    ScalarType,
    Select,
    Unary,
    Var,
    uses_floats,
)
from tenspiler.vc import symexec
from tenspiler.vc.symexec import SymState, divisors, statement_expressions

if TYPE_CHECKING:
    from tenspiler.vc.kernel import LoopKernel

BOUND = "__bound__"
#: The column placeholder of a total over a two-deep nest kept per row (:func:`tenspiler.vc.nest.total_at`):
#: ``BOUND`` there counts the finished rows and ``COL`` the elements of the current one.
COL = "__col__"


@dataclass(frozen=True)
class Candidate:
    """Terms for the holes: carried scalar / written array name → TensIR term over the
    entry values and ``ScalarVar(BOUND)``."""

    scalars: tuple[tuple[str, Scalar], ...]
    arrays: tuple[tuple[str, Tensor], ...]

    def scalar(self, name: str) -> Scalar:
        return dict(self.scalars)[name]

    def array(self, name: str) -> Tensor:
        return dict(self.arrays)[name]


@dataclass(frozen=True)
class Clause:
    name: str  # "initiation" | "preservation" | "post"
    hypotheses: tuple[str, ...]
    goal: str
    #: ``(declare-const ...)`` lines of the clause's own constants, declared inside its
    #: ``push`` scope (the skolem constants of :func:`tenspiler.verify.skolem.skolemized`).
    declarations: tuple[str, ...] = ()


@dataclass(frozen=True)
class VC:
    """The verification conditions of one candidate, ready to print as SMT-LIB."""

    declarations: tuple[str, ...]
    definitions: tuple[str, ...]
    assumptions: tuple[tuple[str, str], ...]  # (human-readable text, SMT term)
    clauses: tuple[Clause, ...]
    comments: tuple[str, ...]
    options: tuple[str, ...] = ()  # extra (set-option ...) lines

    def script(self, clause: Clause | None = None, comments: bool = True) -> str:
        """SMT-LIB script: all clauses in one incremental session, or one clause."""
        lines = [f"; {c}" for c in self.comments] if comments else []
        lines += ["(set-logic ALL)", "(set-option :produce-models true)", *self.options]
        lines += ["(set-option :incremental true)", sem.SMT_PRELUDE.rstrip()]
        body = [*self.declarations, *self.definitions, *(s for _, s in self.assumptions),
                *(x for c in self.clauses for x in (*c.hypotheses, c.goal))]
        lines += sem.smt_extra_declarations("\n".join(body))
        lines += list(self.declarations) + list(self.definitions)
        lines.append("; assumptions (preconditions of the proof)")
        for text, _ in self.assumptions:
            lines.append(f";   {text}")
        for c in self.clauses if clause is None else (clause,):
            lines.append(f"; clause: {c.name} (expected: unsat)")
            lines.append("(push 1)")
            lines += c.declarations
            for _, smt in self.assumptions:
                if smt != "true":
                    lines.append(f"(assert {smt})")
            for h in c.hypotheses:
                lines.append(f"(assert {h})")
            lines.append(f"(assert (not {c.goal}))")
            lines.append("(check-sat)")
            lines.append("(pop 1)")
        return "\n".join(lines) + "\n"

    def certificate(self) -> str:
        """The certificate: each clause in a script of its own, after ``(reset)`` — a fresh
        solver state per clause, as each was proved. (In one incremental session cvc5 carries
        one clause's quantifier instantiations into the next: a certificate whose clauses
        take 2 s one by one ran for minutes.)"""
        if not self.clauses:
            return self.script()
        return "\n(reset)\n".join(self.script(c, comments=i == 0) for i, c in enumerate(self.clauses))


# ---------------------------------------------------------------- lifting scalars


def lift_entry_scalar(e: Expr, k: object = None, env: Mapping[str, Scalar] | None = None) -> Scalar:
    """A loop-IR expression over the function-entry state as a TensIR scalar term;
    ``env`` gives the terms of variables that are not entry values (e.g. a loop's
    accumulators at its exit)."""

    def lift(x: Expr) -> Scalar:
        return lift_entry_scalar(x, k, env)

    match e:
        case Const(v, dtype):
            return Lit(v, dtype)
        case Var(name, dtype):
            return env[name] if env is not None and name in env else ScalarVar(name, dtype)
        case Binary(op, l, r, dtype):
            return ScalarOp(op, lift(l), lift(r), dtype)
        case Unary(_, Const(v), dtype):
            return Lit(-v, dtype)  # a negative literal
        case Unary(_, x, dtype):
            return as_scalar(negated(lift(x), dtype, False))
        case Cast(x, dtype):
            inner = lift(x)
            if value_preserving(x.dtype, dtype):
                return inner
            return ScalarCast(inner, dtype)
        case Load(array, index, dtype):
            # one element as a one-element slice's sum (TensIR has no element access)
            idx = lift(index)
            return ReduceSum(Slice(TensorVar(array, dtype), idx, plus_const(idx, 1)), promote(dtype, dtype))
        case Select(c, a, b, dtype):
            return ScalarSelect(lift_cond(c, env), lift(a), lift(b), dtype)
        case Call(f, x, dtype):
            return ScalarApply(f, lift(x), dtype)
        case _:
            assert_never(e)


def lift_cond(c: Cond, env: Mapping[str, Scalar] | None = None) -> TCond:
    """A loop-IR condition over the entry state as a TensIR condition."""
    match c:
        case Compare(op, l, r):
            return Cmp(op, lift_entry_scalar(l, None, env), lift_entry_scalar(r, None, env))
        case Logical(op, l, r):
            return BoolOp("and" if op == "&&" else "or", lift_cond(l, env), lift_cond(r, env))
        case Not(x):
            return NotCond(lift_cond(x, env))
        case _:
            assert_never(c)


def value_preserving(src: DType, dst: DType) -> bool:
    """A conversion that never changes the modelled value: same dtype, uint8 → int, or
    between the two real types (floats are modelled as reals)."""
    return src == dst or (src.int_range is not None and dst == DType.INT) or (src.is_float and dst.is_float)


def summary(k: LoopKernel, cand: Candidate) -> ProgramSummary:
    """The program summary: the candidate with ``BOUND`` := the loop's stop value."""
    stop = lift_entry_scalar(k.stop, k)
    start = lift_entry_scalar(k.start, k)
    env = {BOUND: stop}
    outputs: list[ArrayOutput | ScalarOutput] = []
    if k.result is not None:
        outputs.append(ScalarOutput("return", result_term(k, cand)))
    for a in k.arrays:
        written = as_tensor(substitute(cand.array(a.array), env))
        if a.stride is not None:  # y[s*i + c]: y[s*start + c : s*stop + c : s]
            step = lift_entry_scalar(k.stride_entry(a.stride), k)
            first = Lit(0, DType.INT) if start == Lit(0, DType.INT) else ScalarOp("*", step, start, DType.INT)
            outputs.append(ArrayOutput(a.array, plus_const(first, a.offset),
                                       plus_const(ScalarOp("*", step, stop, DType.INT), a.offset), written, step))
            continue
        lo = plus_const(start, a.offset)
        hi = plus_const(stop, a.offset)
        outputs.append(ArrayOutput(a.array, lo, hi, written))
    for name in k.live_out:
        outputs.append(ScalarOutput(name, exit_term(k, cand, k.final_value(name))))
    for array, idx, value in k.post_stores:  # `*result = s;` after the loop
        at = exit_term(k, cand, idx)
        outputs.append(ArrayOutput(array, at, plus_const(at, 1), Full(Lit(1, DType.INT), exit_term(k, cand, value))))
    return fold_summary(ProgramSummary(k.fn.name, tuple(outputs)))


def fold_summary(ps: ProgramSummary) -> ProgramSummary:
    """:func:`fold_indices` on every term of a summary."""
    out: list[ArrayOutput | ScalarOutput] = []
    for o in ps.outputs:
        if isinstance(o, ArrayOutput):
            out.append(ArrayOutput(o.array, as_scalar(fold_indices(o.lo)), as_scalar(fold_indices(o.hi)),
                                   as_tensor(fold_indices(o.value)),
                                   None if o.step is None else as_scalar(fold_indices(o.step))))
        else:
            out.append(ScalarOutput(o.name, as_scalar(fold_indices(o.value))))
    return ProgramSummary(ps.function, tuple(out), ps.preconditions)


def result_term(k: LoopKernel, cand: Candidate) -> Scalar:
    """The returned expression over the exit state, with carried scalars replaced by their
    summaries and the loop counter by the stop value."""
    assert k.result is not None
    return exit_term(k, cand, k.result)


def exit_term(k: LoopKernel, cand: Candidate, e: Expr) -> Scalar:
    """An expression over the loop-exit state as a term over the entry state."""
    stop = lift_entry_scalar(k.stop, k)
    env: dict[str, Scalar] = {k.var: stop}
    for s in k.scalars:
        env[s.name] = as_scalar(substitute(cand.scalar(s.name), {BOUND: stop}))
    for ind in k.inductions:
        env[ind.name] = lift_entry_scalar(k.closed_form(ind, k.stop), k)
    for name, value in k.pre.scalars.items():
        env.setdefault(name, lift_entry_scalar(value, k))
    return lift_entry_scalar(e, k, env)


def invariant_text(k: LoopKernel, cand: Candidate) -> str:
    """The loop invariant in TensIR syntax (for reports). ``x_0`` is the value of an array
    the loop writes, at function entry; other names denote their (unchanged) values."""
    i = k.var
    start = show(lift_entry_scalar(k.start, k))
    stop = show(lift_entry_scalar(k.stop, k))
    env: dict[str, Term] = {BOUND: ScalarVar(i, DType.INT)}
    env |= {a.array: TensorVar(f"{a.array}_0", a.dtype) for a in k.arrays}
    parts = [f"{start} <= {i} <= {stop}"]
    for s in k.scalars:
        parts.append(f"{s.name} == {show(substitute(cand.scalar(s.name), env))}")
    for ind in k.inductions:
        closed = lift_entry_scalar(k.closed_form(ind, Var(i, DType.INT)), k)
        parts.append(f"{ind.name} == {show(closed)}")
    for a in k.arrays:
        if a.stride is not None:
            step = lift_entry_scalar(k.stride_entry(a.stride), k)
            lo = show(plus_const(ScalarOp("*", step, lift_entry_scalar(k.start, k), DType.INT), a.offset))
            hi = show(plus_const(ScalarOp("*", step, ScalarVar(i, DType.INT), DType.INT), a.offset))
            parts.append(f"{a.array}[{lo}:{hi}:{show(step)}] == {show(substitute(cand.array(a.array), env))}")
            parts.append(f"{a.array}[other] == {a.array}_0[other]")
            continue
        lo = show(plus_const(lift_entry_scalar(k.start, k), a.offset))
        hi = show(plus_const(ScalarVar(i, DType.INT), a.offset))
        parts.append(f"{a.array}[{lo}:{hi}] == {show(substitute(cand.array(a.array), env))}")
        parts.append(f"{a.array}[other] == {a.array}_0[other]")
    return " and ".join(parts)


def fold_indices(t: Term) -> Term:
    """Fold constant offsets in integer index terms: ``(x ± a) ± b`` → ``x ± (a ± b)``
    (exact on the integers; makes ``slice(a, 1, ((n - 1) + 1))`` read ``slice(a, 1, n)``)."""
    t = map_children(t, fold_indices)
    match t:
        case ScalarOp("+" | "-" as op, x, Lit(b), DType.INT) if isinstance(b, int):
            return plus_const(x, b if op == "+" else -b)
    return t


def plus_const(t: Scalar, c: int) -> Scalar:
    """``t + c`` as a TensIR index term (literals folded, ``+ 0`` dropped)."""
    if c == 0:
        return t
    if isinstance(t, Lit) and not t.dtype.is_float:
        return Lit(int(t.value) + c, DType.INT)
    match t:  # (x ± a) + c folds to x + (±a + c)
        case ScalarOp("+" | "-" as op, x, Lit(a), DType.INT) if isinstance(a, int):
            return plus_const(x, (a if op == "+" else -a) + c)
    return ScalarOp("+" if c > 0 else "-", t, Lit(abs(c), DType.INT), DType.INT)


# ---------------------------------------------------------------- SMT encoding


def entry_name(v: str) -> str:
    return f"{v}.0"


def head_name(v: str) -> str:
    return f"{v}.h"


def encode_expr(e: Expr, scalars: Mapping[str, str], arrays: Mapping[str, str]) -> str:
    """SMT term of a loop-IR expression; ``scalars``/``arrays`` give the SMT names."""
    match e:
        case Const(v, dtype):
            return sem.smt_const(v, dtype)
        case Var(name):
            return scalars[name]
        case Load(array, index):
            return f"(select {arrays[array]} {encode_expr(index, scalars, arrays)})"
        case Unary(_, x):
            return sem.smt_neg(encode_expr(x, scalars, arrays))
        case Binary(op, l, r, dtype):
            return sem.smt_binop(
                op, encode_expr(l, scalars, arrays), encode_expr(r, scalars, arrays), dtype
            )
        case Cast(x, dtype):
            return sem.smt_cast(encode_expr(x, scalars, arrays), x.dtype, dtype)
        case Select(c, a, b):
            return (f"(ite {encode_cond(c, scalars, arrays)} {encode_expr(a, scalars, arrays)} "
                    f"{encode_expr(b, scalars, arrays)})")
        case Call(f, x):
            return sem.smt_call(f, encode_expr(x, scalars, arrays))
        case _:
            assert_never(e)


def encode_cond(c: Cond, scalars: Mapping[str, str], arrays: Mapping[str, str]) -> str:
    """SMT formula of a loop-IR condition (operands already share a dtype)."""
    match c:
        case Compare(op, l, r):
            x, y = encode_expr(l, scalars, arrays), encode_expr(r, scalars, arrays)
            return f"(not (= {x} {y}))" if op == "!=" else f"({'=' if op == '==' else op} {x} {y})"
        case Logical(op, l, r):
            smt_op = "and" if op == "&&" else "or"
            return f"({smt_op} {encode_cond(l, scalars, arrays)} {encode_cond(r, scalars, arrays)})"
        case Not(x):
            return f"(not {encode_cond(x, scalars, arrays)})"
        case _:
            assert_never(c)


def nonzero_divisors(
    exprs: Iterable[Expr], scalars: Mapping[str, str], arrays: Mapping[str, str]
) -> list[str]:
    """UB-freedom hypotheses: every integer divisor evaluated by ``exprs`` is non-zero
    (under the conditions of the selects it sits in)."""
    out: list[str] = []
    for e in exprs:
        for guard, d in divisors(e):
            nz = f"(not (= {encode_expr(d, scalars, arrays)} 0))"
            if guard:
                g = [encode_cond(c, scalars, arrays) for c in guard]
                nz = f"(=> {g[0] if len(g) == 1 else '(and ' + ' '.join(g) + ')'} {nz})"
            if nz not in out:
                out.append(nz)
    return out


def build_vc(k: LoopKernel, cand: Candidate, ps: ProgramSummary | None = None) -> VC:
    """All clauses of ``k``'s verification condition with ``cand`` in the holes.

    The post-condition checks ``ps`` (default: :func:`summary` of ``cand``) — passing a
    summary explicitly lets a given summary be checked against another kernel."""
    fn = k.fn
    decls, entry_scalars, entry_arrays = entry_declarations(fn)
    carried = {s.name: s for s in k.scalars}
    written = {a.array: a for a in k.arrays}
    decls.append(f"(declare-const {head_name(k.var)} Int)")
    if any(a.stride is not None for a in k.arrays):
        decls += STRIDE_DECLS
    for s in k.scalars:
        decls.append(f"(declare-const {head_name(s.name)} {sem.smt_sort(s.dtype)})")
    for ind in k.inductions:
        decls.append(f"(declare-const {head_name(ind.name)} Int)")
    for a in k.arrays:
        decls.append(f"(declare-const {head_name(a.array)} {array_sort(a.dtype)})")
    stepped = {ind.name for ind in k.inductions}

    tensir = SmtEncoder({**entry_scalars, **entry_arrays})

    def entry_enc(e: Expr) -> str:
        return encode_expr(e, entry_scalars, entry_arrays)

    start, stop = entry_enc(k.start), entry_enc(k.stop)

    # --- head state: names of every scalar and array at the loop head
    head_scalars: dict[str, str] = {}
    for name, _ in fn.locals:
        if name in carried or name in stepped or name == k.var:
            head_scalars[name] = head_name(name)
        elif name in k.pre.scalars:
            head_scalars[name] = entry_enc(k.pre.scalars[name])
    for p in fn.scalars:
        head_scalars[p.name] = (
            head_name(p.name)
            if p.name in carried or p.name in stepped
            else entry_enc(k.entry_value(p.name))
        )
    head_arrays = {
        a: (head_name(a) if a in written else entry_arrays[a]) for a in entry_arrays
    }

    def inv(
        iv: str,
        scal: Mapping[str, str],
        arrs: Mapping[str, str],
        written: Mapping[str, tuple[str, str]] | None = None,
        goal: bool = False,
    ) -> str:
        """inv(iv) over the given state. ``written`` (array → (index, value) stored by the
        body) states an array fact as "the written element" ∧ "every other element":
        equivalent, but cvc5 then needs no arithmetic to match the written index
        (a uint8 kernel's step: timeout → milliseconds)."""
        enc = SmtEncoder({**entry_scalars, **entry_arrays, BOUND: iv}, {}, tensir.definitions, tensir._rec_names)
        parts = [f"(<= {start} {iv})", f"(<= {iv} {stop})"]
        for s in k.scalars:
            parts.append(f"(= {scal[s.name]} {enc.scalar(cand.scalar(s.name))})")
        for ind in k.inductions:
            closed = k.closed_form(ind, Var(k.var, DType.INT))
            parts.append(f"(= {scal[ind.name]} {encode_expr(closed, {**entry_scalars, k.var: iv}, entry_arrays)})")
        for a in k.arrays:
            if a.stride is not None:
                step_smt = entry_enc(k.stride_entry(a.stride))
                written_term = cand.array(a.array)

                def element(j: str, t: Tensor = written_term, e: SmtEncoder = enc) -> str:
                    return e.at(t, j)

                parts.append(strided_fact(arrs[a.array], entry_arrays[a.array],
                                          smt_add(f"(* {step_smt} {start})", a.offset), step_smt, f"(- {iv} {start})",
                                          element, goal))
                continue
            lo = smt_add(start, a.offset)
            hi = smt_add(iv, a.offset)
            val = enc.at(cand.array(a.array), f"(- k {lo})")
            sel = f"(select {arrs[a.array]} k)"
            fact = (
                f"(ite (and (<= {lo} k) (< k {hi})) (= {sel} {val}) "
                f"(= {sel} (select {entry_arrays[a.array]} k)))"
            )
            if written is None or a.array not in written:
                parts.append(f"(forall ((k Int)) {fact})")
                continue
            idx, v = written[a.array]
            elem = enc.at(cand.array(a.array), f"(- {idx} {lo})")
            parts.append(f"(= (select {arrs[a.array]} {idx}) {v})")
            parts.append(
                f"(ite (and (<= {lo} {idx}) (< {idx} {hi})) (= {v} {elem}) "
                f"(= {v} (select {entry_arrays[a.array]} {idx})))"
            )
            parts.append(f"(forall ((k Int)) (=> (not (= k {idx})) {fact}))")
        return "(and " + " ".join(parts) + ")"

    assumptions = _assumptions(k, start, stop)

    # --- initiation
    init_scal = {s.name: entry_enc(s.init) for s in k.scalars}
    init_scal |= {ind.name: entry_enc(ind.init) for ind in k.inductions}
    init_arrs = {a.array: entry_arrays[a.array] for a in k.arrays}
    pre_div = nonzero_divisors(k.pre.scalars.values(), entry_scalars, entry_arrays)
    clauses = [Clause("initiation", tuple(pre_div), inv(start, init_scal, init_arrs, goal=True))]

    # --- preservation
    hv = head_name(k.var)

    def head_enc(e: Expr) -> str:
        return encode_expr(e, head_scalars, head_arrays)

    body: SymState = k.body
    next_scal = {s.name: head_enc(body.scalars[s.name]) for s in k.scalars}
    next_scal |= {ind.name: head_enc(body.scalars[ind.name]) for ind in k.inductions}
    next_arrs: dict[str, str] = {}
    for a in k.arrays:
        term = head_name(a.array)
        for idx, val in body.stores[a.array]:
            term = f"(store {term} {head_enc(idx)} {head_enc(val)})"
        next_arrs[a.array] = term
    stored = {a.array: (smt_add(hv, a.offset), head_enc(a.value)) for a in k.arrays if a.stride is None}
    body_exprs = list(body.scalars.values()) + [v for st in body.stores.values() for ix, v in st] + [
        ix for st in body.stores.values() for ix, _ in st
    ]
    body_div = nonzero_divisors(body_exprs, head_scalars, head_arrays)
    head_scal = {s.name: head_name(s.name) for s in k.scalars}
    head_scal |= {ind.name: head_name(ind.name) for ind in k.inductions}
    head_arr = {a.array: head_name(a.array) for a in k.arrays}
    clauses.append(
        Clause(
            "preservation",
            (inv(hv, head_scal, head_arr), f"(< {hv} {stop})", *body_div),
            inv(f"(+ {hv} 1)", next_scal, next_arrs, stored, goal=True),
        )
    )

    if k.loop.descending:
        # the source runs the iterations from stop - 1 down to start; the clauses above are
        # about the ascending order: any two distinct iterations commute (from any state),
        # so both orders end in the same state
        c1, c2 = f"{k.var}.c1", f"{k.var}.c2"
        decls += [f"(declare-const {c1} Int)", f"(declare-const {c2} Int)"]
        clauses.append(_commutation(k, head_scalars, head_arrays, start, stop, c1, c2))

    # --- post-condition
    ps = summary(k, cand) if ps is None else ps
    enc = SmtEncoder({**entry_scalars, **entry_arrays}, {}, tensir.definitions, tensir._rec_names)
    post_div: list[str] = []
    result_smt = None
    if k.result is not None:
        result_smt = encode_expr(k.result, head_scalars, head_arrays)
        post_div = nonzero_divisors([k.result], head_scalars, head_arrays)
    finals = {x: encode_expr(k.final_value(x), head_scalars, head_arrays) for x in k.live_out}
    final_arrays = {a.array: head_name(a.array) for a in k.arrays}
    for array, idx, value in k.post_stores:  # the stores after the loop, over the exit state
        final_arrays[array] = (f"(store {entry_arrays[array]} {encode_expr(idx, head_scalars, head_arrays)} "
                               f"{encode_expr(value, head_scalars, head_arrays)})")
        post_div += nonzero_divisors([idx, value], head_scalars, head_arrays)
    goal = summary_goal(k, ps, enc, result_smt, final_arrays, finals)
    if pre_div or body_div or post_div:
        assumptions.append(DIVISORS_ASSUMPTION)
    # The standard post clause  inv(i) ∧ ¬(i < stop) → post  is split in two: "exit" proves
    # that the loop counter equals stop on exit, "post" assumes that equality. cvc5 derives
    # i = stop from two inequalities too late for congruence reasoning under the summary's
    # non-linear terms (measured: timeout vs 20 ms); both clauses together imply the original.
    clauses.append(
        Clause("exit", (inv(hv, head_scal, head_arr), f"(not (< {hv} {stop}))"), f"(= {hv} {stop})")
    )
    clauses.append(
        Clause("post", (inv(hv, head_scal, head_arr), f"(= {hv} {stop})", *post_div), goal)
    )
    comments = (
        certificate_title(fn),
        "program summary:",
        *("  " + line for line in summary_lines(ps)),
        "loop invariant:",
        "  " + invariant_text(k, cand),
        "Each (check-sat) below must answer unsat: the negated clause has no model.",
    )
    return VC(tuple(decls), tuple(tensir.definitions), tuple(assumptions), tuple(clauses), comments)



def _commutation(
    k: LoopKernel, head_scalars: Mapping[str, str], head_arrays: Mapping[str, str], start: str, stop: str,
    c1: str, c2: str,
) -> Clause:
    """Iterations ``c1`` and ``c2`` (distinct, in ``[start, stop)``) run in either order from
    the same loop-head state end in the same state: every loop-carried scalar and every
    written array (extensionally) equal. Loads of one iteration see the other's stores
    through the SMT array terms, so no aliasing question is left to the analysis."""
    body = k.body
    carried = [t.name for t in k.scalars]
    written = sorted(body.stores)

    def step(scal: Mapping[str, str], arrs: Mapping[str, str], ctr: str) -> tuple[dict[str, str], dict[str, str], list[str]]:
        env = {**scal, k.var: ctr}
        new_s = dict(scal)
        for name in carried:
            new_s[name] = encode_expr(body.scalars[name], env, arrs)
        new_a = dict(arrs)
        for array in written:
            term = arrs[array]
            for idx, val in body.stores[array]:
                term = f"(store {term} {encode_expr(idx, env, arrs)} {encode_expr(val, env, arrs)})"
            new_a[array] = term
        exprs = list(body.scalars.values()) + [x for st in body.stores.values() for pair in st for x in pair]
        return new_s, new_a, nonzero_divisors(exprs, env, arrs)

    s1, a1, d1 = step(head_scalars, head_arrays, c1)
    s12, a12, d12 = step(s1, a1, c2)
    s2, a2, d2 = step(head_scalars, head_arrays, c2)
    s21, a21, d21 = step(s2, a2, c1)
    goal = [f"(= {s12[n]} {s21[n]})" for n in carried] + [f"(= {a12[a]} {a21[a]})" for a in written]
    hyps = (f"(<= {start} {c1})", f"(< {c1} {stop})", f"(<= {start} {c2})", f"(< {c2} {stop})",
            f"(not (= {c1} {c2}))", *d1, *d12, *d2, *d21)
    return Clause("commutation", hyps, "(and " + " ".join(goal) + ")" if goal else "true")


DIVISORS_ASSUMPTION = (
    "integer divisors are non-zero wherever the source divides (division by zero is "
    "undefined behaviour in C and raises in Python); stated as a hypothesis of each clause",
    "true",
)


def entry_declarations(fn: Function) -> tuple[list[str], dict[str, str], dict[str, str]]:
    """``declare-const`` of every parameter's entry value, and the SMT names."""
    decls: list[str] = []
    entry_scalars: dict[str, str] = {}
    entry_arrays: dict[str, str] = {}
    for p in fn.params:
        if isinstance(p.type, PointerType):
            entry_arrays[p.name] = entry_name(p.name)
            decls.append(f"(declare-const {entry_name(p.name)} {array_sort(p.type.elem)})")
        else:
            entry_scalars[p.name] = entry_name(p.name)
            decls.append(f"(declare-const {entry_name(p.name)} {sem.smt_sort(p.type.dtype)})")
    return decls, entry_scalars, entry_arrays


def _assumptions(k: LoopKernel, start: str, stop: str) -> list[tuple[str, str]]:
    """The preconditions every clause assumes: (human-readable text, SMT term or "true"
    when the model guarantees it by construction)."""
    fn = k.fn
    out: list[tuple[str, str]] = [
        (f"the loop runs a non-negative number of times: {c_text(k.loop.start)} <= {c_text(k.loop.stop)}",
         f"(<= {start} {stop})")
    ]
    for p in fn.arrays:
        for c, d in sorted(k.strided_reads.get(p.name, ())):
            first = f"{c} * {c_text(k.loop.start)} + {d}"
            out.append((
                f"{p.name} has an element at every index {c}*i + {d} the loop reads ({c_text(k.loop.start)} <= i < "
                f"{c_text(k.loop.stop)}; so {first} >= 0 when the loop runs)",
                f"(=> (< {start} {stop}) (<= 0 (+ (* {c} {start}) {d})))",
            ))
        for st, d in sorted(k.runtime_strided_reads.get(p.name, ()), key=repr):
            se = k.stride_entry(st)
            s_smt = encode_expr(se, entry_scalars_of(fn), {})
            out.append((
                f"{p.name} has an element at every index {c_text(se)}*i + {d} the loop reads ({c_text(k.loop.start)} "
                f"<= i < {c_text(k.loop.stop)}), and the run-time stride {c_text(se)} is non-negative",
                f"(and (<= 0 {s_smt}) (=> (< {start} {stop}) (<= 0 (+ (* {s_smt} {start}) {d}))))",
            ))
        offsets = k.access_offsets.get(p.name)
        if not offsets:
            continue
        first = _shifted(c_text(k.loop.start), min(offsets))
        last = _shifted(c_text(k.loop.stop), max(offsets))
        need = "" if first.lstrip("-").isdigit() else f" (so {first} >= 0)"
        out.append((
            f"{p.name} has an element at every index in [{first}, {last}), the range the "
            f"summary reads or writes{need}",
            f"(<= 0 {smt_add(start, min(offsets))})",
        ))
    for a, se in k.strided_writes():
        s_smt = encode_expr(se, entry_scalars_of(fn), {})
        out.append((
            f"{a.array} has an element at every index {c_text(se)}*i + {a.offset} the loop writes ({c_text(k.loop.start)} "
            f"<= i < {c_text(k.loop.stop)}), and the stride {c_text(se)} is positive (the iterations write distinct "
            "elements)",
            f"(and (<= 1 {s_smt}) (=> (< {start} {stop}) (<= 0 (+ (* {s_smt} {start}) {a.offset}))))",
        ))
    for array, idx, _ in k.post_stores:
        at = symexec.substitute(idx, k.pre)
        out.append((f"{array} has an element at index {c_text(at)}, which the code after the loop writes",
                    "true"))  # the model's arrays are total; generated code checks the index
    return out + input_assumptions(fn)


def entry_scalars_of(fn: Function) -> dict[str, str]:
    """The SMT names of the scalar parameters' entry values (:func:`entry_declarations`)."""
    return {p.name: entry_name(p.name) for p in fn.scalars}


def input_assumptions(fn: Function) -> list[tuple[str, str]]:
    """Assumptions about the inputs that hold for every kernel shape: the frontend's
    preconditions (``Function.requires``), uint8 ranges, no aliasing between pointer
    parameters, floats as reals."""
    out: list[tuple[str, str]] = []
    entry_names = entry_scalars_of(fn)
    for left, right, what in fn.requires:
        out.append((f"{what}: {c_text(left)} <= {c_text(right)}",
                    f"(<= {encode_expr(left, entry_names, {})} {encode_expr(right, entry_names, {})})"))
    for p in fn.params:
        if isinstance(p.type, PointerType) and (r := p.type.elem.int_range) is not None:
            lo = sem.smt_const(r[0], DType.INT)
            out.append(
                (f"elements of {p.name} are {p.type.elem.c_name} values in [{r[0]}, {r[1]}]",
                 f"(forall ((k Int)) (<= {lo} (select {entry_name(p.name)} k) {r[1]}))")
            )
        elif isinstance(p.type, ScalarType) and (r := p.type.dtype.int_range) is not None:
            out.append((f"{p.name} is in [{r[0]}, {r[1]}]", f"(<= {sem.smt_const(r[0], DType.INT)} {entry_name(p.name)} {r[1]})"))
    names = [p.name for p in fn.arrays]
    if len(names) > 1:
        out.append(
            (f"the pointer parameters {', '.join(names)} point to distinct, non-overlapping arrays", "true")
        )
    if fn.non_null:
        out.append((f"the pointer parameters {', '.join(fn.non_null)} are not NULL (the source's null tests of "
                    "them are read as false)", "true"))
    for sp in fn.structs:
        for f in sp.fields:
            if f.cols is not None:
                out.append((
                    f"the rows {sp.name}.{f.field}[0], {sp.name}.{f.field}[1], ... of struct parameter "
                    f"'{sp.name}' are distinct, non-overlapping arrays of {f.cols} elements, read as "
                    f"the flat row-major array {f.param}", "true"))
    if fn.python is None and (
        fn.return_dtype == DType.INT
        or any(isinstance(p.type, PointerType) and p.type.elem == DType.INT for p in fn.params)
    ):
        out.append((
            "signed integer arithmetic does not overflow: int and long are modelled as "
            "mathematical integers (signed overflow is undefined behaviour, C11 §6.5p5)", "true"))
    if fn.python is not None and any(_param_dtype(p) == DType.INT for p in fn.params):
        out.append((
            "Python's integers are unbounded; the generated code computes them in 64 bits, "
            "so it equals the function while every integer value fits in int64", "true"))
    if uses_floats(fn):
        out.append(("floating-point values are modelled as real numbers (no rounding, one zero; float "
                    "inputs are finite, not NaN or infinite)", "true"))
    if fn.cxx is not None and fn.python is None and any(not isinstance(v, str) for v in fn.cxx.signature):
        out.append((
            "every dimension of a vector parameter has at most 2**30 elements: sizes are size_t, "
            "modelled as integers in [0, 2**30] (the generated entry checks it)", "true"))
    raising = _python_raising_operations(fn)
    if raising:
        out.append((
            f"the Python function raises no exception: {'; '.join(raising)}; on other inputs "
            "the generated code raises the exception Python raises, before computing", "true"))
    if _rounded_comparison(fn):
        out.append((
            "a comparison of floating-point values computed with rounding (a sum, a product, a "
            "conversion) is decided on the real values: where the two sides are within rounding "
            "of each other the source's rounded comparison, and so an integer or selected result "
            "that depends on it, may differ", "true"))
    if any(isinstance(e, Binary) and e.op == "pow" and not e.dtype.is_float for e in statement_expressions(fn.body)):
        out.append(("a shift by a run-time count k is x * 2^k (<<) or x / 2^k rounded down (>>, arithmetic as GCC "
                    "shifts a negative value), 2^k exactly for k in [0, 32) (tenspiler.pow2), the count's range "
                    "being a stated precondition", "true"))
    used = sorted({f for f in called_functions(fn) if f in sem.UNINTERPRETED})
    if used:
        out.append((
            f"{', '.join(used)} {'is' if len(used) == 1 else 'are'} uninterpreted: the proof holds "
            "for any function in their place (so for the real one), fabs, round and floor are exact", "true"))
    return out


def _python_raising_operations(fn: Function) -> list[str]:
    """What a Python kernel's operations need not to raise (an empty list for C)."""
    if fn.python is None:
        return []
    needs: dict[str, None] = {}
    for e in statement_expressions(fn.body):
        match e:
            case Binary(op=op, right=right) if op in ("/", "//", "mod", "%") and not (
                isinstance(right, Const) and right.value != 0
            ):
                needs["divisors are non-zero (ZeroDivisionError)"] = None
            case Call(func="sqrt"):
                needs["math.sqrt arguments are >= 0 (ValueError)"] = None
            case Call(func="log"):
                needs["math.log arguments are > 0 (ValueError)"] = None
            case Call(func="exp"):
                needs["math.exp arguments are at most 709.78 (OverflowError)"] = None
            case _:
                pass
    return list(needs)


def _rounded_comparison(fn: Function) -> bool:
    """Whether the kernel compares reals of which one is computed (not a plain input or
    constant): the case where rounding can flip a comparison."""

    def rounds(e: Expr) -> bool:  # arithmetic, a math function or a conversion to a real
        return any(isinstance(x, Binary | Call) or (isinstance(x, Cast) and x.dtype.is_float)
                   for x in symexec.subexpressions(e))

    rounded = {s.target for s in symexec.assignments(fn.body) if s.value.dtype.is_float and rounds(s.value)}

    def computed(e: Expr) -> bool:
        return rounds(e) or any(isinstance(x, Var) and x.name in rounded for x in symexec.subexpressions(e))

    def walk(c: Cond) -> bool:
        match c:
            case Compare(left=left, right=right):
                return left.dtype.is_float and (computed(left) or computed(right))
            case Logical(left=left, right=right):
                return walk(left) or walk(right)
            case Not(operand=operand):
                return walk(operand)
            case _:
                assert_never(c)

    return any(isinstance(e, Select) and walk(e.cond) for e in statement_expressions(fn.body))


def called_functions(fn: Function) -> set[str]:
    """Math functions the kernel calls."""
    return ({e.func for e in statement_expressions(fn.body) if isinstance(e, Call)}
            | {"pow" for e in statement_expressions(fn.body)
               if isinstance(e, Binary) and e.op == "pow" and e.dtype.is_float})  # (the integer pow2 is exact)


def _shifted(text: str, d: int) -> str:
    return text if d == 0 else f"{text} {'+' if d > 0 else '-'} {abs(d)}"


def _param_dtype(p: Param) -> DType:
    return p.type.elem if isinstance(p.type, PointerType) else p.type.dtype


def summary_goal(
    k: LoopKernel | Any, ps: ProgramSummary, enc: SmtEncoder, result: str | None, final_arrays: Mapping[str, str],
    final_scalars: Mapping[str, str] | None = None,
) -> str:
    """The summary as a formula over the final state: the returned value, every scalar a
    later loop phase reads (``final_scalars``: its SMT value in the final state) and every
    output array (inside ``[lo, hi)`` equal to the summary, outside unchanged, and the
    summary's value exactly ``hi - lo`` long: the elementwise facts alone would accept
    ``iota(0, n + 1)`` or ``take(x, n + 1)`` for ``a[0:n]``)."""
    goals: list[str] = []
    for o in ps.outputs:
        if isinstance(o, ScalarOutput) and o.name != "return":
            if final_scalars is None or o.name not in final_scalars:
                raise NotLiftable(f"the summary defines '{o.name}', which is not an output of '{k.fn.name}'")
            goals.append(f"(= {final_scalars[o.name]} {enc.scalar(o.value)})")
        elif isinstance(o, ScalarOutput):
            if result is None:
                raise NotLiftable(f"the summary has a return value but '{k.fn.name}' returns nothing")
            goals.append(f"(= {result} {enc.scalar(o.value)})")
        else:
            if o.array not in final_arrays:
                raise NotLiftable(f"the summary writes '{o.array}', which the kernel does not write")
            lo, hi = enc.scalar(o.lo), enc.scalar(o.hi)
            if o.step is not None and rank(o.value) == 2:
                goals += block_facts(enc, o.value, lo, hi, enc.scalar(o.step), final_arrays[o.array],
                                     entry_name(o.array))
                continue
            if o.step is not None:
                step = enc.scalar(o.step)
                count = enc.known_length(o.value)
                if count is None:
                    raise NotLiftable(f"the strided output of '{o.array}' has a value of unknown length")
                def element(j: str, t: Tensor = o.value) -> str:
                    return enc.at(t, j)

                goals.append(strided_fact(final_arrays[o.array], entry_name(o.array), lo, step, count, element,
                                          goal=True))
                goals.append(f"(= (* {step} {count}) (- {hi} {lo}))")
                continue
            if isinstance(o.value, Flatten):
                goals += flatten_facts(enc, o.value.matrix, lo, hi, final_arrays[o.array], entry_name(o.array))
                continue
            sel = f"(select {final_arrays[o.array]} k)"
            goals.append(
                f"(forall ((k Int)) (ite (and (<= {lo} k) (< k {hi})) "
                f"(= {sel} {enc.at(o.value, f'(- k {lo})')}) (= {sel} (select {entry_name(o.array)} k))))"
            )
            length = enc.known_length(o.value)
            if length is not None:
                goals.append(f"(= {length} (- {hi} {lo}))")
    return "(and " + " ".join(goals) + ")" if goals else "true"


def block_index(lo: str, step: str) -> str:
    """The index :func:`block_facts` states its goal at: ``lo + step*STRIDE_J + STRIDE_R``."""
    return f"(+ {lo} (* {step} {STRIDE_J}) {STRIDE_R})"


def block_facts(enc: SmtEncoder, m: Tensor, lo: str, hi: str, step: str, final: str, entry: str) -> list[str]:
    """``final[lo + r*step + c] == m[r, c]`` for ``0 <= r < rows``, ``0 <= c < cols`` and every
    other element is ``entry``'s (a block of rows stored ``step`` apart, :class:`ArrayOutput`),
    as a goal: the instance at the fresh constants ``STRIDE_J``, ``STRIDE_R`` of the fact over
    every pair ``(r, c)`` with ``0 <= c < step`` (each index is ``lo + step*r + c`` for exactly
    one such pair when ``step >= 1``; see :func:`strided_fact`), every element ``entry``'s when
    ``step`` is 0 (no columns), and ``hi - lo == rows * step``."""
    nr, nc = enc.scalar(rows(m)), enc.scalar(cols(m))
    j, r = STRIDE_J, STRIDE_R
    idx = block_index(lo, step)
    elem = matrix_element(enc, m, j, r)
    return [
        f"(=> (and (<= 0 {r}) (< {r} {step})) (= (select {final} {idx}) "
        f"(ite (and (<= 0 {j}) (< {j} {nr}) (< {r} {nc})) {elem} (select {entry} {idx}))))",
        f"(or (>= {step} 1) (forall ((k Int)) (= (select {final} k) (select {entry} k))))",
        f"(= (- {hi} {lo}) (* {nr} {step}))",
    ]


#: The fresh constants a clause proves a strided array fact at (:func:`strided_fact`).
STRIDE_J, STRIDE_R = "stride.j", "stride.r"
STRIDE_DECLS = (f"(declare-const {STRIDE_J} Int)", f"(declare-const {STRIDE_R} Int)")


def strided_fact(array: str, entry: str, lo: str, step: str, count: str, value_at: Callable[[str], str],
                 goal: bool) -> str:
    """``array[lo + step*j] == value[j]`` for ``0 <= j < count`` and every other element is
    ``entry``'s, for ``step >= 1`` (an assumption of the clause), stated without a division
    or a remainder: every integer index is ``lo + step*j + r`` for exactly one pair ``(j, r)``
    with ``0 <= r < step``, so quantifying over those pairs covers each element once.

    The solver does not instantiate a quantifier whose index is arithmetic (no E-matching
    trigger), so the instantiation is done here: as a hypothesis (``goal=False``) the fact
    is the quantified formula and its instance at the fresh constants ``STRIDE_J``,
    ``STRIDE_R`` (which it implies); as a goal (``goal=True``) it is that instance alone —
    proving it for constants nothing else constrains proves it for every pair (universal
    generalisation; the hypotheses mention them only in instances of their own quantified
    facts, which they imply)."""

    def at(j: str, r: str) -> str:
        idx = f"(+ {lo} (* {step} {j}) {r})"
        return (f"(=> (and (<= 0 {r}) (< {r} {step})) "
                f"(= (select {array} {idx}) (ite (and (= {r} 0) (<= 0 {j}) (< {j} {count})) {value_at(j)} "
                f"(select {entry} {idx}))))")

    instance = at(STRIDE_J, STRIDE_R)
    if goal:
        return instance
    return f"(and (forall (($sj Int) ($sr Int)) {at('$sj', '$sr')}) {instance})"


#: The row variable of a 2-D term's element encoding (:func:`matrix_element`).
ROW_VAR = "$r"


def matrix_element(enc: SmtEncoder, m: Tensor, r: str, c: str) -> str:
    """Element ``(r, c)`` (SMT Int terms) of the 2-D term ``m``: element ``c`` of its row
    ``r`` (:func:`tenspiler.ir.terms.row`)."""
    rv = fresh(ROW_VAR, enc.names)
    inner = SmtEncoder({**enc.names, rv: r}, enc.lengths, enc.definitions, enc._rec_names)
    return inner.at(row(m, ScalarVar(rv, DType.INT)), c)


def flatten_facts(enc: SmtEncoder, m: Tensor, lo: str, hi: str, final: str, entry: str) -> list[str]:
    """``final[lo:hi] == flatten(m)`` and every other element is ``entry``'s, stated per row
    and column: element ``lo + r*cols + c`` is ``m[r, c]`` for ``0 <= r < rows``, ``0 <= c <
    cols`` (no division by the row length, which the solver handles badly), and ``hi - lo ==
    rows * cols`` — with ``rows, cols >= 0`` these are exactly the flattened equality (every
    offset below ``rows * cols`` is ``r*cols + c`` for one such pair)."""
    nr, nc = enc.scalar(rows(m)), enc.scalar(cols(m))
    elem = matrix_element(enc, m, "rr", "cc")
    return [
        f"(forall ((rr Int) (cc Int)) (=> (and (<= 0 rr) (< rr {nr}) (<= 0 cc) (< cc {nc})) "
        f"(= (select {final} (+ {lo} (* rr {nc}) cc)) {elem})))",
        f"(forall ((k Int)) (=> (or (< k {lo}) (>= k {hi})) (= (select {final} k) (select {entry} k))))",
        f"(= (- {hi} {lo}) (* {nr} {nc}))",
    ]


def build_bounded(k: LoopKernel, cand: Candidate, trips: int, ps: ProgramSummary | None = None) -> VC:
    """Bounded check (no invariant): the loop unrolled ``trips`` times from the entry state
    must end in a state the summary describes. ``sat`` yields a counterexample input
    (used for CEGIS); ``unsat`` proves nothing beyond that trip count.

    Raises:
        NotLiftable: the unrolled body cannot be symbolically executed (unresolvable
            aliasing between iterations).
    """
    from tenspiler.vc import symexec

    fn = k.fn
    decls, entry_scalars, entry_arrays = entry_declarations(fn)
    if any(a.stride is not None for a in k.arrays):
        decls += STRIDE_DECLS
    start, stop = (encode_expr(e, entry_scalars, entry_arrays) for e in (k.start, k.stop))
    st = k.pre.copy()
    divs: list[Expr] = []  # every expression evaluated, for the UB-freedom hypotheses
    for j in range(trips):
        st.scalars[k.var] = Binary("+", k.start, Const(j, DType.INT), DType.INT)
        st = symexec.execute(k.loop.body, st)
        # UB-freedom of this iteration (re-collecting earlier ones is harmless)
        divs += list(st.scalars.values())
        divs += [x for sts in st.stores.values() for pair in sts for x in pair]
    st.scalars[k.var] = k.stop
    ps = summary(k, cand) if ps is None else ps
    enc = SmtEncoder({**entry_scalars, **entry_arrays})
    finals: dict[str, str] = {}
    for a in k.arrays:
        term = entry_arrays[a.array]
        for idx, val in st.stores.get(a.array, []):
            term = f"(store {term} {encode_expr(idx, entry_scalars, entry_arrays)} {encode_expr(val, entry_scalars, entry_arrays)})"
        finals[a.array] = term
    result = None
    if k.result is not None:
        r = symexec.substitute(k.result, st)
        divs.append(r)
        result = encode_expr(r, entry_scalars, entry_arrays)
    scalar_finals = {
        x: encode_expr(symexec.substitute(k.final_value(x), st), entry_scalars, entry_arrays)
        for x in k.live_out
    }
    goal = summary_goal(k, ps, enc, result, finals, scalar_finals)
    hyps = [f"(= (- {stop} {start}) {trips})"]
    ub = nonzero_divisors(divs, entry_scalars, entry_arrays)
    hyps += ub
    assumptions = _assumptions(k, start, stop) + ([DIVISORS_ASSUMPTION] if ub else [])
    clause = Clause(f"bounded({trips} iterations)", tuple(hyps), goal)
    comments = (f"bounded check of '{fn.name}': {trips} loop iterations",)
    # finite model finding for recursive definitions: cvc5 then answers sat with a model
    # instead of unknown (DESIGN.md, "Verification encoding")
    return VC(tuple(decls), tuple(enc.definitions), tuple(assumptions), (clause,), comments,
              ("(set-option :fmf-fun true)",))

def certificate_title(fn: Function, what: str = "") -> str:
    """The first line of a certificate: the function and where it is (the file's name only,
    :attr:`~tenspiler.errors.SourceLoc.short`), then ``what`` part of the proof it is."""
    where = f" ({fn.loc.short})" if fn.loc is not None else ""
    return f"tenspiler certificate for '{fn.name}'{where}{what}"


def summary_lines(ps: ProgramSummary) -> list[str]:
    from tenspiler.ir.printer import show_summary

    return show_summary(ps).splitlines()


def smt_add(a: str, c: int) -> str:
    if c == 0:
        return a
    return f"(+ {a} {c})" if c > 0 else f"(- {a} {-c})"


def c_text(e: Expr) -> str:
    """Short C-like text of a loop-IR expression (for assumption messages)."""
    match e:
        case Const(v):
            return str(v)
        case Var(name):
            return name
        case Load(a, i):
            return f"{a}[{c_text(i)}]"
        case Unary(_, x):
            return f"-{c_text(x)}"
        case Binary(op, l, r):
            return f"({c_text(l)} {op} {c_text(r)})"
        case Cast(x, dtype):
            return f"({dtype.c_name}){c_text(x)}"
        case Select(_, a, b):
            return f"(… ? {c_text(a)} : {c_text(b)})"
        case Call(f, x):
            return f"{f}({c_text(x)})"
        case _:
            assert_never(e)
