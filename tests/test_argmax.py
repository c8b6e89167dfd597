"""Index of an extremum (``if (a[i] > m) { m = a[i]; best = i; }``): the ``argmax`` op with
C's first-index rule (``>``; ``>=`` keeps the last), its interpreter and recursive SMT
definition against each other and against a plain loop, the recognised spellings, mutants
that must not verify with the original's candidate, and the refusal of the gather form
``a[i] > a[best]``. (The kernels of ``benchmarks/kernels/reductions/argm*`` are lifted, checked
and re-checked by ``test_min_reduction.py``.)"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tenspiler.errors import VerificationError
from tenspiler.frontend.c import parse_c_file, parse_c_source
from tenspiler.ir.interp import evaluate
from tenspiler.ir.printer import show
from tenspiler.ir.smt import SmtEncoder
from tenspiler.ir.terms import ArgMax, Lit, Take, TensorVar
from tenspiler.loops.ir import DType
from tenspiler.pipeline import lift_file
from tenspiler.synth.search import synthesize
from tenspiler.vc.analyze import analyze_kernel
from tenspiler.vc.updates import arg_extremum_part
from tenspiler.verify.certificate import recheck_text
from tenspiler.verify.verifier import prove

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks" / "kernels" / "reductions"
INT = DType.INT


def _loop_argmax(values: list[int], last: bool) -> int:
    best = 0
    for k in range(1, len(values)):
        if values[k] > values[best] or (last and values[k] == values[best]):
            best = k
    return best


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=6), st.booleans())
def test_argmax_interpreter_and_smt_agree_with_the_loop(values: list[int], last: bool) -> None:
    """Small values, so ties are frequent: the first / last maximal index in the interpreter,
    and the SMT definition proves that value and refutes every other index."""
    t = ArgMax(Take(TensorVar("a", INT), Lit(len(values), INT)), INT, last)
    want = _loop_argmax(values, last)
    assert evaluate(t, {"a": np.array([*values, 99], dtype=np.int64)}) == want
    arr = "((as const (Array Int Int)) 99)"
    for i, v in enumerate(values):
        arr = f"(store {arr} {i} {v})"
    enc = SmtEncoder({"a": "a"})
    value = enc.scalar(t)
    claims = [f"(not (= {value} {want}))"] + [f"(= {value} {k})" for k in range(len(values)) if k != want]
    for claim in claims:
        script = "\n".join(["(set-logic ALL)", "(set-option :arrays-exp true)",
                            f"(define-fun a () (Array Int Int) {arr})", *enc.definitions,
                            f"(assert {claim})", "(check-sat)"])
        assert recheck_text(script) == ["unsat"], claim


def test_argmax_printer_and_empty_tensor() -> None:
    a = Take(TensorVar("a", INT), Lit(3, INT))
    assert show(ArgMax(a, INT)) == "argmax(take(a, 3))"
    assert show(ArgMax(a, INT, True)) == "argmax_last(take(a, 3))"
    with pytest.raises(ValueError, match="empty"):
        evaluate(ArgMax(Take(TensorVar("a", INT), Lit(0, INT)), INT), {"a": np.zeros(2, dtype=np.int64)})


@pytest.mark.parametrize(("update", "found"), [
    ("if (a[i] > m) { m = a[i]; best = i; }", ("max", False)),
    ("if (a[i] >= m) { best = i; m = a[i]; }", ("max", True)),
    ("if (m < a[i]) { m = a[i]; best = i; }", ("max", False)),
    ("if (a[i] < m) { m = a[i]; best = i; }", ("min", False)),
    ("if (a[i] <= m) { m = a[i]; best = i; }", ("min", True)),
    ("if (a[i] <= m) { } else { m = a[i]; best = i; }", ("max", False)),
    ("if (a[i] > m) { m = a[i]; best = i - 1; }", ("max", False)),  # a function of the counter
    ("if (a[i] > m) { m = a[i]; best = n; }", None),
    ("if (a[i] > m) { m = a[i + 1]; best = i; }", None),   # m is not a running maximum of a[i]
    ("if (a[i] < m) { m = a[i]; } if (a[i] > m) best = i;", None),  # compares with a minimum
    ("if (a[i + 1] > m) { best = i; } if (a[i] > m) m = a[i];", None),  # another value
])
def test_arg_extremum_spellings(update: str, found: tuple[str, bool] | None) -> None:
    src = f"int f(int *a, int n) {{ int m = a[0]; int best = 0; for (int i = 1; i < n; i++) {{ {update} }} return best; }}"
    k = analyze_kernel(parse_c_source(src, "f.c"))
    best = next(s for s in k.scalars if s.name == "best")
    arg = arg_extremum_part(best, k.scalars, k.var)
    got = None if arg is None else ("max" if arg.bigger else "min", arg.last)
    assert got == found


@pytest.mark.parametrize("mutation", [
    ("if (a[i] > m)", "if (a[i] >= m)"),                     # last index instead of the first
    ("best = i;", "best = i - 1;"),                           # index off by one
    ("for (int i = 1;", "for (int i = 2;"),  # wrong bound (the end bound is the summary's BOUND)
    ("      m = a[i];\n      best = i;\n    }", "      m = a[i];\n    }\n    best = i;"),  # dropped guard
])
def test_mutants_do_not_verify_with_the_argmax_candidate(mutation: tuple[str, str]) -> None:
    text = (BENCH / "argmax_first.c").read_text()
    assert mutation[0] in text
    cand = synthesize(analyze_kernel(parse_c_file(BENCH / "argmax_first.c"))).candidate
    km = analyze_kernel(parse_c_source(text.replace(mutation[0], mutation[1]), "mutant.c"))
    with pytest.raises(VerificationError):
        prove(km, cand)


def test_argmax_through_a_gather_is_refused_with_the_reason(tmp_path: Path) -> None:
    src = tmp_path / "argmax_gather.c"
    src.write_text("int f(int n, int *a) { int best = 0; for (int i = 1; i < n; i++) if (a[i] > a[best]) best = i; "
                   "return best; }\n")
    res = lift_file(src, ("numpy",), out_dir=tmp_path / "out")
    assert res.status == "not_lifted"
    assert "depends on 'best', which the loop updates" in res.message


# ---------------------------------------------------------------- red-team findings (Python ints)


def test_a_python_int_argmin_whose_negation_can_leave_int64_is_not_emitted(tmp_path: Path) -> None:
    """The argmin is the argmax of the negated values; with Python ints in int64, ``0 - x``
    leaves int64 at ``x = -2**63`` (NumPy would wrap): refused like a C ``long`` minimum."""
    src = tmp_path / "argmin.py"
    src.write_text("def argmin(xs: list[int]) -> int:\n    best = 0\n    m = xs[0]\n"
                   "    for i in range(1, len(xs)):\n        if xs[i] < m:\n            m = xs[i]\n            best = i\n"
                   "    return best\n")
    res = lift_file(src, ("numpy",), out_dir=tmp_path / "out")
    assert res.status == "not_lifted" and "can exceed 64 bits for inputs of the int64 range" in res.message


@pytest.mark.parametrize(("cond", "ok"), [
    ("xs[i] > m", False),          # int data, a float m: Python compares exactly
    ("float(xs[i]) > m", True),    # compared as floats: as NumPy does
    ("xs[i] > 0.5", True),         # a float constant of magnitude <= 2**53: exact either way
])
def test_python_int_and_float_comparisons(cond: str, ok: bool) -> None:
    from tenspiler.errors import LiftError
    from tenspiler.frontend.python import parse_python_source

    src = (f"def f(xs: list[int]) -> int:\n    best = -1\n    m = -1.0e300\n    for i in range(len(xs)):\n"
           f"        if {cond}:\n            best = i\n    return best\n")
    if ok:
        parse_python_source(src, "f.py")
    else:
        with pytest.raises(LiftError, match="Python compares them exactly"):
            parse_python_source(src, "f.py")


def test_a_near_argmax_names_the_shape(tmp_path: Path) -> None:
    src = tmp_path / "near.c"
    src.write_text("int f(int n, int *a, int *b) { int best = 0; int m = 0; for (int i = 0; i < n; i++) "
                   "if (a[i] > m) { m = b[i]; best = i; } return best; }\n")
    res = lift_file(src, ("numpy",), out_dir=tmp_path / "out")
    assert res.status == "not_lifted" and "not as the index of an extremum" in res.message
