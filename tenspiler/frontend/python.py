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
* ``function`` may name a method, ``Class.method``, of a top-level class: a
  ``@staticmethod`` is a plain function, a ``@classmethod`` one that does not use its
  first parameter; an instance method reads attributes ``self.x`` (never assigns them or
  calls methods), which become its leading parameters ``self_x`` (``PythonInterface.method``;
  ``--check`` sets them on an object made without ``__init__``). The class may have no base
  class, decorator, metaclass, attribute hooks or slots, and ``x`` may not be a method or
  property of it: then ``self.x`` is the plain value stored in the object.
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
  evaluates the checks first, in order, on the arguments as given. A call statement
  ``helper(xs, "xs")`` there (parameters and literals as arguments) of a *validation
  helper* -- a module function that only inspects its arguments with ``if`` / ``for`` /
  local assignments, the builtins ``isinstance len type str ...``, ``.__name__``, and
  raises builtin exceptions (``validation_source``) -- is kept as its text, which the entry
  runs on the objects given before converting anything. Likewise the leading statements
  (``if`` / assignments) that call a module helper with a list parameter (``if _is_matrix(a)
  and _sizes(a, b): ...``, ``rows, cols = _sizes(a, b)``), and those reading the locals
  they assign, are kept as Python text with the helpers they call (which may then also
  return values and read elements: the text raises what Python raises, on the same
  objects); their locals may not be read after them (``validation_prologue``). ``if C:
  ...; return X`` followed by a final ``raise E(...)`` is read as ``if not C: raise
  E(...)`` followed by the body (``final_raise_as_check``).
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
  comprehensions; ``for m in zip(a, b)`` whose body reads ``m`` only as ``zip(*m)`` (that
  is ``zip(a[k], b[k])``); ``for col in zip(*m)`` of a list of lists ``m`` walks its
  columns (``len(m[0])`` of them when ``m`` has rows, none when it has none: the
  precondition "a list of lists without rows has no columns", ``Function.requires``, true
  of every list; ``col`` is read only by ``zip``, ``sum``/``for`` and ``len``, its element
  ``k`` being ``m[k][c]``). A comprehension variable used elsewhere in the function is renamed (it
  is local to the comprehension). ``for row in m`` whose body subscripts ``row``, iterates
  over it or takes its ``len`` walks the rows: ``row`` is read as ``m[k]`` (the list
  itself, not a copy; refused when the body assigns ``row`` or an element of ``m``), and
  ``for x in m[k]`` walks the row's elements. ``for x in xs[a:b]`` (and ``sum(xs[:k])``
  ...; step 1) walks a slice of a list parameter with Python's bounds (missing, negative
  from the end, clamped to the list: ``Desugar.slice_walk``); a slice used as a value is
  refused.
* expressions: int and float literals, variables, ``a[i]``, ``m[i][j]``, ``len(a)``,
  ``len(range(a, b))`` (``max(0, b - a)``),
  ``len(m)``, ``len(m[i])`` (rows are assumed to have one length), ``+ - * / // % **`` (a
  literal exponent 1..8), unary ``-`` / ``+``, ``E1 if C else E2``, ``abs``, ``min`` /
  ``max`` of two values, ``int(E)`` / ``float(E)`` (of a comparison: 1 or 0), ``math.exp/sqrt/log/tanh/fabs``,
  ``math.pow(x, k)`` (``k`` a literal integer 1..8: ``float(x)`` multiplied ``k`` times),
  ``math.floor/ceil/trunc`` (ints, from the truncation),
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
  ``Iterable[T]`` is a list (the lifted function takes lists). A module-level alias
  ``Vector = Union[...]`` (the name's only binding) is read as what it names; an
  ``np.ndarray`` arm of a union is read as the other arms only when they are 1-D lists of
  floats (a float64 array computes the same doubles; an int64 one wraps).
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
so a literal negative index is refused. Python evaluates every statement when it runs: an
assignment whose value may raise (a division, ``**``, ``math.sqrt`` / ``log`` / ``exp``)
must be read eagerly on every path after it (:mod:`~tenspiler.loops.observed`); one whose
value is never used, used only under a condition or only by a later iteration is refused,
since the generated code finds where Python raises in the summary, which holds only what
the result reads.

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
import copy
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


def _bound_names(s: ast.stmt) -> set[str]:
    if isinstance(s, ast.FunctionDef):
        return {s.name}
    targets = s.targets if isinstance(s, ast.Assign) else [s.target] if isinstance(s, ast.AnnAssign) else []
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _class_annotations(cls: ast.ClassDef) -> dict[str, ast.expr]:
    """``attribute: T`` in the class body, or ``self.attribute: T = ...`` in its methods."""
    out: dict[str, ast.expr] = {}
    for s in cls.body:
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name):
            out.setdefault(s.target.id, s.annotation)
    for node in ast.walk(cls):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Attribute)
                and isinstance(node.target.value, ast.Name) and node.target.value.id == "self"):
            out.setdefault(node.target.attr, node.annotation)
    return out


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
        if function is not None and "." in function:
            return self.lower_method(function)
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
        return self.lower_def(self.defs[function])

    def lower_method(self, qualname: str) -> Function:
        """``Class.method`` of a top-level class: a ``@staticmethod`` is a plain function, a
        ``@classmethod`` one whose first parameter is not used; an instance method's
        ``self.<attribute>`` reads become its leading parameters ``self_<attribute>``
        (annotated by the class body's ``attribute: T``, else typed by use). Assigning an
        attribute, calling a method or using ``self`` otherwise is refused."""
        import dataclasses

        cls_name, _, meth = qualname.partition(".")
        cls = next((c for c in self.tree.body if isinstance(c, ast.ClassDef) and c.name == cls_name), None)
        if cls is None:
            raise BadInput(f"class '{cls_name}' is not defined at the top level of {self.filename}",
                           SourceLoc(self.filename, 1, 1))
        site = self.rebinding(cls_name, next((x for x in self.bindings.get(cls_name, []) if x.node is cls), None))
        if site is not None:
            self.refuse_rebound(f"class '{cls_name}'", site, cls, "the class at run time is unknown")
        fdef = next((f for f in reversed(cls.body) if isinstance(f, ast.FunctionDef) and f.name == meth), None)
        if fdef is None or "." in meth:
            raise BadInput(f"method '{meth}' is not defined in class '{cls_name}'", self.loc(cls))
        if any(isinstance(s, ast.FunctionDef | ast.Assign | ast.AnnAssign) and meth in _bound_names(s)
               for s in cls.body if s is not fdef):
            self.fail(f"'{meth}' is bound more than once in class '{cls_name}'", fdef)
        kinds = [d.id for d in fdef.decorator_list if isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")]
        for k in kinds:
            self.stable_builtin(k, fdef)
        others = [d for d in fdef.decorator_list if not (isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod"))]
        if others or len(kinds) > 1:
            self.fail(f"decorated method '{qualname}' is not supported (only @staticmethod / @classmethod)",
                      (others or fdef.decorator_list)[0])
        kind = {"staticmethod": "static", "classmethod": "class"}.get(kinds[0], "") if kinds else "instance"
        new = copy.deepcopy(fdef)
        new.decorator_list = []
        new.name = f"{cls_name}_{meth}"
        attrs: list[str] = []
        if kind in ("instance", "class"):
            a = new.args
            positional = [*a.posonlyargs, *a.args]
            if not positional:
                self.fail(f"method '{qualname}' takes no '{'self' if kind == 'instance' else 'cls'}' parameter", fdef)
            first = positional[0].arg
            if a.posonlyargs:
                a.posonlyargs = a.posonlyargs[1:]
            else:
                a.args = a.args[1:]
            if len(a.defaults) > len(a.posonlyargs) + len(a.args):
                a.defaults = a.defaults[1:]
            if kind == "instance":
                # self.x must be a plain instance attribute: no property / method of that name,
                # no attribute hooks, no base class that could define either
                for b in cls.bases:
                    if not (isinstance(b, ast.Name) and b.id == "object"):
                        self.fail(f"a method of class '{cls_name}', which has a base class '{ast.unparse(b)}', is "
                                  "not supported (its attributes may be properties)", b)
                if cls.keywords:
                    self.fail(f"class '{cls_name}' with '{ast.unparse(cls.keywords[0])}' is not supported", cls.keywords[0])
                hooks = {"__getattr__", "__getattribute__", "__setattr__", "__slots__"}
                for s in cls.body:
                    if hooks & _bound_names(s) if isinstance(s, ast.FunctionDef | ast.Assign | ast.AnnAssign) else False:
                        self.fail(f"class '{cls_name}' defines attribute hooks or slots: its attributes are not "
                                  "plain values", s)
                for d in cls.decorator_list:
                    self.fail(f"decorated class '{cls_name}' is not supported", d)
            uses = sorted((n for n in ast.walk(new) if isinstance(n, ast.Name) and n.id == first),
                          key=lambda n: (n.lineno, n.col_offset))  # attributes in source order
            parents = {id(c): p for p in ast.walk(new) for c in ast.iter_child_nodes(p)}
            taken = {n.id for n in ast.walk(new) if isinstance(n, ast.Name)} | {x.arg for x in ast.walk(new.args)
                                                                                 if isinstance(x, ast.arg)}
            renamed: dict[str, str] = {}
            annotations = _class_annotations(cls)
            for n in uses:
                parent = parents.get(id(n))
                if kind == "class":
                    self.fail(f"'{first}' used in the class method '{qualname}' is not supported", n)
                if not (isinstance(parent, ast.Attribute) and parent.value is n):
                    self.fail(f"'{first}' used other than to read an attribute ('{first}.x') is not supported", n)
                assert isinstance(parent, ast.Attribute)
                grand = parents.get(id(parent))
                if not isinstance(parent.ctx, ast.Load):
                    self.fail(f"assigning the attribute '{ast.unparse(parent)}' is not supported", parent)
                if isinstance(grand, ast.Call) and grand.func is parent:
                    self.fail(f"calling the method '{ast.unparse(parent)}' is not supported", parent)
                if any(isinstance(s, ast.FunctionDef) and s.name == parent.attr for s in cls.body):
                    self.fail(f"'{ast.unparse(parent)}' is a method or property of class '{cls_name}', not a value",
                              parent)
                if parent.attr not in renamed:
                    name = f"{first}_{parent.attr}"
                    while name in taken:
                        name += "_"
                    taken.add(name)
                    renamed[parent.attr] = name
                    attrs.append(parent.attr)
            # self.attr → self_attr
            class Sub(ast.NodeTransformer):
                def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
                    if isinstance(node.value, ast.Name) and node.value.id == first and node.attr in renamed:
                        return ast.copy_location(ast.Name(id=renamed[node.attr], ctx=ast.Load()), node)
                    self.generic_visit(node)
                    return node

            new = Sub().visit(new)
            lead = [ast.copy_location(ast.arg(arg=renamed[x], annotation=annotations.get(x)), fdef) for x in attrs]
            new.args.args = [*lead, *new.args.args] if not new.args.posonlyargs else new.args.args
            if new.args.posonlyargs:
                new.args.posonlyargs = [*lead, *new.args.posonlyargs]
        fn = self.lower_def(new)
        assert fn.python is not None
        return dataclasses.replace(fn, python=dataclasses.replace(fn.python, method=(cls_name, meth, kind, tuple(attrs))))

    def lower_def(self, fdef: ast.FunctionDef) -> Function:
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
