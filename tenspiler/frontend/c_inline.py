"""Calls in C expressions: helper functions of the same file inlined by substitution (their
body only declares and assigns scalars and ends with ``return E;``; scalar parameters
only) and the ``<math.h>`` functions of one argument (:data:`~tenspiler.loops.ir.MATH_FUNCTIONS`)."""

from __future__ import annotations

from pycparser import c_ast

from tenspiler.frontend.c_bindings import (
    Binding,
    Env,
    FlatStruct,
    StructType,
    Value,
    describe,
    is_update,
    render,
)
from tenspiler.frontend.c_exprs import Expressions
from tenspiler.frontend.common import convert
from tenspiler.frontend.cxx import VectorType
from tenspiler.loops.ir import MATH_FUNCTIONS, Call, DType, Expr, PointerType

__all__ = ["Unit"]


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
        scope: dict[str, Binding] = {}
        for (decl, ty), arg in zip(params, args, strict=True):
            if isinstance(ty, StructType):
                self.fail(
                    f"helper '{name}' has struct parameter '{decl.name}'; "
                    "only scalar parameters are supported",
                    decl,
                )
            if isinstance(arg, c_ast.ID) and isinstance(env.lookup(arg.name), FlatStruct):
                self.fail(f"passing struct '{arg.name}' to '{name}' is not supported", arg)
            if isinstance(ty, PointerType | VectorType):
                self.fail(
                    f"helper '{name}' has array parameter '{decl.name}'; "
                    "only scalar parameters are supported",
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
        items = list(fdef.body.block_items or [])
        while items and isinstance(items[-1], c_ast.EmptyStatement):
            items.pop()
        if not items or not isinstance(items[-1], c_ast.Return) or items[-1].expr is None:
            self.fail(f"helper function '{name}' must end with 'return E;'", fdef)
        for item in items[:-1]:
            self._helper_stmt(item, inner, name)
        return convert(self.expr(items[-1].expr, inner), ret)

    def math_call(self, node: c_ast.FuncCall, name: str, env: Env) -> Expr:
        """``exp``/``expf``, ``sqrt``/``sqrtf``, ``log``/``logf``, ``tanh``/``tanhf``,
        ``fabs``/``fabsf`` of one argument → :class:`Call` (the ``f`` variants in float,
        the others in double, as in ``<math.h>``)."""
        args = node.args.exprs if node.args is not None else []
        if len(args) != 1:
            self.fail(f"call to '{name}' with {len(args)} arguments; it takes 1", node)
        if self.is_pointer(args[0], env):
            self.fail(f"passing pointer '{render(args[0])}' to '{name}' is not supported", args[0])
        dtype = DType.FLOAT if name.endswith("f") and name != "exp" else DType.DOUBLE
        arg = convert(self.expr(args[0], env), dtype)
        return Call(MATH_FUNCTIONS[name], arg, dtype, self.loc(node))

    def _helper_stmt(self, node: c_ast.Node, env: Env, helper: str) -> None:
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
                env.scopes[-1][name] = Value(dtype, value)
            return
        if isinstance(node, c_ast.Assignment | c_ast.UnaryOp) and is_update(node):
            target, value = self.scalar_update(node, env)
            env.rebind(target, Value(value.dtype, value))
            return
        self.fail(
            f"{describe(node)} in helper function '{helper}' is not supported; a helper may "
            "only declare and assign scalars and end with 'return E;'",
            node,
        )
