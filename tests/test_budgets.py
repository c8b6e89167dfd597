"""Budgets counted in work, wall-clock limits only as safety nets (issue 33): the same input
and options give the same status, summary and certificate on an idle and on a loaded
machine; a safety net that fires is the status ``timeout``, never "not lifted"."""

from __future__ import annotations

import contextlib
import multiprocessing
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tenspiler.budget import PROOF_RLIMIT
from tenspiler.cli import main
from tenspiler.errors import VerificationError, WallClockTimeout
from tenspiler.frontend.c import parse_c_source
from tenspiler.pipeline import lift_file
from tenspiler.synth.search import synthesize
from tenspiler.vc.analyze import analyze_kernel
from tenspiler.verify.solver import check_scripts
from tenspiler.verify.verifier import prove

ROOT = Path(__file__).resolve().parents[1]
SAXPY = ROOT / "examples" / "saxpy.c"
HARD = """(set-logic ALL)
(declare-const x Int) (declare-const y Int) (declare-const z Int)
(assert (= (+ (* x x x) (* y y y) (* z z z)) 33))
(check-sat)
"""


def _spin() -> None:
    while True:
        pass


@contextlib.contextmanager
def loaded_machine() -> Iterator[None]:
    """Two CPU-bound processes beside the block (one per core of the CI machine)."""
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_spin, daemon=True) for _ in range(2)]
    for p in procs:
        p.start()
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.join()


def _fingerprint(tmp: Path) -> tuple[str, str | None, str]:
    res = lift_file(SAXPY, ("numpy",), out_dir=tmp, check=False)
    assert res.certificate is not None, res.message
    return res.status, res.summary, Path(res.certificate).read_text(encoding="utf-8")


def test_the_same_verdict_summary_and_certificate_under_load(tmp_path: Path) -> None:
    idle = _fingerprint(tmp_path / "idle")
    assert idle[0] == "verified"
    with loaded_machine():
        assert _fingerprint(tmp_path / "loaded") == idle


def test_a_query_over_its_resource_limit_is_unknown_with_the_units_counted() -> None:
    (r,) = check_scripts([HARD], rlimit=20_000)
    assert r.answer == "unknown" and r.out_of_resources
    assert r.resources >= 20_000
    (again,) = check_scripts([HARD], rlimit=20_000)
    assert (again.answer, again.detail) == (r.answer, r.detail)  # work, not seconds


def test_a_proof_over_its_resource_limit_is_a_named_refusal() -> None:
    k = analyze_kernel(parse_c_source(SAXPY.read_text(), str(SAXPY)))
    cand = synthesize(k).candidate
    proof = prove(k, cand)
    assert all(r.answer == "unsat" and 0 < r.resources < PROOF_RLIMIT for _, r in proof.results)
    with pytest.raises(VerificationError, match=r"exceeded its resource limit of 10 cvc5 units"):
        prove(k, cand, rlimit=10)


def test_the_wall_clock_safety_net_is_its_own_status(capsys: pytest.CaptureFixture[str]) -> None:
    k = analyze_kernel(parse_c_source(SAXPY.read_text(), str(SAXPY)))
    cand = synthesize(k).candidate
    with pytest.raises(WallClockTimeout, match=r"timed out \(wall clock\)"):
        # a worker that cannot even start cvc5 within the safety net
        prove(k, cand, timeout=1e-6)
    res = lift_file(SAXPY, ("numpy",), check=False, timeout=0.0)
    assert (res.status, res.exit_code) == ("timeout", 1)
    assert "timed out (wall clock)" in res.message
    assert main([str(SAXPY), "--timeout", "0", "--no-check"]) == 1
    err = capsys.readouterr().err
    assert f"{SAXPY}: timeout: timed out (wall clock)" in err


def test_the_cli_takes_the_proof_budget_in_units(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(SAXPY), "--proof-rlimit", "10", "--no-check"]) == 1
    assert "exceeded its resource limit of 10 cvc5 units" in capsys.readouterr().err
    assert sys.modules["tenspiler.budget"].PROOF_RLIMIT == PROOF_RLIMIT


def test_an_original_that_does_not_return_within_the_checks_safety_net_is_a_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tenspiler import pipeline
    from tenspiler.budget import WALL_CLOCK

    stalled = {"numpy": {"ok": False, "first_failure": f"input #3: {WALL_CLOCK}: the C function did not return "
                                                       "within 10 s", "passed": 2, "inputs": 3}}
    monkeypatch.setattr(pipeline, "_differential", lambda *a, **k: stalled)
    res = lift_file(SAXPY, ("numpy",), check=True)
    assert (res.status, res.exit_code) == ("timeout", 1) and WALL_CLOCK in res.message
    wrong = {"numpy": {**stalled["numpy"], "first_failure": "input #3: y: C gave [1], numpy gave [2]"}}
    monkeypatch.setattr(pipeline, "_differential", lambda *a, **k: wrong)
    assert lift_file(SAXPY, ("numpy",), check=True).status == "not_lifted"
