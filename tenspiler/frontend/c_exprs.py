"""Expressions and conditions of the C frontend, with C's conversions made explicit: the
usual arithmetic conversions (C11 §6.3.1.8) and integer promotion become
:class:`~tenspiler.loops.ir.Cast` nodes (folded on literals), comparisons and ``&&``/``||``/
``!`` are conditions (as values, the int 1 or 0), and updates (``x = E``, ``x op= E``,
``x++``) are split into their target and converted value."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import numpy as np
from pycparser import c_ast

from tenspiler.errors import SourceLoc
from tenspiler.frontend.c_access import Access
from tenspiler.frontend.c_bindings import (
    Array,
    CxxResult,
    Env,
    FlatStruct,
    Value,
    Vector,
    describe,
    float_literal,
    int_literal,
    render,
)
from tenspiler.frontend.c_switch import SwitchMatch
from tenspiler.frontend.c_types import INT as C_INT
from tenspiler.frontend.c_types import UINT as C_UINT
from tenspiler.frontend.c_types import CInt, CType, TypeGate, promote, usual_conversion
from tenspiler.frontend.common import Scalar, convert, fold_integer, rounds_twice
from tenspiler.frontend.lists import ResultRow
from tenspiler.ir.semantics import py_cast
from tenspiler.loops.ir import (
    Binary,
    BinOpName,
    Cast,
    CmpOpName,
    Compare,
    Cond,
    Const,
    DType,
    Expr,
    Load,
    Logical,
    Not,
    Select,
    Unary,
)

__all__ = ["Expressions"]

_T = TypeVar("_T")

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
    """C's usual arithmetic conversions (C11 §6.3.1.8) in our type model, for operands whose
    C common type is not ``unsigned int`` (:meth:`Expressions.unsigned_int`)."""
    if DType.DOUBLE in (a, b):
        return DType.DOUBLE
    if DType.FLOAT in (a, b):
        return DType.FLOAT
    return DType.INT  # integer promotion (C11 §6.3.1.1p2): the ranged types → int


def _promote(d: DType) -> DType:
    return DType.INT if d.int_range is not None else d


def _wrapped(e: Expr, dtype: DType) -> Expr:
    """``e`` converted to the ranged type ``dtype`` (wraps modulo 2ⁿ) and then to the
    mathematical ``INT`` the arithmetic happens in (a value-preserving conversion)."""
    return convert(convert(e, dtype), DType.INT)


def _signed_from_uint32(e: Expr, loc: SourceLoc | None) -> Expr:
    """``(int32_t) e`` for an ``unsigned int`` ``e``: GCC's implementation-defined conversion
    (C11 §6.3.1.3p3; GCC manual, "Integers implementation": reduced modulo 2^32 into the
    range of ``int``): ``u >= 2^31 ? u - 2^32 : u`` for ``u`` the value in ``[0, 2^32)``."""
    u = _wrapped(e, DType.UINT32)
    return Select(
        Compare(">=", u, Const(2**31, DType.INT, loc), loc),
        Binary("-", u, Const(2**32, DType.INT, loc), DType.INT, loc), u, DType.INT, loc,
    )


class Expressions(Access):
    """Expressions, conditions and updates of a translation unit's kernel and helpers (the
    top of :class:`tenspiler.frontend.c_inline.Unit` but for helper calls)."""

    gate: TypeGate | None

    def call(self, node: c_ast.FuncCall, env: Env) -> Expr:
        """Inline a call to a helper function, or a ``<math.h>`` call
        (:meth:`tenspiler.frontend.c_inline.Unit.call`)."""
        raise NotImplementedError

    # ----------------------------------------------------------- expressions

    def expr(self, node: c_ast.Node, env: Env) -> Expr:
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
                    return Const(float_literal(text), DType.DOUBLE, loc)
                if "float" in ctype:
                    # the value C gives the literal: the nearest float (C11 §6.4.4.2p3-4)
                    return Const(float(np.float32(float_literal(text))), DType.FLOAT, loc)
                return Const(int_literal(text), DType.INT, loc)
            case c_ast.ID(name=name):
                return self.read_var(name, node, env)
            case c_ast.ArrayRef():
                constant = self.const_element(node, env)
                if constant is not None:
                    return constant
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
                        self.fail(f"pointer difference '{render(node)}' is not supported", node)
                    if left_ptr or right_ptr:
                        self.fail(
                            f"pointer value '{render(node)}' used as a number is not supported",
                            node,
                        )
                    return self.binary(
                        _BINOPS[op], self.expr(left, env), self.expr(right, env), node
                    )
                if op in _COMPARISONS or op in ("&&", "||"):
                    return self.cond_value(node, env)
                if op in _BITWISE:
                    return self.bitwise(op, self.expr(left, env), self.expr(right, env), node)
                self.fail(f"operator '{op}' is not supported", node)
            case c_ast.Cast(to_type=to_type, expr=operand):
                dtype = self.scalar_dtype(to_type.type, "a cast")
                if dtype is None:
                    self.fail("cast to void is not supported", node)
                inner = self.expr(operand, env)
                if self.gate is not None and id(operand) in self.gate.wrap_casts:
                    return _signed_from_uint32(inner, loc)
                if inner.dtype == dtype:
                    return inner
                if isinstance(inner, Const):
                    return Const(py_cast(inner.value, dtype), dtype, loc)
                why = rounds_twice(inner, dtype)
                if why is not None:
                    self.fail(why, node)
                return Cast(inner, dtype, loc)
            case c_ast.FuncCall(name=c_ast.StructRef()):
                return self.member_value(node, env)
            case c_ast.FuncCall():
                return self.call(node, env)
            case c_ast.TernaryOp(cond=cond, iftrue=iftrue, iffalse=iffalse):
                known = self.null_truth(cond, env)
                c = self.cond(cond, env) if known is None else None
                then = self.conditionally(iftrue, env, self.expr)
                else_ = self.conditionally(iffalse, env, self.expr)
                if self.unsigned_int(iftrue, iffalse):
                    dtype = DType.UINT32
                else:
                    dtype = _common_dtype(_promote(then.dtype), _promote(else_.dtype))
                if c is None:  # a null test of an array parameter: the branch it takes
                    return convert(then if known else else_, dtype)
                return Select(c, convert(then, dtype), convert(else_, dtype), dtype, loc)
            case c_ast.Assignment():
                self.fail("assignment inside an expression is not supported", node)
            case c_ast.ExprList():
                self.fail("comma operator is not supported", node)
            case c_ast.StructRef():
                return self.struct_value(node, env)
            case _:
                self.fail(f"{describe(node)} is not supported", node)

    def _unary(self, op: str, operand: c_ast.Node, node: c_ast.Node, env: Env) -> Expr:
        if op in ("-", "+"):
            x = self.expr(operand, env)
            if self.unsigned_int(operand):
                # -x of an unsigned int: 2^32 - x modulo 2^32
                neg = Unary("-", _wrapped(x, DType.UINT32), DType.INT, self.loc(node))
                return Cast(neg, DType.UINT32, self.loc(node)) if op == "-" else convert(x, DType.UINT32)
            dtype = _promote(x.dtype)
            x = convert(x, dtype)
            if op == "-" and isinstance(x, Const):
                # a negative literal is a constant (negation is exact): later conversions
                # fold on it, so `float m = -0.1;` holds float(-0.1) as C does, not the double
                return Const(-x.value, dtype, self.loc(node))
            return Unary("-", x, dtype, self.loc(node)) if op == "-" else x
        if op == "&":
            if self.is_pointer(operand, env):
                self.fail(f"pointer to pointer '{render(node)}' is not supported", node)
            if isinstance(operand, c_ast.ArrayRef) or (
                isinstance(operand, c_ast.UnaryOp) and operand.op == "*"
            ):
                self.fail(f"pointer value '{render(node)}' used as a number is not supported", node)
            self.fail("address-of operator '&' is not supported", node)
        if op == "*":
            array, elem, idx = self.element(node, env)
            return Load(array, idx, elem, self.loc(node))
        if op in ("++", "--", "p++", "p--"):
            if self.is_pointer(operand, env):
                self.fail(
                    f"'{op.lstrip('p')}' on pointer '{render(operand)}' inside an expression is "
                    "not supported (only *p++, *p--, *++p, *--p and pointer updates as statements)",
                    node,
                )
            if isinstance(operand, c_ast.ID) and env.effects is not None:
                b = env.lookup(operand.name)
                if isinstance(b, Scalar) and b.dtype == DType.INT:
                    return self.step_scalar(node, operand.name, env)
            self.fail(f"'{op.lstrip('p')}' inside an expression is not supported", node)
        if op == "!":
            return self.cond_value(node, env)
        if op == "~":
            # ~x is -1 - x in two's complement (C11 §6.5.3.3p4: the bits complemented; for
            # an unsigned int, 2^32 - 1 - x)
            x = self.expr(operand, env)
            if self.unsigned_int(operand):
                bits = Binary("-", Const(-1, DType.INT, self.loc(node)), _wrapped(x, DType.UINT32), DType.INT,
                              self.loc(node))
                return Cast(bits, DType.UINT32, self.loc(node))
            if x.dtype.is_float:
                self.fail("operator '~' on a floating-point operand is not supported", node)
            return Binary("-", Const(-1, DType.INT, self.loc(node)), convert(x, DType.INT), DType.INT, self.loc(node))
        if op == "sizeof":
            self.fail("sizeof is not supported", node)
        self.fail(f"operator '{op}' is not supported", node)

    # ----------------------------------------------------------- conditions

    def cond(self, node: c_ast.Node, env: Env) -> Cond:
        """Lower a C expression used as a condition (``if``, ``?:``, ``&&``, ``||``, ``!``).

        A comparison becomes a :class:`Compare` on operands converted to their common
        dtype; any other scalar ``e`` is ``e != 0``.
        """
        loc = self.loc(node)
        known = self.null_truth(node, env)
        if known is not None:  # a null test of an array parameter: arrays are never null
            zero = Const(0, DType.INT, loc)
            return Compare("==" if known else "!=", zero, zero, loc)
        match node:
            case c_ast.BinaryOp(op=op, left=left, right=right) if op in _COMPARISONS:
                if isinstance(node, SwitchMatch):
                    self.case_label(node)
                if self.is_pointer(left, env) or self.is_pointer(right, env):
                    self.fail(f"pointer comparison '{render(node)}' is not supported", node)
                l_e, r_e = self.expr(left, env), self.expr(right, env)
                return self.compare(_COMPARISONS[op], l_e, r_e, node)
            case c_ast.BinaryOp(op="&&" | "||" as op, left=left, right=right):
                first = self.cond(left, env)
                second = self.conditionally(right, env, self.cond)
                return Logical("&&" if op == "&&" else "||", first, second, loc)
            case c_ast.UnaryOp(op="!", expr=operand):
                return Not(self.cond(operand, env), loc)
        if self.is_pointer(node, env):
            self.fail(f"pointer '{render(node)}' used as a condition is not supported", node)
        return self.compare("!=", self.expr(node, env), Const(0, DType.INT, loc), node)

    def case_label(self, node: SwitchMatch) -> None:
        """Refuse ``case K:`` of ``switch (E)`` (:mod:`tenspiler.frontend.c_switch`) unless
        ``K``'s value is known and lies in the promoted type of ``E``: then ``E == K`` is
        exactly the switch's comparison of the promoted ``E`` with ``K`` converted to that
        type (C11 §6.8.4.2p5), since every conversion the usual arithmetic conversions apply to
        the two is injective on that type's values."""
        gate = self.gate
        e, k = node.left, node.right
        t = promote(gate.types.get(id(e))) if gate is not None else None
        v = gate.constant_value(k) if gate is not None else None
        if not isinstance(t, CInt):
            self.fail(f"switch on '{render(e)}' of a type the frontend does not know as an integer type "
                      "is not supported", e)
        if v is None:
            self.fail(f"case label '{render(k)}' is not an integer constant expression the frontend "
                      "evaluates (literals, enumeration constants, + - * / % and casts)", k)
        if not t.lo <= v <= t.hi:
            self.fail(f"case label '{render(k)}' ({v}) is not a value of '{t}', the promoted type of the "
                      f"switch's '{render(e)}': not supported (C converts it to that type)", k)

    def compare(self, op: CmpOpName, left: Expr, right: Expr, node: c_ast.Node) -> Compare:
        if isinstance(node, c_ast.BinaryOp) and self.unsigned_int(node.left, node.right):
            # both operands converted to unsigned int (a negative int wraps, C11 §6.3.1.8)
            return Compare(op, _wrapped(left, DType.UINT32), _wrapped(right, DType.UINT32), self.loc(node))
        dtype = _common_dtype(left.dtype, right.dtype)
        return Compare(op, convert(left, dtype), convert(right, dtype), self.loc(node))

    def cond_value(self, node: c_ast.Node, env: Env) -> Select:
        """A comparison / logical expression used as a value: C gives the int 1 or 0."""
        loc = self.loc(node)
        c = self.cond(node, env)
        return Select(c, Const(1, DType.INT, loc), Const(0, DType.INT, loc), DType.INT, loc)

    def conditionally(
        self, node: c_ast.Node, env: Env, lower: Callable[[c_ast.Node, Env], _T]
    ) -> _T:
        """``lower(node, env)`` for an operand C evaluates only sometimes (a ``?:`` branch,
        the right operand of ``&&``/``||``): pointer increments there are refused, since the
        statement's increments (:class:`Effects`) are unconditional."""
        fx = env.effects
        if fx is None:
            return lower(node, env)
        before = (len(fx.pre), len(fx.post))
        out = lower(node, env)
        if (len(fx.pre), len(fx.post)) != before:
            self.fail(
                f"pointer increment in conditionally evaluated '{render(node)}' is not supported",
                node,
            )
        return out

    def unsigned_int(self, *nodes: c_ast.Node | None) -> bool:
        """Whether the usual arithmetic conversions of the C operands ``nodes`` (typed by
        the unit's :class:`~tenspiler.frontend.c_types.TypeGate`; ``None``: an ``int``
        one) give ``unsigned int``, whose arithmetic wraps modulo 2³² (C11 §6.2.5p9)."""
        gate = self.gate
        if gate is None:
            return False
        common: CType | None = None
        for i, n in enumerate(nodes):
            t = C_INT if n is None else gate.types.get(id(n))
            common = t if i == 0 else usual_conversion(common, t)
        return common == C_UINT

    def in_uint(self, node: c_ast.Node | None, mathematical: bool = False) -> bool:
        """Whether the gate knows the C value of ``node`` lies in ``[0, 2^32)`` (so that
        its conversion to ``unsigned int`` keeps it); ``mathematical``: the value of the
        operator ``node`` applied to its operands' C values, before any reduction modulo
        2^32 (so that the reduction changes nothing)."""
        gate = self.gate
        if node is None or gate is None or id(node) not in gate.types:
            return False
        r = gate.rng(node)
        if mathematical:
            r = gate.math_ranges.get(id(node))
        return r is not None and r[0] >= 0 and r[1] < 2**32

    def operand_nodes(self, node: c_ast.Node) -> tuple[c_ast.Node | None, ...]:
        """The C operands of the arithmetic ``node`` (``x op y``, ``x op= y``, ``x++``)."""
        match node:
            case c_ast.BinaryOp(left=a, right=b):
                return a, b
            case c_ast.Assignment(lvalue=a, rvalue=b):
                return a, b
            case c_ast.UnaryOp(expr=a) if node.op in ("++", "--", "p++", "p--"):
                return a, None
            case c_ast.UnaryOp(expr=a):
                return (a,)
        return ()

    def bitwise(self, op: str, left: Expr, right: Expr, node: c_ast.Node) -> Expr:
        """``left op right`` for the bitwise operators the model states exactly, on
        integers (two's complement, as GCC):

        * ``x >> k`` for a constant ``0 <= k <`` the width of ``x``'s promoted type: ``x``
          floor-divided by 2^k (C11 §6.5.7p5; for a negative ``x`` implementation-defined,
          GCC shifts arithmetically, which floors);
        * ``x << k`` for such a ``k``: ``x * 2^k``, reduced modulo 2^32 for an ``unsigned
          int`` (C11 §6.5.7p4; for a signed ``x`` a negative value or an overflow is
          undefined behaviour, excluded as for ``*``);
        * ``x & m`` (either side) for a constant mask ``m = 2^k - 1``: ``x`` modulo 2^k
          (the non-negative remainder, exactly the low ``k`` bits in two's complement);
        * other ``x & y``, ``x | y``, ``x ^ y``: the loop IR's bitwise operators (on the two's
          complement representation, ``semantics.py_binop``).

        A constant shift count not in ``[0, width)`` (undefined behaviour, C11 §6.5.7p3) is
        refused by name. A run-time count ``k`` (the kernel's ``shift_hook``: fixed before its
        loop, ``0 <= k < 32`` a stated and checked precondition) is taken for 32-bit promoted
        operands only: ``x << k`` is ``x * pow(2, k)``, ``x >> k`` is ``x // pow(2, k)``."""
        if left.dtype.is_float or right.dtype.is_float:
            self.fail(f"operator '{op}' on a floating-point operand is not supported", node)
        loc = self.loc(node)
        nodes = self.operand_nodes(node)
        if op in ("<<", ">>"):
            unsigned = self.unsigned_int(nodes[0]) if nodes else left.dtype == DType.UINT32
            right = fold_integer(right) or right  # (a helper's parameter bound to a constant)
            width = 32 if left.dtype != DType.INT or self._promoted_bits(nodes) == 32 else 64
            if not isinstance(right, Const):
                hook = getattr(self, "shift_hook", None)
                if hook is None or width != 32:
                    self.fail(f"shift '{op}' by a count that is not a constant is not supported "
                              "(a count outside [0, width) is undefined behaviour, C11 §6.5.7p3)"
                              + ("" if width == 32 else "; a run-time count only for 32-bit operands"), node)
                count = convert(right, DType.INT)
                hook(count, width, node)  # the count must be fixed before its loop: 0 <= count < 32 required
                x = _wrapped(left, DType.UINT32) if unsigned else convert(left, DType.INT)
                p2 = Binary("pow", Const(2, DType.INT, loc), count, DType.INT, loc)
                if op == ">>":
                    return Binary("//", x, p2, DType.INT, loc)
                b = Binary("*", x, p2, DType.INT, loc)
                return Cast(b, DType.UINT32, loc) if unsigned else b
            k = int(right.value)
            if not 0 <= k < width:
                self.fail(f"shift count {k} outside [0, {width}) is undefined behaviour (C11 §6.5.7p3)", node)
            x = _wrapped(left, DType.UINT32) if unsigned else convert(left, DType.INT)
            p = Const(2**k, DType.INT, loc)
            if op == ">>":
                return Binary("//", x, p, DType.INT, loc)
            b = Binary("*", x, p, DType.INT, loc)
            return Cast(b, DType.UINT32, loc) if unsigned else b
        unsigned = self.unsigned_int(*nodes) if nodes else False
        if op == "&":
            for x, m in ((left, right), (right, left)):
                if isinstance(m, Const) and int(m.value) > 0 and (int(m.value) + 1) & int(m.value) == 0:
                    v = _wrapped(x, DType.UINT32) if unsigned else convert(x, DType.INT)
                    return Binary("mod", v, Const(int(m.value) + 1, DType.INT, loc), DType.INT, loc)
        if op in ("&", "|", "^"):
            # on the operands' values (an unsigned int operand reduced modulo 2^32 first): the
            # result of two values in [0, 2^32) stays there, of two signed ones in their type
            bop: BinOpName = "&" if op == "&" else "|" if op == "|" else "^"
            lhs, rhs = ((_wrapped(e, DType.UINT32) if unsigned else convert(e, DType.INT)) for e in (left, right))
            return Binary(bop, lhs, rhs, DType.INT, loc)
        self.fail(f"bitwise operator '{op}' is not supported", node)

    def _promoted_bits(self, nodes: tuple[c_ast.Node | None, ...]) -> int:
        """The width of the promoted type of a shift's left operand (C11 §6.5.7p3)."""
        gate = self.gate
        t = gate.types.get(id(nodes[0])) if gate is not None and nodes and nodes[0] is not None else None
        bits = getattr(t, "bits", 32)
        return max(bits, 32)

    def binary(self, op: BinOpName, left: Expr, right: Expr, node: c_ast.Node) -> Expr:
        if op in _BITWISE:
            return self.bitwise(op, left, right, node)
        nodes = self.operand_nodes(node)
        if self.unsigned_int(*nodes):
            # unsigned int: the mathematical result of the operands' unsigned values, reduced
            # modulo 2^32 (exact for + - *; / and % of values in [0, 2^32) stay in range).
            # An operand or result the gate's ranges put in [0, 2^32) needs no reduction.
            lhs, rhs = (convert(e, DType.INT) if self.in_uint(n) else _wrapped(e, DType.UINT32)
                    for e, n in zip((left, right), (*nodes, None)[:2], strict=True))
            b = Binary(op, lhs, rhs, DType.INT, self.loc(node))
            exact = isinstance(node, c_ast.BinaryOp) and self.in_uint(node, mathematical=True)
            return b if exact else convert(b, DType.UINT32)
        dtype = _common_dtype(left.dtype, right.dtype)
        if op == "%" and dtype.is_float:
            self.fail("operator '%' on floating-point operands is not supported", node)
        return Binary(op, convert(left, dtype), convert(right, dtype), dtype, self.loc(node))

    # ----------------------------------------------------------- updates

    def update_target(
        self, node: c_ast.Node, env: Env
    ) -> c_ast.ID | c_ast.ArrayRef | c_ast.UnaryOp:
        """The lvalue of an update statement; refused unless a scalar name, ``a[E]`` or
        ``*P``."""
        lvalue = node.lvalue if isinstance(node, c_ast.Assignment) else node.expr
        match lvalue:
            case c_ast.ID(name=name):
                b = env.lookup(name)
                if b is None:
                    self.unknown_name(name, lvalue)
                if isinstance(b, Vector | CxxResult | ResultRow):
                    self.fail(f"assignment to vector '{name}' is not supported", node)
                if isinstance(b, FlatStruct):
                    self.fail(f"assignment to struct '{name}' is not supported", node)
                if isinstance(b, Array):
                    # Kernels bind updated array parameters as walking pointers
                    # (Kernel.lower), so only a stray case can reach this.
                    self.fail(
                        f"assignment to array parameter '{name}' itself is not supported", node
                    )
                return lvalue
            case c_ast.ArrayRef() | c_ast.UnaryOp(op="*"):
                return lvalue
            case c_ast.StructRef():
                self.struct_field(lvalue, env)  # refuses what is not a field
                self.fail(f"assignment to struct field '{render(lvalue)}' is not supported", node)
            case _:
                self.fail(f"assignment to '{render(lvalue)}' is not supported", lvalue)

    def scalar_update(self, node: c_ast.Node, env: Env) -> tuple[str, Expr]:
        """``x = E`` / ``x op= E`` / ``x++`` on a scalar: (x, converted new value)."""
        lvalue = self.update_target(node, env)
        if not isinstance(lvalue, c_ast.ID):
            self.fail(
                f"assignment to '{render(lvalue)}' in a helper function is not supported", node
            )
        b = env.lookup(lvalue.name)
        assert isinstance(b, Scalar | Value)
        op, rhs = self.update_parts(node, env)
        value = (
            rhs
            if op is None
            else self.binary(op, self.read_var(lvalue.name, lvalue, env), rhs, node)
        )
        lt = self.gate.types.get(id(lvalue)) if self.gate is not None else None
        if lt == C_UINT and b.dtype == DType.INT:
            src = node.rvalue if isinstance(node, c_ast.Assignment) and op is None else node
            return lvalue.name, self.into_scalar(value, b.dtype, "unsigned int", src, mathematical=op is not None)
        return lvalue.name, convert(value, b.dtype)

    def into_scalar(self, value: Expr, dtype: DType, c_type: str, src: c_ast.Node | None,
                    mathematical: bool = False) -> Expr:
        """``value`` (of the C expression ``src``; ``mathematical``: of the operator ``src``
        of a compound assignment or ``++``, before its conversion back) converted as by assignment into
        a scalar of loop-IR ``dtype`` whose C type is ``c_type``. An ``unsigned int`` scalar
        is INT in the loop IR: a value the gate does not know to lie in ``[0, 2^32)`` is
        reduced modulo 2^32 on the way (C11 §6.3.1.3p2), as C stores it."""
        # (a compound assignment's operator is computed in the usual arithmetic conversions'
        # type, wider than unsigned int for a long operand: its result is always reduced)
        if dtype == DType.INT and c_type == "unsigned int" and (mathematical or not self.in_uint(src)):
            return _wrapped(value, DType.UINT32)
        return convert(value, dtype)

    def update_parts(self, node: c_ast.Node, env: Env) -> tuple[BinOpName | None, Expr]:
        """The operator (``None`` for ``=``) and right-hand side of an update statement."""
        if isinstance(node, c_ast.UnaryOp):
            return ("+" if node.op in ("++", "p++") else "-"), Const(1, DType.INT, self.loc(node))
        assert isinstance(node, c_ast.Assignment)
        if node.op == "=":
            return None, self.expr(node.rvalue, env)
        if node.op in _COMPOUND_OPS:
            return _COMPOUND_OPS[node.op], self.expr(node.rvalue, env)
        if node.op[:-1] in _BITWISE:
            return node.op[:-1], self.expr(node.rvalue, env)
        self.fail(f"operator '{node.op}' is not supported", node)
