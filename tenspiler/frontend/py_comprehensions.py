"""The idioms of the Python subset -- comprehensions, ``sum`` / ``max`` / ``min`` of a
sequence, ``zip`` and ``enumerate`` -- rewritten (AST to AST, before lowering) to the
explicit loops and appends :mod:`tenspiler.frontend.py_stmts` reads (:class:`Desugar`)."""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn, TypeAlias, TypeVar

from tenspiler.frontend.py_ast import (
    ZIP_COLUMN,
    ZIP_COLUMNS,
    assigned_names,
    describe,
    is_int_literal,
)
from tenspiler.frontend.py_globals import ModuleNames

__all__ = ["Desugar"]

_N = TypeVar("_N", bound=ast.AST)

#: The builtins reducing a sequence to one number (with one iterable argument).
_REDUCTIONS = frozenset({"sum", "max", "min"})
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


def _for(var: str, start: ast.expr | None, stop: ast.expr, body: list[ast.stmt], like: ast.AST,
         descending: bool = False) -> ast.For:
    bounds = [stop] if start is None else [start, stop]
    it = _call("range", bounds, like)
    if descending:
        it = _call("reversed", [it], like)
    return _at(ast.For(target=_name(var, like, store=True), iter=it, body=body, orelse=[]), like)


def _plus_one(e: ast.expr) -> ast.expr:
    if isinstance(e, ast.Constant) and type(e.value) is int:
        return _at(ast.Constant(e.value + 1), e)
    return _at(ast.BinOp(left=copy.deepcopy(e), op=ast.Add(), right=ast.Constant(1)), e)


def _substitute(e: ast.expr, values: dict[str, ast.expr]) -> ast.expr:
    """A copy of ``e`` with each name of ``values`` replaced by (a copy of) its expression
    (comprehension variables are distinct names by then: :meth:`Desugar.rename`)."""

    class Sub(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.expr:
            if isinstance(node.ctx, ast.Load) and node.id in values:
                return copy.deepcopy(values[node.id])
            return node

    out = Sub().visit(copy.deepcopy(e))
    assert isinstance(out, ast.expr)
    return out


def _substitute_stmt(s: ast.stmt, values: dict[str, ast.expr]) -> ast.stmt:
    """A copy of the statement ``s`` with each read of a name of ``values`` replaced."""

    class Sub(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.expr:
            if isinstance(node.ctx, ast.Load) and node.id in values:
                return copy.deepcopy(values[node.id])
            return node

    out = Sub().visit(copy.deepcopy(s))
    assert isinstance(out, ast.stmt)
    return out


def _used_as_list(name: str, body: list[ast.stmt]) -> bool:
    """Whether ``body`` subscripts ``name``, iterates over it or takes its ``len`` (a row)."""
    for node in (n for s in body for n in ast.walk(s)):
        match node:
            case ast.Subscript(value=ast.Name(id=n)) if n == name:
                return True
            case ast.For(iter=ast.Name(id=n)) | ast.comprehension(iter=ast.Name(id=n)) if n == name:
                return True
            case ast.Call(func=ast.Name(id="len" | "zip" | "enumerate" | "sum" | "reversed"), args=args) if any(
                    isinstance(a, ast.Name) and a.id == name for a in args):
                return True
            case ast.Call(func=ast.Name(id="max" | "min"), args=[ast.Name(id=n)]) if n == name:
                return True
    return False


def _stores_into(name: str, body: list[ast.stmt]) -> bool:
    """Whether ``body`` assigns an element of ``name`` (``name[i] = ...``, ``name[i][j] += ...``)."""
    for node in (n for s in body for n in ast.walk(s)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AugAssign | ast.AnnAssign) else []
        for t in targets:
            root = t
            while isinstance(root, ast.Subscript):
                root = root.value
            if isinstance(root, ast.Name) and root.id == name and root is not t:
                return True
    return False


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
    #: ``k`` walks ``reversed(range(stop))`` (``reversed(xs)``)
    descending: bool = False


class Desugar:
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

    def __init__(self, mod: ModuleNames, fresh: Callable[[str], str], params: set[str]) -> None:
        self.mod = mod
        #: Fresh names of the kernel (:meth:`tenspiler.frontend.common.KernelNames.fresh`).
        self.fresh = fresh
        self.params = params
        #: names the function binds (a call of such a name is not the builtin)
        self.shadowed: set[str] = set()
        self.guards = 0

    def fail(self, message: str, node: ast.AST | None) -> NoReturn:
        self.mod.fail(message, node)

    def function_body(self, body: list[ast.stmt]) -> list[ast.stmt]:
        body = copy.deepcopy(body)
        self.shadowed = assigned_names(body) | self.params
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
                    new = self.fresh(v)
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
            case ast.Assign(targets=targets, value=value) if len(targets) > 1 and all(
                    isinstance(t, ast.Name) for t in targets):
                # a = b = E: E once, then each target from left to right
                tmp = self.fresh("__chain")
                return self.block([_assign(tmp, value, s), *(_at(ast.Assign(targets=[t], value=_name(tmp, t)), s)
                                                             for t in targets)])
            case ast.Assign(targets=[ast.Tuple(elts=names) | ast.List(elts=names)], value=ast.Tuple(elts=values)
                            | ast.List(elts=values)) if all(isinstance(t, ast.Name) for t in names):
                return self.block(self.unpack(s, names, values))
            case ast.Return(value=ast.ListComp() as comp):
                out = self.fresh("out")
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
                row = self.fresh("row")
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

    def unpack(self, s: ast.Assign, names: list[ast.expr], values: list[ast.expr]) -> list[ast.stmt]:
        """``a, b = E1, E2``: Python evaluates every ``E`` first, then assigns from left to
        right; through fresh temporaries when an ``E`` reads a target."""
        if len(names) != len(values):
            self.fail(f"unpacking {len(values)} values into {len(names)} names (Python raises ValueError)", s)
        if any(isinstance(v, ast.Starred) for v in values):
            self.fail("starred expression in an unpacking is not supported", s)
        targets = [t.id for t in names if isinstance(t, ast.Name)]
        if len(set(targets)) != len(targets):
            self.fail("a name assigned twice by one unpacking is not supported", s)
        read = {n.id for v in values for n in _names_in(v)}
        if not read & set(targets):
            return [_at(ast.Assign(targets=[t], value=v), s) for t, v in zip(names, values, strict=True)]
        temps = [self.fresh(f"__{t}") for t in targets]
        return [*(_assign(tmp, v, v) for tmp, v in zip(temps, values, strict=True)),
                *(_at(ast.Assign(targets=[t], value=_name(tmp, t)), t) for t, tmp in zip(names, temps, strict=True))]

    def star_zip(self, s: ast.For) -> None:
        """``zip(*...)`` in a loop, rewritten in place to the loops it means: ``for m in
        zip(a, b)`` whose body reads ``m`` only as ``zip(*m)`` unpacks ``m`` into fresh names
        (``zip(*m)`` is ``zip(m0, m1)``); ``for col in zip(*xs)`` of a list of lists ``xs``
        walks its columns (:data:`~tenspiler.frontend.py_ast.ZIP_COLUMNS`; ``col`` is read
        only by ``zip``). Any other starred argument is refused."""
        it = s.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "zip"
                and "zip" not in self.shadowed and "zip" not in self.mod.defs):
            return
        if (isinstance(s.target, ast.Name) and it.args and not any(isinstance(a, ast.Starred) for a in it.args)):
            m = s.target.id
            uses = [n for b in s.body for n in ast.walk(b) if isinstance(n, ast.Name) and n.id == m]
            stars = [c for b in s.body for c in ast.walk(b)
                     if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "zip"
                     and len(c.args) == 1 and isinstance(c.args[0], ast.Starred)
                     and isinstance(c.args[0].value, ast.Name) and c.args[0].value.id == m]
            if uses and len(stars) == len(uses) and m not in assigned_names(s.body):
                names = [self.fresh(f"{m}__{k}") for k in range(len(it.args))]
                s.target = _at(ast.Tuple(elts=[_name(n, s.target, store=True) for n in names], ctx=ast.Store()),
                               s.target)
                for c in stars:
                    c.args = [_name(n, c) for n in names]
                return
        if len(it.args) == 1 and isinstance(it.args[0], ast.Starred) and isinstance(s.target, ast.Name):
            xs = it.args[0].value
            if not (isinstance(xs, ast.Name) and xs.id in self.params):
                self.fail(f"zip(*{ast.unparse(xs)}) is only supported of a list of lists parameter", it.args[0])
            if s.target.id in assigned_names(s.body) or _stores_into(xs.id, s.body):
                self.fail(f"iterating over the columns of '{xs.id}' while assigning '{s.target.id}' or the list "
                          "is not supported", s.target)
            self.mod.stable_builtin("zip", it.func)
            col = self.fresh(f"{s.target.id}__c")
            column = _call(ZIP_COLUMN, [copy.deepcopy(xs), _name(col, xs)], xs)
            s.body = [_substitute_stmt(b, {s.target.id: column}) for b in s.body]
            s.target = _name(col, s.target, store=True)
            s.iter = _call("range", [_call(ZIP_COLUMNS, [copy.deepcopy(xs)], xs)], it)
            self.require_builtins(("range",), f"iterating over zip(*{xs.id})", it)

    def for_stmt(self, s: ast.For) -> list[ast.stmt]:
        self.star_zip(s)
        if self.builtin(s.iter, {"list"}) is not None:
            # list(range(...)) / list(xs): a copy, iterated as the original
            assert isinstance(s.iter, ast.Call)
            inner = s.iter.args[0] if len(s.iter.args) == 1 else None
            if inner is None or not (isinstance(inner, ast.Name) or self.builtin(inner, {"range", "reversed"})):
                self.fail(f"for loop over '{ast.unparse(s.iter)}' is not supported (list() of a range or a list)",
                          s.iter)
            s.iter = inner
        pre, s.iter = self.hoist(s.iter)
        if (isinstance(s.target, ast.Name) and isinstance(s.iter, ast.Name | ast.Subscript)
                and _used_as_list(s.target.id, s.body) and not s.orelse):
            # `for row in m`: each row is m[k] itself (a list is not copied); read through
            # the subscript when neither the row name nor m is assigned in the body
            row, seq = s.target.id, s.iter
            root: ast.expr = seq
            while isinstance(root, ast.Subscript):
                root = root.value
            if row in assigned_names(s.body) or (isinstance(root, ast.Name) and _stores_into(root.id, s.body)):
                self.fail(f"iterating over the rows of '{ast.unparse(seq)}' while assigning '{row}' or the list "
                          "is not supported", s.target)
            self.require_builtins(("len", "range"), f"iterating over the rows of '{ast.unparse(seq)}'", s.iter)
            k = self.fresh(f"{row}__k")
            at = _at(ast.Subscript(value=copy.deepcopy(seq), slice=_name(k, seq), ctx=ast.Load()), seq)
            body = [_substitute_stmt(b, {row: at}) for b in s.body]
            loop = _for(k, None, _call("len", [copy.deepcopy(seq)], seq), self.block(body), s)
            return [*pre, loop]
        if (isinstance(s.iter, ast.Subscript) and isinstance(s.iter.slice, ast.Slice)
                and isinstance(s.iter.value, ast.Name) and _stores_into(s.iter.value.id, s.body)):
            self.fail(f"a loop over the slice '{ast.unparse(s.iter)}' that assigns elements of "
                      f"'{s.iter.value.id}' is not supported (the slice is a copy)", s.iter)
        walk = self.walk(s.target, s.iter, sequence_only=False)
        if walk is None:  # range(...) or a list parameter: read by the lowering
            s.body = self.block(s.body)
            return [*pre, s]
        k = walk.counter or self.fresh(f"{_names_in(s.target)[0].id}__k")
        head: list[ast.stmt] = []
        body = s.body
        for v, e in walk.elements(_name(k, s.target)):
            if _used_as_list(v, body) and isinstance(e, ast.Subscript):
                # a row (zip of lists of lists): read through the subscript, as `for row in m`
                base: ast.expr = e
                while isinstance(base, ast.Subscript):
                    base = base.value
                if v in assigned_names(body) or (isinstance(base, ast.Name) and _stores_into(base.id, body)):
                    self.fail(f"iterating over the rows of '{ast.unparse(base)}' while assigning '{v}' or the list "
                              "is not supported", s.target)
                body = [_substitute_stmt(b, {v: e}) for b in body]
            else:
                head.append(_assign(v, e, s.target))
        loop = _for(k, None, walk.stop, self.block([*head, *body]), s, walk.descending)
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
            if inner.descending:
                self.fail("enumerate(reversed(...)) is not supported", it.args[0])
            index = target.elts[0].id
            self.require_builtins(("len", "range"), "enumerate()", it)
            return _Walk(inner.stop, inner.elements, counter=index)
        if what == "zip":
            assert isinstance(it, ast.Call)
            lists = it.args
            if not lists:
                self.fail("zip() of no lists is not supported", it)
            for a in lists:
                if isinstance(a, ast.Call) and isinstance(a.func, ast.Name) and a.func.id == ZIP_COLUMN:
                    continue  # a column of zip(*m): element k is m[k][c]
                if not (isinstance(a, ast.Name) or (isinstance(a, ast.Subscript) and not isinstance(a.slice, ast.Slice))):
                    self.fail(f"zip() over '{ast.unparse(a)}' is not supported (only list parameters and their rows)", a)
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

            def element(a: ast.expr, k: ast.expr) -> ast.expr:
                if isinstance(a, ast.Call) and isinstance(a.func, ast.Name) and a.func.id == ZIP_COLUMN:
                    m, c = a.args
                    row = _at(ast.Subscript(value=copy.deepcopy(m), slice=copy.deepcopy(k), ctx=ast.Load()), a)
                    return _at(ast.Subscript(value=row, slice=copy.deepcopy(c), ctx=ast.Load()), a)
                return _at(ast.Subscript(value=copy.deepcopy(a), slice=copy.deepcopy(k), ctx=ast.Load()), a)

            return _Walk(stop, lambda k: [(n, element(a, k)) for n, a in zip(names, lists_, strict=True)])
        if self.builtin(it, {"reversed"}) is not None:
            assert isinstance(it, ast.Call)
            if len(it.args) != 1:
                self.fail("reversed() takes one argument", it)
            arg = it.args[0]
            if self.builtin(arg, {"range"}) is not None:
                if sequence_only:
                    self.fail(f"'{ast.unparse(it)}' is only supported as the iterable of a for statement", it)
                return None  # the lowering reads reversed(range(...))
            if not (isinstance(target, ast.Name) and isinstance(arg, ast.Name)):
                self.fail(f"reversed() over '{ast.unparse(arg)}' is only supported for a list parameter and one name",
                          it)
            if not sequence_only:
                return None  # the lowering reads reversed(xs) of a list parameter
            inner = self.walk(target, arg, sequence_only=True)
            assert inner is not None
            self.require_builtins(("reversed",), "reversed()", it)
            return _Walk(inner.stop, inner.elements, descending=True)
        if isinstance(target, ast.Name) and isinstance(it, ast.Call) and isinstance(it.func, ast.Name) \
                and it.func.id == ZIP_COLUMN:
            # the elements of a column of zip(*m): m[0][c], m[1][c], ...
            self.require_builtins(("len", "range"), "iterating over a column of zip(*...)", it)
            name, (m, c) = target.id, it.args
            return _Walk(
                _call("len", [copy.deepcopy(it)], it),
                lambda k: [(name, _at(ast.Subscript(value=_at(ast.Subscript(
                    value=copy.deepcopy(m), slice=copy.deepcopy(k), ctx=ast.Load()), it), slice=copy.deepcopy(c),
                    ctx=ast.Load()), it))],
            )
        if isinstance(target, ast.Name) and isinstance(it, ast.Subscript) and isinstance(it.slice, ast.Slice):
            return self.slice_walk(target, it)
        if isinstance(target, ast.Name) and isinstance(it, ast.Subscript) and not isinstance(it.slice, ast.Slice):
            # the elements of a row m[i]: m[i][0], m[i][1], ...
            self.require_builtins(("len", "range"), f"iterating over '{ast.unparse(it)}' by index", it)
            name, row = target.id, copy.deepcopy(it)
            return _Walk(
                _call("len", [copy.deepcopy(row)], it),
                lambda k: [(name, _at(ast.Subscript(value=copy.deepcopy(row), slice=copy.deepcopy(k), ctx=ast.Load()), row))],
            )
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

    def slice_walk(self, target: ast.Name, it: ast.Subscript) -> _Walk:
        """``for x in xs[a:b]`` (step 1): Python's slice bounds (CPython's
        ``PySlice_AdjustIndices``): a missing start is 0 and a missing stop ``len(xs)``; a
        negative bound counts from the end (``+ len(xs)``, at least 0); a bound beyond the
        end is the end. The loop walks ``max(b' - a', 0)`` elements ``xs[a' + k]`` (a slice
        is a copy: the elements as they are when it is taken; refused when the loop assigns
        elements of ``xs``)."""
        sl = it.slice
        assert isinstance(sl, ast.Slice)
        if not isinstance(it.value, ast.Name):
            self.fail(f"a slice of '{ast.unparse(it.value)}' is not supported (only of a list parameter)", it)
        if sl.step is not None and not is_int_literal(sl.step, 1):
            self.fail(f"a slice with step '{ast.unparse(sl.step)}' is not supported (only 1)", sl.step)
        self.require_builtins(("len", "range", "min", "max"), f"the slice '{ast.unparse(it)}'", it)
        xs = it.value

        def n() -> ast.expr:
            return _call("len", [copy.deepcopy(xs)], it)

        def adjust(bound: ast.expr | None, missing: ast.expr) -> ast.expr:
            if bound is None:
                return missing
            if isinstance(bound, ast.Constant) and type(bound.value) is int and bound.value >= 0:
                return _call("min", [copy.deepcopy(bound), n()], bound)
            if isinstance(bound, ast.UnaryOp) and isinstance(bound.op, ast.USub) and isinstance(
                    bound.operand, ast.Constant) and type(bound.operand.value) is int:
                plus = _at(ast.BinOp(left=copy.deepcopy(bound), op=ast.Add(), right=n()), bound)
                return _call("max", [plus, _at(ast.Constant(0), bound)], bound)
            negative = _at(ast.Compare(left=copy.deepcopy(bound), ops=[ast.Lt()], comparators=[ast.Constant(0)]), bound)
            plus = _at(ast.BinOp(left=copy.deepcopy(bound), op=ast.Add(), right=n()), bound)
            return _at(ast.IfExp(test=negative, body=_call("max", [plus, _at(ast.Constant(0), bound)], bound),
                                 orelse=_call("min", [copy.deepcopy(bound), n()], bound)), bound)

        lo = sl.lower
        if isinstance(lo, ast.Constant) and type(lo.value) is int and lo.value >= 0:
            # a literal start c >= 0 is min(c, len) but only max(stop - c, 0) elements follow it:
            # xs[c + k] for those is the same (none when c is beyond the end)
            start: ast.expr = copy.deepcopy(lo)
        else:
            start = adjust(lo, _at(ast.Constant(0), it))
        stop = adjust(sl.upper, n())
        count = _call("max", [_at(ast.BinOp(left=stop, op=ast.Sub(), right=copy.deepcopy(start)), it),
                              _at(ast.Constant(0), it)], it) if sl.lower is not None else stop
        name = target.id

        def elements(k: ast.expr) -> list[tuple[str, ast.expr]]:
            index = k if sl.lower is None else _at(ast.BinOp(left=copy.deepcopy(start), op=ast.Add(),
                                                                right=copy.deepcopy(k)), it)
            return [(name, _at(ast.Subscript(value=copy.deepcopy(xs), slice=index, ctx=ast.Load()), it))]

        return _Walk(count, elements)

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
                self.fail(f"{describe(n)} in {where} is not supported (only where Python evaluates it once)", n)
            name = self.builtin(n, _REDUCTIONS)
            if name is not None and isinstance(n, ast.Call) and (name == "sum" or len(n.args) == 1):
                self.fail(f"{name}() of a sequence in {where} is not supported (only where Python evaluates it once)", n)

    def as_comprehension(self, name: str, node: ast.Call) -> ast.GeneratorExp | ast.ListComp:
        """The argument of ``name(...)`` as a comprehension (``sum(xs)`` is ``sum(v for v in xs)``)."""
        arg = node.args[0]
        if isinstance(arg, ast.GeneratorExp | ast.ListComp):
            return arg
        if isinstance(arg, ast.SetComp | ast.DictComp):
            self.fail(f"{name}() of a {describe(arg)} is not supported", arg)
        v = self.fresh("__v")
        gen = ast.comprehension(target=_name(v, arg, store=True), iter=arg, ifs=[], is_async=0)
        return _at(ast.GeneratorExp(elt=_name(v, arg), generators=[gen]), arg)

    def reduction(self, name: str, node: ast.Call) -> tuple[list[ast.stmt], ast.Name]:
        if not node.args or len(node.args) > (2 if name == "sum" else 1):
            self.fail(f"{name}() with {len(node.args)} arguments is not supported here", node)
        comp = self.as_comprehension(name, node)
        acc = self.fresh(f"__{name}")
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
            if not 1 <= len(args) <= 3 or (len(args) == 3 and not is_int_literal(args[2], 1)):
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
        if walk.descending:
            self.fail(f"{name}() over reversed() is not supported (the same value as over the list)", g.iter)
        k = walk.counter or self.fresh("__k")

        def element(at: ast.expr) -> ast.expr:
            values = dict(walk.elements(at))
            if walk.counter is not None:
                values[walk.counter] = at
            return _substitute(comp.elt, values)

        zero = _at(ast.Constant(0), g.iter)
        init = _assign(acc, element(zero), comp.elt)
        loop = _for(k, _at(ast.Constant(1), g.iter), walk.stop, [step(element(_name(k, g.iter)))], comp)
        return [*pre, *self.block([init, loop])], _name(acc, node)
