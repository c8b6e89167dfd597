"""Gemmini's tensor-level description (tenspiler/act/gemmini_tensor.py) against the gemmini.h
instruction semantics: every abstract instruction, run on the term oracle (its g_θ), must
leave the same memory state as its expansion run on the Gemmini oracle."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tenspiler.act.emit import lower
from tenspiler.act.gemmini_tensor import HBM_BASE, gemmini_tensor_isa
from tenspiler.act.isa import Inst
from tenspiler.act.oracle import HbmBuffer, Oracle
from tenspiler.act.tensor_isa import TensorIsaError, TermOracle, TInst, bind

DIM = 4
ISA = gemmini_tensor_isa(dim=DIM, spad_rows=32, acc_rows=16)
HBM = 4096


def both(program, seed):
    """Run ``program`` on the term oracle and (expanded) on the Gemmini oracle from the same
    random state; return both final states (hbm bytes, spad, acc)."""
    rng = np.random.default_rng(seed)
    hbm = rng.integers(0, 256, HBM, dtype=np.uint8)
    spad = rng.integers(-128, 128, (32, DIM)).astype(np.int8)
    acc = rng.integers(-2**31, 2**31, (16, DIM), dtype=np.int64).astype(np.int32)
    term = TermOracle(ISA, HBM)
    term.hbm[:] = hbm
    term.buffers["spad"][:] = spad
    term.buffers["acc"][:] = acc
    term.run(program)
    mem = HbmBuffer(HBM, HBM_BASE)
    mem.data[:] = hbm
    oracle = Oracle(ISA.lower)
    state = oracle.new_state(mem)
    state.buffers["spad"][:] = spad
    state.buffers["acc"][:] = acc
    oracle.run(lower(ISA, program), mem, state)
    return (term.hbm, term.buffers["spad"], term.buffers["acc"]), (mem.data, state.buffers["spad"], state.buffers["acc"])


def assert_same(program, seed):
    a, b = both(program, seed)
    for x, y, what in zip(a, b, ("hbm", "spad", "acc"), strict=True):
        assert np.array_equal(x, y), f"{what} differs for {program}"


dims = st.integers(1, DIM)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["mvin_spad", "mvin_acc", "mvin_acc_add", "mvin_acc32", "mvin_acc32_add"]), dims, dims,
       st.integers(0, 1000), st.integers(16, 40), st.integers(0, 12), st.integers(0, 2**32 - 1))
def test_loads_agree(name, n, c, src, stride, dst, seed):
    assert_same([TInst(name, (n, c), (src, stride, dst))], seed)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["matmul", "matmul_acc"]), dims, dims, dims, st.integers(0, 28), st.integers(0, 28),
       st.integers(0, 12), st.integers(0, 2**32 - 1))
def test_matmuls_agree(name, n, k, c, a, b, out, seed):
    assert_same([TInst(name, (n, k, c), (a, b, out))], seed)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["mvout_acc", "mvout_spad"]), dims, dims, st.integers(0, 12), st.integers(0, 1000),
       st.integers(16, 40), st.integers(0, 2**32 - 1))
def test_stores_agree(name, n, c, src, dst, stride, seed):
    assert_same([TInst(name, (n, c), (src, dst, stride))], seed)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["mvin_spad", "mvin_acc_add", "matmul", "matmul_acc", "mvout_acc"]),
                          dims, dims, dims, st.integers(0, 12), st.integers(0, 12), st.integers(16, 24)),
                min_size=2, max_size=8), st.integers(0, 2**32 - 1))
def test_sequences_agree(steps, seed):
    """Configuration tracking across instructions (strides change, mvin ids are reused)."""
    prog = []
    for name, n, k, c, p, q, stride in steps:
        if name.startswith("matmul"):
            prog.append(TInst(name, (n, k, c), (p, q + 8, p)))
        elif name == "mvout_acc":
            prog.append(TInst(name, (n, c), (p, 64 * q, stride)))
        else:
            prog.append(TInst(name, (n, c), (64 * q, stride, p)))
    assert_same(prog, seed)


def test_configurations_are_issued_only_when_they_change():
    prog = [TInst("mvin_spad", (4, 4), (0, 4, 0)), TInst("mvin_spad", (4, 4), (16, 4, 4)),
            TInst("mvin_spad", (4, 4), (32, 8, 8)), TInst("matmul", (4, 4, 4), (0, 4, 0)),
            TInst("matmul_acc", (4, 4, 4), (0, 4, 0)), TInst("mvout_acc", (4, 4), (0, 64, 16))]
    names = [i.name for i in lower(ISA, prog)]
    assert names == ["config_ld", "mvin", "mvin", "config_ld", "mvin2", "config_ex", "preload", "compute_preloaded",
                     "preload", "compute_preloaded", "config_st", "mvout", "fence"]
    assert lower(ISA, prog)[3] == Inst("config_ld", (8, 1.0, 0, 1))


@pytest.mark.parametrize("inst,msg", [
    (TInst("matmul", (5, 4, 4), (0, 4, 0)), "n = 5 outside"),
    (TInst("mvin_spad", (4, 4), (0, 4, 30)), "spad rows \\[30, 34\\)"),
    (TInst("mvout_acc", (4, 4), (14, 0, 16)), "acc rows \\[14, 18\\)"),
    (TInst("mvin_spad", (4, 4), (-1, 4, 0)), "HBM window"),
    (TInst("nope", (), ()), "unknown instruction"),
])
def test_invalid_instructions(inst, msg):
    with pytest.raises(TensorIsaError, match=msg):
        bind(ISA, inst)
