"""Verification of a candidate summary + invariant (paper §4.2).

A candidate is *verified* only when cvc5 answers ``unsat`` for every clause of its
verification condition (initiation, preservation, post). Before spending solver time, the
candidate is run against concrete program states: a disagreement there is a definite
counterexample (an input on which source and summary differ).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tenspiler.errors import VerificationError
from tenspiler.ir.terms import ProgramSummary
from tenspiler.synth.concrete import Example, jsonable_inputs, mismatch
from tenspiler.vc.conditions import VC, Candidate, build_vc, summary
from tenspiler.vc.kernel import LoopKernel
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
        return self.vc.script()

    def write_certificate(self, path: Path) -> Path:
        path.write_text(self.certificate())
        return path


def refute_concretely(
    k: LoopKernel, cand: Candidate, examples: Sequence[Example], ps: ProgramSummary | None = None
) -> None:
    """Raise :class:`VerificationError` (clause ``"concrete"``) with the first example on
    which the summary (default: the candidate's) disagrees with the source."""
    ps = summary(k, cand) if ps is None else ps
    for ex in examples:
        why = mismatch(ps, ex)
        if why is not None:
            raise VerificationError(
                f"counterexample: {why}", "concrete", jsonable_inputs(ex.inputs)
            )


def prove(
    k: LoopKernel, cand: Candidate, timeout: float = 10.0, ps: ProgramSummary | None = None
) -> Proof:
    """Prove every VC clause with cvc5 (each in a worker killed after ``timeout`` seconds).

    Raises:
        VerificationError: a clause was not ``unsat``; ``counterexample`` holds cvc5's
            model when it answered ``sat``.
    """
    vc = build_vc(k, cand, ps)
    scripts = [vc.script(c) for c in vc.clauses]
    results = check_scripts(scripts, timeout)
    pairs = tuple((c.name, r) for c, r in zip(vc.clauses, results, strict=False))
    for name, r in pairs:
        if r.answer != "unsat":
            what = {
                "sat": "is violated (cvc5: sat)",
                "unknown": f"could not be proved (cvc5: {r.detail or 'unknown'})",
                "timeout": f"timed out after {timeout:g} s",
                "error": f"solver error: {r.detail}",
            }[r.answer]
            raise VerificationError(f"VC clause '{name}' {what}", name, r.model)
    return Proof(vc, pairs)


def verify(
    k: LoopKernel,
    cand: Candidate,
    examples: Sequence[Example] = (),
    timeout: float = 10.0,
    ps: ProgramSummary | None = None,
) -> Proof:
    """Concrete refutation first, then the unbounded proof. See :func:`prove`.

    Raises:
        VerificationError: with ``clause == "concrete"`` and the input as
            ``counterexample`` when an example refutes the summary; otherwise as
            :func:`prove`.
    """
    refute_concretely(k, cand, examples, ps)
    return prove(k, cand, timeout, ps)
