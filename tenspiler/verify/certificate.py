"""Re-checking SMT-LIB certificates without the rest of the project.

A certificate is a self-contained SMT-LIB 2.6 script: per VC clause, the definitions,
the assumptions and the negated clause with one ``check-sat``, each clause after a
``(reset)`` (a fresh solver state, as it was proved). :func:`recheck` feeds it to a fresh
cvc5 instance through cvc5's own SMT-LIB parser (the cvc5 wheel ships no binary); it is
valid iff every ``check-sat`` answers ``unsat``.
"""

from __future__ import annotations

from pathlib import Path

from tenspiler.errors import read_utf8


def recheck_text(text: str, name: str = "certificate") -> list[str]:
    """cvc5's answer to every ``(check-sat)`` of ``text``, in order.

    Raises:
        ValueError: ``text`` is not SMT-LIB (cvc5's parser message, e.g. for a C file), or
            cvc5 reported an error; the message does not repeat ``name``.
    """
    answers: list[str] = []
    for part in text.split(RESET):
        answers += _recheck_part(part, name)
    return answers


#: What separates the clauses of a certificate (:meth:`tenspiler.vc.conditions.VC.certificate`).
RESET = "\n(reset)\n"


def _recheck_part(text: str, name: str) -> list[str]:
    """The answers of one part of a certificate, in a cvc5 of its own: a fresh term manager
    as well as a fresh solver state (after ``(reset)`` cvc5 keeps its term manager, whose
    numbering of terms steers its search: a clause proved in 1 s alone ran for minutes after
    the others of its certificate)."""
    import cvc5

    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    sm = cvc5.SymbolManager(tm)
    parser = cvc5.InputParser(solver, sm)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, name)
    answers: list[str] = []
    while True:
        try:  # cvc5 raises RuntimeError for what its parser cannot read
            cmd = parser.nextCommand()
            if cmd.isNull():
                break
            out = cmd.invoke(solver, sm).strip()
        except RuntimeError as err:
            raise ValueError(f"not an SMT-LIB certificate: {err}") from None
        if out.startswith("(error"):
            raise ValueError(out)
        if out:
            answers.append(out.split(" ")[0])
    return answers


def recheck(path: str | Path) -> list[str]:
    """:func:`recheck_text` of the file at ``path``.

    Raises:
        BadInput: the file cannot be read or is not UTF-8 (located:
            :func:`tenspiler.errors.read_utf8`).
        ValueError: it is not SMT-LIB (:func:`recheck_text`).
    """
    return recheck_text(read_utf8(path), str(path))


def is_valid(answers: list[str]) -> bool:
    return bool(answers) and all(a == "unsat" for a in answers)
