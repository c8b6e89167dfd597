"""tenspiler.loops.scalarize: an output element accumulated in place is kept in a scalar
(scalar replacement) when that is what makes a nest fit a kernel shape; the rewritten loop
IR computes what the source does (interpreter), and a nest lifts and agrees with the
compiled C (``--check``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tenspiler.frontend.c import parse_c_source
from tenspiler.loops.interp import run_function
from tenspiler.loops.ir import Assign, For, Store
from tenspiler.loops.scalarize import scalar_replaced
from tests.lifting import assert_lifts

KERNELS = Path(__file__).parent / "kernels" / "c_nests"

ROWSUM = """
void rowsum(const int *a, int n, int m, int *out) {
    for (int i = 0; i < n; i++) {
        out[i] = 1;
        for (int j = 0; j < m; j++)
            out[i] += a[i * m + j] * out[i];
        out[i] -= 3;
    }
}
"""


def _walk(stmts):  # type: ignore[no-untyped-def]
    for s in stmts:
        yield s
        if isinstance(s, For):
            yield from _walk(s.body)


def test_rewrite_keeps_the_element_in_a_scalar_and_stores_it_once() -> None:
    fn = parse_c_source(ROWSUM, "k.c", "rowsum")
    alt = scalar_replaced(fn)
    assert alt is not None
    stores = [s for s in _walk(alt.body) if isinstance(s, Store)]
    assert len(stores) == 1 and stores[0].array == "out"
    assert any(isinstance(s, Assign) and s.target.startswith("out__elem") for s in _walk(alt.body))


@pytest.mark.parametrize("seed", range(5))
def test_rewrite_computes_what_the_source_does(seed: int) -> None:
    fn = parse_c_source(ROWSUM, "k.c", "rowsum")
    alt = scalar_replaced(fn)
    assert alt is not None
    rng = np.random.default_rng(seed)
    for n, m in ((0, 3), (3, 0), (2, 4), (5, 1)):
        inputs = {"a": rng.integers(-3, 4, n * m + 1), "n": n, "m": m, "out": rng.integers(-9, 9, n + 1)}
        assert {k: np.asarray(v).tolist() for k, v in run_function(fn, inputs).items()} == {
            k: np.asarray(v).tolist() for k, v in run_function(alt, inputs).items()}


@pytest.mark.parametrize("src", [
    # another element of the array is read in the block
    "void f(int *o, int n) { for (int i = 1; i < n; i++) { o[i] = 0; for (int j = 0; j < n; j++) o[i] += o[i - 1]; } }",
    # the element's index changes inside the block
    "void f(int *o, int n) { int k = 0; for (int i = 0; i < n; i++) { o[k] = 0; for (int j = 0; j < n; j++) { o[k] += j; k = j; } } }",
    # no loop after the store: nothing to gain
    "void f(int *o, int n) { for (int i = 0; i < n; i++) { o[i] = 0; o[i] += i; } }",
    # a narrow element: its stores wrap
    "void f(unsigned char *o, int n) { for (int i = 0; i < n; i++) { o[i] = 0; for (int j = 0; j < n; j++) o[i] += j; } }",
])
def test_not_rewritten(src: str) -> None:
    assert scalar_replaced(parse_c_source(src, "k.c", "f")) is None


def test_a_nest_accumulating_into_its_output_lifts_and_agrees_with_c(tmp_path: Path) -> None:
    res = assert_lifts(KERNELS / "channel_mean.c", tmp_path)
    assert res.summary is not None and "reduce" in res.summary, res.summary
