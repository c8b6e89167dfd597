"""Phase 1 of the ACT backend: rules generated from the ISA description, equality saturation
with egglog, buffer-guided extraction (tenspiler/act/select.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tenspiler.act.select as S
from tenspiler.act.gemmini_tensor import gemmini_tensor_isa
from tenspiler.act.graph import GraphBuilder
from tenspiler.act.select import (
    SelectionError,
    Selector,
    check_egraph,
    egglog_program,
    instruction_rule,
)

ISA4 = gemmini_tensor_isa(dim=4, spad_rows=256, acc_rows=64)
ISA16 = gemmini_tensor_isa()


def gemm(m: int, k: int, n: int, bias: bool = False):
    g = GraphBuilder()
    a = g.parameter("A", "s8", (m, k))
    b = g.parameter("B", "s8", (k, n))
    y = g.dot(g.convert(a, "s32"), g.convert(b, "s32"))
    if bias:
        d = g.parameter("D", "s8", (m, n))
        y = g.add(y, g.convert(d, "s32"))
    return g.build()


def inputs_for(graph, rng):
    out = {}
    for i in graph.parameters:
        n = graph.nodes[i]
        out[n.attrs[1]] = rng.integers(-128, 128, n.shape).astype(np.int8)
    return out


def test_rules_are_generated_from_the_semantics(golden):
    text = "\n".join(instruction_rule(ISA16, i) for i in ISA16.instructions)
    golden("act/gemmini_rules.egg", text + "\n")
    # the matmul rule is the reversed semantics dot(convert(x1), convert(x2))
    assert '(Dot (Cvt "s32" x1) (Cvt "s32" x2))' in instruction_rule(ISA16, ISA16.instruction("matmul"))


def test_a_different_description_gives_different_rules():
    # nothing is written per accelerator: changing DIM changes the guards of every rule
    assert "(<= n 4)" in egglog_program(ISA4) and "(<= n 4)" not in egglog_program(ISA16)


@pytest.mark.parametrize("m,k,n,bias", [(4, 4, 4, False), (9, 10, 7, True), (12, 4, 1, False), (1, 13, 5, True)])
def test_every_enode_agrees_with_its_eclass(m, k, n, bias):
    """All rules applied (tiling IR→IR rules and the generated IR→ISA rules, piis evaluated by
    their g_θ(α)) keep each e-class's e-nodes equal on random data."""
    g = gemm(m, k, n, bias)
    sel = Selector(ISA4, g)
    sel.grow(10)
    rng = np.random.default_rng(m * 100 + k * 10 + n)
    assert check_egraph(sel, inputs_for(g, rng)) == []


def test_the_check_catches_a_wrong_rule(monkeypatch):
    orig = S._tiling_rules
    monkeypatch.setattr(S, "_tiling_rules", lambda t: orig(t).replace(f"(Slice b {t} k 0 n)", f"(Slice b 0 (- k {t}) 0 n)"))
    g = gemm(9, 10, 7)
    sel = Selector(ISA4, g)
    sel.grow(10)
    assert check_egraph(sel, inputs_for(g, np.random.default_rng(0)))


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 10), st.integers(1, 10), st.integers(1, 10), st.booleans(), st.integers(0, 2**32 - 1))
def test_egraph_consistency_hypothesis(m, k, n, bias, seed):
    g = gemm(m, k, n, bias)
    sel = Selector(ISA4, g)
    sel.grow(8)
    assert check_egraph(sel, inputs_for(g, np.random.default_rng(seed))) == []


def test_single_tile_gemm_extraction(golden):
    sel = Selector(ISA16, gemm(16, 16, 16))
    sel.grow(4)
    pg = sel.extract()
    golden("act/gemm16.pii", str(pg) + "\n")
    assert [n.inst for n in pg.nodes if n.kind == "pii"] == ["mvin_spad", "mvin_spad", "matmul", "mvout_acc"]


def test_mac_uses_the_accumulating_matmul():
    sel = Selector(ISA16, gemm(16, 16, 16, bias=True))
    sel.grow(6)
    insts = sorted(n.inst for n in sel.extract().nodes if n.kind == "pii")
    assert insts == ["matmul_acc", "mvin_acc", "mvin_spad", "mvin_spad", "mvout_acc"]


def test_tiles_are_loaded_once_and_shared():
    sel = Selector(ISA4, gemm(8, 8, 8))
    sel.grow(12)
    pg = sel.extract()
    loads = [n for n in pg.nodes if n.kind == "pii" and n.inst == "mvin_spad"]
    assert len(loads) == 8  # 4 tiles of A + 4 of B, each once
    assert sum(n.inst in ("matmul", "matmul_acc") for n in pg.nodes if n.kind == "pii") == 8


def test_no_instruction_for_exp_is_a_clear_failure():
    g = GraphBuilder()
    a = g.parameter("A", "f32", (4, 4))
    g.exponential(a)
    sel = Selector(ISA16, g.build())
    sel.grow(3)
    with pytest.raises(SelectionError, match="no instruction computes Exp on f32"):
        sel.extract()


def test_rank3_is_refused():
    g = GraphBuilder()
    a = g.parameter("A", "s32", (2, 2, 2))
    g.add(a, a)
    with pytest.raises(SelectionError, match="rank-3"):
        Selector(ISA16, g.build())
