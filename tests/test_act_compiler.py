"""The ACT-style compiler end to end (tenspiler/act/compiler.py, emit.py, tiling.py): graphs to
validated programs for two accelerators described in the same format, run on the oracles
generated from their descriptions."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tenspiler.act.assembly import parse_program
from tenspiler.act.compiler import CompileError, compile_graph, run
from tenspiler.act.emit import RegionRef, assembly_text, c_text, relocate
from tenspiler.act.gemmini_tensor import HBM_BASE, gemmini_tensor_isa
from tenspiler.act.graph import DTYPES, GraphBuilder, evaluate
from tenspiler.act.isa.gemmini import gemmini_isa
from tenspiler.act.oracle import HbmBuffer, Oracle
from tenspiler.act.qkv import qkv_graph, qkv_isa
from tenspiler.act.record import recording_header
from tenspiler.act.schedule import E, run_proc, var
from tenspiler.act.tensor_isa import TInst
from tenspiler.act.tiling import Block, act_gemm_proc, choose, gemm_kernels
from tenspiler.act.validate import ValidationError, validate

ISA16 = gemmini_tensor_isa()
ISA4 = gemmini_tensor_isa(dim=4)


def gemm_graph(m: int, k: int, n: int, bias: bool = False, add_only: bool = False):
    g = GraphBuilder()
    a = g.parameter("A", "s8", (m, k))
    b = g.parameter("B", "s8", (k, n) if not add_only else (m, k))
    if add_only:
        g.add(g.convert(a, "s32"), g.convert(b, "s32"))
        return g.build()
    y = g.dot(g.convert(a, "s32"), g.convert(b, "s32"))
    if bias:
        g.add(y, g.convert(g.parameter("D", "s8", (m, n)), "s32"))
    return g.build()


def random_inputs(graph, rng):
    return {graph.nodes[i].attrs[1]: rng.integers(-128, 128, graph.nodes[i].shape).astype(np.int8) for i in graph.parameters}


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 13), st.integers(1, 13), st.integers(1, 13), st.booleans(), st.integers(0, 2**32 - 1))
def test_gemm_and_mac_are_bit_exact_on_the_gemmini_oracle(m, k, n, bias, seed):
    g = gemm_graph(m, k, n, bias)
    prog = compile_graph(ISA4, g)
    ins = random_inputs(g, np.random.default_rng(seed))
    assert np.array_equal(run(ISA4, prog, ins), evaluate(g, ins))


@pytest.mark.parametrize("kind,expected", [
    ("GEMM", ["config_ld", "mvin", "mvin", "config_ex", "preload", "compute_preloaded", "config_st", "mvout", "fence"]),
    ("MAC", ["config_ld", "mvin", "config_ld", "mvin2", "mvin", "config_ex", "preload", "compute_preloaded",
             "config_st", "mvout", "fence"]),
    ("ADD", ["config_ld", "mvin", "mvin", "config_st", "mvout", "fence"]),
])
def test_single_tile_kernels_match_the_library_instruction_count(kind, expected):
    """ACT Fig. 18: MAC / GEMM / ADD on one 16×16 int8 tile need as many instructions as the
    hand-written gemmini.h sequence (9 / 11 / 6, see benchmarks/act.py)."""
    g = gemm_graph(16, 16, 16, bias=kind == "MAC", add_only=kind == "ADD")
    prog = compile_graph(ISA16, g)
    assert sorted(i.name for i in prog.lowered) == sorted(expected)
    ins = random_inputs(g, np.random.default_rng(5))
    assert np.array_equal(run(ISA16, prog, ins), evaluate(g, ins))


def test_the_composite_keeps_the_intermediate_on_chip():
    """ACT Fig. 20: (A·B)·C in fp32 moves a third fewer HBM bytes than two GEMMs."""
    isa = gemmini_tensor_isa(config="fp32")
    g = GraphBuilder()
    a, b, c = (g.parameter(x, "f32", (16, 16)) for x in "ABC")
    g.dot(g.dot(a, b), c)
    graph = g.build()
    prog = compile_graph(isa, graph)
    assert [i.name for i in prog.instructions].count("matmul_spad") >= 1
    assert not any(i.name.startswith("mvout") for i in prog.instructions[:-1])  # only the result leaves the chip
    rng = np.random.default_rng(2)
    ins = {x: rng.standard_normal((16, 16)).astype(np.float32) for x in "ABC"}
    np.testing.assert_allclose(run(isa, prog, ins), evaluate(graph, ins), rtol=1e-4, atol=1e-4)


def test_the_same_compiler_compiles_the_qkv_accelerator():
    """The second accelerator (ACT Fig. 2/3): softmax(Q·Kᵀ)·V through the same selection,
    allocation and validation code, run on the term oracle generated from its description."""
    isa = qkv_isa(16, 8)
    graph = qkv_graph(8, 8)
    prog = compile_graph(isa, graph)
    names = [i.name for i in prog.instructions]
    assert names.count("gemm") == 2 and "softmax" in names and "load_cm" in names and names[-1].startswith("store")
    rng = np.random.default_rng(4)
    ins = {x: rng.standard_normal((8, 8)).astype(np.float32) for x in "QKV"}
    np.testing.assert_allclose(run(isa, prog, ins), evaluate(graph, ins), rtol=1e-5, atol=1e-5)
    assert prog.lowered is None and "gemm [] (" in assembly_text(isa, prog)


def test_fail_names_the_operation_without_an_instruction():
    g = GraphBuilder()
    g.exponential(g.parameter("A", "f32", (4, 4)))
    with pytest.raises(CompileError, match="no instruction computes Exp on f32"):
        compile_graph(ISA16, g.build(), max_iterations=4)


def test_fail_when_the_buffers_are_too_small():
    tiny = gemmini_tensor_isa(dim=4, spad_rows=4, acc_rows=4)
    with pytest.raises(CompileError, match="memory allocation"):
        compile_graph(tiny, gemm_graph(4, 4, 4), max_iterations=3)


def test_the_budgets_are_work_and_the_wall_clock_a_safety_net():
    """Issue 33: the e-graph's size (``max_enodes``) and CP-SAT's deterministic time
    (``work_limit``) stop a compilation the same way on any machine; the wall clock only as a
    safety net (``timed_out``)."""
    g = GraphBuilder()
    g.dot(g.convert(g.parameter("A", "s8", (64, 64)), "s32"), g.convert(g.parameter("B", "s8", (64, 64)), "s32"))
    graph = g.build()
    prog = compile_graph(ISA16, graph)
    assert 0 < prog.stats["work"] < 1e-2
    with pytest.raises(CompileError, match=r"work limit: the e-graph has \d+ e-nodes after \d+ iterations") as e:
        compile_graph(ISA16, graph, max_enodes=100)
    assert not e.value.timed_out
    with pytest.raises(CompileError, match="work limit: 1e-09 units of CP-SAT deterministic time") as e:
        compile_graph(ISA16, graph, work_limit=1e-9)
    assert not e.value.timed_out
    with pytest.raises(CompileError, match=r"timed out \(wall clock\): the safety net of 0 s") as e:
        compile_graph(ISA16, graph, time_limit=0)
    assert e.value.timed_out


def test_output_is_byte_identical_for_identical_input():
    texts = set()
    for _ in range(2):
        prog = compile_graph(ISA16, gemm_graph(40, 24, 20, bias=True))
        texts.add(assembly_text(ISA16, prog, HBM_BASE) + c_text(ISA16, prog, "k"))
    assert len(texts) == 1


def test_output_does_not_depend_on_the_hash_seed():
    code = ("from tenspiler.act.compiler import compile_graph; from tenspiler.act.emit import assembly_text;"
            "from tenspiler.act.gemmini_tensor import gemmini_tensor_isa; from tenspiler.act.graph import GraphBuilder;"
            "g = GraphBuilder(); a = g.parameter('A','s8',(40,24)); b = g.parameter('B','s8',(24,20));"
            "g.dot(g.convert(a,'s32'), g.convert(b,'s32')); isa = gemmini_tensor_isa();"
            "print(assembly_text(isa, compile_graph(isa, g.build())))")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": s, "PATH": ""}).stdout for s in ("1", "2")}
    assert len(outs) == 1


def test_assembly_round_trips_and_runs():
    g = gemm_graph(20, 17, 9)
    prog = compile_graph(ISA16, g)
    text = assembly_text(ISA16, prog, HBM_BASE)
    parsed = parse_program(ISA16.lower, text)
    assert parsed.instructions == prog.lowered
    assert [r.name for r in parsed.regions] == ["A", "B", "out"]


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_the_c_file_compiles_against_the_recording_header(tmp_path):
    prog = compile_graph(ISA16, gemm_graph(20, 17, 9))
    (tmp_path / "gemmini.h").write_text(recording_header(ISA16.lower))
    (tmp_path / "k.c").write_text(c_text(ISA16, prog, "kernel"))
    r = subprocess.run(["cc", "-c", "-Wall", "-Werror", "-DTENSPILER_RECORD", "-I", str(tmp_path), str(tmp_path / "k.c"),
                        "-o", str(tmp_path / "k.o")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_the_validator_rejects_a_corrupted_program():
    prog = compile_graph(ISA16, gemm_graph(32, 16, 16))
    insts = list(prog.instructions)
    k = next(i for i, x in enumerate(insts) if x.name == "mvin_spad")
    j = next(i for i, x in enumerate(insts) if x.name == "mvin_spad" and i > k)
    # load the second tile over the first one
    insts[j] = TInst("mvin_spad", insts[j].alpha, (*insts[j].beta[:2], insts[k].beta[2]))
    validate(ISA16, prog.instructions, prog.layout)
    with pytest.raises(ValidationError):
        validate(ISA16, insts, prog.layout)


# ---------------------------------------------------------------------- the middle end


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.integers(1, 70), st.integers(0, 2**32 - 1))
def test_block_procedure_on_the_oracle(m, n, k, seed):
    """Padded operands, the block chosen by the run-time rule, every instruction on the Gemmini
    oracle: the m × n corner is A·B exactly."""
    dim = 4
    block = choose(m, n, k, dim)
    proc = act_gemm_proc(dim, block)
    mb, nb, kb = -(-m // block.tm), -(-n // block.tn), -(-k // block.tk)
    mp, np_, kp = mb * block.tm, nb * block.tn, kb * block.tk
    rng = np.random.default_rng(seed)
    A = np.zeros((mp, kp), np.int8)
    B = np.zeros((kp, np_), np.int8)
    A[:m, :k] = rng.integers(-128, 128, (m, k))
    B[:k, :n] = rng.integers(-128, 128, (k, n))
    a, b = HBM_BASE, HBM_BASE + mp * kp
    c = b + kp * np_
    mem = HbmBuffer(mp * kp + kp * np_ + 4 * mp * np_ + 64, HBM_BASE)
    mem.place(a, A)
    mem.place(b, B)
    stream = run_proc(proc, {"A": a, "B": b, "C": c, "MB": mb, "NB": nb, "KB": kb, "sa": kp, "sb": np_, "sc": np_})
    Oracle(gemmini_isa(dim, "int8")).run(stream, mem)
    C = mem.read(c, mp * np_, DTYPES["s32"]).reshape(mp, np_)
    assert np.array_equal(C[:m, :n], A[:m, :k].astype(np.int64) @ B[:k, :n].astype(np.int64))


def test_relocation_rewrites_only_hbm_addresses():
    first, _ = gemm_kernels(4, Block(8, 4, 8))
    refs = {"A": RegionRef(var("A"), 0, 0, var("sa")), "B": RegionRef(var("B"), 0, 0, var("sb")),
            "C": RegionRef(var("C"), 0, 0, var("sc"))}
    moved = relocate(ISA4, first, refs)
    for old, new in zip(first.instructions, moved, strict=True):
        spec = ISA4.instruction(old.name)
        assert old.alpha == new.alpha
        for attr, x, y in zip(spec.beta, old.beta, new.beta, strict=True):
            hbm = any(attr in (s.start, s.stride) for s in (spec.output, *spec.inputs) if ISA4.buffer(s.buffer).hbm)
            assert isinstance(y, E) if hbm else y == x
    with pytest.raises(ValueError, match="no run-time reference"):
        relocate(ISA4, first, {k: v for k, v in refs.items() if k != "B"})


def test_programs_are_frozen_records():
    prog = compile_graph(ISA16, gemm_graph(16, 16, 16))
    with pytest.raises(dataclasses.FrozenInstanceError):
        prog.isa = "x"  # type: ignore[misc]
