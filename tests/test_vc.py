"""Kernel analysis, symbolic execution, expression trees and the printed VCs (golden)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tenspiler.errors import NotLiftable
from tenspiler.frontend.c import parse_c_source
from tenspiler.ir.printer import show, show_summary
from tenspiler.loops.ir import Binary, Const, DType, Load, Var
from tenspiler.synth.search import synthesize
from tenspiler.synth.trees import expression_tree, leaf_pools, show_tree
from tenspiler.vc.conditions import build_vc
from tenspiler.vc.kernel import analyze
from tenspiler.vc.symexec import SymState, execute, index_difference
from tenspiler.vc.updates import reduction_parts

INT = DType.INT
i = Var("i", INT)

KERNELS = {
    "vadd": "void vadd(int *a, int *b, int *c, int n) { for (int i = 0; i < n; ++i) { c[i] = a[i] + b[i]; } }",
    "dot": "int dot(int *a, int *b, int n) { int s = 0; for (int i = 0; i < n; ++i) { s += a[i] * b[i]; } return s; }",
    "diveq": "void diveq(int *a, int *b, int n) { for (int i = 0; i < n; ++i) { a[i] /= b[i]; } }",
    "fourth": "void fourth(int *a, int n) { for (int i = 0; i < n; ++i) { a[i] = a[i] * a[i]; a[i] = a[i] * a[i]; } }",
}


def test_index_difference() -> None:
    plus1 = Binary("+", i, Const(1, INT), INT)
    assert index_difference(plus1, i) == 1
    assert index_difference(i, i) == 0
    assert index_difference(i, Var("j", INT)) is None
    assert index_difference(Load("a", i, INT), i) is None


def test_store_then_load_is_forwarded() -> None:
    fn = parse_c_source(KERNELS["fourth"])
    k = analyze(fn)
    (a,) = k.arrays
    sq = Binary("*", Load("a", i, INT), Load("a", i, INT), INT)
    assert a.value == Binary("*", sq, sq, INT)
    assert a.offset == 0


def test_unresolvable_aliasing_is_refused() -> None:
    src = "void f(int *a, int *idx, int n) { for (int i = 0; i < n; ++i) { a[i] = 1; a[i] = a[n] + 1; } }"
    with pytest.raises(NotLiftable, match="cannot tell"):
        analyze(parse_c_source(src))


def test_kernel_shape() -> None:
    k = analyze(parse_c_source(KERNELS["dot"]))
    assert [s.name for s in k.scalars] == ["s"]
    assert k.scalars[0].init == Const(0, INT)
    assert k.result == Var("s", INT)
    assert k.arrays == ()
    sign, f = reduction_parts(k.scalars[0])
    assert sign == "+" and f == Binary("*", Load("a", i, INT), Load("b", i, INT), INT)


def test_dead_accumulator_needs_no_invariant() -> None:
    src = "void f(int *a, int *c, int n) { int t = 0; for (int i = 0; i < n; ++i) { t += a[i]; c[i] = a[i]; } }"
    k = analyze(parse_c_source(src))
    assert k.scalars == () and [a.array for a in k.arrays] == ["c"]


@pytest.mark.parametrize(
    ("src", "tree"),
    [
        (KERNELS["vadd"], "(+ vec vec)"),
        ("void f(int *a, int m, int *b, int n) { for (int i = 0; i < n; ++i) { b[i] = m * a[i] - -b[i]; } }",
         "(- (* sca vec) (- vec))"),
    ],
)
def test_expression_tree(src: str, tree: str) -> None:
    k = analyze(parse_c_source(src))
    assert show_tree(expression_tree(k.arrays[0].value, k)) == tree


def test_leaf_pools_are_live_values_and_program_constants() -> None:
    src = "void f(int *a, int *b, int s, int unused, int n) { for (int i = 1; i < n; ++i) { b[i] = a[i - 1] * s + 3; } }"
    k = analyze(parse_c_source(src))
    pools = leaf_pools(k, [k.arrays[0].value])
    assert [show(v) for v in pools.vectors] == ["slice(a, 0, (__bound__ - 1))"]
    assert [show(v) for v in pools.scalars] == ["s", "1", "3"]  # not 'unused'


def test_nested_loops_are_reported_not_lifted() -> None:
    src = "void f(int *a, int n) { for (int i = 0; i < n; ++i) { for (int j = 0; j < n; ++j) { a[j] += 1; } } }"
    with pytest.raises(NotLiftable, match="nested loops"):
        analyze(parse_c_source(src, "nested.c"))


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_certificate_golden(name: str, golden: Callable[[str, str], None]) -> None:
    k = analyze(parse_c_source(KERNELS[name], f"{name}.c"))
    syn = synthesize(k)
    text = build_vc(k, syn.candidate).certificate()  # each clause after (reset)
    golden(f"smt/{name}.smt2", text)
    golden(f"tensir/{name}.txt", show_summary(syn.summary) + "\n")


def test_symbolic_state_copy_is_independent() -> None:
    st = SymState()
    st2 = execute([], st)
    st2.scalars["x"] = Const(1, INT)
    assert "x" not in st.scalars
