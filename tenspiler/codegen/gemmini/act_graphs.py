"""The accelerator-bound part of a verified TensIR summary as tensor dataflow graphs
(:mod:`tenspiler.act.graph`), ready for XLA-HLO export (:mod:`tenspiler.act.hlo`).

"The accelerator-bound part" is the Gemmini code generator's device/host split
(:func:`tenspiler.codegen.gemmini.lower.plan_summary`, through
:meth:`~tenspiler.codegen.gemmini.GemminiBackend.plan`): :func:`export_plan` turns **each
device call** of a :class:`~tenspiler.codegen.gemmini.lower.Plan` into one statically shaped
graph, with concrete values for the kernel's size parameters (HLO has no symbolic shapes):

* :class:`~tenspiler.codegen.gemmini.lower.GemmCall` ``C[m×n] = A[m×k]·B[k×n]``:
  ``int8`` configuration (integer calls): parameters ``s8[m,k]`` / ``s8[k,n]`` converted to
  ``s32`` and ``dot`` in ``s32`` (the int32 accumulator; ``k ≤ MAX_INT8_K`` so it cannot
  wrap — a larger ``k`` is skipped); ``fp32`` configuration (float calls): ``f32`` parameters
  and an ``f32`` ``dot``. A ones operand (sums) is the constant 1 broadcast to ``k×1`` (or
  ``1×k``), not a parameter. A sum whose operand the host shifts into int8
  (``a_offset``: uint8 data) adds ``a_offset·k`` back in the graph (an ``add`` of a broadcast
  constant), so the graph's value is the summed term's. The result is reshaped to the
  TensIR value: ``[m·n]`` for a vector, ``[]`` for a scalar (dot product, sum).
* :class:`~tenspiler.codegen.gemmini.lower.AffineCall` ``Σ sₜ·xₜ + c`` over ``L`` elements:
  each operand a parameter ``[L]`` (``s32`` for integers — the int32 accumulator — or
  ``f32``); a scale ``s ≠ 1`` is a ``dot`` of the operand as ``[L,1]`` with ``[[s]]``
  (``[1,1]``; the subset has no ``multiply``) reshaped back to ``[L]``; terms are ``add`` ed;
  the constant ``c`` is a rank-0 value broadcast to ``[L]``. A scale or constant that is a
  literal expression is folded into a ``constant``; any other (a scalar parameter such as
  ``alpha``, or an expression of several) is a rank-0 parameter the host computes. A call
  that takes the first terms of a longer sum (Gemmini moves at most three operands per row)
  computes those terms only (:func:`call_term`; its ``source`` names the whole sum).

**Parameters** (:class:`Param`) are exactly the call's operands: views of the kernel's arrays
(named after the array) and values the plan marks as host-computed (named ``<call>_a``,
``<call>_x0``, … or after the array when the operand is a plain view of one; a result of an
earlier device call is named after that call). The host fills them: element ``(i, j)`` of a
2-D operand is ``flat(term)[offset + i·stride + j]``; int8 operands are range-checked.

**Not exported** (:class:`Skipped`, with the reason; that call stays on the host): an
``AffineCall`` with ReLU (``max(·, 0)`` — the subset has no ``maximum``/``select``), a call
whose shape is empty or not determined by the given sizes, a ``k`` above ``MAX_INT8_K``, a
literal scale/constant that is not representable in the element type. **Host part** (never
exported): everything the plan leaves to the host (``OutputPlan.host_term``: the terms around
the device results, e.g. ``map(exp, …)``, selects, divisions, ``double`` values).

**Arithmetic contract.** A graph's integer arithmetic wraps (XLA); TensIR's integers do not.
The graph equals the call's TensIR value whenever nothing wraps: :func:`no_wrap` bounds every
``s32`` node's magnitude from the inputs (Gemmini's own run-time contract is the same kind
of check), :func:`param_values` refuses int8 operands outside ``[-128, 127]``
(:class:`ContractError`). ``f32`` graphs compute in float32 (TensIR's reals: within the
float tolerance). :class:`PlanRunner` runs a whole summary this way — exported calls as graphs
(:func:`tenspiler.act.graph.evaluate`), everything else with the TensIR interpreter — and is
what ``lift --to hlo --check`` executes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from tenspiler.act.graph import DTYPES, Graph, GraphBuilder, GraphError, evaluate
from tenspiler.codegen.gemmini.lower import MAX_INT8_K, AffineCall, GemmCall, Operand, Plan
from tenspiler.ir import interp
from tenspiler.ir.printer import show
from tenspiler.ir.terms import (
    ArrayOutput,
    Cmp,
    Full,
    Iota,
    Lit,
    Matrix,
    ProgramSummary,
    ReduceRows,
    Scalar,
    ScalarOutput,
    ScalarVar,
    Size,
    Slice,
    Strided,
    Tail,
    Take,
    Tensor,
    TensorCast,
    TensorMap,
    TensorScalar,
    TensorSelect,
    TensorTensor,
    TensorVar,
    Term,
    children,
    free_vars,
    is_tensor,
    map_children,
    rows,
)
from tenspiler.loops.ir import DType, Function, PointerType, ScalarType

__all__ = [
    "ContractError",
    "Exported",
    "Param",
    "PlanExport",
    "PlanRunner",
    "RunnerSpec",
    "Skipped",
    "call_term",
    "export_call",
    "export_plan",
    "no_wrap",
    "param_values",
    "plan_graphs",
    "result_value",
    "runner_spec",
    "size_parameters",
]

S32_MAX = 2**31 - 1


class ContractError(ValueError):
    """Inputs outside an exported graph's contract: an int8 operand outside [-128, 127], an
    operand shorter than the exported shape, or integer values whose sums could wrap."""


class _Skip(Exception):
    """This call cannot be exported (the message says why)."""


@dataclass(frozen=True)
class Param:
    """One parameter of an exported graph and how the host computes its value.

    ``term`` (TensIR over the kernel's inputs and earlier device results, by call name) is
    evaluated with :func:`tenspiler.ir.interp.evaluate`; a 2-D parameter ``[r, c]`` takes
    ``flat[offset + i·stride + j]`` of its flattened value (``kind == "matrix"``), a 1-D one
    the value itself (``"vector"``), a rank-0 one the scalar (``"scalar"``). ``shift`` is
    subtracted from every element (int8 packing of uint8 data)."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    kind: Literal["matrix", "vector", "scalar"]
    term: Term
    what: str
    offset: int = 0
    stride: int = 0
    shift: int = 0


@dataclass(frozen=True)
class Exported:
    """One exported device call: ``graph`` computes ``value`` (:func:`call_term`), a TensIR
    scalar when ``scalar``; ``params`` in parameter order."""

    call: str
    kind: Literal["gemm", "affine"]
    graph: Graph
    params: tuple[Param, ...]
    value: Term
    scalar: bool
    what: str


@dataclass(frozen=True)
class Skipped:
    """A device call that is not exported (computed by the host instead), and why."""

    call: str
    reason: str
    value: Term


@dataclass
class PlanExport:
    """:func:`export_plan`'s result: the exported calls and the skipped ones, in plan order."""

    sizes: dict[str, int]
    exported: list[Exported] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


# ---------------------------------------------------------------- static sizes


def _shape_scalars(t: Term) -> list[Scalar]:
    """The scalars of ``t`` in shape positions (lengths, offsets, strides)."""
    match t:
        case Take(_, n) | Tail(_, n):
            own: list[Scalar] = [n]
        case Slice(_, lo, hi):
            own = [lo, hi]
        case Matrix(_, r, c, s):
            own = [r, c] + ([s] if s is not None else [])
        case Strided(_, a, c, s):
            own = [a, c, s]
        case Full(n, _):
            own = [n]
        case Iota(a, b):
            own = [a, b]
        case _:
            own = []
    return own + [x for ch in children(t) for x in _shape_scalars(ch)]


def size_parameters(fn: Function, ps: ProgramSummary) -> list[str]:
    """The kernel's size parameters: its integer scalar parameters that occur in a shape
    position of the summary (a ``take``/``tail``/``slice`` bound, a matrix's rows, columns or
    stride, a ``strided`` view's start/count/step, an output range, a shape precondition),
    in parameter order."""
    found: set[str] = set()
    for o in ps.outputs:
        if isinstance(o, ArrayOutput):
            found |= free_vars(o.lo) | free_vars(o.hi)
        found |= {v for s in _shape_scalars(o.value) for v in free_vars(s)}
    for a, b in ps.preconditions:
        found |= free_vars(a) | free_vars(b)
    return [p.name for p in fn.params
            if p.name in found and isinstance(p.type, ScalarType) and not p.type.dtype.is_float]


class _Static:
    """Values of shape scalars for given sizes."""

    def __init__(self, sizes: Mapping[str, int]) -> None:
        self.sizes = dict(sizes)

    def length(self, t: Tensor) -> int:
        match t:
            case Take(_, n):
                return self.value(n)
            case Tail(x, n):
                return self.length(x) - self.value(n)
            case Slice(_, lo, hi):
                return self.value(hi) - self.value(lo)
            case Strided(_, _, c, _) | Full(c, _):
                return self.value(c)
            case Iota(a, b):
                return self.value(b) - self.value(a)
            case ReduceRows(x, _, _):
                return self.value(rows(x))
            case TensorScalar(_, x, _, _, _) | TensorCast(x, _) | TensorMap(_, x, _):
                return self.length(x)
            case TensorTensor(_, a, b, _):
                try:
                    return self.length(a)
                except _Skip:
                    return self.length(b)
            case TensorSelect(c, a, b, _):
                cands: list[Term] = [x for x in (a, b) if is_tensor(x)]
                if isinstance(c, Cmp):
                    cands += [x for x in (c.left, c.right) if is_tensor(x)]
                for cand in cands:
                    try:
                        return self.length(cand)  # type: ignore[arg-type]
                    except _Skip:
                        pass
            case TensorVar(name):
                raise _Skip(f"the length of array {name!r} is not a size parameter")
        raise _Skip(f"the length of {show(t)} is not determined by the sizes")

    def _fold(self, t: Term) -> Term:
        if isinstance(t, Size):
            return Lit(self.length(t.tensor), DType.INT)
        return map_children(t, self._fold)

    def value(self, s: Scalar) -> int:
        try:
            v = interp.evaluate(self._fold(s), self.sizes)
        except KeyError as e:
            raise _Skip(f"{show(s)} depends on {e.args[0]!r}, which is not a size parameter") from None
        except (IndexError, ValueError, ArithmeticError) as e:
            raise _Skip(f"{show(s)} is undefined at these sizes ({e})") from None
        if isinstance(v, float):
            raise _Skip(f"{show(s)} is not an integer")
        return int(v)


# ---------------------------------------------------------------- call values


def call_term(call: GemmCall | AffineCall) -> Term:
    """The TensIR value a device call computes: a product's ``source``; for an affine call
    ``Σ sₜ·xₜ + c`` built from its own terms (a call that takes the first terms of a longer
    sum computes only those), under ``select(· > 0, ·, 0)`` with ReLU."""
    if isinstance(call, GemmCall):
        return call.source
    d = call.dtype
    total: Tensor | None = None
    for s, op in call.terms:
        assert op.term is not None
        x: Tensor = op.term  # type: ignore[assignment]
        if s is not None:
            x = TensorScalar("*", x, s, True, d)
        total = x if total is None else TensorTensor("+", total, x, d)
    assert total is not None
    if call.constant is not None:
        total = TensorScalar("+", total, call.constant, False, d)
    if call.relu:
        zero = Lit(0.0 if d.is_float else 0, d)
        total = TensorSelect(Cmp(">", total, zero), total, zero, d)
    return total


def _plain_view(t: Term) -> str | None:
    """The array a view chain (take/tail/slice of a parameter) reads, if ``t`` is one."""
    match t:
        case TensorVar(name):
            return name
        case Take(x, _) | Tail(x, _) | Slice(x, _, _):
            return _plain_view(x)
    return None


def _view_offset(t: Term, st: _Static) -> int:
    """The element offset of a view chain into its array."""
    match t:
        case Take(x, _):
            return _view_offset(x, st)
        case Tail(x, n) | Slice(x, n, _):
            return _view_offset(x, st) + st.value(n)
    return 0


class _Builder:
    def __init__(self, call: GemmCall | AffineCall, st: _Static) -> None:
        self.call, self.st = call, st
        self.b = GraphBuilder()
        self.params: list[Param] = []
        self.names: set[str] = set()

    def name(self, preferred: str) -> str:
        n, k = preferred, 1
        while n in self.names:
            n, k = f"{preferred}_{k}", k + 1
        self.names.add(n)
        return n

    def param(self, p: Param) -> int:
        self.params.append(p)
        return self.b.parameter(p.name, p.dtype, p.shape)

    def literal(self, s: Scalar, dtype: str) -> int | float | None:
        """The value of a literal scalar expression (no variables) in ``dtype``, else None."""
        if free_vars(s) or any(isinstance(x, Size) for x in _walk(s)):
            return None
        try:
            v = interp.evaluate(s, {})
        except (ArithmeticError, ValueError) as e:
            raise _Skip(f"{show(s)} is undefined ({e})") from None
        if DTYPES[dtype].kind == "f":
            return float(v)
        if isinstance(v, float) and not v.is_integer():
            raise _Skip(f"the scale {show(s)} = {v} is not an integer")
        if not -(2**31) <= int(v) <= S32_MAX:
            raise _Skip(f"{show(s)} = {v} does not fit s32")
        return int(v)


def _walk(t: Term) -> list[Term]:
    return [t, *(x for c in children(t) for x in _walk(c))]


def _gemm_operand(bld: _Builder, op: Operand, role: str, r: int, c: int, int8: bool, shift: int) -> int:
    b, st, call = bld.b, bld.st, bld.call
    in_t = "s8" if int8 else "f32"
    if op.kind == "ones":
        x = b.broadcast(b.constant(1, in_t), (r, c), ())
    else:
        assert op.term is not None
        off = st.value(op.offset) if op.offset is not None else 0
        stride = st.value(op.stride) if op.stride is not None else c
        if op.kind == "view":
            term: Term = TensorVar(op.base, op.term.dtype)
            name = bld.name(op.base)
            what = f"{_index(op.base, off, stride, r, c)} (a view of the array, read in place)"
        else:
            term = op.term
            array = _plain_view(op.term)
            if array is not None:  # a view the host copies (and packs)
                name = bld.name(array)
                what = f"{_index(array, _view_offset(op.term, st) + off, stride, r, c)} (copied by the host)"
            else:
                name = bld.name(op.term.name if isinstance(op.term, TensorVar) else f"{call.name}_{role}")
                layout = "" if (off, stride) == (0, c) or r == 1 else f", as {_index('its elements', off, stride, r, c)}"
                what = f"the host computes {show(op.term)}{layout}"
        if int8:
            what += ", packed into int8 (range checked)" + (f" after subtracting {shift}" if shift else "")
        x = bld.param(Param(name, in_t, (r, c), "matrix", term, what, off, stride, shift))
    return b.convert(x, "s32") if int8 else x


def _index(array: str, off: int, stride: int, r: int, c: int) -> str:
    """``A[64*i + j] for i < 64, j < 64``: which elements of ``array`` a 2-D operand holds."""
    parts = [str(off)] if off else []
    if r > 1:
        parts.append(f"{stride}*i" if stride != 1 else "i")
    if c > 1:
        parts.append("j")
    ranges = [f"i < {r}"] * (r > 1) + [f"j < {c}"] * (c > 1)
    return f"{array}[{' + '.join(parts or ['0'])}]" + (f" for {', '.join(ranges)}" if ranges else "")


def _export_gemm(call: GemmCall, st: _Static) -> Exported:
    m, n, k = st.value(call.m), st.value(call.n), st.value(call.k)
    if min(m, n, k) < 1:
        raise _Skip(f"empty at these sizes ({m}×{k} times {k}×{n})")
    int8 = not call.dtype.is_float
    if int8 and k > MAX_INT8_K:
        raise _Skip(f"k = {k} > {MAX_INT8_K}: int8 products could wrap the int32 accumulator")
    if call.a_offset and call.b.kind != "ones":
        raise _Skip("a shifted operand times a matrix that is not a ones column")
    bld = _Builder(call, st)
    a = _gemm_operand(bld, call.a, "a", m, k, int8, call.a_offset)
    bb = _gemm_operand(bld, call.b, "b", k, n, int8, 0)
    g = bld.b
    out = g.dot(a, bb)
    if call.a_offset:
        back = call.a_offset * k
        out = g.add(out, g.broadcast(g.constant(back, "s32"), (m, n), ()))
    out = g.reshape(out, () if call.scalar else (m * n,))
    return Exported(call.name, "gemm", g.build(out), tuple(bld.params), call_term(call), call.scalar, call.what)


def _export_affine(call: AffineCall, st: _Static) -> Exported:
    if call.relu:
        raise _Skip("ReLU (max(x, 0)) has no operator in the ACT HLO subset")
    n = st.value(call.length)
    if n < 1:
        raise _Skip(f"empty at these sizes (length {n})")
    dt = "f32" if call.dtype.is_float else "s32"
    bld = _Builder(call, st)
    g = bld.b
    total: int | None = None
    for i, (s, op) in enumerate(call.terms):
        assert op.term is not None
        array = _plain_view(op.term)
        if op.kind == "view" or array is not None:
            name = bld.name(array or f"{call.name}_x{i}")
            what = f"{show(op.term)}" + (" (a view of the array, read in place)" if op.kind == "view" else " (copied by the host)")
        else:
            name = bld.name(op.term.name if isinstance(op.term, TensorVar) else f"{call.name}_x{i}")
            what = f"the host computes {show(op.term)}"
        x = bld.param(Param(name, dt, (n,), "vector", op.term, what))
        if s is not None:
            lit = bld.literal(s, dt)
            if lit is not None:
                sv = g.constant([[lit]], dt)
            else:
                sname = bld.name(s.name if isinstance(s, ScalarVar) else f"{call.name}_s{i}")
                sv = g.reshape(bld.param(Param(sname, dt, (), "scalar", s, f"the scale {show(s)}")), (1, 1))
            x = g.reshape(g.dot(g.reshape(x, (n, 1)), sv), (n,))
        total = x if total is None else g.add(total, x)
    assert total is not None
    if call.constant is not None:
        lit = bld.literal(call.constant, dt)
        if lit is not None:
            c = g.constant(lit, dt)
        else:
            c = bld.param(Param(bld.name(f"{call.name}_c"), dt, (), "scalar", call.constant, f"the constant {show(call.constant)}"))
        total = g.add(total, g.broadcast(c, (n,), ()))
    return Exported(call.name, "affine", g.build(total), tuple(bld.params), call_term(call), False,
                    "elementwise add/sub/scale")


def export_call(call: GemmCall | AffineCall, sizes: Mapping[str, int]) -> Exported | Skipped:
    """One device call as a graph at ``sizes`` (size parameter → value), or why not."""
    try:
        if isinstance(call, GemmCall):
            return _export_gemm(call, _Static(sizes))
        return _export_affine(call, _Static(sizes))
    except _Skip as e:
        return Skipped(call.name, str(e), call_term(call))
    except GraphError as e:  # a shape the graph cannot have
        return Skipped(call.name, f"not a well-formed graph at these sizes ({e})", call_term(call))


def export_plan(plan: Plan, sizes: Mapping[str, int]) -> PlanExport:
    """Every device call of ``plan`` exported at ``sizes`` (see the module docstring)."""
    out = PlanExport(dict(sizes))
    for c in plan.calls:
        r = export_call(c, sizes)
        (out.exported if isinstance(r, Exported) else out.skipped).append(r)  # type: ignore[arg-type]
    return out


def plan_graphs(plan: Plan, sizes: Mapping[str, int], skipped: list[Skipped] | None = None) -> list[tuple[str, Graph]]:
    """``(call name, graph)`` per exported device call of ``plan`` at ``sizes``; the calls that
    are not exported are appended to ``skipped`` (with the reason) when it is given."""
    ex = export_plan(plan, sizes)
    if skipped is not None:
        skipped.extend(ex.skipped)
    return [(e.call, e.graph) for e in ex.exported]


# ---------------------------------------------------------------- running an exported call


def param_values(e: Exported, env: Mapping[str, Any]) -> list[np.ndarray]:
    """The parameters' values (parameter order) for a program state ``env`` (the kernel's
    inputs and earlier device results by call name).

    Raises:
        ContractError: an int8 operand outside [-128, 127], an s32 one outside int32, or an
            operand shorter than the exported shape.
    """
    out: list[np.ndarray] = []
    for p in e.params:
        v = interp.evaluate(p.term, env)
        if p.kind == "scalar":
            arr = np.asarray(v)
        elif p.kind == "vector":
            arr = np.asarray(v)
            if arr.shape != p.shape:
                raise ContractError(f"{p.name}: {arr.shape[0]} elements, the graph takes {p.shape[0]}")
        else:
            flat = np.asarray(v).ravel()
            r, c = p.shape
            need = p.offset + (r - 1) * p.stride + c
            if flat.shape[0] < need:
                raise ContractError(f"{p.name}: {flat.shape[0]} elements, the graph reads {need}")
            arr = flat[p.offset + np.arange(r)[:, None] * p.stride + np.arange(c)[None, :]]
        if p.shift:
            arr = arr - p.shift
        dt = DTYPES[p.dtype]
        if dt.kind == "i":
            info = np.iinfo(dt)
            if arr.size and (arr.min() < info.min or arr.max() > info.max):
                raise ContractError(f"{p.name}: values outside {p.dtype}")
        out.append(np.asarray(arr).astype(dt))
    return out


def no_wrap(g: Graph, inputs: Sequence[np.ndarray]) -> bool:
    """Whether no integer node of ``g`` can wrap on ``inputs`` (an upper bound of each node's
    magnitude from the inputs' largest ones), so the graph's value is the exact integer one."""
    bound: dict[int, float] = {}
    for k, i in enumerate(g.parameters):
        x = np.asarray(inputs[k])
        bound[i] = float(np.max(np.abs(x.astype(np.float64)))) if x.size else 0.0
    for i in g.live():
        n = g.nodes[i]
        ops = [bound[o] for o in n.operands]
        match n.op:
            case "parameter":
                continue
            case "constant":
                b = max((abs(float(v)) for v in n.attrs[0]), default=0.0)
            case "add":
                b = ops[0] + ops[1]
            case "dot":
                b = ops[0] * ops[1] * g.nodes[n.operands[0]].shape[1]
            case "reduce_add":
                shape = g.nodes[n.operands[0]].shape
                b = ops[0] * float(np.prod([shape[d] for d in n.attrs[0]]))
            case _:  # broadcast, slice, reshape, transpose, concatenate, convert, divide
                b = max(ops, default=0.0)
        bound[i] = b
        dt = DTYPES[n.dtype]
        if dt.kind == "i" and b > np.iinfo(dt).max:
            return False
    return True


def result_value(e: Exported, out: np.ndarray) -> Any:
    """A graph's result as the TensIR interpreter's value (Python scalar; int64 / float64
    array)."""
    if e.scalar:
        x = np.asarray(out).reshape(())
        return float(x) if x.dtype.kind == "f" else int(x)
    return np.asarray(out).astype(np.float64 if out.dtype.kind == "f" else np.int64).ravel()


# ---------------------------------------------------------------- a whole kernel


@dataclass(frozen=True)
class RunnerSpec:
    """What :class:`PlanRunner` needs (pickled into the ``hlo`` backend's runner module)."""

    plan: Plan
    size_names: tuple[str, ...]
    arrays: tuple[str, ...]
    #: C ``float`` arrays (and whether the return value is one): values stored into them are
    #: rounded to float32, as C's assignment does (the interpreter computes reals in float64)
    float32_arrays: tuple[str, ...] = ()
    float32_return: bool = False


class PlanRunner:
    """A kernel computed the way the exported HLO splits it: each device call, rebuilt at
    the sizes of the inputs, as a graph (:func:`tenspiler.act.graph.evaluate`) when it is
    exported and its inputs meet the contract, else by the TensIR interpreter (the host
    fallback, counted in ``fallbacks``); the host part by the TensIR interpreter."""

    def __init__(self, spec: RunnerSpec) -> None:
        self.spec = spec
        self.fallbacks = 0
        self.graph_calls = 0

    def run(self, inputs: Mapping[str, Any]) -> dict[str, Any]:
        """The final state ``{array: values, "return": value}`` for flat C ``inputs``."""
        spec = self.spec
        env: dict[str, Any] = dict(inputs)
        sizes = {n: int(inputs[n]) for n in spec.size_names if n in inputs}
        for call in spec.plan.calls:
            r = export_call(call, sizes)
            value: Any = None
            if isinstance(r, Exported):
                try:
                    vals = param_values(r, env)
                    if no_wrap(r.graph, vals):
                        value = result_value(r, evaluate(r.graph, vals))
                except ContractError:
                    value = None
            if value is None:
                self.fallbacks += 1
                value = interp.evaluate(call_term(call), env)
            else:
                self.graph_calls += 1
            env[call.name] = value
        state: dict[str, Any] = {"return": None}
        for name in spec.arrays:
            state[name] = np.array(inputs[name], copy=True)
        for op in spec.plan.outputs:
            if op.host_term is None:  # an affine call writes the output: its result
                value = env[op.calls[-1]]
            else:
                value = interp.evaluate(op.host_term, env)
            o = op.output
            if isinstance(o, ArrayOutput):
                lo, hi = interp.evaluate(o.lo, env), interp.evaluate(o.hi, env)
                arr = state[o.array]
                v = np.asarray(value).ravel()
                if o.array in spec.float32_arrays:
                    v = v.astype(np.float32)
                arr[lo:hi] = v
            elif isinstance(o, ScalarOutput):
                state["return"] = float(np.float32(value)) if spec.float32_return else value
        return state


def runner_spec(fn: Function, ps: ProgramSummary, plan: Plan) -> RunnerSpec:
    arrays = [p for p in fn.params if isinstance(p.type, PointerType)]
    return RunnerSpec(plan, tuple(size_parameters(fn, ps)), tuple(p.name for p in arrays),
                      tuple(p.name for p in arrays if p.elem == DType.FLOAT),
                      fn.return_dtype == DType.FLOAT)

