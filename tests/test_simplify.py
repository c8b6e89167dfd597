"""The search-only simplification rules (tenspiler/loops/simplify.py) are equivalences:
each is checked with z3 over integers (``c`` an arbitrary condition, here ``p > q``)."""

from __future__ import annotations

import z3

from tenspiler.loops.ir import (
    Binary,
    Compare,
    Const,
    DType,
    Expr,
    Logical,
    Not,
    Select,
    Var,
)
from tenspiler.loops.simplify import simplify
from tenspiler.vc.conditions import encode_cond, encode_expr

INT = DType.INT
p, q, a, b, x = (Var(n, INT) for n in "pqabx")
c = Compare(">", p, q)
flag = Select(c, Const(1, INT), Const(0, INT), INT)

CASES: list[tuple[Expr, Expr]] = [
    (Select(Compare("!=", flag, Const(0, INT)), a, b, INT), Select(c, a, b, INT)),
    (Select(Compare("==", flag, Const(0, INT)), a, b, INT), Select(c, b, a, INT)),
    (Select(Not(Not(c)), a, b, INT), Select(c, a, b, INT)),
    (Select(Not(c), a, b, INT), Select(c, b, a, INT)),
    (Select(c, Select(c, a, x, INT), b, INT), Select(c, a, b, INT)),
    (Select(c, a, Select(c, x, b, INT), INT), Select(c, a, b, INT)),
    (Select(c, Binary("+", x, a, INT), x, INT), Binary("+", x, Select(c, a, Const(0, INT), INT), INT)),
    (Select(c, x, Binary("-", x, a, INT), INT), Binary("-", x, Select(c, Const(0, INT), a, INT), INT)),
    # a branch knows its condition: nested re-tests collapse (also under ! / && / ||)
    (
        Select(c, a, Select(Logical("&&", Not(c), Compare("<", a, b)), x, Select(c, p, q, INT), INT), INT),
        Select(c, a, Select(Compare("<", a, b), x, q, INT), INT),
    ),
    (
        Select(c, Select(Logical("||", c, Compare("<", a, b)), x, p, INT), b, INT),
        Select(c, x, b, INT),
    ),
    # the if-conversion of `if (p > q) y = a; else y = b;`
    (
        Select(Compare("==", flag, Const(0, INT)), b, Select(Compare("!=", flag, Const(0, INT)), a, x, INT), INT),
        Select(c, a, b, INT),
    ),
]


def _differ(e1: Expr, e2: Expr) -> z3.CheckSatResult:
    """z3's answer to "some p, q, a, b, x make e1 and e2 differ"."""
    names = {n: n for n in "pqabx"}
    decls = "".join(f"(declare-const {n} Int)" for n in "pqabx")
    s = z3.Solver()
    s.from_string(decls + f"(assert (not (= {encode_expr(e1, names, {})} {encode_expr(e2, names, {})})))")
    return s.check()


def test_rules_rewrite_as_documented() -> None:
    for before, after in CASES:
        assert simplify(before) == after


def test_rules_are_equivalences() -> None:
    for before, after in CASES:
        assert _differ(before, after) == z3.unsat, (before, after)


def test_a_wrong_rule_would_be_caught() -> None:
    """The check is not vacuous: swapping branches without negating is refuted."""
    assert _differ(Select(c, a, b, INT), Select(c, b, a, INT)) == z3.sat
    assert encode_cond(c, {"p": "p", "q": "q"}, {}) == "(> p q)"
