"""A second form of a VC clause for cvc5: the goal's quantifiers skolemized, the matching
hypotheses instantiated at the skolem constants, the definition of ``div``/``mod`` stated at
their ground occurrences.

A clause ``H1 ∧ … ∧ Hn ⇒ G`` is proved by asking cvc5 whether ``H1 ∧ … ∧ Hn ∧ ¬G`` has a
model. When ``G`` is a conjunction with universally quantified conjuncts ``∀x. P(x)`` (an
invariant's array facts: every element of the finished rows equals the summary's,
``∀ rr cc. 0 ≤ rr < i ∧ 0 ≤ cc < n ⇒ A[rr*n + cc] = …``), the negated goal is
``¬A ∨ ∃x. ¬P(x) ∨ …`` and cvc5 must find by E-matching the instance of the hypothesis
``∀x. Q(x)`` (the same fact one step earlier) at its own skolem. With non-linear index
terms (``rr*n + cc``) it may spend its whole resource budget without finding it.

:func:`skolemized` writes the clause so that nothing needs finding:

* each quantified conjunct ``∀x. P(x)`` of the goal becomes ``P(c)`` for fresh constants
  ``c`` (skolemization: ``¬(A ∧ ∀x.P(x) ∧ ∀y.R(y))`` and ``¬(A ∧ P(c) ∧ R(d))`` are
  equisatisfiable for fresh ``c, d``, the existentials of a disjunction being independent);
* each quantified conjunct ``∀x. Q(x)`` of a hypothesis whose bound variables have the
  names and sorts of a skolemized ``x`` gets the instance ``Q(c)`` as an extra hypothesis
  (implied by ``∀x. Q(x)``, which stays); a goal the VC builder skolemized itself (over
  constants ``x.s`` declared in the prelude) gets the instances at those constants;
* each ground ``(div t n)`` / ``(mod t n)`` (a flattened matrix's row and column of a
  skolem index) gets the Ints theory's definition at ``t, n`` as an extra hypothesis
  (``n != 0 ⇒ t = n*(div t n) + (mod t n) ∧ 0 <= (mod t n) < |n|``, valid), which cvc5
  otherwise needs non-linear reasoning to find.

So an ``unsat`` answer for the new form proves the clause: the form is sound by
construction, whatever cvc5 finds, and is itself the certificate of the clause (a fresh
cvc5 re-checks it as written). The VC builders name the variables of corresponding facts
alike (``rr``, ``cc``, ``k``), which is what makes the instances the useful ones; a clause
with neither a quantified goal conjunct, nor a hypothesis to instantiate at the builder's
skolem constants, nor a ground division has no second form.

Terms are read, rewritten and printed by cvc5's own parser and term API (no SMT-LIB parsing
here).
"""

from __future__ import annotations

import cvc5

from tenspiler.vc.conditions import VC, Clause

_SKOLEM = "skolem."


def skolemized(vc: VC, clause: Clause) -> Clause | None:
    """The clause with its goal's quantified conjuncts skolemized, the hypotheses'
    matching quantified conjuncts instantiated and the ground divisions' definitions stated
    (see the module docstring); ``None`` when there is none of these to add.

    Raises:
        RuntimeError: cvc5 could not parse the clause (a bug in the VC builder).
    """
    script = vc.script(clause, comments=False)
    prelude = script[:script.index("(push 1)")]
    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    symbols = cvc5.SymbolManager(tm)
    parser = cvc5.InputParser(solver, symbols)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, prelude, "prelude")
    while True:
        cmd = parser.nextCommand()
        if cmd.isNull():
            break
        cmd.invoke(solver, symbols)

    def term(text: str) -> cvc5.Term:
        parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "clause")
        t = parser.nextTerm()
        if t.isNull():
            raise RuntimeError(f"cvc5 could not parse a VC term: {text[:200]}")
        return t

    def conjuncts(t: cvc5.Term) -> list[cvc5.Term]:
        if t.getKind() == cvc5.Kind.AND:
            return [c for x in t for c in conjuncts(x)]
        return [t]

    def binder(q: cvc5.Term) -> tuple[tuple[str, str], ...]:
        return tuple((str(v), str(v.getSort())) for v in q[0])

    goal = conjuncts(term(clause.goal))
    declarations: list[str] = []
    skolems: list[tuple[tuple[tuple[str, str], ...], list[cvc5.Term]]] = []
    new_goal: list[cvc5.Term] = []
    for c in goal:
        if c.getKind() != cvc5.Kind.FORALL:
            new_goal.append(c)
            continue
        consts = []
        for v in c[0]:
            name = f"{_SKOLEM}{v}.{len(declarations)}"
            while name in script:
                name += "'"
            consts.append(tm.mkConst(v.getSort(), name))
            declarations.append(f"(declare-const {name} {v.getSort()})")
        skolems.append((binder(c), consts))
        new_goal.append(c[1].substitute(list(c[0]), consts))
    # the VC builder's own skolem constants (``cc.s`` for a goal over ``cc``, declared in
    # the prelude): instances at them too
    declared = {(str(t), str(t.getSort())): t for t in symbols.getDeclaredTerms()}
    instances: list[cvc5.Term] = []
    hypotheses = [term(h) for h in clause.hypotheses]
    for h in hypotheses:
        for q in conjuncts(h):
            if q.getKind() != cvc5.Kind.FORALL:
                continue
            for names, consts in skolems:
                if binder(q) == names:
                    instances.append(q[1].substitute(list(q[0]), consts))
            builders = [declared.get((f"{name}.s", sort)) for name, sort in binder(q)]
            if not skolems and all(c is not None for c in builders) and all(
                    str(c) in clause.goal for c in builders if c is not None):
                instances.append(q[1].substitute(list(q[0]), [c for c in builders if c is not None]))
    lemmas = [_division_lemma(tm, t, n) for t, n in _divisions([*hypotheses, *instances, *new_goal])]
    if not skolems and not lemmas and not instances:
        return None
    goal_text = str(new_goal[0] if len(new_goal) == 1 else tm.mkTerm(cvc5.Kind.AND, *new_goal))
    return Clause(clause.name, (*clause.hypotheses, *map(str, instances), *map(str, lemmas)), goal_text,
                  tuple(declarations))


def _divisions(terms: list[cvc5.Term]) -> list[tuple[cvc5.Term, cvc5.Term]]:
    """The ``(t, n)`` of every ``(div t n)`` and ``(mod t n)`` outside quantifiers (ground
    terms), in order of first occurrence."""
    out: dict[tuple[int, int], tuple[cvc5.Term, cvc5.Term]] = {}
    seen: set[int] = set()

    def walk(t: cvc5.Term) -> None:
        if t.getId() in seen or t.getKind() in (cvc5.Kind.FORALL, cvc5.Kind.EXISTS, cvc5.Kind.LAMBDA):
            return
        seen.add(t.getId())
        if t.getKind() in (cvc5.Kind.INTS_DIVISION, cvc5.Kind.INTS_MODULUS):
            out.setdefault((t[0].getId(), t[1].getId()), (t[0], t[1]))
        for c in t:
            walk(c)

    for t in terms:
        walk(t)
    return list(out.values())


def _division_lemma(tm: cvc5.TermManager, t: cvc5.Term, n: cvc5.Term) -> cvc5.Term:
    """SMT-LIB's definition of integer ``div`` and ``mod`` at ``t, n`` (the Ints theory:
    for ``n != 0``, ``t = n*(div t n) + (mod t n)`` and ``0 <= (mod t n) < |n|``), a valid
    fact cvc5 otherwise derives only by non-linear reasoning."""
    k = cvc5.Kind
    q, r = tm.mkTerm(k.INTS_DIVISION, t, n), tm.mkTerm(k.INTS_MODULUS, t, n)
    zero = tm.mkInteger(0)
    facts = tm.mkTerm(k.AND, tm.mkTerm(k.EQUAL, tm.mkTerm(k.ADD, tm.mkTerm(k.MULT, q, n), r), t),
                      tm.mkTerm(k.LEQ, zero, r), tm.mkTerm(k.LT, r, tm.mkTerm(k.ABS, n)))
    return tm.mkTerm(k.IMPLIES, tm.mkTerm(k.DISTINCT, n, zero), facts)
