"""The ACT backend's acceptance measurements (issue 7; ACT §9.3–§9.4).

    python benchmarks/act.py --single-tile        # MAC / GEMM / ADD on one 16×16 int8 tile
    python benchmarks/act.py --exo [--block 64x64x64] [--no-oracle]
    python benchmarks/act.py --composite          # A×B×C: intermediate on chip vs two GEMMs
    python benchmarks/act.py --compile-time [--graphs 20] [--nodes 90]
    python benchmarks/act.py --calibration        # the cost model against published utilisation
    python benchmarks/act.py --exo-lift [--search-s 600]  # the plain C GEMM per Exo shape, lifted
    python benchmarks/act.py --all

``--single-tile``: each kernel is compiled by the ACT backend from its graph, run on the
Gemmini oracle and compared bit-exactly with the graph's value; its instruction count is put
next to the hand-written ``gemmini.h`` sequence a library routine issues for one tile (the
sequences below follow ``sp_tiled_matmul_ws`` / ``sp_tiled_resadd`` of gemmini-rocc-tests'
``include/gemmini.h``: configure the execute unit, the store stride and one load stride per
operand kind, move the operands in, preload + compute, move out, fence). The library
sequences are run on the oracle too, so both columns count correct programs.

``--exo``: the six GEMM shapes of Exo's hand-scheduled Gemmini kernels (ACT Fig. 18), each
also through the verified schedule search (:mod:`tenspiler.act.gemm_search`: its budget is
work, ``--search-s`` only the wall-clock safety net of each search; the winners run bit-exactly on the oracle unless ``--no-oracle``). The ACT
path is the middle end of :mod:`tenspiler.act.tiling` (the block the generated C would choose
for the shape, or ``--block``; each block kernel compiled once by the ACT backend, relocated
per block; no longer used by ``lift``, kept as the ACT backend's measurement). The issue-6
hand-written procedure was deleted in issue 17 after this table showed the search ahead of it
on all six shapes (``benchmarks/results/act-issue17.md``). All instruction streams get
modelled cycles from :mod:`tenspiler.act.cost`; the ACT stream also runs on the oracle with
random int8 matrices and is compared bit-exactly with NumPy (``--no-oracle`` skips that).

``--exo-lift``: what a user gets for each of the six shapes: the plain C triple loop with
literal sizes (``for (int i = 0; i < 12544; i++)`` …, written to a temporary directory) through
``lift --to gemmini --no-check`` in a fresh process (the literal sizes generalised for the
proof, :mod:`tenspiler.vc.generalize`; the product's sizes static, so the schedule search
runs): status, wall-clock seconds of the whole command, and the winner named in the header.

``--composite``: fp32 ``(A·B)·C`` on 16×16 tiles compiled as one graph (the intermediate
stays in the scratchpad: ``matmul_spad``) against the same product as two separately compiled
GEMMs with the intermediate stored to and reloaded from HBM; HBM bytes are the bytes every
``mvin``/``mvout`` moves.

``--calibration``: the four published schedules of the 12544×64×256 GEMM
(:mod:`tenspiler.act.calibration`: Gemmini's library, Exo unoptimised and hand-scheduled,
Autocomp), each run bit-exactly on the oracle at a small shape, modelled at the published
shape against the published utilisation (Autocomp §4.4.1, App. D).

``--compile-time``: compile time of the single-tile kernels and of a 64³ GEMM (≤ 10 nodes),
and of random graphs of ``--nodes`` nodes built from the supported operators (convert, dot,
add, slice, concatenate on int8/int32 tiles), each compiled with the default budgets (work:
e-graph size and CP-SAT deterministic time, so the same results on any machine; the wall clock
only as a safety net): a program (validated and bit-exact on the oracle) or a clean FAIL.

Exit code 0 always (a measurement).
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tenspiler.act.compiler import CompileError, compile_graph, run
from tenspiler.act.cost import estimate
from tenspiler.act.gemmini_tensor import HBM_BASE, gemmini_tensor_isa
from tenspiler.act.graph import DTYPES, Graph, GraphBuilder, evaluate
from tenspiler.act.isa import Inst
from tenspiler.act.isa.gemmini import (
    ACC_BIT,
    ACCUMULATE_BIT,
    GARBAGE,
    RAW_BIT,
    WEIGHT_STATIONARY,
    gemmini_isa,
)
from tenspiler.act.oracle import HbmBuffer, Oracle
from tenspiler.act.schedule import run_proc
from tenspiler.act.tensor_isa import bind, window
from tenspiler.act.tiling import Block, act_gemm_proc, choose

EXO_SHAPES = [(512, 512, 512), (12544, 256, 64), (12544, 64, 256), (3136, 512, 128), (3136, 128, 512), (784, 1024, 256)]


# ---------------------------------------------------------------------- single tile


def single_tile_graph(kind: str) -> Graph:
    g = GraphBuilder()
    a = g.parameter("A", "s8", (16, 16))
    b = g.parameter("B", "s8", (16, 16))
    if kind == "ADD":
        g.add(g.convert(a, "s32"), g.convert(b, "s32"))
        return g.build()
    y = g.dot(g.convert(a, "s32"), g.convert(b, "s32"))
    if kind == "MAC":
        d = g.parameter("D", "s8", (16, 16))
        g.add(y, g.convert(d, "s32"))
    return g.build()


def library_sequence(kind: str, addr: dict[str, int]) -> list[Inst]:
    """The hand-written gemmini.h sequence for one 16×16 tile (see the module docstring)."""
    ex = Inst("config_ex", (WEIGHT_STATIONARY, 0, 0, 1.0, 0, 1, 0, 0))
    st = Inst("config_st", (64,))
    out = Inst("mvout", (addr["out"], ACC_BIT | RAW_BIT, 16, 16))
    if kind == "ADD":
        return [st, Inst("config_ld", (16, 1.0, 1, 0)), Inst("mvin", (addr["A"], ACC_BIT, 16, 16)),
                Inst("mvin", (addr["B"], ACC_BIT | ACCUMULATE_BIT, 16, 16)), out, Inst("fence", ())]
    seq = [ex, st, Inst("config_ld", (16, 1.0, 0, 0))]
    c_addr = ACC_BIT
    if kind == "MAC":
        seq += [Inst("config_ld", (16, 1.0, 1, 1)), Inst("mvin2", (addr["D"], ACC_BIT, 16, 16))]
        c_addr |= ACCUMULATE_BIT
    seq += [Inst("mvin", (addr["A"], 0, 16, 16)), Inst("mvin", (addr["B"], 16, 16, 16)),
            Inst("preload", (16, c_addr, 16, 16, 16, 16)), Inst("compute_preloaded", (0, GARBAGE, 16, 16, 16, 16)),
            out, Inst("fence", ())]
    return seq


def single_tile() -> None:
    isa = gemmini_tensor_isa()
    rng = np.random.default_rng(7)
    print("| kernel | graph nodes | ACT instructions | library instructions | ratio | bit-exact (ACT / library) | compile s |")
    print("|---|---:|---:|---:|---:|---|---:|")
    for kind in ("MAC", "GEMM", "ADD"):
        g = single_tile_graph(kind)
        t = time.perf_counter()
        prog = compile_graph(isa, g)
        secs = time.perf_counter() - t
        inputs = {g.nodes[i].attrs[1]: rng.integers(-128, 128, (16, 16)).astype(np.int8) for i in g.parameters}
        want = evaluate(g, inputs)
        ok_act = np.array_equal(run(isa, prog, inputs), want)
        addr = {r.name: HBM_BASE + r.start for r in prog.layout.inputs} | {"out": HBM_BASE + prog.layout.output.start}
        lib = library_sequence(kind, addr)
        ok_lib = np.array_equal(run(isa, dataclasses.replace(prog, lowered=tuple(lib)), inputs), want)
        n = len(prog.lowered)
        print(f"| {kind} | {len(g.live())} | {n} | {len(lib)} | {n / len(lib):.2f}× | {ok_act} / {ok_lib} | {secs:.2f} |")


# ---------------------------------------------------------------------- Exo shapes


def exo(fixed: Block | None, oracle: bool, search_s: float) -> None:
    from tenspiler.act.gemm_search import search

    lower = gemmini_isa(16, "int8")
    print("Modelled utilisation (act/cost.py, calibrated) of Exo's six GEMM shapes on a 16×16 int8 Gemmini. "
          "C int32 raw (what `lift` emits for int sums) for every path; the searched schedule also with "
          "int8 saturated output (Exo's and Autocomp's setting, the published numbers' setting).")
    print("| M×N×K | ACT block kernels (int32) | searched (int32) | searched (int8 out) | "
          "winner (int8 out) | search s | ACT on oracle |")
    print("|---|---:|---:|---:|---|---:|---|")
    rng = np.random.default_rng(0)
    for m, n, k in EXO_SHAPES:
        block = fixed or choose(m, n, k, 16)
        proc = act_gemm_proc(16, block)
        mb, nb, kb = -(-m // block.tm), -(-n // block.tn), -(-k // block.tk)
        mp, np_, kp = mb * block.tm, nb * block.tn, kb * block.tk
        a_addr = HBM_BASE
        b_addr = a_addr + mp * kp
        c_addr = b_addr + kp * np_
        size = mp * kp + kp * np_ + 4 * mp * np_
        stream = run_proc(proc, {"A": a_addr, "B": b_addr, "C": c_addr, "MB": mb, "NB": nb, "KB": kb,
                                 "sa": kp, "sb": np_, "sc": np_})
        act = estimate(lower, stream)
        wide = search(m, n, k, time_limit=search_s, verify_winner=oracle)
        narrow = search(m, n, k, time_limit=search_s, verify_winner=oracle, out="int8")
        verdict = "skipped"
        if oracle:
            A = np.zeros((mp, kp), np.int8)
            B = np.zeros((kp, np_), np.int8)
            A[:m, :k] = rng.integers(-128, 128, (m, k))
            B[:k, :n] = rng.integers(-128, 128, (k, n))
            mem = HbmBuffer(size + 64, HBM_BASE)
            mem.place(a_addr, A)
            mem.place(b_addr, B)
            Oracle(lower).run(stream, mem)
            C = mem.read(c_addr, mp * np_, np.dtype(np.int32)).reshape(mp, np_)[:m, :n]
            ok = np.array_equal(C, A[:m, :k].astype(np.int64) @ B[:k, :n].astype(np.int64))
            verdict = f"{'bit-exact' if ok else 'WRONG'}; searched: {'bit-exact' if wide.verified and narrow.verified else 'WRONG'}"
        if wide.timed_out or narrow.timed_out:  # the only result that depends on the machine
            verdict += "; a search stopped at its wall-clock safety net (--search-s)"
        print(f"| {m}×{n}×{k} | {act.utilization:.1%} | {wide.report.utilization:.1%} | "
              f"{narrow.report.utilization:.1%} | {narrow.schedule.describe()} | {wide.seconds:.1f} / {narrow.seconds:.1f} | {verdict} |")


PLAIN_GEMM = """void gemm_{m}x{n}x{k}(const int *A, const int *B, int *C) {{
    for (int i = 0; i < {m}; i++)
        for (int j = 0; j < {n}; j++) {{
            int s = 0;
            for (int k = 0; k < {k}; k++)
                s += A[i * {k} + k] * B[k * {n} + j];
            C[i * {n} + j] = s;
        }}
}}
"""


def exo_lift(search_s: float) -> None:
    import json
    import subprocess
    import sys
    import tempfile
    import time
    from pathlib import Path

    print("The plain C GEMM with literal sizes through `lift --to gemmini --no-check` (fresh process, wall clock):")
    print("| M×N×K | status | seconds | schedule (file header) |")
    print("|---|---|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for m, n, k in EXO_SHAPES:
            src = Path(tmp) / f"gemm_{m}x{n}x{k}.c"
            src.write_text(PLAIN_GEMM.format(m=m, n=n, k=k))
            t0 = time.perf_counter()
            run = subprocess.run([sys.executable, "-m", "tenspiler.cli", str(src), "--to", "gemmini", "--no-check", "--json",
                                  "--gemmini-search-s", str(search_s)], capture_output=True, text=True, check=False)
            seconds = time.perf_counter() - t0
            res = json.loads(run.stdout)
            winner = next((line.split(": ", 1)[1] for line in res.get("code", {}).get("gemmini", "").splitlines()
                           if "schedule search winner" in line), res.get("message", "")[:120])
            print(f"| {m}×{n}×{k} | {res['status']} | {seconds:.1f} | {winner} |")


# ---------------------------------------------------------------------- calibration


def calibration() -> None:
    from tenspiler.act.calibration import (
        PUBLISHED,
        SCHEDULES,
        SHAPE,
        modelled_utilization,
        run_schedule,
    )

    small = {"library": (256, 64, 256), "exo_unopt": (48, 64, 128), "exo_opt": (256, 64, 128), "autocomp": (48, 64, 192)}
    m, n, k = SHAPE
    print(f"| schedule ({m}×{n}×{k}, 16×16 int8) | instructions | modelled cycles | modelled | published | difference | "
          "host cycles / instruction | bit-exact (small shape) |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for s in SCHEDULES:
        r = modelled_utilization(s)
        ok = run_schedule(s.build(*small[s.name]), *small[s.name])
        print(f"| {s.name} | {r.instructions} | {r.cycles} | {r.utilization:.1%} | {PUBLISHED[s.name]:.0%} | "
              f"{(r.utilization - PUBLISHED[s.name]) * 100:+.1f} pp | {s.issue_interval} | {ok} |")


# ---------------------------------------------------------------------- composite


def hbm_bytes(isa, program) -> int:
    """Bytes moved between HBM and the chip: every HBM window an instruction reads or writes."""
    total = 0
    for inst in program.instructions:
        spec, alpha, beta = bind(isa, inst)
        for s in (spec.output, *spec.inputs):
            if isa.buffer(s.buffer).hbm:
                w = window(isa, s, alpha, beta)
                total += w.rows * w.cols * DTYPES[w.dtype].itemsize
    return total


def composite() -> None:
    isa = gemmini_tensor_isa(config="fp32")
    g = GraphBuilder()
    a, b, c = (g.parameter(x, "f32", (16, 16)) for x in "ABC")
    g.dot(g.dot(a, b), c)
    fused_graph = g.build()
    g1 = GraphBuilder()
    g1.dot(g1.parameter("A", "f32", (16, 16)), g1.parameter("B", "f32", (16, 16)))
    g2 = GraphBuilder()
    g2.dot(g2.parameter("T", "f32", (16, 16)), g2.parameter("C", "f32", (16, 16)))
    fused = compile_graph(isa, fused_graph)
    first, second = compile_graph(isa, g1.build()), compile_graph(isa, g2.build())
    rng = np.random.default_rng(3)
    ins = {x: rng.standard_normal((16, 16)).astype(np.float32) for x in "ABC"}
    got = run(isa, fused, ins)
    t = run(isa, first, {"A": ins["A"], "B": ins["B"]})
    two = run(isa, second, {"T": t, "C": ins["C"]})
    want = evaluate(fused_graph, ins)
    fb, sb = hbm_bytes(isa, fused), hbm_bytes(isa, first) + hbm_bytes(isa, second)
    print("| program | tensor instructions | HBM bytes | max rel. error vs graph |")
    print("|---|---:|---:|---:|")
    for name, prog, val, nbytes in (("fused (A·B)·C", fused, got, fb), ("two GEMMs", None, two, sb)):
        ninst = len(prog.instructions) if prog else len(first.instructions) + len(second.instructions)
        err = float(np.max(np.abs(val - want) / np.maximum(1.0, np.abs(want))))
        print(f"| {name} | {ninst} | {nbytes} | {err:.1e} |")
    print(f"HBM bytes saved by keeping A·B on chip: {1 - fb / sb:.1%}")
    print("fused instruction stream:", ", ".join(i.name for i in fused.instructions))


# ---------------------------------------------------------------------- compile time


def random_graph(nodes: int, seed: int) -> Graph:
    """A random graph of the supported operators whose root is an int32 tile or tile stack."""
    rnd = random.Random(seed)
    g = GraphBuilder()
    s8: list[int] = [g.parameter(f"P{i}", "s8", (16, 16)) for i in range(3)]
    s32: list[int] = []
    while len(g.nodes) < nodes:
        choice = rnd.random()
        if choice < 0.25 or not s32:
            x = g.convert(rnd.choice(s8), "s32")
            s32.append(x)
        elif choice < 0.55:
            s32.append(g.dot(g.convert(rnd.choice(s8), "s32"), g.convert(rnd.choice(s8), "s32")))
        elif choice < 0.85:
            pair = [v for v in s32 if g.nodes[v].shape == (16, 16)]
            if len(pair) >= 2:
                s32.append(g.add(rnd.choice(pair), rnd.choice(pair)))
        elif choice < 0.92:
            p = rnd.choice(s8)
            r0 = rnd.randrange(0, 8)
            s8.append(g.concatenate([g.slice(p, (r0, 0), (r0 + 8, 16)), g.slice(rnd.choice(s8), (0, 0), (8, 16))], 0))
        else:
            a = g.parameter(f"P{len(s8)}", "s8", (16, 16))
            s8.append(a)
    # every node is live: the root sums every int32 tile and the widened unused int8 tiles
    users = {o for n in g.nodes for o in n.operands}
    root = s32[-1]
    for v in s32[:-1] + [g.convert(v, "s32") for v in s8 if v not in users]:
        if v not in users:
            root = g.add(root, v)
    return g.build(root)


def compile_time(graphs: int, nodes: int) -> None:
    isa = gemmini_tensor_isa()
    print("| graph | nodes | result | compile s |")
    print("|---|---:|---|---:|")
    small = [("MAC", single_tile_graph("MAC")), ("GEMM", single_tile_graph("GEMM")), ("ADD", single_tile_graph("ADD"))]
    g = GraphBuilder()
    g.dot(g.convert(g.parameter("A", "s8", (64, 64)), "s32"), g.convert(g.parameter("B", "s8", (64, 64)), "s32"))
    small.append(("GEMM 64³", g.build()))
    rng = np.random.default_rng(11)
    worst_small = worst_big = 0.0
    for name, graph in small + [(f"random {s}", random_graph(nodes, s)) for s in range(graphs)]:
        t = time.perf_counter()
        try:
            prog = compile_graph(isa, graph)  # budgets in work (e-nodes, CP-SAT deterministic time)
            secs = time.perf_counter() - t
            inputs = {graph.nodes[i].attrs[1]: rng.integers(-128, 128, graph.nodes[i].shape).astype(np.int8)
                      for i in graph.parameters}
            ok = np.array_equal(run(isa, prog, inputs), evaluate(graph, inputs))
            result = f"{len(prog.instructions)} instructions, {'bit-exact' if ok else 'WRONG'}"
        except CompileError as e:
            secs = time.perf_counter() - t
            result = f"FAIL: {e.reason[:80]}"
        if name.startswith("random"):
            worst_big = max(worst_big, secs)
        else:
            worst_small = max(worst_small, secs)
        print(f"| {name} | {len(graph.live())} | {result} | {secs:.2f} |")
    print(f"worst: {worst_small:.2f} s for the ≤ 10-node kernels, {worst_big:.2f} s for the {nodes}-node random graphs")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--single-tile", action="store_true")
    ap.add_argument("--exo", action="store_true")
    ap.add_argument("--block", default="auto", help="TMxTNxTK, or auto: the block the generated C chooses")
    ap.add_argument("--no-oracle", action="store_true")
    ap.add_argument("--search-s", type=float, default=600.0,
                    help="wall-clock safety net of each schedule search (seconds; its budget is work: gemm_search.MAX_CANDIDATES)")
    ap.add_argument("--exo-lift", action="store_true")
    ap.add_argument("--composite", action="store_true")
    ap.add_argument("--compile-time", action="store_true")
    ap.add_argument("--calibration", action="store_true")
    ap.add_argument("--graphs", type=int, default=20)
    ap.add_argument("--nodes", type=int, default=90)
    ap.add_argument("--all", action="store_true")
    args = ap.parse_args()
    if args.calibration or args.all:
        calibration()
    if args.single_tile or args.all:
        single_tile()
    if args.composite or args.all:
        composite()
    if args.compile_time or args.all:
        compile_time(args.graphs, args.nodes)
    if args.exo_lift or args.all:
        exo_lift(args.search_s)
    if args.exo or args.all:
        fixed = None if args.block == "auto" else Block(*(int(x) for x in args.block.lower().split("x")))
        exo(fixed, not args.no_oracle, args.search_s)


if __name__ == "__main__":
    main()
