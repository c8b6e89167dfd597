"""Memory allocation for pii graphs: ACT's Phase 2 (ACT §6), with CP-SAT.

:func:`allocate` orders a pii graph (:mod:`tenspiler.act.pii`; :func:`topological_orders`,
§6.1) and solves the integer CSP of §6.2.1 for the addressing attributes β of its piis;
:func:`concretize` reads the concrete instructions off the solution (§6.3).

* **Variables**: per storage value (a ``pii`` output) its start — a row of its on-chip
  buffer, or an HBM byte — and its HBM row stride in bytes (0 on-chip). ``param``/``const``
  are fixed; the identity instructions ``slice``/``concat`` get affine expressions of their
  operands'. Every β attribute equals the start/stride of a value one of its slices holds.
* **CSP1** (pii): e_θ — the α ranges; every value inside its buffer (on-chip ``start + rows
  ≤ buffer rows``, ``cols ≤ width``; in HBM the last byte inside it); slices naming one β
  attribute (or tied by ``same``: in-place updates) get one value.
* **CSP2** (def-use): operand i of a pii is read at slice h^(i): its start (and stride) are
  that slice's β attributes. A ``slice`` (r0, c0) starts r0 rows (+ c0 elements in HBM) into
  its operand, same stride; ``concat`` operands lie adjacent (on-chip along rows; in HBM
  along rows or columns, one stride).
* **CSP3** (input/output): ``param`` s at their :class:`~tenspiler.act.pii.HbmLayout` input
  region (by name), ``const`` s at theirs, the root at the output region.
* **CSP4** (interference): a value defined at position a and last read at b is live over
  [a, b) — its last reader may overwrite it, the def-use addresses being CSP2's business;
  reads through aliases count. Live on-chip values of one buffer do not share rows
  (``AddNoOverlap2D``: x = live range, y = rows). Intermediate values in HBM (other than
  pieces of the root) are not supported.

**Fallback** (§6.4): up to ``max_orders`` orders are tried. One with more rows live at some
step than a buffer has fails without CP-SAT; one whose interference set (pairs of values of
one buffer with overlapping live ranges) contains a failed order's is skipped (§6.4.2: CSP4
is monotone in it).

**Budgets** (issue 33): CP-SAT runs with one worker, seed 0 and a fixed search, and its budget
is *deterministic time* (``max_deterministic_time``: CP-SAT's count of the work it did, in
units of about a second on a reference machine, the same on any machine under any load) —
:data:`ALLOCATION_WORK` over all orders by default. The allocation is therefore a function of
the pii graph, the layout and the options. A wall-clock ``time_limit``
(:data:`ALLOCATION_SAFETY_NET_S`) is only a safety net: when it fires the error says so
(``AllocationError.timed_out``), the one case in which the outcome depends on time.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ortools.sat.python import cp_model

from tenspiler.act.graph import DTYPES
from tenspiler.act.pii import Allocation, HbmLayout, PiiGraph
from tenspiler.act.tensor_isa import TensorInstruction, TensorIsa, TensorIsaError, TInst, bind

__all__ = ["ALLOCATION_SAFETY_NET_S", "ALLOCATION_WORK", "AllocationError", "allocate", "concretize", "topological_orders"]

#: CP-SAT deterministic time (work units, not seconds) of one :func:`allocate` over all orders
#: (an infeasible order of a 120-node random graph takes 0.05–0.07 units, 0.3–0.5 s loaded)
ALLOCATION_WORK = 2.0

#: wall-clock seconds after which :func:`allocate` gives up whatever its work budget (a safety
#: net: ``AllocationError.timed_out``)
ALLOCATION_SAFETY_NET_S = 300.0


#: a storage segment: rows [lo, hi) of the on-chip value written by pii node v
Seg = tuple[int, int, int]


class AllocationError(Exception):
    """Memory allocation failed; :attr:`reason` says why in words (a capacity overflow, CP-SAT
    infeasibility over every order tried, the work budget, an unsupported pii graph, or the
    wall-clock safety net: then :attr:`timed_out`); :attr:`work`: CP-SAT deterministic time
    spent."""

    def __init__(self, reason: str, *, work: float = 0.0, timed_out: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.work = work
        self.timed_out = timed_out


def _dim(d: int | str, alpha: dict[str, int]) -> int:
    return d if isinstance(d, int) else alpha[d]


def _spec(isa: TensorIsa, pg: PiiGraph, v: int) -> tuple[TensorInstruction, dict[str, int]]:
    n = pg.nodes[v]
    try:
        spec = isa.instruction(str(n.inst))
    except TensorIsaError as e:
        raise AllocationError(f"%{v}: {e}") from None
    if len(n.alpha) != len(spec.alpha) or len(n.operands) != len(spec.inputs):
        raise AllocationError(f"%{v}: {spec.name} takes {len(spec.alpha)} α values and {len(spec.inputs)} operands")
    return spec, dict(zip(spec.alpha_names, n.alpha, strict=True))


def _slices(spec: TensorInstruction, pg: PiiGraph, v: int) -> list[tuple[Any, int]]:
    """(slice, node it holds): the output slice and ``v``, then input slices and operands."""
    return [(spec.output, v), *zip(spec.inputs, pg.nodes[v].operands, strict=True)]


# ---------------------------------------------------------------------- analysis (order-free)


class _Facts:
    """What does not depend on the order: the graph checked, the on-chip storage values per
    buffer and, per storage value, the piis that read any of its rows.

    Raises:
        AllocationError: an ill-formed or unsupported pii graph."""

    def __init__(self, isa: TensorIsa, pg: PiiGraph) -> None:
        nodes = pg.nodes
        try:
            self.bufs = [isa.buffer(n.buffer) for n in nodes]
        except TensorIsaError as e:
            raise AllocationError(str(e)) from None
        if not self.bufs[pg.root].hbm:
            raise AllocationError(f"the root %{pg.root} is in {nodes[pg.root].buffer}, not in HBM")
        pieces, todo = set(), [pg.root]  # the root and, through concats, its parts
        while todo:
            pieces.add(v := todo.pop())
            todo.extend(nodes[v].operands if nodes[v].kind == "concat" else ())
        self.by_buffer: dict[str, list[Seg]] = {}
        self.readers: dict[Seg, set[int]] = {}
        reads: dict[int, list[tuple[int, int, int]]] = {}
        for v, (n, buf) in enumerate(zip(nodes, self.bufs, strict=True)):
            bad = ""
            if any(not 0 <= o < v for o in n.operands):
                bad = f"operands {n.operands} are not earlier nodes"
            elif not buf.hbm and (n.rows > buf.rows or n.cols > buf.width or n.dtype != buf.dtype):
                bad = f"{n.dtype}[{n.rows},{n.cols}] does not fit {buf.name} ({buf.rows} rows × {buf.width} {buf.dtype})"
            elif n.kind in ("slice", "concat") and any(nodes[o].buffer != n.buffer for o in n.operands):
                bad = f"{n.kind} of values outside {n.buffer}"
            elif n.kind in ("param", "const") and not buf.hbm:
                bad = f"a {n.kind} must be in HBM, not {n.buffer}"
            elif n.kind == "slice" and not buf.hbm and n.attrs[1] != 0:
                bad = f"on-chip slice at column {n.attrs[1]} (must be 0)"
            elif n.kind == "concat" and not buf.hbm and n.attrs[0] != 0 and len(n.operands) > 1:
                bad = "on-chip concat along columns"
            elif n.kind == "pii" and buf.hbm and v not in pieces:
                bad = f"{n.inst} writes an intermediate value to HBM; only the root's pieces may live in HBM"
            elif n.kind not in ("param", "const", "slice", "concat", "pii"):
                bad = f"unknown node kind {n.kind!r}"
            if bad:
                raise AllocationError(f"%{v}: {bad}")
            if n.kind == "pii":
                self._check_pii(isa, pg, v)
                if not buf.hbm:
                    reads[v] = []
        for u, n in enumerate(nodes):
            for o in n.operands if n.kind == "pii" else ():
                for s, lo, hi in () if self.bufs[o].hbm else self._covered(pg, o, 0, nodes[o].rows):
                    reads[s].append((lo, hi, u))
        # row-precise liveness: a value's rows are split at the boundaries its readers use, and
        # each segment lives until its own last reader (an in-place update of some rows does
        # not wait for readers of the other rows)
        for v, rs in reads.items():
            cuts = sorted({0, nodes[v].rows, *(x for lo, hi, _ in rs for x in (lo, hi))})
            for lo, hi in itertools.pairwise(cuts):
                seg = (v, lo, hi)
                self.by_buffer.setdefault(nodes[v].buffer, []).append(seg)
                self.readers[seg] = {u for a, b, u in rs if a < hi and lo < b}

    def _check_pii(self, isa: TensorIsa, pg: PiiGraph, v: int) -> None:
        spec, alpha = _spec(isa, pg, v)
        for a, (lo, hi) in spec.alpha:
            if not lo <= alpha[a] <= hi:
                raise AllocationError(f"%{v} ({spec.name}): α {a} = {alpha[a]} outside [{lo}, {hi}]")
        for s, x in _slices(spec, pg, v):
            n = pg.nodes[x]
            want = (s.buffer, _dim(s.rows, alpha), _dim(s.cols, alpha), (s.dtype or "s8") if self.bufs[x].hbm else n.dtype)
            if (n.buffer, n.rows, n.cols, n.dtype) != want:
                raise AllocationError(f"%{v} ({spec.name}): slice {s.start} is {want[0]}:{want[3]}[{want[1]},{want[2]}] "
                                      f"but %{x} is {n.buffer}:{n.dtype}[{n.rows},{n.cols}]")

    @classmethod
    def _covered(cls, pg: PiiGraph, v: int, lo: int, hi: int) -> set[tuple[int, int, int]]:
        """``(storage value, lo, hi)``: the storage rows holding rows [lo, hi) of on-chip node
        ``v``."""
        n = pg.nodes[v]
        if n.kind == "slice":
            return cls._covered(pg, n.operands[0], lo + n.attrs[0], hi + n.attrs[0])
        if n.kind != "concat":
            return {(v, lo, hi)}
        out: set[tuple[int, int, int]] = set()
        off = 0
        for o in n.operands:  # on-chip concats are along rows
            r = pg.nodes[o].rows
            if lo < off + r and off < hi:
                out |= cls._covered(pg, o, max(lo, off) - off, min(hi, off + r) - off)
            off += r
        return out

    def live(self, order: Sequence[int]) -> dict[Seg, tuple[int, int]]:
        """Live range [a, b) (positions in ``order``) of every on-chip storage segment (a
        segment nobody reads is written and dead: [a, a + 1))."""
        pos = {v: i for i, v in enumerate(order)}
        return {seg: (pos[seg[0]], max((pos[u] for u in us), default=pos[seg[0]] + 1)) for seg, us in self.readers.items()}

    def interference(self, live: dict[Seg, tuple[int, int]]) -> frozenset[tuple[Seg, Seg]]:
        """Pairs ``(p, q)``, ``p < q``, of segments of one buffer with overlapping live ranges."""
        pairs: list[tuple[Seg, Seg]] = []
        for vs in self.by_buffer.values():
            active: list[Seg] = []  # sweep in order of definition
            for v in sorted(vs, key=lambda v: live[v]):
                active = [u for u in active if live[u][1] > live[v][0]]
                pairs.extend((min(u, v), max(u, v)) for u in active)
                active.append(v)
        return frozenset(pairs)


def _capacity(isa: TensorIsa, pg: PiiGraph, facts: _Facts, live: dict[Seg, tuple[int, int]],
              order: Sequence[int]) -> str | None:
    """``None``, or why some step has more rows live in a buffer than it has."""
    for name, vs in facts.by_buffer.items():
        delta = [0] * (len(order) + 1)
        for v in vs:
            delta[live[v][0]] += v[2] - v[1]
            delta[live[v][1]] -= v[2] - v[1]
        used, worst, step = 0, 0, 0
        for t, d in enumerate(delta):
            used += d
            if used > worst:
                worst, step = used, t
        rows = isa.buffer(name).rows
        if worst > rows:
            at = sorted({v[0] for v in vs if live[v][0] <= step < live[v][1]})
            vals = ", ".join(f"%{v}" for v in at[:8]) + (", ..." if len(at) > 8 else "")
            return f"{name}: {worst} rows live at step {step} (%{order[step]}; values {vals}) but only {rows} exist"
    return None


# ---------------------------------------------------------------------- the CSP


def _model(isa: TensorIsa, pg: PiiGraph, layout: HbmLayout, facts: _Facts,
           live: dict[Seg, tuple[int, int]] | None) -> tuple[cp_model.CpModel, list[Any], list[Any]]:
    """CSP1–CSP3, and CSP4 for ``live`` (``None``: without CSP4). Returns the model and each
    node's start and stride expressions."""
    m = cp_model.CpModel()
    hbm = isa.hbm.rows
    inputs = {r.name: r for r in layout.inputs}
    consts = dict(layout.constants)
    start: list[Any] = []
    stride: list[Any] = []
    for v, n in enumerate(pg.nodes):
        buf, item = facts.bufs[v], DTYPES[n.dtype].itemsize
        if n.kind in ("param", "const"):  # CSP3
            r = inputs.get(n.attrs[0]) if n.kind == "param" else consts.get(v)
            if r is None or (r.rows, r.cols, r.dtype) != (n.rows, n.cols, n.dtype):
                raise AllocationError(f"%{v}: {n.kind} {n.attrs[0] if n.kind == 'param' else ''} has no matching "
                                      "HBM layout region")
            s, t = m.new_constant(r.start), m.new_constant(r.stride)
        elif n.kind == "pii":
            s = m.new_int_var(0, hbm if buf.hbm else buf.rows - n.rows, f"start{v}")
            t = m.new_int_var(0, hbm, f"stride{v}") if buf.hbm else m.new_constant(0)
        elif n.kind == "slice":  # CSP2, identity slice
            o, (r0, c0) = n.operands[0], n.attrs
            s = start[o] + r0 * stride[o] + c0 * item if buf.hbm else start[o] + r0
            t = stride[o]
        else:  # CSP2, identity concat
            ops, dim = n.operands, n.attrs[0]
            s, t = start[ops[0]], stride[ops[0]]
            for p, q in itertools.pairwise(ops):
                a, b = pg.nodes[p], pg.nodes[q]
                if buf.hbm and dim == 1:
                    if a.rows != b.rows:
                        raise AllocationError(f"%{v}: concat along columns of {a.rows} and {b.rows} rows")
                    gap: Any = a.cols * item
                else:
                    gap = a.rows * stride[p] if buf.hbm else a.rows
                m.add(start[q] == start[p] + gap)
                m.add(stride[q] == t)
        if buf.hbm:
            m.add(s >= 0)
            m.add(s + (n.rows - 1) * t + n.cols * item <= hbm)
        elif n.kind != "pii":
            m.add(s >= 0)
            m.add(s + n.rows <= buf.rows)
        start.append(s)
        stride.append(t)
    out = layout.output
    root = pg.nodes[pg.root]
    if (out.rows, out.cols, out.dtype) != (root.rows, root.cols, root.dtype):
        raise AllocationError(f"the root is {root.dtype}[{root.rows},{root.cols}] but the output region is "
                              f"{out.dtype}[{out.rows},{out.cols}]")
    m.add(start[pg.root] == out.start)  # CSP3
    m.add(stride[pg.root] == out.stride)
    for v, n in enumerate(pg.nodes):  # CSP1 + CSP2: one value per β attribute
        if n.kind != "pii":
            continue
        spec, alpha = _spec(isa, pg, v)
        attr: dict[str, list[Any]] = {}
        for s, x in _slices(spec, pg, v):
            attr.setdefault(s.start, []).append(start[x])
            if facts.bufs[x].hbm and s.stride:
                attr.setdefault(s.stride, []).append(stride[x])
            elif facts.bufs[x].hbm:  # no stride attribute: dense rows
                m.add(stride[x] == _dim(s.cols, alpha) * DTYPES[pg.nodes[x].dtype].itemsize)
        for b1, b2 in spec.same:
            attr[b1] = attr[b2] = attr.get(b1, []) + attr.get(b2, [])
        for exprs in attr.values():
            for e in exprs[1:]:
                m.add(e == exprs[0])
    # search: place values in definition order, each at its lowest feasible row (first fit,
    # which is what a register allocator would do); CP-SAT still proves infeasibility
    if live is not None:
        first = {seg[0]: a for seg, (a, _) in live.items()}
        own = sorted(first, key=lambda v: (first[v], v))
        m.add_decision_strategy([start[v] for v in own], cp_model.CHOOSE_FIRST, cp_model.SELECT_MIN_VALUE)
    if live is not None:  # CSP4
        for vs in facts.by_buffer.values():
            xs = [m.new_fixed_size_interval_var(live[g][0], live[g][1] - live[g][0], f"live{g}") for g in vs]
            ys = [m.new_fixed_size_interval_var(start[g[0]] + g[1], g[2] - g[1], f"rows{g}") for g in vs]
            m.add_no_overlap_2d(xs, ys)
    return m, start, stride


def _solve(m: cp_model.CpModel, work: float, seconds: float) -> tuple[cp_model.CpSolver, Any]:
    """CP-SAT on ``m`` with at most ``work`` deterministic time (one worker, seed 0, the model's
    fixed search: deterministic) and ``seconds`` of wall clock (the safety net)."""
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_deterministic_time = work
    solver.parameters.max_time_in_seconds = seconds
    solver.parameters.search_branching = cp_model.FIXED_SEARCH
    # no presolve: CP-SAT does not count its work in the deterministic time (an infeasible
    # order took 2 s of presolve at 0 units); the search counts, and finds the same first fit
    solver.parameters.cp_model_presolve = False
    return solver, solver.solve(m)


def allocate(isa: TensorIsa, pg: PiiGraph, layout: HbmLayout, *, max_orders: int = 16,
             work_limit: float = ALLOCATION_WORK, time_limit: float = ALLOCATION_SAFETY_NET_S) -> Allocation:
    """Order ``pg`` and place every value (ACT §6): see the module docstring.

    Args:
        isa: the accelerator description.
        pg: the pii graph; its root is the output, in HBM.
        layout: where the inputs (by ``param`` name), the output and the constants (by
            ``const`` node id) live in HBM.
        max_orders: topological orders to consider at most (:func:`topological_orders`).
        work_limit: CP-SAT deterministic time over all orders (work units, not seconds);
            each order gets ``max(0.05, work_limit / max_orders)`` of what is left.
        time_limit: wall-clock seconds, a safety net (its firing is ``timed_out``).

    Returns:
        the order and, for every node (aliases included), its start — on-chip row, or HBM
        byte — and its HBM row stride in bytes (0 on-chip); ``work``: the deterministic time
        spent.

    Raises:
        AllocationError: an unsupported or ill-formed pii graph (e.g. an intermediate value in
            HBM, a shape that contradicts its slice, no layout region for a param), the
            address constraints CSP1–CSP3 unsatisfiable, no feasible order among those tried
            (the reason names the first order's overflow), the work budget spent, or the
            safety net (``timed_out``).
    """
    facts = _Facts(isa, pg)
    deadline = time.monotonic() + time_limit
    spent = 0.0  # CP-SAT deterministic time
    failed: list[frozenset[tuple[Seg, Seg]]] = []
    reasons: list[str] = []
    pruned = cp_sat_failed = undecided = 0

    def solve(m: cp_model.CpModel, work: float) -> tuple[cp_model.CpSolver, Any]:
        nonlocal spent
        seconds = deadline - time.monotonic()
        if seconds <= 0:
            raise AllocationError(f"timed out (wall clock): the safety net of {time_limit:g} s fired after "
                                  f"{len(failed)} failed orders", work=spent, timed_out=True)
        solver, status = _solve(m, work, seconds)
        spent += solver.deterministic_time
        # stopped before its work budget: the wall clock did it
        if status == cp_model.UNKNOWN and (solver.deterministic_time < work or time.monotonic() >= deadline):
            raise AllocationError(f"timed out (wall clock): the safety net of {time_limit:g} s fired in CP-SAT after "
                                  f"{len(failed)} failed orders", work=spent, timed_out=True)
        return solver, status

    for order in topological_orders(pg, max_orders, isa=isa):
        live = facts.live(order)
        phi = facts.interference(live)
        if any(f <= phi for f in failed):
            pruned += 1
            continue
        why = _capacity(isa, pg, facts, live, order)
        if why is not None:
            failed.append(phi)
            reasons.append(why)
            continue
        left = work_limit - spent
        if left <= 0:
            raise AllocationError(f"work limit: {work_limit:g} units of CP-SAT deterministic time spent after "
                                  f"{len(failed)} failed orders", work=spent)
        m, start, stride = _model(isa, pg, layout, facts, live)
        # each order gets a share of the budget: an undecided order is skipped, not fatal
        solver, status = solve(m, min(left, max(0.05, work_limit / max_orders)))
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return Allocation(tuple(order), {v: solver.value(start[v]) for v in range(len(pg))},
                              {v: solver.value(stride[v]) for v in range(len(pg))}, work=spent)
        if status == cp_model.UNKNOWN:
            undecided += 1
            reasons.append("CP-SAT: undecided in its share of the work budget")
            continue
        if status != cp_model.INFEASIBLE:  # MODEL_INVALID: a bug
            raise AllocationError(f"CP-SAT: {solver.status_name(status)} {m.validate()}", work=spent)
        failed.append(phi)
        reasons.append("CP-SAT: infeasible")
        cp_sat_failed += 1
        if cp_sat_failed == 1:  # is it the order at all?
            m, _, _ = _model(isa, pg, layout, facts, None)
            solver, status = solve(m, max(work_limit - spent, 0.01))
            if status == cp_model.INFEASIBLE:
                raise AllocationError("CP-SAT: the address constraints (CSP1–CSP3: instruction slices, def-use, "
                                      "HBM layout) are infeasible in any order", work=spent)
    k = len(failed) + undecided
    if not reasons:
        raise AllocationError(f"work limit: {work_limit:g} units of CP-SAT deterministic time spent before any order "
                              f"was decided", work=spent)
    raise AllocationError(f"no feasible allocation: {k} topological order{'s' * (k != 1)} failed ({cp_sat_failed} "
                          f"infeasible for CP-SAT, {undecided} undecided in the work budget, {pruned} more skipped as "
                          f"supersets, §6.4.2); first order: {reasons[0]}", work=spent)


def _put(beta: dict[str, int], attr: str, value: int, what: str) -> None:
    if beta.setdefault(attr, value) != value:
        raise AllocationError(f"{what}: β {attr} would be both {beta[attr]} and {value}")


def concretize(isa: TensorIsa, pg: PiiGraph, alloc: Allocation) -> list[tuple[int, TInst]]:
    """The concrete instructions: ``(node id, TInst)`` for each ``pii`` node in allocation
    order, its β attributes read off ``alloc`` (output slice: the node's start and stride;
    input slice i: operand i's).

    Raises:
        AllocationError: two slices giving one β attribute different values, a node without
            an address, or an instruction violating e_θ.
    """
    out = []
    for v in alloc.order:
        n = pg.nodes[v]
        if n.kind != "pii":
            continue
        spec, _ = _spec(isa, pg, v)
        beta: dict[str, int] = {}
        for s, x in _slices(spec, pg, v):
            if x not in alloc.start:
                raise AllocationError(f"%{x} has no address")
            _put(beta, s.start, alloc.start[x], f"%{v} ({spec.name}), %{x}")
            if s.stride and isa.buffer(s.buffer).hbm:
                _put(beta, s.stride, alloc.stride.get(x, 0), f"%{v} ({spec.name}), %{x}")
        for p, q in spec.same:
            if p in beta or q in beta:
                _put(beta, q, beta.get(p, beta.get(q, 0)), f"%{v} ({spec.name}), in place")
                _put(beta, p, beta[q], f"%{v} ({spec.name}), in place")
        inst = TInst(spec.name, n.alpha, tuple(beta.get(b, 0) for b in spec.beta))
        try:
            bind(isa, inst)
        except TensorIsaError as e:
            raise AllocationError(f"%{v}: {e}") from None
        out.append((v, inst))
    return out


# ---------------------------------------------------------------------- topological orders


def _su_keys(pg: PiiGraph, isa: TensorIsa | None) -> list[tuple[float, int]]:
    """Per node, the Sethi–Ullman-style priority (larger first): the on-chip need (fraction of
    its buffer, Appel–Supowit label) minus what it holds afterwards, then its subtree size."""
    n = len(pg.nodes)
    hbm = isa.hbm.name if isa is not None else pg.nodes[pg.root].buffer
    cap = {b.name: b.rows for b in isa.buffers} if isa is not None else {}
    hold = [0.0 if x.buffer == hbm else x.rows / cap.get(x.buffer, 1) for x in pg.nodes]
    need = [0.0] * n
    size = [1] * n
    for v, node in enumerate(pg.nodes):
        ops = sorted(set(node.operands), key=lambda o: (hold[o] - need[o], -size[o], node.operands.index(o)))
        held, nd = 0.0, 0.0
        for o in ops:
            nd = max(nd, held + need[o])
            held += hold[o]
        need[v] = max(nd, held + (hold[v] if node.kind == "pii" else 0.0))
        size[v] = min(1 + sum(size[o] for o in set(node.operands)), 1 << 30)
    return [(need[v] - hold[v], size[v]) for v in range(n)]


def _dfs(pg: PiiGraph, operands: Callable[[int], Sequence[int]]) -> tuple[int, ...]:
    """Post-order DFS from the root (then from unreached nodes, last id first), visiting each
    node's operands in the order ``operands(v)`` gives."""
    done = [False] * len(pg.nodes)
    order: list[int] = []
    for r in (pg.root, *range(len(pg.nodes) - 1, -1, -1)):
        if done[r]:
            continue
        done[r] = True
        stack = [(r, iter(operands(r)))]
        while stack:
            v, it = stack[-1]
            nxt = next((o for o in it if not done[o]), None)
            if nxt is None:
                stack.pop()
                order.append(v)
            else:
                done[nxt] = True
                stack.append((nxt, iter(operands(nxt))))
    return tuple(order)


def _kahn(pg: PiiGraph, rng: random.Random) -> tuple[int, ...]:
    """A random topological order (Kahn's algorithm, uniform choice among ready nodes)."""
    left = [len(set(n.operands)) for n in pg.nodes]
    users: list[list[int]] = [[] for _ in pg.nodes]
    for v, n in enumerate(pg.nodes):
        for o in sorted(set(n.operands)):
            users[o].append(v)
    ready = [v for v, k in enumerate(left) if k == 0]
    order = []
    while ready:
        v = ready.pop(rng.randrange(len(ready)))
        order.append(v)
        for u in users[v]:
            left[u] -= 1
            if left[u] == 0:
                ready.append(u)
    return tuple(order)


def topological_orders(pg: PiiGraph, limit: int, *, isa: TensorIsa | None = None) -> Iterator[tuple[int, ...]]:
    """Up to ``limit`` distinct topological orders of all of ``pg``'s node ids (ACT §6.1,
    §6.4), deterministically: first the Sethi–Ullman-style one — post-order DFS from the root
    visiting first the operand needing more on-chip rows (as a fraction of its buffer when
    ``isa`` is given), then with the larger subtree — then DFS with the opposite, the given
    and the reversed operand order, then seeded random DFS and random Kahn orders."""
    if limit <= 0:
        return
    keys = _su_keys(pg, isa)
    ops = [n.operands for n in pg.nodes]

    def candidates() -> Iterator[tuple[int, ...]]:
        yield _dfs(pg, lambda v: sorted(ops[v], key=lambda o: keys[o], reverse=True))
        yield _dfs(pg, lambda v: sorted(ops[v], key=lambda o: keys[o]))
        yield _dfs(pg, lambda v: ops[v])
        yield _dfs(pg, lambda v: ops[v][::-1])
        for seed in range(10 * limit + 50):
            rng = random.Random(2 * seed)
            yield _dfs(pg, lambda v, rng=rng: rng.sample(ops[v], len(ops[v])))  # type: ignore[misc]
            yield _kahn(pg, random.Random(2 * seed + 1))

    seen: set[tuple[int, ...]] = set()
    for order in candidates():
        if order not in seen:
            seen.add(order)
            yield order
            if len(seen) == limit:
                return
