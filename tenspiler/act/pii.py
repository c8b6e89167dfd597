"""pii graphs (ACT §4.2, Def. 13) and compiled programs: the interface between instruction
selection (:mod:`tenspiler.act.select`), memory allocation (:mod:`tenspiler.act.allocate`),
code emission (:mod:`tenspiler.act.emit`) and the validator (:mod:`tenspiler.act.validate`).

A :class:`PiiGraph` is a DAG of :class:`PiiNode` s in topological order. Every node is a
2-D value (``rows × cols`` of ``dtype``) that lives in one buffer:

* ``param`` — an input tensor, in HBM at its fixed address (:class:`HbmLayout`);
* ``const`` — a compile-time constant, placed in HBM after the output (ACT §5.3);
* ``pii`` — a partially instantiated instruction θ_{α,?}: ``inst`` with its α values fixed;
  its operands are the values its input slices hold, in the description's order, and it
  owns the rows it writes;
* ``slice`` — the identity instruction slice^H (ACT §5.2.3): rows ``[r0, r0 + rows)`` and
  columns ``[c0, c0 + cols)`` of its operand, in the operand's buffer, no data moved;
* ``concat`` — the identity instruction concat^H along ``dim`` (0 rows, 1 columns): its
  operands must lie adjacent in one buffer; no data moved.

On-chip, a value at start row ``s`` occupies rows ``[s, s + rows)``, columns ``[0, cols)``,
so on-chip slices keep ``c0 == 0`` and on-chip concatenation is along rows. In HBM a value is
a strided window (start byte, row stride in bytes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tenspiler.act.graph import DTYPES
from tenspiler.act.tensor_isa import TInst

__all__ = ["Allocation", "HbmLayout", "PiiGraph", "PiiNode", "Program", "Region"]


@dataclass(frozen=True)
class PiiNode:
    """One node of a pii graph (see the module docstring).

    Attributes:
        kind: ``"param"``, ``"const"``, ``"pii"``, ``"slice"`` or ``"concat"``.
        buffer: the buffer holding the value.
        rows, cols, dtype: the value's 2-D shape and element type.
        operands: ids of operand nodes (smaller ids).
        inst: the instruction mnemonic (``pii`` only).
        alpha: the α values in the description's order (``pii`` only).
        attrs: ``param``: ``(name,)``; ``const``: ``(values,)`` row-major; ``slice``:
            ``(r0, c0)``; ``concat``: ``(dim,)``.
    """

    kind: str
    buffer: str
    rows: int
    cols: int
    dtype: str
    operands: tuple[int, ...] = ()
    inst: str | None = None
    alpha: tuple[int, ...] = ()
    attrs: tuple[Any, ...] = ()

    @property
    def nbytes(self) -> int:
        return self.rows * self.cols * DTYPES[self.dtype].itemsize


@dataclass(frozen=True)
class PiiGraph:
    """A pii graph: ``nodes`` in topological order, ``root`` the output (in HBM)."""

    nodes: tuple[PiiNode, ...]
    root: int

    def __len__(self) -> int:
        return len(self.nodes)

    def __str__(self) -> str:
        out = []
        for i, n in enumerate(self.nodes):
            what = n.inst if n.kind == "pii" else n.kind
            alpha = f"[{', '.join(map(str, n.alpha))}]" if n.kind == "pii" else ""
            attrs = f" {n.attrs}" if n.kind in ("param", "slice", "concat") else ""
            ops = ", ".join(f"%{o}" for o in n.operands)
            mark = "ROOT " if i == self.root else ""
            out.append(f"{mark}%{i} = {n.buffer}:{n.dtype}[{n.rows},{n.cols}] {what}{alpha}({ops}){attrs}")
        return "\n".join(out)


@dataclass(frozen=True)
class Region:
    """A dense row-major tensor in HBM: ``rows × cols`` of ``dtype`` at byte ``start``, rows
    ``stride`` bytes apart."""

    name: str
    start: int
    rows: int
    cols: int
    dtype: str
    stride: int

    @property
    def end(self) -> int:
        """One past the last byte."""
        return self.start + (self.rows - 1) * self.stride + self.cols * DTYPES[self.dtype].itemsize


@dataclass(frozen=True)
class HbmLayout:
    """Where the inputs, the output and the constants live in HBM (ACT §3.4: the input tensors
    first, then the output, then the constant section). ``inputs`` in parameter order;
    ``constants``: one region per ``const`` node id."""

    inputs: tuple[Region, ...]
    output: Region
    constants: tuple[tuple[int, Region], ...] = ()

    @property
    def size(self) -> int:
        """Bytes of HBM the program touches (one past the last region)."""
        return max([r.end for r in self.inputs] + [self.output.end] + [r.end for _, r in self.constants])


@dataclass(frozen=True)
class Allocation:
    """The result of memory allocation: an order of the pii graph's nodes and, per node, its
    start (row, or HBM byte) and HBM row stride (0 on-chip); ``work``: CP-SAT deterministic
    time it took (its work units, not seconds; not part of the result's identity)."""

    order: tuple[int, ...]
    start: dict[int, int] = field(default_factory=dict)
    stride: dict[int, int] = field(default_factory=dict)
    work: float = field(default=0.0, compare=False)


@dataclass(frozen=True)
class Program:
    """A compiled program (ACT §3.4 ASM = instructions + constant data).

    Attributes:
        isa: the description's name.
        instructions: the concrete tensor instructions in order.
        layout: the HBM layout of inputs, output and constants.
        constants: ``(byte address, raw bytes)`` of the constant section.
        lowered: the lower ISA's instructions (``None`` if the description has no lower ISA).
        pii_graph: the selected pii graph (for reports).
        stats: compile statistics (seconds per phase, e-graph size, orders tried, ...).
    """

    isa: str
    instructions: tuple[TInst, ...]
    layout: HbmLayout
    constants: tuple[tuple[int, bytes], ...] = ()
    lowered: tuple[Any, ...] | None = None
    pii_graph: PiiGraph | None = None
    stats: dict[str, Any] = field(default_factory=dict, compare=False)
