"""Reference GEMM schedules with published Gemmini measurements: the calibration points of
the cost model (:mod:`tenspiler.act.cost`).

The Autocomp paper (``../shared/papers/autocomp.txt``, §4.4.1 and App. D) measured one GEMM,
``C[12544×64] = A[12544×256] · B[256×64]`` (int8 operands, int8 output scaled out of the int32
accumulator), on a 16×16 int8 Gemmini with a 256 KiB scratchpad and a 64 KiB accumulator,
four ways:

================  ==================================================  ===========
schedule          what it is                                          utilisation
================  ==================================================  ===========
``library``       Gemmini's software library (``tiled_matmul_auto``,  16 %
                  weight-stationary, software-issued inner loops)
``exo_unopt``     Exo's code before scheduling (App. D, Fig. 28)      28 %
``exo_opt``       Exo's hand-scheduled code (Fig. 29)                 43 %
``autocomp``      Autocomp's best schedule (Figs. 30–32)              93 %
================  ==================================================  ===========

Each function below writes that schedule as a :class:`~tenspiler.act.schedule.Proc`, from the
paper's description and figures (nothing is copied: the figures are unrolled C; these are
loop nests that issue the same instructions in the same order). The library's schedule
follows the description of ``tiled_matmul_auto`` / ``tiled_matmul_outer`` /
``sp_tiled_matmul_ws`` in ``gemmini.h`` (software-issued version): tile factors grown while
the operands fit half of the scratchpad and of the accumulator (double-buffered WS), loops
``j, k, i`` inside a tile with the weights preloaded once per ``(j, k)`` and reused across the
``i`` tiles (``compute_accumulated``), ``A`` moved in on the first ``j``, ``B`` on the first
``i``, each output tile moved out after its last reduction step.

Every schedule computes the same product; :func:`run_schedule` runs one on the oracle so the
tests can require it bit-exact (a calibration point that computed something else would
calibrate nothing).

**Host cost.** ``issue_interval`` of each :class:`Schedule` is the host cycles per issued
instruction (:attr:`tenspiler.act.cost.CostParams.issue_interval`). Exo's and Autocomp's code
(static loop bounds, addresses from loop counters) fit the model's default of 1; the library
computes tile sizes, padding, addresses and five conditions at run time for every
instruction, which the paper names as its bottleneck ("loop bounds, addresses, and indices must
be computed at runtime, this implementation incurs significant software overhead", §4.2). Its
40 cycles per instruction is *fitted* to its published point (so that point checks the rest of
the model only through the ranking); the other three points share one parameter set.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tenspiler.act.cost import CostParams, CostReport, estimate
from tenspiler.act.isa import Inst
from tenspiler.act.isa.gemmini import (
    ACC_BIT,
    ACCUMULATE_BIT,
    GARBAGE,
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
    run_proc,
    select,
    var,
)

__all__ = ["PUBLISHED", "SCHEDULES", "SHAPE", "Schedule", "autocomp_proc", "exo_opt_proc", "exo_unopt_proc",
           "library_proc", "library_tiles", "modelled_utilization", "run_schedule", "schedule_stream"]

DIM = 16
#: bytes of one scratchpad / accumulator row move (Gemmini's ``MAX_BYTES``: 4 blocks of int8)
ROW_BLOCKS = 4
#: the published shape (M, N, K)
SHAPE = (12544, 64, 256)
#: published utilisation on :data:`SHAPE` (Autocomp §4.4.1, App. D: Figs. 28–30)
PUBLISHED = {"library": 0.16, "exo_unopt": 0.28, "exo_opt": 0.43, "autocomp": 0.93}

_PARAMS = (Param("A", "ptr", "elem_t"), Param("B", "ptr", "elem_t"), Param("C", "ptr", "elem_t", written=True))


def _configs(sa: int, sb: int, sc: int, ids: tuple[int, int, int]) -> tuple[Stmt, ...]:
    """``config_ex`` (WS, no activation, scale 1), ``config_st`` (int8 C rows) and the three
    ``config_ld`` strides: A (``ids[0]``), B (``ids[1]``), zeros (``ids[2]``, stride 0)."""
    return (Instr("config_st", (sc,)),
            Instr("config_ex", (WEIGHT_STATIONARY, 0, 0, 1.0, 0, 1, 0, 0)),
            Instr("config_ld", (sb, 1.0, 0, ids[1])),
            Instr("config_ld", (sa, 1.0, 0, ids[0])),
            Instr("config_ld", (0, 1.0, 0, ids[2])))


_MVIN = ("mvin", "mvin2", "mvin3")


def _check(m: int, n: int, k: int, mq: int, what: str) -> None:
    if m % mq or n != ROW_BLOCKS * DIM or k % (ROW_BLOCKS * DIM):
        raise ValueError(f"{what} is written for M % {mq} == 0, N == {ROW_BLOCKS * DIM}, K % {ROW_BLOCKS * DIM} == 0; "
                         f"got {m}×{n}×{k}")


def library_tiles(m: int, n: int, k: int, spad_rows: int = 16384, acc_rows: int = 1024) -> tuple[int, int, int]:
    """The tile factors (in DIM tiles) ``tiled_matmul_auto`` picks in WS mode: start from
    ``⌊√(acc tiles / 2)⌋`` for I and J and half the scratchpad's tiles over that for K, then
    grow J, I, K in turn while A and B tiles fit half the scratchpad and C tiles half the
    accumulator (double buffering)."""
    ip, jp, kp = -(-m // DIM), -(-n // DIM), -(-k // DIM)
    spad, acc = spad_rows // 2, acc_rows // 2
    tij = int((acc // DIM) ** 0.5)
    tk_max = (spad // DIM) // tij
    ti, tj, tk = min(ip, tij), min(jp, tij), min(kp, tk_max)

    def fits(i: int, j: int, kk: int) -> bool:
        return (i * kk + kk * j) * DIM <= spad and i * j * DIM <= acc

    grown = True
    while grown:
        grown = False
        if fits(ti, tj + 1, tk) and tj + 1 <= jp:
            tj, grown = tj + 1, True
        if fits(ti + 1, tj, tk) and ti + 1 <= ip:
            ti, grown = ti + 1, True
        if (ti * (tk + 1) + (tk + 1) * tj) * DIM <= spad and tk + 1 <= kp:
            tk, grown = tk + 1, True
    return ti, tj, tk


def library_proc(m: int, n: int, k: int) -> Proc:
    """Gemmini's software library, weight-stationary (see the module docstring); whole tiles
    only (``M``, ``N``, ``K`` multiples of the tile factors × DIM)."""
    ti, tj, tk = library_tiles(m, n, k)
    if m % (ti * DIM) or n % (tj * DIM) or k % (tk * DIM):
        raise ValueError(f"library_proc is written for whole tiles; {m}×{n}×{k} with tiles {ti}×{tj}×{tk}")
    b_sp = 16384 - tk * tj * DIM          # B at the top of the scratchpad, A from row 0
    a_blocks, b_blocks = min(tk, ROW_BLOCKS), min(tj, ROW_BLOCKS)
    i, j, kk, i0, j0, k0 = (var(x) for x in ("i", "j", "k", "i0", "j0", "k0"))
    A, B, C = var("A"), var("B"), var("C")
    a_tile = (i0 * ti + i) * DIM * k + (k0 * tk + kk) * DIM
    b_tile = (k0 * tk + kk) * DIM * n + (j0 * tj + j) * DIM
    c_sp = ACC_BIT + (i * tj + j) * DIM
    inner: tuple[Stmt, ...] = (
        If(j.eq(0), (If((kk % a_blocks).eq(0), (Instr("mvin", (A + a_tile, (i * tk + kk) * DIM, a_blocks * DIM, DIM)),)),)),
        If(i.eq(0), (If((j % b_blocks).eq(0), (Instr("mvin2", (B + b_tile, b_sp + (kk * tj + j) * DIM, b_blocks * DIM, DIM)),)),)),
        Instr("preload", (select(i.eq(0), b_sp + (kk * tj + j) * DIM, GARBAGE),
                          c_sp + select((k0 + kk).eq(0), 0, ACCUMULATE_BIT), DIM, DIM, DIM, DIM)),
        If(i.eq(0), (Instr("compute_preloaded", (i * tk * DIM + kk * DIM, GARBAGE, DIM, DIM, DIM, DIM)),),
           (Instr("compute_accumulated", (i * tk * DIM + kk * DIM, GARBAGE, DIM, DIM, DIM, DIM)),)),
        If((k0 * tk + kk).eq(k // DIM - 1), (
            Instr("mvout", (C + (i0 * ti + i) * DIM * n + (j0 * tj + j) * DIM, c_sp, DIM, DIM)),)),
    )
    body: tuple[Stmt, ...] = (
        *_configs(k, n, n, (0, 1, 2)),
        For("i0", const(0), const(m // (ti * DIM)), 1, (
            For("j0", const(0), const(n // (tj * DIM)), 1, (
                For("k0", const(0), const(k // (tk * DIM)), 1, (
                    For("j", const(0), const(tj), 1, (
                        For("k", const(0), const(tk), 1, (
                            For("i", const(0), const(ti), 1, inner),)),)),)),)),)),
        Instr("fence", ()),
    )
    return Proc("library_ws", _PARAMS, body, f"Gemmini software library, WS, tiles {ti}x{tj}x{tk}")


def _exo_tile(a_base: E | int, b_rows: Callable[[E], E | int], res: E | int, ko: E) -> tuple[Stmt, ...]:
    """The 16 preload/compute pairs of one 16-row strip × one 64-deep reduction step, k outer
    and the four output column tiles inner, each preloading fresh weights (Figs. 28/29)."""
    kk, jj = var("kk"), var("jj")
    return (For("kk", const(0), const(ROW_BLOCKS), 1, (
        For("jj", const(0), const(ROW_BLOCKS), 1, (
            Instr("preload", (b_rows(ko) + kk * DIM * ROW_BLOCKS + jj * DIM, res + jj * DIM + ACCUMULATE_BIT, DIM, DIM, DIM, DIM)),
            Instr("compute_preloaded", (a_base + ko * DIM * ROW_BLOCKS + kk * DIM, GARBAGE, DIM, DIM, DIM, DIM)),
        )),)),)


def exo_unopt_proc(m: int, n: int, k: int) -> Proc:
    """Exo's unscheduled GEMM (App. D, Fig. 28): per 16-row strip, zero the four accumulator
    tiles, then per 64-deep step move in A's 16×64 slab and B's 64×64 block and run 16 tile
    products; move the strip out."""
    _check(m, n, k, DIM, "exo_unopt_proc")
    i, ko, kk, jj = var("i"), var("ko"), var("kk"), var("jj")
    A, B, C = var("A"), var("B"), var("C")
    res, b0 = ACC_BIT, DIM * ROW_BLOCKS * ROW_BLOCKS
    steps = k // (DIM * ROW_BLOCKS)
    body: tuple[Stmt, ...] = (
        *_configs(k, n, n, (1, 2, 0)),
        For("i", const(0), const(m // DIM), 1, (
            For("jj", const(0), const(ROW_BLOCKS), 1, (Instr("mvin", (0, res + jj * DIM, DIM, DIM)),)),
            For("ko", const(0), const(steps), 1, (
                Instr("mvin2", (A + i * DIM * k + ko * DIM * ROW_BLOCKS, ko * DIM * ROW_BLOCKS, DIM * ROW_BLOCKS, DIM)),
                For("kk", const(0), const(ROW_BLOCKS), 1, (
                    Instr("mvin3", (B + (ko * DIM * ROW_BLOCKS + kk * DIM) * n, b0 + ko * DIM * ROW_BLOCKS * ROW_BLOCKS + kk * DIM * ROW_BLOCKS,
                                    DIM * ROW_BLOCKS, DIM)),)),
                *_exo_tile(0, lambda ko_: b0 + ko_ * DIM * ROW_BLOCKS * ROW_BLOCKS, res, ko),
            )),
            For("jj", const(0), const(ROW_BLOCKS), 1, (
                Instr("mvout", (C + i * DIM * n + jj * DIM, res + jj * DIM, DIM, DIM)),)),
        )),
        Instr("fence", ()),
    )
    return Proc("exo_unopt", _PARAMS, body, "Exo, unscheduled (Autocomp Fig. 28)")


def exo_opt_proc(m: int, n: int, k: int) -> Proc:
    """Exo's hand-scheduled GEMM (App. D, Fig. 29): blocks of 8 strips (128 rows) whose A
    slabs and accumulator tiles all stay resident; B moved in once, during the first strip;
    the accumulator zeroed by ``mvin`` of zeros; each strip moved out after its reduction (the
    hardware overlaps the independent moves)."""
    _check(m, n, k, 8 * DIM, "exo_opt_proc")
    io, i, ko, kk = var("io"), var("i"), var("ko"), var("kk")
    A, B, C = var("A"), var("B"), var("C")
    steps = k // (DIM * ROW_BLOCKS)
    b0 = DIM * ROW_BLOCKS * steps * 8   # after the 8 strips' A slabs
    strip = DIM * ROW_BLOCKS * steps    # scratchpad rows of one strip of A
    row = io * 8 + i
    res = ACC_BIT + i * DIM * ROW_BLOCKS
    body: tuple[Stmt, ...] = (
        *_configs(k, n, n, (1, 2, 0)),
        For("io", const(0), const(m // (8 * DIM)), 1, (
            For("i", const(0), const(8), 1, (
                For("jj", const(0), const(ROW_BLOCKS), 1, (Instr("mvin", (0, res + var("jj") * DIM, DIM, DIM)),)),
                For("ko", const(0), const(steps), 1, (
                    Instr("mvin2", (A + row * DIM * k + ko * DIM * ROW_BLOCKS, i * strip + ko * DIM * ROW_BLOCKS, DIM * ROW_BLOCKS, DIM)),
                    If(io.eq(0), (If(i.eq(0), (
                        For("kk", const(0), const(ROW_BLOCKS), 1, (
                            Instr("mvin3", (B + (ko * DIM * ROW_BLOCKS + kk * DIM) * n,
                                            b0 + ko * DIM * ROW_BLOCKS * ROW_BLOCKS + kk * DIM * ROW_BLOCKS, DIM * ROW_BLOCKS, DIM)),)),)),)),
                    *_exo_tile(i * strip, lambda ko_: b0 + ko_ * DIM * ROW_BLOCKS * ROW_BLOCKS, res, ko),
                )),
            )),
            For("i", const(0), const(8), 1, (
                For("jj", const(0), const(ROW_BLOCKS), 1, (
                    Instr("mvout", (C + row * DIM * n + var("jj") * DIM, res + var("jj") * DIM, DIM, DIM)),)),)),
        )),
        Instr("fence", ()),
    )
    return Proc("exo_opt", _PARAMS, body, "Exo, hand-scheduled (Autocomp Fig. 29)")


def autocomp_proc(m: int, n: int, k: int) -> Proc:
    """Autocomp's schedule (App. D, Figs. 30–32): all of B moved in first; A's 16-row strips
    double-buffered (the next strip is fetched during the first quarter of the current one's
    products); the accumulator double-buffered (a strip is moved out during the next strip's
    products); the first product of each output tile overwrites instead of zeroing."""
    _check(m, n, k, DIM, "autocomp_proc")
    i, seg, jj, u, b = var("i"), var("seg"), var("jj"), var("u"), var("b")
    A, B, C = var("A"), var("B"), var("C")
    segs = k // DIM
    strip = DIM * segs                  # scratchpad rows of one A strip (4 blocks per 64 columns)
    a0, a1 = 0, strip
    b_base = 2 * strip
    cur_a = select((i % 2).eq(0), a0, a1)
    nxt_a = select((i % 2).eq(0), a1, a0)
    cur_acc = ACC_BIT + select((i % 2).eq(0), 0, DIM * ROW_BLOCKS)
    prev_acc = ACC_BIT + select((i % 2).eq(0), DIM * ROW_BLOCKS, 0)
    last = m // DIM - 1

    def load_a(row: E, base: E) -> Stmt:
        return For("b", const(0), const(k // (DIM * ROW_BLOCKS)), 1, (
            Instr("mvin2", (A + row * DIM * k + b * DIM * ROW_BLOCKS, base + b * DIM * ROW_BLOCKS, DIM * ROW_BLOCKS, DIM)),))

    def mvouts(row: E, acc: E) -> Stmt:
        return For("jj", const(0), const(ROW_BLOCKS), 1, (
            Instr("mvout", (C + row * DIM * n + jj * DIM, acc + jj * DIM, DIM, DIM)),))

    s = seg + u
    body: tuple[Stmt, ...] = (
        *_configs(k, n, n, (1, 2, 0)),
        For("kb", const(0), const(segs), 1, (
            Instr("mvin3", (B + var("kb") * DIM * n, b_base + var("kb") * DIM * ROW_BLOCKS, DIM * ROW_BLOCKS, DIM)),)),
        For("i", const(0), const(m // DIM), 1, (
            # the buffers of this strip, chosen once per strip (Fig. 30)
            Let("ca", cur_a), Let("na", nxt_a), Let("cacc", cur_acc), Let("pacc", prev_acc),
            If(i.eq(0), (load_a(i, var("ca")),), (mvouts(i - 1, var("pacc")),)),
            For("seg", const(0), const(segs), ROW_BLOCKS, (
                For("jj", const(0), const(ROW_BLOCKS), 1, (
                    For("u", const(0), const(ROW_BLOCKS), 1, (
                        Let("s", s),
                        Instr("preload", (b_base + var("s") * DIM * ROW_BLOCKS + jj * DIM,
                                          var("cacc") + jj * DIM + select(var("s").eq(0), 0, ACCUMULATE_BIT), DIM, DIM, DIM, DIM)),
                        Instr("compute_preloaded", (var("ca") + (var("s") // ROW_BLOCKS) * DIM * ROW_BLOCKS + (var("s") % ROW_BLOCKS) * DIM,
                                                    GARBAGE, DIM, DIM, DIM, DIM)),
                    )),)),
                If(seg.eq(0), (If(i.lt(last), (load_a(i + 1, var("na")),)),)),
            )),
        )),
        mvouts(const(last), const(ACC_BIT + (DIM * ROW_BLOCKS if last % 2 else 0))),
        Instr("fence", ()),
    )
    return Proc("autocomp", _PARAMS, body, "Autocomp's best schedule (Autocomp Figs. 30-32)")


@dataclass(frozen=True)
class Schedule:
    """A calibration point: the schedule, its published utilisation on :data:`SHAPE` and the
    host cycles per instruction its C code spends (see the module docstring)."""

    name: str
    build: Callable[[int, int, int], Proc]
    published: float
    issue_interval: int = 1


SCHEDULES = (
    Schedule("library", library_proc, PUBLISHED["library"], 40),
    Schedule("exo_unopt", exo_unopt_proc, PUBLISHED["exo_unopt"]),
    Schedule("exo_opt", exo_opt_proc, PUBLISHED["exo_opt"]),
    Schedule("autocomp", autocomp_proc, PUBLISHED["autocomp"]),
)

_A, _B = 0x1000_0000, 0x2000_0000


def schedule_stream(proc: Proc, m: int, n: int, k: int) -> list[Inst]:
    """The instruction stream of a calibration schedule for ``A`` at a fixed DRAM address
    (``B``, ``C`` after it, densely packed)."""
    return run_proc(proc, {"A": _A, "B": _A + m * k, "C": _A + m * k + k * n})


def modelled_utilization(schedule: Schedule, shape: tuple[int, int, int] = SHAPE) -> CostReport:
    """The cost model's estimate for ``schedule`` on ``shape`` with the default parameters and
    the schedule's host cost."""
    params = dataclasses.replace(CostParams(), issue_interval=schedule.issue_interval)
    return estimate(gemmini_isa(DIM, "int8"), schedule_stream(schedule.build(*shape), *shape), params)


def run_schedule(proc: Proc, m: int, n: int, k: int, seed: int = 0) -> bool:
    """Whether the schedule computes ``C = sat8(A·B)`` bit-exactly on the oracle for random
    int8 ``A``, ``B`` (small values, so that the int8 output does not saturate everywhere)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (m, k)).astype(np.int8)
    b = rng.integers(-3, 4, (k, n)).astype(np.int8)
    mem = HbmBuffer(m * k + k * n + m * n + 64, _A)
    mem.place(_A, a)
    mem.place(_A + m * k, b)
    Oracle(gemmini_isa(DIM, "int8")).run(schedule_stream(proc, m, n, k), mem)
    got = mem.read(_A + m * k + k * n, m * n, np.dtype(np.int8)).reshape(m, n)
    want = np.clip(a.astype(np.int64) @ b.astype(np.int64), -128, 127)
    return bool(np.array_equal(got, want))
