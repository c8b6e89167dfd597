"""tenspiler.loops.distribute: a loop whose body computes independent things split into one
loop per component of its statements' dependence graph (loop distribution). The rewritten
loop IR computes what the source does (interpreter, bit for bit), dependent statements stay
in one loop in their order, and kernels that compute a row value and a sum over the rows in
one outer loop lift and agree with the compiled C."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tenspiler.frontend.c import parse_c_file, parse_c_source
from tenspiler.loops.distribute import distributed
from tenspiler.loops.interp import run_function
from tenspiler.loops.ir import Assign, For
from tests.lifting import assert_lifts

KERNELS = Path(__file__).parent / "kernels" / "c_nests"


def test_a_row_value_and_a_sum_over_rows_become_two_loops() -> None:
    fn = parse_c_file(KERNELS / "atax_rows.c")
    alt = distributed(fn)
    assert alt is not None
    loops = [s for s in alt.body if isinstance(s, For)]
    # y = 0; tmp[i] = 0; the row values into tmp[i]; the sums into y: in this order (the
    # dependences through tmp[i] stay within an iteration and run forward)
    assert len(loops) == 4

    def stores(loop: For) -> set[str]:
        from tenspiler.loops.ir import Store, all_stmts

        return {s.array for s in all_stmts([loop]) if isinstance(s, Store)}

    assert [stores(lp) for lp in loops] == [{"y"}, {"tmp"}, {"tmp"}, {"y"}]


@pytest.mark.parametrize("name", ["atax_rows.c", "bicg_rows.c"])
@pytest.mark.parametrize("seed", range(3))
def test_distribution_computes_what_the_source_does(name: str, seed: int) -> None:
    fn = parse_c_file(KERNELS / name)
    alt = distributed(fn)
    assert alt is not None
    rng = np.random.default_rng(seed)
    for m, n in ((0, 2), (2, 0), (3, 4), (1, 1)):
        inputs = {p.name: rng.normal(size=m * n + m + n + 1) for p in fn.arrays}
        inputs |= {"m": m, "n": n}
        a, b = run_function(fn, inputs), run_function(alt, inputs)
        for key in a:
            assert np.array_equal(np.asarray(a[key]), np.asarray(b[key])), key


KEPT = {
    "a scalar carried across iterations shared by the statements": """
        void f(int m, int n, const int *a, int *x, int *y) {
          int t = 0;
          for (int i = 0; i < m; i++) {
            t = t + a[i];
            for (int j = 0; j < n; j++) x[j] += t;
            for (int j = 0; j < n; j++) y[j] += t;
          }
        }""",
    "an array written by a later statement and read by an earlier one at another index": """
        void f(int m, int n, int *x, int *y) {
          for (int i = 0; i < m; i++) {
            x[i] = y[i + 1];
            for (int j = 0; j < n; j++) y[j] += 1;
          }
        }""",
    "an array both statements update at other indices": """
        void f(int m, int n, int *y) {
          for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) y[j] += 1;
            for (int j = 0; j < n; j++) y[j] *= 2;
          }
        }""",
}


@pytest.mark.parametrize("why", sorted(KEPT))
def test_dependent_statements_stay_in_one_loop(why: str) -> None:
    assert distributed(parse_c_source(KEPT[why], "k.c", "f")) is None, why


RECOMPUTED = """
    void f(int m, int n, const int *a, int *x, int *y) {
      int s = 0;
      for (int i = 0; i < m; i++) {
        int t = a[i] * 2;
        s += t;
        for (int j = 0; j < n; j++) x[j] += t;
        for (int j = 0; j < n; j++) y[j * m + i] = t;
      }
      x[0] = s;
    }"""


def test_a_value_of_the_iteration_alone_is_recomputed_in_each_part() -> None:
    """``t = a[i] * 2`` reads only the counter and an array the loop leaves alone: each
    part gets its own copy, so the three statements that read it become three loops."""
    fn = parse_c_source(RECOMPUTED, "k.c", "f")
    alt = distributed(fn)
    assert alt is not None
    loops = [s for s in alt.body if isinstance(s, For)]
    assert len(loops) == 3
    assert all(isinstance(lp.body[0], Assign) and lp.body[0].target == "t" for lp in loops)
    rng = np.random.default_rng(3)
    for m, n in ((0, 2), (2, 0), (3, 4), (1, 1), (-1, 2)):
        size = max(m, 0) * max(n, 0) + max(m, 0) + max(n, 0) + 1
        inputs = {p.name: rng.integers(-9, 9, size=size) for p in fn.arrays} | {"m": m, "n": n}
        a, b = run_function(fn, inputs), run_function(alt, inputs)
        for key in a:
            assert np.array_equal(np.asarray(a[key]), np.asarray(b[key])), key


DISJOINT = """
    void f(int nx, const int *x, int ny, const int *y, int b, int *out) {
      for (int j = 0; j < b; ++j) {
        for (int i = 0; i < nx; ++i) out[(nx + ny) * j + i] = x[j*nx + i];
        for (int i = 0; i < ny; ++i) out[(nx + ny) * j + nx + i] = y[j*ny + i];
      }
    }"""


def test_writes_to_disjoint_elements_are_no_dependence() -> None:
    """Two inner loops that only write ``out``, at elements cvc5 proves distinct for every
    pair of iterations (``(nx+ny)*j + i`` with ``i < nx`` and ``(nx+ny)*j' + nx + i'``),
    split; the same loops writing one element twice do not."""
    fn = parse_c_source(DISJOINT, "k.c", "f")
    alt = distributed(fn)
    assert alt is not None and sum(isinstance(s, For) for s in alt.body) == 2
    rng = np.random.default_rng(5)
    for nx, ny, b in ((0, 2, 3), (2, 0, 2), (3, 2, 0), (1, 4, 3), (3, 3, 2)):
        size = (nx + ny) * b + nx * b + ny * b + 1
        inputs = {p.name: rng.integers(-9, 9, size=size) for p in fn.arrays} | {"nx": nx, "ny": ny, "b": b}
        want, got = run_function(fn, inputs), run_function(alt, inputs)
        assert all(np.array_equal(np.asarray(want[k]), np.asarray(got[k])) for k in want), (nx, ny, b)
    overlapping = DISJOINT.replace("(nx + ny) * j + nx + i", "(nx + ny) * j + nx - 1 + i")
    assert distributed(parse_c_source(overlapping, "k.c", "f")) is None


@pytest.mark.parametrize("name", ["atax_rows.c", "bicg_rows.c"])
def test_row_values_and_sums_over_rows_lift_and_agree_with_the_compiled_c(name: str, tmp_path: Path) -> None:
    assert_lifts(KERNELS / name, tmp_path)
