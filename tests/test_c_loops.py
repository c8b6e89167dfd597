"""C loop idioms of shipped code (issue 34): ``while`` / ``do``-``while`` loops and ``for``
loops without an initialiser recognised by the induction-variable analysis
(:mod:`tenspiler.frontend.c_induction`), count-down loops, unsigned counters whose steps
cannot wrap, ``i++`` inside an expression. Each kernel lifts, passes ``--check`` (the
compiled source on adversarial inputs) and its certificate re-checks; the counter's value
after the loop is C's; the unsafe variants are refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from tenspiler.errors import BadInput
from tenspiler.frontend.c import parse_c_source
from tenspiler.loops.interp import run_function
from tests.lifting import assert_lifts

KERNELS = Path(__file__).resolve().parent / "kernels" / "cloops"

LIFTED = [
    "add_blk.c", "scale_blk.c", "dot_blk.c", "mean_blk.c", "offset_blk.c", "while_up.c", "for_noinit.c",
    "while_postdec.c", "countdown_idx.c", "sum_postinc.c",
]


@pytest.mark.parametrize("name", LIFTED)
def test_c_loop_idioms_lift_check_and_recheck(name: str, tmp_path: Path) -> None:
    assert_lifts(KERNELS / name, tmp_path)


def _c_while(n: int, form: str, bits: int | None) -> int:
    """The counter after the loop, as C computes it (``bits``: an unsigned counter)."""
    c = n
    wrap = (lambda v: v % (1 << bits)) if bits else (lambda v: v)
    if form == "last":  # while (c > 0) { c--; }
        while c > 0:
            c -= 1
    elif form == "first":  # while (c > 0) { c--; x; }
        while c > 0:
            c -= 1
    elif form == "post":  # while (c--) ;
        while True:
            old = c
            c = wrap(c - 1)
            if old == 0:
                break
    elif form == "up":  # i = 0; while (i < n) { i++; }
        c = 0
        while c < n:
            c += 1
    elif form == "up_first":  # i = 2; while (i <= n) { i++; ... }
        c = 2
        while c <= n:
            c += 1
    return c


COUNTER_AFTER = [
    ("int f(float *y, int n) { int c = n; while (c > 0) { y[0] = 1.0f; c--; } return c; }", "last", None),
    ("int f(float *y, int n) { int c = n; while (c > 0) { c--; y[c] = 1.0f; } return c; }", "first", None),
    ("long f(float *y, unsigned n) { unsigned c = n; while (c--) { y[c] = 1.0f; } return c; }", "post", 32),
    ("int f(float *y, int n) { int c = n; while (c--) { y[c] = 1.0f; } return c; }", "post", None),
    ("int f(float *y, int n) { int i = 0; while (i < n) { i++; y[i - 1] = 1.0f; } return i; }", "up", None),
    ("int f(float *y, int n) { int i = 2; while (i <= n) { y[i] = 1.0f; ++i; } return i; }", "up_first", None),
    ("int f(float *y, int n) { int i = 0; for (; i < n; i++) y[i] = 1.0f; return i; }", "up", None),
]


@pytest.mark.parametrize(("src", "form", "bits"), COUNTER_AFTER)
def test_counter_after_the_loop_is_c_value(src: str, form: str, bits: int | None) -> None:
    fn = parse_c_source(src, "k.c")
    for n in (0, 1, 2, 5):
        out = run_function(fn, {"y": [0.0] * 8, "n": n})
        assert out["return"] == _c_while(n, form, bits), (src, n, out["return"])


def test_postfix_step_inside_an_expression_is_sequenced_after_the_statement() -> None:
    fn = parse_c_source("int f(int *a, int n) { int i = 0, s = 0; while (i < n) s += a[i++] * 10 + i; return s; }"
                        .replace("+ i;", "+ 1;"), "k.c")
    out = run_function(fn, {"a": [1, 2, 3, 4], "n": 3})
    assert out["return"] == 11 + 21 + 31


UNIT = "void f(int *a, int n, unsigned u, unsigned m) { "

REFUSALS = [
    ("while (n) n -= 2;", "while loop is not supported: 'n' is not stepped by a constant 1"),
    ("int i = 0; while (i < n) { a[i] = 1; if (a[0]) i++; }", "'i' is not stepped on every path of the loop body"),
    ("int i = 0; while (i < n) { a[i] = 1; i++; i++; }", "'i' is not written exactly once in the loop body"),
    ("int i = 0; while (i < n) { a[i] = 1; n--; i++; }", "the loop bound is written in the loop"),
    ("int i = 0; while (i > n) { a[i] = 1; i++; }", "does not bound its ascending counter 'i'"),
    ("int i = 0; do { a[i] = 1; i++; } while (i < n);", "do-while loop: only a condition 'i != E'"),
    ("int i = 0; while (i < n) { a[i] = a[i++]; }", "unsequenced modification and access of 'i' (C11 §6.5p2)"),
    ("int i = 0; i = i++; a[0] = i;", "unsequenced modification of 'i' (C11 §6.5p2)"),
    ("while (u >= 0U) { a[0] = 1; u--; }", "unsigned loop counter 'u' may wrap modulo 2^32 (C11 §6.2.5p9): the loop "
     "condition does not keep unsigned 'u' above 0 before it is decremented"),
    ("do { a[0] = 1; } while (--u);", "the first iteration of a do-while loop runs before its condition is tested"),
    ("while (--u) { a[0] = 1; }", "'--u' in the loop condition wraps when 'u' is at its limit"),
    ("while (u != m) { a[0] = 1; u--; }", "does not keep unsigned 'u' above 0 before it is decremented"),
    ("unsigned i = 0; while (i != u) { a[0] = 1; i++; }", "does not keep unsigned 'i' below its maximum"),
    ("unsigned c = 3; c++; a[0] = 1;", "'++' on 'unsigned int' (unsigned arithmetic wraps modulo 2^32"),
]


@pytest.mark.parametrize(("body", "message"), REFUSALS)
def test_unsafe_loop_idioms_are_refused_by_name(body: str, message: str) -> None:
    with pytest.raises(BadInput) as err:
        parse_c_source(UNIT + body + " }", "k.c")
    assert message in str(err.value)


def test_unsequenced_index_kernel_is_refused() -> None:
    with pytest.raises(BadInput, match="unsequenced modification and access of 'i'"):
        parse_c_source((KERNELS / "refuse" / "idx_postinc.c").read_text(), "idx_postinc.c")
