"""The functional oracle generated from an ISA description.

:class:`Oracle` runs a program (a sequence of :class:`~tenspiler.act.isa.Inst`) against a
:class:`MachineState` — off-chip memory plus the description's buffers and registers — by
dispatching each instruction to the semantics body of its
:class:`~tenspiler.act.isa.InstructionSpec`. Nothing in this module knows an accelerator:
the buffers, registers, attribute decoding and semantics all come from the
:class:`~tenspiler.act.isa.IsaDescription` (TAIDL, PLDI'25 §5: test oracles generated from
the ISA description). The semantics bodies are NumPy, so one 16×16 tile (mvin, preload,
compute, mvout) takes tens of microseconds (``benchmarks/gemmini.py --oracle-speed``).

Off-chip memory is a :class:`Memory`: :class:`HbmBuffer` is a NumPy byte buffer with a base
address (the oracle's own HBM; addresses below ``base`` are invalid, so address 0 can mean
"no data" as in Gemmini's ``mvin``); :class:`ProcessMemory` reads and writes this process's
memory at raw pointers (the C recording harness runs instructions issued by compiled C code
on arrays it owns).
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from tenspiler.act.isa import Inst, IsaDescription, IsaError

__all__ = ["HbmBuffer", "MachineState", "Memory", "Oracle", "ProcessMemory"]


class Memory(Protocol):
    """Byte-addressed off-chip memory."""

    def read(self, addr: int, count: int, dtype: np.dtype) -> np.ndarray:
        """``count`` elements of ``dtype`` starting at byte address ``addr`` (a copy)."""
        ...

    def write(self, addr: int, values: np.ndarray) -> None:
        """Store ``values`` (its dtype, C order) at byte address ``addr``."""
        ...


class HbmBuffer:
    """An HBM of ``size`` bytes at byte addresses ``[base, base + size)``.

    Raises (on access):
        IsaError: an access outside the buffer.
    """

    def __init__(self, size: int, base: int = 0x1000) -> None:
        self.base = base
        self.data = np.zeros(size, dtype=np.uint8)

    def _range(self, addr: int, nbytes: int) -> slice:
        lo = addr - self.base
        if lo < 0 or lo + nbytes > self.data.size:
            raise IsaError(f"HBM access [{addr:#x}, {addr + nbytes:#x}) outside [{self.base:#x}, {self.base + self.data.size:#x})")
        return slice(lo, lo + nbytes)

    def read(self, addr: int, count: int, dtype: np.dtype) -> np.ndarray:
        dt = np.dtype(dtype)
        return self.data[self._range(addr, count * dt.itemsize)].view(dt).copy()

    def write(self, addr: int, values: np.ndarray) -> None:
        raw = np.ascontiguousarray(values).view(np.uint8).reshape(-1)
        self.data[self._range(addr, raw.size)] = raw

    def place(self, addr: int, values: np.ndarray) -> None:
        """Initialise memory at ``addr`` (the same as :meth:`write`)."""
        self.write(addr, values)


class ProcessMemory:
    """This process's memory at raw addresses (for instructions issued by compiled C code on
    buffers it allocated); no bounds checks beyond what the caller guarantees."""

    def read(self, addr: int, count: int, dtype: np.dtype) -> np.ndarray:
        dt = np.dtype(dtype)
        raw = ctypes.string_at(addr, count * dt.itemsize)
        return np.frombuffer(raw, dtype=dt).copy()

    def write(self, addr: int, values: np.ndarray) -> None:
        raw = np.ascontiguousarray(values).view(np.uint8).reshape(-1)
        ctypes.memmove(addr, raw.ctypes.data, raw.size)


@dataclass
class MachineState:
    """Off-chip memory, the description's buffers (``buffers[name]``: a ``rows × width``
    array of the buffer's dtype, zero at reset) and registers (``regs[name]``)."""

    isa: IsaDescription
    memory: Memory
    buffers: dict[str, np.ndarray] = field(default_factory=dict)
    regs: dict[str, Any] = field(default_factory=dict)
    #: number of instructions executed
    executed: int = 0

    @classmethod
    def reset(cls, isa: IsaDescription, memory: Memory) -> MachineState:
        bufs = {b.name: np.zeros((b.rows, b.width), dtype=b.dtype) for b in isa.buffers.values()}
        regs = {k: (dict(v) if isinstance(v, Mapping) else v) for k, v in isa.registers.items()}
        return cls(isa, memory, bufs, regs)


class Oracle:
    """Runs programs of ``isa`` instruction by instruction (bit-exact to the semantics bodies)."""

    def __init__(self, isa: IsaDescription) -> None:
        self.isa = isa
        self._dispatch = {name: spec.semantics for name, spec in isa.instructions.items()}

    def new_state(self, memory: Memory) -> MachineState:
        return MachineState.reset(self.isa, memory)

    def step(self, state: MachineState, inst: Inst) -> None:
        """Execute one instruction.

        Raises:
            IsaError: the instruction is invalid for the description (see
                :meth:`IsaDescription.bind`) or its semantics body rejects it.
        """
        attrs = self.isa.bind(inst)
        self._dispatch[inst.name](state, **attrs)
        state.executed += 1

    def run(self, program: Iterable[Inst], memory: Memory, state: MachineState | None = None) -> MachineState:
        """Execute ``program`` from reset (or from ``state``) and return the final state.

        Raises:
            IsaError: an invalid instruction; the message gives its index and text.
        """
        st = self.new_state(memory) if state is None else state
        for i, inst in enumerate(program):
            try:
                self.step(st, inst)
            except IsaError as e:
                raise IsaError(f"instruction {i} ({inst}): {e}") from None
        return st
