"""Sums over a window of a wider matrix: a two-deep nest whose total reads ``A[i*s + j + c]``
(a leading dimension ``s`` other than the row length) or a row vector ``x[j]``, with no view
of the flattened nest. The total is kept per row (``vc.nest.total_at``): the sums of the
finished rows plus the current row's prefix. End-to-end lifts with checks and re-checks,
the invariant's form, mutants that must not verify, and the float32 check tolerance."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tenspiler.check import term_magnitude
from tenspiler.frontend.c import parse_c_file, parse_c_source
from tenspiler.ir.semantics import results_agree
from tenspiler.ir.terms import ProgramSummary, ReduceSum, ScalarOutput, TensorTensor, TensorVar
from tenspiler.loops.ir import DType
from tenspiler.synth.search import synthesize
from tenspiler.vc.analyze import analyze_kernel
from tenspiler.vc.conditions import COL
from tenspiler.vc.nest import NestKernel
from tests.lifting import assert_lifts, assert_mutant_not_verified

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks" / "kernels" / "windows"


@pytest.mark.parametrize("path", sorted(BENCH.iterdir()), ids=lambda p: p.name)
def test_window_kernels_verify_check_and_recheck(path: Path, tmp_path: Path) -> None:
    res = assert_lifts(path, tmp_path)
    assert res.summary is not None and "reduce_rows(" in res.summary


@pytest.fixture(scope="module")
def window_proof() -> tuple[object, object]:
    k = analyze_kernel(parse_c_file(BENCH / "window_dot.c"))
    assert isinstance(k, NestKernel)
    cand = synthesize(k).candidate
    return cand, k.summary(cand)


def test_the_total_is_kept_per_row(window_proof: tuple[object, object]) -> None:
    cand, ps = window_proof
    (name, term), = cand.scalars  # type: ignore[attr-defined]
    assert name == "acc"
    from tenspiler.ir.terms import free_vars

    assert COL in free_vars(term)
    from tenspiler.ir.printer import show_summary

    assert "reduce_sum(reduce_rows(tensor_tensor(matrix(tail(img, (c + (r * w))), k, k, w), matrix(ker, k, k), *)))" \
        in show_summary(ps)  # type: ignore[arg-type]


WINDOW = (BENCH / "window_dot.c").read_text()


@pytest.mark.parametrize("mutation", [
    ("(r + a) * w + (c + b)", "(r + a) * w + (c + b + 1)"),   # index off by one
    ("(r + a) * w + (c + b)", "(r + a) * k + (c + b)"),       # the wrong row stride
    ("(r + a) * w + (c + b)", "(r + b) * w + (c + a)"),       # the window transposed
    ("ker[a * k + b]", "ker[b * k + a]"),                     # the kernel transposed
    ("b < k; b++", "b < k - 1; b++"),                         # a wrong bound
    ("acc += ", "acc -= "),                                   # a swapped operator
], ids=["off-by-one", "stride", "transposed-window", "transposed-kernel", "bound", "sign"])
def test_mutants_of_a_window_sum_do_not_verify_with_its_summary(mutation: tuple[str, str],
                                                                window_proof: tuple[object, object]) -> None:
    cand, ps = window_proof
    assert_mutant_not_verified(WINDOW, mutation, cand, ps)


def test_float32_tolerance_scales_with_the_terms_not_only_the_result() -> None:
    """A float32 sum whose terms cancel: both orders round at the scale of the terms (the
    summation error bound), so the check's tolerance uses the terms' magnitude; a result
    off by more than that still fails."""
    fn = parse_c_source("float dot(int n, float *x, float *y) { float s = 0.0f;\n"
                        "  for (int i = 0; i < n; i++) s += x[i] * y[i];\n  return s; }\n", "dot.c")
    ps = ProgramSummary("dot", (ScalarOutput("return", ReduceSum(
        TensorTensor("*", TensorVar("x", DType.FLOAT), TensorVar("y", DType.FLOAT), DType.FLOAT), DType.FLOAT)),))
    x = np.array([1000.0, -1000.0, 0.5], dtype=np.float32)
    y = np.array([300.0, 300.0, 1.0], dtype=np.float32)
    inputs = {"n": 3, "x": x, "y": y}
    assert term_magnitude(fn, ps, inputs) == pytest.approx(600000.5)
    mag = term_magnitude(fn, ps, inputs)
    assert not results_agree(0.5, 0.52, DType.FLOAT)          # the result's scale alone: 0.02 is too much
    assert results_agree(0.5, 0.52, DType.FLOAT, mag)         # the terms' scale (6e5 * 1e-5 = 6)
    assert not results_agree(0.5, 10.0, DType.FLOAT, mag)     # a real difference still fails
    assert not results_agree(1, 2, DType.INT, mag)            # integers stay exact


@pytest.mark.parametrize(("cond", "n", "k", "trips"), [
    ("i + k <= n", 7, 3, 5),
    ("k + i < n", 7, 3, 4),
    ("n > i - 2", 4, 0, 6),
    ("i - k < n", 4, 2, 6),
    ("i + k <= n", 2, 5, 0),      # no iteration
])
def test_a_counter_with_an_offset_in_the_loop_condition(cond: str, n: int, k: int, trips: int) -> None:
    """``i + e <= E`` is ``i <= E - e`` on the integers (where C's ``i + e`` does not
    overflow): the loop IR runs exactly the source's iterations."""
    from tenspiler.loops.interp import run_function

    src = f"int f(int n, int k, int *a) {{ int s = 0; for (int i = 0; {cond}; i++) s += 1; return s; }}"
    fn = parse_c_source(src, "f.c")
    assert run_function(fn, {"n": n, "k": k, "a": np.zeros(1, dtype=np.int64)})["return"] == trips


def test_an_unsigned_offset_in_the_loop_condition_is_modelled_exactly() -> None:
    # i + k <= n compares in unsigned int (C11 §6.3.1.8): the trip count wraps as C's does
    src = "int f(int n, unsigned k, int *a) { int s = 0; for (int i = 0; i + k <= n; i++) s += a[i]; return s; }"
    fn = parse_c_source(src, "f.c")
    assert "uint32" in repr(fn.body)


def test_a_triangular_nest_is_refused_with_the_reason(tmp_path: Path) -> None:
    from tenspiler.pipeline import lift_file

    src = tmp_path / "tri.c"
    src.write_text("void tri(int n, const float *a, float *out) { for (int i = 0; i < n; i++) { float s = 0.0f; "
                   "for (int j = 0; j <= i; j++) s += a[i * n + j]; out[i] = s; } }\n")
    res = lift_file(src, ("numpy",), out_dir=tmp_path / "out")
    assert res.status == "not_lifted" and "depend on the outer counter 'i' (a triangular nest)" in res.message
