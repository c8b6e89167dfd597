"""The Gemmini ISA description, parameterised by the array size ``DIM`` and the datatype
configuration.

Sources: the Gemmini ISA as documented in ``gemmini-rocc-tests/include/gemmini.h`` (the macro
names and argument orders below) and the Autocomp paper's ISA summary (Fig. 14–15: row
addressing, the meaning of address bits 31/30/29, ``mvin`` of address 0 moving zeros, the
weight-stationary preload/compute protocol); TAIDL (PLDI'25) §6 for describing it as data
model + per-instruction semantics; Exo thesis App. D for instructions as procedures.

**Configurations** (:data:`CONFIGS`): ``"int8"`` — the default Gemmini: int8 scratchpad
(``inputType``), int32 accumulator (``accType``), float32 scale factors; ``"fp32"`` — a
Gemmini FP configuration: float32 scratchpad and accumulator.

**Data model.** Scratchpad: 16 384 rows × DIM ``inputType`` (a row address is bits 0–28 of a
local address with bit 31 clear). Accumulator: 1 024 rows × DIM ``accType`` (bit 31 set).
Writes to the accumulator overwrite (bit 30 clear) or accumulate (bit 30 set); reads from it
return raw ``accType`` values (bit 29 set) or scaled ``inputType`` values (bit 29 clear). The
all-ones address ``GARBAGE`` (0xFFFFFFFF) means "none". Registers: the ``config_ex`` state
(dataflow, activation, ``sys_shift``, ``acc_scale``, A stride, transposes), one ``config_ld``
state (DRAM stride in bytes, scale, shrunk) per mvin id (``mvin``/``mvin2``/``mvin3``), the
``config_st`` stride, and the systolic array's weight / partial-sum tile.

**Arithmetic — the definition this project uses everywhere** (oracle, code generation, checks):

* integer products and sums in the array and accumulator are exact two's-complement int32,
  and an accumulate *wraps* modulo 2³² (the accumulator's adder); the code generator only
  lets Gemmini compute values that provably (or by a checked input contract) never wrap, so
  the choice cannot change a result;
* writes of integers to an ``inputType`` destination (``mvin`` scaling into the scratchpad,
  scaled ``mvout`` from the accumulator, compute output into the scratchpad) *saturate* to
  [-128, 127], as Gemmini's hardware ``clippedToWidthOf`` and the TAIDL Gemmini oracle do;
* scaling (``mvin`` scale, ``acc_scale``): ``y = float32(float32(x) * scale)``, then for an
  integer destination round half to even and saturate; a scale of exactly 1.0 is the identity;
* ``sys_shift`` on compute outputs written to the scratchpad: a rounding right shift (half to
  even), then saturation;
* ReLU (``act = 1``) is applied to scaled ``mvout`` reads after scaling, as ``y > 0 ? y : 0``
  (a NaN or -0.0 gives +0);
* float32 processing elements compute a *fused* multiply-add ``c + a*b`` with one rounding
  (Gemmini's hardfloat ``MulAddRecFN``), emulated exactly with round-to-odd in float64
  (Boldo & Melquiond, IEEE TC 2008); accumulator adds are float32 additions.

**Compute protocol** (weight-stationary, ``dataflow = 1``): ``preload(B, C, …)`` names the
weights ``B`` (scratchpad rows; ``GARBAGE`` keeps the current weights) and the output address
``C`` for the next compute; ``compute_preloaded(A, D, …)`` loads those weights and computes
``C = A·W + D`` (``D``: a bias in the scratchpad, ``GARBAGE`` for none);
``compute_accumulated`` does the same with the weights already in the array. Each compute
consumes the output address (a compute without a new preload writes nothing). Output-
stationary (``dataflow = 0``): ``preload(D, C, …)`` loads the bias ``D`` into the array's
partial sums, ``compute_preloaded(A, B, …)`` adds ``A·B`` to them and
``compute_accumulated(A, B, …)`` keeps accumulating; each compute writes the partial sums to
``C`` (the real array writes them when the next preload arrives; a program that sets ``C`` on
the last compute of a tile, as ``sp_tiled_matmul_os`` does, sees the same memory).
Operand tiles narrower or shorter than DIM are zero-padded.

**The GEMM state machine** (``loop_ws``, ``gemmini_loop_ws``; Gemmini's ``LoopMatmul``, as
``tiled_matmul_auto`` drives it): one instruction computes a block of ``I × J`` output tiles
over ``K`` reduction tiles, ``C = (ex_accumulate ? the previous call's partial sums : D or
0) + A·B``, by *issuing* ordinary instructions (:func:`loop_ws_expansion`; its semantics is
theirs): the ``D`` tiles into the accumulator (``mvin3``, ``D_stride`` 0 repeats one row),
then for ``k``, ``j``, ``i``: ``A(i, k)`` moved in on the first ``j`` (``mvin``, up to four
tiles per request), ``B(k, j)`` on the first ``i`` (``mvin2``), ``B(k, j)`` preloaded once
and reused down the ``i`` tiles (``compute_accumulated``), and each output tile moved out
(raw with ``full_C``) after the last ``k`` when ``C`` is not 0. Two calls are in flight
(``concurrent_loops = 2``): the operands of successive calls alternate between the two
halves of the scratchpad, and the accumulator half advances after each call that moves ``C``
out (``LoopMatmul``'s ``ld_d`` / ``ex_c`` / ``st_c`` address registers), so the reduction
chunks of one output block — all but the last called with ``C = 0`` — share a half. What this
description restricts: the strides must be the ones ``config_ld`` ids 0/1/2 and ``config_st``
hold (the program configures them once, the FSM's mvins and mvouts use them), no padding
(``pad_* = 0``: whole tiles), no transposes, ``low_D = 0``, ``act`` the ``config_ex``
activation; the operands of one call must fit half the scratchpad and the outputs half the
accumulator.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tenspiler.act.isa import (
    Attr,
    AttrKind,
    BufferSpec,
    Inst,
    InstructionSpec,
    IsaDescription,
    IsaError,
)
from tenspiler.ir.semantics import np_wrap

__all__ = [
    "ACCUMULATE_BIT",
    "ACC_BIT",
    "CONFIGS",
    "GARBAGE",
    "OUTPUT_STATIONARY",
    "RAW_BIT",
    "WEIGHT_STATIONARY",
    "gemmini_isa",
    "loop_ws_expansion",
]

GARBAGE = 0xFFFFFFFF
ACC_BIT = 1 << 31
ACCUMULATE_BIT = 1 << 30
RAW_BIT = 1 << 29
ROW_MASK = (1 << 29) - 1
OUTPUT_STATIONARY = 0
WEIGHT_STATIONARY = 1
NO_ACTIVATION = 0
RELU = 1

#: datatype configurations: scratchpad (input) type, accumulator type
CONFIGS: dict[str, dict[str, str]] = {
    "int8": {"input": "int8", "acc": "int32"},
    "fp32": {"input": "float32", "acc": "float32"},
}

SPAD_ROWS = 16384
ACC_ROWS = 1024
#: bytes a mvin / mvout moves per row at most (Gemmini's ``MAX_BYTES``)
MAX_BYTES = 64


#: the ``gemmini_loop_ws`` arguments, in macro order (a_spad_id, b_spad_id and is_resadd follow, fixed 0)
LOOP_WS_ATTRS = ("I", "J", "K", "pad_I", "pad_J", "pad_K", "A", "B", "D", "C", "A_stride", "B_stride", "D_stride",
                 "C_stride", "A_transpose", "B_transpose", "full_C", "low_D", "ex_accumulate", "act")


def loop_ws_expansion(fsm: dict[str, int], dim: int, spad_rows: int, acc_rows: int, in_bytes: int, acc_bytes: int,
                      **a: int) -> list[Inst]:
    """The instructions ``loop_ws`` issues (see the module docstring), in the state machine's
    order; ``fsm`` (``{"call": calls so far, "acc": the accumulator half of the next call}``)
    is updated. Addresses: ``A``/``B``/``D``/``C`` DRAM byte addresses (``D``/``C`` 0: none),
    strides in elements.

    Raises:
        IsaError: a restricted argument (padding, transposes, ``low_D``), an empty or too
            large block.
    """
    for name in ("pad_I", "pad_J", "pad_K", "A_transpose", "B_transpose", "low_D"):
        if a[name]:
            raise IsaError(f"loop_ws: {name} = {a[name]} is not described (whole tiles, no transposes, low_D = 0)")
    ti, tj, tk = a["I"], a["J"], a["K"]
    half_sp, half_acc = spad_rows // 2, acc_rows // 2
    if min(ti, tj, tk) < 1 or (ti * tk + tk * tj) * dim > half_sp or ti * tj * dim > half_acc:
        raise IsaError(f"loop_ws: a {ti}x{tj}x{tk}-tile block must be non-empty, its operands fit half the scratchpad "
                       f"({half_sp} rows) and its outputs half the accumulator ({half_acc} rows)")
    sp = (fsm["call"] % 2) * half_sp
    fsm["call"] += 1
    acc = ACC_BIT | (fsm["acc"] * half_acc)
    if a["C"]:
        fsm["acc"] ^= 1
    b_sp = sp + half_sp - tk * tj * dim
    per_row = max(1, MAX_BYTES // (dim * in_bytes))      # tiles per scratchpad mvin
    A, B, D, C = a["A"], a["B"], a["D"], a["C"]
    sa, sb, sd, sc = a["A_stride"], a["B_stride"], a["D_stride"], a["C_stride"]
    out: list[Inst] = []
    if D and not a["ex_accumulate"]:
        for i in range(ti):
            for j in range(tj):
                out.append(Inst("mvin3", (D + (i * dim * sd + j * dim) * acc_bytes, acc + (i * tj + j) * dim, dim, dim)))
    fresh = not D and not a["ex_accumulate"]    # the first product overwrites
    c_bytes, raw = (acc_bytes, RAW_BIT) if a["full_C"] else (in_bytes, 0)
    for k in range(tk):
        for j in range(tj):
            for i in range(ti):
                if j == 0 and k % per_row == 0:
                    w = min(per_row, tk - k)
                    out.append(Inst("mvin", (A + (i * dim * sa + k * dim) * in_bytes, sp + (i * tk + k) * dim, w * dim, dim)))
                if i == 0 and j % per_row == 0:
                    w = min(per_row, tj - j)
                    out.append(Inst("mvin2", (B + (k * dim * sb + j * dim) * in_bytes, b_sp + (k * tj + j) * dim, w * dim, dim)))
                c_tile = acc + (i * tj + j) * dim
                flag = 0 if fresh and k == 0 else ACCUMULATE_BIT
                out.append(Inst("preload", (b_sp + (k * tj + j) * dim if i == 0 else GARBAGE, c_tile + flag, dim, dim, dim, dim)))
                out.append(Inst("compute_preloaded" if i == 0 else "compute_accumulated",
                                (sp + (i * tk + k) * dim, GARBAGE, dim, dim, dim, dim)))
                if C and k == tk - 1:
                    out.append(Inst("mvout", (C + (i * dim * sc + j * dim) * c_bytes, c_tile + raw, dim, dim)))
    return out


def gemmini_isa(dim: int = 16, config: str = "int8", spad_rows: int = SPAD_ROWS, acc_rows: int = ACC_ROWS) -> IsaDescription:
    """The Gemmini ISA for a ``dim × dim`` array and datatype configuration ``config``.

    Raises:
        ValueError: ``dim`` not in 1..256, or an unknown ``config`` (see :data:`CONFIGS`).
    """
    if not 1 <= dim <= 256:
        raise ValueError(f"DIM must be in 1..256, got {dim}")
    if config not in CONFIGS:
        raise ValueError(f"unknown Gemmini configuration {config!r}; known: {', '.join(CONFIGS)}")
    types = CONFIGS[config]
    it, at = np.dtype(types["input"]), np.dtype(types["acc"])
    is_float = it.kind == "f"
    spad_max_cols = dim * max(1, MAX_BYTES // (dim * it.itemsize))
    acc_max_cols = dim * max(1, MAX_BYTES // (dim * at.itemsize))

    # ------------------------------------------------------------------ helpers

    def decode(addr: int) -> tuple[str, int, bool, bool]:
        """(buffer, row, accumulate, raw) of a local address."""
        return ("acc" if addr & ACC_BIT else "spad", addr & ROW_MASK, bool(addr & ACCUMULATE_BIT), bool(addr & RAW_BIT))

    def rows_of(st: Any, buf: str, row: int, n: int, what: str) -> np.ndarray:
        b = st.buffers[buf]
        if row + n > b.shape[0]:
            raise IsaError(f"{what}: rows [{row}, {row + n}) outside the {buf} ({b.shape[0]} rows)")
        return b

    def check_dims(what: str, cols: int, rows: int, max_cols: int, max_rows: int = dim) -> None:
        if not (0 <= rows <= max_rows and 0 <= cols <= max_cols):
            raise IsaError(f"{what}: {rows} rows × {cols} cols exceeds {max_rows} × {max_cols}")

    def scale(x: np.ndarray, s: float, dst: np.dtype) -> np.ndarray:
        """``x`` scaled by the float32 ``s`` into ``dst`` (see the module docstring)."""
        if s == 1.0 and x.dtype == dst:
            return x
        if s == 1.0 and dst.kind == "i" and x.dtype.kind == "i":
            return saturate(x.astype(np.int64), dst)
        y = (x.astype(np.float32) * np.float32(s)).astype(np.float32)
        if dst.kind == "f":
            return y.astype(dst)
        return saturate(np.rint(y.astype(np.float64)), dst)

    def saturate(y: np.ndarray, dst: np.dtype) -> np.ndarray:
        info = np.iinfo(dst)
        return np.clip(y, info.min, info.max).astype(dst)

    def wrap32(y: np.ndarray) -> np.ndarray:
        return np_wrap(y, 32).astype(np.int32) if y.dtype != np.int32 else y

    def store_acc(st: Any, row: int, values: np.ndarray, accumulate: bool, what: str) -> None:
        r, c = values.shape
        acc = rows_of(st, "acc", row, r, what)
        if accumulate:
            if is_float:
                acc[row:row + r, :c] = (acc[row:row + r, :c] + values.astype(np.float32)).astype(np.float32)
            else:
                acc[row:row + r, :c] = wrap32(acc[row:row + r, :c].astype(np.int64) + values.astype(np.int64))
        else:
            acc[row:row + r, :c] = values if is_float else wrap32(values.astype(np.int64))

    def tile(st: Any, addr: int, cols: int, rows: int, stride: int, what: str) -> np.ndarray:
        """A DIM×DIM operand tile from the scratchpad (zero-padded); ``GARBAGE``: zeros."""
        out = np.zeros((dim, dim), dtype=np.float32 if is_float else np.int64)
        if addr == GARBAGE:
            return out
        buf, row, _, _ = decode(addr)
        check_dims(what, cols, rows, dim)
        if buf != "spad":
            raise IsaError(f"{what}: operands are read from the scratchpad, not the accumulator")
        sp = rows_of(st, "spad", row, (rows - 1) * stride + 1 if rows else 0, what)
        out[:rows, :cols] = sp[row:row + (rows - 1) * stride + 1:stride, :cols] if rows else 0
        return out

    def matmul(a: np.ndarray, w: np.ndarray, d: np.ndarray) -> np.ndarray:
        """``d + a @ w``: exact integers, or a chain of fused float32 multiply-adds in k order."""
        if not is_float:
            return d + a @ w
        acc = d.astype(np.float32)
        for k in range(dim):
            acc = fma32(np.broadcast_to(a[:, k:k + 1], acc.shape), np.broadcast_to(w[k:k + 1, :], acc.shape), acc)
        return acc

    def write_out(st: Any, values: np.ndarray) -> None:
        c, rows, cols = st.regs["c_addr"], st.regs["c_rows"], st.regs["c_cols"]
        st.regs["c_addr"] = GARBAGE
        if c == GARBAGE:
            return
        buf, row, accumulate, _ = decode(c)
        out = values[:rows, :cols]
        if buf == "acc":
            store_acc(st, row, out, accumulate, "compute output")
            return
        sp = rows_of(st, "spad", row, rows, "compute output")
        if is_float:
            sp[row:row + rows, :cols] = out.astype(it)
        else:
            shift = st.regs["ex"]["sys_shift"]
            shifted = out if shift == 0 else np.rint(out.astype(np.float64) / (1 << shift))
            sp[row:row + rows, :cols] = saturate(shifted, it)

    # ------------------------------------------------------------------ semantics bodies

    def config_ex(st: Any, dataflow: int, act: int, sys_shift: int, acc_scale: float, relu6_shift: int, a_stride: int, a_transpose: int, b_transpose: int) -> None:
        if dataflow not in (OUTPUT_STATIONARY, WEIGHT_STATIONARY):
            raise IsaError(f"config_ex: dataflow must be 0 (OS) or 1 (WS), got {dataflow}")
        if act not in (NO_ACTIVATION, RELU):
            raise IsaError(f"config_ex: activation {act} is not described (0 none, 1 ReLU)")
        if a_stride < 1:
            raise IsaError(f"config_ex: A stride must be ≥ 1, got {a_stride}")
        if sys_shift < 0:
            raise IsaError(f"config_ex: sys_shift must be ≥ 0, got {sys_shift}")
        st.regs["ex"] = {"dataflow": dataflow, "act": act, "sys_shift": sys_shift, "acc_scale": float(np.float32(acc_scale)),
                         "a_stride": a_stride, "a_transpose": a_transpose, "b_transpose": b_transpose}

    def config_ld(st: Any, stride: int, scale: float, shrunk: int, id: int) -> None:  # `id`: gemmini.h's name
        if id not in (0, 1, 2):
            raise IsaError(f"config_ld: id must be 0, 1 or 2 (mvin, mvin2, mvin3), got {id}")
        st.regs["ld"][id] = {"stride": stride, "scale": float(np.float32(scale)), "shrunk": bool(shrunk)}

    def config_st(st: Any, stride: int) -> None:
        st.regs["st_stride"] = stride

    def make_mvin(ident: int) -> Any:
        def mvin(st: Any, dram_addr: int, spad_addr: int, cols: int, rows: int) -> None:
            ld = st.regs["ld"][ident]
            buf, row, accumulate, _ = decode(spad_addr)
            to_acc = buf == "acc"
            src_t = it if (not to_acc or ld["shrunk"]) else at
            dst_t = at if to_acc else it
            check_dims("mvin", cols, rows, acc_max_cols if to_acc else spad_max_cols)
            blocks = -(-cols // dim)
            data = np.zeros((rows, cols), dtype=src_t)
            if dram_addr != 0:
                for r in range(rows):
                    data[r] = st.memory.read(dram_addr + r * ld["stride"], cols, src_t)
            data = scale(data, ld["scale"], dst_t)
            for b in range(blocks):
                part = data[:, b * dim:(b + 1) * dim]
                base = row + b * dim
                if to_acc:
                    store_acc(st, base, part, accumulate, "mvin")
                else:
                    rows_of(st, "spad", base, rows, "mvin")[base:base + rows, :part.shape[1]] = part
        return mvin

    def mvout(st: Any, dram_addr: int, spad_addr: int, cols: int, rows: int) -> None:
        check_dims("mvout", cols, rows, dim)
        buf, row, _, raw = decode(spad_addr)
        src = rows_of(st, buf, row, rows, "mvout")[row:row + rows, :cols]
        if buf == "acc" and not raw:
            ex = st.regs["ex"]
            y = scale(src, ex["acc_scale"], np.dtype(np.float32) if is_float else at)
            if ex["act"] == RELU:
                y = np.where(y > 0, y, np.zeros_like(y))  # y > 0 ? y : 0 (NaN and -0.0 give +0)
            out = y.astype(it) if is_float else saturate(y, it)
        else:
            out = src
        for r in range(rows):
            st.memory.write(dram_addr + r * st.regs["st_stride"], out[r])

    def preload(st: Any, bd_addr: int, c_addr: int, bd_cols: int, bd_rows: int, c_cols: int, c_rows: int) -> None:
        check_dims("preload (C)", c_cols, c_rows, dim)
        st.regs["c_addr"], st.regs["c_rows"], st.regs["c_cols"] = c_addr, c_rows, c_cols
        # WS: the weights B, OS: the bias D; the next compute_preloaded loads them into the
        # array (compute_accumulated ignores them: sp_tiled_matmul_os preloads GARBAGE, C)
        st.regs["pending_b"] = (bd_addr, bd_cols, bd_rows)

    def make_compute(preloaded: bool) -> Any:
        def compute(st: Any, a_addr: int, bd_addr: int, a_cols: int, a_rows: int, bd_cols: int, bd_rows: int) -> None:
            ex = st.regs["ex"]
            a = tile(st, a_addr, a_cols, a_rows, ex["a_stride"], "compute (A)")
            if ex["a_transpose"]:
                a = a.T.copy()
            if ex["dataflow"] == WEIGHT_STATIONARY:
                if preloaded:
                    b_addr, b_cols, b_rows = st.regs["pending_b"]
                    if b_addr != GARBAGE:
                        w = tile(st, b_addr, b_cols, b_rows, 1, "preload (B)")
                        st.regs["weights"] = w.T.copy() if ex["b_transpose"] else w
                d = tile(st, bd_addr, bd_cols, bd_rows, 1, "compute (D)")
                write_out(st, matmul(a, st.regs["weights"], d))
            else:
                b = tile(st, bd_addr, bd_cols, bd_rows, 1, "compute (B)")
                if ex["b_transpose"]:
                    b = b.T.copy()
                if preloaded:
                    d_addr, d_cols, d_rows = st.regs["pending_b"]
                    st.regs["psum"] = tile(st, d_addr, d_cols, d_rows, 1, "preload (D)")
                st.regs["psum"] = matmul(a, b, st.regs["psum"])
                write_out(st, st.regs["psum"])
        return compute

    def expand_loop_ws(fsm: dict[str, int], **a: int) -> list[Inst]:
        return loop_ws_expansion(fsm, dim, spad_rows, acc_rows, it.itemsize, at.itemsize, **a)

    def loop_ws(st: Any, **a: int) -> None:
        ld, ex = st.regs["ld"], st.regs["ex"]
        c_bytes = at.itemsize if a["full_C"] else it.itemsize
        want = [(ld[0]["stride"], a["A_stride"] * it.itemsize, "config_ld id 0 (A)"),
                (ld[1]["stride"], a["B_stride"] * it.itemsize, "config_ld id 1 (B)"),
                (st.regs["st_stride"], a["C_stride"] * c_bytes, "config_st (C)")]
        if a["D"]:
            want.append((ld[2]["stride"], a["D_stride"] * at.itemsize, "config_ld id 2 (D)"))
        for have, need, what in want:
            if have != need:
                raise IsaError(f"loop_ws: the {what} stride is {have} bytes, the call's stride {need} (the FSM moves data with the configured strides)")
        if ex["dataflow"] != WEIGHT_STATIONARY or a["act"] != ex["act"]:
            raise IsaError("loop_ws: needs config_ex with the weight-stationary dataflow and the call's activation")
        for inst in expand_loop_ws(st.regs["fsm"], **a):
            spec = table[inst.name]
            spec.semantics(st, **dict(zip(spec.attr_names, inst.args, strict=True)))

    def flush(st: Any, skip: int) -> None:
        """Flushes the TLB; no effect on the functional state."""

    def fence(st: Any) -> None:
        """Waits for all outstanding instructions; no effect on the functional state."""

    # ------------------------------------------------------------------ the description

    hbm: AttrKind = "hbm"
    local: AttrKind = "local"
    mvin_attrs = (Attr("dram_addr", hbm, "byte address of row 0 in DRAM (0: move zeros)"),
                  Attr("spad_addr", local, "scratchpad / accumulator row address with flag bits"),
                  Attr("cols", "int", f"columns (≤ {spad_max_cols} into the scratchpad, ≤ {acc_max_cols} into the accumulator)"),
                  Attr("rows", "int", f"rows (≤ {dim})"))
    compute_attrs = (Attr("a_addr", local), Attr("bd_addr", local), Attr("a_cols", "int"), Attr("a_rows", "int"),
                     Attr("bd_cols", "int"), Attr("bd_rows", "int"))
    instructions = [
        InstructionSpec("config_ex", "gemmini_extended_config_ex",
                        (Attr("dataflow", "int", "0 OS, 1 WS"), Attr("act", "int", "0 none, 1 ReLU"),
                         Attr("sys_shift", "int"), Attr("acc_scale", "float"), Attr("relu6_shift", "int"),
                         Attr("a_stride", "int"), Attr("a_transpose", "bool"), Attr("b_transpose", "bool")),
                        "execute", config_ex, "configure the execute pipeline (drains it)"),
        InstructionSpec("config_ld", "gemmini_extended3_config_ld",
                        (Attr("stride", "int", "DRAM row stride in bytes"), Attr("scale", "float"),
                         Attr("shrunk", "bool", "accumulator mvin reads inputType"), Attr("id", "int", "0 mvin, 1 mvin2, 2 mvin3")),
                        "load", config_ld, "configure one of the three mvin instructions"),
        InstructionSpec("config_st", "gemmini_config_st", (Attr("stride", "int", "DRAM row stride in bytes"),),
                        "store", config_st, "configure mvout"),
        InstructionSpec("mvin", "gemmini_extended_mvin", mvin_attrs, "load", make_mvin(0), "DRAM → scratchpad/accumulator (config_ld id 0)"),
        InstructionSpec("mvin2", "gemmini_extended_mvin2", mvin_attrs, "load", make_mvin(1), "as mvin, with config_ld id 1"),
        InstructionSpec("mvin3", "gemmini_extended_mvin3", mvin_attrs, "load", make_mvin(2), "as mvin, with config_ld id 2"),
        InstructionSpec("mvout", "gemmini_extended_mvout",
                        (Attr("dram_addr", hbm), Attr("spad_addr", local), Attr("cols", "int", f"≤ {dim}"), Attr("rows", "int", f"≤ {dim}")),
                        "store", mvout, "scratchpad/accumulator → DRAM"),
        InstructionSpec("preload", "gemmini_extended_preload",
                        (Attr("bd_addr", local), Attr("c_addr", local), Attr("bd_cols", "int"), Attr("bd_rows", "int"),
                         Attr("c_cols", "int"), Attr("c_rows", "int")),
                        "execute", preload, "WS: weights B and output C of the next compute; OS: bias D and output C"),
        InstructionSpec("compute_preloaded", "gemmini_extended_compute_preloaded", compute_attrs, "execute",
                        make_compute(True), "first compute after a preload"),
        InstructionSpec("compute_accumulated", "gemmini_extended_compute_accumulated", compute_attrs, "execute",
                        make_compute(False), "compute reusing the weights (WS) / partial sums (OS) in the array"),
        InstructionSpec("loop_ws", "gemmini_loop_ws",
                        tuple(Attr(n, hbm if n in ("A", "B", "D", "C") else "bool" if n in (
                            "A_transpose", "B_transpose", "full_C", "low_D", "ex_accumulate") else "int") for n in LOOP_WS_ATTRS),
                        "fsm", loop_ws, "the GEMM state machine: a block of I x J output tiles over K reduction tiles "
                        "(module docstring)", fixed_args=(0, 0, 0), expand=expand_loop_ws),
        InstructionSpec("flush", "gemmini_flush", (Attr("skip", "int"),), "none", flush, "flush the TLB"),
        InstructionSpec("fence", "gemmini_fence", (), "none", fence, "wait for outstanding instructions"),
    ]
    table = {i.name: i for i in instructions}
    registers = {
        "fsm": {"call": 0, "acc": 0},
        "ex": {"dataflow": OUTPUT_STATIONARY, "act": NO_ACTIVATION, "sys_shift": 0, "acc_scale": 1.0,
               "a_stride": 1, "a_transpose": 0, "b_transpose": 0},
        "ld": {i: {"stride": dim * it.itemsize, "scale": 1.0, "shrunk": False} for i in range(3)},
        "st_stride": dim * it.itemsize,
        "c_addr": GARBAGE, "c_rows": dim, "c_cols": dim,
        "pending_b": (GARBAGE, dim, dim),
        "weights": np.zeros((dim, dim), dtype=np.float32 if is_float else np.int64),
        "psum": np.zeros((dim, dim), dtype=np.float32 if is_float else np.int64),
    }
    return IsaDescription(
        name="gemmini",
        params={"dim": dim, "config": config, "spad_rows": spad_rows, "acc_rows": acc_rows,
                "spad_max_cols": spad_max_cols, "acc_max_cols": acc_max_cols},
        buffers={"spad": BufferSpec("spad", spad_rows, dim, types["input"], "scratchpad"),
                 "acc": BufferSpec("acc", acc_rows, dim, types["acc"], "accumulator")},
        registers=registers,
        instructions=table,
        types=dict(types),
        doc=__doc__ or "",
    )


def fma32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """float32 ``a*b + c`` with a single rounding (IEEE fusedMultiplyAdd, round to nearest
    even), elementwise.

    ``a*b`` is exact in float64 (24 + 24 ≤ 53 bits); the sum is rounded to odd in float64
    (TwoSum gives the error; an inexact sum with an even last bit moves one ulp toward the
    exact value) and then to float32, which is correctly rounded because 53 ≥ 2·24 + 2
    (Boldo & Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using
    rounding to odd", IEEE TC 57(4), 2008)."""
    p = a.astype(np.float64) * b.astype(np.float64)
    q = c.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        s = p + q
        bb = s - p
        err = (p - (s - bb)) + (q - bb)
        odd = (s.view(np.int64) & 1).astype(bool)
        fix = (err != 0) & ~odd & np.isfinite(s)
        s = np.where(fix, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
    return s.astype(np.float32)
