"""Shared end-to-end assertion of the kernel-shape tests: a kernel lifts, passes the
translation validation and its certificate re-checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tenspiler.budget import SAFETY_NET_S
from tenspiler.pipeline import LiftResult, lift_file
from tenspiler.verify.certificate import is_valid, recheck


def assert_lifts(path: Path, tmp_path: Path, **options: Any) -> LiftResult:
    """Lift ``path`` to NumPy with ``--check``; it must verify, pass every check and its
    certificate must re-check with a fresh cvc5."""
    res = lift_file(path, ("numpy",), out_dir=tmp_path, check=True, **options)
    assert res.status == "verified", res.message
    assert res.check is not None and all(c["ok"] for c in res.check.values()), res.check
    assert res.certificate is not None and is_valid(recheck(res.certificate))
    return res


def prove_every_level(k: Any, cand: Any, ps: Any, timeout: float = SAFETY_NET_S) -> None:
    """A block loop's proof is modular (``vc/blocks.py``): the innermost row kernel's VC with
    the candidate, then each enclosing outer loop's with the row summary as its transition
    (the outermost against ``ps``), as ``synthesize`` proves them; any other kernel's VC
    against ``ps``.

    Raises:
        VerificationError: a clause of some level is not ``unsat``.
    """
    from tenspiler.vc.blocks import BlockKernel
    from tenspiler.verify.verifier import prove

    levels = []
    while isinstance(k, BlockKernel):
        levels.append(k)
        k = k.kernel
    prove(k, cand, timeout=timeout, ps=None if levels else ps)
    for n, level in enumerate(reversed(levels)):
        prove(level, cand, timeout=timeout, ps=ps if n == len(levels) - 1 else None)


def assert_mutant_not_verified(source: str, mutation: tuple[str, str], cand: Any, ps: Any, name: str = "mutant.c") -> None:
    """``source`` with ``mutation[0]`` replaced by ``mutation[1]`` must be refused or fail to
    prove with the original's candidate and summary (:func:`prove_every_level`)."""
    import pytest

    from tenspiler.errors import LiftError, NotLiftable, VerificationError
    from tenspiler.frontend.c import parse_c_source
    from tenspiler.vc.analyze import analyze_kernel

    assert mutation[0] in source, mutation
    try:
        km = analyze_kernel(parse_c_source(source.replace(mutation[0], mutation[1]), name, cxx=name.endswith(".cc")))
        prove_every_level(km, cand, ps)
    except (VerificationError, NotLiftable, LiftError):
        return
    pytest.fail(f"mutant {mutation} verified with the original's summary")
