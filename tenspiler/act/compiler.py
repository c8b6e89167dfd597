"""The ACT-style compiler backend: a tensor dataflow graph → a validated accelerator program
(ACT §4, Fig. 8), for any :class:`~tenspiler.act.tensor_isa.TensorIsa`.

Phase 1 (:mod:`tenspiler.act.select`) grows the e-graph one rule iteration at a time and
extracts the cheapest buffer-guided pii graph; phase 2 (:mod:`tenspiler.act.allocate`) orders
it and solves the memory-allocation CSP with CP-SAT; if allocation fails for every order it
tries, control returns to phase 1, which grows the e-graph further and extracts again
(the inter-phase fallback of §4.2.3). The emitter (:mod:`tenspiler.act.emit`) lowers the
concrete instructions, and the independent validator (:mod:`tenspiler.act.validate`, §3.4)
checks every emitted program before it is returned. Anything else is a :class:`CompileError`
(``FAIL`` with a reason): nothing unvalidated is ever returned.

The budgets are work (issue 33): ``max_iterations`` rule iterations, an e-graph of at most
``max_enodes`` e-nodes before the next iteration (:data:`MAX_ENODES`; e-graphs about double per
iteration), and ``work_limit`` units of CP-SAT deterministic time over the compilation
(:data:`COMPILE_WORK`), so the program — or the ``FAIL`` — is the same on any machine under any
load. The wall-clock ``time_limit``
(:data:`COMPILE_SAFETY_NET_S`) is only a safety net: its firing is a :class:`CompileError` with
``timed_out`` set, the one outcome that depends on time.

:func:`run` executes a program on the oracle generated from the description — the lower
ISA's :class:`~tenspiler.act.oracle.Oracle` when the description expands to one (Gemmini),
else the :class:`~tenspiler.act.tensor_isa.TermOracle`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tenspiler.act.allocate import ALLOCATION_WORK, AllocationError, allocate, concretize
from tenspiler.act.emit import lower
from tenspiler.act.graph import DTYPES, Graph
from tenspiler.act.pii import HbmLayout, PiiGraph, Program, Region
from tenspiler.act.select import SelectionError, Selector, shape2
from tenspiler.act.tensor_isa import TensorIsa, TermOracle
from tenspiler.act.validate import ValidationError, validate

__all__ = ["COMPILE_SAFETY_NET_S", "COMPILE_WORK", "MAX_ENODES", "CompileError", "compile_graph", "hbm_layout", "run"]

ALIGN = 64

#: CP-SAT deterministic time (work units, not seconds) of one compilation's allocations
COMPILE_WORK = 3 * ALLOCATION_WORK

#: e-nodes past which the e-graph is not grown further. 120-node random graphs
#: (``benchmarks/act.py --compile-time``) compile at up to 69 000 e-nodes; the ones that do not
#: compile pass 300 000 by their tenth iteration (~10 s each on a loaded 2-core machine)
MAX_ENODES = 150_000

#: wall-clock seconds after which a compilation gives up whatever its budgets (a safety net:
#: ``CompileError.timed_out``)
COMPILE_SAFETY_NET_S = 300.0


class CompileError(Exception):
    """``FAIL``: no program was produced; ``reason`` says why (the operation without an
    instruction, an allocation that failed for every order tried, a validator finding, the
    budget, or the wall-clock safety net: then ``timed_out``)."""

    def __init__(self, reason: str, stats: Mapping[str, Any] | None = None, *, timed_out: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.stats = dict(stats or {})
        self.timed_out = timed_out


def _align(n: int) -> int:
    return -(-n // ALIGN) * ALIGN


def hbm_layout(graph: Graph, pg: PiiGraph | None = None, *, output_name: str = "out") -> HbmLayout:
    """The HBM layout of ACT §3.4: the inputs in parameter order, dense row-major, each at a
    64-byte-aligned address from 0; then the output; then one region per constant of ``pg``.
    Rank-1 tensors are ``[1, n]``."""
    addr = 0
    inputs = []
    for i in graph.parameters:
        n = graph.nodes[i]
        r, c = shape2(n.shape)
        item = DTYPES[n.dtype].itemsize
        inputs.append(Region(n.attrs[1], addr, r, c, n.dtype, c * item))
        addr = _align(addr + r * c * item)
    root = graph.nodes[graph.root]
    r, c = shape2(root.shape)
    item = DTYPES[root.dtype].itemsize
    output = Region(output_name, addr, r, c, root.dtype, c * item)
    addr = _align(addr + r * c * item)
    consts: list[tuple[int, Region]] = []
    for k, pn in enumerate(pg.nodes if pg is not None else ()):
        if pn.kind == "const":
            item = DTYPES[pn.dtype].itemsize
            consts.append((k, Region(f"const{len(consts)}", addr, pn.rows, pn.cols, pn.dtype, pn.cols * item)))
            addr = _align(addr + pn.rows * pn.cols * item)
    return HbmLayout(tuple(inputs), output, tuple(consts))


def _const_bytes(pg: PiiGraph, layout: HbmLayout) -> tuple[tuple[int, bytes], ...]:
    return tuple((r.start, np.asarray(pg.nodes[k].attrs[0], dtype=DTYPES[r.dtype]).tobytes()) for k, r in layout.constants)


def _producers(isa: TensorIsa, pg: PiiGraph, order: Sequence[int], layout: HbmLayout) -> tuple[list[list[Any]], Any]:
    """For each emitted instruction, for each operand slice, who must have last written each
    element and where it sits in that writer's output (the validator's mapping form:
    ``{writer: (row offset, column offset)}``, columns in elements on-chip and bytes in HBM;
    writers are instruction indices, input names or ``"const ID"``), derived from the pii graph
    through its slice and concat aliases; and the same for the output region."""
    index = {node: k for k, node in enumerate(n for n in order if pg.nodes[n].kind == "pii")}

    def owners(u: int) -> dict[Any, tuple[int, int]] | set[Any]:
        n = pg.nodes[u]
        if n.kind == "pii":
            return {index[u]: (0, 0)}
        if n.kind == "param":
            return {n.attrs[0]: (0, 0)}
        if n.kind == "const":
            return {f"const {u}": (0, 0)}
        item = DTYPES[n.dtype].itemsize if isa.buffer(n.buffer).hbm else 1  # HBM columns are bytes
        out: dict[Any, tuple[int, int]] = {}
        if n.kind == "slice":
            r0, c0 = n.attrs
            inner = owners(n.operands[0])
            if isinstance(inner, set):
                return inner
            return {w: (dr + r0, dc + c0 * item) for w, (dr, dc) in inner.items()}
        off = 0
        for o in n.operands:  # concat: part j starts at offset off along dim
            inner = owners(o)
            if isinstance(inner, set):
                return {w for p in n.operands for w in _writers(owners(p))}
            for w, (dr, dc) in inner.items():
                pos = (dr - off, dc) if n.attrs[0] == 0 else (dr, dc - off * item)
                if out.setdefault(w, pos) != pos:  # one writer at two offsets: names only
                    return {w for p in n.operands for w in _writers(owners(p))}
            off += pg.nodes[o].rows if n.attrs[0] == 0 else pg.nodes[o].cols
        return out

    per = [[owners(o) for o in pg.nodes[v].operands] for v in order if pg.nodes[v].kind == "pii"]
    return per, owners(pg.root)


def _writers(sources: Any) -> set[Any]:
    return set(sources) if isinstance(sources, set) else set(sources.keys())


def compile_graph(isa: TensorIsa, graph: Graph, *, max_iterations: int = 64, max_enodes: int = MAX_ENODES,
                  work_limit: float = COMPILE_WORK, time_limit: float = COMPILE_SAFETY_NET_S, max_orders: int = 16,
                  output_name: str = "out") -> Program:
    """Compile ``graph`` for ``isa`` (see the module docstring).

    Args:
        max_iterations: rule iterations of equality saturation before giving up.
        max_enodes: e-nodes of the e-graph past which it is not grown again (work).
        work_limit: CP-SAT deterministic time (work units, not seconds) for all the
            allocations; each pii graph's gets ``max(0.1, left / 3)`` of what is left.
        time_limit: wall-clock seconds, a safety net (its firing is ``timed_out``).
        max_orders: topological orders tried per pii graph.

    Raises:
        CompileError: FAIL, with the reason and the statistics so far (``stats["work"]``: the
            deterministic time spent); ``timed_out`` when the safety net fired.
    """
    t0 = time.perf_counter()
    stats: dict[str, Any] = {"graph_nodes": len(graph.live()), "work": 0.0}

    def timed_out(when: str) -> CompileError:
        return CompileError(f"timed out (wall clock): the safety net of {time_limit:g} s fired {when} ({last})", stats,
                            timed_out=True)

    try:
        sel = Selector(isa, graph)
    except SelectionError as e:
        raise CompileError(str(e), stats) from None
    last = "no pii graph found"
    tried: set[str] = set()
    k = 0
    n_graph = len(graph.live())

    def bound(k: int) -> int:
        """Γ(k) (§5.4): the node bound of extraction after iteration k, strictly increasing,
        scaled by the graph's size (a pii graph has about as many nodes as the graph it
        implements, times the tiles per operation)."""
        return max(64, n_graph) * 2 ** k

    iter_s = 0.0
    while k < max_iterations:
        if k > 0 and (size := sel.enodes()[2]) >= max_enodes:
            stats.update(iterations=k, select_s=sel.seconds, seconds=time.perf_counter() - t0)
            raise CompileError(f"work limit: the e-graph has {size} e-nodes after {k} iterations (max_enodes "
                               f"{max_enodes}; {last})", stats)
        k += 1
        left = time_limit - (time.perf_counter() - t0)
        if 2.5 * iter_s > left:  # e-graphs grow geometrically: the next iteration would pass the net
            raise timed_out(f"after {k - 1} e-graph iterations")
        tg = time.perf_counter()
        alloc_before = stats.get("allocate_s", 0.0)
        saturated = sel.grow(1)
        if time.perf_counter() - t0 > time_limit:
            raise timed_out("during selection")
        found = None
        for forbid in sel.VARIANTS:
            try:
                ts = time.perf_counter()
                pg = sel.extract(max_nodes=bound(k), forbid=forbid)
                stats["extract_s"] = stats.get("extract_s", 0.0) + time.perf_counter() - ts
            except SelectionError as e:
                if not forbid:  # the variants only remove options: they cannot succeed either
                    last = str(e)
                    break
                continue
            key = str(pg)
            if key in tried:
                continue
            tried.add(key)
            layout = hbm_layout(graph, pg, output_name=output_name)
            left = time_limit - (time.perf_counter() - t0)
            if left <= 0:
                raise timed_out("before memory allocation")
            work_left = work_limit - stats["work"]
            if work_left <= 0:
                raise CompileError(f"work limit: {work_limit:g} units of CP-SAT deterministic time spent ({last})", stats)
            try:
                ta = time.perf_counter()
                alloc = allocate(isa, pg, layout, max_orders=max_orders, work_limit=min(work_left, max(0.1, work_left / 3)),
                                 time_limit=left)
                stats["allocate_s"] = stats.get("allocate_s", 0.0) + time.perf_counter() - ta
                stats["work"] += alloc.work
            except AllocationError as e:
                stats["allocate_s"] = stats.get("allocate_s", 0.0) + time.perf_counter() - ta
                stats["work"] += e.work
                last = f"memory allocation: {e}"
                if e.timed_out:
                    raise CompileError(f"timed out (wall clock): {e.reason}", stats, timed_out=True) from None
                continue
            found = (pg, layout, alloc)
            break
        # the next iteration's selection (e-graph growth and extraction) grows geometrically;
        # allocation time does not
        iter_s = time.perf_counter() - tg - (stats.get("allocate_s", 0.0) - alloc_before)
        if found is None:
            if saturated:
                break
            continue
        pg, layout, alloc = found
        pairs = concretize(isa, pg, alloc)
        instructions = tuple(i for _, i in pairs)
        lowered = lower(isa, instructions) if isa.expand is not None else None
        try:
            per, out = _producers(isa, pg, alloc.order, layout)
            validate(isa, instructions, layout, producers=per, output_producers=out)
        except ValidationError as e:  # a compiler bug: never emit it
            raise CompileError(f"the validator rejected the program: {e}", stats) from None
        stats.update(iterations=k, select_s=sel.seconds, pii_nodes=len(pg), instructions=len(instructions),
                     lowered=len(lowered) if lowered is not None else None, seconds=time.perf_counter() - t0)
        return Program(isa.name, instructions, layout, _const_bytes(pg, layout), lowered, pg, stats)
    stats.update(iterations=k, select_s=sel.seconds, seconds=time.perf_counter() - t0)
    raise CompileError(last, stats)


def run(isa: TensorIsa, program: Program, inputs: Mapping[str, np.ndarray] | Sequence[np.ndarray],
        *, hbm_base: int | None = None) -> np.ndarray:
    """Run ``program`` on the oracle generated from ``isa`` with ``inputs`` (by parameter name
    or in parameter order) placed at their HBM regions; return the output region's tensor
    (2-D: rank-1 tensors come back as ``[1, n]``).

    Raises:
        tenspiler.act.isa.IsaError / tenspiler.act.tensor_isa.TensorIsaError: an instruction
            the oracle rejects."""
    lay = program.layout
    values = [inputs[r.name] if isinstance(inputs, Mapping) else inputs[k] for k, r in enumerate(lay.inputs)]
    size = _align(lay.size) + ALIGN
    if program.lowered is not None:
        from tenspiler.act.gemmini_tensor import HBM_BASE
        from tenspiler.act.oracle import HbmBuffer, Oracle

        base = HBM_BASE if hbm_base is None else hbm_base
        mem = HbmBuffer(size, base)
        for r, v in zip(lay.inputs, values, strict=True):
            mem.place(base + r.start, np.ascontiguousarray(np.asarray(v, dtype=DTYPES[r.dtype]).reshape(r.rows, r.cols)))
        for addr, data in program.constants:
            mem.place(base + addr, np.frombuffer(data, dtype=np.uint8))
        Oracle(isa.lower).run(program.lowered, mem)
        o = lay.output
        return np.stack([mem.read(base + o.start + i * o.stride, o.cols, DTYPES[o.dtype]) for i in range(o.rows)])
    oracle = TermOracle(isa, size)
    for r, v in zip(lay.inputs, values, strict=True):
        raw = np.ascontiguousarray(np.asarray(v, dtype=DTYPES[r.dtype]).reshape(r.rows, r.cols)).view(np.uint8).ravel()
        oracle.hbm[r.start:r.start + raw.size] = raw
    for addr, data in program.constants:
        oracle.hbm[addr:addr + len(data)] = np.frombuffer(data, dtype=np.uint8)
    oracle.run(program.instructions)
    o = lay.output
    item = DTYPES[o.dtype].itemsize
    return np.stack([oracle.hbm[o.start + i * o.stride:o.start + i * o.stride + o.cols * item].view(DTYPES[o.dtype])
                     for i in range(o.rows)])
