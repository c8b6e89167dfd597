"""Integer selects in index expressions (``vc.symexec``): an opaque value in polynomial
identities (``r * min(n, m) + c`` is linear in ``r``), never taken for free of a variable it
reads, and given back only applied to the variables it was read with."""

from __future__ import annotations

import sympy

from tenspiler.loops.ir import Binary, Compare, DType, Select, Var
from tenspiler.vc import symexec

INT = DType.INT


def _min(a: str, b: str) -> Select:
    return Select(Compare("<", Var(b, INT), Var(a, INT)), Var(b, INT), Var(a, INT), INT)


def test_a_select_of_parameters_is_a_coefficient() -> None:
    s = _min("n", "m")
    index = Binary("+", Binary("*", Var("r", INT), s, INT), Var("c", INT), INT)
    form = symexec.linear_in(index, ("r",))
    assert form is not None
    (coef,), rest = form
    assert coef == s
    assert rest == Var("c", INT)
    assert symexec.index_difference(Binary("+", s, Var("c", INT), INT), s) is None
    assert symexec.index_difference(Binary("+", Var("c", INT), s, INT), Binary("+", s, Var("c", INT), INT)) == 0


def test_a_select_reading_the_counter_is_not_free_of_it() -> None:
    s = _min("r", "m")  # reads r itself
    index = Binary("+", Binary("*", Var("r", INT), Var("k", INT), INT), s, INT)
    assert symexec.linear_in(index, ("r",)) is None


def test_a_substituted_select_is_not_given_back() -> None:
    s = _min("r", "m")
    se = symexec.to_sympy(s)
    assert se is not None
    assert symexec.from_sympy(se) == s
    shifted = se.subs(sympy.Symbol("r", integer=True), sympy.Symbol("r", integer=True) + 1)
    assert symexec.from_sympy(shifted) is None


def test_float_selects_and_selects_reading_arrays_stay_opaque_to_sympy() -> None:
    from tenspiler.loops.ir import Load

    f = Select(Compare("<", Var("a", INT), Var("b", INT)), Var("x", DType.DOUBLE), Var("y", DType.DOUBLE), DType.DOUBLE)
    assert symexec.to_sympy(f) is None
    ld = Select(Compare("<", Load("p", Var("i", INT), INT), Var("b", INT)), Var("a", INT), Var("b", INT), INT)
    assert symexec.to_sympy(ld) is None
