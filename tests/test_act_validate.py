"""Tests of the independent stream validator (:mod:`tenspiler.act.validate`, ACT §3.4).

Hand-written Gemmini programs (``dim = 4``) pass; each mutation breaks one property and must
be reported with its own message, so a validator that skipped that check fails the test.
A property test builds random tiled GEMMs (tiles in disjoint rows) and perturbs one address
attribute: the validator either reports it or the term oracle still computes ``A · B``.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tenspiler.act.gemmini_tensor import gemmini_tensor_isa
from tenspiler.act.pii import HbmLayout, Region
from tenspiler.act.tensor_isa import TermOracle, TInst
from tenspiler.act.validate import Producer, Sources, ValidationError, problems, validate

ISA = gemmini_tensor_isa(dim=4, spad_rows=64, acc_rows=16)


def mvin(n: int, c: int, src: int, stride: int, dst: int) -> TInst:
    return TInst("mvin_spad", (n, c), (src, stride, dst))


def matmul(n: int, k: int, c: int, a: int, b: int, out: int, acc: bool = False) -> TInst:
    return TInst("matmul_acc" if acc else "matmul", (n, k, c), (a, b, out))


def mvout(n: int, c: int, src: int, dst: int, stride: int) -> TInst:
    return TInst("mvout_acc", (n, c), (src, dst, stride))


def run(prog: list[TInst], layout: HbmLayout, inputs: dict[str, np.ndarray]) -> np.ndarray:
    """The output region after running ``prog`` on the term oracle."""
    oracle = TermOracle(ISA, layout.size)
    for r in layout.inputs:
        for i, row in enumerate(inputs[r.name]):
            oracle.hbm[r.start + i * r.stride:][:row.nbytes] = row.view(np.uint8)
    o = layout.output
    oracle.run(prog)
    return np.stack([oracle.hbm[o.start + i * o.stride:][:o.cols * 4].view(np.int32) for i in range(o.rows)])


# ---------------------------------------------------------------- one tile: C = A · B

L1 = HbmLayout((Region("A", 0, 4, 4, "s8", 4), Region("B", 16, 4, 4, "s8", 4)), Region("C", 32, 4, 4, "s32", 16))
P1 = [mvin(4, 4, 0, 4, 0), mvin(4, 4, 16, 4, 4), matmul(4, 4, 4, 0, 4, 0), mvout(4, 4, 0, 32, 16)]
S1: list[list[Sources]] = [[{"A": (0, 0)}], [{"B": (0, 0)}], [{0: (0, 0)}, {1: (0, 0)}], [{2: (0, 0)}]]

# ---------------------------------------------------------------- two k tiles: C = A0·B0 + A1·B1

L2 = HbmLayout((Region("A", 0, 4, 8, "s8", 8), Region("B", 32, 8, 4, "s8", 4)), Region("C", 64, 4, 4, "s32", 16))
P2 = [mvin(4, 4, 0, 8, 0), mvin(4, 4, 4, 8, 4), mvin(4, 4, 32, 4, 8), mvin(4, 4, 48, 4, 12),
      matmul(4, 4, 4, 0, 8, 0), matmul(4, 4, 4, 4, 12, 0, acc=True), mvout(4, 4, 0, 64, 16)]
S2: list[list[Sources]] = [[{"A": (0, 0)}], [{"input A": (0, 4)}], [{"B": (0, 0)}], [{"B": (4, 0)}],
      [{0: (0, 0)}, {2: (0, 0)}], [{1: (0, 0)}, {3: (0, 0)}, {4: (0, 0)}], [{5: (0, 0)}]]

RNG = np.random.default_rng(0)
A1, B1 = RNG.integers(-128, 128, (4, 4), dtype=np.int8), RNG.integers(-128, 128, (4, 4), dtype=np.int8)
A2, B2 = RNG.integers(-128, 128, (4, 8), dtype=np.int8), RNG.integers(-128, 128, (8, 4), dtype=np.int8)


def with_(prog: list[TInst], k: int, inst: TInst) -> list[TInst]:
    return [*prog[:k], inst, *prog[k + 1:]]


def only(found: list[str], part: str) -> str:
    """The one message containing ``part``."""
    hits = [m for m in found if part in m]
    assert len(hits) == 1, found
    return hits[0]


def test_correct_programs_pass_and_compute_the_product() -> None:
    validate(ISA, P1, L1)
    validate(ISA, P1, L1, producers=S1, output_producers={3: (0, 0)})
    validate(ISA, P2, L2, producers=S2, output_producers=[6])
    assert (run(P1, L1, {"A": A1, "B": B1}) == A1.astype(np.int32) @ B1).all()
    assert (run(P2, L2, {"A": A2, "B": B2}) == A2.astype(np.int32) @ B2).all()


def test_alpha_out_of_range() -> None:
    found = problems(ISA, with_(P1, 0, mvin(5, 4, 0, 4, 0)), L1)
    assert only(found, "n = 5 outside [1, 4]").startswith("instruction 0:")
    with pytest.raises(ValidationError, match=r"instruction 0: .*n = 5 outside \[1, 4\]"):
        validate(ISA, with_(P1, 0, mvin(5, 4, 0, 4, 0)), L1)


def test_slice_outside_its_buffer() -> None:
    msg = only(problems(ISA, with_(P1, 1, mvin(4, 4, 16, 4, 62)), L1), "spad rows [62, 66)")
    assert msg.startswith("instruction 1:")


def test_hbm_window_outside_the_modelled_hbm() -> None:
    msg = only(problems(ISA, with_(P1, 1, mvin(4, 4, 90, 4, 4)), L1), "outside the modelled HBM [0, 96)")
    assert msg.startswith("instruction 1 (mvin_spad")


def test_operand_overwritten_before_use() -> None:
    prog = [mvin(4, 4, 0, 4, 0), mvin(4, 4, 16, 4, 0), matmul(4, 4, 4, 0, 0, 0), mvout(4, 4, 0, 32, 16)]
    # without producers: the first load's value is lost before anything reads it
    assert only(problems(ISA, prog, L1), "never read").startswith("instruction 0 (mvin_spad")
    # with producers: the matmul's x1 comes from the wrong load
    msg = only(problems(ISA, prog, L1, producers=S1), "x1: last written by")
    assert msg.startswith("instruction 2 (matmul") and msg.endswith("instruction 1; expected instruction 0")


def test_write_into_an_input_or_constant_region() -> None:
    msg = only(problems(ISA, [*P1, mvout(1, 4, 0, 0, 16)], L1), "overwrites")
    assert msg.startswith("instruction 4 (mvout_acc") and "overwrites input A (16 bytes in [0, 16))" in msg
    lc = HbmLayout(L1.inputs, L1.output, ((7, Region("k", 96, 1, 4, "s32", 16)),))
    assert "overwrites const 7" in only(problems(ISA, [*P1, mvout(1, 4, 0, 96, 16)], lc), "overwrites")


def test_missing_output_row() -> None:
    found = problems(ISA, with_(P1, 3, mvout(3, 4, 0, 32, 16)), L1)
    assert found == ["output C: 16 bytes never written (rows [3, 4))"]


def test_write_outside_the_output() -> None:
    gap = HbmLayout(L1.inputs, Region("C", 48, 4, 4, "s32", 16))  # bytes [32, 48) hold nothing
    prog = [*with_(P1, 3, mvout(4, 4, 0, 48, 16)), mvout(1, 4, 0, 32, 16)]
    assert problems(ISA, prog[:4], gap) == []
    msg = only(problems(ISA, prog, gap), "outside the output")
    assert msg == "instruction 4 (mvout_acc [1, 4] (0, 32, 16)): writes 16 HBM bytes outside the output C (in [32, 48))"
    # an output with gaps between its rows: a wrong stride writes into them
    strided = HbmLayout(L1.inputs, Region("C", 32, 4, 4, "s32", 20))
    assert problems(ISA, with_(P1, 3, mvout(4, 4, 0, 32, 20)), strided) == []
    found = problems(ISA, P1, strided)
    assert "writes 12 HBM bytes outside the output C" in only(found, "instruction 3")
    assert only(found, "output C:").startswith("output C: 12 bytes never written")


def test_read_of_never_written_hbm_bytes() -> None:
    gap = HbmLayout((Region("A", 0, 4, 4, "s8", 8), Region("B", 32, 4, 4, "s8", 4)), Region("C", 48, 4, 4, "s32", 16))
    prog = [mvin(4, 4, 0, 8, 0), mvin(4, 4, 32, 4, 4), P1[2], mvout(4, 4, 0, 48, 16)]
    assert problems(ISA, prog, gap) == []
    found = problems(ISA, with_(prog, 0, mvin(4, 4, 0, 4, 0)), gap)  # A's rows are 8 bytes apart
    assert found == ["instruction 0 (mvin_spad [4, 4] (0, 4, 0)): x1: reads 8 never-written HBM bytes in [4, 16)"]
    found = problems(ISA, with_(prog, 1, mvin(4, 4, 48, 4, 4)), gap)  # the output, before it is written
    assert found == ["instruction 1 (mvin_spad [4, 4] (48, 4, 4)): x1: reads 16 never-written HBM bytes in [48, 64)"]


def test_read_of_never_written_accumulator_rows() -> None:
    found = problems(ISA, with_(P2, 4, matmul(4, 4, 4, 0, 8, 0, acc=True)), L2)
    assert found == ["instruction 4 (matmul_acc [4, 4, 4] (0, 8, 0)): x3: reads never-written acc rows [0, 4)"]


def test_wrong_producer() -> None:
    prog = with_(P2, 5, matmul(4, 4, 4, 4, 8, 0, acc=True))  # B's first tile again
    msg = only(problems(ISA, prog, L2, producers=S2), "last written by")
    assert msg.startswith("instruction 5 (matmul_acc") and "x2: last written by instruction 2; expected instruction 3" in msg
    assert only(problems(ISA, prog, L2), "never read").startswith("instruction 3 (mvin_spad")


def test_positions_need_the_mapping_form() -> None:
    prog = with_(P2, 1, mvin(4, 4, 3, 8, 4))  # A's columns 3..6 instead of 4..7: all bytes of A
    assert problems(ISA, prog, L2) == []
    assert problems(ISA, prog, L2, producers=[[set(m) for m in e] for e in S2]) == []
    msg = only(problems(ISA, prog, L2, producers=S2), "expected positions")
    assert msg == "instruction 1 (mvin_spad [4, 4] (3, 8, 4)): x1: 16 elements are not at their expected positions in input A"


def test_output_producers() -> None:
    prog = [*P1, mvout(1, 4, 1, 32, 16)]  # acc row 1 over C's row 0
    assert problems(ISA, prog, L1) == []  # every byte written, nothing lost: needs the output's sources
    assert problems(ISA, prog, L1, output_producers={3: (0, 0)}) == [
        "output C: last written by instruction 4; expected instruction 3"]


def test_bad_arguments_and_layout() -> None:
    assert problems(ISA, P1, L1, producers=S1[:3]) == ["producers: 3 entries for 4 instructions (ignored)"]
    assert only(problems(ISA, P1, L1, producers=[*S1[:3], [["Z"]]]), "unknown") == \
        "instruction 3 (mvout_acc [4, 4] (0, 32, 16)): x1: unknown producer 'Z'"
    zero = HbmLayout(L1.inputs, Region("C", 32, 4, 4, "s32", 0))
    assert "layout: output C is not a region" in problems(ISA, P1, zero)[0]
    overlap = HbmLayout((Region("A", 0, 4, 4, "s8", 4), Region("B", 12, 4, 4, "s8", 4)), L1.output)
    assert "layout: input A [0, 16) and input B [12, 28) overlap" in problems(ISA, P1, overlap)


# ---------------------------------------------------------------- random tiled GEMMs


def _split(total: int, sizes: list[int]) -> list[tuple[int, int]]:
    """``[0, total)`` cut into tiles of ``sizes`` (repeated), as ``(start, length)``."""
    out: list[tuple[int, int]] = []
    while (at := sum(out[-1]) if out else 0) < total:
        out.append((at, min(sizes[len(out) % len(sizes)], total - at)))
    return out


def gemm(m: int, k: int, n: int, tiles: list[int], rnd: random.Random, dim: int = 4, pad: int = 0,
         spad_rows: int = 64, acc_rows: int = 16
         ) -> tuple[list[TInst], HbmLayout, list[list[Sources]], dict[Producer, tuple[int, int]]]:
    """A tiled ``[m, k] · [k, n]`` program with every tile in its own free rows (chosen at
    random), its layout, producers (mapping form) and the output's sources."""
    a = Region("A", 0, m, k, "s8", k + pad)
    b = Region("B", a.end + pad, k, n, "s8", n)
    c = Region("C", b.end + pad, m, n, "s32", 4 * n + 4 * pad)
    rows, cols, inner = (_split(x, tiles) for x in (m, n, k))
    prog: list[TInst] = []
    srcs: list[list[Sources]] = []
    out_srcs: dict[Producer, tuple[int, int]] = {}
    spad, acc = list(range(0, spad_rows, dim)), list(range(0, acc_rows, dim))

    def load(src: Region, r0: int, c0: int, nr: int, nc: int) -> tuple[int, int]:
        slot = spad.pop(rnd.randrange(len(spad)))
        prog.append(mvin(nr, nc, src.start + r0 * src.stride + c0, src.stride, slot))
        srcs.append([{src.name: (r0, c0)}])
        return len(prog) - 1, slot

    for i0, ni in rows:
        for j0, nj in cols:
            out = acc.pop(rnd.randrange(len(acc)))
            last: int | None = None
            for k0, nk in inner:
                (ia, sa), (ib, sb) = load(a, i0, k0, ni, nk), load(b, k0, j0, nk, nj)
                prog.append(matmul(ni, nk, nj, sa, sb, out, acc=last is not None))
                srcs.append([{ia: (0, 0)}, {ib: (0, 0)}, *([{last: (0, 0)}] if last is not None else [])])
                last = len(prog) - 1
                spad += [sa, sb]
            prog.append(mvout(ni, nj, out, c.start + i0 * c.stride + 4 * j0, c.stride))
            srcs.append([[] if last is None else {last: (0, 0)}])
            out_srcs[len(prog) - 1] = (-i0, -4 * j0)
            acc.append(out)
    return prog, HbmLayout((a, b), c), srcs, out_srcs


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.integers(1, 9), st.lists(st.integers(1, 4), min_size=1, max_size=4),
       st.integers(0, 3), st.randoms(use_true_random=False), st.data())
def test_random_gemms_and_one_perturbed_address(m: int, k: int, n: int, tiles: list[int], pad: int,
                                                rnd: random.Random, data: st.DataObject) -> None:
    prog, layout, srcs, out_srcs = gemm(m, k, n, tiles, rnd, pad=pad)
    rng = np.random.default_rng(rnd.randrange(1 << 30))
    a, b = rng.integers(-128, 128, (m, k), dtype=np.int8), rng.integers(-128, 128, (k, n), dtype=np.int8)
    want = a.astype(np.int32) @ b
    assert problems(ISA, prog, layout) == []
    assert problems(ISA, prog, layout, producers=srcs, output_producers=out_srcs) == []
    assert (run(prog, layout, {"A": a, "B": b}) == want).all()
    i = data.draw(st.integers(0, len(prog) - 1))
    j = data.draw(st.integers(0, 2))
    delta = data.draw(st.integers(-9, 9).filter(bool))
    beta = list(prog[i].beta)
    beta[j] += delta
    bad = with_(prog, i, TInst(prog[i].name, prog[i].alpha, tuple(beta)))
    found = problems(ISA, bad, layout, producers=srcs, output_producers=out_srcs)
    if not found:  # e.g. a stride of a one-row tile: harmless
        assert (run(bad, layout, {"A": a, "B": b}) == want).all()
    assert all(f.startswith(("instruction ", "output C")) for f in found)


def test_large_tiled_gemm() -> None:
    isa = gemmini_tensor_isa(dim=16)
    prog, layout, srcs, out_srcs = gemm(96, 64, 80, [16], random.Random(1), dim=16, spad_rows=16384, acc_rows=1024)
    assert len(prog) == 6 * 4 * 5 * 3 + 6 * 5
    assert problems(isa, prog, layout, producers=srcs, output_producers=out_srcs) == []
