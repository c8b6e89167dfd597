"""Tests of memory allocation (:mod:`tenspiler.act.allocate`, ACT §6).

Pii graphs for a small Gemmini (4 × 4 array, 64 scratchpad rows, 16 accumulator rows) are
built by hand; every allocation is concretized and run on the term oracle with random int8
inputs at their layout addresses, and the output region is compared bit for bit with
:func:`tenspiler.act.graph.evaluate` of the equivalent dataflow graph. The run also checks
that no byte outside the output region changed (ACT §3.4: the HBM holds the inputs and the
output).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tenspiler.act.allocate import (
    ALLOCATION_WORK,
    AllocationError,
    allocate,
    concretize,
    topological_orders,
)
from tenspiler.act.gemmini_tensor import gemmini_tensor_isa
from tenspiler.act.graph import DTYPES, Graph, GraphBuilder, evaluate
from tenspiler.act.pii import Allocation, HbmLayout, PiiGraph, PiiNode, Region
from tenspiler.act.tensor_isa import (
    Slice,
    TensorBuffer,
    TensorInstruction,
    TensorIsa,
    Term,
    TermOracle,
    Window,
    x,
)

ISA = gemmini_tensor_isa(dim=4, spad_rows=64, acc_rows=16)


# ---------------------------------------------------------------------- building pii graphs


class PB:
    """Builds a pii graph for the Gemmini description, node by node."""

    def __init__(self) -> None:
        self.nodes: list[PiiNode] = []

    def _add(self, node: PiiNode) -> int:
        self.nodes.append(node)
        return len(self.nodes) - 1

    def param(self, name: str, rows: int, cols: int) -> int:
        return self._add(PiiNode("param", "hbm", rows, cols, "s8", attrs=(name,)))

    def const(self, values: np.ndarray) -> int:
        rows, cols = values.shape
        return self._add(PiiNode("const", "hbm", rows, cols, "s8", attrs=(tuple(int(v) for v in values.ravel()),)))

    def slice(self, x: int, r0: int, c0: int, rows: int, cols: int) -> int:
        n = self.nodes[x]
        return self._add(PiiNode("slice", n.buffer, rows, cols, n.dtype, (x,), attrs=(r0, c0)))

    def concat(self, xs: list[int], dim: int) -> int:
        ns = [self.nodes[x] for x in xs]
        rows = sum(n.rows for n in ns) if dim == 0 else ns[0].rows
        cols = sum(n.cols for n in ns) if dim == 1 else ns[0].cols
        return self._add(PiiNode("concat", ns[0].buffer, rows, cols, ns[0].dtype, tuple(xs), attrs=(dim,)))

    def _pii(self, inst: str, buf: str, dtype: str, rows: int, cols: int, ops: tuple[int, ...], alpha: tuple[int, ...]) -> int:
        return self._add(PiiNode("pii", buf, rows, cols, dtype, ops, inst, alpha))

    def mvin_spad(self, x: int) -> int:
        n = self.nodes[x]
        return self._pii("mvin_spad", "spad", "s8", n.rows, n.cols, (x,), (n.rows, n.cols))

    def mvin_acc(self, x: int) -> int:
        n = self.nodes[x]
        return self._pii("mvin_acc", "acc", "s32", n.rows, n.cols, (x,), (n.rows, n.cols))

    def matmul(self, a: int, b: int, acc: int | None = None) -> int:
        n, k, c = self.nodes[a].rows, self.nodes[a].cols, self.nodes[b].cols
        ops = (a, b) if acc is None else (a, b, acc)
        return self._pii("matmul" if acc is None else "matmul_acc", "acc", "s32", n, c, ops, (n, k, c))

    def mvout(self, x: int) -> int:
        n = self.nodes[x]
        return self._pii("mvout_acc", "hbm", "s32", n.rows, n.cols, (x,), (n.rows, n.cols))

    def build(self, root: int | None = None) -> PiiGraph:
        return PiiGraph(tuple(self.nodes), len(self.nodes) - 1 if root is None else root)


def layout_for(pg: PiiGraph, gap: int = 0) -> HbmLayout:
    """Inputs first, then the output, then the constants (ACT §3.4), dense rows, ``gap``
    bytes between regions."""
    addr = 0

    def region(name: str, n: PiiNode) -> Region:
        nonlocal addr
        r = Region(name, addr, n.rows, n.cols, n.dtype, n.cols * DTYPES[n.dtype].itemsize)
        addr = r.end + gap
        return r

    inputs = tuple(region(n.attrs[0], n) for n in pg.nodes if n.kind == "param")
    out = region("out", pg.nodes[pg.root])
    consts = tuple((v, region(f"c{v}", n)) for v, n in enumerate(pg.nodes) if n.kind == "const")
    return HbmLayout(inputs, out, consts)


def run(isa: TensorIsa, pg: PiiGraph, layout: HbmLayout, alloc: Allocation, inputs: dict[str, np.ndarray]) -> np.ndarray:
    """Run the concretized program on the term oracle; the output region's value."""
    oracle = TermOracle(isa, layout.size + 64)

    def put(r: Region, value: np.ndarray) -> None:
        for i, row in enumerate(np.asarray(value, dtype=DTYPES[r.dtype])):
            oracle.hbm[r.start + i * r.stride:r.start + i * r.stride + row.nbytes] = row.view(np.uint8)

    for r in layout.inputs:
        put(r, inputs[r.name])
    for v, r in layout.constants:
        put(r, np.array(pg.nodes[v].attrs[0]).reshape(r.rows, r.cols))
    before = oracle.hbm.copy()
    oracle.run([t for _, t in concretize(isa, pg, alloc)])
    out = layout.output
    outside = np.ones(oracle.hbm.size, dtype=bool)
    for lo, hi in Window("hbm", out.start, out.rows, out.cols, out.dtype, out.stride).byte_ranges():
        outside[lo:hi] = False
    assert np.array_equal(oracle.hbm[outside], before[outside]), "a byte outside the output region changed"
    return oracle.read(Window("hbm", out.start, out.rows, out.cols, out.dtype, out.stride))


def rand(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.integers(-128, 128, size=shape, dtype=np.int8)


def gemm(m: int, n: int, k: int, dim: int = 4, *, share: bool = True, bias: np.ndarray | None = None) -> tuple[PiiGraph, Graph]:
    """``A[m,k] · B[k,n] (+ bias)`` tiled by ``dim``: HBM slices of the params, scratchpad
    loads (one per tile if ``share``, else one per use), a matmul / matmul_acc chain per output
    tile (starting from ``mvin_acc(bias tile)`` if a bias is given), mvout pieces concatenated
    along columns, then rows, into the root. Returns the pii graph and the dataflow graph."""
    pb = PB()
    a, b = pb.param("A", m, k), pb.param("B", k, n)
    c = pb.const(bias) if bias is not None else None
    tiles = {size: [(s, min(dim, size - s)) for s in range(0, size, dim)] for size in {m, n, k}}
    loads: dict[tuple[str, int, int], int] = {}

    def load(which: str, r: tuple[int, int], q: tuple[int, int]) -> int:
        key = (which, r[0], q[0])
        if not share or key not in loads:
            loads[key] = pb.mvin_spad(pb.slice(a if which == "A" else b, r[0], q[0], r[1], q[1]))
        return loads[key]

    bands = []
    for i in tiles[m]:
        pieces = []
        for j in tiles[n]:
            acc = pb.mvin_acc(pb.slice(c, i[0], j[0], i[1], j[1])) if c is not None else None
            for kk in tiles[k]:
                acc = pb.matmul(load("A", i, kk), load("B", kk, j), acc)
            assert acc is not None
            pieces.append(pb.mvout(acc))
        bands.append(pb.concat(pieces, 1) if len(pieces) > 1 else pieces[0])
    if len(bands) > 1:
        pb.concat(bands, 0)
    gb = GraphBuilder()
    prod = gb.dot(gb.convert(gb.parameter("A", "s8", (m, k)), "s32"), gb.convert(gb.parameter("B", "s8", (k, n)), "s32"))
    if bias is not None:
        prod = gb.add(gb.convert(gb.constant(bias, "s8"), "s32"), prod)
    return pb.build(), gb.build(prod)


def check_gemm(isa: TensorIsa, m: int, n: int, k: int, *, share: bool = True, with_bias: bool = False,
               seed: int = 0, **kw: float) -> tuple[Allocation, PiiGraph, HbmLayout]:
    rng = np.random.default_rng(seed)
    bias = rand(rng, m, n) if with_bias else None
    pg, g = gemm(m, n, k, share=share, bias=bias)
    layout = layout_for(pg, gap=3)
    alloc = allocate(isa, pg, layout, **kw)  # type: ignore[arg-type]
    inputs = {"A": rand(rng, m, k), "B": rand(rng, k, n)}
    assert np.array_equal(run(isa, pg, layout, alloc, inputs), evaluate(g, inputs))
    return alloc, pg, layout


def in_place_counterexample() -> tuple[PiiGraph, Graph]:
    """``concat(P + A·B, P)``: the in-place ``matmul_acc`` overwrites ``mvin_acc(P)``, which a
    later ``mvout`` also reads. The Sethi–Ullman order computes the heavier operand (the
    product) first, so P must survive its own overwrite: infeasible; ``mvout(P)`` first works."""
    pb = PB()
    p, a, b = pb.param("P", 4, 4), pb.param("A", 4, 4), pb.param("B", 4, 4)
    s = pb.mvin_acc(p)
    t = pb.matmul(pb.mvin_spad(a), pb.mvin_spad(b), s)
    pb.concat([pb.mvout(t), pb.mvout(s)], 0)
    gb = GraphBuilder()
    p32 = gb.convert(gb.parameter("P", "s8", (4, 4)), "s32")
    ab = gb.dot(gb.convert(gb.parameter("A", "s8", (4, 4)), "s32"), gb.convert(gb.parameter("B", "s8", (4, 4)), "s32"))
    return pb.build(), gb.build(gb.concatenate([gb.add(p32, ab), p32], 0))


def aliases() -> tuple[PiiGraph, Graph]:
    """On-chip aliases: ``cat = concat(load A1, load A2)`` (rows), ``T = cat · B``,
    ``U = cat[:, :2] · B[2:4]`` (slices of on-chip values), root ``concat(T, U)`` along
    columns."""
    pb = PB()
    a1, a2, b = pb.param("A1", 2, 4), pb.param("A2", 2, 4), pb.param("B", 4, 4)
    cat = pb.concat([pb.mvin_spad(a1), pb.mvin_spad(a2)], 0)
    lb = pb.mvin_spad(b)
    t = pb.matmul(cat, lb)
    u = pb.matmul(pb.slice(cat, 0, 0, 4, 2), pb.slice(lb, 2, 0, 2, 4))
    pb.concat([pb.mvout(t), pb.mvout(u)], 1)
    gb = GraphBuilder()
    ga1, ga2, gbb = (gb.parameter(nm, "s8", sh) for nm, sh in (("A1", (2, 4)), ("A2", (2, 4)), ("B", (4, 4))))
    gcat = gb.convert(gb.concatenate([ga1, ga2], 0), "s32")
    gb32 = gb.convert(gbb, "s32")
    gt = gb.dot(gcat, gb32)
    gu = gb.dot(gb.slice(gcat, (0, 0), (4, 2)), gb.slice(gb32, (2, 0), (4, 4)))
    return pb.build(), gb.build(gb.concatenate([gt, gu], 1))


def inputs_for(pg: PiiGraph, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {n.attrs[0]: rand(rng, n.rows, n.cols) for n in pg.nodes if n.kind == "param"}


def check(isa: TensorIsa, pg: PiiGraph, g: Graph, **kw: float) -> Allocation:
    layout = layout_for(pg, gap=5)
    alloc = allocate(isa, pg, layout, **kw)  # type: ignore[arg-type]
    for seed in range(3):
        inputs = inputs_for(pg, seed)
        assert np.array_equal(run(isa, pg, layout, alloc, inputs), evaluate(g, inputs))
    return alloc


def is_topological(pg: PiiGraph, order: tuple[int, ...]) -> bool:
    pos = {v: i for i, v in enumerate(order)}
    return sorted(order) == list(range(len(pg))) and all(pos[o] < pos[v] for v, n in enumerate(pg.nodes) for o in n.operands)


# ---------------------------------------------------------------------- end to end on the oracle


def test_single_tile_gemm() -> None:
    alloc, pg, _ = check_gemm(ISA, 4, 4, 4)
    prog = concretize(ISA, pg, alloc)
    assert [t.name for _, t in prog] == ["mvin_spad", "mvin_spad", "matmul", "mvout_acc"]
    spad = sorted(t.beta[2] for _, t in prog[:2])  # the two loads' dst rows do not overlap
    assert spad[1] - spad[0] >= 4


def test_k_split_chain_in_place() -> None:
    alloc, pg, _ = check_gemm(ISA, 4, 4, 12, with_bias=True)
    for v, t in concretize(ISA, pg, alloc):
        if t.name == "matmul_acc":  # reads and writes acc at β out: x3's rows are the output's
            assert alloc.start[pg.nodes[v].operands[2]] == alloc.start[v] == t.beta[2]


@pytest.mark.parametrize(("m", "n", "k"), [(8, 8, 4), (8, 12, 8), (5, 7, 6)])
def test_tiled_output(m: int, n: int, k: int) -> None:
    alloc, pg, layout = check_gemm(ISA, m, n, k, with_bias=True)
    out = layout.output
    pieces = [v for v, nd in enumerate(pg.nodes) if nd.inst == "mvout_acc"]
    assert all(alloc.stride[v] == out.stride for v in pieces)
    assert min(alloc.start[v] for v in pieces) == out.start


def test_on_chip_aliases() -> None:
    pg, g = aliases()
    alloc = check(ISA, pg, g)
    cat = next(v for v, n in enumerate(pg.nodes) if n.kind == "concat" and n.buffer == "spad")
    l1, l2 = pg.nodes[cat].operands
    assert alloc.start[l2] == alloc.start[l1] + 2 == alloc.start[cat] + 2


def test_first_order_infeasible_another_feasible() -> None:
    pg, g = in_place_counterexample()
    first = next(topological_orders(pg, 1, isa=ISA))
    assert first.index(7) < first.index(8)  # the product's mvout first
    with pytest.raises(AllocationError, match="CP-SAT: infeasible"):
        allocate(ISA, pg, layout_for(pg), max_orders=1)
    alloc = check(ISA, pg, g)
    assert alloc.order != first and alloc.order.index(8) < alloc.order.index(6)


@given(m=st.integers(1, 10), n=st.integers(1, 10), k=st.integers(1, 10), share=st.booleans(),
       bias=st.booleans(), seed=st.integers(0, 1000))
@settings(max_examples=30, deadline=None)
def test_random_gemms(m: int, n: int, k: int, share: bool, bias: bool, seed: int) -> None:
    check_gemm(ISA, m, n, k, share=share, with_bias=bias, seed=seed)


@pytest.mark.parametrize(("share", "spad"), [(True, 128), (False, 64)])
def test_large_graph_fast(share: bool, spad: int) -> None:
    """4 × 4 × 4 tiles (16 × 16 × 16, dim 4): 151 nodes with shared loads, 343 without,
    allocated within the default work budget (CP-SAT deterministic time, not seconds)."""
    alloc, _, _ = check_gemm(gemmini_tensor_isa(dim=4, spad_rows=spad, acc_rows=16), 16, 16, 16, share=share)
    assert len(alloc.order) > 150 and alloc.work <= ALLOCATION_WORK


def test_deterministic() -> None:
    for pg, _ in (gemm(8, 8, 8, share=False), in_place_counterexample(), aliases()):
        layout = layout_for(pg)
        a, b = allocate(ISA, pg, layout), allocate(ISA, pg, layout)
        assert a == b and concretize(ISA, pg, a) == concretize(ISA, pg, b)
        assert list(topological_orders(pg, 8, isa=ISA)) == list(topological_orders(pg, 8, isa=ISA))


# ---------------------------------------------------------------------- failures


def test_capacity_failure_reason() -> None:
    tiny = gemmini_tensor_isa(dim=4, spad_rows=4, acc_rows=16)  # a matmul reads 8 spad rows
    pg, _ = gemm(4, 4, 4)
    with pytest.raises(AllocationError, match=r"spad: 8 rows live at step \d+ .* but only 4 exist") as e:
        allocate(tiny, pg, layout_for(pg))
    assert "1 topological order failed" in e.value.reason
    assert "15 more skipped as supersets" in e.value.reason  # §6.4.2: one overflow prunes the rest


def test_capacity_failure_first_order() -> None:
    """Five accumulator tiles each read twice; the root lists all first reads, then all
    second reads, so the Sethi–Ullman order keeps all five (20 rows) live; a later order
    does not."""
    pb = PB()
    ts = [pb.mvin_acc(pb.param(f"P{i}", 4, 4)) for i in range(5)]
    pb.concat([pb.mvout(t) for t in ts] + [pb.mvout(t) for t in ts], 0)
    pg = pb.build()
    gb = GraphBuilder()
    ps = [gb.convert(gb.parameter(f"P{i}", "s8", (4, 4)), "s32") for i in range(5)]
    check(ISA, pg, gb.build(gb.concatenate(ps + ps, 0)))  # another order works
    with pytest.raises(AllocationError, match=r"acc: 20 rows live at step 13 \(%9; values %1, %3, %5, %7, %9\) but only 16 exist"):
        allocate(ISA, pg, layout_for(pg), max_orders=1)


def test_address_constraints_infeasible() -> None:
    """An HBM concat of two params is only an alias if they are adjacent in the layout."""
    pb = PB()
    cat = pb.concat([pb.param("A1", 2, 4), pb.param("A2", 2, 4)], 0)
    pb.mvout(pb.matmul(pb.mvin_spad(cat), pb.mvin_spad(pb.param("B", 4, 4))))
    pg = pb.build()
    gb = GraphBuilder()
    ga = gb.concatenate([gb.parameter("A1", "s8", (2, 4)), gb.parameter("A2", "s8", (2, 4))], 0)
    g = gb.build(gb.dot(gb.convert(ga, "s32"), gb.convert(gb.parameter("B", "s8", (4, 4)), "s32")))
    layout = layout_for(pg, gap=0)
    alloc = allocate(ISA, pg, layout)
    inputs = inputs_for(pg)
    assert np.array_equal(run(ISA, pg, layout, alloc, inputs), evaluate(g, inputs))
    with pytest.raises(AllocationError, match=r"address constraints \(CSP1–CSP3.*infeasible in any order"):
        allocate(ISA, pg, layout_for(pg, gap=3))


def test_hbm_intermediate_rejected() -> None:
    pb = PB()
    o = pb.mvout(pb.mvin_acc(pb.param("P", 4, 4)))
    pb._pii("mvout_acc", "hbm", "s32", 4, 4, (pb._pii("mvin_acc32", "acc", "s32", 4, 4, (o,), (4, 4)),), (4, 4))
    pg = pb.build()
    with pytest.raises(AllocationError, match="intermediate value to HBM"):
        allocate(ISA, pg, layout_for(pg))


def test_ill_formed_graphs() -> None:
    pg, _ = gemm(4, 4, 4)
    bad = PiiGraph(tuple(n if n.inst != "matmul" else PiiNode(**{**n.__dict__, "alpha": (4, 2, 4)}) for n in pg.nodes), pg.root)
    with pytest.raises(AllocationError, match="slice a is spad:s8\\[4,2\\]"):
        allocate(ISA, bad, layout_for(bad))
    with pytest.raises(AllocationError, match="no matching HBM layout region"):
        allocate(ISA, pg, HbmLayout(layout_for(pg).inputs[:1], layout_for(pg).output))


def test_the_wall_clock_is_only_a_safety_net() -> None:
    """``time_limit`` is a safety net: its firing is ``timed_out``, named as such."""
    pg, _ = gemm(4, 4, 4)
    with pytest.raises(AllocationError, match=r"timed out \(wall clock\): the safety net of 0 s") as e:
        allocate(ISA, pg, layout_for(pg), time_limit=0)
    assert e.value.timed_out


def test_the_budget_is_cp_sat_deterministic_time() -> None:
    """The budget is CP-SAT's deterministic time (work): too little stops the allocation the
    same way on any machine; the work spent is reported."""
    pg, _ = gemm(16, 16, 16, share=False)
    isa = gemmini_tensor_isa(dim=4, spad_rows=64, acc_rows=16)
    with pytest.raises(AllocationError, match=r"work limit: 1e-06 units of CP-SAT deterministic time spent") as e:
        allocate(isa, pg, layout_for(pg), work_limit=1e-6)
    assert not e.value.timed_out and e.value.work > 0
    alloc = allocate(isa, pg, layout_for(pg))
    assert 0 < alloc.work < 1e-3


def test_the_allocation_does_not_depend_on_the_clock(jump_clock: Callable[[float], None]) -> None:
    """Issue 33: with the wall clock jumping 10 s per reading (the old default budget was 10 s
    of CP-SAT wall time over all orders) every allocation is the one an idle machine gets, and
    so is a compilation (given a safety net its many clock readings do not pass); only the
    safety net reads the clock."""
    from tenspiler.act.compiler import compile_graph

    cases = [(ISA, *gemm(8, 8, 8, share=False)), (ISA, *in_place_counterexample()), (ISA, *aliases()),
             (gemmini_tensor_isa(dim=4, spad_rows=64, acc_rows=16), *gemm(16, 16, 16, share=False))]
    want = [allocate(isa, pg, layout_for(pg)) for isa, pg, _ in cases]
    gb = GraphBuilder()
    gb.dot(gb.convert(gb.parameter("A", "s8", (16, 16)), "s32"), gb.convert(gb.parameter("B", "s8", (16, 16)), "s32"))
    graph = gb.build()
    program = compile_graph(gemmini_tensor_isa(), graph)
    jump_clock(10.0)
    got = [allocate(isa, pg, layout_for(pg)) for isa, pg, _ in cases]  # the default safety net: 300 s
    assert got == want
    assert [concretize(isa, pg, a) for (isa, pg, _), a in zip(cases, got, strict=True)] == \
        [concretize(isa, pg, a) for (isa, pg, _), a in zip(cases, want, strict=True)]
    again = compile_graph(gemmini_tensor_isa(), graph, time_limit=1e6)
    assert again.instructions == program.instructions and again.lowered == program.lowered


def test_concretize_rejects_conflicting_beta() -> None:
    pg, _ = gemm(4, 4, 8)
    alloc = allocate(ISA, pg, layout_for(pg))
    acc = next(v for v, n in enumerate(pg.nodes) if n.inst == "matmul_acc")
    start = {**alloc.start, acc: alloc.start[acc] + 4}  # x3 no longer at the output's rows
    with pytest.raises(AllocationError, match="β out would be both"):
        concretize(ISA, pg, Allocation(alloc.order, start, alloc.stride))


# ---------------------------------------------------------------------- topological orders


def test_orders_valid_distinct_limited() -> None:
    pg, _ = gemm(8, 8, 8, share=False)
    orders = list(topological_orders(pg, 20, isa=ISA))
    assert len(orders) == 20 == len(set(orders))
    assert all(is_topological(pg, o) for o in orders)
    assert list(topological_orders(pg, 0)) == []


def test_orders_all_found_on_tiny_graph() -> None:
    pb = PB()
    pb.mvout(pb.matmul(pb.mvin_spad(pb.param("A", 4, 4)), pb.mvin_spad(pb.param("B", 4, 4))))
    pg = pb.build()
    every = {o for o in itertools.permutations(range(len(pg))) if is_topological(pg, o)}
    assert set(topological_orders(pg, 1000)) == every


def test_sethi_ullman_first_visits_heavier_operand() -> None:
    pb = PB()
    light = pb.mvout(pb.mvin_acc(pb.param("P", 4, 4)))
    heavy = pb.mvout(pb.matmul(pb.mvin_spad(pb.param("A", 4, 4)), pb.mvin_spad(pb.param("B", 4, 4))))
    pb.concat([light, heavy], 0)
    pg = pb.build()
    first = next(topological_orders(pg, 1, isa=ISA))
    assert first.index(heavy) < first.index(light - 1)  # the product before the other load
    assert first[-1] == pg.root


# ---------------------------------------------------------------------- a second description


def toy_isa(rows: int = 8) -> TensorIsa:
    """A vector unit: ``vec`` (``rows`` × 4 int8), a dense load (no stride attribute: the HBM
    rows must be ``c`` bytes apart), an add, a strided store."""
    nc = (("n", (1, rows)), ("c", (1, 4)))
    vec = Slice("vec", "dst", "n", "c")
    return TensorIsa("toy", (TensorBuffer("hbm", 1 << 20, 1, "s8", hbm=True), TensorBuffer("vec", rows, 4, "s8")), (
        TensorInstruction("ld", nc, ("src", "dst"), vec, (Slice("hbm", "src", "n", "c", dtype="s8"),), x(1)),
        TensorInstruction("add", nc, ("a", "b", "dst"), vec, (Slice("vec", "a", "n", "c"), Slice("vec", "b", "n", "c")),
                          Term("add", (x(1), x(2)))),
        TensorInstruction("st", nc, ("src", "dst", "stride"), Slice("hbm", "dst", "n", "c", stride="stride", dtype="s8"),
                          (Slice("vec", "src", "n", "c"),), x(1)),
    ))


class TB(PB):
    def ld(self, x: int) -> int:
        n = self.nodes[x]
        return self._pii("ld", "vec", "s8", n.rows, n.cols, (x,), (n.rows, n.cols))

    def add(self, a: int, b: int) -> int:
        n = self.nodes[a]
        return self._pii("add", "vec", "s8", n.rows, n.cols, (a, b), (n.rows, n.cols))

    def st(self, x: int) -> int:
        n = self.nodes[x]
        return self._pii("st", "hbm", "s8", n.rows, n.cols, (x,), (n.rows, n.cols))


def test_alias_reads_keep_values_live() -> None:
    """``l`` is read directly by ``s = l + l`` and, much later, through slices by ``z``: it
    stays live until ``z`` (8 rows make the solver reuse every free row)."""
    tb = TB()
    a, b = tb.param("A", 4, 4), tb.param("B", 4, 4)
    ld = tb.ld(a)
    o1 = tb.st(tb.add(ld, ld))
    xb = tb.ld(b)
    o2 = tb.st(tb.add(xb, xb))
    oz = tb.st(tb.add(tb.slice(ld, 2, 0, 2, 4), tb.slice(ld, 0, 0, 2, 4)))
    tb.concat([o1, o2, oz], 0)
    pg = tb.build()
    gb = GraphBuilder()
    ga, gbb = gb.parameter("A", "s8", (4, 4)), gb.parameter("B", "s8", (4, 4))
    gz = gb.add(gb.slice(ga, (2, 0), (4, 4)), gb.slice(ga, (0, 0), (2, 4)))
    check(toy_isa(8), pg, gb.build(gb.concatenate([gb.add(ga, ga), gb.add(gbb, gbb), gz], 0)))


def test_dense_slice_without_stride_attribute() -> None:
    """``ld`` has no stride attribute: it can load a whole dense param, not a column slice."""
    for cols, ok in ((4, True), (8, False)):
        tb = TB()
        a = tb.param("A", 4, cols)
        ld = tb.ld(tb.slice(a, 0, 0, 4, 4))
        tb.st(tb.add(ld, ld))
        pg = tb.build()
        if ok:
            gb = GraphBuilder()
            ga = gb.parameter("A", "s8", (4, cols))
            check(toy_isa(), pg, gb.build(gb.add(ga, ga)))
        else:
            with pytest.raises(AllocationError, match="address constraints"):
                allocate(toy_isa(), pg, layout_for(pg))
