"""The child-process runner (tenspiler/runner.py): outcomes as data, deadlines kept, every
child and its process group killed and reaped.

Liveness is read from ``/proc`` (a killed grandchild is reparented to init, which may not
reap it at once: a zombie counts as dead)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tenspiler.runner import (
    STDERR_TAIL,
    ChildError,
    ChildRegistry,
    Crashed,
    Raised,
    Returned,
    TimedOut,
    Worker,
    call_in_child,
    describe_error,
    describe_status,
    map_in_child,
    run_command,
    signal_name,
)

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists() or not hasattr(os, "fork"),
                                reason="needs fork and /proc")


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, process group) of a process, ``None`` if it does not exist."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return fields[0], int(fields[2])


def alive(pid: int) -> bool:
    st = _stat(pid)
    return st is not None and st[0] not in ("Z", "X")


def live_members(pgid: int) -> list[int]:
    """The processes of group ``pgid`` that are not zombies."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            st = _stat(int(d.name))
            if st is not None and st[1] == pgid and st[0] not in ("Z", "X"):
                out.append(int(d.name))
    return out


def reaped(pid: int) -> bool:
    """``pid`` is no child of ours left to wait for (no zombie of ours)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def wait_dead(pid: int, seconds: float = 2.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not alive(pid):
            return True
        time.sleep(0.01)
    return not alive(pid)


# ------------------------------------------------------------------ Worker


def _work(x: object) -> object:
    if x == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    if x == "raise":
        raise ValueError("bad item")
    if x == "hang":
        time.sleep(60)
    if x == "exit0":
        os._exit(0)
    return os.getpid(), os.getpgid(0), x


def test_a_worker_keeps_one_child_between_calls_and_replaces_a_crashed_one() -> None:
    with Worker(_work) as w:
        a = w.call([1, 2])
        b = w.call({"big": bytes(1 << 20)})  # larger than a pipe's buffer, both ways
        assert isinstance(a, Returned) and isinstance(b, Returned)
        pid, pgid, value = a.value
        assert value == [1, 2] and b.value[2] == {"big": bytes(1 << 20)}
        assert b.value[0] == pid != os.getpid() and pgid == pid  # one child, leading its group
        r = w.call("raise")
        assert isinstance(r, Raised) and str(r.error) == "bad item"
        c = w.call(3)
        assert isinstance(c, Returned) and c.value[0] == pid  # an exception keeps the child
        crash = w.call("segv")
        assert isinstance(crash, Crashed) and crash.signal == "SIGSEGV"
        assert reaped(pid) and not alive(pid)
        d = w.call(4)
        assert isinstance(d, Returned) and d.value[0] != pid  # a new child
        t = w.call("hang", timeout=0.3)
        assert isinstance(t, TimedOut) and not alive(d.value[0]) and reaped(d.value[0])
        e = w.call(5)
        assert isinstance(e, Returned) and e.value[2] == 5
        assert isinstance(w.call("exit0"), Crashed)  # ended without an answer (twice: retried once)
    assert not alive(e.value[0]) and reaped(e.value[0])  # closed with the block


def test_an_idle_worker_child_ends_by_itself_and_the_next_call_forks_again() -> None:
    w = Worker(_work, idle=0.2)
    a = w.call(1)
    assert isinstance(a, Returned)
    assert wait_dead(a.value[0], 5.0)
    b = w.call(2)
    assert isinstance(b, Returned) and b.value[0] != a.value[0] and b.value[2] == 2
    assert w.close() is not None and w.close() is None


# ------------------------------------------------------------------ map_in_child


def test_values_come_back_in_order_from_one_child() -> None:
    out = map_in_child(lambda x: (x * x, os.getpid()), [1, 2, 3], timeout=5)
    assert [o.value[0] for o in out if isinstance(o, Returned)] == [1, 4, 9]
    pids = {o.value[1] for o in out if isinstance(o, Returned)}
    assert len(pids) == 1 and os.getpid() not in pids  # one child, not this process
    (pid,) = pids
    assert reaped(pid) and not alive(pid)
    assert all(o.seconds >= 0 for o in out if isinstance(o, Returned))
    r = call_in_child(lambda: {"a": [1.5]})
    assert isinstance(r, Returned) and r.value == {"a": [1.5]}


def test_an_exception_is_raised_for_its_item_and_the_child_goes_on() -> None:
    def work(x: int) -> int:
        if x == 1:
            raise ValueError(f"bad {x}")
        return os.getpid()

    a, b, c = map_in_child(work, [0, 1, 2], timeout=5)
    assert isinstance(a, Returned) and isinstance(c, Returned) and a.value == c.value  # the same child
    assert isinstance(b, Raised) and type(b.error) is ValueError and str(b.error) == "bad 1"


def test_what_cannot_be_pickled_comes_back_as_an_error() -> None:
    class Unpicklable(Exception):
        def __init__(self, a: int, b: int) -> None:
            super().__init__(f"{a}/{b}")

    def raise_it() -> None:
        raise Unpicklable(1, 2)

    r = call_in_child(raise_it)
    assert isinstance(r, Raised) and isinstance(r.error, ChildError)
    assert r.error.type_name == "Unpicklable" and describe_error(r.error) == "Unpicklable: 1/2"
    r = call_in_child(lambda: (lambda: 0))  # a lambda cannot be pickled
    assert isinstance(r, Raised) and "pickle" in str(r.error).lower()


def test_a_segfault_is_reported_by_signal_and_the_rest_runs_in_a_new_child() -> None:
    def work(x: int) -> int:
        if x == 1:
            os.kill(os.getpid(), signal.SIGSEGV)
        return os.getpid()

    a, b, c = map_in_child(work, [0, 1, 2], timeout=5)
    assert isinstance(b, Crashed) and b.returncode == -signal.SIGSEGV
    assert b.signal == "SIGSEGV" and b.describe() == "killed by SIGSEGV"
    assert isinstance(a, Returned) and isinstance(c, Returned) and a.value != c.value
    assert reaped(a.value) and reaped(c.value)


def test_an_exit_is_reported_with_its_code_and_captured_stderr() -> None:
    def work(_: object) -> None:
        os.write(2, b"runtime error: signed integer overflow\n")  # as C code writes it
        os._exit(3)

    (o,) = map_in_child(work, [None], capture_stderr=True)
    assert isinstance(o, Crashed) and o.returncode == 3 and o.signal is None
    assert o.describe() == "exit status 3"
    assert o.stderr == "runtime error: signed integer overflow\n"
    (o,) = map_in_child(work, [None])  # not captured: "" (and printed to this stderr)
    assert isinstance(o, Crashed) and o.stderr == ""


def test_the_stderr_tail_is_kept() -> None:
    def work(_: object) -> None:
        os.write(2, b"x" * (3 * STDERR_TAIL) + b"\nLAST LINE\n")
        os.abort()

    (o,) = map_in_child(work, [None], capture_stderr=True)
    assert isinstance(o, Crashed) and o.signal == "SIGABRT"
    assert o.stderr.endswith("LAST LINE\n") and len(o.stderr) <= STDERR_TAIL


def test_a_hang_is_killed_at_the_deadline_with_its_group_and_reaped() -> None:
    def work(x: int) -> tuple[int, int]:
        if x == 0:
            sleeper = subprocess.Popen(["sleep", "60"])  # a grandchild in the child's group
            return os.getpid(), sleeper.pid
        if x == 1:
            time.sleep(60)
        return os.getpid(), 0

    t0 = time.monotonic()
    first, hung, after = map_in_child(work, [0, 1, 2], timeout=0.5)
    assert time.monotonic() - t0 < 5
    assert isinstance(hung, TimedOut) and 0.5 <= hung.seconds < 3
    assert isinstance(first, Returned) and isinstance(after, Returned)
    child, grandchild = first.value
    assert after.value[0] != child  # a fresh child for the rest
    assert reaped(child) and not alive(child) and reaped(after.value[0])
    assert wait_dead(grandchild) and live_members(child) == []


def test_a_child_that_ends_normally_leaves_no_grandchild() -> None:
    r = call_in_child(lambda: (os.getpid(), subprocess.Popen(["sleep", "60"]).pid))
    assert isinstance(r, Returned)
    child, grandchild = r.value
    assert reaped(child) and wait_dead(grandchild) and live_members(child) == []


def test_a_grandchild_holding_the_pipe_does_not_make_a_crash_hang() -> None:
    """The child crashes but a forked grandchild keeps the result pipe open: without a
    deadline the runner must still notice the end of the child (and kill the group)."""
    def work(_: object) -> None:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        os.kill(os.getpid(), signal.SIGKILL)

    got: list[object] = []
    t = threading.Thread(target=lambda: got.extend(map_in_child(work, [None])), daemon=True)
    t.start()
    t.join(5)
    assert not t.is_alive(), "the runner hangs on a pipe held open by a grandchild"
    (o,) = got
    assert isinstance(o, Crashed) and o.returncode == -signal.SIGKILL


def test_total_deadline_and_stop() -> None:
    def slow(x: int) -> int:
        if x == 1:  # never ends: the total deadline stops it, however loaded the machine
            time.sleep(3600)
        return x

    out = map_in_child(slow, [0, 1, 2, 3], total=5.0)
    assert [type(o) for o in out] == [Returned, TimedOut]  # the rest is not run
    ran = map_in_child(lambda x: 1 // x, [1, 0, 2, 3], stop=lambda o: isinstance(o, Raised))
    assert [type(o) for o in ran] == [Returned, Raised]
    ran = map_in_child(lambda x: os.abort() if x == 1 else x, [0, 1, 2], stop=lambda o: isinstance(o, Crashed))
    assert [type(o) for o in ran] == [Returned, Crashed]


def test_status_descriptions() -> None:
    assert signal_name(-signal.SIGSEGV) == "SIGSEGV" and signal_name(0) is None and signal_name(None) is None
    assert signal_name(-77) is None
    assert describe_status(-signal.SIGKILL) == "killed by SIGKILL"
    assert describe_status(-77) == "killed by signal 77"
    assert describe_status(2) == "exit status 2" and describe_status(None) == "exit status unknown"


# ------------------------------------------------------------------ run_command


def test_a_command_output_and_exit_status() -> None:
    r = run_command(["sh", "-c", "echo out; echo err >&2; exit 3"], 10)
    assert (r.returncode, r.timed_out, r.stdout, r.stderr) == (3, False, "out\n", "err\n")
    r = run_command([sys.executable, "-c", "import os; os.abort()"], 10)
    assert r.signal == "SIGABRT" and r.describe() == "killed by SIGABRT"


def test_a_command_is_killed_with_its_grandchild_at_the_deadline() -> None:
    """``sh`` starts ``sleep`` in the background and waits: killing only ``sh`` (what
    ``Popen.kill`` does) would leave ``sleep`` running."""
    t0 = time.monotonic()
    r = run_command(["sh", "-c", "sleep 60 & echo $!; wait"], 0.5)
    assert r.timed_out and r.returncode == -signal.SIGKILL and time.monotonic() - t0 < 5
    grandchild = int(r.stdout.split()[0])
    assert wait_dead(grandchild)


def test_a_command_that_exits_leaving_a_background_process() -> None:
    """The background process holds stdout open: the run ends with the command (not at the
    deadline), and the leftover is killed."""
    t0 = time.monotonic()
    r = run_command(["sh", "-c", "sleep 60 & echo $!; exit 4"], 30)
    assert not r.timed_out and r.returncode == 4 and time.monotonic() - t0 < 5
    assert wait_dead(int(r.stdout.split()[0]))


def test_the_warn_signal_comes_before_the_kill() -> None:
    code = "trap 'echo warned >&2; exit 5' USR1; while :; do sleep 0.05; done"
    r = run_command(["sh", "-c", code], 0.3, warn_signal=signal.SIGUSR1)
    assert r.timed_out and r.returncode == 5 and r.stderr == "warned\n"


def test_output_keeps_its_end() -> None:
    r = run_command([sys.executable, "-c", "print('x' * 100000); print('END')"], 10, output_limit=1000)
    assert r.stdout.endswith("END\n") and len(r.stdout) == 1000


def test_registry_stops_everything() -> None:
    reg = ChildRegistry()
    results = []
    t = threading.Thread(target=lambda: results.append(run_command(["sleep", "60"], 30, registry=reg)))
    t.start()
    time.sleep(0.3)
    reg.stop_all()
    t.join(5)
    assert not t.is_alive() and results[0].returncode == -signal.SIGKILL and not results[0].timed_out
    r = run_command(["true"], 10, registry=reg)
    assert (r.returncode, r.stderr) == (-signal.SIGKILL, "run interrupted")
    reg.allow_start()
    assert run_command(["true"], 10, registry=reg).returncode == 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_forked_child_dies_with_its_parent_killed_from_outside(tmp_path: Path) -> None:
    """``lift bench`` kills the process group of a ``lift`` at its wall limit: the forked
    workers (cvc5), each in a group of its own, must not survive it."""
    pidfile = tmp_path / "child.pid"
    code = (
        "import os, time\n"
        "from tenspiler.runner import call_in_child\n"
        "def hang():\n"
        f"    open({str(pidfile)!r}, 'w').write(str(os.getpid()))\n"
        "    time.sleep(60)\n"
        "call_in_child(hang)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    r = run_command([sys.executable, "-c", code], 2.0, env=env)
    assert r.timed_out, r.stderr
    assert wait_dead(int(pidfile.read_text()))


# ------------------------------------------------------------------ fresh interpreters


def test_fresh_interpreters_return_in_order_raise_and_time_out() -> None:
    """Each item in an interpreter of its own (``"module:function"``, items and results
    pickled), several at once; an exception is :class:`Raised` for its item, a child past
    its deadline is :class:`TimedOut` and killed, the others go on."""
    from tenspiler.runner import FreshInterpreters

    items = ["3", "x", "40"]
    with FreshInterpreters("builtins:int", items, timeout=60, parallel=2) as pool:
        outcomes = pool.start().results()
    assert [type(o) for o in outcomes] == [Returned, Raised, Returned]
    assert outcomes[0].value == 3 and outcomes[2].value == 40  # type: ignore[union-attr]
    assert "invalid literal" in str(outcomes[1].error)  # type: ignore[union-attr]
    t0 = time.monotonic()
    with FreshInterpreters("time:sleep", [60, 0], timeout=3) as pool:
        slow, quick = pool.start().results()
    assert isinstance(slow, TimedOut) and isinstance(quick, Returned) and time.monotonic() - t0 < 30


def test_fresh_interpreters_get_a_quiet_environment_and_never_fork_this_process() -> None:
    """The children see TF_CPP_MIN_LOG_LEVEL=3 (TensorFlow's banners off); this process
    does not fork (no at-fork handler runs here, as JAX's warning would)."""
    from tenspiler.runner import FreshInterpreters

    forks: list[int] = []
    os.register_at_fork(before=lambda: forks.append(1))
    with FreshInterpreters("os:getenv", ["TF_CPP_MIN_LOG_LEVEL"]) as pool:
        (outcome,) = pool.start().results()
    assert isinstance(outcome, Returned) and outcome.value == "3"
    assert not forks
