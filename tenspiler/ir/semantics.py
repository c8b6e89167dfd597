"""The single definition of scalar arithmetic, shared by every interpreter and encoder.

Each operator is defined three times *side by side* — on Python numbers (the loop-IR
interpreter), on NumPy arrays (the TensIR reference interpreter and the generated NumPy
code's helpers) and as SMT-LIB text (verification) — and ``tests/test_semantics.py``
checks the three against each other (the SMT side with cvc5) on random inputs.

C semantics (C11 §6.5.5, §6.3.1): integer ``/`` truncates toward zero and ``a % b`` has
the sign of ``a`` with ``(a/b)*b + a%b == a``; division by zero is undefined behaviour
(callers add a non-zero-divisor assumption). Conversion of a real to an integer truncates
toward zero; conversion to a ranged integer type (``unsigned char``, ``short``, ``unsigned
int`` …) wraps modulo 2ⁿ into its range (:func:`py_wrap_to`). ``& | ^`` act on the two's
complement representation (Python's own ints; 64-bit bit-vectors in SMT-LIB, exact for the
values of every C integer type). Floats are modelled as reals.

Python semantics (the Python frontend's ``//`` and ``mod``, integers only): ``a // b`` is
``floor(a / b)`` and ``a mod b`` is Python's ``a % b == a - b * (a // b)``, which has the
sign of ``b``; a zero divisor raises ``ZeroDivisionError`` in Python (here:
:class:`UndefinedBehaviour`, and callers assume non-zero divisors as for C).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tenspiler.loops.ir import BinOpName, DType


class UndefinedBehaviour(ArithmeticError):
    """Raised by the concrete semantics where C has undefined behaviour (x / 0)."""


class OutsideModel(UndefinedBehaviour):
    """Raised by the concrete semantics on a float division by zero: C (IEEE 754, C11
    Annex F) gives ±inf or NaN, the model (the reals) has no value. Not undefined behaviour
    in C, so the differential check still compares the generated code with the compiled
    source on such inputs (the sign of an infinity shows a lost sign of zero)."""


class OutsideInt64(UndefinedBehaviour):
    """Raised by the loop-IR interpreter of a Python function when an int leaves int64:
    Python's ints are unbounded, the generated code computes in int64 — a stated
    assumption, outside of which inputs are not compared."""


def divides(op: str, dtype: DType) -> bool:
    """Whether ``op`` on ``dtype`` is an integer division or remainder (C ``/``, ``%``,
    Python ``//``, ``mod``): undefined / raising for a zero divisor."""
    return op in ("/", "%", "//", "mod") and not dtype.is_float


# ---------------------------------------------------------------- Python numbers


def py_binop(op: BinOpName, x: Any, y: Any, dtype: DType) -> Any:
    """``x op y`` on Python ints (exact) or floats, with C semantics for ``dtype``."""
    if op == "+":
        return x + y
    if op == "-":
        return x - y
    if op == "*":
        return x * y
    if op in ("&", "|", "^"):
        return x & y if op == "&" else x | y if op == "|" else x ^ y  # Python ints: two's complement
    if op == "pow":
        return py_pow(x, y) if dtype.is_float else py_ipow2(x, y)
    if y == 0:
        if dtype.is_float:
            raise OutsideModel(f"float {op} by zero")
        raise UndefinedBehaviour(f"{op} by zero")
    if op == "//":
        return x // y  # Python floor division
    if op == "mod":
        return x % y  # Python modulo: sign of the divisor
    if dtype.is_float:
        if op == "/":
            return x / y
        return math.fmod(x, y)
    q = abs(x) // abs(y)
    if (x >= 0) != (y > 0) and q != 0:
        q = -q
    if op == "/":
        return q
    return x - y * q


def py_cast(x: Any, dtype: DType) -> Any:
    """C conversion of one number to ``dtype``. An integer converted to a real type is
    rounded *once* to the nearest value of that type (C11 §6.3.1.4p2 with Annex F's round
    to nearest): to float64 by Python's ``float``, to float32 through an int64 — never
    through float64, which rounds twice (2**53 + 2**29 + 1 would become 2**53, not C's
    2**53 + 2**30). Real → real conversions are left exact (the real-number model)."""
    if dtype.is_float:
        if dtype == DType.FLOAT and isinstance(x, int | np.integer) and not isinstance(x, bool):
            return float(np.float32(np.int64(x))) if -(2**63) <= x < 2**63 else _int_to_float32(int(x))
        return float(x)
    v = int(x) if not isinstance(x, float) else math.trunc(x)
    return py_wrap_to(v, dtype)


def py_wrap_to(v: int, dtype: DType) -> int:
    """The integer ``v`` converted to the integer type ``dtype``: reduced modulo 2ⁿ into a
    ranged type's range (C11 §6.3.1.3p2 for unsigned types; for signed ones GCC's
    implementation-defined two's complement reduction, §6.3.1.3p3); ``INT`` unchanged."""
    r = dtype.int_range
    if r is None:
        return v
    lo, hi = r
    return (v - lo) % (hi - lo + 1) + lo


# ---------------------------------------------------------------- NumPy arrays


def np_binop(op: BinOpName, x: Any, y: Any, dtype: DType) -> Any:
    """Elementwise ``x op y`` on NumPy arrays/scalars already converted to ``dtype``'s
    computation type (int64 for integers, float64 for reals)."""
    if op == "+":
        return np.add(x, y)
    if op == "-":
        return np.subtract(x, y)
    if op == "*":
        return np.multiply(x, y)
    if op == "pow":
        return np_pow(x, y) if dtype.is_float else np_ipow2(x, y)
    if op in ("&", "|", "^"):
        f = np.bitwise_and if op == "&" else np.bitwise_or if op == "|" else np.bitwise_xor
        return f(np.asarray(x, dtype=np.int64), np.asarray(y, dtype=np.int64))
    if op == "//":
        return np.floor_divide(x, y)  # Python floor division
    if op == "mod":
        return np.mod(x, y)  # Python modulo: sign of the divisor
    if dtype.is_float:
        return np.divide(x, y) if op == "/" else np.fmod(x, y)
    if op == "/":
        return c_div(x, y)
    return np.fmod(x, y)  # integer fmod is C's %: sign of the dividend


def py_pow(x: Any, y: Any) -> float:
    """C's ``pow(x, y)`` on doubles (C11 7.12.7.4), where its result is a real number:
    ``math.pow`` is the C library's ``pow``. Where it is not — a negative base to a
    non-integer power (a domain error: NaN; Python's ``**`` gives a complex number), zero to
    a negative power (a pole error: ±inf; Python's ``**`` raises ZeroDivisionError), a result
    beyond the doubles (±inf; Python's ``**`` raises OverflowError) — the model has no value:
    :class:`OutsideModel` (not undefined behaviour in C: the differential check still compares
    the generated code with the source there)."""
    x, y = float(x), float(y)
    if x == 0.0 and y < 0.0:
        raise OutsideModel(f"pow({x!r}, {y!r}): zero to a negative power")
    if x < 0.0 and not y.is_integer():
        raise OutsideModel(f"pow({x!r}, {y!r}): a negative number to a non-integer power")
    try:
        return math.pow(x, y)
    except OverflowError as e:
        raise OutsideModel(f"pow({x!r}, {y!r}) is beyond the doubles") from e


#: The exponents of the integer power ``pow(2, k)`` (a shift by a run-time count, C11 §6.5.7:
#: ``x << k`` is ``x * 2**k``, ``x >> k`` floors ``x / 2**k``): the frontend takes run-time
#: counts only for operands of 32-bit type and states ``0 <= k < 32`` as a checked precondition.
IPOW2_EXPONENTS = range(32)


def py_ipow2(x: Any, y: Any) -> int:
    """The integer power ``pow(2, y)`` for ``y`` in :data:`IPOW2_EXPONENTS` (the only integer
    ``pow`` the frontend writes); elsewhere a shift count C leaves undefined.

    Raises:
        UndefinedBehaviour: ``y`` outside ``[0, 32)``.
    """
    if int(x) != 2:
        raise ValueError(f"the integer pow is pow(2, k), not pow({x}, k)")
    if int(y) not in IPOW2_EXPONENTS:
        raise UndefinedBehaviour(f"shift count {y} outside [0, 32)")
    return 2 ** int(y)


def np_ipow2(x: Any, y: Any) -> Any:
    """:func:`py_ipow2` elementwise on int64 values (0 where the count is outside ``[0, 32)``:
    lanes a precondition excludes)."""
    del x
    y = np.asarray(y, dtype=np.int64)
    ok = (y >= 0) & (y < 32)
    return np.where(ok, np.left_shift(np.int64(1), np.where(ok, y, 0)), 0)


def np_pow(x: Any, y: Any) -> Any:
    """:func:`py_pow` on float64 NumPy values: ``np.power`` (the C library's ``pow`` on
    doubles; NaN / ±inf where the model has no value)."""
    with np.errstate(all="ignore"):
        return np.power(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))


def c_div(x: Any, y: Any) -> Any:
    """C integer division (truncation toward zero) on int64 NumPy arrays; ``y`` ≠ 0."""
    x = np.asarray(x, dtype=np.int64)
    y = np.asarray(y, dtype=np.int64)
    q = x // y  # floor; np.abs would overflow on the int64 minimum
    return np.where((x % y != 0) & ((x < 0) != (y < 0)), q + 1, q)


def np_wrap(x: Any, bits: int) -> np.ndarray:
    """Integers (int64 values) wrapped to ``bits``-bit two's complement, as int64: the
    integer arithmetic of hardware and of XLA (``s8``, ``s32``: add, multiply and convert wrap
    modulo 2^bits), which C leaves undefined for signed overflow. The accelerator paths use
    it; the C kernels' own arithmetic never wraps (the proof computes on mathematical
    integers and the code generators emit only values that fit)."""
    v = np.asarray(x, dtype=np.int64)
    if bits >= 64:
        return v
    m = np.int64(1) << np.int64(bits)
    u = v & (m - 1)  # the low bits, non-negative
    return np.where(u >= (m >> 1), u - m, u).astype(np.int64)


def py_wrap(x: int, bits: int) -> int:
    """:func:`np_wrap` of one Python int (exact for any magnitude)."""
    m = 1 << bits
    u = x % m
    return u - m if u >= m // 2 else u


def _int_to_float32(x: int) -> float:
    """``x`` (any Python int) rounded once to float32, as a Python float (±inf beyond
    float32's range). The bits below the 60 leading ones are folded into one sticky bit,
    which keeps every rounding decision of a 24-bit significand."""
    sign = -1 if x < 0 else 1
    a = abs(x)
    shift = max(a.bit_length() - 60, 0)
    m = (a >> shift) | (1 if a & ((1 << shift) - 1) else 0)
    with np.errstate(over="ignore"):
        return float(np.float32(np.float32(np.int64(sign * m)) * np.float32(2.0) ** shift)) if shift < 128 else sign * math.inf


def np_cast(x: Any, dtype: DType) -> Any:
    """:func:`py_cast` on NumPy arrays (reals computed in float64)."""
    if dtype.is_float:
        a = np.asarray(x)
        if dtype == DType.FLOAT and np.issubdtype(a.dtype, np.integer):
            return a.astype(np.float32).astype(np.float64)  # one rounding (see py_cast)
        return np.asarray(x, dtype=np.float64)
    if np.issubdtype(np.asarray(x).dtype, np.floating):
        x = np.trunc(x)
    v = np.asarray(x).astype(np.int64)
    return np_wrap_to(v, dtype)


def np_wrap_to(v: Any, dtype: DType) -> Any:
    """:func:`py_wrap_to` on int64 NumPy values. Exact also for int64 values that wrapped
    modulo 2⁶⁴ on the way: ranges of at most 32 bits divide 2⁶⁴."""
    r = dtype.int_range
    if r is None:
        return v
    lo, hi = r
    mask = np.int64(hi - lo)
    return np.bitwise_and(np.subtract(v, np.int64(lo)), mask) + np.int64(lo)


# ---------------------------------------------------------------- unary math functions

def py_round(x: float) -> float:
    """C's ``round`` (C11 7.12.9.6): the nearest integer, halfway cases away from zero (not
    Python's ``round``, nor NumPy's, which round half to even). ``x - trunc(x)`` is exact in
    binary floating point, so the comparison with 0.5 decides exactly (``floor(|x| + 0.5)``
    would not: 0.49999999999999994 + 0.5 rounds to 1.0)."""
    t = float(math.trunc(x))
    return t + math.copysign(1.0, x) if abs(x - t) >= 0.5 else t


def np_round(x: Any) -> Any:
    """:func:`py_round` on NumPy arrays (the same exact formula)."""
    t = np.trunc(x)
    return t + np.sign(x) * (np.abs(x - t) >= 0.5)


#: name → (Python, NumPy, SMT-LIB). ``exp``, ``sqrt``, ``log``, ``tanh``, ``expm1``, ``cos``,
#: ``sin`` are *uninterpreted*
#: functions of the reals in proofs (a proof then holds for every function in their place,
#: so in particular for the real one); ``fabs`` is defined exactly.
UNARY_FUNCTIONS: dict[str, tuple[Any, Any, str]] = {
    "exp": (math.exp, np.exp, "tenspiler.exp"),
    "sqrt": (math.sqrt, np.sqrt, "tenspiler.sqrt"),
    "log": (math.log, np.log, "tenspiler.log"),
    "tanh": (math.tanh, np.tanh, "tenspiler.tanh"),
    "fabs": (abs, np.abs, "tenspiler.fabs"),
    "expm1": (math.expm1, np.expm1, "tenspiler.expm1"),
    "cos": (math.cos, np.cos, "tenspiler.cos"),
    "sin": (math.sin, np.sin, "tenspiler.sin"),
    "round": (py_round, np_round, "tenspiler.round"),
    "floor": (lambda x: float(math.floor(x)), np.floor, "tenspiler.floor"),
}
UNINTERPRETED = ("exp", "sqrt", "log", "tanh", "expm1", "cos", "sin", "pow")


def py_call(func: str, x: Any) -> Any:
    if (func in ("sqrt", "log") and x < 0) or (func == "log" and x == 0):
        raise UndefinedBehaviour(f"{func}({x}) is outside its domain")
    return UNARY_FUNCTIONS[func][0](float(x))


def np_call(func: str, x: Any) -> Any:
    with np.errstate(all="ignore"):
        return UNARY_FUNCTIONS[func][1](np.asarray(x, dtype=np.float64))


def smt_call(func: str, x: str) -> str:
    return f"({UNARY_FUNCTIONS[func][2]} {x})"


# ---------------------------------------------------------------- SMT-LIB text

#: Definitions every SMT-LIB script starts with (C division and remainder on Int).
SMT_PRELUDE = """\
; C integer division truncates toward zero (C11 6.5.5); SMT-LIB div/mod are Euclidean.
(define-fun c_div ((x Int) (y Int)) Int
  (let ((q (div (abs x) (abs y)))) (ite (= (>= x 0) (> y 0)) q (- q))))
(define-fun c_mod ((x Int) (y Int)) Int
  (let ((r (mod (abs x) (abs y)))) (ite (>= x 0) r (- r))))
; C conversion of a real to an integer truncates toward zero.
(define-fun c_trunc ((x Real)) Int (ite (>= x 0.0) (to_int x) (- (to_int (- x)))))
; math functions: exp, sqrt, log, tanh, expm1, cos, sin are uninterpreted (any function in their place); fabs is exact
(declare-fun tenspiler.exp (Real) Real)
(declare-fun tenspiler.expm1 (Real) Real)
(declare-fun tenspiler.cos (Real) Real)
(declare-fun tenspiler.sin (Real) Real)
(declare-fun tenspiler.sqrt (Real) Real)
(declare-fun tenspiler.log (Real) Real)
(declare-fun tenspiler.tanh (Real) Real)
(define-fun tenspiler.fabs ((x Real)) Real (ite (>= x 0.0) x (- x)))
"""


#: The declaration of the real power, added after :data:`SMT_PRELUDE` by the scripts that
#: use it (:func:`smt_extra_declarations`): uninterpreted, as the unary math functions.
SMT_POW = """\
; pow is uninterpreted too (any function of two reals in its place)
(declare-fun tenspiler.pow (Real Real) Real)"""


#: C's ``round`` on the reals, exactly: ``floor(|x| + 1/2)`` with the sign of ``x``
#: (``to_int`` is the floor); added by the scripts that use it.
SMT_ROUND = """\
; round is exact: the nearest integer, halfway cases away from zero (C11 7.12.9.6)
(define-fun tenspiler.round ((x Real)) Real
  (ite (>= x 0.0) (to_real (to_int (+ x 0.5))) (- (to_real (to_int (+ (- x) 0.5))))))"""


#: C's ``floor`` on the reals, exactly (``to_int`` is the floor); added by the scripts that
#: use it.
SMT_FLOOR = """\
; floor is exact: the largest integer not greater than x (C11 7.12.9.2)
(define-fun tenspiler.floor ((x Real)) Real (to_real (to_int x)))"""

#: The integer power ``pow(2, k)`` exactly for ``k`` in ``[0, 32)`` (0 elsewhere, where the
#: stated precondition of the shift excludes it); added by the scripts that use it.
SMT_IPOW2 = "; the integer power of a run-time shift count: 2^k for k in [0, 32)\n" \
    "(define-fun tenspiler.pow2 ((k Int)) Int\n  " + \
    "".join(f"(ite (= k {k}) {2**k} " for k in range(32)) + "0" + ")" * 32 + ")"


def smt_extra_declarations(text: str) -> list[str]:
    """The declarations beyond :data:`SMT_PRELUDE` that the SMT-LIB ``text`` uses."""
    return [d for key, d in (("(tenspiler.pow ", SMT_POW), ("(tenspiler.round ", SMT_ROUND),
                             ("(tenspiler.floor ", SMT_FLOOR), ("(tenspiler.pow2 ", SMT_IPOW2)) if key in text]


def smt_sort(dtype: DType) -> str:
    return "Real" if dtype.is_float else "Int"


def smt_binop(op: BinOpName, x: str, y: str, dtype: DType) -> str:
    if op == "pow":
        if not dtype.is_float:
            if x.strip() != "2":
                raise NotImplementedError(f"the integer pow is pow(2, k), not pow({x}, k)")
            return f"(tenspiler.pow2 {y})"
        return f"(tenspiler.pow {x} {y})"
    if op in ("+", "-", "*"):
        return f"({op} {x} {y})"
    if op in ("&", "|", "^"):
        # on the 64-bit two's complement representation (exact for the values of every C
        # integer type of at most 64 bits), read back as a signed value; written inline so
        # that scripts without bitwise operators do not change
        bv = {"&": "bvand", "|": "bvor", "^": "bvxor"}[op]
        r = f"(bv2nat ({bv} ((_ int2bv 64) {x}) ((_ int2bv 64) {y})))"
        return f"(let ((c.bits {r})) (ite (>= c.bits {2**63}) (- c.bits {2**64}) c.bits))"
    if op in ("//", "mod"):
        if dtype.is_float:
            raise NotImplementedError(f"Python {op} on reals has no SMT encoding here")
        # SMT-LIB div/mod are Euclidean (0 <= r < |y|): equal to Python's floor division
        # and modulo for y > 0; for y < 0, x // y == (-x) div (-y) and x % y == -((-x) mod (-y)).
        if op == "//":
            body = "(ite (> py.y 0) (div py.x py.y) (div (- py.x) (- py.y)))"
        else:
            body = "(ite (> py.y 0) (mod py.x py.y) (- (mod (- py.x) (- py.y))))"
        return f"(let ((py.x {x}) (py.y {y})) {body})"
    if dtype.is_float:
        if op == "/":
            return f"(/ {x} {y})"
        raise NotImplementedError("fmod on reals has no SMT encoding here")
    return f"(c_div {x} {y})" if op == "/" else f"(c_mod {x} {y})"


def smt_neg(x: str) -> str:
    return f"(- {x})"


def smt_wrap_to(x: str, dtype: DType) -> str:
    """:func:`py_wrap_to` as SMT-LIB (``mod`` is Euclidean: the result is in range)."""
    r = dtype.int_range
    if r is None:
        return x
    lo, hi = r
    if lo == 0:
        return f"(mod {x} {hi + 1})"
    return f"(- (mod (+ {x} {-lo}) {hi - lo + 1}) {-lo})"


def smt_cast(x: str, src: DType, dst: DType) -> str:
    if src.is_float == dst.is_float:
        if dst.int_range is not None and dst != src:
            s, d = src.int_range, dst.int_range
            if s is not None and d[0] <= s[0] and s[1] <= d[1]:
                return x  # every value of src is one of dst
            return smt_wrap_to(x, dst)
        return x
    if dst.is_float:
        return f"(to_real {x})"
    return smt_wrap_to(f"(c_trunc {x})", dst)


def smt_const(value: int | float, dtype: DType) -> str:
    if dtype.is_float:
        from fractions import Fraction

        fr = Fraction(value)
        num, den = fr.numerator, fr.denominator
        n = f"{abs(num)}.0" if den == 1 else f"(/ {abs(num)}.0 {den}.0)"
        return f"(- {n})" if num < 0 else n
    v = int(value)
    return f"(- {-v})" if v < 0 else str(v)


# ---------------------------------------------------------------- agreement of results

#: Tolerances for float outputs (``np.allclose``); integer outputs must be equal.
RTOL = 1e-5
ATOL = 1e-6
#: ``float`` results (computed in float32 by both sides, in different orders) are compared
#: with an absolute tolerance relative to the largest magnitude in the result: a sum whose
#: terms cancel has a large *relative* error in any order.
FLOAT32_SCALE = 1e-5


def results_agree(expected: object, got: object, dtype: DType, magnitude: float = 0.0) -> bool:
    """Whether two results of the same C computation agree under the model (the one
    comparison of ``--check`` and of the Gemmini device check): equal for integers; for
    floats within RTOL/ATOL, and for C ``float`` results (rounded in float32 by both sides,
    in different orders) within FLOAT32_SCALE of the larger of the result's magnitude and
    ``magnitude`` (:func:`tenspiler.check.values.term_magnitude`)."""
    e, g = np.asarray(expected), np.asarray(got)
    if e.shape != g.shape:
        return False
    if dtype.is_float:
        atol = ATOL
        if dtype == DType.FLOAT and e.size:
            finite = np.abs(e[np.isfinite(e)])  # 0-d arrays index to shape (0,) or (1,)
            atol = max(ATOL, FLOAT32_SCALE * max(float(np.max(finite, initial=1.0)), magnitude))
        return bool(np.allclose(g.astype(np.float64), e, rtol=RTOL, atol=atol, equal_nan=True))
    if not np.issubdtype(g.dtype, np.integer) and not np.all(np.trunc(g) == g):
        return False
    return bool(np.array_equal(e.astype(np.int64), g.astype(np.int64)))
