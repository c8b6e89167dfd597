"""Which parts of a verified TensIR summary run on Gemmini, and how (the device/host split).

:func:`plan_summary` walks each returned output's value and turns

* **products** into :class:`GemmCall` (one tiled matrix product, :func:`~.procs.gemm_proc`):
  ``reduce_rows(tensor_tensor(matrix(..), v, *))`` (matrix–vector; ``M·v`` is ``M×K`` times
  ``K×1``), the same with ``transpose(matrix(..))`` (``vᵀ·M``), ``reduce_rows(matrix(..))`` (row
  sums: times a ones column), ``reduce_sum(tensor_tensor(a, b, *))`` (dot product: ``1×K``
  times ``K×1``) and ``reduce_sum(x)`` (times a ones column);
* **affine elementwise terms** into :class:`AffineCall` (:func:`~.procs.affine_proc`): a
  maximal tensor subterm built from ``+``, ``-``, multiplication by a scalar, addition of a
  scalar and negation over 1-D operands, with at least one such op;

and leaves everything else to host C code (:mod:`tenspiler.codegen.c_host`), which also
computes device operands that are not plain views (:class:`Operand` ``kind == "host"``).

Datatype rules (the configuration in use must hold every device value; otherwise
:class:`~tenspiler.errors.CodegenError` — the CLI exits 1 with the reason):

* ``int8`` configuration: products of integer (``int`` / ``unsigned char``) operands; the host
  packs each operand into an int8 buffer and checks at run time that every element lies in
  [-128, 127] and that ``K ≤ 131071`` (so ``K·128·128 < 2³¹``: the int32 accumulator cannot
  wrap). Affine terms over integers: ``int`` operands are moved into the int32 accumulator
  directly; the host checks at run time that each scaled term satisfies ``|s·x| ≤ 2²⁴`` (the
  float32 scale is exact) when ``s ≠ 1``, and that the sum of the terms' largest magnitudes
  (and of the constant) is below 2³¹. A call whose run-time check fails is computed by the
  host fallback instead (counted in ``tenspiler_gemmini_fallbacks``), so results are always
  the summary's.
* ``fp32`` configuration: products and affine terms of ``float`` values (computed in float32
  with fused multiply-adds in the array: within the float tolerance of the proof's real
  arithmetic, like every float backend).
* ``float`` values under ``int8`` or integers under ``fp32`` in a term Gemmini would compute:
  refused, naming the term and the configuration that fits. ``double`` values: that term stays
  on the host (noted); a kernel all of whose candidate terms are ``double`` is refused (no
  configuration holds float64).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from tenspiler.codegen.base import output_term, returned_outputs
from tenspiler.codegen.ranges import Interval, term_range
from tenspiler.errors import CodegenError
from tenspiler.ir.printer import show, show_output
from tenspiler.ir.terms import (
    ArrayOutput,
    Cmp,
    Flatten,
    Full,
    Iota,
    Lit,
    MatMul,
    Matrix,
    Output,
    ProgramSummary,
    ReduceRows,
    ReduceSum,
    Scalar,
    ScalarOp,
    ScalarSelect,
    ScalarVar,
    Size,
    Slice,
    Tail,
    Take,
    Tensor,
    TensorScalar,
    TensorSelect,
    TensorTensor,
    TensorVar,
    Term,
    Transpose,
    children,
    free_vars,
    is_tensor,
    map_children,
    map_cond,
    rank,
)
from tenspiler.ir.terms import cols as term_cols
from tenspiler.ir.terms import rows as term_rows
from tenspiler.loops.ir import DType

__all__ = ["AffineCall", "GemmBias", "GemmCall", "Operand", "OutputPlan", "Plan", "plan_summary"]

#: largest reduction length whose int8 products cannot wrap the int32 accumulator
MAX_INT8_K = (2**31 - 1) // (128 * 128)


@dataclass(frozen=True)
class Operand:
    """A DRAM operand of a device call.

    ``kind``: ``"view"`` — elements of the array ``base`` (a parameter or an earlier device
    result) from element ``offset`` on, rows ``stride`` elements apart; ``"host"`` — the host
    computes ``term`` into a buffer first (``offset`` 0; for an int8 product operand it also
    checks the int8 range); ``"ones"`` — a column of ones (stride 0), or with ``offset`` set, a
    row of ``offset`` ones (the A operand of column sums). A 2-D ``host`` term has ``shape``
    (rows, columns): the host stores it row-major (``stride`` = columns).
    """

    kind: Literal["view", "host", "ones"]
    term: Term | None
    base: str = ""
    offset: Scalar | None = None
    stride: Scalar | None = None
    shape: tuple[Scalar, Scalar] | None = None


@dataclass(frozen=True)
class GemmCall:
    """``C[m×n] = A[m×k]·B[k×n]`` (see :func:`~.procs.gemm_proc`); ``scalar``: the result is the
    1×1 value of a reduction."""

    name: str
    a: Operand
    b: Operand
    m: Scalar
    n: Scalar
    k: Scalar
    source: Term
    scalar: bool
    dtype: DType
    what: str
    #: subtracted from every A element when packing (the result gets ``a_offset·K`` back; B
    #: is a ones column): a uint8 sum fits int8 shifted by 128
    a_offset: int = 0
    #: the bias epilogue fused into the product (``source`` is then the whole sum)
    bias: GemmBias | None = None


@dataclass(frozen=True)
class GemmBias:
    """``C = bias + A·B``: the bias is moved into the accumulator before the product
    (:func:`tenspiler.act.gemm_search.gemm_schedule_proc`, ``bias=True``). ``term``: the
    host's value of the bias, a scalar (``along == "all"``) or a 1-D tensor of one value per
    column (``"columns"``, length ``n``) or per row (``"rows"``, length ``m``)."""

    term: Term
    along: Literal["all", "columns", "rows"]


@dataclass(frozen=True)
class AffineCall:
    """``Σ scale_t · operand_t (+ constant)`` over ``length`` elements (``scale`` ``None``: 1)."""

    name: str
    terms: tuple[tuple[Scalar | None, Operand], ...]
    constant: Scalar | None
    length: Scalar
    source: Tensor
    dtype: DType
    output: ArrayOutput | None = None
    #: the result is ``max(…, 0)`` (``source`` is the whole select)
    relu: bool = False


Call = GemmCall | AffineCall


@dataclass(frozen=True)
class OutputPlan:
    """One output: ``host_term`` is what the host evaluates (device results appear as
    ``TensorVar``/``ScalarVar`` named after their call); ``None`` when an affine call writes
    the output array directly."""

    output: Output
    host_term: Term | None
    calls: tuple[str, ...]
    notes: tuple[str, ...]


@dataclass
class Plan:
    """The device calls in execution order and the per-output host work."""

    calls: list[Call] = field(default_factory=list)
    outputs: list[OutputPlan] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        def ops(c: Call) -> str:
            if isinstance(c, GemmCall):
                return "matrix product (preload/compute_*)" + (", bias (mvin into the accumulator)" if c.bias else "")
            return "elementwise add/sub/scale (mvin into the accumulator)" + (", ReLU (mvout activation)" if c.relu else "")

        return {
            "outputs": [
                {"output": show_output(p.output), "where": _where(p),
                 "device_kernels": list(p.calls), "host": None if p.host_term is None else show(p.host_term), "notes": list(p.notes)}
                for p in self.outputs
            ],
            "kernels": [{"name": c.name, "kind": "gemm" if isinstance(c, GemmCall) else "affine", "computes": show(c.source), "ops": ops(c)}
                        for c in self.calls],
        }


def _where(p: OutputPlan) -> str:
    """``device`` when a device call computes the whole output (the host at most copies its
    result), ``mixed`` when the host computes part of it, ``host`` when Gemmini does nothing."""
    t = p.host_term
    if isinstance(t, Flatten) and isinstance(t.matrix, Matrix):  # a matrix product's row-major buffer
        t = t.matrix.tensor
    if t is None or (isinstance(t, TensorVar | ScalarVar) and t.name in p.calls):
        return "device"
    return "mixed" if p.calls else "host"


def _view(t: Term) -> tuple[str, Scalar] | None:
    """``(array, element offset)`` of a view chain ending in a parameter array."""
    match t:
        case TensorVar(name):
            return name, Lit(0, DType.INT)
        case Take(x, _):
            return _view(x)
        case Tail(x, n) | Slice(x, n, _):
            inner = _view(x)
            if inner is None:
                return None
            return inner[0], _add(inner[1], n)
    return None


def _add(a: Scalar, b: Scalar) -> Scalar:
    if isinstance(a, Lit) and a.value == 0:
        return b
    if isinstance(b, Lit) and b.value == 0:
        return a
    return ScalarOp("+", a, b, DType.INT)


def shape2(t: Term) -> tuple[Scalar, Scalar] | None:
    """(rows, columns) of a 2-D elementwise term, from the matrix view it is built on."""
    match t:
        case Matrix(_, rows, cols, _):
            return rows, cols
        case Transpose(Matrix(_, rows, cols, _)):
            return cols, rows
    for c in children(t):
        if is_tensor(c) and rank(c) == 2:
            return shape2(c)
    return None


def _relu_operand(t: Term) -> Term | None:
    """``x`` when ``t`` is ``select(x > 0, x, 0)`` (or ``0 < x``) of a 1-D real tensor — exactly
    Gemmini's ReLU ``y > 0 ? y : 0`` (NaN and -0.0 give +0, as the select does)."""
    match t:
        case TensorSelect(Cmp(">", x, Lit(0 | 0.0)), then, Lit(0 | 0.0), d) if then == x and d.is_float and is_tensor(x) and rank(x) == 1:
            return x
        case TensorSelect(Cmp("<", Lit(0 | 0.0), x), then, Lit(0 | 0.0), d) if then == x and d.is_float and is_tensor(x) and rank(x) == 1:
            return x
    return None


def _bias_pairs(t: Term) -> list[tuple[MatMul | ReduceRows, Term]]:
    """``(product, bias)`` candidates of ``t = bias + product`` (a matrix product or row sums;
    a scalar or 1-D bias), either order."""
    pairs: list[tuple[Term, Term]]
    match t:
        case TensorTensor("+", l, r, _):
            pairs = [(p, b) for p, b in ((r, l), (l, r)) if is_tensor(b) and rank(b) == 1]
        case TensorScalar("+", x, s, _, _):
            pairs = [(x, s)]
        case _:
            return []
    return [(p, b) for p, b in pairs if isinstance(p, MatMul) or (isinstance(p, ReduceRows) and p.kind == "sum")]


def _divides(t: Term) -> bool:
    """``t`` contains a division or remainder (undefined for a zero divisor)."""
    if isinstance(t, ScalarOp | TensorTensor | TensorScalar) and t.op in ("/", "%", "//", "mod"):
        return True
    return any(_divides(c) for c in children(t))


class _HostOnly(Exception):
    """A term Gemmini would compute stays on the host (the message says why)."""


class _Double(_HostOnly):
    """... because it has double values (no configuration holds float64)."""


class _Planner:
    def __init__(self, config: str, params: set[str], strict: bool = True) -> None:
        self.config = config
        self.strict = strict
        self.params = params
        self.plan = Plan()
        self._memo: dict[Term, Term] = {}
        self.doubles: list[str] = []
        self.host_notes: list[str] = []
        self.ranges: Mapping[str, Interval] = {}
        #: int arrays assumed to hold int8 data (what the run-time contract lets reach Gemmini)
        self.assumed: Mapping[str, Interval] = {}
        self._in_branch = 0
        #: arrays the other returned outputs read (an output array in it is not written in place)
        self.read_elsewhere: set[str] = set()

    def _note(self, e: _HostOnly) -> None:
        (self.doubles if isinstance(e, _Double) else self.host_notes).append(str(e))

    # ------------------------------------------------------------ types

    def _fits(self, dtypes: set[DType], what: Term) -> None:
        if DType.DOUBLE in dtypes:
            raise _Double(f"{show(what)}: double values stay on the host (no Gemmini configuration holds float64)")
        if self.config == "int8":
            bad = dtypes - {DType.INT, DType.UINT8}
            suggestion = " (--gemmini-config fp32 holds float values)" if bad == {DType.FLOAT} else ""
        else:
            bad = dtypes - {DType.FLOAT}
            suggestion = " (--gemmini-config int8 holds integers)" if bad <= {DType.INT, DType.UINT8} else ""
        if bad:
            kinds = ", ".join(sorted(d.value for d in bad))
            message = (f"gemmini: {show(what)} computes with {kinds} values, which the {self.config} "
                       f"configuration cannot hold exactly{suggestion}")
            if self.strict:
                raise CodegenError(message)
            raise _HostOnly(f"{show(what)}: {kinds} values stay on the host (the {self.config} configuration cannot hold them)")

    def _elem_ok(self, d: DType) -> bool:
        """A view of this element type can be moved into the accumulator as it is."""
        return d == (DType.INT if self.config == "int8" else DType.FLOAT)

    def _fresh(self) -> str:
        return f"g{len(self.plan.calls)}"

    # ------------------------------------------------------------ operands

    def _int8_offset(self, t: Term, what: Term, may_shift: bool) -> int:
        """The offset the host subtracts from operand ``t`` when packing it to int8: 0 when its
        static range (:mod:`tenspiler.codegen.ranges`, from the C types) fits int8 or is
        unbounded (the run-time contract decides); for a sum (``may_shift``: times ones) of a
        bounded range 256 wide at most, the shift into [-128, 127] (the host adds
        ``offset·K`` back).

        Raises:
            _HostOnly: a bounded range that fits int8 neither as it is nor shifted.
        """
        if self.config != "int8":
            return 0
        base = t.tensor if isinstance(t, Matrix) else t
        iv = term_range(base, self.ranges)
        assumption = ""
        if not iv.bounded:  # int data: what the operand is when the arrays hold int8 values
            iv = term_range(base, {**self.assumed, **self.ranges})
            assumption = " (with int8 array data)"
            if not iv.bounded:
                return 0  # depends on a scalar: the run-time contract decides
        assert iv.lo is not None and iv.hi is not None
        if iv.lo >= -128 and iv.hi <= 127:
            return 0
        if may_shift and iv.hi - iv.lo <= 255:
            return iv.lo + 128
        raise _HostOnly(f"{show(what)}: values in [{iv.lo}, {iv.hi}]{assumption} do not fit Gemmini's int8 scratchpad; the host computes it")

    def _product_operand(self, t: Term) -> Operand:
        """A vector / matrix operand of a product: in fp32 a float view is used in place; in
        int8 everything is packed to int8 by the host (C ``int`` data is 4 bytes)."""
        base = t.tensor if isinstance(t, Matrix) else t
        stride = (t.stride or t.cols) if isinstance(t, Matrix) else Lit(1, DType.INT)
        if isinstance(t, Matrix):  # the elements the matrix reads: a host buffer needs a length
            i = DType.INT
            span = ScalarOp("+", ScalarOp("*", ScalarOp("-", t.rows, Lit(1, i), i), stride, i), t.cols, i)
            needed = ScalarSelect(Cmp(">", t.rows, Lit(0, i)), span, Lit(0, i), i)
            base_for_host: Term = Take(t.tensor, needed)
        else:
            base_for_host = t
        v = _view(base) if self.config == "fp32" else None
        if v is not None and v[0] in self.params:
            return Operand("view", base, v[0], v[1], stride)
        return Operand("host", self.host(base_for_host), "", Lit(0, DType.INT), stride)

    def _affine_operand(self, t: Term) -> Operand:
        v = _view(t)
        if v is not None and self._elem_ok(t.dtype) and (v[0] in self.params):
            return Operand("view", t, v[0], v[1], None)
        return Operand("host", self.host(t), "", Lit(0, DType.INT), None)

    # ------------------------------------------------------------ products

    def _biased_product(self, t: Term) -> GemmCall | None:
        """``bias + product`` (either order; a scalar, or a vector along the product's columns
        or rows as the TensIR broadcast adds it) as one call with the bias fused into the
        accumulator (Autocomp's epilogue fusion; Gemmini's ``tiled_matmul`` bias)."""
        for p, b in _bias_pairs(t):
            self._fits({b.dtype, t.dtype}, t)  # before any call is planned
            hb = self.host(b)
            g = self._product(p)
            if g is None:
                return None
            along: Literal["all", "columns", "rows"] = (
                "all" if not is_tensor(b) else "columns" if rank(p) == 2 or g.n != Lit(1, DType.INT) else "rows")
            fused = GemmCall(g.name, g.a, g.b, g.m, g.n, g.k, t, g.scalar, t.dtype,
                             g.what + " plus a bias (moved into the accumulator first)", g.a_offset, GemmBias(hb, along))
            assert self.plan.calls[-1] is g
            self.plan.calls[-1] = fused
            return fused
        return None

    def _product(self, t: Term) -> GemmCall | None:
        one = Lit(1, DType.INT)
        biased = self._biased_product(t)
        if biased is not None:
            return biased
        match t:
            case MatMul(left, right, pd, rd):
                # a matrix product (GEMM): a matrix view in place (fp32) or packed by the host;
                # any other 2-D operand (a transposed view, a scaled matrix) computed by the host
                # into a row-major buffer first
                self._fits({pd, rd, left.dtype, right.dtype}, t)
                ops = []
                for x in (left, right):
                    self._int8_offset(x.matrix if isinstance(x, Transpose) else x, t, False)
                    if isinstance(x, Matrix):
                        ops.append(self._product_operand(x))
                    else:
                        dims = (term_rows(x), term_cols(x))
                        ops.append(Operand("host", self.host(x), "", Lit(0, DType.INT), dims[1], dims))
                return self._gemm(t, ops[0], ops[1], term_rows(t), term_cols(t), term_cols(left),
                                  False, "matrix product")
            case ReduceRows(TensorTensor("*", l, r, pd), rd, "sum") if {rank(l), rank(r)} == {1, 2}:
                mat, vec = (l, r) if rank(l) == 2 else (r, l)
                self._fits({pd, rd, mat.dtype, vec.dtype}, t)
                self._int8_offset(mat.matrix if isinstance(mat, Transpose) else mat, t, False)
                self._int8_offset(vec, t, False)
                if isinstance(mat, Matrix):
                    return self._gemm(t, self._product_operand(mat), self._product_operand(vec),
                                      mat.rows, one, mat.cols, False, "matrix-vector product")
                if isinstance(mat, Transpose):
                    m = mat.matrix
                    return self._gemm(t, self._product_operand(vec), self._product_operand(m),
                                      one, m.cols, m.rows, False, "vector-matrix product")
            case ReduceRows(Matrix() as mat, rd, "sum"):
                self._fits({rd, mat.dtype}, t)
                off = self._int8_offset(mat, t, True)
                return self._gemm(t, self._product_operand(mat), Operand("ones", None, stride=Lit(0, DType.INT)),
                                  mat.rows, one, mat.cols, False, "row sums (times a ones column)", off)
            case ReduceRows(Transpose(Matrix() as mat), rd, "sum"):
                self._fits({rd, mat.dtype}, t)
                self._int8_offset(mat, t, False)
                ones = Operand("ones", None, stride=Lit(0, DType.INT), offset=mat.rows)  # a row of K ones
                return self._gemm(t, ones, self._product_operand(mat), one, mat.cols, mat.rows, False,
                                  "column sums (a ones row times the matrix)")
            case ReduceRows(x, rd, "sum") if rank(x) == 2 and (shape := shape2(x)) is not None:
                # row sums of a matrix the host computes (e.g. map(exp, matrix(..))): times ones
                self._fits({rd, x.dtype}, t)
                self._int8_offset(x, t, False)
                a = Operand("host", self.host(x), "", Lit(0, DType.INT), shape[1], shape)
                return self._gemm(t, a, Operand("ones", None, stride=Lit(0, DType.INT)), shape[0], one, shape[1], False,
                                  "row sums of a host-computed matrix (times a ones column)")
            case ReduceSum(TensorTensor("*", l, r, pd), rd) if rank(l) == 1 and rank(r) == 1:
                self._fits({pd, rd, l.dtype, r.dtype}, t)
                self._int8_offset(l, t, False)
                self._int8_offset(r, t, False)
                a = self._product_operand(l)
                b = self._product_operand(r)
                return self._gemm(t, a, b, one, one, self._length(l), True, "dot product")
            case ReduceSum(x, rd) if rank(x) == 1:  # (a product is the dot-product case above)
                self._fits({rd, x.dtype}, t)
                off = self._int8_offset(x, t, True)
                return self._gemm(t, self._product_operand(x), Operand("ones", None, stride=Lit(0, DType.INT)),
                                  one, one, self._length(x), True, "sum (times a ones column)", off)
        return None

    def _length(self, t: Term) -> Scalar:
        return Size(t)  # type: ignore[arg-type]

    def _gemm(self, t: Term, a: Operand, b: Operand, m: Scalar, n: Scalar, k: Scalar, scalar: bool, what: str,
              a_offset: int = 0) -> GemmCall:
        if a_offset:
            what += f" of values shifted by {-a_offset} into int8 (the host adds {a_offset}·K back)"
        c = GemmCall(self._fresh(), a, b, m, n, k, t, scalar, t.dtype, what, a_offset)
        self.plan.calls.append(c)
        return c

    # ------------------------------------------------------------ affine terms

    def _linear(self, t: Term, scale: Scalar | None) -> tuple[list[tuple[Scalar | None, Term]], list[Scalar]] | None:
        """``t·scale`` as scaled leaves plus constants, or None when ``t`` is not affine."""
        if not is_tensor(t):
            return None
        integral = not t.dtype.is_float

        def neg(s: Scalar | None, d: DType) -> Scalar:
            m1 = Lit(-1, d) if not d.is_float else Lit(-1.0, d)
            return m1 if s is None else ScalarOp("*", m1, s, d)

        def times(s: Scalar | None, f: Scalar) -> Scalar:
            return f if s is None else ScalarOp("*", s, f, f.dtype)

        match t:
            case TensorTensor("+" | "-" as op, l, r, _) if rank(l) == 1 and rank(r) == 1:
                left = self._linear(l, scale) or ([(scale, l)], [])
                rs = scale if op == "+" else neg(scale, t.dtype)
                if op == "-" and scale is not None and not integral:
                    return None
                right = self._linear(r, rs) or ([(rs, r)], [])
                return left[0] + right[0], left[1] + right[1]
            case TensorScalar("*", x, s, _, _) if rank(x) == 1 and (integral or scale is None):
                inner = self._linear(x, times(scale, s))
                if inner is None:
                    return [(times(scale, s), x)], []
                if not integral and (len(inner[0]) > 1 or inner[1]):
                    return None  # s·(a + b) ≠ s·a + s·b in floating point
                return inner
            case TensorScalar("+" | "-" as op, x, s, left, _) if rank(x) == 1 and (integral or scale is None):
                if op == "-" and left:  # s - x
                    inner = self._linear(x, neg(scale, t.dtype)) or ([(neg(scale, t.dtype), x)], [])
                    return inner[0], [*inner[1], times(scale, s)]
                c = s if op == "+" else ScalarOp("*", Lit(-1, s.dtype) if not s.dtype.is_float else Lit(-1.0, s.dtype), s, s.dtype)
                inner = self._linear(x, scale) or ([(scale, x)], [])
                return inner[0], [*inner[1], times(scale, c)]
        return None

    def _affine(self, t: Tensor) -> AffineCall | None:
        inner = _relu_operand(t) if self.config == "fp32" else None
        lin: tuple[list[tuple[Scalar | None, Term]], list[Scalar]] | None
        if inner is not None:
            lin = self._linear(inner, None) or ([(None, inner)], [])
        else:
            lin = self._linear(t, None)
        if lin is None or rank(t) != 1:
            return None
        leaves, consts = lin
        dtypes = {t.dtype} | {x.dtype for _, x in leaves} | {c.dtype for c in consts}
        self._fits(dtypes, t)
        terms: list[tuple[Scalar | None, Operand]] = [(s, self._affine_operand(x)) for s, x in leaves]
        constant: Scalar | None = None
        for c in consts:
            constant = c if constant is None else ScalarOp("+", constant, c, c.dtype)
        # the value of each term, for a partial call's source (what its host fallback computes)
        values: list[Term] = [x if s is None else TensorScalar("*", x, s, False, t.dtype) for s, x in leaves]  # type: ignore[arg-type]
        # at most three moves per row: fold the rest into earlier calls
        while len(terms) + (constant is not None) > 3:
            head = terms[:2]
            source = TensorTensor("+", values[0], values[1], t.dtype)  # type: ignore[arg-type]
            part = AffineCall(self._fresh(), tuple(head), None, self._length(t), source, t.dtype)
            self.plan.calls.append(part)
            terms = [(None, Operand("host", TensorVar(part.name, t.dtype), "", Lit(0, DType.INT))), *terms[2:]]
            values = [TensorVar(part.name, t.dtype), *values[2:]]
        call = AffineCall(self._fresh(), tuple(terms), constant, self._length(t), t, t.dtype, relu=inner is not None)
        self.plan.calls.append(call)
        return call

    # ------------------------------------------------------------ host terms

    def host(self, t: Term) -> Term:
        """``t`` for the host, with the parts Gemmini computes replaced by their results.

        A device call computes every element of its term, so inside a branch of a select it
        is only made for a term that is defined everywhere (no division or remainder: the
        select may guard a zero divisor in the lanes it discards)."""
        if t in self._memo:
            return self._memo[t]
        if isinstance(t, TensorSelect) and self.config == "fp32" and _relu_operand(t) is not None:
            try:
                r = self._affine(t)
            except _HostOnly as e:
                self._note(e)
                r = None
            if r is not None:
                self._memo[t] = TensorVar(r.name, t.dtype)
                return self._memo[t]
        if isinstance(t, TensorSelect | ScalarSelect):
            cond = map_cond(t.cond, self.host)
            self._in_branch += 1
            try:
                then, else_ = self.host(t.then), self.host(t.else_)
            finally:
                self._in_branch -= 1
            out_sel: Term = type(t)(cond, then, else_, t.dtype)  # type: ignore[arg-type]
            self._memo[t] = out_sel
            return out_sel
        if isinstance(t, Full | Iota):
            self.host_notes.append(
                f"{show(t)}: generated by the host (no Gemmini rule here writes a constant or "
                "index vector; a device call reads it from memory)"
            )
        if self._in_branch and _divides(t):
            out_div = map_children(t, self.host)
            self._memo[t] = out_div
            return out_div
        if any(v.startswith("$") for v in free_vars(t)):
            # a term of a stack's row variable (one value per row): a device call computes
            # one term once, so its parts stay on the host, computed per row
            out_row = map_children(t, self.host)
            self._memo[t] = out_row
            return out_row
        out: Term | None = None
        try:
            g = self._product(t)
            if g is not None:
                out = ScalarVar(g.name, t.dtype) if g.scalar else TensorVar(g.name, t.dtype)
                if is_tensor(t) and rank(t) == 2:  # the m x n result, row-major in the call's buffer
                    out = Matrix(out, g.m, g.n)  # type: ignore[arg-type]
            elif is_tensor(t) and rank(t) == 1:
                a = self._affine(t)
                if a is not None:
                    out = TensorVar(a.name, t.dtype)
        except _HostOnly as e:
            self._note(e)
        if out is None:
            out = map_children(t, self.host)
        self._memo[t] = out
        return out

    def place(self, o: Output) -> OutputPlan:
        before = len(self.plan.calls)
        value = output_term(o)
        if isinstance(o, ArrayOutput):
            try:
                # a product plus a bias is one product call (the bias fused), not an affine sum
                a = self._affine(value) if rank(value) == 1 and not _bias_pairs(value) else None  # type: ignore[arg-type]
            except _HostOnly as e:
                self._note(e)
                a = None
            if a is not None:
                # written in place when its element type is the accumulator's, no operand
                # reads the output array at another offset and no other output reads it (all
                # outputs are functions of the initial state)
                direct = self._elem_ok(value.dtype) and o.array in self.params and o.array not in self.read_elsewhere and all(
                    op.kind != "view" or op.base != o.array or op.offset == o.lo for _, op in a.terms
                )
                if direct:
                    self.plan.calls[-1] = AffineCall(a.name, a.terms, a.constant, a.length, a.source, a.dtype, o, a.relu)
                    what = "ReLU of an elementwise add/sub/scale" if a.relu else "elementwise add/sub/scale"
                    return OutputPlan(o, None, tuple(c.name for c in self.plan.calls[before:]), (f"{what} on Gemmini",))
                host_term: Term = TensorVar(a.name, value.dtype)
            else:
                host_term = self.host(value)
        else:
            host_term = self.host(value)
        calls = tuple(c.name for c in self.plan.calls[before:])
        notes = [f"{c.name}: {getattr(c, 'what', 'elementwise add/sub/scale')} on Gemmini" for c in self.plan.calls[before:]]
        if not (isinstance(host_term, TensorVar | ScalarVar) and host_term.name in calls):
            notes.append(f"host computes {show(host_term)}")
        return OutputPlan(o, host_term, calls, tuple(notes))


def plan_summary(ps: ProgramSummary, params: set[str], config: str, strict: bool = True,
                 ranges: Mapping[str, Interval] | None = None, int_arrays: set[str] | frozenset[str] = frozenset()) -> Plan:
    """The device/host split of the returned outputs of ``ps`` (see the module docstring).

    ``params``: the arrays whose C storage is the configuration's device type (4-byte ``int``
    for ``int8`` — accumulator operands; ``float`` for ``fp32``); only those are read by the
    device in place, every other operand is converted by the host first. ``strict`` (the user
    chose ``config``): refuse values the configuration cannot hold; otherwise those terms stay
    on the host, with a note. ``ranges``: the static intervals of the integer parameters
    (:func:`tenspiler.codegen.ranges.param_ranges`; default: unbounded) — a product operand
    whose bounded range cannot fit int8 stays on the host. ``int_arrays``: the ``int`` arrays
    (unbounded by their type); an operand that leaves int8 even when they hold int8 values
    (``x * x``, ``x - 1``) also stays on the host — the contract would send it there at run
    time on typical data.

    Raises:
        CodegenError: a value Gemmini would compute does not fit ``config``.
    """
    p = _Planner(config, params, strict)
    p.ranges = ranges or {}
    p.assumed = {a: Interval(-128, 127) for a in int_arrays}
    outs = returned_outputs(ps)
    reads = [set(free_vars(output_term(o))) for o in outs]
    for i, o in enumerate(outs):
        # the arrays the other outputs read: their initial values must survive this output
        p.read_elsewhere = set().union(*(r for j, r in enumerate(reads) if j != i))
        p.plan.outputs.append(p.place(o))
    if strict and p.doubles and not p.plan.calls:
        raise CodegenError(f"gemmini: the kernel computes with double values, which no Gemmini configuration holds ({p.doubles[0]})")
    if p.doubles or p.host_notes:
        extra = tuple(dict.fromkeys(p.doubles + p.host_notes))
        p.plan.outputs = [OutputPlan(o.output, o.host_term, o.calls, (*o.notes, *extra)) for o in p.plan.outputs]
    return p.plan
