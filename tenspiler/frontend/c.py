"""C frontend: parse a kernel with pycparser and lower it to the loop IR.

Comments are blanked (keeping every line and column) and the C preprocessor is run
(:mod:`tenspiler.frontend.preprocess`: pcpp, checked against the system ``cpp``;
``#include``/``#pragma`` lines are blanked and the standard headers' constants predefined),
so macros, ``#undef`` and conditionals mean what the compiler sees. Typedefs for ``uint8_t``,
``int8_t``, ``int32_t``, ``int64_t``, ``size_t`` and the other ``<stdint.h>`` names are prepended on one line followed by a
``# 1`` line marker, so every location is the exact ``line:col`` of the user's file.

Before lowering, the kernel and the helpers it calls are typed by C11 §6.3
(:class:`tenspiler.frontend.c_types.TypeGate`): unsigned arithmetic and value-changing
integer conversions (``long`` → ``int``), where the loop IR's integer model would differ
from C, are refused with the rule's name.

Accepted (everything else raises a located :class:`~tenspiler.errors.BadInput`):

* parameters: scalars ``int``/``long``/``signed``/``int32_t``/``int64_t`` (all
  :attr:`DType.INT`, mathematical integers: signed overflow is undefined behaviour in C;
  ``unsigned``, ``short`` and ``size_t`` are refused), ``float``, ``double``,
  ``unsigned char``/``uint8_t``; arrays ``T *p`` / ``T p[]`` of those. ``const`` and
  ``restrict`` are ignored (distinct array parameters are assumed not to alias).
* struct parameters passed by value (``typedef struct matrix { int rows, cols; int **vals;
  } matrix;``, or ``struct tag m``) whose fields are scalars of the types above or ``T **``
  with ``T`` such a scalar: flattened (see :meth:`_Kernel.struct_param` and
  :class:`~tenspiler.loops.ir.StructParam`). A scalar field ``f`` of ``m`` becomes
  the scalar parameter ``m__f`` (``m.f`` reads it); a ``T **`` field ``g`` becomes the
  pointer parameter ``m__g`` holding its rows flattened row-major plus a fresh INT
  parameter ``m__g__cols``, their length (unknown to the kernel, not assumed equal to any
  field: field names are only names). ``m.g[r][c]`` reads and writes (writes go through
  the row pointers: the caller sees them) are ``m__g[r * m__g__cols + c]`` with
  ``Load.row``/``Store.row`` = ``(c, m__g__cols)``. Refused: pointers to and arrays of
  structs, nested struct / single-pointer / array / bit-field fields, ``->``, assigning a
  field, a row pointer or the struct, a row ``m.g[r]`` or ``&m.g[r][c]`` as a value, struct
  locals, struct arguments and parameters of helpers, and struct parameters in C++.
* locals: scalar declarations (with or without initialiser, several declarators).
* pointer walking (see :meth:`_Kernel.pointer_decl`): a local ``T *p`` becomes an INT local
  ``p`` holding an *offset* into one fixed array parameter, its *base*, set by ``p = A``,
  ``p = &A[E]``, ``p = A + E``, ``p = q (+ E)`` (the same array every time, element type
  ``T``). ``*p``/``p[E]``/``*(p + E)`` are ``A[p]``/``A[p + E]``; ``p++``, ``p += E``,
  ``p = p + E``, ... assign the offset; ``*p++`` / ``*++p`` read or write ``A[p]`` and
  increment ``p`` after / before the statement (C sequencing), and a statement that
  modifies a pointer twice, or reads and modifies it other than by its own ``*p++``, is
  refused as unsequenced. An array *parameter* that the body updates (``a++``, ``a += 2``)
  walks the same way with a fresh offset local ``a__off`` initialised to 0. Pointer
  comparisons and differences, pointers to pointers, pointer casts and pointers escaping
  (as numbers, helper arguments or return values) are refused.
* counted ``for`` loops ``for (i = E0; i < E1; i++)`` (also ``int i = E0``, ``i <= E1``,
  ``E1 > i``, ``E1 >= i``, ``++i``, ``i += 1``, ``i = i + 1``) with ``i`` a local int
  that the body does not assign and ``E1`` not reading anything the body writes.
* statements ``x = E``, ``a[E] = E``, compound ``op=`` for ``+ - * / %``, ``x++``/``x--``
  (also on array elements), a final ``return E;``/``return;``, empty statements, blocks,
  and ``if``/``else`` (see *if-conversion* below).
* expressions: integer and floating literals, scalar variables, ``a[E]``, unary ``-``/``+``,
  binary ``+ - * / %``, casts to the scalar types above, ``C ? E1 : E2`` (a
  :class:`~tenspiler.loops.ir.Select` whose branches are converted to their usual
  arithmetic conversion), comparisons ``< <= > >= == !=``, ``&&``, ``||`` and ``!`` (as
  values they are ``Select(cond, 1, 0)`` of type int, as in C), and calls to helper
  functions of the same file whose body only declares/assigns scalars and ends with
  ``return E;`` (inlined by substitution; helper parameters must be scalars), e.g.
  ``static int max(int a, int b) { return a > b ? a : b; }``. ``fmaxf``, ``fmin``, ``max``
  and the like are not C builtins: they are refused unless defined as such helpers.
* conditions (of ``if``, ``?:``, ``&&``, ``||``, ``!``): a comparison is a
  :class:`~tenspiler.loops.ir.Compare` on operands converted to their common dtype;
  any other scalar ``E`` means ``E != 0``. Pointer increments (``*p++``) in a ``?:`` branch
  or the right operand of ``&&``/``||`` (evaluated only sometimes) are refused; comparing
  pointers or using a pointer as a condition is refused.

If-conversion: ``if (C) S1 else S2`` (``else`` optional, ``else if`` chains, nesting), whose
branches contain only assignments, stores, compound assignments, ``++``/``--``,
declarations, blocks and nested ``if`` (a loop, ``return``, ``break``, ``continue``,
``goto``, label or ``switch`` inside is refused: "<construct> inside if is not supported"),
becomes straight-line code. ``C`` is evaluated once, before the branches, into a fresh INT
local ``__ifK = C ? 1 : 0`` (named to avoid the function's identifiers; listed in
``Function.locals``); every then-statement is guarded by ``__ifK != 0`` and every
else-statement by ``__ifK == 0``, conjoined (``&&``) with the guards of enclosing ``if``
statements (whose own ``__ifK`` assignment is guarded by them too). Under a guard ``g``,
``x = E`` becomes ``x = g ? E : x`` and ``a[I] = E`` becomes ``a[I] = g ? E : a[I]``
(compound assignments and pointer increments after desugaring). A ``Select`` evaluates only
its chosen branch, so ``E`` is not evaluated when ``g`` is false (``if (d) q = n / d;`` is
safe); a guarded store ``a[I] = g ? E : a[I]`` with ``g`` false writes back the element it
read, which the loop-IR interpreter skips entirely (so an ``if`` protecting an index,
``if (i > 0) a[i - 1] = 0;``, stays in bounds; in SMT the write-back is the identity on the
array). Definite assignment: a scalar is
assigned after the ``if`` only if it was before or both branches assign it. Rule for
scalars that hold no value yet: a guarded ``x = E`` with ``x`` not assigned on every path
before it and not written by an earlier guarded statement becomes ``x = g ? E : 0`` (see
:meth:`_Kernel.guarded`), so the IR never reads an unassigned variable, and any later read
of ``x`` that could see the ``0`` is refused as "'x' may be used uninitialised".

C's usual arithmetic conversions and integer promotion are made explicit with
:class:`~tenspiler.loops.ir.Cast` nodes; conversions of literals are folded with
:func:`tenspiler.ir.semantics.py_cast`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NoReturn, TypeAlias, TypeVar

import numpy as np
from pycparser import c_ast, c_generator, c_parser

from tenspiler.errors import BadInput, SourceLoc
from tenspiler.frontend.c_types import TypeGate
from tenspiler.frontend.common import (
    IfConversion,
    convert,
    entry_values,
    read_source,
    vars_read,
    writes,
)
from tenspiler.frontend.cxx import VectorType, rewrite_cxx
from tenspiler.frontend.cxx import prelude as cxx_prelude
from tenspiler.frontend.preprocess import char_is_signed, preprocess
from tenspiler.ir.semantics import py_cast
from tenspiler.loops.ir import (
    MATH_FUNCTIONS,
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
    Return,
    ScalarType,
    Select,
    Stmt,
    Store,
    StructField,
    StructParam,
    Type,
    Unary,
    Var,
    VectorParam,
    VectorResult,
)

__all__ = ["parse_c_file", "parse_c_source"]

_T = TypeVar("_T")


# ---------------------------------------------------------------- public API


def parse_c_file(path: str | Path, function: str | None = None) -> Function:
    """Parse the C file at ``path`` and lower one of its functions to the loop IR.

    Args:
        path: a C source file (not preprocessed; see the module docstring).
        function: name of the kernel; default: the last non-``static`` function defined
            (with a body) in the file.

    Returns:
        The kernel as a :class:`~tenspiler.loops.ir.Function` whose locations name
        ``str(path)``.

    Raises:
        BadInput: unreadable file, syntax error, unknown ``function``, or any construct
            outside the accepted subset; the message is ``file:line:col: what``.
    """
    text = read_source(path)
    return parse_c_source(text, str(path), function, cxx=Path(path).suffix.lower() in CXX_SUFFIXES)


#: File suffixes read as the C++ ``std::vector`` subset (:mod:`tenspiler.frontend.cxx`).
CXX_SUFFIXES = (".cc", ".cpp", ".cxx", ".c++")


def parse_c_source(
    text: str, filename: str = "<string>", function: str | None = None, *, cxx: bool = False
) -> Function:
    """Parse C source ``text`` and lower one of its functions to the loop IR.

    Same contract as :func:`parse_c_file`; ``filename`` is only used in locations and
    messages. ``cxx``: read the C++ ``std::vector`` subset (see
    :mod:`tenspiler.frontend.cxx`); the result then has ``Function.cxx`` set.
    """
    text = text.replace("\r\n", "\n")
    prepared = _prepare(text, filename)
    vectors: dict[str, VectorType] = {}
    head = " ".join(f"typedef {c} {n};" for n, c in _PRELUDE_TYPEDEFS)
    n_head = len(_PRELUDE_TYPEDEFS)
    if cxx:
        prepared, vectors = rewrite_cxx(prepared, filename)
        decls, n = cxx_prelude(vectors)
        head, n_head = f"{head} {decls}", n_head + n
    parser = c_parser.CParser()
    try:
        ast = parser.parse(head + "\n# 1\n" + prepared, filename)
    except c_parser.ParseError as e:
        raise _syntax_error(str(e), parser, filename, text) from None
    unit = _Unit(filename, text, vectors, cxx)
    return unit.lower(ast.ext[n_head:], function)


# ---------------------------------------------------------------- text preparation

#: Typedefs made known to pycparser; prepended on one line followed by a ``# 1`` marker.
_PRELUDE_TYPEDEFS: tuple[tuple[str, str], ...] = (
    ("uint8_t", "unsigned char"),
    ("int8_t", "signed char"),
    ("int32_t", "int"),
    ("int64_t", "long"),
    ("size_t", "unsigned long"),
    ("int16_t", "short"),
    ("uint16_t", "unsigned short"),
    ("uint32_t", "unsigned int"),
    ("uint64_t", "unsigned long"),
    ("ptrdiff_t", "long"),
)

#: What the prelude typedef names mean (``None``: refused when used).
_BUILTIN_TYPEDEFS: dict[str, DType | None] = {
    "uint8_t": DType.UINT8,
    "int8_t": None,
    "int32_t": DType.INT,
    "int64_t": DType.INT,
    "size_t": None,  # unsigned: wraps modulo 2^64, not modelled
    "int16_t": None,  # stores into short narrow
    "uint16_t": None,
    "uint32_t": None,  # unsigned arithmetic wraps
    "uint64_t": None,
    "ptrdiff_t": None,  # (a long; not needed by kernels)
}

def _prepare(text: str, filename: str) -> str:
    """Blank comments (keeping every line and column), then run the C preprocessor
    (:func:`tenspiler.frontend.preprocess.preprocess`: ``#include``/``#pragma`` blanked,
    macros and conditionals executed, checked against the system ``cpp``)."""
    return preprocess(_blank_comments(text, filename), filename)


def _blank_comments(text: str, filename: str) -> str:
    """Replace ``/* */`` and ``//`` comments by spaces, keeping newlines."""
    out = list(text)
    i, n = 0, len(text)
    line, line_start = 1, 0
    while i < n:
        c = text[i]
        if c == "\n":
            line, line_start = line + 1, i + 1
            i += 1
        elif c in "\"'":
            i += 1
            while i < n and text[i] != c and text[i] != "\n":
                i += 2 if text[i] == "\\" else 1
            i += 1
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out[i] = " "
                    i += 1  # continued comment: keep the newline
                    line, line_start = line + 1, i + 1
                else:
                    out[i] = " "
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise BadInput(
                    "unterminated comment", SourceLoc(filename, line, i - line_start + 1)
                )
            for j in range(i, end + 2):
                if text[j] == "\n":
                    line, line_start = line + 1, j + 1
                else:
                    out[j] = " "
            i = end + 2
        else:
            i += 1
    return "".join(out)


_PARSE_ERROR_RE = re.compile(r"(\d+)(?::(\d+))?: (.*)", re.DOTALL)


def _syntax_error(msg: str, parser: c_parser.CParser, filename: str, text: str) -> BadInput:
    """Turn a pycparser ``ParseError`` message into a located :class:`BadInput`."""
    body = msg[len(filename) + 1 :] if msg.startswith(filename + ":") else msg
    m = _PARSE_ERROR_RE.fullmatch(body)
    if m is not None:
        loc = SourceLoc(filename, int(m.group(1)), int(m.group(2) or 1))
        what = m.group(3)
    else:
        what = body.strip()
        loc = _current_token_loc(parser, filename) or _end_loc(filename, text)
    if what.startswith("before: "):
        return BadInput(f"syntax error before '{what[len('before: ') :]}'", loc)
    if what == "At end of input":
        return BadInput("syntax error: unexpected end of input", _end_loc(filename, text))
    return BadInput(f"syntax error: {what}", loc)


def _current_token_loc(parser: c_parser.CParser, filename: str) -> SourceLoc | None:
    """Location of the token pycparser was looking at (its messages sometimes lack one)."""
    try:
        stream = parser._tokens  # private, hence the defensive access
        tok = stream._buffer[stream._index]
    except (AttributeError, IndexError):
        return None
    if tok is None:
        return None
    return SourceLoc(filename, tok.lineno, tok.column)


def _end_loc(filename: str, text: str) -> SourceLoc:
    lines = text.rstrip("\n").split("\n")
    return SourceLoc(filename, len(lines), len(lines[-1]) + 1)


# ---------------------------------------------------------------- name bindings


@dataclass(frozen=True)
class _Scalar:
    """A kernel variable (parameter or local) of scalar type."""

    dtype: DType


@dataclass(frozen=True)
class _Array:
    """A pointer/array parameter of the kernel; ``ctype`` spells its element type (see
    :meth:`_Unit.elem_ctype`)."""

    elem: DType
    ctype: str


@dataclass(frozen=True)
class _Value:
    """A helper-function variable during inlining: bound to an expression (``None`` until
    first assigned)."""

    dtype: DType
    expr: Expr | None


@dataclass(frozen=True)
class _Pointer:
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
class _Vector:
    """A C++ vector parameter (read-only): the pointer parameter ``name`` holding its
    elements row-major and the INT parameters ``sizes`` (length, or rows and columns)."""

    name: str
    vt: VectorType
    sizes: tuple[str, ...]


@dataclass(frozen=True)
class _Result:
    """The local vector a C++ kernel returns: ``push_back`` stores into the output pointer
    parameter ``array`` at index ``length`` (an INT local counting the elements so far)
    and increments ``length``."""

    name: str
    vt: VectorType
    array: str
    length: str


@dataclass(frozen=True)
class _Row:
    """A ``vector<T>`` local declared in a loop body whose last statement is
    ``into.push_back(name)`` (``into`` a ``vector<vector<T>>`` :class:`_Result`): its
    ``push_back`` appends straight to the result's elements. ``depth`` is the number of
    loops around the declaration; ``last`` the ``push_back`` statement."""

    name: str
    vt: VectorType
    into: str
    depth: int
    last: c_ast.Node


_VectorBinding: TypeAlias = _Vector | _Result | _Row


@dataclass(frozen=True)
class _FieldType:
    """A field of a struct parameter's type: a scalar (``rows is False``) or a ``T **``
    field (``rows``; ``dtype`` is then the element dtype). ``c_type`` as ``Param.c_type``."""

    name: str
    dtype: DType
    rows: bool
    c_type: str


@dataclass(frozen=True)
class _StructType:
    """The type of a struct parameter passed by value: its C spelling and its fields in
    declaration order."""

    spelled: str
    fields: tuple[_FieldType, ...]


@dataclass(frozen=True)
class _StructField:
    """A field of a kernel's struct parameter: the flat parameter ``param`` holding it
    (scalar, or the rows of a ``T **`` field flattened row-major) and, for a ``T **``
    field, the INT parameter ``cols`` holding the row length."""

    field: _FieldType
    param: str
    cols: str | None


@dataclass(frozen=True)
class _Struct:
    """A struct parameter of the kernel, flattened (see :meth:`_Kernel.struct_param`)."""

    name: str
    fields: dict[str, _StructField]


_Binding: TypeAlias = _Scalar | _Array | _Pointer | _Value | _VectorBinding | _Struct


@dataclass(frozen=True)
class _PtrValue:
    """A lowered pointer expression: element ``base[offset]`` (``offset`` has dtype INT)."""

    base: str
    elem: DType
    ctype: str
    offset: Expr


@dataclass
class _Effects:
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
class _Env:
    """Names visible at a program point.

    ``assigned`` holds the kernel scalars (and pointer offset locals) definitely assigned on
    every path reaching the point (C's view: only these may be read); ``written`` the
    scalars that some if-converted (guarded) loop-IR assignment before the point, in the
    same loop body or outside it, writes -- so that, with ``assigned``, they hold *some*
    value when the IR runs (see :meth:`_Kernel.guarded`); ``inlining`` is the stack of
    helper functions being inlined; ``effects`` collects the pointer increments of the
    current statement (``None`` where side effects are not allowed, e.g. in a ``for``
    header).
    """

    scopes: list[dict[str, _Binding]]
    assigned: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    inlining: tuple[str, ...] = ()
    effects: _Effects | None = None

    def lookup(self, name: str) -> _Binding | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def rebind(self, name: str, binding: _Binding) -> None:
        for scope in reversed(self.scopes):
            if name in scope:
                scope[name] = binding
                return
        raise KeyError(name)


# ---------------------------------------------------------------- type helpers

_INT_WORDS = frozenset({"int", "long", "short", "signed", "unsigned"})
_BINOPS: dict[str, BinOpName] = {"+": "+", "-": "-", "*": "*", "/": "/", "%": "%"}
_COMPARISONS: dict[str, CmpOpName] = {
    "<": "<",
    ">": ">",
    "<=": "<=",
    ">=": ">=",
    "==": "==",
    "!=": "!=",
}
_BITWISE = frozenset({"&", "|", "^", "<<", ">>", "~"})
_COMPOUND_OPS: dict[str, BinOpName] = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "%=": "%"}


def _common_dtype(a: DType, b: DType) -> DType:
    """C's usual arithmetic conversions (C11 §6.3.1.8) in our type model."""
    if DType.DOUBLE in (a, b):
        return DType.DOUBLE
    if DType.FLOAT in (a, b):
        return DType.FLOAT
    return DType.INT  # integer promotion: uint8 → int


def _promote(d: DType) -> DType:
    return DType.INT if d == DType.UINT8 else d


def _plus_one(e: Expr, loc: SourceLoc | None) -> Expr:
    """``e + 1`` for an inclusive bound, folding ``x - c + 1`` to ``x - (c - 1)`` (exact on
    the integers) so that ``i <= n - 1`` reads as ``i < n``."""
    match e:
        case Binary("-", x, Const(c), DType.INT) if isinstance(c, int) and c >= 1:
            return x if c == 1 else Binary("-", x, Const(c - 1, DType.INT, loc), DType.INT, e.loc)
        case Const(c, DType.INT) if isinstance(c, int):
            return Const(c + 1, DType.INT, loc)
        case _:
            return Binary("+", e, Const(1, DType.INT, loc), DType.INT, loc)


def _c_width(node: c_ast.Node) -> str:
    """``"long"`` when the (element) type is a 64-bit integer (``long``, ``long long``,
    ``int64_t``), else ``""`` — the loop IR models both as mathematical integers, but the
    compiled C must be called with the right width."""
    while isinstance(node, c_ast.PtrDecl | c_ast.ArrayDecl | c_ast.TypeDecl):
        node = node.type
    if isinstance(node, c_ast.IdentifierType):
        names = [n for n in node.names if n not in ("const", "volatile", "restrict")]
        if "long" in names or "int64_t" in names:
            return " ".join(names)  # the exact spelling: long and long long differ in C
    return ""


def _int_literal(text: str) -> int:
    t = text.rstrip("uUlL")
    low = t.lower()
    if low.startswith("0x"):
        return int(t[2:], 16)
    if low.startswith("0b"):
        return int(t[2:], 2)
    if len(t) > 1 and t.startswith("0"):
        return int(t, 8)
    return int(t)


def _float_literal(text: str) -> float:
    t = text.rstrip("fFlL")
    return float.fromhex(t) if t.lower().startswith("0x") else float(t)


def _render(node: c_ast.Node) -> str:
    return str(c_generator.CGenerator().visit(node))


def _offset_plus(offset: Expr, delta: Expr, op: BinOpName, loc: SourceLoc | None) -> Expr:
    """``offset op delta`` on INT offsets, dropping a literal 0 (so ``A[i]`` stays ``i``)."""
    zero = Const(0, DType.INT)
    if delta == zero:
        return offset
    if op == "+" and offset == zero:
        return delta
    return Binary(op, offset, delta, DType.INT, loc)


def _updated_names(node: c_ast.Node) -> Iterator[str]:
    """Names that ``node`` assigns, increments or decrements as a whole (``x = E``, ``x++``)."""
    match node:
        case c_ast.Assignment(lvalue=c_ast.ID(name=name)):
            yield name
        case c_ast.UnaryOp(op="++" | "--" | "p++" | "p--", expr=c_ast.ID(name=name)):
            yield name
    for _, child in node.children():
        yield from _updated_names(child)


def _identifiers(node: c_ast.Node) -> Iterator[str]:
    """Every identifier used or declared in ``node``."""
    match node:
        case c_ast.ID(name=name) | c_ast.Decl(name=str(name)):
            yield name
    for _, child in node.children():
        yield from _identifiers(child)


# ---------------------------------------------------------------- lowering


class _Unit:
    """One translation unit: its helper functions, typedefs and macro names."""

    def __init__(
        self,
        filename: str,
        text: str,
        vectors: dict[str, VectorType] | None = None,
        cxx: bool = False,
    ) -> None:
        self.filename = filename
        self.text = text
        #: C++ only: vector typedef names (see :mod:`tenspiler.frontend.cxx`).
        self.vectors = vectors or {}
        self.cxx = cxx
        self.funcdefs: dict[str, c_ast.FuncDef] = {}
        self.prototypes: set[str] = set()
        self.typedefs: dict[str, c_ast.Node] = {}
        #: Struct definitions (with their fields) by tag.
        self.structs: dict[str, c_ast.Struct] = {}

    # ----------------------------------------------------------- errors and locations

    def loc(self, node: c_ast.Node | None) -> SourceLoc | None:
        coord = getattr(node, "coord", None)
        if coord is None:
            return None
        return SourceLoc(self.filename, coord.line, coord.column or 1)

    def fail(self, message: str, node: c_ast.Node | None) -> NoReturn:
        raise BadInput(message, self.loc(node) or SourceLoc(self.filename, 1, 1))

    # ----------------------------------------------------------- top level

    def lower(self, ext: list[c_ast.Node], function: str | None) -> Function:
        order: list[str] = []
        for node in ext:
            if isinstance(node, c_ast.FuncDef):
                name = node.decl.name
                if name in self.funcdefs:
                    self.fail(f"function '{name}' is defined twice", node)
                self.funcdefs[name] = node
                order.append(name)
            elif isinstance(node, c_ast.Typedef):
                self.typedefs[node.name] = node.type
                self.note_structs(node.type)
            elif isinstance(node, c_ast.Decl):
                if isinstance(node.type, c_ast.FuncDecl):
                    self.prototypes.add(node.name)
                elif node.name is None and isinstance(
                    node.type, c_ast.Struct | c_ast.Union | c_ast.Enum
                ):
                    self.note_structs(node.type)
                    continue  # a type declaration; refused where the type is used
                else:
                    self.fail("global variables are not supported", node)
            else:
                self.fail(f"top-level {_describe(node)} is not supported", node)

        first_line = SourceLoc(self.filename, 1, 1)
        if function is not None:
            if function not in self.funcdefs:
                defined = ", ".join(order) if order else "(none)"
                raise BadInput(
                    f"function '{function}' is not defined in {self.filename}; defined: {defined}",
                    first_line,
                )
            chosen = self.funcdefs[function]
        else:
            public = [n for n in order if "static" not in self.funcdefs[n].decl.storage]
            if not public:
                raise BadInput(f"no non-static function is defined in {self.filename}", first_line)
            chosen = self.funcdefs[public[-1]]
        self.type_gate().check_function(chosen)
        return _Kernel(self, chosen).lower()

    def type_gate(self) -> TypeGate:
        """The C11 typing of this unit (:mod:`tenspiler.frontend.c_types`)."""

        def fields(ty: c_ast.Node) -> list[c_ast.Decl] | None:
            st = self.struct_of(ty)
            return list(st.decls) if st is not None and st.decls is not None else None

        def vector(ty: c_ast.Node) -> tuple[list[str], int] | None:
            vt = self.vector_type(ty)
            return ([vt.elem], vt.rank) if vt is not None else None

        return TypeGate(
            self.filename, self.resolve_typedefs, fields, vector, self.funcdefs,
            char_signed=char_is_signed(),
        )

    # ----------------------------------------------------------- types

    def note_structs(self, ty: c_ast.Node) -> None:
        """Record the struct definitions (``struct tag { ... }``) in type node ``ty``."""
        while isinstance(ty, c_ast.TypeDecl | c_ast.PtrDecl | c_ast.ArrayDecl):
            ty = ty.type
        if isinstance(ty, c_ast.Struct) and ty.name is not None and ty.decls is not None:
            self.structs[ty.name] = ty

    def struct_of(self, ty: c_ast.Node) -> c_ast.Struct | None:
        """The struct named by type node ``ty`` (a typedef name or ``struct tag``), with its
        fields when the file defines them; ``None`` if ``ty`` is not a struct type (nor a
        C++ vector, whose typedef names are incomplete structs)."""
        ty = self.resolve_typedefs(ty)
        if self.vector_type(ty) is not None:
            return None
        if not (isinstance(ty, c_ast.TypeDecl) and isinstance(ty.type, c_ast.Struct)):
            return None
        st = ty.type
        if st.decls is None and st.name is not None:
            return self.structs.get(st.name, st)
        return st

    def struct_type(self, decl: c_ast.Decl, st: c_ast.Struct) -> _StructType:
        """The type of struct parameter ``decl``: only scalar fields and ``T **`` fields
        (``T`` scalar) are supported (see the module docstring)."""
        what = f"struct parameter '{decl.name}'"
        written = decl.type
        if isinstance(written, c_ast.TypeDecl):
            self._check_quals(written.quals, decl)
        match written:
            case c_ast.TypeDecl(type=c_ast.IdentifierType(names=[name])):
                spelled = name
            case c_ast.TypeDecl(type=c_ast.Struct(name=str(tag))):
                spelled = f"struct {tag}"
            case _:
                self.fail(f"{what}: a struct type defined in the parameter list is not supported", decl)
        if st.decls is None:
            self.fail(f"{what} of incomplete type '{spelled}' is not supported", decl)
        if self.cxx:
            self.fail(f"{what} is not supported in the C++ subset", decl)
        fields: list[_FieldType] = []
        for f in st.decls:
            if not isinstance(f, c_ast.Decl) or f.name is None:
                self.fail(f"unnamed member of '{spelled}' is not supported", f)
            fwhat = f"field '{f.name}' of {what}"
            if f.bitsize is not None:
                self.fail(f"bit-field '{f.name}' of {what} is not supported", f)
            fty = self.resolve_typedefs(f.type)
            if self.struct_of(fty) is not None or (
                isinstance(fty, c_ast.TypeDecl) and isinstance(fty.type, c_ast.Union)
            ):
                self.fail(f"nested struct {fwhat} is not supported", f)
            if isinstance(fty, c_ast.ArrayDecl):
                self.fail(f"array {fwhat} is not supported", f)
            if isinstance(fty, c_ast.PtrDecl):
                inner = self.resolve_typedefs(fty.type)
                elem_ty = self.resolve_typedefs(inner.type) if isinstance(inner, c_ast.PtrDecl) else None
                if not isinstance(inner, c_ast.PtrDecl) or not isinstance(elem_ty, c_ast.TypeDecl) or (
                    self.struct_of(elem_ty) is not None
                ):
                    self.fail(
                        f"pointer {fwhat} is not supported (only scalar fields and 'T **' "
                        "fields with T a scalar type)",
                        f,
                    )
                self._check_quals(fty.quals, f)
                self._check_quals(inner.quals, f)
                elem = self.scalar_dtype(inner.type, fwhat, f)
                if elem is None:
                    self.fail(f"void pointer {fwhat} is not supported", f)
                fields.append(_FieldType(f.name, elem, True, _c_width(f.type)))
                continue
            dtype = self.scalar_dtype(f.type, fwhat, f)
            if dtype is None:
                self.fail(f"void {fwhat} is not supported", f)
            fields.append(_FieldType(f.name, dtype, False, _c_width(f.type)))
        if not fields:
            self.fail(f"{what} without fields is not supported", decl)
        return _StructType(spelled, tuple(fields))

    def resolve_typedefs(self, ty: c_ast.Node) -> c_ast.Node:
        """Expand a user typedef name (``typedef float real;``) to its type node."""
        seen: set[str] = set()
        while (
            isinstance(ty, c_ast.TypeDecl)
            and isinstance(ty.type, c_ast.IdentifierType)
            and len(ty.type.names) == 1
            and ty.type.names[0] in self.typedefs
            and ty.type.names[0] not in seen
        ):
            seen.add(ty.type.names[0])
            ty = self.typedefs[ty.type.names[0]]
        return ty

    def vector_type(self, ty: c_ast.Node) -> VectorType | None:
        """The C++ vector type named by type node ``ty`` (``const`` allowed), if any."""
        if (
            isinstance(ty, c_ast.TypeDecl)
            and isinstance(ty.type, c_ast.IdentifierType)
            and len(ty.type.names) == 1
        ):
            return self.vectors.get(ty.type.names[0])
        return None

    def scalar_dtype(self, ty: c_ast.Node, what: str, at: c_ast.Node | None = None) -> DType | None:
        """DType of a scalar type node; ``None`` for ``void``.

        ``what`` names the use in messages; errors are located at ``at`` (default: the
        type as written, before typedef expansion).
        """
        at = at if at is not None else ty
        ty = self.resolve_typedefs(ty)
        vt = self.vector_type(ty)
        if vt is not None:
            self.fail(f"{vt.spelled} for {what} is not supported", at)
        match ty:
            case c_ast.TypeDecl(type=inner, quals=quals):
                self._check_quals(quals, at)
                return self._base_dtype(inner, what, at if at is not ty else inner)
            case c_ast.PtrDecl() | c_ast.ArrayDecl():
                self.fail(f"pointer type for {what} is not supported", at)
            case c_ast.FuncDecl():
                self.fail(f"function type for {what} is not supported", at)
            case _:
                self.fail(f"{_describe(ty)} for {what} is not supported", at)

    def _check_quals(self, quals: list[str], at: c_ast.Node) -> None:
        for q in quals:
            if q not in ("const", "restrict"):
                self.fail(f"'{q}' qualifier is not supported", at)

    def _base_dtype(self, inner: c_ast.Node, what: str, at: c_ast.Node) -> DType | None:
        match inner:
            case c_ast.IdentifierType(names=names):
                words = list(names)
            case c_ast.Struct():
                self.fail("struct types are not supported", at)
            case c_ast.Union():
                self.fail("union types are not supported", at)
            case c_ast.Enum():
                self.fail("enum types are not supported", at)
            case _:
                self.fail(f"{_describe(inner)} for {what} is not supported", at)
        spelled = " ".join(words)
        if len(words) == 1 and words[0] in _BUILTIN_TYPEDEFS:
            dtype = _BUILTIN_TYPEDEFS[words[0]]
            if dtype is None:
                self.fail(f"type '{spelled}' is not supported", at)
            return dtype
        if words == ["void"]:
            return None
        if words == ["float"]:
            return DType.FLOAT
        if words == ["double"]:
            return DType.DOUBLE
        if sorted(words) == ["char", "unsigned"]:
            return DType.UINT8
        if "unsigned" in words or "short" in words:
            # unsigned arithmetic wraps and stores into short are implementation-defined:
            # modelling either as mathematical integers would be unsound.
            self.fail(f"type '{spelled}' is not supported (only signed int/long, whose overflow is undefined behaviour, are modelled as integers)", at)
        if words and set(words) <= _INT_WORDS:
            return DType.INT
        self.fail(f"type '{spelled}' is not supported", at)

    def param_type(self, decl: c_ast.Decl) -> Type | VectorType | _StructType:
        ty = self.resolve_typedefs(decl.type)
        what = f"parameter '{decl.name}'"
        vt = self.vector_type(ty)
        if vt is not None:
            assert isinstance(ty, c_ast.TypeDecl)
            self._check_quals(ty.quals, decl)
            return vt
        st = self.struct_of(ty)
        if st is not None:
            return self.struct_type(decl, st)
        if isinstance(ty, c_ast.PtrDecl | c_ast.ArrayDecl):
            if isinstance(ty, c_ast.PtrDecl):
                self._check_quals(ty.quals, ty)
            elem_ty = self.resolve_typedefs(ty.type)
            if self.struct_of(elem_ty) is not None:
                kind = "pointer to struct" if isinstance(ty, c_ast.PtrDecl) else "array of struct"
                self.fail(f"{kind} {what} is not supported (structs are supported passed by value)", decl)
            if isinstance(elem_ty, c_ast.PtrDecl):
                self.fail(f"pointer-to-pointer {what} is not supported", decl)
            if isinstance(elem_ty, c_ast.ArrayDecl):
                self.fail(f"multi-dimensional array {what} is not supported", decl)
            if isinstance(elem_ty, c_ast.FuncDecl):
                self.fail(f"function pointer {what} is not supported", decl)
            elem = self.scalar_dtype(ty.type, what, decl)
            if elem is None:
                self.fail(f"void pointer {what} is not supported", decl)
            return PointerType(elem)
        dtype = self.scalar_dtype(decl.type, what, decl)
        if dtype is None:
            self.fail(f"void {what} is not supported", decl)
        return ScalarType(dtype)

    def params_of(
        self, fdef: c_ast.FuncDef
    ) -> list[tuple[c_ast.Decl, Type | VectorType | _StructType]]:
        fname = fdef.decl.name
        if fdef.param_decls:
            self.fail(f"K&R-style definition of '{fname}' is not supported", fdef)
        fdecl = fdef.decl.type
        args = fdecl.args.params if fdecl.args is not None else []
        if (
            len(args) == 1
            and isinstance(args[0], c_ast.Typename)
            and self.scalar_dtype(args[0].type, "parameter") is None
        ):
            return []  # f(void)
        out: list[tuple[c_ast.Decl, Type | VectorType | _StructType]] = []
        for a in args:
            if isinstance(a, c_ast.EllipsisParam):
                self.fail(f"variadic function '{fname}' is not supported", a)
            if not isinstance(a, c_ast.Decl) or a.name is None:
                self.fail(f"unnamed parameter of '{fname}' is not supported", a)
            if any(o.name == a.name for o, _ in out):
                self.fail(f"duplicate parameter '{a.name}'", a)
            out.append((a, self.param_type(a)))
        return out

    def return_dtype(self, fdef: c_ast.FuncDef) -> DType | None:
        return self.scalar_dtype(fdef.decl.type.type, f"return type of '{fdef.decl.name}'")

    # ----------------------------------------------------------- expressions

    def expr(self, node: c_ast.Node, env: _Env) -> Expr:
        """Lower a side-effect-free C expression."""
        loc = self.loc(node)
        match node:
            case c_ast.Constant(type=ctype, value=text):
                if "char" in ctype:
                    self.fail("character literal is not supported", node)
                if ctype == "string":
                    self.fail("string literal is not supported", node)
                if "long double" in ctype:
                    self.fail("long double literal is not supported", node)
                if "double" in ctype:
                    return Const(_float_literal(text), DType.DOUBLE, loc)
                if "float" in ctype:
                    # the value C gives the literal: the nearest float (C11 §6.4.4.2p3-4)
                    return Const(float(np.float32(_float_literal(text))), DType.FLOAT, loc)
                return Const(_int_literal(text), DType.INT, loc)
            case c_ast.ID(name=name):
                return self.read_var(name, node, env)
            case c_ast.ArrayRef():
                vector_load = self.vector_load(node, env)
                if vector_load is not None:
                    return vector_load
                cell = self.struct_element(node, env)
                if cell is not None:
                    array, elem, idx, row = cell
                    return Load(array, idx, elem, loc, row)
                array, elem, idx = self.element(node, env)
                return Load(array, idx, elem, loc)
            case c_ast.UnaryOp(op=op, expr=operand):
                return self._unary(op, operand, node, env)
            case c_ast.BinaryOp(op=op, left=left, right=right):
                left_ptr, right_ptr = self.is_pointer(left, env), self.is_pointer(right, env)
                if op in _BINOPS:
                    if op == "-" and left_ptr and right_ptr:
                        self.fail(f"pointer difference '{_render(node)}' is not supported", node)
                    if left_ptr or right_ptr:
                        self.fail(
                            f"pointer value '{_render(node)}' used as a number is not supported",
                            node,
                        )
                    return self.binary(
                        _BINOPS[op], self.expr(left, env), self.expr(right, env), node
                    )
                if op in _COMPARISONS or op in ("&&", "||"):
                    return self.cond_value(node, env)
                if op in _BITWISE:
                    self.fail(f"bitwise operator '{op}' is not supported", node)
                self.fail(f"operator '{op}' is not supported", node)
            case c_ast.Cast(to_type=to_type, expr=operand):
                dtype = self.scalar_dtype(to_type.type, "a cast")
                if dtype is None:
                    self.fail("cast to void is not supported", node)
                inner = self.expr(operand, env)
                if inner.dtype == dtype:
                    return inner
                if isinstance(inner, Const):
                    return Const(py_cast(inner.value, dtype), dtype, loc)
                return Cast(inner, dtype, loc)
            case c_ast.FuncCall(name=c_ast.StructRef()):
                return self.member_value(node, env)
            case c_ast.FuncCall():
                return self.call(node, env)
            case c_ast.TernaryOp(cond=cond, iftrue=iftrue, iffalse=iffalse):
                c = self.cond(cond, env)
                then = self.conditionally(iftrue, env, self.expr)
                else_ = self.conditionally(iffalse, env, self.expr)
                dtype = _common_dtype(then.dtype, else_.dtype)
                return Select(c, convert(then, dtype), convert(else_, dtype), dtype, loc)
            case c_ast.Assignment():
                self.fail("assignment inside an expression is not supported", node)
            case c_ast.ExprList():
                self.fail("comma operator is not supported", node)
            case c_ast.StructRef():
                return self.struct_value(node, env)
            case _:
                self.fail(f"{_describe(node)} is not supported", node)

    def _unary(self, op: str, operand: c_ast.Node, node: c_ast.Node, env: _Env) -> Expr:
        if op in ("-", "+"):
            x = self.expr(operand, env)
            dtype = _promote(x.dtype)
            x = convert(x, dtype)
            if op == "-" and isinstance(x, Const):
                # a negative literal is a constant (negation is exact): later conversions
                # fold on it, so `float m = -0.1;` holds float(-0.1) as C does, not the double
                return Const(-x.value, dtype, self.loc(node))
            return Unary("-", x, dtype, self.loc(node)) if op == "-" else x
        if op == "&":
            if self.is_pointer(operand, env):
                self.fail(f"pointer to pointer '{_render(node)}' is not supported", node)
            if isinstance(operand, c_ast.ArrayRef) or (
                isinstance(operand, c_ast.UnaryOp) and operand.op == "*"
            ):
                self.fail(f"pointer value '{_render(node)}' used as a number is not supported", node)
            self.fail("address-of operator '&' is not supported", node)
        if op == "*":
            array, elem, idx = self.element(node, env)
            return Load(array, idx, elem, self.loc(node))
        if op in ("++", "--", "p++", "p--"):
            if self.is_pointer(operand, env):
                self.fail(
                    f"'{op.lstrip('p')}' on pointer '{_render(operand)}' inside an expression is "
                    "not supported (only *p++, *p--, *++p, *--p and pointer updates as statements)",
                    node,
                )
            self.fail(f"'{op.lstrip('p')}' inside an expression is not supported", node)
        if op == "!":
            return self.cond_value(node, env)
        if op in _BITWISE:
            self.fail(f"bitwise operator '{op}' is not supported", node)
        if op == "sizeof":
            self.fail("sizeof is not supported", node)
        self.fail(f"operator '{op}' is not supported", node)

    # ----------------------------------------------------------- conditions

    def cond(self, node: c_ast.Node, env: _Env) -> Cond:
        """Lower a C expression used as a condition (``if``, ``?:``, ``&&``, ``||``, ``!``).

        A comparison becomes a :class:`Compare` on operands converted to their common
        dtype; any other scalar ``e`` is ``e != 0``.
        """
        loc = self.loc(node)
        match node:
            case c_ast.BinaryOp(op=op, left=left, right=right) if op in _COMPARISONS:
                if self.is_pointer(left, env) or self.is_pointer(right, env):
                    self.fail(f"pointer comparison '{_render(node)}' is not supported", node)
                l_e, r_e = self.expr(left, env), self.expr(right, env)
                return self.compare(_COMPARISONS[op], l_e, r_e, node)
            case c_ast.BinaryOp(op="&&" | "||" as op, left=left, right=right):
                first = self.cond(left, env)
                second = self.conditionally(right, env, self.cond)
                return Logical("&&" if op == "&&" else "||", first, second, loc)
            case c_ast.UnaryOp(op="!", expr=operand):
                return Not(self.cond(operand, env), loc)
        if self.is_pointer(node, env):
            self.fail(f"pointer '{_render(node)}' used as a condition is not supported", node)
        return self.compare("!=", self.expr(node, env), Const(0, DType.INT, loc), node)

    def compare(self, op: CmpOpName, left: Expr, right: Expr, node: c_ast.Node) -> Compare:
        dtype = _common_dtype(left.dtype, right.dtype)
        return Compare(op, convert(left, dtype), convert(right, dtype), self.loc(node))

    def cond_value(self, node: c_ast.Node, env: _Env) -> Select:
        """A comparison / logical expression used as a value: C gives the int 1 or 0."""
        loc = self.loc(node)
        c = self.cond(node, env)
        return Select(c, Const(1, DType.INT, loc), Const(0, DType.INT, loc), DType.INT, loc)

    def conditionally(
        self, node: c_ast.Node, env: _Env, lower: Callable[[c_ast.Node, _Env], _T]
    ) -> _T:
        """``lower(node, env)`` for an operand C evaluates only sometimes (a ``?:`` branch,
        the right operand of ``&&``/``||``): pointer increments there are refused, since the
        statement's increments (:class:`_Effects`) are unconditional."""
        fx = env.effects
        if fx is None:
            return lower(node, env)
        before = (len(fx.pre), len(fx.post))
        out = lower(node, env)
        if (len(fx.pre), len(fx.post)) != before:
            self.fail(
                f"pointer increment in conditionally evaluated '{_render(node)}' is not supported",
                node,
            )
        return out

    def binary(self, op: BinOpName, left: Expr, right: Expr, node: c_ast.Node) -> Binary:
        dtype = _common_dtype(left.dtype, right.dtype)
        if op == "%" and dtype.is_float:
            self.fail("operator '%' on floating-point operands is not supported", node)
        return Binary(op, convert(left, dtype), convert(right, dtype), dtype, self.loc(node))

    def index(self, node: c_ast.Node, env: _Env) -> Expr:
        e = self.expr(node, env)
        if e.dtype.is_float:
            self.fail("array index must be an integer", node)
        return convert(e, DType.INT)

    def read_var(self, name: str, node: c_ast.Node, env: _Env) -> Expr:
        b = env.lookup(name)
        match b:
            case _Scalar(dtype=dtype):
                if name not in env.assigned:
                    self.fail(f"'{name}' may be used uninitialised", node)
                return Var(name, dtype, self.loc(node))
            case _Value(expr=expr):
                if expr is None:
                    self.fail(f"'{name}' may be used uninitialised", node)
                return expr
            case _Array():
                self.fail(f"use of array '{name}' without an index is not supported", node)
            case _Pointer():
                self.fail(f"use of pointer '{name}' as a number is not supported", node)
            case _Vector() | _Result() | _Row():
                self.fail(f"use of vector '{name}' as a value is not supported", node)
            case _Struct():
                self.fail(f"use of struct '{name}' as a value is not supported", node)
            case None:
                self.unknown_name(name, node)

    def unknown_name(self, name: str, node: c_ast.Node) -> NoReturn:
        if name in self.funcdefs or name in self.prototypes:
            self.fail(f"use of function '{name}' as a value is not supported", node)
        self.fail(f"'{name}' is not declared", node)

    def array_of(self, node: c_ast.ArrayRef, env: _Env) -> tuple[str, DType]:
        base = node.name
        if isinstance(base, c_ast.ArrayRef):
            self.fail("multi-dimensional array access is not supported", node)
        if not isinstance(base, c_ast.ID):
            self.fail(f"subscript of '{_render(base)}' is not supported", node)
        b = env.lookup(base.name)
        if b is None:
            self.unknown_name(base.name, base)
        if not isinstance(b, _Array):
            self.fail(f"subscript of non-array '{base.name}' is not supported", node)
        return base.name, b.elem

    # ----------------------------------------------------------- pointers

    def is_pointer(self, node: c_ast.Node, env: _Env) -> bool:
        """Whether C gives ``node`` a pointer type (decided syntactically, without lowering)."""
        match node:
            case c_ast.ID(name=name):
                return isinstance(env.lookup(name), _Array | _Pointer)
            case c_ast.UnaryOp(op="&"):
                return True
            case c_ast.UnaryOp(op="++" | "--" | "p++" | "p--", expr=operand):
                return self.is_pointer(operand, env)
            case c_ast.BinaryOp(op="+", left=left, right=right):
                return self.is_pointer(left, env) or self.is_pointer(right, env)
            case c_ast.BinaryOp(op="-", left=left, right=right):
                return self.is_pointer(left, env) and not self.is_pointer(right, env)
            case c_ast.Cast(to_type=to_type):
                ty = self.resolve_typedefs(to_type.type)
                return isinstance(ty, c_ast.PtrDecl | c_ast.ArrayDecl)
            case c_ast.Assignment(lvalue=lvalue):
                return self.is_pointer(lvalue, env)
            case c_ast.TernaryOp(iftrue=iftrue, iffalse=iffalse):
                return self.is_pointer(iftrue, env) or self.is_pointer(iffalse, env)
            case c_ast.StructRef():
                return self.rows_field(node, env) is not None
            case c_ast.ArrayRef(name=c_ast.StructRef() as ref):
                return self.rows_field(ref, env) is not None  # a row m.g[r]
            case _:
                return False

    def pointer_value(self, node: c_ast.Node, env: _Env) -> _PtrValue:
        """Lower a pointer-typed expression (``A``, ``p``, ``&X[E]``, ``&*P``, ``P ± E``)."""
        loc = self.loc(node)
        match node:
            case c_ast.ID(name=name):
                b = env.lookup(name)
                match b:
                    case _Array(elem=elem, ctype=ctype):
                        return _PtrValue(name, elem, ctype, Const(0, DType.INT, loc))
                    case _Pointer(base=base, elem=elem, ctype=ctype):
                        var = self.read_pointer(b, node, env)
                        assert base is not None  # assigned pointers have a base
                        return _PtrValue(base, elem, ctype, var)
                    case None:
                        self.unknown_name(name, node)
                    case _:
                        self.fail(f"'{name}' is not a pointer", node)
            case c_ast.UnaryOp(op="&", expr=target):
                if isinstance(target, c_ast.ArrayRef) or (
                    isinstance(target, c_ast.UnaryOp) and target.op == "*"
                ):
                    array, elem, idx = self.element(target, env)
                    return _PtrValue(array, elem, self.ctype_of(array, env), idx)
                if self.is_pointer(target, env):
                    self.fail(f"pointer to pointer '{_render(node)}' is not supported", node)
                self.fail("address-of operator '&' is not supported", node)
            case c_ast.BinaryOp(op="+" | "-" as op, left=left, right=right):
                left_ptr, right_ptr = self.is_pointer(left, env), self.is_pointer(right, env)
                if left_ptr and right_ptr:
                    what = "difference" if op == "-" else "sum"
                    self.fail(f"pointer {what} '{_render(node)}' is not supported", node)
                if op == "-" and not left_ptr:
                    self.fail(f"pointer value '{_render(node)}' is not supported", node)
                ptr, delta = (left, right) if left_ptr else (right, left)
                pv = self.pointer_value(ptr, env)
                offset = _offset_plus(pv.offset, self.pointer_offset(delta, env), op, loc)
                return _PtrValue(pv.base, pv.elem, pv.ctype, offset)
            case c_ast.UnaryOp(op="++" | "--" | "p++" | "p--" as op, expr=operand):
                self.fail(
                    f"'{op.lstrip('p')}' on pointer '{_render(operand)}' inside an expression is "
                    "not supported (only *p++, *p--, *++p, *--p and pointer updates as statements)",
                    node,
                )
            case c_ast.Cast():
                self.fail(f"pointer cast '{_render(node)}' is not supported", node)
            case c_ast.StructRef() | c_ast.ArrayRef():
                self.fail(
                    f"row pointer '{_render(node)}' of a struct field used as a value is not supported",
                    node,
                )
            case _:
                self.fail(
                    f"pointer value '{_render(node)}' is not supported "
                    "(only A, &A[E], A + E, A - E and pointer variables)",
                    node,
                )

    def elem_ctype(self, ty: c_ast.Node) -> str:
        """Canonical C spelling of the element type of pointer/array type ``ty``.

        Our dtypes merge ``int`` and ``long`` (both mathematical integers), but a pointer
        walks in steps of its element's size, so a pointer may only point into an array of
        the same C element type: ``int``/``int32_t``/``signed`` give ``"int"``,
        ``long``/``int64_t`` ``"long"``, ``uint8_t`` ``"unsigned char"``. Call after the
        type was checked by :meth:`scalar_dtype`.
        """
        ptr = self.resolve_typedefs(ty)
        assert isinstance(ptr, c_ast.PtrDecl | c_ast.ArrayDecl)
        inner = self.resolve_typedefs(ptr.type)
        assert isinstance(inner, c_ast.TypeDecl) and isinstance(inner.type, c_ast.IdentifierType)
        aliases = dict(_PRELUDE_TYPEDEFS)
        words = [w for name in inner.type.names for w in aliases.get(name, name).split()]
        if sorted(words) == ["char", "unsigned"]:
            return "unsigned char"
        if set(words) <= _INT_WORDS:
            return " ".join(["long"] * words.count("long")) or "int"
        return " ".join(words)

    def ctype_of(self, array: str, env: _Env) -> str:
        """Element C type of array parameter ``array``."""
        b = env.lookup(array)
        assert isinstance(b, _Array | _Pointer)
        return b.ctype

    def pointer_offset(self, node: c_ast.Node, env: _Env) -> Expr:
        """An integer added to a pointer, converted to INT."""
        e = self.expr(node, env)
        if e.dtype.is_float:
            self.fail("pointer offset must be an integer", node)
        return convert(e, DType.INT)

    def read_pointer(self, b: _Pointer, node: c_ast.Node, env: _Env) -> Var:
        """Read of pointer ``b``'s offset local (refused if unassigned or unsequenced)."""
        if b.offset not in env.assigned:
            self.fail(f"'{b.name}' may be used uninitialised", node)
        fx = env.effects
        if fx is not None:
            if b.offset in fx.modified:
                self.fail(f"unsequenced modification of '{b.name}'", node)
            fx.read.add(b.offset)
        return Var(b.offset, DType.INT, self.loc(node))

    def step_pointer(self, step: c_ast.UnaryOp, b: _Pointer, env: _Env) -> Var:
        """``p++``/``p--``/``++p``/``--p`` under a dereference.

        Records ``p = p ± 1`` to run after (postfix) or before (prefix) the statement and
        returns the offset to dereference, which is then ``p`` in both cases.
        """
        loc = self.loc(step)
        if b.offset not in env.assigned:
            self.fail(f"'{b.name}' may be used uninitialised", step)
        fx = env.effects
        if fx is None:
            self.fail(f"'{step.op.lstrip('p')}' inside an expression is not supported", step)
        if b.offset in fx.modified or b.offset in fx.read:
            self.fail(f"unsequenced modification of '{b.name}'", step)
        fx.modified.add(b.offset)
        var = Var(b.offset, DType.INT, loc)
        op: BinOpName = "+" if "++" in step.op else "-"
        assign = Assign(b.offset, Binary(op, var, Const(1, DType.INT, loc), DType.INT, loc), loc)
        (fx.post if step.op.startswith("p") else fx.pre).append(assign)
        return var

    def element(self, node: c_ast.Node, env: _Env) -> tuple[str, DType, Expr]:
        """The array, element dtype and INT index denoted by ``X[E]`` or ``*P``."""
        loc = self.loc(node)
        if isinstance(node, c_ast.ArrayRef):
            if self.struct_element(node, env) is not None:
                self.fail(f"pointer to struct field element '{_render(node)}' is not supported", node)
            vb = self.vector_root(node, env)
            if vb is not None:
                self.fail(
                    f"writing or taking the address of an element of vector '{vb.name}' is "
                    "not supported (a kernel builds its result with push_back)",
                    node,
                )
            if not self.is_pointer(node.name, env):
                array, elem = self.array_of(node, env)  # raises the precise message
                return array, elem, self.index(node.subscript, env)
            pv = self.pointer_value(node.name, env)
            idx = self.index(node.subscript, env)
            return pv.base, pv.elem, _offset_plus(pv.offset, idx, "+", loc)
        assert isinstance(node, c_ast.UnaryOp) and node.op == "*"
        target = node.expr
        if (
            isinstance(target, c_ast.UnaryOp)
            and target.op in ("++", "--", "p++", "p--")
            and isinstance(target.expr, c_ast.ID)
        ):
            b = env.lookup(target.expr.name)
            if isinstance(b, _Pointer):
                var = self.step_pointer(target, b, env)
                assert b.base is not None  # assigned pointers have a base
                return b.base, b.elem, var
        if not self.is_pointer(target, env):
            self.fail(f"dereference of non-pointer '{_render(target)}' is not supported", node)
        pv = self.pointer_value(target, env)
        return pv.base, pv.elem, pv.offset

    # ----------------------------------------------------------- C++ vectors

    def vector_root(self, node: c_ast.ArrayRef, env: _Env) -> _VectorBinding | None:
        """The vector binding ``v`` of ``v[E]`` / ``v[E1][E2]``, if ``v`` is a vector."""
        base: c_ast.Node = node.name
        while isinstance(base, c_ast.ArrayRef):
            base = base.name
        if isinstance(base, c_ast.ID):
            b = env.lookup(base.name)
            if isinstance(b, _Vector | _Result | _Row):
                return b
        return None

    def vector_load(self, node: c_ast.ArrayRef, env: _Env) -> Load | None:
        """``v[E]`` of a ``vector<T>``, ``v[E1][E2]`` of a ``vector<vector<T>>`` or
        ``v[E1][E2][E3]`` of a ``vector<vector<vector<T>>>`` parameter, as a load from its flat
        row-major elements (``None``: not a vector)."""
        b = self.vector_root(node, env)
        if b is None:
            return None
        loc = self.loc(node)
        two = isinstance(node.name, c_ast.ArrayRef)
        three = two and isinstance(node.name.name, c_ast.ArrayRef)
        match b:
            case _Vector(name=name, vt=vt) if vt.rank == 1 and not two:
                return Load(name, self.index(node.subscript, env), vt.dtype, loc)
            case _Vector(name=name, vt=vt, sizes=(_, rows_, cols)) if three:
                assert isinstance(node.name, c_ast.ArrayRef) and isinstance(node.name.name, c_ast.ArrayRef)
                if isinstance(node.name.name.name, c_ast.ArrayRef):
                    self.fail(f"too many subscripts in '{_render(node)}' of {vt.spelled} '{name}'", node)
                p = self.index(node.name.name.subscript, env)
                r = self.index(node.name.subscript, env)
                c = self.index(node.subscript, env)
                nr, nc = Var(rows_, DType.INT, loc), Var(cols, DType.INT, loc)
                plane_row = Binary("+", Binary("*", p, nr, DType.INT, loc), r, DType.INT, loc)
                idx = Binary("+", Binary("*", plane_row, nc, DType.INT, loc), c, DType.INT, loc)
                return Load(name, idx, vt.dtype, loc, row=(c, nc), plane=(r, nr))
            case _Vector(name=name, vt=vt) if vt.rank == 3:
                self.fail(f"'{_render(node)}' of {vt.spelled} '{name}' used as a value is not supported "
                          "(only elements v[p][r][c])", node)
            case _Vector(name=name, vt=vt) if three:
                self.fail(f"too many subscripts in '{_render(node)}' of {vt.spelled} '{name}'", node)
            case _Vector(name=name, vt=vt, sizes=(_, cols)) if two:
                assert isinstance(node.name, c_ast.ArrayRef)
                r = self.index(node.name.subscript, env)
                c = self.index(node.subscript, env)
                n = Var(cols, DType.INT, loc)
                idx = Binary("+", Binary("*", r, n, DType.INT, loc), c, DType.INT, loc)
                return Load(name, idx, vt.dtype, loc, row=(c, n))
            case _Vector(name=name, vt=vt) if vt.rank == 2:
                self.fail(f"row '{_render(node)}' of {vt.spelled} '{name}' used as a value is not supported", node)
            case _Result(vt=vt, array=array) if vt.rank == 1 and not two:
                return Load(array, self.index(node.subscript, env), vt.dtype, loc)
            case _:
                self.fail(f"reading '{_render(node)}' is not supported", node)

    def member_value(self, node: c_ast.FuncCall, env: _Env) -> Expr:
        """``v.size()`` (length, or rows of a ``vector<vector<T>>``, or planes of a
        ``vector<vector<vector<T>>>``), ``v[E].size()`` (columns, or rows of each plane: the
        rows of a parameter are assumed to have one length) and ``v[E1][E2].size()``
        (columns of a ``vector<vector<vector<T>>>``). ``size_t`` results are read as mathematical integers."""
        ref = node.name
        assert isinstance(ref, c_ast.StructRef)
        method = ref.field.name
        if ref.type != ".":
            self.fail(f"'{ref.type}' member access is not supported", node)
        if method == "push_back":
            self.fail("push_back used as a value is not supported", node)
        if method != "size":
            self.fail(f"method '{method}' is not supported (only size() and push_back())", node)
        if node.args is not None and node.args.exprs:
            self.fail("size() takes no arguments", node)
        loc = self.loc(node)
        obj = ref.name
        if isinstance(obj, c_ast.ID):
            match env.lookup(obj.name):
                case _Vector(sizes=sizes):
                    return Var(sizes[0], DType.INT, loc)
                case _Result(vt=vt, length=length) if vt.rank == 1:
                    return Var(length, DType.INT, loc)
                case None:
                    self.unknown_name(obj.name, obj)
        if isinstance(obj, c_ast.ArrayRef) and isinstance(obj.name, c_ast.ID):
            b = env.lookup(obj.name.name)
            if isinstance(b, _Vector) and b.vt.rank >= 2:
                self.index(obj.subscript, env)  # refuses what it cannot read
                return Var(b.sizes[1], DType.INT, loc)
        if (isinstance(obj, c_ast.ArrayRef) and isinstance(obj.name, c_ast.ArrayRef)
                and isinstance(obj.name.name, c_ast.ID)):
            b = env.lookup(obj.name.name.name)
            if isinstance(b, _Vector) and b.vt.rank == 3:
                self.index(obj.name.subscript, env)
                self.index(obj.subscript, env)
                return Var(b.sizes[2], DType.INT, loc)
        self.fail(f"'{_render(node)}' is not supported (size() of a vector parameter or of the returned vector<T>)", node)

    # ----------------------------------------------------------- C struct parameters

    def struct_field(self, ref: c_ast.StructRef, env: _Env) -> _StructField:
        """The field ``f`` of ``m.f`` for a struct parameter ``m`` (refused otherwise)."""
        if ref.type != ".":
            self.fail(f"'{ref.type}' member access is not supported", ref)
        obj = ref.name
        if not isinstance(obj, c_ast.ID):
            self.fail(f"member access on '{_render(obj)}' is not supported", ref)
        b = env.lookup(obj.name)
        if b is None:
            self.unknown_name(obj.name, obj)
        if not isinstance(b, _Struct):
            self.fail(f"member access on non-struct '{obj.name}' is not supported", ref)
        f = b.fields.get(ref.field.name)
        if f is None:
            self.fail(f"struct parameter '{b.name}' has no field '{ref.field.name}'", ref)
        return f

    def rows_field(self, ref: c_ast.StructRef, env: _Env) -> _StructField | None:
        """The ``T **`` field ``g`` of ``m.g`` (``m`` a struct parameter), else ``None``;
        never raises (for :meth:`is_pointer`)."""
        if ref.type != "." or not isinstance(ref.name, c_ast.ID):
            return None
        b = env.lookup(ref.name.name)
        if not isinstance(b, _Struct):
            return None
        f = b.fields.get(ref.field.name)
        return f if f is not None and f.cols is not None else None

    def struct_value(self, ref: c_ast.StructRef, env: _Env) -> Expr:
        """``m.f`` for a scalar field ``f``: the flat parameter ``m__f``."""
        f = self.struct_field(ref, env)
        if f.cols is not None:
            self.fail(f"use of row-pointer field '{_render(ref)}' without two indices is not supported", ref)
        return Var(f.param, f.field.dtype, self.loc(ref))

    def struct_element(
        self, node: c_ast.ArrayRef, env: _Env
    ) -> tuple[str, DType, Expr, tuple[Expr, Expr]] | None:
        """``m.g[r][c]`` of a ``T **`` field: (``m__g``, element dtype,
        ``r * m__g__cols + c``, row ``(c, m__g__cols)``); ``None`` when ``node`` is not an
        access through a struct field. A row ``m.g[r]`` on its own is refused."""
        base = node.name
        if isinstance(base, c_ast.StructRef):
            f = self.struct_field(base, env)
            if f.cols is None:
                self.fail(f"subscript of non-array '{_render(base)}' is not supported", node)
            self.fail(f"row pointer '{_render(node)}' of a struct field used as a value is not supported", node)
        if not (isinstance(base, c_ast.ArrayRef) and isinstance(base.name, c_ast.StructRef)):
            return None
        f = self.struct_field(base.name, env)
        if f.cols is None:
            self.fail(f"subscript of non-array '{_render(base.name)}' is not supported", base)
        loc = self.loc(node)
        r = self.index(base.subscript, env)
        c = self.index(node.subscript, env)
        n = Var(f.cols, DType.INT, loc)
        idx = Binary("+", Binary("*", r, n, DType.INT, loc), c, DType.INT, loc)
        return f.param, f.field.dtype, idx, (c, n)

    # ----------------------------------------------------------- helper inlining

    def call(self, node: c_ast.FuncCall, env: _Env) -> Expr:
        """Inline a call to a helper function of this file (see module docstring)."""
        if not isinstance(node.name, c_ast.ID):
            self.fail("call through an expression is not supported", node)
        name = node.name.name
        if env.lookup(name) is None and name not in self.funcdefs and name in MATH_FUNCTIONS:
            return self.math_call(node, name, env)
        if env.lookup(name) is not None or name not in self.funcdefs:
            self.fail(f"call to '{name}' is not supported", node)
        if name in env.inlining:
            self.fail(f"recursive call to '{name}' is not supported", node)
        fdef = self.funcdefs[name]
        ret = self.return_dtype(fdef)
        if ret is None:
            self.fail(f"call to void function '{name}' is not supported", node)
        params = self.params_of(fdef)
        args = node.args.exprs if node.args is not None else []
        if len(args) != len(params):
            self.fail(f"call to '{name}' with {len(args)} arguments; it takes {len(params)}", node)
        scope: dict[str, _Binding] = {}
        for (decl, ty), arg in zip(params, args, strict=True):
            if isinstance(ty, _StructType):
                self.fail(
                    f"helper '{name}' has struct parameter '{decl.name}'; "
                    "only scalar parameters are supported",
                    decl,
                )
            if isinstance(arg, c_ast.ID) and isinstance(env.lookup(arg.name), _Struct):
                self.fail(f"passing struct '{arg.name}' to '{name}' is not supported", arg)
            if isinstance(ty, PointerType | VectorType):
                self.fail(
                    f"helper '{name}' has array parameter '{decl.name}'; "
                    "only scalar parameters are supported",
                    decl,
                )
            if self.is_pointer(arg, env):
                self.fail(
                    f"passing pointer '{_render(arg)}' to '{name}' is not supported "
                    "(pointers may not escape the kernel)",
                    arg,
                )
            scope[decl.name] = _Value(ty.dtype, convert(self.expr(arg, env), ty.dtype))
        inner = _Env([scope], inlining=(*env.inlining, name))
        items = list(fdef.body.block_items or [])
        while items and isinstance(items[-1], c_ast.EmptyStatement):
            items.pop()
        if not items or not isinstance(items[-1], c_ast.Return) or items[-1].expr is None:
            self.fail(f"helper function '{name}' must end with 'return E;'", fdef)
        for item in items[:-1]:
            self._helper_stmt(item, inner, name)
        return convert(self.expr(items[-1].expr, inner), ret)

    def math_call(self, node: c_ast.FuncCall, name: str, env: _Env) -> Expr:
        """``exp``/``expf``, ``sqrt``/``sqrtf``, ``log``/``logf``, ``tanh``/``tanhf``,
        ``fabs``/``fabsf`` of one argument → :class:`Call` (the ``f`` variants in float,
        the others in double, as in ``<math.h>``)."""
        args = node.args.exprs if node.args is not None else []
        if len(args) != 1:
            self.fail(f"call to '{name}' with {len(args)} arguments; it takes 1", node)
        if self.is_pointer(args[0], env):
            self.fail(f"passing pointer '{_render(args[0])}' to '{name}' is not supported", args[0])
        dtype = DType.FLOAT if name.endswith("f") and name != "exp" else DType.DOUBLE
        arg = convert(self.expr(args[0], env), dtype)
        return Call(MATH_FUNCTIONS[name], arg, dtype, self.loc(node))

    def _helper_stmt(self, node: c_ast.Node, env: _Env, helper: str) -> None:
        if isinstance(node, c_ast.EmptyStatement):
            return
        if isinstance(node, c_ast.Decl):
            if isinstance(self.resolve_typedefs(node.type), c_ast.PtrDecl):
                self.fail(
                    f"local pointer variable '{node.name}' in helper function '{helper}' "
                    "is not supported",
                    node,
                )
            for name, dtype, init in self.local_decls(node, env):
                if env.lookup(name) is not None:
                    self.fail(f"redeclaration of '{name}' is not supported", node)
                value = None if init is None else convert(self.expr(init, env), dtype)
                env.scopes[-1][name] = _Value(dtype, value)
            return
        if isinstance(node, c_ast.Assignment | c_ast.UnaryOp) and _is_update(node):
            target, value = self.scalar_update(node, env)
            env.rebind(target, _Value(value.dtype, value))
            return
        self.fail(
            f"{_describe(node)} in helper function '{helper}' is not supported; a helper may "
            "only declare and assign scalars and end with 'return E;'",
            node,
        )

    # ----------------------------------------------------------- declarations / updates

    def local_decls(
        self, node: c_ast.Decl, env: _Env
    ) -> Iterator[tuple[str, DType, c_ast.Node | None]]:
        """The (name, dtype, initialiser) of a local scalar declaration."""
        for s in node.storage:
            self.fail(f"'{s}' local variables are not supported", node)
        ty = self.resolve_typedefs(node.type)
        if isinstance(ty, c_ast.PtrDecl):
            self.fail(f"local pointer variable '{node.name}' is not supported", node)
        if isinstance(ty, c_ast.ArrayDecl):
            self.fail(f"local array '{node.name}' is not supported", node)
        if isinstance(ty, c_ast.FuncDecl):
            self.fail("local function declarations are not supported", node)
        if node.name is None:
            self.fail(f"{_describe(ty)} declaration is not supported", node)
        if self.struct_of(ty) is not None:
            self.fail(f"struct local '{node.name}' is not supported", node)
        dtype = self.scalar_dtype(node.type, f"local '{node.name}'", node)
        if dtype is None:
            self.fail(f"void local '{node.name}' is not supported", node)
        if isinstance(node.init, c_ast.InitList):
            self.fail("initialiser list is not supported", node.init)
        yield node.name, dtype, node.init

    def update_target(
        self, node: c_ast.Node, env: _Env
    ) -> c_ast.ID | c_ast.ArrayRef | c_ast.UnaryOp:
        """The lvalue of an update statement; refused unless a scalar name, ``a[E]`` or
        ``*P``."""
        lvalue = node.lvalue if isinstance(node, c_ast.Assignment) else node.expr
        match lvalue:
            case c_ast.ID(name=name):
                b = env.lookup(name)
                if b is None:
                    self.unknown_name(name, lvalue)
                if isinstance(b, _Vector | _Result | _Row):
                    self.fail(f"assignment to vector '{name}' is not supported", node)
                if isinstance(b, _Struct):
                    self.fail(f"assignment to struct '{name}' is not supported", node)
                if isinstance(b, _Array):
                    # Kernels bind updated array parameters as walking pointers
                    # (_Kernel.lower), so only a stray case can reach this.
                    self.fail(
                        f"assignment to array parameter '{name}' itself is not supported", node
                    )
                return lvalue
            case c_ast.ArrayRef() | c_ast.UnaryOp(op="*"):
                return lvalue
            case c_ast.StructRef():
                self.struct_field(lvalue, env)  # refuses what is not a field
                self.fail(f"assignment to struct field '{_render(lvalue)}' is not supported", node)
            case _:
                self.fail(f"assignment to '{_render(lvalue)}' is not supported", lvalue)

    def scalar_update(self, node: c_ast.Node, env: _Env) -> tuple[str, Expr]:
        """``x = E`` / ``x op= E`` / ``x++`` on a scalar: (x, converted new value)."""
        lvalue = self.update_target(node, env)
        if not isinstance(lvalue, c_ast.ID):
            self.fail(
                f"assignment to '{_render(lvalue)}' in a helper function is not supported", node
            )
        b = env.lookup(lvalue.name)
        assert isinstance(b, _Scalar | _Value)
        op, rhs = self.update_parts(node, env)
        value = (
            rhs
            if op is None
            else self.binary(op, self.read_var(lvalue.name, lvalue, env), rhs, node)
        )
        return lvalue.name, convert(value, b.dtype)

    def update_parts(self, node: c_ast.Node, env: _Env) -> tuple[BinOpName | None, Expr]:
        """The operator (``None`` for ``=``) and right-hand side of an update statement."""
        if isinstance(node, c_ast.UnaryOp):
            return ("+" if node.op in ("++", "p++") else "-"), Const(1, DType.INT, self.loc(node))
        assert isinstance(node, c_ast.Assignment)
        if node.op == "=":
            return None, self.expr(node.rvalue, env)
        if node.op in _COMPOUND_OPS:
            return _COMPOUND_OPS[node.op], self.expr(node.rvalue, env)
        if node.op[:-1] in _BITWISE:
            self.fail(f"bitwise operator '{node.op}' is not supported", node)
        self.fail(f"operator '{node.op}' is not supported", node)


def _pushes(node: c_ast.Node | None, into: str, row: str) -> bool:
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


def _is_update(node: c_ast.Node) -> bool:
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
_NOT_IN_IF = (
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


def _describe(node: c_ast.Node) -> str:
    name = _NODE_NAMES.get(type(node))
    if name is not None:
        return name
    return re.sub(r"(?<!^)(?=[A-Z])", " ", type(node).__name__).lower()


class _Kernel(IfConversion):
    """Lowering of the chosen function's body to loop-IR statements."""

    def __init__(self, unit: _Unit, fdef: c_ast.FuncDef) -> None:
        self.unit = unit
        self.fdef = fdef
        self.name: str = fdef.decl.name
        self.locals: dict[str, DType] = {}
        #: Identifiers of the source function (fresh names avoid them).
        self.taken: set[str] = set(_identifiers(fdef))
        #: Guard of the statements being lowered (inside an ``if``), else ``None``.
        self.guard: Cond | None = None
        self.if_count = 0
        #: Headers ``(var, start, stop)`` of the loops around the statement being lowered.
        self.loops: list[tuple[str, Expr, Expr]] = []
        #: Items of the blocks being lowered, innermost last.
        self.blocks: list[list[c_ast.Node]] = []
        #: C++: the returned vector's type and binding; loop headers around its pushes.
        self.result_type: VectorType | None = None
        self.result: _Result | None = None
        self.element_pushes: list[tuple[tuple[str, Expr, Expr], ...]] = []
        self.row_pushes: list[tuple[tuple[str, Expr, Expr], ...]] = []
        self.push_loc: SourceLoc | None = None

    def lower(self) -> Function:
        u = self.unit
        params: list[Param] = []
        scope: dict[str, _Binding] = {}
        body: list[Stmt] = []
        assigned: set[str] = set()
        walked = set(_updated_names(self.fdef.body))
        taken = self.taken
        signature: list[VectorParam | str] = []
        structs: list[StructParam] = []
        for decl, ty in u.params_of(self.fdef):
            if isinstance(ty, _StructType):
                binding, flat, sp = self.struct_param(decl, ty)
                params.extend(flat)
                scope[decl.name] = binding
                assigned.update(p.name for p in flat)
                structs.append(sp)
                continue
            if isinstance(ty, VectorType):
                words = {1: ("size",), 2: ("rows", "cols"), 3: ("planes", "rows", "cols")}[ty.rank]
                sizes = tuple(self.fresh(f"{decl.name}__{w}") for w in words)
                params.append(Param(decl.name, PointerType(ty.dtype), u.loc(decl)))
                params.extend(Param(n, ScalarType(DType.INT), u.loc(decl)) for n in sizes)
                scope[decl.name] = _Vector(decl.name, ty, sizes)
                assigned.update([decl.name, *sizes])
                signature.append(VectorParam(decl.name, ty.rank, ty.dtype, sizes, ty.elem))
                continue
            signature.append(decl.name)
            params.append(Param(decl.name, ty, u.loc(decl), _c_width(decl.type)))
            assigned.add(decl.name)
            if isinstance(ty, PointerType) and decl.name in walked:
                # A walked array parameter: its position is a fresh offset local, from 0.
                offset = f"{decl.name}__off"
                k = 1
                while offset in taken or offset in self.locals:
                    offset, k = f"{decl.name}__off{k}", k + 1
                self.locals[offset] = DType.INT
                ctype = u.elem_ctype(decl.type)
                scope[decl.name] = _Pointer(decl.name, ty.elem, ctype, decl.name, offset)
                body.append(Assign(offset, Const(0, DType.INT, u.loc(decl)), u.loc(decl)))
                assigned.add(offset)
            elif isinstance(ty, PointerType):
                scope[decl.name] = _Array(ty.elem, u.elem_ctype(decl.type))
            else:
                scope[decl.name] = _Scalar(ty.dtype)
        self.result_type = u.vector_type(self.fdef.decl.type.type)
        if self.result_type is not None and self.result_type.rank == 3:
            u.fail(f"returning a {self.result_type.spelled} is not supported yet (return a vector<T> or "
                   "vector<vector<T>>, or write into a flat output array)", self.fdef.decl)
        self.return_dtype = None if self.result_type is not None else u.return_dtype(self.fdef)
        env = _Env([scope], assigned=assigned, inlining=(self.name,))
        items = list(self.fdef.body.block_items or [])
        while items and isinstance(items[-1], c_ast.EmptyStatement):
            items.pop()
        for k, item in enumerate(items):
            if isinstance(item, c_ast.Return) and k == len(items) - 1:
                fx = _Effects()
                env.effects = fx
                ret = self.ret(item, env)
                env.effects = None
                body.extend([*fx.pre, ret])  # increments after the return are dead
            else:
                body.extend(self.stmt(item, env))
        if (self.return_dtype is not None or self.result_type is not None) and not (
            body and isinstance(body[-1], Return)
        ):
            u.fail(f"function '{self.name}' must end with 'return E;'", self.fdef)
        cxx = None
        if u.cxx:
            result = None
            if self.result is not None:
                r = self.result
                params.append(Param(r.array, PointerType(r.vt.dtype), u.loc(self.fdef)))
                shape = self.result_shape(tuple(body), tuple(params))
                result = VectorResult(r.array, r.vt.rank, r.vt.dtype, shape, r.vt.elem)
            cxx = CxxInterface(tuple(signature), result)
        return Function(
            name=self.name,
            params=tuple(params),
            return_dtype=self.return_dtype,
            return_c_type=_c_width(self.fdef.decl.type.type),
            locals=tuple(self.locals.items()),
            body=tuple(body),
            source=u.text,
            loc=u.loc(self.fdef),
            cxx=cxx,
            structs=tuple(structs),
        )

    def struct_param(
        self, decl: c_ast.Decl, ty: _StructType
    ) -> tuple[_Struct, list[Param], StructParam]:
        """Flatten struct parameter ``m``: a scalar field ``f`` becomes the scalar parameter
        ``m__f``; a ``T **`` field ``g`` the pointer parameter ``m__g`` (its rows, flattened
        row-major) followed by the INT parameter ``m__g__cols`` (their length). Names that
        the function uses get a numeric suffix."""
        u = self.unit
        loc = u.loc(decl)
        fields: dict[str, _StructField] = {}
        flat: list[Param] = []
        described: list[StructField] = []
        for f in ty.fields:
            param = self.fresh(f"{decl.name}__{f.name}")
            if f.rows:
                cols = self.fresh(f"{param}__cols")
                flat.append(Param(param, PointerType(f.dtype), loc, f.c_type))
                flat.append(Param(cols, ScalarType(DType.INT), loc))
            else:
                cols = None
                flat.append(Param(param, ScalarType(f.dtype), loc, f.c_type))
            fields[f.name] = _StructField(f, param, cols)
            described.append(StructField(f.name, param, cols))
        return _Struct(decl.name, fields), flat, StructParam(decl.name, ty.spelled, tuple(described))

    # ----------------------------------------------------------- C++ vectors

    def vector_decl(self, node: c_ast.Decl, vt: VectorType, env: _Env) -> list[Stmt]:
        """``vector<T> v;``: the returned vector (at the top of the function body) or a
        row of it (in a loop body whose last statement is ``result.push_back(v);``)."""
        u = self.unit
        loc = u.loc(node)
        name = node.name
        if node.storage:
            u.fail(f"'{node.storage[0]}' local variables are not supported", node)
        if node.init is not None:
            u.fail(f"initialised vector local '{name}' is not supported (declare it empty and push_back)", node)
        if env.lookup(name) is not None:
            u.fail(f"redeclaration of '{name}' is not supported", node)
        if not self.loops and self.guard is None and len(env.scopes) == 1:
            if self.result_type is None:
                u.fail(f"local {vt.spelled} '{name}' is not supported (a local vector must be the one the function returns)", node)
            if vt != self.result_type:
                u.fail(f"local '{name}' is a {vt.spelled} but the function returns {self.result_type.spelled}", node)
            if self.result is not None:
                u.fail(f"a second local vector '{name}' is not supported (only the returned one)", node)
            length = self.fresh(f"{name}__len")
            self.locals[length] = DType.INT
            self.result = _Result(name, vt, name, length)
            env.scopes[-1][name] = self.result
            env.assigned.add(length)
            return [Assign(length, Const(0, DType.INT, loc), loc)]
        items = self.blocks[-1] if self.blocks else []
        last = next((i for i in reversed(items) if not isinstance(i, c_ast.EmptyStatement)), None)
        r = self.result
        if (
            not self.loops
            or r is None
            or r.vt.rank != 2
            or vt != VectorType(1, r.vt.elem)
            or not _pushes(last, r.name, name)
        ):
            want = f"{r.name}.push_back({name});" if r is not None else "result.push_back(row);"
            u.fail(
                f"local {vt.spelled} '{name}' is not supported: a vector local inside a loop "
                f"must be a row of the returned vector<vector<T>>, pushed by the last statement "
                f"of its block ('{want}')",
                node,
            )
        assert last is not None
        env.scopes[-1][name] = _Row(name, vt, r.name, len(self.loops), last)
        return []

    def push_back(self, node: c_ast.FuncCall, env: _Env) -> list[Stmt]:
        """``v.push_back(E);`` on the returned vector or one of its rows: store ``E`` at
        the result's next element and count it. Refused under an ``if`` (the length of
        the result would depend on the data)."""
        u = self.unit
        loc = u.loc(node)
        ref = node.name
        assert isinstance(ref, c_ast.StructRef)
        method = ref.field.name
        if method != "push_back":
            if method == "size":
                u.fail(f"expression statement '{_render(node)}' has no effect", node)
            u.fail(f"method '{method}' is not supported (only size() and push_back())", node)
        if ref.type != "." or not isinstance(ref.name, c_ast.ID):
            u.fail(f"push_back on '{_render(ref.name)}' is not supported", node)
        args = node.args.exprs if node.args is not None else []
        if len(args) != 1:
            u.fail("push_back takes one argument", node)
        if self.guard is not None:
            u.fail("push_back inside if is not supported (the length of the result would depend on the data)", node)
        b = env.lookup(ref.name.name)
        self.push_loc = self.push_loc or loc
        match b:
            case _Result(vt=vt) if vt.rank == 1:
                self.element_pushes.append(tuple(self.loops))
                return self.append(b, u.expr(args[0], env), loc)
            case _Row(into=into, depth=depth):
                into_b = env.lookup(into)
                assert isinstance(into_b, _Result)
                self.element_pushes.append(tuple(self.loops[depth:]))
                return self.append(into_b, u.expr(args[0], env), loc)
            case _Result(vt=vt):
                arg = args[0]
                row = env.lookup(arg.name) if isinstance(arg, c_ast.ID) else None
                if not (isinstance(row, _Row) and row.into == b.name and row.last is node):
                    u.fail(f"{b.name}.push_back takes the row vector declared in the same block, as that block's last statement", node)
                self.row_pushes.append(tuple(self.loops))
                return []
            case _Vector():
                u.fail(f"push_back on parameter '{b.name}' is not supported (the kernel may not modify its parameters)", node)
            case None:
                u.unknown_name(ref.name.name, ref.name)
            case _:
                u.fail(f"push_back on non-vector '{ref.name.name}' is not supported", node)

    def append(self, r: _Result, value: Expr, loc: SourceLoc | None) -> list[Stmt]:
        length = Var(r.length, DType.INT, loc)
        return [
            Store(r.array, length, convert(value, r.vt.dtype), loc),
            Assign(r.length, Binary("+", length, Const(1, DType.INT, loc), DType.INT, loc), loc),
        ]

    def result_shape(self, body: tuple[Stmt, ...], params: tuple[Param, ...]) -> tuple[Expr, ...]:
        """Length (or rows and columns) of the returned vector: per ``push_back`` site the
        product of the trip counts ``max(0, stop - start)`` of the loops around it (inside
        the row, for the elements of a row), summed over the sites; loop bounds are
        rewritten to the entry values of the parameters (locals assigned once at the top of
        the body are substituted)."""
        assert self.result is not None
        loc = self.push_loc or self.unit.loc(self.fdef) or SourceLoc(self.unit.filename, 1, 1)
        entry = entry_values(body, {p.name for p in params}, loc)

        def count(sites: list[tuple[tuple[str, Expr, Expr], ...]]) -> Expr:
            total: Expr = Const(0, DType.INT, loc)
            for stack in sites:
                prod: Expr = Const(1, DType.INT, loc)
                for _, start, stop in stack:
                    lo, hi = entry(start), entry(stop)
                    diff = hi if lo == Const(0, DType.INT) else Binary("-", hi, lo, DType.INT, loc)
                    trips = Select(Compare("<", diff, Const(0, DType.INT, loc), loc), Const(0, DType.INT, loc), diff, DType.INT, loc)
                    prod = trips if prod == Const(1, DType.INT) else Binary("*", prod, trips, DType.INT, loc)
                total = prod if total == Const(0, DType.INT) else Binary("+", total, prod, DType.INT, loc)
            return total

        if self.result.vt.rank == 1:
            return (count(self.element_pushes),)
        return (count(self.row_pushes), count(self.element_pushes))

    def ret(self, node: c_ast.Return, env: _Env) -> Return:
        u = self.unit
        if self.result_type is not None:
            e = node.expr
            if not (isinstance(e, c_ast.ID) and isinstance(env.lookup(e.name), _Result)):
                u.fail(f"'{self.name}' returns a {self.result_type.spelled}: it must return the local vector it builds", node)
            return Return(None, u.loc(node))
        if node.expr is None:
            if self.return_dtype is not None:
                u.fail(f"'return;' in function '{self.name}' returning a value", node)
            return Return(None, u.loc(node))
        if self.return_dtype is None:
            u.fail(f"returning a value from void function '{self.name}'", node)
        if u.is_pointer(node.expr, env):
            u.fail(f"returning pointer '{_render(node.expr)}' is not supported", node)
        return Return(convert(u.expr(node.expr, env), self.return_dtype), u.loc(node))

    def declare(
        self,
        name: str,
        dtype: DType,
        node: c_ast.Node,
        env: _Env,
        binding: _Binding | None = None,
    ) -> None:
        """Add a local to the innermost scope (and to ``Function.locals``).

        ``binding`` defaults to a scalar of ``dtype`` (a pointer passes its ``_Pointer``).
        """
        if env.lookup(name) is not None:
            self.unit.fail(f"redeclaration of '{name}' is not supported", node)
        if name in self.locals and self.locals[name] != dtype:
            # Declared before in a scope that has ended; reusing the slot needs one dtype.
            self.unit.fail(f"redeclaration of '{name}' is not supported", node)
        self.locals.setdefault(name, dtype)
        env.scopes[-1][name] = _Scalar(dtype) if binding is None else binding
        env.assigned.discard(name)

    def block(self, items: list[c_ast.Node], env: _Env) -> list[Stmt]:
        env.scopes.append({})
        self.blocks.append(items)
        try:
            return [s for item in items for s in self.stmt(item, env)]
        finally:
            env.scopes.pop()
            self.blocks.pop()

    def stmt(self, node: c_ast.Node, env: _Env) -> list[Stmt]:
        match node:
            case c_ast.EmptyStatement():
                return []
            case c_ast.Compound(block_items=items):
                return self.block(list(items or []), env)
            case c_ast.If():
                return self.if_stmt(node, env)
            case _ if self.guard is not None and isinstance(node, _NOT_IN_IF):
                self.unit.fail(f"{_describe(node)} inside if is not supported", node)
            case c_ast.For():
                return [self.for_loop(node, env)]
            case _:
                defined = env.assigned | env.written
                return self.guarded(self.with_effects(node, env), defined, env.written)

    def with_effects(self, node: c_ast.Node, env: _Env) -> list[Stmt]:
        """A simple statement with its pointer increments (see :class:`_Effects`)."""
        return self.effects_around(lambda: self.simple_stmt(node, env), env)

    def effects_around(self, lower: Callable[[], list[Stmt]], env: _Env) -> list[Stmt]:
        """``lower()`` preceded and followed by the pointer increments it records."""
        outer, env.effects = env.effects, _Effects()
        fx = env.effects
        try:
            body = lower()
        finally:
            env.effects = outer
        return [*fx.pre, *body, *fx.post]

    # ----------------------------------------------------------- if-conversion

    def if_stmt(self, node: c_ast.If, env: _Env) -> list[Stmt]:
        """If-conversion of ``if (c) S1 else S2`` (see the module docstring).

        The condition is evaluated once, into a fresh INT local ``__ifK`` (``c ? 1 : 0``),
        before the branches; then-statements are guarded by ``__ifK != 0`` and
        else-statements by ``__ifK == 0``, each conjoined with the enclosing guard.
        """
        u = self.unit
        loc, cloc = u.loc(node), u.loc(node.cond)
        defined = env.assigned | env.written
        flag = self.fresh_if_local()

        def head() -> list[Stmt]:
            c = u.cond(node.cond, env)
            one, zero = Const(1, DType.INT, cloc), Const(0, DType.INT, cloc)
            return [Assign(flag, Select(c, one, zero, DType.INT, cloc), loc)]

        out = self.guarded(self.effects_around(head, env), defined, env.written)
        env.assigned.add(flag)
        iffalse = node.iffalse
        return out + self.if_branches(
            flag, Const(0, DType.INT, loc), loc, env, lambda: self.stmt(node.iftrue, env),
            None if iffalse is None else lambda: self.stmt(iffalse, env),
        )

    def simple_stmt(self, node: c_ast.Node, env: _Env) -> list[Stmt]:
        u = self.unit
        loc = u.loc(node)
        match node:
            case c_ast.Decl() if u.vector_type(u.resolve_typedefs(node.type)) is not None:
                vt = u.vector_type(u.resolve_typedefs(node.type))
                assert vt is not None
                return self.vector_decl(node, vt, env)
            case c_ast.Decl() if isinstance(u.resolve_typedefs(node.type), c_ast.PtrDecl):
                return self.pointer_decl(node, env)
            case c_ast.Decl():
                out: list[Stmt] = []
                for name, dtype, init in u.local_decls(node, env):
                    value = None if init is None else convert(u.expr(init, env), dtype)
                    self.declare(name, dtype, node, env)
                    if value is not None:
                        out.append(Assign(name, value, loc))
                        env.assigned.add(name)
                return out
            case c_ast.Assignment() | c_ast.UnaryOp(op="++" | "--" | "p++" | "p--"):
                return [self.update(node, env)]
            case c_ast.Return():
                u.fail("return before the end of the function is not supported", node)
            case c_ast.FuncCall(name=c_ast.StructRef()):
                return self.push_back(node, env)
            case c_ast.FuncCall(name=c_ast.ID(name=callee)):
                if callee in u.funcdefs and env.lookup(callee) is None:
                    u.fail(f"call to '{callee}' as a statement is not supported", node)
                u.expr(node, env)  # raises the precise message
                raise AssertionError("unreachable")  # pragma: no cover
            case c_ast.Label(name=label):
                u.fail(f"label '{label}' is not supported", node)
            case (
                c_ast.ID()
                | c_ast.Constant()
                | c_ast.ArrayRef()
                | c_ast.BinaryOp()
                | c_ast.Cast()
                | c_ast.TernaryOp()
                | c_ast.ExprList()
                | c_ast.UnaryOp()
            ):
                u.expr(node, env)  # unsupported pieces raise first
                if env.effects is not None and (env.effects.pre or env.effects.post):
                    return []  # e.g. '*p++;': only the increment remains
                u.fail(f"expression statement '{_render(node)}' has no effect", node)
            case _:
                u.fail(f"{_describe(node)} is not supported", node)

    def update(self, node: c_ast.Node, env: _Env) -> Stmt:
        u = self.unit
        whole = node.lvalue if isinstance(node, c_ast.Assignment) else node.expr
        if isinstance(whole, c_ast.ID):
            b = env.lookup(whole.name)
            if isinstance(b, _Pointer):
                return self.pointer_update(node, b, env)
        lvalue = u.update_target(node, env)
        if (
            isinstance(lvalue, c_ast.ArrayRef)
            and isinstance(lvalue.name, c_ast.StructRef)
            and u.struct_field(lvalue.name, env).cols is not None
        ):
            u.fail(f"assignment to row pointer '{_render(lvalue)}' is not supported", node)
        cell = u.struct_element(lvalue, env) if isinstance(lvalue, c_ast.ArrayRef) else None
        if cell is not None:
            array, elem, idx, row = cell
            op, rhs = u.update_parts(node, env)
            old = Load(array, idx, elem, u.loc(lvalue), row)
            value = rhs if op is None else u.binary(op, old, rhs, node)
            return Store(array, idx, convert(value, elem), u.loc(node), row)
        if isinstance(lvalue, c_ast.ArrayRef | c_ast.UnaryOp):
            array, elem, idx = u.element(lvalue, env)
            op, rhs = u.update_parts(node, env)
            old = Load(array, idx, elem, u.loc(lvalue))
            value = rhs if op is None else u.binary(op, old, rhs, node)
            return Store(array, idx, convert(value, elem), u.loc(node))
        target, value = u.scalar_update(node, env)
        env.assigned.add(target)
        return Assign(target, value, u.loc(node))

    # ----------------------------------------------------------- pointers

    def pointer_decl(self, node: c_ast.Decl, env: _Env) -> list[Stmt]:
        """``T *p;`` / ``T *p = P;``: an INT offset local ``p`` (see the module docstring)."""
        u = self.unit
        name = node.name
        for s in node.storage:
            u.fail(f"'{s}' local variables are not supported", node)
        ty = u.resolve_typedefs(node.type)
        assert isinstance(ty, c_ast.PtrDecl)
        u._check_quals(ty.quals, node)
        pointee = u.resolve_typedefs(ty.type)
        if isinstance(pointee, c_ast.PtrDecl):
            u.fail(f"pointer-to-pointer local '{name}' is not supported", node)
        if isinstance(pointee, c_ast.FuncDecl):
            u.fail(f"function pointer local '{name}' is not supported", node)
        if isinstance(pointee, c_ast.ArrayDecl):
            u.fail(f"pointer-to-array local '{name}' is not supported", node)
        if u.struct_of(pointee) is not None:
            u.fail(f"pointer to struct local '{name}' is not supported", node)
        elem = u.scalar_dtype(ty.type, f"local pointer '{name}'", node)
        if elem is None:
            u.fail(f"void pointer local '{name}' is not supported", node)
        value = None
        if isinstance(node.init, c_ast.InitList):
            u.fail("initialiser list is not supported", node.init)
        if node.init is not None:
            value = self.pointer_rvalue(name, node.init, env)
        ctype = u.elem_ctype(node.type)
        self.declare(name, DType.INT, node, env, _Pointer(name, elem, ctype, None, name))
        if value is None:
            return []
        self.set_base(name, value, node, env)
        env.assigned.add(name)
        return [Assign(name, value.offset, u.loc(node))]

    def pointer_rvalue(self, name: str, node: c_ast.Node, env: _Env) -> _PtrValue:
        if not self.unit.is_pointer(node, env):
            self.unit.fail(
                f"pointer '{name}' may only point into an array parameter (A, &A[E], A + E, "
                f"another pointer); '{_render(node)}' is not supported",
                node,
            )
        return self.unit.pointer_value(node, env)

    def set_base(self, name: str, value: _PtrValue, node: c_ast.Node, env: _Env) -> None:
        """Fix (first assignment) or check the array parameter pointer ``name`` walks."""
        b = env.lookup(name)
        assert isinstance(b, _Pointer)
        if value.ctype != b.ctype:
            self.unit.fail(
                f"pointer '{name}' to {b.ctype} cannot point into '{value.base}' of "
                f"element type {value.ctype}",
                node,
            )
        if b.base is None:
            env.rebind(name, replace(b, base=value.base))
        elif b.base != value.base:
            self.unit.fail(
                f"pointer '{name}' points into several arrays ('{b.base}' and '{value.base}')",
                node,
            )

    def pointer_update(self, node: c_ast.Node, b: _Pointer, env: _Env) -> Assign:
        """``p = P``, ``p += E``, ``p -= E``, ``p++``, ``++p``, ``p--``, ``--p`` as a statement."""
        u = self.unit
        loc = u.loc(node)
        if isinstance(node, c_ast.UnaryOp):
            op: BinOpName = "+" if "++" in node.op else "-"
            old = u.read_pointer(b, node, env)
            value: Expr = Binary(op, old, Const(1, DType.INT, loc), DType.INT, loc)
        else:
            assert isinstance(node, c_ast.Assignment)
            if node.op == "=":
                pv = self.pointer_rvalue(b.name, node.rvalue, env)
                self.set_base(b.name, pv, node, env)
                value = pv.offset
            elif node.op in ("+=", "-="):
                old = u.read_pointer(b, node.lvalue, env)
                delta = u.pointer_offset(node.rvalue, env)
                value = _offset_plus(old, delta, "+" if node.op == "+=" else "-", loc)
            else:
                u.fail(f"operator '{node.op}' on pointer '{b.name}' is not supported", node)
        fx = env.effects
        if fx is not None and b.offset in fx.modified:
            u.fail(f"unsequenced modification of '{b.name}'", node)
        env.assigned.add(b.offset)
        return Assign(b.offset, value, loc)

    # ----------------------------------------------------------- for loops

    def for_loop(self, node: c_ast.For, env: _Env) -> For:
        u = self.unit
        env.scopes.append({})
        try:
            var, first = self.for_init(node, env)
            step = self.for_step(node, var)
            descending = step == -1
            prologue: tuple[Stmt, ...] = ()
            if descending:  # for (i = hi; i >= lo; i--): the iterations lo..hi in reverse order
                start = self.for_cond_down(node, var, env)
                stop = _plus_one(first, u.loc(node))
            elif step > 1:
                # for (i = a; i < b; i += c): a counter k over the ceil((b - a) / c)
                # iterations, i = a + c*k set first in each one (reads become strided views)
                bound = self.for_cond(node, var, env)
                loc = u.loc(node)
                k = f"{var}__k"
                n = 1
                while k in self.locals or env.lookup(k) is not None:
                    k, n = f"{var}__k{n}", n + 1
                self.locals[k] = DType.INT
                span = Binary("+", Binary("-", bound, first, DType.INT, loc), Const(step - 1, DType.INT, loc), DType.INT, loc)
                start, stop = Const(0, DType.INT, loc), Binary("/", span, Const(step, DType.INT, loc), DType.INT, loc)
                at = Binary("+", first, Binary("*", Const(step, DType.INT, loc), Var(k, DType.INT, loc), DType.INT, loc),
                            DType.INT, loc)
                prologue = (Assign(var, at, loc),)
                first_reads = {name for name, _ in vars_read(first)}
            else:
                start, stop = first, self.for_cond(node, var, env)
            before, before_written = set(env.assigned), set(env.written)
            self.loops.append((var, start, stop))
            body = prologue + tuple(self.stmt(node.stmt, env))
            env.assigned, env.written = before, before_written
        finally:
            env.scopes.pop()
            if self.loops and self.loops[-1][0] == var:
                self.loops.pop()
        for name, wloc in writes(body[len(prologue):]):
            if name == var:
                raise BadInput(f"loop counter '{var}' is assigned in the loop body", wloc)
        written = {name for name, _ in writes(body)}
        if prologue:
            for name in sorted(first_reads & written):
                raise BadInput(f"the start of this strided loop reads '{name}', which the loop body writes", u.loc(node))
            return For(k, start, stop, body, u.loc(node))
        for name, rloc in vars_read(start if descending else stop):
            if name == var:
                raise BadInput(f"loop bound reads the loop counter '{var}'", rloc)
            if name in written:
                raise BadInput(f"loop bound reads '{name}', which the loop body writes", rloc)
        return For(var, start, stop, body, u.loc(node), descending)

    def for_init(self, node: c_ast.For, env: _Env) -> tuple[str, Expr]:
        u = self.unit
        init = node.init
        if init is None:
            u.fail("for loop without an initialiser is not supported", node)
        if isinstance(init, c_ast.DeclList):
            if len(init.decls) != 1:
                u.fail("for loop declaring several variables is not supported", init)
            if isinstance(u.resolve_typedefs(init.decls[0].type), c_ast.PtrDecl):
                u.fail(f"loop counter '{init.decls[0].name}' must have type int", init)
            decls = list(u.local_decls(init.decls[0], env))
            name, dtype, value = decls[0]
            if value is None:
                u.fail(f"for loop counter '{name}' has no initial value", init)
            start = self._counter_start(value, env)
            if dtype != DType.INT:
                u.fail(f"loop counter '{name}' must have type int", init)
            self.declare(name, dtype, init.decls[0], env)
        elif (
            isinstance(init, c_ast.Assignment)
            and init.op == "="
            and isinstance(init.lvalue, c_ast.ID)
        ):
            name = init.lvalue.name
            b = env.lookup(name)
            if b is None:
                u.unknown_name(name, init.lvalue)
            if not isinstance(b, _Scalar) or name not in self.locals:
                u.fail(f"loop counter '{name}' must be a local int variable", init)
            if b.dtype != DType.INT:
                u.fail(f"loop counter '{name}' must have type int", init)
            start = self._counter_start(init.rvalue, env)
        else:
            u.fail(f"for loop initialiser '{_render(init)}' is not supported", init)
        env.assigned.add(name)
        return name, start

    def _counter_start(self, node: c_ast.Node, env: _Env) -> Expr:
        e = self.unit.expr(node, env)
        if e.dtype.is_float:
            self.unit.fail("loop start must be an integer expression", node)
        return convert(e, DType.INT)

    def for_cond(self, node: c_ast.For, var: str, env: _Env) -> Expr:
        """The exclusive upper bound of an ascending loop: ``E`` of ``i < E`` / ``E > i``,
        ``E + 1`` of ``i <= E`` / ``E >= i``."""
        return self._counter_bound(node, var, env, ("<", "<="), f"only {var} < E, {var} <= E, E > {var}, E >= {var}", "")

    def for_cond_down(self, node: c_ast.For, var: str, env: _Env) -> Expr:
        """The lowest counter value of a descending loop: ``lo`` of ``i >= lo`` / ``lo <= i``,
        ``lo + 1`` of ``i > lo`` / ``lo < i``."""
        return self._counter_bound(node, var, env, (">", ">="), f"only {var} >= E, {var} > E, E <= {var}, E < {var}",
                                   " of a descending loop")

    def _counter_bound(self, node: c_ast.For, var: str, env: _Env, ops: tuple[str, str], forms: str,
                       what: str) -> Expr:
        """The bound of the loop condition ``var ops[0|1] E`` (or its mirror ``E op' var``),
        plus one when the comparison is exclusive of the bound for a descending loop or
        inclusive for an ascending one (``ops[0]`` is the strict operator)."""
        u = self.unit
        cond = node.cond
        if cond is None:
            u.fail("for loop without a condition is not supported", node)

        def is_var(n: c_ast.Node) -> bool:
            return isinstance(n, c_ast.ID) and n.name == var

        def mentions(n: c_ast.Node) -> bool:
            return is_var(n) or any(mentions(c) for _, c in n.children())

        def shifted(n: c_ast.Node) -> tuple[str, c_ast.Node] | None:
            """``var + e``, ``e + var`` or ``var - e`` (``e`` free of the counter): the sign
            and ``e``."""
            if isinstance(n, c_ast.BinaryOp) and n.op in ("+", "-"):
                if is_var(n.left) and not mentions(n.right):
                    return n.op, n.right
                if n.op == "+" and is_var(n.right) and not mentions(n.left):
                    return "+", n.left
            return None

        mirror = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
        offset: tuple[str, c_ast.Node] | None = None
        if isinstance(cond, c_ast.BinaryOp) and cond.op in ops and is_var(cond.left):
            bound_node, op = cond.right, cond.op
        elif isinstance(cond, c_ast.BinaryOp) and cond.op in (mirror[ops[0]], mirror[ops[1]]) and is_var(cond.right):
            bound_node, op = cond.left, mirror[cond.op]
        elif (isinstance(cond, c_ast.BinaryOp) and cond.op in ops and (offset := shifted(cond.left)) is not None
              and not mentions(cond.right)):
            bound_node, op = cond.right, cond.op
        elif (isinstance(cond, c_ast.BinaryOp) and cond.op in (mirror[ops[0]], mirror[ops[1]])
              and (offset := shifted(cond.right)) is not None and not mentions(cond.left)):
            bound_node, op = cond.left, mirror[cond.op]
        else:
            u.fail(f"loop condition '{_render(cond)}'{what} is not supported ({forms})", cond)
        if offset is not None:
            # `i + e <= E` is `i <= E - e` on the integers: the loop IR's ints are exact, C's
            # `i + e` is undefined where it overflows, and the type gate (c_types) has refused
            # a comparison or sum computed in an unsigned type
            sign, e_node = offset
            bound_node = c_ast.BinaryOp("-" if sign == "+" else "+", bound_node, e_node, coord=cond.coord)
        bound = u.expr(bound_node, env)
        if bound.dtype.is_float:
            u.fail("loop bound must be an integer expression", bound_node)
        b = convert(bound, DType.INT)
        plus_one = (op == ops[1]) if ops[0] == "<" else (op == ops[0])
        return _plus_one(b, u.loc(cond)) if plus_one else b

    def for_step(self, node: c_ast.For, var: str) -> int:
        """The step: ``1`` (``i++``, ``++i``, ``i += 1``, ``i = i + 1``), ``-1`` (their
        decrements: a descending loop) or a constant ``c >= 2`` (``i += c``, ``i = i + c``: a
        strided loop)."""
        u = self.unit
        step = node.next
        if step is None:
            u.fail("for loop without a step is not supported", node)

        def is_var(n: c_ast.Node) -> bool:
            return isinstance(n, c_ast.ID) and n.name == var

        def is_one(n: c_ast.Node) -> bool:
            return isinstance(n, c_ast.Constant) and n.type == "int" and _int_literal(n.value) == 1

        def constant(n: c_ast.Node) -> int | None:
            if isinstance(n, c_ast.Constant) and n.type == "int":
                v = _int_literal(n.value)
                return v if v >= 1 else None
            return None

        match step:
            case c_ast.UnaryOp(op="++" | "p++", expr=x) if is_var(x):
                return 1
            case c_ast.Assignment(op="+=", lvalue=x, rvalue=c) if is_var(x) and constant(c) is not None:
                return constant(c)  # type: ignore[return-value]
            case c_ast.Assignment(
                op="=", lvalue=x, rvalue=c_ast.BinaryOp(op="+", left=a, right=b)
            ) if is_var(x) and ((is_var(a) and constant(b)) or (constant(a) and is_var(b))):
                return constant(b) if is_var(a) else constant(a)  # type: ignore[return-value]
            case c_ast.UnaryOp(op="--" | "p--", expr=x) if is_var(x):
                return -1
            case c_ast.Assignment(op="-=", lvalue=x, rvalue=one) if is_var(x) and is_one(one):
                return -1
            case c_ast.Assignment(
                op="=", lvalue=x, rvalue=c_ast.BinaryOp(op="-", left=a, right=b)
            ) if is_var(x) and is_var(a) and is_one(b):
                return -1
        u.fail(
            f"loop step '{_render(step)}' is not supported "
            f"(only {var}++, {var} += c and {var} = {var} + c for a constant c >= 1, and {var}--, --{var}, "
            f"{var} -= 1, {var} = {var} - 1)",
            step,
        )
