"""Running minima (``x = F < x ? F : x`` in any spelling): synthesised as the negated
running maximum of the negated values (exact on the model's integers and reals), so the
proofs reuse the maximum's definition. Running products (``p *= a[i]``: ``reduce_prod``).
End-to-end lifts, the recognised spellings, mutants that must not verify with the original's
candidate, and the refusals."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tenspiler.errors import VerificationError
from tenspiler.frontend.c import parse_c_file, parse_c_source
from tenspiler.ir.interp import evaluate
from tenspiler.loops.ir import DType
from tenspiler.pipeline import lift_file
from tenspiler.synth.search import synthesize
from tenspiler.vc.analyze import analyze_kernel
from tenspiler.vc.updates import maximum_part, minimum_part
from tenspiler.verify.verifier import prove
from tests.lifting import assert_lifts

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks" / "kernels" / "reductions"
KERNELS = ROOT / "tests" / "kernels" / "reductions"


@pytest.mark.parametrize("path", sorted(BENCH.iterdir()), ids=lambda p: p.name)
def test_minimum_kernels_verify_check_and_recheck(path: Path, tmp_path: Path) -> None:
    assert_lifts(path, tmp_path)


@pytest.mark.parametrize(
    ("update", "is_min"),
    [
        ("if (a[i] < m) m = a[i];", True),
        ("if (a[i] <= m) m = a[i];", True),
        ("m = a[i] < m ? a[i] : m;", True),
        ("m = m > a[i] ? a[i] : m;", True),
        ("m = m < a[i] ? m : a[i];", True),
        ("if (a[i] > m) m = a[i];", False),
        ("m = a[i] > m ? m : a[i];", True),
        ("m = a[i] < m ? m : a[i];", False),
    ],
)
def test_minimum_spellings(update: str, is_min: bool) -> None:
    src = f"int f(int *a, int n) {{ int m = a[0]; for (int i = 1; i < n; i++) {{ {update} }} return m; }}"
    k = analyze_kernel(parse_c_source(src, "f.c"))
    (s,) = k.scalars
    assert (minimum_part(s) is not None) == is_min
    assert not (minimum_part(s) is not None and maximum_part(s) is not None)


@pytest.mark.parametrize("mutant", ["min_as_max.c", "min_from_two.c"])
def test_mutants_do_not_verify_with_the_minimums_candidate(mutant: str) -> None:
    k = analyze_kernel(parse_c_file(BENCH / "min_int.c"))
    cand = synthesize(k).candidate
    km = analyze_kernel(parse_c_file(KERNELS / mutant))
    with pytest.raises(VerificationError):
        prove(km, cand)


def test_long_minimum_is_not_emitted(tmp_path: Path) -> None:
    res = lift_file(KERNELS / "min_long.c", ("numpy",), out_dir=tmp_path, check=False)
    assert res.status == "not_lifted"
    assert "can exceed 64 bits" in res.message


# ---------------------------------------------------------------- running products


@pytest.mark.parametrize("values", [[], [3], [2, -5, 7], [0, 4], [-1, -1, -1]])
def test_reduce_prod_interpreter_and_smt_agree(values: list[int]) -> None:
    """``reduce_prod`` (1 for an empty tensor, exact integers) in the interpreter equals its
    recursive SMT definition on concrete arrays; the value off by one is refuted."""
    from tenspiler.ir.smt import SmtEncoder
    from tenspiler.ir.terms import Lit, ReduceProd, Take, TensorVar
    from tenspiler.verify.certificate import recheck_text

    t = ReduceProd(Take(TensorVar("a", DType.INT), Lit(len(values), DType.INT)), DType.INT)
    want = evaluate(t, {"a": np.array([*values, 9], dtype=np.int64)})
    assert want == (int(np.prod(values)) if values else 1)
    arr = "((as const (Array Int Int)) 9)"
    for i, v in enumerate(values):
        arr = f"(store {arr} {i} {v})"
    enc = SmtEncoder({"a": "a"})
    value = enc.scalar(t)
    for claim, expect in ((f"(not (= {value} {want}))", "unsat"), (f"(= {value} {want + 1})", "unsat")):
        script = "\n".join(["(set-logic ALL)", "(set-option :arrays-exp true)",
                            f"(define-fun a () (Array Int Int) {arr})", *enc.definitions,
                            f"(assert {claim})", "(check-sat)"])
        assert recheck_text(script) == [expect]


@pytest.mark.parametrize("update", ["p = p + a[i];", "p = p * a[i + 1];", "p = p * a[i] * a[i];"])
def test_mutants_of_a_product_do_not_verify_with_its_summary(update: str) -> None:
    """The proved candidate of ``p *= a[i]`` against mutated updates (a sum, an index off by
    one, a square): some clause must fail."""
    k = analyze_kernel(parse_c_file(BENCH / "product_int.c"))
    cand = synthesize(k).candidate
    src = (BENCH / "product_int.c").read_text().replace("p *= a[i];", update)
    km = analyze_kernel(parse_c_source(src, "mutant.c"))
    with pytest.raises(VerificationError):
        prove(km, cand)


def test_a_product_from_another_start_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "prod_start.c"
    src.write_text("int f(int n, int s, int *a) { int p = s; for (int i = 0; i < n; i++) p *= a[i]; return p; }\n")
    res = lift_file(src, ("numpy",), out_dir=tmp_path / "out")
    assert res.status == "not_lifted" and "starting from a value other than 1" in res.message


# (an unsigned char accumulator, `unsigned char s; s += a[i];`, reduces the integer sum modulo
# 256 at every step, which is the whole sum reduced once: modelled, tests/kernels/ints/u8_sum_wrap.c;
# a float one of double terms, `float s; s += exp(a[i]);`, is over the reals the reduction of
# the terms: tests/kernels/mathc/sq_dev_float.c)


@pytest.mark.parametrize("mutation", [
    ("if (a[i] > 0.0f)", "if (a[i] >= 0.0f)"),   # the guard's bound
    ("if (a[i] > 0.0f)", "if (a[i] < 0.0f)"),    # the guard inverted
    ("      p *= a[i];", "      p *= a[i] + 1.0f;"),  # another factor
])
def test_mutants_of_a_guarded_product_do_not_verify_with_its_summary(mutation: tuple[str, str]) -> None:
    """``if (c) p *= F`` is the product of ``c ? F : 1``: its proved candidate against
    mutated guards and factors."""
    path = BENCH / "product_positive.c"
    text = path.read_text()
    assert mutation[0] in text
    cand = synthesize(analyze_kernel(parse_c_file(path))).candidate
    km = analyze_kernel(parse_c_source(text.replace(mutation[0], mutation[1]), "mutant.c"))
    with pytest.raises(VerificationError):
        prove(km, cand)
