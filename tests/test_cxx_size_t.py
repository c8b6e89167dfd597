"""C++ ``v.size()`` is a ``size_t`` (issue 32): the type gate (``frontend/c_types.py``) types
it ``unsigned long`` with the range ``[0, MAX_VECTOR_SIZE]``, so unsigned arithmetic on sizes
that can wrap is refused by name, while the exact idioms stay accepted: an ascending int
counter compared with a size, a size converted to int, size arithmetic converted to int at
once whose mathematical value fits, a float divided by a size.

The accepted kernels (``tests/kernels/issue32/size_t/``) verify with the differential check, and
the generated NumPy agrees with g++ on sizes where the unsigned expressions wrap."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tenspiler.errors import LiftError
from tenspiler.frontend import c_types
from tenspiler.frontend.c import parse_c_source
from tenspiler.pipeline import lift_file

KERNELS = Path(__file__).parent / "kernels" / "issue32" / "size_t"
CXX = shutil.which("g++") or shutil.which("c++")
needs_cxx = pytest.mark.skipif(CXX is None, reason="no C++ compiler")

HEAD = "#include <vector>\nusing namespace std;\n"
WRAPS = "unsigned arithmetic '-' in 'unsigned long' (wraps modulo 2^64, C11 §6.2.5p9) is not supported"


def _refused(body: str) -> LiftError:
    with pytest.raises(LiftError) as e:
        parse_c_source(HEAD + body, "k.cc", cxx=True)
    return e.value


# ------------------------------------------------------------------ the red team's kernels


@pytest.mark.parametrize(("body", "at"), [
    # C++: out[0] = v[0] + s * (0 - 1) computed in size_t: 1.8e19 (the tool's model said -1)
    ("vector<float> f(vector<float> v, float s){ vector<float> out; for (int i = 0; i < v.size(); i++) "
     "out.push_back(v[i] + s*(i - v.size()/256)); return out; }", "i - v.size()/256"),
    ("vector<float> f(vector<float> v, float s){ vector<float> out; for (int i = 0; i < v.size(); i++) "
     "out.push_back(v[i] + s*(i - v.size()/2)); return out; }", "i - v.size()/2"),
    # v.size() - 2 wraps for sizes 0 and 1: the comparison is then false
    ("vector<float> f(vector<float> v, float s){ vector<float> out; for (int i = 0; i < v.size(); i++) "
     "out.push_back(i < v.size()-2 ? v[i] : s); return out; }", "v.size()-2"),
    ("vector<float> f(vector<float> a, vector<float> b){ vector<float> out; for (int i = 0; i < a.size(); i++) "
     "out.push_back(a[i] * (a.size()-b.size())); return out; }", "a.size()-b.size()"),
], ids=["i-size/256", "i-size/2", "cond-size-2", "size-size-float"])
def test_wrapping_size_arithmetic_is_refused_by_name(body: str, at: str) -> None:
    err = _refused(body)
    assert err.message == WRAPS
    # at the subtraction that may wrap
    assert (err.loc.file, err.loc.line, err.loc.col) == ("k.cc", 3, body.index(at) + 1)


@pytest.mark.parametrize(("body", "message"), [
    # a loop bound that wraps for an empty vector
    ("float f(vector<float> v){ float s = 0; for (int i = 0; i < v.size() - 1; i++) s += v[i]; return s; }",
     WRAPS),
    # a descending counter: nothing says it is non-negative where it is compared
    ("float f(vector<float> v, int n){ float s = 0; for (int i = n; i > 0; i--) if (i < v.size()) s += v[i]; "
     "return s; }", "comparison '<' in 'unsigned long'"),
    # a counter the body assigns
    ("float f(vector<float> v, int n){ float s = 0; for (int i = 0; i < n; i++) { i = i - 2; "
     "if (i < v.size()) s += v[0]; } return s; }", "comparison '<' in 'unsigned long'"),
    # a negative local converted to size_t
    ("float f(vector<float> v){ int j = -1; float s = 0; if (j < v.size()) s = v[0]; return s; }",
     "comparison '<' in 'unsigned long'"),
    # a product of sizes does not fit int
    ("int f(vector<float> a, vector<float> b){ int n = a.size() * b.size(); return n; }",
     "initialisation: conversion from 'unsigned long' to 'int' may change the value"),
    # an int minus a size does not fit int
    ("int f(vector<int> a){ int n = a[0] - a.size(); return n; }", WRAPS),
    # a wrapping difference converted to float (push_back into a vector<float>)
    ("vector<float> f(vector<float> v){ vector<float> out; for (int i = 0; i < v.size(); i++) "
     "out.push_back(v.size() - 1); return out; }", WRAPS),
    # a wrapping difference divided
    ("int f(vector<float> v){ int h = (v.size() - 3) / 2; return h; }", WRAPS),
    # a wrapping difference used as an index
    ("float f(vector<float> v){ return v[v.size() - 1]; }", WRAPS),
    # compound assignment with a size: the int wraps through unsigned long
    ("int f(vector<float> v, int x){ x -= v.size(); return x; }", WRAPS),
], ids=["bound-size-1", "descending", "assigned-counter", "negative-local", "size*size", "int-size",
        "float-push_back", "divided", "index", "compound"])
def test_other_size_t_hazards_are_refused(body: str, message: str) -> None:
    assert message in _refused(body).message


@pytest.mark.parametrize("body", [
    "float f(vector<float> v){ float s = 0; for (int i = 0; i < v.size(); i++) s += v[i]; return s / v.size(); }",
    "float f(vector<vector<float>> m){ float s = 0; for (int r = 0; r < m.size(); r++) "
    "for (int c = 0; c < m[0].size(); c++) s += m[r][c]; return s; }",
    "float f(vector<float> v){ float s = 0; for (int i = 2; i <= v.size(); i += 2) s += v[i - 1]; return s; }",
    "int f(vector<float> a, vector<float> b){ int d = a.size() - b.size(); return d; }",
    "int f(vector<float> v){ int m = v.size() - 1; return m; }",
    "int f(vector<float> v){ return v.size() / 256; }",
    "int f(vector<float> a, vector<float> b){ return (int)(a.size() - b.size() + 1); }",
    "vector<int> f(vector<int> v){ vector<int> out; for (int i = 0; i < v.size(); i++) "
    "out.push_back(v.size() - i); return out; }",
], ids=["mean", "rows-cols", "strided-counter", "difference", "size-1", "size/256", "cast", "push_back-int"])
def test_exact_size_idioms_are_accepted(body: str) -> None:
    parse_c_source(HEAD + body, "k.cc", cxx=True)


def test_the_gate_types_size_as_size_t() -> None:
    assert c_types.INT.hi >= c_types.MAX_VECTOR_SIZE + 1  # img.size() - k + 1 fits int
    err = _refused("int f(vector<float> v){ unsigned char c = 1; return c - v.size() < 0; }")
    assert "unsigned long" in err.message


# ------------------------------------------------------------------ the accepted idioms lift


IDIOMS = sorted(KERNELS.glob("*.cc"))


@needs_cxx
@pytest.mark.parametrize("path", IDIOMS, ids=[p.stem for p in IDIOMS])
def test_size_idioms_verify_and_agree_with_cxx(path: Path) -> None:
    res = lift_file(path, check=True)
    assert res.status == "verified", res.message
    assert res.check and all(c["ok"] for c in res.check.values()), res.check


def test_size_idioms_lift_from_the_command_line(tmp_path: Path) -> None:
    path = KERNELS / "size_difference_to_int.cc"
    lift = shutil.which("lift")
    if lift is None:
        pytest.skip("no `lift` on PATH")
    proc = subprocess.run([lift, str(path), "--to", "numpy", "-o", str(tmp_path), "--no-check"],
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr


def _cxx_run(path: Path, tmp_path: Path, main: str) -> list[float]:
    assert CXX is not None
    src = tmp_path / "main.cc"
    src.write_text(path.read_text() + "\n#include <cstdio>\n" + main)
    exe = tmp_path / "main"
    subprocess.run([CXX, "-O2", "-std=c++17", "-o", str(exe), str(src)], check=True, capture_output=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    return [float(x) for x in out.split()]


@needs_cxx
def test_wrapping_sizes_agree_with_gxx(tmp_path: Path) -> None:
    """Where the unsigned expressions wrap (``b`` longer than ``a``; ``img.size() - k`` is
    SIZE_MAX when the image is one row or column narrower than the kernel, and ``+ 1`` gives
    an empty output back), the generated NumPy equals g++ bit for bit. (A kernel wider
    still makes ``oh`` negative: the generated code then refuses the input, since the
    proof assumes its loops run a non-negative number of times.)"""
    from tenspiler import lift

    path = KERNELS / "size_minus_size.cc"
    f = lift(path, to="numpy", check=False, cache=False).compile("numpy")
    a, b = [1.5, -2.0, 3.25], [0.0] * 7
    want = _cxx_run(path, tmp_path, "int main() { vector<float> a = {1.5f, -2.0f, 3.25f}, b(7, 0.0f);\n"
                    "  for (float x : size_minus_size(a, b, 0.5f)) printf(\"%.9g \", x); }\n")
    got = np.asarray(f(np.array(a, np.float32), np.array(b, np.float32), np.float32(0.5)), dtype=np.float32)
    assert got.tolist() == np.asarray(want, np.float32).tolist() == [-0.5, -4.0, 1.25]

    path = KERNELS / "size_difference_to_int.cc"
    g = lift(path, to="numpy", check=False, cache=False).compile("numpy")
    for rows, cols, k in [(2, 6, 3), (4, 2, 3), (4, 4, 2)]:
        img = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols) - 3
        ker = np.arange(k, dtype=np.float32) + 0.5
        init = ", ".join("{" + ", ".join(f"{x:.1f}f" for x in r) + "}" for r in img)
        kinit = ", ".join(f"{x:.1f}f" for x in ker)
        want = _cxx_run(path, tmp_path, f"int main() {{ vector<vector<float>> img = {{{init}}};\n"
                        f"  vector<float> ker = {{{kinit}}};\n"
                        "  for (float x : size_difference_to_int(img, ker)) printf(\"%.9g \", x); }\n")
        got = np.asarray(g(img, ker), dtype=np.float32).reshape(-1)
        assert got.tolist() == np.asarray(want, np.float32).tolist(), (rows, cols, k)


def test_refusals_are_located() -> None:
    err = _refused("vector<float> f(vector<float> v){ vector<float> out;\n"
                   "  for (int i = 0; i < v.size(); i++) out.push_back(i - v.size() / 256);\n  return out; }")
    assert re.fullmatch(r"k\.cc:4:\d+", f"{err.loc.file}:{err.loc.line}:{err.loc.col}")
