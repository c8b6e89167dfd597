"""One semantics for every target: the arithmetic each code generator or device model writes
down for itself is tested against :mod:`tenspiler.ir.semantics`, the definition the proofs
use (the interpreters call it directly; ``tests/test_semantics.py`` ties its Python, NumPy and
SMT-LIB versions together).

* the two's-complement wrap of the accelerator paths (``np_wrap`` / ``py_wrap``: XLA's
  ``s8``/``s32`` in ``act/graph.py``, Gemmini's accumulator in ``act/isa/gemmini.py``) against
  NumPy's own integer conversion;
* the ACT graphs' ``divide`` and ``convert`` (``act.graph.apply``) against ``py_binop`` /
  ``py_wrap``;
* the C host code's helpers (``codegen/c_host.py`` prelude: ``tsp_floordiv``,
  ``tsp_floormod``, ``tsp_wrap_u8``) and C's own ``/`` and ``%`` on ``int64_t``, compiled with
  the system compiler, against ``py_binop`` / ``py_cast``;
* elsewhere, the same way: the interval analysis of ``codegen/ranges.py`` in
  ``tests/test_ranges.py`` (every ``py_binop`` result lies in ``binop_range``); the generated
  code's helpers (``codegen/runtime/``, each array library's templated ones) in
  ``tests/test_runtime.py``; TPC-C's long division in ``tests/test_tpc_c.py`` (all of int32,
  and the edge cases against ``py_binop``); every backend's code against the TensIR
  interpreter (which calls the semantics) in ``tests/test_backends.py`` and
  ``tests/test_c_host.py``.

Each property would fail if the target's definition differed from the semantics on one
input: the strategies draw each type's extremes and operands of both signs.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tenspiler.act.graph import Node, apply
from tenspiler.codegen.c_host import prelude
from tenspiler.ir.semantics import np_wrap, py_binop, py_cast, py_wrap
from tenspiler.loops.ir import DType

INT64 = st.integers(-(2**63), 2**63 - 1)
#: integers around each width's extremes as well as anywhere in int64
EDGY = st.one_of(INT64, st.sampled_from([0, 1, -1, 127, 128, -128, -129, 255, 256, 2**31 - 1, -(2**31),
                                          2**31, 2**32 - 1, 2**63 - 1, -(2**63)]))


@given(st.lists(EDGY, min_size=1, max_size=20), st.sampled_from([8, 16, 32]))
def test_wrap_is_numpys_integer_conversion(xs: list[int], bits: int) -> None:
    want = np.asarray(xs, dtype=np.int64).astype({8: np.int8, 16: np.int16, 32: np.int32}[bits]).astype(np.int64)
    assert np.array_equal(np_wrap(np.asarray(xs, dtype=np.int64), bits), want)
    assert [py_wrap(x, bits) for x in xs] == want.tolist()


def _node(op: str, dtype: str, shape: tuple[int, ...]) -> Node:
    return Node(op, dtype, shape, (), ())


@given(st.lists(st.tuples(st.integers(-(2**31), 2**31 - 1), st.integers(-(2**31), 2**31 - 1)
                          .filter(lambda y: y != 0)), min_size=1, max_size=16))
def test_act_graph_divide_is_c_division_wrapped(pairs: list[tuple[int, int]]) -> None:
    a = np.array([p[0] for p in pairs], dtype=np.int32)
    b = np.array([p[1] for p in pairs], dtype=np.int32)
    got = apply(_node("divide", "s32", a.shape), [a, b])
    want = [py_wrap(int(py_binop("/", x, y, DType.INT)), 32) for x, y in pairs]
    assert got.dtype == np.int32 and got.tolist() == want


@given(st.lists(st.integers(-(2**40), 2**40), min_size=1, max_size=16))
def test_act_graph_convert_to_s8_wraps(xs: list[int]) -> None:
    got = apply(_node("convert", "s8", (len(xs),)), [np.array(xs, dtype=np.int64)])
    assert got.tolist() == [py_wrap(x, 8) for x in xs]


# ---------------------------------------------------------------- the C host code's helpers


@pytest.fixture(scope="module")
def c_helpers(tmp_path_factory: pytest.TempPathFactory) -> ctypes.CDLL:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    d = tmp_path_factory.mktemp("c_host_helpers")
    src = d / "helpers.c"
    src.write_text(prelude() + """
int64_t t_floordiv(int64_t x, int64_t y) { return tsp_floordiv(x, y); }
int64_t t_floormod(int64_t x, int64_t y) { return tsp_floormod(x, y); }
int64_t t_wrap_u8(int64_t x) { return tsp_wrap_u8(x); }
int64_t t_div(int64_t x, int64_t y) { return x / y; }
int64_t t_rem(int64_t x, int64_t y) { return x % y; }
""")
    lib = d / "helpers.so"
    subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    dll = ctypes.CDLL(str(lib))
    for f in ("t_floordiv", "t_floormod", "t_div", "t_rem"):
        getattr(dll, f).argtypes = [ctypes.c_int64, ctypes.c_int64]
        getattr(dll, f).restype = ctypes.c_int64
    dll.t_wrap_u8.argtypes = [ctypes.c_int64]
    dll.t_wrap_u8.restype = ctypes.c_int64
    return dll


def _defined(x: int, y: int) -> bool:
    """C (int64_t) has no result for a zero divisor or INT64_MIN / -1."""
    return y != 0 and not (x == -(2**63) and y == -1)


@settings(max_examples=300, deadline=None)
@given(EDGY, EDGY)
def test_c_host_division_helpers_are_the_semantics(c_helpers: ctypes.CDLL, x: int, y: int) -> None:
    if not _defined(x, y):
        return
    assert c_helpers.t_floordiv(x, y) == py_binop("//", x, y, DType.INT)
    assert c_helpers.t_floormod(x, y) == py_binop("mod", x, y, DType.INT)
    assert c_helpers.t_div(x, y) == py_binop("/", x, y, DType.INT)
    assert c_helpers.t_rem(x, y) == py_binop("%", x, y, DType.INT)


@settings(max_examples=200, deadline=None)
@given(EDGY)
def test_c_host_uint8_conversion_is_the_semantics(c_helpers: ctypes.CDLL, x: int) -> None:
    assert c_helpers.t_wrap_u8(x) == py_cast(x, DType.UINT8)


def test_the_c_helper_check_would_fail_on_a_wrong_definition(c_helpers: ctypes.CDLL) -> None:
    """Truncation and flooring differ on these: a helper computing the other one fails."""
    assert c_helpers.t_floordiv(-7, 2) == -4 != py_binop("/", -7, 2, DType.INT)
    assert c_helpers.t_floormod(-7, 2) == 1 != py_binop("%", -7, 2, DType.INT)
