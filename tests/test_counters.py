"""tenspiler.loops.counters: copies of loop bounds forwarded, unread counters rebased to 0,
inductions (pointer bumps, counts) replaced by their closed forms. The rewritten loop IR
computes what the source does (interpreter, on zero, negative and positive trip counts), and
a count-down nest with pointer bumps and a sum kept in its outer loop lifts and agrees with
the compiled C."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tenspiler.frontend.c import parse_c_file, parse_c_source
from tenspiler.loops.counters import counters_rebased
from tenspiler.loops.interp import run_function
from tenspiler.loops.ir import (
    Assign,
    Const,
    For,
    Function,
    Var,
    all_stmts,
    expr_reads,
    stmt_expressions,
)
from tests.lifting import assert_lifts

KERNELS = Path(__file__).parent / "kernels" / "c_nests"
COUNTDOWN = KERNELS / "weighted_mean_countdown.c"


def _agree(fn: Function, alt: Function, sizes: list[dict[str, int]], seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    for size in sizes:
        n = 1 + sum(max(v, 0) for v in size.values()) ** 2
        inputs = {p.name: rng.integers(1, 9, size=n).astype(float) for p in fn.arrays} | size
        a, b = run_function(fn, inputs), run_function(alt, inputs)
        for key in a:
            assert np.array_equal(np.asarray(a[key]), np.asarray(b[key])), (key, size)


def test_countdown_nest_is_read_as_counted_loops_over_the_counters() -> None:
    fn = parse_c_file(COUNTDOWN)
    alt = counters_rebased(fn)
    assert alt is not None
    loops = [s for s in all_stmts(alt.body) if isinstance(s, For)]
    # every loop from 0 to a parameter, no pointer bump left, no copy of a bound
    assert all(lp.start == Const(0, lp.start.dtype) for lp in loops)
    assert sorted(lp.stop.name for lp in loops if isinstance(lp.stop, Var)) == ["dim", "dim", "dim", "nv"]
    assigned = {s.target for s in all_stmts(alt.body) if isinstance(s, Assign)}
    assert assigned == {"acc", "wt"}
    _agree(fn, alt, [{"nv": 0, "dim": 0}, {"nv": 2, "dim": 0}, {"nv": 3, "dim": 4}, {"nv": 1, "dim": 1}])


def test_countdown_nest_lifts_and_agrees_with_the_compiled_c(tmp_path: Path) -> None:
    res = assert_lifts(COUNTDOWN, tmp_path)
    assert res.summary is not None
    assert "reduce_rows(tensor_tensor(transpose(matrix(in, nv, dim, dim)), take(w, nv), *))" in res.summary
    assert "reduce_sum(take(w, nv))" in res.summary


SIGNED_COUNT = """
    int f(const float *a, float *b, int n) {
      int p = 0;
      for (int i = 0; i < n; i++) { b[p] = a[i]; p++; }
      return p;
    }"""

LOADED_COUNT = """
    int f(const int *a, int *b) {
      int n = a[0];
      int p = 0;
      for (int i = 0; i < n; i++) { b[p] = a[i + 1]; p++; }
      return p;
    }"""


def test_an_induction_read_after_its_loop_leaves_it_with_its_trip_count() -> None:
    """``p`` stepped ``n`` times leaves the loop as ``0 + n`` under ``0 <= n`` (a
    parameter's bound: the precondition every loop kernel states), and as
    ``0 + max(n, 0)`` when the bound is a value read from an array (no precondition)."""
    fn = parse_c_source(SIGNED_COUNT, "k.c", "f")
    alt = counters_rebased(fn)
    assert alt is not None
    loop = next(s for s in alt.body if isinstance(s, For))
    assert not any("p" in expr_reads(e) for st in all_stmts(loop.body) for e in stmt_expressions(st))
    assert [why for _, _, why in alt.requires] == ["the loop at line 4 runs a non-negative number of times"]
    _agree(fn, alt, [{"n": 0}, {"n": 1}, {"n": 5}])
    fn = parse_c_source(LOADED_COUNT, "k.c", "f")
    alt = counters_rebased(fn)
    assert alt is not None and alt.requires == ()
    for n in (-3, 0, 2):
        inputs = {"a": np.array([n, 4, 5, 6, 7]), "b": np.zeros(5, dtype=int)}
        a, b = run_function(fn, inputs), run_function(alt, inputs)
        assert all(np.array_equal(np.asarray(a[key]), np.asarray(b[key])) for key in a), n


INTERLEAVE = """
    void f(int nx, const int *x, int ny, const int *y, int b, int *out) {
      int index = 0;
      for (int j = 0; j < b; ++j) {
        for (int i = 0; i < nx; ++i) out[index++] = x[j*nx + i];
        for (int i = 0; i < ny; ++i) out[index++] = y[j*ny + i];
      }
    }"""


def test_a_scalar_stepped_twice_per_iteration_is_one_induction() -> None:
    """``index`` stepped by both inner loops is an induction of the outer loop by ``nx + ny``
    (each inner loop's trip count under the precondition that it is not negative, which
    every loop kernel states): the second inner loop writes at ``(nx + ny)*j + nx + i``."""
    fn = parse_c_source(INTERLEAVE, "k.c", "f")
    alt = counters_rebased(fn)
    assert alt is not None
    assert not any(isinstance(s, Assign) and s.target == "index" for s in all_stmts(alt.body))
    assert {why for _, _, why in alt.requires} == {"the loop at line 5 runs a non-negative number of times",
                                                  "the loop at line 6 runs a non-negative number of times"}
    _agree(fn, alt, [{"nx": 0, "ny": 2, "b": 3}, {"nx": 2, "ny": 0, "b": 2}, {"nx": 3, "ny": 2, "b": 0},
                     {"nx": 1, "ny": 4, "b": 3}])


@pytest.mark.parametrize("src", [
    # the step reads a value the loop assigns: not an induction
    """void f(const int *a, int *b, int n) {
         int p = 0;
         for (int i = 0; i < n; i++) { int s = a[i] & 1; b[p] = a[i]; p = p + s; }
       }""",
    # stepped twice in the body
    """void f(const int *a, int *b, int n) {
         int p = 0;
         for (int i = 0; i < n; i++) { b[p] = a[i]; p = p + 1; if (a[i] > 0) p = p + 1; }
       }""",
])
def test_a_conditional_or_variable_step_is_left_alone(src: str) -> None:
    fn = parse_c_source(src, "k.c", "f")
    alt = counters_rebased(fn) or fn
    loop = next(s for s in alt.body if isinstance(s, For))
    assert any(isinstance(s, Assign) and s.target == "p" for s in all_stmts(loop.body))
    _agree(fn, alt, [{"n": -1}, {"n": 0}, {"n": 4}])


def test_an_index_stepped_after_it_is_set_is_read_as_its_new_value(tmp_path: Path) -> None:
    """``t = e - 1; t = t + 1; x[t] = y[t]`` three loops deep: the forwarded index is ``e``
    (``forward_index_temporaries`` does not forward the step ``t = t + 1`` itself)."""
    res = assert_lifts(KERNELS / "self_step_index.c", tmp_path)
    assert res.summary is not None and "flatten(tensor_scalar(matrix(y, B, (2 * N)), 2.0, *))" in res.summary
