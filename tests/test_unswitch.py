"""tenspiler.loops.unswitch: a select inside a loop on a condition of the parameters is
decided once, one path per value. The unswitched function computes what the source does (the
interpreter runs the path whose condition holds), a chain of
selects (a switch) becomes a chain of paths, and a condition that reads an array, a value the
function changes or that could trap is not unswitched."""

from __future__ import annotations

import numpy as np
import pytest

from tenspiler.frontend.c import parse_c_source
from tenspiler.loops.interp import run_function
from tenspiler.loops.ir import path_leaves
from tenspiler.loops.unswitch import unswitched

SWITCH = """
    float act(float v, int a) {
      switch (a) {
        case 0: return v;
        case 1: return v > 0 ? v : 0.1f * v;
        case 2: return 2.0f * v + 1.0f;
      }
      return 0;
    }
    void f(float *x, int n, int a) {
      for (int i = 0; i < n; i++) x[i] = act(x[i], a);
    }"""


def test_a_switch_on_a_parameter_becomes_a_chain_of_paths() -> None:
    fn = parse_c_source(SWITCH, "k.c", "f")
    alt = unswitched(fn)
    assert alt is not None
    leaves = path_leaves(alt)
    assert len(leaves) == 4  # three cases and the default
    # each path states its condition as a precondition
    assert all(any(why.startswith("the path condition") for _, _, why in leaf.requires) for _, leaf in leaves)
    rng = np.random.default_rng(0)
    for a in (-1, 0, 1, 2, 3):
        for n in (0, 1, 5):
            inputs = {"x": rng.normal(size=6), "n": n, "a": a}
            want, got = run_function(fn, dict(inputs)), run_function(alt, dict(inputs))  # (the path that holds)
            assert np.array_equal(np.asarray(want["x"]), np.asarray(got["x"])), (a, n)


@pytest.mark.parametrize("src", [
    # reads an array element
    "void f(float *x, const int *m, int n) { for (int i = 0; i < n; i++) x[i] = m[0] > 0 ? x[i] : 0; }",
    # the parameter changes in the function
    "void f(float *x, int n, int a) { a = a + 1; for (int i = 0; i < n; i++) x[i] = a > 0 ? x[i] : 0; }",
    # could trap (a division by a parameter)
    "void f(float *x, int n, int a, int d) { for (int i = 0; i < n; i++) x[i] = a / d > 0 ? x[i] : 0; }",
    # depends on the loop
    "void f(float *x, int n, int a) { for (int i = 0; i < n; i++) x[i] = i > a ? x[i] : 0; }",
])
def test_conditions_that_are_not_fixed_parameters_are_not_unswitched(src: str) -> None:
    assert unswitched(parse_c_source(src, "k.c", "f")) is None
