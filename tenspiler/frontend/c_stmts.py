"""Statements of the C kernel: the function and its parameters (struct parameters
flattened, C++ vectors), declarations, updates, if-conversion, pointer walking (a local
pointer is an INT offset into one array parameter) and the C++ vector the kernel returns,
built by ``push_back``; ``for`` loops: :mod:`tenspiler.frontend.c_loops`."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace

from pycparser import c_ast

from tenspiler.errors import BadInput, SourceLoc
from tenspiler.frontend.c_access import offset_plus
from tenspiler.frontend.c_bindings import (
    NOT_IN_IF,
    Array,
    Binding,
    CxxResult,
    Effects,
    Env,
    FlatField,
    FlatStruct,
    Pointer,
    PtrValue,
    RowsType,
    StructType,
    Vector,
    describe,
    identifiers,
    pushes,
    render,
    updated_names,
)
from tenspiler.frontend.c_inline import Unit
from tenspiler.frontend.c_loops import ForLoops
from tenspiler.frontend.c_switch import RefusedSwitch
from tenspiler.frontend.c_unit import ASSERT_MARKER
from tenspiler.frontend.common import IfConversion, Scalar, convert, names_read, vars_read, writes
from tenspiler.frontend.cxx import VectorType
from tenspiler.frontend.lists import ResultLists, ResultRow, flat_list_param
from tenspiler.loops.ir import (
    Assign,
    Binary,
    BinOpName,
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
    PathSplit,
    PointerType,
    Return,
    ScalarType,
    Select,
    Stmt,
    Store,
    StructField,
    StructParam,
    Var,
    VectorParam,
    map_expr,
    subexpressions,
)

__all__ = ["Kernel", "lower_paths"]


def _lvalue_base(node: c_ast.Node) -> str | None:
    """The variable or array an lvalue ``x`` / ``a[i]`` / ``a[i][j]`` designates."""
    while isinstance(node, c_ast.ArrayRef):
        node = node.name
    return node.name if isinstance(node, c_ast.ID) else None


def _plain_lvalue(node: c_ast.Node) -> bool:
    """A variable or an array element whose indices have no side effect (no assignment,
    ``++``/``--`` or call): reading it again after a store gives the stored value."""
    if _lvalue_base(node) is None:
        return False
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, c_ast.Assignment | c_ast.FuncCall) or (
            isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--")
        ):
            return False
        stack.extend(child for _, child in n.children())
    return True


class Kernel(ForLoops, IfConversion, ResultLists):
    """Lowering of the chosen function's body to loop-IR statements."""

    result: CxxResult | None

    def __init__(self, unit: Unit, fdef: c_ast.FuncDef) -> None:
        self.unit = unit
        self.fdef = fdef
        self.name: str = fdef.decl.name
        self.locals: dict[str, DType] = {}
        self.step_requires = []
        #: The path conditions (:meth:`path_condition`) of this path, over the entry values.
        self.path_conds: list[Cond] = []
        #: Shifts by a run-time count (:meth:`record_shift`): ``(count, width, node, at)``.
        self.shifts: list[tuple[Expr, int, c_ast.Node, int]] = []
        unit.shift_hook = self.record_shift  # type: ignore[attr-defined]
        #: Identifiers of the source function (fresh names avoid them).
        self.taken: set[str] = set(identifiers(fdef))
        #: Guard of the statements being lowered (inside an ``if``), else ``None``.
        self.guard: Cond | None = None
        self.if_count = 0
        #: Headers ``(var, start, stop)`` of the loops around the statement being lowered.
        self.loops = []
        #: Items of the blocks being lowered, innermost last.
        self.blocks: list[list[c_ast.Node]] = []
        #: Helpers whose call statements are being lowered (:meth:`inlined_call`).
        self.inlining_stack: list[str] = []
        #: The statements lowered so far in each block being lowered (the function body
        #: first), innermost last.
        self.emitted: list[list[Stmt]] = []
        #: C++: the returned vector's type; its binding and pushes (:class:`ResultLists`).
        self.result_type: VectorType | None = None
        self.init_result_lists()

    def lower(self) -> Function:
        u = self.unit
        params: list[Param] = []
        scope: dict[str, Binding] = {}
        body: list[Stmt] = []
        assigned: set[str] = set()
        walked = set(updated_names(self.fdef.body))
        taken = self.taken
        signature: list[VectorParam | str] = []
        structs: list[StructParam] = []
        for decl, ty in u.params_of(self.fdef):
            if isinstance(ty, StructType):
                binding, flat, sp = self.struct_param(decl, ty)
                params.extend(flat)
                scope[decl.name] = binding
                assigned.update(p.name for p in flat)
                structs.append(sp)
                continue
            if isinstance(ty, VectorType):
                flat, sizes, vp = flat_list_param(decl.name, ty.rank, ty.dtype, ty.elem, u.loc(decl), self.fresh)
                params.extend(flat)
                scope[decl.name] = Vector(decl.name, ty, sizes)
                assigned.update([decl.name, *sizes])
                signature.append(vp)
                continue
            signature.append(decl.name)
            if isinstance(ty, RowsType):
                self.rows_param(decl, ty, params, scope, assigned, walked)
                continue
            params.append(Param(decl.name, ty, u.loc(decl), u.c_width(decl.type)))
            assigned.add(decl.name)
            if isinstance(ty, PointerType) and decl.name in walked:
                # A walked array parameter: its position is a fresh offset local, from 0.
                offset = f"{decl.name}__off"
                k = 1
                while offset in taken or offset in self.locals:
                    offset, k = f"{decl.name}__off{k}", k + 1
                self.locals[offset] = DType.INT
                ctype = u.elem_ctype(decl.type)
                scope[decl.name] = Pointer(decl.name, ty.elem, ctype, decl.name, offset)
                body.append(Assign(offset, Const(0, DType.INT, u.loc(decl)), u.loc(decl)))
                assigned.add(offset)
            elif isinstance(ty, PointerType):
                scope[decl.name] = Array(ty.elem, u.elem_ctype(decl.type))
            else:
                scope[decl.name] = Scalar(ty.dtype)
        self.global_params(params, scope, assigned)
        self.result_type = u.vector_type(self.fdef.decl.type.type)
        if self.result_type is not None and self.result_type.rank == 3:
            u.fail(f"returning a {self.result_type.spelled} is not supported yet (return a vector<T> or "
                   "vector<vector<T>>, or write into a flat output array)", self.fdef.decl)
        self.return_dtype = None if self.result_type is not None else u.return_dtype(self.fdef)
        env = Env([scope], assigned=assigned, inlining=(self.name,))
        items = list(self.fdef.body.block_items or [])
        while items and isinstance(items[-1], c_ast.EmptyStatement):
            items.pop()
        self.function_items = items
        self.emitted.append(body)
        guards: list[tuple[c_ast.If, Cond, Expr | None, list[Store], int]] = []
        for k, item in enumerate(items):
            early = self.early_return(item, k, items, env)
            if early == "never":
                continue
            if early is not None:
                guards.append((item, *early, len(body)))
                continue
            if isinstance(item, c_ast.Return) and k == len(items) - 1:
                fx = Effects()
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
        self.emitted.pop()
        from tenspiler.frontend.c_guards import RETURNS_OTHER, redundant_guard
        from tenspiler.vc.concrete import C_INT_RANGES

        ranges = {p.name: C_INT_RANGES[p.c_type] for p in params if p.c_type in C_INT_RANGES}
        for node, cond, value, stores, at in reversed(guards):
            if stores:
                self.guard_with_stores(node, cond, value, stores, body, at, params, ranges)
                continue
            reason = redundant_guard(cond, value, body[at:], [(p.name, p.type) for p in params], dict(self.locals),
                                     ranges)
            if reason == RETURNS_OTHER and value is not None and isinstance(body[-1], Return) \
                    and body[-1].value is not None:
                # only the returned value differs where the guard holds: it is a select on the
                # guard, evaluated where C tests it (its value too)
                loc = u.loc(node)
                flag = self.fresh_if_local()
                kept = self.fresh_if_local()
                self.locals[kept] = value.dtype
                last = body[-1]
                assert isinstance(last, Return) and last.value is not None
                body[-1] = Return(Select(Compare("!=", Var(flag, DType.INT, loc), Const(0, DType.INT, loc), loc),
                                         Var(kept, value.dtype, loc), last.value, value.dtype, loc), last.loc)
                body[at:at] = [self.flag_assignment(flag, cond, loc, loc), Assign(kept, value, loc)]
            elif reason is not None:
                u.fail(f"early return is not supported: {reason}", node)
        cxx = None
        if u.cxx:
            result = None
            if self.result is not None:
                vt = self.result.vt
                fallback = u.loc(self.fdef) or SourceLoc(u.filename, 1, 1)
                result = self.result_interface(params, body, vt.dtype, vt.elem, u.loc(self.fdef), fallback, "vector")
            cxx = CxxInterface(tuple(signature), result)
        self.shift_requires(body)
        requires = self.checked_requires(params, body)
        return Function(
            name=self.name,
            params=tuple(params),
            return_dtype=self.return_dtype,
            return_c_type=u.c_width(self.fdef.decl.type.type),
            locals=tuple(self.locals.items()),
            body=tuple(body),
            source=u.text,
            loc=u.loc(self.fdef),
            cxx=cxx,
            structs=tuple(structs),
            non_null=tuple(p.name for p in params if p.name in u.null_tested),
            requires=requires,
        )

    def checked_requires(self, params: list[Param], body: list[Stmt]) -> tuple[tuple[Expr, Expr, str], ...]:
        """The preconditions of the loops' lowering (:attr:`step_requires`), which must read
        only scalar parameters the function never writes (their values at every loop are
        then the entry values the precondition is stated and checked on)."""
        from tenspiler.frontend.common import names_read, names_written

        scalars = {p.name for p in params if isinstance(p.type, ScalarType)}
        written = names_written(body)
        out: list[tuple[Expr, Expr, str]] = []
        for left, right, what, loc in self.step_requires:
            for name in sorted(names_read(left) | names_read(right)):
                if name not in scalars or name in written:
                    raise BadInput(f"{what.split(' of the loop')[0].removesuffix(' holds')} reads '{name}', which is not "
                                   "a scalar parameter the function leaves unchanged (a precondition — a run-time step, "
                                   "an assert — must read only those)", loc)  # type: ignore[arg-type]
            out.append((left, right, what))
        return tuple(out)

    def global_params(self, params: list[Param], scope: dict[str, Binding], assigned: set[str]) -> None:
        """The file-scope scalar variables the kernel reads (``Unit.file_vars``; the file
        holds only what the kernel reaches) as parameters after the function's own: the
        function computes with their values at the call. A global that the kernel or a
        function of the file writes, or whose name a parameter hides, is refused by name."""
        u = self.unit
        writers = {name: f for f, fdef in u.funcdefs.items() for name in updated_names(fdef.body)}
        for name, decl in u.file_vars.items():
            if name in writers:
                where = "the function" if writers[name] == self.name else f"'{writers[name]}'"
                u.fail(f"global variable '{name}' is written by {where}: not supported (a global "
                       "the function only reads is a parameter of the lifted function)", decl)
            if name in scope:
                u.fail(f"global variable '{name}' hidden by a parameter is not supported", decl)
            dtype = u.scalar_dtype(decl.type, f"global variable '{name}'", decl)
            if dtype is None:
                u.fail(f"void global variable '{name}' is not supported", decl)
            params.append(Param(name, ScalarType(dtype), u.loc(decl), u.c_width(decl.type), global_var=True))
            scope[name] = Scalar(dtype)
            assigned.add(name)

    def rows_param(
        self, decl: c_ast.Decl, ty: RowsType, params: list[Param], scope: dict[str, Binding],
        assigned: set[str], walked: set[str],
    ) -> None:
        """A 2-D array parameter ``T A[N][M]`` (or the C99 variable length array parameter
        ``T A[n][m]``): the pointer parameter ``A`` holding its rows row-major, bound with
        its row length ``M`` — a constant, or the value of earlier parameters on entry (C11
        §6.9.1p10), so those must keep it: a parameter the body assigns is refused. A 3-D
        array parameter ``T A[P][R][C]`` likewise, bound with ``C`` and ``R``."""
        u = self.unit
        loc = u.loc(decl)
        shape = "2-D" if ty.rows is None else "3-D"
        if decl.name in walked:
            u.fail(f"updating {shape} array parameter '{decl.name}' is not supported", decl)

        def length(node: c_ast.Node, what: str) -> Expr:
            value = u.integer(node, Env([scope], assigned=set(assigned)),
                              f"{what} of {shape} array parameter '{decl.name}' must be an integer")
            for name, _ in vars_read(value):
                if name in walked:
                    u.fail(
                        f"{what} '{render(node)}' of {shape} array parameter '{decl.name}' reads "
                        f"'{name}', which the function assigns (the length is its value on entry)",
                        node,
                    )
            return value

        cols = length(ty.cols, "row length")
        rows = None if ty.rows is None else length(ty.rows, "row count")
        params.append(Param(decl.name, PointerType(ty.elem), loc, u.c_width(decl.type), c_rows=True))
        scope[decl.name] = Array(ty.elem, u.elem_ctype(decl.type), cols, rows)
        assigned.add(decl.name)

    def guard_with_stores(self, node: c_ast.If, cond: Cond, value: Expr | None, stores: list[Store],
                          body: list[Stmt], at: int, params: list[Param],
                          ranges: dict[str, tuple[int, int]] | None = None) -> None:
        """An argument guard that stores before it returns, ``if (G) { *out = V; return [R]; }``:
        where ``G`` holds, C stores ``V`` and returns; elsewhere it runs the rest. The rest
        is lowered as if the guard were absent, then the rest's last top-level store to
        each element the guard stores becomes ``G ? V : (the rest's value)`` (``G`` and
        ``V`` evaluated where C tests the guard, kept in fresh locals), and so does a
        returned value that differs. That is C's result on every input when, where ``G``
        holds, nothing else the rest does is visible: every loop that stores runs no
        iteration and every other top-level store is to an element the guard stores (cvc5
        proves it, ``c_guards.stores_only_where``); the loops that only compute scalars
        may run in the model (their values are then unused)."""
        from tenspiler.frontend.c_guards import RETURNS_OTHER, stores_only_where

        u = self.unit
        loc = u.loc(node)
        rest = body[at:]
        targets = {(st.array, st.index.value) for st in stores if isinstance(st.index, Const)}
        reason = stores_only_where(cond, value, rest, [(p.name, p.type) for p in params], dict(self.locals),
                                   targets, ranges)
        if reason is not None and reason != RETURNS_OTHER:
            u.fail(f"early return is not supported: {reason}", node)
        flag = self.fresh_if_local()
        taken = Compare("!=", Var(flag, DType.INT, loc), Const(0, DType.INT, loc), loc)
        inserted: list[Stmt] = [self.flag_assignment(flag, cond, loc, loc)]
        for st in stores:
            assert isinstance(st.index, Const)  # the guard's stores are at constant indices
            last = max((i for i, s in enumerate(rest) if isinstance(s, Store) and s.array == st.array
                        and isinstance(s.index, Const) and s.index.value == st.index.value), default=None)
            if last is None:
                u.fail(f"early return is not supported: the guard stores into '{st.array}[{st.index.value}]', "
                       "which the rest of the function does not store at its top level", node)
            kept = self.fresh_if_local()
            self.locals[kept] = st.value.dtype
            inserted.append(Assign(kept, st.value, loc))
            old = rest[last]
            assert isinstance(old, Store)
            rest[last] = Store(old.array, old.index,
                               Select(taken, Var(kept, st.value.dtype, loc), old.value, old.value.dtype, loc),
                               old.loc, old.row)
        if reason == RETURNS_OTHER:
            last_ret = rest[-1] if rest else None
            if value is None or not isinstance(last_ret, Return) or last_ret.value is None:
                u.fail(f"early return is not supported: {reason}", node)
            kept = self.fresh_if_local()
            self.locals[kept] = value.dtype
            inserted.append(Assign(kept, value, loc))
            rest[-1] = Return(Select(taken, Var(kept, value.dtype, loc), last_ret.value, value.dtype, loc),
                              last_ret.loc)
        body[at:] = [*inserted, *rest]

    def guard_stores(self, items: list[c_ast.Node], env: Env) -> list[Store] | None:
        """The stores of a guard's block before its ``return``: each statement one store of a
        scalar through a pointer or at a constant index (``*out = 0;``, ``out[1] = x;``),
        to distinct elements; ``None`` otherwise."""
        out: list[Store] = []
        for it in items:
            if not isinstance(it, c_ast.Assignment) or it.op != "=" or not isinstance(
                it.lvalue, c_ast.UnaryOp | c_ast.ArrayRef
            ) or (isinstance(it.lvalue, c_ast.UnaryOp) and it.lvalue.op != "*"):
                return None
            probe = Env([dict(sc) for sc in env.scopes], assigned=set(env.assigned), written=set(env.written),
                        inlining=env.inlining)
            lowered = self.stmt(it, probe)
            if len(lowered) != 1 or not isinstance(lowered[0], Store) or not isinstance(lowered[0].index, Const) \
                    or lowered[0].row is not None:
                return None
            st = lowered[0]
            assert isinstance(st.index, Const)
            k = st.index.value
            if any(o.array == st.array and isinstance(o.index, Const) and o.index.value == k for o in out):
                return None
            out.append(st)
        return out

    def early_return(self, item: c_ast.Node, k: int, items: list[c_ast.Node], env: Env
                     ) -> tuple[Cond, Expr | None, list[Store]] | str | None:
        """``if (G) return;`` / ``if (G) return R;`` before the last statement of the
        function body: ``(G, R)`` (``R`` converted to the return type), else ``None``.
        The rest of the function is lowered as if the guard were absent; the guard is
        accepted only if the rest, run where ``G`` holds, runs no loop iteration, stores
        nothing and returns ``R`` (``tenspiler.frontend.c_guards``)."""
        if not isinstance(item, c_ast.If) or item.iffalse is not None or k == len(items) - 1:
            return None
        then = item.iftrue
        stored: list[c_ast.Node] = []
        if isinstance(then, c_ast.Compound) and (then.block_items or []):
            *stored, then = then.block_items
        if not isinstance(then, c_ast.Return) or self.loops or self.result_type is not None:
            return None
        stores = self.guard_stores(stored, env) if stored else []
        if stores is None:
            return None
        u = self.unit
        test = self.without_null_tests(item.cond, env)
        if test is None:
            return "never"
        cond = u.cond(test, env)
        value: Expr | None = None
        if then.expr is not None:
            if self.return_dtype is None:
                u.fail(f"returning a value from void function '{self.name}'", then)
            value = convert(u.expr(then.expr, env), self.return_dtype)
        elif self.return_dtype is not None:
            u.fail(f"'return;' in function '{self.name}' returning a value", then)
        return cond, value, stores

    def without_null_tests(self, cond: c_ast.Node, env: Env) -> c_ast.Node | None:
        """The guard condition without its null tests of array parameters (``!x``,
        ``x == NULL``, ``x == 0``, ``NULL == x``, as terms of a ``||`` chain): the model's
        arrays are never null (every caller of the lifted code passes an array), so those
        terms are false. ``None``: nothing is left (the guard is never taken)."""
        def null_test(n: c_ast.Node) -> bool:
            return self.unit.null_truth(n, env) is False

        if null_test(cond):
            return None
        if isinstance(cond, c_ast.BinaryOp) and cond.op == "||":
            left = self.without_null_tests(cond.left, env)
            right = self.without_null_tests(cond.right, env)
            if left is None or right is None:
                return left if right is None else right
            return c_ast.BinaryOp("||", left, right, cond.coord)
        return cond

    def struct_param(
        self, decl: c_ast.Decl, ty: StructType
    ) -> tuple[FlatStruct, list[Param], StructParam]:
        """Flatten struct parameter ``m``: a scalar field ``f`` becomes the scalar parameter
        ``m__f``; a ``T **`` field ``g`` the pointer parameter ``m__g`` (its rows, flattened
        row-major) followed by the INT parameter ``m__g__cols`` (their length); a ``T *``
        field ``a`` the pointer parameter ``m__a``. Names that the function uses get a
        numeric suffix. A struct passed through a pointer (``T *m``, fields read as
        ``m->f``) is flattened the same way, but only the fields the function names (the
        compiled C gets a struct whose other fields are zero); a struct none of whose fields
        is named is refused."""
        u = self.unit
        loc = u.loc(decl)
        fields: dict[str, FlatField] = {}
        refused: dict[str, str] = {}
        flat: list[Param] = []
        described: list[StructField] = []
        named = _fields_named(self.fdef.body, decl.name)
        for f in ty.fields:
            if ty.pointer and f.name not in named:
                continue
            if f.refused is not None:
                refused[f.name] = f.refused
                continue
            param = self.fresh(f"{decl.name}__{f.name}")
            if f.rows:
                cols = self.fresh(f"{param}__cols")
                flat.append(Param(param, PointerType(f.dtype), loc, f.c_type))
                flat.append(Param(cols, ScalarType(DType.INT), loc))
            elif f.array:
                cols = None
                flat.append(Param(param, PointerType(f.dtype), loc, f.c_type))
            else:
                cols = None
                flat.append(Param(param, ScalarType(f.dtype), loc, f.c_type))
            fields[f.name] = FlatField(f, param, cols)
            described.append(StructField(f.name, param, cols))
        if ty.pointer and not fields and not refused:
            u.fail(f"struct pointer parameter '{decl.name}' none of whose fields the function reads "
                   "is not supported", decl)
        return (FlatStruct(decl.name, fields, ty.pointer, refused), flat,
                StructParam(decl.name, ty.spelled, tuple(described), ty.pointer))

    # ----------------------------------------------------------- C++ vectors

    def vector_decl(self, node: c_ast.Decl, vt: VectorType, env: Env) -> list[Stmt]:
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
            length, init = self.result_length(name, env, loc)
            self.result = CxxResult(name, vt.rank, name, length, vt)
            env.scopes[-1][name] = self.result
            return init
        items = self.blocks[-1] if self.blocks else []
        last = next((i for i in reversed(items) if not isinstance(i, c_ast.EmptyStatement)), None)
        r = self.result
        if (
            not self.loops
            or r is None
            or r.vt.rank != 2
            or vt != VectorType(1, r.vt.elem)
            or not pushes(last, r.name, name)
        ):
            want = f"{r.name}.push_back({name});" if r is not None else "result.push_back(row);"
            u.fail(
                f"local {vt.spelled} '{name}' is not supported: a vector local inside a loop "
                f"must be a row of the returned vector<vector<T>>, pushed by the last statement "
                f"of its block ('{want}')",
                node,
            )
        assert last is not None
        env.scopes[-1][name] = ResultRow(name, r.name, len(self.loops), last)
        return []

    def push_back(self, node: c_ast.FuncCall, env: Env) -> list[Stmt]:
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
                u.fail(f"expression statement '{render(node)}' has no effect", node)
            u.fail(f"method '{method}' is not supported (only size() and push_back())", node)
        if ref.type != "." or not isinstance(ref.name, c_ast.ID):
            u.fail(f"push_back on '{render(ref.name)}' is not supported", node)
        args = node.args.exprs if node.args is not None else []
        if len(args) != 1:
            u.fail("push_back takes one argument", node)
        if self.guard is not None:
            u.fail("push_back inside if is not supported (the length of the result would depend on the data)", node)
        b = env.lookup(ref.name.name)
        match b:
            case CxxResult(vt=vt) if vt.rank == 1:
                return self.push_element(b, b, convert(u.expr(args[0], env), vt.dtype), loc)
            case ResultRow(into=into):
                into_b = env.lookup(into)
                assert isinstance(into_b, CxxResult)
                return self.push_element(b, into_b, convert(u.expr(args[0], env), into_b.vt.dtype), loc)
            case CxxResult(vt=vt):
                arg = args[0]
                row = env.lookup(arg.name) if isinstance(arg, c_ast.ID) else None
                if not self.is_row_push(b, row, node):
                    u.fail(f"{b.name}.push_back takes the row vector declared in the same block, as that block's last statement", node)
                self.push_row(loc)
                return []
            case Vector():
                u.fail(f"push_back on parameter '{b.name}' is not supported (the kernel may not modify its parameters)", node)
            case None:
                u.unknown_name(ref.name.name, ref.name)
            case _:
                u.fail(f"push_back on non-vector '{ref.name.name}' is not supported", node)

    def ret(self, node: c_ast.Return, env: Env) -> Return:
        u = self.unit
        if self.result_type is not None:
            e = node.expr
            if not (isinstance(e, c_ast.ID) and isinstance(env.lookup(e.name), CxxResult)):
                u.fail(f"'{self.name}' returns a {self.result_type.spelled}: it must return the local vector it builds", node)
            return Return(None, u.loc(node))
        if node.expr is None:
            if self.return_dtype is not None:
                u.fail(f"'return;' in function '{self.name}' returning a value", node)
            return Return(None, u.loc(node))
        if self.return_dtype is None:
            u.fail(f"returning a value from void function '{self.name}'", node)
        if u.is_pointer(node.expr, env):
            u.fail(f"returning pointer '{render(node.expr)}' is not supported", node)
        return Return(convert(u.expr(node.expr, env), self.return_dtype), u.loc(node))

    def declare(
        self,
        name: str,
        dtype: DType,
        node: c_ast.Node,
        env: Env,
        binding: Binding | None = None,
    ) -> None:
        """Add a local to the innermost scope (and to ``Function.locals``).

        ``binding`` defaults to a scalar of ``dtype`` (a pointer passes its ``Pointer``).
        """
        if env.lookup(name) is not None:
            self.unit.fail(f"redeclaration of '{name}' is not supported", node)
        if name in self.locals and self.locals[name] != dtype:
            # Declared before in a scope that has ended; reusing the slot needs one dtype.
            self.unit.fail(f"redeclaration of '{name}' is not supported", node)
        self.locals.setdefault(name, dtype)
        env.scopes[-1][name] = Scalar(dtype) if binding is None else binding
        env.assigned.discard(name)

    def block(self, items: list[c_ast.Node], env: Env) -> list[Stmt]:
        env.scopes.append({})
        self.blocks.append(items)
        out: list[Stmt] = []
        self.emitted.append(out)
        try:
            for item in items:
                out.extend(self.stmt(item, env))
            return out
        finally:
            env.scopes.pop()
            self.blocks.pop()
            self.emitted.pop()

    def stmt(self, node: c_ast.Node, env: Env) -> list[Stmt]:
        match node:
            case c_ast.EmptyStatement():
                return []
            case RefusedSwitch():
                self.unit.fail(node.reason, node.at)
            case c_ast.Compound(block_items=items):
                return self.block(list(items or []), env)
            case c_ast.If() if self.splits_here(node, env):
                raise _SplitAt(node)
            case c_ast.If() if (fused := _fused_if(node)) is not None:
                return self.stmt(fused, env)
            case c_ast.If():
                return self.if_stmt(node, env)
            case c_ast.FuncCall(name=c_ast.ID(name=marker)) if marker == PATH_MARKER:
                return self.path_condition(node, env)
            case _ if self.guard is not None and isinstance(node, NOT_IN_IF):
                self.unit.fail(f"{describe(node)} inside if is not supported", node)
            case c_ast.For() if isinstance(node.init, c_ast.ExprList) or isinstance(node.next, c_ast.ExprList) or (
                isinstance(node.init, c_ast.DeclList) and len(node.init.decls) > 1
            ):
                return self.stmt(self.comma_for(node), env)
            case c_ast.For(init=None):
                return self.counted_loop(node, env)
            case c_ast.For():
                return self.for_loop(node, env)
            case c_ast.While() | c_ast.DoWhile():
                return self.counted_loop(node, env)
            case c_ast.FuncCall(name=c_ast.ID(name=marker)) if marker == ASSERT_MARKER:
                return self.assertion(node, env)
            case c_ast.Cast(expr=c_ast.Constant() | c_ast.ID()) if self.unit.scalar_dtype(
                node.to_type.type, "cast") is None:
                return []  # (void) 0 — assert under NDEBUG — or (void) x: no effect (C11 §6.3.2.2)
            case c_ast.FuncCall(name=c_ast.ID(name=callee)) if (
                callee in self.unit.funcdefs and env.lookup(callee) is None
            ):
                block = self.inlined_call(node, callee, env)
                self.inlining_stack.append(callee)
                try:
                    return self.stmt(block, env)
                finally:
                    self.inlining_stack.pop()
            case _:
                return self.guarded_lowering(env, lambda: self.with_effects(node, env))

    def holds_loop(self, node: c_ast.Node, seen: frozenset[str] = frozenset()) -> bool:
        """Whether ``node`` holds a loop, directly or in a function of the file it calls
        (inlined where it is called, :meth:`inlined_call`)."""
        for n in _walk(node):
            if isinstance(n, c_ast.For | c_ast.While | c_ast.DoWhile):
                return True
            if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and n.name.name not in seen and (
                    (callee := self.unit.funcdefs.get(n.name.name)) is not None) and \
                    self.holds_loop(callee.body, seen | {n.name.name}):
                return True
        return False

    def splits_here(self, node: c_ast.If, env: Env) -> bool:
        """Whether the ``if`` is lowered as a split of the function into two paths
        (:func:`lower_paths`): a statement of the function's top level (run once, outside any
        loop, ``if`` or helper) whose branches hold a loop and whose condition is not a null
        test of an array parameter (which the model reads as a constant)."""
        items = getattr(self, "function_items", [])
        if self.unit.cxx or self.loops or self.guard is not None or self.inlining_stack \
                or not any(it is node for it in items):
            return False
        branches = [b for b in (node.iftrue, node.iffalse) if b is not None]
        if not any(self.holds_loop(b) for b in branches):
            return False
        return self.unit.null_truth(node.cond, env) is None

    def record_shift(self, count: Expr, width: int, node: c_ast.Node) -> None:
        """A shift ``x << k`` / ``x >> k`` by a run-time count ``k`` (C11 §6.5.7p3: undefined
        unless ``0 <= k <`` the width of the promoted ``x``): remembered with the top-level
        statement it is in, for :meth:`shift_requires`."""
        self.shifts.append((count, width, node, len(self.emitted[0]) if self.emitted else 0))

    def shift_requires(self, body: list[Stmt]) -> None:
        """Each run-time shift count as a precondition of the function, ``0 <= k`` and
        ``k + 1 <= width`` over the parameters' entry values (stated among the proof's
        assumptions, checked by the generated code): the count must be fixed before the
        top-level statement holding the shift — read only scalar parameters and locals the
        straight-line code before it computes from them, none of which that statement (its
        loop) writes."""
        u = self.unit
        for count, width, node, at in self.shifts:
            loc = u.loc(node)
            text = render(node)
            if at < len(body):
                written = {w for w, _ in writes([body[at]])}
                moved = sorted(names_read(count) & written)
                if moved:
                    u.fail(f"the shift count of '{text}' reads '{moved[0]}', which changes in the statement around "
                           "it: not supported (a run-time shift count must be fixed before its loop)", node)
            entry: Expr = count
            for st in reversed(body[:at]):
                match st:
                    case Assign(target, value):
                        entry = _substitute(entry, {target: value})
                    case For():
                        moved = sorted(names_read(entry) & {w for w, _ in writes([st])})
                        if moved:
                            u.fail(f"the shift count of '{text}' reads '{moved[0]}', which the loop at line "
                                   f"{st.loc.line if st.loc else '?'} writes: not supported (a run-time shift count "
                                   "must be fixed before its loop)", node)
            if any(isinstance(e, Load) for e in subexpressions(entry)):
                u.fail(f"the shift count of '{text}' reads an array element: not supported (a run-time shift count "
                       "must read only scalar parameters and locals computed from them before its loop)", node)
            what = f"the shift count of '{text}' at line {loc.line if loc else '?'} is in [0, {width}) (C11 §6.5.7p3)"
            one = Const(1, DType.INT, loc)
            self.step_requires.append((Const(0, DType.INT, loc), entry, what, loc))
            self.step_requires.append((Binary("+", entry, one, DType.INT, loc), Const(width, DType.INT, loc), what, loc))

    def path_condition(self, node: c_ast.FuncCall, env: Env) -> list[Stmt]:
        """The marker :func:`lower_paths` puts where a path's ``if`` stood: the path's
        condition (C's condition, or its negation), as C evaluates it there, stated over the
        parameters' entry values as a precondition of this path's function
        (:attr:`step_requires`: assumed by its proof, checked by its generated code, respected
        by the checker's inputs). The condition may read scalar parameters and locals the
        straight-line code before it computes from them; it may not read an array, a pointer
        or a variable a loop before it writes, nor have side effects."""
        u = self.unit
        assert node.args is not None
        arg, sense = node.args.exprs
        taken = isinstance(sense, c_ast.Constant) and sense.value == "1"
        loc = u.loc(arg)
        text = render(arg)
        for n in _walk(arg):
            if isinstance(n, c_ast.Assignment) or (isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--")):
                u.fail(f"the condition '{text}' of an if around loops has a side effect: not supported", n)
        cond = u.cond(arg, env)
        if not taken:
            cond = Not(cond, loc)
        flag: Expr = Select(cond, Const(1, DType.INT, loc), Const(0, DType.INT, loc), DType.INT, loc)
        if any(isinstance(e, Load) for e in subexpressions(flag)):
            u.fail(f"the condition '{text}' of an if around loops reads an array element: not supported (a path "
                   "condition must read only scalar parameters and locals computed from them before the if)", arg)
        prefix = self.emitted[0] if self.emitted else []
        for st in reversed(prefix):
            match st:
                case Assign(target, value):
                    flag = _substitute(flag, {target: value})
                case For():
                    written = {w for w, _ in writes([st])}
                    read = sorted(names_read(flag) & written)
                    if read:
                        u.fail(f"the condition '{text}' of an if around loops reads '{read[0]}', which the loop at "
                               f"line {st.loc.line if st.loc else '?'} writes: not supported (a path condition must "
                               "be fixed before the loops)", arg)
        self.path_conds.append(cond_of(flag))
        self.step_requires.append((Const(1, DType.INT, loc), flag,
                                   f"the path condition '{'' if taken else '!'}({text})' of the if at line "
                                   f"{loc.line if loc else '?'} holds", loc))
        return []

    def assertion(self, node: c_ast.FuncCall, env: Env) -> list[Stmt]:
        """``assert(E);`` (``<assert.h>`` without ``NDEBUG``: C aborts where ``E`` is false,
        C11 §7.2.1.1) as a precondition of the function (:attr:`step_requires`): stated among
        the proof's assumptions and checked by the generated code, which raises where C
        aborts. Only at the top level of the function body, before any early return (run
        exactly once on every path), with ``E`` comparisons of integer expressions joined by
        ``&&`` that read only scalar parameters the function leaves unchanged
        (:meth:`checked_requires`); otherwise refused by name."""
        u = self.unit
        loc = u.loc(node)
        args = node.args.exprs if node.args is not None else []
        text = f"assert({render(args[0])})" if len(args) == 1 else "assert(...)"
        items = getattr(self, "function_items", [])
        at_top = any(it is node for it in items)
        if not at_top or self.loops or self.guard is not None or self.inlining_stack:
            u.fail(f"{text} inside a loop, an if or a helper is not supported (only at the top of the function)", node)
        before = items[: next(i for i, it in enumerate(items) if it is node)]
        if any(isinstance(n, c_ast.Return) for it in before for n in _walk(it)):
            u.fail(f"{text} after an early return is not supported (it does not run on every path)", node)
        assert len(args) == 1  # clang checked the macro's arity
        cond = u.cond(args[0], env)
        one = Const(1, DType.INT, loc)

        def pairs(c: Cond) -> list[tuple[Expr, Expr]]:
            match c:
                case Logical("&&", a, b):
                    return pairs(a) + pairs(b)
                case Compare(op, a, b) if not (a.dtype.is_float or b.dtype.is_float) and op != "!=":
                    if op == "<=":
                        return [(a, b)]
                    if op == ">=":
                        return [(b, a)]
                    if op == "<":
                        return [(Binary("+", a, one, DType.INT, loc), b)]
                    if op == ">":
                        return [(Binary("+", b, one, DType.INT, loc), a)]
                    return [(a, b), (b, a)]  # ==
            u.fail(f"{text}: only comparisons (<, <=, >, >=, ==) of integer expressions joined by && are "
                   "supported as preconditions", node)

        for left, right in pairs(cond):
            self.step_requires.append((left, right, f"{text} at line {loc.line if loc else '?'} holds", loc))
        return []

    def comma_for(self, node: c_ast.For) -> c_ast.Compound:
        """``for (A, B; C; D, E) S`` (or ``for (int i = 0, j = 0; ...)``) as the block C's
        loop means (C11 §6.8.5.3p1, §6.5.17): ``{ A; B; while (C) { S; D; E; } }`` — the
        comma operator evaluates its operands in order, and the declarations of the clause
        are scoped to the loop as to a block. The induction analysis then finds the counter
        (:meth:`counted_loop`). When exactly one operand of the step assigns a variable the
        condition reads and no other operand mentions it (nor it the others'), it stays the
        loop's step, after the others: those operands commute. A ``continue`` of the loop
        (which would skip the step) is refused."""
        items: list[c_ast.Node] = []
        init = node.init
        if isinstance(init, c_ast.ExprList):
            items += init.exprs
        elif isinstance(init, c_ast.DeclList):
            items += init.decls
        elif init is not None:
            items.append(init)
        body, step = node.stmt, node.next
        if isinstance(step, c_ast.ExprList):
            if _continues(body):
                self.unit.fail("'continue' in a for loop whose step has several operands is not supported", node)
            exprs = list(step.exprs)
            tested = set(identifiers(node.cond)) if node.cond is not None else set()
            steppers = [e for e in exprs if _assigned_name(e) in tested]
            step = None
            if len(steppers) == 1:
                counter = _assigned_name(steppers[0])
                others = [e for e in exprs if e is not steppers[0]]
                stepped = set(identifiers(steppers[0]))
                if all(counter not in set(identifiers(e)) for e in others) and not any(
                        _assigned_name(e) in stepped for e in others):
                    step, exprs = steppers[0], others
            body = c_ast.Compound([body, *exprs], body.coord)
            if step is None:
                items.append(c_ast.While(node.cond, body, node.coord))
                return c_ast.Compound(items, node.coord)
        items.append(c_ast.For(None, node.cond, step, body, node.coord))
        return c_ast.Compound(items, node.coord)

    def inlined_call(self, node: c_ast.FuncCall, callee: str, env: Env) -> c_ast.Compound:
        """A call statement ``h(a1, ..., an);`` of a ``void`` helper ``h`` of the file, as
        the block C's call means (C11 §6.5.2.2p4, §6.9.1p10): each parameter a local
        initialised with its argument (converted as by assignment, p7) — a pointer
        parameter a local pointer into the argument's array —, then ``h``'s body, every
        name ``h`` declares renamed to a fresh one. The block is lowered like the kernel's
        own statements (loops included), so the helper may write through its pointer
        parameters. A name the helper reads from file scope must not be hidden by a name
        of the kernel in scope at the call."""
        u = self.unit
        if callee in self.inlining_stack:
            u.fail(f"recursive call to '{callee}' is not supported", node)
        fdef = u.funcdefs[callee]
        valued = u.return_dtype(fdef) is not None
        params = u.params_of(fdef)
        args = list(node.args.exprs) if node.args is not None else []
        if len(args) != len(params):
            u.fail(f"call to '{callee}' with {len(args)} arguments; it takes {len(params)}", node)
        declared = {d.name for d in _declarations(fdef.body)} | {d.name for d, _ in params}
        for name in declared:
            if name in u.funcdefs or name in u.prototypes or name in u.file_consts or name in u.enum_constants:
                u.fail(f"helper '{callee}' declares '{name}', also a file-scope name, which is not supported", fdef)
        free = set(identifiers(fdef.body)) - declared
        for name in sorted(free):
            if env.lookup(name) is not None:
                u.fail(f"helper '{callee}' reads the file-scope '{name}', which '{name}' of '{self.name}' "
                       "hides at the call: not supported", node)
        self.taken |= set(identifiers(fdef))
        rename = {name: self.fresh(f"{callee}__{name}") for name in sorted(declared)}
        changed = _changed_names(fdef.body)
        items: list[c_ast.Node] = []
        substitute: dict[str, c_ast.Node] = {}
        through: dict[str, str] = {}  # a kernel scalar passed as '&v' -> the helper's parameter
        for (decl, ty), arg in zip(params, args, strict=True):
            if isinstance(ty, StructType | VectorType | RowsType):
                u.fail(f"helper '{callee}' called as a statement has parameter '{decl.name}' of a "
                       "type that is not supported (only scalars and pointers)", decl)
            target = _address_of_scalar(arg, env)
            if isinstance(ty, PointerType) and target is not None:
                # an out-parameter: the helper reads and writes the kernel's scalar through it
                binding = env.lookup(target)
                assert isinstance(binding, Scalar)
                others = [a for a in args if a is not arg and target in set(identifiers(a))]
                if decl.name in changed or binding.dtype != ty.elem or others:
                    why = ("the helper changes the pointer" if decl.name in changed else
                           f"'{target}' is not of the pointed-to type" if binding.dtype != ty.elem else
                           f"another argument reads '{target}'")
                    u.fail(f"passing '&{target}' to '{callee}' is not supported ({why})", arg)
                substitute[decl.name] = arg
                through[target] = decl.name
                continue
            if decl.name not in changed and _invariant(arg, pointer=isinstance(ty, PointerType)):
                # the parameter keeps the argument's value: the helper cannot change what the
                # argument reads (scalars and pointers of the kernel, constants)
                if isinstance(ty, PointerType):
                    substitute[decl.name] = arg
                else:
                    typ = copy.deepcopy(decl.type)
                    substitute[decl.name] = c_ast.Cast(
                        c_ast.Typename(None, [], None, _anonymous(typ)), arg, coord=arg.coord)
                continue
            local = copy.deepcopy(decl)
            local.storage, local.funcspec = [], []
            t = u.resolve_typedefs(local.type)
            if isinstance(t, c_ast.ArrayDecl):  # T X[] is T *X (C11 §6.7.6.3p7)
                local.type = c_ast.PtrDecl(list(t.dim_quals or []), t.type, coord=t.coord)
            local.init = arg
            items.append(local)
        body = copy.deepcopy(list(fdef.body.block_items or []))
        while body and isinstance(body[-1], c_ast.EmptyStatement):
            body.pop()
        if valued:
            # the value is discarded: a 'return E;' that ends its path through the body only
            # ends the call (E computed for nothing: it must have no side effect)
            body = _without_final_returns(body)
            if any(isinstance(n, c_ast.Return) for n in _walk(c_ast.Compound(body))):
                u.fail(f"call to '{callee}' as a statement is not supported (its value is discarded, and a "
                       "'return' of it does not end a path through its body)", node)
        if body and isinstance(body[-1], c_ast.Return) and body[-1].expr is None:
            body.pop()
        if not valued:
            body = _early_returns_as_guards(body)  # 'if (C) return; R' as 'if (C) {} else { R }'
        locals_ = len(items)
        items.extend(body)
        for item in items[:locals_]:
            _rename_decl(item, rename)  # not its initialiser: the argument, in the caller's names
        renamed = [_rename(item, rename, substitute) for item in items[locals_:]]
        if through:
            renamed = [_dereferenced(item) for item in renamed]
        return c_ast.Compound([*items[:locals_], *renamed], coord=node.coord)

    def with_effects(self, node: c_ast.Node, env: Env) -> list[Stmt]:
        """A simple statement with its pointer increments (see :class:`Effects`)."""
        return self.effects_around(lambda: self.simple_stmt(node, env), env)

    def effects_around(self, lower: Callable[[], list[Stmt]], env: Env) -> list[Stmt]:
        """``lower()`` preceded and followed by the pointer increments it records."""
        outer, env.effects = env.effects, Effects()
        fx = env.effects
        try:
            body = lower()
        finally:
            env.effects = outer
        return [*fx.pre, *body, *fx.post]

    # ----------------------------------------------------------- if-conversion

    def if_stmt(self, node: c_ast.If, env: Env) -> list[Stmt]:
        """If-conversion of ``if (c) S1 else S2`` (see the module docstring).

        The condition is evaluated once, into a fresh INT local ``__ifK`` (``c ? 1 : 0``),
        before the branches; then-statements are guarded by ``__ifK != 0`` and
        else-statements by ``__ifK == 0``, each conjoined with the enclosing guard.
        """
        u = self.unit
        loc, cloc = u.loc(node), u.loc(node.cond)
        known = u.null_truth(node.cond, env)
        if known is not None:  # a null test of an array parameter: the branch it takes
            taken = node.iftrue if known else node.iffalse
            return [] if taken is None else self.stmt(taken, env)

        def head(flag: str) -> list[Stmt]:
            return self.effects_around(lambda: [self.flag_assignment(flag, u.cond(node.cond, env), loc, cloc)], env)

        iffalse = node.iffalse
        return self.convert_if(
            env, loc, Const(0, DType.INT, loc), head, lambda: self.stmt(node.iftrue, env),
            None if iffalse is None else lambda: self.stmt(iffalse, env),
        )

    def simple_stmt(self, node: c_ast.Node, env: Env) -> list[Stmt]:
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
                    value = None if init is None else u.into_scalar(u.expr(init, env), dtype, u.c_width(node.type), init)
                    self.declare(name, dtype, node, env)
                    if value is not None:
                        out.append(Assign(name, value, loc))
                        env.assigned.add(name)
                return out
            case c_ast.Assignment(op="=", rvalue=c_ast.Assignment(op="=") as rhs) if _plain_lvalue(rhs.lvalue):
                # a = b = E: b = E, then a = b (the value of an assignment is its left operand's
                # after the assignment, C11 §6.5.16p3); a must not name the object b updates
                # (unsequenced with the update, C11 §6.5p2)
                target = _lvalue_base(rhs.lvalue)
                if target in set(identifiers(node.lvalue)):
                    u.fail(f"'{render(node.lvalue)}' reads '{target}', which the same expression assigns "
                           "(unsequenced, C11 §6.5p2)", node)
                then = c_ast.Assignment("=", node.lvalue, rhs.lvalue, coord=node.coord)
                return [*self.simple_stmt(rhs, env), *self.simple_stmt(then, env)]
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
                u.fail(f"expression statement '{render(node)}' has no effect", node)
            case _:
                u.fail(f"{describe(node)} is not supported", node)

    def update(self, node: c_ast.Node, env: Env) -> Stmt:
        u = self.unit
        whole = node.lvalue if isinstance(node, c_ast.Assignment) else node.expr
        if isinstance(whole, c_ast.ID):
            b = env.lookup(whole.name)
            if isinstance(b, Pointer):
                return self.pointer_update(node, b, env)
        lvalue = u.update_target(node, env)
        if (
            isinstance(lvalue, c_ast.ArrayRef)
            and isinstance(lvalue.name, c_ast.StructRef)
            and u.struct_field(lvalue.name, env).cols is not None
        ):
            u.fail(f"assignment to row pointer '{render(lvalue)}' is not supported", node)
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
        if env.effects is not None and target in env.effects.modified:
            u.fail(f"unsequenced modification of '{target}' (C11 §6.5p2)", node)
        env.assigned.add(target)
        return Assign(target, value, u.loc(node))

    # ----------------------------------------------------------- pointers

    def pointer_decl(self, node: c_ast.Decl, env: Env) -> list[Stmt]:
        """``T *p;`` / ``T *p = P;``: an INT offset local ``p`` (see the module docstring)."""
        u = self.unit
        name = node.name
        for s in node.storage:
            if s != "register":  # no effect on the value (C11 §6.7.1p6)
                u.fail(f"'{s}' local variables are not supported", node)
        ty = u.resolve_typedefs(node.type)
        assert isinstance(ty, c_ast.PtrDecl)
        u.check_quals(ty.quals, node)
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
        self.declare(name, DType.INT, node, env, Pointer(name, elem, ctype, None, name))
        if value is None:
            return []
        self.set_base(name, value, node, env)
        env.assigned.add(name)
        return [Assign(name, value.offset, u.loc(node))]

    def pointer_rvalue(self, name: str, node: c_ast.Node, env: Env) -> PtrValue:
        if not self.unit.is_pointer(node, env):
            self.unit.fail(
                f"pointer '{name}' may only point into an array parameter (A, &A[E], A + E, "
                f"another pointer); '{render(node)}' is not supported",
                node,
            )
        return self.unit.pointer_value(node, env)

    def set_base(self, name: str, value: PtrValue, node: c_ast.Node, env: Env) -> None:
        """Fix (first assignment) or check the array parameter pointer ``name`` walks."""
        b = env.lookup(name)
        assert isinstance(b, Pointer)
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

    def pointer_update(self, node: c_ast.Node, b: Pointer, env: Env) -> Assign:
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
                value = offset_plus(old, delta, "+" if node.op == "+=" else "-", loc)
            else:
                u.fail(f"operator '{node.op}' on pointer '{b.name}' is not supported", node)
        fx = env.effects
        if fx is not None and b.offset in fx.modified:
            u.fail(f"unsequenced modification of '{b.name}'", node)
        env.assigned.add(b.offset)
        return Assign(b.offset, value, loc)


def _fields_named(node: c_ast.Node, name: str) -> set[str]:
    """The fields ``f`` of ``name.f`` / ``name->f`` anywhere in ``node``."""
    out: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, c_ast.StructRef) and isinstance(n.name, c_ast.ID) and n.name.name == name:
            out.add(n.field.name)
        stack.extend(child for _, child in n.children())
    return out


def _declarations(node: c_ast.Node) -> list[c_ast.Decl]:
    """Every named object declaration in ``node`` (locals, loop counters)."""
    out: list[c_ast.Decl] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, c_ast.Decl) and n.name is not None:
            out.append(n)
        stack.extend(child for _, child in n.children())
    return out


def _rename_decl(node: c_ast.Decl, names: dict[str, str]) -> None:
    """Rename declaration ``node`` (its name and its declarator's) if ``names`` has it."""
    if node.name in names:
        node.name = names[node.name]
        t = node.type
        while not isinstance(t, c_ast.TypeDecl) and hasattr(t, "type"):
            t = t.type
        if isinstance(t, c_ast.TypeDecl) and t.declname is not None:
            t.declname = node.name


def _rename(node: c_ast.Node, names: dict[str, str], substitute: dict[str, c_ast.Node]) -> c_ast.Node:
    """``node`` with the uses of ``substitute``'s names replaced by (copies of) their
    expressions and the declarations and other uses of ``names`` renamed, in place (not
    struct field names)."""
    match node:
        case c_ast.ID(name=name) if name in substitute:
            return copy.deepcopy(substitute[name])
        case c_ast.ID(name=name) if name in names:
            node.name = names[name]
            return node
        case c_ast.Decl():
            _rename_decl(node, names)
        case c_ast.StructRef():
            node.name = _rename(node.name, names, substitute)
            return node
    for attr in node.__slots__:
        value = getattr(node, attr, None)
        if isinstance(value, c_ast.Node):
            setattr(node, attr, _rename(value, names, substitute))
        elif isinstance(value, list):
            setattr(node, attr, [_rename(v, names, substitute) if isinstance(v, c_ast.Node) else v for v in value])
    return node


def _address_of_scalar(arg: c_ast.Node, env: Env) -> str | None:
    """``v`` when ``arg`` is ``&v`` of a scalar variable ``v`` of the kernel."""
    match arg:
        case c_ast.UnaryOp(op="&", expr=c_ast.ID(name=name)) if isinstance(env.lookup(name), Scalar):
            return name
    return None


def _dereferenced(node: c_ast.Node) -> c_ast.Node:
    """``node`` with ``*&v`` and ``(&v)[0]`` (a helper's out-parameter bound to a kernel
    scalar ``v``) written ``v``, in place; any other use of ``&v`` stays (and is refused by
    the lowering: the address of a scalar)."""
    match node:
        case c_ast.UnaryOp(op="*", expr=c_ast.UnaryOp(op="&", expr=c_ast.ID() as v)):
            return v
        case c_ast.ArrayRef(name=c_ast.UnaryOp(op="&", expr=c_ast.ID() as v), subscript=c_ast.Constant(value="0")):
            return v
    for attr in node.__slots__:
        value = getattr(node, attr, None)
        if isinstance(value, c_ast.Node):
            setattr(node, attr, _dereferenced(value))
        elif isinstance(value, list):
            setattr(node, attr, [_dereferenced(v) if isinstance(v, c_ast.Node) else v for v in value])
    return node


def _walk(node: c_ast.Node) -> list[c_ast.Node]:
    out = [node]
    for _, child in node.children():
        out.extend(_walk(child))
    return out


def _fused_if(node: c_ast.If) -> c_ast.For | None:
    """``if (c) for (H) S1 else for (H) S2`` as ``for (H) { if (c) S1 else S2 }`` (loop
    unswitching undone, Allen & Kennedy 2001, §7.2.2), or ``None``: both branches one ``for``
    of the same header ``H``, and ``c`` free of side effects, of array, pointer and member
    reads, and of every name either loop declares or assigns (its header included). Then
    ``c`` has one value on every iteration, each iteration of the fused loop runs the body of
    the branch C takes, and the counter ends where that branch's loop leaves it: the two
    statements run the same steps. (Without an ``else`` the fused loop would run its header
    where C does not: left alone.)"""
    def single_for(b: c_ast.Node | None) -> c_ast.For | None:
        while isinstance(b, c_ast.Compound) and len(b.block_items or []) == 1:
            b = (b.block_items or [None])[0]
        return b if isinstance(b, c_ast.For) else None

    first, second = single_for(node.iftrue), single_for(node.iffalse)
    if first is None or second is None or not _pure(node.cond):
        return None
    for a, b in ((first.init, second.init), (first.cond, second.cond), (first.next, second.next)):
        if (a is None) != (b is None) or (a is not None and b is not None and render(a) != render(b)):
            return None
    reads = _walk(node.cond)
    if any(isinstance(n, c_ast.ArrayRef | c_ast.StructRef) or (isinstance(n, c_ast.UnaryOp) and n.op == "*")
           for n in reads):
        return None
    names = {n.name for n in reads if isinstance(n, c_ast.ID)}
    touched: set[str] = set()
    for n in _walk(first) + _walk(second):
        if isinstance(n, c_ast.Decl) and n.name:
            touched.add(n.name)
        elif isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID):
            touched.add(n.lvalue.name)
        elif isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "&") and isinstance(n.expr, c_ast.ID):
            touched.add(n.expr.name)
    if names & touched:
        return None
    body = c_ast.Compound([c_ast.If(node.cond, first.stmt, second.stmt, node.coord)], first.coord)
    return c_ast.For(first.init, first.cond, first.next, body, first.coord)


def _pure(e: c_ast.Node | None) -> bool:
    """Whether evaluating ``e`` has no side effect (no assignment, ``++``/``--`` or call)."""
    return e is None or not any(
        isinstance(n, c_ast.Assignment | c_ast.FuncCall)
        or (isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--"))
        for n in _walk(e)
    )


def _without_final_returns(items: list[c_ast.Node]) -> list[c_ast.Node]:
    """``items`` (a body whose value is discarded) without the side-effect-free ``return
    E;`` statements that end a path through it: the last statement, or the last of each
    branch of a final ``if``/``else`` (recursively)."""
    items = list(items)
    while items and isinstance(items[-1], c_ast.EmptyStatement):
        items.pop()
    if not items:
        return items
    last = items[-1]
    if isinstance(last, c_ast.Return) and _pure(last.expr):
        return items[:-1]
    if isinstance(last, c_ast.Compound):
        return [*items[:-1], c_ast.Compound(_without_final_returns(list(last.block_items or [])), coord=last.coord)]
    if isinstance(last, c_ast.If):
        def branch(b: c_ast.Node | None) -> c_ast.Node | None:
            if b is None:
                return None
            kept = _without_final_returns(list(b.block_items or []) if isinstance(b, c_ast.Compound) else [b])
            return c_ast.Compound(kept, coord=b.coord)

        return [*items[:-1], c_ast.If(last.cond, branch(last.iftrue), branch(last.iffalse), coord=last.coord)]
    return items


def _early_returns_as_guards(items: list[c_ast.Node]) -> list[c_ast.Node]:
    """``items`` (a ``void`` helper's body) with each top-level ``if (C) { S; return; } [else
    T] R`` — the ``return;`` ending the branch, no other ``return`` in ``S`` or ``T`` — as
    ``if (C) { S } else { T R }``: what C runs, since the ``return`` skips exactly the rest
    ``R`` of the body (C11 §6.8.6.4). ``R`` is rewritten first."""
    items = list(items)
    for k, it in enumerate(items):
        if not isinstance(it, c_ast.If):
            continue
        then = list(it.iftrue.block_items or []) if isinstance(it.iftrue, c_ast.Compound) else [it.iftrue]
        while then and isinstance(then[-1], c_ast.EmptyStatement):
            then.pop()
        if not (then and isinstance(then[-1], c_ast.Return) and then[-1].expr is None):
            continue
        others = [*then[:-1], *([it.iffalse] if it.iffalse is not None else [])]
        if any(isinstance(n, c_ast.Return) for o in others for n in _walk(o)):
            continue
        rest = _early_returns_as_guards(items[k + 1:])
        otherwise = [*([it.iffalse] if it.iffalse is not None else []), *rest]
        guarded = c_ast.If(it.cond, c_ast.Compound(then[:-1], coord=it.iftrue.coord),
                           c_ast.Compound(otherwise, coord=it.coord) if otherwise else None, coord=it.coord)
        return [*items[:k], guarded]
    return items


def _changed_names(node: c_ast.Node) -> set[str]:
    """Names ``node`` assigns, increments or takes the address of."""
    out = set(updated_names(node))
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, c_ast.UnaryOp) and n.op == "&" and isinstance(n.expr, c_ast.ID):
            out.add(n.expr.name)
        stack.extend(child for _, child in n.children())
    return out


def _invariant(arg: c_ast.Node, pointer: bool) -> bool:
    """Whether argument ``arg`` keeps its value while a helper's body runs (the helper
    writes arrays, never the kernel's scalars, pointers or struct fields): a scalar
    argument without side effects that reads no array element; a pointer argument ``p``,
    ``m->a``, ``p + E``, ``p - E`` or ``&p[E]`` with such an ``E``."""
    if pointer:
        match arg:
            case c_ast.ID() | c_ast.StructRef():
                return True
            case c_ast.BinaryOp(op="+" | "-", left=left, right=right):
                return (_invariant(left, True) and _invariant(right, False)) or (
                    arg.op == "+" and _invariant(left, False) and _invariant(right, True))
            case c_ast.UnaryOp(op="&", expr=c_ast.ArrayRef(name=base, subscript=index)):
                return _invariant(base, True) and _invariant(index, False)
        return False
    stack = [arg]
    while stack:
        n = stack.pop()
        match n:
            case c_ast.Assignment() | c_ast.FuncCall() | c_ast.ArrayRef():
                return False
            case c_ast.UnaryOp(op="++" | "--" | "p++" | "p--" | "*" | "&"):
                return False
        stack.extend(child for _, child in n.children())
    return True


def _anonymous(ty: c_ast.Node) -> c_ast.Node:
    """Type node ``ty`` without its declarator name (for a cast)."""
    t = ty
    while not isinstance(t, c_ast.TypeDecl) and hasattr(t, "type"):
        t = t.type
    if isinstance(t, c_ast.TypeDecl):
        t.declname = None
    return ty


def _assigned_name(e: c_ast.Node) -> str | None:
    """The variable an expression statement ``v++`` / ``--v`` / ``v op= E`` / ``v = E`` assigns."""
    match e:
        case c_ast.UnaryOp(op="++" | "--" | "p++" | "p--", expr=c_ast.ID(name=name)):
            return name
        case c_ast.Assignment(lvalue=c_ast.ID(name=name)):
            return name
    return None


def _continues(body: c_ast.Node) -> bool:
    """Whether ``body`` holds a ``continue`` of the loop around it (not of a nested loop)."""
    if isinstance(body, c_ast.Continue):
        return True
    if isinstance(body, c_ast.For | c_ast.While | c_ast.DoWhile):
        return False
    return any(_continues(child) for _, child in body.children())


#: The marker call :func:`lower_paths` puts in place of an ``if`` it splits on:
#: ``__tenspiler_path(C, 1)`` on the then-path, ``__tenspiler_path(C, 0)`` on the else-path.
PATH_MARKER = "__tenspiler_path"


class _SplitAt(Exception):
    """Raised by :meth:`Kernel.stmt` at an ``if`` the function splits on (:meth:`Kernel.splits_here`)."""

    def __init__(self, node: c_ast.If) -> None:
        super().__init__("split")
        self.node = node


def lower_paths(unit: Unit, fdef: c_ast.FuncDef) -> Function:
    """The chosen function as loop IR. An ``if`` at its top level whose branches hold loops
    and whose condition reads only scalar parameters and locals computed from them before it
    (:meth:`Kernel.splits_here`) splits the function into two paths
    (:class:`~tenspiler.loops.ir.PathSplit`): the function with the ``if`` replaced by its
    then-branch, and with it replaced by its else-branch (or nothing), each lowered on its own
    with its path condition as a precondition (:meth:`Kernel.path_condition`); a later such
    ``if`` splits each path again."""
    try:
        return Kernel(unit, fdef).lower()
    except _SplitAt as at:
        node = at.node
    items = list(fdef.body.block_items or [])
    k = next(i for i, it in enumerate(items) if it is node)

    def path(taken: bool) -> Function:
        sense = c_ast.Constant("int", "1" if taken else "0", node.coord)
        marker = c_ast.FuncCall(c_ast.ID(PATH_MARKER, node.coord), c_ast.ExprList([node.cond, sense], node.coord),
                                node.coord)
        branch = node.iftrue if taken else node.iffalse
        body = c_ast.Compound([*items[:k], marker, *([branch] if branch is not None else []), *items[k + 1:]],
                              fdef.body.coord)
        variant = c_ast.FuncDef(fdef.decl, fdef.param_decls, body, fdef.coord)
        return lower_paths(unit, variant)

    then, else_ = path(True), path(False)
    outer = sum(1 for it in items[:k] if isinstance(it, c_ast.FuncCall) and isinstance(it.name, c_ast.ID)
                and it.name.name == PATH_MARKER)  # the conditions of the splits around this one
    cond = _path_cond(then, outer)
    locals_ = dict(then.locals)
    for name, dtype in else_.locals:
        locals_.setdefault(name, dtype)
    return replace(then, body=(), locals=tuple(locals_.items()), requires=(),
                   split=PathSplit(cond, then, else_, unit.loc(node)))


def _path_cond(fn: Function, outer: int) -> Cond:
    """The condition of the split :func:`lower_paths` just made: the path condition after the
    ``outer`` ones of the splits around it, in the requirements of a then-path's function (in
    lowering order: the conditions in the order of their ``if`` statements)."""
    leaf = fn
    while leaf.split is not None:
        leaf = leaf.split.then
    conds = [right.cond for _, right, what in leaf.requires
             if what.startswith("the path condition") and isinstance(right, Select)]
    return conds[outer]


def _substitute(e: Expr, values: dict[str, Expr]) -> Expr:
    """``e`` with every read of a variable of ``values`` replaced by its value there."""
    return map_expr(e, lambda x: values[x.name] if isinstance(x, Var) and x.name in values else x)


def cond_of(flag: Expr) -> Cond:
    """The condition of a ``Select(c, 1, 0)`` flag."""
    assert isinstance(flag, Select)
    return flag.cond
