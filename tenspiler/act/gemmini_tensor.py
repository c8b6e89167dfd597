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


def gemmini_tensor_isa(dim: int = 16, spad_rows: int = 16384, acc_rows: int = 1024, hbm_base: int = HBM_BASE) -> TensorIsa:
    """Gemmini (int8 configuration, ``dim`` × ``dim`` array) as a :class:`TensorIsa` whose
    ``expand`` produces :mod:`tenspiler.act.isa.gemmini` instructions.

    Raises:
        ValueError: ``dim`` outside 1..256 (from the lower ISA)."""
    lower = gemmini_isa(dim, "int8", spad_rows, acc_rows)
    tile = (1, dim)
    nc = (("n", tile), ("c", tile))
    hbm = TensorBuffer("hbm", HBM_BYTES, 1, "s8", hbm=True, doc="off-chip memory (bytes)")
    spad = TensorBuffer("spad", spad_rows, dim, "s8", doc="scratchpad: int8 rows")
    acc = TensorBuffer("acc", acc_rows, dim, "s32", doc="accumulator: int32 rows")

    def hbm_in(dtype: str) -> Slice:
        return Slice("hbm", "src", "n", "c", stride="src_stride", dtype=dtype)

    def hbm_out(dtype: str) -> Slice:
        return Slice("hbm", "dst", "n", "c", stride="dst_stride", dtype=dtype)

    mm_in = (Slice("spad", "a", "n", "k"), Slice("spad", "b", "k", "c"))
    product = Term("dot", (_cvt(x(1)), _cvt(x(2))))
    mnk = (("n", tile), ("k", tile), ("c", tile))
    instructions = (
        TensorInstruction("mvin_spad", nc, ("src", "src_stride", "dst"), Slice("spad", "dst", "n", "c"), (hbm_in("s8"),),
                          x(1), doc="HBM int8 rows → scratchpad"),
        TensorInstruction("mvin_acc", nc, ("src", "src_stride", "dst"), Slice("acc", "dst", "n", "c"), (hbm_in("s8"),),
                          _cvt(x(1)), doc="HBM int8 rows → accumulator, widened"),
        TensorInstruction("mvin_acc_add", nc, ("src", "src_stride", "dst"), Slice("acc", "dst", "n", "c"),
                          (Slice("acc", "dst", "n", "c"), hbm_in("s8")), Term("add", (x(1), _cvt(x(2)))),
                          doc="HBM int8 rows added into accumulator rows (in place)"),
        TensorInstruction("mvin_acc32", nc, ("src", "src_stride", "dst"), Slice("acc", "dst", "n", "c"), (hbm_in("s32"),),
                          x(1), doc="HBM int32 rows → accumulator"),
        TensorInstruction("matmul", mnk, ("a", "b", "out"), Slice("acc", "out", "n", "c"), mm_in, product, cost=1.0,
                          doc="accumulator tile = A · B (weight-stationary)"),
        TensorInstruction("matmul_acc", mnk, ("a", "b", "out"), Slice("acc", "out", "n", "c"),
                          (*mm_in, Slice("acc", "out", "n", "c")), Term("add", (x(3), product)), cost=1.0,
                          doc="accumulator tile += A · B (in place)"),
        TensorInstruction("mvout_acc", nc, ("src", "dst", "dst_stride"), hbm_out("s32"), (Slice("acc", "src", "n", "c"),),
                          x(1), doc="accumulator rows → HBM, raw int32"),
        TensorInstruction("mvout_spad", nc, ("src", "dst", "dst_stride"), hbm_out("s8"), (Slice("spad", "src", "n", "c"),),
                          x(1), doc="scratchpad rows → HBM, int8"),
    )

    mvins = ("mvin", "mvin2", "mvin3")

    def load(regs: dict[Any, Any], stride: int, shrunk: int, dram: int, local: int, cols: int, rows: int) -> list[Any]:
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
                Inst(mvins[ident], (hbm_base + dram, local, cols, rows))]

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
        if inst.name == "mvin_acc":
            return load(regs, b["src_stride"], 1, b["src"], ACC_BIT | b["dst"], c, n)
        if inst.name == "mvin_acc_add":
            return load(regs, b["src_stride"], 1, b["src"], ACC_BIT | ACCUMULATE_BIT | b["dst"], c, n)
        if inst.name == "mvin_acc32":
            return load(regs, b["src_stride"], 0, b["src"], ACC_BIT | b["dst"], c, n)
        if inst.name in ("matmul", "matmul_acc"):
            k = a["k"]
            out = ACC_BIT | b["out"] | (ACCUMULATE_BIT if inst.name == "matmul_acc" else 0)
            return [Config("ex", ex_ws, Inst("config_ex", ex_ws)),
                    Inst("preload", (b["b"], out, c, k, c, n)),
                    Inst("compute_preloaded", (b["a"], GARBAGE, k, n, dim, dim))]
        if inst.name in ("mvout_acc", "mvout_spad"):
            local = (ACC_BIT | RAW_BIT | b["src"]) if inst.name == "mvout_acc" else b["src"]
            return [Config("st", b["dst_stride"], Inst("config_st", (b["dst_stride"],))),
                    Inst("mvout", (hbm_base + b["dst"], local, c, n))]
        raise AssertionError(inst.name)

    return TensorIsa("gemmini", (hbm, spad, acc), instructions, expand=expand, lower=lower,
                     epilogue=(Inst("fence", ()),), doc=__doc__ or "")
