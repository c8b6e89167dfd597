"""Embedded-C idioms of fixed-point DSP libraries (issue 34), written here (no library code):
saturation helpers written out with ``if``/``else`` and ``return``, their bound computed
from a constant bit count under an argument check (``(int32_t)((1U << (b - 1U)) - 1U)``),
and the explicit cast of an ``unsigned int`` count to ``int32_t`` (GCC's reduction modulo
2^32). Each kernel lifts, passes ``--check`` (the compiled source on adversarial inputs) and
its certificate re-checks; the loop IR of each construct is compared with the compiled C on
the values where the construct changes meaning; the unsafe variants are refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from tenspiler.check.c import compile_c, run_c_all
from tenspiler.errors import BadInput
from tenspiler.frontend.c import parse_c_source
from tenspiler.loops.interp import run_function
from tests.lifting import assert_lifts

KERNELS = Path(__file__).resolve().parent / "kernels" / "embedded"


@pytest.mark.parametrize("name", ["sat_add16.c", "mean_blk_i16.c"])
def test_embedded_kernels_lift_check_and_recheck(name: str, tmp_path: Path) -> None:
    assert_lifts(KERNELS / name, tmp_path)


def _agree(src: str, inputs: list[dict[str, object]], tmp_path: Path) -> None:
    """The loop IR (the proof's model) returns what the compiled C returns on each input."""
    fn = parse_c_source(src, "k.c")
    kernel = compile_c(fn, tmp_path, sanitize=True)
    for inp, c_state in zip(inputs, run_c_all(kernel, fn, inputs), strict=True):
        assert not isinstance(c_state, str), (inp, c_state)
        assert run_function(fn, inp)["return"] == c_state["return"], (inp, c_state["return"])


U32 = [0, 1, 7, 2**31 - 1, 2**31, 2**31 + 5, 2**32 - 2, 2**32 - 1]


def test_cast_of_unsigned_int_to_int32_wraps_as_gcc(tmp_path: Path) -> None:
    src = "#include <stdint.h>\nlong f(uint32_t u) { return (int32_t) u; }"
    _agree(src, [{"u": u} for u in U32], tmp_path)
    src = "#include <stdint.h>\nlong f(uint32_t u, int a) { return a / (int) (u + 3U); }"
    _agree(src, [{"u": u, "a": a} for u in U32 for a in (-1000, 0, 999) if (u + 3) % 2**32 != 0], tmp_path)


SATURATE = """#include <stdint.h>
static int32_t sat(int32_t v, uint32_t bits) {
    if ((bits >= 1U) && (bits <= 32U)) {
        const int32_t hi = (int32_t)((1U << (bits - 1U)) - 1U);
        const int32_t lo = -1 - hi;
        if (v > hi) {
            return hi;
        } else if (v < lo) {
            return lo;
        }
    }
    return v;
}
long f(int32_t v) { return sat(v, BITS); }
"""

EDGES = [-(2**31), -(2**31) + 1, -40000, -32769, -32768, -32767, -129, -128, -127, -1, 0, 1, 126, 127, 128,
         32766, 32767, 32768, 2**31 - 1]


@pytest.mark.parametrize("bits", [1, 8, 16, 31, 32, 0, 33])
def test_saturation_helper_written_out_runs_as_the_compiled_c(bits: int, tmp_path: Path) -> None:
    """Every path of the helper (each bound, the fall-through, the argument check false)."""
    _agree(SATURATE.replace("BITS", f"{bits}U"), [{"v": v} for v in EDGES], tmp_path)


HELPERS = [
    # assignments in branches, no return inside the if
    "static int g(int v) { int r = v; if (v > 10) r = 10; else if (v < -10) { r = -10; } return r; }",
    # returns in both branches, nothing after
    "static int g(int v) { if (v & 1) { return v * 3; } else { return v / 2; } }",
    # a declaration inside a branch shadows nothing; the value after the if is the outer one
    "static int g(int v) { int r = 1; if (v > 0) { int t = v + 1; r = t * 2; } return r + v; }",
    # nested ifs with an early return and a fall-through
    "static int g(int v) { if (v > 0) { if (v > 100) return 100; v = v - 1; } return v; }",
]


@pytest.mark.parametrize("helper", HELPERS)
def test_helpers_with_if_statements_run_as_the_compiled_c(helper: str, tmp_path: Path) -> None:
    src = helper + "\nlong f(int v) { return g(v) + g(-v); }"
    _agree(src, [{"v": v} for v in (-1000, -101, -100, -11, -10, -9, -1, 0, 1, 2, 9, 10, 11, 99, 101, 1000)], tmp_path)


def test_saturating_add_summary_keeps_each_bound() -> None:
    fn = parse_c_source((KERNELS / "sat_add16.c").read_text(), "sat_add16.c")
    inp = {"a": [32767, -32768, 100, -5], "b": [1, -1, 200, -7], "out": [0] * 4, "n": 4}
    assert [int(v) for v in run_function(fn, inp)["out"]] == [32767, -32768, 300, -12]


UNGUARDED = [
    # no argument check bounds the count: the cast is GCC's reduction modulo 2^32 (exact here)
    "static int32_t s(int32_t v, uint32_t b) { const int32_t h = (int32_t)((1U << (b - 1U)) - 1U); "
    "return v > h ? h : v; }\nlong f(int32_t v) { return (long) s(v, 16U) + s(v, 32U); }",
    # a count the helper assigns is not refined by the check: the same reduction
    "static int32_t s(int32_t v, uint32_t b) { b = b + 0U; if (b <= 31U) { return (int32_t)((1U << b) - 1U); } "
    "return v; }\nlong f(int32_t v) { return (long) s(v, 16U) + s(v, 31U) + s(v, 40U); }",
]


@pytest.mark.parametrize("src", UNGUARDED)
def test_unguarded_bound_casts_wrap_as_gcc(src: str, tmp_path: Path) -> None:
    _agree("#include <stdint.h>\n" + src, [{"v": v} for v in EDGES], tmp_path)


REFUSALS = [
    # an implicit conversion of unsigned int to int is not the explicit cast GCC documents
    ("#include <stdint.h>\nlong f(uint32_t u) { int32_t k = u; return k; }", "initialisation: conversion from 'unsigned int' to 'int'"),
    # unsigned long to int stays refused
    ("long f(unsigned long u) { return (int) u; }", "conversion from 'unsigned long' to 'int'"),
    # a path of the helper that falls off its end
    ("static int g(int v) { if (v > 0) return 1; }\nlong f(int v) { return g(v); }", "must end with 'return E;' on every path"),
]


@pytest.mark.parametrize(("src", "message"), REFUSALS)
def test_unsafe_variants_are_refused_by_name(src: str, message: str) -> None:
    if "int32_t" in src and "#include" not in src:
        src = "#include <stdint.h>\n" + src
    with pytest.raises(BadInput) as err:
        parse_c_source(src, "k.c")
    assert message in str(err.value)


# ------------------------------------------------------------------ count-down argmax


@pytest.mark.parametrize("name", ["argmax_blk.c", "argmax_blk_i8.c"])
def test_count_down_argmax_lifts_check_and_recheck(name: str, tmp_path: Path) -> None:
    assert_lifts(KERNELS / name, tmp_path)


ARGMAX_INPUTS = [
    [3, 1, 4, 1, 5, 9, 2, 6],
    [5, 5, 5, 5, 5, 5, 5, 5],  # all ties: the first index (strict <) stays 0
    [1, 7, 7, 2, 7, 0, 0, 0],  # ties after the first maximum: C keeps index 1
    [-3, -1, -1, -8, -1, -2, -100, 127],
    [9, 8, 7, 6, 5, 4, 3, 2],
]


@pytest.mark.parametrize("name", ["argmax_blk.c", "argmax_blk_i8.c"])
def test_count_down_loop_run_by_the_canonical_counter_is_the_source(name: str, tmp_path: Path) -> None:
    """The kernel analysis runs a descending loop that walks a pointer by an ascending
    counter, the original counter an affine function of it (``vc.kernel._ascending``): that
    rewritten function, the source's loop IR and the compiled C agree on every input, ties
    included (the first index of the maximum for ``<``)."""
    from tenspiler.vc.kernel import analyze

    fn = parse_c_source((KERNELS / name).read_text(), name)
    up = analyze(fn).fn
    assert all(not s.descending for s in up.body if hasattr(s, "descending"))
    inputs = [{"x": xs[:n], "n": n, "best": [0], "where": [0]} for xs in ARGMAX_INPUTS for n in range(1, 9)]
    kernel = compile_c(fn, tmp_path, sanitize=True)
    for inp, c_state in zip(inputs, run_c_all(kernel, fn, inputs), strict=True):
        assert not isinstance(c_state, str), (inp, c_state)
        for model in (run_function(fn, inp), run_function(up, inp)):
            assert [int(v) for v in model["where"]] == [int(v) for v in c_state["where"]], inp
            assert [float(v) for v in model["best"]] == [float(v) for v in c_state["best"]], inp


def test_count_down_argmax_generated_code_keeps_the_first_index(tmp_path: Path) -> None:
    import numpy as np

    from tenspiler.api import lift

    f = lift(KERNELS / "argmax_blk.c", to="numpy", check=False, cache=False).compile("numpy")
    for xs, first in (([5.0, 5.0, 5.0], 0), ([1.0, 7.0, 7.0, 2.0], 1), ([0.0, -1.0, 3.0, 3.0], 2)):
        best, where = f(np.array(xs, np.float32), len(xs), np.zeros(1, np.float32), np.zeros(1, np.uint32))
        assert int(where[0]) == first and float(best[0]) == max(xs), (xs, where, best)


# ------------------------------------------------------------------ guards that store


@pytest.mark.parametrize("name", ["var_guard.c", "clip_guard.c"])
def test_guards_that_store_lift_check_and_recheck(name: str, tmp_path: Path) -> None:
    assert_lifts(KERNELS / name, tmp_path)


def test_guard_that_stores_runs_as_the_compiled_c(tmp_path: Path) -> None:
    """Where the guard holds (n <= 0) and where it does not: the outputs and the returned
    value of the loop IR are C's."""
    fn = parse_c_source((KERNELS / "clip_guard.c").read_text(), "clip_guard.c")
    kernel = compile_c(fn, tmp_path, sanitize=True)
    xs = [5, -7, 3, 12, 0, -1]
    inputs = [{"x": xs, "y": [99] * 6, "n": n, "lo": lo, "hi": hi, "status": [42]}
              for n in (-3, 0, 1, 4, 6) for lo, hi in ((-2, 4), (0, 0), (3, -3))]
    for inp, c_state in zip(inputs, run_c_all(kernel, fn, inputs), strict=True):
        assert not isinstance(c_state, str), (inp, c_state)
        model = run_function(fn, inp)
        for out in ("return", "y", "status"):
            got, want = model[out], c_state[out]
            if out != "return":
                got, want = [int(v) for v in got], [int(v) for v in want]
            assert got == want, (inp, out, got, want)


GUARD_REFUSALS = [
    # the loop after the guard stores and may run where the guard holds (hi < lo, n > 0)
    ("int f(const int *x, int *y, int n, int lo, int hi, int *st) { if (hi < lo || n <= 0) { *st = -1; return 0; } "
     "for (int i = 0; i < n; i++) y[i] = x[i] < lo ? lo : x[i]; *st = 0; return n; }",
     "early return is not supported: where its condition holds, a loop after it is not proved to run zero times"),
    # the rest stores another element where the guard holds
    ("void f(const float *x, int n, float *o) { if (n <= 0) { o[0] = 0.0f; return; } float s = 0.0f; "
     "for (int i = 0; i < n; i++) s += x[i]; o[0] = s; o[1] = s * 2.0f; }",
     "early return is not supported: a store after it would run where its condition holds"),
    # the guard stores an element the rest never stores at its top level
    ("void f(const float *x, int n, float *o, float *e) { if (n <= 0) { *e = 1.0f; o[0] = 0.0f; return; } "
     "float s = 0.0f; for (int i = 0; i < n; i++) s += x[i]; o[0] = s; }",
     "the guard stores into 'e[0]', which the rest of the function does not store at its top level"),
]


@pytest.mark.parametrize(("src", "message"), GUARD_REFUSALS)
def test_unsafe_guards_that_store_are_refused_by_name(src: str, message: str) -> None:
    with pytest.raises(BadInput) as err:
        parse_c_source(src, "k.c")
    assert message in str(err.value)


# ------------------------------------------------------------------ helpers whose value is discarded


def test_helper_writing_through_a_pointer_with_its_status_discarded_lifts(tmp_path: Path) -> None:
    assert_lifts(KERNELS / "root_mean.c", tmp_path)


def test_helper_writing_through_a_pointer_runs_as_the_compiled_c(tmp_path: Path) -> None:
    """Both branches of the helper (a negative mean stores 0): the if/else stores to one
    element after the loop are its last value (``vc.kernel`` merges them)."""
    import math

    fn = parse_c_source((KERNELS / "root_mean.c").read_text(), "root_mean.c")
    kernel = compile_c(fn, tmp_path, sanitize=True)
    inputs = [{"x": xs, "n": len(xs), "res": [7.0]} for xs in ([4.0, 5.0], [-4.0, 1.0], [0.0], [-1e-3, 2e-3, -3e-3])]
    for inp, c_state in zip(inputs, run_c_all(kernel, fn, inputs), strict=True):
        assert not isinstance(c_state, str), (inp, c_state)
        got = float(run_function(fn, inp)["res"][0])
        assert math.isclose(got, float(c_state["res"][0]), rel_tol=1e-6, abs_tol=1e-7), (inp, got, c_state["res"])


DISCARDED_REFUSALS = [
    # a return that does not end its path: the rest of the helper would run in the block
    ("static int g(int v, int *o) { if (v > 0) return 1; *o = v; return 0; }\n"
     "void f(int *x, int *o, int n) { for (int i = 0; i < n; i++) x[i] = 0; g(n, o); }",
     "call to 'g' as a statement is not supported (its value is discarded, and a 'return' of it does not end a "
     "path through its body)"),
    # a returned expression with a side effect is not dropped
    ("static int g(int v, int *o) { *o = v; return (*o)++; }\n"
     "void f(int *x, int *o, int n) { for (int i = 0; i < n; i++) x[i] = 0; g(n, o); }",
     "call to 'g' as a statement is not supported"),
]


@pytest.mark.parametrize(("src", "message"), DISCARDED_REFUSALS)
def test_discarded_values_that_are_not_path_ends_are_refused_by_name(src: str, message: str) -> None:
    with pytest.raises(BadInput) as err:
        parse_c_source(src, "k.c")
    assert message in str(err.value)


def test_one_element_stored_in_one_branch_only_after_the_loop_stays_not_lifted() -> None:
    """``if (s > 0) *o = s;`` keeps the element's old value elsewhere: a read of the output
    after the loop, still refused (only an if/else storing in both branches merges)."""
    from tenspiler.errors import NotLiftable
    from tenspiler.vc.kernel import analyze

    src = "void f(const float *x, int n, float *o) { float s = 0.0f; for (int i = 0; i < n; i++) s += x[i]; " \
          "if (s > 0.0f) *o = s; }"
    with pytest.raises(NotLiftable, match="reading an array after the loop"):
        analyze(parse_c_source(src, "k.c"))


def test_constant_folding_follows_the_loop_ir_semantics() -> None:
    from tenspiler.frontend.common import fold_cond, fold_integer
    from tenspiler.loops.ir import Binary, Cast, Compare, Const, DType, Logical, Var

    i, u = DType.INT, DType.UINT32
    # (uint32)(16 - 17) wraps; C's truncating division; a zero divisor is not folded
    assert fold_integer(Cast(Binary("-", Const(16, i), Const(17, i), i), u)).value == 2**32 - 1
    assert fold_integer(Binary("/", Const(-7, i), Const(2, i), i)).value == -3
    assert fold_integer(Binary("%", Const(-7, i), Const(2, i), i)).value == -1
    assert fold_integer(Binary("/", Const(1, i), Const(0, i), i)) is None
    assert fold_integer(Binary("+", Var("n", i), Const(1, i), i)) is None
    # && short-circuits as C: a false left operand decides, whatever the right one reads
    unknown = Compare("<", Var("n", i), Const(0, i))
    assert fold_cond(Logical("&&", Compare(">", Const(0, i), Const(1, i)), unknown)) is False
    assert fold_cond(Logical("&&", Compare("<", Const(0, i), Const(1, i)), unknown)) is None
    assert fold_cond(Logical("||", Compare("<", Const(0, i), Const(1, i)), unknown)) is True


# ------------------------------------------------------------------ out-parameters


def test_helper_writing_a_local_through_a_pointer_lifts(tmp_path: Path) -> None:
    assert_lifts(KERNELS / "out_param.c", tmp_path)


OUT_PARAMS = [
    # read and written through the pointer, several times, in a branch
    "static void acc(int a, int *o) { *o = *o + a; if (a > 3) { o[0] = *o * 2; } *o -= 1; }\n"
    "long f(int a, int b) { int v = b; acc(a, &v); acc(b, &v); return v; }",
    # two out-parameters of two different locals
    "static void divmod(int a, int b, int *q, int *r) { *q = a / b; *r = a % b; }\n"
    "long f(int a, int b) { int q = 0, r = 0; if (b == 0) b = 1; divmod(a, b, &q, &r); return q * 1000 + r; }",
]


@pytest.mark.parametrize("src", OUT_PARAMS)
def test_out_parameters_run_as_the_compiled_c(src: str, tmp_path: Path) -> None:
    _agree(src, [{"a": a, "b": b} for a in (-7, 0, 2, 5) for b in (-3, 0, 4)], tmp_path)


OUT_PARAM_REFUSALS = [
    ("static void acc(int a, int *o) { *o = *o + a; }\nlong f(int a, int b) { int v = b; acc(v, &v); return v; }",
     "passing '&v' to 'acc' is not supported (another argument reads 'v')"),
    ("static void g(int *o, int *q) { *o = 1; *q = 2; }\nlong f(int a) { int v = a; g(&v, &v); return v; }",
     "passing '&v' to 'g' is not supported (another argument reads 'v')"),
    ("static void g(int *o) { o++; *o = 1; }\nlong f(int a) { int v = a; g(&v); return v; }",
     "passing '&v' to 'g' is not supported (the helper changes the pointer)"),
    ("static void g(float *o) { *o = 1; }\nlong f(int a) { int v = a; g(&v); return v; }",
     "passing '&v' to 'g' is not supported ('v' is not of the pointed-to type)"),
    # the pointer used other than as *o / o[0] (copied, indexed elsewhere): the address of a scalar
    ("static void g(int *o) { int *q = o; *q = 1; }\nlong f(int a) { int v = a; g(&v); return v; }",
     "address-of operator '&' is not supported"),
]


@pytest.mark.parametrize(("src", "message"), OUT_PARAM_REFUSALS)
def test_unsafe_out_parameters_are_refused_by_name(src: str, message: str) -> None:
    with pytest.raises(BadInput) as err:
        parse_c_source(src, "k.c")
    assert message in str(err.value)


def test_running_minimum_of_promoted_bytes_keeps_lifting(tmp_path: Path) -> None:
    # looking through the promotions of compared narrow values (the int8_t running maximum)
    # must not lose the form where the promoted value is what is stored: (int) img[i] < m,
    # m = (int) img[i] (benchmarks/kernels/reductions/darkest_pixel.c, lost by the change)
    root = Path(__file__).resolve().parent.parent
    assert_lifts(root / "benchmarks" / "kernels" / "reductions" / "darkest_pixel.c", tmp_path)
