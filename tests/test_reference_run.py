"""The differential check's reference run never re-enters the user's program (issue 33).

Each script records every execution of its top-level code in a file; the checks count the
lines. A script that calls ``tenspiler.lift`` at top level used to lift itself again in the
reference child, recursively (the README's API example never finished).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tenspiler.reference import _unresolved_globals

ROOT = Path(__file__).resolve().parents[1]

DOT = '''
def dot(xs, ys):
    s = 0
    for i in range(len(xs)):
        s += xs[i] * ys[i]
    return s
'''


def _run(tmp_path: Path, args: list[str], body: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    script = tmp_path / "user_script.py"
    runs = tmp_path / "runs.txt"
    script.write_text(
        "import os, tenspiler\n"
        f"with open({str(runs)!r}, 'a') as _f:\n"
        "    _f.write(f'{os.getpid()}\\n')\n"
        "print('TOP-LEVEL OUTPUT')\n" + textwrap.dedent(body),
        encoding="utf-8",
    )
    env = {**os.environ, "TENSPILER_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run(
        [sys.executable, *[str(script) if a == "SCRIPT" else a for a in args]],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    lines = runs.read_text().split() if runs.exists() else []
    return proc, lines


def test_a_script_calling_lift_at_top_level_runs_its_top_level_code_once(tmp_path: Path) -> None:
    body = DOT + '''
res = tenspiler.lift(dot, to="numpy", check=True)
print("STATUS", res.status)
fast = res.compile()
print("VALUE", fast([1.0, 2.0], [3.0, 4.0]))
'''
    proc, runs = _run(tmp_path, ["SCRIPT"], body)
    assert proc.returncode == 0, proc.stderr
    assert "STATUS verified" in proc.stdout and "VALUE 11.0" in proc.stdout
    assert len(runs) == 1, runs  # the reference child called the live function object
    assert proc.stdout.count("TOP-LEVEL OUTPUT") == 1


def test_lifted_decorator_module_prints_once_and_is_lifted(tmp_path: Path) -> None:
    body = DOT.replace("def dot", "@tenspiler.lifted(to='numpy', check=True)\ndef dot") + '''
print("LIFTED", hasattr(dot, "lifted"))
'''
    proc, runs = _run(tmp_path, ["SCRIPT"], body)
    assert proc.returncode == 0, proc.stderr
    assert "LIFTED True" in proc.stdout
    assert len(runs) == 1, runs
    assert proc.stdout.count("TOP-LEVEL OUTPUT") == 1


def test_a_helper_defined_after_the_decorator_is_found_by_running_the_module_quietly(tmp_path: Path) -> None:
    body = '''
@tenspiler.lifted(to="numpy", check=True)
def scale(xs, a):
    out = []
    for i in range(len(xs)):
        out.append(times(xs[i], a))
    return out

def times(x, a):
    return x * a

print("LIFTED", hasattr(scale, "lifted"))
'''
    proc, runs = _run(tmp_path, ["SCRIPT"], body)
    assert proc.returncode == 0, proc.stderr
    assert "LIFTED True" in proc.stdout, proc.stderr
    # `times` was not defined when the decorator ran: the reference child ran the module
    # (once), with its output silenced
    assert len(runs) == 2, runs
    assert proc.stdout.count("TOP-LEVEL OUTPUT") == 1


def test_the_cli_on_a_script_that_lifts_at_top_level_does_not_recurse(tmp_path: Path) -> None:
    body = DOT + '''
res = tenspiler.lift(dot, to="numpy")
print("AFTER LIFT")
'''
    proc, runs = _run(tmp_path, ["-m", "tenspiler", "SCRIPT", "--function", "dot", "--check"], body)
    assert proc.returncode == 0, proc.stderr
    assert "verified" in proc.stdout
    # the CLI parses the file; only the reference child imports it, and stops it at the
    # top-level tenspiler.lift (no nested lift, no second child)
    assert len(runs) == 1, runs
    assert "TOP-LEVEL OUTPUT" not in proc.stdout and "AFTER LIFT" not in proc.stdout


def _early(xs: list[float]) -> float:
    return _later(xs) + len(xs)


def test_unresolved_globals_names_what_a_function_needs_that_is_not_defined() -> None:
    assert _unresolved_globals(_early) == []  # _later is defined below, at import time
    namespace: dict[str, object] = {}
    exec("def f(xs):\n    return g(xs) + len(xs)\n", namespace)
    assert _unresolved_globals(namespace["f"]) == ["g"]  # type: ignore[arg-type]
    exec("def g(xs):\n    return h(xs)\n", namespace)
    assert _unresolved_globals(namespace["f"]) == ["h"]  # type: ignore[arg-type]


def _later(xs: list[float]) -> float:
    return sum(xs)


@pytest.mark.parametrize("entry", ["lift", "lifted", "cli"])
def test_no_entry_point_lifts_inside_a_reference_run(entry: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import tenspiler
    from tenspiler import cli, reference

    monkeypatch.setitem(reference._PROCESS, "reference", True)
    ns: dict[str, object] = {}
    exec(DOT, ns)
    dot = ns["dot"]
    if entry == "lifted":
        assert tenspiler.lifted(dot) is dot  # type: ignore[arg-type]
        return
    with pytest.raises(reference.ReferenceRunStop):
        if entry == "lift":
            tenspiler.lift(dot)  # type: ignore[arg-type]
        else:
            cli.main([str(ROOT / "examples" / "saxpy.c")])
