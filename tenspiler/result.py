"""The result of a lift: what ``--json`` prints and :func:`tenspiler.lift` returns.

Kept apart from :mod:`tenspiler.pipeline` so that a cache hit (:mod:`tenspiler.api`) and the
CLI read and build results without loading the compiler.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from tenspiler.version import SCHEMA_VERSION, __version__

__all__ = ["EXIT_CODES", "LiftResult"]

#: The CLI's exit code of each status (DESIGN.md, "The user-facing contract").
EXIT_CODES = {"verified": 0, "not_lifted": 1, "timeout": 1, "error": 2, "internal_error": 3}


@dataclass
class LiftResult:
    """Everything a lift produced; ``to_json()`` is the ``--json`` contract (DESIGN.md).

    Attributes:
        status: ``"verified"``, ``"not_lifted"``, ``"timeout"`` (a wall-clock safety net
            fired: no verdict, see :class:`~tenspiler.errors.WallClockTimeout`), ``"error"``
            (bad input) or ``"internal_error"`` (a bug of tenspiler's: an unexpected
            exception).
        function: the lifted function's name (``None`` if parsing failed).
        summary: TensIR program summary text, one line per output.
        invariants: loop invariants in TensIR syntax.
        assumptions: preconditions the proof relies on.
        outputs: backend name → path of the written file (empty without ``out_dir``).
        code: backend name → generated source text (also in the JSON, so ``--json``
            without ``-o`` still delivers the code).
        timings: phase name → seconds.
        certificate: path of the SMT-LIB certificate (each ``check-sat`` answers unsat).
        check: backend name → differential-check result (with ``check=True``).
        placement: backend name → device/host split, for backends that lower only part of
            the summary to a device (``GeneratedCode.placement``, e.g. ``tpc_c``).
        declined: backend name → why it emitted nothing (``"no rule for stack (in …)"``), for
            the backends asked for that cannot emit the summary while others can: the lift is
            verified with the others' code; when no backend can, it is not lifted.
        message: explanation for ``not_lifted`` / ``error``; it starts with ``location``
            when that is known.
        location: ``file:line:col`` of the construct a ``not_lifted`` or ``error`` result is
            about, when known (``None`` otherwise).
        synthesis: search statistics (trees, candidates, proofs, counterexamples).
        solver: per-clause cvc5 answers, seconds and resource units (the deterministic
            measure of a proof's work, :data:`tenspiler.budget.PROOF_RLIMIT`).
    """

    status: str
    function: str | None = None
    summary: str | None = None
    invariants: list[str] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)
    code: dict[str, str] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    certificate: str | None = None
    check: dict[str, Any] | None = None
    placement: dict[str, Any] = field(default_factory=dict)
    declined: dict[str, str] = field(default_factory=dict)
    message: str = ""
    location: str | None = None
    synthesis: dict[str, Any] = field(default_factory=dict)
    solver: list[dict[str, Any]] = field(default_factory=list)
    version: str = __version__

    @property
    def exit_code(self) -> int:
        """The CLI's exit code: 0 verified, 1 not lifted, 2 bad input, 3 internal error."""
        return EXIT_CODES[self.status]

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` object: every field, plus ``schema_version``
        (:data:`SCHEMA_VERSION`)."""
        return {"schema_version": SCHEMA_VERSION, **asdict(self)}
