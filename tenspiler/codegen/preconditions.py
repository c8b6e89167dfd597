"""The preconditions of a proof that generated code enforces.

A certificate's assumptions (``LiftResult.assumptions``) are of four kinds:

* **trip counts** — each loop runs a non-negative number of times: ``start <= stop`` of a
  single loop; for a loop nest ``start <= stop`` of the outer loop, ``0 <= n`` of the inner
  one (``1 <= n`` when a row maximum needs non-empty rows) and ``0 <= start`` (the first row
  is a row of the arrays). :func:`trip_counts` derives them from the kernel's loops
  (:func:`tenspiler.vc.kernel.analyze_kernel`, the analysis the proof was built from) as
  TensIR terms over the parameters. Each is checked *literally*: ``0 <= m`` and ``0 <= n``,
  not only ``0 <= m * n`` — a summary reading ``take(A, m * n)`` is satisfied by
  ``m = n = -1``, where C's loops run zero times;
* **shapes** — :attr:`~tenspiler.ir.terms.ProgramSummary.preconditions` (``a == b``);
* **ranges** — the arrays are long enough for what the summary reads and writes: the bounds
  of its ``take`` / ``tail`` / ``slice`` / ``matrix`` / ``strided`` views and of its output
  ranges; each backend checks them from the summary's terms
  (``numpy_backend.PythonHostBackend.guards``);
* not checkable at run time (or guaranteed by the argument conversions): no aliasing between
  pointer parameters, reals as real numbers, ``unsigned char`` ranges, non-zero divisors
  (undefined behaviour in C).

A Python-hosted backend raises ``ValueError`` naming the violated precondition before
computing. The Gemmini C entry cannot raise: outside the trip counts and shapes — where C is
defined (a loop with a negative trip count runs zero times) — it runs the kernel's own loops
(:mod:`tenspiler.codegen.loop_c`), i.e. does what the C does.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Literal

from tenspiler.errors import TenspilerError
from tenspiler.ir.printer import show
from tenspiler.ir.terms import Lit, ProgramSummary, Scalar, free_vars
from tenspiler.loops.ir import Function

__all__ = ["Precondition", "proof_preconditions", "trip_counts"]


@dataclass(frozen=True)
class Precondition:
    """``left op right`` over the parameters; ``message`` is the ``ValueError`` text."""

    left: Scalar
    op: Literal["<=", "=="]
    right: Scalar
    kind: Literal["trips", "shape"]
    message: str

    @property
    def text(self) -> str:
        return f"{show(self.left)} {self.op} {show(self.right)}"

    @property
    def names(self) -> set[str]:
        return free_vars(self.left) | free_vars(self.right)


def _trip(left: Scalar, right: Scalar, what: str) -> Precondition | None:
    if isinstance(left, Lit) and isinstance(right, Lit) and left.value <= right.value:
        return None  # holds for every input
    p = Precondition(left, "<=", right, "trips", "")
    return Precondition(left, "<=", right, "trips", f"precondition violated: {what}: {p.text}")


@functools.lru_cache(maxsize=128)
def trip_counts(fn: Function) -> tuple[Precondition, ...]:
    """The trip-count preconditions of ``fn``'s loops (see the module docstring), in the
    order the certificate prints them; none for a function the proof's kernel analysis does
    not take (no loop, e.g. a hand-written summary's signature)."""
    from tenspiler.vc.analyze import analyze_kernel

    try:
        k: Any = analyze_kernel(fn)
    except TenspilerError:
        return ()
    out: list[Precondition] = []
    for left, right, what in k.trip_counts():
        q = _trip(left, right, what)
        if q is not None and q not in out:
            out.append(q)
    from tenspiler.vc.conditions import lift_entry_scalar

    for left_e, right_e, what in fn.requires:  # the frontend's (a run-time loop step)
        q = _trip(lift_entry_scalar(left_e), lift_entry_scalar(right_e), what)
        if q is not None and q not in out:
            out.append(q)
    return tuple(out)


def proof_preconditions(fn: Function, ps: ProgramSummary) -> tuple[Precondition, ...]:
    """The trip counts (:func:`trip_counts`), then the summary's shape preconditions."""
    shapes = tuple(
        Precondition(a, "==", b, "shape", f"precondition violated (shapes): need {show(a)} == {show(b)}")
        for a, b in ps.preconditions
    )
    return trip_counts(fn) + shapes
