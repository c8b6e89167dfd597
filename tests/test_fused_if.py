"""Two normalizations of shipped C control flow: ``if (c) for (H) S1 else for (H) S2``
inside a loop read as one loop ``for (H) if (c) S1 else S2`` (loop unswitching undone,
``frontend/c_stmts._fused_if``), and a float accumulator updated in both branches of an
``if`` read as one accumulation of a select (``vc/updates._select_of_accumulations``); loop
interchange with a scalar private to the inner loop's iteration (an if-converted flag)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tenspiler.frontend.c import parse_c_source
from tenspiler.loops.interchange import interchanged
from tenspiler.loops.interp import run_function
from tenspiler.pipeline import lift_file
from tests.lifting import assert_lifts

KERNELS = Path(__file__).parent / "kernels" / "c_nests"


def test_the_branches_loops_are_fused_and_the_kernel_lifts(tmp_path: Path) -> None:
    res = assert_lifts(KERNELS / "fused_if_rows.c", tmp_path)
    assert res.summary is not None and res.summary.startswith("out[0:(m * n)] = select(flag != 0, ")


def test_a_float_accumulator_of_both_branches_is_a_reduction_of_a_select(tmp_path: Path) -> None:
    res = assert_lifts(KERNELS / "cond_accumulate.c", tmp_path)
    assert res.summary is not None and res.summary.startswith("return = reduce_sum(select(")


NOT_FUSED = {
    "the condition reads what the loops assign": """
        void f(int m, int n, int *y) {
          int c = 0;
          for (int i = 0; i < m; i++) {
            if (c) { for (int j = 0; j < n; j++) { y[j] = 1; c = 0; } }
            else { for (int j = 0; j < n; j++) { y[j] = 2; c = 1; } }
          }
        }""",
    "the headers differ": """
        void f(int m, int n, int c, int *y) {
          for (int i = 0; i < m; i++) {
            if (c) { for (int j = 0; j < n; j++) y[j] += 1; }
            else { for (int j = 1; j < n; j++) y[j] += 2; }
          }
        }""",
    "no else (the fused loop would run its header where C does not)": """
        void f(int m, int n, int c, int *y) {
          for (int i = 0; i < m; i++) {
            if (c) { for (int j = 0; j < n; j++) y[j] += 1; }
          }
        }""",
    "the condition reads an array the loops write": """
        void f(int m, int n, int *y) {
          for (int i = 0; i < m; i++) {
            if (y[0] > 0) { for (int j = 0; j < n; j++) y[j] -= 1; }
            else { for (int j = 0; j < n; j++) y[j] += 1; }
          }
        }""",
}


@pytest.mark.parametrize("why", sorted(NOT_FUSED))
def test_ifs_around_loops_that_cannot_be_fused_stay_refused(why: str) -> None:
    from tenspiler.errors import TenspilerError

    with pytest.raises(TenspilerError, match="inside if is not supported"):
        parse_c_source(NOT_FUSED[why], "k.c", "f")


def test_an_integer_accumulator_of_both_branches_stays_refused(tmp_path: Path) -> None:
    src = tmp_path / "k.c"
    src.write_text("int f(const int *a, int n) { int s = 0; for (int i = 0; i < n; i++) { if (a[i] > 0) s += a[i];"
                   " else s -= 1; } return s; }\n")
    res = lift_file(src, ("numpy",), out_dir=tmp_path / "out")
    assert res.status == "not_lifted" and "is not an accumulation" in res.message


PRIVATE = """
void f(int K, int N, const float *x, const float *A, float *y) {
  for (int k = 0; k < K; k++) {
    float t = x[k];
    for (int j = 0; j < N; j++) {
      if (t > 0) y[j] += t * A[k * N + j]; else y[j] -= A[k * N + j];
    }
  }
}
"""


@pytest.mark.parametrize("seed", range(3))
def test_interchange_keeps_an_iteration_private_flag(seed: int) -> None:
    fn = parse_c_source(PRIVATE, "k.c", "f")
    alt = interchanged(fn)
    assert alt is not None
    rng = np.random.default_rng(seed)
    for k, n in ((0, 2), (3, 0), (3, 4), (1, 1)):
        inputs = {"K": k, "N": n, "x": rng.normal(size=k + 1), "A": rng.normal(size=k * n + 1),
                  "y": rng.normal(size=n + 1)}
        a, b = run_function(fn, inputs), run_function(alt, inputs)
        assert np.array_equal(np.asarray(a["y"]), np.asarray(b["y"]))
