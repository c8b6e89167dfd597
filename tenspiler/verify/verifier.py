"""Verification of a candidate summary + invariant (paper §4.2).

A candidate is *verified* only when cvc5 answers ``unsat`` for every clause of its
verification condition (initiation, preservation, post). Before spending solver time, the
candidate is run against concrete program states: a disagreement there is a definite
counterexample (an input on which source and summary differ).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from tenspiler.budget import BOUNDED_RLIMIT, PROOF_RLIMIT, SAFETY_NET_S, WALL_CLOCK
from tenspiler.errors import NotLiftable, VerificationError, WallClockTimeout
from tenspiler.ir.terms import ProgramSummary
from tenspiler.loops.ir import PointerType
from tenspiler.vc.analyze import AnyKernel, ProvableKernel
from tenspiler.vc.concrete import Example, jsonable_inputs, mismatch
from tenspiler.vc.conditions import VC, Candidate, build_bounded
from tenspiler.vc.kernel import LoopKernel
from tenspiler.verify.skolem import skolemized
from tenspiler.verify.solver import QueryResult, check_scripts


@dataclass(frozen=True)
class Proof:
    """A verified candidate: its VC and cvc5's ``unsat`` answer for every clause."""

    vc: VC
    results: tuple[tuple[str, QueryResult], ...]

    @property
    def seconds(self) -> float:
        return sum(r.seconds for _, r in self.results)

    def certificate(self) -> str:
        return self.vc.certificate()

    def write_certificate(self, path: Path) -> Path:
        path.write_text(self.certificate())
        return path


@dataclass(frozen=True)
class PhasedProof:
    """The proofs of a function's loop phases (:mod:`tenspiler.vc.phases`), one per phase,
    with :class:`Proof`'s interface: the certificate is the phases' certificates one after
    another, separated by ``(reset)`` (each is re-checked from a fresh solver state)."""

    proofs: tuple[Proof, ...]
    #: One name per proof (default ``loop k of n``), e.g. ``row kernel`` / ``outer loop``
    #: for a block loop (:mod:`tenspiler.vc.blocks`).
    labels: tuple[str, ...] | None = None

    def _label(self, k: int) -> str:
        return self.labels[k] if self.labels is not None else f"loop {k + 1} of {len(self.proofs)}"

    @property
    def seconds(self) -> float:
        return sum(p.seconds for p in self.proofs)

    @property
    def results(self) -> tuple[tuple[str, QueryResult], ...]:
        return tuple(
            (f"{self._label(k)}: {name}", r) for k, p in enumerate(self.proofs) for name, r in p.results
        )

    @property
    def vc(self) -> VC:
        """A VC carrying the union of the phases' assumptions (for reports)."""
        seen: dict[str, tuple[str, str]] = {}
        for p in self.proofs:
            for a in p.vc.assumptions:
                seen.setdefault(a[0], a)
        first = self.proofs[0].vc
        return VC(first.declarations, first.definitions, tuple(seen.values()), (), first.comments)

    def certificate(self) -> str:
        parts = [f"; {self._label(k)}\n{p.certificate()}" for k, p in enumerate(self.proofs)]
        return "\n(reset)\n".join(parts)

    def write_certificate(self, path: Path) -> Path:
        path.write_text(self.certificate())
        return path


def refute_concretely(
    k: ProvableKernel, cand: Candidate, examples: Sequence[Example], ps: ProgramSummary | None = None
) -> None:
    """Raise :class:`VerificationError` (clause ``"concrete"``) with the first example on
    which the summary (default: the candidate's) disagrees with the source."""
    ps = k.summary(cand) if ps is None else ps
    for ex in examples:
        why = mismatch(ps, ex)
        if why is not None:
            raise VerificationError(
                f"counterexample: {why}", "concrete", jsonable_inputs(ex.inputs)
            )


def prove(
    k: ProvableKernel,
    cand: Candidate,
    timeout: float = SAFETY_NET_S,
    ps: ProgramSummary | None = None,
    rlimit: int = PROOF_RLIMIT,
) -> Proof:
    """Prove every VC clause with cvc5, each within ``rlimit`` resource units (the
    deterministic budget, :mod:`tenspiler.verify.solver`) in a worker killed after
    ``timeout`` wall-clock seconds (the safety net).

    Raises:
        VerificationError: a clause was not ``unsat`` (``counterexample`` is ``None``:
            use :func:`bounded_refutation` or concrete examples for those).
        WallClockTimeout: a clause's worker was killed by the safety net.
    """
    vc = k.vc(cand, ps)
    clauses = list(vc.clauses)
    results: list[QueryResult] = []
    while len(results) < len(clauses):
        rest = check_scripts([vc.script(c) for c in clauses[len(results):]], timeout, rlimit=rlimit)
        results += rest
        if not rest or rest[-1].answer == "unsat":
            break
        # a clause out of resources: once more in its skolemized form (tenspiler.verify.skolem),
        # which is then its certificate; the clauses after it are run after it
        at = len(results) - 1
        if not results[at].out_of_resources or (alt := skolemized(vc, clauses[at])) is None:
            break
        (again,) = check_scripts([vc.script(alt)], timeout, rlimit=rlimit)
        if again.answer != "unsat":
            break
        clauses[at], results[at] = alt, again
    vc = replace(vc, clauses=tuple(clauses))
    pairs = tuple((c.name, r) for c, r in zip(vc.clauses, results, strict=False))
    for name, r in pairs:
        if r.answer == "timeout":
            raise WallClockTimeout(f"{WALL_CLOCK}: VC clause '{name}' ran {timeout:g} s (the safety net)")
        if r.answer != "unsat":
            what = {
                "sat": "is violated (cvc5: sat)",
                "unknown": f"exceeded its resource limit of {rlimit:,} cvc5 units (cvc5: unknown)"
                if r.out_of_resources else f"could not be proved (cvc5: {r.detail or 'unknown'})",
                "error": f"solver error: {r.detail}",
            }[r.answer]
            # a model of a failing clause is a state where the VC breaks, not necessarily an
            # input on which source and summary differ: it is not reported as one
            raise VerificationError(f"VC clause '{name}' {what}", name, None)
    return Proof(vc, pairs)


def inputs_from_model(k: AnyKernel, model: Mapping[str, Any], length: int = 16) -> dict[str, Any] | None:
    """A cvc5 model of the entry constants (``x.0``) as a kernel input (arrays of
    ``length`` elements; unconstrained elements take the model's default value)."""
    inputs: dict[str, Any] = {}
    for p in k.fn.params:
        v = model.get(f"{p.name}.0")
        if v is None:
            return None
        if isinstance(p.type, PointerType):
            if not isinstance(v, dict):
                return None
            arr = np.full(length, v["default"], dtype=np.float64 if p.type.elem.is_float else np.int64)
            for i, x in v["entries"].items():
                if 0 <= i < length:
                    arr[i] = x
            inputs[p.name] = arr
        else:
            inputs[p.name] = v
    return inputs


def bounded_refutation(
    k: AnyKernel,
    cand: Candidate,
    max_trips: int = 3,
    timeout: float = SAFETY_NET_S,
    ps: ProgramSummary | None = None,
    rlimit: int = BOUNDED_RLIMIT,
) -> None:
    """Bounded model check for ``0..max_trips`` loop iterations (symbolic inputs).

    A best-effort counterexample search: each trip count gets ``rlimit`` cvc5 resource
    units, and an ``unknown`` answer simply ends the search (it proves nothing either way).
    ``timeout`` is the wall-clock safety net.

    Raises:
        VerificationError: clause ``"bounded"``; ``counterexample`` is cvc5's model turned
            into an input when it answered ``sat``.
        WallClockTimeout: a query's worker was killed by the safety net.
    """
    if not isinstance(k, LoopKernel):
        return  # bounded unrolling is implemented for single loops only
    try:
        scripts = [build_bounded(k, cand, t, ps).script() for t in range(max_trips + 1)]
    except NotLiftable:
        return  # the unrolled body cannot be executed symbolically: rely on the proof
    for t, r in enumerate(check_scripts(scripts, timeout, rlimit=rlimit)):
        if r.answer == "timeout":
            raise WallClockTimeout(f"{WALL_CLOCK}: the bounded check with {t} iterations ran {timeout:g} s")
        if r.answer in ("unknown", "error"):
            return
        if r.answer == "sat" and r.model is not None:
            cex = inputs_from_model(k, r.model)
            raise VerificationError(
                f"counterexample with {t} loop iterations (cvc5: sat)",
                "bounded",
                None if cex is None else jsonable_inputs(cex),
            )


def verify(
    k: ProvableKernel,
    cand: Candidate,
    examples: Sequence[Example] = (),
    timeout: float = SAFETY_NET_S,
    ps: ProgramSummary | None = None,
    rlimit: int = PROOF_RLIMIT,
) -> Proof:
    """Concrete refutation on ``examples``, then a bounded check (0–3 iterations,
    symbolic inputs), then the unbounded proof (:func:`prove`).

    Raises:
        VerificationError: ``clause`` is ``"concrete"`` or ``"bounded"`` with the input as
            ``counterexample`` when one refutes the summary; otherwise as :func:`prove`.
    """
    refute_concretely(k, cand, examples, ps)
    bounded_refutation(k, cand, timeout=timeout, ps=ps)
    return prove(k, cand, timeout, ps, rlimit)
