"""The skolemized second form of a VC clause (verify/skolem.py) and index temporaries
forwarded into a block loop's accesses (loops/ir.forward_index_temporaries): the second form
of a true clause is proved, of a false one not; the forwarding stops where the temporary's
inputs change."""

from __future__ import annotations

from tenspiler.loops.ir import (
    Assign,
    Binary,
    Const,
    DType,
    For,
    Load,
    Store,
    Var,
    forward_index_temporaries,
)
from tenspiler.vc.conditions import VC, Clause
from tenspiler.verify.skolem import skolemized
from tenspiler.verify.solver import check_scripts

INT = DType.INT


def _vc(hypothesis: str, goal: str) -> VC:
    decls = ("(declare-const n Int)", "(declare-const a (Array Int Int))", "(declare-const b (Array Int Int))")
    return VC(decls, (), (), (Clause("step", (hypothesis,), goal),), ())


def _answer(vc: VC, clause: Clause) -> str:
    (r,) = check_scripts([vc.script(clause)], rlimit=200_000)
    return r.answer


def test_second_form_proves_true_clauses_only() -> None:
    hyp = "(and (<= 0 n) (forall ((rr Int) (cc Int)) (=> (and (<= 0 rr) (< rr n) (<= 0 cc) (< cc n)) " \
          "(= (select a (+ (* rr n) cc)) (select b (+ (* rr n) cc))))))"
    true_goal = "(forall ((rr Int) (cc Int)) (=> (and (<= 0 rr) (< rr n) (<= 0 cc) (< cc n)) " \
                "(= (+ (select a (+ (* rr n) cc)) 1) (+ (select b (+ (* rr n) cc)) 1))))"
    false_goal = "(forall ((rr Int) (cc Int)) (=> (and (<= 0 rr) (< rr n) (<= 0 cc) (<= cc n)) " \
                 "(= (select a (+ (* rr n) cc)) (select b (+ (* rr n) cc)))))"
    for goal, expected in ((true_goal, "unsat"), (false_goal, "not unsat")):
        vc = _vc(hyp, goal)
        alt = skolemized(vc, vc.clauses[0])
        assert alt is not None and len(alt.declarations) == 2 and len(alt.hypotheses) == 2  # + the instance
        assert "forall" not in alt.goal
        assert (_answer(vc, alt) == "unsat") == (expected == "unsat"), goal  # (sat or unknown)
    # no quantified goal conjunct: no second form
    vc = _vc(hyp, "(<= 0 n)")
    assert skolemized(vc, vc.clauses[0]) is None


def test_hypotheses_are_instantiated_at_the_builders_own_skolem_constants() -> None:
    """A goal the VC builder skolemized itself (``cc.s`` declared in the prelude) gets the
    instance of a hypothesis over ``cc`` at ``cc.s`` — only when the goal reads it."""
    decls = ("(declare-const n Int)", "(declare-const a (Array Int Real))", "(declare-const b (Array Int Real))",
             "(declare-const cc.s Int)", "(declare-const rr.s Int)")
    hyp = "(forall ((cc Int)) (=> (and (<= 0 cc) (< cc n)) (= (select a (+ (* n n) cc)) (/ (select b cc) (select b n)))))"
    for goal, expected in (
        ("(=> (and (<= 0 cc.s) (< cc.s n)) (= (select a (+ (* n n) cc.s)) (/ (select b cc.s) (select b n))))", "unsat"),
        ("(=> (and (<= 0 cc.s) (<= cc.s n)) (= (select a (+ (* n n) cc.s)) (/ (select b cc.s) (select b n))))", "not"),
    ):
        vc = VC(decls, (), (), (Clause("step", (hyp,), goal),), ())
        alt = skolemized(vc, vc.clauses[0])
        assert alt is not None and len(alt.hypotheses) == 2 and alt.declarations == ()
        assert "forall" not in alt.hypotheses[1] and "cc.s" in alt.hypotheses[1]
        assert (_answer(vc, alt) == "unsat") == (expected == "unsat"), goal
    # the goal does not read rr.s: nothing to instantiate a hypothesis over rr at
    vc = VC(decls, (), (), (Clause("step", (hyp.replace("cc", "rr"),), "(<= 0 n)"),), ())
    assert skolemized(vc, vc.clauses[0]) is None


def test_index_temporaries_are_forwarded_until_their_inputs_change() -> None:
    i, j, t = Var("i", INT), Var("j", INT), Var("t", INT)
    e = Binary("+", Binary("*", i, Var("n", INT), INT), j, INT)
    body = (
        Assign("t", e),
        Store("x", t, Const(1.0, DType.FLOAT)),
        Assign("j", Binary("+", j, Const(1, INT), INT)),  # j changes: t is no longer e
        Store("x", t, Const(2.0, DType.FLOAT)),
    )
    loop = For("i", Const(0, INT), Var("m", INT), body)
    (out,) = forward_index_temporaries((loop,), {"t": INT, "i": INT, "j": INT})
    assert isinstance(out, For)
    assert out.body[1] == Store("x", e, Const(1.0, DType.FLOAT))
    assert out.body[3] == body[3]
    # a temporary holding an array element, or of a wrapping type, stays
    reads = (Assign("t", Load("y", i, INT)), Store("x", t, Const(1.0, DType.FLOAT)))
    assert forward_index_temporaries(reads, {"t": INT}) == reads
    wraps = (Assign("t", e), Store("x", t, Const(1.0, DType.FLOAT)))
    assert forward_index_temporaries(wraps, {"t": DType.UINT32}) == wraps
    # a step ``t = t + 1``: a later ``t`` is the new value, not ``t + 1`` of it
    step = (Assign("t", Binary("+", t, Const(1, INT), INT)), Store("x", t, Const(1.0, DType.FLOAT)))
    assert forward_index_temporaries(step, {"t": INT}) == step
    # the assignment that ends the forwarding still reads the forwarded value
    copy = (Assign("t", i), Assign("i", Binary("+", t, Const(1, INT), INT)))
    assert forward_index_temporaries(copy, {"t": INT, "i": INT})[1] == Assign("i", Binary("+", i, Const(1, INT), INT))
