"""The runtime helpers of generated code (:mod:`tenspiler.codegen.runtime`) against the one
definition of the arithmetic (:mod:`tenspiler.ir.semantics`).

* Every integer helper of the NumPy backend (``_c_div``, ``_c_idiv``, ``_c_imod``,
  ``_py_floordiv``, ``_py_mod``, ``_div24``, ``_rem24``, ``_wrap64``, ``_store``,
  ``_store_blocks``, ``_extremum``), property-tested
  with hypothesis over int32 / int64 / uint8 operands with each dtype's extremes (zero
  divisors excluded where the helper's contract excludes them; where a helper guards them,
  it must not warn or raise), negative operands included.
* The helpers as generated code contains them (:func:`~tenspiler.codegen.python_host.function_source`:
  the same text without annotations) compute the same.
* The array backends' helpers: the library-neutral ones (:mod:`.array_runtime`) on NumPy,
  and the ones templated over a :class:`~tenspiler.codegen.spelling.Spelling` as each
  backend emits them, run on that library's arrays (skipped when it is not installed), and
  as a NumPy spelling of the default templates.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tenspiler.codegen.numpy_backend import HELPER_DEPS, HELPERS, helper_texts
from tenspiler.codegen.python_host import function_source
from tenspiler.codegen.runtime import array_runtime, numpy_runtime
from tenspiler.codegen.spelling import Spelling
from tenspiler.codegen.spelling import helper_texts as array_helper_texts
from tenspiler.ir.semantics import np_cast, py_binop, py_cast
from tenspiler.loops.ir import BinOpName, DType

INT, UINT8 = DType.INT, DType.UINT8
F = numpy_runtime.FUNCTIONS
DTYPES = ("int32", "int64", "uint8")
#: C / Python integer operators and the NumPy helpers computing them on arrays
ARRAY_OPS: dict[BinOpName, str] = {"/": "_c_div", "//": "_py_floordiv", "mod": "_py_mod"}


def ints(dtype: str) -> st.SearchStrategy[int]:
    """Integers of ``dtype``, its extremes and their neighbours drawn often."""
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    edges = sorted(v for v in {lo, lo + 1, lo + 2, -2, -1, 0, 1, 2, hi - 2, hi - 1, hi} if lo <= v <= hi)
    return st.one_of(st.sampled_from(edges), st.integers(lo, hi))


def values(dtype: str) -> st.SearchStrategy[Any]:
    """Values of ``dtype``: integers as :func:`ints`, reals of its width with NaN and infinities."""
    if np.dtype(dtype).kind == "f":
        return st.floats(width=32 if dtype == "float32" else 64, allow_nan=True)
    return ints(dtype)


def pairs(dtype: str, nonzero: bool = True) -> st.SearchStrategy[list[tuple[int, int]]]:
    """Operand pairs of ``dtype`` whose quotient fits it (``MIN / -1`` overflows: undefined
    in C, not an input of generated code)."""
    info = np.iinfo(dtype)

    def fits(p: tuple[int, int]) -> bool:
        x, y = p
        return (y != 0 or not nonzero) and (y == 0 or info.min <= py_binop("//", x, y, INT) <= info.max) and (
            y == 0 or info.min <= py_binop("/", x, y, INT) <= info.max
        )

    return st.lists(st.tuples(ints(dtype), ints(dtype)).filter(fits), min_size=1, max_size=40)


@contextmanager
def strict() -> Iterator[None]:
    """NumPy floating-point errors and warnings raise (a helper must not warn)."""
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def emitted() -> dict[str, Callable[..., Any]]:
    """The helpers as generated code defines them (their emitted text, executed)."""
    ns: dict[str, Any] = {"np": np}
    for text in HELPERS.values():
        exec(text, ns)
    return {name: ns[name] for name in HELPERS}


EMITTED = emitted()
BOTH = pytest.mark.parametrize("impl", [F, EMITTED], ids=["module", "emitted"])


# ---------------------------------------------------------------- the emitted text


def test_helpers_are_emitted_by_their_source_without_annotations() -> None:
    assert list(HELPERS) == list(F)
    for name, text in HELPERS.items():
        assert text.startswith(f"def {name}(") and text.endswith("\n")
        header = text.split("\n", 1)[0]
        assert ":" not in header[:-1] and "->" not in header, header
        doc = F[name].__doc__
        assert doc is not None and doc in text
    assert HELPERS["_div24"].split("\n", 1)[0] == "def _div24(x, y, dtype, floor=False):"
    assert HELPERS["_store"].split("\n", 1)[0] == "def _store(out, lo, hi, v, fresh=False):"


def test_helper_deps_are_the_helpers_each_one_calls() -> None:
    assert HELPER_DEPS == {"_c_imod": ("_c_idiv",), "_rem24": ("_div24",), "_store_blocks": ("_store",)}
    texts = helper_texts({"_c_imod", "_rem24"})
    assert [t.split("(", 1)[0] for t in texts] == ["def _c_idiv", "def _c_imod", "def _div24", "def _rem24"]


def test_function_source_refuses_what_it_cannot_emit() -> None:
    def nested(x: int) -> int:
        return x

    with pytest.raises(ValueError, match="not a plain module-level function"):
        function_source(nested)


def test_array_runtime_functions_are_emitted_by_their_source() -> None:
    sp = Spelling("NumPy", "numpy", "numpy", ("import numpy as np",), "np", "np.ndarray", "", "", "", "", "", "")
    texts = array_helper_texts(sp)
    for name, f in array_runtime.FUNCTIONS.items():
        assert texts[name] == function_source(f).rstrip("\n")
    assert texts["_py_floordiv"] == (
        'def _py_floordiv(x, y):\n    """Python floor division x // y, elementwise."""\n    return x // _nz(y)'
    )


# ---------------------------------------------------------------- NumPy: arrays


@BOTH
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", sorted(ARRAY_OPS))
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_array_division_helpers_agree_with_semantics(impl: dict[str, Any], dtype: str, op: BinOpName, data: st.DataObject) -> None:
    ps = data.draw(pairs(dtype))
    x = np.array([p[0] for p in ps], dtype=dtype)
    y = np.array([p[1] for p in ps], dtype=dtype)
    with strict():
        got = impl[ARRAY_OPS[op]](x, y)
    want = [py_binop(op, a, b, INT) for a, b in ps]
    assert [int(v) for v in got] == want


@BOTH
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", sorted(ARRAY_OPS))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_array_division_helpers_take_a_zero_divisor_silently(
    impl: dict[str, Any], dtype: str, op: BinOpName, data: st.DataObject
) -> None:
    """A zero divisor (only in lanes a select discards) neither raises nor warns, and the
    other lanes are exact."""
    ps = data.draw(pairs(dtype, nonzero=False))
    x = np.array([p[0] for p in ps] + [1], dtype=dtype)
    y = np.array([p[1] for p in ps] + [0], dtype=dtype)
    with strict():
        got = impl[ARRAY_OPS[op]](x, y)
    for a, b, v in zip(x.tolist(), y.tolist(), got.tolist(), strict=True):
        if b != 0:
            assert v == py_binop(op, a, b, INT)


def test_c_remainder_of_arrays_is_fmod() -> None:
    """The NumPy backend computes C's ``%`` of arrays with ``np.fmod`` (no helper): the same
    values as the semantics at the extremes."""
    for dtype in DTYPES:
        info = np.iinfo(dtype)
        xs = [int(info.min), int(info.min) + 1, -7, -1, 0, 7, int(info.max)]
        ys = [3, -3, 2, 1, int(info.max)] + ([-1, -2, int(info.min)] if info.min < 0 else [])
        for a in xs:
            for b in ys:
                if (a == info.min and b == -1) or not (info.min <= a <= info.max and info.min <= b <= info.max):
                    continue
                got = np.fmod(np.array([a], dtype=dtype), np.array([b], dtype=dtype))
                assert int(got[0]) == py_binop("%", a, b, INT), (dtype, a, b)


# ---------------------------------------------------------------- NumPy: scalars


@BOTH
@pytest.mark.parametrize("dtype", DTYPES)
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_scalar_c_division_agrees_with_semantics(impl: dict[str, Any], dtype: str, data: st.DataObject) -> None:
    for a, b in data.draw(pairs(dtype)):
        assert impl["_c_idiv"](a, b) == py_binop("/", a, b, INT)
        assert impl["_c_imod"](a, b) == py_binop("%", a, b, INT)
        assert impl["_c_idiv"](a, b) * b + impl["_c_imod"](a, b) == a


@BOTH
@settings(max_examples=300, deadline=None)
@given(st.integers(-(2**130), 2**130))
def test_wrap64_is_the_int64_value_congruent_modulo_2_64(impl: dict[str, Any], x: int) -> None:
    r = impl["_wrap64"](x)
    assert -(2**63) <= r < 2**63 and (r - x) % 2**64 == 0
    assert r == int(np.array(x % 2**64, dtype=np.uint64).astype(np.int64))


# ---------------------------------------------------------------- NumPy: reals to uint8


@BOTH
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_float_to_uint8_truncates_and_wraps_as_the_model(impl: dict[str, Any], dtype: str, data: st.DataObject) -> None:
    """``_float_to_uint8`` is the model's conversion (``np_cast(x, UINT8)``: truncation
    toward zero, then modulo 256), whether the values let it truncate in int32 or send it
    to int64 (one element beyond int32 is enough)."""
    width = 32 if dtype == "float32" else 64
    edge = st.sampled_from([0.0, -0.0, 0.5, -0.5, -0.99, 255.99, 256.0, -1.0, -256.5, 2.0**31 - 1, 2.0**31,
                            -(2.0**31), -(2.0**31) - 1, 2.0**40 + 3, -(2.0**40) - 3, 2.0**62, -(2.0**62)])
    value = st.one_of(edge, st.floats(-(2.0**62), 2.0**62, width=width))
    x = np.array(data.draw(st.lists(value, max_size=40)), dtype=dtype)
    with strict():
        got = impl["_float_to_uint8"](x)
    assert got.dtype == np.uint8
    assert np.array_equal(got, np_cast(x.astype(np.float64), DType.UINT8))


@BOTH
def test_float_to_uint8_outside_int64_is_the_model(impl: dict[str, Any]) -> None:
    """NaN and infinities (undefined behaviour in C) take the int64 way, as the model does."""
    x = np.array([np.nan, np.inf, -np.inf, 3.5], dtype=np.float32)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.array_equal(impl["_float_to_uint8"](x), np_cast(x.astype(np.float64), DType.UINT8))


# ---------------------------------------------------------------- NumPy: float32 division


@BOTH
@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8"])
@pytest.mark.parametrize("floor", [False, True])
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_float32_division_agrees_with_semantics(impl: dict[str, Any], dtype: str, floor: bool, data: st.DataObject) -> None:
    """``_div24`` / ``_rem24`` (operands below 2**24 in magnitude, divisor non-zero): C's
    ``/`` and ``%`` or, with ``floor``, Python's ``//`` and ``mod``."""
    lo, hi = max(int(np.iinfo(dtype).min), -(2**24) + 1), min(int(np.iinfo(dtype).max), 2**24 - 1)
    edge = st.sampled_from(sorted(v for v in {lo, lo + 1, -1, 1, hi - 1, hi} if lo <= v <= hi and v != 0))
    value = st.one_of(edge, st.integers(lo, hi))
    ps = data.draw(st.lists(st.tuples(value, value.filter(bool)), min_size=1, max_size=40))
    x = np.array([p[0] for p in ps], dtype=dtype)
    y = np.array([p[1] for p in ps], dtype=dtype)
    ops: tuple[BinOpName, BinOpName] = ("//", "mod") if floor else ("/", "%")
    with strict():
        q = impl["_div24"](x, y, np.dtype(dtype), floor)
        r = impl["_rem24"](x, y, np.dtype(dtype), floor)
    assert q.dtype == np.dtype(dtype) and r.dtype == np.dtype(dtype)
    assert q.tolist() == [py_binop(ops[0], a, b, INT) for a, b in ps]
    assert r.tolist() == [py_binop(ops[1], a, b, INT) for a, b in ps]


# ---------------------------------------------------------------- NumPy: stores and selects


@BOTH
@pytest.mark.parametrize("dtype", DTYPES)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_store_into_uint8_wraps_as_c_converts(impl: dict[str, Any], dtype: str, data: st.DataObject) -> None:
    """``_store`` into an ``unsigned char`` array: C's conversion (``py_cast`` to uint8,
    modulo 256) of every stored value; the other elements and the input stay as they were."""
    n = data.draw(st.integers(1, 12))
    lo = data.draw(st.integers(0, n))
    hi = data.draw(st.integers(lo, n))
    out = np.array(data.draw(st.lists(st.integers(0, 255), min_size=n, max_size=n)), dtype=np.uint8)
    values = data.draw(st.lists(ints(dtype), min_size=hi - lo, max_size=hi - lo))
    v = np.array(values, dtype=dtype)
    before = out.copy()
    got = impl["_store"](out, lo, hi, v, fresh=data.draw(st.booleans()))
    want = before.tolist()
    want[lo:hi] = [py_cast(a, UINT8) for a in values]
    assert got.dtype == np.uint8 and got.tolist() == want
    assert out.tolist() == before.tolist() and got is not out
    assert not np.shares_memory(got, out)


@BOTH
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "float32", "float64"])
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_where_is_numpys_where_bit_for_bit(impl: dict[str, Any], dtype: str, data: st.DataObject) -> None:
    n = data.draw(st.integers(0, 20))
    elems = values(dtype)
    x = np.array(data.draw(st.lists(elems, min_size=n, max_size=n)), dtype=dtype)
    y = np.array(data.draw(st.lists(elems, min_size=n, max_size=n)), dtype=dtype)
    c = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    got = impl["_where"](c, x, y, np.dtype(dtype))
    want = np.where(c, x, y)
    assert got.dtype == np.dtype(dtype)
    assert got.tobytes() == want.tobytes()


@BOTH
@pytest.mark.parametrize("dtype", DTYPES)
@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_store_blocks_is_store_of_the_whole_value(impl: dict[str, Any], dtype: str, data: st.DataObject) -> None:
    """``_store_blocks(out, lo, hi, f, views, fresh, block)`` is ``_store(out, lo, hi,
    f(*views), fresh)`` for an elementwise ``f`` (several temporaries, a wrapping store into
    uint8), for every block size relative to the length — one block, several, a last short
    one — and computes the whole value when a view's length is not ``hi - lo`` (NumPy's
    broadcasting of a one-element view, or its error, as unblocked code). Neither
    ``out`` nor a view is modified."""
    n = data.draw(st.integers(0, 40))
    lo = data.draw(st.integers(0, n))
    hi = data.draw(st.integers(lo, n))
    out = np.array(data.draw(st.lists(st.integers(0, 255), min_size=n, max_size=n)), dtype=np.uint8)
    short = data.draw(st.booleans()) and hi > lo
    a = np.array(data.draw(st.lists(ints(dtype), min_size=hi - lo - short, max_size=hi - lo - short)), dtype=dtype)
    b = np.array(data.draw(st.lists(ints(dtype), min_size=hi - lo, max_size=hi - lo)), dtype=dtype)
    block = data.draw(st.integers(1, 9))
    fresh = data.draw(st.booleans())

    def f(x: Any, y: Any) -> Any:
        with np.errstate(over="ignore"):
            return (x.astype(np.int64) * 3 - (y >> 1)) ^ np.int64(0x5A)

    before = (out.copy(), a.copy(), b.copy())
    try:
        want = F["_store"](out.copy(), lo, hi, f(a, b), fresh)
    except ValueError:  # lengths that do not broadcast: the same error
        assert short
        with pytest.raises(ValueError):
            impl["_store_blocks"](out, lo, hi, f, (a, b), fresh, block)
        return
    got = impl["_store_blocks"](out, lo, hi, f, (a, b), fresh, block)
    assert got.dtype == want.dtype and got.tolist() == want.tolist()
    assert all(np.array_equal(u, v) for u, v in zip(before, (out, a, b), strict=True))
    assert got is not out and not np.shares_memory(got, out)


@BOTH
@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "int64", "float32", "float64"])
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_extremum_is_numpys_maximum_and_minimum(impl: dict[str, Any], dtype: str, data: st.DataObject) -> None:
    """``_extremum(f, x, y)`` is ``f(x, y)`` bit for bit and in dtype, for ``np.maximum`` /
    ``np.minimum`` of an array and a scalar in either order (a Python number or a NumPy scalar,
    NaN included), or of two arrays."""
    n = data.draw(st.integers(0, 20))
    elems = values(dtype)
    x = np.array(data.draw(st.lists(elems, min_size=n, max_size=n)), dtype=dtype)
    scalar = data.draw(elems)
    y: Any = data.draw(st.sampled_from([
        scalar, np.dtype(dtype).type(scalar), np.array(data.draw(st.lists(elems, min_size=n, max_size=n)), dtype=dtype)]))
    f = data.draw(st.sampled_from([np.maximum, np.minimum]))
    for args in ((x, y), (y, x)):
        want = f(*args)
        got = impl["_extremum"](f, *args)
        assert np.asarray(got).dtype == np.asarray(want).dtype
        assert np.asarray(got).tobytes() == np.asarray(want).tobytes()


# ---------------------------------------------------------------- array backends


def test_array_runtime_helpers_agree_with_semantics_on_numpy() -> None:
    nz = array_runtime.nonzero
    assert nz(0) == 1 and nz(-3) == -3
    assert nz(np.array([0, 5, -1])).tolist() == [1, 5, -1]
    for dtype in DTYPES:
        info = np.iinfo(dtype)
        vals = sorted(v for v in {int(info.min), int(info.min) + 1, -3, -1, 1, 3, int(info.max)} if info.min <= v <= info.max)
        ps = [(a, b) for a in vals for b in vals if b != 0 and not (a == info.min and b == -1)]
        x = np.array([p[0] for p in ps], dtype=dtype)
        y = np.array([p[1] for p in ps], dtype=dtype)
        named: tuple[tuple[BinOpName, str], ...] = (("//", "_py_floordiv"), ("mod", "_py_mod"))
        for op, name in named:
            got = array_runtime.FUNCTIONS[name](x, y)
            assert got.tolist() == [py_binop(op, a, b, INT) for a, b in ps], (dtype, op)


#: backend → (module its library is imported from, dtypes the backend computes integers in)
LIBRARIES = {"torch": "torch", "mlx": "mlx.core", "tensorflow": "tensorflow", "jax": "jax"}
TEMPLATED: dict[BinOpName, str] = {"/": "_c_div", "%": "_c_mod", "//": "_py_floordiv", "mod": "_py_mod"}


def numpy_spelling() -> Spelling:
    """The default templates spelled in NumPy (MLX uses the defaults for ``_c_div`` and
    ``_c_mod``, JAX for ``_c_div``)."""
    return Spelling("NumPy", "numpy", "numpy", ("import numpy as np",), "np", "np.ndarray",
                    "np.asarray({x}, dtype={dtype})", "np.asarray({x}, dtype={dtype})", "", "", "", "")


class Library:
    """A backend's templated helpers executed with its library: ``helpers`` by name,
    ``array(values, dtype)`` a native array, ``values(a)`` back to Python ints."""

    def __init__(self, backend: str) -> None:
        if backend == "numpy":
            sp, ns = numpy_spelling(), {"np": np}
            self.dtypes: tuple[str, ...] = DTYPES
            self.native: Callable[[np.ndarray], Any] = lambda a: a
        else:
            pytest.importorskip(LIBRARIES[backend])
            from tenspiler.codegen import get_backend
            from tenspiler.codegen.array_backend import ArrayBackend

            b = get_backend(backend)
            assert isinstance(b, ArrayBackend)
            sp = b.sp
            ns = {"np": np}
            for line in sp.imports:
                exec(line, ns)
            self.dtypes = tuple(d for d in DTYPES if d in b.int_dtypes)
            self.native = b.to_native
        texts = array_helper_texts(sp)
        for name in ("_nz", *TEMPLATED.values()):
            exec(texts[name], ns)
        self.helpers: dict[str, Any] = ns
        self.backend = backend

    @contextmanager
    def context(self) -> Iterator[None]:
        if self.backend == "jax":
            jax = importlib.import_module("jax")
            with jax.enable_x64(True):
                yield
        else:
            yield


#: the backends' helpers, executed once per session
LIBRARY: dict[str, Library] = {}


@pytest.mark.parametrize("backend", ["numpy", *LIBRARIES])
@pytest.mark.parametrize("op", sorted(TEMPLATED))
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_templated_division_helpers_agree_with_semantics(backend: str, op: BinOpName, data: st.DataObject) -> None:
    """``_c_div`` / ``_c_mod`` (templates over the spelling) and ``_py_floordiv`` /
    ``_py_mod`` of each backend on its own arrays of each integer dtype it computes in,
    with a zero divisor in one lane (discarded by the caller: it must not raise)."""
    lib = LIBRARY[backend] if backend in LIBRARY else LIBRARY.setdefault(backend, Library(backend))  # once per session
    dtype = data.draw(st.sampled_from(lib.dtypes))
    ps = data.draw(pairs(dtype))
    x = np.array([p[0] for p in ps] + [5], dtype=dtype)
    y = np.array([p[1] for p in ps] + [0], dtype=dtype)
    with lib.context():
        got = lib.helpers[TEMPLATED[op]](lib.native(x), lib.native(y))
        values = np.asarray(got).tolist()
    assert values[:-1] == [py_binop(op, a, b, INT) for a, b in ps], (backend, dtype)



#: reals whose conversion to unsigned char is defined by the model (np_cast: truncation, then
#: modulo 256): zeros, halves, each side of 0, 256, 2**24 (float32's last odd integer), 2**31,
#: 2**53 and 2**63, and the largest finite values
REAL_EDGES = [0.0, -0.0, 0.5, -0.5, -0.99, 1.0, -1.0, 255.0, 255.99, 256.0, 256.5, -255.5, -256.0, -256.5,
              -257.0, 511.99, 2.0**24 - 1, 2.0**24 + 2, -(2.0**24) - 2, 2.0**31 - 1, 2.0**31, -(2.0**31),
              -(2.0**31) - 512, 2.0**40 + 256, 2.0**53 + 2, -(2.0**53) - 6, 2.0**63, -(2.0**63), 1e30, -1e30,
              3e38, -3e38]


def _real_to_uint8(backend: str) -> tuple[Library, Callable[[Any], Any]]:
    """The backend's ``Spelling.real_to_uint8`` as a function of a native array (skipped
    for a backend without one: it converts through int64, as the model does)."""
    lib = LIBRARY[backend] if backend in LIBRARY else LIBRARY.setdefault(backend, Library(backend))
    from tenspiler.codegen import get_backend
    from tenspiler.codegen.array_backend import ArrayBackend

    b = get_backend(backend)
    assert isinstance(b, ArrayBackend)
    if b.sp.real_to_uint8 is None:
        pytest.skip(f"{backend} converts reals to unsigned char through int64")
    assert b.narrow_float_casts  # the plan asks for the spelling exactly where it exists
    texts = array_helper_texts(b.sp)
    code = b.sp.real_to_uint8.format(x="x")
    for name, text in texts.items():
        if name in code:
            exec(text, lib.helpers)
    return lib, eval(f"lambda x: {code}", lib.helpers)


@pytest.mark.parametrize("backend", sorted(LIBRARIES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_real_to_uint8_is_the_models_conversion(backend: str, dtype: str, data: st.DataObject) -> None:
    """``Spelling.real_to_uint8`` (eager, on the library's arrays) is ``np_cast(x, UINT8)``
    for every finite real: truncation toward zero, then modulo 256."""
    lib, f = _real_to_uint8(backend)
    width = 32 if dtype == "float32" else 64
    value = st.one_of(st.sampled_from(REAL_EDGES), st.floats(width=width, allow_nan=False, allow_infinity=False))
    x = np.array(data.draw(st.lists(value, min_size=1, max_size=40)), dtype=dtype)
    with lib.context():
        got = np.asarray(f(lib.native(x)))
    assert got.dtype == np.uint8
    assert np.array_equal(got, np_cast(x.astype(np.float64), DType.UINT8)), x[got != np_cast(x.astype(np.float64), DType.UINT8)]


@pytest.mark.parametrize("backend", ["torch", "jax"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_real_to_uint8_compiled_is_the_models_conversion(backend: str, dtype: str) -> None:
    """The same, compiled by the library's jit (``torch.compile``: inductor's C++ code, built
    with its fast-math flags; ``jax.jit``: XLA), on the edges and random reals of every
    magnitude."""
    lib, f = _real_to_uint8(backend)
    rng = np.random.default_rng(7)
    x = np.concatenate([np.array(REAL_EDGES), rng.uniform(-1, 1, 200) * 2.0 ** rng.integers(0, 70, 200)]).astype(dtype)
    if backend == "torch":
        import torch

        compiled = torch.compile(f)
    else:
        import jax

        compiled = jax.jit(f)
    with lib.context():
        got = np.asarray(compiled(lib.native(x)))
    want = np_cast(x.astype(np.float64), DType.UINT8)
    assert got.dtype == np.uint8
    assert np.array_equal(got, want), x[got != want]
