"""The budgets of a lift: counted in work, with wall-clock safety nets (issue 33).

What decides "verified" or "not lifted" is counted in work, so the verdict is the same on an
idle and on a loaded machine: candidates enumerated per hole (``max_enumerate``), survivors
kept (``max_survivors``), and cvc5 resource units per VC clause
(:data:`PROOF_RLIMIT`). The wall-clock ``timeout`` of
:func:`tenspiler.synth.search.synthesize` is only a safety net against a run that does not
end: :func:`check_deadline` raises :class:`~tenspiler.errors.WallClockTimeout` (its own
status, ``"timeout"``), never a "not lifted" that a faster machine would not give.
"""

from __future__ import annotations

import time

from tenspiler.errors import WallClockTimeout

#: cvc5 resource units one VC clause may use (``rlimit-per``, :mod:`tenspiler.verify.solver`).
#: Calibrated on every clause the project's kernels and corpora prove
#: (``benchmarks/calibrate_rlimit.py``, results in ``benchmarks/results/rlimit.md``).
PROOF_RLIMIT = 2_000_000

#: Resource units of one query of the bounded counterexample search (0–3 iterations): a
#: best-effort search whose ``unknown`` ends it (it proves nothing either way).
BOUNDED_RLIMIT = 200_000

#: Wall-clock seconds after which a solver worker is killed whatever its resource limit.
SAFETY_NET_S = 300.0

#: Wall-clock seconds of one lift's synthesis and proofs.
SYNTHESIS_SAFETY_NET_S = 600.0

#: How every wall-clock safety net's message starts; a translation-validation run whose
#: original program did not return within its safety net says so, and the lift's status is
#: then ``"timeout"`` too (:func:`tenspiler.pipeline.lift_parsed`).
WALL_CLOCK = "timed out (wall clock)"

__all__ = [
    "BOUNDED_RLIMIT",
    "PROOF_RLIMIT",
    "SAFETY_NET_S",
    "SYNTHESIS_SAFETY_NET_S",
    "WALL_CLOCK",
    "check_deadline",
]


def check_deadline(deadline: float) -> None:
    """Raise :class:`WallClockTimeout` once ``time.monotonic()`` is past ``deadline`` (the
    ``timeout`` of :func:`tenspiler.synth.search.synthesize` after its start).

    Raises:
        WallClockTimeout: the safety net fired.
    """
    if time.monotonic() > deadline:
        raise WallClockTimeout(f"{WALL_CLOCK}: synthesis ran past its safety net (--timeout)")
