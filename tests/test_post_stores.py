"""Stores after a single loop (``*result = s;``, ``out[k] = best;``): each becomes an output
``array[index:index+1] = full(1, value)`` of the summary, proved by the post clause over the
loop's exit state. (The kernels ``benchmarks/kernels/reductions/*_out.c`` are lifted,
checked and re-checked by ``test_min_reduction.py``.) Mutants that must not verify with the
original's candidate, the stated assumption, and the refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from tenspiler.errors import VerificationError
from tenspiler.frontend.c import parse_c_file, parse_c_source
from tenspiler.pipeline import lift_file
from tenspiler.synth.search import synthesize
from tenspiler.vc.analyze import analyze_kernel
from tenspiler.vc.kernel import LoopKernel
from tenspiler.verify.verifier import prove

ROOT = Path(__file__).resolve().parent.parent
DOT = ROOT / "benchmarks" / "kernels" / "reductions" / "dot_out.c"


def test_a_store_after_the_loop_is_an_output_of_one_element(tmp_path: Path) -> None:
    res = lift_file(DOT, ("numpy",), out_dir=tmp_path)
    assert res.status == "verified", res.message
    assert res.summary == "result[0:1] = full(1, reduce_sum(tensor_tensor(take(x, n), take(y, n), *)))"
    assert "result has an element at index 0, which the code after the loop writes" in res.assumptions


@pytest.mark.parametrize("mutation", [
    ("*result = s;", "*result = s + 1.0f;"),     # another value
    ("*result = s;", "result[1] = s;"),          # another element
    ("*result = s;", "*result = n > 0 ? s : 1.0f;"),  # differs only for an empty loop
    ("s += x[i] * y[i];", "s += x[i] * y[i + 1];"),   # the loop's index off by one
])
def test_mutants_do_not_verify_with_the_candidate(mutation: tuple[str, str]) -> None:
    text = DOT.read_text()
    assert mutation[0] in text
    cand = synthesize(analyze_kernel(parse_c_file(DOT))).candidate
    km = analyze_kernel(parse_c_source(text.replace(mutation[0], mutation[1]), "mutant.c"))
    assert isinstance(km, LoopKernel)
    with pytest.raises(VerificationError):  # the mutant's VC with the original's summary
        prove(km, cand, ps=analyze_kernel(parse_c_file(DOT)).summary(cand))


@pytest.mark.parametrize(("body", "reason"), [
    ("out[s] = 1;", "at an index the loop computes"),
    ("out[0] = s; out[1] = s;", "written more than once after the loop"),
    ("out[n - n] = s; out[0] = 0;", "written more than once after the loop"),  # (one constant element merges)
    ("out[0] = a[0];", "reading an array after the loop"),
])
def test_refusals_name_the_reason(body: str, reason: str, tmp_path: Path) -> None:
    src = tmp_path / "post.c"
    src.write_text(f"void f(int n, int *a, int *out) {{ int s = 0; for (int i = 0; i < n; i++) s += a[i]; {body} }}\n")
    res = lift_file(src, ("numpy",), out_dir=tmp_path / "out")
    assert res.status == "not_lifted" and reason in res.message, res.message


def test_an_array_the_loop_writes_is_not_written_again_after_it(tmp_path: Path) -> None:
    src = tmp_path / "post.c"
    src.write_text("void f(int n, int *a) { for (int i = 0; i < n; i++) a[i] = 2 * a[i]; a[0] = 7; }\n")
    res = lift_file(src, ("numpy",), out_dir=tmp_path / "out")
    assert res.status == "not_lifted" and "written by the loop and again after it" in res.message


def test_a_store_after_a_loop_nest(tmp_path: Path) -> None:
    src = tmp_path / "total.c"
    src.write_text("void total(int m, int n, const int *A, int *out) { int s = 0; for (int i = 0; i < m; i++) "
                   "for (int j = 0; j < n; j++) s += A[i * n + j]; *out = s; }\n")
    res = lift_file(src, ("numpy",), out_dir=tmp_path / "out", check=True)
    assert res.status == "verified", res.message
    assert res.summary == "out[0:1] = full(1, reduce_sum(take(A, (m * n))))"
    assert res.check is not None and all(c["ok"] for c in res.check.values())
