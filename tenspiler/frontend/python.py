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
* parameters: plain positional parameters (no defaults, ``*args``, keyword-only,
  decorators other than ``@lifted`` / ``@tenspiler.lifted``) that are numbers, lists of numbers (1-D) or rectangular lists of lists (2-D).
* statements: ``x = E``, ``x: T = E``, ``x op= E`` for ``+ - * / // % **``, ``for v in
  range(stop)`` / ``range(start, stop)`` / ``range(start, stop, 1)`` (other steps refused),
  ``for x in a`` over a 1-D list parameter, ``while i < E: ...; i += 1`` (a counter ``i``
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
* idioms, rewritten to the explicit loops above before lowering (same loop IR; see
  :class:`_Desugar`): list comprehensions as the returned list (``return [E for x in
  xs]``, ``out = [...]; return out``, nested ``[[...] for i ...]`` for a list of lists, a
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
  ``List`` / ``Sequence``, or a string annotation) is used as written.
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
"""

from __future__ import annotations

import ast
import copy
import inspect
import math
import os
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn, TypeAlias, TypeVar

from tenspiler.errors import BadInput, SourceLoc
from tenspiler.frontend.common import (
    IfConversion,
    convert,
    read_source,
    vars_read,
    writes,
)
from tenspiler.frontend.lists import entry_values
from tenspiler.ir.semantics import py_cast
from tenspiler.loops.ir import (
    Assign,
    Binary,
    BinOpName,
    Call,
    Cast,
    CmpOpName,
    Compare,
    Cond,
    Const,
    CxxInterface,
    DType,
    Expr,
    For,
    Function,
    Load,
    Logical,
    Not,
    Param,
    PointerType,
    PythonInterface,
    Return,
    ScalarType,
    Select,
    Stmt,
    Store,
    Unary,
    Var,
    VectorParam,
    VectorResult,
)

__all__ = ["PY_SUFFIXES", "folded_globals", "parse_python_file", "parse_python_function", "parse_python_source"]

#: File suffixes read by this frontend.
PY_SUFFIXES = (".py",)

INT, DOUBLE = DType.INT, DType.DOUBLE
_N = TypeVar("_N", bound=ast.AST)

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
    return _Module(text, filename, tree, live=_live_namespaces(filename)).lower(function)


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
        module_text = Path(filename).read_text(encoding="utf-8")
    except (OSError, TypeError):
        module_text, filename = "", getattr(fn.__code__, "co_filename", "<unknown>")
    fdef = _top_level_defs(module_text, filename).get(name) if module_text else None
    if fdef is not None and _is_def_of(fdef, fn):
        # the last top-level def of that name is the one the module binds (fn is that one)
        text = module_text.replace("\r\n", "\n")
        tree = ast.parse(text, filename)
        live = [fn.__globals__, *(ns for ns in _live_namespaces(filename) if ns is not fn.__globals__)]
        return _Module(text, filename, tree, live=live).lower(name)
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
    return _Module(body, filename, tree, line_offset=max(first, 1) - 1, col_shift=shift).lower(name)


def folded_globals(text: str, filename: str = "<string>", function: str | None = None) -> dict[str, int | float]:
    """The module constants the lowering of ``function`` of ``text`` folds, by name: the
    values a caller must find in the function's ``__globals__`` for the lifted code to
    equal the function (e.g. checked per call by a wrapper, or on a cache hit)."""
    text = text.replace("\r\n", "\n")
    try:
        tree = ast.parse(text, filename)
    except SyntaxError as e:
        raise BadInput(f"syntax error: {e.msg}", _syntax_loc(e, filename)) from None
    mod = _Module(text, filename, tree, live=_live_namespaces(filename))
    mod.lower(function)
    return dict(mod.folded)


def _is_def_of(fdef: ast.FunctionDef, fn: Callable[..., Any]) -> bool:
    """Whether ``fdef`` is the definition of ``fn`` (not an earlier / other def of the same
    name): its first line, decorators included, is the code object's."""
    first = min([fdef.lineno, *(d.lineno for d in fdef.decorator_list)])
    code = getattr(fn, "__code__", None)
    return getattr(code, "co_name", None) == fdef.name and getattr(code, "co_firstlineno", None) in (first, fdef.lineno)


def _live_namespaces(filename: str) -> list[dict[str, Any]]:
    """The globals of every imported module whose file is ``filename`` (``__main__``
    included): the values a lifted function reads at run time, compared with what the
    source assigns (:meth:`_Module.live_mismatch`)."""
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


# ---------------------------------------------------------------- bindings


@dataclass(frozen=True)
class _Scalar:
    """A number variable of the kernel (parameter or local)."""

    dtype: DType


@dataclass(frozen=True)
class _ListParam:
    """A list parameter: pointer parameter ``name`` (elements row-major) and the INT
    parameters ``sizes`` (length, or rows and columns)."""

    name: str
    rank: int
    elem: DType
    sizes: tuple[str, ...]


@dataclass(frozen=True)
class _Result:
    """The returned list: ``append`` stores into the pointer parameter ``array`` at index
    ``length`` (an INT local counting the elements so far)."""

    name: str
    rank: int
    array: str
    length: str


@dataclass(frozen=True)
class _Row:
    """A list created by ``name = []`` in a loop body whose last statement is
    ``into.append(name)``; its appends go straight to the result's elements. ``depth``
    is the number of loops around its creation; ``last`` the ``into.append(name)``."""

    name: str
    into: str
    depth: int
    last: ast.stmt


@dataclass(frozen=True)
class _DeadLoopVar:
    """A ``for`` variable after its loop (Python leaves it at the last value; reads are
    refused)."""

    name: str


_Binding: TypeAlias = _Scalar | _ListParam | _Result | _Row | _DeadLoopVar

#: Key of the returned list's element dtype in the promotion table.
_RESULT_KEY = "<result>"

_MATH = {"exp": "exp", "sqrt": "sqrt", "log": "log", "tanh": "tanh", "fabs": "fabs"}
_MATH_CONSTANTS = {"pi": math.pi, "e": math.e}
#: The builtins the subset calls (refused when the module may rebind them).
_BUILTINS = frozenset({"len", "abs", "min", "max", "int", "float", "range", "sum", "zip", "enumerate"})
_LIST_NAMES = frozenset({"list", "List", "Sequence"})
_CMP: dict[type[ast.cmpop], CmpOpName] = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
}
_OP_TEXT: dict[type[ast.operator], str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitOr: "|", ast.BitXor: "^",
    ast.BitAnd: "&", ast.MatMult: "@",
}
_NODE_NAMES: dict[type[ast.AST], str] = {
    ast.ListComp: "list comprehension", ast.SetComp: "set comprehension",
    ast.DictComp: "dict comprehension", ast.GeneratorExp: "generator expression",
    ast.Lambda: "lambda", ast.List: "list literal", ast.Tuple: "tuple", ast.Dict: "dict",
    ast.Set: "set", ast.JoinedStr: "f-string", ast.Await: "await", ast.Yield: "yield",
    ast.YieldFrom: "yield from", ast.NamedExpr: "assignment expression ':='",
    ast.Starred: "starred expression", ast.Slice: "slice",
    ast.While: "while loop", ast.For: "for loop", ast.AsyncFor: "async for loop",
    ast.With: "with statement", ast.AsyncWith: "async with statement",
    ast.Try: "try statement", ast.Raise: "raise statement", ast.Return: "return statement",
    ast.Break: "'break'", ast.Continue: "'continue'", ast.Global: "'global'",
    ast.Nonlocal: "'nonlocal'", ast.Delete: "'del'", ast.FunctionDef: "nested function",
    ast.AsyncFunctionDef: "nested function", ast.ClassDef: "class definition",
    ast.Import: "import", ast.ImportFrom: "import", ast.Match: "match statement",
}


def _describe(node: ast.AST) -> str:
    return _NODE_NAMES.get(type(node), type(node).__name__)


def _join(a: DType, b: DType) -> DType:
    """Python's numeric tower on our types: float if either is a float."""
    return DOUBLE if DOUBLE in (a, b) else INT


def _is_name(node: ast.AST | None, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _is_int_literal(node: ast.AST, value: int) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == value


def _appends(node: ast.stmt | None, into: str, row: str) -> bool:
    """Whether ``node`` is the statement ``into.append(row)``."""
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Attribute)
        and node.value.func.attr == "append"
        and _is_name(node.value.func.value, into)
        and len(node.value.args) == 1
        and _is_name(node.value.args[0], row)
    )


def _is_docstring(s: ast.stmt) -> bool:
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str)


def _assigned_names(body: list[ast.stmt]) -> set[str]:
    """Names a function body binds (Python's local scope)."""
    out: set[str] = set()
    for node in (n for s in body for n in ast.walk(s)):
        match node:
            case ast.Assign(targets=targets):
                out.update(t.id for t in targets if isinstance(t, ast.Name))
            case ast.AugAssign(target=ast.Name(id=name)) | ast.AnnAssign(target=ast.Name(id=name)):
                out.add(name)
            case ast.For(target=ast.Name(id=name)):
                out.add(name)
    return out


# ---------------------------------------------------------------- types of parameters


@dataclass(frozen=True)
class _ParamType:
    """A parameter's type: a number (``rank == 0``) or a list of rank 1, 2 or 3."""

    rank: int
    dtype: DType


@dataclass
class _Uses:
    """How the kernel body uses each name (for parameters without annotations)."""

    lists: dict[str, int] = field(default_factory=dict)  # name -> rank seen (1, 2 or 3)
    int_context: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, body: list[ast.stmt]) -> _Uses:
        u = cls()

        def note(name: str, rank: int) -> None:
            u.lists[name] = max(rank, u.lists.get(name, 1))

        def names_in(node: ast.AST) -> set[str]:
            return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}

        for node in (n for s in body for n in ast.walk(s)):
            match node:
                case ast.Call(func=ast.Name(id="len"), args=[ast.Name(id=name)]):
                    note(name, 1)
                case ast.Call(func=ast.Name(id="len"), args=[ast.Subscript(value=ast.Subscript(value=ast.Name(id=name)))]):
                    note(name, 3)
                case ast.Call(func=ast.Name(id="len"), args=[ast.Subscript(value=ast.Name(id=name))]):
                    note(name, 2)
                case ast.Call(func=ast.Name(id="range"), args=args):
                    for a in args:
                        u.int_context |= names_in(a)
                case ast.Subscript(value=ast.Subscript(value=ast.Subscript(value=ast.Name(id=name)))):
                    note(name, 3)
                case ast.Subscript(value=ast.Subscript(value=ast.Name(id=name))):
                    note(name, 2)
                case ast.Subscript(value=ast.Name(id=name)):
                    note(name, 1)
                case ast.For(iter=ast.Name(id=name)):
                    note(name, 1)
                case ast.While(test=test):
                    u.int_context |= names_in(test)
            if isinstance(node, ast.Subscript):
                u.int_context |= names_in(node.slice)
        return u


# ---------------------------------------------------------------- the module


class _Module:
    """One Python module: its functions, math imports and constants."""

    def __init__(
        self,
        text: str,
        filename: str,
        tree: ast.Module,
        line_offset: int = 0,
        col_shift: int = 0,
        live: list[dict[str, Any]] | None = None,
    ) -> None:
        self.text = text
        self.filename = filename
        self.lines = text.split("\n")
        self.tree = tree
        self.line_offset = line_offset
        self.col_shift = col_shift
        self.defs: dict[str, ast.FunctionDef] = {}
        self.order: list[str] = []
        self.math_modules: set[str] = set()
        self.math_names: dict[str, str] = {}
        self.constants: dict[str, int | float] = {}
        #: Names the module binds at the top level (constants among them).
        self.globals: set[str] = set()
        for s in tree.body:
            match s:
                case ast.FunctionDef(name=name):
                    self.defs[name] = s
                    self.order.append(name)
                case ast.Import(names=names):
                    for a in names:
                        if a.name == "math":
                            self.math_modules.add(a.asname or "math")
                case ast.ImportFrom(module="math", names=names, level=0):
                    for a in names:
                        if a.name != "*":
                            self.math_names[a.asname or a.name] = a.name
                case ast.Assign(targets=[ast.Name(id=name)], value=value) | ast.AnnAssign(
                    target=ast.Name(id=name), value=value
                ) if value is not None:
                    # a candidate constant: folded only if nothing else binds the name
                    # (:meth:`constant`)
                    lit = _number_literal(value)
                    if lit is not None:
                        self.constants.setdefault(name, lit)
        #: Every place the module source may bind each module-level name (see
        #: :func:`_module_bindings`); ``dynamic``: a construct that may bind any of them.
        self.bindings, self.dynamic = _module_bindings(tree)
        self.globals.update(self.bindings)
        #: Namespaces of the running module(s) (a live function's ``__globals__``).
        self.live = live or []
        #: The module constants folded into the lowered function, by name.
        self.folded: dict[str, int | float] = {}

    # ----------------------------------------------------------- module names

    def rebinding(self, name: str, ref: _Site | None) -> _Site | None:
        """The first place that may bind the module-level ``name`` to something else than
        ``ref`` (the binding the lifter relies on; ``None``: the builtin), else ``None``.
        Bindings with the same key (``NAME = 2`` twice, ``import math`` twice) agree;
        top-level ``def`` s of a helper agree (the last one is the module's)."""
        if self.dynamic is not None:
            return self.dynamic
        for site in self.bindings.get(name, []):
            if ref is None or site is ref:
                if ref is None:
                    return site
                continue
            if site.module_scope and site.key is not None and site.key == ref.key:
                continue
            return site
        return None

    def site_of(self, name: str, key: tuple[Any, ...]) -> _Site | None:
        return next((x for x in self.bindings.get(name, []) if x.key == key), None)

    def refuse_rebound(self, what: str, site: _Site, node: ast.AST, advice: str) -> NoReturn:
        line = getattr(site.node, "lineno", None)
        where = f"at line {line} " if line is not None else ""
        verb = "may be rebound" if site is self.dynamic else "is rebound"
        self.fail(f"{what} {verb} {where}({site.reason}): {advice}", node)

    def stable_builtin(self, name: str, node: ast.AST) -> None:
        """Refuse a call of builtin ``name`` (``len``, ``abs``, ``range`` ...) when the
        module may rebind that name: the call would not mean the builtin."""
        site = self.rebinding(name, None) if name in self.bindings or self.dynamic is not None else None
        if site is not None:
            self.refuse_rebound(f"builtin '{name}'", site, node, "its meaning at call time is unknown")
        for ns in self.live:
            if name in ns:
                self.fail(
                    f"builtin '{name}' is shadowed by a global of the running module: "
                    "its meaning at call time is unknown",
                    node,
                )

    def stable_helper(self, name: str, node: ast.AST) -> None:
        """Refuse inlining helper ``name`` when something else than its top-level ``def``
        statements may bind the name."""
        site = self.rebinding(name, self.site_of(name, ("def",)))
        if site is not None:
            self.refuse_rebound(
                f"function '{name}'", site, node, "the function called at run time is unknown; do not rebind helpers"
            )
        fdef = self.defs[name]
        for ns in self.live:
            if name in ns and not _is_def_of(fdef, getattr(ns[name], "original", ns[name])):
                self.fail(
                    f"function '{name}' of the running module is not the def at line {fdef.lineno}: "
                    "the function called at run time is unknown",
                    node,
                )

    def stable_math(self, name: str, node: ast.AST) -> None:
        """Refuse ``name`` (``math`` or a name imported from it) when the module may rebind it."""
        site = self.rebinding(name, self.bindings[name][0] if self.bindings.get(name) else None)
        if site is not None:
            self.refuse_rebound(f"'{name}'", site, node, "its meaning at call time is unknown")
        for ns in self.live:
            if name not in ns:
                continue
            want = math if name in self.math_modules else getattr(math, self.math_names.get(name, ""), None)
            if ns[name] is not want:
                self.fail(f"'{name}' of the running module is not the one imported from math", node)

    def constant(self, name: str, node: ast.AST) -> int | float:
        """The value of the module constant ``name``: a literal it is bound to exactly once
        and never rebound (nor set to another value in the running module)."""
        v = self.constants[name]
        ref = self.site_of(name, _literal_key(v))
        site = self.rebinding(name, ref)
        if site is not None:
            self.refuse_rebound(
                f"module global '{name}'", site, node, "its value at call time is unknown; pass it as a parameter"
            )
        for ns in self.live:
            if name in ns and not (type(ns[name]) is type(v) and ns[name] == v):
                self.fail(
                    f"module global '{name}' is {ns[name]!r} in the running module but {v!r} in its source "
                    "(it was rebound): its value at call time is unknown; pass it as a parameter",
                    node,
                )
        self.folded[name] = v
        return v

    # ----------------------------------------------------------- locations

    def loc(self, node: ast.AST | None) -> SourceLoc:
        line = getattr(node, "lineno", None)
        if line is None:
            return SourceLoc(self.filename, 1, 1)
        offset = getattr(node, "col_offset", 0) or 0
        k = line - 1 - self.line_offset
        text = self.lines[k] if 0 <= k < len(self.lines) else ""
        col = len(text.encode("utf-8")[:offset].decode("utf-8", errors="replace"))  # bytes → characters
        return SourceLoc(self.filename, line, col + 1 + self.col_shift)

    def fail(self, message: str, node: ast.AST | None) -> NoReturn:
        raise BadInput(message, self.loc(node))

    # ----------------------------------------------------------- top level

    def lower(self, function: str | None) -> Function:
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
            k = _Kernel(self, fdef, dict(types))
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

    def annotation(self, node: ast.expr, what: str) -> _ParamType | None:
        """The type an annotation names (``None``: a bare ``list``, rank and elements
        inferred)."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                parsed = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                self.fail(f"annotation of {what} is not a type: {node.value!r}", node)
            return self.annotation(ast.copy_location(parsed, node), what)
        name = _type_name(node)
        if name in ("int", "float"):
            return _ParamType(0, INT if name == "int" else DOUBLE)
        if name in _LIST_NAMES:
            return None
        if isinstance(node, ast.Subscript) and _type_name(node.value) in _LIST_NAMES:
            inner = node.slice
            iname = _type_name(inner)
            if iname in ("int", "float"):
                return _ParamType(1, INT if iname == "int" else DOUBLE)
            if isinstance(inner, ast.Subscript) and _type_name(inner.value) in _LIST_NAMES:
                ename = _type_name(inner.slice)
                if ename in ("int", "float"):
                    return _ParamType(2, INT if ename == "int" else DOUBLE)
                third = inner.slice
                if isinstance(third, ast.Subscript) and _type_name(third.value) in _LIST_NAMES:
                    tname = _type_name(third.slice)
                    if tname in ("int", "float"):
                        return _ParamType(3, INT if tname == "int" else DOUBLE)
        self.fail(
            f"annotation '{ast.unparse(node)}' of {what} is not supported "
            "(int, float, list[int], list[float], list[list[int]], list[list[float]], list[list[list[float]]], …)",
            node,
        )

    # ----------------------------------------------------------- expressions

    def expr(self, node: ast.expr, sc: _Scope) -> Expr:
        """Lower an expression (no side effects in the subset)."""
        loc = self.loc(node)
        match node:
            case ast.Constant(value=bool() as v):
                self.fail(f"boolean value '{v}' is not supported (only comparisons in conditions)", node)
            case ast.Constant(value=int() as v):
                return Const(v, INT, loc)
            case ast.Constant(value=float() as v):
                return Const(v, DOUBLE, loc)
            case ast.Constant(value=v):
                self.fail(f"{type(v).__name__} literal is not supported", node)
            case ast.Name(id=name):
                return sc.read(name, node)
            case ast.BinOp(left=left, op=op, right=right):
                return self.binop(op, self.expr(left, sc), right, sc, node)
            case ast.UnaryOp(op=ast.USub(), operand=operand):
                x = self.expr(operand, sc)
                if isinstance(x, Const):
                    return Const(-x.value, x.dtype, loc)
                return Unary("-", x, x.dtype, loc)
            case ast.UnaryOp(op=ast.UAdd(), operand=operand):
                return self.expr(operand, sc)
            case ast.UnaryOp(op=ast.Invert()):
                self.fail("bitwise operator '~' is not supported", node)
            case ast.UnaryOp(op=ast.Not()) | ast.Compare() | ast.BoolOp():
                self.fail(
                    f"'{ast.unparse(node)}' is a truth value; it is only supported as a condition "
                    "(of if, while or a conditional expression)",
                    node,
                )
            case ast.IfExp(test=test, body=body, orelse=orelse):
                c = self.cond(test, sc)
                a, b = self.expr(body, sc), self.expr(orelse, sc)
                d = _join(a.dtype, b.dtype)
                return Select(c, convert(a, d), convert(b, d), d, loc)
            case ast.Subscript():
                return self.subscript(node, sc)
            case ast.Call():
                return self.call(node, sc)
            case ast.Attribute(value=ast.Name(id=m), attr=attr) if (
                m in self.math_modules and sc.lookup(m) is None and m not in sc.local_names and attr in _MATH_CONSTANTS
            ):
                self.stable_math(m, node)
                return Const(_MATH_CONSTANTS[attr], DOUBLE, loc)
            case ast.Attribute():
                self.fail(f"attribute '{ast.unparse(node)}' is not supported", node)
            case ast.ListComp() | ast.GeneratorExp():
                self.fail(
                    f"{_describe(node)} is only supported as the returned list ('return [...]', 'out = [...]', "
                    "a row 'out.append([...])') or as the argument of sum / max / min",
                    node,
                )
        self.fail(f"{_describe(node)} is not supported", node)

    def binop(self, op: ast.operator, left: Expr, right_node: ast.expr, sc: _Scope, node: ast.AST) -> Expr:
        """``left op right`` with Python's semantics (the right operand is lowered here:
        ``**`` needs its literal)."""
        loc = self.loc(node)
        text = _OP_TEXT.get(type(op), type(op).__name__)
        if isinstance(op, ast.Pow):
            k = right_node.value if isinstance(right_node, ast.Constant) else None
            if type(k) is not int or not 1 <= k <= 8:
                self.fail(
                    f"'**' is only supported with a literal integer exponent 1..8 (got "
                    f"'{ast.unparse(right_node)}'; use math.sqrt / math.exp for others)",
                    right_node,
                )
            out = left
            for _ in range(k - 1):
                out = Binary("*", out, left, left.dtype, loc)
            return out
        right = self.expr(right_node, sc)
        if isinstance(op, ast.Add | ast.Sub | ast.Mult):
            d = _join(left.dtype, right.dtype)
            sym: BinOpName = "+" if isinstance(op, ast.Add) else "-" if isinstance(op, ast.Sub) else "*"
            return Binary(sym, convert(left, d), convert(right, d), d, loc)
        if isinstance(op, ast.Div):  # true division: always a float
            return Binary("/", convert(left, DOUBLE), convert(right, DOUBLE), DOUBLE, loc)
        if isinstance(op, ast.FloorDiv | ast.Mod):
            if DOUBLE in (left.dtype, right.dtype):
                self.fail(
                    f"'{text}' on floats is not supported (Python's floor division and modulo "
                    "are supported on ints; annotate int parameters, e.g. 'x: int')",
                    node,
                )
            return Binary("//" if isinstance(op, ast.FloorDiv) else "mod", left, right, INT, loc)
        if isinstance(op, ast.MatMult):
            self.fail("operator '@' is not supported", node)
        self.fail(f"bitwise operator '{text}' is not supported", node)

    def index(self, node: ast.expr, sc: _Scope) -> Expr:
        if isinstance(node, ast.Slice):
            self.fail("slices are not supported", node)
        e = self.expr(node, sc)
        if e.dtype.is_float:
            self.fail(
                f"list index '{ast.unparse(node)}' is a float (an int is needed; annotate "
                "int parameters and lists of ints, e.g. 'idx: list[int]')",
                node,
            )
        if isinstance(e, Const) and isinstance(e.value, int) and e.value < 0:
            self.fail(
                f"negative index {e.value} is not supported (Python reads from the end of the list)",
                node,
            )
        return e

    def subscript(self, node: ast.Subscript, sc: _Scope) -> Expr:
        loc = self.loc(node)
        base = node.value
        if (isinstance(base, ast.Subscript) and isinstance(base.value, ast.Subscript)
                and isinstance(base.value.value, ast.Name)):
            b = sc.lookup(base.value.value.id)
            if isinstance(b, _ListParam) and b.rank == 3:
                p = self.index(base.value.slice, sc)
                r = self.index(base.slice, sc)
                c = self.index(node.slice, sc)
                rows, cols = Var(b.sizes[1], INT, loc), Var(b.sizes[2], INT, loc)
                plane_row = Binary("+", Binary("*", p, rows, INT, loc), r, INT, loc)
                idx = Binary("+", Binary("*", plane_row, cols, INT, loc), c, INT, loc)
                return Load(b.name, idx, b.elem, loc, row=(c, cols), plane=(r, rows))
        if isinstance(base, ast.Subscript) and isinstance(base.value, ast.Name):
            b = sc.lookup(base.value.id)
            if isinstance(b, _ListParam) and b.rank == 3:
                self.fail(f"'{ast.unparse(node)}' is a row of the 3-D list '{b.name}': only elements "
                          f"{b.name}[p][r][c] are supported", node)
            if isinstance(b, _ListParam) and b.rank == 2:
                r = self.index(base.slice, sc)
                c = self.index(node.slice, sc)
                cols = Var(b.sizes[1], INT, loc)
                idx = Binary("+", Binary("*", r, cols, INT, loc), c, INT, loc)
                return Load(b.name, idx, b.elem, loc, row=(c, cols))
            if isinstance(b, _ListParam):
                self.fail(f"'{ast.unparse(node)}' subscripts an element of the list of numbers '{b.name}'", node)
            self.subscript(base, sc)  # refuses with the precise message
        if isinstance(base, ast.Name):
            b = sc.lookup(base.id)
            match b:
                case _ListParam(rank=1):
                    return Load(b.name, self.index(node.slice, sc), b.elem, loc)
                case _ListParam(rank=3):
                    self.fail(f"plane '{ast.unparse(node)}' of the 3-D list '{b.name}' used as a value is not supported", node)
                case _ListParam():
                    self.fail(f"row '{ast.unparse(node)}' of the list of lists '{b.name}' used as a value is not supported", node)
                case _Result() | _Row():
                    self.fail(f"reading the list being built ('{ast.unparse(node)}') is not supported", node)
                case None if base.id not in sc.local_names:
                    sc.read(base.id, base)  # unknown name
            self.fail(f"subscript of '{base.id}', which is not a list parameter, is not supported", node)
        self.fail(f"subscript of '{ast.unparse(base)}' is not supported", node)

    def call(self, node: ast.Call, sc: _Scope) -> Expr:
        loc = self.loc(node)
        if node.keywords:
            self.fail("keyword arguments are not supported", node.keywords[0])
        for a in node.args:
            if isinstance(a, ast.Starred):
                self.fail("starred arguments are not supported", a)
        func = node.func
        if isinstance(func, ast.Attribute):
            if (
                isinstance(func.value, ast.Name)
                and func.value.id in self.math_modules
                and sc.lookup(func.value.id) is None
                and func.value.id not in sc.local_names
            ):
                self.stable_math(func.value.id, func)
                return self.math_call(func.attr, node, sc)
            if func.attr == "append":
                self.fail("append used as a value is not supported", node)
            self.fail(f"call to '{ast.unparse(func)}' is not supported", node)
        if not isinstance(func, ast.Name):
            self.fail("call through an expression is not supported", node)
        name = func.id
        if sc.lookup(name) is not None or name in sc.local_names:
            self.fail(f"call to variable '{name}' is not supported", node)
        if name in self.defs:
            self.stable_helper(name, func)
            return self.inline(name, node, sc)
        if name in self.math_names:
            self.stable_math(name, func)
            return self.math_call(self.math_names[name], node, sc)
        args = node.args
        if name in _BUILTINS:
            self.stable_builtin(name, func)
        if name == "len":
            if len(args) != 1:
                self.fail("len() takes one argument", node)
            return self.length(args[0], sc)
        if name in ("abs", "float", "int"):
            if len(args) != 1:
                self.fail(f"{name}() takes one argument here", node)
            x = self.expr(args[0], sc)
            if name == "float":
                return convert(x, DOUBLE)
            if name == "int":
                return x if x.dtype == INT else Cast(x, INT, loc)  # truncates toward zero
            if x.dtype.is_float:
                return Call("fabs", x, DOUBLE, loc)
            zero = Const(0, INT, loc)
            return Select(Compare("<", x, zero, loc), Unary("-", x, INT, loc), x, INT, loc)
        if name in _SEQUENCE_BUILTINS or (name in ("min", "max") and len(args) == 1):
            self.fail(
                f"{name}() of a sequence is only supported in the statements of the lifted function, "
                "where Python evaluates it once (not in a helper, a condition evaluated lazily or a while condition)",
                node,
            )
        if name in ("min", "max"):
            if len(args) != 2:
                self.fail(f"{name}() is only supported with two numbers", node)
            first, second = self.expr(args[0], sc), self.expr(args[1], sc)
            self.exact_comparison(first, second, args[0], args[1])
            d = _join(first.dtype, second.dtype)
            first, second = convert(first, d), convert(second, d)
            # Python returns the first argument unless the second is strictly better
            return Select(Compare("<" if name == "min" else ">", second, first, loc), second, first, d, loc)
        if name == "range":
            self.fail("range() is only supported as the iterable of a for loop", node)
        self.fail(f"call to '{name}' is not supported", node)

    def exact_comparison(self, a: Expr, b: Expr, anode: ast.AST, bnode: ast.AST) -> None:
        """Refuse comparing an int with a float unless one side is a constant of magnitude at
        most 2**53: Python compares an int and a float exactly, while the model — C's usual
        arithmetic conversions — and the generated code convert the int to a float first,
        which rounds beyond 2**53 (``2**53 + 1 > 2.0**53`` is True in Python, False after
        the conversion)."""
        if {a.dtype, b.dtype} != {INT, DOUBLE}:
            return
        if any(isinstance(e, Const) and abs(e.value) <= 2**53 for e in (a, b)):
            return
        inode = anode if a.dtype == INT else bnode
        fnode = bnode if a.dtype == INT else anode
        self.fail(
            f"comparing the int '{ast.unparse(inode)}' with the float '{ast.unparse(fnode)}' is not supported: "  # type: ignore[arg-type]
            "Python compares them exactly, the generated code would round the int to a float (beyond 2**53); "
            f"write float({ast.unparse(inode)}) to compare as floats",  # type: ignore[arg-type]
            inode,
        )

    def math_call(self, attr: str, node: ast.Call, sc: _Scope) -> Expr:
        if attr not in _MATH:
            self.fail(f"math.{attr} is not supported (only exp, sqrt, log, tanh, fabs)", node)
        if len(node.args) != 1:
            self.fail(f"math.{attr} with {len(node.args)} arguments is not supported", node)
        x = convert(self.expr(node.args[0], sc), DOUBLE)
        return Call(_MATH[attr], x, DOUBLE, self.loc(node))

    def length(self, arg: ast.expr, sc: _Scope) -> Expr:
        """``len(a)`` (length, rows of a list of lists, planes of a 3-D list), ``len(m[i])``
        (columns, or rows of a plane: rows are assumed to have one length), ``len(x[p][r])``
        (columns of a 3-D list) and ``len(out)`` of the returned list."""
        loc = self.loc(arg)
        if isinstance(arg, ast.Name):
            match sc.lookup(arg.id):
                case _ListParam(sizes=sizes):
                    return Var(sizes[0], INT, loc)
                case _Result(rank=1, length=length):
                    return Var(length, INT, loc)
                case None if arg.id not in sc.local_names:
                    sc.read(arg.id, arg)
        if isinstance(arg, ast.Subscript) and isinstance(arg.value, ast.Name):
            b = sc.lookup(arg.value.id)
            if isinstance(b, _ListParam) and b.rank >= 2:
                self.index(arg.slice, sc)  # refuses what it cannot read
                return Var(b.sizes[1], INT, loc)
        if (isinstance(arg, ast.Subscript) and isinstance(arg.value, ast.Subscript)
                and isinstance(arg.value.value, ast.Name)):
            b = sc.lookup(arg.value.value.id)
            if isinstance(b, _ListParam) and b.rank == 3:
                self.index(arg.value.slice, sc)
                self.index(arg.slice, sc)
                return Var(b.sizes[2], INT, loc)
        self.fail(f"len({ast.unparse(arg)}) is not supported (len of a list parameter, of a row of one, or of the returned list)", arg)

    # ----------------------------------------------------------- conditions

    def cond(self, node: ast.expr, sc: _Scope) -> Cond:
        loc = self.loc(node)
        match node:
            case ast.Compare(left=left, ops=ops, comparators=comparators):
                lhs = self.expr(left, sc)
                out: Cond | None = None
                for op, rnode in zip(ops, comparators, strict=True):
                    cmp = _CMP.get(type(op))
                    if cmp is None:
                        text = {ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not"}.get(type(op), "?")
                        self.fail(f"comparison '{text}' is not supported", node)
                    rhs = self.expr(rnode, sc)
                    self.exact_comparison(lhs, rhs, left if out is None else node, rnode)
                    d = _join(lhs.dtype, rhs.dtype)
                    part = Compare(cmp, convert(lhs, d), convert(rhs, d), loc)
                    out = part if out is None else Logical("&&", out, part, loc)
                    lhs = rhs
                assert out is not None
                return out
            case ast.BoolOp(op=op, values=values):
                conds = [self.cond(v, sc) for v in values]
                acc = conds[0]
                for c in conds[1:]:
                    acc = Logical("&&" if isinstance(op, ast.And) else "||", acc, c, loc)
                return acc
            case ast.UnaryOp(op=ast.Not(), operand=operand):
                return Not(self.cond(operand, sc), loc)
            case ast.Constant(value=bool() as v):
                self.fail(f"constant condition '{v}' is not supported", node)
        e = self.expr(node, sc)
        return Compare("!=", e, Const(py_cast(0, e.dtype), e.dtype, loc), loc)

    # ----------------------------------------------------------- helper inlining

    def inline(self, name: str, node: ast.Call, sc: _Scope) -> Expr:
        """Inline a call to a function of the module (see the module docstring)."""
        if name in sc.inlining:
            self.fail(f"recursive call to '{name}' is not supported", node)
        fdef = self.defs[name]
        params = self.plain_params(fdef)
        if len(node.args) != len(params):
            self.fail(f"call to '{name}' with {len(node.args)} arguments; it takes {len(params)}", node)
        values: dict[str, Expr] = {}
        for p, arg in zip(params, node.args, strict=True):
            if isinstance(arg, ast.Name) and isinstance(sc.lookup(arg.id), _ListParam | _Result | _Row):
                self.fail(f"passing list '{arg.id}' to '{name}' is not supported (helpers take numbers)", arg)
            value = self.expr(arg, sc)
            if p.annotation is not None:
                t = self.annotation(p.annotation, f"parameter '{p.arg}' of '{name}'")
                if t is None or t.rank != 0:
                    self.fail(f"helper '{name}' has list parameter '{p.arg}'; only numbers are supported", p)
                if t.dtype == DOUBLE:
                    value = convert(value, DOUBLE)
                elif value.dtype == DOUBLE:
                    self.fail(f"float argument for int parameter '{p.arg}' of '{name}'", arg)
            values[p.arg] = value
        inner = _HelperScope(self, name, values, (*sc.inlining, name), _assigned_names(fdef.body))
        body = [s for k, s in enumerate(fdef.body) if not (k == 0 and _is_docstring(s))]
        return self.helper_block(body, inner, fdef)

    def plain_params(self, fdef: ast.FunctionDef) -> list[ast.arg]:
        a = fdef.args
        what = f"function '{fdef.name}'"
        for d in fdef.decorator_list:
            if not _is_lifted_decorator(d):
                self.fail(f"decorated {what} is not supported (only @lifted / @tenspiler.lifted)", d)
        if a.vararg is not None or a.kwarg is not None:
            self.fail(f"{what} with *args / **kwargs is not supported", a.vararg or a.kwarg)
        if a.kwonlyargs:
            self.fail(f"keyword-only parameter '{a.kwonlyargs[0].arg}' is not supported", a.kwonlyargs[0])
        if a.defaults:
            self.fail(f"default parameter values are not supported ({what})", a.defaults[0])
        return [*a.posonlyargs, *a.args]

    def helper_block(self, stmts: list[ast.stmt], hs: _HelperScope, fdef: ast.FunctionDef) -> Expr:
        """The value a helper body returns: assignments update the name → expression map;
        an ``if`` continues into both branches (each followed by the rest of the body) and
        joins them with a select; ``return E`` ends a path."""
        for k, s in enumerate(stmts):
            match s:
                case ast.Pass() | ast.Assert():
                    continue
                case ast.Expr() if _is_docstring(s):
                    continue
                case ast.Assign(targets=[ast.Name(id=target)], value=value):
                    hs.values[target] = self.expr(value, hs)
                case ast.AnnAssign(target=ast.Name(id=target), annotation=ann, value=value) if value is not None:
                    v = self.expr(value, hs)
                    t = self.annotation(ann, f"'{target}'")
                    hs.values[target] = convert(v, DOUBLE) if t is not None and t.rank == 0 and t.dtype == DOUBLE else v
                case ast.AugAssign(target=ast.Name(id=target), op=op, value=value):
                    hs.values[target] = self.binop(op, hs.read(target, s.target), value, hs, s)
                case ast.Return(value=None):
                    self.fail(f"helper '{hs.name}' returns None", s)
                case ast.Return(value=value):
                    assert value is not None
                    return self.expr(value, hs)
                case ast.If(test=test, body=body, orelse=orelse):
                    c = self.cond(test, hs)
                    rest = list(stmts[k + 1 :])
                    a = self.helper_block([*body, *rest], hs.copy(), fdef)
                    b = self.helper_block([*orelse, *rest], hs.copy(), fdef)
                    d = _join(a.dtype, b.dtype)
                    return Select(c, convert(a, d), convert(b, d), d, self.loc(s))
                case ast.Assign(targets=targets) if len(targets) > 1 or not isinstance(targets[0], ast.Name):
                    self.fail(f"assignment '{ast.unparse(s)}' in helper '{hs.name}' is not supported (only to a name)", s)
                case _:
                    self.fail(f"{_describe(s)} in helper function '{hs.name}' is not supported", s)
        self.fail(f"helper function '{hs.name}' may end without returning a value", fdef)


@dataclass(frozen=True, eq=False)
class _Site:
    """A place where the module source may bind a module-level name: ``node`` (for its
    line), ``reason`` (the construct), ``key`` (what is bound when two sites bind the same
    thing: a number literal, an import of one object, a top-level ``def``; ``None``:
    unknown), ``module_scope`` (a statement of the module, not of a function)."""

    node: ast.AST
    reason: str
    key: tuple[Any, ...] | None
    module_scope: bool


def _literal_key(v: int | float) -> tuple[Any, ...]:
    return ("literal", type(v).__name__, repr(v))


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)

_STMT_REASONS: dict[type[ast.AST], str] = {
    ast.Assign: "assignment", ast.AugAssign: "augmented assignment", ast.AnnAssign: "annotated assignment",
    ast.For: "for loop", ast.AsyncFor: "for loop", ast.With: "with ... as", ast.AsyncWith: "with ... as",
    ast.Delete: "del", ast.NamedExpr: "assignment expression ':='", ast.comprehension: "comprehension variable",
    ast.Match: "match capture",
}

def _module_bindings(tree: ast.Module) -> tuple[dict[str, list[_Site]], _Site | None]:
    """Every site of the module source that may bind a module-level name, by name, in
    source order: module-level statements of any kind (assignments, augmented
    assignments, ``for`` / ``with`` targets, ``:=``, ``del``, imports, ``def``, ``class``,
    ``except ... as``, ``match`` captures) and, in every function or class body, the
    bindings of names it declares ``global``; attribute assignments ``obj.NAME = ...`` and
    ``setattr(obj, 'NAME', ...)`` anywhere (``obj`` may be the module). The second result is
    the first construct that may bind *any* global (``globals()``, ``exec``, a star import
    other than from math, ``sys.modules``, ``setattr`` with a computed name ...), or ``None``."""
    out: dict[str, list[_Site]] = {}
    dynamic: list[_Site] = []
    literal_targets: set[ast.AST] = set()

    def add(name: str, node: ast.AST, reason: str, key: tuple[Any, ...] | None, module_scope: bool) -> None:
        out.setdefault(name, []).append(_Site(node, reason, key, module_scope))

    def scope_nodes(body: list[ast.AST]) -> list[tuple[ast.AST, str]]:
        """The nodes of one scope (not of nested functions / classes / lambdas, whose
        names, decorators, defaults and bases belong to it), each with the construct it is
        part of."""
        found: list[tuple[ast.AST, str]] = []
        stack: list[tuple[ast.AST, str]] = [(n, "") for n in reversed(body)]
        while stack:
            node, reason = stack.pop()
            reason = _STMT_REASONS.get(type(node), reason if not isinstance(node, ast.stmt) else type(node).__name__)
            found.append((node, reason))
            if isinstance(node, _SCOPES):
                inner: list[ast.AST] = list(getattr(node, "decorator_list", []))
                if isinstance(node, ast.ClassDef):
                    inner += [*node.bases, *node.keywords]
                else:
                    args = node.args
                    inner += [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
                stack.extend((n, reason) for n in reversed(inner))
                continue
            stack.extend((n, reason) for n in reversed(list(ast.iter_child_nodes(node))))
        return found

    def bind(node: ast.AST, reason: str, module_scope: bool, only: set[str] | None, where: str) -> None:
        """Record the binding ``node`` makes (if it binds a name of ``only``, when given)."""
        names: list[tuple[str, str, tuple[Any, ...] | None]] = []
        match node:
            case ast.Assign(targets=[ast.Name(id=name) as t], value=value) | ast.AnnAssign(
                target=ast.Name(id=name) as t, value=value
            ) if value is not None and _number_literal(value) is not None:
                lit = _number_literal(value)
                assert lit is not None
                literal_targets.add(t)
                names.append((name, reason, _literal_key(lit)))
            case ast.Name(id=name, ctx=ast.Store() | ast.Del()) if (
                node not in literal_targets and reason != "comprehension variable"  # local to it
            ):
                names.append((name, reason, None))
            case ast.Import(names=aliases):
                for a in aliases:
                    bound = a.asname or a.name.split(".")[0]
                    names.append((bound, "import", ("module", a.name if a.asname else bound)))
            case ast.ImportFrom(module=mod, names=aliases, level=level):
                for a in aliases:
                    if a.name == "*":
                        if mod == "math" and level == 0:
                            names.extend(
                                (n, "from math import *", ("from", "math", n)) for n in dir(math) if not n.startswith("_")
                            )
                        elif module_scope:
                            dynamic.append(_Site(node, f"'from {'.' * level}{mod or ''} import *' may bind any name", None, True))
                        continue
                    key = ("from", mod, a.name) if level == 0 else None
                    names.append((a.asname or a.name, "import", key))
            case ast.FunctionDef(name=name) | ast.AsyncFunctionDef(name=name):
                top = module_scope and node in tree.body and isinstance(node, ast.FunctionDef)
                names.append((name, "def", ("def",) if top else None))
            case ast.ClassDef(name=name):
                names.append((name, "class", None))
            case ast.ExceptHandler(name=str() as name):
                names.append((name, "except ... as", None))
            case ast.MatchAs(name=str() as name) | ast.MatchStar(name=str() as name):
                names.append((name, "match capture", None))
            case ast.MatchMapping(rest=str() as name):
                names.append((name, "match capture", None))
        for name, why, key in names:
            if only is None or name in only:
                add(name, node, why + where, key if only is None else None, module_scope)

    def analyse(body: list[ast.AST], module_scope: bool, where: str) -> None:
        nodes = scope_nodes(body)
        declared = {n for node, _ in nodes if isinstance(node, ast.Global) for n in node.names}
        if module_scope or declared:
            detail = "" if module_scope else where
            for node, reason in nodes:
                bind(node, reason, module_scope, None if module_scope else declared, detail)
        for node, _ in nodes:
            match node:
                case ast.FunctionDef() | ast.AsyncFunctionDef():
                    analyse(list(node.body), False, f", under 'global' in '{node.name}'")
                case ast.ClassDef():
                    analyse(list(node.body), False, f", under 'global' in class '{node.name}'")
                case ast.Lambda():
                    analyse([node.body], False, ", in a lambda")
                case ast.Attribute(attr=attr, ctx=ast.Store() | ast.Del()) if not _is_name(node.value, "self"):
                    add(attr, node, f"attribute assignment '{ast.unparse(node)}'", None, False)
                case ast.Attribute(attr="modules", value=ast.Name(id="sys")) | ast.Attribute(attr="__dict__"):
                    dynamic.append(_Site(node, f"'{ast.unparse(node)}' may bind any global", None, False))
                case ast.Call(func=ast.Name(id="setattr" | "delattr" as f), args=[_, ast.Constant(value=str() as attr), *_]):
                    add(attr, node, f"{f}()", None, False)
                case ast.Call(func=ast.Name(id="setattr" | "delattr" as f)):
                    dynamic.append(_Site(node, f"{f}() with a computed name may bind any global", None, False))
                case ast.Call(func=ast.Name(id="exec" | "eval" as f), args=args, keywords=kws) if len(args) < 2 and not any(
                    k.arg == "globals" for k in kws
                ):
                    dynamic.append(_Site(node, f"{f}() may bind any global", None, False))
                case ast.Call(func=ast.Name(id="globals" | "vars" | "locals" | "__import__" as f)) if (
                    f != "locals" or module_scope
                ):
                    dynamic.append(_Site(node, f"{f}() may bind any global", None, False))
                case ast.Call(func=ast.Attribute(attr="import_module")):
                    dynamic.append(_Site(node, "importlib.import_module() may bind any global", None, False))

    analyse(list(tree.body), True, "")
    dynamic.sort(key=lambda x: (getattr(x.node, "lineno", 0), getattr(x.node, "col_offset", 0)))
    return out, (dynamic[0] if dynamic else None)


def _number_literal(node: ast.expr) -> int | float | None:
    match node:
        case ast.Constant(value=bool()):
            return None
        case ast.Constant(value=int() | float() as v):
            return v
        case ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=int() | float() as v)) if not isinstance(v, bool):
            return -v
    return None


def _type_name(node: ast.expr) -> str | None:
    """``int`` for ``int``, ``List`` for ``typing.List`` ..."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


# ---------------------------------------------------------------- scopes


class _Scope:
    """Name resolution for expressions: the kernel, or a helper being inlined."""

    mod: _Module
    inlining: tuple[str, ...]
    local_names: set[str]

    def lookup(self, name: str) -> _Binding | None:
        raise NotImplementedError

    def read(self, name: str, node: ast.AST) -> Expr:
        raise NotImplementedError

    def global_value(self, name: str, node: ast.AST) -> Expr:
        """A module constant (a name the function does not bind)."""
        mod = self.mod
        if name in mod.constants:
            v = mod.constant(name, node)
            return Const(v, INT if isinstance(v, int) else DOUBLE, mod.loc(node))
        if name in mod.defs:
            mod.fail(f"function '{name}' used as a value is not supported", node)
        if mod.math_names.get(name) in _MATH_CONSTANTS:  # from math import pi
            mod.stable_math(name, node)
            return Const(_MATH_CONSTANTS[mod.math_names[name]], DOUBLE, mod.loc(node))
        if name in mod.math_modules or name in mod.math_names:
            mod.fail(f"'{name}' used as a value is not supported", node)
        if name in mod.globals:
            mod.fail(
                f"module variable '{name}' is not a constant (only a name assigned one number literal, once)",
                node,
            )
        mod.fail(f"unknown name '{name}' (only parameters, locals and number constants of the module)", node)


class _HelperScope(_Scope):
    def __init__(
        self, mod: _Module, name: str, values: dict[str, Expr], inlining: tuple[str, ...], local_names: set[str]
    ) -> None:
        self.mod = mod
        self.name = name
        self.values = values
        self.inlining = inlining
        self.local_names = local_names | set(values)

    def copy(self) -> _HelperScope:
        return _HelperScope(self.mod, self.name, dict(self.values), self.inlining, self.local_names)

    def lookup(self, name: str) -> _Binding | None:
        return None

    def read(self, name: str, node: ast.AST) -> Expr:
        if name in self.values:
            return self.values[name]
        if name in self.local_names:
            self.mod.fail(f"'{name}' may be used before it is assigned", node)
        return self.global_value(name, node)


# ---------------------------------------------------------------- idioms (desugaring)

#: The builtins reducing a sequence to one number (with one iterable argument).
_REDUCTIONS = frozenset({"sum", "max", "min"})
_SEQUENCE_BUILTINS = frozenset({"sum", "zip", "enumerate"})
_Comprehension: TypeAlias = ast.ListComp | ast.GeneratorExp
_AnyComprehension = (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)


def _at(node: _N, like: ast.AST) -> _N:
    """``node`` located at ``like`` (and every node below it without a location)."""
    ast.copy_location(node, like)
    return ast.fix_missing_locations(node)


def _name(name: str, like: ast.AST, store: bool = False) -> ast.Name:
    return _at(ast.Name(id=name, ctx=ast.Store() if store else ast.Load()), like)


def _call(func: str, args: list[ast.expr], like: ast.AST) -> ast.Call:
    return _at(ast.Call(func=ast.Name(id=func, ctx=ast.Load()), args=args, keywords=[]), like)


def _assign(name: str, value: ast.expr, like: ast.AST) -> ast.Assign:
    return _at(ast.Assign(targets=[_name(name, like, store=True)], value=value), like)


def _for(var: str, start: ast.expr | None, stop: ast.expr, body: list[ast.stmt], like: ast.AST) -> ast.For:
    bounds = [stop] if start is None else [start, stop]
    return _at(ast.For(target=_name(var, like, store=True), iter=_call("range", bounds, like), body=body, orelse=[]), like)


def _plus_one(e: ast.expr) -> ast.expr:
    if isinstance(e, ast.Constant) and type(e.value) is int:
        return _at(ast.Constant(e.value + 1), e)
    return _at(ast.BinOp(left=copy.deepcopy(e), op=ast.Add(), right=ast.Constant(1)), e)


def _substitute(e: ast.expr, values: dict[str, ast.expr]) -> ast.expr:
    """A copy of ``e`` with each name of ``values`` replaced by (a copy of) its expression
    (comprehension variables are distinct names by then: :meth:`_Desugar.rename`)."""

    class Sub(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.expr:
            if isinstance(node.ctx, ast.Load) and node.id in values:
                return copy.deepcopy(values[node.id])
            return node

    out = Sub().visit(copy.deepcopy(e))
    assert isinstance(out, ast.expr)
    return out


def _names_in(node: ast.AST) -> list[ast.Name]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Name)]


@dataclass(frozen=True)
class _Walk:
    """How a ``for`` target walks an iterable by an index ``k`` in ``range(stop)``:
    ``elements(k)`` are the assignments of the target's names (``counter``: the name
    ``enumerate`` binds to ``k`` itself, if any)."""

    stop: ast.expr
    elements: Callable[[ast.expr], list[tuple[str, ast.expr]]]
    counter: str | None = None


class _Desugar:
    """The idioms of the subset rewritten to the explicit statements the lowering reads
    (AST to AST, before lowering), so that they give exactly the loop IR of the explicit
    loops:

    * ``return [E for x in X]`` → ``out = []; for x in X: out.append(E); return out``;
      ``v = [...]`` (the returned list, or a row of it) and ``out.append([...])`` likewise;
      several ``for`` clauses nest; an ``if`` clause is refused (the length would depend
      on the data).
    * ``sum(E for ...)``, ``sum(xs)``, ``sum(it, start)`` → a fresh accumulator ``s = 0``
      (``start``) and the loops of the generator doing ``s = s + E`` (Python's ``sum``
      adds left to right from the int ``0``; ``if`` clauses become ``if`` statements)
      before the statement, which reads ``s``.
    * ``max(E for v in range(a, b))`` → ``m = E[v := a]; for v in range(a + 1, b): m =
      max(m, E)`` (Python keeps the first maximum, as two-argument ``max``); over a list,
      ``zip`` or ``enumerate`` the index walks ``range(1, stop)``. The empty sequence
      (``ValueError`` in Python) is excluded by the loop's trip count ``a + 1 <= b``, a
      precondition of every proof; ``min`` likewise.
    * ``for x, y in zip(a, b)`` → ``for k in range(min(len(a), len(b))): x = a[k]; y =
      b[k]`` (zip stops at the shortest list); ``for i, x in enumerate(a)`` → ``for i in
      range(len(a)): x = a[i]``; ``enumerate(zip(...))`` too.

    A comprehension's variables are local to it: one that is used elsewhere in the
    function is renamed first. Loops are only placed where Python evaluates the value
    once and unconditionally: not under ``if``, in a ``while`` condition or a lazily
    evaluated operand (``and`` / ``or``, a conditional expression's branches, later links
    of a comparison chain) -- those are refused."""

    def __init__(self, k: _Kernel, params: set[str]) -> None:
        self.k = k
        self.mod = k.mod
        self.params = params
        #: names the function binds (a call of such a name is not the builtin)
        self.shadowed: set[str] = set()
        self.guards = 0

    def fail(self, message: str, node: ast.AST | None) -> NoReturn:
        self.mod.fail(message, node)

    def function_body(self, body: list[ast.stmt]) -> list[ast.stmt]:
        body = copy.deepcopy(body)
        self.shadowed = _assigned_names(body) | self.params
        self.rename(body)
        return self.block(body)

    # ----------------------------------------------------------- comprehension scopes

    def rename(self, body: list[ast.stmt]) -> None:
        """Give each comprehension variable used elsewhere in the function a fresh name
        (in the comprehension's own scope: its element, conditions, targets and the
        iterables after the first, which Python evaluates inside it)."""
        counts: dict[str, int] = {}
        for n in (n for s in body for n in _names_in(s)):
            counts[n.id] = counts.get(n.id, 0) + 1
        for node in (n for s in body for n in ast.walk(s)):
            if not isinstance(node, _AnyComprehension):
                continue
            gens = node.generators
            scope: list[ast.AST] = [g.target for g in gens]
            scope += [c for g in gens for c in g.ifs]
            scope += [g.iter for g in gens[1:]]
            scope += [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            bound: list[str] = []
            for k, g in enumerate(gens):
                if g.is_async:
                    self.fail("async comprehension is not supported", g.iter)
                for t in _names_in(g.target):
                    if t.id in bound:
                        self.fail(f"comprehension variable '{t.id}' is bound twice", t)
                    # the first iterable is evaluated outside (its names are the enclosing
                    # scope's); a later one inside, before its own variables are bound
                    if k > 0 and any(n.id == t.id for n in _names_in(g.iter)):
                        self.fail(
                            f"'{t.id}' is read in the iterable of the comprehension clause that binds it "
                            "(Python raises UnboundLocalError)",
                            g.iter,
                        )
                    bound.append(t.id)
            for v in bound:
                mine = [n for part in scope for n in _names_in(part) if n.id == v]
                for inner in (n for part in scope for n in ast.walk(part)):
                    if isinstance(inner, _AnyComprehension) and any(
                        t.id == v for g in inner.generators for t in _names_in(g.target)
                    ):
                        self.fail(f"comprehension variable '{v}' shadows the variable of an enclosing comprehension", inner)
                if counts.get(v, 0) > len(mine) or v in self.params:
                    new = self.k.fresh(v)
                    for n in mine:
                        n.id = new
                    counts[v] -= len(mine)
                    counts[new] = len(mine)

    # ----------------------------------------------------------- statements

    def block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for s in stmts:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s: ast.stmt) -> list[ast.stmt]:
        match s:
            case ast.Return(value=ast.ListComp() as comp):
                out = self.k.fresh("out")
                return [
                    _assign(out, _at(ast.List(elts=[], ctx=ast.Load()), comp), comp),
                    *self.fill(out, comp),
                    _at(ast.Return(value=_name(out, comp)), s),
                ]
            case ast.Assign(targets=[ast.Name(id=name)], value=ast.ListComp() as comp):
                s.value = _at(ast.List(elts=[], ctx=ast.Load()), comp)
                return [s, *self.fill(name, comp)]
            case ast.AnnAssign(target=ast.Name(id=name), value=ast.ListComp() as comp):
                s.value = _at(ast.List(elts=[], ctx=ast.Load()), comp)
                return [s, *self.fill(name, comp)]
            case ast.Expr(
                value=ast.Call(func=ast.Attribute(value=ast.Name(), attr="append") as func, args=[ast.ListComp() as comp])
            ):
                row = self.k.fresh("row")
                s.value.args = [_name(row, comp)]  # type: ignore[attr-defined]
                assert isinstance(func, ast.Attribute)
                return [_assign(row, _at(ast.List(elts=[], ctx=ast.Load()), comp), comp), *self.fill(row, comp), s]
            case ast.Assign() | ast.AnnAssign() | ast.AugAssign() | ast.Return() | ast.Expr() if s.value is not None:
                pre, s.value = self.hoist(s.value)
                return [*pre, s]
            case ast.If():
                pre, s.test = self.hoist(s.test)
                self.guards += 1
                try:
                    s.body, s.orelse = self.block(s.body), self.block(s.orelse)
                finally:
                    self.guards -= 1
                return [*pre, s]
            case ast.While():
                self.lazy(s.test, "the condition of a while loop (evaluated on every iteration)")
                s.body = self.block(s.body)
                return [s]
            case ast.For():
                return self.for_stmt(s)
        return [s]

    def for_stmt(self, s: ast.For) -> list[ast.stmt]:
        pre, s.iter = self.hoist(s.iter)
        walk = self.walk(s.target, s.iter, sequence_only=False)
        if walk is None:  # range(...) or a list parameter: read by the lowering
            s.body = self.block(s.body)
            return [*pre, s]
        k = walk.counter or self.k.fresh(f"{_names_in(s.target)[0].id}__k")
        head = [_assign(v, e, s.target) for v, e in walk.elements(_name(k, s.target))]
        loop = _for(k, None, walk.stop, self.block([*head, *s.body]), s)
        loop.orelse = s.orelse
        return [*pre, loop]

    # ----------------------------------------------------------- zip / enumerate

    def builtin(self, node: ast.AST, names: frozenset[str] | set[str]) -> str | None:
        """The name when ``node`` is a call of one of the builtins ``names`` (not a
        function, variable or import of the module with that name)."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            return None
        name = node.func.id
        if name not in names or name in self.shadowed or name in self.mod.defs or name in self.mod.math_names:
            return None
        self.mod.stable_builtin(name, node.func)
        keywords = node.keywords
        if name == "zip":
            for kw in keywords:
                if kw.arg == "strict" and not (isinstance(kw.value, ast.Constant) and kw.value.value is False):
                    self.fail(
                        "zip(..., strict=...) is only supported as strict=False (with strict=True Python raises "
                        "when the lengths differ)",
                        kw,
                    )
            keywords = [kw for kw in keywords if kw.arg != "strict"]  # strict=False: the default
        if keywords:
            kw = keywords[0]
            self.fail(f"keyword argument{' ' + kw.arg if kw.arg else 's'} of {name}() is not supported", kw)
        for a in node.args:
            if isinstance(a, ast.Starred):
                self.fail("starred arguments are not supported", a)
        return name

    def require_builtins(self, names: tuple[str, ...], what: str, node: ast.AST) -> None:
        """Refuse ``what`` when a builtin its loop is written with (``names``) would not
        mean the builtin in this function."""
        for name in names:
            if name in self.shadowed or name in self.mod.defs or name in self.mod.math_names:
                self.fail(
                    f"{what} is read as a loop written with the builtin '{name}', which this module or "
                    f"function rebinds",
                    node,
                )
            self.mod.stable_builtin(name, node)

    def walk(self, target: ast.expr, it: ast.expr, sequence_only: bool) -> _Walk | None:
        """How ``for target in it`` walks ``it`` by index; ``None`` for ``range(...)`` and a
        list (a name) with a name target, which the lowering reads directly -- unless
        ``sequence_only`` (a list name is then walked too; ``range`` still ``None``)."""
        what = self.builtin(it, {"zip", "enumerate"})
        if what == "enumerate":
            assert isinstance(it, ast.Call)
            if len(it.args) != 1:
                self.fail("enumerate() with a start is not supported (only enumerate(xs))", it)
            if not (isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name)):
                self.fail(f"enumerate() is only supported unpacked into 'index, element' (got '{ast.unparse(target)}')", target)
            inner = self.walk(target.elts[1], it.args[0], sequence_only=True)
            if inner is None:
                self.fail(f"enumerate() over '{ast.unparse(it.args[0])}' is not supported (only a list parameter or zip of them)", it.args[0])
            index = target.elts[0].id
            self.require_builtins(("len", "range"), "enumerate()", it)
            return _Walk(inner.stop, inner.elements, counter=index)
        if what == "zip":
            assert isinstance(it, ast.Call)
            lists = it.args
            if not lists:
                self.fail("zip() of no lists is not supported", it)
            for a in lists:
                if not isinstance(a, ast.Name):
                    self.fail(f"zip() over '{ast.unparse(a)}' is not supported (only list parameters)", a)
            if not (isinstance(target, ast.Tuple) and len(target.elts) == len(lists)):
                self.fail(f"zip() of {len(lists)} lists must be unpacked into {len(lists)} names (got '{ast.unparse(target)}')", target)
            names = []
            for t in target.elts:
                if not isinstance(t, ast.Name):
                    self.fail(f"target '{ast.unparse(t)}' is not supported (only a name)", t)
                names.append(t.id)
            # zip stops at the shortest list: min(len(a), len(b), ...)
            self.require_builtins(("len", "min", "range"), "zip()", it)
            stop: ast.expr = _call("len", [copy.deepcopy(lists[0])], it)
            for a in lists[1:]:
                stop = _call("min", [stop, _call("len", [copy.deepcopy(a)], it)], it)
            lists_ = [copy.deepcopy(a) for a in lists]
            return _Walk(stop, lambda k: [
                (n, _at(ast.Subscript(value=copy.deepcopy(a), slice=copy.deepcopy(k), ctx=ast.Load()), a))
                for n, a in zip(names, lists_, strict=True)
            ])
        if isinstance(target, ast.Name) and isinstance(it, ast.Name):
            if not sequence_only:
                return None
            self.require_builtins(("len", "range"), f"iterating over '{it.id}' by index", it)
            name, lst = target.id, copy.deepcopy(it)
            return _Walk(
                _call("len", [copy.deepcopy(lst)], it),
                lambda k: [(name, _at(ast.Subscript(value=copy.deepcopy(lst), slice=copy.deepcopy(k), ctx=ast.Load()), lst))],
            )
        if isinstance(target, ast.Tuple | ast.List):
            self.fail(f"unpacking '{ast.unparse(target)}' is only supported from zip() or enumerate()", target)
        if sequence_only and self.builtin(it, {"range"}) is None:
            self.fail(f"iterating over '{ast.unparse(it)}' is not supported here (only a list parameter, range, zip or enumerate)", it)
        return None

    # ----------------------------------------------------------- comprehensions

    def loops(self, comp: _Comprehension, body: list[ast.stmt], what: str, where: ast.AST) -> list[ast.stmt]:
        """The ``for`` statements (and ``if`` clauses) of ``comp`` around ``body``,
        desugared (``what`` at ``where``: the construct, for a refusal)."""
        if self.guards:
            self.fail(f"{what} inside if is not supported (it is a loop; compute it before the if)", where)
        inner = body
        for g in reversed(comp.generators):
            for c in reversed(g.ifs):
                inner = [_at(ast.If(test=c, body=inner, orelse=[]), c)]
            inner = [_at(ast.For(target=g.target, iter=g.iter, body=inner, orelse=[]), comp)]
        return self.block(inner)

    def fill(self, name: str, comp: ast.ListComp) -> list[ast.stmt]:
        """``name.append(E)`` for each element of the list comprehension ``comp``."""
        for g in comp.generators:
            if g.ifs:
                self.fail(
                    "a list comprehension with an 'if' clause is not supported (the length of the list "
                    "would depend on the data: not a tensor of known length)",
                    g.ifs[0],
                )
        func = _at(ast.Attribute(value=_name(name, comp), attr="append", ctx=ast.Load()), comp)
        sink = _at(ast.Expr(value=_at(ast.Call(func=func, args=[comp.elt], keywords=[]), comp.elt)), comp.elt)
        return self.loops(comp, [sink], "a list comprehension", comp)

    # ----------------------------------------------------------- sum / max / min

    def hoist(self, e: ast.expr) -> tuple[list[ast.stmt], ast.expr]:
        """``e`` with each ``sum`` / ``max`` / ``min`` of a sequence it evaluates eagerly
        replaced by a fresh accumulator, and the statements computing them."""
        pre: list[ast.stmt] = []
        outer = self

        class Hoist(ast.NodeTransformer):
            def visit_Call(self, node: ast.Call) -> ast.expr:
                name = outer.builtin(node, _REDUCTIONS)
                if name is not None and (name == "sum" or len(node.args) == 1):
                    stmts, acc = outer.reduction(name, node)
                    pre.extend(stmts)
                    return acc
                self.generic_visit(node)
                return node

            def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
                node.test = self.visit(node.test)
                outer.lazy(node.body, "a branch of a conditional expression")
                outer.lazy(node.orelse, "a branch of a conditional expression")
                return node

            def visit_BoolOp(self, node: ast.BoolOp) -> ast.expr:
                node.values[0] = self.visit(node.values[0])
                for v in node.values[1:]:
                    outer.lazy(v, f"an operand of '{'and' if isinstance(node.op, ast.And) else 'or'}' after the first")
                return node

            def visit_Compare(self, node: ast.Compare) -> ast.expr:
                node.left = self.visit(node.left)
                node.comparators[0] = self.visit(node.comparators[0])
                for v in node.comparators[1:]:
                    outer.lazy(v, "a later link of a comparison chain")
                return node

            def visit_ListComp(self, node: ast.ListComp) -> ast.expr:
                return node  # refused by the lowering (not a number)

            def visit_GeneratorExp(self, node: ast.GeneratorExp) -> ast.expr:
                return node

            def visit_Lambda(self, node: ast.Lambda) -> ast.expr:
                return node

        out = Hoist().visit(e)
        assert isinstance(out, ast.expr)
        return pre, out

    def lazy(self, e: ast.expr, where: str) -> None:
        """Refuse a sequence reduction or comprehension in ``e`` (evaluated conditionally
        or repeatedly by Python)."""
        for n in ast.walk(e):
            if isinstance(n, ast.ListComp | ast.GeneratorExp):
                self.fail(f"{_describe(n)} in {where} is not supported (only where Python evaluates it once)", n)
            name = self.builtin(n, _REDUCTIONS)
            if name is not None and isinstance(n, ast.Call) and (name == "sum" or len(n.args) == 1):
                self.fail(f"{name}() of a sequence in {where} is not supported (only where Python evaluates it once)", n)

    def as_comprehension(self, name: str, node: ast.Call) -> ast.GeneratorExp | ast.ListComp:
        """The argument of ``name(...)`` as a comprehension (``sum(xs)`` is ``sum(v for v in xs)``)."""
        arg = node.args[0]
        if isinstance(arg, ast.GeneratorExp | ast.ListComp):
            return arg
        if isinstance(arg, ast.SetComp | ast.DictComp):
            self.fail(f"{name}() of a {_describe(arg)} is not supported", arg)
        v = self.k.fresh("__v")
        gen = ast.comprehension(target=_name(v, arg, store=True), iter=arg, ifs=[], is_async=0)
        return _at(ast.GeneratorExp(elt=_name(v, arg), generators=[gen]), arg)

    def reduction(self, name: str, node: ast.Call) -> tuple[list[ast.stmt], ast.Name]:
        if not node.args or len(node.args) > (2 if name == "sum" else 1):
            self.fail(f"{name}() with {len(node.args)} arguments is not supported here", node)
        comp = self.as_comprehension(name, node)
        acc = self.k.fresh(f"__{name}")
        if name == "sum":
            start = node.args[1] if len(node.args) == 2 else _at(ast.Constant(0), node)
            add = _at(ast.BinOp(left=_name(acc, comp.elt), op=ast.Add(), right=comp.elt), comp.elt)
            body = self.loops(comp, [_assign(acc, add, comp.elt)], f"{name}()", node)
            pre, start = self.hoist(start)
            return [*pre, _assign(acc, start, node), *body], _name(acc, node)
        if self.guards:
            self.fail(f"{name}() of a sequence inside if is not supported (it is a loop; compute it before the if)", node)
        if len(comp.generators) != 1:
            self.fail(f"{name}() over a comprehension with several 'for' clauses is not supported", comp)
        g = comp.generators[0]
        if g.ifs:
            self.fail(
                f"{name}() over a filtered sequence ('if' clause) is not supported (it may be empty, where Python raises)",
                g.ifs[0],
            )

        def step(e: ast.expr) -> ast.stmt:  # m = max(m, E): Python keeps the first extremum
            return _assign(acc, _call(name, [_name(acc, e), e], e), e)

        if self.builtin(g.iter, {"range"}) is not None and isinstance(g.target, ast.Name):
            args = g.iter.args  # type: ignore[attr-defined]
            if not 1 <= len(args) <= 3 or (len(args) == 3 and not _is_int_literal(args[2], 1)):
                self.fail(f"{name}() over '{ast.unparse(g.iter)}' is not supported (only range with step 1)", g.iter)
            first = args[0] if len(args) >= 2 else _at(ast.Constant(0), g.iter)
            stop = args[1] if len(args) >= 2 else args[0]
            v = g.target.id
            pre, first = self.hoist(first)
            pre2, stop = self.hoist(stop)
            init = _assign(acc, _substitute(comp.elt, {v: first}), comp.elt)
            loop = _for(v, _plus_one(first), stop, [step(comp.elt)], comp)
            return [*pre, *pre2, *self.block([init, loop])], _name(acc, node)
        pre, g.iter = self.hoist(g.iter)
        walk = self.walk(g.target, g.iter, sequence_only=True)
        assert walk is not None
        k = walk.counter or self.k.fresh("__k")

        def element(at: ast.expr) -> ast.expr:
            values = dict(walk.elements(at))
            if walk.counter is not None:
                values[walk.counter] = at
            return _substitute(comp.elt, values)

        zero = _at(ast.Constant(0), g.iter)
        init = _assign(acc, element(zero), comp.elt)
        loop = _for(k, _at(ast.Constant(1), g.iter), walk.stop, [step(element(_name(k, g.iter)))], comp)
        return [*pre, *self.block([init, loop])], _name(acc, node)


# ---------------------------------------------------------------- the kernel


class _Kernel(_Scope, IfConversion):
    """Lowering of the chosen function's body to loop-IR statements (one pass of the
    type inference, see :meth:`_Module.lower`)."""

    def __init__(self, mod: _Module, fdef: ast.FunctionDef, types: dict[str, DType]) -> None:
        self.mod = mod
        self.fdef = fdef
        self.name = fdef.name
        self.inlining = (fdef.name,)
        self.types = types
        #: Names whose type this pass found to be float although it assumed int.
        self.promoted: dict[str, DType] = {}
        self.locals: dict[str, DType] = {}
        self.env: dict[str, _Binding] = {}
        self.params: set[str] = set()
        self.assigned: set[str] = set()
        self.written: set[str] = set()
        self.guard: Cond | None = None
        self.if_count = 0
        self.loops: list[tuple[str, Expr, Expr]] = []
        self.loop_vars: list[str] = []
        self.blocks: list[list[ast.stmt]] = []
        self.taken: set[str] = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name)}
        arg_names = {a.arg for a in ast.walk(fdef.args) if isinstance(a, ast.arg)}
        self.taken |= arg_names
        body = [s for k, s in enumerate(fdef.body) if not (k == 0 and _is_docstring(s))]
        # comprehensions, sum / max / min of sequences, zip / enumerate: explicit loops
        self.body_stmts = _Desugar(self, arg_names).function_body(body)
        self.local_names = _assigned_names(self.body_stmts)
        self.result: _Result | None = None
        self.result_rank = 0
        self.result_elem: DType | None = types.get(_RESULT_KEY)
        self.element_pushes: list[tuple[tuple[str, Expr, Expr], ...]] = []
        self.row_pushes: list[tuple[tuple[str, Expr, Expr], ...]] = []
        self.push_loc: SourceLoc | None = None

    def fail(self, message: str, node: ast.AST | None) -> NoReturn:
        self.mod.fail(message, node)

    # ----------------------------------------------------------- scope

    def lookup(self, name: str) -> _Binding | None:
        return self.env.get(name)

    def read(self, name: str, node: ast.AST) -> Expr:
        loc = self.mod.loc(node)
        match self.env.get(name):
            case _Scalar(dtype=dtype):
                if name not in self.assigned:
                    self.fail(f"'{name}' may be used before it is assigned", node)
                return Var(name, dtype, loc)
            case _ListParam() | _Result() | _Row():
                self.fail(f"list '{name}' used as a number is not supported", node)
            case _DeadLoopVar():
                self.fail(
                    f"'{name}' is read after its for loop (Python leaves it at its last value; not supported)",
                    node,
                )
        if name in self.local_names:
            self.fail(f"'{name}' may be used before it is assigned", node)
        return self.global_value(name, node)

    # ----------------------------------------------------------- the function

    def lower(self) -> Function:
        mod, fdef = self.mod, self.fdef
        params: list[Param] = []
        signature: list[VectorParam | str] = []
        uses = _Uses.of(self.body_stmts)
        for a in mod.plain_params(fdef):
            name = a.arg
            if name in self.params:
                self.fail(f"duplicate parameter '{name}'", a)
            t = mod.annotation(a.annotation, f"parameter '{name}'") if a.annotation is not None else None
            if t is None:
                rank = uses.lists.get(name, 0)
                if a.annotation is not None and rank == 0:
                    rank = 1  # a bare 'list' annotation
                if rank:
                    t = _ParamType(rank, DOUBLE)
                else:
                    t = _ParamType(0, INT if name in uses.int_context else DOUBLE)
            loc = mod.loc(a)
            self.params.add(name)
            self.assigned.add(name)
            if t.rank == 0:
                params.append(Param(name, ScalarType(t.dtype), loc))
                self.env[name] = _Scalar(t.dtype)
                signature.append(name)
                continue
            words = {1: ("size",), 2: ("rows", "cols"), 3: ("planes", "rows", "cols")}[t.rank]
            sizes = tuple(self.fresh(f"{name}__{w}") for w in words)
            params.append(Param(name, PointerType(t.dtype), loc))
            params.extend(Param(n, ScalarType(INT), loc) for n in sizes)
            self.env[name] = _ListParam(name, t.rank, t.dtype, sizes)
            signature.append(VectorParam(name, t.rank, t.dtype, sizes, "float" if t.dtype.is_float else "int"))
        stmts = self.body_stmts
        if not stmts or not isinstance(stmts[-1], ast.Return):
            where = stmts[-1] if stmts else fdef
            self.fail(f"function '{self.name}' must end with 'return E' (a number or the list it builds)", where)
        self.result_rank = self.result_shape_rank(stmts)
        body = self.block(stmts[:-1])
        body.append(self.ret(stmts[-1]))
        result = None
        if self.result is not None:
            r = self.result
            elem = self.result_elem or INT
            params.append(Param(r.array, PointerType(elem), mod.loc(fdef)))
            shape = self.result_shape(tuple(body), tuple(params))
            result = VectorResult(r.array, r.rank, elem, shape, "float" if elem.is_float else "int")
        ret = body[-1]
        assert isinstance(ret, Return)
        return Function(
            name=self.name,
            params=tuple(params),
            return_dtype=None if ret.value is None else ret.value.dtype,
            locals=tuple(self.locals.items()),
            body=tuple(body),
            source=mod.text,
            loc=mod.loc(fdef),
            cxx=CxxInterface(tuple(signature), result),
            python=PythonInterface(mod.filename),
        )

    def result_shape_rank(self, stmts: list[ast.stmt]) -> int:
        """Rank of the returned list (0: a number is returned): 2 when a list created
        with ``x = []`` is appended to it."""
        last = stmts[-1]
        assert isinstance(last, ast.Return)
        if not isinstance(last.value, ast.Name):
            return 0
        name = last.value.id
        empty = {
            t.id
            for node in (n for s in stmts for n in ast.walk(s))
            for t in (
                node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
            )
            if isinstance(t, ast.Name) and isinstance(getattr(node, "value", None), ast.List)
        }
        if name not in empty:
            return 0
        for node in (n for s in stmts for n in ast.walk(s)):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "append"
                and _is_name(node.func.value, name)
                and len(node.args) == 1
                and isinstance(node.args[0], ast.Name)
                and node.args[0].id in empty
            ):
                return 2
        return 1

    def ret(self, s: ast.Return) -> Return:
        loc = self.mod.loc(s)
        if s.value is None:
            self.fail(f"function '{self.name}' must return a value (a number or the list it builds)", s)
        if isinstance(s.value, ast.Name):
            match self.env.get(s.value.id):
                case _Result():
                    return Return(None, loc)
                case _ListParam() | _Row():
                    self.fail(f"returning list '{s.value.id}' is not supported (only the list the function builds with append)", s)
        return Return(self.expr(s.value), loc)

    def expr(self, node: ast.expr) -> Expr:
        return self.mod.expr(node, self)

    def cond(self, node: ast.expr) -> Cond:
        return self.mod.cond(node, self)

    # ----------------------------------------------------------- statements

    def block(self, stmts: list[ast.stmt]) -> list[Stmt]:
        self.blocks.append(stmts)
        out: list[Stmt] = []
        try:
            for s in stmts:
                out.extend(self.stmt(s, out))
        finally:
            self.blocks.pop()
        return out

    def stmt(self, s: ast.stmt, emitted: list[Stmt]) -> list[Stmt]:
        match s:
            case ast.Pass() | ast.Assert():
                return []
            case ast.Expr() if _is_docstring(s):
                return []
            case ast.Expr(value=ast.Call(func=ast.Attribute(attr="append"))):
                return self.append(s)
            case ast.Expr(value=ast.Call() as call):
                self.fail(f"call '{ast.unparse(call)}' as a statement is not supported", s)
            case ast.Expr():
                self.fail(f"expression statement '{ast.unparse(s)}' has no effect", s)
            case ast.If():
                return self.if_stmt(s)
            case ast.For() | ast.While() | ast.Return() | ast.Break() | ast.Continue() if self.guard is not None:
                self.fail(f"{_describe(s)} inside if is not supported", s)
            case ast.For():
                return self.for_loop(s)
            case ast.While():
                return [self.while_loop(s, emitted)]
            case ast.Assign() | ast.AnnAssign() | ast.AugAssign():
                defined = self.assigned | self.written
                return self.guarded(self.assignment(s), defined, self.written)
            case ast.Return():
                self.fail("return before the end of the function is not supported", s)
        self.fail(f"{_describe(s)} is not supported", s)

    def assignment(self, s: ast.Assign | ast.AnnAssign | ast.AugAssign) -> list[Stmt]:
        match s:
            case ast.Assign(targets=targets) if len(targets) != 1:
                self.fail("chained assignment 'a = b = E' is not supported", s)
            case ast.Assign(targets=[ast.Name(id=name)], value=ast.List(elts=[])):
                return self.list_decl(name, s, None)
            case ast.AnnAssign(target=ast.Name(id=name), annotation=ann, value=ast.List(elts=[])):
                return self.list_decl(name, s, ann)
            case ast.Assign(targets=[ast.Name(id=name)], value=value):
                return [self.assign(name, self.expr(value), s)]
            case ast.AnnAssign(target=ast.Name(id=name), annotation=ann, value=value):
                t = self.mod.annotation(ann, f"'{name}'")
                if t is None or t.rank != 0:
                    self.fail(f"local list '{name}' is not supported (only 'out = []' for the returned list)", s)
                if t.dtype == DOUBLE and name not in self.params and self.locals.get(name) != DOUBLE:
                    # 'x: float = 0': x is a float variable
                    if name in self.locals:
                        if name in self.loop_names():
                            self.fail(f"loop variable '{name}' is also annotated as a float", s)
                        self.promoted[name] = DOUBLE
                    self.locals[name] = DOUBLE
                    self.env[name] = _Scalar(DOUBLE)
                if value is None:
                    return []
                return [self.assign(name, self.expr(value), s)]
            case ast.AugAssign(target=ast.Name(id=name), op=op, value=value):
                b = self.env.get(name)
                if isinstance(b, _ListParam | _Result | _Row):
                    self.fail(f"'{ast.unparse(s)}' on list '{name}' is not supported (only append)", s)
                current = self.read(name, s.target)
                return [self.assign(name, self.mod.binop(op, current, value, self, s), s)]
        target = s.targets[0] if isinstance(s, ast.Assign) else s.target
        if isinstance(target, ast.Subscript):
            root: ast.expr = target
            while isinstance(root, ast.Subscript):
                root = root.value
            b = self.env.get(root.id) if isinstance(root, ast.Name) else None
            if isinstance(b, _ListParam):
                self.fail(
                    f"assigning to an element of parameter '{b.name}' is not supported (the kernel may not modify its arguments)",
                    target,
                )
            if isinstance(b, _Result | _Row):
                self.fail("assigning to an element of the list being built is not supported (only append)", target)
            self.fail(f"assignment to '{ast.unparse(target)}' is not supported", target)
        if isinstance(target, ast.Tuple | ast.List):
            self.fail("tuple assignment is not supported", target)
        if isinstance(s, ast.Assign | ast.AnnAssign) and isinstance(s.value, ast.List | ast.ListComp):
            self.fail("a list literal is not supported (only 'out = []' for the returned list)", s.value)
        self.fail(f"assignment to '{ast.unparse(target)}' is not supported", target)

    def assign(self, name: str, value: Expr, node: ast.stmt) -> Assign:
        """``name = value`` for a number variable (its type joins the value's)."""
        loc = self.mod.loc(node)
        b = self.env.get(name)
        if isinstance(b, _ListParam | _Result | _Row):
            self.fail(f"assigning a number to list '{name}' is not supported", node)
        if name in self.loop_vars:
            self.fail(f"assigning the loop variable '{name}' inside its loop is not supported", node)
        if name in self.params:
            assert isinstance(b, _Scalar)
            if b.dtype == INT and value.dtype == DOUBLE:
                self.fail(f"assigning a float to int parameter '{name}' is not supported", node)
            self.assigned.add(name)
            return Assign(name, convert(value, b.dtype), loc)
        dtype = self.locals.get(name) or self.types.get(name) or value.dtype
        if dtype == INT and value.dtype == DOUBLE:
            if name in self.loop_names():
                self.fail(f"loop variable '{name}' is also assigned a float", node)
            self.promoted[name] = DOUBLE  # run again with name as a float
            dtype = DOUBLE
        self.locals[name] = dtype
        self.env[name] = _Scalar(dtype)
        self.assigned.add(name)
        return Assign(name, convert(value, dtype), loc)

    def loop_names(self) -> set[str]:
        return {n for n, b in self.env.items() if isinstance(b, _DeadLoopVar)} | set(self.loop_vars)

    # ----------------------------------------------------------- lists

    def list_decl(self, name: str, node: ast.stmt, ann: ast.expr | None) -> list[Stmt]:
        """``out = []``: the returned list (at the top of the body) or a row of it (in a
        loop body whose last statement is ``out.append(row)``)."""
        loc = self.mod.loc(node)
        b = self.env.get(name)
        if isinstance(b, _ListParam | _Scalar) and name in self.params:
            self.fail(f"rebinding parameter '{name}' to a list is not supported", node)
        elem: DType | None = None
        if ann is not None:
            t = self.mod.annotation(ann, f"'{name}'")
            if t is not None and t.rank == 0:
                self.fail(f"'{name}' is annotated as a number but assigned a list", node)
            elem = t.dtype if t is not None else None
        if not self.loops and self.guard is None:
            if self.result_rank == 0:
                self.fail(f"local list '{name}' is not supported (a local list must be the one the function returns)", node)
            if self.result is not None or isinstance(b, _Scalar):
                self.fail(f"a second local list '{name}' is not supported (only the returned one)", node)
            if elem is not None and self.result_elem is None:
                self.result_elem = elem
            length = self.fresh(f"{name}__len")
            self.locals[length] = INT
            self.result = _Result(name, self.result_rank, name, length)
            self.env[name] = self.result
            self.assigned.add(length)
            return [Assign(length, Const(0, INT, loc), loc)]
        items = self.blocks[-1] if self.blocks else []
        last = items[-1] if items else None
        r = self.result
        if self.guard is not None or r is None or r.rank != 2 or not _appends(last, r.name, name) or (
            b is not None and not isinstance(b, _Row)
        ):
            want = f"{r.name}.append({name})" if r is not None else "out.append(row)"
            self.fail(
                f"local list '{name}' is not supported: a list created inside a loop must be a row "
                f"of the returned list of lists, appended by the last statement of its block ('{want}')",
                node,
            )
        if elem is not None and self.result_elem is None:
            self.result_elem = elem
        assert last is not None
        self.env[name] = _Row(name, r.name, len(self.loops), last)
        return []

    def append(self, s: ast.Expr) -> list[Stmt]:
        """``v.append(E)`` on the returned list or one of its rows: store ``E`` at the
        result's next element and count it. Refused under an ``if`` (the length of the
        result would depend on the data)."""
        call = s.value
        assert isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
        loc = self.mod.loc(s)
        if call.keywords or len(call.args) != 1:
            self.fail("append takes one argument", s)
        obj = call.func.value
        if not isinstance(obj, ast.Name):
            self.fail(f"append on '{ast.unparse(obj)}' is not supported", s)
        if self.guard is not None:
            self.fail("append inside if is not supported (the length of the result would depend on the data)", s)
        b = self.env.get(obj.id)
        self.push_loc = self.push_loc or loc
        arg = call.args[0]
        match b:
            case _Result(rank=1):
                self.element_pushes.append(tuple(self.loops))
                return self.store(b, self.expr(arg), s)
            case _Row(into=into, depth=depth):
                into_b = self.env.get(into)
                assert isinstance(into_b, _Result)
                self.element_pushes.append(tuple(self.loops[depth:]))
                return self.store(into_b, self.expr(arg), s)
            case _Result():
                row = self.env.get(arg.id) if isinstance(arg, ast.Name) else None
                if not (isinstance(row, _Row) and row.into == b.name and row.last is s):
                    self.fail(
                        f"{b.name}.append takes the row list created in the same block, as that block's last statement",
                        s,
                    )
                self.row_pushes.append(tuple(self.loops))
                return []
            case _ListParam():
                self.fail(f"append to parameter '{obj.id}' is not supported (the kernel may not modify its arguments)", s)
            case None if obj.id not in self.local_names:
                self.read(obj.id, obj)
        self.fail(f"append on '{obj.id}', which is not the list the function builds, is not supported", s)

    def store(self, r: _Result, value: Expr, node: ast.stmt) -> list[Stmt]:
        loc = self.mod.loc(node)
        elem = self.result_elem or value.dtype
        if elem == INT and value.dtype == DOUBLE:
            self.promoted[_RESULT_KEY] = DOUBLE
            elem = DOUBLE
        self.result_elem = elem
        length = Var(r.length, INT, loc)
        return [
            Store(r.array, length, convert(value, elem), loc),
            Assign(r.length, Binary("+", length, Const(1, INT, loc), INT, loc), loc),
        ]

    def result_shape(self, body: tuple[Stmt, ...], params: tuple[Param, ...]) -> tuple[Expr, ...]:
        """Length (or rows and columns) of the returned list: per ``append`` site the
        product of the trip counts ``max(0, stop - start)`` of the loops around it (inside
        the row, for the elements of a row), summed over the sites; loop bounds are
        rewritten to the entry values of the parameters."""
        assert self.result is not None
        loc = self.push_loc or self.mod.loc(self.fdef)
        entry = entry_values(body, {p.name for p in params}, loc, "list")
        zero, one = Const(0, INT, loc), Const(1, INT, loc)

        def count(sites: list[tuple[tuple[str, Expr, Expr], ...]]) -> Expr:
            total: Expr = zero
            for stack in sites:
                prod: Expr = one
                for _, start, stop in stack:
                    lo, hi = entry(start), entry(stop)
                    diff = hi if lo == zero else Binary("-", hi, lo, INT, loc)
                    trips = Select(Compare("<", diff, zero, loc), zero, diff, INT, loc)
                    prod = trips if prod == one else Binary("*", prod, trips, INT, loc)
                total = prod if total == zero else Binary("+", total, prod, INT, loc)
            return total

        if self.result.rank == 1:
            return (count(self.element_pushes),)
        return (count(self.row_pushes), count(self.element_pushes))

    # ----------------------------------------------------------- loops

    def for_loop(self, s: ast.For) -> list[Stmt]:
        loc = self.mod.loc(s)
        if s.orelse:
            self.fail("for-else is not supported", s.orelse[0])
        if not isinstance(s.target, ast.Name):
            self.fail(f"for loop target '{ast.unparse(s.target)}' is not supported (only a variable)", s.target)
        var = s.target.id
        if var in self.params:
            self.fail(f"loop variable '{var}' is a parameter", s.target)
        if var in self.loop_vars:
            self.fail(f"loop variable '{var}' is already the variable of an enclosing loop", s.target)
        if isinstance(self.env.get(var), _ListParam | _Result | _Row):
            self.fail(f"loop variable '{var}' is a list", s.target)
        it = s.iter
        pre: list[Stmt] = []
        each: _ListParam | None = None
        descending = False
        if (isinstance(it, ast.Call) and _is_name(it.func, "reversed") and "reversed" not in self.local_names
                and len(it.args) == 1 and not it.keywords and isinstance(it.args[0], ast.Call)
                and _is_name(it.args[0].func, "range")):
            # reversed(range(a, b)): the same iterations, from b - 1 down to a
            self.mod.stable_builtin("reversed", it.func)
            descending, it = True, it.args[0]
            if len(it.args) == 3 and not _is_int_literal(it.args[2], 1):
                self.fail(f"reversed(range()) with step '{ast.unparse(it.args[2])}' is not supported (only 1)", it.args[2])
        if isinstance(it, ast.Call) and _is_name(it.func, "range") and "range" not in self.local_names:
            self.mod.stable_builtin("range", it.func)
            if it.keywords:
                self.fail("keyword arguments are not supported", it.keywords[0])
            args = it.args
            if not 1 <= len(args) <= 3:
                self.fail(f"range() with {len(args)} arguments", it)
            down = len(args) == 3 and not descending and (
                isinstance(args[2], ast.UnaryOp) and isinstance(args[2].op, ast.USub) and _is_int_literal(args[2].operand, 1))
            if len(args) == 3 and not _is_int_literal(args[2], 1) and not down:
                self.fail(f"range() step '{ast.unparse(args[2])}' is not supported (only 1 and -1)", args[2])
            bounds = [self.loop_bound(a) for a in args[:2]]
            start, stop = (Const(0, INT, loc), bounds[0]) if len(bounds) == 1 else (bounds[0], bounds[1])
            if down:  # range(a, b, -1): a, a - 1, ..., b + 1 -- the iterations b + 1 .. a descending
                start, stop, descending = _py_plus_one(bounds[1], loc), _py_plus_one(bounds[0], loc), True
            counter = var
            if self.locals.get(var, INT) != INT:
                self.fail(f"loop variable '{var}' is also assigned a float", s.target)
        elif isinstance(it, ast.Name) and isinstance(self.env.get(it.id), _ListParam):
            lp = self.env[it.id]
            assert isinstance(lp, _ListParam)
            if lp.rank != 1:
                self.fail(f"iterating over the rows of '{lp.name}' is not supported (use range(len({lp.name})))", it)
            each = lp
            counter = self.fresh(f"{var}__k")
            start, stop = Const(0, INT, loc), Var(lp.sizes[0], INT, loc)
        else:
            self.fail(
                f"for loop over '{ast.unparse(it)}' is not supported (only range(...) or a list parameter)", it
            )
        self.locals[counter] = INT
        before, before_written = set(self.assigned), set(self.written)
        self.loops.append((counter, start, stop))
        self.loop_vars.append(counter)
        head: list[Stmt] = []
        if each is not None:
            head = [self.assign(var, Load(each.name, Var(counter, INT, loc), each.elem, loc), s)]
        else:
            self.env[var] = _Scalar(INT)
        self.assigned.add(counter)
        try:
            body = head + self.block(list(s.body))
        finally:
            self.loops.pop()
            self.loop_vars.pop()
        self.assigned, self.written = before, before_written
        self.env[var] = _DeadLoopVar(var)
        written = {name for name, _ in writes(body)}
        if counter in written:  # pragma: no cover - assignments to it are refused
            self.fail(f"loop variable '{var}' is assigned in the loop body", s)
        reads = {name for name, _ in vars_read(stop)}
        if reads & (written | {counter}):
            # Python evaluates range() once: keep the bound in a fresh local
            snap = self.fresh("__stop")
            self.locals[snap] = INT
            pre.append(Assign(snap, stop, loc))
            stop = Var(snap, INT, loc)
        if counter in {name for name, _ in vars_read(start)} or (descending and {n for n, _ in vars_read(start)} & written):
            snap = self.fresh("__start")
            self.locals[snap] = INT
            pre.append(Assign(snap, start, loc))
            start = Var(snap, INT, loc)
        return [*pre, For(counter, start, stop, tuple(body), loc, descending)]

    def loop_bound(self, node: ast.expr) -> Expr:
        e = self.expr(node)
        if e.dtype.is_float:
            self.fail(f"range() bound '{ast.unparse(node)}' is a float (an int is needed)", node)
        return e

    def while_loop(self, s: ast.While, emitted: list[Stmt]) -> For:
        """``i = E0; while i < E: body; i += 1`` → ``for (i = E0; i < E; i++) body``;
        after the loop ``i`` is ``max(E0, E)``, as in Python."""
        loc = self.mod.loc(s)
        if s.orelse:
            self.fail("while-else is not supported", s.orelse[0])
        test = s.test
        counter: str | None = None
        bound_node: ast.expr | None = None
        inclusive = False
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            op, left, right = test.ops[0], test.left, test.comparators[0]
            if isinstance(op, ast.Lt | ast.LtE) and isinstance(left, ast.Name):
                counter, bound_node, inclusive = left.id, right, isinstance(op, ast.LtE)
            elif isinstance(op, ast.Gt | ast.GtE) and isinstance(right, ast.Name):
                counter, bound_node, inclusive = right.id, left, isinstance(op, ast.GtE)
        if counter is None or bound_node is None:
            self.fail(
                f"while loop condition '{ast.unparse(test)}' is not supported "
                "(only i < E, i <= E, E > i, E >= i with a counter i incremented by 1 at the end of the body)",
                test,
            )
        body_nodes = list(s.body)
        last = body_nodes[-1]
        increments = (
            isinstance(last, ast.AugAssign) and isinstance(last.op, ast.Add) and _is_name(last.target, counter)
            and _is_int_literal(last.value, 1)
        ) or (
            isinstance(last, ast.Assign) and len(last.targets) == 1 and _is_name(last.targets[0], counter)
            and isinstance(last.value, ast.BinOp) and isinstance(last.value.op, ast.Add)
            and (
                (_is_name(last.value.left, counter) and _is_int_literal(last.value.right, 1))
                or (_is_int_literal(last.value.left, 1) and _is_name(last.value.right, counter))
            )
        )
        if not increments:
            self.fail(f"while loop body must end with '{counter} += 1' (a counted loop)", last)
        b = self.env.get(counter)
        if counter in self.params or not isinstance(b, _Scalar) or counter not in self.assigned:
            self.fail(f"while loop counter '{counter}' must be a local int variable assigned before the loop", test)
        if b.dtype != INT:
            self.fail(f"while loop counter '{counter}' is a float", test)
        if counter in self.loop_vars:
            self.fail(f"'{counter}' is already the counter of an enclosing loop", test)
        bound = self.expr(bound_node)
        if bound.dtype.is_float:
            self.fail(f"while loop bound '{ast.unparse(bound_node)}' is a float (an int is needed)", bound_node)
        stop: Expr = bound
        if inclusive:
            stop = Binary("+", bound, Const(1, INT, loc), INT, loc)
        start = self.counter_start(counter, emitted, loc)
        before, before_written = set(self.assigned), set(self.written)
        self.loops.append((counter, start, stop))
        self.loop_vars.append(counter)
        try:
            body = self.block(body_nodes[:-1])
        finally:
            self.loops.pop()
            self.loop_vars.pop()
        self.assigned, self.written = before, before_written
        self.assigned.add(counter)
        written = {name for name, _ in writes(body)}
        for name, _ in vars_read(stop):
            if name == counter or name in written:
                self.fail(f"while loop bound reads '{name}', which the loop body writes", bound_node)
        return For(counter, start, stop, tuple(body), loc)

    def counter_start(self, counter: str, emitted: list[Stmt], loc: SourceLoc) -> Expr:
        """The value the counter has when the loop starts: the expression of its last
        assignment in the current block when nothing after it changes what it reads,
        else the variable itself."""
        later: set[str] = set()
        for st in reversed(emitted):
            if isinstance(st, Assign) and st.target == counter:
                reads = {name for name, _ in vars_read(st.value)}
                if not (reads & later) and counter not in reads:
                    return st.value
                break
            later |= {name for name, _ in writes([st])}
            if counter in later:
                break
        return Var(counter, INT, loc)

    # ----------------------------------------------------------- if-conversion

    def if_stmt(self, s: ast.If) -> list[Stmt]:
        """If-conversion, as in the C frontend: ``__ifK = C ? 1 : 0`` once, then the
        then-statements guarded by ``__ifK != 0`` and the else-statements by
        ``__ifK == 0`` (conjoined with the enclosing guard)."""
        loc, cloc = self.mod.loc(s), self.mod.loc(s.test)
        defined = self.assigned | self.written
        flag = self.fresh_if_local()
        c = self.cond(s.test)
        one, zero = Const(1, INT, cloc), Const(0, INT, cloc)
        out = self.guarded([Assign(flag, Select(c, one, zero, INT, cloc), loc)], defined, self.written)
        self.assigned.add(flag)
        return out + self.if_branches(
            flag, zero, loc, self, lambda: self.block(list(s.body)),
            (lambda: self.block(list(s.orelse))) if s.orelse else None,
        )


def _is_lifted_decorator(d: ast.expr) -> bool:
    """``@lifted``, ``@tenspiler.lifted`` or a call of either: the decorator that replaces
    the function by its lifted version does not change the meaning of the body."""
    if isinstance(d, ast.Call):
        d = d.func
    if isinstance(d, ast.Name):
        return d.id == "lifted"
    return isinstance(d, ast.Attribute) and d.attr == "lifted" and isinstance(d.value, ast.Name) and d.value.id == "tenspiler"


def _py_plus_one(e: Expr, loc: SourceLoc | None) -> Expr:
    """``e + 1`` (a literal folded)."""
    if isinstance(e, Const) and isinstance(e.value, int):
        return Const(e.value + 1, INT, loc)
    return Binary("+", e, Const(1, INT, loc), INT, loc)
