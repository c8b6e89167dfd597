"""cvc5 sessions in hard-killed worker processes.

The budget of a query is counted in work, not seconds: cvc5's resource limit per
``check-sat`` (option ``rlimit-per``, in cvc5's resource units: rewrite steps, SAT
conflicts, lemmas, ...), so the answer is the same on an idle and on a loaded machine
(issue 33). A query over its limit answers ``unknown`` (reason ``RESOURCEOUT``). Each batch
of queries also runs in a forked worker that the parent kills at a wall-clock deadline
(:func:`tenspiler.runner.map_in_child`): a safety net only, reported as ``timeout``. A clause
counts as proved only if cvc5 answered ``unsat``; ``sat`` comes with a model (the values
of the declared constants), ``unknown`` and timeouts are failures.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal, assert_never

from tenspiler.budget import PROOF_RLIMIT, SAFETY_NET_S
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
        detail: error text, if any; ``unknown``'s reason (``RESOURCEOUT`` over the limit).
        resources: cvc5's resource units used (``resource::resourceUnitsUsed``), the
            deterministic measure of the query's work (0 when not known).
    """

    answer: Answer
    seconds: float
    model: dict[str, Any] | None = None
    detail: str = ""
    resources: int = 0

    @property
    def out_of_resources(self) -> bool:
        """cvc5 gave up at the resource limit."""
        return self.answer == "unknown" and "RESOURCEOUT" in self.detail.upper()


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


def _resources(solver: Any) -> int:
    try:
        value = solver.getStatistics()["resource::resourceUnitsUsed"]
        return int(value["value"] if isinstance(value, dict) else value)
    except Exception:  # statistics are advisory: never a reason to fail a query
        return 0


def _run_script(text: str, options: dict[str, str]) -> tuple[Answer, dict[str, Any] | None, str, int]:
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
                try:
                    reason = solver.getInfo("reason-unknown")
                    reason = reason.decode() if isinstance(reason, bytes) else str(reason)
                    detail = f"unknown ({reason.strip()})"
                except Exception:
                    pass
            if word == "sat":
                model = {}
                for t in sm.getDeclaredTerms():
                    if t.getSort().isFunction():
                        continue
                    model[str(t)] = _value_to_py(solver.getValue(t))
            break
        if out.startswith("(error"):
            return "error", None, out, _resources(solver)
    return answer, model, detail, _resources(solver)


def _query(options: dict[str, str], text: str) -> QueryResult:
    """One script, in the worker: solver and parser errors become results, not crashes."""
    t0 = time.perf_counter()
    resources = 0
    try:
        answer, model, detail, resources = _run_script(text, options)
    except Exception as exc:
        answer, model, detail = "error", None, f"{type(exc).__name__}: {exc}"
    return QueryResult(answer, time.perf_counter() - t0, model, detail, resources)


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
    timeout: float = SAFETY_NET_S,
    options: dict[str, str] | None = None,
    stop_on_failure: bool = True,
    rlimit: int | None = PROOF_RLIMIT,
) -> list[QueryResult]:
    """Run each script (one ``check-sat`` each) in a worker process.

    The scripts of a batch run one after another in one forked worker; a script over the
    wall-clock safety net gets ``timeout`` and one whose worker died ``error``, and the
    scripts after it run in a fresh worker (:func:`tenspiler.runner.map_in_child`).

    Args:
        scripts: SMT-LIB texts.
        timeout: wall-clock seconds allowed per script (safety net); the worker is killed
            when exceeded.
        options: further cvc5 options set before parsing.
        stop_on_failure: stop after the first answer that is not ``unsat``.
        rlimit: cvc5 resource units per script (``rlimit-per``), the deterministic budget;
            ``None``: no limit.

    Returns:
        One :class:`QueryResult` per script run (fewer when stopped early).
    """
    opts = dict(options or {})
    if rlimit is not None:
        opts.setdefault("rlimit-per", str(rlimit))
    work = partial(_query, opts)
    outcomes = map_in_child(work, scripts, timeout=timeout, stop=_failed if stop_on_failure else None)
    return [_result(o) for o in outcomes]
