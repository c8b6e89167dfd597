"""Tensor-level ISA descriptions in ACT's format (ACT §3.2–§3.3, Def. 1–6).

An accelerator is a set of **tensor buffers** (:class:`TensorBuffer`: rows × row width of one
dtype; the HBM is the byte-addressed buffer ``d0``) and **abstract instructions**
(:class:`TensorInstruction`). An abstract instruction θ has

* computational attributes α (:attr:`TensorInstruction.alpha`, each with an inclusive range):
  they fix the tensor computation — e.g. the rows ``n`` and columns ``c`` of a tile;
* addressing attributes β (:attr:`TensorInstruction.beta`): where its operand and output data
  slices lie (start rows / byte addresses, HBM row strides);
* data slices h_θ^(i) (:class:`Slice`): for the output (i = 0) and each operand, the buffer,
  the start (a β attribute), the rows and columns (an α attribute or a constant) and, in HBM,
  the row stride (a β attribute) and the element dtype;
* the abstract tensor computation g_θ(α) (:class:`Term`): a term over the operand tensors
  ``x1 … xn`` built from the operators of :mod:`tenspiler.act.graph`;
* the validity constraint e_θ(α, β): the α ranges, every slice inside its buffer, and the
  equalities :attr:`TensorInstruction.same` (an in-place update reads and writes the same
  rows).

A concrete instruction (:class:`TInst`) is θ with α and β fixed. Its execution (Def. 6) reads
the operand slices, evaluates g_θ(α) with :func:`tenspiler.act.graph.apply` — the single
definition of the operators' arithmetic — and writes the output slice. That is the **term
oracle** (:class:`TermOracle`), generated from the description for every accelerator.

A description may also give an ``expand`` function: the sequence of instructions of a lower
ISA (:mod:`tenspiler.act.isa`) that implements each concrete instruction, with the
configuration registers it needs (:class:`Config`). Gemmini's tensor-level view
(:mod:`tenspiler.act.gemmini_tensor`) expands to the ``gemmini.h`` instructions of
:mod:`tenspiler.act.isa.gemmini`; tests tie the two semantics together on random data.

Slices of on-chip buffers are 2-D windows ``buffer[start:start + rows, :cols]`` (a value owns
its rows); HBM slices are strided windows of ``rows`` rows of ``cols`` elements of ``dtype``,
``stride`` bytes apart, starting at byte ``start``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tenspiler.act.graph import DTYPES, Node, apply

__all__ = [
    "Config",
    "Slice",
    "TInst",
    "TensorBuffer",
    "TensorInstruction",
    "TensorIsa",
    "TensorIsaError",
    "Term",
    "TermOracle",
    "x",
]


class TensorIsaError(ValueError):
    """A concrete instruction that violates its description: an attribute out of range, a
    slice outside its buffer, a broken in-place equality, or an unknown instruction."""


@dataclass(frozen=True)
class TensorBuffer:
    """A tensor buffer (ACT Def. 1): ``rows`` rows of ``width`` elements of ``dtype`` (a
    :data:`~tenspiler.act.graph.DTYPES` name). The HBM has ``hbm=True``: byte-addressed,
    ``rows`` bytes, ``width`` 1."""

    name: str
    rows: int
    width: int
    dtype: str
    hbm: bool = False
    doc: str = ""


Dim = int | str  # a constant, or the name of an α attribute


@dataclass(frozen=True)
class Slice:
    """A data slice h_θ^(i): ``buffer`` rows ``[start, start + rows)``, columns ``[0, cols)``.

    ``start`` names a β attribute; ``rows`` and ``cols`` are constants or α attribute names.
    In the HBM, ``stride`` names the β attribute holding the row stride in bytes and
    ``dtype`` the elements' type (on-chip slices have their buffer's dtype)."""

    buffer: str
    start: str
    rows: Dim
    cols: Dim
    stride: str | None = None
    dtype: str | None = None


@dataclass(frozen=True)
class Term:
    """A node of an abstract tensor computation g_θ: an operator of
    :mod:`tenspiler.act.graph` applied to sub-terms, or the operand ``x{i}`` (``op ==
    "input"``, ``attrs == (i,)``, 1-based). ``dtype`` is the result dtype (``None``: the first
    operand's)."""

    op: str
    args: tuple[Term, ...] = ()
    attrs: tuple[Any, ...] = ()
    dtype: str | None = None

    def inputs(self) -> set[int]:
        if self.op == "input":
            return {self.attrs[0]}
        out: set[int] = set()
        for a in self.args:
            out |= a.inputs()
        return out

    def __str__(self) -> str:
        if self.op == "input":
            return f"x{self.attrs[0]}"
        inner = ", ".join(map(str, self.args))
        extra = f"<{self.dtype}>" if self.op == "convert" else ""
        return f"{self.op}{extra}({inner})"


def x(i: int) -> Term:
    """The operand ``x{i}`` of an abstract tensor computation (1-based)."""
    return Term("input", (), (i,))


@dataclass(frozen=True)
class Config:
    """A configuration a lower-level instruction needs: register ``key`` must hold ``value``;
    if it does not, the emitter issues ``setter`` first (and records the new value)."""

    key: Any
    value: Any
    setter: Any  # tenspiler.act.isa.Inst


@dataclass(frozen=True)
class TensorInstruction:
    """An abstract instruction θ (ACT Def. 4). See the module docstring.

    Attributes:
        name: mnemonic.
        alpha: computational attributes: name → inclusive range ``(lo, hi)``.
        beta: addressing attributes, in printing order.
        output: h_θ^(0), the slice written.
        inputs: h_θ^(1..n), the slices read.
        semantics: g_θ over ``x1 … xn``.
        same: pairs of β attributes that must be equal (in-place updates).
        cost: the instruction's cost in the extraction's cost model (lower is better).
        doc: what it does, in words.
    """

    name: str
    alpha: tuple[tuple[str, tuple[int, int]], ...]
    beta: tuple[str, ...]
    output: Slice
    inputs: tuple[Slice, ...]
    semantics: Term
    same: tuple[tuple[str, str], ...] = ()
    cost: float = 1.0
    doc: str = ""

    @property
    def alpha_names(self) -> tuple[str, ...]:
        return tuple(a for a, _ in self.alpha)


@dataclass(frozen=True)
class TInst:
    """A concrete tensor instruction θ(α, β): values for every α and β attribute, in the
    description's order."""

    name: str
    alpha: tuple[int, ...]
    beta: tuple[int, ...]

    def __str__(self) -> str:
        return f"{self.name} [{', '.join(map(str, self.alpha))}] ({', '.join(map(str, self.beta))})"


@dataclass(frozen=True)
class TensorIsa:
    """A tensor-level accelerator description: buffers (the first is the HBM) and abstract
    instructions; optionally ``expand(inst, ctx) -> list[Config | Inst]``, the lower ISA's
    instructions implementing a concrete instruction (``lower``: that ISA's
    :class:`~tenspiler.act.isa.IsaDescription`), and ``prologue``/``epilogue`` lower
    instructions every program starts / ends with."""

    name: str
    buffers: tuple[TensorBuffer, ...]
    instructions: tuple[TensorInstruction, ...]
    expand: Callable[..., list[Any]] | None = None
    lower: Any = None
    prologue: tuple[Any, ...] = ()
    epilogue: tuple[Any, ...] = ()
    doc: str = ""
    _by_name: dict[str, TensorInstruction] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._by_name.update({i.name: i for i in self.instructions})
        if not self.buffers or not self.buffers[0].hbm:
            raise TensorIsaError(f"{self.name}: the first buffer must be the HBM")

    @property
    def hbm(self) -> TensorBuffer:
        return self.buffers[0]

    def buffer(self, name: str) -> TensorBuffer:
        for b in self.buffers:
            if b.name == name:
                return b
        raise TensorIsaError(f"{self.name}: no buffer {name!r}")

    def instruction(self, name: str) -> TensorInstruction:
        try:
            return self._by_name[name]
        except KeyError:
            raise TensorIsaError(f"{self.name}: unknown instruction {name!r}") from None

    @property
    def tile(self) -> int:
        """The largest tile edge every row/column α attribute accepts: the granularity of the
        IR→IR tiling rules (ACT §5.2.1: rules tailored to the ISA)."""
        his = [hi for ins in self.instructions for a, (lo, hi) in ins.alpha
               if any(a in (s.rows, s.cols) for s in (ins.output, *ins.inputs))]
        return min(his) if his else 1


# ---------------------------------------------------------------------- concrete instructions


@dataclass(frozen=True)
class Window:
    """A concrete data slice: ``buffer`` rows ``[start, start + rows)``, columns ``[0, cols)``;
    HBM windows have a byte ``stride`` and an element ``dtype``."""

    buffer: str
    start: int
    rows: int
    cols: int
    dtype: str
    stride: int = 0

    def byte_ranges(self) -> list[tuple[int, int]]:
        """HBM windows: the ``[lo, hi)`` byte range of each row."""
        size = DTYPES[self.dtype].itemsize
        return [(self.start + r * self.stride, self.start + r * self.stride + self.cols * size) for r in range(self.rows)]


def _dim(d: Dim, alpha: Mapping[str, int]) -> int:
    return d if isinstance(d, int) else alpha[d]


def bind(isa: TensorIsa, inst: TInst) -> tuple[TensorInstruction, dict[str, int], dict[str, int]]:
    """``(θ, α, β)`` of a concrete instruction, checked against e_θ.

    Raises:
        TensorIsaError: unknown instruction, wrong attribute count, or e_θ false.
    """
    spec = isa.instruction(inst.name)
    if len(inst.alpha) != len(spec.alpha) or len(inst.beta) != len(spec.beta):
        raise TensorIsaError(f"{inst}: {spec.name} takes {len(spec.alpha)} α and {len(spec.beta)} β attributes")
    alpha = dict(zip(spec.alpha_names, inst.alpha, strict=True))
    beta = dict(zip(spec.beta, inst.beta, strict=True))
    for a, (lo, hi) in spec.alpha:
        if not lo <= alpha[a] <= hi:
            raise TensorIsaError(f"{inst}: {a} = {alpha[a]} outside [{lo}, {hi}]")
    for p, q in spec.same:
        if beta[p] != beta[q]:
            raise TensorIsaError(f"{inst}: {p} must equal {q} (in-place update)")
    for s in (spec.output, *spec.inputs):
        window(isa, s, alpha, beta, str(inst))
    return spec, alpha, beta


def window(isa: TensorIsa, s: Slice, alpha: Mapping[str, int], beta: Mapping[str, int], what: str = "") -> Window:
    """The concrete window of slice ``s`` under α, β; checked to lie inside its buffer.

    Raises:
        TensorIsaError: the window leaves the buffer, or has more columns than a row."""
    buf = isa.buffer(s.buffer)
    rows, cols, start = _dim(s.rows, alpha), _dim(s.cols, alpha), beta[s.start]
    if buf.hbm:
        dtype = s.dtype or "s8"
        stride = beta[s.stride] if s.stride else cols * DTYPES[dtype].itemsize
        w = Window(buf.name, start, rows, cols, dtype, stride)
        lo = min(r[0] for r in w.byte_ranges())
        hi = max(r[1] for r in w.byte_ranges())
        if lo < 0 or hi > buf.rows or stride < 0:
            raise TensorIsaError(f"{what}: HBM window [{lo}, {hi}) outside [0, {buf.rows})")
        return w
    if start < 0 or start + rows > buf.rows or cols > buf.width:
        raise TensorIsaError(f"{what}: {buf.name} rows [{start}, {start + rows}) × {cols} cols outside "
                             f"{buf.rows} × {buf.width}")
    return Window(buf.name, start, rows, cols, buf.dtype)


def term_shape_eval(term: Term, args: Sequence[np.ndarray], shape: Sequence[int] | None = None) -> np.ndarray:
    """Evaluate g_θ on operand values ``args`` (``x1`` is ``args[0]``) with
    :func:`tenspiler.act.graph.apply`.

    ``shape`` is the result's shape where the term alone does not fix it: a ``broadcast``
    takes the shape of its consumer — the other operand of an elementwise ``add``/``divide``,
    or (at the root) the instruction's output slice.

    Raises:
        tenspiler.act.graph.GraphError: a value outside the operators' defined arithmetic.
        TensorIsaError: a ``broadcast`` whose result shape is unknown, or elementwise operands
            of different shapes."""
    if term.op == "input":
        return args[term.attrs[0] - 1]
    if term.op in ("add", "divide"):
        known = [None if a.op == "broadcast" else term_shape_eval(a, args) for a in term.args]
        hint = next((v.shape for v in known if v is not None), shape)
        vals = [v if v is not None else term_shape_eval(a, args, hint) for a, v in zip(term.args, known, strict=True)]
        if len({v.shape for v in vals}) > 1:
            raise TensorIsaError(f"{term.op}: operand shapes {[v.shape for v in vals]} differ")
    else:
        vals = [term_shape_eval(a, args) for a in term.args]
    dtype = term.dtype or vals[0].dtype.name
    dtype = {"int8": "s8", "int32": "s32", "float32": "f32"}.get(dtype, dtype)
    if term.op == "broadcast":
        if shape is None:
            raise TensorIsaError(f"{term}: the result shape of a broadcast is not known here")
        out_shape = tuple(shape)
    else:
        out_shape = _result_shape(term, vals)
    return apply(Node(term.op, dtype, out_shape, tuple(range(len(vals))), term.attrs), vals)


def _result_shape(term: Term, vals: Sequence[np.ndarray]) -> tuple[int, ...]:
    op = term.op
    if op == "dot":
        return (vals[0].shape[0], vals[1].shape[1])
    if op == "transpose":
        return tuple(vals[0].shape[p] for p in term.attrs[0])
    if op == "slice":
        return tuple(e - s for s, e in zip(*term.attrs, strict=True))
    if op == "reduce_add":
        return tuple(s for d, s in enumerate(vals[0].shape) if d not in term.attrs[0]) or (1,)
    if op == "concatenate":
        shape = list(vals[0].shape)
        shape[term.attrs[0]] = sum(v.shape[term.attrs[0]] for v in vals)
        return tuple(shape)
    return tuple(vals[0].shape)


# ---------------------------------------------------------------------- the term oracle


class TermOracle:
    """The functional oracle generated from a :class:`TensorIsa` (ACT Def. 6): the memory
    state is the HBM (a byte array) plus one array per on-chip buffer; a concrete
    instruction reads its operand windows, evaluates g_θ(α) and writes its output window.

    Args:
        isa: the description.
        hbm_bytes: size of the HBM model (bytes; at most the HBM buffer's size).

    Raises (from :meth:`run`):
        TensorIsaError: an instruction violating its description.
    """

    def __init__(self, isa: TensorIsa, hbm_bytes: int | None = None) -> None:
        self.isa = isa
        self.hbm = np.zeros(hbm_bytes if hbm_bytes is not None else isa.hbm.rows, dtype=np.uint8)
        self.buffers = {b.name: np.zeros((b.rows, b.width), dtype=DTYPES[b.dtype]) for b in isa.buffers[1:]}

    def read(self, w: Window) -> np.ndarray:
        if w.buffer == self.isa.hbm.name:
            dt = DTYPES[w.dtype]
            rows = []
            for lo, hi in w.byte_ranges():
                if hi > self.hbm.size:
                    raise TensorIsaError(f"HBM read [{lo}, {hi}) outside the modelled {self.hbm.size} bytes")
                rows.append(self.hbm[lo:hi].view(dt))
            return np.stack(rows).copy()
        return self.buffers[w.buffer][w.start:w.start + w.rows, :w.cols].copy()

    def write(self, w: Window, value: np.ndarray) -> None:
        if value.shape != (w.rows, w.cols):
            raise TensorIsaError(f"result shape {value.shape} does not fit the {w.rows}×{w.cols} output slice")
        if w.buffer == self.isa.hbm.name:
            data = value.astype(DTYPES[w.dtype])
            for r, (lo, hi) in enumerate(w.byte_ranges()):
                if hi > self.hbm.size:
                    raise TensorIsaError(f"HBM write [{lo}, {hi}) outside the modelled {self.hbm.size} bytes")
                self.hbm[lo:hi] = data[r].view(np.uint8)
            return
        buf = self.buffers[w.buffer]
        buf[w.start:w.start + w.rows, :w.cols] = value.astype(buf.dtype)

    def step(self, inst: TInst) -> None:
        spec, alpha, beta = bind(self.isa, inst)
        args = [self.read(window(self.isa, s, alpha, beta)) for s in spec.inputs]
        out = window(self.isa, spec.output, alpha, beta)
        self.write(out, term_shape_eval(spec.semantics, args, (out.rows, out.cols)))

    def run(self, program: Sequence[TInst]) -> None:
        for k, inst in enumerate(program):
            try:
                self.step(inst)
            except TensorIsaError as e:
                raise TensorIsaError(f"instruction {k}: {e}") from None
