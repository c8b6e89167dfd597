"""Block loops (vc/blocks.py): nests deeper than two whose outer loop writes one row per
iteration — GEMM in its four transpose variants, alpha/beta and accumulating forms. The row
kernel is proved on its own, its summary lifted to 2-D (``matmul``) and the outer loop proved
with the row summary as the transition. Lifts with translation validation and certificate
re-checks, the ``matmul`` op (interpreter, printer, SMT row definition), mutants that must not
verify, and refusals with named reasons."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tenspiler.errors import VerificationError
from tenspiler.frontend.c import parse_c_file
from tenspiler.ir.interp import evaluate
from tenspiler.ir.printer import show
from tenspiler.ir.smt import SmtEncoder
from tenspiler.ir.terms import (
    ArrayOutput,
    Flatten,
    Lit,
    MatMul,
    Matrix,
    ProgramSummary,
    ScalarVar,
    TensorScalar,
    TensorVar,
    Transpose,
    transposed,
)
from tenspiler.loops.ir import DType
from tenspiler.pipeline import lift_file
from tenspiler.synth.search import synthesize
from tenspiler.vc.analyze import analyze_kernel
from tenspiler.vc.blocks import BlockKernel
from tenspiler.vc.conditions import matrix_element
from tenspiler.verify.certificate import recheck_text
from tenspiler.verify.verifier import prove
from tests.lifting import assert_lifts

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks" / "kernels" / "gemm"
KERNELS = ROOT / "tests" / "kernels" / "blocks"
INT = DType.INT


@pytest.mark.parametrize("path", sorted(BENCH.iterdir()), ids=lambda p: p.name)
def test_gemm_kernels_verify_check_and_recheck(path: Path, tmp_path: Path) -> None:
    res = assert_lifts(path, tmp_path)
    assert res.summary is not None and "flatten(" in res.summary
    assert [s["clause"] for s in res.solver if s["clause"].startswith("outer loop")]  # two proofs


def test_gemm_summary_is_the_plain_matrix_product(tmp_path: Path) -> None:
    res = lift_file(BENCH / "gemm_nn.c", ("numpy",), out_dir=tmp_path)
    assert res.summary == "C[0:(M * N)] = flatten(matmul(matrix(A, M, K), matrix(B, K, N)))"
    assert "np.matmul(" in res.code["numpy"]


def test_float_products_summed_in_double_stay_float_products(tmp_path: Path) -> None:
    """``double acc += A[..] * B[..]`` of float data: each product is rounded to float (C),
    so the code forms the products in float32 and sums them in float64 instead of calling
    BLAS in double (which would lose C's float overflow: inf + -inf is NaN in C)."""
    res = lift_file(BENCH / "sgemm_double_acc.c", ("numpy",), out_dir=tmp_path)
    assert res.status == "verified", res.message
    code = res.code["numpy"]
    assert "np.matmul" not in code and "np.add.reduce(" in code and "dtype=np.float64" in code
    ns: dict[str, object] = {}
    exec(compile(code, "sgemm_double_acc", "exec"), ns)
    a = np.array([2e38, 2e38], dtype=np.float32)
    b = np.array([2, -2], dtype=np.float32)
    with np.errstate(all="ignore"):
        out = ns["sgemm_double_acc"](1, 1, 2, a, b, np.zeros(1, dtype=np.float32))  # type: ignore[operator]
    assert np.isnan(out[0])  # float products 4e38 → inf and -inf, as the C computes them


def _mm(a: np.ndarray, b: np.ndarray, vector_first: bool = True) -> MatMul:
    m, k = a.shape
    n = b.shape[1]
    left = Matrix(TensorVar("a", INT), Lit(m, INT), Lit(k, INT))
    right = Matrix(TensorVar("b", INT), Lit(k, INT), Lit(n, INT))
    return MatMul(left, right, INT, INT, vector_first)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 4), st.integers(0, 4), st.integers(0, 4), st.integers(0, 2**32 - 1), st.booleans())
def test_matmul_interpreter_is_the_matrix_product(m: int, n: int, k: int, seed: int, vf: bool) -> None:
    rng = np.random.default_rng(seed)
    a, b = rng.integers(-9, 9, (m, k)), rng.integers(-9, 9, (k, n))
    got = evaluate(_mm(a, b, vf), {"a": a.reshape(-1), "b": b.reshape(-1)})
    assert got.shape == (m, n)
    assert (got == a @ b).all()


def test_matmul_printer_and_transposed() -> None:
    a, b = TensorVar("A", INT), TensorVar("B", INT)
    m = Matrix(b, ScalarVar("N", INT), ScalarVar("K", INT))
    t = MatMul(Matrix(a, ScalarVar("M", INT), ScalarVar("K", INT)), Transpose(m), INT, INT)
    assert show(t) == "matmul(matrix(A, M, K), transpose(matrix(B, N, K)))"
    assert transposed(transposed(m)) == m
    with pytest.raises(TypeError):
        transposed(a)


@pytest.mark.parametrize("perturb", [False, True])
def test_matmul_smt_row_definition_agrees_with_the_interpreter(perturb: bool) -> None:
    """Element (r, c) of the SMT encoding (through its row definition) equals the
    interpreter's a @ b on concrete arrays; a perturbed expected value is refuted."""
    a = np.array([[1, -2, 3], [4, 0, -1]])
    b = np.array([[2, 1], [-3, 5], [7, -4]])
    t = _mm(a, b, False)
    want = a @ b
    if perturb:
        want[1, 0] += 1

    def arr(v: np.ndarray) -> str:
        out = "((as const (Array Int Int)) 0)"
        for i, x in enumerate(v.reshape(-1)):
            out = f"(store {out} {i} {int(x)})"
        return out

    enc = SmtEncoder({"a": "a", "b": "b"})
    facts = [f"(= {matrix_element(enc, t, str(r), str(c))} {int(want[r, c])})" for r in range(2) for c in range(2)]
    # unperturbed: the facts cannot be false; perturbed: they cannot be true (refuted)
    claim = f"(not (and {' '.join(facts)}))" if not perturb else f"(and {' '.join(facts)})"
    script = "\n".join([
        "(set-logic ALL)",
        "(set-option :arrays-exp true)",
        f"(define-fun a () (Array Int Int) {arr(a)})",
        f"(define-fun b () (Array Int Int) {arr(b)})",
        *enc.definitions,
        f"(assert {claim})",
        "(check-sat)",
    ])
    assert recheck_text(script) == ["unsat"]


@pytest.fixture(scope="module")
def gemm_candidate() -> object:
    k = analyze_kernel(parse_c_file(BENCH / "gemm_nn.c"))
    assert isinstance(k, BlockKernel)
    return synthesize(k).candidate


@pytest.mark.parametrize("mutant", ["gemm_b_swapped.c", "gemm_minus.c", "gemm_k_bound.c"])
def test_mutants_of_gemm_do_not_verify_with_gemms_candidate(mutant: str, gemm_candidate: object) -> None:
    """GEMM's proved row candidate, checked against a mutated source (B's indices swapped, a
    swapped operator, a wrong bound of the reduction): the row kernel's or the outer loop's
    proof must fail. (Each mutant is a tensor program of its own and lifts to its own summary,
    e.g. ``matmul(matrix(A, M, K - 1, K), matrix(B, K - 1, N))`` for the wrong bound.)"""
    km = analyze_kernel(parse_c_file(KERNELS / mutant))
    assert isinstance(km, BlockKernel)
    with pytest.raises(VerificationError):
        prove(km.kernel, gemm_candidate)  # type: ignore[arg-type]
        prove(km, gemm_candidate)  # type: ignore[arg-type]


@pytest.mark.parametrize(("mutant", "reason"), [
    ("gemm_carried.c", "carried from one iteration of the outer loop"),
    ("gemm_carried_rows.c", "does not access it only as row i"),
    ("gemm_from_one.c", "must start at 0"),
    ("gemm_row_overlap.c", "only whole rows"),
    ("gemm_transposed_write.c", "not j + constant"),
])
def test_mutants_of_gemm_are_refused_with_the_reason(mutant: str, reason: str, tmp_path: Path) -> None:
    res = lift_file(KERNELS / mutant, ("numpy",), out_dir=tmp_path)
    assert res.status == "not_lifted"
    assert reason in res.message


def test_a_gemm_reading_a_shifted_is_lifted_as_a_stack_of_rows(tmp_path: Path) -> None:
    """``A[i*K + k + 1]``: each row of C is a vector-matrix product of a row of A shifted by
    one, a valid tensor program (refused before ``stack`` existed): lifted row by row,
    checked, and its summary is not GEMM's."""
    res = assert_lifts(KERNELS / "gemm_a_offbyone.c", tmp_path)
    assert res.summary is not None and "stack(i < M:" in res.summary and "slice(tail(A, (i * K)), 1, (K + 1))" in res.summary


def test_outer_proof_rejects_a_wrong_matrix(gemm_candidate: object) -> None:
    """The outer loop's VC with a summary whose matrix is off by one everywhere: the post
    clause fails (the lifted 2-D value is only a proposal; the proof decides)."""
    k = analyze_kernel(parse_c_file(BENCH / "gemm_nn.c"))
    assert isinstance(k, BlockKernel)
    ps = k.summary(gemm_candidate)
    out = ps.outputs[0]
    assert isinstance(out, ArrayOutput) and isinstance(out.value, Flatten)
    bad_value = Flatten(TensorScalar("+", out.value.matrix, Lit(1, INT), False, INT))
    bad = ProgramSummary(ps.function, (ArrayOutput(out.array, out.lo, out.hi, bad_value),), ps.preconditions)
    prove(k, gemm_candidate, ps=ps)  # type: ignore[arg-type]
    with pytest.raises(VerificationError):
        prove(k, gemm_candidate, ps=bad)  # type: ignore[arg-type]


def test_gemm_runs_on_gemmini_through_act(tmp_path: Path) -> None:
    """``lift gemm.c --to gemmini --check``: the whole product is one device call (the host
    only copies its row-major result), bit-exact on the oracle with no host fallback."""
    res = lift_file(BENCH / "gemm_nn.c", ("gemmini",), out_dir=tmp_path, check=True)
    assert res.status == "verified", res.message
    device = res.check["gemmini"]["device"]  # type: ignore[index]
    assert device["ok"] and device["fallbacks"] == 0 and device["inputs_without_fallback"] > 0
    placement = res.placement["gemmini"]
    assert [o["where"] for o in placement["outputs"]] == ["device"]
    assert [k["kind"] for k in placement["kernels"]] == ["gemm"]


def test_rows_of_several_loops_lift_as_phases_per_row(tmp_path: Path) -> None:
    """An outer loop holding two inner loops (a row's sum of squares, then the row divided by
    it) is a block loop whose row function has two loop phases; the outer step clause is
    proved in its second form (the hypothesis instantiated at the builder's ``cc.s``)."""
    res = assert_lifts(KERNELS / "row_normalize.c", tmp_path)
    assert res.summary is not None
    assert "stack(i < m: tensor_scalar(take(tail(x, (i * n)), n), reduce_sum(" in res.summary
