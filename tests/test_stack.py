"""``stack(r < n: body)``, the map over a new leading axis that block loops lift to when no
other 2-D term expresses their rows (2-D convolutions: a window of a wider matrix per
output element). Its interpreter against its SMT encoding (cvc5), binding (no capture by
the row variables of nested row reductions), printing, NumPy code (and the array backends'
code), and mutants of a 2-D convolution that must not verify."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tenspiler.codegen import op_key
from tenspiler.frontend.c import parse_c_file
from tenspiler.ir.interp import evaluate
from tenspiler.ir.printer import show
from tenspiler.ir.smt import SmtEncoder
from tenspiler.ir.terms import (
    Flatten,
    Lit,
    Matrix,
    ReduceRows,
    ReduceSum,
    ScalarOp,
    ScalarVar,
    Slice,
    Stack,
    Tail,
    TensorScalar,
    TensorTensor,
    TensorVar,
    free_vars,
    row,
    substitute,
)
from tenspiler.loops.ir import DType
from tenspiler.synth.search import synthesize
from tenspiler.vc.analyze import analyze_kernel
from tenspiler.vc.conditions import matrix_element
from tenspiler.verify.certificate import recheck_text
from tests.lifting import assert_mutant_not_verified

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks" / "kernels" / "windows"
INT = DType.INT
R = "$s:r"


def _window_sums(n: int, k: int, stride: int) -> Stack:
    """Element r: the sum of the k x k window of a (row stride ``stride``) at offset r."""
    a = TensorVar("a", INT)
    win = Matrix(Tail(a, ScalarVar(R, INT)), Lit(k, INT), Lit(k, INT), Lit(stride, INT))
    return Stack(R, Lit(n, INT), ReduceSum(ReduceRows(win, INT), INT))


def _rows_of_prefix_sums(n: int, c: int) -> Stack:
    """Row r: a[r*c : r*c + c] times r (a 2-D stack)."""
    r = ScalarVar(R, INT)
    lo = ScalarOp("*", r, Lit(c, INT), INT)
    part = Slice(TensorVar("a", INT), lo, ScalarOp("+", lo, Lit(c, INT), INT))
    from tenspiler.ir.terms import TensorScalar

    return Stack(R, Lit(n, INT), TensorScalar("*", part, r, False, INT))


def _smt_array(values: list[int]) -> str:
    arr = "((as const (Array Int Int)) 0)"
    for i, v in enumerate(values):
        arr = f"(store {arr} {i} {v})"
    return arr


def _holds(claim: str, enc: SmtEncoder, values: list[int]) -> bool:
    script = "\n".join(["(set-logic ALL)", "(set-option :arrays-exp true)", f"(define-fun a () (Array Int Int) {_smt_array(values)})",
                        *enc.definitions, f"(assert (not {claim}))", "(check-sat)"])
    return recheck_text(script) == ["unsat"]


@settings(max_examples=12, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=12, max_size=12), st.integers(0, 3), st.integers(0, 2),
       st.integers(2, 3))
def test_stack_interpreter_and_smt_agree(values: list[int], n: int, k: int, stride: int) -> None:
    t = _window_sums(n, k, stride)
    got = evaluate(t, {"a": np.array(values, dtype=np.int64)})
    want = [sum(values[r + p * stride + q] for p in range(k) for q in range(k)) for r in range(n)]
    assert got.tolist() == want
    enc = SmtEncoder({"a": "a"})
    for r in range(n):
        assert _holds(f"(= {enc.at(t, str(r))} {want[r]})", enc, values)
    if n:  # and not another value
        assert not _holds(f"(= {enc.at(t, '0')} {want[0] + 1})", enc, values)


def test_a_2d_stack_by_rows_in_the_interpreter_and_smt() -> None:
    values = list(range(1, 13))
    t = _rows_of_prefix_sums(3, 4)
    got = evaluate(t, {"a": np.array(values, dtype=np.int64)})
    assert got.shape == (3, 4) and got.tolist() == [[values[r * 4 + c] * r for c in range(4)] for r in range(3)]
    assert evaluate(Stack(R, Lit(0, INT), t.body), {"a": np.array(values)}).shape == (0, 4)
    enc = SmtEncoder({"a": "a"})
    for r in range(3):
        for c in range(4):
            assert _holds(f"(= {matrix_element(enc, t, str(r), str(c))} {values[r * 4 + c] * r})", enc, values)
    flat = Flatten(Matrix(_window_sums(3, 1, 1), Lit(3, INT), Lit(1, INT)))  # one column: its elements
    assert _holds(f"(= {enc.at(flat, '2')} {values[2]})", enc, values)


def test_the_row_variable_is_bound() -> None:
    t = _window_sums(3, 2, 4)
    assert R not in free_vars(t) and free_vars(t) == {"a"}
    assert substitute(t, {R: Lit(7, INT)}) == t  # not replaced inside
    assert substitute(t, {"a": TensorVar("b", INT)}) == _window_sums(3, 2, 4).__class__(
        R, Lit(3, INT), substitute(t.body, {"a": TensorVar("b", INT)}))
    assert row(_rows_of_prefix_sums(3, 4), Lit(1, INT)) == substitute(_rows_of_prefix_sums(3, 4).body, {R: Lit(1, INT)})


def test_nested_row_reductions_do_not_capture_the_row() -> None:
    """matrix_element binds a row name, ReduceRows binds one, the stack binds its own: an
    element of a 2-D stack whose rows are row sums of a window, at (1, 0), is the sum of the
    window at row 1's offset (a capture would read another row)."""
    a = TensorVar("a", INT)
    r, c = ScalarVar(R, INT), ScalarVar("$s:c", INT)
    win = Matrix(Tail(a, ScalarOp("+", ScalarOp("*", r, Lit(5, INT), INT), c, INT)), Lit(2, INT), Lit(2, INT), Lit(3, INT))
    inner = Stack("$s:c", Lit(2, INT), ReduceSum(ReduceRows(win, INT), INT))
    t = Stack(R, Lit(2, INT), inner)
    values = list(range(20))
    got = evaluate(t, {"a": np.array(values)})
    enc = SmtEncoder({"a": "a"})
    for i in range(2):
        for j in range(2):
            assert _holds(f"(= {matrix_element(enc, t, str(i), str(j))} {int(got[i, j])})", enc, values)


def test_printer_and_op_key() -> None:
    assert show(_window_sums(3, 2, 4)) == "stack(r < 3: reduce_sum(reduce_rows(matrix(tail(a, r), 2, 2, 4))))"
    assert op_key(_window_sums(3, 2, 4)) == "stack"


@pytest.mark.parametrize("n", [0, 1, 4])
def test_numpy_code_of_a_stack(n: int, tmp_path: Path) -> None:
    from tenspiler.api import lift

    res = lift(BENCH / "conv2d_row.c", to=("numpy",), check=False)
    assert "stack(j < ow:" in res.summary
    ns: dict[str, object] = {}
    exec(res.code["numpy"], ns)
    k, width = 2, n + 1
    rng = np.random.default_rng(n)
    x = rng.integers(-9, 9, 2 * width + 4).astype(np.float32)
    w = rng.integers(-9, 9, 4).astype(np.float32)
    got = ns["conv2d_row"](n, k, width, x, w, np.zeros(max(n, 1), np.float32))
    want = [sum(x[a * width + j + b] * w[a * k + b] for a in range(k) for b in range(k)) for j in range(n)]
    assert np.allclose(np.asarray(got)[:n], want)


def _stack_cases() -> dict[str, object]:
    """NumPy: a generic stack (a comprehension) and the vectorised window products."""
    from tests.test_backends import K, W, lit, tv
    from tests.test_backends import R as ROWS

    r = ScalarVar("$s:r", INT)
    win = Matrix(Tail(tv("f"), r), K, K, W)
    weights = Matrix(tv("g"), K, K)
    return {
        "generic (a sum over a window, scaled)": (Stack("$s:r", ROWS, ScalarOp(
            "*", ReduceSum(ReduceRows(win, DType.FLOAT), DType.FLOAT), lit(0.5, DType.FLOAT), DType.FLOAT)), "of", ROWS),
        "window products": (Stack("$s:r", ROWS, ReduceSum(ReduceRows(
            TensorTensor("*", win, weights, DType.FLOAT), DType.FLOAT), DType.FLOAT)), "of", ROWS),
        "int rows of a slice times the row": (Flatten(Stack("$s:r", ROWS, TensorScalar(
            "*", Slice(tv("a"), r, ScalarOp("+", r, K, INT)), r, False, INT))), "oi", ScalarOp("*", ROWS, K, INT)),
    }


def test_numpy_stacks_match_the_interpreter() -> None:
    from tenspiler.codegen import get_backend
    from tests.test_backends import close, expected, load, op_inputs, op_summary

    cases = _stack_cases()
    entries = {}
    for name, case in cases.items():
        fn, ps = op_summary(case)  # type: ignore[arg-type]
        entries[name] = (fn, ps, load(get_backend("numpy").generate(fn, ps))["op"])
    checked = dict.fromkeys(cases, 0)

    @settings(max_examples=40, deadline=None)
    @given(env=op_inputs())
    def run(env: dict[str, object]) -> None:
        for name, (fn, ps, f) in entries.items():
            want = expected(fn, ps, env)  # type: ignore[arg-type]
            if want is None:
                continue
            got = f(*(env[p.name] for p in fn.params))
            (w, dtype), = want
            assert close(w, np.asarray(got), dtype, True), name
            checked[name] += 1

    run()
    assert all(checked.values()), checked


@pytest.mark.parametrize("backend", ["torch", "jax", "mlx", "tensorflow"])
def test_array_backends_compute_a_stack(backend: str) -> None:
    """A 2-D convolution's stack is computed by the library at once (the windows gathered
    at index arrays, no loop over the rows); a body the batching does not cover (a slice
    whose bounds move with the row, times the row) is a comprehension stacked by the
    library. Their values: tests/test_backends.py (``stack`` cases of every op test)."""
    from tenspiler.codegen import get_backend

    b = get_backend(backend)
    fn = parse_c_file(BENCH / "conv2d_row.c")
    ps = synthesize(analyze_kernel(fn)).summary
    text = b.generate(fn, ps).text
    assert " for _" not in text and b.sp.arange.split("(")[0] in text and "NumPy host code" not in text
    from tests.test_backends import op_summary

    case = Flatten(Stack(R, ScalarVar("n", INT), TensorScalar(
        "*", Slice(TensorVar("a", INT), ScalarVar(R, INT), ScalarOp("+", ScalarVar(R, INT), Lit(2, INT), INT)),
        ScalarVar(R, INT), False, INT)))
    fn2, ps2 = op_summary((case, "oi", ScalarOp("*", ScalarVar("n", INT), Lit(2, INT), INT)))
    text = b.generate(fn2, ps2).text
    assert " for _r in range(n)" in text and "stack(" in text and "NumPy host code" not in text


@pytest.fixture(scope="module")
def conv_proof() -> tuple[object, object]:
    k = analyze_kernel(parse_c_file(BENCH / "conv2d_valid.c"))
    syn = synthesize(k)
    return syn.candidate, syn.summary


CONV = (BENCH / "conv2d_valid.c").read_text()


@pytest.mark.parametrize("mutation", [
    ("img[(i + a) * iw + (j + b)]", "img[(i + a) * iw + (j + b + 1)]"),  # index off by one
    ("img[(i + a) * iw + (j + b)]", "img[(i + b) * iw + (j + a)]"),      # the window transposed
    ("img[(i + a) * iw + (j + b)]", "img[(i + a) * ow + (j + b)]"),      # the wrong row stride
    ("ker[a * k + b]", "ker[b * k + a]"),                                # the kernel transposed
    ("b < k; b++", "b < k - 1; b++"),                                    # a wrong bound
    ("out[i * ow + j] = acc;", "out[i * ow + j] = acc + 1.0f;"),         # the stored value
    ("out[i * ow + j]", "out[j * oh + i]"),                              # the output transposed
], ids=["off-by-one", "transposed-window", "stride", "transposed-kernel", "bound", "value", "output"])
def test_mutants_of_a_2d_convolution_do_not_verify(mutation: tuple[str, str], conv_proof: tuple[object, object]) -> None:
    cand, ps = conv_proof
    assert_mutant_not_verified(CONV, mutation, cand, ps)


def test_rows_of_no_element_read_nothing(tmp_path: Path) -> None:
    """A stack of rows of ``N = 0`` elements (a shifted GEMM's product over no column): C
    reads no row of ``A``, so the generated code must not either — ``A`` may be shorter
    than a row (found by the red team: a broadcast error before)."""
    import importlib.util

    from tenspiler.pipeline import lift_file

    src = ROOT / "tests" / "kernels" / "blocks" / "gemm_a_offbyone.c"
    res = lift_file(src, ("numpy",), out_dir=tmp_path)
    assert res.status == "verified" and res.summary is not None and "stack(" in res.summary
    spec = importlib.util.spec_from_file_location("gemm_gen", tmp_path / "gemm_nn.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    c = np.array([1, -5, -2, 8, 6, -4])
    got = mod.gemm_nn(1, 0, 5, np.array([-8, 5, -2, 0, -3]), np.array([-7]), c)
    assert np.array_equal(np.asarray(got), c)
