"""Run-time strides: a read ``x[i*incx + d]`` whose stride is a loop-invariant run-time
integer (a parameter, or a local fixed before the loop) is the view ``strided(x, ..., incx)``
with a symbolic step, proved under the stated precondition ``0 <= incx`` (a negative stride
indexes before the pointer, which the model's arrays do not have) that the generated code
checks; a stride of 0 is a broadcast, modelled exactly. Strided writes are refused by name."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tenspiler.frontend.c import parse_c_file, parse_c_source
from tenspiler.loops.interp import run_function
from tenspiler.loops.ir import Binary, Const, DType, Var
from tenspiler.pipeline import lift_file
from tenspiler.synth.search import synthesize
from tenspiler.vc.analyze import analyze_kernel
from tenspiler.vc.concrete import random_examples
from tenspiler.vc.symexec import runtime_stride_of
from tests.lifting import assert_lifts, assert_mutant_not_verified

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "tests" / "kernels" / "runtime_strides"
INT = DType.INT

READS = ["sdot.c", "gather_scale.c", "int_stride_sum.c"]


@pytest.mark.parametrize("name", READS)
def test_runtime_strided_reads_verify_check_and_recheck(name: str, tmp_path: Path) -> None:
    res = assert_lifts(KERNELS / name, tmp_path)
    assert res.summary is not None and "strided(" in res.summary
    assert any("run-time stride" in a and "non-negative" in a for a in res.assumptions), res.assumptions


def test_runtime_stride_of() -> None:
    i, inc = Var("i", INT), Var("inc", INT)
    invariant = {"inc", "n"}.__contains__
    assert runtime_stride_of(Binary("*", i, inc, INT), "i", invariant) == (inc, 0)
    assert runtime_stride_of(Binary("+", Binary("*", inc, i, INT), Const(3, INT), INT), "i", invariant) == (inc, 3)
    assert runtime_stride_of(Binary("*", i, Var("m", INT), INT), "i", invariant) is None  # m moves in the loop
    assert runtime_stride_of(Binary("*", i, Const(2, INT), INT), "i", invariant) is None  # a constant stride
    assert runtime_stride_of(Binary("*", i, i, INT), "i", invariant) is None
    assert runtime_stride_of(Binary("+", Binary("*", i, inc, INT), Var("n", INT), INT), "i", invariant) is None


def test_inputs_exercise_stride_zero_and_respect_the_precondition() -> None:
    """The checker's inputs come from the kernel's admitted domain: strides 0 (a broadcast
    read) and positive ones, never a negative one."""
    k = analyze_kernel(parse_c_file(KERNELS / "sdot.c"))
    exs = random_examples(k, np.random.default_rng(1), 80)
    strides = {ex.inputs["incx"] for ex in exs} | {ex.inputs["incy"] for ex in exs}
    assert 0 in strides and min(strides) >= 0 and max(strides) >= 2


def test_generated_code_on_stride_zero_and_negative(tmp_path: Path) -> None:
    from tenspiler import lift

    f = lift(KERNELS / "sdot.c", to="numpy", check=False, cache=False).compile("numpy")
    fn = parse_c_file(KERNELS / "sdot.c")
    x = np.array([1.5, -2.0, 3.0, 4.0, 0.5, 2.0], np.float32)
    y = np.array([2.0, 1.0, -1.0, 0.25, 3.0, 1.0], np.float32)
    for n, incx, incy in [(3, 0, 2), (4, 1, 0), (2, 5, 1), (0, 0, 0)]:
        want = run_function(fn, {"n": n, "x": x.astype(np.float64), "incx": incx, "y": y.astype(np.float64),
                                 "incy": incy})["return"]
        assert f(n, x, incx, y, incy) == pytest.approx(want)
    with pytest.raises(ValueError, match="run-time stride incx of the reads of x is non-negative"):
        f(2, x, -1, y, 1)


def test_a_swapped_stride_mutant_does_not_verify() -> None:
    src = (KERNELS / "sdot.c").read_text()
    k = analyze_kernel(parse_c_source(src, "sdot.c"))
    res = synthesize(k)
    assert_mutant_not_verified(src, ("x[i * incx]", "x[i * incy]"), res.candidate, k.summary(res.candidate))
    assert_mutant_not_verified(src, ("x[i * incx]", "x[i * incx + 1]"), res.candidate, k.summary(res.candidate))


@pytest.mark.parametrize(
    ("body", "array"),
    [
        ("y[i * incy] += a * x[i * incx];", "y"),  # axpy: INCY = 0 accumulates into y[0]
        ("y[i * incy] = x[i];", "y"),
        ("y[2 * i] = x[i * incx];", "y"),
    ],
)
def test_strided_writes_are_refused_by_name(body: str, array: str, tmp_path: Path) -> None:
    src = f"void f(int n, float a, float *x, int incx, float *y, int incy) {{ for (int i = 0; i < n; i++) {body} }}\n"
    path = tmp_path / "f.c"
    path.write_text(src)
    res = lift_file(path, ("numpy",), out_dir=tmp_path / "out", check=False)
    assert res.status == "not_lifted"
    assert f"write to '{array}' at the strided index" in res.message and "not supported yet" in res.message


def test_a_stride_the_loop_changes_is_not_a_runtime_stride(tmp_path: Path) -> None:
    src = "float f(int n, float *x, int inc) { float s = 0; for (int i = 0; i < n; i++) { s += x[i * inc]; inc = inc + 1; } return s; }\n"
    path = tmp_path / "g.c"
    path.write_text(src)
    res = lift_file(path, ("numpy",), out_dir=tmp_path / "out", check=False)
    assert res.status != "verified"
