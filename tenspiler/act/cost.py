"""An event model of Gemmini's decoupled access/execute timing — a *model*, not a
cycle-accurate simulator.

:func:`estimate` walks a program (a sequence of :class:`~tenspiler.act.isa.Inst` of the
:func:`~tenspiler.act.isa.gemmini.gemmini_isa` description) once, in program order, and
computes for every instruction the cycle at which the host issues it, the cycle at which its
controller starts it and the cycle at which its result is available. Nothing is executed:
the model reads each instruction's unit (``InstructionSpec.unit``), its attributes and the
data sizes of the description (``isa.types``, ``isa.params["dim"]``). All times are integer
cycles from the first issue (cycle 0); all sizes are bytes.

**Sources.** Genc et al., "Gemmini: Enabling Systematic Deep-Learning Architecture
Evaluation via Full-Stack Integration", DAC'21 (the decoupled access/execute organisation,
the DMA and the systolic array); the Autocomp paper's ISA summary (Fig. 14–15: "Gemmini is a
decoupled access/execute architecture … It has an ExecuteController (for preload and compute
instructions), LoadController (mvin), and StoreController (mvout). Gemmini includes an ROB
which is meant to detect hazards between instructions in different controllers. Each
controller also handles its own dependencies and hazards internally."); the queue lengths
and DMA width of Gemmini's default configuration (``GemminiConfigs.defaultConfig``:
``reservation_station_entries_ld/ex/st = 8/16/4``, ``dma_maxbytes = 64``, ``dma_buswidth =
128``, ``max_in_flight_mem_reqs = 16``, ``tlb_size = 4``).

**Calibration** (:mod:`tenspiler.act.calibration`, ``python benchmarks/act.py --calibration``).
The read latency is not in any configuration file; it was fitted so that four schedules of
the one GEMM whose utilisation on a 16×16 int8 Gemmini is published (12544×64×256; Autocomp
§4.4.1, App. D) land within 5 percentage points of the measurement: Gemmini's software
library 17.7 % (published 16 %), Exo unoptimised 25.2 % (28 %), Exo hand-scheduled 46.1 %
(43 %), Autocomp 93.7 % (93 %). What each point pins down: Autocomp's 93 % bounds the per-tile
weight preload (DIM/(DIM+1) with a fresh preload per tile) and says that prefetched loads and
delayed stores hide the memory; Exo-unoptimised's 28 % — it moves B in again for every 16-row
strip — fixes the read bandwidth (requests × latency / in flight), together with
Exo-optimised's 43 % (the latency exposed once per reduction step). The write latency (an L2
hit) and the TLB miss (an L2-TLB hit) are set from the SoC, not fitted: the points do not
separate them from the read latency. The library is bound by its host code (40 cycles per
instruction, fitted; see the calibration module).

**What is modelled:**

1. **Host issue.** The host issues instructions in program order, at most one every
   ``issue_interval`` cycles (the C code's own work per instruction). Each unit has
   reservation-station entries (Gemmini's default ``reservation_station_entries_ld = 8``,
   ``_ex = 16``, ``_st = 4``); an instruction holds its entry from issue until it *retires*
   (entries are freed on completion, in order within a unit). Issue stalls — and with it the
   host, so every later instruction of every unit — while the unit's entries are full.
2. **In-order controllers.** Each controller starts its instructions in program order, at
   most one per cycle; an instruction blocked on a dependency blocks the later instructions
   of its unit (not those of other units).
3. **DMA.** ``mvin*`` and ``mvout`` move ``rows × cols × element size`` bytes as one memory
   request per ``dma_max_bytes`` (64) of each row, each answered ``dma_latency`` cycles after
   it was sent, at most ``max_in_flight`` (16) outstanding, over a bus of
   ``dma_bytes_per_cycle`` (16 B/cycle: Gemmini's 128-bit ``dma_buswidth``). The transfer
   occupies its DMA engine for ``max(bytes / bus width, requests × latency / in-flight)``
   cycles (Little's law) plus the TLB's page walks; the data is available ``dma_latency``
   cycles after that. **TLB**: the two engines share ``tlb_entries`` (4) entries of
   ``page_bytes`` (4 KiB) pages, least recently used replaced (row addresses from the
   ``config_ld`` / ``config_st`` strides); each page a transfer touches that is not in the TLB
   stalls that engine ``tlb_miss_cycles``. By default the load DMA (the
   ``StreamReader``) and the store DMA (``StreamWriter``) are separate engines, as in
   Gemmini; ``shared_dma=True`` makes them one. A ``mvin`` from DRAM address 0 writes zeros
   without DRAM traffic (Gemmini's ``ZeroWriter``): one local row per cycle, no latency,
   0 bytes, still on the load engine. Element sizes: the scratchpad moves ``isa.types["input"]``
   elements; a ``mvin`` into the accumulator reads ``isa.types["acc"]`` elements unless the
   ``config_ld`` of that mvin id had ``shrunk = 1``; a ``mvout`` from the accumulator with
   address bit 29 (raw) writes ``acc`` elements, otherwise ``input`` elements.
4. **Execute.** A ``compute_preloaded`` / ``compute_accumulated`` occupies the systolic
   array for ``compute_cycles`` (default DIM: one operand row per cycle, whatever
   ``a_rows``); its output rows are written ``array_latency`` cycles later (default DIM:
   the skew through the array). A ``preload`` occupies the execute controller for
   ``preload_cycles`` (default 1). A preload with a real ``bd`` address (WS: new weights B;
   OS: bias D) also shifts that tile into the array in ``weight_load_cycles`` (default DIM)
   on a separate path that overlaps the previous compute (the PEs' weights are double
   buffered); every later compute waits until the latest such shift finished. So a stream
   of ``preload(GARBAGE, C) / compute_accumulated`` tiles keeps the array busy every cycle,
   and a stream that loads new weights for every tile reaches DIM / (DIM + 1).
5. **Configuration drains its unit.** ``config_ex`` / ``config_ld`` / ``config_st`` start
   only when every earlier instruction of the execute / load / store unit retired (for
   ``config_ex``, including a pending weight shift) and take ``config_cycles``.
6. **Dependencies through the local memories** (what the ROB detects), tracked per row of
   the scratchpad and of the accumulator (separate address spaces; bit 31 of a local
   address selects the accumulator, bits 0–28 the row, ``GARBAGE`` = none):

   * *RAW*: an instruction that reads rows waits until their last writer's data is
     available, whatever the writer's unit (a compute reading scratchpad rows that an
     earlier compute wrote waits for the array to drain). Readers: ``mvout`` (its rows), ``preload`` (``bd`` rows), computes (A rows —
     ``(a_rows - 1) × a_stride + 1`` rows when ``config_ex`` set an A stride — and ``bd``
     rows). Writers: ``mvin*`` (``rows`` rows in each of ``ceil(cols / DIM)`` blocks, block
     *b* at ``row + b × DIM``) and computes (the ``c_rows`` rows of the C address named by
     the preceding preload, consumed by the compute as in the oracle).
   * *WAR / WAW across units*: a ``mvin*`` waits until earlier computes and mvouts have
     finished reading the rows it overwrites and earlier computes have written them; a
     compute waits until earlier mvouts have read its C rows and earlier ``mvin*`` instructions
     have written them. Within one unit, order is kept by the in-order controller.
   * Reads finish at the end of the reading instruction (a compute's operands: when it
     leaves the array's input, i.e. after ``compute_cycles``; a preload's: at the end of
     its shift).
7. ``fence`` blocks the host until every issued instruction retired (and the weight shift
   ended); ``flush`` only takes an issue slot.
8. **The GEMM state machine** (``loop_ws``): the host issues its six RoCC commands
   (``6 × issue_interval`` cycles), then the instructions of its expansion
   (:func:`~tenspiler.act.isa.gemmini.loop_ws_expansion`, the oracle's) are issued by the
   state machine, not the host: one module per unit (loads, execute, stores), each issuing
   at most one instruction per cycle in expansion order, stalled only by its own unit's
   reservation station — so a call's loads run ahead of its computes and the next call's
   loads overlap this call's computes and move-outs, as ``LoopMatmul``'s concurrent modules
   do. A call starts when one of the two contexts (``concurrent_loops = 2``) is free: the call
   two before it has issued everything. The host goes on meanwhile.

``cycles`` is the cycle at which the last instruction retires; every instruction takes at
least one cycle after its issue, so only the empty program costs 0 cycles. Later
instructions never change the timing of earlier ones, so appending an instruction never
decreases ``cycles``.

**What is not modelled**: scratchpad / accumulator bank conflicts and port sharing between
the DMA and the array, ``flush`` (free), DRAM bandwidth contention with the host, requests
split at unaligned 64-byte boundaries, the controllers' own command queues behind the
reservation station, host work that differs between instructions of one program, ``mvin`` scaling and ``mvout`` activation / pooling pipelines, im2col, the
different timing of partial tiles (a compute with ``a_rows < DIM`` still costs
``compute_cycles``) and output-stationary's real partial-sum drain (its outputs are timed as
in WS). The default latencies (``dma_latency = 20``, ``array_latency = DIM``…) are
modelling choices or fitted (see Calibration); they are all parameters of :class:`CostParams`.

Useful multiply-accumulates (``macs``): a compute with a real A address counts, in WS
(``dataflow = 1``), ``a_rows × a_cols × c_cols`` with ``c_cols`` of the preload that named
its output (0 when the compute writes nothing: no preload since the last compute, or
``C = GARBAGE``); in OS (``dataflow = 0``), ``a_rows × a_cols × bd_cols`` when its B
address is real (the partial sums are useful even when ``C`` is written only by the last
compute of a tile). ``utilization = macs / (DIM² × cycles)``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

import numpy as np

from tenspiler.act.isa import Inst, IsaDescription, IsaError
from tenspiler.act.isa.gemmini import ACC_BIT, GARBAGE, RAW_BIT, ROW_MASK

__all__ = ["CostParams", "CostReport", "Timing", "estimate"]

# the local-address encoding of the ISA description (one definition)
_GARBAGE, _ACC_BIT, _RAW_BIT, _ROW_MASK = GARBAGE, ACC_BIT, RAW_BIT, ROW_MASK

# instruction kinds of the main loop (by mnemonic)
_MVIN, _MVOUT, _PRELOAD, _COMPUTE, _CONFIG_EX, _CONFIG_LD, _CONFIG_ST, _FENCE, _FLUSH, _LOOP = range(10)
#: RoCC commands the host issues for one ``gemmini_loop_ws`` (five configurations and the start)
_LOOP_COMMANDS = 6
#: calls the GEMM state machine holds at once (Gemmini's ``concurrent_loops``)
_FSM_CONTEXTS = 2
_KINDS: dict[str, tuple[int, int, str]] = {  # mnemonic -> (kind, arity, unit)
    "mvin": (_MVIN, 4, "load"), "mvin2": (_MVIN, 4, "load"), "mvin3": (_MVIN, 4, "load"),
    "mvout": (_MVOUT, 4, "store"),
    "preload": (_PRELOAD, 6, "execute"),
    "compute_preloaded": (_COMPUTE, 6, "execute"), "compute_accumulated": (_COMPUTE, 6, "execute"),
    "config_ex": (_CONFIG_EX, 8, "execute"), "config_ld": (_CONFIG_LD, 4, "load"),
    "config_st": (_CONFIG_ST, 1, "store"),
    "fence": (_FENCE, 0, "none"), "flush": (_FLUSH, 1, "none"),
    "loop_ws": (_LOOP, 20, "fsm"),
}
_UNIT_OF = {kind: unit for kind, _, unit in _KINDS.values()}
_MVIN_ID = {"mvin": 0, "mvin2": 1, "mvin3": 2}


@dataclass(frozen=True)
class CostParams:
    """Parameters of the event model (see the module docstring for how each is used).

    Attributes:
        load_queue_depth: reservation-station entries of the load unit (instructions;
            Gemmini ``reservation_station_entries_ld`` = 8).
        execute_queue_depth: entries of the execute unit (``_ex`` = 16).
        store_queue_depth: entries of the store unit (``_st`` = 4).
        issue_interval: cycles between two host issues (≥ 1; default 1: static loop code,
            calibrated on Exo's and Autocomp's schedules).
        dma_bytes_per_cycle: DMA bus bandwidth in bytes per cycle (default 16).
        dma_latency: cycles from a read request to its response (default 175, fitted:
            see the module docstring's Calibration).
        shared_dma: ``True``: ``mvin`` and ``mvout`` share one DMA engine; ``False``
            (default): separate read and write engines.
        store_latency: cycles from a write request to its acknowledgement (default 30:
            writes are absorbed by the SoC's inclusive L2 cache; ``None``: ``dma_latency``).
        dma_max_bytes: bytes per memory request (Gemmini ``dma_maxbytes`` = 64).
        max_in_flight: outstanding memory requests per DMA engine
            (``max_in_flight_mem_reqs`` = 16).
        tlb_entries: DMA TLB entries (``tlb_size`` = 4).
        page_bytes: page size in bytes (4096).
        tlb_miss_cycles: stall of a TLB miss, cycles (default 30: a hit in the SoC's shared
            L2 TLB; 0 disables the TLB).
        config_cycles: cycles a ``config_*`` instruction takes once its unit drained
            (default 1).
        preload_cycles: cycles a ``preload`` occupies the execute controller (default 1).
        weight_load_cycles: cycles to shift a preloaded tile (WS weights, OS bias) into the
            array, overlapped with the previous compute; ``None``: DIM.
        compute_cycles: cycles a compute occupies the systolic array; ``None``: DIM.
        array_latency: cycles from the end of a compute's occupancy to its output rows
            being written; ``None``: DIM.
    """

    load_queue_depth: int = 8
    execute_queue_depth: int = 16
    store_queue_depth: int = 4
    issue_interval: int = 1
    dma_bytes_per_cycle: int = 16
    dma_latency: int = 175
    shared_dma: bool = False
    store_latency: int | None = 30
    dma_max_bytes: int = 64
    max_in_flight: int = 16
    tlb_entries: int = 4
    page_bytes: int = 4096
    tlb_miss_cycles: int = 30
    config_cycles: int = 1
    preload_cycles: int = 1
    weight_load_cycles: int | None = None
    compute_cycles: int | None = None
    array_latency: int | None = None

    def __post_init__(self) -> None:
        for name in ("load_queue_depth", "execute_queue_depth", "store_queue_depth",
                     "issue_interval", "dma_bytes_per_cycle", "config_cycles", "preload_cycles",
                     "dma_max_bytes", "max_in_flight", "tlb_entries", "page_bytes"):
            if getattr(self, name) < 1:
                raise ValueError(f"CostParams.{name} must be ≥ 1, got {getattr(self, name)}")
        if self.dma_latency < 0:
            raise ValueError(f"CostParams.dma_latency must be ≥ 0, got {self.dma_latency}")
        if self.tlb_miss_cycles < 0:
            raise ValueError(f"CostParams.tlb_miss_cycles must be ≥ 0, got {self.tlb_miss_cycles}")

        for name, low in (("weight_load_cycles", 0), ("compute_cycles", 1), ("array_latency", 0), ("store_latency", 0)):
            v = getattr(self, name)
            if v is not None and v < low:
                raise ValueError(f"CostParams.{name} must be ≥ {low} (or None for DIM), got {v}")


class Timing(NamedTuple):
    """When one instruction was issued by the host, started by its controller and finished
    (its data available), in cycles. For ``fence`` / ``flush``, ``start`` is the issue."""

    issue: int
    start: int
    done: int


@dataclass
class CostReport:
    """The estimate for one program.

    Attributes:
        cycles: cycles until the last instruction retired (0 for the empty program).
        macs: useful multiply-accumulates (see the module docstring).
        utilization: ``macs / (DIM² × cycles)``, 0 when ``cycles`` is 0; in [0, 1].
        dim: the array size DIM.
        instructions: number of instructions.
        busy: cycles each unit's datapath was occupied (``"load"``: load DMA transfers,
            zero fills and ``config_ld``; ``"execute"``: the systolic array's computes and
            ``config_ex``; ``"store"``: store DMA transfers and ``config_st``).
        counts: instructions per mnemonic.
        bytes_loaded: bytes read from DRAM by ``mvin*`` (zero fills read none).
        bytes_stored: bytes written to DRAM by ``mvout``.
        issue_stall_cycles: cycles the host waited for a full queue, by unit.
        fence_wait_cycles: cycles the host waited in ``fence``.
        params: the parameters used.
        trace: per-instruction :class:`Timing`, in program order, when requested.
    """

    cycles: int
    macs: int
    utilization: float
    dim: int
    instructions: int
    busy: dict[str, int]
    counts: dict[str, int]
    bytes_loaded: int
    bytes_stored: int
    issue_stall_cycles: dict[str, int]
    fence_wait_cycles: int
    params: CostParams = field(default_factory=CostParams)
    trace: list[Timing] | None = None

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-serialisable data (without the trace)."""
        return {
            "model": "gemmini-event-model",
            "cycles": self.cycles,
            "macs": self.macs,
            "utilization": self.utilization,
            "dim": self.dim,
            "instructions": self.instructions,
            "busy": dict(self.busy),
            "counts": dict(self.counts),
            "bytes_loaded": self.bytes_loaded,
            "bytes_stored": self.bytes_stored,
            "issue_stall_cycles": dict(self.issue_stall_cycles),
            "fence_wait_cycles": self.fence_wait_cycles,
            "params": asdict(self.params),
        }


def estimate(isa: IsaDescription, program: Iterable[Inst], params: CostParams | None = None,
             *, trace: bool = False) -> CostReport:
    """Estimate the cycles of ``program`` on the Gemmini described by ``isa`` with the event
    model of this module (one pass, O(rows touched) per instruction, memory bounded by the
    sizes of the scratchpad and accumulator).

    Args:
        isa: a :func:`~tenspiler.act.isa.gemmini.gemmini_isa` description (its DIM, element
            types, buffer sizes and register reset values are used).
        program: instructions in program order (any iterable; consumed once).
        params: model parameters; ``None``: :class:`CostParams` defaults.
        trace: also return each instruction's :class:`Timing` (memory grows with the
            program).

    Raises:
        ValueError: ``isa`` is not a Gemmini description.
        IsaError: an unknown mnemonic, a wrong number of attributes, a local row range
            outside its buffer, a ``mvin`` into / ``mvout`` from ``GARBAGE``, a ``config_ld``
            id outside 0..2; the message gives the instruction's index and text. Other
            semantic checks (operand sizes, strides, dataflow values) are the oracle's
            (:class:`~tenspiler.act.oracle.Oracle`); the model does not repeat them.
    """
    if isa.name != "gemmini":
        raise ValueError(f"the cost model describes Gemmini only, not {isa.name!r}")
    p = params if params is not None else CostParams()
    dim = int(isa.params["dim"])
    in_size = np.dtype(isa.types["input"]).itemsize
    acc_size = np.dtype(isa.types["acc"]).itemsize
    n_spad, n_acc = isa.buffers["spad"].rows, isa.buffers["acc"].rows
    # the timing rules below assume each mnemonic runs on the unit the description names
    rules: dict[str, tuple[int, int]] = {}
    fsm_state = dict(isa.registers.get("fsm", {}))
    for name, spec in isa.instructions.items():
        if name in _KINDS:
            kind, arity, unit = _KINDS[name]
            if spec.unit != unit or len(spec.attrs) != arity:
                raise ValueError(f"{name}: the cost model times it as a {unit} instruction with {arity} attributes; "
                                 f"the description says {spec.unit} with {len(spec.attrs)}")
            rules[name] = (kind, arity)
    comp = p.compute_cycles if p.compute_cycles is not None else dim
    arr_lat = p.array_latency if p.array_latency is not None else dim
    wl_cycles = p.weight_load_cycles if p.weight_load_cycles is not None else dim
    bw, lat, cfg, pre = p.dma_bytes_per_cycle, p.dma_latency, p.config_cycles, p.preload_cycles
    st_lat = p.store_latency if p.store_latency is not None else lat
    interval = p.issue_interval
    maxb, inflight = p.dma_max_bytes, p.max_in_flight
    wr_engine = 0 if p.shared_dma else 1

    # per-row times, indexed [0] scratchpad / [1] accumulator: last write by the load unit /
    # the execute unit (data available), last read by the execute unit / the store unit
    w_ld = ([0] * n_spad, [0] * n_acc)
    w_ex = ([0] * n_spad, [0] * n_acc)
    r_ex = ([0] * n_spad, [0] * n_acc)
    r_st = ([0] * n_spad, [0] * n_acc)
    nrows = (n_spad, n_acc)

    # register state the timing depends on (reset values from the description)
    dataflow = int(isa.registers["ex"]["dataflow"])
    a_stride = int(isa.registers["ex"]["a_stride"])
    shrunk = [bool(isa.registers["ld"][i]["shrunk"]) for i in range(3)]
    ld_stride = [int(isa.registers["ld"][i]["stride"]) for i in range(3)]
    st_stride = int(isa.registers["st_stride"])
    tlb = _Tlb(p.tlb_entries, p.page_bytes, p.tlb_miss_cycles)
    pend_c, pend_c_rows, pend_c_cols = _GARBAGE, 0, 0

    host = 0                    # earliest cycle of the next issue
    end = 0                     # latest retire so far
    q_ld: deque[int] = deque(maxlen=p.load_queue_depth)   # retire times of queued entries
    q_ex: deque[int] = deque(maxlen=p.execute_queue_depth)
    q_st: deque[int] = deque(maxlen=p.store_queue_depth)
    d_ld, d_ex, d_st = p.load_queue_depth, p.execute_queue_depth, p.store_queue_depth
    ret_ld = ret_ex = ret_st = 0         # last retire per unit (monotone)
    ctl_ld = ctl_ex = ctl_st = 0         # earliest next start per controller
    dma = [0, 0]                         # DMA engines free at: [read, write]
    arr_free = 0                         # systolic array free at
    w_free = 0                           # weight/bias shift path free at
    w_ready = 0                          # latest shift done
    busy_ld = busy_ex = busy_st = 0
    stall_ld = stall_ex = stall_st = 0
    fence_wait = 0
    bytes_ld = bytes_st = 0
    macs = 0
    counts: dict[str, int] = {}
    timings: list[Timing] | None = [] if trace else None
    i = -1
    # the GEMM state machine: each module's next issue, when the calls in flight finished issuing
    fsm_clock = {"load": 0, "execute": 0, "store": 0}
    fsm_ends: deque[int] = deque(maxlen=_FSM_CONTEXTS)
    call_end = -1

    def issued_by(program: Iterable[Inst]) -> Iterable[tuple[Inst, bool]]:
        """The instructions with whether the state machine issues them (a ``loop_ws``
        itself is the host's; its expansion follows it)."""
        for inst in program:
            yield inst, False
            spec = isa.instructions.get(inst.name)
            if spec is not None and spec.expand is not None:
                attrs = isa.bind(inst)
                yield from ((sub, True) for sub in spec.expand(fsm_state, **attrs))

    for i, (inst, by_fsm) in enumerate(issued_by(program)):
        name = inst.name
        args = inst.args
        ka = rules.get(name)
        if ka is None:
            isa.spec(name)  # raises IsaError listing the known mnemonics
            raise _fail(i, inst, f"{name} has no timing rule in the cost model")
        kind, arity = ka
        if len(args) != arity:
            raise _fail(i, inst, f"{name} takes {arity} attributes, got {len(args)}")
        counts[name] = counts.get(name, 0) + 1
        issue = fsm_clock[_UNIT_OF[kind]] if by_fsm else host

        if kind == _LOOP:
            if call_end >= 0:
                fsm_ends.append(call_end)
            if len(fsm_ends) == _FSM_CONTEXTS:
                issue = max(issue, fsm_ends[0])   # wait for a free context
            host = issue + _LOOP_COMMANDS * interval
            call_end = host
            for u in fsm_clock:
                fsm_clock[u] = max(fsm_clock[u], host)
            end = max(end, host)
            if timings is not None:
                timings.append(Timing(issue, issue, host))
            continue

        if kind == _MVIN:
            dram, laddr, cols, rows = int(args[0]), int(args[1]), int(args[2]), int(args[3])
            if laddr == _GARBAGE:
                raise _fail(i, inst, "mvin into GARBAGE")
            if len(q_ld) == d_ld and q_ld[0] > issue:
                stall_ld += q_ld[0] - issue
                issue = q_ld[0]
            sp = 1 if laddr & _ACC_BIT else 0
            row = laddr & _ROW_MASK
            blocks = -(-cols // dim) if rows > 0 else 0
            start = max(issue, ctl_ld, dma[0])
            if blocks:
                r_exs, r_sts, w_exs = r_ex[sp], r_st[sp], w_ex[sp]
                for b in range(blocks):
                    r0 = row + b * dim
                    r1 = r0 + rows
                    if r0 + rows > nrows[sp]:
                        raise _out_of_range(i, inst, sp, r0, rows, "mvin", nrows[sp])
                    dep = max(max(r_exs[r0:r1]), max(r_sts[r0:r1]), max(w_exs[r0:r1]))
                    start = max(start, dep)
            if dram:
                esize = acc_size if (sp and not shrunk[_MVIN_ID[name]]) else in_size
                nbytes = rows * cols * esize
                occ = _dma_cycles(nbytes, rows * -(-(cols * esize) // maxb), bw, lat, inflight)
                occ += tlb.walk(dram, ld_stride[_MVIN_ID[name]], rows, cols * esize)
                done = start + occ + lat
                bytes_ld += nbytes
            else:  # ZeroWriter: one row per cycle
                occ = max(1, rows * blocks)
                done = start + occ
            dma[0] = start + occ
            ctl_ld = start + 1
            busy_ld += occ
            if blocks:
                w_lds = w_ld[sp]
                fill = [done] * rows
                for b in range(blocks):
                    r0 = row + b * dim
                    w_lds[r0:r0 + rows] = fill
            ret_ld = max(ret_ld, done)
            q_ld.append(ret_ld)
            retire = ret_ld

        elif kind == _COMPUTE:
            a, bd, a_cols, a_rows, bd_cols, _bd_rows = (int(x) for x in args)
            if len(q_ex) == d_ex and q_ex[0] > issue:
                stall_ex += q_ex[0] - issue
                issue = q_ex[0]
            start = max(issue, ctl_ex, arr_free, w_ready)
            a_span = (a_rows - 1) * a_stride + 1 if a_rows > 0 else 0
            if a != _GARBAGE and a_span:
                sp, r0 = (1 if a & _ACC_BIT else 0), a & _ROW_MASK
                if r0 + a_span > nrows[sp]:
                    raise _out_of_range(i, inst, sp, r0, a_span, "compute (A)", nrows[sp])
                dep = max(max(w_ld[sp][r0:r0 + a_span]), max(w_ex[sp][r0:r0 + a_span]))
                start = max(start, dep)
            bd_n = int(args[5]) if bd != _GARBAGE else 0
            if bd_n > 0:
                sp, r0 = (1 if bd & _ACC_BIT else 0), bd & _ROW_MASK
                if r0 + bd_n > nrows[sp]:
                    raise _out_of_range(i, inst, sp, r0, bd_n, "compute (B/D)", nrows[sp])
                dep = max(max(w_ld[sp][r0:r0 + bd_n]), max(w_ex[sp][r0:r0 + bd_n]))
                start = max(start, dep)
            c, c_rows, c_cols = pend_c, pend_c_rows, pend_c_cols
            pend_c = _GARBAGE
            if c != _GARBAGE and c_rows > 0:
                csp, c0 = (1 if c & _ACC_BIT else 0), c & _ROW_MASK
                if c0 + c_rows > nrows[csp]:
                    raise _out_of_range(i, inst, csp, c0, c_rows, "compute (C)", nrows[csp])
                dep = max(max(r_st[csp][c0:c0 + c_rows]), max(w_ld[csp][c0:c0 + c_rows]))
                start = max(start, dep)
            arr_free = start + comp
            ctl_ex = start + 1
            done = arr_free + arr_lat
            busy_ex += comp
            if a != _GARBAGE and a_span:
                sp, r0 = (1 if a & _ACC_BIT else 0), a & _ROW_MASK
                r_ex[sp][r0:r0 + a_span] = [arr_free] * a_span
            if bd_n > 0:
                sp, r0 = (1 if bd & _ACC_BIT else 0), bd & _ROW_MASK
                r_ex[sp][r0:r0 + bd_n] = [arr_free] * bd_n
            if c != _GARBAGE and c_rows > 0:
                w_ex[csp][c0:c0 + c_rows] = [done] * c_rows
            if a != _GARBAGE:
                if dataflow == 1:
                    if c != _GARBAGE:
                        macs += a_rows * a_cols * c_cols
                elif bd != _GARBAGE:
                    macs += a_rows * a_cols * bd_cols
            ret_ex = max(ret_ex, done)
            q_ex.append(ret_ex)
            retire = ret_ex

        elif kind == _PRELOAD:
            bd, c, _bd_cols, bd_rows, c_cols, c_rows = (int(x) for x in args)
            if len(q_ex) == d_ex and q_ex[0] > issue:
                stall_ex += q_ex[0] - issue
                issue = q_ex[0]
            start = max(issue, ctl_ex)
            real = bd != _GARBAGE and bd_rows > 0
            if real:
                sp, r0 = (1 if bd & _ACC_BIT else 0), bd & _ROW_MASK
                if r0 + bd_rows > nrows[sp]:
                    raise _out_of_range(i, inst, sp, r0, bd_rows, "preload (B/D)", nrows[sp])
                dep = max(max(w_ld[sp][r0:r0 + bd_rows]), max(w_ex[sp][r0:r0 + bd_rows]))
                start = max(start, dep)
                w_ready = max(start, w_free) + wl_cycles
                w_free = w_ready
                r_ex[sp][r0:r0 + bd_rows] = [w_ready] * bd_rows
            pend_c, pend_c_rows, pend_c_cols = c, c_rows, c_cols
            ctl_ex = done = start + pre
            ret_ex = max(ret_ex, done)
            q_ex.append(ret_ex)
            retire = ret_ex

        elif kind == _MVOUT:
            dram, laddr, cols, rows = int(args[0]), int(args[1]), int(args[2]), int(args[3])
            if laddr == _GARBAGE:
                raise _fail(i, inst, "mvout from GARBAGE")
            if len(q_st) == d_st and q_st[0] > issue:
                stall_st += q_st[0] - issue
                issue = q_st[0]
            sp = 1 if laddr & _ACC_BIT else 0
            row = laddr & _ROW_MASK
            start = max(issue, ctl_st, dma[wr_engine])
            if rows > 0:
                if row + rows > nrows[sp]:
                    raise _out_of_range(i, inst, sp, row, rows, "mvout", nrows[sp])
                dep = max(max(w_ld[sp][row:row + rows]), max(w_ex[sp][row:row + rows]))
                start = max(start, dep)
            esize = acc_size if (sp and laddr & _RAW_BIT) else in_size
            nbytes = rows * cols * esize
            occ = _dma_cycles(nbytes, rows * -(-(cols * esize) // maxb), bw, st_lat, inflight)
            occ += tlb.walk(dram, st_stride, rows, cols * esize)
            done = start + occ + st_lat
            bytes_st += nbytes
            dma[wr_engine] = start + occ
            ctl_st = start + 1
            busy_st += occ
            if rows > 0:
                r_st[sp][row:row + rows] = [done] * rows
            ret_st = max(ret_st, done)
            q_st.append(ret_st)
            retire = ret_st

        elif kind == _CONFIG_EX:
            if len(q_ex) == d_ex and q_ex[0] > issue:
                stall_ex += q_ex[0] - issue
                issue = q_ex[0]
            start = max(issue, ctl_ex, ret_ex, w_free, arr_free)
            done = start + cfg
            ctl_ex = arr_free = done
            busy_ex += cfg
            dataflow, a_stride = int(args[0]), max(1, int(args[5]))
            ret_ex = done
            q_ex.append(ret_ex)
            retire = ret_ex

        elif kind == _CONFIG_LD:
            ident = int(args[3])
            if ident not in (0, 1, 2):
                raise _fail(i, inst, f"config_ld id must be 0, 1 or 2, got {ident}")
            if len(q_ld) == d_ld and q_ld[0] > issue:
                stall_ld += q_ld[0] - issue
                issue = q_ld[0]
            start = max(issue, ctl_ld, ret_ld, dma[0])
            done = start + cfg
            ctl_ld = done
            dma[0] = max(dma[0], done)
            busy_ld += cfg
            shrunk[ident] = bool(int(args[2]))
            ld_stride[ident] = int(args[0])
            ret_ld = done
            q_ld.append(ret_ld)
            retire = ret_ld

        elif kind == _CONFIG_ST:
            if len(q_st) == d_st and q_st[0] > issue:
                stall_st += q_st[0] - issue
                issue = q_st[0]
            start = max(issue, ctl_st, ret_st, dma[wr_engine])
            done = start + cfg
            ctl_st = done
            dma[wr_engine] = max(dma[wr_engine], done)
            busy_st += cfg
            ret_st = done
            q_st.append(ret_st)
            retire = ret_st

        elif kind == _FENCE:
            start = issue
            done = max(issue + 1, ret_ld, ret_ex, ret_st, w_free)
            fence_wait += done - (issue + interval) if done > issue + interval else 0
            retire = done

        else:  # _FLUSH
            start = issue
            retire = done = issue + 1

        if by_fsm:
            fsm_clock[_UNIT_OF[kind]] = issue + 1
            call_end = max(call_end, issue + 1)
        else:
            host = max(issue + interval, retire) if kind == _FENCE else issue + interval
        end = max(end, retire)
        if timings is not None:
            timings.append(Timing(issue, start, done))

    cycles = end
    return CostReport(
        cycles=cycles,
        macs=macs,
        utilization=macs / (dim * dim * cycles) if cycles else 0.0,
        dim=dim,
        instructions=i + 1,
        busy={"load": busy_ld, "execute": busy_ex, "store": busy_st},
        counts=counts,
        bytes_loaded=bytes_ld,
        bytes_stored=bytes_st,
        issue_stall_cycles={"load": stall_ld, "execute": stall_ex, "store": stall_st},
        fence_wait_cycles=fence_wait,
        params=p,
        trace=timings,
    )


class _Tlb:
    """Gemmini's DMA TLB: ``entries`` pages, least recently used replaced, shared by the
    load and store engines; a miss stalls the transfer for ``miss_cycles`` (the walk)."""

    def __init__(self, entries: int, page: int, miss_cycles: int) -> None:
        self.entries, self.page, self.miss = entries, page, miss_cycles
        self.pages: dict[int, None] = {}   # insertion order = recency

    def walk(self, addr: int, stride: int, rows: int, row_bytes: int) -> int:
        """Stall cycles of the page walks a transfer of ``rows`` rows needs."""
        if not self.miss or rows <= 0:
            return 0
        stall = 0
        pages = self.pages
        seen: set[int] = set()
        for r in range(rows):
            lo = addr + r * stride
            for pg in range(lo // self.page, (lo + max(row_bytes, 1) - 1) // self.page + 1):
                if pg in seen:
                    continue
                seen.add(pg)
                if pg in pages:
                    del pages[pg]
                else:
                    stall += self.miss
                    if len(pages) >= self.entries:
                        del pages[next(iter(pages))]
                pages[pg] = None
        return stall


def _dma_cycles(nbytes: int, requests: int, bw: int, latency: int, inflight: int) -> int:
    """Cycles a transfer occupies its DMA engine: the bus moves ``bw`` bytes a cycle, and at
    most ``inflight`` requests (one per ``dma_max_bytes`` of a row) wait ``latency`` cycles
    for their response at a time (Little's law: ``requests × latency / inflight``)."""
    return max(1, -(-nbytes // bw), -(-(requests * latency) // inflight))


def _fail(i: int, inst: Inst, msg: str) -> IsaError:
    return IsaError(f"instruction {i} ({inst}): {msg}")


def _out_of_range(i: int, inst: Inst, space: int, row: int, n: int, what: str, limit: int) -> IsaError:
    buf = "accumulator" if space else "scratchpad"
    return _fail(i, inst, f"{what}: rows [{row}, {row + n}) outside the {buf} ({limit} rows)")
