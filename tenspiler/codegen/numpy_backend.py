"""The NumPy backend: a rule table from TensIR ops to NumPy snippets, plus glue.

:data:`RULES` maps each :func:`~tenspiler.codegen.op_key` to a named rule
``rule(term, args, ctx) -> str`` that gets the already-rendered operands (``args``: the
children in :func:`~tenspiler.ir.terms.children` order, or for the arithmetic nodes the two
operands in evaluation order, already converted to the node's dtype) and returns a Python
expression. Binary rules return a parenthesised expression; every other rule returns an atom
(a name, call, subscript or literal), so expressions compose without a precedence table.

:class:`NumpyBackend` is the NumPy dialect of
:class:`~tenspiler.codegen.python_host.PythonHostBackend` (which holds the glue every
Python-hosted backend shares: parameter renaming, the precondition guards, docstrings, the
C++/Python-signature adapter): it writes the module — docstring with the contract, imports,
the helpers actually used (the functions of :mod:`tenspiler.codegen.runtime.numpy_runtime`,
emitted by their source), input conversions, one statement per output and the return.

Semantics are those of :mod:`tenspiler.ir.semantics` (C: integer ``/`` truncates toward zero,
``%`` has the sign of the dividend; see ``c_div`` and ``np_binop``; Python's ``//`` and
``mod`` floor: ``np.floor_divide`` / ``np.mod``). Representation of each
:class:`~tenspiler.loops.ir.DType` in generated code: ``FLOAT`` computes in float32,
``DOUBLE`` in float64; each integer node in the narrowest dtype that provably holds it
(:mod:`tenspiler.codegen.ranges`; arrays arrive in their stored type :data:`STORED`, so
``unsigned char`` data stays uint8); :data:`REPR` is the all-int64 representation used when a
backend sets :attr:`NumpyBackend.int_dtypes` empty.
"""

from __future__ import annotations

import math
import textwrap
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import ClassVar, TypeGuard, assert_never

import numpy as np

from tenspiler.codegen.base import (
    GeneratedCode,
    float_contract,
    no_rule_error,
    op_key,
    operands,
    returned_outputs,
)
from tenspiler.codegen.preconditions import proof_preconditions
from tenspiler.codegen.python_host import (
    REPR,
    STORED,
    EmitContext,
    PythonHostBackend,
    bare,
    exact_quotient_operands,
    fresh_name,
    function_source,
    indent,
    int_division_mode,
    min_max,
    param_dtype,
)
from tenspiler.codegen.python_host import cxx_adapter as host_cxx_adapter
from tenspiler.codegen.ranges import INT_DTYPES, Interval, needs_wrap, small_division
from tenspiler.codegen.registry import register_backend
from tenspiler.codegen.runtime import numpy_runtime
from tenspiler.errors import CodegenError
from tenspiler.ir.printer import show, show_output
from tenspiler.ir.semantics import UNARY_FUNCTIONS
from tenspiler.ir.terms import (
    ArgMax,
    ArrayOutput,
    BoolOp,
    Cmp,
    Cond,
    Full,
    Iota,
    Lit,
    MatMul,
    Matrix,
    NotCond,
    Output,
    ProgramSummary,
    ReduceMax,
    ReduceRows,
    ReduceSum,
    ScalarApply,
    ScalarCast,
    ScalarOp,
    ScalarOutput,
    ScalarSelect,
    ScalarVar,
    Slice,
    Stack,
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
    children,
    cmp_pairs,
    cols,
    free_vars,
    is_tensor,
    promote,
    rank,
    rows,
)
from tenspiler.ir.terms import cols as term_cols
from tenspiler.ir.terms import rows as term_rows
from tenspiler.loops.ir import DType, Function, PointerType, uses_floats

#: The C- and Python-semantics helpers generated code may call, by name: their source
#: (:mod:`tenspiler.codegen.runtime.numpy_runtime`, annotations dropped), emitted only when used.
HELPERS: dict[str, str] = {name: function_source(f) for name, f in numpy_runtime.FUNCTIONS.items()}

#: Helpers a helper calls.
HELPER_DEPS: dict[str, tuple[str, ...]] = dict(numpy_runtime.DEPS)

#: Module-level names of the generated module; a parameter with one of these names (or a
#: Python keyword as its name) is renamed with a trailing underscore.
HELPER_NAMES = ("np", *HELPERS, "max", "int", "str", "ValueError")


def helper_texts(used: set[str]) -> list[str]:
    """The texts of the helpers ``used`` and of those they call, in a fixed order."""
    closure = set(used)
    for h in used:
        closure.update(HELPER_DEPS.get(h, ()))
    return [HELPERS[h].rstrip("\n") for h in HELPERS if h in closure]

Rule = Callable[[Term, Sequence[str], EmitContext], str]


# ---------------------------------------------------------------- dtype conversions


#: The largest float64 below 2**63: every clamped real truncates into int64.
F64_BELOW_2_63 = 9223372036854774784.0


def convert(
    expr: str, src: DType, dst: DType, *, tensor: bool, src_rep: str | None = None, dst_rep: str | None = None
) -> str:
    """``expr`` (a value of C type ``src`` computed in the NumPy dtype ``src_rep``, default
    ``REPR[src]``) converted to ``dst`` computed in ``dst_rep`` (default ``REPR[dst]``).

    C conversions as in ``semantics.np_cast``: integer → real rounds once to the nearest
    value of the real type (C11 §6.3.1.4p2, Annex F: round to nearest), real → integer
    truncates toward zero, ``float`` ↔ ``double`` rounds; between integer dtypes the value
    must fit ``dst_rep`` (:mod:`tenspiler.codegen.ranges` guarantees it). No wrap for
    ``UINT8`` here; wrapping happens in casts and on stores (:func:`store_value`).
    ``expr`` must be an atom or parenthesised when ``tensor``.
    """
    s, d = src_rep or REPR[src], dst_rep or REPR[dst]
    if s == d:
        return expr
    if dst.is_float:
        if tensor:
            return f"{expr}.astype(np.{d})"  # NumPy's integer → float cast rounds once
        return f"np.{d}({int_to_real_operand(bare(expr), src, d)})"
    if src.is_float:
        # a scalar conversion may be hoisted out of a loop that runs no iteration, where C
        # never converts: NaN, infinities and values outside int64 (undefined behaviour in C
        # wherever it does convert) must not raise, so they are clamped first
        expr = (f"{expr}.astype(np.int64)" if tensor  # NumPy's cast truncates, as C's
                else f"int(np.clip(np.nan_to_num({bare(expr)}, nan=0.0), {-2.0**63!r}, {F64_BELOW_2_63!r}))")
        s = "int64" if tensor else "int"
        if s == d or not tensor:
            return expr
    return f"{expr}.astype(np.{d})" if tensor else f"np.{d}({bare(expr)})"


def int_to_real_operand(expr: str, src: DType, real: str) -> str:
    """The argument of ``np.<real>(...)`` that converts the scalar ``expr`` of C type ``src``
    in one rounding. A Python int given to ``np.float32`` is rounded twice, to float64 first
    and then to float32 (``np.float32(2**53 + 2**29 + 1)`` is 2**53, C's ``(float)`` of that
    ``long`` is 2**53 + 2**30); as an ``np.int64`` it is converted by NumPy's int64 → float32
    cast, which rounds once. (A Python int → float64 rounds once already.) Integer values of
    C kernels fit int64: C has no wider integer type, and signed overflow is undefined."""
    if src.is_float or real != "float32":
        return expr
    return f"np.int64({expr})"


def store_value(expr: str, src: DType, elem: DType, src_rep: str | None = None) -> str:
    """A tensor value of dtype ``src`` (computed in ``src_rep``, default ``REPR[src]``)
    converted for storing into an array of ``elem`` (C conversion on assignment:
    ``unsigned char`` wraps modulo 256). An integer array stored into a uint8 array needs no
    conversion: NumPy's integer casting on assignment wraps modulo 256, as C does."""
    if src_rep is not None and elem == DType.UINT8 and not src.is_float:
        return bare(expr)
    v = convert(expr, src, elem, tensor=True, src_rep=src_rep)
    return bare(v)


def return_value(expr: str, src: DType, ret: DType) -> str:
    """A scalar of dtype ``src`` converted to the C return type, as a Python int/float."""
    e = bare(expr)
    match ret:
        case DType.INT:
            return f"int({e})"
        case DType.UINT8:
            return f"int({e}) % 256"
        case DType.INT8 | DType.INT16 | DType.UINT16 | DType.UINT32:
            return wrap_text(f"int({e})", ret, tensor=False)
        case DType.FLOAT:
            return f"float({e})" if src == DType.FLOAT else f"float(np.float32({int_to_real_operand(e, src, 'float32')}))"
        case DType.DOUBLE:
            return f"float({e})"
        case _:
            assert_never(ret)


# ---------------------------------------------------------------- rules: leaves


def var_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``ScalarVar`` / ``TensorVar`` → the parameter, converted if the term's dtype differs
    from the declared C type."""
    assert isinstance(t, ScalarVar | TensorVar)
    src_rep = None if ctx.plan is None else ctx.plan.param_reps[t.name]
    tensor = is_tensor(t)
    if not tensor and not t.dtype.is_float and not ctx.param_dtypes[t.name].is_float:
        return ctx.names[t.name]  # an integer scalar parameter: an exact Python int
    return convert(ctx.names[t.name], ctx.param_dtypes[t.name], t.dtype, tensor=tensor, src_rep=src_rep, dst_rep=ctx.rep(t))


def lit_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``Lit`` → a Python literal (``np.float32(...)`` for ``float``)."""
    assert isinstance(t, Lit)
    value, dtype = t.value, t.dtype
    if not dtype.is_float:
        return str(int(value))
    f = float(value)
    if math.isnan(f):
        text = "np.nan"
    elif math.isinf(f):
        text = "-np.inf" if f < 0 else "np.inf"
    else:
        text = repr(f)
    if dtype != DType.FLOAT:
        return text
    if ctx.constants is None:
        return f"np.float32({text})"
    # a module constant: building a NumPy scalar costs ~0.2 us a call, as much as a µs
    # kernel's arithmetic
    value_text = f"np.float32({text})"
    if value_text not in ctx.constants:  # (ctx.taken: the module's names, parameters included)
        ctx.constants[value_text] = fresh_name(f"_F32_{len(ctx.constants)}", ctx.taken)
    return ctx.constants[value_text]


def cast_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``cast(x, dtype)`` → C conversion: int→real exact, real→int truncates toward zero,
    →``unsigned char`` wraps modulo 256 (``semantics.np_cast``)."""
    assert isinstance(t, ScalarCast | TensorCast)
    x = t.scalar if isinstance(t, ScalarCast) else t.tensor
    src = x.dtype
    tensor = isinstance(t, TensorCast)
    static = ctx.plan is not None and ctx.plan.static(t)
    if static or ctx.plan is None:
        v = convert(args[0], src, t.dtype, tensor=tensor)
    elif tensor and src.is_float and t.dtype == DType.UINT8 and ctx.rep(t) == "uint8":
        # truncated (in int32 when the values allow: a fast cast) and wrapped modulo 256
        return f"{ctx.use('_float_to_uint8')}({bare(args[0])})"
    elif t.dtype == DType.UINT8 and ctx.rep(t) == "uint8" and not src.is_float and src != DType.UINT8:
        # an integer narrowed to uint8: NumPy's integer casting wraps modulo 256, as C does
        # (a scalar through int(): a NumPy uint8 operand of ``% 256`` cannot hold 256, NEP 50)
        return f"{args[0]}.astype(np.uint8)" if tensor else f"np.uint8(int({bare(args[0])}) % 256)"
    else:
        v = convert(args[0], src, t.dtype, tensor=tensor, src_rep=ctx.rep(x), dst_rep=ctx.rep(t))
    if t.dtype == DType.UINT8 and src != DType.UINT8:
        # (two's complement: x & 255 is x modulo 256 for every integer x, and no division)
        return f"np.bitwise_and({bare(v)}, 255)" if tensor else f"(({bare(v)}) % 256)"
    if needs_wrap(t, ctx.plan):
        return wrap_text(v, t.dtype, tensor=tensor)
    return v


def wrap_text(v: str, dtype: DType, *, tensor: bool) -> str:
    """``v`` (int64 values, or a Python int) reduced modulo 2ⁿ into the range of the ranged
    integer type ``dtype`` (``semantics.np_wrap_to``): the low n bits, minus 2ⁿ when the
    type is signed and bit n-1 is set (exact for int64 values that wrapped on the way)."""
    rng = dtype.int_range
    assert rng is not None
    lo, hi = rng
    m = hi - lo
    if lo == 0:
        return f"np.bitwise_and({bare(v)}, {m})" if tensor else f"(({bare(v)}) & {m})"
    if tensor:
        return f"(np.bitwise_and(np.add({bare(v)}, {-lo}), {m}) - {-lo})"
    return f"(((({bare(v)}) + {-lo}) & {m}) - {-lo})"


# ---------------------------------------------------------------- rules: access ops


def size_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``size(t)`` → ``t.shape[0]``."""
    return f"{args[0]}.shape[0]"


def take_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``take(t, n)`` (first ``n`` elements) → ``t[:n]``."""
    return f"{args[0]}[:{bare(args[1])}]"


def tail_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``tail(t, n)`` (elements after the first ``n``) → ``t[n:]``."""
    return f"{args[0]}[{bare(args[1])}:]"


def slice_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``slice(t, lo, hi)`` → ``t[lo:hi]``."""
    return f"{args[0]}[{bare(args[1])}:{bare(args[2])}]"


def _cond_text(c: Cond, args: Iterator[str]) -> str:
    """A condition's text; ``args`` yields its operands, rendered, in traversal order."""
    match c:
        case Cmp(op, _, _):
            left, right = next(args), next(args)
            return f"({left} {op} {right})"
        case BoolOp(op, l, r):
            a = _cond_text(l, args)
            b = _cond_text(r, args)
            return f"np.logical_{op}({bare(a)}, {bare(b)})"
        case NotCond(x):
            return f"np.logical_not({bare(_cond_text(x, args))})"
    raise TypeError(f"not a TensIR condition: {c!r}")


def select_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``select(c, a, b)`` → ``_where(c, a, b, dtype)`` (elementwise: ``np.where`` as a
    branch-free bitwise blend in the node's dtype) or ``(a if c else b)``; NumPy evaluates
    both branches, the discarded lanes do not matter."""
    assert isinstance(t, ScalarSelect | TensorSelect)
    it = iter(args)
    cond = _cond_text(t.cond, it)
    a, b = next(it), next(it)
    if isinstance(t, ScalarSelect):
        # operands keep their parentheses: a nested conditional expression must not
        # re-associate (Python's ``x if c else y if d else z`` nests to the right)
        return f"({a} if {cond} else {b})"
    return f"{ctx.use('_where')}({bare(cond)}, {bare(a)}, {bare(b)}, np.{ctx.rep(t)})"


def matvec_operands(t: Term) -> tuple[Term, Term, TensorTensor] | None:
    """``(M, v, product)`` when ``t`` is ``reduce_rows(tensor_tensor(M, v, *))`` of reals with
    ``M`` a matrix and ``v`` a vector (either order): the matrix–vector product ``M @ v``,
    computed by BLAS (sgemv / dgemv) in the node's type. The proof treats real ``+`` as
    exact; any summation order is one of the roundings the float tolerance allows."""
    match t:
        case ReduceRows(TensorTensor("*", left, right, dtype) as product, rdtype, "sum") if (
            dtype.is_float and rdtype == dtype
        ):
            if rank(left) == 2 and rank(right) == 1:
                return left, right, product
            if rank(left) == 1 and rank(right) == 2:
                return right, left, product
    return None


def stack_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``stack(r < n: body)`` is rendered by :meth:`NumpyBackend._stack` (its body under the
    binding of ``r``); reached only from a backend that hosts single nodes in NumPy."""
    raise CodegenError(f"stack (a map over rows, {show(t)}) is generated by the NumPy backend only")


def apply_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``map(f, t)`` / ``f(s)`` for the math functions → ``np.exp`` … (real arithmetic in
    the proof; NumPy computes in the C type's precision)."""
    assert isinstance(t, ScalarApply | TensorMap)
    if t.func == "round":  # C's round, half away from zero (semantics.np_round; np.round is half-even)
        x = bare(args[0])
        return f"(np.trunc({x}) + np.sign({x}) * (np.abs(({x}) - np.trunc({x})) >= 0.5))"
    fn = {"exp": "np.exp", "sqrt": "np.sqrt", "log": "np.log", "tanh": "np.tanh", "fabs": "np.abs",
          "expm1": "np.expm1", "cos": "np.cos", "sin": "np.sin", "floor": "np.floor"}[t.func]
    return f"{fn}({bare(args[0])})"


def matrix_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``matrix(t, rows, cols)`` (row-major view of the first rows*cols elements) →
    ``t[:rows * cols].reshape(rows, cols)``."""
    return f"{args[0]}[:({args[1]}) * ({args[2]})].reshape({bare(args[1])}, {bare(args[2])})"


def matrix_strided_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``matrix(t, rows, cols, stride)`` (row ``r`` is ``t[r*stride : r*stride + cols]``)
    → a gather ``t[np.arange(rows)[:, None] * stride + np.arange(cols)]``."""
    rows, cols, stride = (bare(a) for a in args[1:4])
    return f"{args[0]}[np.arange({rows})[:, None] * ({stride}) + np.arange({cols})[None, :]]"


def _may_leave_int64(iv: Interval) -> bool:
    """A bounded interval (values of C-typed operands) not inside int64."""
    return iv.lo is not None and iv.hi is not None and not (iv.lo >= -(2**63) and iv.hi < 2**63)


def flatten_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``flatten(m)`` (row-major) → ``m.reshape(-1)``."""
    return f"{args[0]}.reshape(-1)"


def transpose_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``transpose(m)`` → ``m.T``."""
    return f"{args[0]}.T"


def strided_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``strided(t, start, count, step)`` → ``t[start + np.arange(count) * step]``."""
    start, count, step = (bare(a) for a in args[1:4])
    return f"{args[0]}[{start} + np.arange({count}) * ({step})]"


# ---------------------------------------------------------------- rules: constructors


def full_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``full(length, value)`` (``length`` copies of ``value``) → ``np.full(length, value,
    dtype=...)`` in the node's dtype (the value's C type; an integer in the narrowest dtype
    holding it, :mod:`.ranges`)."""
    return f"np.full({bare(args[0])}, {bare(args[1])}, dtype=np.{ctx.rep(t)})"


def iota_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``iota(start, stop)`` (the integers ``start … stop-1``) → ``np.arange(start, stop,
    dtype=...)`` (the dtype holds ``[start, stop - 1]``, :mod:`.ranges`)."""
    return f"np.arange({bare(args[0])}, {bare(args[1])}, dtype=np.{ctx.rep(t)})"


# ---------------------------------------------------------------- rules: reductions


def reduce_sum_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``reduce_sum(t)`` → ``np.sum(t, dtype=...)`` (0 for an empty tensor; integer sums
    stay int64, the accumulator has the node's dtype)."""
    return f"np.add.reduce({bare(args[0])}, dtype=np.{ctx.rep(t)})"


def reduce_rows_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``reduce_rows(m)`` (row sums) → ``np.sum(m, axis=1, dtype=...)``; with
    ``m = tensor_tensor(M, v, *)`` this is the matrix–vector product ``M @ v``."""
    assert isinstance(t, ReduceRows)
    if t.kind == "max":
        # the identity of max as initial value: a matrix without rows (0 x 0) gives no maxima
        rep = ctx.rep(t.matrix)
        least = "-np.inf" if rep.startswith("float") else f"np.iinfo(np.{rep}).min"
        return f"np.maximum.reduce({bare(args[0])}, axis=1, initial={least}).astype(np.{ctx.rep(t)}, copy=False)"
    return f"np.add.reduce({bare(args[0])}, axis=1, dtype=np.{ctx.rep(t)})"


def matmul_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``matmul(a, b)`` (NumPy host code of another backend; NumPy itself renders
    :meth:`NumpyBackend._matmul`): ``np.matmul`` in the node's dtype, or the products in their
    own type summed in the node's (:func:`matmul_products`)."""
    assert isinstance(t, MatMul)
    if t.dtype.is_float and t.product != t.dtype:
        return matmul_products(t, args[0], args[1], None, None, REPR[t.dtype])
    a, b = (convert(x, c.dtype, t.dtype, tensor=True) for x, c in zip(args, (t.left, t.right), strict=True))
    return f"np.matmul({bare(a)}, {bare(b)})"


def matmul_products(t: MatMul, a: str, b: str, a_rep: str | None, b_rep: str | None, rep: str) -> str:
    """``matmul(a, b)`` whose real products have another type than its sum (C: ``double s;
    s += A[i][k] * B[k][j]`` of ``float`` data: each product rounded to float, then added in
    double): the products of the operands converted to the product type, broadcast over
    ``m × k × n``, summed along ``k`` in the node's dtype — BLAS would form the products in
    the sum's type (a float overflow C has would vanish). Memory ``m·k·n`` elements."""
    x = convert(a, t.left.dtype, t.product, tensor=True, src_rep=a_rep)
    y = convert(b, t.right.dtype, t.product, tensor=True, src_rep=b_rep)
    return f"np.add.reduce(({bare(x)})[:, :, None] * ({bare(y)})[None, :, :], axis=1, dtype=np.{rep})"


def reduce_prod_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``reduce_prod(t)`` → ``np.multiply.reduce(t, dtype=...)`` (1 for an empty tensor;
    integers in int64: C's products fit (signed overflow is undefined), so do NumPy's)."""
    return f"np.multiply.reduce({bare(args[0])}, dtype=np.{ctx.rep(t)})"


def reduce_max_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``reduce_max(t)`` → ``np.max(t)`` (undefined for an empty tensor)."""
    assert isinstance(t, ReduceMax)
    src_rep = None if ctx.plan is None else ctx.rep(t.tensor)
    return convert(f"np.maximum.reduce({bare(args[0])})", t.tensor.dtype, t.dtype, tensor=False, src_rep=src_rep, dst_rep=ctx.rep(t))


def argmax_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``argmax(t)`` → ``np.argmax(t)`` (NumPy returns the first maximal index: C's
    ``x[i] > m`` rule); ``argmax_last(t)`` → the first maximal index of the reversed tensor,
    counted from the end (``x[i] >= m``). Integer elements compared as reals are converted
    first (C compares them after the same conversion). Undefined for an empty tensor."""
    assert isinstance(t, ArgMax)
    x = bare(args[0])
    if t.compare.is_float and not t.tensor.dtype.is_float:
        src_rep = None if ctx.plan is None else ctx.rep(t.tensor)
        x = convert(f"({x})", t.tensor.dtype, t.compare, tensor=True, src_rep=src_rep)
    if t.last:
        return f"(lambda v: np.{ctx.rep(t)}(len(v) - 1 - np.argmax(v[::-1])))({x})"
    return f"np.{ctx.rep(t)}(np.argmax({x}))"


# ---------------------------------------------------------------- rules: arithmetic


def add_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    return f"({args[0]} + {args[1]})"


def sub_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    return f"({args[0]} - {args[1]})"


def mul_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    return f"({args[0]} * {args[1]})"


def _guard_divisor(t: Term, y: str, ctx: EmitContext) -> str:
    """An integer scalar divisor ``y`` as ``(y or 1)`` unless it is a non-zero literal.

    A zero divisor reaches generated code only where the source does not divide: in a
    branch of an elementwise select no lane takes, or hoisted out of a loop that runs no
    iteration (``a[:n] * (100 // k)`` with ``n == 0``). C never evaluates it there, and
    Python would raise ``ZeroDivisionError``. Where the source does divide, a zero divisor
    is undefined behaviour, which the proof excludes by hypothesis. In the proof, ``x / 0``
    is unconstrained, so the summary holds for any value standing in for it."""
    del ctx
    if not is_tensor(t) and not t.dtype.is_float:
        plain = bare(y)
        if plain.lstrip("-").isdigit() and int(plain) != 0:
            return y
        return f"({plain} or 1)"
    return y


def div_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``/``: true division on reals; C truncating division on integers (``_c_div`` on
    arrays, ``_c_idiv`` on scalars), as ``semantics.np_binop`` / ``py_binop``."""
    x, y = bare(args[0]), bare(_guard_divisor(t, args[1], ctx))
    if t.dtype.is_float:
        return f"({args[0]} / {args[1]})"
    helper = ctx.use("_c_div") if is_tensor(t) else ctx.use("_c_idiv")
    return f"{helper}({x}, {y})"


def mod_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``%``: ``np.fmod`` (sign of the dividend, like C) on arrays and reals; ``_c_imod`` on
    integer scalars."""
    x, y = bare(args[0]), bare(args[1])
    if is_tensor(t) or t.dtype.is_float:
        return f"np.fmod({x}, {y})"
    return f"{ctx.use('_c_imod')}({x}, {bare(_guard_divisor(t, args[1], ctx))})"


def floordiv_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``//`` (Python floor division of integers): ``_py_floordiv`` (``np.floor_divide``)
    on arrays, Python's ``//`` on scalars, as ``semantics.np_binop`` / ``py_binop``."""
    if is_tensor(t):
        return f"{ctx.use('_py_floordiv')}({bare(args[0])}, {bare(args[1])})"
    return f"({args[0]} // {_guard_divisor(t, args[1], ctx)})"


def pymod_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``mod`` (Python's ``%`` on integers, the sign of the divisor): ``_py_mod``
    (``np.mod``) on arrays, Python's ``%`` on scalars."""
    if is_tensor(t):
        return f"{ctx.use('_py_mod')}({bare(args[0])}, {bare(args[1])})"
    return f"({args[0]} % {_guard_divisor(t, args[1], ctx)})"


def bitwise_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``& | ^`` on integers: NumPy's bitwise ufuncs (two's complement, as
    ``semantics.np_binop``) on arrays, Python's operators on ints (exact)."""
    assert isinstance(t, ScalarOp | TensorTensor | TensorScalar)
    op = t.op
    if isinstance(t, TensorTensor | TensorScalar):
        ufunc = {"&": "bitwise_and", "|": "bitwise_or", "^": "bitwise_xor"}[op]
        return f"np.{ufunc}({bare(args[0])}, {bare(args[1])})"
    return f"({args[0]} {op} {args[1]})"


def pow_rule(t: Term, args: Sequence[str], ctx: EmitContext) -> str:
    """``pow`` of reals: ``np.power`` (the C library's ``pow`` on doubles, as
    ``semantics.np_pow``), on arrays and on scalars."""
    return f"np.power({bare(args[0])}, {bare(args[1])})"


BINOP_RULES: dict[str, Rule] = {
    "+": add_rule,
    "-": sub_rule,
    "*": mul_rule,
    "/": div_rule,
    "%": mod_rule,
    "//": floordiv_rule,
    "mod": pymod_rule,
    "&": bitwise_rule,
    "|": bitwise_rule,
    "^": bitwise_rule,
    "pow": pow_rule,
}

#: The rule table: one entry per TensIR node type, and per operator for arithmetic nodes.
RULES: dict[str, Rule] = {
    "scalar_var": var_rule,
    "tensor_var": var_rule,
    "lit": lit_rule,
    "size": size_rule,
    "take": take_rule,
    "tail": tail_rule,
    "slice": slice_rule,
    "reduce_sum": reduce_sum_rule,
    "reduce_max": reduce_max_rule,
    "matrix": matrix_rule,
    "matrix_strided": matrix_strided_rule,
    "transpose": transpose_rule,
    "flatten": flatten_rule,
    "strided": strided_rule,
    "full": full_rule,
    "iota": iota_rule,
    **{f"{node}({fn})": apply_rule for node in ("scalar_apply", "map") for fn in UNARY_FUNCTIONS},
    "scalar_select": select_rule,
    "tensor_select": select_rule,
    "reduce_rows": reduce_rows_rule,
    "reduce_prod": reduce_prod_rule,
    "argmax": argmax_rule,
    "matmul": matmul_rule,
    "stack": stack_rule,
    "scalar_cast": cast_rule,
    "tensor_cast": cast_rule,
    **{
        f"{node}({op})": rule
        for node in ("scalar_op", "tensor_tensor", "tensor_scalar", "scalar_tensor")
        for op, rule in BINOP_RULES.items()
    },
}


# ---------------------------------------------------------------- the backend


#: Tensor nodes whose element k depends only on element k of their tensor operands.
ELEMENTWISE = (TensorTensor, TensorScalar, TensorSelect, TensorMap, TensorCast)


def block_views(t: Term) -> list[Term] | None:
    """The views of parameters a 1-D elementwise term reads — ``take`` / ``tail`` / ``slice``
    of a 1-D parameter, or the parameter — in first-occurrence order, when ``t`` is built from
    them, :data:`ELEMENTWISE` nodes and scalar terms that read no tensor; else ``None``.
    Such a term, when it has more than one operation, is computed block by block, each block
    from the same block of every view (``_store_blocks``)."""
    views: list[Term] = []
    ops: list[Term] = []

    def visit(u: Term) -> bool:
        if not is_tensor(u):
            return not any(is_tensor(c) or not visit(c) for c in children(u))
        if rank(u) != 1:
            return False
        if isinstance(u, TensorVar) or (isinstance(u, Take | Tail | Slice) and isinstance(u.tensor, TensorVar)):
            if u not in views:
                views.append(u)
            return True
        ops.append(u)
        return isinstance(u, ELEMENTWISE) and all(visit(c) for c in children(u))

    if not visit(t) or not views:
        return None
    return views if len(ops) > 1 else None  # one op has no temporaries to keep small


def _int_to_uint8(t: Term) -> TypeGuard[TensorCast]:
    """``cast(x, uint8)`` of an integer tensor ``x`` (a store into a uint8 array wraps it)."""
    return isinstance(t, TensorCast) and t.dtype == DType.UINT8 and not t.tensor.dtype.is_float


class NumpyBackend(PythonHostBackend):
    """Generates a NumPy module for a verified summary. Registered as ``"numpy"``.

    The NumPy dialect of :class:`~tenspiler.codegen.python_host.PythonHostBackend`: its
    :attr:`rules` (:data:`RULES`), the rendering of a term (range-analysed integer dtypes,
    named common subexpressions, library calls for a few compound patterns), the output
    statements and the module. Subclasses may override :attr:`rules` entries.
    """

    name = "numpy"
    rules: ClassVar[Mapping[str, Rule]] = RULES
    #: Integer dtypes generated code computes in, narrowest first (:mod:`.ranges`); empty:
    #: every integer in int64 and ``unsigned char`` arrays converted to int64 on entry.
    int_dtypes: ClassVar[tuple[str, ...]] = tuple(INT_DTYPES)
    #: ``_where`` converts its operands to the select's dtype
    repack_selects: ClassVar[bool] = True
    #: ``_float_to_uint8`` truncates and wraps reals converted to uint8
    narrow_float_casts: ClassVar[bool] = True

    # ------------------------------------------------------------ rendering

    def render(self, t: Term, ctx: EmitContext) -> str:
        """Python expression for ``t``.

        Raises:
            CodegenError: some op of ``t`` has no rule (the message names it).
        """
        if t in ctx.cse:
            return ctx.cse[t]
        text = self._render(t, ctx)
        if t in ctx.cse_candidates:  # computed once, at its first evaluation
            name = fresh_name("_v", ctx.taken)
            ctx.cse[t] = name
            return f"({name} := {bare(text)})"
        return text

    def _render(self, t: Term, ctx: EmitContext) -> str:
        rule = self.rules.get(op_key(t))
        if rule is None:
            raise no_rule_error(self.name, t, self.rules)
        if ctx.narrow():
            special = self._special(t, ctx)
            if special is not None:
                return special
        if isinstance(t, TensorSelect) and ctx.narrow() and (extremum := min_max(t)) is not None:
            a, b = (self._operand(u, t, ctx) for u in (t.then, t.else_))  # the condition is not rendered
            if is_tensor(t.then) != is_tensor(t.else_):  # an array and a scalar
                return f"{ctx.use('_extremum')}(np.{extremum}, {bare(a)}, {bare(b)})"
            return f"np.{extremum}({bare(a)}, {bare(b)})"
        if isinstance(t, MatMul):
            return self._matmul(t, ctx)
        if isinstance(t, Stack):
            return self._stack(t, ctx)
        if isinstance(t, ScalarSelect) and ctx.cse_candidates:
            # a Python conditional runs one branch: names bound in it end with it
            args = self._cond_operands(t.cond, ctx)
            bound = dict(ctx.cse)
            for u in (t.then, t.else_):
                args.append(self._operand(u, t, ctx) if ctx.narrow() else self.render(u, ctx))
                ctx.cse = dict(bound)
            return rule(t, args, ctx)
        if (quotient := exact_quotient_operands(t, ctx)) is not None:
            a, b = (bare(self.render(u, ctx)) for u in quotient)
            return f"{ctx.use('_int_true_divide')}({a}, {b})"
        if isinstance(t, ScalarOp | TensorTensor | TensorScalar):
            plan = ctx.plan if ctx.narrow() else None
            if plan is not None and not t.dtype.is_float and not plan.static(t):
                return self._int_arith(t, rule, ctx)
            args = [self._operand(c, t, ctx) for c in operands(t)]
            if (isinstance(t, ScalarOp) and plan is not None and not t.dtype.is_float and t.op in ("+", "-", "*")
                    and _may_leave_int64(plan.c_range(t))):
                # an exact Python int of C-typed values that can leave int64 (a loop-invariant
                # value computed before the loop, also where C never computes it): wrapped so
                # that NumPy takes it; + - * and stores are exact modulo 2**64, and comparisons,
                # divisions and conversions of such values are refused by ranges.wrap_hazards
                return f"{ctx.use('_wrap64')}({bare(rule(t, args, ctx))})"
        elif isinstance(t, TensorSelect):
            args = self._cond_operands(t.cond, ctx)
            ctx.both_branches += 1
            try:
                args += [self._operand(c, t, ctx) if ctx.narrow() else self.render(c, ctx) for c in (t.then, t.else_)]
            finally:
                ctx.both_branches -= 1
        elif isinstance(t, ScalarSelect):
            args = self._cond_operands(t.cond, ctx)
            args += [self._operand(c, t, ctx) if ctx.narrow() else self.render(c, ctx) for c in (t.then, t.else_)]
        elif isinstance(t, ScalarApply | TensorMap):  # C: exp(float) computes in double
            args = [self._operand(t.scalar if isinstance(t, ScalarApply) else t.tensor, t, ctx)]
        else:
            args = [self.render(c, ctx) for c in children(t)]
        return rule(t, args, ctx)

    def _render_output(
        self, value: Term, ctx: EmitContext, taken: set[str], bound: Mapping[Term, str] | None = None
    ) -> str:
        """``value`` rendered with its repeated subterms computed once (bound with ``:=``
        at their first evaluation; not across the branches of a Python conditional), and the
        subterms in ``bound`` as the names given there."""
        if not ctx.narrow():
            return self.render(value, ctx)
        ctx.cse_candidates, ctx.cse, ctx.taken = self._repeated(value, ctx), dict(bound or {}), taken
        try:
            return self.render(value, ctx)
        finally:
            ctx.cse_candidates, ctx.cse = set(), {}

    @staticmethod
    def _repeated(t: Term, ctx: EmitContext) -> set[Term]:
        """Subterms of ``t`` that occur more than once and are worth a name: not parameters,
        literals, static integers or views of a parameter."""
        counts: Counter[Term] = Counter()

        def visit(u: Term) -> None:
            counts[u] += 1
            minmax = isinstance(u, TensorSelect) and min_max(u) is not None  # cond not rendered
            for c in [u.then, u.else_] if isinstance(u, TensorSelect) and minmax else children(u):
                visit(c)

        visit(t)
        cheap = (ScalarVar, TensorVar, Lit, Take, Tail, Slice)
        return {
            u for u, n in counts.items()
            if n > 1 and not isinstance(u, cheap) and not (ctx.plan is not None and ctx.plan.static(u))
        }

    def _special(self, t: Term, ctx: EmitContext) -> str | None:
        """Library calls for a few compound patterns: a matrix–vector product
        (:func:`matvec_operands`) is ``np.matmul``; the sum of an elementwise product of two
        vectors is ``np.dot`` (``sdot`` / ``ddot`` for reals: no temporary); the sum of a
        one-element slice of a parameter (its bounds are guarded) is that element."""
        mv = matvec_operands(t)
        if mv is not None:
            m, v = (self._operand(c, t, ctx) for c in mv[:2])  # (reals: the product's type)
            return f"np.matmul({bare(m)}, {bare(v)})"
        match t:
            case ReduceSum(TensorTensor("*", left, right, dtype), rdtype) if (
                rdtype == dtype and rank(left) == 1 and rank(right) == 1
            ):
                # the operands in the sum's type: np.dot accumulates in its operands' dtype
                a, b = (self._operand(c, t, ctx) for c in (left, right))
                return f"np.dot({bare(a)}, {bare(b)})"
            case ReduceSum(Slice(TensorVar() as x, lo, hi), rdtype) if hi == ScalarOp("+", lo, Lit(1, DType.INT), DType.INT) or (
                isinstance(lo, Lit) and isinstance(hi, Lit) and hi.value == lo.value + 1
            ):
                elem = f"{self.render(x, ctx)}[{bare(self.render(lo, ctx))}]"
                return convert(elem, x.dtype, rdtype, tensor=False, src_rep=ctx.rep(x), dst_rep=ctx.rep(t))
        return None

    def _matmul(self, t: MatMul, ctx: EmitContext) -> str:
        """``matmul(a, b)``: the library's matrix product of the operands converted to the
        node's dtype (integers: exact int64 arithmetic; reals: BLAS ``sgemm`` / ``dgemm``,
        whose summation order is one of the roundings the float tolerance allows — the proof
        treats real ``+`` as exact), computed only for a non-empty product (Python evaluates
        one branch of a conditional): with ``m`` or ``n`` zero the source reads neither
        matrix, whose views may then not fit their arrays (:meth:`guards` agrees)."""
        nonempty = self._matmul_nonempty(t, ctx)
        nr, nc = (bare(self.render(e, ctx)) for e in (term_rows(t), term_cols(t)))
        bound = dict(ctx.cse)
        if t.dtype.is_float and t.product != t.dtype:
            a, b = (self.render(c, ctx) for c in (t.left, t.right))
            reps = [None if ctx.plan is None else ctx.rep(c) for c in (t.left, t.right)]
            product = matmul_products(t, a, b, reps[0], reps[1], ctx.rep(t))
        else:
            a, b = (self._operand(c, t, ctx) for c in (t.left, t.right))
            product = self._matmul_call(bare(a), bare(b))
        ctx.cse = dict(bound)  # names bound in one branch end with it
        return f"({product} if {nonempty} else {self._zeros2(nr, nc, ctx.rep(t))})"

    def _stack(self, t: Stack, ctx: EmitContext) -> str:
        """``stack(r < n: body)``: a list comprehension over the rows, ``body`` rendered with
        ``r`` an exact Python int (``np.array`` of the elements, or of the rows reshaped to
        ``n x cols``: also for no rows). Repeated subterms are not named inside it (a name
        bound in a comprehension that runs no iteration would be unbound after it)."""
        gathered = self._stack_of_window_products(t, ctx)
        if gathered is not None:
            return gathered
        py = ctx.stack_index_name(t.var, set(ctx.names.values()) | ctx.taken)
        count = bare(self.render(t.count, ctx))
        saved_cse = ctx.cse_candidates
        ctx.cse_candidates = set()
        try:
            with ctx.stack_index(t.var, py):
                body = bare(self._operand(t.body, t, ctx))
        finally:
            ctx.cse_candidates = saved_cse
        rep = ctx.rep(t)
        items = f"np.array([{body} for {py} in range({count})], dtype=np.{rep})"
        if not is_tensor(t.body):
            return items
        width = term_cols(t)
        if t.var in free_vars(width):
            raise CodegenError(f"the rows of {show(t)} have a length that depends on the row")
        w = bare(self.render(width, ctx))
        # rows of no element: the source reads none of the row's views (a row of a product
        # over no column), so neither does the generated code
        return f"({items}.reshape(max({count}, 0), {w}) if ({w}) > 0 else np.zeros((max({count}, 0), 0), dtype=np.{rep}))"

    def _stack_of_window_products(self, t: Stack, ctx: EmitContext) -> str | None:
        """Stacks (one or more, nested) of the sum of the elementwise product of two matrix
        views, each a fixed matrix or a window whose offset moves with the stacks' rows (a
        2-D convolution): the windows gathered at once with index arrays broadcast over the
        stacks' axes, multiplied and summed over the last two axes (one vectorised
        expression instead of a Python loop per element). ``None`` for any other stack."""
        stacks: list[Stack] = []
        u: Term = t
        while isinstance(u, Stack):
            stacks.append(u)
            u = u.body
        match u:
            case ReduceSum(ReduceRows(TensorTensor("*", left, right, pd) as product, d1, "sum"), d2) if (
                d1 == d2 and (pd == d1 or not pd.is_float)
            ):
                pass
            case _:
                return None
        bound = {s.var for s in stacks}
        if any(free_vars(s.count) & bound for s in stacks):
            return None
        depth = len(stacks)
        counts = [bare(self.render(s.count, ctx)) for s in stacks]
        ops: list[str] = []
        for m in (left, right):
            if not free_vars(m) & bound:
                if not isinstance(m, Matrix | Transpose):
                    return None
                ops.append(self._operand(m, product, ctx))
                continue
            if not isinstance(m, Matrix) or (free_vars(m.rows) | free_vars(m.cols)) & bound:
                return None
            stride = m.cols if m.stride is None else m.stride
            if free_vars(stride) & bound:
                return None
            base, offset = m.tensor, []
            while isinstance(base, Tail):
                offset.append(base.n)
                base = base.tensor
            if not isinstance(base, TensorVar):
                return None
            saved = ctx.names, ctx.param_dtypes
            ctx.names = {**ctx.names, **{
                s.var: f"np.arange({counts[q]}).reshape({', '.join('-1' if a == q else '1' for a in range(depth + 2))})"
                for q, s in enumerate(stacks)}}
            ctx.param_dtypes = {**ctx.param_dtypes, **{v: DType.INT for v in bound}}
            saved_plan = ctx.plan
            ctx.plan = None  # index arithmetic in int64 arrays
            try:
                off = " + ".join(f"({bare(self.render(o, ctx))})" for o in offset) or "0"
            finally:
                ctx.names, ctx.param_dtypes = saved
                ctx.plan = saved_plan
            nr, nc, st = (bare(self.render(e, ctx)) for e in (m.rows, m.cols, stride))
            index = f"{off} + np.arange({nr})[:, None] * ({st}) + np.arange({nc})[None, :]"
            elems = f"{self.render(base, ctx)}[{index}]"
            src_rep = None if ctx.plan is None else ctx.rep(base)
            ops.append(convert(elems, base.dtype, pd, tensor=True, src_rep=src_rep,
                               dst_rep="int64" if not pd.is_float else None))
        if not pd.is_float:
            ops = [f"np.asarray({bare(o)}, dtype=np.int64)" for o in ops]
        rep = ctx.rep(t) if d1.is_float else "int64"
        shape = ", ".join(f"max({c}, 0)" for c in counts)
        # computed only when there is an element: with no rows the source reads no window
        # and no weight (the guards check them only then)
        nonempty = " and ".join(f"({c}) > 0" for c in counts)
        return (f"(np.sum({ops[0]} * {ops[1]}, axis=(-2, -1), dtype=np.{rep}) if {nonempty} "
                f"else np.zeros(({shape},), dtype=np.{rep}))")

    def _matmul_call(self, a: str, b: str) -> str:
        return f"np.matmul({a}, {b})"

    def _zeros2(self, nr: str, nc: str, rep: str) -> str:
        return f"np.zeros((max({nr}, 0), max({nc}, 0)), dtype=np.{rep})"

    def _operand(self, c: Term, parent: Term, ctx: EmitContext, text: str | None = None) -> str:
        """``c`` rendered (or ``text``) and converted to the type ``parent`` computes in; a
        static integer (an exact Python int) stays as it is in integer arithmetic."""
        text = self.render(c, ctx) if text is None else text
        if ctx.plan is not None and ctx.plan.static(c) and not parent.dtype.is_float:
            return text
        src_rep = None if ctx.plan is None else ctx.rep(c)
        return convert(text, c.dtype, parent.dtype, tensor=is_tensor(c), src_rep=src_rep, dst_rep=ctx.rep(parent))

    def _cond_operands(self, c: Cond, ctx: EmitContext) -> list[str]:
        """The operands of a condition's comparisons, rendered in traversal order, each pair
        converted to the C type the comparison is computed in (C's usual arithmetic
        conversions, ``promote``): ``x > 0.1`` on a ``float`` array ``x`` compares in double,
        as C converts ``x[i]`` to the double literal's type (NumPy would compare a float32
        array with a Python float in float32), and an ``int`` compared with a ``float`` is
        converted to float. Integer pairs compare exactly in any dtypes: unchanged."""
        out: list[str] = []
        for left, right in cmp_pairs(c):
            d = promote(left.dtype, right.dtype)
            for u in (left, right):
                text = self.render(u, ctx)
                if d.is_float:
                    src_rep = None if ctx.plan is None else ctx.rep(u)
                    text = convert(text, u.dtype, d, tensor=is_tensor(u), src_rep=src_rep, dst_rep=REPR[d])
                out.append(text)
        return out

    def _int_arith(self, t: ScalarOp | TensorTensor | TensorScalar, rule: Rule, ctx: EmitContext) -> str:
        """Integer arithmetic in the node's range-analysed dtype ``D`` (:mod:`.ranges`).
        ``+ - *``, and ``/ %`` of a non-negative dividend by a positive divisor (where C's
        truncation is NumPy's floor), are one ufunc call with ``dtype=D``: the operands are
        converted as NumPy reads them, without temporary copies. Other divisions convert
        their operands and use the C-semantics helpers, or — for an array divisor and
        operands below 2**24 in magnitude — float32 division (``_div24`` / ``_rem24``: NumPy
        has no vectorised integer division by an array)."""
        plan = ctx.plan
        assert plan is not None
        d = ctx.rep(t)
        ops = operands(t)
        division = t.op in ("/", "%", "//", "mod")
        fast = division and small_division(t, plan) and not plan.static(ops[1])
        if not (fast or t.op in ("+", "-", "*") or (division and plan.plain_division(t))):
            return rule(t, [self._operand(c, t, ctx) for c in ops], ctx)
        texts = [self.render(c, ctx) for c in ops]
        reps = [None if plan.static(c) else ctx.rep(c) for c in ops]
        if division and plan.zero_divisor(t):
            # 0 only in lanes a select discards (else undefined): no warning there
            y, tensor = bare(texts[1]), is_tensor(ops[1])
            lo = plan.range(ops[1]).lo
            if lo is not None and lo >= 0:
                texts[1] = f"{ctx.use('_extremum')}(np.maximum, {y}, 1)" if tensor else f"max({y}, 1)"
            else:
                texts[1] = f"np.where({y} == 0, 1, {y})" if tensor else f"({y} or 1)"
        if fast:
            helper = ctx.use("_div24" if t.op in ("/", "//") else "_rem24")
            floor = ", floor=True" if t.op in ("//", "mod") else ""
            return f"{helper}({bare(texts[0])}, {bare(texts[1])}, np.{d}{floor})"
        symbol = {"+": "+", "-": "-", "*": "*", "/": "//", "//": "//", "%": "%", "mod": "%"}[t.op]
        if all(r in (None, d) for r in reps):
            return f"({texts[0]} {symbol} {texts[1]})"
        ufunc = {"+": "add", "-": "subtract", "*": "multiply", "//": "floor_divide", "%": "remainder"}[symbol]
        unsafe = any(r is not None and not np.can_cast(r, d, "same_kind") for r in reps)
        casting = ', casting="unsafe"' if unsafe else ""  # values fit d (range analysis)
        return f"np.{ufunc}({bare(texts[0])}, {bare(texts[1])}, dtype=np.{d}{casting})"

    # ------------------------------------------------------------ glue

    def generate(self, fn: Function, ps: ProgramSummary) -> GeneratedCode:
        outputs = returned_outputs(ps)
        self._validate(fn, ps, outputs)

        # the entry calls `_f_flat` / `_f_core` by name: no parameter may shadow them
        taken = {*HELPER_NAMES, f"_{fn.name}_flat", f"_{fn.name}_core"}
        names = {p.name: fresh_name(p.name, taken) for p in fn.params}
        ctx = EmitContext(names, {p.name: param_dtype(fn, p.name) for p in fn.params}, plan=self.plan(fn),
                          taken=taken, constants={}, int_division=int_division_mode(fn))
        code = self._outputs(fn, ps, outputs, ctx, taken)
        statements, results, returns_doc = code.statements, code.results, code.returns_doc
        conversions = [
            self._convert_param(fn, p.name, names[p.name]) for p in fn.params if p.name in code.used
        ]
        guards = self.guards(outputs, ctx, code.preconditions, fn=fn)
        if not results:
            ret = "return None"
        elif len(results) == 1:
            ret = f"return {results[0]}"
        else:
            ret = f"return {', '.join(results)}"

        flat_name = fn.name if fn.cxx is None else f"_{fn.name}_flat"
        signature = f"{flat_name}({', '.join(names[p.name] for p in fn.params)})"
        doc = self._function_doc(fn, names, returns_doc)
        helpers = helper_texts(ctx.helpers)
        assert ctx.constants is not None
        if ctx.constants:
            helpers.append("\n".join(f"{name} = {value}" for value, name in ctx.constants.items()))
        if fn.cxx is None:
            body = ["\n".join([doc, *conversions, *guards]), *statements, ret]
            functions = [f"def {signature}:\n" + "\n\n".join(indent(b) for b in body if b)]
        else:
            # the entry with the C++ / Python signature converts its arguments itself and
            # calls the body after the flat function's conversions, `_<f>_core`, directly
            takes = [p.name for p in fn.params if p.name in code.used]
            core = f"_{fn.name}_core"
            call = f"{core}({', '.join(names[p] for p in takes)})"
            core_doc = (f'"""`{flat_name}` after its argument conversions: takes the arguments it reads,\n'
                        f'of the dtypes `{flat_name}` converts them to (`{fn.name}` calls this directly)."""')
            body = ["\n".join([core_doc, *guards]), *statements, ret]
            functions = [
                f"def {call}:\n" + "\n\n".join(indent(b) for b in body if b),
                f"def {signature}:\n" + indent("\n".join([doc, *conversions, f"return {call}"])),
                cxx_adapter(fn, ps, flat_name, names, core=(core, takes)),
            ]
        text = "\n\n\n".join(
            [
                self._module_doc(fn, ps, signature) + "\n\nimport numpy as np",
                *helpers,
                *functions,
            ]
        )
        params = tuple(p.name for p in fn.params)
        if fn.cxx is not None:
            params = tuple(v if isinstance(v, str) else v.name for v in fn.cxx.signature)
        return GeneratedCode(
            backend=self.name,
            language="python",
            filename_suffix=".py",
            text=text.rstrip("\n") + "\n",
            entry=fn.name,
            params=params,
        )

    def _module_names(self) -> set[str]:
        return set(HELPER_NAMES)

    # ------------------------------------------------------------ array spellings of the glue
    # (used by :func:`cxx_adapter`)

    def _asarray_text(self, x: str, dtype: DType) -> str:
        """``x`` (array-like) as an array of the dtype a ``dtype`` parameter arrives in."""
        return f"np.asarray({x}, dtype=np.{self.param_repr(dtype)})"

    def _zeros_text(self, n: str, dtype: DType) -> str:
        """A zero array of ``n`` elements of ``dtype``'s stored type."""
        return f"np.zeros({n}, dtype=np.{STORED[dtype]})"

    def _reshape_text(self, x: str, shape: str) -> str:
        return f"{x}.reshape({shape})"

    def _real_param_text(self, x: str, dtype: DType) -> str:
        return f"np.{REPR[dtype]}({x})"

    def _array_doc(self, dtype: DType) -> str:
        """How the docstrings name an array of ``dtype``'s stored type."""
        return f"np.{STORED[dtype]} array"

    def _emit_output(
        self, fn: Function, o: Output, ctx: EmitContext, taken: set[str]
    ) -> tuple[list[str], str, str]:
        """Statements computing ``o``, the name holding its result, its docstring line."""
        comment = f"# {show_output(o)}"
        match o:
            case ArrayOutput(array, lo, hi, value, step):
                elem = param_dtype(fn, array)
                src = ctx.names[array]
                out = fresh_name(f"{array}_new", taken)
                copy = (
                    f"{src}.copy()"
                    if self.param_repr(elem) == STORED[elem]
                    else f"{src}.astype(np.{STORED[elem]})"
                )
                src_rep = ctx.rep(value) if ctx.narrow() else None
                if src_rep is not None and elem == DType.UINT8 and _int_to_uint8(value):
                    value = value.tensor  # the store wraps
                    src_rep = ctx.rep(value)
                if step is not None and rank(value) == 2:
                    # a block of rows stored `step` apart (0 <= cols <= step, a precondition
                    # the generated code checks): a write at an index array
                    v = store_value(self._render_output(value, ctx, taken, {}), value.dtype, elem, src_rep)
                    r = lambda u: bare(self.render(u, ctx))  # noqa: E731
                    at = f"{r(lo)} + np.arange({r(rows(value))})[:, None] * ({r(step)}) + np.arange({r(cols(value))})[None, :]"
                    doc = (
                        f"{array}: {STORED[elem]} array, a new copy of the input `{array}` with "
                        f"`{show_output(o).split(' = ')[0]}` replaced"
                    )
                    return [comment, f"{out} = {copy}", f"{out}[{at}] = {v}"], out, doc
                if step is not None:
                    # a strided output: NumPy's basic slicing with a step (step >= 1, a
                    # precondition the generated code checks)
                    v = store_value(self._render_output(value, ctx, taken, {}), value.dtype, elem, src_rep)
                    bounds = ":".join(bare(self.render(x, ctx)) for x in (lo, hi, step))
                    doc = (
                        f"{array}: {STORED[elem]} array, a new copy of the input `{array}` with "
                        f"`{array}[{show(lo)}:{show(hi)}:{show(step)}]` replaced"
                    )
                    return [comment, f"{out} = {copy}", f"{out}[{bounds}] = {v}"], out, doc
                bounds = f"{bare(self.render(lo, ctx))}:{bare(self.render(hi, ctx))}"
                views = block_views(value) if src_rep is not None else None
                bound = {w: fresh_name(f"_b{k}", taken) for k, w in enumerate(views or ())}
                v = store_value(self._render_output(value, ctx, taken, bound), value.dtype, elem, src_rep)
                doc = (
                    f"{array}: {STORED[elem]} array, a new copy of the input `{array}` with "
                    f"`{array}[{show(lo)}:{show(hi)}]` replaced"
                )
                fresh = isinstance(value, TensorTensor | TensorScalar | TensorMap | ReduceRows | Full | Iota)
                lo_s, hi_s = bounds.split(":", 1)  # (bounds hold no other ':')
                if views:
                    # elementwise: computed in blocks, from the same block of each view
                    texts = ", ".join(bare(self.render(w, ctx)) for w in views)
                    f = f"lambda {', '.join(bound.values())}: {bare(v)}"
                    call = (f"{ctx.use('_store_blocks')}({src}, {lo_s}, {hi_s}, {f}, ({texts},)"
                            f"{', fresh=True' if fresh else ''})")
                    return [comment, f"{out} = {call}"], out, doc
                if src_rep is not None:
                    call = f"{ctx.use('_store')}({src}, {lo_s}, {hi_s}, {v}{', fresh=True' if fresh else ''})"
                    return [comment, f"{out} = {call}"], out, doc
                return [comment, f"{out} = {copy}", f"{out}[{bounds}] = {v}"], out, doc
            case ScalarOutput(_, value):
                ret = fn.return_dtype
                assert ret is not None
                out = fresh_name("result", taken)
                v = return_value(self._render_output(value, ctx, taken), value.dtype, ret)
                kind = "float" if ret.is_float else "int"
                return (
                    [comment, f"{out} = {v}"],
                    out,
                    f"return value: Python {kind} (C {ret.c_name})",
                )
            case _:
                assert_never(o)

    def _module_doc(self, fn: Function, ps: ProgramSummary, signature: str) -> str:
        summary = "\n".join(f"    {show_output(o)}" for o in ps.outputs) or "    (no outputs)"
        lang = "Python" if fn.python is not None else "C" if fn.cxx is None else "C++"
        arith = (
            "- Python arithmetic: `/` is true division; `//` and `%` on ints are floor division\n"
            "  and modulo (`np.floor_divide`, `np.mod`). Python ints are unbounded: the int64 code\n"
            "  equals the Python function while every value fits in 64 bits. `/` of two ints is\n"
            "  their exact quotient rounded once. Exceptions are Python's: a list read beyond its\n"
            "  end raises IndexError, a zero divisor ZeroDivisionError, `math.sqrt` / `math.log`\n"
            "  outside their domain ValueError, `math.exp` above 709.78 OverflowError, before\n"
            "  anything is computed."
            if fn.python is not None
            else "- C arithmetic: integer `/` truncates toward zero and `%` has the sign of the dividend."
        )
        if uses_floats(fn):
            arith += "\n" + textwrap.fill(float_contract("NumPy"), 90, initial_indent="- ", subsequent_indent="  ")
        return f'''\
"""NumPy code for the {lang} function `{fn.name}`, generated by tenspiler from its verified
program summary (TensIR):

{summary}

Contract:
- `{signature}` takes the C parameters in the C order: a pointer parameter
  takes a 1-D array (any array-like), a scalar parameter a Python or NumPy number.
- It never modifies its inputs. It returns, for each output of the summary in order:
  for `return = v` the value as a Python int or float; for `x[lo:hi] = v` a new full-length
  copy of the input array `x` with `[lo:hi]` replaced by `v` (other elements keep their
  input values). One output is returned bare, several as a tuple, none as None.
  Outputs for local variables are not returned (the C caller cannot observe them).
- dtypes follow the C types: arrays arrive and are returned as int64 / uint8 / float32 /
  float64 for int / unsigned char / float / double elements; `float` is computed in float32,
  `double` in float64. Each integer operation is computed in the narrowest dtype that holds
  its operands and its result for every input (an interval analysis from `unsigned char`
  in [0, 255]; int64 when nothing narrower is proved), so no integer wraps; values stored
  into `unsigned char` wrap modulo 256 (C conversion).
{arith}
- Preconditions (those the proof assumes), checked first (ValueError naming the violated
  one): each loop runs a non-negative number of times, each take/tail/slice/matrix bound
  lies in [0, length] of its array, shapes agree. Integer divisors are assumed non-zero.
- Needs only NumPy. A parameter named like a Python keyword or one of this module's names
  gets a trailing underscore.
"""'''

def runner_guards(fn: Function, ps: ProgramSummary, names: Mapping[str, str], *,
                  c_entry: bool = False) -> tuple[list[str], list[str]]:
    """Python statements checking the proof's preconditions on the arguments of a runner of
    code that is not Python (``GeneratedCode.runner``; ``names``: parameter → Python name,
    arrays may be lists), as the NumPy backend's entry does (``ValueError``), and the
    module-level definitions of the helpers they call (``_c_idiv`` …: :func:`helper_texts`).

    ``c_entry``: the runner calls a C entry, which handles the trip counts and shapes itself
    (it runs the kernel's own loops outside them); only the array ranges are checked — the
    C caller's obligation, which a C pointer cannot check —, and only where the trip counts
    and shapes hold (elsewhere the loops read what the original reads)."""
    ctx = EmitContext(
        {p.name: f"np.asarray({names[p.name]})" if isinstance(p.type, PointerType) else names[p.name] for p in fn.params},
        {p.name: param_dtype(fn, p.name) for p in fn.params},
    )
    outputs = returned_outputs(ps)
    preconditions = proof_preconditions(fn, ps)
    if not c_entry:
        guards = NUMPY.guards(outputs, ctx, preconditions)
    else:
        guards = NUMPY.guards(outputs, ctx)
        if preconditions and guards:
            inside = " and ".join(f"({NUMPY.precondition_check(p, ctx)[0]})" for p in preconditions)
            guards = [f"if {inside}:\n" + indent("\n".join(guards))]
    return guards, helper_texts(ctx.helpers)


def cxx_adapter(
    fn: Function,
    ps: ProgramSummary,
    flat: str,
    names: Mapping[str, str],
    *,
    lib: PythonHostBackend | None = None,
    name: str | None = None,
    core: tuple[str, Sequence[str]] | None = None,
) -> str:
    """:func:`tenspiler.codegen.python_host.cxx_adapter` spelled in NumPy by default: the
    entry with the C++ / Python signature of ``fn`` calling the flat function ``flat`` (or
    its body ``core``)."""
    return host_cxx_adapter(fn, ps, flat, names, lib=lib or NUMPY, name=name, core=core)


NUMPY = NumpyBackend()
register_backend(NUMPY)

__all__ = [
    "BINOP_RULES",
    "HELPERS",
    "HELPER_DEPS",
    "HELPER_NAMES",
    "NUMPY",
    "REPR",
    "RULES",
    "STORED",
    "EmitContext",
    "NumpyBackend",
    "Rule",
    "convert",
    "cxx_adapter",
    "helper_texts",
    "return_value",
    "runner_guards",
    "store_value",
]
