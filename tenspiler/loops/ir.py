"""Loop IR: the typed, located form every frontend produces.

A kernel is one :class:`Function` whose body is straight-line statements and counted
``for`` loops. Expressions are fully typed: the frontend applies C's usual arithmetic
conversions and integer promotion, inserting explicit :class:`Cast` nodes, so every
:class:`Binary` has operands of its own dtype. Semantics (``tenspiler.ir.semantics``):

* ``INT`` is a mathematical integer (signed overflow is undefined behaviour in C, so this is
  sound w.r.t. the C standard); ``/`` and ``%`` truncate toward zero. The Python
  frontend's ``//`` and ``mod`` (:data:`FLOOR_OPS`) are Python's floor division and modulo.
* The *ranged* integer types — ``UINT8`` (``unsigned char``), ``INT8`` (``signed char``),
  ``INT16`` (``short``), ``UINT16`` (``unsigned short``), ``UINT32`` (``unsigned int``) —
  hold values in their C range (:attr:`DType.int_range`); arithmetic happens on mathematical
  integers (``INT``) after integer promotion, and a ``Cast`` to a ranged type wraps into
  its range modulo 2ⁿ: C11 §6.3.1.3p2 for the unsigned types, GCC's two's complement
  reduction (implementation-defined, §6.3.1.3p3) for the signed ones. ``unsigned int``
  arithmetic (C11 §6.2.5p9) is the mathematical result cast to ``UINT32``.
* ``FLOAT``/``DOUBLE`` are verified over the reals (stated as an assumption in every
  certificate).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, TypeAlias, assert_never

from tenspiler.errors import SourceLoc


class DType(enum.Enum):
    """Element / scalar types of the loop IR and TensIR."""

    INT = "int"
    UINT8 = "uint8"
    FLOAT = "float"
    DOUBLE = "double"
    INT8 = "int8"
    INT16 = "int16"
    UINT16 = "uint16"
    UINT32 = "uint32"

    @property
    def is_float(self) -> bool:
        return self in (DType.FLOAT, DType.DOUBLE)

    @property
    def c_name(self) -> str:
        return _C_NAMES[self.value]

    @property
    def int_range(self) -> tuple[int, int] | None:
        """``(lo, hi)`` of a ranged integer type (a cast to it wraps modulo 2ⁿ into this
        range); ``None`` for ``INT`` (mathematical) and the real types."""
        return _INT_RANGES.get(self.value)

    @property
    def bits(self) -> int:
        """The width of a ranged integer type."""
        r = _INT_RANGES[self.value]
        return (r[1] - r[0]).bit_length()


_C_NAMES = {
    "int": "int", "uint8": "unsigned char", "float": "float", "double": "double",
    "int8": "signed char", "int16": "short", "uint16": "unsigned short", "uint32": "unsigned int",
}
_INT_RANGES = {
    "uint8": (0, 255), "int8": (-128, 127), "int16": (-(2**15), 2**15 - 1),
    "uint16": (0, 2**16 - 1), "uint32": (0, 2**32 - 1),
}
#: The ranged integer types (see the module docstring).
RANGED_INTS: tuple[DType, ...] = (DType.UINT8, DType.INT8, DType.INT16, DType.UINT16, DType.UINT32)


BinOpName: TypeAlias = Literal["+", "-", "*", "/", "%", "//", "mod", "&", "|", "^", "pow"]
#: The C operators (``/`` and ``%`` truncate on integers).
BIN_OPS: tuple[BinOpName, ...] = ("+", "-", "*", "/", "%")
#: Python's integer floor division ``//`` (quotient rounded toward -infinity) and modulo
#: ``mod`` (Python's ``%``: the sign of the divisor), on ``INT`` only; produced by the
#: Python frontend, never by the C one.
FLOOR_OPS: tuple[BinOpName, ...] = ("//", "mod")
#: C's bitwise ``& | ^`` on ``INT`` operands: on the two's complement representation of the
#: (mathematical) values, which for values of a C type of at most 64 bits is C's result.
BITWISE_OPS: tuple[BinOpName, ...] = ("&", "|", "^")
#: The real power ``pow(x, y)`` (C's ``pow``/``powf``, Python's ``**`` with a float result),
#: on reals only: an uninterpreted function of two reals in proofs (``semantics.smt_binop``),
#: the C library's ``pow`` in the concrete semantics and in generated code.
POW_OPS: tuple[BinOpName, ...] = ("pow",)


def binop(op: str) -> BinOpName:
    """``op`` as a binary operator name.

    Raises:
        ValueError: ``op`` is not one of :data:`BIN_OPS` + :data:`FLOOR_OPS` + :data:`BITWISE_OPS`
            + :data:`POW_OPS`.
    """
    for name in (*BIN_OPS, *FLOOR_OPS, *BITWISE_OPS, *POW_OPS):
        if op == name:
            return name
    raise ValueError(f"not a binary operator: {op!r}")


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
    """``array[index]``; ``index`` has dtype INT.

    ``row`` is set for an element ``v[r][c]`` of a C++ ``vector<vector<T>>`` parameter
    (flattened row-major, ``index = r * cols + c``): ``(c, cols)``. C++ gives ``c`` outside
    ``[0, cols)`` undefined behaviour (rows are separate allocations), so the loop-IR
    interpreter refuses such a read (``IndexError``) instead of reading the next row;
    the verifier ignores it (it proves the flat model, which agrees with C++ wherever C++
    is defined).
    """

    array: str
    index: Expr
    dtype: DType
    loc: SourceLoc | None = field(default=None, compare=False)
    row: tuple[Expr, Expr] | None = field(default=None, compare=False)
    #: ``(r, rows)`` for an element ``v[p][r][c]`` of a ``vector<vector<vector<T>>>``
    #: parameter (``index = (p * rows + r) * cols + c``, ``row = (c, cols)``): ``r``
    #: outside ``[0, rows)`` is undefined behaviour as well, refused by the interpreter.
    plane: tuple[Expr, Expr] | None = field(default=None, compare=False)


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
#: except ``fabs``, ``round`` and ``floor``, which are exact (``tenspiler.ir.semantics.UNARY_FUNCTIONS``).
MATH_FUNCTIONS: dict[str, str] = {
    "exp": "exp", "expf": "exp", "sqrt": "sqrt", "sqrtf": "sqrt", "log": "log", "logf": "log",
    "fabs": "fabs", "fabsf": "fabs", "tanh": "tanh", "tanhf": "tanh",
    "expm1": "expm1", "expm1f": "expm1", "cos": "cos", "cosf": "cos", "sin": "sin", "sinf": "sin",
    "round": "round", "roundf": "round", "floor": "floor", "floorf": "floor",
}


@dataclass(frozen=True)
class Call:
    """A math function applied to one real argument (``func`` is the key of
    ``semantics.UNARY_FUNCTIONS``: ``exp``, ``sqrt``, ``log``, ``fabs``, ``tanh``, ``expm1``,
    ``cos``, ``sin``)."""

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
    """``array[index] = value``; ``value`` already converted to the element dtype.

    ``row`` is ``(c, cols)`` for a write ``m.g[r][c]`` through a ``T **`` field of a C
    struct parameter (flattened row-major, ``index = r * cols + c``), exactly as
    :attr:`Load.row`: the interpreter refuses a column outside ``[0, cols)``.
    """

    array: str
    index: Expr
    value: Expr
    loc: SourceLoc | None = field(default=None, compare=False)
    row: tuple[Expr, Expr] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class For:
    """``for (var = start; var < stop; var++) body`` — ``stop`` is exclusive.

    The frontend normalises ``<=`` to ``< stop + 1`` and guarantees that ``var`` is not
    assigned in ``body`` and that ``stop`` does not depend on variables the body assigns.

    ``descending``: the same iterations in the reverse order, ``var`` from ``stop - 1`` down
    to ``start`` (C's ``for (i = hi; i >= lo; i--)`` is ``For(i, lo, hi + 1, ...,
    descending=True)``). The kernel analysis proves the ascending loop and, as one more VC
    clause, that any two distinct iterations commute (so every order of the iterations
    ends in the same state).
    """

    var: str
    start: Expr
    stop: Expr
    body: tuple[Stmt, ...]
    loc: SourceLoc | None = field(default=None, compare=False)
    descending: bool = False


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
    #: A C 2-D array parameter (``T A[N][M]``): the compiled C takes a pointer to rows of
    #: ``M`` elements, which the check's wrapper passes the flat buffer as.
    c_rows: bool = field(default=False, compare=False)
    #: A C file-scope variable the function reads (its value at the call): the check's
    #: wrapper assigns it before the call instead of passing it.
    global_var: bool = field(default=False, compare=False)

    @property
    def elem(self) -> DType:
        """The element dtype of a pointer parameter.

        Raises:
            TypeError: a scalar parameter.
        """
        if isinstance(self.type, PointerType):
            return self.type.elem
        raise TypeError(f"parameter {self.name!r} is not an array")


@dataclass(frozen=True)
class VectorParam:
    """A C++ ``vector<T>`` (``rank == 1``), rectangular ``vector<vector<T>>`` (``rank == 2``)
    or ``vector<vector<vector<T>>>`` (``rank == 3``) parameter, passed to the loop IR as the
    pointer parameter ``name`` (row-major elements) followed by the INT parameters ``sizes``:
    ``(length,)``, ``(rows, cols)`` or ``(planes, rows, cols)``.
    ``elem_cxx`` is the C++ element type as written (``"uint8_t"``)."""

    name: str
    rank: int
    elem: DType
    sizes: tuple[str, ...]
    elem_cxx: str


@dataclass(frozen=True)
class VectorResult:
    """The ``vector<T>`` / ``vector<vector<T>>`` a C++ kernel returns, built by
    unconditional ``push_back`` calls in counted loops: its elements are stored row-major
    into the pointer parameter ``array`` (the last parameter) at indices ``0 ..
    prod(shape) - 1``; ``shape`` gives its length, or rows and columns, as expressions
    over the entry values of the parameters."""

    array: str
    rank: int
    elem: DType
    shape: tuple[Expr, ...]
    elem_cxx: str


@dataclass(frozen=True)
class CxxInterface:
    """How a C++ kernel's signature maps onto its loop-IR parameters (also used for a
    Python kernel's ``list`` / list-of-lists parameters and returned list, with
    :attr:`Function.python` set; ``elem_cxx`` then spells the Python element type).

    ``signature`` lists the C++ parameters in order: a :class:`VectorParam`, or the name
    of a scalar parameter. ``result`` is the returned vector (``None`` when the kernel
    returns a scalar or nothing).
    """

    signature: tuple[VectorParam | str, ...]
    result: VectorResult | None


@dataclass(frozen=True)
class ArgGuard:
    """An argument check at the top of a Python function: ``if cond: raise exception(...)``
    (``exception`` the builtin's name, ``message`` the literal text or ``""``) or ``if cond:
    return value`` (``exception`` is ``None``). ``cond`` and ``value`` are over the entry
    values of the parameters (and list sizes) only and cannot raise. The function's loop-IR
    body is the code after the checks, proved on its own for every input; the Python entry
    of the generated code evaluates the checks first, in order, as Python does."""

    cond: Cond | None
    exception: str | None
    message: str = ""
    value: Expr | None = None
    loc: SourceLoc | None = field(default=None, compare=False)
    #: a call of a validation helper instead (``cond`` is ``None``): ``(source, name,
    #: arguments)``, the helper's ``def`` as Python text (it only inspects its arguments and
    #: raises: the generated entry runs that text on the objects given) and the names of the
    #: parameters passed to it
    call: tuple[str, str, tuple[str, ...]] | None = None


@dataclass(frozen=True)
class PythonInterface:
    """Set for a kernel lifted from Python (:mod:`tenspiler.frontend.python`): the
    differential check runs the original function ``Function.name`` defined by the module
    text ``Function.source`` (executed as a module whose ``__file__`` is ``filename``).

    Python's ``a / b`` of two ints is their exact quotient rounded once (PEP 238), while
    ``float(a) / float(b)`` rounds each operand first; the loop IR, and a summary proved over
    the reals, write both ``cast(a, double) / cast(b, double)``. ``int_true_division``: the
    kernel has the first form, ``float_of_int``: it converts an int with ``float()``; the
    generated code divides such casts exactly when only the first is set, and refuses
    when both are."""

    filename: str
    int_true_division: bool = False
    float_of_int: bool = False
    #: the argument checks before the body, in source order (:class:`ArgGuard`)
    guards: tuple[ArgGuard, ...] = ()
    #: the list parameters the function modifies in place (``xs[i] = ...``): their final
    #: contents are results, as the pointer parameters a C function writes
    written: tuple[str, ...] = ()
    #: a method ``(class, method, kind, attributes)``: ``kind`` is ``"instance"``,
    #: ``"static"`` or ``"class"``; an instance method's ``self.<attribute>`` reads are its
    #: leading parameters, in ``attributes`` order (the check sets them on an object made
    #: with ``object.__new__``, ``__init__`` not run)
    method: tuple[str, str, str, tuple[str, ...]] | None = None


@dataclass(frozen=True)
class StructField:
    """One field of a C struct parameter and the flat parameter(s) holding it.

    ``param`` is the scalar parameter holding a scalar field, or the pointer parameter
    holding the rows of a ``T **`` field flattened row-major; for the latter ``cols`` names
    the INT parameter holding the row length (unknown to the kernel, not assumed equal to
    any field)."""

    field: str
    param: str
    cols: str | None = None


@dataclass(frozen=True)
class StructParam:
    """A C struct parameter passed by value, flattened into the parameters of its
    ``fields`` (in declaration order, contiguous in ``Function.params``). ``c_type`` is the
    struct's C spelling (``"matrix"``, ``"struct matrix"``), for calling the compiled C."""

    name: str
    c_type: str
    fields: tuple[StructField, ...]
    #: passed through a pointer (``T *s``): the compiled C takes the struct's address
    pointer: bool = False

    @property
    def flat(self) -> tuple[str, ...]:
        """The flat parameter names, in ``Function.params`` order."""
        out: list[str] = []
        for f in self.fields:
            out.append(f.param)
            if f.cols is not None:
                out.append(f.cols)
        return tuple(out)


@dataclass(frozen=True)
class PathSplit:
    """A function whose body branches, at its top level, on a condition that reads only the
    entry values of scalar parameters (``if (C) { ... loops ... } else { ... }``): it is lowered
    as two functions, one per path, each the whole function as C runs it on that path and each
    stating the path condition among its :attr:`Function.requires` (so each is proved, and
    checked, under it). ``cond`` is the path condition over the parameters' entry values; the
    function means ``then`` where it holds and ``else_`` elsewhere (either may split again).
    """

    cond: Cond
    then: Function
    else_: Function
    loc: SourceLoc | None = field(default=None, compare=False)


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
        source: the text of the file the function came from.
        loc: location of the function definition.
        check_source: the text ``--check`` compiles for a C kernel: ``source`` with the
            bodies of the function definitions the kernel does not reach replaced by ``;``
            (:mod:`tenspiler.frontend.c_unit`); empty: ``source`` itself.
        compile_flags: the user's compile flags the file was read with (include paths,
            macros, standard: ``CompileFlags.command_line``), which ``--check`` compiles
            with too.
    """

    name: str
    params: tuple[Param, ...]
    return_dtype: DType | None
    locals: tuple[tuple[str, DType], ...]
    body: tuple[Stmt, ...]
    source: str = field(default="", compare=False, repr=False)
    loc: SourceLoc | None = field(default=None, compare=False)
    return_c_type: str = field(default="", compare=False)  # as Param.c_type, for the result
    #: Set for a C++ kernel: its real signature (the parameters above are its flat view).
    cxx: CxxInterface | None = field(default=None, compare=False)
    #: The C struct parameters (each flattened into parameters above), in source order.
    structs: tuple[StructParam, ...] = field(default=(), compare=False)
    #: Set for a Python kernel (``cxx`` then holds its list signature).
    python: PythonInterface | None = field(default=None, compare=False)
    check_source: str = field(default="", compare=False, repr=False)
    compile_flags: tuple[str, ...] = field(default=(), compare=False)
    #: Array parameters whose null tests (``if (x)``, ``x ? ... : ...``, ``if (!x) return``)
    #: the frontend read as false: the model's arrays are never null (an assumption).
    non_null: tuple[str, ...] = field(default=(), compare=False)
    #: Preconditions ``left <= right`` over the parameters' entry values that the frontend's
    #: reading relies on, with what each is for (a loop ``i += s`` stepped by a run-time
    #: ``s``: ``1 <= s``, where C is defined and the loop runs): stated among the proof's
    #: assumptions, checked by generated code, respected by the checker's inputs.
    requires: tuple[tuple[Expr, Expr, str], ...] = field(default=(), compare=False)
    #: Set when the body branches on a condition of the parameters around loops
    #: (:class:`PathSplit`): the function is its two paths' functions, ``body`` is empty
    #: and only the paths are analysed, proved and run.
    split: PathSplit | None = field(default=None, compare=False)

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


def path_leaves(fn: Function) -> list[tuple[tuple[tuple[Cond, bool], ...], Function]]:
    """The paths of ``fn`` (:attr:`Function.split`, recursively): ``(conditions, function)``
    pairs, each condition with the truth value the path takes; ``[((), fn)]`` without a
    split. On every input exactly one path's conditions hold."""
    if fn.split is None:
        return [((), fn)]
    out: list[tuple[tuple[tuple[Cond, bool], ...], Function]] = []
    for taken, arm in ((True, fn.split.then), (False, fn.split.else_)):
        for conds, leaf in path_leaves(arm):
            out.append((((fn.split.cond, taken), *conds), leaf))
    return out


def map_expr(e: Expr, f: Callable[[Expr], Expr]) -> Expr:
    """Rebuild ``e`` bottom-up, applying ``f`` to every rebuilt subexpression (conditions
    of selects included); ``Load.row`` is mapped too."""

    def cond(c: Cond) -> Cond:
        match c:
            case Compare(op, left, right, loc):
                return Compare(op, map_expr(left, f), map_expr(right, f), loc)
            case Logical(op, left, right, loc):
                return Logical(op, cond(left), cond(right), loc)
            case Not(operand, loc):
                return Not(cond(operand), loc)

    match e:
        case Const() | Var():
            out: Expr = e
        case Load(array, index, dtype, loc, row, plane):
            new_row = None if row is None else (map_expr(row[0], f), map_expr(row[1], f))
            new_plane = None if plane is None else (map_expr(plane[0], f), map_expr(plane[1], f))
            out = Load(array, map_expr(index, f), dtype, loc, new_row, new_plane)
        case Unary(op, operand, dtype, loc):
            out = Unary(op, map_expr(operand, f), dtype, loc)
        case Binary(op, left, right, dtype, loc):
            out = Binary(op, map_expr(left, f), map_expr(right, f), dtype, loc)
        case Cast(operand, dtype, loc):
            out = Cast(map_expr(operand, f), dtype, loc)
        case Select(c, then, else_, dtype, loc):
            out = Select(cond(c), map_expr(then, f), map_expr(else_, f), dtype, loc)
        case Call(func, arg, dtype, loc):
            out = Call(func, map_expr(arg, f), dtype, loc)
    return f(out)


def map_stmt_exprs(s: Stmt, f: Callable[[Expr], Expr]) -> Stmt:
    """:func:`map_expr` on every expression of statement ``s`` (recursively into loops;
    ``Store.row`` included)."""
    match s:
        case Assign(target, value, loc):
            return Assign(target, map_expr(value, f), loc)
        case Store(array, index, value, loc, row):
            new_row = None if row is None else (map_expr(row[0], f), map_expr(row[1], f))
            return Store(array, map_expr(index, f), map_expr(value, f), loc, new_row)
        case For(var, start, stop, body, loc, descending):
            return For(var, map_expr(start, f), map_expr(stop, f), tuple(map_stmt_exprs(b, f) for b in body), loc,
                       descending)
        case Return(value, loc):
            return Return(None if value is None else map_expr(value, f), loc)


def subexpressions(e: Expr) -> list[Expr]:
    """Every subexpression of ``e``, ``e`` included (operands of conditions and
    ``Load.row`` too; bottom-up, :func:`map_expr`'s order)."""
    out: list[Expr] = []

    def see(x: Expr) -> Expr:
        out.append(x)
        return x

    map_expr(e, see)
    return out


def expr_reads(e: Expr) -> set[str]:
    """The scalar variables ``e`` reads (not arrays)."""
    return {x.name for x in subexpressions(e) if isinstance(x, Var)}


def stmt_expressions(s: Stmt) -> list[Expr]:
    """The expressions of statement ``s`` itself (a loop's bounds, not its body's)."""
    match s:
        case Assign(value=value):
            return [value]
        case Store(index=index, value=value, row=row):
            return [index, value, *(row or ())]
        case For(start=start, stop=stop):
            return [start, stop]
        case Return(value=value):
            return [] if value is None else [value]
        case _:
            assert_never(s)


def is_offset_index(idx: Expr, var: str, assigned: set[str]) -> bool:
    """Whether ``idx`` is ``var``, or ``var + e`` / ``e + var`` with ``e`` free of ``assigned``
    (what a loop assigns, its counters included) and of array reads: an index injective in
    ``var``, one element per value of ``var`` (the dependence tests of
    :mod:`tenspiler.loops.interchange` and :mod:`tenspiler.loops.distribute`)."""
    if isinstance(idx, Var):
        return idx.name == var
    if isinstance(idx, Binary) and idx.op == "+":
        for a, b in ((idx.left, idx.right), (idx.right, idx.left)):
            if isinstance(a, Var) and a.name == var and not (expr_reads(b) & assigned) and \
                    not any(isinstance(n, Load) for n in subexpressions(b)):
                return True
    return False


def all_stmts(body: Sequence[Stmt]) -> list[Stmt]:
    """The statements of ``body`` and of every loop in it, in source order (pre-order)."""
    out: list[Stmt] = []
    for st in body:
        out.append(st)
        if isinstance(st, For):
            out.extend(all_stmts(st.body))
    return out


def assigned_scalars(stmts: Iterable[Stmt]) -> set[str]:
    """The scalars ``stmts`` assign (loop counters included)."""
    out: set[str] = set()
    for s in stmts:
        match s:
            case Assign(target):
                out.add(target)
            case For(var, _, _, body):
                out.add(var)
                out |= assigned_scalars(body)
            case Store() | Return():
                pass
            case _:
                assert_never(s)
    return out


def uses_floats(fn: Function) -> bool:
    """Whether ``fn`` has a float or double parameter, local, result or expression."""
    dtypes = [d for _, d in fn.locals]
    dtypes += [p.type.elem if isinstance(p.type, PointerType) else p.type.dtype for p in fn.params]
    if fn.return_dtype is not None:
        dtypes.append(fn.return_dtype)

    def see(e: Expr) -> Expr:
        d = getattr(e, "dtype", None)
        if d is not None:
            dtypes.append(d)
        return e

    for st in fn.body:
        map_stmt_exprs(st, see)
    return any(d.is_float for d in dtypes)


def forward_index_temporaries(stmts: Sequence[Stmt], dtypes: Mapping[str, DType]) -> tuple[Stmt, ...]:
    """Copy propagation of index temporaries: ``t = e`` (``t`` a local of the mathematical
    ``INT`` type, ``e`` an ``INT`` expression of scalars only, not ``t`` itself: no array
    read, no call) is
    substituted into the statements after it in the same block, up to the first one that
    assigns ``t`` or a scalar ``e`` reads (that statement's value too when it is an
    assignment, whose value is read before it assigns; the rest keep reading ``t``).
    ``int index = b*F*S + f*S + k; x[index] = …`` then indexes ``x`` by the affine
    expression itself. Exact: ``t`` holds ``e``'s value at every substituted read, ``e``'s
    scalars being unchanged since; the assignment is kept (a later analysis drops dead ones).
    Loop bodies are rewritten first, innermost out."""
    out = [replace(s, body=forward_index_temporaries(s.body, dtypes)) if isinstance(s, For) else s
           for s in stmts]
    for p, s in enumerate(out):
        if not (isinstance(s, Assign) and dtypes.get(s.target) is DType.INT and getattr(s.value, "dtype", None)
                is DType.INT and not any(isinstance(x, Load | Call) for x in subexpressions(s.value))
                and s.target not in expr_reads(s.value)):  # (``p = p + 1``: a later ``p`` is the new value)
            continue
        deps = expr_reads(s.value) | {s.target}
        name, value = s.target, s.value

        def forward(x: Expr, name: str = name, value: Expr = value) -> Expr:
            return value if isinstance(x, Var) and x.name == name else x

        for q in range(p + 1, len(out)):
            if assigned_scalars([out[q]]) & deps:
                if isinstance(out[q], Assign):  # (its value is read before it assigns)
                    out[q] = map_stmt_exprs(out[q], forward)
                break
            out[q] = map_stmt_exprs(out[q], forward)
    return tuple(out)
