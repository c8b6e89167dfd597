"""``switch`` statements (C11 §6.8.4.2) lowered to the ``if``/``else`` chain they mean
(``tenspiler/frontend/c_switch.py``), in helpers and in function bodies, and enum-typed
parameters (GCC's ``unsigned int``).

The kernels of ``tests/kernels/switch/`` lift, pass the translation validation against the
compiled C on adversarial inputs and re-check; the activation kernel is also compared with the
compiled C for every enumeration constant and for selectors outside the enumeration (the
``return 0`` after the switch). The lowering's semantics (labels sharing statements,
fall-through, ``default`` anywhere, ``break`` ending a block) is compared with the compiled C on
a scalar function; what is not lowered is refused by name."""

from __future__ import annotations

import ctypes
import importlib.util
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tenspiler.errors import BadInput
from tenspiler.frontend.c import parse_c_source
from tenspiler.loops.interp import run_function
from tests.lifting import assert_lifts

KERNELS = Path(__file__).resolve().parent / "kernels" / "switch"
CC = shutil.which("cc") or shutil.which("gcc")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler")


def _compiled(source: Path | str, tmp_path: Path, name: str = "k") -> ctypes.CDLL:
    src = source if isinstance(source, Path) else tmp_path / f"{name}.c"
    if not isinstance(source, Path):
        src.write_text(source)
    lib = tmp_path / f"lib{name}.so"
    subprocess.run([CC, "-O2", "-shared", "-fPIC", "-o", str(lib), str(src), "-lm"], check=True)
    return ctypes.CDLL(str(lib))


def _module(path: str) -> object:
    spec = importlib.util.spec_from_file_location(Path(path).stem, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize(
    "name",
    [
        "switch_act",  # a helper's switch over an enum-typed parameter, 'return 0' after it
        "switch_grad",  # a helper's switch with a default, on an int selector
        "switch_body",  # a switch in the loop body: fall-through, default
        "switch_narrow",  # switch on an unsigned char element; labels no unsigned char equals
    ],
)
def test_switch_kernel_lifts_and_checks(name: str, tmp_path: Path) -> None:
    assert_lifts(KERNELS / f"{name}.c", tmp_path, function=name)


@needs_cc
def test_switch_act_agrees_with_c_for_every_selector(tmp_path: Path) -> None:
    """Every enumeration constant of ``MODE`` (0..5), values beyond it (the ``return 0``
    after the switch) and the extremes of ``unsigned int``, on inputs around every threshold
    of the per-case helpers."""
    res = assert_lifts(KERNELS / "switch_act.c", tmp_path / "out", function="switch_act")
    mod = _module(res.outputs["numpy"])
    lib = _compiled(KERNELS / "switch_act.c", tmp_path)
    lib.switch_act.argtypes = [ctypes.POINTER(ctypes.c_float), ctypes.c_int, ctypes.c_uint]
    lib.switch_act.restype = None
    x = np.array([-1e4, -5.0, -4.0, -3.5, -1.0, -0.999, -0.5, -1e-3, 0.0, 1e-3, 0.5, 0.999, 1.0, 1.5, 4.0,
                  4.25, 80.0, 1e4], dtype=np.float32)
    for m in [0, 1, 2, 3, 4, 5, 6, 7, 100, 2**31 - 1, 2**31, 2**32 - 1]:
        want = x.copy()
        lib.switch_act(want.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), len(want), m)
        got = np.asarray(mod.switch_act(x, len(x), m), dtype=np.float32)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-30, err_msg=f"m = {m}")
        if m > 5:
            assert not want.any()  # outside the enumeration: 0


SCALAR = """
int f(int a)
{
    int y = 0;
    switch (a) {
        case 1:
        case 2:
            y = 1;
            break;
        case 3: {
            y = 2;
            break;
        }
        default:
            y = 5;
        case 4:
            y += 1;
        case -7:
            y = y * 3;
            break;
        case 9:
            y = 40;
            /* the last group: control leaves the switch */
    }
    switch (a) { }
    switch (a) {
        case 0:
            ;
    }
    return y;
}
"""


@needs_cc
def test_switch_semantics_agree_with_c(tmp_path: Path) -> None:
    fn = parse_c_source(SCALAR, "t.c", "f")
    lib = _compiled(SCALAR, tmp_path)
    lib.f.argtypes, lib.f.restype = [ctypes.c_int], ctypes.c_int
    for a in [-8, -7, -6, -1, 0, 1, 2, 3, 4, 5, 8, 9, 10, 2**31 - 1, -(2**31)]:
        assert run_function(fn, {"a": a})["return"] == lib.f(a), a


NESTED = """
int f(int a, int b)
{
    int y = 0;
    switch (a) {
        case 0:
            switch (b) {
                case 0: y = 1; break;
                case 1: y = 2;
                default: y += 3; break;
            }
            y += 10;
            break;
        case 1:
            y += b;
            /* falls through */
        case 2: {
            y -= 1;
        }
    }
    return y;
}
"""


@needs_cc
def test_nested_switch_breaks_are_its_own(tmp_path: Path) -> None:
    fn = parse_c_source(NESTED, "t.c", "f")
    lib = _compiled(NESTED, tmp_path)
    lib.f.argtypes, lib.f.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    for a in range(-1, 4):
        for b in range(-1, 4):
            assert run_function(fn, {"a": a, "b": b})["return"] == lib.f(a, b), (a, b)


@needs_cc
def test_switch_on_promoted_and_unsigned_selectors(tmp_path: Path) -> None:
    """Each label is converted to the promoted type of the controlling expression: a label
    that type holds is exact, whatever the label's own type (``-1`` against an ``unsigned``
    selector is UINT_MAX in both)."""
    src = """
    int f(unsigned int u, short s)
    {
        int y = 0;
        switch (u) { case 4294967295u: y = 1; break; case 7: y = 2; break; }
        switch (s) { case -1: y += 10; break; case 40000: y += 20; break; case 5L: y += 30; }
        return y;
    }
    """
    fn = parse_c_source(src, "t.c", "f")
    lib = _compiled(src, tmp_path)
    lib.f.argtypes, lib.f.restype = [ctypes.c_uint, ctypes.c_short], ctypes.c_int
    for u in [0, 7, 8, 2**32 - 1, 2**32 - 2]:
        for s in [-1, 5, 0, 32767, -32768]:
            assert run_function(fn, {"u": u, "s": s})["return"] == lib.f(u, s), (u, s)


def _refused(body: str, match: str, prelude: str = "") -> None:
    with pytest.raises(BadInput, match=match):
        parse_c_source(prelude + body, "t.c", "f")


@pytest.mark.parametrize(
    ("body", "match"),
    [
        # a break that does not end its case: conditional leaving of the switch
        ("int f(int a, int b) { int y = 0; switch (a) { case 1: if (b) break; y = 1; break; } return y; }",
         r"'break' of a switch that does not end its case"),
        # Duff's device: a case label inside a loop of the body
        ("void f(int *t, int *s, int n) { int k = (n + 1) / 2; switch (n % 2) { case 0: do { *t++ = *s++; "
         "case 1: *t++ = *s++; } while (--k > 0); } }",
         r"case label inside another statement of a switch"),
        # a declaration whose scope spans labels C may jump over
        ("int f(int a) { int y = 0; switch (a) { case 1: y = 3; int z; case 2: z = 4; y += z; } return y; }",
         r"declaration of 'z' directly in a switch body"),
        # the controlling expression is evaluated by each comparison: no side effects
        ("int f(int a) { int y = 0; switch (a++) { case 1: y = 1; } return y + a; }",
         r"switch on 'a\+\+', an expression with side effects"),
        ("int f(int a) { int y = 0; switch (a) { y = 7; case 1: y = 1; } return y; }",
         r"statement before the first case label"),
        # the label converted to the promoted type (unsigned int) is UINT_MAX, but 'u == -1L'
        # compares in long: refused
        ("int f(unsigned int u) { int y = 0; switch (u) { case -1L: y = 1; } return y; }",
         r"case label '-1L' \(-1\) is not a value of 'unsigned int'"),
        # an int selector and a long label beyond int: C converts it (to 0 on GCC)
        ("int f(int a) { int y = 0; switch (a) { case 4294967296L: y = 1; } return y; }",
         r"case label '4294967296L' \(4294967296\) is not a value of 'int'"),
        # a label the frontend does not evaluate
        ("int f(int a) { int y = 0; switch (a) { case 1 << 2: y = 1; } return y; }",
         r"case label '1 << 2' is not an integer constant expression the frontend evaluates"),
        # 'continue' ends its group (what follows is dead); inside the chain it is inside an if
        ("void f(int *y, const int *x, int n) { for (int i = 0; i < n; i++) { int r = x[i]; "
         "switch (r) { case 1: continue; case 2: r = 5; } y[i] = r; } }",
         r"continue statement inside if is not supported"),
        # switch on a non-integer: the compiler's own error
        ("int f(float a) { int y = 0; switch (a) { case 1: y = 1; } return y; }", r"integer"),
    ],
)
def test_switch_refused_by_name(body: str, match: str) -> None:
    _refused(body, match)


def test_refused_switch_in_a_function_not_called_stops_nothing() -> None:
    src = """
    int other(int a) { int y = 0; switch (a) { case 1: if (a) break; y = 1; } return y; }
    int f(int a) { int y = 0; switch (a) { case 1: y = 2; break; } return y; }
    """
    fn = parse_c_source(src, "t.c", "f")
    assert run_function(fn, {"a": 1})["return"] == 2 and run_function(fn, {"a": 0})["return"] == 0


def test_switch_in_helper_returns_per_case_value() -> None:
    src = """
    typedef enum { P, Q, R } K;
    static float h(float x, K k) { switch (k) { case P: return x; case Q: return 2 * x; default: break; } return -1; }
    float f(float x, K k) { return h(x, k); }
    """
    fn = parse_c_source(src, "t.c", "f")
    assert [run_function(fn, {"x": 3.0, "k": k})["return"] for k in (0, 1, 2, 9)] == [3.0, 6.0, -1.0, -1.0]
    assert {p.name: p.c_type for p in fn.params}["k"] == "unsigned int"  # GCC's type for K


def test_enum_parameter_with_a_negative_constant_is_int() -> None:
    src = "typedef enum { NEG = -1, ZERO } S; int f(S s) { return s == NEG; }"
    fn = parse_c_source(src, "t.c", "f")
    assert {p.name: p.c_type for p in fn.params}["s"] == ""  # int
    assert run_function(fn, {"s": -1})["return"] == 1


def _darknet() -> Path | None:
    import os

    root = Path(os.environ.get("TENSPILER_CORPORA", Path.home() / ".cache" / "tenspiler-corpora"))
    d = root / "realcode" / "darknet"
    return d if (d / "src" / "activations.c").exists() else None


@needs_cc
@pytest.mark.skipif(_darknet() is None, reason="the real-code corpus (darknet) is absent")
def test_darknet_gradient_array_agrees_with_c_for_every_selector(tmp_path: Path) -> None:
    """darknet's ``gradient_array`` (unedited, with its build's include paths): ``gradient(x,
    a)`` is a switch over the 14 ``ACTIVATION`` constants and ``return 0`` after it. The verified
    NumPy agrees with the compiled file for every constant, for selectors beyond the enumeration
    and for the extremes of ``unsigned int``."""
    from tenspiler.frontend.flags import CompileFlags

    d = _darknet()
    assert d is not None
    src = d / "src" / "activations.c"
    flags = CompileFlags((f"-I{d / 'include'}", f"-I{d / 'src'}"))
    res = assert_lifts(src, tmp_path / "out", function="gradient_array", flags=flags)
    mod = _module(res.outputs["numpy"])
    lib = tmp_path / "libact.so"
    subprocess.run([CC, "-O2", "-shared", "-fPIC", f"-I{d / 'include'}", f"-I{d / 'src'}", "-o", str(lib), str(src),
                    "-lm"], check=True)
    f = ctypes.CDLL(str(lib)).gradient_array
    f.argtypes = [ctypes.POINTER(ctypes.c_float), ctypes.c_int, ctypes.c_uint, ctypes.POINTER(ctypes.c_float)]
    x = np.array([-1e4, -5, -4, -1.5, -1, -0.999, -0.5, -1e-3, 0, 1e-3, 0.5, 0.999, 1, 1.5, 2, 3.25, 4, 4.5, 1e4],
                 dtype=np.float32)
    delta = np.linspace(-3, 5, len(x)).astype(np.float32)
    for a in [*range(16), 100, 2**31 - 1, 2**31, 2**32 - 1]:
        want = delta.copy()
        f(x.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), len(x), a, want.ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
        got = np.asarray(mod.gradient_array(x, len(x), a, delta), dtype=np.float32)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-30, err_msg=f"a = {a}")
