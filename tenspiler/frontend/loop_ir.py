"""Loop IR: the typed, located form every frontend produces.

A kernel is one :class:`Function` whose body is straight-line statements and counted
``for`` loops. Expressions are fully typed: the frontend applies C's usual arithmetic
conversions and integer promotion, inserting explicit :class:`Cast` nodes, so every
:class:`Binary` has operands of its own dtype. Semantics (``tenspiler.ir.semantics``):

* ``INT`` is a mathematical integer (signed overflow is undefined behaviour in C, so this is
  sound w.r.t. the C standard); ``/`` and ``%`` truncate toward zero.
* ``UINT8`` values are in ``[0, 255]``; arithmetic on them happens after promotion to
  ``INT``; a ``Cast`` to ``UINT8`` wraps modulo 256 (C conversion to an unsigned type).
* ``FLOAT``/``DOUBLE`` are verified over the reals (stated as an assumption in every
  certificate).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from tenspiler.errors import SourceLoc


class DType(enum.Enum):
    """Element / scalar types of the loop IR and TensIR."""

    INT = "int"
    UINT8 = "uint8"
    FLOAT = "float"
    DOUBLE = "double"

    @property
    def is_float(self) -> bool:
        return self in (DType.FLOAT, DType.DOUBLE)

    @property
    def c_name(self) -> str:
        return {"int": "int", "uint8": "unsigned char", "float": "float", "double": "double"}[
            self.value
        ]


BinOpName: TypeAlias = Literal["+", "-", "*", "/", "%"]
BIN_OPS: tuple[BinOpName, ...] = ("+", "-", "*", "/", "%")


@dataclass(frozen=True)
class ScalarType:
    dtype: DType


@dataclass(frozen=True)
class PointerType:
    """``T*`` or ``T[]`` parameter: an array of unknown length (a length param bounds it)."""

    elem: DType


Type: TypeAlias = ScalarType | PointerType


# ---------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Const:
    value: int | float
    dtype: DType
    loc: SourceLoc | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Var:
    """Read of a scalar variable (parameter or local)."""

    name: str
    dtype: DType
    loc: SourceLoc | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Load:
    """``array[index]``; ``index`` has dtype INT."""

    array: str
    index: Expr
    dtype: DType
    loc: SourceLoc | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Unary:
    op: Literal["-"]
    operand: Expr
    dtype: DType
    loc: SourceLoc | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Binary:
    """Arithmetic on two operands that already have ``dtype`` (conversions are explicit)."""

    op: BinOpName
    left: Expr
    right: Expr
    dtype: DType
    loc: SourceLoc | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Cast:
    """C conversion of ``operand`` to ``dtype`` (float→int truncates, int→uint8 wraps)."""

    operand: Expr
    dtype: DType
    loc: SourceLoc | None = field(default=None, compare=False)


CmpOpName: TypeAlias = Literal["<", "<=", ">", ">=", "==", "!="]
CMP_OPS: tuple[CmpOpName, ...] = ("<", "<=", ">", ">=", "==", "!=")


@dataclass(frozen=True)
class Compare:
    """A C comparison used as a condition; operands already have a common dtype."""

    op: CmpOpName
    left: Expr
    right: Expr
    loc: SourceLoc | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Logical:
    """``left && right`` / ``left || right`` on conditions."""

    op: Literal["&&", "||"]
    left: Cond
    right: Cond
    loc: SourceLoc | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Not:
    operand: Cond
    loc: SourceLoc | None = field(default=None, compare=False)


Cond: TypeAlias = Compare | Logical | Not


@dataclass(frozen=True)
class Select:
    """``cond ? then : else_`` (both branches already converted to ``dtype``). The
    frontend also lowers ``if``/``else`` on assignments and stores to selects
    (if-conversion)."""

    cond: Cond
    then: Expr
    else_: Expr
    dtype: DType
    loc: SourceLoc | None = field(default=None, compare=False)


#: Math functions a kernel may call (C ``<math.h>`` / C++ ``<cmath>``; ``f``-suffixed
#: float variants map to the same name). Verified as uninterpreted functions of the reals
#: except ``fabs``, which is exact (``tenspiler.ir.semantics.UNARY_FUNCTIONS``).
MATH_FUNCTIONS: dict[str, str] = {
    "exp": "exp", "expf": "exp", "sqrt": "sqrt", "sqrtf": "sqrt", "log": "log", "logf": "log",
    "fabs": "fabs", "fabsf": "fabs", "tanh": "tanh", "tanhf": "tanh",
}


@dataclass(frozen=True)
class Call:
    """A math function applied to one real argument (``func`` is the key of
    ``semantics.UNARY_FUNCTIONS``: ``exp``, ``sqrt``, ``log``, ``fabs``, ``tanh``)."""

    func: str
    arg: Expr
    dtype: DType
    loc: SourceLoc | None = field(default=None, compare=False)


Expr: TypeAlias = Const | Var | Load | Unary | Binary | Cast | Select | Call


# ---------------------------------------------------------------- statements


@dataclass(frozen=True)
class Assign:
    """``target = value`` for a scalar variable (declarations with initialisers included)."""

    target: str
    value: Expr
    loc: SourceLoc | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Store:
    """``array[index] = value``; ``value`` already converted to the element dtype."""

    array: str
    index: Expr
    value: Expr
    loc: SourceLoc | None = field(default=None, compare=False)


@dataclass(frozen=True)
class For:
    """``for (var = start; var < stop; var++) body`` — ``stop`` is exclusive.

    The frontend normalises ``<=`` to ``< stop + 1`` and guarantees that ``var`` is not
    assigned in ``body`` and that ``stop`` does not depend on variables the body assigns.
    """

    var: str
    start: Expr
    stop: Expr
    body: tuple[Stmt, ...]
    loc: SourceLoc | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Return:
    value: Expr | None
    loc: SourceLoc | None = field(default=None, compare=False)


Stmt: TypeAlias = Assign | Store | For | Return


@dataclass(frozen=True)
class Param:
    """A parameter; ``c_type`` is the C spelling of its (element) type when it differs from
    the dtype's default (``"long"`` for a 64-bit integer), for calling the compiled C."""

    name: str
    type: Type
    loc: SourceLoc | None = field(default=None, compare=False)
    c_type: str = field(default="", compare=False)


@dataclass(frozen=True)
class Function:
    """One kernel.

    Attributes:
        name: the source function's name.
        params: parameters in source order.
        return_dtype: ``None`` for ``void``.
        locals: scalar locals (including loop counters) and their dtypes, in declaration
            order. A parameter that the body assigns stays a parameter.
        body: the statements; a ``Return`` may only be the last statement.
        source: the text of the file the function came from (for ``--check``).
        loc: location of the function definition.
    """

    name: str
    params: tuple[Param, ...]
    return_dtype: DType | None
    locals: tuple[tuple[str, DType], ...]
    body: tuple[Stmt, ...]
    source: str = field(default="", compare=False, repr=False)
    loc: SourceLoc | None = field(default=None, compare=False)
    return_c_type: str = field(default="", compare=False)  # as Param.c_type, for the result

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def arrays(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if isinstance(p.type, PointerType))

    @property
    def scalars(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if isinstance(p.type, ScalarType))

    def dtype_of(self, name: str) -> DType:
        """Dtype of a scalar variable, or element dtype of an array parameter."""
        for n, d in self.locals:
            if n == name:
                return d
        p = self.param(name)
        return p.type.elem if isinstance(p.type, PointerType) else p.type.dtype
