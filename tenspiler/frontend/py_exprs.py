"""Expressions and conditions of the Python frontend, with Python's semantics (true
division, floor ``//`` and ``%``, ``int`` / ``float`` joins, exact int/float comparisons), and
calls: builtins, ``math``, and helper functions of the module inlined by substitution. Names
are resolved by a :class:`Scope`: the kernel (:class:`tenspiler.frontend.py_stmts.Kernel`)
or a helper being inlined."""

from __future__ import annotations

import ast
import math

from tenspiler.frontend.common import convert
from tenspiler.frontend.lists import ResultList, ResultRow, plane_index, row_index
from tenspiler.frontend.py_ast import (
    ZIP_COLUMN,
    ZIP_COLUMNS,
    assigned_names,
    describe,
    is_docstring,
)
from tenspiler.frontend.py_types import Binding, ListParam, ModuleTypes, join
from tenspiler.ir.semantics import py_cast
from tenspiler.loops.ir import (
    Binary,
    BinOpName,
    Call,
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
    Var,
)

__all__ = ["Expressions", "Scope"]

INT, DOUBLE = DType.INT, DType.DOUBLE

_MATH = {"exp": "exp", "sqrt": "sqrt", "log": "log", "tanh": "tanh", "fabs": "fabs"}
_MATH_CONSTANTS = {"pi": math.pi, "e": math.e}
#: The builtins the subset calls (refused when the module may rebind them).
_BUILTINS = frozenset({"len", "abs", "min", "max", "int", "float", "range", "sum", "zip", "enumerate", "reversed", "list"})
_SEQUENCE_BUILTINS = frozenset({"sum", "zip", "enumerate"})
_CMP: dict[type[ast.cmpop], CmpOpName] = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
}
_OP_TEXT: dict[type[ast.operator], str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitOr: "|", ast.BitXor: "^",
    ast.BitAnd: "&", ast.MatMult: "@",
}


# ---------------------------------------------------------------- scopes


# ---------------------------------------------------------------- scopes


class Scope:
    """Name resolution for expressions: the kernel, or a helper being inlined."""

    mod: Expressions
    inlining: tuple[str, ...]
    local_names: set[str]

    def lookup(self, name: str) -> Binding | None:
        raise NotImplementedError

    def read(self, name: str, node: ast.AST) -> Expr:
        raise NotImplementedError

    def row_read(self, lp: ListParam, indices: tuple[Expr, ...], node: ast.expr) -> None:
        """``len(m[i])`` / ``len(x[p][r])`` reads the row ``m[i]``, which raises
        ``IndexError`` in Python when the list has no such row: the scope makes sure the
        model raises there too, or refuses."""
        self.mod.fail(f"len({ast.unparse(node)}) is not supported here (Python raises IndexError when the list "
                      "has no such row)", node)

    def require(self, left: Expr, right: Expr, what: str, node: ast.AST) -> None:
        """State the precondition ``left <= right`` over the parameters
        (``Function.requires``: assumed by the proof, checked by the generated code)."""
        self.mod.fail(f"'{ast.unparse(node)}' is not supported here", node)

    def global_value(self, name: str, node: ast.AST) -> Expr:
        """A module constant (a name the function does not bind)."""
        mod = self.mod
        if name in mod.constants:
            v = mod.constant(name, node)
            return Const(v, INT if isinstance(v, int) else DOUBLE, mod.loc(node))
        if name in mod.defs:
            mod.fail(f"function '{name}' used as a value is not supported", node)
        if mod.math_names.get(name) in _MATH_CONSTANTS:  # from math import pi
            mod.stable_math(name, node)
            return Const(_MATH_CONSTANTS[mod.math_names[name]], DOUBLE, mod.loc(node))
        if name in mod.math_modules or name in mod.math_names:
            mod.fail(f"'{name}' used as a value is not supported", node)
        if name in mod.globals:
            mod.fail(
                f"module variable '{name}' is not a constant (only a name assigned one number literal, once)",
                node,
            )
        mod.fail(f"unknown name '{name}' (only parameters, locals and number constants of the module)", node)


class _HelperScope(Scope):
    def __init__(
        self, mod: Expressions, name: str, values: dict[str, Expr], inlining: tuple[str, ...], local_names: set[str]
    ) -> None:
        self.mod = mod
        self.name = name
        self.values = values
        self.inlining = inlining
        self.local_names = local_names | set(values)

    def copy(self) -> _HelperScope:
        return _HelperScope(self.mod, self.name, dict(self.values), self.inlining, self.local_names)

    def lookup(self, name: str) -> Binding | None:
        return None

    def read(self, name: str, node: ast.AST) -> Expr:
        if name in self.values:
            return self.values[name]
        if name in self.local_names:
            self.mod.fail(f"'{name}' may be used before it is assigned", node)
        return self.global_value(name, node)


# ---------------------------------------------------------------- expressions


class Expressions(ModuleTypes):
    """Expressions, conditions and helper inlining of a module's kernel (the top of
    :class:`tenspiler.frontend.python.Module` but for choosing and typing the kernel)."""

    #: set when the kernel divides an int by an int with ``/`` (see ``PythonInterface``)
    int_true_division: bool = False
    #: set when the kernel converts an int with ``float()``
    float_of_int: bool = False

    # ----------------------------------------------------------- expressions

    def expr(self, node: ast.expr, sc: Scope) -> Expr:
        """Lower an expression (no side effects in the subset)."""
        loc = self.loc(node)
        match node:
            case ast.Call(func=ast.Name(id=marker), args=[ast.Name(id=m), *_]) if marker in (ZIP_COLUMNS, ZIP_COLUMN):
                lp = sc.lookup(m)
                if marker == ZIP_COLUMN or not (isinstance(lp, ListParam) and lp.rank == 2):
                    self.fail(f"a column of zip(*{m}) is only supported as an argument of zip()", node)
                rows, cols = Var(lp.sizes[0], INT, loc), Var(lp.sizes[1], INT, loc)
                # zip(*m) yields len(m[0]) tuples when m has rows, none when it has none: the
                # model's row length of a list with no row is 0 (the entry reads [] as 0 x 0),
                # stated as 'cols > 0 implies rows >= 1'
                one, zero = Const(1, INT, loc), Const(0, INT, loc)
                sc.require(Select(Compare(">", cols, zero, loc), one, zero, INT, loc), rows,
                           f"a list of lists '{m}' without rows has no columns (zip(*{m}) yields nothing)", node)
                return cols
            case ast.Constant(value=bool() as v):
                self.fail(f"boolean value '{v}' is not supported (only comparisons in conditions)", node)
            case ast.Constant(value=int() as v):
                return Const(v, INT, loc)
            case ast.Constant(value=float() as v):
                return Const(v, DOUBLE, loc)
            case ast.Constant(value=v):
                self.fail(f"{type(v).__name__} literal is not supported", node)
            case ast.Name(id=name):
                return sc.read(name, node)
            case ast.BinOp(left=left, op=op, right=right):
                return self.binop(op, self.expr(left, sc), right, sc, node)
            case ast.UnaryOp(op=ast.USub(), operand=operand):
                x = self.expr(operand, sc)
                if isinstance(x, Const):
                    return Const(-x.value, x.dtype, loc)
                return Unary("-", x, x.dtype, loc)
            case ast.UnaryOp(op=ast.UAdd(), operand=operand):
                return self.expr(operand, sc)
            case ast.UnaryOp(op=ast.Invert()):
                self.fail("bitwise operator '~' is not supported", node)
            case ast.UnaryOp(op=ast.Not()) | ast.Compare() | ast.BoolOp():
                self.fail(
                    f"'{ast.unparse(node)}' is a truth value; it is only supported as a condition "
                    "(of if, while or a conditional expression)",
                    node,
                )
            case ast.IfExp(test=test, body=body, orelse=orelse):
                c = self.cond(test, sc)
                a, b = self.expr(body, sc), self.expr(orelse, sc)
                d = join(a.dtype, b.dtype)
                return Select(c, convert(a, d), convert(b, d), d, loc)
            case ast.Subscript():
                return self.subscript(node, sc)
            case ast.Call():
                return self.call(node, sc)
            case ast.Attribute(value=ast.Name(id=m), attr=attr) if (
                m in self.math_modules and sc.lookup(m) is None and m not in sc.local_names and attr in _MATH_CONSTANTS
            ):
                self.stable_math(m, node)
                return Const(_MATH_CONSTANTS[attr], DOUBLE, loc)
            case ast.Attribute(value=ast.Name(id=m), attr="inf" | "nan") if (
                m in self.math_modules and sc.lookup(m) is None and m not in sc.local_names
            ):
                self.fail(f"'{ast.unparse(node)}' is not supported: infinities and NaN are not real numbers (floats "
                          "are verified over the reals)", node)
            case ast.Attribute():
                self.fail(f"attribute '{ast.unparse(node)}' is not supported", node)
            case ast.ListComp() | ast.GeneratorExp():
                self.fail(
                    f"{describe(node)} is only supported as the returned list ('return [...]', 'out = [...]', "
                    "a row 'out.append([...])') or as the argument of sum / max / min",
                    node,
                )
        self.fail(f"{describe(node)} is not supported", node)

    def binop(self, op: ast.operator, left: Expr, right_node: ast.expr, sc: Scope, node: ast.AST) -> Expr:
        """``left op right`` with Python's semantics (the right operand is lowered here:
        ``**`` needs its literal)."""
        loc = self.loc(node)
        text = _OP_TEXT.get(type(op), type(op).__name__)
        if isinstance(op, ast.Pow):
            k = right_node.value if isinstance(right_node, ast.Constant) else None
            if type(k) is not int or not 1 <= k <= 8 or left.dtype.is_float:
                # (a float to a literal int power too: float ** 2 raises OverflowError where
                # the product x * x is inf)
                right = self.expr(right_node, sc)
                if not left.dtype.is_float and not right.dtype.is_float:
                    self.fail(
                        f"'**' of two ints is only supported with a literal integer exponent 1..8 (got "
                        f"'{ast.unparse(right_node)}': int ** int is exact integer arithmetic, a float for a "
                        "negative exponent)",
                        right_node,
                    )
                # a float result: float.__pow__ converts both operands to doubles and calls the
                # C library's pow; where that is not a real (ZeroDivisionError, OverflowError, a
                # complex number) codegen/raises.py raises as Python does, or refuses
                return Binary("pow", convert(left, DOUBLE), convert(right, DOUBLE), DOUBLE, loc)
            out = left
            for _ in range(k - 1):
                out = Binary("*", out, left, left.dtype, loc)
            return out
        right = self.expr(right_node, sc)
        if isinstance(op, ast.Add | ast.Sub | ast.Mult):
            d = join(left.dtype, right.dtype)
            sym: BinOpName = "+" if isinstance(op, ast.Add) else "-" if isinstance(op, ast.Sub) else "*"
            return Binary(sym, convert(left, d), convert(right, d), d, loc)
        if isinstance(op, ast.Div):  # true division: always a float
            if not left.dtype.is_float and not right.dtype.is_float:
                # int / int is the exact quotient rounded once (PEP 238), not float(a) /
                # float(b): the generated code must know which of the two a summary's
                # cast(a, double) / cast(b, double) stands for (PythonInterface)
                self.int_true_division = True
            return Binary("/", convert(left, DOUBLE), convert(right, DOUBLE), DOUBLE, loc)
        if isinstance(op, ast.FloorDiv | ast.Mod):
            if DOUBLE in (left.dtype, right.dtype):
                self.fail(
                    f"'{text}' on floats is not supported (Python's floor division and modulo "
                    "are supported on ints; annotate int parameters, e.g. 'x: int')",
                    node,
                )
            return Binary("//" if isinstance(op, ast.FloorDiv) else "mod", left, right, INT, loc)
        if isinstance(op, ast.MatMult):
            self.fail("operator '@' is not supported", node)
        self.fail(f"bitwise operator '{text}' is not supported", node)

    def index(self, node: ast.expr, sc: Scope) -> Expr:
        if isinstance(node, ast.Slice):
            self.fail("slices are not supported", node)
        e = self.expr(node, sc)
        if e.dtype.is_float:
            self.fail(
                f"list index '{ast.unparse(node)}' is a float (an int is needed; annotate "
                "int parameters and lists of ints, e.g. 'idx: list[int]')",
                node,
            )
        if isinstance(e, Const) and isinstance(e.value, int) and e.value < 0:
            self.fail(
                f"negative index {e.value} is not supported (Python reads from the end of the list)",
                node,
            )
        return e

    def subscript(self, node: ast.Subscript, sc: Scope) -> Expr:
        loc = self.loc(node)
        base = node.value
        if (isinstance(base, ast.Subscript) and isinstance(base.value, ast.Subscript)
                and isinstance(base.value.value, ast.Name)):
            b = sc.lookup(base.value.value.id)
            if isinstance(b, ListParam) and b.rank == 3:
                p = self.index(base.value.slice, sc)
                r = self.index(base.slice, sc)
                c = self.index(node.slice, sc)
                idx, row, plane = plane_index(p, r, c, b.sizes[1], b.sizes[2], loc)
                return Load(b.name, idx, b.elem, loc, row=row, plane=plane)
        if isinstance(base, ast.Subscript) and isinstance(base.value, ast.Name):
            b = sc.lookup(base.value.id)
            if isinstance(b, ListParam) and b.rank == 3:
                self.fail(f"'{ast.unparse(node)}' is a row of the 3-D list '{b.name}': only elements "
                          f"{b.name}[p][r][c] are supported", node)
            if isinstance(b, ListParam) and b.rank == 2:
                r = self.index(base.slice, sc)
                c = self.index(node.slice, sc)
                idx, row = row_index(r, c, b.sizes[1], loc)
                return Load(b.name, idx, b.elem, loc, row=row)
            if isinstance(b, ListParam):
                self.fail(f"'{ast.unparse(node)}' subscripts an element of the list of numbers '{b.name}'", node)
            self.subscript(base, sc)  # refuses with the precise message
        if isinstance(base, ast.Name):
            b = sc.lookup(base.id)
            match b:
                case ListParam(rank=1):
                    return Load(b.name, self.index(node.slice, sc), b.elem, loc)
                case ListParam(rank=3):
                    self.fail(f"plane '{ast.unparse(node)}' of the 3-D list '{b.name}' used as a value is not supported", node)
                case ListParam():
                    self.fail(f"row '{ast.unparse(node)}' of the list of lists '{b.name}' used as a value is not supported", node)
                case ResultList() | ResultRow():
                    self.fail(f"reading the list being built ('{ast.unparse(node)}') is not supported", node)
                case None if base.id not in sc.local_names:
                    sc.read(base.id, base)  # unknown name
            self.fail(f"subscript of '{base.id}', which is not a list parameter, is not supported", node)
        self.fail(f"subscript of '{ast.unparse(base)}' is not supported", node)

    def call(self, node: ast.Call, sc: Scope) -> Expr:
        loc = self.loc(node)
        if node.keywords:
            self.fail("keyword arguments are not supported", node.keywords[0])
        for a in node.args:
            if isinstance(a, ast.Starred):
                self.fail("starred arguments are not supported", a)
        func = node.func
        if isinstance(func, ast.Attribute):
            if (
                isinstance(func.value, ast.Name)
                and func.value.id in self.math_modules
                and sc.lookup(func.value.id) is None
                and func.value.id not in sc.local_names
            ):
                self.stable_math(func.value.id, func)
                return self.math_call(func.attr, node, sc)
            if func.attr == "append":
                self.fail("append used as a value is not supported", node)
            self.fail(f"call to '{ast.unparse(func)}' is not supported", node)
        if not isinstance(func, ast.Name):
            self.fail("call through an expression is not supported", node)
        name = func.id
        if sc.lookup(name) is not None or name in sc.local_names:
            self.fail(f"call to variable '{name}' is not supported", node)
        if name in self.defs:
            self.stable_helper(name, func)
            return self.inline(name, node, sc)
        if name in self.math_names:
            self.stable_math(name, func)
            return self.math_call(self.math_names[name], node, sc)
        args = node.args
        if name in _BUILTINS:
            self.stable_builtin(name, func)
        if name == "len":
            if len(args) != 1:
                self.fail("len() takes one argument", node)
            return self.length(args[0], sc)
        if name in ("abs", "float", "int"):
            if len(args) != 1:
                self.fail(f"{name}() takes one argument here", node)
            if name == "float" and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str):
                self.fail(
                    f"float({args[0].value!r}) is not supported: infinities and NaN are not real numbers (floats "
                    "are verified over the reals); start a running extremum from the first element instead", node)
            if name in ("int", "float") and (isinstance(args[0], ast.Compare | ast.BoolOp) or (
                    isinstance(args[0], ast.UnaryOp) and isinstance(args[0].op, ast.Not))):
                # int(a == b): True is 1, False is 0 (a comparison, 'and' / 'or' of comparisons
                # or 'not' is a bool)
                if isinstance(args[0], ast.BoolOp) and not all(
                        isinstance(v, ast.Compare | ast.BoolOp | ast.UnaryOp) for v in args[0].values):
                    self.fail(f"'{ast.unparse(args[0])}' is not a bool ('and' / 'or' give an operand)", args[0])
                d = INT if name == "int" else DOUBLE
                one, zero = Const(py_cast(1, d), d, loc), Const(py_cast(0, d), d, loc)
                return Select(self.cond(args[0], sc), one, zero, d, loc)
            x = self.expr(args[0], sc)
            if name == "float":
                if not x.dtype.is_float:
                    self.float_of_int = True
                return convert(x, DOUBLE)
            if name == "int":
                return x if x.dtype == INT else Cast(x, INT, loc)  # truncates toward zero
            if x.dtype.is_float:
                return Call("fabs", x, DOUBLE, loc)
            zero = Const(0, INT, loc)
            return Select(Compare("<", x, zero, loc), Unary("-", x, INT, loc), x, INT, loc)
        if name in _SEQUENCE_BUILTINS or (name in ("min", "max") and len(args) == 1):
            self.fail(
                f"{name}() of a sequence is only supported in the statements of the lifted function, "
                "where Python evaluates it once (not in a helper, a condition evaluated lazily or a while condition)",
                node,
            )
        if name in ("min", "max"):
            if len(args) != 2:
                self.fail(f"{name}() is only supported with two numbers", node)
            first, second = self.expr(args[0], sc), self.expr(args[1], sc)
            self.exact_comparison(first, second, args[0], args[1])
            d = join(first.dtype, second.dtype)
            first, second = convert(first, d), convert(second, d)
            # Python returns the first argument unless the second is strictly better
            return Select(Compare("<" if name == "min" else ">", second, first, loc), second, first, d, loc)
        if name == "range":
            self.fail("range() is only supported as the iterable of a for loop", node)
        self.fail(f"call to '{name}' is not supported", node)

    def exact_comparison(self, a: Expr, b: Expr, anode: ast.AST, bnode: ast.AST) -> None:
        """Refuse comparing an int with a float unless one side is a constant of magnitude at
        most 2**53: Python compares an int and a float exactly, while the model — C's usual
        arithmetic conversions — and the generated code convert the int to a float first,
        which rounds beyond 2**53 (``2**53 + 1 > 2.0**53`` is True in Python, False after
        the conversion)."""
        if {a.dtype, b.dtype} != {INT, DOUBLE}:
            return
        if any(isinstance(e, Const) and abs(e.value) <= 2**53 for e in (a, b)):
            return
        inode = anode if a.dtype == INT else bnode
        fnode = bnode if a.dtype == INT else anode
        self.fail(
            f"comparing the int '{ast.unparse(inode)}' with the float '{ast.unparse(fnode)}' is not supported: "
            "Python compares them exactly, the generated code would round the int to a float (beyond 2**53); "
            f"write float({ast.unparse(inode)}) to compare as floats",
            inode,
        )

    def math_call(self, attr: str, node: ast.Call, sc: Scope) -> Expr:
        loc = self.loc(node)
        if attr == "pow":
            # math.pow(x, k), k a literal integer 1..8 (math.pow converts both to float; a
            # non-integer or variable exponent raises ValueError where ** does not)
            if len(node.args) != 2:
                self.fail("math.pow takes two arguments", node)
            k_node = node.args[1]
            k = k_node.value if isinstance(k_node, ast.Constant) else None
            if not isinstance(k, int | float) or isinstance(k, bool) or k != int(k) or not 1 <= k <= 8:
                self.fail(f"math.pow is only supported with a literal integer exponent 1..8 (got "
                          f"'{ast.unparse(k_node)}')", k_node)
            x = convert(self.expr(node.args[0], sc), DOUBLE)
            # C's pow, as float ** k (OverflowError where the result leaves the doubles, which
            # a product x * ... * x would not raise; math.pow's message differs, its class not)
            return Binary("pow", x, Const(float(k), DOUBLE, loc), DOUBLE, loc)
        if attr in ("floor", "ceil", "trunc"):
            # an int: floor(x) is trunc(x) - 1 where x < trunc(x), ceil(x) trunc(x) + 1 where x > trunc(x)
            if len(node.args) != 1:
                self.fail(f"math.{attr} takes one argument", node)
            x = self.expr(node.args[0], sc)
            if x.dtype == INT:
                return x
            t = Cast(x, INT, loc)
            if attr == "trunc":
                return t
            back = Cast(t, DOUBLE, loc)
            one = Const(1, INT, loc)
            if attr == "floor":
                return Select(Compare("<", x, back, loc), Binary("-", t, one, INT, loc), t, INT, loc)
            return Select(Compare(">", x, back, loc), Binary("+", t, one, INT, loc), t, INT, loc)
        if attr not in _MATH:
            self.fail(f"math.{attr} is not supported (only exp, sqrt, log, tanh, fabs, pow, floor, ceil, trunc)",
                      node)
        if len(node.args) != 1:
            self.fail(f"math.{attr} with {len(node.args)} arguments is not supported", node)
        x = convert(self.expr(node.args[0], sc), DOUBLE)
        return Call(_MATH[attr], x, DOUBLE, self.loc(node))

    def length(self, arg: ast.expr, sc: Scope) -> Expr:
        """``len(a)`` (length, rows of a list of lists, planes of a 3-D list), ``len(m[i])``
        (columns, or rows of a plane: rows are assumed to have one length), ``len(x[p][r])``
        (columns of a 3-D list) and ``len(out)`` of the returned list."""
        loc = self.loc(arg)
        if (isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id == "range"
                and sc.lookup("range") is None and "range" not in sc.local_names and "range" not in self.defs):
            # len(range(a, b)) is max(0, b - a) (step 1), exactly
            self.stable_builtin("range", arg.func)
            if arg.keywords or not 1 <= len(arg.args) <= 3:
                self.fail("len(range()) takes range(stop) or range(start, stop)", arg)
            if len(arg.args) == 3 and not (isinstance(arg.args[2], ast.Constant) and arg.args[2].value == 1
                                           and type(arg.args[2].value) is int):
                self.fail("len(range()) with a step other than 1 is not supported", arg.args[2])
            bounds = [self.expr(a, sc) for a in arg.args[:2]]
            if any(b.dtype != INT for b in bounds):
                self.fail("range() bounds must be ints", arg)
            n = bounds[0] if len(bounds) == 1 else Binary("-", bounds[1], bounds[0], INT, loc)
            zero = Const(0, INT, loc)
            return Select(Compare("<", n, zero, loc), zero, n, INT, loc)
        if (isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id == ZIP_COLUMN
                and isinstance(arg.args[0], ast.Name)):
            match sc.lookup(arg.args[0].id):
                case ListParam(rank=2, sizes=sizes):  # a column of zip(*m): one element per row
                    return Var(sizes[0], INT, loc)
        if isinstance(arg, ast.Name):
            match sc.lookup(arg.id):
                case ListParam(sizes=sizes):
                    return Var(sizes[0], INT, loc)
                case ResultList(rank=1, length=length):
                    return Var(length, INT, loc)
                case None if arg.id not in sc.local_names:
                    sc.read(arg.id, arg)
        if isinstance(arg, ast.Subscript) and isinstance(arg.value, ast.Name):
            b = sc.lookup(arg.value.id)
            if isinstance(b, ListParam) and b.rank >= 2:
                i = self.index(arg.slice, sc)  # refuses what it cannot read
                sc.row_read(b, (i,), arg)
                return Var(b.sizes[1], INT, loc)
        if (isinstance(arg, ast.Subscript) and isinstance(arg.value, ast.Subscript)
                and isinstance(arg.value.value, ast.Name)):
            b = sc.lookup(arg.value.value.id)
            if isinstance(b, ListParam) and b.rank == 3:
                p = self.index(arg.value.slice, sc)
                r = self.index(arg.slice, sc)
                sc.row_read(b, (p, r), arg)
                return Var(b.sizes[2], INT, loc)
        self.fail(f"len({ast.unparse(arg)}) is not supported (len of a list parameter, of a row of one, or of the returned list)", arg)

    # ----------------------------------------------------------- conditions

    def cond(self, node: ast.expr, sc: Scope) -> Cond:
        loc = self.loc(node)
        match node:
            case ast.Compare(left=left, ops=ops, comparators=comparators):
                lhs = self.expr(left, sc)
                out: Cond | None = None
                for op, rnode in zip(ops, comparators, strict=True):
                    cmp = _CMP.get(type(op))
                    if cmp is None:
                        text = {ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not"}.get(type(op), "?")
                        self.fail(f"comparison '{text}' is not supported", node)
                    rhs = self.expr(rnode, sc)
                    self.exact_comparison(lhs, rhs, left if out is None else node, rnode)
                    d = join(lhs.dtype, rhs.dtype)
                    part = Compare(cmp, convert(lhs, d), convert(rhs, d), loc)
                    out = part if out is None else Logical("&&", out, part, loc)
                    lhs = rhs
                assert out is not None
                return out
            case ast.BoolOp(op=op, values=values):
                conds = [self.cond(v, sc) for v in values]
                acc = conds[0]
                for c in conds[1:]:
                    acc = Logical("&&" if isinstance(op, ast.And) else "||", acc, c, loc)
                return acc
            case ast.UnaryOp(op=ast.Not(), operand=operand):
                return Not(self.cond(operand, sc), loc)
            case ast.Constant(value=bool() as v):
                self.fail(f"constant condition '{v}' is not supported", node)
        if isinstance(node, ast.Name) and isinstance(sc.lookup(node.id), ListParam):
            # a list is true when it is not empty
            return Compare("!=", self.length(node, sc), Const(0, INT, loc), loc)
        e = self.expr(node, sc)
        return Compare("!=", e, Const(py_cast(0, e.dtype), e.dtype, loc), loc)

    # ----------------------------------------------------------- helper inlining

    def inline(self, name: str, node: ast.Call, sc: Scope) -> Expr:
        """Inline a call to a function of the module (see the module docstring)."""
        if name in sc.inlining:
            self.fail(f"recursive call to '{name}' is not supported", node)
        fdef = self.defs[name]
        params = self.plain_params(fdef)
        defaults = fdef.args.defaults
        required = len(params) - len(defaults)
        if not required <= len(node.args) <= len(params):
            self.fail(f"call to '{name}' with {len(node.args)} arguments; it takes {len(params)}", node)
        args = list(node.args)
        for d in defaults[len(args) - required:]:
            # Python evaluates a default once, when the def runs: a number literal is that value
            if _number_literal_node(d) is None:
                self.fail(f"default value '{ast.unparse(d)}' of '{name}' is not a number literal", d)
            args.append(d)
        values: dict[str, Expr] = {}
        for p, arg in zip(params, args, strict=True):
            if isinstance(arg, ast.Name) and isinstance(sc.lookup(arg.id), ListParam | ResultList | ResultRow):
                self.fail(f"passing list '{arg.id}' to '{name}' is not supported (helpers take numbers)", arg)
            value = self.expr(arg, sc)
            if p.annotation is not None:
                t = self.annotation(p.annotation, f"parameter '{p.arg}' of '{name}'")
                if t is None or t.rank != 0:
                    self.fail(f"helper '{name}' has list parameter '{p.arg}'; only numbers are supported", p)
                if t.dtype == DOUBLE:
                    value = convert(value, DOUBLE)
                elif value.dtype == DOUBLE:
                    self.fail(f"float argument for int parameter '{p.arg}' of '{name}'", arg)
            values[p.arg] = value
        inner = _HelperScope(self, name, values, (*sc.inlining, name), assigned_names(fdef.body))
        body = [s for k, s in enumerate(fdef.body) if not (k == 0 and is_docstring(s))]
        return self.helper_block(body, inner, fdef)

    def plain_params(self, fdef: ast.FunctionDef) -> list[ast.arg]:
        a = fdef.args
        what = f"function '{fdef.name}'"
        for d in fdef.decorator_list:
            if not _is_lifted_decorator(d):
                self.fail(f"decorated {what} is not supported (only @lifted / @tenspiler.lifted)", d)
        if a.vararg is not None or a.kwarg is not None:
            self.fail(f"{what} with *args / **kwargs is not supported", a.vararg or a.kwarg)
        if a.kwonlyargs:
            self.fail(f"keyword-only parameter '{a.kwonlyargs[0].arg}' is not supported", a.kwonlyargs[0])
        # default values: the lifted function takes every parameter (a default does not
        # change what the body computes); a helper call may leave out literal defaults
        return [*a.posonlyargs, *a.args]

    def helper_block(self, stmts: list[ast.stmt], hs: _HelperScope, fdef: ast.FunctionDef) -> Expr:
        """The value a helper body returns: assignments update the name → expression map;
        an ``if`` continues into both branches (each followed by the rest of the body) and
        joins them with a select; ``return E`` ends a path."""
        for k, s in enumerate(stmts):
            match s:
                case ast.Pass() | ast.Assert():
                    continue
                case ast.Expr() if is_docstring(s):
                    continue
                case ast.Assign(targets=[ast.Name(id=target)], value=value):
                    hs.values[target] = self.expr(value, hs)
                case ast.AnnAssign(target=ast.Name(id=target), annotation=ann, value=value) if value is not None:
                    v = self.expr(value, hs)
                    t = self.annotation(ann, f"'{target}'")
                    hs.values[target] = convert(v, DOUBLE) if t is not None and t.rank == 0 and t.dtype == DOUBLE else v
                case ast.AugAssign(target=ast.Name(id=target), op=op, value=value):
                    hs.values[target] = self.binop(op, hs.read(target, s.target), value, hs, s)
                case ast.Return(value=None):
                    self.fail(f"helper '{hs.name}' returns None", s)
                case ast.Return(value=value):
                    assert value is not None
                    return self.expr(value, hs)
                case ast.If(test=test, body=body, orelse=orelse):
                    c = self.cond(test, hs)
                    rest = list(stmts[k + 1 :])
                    a = self.helper_block([*body, *rest], hs.copy(), fdef)
                    b = self.helper_block([*orelse, *rest], hs.copy(), fdef)
                    d = join(a.dtype, b.dtype)
                    return Select(c, convert(a, d), convert(b, d), d, self.loc(s))
                case ast.Assign(targets=targets) if len(targets) > 1 or not isinstance(targets[0], ast.Name):
                    self.fail(f"assignment '{ast.unparse(s)}' in helper '{hs.name}' is not supported (only to a name)", s)
                case _:
                    self.fail(f"{describe(s)} in helper function '{hs.name}' is not supported", s)
        self.fail(f"helper function '{hs.name}' may end without returning a value", fdef)


def _number_literal_node(node: ast.expr) -> int | float | None:
    """The value of an int / float literal, possibly negated (not a bool)."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        sign = -1 if isinstance(node.op, ast.USub) else 1
        node = node.operand
    v = node.value if isinstance(node, ast.Constant) else None
    if isinstance(v, int | float) and not isinstance(v, bool):
        return sign * v
    return None


def _is_lifted_decorator(d: ast.expr) -> bool:
    """``@lifted``, ``@tenspiler.lifted`` or a call of either: the decorator that replaces
    the function by its lifted version does not change the meaning of the body."""
    if isinstance(d, ast.Call):
        d = d.func
    if isinstance(d, ast.Name):
        return d.id == "lifted"
    return isinstance(d, ast.Attribute) and d.attr == "lifted" and isinstance(d.value, ast.Name) and d.value.id == "tenspiler"
