"""Soundness: wrong summaries and mutated sources must not verify (DESIGN.md, "Soundness
rules"). A refusal is either a concrete counterexample or a clause cvc5 did not answer
``unsat`` for; never a "verified"."""

from __future__ import annotations

import numpy as np
import pytest

from tenspiler.errors import VerificationError, WallClockTimeout
from tenspiler.frontend.c import parse_c_source
from tenspiler.ir.terms import ReduceSum, ScalarVar, Take, TensorScalar, TensorTensor, TensorVar
from tenspiler.loops.ir import DType
from tenspiler.synth.search import synthesize
from tenspiler.vc.concrete import random_examples
from tenspiler.vc.conditions import BOUND, Candidate, summary
from tenspiler.vc.kernel import analyze
from tenspiler.verify.verifier import prove, verify

INT = DType.INT
B = ScalarVar(BOUND, INT)

VADD = "void vadd(int *a, int *b, int *c, int n) { for (int i = 0; i < n; ++i) { c[i] = a[i] + b[i]; } }"
DOT = "int dot(int *a, int *b, int n) { int s = 0; for (int i = 0; i < n; ++i) { s += a[i] * b[i]; } return s; }"
SCALE = "void scale(int *a, int n, int s) { for (int i = 0; i < n; ++i) { a[i] = a[i] * s + 3; } }"

MUTANTS = {
    VADD: [
        VADD.replace("i < n", "i <= n"),  # off-by-one bound
        VADD.replace("a[i] + b[i]", "a[i] - b[i]"),  # + → -
        VADD.replace("c[i] = a[i]", "c[i] = a[i] + 1 +"),  # extra constant
    ],
    DOT: [
        DOT.replace("i < n", "i < n - 1"),
        DOT.replace("a[i] * b[i]", "a[i] + b[i]"),
        DOT.replace("int s = 0", "int s = 1"),  # wrong constant
    ],
    SCALE: [
        SCALE.replace("+ 3", "+ 4"),  # wrong constant
        SCALE.replace("i = 0", "i = 1"),  # off-by-one start
    ],
}


@pytest.mark.parametrize(("original", "mutant"), [(o, m) for o, ms in MUTANTS.items() for m in ms])
def test_mutated_source_does_not_verify_against_original_summary(original: str, mutant: str) -> None:
    k0 = analyze(parse_c_source(original))
    syn = synthesize(k0)
    ps = syn.summary
    km = analyze(parse_c_source(mutant))
    # the unbounded proof alone must refuse (unknown / timeout / sat all count as refusal)
    with pytest.raises(VerificationError):
        prove(km, syn.candidate, ps=ps)
    # with concrete program states, the refusal comes with a counterexample
    examples = random_examples(km, np.random.default_rng(1), 30)
    with pytest.raises(VerificationError) as info:
        verify(km, syn.candidate, examples, ps=ps)
    assert info.value.clause == "concrete"
    assert info.value.counterexample is not None
    assert "source gives" in str(info.value) or "cannot be evaluated" in str(info.value)


@pytest.mark.parametrize(
    "wrong",
    [
        Candidate((), (("c", TensorTensor("-", Take(TensorVar("a", INT), B), Take(TensorVar("b", INT), B), INT)),)),
        Candidate((), (("c", TensorTensor("+", Take(TensorVar("a", INT), B), Take(TensorVar("a", INT), B), INT)),)),
        Candidate((), (("c", TensorScalar("+", Take(TensorVar("a", INT), B), ScalarVar("n", INT), False, INT)),)),
    ],
)
def test_wrong_summary_is_refused_with_a_counterexample(wrong: Candidate) -> None:
    k = analyze(parse_c_source(VADD))
    examples = random_examples(k, np.random.default_rng(0), 20)
    with pytest.raises(VerificationError) as info:
        verify(k, wrong, examples)
    cex = info.value.counterexample
    assert cex is not None and set(cex) == {"a", "b", "c", "n"}
    with pytest.raises(VerificationError):
        prove(k, wrong)


def test_wrong_reduction_is_refused() -> None:
    k = analyze(parse_c_source(DOT))
    wrong = Candidate((("s", ReduceSum(TensorTensor("+", Take(TensorVar("a", INT), B), Take(TensorVar("b", INT), B), INT), INT)),), ())
    with pytest.raises(VerificationError):
        prove(k, wrong)
    with pytest.raises(VerificationError) as info:
        verify(k, wrong, random_examples(k, np.random.default_rng(0), 20))
    assert info.value.counterexample is not None


def test_right_summary_is_proved() -> None:
    k = analyze(parse_c_source(VADD))
    right = Candidate((), (("c", TensorTensor("+", Take(TensorVar("a", INT), B), Take(TensorVar("b", INT), B), INT)),))
    proof = prove(k, right)
    assert [r.answer for _, r in proof.results] == ["unsat", "unsat", "unsat", "unsat"]
    assert [n for n, _ in proof.results] == ["initiation", "preservation", "exit", "post"]
    assert str(summary(k, right).outputs[0].value) != ""


def test_c_division_semantics_in_summary() -> None:
    """The verified summary divides like C (truncation): -3 / 2 == -1, not floor's -2."""
    from tenspiler.vc.concrete import summary_outputs

    src = "void h(int *a, int n) { for (int i = 0; i < n; ++i) { a[i] = a[i] / 2; } }"
    k = analyze(parse_c_source(src))
    syn = synthesize(k)
    out = summary_outputs(syn.summary, {"a": np.array([-3, 3, -4, 5]), "n": 4})
    assert out["a"].tolist() == [-1, 1, -2, 2]


def test_bounded_check_finds_a_counterexample_without_examples() -> None:
    """CEGIS input from the verifier itself: cvc5 answers sat on the unrolled loop."""
    from tenspiler.vc.concrete import make_example, mismatch
    from tenspiler.verify.verifier import bounded_refutation

    k = analyze(parse_c_source(DOT))
    wrong = Candidate((("s", ReduceSum(TensorTensor("+", Take(TensorVar("a", INT), B), Take(TensorVar("b", INT), B), INT), INT)),), ())
    with pytest.raises(VerificationError) as info:
        bounded_refutation(k, wrong)
    assert info.value.clause == "bounded"
    cex = info.value.counterexample
    assert cex is not None
    ex = make_example(k, cex)
    assert ex is not None and mismatch(summary(k, wrong), ex) is not None  # a real counterexample


def test_bounded_check_accepts_the_right_summary() -> None:
    from tenspiler.verify.verifier import bounded_refutation

    k = analyze(parse_c_source(VADD))
    right = Candidate((), (("c", TensorTensor("+", Take(TensorVar("a", INT), B), Take(TensorVar("b", INT), B), INT)),))
    bounded_refutation(k, right)  # no exception


GEMV = """void gemv(int M, int N, int *A, int *x, int *y) {
  for (int i = 0; i < M; ++i) { int s = 0; for (int j = 0; j < N; ++j) { s += A[i * N + j] * x[j]; } y[i] = s; }
}"""
MATADD = """void matadd(int *a, int *b, int m, int n) {
  for (int i = 0; i < m; ++i) for (int j = 0; j < n; ++j) a[i * n + j] += b[i * n + j];
}"""

COLSUMS = """void col_sums(int *A, int m, int n, int *out) {
  for (int j = 0; j < n; j++) { int s = 0; for (int i = 0; i < m; i++) s += A[i * n + j]; out[j] = s; }
}"""
WINDOW = """void window(int *A, int rows, int w, int off, int len, int *x, int *out) {
  for (int r = 0; r < rows; r++) { int s = 0; for (int k = 0; k < len; k++) s += A[r * w + off + k] * x[k]; out[r] = s; }
}"""

MUTANTS_2D = {
    COLSUMS: [  # transposed reads
        COLSUMS.replace("A[i * n + j]", "A[j * n + i]"),  # rows instead of columns
        COLSUMS.replace("i < m", "i < m - 1"),
        COLSUMS.replace("A[i * n + j]", "A[i * n + j + 1]"),
    ],
    WINDOW: [  # strided reads at a symbolic offset
        WINDOW.replace("off + k", "off + k + 1"),
        WINDOW.replace("r * w", "r * len"),
        WINDOW.replace("* x[k]", "* x[k + 1]"),
    ],
    GEMV: [
        GEMV.replace("i < M", "i < M - 1"),  # off-by-one outer bound
        GEMV.replace("A[i * N + j] * x[j]", "A[i * N + j] + x[j]"),  # * → +
        GEMV.replace("int s = 0", "int s = 1"),  # wrong constant
    ],
    MATADD: [
        MATADD.replace("+= b", "-= b"),
        MATADD.replace("i < m", "i <= m"),
    ],
}


@pytest.mark.parametrize(("original", "mutant"), [(o, m) for o, ms in MUTANTS_2D.items() for m in ms])
def test_mutated_nest_does_not_verify_against_original_summary(original: str, mutant: str) -> None:
    from tenspiler.vc.analyze import analyze_kernel

    k0 = analyze_kernel(parse_c_source(original))
    syn = synthesize(k0)
    km = analyze_kernel(parse_c_source(mutant))
    with pytest.raises(VerificationError):
        prove(km, syn.candidate, ps=syn.summary)
    examples = random_examples(km, np.random.default_rng(1), 30)
    with pytest.raises(VerificationError) as info:
        verify(km, syn.candidate, examples, ps=syn.summary)
    assert info.value.clause == "concrete" and info.value.counterexample is not None


def test_submatrix_walk_is_lifted_as_a_submatrix() -> None:
    """An inner bound that differs from the row stride walks a submatrix: lifted with the
    row stride kept apart from the row length, never to the full-matrix summary."""
    from tenspiler.ir.printer import show_summary
    from tenspiler.vc.analyze import analyze_kernel

    k = analyze_kernel(parse_c_source(GEMV.replace("j < N", "j < N - 1")))
    syn = synthesize(k)
    assert show_summary(syn.summary) == "y[0:M] = reduce_rows(tensor_tensor(matrix(A, M, (N - 1), N), take(x, (N - 1)), *))"


def test_nest_invariant_and_summary_golden(golden) -> None:  # type: ignore[no-untyped-def]
    from tenspiler.ir.printer import show_summary
    from tenspiler.vc.analyze import analyze_kernel

    k = analyze_kernel(parse_c_source(GEMV, "gemv.c"))
    syn = synthesize(k)
    text = show_summary(syn.summary) + "\n" + "\n".join(k.invariants(syn.candidate)) + "\n"
    golden("tensir/gemv_nest.txt", text)
    golden("smt/gemv_nest.smt2", k.vc(syn.candidate).script())


DARKEN = """void darken(unsigned char *b, unsigned char *a, unsigned char *o, int n) {
  for (int i = 0; i < n; i++) o[i] = b[i] > a[i] ? a[i] : b[i];
}"""
RELU = """void relu(float *x, float *y, int n) { for (int i = 0; i < n; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f; }"""

SUMEXP = """float sum_exp(float *x, float m, int n) { float s = 0.0f; for (int i = 0; i < n; i++) s += expf(x[i] - m); return s; }"""

MAXV = """int max_val(int *a, int n) { int m = -1000; for (int i = 0; i < n; i++) { if (a[i] > m) m = a[i]; } return m; }"""

MUTANTS_SELECT_FLOAT = {
    MAXV: [MAXV.replace("int m = -1000", "int m = -999"), MAXV.replace("m = a[i]; }", "m = a[i] + 1; }")],
    SUMEXP: [SUMEXP.replace("expf(x[i] - m)", "expf(x[i]) - m"), SUMEXP.replace("expf", "sqrtf")],
    # (b > a + 0 vs b >= a + 1 would be an equivalent "mutant": it verifies, rightly)
    DARKEN: [DARKEN.replace("b[i] > a[i]", "b[i] < a[i]"), DARKEN.replace("? a[i] : b[i]", "? a[i] : a[i]")],
    RELU: [RELU.replace("0.0f ? x[i] : 0.0f", "0.0f ? x[i] : 0.5f"), RELU.replace("x[i] > 0.0f", "x[i] < 0.0f")],
}


@pytest.mark.parametrize(("original", "mutant"), [(o, m) for o, ms in MUTANTS_SELECT_FLOAT.items() for m in ms])
def test_mutated_select_and_float_kernels_do_not_verify(original: str, mutant: str) -> None:
    k0 = analyze(parse_c_source(original))
    syn = synthesize(k0)
    km = analyze(parse_c_source(mutant))
    # not verified: a clause not unsat, or (on a loaded machine) one the wall-clock safety
    # net stopped — a clause out of resources is also run in its second form
    with pytest.raises((VerificationError, WallClockTimeout)):
        prove(km, syn.candidate, ps=syn.summary)
    examples = random_examples(km, np.random.default_rng(1), 30)
    with pytest.raises(VerificationError) as info:
        verify(km, syn.candidate, examples, ps=syn.summary)
    assert info.value.counterexample is not None


def test_float_model_is_an_assumption_also_with_integer_parameters() -> None:
    """A kernel whose parameters are all integers but which computes in float (a local, a
    cast) is proved over the reals as well: the assumption is listed."""
    from tenspiler.vc.conditions import input_assumptions

    with_float = parse_c_source(
        "int f(int n, int *a) { float s = 0; for (int i = 0; i < n; i++) s += a[i] * 0.5f; return (int)s; }", "f.c")
    ints_only = parse_c_source("int g(int n, int *a) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }", "g.c")
    assert any("real numbers" in text and "not NaN" in text for text, _ in input_assumptions(with_float))
    assert not any("real numbers" in text for text, _ in input_assumptions(ints_only))
