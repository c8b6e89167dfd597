"""What the array-library backends (PyTorch, MLX, TensorFlow, JAX) share with NumPy.

An array backend is an :class:`ArrayBackend` — a dialect of
:class:`~tenspiler.codegen.python_host.PythonHostBackend`, which holds the glue every
Python-hosted backend shares (parameter renaming, the precondition guards, docstrings, the
C++/Python-signature adapter ``python_host.cxx_adapter``) — plus a :class:`Spelling` (:mod:`.spelling`): some twenty
snippet templates saying how the library writes an array conversion, a cast, a reduction, a
gather, an elementwise select, C's truncating integer division, a jit compiler … The rules of
:data:`ARRAY_RULES` (one per :func:`~tenspiler.codegen.op_key`, like NumPy's ``RULES``) build
each TensIR op's snippet from those templates; a backend overrides a single rule or
:meth:`ArrayBackend.math` where its library differs. A new backend is therefore one
``Spelling`` and a registration (``mlx_backend.py``).

**Kinds of values** in generated code (:meth:`ArrayBackend.kind`): integer scalars computed
only from integer parameters, literals and shapes are *static* Python ints (exact, usable as
slice bounds and as constants under a jit compiler: ``jax.jit`` gets them as static
arguments); every other scalar is a 0-d native array of its computation dtype (float
literals too: ``torch.tensor(0.5, dtype=torch.float32)``, so ``float`` arithmetic stays
float32); tensors are native arrays. dtypes as in NumPy: ``float`` in float32, ``double`` in
float64, each integer node in the narrowest of :attr:`ArrayBackend.int_dtypes` the range
analysis proves safe (:mod:`tenspiler.codegen.ranges`; ``unsigned char`` arrays arrive as
uint8, and a jit-compiled core converts them inside the compiled region).

**Partial lowering.** :meth:`ArrayBackend.lower` is the per-op interface: the snippet for one
node given its rendered operands, or ``None`` when the backend *declines* the node (its rule
returns ``None``, or it has no rule for the op). :meth:`ArrayBackend.render` then computes that
node in NumPy *host code*: its operands (computed by the backend) go to NumPy
(``_to_numpy``), NumPy's own rule for the node (``numpy_backend.RULES``, with NumPy's helpers
renamed ``_np_*``: the functions of :mod:`tenspiler.codegen.runtime.numpy_runtime`) computes it, and the result comes back as a native array (the backend's
``asarray``). The generated module's docstring lists the subterms computed on the host, and
its ``<name>_jit`` entry is then the eager one (host code cannot run inside a compiled
region). MLX declines ``exp`` of ``double`` (MLX computes it with float32 accuracy) and ``%``
of reals (it has no ``fmod``). :meth:`ArrayBackend.supports` is True only for terms the
backend lowers completely.

**Generated module** (per kernel): ``_<f>_core`` (the tensor computation only: no
conversions, no checks), ``_<f>_args`` (converts the arguments to native arrays of the
computation dtypes and raises ``ValueError`` when they violate a precondition of the proof),
the entry ``<f>`` (= core ∘ args) and ``<f>_jit`` (= compiled core ∘ args: the shape-dependent
guards stay outside the compiled region; the compiler is created on first use). For C++ /
Python kernels the flat functions are ``_<f>_flat`` / ``_<f>_flat_jit`` and ``<f>`` /
``<f>_jit`` take the real signature (``cxx_adapter`` with this backend's spellings).
"""

from __future__ import annotations

import math
import re
import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, assert_never

import numpy as np

from tenspiler.codegen import numpy_backend as nb
from tenspiler.codegen.base import (
    GeneratedCode,
    float_contract,
    missing_ops,
    no_rule_error,
    op_key,
    operands,
    output_term,
    returned_outputs,
)
from tenspiler.codegen.python_host import (
    REPR,
    STORED,
    EmitContext,
    PythonHostBackend,
    bare,
    cxx_adapter,
    exact_quotient_operands,
    fresh_name,
    indent,
    int_division_mode,
    min_max,
    param_dtype,
)
from tenspiler.codegen.ranges import is_static, needs_wrap, small_division
from tenspiler.codegen.spelling import HOST_PREFIX, Spelling, fill, helper_texts
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
    ReduceProd,
    ReduceRows,
    ReduceSum,
    ScalarApply,
    ScalarCast,
    ScalarOp,
    ScalarOutput,
    ScalarSelect,
    ScalarVar,
    Stack,
    Tail,
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
from tenspiler.ir.terms import rank as term_rank
from tenspiler.ir.terms import rows as term_rows
from tenspiler.loops.ir import DType, Function, ScalarType, uses_floats

__all__ = ["ARRAY_RULES", "ArrayBackend", "ArrayContext", "ArrayRule", "Spelling"]


#: Kinds of rendered values: a Python int, a 0-d native array, a native array.
STATIC, SCALAR, TENSOR = "static", "scalar", "tensor"

#: Builtins and names generated code uses besides the helpers.
BUILTINS = ("np", "int", "float", "abs", "max", "str", "isinstance", "ValueError", "_COMPILED")


@dataclass
class ArrayContext(EmitContext):
    """:class:`~tenspiler.codegen.python_host.EmitContext` plus the backend rendering and
    the subterms it left to NumPy host code (printed, for the docstring)."""

    backend: ArrayBackend | None = None
    host: list[str] = field(default_factory=list)

    @property
    def b(self) -> ArrayBackend:
        assert self.backend is not None
        return self.backend


class _HostContext(ArrayContext):
    """Context of a NumPy rule run as host code: NumPy's helpers get the ``_np`` prefix and
    a parameter read on the host is the NumPy view of its value (``_to_numpy``)."""

    def __init__(self, parent: ArrayContext) -> None:
        names = {k: f"_to_numpy({v})" for k, v in parent.names.items()}
        super().__init__(
            names, parent.param_dtypes, parent.helpers, plan=parent.plan, backend=parent.backend, host=parent.host,
            int_division=parent.int_division,
        )

    def use(self, helper: str) -> str:
        name = HOST_PREFIX + helper
        self.helpers.add(name)
        return name


#: A rule: the snippet of one node from its rendered operands, or None to decline it.
ArrayRule = Callable[[Term, Sequence[str], ArrayContext], "str | None"]


# ---------------------------------------------------------------- rules


def var_rule(t: Term, args: Sequence[str], ctx: ArrayContext) -> str:
    """A parameter: pointer → tensor, integer scalar → Python int, real scalar → 0-d array;
    converted when the term's dtype differs from the declared C type."""
    assert isinstance(t, ScalarVar | TensorVar)
    src = ctx.param_dtypes[t.name]
    kind = TENSOR if isinstance(t, TensorVar) else SCALAR if src.is_float else STATIC
    src_rep = ctx.plan.param_reps[t.name] if ctx.plan is not None else None
    return ctx.b.convert(ctx.names[t.name], src, kind, t.dtype, src_rep, ctx.rep(t))


def lit_rule(t: Term, args: Sequence[str], ctx: ArrayContext) -> str:
    """An integer literal is a Python int; a real one a typed 0-d array (``float`` stays
    float32: ``0.1f`` is the float32 nearest 0.1)."""
    assert isinstance(t, Lit)
    if not t.dtype.is_float:
        return str(int(t.value))
    f = float(t.value)
    text = repr(f) if math.isfinite(f) else f'float("{f}")'
    return ctx.b.const(text, t.dtype)


def cast_rule(t: Term, args: Sequence[str], ctx: ArrayContext) -> str:
    """C conversion: int → real exact, real → int truncates toward zero, → ``unsigned
    char`` wraps modulo 256 (``%`` floors in Python and every supported library)."""
    assert isinstance(t, ScalarCast | TensorCast)
    x = t.scalar if isinstance(t, ScalarCast) else t.tensor
    b, kind = ctx.b, ctx.b.kind(x, ctx)
    if kind != STATIC and ctx.rep(t) == "uint8" and x.dtype.is_float:
        # planned in uint8 (ArrayBackend.narrow_float_casts): the spelling's exact conversion
        assert b.sp.real_to_uint8 is not None
        return fill(b.sp.real_to_uint8, x=args[0])
    if kind != STATIC and ctx.rep(t) == "uint8" and x.dtype != DType.UINT8:
        # an integer narrowed to uint8: the library's integer conversion wraps modulo 256
        return args[0] if ctx.rep(x) == "uint8" else fill(b.sp.cast, x=args[0], dtype=b.dtype("uint8"))
    v = b.convert(args[0], x.dtype, kind, t.dtype, ctx.rep(x), ctx.rep(t))
    if t.dtype == DType.UINT8 and x.dtype != DType.UINT8:
        return f"(({v}) % 256)"
    if needs_wrap(t, ctx.plan) and (rng := t.dtype.int_range) is not None:
        # reduced into the type's range modulo 2^n (``%`` floors: exact on wrapped int64 values)
        lo, hi = rng
        return f"(({v}) % {hi + 1})" if lo == 0 else f"((({v}) + {-lo}) % {hi - lo + 1} - {-lo})"
    return v


def reduce_sum_rule(t: Term, args: Sequence[str], ctx: ArrayContext) -> str:
    """Sum in the node's dtype (the operand converted first: a ``double`` sum of ``float``
    products adds float32 products in float64, as C does); 0 for an empty tensor."""
    assert isinstance(t, ReduceSum)
    x = ctx.b.convert(args[0], t.tensor.dtype, TENSOR, t.dtype, ctx.rep(t.tensor), ctx.rep(t))
    return fill(ctx.b.sp.sum, x=x)


def reduce_prod_rule(t: Term, args: Sequence[str], ctx: ArrayContext) -> str:
    """Product in the node's dtype (the operand converted first); 1 for an empty tensor."""
    assert isinstance(t, ReduceProd)
    x = ctx.b.convert(args[0], t.tensor.dtype, TENSOR, t.dtype, ctx.rep(t.tensor), ctx.rep(t))
    return fill(ctx.b.sp.prod, x=x)


def reduce_max_rule(t: Term, args: Sequence[str], ctx: ArrayContext) -> str:
    assert isinstance(t, ReduceMax)
    return ctx.b.convert(fill(ctx.b.sp.max, x=args[0]), t.tensor.dtype, SCALAR, t.dtype, ctx.rep(t.tensor), ctx.rep(t))


def argmax_rule(t: Term, args: Sequence[str], ctx: ArrayContext) -> str | None:
    """``argmax(t)`` → the library's argmax where its documentation promises the first
    maximal index (C's ``>`` rule); declined (NumPy host code) where it does not, and for
    ``argmax_last``. Integer elements compared as reals are converted first."""
    assert isinstance(t, ArgMax)
    b = ctx.b
    if t.last or b.sp.argmax is None:
        return None
    x = args[0]
    if t.compare.is_float and not t.tensor.dtype.is_float:
        x = b.convert(x, t.tensor.dtype, TENSOR, t.compare, ctx.rep(t.tensor), REPR[t.compare])
    return b.convert(fill(b.sp.argmax, x=x), DType.INT, SCALAR, DType.INT, "int64", ctx.rep(t))


def reduce_rows_rule(t: Term, args: Sequence[str], ctx: ArrayContext) -> str:
    """Row sums (in the node's dtype) or row maxima (``_row_max``: no columns → empty)."""
    assert isinstance(t, ReduceRows)
    reps = ctx.rep(t.matrix), ctx.rep(t)
    if t.kind == "max":
        return ctx.b.convert(f"_row_max({bare(args[0])})", t.matrix.dtype, TENSOR, t.dtype, *reps)
    x = ctx.b.convert(args[0], t.matrix.dtype, TENSOR, t.dtype, *reps)
    return fill(ctx.b.sp.sum_rows, x=x)


def matmul_rule(t: Term, args: Sequence[str], ctx: ArrayContext) -> str | None:
    """``matmul(a, b)`` → the library's matrix product of the operands in the node's dtype,
    only for a non-empty product (as NumPy's :meth:`~tenspiler.codegen.numpy_backend.NumpyBackend._matmul`)."""
    assert isinstance(t, MatMul)
    if t.dtype.is_float and t.product != t.dtype:
        return None  # products in their own type (float data, double sum): NumPy host code
    b = ctx.b
    x, y = (b.convert(a, c.dtype, TENSOR, t.dtype, ctx.rep(c), ctx.rep(t))
            for a, c in zip(args, (t.left, t.right), strict=True))
    nr, nc = (bare(b.render(e, ctx)) for e in (term_rows(t), term_cols(t)))
    template = b.sp.matmul if t.dtype.is_float else b.sp.int_matmul
    shape = f"max({nr}, 0), max({nc}, 0)"
    zeros = fill(b.sp.reshape, x=fill(b.sp.zeros, n=f"max({nr}, 0) * max({nc}, 0)", dtype=b.dtype(ctx.rep(t))), shape=shape)
    return f"({fill(template, x=bare(x), y=bare(y))} if ({nr}) > 0 and ({nc}) > 0 else {zeros})"


def matrix_rule(t: Term, args: Sequence[str], ctx: ArrayContext) -> str:
    """``matrix(t, r, c)`` → the first ``r*c`` elements reshaped."""
    rows, cols = bare(args[1]), bare(args[2])
    return fill(ctx.b.sp.reshape, x=f"{args[0]}[:({args[1]}) * ({args[2]})]", shape=f"{rows}, {cols}")


def matrix_strided_rule(t: Term, args: Sequence[str], ctx: ArrayContext) -> str:
    """``matrix(t, r, c, s)`` → a gather at ``arange(r)[:, None] * s + arange(c)``."""
    sp = ctx.b.sp
    rows, cols, stride = (bare(a) for a in args[1:4])
    idx = f"{fill(sp.arange, n=rows)}[:, None] * ({stride}) + {fill(sp.arange, n=cols)}[None, :]"
    return fill(sp.gather, x=args[0], i=idx)


def stack_rule(t: Term, args: Sequence[str], ctx: ArrayContext) -> str:
    """``stack(r < n: body)`` is rendered by :meth:`ArrayBackend.stack` (its body is
    rendered with the row variable bound, so not from rendered operands)."""
    raise AssertionError(f"stack is rendered by ArrayBackend.stack, not as a rule ({show(t)})")


def flatten_rule(t: Term, args: Sequence[str], ctx: ArrayContext) -> str:
    """``flatten(m)`` (row-major) → the library's reshape to one axis."""
    return fill(ctx.b.sp.reshape, x=args[0], shape="-1")


def transpose_rule(t: Term, args: Sequence[str], ctx: ArrayContext) -> str:
    return fill(ctx.b.sp.transpose, x=args[0])


def strided_rule(t: Term, args: Sequence[str], ctx: ArrayContext) -> str:
    """``strided(t, a, n, s)`` → a gather at ``a + arange(n) * s``."""
    sp = ctx.b.sp
    count, step = bare(args[2]), bare(args[3])
    return fill(sp.gather, x=args[0], i=f"{args[1]} + {fill(sp.arange, n=count)} * ({step})")


def full_rule(t: Term, args: Sequence[str], ctx: ArrayContext) -> str | None:
    """``full(n, v)`` → the library's ``full`` in the node's dtype (``v`` converted to it: a
    static integer stays a Python int, which the range analysis proves fits); declined
    (NumPy host code) when ``n`` is not a static integer (a jit compiler needs the shape)."""
    assert isinstance(t, Full)
    b = ctx.b
    if b.kind(t.length, ctx) != STATIC:
        return None
    v = b.convert(args[1], t.value.dtype, b.kind(t.value, ctx), t.dtype, ctx.rep(t.value), ctx.rep(t))
    return fill(b.sp.full, n=args[0], x=v, dtype=b.dtype(ctx.rep(t)))


def iota_rule(t: Term, args: Sequence[str], ctx: ArrayContext) -> str | None:
    """``iota(start, stop)`` → the library's ``arange(start, stop)`` in the node's dtype;
    declined (NumPy host code) when a bound is not a static integer (a jit compiler needs
    the length as a constant)."""
    assert isinstance(t, Iota)
    b = ctx.b
    if b.kind(t.start, ctx) != STATIC or b.kind(t.stop, ctx) != STATIC:
        return None
    return fill(b.sp.iota, lo=args[0], hi=args[1], dtype=b.dtype(ctx.rep(t)))


def apply_rule(t: Term, args: Sequence[str], ctx: ArrayContext) -> str | None:
    """``exp``/``sqrt``/``log``/``tanh``/``fabs`` of a real (the backend may decline one:
    :meth:`ArrayBackend.math`)."""
    assert isinstance(t, ScalarApply | TensorMap)
    fn = ctx.b.math(t.func, t.dtype)
    return None if fn is None else f"{fn}({bare(args[0])})"


def select_rule(t: Term, args: Sequence[str], ctx: ArrayContext) -> str:
    """``select(c, a, b)``: Python's conditional when ``c`` is static and the node a scalar
    (only the chosen branch runs, like C's ``?:``), else the library's ``where`` (both
    branches run; discarded lanes cannot raise: divisions use ``_nz``)."""
    assert isinstance(t, ScalarSelect | TensorSelect)
    b = ctx.b
    it = iter(args)
    cond, static_cond = b.cond_text(t.cond, it, ctx)
    a, e = next(it), next(it)
    ka, ke = b.kind(t.then, ctx), b.kind(t.else_, ctx)
    d = ctx.rep(t)
    if isinstance(t, ScalarSelect) and static_cond:
        if b.kind(t, ctx) != STATIC:  # a static branch of a non-static select: make it typed
            a = b.const(a, d) if ka == STATIC else a
            e = b.const(e, d) if ke == STATIC else e
        return f"({a} if {bare(cond)} else {e})"
    if static_cond:
        cond = b.const(cond, None)
    extremum = min_max(t)
    if extremum is not None and ctx.narrow() and STATIC not in (ka, ke):
        return f"{b.sp.xp}.{extremum}({bare(a)}, {bare(e)})"
    both = ka == STATIC and ke == STATIC
    if ka == STATIC and (both or not b.sp.weak_scalars):
        a = b.const(a, d)
    if ke == STATIC and (both or not b.sp.weak_scalars):
        e = b.const(e, d)
    return f"{b.sp.where}({bare(cond)}, {bare(a)}, {bare(e)})"


#: Integer-division helpers of the non-static arithmetic, by operator.
_INT_HELPERS = {"/": "_c_div", "%": "_c_mod", "//": "_py_floordiv", "mod": "_py_mod"}


def arith_rule(t: Term, args: Sequence[str], ctx: ArrayContext) -> str | None:
    """Arithmetic (operands already converted to the node's dtype). Static nodes are Python
    int arithmetic (NumPy's scalar rules: ``_c_idiv``, ``_c_imod``, ``//``, ``%``); otherwise
    ``+ - *`` and real ``/`` are the operators, C's integer ``/`` and ``%`` are ``_c_div`` /
    ``_c_mod`` (truncating), Python's ``//`` and ``mod`` are ``_py_floordiv`` / ``_py_mod``
    (flooring), ``%`` of reals is the library's ``fmod`` and ``pow`` its ``pow`` (each declined
    when it has none)."""
    assert isinstance(t, ScalarOp | TensorTensor | TensorScalar)
    b = ctx.b
    if b.kind(t, ctx) == STATIC:  # NumPy's rule: Python ints (guarded in both-branch selects)
        return nb.BINOP_RULES[t.op](t, args, ctx)
    x, y = args
    if t.op in ("&", "|", "^"):
        return None  # declined: bitwise operators are computed by the NumPy host code
    if t.op in ("+", "-", "*") or (t.op == "/" and t.dtype.is_float):
        return f"({x} {t.op} {y})"
    if t.op == "%" and t.dtype.is_float:
        return None if b.sp.fmod is None else fill(b.sp.fmod, x=x, y=y)
    if t.op == "pow":  # (the integer pow(2, k) of a shift: declined, computed by the NumPy host code)
        return None if b.sp.pow is None or not t.dtype.is_float else fill(b.sp.pow, x=x, y=y)
    plan = ctx.plan
    constant = b.kind(operands(t)[1], ctx) == STATIC
    if plan is not None and t.op in ("/", "%") and small_division(t, plan) and (b.float_division or not constant):
        # C division by an array through float32 (exact: see numpy_backend._div24), and by a
        # constant too where the compiler vectorises float but not integer division
        # (ArrayBackend.float_division); 0 only in discarded lanes
        yz = f"_nz({bare(y)})" if plan.zero_divisor(t) else y
        f32 = b.dtype("float32")
        xs = b.const(x, "float32") if b.kind(operands(t)[0], ctx) == STATIC else fill(b.sp.cast, x=x, dtype=f32)
        ys = yz if constant else fill(b.sp.cast, x=yz, dtype=f32)
        q = fill(b.sp.cast, x=f"({xs} / {ys})", dtype=b.dtype(ctx.rep(t)))
        return q if t.op == "/" else f"({x} - {yz} * {q})"
    if plan is not None and plan.plain_division(t):
        # non-negative operands: truncation is the library's floor; 0 only in discarded lanes
        y = f"_nz({bare(y)})" if plan.zero_divisor(t) else y
        return f"({x} {'//' if t.op in ('/', '//') else '%'} {y})"
    return f"{_INT_HELPERS[t.op]}({bare(x)}, {bare(y)})"


#: The generic rule table of the array backends (keys as NumPy's ``RULES``).
ARRAY_RULES: dict[str, ArrayRule] = {
    "scalar_var": var_rule,
    "tensor_var": var_rule,
    "lit": lit_rule,
    "size": nb.size_rule,
    "take": nb.take_rule,
    "tail": nb.tail_rule,
    "slice": nb.slice_rule,
    "reduce_sum": reduce_sum_rule,
    "reduce_max": reduce_max_rule,
    "matrix": matrix_rule,
    "matrix_strided": matrix_strided_rule,
    "transpose": transpose_rule,
    "flatten": flatten_rule,
    "stack": stack_rule,
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
    "scalar_cast": cast_rule,
    "tensor_cast": cast_rule,
    **{
        f"{node}({op})": arith_rule
        for node in ("scalar_op", "tensor_tensor", "tensor_scalar", "scalar_tensor")
        for op in nb.BINOP_RULES
    },
}


@dataclass(frozen=True)
class _Batch:
    """The row variables of a nest of stacks computed at once (:meth:`ArrayBackend._batched`):
    their names (``bound``), outermost first (``order``), and their counts as rendered."""

    bound: set[str]
    order: list[str]
    counts: list[str]

    def axes(self, q: int, rank: int) -> str:
        """The shape an index array of row variable ``q`` is reshaped to: its batch axis,
        1 for the other batch axes and for ``rank`` trailing axes."""
        return ", ".join("-1" if a == q else "1" for a in range(len(self.order) + rank))


def rank_of(t: Term) -> int:
    """0 for a scalar, else the tensor's rank."""
    return term_rank(t) if is_tensor(t) else 0


def _ring(t: Term) -> bool:
    """Whether the integer term ``t`` is built by ``+ - *`` from variables and literals
    only (index arithmetic that Python operators compute on index arrays as on ints)."""
    match t:
        case ScalarVar() | Lit():
            return True
        case ScalarOp("+" | "-" | "*", a, b):
            return _ring(a) and _ring(b)
    return False


# ---------------------------------------------------------------- the backend


class ArrayBackend(PythonHostBackend):
    """A backend for an array library with NumPy-like semantics; see the module docstring.

    Subclasses set :attr:`name` and :attr:`sp`, and may override :attr:`rules` entries,
    :meth:`math`, :meth:`to_native` / :meth:`to_numpy` (used by ``--check``).
    """

    name = "array"
    sp: ClassVar[Spelling]
    rules: ClassVar[Mapping[str, ArrayRule]] = ARRAY_RULES
    #: signed types and uint8 only (unsigned 16/32-bit arithmetic is partial in some libraries)
    int_dtypes: ClassVar[tuple[str, ...]] = ("uint8", "int16", "int32", "int64")
    #: integer division by a constant through float32 too (exact for operands below 2**24):
    #: for compilers that vectorise float division but not integer division (inductor);
    #: XLA turns division by a constant into a multiply and shift, which is faster still
    float_division: ClassVar[bool] = False
    #: ``--check`` runs this backend's code in a fresh interpreter (``runner.FreshInterpreters``):
    #: the libraries start threads, and a process that loaded them must not fork afterwards
    check_in_fresh_interpreter: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # a tensor conversion of reals to `unsigned char` is computed in uint8 where the
        # library spells it exactly (Spelling.real_to_uint8), not through int64: x86 has no
        # vector float → int64 conversion before AVX-512 (PyTorch: 2.3 → 0.25 ms on 1920 x 1080)
        if "sp" in cls.__dict__:
            cls.narrow_float_casts = cls.sp.real_to_uint8 is not None

    # ------------------------------------------------------------ per-op interface

    def lower(self, t: Term, args: Sequence[str], ctx: ArrayContext) -> str | None:
        """The snippet computing the node ``t`` from its rendered operands ``args``, or
        ``None`` when this backend declines it (no rule, or the rule returns ``None``)."""
        rule = self.rules.get(op_key(t))
        return None if rule is None else rule(t, args, ctx)

    def supports(self, term: Term) -> bool:
        """True when the backend lowers every node of ``term`` itself (no host code)."""
        if missing_ops(term, self.rules):
            return False
        dtypes: dict[str, DType] = {}

        def collect(u: Term) -> None:
            if isinstance(u, ScalarVar | TensorVar):
                dtypes[u.name] = u.dtype
            for c in children(u):
                collect(c)

        collect(term)
        ctx = ArrayContext({k: k for k in dtypes}, dtypes, backend=self)
        self.render(term, ctx)
        return not ctx.host

    def math(self, func: str, dtype: DType) -> str | None:
        """The library function computing ``func`` (``exp``, ``sqrt``, ``log``, ``tanh``,
        ``fabs``) on ``dtype``, or ``None`` to leave it to NumPy host code (``round``: C's
        rounds half away from zero, the libraries' ``round`` half to even)."""
        if func == "round":
            return None
        return self.sp.math.format("abs" if func == "fabs" else func)

    # ------------------------------------------------------------ values

    def dtype(self, name: str | None) -> str:
        """The dtype expression of a NumPy dtype name (``None``: bool)."""
        if name is None:
            return self.sp.bool_dtype or self.sp.dtype.format("bool")
        return self.sp.dtype.format(name)

    def const(self, expr: str, dtype: DType | str | None) -> str:
        """A Python number (or bool, ``dtype=None``) as a typed 0-d native array of the
        computation type of ``dtype`` (or of the NumPy dtype name ``dtype``)."""
        name = None if dtype is None else dtype if isinstance(dtype, str) else REPR[dtype]
        return fill(self.sp.const, x=expr, dtype=self.dtype(name))

    def asarray(self, expr: str, dtype_name: str) -> str:
        return fill(self.sp.asarray, x=expr, dtype=self.dtype(dtype_name))

    def kind(self, t: Term, ctx: EmitContext) -> str:
        """``"static"`` (a Python int), ``"scalar"`` (a 0-d array) or ``"tensor"``."""
        if is_tensor(t):
            return TENSOR
        return STATIC if is_static(t, ctx.param_dtypes) else SCALAR

    def convert(
        self, expr: str, src: DType, kind: str, dst: DType, src_rep: str | None = None, dst_rep: str | None = None
    ) -> str:
        """A value of C type ``src`` computed in ``src_rep`` (default ``REPR[src]``) and of
        kind ``kind``, converted to ``dst`` computed in ``dst_rep`` (default ``REPR[dst]``):
        C conversions (reals to integers truncate); between integer dtypes the value fits
        (:mod:`tenspiler.codegen.ranges`); ``unsigned char`` wraps in casts and stores."""
        s, d = src_rep or REPR[src], dst_rep or REPR[dst]
        if kind == STATIC:
            if dst.is_float and not src.is_float and d == "float32":
                # a Python int made a float32 array directly is rounded twice (through
                # float64: torch.tensor(2**53 + 2**29 + 1, dtype=torch.float32) is 2**53); an
                # int64 array cast to float32 is rounded once, as C converts (C11 §6.3.1.4p2)
                return fill(self.sp.cast, x=self.const(expr, "int64"), dtype=self.dtype(d))
            return self.const(expr, d) if dst.is_float else expr
        if s == d:
            return expr
        return fill(self.sp.cast, x=expr, dtype=self.dtype(d))

    def _converted(
        self, expr: str, u: Term, dst: DType, ctx: ArrayContext, dst_rep: str | None = None
    ) -> tuple[str, str]:
        kind = self.kind(u, ctx)
        out_kind = SCALAR if kind == STATIC and dst.is_float else kind
        return self.convert(expr, u.dtype, kind, dst, ctx.rep(u), dst_rep), out_kind

    def cond_text(self, c: Cond, args: Iterator[str], ctx: ArrayContext) -> tuple[str, bool]:
        """A condition's text and whether it is a Python bool (all its operands static);
        ``args`` yields the rendered comparison operands in traversal order."""
        match c:
            case Cmp(op, left, right):
                x, y = next(args), next(args)
                static = self.kind(left, ctx) == STATIC and self.kind(right, ctx) == STATIC
                return f"({x} {op} {y})", static
            case BoolOp(op, left, right):
                (a, sa), (b, sb) = self.cond_text(left, args, ctx), self.cond_text(right, args, ctx)
                if sa and sb:
                    return f"({a} {op} {b})", True
                a, b = (self.const(a, None) if sa else a), (self.const(b, None) if sb else b)
                return f"{self.sp.logical}{op}({bare(a)}, {bare(b)})", False
            case NotCond(x):
                a, s = self.cond_text(x, args, ctx)
                return (f"(not {a})", True) if s else (f"{self.sp.logical}not({bare(a)})", False)
        raise TypeError(f"not a TensIR condition: {c!r}")

    # ------------------------------------------------------------ rendering

    def render(self, t: Term, ctx: EmitContext) -> str:
        """Expression for ``t``: :meth:`lower` of each node, or NumPy host code for a node
        the backend declines.

        Raises:
            CodegenError: neither this backend nor NumPy has a rule for an op of ``t``.
        """
        assert isinstance(ctx, ArrayContext)
        if isinstance(t, Stack):  # its body has a bound variable: not rendered from operands
            return self.stack(t, ctx)
        terms: list[Term]
        if (quotient := exact_quotient_operands(t, ctx)) is not None:
            # Python's int / int: NumPy host code (no library spells the exact quotient)
            a, b = (self.render(u, ctx) for u in quotient)
            host = [x if self.kind(u, ctx) == STATIC else f"_to_numpy({bare(x)})" for x, u in zip((a, b), quotient, strict=True)]
            ctx.host.append(show(t))
            quotient_text = f"{_HostContext(ctx).use('_int_true_divide')}({bare(host[0])}, {bare(host[1])})"
            return quotient_text if self.kind(t, ctx) == STATIC else self.asarray(quotient_text, ctx.rep(t))
        if isinstance(t, ScalarOp | TensorTensor | TensorScalar):
            terms = list(operands(t))
            pairs = [self._converted(self.render(c, ctx), c, t.dtype, ctx, ctx.rep(t)) for c in terms]
        elif isinstance(t, ScalarApply | TensorMap):  # C: exp(float) computes in double
            terms = children(t)
            pairs = [self._converted(self.render(terms[0], ctx), terms[0], t.dtype, ctx, ctx.rep(t))]
        elif isinstance(t, ScalarSelect | TensorSelect):
            pairs = []
            terms = []
            for left, right in cmp_pairs(t.cond):
                d = promote(left.dtype, right.dtype)
                common = None
                if ctx.plan is not None and not d.is_float:  # both sides in one integer dtype
                    plan = ctx.plan
                    common = plan.choose([plan.range(left), plan.range(right)], plan.operand_reps([left, right]))
                pairs += [self._converted(self.render(u, ctx), u, d, ctx, common) for u in (left, right)]
                terms += [left, right]
            where = isinstance(t, TensorSelect) or any(self.kind(u, ctx) != STATIC for u in terms)
            ctx.both_branches += where
            for u in (t.then, t.else_):
                pairs.append(self._converted(self.render(u, ctx), u, t.dtype, ctx, ctx.rep(t)))
                terms.append(u)
            ctx.both_branches -= where
        else:
            terms = children(t)
            pairs = [(self.render(c, ctx), self.kind(c, ctx)) for c in terms]
        args = [text for text, _ in pairs]
        text = self.lower(t, args, ctx)
        if text is not None:
            return text
        return self._host(t, args, [k for _, k in pairs], ctx)

    def stack(self, t: Stack, ctx: ArrayContext) -> str:
        """``stack(r < n: body)`` as NumPy's :meth:`~tenspiler.codegen.numpy_backend.NumpyBackend._stack`
        computes it: a list comprehension over the rows with ``r`` an exact Python int (a
        static value: slice bounds and gathers of the body use it as such), the rows stacked
        by the library (:attr:`Spelling.stack`), in the node's dtype; no rows give an empty
        array, rows of no element an ``n x 0`` one (the source then reads none of the row's
        views, nor does this code). Stacks whose body :meth:`_batched` batches (2-D
        convolutions, window sums, sums along an axis of a 3-D array) are computed at once
        instead (:meth:`_batched_stack`)."""
        batched = self._batched_stack(t, ctx)
        if batched is not None:
            return batched
        sp = self.sp
        py = ctx.stack_index_name(t.var, {*ctx.names.values(), *ctx.taken, *BUILTINS, *sp.names, *helper_texts(sp)})
        count = bare(self.render(t.count, ctx))
        plan = ctx.plan
        with ctx.stack_index(t.var, py):
            body = self.convert(self.render(t.body, ctx), t.body.dtype, self.kind(t.body, ctx), t.dtype,
                                ctx.rep(t.body), plan.rep(t) if plan is not None else None)
            if self.kind(t.body, ctx) == STATIC:
                body = self.const(body, REPR[t.dtype] if plan is None else plan.rep(t))
        rep = self.dtype(ctx.rep(t))
        rows = fill(sp.stack, x=f"[{bare(body)} for {py} in range({count})]")
        if not is_tensor(t.body):
            return f"({rows} if ({count}) > 0 else {fill(sp.zeros, n='0', dtype=rep)})"
        width = term_cols(t)
        if t.var in free_vars(width):
            raise CodegenError(f"the rows of {show(t)} have a length that depends on the row")
        w = bare(self.render(width, ctx))
        empty = fill(sp.reshape, x=fill(sp.zeros, n=f"max({count}, 0) * max({w}, 0)", dtype=rep),
                     shape=f"max({count}, 0), max({w}, 0)")
        return f"({rows} if ({count}) > 0 and ({w}) > 0 else {empty})"

    def _batched_stack(self, t: Stack, ctx: ArrayContext) -> str | None:
        """Stacks (one or more, nested) computed at once, the rows along leading *batch*
        axes (what ``vmap`` does), when the body is built from the ops :meth:`_batched`
        batches: views of a parameter at offsets ``+ - *`` of the row variables (gathers at
        index arrays), row and full sums, transposes, ``+ - *`` and real ``/``, casts and
        math functions; subterms free of the row variables are computed once, as usual.
        The same values as the comprehension (each row is the body at its row number), in
        the same dtypes; sums may add in another order (reals: within the float
        tolerance, as NumPy's ``np.sum``). ``None`` for any other stack."""
        from dataclasses import replace as dc_replace

        stacks: list[Stack] = []
        u: Term = t
        while isinstance(u, Stack):
            stacks.append(u)
            u = u.body
        bound = {s.var for s in stacks}
        if any(free_vars(s.count) & bound for s in stacks) or not free_vars(u) & bound:
            return None
        counts = [bare(self.render(s.count, ctx)) for s in stacks]
        saved = ctx.names, ctx.param_dtypes, ctx.plan
        ctx.param_dtypes = {**ctx.param_dtypes, **{v: DType.INT for v in bound}}
        if ctx.plan is not None:  # as in the comprehension: the row numbers are int64
            ctx.plan = dc_replace(ctx.plan, param_dtypes={**ctx.plan.param_dtypes, **{v: DType.INT for v in bound}},
                                  param_reps={**ctx.plan.param_reps, **{v: "int64" for v in bound}}, _ranges={},
                                  _reps={}, _c_ranges={})
        try:
            found = self._batched(u, _Batch(bound, [s.var for s in stacks], counts), ctx)
            if found is None:
                return None
            body, r = found
            rep = saved[2].rep(t) if saved[2] is not None else REPR[t.dtype]
            body = self.convert(body, u.dtype, TENSOR, t.dtype, ctx.rep(u), rep)
        finally:
            ctx.names, ctx.param_dtypes, ctx.plan = saved
        sizes = [f"max({c}, 0)" for c in counts]
        nonempty = [f"({c}) > 0" for c in counts]
        if r == 1:
            w = bare(self.render(term_cols(t), ctx))
            sizes.append(f"max({w}, 0)")
            nonempty.append(f"({w}) > 0")
        shape = ", ".join(sizes)
        zeros = fill(self.sp.reshape, x=fill(self.sp.zeros, n=" * ".join(sizes), dtype=self.dtype(rep)), shape=shape)
        value = fill(self.sp.broadcast, x=body, shape=shape)
        # computed only when there is an element: with no rows the source reads no view
        return f"({value} if {' and '.join(nonempty)} else {zeros})"

    def _batched(self, t: Term, bt: _Batch, ctx: ArrayContext) -> tuple[str, int] | None:
        """``t`` computed for every row at once, with its rank (0 for a scalar): an array
        of shape (batch axes, the rank's axes), a batch axis of length 1 where ``t`` does
        not depend on that row variable; ``None`` when an op on the way is not batched.
        A subterm free of the row variables is rendered as usual (broadcast from the
        right)."""
        sp = self.sp
        if not free_vars(t) & bt.bound:
            return None  # callers render it unbatched
        match t:
            case ScalarVar(name) if name in bt.bound:
                q = bt.order.index(name)
                return fill(sp.reshape, x=fill(sp.arange, n=bt.counts[q]), shape=bt.axes(q, 0)), 0
            case Matrix(base, nr, nc, stride) if not (free_vars(nr) | free_vars(nc) | free_vars(stride or nr)) & bt.bound:
                idx = self._batched_index(base, bt, 2, ctx)
                if idx is None:
                    return None
                gather, off = idx
                n_r, n_c, st = (bare(self.render(e, ctx)) for e in (nr, nc, nc if stride is None else stride))
                rows_idx = fill(sp.reshape, x=fill(sp.arange, n=n_r), shape=f"{n_r}, 1")
                cols_idx = fill(sp.reshape, x=fill(sp.arange, n=n_c), shape=f"1, {n_c}")
                return fill(sp.gather, x=gather, i=f"{off} + {rows_idx} * ({st}) + {cols_idx}"), 2
            case Transpose(m):
                inner = self._batched(m, bt, ctx)
                return None if inner is None else (fill(sp.swap_last, x=inner[0]), 2)
            case ReduceRows(m, dtype, "sum"):
                inner = self._batched(m, bt, ctx)
                if inner is None:
                    return None
                x = self.convert(inner[0], m.dtype, TENSOR, dtype, ctx.rep(m), ctx.rep(t))
                return fill(sp.sum_axis, x=x, axis=str(len(bt.order) + 1)), 1
            case ReduceSum(x, dtype):
                inner = self._batched(x, bt, ctx)
                if inner is None:
                    return None
                v, r = inner
                v = self.convert(v, x.dtype, TENSOR, dtype, ctx.rep(x), ctx.rep(t))
                for axis in range(len(bt.order) + r - 1, len(bt.order) - 1, -1):
                    v = fill(sp.sum_axis, x=v, axis=str(axis))
                return v, 0
            case ScalarCast(x, dtype) | TensorCast(x, dtype) if (dtype != DType.UINT8 and ctx.rep(t) != "uint8"
                                                                 and not needs_wrap(t, ctx.plan)):
                inner = self._batched(x, bt, ctx)
                if inner is None:
                    return None
                return self.convert(inner[0], x.dtype, TENSOR, dtype, ctx.rep(x), ctx.rep(t)), inner[1]
            case ScalarApply(func, x, dtype) | TensorMap(func, x, dtype):
                inner, fn = self._batched(x, bt, ctx), self.math(func, dtype)
                if inner is None or fn is None:
                    return None
                return f"{fn}({bare(self.convert(inner[0], x.dtype, TENSOR, dtype, ctx.rep(x), ctx.rep(t)))})", inner[1]
            case ScalarOp(op, _, _, dtype) | TensorTensor(op, _, _, dtype) | TensorScalar(op, _, _, _, dtype) if (
                op in ("+", "-", "*") or (op == "/" and dtype.is_float)
            ):
                parts: list[tuple[str, int, bool]] = []
                for c in operands(t):
                    if free_vars(c) & bt.bound:
                        inner = self._batched(c, bt, ctx)
                        if inner is None:
                            return None
                        parts.append((self.convert(inner[0], c.dtype, TENSOR, dtype, ctx.rep(c), ctx.rep(t)), inner[1], True))
                    else:
                        text, _ = self._converted(self.render(c, ctx), c, dtype, ctx, ctx.rep(t))
                        parts.append((text, rank_of(c), False))
                r = max(p[1] for p in parts)
                # a batched operand of lower rank gets trailing axes (it broadcasts from the right)
                x, y = (f"{v}[{', '.join(['...'] + ['None'] * (r - pr))}]" if batched and pr < r else v
                        for v, pr, batched in parts)
                return f"({x} {op} {y})", r
        return None

    def _batched_index(self, view: Term, bt: _Batch, rank: int, ctx: ArrayContext) -> tuple[str, str] | None:
        """The array a view ``tail(… tail(X, a) …, b)`` of a parameter reads and its offset
        ``a + b`` with the row variables as index arrays shaped for ``rank`` trailing axes;
        ``None`` unless the offsets are ``+ - *`` of variables and literals."""
        offset: list[Term] = []
        while isinstance(view, Tail):
            offset.append(view.n)
            view = view.tensor
        if not isinstance(view, TensorVar) or free_vars(view) & bt.bound or not all(_ring(o) for o in offset):
            return None
        saved = ctx.names, ctx.plan
        ctx.names = {**ctx.names, **{v: fill(self.sp.reshape, x=fill(self.sp.arange, n=bt.counts[q]), shape=bt.axes(q, rank))
                                     for q, v in enumerate(bt.order)}}
        ctx.plan = None  # index arithmetic: + - * of index arrays and Python ints
        try:
            off = " + ".join(f"({bare(self.render(o, ctx))})" for o in offset) or "0"
        finally:
            ctx.names, ctx.plan = saved
        return self.render(view, ctx), off

    def _host(self, t: Term, args: Sequence[str], kinds: Sequence[str], ctx: ArrayContext) -> str:
        """NumPy host code for the node ``t`` (see the module docstring)."""
        rule = nb.RULES.get(op_key(t))
        if rule is None:
            raise no_rule_error(self.name, t, self.rules)
        ctx.host.append(show(t))
        host_args = [a if k == STATIC else f"_to_numpy({bare(a)})" for a, k in zip(args, kinds, strict=True)]
        text = rule(t, host_args, _HostContext(ctx))
        return text if self.kind(t, ctx) == STATIC else self.asarray(text, ctx.rep(t))

    def _check_rules(self, t: Term) -> None:
        # an op NumPy host code computes is not missing
        missing = missing_ops(t, {*self.rules, *nb.RULES})
        if missing:
            raise no_rule_error(self.name, t, self.rules)

    # ------------------------------------------------------------ glue spellings

    def _asarray_text(self, x: str, dtype: DType) -> str:
        return self.asarray(x, self.param_repr(dtype))

    def _real_param_text(self, x: str, dtype: DType) -> str:
        return self.asarray(x, REPR[dtype])

    def _zeros_text(self, n: str, dtype: DType) -> str:
        return fill(self.sp.zeros, n=n, dtype=self.dtype(STORED[dtype]))

    def _reshape_text(self, x: str, shape: str) -> str:
        return fill(self.sp.reshape, x=x, shape=shape)

    def _array_doc(self, dtype: DType) -> str:
        return f"{self.sp.array_type} of {self.dtype(STORED[dtype])}"

    def _emit_output(
        self, fn: Function, o: Output, ctx: EmitContext, taken: set[str]
    ) -> tuple[list[str], str, str]:
        comment = f"# {show_output(o)}"
        sp = self.sp
        match o:
            case ArrayOutput(array, lo, hi, value, step):
                block = step is not None and rank(value) == 2  # rows stored `step` apart
                if step is not None and (sp.scatter if block else sp.strided_update) is None:
                    raise CodegenError(f"{sp.label} has no rule for the strided output {show_output(o)}")
                elem = param_dtype(fn, array)
                out = fresh_name(f"{array}_new", taken)
                r = ctx.rep(value)
                v = self.render(value, ctx)
                if elem == DType.UINT8 and not value.dtype.is_float:
                    # an integer: the library's conversion to uint8 wraps modulo 256
                    v = v if r == "uint8" else fill(sp.cast, x=v, dtype=self.dtype("uint8"))
                elif elem == DType.UINT8:
                    v = self.convert(v, value.dtype, TENSOR, elem, r, "int64")
                    v = fill(sp.cast, x=f"(({v}) % 256)", dtype=self.dtype(STORED[elem]))
                else:
                    v = self.convert(v, value.dtype, TENSOR, elem, r, STORED[elem])
                copy = fill(sp.copy, x=ctx.names[array], dtype=self.dtype(STORED[elem]))
                bounds = {"lo": bare(self.render(lo, ctx)), "hi": bare(self.render(hi, ctx))}
                where = f"{show(lo)}:{show(hi)}" + ("" if step is None else f":{show(step)}")
                doc = (
                    f"{array}: a new {self._array_doc(elem)}, a copy of the input `{array}` with "
                    f"`{array}[{where}]` replaced"
                )
                if block:
                    assert sp.scatter is not None and step is not None
                    rs = lambda u: bare(self.render(u, ctx))  # noqa: E731
                    at = (f"{rs(lo)} + {fill(sp.arange, n=rs(rows(value)))}[:, None] * ({rs(step)}) + "
                          f"{fill(sp.arange, n=rs(cols(value)))}[None, :]")
                    update = fill(sp.scatter, out=out, i=at, v=v)
                elif step is not None:
                    assert sp.strided_update is not None
                    update = fill(sp.strided_update, out=out, v=v, step=bare(self.render(step, ctx)), **bounds)
                else:
                    update = fill(sp.update, out=out, v=v, **bounds)
                stmts = [comment, f"{out} = {copy}", update]
                return stmts, out, doc
            case ScalarOutput(_, value):
                ret = fn.return_dtype
                assert ret is not None
                out = fresh_name("result", taken)
                v = self.convert(self.render(value, ctx), value.dtype, self.kind(value, ctx), ret, ctx.rep(value))
                if (rng := ret.int_range) is not None:
                    rlo, rhi = rng
                    v = f"(({v}) % {rhi + 1})" if rlo == 0 else f"((({v}) + {-rlo}) % {rhi - rlo + 1} - {-rlo})"
                doc = f"return value: a 0-d {self._array_doc(ret)} (C {ret.c_name})"
                return [comment, f"{out} = {self.asarray(v, STORED[ret])}"], out, doc
            case _:
                assert_never(o)

    # ------------------------------------------------------------ the module

    def _reserved(self, fn: Function) -> set[str]:
        f = fn.name
        generated = {
            f, f"{f}_jit", f"_{f}_core", f"_{f}_args", f"_{f}_flat", f"_{f}_flat_jit", f"_{f}_vectors", f"_{f}_traced", "_flat"
        }
        return {*BUILTINS, *self.sp.names, *helper_texts(self.sp), *generated}

    def _module_names(self) -> set[str]:
        # and NumPy's, refused since the array backends were a subclass of NumPy's
        return {*BUILTINS, *self.sp.names, *helper_texts(self.sp), *nb.HELPER_NAMES}

    def generate(self, fn: Function, ps: ProgramSummary) -> GeneratedCode:
        sp = self.sp
        outputs = returned_outputs(ps)
        stack: list[Term] = [output_term(o) for o in outputs]
        while stack:
            t = stack.pop()
            stack.extend(children(t))
            if isinstance(t, ScalarOp | TensorScalar | TensorTensor) and t.op == "pow" and not t.dtype.is_float:
                    raise CodegenError(f"{self.name}: a shift by a run-time count (pow(2, k), up to 2^31) is not "
                                       "emitted for the array libraries (their default integers may be 32-bit): "
                                       "use the numpy backend")
        self._validate(fn, ps, outputs)
        taken = self._reserved(fn)
        names = {p.name: fresh_name(p.name, taken) for p in fn.params}
        ctx = ArrayContext(names, {p.name: param_dtype(fn, p.name) for p in fn.params}, plan=self.plan(fn), backend=self,
                           int_division=int_division_mode(fn))
        code = self._outputs(fn, ps, outputs, ctx, taken)
        statements, results, returns_doc = code.statements, code.results, code.returns_doc
        params = [p for p in fn.params if p.name in code.used]
        checks = [self._convert_param(fn, p.name, names[p.name]) for p in params]
        checks += self.guards(outputs, ctx, code.preconditions, fn=fn)

        f = fn.name
        core, args_fn = f"_{f}_core", f"_{f}_args"
        flat = f if fn.cxx is None else f"_{f}_flat"
        all_params = ", ".join(names[p.name] for p in fn.params)
        core_params = ", ".join(names[p.name] for p in params)
        packed = f"({core_params},)" if len(params) == 1 else f"({core_params})"
        ret = "return None" if not results else f"return {', '.join(results)}"
        core_doc = f'"""The {sp.label} computation of `{f}` on the values `{args_fn}` returns."""'
        core_text = f"def {core}({core_params}):\n" + "\n\n".join(
            indent(b) for b in [f"{core_doc}\n{statements[0]}" if statements else core_doc, *statements[1:], ret]
        )
        args_doc = "\n".join([
            f'"""The arguments of `{f}` its computation `{core}` takes, as {sp.label} values of the',
            "computation dtypes, after checking the preconditions of the proof.",
            "",
            "Raises:",
            "    ValueError: an input violates a precondition (shapes, ranges).",
            '"""',
        ])
        args_text = f"def {args_fn}({all_params}):\n" + indent("\n".join([args_doc, *checks, f"return {packed}"]))
        deco = f"{sp.decorator}\n" if sp.decorator else ""
        entry = f"{deco}def {flat}({all_params}):\n" + indent(
            self._function_doc(fn, names, returns_doc) + f"\nreturn {core}(*{args_fn}({all_params}))"
        )
        jittable = bool(results) and not ctx.host
        static = [names[p.name] for p in params if isinstance(p.type, ScalarType) and not p.type.dtype.is_float]
        static_arg = f", {tuple(static)!r}" if "static" in sp.jit else ""
        if jittable:
            jit_doc = f'"""`{flat}` with `{core}` compiled by {sp.jit.split("(")[0]} (see the module docstring)."""'
            jit_entry = f"{deco}def {flat}_jit({all_params}):\n" + indent(
                f"{jit_doc}\nreturn _jit({core}{static_arg})(*{args_fn}({all_params}))"
            )
        else:
            why = "the computation calls NumPy host code" if ctx.host else "no outputs"
            jit_entry = f"# not compiled ({why}): the same function\n{flat}_jit = {flat}"
        parts = [core_text, args_text, entry, jit_entry]
        if fn.cxx is not None:
            parts += self._vector_entries(fn, ps, names, flat, deco, jittable)
        body = "\n\n\n".join(parts)
        helpers = self._used_helpers(body)
        signature = f"{flat}({all_params})"
        stdlib = [i for i in sp.imports if i.split()[1] in sys.stdlib_module_names]
        imports = "\n".join([*stdlib, "import numpy as np", *(i for i in sp.imports if i not in stdlib)])
        text = "\n\n\n".join([self._module_doc(fn, ps, signature, ctx) + "\n\n" + imports, *helpers, body])
        call_params = tuple(p.name for p in fn.params)
        if fn.cxx is not None:
            call_params = tuple(v if isinstance(v, str) else v.name for v in fn.cxx.signature)
        return GeneratedCode(
            backend=self.name,
            language="python",
            filename_suffix=f"_{self.name}.py",
            text=text.rstrip("\n") + "\n",
            entry=fn.name,
            params=call_params,
        )

    def _vector_entries(
        self, fn: Function, ps: ProgramSummary, names: Mapping[str, str], flat: str, deco: str, jittable: bool = True
    ) -> list[str]:
        """``<f>`` and ``<f>_jit`` with the C++ / Python signature: both call
        ``_<f>_vectors`` (``cxx_adapter`` with this backend's spellings and the flat function
        as its first argument) with ``_<f>_flat`` or ``_<f>_flat_jit``. With
        :attr:`Spelling.jit_vectors`, ``<f>_jit`` instead compiles all of ``_<f>_vectors``
        with ``_<f>_flat`` (the shape glue too: JAX copies an array it reshapes eagerly)."""
        assert fn.cxx is not None
        f = fn.name
        vectors = f"_{f}_vectors"
        text = cxx_adapter(fn, ps, "_flat", names, lib=self, name=vectors)
        head, rest = text.split("\n", 1)
        end = rest.index('\n    """\n') + len('\n    """')
        doc, body = rest[:end], rest[end + 1 :]
        params = head[len(f"def {vectors}(") : -len("):")]
        head = f"def {vectors}(_flat{', ' if params else ''}{params}):"
        inner = f'    """The work of `{f}` / `{f}_jit`, calling the flat function `_flat`."""'
        calls = f"{', ' if params else ''}{params}"
        doc = doc.replace("the function above is its flat C-style form", f"its flat C-style form is `{flat}`")
        jit_doc = f'    """Compiled variant of `{f}`: same arguments, results and checks (module docstring)."""'
        jit_call = f"{vectors}({flat}_jit{calls})"
        extra = []
        if self.sp.jit_vectors and jittable:
            static = tuple(
                names[v] for v in fn.cxx.signature
                if isinstance(v, str) and not param_dtype(fn, v).is_float
            )
            traced = f"_{f}_traced"
            extra.append(
                f"def {traced}({params}):\n"
                f'    """`{f}` with the flat `{flat}`: traced and compiled whole by `{f}_jit`."""\n'
                f"    return {vectors}({flat}{calls})"
            )
            static_arg = f", {static!r}" if "static" in self.sp.jit else ""
            jit_call = f"_jit({traced}{static_arg})({params})"
        return [
            f"{head}\n{inner}\n{body}",
            *extra,
            f"{deco}def {f}({params}):\n{doc}\n    return {vectors}({flat}{calls})",
            f"{deco}def {f}_jit({params}):\n{jit_doc}\n    return {jit_call}",
        ]

    def _used_helpers(self, code: str) -> list[str]:
        """Texts of the helpers ``code`` calls, and of those they call, in a fixed order."""
        texts = helper_texts(self.sp)
        pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in texts) + r")\b")
        used: set[str] = set()
        todo = [code]
        while todo:
            for name in pattern.findall(todo.pop()):
                if name not in used:
                    used.add(name)
                    todo.append(texts[name].split("\n", 1)[1] if name in texts else "")
        return [texts[n] for n in texts if n in used]

    def _module_doc(
        self, fn: Function, ps: ProgramSummary, signature: str, ctx: ArrayContext | None = None
    ) -> str:
        sp = self.sp
        summary = "\n".join(f"    {show_output(o)}" for o in ps.outputs) or "    (no outputs)"
        lang = "Python" if fn.python is not None else "C" if fn.cxx is None else "C++"
        dts = " / ".join(self.dtype(STORED[d]) for d in (DType.INT, DType.UINT8, DType.FLOAT, DType.DOUBLE))
        flat = fn.name if fn.cxx is None else f"_{fn.name}_flat"
        native = sp.array_type
        items = [
            f"`{signature}` takes the C parameters in the C order: a pointer parameter takes a 1-D "
            f"{native} (or a NumPy array, or a list), a scalar parameter a Python number (or a 0-d array).",
        ]
        if fn.cxx is not None:
            items.append(
                f"`{fn.name}` / `{fn.name}_jit` take the {lang} signature (see their docstrings) and call "
                f"the flat, C-style `{flat}` / `{flat}_jit` described here."
            )
        items += [
            f"It never modifies its inputs. It returns, for each output of the summary in order: for "
            f"`return = v` a 0-d {native} of the C return type; for `x[lo:hi] = v` a new full-length "
            f"{native}: the input `x` with `[lo:hi]` replaced by `v` (other elements keep their input "
            "values). One output is returned bare, several as a tuple, none as None. Outputs for local "
            "variables are not returned (the C caller cannot observe them).",
            f"dtypes follow the C types: arrays arrive and are returned as {dts} for int / unsigned "
            "char / float / double; `float` is computed in float32, `double` in float64. Each integer "
            "operation is computed in the narrowest dtype that holds its operands and its result for "
            "every input (an interval analysis from `unsigned char` in [0, 255]; int64 when nothing "
            "narrower is proved), so no integer wraps; values stored into `unsigned char` wrap modulo "
            "256 (C conversion).",
            f"Device: {sp.device}",
            f"`{flat}_jit` (same arguments, results and checks): {sp.jit_doc} The argument "
            f"conversions and precondition checks (`_{fn.name}_args`) run eagerly before the "
            f"compiled `_{fn.name}_core`.",
            *sp.notes,
        ]
        if fn.python is not None:
            items.append(
                "Python arithmetic: `/` is true division; `//` and `%` on ints are floor division and "
                "modulo. Python ints are unbounded: the int64 code equals the Python function while "
                "every value fits in 64 bits. `/` of two ints is their exact quotient rounded once. "
                "Exceptions are Python's: a list read beyond its end raises IndexError, a zero divisor "
                "ZeroDivisionError, `math.sqrt` / `math.log` outside their domain ValueError, `math.exp` "
                "above 709.78 OverflowError, before anything is computed."
            )
        else:
            items.append(
                "C arithmetic: integer `/` truncates toward zero and `%` has the sign of the dividend "
                f"(`_c_div`, `_c_mod`; not {sp.label}'s flooring `//` and `%`)."
            )
        if uses_floats(fn):
            items.append(float_contract(sp.label))
        items.append(
            "Preconditions (those the proof assumes) are checked first (ValueError naming the "
            "violated one): each loop runs a non-negative number of times, each take/tail/slice/matrix "
            "bound lies in [0, length] of its array, shapes agree. Integer divisors are assumed non-zero."
        )
        host = ""
        if ctx is not None and ctx.host:
            items.append(
                f"Computed by NumPy host code ({sp.label} declines these ops; the operands go to NumPy "
                f"and the result comes back), so `{flat}_jit` is not compiled:"
            )
            host = "\n".join(f"      {h}" for h in dict.fromkeys(ctx.host)) + "\n"
        tail = [
            f"Needs NumPy and {sp.package} (`pip install 'tenspiler[{sp.extra}]'`). A parameter named "
            "like a Python keyword or one of this module's names gets a trailing underscore."
        ]
        wrap = lambda item: textwrap.fill(item, 92, initial_indent="- ", subsequent_indent="  ")  # noqa: E731
        bullets = "\n".join(wrap(i) for i in items) + "\n" + host + "\n".join(wrap(i) for i in tail)
        return f'''\
"""{sp.label} code for the {lang} function `{fn.name}`, generated by tenspiler from its verified
program summary (TensIR):

{summary}

Calling convention:
{bullets}
"""'''

    # ------------------------------------------------------------ runtime (for --check)

    def to_native(self, value: np.ndarray) -> Any:
        """A NumPy array as this library's array, same dtype (imports the library)."""
        raise NotImplementedError

    def to_numpy(self, value: Any) -> Any:
        """A value returned by generated code as NumPy (tuples elementwise; None stays)."""
        if isinstance(value, tuple):
            return tuple(self.to_numpy(v) for v in value)
        return None if value is None else np.asarray(value)
