"""Module-level names of the Python frontend, resolved soundly: a module constant is folded
and a builtin, ``math`` name or helper given its meaning only if nothing else in the module
(nor, when it is running, its namespace) may bind the name (see the module docstring of
:mod:`tenspiler.frontend.python`)."""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

from tenspiler.errors import BadInput, SourceLoc
from tenspiler.frontend.py_ast import is_name

__all__ = ["ModuleNames", "Site", "is_def_of"]


def is_def_of(fdef: ast.FunctionDef, fn: Callable[..., Any]) -> bool:
    """Whether ``fdef`` is the definition of ``fn`` (not an earlier / other def of the same
    name): its first line, decorators included, is the code object's."""
    first = min([fdef.lineno, *(d.lineno for d in fdef.decorator_list)])
    code = getattr(fn, "__code__", None)
    return getattr(code, "co_name", None) == fdef.name and getattr(code, "co_firstlineno", None) in (first, fdef.lineno)


class ModuleNames:
    """One Python module: its functions, math imports and constants, and whether the names
    the lowering relies on are stable (the bottom of :class:`tenspiler.frontend.python.Module`)."""

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
        # (the module running as a script -- a live namespace named __main__ -- runs the code
        # under `if __name__ == "__main__":` too)
        script = any(ns.get("__name__") == "__main__" for ns in live or [])
        self.bindings, self.dynamic = _module_bindings(tree, script)
        self.globals.update(self.bindings)
        #: Namespaces of the running module(s) (a live function's ``__globals__``).
        self.live = live or []
        #: The module constants folded into the lowered function, by name.
        self.folded: dict[str, int | float] = {}

    # ----------------------------------------------------------- module names

    def rebinding(self, name: str, ref: Site | None) -> Site | None:
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

    def site_of(self, name: str, key: tuple[Any, ...]) -> Site | None:
        return next((x for x in self.bindings.get(name, []) if x.key == key), None)

    def refuse_rebound(self, what: str, site: Site, node: ast.AST, advice: str) -> NoReturn:
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
            if name in ns and not is_def_of(fdef, getattr(ns[name], "original", ns[name])):
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


@dataclass(frozen=True, eq=False)
class Site:
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


def _module_bindings(tree: ast.Module, script: bool = False) -> tuple[dict[str, list[Site]], Site | None]:
    """Every site of the module source that may bind a module-level name, by name, in
    source order: module-level statements of any kind (assignments, augmented
    assignments, ``for`` / ``with`` targets, ``:=``, ``del``, imports, ``def``, ``class``,
    ``except ... as``, ``match`` captures) and, in every function or class body, the
    bindings of names it declares ``global``; attribute assignments ``obj.NAME = ...`` and
    ``setattr(obj, 'NAME', ...)`` anywhere (``obj`` may be the module). The second result is
    the first construct that may bind *any* global (``globals()``, ``exec``, a star import
    other than from math, ``sys.modules``, ``setattr`` with a computed name ...), or ``None``.
    The body of ``if __name__ == "__main__":`` is not read unless ``script`` (the module runs
    as the main script) or the module may bind ``__name__`` (:func:`_is_main_guard`)."""
    out: dict[str, list[Site]] = {}
    dynamic: list[Site] = []
    literal_targets: set[ast.AST] = set()

    def add(name: str, node: ast.AST, reason: str, key: tuple[Any, ...] | None, module_scope: bool) -> None:
        out.setdefault(name, []).append(Site(node, reason, key, module_scope))

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
                            dynamic.append(Site(node, f"'from {'.' * level}{mod or ''} import *' may bind any name", None, True))
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
                case ast.Attribute(attr=attr, ctx=ast.Store() | ast.Del()) if not is_name(node.value, "self"):
                    add(attr, node, f"attribute assignment '{ast.unparse(node)}'", None, False)
                case ast.Attribute(attr="modules", value=ast.Name(id="sys")) | ast.Attribute(attr="__dict__"):
                    dynamic.append(Site(node, f"'{ast.unparse(node)}' may bind any global", None, False))
                case ast.Call(func=ast.Name(id="setattr" | "delattr" as f), args=[_, ast.Constant(value=str() as attr), *_]):
                    add(attr, node, f"{f}()", None, False)
                case ast.Call(func=ast.Name(id="setattr" | "delattr" as f)):
                    dynamic.append(Site(node, f"{f}() with a computed name may bind any global", None, False))
                case ast.Call(func=ast.Name(id="exec" | "eval" as f), args=args, keywords=kws) if len(args) < 2 and not any(
                    k.arg == "globals" for k in kws
                ):
                    dynamic.append(Site(node, f"{f}() may bind any global", None, False))
                case ast.Call(func=ast.Name(id="globals" | "vars" | "locals" | "__import__" as f)) if (
                    f != "locals" or module_scope
                ):
                    dynamic.append(Site(node, f"{f}() may bind any global", None, False))
                case ast.Call(func=ast.Attribute(attr="import_module")):
                    dynamic.append(Site(node, "importlib.import_module() may bind any global", None, False))

    body: list[ast.AST] = [n for s in tree.body for n in (s.orelse if isinstance(s, ast.If) and _is_main_guard(s) and not script else [s])]
    analyse(body, True, "")
    if "__name__" in out and any(_is_main_guard(s) for s in tree.body):
        # the module may bind __name__: the guard may be true on import, every statement counts
        out.clear()
        dynamic.clear()
        literal_targets.clear()
        analyse(list(tree.body), True, "")
    dynamic.sort(key=lambda x: (getattr(x.node, "lineno", 0), getattr(x.node, "col_offset", 0)))
    return out, (dynamic[0] if dynamic else None)


def _is_main_guard(s: ast.stmt) -> bool:
    """``if __name__ == "__main__":`` at the top of a module: its body runs only when the file
    is run as a script, never when the module is imported — which is how the lifted function
    is called (and how ``--check`` runs it): the bindings in that body (and in the functions
    it defines) do not change what a name means for the lifted function. Not when the module
    may bind ``__name__`` itself (:func:`_module_bindings` then reads the body too)."""
    match s:
        case ast.If(test=ast.Compare(left=a, ops=[ast.Eq()], comparators=[b])):
            pair = {ast.unparse(a), ast.unparse(b)}
            return pair in ({"__name__", "'__main__'"}, {"__name__", '"__main__"'})
    return False


def _number_literal(node: ast.expr) -> int | float | None:
    match node:
        case ast.Constant(value=bool()):
            return None
        case ast.Constant(value=int() | float() as v):
            return v
        case ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=int() | float() as v)) if not isinstance(v, bool):
            return -v
    return None
