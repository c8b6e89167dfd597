"""Tests of the loop-IR interpreter (tenspiler.loops.interp).

Expected numbers are computed by hand; a differential test runs the corpus kernels compiled
by the system C compiler (via ctypes) against the interpreter.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tenspiler.bench.corpora import HOW_TO_GET, corpus_dir
from tenspiler.errors import LiftError
from tenspiler.frontend.c import parse_c_file, parse_c_source
from tenspiler.ir.semantics import UndefinedBehaviour
from tenspiler.loops.interp import run_function
from tenspiler.loops.ir import DType, Function, PointerType, ScalarType

CORPUS = corpus_dir("c2taco")


def kernel(rel: str) -> Function:
    path = CORPUS / rel
    if not path.is_file():
        pytest.skip(f"corpus file {path} not found: {HOW_TO_GET}")
    return parse_c_file(path)


# ---------------------------------------------------------------- hand-computed results


def test_vadd() -> None:
    a, b, c = np.array([1, 2, 3]), np.array([10, -20, 30]), np.zeros(3, dtype=np.int64)
    out = run_function(kernel("dsp/vadd.c"), {"a": a, "b": b, "c": c, "n": 3})
    assert out["return"] is None
    np.testing.assert_array_equal(out["c"], [11, -18, 33])
    np.testing.assert_array_equal(out["a"], [1, 2, 3])
    assert out["c"].dtype == np.int64  # type: ignore[attr-defined]
    np.testing.assert_array_equal(c, [0, 0, 0])  # inputs are not mutated
    assert out["c"] is not c


def test_dot() -> None:
    out = run_function(kernel("blas/dot.c"), {"a": [1, 2, 3], "b": [4, 5, 6], "n": 3})
    assert out["return"] == 32
    out = run_function(kernel("blas/dot.c"), {"a": [1, 2, 3], "b": [4, 5, 6], "n": 0})
    assert out["return"] == 0


def test_vrecip_truncates_toward_zero() -> None:
    out = run_function(kernel("dsp/vrecip.c"), {"arr": [1, -3, 2, -1, 5], "n": 5})
    np.testing.assert_array_equal(out["arr"], [1, 0, 0, -1, 0])


def test_vrecip_division_by_zero_is_undefined() -> None:
    with pytest.raises(UndefinedBehaviour):
        run_function(kernel("dsp/vrecip.c"), {"arr": [1, 0], "n": 2})


def test_diveq_c_division() -> None:
    out = run_function(kernel("mathfu/diveq.c"), {"a": [7, -7, 7, -7], "b": [-2, 2, 2, -2], "n": 4})
    np.testing.assert_array_equal(out["a"], [-3, -3, 3, 3])


def test_remainder_sign_follows_dividend() -> None:
    fn = parse_c_source("void f(int *a, int d, int n) { for (int i = 0; i < n; i++) a[i] %= d; }")
    out = run_function(fn, {"a": [-7, 7, -8], "d": 2, "n": 3})
    np.testing.assert_array_equal(out["a"], [-1, 1, 0])


def test_fourth_in_place() -> None:
    out = run_function(kernel("simpl_array/fourth_in_place.c"), {"arr": [2, -3, 0], "n": 3})
    np.testing.assert_array_equal(out["arr"], [16, 81, 0])


def test_lmsfir2_stops_at_ntaps_minus_one() -> None:
    inputs = {
        "NTAPS": 4,
        "input": [1, 2, 3, 4],
        "output": [0, 0, 0, 0],
        "expected": [0, 0, 0, 0],
        "coefficient": [10, 10, 10, 10],
        "gain": 9,
        "sum": 9,
        "error": 2,
    }
    out = run_function(kernel("utdsp/lmsfir2.c"), inputs)
    np.testing.assert_array_equal(out["coefficient"], [12, 14, 16, 10])


def test_gemv_nested() -> None:
    inputs = {"M": 2, "N": 3, "A": [1, 2, 3, 4, 5, 6], "x": [1, 0, -1], "y": [0, 0]}
    out = run_function(kernel("blas/gemv.c"), inputs)
    np.testing.assert_array_equal(out["y"], [-2, -2])


def test_uint8_store_wraps() -> None:
    src = "void f(unsigned char *a, int n) { for (int i = 0; i < n; i++) a[i] = 200 + 100; }"
    out = run_function(parse_c_source(src), {"a": np.zeros(2, dtype=np.uint8), "n": 2})
    np.testing.assert_array_equal(out["a"], [44, 44])
    assert out["a"].dtype == np.int64  # type: ignore[attr-defined]


def test_uint8_arithmetic_is_promoted() -> None:
    src = (
        "int f(uint8_t *a, uint8_t *b, int n) {\n"
        "  int s = 0;\n"
        "  for (int i = 0; i < n; i++) { b[i] = a[i] - 10; s += a[i] - 10; }\n"
        "  return s;\n"
        "}\n"
    )
    out = run_function(parse_c_source(src), {"a": [5, 255], "b": [0, 0], "n": 2})
    np.testing.assert_array_equal(out["b"], [251, 245])
    assert out["return"] == -5 + 245


def test_float_kernel_and_cast_truncation() -> None:
    src = (
        "int f(float *a, double *d, int n) {\n"
        "  float s = 0;\n"
        "  for (int i = 0; i < n; i++) { s += a[i] * 0.5f; d[i] = d[i] / 4; }\n"
        "  return (int)(-s);\n"
        "}\n"
    )
    out = run_function(parse_c_source(src), {"a": [1.0, 2.0, 2.5], "d": [1, 2, 3], "n": 3})
    assert out["return"] == -2  # -(0.5 + 1 + 1.25) = -2.75 truncates to -2
    np.testing.assert_array_equal(out["a"], [1.0, 2.0, 2.5])
    np.testing.assert_array_equal(out["d"], [0.25, 0.5, 0.75])
    assert out["d"].dtype == np.float64  # type: ignore[attr-defined]


def test_counter_after_loop_is_max_of_start_and_stop() -> None:
    fn = parse_c_source("int f(int n) { int i; for (i = 2; i < n; i++) ; return i; }")
    assert run_function(fn, {"n": 5})["return"] == 5
    assert run_function(fn, {"n": -5})["return"] == 2


def test_helper_inlining_runs() -> None:
    src = "static int sq(int v) { return v * v; }\nint f(int x) { return sq(x + 1) - sq(x); }\n"
    assert run_function(parse_c_source(src), {"x": 10})["return"] == 21


def test_int_is_unbounded() -> None:
    fn = parse_c_source("int f(int x) { return x * x * x; }")
    assert run_function(fn, {"x": 2**40})["return"] == 2**120


# ---------------------------------------------------------------- errors


def test_out_of_bounds_names_array_and_index() -> None:
    with pytest.raises(IndexError, match=r"index 2 out of bounds for array 'b' of length 2"):
        run_function(kernel("dsp/vadd.c"), {"a": [1, 2, 3], "b": [1, 2], "c": [0, 0, 0], "n": 3})
    fn = parse_c_source("int f(int *a, int k) { return a[k]; }")
    with pytest.raises(IndexError, match="index -1"):
        run_function(fn, {"a": [1, 2], "k": -1})


def test_step_limit() -> None:
    with pytest.raises(RuntimeError, match="step limit of 100"):
        run_function(
            kernel("dsp/vadd.c"),
            {"a": [0] * 200, "b": [0] * 200, "c": [0] * 200, "n": 200},
            max_steps=100,
        )


@pytest.mark.parametrize(
    ("inputs", "match"),
    [
        ({"a": [1], "n": 1}, "missing"),
        ({"a": [1], "b": [1], "c": [1], "n": 1, "zz": 0}, "unknown"),
        ({"a": [1], "b": [1], "c": [1], "n": 1.5}, "integral"),
        ({"a": [[1]], "b": [1], "c": [1], "n": 1}, "1-D"),
        ({"a": ["x"], "b": [1], "c": [1], "n": 1}, "number"),
    ],
)
def test_bad_inputs(inputs: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        run_function(kernel("dsp/vadd.c"), inputs)


def test_uint8_input_range_checked() -> None:
    fn = parse_c_source("int f(uint8_t *a) { return a[0]; }")
    with pytest.raises(ValueError, match=r"\[0, 255\]"):
        run_function(fn, {"a": [256]})


@pytest.mark.parametrize("arr", [np.array([256, 0]), np.array([-1]), np.array([1.5]), np.array([True]), np.array([np.nan])])
def test_array_input_errors_name_the_element(arr: np.ndarray) -> None:
    """Whole-array conversion refuses what the element-by-element one refuses."""
    from tenspiler.loops.interp import _array_input

    elem = DType.UINT8 if arr.dtype.kind in "iu" else DType.INT
    with pytest.raises(ValueError, match=r"input 'a\[0\]'|input 'a\[1\]'"):
        _array_input("a", arr[::-1] if arr.size > 1 else arr, elem)


@given(st.lists(st.integers(-(2**62), 2**62), max_size=20), st.sampled_from(["int64", "int32", "uint8", "float32", "float64"]),
       st.sampled_from([DType.INT, DType.FLOAT, DType.DOUBLE, DType.UINT8]))
def test_array_input_fast_path_is_the_element_conversion(values: list[int], dtype: str, elem: DType) -> None:
    """The whole-array conversion gives exactly the Python numbers (and types) the
    element-by-element conversion gives, or the same error."""
    from tenspiler.loops.interp import _array_input, _scalar_input

    arr = np.array(values, dtype=np.int64)
    arr = (arr % 256).astype(dtype) if dtype == "uint8" else arr.astype(dtype)
    try:
        want: list[object] | str = [_scalar_input(f"a[{k}]", x, elem) for k, x in enumerate(arr.tolist())]
    except ValueError as e:
        want = str(e)
    try:
        got: list[object] | str = _array_input("a", arr, elem)
    except ValueError as e:
        got = str(e)
    assert got == want
    if isinstance(got, list) and isinstance(want, list):
        assert [type(x) for x in got] == [type(x) for x in want]


# ---------------------------------------------------------------- properties

small_ints = st.integers(min_value=-(2**40), max_value=2**40)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(small_ints, small_ints), max_size=20))
def test_vadd_matches_numpy(pairs: list[tuple[int, int]]) -> None:
    path = CORPUS / "dsp" / "vadd.c"
    if not path.is_file():
        pytest.skip("corpus not found")
    fn = parse_c_file(path)
    a = np.array([p[0] for p in pairs], dtype=np.int64)
    b = np.array([p[1] for p in pairs], dtype=np.int64)
    c = np.zeros(len(pairs), dtype=np.int64)
    out = run_function(fn, {"a": a, "b": b, "c": c, "n": len(pairs)})
    np.testing.assert_array_equal(out["c"], a + b)


# ---------------------------------------------------------------- differential: C compiler

#: Extra kernels compiled next to the corpus (uint8 wrap-around, doubles, helpers, casts).
EXTRA_C = """\
#include <stdint.h>
void u8_add(uint8_t *a, uint8_t *b, int n) {
  for (int i = 0; i < n; ++i) { a[i] += b[i] * 3 + 200; }
}
static int clampish(int v, int k) { int t = v * k; return t - v / 3; }
int helper_sum(int *a, int k, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += clampish(a[i], k);
  return s;
}
double ddot(double *a, double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * b[i] / 2;
  return s;
}
void casts(int *a, double *d, int n) {
  for (int i = 0; i < n; i++) { a[i] = (int)(d[i] * 1.5) % 7; d[i] = a[i] - d[i]; }
}
/* pointer walking: *p++ += k */
void ptr_addk(int *a, int k, int n) {
  int *p = a;
  for (int i = 0; i < n; i++) *p++ += k;
}
/* p += 2 strides and p[1] */
void ptr_stride(int *a, int *out, int n) {
  int *p = &a[0], *q = out;
  for (int i = 0; i < n; i++) { *q++ = p[0] * 3 - p[1]; p += 2; }
}
/* pointers reset inside an outer loop */
int ptr_reset(int *a, int *b, int n) {
  int s = 0;
  int *pa, *pb;
  for (int i = 0; i < n; i++) {
    pa = a + i;
    pb = &b[0];
    for (int j = 0; j < n; j++) s += *pa++ * *pb++;
    *pb = s;
  }
  return s;
}
/* walking parameters */
void ptr_params(float *x, float *y, int n) {
  for (int i = 0; i < n; i++) { *y++ = *x * 2.0f + x[1]; x++; }
}
/* pre-increment and decrement, uint8 */
void ptr_pre(uint8_t *a, uint8_t *b, int n) {
  uint8_t *p = a, *q = b + n;
  for (int i = 0; i < n; i++) *++p = *--q + 7;
  *p-- += 1;
  *p += 2;
}
/* conditionals: ?:, comparisons, &&/||/!, if-conversion */
void cond_darken(uint8_t *a, uint8_t *b, uint8_t *out, int n) {
  for (int i = 0; i < n; i++) out[i] = a[i] > b[i] ? b[i] : a[i];
}
void cond_clamp(int *x, int *out, int lo, int hi, int n) {
  for (int i = 0; i < n; i++) {
    if (x[i] < lo) out[i] = lo;
    else if (x[i] > hi) out[i] = hi;
    else out[i] = x[i];
  }
}
int cond_max(int *x, int n) {
  int m = x[0];
  for (int i = 1; i < n; i++) {
    if (x[i] > m) m = x[i];
  }
  return m;
}
void cond_relu(float *x, float *out, int n) {
  for (int i = 0; i < n; i++) {
    out[i] = x[i] > 0.0f ? x[i] : 0.0f;
    if (x[i] < 0) x[i] = 0;
  }
}
void cond_safediv(int *a, int *b, int *out, int n) {
  for (int i = 0; i < n; i++) {
    out[i] = b[i] != 0 ? a[i] / b[i] : a[i];
    if (b[i]) a[i] %= b[i]; else a[i] = -1;
  }
}
int cond_rows(int *A, int *out, int t, int m, int n) {
  int cnt = 0;
  for (int i = 0; i < m; i++) {
    int best = A[i * n];
    for (int j = 0; j < n; j++) {
      if (A[i * n + j] > best) best = A[i * n + j];
      if ((A[i * n + j] > 0 && A[i * n + j] < t) || !A[i * n + j]) { cnt++; }
      else if (A[i * n + j] < -t) cnt -= 2;
    }
    out[i] = best;
  }
  return cnt;
}
static int imax(int a, int b) { return a > b ? a : b; }
int cond_sign_sum(int *a, double *d, int n) {
  int s = 0;
  int r;
  if (n > 3) r = 1; else if (n > 1) r = 2; else r = 3;
  for (int i = 0; i < n; i++) {
    s += (a[i] > 0) - (a[i] < 0) + imax(a[i], r);
    if (d[i]) { double h = d[i] / 2; if (h < 0.75 || h >= 2) d[i] = h; } else d[i] = r;
  }
  return s * r;
}
"""

#: The conditional kernels of EXTRA_C.
COND_NAMES = (
    "cond_darken",
    "cond_clamp",
    "cond_max",
    "cond_relu",
    "cond_safediv",
    "cond_rows",
    "cond_sign_sum",
)

#: Kernels of EXTRA_C run differentially.
EXTRA_NAMES = (
    "u8_add",
    "helper_sum",
    "ddot",
    "casts",
    "ptr_addk",
    "ptr_stride",
    "ptr_reset",
    "ptr_params",
    "ptr_pre",
    *COND_NAMES,
)

#: Scalar params get values in [1, SCALAR_MAX] and arrays LENGTH elements, enough for every
#: kernel's indexing (matrix kernels index up to m*n-1).
SCALAR_MAX = 5
LENGTH = SCALAR_MAX * SCALAR_MAX

_C_ELEM: dict[DType, Any] = {
    DType.INT: ctypes.c_int,
    DType.UINT8: ctypes.c_ubyte,
    DType.FLOAT: ctypes.c_float,
    DType.DOUBLE: ctypes.c_double,
}


def test_the_differential_interpreter_checks_cover_the_c2taco_corpus() -> None:
    """The compiled-C comparisons below run the C2TACO kernels too when the corpus is there
    (else only this file's own kernels): say so instead of shrinking silently."""
    if not CORPUS.is_dir():
        pytest.skip(f"the C2TACO corpus is not at {CORPUS}: {HOW_TO_GET}")
    assert len(_accepted_corpus()) >= 40


def _accepted_corpus() -> list[Path]:
    out = []
    for path in sorted(CORPUS.rglob("*.c")) if CORPUS.is_dir() else []:
        try:
            parse_c_file(path)
        except LiftError:
            continue
        out.append(path)
    return out


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> tuple[ctypes.CDLL, dict[str, Function]]:
    cc = shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler (cc) on PATH")
    tmp = tmp_path_factory.mktemp("cc")
    extra = tmp / "extra.c"
    extra.write_text(EXTRA_C)
    sources = [*_accepted_corpus(), extra]
    lib = tmp / "kernels.so"
    cmd = [cc, "-O2", "-shared", "-fPIC", "-ffp-contract=off", "-o", str(lib), *map(str, sources)]
    subprocess.run(cmd, check=True, capture_output=True)
    fns = {fn.name: fn for fn in map(parse_c_file, sources[:-1])}
    for name in EXTRA_NAMES:
        fns[name] = parse_c_source(EXTRA_C, str(extra), name)
    return ctypes.CDLL(str(lib)), fns


def _call_c(lib: ctypes.CDLL, fn: Function, inputs: dict[str, object]) -> dict[str, object]:
    args: list[Any] = []
    buffers: dict[str, Any] = {}
    for p in fn.params:
        match p.type:
            case PointerType(elem=elem):
                values: list[Any] = list(inputs[p.name])  # type: ignore[call-overload]
                buf = (_C_ELEM[elem] * len(values))(*values)
                buffers[p.name] = buf
                args.append(buf)
            case ScalarType(dtype=dtype):
                args.append(_C_ELEM[dtype](inputs[p.name]))
    cfun = getattr(lib, fn.name)
    cfun.restype = None if fn.return_dtype is None else _C_ELEM[fn.return_dtype]
    ret = cfun(*args)
    out: dict[str, object] = {"return": ret}
    out.update({name: list(buf) for name, buf in buffers.items()})
    return out


@st.composite
def kernel_inputs(draw: st.DrawFn, fn: Function) -> dict[str, object]:
    inputs: dict[str, object] = {}
    for p in fn.params:
        match p.type:
            case PointerType(elem=DType.UINT8):
                inputs[p.name] = draw(
                    st.lists(st.integers(0, 255), min_size=LENGTH, max_size=LENGTH)
                )
            case PointerType(elem=DType.INT):
                nonzero = st.integers(-50, 50).filter(lambda v: v != 0)
                inputs[p.name] = draw(st.lists(nonzero, min_size=LENGTH, max_size=LENGTH))
            case PointerType(elem=_):
                halves = st.integers(-40, 40).map(lambda v: v / 2)
                inputs[p.name] = draw(st.lists(halves, min_size=LENGTH, max_size=LENGTH))
            case ScalarType(dtype=_):
                inputs[p.name] = draw(st.integers(1, SCALAR_MAX))
    return inputs


def _differential_names() -> list[str]:
    # struct kernels take their structs by value: test_struct_kernels_match_c builds them
    corpus = [fn.name for fn in map(parse_c_file, _accepted_corpus()) if not fn.structs]
    return [*corpus, *EXTRA_NAMES]


def _assert_matches_c(lib: ctypes.CDLL, fn: Function, inputs: dict[str, object]) -> None:
    """The interpreter's final state equals the compiled C's on ``inputs``."""
    expected = _call_c(lib, fn, inputs)
    got = run_function(fn, inputs)
    assert got["return"] == expected["return"]
    for p in fn.arrays:
        np.testing.assert_array_equal(got[p.name], expected[p.name], err_msg=p.name)


@pytest.mark.parametrize("name", _differential_names())
def test_interpreter_matches_c_compiler(
    compiled: tuple[ctypes.CDLL, dict[str, Function]], name: str
) -> None:
    lib, fns = compiled
    fn = fns[name]

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(kernel_inputs(fn))
    def check(inputs: dict[str, object]) -> None:
        _assert_matches_c(lib, fn, inputs)

    check()


# ---------------------------------------------------------------- struct parameters vs C

STRUCT_KERNELS = Path(__file__).resolve().parents[1] / "benchmarks" / "kernels" / "darknet"


@pytest.mark.parametrize("name", ["matrix_add_matrix.c", "scale_matrix.c"])
def test_struct_kernels_match_c(name: str, tmp_path: Path) -> None:
    """Struct-of-row-pointers kernels, called through tenspiler.check's wrapper (which
    builds the structs), against the interpreter on the flat view: row lengths
    ``m__vals__cols`` at least the columns the kernel reads, so C is defined (rows of any
    length, not only the one the proof assumes)."""
    if shutil.which("cc") is None:
        pytest.skip("no C compiler (cc) on PATH")
    from tenspiler.check import compile_c, run_c

    fn = parse_c_file(STRUCT_KERNELS / name)
    lib = compile_c(fn, tmp_path)

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.data())
    def check(data: st.DataObject) -> None:
        rows, cols = data.draw(st.integers(0, 4)), data.draw(st.integers(0, 4))
        inputs: dict[str, object] = {}
        for sp in fn.structs:
            for f in sp.fields:
                if f.cols is None:
                    inputs[f.param] = data.draw(st.sampled_from([rows, cols]))
                    continue
                stride = cols + data.draw(st.integers(0, 2))
                inputs[f.cols] = stride
                n = max(rows, 1) * stride
                inputs[f.param] = data.draw(st.lists(st.integers(-50, 50), min_size=n, max_size=n))
        # the bounds the kernel loops to: the first struct's rows and cols fields
        first = fn.structs[0].fields
        inputs[first[0].param], inputs[first[1].param] = rows, cols
        for p in fn.params:
            inputs.setdefault(p.name, data.draw(st.integers(-5, 5)))
        expected = run_c(lib, fn, inputs)
        got = run_function(fn, inputs)
        for p in fn.arrays:
            np.testing.assert_array_equal(got[p.name], expected[p.name], err_msg=p.name)

    check()

    bad = {p.name: ([0] * 8 if isinstance(p.type, PointerType) else 2) for p in fn.params}
    bad[fn.structs[0].fields[2].cols or ""] = 1  # rows of 1 element, 2 columns read
    with pytest.raises(IndexError, match="index 1 into a row"):
        run_function(fn, bad)


# ---------------------------------------------------------------- pointer walking vs C

int_values = st.integers(-1000, 1000)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 12).flatmap(lambda n: st.tuples(st.just(n), st.lists(int_values, min_size=4 * n, max_size=4 * n))))
def test_n_real_updates_matches_c(
    compiled: tuple[ctypes.CDLL, dict[str, Function]], case: tuple[int, list[int]]
) -> None:
    lib, fns = compiled
    fn = fns.get("n_real_updates") or pytest.skip("dspstone/n_real_updates.c not in corpus")
    n, values = case
    inputs: dict[str, object] = {"N": n}
    for k, name in enumerate("ABCD"):
        inputs[name] = values[k * n : (k + 1) * n] or [0]  # C never touches a length-0 buffer
    expected = _call_c(lib, fn, inputs)
    got = run_function(fn, inputs)
    for name in "ABCD":
        np.testing.assert_array_equal(got[name], expected[name], err_msg=name)
    a, b, c = (np.array(inputs[x], dtype=np.int64)[:n] for x in "ABC")
    np.testing.assert_array_equal(got["D"][:n], c + a * b)  # type: ignore[index]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 8).flatmap(lambda n: st.tuples(st.just(n), st.lists(int_values, min_size=n * n + 2 * n, max_size=n * n + 2 * n))))
def test_mat1x3_matches_c(
    compiled: tuple[ctypes.CDLL, dict[str, Function]], case: tuple[int, list[int]]
) -> None:
    lib, fns = compiled
    fn = fns.get("mat1x3") or pytest.skip("dspstone/mat1x3.c not in corpus")
    n, values = case
    h, x, y = values[: n * n], values[n * n : n * n + n], values[n * n + n :]
    inputs: dict[str, object] = {"N": n, "h": h or [0], "x": x or [0], "y": y or [0]}
    expected = _call_c(lib, fn, inputs)
    got = run_function(fn, inputs)
    for name in ("h", "x", "y"):
        np.testing.assert_array_equal(got[name], expected[name], err_msg=name)
    if n:
        matrix = np.array(h, dtype=np.int64).reshape(n, n)
        np.testing.assert_array_equal(got["y"], matrix @ np.array(x, dtype=np.int64))


def test_pointer_kernels_by_hand() -> None:
    src = EXTRA_C.replace("#include <stdint.h>\n", "")
    out = run_function(parse_c_source(src, function="ptr_addk"), {"a": [1, 2, 3], "k": 10, "n": 2})
    np.testing.assert_array_equal(out["a"], [11, 12, 3])
    out = run_function(
        parse_c_source(src, function="ptr_stride"), {"a": [1, 2, 3, 4, 5], "out": [0, 0], "n": 2}
    )
    np.testing.assert_array_equal(out["out"], [1 * 3 - 2, 3 * 3 - 4])
    inputs = {"a": [0, 0, 0, 0], "b": [9, 8, 7], "n": 3}
    out = run_function(parse_c_source(src, function="ptr_pre"), inputs)
    # a[1..3] = b[2..0] + 7; then a[3] += 1 and (p walked back after that statement) a[2] += 2
    np.testing.assert_array_equal(out["a"], [0, 14, 15 + 2, 16 + 1])


# ---------------------------------------------------------------- conditionals vs C


@st.composite
def zero_rich_inputs(draw: st.DrawFn, fn: Function) -> dict[str, object]:
    """Small values with many zeros and ties, so every branch (and every division guard)
    is exercised; scalars may be 0 or negative too."""
    inputs: dict[str, object] = {}
    for p in fn.params:
        match p.type:
            case PointerType(elem=DType.UINT8):
                values = st.sampled_from([0, 1, 2, 127, 128, 254, 255]) | st.integers(0, 255)
                inputs[p.name] = draw(st.lists(values, min_size=LENGTH, max_size=LENGTH))
            case PointerType(elem=DType.INT):
                inputs[p.name] = draw(
                    st.lists(st.integers(-4, 4), min_size=LENGTH, max_size=LENGTH)
                )
            case PointerType(elem=_):
                halves = st.integers(-8, 8).map(lambda v: v / 2)
                inputs[p.name] = draw(st.lists(halves, min_size=LENGTH, max_size=LENGTH))
            case ScalarType(dtype=_):
                inputs[p.name] = draw(st.integers(-1, SCALAR_MAX))
    if "n" in inputs:
        inputs["n"] = draw(st.integers(1, SCALAR_MAX))  # cond_max reads x[0]
    return inputs


@pytest.mark.parametrize("name", COND_NAMES)
def test_conditionals_match_c_on_zero_rich_inputs(
    compiled: tuple[ctypes.CDLL, dict[str, Function]], name: str
) -> None:
    lib, fns = compiled
    fn = fns[name]

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(zero_rich_inputs(fn))
    def check(inputs: dict[str, object]) -> None:
        _assert_matches_c(lib, fn, inputs)

    check()


def cond_kernel(name: str) -> Function:
    return parse_c_source(EXTRA_C.replace("#include <stdint.h>\n", ""), function=name)


def test_conditional_kernels_by_hand() -> None:
    out = run_function(
        cond_kernel("cond_darken"), {"a": [10, 200, 7], "b": [20, 100, 7], "out": [0, 0, 0], "n": 3}
    )
    np.testing.assert_array_equal(out["out"], [10, 100, 7])
    inputs = {"x": [-5, 0, 3, 9], "out": [0] * 4, "lo": 0, "hi": 4, "n": 4}
    out = run_function(cond_kernel("cond_clamp"), inputs)
    np.testing.assert_array_equal(out["out"], [0, 0, 3, 4])
    assert run_function(cond_kernel("cond_max"), {"x": [3, -1, 8, 8, 2], "n": 5})["return"] == 8
    assert run_function(cond_kernel("cond_max"), {"x": [-3], "n": 1})["return"] == -3
    out = run_function(cond_kernel("cond_relu"), {"x": [-1.5, 0.0, 2.5], "out": [9.0] * 3, "n": 3})
    np.testing.assert_array_equal(out["out"], [0.0, 0.0, 2.5])
    np.testing.assert_array_equal(out["x"], [0.0, 0.0, 2.5])
    inputs = {"a": [7, 7, -7], "b": [2, 0, 2], "out": [0, 0, 0], "n": 3}
    out = run_function(cond_kernel("cond_safediv"), inputs)  # b[1] == 0: no division
    np.testing.assert_array_equal(out["out"], [3, 7, -3])
    np.testing.assert_array_equal(out["a"], [1, -1, -1])


def test_select_evaluates_only_the_chosen_branch() -> None:
    fn = parse_c_source("int f(int a, int b) { return b != 0 ? a / b : a % b * 0 - 1; }")
    with pytest.raises(UndefinedBehaviour):
        run_function(fn, {"a": 7, "b": 0})  # the else branch does divide by zero
    assert run_function(fn, {"a": 7, "b": 2})["return"] == 3  # the else branch is not run
    fn = parse_c_source("int f(int a, int b) { return b == 0 ? 0 : a / b; }")
    assert run_function(fn, {"a": 7, "b": 0})["return"] == 0


def test_logical_operators_short_circuit() -> None:
    fn = parse_c_source("int f(int a, int b) { return b != 0 && a / b > 1; }")
    assert run_function(fn, {"a": 7, "b": 0})["return"] == 0
    assert run_function(fn, {"a": 7, "b": 3})["return"] == 1
    fn = parse_c_source("int f(int a, int b) { return !b || a % b == 1; }")
    assert run_function(fn, {"a": 7, "b": 0})["return"] == 1
    assert run_function(fn, {"a": 7, "b": 4})["return"] == 0


def test_if_conversion_runs_with_c_semantics() -> None:
    src = (
        "int f(int *a, int d, int n) {\n"
        "  int r;\n"
        "  if (d != 0) r = n / d; else r = -1;\n"  # r: assigned on both paths
        "  for (int i = 0; i < n; i++) { if (a[i] > r) { a[i] -= r + 1; if (!a[i]) a[i] = 100; } }\n"
        "  return r;\n"
        "}\n"
    )
    fn = parse_c_source(src)
    out = run_function(fn, {"a": [1, 5, 3, 0], "d": 0, "n": 4})  # no division by zero
    assert out["return"] == -1
    np.testing.assert_array_equal(out["a"], [1, 5, 3, 100])
    out = run_function(fn, {"a": [1, 5, 3, 0], "d": 2, "n": 4})
    assert out["return"] == 2
    np.testing.assert_array_equal(out["a"], [1, 2, 100, 0])


def test_comparisons_use_converted_operands() -> None:
    # -1 < 0.5 as double; uint8 255 > -1 after promotion to int; float equality
    src = "int f(uint8_t *u, float x) { return (-1 < 0.5) + (u[0] > -1) * 2 + (x == 0.25f) * 4; }"
    fn = parse_c_source(src)
    assert run_function(fn, {"u": [255], "x": 0.25})["return"] == 7
    assert run_function(fn, {"u": [0], "x": 0.5})["return"] == 3


def test_ill_typed_comparison_is_rejected() -> None:
    from tenspiler.loops.ir import Compare, Const, Return, Select
    from tenspiler.loops.ir import Function as Fn

    bad = Compare("<", Const(1, DType.INT), Const(2.0, DType.FLOAT))
    one, zero = Const(1, DType.INT), Const(0, DType.INT)
    fn = Fn("g", (), DType.INT, (), (Return(Select(bad, one, zero, DType.INT)),))
    with pytest.raises(TypeError, match="ill-typed IR: comparison of int with float"):
        run_function(fn, {})


def test_if_protecting_an_index() -> None:
    """An if-converted store ``a[I] = g ? E : a[I]`` with ``g`` false is not run (C does
    not run it), so an ``if`` protecting an index stays in bounds."""
    src = "void f(int *a, int n) { for (int i = 0; i < n; i++) if (i > 0) a[i - 1] = 0; }"
    out = run_function(parse_c_source(src), {"a": [1, 2, 3], "n": 3})
    np.testing.assert_array_equal(out["a"], [0, 0, 3])
    src = "void f(int *a, int n) { for (int i = 0; i < n; i++) if (i < n - 1) a[i + 1] += a[i]; }"
    out = run_function(parse_c_source(src), {"a": [1, 2, 3], "n": 3})
    np.testing.assert_array_equal(out["a"], [1, 3, 6])
