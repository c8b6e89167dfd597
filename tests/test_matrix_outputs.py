"""Matrix outputs of a loop nest (vc/nest.py ``is_matrix_output``): an element-wise output
of a doubly nested loop that reads per-row values (``x[i]``: outer products, rank-1
updates) or row vectors (``b[j]``: column biases) has a 2-D candidate; its invariant is
stated per row and column (no division by the row length) and its summary value is
``flatten(...)``. Lifts with translation validation and certificate re-checks, the
``flatten`` op and its proof encoding, and mutants that must not verify."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tenspiler.errors import VerificationError
from tenspiler.frontend.c import parse_c_file
from tenspiler.ir.interp import evaluate
from tenspiler.ir.printer import show
from tenspiler.ir.smt import SmtEncoder
from tenspiler.ir.terms import Flatten, Lit, Matrix, TensorVar
from tenspiler.loops.ir import DType
from tenspiler.pipeline import lift_file
from tenspiler.synth.search import synthesize
from tenspiler.vc.analyze import analyze_kernel
from tenspiler.vc.conditions import flatten_facts
from tenspiler.verify.certificate import recheck_text
from tenspiler.verify.verifier import prove
from tests.lifting import assert_lifts

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks" / "kernels" / "matrix_outputs"
KERNELS = ROOT / "tests" / "kernels" / "matrix_outputs"
INT = DType.INT


@pytest.mark.parametrize("path", sorted(BENCH.iterdir()), ids=lambda p: p.name)
def test_matrix_output_kernels_verify_check_and_recheck(path: Path, tmp_path: Path) -> None:
    res = assert_lifts(path, tmp_path)
    assert res.summary is not None and "flatten(" in res.summary


def test_flatten_interp_printer_and_numpy() -> None:
    a = TensorVar("a", INT)
    m = Matrix(a, Lit(2, INT), Lit(3, INT))
    t = Flatten(m)
    assert show(t) == "flatten(matrix(a, 2, 3))"
    v = evaluate(t, {"a": np.arange(8)})
    assert list(v) == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize("perturb", [None, 0, 4, 6])
def test_flatten_facts_hold_exactly_for_the_flattened_value(perturb: int | None) -> None:
    """The per-row-and-column statement of ``final[lo:hi] == flatten(m)`` (no division)
    is valid for the interpreter's value and refuted when one element (or the element
    just after the range) differs."""
    src = np.array([3, -1, 4, 1, -5, 9, 2, 6], dtype=np.int64)
    lo, rows, cols = 1, 2, 3
    final = np.array([7] * 9, dtype=np.int64)
    final[lo:lo + rows * cols] = evaluate(Flatten(Matrix(TensorVar("a", INT), Lit(rows, INT), Lit(cols, INT))), {"a": src})
    if perturb is not None:
        final[perturb + 1] += 1  # perturb 6: the element after the range (must equal the entry's)

    def arr(v: np.ndarray) -> str:
        out = "((as const (Array Int Int)) 7)"
        for k, x in enumerate(v):
            out = f"(store {out} {k} {int(x)})"
        return out

    enc = SmtEncoder({"a": "a"})
    facts = flatten_facts(enc, Matrix(TensorVar("a", INT), Lit(rows, INT), Lit(cols, INT)), str(lo),
                          str(lo + rows * cols), "final", "entry")
    script = "\n".join([
        "(set-logic ALL)",
        "(set-option :arrays-exp true)",
        f"(define-fun a () (Array Int Int) {arr(src)})",
        f"(define-fun final () (Array Int Int) {arr(final)})",
        f"(define-fun entry () (Array Int Int) {arr(np.array([7] * 9))})",
        f"(assert (not (and {' '.join(facts)})))",
        "(check-sat)",
    ])
    assert recheck_text(script) == (["unsat"] if perturb is None else ["sat"])


@pytest.mark.parametrize("mutant", ["ger_swapped.c", "ger_offbyone.c"])
def test_mutants_of_ger_do_not_verify_with_gers_summary(mutant: str) -> None:
    """The proved candidate of ger, checked against a mutated source (indices swapped, an
    index off by one): some clause must fail."""
    k = analyze_kernel(parse_c_file(BENCH / "ger.c"))
    cand = synthesize(k).candidate
    km = analyze_kernel(parse_c_file(KERNELS / mutant))
    with pytest.raises(VerificationError):
        prove(km, cand)


def test_matrix_output_needs_the_outer_loop_from_zero(tmp_path: Path) -> None:
    res = lift_file(KERNELS / "outer_from_one.c", ("numpy",), out_dir=tmp_path, check=False)
    assert res.status == "not_lifted"
    assert "needs the outer loop to start at 0" in res.message
