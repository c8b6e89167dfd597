"""Exact integer arithmetic for the C integer types (issue 34, integers part).

* The ranged integer types of the loop IR (``signed char``, ``unsigned char``, ``short``,
  ``unsigned short``, ``unsigned int``): a conversion into one reduces modulo 2ⁿ into its
  range, on Python ints, int64 NumPy arrays (also after int64 wrapped on the way) and as
  SMT-LIB, the three tied together (the SMT side by cvc5) and to the C compiler's own
  conversions (``(T)x`` compiled and run).
* The kernels of ``tests/kernels/ints/``: each is verified and agrees bit-exactly with gcc
  on adversarial inputs (the tool's translation validation, and the fuzzer's independent
  oracle), or is refused with the named rule (``expect: refused``); ``expect: sound`` allows
  a clean "not lifted" as well.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tenspiler.ir.semantics import np_cast, np_wrap_to, py_cast, py_wrap_to, smt_cast, smt_const
from tenspiler.loops.ir import RANGED_INTS, DType
from tenspiler.pipeline import lift_file
from tests.test_semantics import assert_smt_computes

KERNELS = Path(__file__).parent / "kernels" / "ints"
CC = shutil.which("gcc") or shutil.which("cc")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler")

wide_ints = st.one_of(
    st.integers(-(2**63), 2**63 - 1),
    st.integers(-70000, 70000),
    st.sampled_from([0, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, -32769, 65535, 65536,
                     2**31 - 1, 2**31, 2**32 - 1, 2**32, -(2**31) - 1]),
)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(RANGED_INTS), st.lists(wide_ints, min_size=1, max_size=30))
@example(DType.INT16, [32768, -32769, 65535, -(2**63), 2**63 - 1])
@example(DType.UINT32, [-1, 2**32, -(2**63)])
def test_conversions_to_ranged_types_agree(dtype: DType, xs: list[int]) -> None:
    """Python, NumPy and SMT-LIB conversions into ``dtype`` agree and land in its range."""
    lo, hi = dtype.int_range  # type: ignore[misc]
    got_np = np.asarray(np_cast(np.array(xs, dtype=np.int64), dtype)).tolist()
    checks = []
    for x, nv in zip(xs, got_np, strict=True):
        pv = py_cast(x, dtype)
        assert pv == nv and lo <= pv <= hi
        assert (pv - x) % (hi - lo + 1) == 0  # congruent modulo 2^n
        checks.append((smt_cast(smt_const(x, DType.INT), DType.INT, dtype), smt_const(pv, DType.INT)))
    assert_smt_computes(checks)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(RANGED_INTS), st.lists(st.tuples(wide_ints, wide_ints), min_size=1, max_size=30))
def test_wrap_is_exact_after_int64_overflow(dtype: DType, pairs: list[tuple[int, int]]) -> None:
    """Generated code multiplies in int64 and wraps at the cast: the low n bits survive."""
    a = np.array([p[0] for p in pairs], dtype=np.int64)
    b = np.array([p[1] for p in pairs], dtype=np.int64)
    with np.errstate(over="ignore"):
        prod = a * b
    got = np.asarray(np_wrap_to(prod, dtype)).tolist()
    assert got == [py_wrap_to(x * y, dtype) for x, y in pairs]


_C_NAMES = {d: d.c_name for d in RANGED_INTS}


@needs_cc
def test_conversions_agree_with_gcc() -> None:
    """``(T)x`` of long values in C (GCC: modulo 2ⁿ) is ``py_cast``."""
    values = [0, 1, -1, 127, 128, -129, 255, 256, 32767, 32768, -32769, 65535, 65536,
              2**31 - 1, 2**31, 2**32 - 1, 2**32 + 5, -(2**40) - 3, 2**62 + 2**31 + 7]
    body = "\n".join(
        f'  printf("%lld\\n", (long long)({c})({v}L));' for c in _C_NAMES.values() for v in values)
    src = f"#include <stdio.h>\nint main(void) {{\n{body}\n  return 0;\n}}\n"
    with tempfile.TemporaryDirectory() as d:
        c, exe = Path(d) / "t.c", Path(d) / "t"
        c.write_text(src)
        subprocess.run([CC, "-O0", "-o", str(exe), str(c)], check=True, capture_output=True)
        out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()
    expected = [str(py_cast(v, d)) for d in _C_NAMES for v in values]
    assert out == expected


def test_unsigned_int_arithmetic_is_reduced_in_the_loop_ir() -> None:
    from tenspiler.frontend.c import parse_c_source
    from tenspiler.loops.interp import run_function

    src = "void f(unsigned int *a, unsigned int *o, int n) { for (int i = 0; i < n; i++) o[i] = a[i] - 1u; }"
    fn = parse_c_source(src, "k.c")
    out = run_function(fn, {"a": np.array([0, 5], dtype=np.int64), "o": np.zeros(2, dtype=np.int64), "n": 2})
    assert list(out["o"]) == [2**32 - 1, 4]


def _expectation(path: Path) -> tuple[str, str]:
    m = re.search(r"expect: (verified|refused|sound)(?: \"(.*)\")?", path.read_text())
    assert m is not None, path
    return m.group(1), m.group(2) or ""


#: Kernels that do not verify yet (strict xfail: remove the entry with the fix).
NOT_YET: dict[str, str] = {}
CASES = [pytest.param(p, marks=pytest.mark.xfail(reason=NOT_YET[p.stem], strict=True)) if p.stem in NOT_YET else p
         for p in sorted(KERNELS.glob("*.c"))]


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in sorted(KERNELS.glob("*.c"))])
def test_int_kernel(path: Path) -> None:
    kind, text = _expectation(path)
    if kind == "refused":
        res = lift_file(path, function=path.stem, check=False)
        assert res.status == "error", (res.status, res.summary)
        assert text in res.message, res.message
        assert re.match(rf"{re.escape(str(path))}:\d+:\d+: ", res.message)
        return
    if CC is None:
        pytest.skip("no C compiler")
    res = lift_file(path, function=path.stem, check=True)
    if kind == "sound" and res.status != "verified":  # a clean "not lifted" is acceptable
        assert res.status == "not_lifted" and "internal error" not in res.message, res.message
        return
    assert res.status == "verified", res.message
    assert all(c["ok"] for c in res.check.values()), res.check
    ir = res.check["loop-ir"]
    # (inputs on which the source has undefined behaviour — a negative value shifted left —
    # are dropped; enough must remain)
    assert ir["inputs"] >= 30 and ir["inputs"] + ir["dropped_undefined"] >= 60, ir
    assert text in res.summary
    from tenspiler.fuzz.campaign import check_file

    rec = check_file(path, timeout=180.0)  # (a loaded machine: the oracle's own lift is timed)
    assert rec["cls"] == "agrees", rec


# ---------------------------------------------------------------- signed values the source computes

_OVERLAY = """
void f(int *base, int *active, int *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = base[i] < 128 ? 2 * base[i] * active[i] / 255
                               : 255 - 2 * (255 - base[i]) * (255 - active[i]) / 255;
}
"""


def _overlay_terms(length: object = None) -> dict[str, object]:
    from tenspiler.ir.terms import (
        Cmp,
        Lit,
        ScalarVar,
        Take,
        TensorScalar,
        TensorSelect,
        TensorTensor,
        TensorVar,
    )

    n = ScalarVar("n", DType.INT) if length is None else length
    b, a = Take(TensorVar("base", DType.INT), n), Take(TensorVar("active", DType.INT), n)  # type: ignore[arg-type]
    i = DType.INT
    two_b_a = TensorTensor("*", TensorScalar("*", b, Lit(2, i), True, i), a, i)
    screen = TensorTensor("*", TensorScalar("*", TensorScalar("-", b, Lit(255, i), True, i), Lit(2, i), True, i),
                          TensorScalar("-", a, Lit(255, i), True, i), i)
    other = TensorScalar("-", TensorScalar("/", screen, Lit(255, i), False, i), Lit(255, i), True, i)
    div = TensorScalar("/", two_b_a, Lit(255, i), False, i)
    lt, ge = Cmp("<", b, Lit(128, i)), Cmp(">=", b, Lit(128, i))
    return {
        "product": two_b_a,
        "mirrors": TensorSelect(lt, div, other, i),
        # the same product divided where the source does not compute it (b >= 128)
        "other_branch": TensorSelect(ge, div, other, i),
        # a product of three int values the source never computes
        "not_computed": TensorScalar("/", TensorTensor("*", two_b_a, b, i), Lit(255, i), False, i),
    }


def test_signed_values_the_source_computes_are_no_hazard() -> None:
    """``2*b*a`` on int data could exceed int64 for arbitrary int inputs, but C computes it
    in int (overflow is undefined), so where the summary uses it as the source does it fits."""
    from tenspiler.codegen.ranges import wrap_hazards
    from tenspiler.frontend.c import parse_c_source

    fn = parse_c_source(_OVERLAY, "k.c")
    t = _overlay_terms()
    assert wrap_hazards(fn, [t["mirrors"]]) == []
    # refused: used under another condition than the source's, or not computed by the source
    assert t["product"] in wrap_hazards(fn, [t["other_branch"]])
    assert wrap_hazards(fn, [t["not_computed"]]) != []
    # views longer or shorter than the loop's trip count: not the values of its iterations
    from tenspiler.ir.terms import Lit

    assert wrap_hazards(fn, [_overlay_terms(Lit(5, DType.INT))["mirrors"]]) != []


def test_unsigned_products_are_not_bounded_by_the_source() -> None:
    """``unsigned int`` arithmetic wraps instead of being undefined: its mathematical value
    is no bounded source value (the rule skips everything under a conversion to uint32)."""
    from tenspiler.codegen.ranges import wrap_hazards
    from tenspiler.frontend.c import parse_c_source
    from tenspiler.ir.terms import Lit, ScalarVar, Take, TensorScalar, TensorTensor, TensorVar

    src = ("void f(unsigned *a, unsigned *b, unsigned *c, unsigned *out, int n) {\n"
           "  for (int i = 0; i < n; i++) out[i] = a[i] * b[i] * c[i] / 3u;\n}\n")
    fn = parse_c_source(src, "k.c")
    u, i = DType.UINT32, DType.INT
    n = ScalarVar("n", i)
    a, b, c = (Take(TensorVar(x, u), n) for x in "abc")
    prod = TensorTensor("*", TensorTensor("*", a, b, i), c, i)
    assert wrap_hazards(fn, [TensorScalar("/", prod, Lit(3, i), False, i)]) == [prod]


# ---------------------------------------------------------------- bitwise operators

_int64s = st.one_of(st.integers(-(2**63), 2**63 - 1), st.integers(-300, 300), st.integers(0, 2**32 - 1))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["&", "|", "^"]), _int64s, _int64s), min_size=1, max_size=20))
@example([("&", -5, 3), ("|", -(2**63), 1), ("^", -1, 2**63 - 1), ("&", 2**32 - 1, -(2**31))])
def test_bitwise_operators_agree(batch: list[tuple[str, int, int]]) -> None:
    """``& | ^`` on Python ints, int64 NumPy arrays and SMT-LIB (64-bit two's complement)."""
    from tenspiler.ir.semantics import np_binop, py_binop, smt_binop

    xs = np.array([x for _, x, _ in batch], dtype=np.int64)
    ys = np.array([y for _, _, y in batch], dtype=np.int64)
    checks = []
    for k, (op, x, y) in enumerate(batch):
        pv = py_binop(op, x, y, DType.INT)  # type: ignore[arg-type]
        assert pv == {"&": x & y, "|": x | y, "^": x ^ y}[op]
        assert int(np_binop(op, xs[k : k + 1], ys[k : k + 1], DType.INT)[0]) == pv  # type: ignore[arg-type]
        checks.append((smt_binop(op, smt_const(x, DType.INT), smt_const(y, DType.INT), DType.INT),  # type: ignore[arg-type]
                       smt_const(pv, DType.INT)))
    assert_smt_computes(checks)
