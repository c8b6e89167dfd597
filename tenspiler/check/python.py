"""Differential check of a Python kernel (``Function.python``): the *original* function
against the generated code.

The reference is the function itself, called in a forked child process
(:func:`tenspiler.runner.map_in_child`) so that an endless loop or a crash cannot affect the
caller:

* when a function object was lifted (:func:`tenspiler.lift` on a function, ``@lifted``), the
  child calls that live object (:func:`live_reference`): the user's module is never run again;
* otherwise (``lift file.py``, source text, or a decorated function whose globals are not all
  defined yet when the decorator runs) the child imports the module text as a module of its
  own name (the file's stem, never ``__main__``; ``__file__`` its path, its directory on
  ``sys.path``).

Inside a reference child no entry point of tenspiler lifts (:func:`in_reference_run`):
``@lifted`` returns the function unchanged, and :func:`tenspiler.lift` or the CLI stop the
module's execution there (:class:`ReferenceRunStop`), keeping what the module defined up to
that point. So a module's top-level code runs at most once per reference child, and a
script that calls ``tenspiler.lift`` at top level cannot lift itself again.

The function is called on the Python view of each random input: nested lists of Python
``int`` / ``float`` for list parameters (:func:`python_arguments`), numbers for the others.
The generated entry (the Python signature, see ``numpy_backend.cxx_adapter``) gets the same
lists. A returned list must have the shape the summary gives (rows of one length for a list
of lists); numbers are compared as in :mod:`tenspiler.check` (integers exactly, floats with
its tolerances). The list arguments a kernel modifies in place (``PythonInterface.written``)
are results too: the child sends them back after the call, and the generated entry must
leave the same contents in the lists it was given. A method (``PythonInterface.method``) is
called on an object made with ``object.__new__`` whose attributes are the leading arguments.
"""

from __future__ import annotations

import contextlib
import copy
import os
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, assert_never

import numpy as np

from tenspiler.budget import WALL_CLOCK
from tenspiler.codegen import GeneratedCode
from tenspiler.ir.terms import ProgramSummary
from tenspiler.loops.ir import DType, Function, ScalarType, VectorResult
from tenspiler.paths import NO_LIFT_ENV
from tenspiler.reference import (
    ReferenceRunStop,
    enter_reference_run,
    in_reference_run,
    live_function,
    live_reference,
)
from tenspiler.runner import (
    Crashed,
    Outcome,
    Raised,
    Returned,
    TimedOut,
    describe_error,
    map_in_child,
)

#: Seconds one call of the Python function may take before its child is killed.
PY_TIMEOUT = 10.0


__all__ = [
    "ReferenceRunStop",
    "check_one_python",
    "in_reference_run",
    "live_reference",
    "python_arguments",
    "run_python_all",
]

def python_arguments(fn: Function, inputs: Mapping[str, object]) -> list[object]:
    """The arguments of the original Python function for flat ``inputs`` of ``fn``: per
    list parameter a list (of lists) of Python numbers of its shape, per number parameter
    a Python ``int`` / ``float``."""
    from tenspiler.check.values import vector_inputs

    assert fn.cxx is not None
    view = vector_inputs(fn, inputs)
    args: list[object] = []
    for v in fn.cxx.signature:
        if isinstance(v, str):
            p = fn.param(v)
            assert isinstance(p.type, ScalarType)
            x = view[v]
            args.append(float(x) if p.type.dtype.is_float else int(x))  # type: ignore[call-overload, arg-type]
            continue
        arr = np.asarray(view[v.name], dtype=np.float64 if v.elem.is_float else np.int64)
        args.append(arr.tolist())
    return args


def _load(fn: Function) -> Any:
    """The original function object (in the child): the live object when one was given
    (:func:`live_reference`), else the module text imported as a module of its own name."""
    assert fn.python is not None
    enter_reference_run()
    # the reference is the legacy function itself: @tenspiler.lifted must not replace it,
    # in this process or in any it starts
    os.environ[NO_LIFT_ENV] = "1"
    filename = fn.python.filename
    live = live_function(filename, fn.name)
    if live is not None:
        return live
    path = Path(filename)
    folder = str(path.resolve().parent) if path.exists() else None
    if folder is not None and folder not in sys.path:
        sys.path.insert(0, folder)
    stem = path.stem if path.stem.isidentifier() else "tenspiler_reference"
    module = types.ModuleType(stem)
    module.__file__ = filename
    sys.modules[stem] = module  # imported under its own name, as `import stem` would
    # the user saw the module's output when it ran in their process: not a second time; a
    # module that calls tenspiler.lift at top level stops there, what it defined is kept
    with (
        open(os.devnull, "w") as quiet,
        contextlib.redirect_stdout(quiet),
        contextlib.redirect_stderr(quiet),
        contextlib.suppress(ReferenceRunStop),
    ):
        exec(compile(fn.source, filename, "exec"), module.__dict__)
    method = fn.python.method
    if method is not None:
        return _method_caller(module.__dict__, method)
    if fn.name not in module.__dict__:
        raise NameError(f"the module does not define {fn.name!r} before it calls tenspiler")
    f = module.__dict__[fn.name]
    return getattr(f, "original", f)


def _method_caller(namespace: Mapping[str, Any], method: tuple[str, str, str, tuple[str, ...]]) -> Callable[..., Any]:
    """The method ``Class.name`` as a function of the lifted parameters: a static or class
    method itself; an instance method of an object made without ``__init__``
    (``object.__new__``) whose attributes are the leading arguments."""
    cls_name, name, kind, attrs = method
    if cls_name not in namespace:
        raise NameError(f"the module does not define class {cls_name!r} before it calls tenspiler")
    cls = namespace[cls_name]
    if kind != "instance":
        return getattr(cls, name)

    def call(*args: Any) -> Any:
        obj = object.__new__(cls)
        for a, v in zip(attrs, args[: len(attrs)], strict=True):
            setattr(obj, a, v)
        return getattr(obj, name)(*args[len(attrs):])

    return call


def _caller(fn: Function) -> Callable[[Mapping[str, object]], tuple[str, object]]:
    """The child's work per input: ``("value", v)``, ``("error", message)``, or
    ``("fatal", message)`` when the module itself cannot be run (loaded at the first input,
    once per child)."""
    loaded: list[Any] = []

    def call(inputs: Mapping[str, object]) -> tuple[str, object]:
        if not loaded:
            try:
                loaded.append(_load(fn))
            except BaseException as e:
                name = fn.python.filename if fn.python else ""
                return "fatal", f"running the module {name} failed: {type(e).__name__}: {e}"
        try:
            args = python_arguments(fn, inputs)
            value = loaded[0](*args)
        except Exception as e:  # part of the function's meaning: the generated code must raise it too
            return "raised", (type(e).__name__, str(e))
        written = fn.python.written if fn.python is not None else ()
        if written:  # the lists it modified in place are results too
            assert fn.cxx is not None
            position = {v.name: k for k, v in enumerate(fn.cxx.signature) if not isinstance(v, str)}
            return "value", (value, {name: args[position[name]] for name in written})
        return "value", value

    return call


def _fatal(outcome: Outcome[tuple[str, object]]) -> bool:
    return isinstance(outcome, Returned) and outcome.value[0] == "fatal"


def run_python_all(fn: Function, inputs_list: Sequence[Mapping[str, object]]) -> list[dict[str, object] | str]:
    """The original function's result on each input: ``{"value": v}``, or a message
    (it raised, did not return within :data:`PY_TIMEOUT` seconds, or its process died).
    The calls run in forked children (:func:`tenspiler.runner.map_in_child`); after a
    time-out or a crash the next inputs run in a new child."""
    results: list[dict[str, object] | str] = []
    for o in map_in_child(_caller(fn), inputs_list, timeout=PY_TIMEOUT, stop=_fatal):
        match o:
            case Returned(value=("fatal", message)):
                return results + [str(message)] * (len(inputs_list) - len(results))
            case Returned(value=item):
                results.append(_state(item))
            case Raised(error=e):  # the returned value could not be sent back
                results.append(f"the Python function raised {describe_error(e)}")
            case TimedOut():
                results.append(f"{WALL_CLOCK}: the Python function did not return within {PY_TIMEOUT:g} s")
            case Crashed(returncode=code):
                results.append(f"the Python function's process ended unexpectedly (exit code {code})")
            case _:
                assert_never(o)
    return results


def _state(item: tuple[str, object]) -> dict[str, object] | str:
    kind, value = item
    if kind == "raised":
        assert isinstance(value, tuple)
        return {"raised": value[0], "message": value[1]}
    return {"value": value} if kind == "value" else str(value)


def _is_number(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _result_array(value: object, r: VectorResult, got: object) -> np.ndarray | str:
    """The list the Python function returned as an array (or what is wrong with it)."""
    dtype = np.float64 if r.elem.is_float else np.int64
    if not isinstance(value, list):
        return f"the Python function returned {type(value).__name__}, expected a list"
    try:
        if r.rank == 1:
            if not all(_is_number(x) for x in value):
                return "the Python function returned a list whose elements are not all numbers"
            return np.array(value, dtype=dtype)
        if not all(isinstance(row, list) and all(_is_number(x) for x in row) for row in value):
            return "the Python function returned a list whose elements are not all lists of numbers"
        if len({len(row) for row in value}) > 1:
            return "the Python function returned rows of different lengths"
        if not value:  # no rows: any number of columns
            g = np.asarray(got)
            return np.zeros((0, g.shape[1] if g.ndim == 2 else 0), dtype=dtype)
        return np.array(value, dtype=dtype)
    except OverflowError:
        return "the Python function returned an integer outside int64"


def _written_array(value: object, rank: int, elem: DType) -> np.ndarray | str:
    """A list argument after the call (a list of numbers, of rows, or an array) as an
    array of its element dtype, or what is wrong with it."""
    dtype = np.float64 if elem.is_float else np.int64
    if isinstance(value, np.ndarray):
        return value.astype(dtype)
    if not isinstance(value, list):
        return f"not a list but {type(value).__name__}"
    flat = value if rank == 1 else [x for row in value for x in (row if isinstance(row, list) else [row])]
    if not all(_is_number(x) for x in flat):
        return "holds elements that are not numbers"
    try:
        arr = np.array(value, dtype=dtype)
    except (ValueError, OverflowError) as e:
        return f"cannot be read as an array ({e})"
    return arr


def check_one_python(
    fn: Function, ps: ProgramSummary, code: GeneratedCode, state: dict[str, object] | str, inputs: Mapping[str, object]
) -> str | None:
    """``None`` when the generated entry, called with the Python arguments for ``inputs``,
    returns what the original function returned (``state``), else what differs."""
    from tenspiler.check.generated import run_generated
    from tenspiler.check.values import show_value
    from tenspiler.ir.semantics import results_agree

    if isinstance(state, str):
        return state
    assert fn.cxx is not None and fn.python is not None
    args = python_arguments(fn, inputs)
    params = code.params or tuple(v if isinstance(v, str) else v.name for v in fn.cxx.signature)
    given = dict(zip(params, copy.deepcopy(args), strict=True))
    raised = state.get("raised")
    written = fn.python.written
    try:
        got = run_generated(code, given)
    except Exception as e:  # the generated code must raise where, and what, Python raises
        if raised is not None and type(e).__name__ == raised:
            return None
        python = f"Python raised {raised}: {state['message']}" if raised is not None else "Python returned a value"
        return f"{code.backend} code raised {type(e).__name__}: {e} ({python})"
    if raised is not None:
        return f"the Python function raised {raised}: {state['message']}; {code.backend} code returned {show_value(got)}"
    value = state["value"]
    if written:
        assert isinstance(value, tuple)
        value, lists = value
        for name in written:
            v = next(v for v in fn.cxx.signature if not isinstance(v, str) and v.name == name)
            want_list = _written_array(lists[name], v.rank, v.elem)
            got_list = _written_array(given[name], v.rank, v.elem)
            if isinstance(want_list, str) or isinstance(got_list, str):
                return f"{name} after the call: {want_list if isinstance(want_list, str) else got_list}"
            if want_list.shape != got_list.shape or not results_agree(want_list, got_list, v.elem):
                return (f"{name} after the call: Python left {show_value(want_list)}, {code.backend} code left "
                        f"{show_value(got_list)}")
        if fn.return_dtype is None:
            if value is not None or got is not None:
                return f"the Python function returned {value!r}, {code.backend} code returned {show_value(got)}"
            return None
    r = fn.cxx.result
    if r is not None:
        want: object = _result_array(value, r, got)
        if isinstance(want, str):
            return want
        dtype = r.elem
    else:
        if not _is_number(value):
            return f"the Python function returned {value!r}, expected a number"
        want, dtype = value, fn.return_dtype or DType.DOUBLE
    if not results_agree(want, got, dtype):
        what = "the returned list" if r is not None else "the return value"
        w, g = np.asarray(want), np.asarray(got)
        shapes = f" (shapes {w.shape} and {g.shape})" if w.shape != g.shape else ""
        return f"{what}: Python gave {show_value(w)}, {code.backend} gave {show_value(g)}{shapes}"
    return None

