"""Module 6 (code emitter, ACT §6.3): concrete instructions → the lower ISA's instruction
stream, assembly text and C.

* :func:`lower` expands each concrete tensor instruction with the description's ``expand``
  and issues a configuration instruction only when the register does not already hold the
  needed value (the emitter's register view starts empty: nothing is assumed about reset
  values). The description's ``prologue``/``epilogue`` (Gemmini: ``fence``) frame the stream.
* :func:`relocate` rewrites a program's HBM start and stride attributes over run-time
  pointers, origins and strides (:class:`RegionRef` per region): every HBM address is
  decoded into (region, row, column) of the layout; on-chip addresses, α and the order stay
  the validated program's. The middle end (:mod:`tenspiler.act.tiling`) uses it per block;
* :func:`to_proc` makes the (relocated) stream a straight-line device procedure
  (:class:`~tenspiler.act.schedule.Proc`) whose HBM addresses are its pointer
  parameters plus offsets, so that the same object prints as C with the ``gemmini.h`` macros
  (:func:`~tenspiler.act.schedule.render_c`) and runs in Python to the instruction
  stream (:func:`~tenspiler.act.schedule.run_proc`) — the pair the C recording
  check compares.
* :func:`assembly_text` and :func:`c_text` print a program; the output depends only on the
  program (byte-identical for identical input).

Descriptions without a lower ISA print their tensor instructions (``name [α] (β)``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tenspiler.act import assembly
from tenspiler.act.graph import DTYPES
from tenspiler.act.isa import Inst
from tenspiler.act.pii import Program, Region
from tenspiler.act.schedule import E, Instr, Param, Proc, render_c, var
from tenspiler.act.tensor_isa import Config, TensorIsa, TInst

__all__ = ["RegionRef", "add", "assembly_text", "c_text", "lower", "mul", "regions", "relocate", "to_proc"]

_CTYPES = {"s8": "int8_t", "s32": "int32_t", "f32": "float"}


def lower(isa: TensorIsa, instructions: Sequence[TInst], *, frame: bool = True,
          regs: dict[Any, Any] | None = None) -> tuple[Inst, ...]:
    """The lower ISA's instructions for ``instructions`` (see the module docstring); without
    the prologue/epilogue when ``frame`` is false. ``regs``: the emitter's register view to
    start from (empty: nothing assumed); attribute values may be
    :class:`~tenspiler.act.schedule.E` expressions (relocated programs).

    Raises:
        ValueError: ``isa`` has no ``expand``."""
    if isa.expand is None:
        raise ValueError(f"{isa.name} has no lower ISA")
    regs = {} if regs is None else regs
    out: list[Inst] = list(isa.prologue) if frame else []
    for inst in instructions:
        for item in isa.expand(inst, regs):
            if isinstance(item, Config):
                if regs.get(item.key) != item.value:
                    out.append(item.setter)
                    regs[item.key] = item.value
            else:
                out.append(item)
    if frame:
        out += isa.epilogue
    return tuple(out)


def regions(program: Program) -> list[tuple[str, Region, bool]]:
    """``(pointer name, region, written)`` for the inputs, the output and the constants, in
    that order (the procedure's parameters)."""
    out = [(r.name, r, False) for r in program.layout.inputs]
    out.append((program.layout.output.name, program.layout.output, True))
    out += [(f"const{k}", r, False) for k, (_, r) in enumerate(program.layout.constants)]
    return out


@dataclass(frozen=True)
class RegionRef:
    """Where a block kernel's region lives at run time: element ``(r, c)`` of the region is at
    ``ptr + ((row0 + r) · stride + col0 + c) · itemsize`` (``stride`` in elements)."""

    ptr: E | int
    row0: E | int
    col0: E | int
    stride: E | int


def add(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    return b if isinstance(a, int) and a == 0 else a if isinstance(b, int) and b == 0 else a + b


def mul(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    if isinstance(a, int) and a in (0, 1):
        return 0 if a == 0 else b
    if isinstance(b, int) and b in (0, 1):
        return 0 if b == 0 else a
    return a * b


def _decode(layout_regions: Sequence[Region], addr: int) -> tuple[Region, int, int]:
    for r in layout_regions:
        if r.start <= addr < r.end:
            off = addr - r.start
            row, rem = divmod(off, r.stride)
            item = DTYPES[r.dtype].itemsize
            if rem % item or rem // item >= r.cols:
                break
            return r, row, rem // item
    raise ValueError(f"HBM address {addr} is not an element of any region")


def relocate(isa: TensorIsa, program: Program, refs: Mapping[str, RegionRef]) -> list[TInst]:
    """``program``'s tensor instructions with HBM start and stride attributes rewritten over
    ``refs`` (region name → where it lives at run time); see the module docstring.

    Raises:
        ValueError: an HBM address outside the regions, a stride attribute that is not its
            region's, or a region without a reference (a constant section: not supported)."""
    lay = program.layout
    regions = [*lay.inputs, lay.output, *(r for _, r in lay.constants)]
    out = []
    for inst in program.instructions:
        spec = isa.instruction(inst.name)
        beta: dict[str, Any] = dict(zip(spec.beta, inst.beta, strict=True))
        new = dict(beta)
        for s in (spec.output, *spec.inputs):
            if not isa.buffer(s.buffer).hbm:
                continue
            region, row, col = _decode(regions, beta[s.start])
            if region.name not in refs:
                raise ValueError(f"region {region.name} has no run-time reference")
            ref = refs[region.name]
            item = DTYPES[region.dtype].itemsize
            new[s.start] = add(ref.ptr, mul(add(add(mul(add(ref.row0, row), ref.stride), ref.col0), col), item))
            if s.stride is not None:
                if beta[s.stride] != region.stride:
                    raise ValueError(f"{inst}: stride {beta[s.stride]} is not region {region.name}'s {region.stride}")
                new[s.stride] = mul(ref.stride, item)
        out.append(TInst(inst.name, inst.alpha, tuple(new[b] for b in spec.beta)))
    return out


def to_proc(isa: TensorIsa, program: Program, name: str) -> Proc:
    """``program`` as a straight-line :class:`Proc` (lowered, framed) whose HBM attributes are
    its pointer parameters plus offsets (:func:`relocate` with each region at its pointer).

    Raises:
        ValueError: ``isa`` has no lower ISA, or an HBM address outside every region."""
    if program.lowered is None:
        raise ValueError(f"{isa.name} programs have no lower ISA stream")
    regs = regions(program)
    params = tuple(Param(p, "ptr", _CTYPES[r.dtype], written=w) for p, r, w in regs)
    refs = {r.name: RegionRef(var(p), 0, 0, r.stride // DTYPES[r.dtype].itemsize) for p, r, _ in regs}
    body = tuple(Instr(i.name, i.args) for i in lower(isa, relocate(isa, program, refs), regs={"hbm_base": 0}))
    doc = f"{name}: {len(program.instructions)} tensor instructions, {len(body)} {isa.name} instructions (ACT backend)"
    return Proc(name, params, body, doc)


def _c_array(name: str, region: Region, data: bytes) -> str:
    vals = np.frombuffer(data, dtype=DTYPES[region.dtype])
    body = ", ".join(repr(float(v)) + "f" if region.dtype == "f32" else str(int(v)) for v in vals)
    return f"static const {_CTYPES[region.dtype]} {name}[{vals.size}] = {{{body}}};"


def c_text(isa: TensorIsa, program: Program, name: str) -> str:
    """A C file: the constant section as static arrays, the device procedure issuing the
    ``gemmini.h`` macros, and ``void name(inputs…, output)`` calling it. Row-major, dense
    arrays; the pointers' targets must not overlap."""
    proc = to_proc(isa, program, f"{name}_device")
    regs = regions(program)
    lines = [f"/* generated by tenspiler's ACT backend for {isa.name}: {name} */", "#include <stdint.h>",
             '#include "gemmini.h"', "#ifndef TENSPILER_PROC", "#define TENSPILER_PROC(...) ((void)0)", "#endif", ""]
    for k, (_addr, data) in enumerate(program.constants):
        _, r, _ = regs[len(program.layout.inputs) + 1 + k]
        lines.append(_c_array(f"{name}_const{k}", r, data))
    lines.append(render_c(proc, isa.lower))
    outer = [f"{'' if w else 'const '}{_CTYPES[r.dtype]} *{p}" for p, r, w in regs if not p.startswith("const")]
    call = [p if not p.startswith("const") else f"{name}_{p}" for p, _, _ in regs]
    lines.append(f"void {name}({', '.join(outer)}) {{\n    {proc.name}({', '.join(call)});\n}}\n")
    return "\n".join(lines)


def assembly_text(isa: TensorIsa, program: Program, hbm_base: int = 0) -> str:
    """The program as assembly: the lower ISA's format (:mod:`tenspiler.act.assembly`) with
    ``.region`` lines for inputs, output and constants, or the tensor instructions."""
    regs = regions(program)
    if program.lowered is not None:
        rs = [assembly.Region(p, hbm_base + r.start, r.end - r.start, r.dtype) for p, r, _ in regs]
        return assembly.format_program(isa.lower, program.lowered, rs, comment=f"ACT backend: {isa.name}")
    lines = [f"; ACT backend: {isa.name}", f".isa {isa.name}"]
    lines += [f".region {p} {r.start:#x} {r.end - r.start} {r.dtype}" for p, r, _ in regs]
    lines += [str(i) for i in program.instructions]
    return "\n".join(lines) + "\n"
