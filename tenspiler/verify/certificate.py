"""Re-checking SMT-LIB certificates without the rest of the project.

A certificate is a self-contained SMT-LIB 2.6 script: per VC clause, the definitions,
the assumptions and the negated clause with one ``check-sat``, each clause after a
``(reset)`` (a fresh solver state, as it was proved). :func:`recheck` feeds it to a fresh
cvc5 instance through cvc5's own SMT-LIB parser (the cvc5 wheel ships no binary); it is
valid iff every ``check-sat`` answers ``unsat``.
"""

from __future__ import annotations

from pathlib import Path


def recheck_text(text: str, name: str = "certificate") -> list[str]:
    """cvc5's answer to every ``(check-sat)`` of ``text``, in order.

    Raises:
        ValueError: cvc5 reported a parse or solver error (message included).
    """
    import cvc5

    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    sm = cvc5.SymbolManager(tm)
    parser = cvc5.InputParser(solver, sm)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, name)
    answers: list[str] = []
    while True:
        cmd = parser.nextCommand()
        if cmd.isNull():
            break
        out = cmd.invoke(solver, sm).strip()
        if out.startswith("(error"):
            raise ValueError(f"{name}: {out}")
        if out:
            answers.append(out.split(" ")[0])
    return answers


def recheck(path: str | Path) -> list[str]:
    """:func:`recheck_text` of the file at ``path``."""
    p = Path(path)
    return recheck_text(p.read_text(), str(p))


def is_valid(answers: list[str]) -> bool:
    return bool(answers) and all(a == "unsat" for a in answers)
