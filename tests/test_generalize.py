"""Literal loop sizes generalised to size parameters (``tenspiler/vc/generalize.py``): the
rewritten function at the literal sizes is the source, which sizes are generalised, the
summary stated at the literal sizes, the trip counts the proof assumes, and the plain GEMM
with literal sizes lifted and checked end to end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tenspiler.frontend.c import parse_c_source
from tenspiler.ir.terms import Lit, ScalarVar
from tenspiler.loops.interp import run_function
from tenspiler.loops.ir import DType
from tenspiler.pipeline import lift_file
from tenspiler.vc.analyze import analyze_kernel
from tenspiler.vc.generalize import GENERALIZE_ABOVE, AtSizes, generalize_sizes, literal_iterations

ROOT = Path(__file__).resolve().parent.parent
GEMM = ROOT / "tests" / "kernels" / "gemm_literal.c"

# the literal 7 is a bound (j <= 6), an index stride and a value; 5 a bound; 3 only a value
MIXED = """
void mixed(const int *a, int *out, int n) {
    for (int i = 0; i < 5; i++)
        for (int j = 0; j <= 6; j++)
            out[i * 7 + j] = a[i * 7 + j] * 3 + 7 + n;
}
"""


def test_the_generalised_function_at_the_literal_sizes_is_the_source() -> None:
    fn = parse_c_source(MIXED, "mixed.c")
    gen = generalize_sizes(fn, above=0)
    assert gen is not None
    assert dict(gen.sizes) == {"size_5": 5, "size_7": 7}  # (j <= 6 is j < 7 in the loop IR)
    assert [p.name for p in gen.fn.params] == ["a", "out", "n", "size_5", "size_7"]
    rng = np.random.default_rng(0)
    for _ in range(20):
        inputs = {"a": rng.integers(-50, 50, 60), "out": rng.integers(-50, 50, 60), "n": int(rng.integers(-9, 9))}
        want = run_function(fn, inputs)
        got = run_function(gen.fn, {**inputs, **gen.sizes})
        assert np.array_equal(want["out"], got["out"])
        # and another size is another program: the rewrite did replace the literals
        other = run_function(gen.fn, {**inputs, **gen.sizes, "size_7": 8})
        assert not np.array_equal(want["out"], other["out"])


def test_only_costly_literal_sizes_are_generalised_largest_first() -> None:
    small = parse_c_source(MIXED, "mixed.c")
    assert literal_iterations(small.body) == 35
    assert generalize_sizes(small) is None  # lifted as written, as before
    three = parse_c_source("""
void f(const int *a, int *out) {
    for (int i = 0; i < 300; i++)
        for (int j = 0; j < 300; j++)
            for (int c = 0; c < 3; c++)
                out[(i * 300 + j) * 3 + c] = a[(i * 300 + j) * 3 + c] + 1;
}
""", "three.c")
    assert literal_iterations(three.body) == 270_000 > GENERALIZE_ABOVE
    gen = generalize_sizes(three)
    assert gen is not None and dict(gen.sizes) == {"size_300": 300}  # the channels stay literal
    assert literal_iterations(gen.fn.body) == 3


def test_names_do_not_capture_the_users() -> None:
    fn = parse_c_source("void f(int *a, int size_100) { for (int i = 0; i < 100; i++) a[i] = size_100; }", "f.c")
    gen = generalize_sizes(fn, above=0)
    assert gen is not None and dict(gen.sizes) == {"_size_100": 100}


def test_trip_counts_the_source_does_not_check_are_named() -> None:
    fn = parse_c_source("void f(int *a, int n) { for (int i = 0; i < 100; i++) a[i] = n; }", "f.c")
    gen = generalize_sizes(fn, above=0)
    assert gen is not None
    s, n = ScalarVar("size_100", DType.INT), ScalarVar("n", DType.INT)
    zero = Lit(0, DType.INT)
    assert gen.uncovered_trip_counts([(zero, s, "trips")], []) == []  # 0 <= 100 holds
    assert gen.uncovered_trip_counts([(Lit(200, DType.INT), s, "rows")], []) == ["rows: 200 <= 100"]
    assert gen.uncovered_trip_counts([(zero, n, "n")], []) == ["n: 0 <= n"]
    assert gen.uncovered_trip_counts([(zero, n, "n")], [(zero, n, "source")]) == []


def test_check_inputs_are_drawn_at_the_literal_sizes() -> None:
    fn = parse_c_source(GEMM.read_text(), str(GEMM))
    gen = generalize_sizes(fn)
    assert gen is not None and dict(gen.sizes) == {"size_40": 40}
    at = AtSizes(analyze_kernel(gen.fn), gen)
    from tenspiler.vc.concrete import random_examples

    exs = random_examples(at, np.random.default_rng(0), 3)
    assert len(exs) == 3
    for e in exs:
        assert set(e.inputs) == {"A", "B", "C"} and all(len(e.inputs[a]) >= 1600 for a in "ABC")
        assert e.final == {}  # not interpreted


def test_the_plain_gemm_with_literal_sizes_lifts_and_checks(tmp_path: Path) -> None:
    res = lift_file(GEMM, ("numpy",), out_dir=tmp_path, check=True)
    assert res.status == "verified", res.message
    assert res.summary == "C[0:(40 * 40)] = flatten(matmul(matrix(A, 40, 40), matrix(B, 40, 40)))"
    assert any("size_40 = 40" in a for a in res.assumptions)
    assert res.check is not None
    assert "skipped" in res.check["loop-ir"]
    assert res.check["numpy"]["ok"] and res.check["numpy"]["passed"] >= 8


@pytest.mark.parametrize(("mutation", "summary"), [
    # the literal as a value too
    (("C[i * 40 + j] = s;", "C[i * 40 + j] = s + 40;"),
     "C[0:(40 * 40)] = flatten(tensor_scalar(matmul(matrix(A, 40, 40), matrix(B, 40, 40)), 40, +))"),
    # another row stride (the check's arrays grow until the proof's preconditions admit them)
    (("B[k * 40 + j]", "B[k * 41 + j]"),
     "C[0:(40 * 40)] = flatten(matmul(matrix(A, 40, 40), matrix(B, 40, 40, 41)))"),
])
def test_variants_are_lifted_for_what_they_compute(mutation: tuple[str, str], summary: str, tmp_path: Path) -> None:
    text = GEMM.read_text()
    assert mutation[0] in text
    src = tmp_path / "variant.c"
    src.write_text(text.replace(*mutation))
    res = lift_file(src, ("numpy",), out_dir=tmp_path / "out", check=True)
    assert res.status == "verified", res.message
    assert res.summary == summary
    assert res.check is not None and res.check["numpy"]["ok"] and res.check["numpy"]["passed"] >= 8


def test_trip_counts_fold_products_quotients_and_strides() -> None:
    product = parse_c_source("void f(int *a) { for (int i = 0; i < 150 * 2; i++) for (int j = 0; j < 300; j++) a[i * 300 + j] = 1; }",
                             "f.c")
    assert literal_iterations(product.body) == 90_000
    gen = generalize_sizes(product)
    assert gen is not None and dict(gen.sizes) == {"size_150": 150, "size_300": 300}
    strided = parse_c_source("void f(int *a) { for (int i = 0; i < 90000; i += 300) a[i] = 1; }", "f.c")
    assert literal_iterations(strided.body) == 300  # (90000 + 299) / 300 iterations


def test_a_check_larger_than_its_budget_is_refused_by_name(tmp_path: Path) -> None:
    src = tmp_path / "huge.c"
    src.write_text("void huge(const float *a, float *out) {\n  for (int i = 0; i < 5000000; i++)\n    out[i] = a[i] * 2.0f;\n}\n")
    res = lift_file(src, ("numpy",), out_dir=tmp_path / "o", check=True)
    assert res.status == "not_lifted" and "--no-check" in res.message and "5,000,008 elements" in res.message
    assert not (tmp_path / "o").exists()  # nothing written
    res = lift_file(src, ("numpy",), out_dir=tmp_path / "o")
    assert res.status == "verified", res.message
    assert res.summary == "out[0:5000000] = tensor_scalar(take(a, 5000000), 2.0, *)"


def test_a_refusal_names_what_the_generalised_sizes_stand_for(tmp_path: Path) -> None:
    src = tmp_path / "stride.c"  # row stride 301 over rows of 300: not the nest's i*n + j
    src.write_text("void stride(int *a, int *out) {\n  for (int i = 0; i < 300; i++)\n    for (int j = 0; j < 300; j++)\n"
                   "      out[i * 301 + j] = a[i * 301 + j] + 1;\n}\n")
    res = lift_file(src, ("numpy",), out_dir=tmp_path / "o")
    assert res.status == "not_lifted"
    assert "size_300 stands for the literal 300" in res.message, res.message
