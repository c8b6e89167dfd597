"""Strided reads and strided loops: a read ``a[c*i + d]`` (``c >= 2``: decimation,
interleaved complex data) is a ``strided`` view; ``for (i = a; i < b; i += c)`` becomes a
counter ``k`` over ``(b - a + c - 1) / c`` iterations with ``i = a + c*k`` set first in
each. Writes at a stride are strided outputs; a start the body changes is refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tenspiler.errors import LiftError, VerificationError
from tenspiler.frontend.c import parse_c_file, parse_c_source
from tenspiler.loops.interp import run_function
from tenspiler.loops.ir import Binary, Const, DType, Var
from tenspiler.synth.search import synthesize
from tenspiler.vc.analyze import analyze_kernel
from tenspiler.vc.symexec import stride_of
from tenspiler.verify.verifier import prove
from tests.lifting import assert_lifts

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks" / "kernels" / "strided"
KERNELS = ROOT / "tests" / "kernels" / "strided"
INT = DType.INT


@pytest.mark.parametrize("path", sorted(BENCH.iterdir()), ids=lambda p: p.name)
def test_strided_kernels_verify_check_and_recheck(path: Path, tmp_path: Path) -> None:
    res = assert_lifts(path, tmp_path)
    assert res.summary is not None and "strided(" in res.summary


def test_stride_of() -> None:
    i = Var("i", INT)
    two_i = Binary("*", Const(2, INT), i, INT)
    assert stride_of(i, "i") == (1, 0)
    assert stride_of(Binary("+", two_i, Const(1, INT), INT), "i") == (2, 1)
    assert stride_of(Binary("-", Binary("*", i, Const(3, INT), INT), Const(1, INT), INT), "i") == (3, -1)
    assert stride_of(Binary("*", i, Var("n", INT), INT), "i") is None
    assert stride_of(Binary("*", Const(0, INT), i, INT), "i") is None


@pytest.mark.parametrize(
    ("header", "visited"),
    [
        ("for (i = 0; i < n; i += 2)", [0, 2, 4, 6]),
        ("for (i = 1; i <= n; i = i + 3)", [1, 4, 7]),
        ("for (i = 5; i < n; i += 2)", [5]),
        ("for (i = 9; i < n; i += 2)", []),
        ("for (i = 30; i < n; i += 4)", []),
    ],
)
def test_strided_loop_visits_what_c_visits(header: str, visited: list[int]) -> None:
    """The normalised loop in the loop-IR interpreter (the proof's model) visits exactly
    the counter values C does, including empty ranges."""
    src = f"int f(int *a, int n) {{ int s = 0; int i; {header} {{ s = s * 10 + i; }} return s; }}"
    fn = parse_c_source(src, "f.c")
    want = 0
    for v in visited:
        want = want * 10 + v
    assert run_function(fn, {"a": np.zeros(1, dtype=np.int64), "n": 7})["return"] == want


def test_a_strided_write_lifts_as_a_strided_output(tmp_path: Path) -> None:
    """``b[i] = ...`` in an ``i += 2`` loop writes every other element: the strided output
    ``b[0:2*trips:2]`` (the other elements keep their values), checked against the C."""
    res = assert_lifts(KERNELS / "strided_write.c", tmp_path)
    assert res.summary is not None and res.summary.startswith("b[0:") and ":2] = " in res.summary


def test_refusals(tmp_path: Path) -> None:
    with pytest.raises(LiftError, match="start of this strided loop reads 's'"):
        parse_c_file(KERNELS / "start_written.c")


def test_an_off_by_one_stride_mutant_does_not_verify_with_the_originals_candidate() -> None:
    k = analyze_kernel(parse_c_file(BENCH / "pair_sum.c"))
    cand = synthesize(k).candidate
    mutant = "void pair_sum(int *a, int *out, int n) { for (int i = 0; i < n; i++) out[i] = a[2*i] + a[2*i + 2]; }"
    km = analyze_kernel(parse_c_source(mutant, "m.c"))
    with pytest.raises(VerificationError):
        prove(km, cand)
