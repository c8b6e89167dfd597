"""TensIR terms (paper Fig. 2, 1-D core) and program summaries.

Scalar terms: :class:`ScalarVar`, :class:`Lit`, :class:`ScalarOp` (scalar arithmetic with C
semantics), :class:`ReduceSum`, :class:`ReduceMax`, :class:`Size`, :class:`ScalarCast`.
Tensor terms (1-D): :class:`TensorVar` (an input array of unknown length), the access ops
:class:`Take`, :class:`Tail`, :class:`Slice`, and the compute ops :class:`TensorTensor`
(elementwise, equal lengths), :class:`TensorScalar` (broadcast a scalar, either order) and
:class:`TensorCast` (elementwise C conversion); the constructors :class:`Full` (a scalar
repeated: a fill) and :class:`Iota` (consecutive integers: a loop counter used as a value).

Every term carries the dtype of its value; integer arithmetic on ``uint8`` promotes to
``int`` as in C (``promote``). Meaning: ``tenspiler.ir.interp`` (reference interpreter) and
``tenspiler.ir.smt`` (SMT encoding), both built on ``tenspiler.ir.semantics``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Literal, TypeAlias, TypeGuard, cast

from tenspiler.loops.ir import BinOpName, CmpOpName, DType


def promote(a: DType, b: DType) -> DType:
    """C usual arithmetic conversions restricted to our dtypes (uint8 → int)."""
    if DType.DOUBLE in (a, b):
        return DType.DOUBLE
    if DType.FLOAT in (a, b):
        return DType.FLOAT
    return DType.INT


# ---------------------------------------------------------------- scalar terms


@dataclass(frozen=True)
class ScalarVar:
    """A scalar input: a parameter, a variable's value at loop entry, or a loop bound."""

    name: str
    dtype: DType


@dataclass(frozen=True)
class Lit:
    value: int | float
    dtype: DType


@dataclass(frozen=True)
class ScalarOp:
    op: BinOpName
    left: Scalar
    right: Scalar
    dtype: DType


@dataclass(frozen=True)
class ReduceSum:
    """Sum of all elements (0 for an empty tensor). Paper Fig. 2 ``reduce_sum``."""

    tensor: Tensor
    dtype: DType


@dataclass(frozen=True)
class ReduceMax:
    """Largest element; defined only for non-empty tensors. Paper Fig. 2 ``reduce_max``."""

    tensor: Tensor
    dtype: DType


@dataclass(frozen=True)
class ArgMax:
    """Index (0-based, ``int``) of the first maximal element — C's first-index rule of
    ``if (x[i] > m) { m = x[i]; best = i; }`` — or, with ``last``, of the last one
    (``x[i] >= m``). Elements are compared in ``compare`` (the running maximum's type).
    Defined only for non-empty tensors. Proved through its recursive definition over the
    prefix length, which refers to ``reduce_max`` of the shorter prefix
    (``argmax(m) = e[m-1] > rmax(m-1) ? m-1 : argmax(m-1)``), so the loop invariant's
    preservation is one unfolding. NumPy ``np.argmax`` (first occurrence)."""

    tensor: Tensor
    compare: DType
    last: bool = False

    @property
    def dtype(self) -> DType:
        return DType.INT


@dataclass(frozen=True)
class ReduceProd:
    """Product of all elements (1 for an empty tensor), multiplied left to right in
    ``dtype`` — a loop ``p *= a[i]``. Proved through its recursive definition over the prefix
    length (``rprod(m) = rprod(m-1) * e[m-1]``), like ``reduce_sum``."""

    tensor: Tensor
    dtype: DType


@dataclass(frozen=True)
class Size:
    """Number of elements of a 1-D tensor (``size(t, 0)``)."""

    tensor: Tensor
    dtype: DType = DType.INT


@dataclass(frozen=True)
class Cmp:
    """``left op right`` — elementwise when an operand is a tensor (a scalar operand is
    broadcast). ``op`` is one of ``< <= > >= == !=``."""

    op: CmpOpName
    left: Term
    right: Term


@dataclass(frozen=True)
class BoolOp:
    op: Literal["and", "or"]
    left: Cond
    right: Cond


@dataclass(frozen=True)
class NotCond:
    operand: Cond


Cond: TypeAlias = Cmp | BoolOp | NotCond


@dataclass(frozen=True)
class ScalarSelect:
    """``then`` if ``cond`` holds else ``else_`` (scalars; paper Fig. 2 ``ite``)."""

    cond: Cond
    then: Scalar
    else_: Scalar
    dtype: DType


@dataclass(frozen=True)
class ScalarApply:
    """A math function of a scalar (``exp``, ``sqrt``, ``log``, ``tanh``: uninterpreted in
    proofs; ``fabs``: exact)."""

    func: str
    scalar: Scalar
    dtype: DType


@dataclass(frozen=True)
class ScalarCast:
    """C conversion of a scalar to ``dtype`` (int→real exact, real→int truncates toward
    zero, →uint8 wraps modulo 256)."""

    scalar: Scalar
    dtype: DType


Scalar: TypeAlias = (
    ScalarVar | Lit | ScalarOp | ReduceSum | ReduceMax | ReduceProd | ArgMax | Size | ScalarCast | ScalarSelect
    | ScalarApply
)


# ---------------------------------------------------------------- tensor terms


@dataclass(frozen=True)
class TensorVar:
    """An input array (pointer parameter); its length is not known statically."""

    name: str
    dtype: DType


@dataclass(frozen=True)
class Take:
    """``take(t, n)``: the first ``n`` elements; requires ``0 ≤ n ≤ size(t)``."""

    tensor: Tensor
    n: Scalar

    @property
    def dtype(self) -> DType:
        return self.tensor.dtype


@dataclass(frozen=True)
class Tail:
    """``tail(t, n)``: the elements after the first ``n``; requires ``0 ≤ n ≤ size(t)``."""

    tensor: Tensor
    n: Scalar

    @property
    def dtype(self) -> DType:
        return self.tensor.dtype


@dataclass(frozen=True)
class Slice:
    """``slice(t, lo, hi)``: elements ``lo`` (inclusive) to ``hi`` (exclusive);
    requires ``0 ≤ lo ≤ hi ≤ size(t)``."""

    tensor: Tensor
    lo: Scalar
    hi: Scalar

    @property
    def dtype(self) -> DType:
        return self.tensor.dtype


@dataclass(frozen=True)
class TensorTensor:
    """Elementwise ``left op right`` on tensors of equal length."""

    op: BinOpName
    left: Tensor
    right: Tensor
    dtype: DType


@dataclass(frozen=True)
class TensorScalar:
    """Elementwise ``t op s`` (or ``s op t`` when ``scalar_left``), ``s`` broadcast."""

    op: BinOpName
    tensor: Tensor
    scalar: Scalar
    scalar_left: bool
    dtype: DType


@dataclass(frozen=True)
class TensorCast:
    """Elementwise C conversion of a tensor to ``dtype`` (as :class:`ScalarCast`)."""

    tensor: Tensor
    dtype: DType


@dataclass(frozen=True)
class TensorSelect:
    """Elementwise ``select(cond, then, else_)``: element ``k`` is ``then[k]`` where
    ``cond[k]`` holds and ``else_[k]`` elsewhere (scalar operands broadcast). The blend
    modes' ``a > b ? b : a`` (paper §6, ``ite`` in Fig. 2)."""

    cond: Cond
    then: Term
    else_: Term
    dtype: DType


@dataclass(frozen=True)
class TensorMap:
    """``map(func, t)``: a math function applied elementwise (paper §6: ``exp``/``sqrt``
    of the Llama kernels; uninterpreted in proofs except ``fabs``)."""

    func: str
    tensor: Tensor
    dtype: DType


@dataclass(frozen=True)
class Matrix:
    """``matrix(t, rows, cols)``: the first ``rows * cols`` elements of the 1-D tensor ``t``
    as a ``rows × cols`` matrix, row-major (the view a C kernel's flattened ``A[i*cols + j]``
    indexing takes). Requires ``rows, cols ≥ 0`` and ``rows * cols ≤ size(t)``.

    ``matrix(t, rows, cols, stride)`` (``stride`` not ``None``): row ``r`` is
    ``t[r*stride : r*stride + cols]`` (the rows of a wider matrix, e.g. a column slice of
    ``vector<vector<T>>`` rows); requires ``stride ≥ 0`` and, when ``rows, cols > 0``,
    ``(rows - 1) * stride + cols ≤ size(t)``."""

    tensor: Tensor
    rows: Scalar
    cols: Scalar
    stride: Scalar | None = None

    @property
    def dtype(self) -> DType:
        return self.tensor.dtype


@dataclass(frozen=True)
class Transpose:
    """``transpose(m)`` of a :class:`Matrix` ``m``: element ``(r, c)`` is ``m[c, r]``."""

    matrix: Matrix

    @property
    def dtype(self) -> DType:
        return self.matrix.dtype


@dataclass(frozen=True)
class Strided:
    """``strided(t, start, count, step)``: the 1-D tensor ``t[start + k*step]`` for
    ``0 <= k < count`` (a column of a row-major matrix; NumPy
    ``t[start : start + count*step : step]`` for ``step > 0``). Requires ``start, count,
    step ≥ 0`` and, when ``count > 0``, ``start + (count - 1) * step < size(t)``."""

    tensor: Tensor
    start: Scalar
    count: Scalar
    step: Scalar

    @property
    def dtype(self) -> DType:
        return self.tensor.dtype


@dataclass(frozen=True)
class ReduceRows:
    """Row sums of a 2-D tensor (``reduce_sum`` along dimension 1): a 1-D tensor with one
    element per row; ``reduce_rows(tensor_tensor(M, v, *))`` is the paper's
    ``tensor_vec_prod(M, v)`` (matrix–vector product)."""

    matrix: Tensor
    dtype: DType
    kind: Literal["sum", "max"] = "sum"  # "max": row maxima (rows must be non-empty)


@dataclass(frozen=True)
class Full:
    """``full(length, value)``: the 1-D tensor of ``length`` elements, each ``value`` (of
    ``value``'s dtype) — a loop storing a loop-invariant value (a fill). Requires
    ``length ≥ 0``. NumPy ``np.full(length, value)``."""

    length: Scalar
    value: Scalar

    @property
    def dtype(self) -> DType:
        return self.value.dtype


@dataclass(frozen=True)
class Iota:
    """``iota(start, stop)``: the INT tensor ``[start, start+1, …, stop-1]`` (``stop - start``
    elements; element ``k`` is ``start + k``) — a loop counter used as a value. Requires
    ``start ≤ stop``. NumPy ``np.arange(start, stop)``."""

    start: Scalar
    stop: Scalar

    @property
    def dtype(self) -> DType:
        return DType.INT


@dataclass(frozen=True)
class Flatten:
    """``flatten(m)``: the 2-D term ``m`` as a 1-D tensor, row-major (element ``r * cols + c``
    is ``m[r, c]``) — the value a loop nest writes into a flattened ``C[i*n + j]``.
    NumPy ``m.reshape(-1)``. In proofs it appears only as an output's whole value, stated
    per row and column (no division by the row length, :func:`tenspiler.vc.conditions.summary_goal`)."""

    matrix: Tensor

    @property
    def dtype(self) -> DType:
        return self.matrix.dtype


@dataclass(frozen=True)
class MatMul:
    """``matmul(a, b)``: the matrix product of the 2-D terms ``a`` (``m × k``) and ``b``
    (``k × n``; a :class:`Matrix` or its :class:`Transpose`), an ``m × n`` matrix — a
    contraction over the shared axis (NumPy ``a @ b``).

    Defined row by row, with no axiom: row ``r`` is the matrix–vector product
    ``reduce_rows(tensor_tensor(row(a, r), transpose(b), *))`` (operands in that order when
    ``vector_first``, else swapped), its products of dtype ``product`` summed in ``dtype``
    (:func:`row`). It is the value of a loop nest whose rows are matrix–vector products
    (GEMM, :mod:`tenspiler.vc.blocks`)."""

    left: Tensor
    right: Tensor
    product: DType
    dtype: DType
    vector_first: bool = True


@dataclass(frozen=True)
class Stack:
    """``stack(r < count: body)``: a map over a new leading axis (``vmap``, a comprehension
    ``[body for r in range(count)]``). A scalar ``body`` gives the 1-D tensor whose element
    ``r`` is ``body`` with ``var = r``; a 1-D ``body`` (of a length that does not depend on
    ``var``) the ``count × len(body)`` matrix whose row ``r`` is ``body`` at ``var = r``.
    Requires ``count >= 0``. ``var`` is bound here (a name no source variable has, starting
    with ``$``): :func:`free_vars` and :func:`substitute` respect it.

    It is the value of a loop whose iterations compute what 2-D TensIR has no other term
    for (a window of a wider matrix per output element: a 2-D convolution,
    :func:`tenspiler.vc.blocks.lift_rows`); defined pointwise, with no axiom: element (row)
    ``r`` *is* ``body`` at ``r``."""

    var: str
    count: Scalar
    body: Term

    @property
    def dtype(self) -> DType:
        return self.body.dtype


Tensor: TypeAlias = (
    TensorVar | Take | Tail | Slice | TensorTensor | TensorScalar | TensorCast | Matrix | ReduceRows
    | TensorSelect | TensorMap | Transpose | Strided | Full | Iota | Flatten | MatMul | Stack
)
Term: TypeAlias = Scalar | Tensor

TENSOR_TYPES = (
    TensorVar, Take, Tail, Slice, TensorTensor, TensorScalar, TensorCast, Matrix, ReduceRows,
    TensorSelect, TensorMap, Transpose, Strided, Full, Iota, Flatten, MatMul, Stack,
)


def rank(t: Tensor) -> int:
    """1 for vectors, 2 for matrices. In ``tensor_tensor`` of a matrix and a vector the
    vector is broadcast along the rows (its length must equal the number of columns)."""
    match t:
        case Matrix() | Transpose() | MatMul():
            return 2
        case Stack(_, _, body):
            return 2 if is_tensor(body) else 1
        case TensorTensor(_, l, r, _):
            return max(rank(l), rank(r))
        case TensorScalar(_, x, _, _, _) | TensorCast(x, _) | TensorMap(_, x, _):
            return rank(x)
        case TensorSelect(c, a, b, _):
            return max(_cond_rank(c), rank(a) if is_tensor(a) else 1, rank(b) if is_tensor(b) else 1)
        case _:
            return 1


def cmp_pairs(c: Cond) -> Iterator[tuple[Term, Term]]:
    """The operand pairs of a condition's comparisons, left to right."""
    match c:
        case Cmp(_, left, right):
            yield left, right
        case BoolOp(_, left, right):
            yield from cmp_pairs(left)
            yield from cmp_pairs(right)
        case NotCond(x):
            yield from cmp_pairs(x)


def _cond_rank(c: Cond) -> int:
    return max(
        (rank(u) if is_tensor(u) else 1 for pair in cmp_pairs(c) for u in pair),
        default=1,
    )


def _row_of(t: Term, r: Scalar) -> Term:
    """Row ``r`` of ``t`` if it is a 2-D term, else ``t`` itself (a scalar, or a vector
    broadcast along the rows)."""
    return row(t, r) if is_tensor(t) and rank(t) == 2 else t


def _row_cond(c: Cond, r: Scalar) -> Cond:
    match c:
        case Cmp(op, a, b):
            return Cmp(op, _row_of(a, r), _row_of(b, r))
        case BoolOp(op, a, b):
            return BoolOp(op, _row_cond(a, r), _row_cond(b, r))
        case NotCond(a):
            return NotCond(_row_cond(a, r))
    raise TypeError(f"not a TensIR condition: {c!r}")


def row(t: Tensor, r: Scalar) -> Tensor:
    """Row ``r`` of a 2-D term as a 1-D term (a vector operand broadcast along rows is its
    own row). Used by the pointwise SMT encoding of :class:`ReduceRows`."""
    match t:
        case Matrix(x, _, cols, stride):
            if isinstance(stride, Lit) and stride.value == 0:  # every row the same elements
                return Slice(x, stride, cols)
            lo = ScalarOp("*", r, cols if stride is None else stride, DType.INT)
            return Slice(x, lo, ScalarOp("+", lo, cols, DType.INT))
        case Transpose(Matrix(x, nr, _, stride)):
            return Strided(x, r, nr, stride if stride is not None else t.matrix.cols)
        case Stack(var, _, body) if is_tensor(body):
            return substitute(body, {var: r})  # type: ignore[return-value]
        case MatMul(a, b, pd, d, vector_first):
            v, w = row(a, r), transposed(b)
            return ReduceRows(TensorTensor("*", v, w, pd) if vector_first else TensorTensor("*", w, v, pd), d)
        case TensorTensor(op, a, b, d):
            return TensorTensor(op, row(a, r) if rank(a) == 2 else a, row(b, r) if rank(b) == 2 else b, d)
        case TensorScalar(op, x, s, left, d):
            return TensorScalar(op, row(x, r), s, left, d)
        case TensorCast(x, d):
            return TensorCast(row(x, r), d)
        case TensorMap(fn, x, d):
            return TensorMap(fn, row(x, r), d)
        case TensorSelect(c, a, b, d):
            return TensorSelect(_row_cond(c, r), _row_of(a, r), _row_of(b, r), d)
    raise TypeError(f"not a 2-D TensIR term: {t!r}")


def transposed(m: Tensor) -> Tensor:
    """``transpose(m)`` of a :class:`Matrix` ``m``, or ``m``'s matrix if ``m`` is a
    :class:`Transpose` (so that ``transposed(transposed(m)) == m``).

    Raises:
        TypeError: ``m`` is neither.
    """
    match m:
        case Matrix():
            return Transpose(m)
        case Transpose(x):
            return x
    raise TypeError(f"not a matrix view: {m!r}")


def rows(t: Tensor) -> Scalar:
    """Number of rows of a 2-D term."""
    return _extent(t, 0)


def cols(t: Tensor) -> Scalar:
    """Number of columns of a 2-D term."""
    return _extent(t, 1)


def _extent(t: Tensor, axis: int) -> Scalar:
    """Number of rows (``axis`` 0) or columns (1) of a 2-D term."""
    match t:
        case Matrix(_, r, c):
            return (r, c)[axis]
        case Transpose(Matrix(_, r, c)):
            return (c, r)[axis]
        case MatMul(a, b):
            return _extent(a, 0) if axis == 0 else _extent(b, 1)
        case Stack(_, count, body) if is_tensor(body):
            return count if axis == 0 else length(body)
        case TensorTensor(_, a, b, _):
            return _extent(a if rank(a) == 2 else b, axis)
        case TensorScalar(_, x, _, _, _) | TensorCast(x, _) | TensorMap(_, x, _):
            return _extent(x, axis)
        case TensorSelect(c, a, b, _):
            for u in (a, b, *(x for pair in cmp_pairs(c) for x in pair)):
                if is_tensor(u) and rank(u) == 2:
                    return _extent(u, axis)
    raise TypeError(f"not a 2-D TensIR term: {t!r}")


def is_tensor(t: Term) -> TypeGuard[Tensor]:
    """Whether ``t`` is a tensor term (narrows ``t`` to :data:`Tensor` for the type checker)."""
    return isinstance(t, TENSOR_TYPES)


# ---------------------------------------------------------------- program summaries


@dataclass(frozen=True)
class ArrayOutput:
    """``array[lo:hi] = value``; every other element of ``array`` keeps its initial value.

    With a ``step`` (a strided write, ``y[i*incy] = ...``): ``array[lo + j*step] = value[j]``
    for ``0 <= j < (hi - lo) / step`` (``hi = lo + count*step``: NumPy's ``array[lo:hi:step]``),
    under ``step >= 1`` (the positions are distinct); every other element keeps its initial
    value. A backend that cannot write a strided range declines the summary by name.

    With a ``step`` and a 2-D ``value`` of ``rows x cols`` (a block of a matrix stored with a
    leading dimension, ``C[i*ldc + j] = ...`` for ``j < n <= ldc``: BLAS's ``LDC``):
    ``array[lo + r*step + c] = value[r, c]`` for ``0 <= r < rows``, ``0 <= c < cols``, with
    ``hi = lo + rows*step``, under ``0 <= cols <= step`` (the positions are distinct; a
    precondition of the proof that generated code checks); every other element keeps its
    initial value."""

    array: str
    lo: Scalar
    hi: Scalar
    value: Tensor
    step: Scalar | None = None


@dataclass(frozen=True)
class ScalarOutput:
    """A scalar result: the function's return value (``name == "return"``) or a local."""

    name: str
    value: Scalar


Output: TypeAlias = ArrayOutput | ScalarOutput


@dataclass(frozen=True)
class ProgramSummary:
    """The lifted meaning of a kernel: one TensIR definition per output (paper §4.1, Eq. 1).

    Array inputs are referred to by name and denote their values at function entry.
    """

    function: str
    outputs: tuple[Output, ...]
    #: Equalities ``lhs == rhs`` between parameter expressions the proof assumes (shape
    #: preconditions, e.g. two ``vector<vector<T>>`` rows of one length); generated code
    #: checks them.
    preconditions: tuple[tuple[Scalar, Scalar], ...] = ()


# ---------------------------------------------------------------- generic traversal


def as_scalar(t: Term) -> Scalar:
    """``t`` typed as a scalar term, for the type checker only.

    Not checked at run time: TensIR's fields are not kind-exact in practice (a literal or a
    size parameter stands for a broadcast operand, a transpose may hold a transpose), and
    rewriting must keep every term it was given.
    """
    return cast(Scalar, t)


def as_tensor(t: Term) -> Tensor:
    """``t`` typed as a tensor term, for the type checker only (see :func:`as_scalar`)."""
    return cast(Tensor, t)


def negated(t: Term, dtype: DType, tensor: bool) -> Term:
    """C's unary ``-t`` (of arithmetic type ``dtype``; elementwise if ``tensor``) in TensIR, which has no negation
    operator: ``0 - t`` for integers; ``-1 * t`` for floats. Both are ``-t`` on the reals,
    but in IEEE 754 arithmetic ``0.0 - (+0.0)`` is +0.0 where ``-(+0.0)`` is -0.0 (§6.3), and a
    later division shows the sign (``1 / -x`` at ``x = 0`` is -inf in C); multiplication by
    -1 only flips the sign bit (exact, also on zeros, infinities and NaN)."""
    lit = Lit(-1, dtype) if dtype.is_float else Lit(0, dtype)
    op: BinOpName = "*" if dtype.is_float else "-"
    if tensor:
        return TensorScalar(op, as_tensor(t), lit, True, dtype)
    return ScalarOp(op, lit, as_scalar(t), dtype)


def map_children(t: Term, f: Callable[[Term], Term]) -> Term:
    """Rebuild ``t`` with ``f`` applied to each direct child (same object if unchanged)."""

    def fs(u: Scalar) -> Scalar:
        return as_scalar(f(u))

    def ft(u: Tensor) -> Tensor:
        return as_tensor(f(u))

    match t:
        case ScalarVar() | Lit() | TensorVar():
            return t
        case ScalarOp(op, l, r, d):
            sl, sr = fs(l), fs(r)
            return t if (sl is l and sr is r) else ScalarOp(op, sl, sr, d)
        case ReduceSum(x, d):
            nx = ft(x)
            return t if nx is x else ReduceSum(nx, d)
        case ReduceMax(x, d):
            nx = ft(x)
            return t if nx is x else ReduceMax(nx, d)
        case ReduceProd(x, d):
            nx = ft(x)
            return t if nx is x else ReduceProd(nx, d)
        case ArgMax(x, compare, last):
            nx = ft(x)
            return t if nx is x else ArgMax(nx, compare, last)
        case Size(x, d):
            nx = ft(x)
            return t if nx is x else Size(nx, d)
        case ScalarCast(x, d):
            sx = fs(x)
            return t if sx is x else ScalarCast(sx, d)
        case ScalarApply(fn, x, d):
            sx = fs(x)
            return t if sx is x else ScalarApply(fn, sx, d)
        case TensorMap(fn, x, d):
            nx = ft(x)
            return t if nx is x else TensorMap(fn, nx, d)
        case TensorCast(x, d):
            nx = ft(x)
            return t if nx is x else TensorCast(nx, d)
        case Matrix(x, nr, nc, stride):
            a, b, c = ft(x), fs(nr), fs(nc)
            ns = None if stride is None else fs(stride)
            if a is x and b is nr and c is nc and ns is stride:
                return t
            return Matrix(a, b, c, ns)
        case Transpose(m):
            nm = f(m)
            return t if nm is m else Transpose(cast(Matrix, nm))
        case Flatten(m):
            nm = ft(m)
            return t if nm is m else Flatten(nm)
        case MatMul(a, b, pd, d, vf):
            ta, tb = ft(a), ft(b)
            return t if (ta is a and tb is b) else MatMul(ta, tb, pd, d, vf)
        case Strided(x, a0, n, step):
            nx, sa, sn, ss = ft(x), fs(a0), fs(n), fs(step)
            if nx is x and sa is a0 and sn is n and ss is step:
                return t
            return Strided(nx, sa, sn, ss)
        case ReduceRows(x, d, kind):
            nx = ft(x)
            return t if nx is x else ReduceRows(nx, d, kind)
        case ScalarSelect(cond, then, other, d):
            ncond, sthen, sother = map_cond(cond, f), fs(then), fs(other)
            if ncond is cond and sthen is then and sother is other:
                return t
            return ScalarSelect(ncond, sthen, sother, d)
        case TensorSelect(cond, then, other, d):
            ncond, nthen, nother = map_cond(cond, f), f(then), f(other)
            if ncond is cond and nthen is then and nother is other:
                return t
            return TensorSelect(ncond, nthen, nother, d)
        case Take(x, n):
            nx, sn = ft(x), fs(n)
            return t if (nx is x and sn is n) else Take(nx, sn)
        case Full(n, v):
            sn, sv = fs(n), fs(v)
            return t if (sn is n and sv is v) else Full(sn, sv)
        case Iota(a, b):
            sa, sb = fs(a), fs(b)
            return t if (sa is a and sb is b) else Iota(sa, sb)
        case Tail(x, n):
            nx, sn = ft(x), fs(n)
            return t if (nx is x and sn is n) else Tail(nx, sn)
        case Slice(x, lo, hi):
            nx, sl, sh = ft(x), fs(lo), fs(hi)
            return t if (nx is x and sl is lo and sh is hi) else Slice(nx, sl, sh)
        case TensorTensor(op, l, r, d):
            tl, tr = ft(l), ft(r)
            return t if (tl is l and tr is r) else TensorTensor(op, tl, tr, d)
        case TensorScalar(op, x, s, left, d):
            nx, ss = ft(x), fs(s)
            return t if (nx is x and ss is s) else TensorScalar(op, nx, ss, left, d)
        case Stack(var, count, body):
            scount, nbody = fs(count), f(body)
            return t if (scount is count and nbody is body) else Stack(var, scount, nbody)
    raise TypeError(f"not a TensIR term: {t!r}")


def map_cond(c: Cond, f: Callable[[Term], Term]) -> Cond:
    """Rebuild a condition with ``f`` applied to its operand terms."""
    match c:
        case Cmp(op, l, r):
            nl, nr = f(l), f(r)
            return c if (nl is l and nr is r) else Cmp(op, nl, nr)
        case BoolOp(op, l, r):
            ml, mr = map_cond(l, f), map_cond(r, f)
            return c if (ml is l and mr is r) else BoolOp(op, ml, mr)
        case NotCond(x):
            mx = map_cond(x, f)
            return c if mx is x else NotCond(mx)
    raise TypeError(f"not a TensIR condition: {c!r}")


def children(t: Term) -> list[Term]:
    out: list[Term] = []

    def collect(c: Term) -> Term:
        out.append(c)
        return c

    map_children(t, collect)
    return out


def substitute(t: Term, env: Mapping[str, Term]) -> Term:
    """Replace :class:`ScalarVar` / :class:`TensorVar` leaves named in ``env``."""
    if isinstance(t, ScalarVar | TensorVar) and t.name in env:
        return env[t.name]
    if isinstance(t, Stack) and t.var in env:  # bound here: not replaced inside
        inner = {k: v for k, v in env.items() if k != t.var}
        return Stack(t.var, as_scalar(substitute(t.count, env)), substitute(t.body, inner))
    return map_children(t, lambda c: substitute(c, env))


def free_vars(t: Term) -> set[str]:
    if isinstance(t, ScalarVar | TensorVar):
        return {t.name}
    if isinstance(t, Stack):
        return free_vars(t.count) | (free_vars(t.body) - {t.var})
    out: set[str] = set()
    for c in children(t):
        out |= free_vars(c)
    return out


def length(t: Tensor) -> Scalar:
    """The number of elements of a 1-D term as a scalar term (``Size(t)`` where no simpler
    term is known)."""
    match t:
        case Take(_, n) | Full(n, _) | Strided(_, _, n, _):
            return n
        case Slice(_, lo, ScalarOp("+", lo2, n, _)) if lo2 == lo:
            return n
        case Slice(_, lo, hi):
            return ScalarOp("-", hi, lo, DType.INT)
        case Iota(a, b):
            return ScalarOp("-", b, a, DType.INT)
        case Stack(_, count, body) if not is_tensor(body):
            return count
        case ReduceRows(m, _):
            return rows(m)
        case Flatten(m):
            return ScalarOp("*", rows(m), cols(m), DType.INT)
        case TensorTensor(_, l, _, _) if rank(l) == 1:
            return length(l)
        case TensorScalar(_, x, _, _, _) | TensorCast(x, _) | TensorMap(_, x, _):
            return length(x)
    return Size(t)


def term_size(t: Term) -> int:
    return 1 + sum(term_size(c) for c in children(t))
