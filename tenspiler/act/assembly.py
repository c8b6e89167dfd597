"""The assembly text format of an ISA description ("Gemmini assembly" for Gemmini).

One instruction per line: the mnemonic, then its attributes in C-macro order separated by
commas. Attribute values are printed by kind (:class:`~tenspiler.act.isa.Attr`): ``hbm`` and
``local`` addresses in hex (``0x80000000``), integers in decimal, floats as Python's
shortest round-trip decimal (``1.0``, ``-0.5``; exact for float32 values), booleans as 0/1.
``;`` starts a comment. Directives start with ``.``::

    .isa gemmini dim=16 config=int8
    .region A 0x1000 256 int8        ; name, byte address, size in bytes, element type
    config_ld 16, 1.0, 0, 0
    mvin 0x1000, 0x0, 16, 16
    preload 0x0, 0x80000000, 16, 16, 16, 16
    compute_preloaded 0x10, 0xffffffff, 16, 16, 16, 16
    mvout 0x1100, 0xa0000000, 16, 16

``.region`` lines describe the off-chip data layout (inputs and outputs) so that a program
file can be run on its own; the oracle ignores them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tenspiler.act.isa import Inst, IsaDescription, IsaError

__all__ = ["AssemblyError", "Program", "Region", "format_program", "parse_program"]


class AssemblyError(IsaError):
    """Malformed assembly text; the message is ``line N: ...``."""


@dataclass(frozen=True)
class Region:
    """An off-chip data region: ``name`` at byte address ``addr``, ``size`` bytes of ``dtype``."""

    name: str
    addr: int
    size: int
    dtype: str


@dataclass(frozen=True)
class Program:
    """A program for one ISA: its parameters, data regions and instructions."""

    isa: str
    params: tuple[tuple[str, str], ...]
    regions: tuple[Region, ...]
    instructions: tuple[Inst, ...]


def _fmt(kind: str, v: int | float) -> str:
    if kind in ("hbm", "local"):
        return hex(int(v))
    if kind == "float":
        return repr(float(v))
    return str(int(v))


def format_program(isa: IsaDescription, instructions: Iterable[Inst], regions: Sequence[Region] = (), comment: str = "") -> str:
    """The assembly text of ``instructions`` (checked against ``isa``), with an ``.isa``
    header, ``.region`` lines and an optional leading comment.

    Raises:
        IsaError: an instruction that does not fit the description.
    """
    lines = [f"; {c}" for c in comment.splitlines()] if comment else []
    lines.append(f".isa {isa.name} " + " ".join(f"{k}={isa.params[k]}" for k in ("dim", "config") if k in isa.params))
    lines += [f".region {r.name} {r.addr:#x} {r.size} {r.dtype}" for r in regions]
    for inst in instructions:
        spec = isa.spec(inst.name)
        isa.bind(inst)
        args = ", ".join(_fmt(a.kind, v) for a, v in zip(spec.attrs, inst.args, strict=True))
        lines.append(f"{inst.name} {args}".rstrip())
    return "\n".join(lines) + "\n"


def parse_program(isa: IsaDescription, text: str) -> Program:
    """Parse assembly text for ``isa``.

    Raises:
        AssemblyError: ``line N: ...`` for an unknown mnemonic or directive, a wrong number of
            attributes, or a value that is not a number of the attribute's kind.
    """
    params: list[tuple[str, str]] = []
    regions: list[Region] = []
    insts: list[Inst] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split(";", 1)[0].strip()
        if not line:
            continue
        head, _, rest = line.partition(" ")
        try:
            if head == ".isa":
                name, *kv = rest.split()
                if name != isa.name:
                    raise AssemblyError(f"program is for {name!r}, not {isa.name!r}")
                params += [tuple(x.split("=", 1)) for x in kv]  # type: ignore[misc]
                for k, v in params:
                    if k in isa.params and str(isa.params[k]) != v:
                        raise AssemblyError(f"program needs {k}={v}; this description has {k}={isa.params[k]}")
            elif head == ".region":
                name, addr, size, dtype = rest.split()
                regions.append(Region(name, int(addr, 0), int(size, 0), dtype))
            elif head.startswith("."):
                raise AssemblyError(f"unknown directive {head}")
            else:
                spec = isa.spec(head)
                fields = [f.strip() for f in rest.split(",")] if rest.strip() else []
                if len(fields) != len(spec.attrs):
                    raise AssemblyError(f"{head} takes {len(spec.attrs)} attributes ({', '.join(spec.attr_names)}), got {len(fields)}")
                vals: list[int | float] = [float(f) if a.kind == "float" else int(f, 0) for a, f in zip(spec.attrs, fields, strict=True)]
                inst = Inst(head, tuple(vals))
                isa.bind(inst)
                insts.append(inst)
        except (ValueError, IsaError) as e:
            raise AssemblyError(f"line {n}: {e}") from None
    return Program(isa.name, tuple(params), tuple(regions), tuple(insts))
