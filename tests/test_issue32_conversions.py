"""Regression tests of issue 32: conversions done as the source language does them.

Each kernel of ``tests/kernels/issue32/`` is lifted (the proof only: the point is what the
generated code computes on the inputs that exposed the bug, not whether the default check
happens to draw them) and every installed backend's code is run on those inputs against
the compiled C (``cc``) or the original Python function:

* an integer converted to ``float`` is rounded once (C11 §6.3.1.4p2): ``(float)`` of the
  ``long`` 2**53 + 2**29 + 1 is 2**53 + 2**30, through ``double`` it would be 2**53;
* Python's ``int / int`` is the exact quotient rounded once (PEP 238).

The translation validation's adversarial inputs now hold such values
(:func:`tenspiler.vc.concrete.rounding_boundaries`), and the semantics' conversion rounds
once too (:func:`tenspiler.ir.semantics.py_cast`).
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tenspiler.ir.semantics import np_cast, py_cast
from tenspiler.loops.ir import DType
from tenspiler.pipeline import lift_file
from tenspiler.vc.concrete import rounded_boundaries, rounding_boundaries

KERNELS = Path(__file__).resolve().parent / "kernels" / "issue32"
#: backend → module it needs
LIBRARIES = {"numpy": "numpy", "torch": "torch", "jax": "jax", "mlx": "mlx.core", "tensorflow": "tensorflow"}
INSTALLED = [b for b, m in LIBRARIES.items() if importlib.util.find_spec(m.split(".")[0]) is not None]
#: 2**53 + 2**29 + 1: above a float32 half-way point, rounded down onto it by float64
TWICE = 9007199791611905


def _lift(name: str) -> dict[str, str]:
    res = lift_file(KERNELS / name, tuple(INSTALLED), check=False)
    assert res.status == "verified", res.message
    return res.code


def _call(text: str, backend: str, entry: str, *args: Any) -> np.ndarray:
    ns: dict[str, Any] = {"__name__": f"issue32_{backend}"}
    exec(compile(text, f"<{backend}>", "exec"), ns)
    with np.errstate(all="ignore"):
        out = ns[entry](*args)
    if hasattr(out, "numpy"):  # tensorflow, torch
        out = out.numpy()
    return np.array(out)


def _c_reference(tmp_path: Path, source: Path, driver: str) -> list[str]:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler (cc)")
    main = tmp_path / "main.c"
    main.write_text(source.read_text() + "\n#include <stdio.h>\n" + driver)
    exe = tmp_path / "main"
    subprocess.run([cc, "-O2", "-o", str(exe), str(main)], check=True)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()


def test_semantics_convert_an_int_to_float_once() -> None:
    assert py_cast(TWICE, DType.FLOAT) == 2**53 + 2**30
    assert np_cast(np.array([TWICE]), DType.FLOAT).tolist() == [2**53 + 2**30]
    assert py_cast(TWICE, DType.DOUBLE) == float(TWICE)  # one rounding to float64
    for v in rounding_boundaries(-(2**63), 2**63 - 1):
        assert py_cast(v, DType.FLOAT) == float(np.float32(np.int64(v)))
    # beyond int64 (Python ints): the sticky-bit rounding agrees with exact rational rounding
    for v in (2**64 + 2**40 + 1, -(2**70 + 2**46 + 1), 3**60):
        f = py_cast(v, DType.FLOAT)
        lo, hi = np.nextafter(np.float32(f), np.float32(-np.inf)), np.nextafter(np.float32(f), np.float32(np.inf))
        assert abs(v - int(f)) <= min(abs(v - int(lo)), abs(v - int(hi)))


def test_adversarial_values_hold_the_boundaries() -> None:
    ints = rounding_boundaries(-(2**63), 2**63 - 1)
    assert {2**24 + 1, TWICE, -TWICE, 2**63 - 1, -(2**63)} <= set(ints)
    assert all(-(2**31) <= v < 2**31 for v in rounding_boundaries(-(2**31), 2**31 - 1))
    reals = rounded_boundaries()
    assert float(2**53 + 2**30) in reals  # (float)TWICE, what C compares with


@pytest.mark.parametrize("kernel", ["flag_gt_long.c", "sub_long.c"])
def test_long_to_float_rounds_once_on_every_backend(kernel: str, tmp_path: Path) -> None:
    code = _lift(kernel)
    name = kernel[:-2]
    score = np.array([2.0**53 + 2**30, 2.0**53, 2.0**53 + 2**31, 1.5], dtype=np.float32)
    out0 = np.zeros(4, dtype=np.int64 if name == "flag_gt_long" else np.float32)
    fmt = "%d" if name == "flag_gt_long" else "%.1f"
    ctype = "int" if name == "flag_gt_long" else "float"
    driver = (
        f"int main(void) {{ float s[4] = {{9007200328482816.0f, 9007199254740992.0f, 9007201402224640.0f, 1.5f}};"
        f" {ctype} o[4]; {name}(4, s, {TWICE}L, o);"
        f" for (int i = 0; i < 4; i++) printf(\"{fmt}\\n\", (double)o[i]); return 0; }}"
        if ctype == "float" else
        f"int main(void) {{ float s[4] = {{9007200328482816.0f, 9007199254740992.0f, 9007201402224640.0f, 1.5f}};"
        f" int o[4]; {name}(4, s, {TWICE}L, o);"
        f" for (int i = 0; i < 4; i++) printf(\"%d\\n\", o[i]); return 0; }}"
    )
    want = np.array([float(x) for x in _c_reference(tmp_path, KERNELS / kernel, driver)])
    for backend in INSTALLED:
        got = _call(code[backend], backend, name, 4, score, TWICE, out0).astype(np.float64)
        assert got.tolist() == want.tolist(), backend


@pytest.mark.parametrize(
    ("kernel", "args"),
    [
        ("ratio_gt.py", ([2**53 + 3, 2**53 + 1, 7, -(2**62) - 1], [2**53 + 2, 2**53, 3, 2**62 + 1])),
        ("mean_ratio.py", ([2**53 + 1, 2**62 + 2**10 + 1, -7, 10**18 + 1], [3, 7, 2, 3])),
    ],
)
def test_python_int_true_division_rounds_once(kernel: str, args: tuple[list[int], list[int]]) -> None:
    code = _lift(kernel)
    name = kernel[:-3]
    ns: dict[str, Any] = {}
    exec(compile((KERNELS / kernel).read_text(), kernel, "exec"), ns)
    want = ns[name](*args)
    for backend in INSTALLED:
        got = _call(code[backend], backend, name, *args)
        assert got.tolist() == want, backend


@given(st.lists(st.tuples(st.integers(-(2**63), 2**63 - 1), st.integers(-(2**63), 2**63 - 1).filter(bool)),
                min_size=1, max_size=8))
@settings(max_examples=200, deadline=None)
def test_runtime_int_true_divide_is_pythons(pairs: list[tuple[int, int]]) -> None:
    from tenspiler.codegen.runtime.numpy_runtime import _int_true_divide

    x, y = (np.array(v, dtype=np.int64) for v in zip(*pairs, strict=True))
    assert _int_true_divide(x, y).tolist() == [a / b for a, b in pairs]
    a, b = pairs[0]
    assert float(_int_true_divide(a, b)) == a / b  # Python ints, a 0-d result


def test_a_rounded_comparison_is_an_assumption() -> None:
    res = lift_file(KERNELS / "sum_above.c", ("numpy",), check=False)
    assert res.status == "verified", res.message
    assert any("comparison of floating-point values computed with rounding" in a for a in res.assumptions)
    # a long converted to float rounds too (the model's conversion is exact)
    converted = lift_file(KERNELS / "flag_gt_long.c", ("numpy",), check=False)
    assert any("comparison of floating-point" in a for a in converted.assumptions)


@pytest.mark.parametrize(
    "body",
    ["out[i] = (float)(double) a[i];", "dout[i] = (double)(float) d[i];", "dout[i] = (float) d[i] * 2.0;"],
)
def test_a_conversion_rounded_twice_is_refused(body: str) -> None:
    # the real-number model drops the intermediate conversion: (float)(double) of the long
    # 2**53 + 2**29 + 1 is 2**53 in C, the summary cast(a, float) would round once
    from tenspiler.errors import BadInput
    from tenspiler.frontend.c import parse_c_source

    src = ("void f(int n, long *a, double *d, float *out, double *dout) {\n"
           f"    for (int i = 0; i < n; i++) {body}\n}}\n")
    with pytest.raises(BadInput, match="rounded twice") as info:
        parse_c_source(src, "k.c")
    assert info.value.loc is not None and info.value.loc.line == 2
