"""tenspiler.loops.interchange (a nest whose inner loop runs over the elements it updates,
moved inside out) and block outputs (rows of a matrix stored with a leading dimension,
written in part: ``C[i*ldc + j]`` for ``j < N <= ldc``): the rewritten loop IR computes
exactly what the source does (interpreter, floats bit for bit), ineligible nests are left
alone, and GEMM in the orders and storage of shipped BLAS-like code lifts and agrees with
the compiled C (``--check``), its precondition ``N <= ldc`` checked by the generated code."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tenspiler.frontend.c import parse_c_file, parse_c_source
from tenspiler.loops.interchange import interchanged
from tenspiler.loops.interp import run_function
from tenspiler.loops.ir import For
from tenspiler.pipeline import lift_file
from tests.lifting import assert_lifts

KERNELS = Path(__file__).parent / "kernels" / "blocks"


def _same_run(fn, alt, inputs) -> None:  # type: ignore[no-untyped-def]
    a, b = run_function(fn, inputs), run_function(alt, inputs)
    assert a.keys() == b.keys()
    for key in a:
        assert np.array_equal(np.asarray(a[key]), np.asarray(b[key])), key  # bit for bit


def test_an_ikj_nest_becomes_ijk() -> None:
    fn = parse_c_file(KERNELS / "gemm_ld_ikj.c")
    alt = interchanged(fn)
    assert alt is not None
    (outer,) = [s for s in alt.body if isinstance(s, For)]
    middle = outer.body[0]
    assert isinstance(middle, For) and middle.var == "j"
    assert isinstance(middle.body[0], For) and middle.body[0].var == "k"


@pytest.mark.parametrize("seed", range(4))
def test_interchange_computes_what_the_source_does_bit_for_bit(seed: int) -> None:
    """Float accumulation: each element sees the same additions in the same order."""
    fn = parse_c_file(KERNELS / "gemm_ld_ikj.c")
    alt = interchanged(fn)
    assert alt is not None
    rng = np.random.default_rng(seed)
    for m, n, k, ld in ((0, 2, 3, 3), (2, 0, 3, 3), (2, 3, 0, 4), (3, 2, 4, 5), (1, 1, 1, 1)):
        inputs = {"M": m, "N": n, "K": k, "alpha": float(rng.normal()),
                  "A": rng.normal(size=m * ld + k + 1) * 1e3, "lda": ld,
                  "B": rng.normal(size=k * ld + n + 1) * 1e-3, "ldb": ld,
                  "C": rng.normal(size=m * ld + n + 1), "ldc": ld}
        _same_run(fn, alt, inputs)


NOT_ELIGIBLE = {
    "a dependence of distance (1, -1)": """
        void f(int K, int N, const int *x, int *y) {
          for (int k = 0; k < K; k++) { int t = x[k]; for (int j = 0; j < N; j++) y[j + k] += t; }
        }""",
    "a triangular domain": """
        void f(int K, const int *x, int *y) {
          for (int k = 0; k < K; k++) { for (int j = 0; j < k; j++) y[j] += x[k]; }
        }""",
    "a hoisted value reads the updated array": """
        void f(int K, int N, int *y) {
          for (int k = 0; k < K; k++) { int t = y[k]; for (int j = 0; j < N; j++) y[j] += t; }
        }""",
    "a hoisted value read after the nest": """
        int f(int K, int N, const int *x, int *y) {
          int t = 0;
          for (int k = 0; k < K; k++) { t = x[k]; for (int j = 0; j < N; j++) y[j] += t; }
          return t;
        }""",
    "a counter read after the nest": """
        int f(int K, int N, const int *x, int *y) {
          int j = 0;
          for (int k = 0; k < K; k++) { for (j = 0; j < N; j++) y[j] += x[k]; }
          return j;
        }""",
    "a hoisted value reads the inner counter (red team: its value before the nest, then N)": """
        void f(int K, int N, const int *A, const int *B, int *C) {
          int j = 0;
          for (int k = 0; k < K; k++) { int t = A[k + j]; for (j = 0; j < N; j++) C[j] += t * B[j]; }
        }""",
    "a hoisted value reads a scalar the inner loop assigns": """
        void f(int K, int N, const float *A, float *C) {
          float u = 0;
          for (int k = 0; k < K; k++) { float t = u + A[k]; for (int j = 0; j < N; j++) { u = A[j]; C[j] += t * u; } }
        }""",
    "a hoisted division (it would move)": """
        void f(int K, int N, const int *x, int d, int *y) {
          for (int k = 0; k < K; k++) { int t = x[k] / d; for (int j = 0; j < N; j++) y[j] += t; }
        }""",
    "a scalar carried across the inner loop's iterations": """
        void f(int K, int N, const int *x, int *y) {
          int u = 0;
          for (int k = 0; k < K; k++) { for (int j = 0; j < N; j++) { u = u + x[k]; y[j] += u; } }
        }""",
    "the updated element read at another index": """
        void f(int K, int N, const int *x, int *y) {
          for (int k = 0; k < K; k++) { for (int j = 0; j < N; j++) y[j] += y[j + 1] * x[k]; }
        }""",
}


@pytest.mark.parametrize("why", sorted(NOT_ELIGIBLE))
def test_ineligible_nests_are_left_alone(why: str) -> None:
    fn = parse_c_source(NOT_ELIGIBLE[why], "k.c", "f")
    assert interchanged(fn) is None, why


@pytest.mark.parametrize("name", ["gemm_ld_ikj.c", "gemm_ld_ijk_tt.c", "vecmat_kj.c", "gemm_vla_ikj.c"])
def test_blas_like_gemm_lifts_and_agrees_with_the_compiled_c(name: str, tmp_path: Path) -> None:
    res = assert_lifts(KERNELS / name, tmp_path)
    assert res.summary is not None
    if name.startswith("gemm_ld"):
        # a block of rows: C's rows of ldc elements, N of each written
        assert res.summary.startswith("C[0:(M * ldc)].rows(ldc)[:, :N] = ")
        assert "N <= ldc" in "\n".join(res.assumptions)


def test_the_block_output_checks_its_precondition_and_leaves_the_rest(tmp_path: Path) -> None:
    res = lift_file(KERNELS / "gemm_ld_ikj.c", ("numpy",), out_dir=tmp_path)
    assert res.status == "verified", res.message
    ns: dict[str, object] = {}
    exec(compile(res.code["numpy"], "gemm_ld_ikj", "exec"), ns)
    f = ns["gemm_ld_ikj"]
    rng = np.random.default_rng(0)
    m, n, k, ld = 3, 2, 4, 5
    a = rng.normal(size=m * ld).astype(np.float32)
    b = rng.normal(size=k * ld).astype(np.float32)
    c = rng.normal(size=(m - 1) * ld + n).astype(np.float32)  # the last row ends at its block
    out = f(m, n, k, np.float32(0.5), a, ld, b, ld, c, ld)  # type: ignore[operator]
    want = c.astype(np.float64).copy()
    for i in range(m):
        for j in range(n):
            want[i * ld + j] += sum(0.5 * a[i * ld + q] * b[q * ld + j] for q in range(k))
    assert np.allclose(out, want, rtol=1e-5)
    assert out[2] == c[2] and out[ld + 4] == c[ld + 4]  # columns past N keep their values
    with pytest.raises(ValueError, match="N <= ldc"):
        f(m, 3, k, np.float32(1), a, 2, b, ld, c, 2)  # type: ignore[operator]


@pytest.mark.parametrize("backend", ["tensorflow", "mlx", "gemmini"])
def test_backends_without_a_scatter_decline_the_block_output_by_name(backend: str, tmp_path: Path) -> None:
    res = lift_file(KERNELS / "gemm_ld_ijk_tt.c", (backend,), out_dir=tmp_path)
    assert res.status == "not_lifted"
    assert "has no rule for the strided output" in res.message


@pytest.mark.parametrize(("name", "reason"), [
    ("gemm_ikj_skewed.c", "not k*N + j + constant"),
    ("gemm_ld_rows_overlap.c", "only whole rows"),
])
def test_nests_that_are_not_blocks_of_rows_are_refused(name: str, reason: str, tmp_path: Path) -> None:
    res = lift_file(KERNELS / name, ("numpy",), out_dir=tmp_path)
    assert res.status == "not_lifted"
    assert reason in res.message


def test_a_two_deep_nest_over_a_block_lifts_as_rows(tmp_path: Path) -> None:
    """The nest shape takes whole rows only; the block analysis takes the rest (its rows as
    one-loop kernels)."""
    res = assert_lifts(KERNELS / "scale_ld.c", tmp_path)
    assert res.summary == "C[0:(M * ldc)].rows(ldc)[:, :N] = tensor_scalar(matrix(C, M, N, ldc), beta, *)"


def test_a_block_written_twice_and_paths_through_helpers_with_loops(tmp_path: Path) -> None:
    """A scaling nest, then an ``if`` whose branches call helpers holding loops: the function
    splits into paths (the helpers' loops count), and each path's second loop reads the
    block the first wrote (its value, composed)."""
    res = assert_lifts(KERNELS / "gemm_ld_beta_paths.c", tmp_path)
    assert res.summary is not None and "tensor_scalar(matrix(C, M, N, ldc), beta, *)" in res.summary
