"""Literal loop bounds generalised to size parameters.

A kernel such as ``for (i = 0; i < 512; i++) for (j = 0; j < 512; j++) for (k …)`` — the
plain C GEMM users bring — cannot be lifted as written: every test input of the synthesis and
of ``--check`` runs the source in the loop-IR interpreter, 512³ statements each. Its literal
sizes are therefore replaced by size parameters first:

* **which literals**: when the literal bounds make one run of the source longer than
  :data:`GENERALIZE_ABOVE` innermost iterations (:func:`literal_iterations`; kernels with
  smaller literal sizes are lifted as written, as before), the ``int`` literals
  (``DType.INT``) that occur in loop bounds (``start`` or ``stop``) with a value of at least
  :data:`GENERALIZE_FROM`, then smaller ones (≥ 2), largest first, until the literal bounds
  left are cheap. Small literals (three colour channels) stay literals where the large ones
  suffice;
* **the rewrite**: each occurrence of such a literal anywhere in the body — bounds, index
  arithmetic such as ``A[i*512 + k]``, values — becomes a read of one new ``int`` parameter
  per value (``size_512``). The loop IR is typed, so the parameter has the literal's type and
  every expression keeps its type: the rewritten function ``G`` is, with ``size_512 = 512``,
  the source ``F`` itself, statement by statement (tested on random inputs by
  ``tests/test_generalize.py``);
* **the proof** is about ``G`` for *every* value of the size parameters that satisfies its
  preconditions; :meth:`Generalized.instantiate` substitutes the literal values into the
  program summary, so code is generated for ``F``'s signature. The trip-count preconditions
  of ``G`` must hold at the literal sizes, or be those of ``F`` (which generated code checks):
  :meth:`Generalized.uncovered_trip_counts` names any that is neither, and the driver
  refuses the kernel.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tenspiler.ir.terms import (
    ArrayOutput,
    Lit,
    Output,
    ProgramSummary,
    Scalar,
    ScalarOutput,
    Term,
    as_scalar,
    as_tensor,
    substitute,
)
from tenspiler.loops.ir import (
    Binary,
    Const,
    DType,
    Expr,
    For,
    Function,
    Param,
    ScalarType,
    Stmt,
    Var,
    map_expr,
    map_stmt_exprs,
)
from tenspiler.vc.symexec import subexpressions

__all__ = ["GENERALIZE_ABOVE", "GENERALIZE_FROM", "AtSizes", "Generalized", "generalize_sizes", "literal_iterations"]

#: Innermost iterations of one run of the source (with its literal loop bounds) above which
#: the literal sizes are generalised. The loop-IR interpreter's budget is 10⁶ statements per
#: run (:func:`tenspiler.loops.interp.run_function`) and the synthesis and the check run it
#: on over a hundred inputs; a 16³ product (4,096) lifts as written in seconds.
GENERALIZE_ABOVE = 20_000

#: Once a kernel's sizes are generalised, every literal loop bound of at least this value is;
#: smaller ones only as far as needed to get below :data:`GENERALIZE_ABOVE`.
GENERALIZE_FROM = 16


def _trips(loop: For, skip: frozenset[int]) -> int | None:
    """The trip count of ``loop`` when its stop is a literal (a start that is not a literal
    is taken as 0)."""
    stop = _literal_value(loop.stop, skip)
    if stop is None:
        return None
    start = _literal_value(loop.start, skip)
    return max(0, stop - (start or 0))


def _literal_value(e: Expr, skip: frozenset[int]) -> int | None:
    """The value of an integer expression of literals not in ``skip`` and C's ``+``, ``-``,
    ``*``, ``/`` (``i <= 511`` is ``i < 511 + 1`` in the loop IR, ``i < 150 * 2`` is written,
    a strided loop's trip count is ``(n - a + c - 1) / c``), else ``None``."""
    if isinstance(e, Const) and e.dtype == DType.INT and isinstance(e.value, int):
        return None if e.value in skip else e.value
    if isinstance(e, Binary) and e.op in ("+", "-", "*", "/"):
        a, b = _literal_value(e.left, skip), _literal_value(e.right, skip)
        if a is None or b is None or (e.op == "/" and b == 0):
            return None
        if e.op == "/":
            q = abs(a) // abs(b)  # C: truncated toward zero
            return q if (a >= 0) == (b > 0) else -q
        return a + b if e.op == "+" else a - b if e.op == "-" else a * b
    return None


def literal_iterations(body: Sequence[Stmt], skip: frozenset[int] = frozenset()) -> int:
    """The innermost iterations of the costliest loop nest of ``body`` with every literal
    bound at its value and every other bound — and a bound made of a literal in ``skip`` —
    at 1 (the test inputs keep those small)."""
    best = 1 if body else 0
    for s in body:
        if isinstance(s, For):
            best = max(best, (_trips(s, skip) or 1) * max(1, literal_iterations(s.body, skip)))
    return best


def _loops(body: Sequence[Stmt]) -> Iterator[For]:
    for s in body:
        if isinstance(s, For):
            yield s
            yield from _loops(s.body)


@dataclass(frozen=True)
class Generalized:
    """``fn`` with each literal size ``sizes[name]`` a parameter ``name`` (module docstring).

    Attributes:
        source: the function as written.
        fn: the generalised function (the source's parameters, then the size parameters).
        sizes: size parameter name → the literal it stands for, in order of value.
    """

    source: Function
    fn: Function
    sizes: Mapping[str, int] = field(default_factory=dict)

    @property
    def _env(self) -> dict[str, Term]:
        return {n: Lit(v, DType.INT) for n, v in self.sizes.items()}

    def at_sizes(self, t: Term) -> Term:
        """``t`` with every size parameter replaced by its literal."""
        return substitute(t, self._env)

    def instantiate(self, ps: ProgramSummary) -> ProgramSummary:
        """The summary of the source: ``ps`` (of :attr:`fn`) at the literal sizes."""

        def out(o: Output) -> Output:
            if isinstance(o, ArrayOutput):
                return ArrayOutput(o.array, as_scalar(self.at_sizes(o.lo)), as_scalar(self.at_sizes(o.hi)),
                                   as_tensor(self.at_sizes(o.value)),
                                   None if o.step is None else as_scalar(self.at_sizes(o.step)))
            return ScalarOutput(o.name, as_scalar(self.at_sizes(o.value)))

        pre = tuple((as_scalar(self.at_sizes(a)), as_scalar(self.at_sizes(b))) for a, b in ps.preconditions)
        return replace(ps, function=self.source.name, outputs=tuple(out(o) for o in ps.outputs), preconditions=pre)

    def uncovered_trip_counts(self, proved: Sequence[tuple[Scalar, Scalar, str]],
                              source: Sequence[tuple[Scalar, Scalar, str]]) -> list[str]:
        """The trip-count preconditions of the proof (``proved``: ``left <= right`` of
        :attr:`fn`'s analysis) that neither hold at the literal sizes nor are among the
        source's own (``source``, which generated code checks), as text."""
        from tenspiler.ir.printer import show

        mine = {(a, b) for a, b, _ in source}
        bad = []
        for left, right, what in proved:
            a, b = as_scalar(self.at_sizes(left)), as_scalar(self.at_sizes(right))
            if isinstance(a, Lit) and isinstance(b, Lit) and a.value <= b.value:
                continue
            if (a, b) not in mine:
                bad.append(f"{what}: {show(a)} <= {show(b)}")
        return bad

    def assumption(self) -> str:
        """The assumption line of the certificate's list (``LiftResult.assumptions``)."""
        pairs = ", ".join(f"{n} = {v}" for n, v in self.sizes.items())
        return (f"the literal loop sizes are generalised to size parameters for the proof, which holds for "
                f"every value satisfying the other assumptions; the source is the proved program at {pairs}")


def generalize_sizes(fn: Function, above: int = GENERALIZE_ABOVE) -> Generalized | None:
    """``fn`` with its literal sizes as parameters (module docstring), or ``None`` when its
    literal bounds make at most ``above`` innermost iterations, or it is a Python function
    (``--check`` runs the original function, which at such sizes takes minutes per input)."""
    if fn.python is not None or literal_iterations(fn.body) <= above:
        return None
    found: set[int] = set()
    for loop in _loops(fn.body):
        for bound in (loop.start, loop.stop):
            for e in subexpressions(bound):
                if isinstance(e, Const) and e.dtype == DType.INT and isinstance(e.value, int) and e.value >= 2:
                    found.add(e.value)
    # every size of at least GENERALIZE_FROM (one shape for all: a GEMM's 12544 × 64 × 256
    # is a matmul, not 12544 stacked rows of literal 64 × 256 products), then smaller ones,
    # the largest first, until the literals left are cheap
    values = {v for v in found if v >= GENERALIZE_FROM}
    for v in sorted(found - values, reverse=True):
        if literal_iterations(fn.body, frozenset(values)) <= above:
            break
        values.add(v)
    if not values:
        return None
    taken = {p.name for p in fn.params} | {n for n, _ in fn.locals}
    names: dict[int, str] = {}
    for v in sorted(values):
        name = f"size_{v}"
        while name in taken:
            name = "_" + name
        taken.add(name)
        names[v] = name

    def rewrite(e: Expr) -> Expr:
        if isinstance(e, Const) and e.dtype == DType.INT and isinstance(e.value, int) and e.value in names:
            return Var(names[e.value], DType.INT, e.loc)
        return e

    body = tuple(map_stmt_exprs(s, rewrite) for s in fn.body)
    params = fn.params + tuple(Param(names[v], ScalarType(DType.INT), c_type="int") for v in sorted(values))
    g = replace(fn, params=params, body=body)
    return Generalized(fn, g, {names[v]: v for v in sorted(values)})


@dataclass(frozen=True)
class AtSizes:
    """The generalised kernel's analysis seen at the literal sizes: what
    :func:`tenspiler.vc.concrete.random_examples` and ``adversarial_examples`` need to draw
    inputs of the *source* (``fn``: the size parameters are not inputs) that satisfy the
    proof's preconditions. ``interpret`` is false: the source is not run in the loop-IR
    interpreter on them (too long at these sizes), so the examples carry no final state and
    ``--check`` compares the generated code with the compiled source only."""

    kernel: Any
    generalized: Generalized
    interpret: bool = False

    @property
    def fn(self) -> Function:
        return self.generalized.source

    @property
    def nested(self) -> bool:
        return bool(self.kernel.nested)

    @property
    def live_out(self) -> tuple[str, ...]:
        return tuple(getattr(self.kernel, "live_out", ()))

    @property
    def bounds(self) -> tuple[Expr, ...]:
        sizes = self.generalized.sizes

        def lit(e: Expr) -> Expr:
            return Const(sizes[e.name], DType.INT, e.loc) if isinstance(e, Var) and e.name in sizes else e

        return tuple(map_expr(b, lit) for b in self.kernel.bounds)

    def admits(self, inputs: Mapping[str, Any]) -> bool:
        return bool(self.kernel.admits({**inputs, **self.generalized.sizes}))

    #: The longest arrays the check draws (elements): inputs of the source at its literal
    #: sizes are full-size arrays, several per input, each copied a few times on the way
    max_length: int = 1 << 22

    @property
    def iterations(self) -> int:
        """Innermost iterations of one run of the source (:func:`literal_iterations`)."""
        return literal_iterations(self.fn.body)

