"""Several loops in one function (tenspiler/vc/phases.py): phase analysis, the composition
of the phases' proved summaries, end-to-end lifts with translation validation and
certificate re-checks, and the refusals (named reasons)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tenspiler.frontend.c import parse_c_file
from tenspiler.pipeline import lift_file
from tenspiler.vc.analyze import analyze_kernel
from tenspiler.vc.concrete import mismatch, random_examples
from tenspiler.vc.phases import PhasedKernel
from tenspiler.verify.certificate import recheck
from tests.lifting import assert_lifts

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "tests" / "kernels" / "phases"
BENCH = ROOT / "benchmarks" / "kernels" / "phases"


def _lift(path: Path, tmp_path: Path, check: bool = True):  # type: ignore[no-untyped-def]
    return lift_file(path, ("numpy",), out_dir=tmp_path, check=check)


def test_softmax_splits_into_three_phases_with_live_values() -> None:
    k = analyze_kernel(parse_c_file(BENCH / "softmax.c"))
    assert isinstance(k, PhasedKernel)
    assert len(k.phases) == 3
    first, second, third = k.phases
    assert first.live_in == () and first.live_out == ("m",)
    assert second.live_in == ("m",) and second.live_out == ("s",)
    assert third.live_in == ("s",) and third.live_out == ()
    # a live-in local is a scalar parameter of the phase (its value at the phase's entry)
    assert [p.name for p in second.fn.params][-1] == "m"
    # loop counters declared in each for header are not values handed between phases
    assert all("i" not in p.live_in + p.live_out for p in k.phases)


@pytest.mark.parametrize("path", sorted(BENCH.iterdir()), ids=lambda p: p.name)
def test_benchmark_phase_kernels_verify_check_and_recheck(path: Path, tmp_path: Path) -> None:
    res = assert_lifts(path, tmp_path)
    assert res.check is not None and res.check["numpy"]["passed"] > 50
    # one block of clauses per phase, each re-checked from a fresh solver state
    assert len(recheck(res.certificate)) >= 8  # type: ignore[arg-type]
    assert any(inv.startswith("loop 2 of") for inv in res.invariants)


@pytest.mark.parametrize(
    "name",
    ["param_between.c", "shifted_write.c", "three_scalar_phases.c", "read_before_disjoint.c",
     "scalar_reassigned.c", "bound_from_loop.c"],
)
def test_composed_summary_matches_the_loop_ir(name: str, tmp_path: Path) -> None:
    """Without translation validation the proofs and the composition alone decide: the
    composed summary must agree with the loop-IR interpreter (the proof's model) on every
    admitted random input, including those with zero and negative trip counts."""
    from tenspiler.synth.search import synthesize

    fn = parse_c_file(KERNELS / name)
    k = analyze_kernel(fn)
    assert isinstance(k, PhasedKernel)
    syn = synthesize(k)
    examples = random_examples(k, np.random.default_rng(7), 60, max_trips=7, magnitude=50)
    assert len(examples) >= 40
    bad = [m for ex in examples if (m := mismatch(syn.summary, ex)) is not None]
    assert not bad, bad[:3]


def test_bound_counted_by_an_earlier_loop_is_its_closed_form(tmp_path: Path) -> None:
    """``m += 1`` n times is the induction ``m = n`` (under ``0 <= n``) (loops/counters.py): the later
    loop's bound is that closed form, not a value the phases hand over."""
    res = _lift(KERNELS / "bound_from_loop.c", tmp_path)
    assert res.status == "verified", res.message
    assert res.summary is not None and "reduce_sum(take(a, (0 + n)))" in res.summary
    assert res.check is not None and res.check["numpy"]["passed"] > 50


def test_scalar_changed_between_loops_is_read_with_its_new_value(tmp_path: Path) -> None:
    res = _lift(KERNELS / "scalar_reassigned.c", tmp_path)
    assert res.status == "verified", res.message
    assert res.summary is not None and "((reduce_sum(take(a, n)) * 2) + 1)" in res.summary


def test_disjoint_read_keeps_the_entry_array(tmp_path: Path) -> None:
    res = _lift(KERNELS / "read_before_disjoint.c", tmp_path)
    assert res.status == "verified", res.message
    assert res.summary is not None and "slice(a, 4, (n + 4))" in res.summary


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("read_past_write.c", "which an earlier loop wrote only in part"),
        ("mutant_index.c", "which an earlier loop wrote only in part"),
        ("mutant_bound.c", "which an earlier loop wrote only in part"),
        ("bound_via_copy.c", "depends on 'k', whose value here an earlier loop computes"),
        ("bound_via_local_copy.c", "depends on 'k', whose value here an earlier loop computes"),
        ("two_ranges.c", "over different ranges in several loops are not supported yet"),
    ],
)
def test_refusals_name_the_reason(name: str, reason: str, tmp_path: Path) -> None:
    res = _lift(KERNELS / name, tmp_path, check=False)
    assert res.status == "not_lifted"
    assert reason in res.message
    assert f"{name}:" in res.message  # located
    assert not list(tmp_path.iterdir())  # no partial output


def test_phased_trip_counts_are_checked_by_generated_code(tmp_path: Path) -> None:
    """Each phase's trip count (over the function's entry, straight-line values
    substituted) is a precondition the generated code checks."""
    res = _lift(KERNELS / "param_between.c", tmp_path, check=False)
    assert res.status == "verified", res.message
    ns: dict[str, object] = {}
    exec(compile(res.code["numpy"], "param_between.py", "exec"), ns)
    f = ns["parm"]
    with pytest.raises(ValueError, match="non-negative number of times"):
        f(np.arange(4), np.zeros(4, dtype=np.int64), 0)  # type: ignore[operator]
    total, out = f(np.arange(4), np.zeros(4, dtype=np.int64), 3)  # type: ignore[operator]
    assert total == 0 + 1 + 2 + 2 and list(out[:2]) == [0, 3]


LINALG = ROOT / "benchmarks" / "kernels" / "linear_algebra"


@pytest.mark.parametrize("path", sorted(LINALG.iterdir()), ids=lambda p: p.name)
def test_linear_algebra_phase_kernels(path: Path, tmp_path: Path) -> None:
    """Loop nests one after another (mvt, gemver, bicg, gesummv): a later nest reads the
    matrix an earlier one updated, also through a transposed (strided) view."""
    assert_lifts(path, tmp_path)


def test_a_transposed_read_past_the_updated_matrix_is_refused(tmp_path: Path) -> None:
    src = ROOT / "tests" / "kernels" / "phases" / "transposed_past_update.c"
    res = _lift(src, tmp_path, check=False)
    assert res.status == "not_lifted"
    assert "which an earlier loop wrote only in part" in res.message
