"""Run-time strides: a read ``x[i*incx + d]`` whose stride is a loop-invariant run-time
integer (a parameter, or a local fixed before the loop) is the view ``strided(x, ..., incx)``
with a symbolic step, proved under the stated precondition ``0 <= incx`` (a negative stride
indexes before the pointer, which the model's arrays do not have) that the generated code
checks; a stride of 0 is a broadcast, modelled exactly. A write ``y[i*incy + c]`` is the
strided output ``y[lo:hi:incy]``, proved under ``incy >= 1`` (distinct elements written;
a stride of 0 would sum into one element), stated and checked the same way."""

from __future__ import annotations

import re
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


WRITES = ["saxpy.c", "strided_fill.c", "scale_copy.c"]


@pytest.mark.parametrize("name", WRITES)
def test_runtime_strided_writes_verify_check_and_recheck(name: str, tmp_path: Path) -> None:
    res = assert_lifts(KERNELS / name, tmp_path)
    assert res.summary is not None and re.search(r"\[[^\]]*:[^\]]*:[a-z]+\] = ", res.summary), res.summary
    assert any("is positive (the iterations write distinct elements)" in a for a in res.assumptions), res.assumptions


def test_strided_writes_on_every_python_backend_or_declined_by_name(tmp_path: Path) -> None:
    """NumPy, PyTorch and JAX write the strided range (checked against the compiled C);
    TensorFlow, MLX, TPC-C and Gemmini decline the summary by name."""
    res = lift_file(KERNELS / "saxpy.c", ("numpy", "torch", "jax", "tensorflow", "mlx", "tpc_c", "gemmini"),
                    out_dir=tmp_path, check=True)
    assert res.status == "verified", res.message
    assert res.check is not None and all(c["ok"] for c in res.check.values()), res.check
    assert set(res.declined) == {"tensorflow", "mlx", "tpc_c", "gemmini"}, res.declined
    assert all("has no rule for the strided output" in why for why in res.declined.values()), res.declined


def test_write_stride_zero_is_refused_at_run_time_and_inputs_respect_it() -> None:
    """A write stride of 0 makes every iteration write one element (axpy with incy = 0 sums
    into y[0]): outside the proof's precondition, so the generated code raises, and the
    checker's inputs never have it (read strides of 0 they do have)."""
    from tenspiler import lift

    k = analyze_kernel(parse_c_file(KERNELS / "saxpy.c"))
    exs = random_examples(k, np.random.default_rng(2), 80)
    assert min(ex.inputs["incy"] for ex in exs) >= 1 and 0 in {ex.inputs["incx"] for ex in exs}
    f = lift(KERNELS / "saxpy.c", to="numpy", check=False, cache=False).compile("numpy")
    fn = parse_c_file(KERNELS / "saxpy.c")
    x = np.array([1.5, -2.0, 3.0, 4.0, 0.5, 2.0, 1.0], np.float32)
    y = np.array([2.0, 1.0, -1.0, 0.25, 3.0, 1.0, 5.0], np.float32)
    for n, incx, incy in [(3, 0, 2), (4, 2, 1), (2, 1, 6), (0, 5, 9)]:
        want = run_function(fn, {"n": n, "a": 0.5, "x": x.astype(np.float64), "incx": incx,
                                 "y": y.astype(np.float64), "incy": incy})["y"]
        assert np.allclose(np.asarray(f(n, 0.5, x, incx, y, incy), np.float64), want)
    with pytest.raises(ValueError, match="run-time stride incy of the writes of y is positive"):
        f(3, 0.5, x, 1, y, 0)


@pytest.mark.parametrize(
    "mutation",
    [("x[i * inc] = v", "x[i * inc + 1] = v"), ("x[i * inc] = v", "x[i * 2] = v"), ("i < n", "i < n - 1")],
)
def test_strided_write_mutants_do_not_verify(mutation: tuple[str, str]) -> None:
    src = (KERNELS / "strided_fill.c").read_text()
    k = analyze_kernel(parse_c_source(src, "strided_fill.c"))
    res = synthesize(k)
    assert_mutant_not_verified(src, mutation, res.candidate, k.summary(res.candidate))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("y[i * incy] = y[i * incy + 1] + x[i];", "'y' is written at a stride and read at another index"),
        ("y[i * incy] = y[i] + x[i];", "'y' is written at a stride and read at another index"),
        ("{ y[i * incy] = x[i]; y[i * incy + 1] = a; }", "several offsets per iteration"),
        ("{ y[i * incy] = x[i]; y[i] = a; }", "several offsets per iteration"),
        ("y[i * i] = a;", "write to 'y' at an index that is not i + constant or stride*i + constant"),
    ],
)
def test_unsafe_strided_writes_are_refused_by_name(body: str, message: str, tmp_path: Path) -> None:
    src = f"void f(int n, float a, float *x, int incx, float *y, int incy) {{ for (int i = 0; i < n; i++) {body} }}\n"
    path = tmp_path / "f.c"
    path.write_text(src)
    res = lift_file(path, ("numpy",), out_dir=tmp_path / "out", check=False)
    assert res.status == "not_lifted" and message in res.message, res.message


def test_strided_writes_in_descending_loops_are_refused_by_name(tmp_path: Path) -> None:
    down = "void f(int n, float *y, int inc) { for (int i = n - 1; i >= 0; i--) y[i * inc] = 1.0f; }\n"
    path = tmp_path / "f.c"
    path.write_text(down)
    res = lift_file(path, ("numpy",), out_dir=tmp_path / "out", check=False)
    assert res.status == "not_lifted"
    assert "a descending loop writing 'y' at a stride is not supported yet" in res.message, res.message


def test_strided_writes_in_loop_phases(tmp_path: Path) -> None:
    """A later loop reading exactly the strided range an earlier one wrote (same start,
    stride and count) reads its value: a strided softmax-like normalisation lifts."""
    res = assert_lifts(KERNELS / "strided_normalize.c", tmp_path)
    assert res.summary is not None and res.summary.startswith("out[0:(stride * n):stride] = ")


@pytest.mark.parametrize(
    ("second", "message"),
    [
        ("y[i] = 1.0f;", "loop 2 writes 'y' contiguously, an earlier loop at a stride"),
        ("s += y[i];", "which an earlier loop wrote only in part"),
        ("y[i * inc] = y[i * inc] + y[i * inc + 1];", "'y' is written at a stride and read at another index"),
        ("y[2 * i * inc] = 1.0f;", "at another stride than an earlier loop"),
    ],
)
def test_unsafe_strided_loop_phases_are_refused_by_name(second: str, message: str, tmp_path: Path) -> None:
    src = ("float g(int n, const float *x, float *y, int inc) { float s = 0;\n"
           "  for (int i = 0; i < n; i++) y[i * inc] = x[i];\n"
           f"  for (int i = 0; i < n; i++) {second}\n  return s; }}\n")
    path = tmp_path / "g.c"
    path.write_text(src)
    res = lift_file(path, ("numpy",), out_dir=tmp_path / "out", check=False)
    assert res.status == "not_lifted" and message in res.message, res.message


def test_a_stride_the_loop_changes_is_not_a_runtime_stride(tmp_path: Path) -> None:
    src = "float f(int n, float *x, int inc) { float s = 0; for (int i = 0; i < n; i++) { s += x[i * inc]; inc = inc + 1; } return s; }\n"
    path = tmp_path / "g.c"
    path.write_text(src)
    res = lift_file(path, ("numpy",), out_dir=tmp_path / "out", check=False)
    assert res.status != "verified"


# ---------------------------------------------------------------- run-time loop steps

STEPS = ["group_sum.c", "step_copy.c"]


@pytest.mark.parametrize("name", STEPS)
def test_runtime_step_loops_verify_check_and_recheck(name: str, tmp_path: Path) -> None:
    res = assert_lifts(KERNELS / name, tmp_path)
    assert res.summary is not None and "strided(" in res.summary
    assert any("of the loop at line" in a and "is positive" in a for a in res.assumptions), res.assumptions


@pytest.mark.parametrize(("first", "bound", "step"), [(0, 7, 2), (1, 7, 3), (0, 7, 7), (0, 7, 10), (5, 3, 2), (0, 0, 1),
                                                      (2, 9, 1), (-3, 4, 4)])
def test_runtime_step_loop_visits_what_c_visits(first: int, bound: int, step: int) -> None:
    """The lowered loop (a counter over (b - a + s - 1) / s iterations, i = a + s*k) in the
    loop-IR interpreter, the proof's model, visits exactly the values C's loop does."""
    src = "int f(int *a, int lo, int n, int s) { int t = 0; for (int i = lo; i < n; i += s) t = t * 10 + i + 5; return t; }"
    fn = parse_c_source(src, "f.c")
    assert fn.requires and "is positive" in fn.requires[0][2]
    want = 0
    for v in range(first, bound, step):
        want = want * 10 + v + 5
    if first < bound or (bound - first + step - 1) // step >= 0:
        got = run_function(fn, {"a": np.zeros(1, dtype=np.int64), "lo": first, "n": bound, "s": step})["return"]
        assert got == want


def test_generated_code_refuses_a_step_below_one(tmp_path: Path) -> None:
    from tenspiler import lift

    f = lift(KERNELS / "group_sum.c", to="numpy", check=False, cache=False).compile("numpy")
    x = np.arange(9, dtype=np.float32)
    assert f(x, 9, 4) == pytest.approx(0 + 4 + 8)
    with pytest.raises(ValueError, match="the step 'gs' of the loop at line 8 is positive"):
        f(x, 9, 0)


@pytest.mark.parametrize(
    ("src", "message"),
    [
        ("float f(const float *x, int n, int s) { float t = 0; for (int i = 0; i < n; i += s) { t += x[i]; s = 2; } "
         "return t; }", "the step of this strided loop reads 's', which the loop body writes"),
        ("float f(const float *x, int n, int s) { float t = 0; int g = s + 1; for (int i = 0; i < n; i += g) t += x[i]; "
         "return t; }", "reads 'g', which is not a scalar parameter the function leaves unchanged"),
        ("float f(const float *x, int n, int s) { float t = 0; s = s * 2; for (int i = 0; i < n; i += s) t += x[i]; "
         "return t; }", "reads 's', which is not a scalar parameter the function leaves unchanged"),
    ],
)
def test_unsafe_runtime_steps_are_refused_by_name(src: str, message: str) -> None:
    from tenspiler.errors import LiftError

    with pytest.raises(LiftError, match=re.escape(message)):
        parse_c_source(src, "f.c")


def test_a_stride_read_from_an_array_is_not_a_runtime_stride(tmp_path: Path) -> None:
    """Only strides computed from scalar parameters are taken (their value is what the
    stated precondition is about); one loaded from an array before the loop is refused."""
    src = ("float f(int n, const float *x, const int *incs) { int s = incs[0]; float t = 0;\n"
           "  for (int i = 0; i < n; i++) t += x[i * s]; return t; }\n")
    path = tmp_path / "h.c"
    path.write_text(src)
    res = lift_file(path, ("numpy",), out_dir=tmp_path / "out", check=False)
    assert res.status == "not_lifted" and "read of 'x' at an index that is not i + constant" in res.message
