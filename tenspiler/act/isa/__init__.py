"""Accelerator ISA descriptions: a data model and instructions whose semantics are written once.

An :class:`IsaDescription` (in the style of TAIDL, PLDI'25 §3–§4, and Exo's ``@instr``
procedures, Exo thesis App. D) has

* a **data model**: on-chip buffers (:class:`BufferSpec`: rows × row width, element dtype) and
  control registers with their reset values; off-chip memory (HBM/DRAM) is a byte-addressed
  :class:`~tenspiler.act.oracle.Memory`;
* **instructions** (:class:`InstructionSpec`): a mnemonic, the C macro that issues it, its
  attributes in macro-argument order (:class:`Attr`), the controller that executes it
  (``"load"``, ``"execute"``, ``"store"`` queue, ``"none"`` for fences, ``"fsm"`` for an
  instruction a hardware state machine carries out by issuing others), a validity
  predicate and a *semantics body*: a Python function ``(state, **attrs) -> None`` that
  updates a :class:`~tenspiler.act.oracle.MachineState` with NumPy.

Everything else is derived from the description, not written per accelerator:

* the functional oracle (:class:`tenspiler.act.oracle.Oracle`) dispatches on the mnemonic
  and runs the semantics body;
* the assembly text format (:mod:`tenspiler.act.assembly`) prints and parses attributes by
  their kinds;
* the C recording header (:func:`tenspiler.act.record.recording_header`) defines every macro
  to record its mnemonic and arguments;
* the cost model (:mod:`tenspiler.act.cost`) reads each instruction's unit and the data it
  moves.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "Attr",
    "AttrKind",
    "BufferSpec",
    "Inst",
    "InstructionSpec",
    "IsaDescription",
    "IsaError",
    "Unit",
]

AttrKind = Literal["hbm", "local", "int", "float", "bool"]
Unit = Literal["load", "execute", "store", "none", "fsm"]


class IsaError(ValueError):
    """An instruction that violates its description (unknown mnemonic, wrong number of
    attributes, an attribute out of range, an address outside a buffer). The message names the
    instruction and its position in the program when known."""


@dataclass(frozen=True)
class BufferSpec:
    """An on-chip buffer: ``rows`` rows of ``width`` elements of ``dtype`` (a NumPy dtype name),
    row-addressed."""

    name: str
    rows: int
    width: int
    dtype: str
    doc: str = ""


@dataclass(frozen=True)
class Attr:
    """One instruction attribute (a C macro argument).

    ``kind``: ``"hbm"`` (a byte address in off-chip memory; printed in hex), ``"local"`` (a
    32-bit on-chip row address with flag bits; printed in hex), ``"int"``, ``"float"``
    (printed as Python's shortest round-trip decimal: exact for float32 values), ``"bool"`` (0/1)."""

    name: str
    kind: AttrKind
    doc: str = ""


@dataclass(frozen=True)
class InstructionSpec:
    """One instruction of an ISA description.

    Attributes:
        name: assembly mnemonic (``"mvin"``).
        macro: the C macro that issues it (``"gemmini_extended_mvin"``); its arguments are
            :attr:`attrs` in order. ``fixed`` macro arguments that the instruction does not
            take from the program come after them (``fixed_args``).
        attrs: attributes in macro-argument order.
        unit: the controller / queue that executes it.
        semantics: ``semantics(state, **attrs)`` — the instruction's effect on the machine
            state; raises :class:`IsaError` on an invalid use.
        doc: what it does, in words.
        fixed_args: extra macro arguments with fixed values (e.g. ``gemmini_config_st`` has
            none; ``gemmini_extended_config_st``'s pooling arguments are all 0).
        expand: for an ``"fsm"`` instruction, ``expand(fsm, **attrs)`` — the instructions of
            the same description the state machine issues, in its order, given its register
            state ``fsm`` (a dict it updates: which buffer halves the next call uses). The
            semantics body runs exactly these (so the oracle and the cost model, which times
            them, see one expansion).
    """

    name: str
    macro: str
    attrs: tuple[Attr, ...]
    unit: Unit
    semantics: Callable[..., None]
    doc: str = ""
    fixed_args: tuple[int, ...] = ()
    expand: Callable[..., list[Inst]] | None = None

    @property
    def attr_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.attrs)


@dataclass(frozen=True)
class Inst:
    """One instruction of a program: a mnemonic and its attribute values (macro order)."""

    name: str
    args: tuple[int | float, ...]

    def __str__(self) -> str:
        return f"{self.name} {', '.join(map(str, self.args))}"


@dataclass(frozen=True)
class IsaDescription:
    """A whole accelerator ISA.

    Attributes:
        name: ``"gemmini"``.
        params: the generator parameters (``{"dim": 16, "config": "int8"}``).
        buffers: on-chip buffers by name.
        registers: control registers and their reset values (copied into each new state).
        instructions: by mnemonic, in the order they are documented.
        types: element types by role (``{"input": "int8", "acc": "int32"}``).
        doc: prose: addressing, rounding and saturation rules, sources.
    """

    name: str
    params: Mapping[str, Any]
    buffers: Mapping[str, BufferSpec]
    registers: Mapping[str, Any]
    instructions: Mapping[str, InstructionSpec]
    types: Mapping[str, str] = field(default_factory=dict)
    doc: str = ""

    def spec(self, name: str) -> InstructionSpec:
        """The instruction called ``name``.

        Raises:
            IsaError: no such instruction.
        """
        try:
            return self.instructions[name]
        except KeyError:
            known = ", ".join(self.instructions)
            raise IsaError(f"{self.name} has no instruction {name!r} (known: {known})") from None

    def bind(self, inst: Inst) -> dict[str, int | float]:
        """The attributes of ``inst`` by name, checked against the instruction's arity and
        attribute kinds.

        Raises:
            IsaError: unknown mnemonic, wrong number of attributes, a non-integer value for
                an integer attribute.
        """
        spec = self.spec(inst.name)
        if len(inst.args) != len(spec.attrs):
            raise IsaError(f"{inst.name} takes {len(spec.attrs)} attributes ({', '.join(spec.attr_names)}), got {len(inst.args)}")
        out: dict[str, int | float] = {}
        for a, v in zip(spec.attrs, inst.args, strict=True):
            if a.kind != "float" and (isinstance(v, float) and not v.is_integer()):
                raise IsaError(f"{inst.name}: attribute {a.name} must be an integer, got {v!r}")
            out[a.name] = float(v) if a.kind == "float" else int(v)
        return out
