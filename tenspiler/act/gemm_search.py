"""A verified schedule search for Gemmini matrix products (issue 17; the Autocomp idea
without an LLM, and with the oracle where Autocomp only tests).

A :class:`GemmSchedule` is a point of an optimisation menu (Autocomp §3.2's menu, the
options that apply to a weight-stationary GEMM):

* **tile sizes** ``tm × tn`` output tiles per block and ``tk`` reduction tiles per chunk;
* **operand residency**: the whole ``K × tn`` panel of ``B`` moved in once per column block
  and kept while every row block uses it (``b_resident``), or a chunk per step;
* **double buffering** (``double_buffer``): the next step's operand chunks are moved in while
  the current step computes (issued after its first reduction tile, as Autocomp's
  schedule does), and the accumulator holds two blocks, so a block is moved out while the next
  one computes;
* **weight reuse** (``reuse_weights``): one preload of a ``B`` tile serves every row tile of
  the block (``compute_accumulated``), instead of a fresh preload per tile product;
* **accumulator residency**: partial sums stay in the accumulator across the reduction
  chunks of a block (always: the first product of each output tile overwrites, the others
  accumulate — the "first-compute handling" of Autocomp App. D);
* ``mvin`` widths (``mvin``): each ``mvin`` moves ``mvin`` tiles of a row, or (0) as many as
  ``MAX_BYTES`` allows (4 int8 tiles): fewer, wider requests against more, narrower ones;
* **the GEMM state machine** (``fsm``): one ``loop_ws`` call per block of ``tm × tn`` tiles
  and reduction chunk of ``tk`` (``ex_accumulate`` carries the partial sums, the last chunk
  moves the block out), the state machine's own order and buffering (see
  :mod:`tenspiler.act.isa.gemmini`); the software options do not apply to it.

A **bias** (``bias=True`` of :func:`gemm_schedule_proc`) is not a menu choice but part of what
is computed: ``C = D + A·B`` with ``D`` moved into the accumulator first (Autocomp's epilogue
fusion), every menu point has it.

:func:`gemm_schedule_proc` writes a schedule as a :class:`~tenspiler.act.schedule.Proc` over
whole blocks (the caller pads operands with zeros, as for the ACT block kernels): ``A`` int8
``[MB·tm·DIM × KC·tk·DIM]``, ``B`` int8 ``[KC·tk·DIM × NB·tn·DIM]``, ``C`` int32 raw, row
strides ``sa``, ``sb``, ``sc`` in elements. It renders to C loops (:func:`~tenspiler.act.
schedule.render_c`) and runs to its instruction stream (:func:`~tenspiler.act.schedule.
run_proc`).

:func:`search` is a beam search over the menu scored by the calibrated cost model
(:mod:`tenspiler.act.cost`) on a proxy shape (the real one with at most about
:data:`PROXY_TILE_PRODUCTS` tile products), deterministic (candidates in a fixed order, ties
broken by the schedule's key) and bounded in work, not in seconds (issue 33): ``rounds`` rounds
of a beam of ``beam`` schedules per family, and at most ``max_candidates``
(:data:`MAX_CANDIDATES`) candidates modelled — so the winner, and the C that uses it, is the
same on any machine under any load. The best candidates are then modelled at the real shape,
and the winner must run bit-exactly on the oracle against the exact integer product
(:func:`verify`) before it is returned — a candidate that fails is dropped and the next one
verified. A wall-clock ``time_limit`` (:data:`SEARCH_SAFETY_NET_S`) is only a safety net: when
it fires the result says so (``SearchResult.timed_out``, a ``safety net`` line in its log) and
callers do not use it (the generated C falls back to its run-time variants) — the one case in
which the outcome depends on time.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from tenspiler.act.cost import CostParams, CostReport, estimate
from tenspiler.act.isa import Inst, IsaDescription
from tenspiler.act.isa.gemmini import (
    ACC_BIT,
    ACCUMULATE_BIT,
    CONFIGS,
    GARBAGE,
    MAX_BYTES,
    RAW_BIT,
    WEIGHT_STATIONARY,
    gemmini_isa,
)
from tenspiler.act.oracle import HbmBuffer, Oracle
from tenspiler.act.schedule import (
    E,
    For,
    If,
    Instr,
    Let,
    Param,
    Proc,
    Stmt,
    const,
    emin,
    run_proc,
    select,
    var,
)

__all__ = [
    "MAX_CANDIDATES",
    "PROXY_TILE_PRODUCTS",
    "SEARCH_SAFETY_NET_S",
    "GemmSchedule",
    "SearchResult",
    "fits",
    "gemm_schedule_proc",
    "parse_schedule_name",
    "schedule_name",
    "schedule_stream",
    "search",
    "verify",
]

#: tile products of the proxy shape the beam search scores candidates on
PROXY_TILE_PRODUCTS = 4096

#: candidates the beam search models on the proxy shape, at most: its work budget with
#: ``rounds`` × ``beam`` (each costs about the same: one proxy-shape stream and estimate). The
#: default rounds and beam model 54–266 candidates on the tests' and Exo's shapes (issue 33), so
#: this cap does not cut them: it bounds the search on other menus or longer searches
MAX_CANDIDATES = 1000

#: wall-clock seconds after which a search stops whatever its budget (a safety net whose firing
#: the result reports: ``SearchResult.timed_out``); Exo's shapes take 31–130 s on a loaded
#: 2-core machine, the oracle's check of the winner included
SEARCH_SAFETY_NET_S = 600.0


@dataclass(frozen=True, order=True)
class GemmSchedule:
    """One point of the menu (see the module docstring); sizes in DIM tiles."""

    tm: int = 1
    tn: int = 1
    tk: int = 4
    b_resident: bool = False
    double_buffer: bool = False
    reuse_weights: bool = False
    mvin: int = 0
    fsm: bool = False

    def describe(self) -> str:
        """One line for the generated file's header."""
        if self.fsm:
            return (f"Gemmini's GEMM state machine (gemmini_loop_ws) on blocks of {self.tm}x{self.tn} tiles, "
                    f"reduction chunks of {self.tk} tiles")
        flags = [f for f, on in (("B panel resident", self.b_resident), ("double-buffered operands and accumulator",
                 self.double_buffer), ("weights reused across row tiles", self.reuse_weights),
                 (f"mvin of {self.mvin} tile(s)", self.mvin > 0)) if on]
        return f"blocks {self.tm}x{self.tn} tiles, reduction chunks of {self.tk} tiles" + "".join(f"; {f}" for f in flags)


def _rows(s: GemmSchedule, dim: int, kt: int) -> tuple[int, int, int]:
    """Scratchpad rows of one A buffer and of the B region, accumulator rows of one block."""
    a_rows = s.tm * s.tk * dim
    b_rows = kt * s.tn * dim if s.b_resident else s.tk * s.tn * dim * (2 if s.double_buffer else 1)
    return a_rows, b_rows, s.tm * s.tn * dim


def fits(s: GemmSchedule, isa: IsaDescription, kt: int) -> bool:
    """Whether ``s`` fits the scratchpad and accumulator of ``isa`` for a reduction of ``kt``
    tiles (``kt`` a multiple of ``s.tk``)."""
    dim = int(isa.params["dim"])
    if s.fsm:  # one call's operands in half the scratchpad, its outputs in half the accumulator
        return (kt % s.tk == 0 and (s.tm * s.tk + s.tk * s.tn) * dim <= int(isa.params["spad_rows"]) // 2
                and s.tm * s.tn * dim <= int(isa.params["acc_rows"]) // 2)
    a_rows, b_rows, acc_rows = _rows(s, dim, kt)
    bufs = 2 if s.double_buffer else 1
    return (kt % s.tk == 0 and a_rows * bufs + b_rows <= int(isa.params["spad_rows"])
            and acc_rows * bufs <= int(isa.params["acc_rows"]))


def gemm_schedule_proc(s: GemmSchedule, dim: int = 16, name: str | None = None,
                       out: str = "int32", config: str = "int8", bias: bool = False) -> Proc:
    """``s`` as a procedure (see the module docstring). Parameters ``A``, ``B``, ``C``
    (pointers), ``MB``, ``NB``, ``KC`` (row blocks, column blocks, reduction chunks ≥ 1),
    ``sa``, ``sb``, ``sc`` (row strides, elements); ``MB`` or ``KC`` 0 issues only the
    configuration and the fence; the caller guarantees :func:`fits` for its reduction. ``out``:
    ``"int32"`` (raw accumulator values) or ``"int8"`` (moved out scaled by 1.0 and
    saturated, as Exo's and Autocomp's GEMMs do). ``config="fp32"``: float32 operands and
    raw float32 results (``out="int32"`` then means the raw accumulator type).

    ``bias``: ``C = D + A·B`` — the elementwise bias epilogue fused into the product (Gemmini's
    ``tiled_matmul`` bias, its ``repeating_bias`` a stride of 0): two more parameters, ``D``
    (accumulator-type elements, ``MB·tm·DIM × NB·tn·DIM`` read with row stride ``sd``; ``sd =
    0`` repeats one row, a bias per column) and ``sd``; each output block's ``D`` rows are moved
    into the accumulator (``mvin3``) before its first product, which then accumulates instead of
    overwriting — no pass over the result on the host or the device afterwards."""
    if out not in ("int32", "int8"):
        raise ValueError(f"out must be int32 or int8, got {out!r}")
    es, acs = (np.dtype(CONFIGS[config][t]).itemsize for t in ("input", "acc"))
    cs, raw = (acs, RAW_BIT) if out == "int32" else (es, 0)
    widest = max(1, MAX_BYTES // (dim * es))
    mvin_tiles = min(s.mvin, widest) if s.mvin > 0 else widest
    tm, tn, tk = s.tm, s.tn, s.tk
    a_rows, _, acc_rows = _rows(s, dim, tk)  # the B panel's size does not move anything
    b_base = a_rows * (2 if s.double_buffer else 1)
    b_chunk = tk * tn * dim
    A, B, C = var("A"), var("B"), var("C")
    MB, KC = var("MB"), var("KC")
    jb, ib, kc, k, i, j = (var(x) for x in ("jb", "ib", "kc", "k", "i", "j"))
    sa, sb, sc = var("sa"), var("sb"), var("sc")
    D, sd = var("D"), var("sd")  # the fused bias

    def software_nest() -> tuple[Stmt, ...]:
        """The menu's software schedule: column blocks outermost (see the module docstring)."""
        def buf(step: E) -> E | int:
            return step % 2 if s.double_buffer else 0

        def load_a(ib_: E, kc_: E, slot: E | int) -> Stmt:
            base = slot * a_rows
            return For("i", const(0), const(tm), 1, (
                For("kk", const(0), const(tk), mvin_tiles, (
                    Instr("mvin", (A + (((ib_ * tm + i) * dim) * sa + (kc_ * tk + var("kk")) * dim) * es,
                                   base + (i * tk + var("kk")) * dim,
                                   emin(mvin_tiles, tk - var("kk")) * dim, dim)),)),))

        def load_b(kc_: E, slot: E | int, k_tiles: int, base0: int) -> Stmt:
            base = base0 + slot * b_chunk
            return For("k", const(0), const(k_tiles), 1, (
                For("jj", const(0), const(tn), mvin_tiles, (
                    Instr("mvin2", (B + (((kc_ * tk + k) * dim) * sb + (jb * tn + var("jj")) * dim) * es,
                                    base + (k * tn + var("jj")) * dim,
                                    emin(mvin_tiles, tn - var("jj")) * dim, dim)),)),))

        def load_b_panel() -> Stmt:
            return For("k", const(0), KC * tk, 1, (
                For("jj", const(0), const(tn), mvin_tiles, (
                    Instr("mvin2", (B + ((k * dim) * sb + (jb * tn + var("jj")) * dim) * es, b_base + (k * tn + var("jj")) * dim,
                                    emin(mvin_tiles, tn - var("jj")) * dim, dim)),)),))

        def mvouts(ib_: E, acc: E | int) -> Stmt:
            return For("i", const(0), const(tm), 1, (
                For("j", const(0), const(tn), 1, (
                    Instr("mvout", (C + (((ib_ * tm + i) * dim) * sc + (jb * tn + j) * dim) * cs,
                                    acc + (i * tn + j) * dim + raw, dim, dim)),)),))

        step = ib * KC + kc
        a_slot = buf(step)
        # the B tile (k, j) of this step and the A tile (i, k)
        b_tile = (b_base + ((kc * tk + k) * tn + j) * dim) if s.b_resident else (b_base + buf(step) * b_chunk + (k * tn + j) * dim)
        a_tile = var("abuf") + (i * tk + k) * dim
        acc_blk = ACC_BIT + buf(ib) * acc_rows
        flag = ACCUMULATE_BIT if bias else select((kc + k).eq(0), 0, ACCUMULATE_BIT)

        def load_d(ib_: E, acc: E | int) -> Stmt:
            """The bias of output block ``(ib_, jb)`` into the accumulator block at ``acc``."""
            return For("i", const(0), const(tm), 1, (
                For("j", const(0), const(tn), 1, (
                    Instr("mvin3", (D + (((ib_ * tm + i) * dim) * sd + (jb * tn + j) * dim) * acs,
                                    acc + (i * tn + j) * dim, dim, dim)),)),))
        if s.reuse_weights:
            products: tuple[Stmt, ...] = (For("j", const(0), const(tn), 1, (
                Instr("preload", (b_tile, var("acc") + j * dim + flag, dim, dim, dim, dim)),
                Instr("compute_preloaded", (var("abuf") + k * dim, GARBAGE, dim, dim, dim, dim)),
                For("i", const(1), const(tm), 1, (
                    Instr("preload", (GARBAGE, var("acc") + (i * tn + j) * dim + flag, dim, dim, dim, dim)),
                    Instr("compute_accumulated", (a_tile, GARBAGE, dim, dim, dim, dim)),
                )),
            )),)
        else:
            products = (For("i", const(0), const(tm), 1, (
                For("j", const(0), const(tn), 1, (
                    Instr("preload", (b_tile, var("acc") + (i * tn + j) * dim + flag, dim, dim, dim, dim)),
                    Instr("compute_preloaded", (a_tile, GARBAGE, dim, dim, dim, dim)),
                )),)),)
        after_first: list[Stmt] = []
        if s.double_buffer:
            # prefetch the next step's operands, and move the previous block out
            nxt = step + 1
            n_ib = select((kc + 1).eq(KC), ib + 1, ib)
            n_kc = (kc + 1) % KC
            pre: list[Stmt] = [load_a(n_ib, n_kc, nxt % 2)]
            if not s.b_resident:
                pre.append(load_b(n_kc, nxt % 2, tk, b_base))
            after_first.append(If(nxt.lt(MB * KC), tuple(pre)))
            after_first.append(If(kc.eq(0), (If(const(0).lt(ib), (mvouts(ib - 1, ACC_BIT + ((ib - 1) % 2) * acc_rows),)),)))
            if bias:
                # the next block's bias into the accumulator block just moved out (program order:
                # after its move-out), while this block computes
                after_first.append(If(kc.eq(KC - 1), (If((ib + 1).lt(MB), (load_d(ib + 1, ACC_BIT + ((ib + 1) % 2) * acc_rows),)),)))
        k_loop = For("k", const(0), const(tk), 1, (*products, *((If(k.eq(0), tuple(after_first)),) if after_first else ())))
        step_body: list[Stmt] = [Let("abuf", a_slot * a_rows if isinstance(a_slot, E) else const(0)), Let("acc", acc_blk)]
        if bias and not s.double_buffer:
            step_body.append(If(kc.eq(0), (load_d(ib, ACC_BIT),)))
        if not s.double_buffer:
            step_body.append(load_a(ib, kc, 0))
            if not s.b_resident:
                step_body.append(load_b(kc, 0, tk, b_base))
        step_body.append(k_loop)
        block: list[Stmt] = [For("kc", const(0), KC, 1, tuple(step_body))]
        if not s.double_buffer:
            block.append(mvouts(ib, ACC_BIT))
        col: list[Stmt] = []
        if s.b_resident:
            col.append(load_b_panel())
        if s.double_buffer:
            if bias:
                col.append(load_d(const(0), ACC_BIT))
            col.append(load_a(const(0), const(0), 0))
            if not s.b_resident:
                col.append(load_b(const(0), 0, tk, b_base))
        col.append(For("ib", const(0), MB, 1, tuple(block)))
        if s.double_buffer:
            col.append(mvouts(MB - 1, ACC_BIT + ((MB - 1) % 2) * acc_rows))
        return (For("jb", const(0), var("NB"), 1, tuple(col)),)

    def fsm_nest() -> tuple[Stmt, ...]:
        """One state-machine call per (row block, column block, reduction chunk): partial sums
        stay in the accumulator across the chunks (ex_accumulate), the bias comes with the
        first chunk, the block is moved out by the last."""
        last = (kc + 1).eq(KC)
        call = Instr("loop_ws", (
            tm, tn, tk, 0, 0, 0,
            A + (ib * tm * dim * sa + kc * tk * dim) * es, B + (kc * tk * dim * sb + jb * tn * dim) * es,
            (select(kc.eq(0), D + (ib * tm * dim * sd + jb * tn * dim) * acs, 0) if bias else 0),
            select(last, C + (ib * tm * dim * sc + jb * tn * dim) * cs, 0),
            sa, sb, (sd if bias else 0), sc, 0, 0, 1 if out == "int32" else 0, 0, select(kc.eq(0), 0, 1), 0))
        return (For("ib", const(0), MB, 1, (For("jb", const(0), var("NB"), 1, (For("kc", const(0), KC, 1, (call,)),)),)),)

    body: tuple[Stmt, ...] = (
        Instr("config_ex", (WEIGHT_STATIONARY, 0, 0, 1.0, 0, 1, 0, 0)),
        Instr("config_st", (sc * cs,)),
        Instr("config_ld", (sa * es, 1.0, 0, 0)),
        Instr("config_ld", (sb * es, 1.0, 0, 1)),
        *((Instr("config_ld", (sd * acs, 1.0, 0, 2)),) if bias else ()),
        # nothing to do (and no block to prefetch or move out) for an empty product
        If(const(0).lt(MB * KC), fsm_nest() if s.fsm else software_nest()),
        Instr("fence", ()),
    )
    params: tuple[Param, ...] = (Param("A", "ptr", "elem_t"), Param("B", "ptr", "elem_t"),
              Param("C", "ptr", "acc_t" if out == "int32" else "elem_t", written=True),
              Param("MB", "size"), Param("NB", "size"), Param("KC", "size"),
              Param("sa", "size"), Param("sb", "size"), Param("sc", "size"))
    if bias:
        params += (Param("D", "ptr", "acc_t"), Param("sd", "size"))
    what = f"{config} operands, C raw {CONFIGS[config]['acc']}" if out == "int32" else "int8 operands, C int8 saturated"
    product = "C = D + A . B (the bias D moved into the accumulator)" if bias else "C = A . B"
    return Proc(name or schedule_name(s, bias), params, body, f"{product} on a {dim}x{dim} Gemmini ({what}): {s.describe()}")


def schedule_name(s: GemmSchedule, bias: bool = False) -> str:
    """The device procedure name of ``s`` (``gemm_1x4x8_bdw``: tile sizes, then ``b`` for a
    resident B panel, ``d`` double buffering, ``w`` weight reuse, ``m2`` mvin of 2 tiles;
    ``_bias`` for the fused bias of :func:`gemm_schedule_proc`)."""
    flags = "".join(c for c, on in (("b", s.b_resident), ("d", s.double_buffer), ("w", s.reuse_weights), ("f", s.fsm)) if on)
    flags += f"m{s.mvin}" if s.mvin > 0 else ""
    return f"gemm_{s.tm}x{s.tn}x{s.tk}" + (f"_{flags}" if flags else "") + ("_bias" if bias else "")


def parse_schedule_name(name: str) -> tuple[GemmSchedule, bool] | None:
    """The schedule of a :func:`schedule_name` name and whether it fuses the bias, or ``None``."""
    if not name.startswith("gemm_"):
        return None
    bias = name.endswith("_bias")
    sizes, _, flags = name.removeprefix("gemm_").removesuffix("_bias").partition("_")
    flags, _, mvin = flags.partition("m")
    try:
        tm, tn, tk = (int(x) for x in sizes.split("x"))
        tiles = int(mvin) if mvin else 0
    except ValueError:
        return None
    return GemmSchedule(tm, tn, tk, "b" in flags, "d" in flags, "w" in flags, tiles, "f" in flags), bias


def _args(m: int, n: int, k: int, s: GemmSchedule, dim: int, base: int, bias: str | None = None) -> dict[str, int]:
    cs = 4  # C and D: room for int32 elements
    args = {"A": base, "B": base + m * k, "C": base + m * k + k * n, "MB": m // (s.tm * dim), "NB": n // (s.tn * dim),
            "KC": k // (s.tk * dim), "sa": k, "sb": n, "sc": n}
    if bias is not None:
        args |= {"D": base + m * k + k * n + cs * m * n, "sd": 0 if bias == "row" else n}
    return args


_BASE = 0x1000_0000


def schedule_stream(s: GemmSchedule, m: int, n: int, k: int, dim: int = 16, out: str = "int32",
                    bias: str | None = None) -> list[Inst]:
    """The instruction stream of ``s`` for an ``m × n × k`` product (whole blocks), operands
    densely packed from a fixed address; ``bias``: ``None``, ``"row"`` (one row of ``D``
    repeated, ``sd = 0``) or ``"full"`` (an ``m × n`` ``D``)."""
    return run_proc(gemm_schedule_proc(s, dim, out=out, bias=bias is not None), _args(m, n, k, s, dim, _BASE, bias))


def verify(s: GemmSchedule, m: int, n: int, k: int, dim: int = 16, seed: int = 0, out: str = "int32",
           bias: str | None = None) -> bool:
    """Whether ``s`` computes ``A·B`` (``D + A·B`` with ``bias``: see :func:`schedule_stream`)
    bit-exactly on the oracle for random int8 operands.
    ``int32`` out: the full int8 range (int32 sums of ``k ≤ 2¹⁷`` products cannot wrap; the
    bias within ±2²⁴);
    ``int8`` out: sparse operands in {-1, 0, 1}, so that most sums stay inside int8 and the
    saturation does not hide a wrong sum (the bias in [-3, 3])."""
    rng = np.random.default_rng(seed)
    if out == "int32":
        a = rng.integers(-128, 128, (m, k)).astype(np.int8)
        b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    else:
        a = (rng.integers(-1, 2, (m, k)) * (rng.random((m, k)) < 0.3)).astype(np.int8)
        b = (rng.integers(-1, 2, (k, n)) * (rng.random((k, n)) < 0.3)).astype(np.int8)
    mem = HbmBuffer(m * k + k * n + 8 * m * n + 64, _BASE)
    mem.place(_BASE, a)
    mem.place(_BASE + m * k, b)
    want = a.astype(np.int64) @ b.astype(np.int64)
    if bias is not None:
        size = 2**24 if out == "int32" else 3
        d = rng.integers(-size, size + 1, (1 if bias == "row" else m, n)).astype(np.int32)
        mem.place(_BASE + m * k + k * n + 4 * m * n, d)
        want = want + d
    Oracle(gemmini_isa(dim, "int8")).run(schedule_stream(s, m, n, k, dim, out, bias), mem)
    got = mem.read(_BASE + m * k + k * n, m * n, np.dtype(np.int32 if out == "int32" else np.int8)).reshape(m, n)
    return bool(np.array_equal(got, want if out == "int32" else np.clip(want, -128, 127)))


def _divisors(x: int, limit: int) -> list[int]:
    return [d for d in range(1, min(x, limit) + 1) if x % d == 0]


def _moves(s: GemmSchedule, mt: int, nt: int, kt: int) -> Iterator[GemmSchedule]:
    """The menu applied once to ``s``: each tile size to each admissible value, each flag
    flipped."""
    for v in _divisors(mt, 8):
        yield dataclasses.replace(s, tm=v)
    for v in _divisors(nt, 8):
        yield dataclasses.replace(s, tn=v)
    for v in _divisors(kt, 32):
        yield dataclasses.replace(s, tk=v)
    if s.fsm:  # the state machine has no software options: only its tile sizes, or back
        yield dataclasses.replace(s, fsm=False)
        return
    for flag in ("b_resident", "double_buffer", "reuse_weights"):
        yield dataclasses.replace(s, **{flag: not getattr(s, flag)})
    for v in (0, 1, 2):
        yield dataclasses.replace(s, mvin=v)
    yield GemmSchedule(s.tm, s.tn, s.tk, fsm=True)


def _per_family(ranked: list[GemmSchedule], beam: int) -> list[GemmSchedule]:
    """The ``beam`` best software schedules and the ``beam`` best state-machine ones, best
    first: the proxy shape favours one family more than the real shape may, so neither may
    crowd the other out of the beam or the finalists."""
    soft = [c for c in ranked if not c.fsm][:beam]
    fsm = [c for c in ranked if c.fsm][:beam]
    keep = set(soft) | set(fsm)
    return [c for c in ranked if c in keep]


@dataclass
class SearchResult:
    """The winner, its modelled cost at the real shape, and what the search did.

    Attributes:
        schedule: the winner (when ``timed_out``: the best schedule on the proxy shape so far,
            not to be used).
        report: its cost at the real shape (when ``timed_out``: at the proxy shape).
        candidates: candidates modelled on the proxy shape (the work budget's unit).
        seconds: wall-clock seconds the search took (information only: nothing depends on it).
        verified: the winner ran bit-exactly on the oracle.
        log: one line per round, per finalist, and for a budget or safety net that stopped it.
        timed_out: the wall-clock safety net (``time_limit``) fired: the result depends on the
            machine's speed and callers fall back as if there had been no search.
    """

    schedule: GemmSchedule
    report: CostReport
    candidates: int
    seconds: float
    verified: bool
    log: list[str]
    timed_out: bool = False


def search(m: int, n: int, k: int, dim: int = 16, *, beam: int = 4, rounds: int = 6,
           max_candidates: int = MAX_CANDIDATES, time_limit: float = SEARCH_SAFETY_NET_S,
           params: CostParams | None = None, verify_winner: bool = True, out: str = "int32",
           bias: str | None = None) -> SearchResult:
    """Beam search over the menu for an ``m × n × k`` int8 product (multiples of ``dim``);
    ``bias`` (``"row"`` / ``"full"``, :func:`schedule_stream`): with the fused bias epilogue,
    modelled and verified with it.

    Each round applies every move to every schedule in the beam, models each new candidate
    that fits on the proxy shape (in the schedules' order), and keeps the ``beam`` best of each
    family — software schedules and the state machine's (utilisation, then the schedule's
    order: deterministic). The search's budget is work: after ``rounds`` rounds, or once
    ``max_candidates`` candidates are modelled (the round in progress ranks those it modelled;
    the log says so), the best candidates are modelled at the real shape and verified on the
    oracle in that order; the first that is bit-exact wins. The result is a function of the
    arguments only.

    ``time_limit``: wall-clock seconds, a safety net — once they are spent the search stops
    and returns what it has with ``timed_out`` set and a ``safety net`` line in its log (the
    only case in which the result depends on the machine); callers must not use that
    schedule.

    Raises:
        ValueError: sizes not multiples of ``dim``, a budget below 1, or no candidate verified.
    """
    if m % dim or n % dim or k % dim or min(m, n, k) <= 0:
        raise ValueError(f"the search takes whole tiles: {m}×{n}×{k} with DIM={dim}")
    if max_candidates < 1 or beam < 1:
        raise ValueError(f"the search needs a budget of at least one candidate and a beam of one, got "
                         f"max_candidates={max_candidates}, beam={beam}")
    t0 = time.monotonic()
    isa = gemmini_isa(dim, "int8")
    mt, nt, kt = m // dim, n // dim, k // dim
    # the proxy: about PROXY_TILE_PRODUCTS tile products, fewer rows (and columns) than the
    # real shape, whole blocks of the candidate
    target_mt = max(8, PROXY_TILE_PRODUCTS // (min(nt, 16) * kt))
    reports: dict[GemmSchedule, CostReport | None] = {}  # None: does not fit
    log: list[str] = []

    def utilization(s: GemmSchedule) -> float:
        r = reports[s]
        return -1.0 if r is None else r.utilization

    def score(s: GemmSchedule) -> None:
        if s not in reports:
            pmt = min(mt, max(s.tm, target_mt // s.tm * s.tm))
            pnt = min(nt, max(s.tn, 16 // s.tn * s.tn))
            reports[s] = estimate(isa, schedule_stream(s, pmt * dim, pnt * dim, k, dim, out, bias), params) if fits(s, isa, kt) else None

    def safety_net(where: str) -> bool:
        spent = time.monotonic() - t0
        if spent <= time_limit:
            return False
        log.append(f"safety net: {spent:.1f} s of wall clock spent (time limit {time_limit:g} s) {where}; "
                   f"the result depends on the machine's speed and is not used")
        return True

    def ranked(among: Iterable[GemmSchedule]) -> list[GemmSchedule]:
        """The modelled candidates of ``among`` that fit, best first (ties: the schedules' order)."""
        return sorted((c for c in among if reports.get(c) is not None), key=lambda c: (-utilization(c), c))

    def stopped() -> SearchResult:
        best = ranked(reports)[0] if ranked(reports) else start
        return SearchResult(best, reports[best] or estimate(isa, [], params), len(reports), time.monotonic() - t0,
                            False, log, timed_out=True)

    start = GemmSchedule(tk=max(_divisors(kt, 4)))
    frontier = [start]
    score(start)
    for r in range(rounds):
        if len(reports) >= max_candidates:
            log.append(f"round {r}: budget of {max_candidates} candidates reached")
            break
        cands = sorted({c for s in frontier for c in _moves(s, mt, nt, kt)} | set(frontier))
        for c in cands:
            if c in reports:
                continue
            if len(reports) >= max_candidates:
                log.append(f"round {r}: budget of {max_candidates} candidates reached")
                break
            if safety_net(f"in round {r}"):
                return stopped()
            score(c)
        frontier = _per_family(ranked(cands), beam)
        log.append(f"round {r}: best {utilization(frontier[0]):.1%} {frontier[0]}")
    finalists = _per_family(ranked(reports), beam)
    full: dict[GemmSchedule, CostReport] = {}
    for c in finalists:
        if safety_net("modelling the finalists"):
            return stopped()
        full[c] = estimate(isa, schedule_stream(c, m, n, k, dim, out, bias), params)
    for c in sorted(finalists, key=lambda c: (-full[c].utilization, c)):
        if safety_net("verifying the finalists"):
            return stopped()
        ok = verify(c, m, n, k, dim, out=out, bias=bias) if verify_winner else False
        log.append(f"final: {full[c].utilization:.1%} {c} {'bit-exact' if ok else 'not verified'}")
        if ok or not verify_winner:
            return SearchResult(c, full[c], len(reports), time.monotonic() - t0, ok, log)
    raise ValueError(f"no schedule for {m}×{n}×{k} ran bit-exactly on the oracle: " + "; ".join(log))


def runtime_variants(dim: int, m: int | None = None, n: int | None = None, k: int | None = None) -> list[GemmSchedule]:
    """The schedules generated code chooses among at run time for sizes it does not know
    (:func:`choose_variant` is the rule; a size known statically fixes its choice): one row
    tile per block, four column tiles (one for ``n ≤ DIM``: a matrix–vector product), chunks of
    4 reduction tiles (8 past ``4·DIM``), the B panel resident when it fits, double buffering —
    the point the search picks for most of Exo's shapes."""
    out = []
    for tn in ((1,) if n is not None and n <= dim else (4,) if n is not None else (1, 4)):
        for tk in ((4,) if k is not None and k <= 4 * dim else (8,) if k is not None else (4, 8)):
            for b in (True, False):
                out.append(GemmSchedule(1, tn, tk, b, True, False))
    return out


def choose_variant(m: int, n: int, k: int, dim: int, spad_rows: int) -> GemmSchedule:
    """The variant of :func:`runtime_variants` for an ``m × n × k`` product (the generated C
    applies the same rule: :func:`choose_variant_c`)."""
    tn = 1 if n <= dim else 4
    tk = 4 if k <= 4 * dim else 8
    kt = -(-k // (tk * dim)) * tk
    return GemmSchedule(1, tn, tk, kt * tn * dim + 2 * tk * dim <= spad_rows, True, False)


def choose_variant_c(x: str, dim: int, spad_rows: int) -> list[str]:
    """C declarations of ``{x}_tn``, ``{x}_tk`` and ``{x}_bres`` from ``{x}_n`` and ``{x}_k``
    (:func:`choose_variant`)."""
    return [f"const int64_t {x}_tn = {x}_n <= {dim} ? 1 : 4, {x}_tk = {x}_k <= {4 * dim} ? 4 : 8;",
            f"const int64_t {x}_kt = ({x}_k + {x}_tk * {dim} - 1) / ({x}_tk * {dim}) * {x}_tk;",
            f"const int {x}_bres = {x}_kt * {x}_tn * {dim} + 2 * {x}_tk * {dim} <= {spad_rows};"]
