"""Tests of the Gemmini event model (:mod:`tenspiler.act.cost`).

Programs are built by hand from :class:`~tenspiler.act.isa.Inst`; each timing test compares
the trace (issue / start / done cycles) or the total against what a rule of the model
requires, so breaking a rule (a queue depth, a drain, a dependency) makes a test fail.
"""

from __future__ import annotations

import dataclasses
import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tenspiler.act.cost import CostParams, CostReport, estimate
from tenspiler.act.isa import Inst, IsaError
from tenspiler.act.isa.gemmini import ACC_BIT, ACCUMULATE_BIT, GARBAGE, RAW_BIT, gemmini_isa

ISA = gemmini_isa()
DIM = 16
WS_CONFIG = Inst("config_ex", (1, 0, 0, 1.0, 0, 1, 0, 0))
OS_CONFIG = Inst("config_ex", (0, 0, 0, 1.0, 0, 1, 0, 0))


def mvin(dram: int, local: int, cols: int = DIM, rows: int = DIM, name: str = "mvin") -> Inst:
    return Inst(name, (dram, local, cols, rows))


def mvout(dram: int, local: int, cols: int = DIM, rows: int = DIM) -> Inst:
    return Inst("mvout", (dram, local, cols, rows))


def preload(bd: int, c: int, n: int = DIM) -> Inst:
    return Inst("preload", (bd, c, n, n, n, n))


def compute(a: int, bd: int = GARBAGE, n: int = DIM, accumulated: bool = False) -> Inst:
    return Inst("compute_accumulated" if accumulated else "compute_preloaded", (a, bd, n, n, n, n))


def config_ld(shrunk: int = 0, ident: int = 0, stride: int = DIM) -> Inst:
    return Inst("config_ld", (stride, 1.0, shrunk, ident))


#: the mechanics these tests were written for: a short memory latency, no TLB, the controller
#: queues' depths (8 / 8 / 2); the calibrated defaults are tested in test_act_calibration.py
MECHANICS = CostParams(dma_latency=20, store_latency=None, tlb_miss_cycles=0, execute_queue_depth=8, store_queue_depth=2)


def run(program: list[Inst], params: CostParams | None = None) -> CostReport:
    report = estimate(ISA, program, params if params is not None else MECHANICS, trace=True)
    assert report.trace is not None and len(report.trace) == len(program)
    return report


# A 16×16×16 WS tile: A at spad rows 0..15, B at 16..31, C in accumulator rows 0..15.
ONE_TILE = [WS_CONFIG, mvin(0x1000, 0), mvin(0x2000, 16), preload(16, ACC_BIT),
            compute(0), mvout(0x3000, ACC_BIT)]


# ------------------------------------------------------------------ basics


def test_empty_program_costs_zero_cycles() -> None:
    r = estimate(ISA, [])
    assert (r.cycles, r.macs, r.utilization, r.instructions) == (0, 0, 0.0, 0)
    assert r.busy == {"load": 0, "execute": 0, "store": 0}


def test_single_mvin_costs_at_least_its_transfer() -> None:
    fast_memory = dataclasses.replace(MECHANICS, dma_latency=16)
    r = run([mvin(0x1000, 0)], fast_memory)
    assert r.bytes_loaded == DIM * DIM  # int8
    assert r.busy["load"] == DIM * DIM // 16  # bus-bound: 256 bytes at 16 B/cycle
    # the memory latency is added on top of the transfer
    assert r.cycles == DIM * DIM // 16 + 16


def test_requests_in_flight_bound_a_transfer() -> None:
    """16 rows of 16 bytes are 16 requests; with 160 cycles a request and 16 in flight the
    engine sends one every 10 cycles: 160 cycles, not the bus's 16 (Little's law)."""
    slow_memory = dataclasses.replace(MECHANICS, dma_latency=160)
    r = run([mvin(0x1000, 0)], slow_memory)
    assert r.busy["load"] == 160 and r.cycles == 160 + 160
    # a row of 64 columns is one 64-byte request: 16 requests for 4× the bytes
    wide = run([config_ld(stride=64), mvin(0x1000, 0, cols=64)], slow_memory)
    assert wide.busy["load"] - 1 == 160  # (+1: the config_ld)
    more = run([mvin(0x1000, 0)], dataclasses.replace(slow_memory, max_in_flight=32))
    assert more.busy["load"] == 80


def test_tlb_misses_stall_the_transfer_and_hits_do_not() -> None:
    tlb = dataclasses.replace(MECHANICS, tlb_miss_cycles=100, tlb_entries=2)
    one_page = run([mvin(0x1000, 0), mvin(0x1000, 16)], tlb)
    assert one_page.busy["load"] == 2 * 20 + 100  # one walk, then a hit
    # three pages round-robin through a two-entry TLB: every transfer misses
    pages = [mvin(0x1000 + 0x1000 * (k % 3), 16 * k) for k in range(6)]
    assert run(pages, tlb).busy["load"] == 6 * (20 + 100)
    assert run(pages, dataclasses.replace(tlb, tlb_entries=3)).busy["load"] == 6 * 20 + 3 * 100
    # rows 4 KiB apart touch a page each
    strided = run([config_ld(stride=4096), mvin(0x1000, 0)], tlb)
    assert strided.busy["load"] == 1 + 20 + 16 * 100


def test_dma_bandwidth_parameter_scales_the_transfer() -> None:
    slow = run([mvin(0x1000, 0)], dataclasses.replace(MECHANICS, dma_bytes_per_cycle=4, dma_latency=0))
    fast = run([mvin(0x1000, 0)], dataclasses.replace(MECHANICS, dma_bytes_per_cycle=16, dma_latency=0))
    assert (slow.cycles, fast.cycles) == (64, 16)


def test_element_sizes_follow_buffer_and_flags() -> None:
    assert run([mvin(0x1000, ACC_BIT)]).bytes_loaded == DIM * DIM * 4  # acc type from DRAM
    assert run([config_ld(shrunk=1), mvin(0x1000, ACC_BIT)]).bytes_loaded == DIM * DIM
    # shrunk is per mvin id: mvin2 still reads int32
    assert run([config_ld(shrunk=1, ident=0), mvin(0x1000, ACC_BIT, name="mvin2")]).bytes_loaded == DIM * DIM * 4
    assert run([mvout(0x1000, ACC_BIT | RAW_BIT)]).bytes_stored == DIM * DIM * 4
    assert run([mvout(0x1000, ACC_BIT)]).bytes_stored == DIM * DIM
    assert run([mvout(0x1000, 0, cols=8, rows=4)]).bytes_stored == 32
    fp32 = gemmini_isa(dim=4, config="fp32")
    assert estimate(fp32, [mvin(0x1000, 0, 4, 4)]).bytes_loaded == 64


def test_zero_mvin_moves_no_bytes() -> None:
    r = run([mvin(0, 0)])
    assert r.bytes_loaded == 0
    assert r.cycles == DIM  # one row per cycle, no DRAM latency


def test_two_independent_mvins_serialize_on_the_dma() -> None:
    one = run([mvin(0x1000, 0)])
    two = run([mvin(0x1000, 0), mvin(0x2000, 16)])
    t1, t2 = two.trace  # type: ignore[misc]
    assert t2.start >= t1.start + DIM * DIM // 16
    assert t2.done >= t1.done + DIM * DIM // 16
    assert two.cycles >= one.cycles + DIM * DIM // 16
    assert two.bytes_loaded == 2 * DIM * DIM


def test_load_and_store_dma_are_separate_unless_shared() -> None:
    prog = [mvin(0x1000, 0), mvout(0x9000, 64)]  # disjoint rows: no dependency
    sep = run(prog).trace
    shared = run(prog, dataclasses.replace(MECHANICS, shared_dma=True)).trace
    assert sep is not None and shared is not None
    assert sep[1].start < sep[0].start + DIM  # overlaps the mvin's transfer
    assert shared[1].start >= shared[0].start + DIM


# ------------------------------------------------------------------ dependencies


def test_compute_waits_for_the_mvin_of_its_A_rows() -> None:
    r = run(ONE_TILE)
    tr = r.trace
    assert tr is not None
    mvin_a, mvin_b, pre, comp = tr[1], tr[2], tr[3], tr[4]
    assert pre.start >= mvin_b.done  # preload reads B
    assert comp.start >= mvin_a.done
    # and without the mvin of A (A rows never written) the compute starts earlier
    b_only = run([WS_CONFIG, mvin(0x2000, 16), preload(16, ACC_BIT), compute(0)])
    assert b_only.cycles < r.cycles
    # a compute on rows the mvin did not write does not wait for it
    other = run([WS_CONFIG, mvin(0x1000, 0), compute(256)]).trace
    assert other is not None and other[2].start < other[1].done


def test_mvout_waits_for_the_compute_that_writes_its_rows() -> None:
    tr = run(ONE_TILE).trace
    assert tr is not None
    assert tr[5].start >= tr[4].done
    # mvout of other accumulator rows does not wait
    tr2 = run([*ONE_TILE[:5], mvout(0x3000, ACC_BIT | 64)]).trace
    assert tr2 is not None and tr2[5].start < tr2[4].done


def test_mvin_waits_for_an_earlier_reader_of_its_rows() -> None:
    """WAR: a mvin overwriting the A rows of a compute waits until the compute read them."""
    base = [WS_CONFIG, mvin(0x1000, 0), mvin(0x2000, 16), preload(16, ACC_BIT), compute(0)]
    tr = run([*base, mvin(0x4000, 0)]).trace
    assert tr is not None
    comp, again = tr[4], tr[5]
    assert again.start >= comp.start + DIM
    # to other rows it does not wait for the compute
    tr2 = run([*base, mvin(0x4000, 128)]).trace
    assert tr2 is not None and tr2[5].start < tr2[4].start + DIM


def test_mvin_waits_for_an_earlier_mvout_of_its_rows() -> None:
    tr = run([mvin(0x1000, 0), mvout(0x5000, 0), mvin(0x2000, 0)]).trace
    assert tr is not None
    assert tr[2].start >= tr[1].done


def test_compute_output_waits_for_a_pending_mvout_of_those_rows() -> None:
    """WAR through the accumulator: a compute may not overwrite C rows a mvout still reads."""
    prog = [*ONE_TILE, preload(GARBAGE, ACC_BIT), compute(0, accumulated=True)]
    tr = run(prog).trace
    assert tr is not None
    assert tr[7].start >= tr[5].done


def test_wide_mvin_writes_blocks_DIM_rows_apart() -> None:
    """mvin of 64 int8 columns × 4 rows writes rows 0-3, 16-19, 32-35, 48-51."""
    wide = mvin(0x1000, 0, cols=4 * DIM, rows=4)
    tr = run([WS_CONFIG, wide, compute(48, n=4)]).trace  # block 3
    assert tr is not None and tr[2].start >= tr[1].done
    tr = run([WS_CONFIG, wide, compute(20, n=4)]).trace  # rows 20..23: between blocks
    assert tr is not None and tr[2].start < tr[1].done
    assert run([wide]).bytes_loaded == 4 * 4 * DIM


def test_a_stride_widens_the_rows_a_compute_reads() -> None:
    strided = Inst("config_ex", (1, 0, 0, 1.0, 0, 4, 0, 0))
    late = mvin(0x1000, 60, rows=1)  # row 60 = A row 15 × stride 4
    tr = run([strided, late, compute(0)]).trace
    assert tr is not None and tr[2].start >= tr[1].done
    tr = run([WS_CONFIG, late, compute(0)]).trace  # stride 1: rows 0..15 only
    assert tr is not None and tr[2].start < tr[1].done


# ------------------------------------------------------------------ drains, queues, fences


def test_config_ld_drains_the_load_unit() -> None:
    plain = run([mvin(0x1000, 0), mvin(0x2000, 16)]).trace
    drained = run([mvin(0x1000, 0), config_ld(), mvin(0x2000, 16)]).trace
    assert plain is not None and drained is not None
    assert drained[1].start >= drained[0].done
    assert drained[2].start > plain[1].start
    assert drained[2].done > plain[1].done


def test_config_st_drains_the_store_unit() -> None:
    tr = run([mvout(0x1000, 0), Inst("config_st", (DIM,)), mvout(0x2000, 16)]).trace
    assert tr is not None
    assert tr[1].start >= tr[0].done and tr[2].start >= tr[1].done


def test_config_ex_drains_the_execute_unit_only() -> None:
    prog = [*ONE_TILE[:5], WS_CONFIG, mvin(0x9000, 512)]
    tr = run(prog).trace
    assert tr is not None
    assert tr[5].start >= tr[4].done  # waits for the compute's output
    assert tr[6].start < tr[4].done  # the load unit is not drained


def test_store_queue_depth_two_stalls_the_host() -> None:
    prog = [mvout(0x1000 + 256 * k, 16 * k) for k in range(6)] + [mvin(0x9000, 1024)]
    deep = run(prog, dataclasses.replace(MECHANICS, store_queue_depth=8))
    shallow = run(prog)
    assert deep.trace is not None and shallow.trace is not None
    assert deep.trace[6].issue == 6  # one issue per cycle, nothing full
    assert shallow.trace[6].issue > 6  # issue waited for a store queue entry
    assert shallow.issue_stall_cycles["store"] > 0
    assert deep.issue_stall_cycles == {"load": 0, "execute": 0, "store": 0}
    # the third mvout is issued only when the first retired
    assert shallow.trace[2].issue >= shallow.trace[0].done
    assert shallow.cycles > deep.cycles


def test_load_queue_holds_eight() -> None:
    prog = [mvin(0x1000 + 256 * k, 16 * k) for k in range(9)]
    tr = run(prog).trace
    assert tr is not None
    assert [t.issue for t in tr[:8]] == list(range(8))
    assert tr[8].issue >= tr[0].done


def test_host_issues_at_most_one_instruction_per_interval() -> None:
    prog = [mvin(0x1000, 0), mvout(0x2000, 64), preload(GARBAGE, GARBAGE)]
    tr = run(prog, dataclasses.replace(MECHANICS, issue_interval=3)).trace
    assert tr is not None and [t.issue for t in tr] == [0, 3, 6]


def test_fence_waits_for_everything() -> None:
    prog = [*ONE_TILE, Inst("fence", ()), mvin(0x9000, 512)]
    r = run(prog)
    tr = r.trace
    assert tr is not None
    assert tr[6].done >= max(t.done for t in tr[:6])
    assert tr[7].issue >= tr[6].done
    assert r.fence_wait_cycles > 0
    assert run([Inst("fence", ())]).cycles == 1


# ------------------------------------------------------------------ MACs and utilization


def test_one_tile_utilization() -> None:
    r = run(ONE_TILE)
    assert r.macs == DIM * DIM * DIM == 4096
    assert 0 < r.utilization <= 1
    assert r.utilization == pytest.approx(4096 / (DIM * DIM * r.cycles))
    assert r.counts == {"config_ex": 1, "mvin": 2, "preload": 1, "compute_preloaded": 1, "mvout": 1}


def test_macs_count_only_computes_that_produce_output() -> None:
    # WS: a compute without a new preload writes nothing; partial tiles count their sizes
    r = run([WS_CONFIG, preload(0, ACC_BIT, n=8), Inst("compute_preloaded", (0, GARBAGE, 4, 2, 4, 2)),
             compute(0, accumulated=True)])
    assert r.macs == 2 * 4 * 8
    # OS: every compute with a real B counts a_rows × a_cols × bd_cols
    r = run([OS_CONFIG, preload(GARBAGE, GARBAGE), compute(0, 16), compute(0, 16, accumulated=True),
             compute(0, GARBAGE, accumulated=True)])
    assert r.macs == 2 * 4096


def test_back_to_back_computes_on_resident_data_reach_full_utilization() -> None:
    prog = [WS_CONFIG, mvin(0x1000, 0), mvin(0x2000, 16), preload(16, ACC_BIT), compute(0)]
    for k in range(1, 400):
        prog += [preload(GARBAGE, ACC_BIT | (16 * (k % 64))), compute(0, accumulated=True)]
    r = run(prog)
    assert r.macs == 400 * 4096
    assert r.utilization > 0.9
    assert r.busy["execute"] == 400 * DIM + 1  # the computes plus config_ex


def test_new_weights_every_tile_overlap_the_weight_shift() -> None:
    prog = [WS_CONFIG, mvin(0x1000, 0), mvin(0x2000, 16)]
    for k in range(400):
        prog += [preload(16, ACC_BIT | (16 * (k % 64))), compute(0)]
    r = run(prog)
    assert r.utilization > 0.9  # ≈ DIM / (DIM + 1)
    assert r.utilization < 1


def test_slow_compute_lowers_utilization() -> None:
    fast, slow = run(ONE_TILE), run(ONE_TILE, dataclasses.replace(MECHANICS, compute_cycles=64))
    assert slow.cycles > fast.cycles and slow.utilization < fast.utilization


# ------------------------------------------------------------------ properties


LOCALS = st.one_of(st.sampled_from([0, 16, 32, 48, 5]),
                   st.sampled_from([ACC_BIT, ACC_BIT | 16, ACC_BIT | ACCUMULATE_BIT | 32, ACC_BIT | RAW_BIT]))
SPAD = st.sampled_from([0, 16, 32, 48, 7])
OPERAND = st.one_of(SPAD, st.just(GARBAGE))
SIZE = st.integers(0, DIM)


def instructions() -> st.SearchStrategy[Inst]:
    mvins = st.builds(lambda n, d, loc, c, r: Inst(n, (d, loc, c, r)), st.sampled_from(["mvin", "mvin2", "mvin3"]),
                      st.sampled_from([0, 0x1000]), LOCALS, SIZE, SIZE)
    mvouts = st.builds(lambda d, loc, c, r: Inst("mvout", (d, loc, c, r)), st.just(0x8000), LOCALS, SIZE, SIZE)
    preloads = st.builds(lambda b, c, *n: Inst("preload", (b, c, *n)), OPERAND, st.one_of(LOCALS, st.just(GARBAGE)),
                         SIZE, SIZE, SIZE, SIZE)
    computes = st.builds(lambda m, a, b, *n: Inst(m, (a, b, *n)), st.sampled_from(["compute_preloaded", "compute_accumulated"]),
                         OPERAND, OPERAND, SIZE, SIZE, SIZE, SIZE)
    configs = st.one_of(st.builds(lambda df: Inst("config_ex", (df, 0, 0, 1.0, 0, 1, 0, 0)), st.sampled_from([0, 1])),
                        st.builds(lambda s, i: Inst("config_ld", (DIM, 1.0, s, i)), st.sampled_from([0, 1]), st.sampled_from([0, 1, 2])),
                        st.just(Inst("config_st", (DIM,))), st.just(Inst("fence", ())), st.just(Inst("flush", (0,))))
    return st.one_of(mvins, mvouts, preloads, computes, configs)


PROGRAMS = st.lists(instructions(), max_size=40)


@settings(max_examples=200, deadline=None)
@given(PROGRAMS, instructions())
def test_appending_an_instruction_never_decreases_cycles(program: list[Inst], extra: Inst) -> None:
    before = run(program)
    after = run([*program, extra])
    assert after.cycles >= before.cycles
    # later instructions do not change the timing of earlier ones
    assert after.trace is not None and after.trace[:-1] == before.trace


@settings(max_examples=200, deadline=None)
@given(PROGRAMS, st.booleans())
def test_report_invariants(program: list[Inst], shared: bool) -> None:
    r = run(program, dataclasses.replace(MECHANICS, shared_dma=shared))
    assert 0 <= r.utilization <= 1
    assert all(0 <= b <= r.cycles for b in r.busy.values())
    if shared:  # one engine: its occupancies are disjoint
        assert r.busy["load"] + r.busy["store"] <= r.cycles
    assert r.cycles >= -(-(r.bytes_loaded) // 16)
    assert sum(r.counts.values()) == r.instructions == len(program)
    assert r.trace is not None
    for t in r.trace:
        assert t.issue <= t.start <= t.done <= r.cycles
        assert t.done >= t.issue + 1
    issues = [t.issue for t in r.trace]
    assert all(b > a for a, b in itertools.pairwise(issues))
    json.dumps(r.to_json())


# ------------------------------------------------------------------ errors and output


def test_to_json_is_serialisable() -> None:
    data = json.loads(json.dumps(run(ONE_TILE).to_json()))
    assert data["macs"] == 4096 and data["params"]["store_queue_depth"] == 2
    assert set(data["busy"]) == {"load", "execute", "store"}
    assert "trace" not in data


def test_errors_name_the_instruction() -> None:
    with pytest.raises(IsaError, match=r"instruction 1 .*outside the scratchpad"):
        estimate(ISA, [mvin(0x1000, 0), mvin(0x1000, 16384 - 8)])
    with pytest.raises(IsaError, match=r"outside the accumulator"):
        estimate(ISA, [mvout(0x1000, ACC_BIT | 1020)])
    with pytest.raises(IsaError, match="no instruction 'nop'"):
        estimate(ISA, [Inst("nop", ())])
    with pytest.raises(IsaError, match=r"instruction 0 .*takes 4 attributes"):
        estimate(ISA, [Inst("mvin", (0, 0, 16))])
    with pytest.raises(IsaError, match="id must be"):
        estimate(ISA, [Inst("config_ld", (16, 1.0, 0, 3))])
    with pytest.raises(ValueError, match="must be ≥ 1"):
        CostParams(store_queue_depth=0)




# ---------------------------------------------------------------- the GEMM state machine


def _fsm_program(m: int, n: int, k: int, ti: int, tj: int, tk: int) -> list[Inst]:
    from tenspiler.act.gemm_search import GemmSchedule, schedule_stream

    return schedule_stream(GemmSchedule(ti, tj, tk, fsm=True), m, n, k)


def test_loop_ws_is_timed_through_its_expansion_issued_by_the_state_machine() -> None:
    """The model times a ``loop_ws`` by the oracle's expansion: the same data moved and MACs
    counted as the expansion written out; the state machine's modules issue it without the
    host, so it is not slower than the expansion issued by the host in one stream, and faster
    when the host's issue is slow."""
    from tenspiler.act.isa.gemmini import loop_ws_expansion

    isa = gemmini_isa(16, "int8")
    prog = _fsm_program(256, 128, 128, 2, 4, 4)
    fsm = dict(isa.registers["fsm"])
    flat = [x for inst in prog for x in (loop_ws_expansion(fsm, 16, 16384, 1024, 1, 4, **isa.bind(inst))
                                         if inst.name == "loop_ws" else [inst])]
    r, f = estimate(isa, prog), estimate(isa, flat)
    assert (r.macs, r.bytes_loaded, r.bytes_stored) == (f.macs, f.bytes_loaded, f.bytes_stored)
    assert r.counts["loop_ws"] == 8 * 2 * 2 and r.counts["compute_preloaded"] == f.counts["compute_preloaded"]
    assert r.cycles <= f.cycles
    slow = CostParams(issue_interval=8)
    assert estimate(isa, prog, slow).cycles < estimate(isa, flat, slow).cycles


def test_the_host_is_free_after_six_commands_and_two_calls_are_in_flight() -> None:
    isa = gemmini_isa(16, "int8")
    prog = _fsm_program(512, 64, 64, 1, 4, 4)
    calls = [j for j, inst in enumerate(prog) if inst.name == "loop_ws"]
    r = estimate(isa, prog, trace=True)
    assert r.trace is not None
    # trace entries follow the expansion: find each call's own entry
    issued = [t for t, inst in zip(r.trace, _with_expansions(isa, prog), strict=True) if inst.name == "loop_ws"]
    assert len(issued) == len(calls)
    assert issued[0].done - issued[0].issue == 6 and issued[1].issue == issued[0].done   # back to back
    assert all(later.issue >= earlier.done for earlier, later in itertools.pairwise(issued))
    # a third call waits until the first finished issuing: the host does not run ahead unboundedly
    assert issued[2].issue > issued[1].done


def _with_expansions(isa: object, prog: list[Inst]) -> list[Inst]:
    from tenspiler.act.isa.gemmini import loop_ws_expansion

    fsm = {"call": 0, "acc": 0}
    out: list[Inst] = []
    for inst in prog:
        out.append(inst)
        if inst.name == "loop_ws":
            out += loop_ws_expansion(fsm, 16, 16384, 1024, 1, 4, **isa.bind(inst))  # type: ignore[attr-defined]
    return out
