"""Python frontend: lower one legacy-Python function (lists and loops) to the loop IR.

The module is read with the standard :mod:`ast` module (nothing is imported or run while
lifting); locations are the user's ``file:line:col`` (columns count characters, from 1).
The result is the same loop IR the C / C++ frontends produce, with the list interface of
the C++ ``std::vector`` subset: a list parameter becomes a pointer parameter holding its
elements row-major plus INT size parameters (``a__size``, or ``m__rows`` / ``m__cols``),
recorded in ``Function.cxx`` (:class:`~tenspiler.loops.ir.VectorParam`); a returned
list built with ``append`` is the :class:`~tenspiler.loops.ir.VectorResult`;
``Function.python`` marks the kernel as Python, so ``--check`` runs the original function.

Accepted (everything else raises a located :class:`~tenspiler.errors.BadInput`):

* top level: ``def`` (the kernel: ``function``, default the last top-level ``def``; the
  others may be called as helpers), ``import math`` / ``import math as m`` / ``from math
  import exp, ...``, constants ``NAME = <number literal>`` (read as literals); other
  top-level statements are ignored (they run on import in ``--check``).
* module names are resolved soundly: a constant is folded only if nothing else in the
  module may bind its name -- no other module-level binding of another value (assignment,
  ``+=``, ``for`` / ``with`` target, ``:=``, ``del``, import, ``def``, ``class``, ``except
  ... as``, ``match`` capture), no binding under ``global NAME`` in any function or class,
  no ``obj.NAME = ...`` / ``setattr(obj, 'NAME', ...)``, and no construct that may bind any
  global (``globals()``, ``vars()``, ``exec`` / ``eval`` without a namespace, a star import,
  ``sys.modules``, ``__dict__``, ``setattr`` with a computed name) -- and, when the module
  is running (a live function's ``__globals__``, or a module of ``sys.modules`` loaded
  from the file), only if its current value is the literal (same type). Otherwise the use
  is refused, naming the rebinding ("module global 'SCALE' is rebound at line 7
  (assignment, under 'global' in 'set_scale') ..."). The same rule guards the names the
  subset gives a meaning: the builtins ``len abs min max int float range`` (refused when
  the module may bind them), ``math`` and names imported from it, and helper functions
  (only top-level ``def`` s may bind them). A later rebinding from *another* module after
  lifting cannot be seen: pass values that change as parameters.
* parameters: plain positional parameters (no ``*args``, keyword-only, decorators other
  than ``@lifted`` / ``@tenspiler.lifted``) that are numbers, lists of numbers (1-D) or
  rectangular lists of lists (2-D). A default value changes nothing: the lifted function
  takes every parameter (a helper call may leave out number-literal defaults).
* argument checks: ``if C: raise E(...)`` (``E`` a builtin exception class, a literal
  message) and ``if C: return N`` (a number literal), ``elif`` chains of them, among the
  top-level statements before the first loop (:class:`~tenspiler.loops.ir.ArgGuard`,
  ``PythonInterface.guards``). ``C`` is over the parameters and list lengths (``not xs`` is
  ``len(xs) == 0``; locals assigned before by straight-line code are substituted) and
  cannot raise, nor can the statements before it (no division, math call or list element).
  The body after them is proved on its own for every input; the generated Python entry
  evaluates the checks first, in order, on the arguments as given.
* statements: ``x = E``, ``x: T = E``, ``x op= E`` for ``+ - * / // % **``, ``a = b = E``
  (``E`` once), ``a, b = E1, E2`` (every ``E`` evaluated before any name is assigned),
  ``for v in range(stop)`` / ``range(start, stop)`` / ``range(start, stop, 1)`` (other
  steps refused; ``reversed(range(...))`` and ``list(range(...))`` too), ``for x in a`` /
  ``reversed(a)`` over a 1-D list parameter, ``while i < E: ...; i += 1`` (a counter ``i``
  assigned before, incremented only by the last statement of the body; also ``i <= E``,
  ``E > i``, ``E >= i``; it becomes a counted loop and ``i`` keeps Python's final value),
  ``if`` / ``elif`` / ``else`` (if-converted to selects exactly as in the C frontend: the
  condition is evaluated once into a fresh ``__ifK`` local; branches hold only
  assignments and nested ``if``), ``out = []`` + ``out.append(E)`` for the returned list
  and ``row = []`` ... ``out.append(row)`` (as the last statement of the block that
  created ``row``) for a returned list of lists -- the rules of C++ ``push_back``:
  unconditional appends in counted loops --, ``pass``, docstrings, ``assert`` (ignored:
  where it fails Python raises, so the function has no result to compare), and a final
  ``return E`` (a number) or ``return out``.
* results written in place: ``xs[i] = E``, ``m[i][j] = E`` (and ``op=``) on list
  parameters (``PythonInterface.written``; a function that does may end without
  ``return``, or return a number). The element type is kept: a float is never stored into
  a list of ints, an int into a list of floats only as a literal. The generated Python
  entry (NumPy) writes the new contents back into the objects given (a list's elements,
  each row's elements, or an array), after checking that the written lists and their rows
  are distinct objects from every other argument and row (``[[0] * n] * m`` is refused at
  run time with ``ValueError``: the model's arrays do not alias).
* idioms, rewritten to the explicit loops above before lowering (same loop IR; see
  :class:`~tenspiler.frontend.py_comprehensions.Desugar`): list comprehensions as the
  returned list (``return [E for x in xs]``, ``out = [...]; return out``, nested ``[[...] for i ...]`` for a list of lists, a
  row ``out.append([...])``; several ``for`` clauses nest; an ``if`` clause is refused: the
  length would depend on the data); ``sum`` / ``max`` / ``min`` of a generator, list
  comprehension or list parameter used as a value (a fresh accumulator and a loop before
  the statement; ``sum`` adds left to right from the int ``0`` or its second argument;
  ``max`` / ``min`` start from element 0 and run ``range(1, len)``, so a non-empty sequence
  -- Python raises ``ValueError`` on an empty one -- is the loop's trip-count precondition;
  refused under ``if``, in a lazily evaluated operand or a ``while`` condition);
  ``for x, y in zip(a, b)`` (the trip count is Python's ``min(len(a), len(b))``) and
  ``for i, x in enumerate(a)`` (also ``enumerate(zip(...))``), in statements and
  comprehensions. A comprehension variable used elsewhere in the function is renamed (it
  is local to the comprehension).
* expressions: int and float literals, variables, ``a[i]``, ``m[i][j]``, ``len(a)``,
  ``len(range(a, b))`` (``max(0, b - a)``),
  ``len(m)``, ``len(m[i])`` (rows are assumed to have one length), ``+ - * / // % **`` (a
  literal exponent 1..8), unary ``-`` / ``+``, ``E1 if C else E2``, ``abs``, ``min`` /
  ``max`` of two values, ``int(E)`` / ``float(E)``, ``math.exp/sqrt/log/tanh/fabs``,
  ``math.pi`` / ``math.e`` (also imported by name), and calls of other functions of the module whose body only
  assigns numbers, has ``if`` statements and returns a number on every path (inlined by
  substitution; early ``return`` inside ``if`` allowed).
* conditions (``if``, ``while``, ``E1 if C else E2``): comparisons (chains ``a < b < c``
  too), ``and``, ``or``, ``not``; any other number ``E`` means ``E != 0``. Comparisons and
  ``True`` / ``False`` are not values (refused outside conditions).

Types (Python values are untyped; the rule is syntactic and documented here):

* A parameter annotation ``int``, ``float``, ``list[T]``, ``list[list[T]]`` (also
  ``List`` / ``Sequence`` / ``MutableSequence`` with any module prefix, or a string
  annotation) is used as written; ``bool`` is an ``int``; ``Optional[T]`` and ``T | None``
  are ``T`` (the lifted function takes no ``None``); a union of number types
  (``int | float``, ``Union[int, float]``) is ``float``, as an unannotated list's elements.
* Without an annotation, a parameter is a list if the function calls ``len`` on it,
  subscripts it or iterates over it (2-D if ``p[i][j]`` or ``len(p[i])`` occurs); list
  elements are ``float``. A scalar parameter is ``int`` if it occurs in a ``range(...)``
  argument, a subscript or a ``while`` condition, else ``float``. Integer lists need an
  annotation (``base: list[list[int]]``).
* A local's type is the join of every value assigned to it (``float`` if any is a float:
  ``s = 0`` then ``s += a[i]`` makes ``s`` a float -- its int ``0`` and the float ``0.0``
  are the same number); the returned list's elements likewise. Annotations of locals are
  used; the return annotation is ignored (the values decide).

Semantics are Python's, never C's: ``int`` is :attr:`DType.INT` (a mathematical integer:
Python ints are unbounded; the generated NumPy code computes in int64, equal to Python while
every value fits in 64 bits), ``float`` is :attr:`DType.DOUBLE` (verified over the reals, as
for C), ``/`` is true division (operands converted to float), ``//`` and ``%`` on ints are
Python's *floor* division and modulo -- the loop-IR ops ``//`` and ``mod``
(:data:`~tenspiler.loops.ir.FLOOR_OPS`), defined in :mod:`tenspiler.ir.semantics`
next to C's truncating ``/`` and ``%`` -- and on floats they are refused. ``int(x)``
truncates toward zero (as a C cast); ``min(a, b)`` is ``b if b < a else a`` and ``max(a,
b)`` is ``b if b > a else a`` (Python's choice of the first extremum); mixed int/float
operands are converted to float. An index is assumed to lie in ``[0, len)`` (a proof
precondition, printed with every summary): Python's negative indices read from the end,
so a literal negative index is refused.

The lowering is split along these lines: :mod:`~tenspiler.frontend.py_globals` (module
names resolved soundly), :mod:`~tenspiler.frontend.py_types` (bindings, annotations, types
of parameters), :mod:`~tenspiler.frontend.py_exprs` (expressions, conditions, helper
inlining), :mod:`~tenspiler.frontend.py_comprehensions` (the idioms desugared) and
:mod:`~tenspiler.frontend.py_stmts` (statements, the returned list, loops,
if-conversion); what the C frontend shares is in :mod:`~tenspiler.frontend.common`
(if-conversion), :mod:`~tenspiler.frontend.lists` (list parameters, the returned list) and
:mod:`~tenspiler.frontend.counted` (counted loops).
"""

from __future__ import annotations

import ast
import inspect
import os
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tenspiler.errors import BadInput, SourceLoc, read_utf8
from tenspiler.frontend import PY_SUFFIXES, read_source
from tenspiler.frontend.py_exprs import Expressions
from tenspiler.frontend.py_globals import is_def_of
from tenspiler.frontend.py_stmts import Kernel
from tenspiler.loops.ir import DType, Function

__all__ = ["PY_SUFFIXES", "folded_globals", "parse_python_file", "parse_python_function", "parse_python_source"]


# ---------------------------------------------------------------- public API


def parse_python_file(path: str | Path, function: str | None = None) -> Function:
    """Read the Python module at ``path`` and lower one of its functions (default: the
    last top-level ``def``) to the loop IR; locations name ``str(path)``.

    Raises:
        BadInput: unreadable file, syntax error, unknown ``function``, or any construct
            outside the accepted subset (``file:line:col: message``).
    """
    return parse_python_source(read_source(path), str(path), function)


def parse_python_source(text: str, filename: str = "<string>", function: str | None = None) -> Function:
    """Lower one function of the Python module ``text`` (``filename`` is used in
    locations and by ``--check`` as the module's ``__file__``). Same contract as
    :func:`parse_python_file`."""
    text = text.replace("\r\n", "\n")
    try:
        tree = ast.parse(text, filename)
    except SyntaxError as e:
        raise BadInput(f"syntax error: {e.msg}", _syntax_loc(e, filename)) from None
    return Module(text, filename, tree, live=_live_namespaces(filename)).lower(function)


def parse_python_function(fn: Callable[..., Any]) -> Function:
    """Lower the Python function object ``fn``: its module's source (``inspect``) is
    parsed, so that helpers of the module can be inlined and locations are the real
    ``file:line:col``; module constants must still hold their source value in
    ``fn.__globals__``. When only the function's own source is available (e.g. defined in
    a notebook cell), or ``fn`` is not the def the module's name binds now (an earlier
    ``def`` of the same name), that text is parsed with its line and column offsets."""
    name = getattr(fn, "__name__", None)
    if not inspect.isfunction(fn) or name is None:
        raise BadInput(f"{fn!r} is not a Python function")
    try:
        filename = inspect.getsourcefile(fn) or inspect.getfile(fn)
        module_text = read_utf8(filename)
    except (OSError, TypeError, BadInput):
        module_text, filename = "", getattr(fn.__code__, "co_filename", "<unknown>")
    fdef = _top_level_defs(module_text, filename).get(name) if module_text else None
    if fdef is not None and is_def_of(fdef, fn):
        # the last top-level def of that name is the one the module binds (fn is that one)
        text = module_text.replace("\r\n", "\n")
        tree = ast.parse(text, filename)
        live = [fn.__globals__, *(ns for ns in _live_namespaces(filename) if ns is not fn.__globals__)]
        return Module(text, filename, tree, live=live).lower(name)
    # not a top-level function of a readable module: its own source, offsets kept
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise BadInput(f"no source text for function '{name}': {e}") from None
    raw = "".join(lines)
    body = textwrap.dedent(raw)
    shift = (len(raw.split("\n", 1)[0]) - len(body.split("\n", 1)[0])) if raw.strip() else 0
    try:
        tree = ast.parse(body, filename)
    except SyntaxError as e:
        raise BadInput(f"syntax error: {e.msg}", _syntax_loc(e, filename)) from None
    ast.increment_lineno(tree, max(first, 1) - 1)
    return Module(body, filename, tree, line_offset=max(first, 1) - 1, col_shift=shift).lower(name)


def folded_globals(text: str, filename: str = "<string>", function: str | None = None) -> dict[str, int | float]:
    """The module constants the lowering of ``function`` of ``text`` folds, by name: the
    values a caller must find in the function's ``__globals__`` for the lifted code to
    equal the function (e.g. checked per call by a wrapper, or on a cache hit)."""
    text = text.replace("\r\n", "\n")
    try:
        tree = ast.parse(text, filename)
    except SyntaxError as e:
        raise BadInput(f"syntax error: {e.msg}", _syntax_loc(e, filename)) from None
    mod = Module(text, filename, tree, live=_live_namespaces(filename))
    mod.lower(function)
    return dict(mod.folded)


def _live_namespaces(filename: str) -> list[dict[str, Any]]:
    """The globals of every imported module whose file is ``filename`` (``__main__``
    included): the values a lifted function reads at run time, compared with what the
    source assigns (:class:`~tenspiler.frontend.py_globals.ModuleNames`)."""
    if not filename or filename.startswith("<"):
        return []
    try:
        want = os.path.realpath(filename)
    except (OSError, ValueError):  # pragma: no cover
        return []
    base = os.path.basename(want)
    out: list[dict[str, Any]] = []
    for m in list(sys.modules.values()):
        f = getattr(m, "__file__", None)
        if not isinstance(f, str) or os.path.basename(f) != base:
            continue
        try:
            if os.path.realpath(f) == want:
                out.append(vars(m))
        except (OSError, ValueError, TypeError):  # pragma: no cover
            continue
    return out


def _top_level_defs(text: str, filename: str) -> dict[str, ast.FunctionDef]:
    try:
        tree = ast.parse(text, filename)
    except SyntaxError:
        return {}
    return {s.name: s for s in tree.body if isinstance(s, ast.FunctionDef)}


def _syntax_loc(e: SyntaxError, filename: str) -> SourceLoc:
    return SourceLoc(filename, e.lineno or 1, e.offset or 1)


# ---------------------------------------------------------------- the module


class Module(Expressions):
    """One Python module: its names (:class:`~tenspiler.frontend.py_globals.ModuleNames`),
    types (:class:`~tenspiler.frontend.py_types.ModuleTypes`), expressions
    (:class:`~tenspiler.frontend.py_exprs.Expressions`) and the choice and typing of the
    kernel (here), whose statements :class:`~tenspiler.frontend.py_stmts.Kernel` lowers."""

    def lower(self, function: str | None) -> Function:
        """Lower ``function`` (default: the last top-level ``def``), inferring the types of
        its locals."""
        if function is None:
            if not self.order:
                raise BadInput(f"no function is defined in {self.filename}", SourceLoc(self.filename, 1, 1))
            function = self.order[-1]
        if function not in self.defs:
            defined = ", ".join(self.order) if self.order else "(none)"
            raise BadInput(
                f"function '{function}' is not defined at the top level of {self.filename}; defined: {defined}",
                SourceLoc(self.filename, 1, 1),
            )
        fdef = self.defs[function]
        types: dict[str, DType] = {}
        # Lowering infers the types of locals: a pass that assigns a float to an int
        # local promotes it and runs again (monotone: a type only goes int -> float).
        for _ in range(1000):
            k = Kernel(self, fdef, dict(types))
            try:
                fn = k.lower()
            except BadInput:
                if not k.promoted:
                    raise
                types.update(k.promoted)
                continue
            if not k.promoted:
                return fn
            types.update(k.promoted)
        raise AssertionError("type inference did not converge")  # pragma: no cover
