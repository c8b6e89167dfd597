"""Plain C (C99 + GNU statement expressions) that evaluates TensIR terms: the *host
fallback* of an accelerator C file — whatever the device does not compute is computed by
the code this module emits.

API::

    emitter = CHostEmitter(arrays={"a": CArray("a", "int32_t", "n")}, scalars={"n": "n"})
    prelude()                          # helper definitions + #includes, once per C file
    emitter.scalar(term)               # C expression of a scalar term
    emitter.length(term)               # C expression: number of elements of a 1-D term
    emitter.fill("out", term, "float") # C statements: out[k] = (float) term[k] for all k

**Semantics** are those of the reference interpreter :func:`tenspiler.ir.interp.evaluate`,
on which the emitted code is correct under these assumptions (the caller's
responsibility; nothing is checked at run time):

* ``evaluate`` does not raise on the same inputs (the C code has undefined behaviour where
  it raises: an out-of-range ``take``, an integer division by zero, ``reduce_max`` of an
  empty tensor — which the emitted code defines as 0 —, ``sqrt`` of a negative number …);
* every integer the interpreter computes fits ``int64_t`` (TensIR integers are unbounded;
  integer nodes are computed in ``int64_t``), and every integer used as a real (converted
  to ``double``) has magnitude at most 2**53, where conversion is exact;
* a real converted to an integer is finite and in ``int64_t`` range (and, where ``fill``
  stores a real into an integer array, in that type's range, as for any C assignment);
* ``fill``'s destination does not overlap an array the term reads (inputs denote their
  values before any output is written; ``fill`` rejects the obvious case, a destination
  naming such an array);
* the translation unit is compiled with IEEE double arithmetic and without contraction of
  ``a * b + c`` into fused multiply-adds: ``-ffp-contract=off`` for GCC (its default in the
  GNU modes is ``fast``; this matters on targets with FMA instructions), no
  ``-ffast-math``. :func:`prelude` rejects ``-ffast-math`` and excess precision
  (``FLT_EVAL_METHOD != 0``, e.g. x87) with ``#error`` and turns contraction off for Clang.

**C types** (``CHostEmitter(..., c_types=True)``, the Gemmini C file's host code): the code
is C's instead — each ``FLOAT`` node is computed in ``float`` (a chain of ``float``
operations rounds after each, literals are ``float`` constants, ``exp`` of a ``float`` result
is ``expf``), a comparison converts its operands to their common C type (``promote``: a
``float`` against a ``double`` literal compares in ``double``, an ``int`` against a ``float``
in ``float``), a sum accumulates in its own type (C's ``acc += x[k]``), and integer
operands of a real operation are converted first. The interpreter computes reals in
float64 without intermediate rounding, so on inputs where rounding decides (a comparison at
a float boundary) the two differ and the C types are the original program's.

**Types** (:func:`ctype`, the default): every integer node (``INT`` and ``UINT8``) is computed in
``int64_t`` — the interpreter never wraps a ``UINT8``-typed node, only a *cast* to ``UINT8``
wraps (modulo 256) —, and every real node (``FLOAT`` and ``DOUBLE``) in ``double``, because
the interpreter computes all reals in float64. Rounding to ``float`` (or conversion to any
other C element type) happens only where :meth:`CHostEmitter.fill` stores an element, as a
C assignment converts. Conversions between the computation types are C's (real → integer
truncates toward zero, as the interpreter does).

**Operators**: integer ``/`` and ``%`` are C's (truncating), ``//`` and ``mod`` Python's
floor division and modulo (helpers ``tsp_floordiv`` / ``tsp_floormod`` of the prelude);
on reals ``%`` is ``fmod``, and ``//`` / ``mod`` are not supported (:class:`CHostError`).
Math functions (``exp``, ``sqrt``, ``log``, ``tanh``, ``fabs``) are the C library's double
versions (``evaluate`` calls the same C library for scalars; for tensors NumPy's own
vectorised ``exp``/``log``/``tanh`` may differ in the last bit). Reductions are sequential
loops in element order: exact for integers; a real ``reduce_sum`` (or ``reduce_rows`` row)
of 8 or more elements may round differently from NumPy's pairwise summation in the
interpreter (below 8 NumPy sums sequentially too). ``reduce_max`` propagates NaN like NumPy.

**Selects** evaluate, per element, only the chosen operand, like C's ``?:`` (so a select
guarding a division by zero is safe). As in the interpreter, tensor operands of a
``tensor_select`` (condition operands included) broadcast NumPy-style: an operand of
length 1 stands for every element. (The interpreter additionally computes a *taken* lane
whose divisor is zero inside a select branch with divisor 1; the C code then divides by
zero — C's behaviour is undefined there.)

**Code shape**: an element of a tensor term at an index is a C expression built
recursively (:meth:`CHostEmitter.elem`, :meth:`CHostEmitter.elem2`); a reduction is a GNU
statement expression ``({ ... })`` with its own loop. Before each loop (``fill``,
``reduce_sum``, ``reduce_max``) the scalar subterms that the interpreter evaluates
unconditionally — those not inside a select's branches — are computed once into locals, so
e.g. softmax's ``reduce_max`` is not recomputed per element. Generated identifiers start
with ``tsp_`` and are unique per emitter; that prefix is reserved (arrays, scalar
expressions and destinations using it are rejected), so emitted fragments can be nested
and placed anywhere in a function body without capturing names. (With ``-Wextra``, GCC may
warn about comparisons that are always true for data read from ``unsigned char`` arrays.)

Supported: every TensIR node with these limits — 2-D terms (``matrix``, ``transpose``,
``tensor_tensor`` / ``tensor_scalar`` / ``tensor_cast`` / ``map`` of matrices, a vector
broadcast along the rows of a matrix, ``tensor_select`` of matrices with NumPy's broadcasting,
``stack`` of 1-D rows) only under ``reduce_rows`` or ``flatten``; ``stack`` of scalars (a 1-D
term) and of 1-D rows whose length does not mention the row variable (its element is the body
with the row variable bound to the index); ``reduce_sum`` / ``reduce_max`` / ``argmax`` only
of 1-D terms. Everything else raises
:class:`CHostError` naming the op; the emitter never returns code for a term it does not
fully support.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from tenspiler.codegen.base import op_key
from tenspiler.errors import CodegenError
from tenspiler.ir.terms import (
    ArgMax,
    BoolOp,
    Cmp,
    Cond,
    Flatten,
    Full,
    Iota,
    Lit,
    MatMul,
    Matrix,
    NotCond,
    ReduceMax,
    ReduceProd,
    ReduceRows,
    ReduceSum,
    ScalarApply,
    ScalarCast,
    ScalarOp,
    ScalarSelect,
    ScalarVar,
    Size,
    Slice,
    Stack,
    Strided,
    Tail,
    Take,
    TensorCast,
    TensorMap,
    TensorScalar,
    TensorSelect,
    TensorTensor,
    TensorVar,
    Term,
    Transpose,
    as_tensor,
    children,
    free_vars,
    is_tensor,
    length,
    promote,
)
from tenspiler.loops.ir import DType

__all__ = ["CArray", "CHostEmitter", "CHostError", "ctype", "prelude"]


class CHostError(CodegenError):
    """A term (or a use of the emitter) the C host emitter does not support; the message
    names the op. Raised instead of ever returning code that could be wrong."""


@dataclass(frozen=True)
class CArray:
    """A C array the emitted code may read.

    Attributes:
        name: C identifier of the array (or pointer).
        ctype: its element C type (``"int32_t"``, ``"unsigned char"``, ``"float"`` …);
            elements are converted to the computation type (:func:`ctype`) when read.
        length: C expression for its number of elements (``size`` of the tensor variable).
    """

    name: str
    ctype: str
    length: str


def ctype(d: DType) -> str:
    """The C type values of dtype ``d`` are computed in: ``"int64_t"`` for ``INT`` and
    ``UINT8`` (the interpreter computes integers exactly and wraps only at casts to
    ``UINT8``), ``"double"`` for ``FLOAT`` and ``DOUBLE`` (the interpreter computes reals in
    float64)."""
    return "double" if d.is_float else "int64_t"


_PRELUDE = """\
#ifndef TSP_C_HOST_PRELUDE
#define TSP_C_HOST_PRELUDE
/* Helpers of the TensIR host code (tenspiler.codegen.c_host). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "TensIR host code needs double arithmetic rounded to double (FLT_EVAL_METHOD == 0)"
#endif
#ifdef __FAST_MATH__
#error "TensIR host code must not be compiled with -ffast-math"
#endif
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif
/* Python's floor division x // y (y != 0). */
static inline int64_t tsp_floordiv(int64_t x, int64_t y) {
    const int64_t q = x / y;
    return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
}
/* Python's modulo x % y (sign of y; y != 0). */
static inline int64_t tsp_floormod(int64_t x, int64_t y) {
    const int64_t r = x % y;
    return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
}
/* Conversion to unsigned char: x modulo 256, in [0, 255]. */
static inline int64_t tsp_wrap_u8(int64_t x) {
    return (int64_t)((uint64_t)x & UINT64_C(255));
}
/* Conversion to a ranged integer type [lo, lo + mask]: x modulo mask + 1 into that range
   (two's complement: exact on any int64 x, the range's width dividing 2^64). */
static inline int64_t tsp_wrap(int64_t x, int64_t lo, uint64_t mask) {
    return (int64_t)(((uint64_t)x - (uint64_t)lo) & mask) + lo;
}
/* Length of two broadcast 1-D operands (NumPy: a length-1 operand stretches). */
static inline int64_t tsp_bcast(int64_t a, int64_t b) {
    return a == 1 ? b : a;
}
#endif /* TSP_C_HOST_PRELUDE */
"""


def prelude() -> str:
    """C text to put once before any emitted code: ``#include`` of ``stdint.h``,
    ``math.h``, ``float.h``, checks of the floating-point environment, and the static
    inline helpers (``tsp_floordiv``, ``tsp_floormod``, ``tsp_wrap_u8``, ``tsp_bcast``).
    Guarded, so including it twice is harmless."""
    return _PRELUDE


# ---------------------------------------------------------------- helpers

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_RESERVED = re.compile(r"\btsp_")
_FUNCTIONS = {"exp": "exp", "sqrt": "sqrt", "log": "log", "tanh": "tanh", "fabs": "fabs",
              "expm1": "expm1", "cos": "cos", "sin": "sin", "round": "round", "floor": "floor"}
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _name(t: object) -> str:
    """The op name of ``t`` for messages (``op_key``), or its class name."""
    try:
        return op_key(t)  # type: ignore[arg-type]
    except (AssertionError, TypeError):
        return type(t).__name__


def _real(t: Term) -> bool:
    """Whether the interpreter's value of ``t`` (its elements, for a tensor) is a real."""
    return t.dtype.is_float


def _conv(expr: str, src_real: bool, d: DType) -> str:
    """``expr`` (a value of the computation type of a real / integer) converted to the
    computation type of ``d`` as the interpreter converts (real → integer truncates)."""
    if d.is_float:
        return expr if src_real else f"((double)({expr}))"
    return f"((int64_t)({expr}))" if src_real else expr


def _cast(expr: str, src_real: bool, d: DType) -> str:
    """C conversion to ``d`` (``scalar_cast`` / ``tensor_cast``): as :func:`_conv`, and a
    conversion to ``UINT8`` wraps modulo 256."""
    v = _conv(expr, src_real, d)
    return _wrap(v, d)


def _wrap(v: str, d: DType) -> str:
    """``v`` converted to the ranged integer type ``d`` (``semantics.py_wrap_to``)."""
    if d == DType.UINT8:
        return f"tsp_wrap_u8({v})"
    if (r := d.int_range) is not None:
        return f"tsp_wrap({v}, {_int_literal(r[0])}, UINT64_C({r[1] - r[0]}))"
    return v


def _int_literal(v: int) -> str:
    if not _INT64_MIN <= v <= _INT64_MAX:
        raise CHostError(f"lit: integer {v} does not fit int64_t")
    if v == _INT64_MIN:
        return "(-INT64_C(9223372036854775807) - 1)"
    return f"INT64_C({v})" if v >= 0 else f"(-INT64_C({-v}))"


def _literal(value: int | float, d: DType) -> str:
    try:
        if not d.is_float:
            return _int_literal(int(value))
        f = float(value)
    except (OverflowError, ValueError) as e:
        raise CHostError(f"lit: {value!r} has no {d.value} value ({e})") from None
    if math.isnan(f):
        return "((double)NAN)"
    if math.isinf(f):
        return "((double)INFINITY)" if f > 0 else "(-(double)INFINITY)"
    return f"({f.hex()})"  # hexadecimal floating constant: exact


def _binop(op: str, a: str, b: str, d: DType) -> str:
    """``a op b`` on two values already in ``d``'s computation type (NumPy's ``np_binop``)."""
    if not d.is_float:
        if op in ("+", "-", "*", "/", "%", "&", "|", "^"):
            return f"({a} {op} {b})"  # (& | ^ on int64_t: two's complement, as np_binop)
        if op == "pow":  # pow(2, k), k in [0, 32) (semantics.py_ipow2; the count's range is checked first)
            return f"((int64_t) 1 << ({b}))"
        if op == "//":
            return f"tsp_floordiv({a}, {b})"
        if op == "mod":
            return f"tsp_floormod({a}, {b})"
    else:
        if op in ("+", "-", "*", "/"):
            return f"({a} {op} {b})"
        if op == "%":
            return f"fmod({a}, {b})"
        if op == "pow":
            return f"pow({a}, {b})"  # C's pow on doubles (semantics.np_pow)
        if op in ("//", "mod"):
            raise CHostError(f"Python {op} on reals is not supported")
    raise CHostError(f"unknown arithmetic operator {op!r}")


#: ``repr`` of a hoisted scalar subterm (a structural key: equal terms have equal values) →
#: the C local holding its value.
_Subst = dict[str, str]
#: A select operand's element: an index (1-D) or a (row, column) pair (2-D), by ``id``.
_Index = Mapping[int, "str | tuple[str, str]"]


# ---------------------------------------------------------------- the emitter


class CHostEmitter:
    """Emits C evaluating TensIR terms over given C arrays and scalar expressions.

    Args:
        arrays: TensIR :class:`~tenspiler.ir.terms.TensorVar` name → the :class:`CArray`
            holding it.
        scalars: :class:`~tenspiler.ir.terms.ScalarVar` name → a C expression of its
            value (of any arithmetic C type; converted to the variable's computation type).
        c_types: compute each operation in its C type (see the module docstring) instead of
            the interpreter's (reals in ``double``).

    Raises:
        CHostError: an array name that is not a C identifier, or a name / expression
            using the reserved prefix ``tsp_``.

    All methods raise :class:`CHostError` for a term they do not support (the message
    names the op), for an unknown variable, and for a term of the wrong kind (a scalar
    where a tensor is expected, a 2-D term where a 1-D one is expected).
    """

    def __init__(self, arrays: Mapping[str, CArray], scalars: Mapping[str, str], *, c_types: bool = False) -> None:
        for var, arr in arrays.items():
            if not _IDENT.match(arr.name):
                raise CHostError(f"array of {var!r}: {arr.name!r} is not a C identifier")
            for text in (arr.name, arr.ctype, arr.length):
                _check_reserved(text, f"array of {var!r}")
            if not arr.ctype.strip() or not arr.length.strip():
                raise CHostError(f"array of {var!r}: empty element type or length")
        for var, expr in scalars.items():
            _check_reserved(expr, f"scalar {var!r}")
            if not expr.strip():
                raise CHostError(f"scalar {var!r}: empty C expression")
        self._arrays = dict(arrays)
        self._scalars = dict(scalars)
        self.c_types = c_types
        self._count = 0
        self._ranks: dict[int, tuple[Term, int]] = {}

    # ------------------------------------------------------------ public API

    def scalar(self, t: Term) -> str:
        """A C expression of type ``ctype(t.dtype)`` with the value of the scalar term
        ``t`` (side-effect free; it may contain statement expressions)."""
        return self._s(t, {})

    def length(self, t: Term) -> str:
        """A C expression (``int64_t``) for the number of elements of the 1-D tensor
        term ``t``."""
        self._need_rank(t, 1)
        return self._len(t, {})

    def elem(self, t: Term, i: str) -> str:
        """A C expression of type ``ctype(t.dtype)`` for element ``i`` of the 1-D tensor
        term ``t``. ``i`` is a side-effect-free ``int64_t`` C expression in
        ``[0, length(t))``; it may be evaluated several times or not at all."""
        self._need_rank(t, 1)
        _check_reserved(i, "index")
        return self._e(t, f"({i})", {})

    def elem2(self, t: Term, i: str, j: str) -> str:
        """A C expression of type ``ctype(t.dtype)`` for element ``(i, j)`` (row, column)
        of the 2-D tensor term ``t``; as :meth:`elem`."""
        self._need_rank(t, 2)
        _check_reserved(i, "index")
        _check_reserved(j, "index")
        return self._e2(t, f"({i})", f"({j})", {})

    def fill(self, dst: str, t: Term, dst_ctype: str) -> list[str]:
        """C statements (one compound statement, as lines) storing element ``k`` of the
        1-D tensor term ``t`` into ``dst[k]`` for ``0 <= k < length(t)``, each converted to
        ``dst_ctype`` as a C assignment converts.

        ``dst`` is a C expression of a pointer to ``dst_ctype``; it must not overlap any
        array ``t`` reads (use a temporary). A ``dst`` mentioning the C name of an array
        ``t`` reads raises :class:`CHostError`."""
        _check_reserved(dst, "destination")
        _check_reserved(dst_ctype, "destination type")
        if not dst.strip() or not dst_ctype.strip():
            raise CHostError("fill: empty destination or destination type")
        self._need_rank(t, 1)
        for name in sorted(_tensor_vars(t)):
            arr = self._array(name)
            if re.search(rf"\b{re.escape(arr.name)}\b", dst):
                raise CHostError(
                    f"fill: the destination {dst!r} may overlap the array {arr.name!r} the term reads"
                )
        decls, sub = self._hoist(t, {})
        n, k = self._fresh("n"), self._fresh("k")
        return [
            "{",
            *(f"    {d}" for d in decls),
            f"    const int64_t {n} = {self._len(t, sub)};",
            f"    for (int64_t {k} = 0; {k} < {n}; {k}++) {{",
            f"        ({dst})[{k}] = ({dst_ctype})({self._e(t, k, sub)});",
            "    }",
            "}",
        ]

    # ------------------------------------------------------------ names, ranks

    def _fresh(self, base: str) -> str:
        self._count += 1
        return f"tsp_{base}{self._count}"

    def _array(self, name: str) -> CArray:
        try:
            return self._arrays[name]
        except KeyError:
            raise CHostError(f"tensor_var: no C array for tensor variable {name!r}") from None

    def _rank(self, t: Term) -> int:
        """1 or 2 for a tensor term the emitter can index; raises for a scalar and for an
        ill-formed nesting (a view of a matrix, a 2-D select …)."""
        hit = self._ranks.get(id(t))
        if hit is not None and hit[0] is t:
            return hit[1]
        r = self._compute_rank(t)
        self._ranks[id(t)] = (t, r)
        return r

    def _compute_rank(self, t: Term) -> int:
        match t:
            case TensorVar():
                return 1
            case Take(x, _) | Tail(x, _) | Slice(x, _, _) | Strided(x, _, _, _):
                if self._rank(x) != 1:
                    raise CHostError(f"{_name(t)} of a 2-D tensor is not supported")
                return 1
            case Matrix(x, _, _, _):
                if self._rank(x) != 1:
                    raise CHostError(f"{_name(t)} of a 2-D tensor is not supported")
                return 2
            case Transpose(m):
                if self._rank(m) != 2:
                    raise CHostError("transpose of a 1-D tensor is not supported")
                return 2
            case MatMul(a, b, _, _, _):
                if self._rank(a) != 2 or self._rank(b) != 2:
                    raise CHostError("matmul of a 1-D tensor is not supported")
                return 2
            case ReduceRows(x, _, _):
                if self._rank(x) != 2:
                    raise CHostError("reduce_rows of a 1-D tensor is not supported")
                return 1
            case TensorTensor(_, l, r, _):
                return max(self._rank(l), self._rank(r))
            case TensorScalar(_, x, s, _, _):
                if is_tensor(s):
                    raise CHostError(f"{_name(t)}: a tensor as the scalar operand")
                return self._rank(x)
            case TensorCast(x, _) | TensorMap(_, x, _):
                return self._rank(x)
            case Full(_, v):
                if is_tensor(v):
                    raise CHostError(f"{_name(t)}: a tensor as the value")
                return 1
            case Iota():
                return 1
            case Flatten(m):
                if self._rank(m) != 2:
                    raise CHostError("flatten of a 1-D tensor is not supported")
                return 1
            case TensorSelect(c, a, b, _):
                ops = self._select_operands(c, a, b)
                if not ops:
                    raise CHostError("tensor_select without a tensor operand is not supported")
                return max(self._rank(o) for o in ops)
            case Stack(_, _, body):
                if not is_tensor(body):
                    return 1
                if self._rank(body) != 1:
                    raise CHostError("stack of 2-D tensors is not supported")
                return 2
        raise CHostError(f"{_name(t)}: a scalar where a tensor is expected")

    def _need_rank(self, t: Term, r: int) -> None:
        if not is_tensor(t):
            raise CHostError(f"{_name(t)}: a scalar where a tensor is expected")
        if self._rank(t) != r:
            raise CHostError(f"{_name(t)}: a {self._rank(t)}-D tensor where a {r}-D one is expected")

    @staticmethod
    def _select_operands(c: Cond, a: Term, b: Term) -> list[Term]:
        """The tensor operands of a ``tensor_select`` (condition operands first)."""
        out: list[Term] = []

        def walk(cond: Cond) -> None:
            match cond:
                case Cmp(_, l, r):
                    out.extend(x for x in (l, r) if is_tensor(x))
                case BoolOp(_, l, r):
                    walk(l)
                    walk(r)
                case NotCond(x):
                    walk(x)
                case _:
                    raise CHostError(f"{_name(cond)}: not a condition")

        walk(c)
        out.extend(x for x in (a, b) if is_tensor(x))
        return out

    # ------------------------------------------------------------ hoisting

    def _hoist(self, t: Term, sub: _Subst) -> tuple[list[str], _Subst]:
        """Declarations computing, once, the scalar subterms of the tensor term ``t`` that
        the interpreter evaluates unconditionally (not inside a select's branches), and the
        substitution extended with them. Equal subterms share one local."""
        targets: list[Term] = []

        def walk(u: Term) -> None:
            if not is_tensor(u):
                if not isinstance(u, ScalarVar | Lit):
                    targets.append(u)
                return
            if isinstance(u, TensorSelect):
                walk_cond(u.cond)  # the branches are evaluated per element, if chosen
                return
            if isinstance(u, Stack):
                walk(u.count)  # the body depends on the row variable: computed per row
                return
            for c in children(u):
                walk(c)

        def walk_cond(c: Cond) -> None:
            match c:
                case Cmp(_, l, r):
                    walk(l)
                    walk(r)
                case BoolOp(_, l, r):
                    walk_cond(l)
                    walk_cond(r)
                case NotCond(x):
                    walk_cond(x)

        walk(t)
        new = dict(sub)
        decls: list[str] = []
        for s in targets:
            key = repr(s)  # structural, and tells -0.0 from 0.0 and 1 from 1.0
            if key not in new:
                name = self._fresh("h")
                decls.append(f"const {self._ct(s.dtype)} {name} = {self._s(s, new)};")
                new[key] = name
        return decls, new

    # ------------------------------------------------------------ scalars

    def _s(self, t: Term, sub: _Subst) -> str:
        """C expression of type ``ctype(t.dtype)`` for the scalar term ``t``."""
        hit = sub.get(repr(t)) if sub else None
        if hit is not None:
            return hit
        match t:
            case ScalarVar(name, d):
                if name not in self._scalars:
                    raise CHostError(f"scalar_var: no C expression for scalar variable {name!r}")
                return f"(({self._ct(d)})({self._scalars[name]}))"
            case Lit(value, d):
                lit = _literal(value, d)
                return f"((float){lit})" if self._ct(d) == "float" else lit
            case ScalarOp(op, l, r, d):
                a, b = self._s(l, sub), self._s(r, sub)
                if not d.is_float:
                    if _real(l) or _real(r):
                        raise CHostError(f"{_name(t)}: an integer operation on a real operand")
                    return _binop(op, a, b, d)
                if op in ("//", "mod"):
                    raise CHostError(f"Python {op} on reals is not supported")
                if op in ("+", "-", "*") and not _real(l) and not _real(r) and not self.c_types:
                    # the interpreter computes exactly on the integers, then converts
                    return _conv(_binop(op, a, b, DType.INT), False, d)
                return _binop(op, self._conv(a, l.dtype, d), self._conv(b, r.dtype, d), d)
            case ReduceSum(x, d) | ReduceMax(x, d):
                return self._reduce(t, x, d, sub)
            case ArgMax(x, compare, last):
                return self._argmax(x, compare, last, sub)
            case ReduceProd(x, d):
                # C's `d acc = 1; acc *= x[k];` in the product's type (reals: the interpreter's)
                if not is_tensor(x) or self._rank(x) != 1:
                    raise CHostError("reduce_prod of a scalar or a 2-D tensor is not supported")
                decls, inner = self._hoist(x, sub)
                n, k, acc = self._fresh("n"), self._fresh("k"), self._fresh("acc")
                ct = self._ct(d)
                one = "1.0" if d.is_float else "INT64_C(1)"
                elem = self._conv(self._e(x, k, inner), x.dtype, d)
                head = " ".join([*decls, f"const int64_t {n} = {self._len(x, inner)};"])
                return f"({{ {head} {ct} {acc} = {one}; for (int64_t {k} = 0; {k} < {n}; {k}++) {acc} *= {elem}; {acc}; }})"
            case Size(x, d):
                if d.is_float:
                    raise CHostError("size of a real dtype is not supported")
                self._need_rank(x, 1)
                return self._len(x, sub)
            case ScalarCast(x, d):
                return self._cast(self._s(x, sub), x.dtype, d)
            case ScalarApply(fn, x, d):
                return self._apply(fn, self._s(x, sub), x.dtype, d, t)
            case ScalarSelect(c, a, b, d):
                then = self._conv(self._s(a, sub), a.dtype, d)
                other = self._conv(self._s(b, sub), b.dtype, d)
                return f"({self._cond(c, sub)} ? {then} : {other})"
        if is_tensor(t):
            raise CHostError(f"{_name(t)}: a tensor where a scalar is expected")
        raise CHostError(f"{_name(t)}: not a TensIR term")

    # ------------------------------------------------------------ computation types

    def _ct(self, d: DType) -> str:
        """The C type values of dtype ``d`` are computed in: :func:`ctype`, or with
        ``c_types`` the C type itself for ``float``."""
        return "float" if self.c_types and d == DType.FLOAT else ctype(d)

    def _conv(self, expr: str, src: DType, d: DType) -> str:
        """``expr`` (computed in ``src``'s computation type) in ``d``'s computation type (a
        real to an integer truncates)."""
        if not self.c_types:
            return _conv(expr, src.is_float, d)
        if src.is_float and d.is_float:
            return expr if self._ct(src) == self._ct(d) else f"(({self._ct(d)})({expr}))"
        if d.is_float:
            return f"(({self._ct(d)})({expr}))"
        return f"((int64_t)({expr}))" if src.is_float else expr

    def _cast(self, expr: str, src: DType, d: DType) -> str:
        """C conversion to ``d`` (``scalar_cast`` / ``tensor_cast``): as :meth:`_conv`, and a
        conversion to ``UINT8`` wraps modulo 256."""
        v = self._conv(expr, src, d)
        return _wrap(v, d)

    def _apply(self, fn: str, arg: str, src: DType, d: DType, t: Term) -> str:
        """A math function of ``arg`` (of ``src``) with a result of ``d``: the C library's
        double function — with ``c_types``, for a ``float`` result, its ``float`` one
        (``expf``), as C's ``expf(x)``."""
        if self._ct(d) == "float":
            return f"{self._func(fn, t)}f({self._conv(arg, src, d)})"
        return self._conv(f"{self._func(fn, t)}({self._conv(arg, src, DType.DOUBLE)})", DType.DOUBLE, d)

    @staticmethod
    def _func(fn: str, t: Term) -> str:
        if fn not in _FUNCTIONS:
            raise CHostError(f"{_name(t)}: unknown math function {fn!r}")
        return _FUNCTIONS[fn]

    def _index(self, t: Term, sub: _Subst, what: Term) -> str:
        """An integer scalar used as an index, length, shape or stride."""
        if is_tensor(t) or _real(t):
            raise CHostError(f"{_name(what)}: index, length or stride {_name(t)} is not an integer scalar")
        return self._s(t, sub)

    def _cond(self, c: Cond, sub: _Subst, i: str | None = None, bidx: _Index | None = None) -> str:
        """C truth value of a condition: of scalars (``i is None``), or at element ``i``
        of a ``tensor_select``, its tensor operands indexed by ``bidx[id(operand)]``."""
        match c:
            case Cmp(op, l, r) if op in ("<", "<=", ">", ">=", "==", "!="):
                a, b = self._operand(l, sub, i, bidx), self._operand(r, sub, i, bidx)
                if self.c_types:  # in the type C compares in (the usual arithmetic conversions)
                    common = promote(l.dtype, r.dtype)
                    a, b = self._conv(a, l.dtype, common), self._conv(b, r.dtype, common)
                return f"({a} {op} {b})"
            case BoolOp(op, l, r) if op in ("and", "or"):
                sym = "&&" if op == "and" else "||"
                return f"({self._cond(l, sub, i, bidx)} {sym} {self._cond(r, sub, i, bidx)})"
            case NotCond(x):
                return f"(!{self._cond(x, sub, i, bidx)})"
        raise CHostError(f"unsupported condition {c!r}")

    def _operand(self, t: Term, sub: _Subst, i: str | None, bidx: _Index | None) -> str:
        """A select or condition operand: a scalar, or a 1-D tensor's element."""
        if not is_tensor(t):
            return self._s(t, sub)
        if i is None or bidx is None:
            raise CHostError("scalar_select: a tensor in the condition is not supported")
        idx = bidx[id(t)]
        return self._e2(t, idx[0], idx[1], sub) if isinstance(idx, tuple) else self._e(t, idx, sub)

    def _reduce(self, t: ReduceSum | ReduceMax, x: Term, d: DType, sub: _Subst) -> str:
        """A statement expression: the sum / maximum of the 1-D term ``x`` (0 if empty),
        converted to ``d``."""
        if not is_tensor(x) or self._rank(x) != 1:
            raise CHostError(f"{_name(t)} of a {'scalar' if not is_tensor(x) else '2-D tensor'} is not supported")
        decls, inner = self._hoist(x, sub)
        n, k = self._fresh("n"), self._fresh("k")
        head = " ".join([*decls, f"const int64_t {n} = {self._len(x, inner)};"])
        loop = self._accumulate(isinstance(t, ReduceMax), x, k, n, self._e(x, k, inner), d)
        return f"({{ {head} {loop} }})"

    def _argmax(self, x: Term, compare: DType, last: bool, sub: _Subst) -> str:
        """A statement expression: the first (``last``: the last) index of the maximum of the
        1-D term ``x``, its elements compared in ``compare`` — C's ``if (v > m)`` loop (``>=``
        with ``last``). NaN: the first (last) NaN's index, like NumPy's ``argmax``. 0 for an
        empty tensor (the interpreter raises there)."""
        if not is_tensor(x) or self._rank(x) != 1:
            raise CHostError("argmax of a scalar or a 2-D tensor is not supported")
        decls, inner = self._hoist(x, sub)
        n, k, acc, v, best = (self._fresh(b) for b in ("n", "k", "acc", "v", "best"))
        ct = self._ct(compare)
        head = " ".join([*decls, f"const int64_t {n} = {self._len(x, inner)};"])
        elem = self._conv(self._e(x, k, inner), x.dtype, compare)
        beats = f"{v} >= {acc}" if last else f"{v} > {acc}"
        if compare.is_float:
            beats = f"{beats} || isnan({v})" if last else f"!isnan({acc}) && ({beats} || isnan({v}))"
        body = f"{{ const {ct} {v} = {elem}; if ({k} == 0 || {beats}) {{ {acc} = {v}; {best} = {k}; }} }}"
        return (f"({{ {head} {ct} {acc} = 0; int64_t {best} = 0; "
                f"for (int64_t {k} = 0; {k} < {n}; {k}++) {body} {best}; }})")

    def _accumulate(self, is_max: bool, x: Term, k: str, n: str, elem: str, d: DType) -> str:
        """Statements ending in the expression statement of the result: the sum / maximum
        of ``elem`` (of ``x``'s computation type) over ``k`` in ``[0, n)``."""
        real = _real(x)
        ct = self._ct(x.dtype)
        result = self._conv(acc := self._fresh("acc"), x.dtype, d)
        if self.c_types and not is_max:  # C's `d acc = 0; acc += x[k];` (each step in C's types)
            ct, result, real = self._ct(d), acc, d.is_float
        zero = "0.0" if real else "INT64_C(0)"
        if is_max:
            v = self._fresh("v")
            take = f"{k} == 0 || {v} >= {acc}" + (f" || isnan({v})" if real else "")
            body = f"{{ const {ct} {v} = {elem}; if ({take}) {acc} = {v}; }}"
        else:
            body = f"{acc} += {elem};"
        return f"{ct} {acc} = {zero}; for (int64_t {k} = 0; {k} < {n}; {k}++) {body} {result};"

    # ------------------------------------------------------------ 1-D tensors

    def _len(self, t: Term, sub: _Subst) -> str:
        """``int64_t`` C expression: number of elements of the 1-D term ``t``."""
        match t:
            case TensorVar(name, _):
                return f"((int64_t)({self._array(name).length}))"
            case Take(_, n):
                return self._index(n, sub, t)
            case Tail(x, n):
                return f"({self._len(x, sub)} - {self._index(n, sub, t)})"
            case Slice(_, lo, hi):
                return f"({self._index(hi, sub, t)} - {self._index(lo, sub, t)})"
            case Strided(_, _, count, _) | Full(count, _):
                return self._index(count, sub, t)
            case Iota(lo, hi):
                return f"({self._index(hi, sub, t)} - {self._index(lo, sub, t)})"
            case Flatten(m):
                return f"({self._rows(m, sub)} * {self._cols(m, sub)})"
            case TensorTensor(_, l, _, _):
                return self._len(l, sub)
            case TensorScalar(_, x, _, _, _) | TensorCast(x, _) | TensorMap(_, x, _):
                return self._len(x, sub)
            case TensorSelect(c, a, b, _):
                return self._bcast([self._len(o, sub) for o in self._select_operands(c, a, b)])
            case ReduceRows(x, _, _):
                return self._rows(x, sub)
            case Stack(_, count, body) if not is_tensor(body):
                return self._index(count, sub, t)
        raise CHostError(f"{_name(t)}: not a 1-D tensor")

    def _e(self, t: Term, i: str, sub: _Subst) -> str:
        """C expression of type ``ctype(t.dtype)``: element ``i`` of the 1-D term ``t``."""
        match t:
            case TensorVar(name, d):
                return f"(({self._ct(d)})({self._array(name).name}[{i}]))"
            case Take(x, n):
                self._index(n, sub, t)  # validate
                return self._e(x, i, sub)
            case Tail(x, n):
                return self._e(x, f"({i} + {self._index(n, sub, t)})", sub)
            case Slice(x, lo, hi):
                self._index(hi, sub, t)
                return self._e(x, f"({i} + {self._index(lo, sub, t)})", sub)
            case Strided(x, start, count, step):
                self._index(count, sub, t)
                return self._e(x, f"({self._index(start, sub, t)} + {i} * {self._index(step, sub, t)})", sub)
            case TensorTensor(op, l, r, d):
                if self._rank(t) != 1:
                    raise CHostError(f"{_name(t)}: a 2-D tensor where a 1-D one is expected")
                a = self._conv(self._e(l, i, sub), l.dtype, d)
                b = self._conv(self._e(r, i, sub), r.dtype, d)
                return _binop(op, a, b, d)
            case TensorScalar(op, x, s, left, d):
                v = self._conv(self._e(x, i, sub), x.dtype, d)
                sv = self._conv(self._s(s, sub), s.dtype, d)
                return _binop(op, sv, v, d) if left else _binop(op, v, sv, d)
            case TensorCast(x, d):
                return self._cast(self._e(x, i, sub), x.dtype, d)
            case TensorMap(fn, x, d):
                return self._apply(fn, self._e(x, i, sub), x.dtype, d, t)
            case Flatten(m):  # row-major: element i is (i / cols, i % cols), i >= 0
                w = self._cols(m, sub)
                return self._e2(m, f"(({i}) / {w})", f"(({i}) % {w})", sub)
            case Full(n, v):
                self._index(n, sub, t)
                return self._s(v, sub)
            case Iota(lo, hi):
                self._index(hi, sub, t)
                return f"({self._index(lo, sub, t)} + {i})"
            case TensorSelect(c, a, b, d):
                self._need_rank(t, 1)
                ops = self._select_operands(c, a, b)
                if len(ops) == 1:
                    bidx = {id(ops[0]): i}
                else:  # NumPy broadcasting: an operand of length 1 stands for every element
                    bidx = {id(o): f"(({self._len(o, sub)}) == 1 ? INT64_C(0) : {i})" for o in ops}
                then = self._conv(self._operand(a, sub, i, bidx), a.dtype, d)
                other = self._conv(self._operand(b, sub, i, bidx), b.dtype, d)
                return f"({self._cond(c, sub, i, bidx)} ? {then} : {other})"
            case Stack(var, count, body) if not is_tensor(body):
                self._index(count, sub, t)
                return self._s(body, self._bind(var, body, i, sub))
            case ReduceRows(x, d, kind):
                self._need_rank(x, 2)
                if kind not in ("sum", "max"):
                    raise CHostError(f"reduce_rows of kind {kind!r} is not supported")
                cols, j = self._fresh("n"), self._fresh("k")
                loop = self._accumulate(kind == "max", x, j, cols, self._e2(x, i, j, sub), d)
                return f"({{ const int64_t {cols} = {self._cols(x, sub)}; {loop} }})"
        if is_tensor(t):
            raise CHostError(f"{_name(t)}: a 2-D tensor where a 1-D one is expected")
        raise CHostError(f"{_name(t)}: a scalar where a tensor is expected")

    # ------------------------------------------------------------ 2-D tensors

    def _rows(self, t: Term, sub: _Subst) -> str:
        match t:
            case Matrix(_, r, _, _):
                return self._index(r, sub, t)
            case Transpose(m):
                return self._cols(m, sub)
            case MatMul(a, _, _, _, _):
                return self._rows(a, sub)
            case TensorTensor(_, l, r, _):
                return self._rows(l if self._rank(l) == 2 else r, sub)
            case TensorScalar(_, x, _, _, _) | TensorCast(x, _) | TensorMap(_, x, _):
                return self._rows(x, sub)
            case TensorSelect(c, a, b, _):
                return self._bcast([self._rows(o, sub) for o in self._select_operands(c, a, b) if self._rank(o) == 2])
            case Stack(_, count, _):
                return self._index(count, sub, t)
        raise CHostError(f"{_name(t)}: not a 2-D tensor")

    def _cols(self, t: Term, sub: _Subst) -> str:
        match t:
            case Matrix(_, _, c, _):
                return self._index(c, sub, t)
            case Transpose(m):
                return self._rows(m, sub)
            case MatMul(_, b, _, _, _):
                return self._cols(b, sub)
            case TensorTensor(_, l, r, _):
                return self._cols(l if self._rank(l) == 2 else r, sub)
            case TensorScalar(_, x, _, _, _) | TensorCast(x, _) | TensorMap(_, x, _):
                return self._cols(x, sub)
            case TensorSelect(c, a, b, _):
                return self._bcast([self._cols(o, sub) if self._rank(o) == 2 else self._len(o, sub)
                                    for o in self._select_operands(c, a, b)])
            case Stack(var, _, body):
                if var in free_vars(length(as_tensor(body))):
                    raise CHostError("stack: the length of its rows mentions the row variable")
                return self._len(body, sub)
        raise CHostError(f"{_name(t)}: not a 2-D tensor")

    def _e2(self, t: Term, i: str, j: str, sub: _Subst) -> str:
        """C expression of type ``ctype(t.dtype)``: element ``(i, j)`` of the 2-D term
        ``t``. A 1-D operand of a 2-D ``tensor_tensor`` is broadcast along the rows (its
        element ``j``), as in the interpreter."""
        if self._rank(t) != 2:
            raise CHostError(f"{_name(t)}: a 1-D tensor where a 2-D one is expected")
        match t:
            case Matrix(x, r, c, stride):
                self._index(r, sub, t)
                width = self._index(c if stride is None else stride, sub, t)
                if stride is not None:
                    self._index(c, sub, t)
                return self._e(x, f"({i} * {width} + {j})", sub)
            case Transpose(m):
                return self._e2(m, j, i, sub)
            case MatMul(ml, mr, pd, d, _):
                # element (i, j): the sum over k of ml[i, k] * mr[k, j] (terms.row: row i is
                # the matrix-vector product of mr's transpose with row i of ml)
                prod = TensorTensor("*", ml, mr, pd)
                inner, k = self._fresh("n"), self._fresh("k")
                elem = _binop("*", self._conv(self._e2(ml, i, k, sub), ml.dtype, pd),
                              self._conv(self._e2(mr, k, j, sub), mr.dtype, pd), pd)
                loop = self._accumulate(False, prod, k, inner, elem, d)
                return f"({{ const int64_t {inner} = {self._cols(ml, sub)}; {loop} }})"
            case TensorTensor(op, l, r, d):
                a = self._e2(l, i, j, sub) if self._rank(l) == 2 else self._e(l, j, sub)
                b = self._e2(r, i, j, sub) if self._rank(r) == 2 else self._e(r, j, sub)
                return _binop(op, self._conv(a, l.dtype, d), self._conv(b, r.dtype, d), d)
            case TensorScalar(op, x, s, left, d):
                v = self._conv(self._e2(x, i, j, sub), x.dtype, d)
                sv = self._conv(self._s(s, sub), s.dtype, d)
                return _binop(op, sv, v, d) if left else _binop(op, v, sv, d)
            case TensorCast(x, d):
                return self._cast(self._e2(x, i, j, sub), x.dtype, d)
            case TensorMap(fn, x, d):
                return self._apply(fn, self._e2(x, i, j, sub), x.dtype, d, t)
            case TensorSelect(c, a, b, d):
                # NumPy's broadcasting: a matrix of one row (column) stands for every row
                # (column); a vector is a row, broadcast along the rows
                ops = self._select_operands(c, a, b)
                bidx: dict[int, str | tuple[str, str]] = {}  # operand → its element's index
                for o in ops:
                    if len(ops) == 1:
                        bidx[id(o)] = (i, j)
                    elif self._rank(o) == 2:
                        bidx[id(o)] = (f"(({self._rows(o, sub)}) == 1 ? INT64_C(0) : {i})",
                                       f"(({self._cols(o, sub)}) == 1 ? INT64_C(0) : {j})")
                    else:
                        bidx[id(o)] = f"(({self._len(o, sub)}) == 1 ? INT64_C(0) : {j})"
                then = self._conv(self._operand(a, sub, i, bidx), a.dtype, d)
                other = self._conv(self._operand(b, sub, i, bidx), b.dtype, d)
                return f"({self._cond(c, sub, i, bidx)} ? {then} : {other})"
            case Stack(var, count, body):
                self._index(count, sub, t)
                return self._e(body, j, self._bind(var, body, i, sub))
        raise CHostError(f"{_name(t)}: not supported as a 2-D tensor")

    def _bind(self, var: str, body: Term, index: str, sub: _Subst) -> _Subst:
        """``sub`` with the stack's row variable ``var`` (each of its occurrences in
        ``body``) standing for the C index ``index``."""
        out = dict(sub)
        for u in _subterms(body):
            if isinstance(u, ScalarVar) and u.name == var:
                out[repr(u)] = f"(({self._ct(u.dtype)})({index}))"
        return out

    @staticmethod
    def _bcast(lens: list[str]) -> str:
        """The length NumPy broadcasting gives operands of lengths ``lens`` (``tsp_bcast``)."""
        out = lens[-1]
        for ln in reversed(lens[:-1]):
            out = f"tsp_bcast({ln}, {out})"
        return out


def _check_reserved(text: str, what: str) -> None:
    if _RESERVED.search(text):
        raise CHostError(f"{what}: {text!r} uses the reserved prefix tsp_")


def _subterms(t: Term) -> list[Term]:
    """``t`` and every term inside it (conditions' operands included)."""
    out = [t]
    for c in children(t):
        out += _subterms(c)
    return out


def _tensor_vars(t: Term) -> set[str]:
    if isinstance(t, TensorVar):
        return {t.name}
    out: set[str] = set()
    for c in children(t):
        out |= _tensor_vars(c)
    return out
