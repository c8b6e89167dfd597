"""Running minima (``x = F < x ? F : x`` in any spelling): synthesised as the negated
running maximum of the negated values (exact on the model's integers and reals), so the
proofs reuse the maximum's definition. End-to-end lifts, the recognised spellings, mutants
that must not verify with the original's candidate, and the int64 refusal."""

from __future__ import annotations

from pathlib import Path

import pytest

from tenspiler.errors import VerificationError
from tenspiler.frontend.c import parse_c_file, parse_c_source
from tenspiler.pipeline import lift_file
from tenspiler.synth.search import synthesize
from tenspiler.synth.trees import maximum_part, minimum_part
from tenspiler.vc.kernel import analyze_kernel
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
    cand = synthesize(k, timeout=60).candidate
    km = analyze_kernel(parse_c_file(KERNELS / mutant))
    with pytest.raises(VerificationError):
        prove(km, cand, timeout=10)


def test_long_minimum_is_not_emitted(tmp_path: Path) -> None:
    res = lift_file(KERNELS / "min_long.c", ("numpy",), out_dir=tmp_path, check=False)
    assert res.status == "not_lifted"
    assert "can exceed 64 bits" in res.message
