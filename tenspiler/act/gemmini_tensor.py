"""Gemmini's tensor-level description in ACT's format, expanding to ``gemmini.h`` instructions.

The instructions of :mod:`tenspiler.act.isa.gemmini` are stateful (``config_*`` registers, a
``preload`` that only takes effect at the next ``compute``); ACT describes each accelerator
operation as one abstract instruction that reads data slices and writes one (ACT §9.1 models
Gemmini with 11 such instructions). This module gives that view for the ``int8``
configuration (int8 scratchpad, int32 accumulator, weight-stationary):

============  ===============================  =============================================
mnemonic      g_θ                              expands to
============  ===============================  =============================================
mvin_spad     ``x1`` (s8)                      ``config_ld`` + ``mvin`` (to the scratchpad)
mvin_acc      ``convert<s32>(x1)``             ``config_ld`` (shrunk) + ``mvin`` (acc)
mvin_acc_add  ``add(x1, convert<s32>(x2))``    ``config_ld`` (shrunk) + ``mvin`` (acc, bit 30)
mvin_acc32    ``x1`` (s32)                     ``config_ld`` + ``mvin`` (acc)
mvin_acc32_add ``add(x1, x2)`` (s32)           ``config_ld`` + ``mvin`` (acc, bit 30)
matmul        ``dot(cvt x1, cvt x2)``          ``config_ex`` (WS) + ``preload`` + ``compute_preloaded``
matmul_acc    ``add(x3, dot(cvt x1, cvt x2))`` as matmul, output address with bit 30
mvout_acc     ``x1`` (s32)                     ``config_st`` + ``mvout`` (acc, bit 29: raw int32)
mvout_spad    ``x1`` (s8)                      ``config_st`` + ``mvout`` (scratchpad)
============  ===============================  =============================================

(``cvt`` is ``convert<s32>``.) Every tile is at most DIM × DIM. The ``config_*`` instructions
are emitted only when the register does not already hold the value (the emitter tracks them;
it assumes nothing about their reset values, as a library routine may not). The three
``mvin`` variants each have their own ``config_ld`` register; the expansion picks the one
already configured for the needed stride, else the least recently configured one.

Gemmini reads "DRAM address 0" as "move zeros", so tensor HBM address ``a`` is the byte
``hbm_base + a`` of the lower machine (``hbm_base`` defaults to the oracle's HBM base).

The description's semantics (g_θ, run by :class:`~tenspiler.act.tensor_isa.TermOracle`) and
the expansions (run by :class:`~tenspiler.act.oracle.Oracle` on the ``gemmini.h``
semantics bodies) are tested to agree bit for bit on random data
(``tests/test_act_gemmini_tensor.py``).
"""

from __future__ import annotations

from typing import Any

from tenspiler.act.isa import Inst
from tenspiler.act.isa.gemmini import (
    ACC_BIT,
    ACCUMULATE_BIT,
    GARBAGE,
    RAW_BIT,
    WEIGHT_STATIONARY,
    gemmini_isa,
)
from tenspiler.act.tensor_isa import (
    Config,
    Slice,
    TensorBuffer,
    TensorInstruction,
    TensorIsa,
    Term,
    TInst,
    x,
)

__all__ = ["HBM_BASE", "gemmini_tensor_isa"]

HBM_BASE = 0x1000
HBM_BYTES = 1 << 32


def _cvt(t: Term) -> Term:
    return Term("convert", (t,), (), "s32")


def gemmini_tensor_isa(dim: int = 16, spad_rows: int = 16384, acc_rows: int = 1024, hbm_base: int = HBM_BASE,
                       config: str = "int8") -> TensorIsa:
    """Gemmini (``dim`` × ``dim`` array, ``config`` ``"int8"`` or ``"fp32"``) as a
    :class:`TensorIsa` whose ``expand`` produces :mod:`tenspiler.act.isa.gemmini` instructions.

    ``fp32`` has no widening (``cvt`` is the identity), no separate int32 load, and one more
    instruction, ``matmul_spad`` (the product written to the scratchpad, so that a chain of
    products stays on chip); int8 has no such instruction because Gemmini saturates int32 to
    int8 there, which no operator of the graph subset expresses.

    Raises:
        ValueError: ``dim`` outside 1..256 or an unknown ``config`` (from the lower ISA)."""
    lower = gemmini_isa(dim, config, spad_rows, acc_rows)
    is_int = config == "int8"
    et, at = ("s8", "s32") if is_int else ("f32", "f32")
    tile = (1, dim)
    nc = (("n", tile), ("c", tile))
    hbm = TensorBuffer("hbm", HBM_BYTES, 1, "s8", hbm=True, doc="off-chip memory (bytes)")
    spad = TensorBuffer("spad", spad_rows, dim, et, doc=f"scratchpad: {et} rows")
    acc = TensorBuffer("acc", acc_rows, dim, at, doc=f"accumulator: {at} rows")

    def cvt(t: Term) -> Term:
        return _cvt(t) if is_int else t

    def hbm_in(dtype: str) -> Slice:
        return Slice("hbm", "src", "n", "c", stride="src_stride", dtype=dtype)

    def hbm_out(dtype: str) -> Slice:
        return Slice("hbm", "dst", "n", "c", stride="dst_stride", dtype=dtype)

    mm_in = (Slice("spad", "a", "n", "k"), Slice("spad", "b", "k", "c"))
    product = Term("dot", (cvt(x(1)), cvt(x(2))))
    mnk = (("n", tile), ("k", tile), ("c", tile))
    ld_attrs = ("src", "src_stride", "dst")
    instructions = [
        TensorInstruction("mvin_spad", nc, ld_attrs, Slice("spad", "dst", "n", "c"), (hbm_in(et),),
                          x(1), doc=f"HBM {et} rows → scratchpad"),
        TensorInstruction("mvin_acc", nc, ld_attrs, Slice("acc", "dst", "n", "c"), (hbm_in(et),),
                          cvt(x(1)), doc=f"HBM {et} rows → accumulator" + (", widened" if is_int else "")),
        TensorInstruction("mvin_acc_add", nc, ld_attrs, Slice("acc", "dst", "n", "c"),
                          (Slice("acc", "dst", "n", "c"), hbm_in(et)), Term("add", (x(1), cvt(x(2)))),
                          doc=f"HBM {et} rows added into accumulator rows (in place)"),
    ]
    if is_int:
        instructions.append(TensorInstruction("mvin_acc32", nc, ld_attrs, Slice("acc", "dst", "n", "c"), (hbm_in("s32"),),
                                              x(1), doc="HBM int32 rows → accumulator"))
        instructions.append(TensorInstruction("mvin_acc32_add", nc, ld_attrs, Slice("acc", "dst", "n", "c"),
                                              (Slice("acc", "dst", "n", "c"), hbm_in("s32")), Term("add", (x(1), x(2))),
                                              doc="HBM int32 rows added into accumulator rows (in place)"))
    instructions += [
        TensorInstruction("matmul", mnk, ("a", "b", "out"), Slice("acc", "out", "n", "c"), mm_in, product,
                          doc="accumulator tile = A · B (weight-stationary)"),
        TensorInstruction("matmul_acc", mnk, ("a", "b", "out"), Slice("acc", "out", "n", "c"),
                          (*mm_in, Slice("acc", "out", "n", "c")), Term("add", (x(3), product)),
                          doc="accumulator tile += A · B (in place)"),
    ]
    if not is_int:
        instructions.append(TensorInstruction("matmul_spad", mnk, ("a", "b", "out"), Slice("spad", "out", "n", "c"), mm_in,
                                              product, doc="scratchpad tile = A · B (weight-stationary)"))
    instructions += [
        TensorInstruction("mvout_acc", nc, ("src", "dst", "dst_stride"), hbm_out(at), (Slice("acc", "src", "n", "c"),),
                          x(1), doc=f"accumulator rows → HBM, raw {at}"),
        TensorInstruction("mvout_spad", nc, ("src", "dst", "dst_stride"), hbm_out(et), (Slice("spad", "src", "n", "c"),),
                          x(1), doc=f"scratchpad rows → HBM, {et}"),
    ]

    mvins = ("mvin", "mvin2", "mvin3")

    def hbm_addr(regs: dict[Any, Any], addr: Any) -> Any:
        """The lower machine's address of tensor-HBM byte ``addr`` (relocated programs set
        ``regs["hbm_base"] = 0`` and pass pointer expressions)."""
        base = regs.get("hbm_base", hbm_base)
        return addr if base == 0 else base + addr

    def load(regs: dict[Any, Any], stride: Any, shrunk: int, dram: Any, local: int, cols: Any, rows: Any) -> list[Any]:
        want = (stride, 1.0, shrunk)
        ids = [i for i in range(3) if regs.get(("ld", i)) == want]
        if ids:
            ident = ids[0]
        else:  # the least recently configured mvin
            order = regs.setdefault("ld_order", [0, 1, 2])
            ident = order[0]
        order = regs.setdefault("ld_order", [0, 1, 2])
        order.remove(ident)
        order.append(ident)
        return [Config(("ld", ident), want, Inst("config_ld", (stride, 1.0, shrunk, ident))),
                Inst(mvins[ident], (hbm_addr(regs, dram), local, cols, rows))]

    ex_ws = (WEIGHT_STATIONARY, 0, 0, 1.0, 0, 1, 0, 0)

    def expand(inst: TInst, regs: dict[Any, Any]) -> list[Any]:
        """The ``gemmini.h`` instructions implementing ``inst``; ``regs`` is the emitter's
        view of the configuration registers (updated by the emitter, read here)."""
        spec = {i.name: i for i in instructions}[inst.name]
        a = dict(zip(spec.alpha_names, inst.alpha, strict=True))
        b = dict(zip(spec.beta, inst.beta, strict=True))
        n, c = a["n"], a["c"]
        if inst.name == "mvin_spad":
            return load(regs, b["src_stride"], 0, b["src"], b["dst"], c, n)
        shrunk = 1 if is_int else 0
        if inst.name == "mvin_acc":
            return load(regs, b["src_stride"], shrunk, b["src"], ACC_BIT | b["dst"], c, n)
        if inst.name == "mvin_acc_add":
            return load(regs, b["src_stride"], shrunk, b["src"], ACC_BIT | ACCUMULATE_BIT | b["dst"], c, n)
        if inst.name == "mvin_acc32":
            return load(regs, b["src_stride"], 0, b["src"], ACC_BIT | b["dst"], c, n)
        if inst.name == "mvin_acc32_add":
            return load(regs, b["src_stride"], 0, b["src"], ACC_BIT | ACCUMULATE_BIT | b["dst"], c, n)
        if inst.name in ("matmul", "matmul_acc", "matmul_spad"):
            k = a["k"]
            out = b["out"] if inst.name == "matmul_spad" else ACC_BIT | b["out"] | (ACCUMULATE_BIT if inst.name == "matmul_acc" else 0)
            return [Config("ex", ex_ws, Inst("config_ex", ex_ws)),
                    Inst("preload", (b["b"], out, c, k, c, n)),
                    Inst("compute_preloaded", (b["a"], GARBAGE, k, n, dim, dim))]
        if inst.name in ("mvout_acc", "mvout_spad"):
            local = (ACC_BIT | RAW_BIT | b["src"]) if inst.name == "mvout_acc" else b["src"]
            return [Config("st", b["dst_stride"], Inst("config_st", (b["dst_stride"],))),
                    Inst("mvout", (hbm_addr(regs, b["dst"]), local, c, n))]
        raise AssertionError(inst.name)

    return TensorIsa(f"gemmini-{config}", (hbm, spad, acc), tuple(instructions), expand=expand, lower=lower,
                     epilogue=(Inst("fence", ()),), doc=__doc__ or "")
