"""Name bindings of the C frontend (what a name denotes while a kernel is lowered: a
scalar, an array parameter, a walking pointer, a C++ vector, a flattened struct parameter,
a helper's value), the environment of a program point (:class:`Env`) and small helpers on
pycparser nodes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TypeAlias

from pycparser import c_ast, c_generator

from tenspiler.frontend.common import Scalar
from tenspiler.frontend.cxx import VectorType
from tenspiler.frontend.lists import ResultList, ResultRow
from tenspiler.loops.ir import DType, Expr, Stmt

__all__ = [
    "NOT_IN_IF",
    "UNSIGNED_SCALARS",
    "Array",
    "Binding",
    "CxxResult",
    "Effects",
    "Env",
    "FieldType",
    "FlatField",
    "FlatStruct",
    "Pointer",
    "PtrValue",
    "RowsType",
    "StructType",
    "Value",
    "Vector",
    "VectorBinding",
    "c_width",
    "describe",
    "float_literal",
    "identifiers",
    "int_literal",
    "is_update",
    "pushes",
    "render",
    "unsigned_spelling",
    "updated_names",
]

# ---------------------------------------------------------------- name bindings


@dataclass(frozen=True)
class Array:
    """A pointer/array parameter of the kernel; ``ctype`` spells its element type (see
    :meth:`tenspiler.frontend.c_decls.Declarations.elem_ctype`). ``cols`` is set for a 2-D
    array parameter ``T A[N][M]`` / ``T A[n][m]`` (C11 §6.7.6.3p7: a pointer to its rows of
    ``M`` elements, contiguous): the row length, a constant or the entry value of an earlier
    parameter (C11 §6.9.1p10); the flat parameter holds the rows row-major. ``rows`` is also
    set for a 3-D array parameter ``T A[P][R][C]``: the rows of each plane, ``R`` (the
    flat parameter holds the planes row-major, ``(p * R + r) * C + c``)."""

    elem: DType
    ctype: str
    cols: Expr | None = None
    rows: Expr | None = None


@dataclass(frozen=True)
class RowsType:
    """The type of a 2-D array parameter ``T A[N][M]`` (or ``T (*A)[M]``): element dtype and
    the row length ``M`` as written (an integer constant expression or, for a C99 variable
    length array parameter, an expression in earlier parameters). For a 3-D array parameter
    ``T A[P][R][C]`` (or ``T (*A)[R][C]``), ``rows`` is ``R`` and ``cols`` is ``C``."""

    elem: DType
    cols: c_ast.Node
    rows: c_ast.Node | None = None


@dataclass(frozen=True)
class Value:
    """A helper-function variable during inlining: bound to an expression (``None`` until
    first assigned)."""

    dtype: DType
    expr: Expr | None


@dataclass(frozen=True)
class Pointer:
    """A kernel pointer walking over one array parameter.

    ``offset`` names the INT local holding its position (``name`` itself for a local
    pointer, a fresh ``name__off`` for a walked array parameter); ``base`` is the array
    parameter it points into, ``None`` until its first assignment.
    """

    name: str
    elem: DType
    ctype: str
    base: str | None
    offset: str


@dataclass(frozen=True)
class Vector:
    """A C++ vector parameter (read-only): the pointer parameter ``name`` holding its
    elements row-major and the INT parameters ``sizes`` (length, or rows and columns)."""

    name: str
    vt: VectorType
    sizes: tuple[str, ...]


@dataclass(frozen=True)
class CxxResult(ResultList):
    """The local vector a C++ kernel returns (a :class:`~tenspiler.frontend.lists.ResultList`
    of rank ``vt.rank``): ``push_back`` stores into the output pointer parameter ``array``
    at index ``length`` (an INT local counting the elements so far) and increments
    ``length``. A ``vector<T>`` local declared in a loop body whose last statement is
    ``into.push_back(name)`` (``into`` a ``vector<vector<T>>``) is a
    :class:`~tenspiler.frontend.lists.ResultRow` of it: its ``push_back`` appends straight
    to the result's elements."""

    vt: VectorType


VectorBinding: TypeAlias = Vector | CxxResult | ResultRow


@dataclass(frozen=True)
class FieldType:
    """A field of a struct parameter's type: a scalar (``rows`` and ``array`` false), a
    ``T **`` field (``rows``) or a ``T *`` field (``array``; ``ctype`` spells ``T`` as
    :attr:`Array.ctype`); ``dtype`` is then the element dtype. ``c_type`` as
    ``Param.c_type``. ``refused``: a field of a struct passed by pointer that is not
    supported, the message to refuse its use with."""

    name: str
    dtype: DType
    rows: bool
    c_type: str
    array: bool = False
    ctype: str = ""
    refused: str | None = None


@dataclass(frozen=True)
class StructType:
    """The type of a struct parameter passed by value (or through a pointer, ``pointer``):
    its C spelling and its fields in declaration order."""

    spelled: str
    fields: tuple[FieldType, ...]
    pointer: bool = False


@dataclass(frozen=True)
class FlatField:
    """A field of a kernel's struct parameter: the flat parameter ``param`` holding it
    (scalar, or the rows of a ``T **`` field flattened row-major) and, for a ``T **``
    field, the INT parameter ``cols`` holding the row length."""

    field: FieldType
    param: str
    cols: str | None


@dataclass(frozen=True)
class FlatStruct:
    """A struct parameter of the kernel, flattened (see :meth:`tenspiler.frontend.c_stmts.Kernel.struct_param`)."""

    name: str
    fields: dict[str, FlatField]
    #: passed as ``T *s`` (fields read with ``->``), else by value (``.``)
    pointer: bool = False
    #: fields not supported (of a struct passed by pointer), with the refusal message
    refused: dict[str, str] = field(default_factory=dict)




@dataclass(frozen=True)
class PtrValue:
    """A lowered pointer expression: element ``base[offset]`` (``offset`` has dtype INT)."""

    base: str
    elem: DType
    ctype: str
    offset: Expr


#: What a name denotes: a pointer parameter of a helper inlined by substitution is bound to
#: the :class:`PtrValue` of its argument (``tenspiler.frontend.c_inline.Unit.call``).
Binding: TypeAlias = Scalar | Array | Pointer | Value | VectorBinding | FlatStruct | PtrValue


@dataclass
class Effects:
    """Pointer side effects of the statement being lowered.

    ``pre`` (from ``*++p``) are emitted before the statement and ``post`` (from ``*p++``)
    after it, in source order; ``modified``/``read`` hold offset locals, to refuse
    unsequenced accesses.
    """

    pre: list[Stmt] = field(default_factory=list)
    post: list[Stmt] = field(default_factory=list)
    modified: set[str] = field(default_factory=set)
    read: set[str] = field(default_factory=set)


@dataclass
class Env:
    """Names visible at a program point.

    ``assigned`` holds the kernel scalars (and pointer offset locals) definitely assigned on
    every path reaching the point (C's view: only these may be read); ``written`` the
    scalars that some if-converted (guarded) loop-IR assignment before the point, in the
    same loop body or outside it, writes -- so that, with ``assigned``, they hold *some*
    value when the IR runs (see
    :meth:`~tenspiler.frontend.common.IfConversion.guarded`); ``inlining`` is the stack of
    helper functions being inlined; ``effects`` collects the pointer increments of the
    current statement (``None`` where side effects are not allowed, e.g. in a ``for``
    header).
    """

    scopes: list[dict[str, Binding]]
    assigned: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    inlining: tuple[str, ...] = ()
    effects: Effects | None = None

    def lookup(self, name: str) -> Binding | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def rebind(self, name: str, binding: Binding) -> None:
        for scope in reversed(self.scopes):
            if name in scope:
                scope[name] = binding
                return
        raise KeyError(name)


# ---------------------------------------------------------------- pycparser nodes


#: The unsigned scalar types of counters and sizes (``Param.c_type`` spellings).
UNSIGNED_SCALARS = {"unsigned int": 32, "unsigned long": 64}


def unsigned_spelling(words: list[str]) -> str | None:
    """``"unsigned int"`` / ``"unsigned long"`` when type specifiers ``words`` (after
    typedef expansion, or the standard names ``uint32_t``, ``uint64_t``, ``size_t``) name
    that LP64 type, else ``None`` (``unsigned char`` / ``short`` are not counters)."""
    ws = [w for w in words if w not in ("const", "volatile", "restrict")]
    if ws == ["uint32_t"]:
        return "unsigned int"
    if ws in (["uint64_t"], ["size_t"]):
        return "unsigned long"
    if "unsigned" not in ws or "char" in ws or "short" in ws:
        return None
    if not set(ws) <= {"unsigned", "int", "long"}:
        return None
    return "unsigned long" if "long" in ws else "unsigned int"


def c_width(node: c_ast.Node) -> str:
    """``"long"`` when the (element) type is a 64-bit integer (``long``, ``long long``,
    ``int64_t``), else ``""`` — the loop IR models both as mathematical integers, but the
    compiled C must be called with the right width."""
    while isinstance(node, c_ast.PtrDecl | c_ast.ArrayDecl | c_ast.TypeDecl):
        node = node.type
    if isinstance(node, c_ast.IdentifierType):
        names = [n for n in node.names if n not in ("const", "volatile", "restrict")]
        unsigned = unsigned_spelling(names)
        if unsigned is not None:
            return unsigned
        if "long" in names or "int64_t" in names:
            return " ".join(names)  # the exact spelling: long and long long differ in C
    return ""


def int_literal(text: str) -> int:
    """The value of a C integer literal (decimal, octal, hexadecimal or binary; suffixes
    ignored)."""
    t = text.rstrip("uUlL")
    low = t.lower()
    if low.startswith("0x"):
        return int(t[2:], 16)
    if low.startswith("0b"):
        return int(t[2:], 2)
    if len(t) > 1 and t.startswith("0"):
        return int(t, 8)
    return int(t)


def float_literal(text: str) -> float:
    """The value of a C floating literal (decimal or hexadecimal; suffixes ignored), as a
    double."""
    t = text.rstrip("fFlL")
    return float.fromhex(t) if t.lower().startswith("0x") else float(t)


def render(node: c_ast.Node) -> str:
    """C source text of ``node`` (for messages)."""
    return str(c_generator.CGenerator().visit(node))


def updated_names(node: c_ast.Node) -> Iterator[str]:
    """Names that ``node`` assigns, increments or decrements as a whole (``x = E``, ``x++``)."""
    match node:
        case c_ast.Assignment(lvalue=c_ast.ID(name=name)):
            yield name
        case c_ast.UnaryOp(op="++" | "--" | "p++" | "p--", expr=c_ast.ID(name=name)):
            yield name
    for _, child in node.children():
        yield from updated_names(child)


def identifiers(node: c_ast.Node) -> Iterator[str]:
    """Every identifier used or declared in ``node``."""
    match node:
        case c_ast.ID(name=name) | c_ast.Decl(name=str(name)):
            yield name
    for _, child in node.children():
        yield from identifiers(child)


def pushes(node: c_ast.Node | None, into: str, row: str) -> bool:
    """Whether ``node`` is the statement ``into.push_back(row);``."""
    return (
        isinstance(node, c_ast.FuncCall)
        and isinstance(node.name, c_ast.StructRef)
        and node.name.type == "."
        and isinstance(node.name.name, c_ast.ID)
        and node.name.name.name == into
        and node.name.field.name == "push_back"
        and node.args is not None
        and len(node.args.exprs) == 1
        and isinstance(node.args.exprs[0], c_ast.ID)
        and node.args.exprs[0].name == row
    )


def is_update(node: c_ast.Node) -> bool:
    """Whether ``node`` is an assignment (``=`` or ``op=``) or an increment / decrement."""
    if isinstance(node, c_ast.Assignment):
        return True
    return isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--")


_NODE_NAMES: dict[type[c_ast.Node], str] = {
    c_ast.While: "while loop",
    c_ast.DoWhile: "do-while loop",
    c_ast.If: "if statement",
    c_ast.Switch: "switch statement",
    c_ast.Goto: "goto statement",
    c_ast.Label: "labelled statement",
    c_ast.Break: "break statement",
    c_ast.Continue: "continue statement",
    c_ast.Case: "case label",
    c_ast.Default: "default label",
    c_ast.Typedef: "typedef",
    c_ast.Pragma: "pragma",
    c_ast.For: "for loop",
    c_ast.Return: "return statement",
    c_ast.Compound: "block",
    c_ast.Decl: "declaration",
    c_ast.FuncCall: "function call",
    c_ast.StaticAssert: "_Static_assert",
    c_ast.InitList: "initialiser list",
    c_ast.CompoundLiteral: "compound literal",
    c_ast.Struct: "struct type",
    c_ast.Union: "union type",
    c_ast.Enum: "enum type",
}


#: Statements refused inside an ``if`` (if-conversion needs straight-line branches).
NOT_IN_IF = (
    c_ast.For,
    c_ast.While,
    c_ast.DoWhile,
    c_ast.Return,
    c_ast.Break,
    c_ast.Continue,
    c_ast.Goto,
    c_ast.Label,
    c_ast.Switch,
    c_ast.Case,
    c_ast.Default,
)


def describe(node: c_ast.Node) -> str:
    """How messages name the construct ``node`` ("while loop", "goto statement" ...)."""
    name = _NODE_NAMES.get(type(node))
    if name is not None:
        return name
    return re.sub(r"(?<!^)(?=[A-Z])", " ", type(node).__name__).lower()
