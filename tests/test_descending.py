"""Descending loops (``for (i = hi; i >= lo; i--)``): the loop IR keeps the order
(``For.descending``), the loop-IR interpreter and the C printer run it backwards, and the
proof is the ascending loop's plus a *commutation* clause (any two distinct iterations
commute from any state). Kernels whose iterations depend on each other must fail it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tenspiler.errors import LiftError, VerificationError
from tenspiler.frontend.c import parse_c_file, parse_c_source
from tenspiler.ir.terms import Lit, ScalarOp, ScalarVar, Slice, TensorVar
from tenspiler.loops.interp import run_function
from tenspiler.loops.ir import DType, For
from tenspiler.pipeline import lift_file
from tenspiler.vc.analyze import analyze_kernel
from tenspiler.vc.conditions import BOUND, Candidate
from tenspiler.verify.verifier import prove
from tests.lifting import assert_lifts

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks" / "kernels" / "reversed"
KERNELS = ROOT / "tests" / "kernels" / "reversed"
INT = DType.INT


@pytest.mark.parametrize("path", sorted(BENCH.iterdir()), ids=lambda p: p.name)
def test_descending_kernels_verify_check_and_recheck(path: Path, tmp_path: Path) -> None:
    res = assert_lifts(path, tmp_path)
    assert any(r["clause"] == "commutation" and r["answer"] == "unsat" for r in res.solver)


@pytest.mark.parametrize(
    ("header", "lo", "hi"),
    [
        ("for (i = n - 1; i >= 0; i--)", 0, 5),
        ("for (i = n; i > 0; --i)", 1, 6),
        ("for (i = n - 2; 1 <= i; i -= 1)", 1, 4),
        ("for (i = n; 2 < i; i = i - 1)", 3, 6),
    ],
)
def test_descending_headers_and_the_interpreters_order(header: str, lo: int, hi: int) -> None:
    src = f"void f(int *order, int n) {{ int k = 0; int i; {header} {{ order[k] = i; k = k + 1; }} }}"
    fn = parse_c_source(src, "f.c")
    loop = next(s for s in fn.body if isinstance(s, For))
    assert loop.descending
    out = run_function(fn, {"order": np.zeros(8, dtype=np.int64), "n": 5})
    assert list(out["order"][: hi - lo]) == list(range(hi - 1, lo - 1, -1))


def test_the_commutation_clause_refutes_the_ascending_reading_of_a_dependent_loop() -> None:
    """``b[i] = b[i + 1]`` from the end copies b[n - 1] everywhere; the ascending reading
    ``b[0:n-1] = slice(b, 1, n)`` satisfies every other clause, and commutation refutes it."""
    k = analyze_kernel(parse_c_file(KERNELS / "shift_down.c"))
    bound = ScalarVar(BOUND, INT)
    cand = Candidate((), (("b", Slice(TensorVar("b", INT), Lit(1, INT), ScalarOp("+", bound, Lit(1, INT), INT))),))
    with pytest.raises(VerificationError) as err:
        prove(k, cand)
    assert err.value.clause == "commutation"


@pytest.mark.parametrize("name", ["shift_down.c", "suffix_scan.c"])
def test_dependent_descending_loops_are_not_lifted(name: str, tmp_path: Path) -> None:
    res = lift_file(KERNELS / name, ("numpy",), out_dir=tmp_path, check=False)
    assert res.status == "not_lifted"
    assert f"{name}:" in res.message


def test_descending_loop_with_pointer_walking_or_counter_read_after_is_refused() -> None:
    from tenspiler.errors import NotLiftable

    # a walk is run by an ascending counter (vc.kernel._ascending): the reversal then reads
    # 'a' backwards, which the single-loop shape does not express
    walk = "void f(int *a, int *b, int n) { int k = 0; for (int i = n - 1; i >= 0; i--) { b[k] = a[i]; k++; } }"
    with pytest.raises(NotLiftable, match="read of 'a' at an index that is not i"):
        analyze_kernel(parse_c_source(walk, "f.c"))
    # ... but not when the original counter is read after the loop
    walk_after = ("int f(int *a, int *b, int n) { int k = 0; int i; for (i = n - 1; i >= 0; i--) { b[k] = a[i]; k++; } "
                  "return i; }")
    with pytest.raises(NotLiftable, match="descending loop stepping a scalar"):
        analyze_kernel(parse_c_source(walk_after, "f.c"))
    after = "int f(int *a, int n) { int i; int s = 0; for (i = n - 1; i >= 0; i--) s += a[i]; return s + i; }"
    with pytest.raises(NotLiftable, match="descending loop is read after it"):
        analyze_kernel(parse_c_source(after, "f.c"))
    bad = "void f(int *a, int n) { for (int i = n; i < 0; i--) a[i] = 0; }"
    with pytest.raises(LiftError, match="descending loop is not supported"):
        parse_c_source(bad, "f.c")


@pytest.mark.parametrize(
    ("loop", "expected"),
    [
        ("for i in range(n - 1, -1, -1):", [4, 3, 2, 1, 0]),
        ("for i in reversed(range(n)):", [4, 3, 2, 1, 0]),
        ("for i in range(n, 1, -1):", [5, 4, 3, 2]),
        ("for i in reversed(range(2, n)):", [4, 3, 2]),
    ],
)
def test_python_descending_ranges(loop: str, expected: list[int]) -> None:
    from tenspiler.frontend.python import parse_python_source

    src = f"def f(xs: list[int], n: int) -> int:\n    s = 0\n    {loop}\n        s = s * 10 + i\n    return s\n"
    fn = parse_python_source(src, "f.py")
    assert next(s for s in fn.body if isinstance(s, For)).descending
    out = run_function(fn, {"xs": np.zeros(1, dtype=np.int64), "xs__size": 1, "n": 5})
    want = 0
    for v in expected:
        want = want * 10 + v
    assert out["return"] == want
