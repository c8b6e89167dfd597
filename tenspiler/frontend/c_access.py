"""Elements and values the C frontend reads and writes through names: scalar variables,
array parameters, walking pointers (offsets into one array parameter), C++ vectors
(flattened row-major) and the fields of flattened struct parameters."""

from __future__ import annotations

from pycparser import c_ast

from tenspiler.errors import SourceLoc
from tenspiler.frontend.c_bindings import (
    Array,
    CxxResult,
    Env,
    FlatField,
    FlatStruct,
    Pointer,
    PtrValue,
    Value,
    Vector,
    VectorBinding,
    render,
)
from tenspiler.frontend.c_decls import Declarations
from tenspiler.frontend.common import Scalar, convert, vars_read
from tenspiler.frontend.lists import ResultRow, plane_index, row_index
from tenspiler.loops.ir import Assign, Binary, BinOpName, Const, DType, Expr, Load, Var

__all__ = ["Access", "offset_plus"]


def offset_plus(offset: Expr, delta: Expr, op: BinOpName, loc: SourceLoc | None) -> Expr:
    """``offset op delta`` on INT offsets, dropping a literal 0 (so ``A[i]`` stays ``i``)."""
    zero = Const(0, DType.INT)
    if delta == zero:
        return offset
    if op == "+" and offset == zero:
        return delta
    return Binary(op, offset, delta, DType.INT, loc)


class Access(Declarations):
    """Reads and element accesses of a translation unit's kernel and helpers (the middle of
    :class:`tenspiler.frontend.c_inline.Unit`)."""

    null_tested: set[str]

    def expr(self, node: c_ast.Node, env: Env) -> Expr:
        """Lower a side-effect-free C expression
        (:meth:`tenspiler.frontend.c_exprs.Expressions.expr`)."""
        raise NotImplementedError

    # ----------------------------------------------------------- names

    def integer(self, node: c_ast.Node, env: Env, message: str) -> Expr:
        """An integer expression (an index, an offset, a loop bound), converted to INT; a
        floating one is refused with ``message``."""
        e = self.expr(node, env)
        if e.dtype.is_float:
            self.fail(message, node)
        return convert(e, DType.INT)

    def index(self, node: c_ast.Node, env: Env) -> Expr:
        """An array index, converted to INT."""
        return self.integer(node, env, "array index must be an integer")

    def read_var(self, name: str, node: c_ast.Node, env: Env) -> Expr:
        b = env.lookup(name)
        match b:
            case Scalar(dtype=dtype):
                if name not in env.assigned:
                    self.fail(f"'{name}' may be used uninitialised", node)
                fx = env.effects
                if fx is not None:
                    if name in fx.modified:
                        self.fail(f"unsequenced modification and access of '{name}' (C11 §6.5p2)", node)
                    fx.read.add(name)
                return Var(name, dtype, self.loc(node))
            case Value(expr=expr):
                if expr is None:
                    self.fail(f"'{name}' may be used uninitialised", node)
                return expr
            case Array():
                self.fail(f"use of array '{name}' without an index is not supported", node)
            case Pointer() | PtrValue():
                self.fail(f"use of pointer '{name}' as a number is not supported", node)
            case Vector() | CxxResult() | ResultRow():
                self.fail(f"use of vector '{name}' as a value is not supported", node)
            case FlatStruct():
                self.fail(f"use of struct '{name}' as a value is not supported", node)
            case None:
                if name in self.enum_constants:
                    return Const(self.enum_constants[name], DType.INT, self.loc(node))
                if name in self.file_consts:
                    return self.file_const(name, node)
                self.unknown_name(name, node)

    # ----------------------------------------------------------- file-scope constants

    def file_const(self, name: str, node: c_ast.Node) -> Expr:
        """The value of the file-scope constant scalar ``name``: its initialiser converted to
        its type (as C initialises it; a const object keeps that value, C11 §6.7.3p6)."""
        d = self.file_consts[name]
        ty = self.resolve_typedefs(d.type)
        if isinstance(ty, c_ast.ArrayDecl):
            self.fail(f"use of constant array '{name}' without an index is not supported", node)
        return self._const_init(d.init, self._const_dtype(d, d.type), name)

    def const_element(self, node: c_ast.ArrayRef, env: Env) -> Expr | None:
        """``c[k]`` of a file-scope constant array ``c`` at an integer constant index ``k``
        (the initialiser's element ``k``, 0 past the initialisers, C11 §6.7.9p21), or ``None``
        if ``node`` does not subscript such an array."""
        base = node.name
        if not (isinstance(base, c_ast.ID) and env.lookup(base.name) is None and base.name in self.file_consts):
            return None
        name = base.name
        d = self.file_consts[name]
        ty = self.resolve_typedefs(d.type)
        if not isinstance(ty, c_ast.ArrayDecl):
            self.fail(f"subscript of non-array '{name}' is not supported", node)
        dtype = self._const_dtype(d, ty.type)
        idx = self.index(node.subscript, env)
        if not isinstance(idx, Const):
            self.fail(
                f"constant array '{name}' read at the non-constant index '{render(node.subscript)}' "
                "is not supported", node)
        inits = d.init.exprs if isinstance(d.init, c_ast.InitList) else None
        if inits is None or any(isinstance(e, c_ast.NamedInitializer | c_ast.InitList) for e in inits):
            self.fail(f"initialiser of constant array '{name}' is not supported (a list of scalars)", d)
        length = len(inits)
        if ty.dim is not None:
            dim = self.expr(ty.dim, Env([{}]))
            if not isinstance(dim, Const) or dim.dtype.is_float:
                self.fail(f"length of constant array '{name}' is not an integer constant", ty.dim)
            length = int(dim.value)
        k = int(idx.value)
        if not 0 <= k < length:
            self.fail(f"index {k} is outside constant array '{name}' of {length} elements", node)
        if k >= len(inits):
            return Const(0.0 if dtype.is_float else 0, dtype, self.loc(node))
        return self._const_init(inits[k], dtype, name)

    def _const_dtype(self, d: c_ast.Decl, ty: c_ast.Node) -> DType:
        if self.struct_of(ty) is not None:
            self.fail(f"struct constant '{d.name}' is not supported", d)
        dtype = self.scalar_dtype(ty, f"constant '{d.name}'", d)
        if dtype is None:
            self.fail(f"void constant '{d.name}' is not supported", d)
        return dtype

    def _const_init(self, init: c_ast.Node, dtype: DType, name: str) -> Expr:
        if isinstance(init, c_ast.InitList):
            self.fail(f"initialiser of constant '{name}' is not supported", init)
        value = convert(self.expr(init, Env([{}])), dtype)
        if next(vars_read(value), None) is not None:
            self.fail(f"initialiser of constant '{name}' is not a constant expression", init)
        return value

    def array_of(self, node: c_ast.ArrayRef, env: Env) -> tuple[str, DType]:
        base = node.name
        if isinstance(base, c_ast.ArrayRef):
            self.fail("multi-dimensional array access is not supported", node)
        if not isinstance(base, c_ast.ID):
            self.fail(f"subscript of '{render(base)}' is not supported", node)
        b = env.lookup(base.name)
        if b is None:
            self.unknown_name(base.name, base)
        if not isinstance(b, Array):
            self.fail(f"subscript of non-array '{base.name}' is not supported", node)
        return base.name, b.elem

    # ----------------------------------------------------------- pointers

    def is_pointer(self, node: c_ast.Node, env: Env) -> bool:
        """Whether C gives ``node`` a pointer type (decided syntactically, without lowering)."""
        match node:
            case c_ast.ID(name=name):
                return isinstance(env.lookup(name), Array | Pointer | PtrValue)
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
                return self.rows_field(node, env) is not None or self.array_field(node, env) is not None
            case c_ast.ArrayRef(name=c_ast.StructRef() as ref):
                return self.rows_field(ref, env) is not None  # a row m.g[r]
            case c_ast.ArrayRef(name=base):
                return self.rows_array(base, env) is not None  # a row A[r]
            case _:
                return False

    def null_truth(self, node: c_ast.Node, env: Env) -> bool | None:
        """The value of a null test of an array parameter (``X``, ``X != NULL``, ``X != 0``:
        true; ``!X``, ``X == NULL``, ``X == 0``: false), else ``None``. The model's array
        parameters are arrays, never null: every caller of the lifted code passes one (and
        the compiled source is checked with real buffers)."""
        def is_array(n: c_ast.Node) -> bool:
            if not isinstance(n, c_ast.ID):
                return False
            b = env.lookup(n.name)
            return isinstance(b, Array) or (isinstance(b, Pointer) and b.base == b.name)  # a parameter

        def is_null(n: c_ast.Node) -> bool:
            """``NULL`` (undefined, or as <stddef.h> defines it, ``((void *) 0)``) or ``0``."""
            if isinstance(n, c_ast.Cast) and isinstance(n.to_type.type, c_ast.PtrDecl):
                pointee = n.to_type.type.type
                if isinstance(pointee, c_ast.TypeDecl) and getattr(pointee.type, "names", None) == ["void"]:
                    return is_null(n.expr)
            return (isinstance(n, c_ast.ID) and n.name == "NULL" and env.lookup("NULL") is None) or (
                isinstance(n, c_ast.Constant) and n.type == "int" and n.value in ("0", "0L", "0l", "0u", "0U"))

        match node:
            case c_ast.ID(name=name) if is_array(node):
                self.null_tested.add(name)
                return True
            case c_ast.UnaryOp(op="!", expr=x):
                t = self.null_truth(x, env)
                return None if t is None else not t
            case c_ast.BinaryOp(op="==" | "!=" as op, left=a, right=b) if (is_array(a) and is_null(b)) or (
                is_null(a) and is_array(b)
            ):
                self.null_tested.add(a.name if is_array(a) else b.name)
                return op == "!="
        return None

    def pointer_value(self, node: c_ast.Node, env: Env) -> PtrValue:
        """Lower a pointer-typed expression (``A``, ``p``, ``&X[E]``, ``&*P``, ``P ± E``)."""
        loc = self.loc(node)
        match node:
            case c_ast.ID(name=name):
                b = env.lookup(name)
                match b:
                    case Array(cols=cols, rows=rows) if cols is not None:
                        if rows is not None:
                            self.fail(f"3-D array parameter '{name}' used as a pointer is not supported "
                                      f"(only its elements {name}[p][r][c])", node)
                        self.fail(f"2-D array parameter '{name}' used as a pointer is not supported "
                                  f"(only its elements {name}[r][c])", node)
                    case Array(elem=elem, ctype=ctype):
                        return PtrValue(name, elem, ctype, Const(0, DType.INT, loc))
                    case Pointer(base=base, elem=elem, ctype=ctype):
                        var = self.read_pointer(b, node, env)
                        assert base is not None  # assigned pointers have a base
                        return PtrValue(base, elem, ctype, var)
                    case PtrValue():
                        return b  # a pointer parameter of a helper inlined by substitution
                    case None:
                        self.unknown_name(name, node)
                    case _:
                        self.fail(f"'{name}' is not a pointer", node)
            case c_ast.UnaryOp(op="&", expr=target):
                if isinstance(target, c_ast.ArrayRef) or (
                    isinstance(target, c_ast.UnaryOp) and target.op == "*"
                ):
                    array, elem, idx = self.element(target, env)
                    return PtrValue(array, elem, self.ctype_of(array, env), idx)
                if self.is_pointer(target, env):
                    self.fail(f"pointer to pointer '{render(node)}' is not supported", node)
                self.fail("address-of operator '&' is not supported", node)
            case c_ast.BinaryOp(op="+" | "-" as op, left=left, right=right):
                left_ptr, right_ptr = self.is_pointer(left, env), self.is_pointer(right, env)
                if left_ptr and right_ptr:
                    what = "difference" if op == "-" else "sum"
                    self.fail(f"pointer {what} '{render(node)}' is not supported", node)
                if op == "-" and not left_ptr:
                    self.fail(f"pointer value '{render(node)}' is not supported", node)
                ptr, delta = (left, right) if left_ptr else (right, left)
                pv = self.pointer_value(ptr, env)
                offset = offset_plus(pv.offset, self.pointer_offset(delta, env), op, loc)
                return PtrValue(pv.base, pv.elem, pv.ctype, offset)
            case c_ast.UnaryOp(op="++" | "--" | "p++" | "p--" as op, expr=operand):
                self.fail(
                    f"'{op.lstrip('p')}' on pointer '{render(operand)}' inside an expression is "
                    "not supported (only *p++, *p--, *++p, *--p and pointer updates as statements)",
                    node,
                )
            case c_ast.Cast():
                self.fail(f"pointer cast '{render(node)}' is not supported", node)
            case c_ast.StructRef() if (af := self.array_field(node, env)) is not None:
                return PtrValue(af.param, af.field.dtype, af.field.ctype, Const(0, DType.INT, loc))
            case c_ast.ArrayRef(name=base) if self.rows_array(base, env) is not None:
                self.fail(f"row '{render(node)}' of 2-D array '{render(base)}' used as a value is not supported", node)
            case c_ast.StructRef() | c_ast.ArrayRef():
                self.fail(
                    f"row pointer '{render(node)}' of a struct field used as a value is not supported",
                    node,
                )
            case _:
                self.fail(
                    f"pointer value '{render(node)}' is not supported "
                    "(only A, &A[E], A + E, A - E and pointer variables)",
                    node,
                )

    def ctype_of(self, array: str, env: Env) -> str:
        """Element C type of array parameter ``array`` (or of the flat parameter of a
        struct's ``T *`` field)."""
        b = env.lookup(array)
        if b is None:
            for scope in env.scopes:
                for s in scope.values():
                    if isinstance(s, FlatStruct):
                        for f in s.fields.values():
                            if f.param == array and f.field.array:
                                return f.field.ctype
        assert isinstance(b, Array | Pointer)
        return b.ctype

    def pointer_offset(self, node: c_ast.Node, env: Env) -> Expr:
        """An integer added to a pointer, converted to INT."""
        return self.integer(node, env, "pointer offset must be an integer")

    def read_pointer(self, b: Pointer, node: c_ast.Node, env: Env) -> Var:
        """Read of pointer ``b``'s offset local (refused if unassigned or unsequenced)."""
        if b.offset not in env.assigned:
            self.fail(f"'{b.name}' may be used uninitialised", node)
        fx = env.effects
        if fx is not None:
            if b.offset in fx.modified:
                self.fail(f"unsequenced modification of '{b.name}'", node)
            fx.read.add(b.offset)
        return Var(b.offset, DType.INT, self.loc(node))

    def step_pointer(self, step: c_ast.UnaryOp, b: Pointer, env: Env) -> Var:
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

    def step_scalar(self, step: c_ast.UnaryOp, name: str, env: Env) -> Var:
        """``i++`` / ``i--`` / ``++i`` / ``--i`` of an integer scalar inside an expression:
        C11 §6.5.2.4 / §6.5.3.1 — the value is ``i`` (postfix) or ``i ± 1`` (prefix) and the
        update is sequenced before the next statement. Records ``i = i ± 1`` to run after
        (postfix) or before (prefix) the statement and returns the variable (which is then
        the value in both cases). Another access of ``i`` in the same statement is
        unsequenced (undefined behaviour, C11 §6.5p2): refused."""
        loc = self.loc(step)
        if name not in env.assigned:
            self.fail(f"'{name}' may be used uninitialised", step)
        fx = env.effects
        assert fx is not None
        if name in fx.modified or name in fx.read:
            self.fail(f"unsequenced modification and access of '{name}' (C11 §6.5p2)", step)
        fx.modified.add(name)
        var = Var(name, DType.INT, loc)
        op: BinOpName = "+" if "++" in step.op else "-"
        assign = Assign(name, Binary(op, var, Const(1, DType.INT, loc), DType.INT, loc), loc)
        (fx.post if step.op.startswith("p") else fx.pre).append(assign)
        env.assigned.add(name)
        return var

    def element(self, node: c_ast.Node, env: Env) -> tuple[str, DType, Expr]:
        """The array, element dtype and INT index denoted by ``X[E]`` or ``*P``."""
        loc = self.loc(node)
        if isinstance(node, c_ast.ArrayRef):
            cell = self.struct_element(node, env)
            if cell is not None and cell[3] is not None:
                root: c_ast.Node = node.name
                while isinstance(root, c_ast.ArrayRef):
                    root = root.name
                rows_b = self.rows_array(root, env)
                what = "struct field" if rows_b is None else "2-D array" if rows_b.rows is None else "3-D array"
                self.fail(f"pointer to {what} element '{render(node)}' is not supported", node)
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
            return pv.base, pv.elem, offset_plus(pv.offset, idx, "+", loc)
        assert isinstance(node, c_ast.UnaryOp) and node.op == "*"
        target = node.expr
        if (
            isinstance(target, c_ast.UnaryOp)
            and target.op in ("++", "--", "p++", "p--")
            and isinstance(target.expr, c_ast.ID)
        ):
            b = env.lookup(target.expr.name)
            if isinstance(b, Pointer):
                var = self.step_pointer(target, b, env)
                assert b.base is not None  # assigned pointers have a base
                return b.base, b.elem, var
        if not self.is_pointer(target, env):
            self.fail(f"dereference of non-pointer '{render(target)}' is not supported", node)
        pv = self.pointer_value(target, env)
        return pv.base, pv.elem, pv.offset

    # ----------------------------------------------------------- C++ vectors

    def vector_root(self, node: c_ast.ArrayRef, env: Env) -> VectorBinding | None:
        """The vector binding ``v`` of ``v[E]`` / ``v[E1][E2]``, if ``v`` is a vector."""
        base: c_ast.Node = node.name
        while isinstance(base, c_ast.ArrayRef):
            base = base.name
        if isinstance(base, c_ast.ID):
            b = env.lookup(base.name)
            if isinstance(b, Vector | CxxResult | ResultRow):
                return b
        return None

    def vector_load(self, node: c_ast.ArrayRef, env: Env) -> Load | None:
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
            case Vector(name=name, vt=vt) if vt.rank == 1 and not two:
                return Load(name, self.index(node.subscript, env), vt.dtype, loc)
            case Vector(name=name, vt=vt, sizes=(_, rows_, cols)) if three:
                assert isinstance(node.name, c_ast.ArrayRef) and isinstance(node.name.name, c_ast.ArrayRef)
                if isinstance(node.name.name.name, c_ast.ArrayRef):
                    self.fail(f"too many subscripts in '{render(node)}' of {vt.spelled} '{name}'", node)
                p = self.index(node.name.name.subscript, env)
                r = self.index(node.name.subscript, env)
                c = self.index(node.subscript, env)
                idx, row, plane = plane_index(p, r, c, rows_, cols, loc)
                return Load(name, idx, vt.dtype, loc, row=row, plane=plane)
            case Vector(name=name, vt=vt) if vt.rank == 3:
                self.fail(f"'{render(node)}' of {vt.spelled} '{name}' used as a value is not supported "
                          "(only elements v[p][r][c])", node)
            case Vector(name=name, vt=vt) if three:
                self.fail(f"too many subscripts in '{render(node)}' of {vt.spelled} '{name}'", node)
            case Vector(name=name, vt=vt, sizes=(_, cols)) if two:
                assert isinstance(node.name, c_ast.ArrayRef)
                r = self.index(node.name.subscript, env)
                c = self.index(node.subscript, env)
                idx, row = row_index(r, c, cols, loc)
                return Load(name, idx, vt.dtype, loc, row=row)
            case Vector(name=name, vt=vt) if vt.rank == 2:
                self.fail(f"row '{render(node)}' of {vt.spelled} '{name}' used as a value is not supported", node)
            case CxxResult(vt=vt, array=array) if vt.rank == 1 and not two:
                return Load(array, self.index(node.subscript, env), vt.dtype, loc)
            case _:
                self.fail(f"reading '{render(node)}' is not supported", node)

    def member_value(self, node: c_ast.FuncCall, env: Env) -> Expr:
        """``v.size()`` (length, or rows of a ``vector<vector<T>>``, or planes of a
        ``vector<vector<vector<T>>>``), ``v[E].size()`` (columns, or rows of each plane: the
        rows of a parameter are assumed to have one length) and ``v[E1][E2].size()``
        (columns of a ``vector<vector<vector<T>>>``). The ``size_t`` result is read as the
        mathematical integer: the type gate (:mod:`tenspiler.frontend.c_types`) types it
        ``unsigned long`` and has refused every use where C++'s unsigned value differs."""
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
                case Vector(sizes=sizes):
                    return Var(sizes[0], DType.INT, loc)
                case CxxResult(vt=vt, length=length) if vt.rank == 1:
                    return Var(length, DType.INT, loc)
                case None:
                    self.unknown_name(obj.name, obj)
        if isinstance(obj, c_ast.ArrayRef) and isinstance(obj.name, c_ast.ID):
            b = env.lookup(obj.name.name)
            if isinstance(b, Vector) and b.vt.rank >= 2:
                self.index(obj.subscript, env)  # refuses what it cannot read
                return Var(b.sizes[1], DType.INT, loc)
        if (isinstance(obj, c_ast.ArrayRef) and isinstance(obj.name, c_ast.ArrayRef)
                and isinstance(obj.name.name, c_ast.ID)):
            b = env.lookup(obj.name.name.name)
            if isinstance(b, Vector) and b.vt.rank == 3:
                self.index(obj.name.subscript, env)
                self.index(obj.subscript, env)
                return Var(b.sizes[2], DType.INT, loc)
        self.fail(f"'{render(node)}' is not supported (size() of a vector parameter or of the returned vector<T>)", node)

    # ----------------------------------------------------------- C struct parameters

    def struct_field(self, ref: c_ast.StructRef, env: Env) -> FlatField:
        """The field ``f`` of ``m.f`` for a struct parameter ``m`` (``m->f`` for one passed
        through a pointer; refused otherwise)."""
        obj = ref.name
        b = env.lookup(obj.name) if isinstance(obj, c_ast.ID) else None
        if ref.type != "." and not (isinstance(b, FlatStruct) and b.pointer and ref.type == "->"):
            self.fail(f"'{ref.type}' member access is not supported", ref)
        if not isinstance(obj, c_ast.ID):
            if isinstance(obj, c_ast.StructRef):
                self.struct_field(obj, env)  # refuses a field that is not supported by name
            self.fail(f"member access on '{render(obj)}' is not supported", ref)
        if b is None:
            self.unknown_name(obj.name, obj)
        if not isinstance(b, FlatStruct):
            self.fail(f"member access on non-struct '{obj.name}' is not supported", ref)
        if b.pointer and ref.type == ".":
            self.fail(f"'.' member access on struct pointer '{obj.name}' is not supported", ref)
        if ref.field.name in b.refused:
            self.fail(b.refused[ref.field.name], ref)
        f = b.fields.get(ref.field.name)
        if f is None:
            self.fail(f"struct parameter '{b.name}' has no field '{ref.field.name}'", ref)
        return f

    def rows_field(self, ref: c_ast.StructRef, env: Env) -> FlatField | None:
        """The ``T **`` field ``g`` of ``m.g`` (``m`` a struct parameter), else ``None``;
        never raises (for :meth:`is_pointer`)."""
        f = self.field_of(ref, env)
        return f if f is not None and f.cols is not None else None

    def array_field(self, ref: c_ast.StructRef, env: Env) -> FlatField | None:
        """The ``T *`` field ``a`` of ``m.a`` / ``m->a``, else ``None``; never raises."""
        f = self.field_of(ref, env)
        return f if f is not None and f.field.array else None

    def field_of(self, ref: c_ast.StructRef, env: Env) -> FlatField | None:
        if not isinstance(ref.name, c_ast.ID):
            return None
        b = env.lookup(ref.name.name)
        if not isinstance(b, FlatStruct) or ref.type != ("->" if b.pointer else "."):
            return None
        return b.fields.get(ref.field.name)

    def struct_value(self, ref: c_ast.StructRef, env: Env) -> Expr:
        """``m.f`` for a scalar field ``f``: the flat parameter ``m__f``."""
        f = self.struct_field(ref, env)
        if f.field.array:
            self.fail(f"use of array field '{render(ref)}' as a number is not supported", ref)
        if f.cols is not None:
            self.fail(f"use of row-pointer field '{render(ref)}' without two indices is not supported", ref)
        return Var(f.param, f.field.dtype, self.loc(ref))

    def rows_array(self, node: c_ast.Node, env: Env) -> Array | None:
        """The binding of ``node`` if it names a 2-D or 3-D array parameter, else ``None``."""
        if isinstance(node, c_ast.ID):
            b = env.lookup(node.name)
            if isinstance(b, Array) and b.cols is not None:
                return b
        return None

    def struct_element(
        self, node: c_ast.ArrayRef, env: Env
    ) -> tuple[str, DType, Expr, tuple[Expr, Expr] | None] | None:
        """``m.a[E]`` of a ``T *`` field (``m__a``, dtype, ``E``, no row); ``m.g[r][c]`` of a ``T **`` field: (``m__g``, element dtype,
        ``r * m__g__cols + c``, row ``(c, m__g__cols)``); also ``A[r][c]`` of a 2-D array
        parameter (``r * M + c``, row ``(c, M)``: C has no element outside its row, C11
        J.2); ``None`` when ``node`` is not such an access. A row ``m.g[r]`` / ``A[r]`` on
        its own is refused."""
        base = node.name
        subscripts: list[c_ast.Node] = [node.subscript]
        root: c_ast.Node = base
        while isinstance(root, c_ast.ArrayRef):
            subscripts.insert(0, root.subscript)
            root = root.name
        b = self.rows_array(root, env)
        if b is not None:
            assert isinstance(root, c_ast.ID) and b.cols is not None
            rank = 2 if b.rows is None else 3
            if len(subscripts) > rank:
                self.fail(f"too many subscripts in '{render(node)}' of {rank}-D array '{root.name}'", node)
            if len(subscripts) < rank:
                what = "row" if len(subscripts) == rank - 1 else "plane"
                self.fail(f"{what} '{render(node)}' of {rank}-D array '{root.name}' used as a value is not supported", node)
            loc = self.loc(node)
            subs = [self.index(e, env) for e in subscripts]
            if b.rows is None:
                r, c = subs
            else:  # (p * R + r) * C + c: C has no element outside its row or plane (C11 J.2)
                p, r_, c = subs
                r = Binary("+", Binary("*", p, b.rows, DType.INT, loc), r_, DType.INT, loc)
            flat: Expr = Binary("+", Binary("*", r, b.cols, DType.INT, loc), c, DType.INT, loc)
            return root.name, b.elem, flat, (c, b.cols)
        if isinstance(base, c_ast.StructRef):
            f = self.struct_field(base, env)
            if f.field.array:  # m->a[E] of a T * field: the array m__a
                return f.param, f.field.dtype, self.index(node.subscript, env), None
            if f.cols is None:
                self.fail(f"subscript of non-array '{render(base)}' is not supported", node)
            self.fail(f"row pointer '{render(node)}' of a struct field used as a value is not supported", node)
        if not (isinstance(base, c_ast.ArrayRef) and isinstance(base.name, c_ast.StructRef)):
            return None
        f = self.struct_field(base.name, env)
        if f.field.array:
            self.fail(f"too many subscripts in '{render(node)}' of array field '{render(base.name)}'", node)
        if f.cols is None:
            self.fail(f"subscript of non-array '{render(base.name)}' is not supported", base)
        loc = self.loc(node)
        r = self.index(base.subscript, env)
        c = self.index(node.subscript, env)
        idx, row = row_index(r, c, f.cols, loc)
        return f.param, f.field.dtype, idx, row
