"""Child processes with a deadline: the one place where tenspiler forks, spawns and kills.

Whatever may crash or hang — cvc5, the compiled C kernel, the user's Python function, the
Gemmini C file under the recording header, a whole ``lift`` of one benchmark kernel — runs
in a child process, and the caller gets back what happened as data:

* :func:`map_in_child` calls a Python function on each item of a list in a forked child
  (the function and the items are inherited through ``fork``, never pickled; each result
  comes back pickled through a pipe), each item within ``timeout`` seconds. The outcome of
  an item is :class:`Returned`, :class:`Raised`, :class:`TimedOut` or :class:`Crashed`; after
  a time-out or a crash the remaining items run in a fresh child. :func:`call_in_child` is
  the one-call form.
* :class:`Worker` keeps one forked child for calls given one at a time (each item pickled
  to it through a pipe): :func:`call_in_child` without a fork per call; a fresh child after a
  time-out or a crash, and the child ends itself when idle.
* :func:`run_command` runs a command in a session of its own, captures its stdout and
  stderr, and kills its process group at the deadline: a :class:`CommandResult`. Every
  program tenspiler starts (compilers, the system preprocessor, built kernels) goes through
  it: none is started with :mod:`subprocess` directly.
* :class:`FreshInterpreters` calls a function named ``"module:function"`` on each item in a
  fresh Python interpreter of its own (started by ``fork`` + ``exec``, never a bare fork;
  the item pickled to it through a file, the result back likewise), several at once, each
  within its deadline, with outcomes as for :func:`map_in_child`: for code that loads
  libraries which start threads (PyTorch, JAX, TensorFlow), which must not be loaded in a
  process that forks afterwards (JAX: "os.fork() is incompatible with multithreaded
  code"). Started, it runs while the caller does other work (even forks).

Guarantees: a child never outlives the call. Each child leads a process group of its own;
when the call ends (results complete, stopped early, deadline, crash, or an exception in
the caller such as ``KeyboardInterrupt``) the whole group is sent ``SIGKILL`` *before* the
child is reaped, so its grandchildren die with it and the group id cannot have been reused
by then; then the child is reaped (no zombie). Waiting is always bounded by the deadline
(``timeout=None`` waits as long as the child runs). A grandchild that leaves the group
(``setsid``) escapes the kill; tenspiler's children do not.

A forked child must also die when its parent is killed from outside (``lift bench`` kills
the process group of a ``lift`` at its wall limit, and the solver's workers must go with
it): on Linux it gets ``PR_SET_PDEATHSIG`` = ``SIGKILL`` (its own grandchildren are not
covered). Where that does not exist, a forked child stays in the caller's process group
instead of leading one (an outside kill of the group reaches it; its grandchildren are then
not killed by the runner).

The process groups of the commands and forked children running at any moment are also
recorded: when this process ends by ``SIGTERM`` or ``SIGHUP`` (a handler is installed at the
first child, only where the signal still has its default action, and it ends the process by
the same signal after the kill) or at interpreter exit (:mod:`atexit`), they are killed too.
``KeyboardInterrupt`` (``SIGINT`` sent to this process only, not to its group, so a
compiler's ``cc1`` never sees it) unwinds through the call, which kills the group. Only an
uncatchable ``SIGKILL`` of this process leaves a command running (a forked child still dies
with it).

POSIX only for the isolation: where ``fork`` is unavailable, :func:`map_in_child` calls the
function in this process (no deadline, no isolation).
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import faulthandler
import functools
import importlib
import os
import pickle
import select
import selectors
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Generic, NoReturn, TypeAlias, TypeVar

__all__ = [
    "CAN_FORK",
    "STDERR_TAIL",
    "ChildError",
    "ChildRegistry",
    "CommandResult",
    "Crashed",
    "FreshInterpreters",
    "Outcome",
    "Raised",
    "Returned",
    "TimedOut",
    "Worker",
    "call_in_child",
    "describe_error",
    "describe_status",
    "fresh_interpreter_main",
    "kill_running_children",
    "map_in_child",
    "run_command",
    "signal_name",
]

T = TypeVar("T")
R = TypeVar("R")

#: Whether :func:`map_in_child` can isolate its calls (the platform has ``fork``).
CAN_FORK = hasattr(os, "fork")

#: Bytes kept of a forked child's captured stderr (its end): :attr:`Crashed.stderr`.
STDERR_TAIL = 64 * 1024

#: Bytes kept of each output stream of :func:`run_command` (its end).
OUTPUT_LIMIT = 16 * 1024 * 1024

#: Seconds between two checks of whether a child has ended while its pipes stay open.
_TICK = 0.05

_HEADER = struct.Struct("<Q")


# ------------------------------------------------------------------ how a child ended


def signal_name(returncode: int | None) -> str | None:
    """The name of the signal that killed a child with this return code (``-11`` →
    ``"SIGSEGV"``, as :attr:`subprocess.Popen.returncode` counts), or ``None`` when it was
    not killed by a signal or the signal has no name."""
    if returncode is None or returncode >= 0:
        return None
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return None


def describe_status(returncode: int | None) -> str:
    """``"killed by SIGSEGV"``, ``"killed by signal 77"``, ``"exit status 3"`` or
    ``"exit status unknown"`` (``None``: the child was reaped by someone else)."""
    if returncode is None:
        return "exit status unknown"
    if returncode < 0:
        return f"killed by {signal_name(returncode) or f'signal {-returncode}'}"
    return f"exit status {returncode}"


class ChildError(Exception):
    """An exception raised in a forked child that cannot travel back as itself (it does not
    survive pickling): its type name and message.

    Attributes:
        type_name: the class name of the original exception.
        message: ``str()`` of the original exception.
    """

    def __init__(self, type_name: str, message: str) -> None:
        self.type_name = type_name
        self.message = message
        super().__init__(type_name, message)

    def __str__(self) -> str:
        return f"{self.type_name}: {self.message}"


def describe_error(error: BaseException) -> str:
    """``"TypeName: message"`` of an exception, the original type name for a
    :class:`ChildError`."""
    if isinstance(error, ChildError):
        return str(error)
    return f"{type(error).__name__}: {error}"


@dataclass(frozen=True)
class Returned(Generic[R]):
    """The function returned ``value`` (received back by pickling) after ``seconds``."""

    value: R
    seconds: float


@dataclass(frozen=True)
class Raised:
    """The function raised ``error`` (an :class:`Exception`; a :class:`ChildError` when the
    exception could not be pickled, or the ``pickle`` error when the returned value could
    not) after ``seconds``. The child goes on with the next item."""

    error: Exception
    seconds: float


@dataclass(frozen=True)
class TimedOut:
    """No result within the deadline: the child was killed after ``seconds``.
    ``stderr``: the end of its stderr when captured, else ``""``."""

    seconds: float
    stderr: str = ""


@dataclass(frozen=True)
class Crashed:
    """The child ended before returning (a signal, ``os._exit``, ``sys.exit``, an
    exception that is not an :class:`Exception`) after ``seconds``.

    Attributes:
        returncode: exit status, negative for the signal that killed it (``-11``:
            ``SIGSEGV``), ``None`` if unknown.
        seconds: wall-clock seconds from the start of the item to the end of the child.
        stderr: the end of its stderr (at most :data:`STDERR_TAIL` bytes, decoded) when
            captured, else ``""``.
    """

    returncode: int | None
    seconds: float
    stderr: str = ""

    @property
    def signal(self) -> str | None:
        """The name of the killing signal (``"SIGSEGV"``), or ``None``."""
        return signal_name(self.returncode)

    def describe(self) -> str:
        """``"killed by SIGSEGV"`` / ``"exit status 3"`` (:func:`describe_status`)."""
        return describe_status(self.returncode)


#: What happened to one item of :func:`map_in_child`.
Outcome: TypeAlias = Returned[R] | Raised | TimedOut | Crashed


# ------------------------------------------------------------------ process groups


def _kill_group(pid: int, group: bool = True) -> None:
    """``SIGKILL`` to the process group ``pid`` (if ``group``: ``pid`` leads one) and to
    ``pid`` itself (in case it left the group). Call it only while ``pid`` is not yet
    reaped: then the number is still ours."""
    if group:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)


#: Children running now (pid → whether it leads its own group): killed at exit and on SIGTERM.
_LIVE: dict[int, bool] = {}
_LIVE_LOCK = threading.Lock()
#: Signals that end this process after the running children are killed.
_FATAL_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class _Hooks:
    """The process whose children :data:`_LIVE` lists (a forked child starts with a copy),
    and whether its exit hooks are installed."""

    owner = os.getpid()
    installed = False


def _track(pid: int, group: bool) -> None:
    """Record a running child (see :func:`kill_running_children`); installs the exit hooks
    on first use."""
    _install_exit_hooks()
    with _LIVE_LOCK:
        _LIVE[pid] = group


def _untrack(pid: int) -> None:
    with _LIVE_LOCK:
        _LIVE.pop(pid, None)


def kill_running_children() -> None:
    """``SIGKILL`` to the process group of every child of this process still running
    (commands of :func:`run_command`, forked children): called at interpreter exit and when
    ``SIGTERM``/``SIGHUP`` ends this process. The children are reaped by their callers (or
    by ``init`` once this process is gone)."""
    if os.getpid() != _Hooks.owner:
        return
    with _LIVE_LOCK:
        running = list(_LIVE.items())
    for pid, group in running:
        _kill_group(pid, group)


def _on_fatal_signal(signum: int, frame: object) -> None:
    """Kill the running children, then end by ``signum`` with its default action."""
    kill_running_children()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _install_exit_hooks() -> None:
    """The :mod:`atexit` hook, and :func:`_on_fatal_signal` for each of
    :data:`_FATAL_SIGNALS` that still has its default action (only from the main thread;
    a program's own handler is left alone)."""
    if _Hooks.installed or os.getpid() != _Hooks.owner:
        return
    if threading.current_thread() is not threading.main_thread():
        return  # signal handlers can only be set from the main thread; try again later
    _Hooks.installed = True
    atexit.register(kill_running_children)
    for sig in _FATAL_SIGNALS:
        with contextlib.suppress(ValueError, OSError):
            if signal.getsignal(sig) == signal.SIG_DFL:
                signal.signal(sig, _on_fatal_signal)


def _forget_parent_children() -> None:
    """In a forked child: the parent's children are not its own; default signal actions."""
    _LIVE.clear()
    _Hooks.owner = os.getpid()
    if _Hooks.installed:
        for sig in _FATAL_SIGNALS:
            with contextlib.suppress(ValueError, OSError):
                if signal.getsignal(sig) is _on_fatal_signal:
                    signal.signal(sig, signal.SIG_DFL)
        _Hooks.installed = False


def _has_ended(pid: int) -> bool:
    """Whether child ``pid`` has ended, without reaping it (its pid and group id stay
    reserved until :func:`_reap`)."""
    if not hasattr(os, "waitid"):  # pragma: no cover - macOS and Linux have it
        return False
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _reap(pid: int) -> int | None:
    """Wait for child ``pid`` (already killed or ended) and return its return code."""
    _untrack(pid)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
        except InterruptedError:  # pragma: no cover - retried by Python since PEP 475
            continue
        except ChildProcessError:
            return None
        return os.waitstatus_to_exitcode(status)


#: ``prctl`` option: the signal a process gets when its parent dies (Linux, <sys/prctl.h>).
_PR_SET_PDEATHSIG = 1


@functools.cache
def _prctl() -> Callable[..., int] | None:
    """libc's ``prctl`` (Linux), else ``None``."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # pragma: no cover - every Linux libc has prctl
        return None


def _die_with(parent: int) -> None:
    """In a forked child: ``SIGKILL`` when ``parent`` dies; exit now if it already has."""
    prctl = _prctl()
    if prctl is not None and prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0 and os.getppid() != parent:
        os._exit(1)


def _flush_std_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            if stream is not None:
                stream.flush()


# ------------------------------------------------------------------ forked children


def _frame(ok: bool, value: object) -> bytes:
    """A length-prefixed pickle of ``(ok, value)``; an exception that does not survive a
    pickle round trip becomes a :class:`ChildError`, a value that cannot be pickled the
    pickling error."""
    if ok:
        try:
            data = pickle.dumps((True, value), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as e:
            return _frame(False, e)
    else:
        try:
            data = pickle.dumps((False, value), protocol=pickle.HIGHEST_PROTOCOL)
            pickle.loads(data)
        except Exception:
            try:
                message = str(value)
            except Exception:
                message = "<unprintable>"
            data = pickle.dumps((False, ChildError(type(value).__name__, message)))
    return _HEADER.pack(len(data)) + data


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _child_setup(parent: int, own_group: bool, stderr_fd: int | None) -> None:
    """In a forked child: killed with ``parent``, a process group of its own if
    ``own_group``, stdin from ``/dev/null``, stderr to ``stderr_fd`` if given, no fault dump
    (the parent reports a crash)."""
    _die_with(parent)
    _forget_parent_children()
    if own_group:
        with contextlib.suppress(OSError):
            os.setpgid(0, 0)
    faulthandler.disable()
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    if stderr_fd is not None:
        os.dup2(stderr_fd, 2)


def _child_main(
    work: Callable[[T], object], items: Iterable[T], wfd: int, stderr_fd: int | None, parent: int,
    own_group: bool,
) -> NoReturn:
    """Body of a forked child (:func:`_child_setup`): one frame per item on ``wfd`` (items
    inherited, or read from a pipe: :func:`_pipe_items`); then ``os._exit`` — it never
    returns into the caller's code."""
    code = 0
    try:
        _child_setup(parent, own_group, stderr_fd)
        me = os.getpid()
        for item in items:
            try:
                frame = _frame(True, work(item))
            except Exception as e:
                frame = _frame(False, e)
            if os.getpid() != me:  # a process ``work`` forked came back here: it ends
                break
            _write_all(wfd, frame)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:
        with contextlib.suppress(BaseException):
            traceback.print_exc()
        code = 1
    finally:
        _flush_std_streams()
        os._exit(code)


def _fork(child: Callable[[int, bool], NoReturn], child_closes: Sequence[int] = (),
          parent_closes: Sequence[int] = ()) -> tuple[int, bool]:
    """Fork; the child closes ``child_closes`` and runs ``child(parent pid, own_group)``
    (never returning); the parent closes ``parent_closes`` (also if the fork fails) and puts
    the child in a process group of its own when ``own_group`` (``PR_SET_PDEATHSIG``
    exists: see the module docstring). Returns ``(pid, own_group)``."""
    _flush_std_streams()  # else the child would write the parent's buffered output again
    parent, own_group = os.getpid(), _prctl() is not None
    try:
        pid = os.fork()
    except BaseException:
        for fd in parent_closes:
            os.close(fd)
        raise
    if pid == 0:  # pragma: no cover - the child; coverage of forked children is not collected
        for fd in child_closes:
            os.close(fd)
        child(parent, own_group)
    for fd in parent_closes:
        os.close(fd)
    if own_group:
        with contextlib.suppress(OSError):  # also here: the group exists before we might kill it
            os.setpgid(pid, pid)
    _track(pid, own_group)
    return pid, own_group


class _Frames:
    """The parent's end of a child's result pipe: whole frames, read with a deadline."""

    def __init__(self, fd: int, pid: int, group: bool) -> None:
        self.fd, self.pid, self.group = fd, pid, group
        self.buf = bytearray()
        self.eof = False
        self.sel = selectors.DefaultSelector()
        self.sel.register(fd, selectors.EVENT_READ)

    def _pop(self) -> bytes | None:
        if len(self.buf) < _HEADER.size:
            return None
        (n,) = _HEADER.unpack_from(self.buf)
        if len(self.buf) < _HEADER.size + n:
            return None
        data = bytes(self.buf[_HEADER.size:_HEADER.size + n])
        del self.buf[:_HEADER.size + n]
        return data

    def _read(self, wait: float) -> bool:
        """Read what arrives within ``wait`` seconds; ``False`` if nothing did."""
        if not self.sel.select(max(wait, 0.0)):
            return False
        data = os.read(self.fd, 1 << 20)
        if data:
            self.buf += data
        else:
            self.eof = True
        return True

    def next(self, until: float | None) -> bytes | None:
        """The next frame; ``None`` when the child ended without sending one (end of the
        pipe) or ``until`` (a :func:`time.monotonic` time) passed first."""
        while True:
            frame = self._pop()
            if frame is not None:
                return frame
            if self.eof:
                return None
            now = time.monotonic()
            if until is not None and now >= until:
                return None
            if self._read(_TICK if until is None else min(_TICK, until - now)):
                continue
            if _has_ended(self.pid):
                # ended, but a grandchild holds the pipe open: kill the group, take what is there
                _kill_group(self.pid, self.group)
                stop = time.monotonic() + 1.0
                while not self.eof and time.monotonic() < stop and self._read(0.0):
                    pass
                frame = self._pop()
                self.eof = True
                return frame

    def close(self) -> None:
        self.sel.close()


def _decode(data: bytes, seconds: float) -> Returned[object] | Raised:
    try:
        ok, value = pickle.loads(data)
    except Exception as e:  # e.g. an instance of a class that exists only in the child
        return Raised(ChildError(type(e).__name__, f"the result could not be unpickled: {e}"), seconds)
    if ok:
        return Returned(value, seconds)
    return Raised(value if isinstance(value, Exception) else ChildError(type(value).__name__, str(value)), seconds)


def _read_tail(f: IO[bytes] | None) -> str:
    if f is None:
        return ""
    f.seek(0, os.SEEK_END)
    f.seek(max(0, f.tell() - STDERR_TAIL))
    return f.read().decode(errors="replace")


def _one_child(
    work: Callable[[T], R], items: Sequence[T], out: list[Outcome[R]], timeout: float | None,
    end: float | None, stop: Callable[[Outcome[R]], bool] | None, capture_stderr: bool,
) -> bool:
    """Run ``items`` in one forked child, appending their outcomes to ``out`` until the
    first time-out or crash (its outcome included). ``True`` if ``stop`` asked to stop."""
    errf = tempfile.TemporaryFile() if capture_stderr else None  # noqa: SIM115 (closed below)
    rfd, wfd = os.pipe()
    try:
        pid, own_group = _fork(
            lambda parent, group: _child_main(work, items, wfd, None if errf is None else errf.fileno(), parent, group),
            child_closes=(rfd,), parent_closes=(wfd,))
    except BaseException:
        os.close(rfd)
        if errf is not None:
            errf.close()
        raise
    frames = _Frames(rfd, pid, own_group)
    failed: type[TimedOut] | type[Crashed] | None = None
    started = time.monotonic()
    try:
        for _ in items:
            until = None if timeout is None else started + max(timeout, 0.0)
            if end is not None:
                until = end if until is None else min(until, end)
            data = frames.next(until)
            if data is None:
                failed = Crashed if frames.eof else TimedOut
                break
            now = time.monotonic()
            outcome: Outcome[R] = _decode(data, now - started)  # type: ignore[assignment]
            started = now
            out.append(outcome)
            if stop is not None and stop(outcome):
                return True
        return False
    finally:
        _kill_group(pid, own_group)
        returncode = _reap(pid)
        seconds = time.monotonic() - started
        frames.close()
        os.close(rfd)
        stderr = _read_tail(errf)
        if errf is not None:
            errf.close()
        if failed is TimedOut:
            out.append(TimedOut(seconds, stderr))
        elif failed is Crashed:
            out.append(Crashed(returncode, seconds, stderr))


def _map_in_process(
    work: Callable[[T], R], items: Sequence[T], stop: Callable[[Outcome[R]], bool] | None,
) -> list[Outcome[R]]:
    out: list[Outcome[R]] = []
    for item in items:
        t0 = time.monotonic()
        try:
            outcome: Outcome[R] = Returned(work(item), time.monotonic() - t0)
        except Exception as e:
            outcome = Raised(e, time.monotonic() - t0)
        out.append(outcome)
        if stop is not None and stop(outcome):
            break
    return out


def map_in_child(
    work: Callable[[T], R],
    items: Iterable[T],
    *,
    timeout: float | None = None,
    total: float | None = None,
    stop: Callable[[Outcome[R]], bool] | None = None,
    capture_stderr: bool = False,
) -> list[Outcome[R]]:
    """``work(item)`` for each item, in order, in forked child processes.

    One child runs the items one after another and sends each result back as soon as it
    is ready. An item with no result within ``timeout`` seconds (counted from the previous
    result, or from the fork for the first item) is :class:`TimedOut` and the child is
    killed; a child that ends before sending a result is :class:`Crashed` for that item.
    Either way the remaining items go on in a fresh child. An :class:`Exception` raised by
    ``work`` is :class:`Raised` for its item and the child goes on. Every child and its
    process group is killed and reaped before this returns (see the module docstring).

    Args:
        work: called in the child (inherited through ``fork``: closures and unpicklable
            objects such as ctypes functions are fine); its results must be picklable.
        items: its arguments, one call each.
        timeout: seconds allowed per item, ``None`` for no limit.
        total: seconds allowed for the whole call, ``None`` for no limit; the item running
            when it passes is :class:`TimedOut`, later ones are not run.
        stop: called on each outcome in order; ``True`` ends the call after that item
            (e.g. on the first failure).
        capture_stderr: send each child's stderr (file descriptor 2, so also what C code
            writes, e.g. UBSan's reports) to a temporary file instead of this process's
            stderr; its end is :attr:`Crashed.stderr` / :attr:`TimedOut.stderr`.

    Returns:
        One :class:`Outcome` per item run, in order: fewer than the items when ``stop``
        ended the call or ``total`` passed.

    Raises:
        OSError: a pipe, a temporary file or the fork could not be made. Nothing ``work``
        does is raised here. Without ``fork`` (not POSIX) ``work`` runs in this process,
        without deadline.
    """
    todo = list(items)
    if not CAN_FORK:  # pragma: no cover - every POSIX system forks
        return _map_in_process(work, todo, stop)
    end = None if total is None else time.monotonic() + max(total, 0.0)
    out: list[Outcome[R]] = []
    while len(out) < len(todo):
        if end is not None and time.monotonic() >= end:
            break
        if _one_child(work, todo[len(out):], out, timeout, end, stop, capture_stderr):
            break
        if stop is not None and out and not isinstance(out[-1], Returned | Raised) and stop(out[-1]):
            break
    return out


def call_in_child(
    work: Callable[[], R], *, timeout: float | None = None, capture_stderr: bool = False,
) -> Outcome[R]:
    """``work()`` in a forked child process: :func:`map_in_child` of one call.

    ``timeout``: seconds, ``None`` for no limit. Raises ``OSError`` only (no pipe or fork)."""
    (outcome,) = map_in_child(_CallNoArgs(work), [None], timeout=timeout, capture_stderr=capture_stderr)
    return outcome


class _CallNoArgs(Generic[R]):
    def __init__(self, work: Callable[[], R]) -> None:
        self.work = work

    def __call__(self, _: object) -> R:
        return self.work()


# ------------------------------------------------------------------ a kept child


def _read_exactly(fd: int, n: int, idle: float | None) -> bytes | None:
    """``n`` bytes from ``fd``; ``None`` at the end of the pipe, or when nothing arrives
    for ``idle`` seconds before the first byte."""
    buf = bytearray()
    while len(buf) < n:
        if not buf and idle is not None:
            ready, _, _ = select.select([fd], [], [], idle)
            if not ready:
                return None
        data = os.read(fd, n - len(buf))
        if not data:
            return None
        buf += data
    return bytes(buf)


def _pipe_items(rfd: int, idle: float | None) -> Iterator[object]:
    """In a :class:`Worker`'s child: the length-prefixed pickled items arriving on ``rfd``,
    until the end of the pipe or ``idle`` seconds without one."""
    while True:
        header = _read_exactly(rfd, _HEADER.size, idle)
        if header is None:
            return
        data = _read_exactly(rfd, _HEADER.unpack(header)[0], None)
        if data is None:
            return
        yield pickle.loads(data)


class Worker(Generic[T, R]):
    """``work(item)`` for items given one call at a time, in one forked child kept between
    calls: :func:`call_in_child` without a fork per call (a fork of a large process and its
    teardown cost ~20 ms; the Gemmini check makes ~150 calls per kernel).

    ``work`` is inherited through ``fork`` (closures and ctypes functions are fine); each item
    is pickled to the child, each result pickled back. A call's outcome is as for
    :func:`map_in_child`; after a :class:`Crashed` or :class:`TimedOut` call the child is
    killed and reaped, and the next call forks a new one. Calls share the child's memory
    (as the items of one :func:`map_in_child` do). The child ends with its parent, after
    ``idle`` seconds without a call (a worker nobody closes does not outlive its use; the
    next call forks again), or at :meth:`close`; it leads its own process group, which is
    killed before the child is reaped. Not thread-safe: one caller at a time.
    """

    def __init__(self, work: Callable[[T], R], idle: float | None = 30.0) -> None:
        self.work, self.idle = work, idle
        self._pid: int | None = None
        self._group = False
        self._req = -1
        self._frames: _Frames | None = None

    def _start(self) -> None:
        req_r, req_w = os.pipe()
        res_r, res_w = os.pipe()
        try:
            pid, own_group = _fork(
                lambda parent, group: _child_main(self.work, _pipe_items(req_r, self.idle),  # type: ignore[arg-type]
                                                  res_w, None, parent, group),
                child_closes=(req_w, res_r), parent_closes=(req_r, res_w))
        except BaseException:
            os.close(req_w)
            os.close(res_r)
            raise
        self._pid, self._group, self._req = pid, own_group, req_w
        self._frames = _Frames(res_r, pid, own_group)

    def close(self) -> int | None:
        """Kill and reap the child, if any; its return code (``None``: no child)."""
        if self._pid is None:
            return None
        _kill_group(self._pid, self._group)
        code = _reap(self._pid)
        assert self._frames is not None
        self._frames.close()
        os.close(self._frames.fd)
        os.close(self._req)
        self._pid, self._frames, self._req = None, None, -1
        return code

    def call(self, item: T, timeout: float | None = None) -> Outcome[R]:
        """``work(item)`` in the child within ``timeout`` seconds (``None``: no limit).

        Raises:
            OSError: no pipe or fork could be made.
            pickle.PicklingError, TypeError: ``item`` cannot be pickled.
        """
        if not CAN_FORK:  # pragma: no cover - every POSIX system forks
            return _map_in_process(self.work, [item], None)[0]
        request = pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL)
        for attempt in (0, 1):
            if self._pid is not None and _has_ended(self._pid):
                self.close()  # it went idle (or died) between calls
            if self._pid is None:
                self._start()
            assert self._pid is not None and self._frames is not None
            started = time.monotonic()
            try:
                _write_all(self._req, _HEADER.pack(len(request)) + request)
            except BrokenPipeError:
                self.close()
                continue
            data = self._frames.next(None if timeout is None else started + max(timeout, 0.0))
            seconds = time.monotonic() - started
            if data is not None:
                return _decode(data, seconds)  # type: ignore[return-value]
            timed_out = not self._frames.eof
            code = self.close()
            if not timed_out and code == 0 and attempt == 0:
                continue  # the child went idle just as the item arrived: once more
            return TimedOut(seconds, "") if timed_out else Crashed(code, seconds, "")
        return Crashed(None, 0.0, "")  # pragma: no cover - the retry above either returns or continues

    def __enter__(self) -> Worker[T, R]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ------------------------------------------------------------------ commands


@dataclass(frozen=True)
class CommandResult:
    """How a command of :func:`run_command` ended.

    Attributes:
        returncode: exit status, negative for the signal that killed it (``-9`` after the
            kill at the deadline).
        timed_out: killed at the deadline.
        seconds: wall-clock seconds from start to end.
        stdout, stderr: its output (decoded, invalid bytes replaced; at most the last
            ``output_limit`` bytes of each).
    """

    returncode: int
    timed_out: bool
    seconds: float
    stdout: str
    stderr: str

    @property
    def signal(self) -> str | None:
        """The name of the killing signal (``"SIGABRT"``), or ``None``."""
        return signal_name(self.returncode)

    def describe(self) -> str:
        """``"killed by SIGABRT"`` / ``"exit status 1"`` (:func:`describe_status`)."""
        return describe_status(self.returncode)


class ChildRegistry:
    """The commands running on behalf of one owner (a ``lift bench`` run), so that all of
    them can be killed at once (Ctrl-C, early exit): pass it to :func:`run_command`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: set[int] = set()
        self._stopped = False

    @property
    def stopped(self) -> bool:
        """Whether :meth:`stop_all` was called since the last :meth:`allow_start`."""
        return self._stopped

    def stop_all(self) -> None:
        """Kill the process group of every running command and refuse to start new ones
        (:func:`run_command` then returns at once, see there)."""
        with self._lock:
            self._stopped = True
            for pid in self._running:
                _kill_group(pid)

    def allow_start(self) -> None:
        """Undo :meth:`stop_all`."""
        with self._lock:
            self._stopped = False


class _Tail:
    """The last ``limit`` bytes written."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.buf = bytearray()

    def add(self, data: bytes) -> None:
        self.buf += data
        if len(self.buf) > 2 * self.limit:
            del self.buf[: len(self.buf) - self.limit]

    def text(self) -> str:
        return bytes(self.buf[-self.limit:] if self.limit else b"").decode(errors="replace")


def _pump(sel: selectors.BaseSelector, pid: int | None, until: float | None) -> bool:
    """Read the command's output (``key.data``: its :class:`_Tail`) until the child ``pid``
    has ended — ``True`` — or ``until`` passed — ``False``. With ``pid=None``: until both
    pipes are closed (``True``) or ``until`` passed."""
    pause = 0.001
    while True:
        if pid is not None and _has_ended(pid):
            return True
        now = time.monotonic()
        if until is not None and now >= until:
            return False
        wait = _TICK if until is None else min(_TICK, until - now)
        if sel.get_map():
            for key, _ in sel.select(wait):
                data = os.read(key.fd, 1 << 16)
                if data:
                    key.data.add(data)
                else:
                    sel.unregister(key.fd)
        elif pid is None:
            return True
        else:  # both pipes closed: the command is ending
            time.sleep(min(pause, wait))
            pause = min(2 * pause, _TICK)


def run_command(
    cmd: Sequence[str],
    timeout: float | None,
    *,
    cwd: str | Path | None = None,
    env: dict[str, str] | None = None,
    warn_signal: int | None = None,
    grace: float = 2.0,
    registry: ChildRegistry | None = None,
    output_limit: int = OUTPUT_LIMIT,
    input: str | bytes | None = None,
) -> CommandResult:
    """Run ``cmd`` (stdin ``/dev/null`` or ``input``, stdout and stderr captured) in a new
    session; kill its whole process group after ``timeout`` seconds, and when the caller
    is interrupted (``KeyboardInterrupt``, ``SIGTERM``: see the module docstring).

    The group is also killed when the command ends by itself (its leftover background
    processes, e.g. orphaned solver workers), always before the command is reaped. Output
    still in the pipes after the kill is read for at most one more second.

    Args:
        cmd: the program and its arguments.
        timeout: seconds, ``None`` for no limit.
        cwd, env: as for :class:`subprocess.Popen`.
        warn_signal: at the deadline, first send this signal to the command (e.g.
            ``SIGUSR1`` for a Python stack dump by :mod:`faulthandler`) and wait up to
            ``grace`` seconds for it to end before the kill.
        registry: the :class:`ChildRegistry` to register the command with. When it has
            been stopped, nothing is started and the result is ``returncode = -SIGKILL``,
            ``timed_out = False``, ``seconds = 0``, ``stderr = "run interrupted"``.
        output_limit: bytes kept of each stream (its end).
        input: the command's standard input (text is UTF-8 encoded), read from a temporary
            file (so a command that writes before it reads cannot block on a full pipe).

    Raises:
        OSError: the command could not be started (e.g. no such program). Nothing the
        command does is raised.
    """
    t0 = time.monotonic()
    lock = registry._lock if registry is not None else contextlib.nullcontext()
    with lock:
        if registry is not None and registry.stopped:
            return CommandResult(-signal.SIGKILL, False, 0.0, "", "run interrupted")
        _install_exit_hooks()
        stdin: IO[bytes] | int = subprocess.DEVNULL
        if input is not None:
            stdin = tempfile.TemporaryFile()  # noqa: SIM115 (closed below)
            stdin.write(input.encode() if isinstance(input, str) else input)
            stdin.seek(0)
        try:
            p = subprocess.Popen(
                list(cmd), cwd=cwd, env=env, stdin=stdin, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True,
            )
        finally:
            if not isinstance(stdin, int):
                stdin.close()
        _track(p.pid, True)
        if registry is not None:
            registry._running.add(p.pid)
    assert p.stdout is not None and p.stderr is not None
    out, err = _Tail(output_limit), _Tail(output_limit)
    sel = selectors.DefaultSelector()
    sel.register(p.stdout, selectors.EVENT_READ, out)
    sel.register(p.stderr, selectors.EVENT_READ, err)
    timed_out = False
    try:
        until = None if timeout is None else t0 + max(timeout, 0.0)
        if not _pump(sel, p.pid, until):
            timed_out = True
            if warn_signal is not None:
                with contextlib.suppress(OSError):
                    os.kill(p.pid, warn_signal)
                _pump(sel, p.pid, time.monotonic() + grace)
    finally:
        with lock:
            _kill_group(p.pid)  # not reaped yet: the group id is still this command's
            _untrack(p.pid)
            if registry is not None:
                registry._running.discard(p.pid)
        _pump(sel, None, time.monotonic() + 1.0)
        sel.close()
        p.stdout.close()
        p.stderr.close()
        returncode = p.wait()
    return CommandResult(returncode, timed_out, time.monotonic() - t0, out.text(), err.text())


# ------------------------------------------------------------------ fresh interpreters


#: Environment of :class:`FreshInterpreters`' children besides the caller's: TensorFlow's
#: C++ logging quiet. (TensorFlow 2.21 still prints its "oneDNN custom operations are on"
#: banner, before its logging reads the setting; the children's output goes to a file.)
QUIET_LIBRARIES = {"TF_CPP_MIN_LOG_LEVEL": "3"}


def fresh_interpreter_main(argv: Sequence[str] | None = None) -> NoReturn:
    """The body of a :class:`FreshInterpreters` child (``python -c``): arguments ``TARGET
    IN OUT PARENT``: dies with ``PARENT``, calls the function ``TARGET``
    (``"module:function"``) on the item pickled in the file ``IN`` and writes the result
    (or the exception) as one frame to the file ``OUT``."""
    target, in_path, out_path, parent = argv if argv is not None else sys.argv[1:]
    _die_with(int(parent))
    faulthandler.disable()
    module, _, name = target.partition(":")
    try:
        work = getattr(importlib.import_module(module), name)
        with open(in_path, "rb") as f:
            item = pickle.load(f)
        frame = _frame(True, work(item))
    except Exception as e:
        frame = _frame(False, e)
    with open(out_path, "wb") as f:
        f.write(frame)
    _flush_std_streams()
    os._exit(0)


@dataclass
class _Fresh:
    """One running child of :class:`FreshInterpreters`."""

    index: int
    proc: subprocess.Popen[bytes]
    out_path: Path
    err: IO[bytes]
    started: float


class FreshInterpreters(Generic[T, R]):
    """``work(item)`` for each item, each in a fresh Python interpreter of its own.

    ``target`` names ``work`` as ``"module:function"`` (imported in the child); items and
    results are pickled. At most ``parallel`` children run at once (default: the number of
    CPUs); each gets ``timeout`` seconds from its start (``None``: no limit). The children's
    environment is the caller's plus ``env`` (default :data:`QUIET_LIBRARIES`); their stdout
    and stderr go to a temporary file whose end is :attr:`Crashed.stderr` /
    :attr:`TimedOut.stderr` (nothing reaches the caller's terminal). Each child leads its own
    process group, killed before it is reaped, and dies with its parent (Linux
    ``PR_SET_PDEATHSIG``, set by the child itself, so ``exec`` cannot lose it).

    :meth:`start` launches the first children and returns at once: the caller may work (and
    fork) meanwhile, since no thread of this process waits on them; :meth:`results` runs the
    rest and returns one :class:`Outcome` per item, in order. Use it as a context manager
    (or call :meth:`close`): every child is then killed and reaped.
    """

    def __init__(
        self, target: str, items: Sequence[T], *, timeout: float | None = None,
        env: dict[str, str] | None = None, parallel: int | None = None,
    ) -> None:
        self.target, self.items, self.timeout = target, list(items), timeout
        self.env = {**os.environ, **(QUIET_LIBRARIES if env is None else env)}
        self.parallel = max(1, parallel if parallel is not None else (os.cpu_count() or 1))
        self._tmp = tempfile.TemporaryDirectory(prefix="tenspiler-fresh-")
        self._next = 0
        self._running: list[_Fresh] = []
        self._out: dict[int, Outcome[R]] = {}

    def _launch(self) -> None:
        while self._next < len(self.items) and len(self._running) < self.parallel:
            i = self._next
            self._next += 1
            folder = Path(self._tmp.name)
            in_path, out_path = folder / f"{i}.in", folder / f"{i}.out"
            with open(in_path, "wb") as f:
                pickle.dump(self.items[i], f, protocol=pickle.HIGHEST_PROTOCOL)
            err = tempfile.TemporaryFile(dir=folder)  # noqa: SIM115 (closed in _finish)
            code = "from tenspiler.runner import fresh_interpreter_main; fresh_interpreter_main()"
            try:
                proc = subprocess.Popen(
                    [sys.executable, "-c", code, self.target, str(in_path), str(out_path), str(os.getpid())],
                    stdin=subprocess.DEVNULL, stdout=err, stderr=err, env=self.env, process_group=0,
                )
            except BaseException:
                err.close()
                raise
            self._running.append(_Fresh(i, proc, out_path, err, time.monotonic()))

    def start(self) -> FreshInterpreters[T, R]:
        """Launch the first children (at most :attr:`parallel`) and return."""
        self._launch()
        return self

    def _finish(self, c: _Fresh, timed_out: bool) -> None:
        _kill_group(c.proc.pid)  # not reaped yet: the group id is still the child's
        returncode = c.proc.wait()
        seconds = time.monotonic() - c.started
        stderr = _read_tail(c.err)
        c.err.close()
        outcome: Outcome[R]
        data = c.out_path.read_bytes() if c.out_path.exists() else b""
        if timed_out:
            outcome = TimedOut(seconds, stderr)
        elif len(data) > _HEADER.size:
            outcome = _decode(data[_HEADER.size:], seconds)  # type: ignore[assignment]
        else:
            outcome = Crashed(returncode, seconds, stderr)
        self._out[c.index] = outcome

    def results(self) -> list[Outcome[R]]:
        """Wait for every item (launching the rest as children end); outcomes in order."""
        self._launch()
        while self._running:
            now = time.monotonic()
            for c in list(self._running):
                late = self.timeout is not None and now - c.started >= self.timeout
                if late or _has_ended(c.proc.pid):
                    self._running.remove(c)
                    self._finish(c, timed_out=late and not _has_ended(c.proc.pid))
            self._launch()
            if self._running:
                time.sleep(_TICK)
        return [self._out[i] for i in range(len(self.items))]

    def close(self) -> None:
        """Kill and reap every running child; remove the temporary files."""
        for c in self._running:
            _kill_group(c.proc.pid)
            c.proc.wait()
            c.err.close()
        self._running = []
        self._tmp.cleanup()

    def __enter__(self) -> FreshInterpreters[T, R]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
