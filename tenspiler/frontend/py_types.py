"""Types in the Python frontend: the bindings of the kernel's names, the types of
parameters (from annotations, or from how the body uses them), Python's numeric join, and
annotations (see "Types" in the module docstring of :mod:`tenspiler.frontend.python`)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TypeAlias

from tenspiler.frontend.common import Scalar
from tenspiler.frontend.lists import ResultList, ResultRow
from tenspiler.frontend.py_globals import ModuleNames
from tenspiler.loops.ir import DType

__all__ = [
    "RESULT_KEY",
    "Binding",
    "DeadLoopVar",
    "ListParam",
    "ModuleTypes",
    "ParamType",
    "Uses",
    "join",
]

INT, DOUBLE = DType.INT, DType.DOUBLE

_LIST_NAMES = frozenset({"list", "List", "Sequence", "MutableSequence", "Iterable"})

#: The NumPy array class as an annotation names it (``np.ndarray``, ``numpy.ndarray``).
_ARRAY_NAMES = frozenset({"ndarray"})


# ---------------------------------------------------------------- bindings


@dataclass(frozen=True)
class ListParam:
    """A list parameter: pointer parameter ``name`` (elements row-major) and the INT
    parameters ``sizes`` (length, or rows and columns)."""

    name: str
    rank: int
    elem: DType
    sizes: tuple[str, ...]


@dataclass(frozen=True)
class DeadLoopVar:
    """A ``for`` variable after its loop (Python leaves it at the last value; reads are
    refused)."""

    name: str


#: What a name of the kernel denotes; the returned list and its rows are the shared
#: :class:`~tenspiler.frontend.lists.ResultList` and :class:`~tenspiler.frontend.lists.ResultRow`.
Binding: TypeAlias = Scalar | ListParam | ResultList | ResultRow | DeadLoopVar

#: Key of the returned list's element dtype in the promotion table.
RESULT_KEY = "<result>"


def join(a: DType, b: DType) -> DType:
    """Python's numeric tower on our types: float if either is a float."""
    return DOUBLE if DOUBLE in (a, b) else INT


# ---------------------------------------------------------------- types of parameters


@dataclass(frozen=True)
class ParamType:
    """A parameter's type: a number (``rank == 0``) or a list of rank 1, 2 or 3."""

    rank: int
    dtype: DType


@dataclass
class Uses:
    """How the kernel body uses each name (for parameters without annotations)."""

    lists: dict[str, int] = field(default_factory=dict)  # name -> rank seen (1, 2 or 3)
    int_context: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, body: list[ast.stmt]) -> Uses:
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


def _type_name(node: ast.expr) -> str | None:
    """``int`` for ``int``, ``List`` for ``typing.List`` ..."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


class ModuleTypes(ModuleNames):
    """The types annotations name (the middle of :class:`tenspiler.frontend.python.Module`)."""

    def annotation(self, node: ast.expr, what: str) -> ParamType | None:
        """The type an annotation names (``None``: a bare ``list``, rank and elements
        inferred). Annotations are hints, never evaluated: ``Optional[T]`` / ``T | None``
        is read as ``T`` (the lifted function takes numbers and lists of numbers, never
        ``None``); a union of number types (``int | float``, ``Union[int, float]``) is a
        ``float`` (Python's numeric join, as for an unannotated list's elements); ``bool``
        is an ``int`` (``True`` is 1, its truth value is ``!= 0``); the list types are
        ``list``, ``List``, ``Sequence``, ``MutableSequence`` (any module prefix)."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                parsed = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                self.fail(f"annotation of {what} is not a type: {node.value!r}", node)
            return self.annotation(ast.copy_location(parsed, node), what)
        t = self._annotated(node)
        if isinstance(t, bool):
            self.fail(
                f"annotation '{ast.unparse(node)}' of {what} is not supported "
                "(int, float, bool, list[int], list[float], list[list[int]], list[list[float]], list[list[list[float]]], "
                "Sequence[float], list[int | float], Optional[...], …)",
                node,
            )
        return t

    def _annotated(self, node: ast.expr) -> ParamType | bool | None:
        """:meth:`annotation`'s reading: a type, ``None`` for a bare list, ``False`` when
        not supported."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                return False
        alias = self._type_alias(node)
        if alias is not None:
            return self._annotated(alias)
        arms = _union_arms(node)
        if arms is not None:
            arms = [a for a in arms if not _is_none(a)]
            arrays = [a for a in arms if _type_name(a) in _ARRAY_NAMES]
            arms = [a for a in arms if a not in arrays]
            if arrays:
                # ``Union[Sequence[float], np.ndarray]``: the lifted function takes the
                # list arms; a float64 array computes the same IEEE doubles, so the array
                # arm is read as them only when they are 1-D lists of floats (an int
                # array's int64 arithmetic wraps where Python ints do not)
                read = [self._annotated(a) for a in arms]
                kinds = [k for k in read if isinstance(k, ParamType)]
                if not kinds or len(kinds) != len(read):
                    return False
                joined = ParamType(kinds[0].rank, DOUBLE if any(k.dtype == DOUBLE for k in kinds) else INT)
                if any(k.rank != 1 for k in kinds) or joined.dtype != DOUBLE:
                    return False
                return joined
            arm_types = [self._annotated(a) for a in arms]
            if not arm_types or any(k is False or k is None or k is True for k in arm_types):
                return False
            ranks = {k.rank for k in arm_types if isinstance(k, ParamType)}
            if len(ranks) != 1:
                return False
            dtypes = {k.dtype for k in arm_types if isinstance(k, ParamType)}
            return ParamType(ranks.pop(), DOUBLE if DOUBLE in dtypes else INT)
        name = _type_name(node)
        if name in ("int", "bool", "float"):
            return ParamType(0, DOUBLE if name == "float" else INT)
        if name in _LIST_NAMES:
            return None
        if isinstance(node, ast.Subscript) and _type_name(node.value) in _LIST_NAMES:
            inner = self._annotated(node.slice)
            if inner is False or inner is True:
                return False
            if inner is None:  # list[list]: rank 2, elements inferred
                return False
            if inner.rank >= 3:
                return False
            return ParamType(inner.rank + 1, inner.dtype)
        return False


    def _type_alias(self, node: ast.expr) -> ast.expr | None:
        """What a module-level type alias names: ``Vector = Union[...]`` (one plain
        assignment at the top level of the module, the only binding of the name), or
        ``Vector: TypeAlias = ...``; ``None`` when ``node`` names no such alias."""
        if not isinstance(node, ast.Name) or node.id in ("int", "float", "bool", *_LIST_NAMES):
            return None
        values: list[ast.expr] = [
            s.value
            for s in self.tree.body
            if (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                and s.targets[0].id == node.id)
            or (isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id == node.id)
            if s.value is not None
        ]
        sites = self.bindings.get(node.id, [])
        if len(values) != 1 or len(sites) != 1 or self.dynamic is not None:
            return None
        value = values[0]
        if any(isinstance(n, ast.Name) and n.id == node.id for n in ast.walk(value)):
            return None  # a recursive alias
        return value


def _union_arms(node: ast.expr) -> list[ast.expr] | None:
    """The arms of ``A | B``, ``Union[A, B]`` or ``Optional[A]`` (then ``[A, None]``)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return [*(_union_arms(node.left) or [node.left]), *(_union_arms(node.right) or [node.right])]
    if isinstance(node, ast.Subscript) and _type_name(node.value) in ("Union", "Optional"):
        items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if _type_name(node.value) == "Optional":
            if len(items) != 1:
                return None
            items.append(ast.Constant(None))
        return items
    return None


def _is_none(node: ast.expr) -> bool:
    return (isinstance(node, ast.Constant) and node.value is None) or _type_name(node) == "None"
