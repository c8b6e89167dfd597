"""C11 §6.3 typing of a kernel: the gate that keeps the loop IR's integer model exact.

The loop IR models ``int`` and ``long`` as mathematical integers (their overflow is
undefined behaviour, C11 §6.5p5, so on every input where C is defined the two agree) and the
:data:`MODELLED` types — ``signed char``, ``unsigned char``, ``short``, ``unsigned short``,
``unsigned int`` — as ranged types with conversions into them reducing modulo 2ⁿ (C11
§6.3.1.3p2; for the signed ones GCC's implementation-defined two's complement reduction,
§6.3.1.3p3), and ``unsigned int`` arithmetic as the mathematical result so reduced (C11
§6.2.5p9: the lowering, ``c_exprs.Expressions.binary``, reads each arithmetic node's type
from this gate). That model is exact only if no value is computed in an unsigned type wider
than 32 bits (which wraps modulo 2⁶⁴) and no conversion narrows a value into ``int`` or
``long`` that cannot hold it (implementation-defined, C11 §6.3.1.3p3). This module types
every expression of the kernel and of the helpers it calls by the standard — integer
promotions (§6.3.1.1), usual arithmetic conversions (§6.3.1.8), the type of each integer
literal by its base and suffix (§6.4.4.1), conversion as if by assignment on ``=``, ``op=``,
initialisation, ``return`` and argument passing (§6.5.16.1, §6.8.6.4, §6.5.2.2) and on casts
— and refuses, with a located :class:`~tenspiler.errors.BadInput` naming the rule, every
place where the model would differ from C:

* arithmetic (``+ - * / %``, unary ``-``, ``op=``) whose type after the usual arithmetic
  conversions is ``unsigned long``, e.g. ``i - v.size()`` (``size_t``), where the unsigned
  result can differ from the mathematical one: refused (``unsigned int`` arithmetic, e.g.
  ``a[i] - 1u``, is modelled). The gate knows a *range* of every integer expression's mathematical value
  (constants, the types, ``v.size()`` in ``[0, MAX_VECTOR_SIZE]``, a local initialised once
  and never assigned again, the counter of an ascending loop from a non-negative start that
  nothing but the step assigns, interval arithmetic). An unsigned ``+ - *`` whose range
  lies in ``[0, max]`` of its type is exact (the unsigned result is congruent to the
  mathematical one modulo 2ⁿ and both lie in ``[0, 2ⁿ)``); ``/``, ``%`` and comparisons
  in an unsigned type are exact when both operands are non-negative (and exact). An
  unsigned ``+ - *`` that may wrap is still *congruent* to its mathematical value modulo
  2ⁿ; it is accepted only when it is an operand of another such ``+ - *`` of the same type,
  or converted (initialisation, assignment, cast, return, argument, ``push_back``) to an
  integer type of at most n bits whose range holds its mathematical value (or to ``unsigned
  char``, modelled modulo 256) — ``int ow = img[0].size() - k + 1;``: GCC reduces modulo
  2^32, which gives the mathematical value back. Any other use refuses it at the operator
  that may wrap;
* a conversion between integer types that does not preserve every value of the source
  type, e.g. a ``long`` stored into an ``int`` array — unless the range of the converted
  value fits (an integer constant expression, ``int n = v.size();``), or the destination
  is one of the :data:`MODELLED` types (exact, modulo 2ⁿ).

Shifts and bitwise operators are typed here (C11 §6.5.7p3: the promoted left operand's type;
``& | ^``: the usual arithmetic conversions) and lowered by ``c_exprs`` (which refuses shift
counts that are not constants in ``[0, width)``).

C++ ``v.size()`` is a ``size_t`` (``unsigned long``). Its range is ``[0,
MAX_VECTOR_SIZE]``: the model's size parameters are mathematical integers, and a kernel
that converts a size to ``int`` (``int n = v.size();``) agrees with C++ only while the
size fits; the bound ``2^30`` leaves room for a sum or difference of two sizes and a small
constant (``img.size() - k + 1``). The generated entry must check every vector size
against it (see :data:`MAX_VECTOR_SIZE`).

Conversions to and between floating types, and from floating to integer types, are left to
the real-number model (stated in every certificate); their C semantics is the lowering's.
Expressions the typing does not know (they are refused by the lowering or carry no integer
risk) get type ``None`` and are not checked further.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pycparser import c_ast

from tenspiler.errors import BadInput, SourceLoc
from tenspiler.frontend.c_induction import Induction, analyze

__all__ = [
    "MAX_VECTOR_SIZE", "MODELLED", "CFloat", "CInt", "CPtr", "CType", "TypeGate", "literal_type", "usual_conversion",
]


@dataclass(frozen=True)
class CInt:
    """An integer type of the LP64 data model (GCC on x86-64 and AArch64 Linux)."""

    name: str
    bits: int
    signed: bool
    rank: int  # C11 §6.3.1.1p1: _Bool < char < short < int < long < long long

    @property
    def lo(self) -> int:
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def hi(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1

    def holds(self, other: CInt) -> bool:
        """Every value of ``other`` is a value of this type."""
        return self.lo <= other.lo and other.hi <= self.hi

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class CFloat:
    name: str  # float, double, long double

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class CPtr:
    elem: CType | None

    def __str__(self) -> str:
        return f"{self.elem} *"


CType = CInt | CFloat | CPtr

BOOL = CInt("_Bool", 1, False, 0)
SCHAR = CInt("signed char", 8, True, 1)
UCHAR = CInt("unsigned char", 8, False, 1)
SHORT = CInt("short", 16, True, 2)
USHORT = CInt("unsigned short", 16, False, 2)
INT = CInt("int", 32, True, 3)
UINT = CInt("unsigned int", 32, False, 3)
LONG = CInt("long", 64, True, 4)
ULONG = CInt("unsigned long", 64, False, 4)
LLONG = CInt("long long", 64, True, 5)
ULLONG = CInt("unsigned long long", 64, False, 5)
#: The integer types the loop IR models exactly as ranged types (``loops.ir.RANGED_INTS``): a
#: conversion to one reduces modulo 2ⁿ into its range (C11 §6.3.1.3p2; for the signed ones GCC's
#: implementation-defined two's complement reduction, §6.3.1.3p3), and ``unsigned int``
#: arithmetic is the mathematical result so reduced (C11 §6.2.5p9).
MODELLED = frozenset({SCHAR, UCHAR, SHORT, USHORT, UINT})
FLOAT = CFloat("float")
DOUBLE = CFloat("double")
LDOUBLE = CFloat("long double")

#: The largest C++ vector size (of each dimension) the model's exactness relies on: the
#: gate reads ``v.size()`` as a value in ``[0, MAX_VECTOR_SIZE]``, so ``int n = v.size();``
#: and ``int oh = img.size() - k + 1;`` (``k`` a size) keep their mathematical values. The
#: generated entry taking vectors must refuse larger sizes.
MAX_VECTOR_SIZE = 1 << 30

#: ``<stdint.h>``/``<stddef.h>`` names the frontend knows, as GCC defines them on LP64.
TYPEDEF_NAMES: dict[str, CType] = {
    "int8_t": SCHAR, "uint8_t": UCHAR, "int16_t": SHORT, "uint16_t": USHORT,
    "int32_t": INT, "uint32_t": UINT, "int64_t": LONG, "uint64_t": ULONG,
    "size_t": ULONG, "ptrdiff_t": LONG, "ssize_t": LONG,
}


def type_of_words(words: list[str], char_signed: bool = True) -> CType | None:
    """The type named by a list of type specifiers (``["unsigned", "long"]``), or
    ``None`` (void, structs, unknown names)."""
    ws = [w for w in words if w not in ("const", "volatile", "restrict", "static", "register", "auto", "extern", "inline")]
    if len(ws) == 1 and ws[0] in TYPEDEF_NAMES:
        return TYPEDEF_NAMES[ws[0]]
    if ws == ["float"]:
        return FLOAT
    if ws == ["double"]:
        return DOUBLE
    if sorted(ws) == ["double", "long"]:
        return LDOUBLE
    if ws == ["_Bool"]:
        return BOOL
    known = {"int", "long", "short", "signed", "unsigned", "char"}
    if not ws or not set(ws) <= known:
        return None
    unsigned = "unsigned" in ws
    if "char" in ws:
        if unsigned:
            return UCHAR
        if "signed" in ws:
            return SCHAR
        return SCHAR if char_signed else UCHAR  # plain char: the target's signedness
    if "short" in ws:
        return USHORT if unsigned else SHORT
    longs = ws.count("long")
    if longs >= 2:
        return ULLONG if unsigned else LLONG
    if longs == 1:
        return ULONG if unsigned else LONG
    return UINT if unsigned else INT


def promote(t: CType | None) -> CType | None:
    """Integer promotion (C11 §6.3.1.1p2): ranks below ``int`` become ``int`` (every value
    of those types fits in ``int`` on LP64)."""
    if isinstance(t, CInt) and t.rank < INT.rank:
        return INT
    return t


def usual_conversion(a: CType | None, b: CType | None) -> CType | None:
    """The common real type of the usual arithmetic conversions (C11 §6.3.1.8p1)."""
    if a is None or b is None or isinstance(a, CPtr) or isinstance(b, CPtr):
        return None
    for f in (LDOUBLE, DOUBLE, FLOAT):
        if f in (a, b):
            return f
    assert isinstance(a, CInt) and isinstance(b, CInt)
    a, b = promote(a), promote(b)
    assert isinstance(a, CInt) and isinstance(b, CInt)
    if a == b:
        return a
    if a.signed == b.signed:
        return a if a.rank >= b.rank else b
    u, s = (a, b) if not a.signed else (b, a)
    if u.rank >= s.rank:
        return u
    if s.holds(u):
        return s
    return {INT: UINT, LONG: ULONG, LLONG: ULLONG}[s]


def literal_type(text: str) -> tuple[CInt, int] | None:
    """Type and value of an integer constant by its base and suffix (C11 §6.4.4.1p5: the
    first type of its list that can represent the value), or ``None`` if none can."""
    t = text.lower()
    suffix = ""
    while t and t[-1] in "ul":
        suffix = t[-1] + suffix
        t = t[:-1]
    if t.startswith("0x"):
        value, decimal = int(t[2:], 16), False
    elif t.startswith("0b"):
        value, decimal = int(t[2:], 2), False
    elif len(t) > 1 and t.startswith("0"):
        value, decimal = int(t, 8), False
    else:
        value, decimal = int(t), True
    unsigned = "u" in suffix
    longs = suffix.count("l")
    if unsigned:
        candidates = [UINT, ULONG, ULLONG][min(longs, 2) :]
    elif decimal:
        candidates = [INT, LONG, LLONG][min(longs, 2) :]
    else:
        candidates = [INT, UINT, LONG, ULONG, LLONG, ULLONG][2 * min(longs, 2) :]
    for c in candidates:
        if c.lo <= value <= c.hi:
            return c, value
    return None


Range = tuple[int, int]


def _combine(op: str, a: Range, b: Range) -> Range | None:
    """The range of ``x op y`` for ``x`` in ``a`` and ``y`` in ``b`` (mathematical values;
    ``/`` and ``%`` only for a non-negative dividend and a positive divisor)."""
    if op == "+":
        return a[0] + b[0], a[1] + b[1]
    if op == "-":
        return a[0] - b[1], a[1] - b[0]
    if op == "*":
        ps = [x * y for x in a for y in b]
        return min(ps), max(ps)
    if a[0] >= 0 and b[0] >= 1:
        if op == "/":
            return a[0] // b[1], a[1] // b[0]
        if op == "%":
            return 0, min(a[1], b[1] - 1)
    return None


def _assigned_names(node: c_ast.Node | None) -> set[str]:
    """The names ``node`` assigns (``=``, ``op=``, ``++``, ``--``) or takes the address of."""
    out: set[str] = set()
    if node is None:
        return out
    stack = [node]
    while stack:
        n = stack.pop()
        match n:
            case c_ast.Assignment(lvalue=c_ast.ID(name=name)):
                out.add(name)
            case c_ast.UnaryOp(op="++" | "--" | "p++" | "p--" | "&", expr=c_ast.ID(name=name)):
                out.add(name)
        stack.extend(child for _, child in n.children())
    return out


_ARITH = frozenset({"+", "-", "*", "/", "%"})
_CMP = frozenset({"<", ">", "<=", ">=", "==", "!="})
_MATH_DOUBLE = frozenset({"exp", "sqrt", "log", "fabs", "tanh", "expm1", "cos", "sin", "pow", "fmin", "fmax", "round", "floor"})
_MATH_FLOAT = frozenset({"expf", "sqrtf", "logf", "fabsf", "tanhf", "expm1f", "cosf", "sinf", "powf", "fminf", "fmaxf", "roundf", "floorf"})


class TypeGate:
    """Types the kernel and the helpers it calls; refuses the places listed in the module
    docstring.

    Args:
        filename: for locations.
        resolve: expands a user typedef name to its type node (``_Unit.resolve_typedefs``).
        struct_fields: the field declarations of the struct named by a type node, or
            ``None`` if it is not a struct.
        vector_elem: for the C++ subset, the element type words and rank of a vector
            typedef name.
        funcdefs: the file's function definitions by name (helpers).
        char_signed: whether plain ``char`` is signed on the target.
        enum_unsigned: for an enum type node, whether GCC gives it ``unsigned int``
            (``True``) or ``int`` (``False``); ``None`` if it is not an enum.
        file_scope: the declared type nodes of the file-scope constants by name.
        enum_constants: the file's enumeration constants (type ``int``) and their values.
    """

    def __init__(
        self,
        filename: str,
        resolve: Callable[[c_ast.Node], c_ast.Node],
        struct_fields: Callable[[c_ast.Node], list[c_ast.Decl] | None],
        vector_elem: Callable[[c_ast.Node], tuple[list[str], int] | None],
        funcdefs: dict[str, c_ast.FuncDef],
        char_signed: bool = True,
        enum_unsigned: Callable[[c_ast.Node], bool | None] | None = None,
        file_scope: dict[str, c_ast.Node] | None = None,
        enum_constants: dict[str, int] | None = None,
    ) -> None:
        self.filename = filename
        self.resolve = resolve
        self.struct_fields = struct_fields
        self.vector_elem = vector_elem
        self.funcdefs = funcdefs
        self.char_signed = char_signed
        self.enum_unsigned = enum_unsigned or (lambda ty: None)
        self.file_scope = file_scope or {}
        self.enum_constants = enum_constants or {}
        self.checked: set[str] = set()
        self.scopes: list[dict[str, c_ast.Node]] = []
        self.ret: list[CType | None] = []
        #: the type of each expression node typed (by ``id``: each node is typed once)
        self.types: dict[int, CType | None] = {}
        #: the mathematical range of each integer expression node computed
        self.math_ranges: dict[int, Range] = {}
        #: unsigned ``+ - *`` nodes whose C value is only congruent to the mathematical one
        self.wrapping: set[int] = set()
        #: those of them not yet accepted by their use: (message, node) of the operator that
        #: may wrap, refused at the end of the full expression
        self.pending: dict[int, tuple[str, c_ast.Node]] = {}
        #: value ranges of locals (by ``id`` of their declaration's type node)
        self.local_ranges: dict[int, Range] = {}
        #: the names the function being checked assigns anywhere
        self.assigned: set[str] = set()
        #: the step nodes (``c--``, ``c -= 1``, the ``c - 1`` of ``c = c - 1``) of loop
        #: counters proved not to wrap (:meth:`counted_loop`), and the C type of each
        #: counted loop's counter (by ``id`` of the loop node), for the lowering
        self.exact_steps: set[int] = set()
        self.counter_types: dict[int, CInt] = {}
        #: ranges the enclosing ``if`` conditions give variables nothing in the function
        #: assigns (by ``id`` of their declaration's type node), innermost last
        self.refined: list[dict[int, Range]] = []
        #: operands (by ``id``) of explicit casts from ``unsigned int`` to a 32-bit signed type
        #: whose value may not fit: the lowering reduces them modulo 2^32 as GCC does
        self.wrap_casts: set[int] = set()

    # ------------------------------------------------------------------ errors

    def fail(self, message: str, node: c_ast.Node) -> None:
        coord = getattr(node, "coord", None)
        loc = SourceLoc(coord.file or self.filename, coord.line, coord.column or 1) if coord else SourceLoc(self.filename, 1, 1)
        raise BadInput(message, loc)

    # ------------------------------------------------------------------ types of declarations

    def decl_type(self, ty: c_ast.Node) -> CType | None:
        """The C type of a declarator's type node (``None``: struct, vector, void, unknown)."""
        unsigned_enum = self.enum_unsigned(ty)
        if unsigned_enum is not None:
            return UINT if unsigned_enum else INT
        ty = self.resolve(ty)
        match ty:
            case c_ast.PtrDecl(type=inner) | c_ast.ArrayDecl(type=inner):
                return CPtr(self.decl_type(inner))
            case c_ast.TypeDecl(type=c_ast.IdentifierType(names=names)):
                vec = self.vector_elem(ty)
                if vec is not None:
                    t: CType | None = type_of_words(vec[0], self.char_signed)
                    for _ in range(vec[1]):
                        t = CPtr(t)
                    return t
                return type_of_words(list(names), self.char_signed)
        return None

    def bind(self, name: str, ty: c_ast.Node) -> None:
        self.scopes[-1][name] = ty

    def lookup(self, name: str) -> c_ast.Node | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name in self.enum_constants:
            return _INT_NODE
        return self.file_scope.get(name)

    # ------------------------------------------------------------------ functions

    def check_function(self, fdef: c_ast.FuncDef) -> None:
        """Type-check ``fdef`` (and, once each, the helpers it calls)."""
        name = fdef.decl.name
        if name in self.checked:
            return
        self.checked.add(name)
        saved = self.scopes, self.pending, self.assigned
        self.scopes, self.pending, self.assigned = [{}], {}, _assigned_names(fdef.body)
        fdecl = fdef.decl.type
        for p in fdecl.args.params if fdecl.args is not None else []:
            if isinstance(p, c_ast.Decl) and p.name is not None:
                self.bind(p.name, p.type)
        self.ret.append(self.decl_type(fdecl.type))
        try:
            self.stmt(fdef.body)
            self.flush()
        finally:
            self.ret.pop()
            self.scopes, self.pending, self.assigned = saved

    # ------------------------------------------------------------------ statements

    def stmt(self, node: c_ast.Node | None) -> None:
        match node:
            case None:
                return
            case c_ast.Compound(block_items=items):
                self.scopes.append({})
                for it in items or []:
                    self.stmt(it)
                self.scopes.pop()
            case c_ast.For(init=init, cond=cond, next=nxt, stmt=body):
                self.scopes.append({})
                self.stmt(init)
                self.flush()
                self.counter_range(node)
                self.counted_loop(node)
                if cond is not None:
                    self.expr(cond)
                    self.flush()
                if nxt is not None:
                    self.expr(nxt)
                    self.flush()
                self.stmt(body)
                self.scopes.pop()
            case c_ast.DeclList(decls=decls):
                for d in decls:
                    self.stmt(d)
            case c_ast.Decl(name=name, type=ty, init=init):
                if name is None or isinstance(ty, c_ast.FuncDecl):
                    return
                if init is not None and not isinstance(init, c_ast.InitList):
                    dst = self.decl_type(ty)
                    self.convert(self.expr(init), dst, init, "initialisation")
                    self.flush()
                    r = self.rng(init)
                    if isinstance(dst, CInt) and r is not None and name not in self.assigned:
                        # a local nothing assigns again keeps its initial value
                        fits = dst.lo <= r[0] and r[1] <= dst.hi
                        self.local_ranges[id(ty)] = r if fits else (dst.lo, dst.hi)
                self.bind(name, ty)
            case c_ast.If(cond=cond, iftrue=t, iffalse=f):
                self.expr(cond)
                self.flush()
                self.refined.append(self.condition_ranges(cond))
                try:
                    self.stmt(t)
                finally:
                    self.refined.pop()
                self.stmt(f)
            case c_ast.While(cond=cond, stmt=body) | c_ast.DoWhile(cond=cond, stmt=body):
                self.counted_loop(node)
                self.expr(cond)
                self.flush()
                self.stmt(body)
            case c_ast.Return(expr=e):
                if e is not None:
                    self.convert(self.expr(e), self.ret[-1] if self.ret else None, e, "return")
                    self.flush()
            case c_ast.Label(stmt=s):
                self.stmt(s)
            case _:
                if isinstance(node, c_ast.Node) and not isinstance(
                    node, c_ast.Typedef | c_ast.Pragma | c_ast.EmptyStatement
                ) and _is_expr(node):
                    self.expr(node)
                    self.flush()
                else:
                    for _, child in node.children():
                        self.stmt(child)

    # ------------------------------------------------------------------ expressions

    def flush(self) -> None:
        """Refuse an unsigned operation that may wrap and whose use did not accept it (the
        end of a full expression)."""
        for message, at in self.pending.values():
            self.fail(message, at)

    def require_exact(self, node: c_ast.Node) -> None:
        """``node``'s C value must be its mathematical value (not only congruent to it)."""
        found = self.pending.get(id(node))
        if found is not None:
            self.fail(*found)

    def counter_range(self, loop: c_ast.For) -> None:
        """Record the range of the counter of an ascending loop (``for (int i = S; ...;
        i++ | ++i | i += c | i = i + c)``, ``c >= 1``) whose start ``S`` is non-negative and
        which neither the condition nor the body assigns: every value it takes is at least
        ``S`` (its increments past the type's maximum are undefined behaviour)."""
        init = loop.init
        decls = init.decls if isinstance(init, c_ast.DeclList) else [init]
        if len(decls) != 1 or not isinstance(decls[0], c_ast.Decl) or decls[0].init is None:
            return
        d = decls[0]
        t = self.decl_type(d.type)
        if not isinstance(t, CInt) or d.name in _assigned_names(loop.cond) | _assigned_names(loop.stmt):
            return

        def is_var(n: c_ast.Node) -> bool:
            return isinstance(n, c_ast.ID) and n.name == d.name

        def positive(n: c_ast.Node) -> bool:
            v = self.constant_value(n)
            return v is not None and v >= 1

        match loop.next:
            case c_ast.UnaryOp(op="++" | "p++", expr=e) if is_var(e):
                pass
            case c_ast.Assignment(op="+=", lvalue=e, rvalue=c) if is_var(e) and positive(c):
                pass
            case c_ast.Assignment(op="=", lvalue=e, rvalue=c_ast.BinaryOp(op="+", left=a, right=b)) if is_var(e) and (
                (is_var(a) and positive(b)) or (is_var(b) and positive(a))
            ):
                pass
            case _:
                return
        start = self.rng(d.init)
        if start is not None and start[0] >= 0:
            self.local_ranges[id(d.type)] = (start[0], t.hi)

    def counted_loop(self, loop: c_ast.For | c_ast.While | c_ast.DoWhile) -> None:
        """The step of an *unsigned* loop counter (:mod:`tenspiler.frontend.c_induction`)
        is exact when it cannot wrap: a decrement only runs while the counter is above a
        bound ``>= 0`` (``c > L``, ``c != 0``, ``c >= L`` with ``L >= 1``), an increment
        only while it is below a bound (``c < B``, ``c <= B`` with ``B`` below the
        type's maximum). The decrement of ``while (c--)`` wraps once, in the test that
        ends the loop: the lowering gives the counter its wrapped value after the loop.
        Refused by name: a step in the condition before the test (``--c``), the first
        iteration of a ``do``-``while`` (it runs before any test), ``!=`` with another
        bound."""
        ind = analyze(loop)
        if not isinstance(ind, Induction):
            return
        ty = self.lookup(ind.counter)
        t = self.decl_type(ty) if ty is not None else None
        if not isinstance(t, CInt):
            return
        self.counter_types[id(loop)] = t
        if t.signed or t.rank < INT.rank:
            return  # computed in int: exact (its overflow is undefined); narrow stores are the gate's
        name = ind.counter

        def why() -> str | None:
            if isinstance(loop, c_ast.DoWhile):
                return ("the first iteration of a do-while loop runs before its condition is tested, so the "
                        f"step of unsigned '{name}' may wrap")
            if ind.where == "cond-pre":
                return f"'{render_step(ind)}' in the loop condition wraps when '{name}' is at its limit"
            lo = self.rng(ind.bound) if ind.bound is not None else (0, 0)
            if lo is None:
                return "the loop bound is not an integer"
            if ind.step < 0:
                if ind.op == ">" or (ind.op == "!=" and lo == (0, 0)):
                    return None
                if ind.op == ">=" and lo[0] >= 1:
                    return None
                return f"the loop condition does not keep unsigned '{name}' above 0 before it is decremented"
            if ind.op == "<" and ind.where != "cond-post":
                return None
            if ind.op in ("<", "<=") and lo[1] < t.hi - 1:
                return None
            return f"the loop condition does not keep unsigned '{name}' below its maximum before it is incremented"

        reason = why()
        if reason is not None:
            self.fail(f"unsigned loop counter '{name}' may wrap modulo 2^{t.bits} (C11 §6.2.5p9): {reason}",
                      ind.step_node)
        step = ind.step_node
        self.exact_steps.add(id(step))
        if isinstance(step, c_ast.Assignment) and step.op == "=":
            self.exact_steps.add(id(step.rvalue))

    def condition_ranges(self, cond: c_ast.Node) -> dict[int, Range]:
        """The ranges condition ``cond`` gives the variables it compares with constants
        where it holds: the conjuncts ``x OP c`` / ``c OP x`` (``OP`` one of ``< <= > >=
        ==``) of an integer variable ``x`` that nothing in the function assigns, whose value
        the comparison's common type (C11 §6.3.1.8) holds, as does the constant's. Keyed
        by ``id`` of ``x``'s declaration's type node (a shadowing declaration is another
        variable)."""
        out: dict[int, Range] = {}
        flip = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "=="}

        def conjunct(node: c_ast.Node) -> None:
            match node:
                case c_ast.BinaryOp(op="&&", left=a, right=b):
                    conjunct(a)
                    conjunct(b)
                case c_ast.BinaryOp(op=op, left=a, right=b) if op in flip:
                    if not isinstance(a, c_ast.ID):
                        a, b, op = b, a, flip[op]
                    if not isinstance(a, c_ast.ID) or a.name in self.assigned:
                        return
                    ty = self.lookup(a.name)
                    xt, v = (self.decl_type(ty) if ty is not None else None), self.constant_value(b)
                    common = usual_conversion(xt, self.expr(b))
                    if not (isinstance(xt, CInt) and isinstance(common, CInt) and v is not None
                            and common.holds(xt) and common.lo <= v <= common.hi):
                        return
                    lo, hi = out.get(id(ty), (xt.lo, xt.hi))
                    match op:
                        case "<":
                            hi = min(hi, v - 1)
                        case "<=":
                            hi = min(hi, v)
                        case ">":
                            lo = max(lo, v + 1)
                        case ">=":
                            lo = max(lo, v)
                        case "==":
                            lo, hi = max(lo, v), min(hi, v)
                    out[id(ty)] = (lo, hi)

        conjunct(cond)
        return out

    def rng(self, node: c_ast.Node) -> Range | None:
        """A range of the mathematical value (the model's) of integer expression ``node``,
        or ``None`` if it is not an integer expression. On every execution where C is
        defined, C's value is the mathematical one, except for the unsigned ``+ - *`` that
        may wrap (:attr:`wrapping`), where it is congruent to it."""
        t = self.expr(node)
        if not isinstance(t, CInt):
            return None
        key = id(node)
        r = self.math_ranges.get(key)
        if r is None:
            r = self.math_ranges[key] = self._math_range(node, t)
        if key not in self.wrapping and t in MODELLED and not (t.lo <= r[0] and r[1] <= t.hi):
            r = (t.lo, t.hi)  # an unsigned int result reduced modulo 2^32 (never undefined)
        elif key not in self.wrapping:
            r = (max(r[0], t.lo), min(r[1], t.hi))
            if r[0] > r[1]:  # no defined execution computes it
                r = (t.lo, t.hi)
        return r

    def _math_range(self, node: c_ast.Node, t: CInt) -> Range:
        v = self.constant_value(node)
        if v is not None:
            return v, v
        found: Range | None = None
        match node:
            case c_ast.FuncCall(name=c_ast.StructRef(field=c_ast.ID(name="size"))):
                found = (0, MAX_VECTOR_SIZE)
            case c_ast.ID(name=name):
                ty = self.lookup(name)
                found = self.local_ranges.get(id(ty)) if ty is not None else None
                for ranges in self.refined if ty is not None else []:
                    if id(ty) in ranges:
                        lo, hi = found if found is not None else (t.lo, t.hi)
                        found = (max(lo, ranges[id(ty)][0]), min(hi, ranges[id(ty)][1]))
                if found is not None and found[0] > found[1]:
                    found = None  # no execution reaches it: any range is sound
            case c_ast.UnaryOp(op="-" | "+" as op, expr=e):
                r = self.rng(e)
                if r is not None:
                    found = r if op == "+" else (-r[1], -r[0])
            case c_ast.BinaryOp(op=op, left=a, right=b) if op in _ARITH:
                ra, rb = self.rng(a), self.rng(b)
                if ra is not None and rb is not None:
                    found = _combine(op, ra, rb)
            case c_ast.BinaryOp(op="&", left=a, right=b):
                masks = [v for v in (self.constant_value(a), self.constant_value(b)) if v is not None and v >= 0]
                if masks:
                    found = (0, min(masks))  # x & m lies in [0, m] for m >= 0
            case c_ast.BinaryOp(op="<<", left=a, right=b):
                ra, rk = self.rng(a), self.rng(b)
                if ra is not None and rk is not None and ra[0] >= 0 and rk[0] >= 0 and rk[1] < t.bits:
                    found = (ra[0] << rk[0], ra[1] << rk[1])  # (an unsigned result past 2^n: rng)
            case c_ast.BinaryOp(op=">>", left=a, right=b):
                ra, k = self.rng(a), self.constant_value(b)
                if ra is not None and k is not None and 0 <= k < 64:
                    found = (ra[0] >> k, ra[1] >> k)
            case c_ast.Cast(expr=e):
                r = self.rng(e)
                if r is not None and t.lo <= r[0] and r[1] <= t.hi:
                    found = r
            case c_ast.TernaryOp(iftrue=a, iffalse=b):
                ra, rb = self.rng(a), self.rng(b)
                if ra is not None and rb is not None:
                    found = (min(ra[0], rb[0]), max(ra[1], rb[1]))
        return found if found is not None else (t.lo, t.hi)

    def expr(self, node: c_ast.Node) -> CType | None:
        """The C type of expression ``node`` (after checking its operands, once)."""
        key = id(node)
        if key not in self.types:
            self.types[key] = self._expr(node)
        return self.types[key]

    def _expr(self, node: c_ast.Node) -> CType | None:
        match node:
            case c_ast.Constant(type=kind, value=text):
                if kind in ("int", "unsigned int", "long int", "unsigned long int", "long long int", "unsigned long long int"):
                    typed = literal_type(text)
                    if typed is None:
                        self.fail(f"integer constant '{text}' is too large for any integer type", node)
                    return typed[0] if typed else None
                if kind == "float":
                    return FLOAT
                if kind == "double":
                    return LDOUBLE if text.lower().endswith("l") else DOUBLE
                if kind == "char":
                    return INT
                return None
            case c_ast.ID(name=name):
                ty = self.lookup(name)
                return self.decl_type(ty) if ty is not None else None
            case c_ast.ArrayRef(name=base, subscript=sub):
                self.expr(sub)
                t = self.expr(base)
                return t.elem if isinstance(t, CPtr) else None
            case c_ast.StructRef(name=base, field=field, type="." | "->" as kind):
                bty = self._struct_decl_of(base)
                if bty is not None and kind == "->":
                    bty = self.resolve(bty)
                    bty = bty.type if isinstance(bty, c_ast.PtrDecl) else None
                if bty is None:
                    return None
                fields = self.struct_fields(bty) or []
                for f in fields:
                    if isinstance(f, c_ast.Decl) and f.name == field.name:
                        return self.decl_type(f.type)
                return None
            case c_ast.UnaryOp(op=op, expr=operand):
                return self.unary(op, operand, node)
            case c_ast.BinaryOp(op=op, left=left, right=right):
                return self.binary(op, left, right, node)
            case c_ast.TernaryOp(cond=c, iftrue=t, iffalse=f):
                self.expr(c)
                a, b = self.expr(t), self.expr(f)
                if isinstance(a, CPtr) or isinstance(b, CPtr):
                    return a if isinstance(a, CPtr) else b
                common = usual_conversion(a, b)
                # each branch is converted to the common type (C11 §6.5.15p5): an int branch
                # of an unsigned ?: wraps like any other conversion
                self.convert(a, common, t, "'?:' branch")
                self.convert(b, common, f, "'?:' branch")
                return common
            case c_ast.Cast(to_type=to, expr=operand):
                dst = self.decl_type(to.type)
                self.convert(self.expr(operand), dst, operand, "cast")
                return dst
            case c_ast.Assignment(op=op, lvalue=lv, rvalue=rv):
                lt, rt = self.expr(lv), self.expr(rv)
                if op == "=":
                    self.convert(rt, lt, rv, "assignment")
                elif op[:-1] in _ARITH:
                    common = self.arith(op[:-1], lt, rt, lv, rv, node)
                    self.convert(common, lt, node, f"compound assignment '{op}'", constant=False)
                return lt
            case c_ast.FuncCall(name=c_ast.ID(name=fname), args=args):
                return self.call(fname, args.exprs if args is not None else [], node)
            case c_ast.FuncCall(name=c_ast.StructRef(name=obj, field=c_ast.ID(name=method), type="."), args=args):
                return self.member_call(obj, method, args.exprs if args is not None else [])
            case c_ast.ExprList(exprs=exprs):
                t = None
                for e in exprs:
                    t = self.expr(e)
                return t
        for _, child in node.children():
            if _is_expr(child):
                self.expr(child)
        return None

    def _struct_decl_of(self, base: c_ast.Node) -> c_ast.Node | None:
        if isinstance(base, c_ast.ID):
            return self.lookup(base.name)
        return None

    def unary(self, op: str, operand: c_ast.Node, node: c_ast.Node) -> CType | None:
        t = self.expr(operand)
        if op in ("-", "+"):
            p = promote(t)
            self.require_exact(operand)
            if op == "-" and p in MODELLED:
                return p  # modelled: the lowering reduces -x modulo 2^32
            if op == "-" and isinstance(p, CInt) and not p.signed:
                self.fail(f"unary '-' on '{p}' (unsigned arithmetic wraps modulo 2^{p.bits}, C11 §6.2.5p9) is not supported", node)
            return p
        if op == "!":
            return INT
        if op == "~":
            self.require_exact(operand)
            p = promote(t)
            return p if isinstance(p, CInt) else None
        if op == "*":
            return t.elem if isinstance(t, CPtr) else None
        if op == "&":
            return CPtr(t)
        if op in ("++", "--", "p++", "p--"):
            if isinstance(t, CInt) and id(node) not in self.exact_steps:
                one = INT
                common = usual_conversion(t, one)
                if isinstance(common, CInt) and not common.signed and common not in MODELLED:
                    self.fail(f"'{op.lstrip('p')}' on '{t}' (unsigned arithmetic wraps modulo 2^{common.bits}, C11 §6.2.5p9) is not supported", node)
            return t
        return None

    def binary(self, op: str, left: c_ast.Node, right: c_ast.Node, node: c_ast.Node) -> CType | None:
        lt, rt = self.expr(left), self.expr(right)
        if op in ("&&", "||"):
            return INT
        if isinstance(lt, CPtr) or isinstance(rt, CPtr):
            if op in ("+", "-") and isinstance(lt, CPtr) and not isinstance(rt, CPtr):
                return lt
            if op == "+" and isinstance(rt, CPtr):
                return rt
            return INT if op in _CMP else None  # pointer difference: refused by the lowering
        if op in _CMP:
            common = usual_conversion(lt, rt)
            if isinstance(common, CInt) and not common.signed:
                self.require_exact(left)
                self.require_exact(right)
            if isinstance(common, CInt) and not common.signed and common not in MODELLED and not (
                self.nonnegative(left, lt) and self.nonnegative(right, rt)
            ):
                self.fail(
                    f"comparison '{op}' in '{common}' (a signed operand is converted to "
                    f"unsigned, C11 §6.3.1.8) is not supported",
                    node,
                )
            return INT
        if op in _ARITH:
            return self.arith(op, lt, rt, left, right, node)
        if op in ("<<", ">>", "&", "|", "^"):
            # (the lowering models shifts by constants and masks 2^k - 1, refuses the rest)
            self.require_exact(left)
            self.require_exact(right)
            if op in ("<<", ">>"):  # C11 §6.5.7p3: the promoted left operand's type
                p = promote(lt)
                return p if isinstance(p, CInt) else None
            common = usual_conversion(lt, rt)
            return common if isinstance(common, CInt) else None
        return None

    def arith(
        self, op: str, lt: CType | None, rt: CType | None,
        left: c_ast.Node, right: c_ast.Node, node: c_ast.Node,
    ) -> CType | None:
        common = usual_conversion(lt, rt)
        if id(node) in self.exact_steps:
            return common  # a loop counter's step that cannot wrap (counted_loop)
        message = (f"unsigned arithmetic '{op}' in '{common}' (wraps modulo 2^{common.bits}, "
                   "C11 §6.2.5p9) is not supported") if isinstance(common, CInt) else ""
        if not (isinstance(common, CInt) and not common.signed) or common in MODELLED:
            # a value congruent to its mathematical one is exact only in its own type;
            # unsigned int arithmetic is modelled (the lowering reduces it modulo 2^32)
            self.require_exact(left)
            self.require_exact(right)
            return common
        if op in ("/", "%"):
            self.require_exact(left)
            self.require_exact(right)
            if self.nonnegative(left, lt) and self.nonnegative(right, rt):
                return common
            self.fail(message, node)
        if self.constant_value(node) is not None:
            return common  # a constant that does not wrap
        # + - *: congruent to the mathematical value modulo 2^n when the operands are
        roots: list[tuple[str, c_ast.Node]] = []
        for operand, ot in ((left, lt), (right, rt)):
            found = self.pending.get(id(operand))
            if found is not None:
                if promote(ot) != common:
                    self.fail(*found)
                roots.append(self.pending.pop(id(operand)))
        ra, rb = self.rng(left), self.rng(right)
        r = _combine(op, ra, rb) if ra is not None and rb is not None else None
        if r is not None and r[0] >= 0 and r[1] <= common.hi:
            return common  # congruent and both in [0, 2^n): equal
        self.wrapping.add(id(node))
        self.pending[id(node)] = roots[0] if roots else (message, node)
        return common

    def nonnegative(self, node: c_ast.Node, t: CType | None) -> bool:
        """``node``'s C value (before any conversion) is its mathematical value and is
        ≥ 0 (by its type, or by its range: a constant, a size, a loop counter ...)."""
        if id(node) in self.wrapping:
            return False
        r = self.rng(node)
        return r is not None and r[0] >= 0

    def constant_value(self, node: c_ast.Node) -> int | None:
        """The value of a simple integer constant expression (literals, unary ``-``/``+``,
        ``+ - * / %`` and casts), when every intermediate value lies in its C type (so that
        no step wraps or overflows), else ``None``."""
        match node:
            case c_ast.Constant(type=kind, value=text) if "int" in kind:
                typed = literal_type(text)
                return typed[1] if typed else None
            case c_ast.ID(name=name) if self.lookup(name) is _INT_NODE:
                return self.enum_constants[name]
            case c_ast.UnaryOp(op="-" | "+" as op, expr=e):
                v = self.constant_value(e)
                t = promote(self.expr(e))
                if v is None or not isinstance(t, CInt):
                    return None
                r = -v if op == "-" else v
                return r if t.lo <= r <= t.hi else None
            case c_ast.BinaryOp(op=op, left=a, right=b) if op in _ARITH:
                x, y = self.constant_value(a), self.constant_value(b)
                t = usual_conversion(self.expr(a), self.expr(b))
                if x is None or y is None or not isinstance(t, CInt):
                    return None
                if op in ("/", "%"):
                    if y == 0 or (not t.signed and (x < 0 or y < 0)):
                        return None  # C divides the operands converted to unsigned
                    q = abs(x) // abs(y) * (1 if (x >= 0) == (y > 0) else -1)
                    v = q if op == "/" else x - y * q
                else:
                    v = x + y if op == "+" else x - y if op == "-" else x * y
                return v if t.lo <= v <= t.hi else None
            case c_ast.Cast(to_type=to, expr=e):
                v = self.constant_value(e)
                dst = self.decl_type(to.type)
                return v if v is not None and isinstance(dst, CInt) and dst.lo <= v <= dst.hi else None
        return None

    def fits(self, node: c_ast.Node, dst: CInt) -> bool:
        """Every value ``node`` can take lies in ``dst``: its range (:meth:`rng`: a constant
        expression, a ``?:`` whose branches fit, an expression whose own type ``dst``
        holds, a size ...) does."""
        r = self.rng(node)
        return r is not None and dst.lo <= r[0] and r[1] <= dst.hi

    def convert(
        self, src: CType | None, dst: CType | None, node: c_ast.Node, what: str,
        *, constant: bool = True,
    ) -> None:
        """Check a conversion of a value of type ``src`` (the expression ``node``) to
        ``dst`` (C11 §6.3.1.3): integer → integer must keep every value, unless the
        value is a constant that fits (``constant``: ``node`` is the converted value) or
        ``dst`` is ``unsigned char`` (modelled).

        An unsigned ``+ - *`` that may wrap (congruent modulo 2ⁿ to its mathematical value)
        is accepted here only if ``dst`` has at most n bits and holds its mathematical
        value's range (GCC reduces modulo 2^bits, which gives it back), or is ``unsigned
        char``; otherwise it is refused at its operator."""
        found = self.pending.get(id(node))
        if found is not None:
            if constant and isinstance(src, CInt) and isinstance(dst, CInt) and dst.bits <= src.bits and (
                dst in MODELLED or self.fits(node, dst)
            ):
                del self.pending[id(node)]
                return
            self.fail(*found)
        if not (isinstance(src, CInt) and isinstance(dst, CInt)):
            return
        if dst.holds(src) or dst in MODELLED:
            return  # (a conversion to a modelled type wraps modulo 2^n in the model, as in GCC)
        if constant and self.fits(node, dst):
            return
        if what == "cast" and src == UINT and dst.signed and dst.bits == UINT.bits:
            # GCC's implementation-defined conversion (C11 §6.3.1.3p3; GCC manual,
            # "Integers implementation"): reduced modulo 2^32 into the signed range, which the
            # lowering states exactly (c_exprs: Expressions.expr, wrap_casts)
            self.wrap_casts.add(id(node))
            return
        self.fail(
            f"{what}: conversion from '{src}' to '{dst}' may change the value "
            f"(implementation-defined, C11 §6.3.1.3p3; GCC reduces modulo 2^{dst.bits}) is not supported"
            if dst.signed
            else f"{what}: conversion from '{src}' to '{dst}' wraps modulo 2^{dst.bits} "
            "(C11 §6.3.1.3p2) and is not supported",
            node,
        )

    def member_call(self, obj: c_ast.Node, method: str, args: list[c_ast.Node]) -> CType | None:
        """``v.size()`` (a ``size_t``) and ``v.push_back(e)`` (``e`` converted to the
        element type as if by initialisation) of a C++ vector ``v`` (or row ``v[i]``)."""
        t = self.expr(obj)
        types = [self.expr(a) for a in args]
        if not isinstance(t, CPtr):
            return None  # not a vector: refused by the lowering
        if method == "size" and not args:
            return ULONG
        if method == "push_back" and len(args) == 1:
            self.convert(types[0], t.elem, args[0], "push_back argument")
        return None

    def call(self, fname: str, args: list[c_ast.Node], node: c_ast.Node) -> CType | None:
        types = [self.expr(a) for a in args]
        if self.lookup(fname) is None and fname in self.funcdefs:
            fdef = self.funcdefs[fname]
            fdecl = fdef.decl.type
            params = [
                p for p in (fdecl.args.params if fdecl.args is not None else [])
                if isinstance(p, c_ast.Decl)
            ]
            for a, t, p in zip(args, types, params, strict=False):
                self.convert(t, self.decl_type(p.type), a, f"argument '{p.name}' of '{fname}'")
            self.check_function(fdef)
            return self.decl_type(fdecl.type)
        if fname in _MATH_DOUBLE:
            return DOUBLE
        if fname in _MATH_FLOAT:
            return FLOAT
        return None


#: The type ``int`` of an enumeration constant (C11 §6.7.2.2p3), as a declarator.
_INT_NODE = c_ast.TypeDecl(None, [], None, c_ast.IdentifierType(["int"]))


def render_step(ind: Induction) -> str:
    """The spelling of an induction's step in a message (``--n``, ``n++``)."""
    n = ind.step_node
    if isinstance(n, c_ast.UnaryOp):
        return f"{ind.counter}{n.op[1:]}" if n.op.startswith("p") else f"{n.op}{ind.counter}"
    return ind.counter


def _is_expr(node: c_ast.Node) -> bool:
    return isinstance(
        node,
        c_ast.Constant | c_ast.ID | c_ast.ArrayRef | c_ast.StructRef | c_ast.UnaryOp
        | c_ast.BinaryOp | c_ast.TernaryOp | c_ast.Cast | c_ast.Assignment | c_ast.FuncCall
        | c_ast.ExprList,
    )
