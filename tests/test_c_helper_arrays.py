"""Helpers of shipped C (issue 34): value helpers with pointer parameters (the argument an array
parameter of the caller or a pointer into it; the helper reads its elements), and ``void``
helpers with early returns (``if (C) return; R`` as ``if (!C) { R }``).

The kernels of ``tests/kernels/helpers/`` lift, pass the translation validation against the
compiled C on adversarial inputs and re-check. Shapes the synthesis does not lift yet (an
accumulate guarded by the index, as ``col2im``'s helper; helpers reading and writing the same
array) are compared as loop IR — the proof's model — with the compiled C on adversarial
inputs. What would change the meaning is refused by name."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tenspiler.errors import BadInput
from tenspiler.frontend.c import parse_c_source
from tenspiler.loops.interp import run_function
from tests.lifting import assert_lifts

KERNELS = Path(__file__).resolve().parent / "kernels" / "helpers"
CC = shutil.which("cc") or shutil.which("gcc")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler")


@pytest.mark.parametrize(
    "name",
    [
        "helper_pixel",  # a value helper: im[k] when k - pad lies in [0, len), else 0
        "helper_clip_sum",  # a value helper reading a[k] and (w + 2)[k] under a bounds guard, summed
        "helper_add_guard",  # a void helper: 'if (val <= 0) return; acc[k] += val;' into acc + 1
    ],
)
def test_helper_kernel_lifts_and_checks(name: str, tmp_path: Path) -> None:
    assert_lifts(KERNELS / f"{name}.c", tmp_path, function=name)


def _c_function(src: str, name: str, tmp_path: Path) -> ctypes._CFuncPtr:
    (tmp_path / "k.c").write_text(src)
    lib = tmp_path / "libk.so"
    subprocess.run([CC, "-O2", "-shared", "-fPIC", "-o", str(lib), str(tmp_path / "k.c"), "-lm"], check=True)
    return getattr(ctypes.CDLL(str(lib)), name)


def _agree_on_float_arrays(src: str, tmp_path: Path, arrays: tuple[str, ...], ints: dict[str, list[int]],
                           order: list[str], length: int = 12) -> None:
    """The loop IR of ``f`` in ``src`` and the compiled ``f`` give the same arrays for float
    arrays ``arrays`` (each of ``length`` adversarial values) and every combination of the
    integer parameters' values ``ints``; ``order`` is the C parameter order."""
    fn = parse_c_source(src, "t.c", "f")
    cf = _c_function(src, "f", tmp_path)
    cf.argtypes = [ctypes.POINTER(ctypes.c_float) if p in arrays else ctypes.c_int for p in order]
    rng = np.random.default_rng(0)
    # values whose sums of a few are exact in float32 (the model computes over the reals)
    pool = np.array([-4096.0, -2.5, -1.0, -0.0, 0.0, 0.125, 0.5, 1.0, 3.0, 7.25, 4096.0], dtype=np.float32)
    import itertools

    for combo in itertools.product(*ints.values()):
        for _ in range(3):
            inputs = {a: rng.choice(pool, length).astype(np.float32) for a in arrays}
            inputs.update(dict(zip(ints, combo, strict=True)))
            model = run_function(fn, {k: (v.astype(np.float64) if isinstance(v, np.ndarray) else v)
                                      for k, v in inputs.items()})
            c_in = {a: inputs[a].copy() for a in arrays}
            cf(*[c_in[p].ctypes.data_as(ctypes.POINTER(ctypes.c_float)) if p in arrays else inputs[p] for p in order])
            for a in arrays:
                np.testing.assert_allclose(np.asarray(model[a], dtype=np.float32), c_in[a], rtol=1e-6,
                                           err_msg=f"{a} on {combo}")


COL2IM_SHAPED = """
void add_pixel(float *im, int height, int width, int row, int col, int pad, float val)
{
    row -= pad;
    col -= pad;
    if (row < 0 || col < 0 || row >= height || col >= width) return;
    im[col + width * row] += val;
}

void f(const float *cols, int h, int w, int pad, float *im)
{
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 4; ++c) {
            double val = cols[r * 4 + c];
            add_pixel(im, h, w, r, c, pad, val);
        }
    }
}
"""


@needs_cc
def test_void_helper_early_return_guards_the_rest(tmp_path: Path) -> None:
    """``if (out of bounds) return; im[index] += val;`` — a window of a 3x4 grid, shifted by
    ``pad``, accumulated into an h x w image (h * w <= 12): the loop IR agrees with the compiled C
    for pads and sizes that put the window partly, wholly and not at all inside."""
    _agree_on_float_arrays(COL2IM_SHAPED, tmp_path, ("cols", "im"),
                           {"h": [0, 1, 2, 3], "w": [1, 3, 4], "pad": [-2, 0, 1, 5]},
                           ["cols", "h", "w", "pad", "im"])


ALIASED = """
static void smooth(float *dst, const float *src, int n)
{
    for (int k = 0; k + 1 < n; ++k)
        dst[k] = src[k] + src[k + 1];
}

static float ahead(const float *p, int k, int n)
{
    if (k + 1 >= n) return 0;
    return p[k + 1];
}

void f(float *a, float *b, int n)
{
    smooth(a, a, n);
    for (int i = 0; i < n; ++i)
        b[i] = ahead(b, i, n) + ahead(a, i - 1, n);
}
"""


@needs_cc
def test_helpers_on_the_array_the_caller_writes(tmp_path: Path) -> None:
    """A void helper writing the array it also reads through another parameter (the same
    array), and a value helper reading the element after the one the caller's statement stores:
    the inlined code runs C's reads and writes in C's order."""
    _agree_on_float_arrays(ALIASED, tmp_path, ("a", "b"), {"n": [0, 1, 2, 5, 12]}, ["a", "b", "n"])


@pytest.mark.parametrize(
    ("src", "match"),
    [
        # the helper moves its pointer parameter
        ("static int g(int *a) { a++; return a[0]; }\nint f(int *a) { return g(a); }",
         r"helper 'g' changes its pointer parameter 'a'"),
        # a value helper writing through its pointer parameter
        ("static int g(int *p, int k) { p[k] = 0; return 1; }\nint f(int *a, int n) { int s = 0; "
         "for (int i = 0; i < n; i++) s += g(a, i); return s; }",
         r"assignment to 'p\[k\]' in a helper function is not supported"),
        # elements of another C type (the pointer would step in other units)
        ("static float g(float *p) { return p[0]; }\nvoid f(float *y, long *a) { y[0] = g(a); }",
         r"passing 'a' \(elements 'long'\) to parameter 'p' of 'g' \(elements 'float'\)"),
        # a void helper reading a pointer argument that moves with the scalar it updates
        ("static void g(float *p, int *k) { p[*k] = 1; *k = *k + 1; }\nvoid f(float *a, int n) { int k = 0; "
         "for (int i = 0; i < n; i++) g(a + k, &k); }",
         r"passing '&k' to 'g' is not supported \(another argument reads 'k'\)"),
        # an early return that does not end its branch of the void helper
        ("static void g(float *p, int k) { if (k > 2) { if (k > 4) return; p[k] = 1; } p[0] += 1; }\n"
         "void f(float *a, int n) { for (int i = 0; i < n; i++) g(a, i); }",
         r"return statement inside if is not supported"),
    ],
)
def test_helper_refused_by_name(src: str, match: str) -> None:
    with pytest.raises(BadInput, match=match):
        parse_c_source(src, "t.c", "f")
