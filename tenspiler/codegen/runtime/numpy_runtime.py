"""The helper functions of generated NumPy code (C and Python integer semantics).

Each function here is emitted into generated modules by its source
(:func:`tenspiler.codegen.python_host.function_source`, annotations dropped) when the code
calls it, so the generated file needs only NumPy; the names are those the generated code
calls (the ``_`` keeps them out of the way of parameter names, which the backend renames
anyway). :data:`FUNCTIONS` lists them in emission order, :data:`DEPS` the helpers each one
calls. ``tests/test_runtime.py`` checks every integer helper against
:mod:`tenspiler.ir.semantics`, the one definition of C's and Python's division, modulo and
wrap-around.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

__all__ = ["DEPS", "FUNCTIONS"]


def _c_div(x: Any, y: Any) -> Any:
    """C integer division, elementwise on integer arrays: truncates toward zero (C11 6.5.5).
    A zero divisor is undefined behaviour in C; it can only reach here in lanes a select
    discards, which get divisor 1 instead of a NumPy warning."""
    y = np.where(y == 0, 1, y)
    q = x // y  # floor; no abs(), which overflows on the type's minimum (LONG_MIN / 3)
    return np.where((x % y != 0) & ((x < 0) != (y < 0)), q + 1, q)


def _c_idiv(x: int, y: int) -> int:
    """C integer division of two integers: truncates toward zero (C11 6.5.5)."""
    q = x // y
    return q + 1 if x % y != 0 and (x < 0) != (y < 0) else q


def _c_imod(x: int, y: int) -> int:
    """C integer remainder of two integers: has the sign of x; x == _c_idiv(x, y) * y + r."""
    return x - y * _c_idiv(x, y)


def _py_floordiv(x: Any, y: Any) -> Any:
    """Python integer floor division x // y, elementwise on int64 arrays. A zero divisor
    raises in Python; it can only reach here in lanes a select discards (divisor 1)."""
    return np.floor_divide(x, np.where(y == 0, 1, y))


def _py_mod(x: Any, y: Any) -> Any:
    """Python integer modulo x % y (the sign of y), elementwise on int64 arrays; a zero
    divisor only in lanes a select discards (divisor 1)."""
    return np.mod(x, np.where(y == 0, 1, y))


def _int_true_divide(x: Any, y: Any) -> Any:
    """Python's ``x / y`` of ints (PEP 238: the exact quotient rounded once to float64),
    elementwise; float64 division of the converted operands is that where both are at most
    2**53 in magnitude (each converts exactly), Python's own ``/`` elsewhere. A zero
    divisor (only in lanes a select discards) gives what float division gives."""
    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.int64), np.asarray(y, dtype=np.int64))
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.asarray(x.astype(np.float64) / y.astype(np.float64))
    big = (x > 2**53) | (x < -(2**53)) | (y > 2**53) | (y < -(2**53))
    if big.any():
        q = q.copy()
        q[big] = [int(a) / int(b) for a, b in zip(x[big], y[big], strict=True)]
    return q if q.ndim else np.float64(q)


def _where(c: ArrayLike, x: ArrayLike, y: ArrayLike, dtype: DTypeLike) -> NDArray[Any]:
    """np.where(c, x, y) computed in `dtype` without branches: a bitwise blend
    y ^ ((x ^ y) & -c) of the values' bit patterns (reals viewed as integers of their size).
    NumPy's where branches per element and is ~20x slower on unpredictable masks."""
    bits = np.dtype(f"i{np.dtype(dtype).itemsize}")
    x = np.asarray(x, dtype=dtype).view(bits)
    y = np.asarray(y, dtype=dtype).view(bits)
    r = y ^ ((x ^ y) & -np.asarray(c).astype(bits))
    return r.view(dtype)


def _extremum(f: Any, x: ArrayLike, y: ArrayLike) -> Any:
    """f(x, y) for f np.maximum or np.minimum, where one operand may be a scalar: the scalar
    is first spread to an array of the other's shape in the dtype NumPy computes in, since
    NumPy's loop for a broadcast scalar is not vectorised (~10x slower). The operands keep
    their order (which of two equal values is returned, 0.0 or -0.0, depends on it)."""
    if np.ndim(x) == 0 and np.ndim(y) > 0:
        x = np.full(np.shape(y), x, dtype=np.result_type(x, y))
    elif np.ndim(y) == 0 and np.ndim(x) > 0:
        y = np.full(np.shape(x), y, dtype=np.result_type(x, y))
    return f(x, y)


def _wrap64(x: int) -> int:
    """The Python int x as a signed 64-bit value (modulo 2**64): a loop-invariant value of
    C long arithmetic that may leave int64 is computed before the loop, also when the loop
    runs no iteration or the branch using it is not taken, where C never computes it; where
    C does, it overflowed (undefined behaviour), so any value is right there."""
    return (x + 2**63) % 2**64 - 2**63


def _div24(x: ArrayLike, y: ArrayLike, dtype: DTypeLike, floor: bool = False) -> NDArray[Any]:
    """Integer x / y truncated toward zero (C), or floored (Python's //), for |x|, |y| < 2**24
    and y != 0, as float32 division: both operands are exact in float32 and the quotient's
    rounding error (< |x / y| * 2**-24 < 1 / |y|) is smaller than its distance to any other
    integer, so truncating (flooring) the rounded quotient gives the exact result."""
    q = np.divide(x, y, dtype=np.float32)
    return (np.floor(q) if floor else q).astype(dtype)


def _rem24(x: ArrayLike, y: ArrayLike, dtype: DTypeLike, floor: bool = False) -> NDArray[Any]:
    """x - y * _div24(x, y): C's % (the sign of x), or Python's (floor=True: the sign of y),
    for |x|, |y| < 2**24 and y != 0; every value fits `dtype`."""
    q = _div24(x, y, dtype, floor)
    return np.subtract(x, np.multiply(q, y, dtype=dtype, casting="unsafe"), dtype=dtype, casting="unsafe")


def _float_to_uint8(x: NDArray[Any]) -> NDArray[Any]:
    """C's conversion of the float array x to unsigned char as the model defines it
    (semantics.np_cast): truncated toward zero, then wrapped modulo 256 (C itself leaves
    values outside (-1, 256) undefined). Truncates in int32 when every element lies in
    (-2**31, 2**31 - 1), else in int64: NumPy's float -> int32 cast is vectorised, its
    float -> int64 cast about 4x slower. Integer -> uint8 casting wraps modulo 256; a NaN
    fails both comparisons and goes the int64 way, as in the model."""
    if x.size == 0 or (x.min() > -2147483648.0 and x.max() < 2147483647.0):
        return x.astype(np.int32).astype(np.uint8)
    return x.astype(np.int64).astype(np.uint8)


def _store(out: NDArray[Any], lo: int, hi: int, v: Any, fresh: bool = False) -> NDArray[Any]:
    """A new array: `out` with out[lo:hi] = v (C conversion on assignment: integers wrap
    modulo 256 into uint8); `out` itself is not modified. When v covers all of `out` no copy
    of `out` is made, and v is returned itself if `fresh` (computed here, not a view of an
    input) and already of out's dtype."""
    # (the attribute, not np.shape(v): v is an array or a scalar, and this runs on every call)
    if lo == 0 and hi == out.shape[0] and getattr(v, "shape", ()) == out.shape:
        if fresh and v.dtype == out.dtype and v.base is None:
            return v
        return v.astype(out.dtype)
    r = out.copy()
    r[lo:hi] = v
    return r


def _store_blocks(out: NDArray[Any], lo: int, hi: int, f: Callable[..., Any], views: tuple[NDArray[Any], ...],
                  fresh: bool = False, block: int = 1 << 16) -> NDArray[Any]:
    """`_store(out, lo, hi, f(*views), fresh)` for an elementwise `f` of the 1-D arrays `views`
    (each of hi - lo elements), computed `block` elements at a time: f's temporaries are
    then a few hundred KiB, reused from the allocator and held in cache, where whole-array
    temporaries (megabytes each) are fresh pages, faulted in on every call. Element k of
    the result depends only on element k of each view, so the blocks compute the same
    values. Other shapes are computed whole."""
    n = hi - lo
    if n <= block or any(np.shape(v) != (n,) for v in views):
        return _store(out, lo, hi, f(*views), fresh)
    r = np.empty_like(out) if lo == 0 and hi == out.shape[0] else out.copy()
    for i in range(0, n, block):
        j = min(i + block, n)
        r[lo + i:lo + j] = f(*(v[i:j] for v in views))
    return r


#: The helpers by the name generated code calls them, in the order they are emitted.
FUNCTIONS: dict[str, Callable[..., Any]] = {
    f.__name__: f
    for f in (_c_div, _c_idiv, _c_imod, _py_floordiv, _py_mod, _int_true_divide, _where, _extremum, _wrap64, _div24, _rem24, _float_to_uint8, _store,
              _store_blocks)
}

#: The helpers each helper calls (emitted with it).
DEPS: dict[str, tuple[str, ...]] = {
    name: deps
    for name, f in FUNCTIONS.items()
    if (deps := tuple(n for n in FUNCTIONS if n in f.__code__.co_names))
}
