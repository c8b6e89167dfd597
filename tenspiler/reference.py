"""The reference run of a Python kernel never re-enters the user's program (issue 33).

The differential check (:mod:`tenspiler.check.python`) runs the original function in a forked
child. This module holds what tenspiler's entry points need to know about that child, without
importing the compiler (``import tenspiler`` stays light):

* :func:`live_reference` registers the live function object being lifted, which the child
  calls instead of running the module again;
* :func:`in_reference_run` is true inside the child: there ``@lifted`` returns functions
  unchanged, and :func:`tenspiler.lift` and the CLI raise :class:`ReferenceRunStop`, which
  ends the module's execution (what it defined so far is kept).
"""

from __future__ import annotations

import contextlib
import dis
import types
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["ReferenceRunStop", "enter_reference_run", "in_reference_run", "live_function", "live_reference"]

#: (source file, function name) -> the live function object the reference child calls.
_LIVE: dict[tuple[str, str], Callable[..., Any]] = {}

#: ``{"reference": True}`` in a reference child; see :func:`in_reference_run`.
_PROCESS = {"reference": False}


class ReferenceRunStop(BaseException):
    """Raised by :func:`tenspiler.lift` and the CLI inside a reference child: the module being
    run as the reference must not lift (that would run the user's program again, recursively).
    A ``BaseException`` so that a user's ``except Exception`` cannot swallow it."""


def in_reference_run() -> bool:
    """Whether this process runs an original Python function for the differential check
    (then tenspiler's entry points do not lift)."""
    return _PROCESS["reference"]


def _unresolved_globals(f: Callable[..., Any], seen: set[int] | None = None) -> list[str]:
    """Global names the code of ``f`` (and of the module functions it calls) loads that its
    module does not define yet, nor the builtins (empty: the live object can run as is)."""
    code = getattr(f, "__code__", None)
    glob = getattr(f, "__globals__", None)
    if not isinstance(code, types.CodeType) or not isinstance(glob, dict):
        return ["<not a Python function>"]
    seen = set() if seen is None else seen
    if id(f) in seen:
        return []
    seen.add(id(f))
    builtins = glob.get("__builtins__", {})
    names = builtins if isinstance(builtins, dict) else vars(builtins)
    missing: list[str] = []
    codes = [code]
    while codes:
        c = codes.pop()
        codes.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
        for ins in dis.get_instructions(c):
            if ins.opname not in ("LOAD_GLOBAL", "LOAD_NAME"):
                continue
            name = ins.argval
            if name in glob:
                value = glob[name]
                if isinstance(value, types.FunctionType) and value.__globals__ is glob:
                    missing += _unresolved_globals(value, seen)
            elif name not in names:
                missing.append(name)
    return missing


@contextlib.contextmanager
def live_reference(filename: str, name: str, f: Callable[..., Any]) -> Iterator[bool]:
    """While the block runs, the reference child of the function ``name`` of ``filename``
    calls the live object ``f`` (its original, for a ``@lifted`` wrapper) instead of running
    the module again. Yields whether ``f`` can be used: not when a global it needs is not
    defined yet (a decorator runs before the rest of its module), then the module is run."""
    f = getattr(f, "original", f)
    usable = not _unresolved_globals(f)
    key = (filename, name)
    before = _LIVE.get(key)
    if usable:
        _LIVE[key] = f
    try:
        yield usable
    finally:
        if before is None:
            _LIVE.pop(key, None)
        else:
            _LIVE[key] = before


def enter_reference_run() -> None:
    """Mark this process as a reference child (:func:`in_reference_run`): called by the
    differential check in the forked child, before it loads or calls the original."""
    _PROCESS["reference"] = True


def live_function(filename: str, name: str) -> Callable[..., Any] | None:
    """The live object registered for the function ``name`` of ``filename`` by
    :func:`live_reference`, if any."""
    return _LIVE.get((filename, name))
