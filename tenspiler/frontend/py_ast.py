"""Small helpers on Python :mod:`ast` nodes shared by the modules of the Python frontend
(:mod:`tenspiler.frontend.python`)."""

from __future__ import annotations

import ast

__all__ = [
    "ZIP_COLUMN",
    "ZIP_COLUMNS",
    "appended_name",
    "appends",
    "assigned_names",
    "describe",
    "is_docstring",
    "is_int_literal",
    "is_name",
]

#: The names of the calls :class:`~tenspiler.frontend.py_comprehensions.Desugar` writes for
#: ``for col in zip(*m)`` (not identifiers: no source binds them): ``ZIP_COLUMNS(m)`` is the
#: number of tuples ``zip(*m)`` yields (``len(m[0])`` when ``m`` has rows, else 0: the rows
#: of the model have one length), ``ZIP_COLUMN(m, c)`` the tuple ``(m[0][c], m[1][c], ...)``
#: (read only by ``zip``: ``len`` is ``len(m)``, element ``k`` is ``m[k][c]``).
ZIP_COLUMNS = "<columns of zip(*...)>"
ZIP_COLUMN = "<column of zip(*...)>"

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


def describe(node: ast.AST) -> str:
    """How messages name the construct ``node``."""
    return _NODE_NAMES.get(type(node), type(node).__name__)


def is_name(node: ast.AST | None, name: str) -> bool:
    """Whether ``node`` is the name ``name``."""
    return isinstance(node, ast.Name) and node.id == name


def is_int_literal(node: ast.AST, value: int) -> bool:
    """Whether ``node`` is the int literal ``value``."""
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == value


def appended_name(node: ast.AST) -> tuple[str, str] | None:
    """``(into, row)`` when ``node`` is the call ``into.append(row)`` of two names."""
    match node:
        case ast.Call(func=ast.Attribute(value=ast.Name(id=into), attr="append"), args=[ast.Name(id=row)]):
            return into, row
    return None


def appends(node: ast.stmt | None, into: str, row: str) -> bool:
    """Whether ``node`` is the statement ``into.append(row)``."""
    return isinstance(node, ast.Expr) and appended_name(node.value) == (into, row)


def is_docstring(s: ast.stmt) -> bool:
    """Whether the statement ``s`` is a string literal (a docstring)."""
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str)


def assigned_names(body: list[ast.stmt]) -> set[str]:
    """Names a function body binds (Python's local scope)."""
    out: set[str] = set()
    for node in (n for s in body for n in ast.walk(s)):
        match node:
            case ast.Assign(targets=targets):
                for t in targets:
                    out.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
            case ast.AugAssign(target=ast.Name(id=name)) | ast.AnnAssign(target=ast.Name(id=name)):
                out.add(name)
            case ast.For(target=target):
                out.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    return out
