"""TPC-C text of the device kernels of a split (:class:`~tenspiler.codegen.split.Split`).

Each :class:`~tenspiler.codegen.split.DeviceKernel` becomes one
``void main(tensor in..., tensor out..., <scalars>)`` whose index space is one-dimensional:
element ``i`` of dim 0 is the ``i``-th *block* of the tensors (:data:`VECTOR` = 64 elements, or
:data:`BYTE_BLOCK` = 256 elements when the kernel reads or writes an ``unsigned char`` tensor,
see below), and each index-space member loops over its slice (``get_index_space_offset()`` /
``get_index_space_size()``). The kernel reads and writes 1-D tensors whose descriptors the host
sets up as *views* (an input array from ``lo`` to ``hi``, the output range), so the kernel itself
only walks coordinates ``0 … len-1``; lanes past the end read the pad value 0 and their stores
are dropped (TPC tensor semantics).

* map kernels: load every view, compute the elementwise term lane by lane (SSA, one
  intrinsic per op, equal subterms computed once), convert to the output's element type and
  store.
* reduction kernels: accumulate the term lane-wise in a vector (``v_*_add_b`` /
  ``v_*_max_b``), masking lanes past the valid length (``valid_len``, a scalar parameter, vs
  the lane id), and store the accumulator at the member's first element of a ``partial``
  tensor; the host combines the partials (sum modulo 2^32 for ``int`` — exact whenever the
  C sum does not overflow — or max).

``unsigned char`` tensors: a vector access to an 8-bit tensor moves 256 elements. With
``SW_UNPACK | SW_UNPCK_8_TO_32``, ``LD_TNSR`` puts element ``d + 64 k + L`` into byte ``k`` of
32-bit lane ``L``; with ``SW_PACK | SW_PCK_32_TO_8``, ``ST_TNSR`` writes byte ``k`` of lane
``L`` to element ``d + 64 k + L`` (the byte permutation tpc_llvm's
``TPCEliminateRedundantLinearity.cpp`` models for these switches; Habana_Custom_Kernel's
8-bit kernels likewise step 256 elements per vector). So a kernel with an 8-bit tensor walks
256-element blocks: one unpacking load per 8-bit input, an inner loop over the four quarters
``q`` (64 lanes each: byte ``q`` of the unpacked lanes, ``(x >> 8 q) & 255``; 32-bit tensors
at ``d + 64 q``), and one packing store per 8-bit output (quarter ``q``'s values, modulo 256 —
C's conversion to ``unsigned char`` — OR-ed into byte ``q``).

Integer division and remainder are :data:`DIVISION_HELPERS`: exact long division on
uint32 lanes (TPC has no vector integer divide), with C's truncation toward zero.

Every intrinsic, type and switch emitted here is listed, with the Habana source it was checked
against, in ``INTRINSICS.md`` beside this file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from tenspiler.codegen.split import DeviceKernel, Split, is_view
from tenspiler.codegen.tpc_c.rules import LANE, SCALAR_TYPE, VECTOR_TYPE, promote_lanes
from tenspiler.errors import CodegenError
from tenspiler.ir.printer import show, show_output
from tenspiler.ir.terms import (
    BoolOp,
    Cmp,
    Cond,
    Lit,
    NotCond,
    ScalarCast,
    ScalarOp,
    ScalarVar,
    Slice,
    Tail,
    Take,
    TensorCast,
    TensorMap,
    TensorScalar,
    TensorSelect,
    TensorTensor,
    TensorVar,
    Term,
    children,
    is_tensor,
)
from tenspiler.loops.ir import DType, Function, PointerType, ScalarType

VECTOR = 64  # lanes of a 32-bit TPC vector (int64 / uint64 / float64)
#: elements per index-space element of a kernel with an 8-bit tensor: one 2048-bit vector of
#: bytes, i.e. 4 quarters of :data:`VECTOR` 32-bit lanes
BYTE_BLOCK = 256

#: C keywords, TPC-C type names and the kernel's own identifiers: a parameter with one of
#: these names gets a trailing underscore.
RESERVED = frozenset(
    ["auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "bool", "true", "false", "main", "tensor", "int5", "float64", "int64", "uint64", "int128", "uint128", "float128", "int256", "uint256", "bool64", "bool128", "bool256", "char256", "uchar256", "short128", "ushort128", "bfloat128", "half128", "index_space_start", "index_space_end", "first", "last", "coords", "d", "q", "dq", "lane", "acc", "packed"]
)

#: Exact integer division on int32 lanes, from intrinsics only (emitted when used).
DIVISION_HELPERS: dict[str, str] = {
    "tpc_udivmod_u32": """\
/* Unsigned 32-bit long division, lane by lane: {v1 = n / d, v2 = n % d}.
 * Exact by construction (restoring division: no reciprocal, no floating point). Before the
 * step for bit k, q * d + r == n and r < d * 2^(k+1); (r >> k) >= d holds exactly when
 * r >= d * 2^k, and then d * 2^k <= r < 2^32 does not overflow; after bit 0, r < d.
 * A lane with d == 0 gives q = 0xffffffff, r = n (no trap: C leaves x / 0 undefined, and
 * such lanes are only ever discarded by a select). */
static uint128 tpc_udivmod_u32(uint64 n, uint64 d)
{
    uint128 qr;
    qr.v1 = v_u32_mov_b(0u);
    qr.v2 = n;
    for (int k = 31; k >= 0; k--) {
        uint64 t = v_u32_shr_b(qr.v2, k);
        uint64 r = v_u32_sub_b(qr.v2, v_u32_shl_b(d, k));
        uint64 q = v_u32_or_b(qr.v1, 1u << k);
        qr.v2 = v_u32_sel_geq_u32_b(t, d, r, qr.v2);
        qr.v1 = v_u32_sel_geq_u32_b(t, d, q, qr.v1);
    }
    return qr;
}
""",
    "tpc_abs_u32": """\
/* |x| of int32 lanes as uint32 lanes (|INT32_MIN| = 2^31 is representable; ABS would
 * saturate it). */
static uint64 tpc_abs_u32(int64 x)
{
    uint64 ux = as_uint64(x);
    return v_u32_sel_less_i32_b(x, 0, v_u32_sub_b(v_u32_mov_b(0u), ux), ux);
}
""",
    "tpc_div_i32": """\
/* C `x / y` on int32 lanes: the quotient truncated toward zero (C11 6.5.5): |x| / |y|,
 * negated when the signs differ ((x ^ y) < 0). */
static int64 tpc_div_i32(int64 x, int64 y)
{
    int64 q = as_int64(tpc_udivmod_u32(tpc_abs_u32(x), tpc_abs_u32(y)).v1);
    return v_i32_sel_less_i32_b(v_i32_xor_b(x, y), 0, v_i32_sub_b(v_i32_mov_b(0), q), q);
}
""",
    "tpc_mod_i32": """\
/* C `x % y` on int32 lanes: |x| % |y| with the sign of x, so (x / y) * y + x % y == x. */
static int64 tpc_mod_i32(int64 x, int64 y)
{
    int64 r = as_int64(tpc_udivmod_u32(tpc_abs_u32(x), tpc_abs_u32(y)).v2);
    return v_i32_sel_less_i32_b(x, 0, v_i32_sub_b(v_i32_mov_b(0), r), r);
}
""",
}
_HELPER_DEPS = {
    "tpc_div_i32": ("tpc_udivmod_u32", "tpc_abs_u32"),
    "tpc_mod_i32": ("tpc_udivmod_u32", "tpc_abs_u32"),
}

_CMP_NAME = {"<": "less", "<=": "leq", ">": "grt", ">=": "geq", "==": "eq", "!=": "neq"}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_MAP_FN = {"exp": "v_exp_f32", "sqrt": "v_sqrt_f32", "log": "v_log_f32", "tanh": "v_tanh_f32"}


# ---------------------------------------------------------------- signatures


@dataclass(frozen=True)
class TensorParam:
    """A ``tensor`` parameter of a kernel.

    Attributes:
        name: its C name.
        dtype: element type of the tensor (``INT`` → int32, ``UINT8`` → uint8, ``FLOAT``
            → float32 elements).
        role: ``"input"``, ``"output"`` (a map kernel's result) or ``"partial"`` (a
            reduction kernel's per-member partial results).
        source: the view term (input array range), the host value name (``"h0"``) of a
            tensor the host computes, the ``ArrayOutput`` range text, or ``""``.
        view: the view term for an input view, else ``None``.
        host_value: the host value name for a hoisted tensor, else ``None``.
    """

    name: str
    dtype: DType
    role: Literal["input", "output", "partial"]
    source: str
    view: Term | None = None
    host_value: str | None = None


@dataclass(frozen=True)
class ScalarParam:
    """A scalar parameter of a kernel: a function parameter (``param``), a host value
    (``host``) or the number of valid elements of a reduction (``length``)."""

    name: str
    lane: str  # "i32" → int, "f32" → float
    kind: Literal["param", "host", "length"]
    source: str  # the function parameter or host value name ("" for length)

    @property
    def c_type(self) -> str:
        return SCALAR_TYPE[self.lane]


@dataclass(frozen=True)
class KernelSignature:
    """A kernel's calling convention: what the glue declares and the host passes.

    Attributes:
        kernel: the split's kernel.
        c_name: the kernel's name for the runtime (``tenspiler_<function>_<kernel>``).
        index: its position in the kernel file (``TENSPILER_KERNEL`` when several).
        tensors: tensor parameters in ``main`` order (inputs, then the output / partial).
        scalars: scalar parameters in ``main`` order, after the tensors.
        block: tensor elements per index-space element (the host launches
            ``ceil(length / block)`` index-space elements).
    """

    kernel: DeviceKernel
    c_name: str
    index: int
    tensors: tuple[TensorParam, ...]
    scalars: tuple[ScalarParam, ...]
    #: tensor elements per index-space element: :data:`VECTOR`, or :data:`BYTE_BLOCK` for a
    #: kernel with an 8-bit tensor
    block: int = VECTOR

    @property
    def partial_lane(self) -> str:
        """Lane type of a reduction's partial results."""
        return LANE[self.kernel.term.dtype]


@dataclass(frozen=True)
class KernelFile:
    """The ``.tpc.c`` text and the signature of each kernel in it."""

    text: str
    signatures: tuple[KernelSignature, ...]


# ---------------------------------------------------------------- emitting one kernel


@dataclass(frozen=True)
class _Val:
    text: str
    lane: str
    vec: bool


@dataclass
class _Emitter:
    fn: Function
    kernel: DeviceKernel
    host_names: frozenset[str]
    names: Mapping[str, str]  # function parameter / host value name -> C name
    helpers: set[str]
    #: the kernel walks 256-element blocks (it has an 8-bit tensor): see the module docstring
    block: bool = False
    lines: list[str] = field(default_factory=list)
    #: statements at the start of each 256-element block (the unpacking 8-bit loads)
    block_lines: list[str] = field(default_factory=list)
    _bytes: dict[str, str] = field(default_factory=dict)  # 8-bit tensor -> its unpacked block
    #: scalar values computed once, before the loop (on the scalar unit)
    prologue: list[str] = field(default_factory=list)
    tensors: list[TensorParam] = field(default_factory=list)
    scalars: list[ScalarParam] = field(default_factory=list)
    _cache: dict[Term, _Val] = field(default_factory=dict)
    _counter: int = 0
    _taken: set[str] = field(default_factory=set)

    # ------------------------------------------------------------ names and params

    def fresh_c(self, base: str) -> str:
        name = c_identifier(base, self._taken)
        self._taken.add(name)
        return name

    def tmp(self, lane: str, expr: str) -> _Val:
        name = f"v{self._counter}"
        self._counter += 1
        self.lines.append(f"{VECTOR_TYPE[lane]} {name} = {expr};")
        return _Val(name, lane, True)

    def scalar_const(self, lane: str, expr: str) -> _Val:
        """A scalar computed once before the loop: ``const int s0 = expr;``."""
        name = self.fresh_c(f"s{len(self.prologue)}")
        self.prologue.append(f"const {SCALAR_TYPE[lane]} {name} = {expr};")
        return _Val(name, lane, False)

    def scalar_param(self, name: str, lane: str, kind: Literal["param", "host"]) -> str:
        for s in self.scalars:
            if s.source == name and s.kind == kind:
                return s.name
        c = self.names[name]
        self.scalars.append(ScalarParam(c, lane, kind, name))
        return c

    def tensor_param(self, t: Term) -> TensorParam:
        for p in self.tensors:
            if p.view == t or (isinstance(t, TensorVar) and p.host_value == t.name):
                return p
        if isinstance(t, TensorVar) and t.name in self.host_names:
            c = self.names[t.name]  # unique already
            self._taken.add(c)
            p = TensorParam(c, t.dtype, "input", f"host value {t.name}", None, t.name)
        else:
            base = view_array(t)
            p = TensorParam(self.fresh_c(base), t.dtype, "input", show(t), t, None)
        self.tensors.append(p)
        return p

    # ------------------------------------------------------------ values

    def load(self, p: TensorParam) -> str:
        """The expression loading tensor ``p`` at ``coords`` (the current 64 elements)."""
        if p.dtype == DType.FLOAT:
            return f"v_f32_ld_tnsr_b(coords, {p.name})"
        if p.dtype != DType.UINT8:
            return f"v_i32_ld_tnsr_b(coords, {p.name})"
        assert self.block, "an 8-bit tensor in a kernel that does not walk 256-element blocks"
        raw = self._bytes.get(p.name)
        if raw is None:
            raw = self.fresh_c(f"{p.name}_bytes")
            self._bytes[p.name] = raw
            self.block_lines.append(
                f"const int64 {raw} = v_i32_ld_tnsr_b(coords, {p.name}, SW_UNPACK | SW_UNPCK_8_TO_32);"
                f"  /* byte k of lane L: {p.name}[d + 64 k + L] */"
            )
        return f"v_i32_and_b(v_i32_shr_b({raw}, 8 * q), 255)"

    def vec(self, v: _Val) -> str:
        """``v`` as a vector operand (a scalar is broadcast with MOV)."""
        return v.text if v.vec else f"v_{v.lane}_mov_b({v.text})"

    def convert(self, v: _Val, src: DType, dst: DType) -> _Val:
        """C conversion of a value computed as ``src`` to ``dst``'s lanes (int → float
        rounds to nearest even; float → int truncates; no modulo for uint8 here)."""
        a, b = LANE[src], LANE[dst]
        if a == b:
            return v
        if b == "f32":
            if not v.vec:
                if _is_int_literal(v.text):
                    return _Val(_literal(int(v.text.strip("()")), DType.FLOAT), "f32", False)
                return self.scalar_const("f32", f"(float){v.text}")
            return self.tmp("f32", f"v_convert_i32_to_f32_b({v.text}, SW_RHNE)")
        if not v.vec:
            return self.scalar_const("i32", f"(int){v.text}")  # C: truncation toward zero
        return self.tmp("i32", f"v_convert_f32_to_i32_b({v.text}, SW_RZ)")

    def value(self, t: Term) -> _Val:
        hit = self._cache.get(t)
        if hit is None:
            hit = self._value(t)
            self._cache[t] = hit
        return hit

    def _value(self, t: Term) -> _Val:
        if is_tensor(t) and (is_view(t) or (isinstance(t, TensorVar) and t.name in self.host_names)):
            p = self.tensor_param(t)
            return self.tmp(LANE[p.dtype], self.load(p))
        match t:
            case ScalarVar(name, dt):
                if name in self.host_names:
                    return _Val(self.scalar_param(name, LANE[dt], "host"), LANE[dt], False)
                decl = self.fn.param(name).type
                assert isinstance(decl, ScalarType)
                c = self.scalar_param(name, LANE[decl.dtype], "param")
                return self.convert(_Val(c, LANE[decl.dtype], False), decl.dtype, dt)
            case Lit(value, dt):
                return _Val(_literal(value, dt), LANE[dt], False)
            case ScalarOp(op, a, b, dt):
                x = self.convert(self.value(a), a.dtype, dt)
                y = self.convert(self.value(b), b.dtype, dt)
                return self.scalar_const(LANE[dt], f"{x.text} {op} {y.text}")
            case ScalarCast(x, dt):
                return self.convert(self.value(x), x.dtype, dt)
            case TensorTensor(op, a, b, dt) | TensorScalar(op, a, b, False, dt):
                return self.binop(op, self.operand(a, dt), self.operand(b, dt), dt)
            case TensorScalar(op, x, s, True, dt):
                return self.binop(op, self.operand(s, dt), self.operand(x, dt), dt)
            case TensorCast(x, dt):
                return self.cast(self.value(x), x.dtype, dt)
            case TensorMap(func, x, dt):
                v = self.vec(self.convert(self.value(x), x.dtype, dt))
                if func == "fabs":
                    return self.tmp(LANE[dt], f"v_{LANE[dt]}_abs_b({v})")
                return self.tmp("f32", f"{_MAP_FN[func]}({v})")
            case TensorSelect(cond, a, b, dt):
                return self.select(cond, self.operand(a, dt), self.operand(b, dt), LANE[dt])
        raise CodegenError(f"tpc_c: no rule for {show(t)} in kernel {self.kernel.name}")

    def operand(self, t: Term, dt: DType) -> _Val:
        return self.convert(self.value(t), t.dtype, dt)

    def binop(self, op: str, a: _Val, b: _Val, dt: DType) -> _Val:
        t = LANE[dt]
        if op in ("+", "*") and not a.vec and b.vec:
            a, b = b, a  # commutative: the vector goes first (SRC1), the scalar second
        if op == "+":
            return self.tmp(t, f"v_{t}_add_b({self.vec(a)}, {b.text})")
        if op == "*":
            low = ".v1" if t == "i32" else ""  # i32 MUL gives {low, high} 32-bit halves
            return self.tmp(t, f"v_{t}_mul_b({self.vec(a)}, {b.text}){low}")
        if op == "-":
            # s - x: the scalar is broadcast into SRC1 (MOV). Not -(x - s) with SW_NEG: for
            # x == s that is -0.0 in binary32, where C's s - x is +0.0.
            return self.tmp(t, f"v_{t}_sub_b({self.vec(a)}, {b.text})")
        if op in ("/", "%") and t == "i32":
            helper = "tpc_div_i32" if op == "/" else "tpc_mod_i32"
            self.helpers.add(helper)
            return self.tmp(t, f"{helper}({self.vec(a)}, {self.vec(b)})")
        raise CodegenError(f"tpc_c: no rule for {op!r} on {dt.value} lanes")

    def cast(self, v: _Val, src: DType, dst: DType) -> _Val:
        """C conversion to ``dst`` (to ``unsigned char``: modulo 256)."""
        if dst == DType.UINT8:
            if src == DType.UINT8:
                return v
            w = self.convert(v, src, DType.INT)
            return self.tmp("i32", f"v_i32_and_b({self.vec(w)}, 255)")
        return self.convert(v, src, dst)

    def select(self, c: Cond, a: _Val, b: _Val, rl: str) -> _Val:
        match c:
            case Cmp(op, left, right):
                cd = promote_lanes(left.dtype, right.dtype)
                if cd == DType.DOUBLE:  # a float vs a double literal that is exactly a float
                    cd = DType.FLOAT
                    left, right = _as_float_lit(left), _as_float_lit(right)
                x = self.operand(left, cd)
                y = self.operand(right, cd)
                cmp: str = op
                if not x.vec and y.vec:  # the vector goes first: s < x is x > s
                    x, y, cmp = y, x, _FLIP[op]
                return self.tmp(
                    rl,
                    f"v_{rl}_sel_{_CMP_NAME[cmp]}_{LANE[cd]}_b({self.vec(x)}, {y.text}, {a.text}, {self.vec(b)})",
                )
            case BoolOp("and", p, q):
                return self.select(p, self.select(q, a, b, rl), b, rl)
            case BoolOp("or", p, q):
                return self.select(p, a, self.select(q, a, b, rl), rl)
            case NotCond(p):
                return self.select(p, b, a, rl)
        raise CodegenError(f"tpc_c: no rule for the condition {c!r}")


def c_identifier(base: str, taken: set[str] | frozenset[str] = frozenset()) -> str:
    """``base`` made safe as a kernel identifier: not a C keyword, TPC-C type or name of the
    kernel's own (``v0``…, ``coords``), not in ``taken`` (trailing underscores are appended as
    needed), and not in a namespace of intrinsics or helpers (``v_*``, ``tpc_*``…: ``p_`` is
    prepended)."""
    name = base
    if name.startswith(("v_", "tpc_", "s_", "i_", "read_", "get_", "as_")):  # intrinsic namespaces
        name = "p_" + name
    while name in RESERVED or name in taken or re.fullmatch(r"v[0-9]+", name):
        name += "_"
    return name


def _is_int_literal(text: str) -> bool:
    return re.fullmatch(r"\(?-?[0-9]+\)?", text) is not None


def _as_float_lit(t: Term) -> Term:
    if isinstance(t, Lit) and t.dtype == DType.DOUBLE:
        return Lit(float(np.float32(t.value)), DType.FLOAT)
    return t


def _literal(value: int | float, dt: DType) -> str:
    if dt.is_float:
        text = str(np.float32(value))
        if "e" not in text and "." not in text:
            text += ".0"
        return f"({text}f)" if text.startswith("-") else f"{text}f"
    v = int(value)
    if v == -(2**31):
        return "(-2147483647 - 1)"
    return f"({v})" if v < 0 else str(v)


def view_array(t: Term) -> str:
    """The input array a device view (``take`` / ``tail`` / ``slice`` of an array) reads."""
    while isinstance(t, Take | Tail | Slice):
        t = t.tensor
    if not isinstance(t, TensorVar):
        raise CodegenError(f"tpc_c: {show(t)} is not a view of an input array")
    return t.name


def _store(out: str, elem: DType, v: _Val, vdt: DType, em: _Emitter) -> str:
    """The statement storing ``v`` (computed as ``vdt``) into the current 64 elements of
    ``out``; for an 8-bit ``out``: OR-ing it into byte ``q`` of ``packed`` (stored once per
    256-element block, after the quarters)."""
    if elem == DType.FLOAT:
        w = em.convert(v, vdt, DType.FLOAT)
        return f"v_f32_st_tnsr(coords, {out}, {em.vec(w)});"
    w = em.convert(v, vdt, DType.INT)
    if elem == DType.UINT8:
        if vdt != DType.UINT8:
            w = em.tmp("i32", f"v_i32_and_b({em.vec(w)}, 255)")  # C: modulo 256
        return f"packed = v_i32_or_b(packed, v_i32_shl_b({em.vec(w)}, 8 * q));"
    return f"v_i32_st_tnsr(coords, {out}, {em.vec(w)});"


def _touches_bytes(t: Term, host_names: frozenset[str]) -> bool:
    """``t`` reads an 8-bit tensor (an input view or a host value of ``unsigned char``)."""
    if is_tensor(t) and (is_view(t) or (isinstance(t, TensorVar) and t.name in host_names)):
        return t.dtype == DType.UINT8
    return any(_touches_bytes(c, host_names) for c in children(t))


def _indent(lines: list[str], n: int) -> Iterator[str]:
    for line in lines:
        yield (" " * n + line) if line else ""


# ---------------------------------------------------------------- the file


def kernel_file(fn: Function, split: Split, names: Mapping[str, str], summary_text: str) -> KernelFile:
    """The TPC-C source of every kernel of ``split`` (one ``main`` each; with several, each
    is guarded by ``#if TENSPILER_KERNEL == i``) and their signatures.

    ``names`` maps function parameters and host values to C identifiers.
    """
    helpers: set[str] = set()
    bodies: list[str] = []
    sigs: list[KernelSignature] = []
    host_names = frozenset(h.name for h in split.host_values)
    for i, k in enumerate(split.kernels):
        body, sig = _kernel(fn, k, i, host_names, names, helpers)
        bodies.append(body)
        sigs.append(sig)
    closure = set(helpers)
    for h in helpers:
        closure.update(_HELPER_DEPS.get(h, ()))
    helper_text = [DIVISION_HELPERS[h].rstrip("\n") for h in DIVISION_HELPERS if h in closure]
    parts = [_file_comment(fn, split, sigs, summary_text), *helper_text]
    if len(bodies) == 1:
        parts.append(bodies[0])
    else:
        for i, b in enumerate(bodies):
            parts.append(f"#if TENSPILER_KERNEL == {i}\n{b}\n#endif /* TENSPILER_KERNEL == {i} */")
    return KernelFile("\n\n".join(parts).rstrip("\n") + "\n", tuple(sigs))


def _kernel(
    fn: Function,
    k: DeviceKernel,
    index: int,
    host_names: frozenset[str],
    names: Mapping[str, str],
    helpers: set[str],
) -> tuple[str, KernelSignature]:
    out_elem: DType | None = None
    if k.kind == "map":
        assert k.output is not None
        decl = fn.param(k.output.array).type
        assert isinstance(decl, PointerType)
        out_elem = decl.elem
    block = out_elem == DType.UINT8 or _touches_bytes(k.term, host_names)
    em = _Emitter(fn, k, host_names, names, helpers, block=block)
    # scalar parameters and host values keep their C names; tensor views get fresh ones
    em._taken.update(names[p.name] for p in fn.scalars)
    em._taken.update(names[h] for h in host_names)
    v = em.value(k.term)
    if not em.tensors:
        raise CodegenError(f"tpc_c: kernel {k.name} ({show(k.source)}) reads no tensor, so it has no length")
    loop = list(em.lines)
    epilogue: list[str] = []
    prologue: list[str] = list(em.prologue)
    scalars = list(em.scalars)
    at = "dq" if block else "d"  # first element of the current 64 lanes
    block_head: list[str] = []  # once per 256-element block, before the quarters
    block_tail: list[str] = []  # once per 256-element block, after the quarters
    if k.kind == "map":
        assert k.output is not None and out_elem is not None
        out = TensorParam(em.fresh_c(f"{k.output.array}_out"), out_elem, "output", show_output(k.output))
        em.lines.clear()
        store = _store(out.name, out_elem, v, k.term.dtype, em)
        loop += [*em.lines, store]
        outputs = [out]
        if out_elem == DType.UINT8:
            block_head.append("int64 packed = v_i32_mov_b(0);  /* byte q of lane L: the value for d + 64 q + L */")
            block_tail += ["coords[0] = d;", f"v_i32_st_tnsr(coords, {out.name}, packed, SW_PACK | SW_PCK_32_TO_8);"]
    else:
        lane_t = LANE[k.term.dtype]
        vt = VECTOR_TYPE[lane_t]
        partial = TensorParam(em.fresh_c("partial"), DType.FLOAT if lane_t == "f32" else DType.INT, "partial", "")
        valid = em.fresh_c("valid_len")
        scalars.append(ScalarParam(valid, "i32", "length", ""))
        if k.kind == "reduce_sum":
            init = "0.0f" if lane_t == "f32" else "0"
            step = f"v_{lane_t}_add_b(acc, {em.vec(v)})"
            what = "sum"
        else:
            init = "-__builtin_inff()" if lane_t == "f32" else "(-2147483647 - 1)"
            step = f"v_{lane_t}_max_b(acc, {em.vec(v)})"
            what = "maximum"
        prologue += [
            f"/* lane-wise partial {what}; lanes at or past {valid} are masked */",
            f"{vt} acc = v_{lane_t}_mov_b({init});",
            "const int64 lane = v_convert_u32_to_i32_b(read_lane_id_4b_b());",
        ]
        loop.append(f"acc = v_{lane_t}_sel_less_i32_b(lane, {valid} - {at}, {step}, acc);")
        epilogue = [
            "if (first < last) {",
            "    coords[0] = first;",
            f"    v_{lane_t}_st_tnsr(coords, {partial.name}, acc);",
            "}",
        ]
        outputs = [partial]
    tensors = tuple(em.tensors) + tuple(outputs)
    params = [f"tensor {p.name}" for p in tensors] + [f"{s.c_type} {s.name}" for s in scalars]
    what_line = (
        f"writes {show_output(k.output)}" if k.output is not None else f"partial results of {show(k.source)}"
    )
    size = BYTE_BLOCK if block else VECTOR
    if block:
        space = f"one element per block of {BYTE_BLOCK} (8-bit tensors: one vector of bytes)"
        walk = [
            f"    for (int d = first; d < last; d += {BYTE_BLOCK}) {{",
            "        coords[0] = d;",
            *_indent([*em.block_lines, *block_head], 8),
            f"        for (int q = 0; q < {BYTE_BLOCK // VECTOR}; q++) {{  /* quarter q: elements d + 64 q ... */",
            f"            const int dq = d + {VECTOR} * q;",
            "            coords[0] = dq;",
            *_indent(loop, 12),
            "        }",
            *_indent(block_tail, 8),
            "    }",
        ]
    else:
        space = f"one element per vector of {VECTOR} lanes"
        walk = [
            f"    for (int d = first; d < last; d += {VECTOR}) {{",
            "        coords[0] = d;",
            *_indent(loop, 8),
            "    }",
        ]
    body = [
        f"/* kernel {k.name} ({_c_name(fn, k)}): {what_line}",
        f" * device term: {show(k.term)} */",
        f"void main({', '.join(params)})",
        "{",
        "    const int5 index_space_start = get_index_space_offset();",
        "    const int5 index_space_end = get_index_space_size() + index_space_start;",
        f"    /* index space dim 0: {space} */",
        f"    const int first = index_space_start[0] * {size};",
        f"    const int last = index_space_end[0] * {size};",
        "    int5 coords = {0, 0, 0, 0, 0};",
        *_indent(prologue, 4),
        *walk,
        *_indent(epilogue, 4),
        "}",
    ]
    sig = KernelSignature(k, _c_name(fn, k), index, tensors, tuple(scalars), size)
    return "\n".join(body), sig


def _c_name(fn: Function, k: DeviceKernel) -> str:
    return f"tenspiler_{fn.name}_{k.name}"


def _file_comment(fn: Function, split: Split, sigs: list[KernelSignature], summary_text: str) -> str:
    lines = [
        f"/* TPC-C kernels for `{fn.name}`, generated by tenspiler from its verified program summary:",
        " *",
        *(f" *   {line}" for line in summary_text.splitlines()),
        " *",
        " * Target: Intel Gaudi2 TPC (tpc-clang -march=gaudi2); one vector = 64 lanes of 32 bits",
        " * (float64: 64 x f32, int64: 64 x int32); a kernel with an 8-bit tensor walks blocks of 256",
        " * elements (one vector of bytes, unpacked into / packed from 4 x 64 lanes). Intrinsics:",
        " * tenspiler/codegen/tpc_c/INTRINSICS.md. The host part (`" + fn.name + "_host.py`) sets up",
        " * the tensors as 1-D views and launches the kernels; `" + fn.name + "_glue.cpp` is the glue",
        " * (kernel names, index space, tensor descriptors) for the Habana custom-kernel library.",
        " * Not compiled against the Habana SDK here: tenspiler compiles it against",
        " * tenspiler/codegen/tpc_c/tpc_emulation.h and compares it with the reference interpreter",
        " * and the original code.",
    ]
    if len(sigs) > 1:
        lines.append(f" * {len(sigs)} kernels: build kernel i with -DTENSPILER_KERNEL=i.")
    lines.append(" *")
    lines.append(" * Device/host split:")
    for p in split.placements:
        lines.append(f" *   {show_output(p.output)}")
        lines.append(f" *     {p.where}" + (f" (kernels {', '.join(p.kernels)})" if p.kernels else ""))
        lines.extend(f" *     - {n}" for n in p.notes)
    if not sigs:
        lines.append(" *")
        lines.append(" * No device kernel: everything runs on the host (see the reasons above).")
    lines.append(" */")
    return "\n".join(lines)
