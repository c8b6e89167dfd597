"""Calls in C expressions: helper functions of the same file inlined by substitution (their
body only declares and assigns scalars, branches with ``if``/``else`` — lowered path by path
to selects — and returns ``E`` on every path; scalar parameters, and pointer parameters bound
to their arguments' pointer values, read only) and the ``<math.h>``
functions (:data:`~tenspiler.loops.ir.MATH_FUNCTIONS` of one argument; ``fmin``/``fmax`` as
selects and ``pow`` with a small integer exponent as a product (with any other exponent the
``pow`` operator):
:meth:`Unit.math_call`)."""

from __future__ import annotations

import math

from pycparser import c_ast

from tenspiler.frontend.c_bindings import (
    Binding,
    Env,
    FlatStruct,
    RowsType,
    StructType,
    Value,
    describe,
    is_update,
    render,
    updated_names,
)
from tenspiler.frontend.c_exprs import Expressions
from tenspiler.frontend.c_switch import RefusedSwitch
from tenspiler.frontend.common import convert, fold_cond, fold_integer
from tenspiler.frontend.cxx import VectorType
from tenspiler.ir.semantics import py_cast
from tenspiler.loops.ir import (
    MATH_FUNCTIONS,
    Binary,
    Call,
    Cast,
    Compare,
    Const,
    DType,
    Expr,
    PointerType,
    Select,
)

__all__ = ["BINARY_MATH", "MAX_HELPER_PATHS", "MAX_POW", "Unit"]

#: ``<math.h>`` functions of two arguments, lowered to the loop IR's own operations
#: (:meth:`Unit.math_call`).
BINARY_MATH = frozenset({"fmin", "fminf", "fmax", "fmaxf", "pow", "powf"})
#: The most paths through the ``if`` statements of a helper inlined (:meth:`Unit._helper_body`).
MAX_HELPER_PATHS = 64
#: The largest integer exponent of ``pow`` lowered to a product.
MAX_POW = 8
#: GCC builtins that ``<math.h>`` macros expand to (glibc), with the macro for messages.
BUILTIN_SPECIAL = {
    "__builtin_inff": "INFINITY", "__builtin_inf": "INFINITY", "__builtin_huge_val": "HUGE_VAL",
    "__builtin_huge_valf": "HUGE_VALF", "__builtin_nanf": "NAN", "__builtin_nan": "NAN",
}


class Unit(Expressions):
    """One translation unit: its declarations and types
    (:class:`~tenspiler.frontend.c_decls.Declarations`), reads and element accesses
    (:class:`~tenspiler.frontend.c_access.Access`), expressions
    (:class:`~tenspiler.frontend.c_exprs.Expressions`) and calls (here); the kernel's
    statements are lowered by :class:`tenspiler.frontend.c_stmts.Kernel`."""

    # ----------------------------------------------------------- helper inlining

    def call(self, node: c_ast.FuncCall, env: Env) -> Expr:
        """Inline a call to a helper function of this file (see :mod:`tenspiler.frontend.c`)."""
        if not isinstance(node.name, c_ast.ID):
            self.fail("call through an expression is not supported", node)
        name = node.name.name
        if name in BUILTIN_SPECIAL:
            what = "a NaN" if "nan" in name else "an infinity"
            self.fail(
                f"{BUILTIN_SPECIAL[name]} ({name}, {what}) is not supported: the proof's model of "
                "floating-point values is the real numbers, which have no infinity or NaN",
                node,
            )
        if env.lookup(name) is None and name not in self.funcdefs and (
            name in MATH_FUNCTIONS or name in BINARY_MATH
        ):
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
        scope: dict[str, Binding] = {}
        changed = set(updated_names(fdef.body))
        for (decl, ty), arg in zip(params, args, strict=True):
            if isinstance(ty, StructType):
                self.fail(
                    f"helper '{name}' has struct parameter '{decl.name}'; "
                    "only scalar parameters are supported",
                    decl,
                )
            if isinstance(arg, c_ast.ID) and isinstance(env.lookup(arg.name), FlatStruct):
                self.fail(f"passing struct '{arg.name}' to '{name}' is not supported", arg)
            if isinstance(ty, PointerType):
                # bound to the argument's pointer value (an array parameter of the caller, or a
                # pointer into one): the helper's reads through it are the caller's array's
                # elements, read when the call's expression is evaluated (a value helper
                # writes nothing: _helper_stmt assigns scalars only)
                if decl.name in changed:
                    self.fail(f"helper '{name}' changes its pointer parameter '{decl.name}'; not supported", decl)
                if not self.is_pointer(arg, env):
                    self.fail(f"argument '{render(arg)}' of pointer parameter '{decl.name}' of '{name}' "
                              "is not a pointer the frontend follows", arg)
                pv = self.pointer_value(arg, env)
                want = self.elem_ctype(decl.type)
                if pv.ctype != want:
                    self.fail(f"passing '{render(arg)}' (elements '{pv.ctype}') to parameter '{decl.name}' of "
                              f"'{name}' (elements '{want}') is not supported", arg)
                scope[decl.name] = pv
                continue
            if isinstance(ty, VectorType | RowsType):
                self.fail(
                    f"helper '{name}' has array parameter '{decl.name}' of a type that is not supported "
                    "(only scalars and pointers)",
                    decl,
                )
            if self.is_pointer(arg, env):
                self.fail(
                    f"passing pointer '{render(arg)}' to '{name}' is not supported "
                    "(pointers may not escape the kernel)",
                    arg,
                )
            scope[decl.name] = Value(ty.dtype, convert(self.expr(arg, env), ty.dtype))
        inner = Env([scope], inlining=(*env.inlining, name))
        paths = [0]
        return self._helper_body(list(fdef.body.block_items or []), inner, fdef, ret, paths)

    def _helper_body(
        self, items: list[c_ast.Node | None], env: Env, fdef: c_ast.FuncDef, ret: DType, paths: list[int],
    ) -> Expr:
        """The value a helper returns when it runs ``items`` (statements; ``None`` closes the
        innermost block) from ``env``. ``if``/``else`` (with or without ``return`` inside)
        is lowered path by path: ``if (C) S1 else S2; R`` returns ``C ? (S1; R) : (S2;
        R)`` — a :class:`Select`, which evaluates only the chosen operand, as C runs only
        one branch — and a condition that folds to a constant chooses its branch (at most
        :data:`MAX_HELPER_PATHS` paths). Every path must end in ``return E;``."""
        name = fdef.decl.name
        for i, item in enumerate(items):
            rest = items[i + 1:]
            match item:
                case None:
                    env.scopes.pop()
                case c_ast.Return(expr=e) if e is not None:
                    return convert(self.expr(e, env), ret)
                case c_ast.Compound(block_items=inner):
                    env.scopes.append({})
                    return self._helper_body([*(inner or []), None, *rest], env, fdef, ret, paths)
                case c_ast.If(cond=cond, iftrue=t, iffalse=f):
                    c = self.cond(cond, env)
                    known = fold_cond(c)

                    if known is not None:
                        return self._helper_branch(t if known else f, rest, env, fdef, ret, paths)
                    paths[0] += 1
                    if paths[0] >= MAX_HELPER_PATHS:
                        self.fail(f"helper function '{name}' has more than {MAX_HELPER_PATHS} paths "
                                  "through its if statements; not supported", item)
                    then = self._helper_branch(t, rest, env, fdef, ret, paths)
                    else_ = self._helper_branch(f, rest, env, fdef, ret, paths)
                    return Select(c, then, else_, ret, self.loc(item))
                case _:
                    self._helper_stmt(item, env, name)
        self.fail(f"helper function '{name}' must end with 'return E;' on every path", fdef)

    def _helper_branch(
        self, s: c_ast.Node | None, rest: list[c_ast.Node | None], env: Env, fdef: c_ast.FuncDef, ret: DType,
        paths: list[int],
    ) -> Expr:
        """The value a helper returns when it runs branch ``s`` (in a block of its own) and
        then ``rest``, from a copy of ``env``."""
        fork = Env([dict(scope) for scope in env.scopes], inlining=env.inlining)
        if s is None:
            return self._helper_body(rest, fork, fdef, ret, paths)
        fork.scopes.append({})
        return self._helper_body([s, None, *rest], fork, fdef, ret, paths)

    def math_call(self, node: c_ast.FuncCall, name: str, env: Env) -> Expr:
        """A ``<math.h>`` function (the ``f`` variants in float, the others in double, as in
        ``<math.h>``; the arguments converted to that type as by a prototype):

        * ``exp``, ``expm1``, ``sqrt``, ``log``, ``tanh``, ``cos``, ``sin``, ``fabs`` of one
          argument → :class:`Call` (uninterpreted in proofs except ``fabs``, ``round`` and ``floor``);
        * ``fmin(x, y)`` / ``fmax(x, y)`` → ``y < x ? y : x`` / ``x < y ? y : x``: C's value on
          every pair of non-NaN arguments (the model's reals; the sign of a zero aside, which
          C11 F.10.9.2-3 leaves open too);
        * ``pow(x, k)`` for an integer constant ``k`` in ``[0, MAX_POW]`` → ``x * ... * x`` (``1``
          for ``k = 0``): the real power (C11 F.10.4.4: ``pow(x, ±0)`` is 1 for any ``x``);
          any other exponent → :class:`Binary` ``pow`` (the C library's ``pow``, uninterpreted in
          proofs: ``semantics.py_pow``)."""
        args = node.args.exprs if node.args is not None else []
        arity = 2 if name in BINARY_MATH else 1
        if len(args) != arity:
            self.fail(f"call to '{name}' with {len(args)} arguments; it takes {arity}", node)
        for a in args:
            if self.is_pointer(a, env):
                self.fail(f"passing pointer '{render(a)}' to '{name}' is not supported", a)
        dtype = DType.FLOAT if name.endswith("f") and name != "exp" else DType.DOUBLE
        loc = self.loc(node)
        if name in BINARY_MATH:
            base = name.rstrip("f") if name != "pow" else "pow"
            x = convert(self.expr(args[0], env), dtype)
            if base == "pow":
                k = self.pow_exponent(args[1], env)
                if k is None:
                    # the C library's pow: uninterpreted in proofs (semantics.py_pow)
                    return Binary("pow", x, convert(self.expr(args[1], env), dtype), dtype, loc)
                out: Expr = Const(1.0, dtype, loc)
                for n in range(k):
                    out = x if n == 0 else Binary("*", out, x, dtype, loc)
                return out
            y = convert(self.expr(args[1], env), dtype)
            if base == "fmin":
                return Select(Compare("<", y, x, loc), y, x, dtype, loc)
            return Select(Compare("<", x, y, loc), y, x, dtype, loc)
        arg = convert(self.expr(args[0], env), dtype)
        return Call(MATH_FUNCTIONS[name], arg, dtype, loc)

    def pow_exponent(self, node: c_ast.Node, env: Env) -> int | None:
        """The exponent of ``pow``/``powf`` when it is an integer constant in ``[0,
        MAX_POW]`` (``2``, ``2.0``, ``3.f``, ``(float)2``), else ``None``."""
        e = self.expr(node, env)
        while isinstance(e, Cast) and isinstance(e.operand, Const):
            e = Const(py_cast(e.operand.value, e.dtype), e.dtype, e.loc)
        if not isinstance(e, Const):
            return None
        v = e.value
        if isinstance(v, float) and not (math.isfinite(v) and v == int(v)):
            return None
        return int(v) if 0 <= int(v) <= MAX_POW else None

    def _helper_stmt(self, node: c_ast.Node, env: Env, helper: str) -> None:
        if isinstance(node, c_ast.EmptyStatement):
            return
        if isinstance(node, RefusedSwitch):
            self.fail(node.reason, node.at)
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
                value = None if init is None else self.into_scalar(self.expr(init, env), dtype, self.c_width(node.type), init)
                value = value if value is None else fold_integer(value) or value
                env.scopes[-1][name] = Value(dtype, value)
            return
        if isinstance(node, c_ast.Assignment | c_ast.UnaryOp) and is_update(node):
            target, value = self.scalar_update(node, env)
            env.rebind(target, Value(value.dtype, value))
            return
        self.fail(
            f"{describe(node)} in helper function '{helper}' is not supported; a helper may "
            "only declare and assign scalars, branch with if/else and return a value ('return E;')",
            node,
        )
