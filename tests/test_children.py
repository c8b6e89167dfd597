"""No child process outlives ``lift``: a signal sent to the ``lift`` process alone (not to
its process group, so the compiler's own children never see it) while ``--check`` compiles
the kernel kills the compiler's whole process group, and no output file is left behind."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tenspiler.runner import run_command

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(
    shutil.which("cc") is None or not Path("/proc/self/stat").exists(), reason="needs cc and Linux /proc"
)

#: A compiler that, when it compiles (not when it preprocesses), starts a long-running
#: child of its own (as ``cc`` starts ``cc1``) and records both process ids.
FAKE_CC = """#!/bin/sh
case " $* " in *" -E "*) exec cc "$@";; esac
echo $$ > "{d}/cc.pid"
sleep 300 &
echo $! > "{d}/grandchild.pid"
wait
"""


def _stat(pid: int) -> tuple[str, int, int] | None:
    """``(state, pgid, sid)`` of process ``pid``, ``None`` when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return fields[0], int(fields[2]), int(fields[3])


def _alive(pid: int) -> bool:
    st = _stat(pid)
    return st is not None and st[0] not in ("Z", "X")


def _in_session(sid: int) -> list[int]:
    """Running processes of session ``sid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            st = _stat(int(entry.name))
            if st is not None and st[0] not in ("Z", "X") and st[2] == sid:
                found.append(int(entry.name))
    return found


def _wait_for(path: Path, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if path.exists() and path.read_text().strip():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_to_lift_during_the_check_compile_leaves_no_process(tmp_path: Path, sig: int) -> None:
    cc = tmp_path / "fake-cc"
    cc.write_text(FAKE_CC.format(d=tmp_path))
    cc.chmod(0o755)
    out = tmp_path / "out"
    env = dict(os.environ, CC=str(cc), PYTHONPATH=str(ROOT))
    lift = subprocess.Popen(
        [sys.executable, "-m", "tenspiler", str(ROOT / "examples" / "saxpy.c"), "--to", "numpy", "--check",
         "-o", str(out)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )
    try:
        assert _wait_for(tmp_path / "grandchild.pid", 300), "the check never started the compiler"
        cc_pid = int((tmp_path / "cc.pid").read_text())
        grandchild = int((tmp_path / "grandchild.pid").read_text())
        assert _alive(grandchild)
        os.kill(lift.pid, sig)  # the process only, not its group
        lift.wait(60)
        deadline = time.monotonic() + 10  # the kill is SIGKILL: immediate, but reaping is init's
        while time.monotonic() < deadline and (_alive(grandchild) or _alive(cc_pid) or _in_session(cc_pid)):
            time.sleep(0.05)
        assert not _alive(grandchild), "the compiler's child survived the signal to lift"
        assert not _alive(cc_pid)
        assert _in_session(cc_pid) == []
        assert not out.exists() or list(out.iterdir()) == [], "a partial output was left in -o DIR"
    finally:
        with_group = lift.poll() is None
        if with_group:
            os.killpg(lift.pid, signal.SIGKILL)
            lift.wait()
        for name in ("grandchild.pid", "cc.pid"):
            p = tmp_path / name
            if p.exists() and p.read_text().strip() and _alive(int(p.read_text())):
                os.kill(int(p.read_text()), signal.SIGKILL)
    if sig == signal.SIGINT:
        assert lift.returncode == 130
    else:
        assert lift.returncode == -signal.SIGTERM


def test_run_command_feeds_input_and_kills_its_group_on_keyboard_interrupt(tmp_path: Path) -> None:
    assert run_command(["cat"], 10, input="hello").stdout == "hello"
    code = (
        "import signal, sys, threading\n"
        "from tenspiler.runner import run_command\n"
        "threading.Timer(1.0, lambda: signal.raise_signal(signal.SIGINT)).start()\n"
        f"try:\n    run_command(['sh', '-c', 'sleep 300 & echo $! > {tmp_path}/pid; wait'], None)\n"
        "except KeyboardInterrupt:\n    print('interrupted')\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)), check=False)
    assert "interrupted" in r.stdout, r.stderr
    pid = int((tmp_path / "pid").read_text())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.05)
    assert not _alive(pid)


def test_no_module_starts_a_program_but_the_runner() -> None:
    """Every child goes through :mod:`tenspiler.runner` (its process-group kill)."""
    offenders = [
        str(p.relative_to(ROOT)) for p in (ROOT / "tenspiler").rglob("*.py")
        if p.name != "runner.py" and any(
            w in p.read_text(encoding="utf-8") for w in ("import subprocess", "os.system(", "os.popen(", "os.spawn")
        )
    ]
    assert offenders == []
