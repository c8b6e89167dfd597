"""cvc5 sessions in hard-killed worker processes.

cvc5's own time limits are not reliable (DESIGN.md, "Verification encoding"), so each
batch of queries runs in a forked worker that the parent kills at the deadline
(:func:`tenspiler.runner.map_in_child`). A clause
counts as proved only if cvc5 answered ``unsat``; ``sat`` comes with a model (the values
of the declared constants), ``unknown`` and timeouts are failures.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal, assert_never

from tenspiler.runner import (
    Crashed,
    Outcome,
    Raised,
    Returned,
    TimedOut,
    describe_error,
    map_in_child,
)

Answer = Literal["unsat", "sat", "unknown", "timeout", "error"]


@dataclass(frozen=True)
class QueryResult:
    """Outcome of one SMT-LIB script with a single ``(check-sat)``.

    Attributes:
        answer: cvc5's answer, or ``timeout`` (worker killed) / ``error`` (parse or
            solver error, text in ``detail``).
        seconds: wall-clock time of the query.
        model: on ``sat``, declared constant name → Python value (int, float, or for
            arrays ``{"default": v, "entries": {index: value}}``).
        detail: error text, if any.
    """

    answer: Answer
    seconds: float
    model: dict[str, Any] | None = None
    detail: str = ""


def _value_to_py(term: Any) -> Any:
    import cvc5

    k = term.getKind()
    if k == cvc5.Kind.STORE:
        base = _value_to_py(term[0])
        base["entries"].setdefault(int(_value_to_py(term[1])), _value_to_py(term[2]))
        return base
    if k == cvc5.Kind.CONST_ARRAY:
        return {"default": _value_to_py(term.getConstArrayBase()), "entries": {}}
    if term.isIntegerValue():
        return int(term.getIntegerValue())
    if term.isRealValue():
        return float(term.getRealValue())
    if term.isBooleanValue():
        return bool(term.getBooleanValue())
    return str(term)


def _run_script(text: str, options: dict[str, str]) -> tuple[Answer, dict[str, Any] | None, str]:
    import cvc5

    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    for key, val in options.items():
        solver.setOption(key, val)
    sm = cvc5.SymbolManager(tm)
    parser = cvc5.InputParser(solver, sm)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "query")
    answer: Answer = "error"
    model: dict[str, Any] | None = None
    detail = ""
    while True:
        cmd = parser.nextCommand()
        if cmd.isNull():
            break
        out = cmd.invoke(solver, sm).strip()
        word = out.split(" ")[0] if out else ""
        if word in ("sat", "unsat", "unknown"):
            answer = word  # type: ignore[assignment]
            if word == "unknown":
                detail = out
            if word == "sat":
                model = {}
                for t in sm.getDeclaredTerms():
                    if t.getSort().isFunction():
                        continue
                    model[str(t)] = _value_to_py(solver.getValue(t))
            break
        if out.startswith("(error"):
            return "error", None, out
    return answer, model, detail


def _query(options: dict[str, str], text: str) -> QueryResult:
    """One script, in the worker: solver and parser errors become results, not crashes."""
    t0 = time.perf_counter()
    try:
        answer, model, detail = _run_script(text, options)
    except Exception as exc:
        answer, model, detail = "error", None, f"{type(exc).__name__}: {exc}"
    return QueryResult(answer, time.perf_counter() - t0, model, detail)


def _result(outcome: Outcome[QueryResult]) -> QueryResult:
    match outcome:
        case Returned(value=r):
            return r
        case TimedOut(seconds=seconds):
            return QueryResult("timeout", seconds)
        case Crashed():
            return QueryResult("error", 0.0, None, f"solver process died ({outcome.describe()})")
        case Raised(error=e, seconds=seconds):  # the result could not be sent back
            return QueryResult("error", seconds, None, describe_error(e))
        case _:
            assert_never(outcome)


def _failed(outcome: Outcome[QueryResult]) -> bool:
    return not (isinstance(outcome, Returned) and outcome.value.answer == "unsat")


def check_scripts(
    scripts: Sequence[str],
    timeout: float,
    options: dict[str, str] | None = None,
    stop_on_failure: bool = True,
) -> list[QueryResult]:
    """Run each script (one ``check-sat`` each) in a worker process.

    The scripts of a batch run one after another in one forked worker; a script over the
    time limit gets ``timeout`` and one whose worker died ``error``, and the scripts after
    it run in a fresh worker (:func:`tenspiler.runner.map_in_child`).

    Args:
        scripts: SMT-LIB texts.
        timeout: seconds allowed per script; the worker is killed when exceeded.
        options: cvc5 options set before parsing (e.g. ``{"rlimit-per": "…"}``).
        stop_on_failure: stop after the first answer that is not ``unsat``.

    Returns:
        One :class:`QueryResult` per script run (fewer when stopped early).
    """
    work = partial(_query, dict(options or {}))
    outcomes = map_in_child(work, scripts, timeout=timeout, stop=_failed if stop_on_failure else None)
    return [_result(o) for o in outcomes]
