"""Counted ``for`` loops of the C frontend: ``for (i = E0; i < E1; i++)`` and its
variants (inclusive and mirrored conditions, ``i + e < E``), descending loops
(``for (i = hi; i >= lo; i--)``) and strided ones (``i += c``, lowered to a counter over the
iterations), as loop-IR :class:`~tenspiler.loops.ir.For` (shared logic:
:mod:`tenspiler.frontend.counted`)."""

from __future__ import annotations

from pycparser import c_ast

from tenspiler.errors import BadInput
from tenspiler.frontend.c_bindings import Binding, Env, int_literal, render
from tenspiler.frontend.c_inline import Unit
from tenspiler.frontend.common import Scalar, names_read, names_written, vars_read, writes
from tenspiler.frontend.counted import CountedLoops, plus_one
from tenspiler.loops.ir import Assign, Binary, Const, DType, Expr, For, Stmt, Var

__all__ = ["ForLoops"]


class ForLoops(CountedLoops):
    """The ``for`` loops of :class:`tenspiler.frontend.c_stmts.Kernel`."""

    unit: Unit
    locals: dict[str, DType]

    def stmt(self, node: c_ast.Node, env: Env) -> list[Stmt]:
        """Lower a statement (:meth:`tenspiler.frontend.c_stmts.Kernel.stmt`)."""
        raise NotImplementedError

    def declare(self, name: str, dtype: DType, node: c_ast.Node, env: Env, binding: Binding | None = None) -> None:
        """Declare a local (:meth:`tenspiler.frontend.c_stmts.Kernel.declare`)."""
        raise NotImplementedError

    # ----------------------------------------------------------- for loops

    def for_loop(self, node: c_ast.For, env: Env) -> For:
        u = self.unit
        env.scopes.append({})
        try:
            var, first = self.for_init(node, env)
            step = self.for_step(node, var, env)
            descending = step == -1
            prologue: tuple[Stmt, ...] = ()
            if descending:  # for (i = hi; i >= lo; i--): the iterations lo..hi in reverse order
                start = self.for_cond_down(node, var, env)
                stop = plus_one(first, u.loc(node), fold_difference=True)
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
                first_reads = names_read(first)
            else:
                start, stop = first, self.for_cond(node, var, env)
            with self.loop_body((var, start, stop), env):
                body = prologue + tuple(self.stmt(node.stmt, env))
        finally:
            env.scopes.pop()
        for name, wloc in writes(body[len(prologue):]):
            if name == var:
                raise BadInput(f"loop counter '{var}' is assigned in the loop body", wloc)
        written = names_written(body)
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

    def for_init(self, node: c_ast.For, env: Env) -> tuple[str, Expr]:
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
            start = u.integer(value, env, "loop start must be an integer expression")
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
            if not isinstance(b, Scalar) or name not in self.locals:
                u.fail(f"loop counter '{name}' must be a local int variable", init)
            if b.dtype != DType.INT:
                u.fail(f"loop counter '{name}' must have type int", init)
            start = u.integer(init.rvalue, env, "loop start must be an integer expression")
        else:
            u.fail(f"for loop initialiser '{render(init)}' is not supported", init)
        env.assigned.add(name)
        return name, start

    def for_cond(self, node: c_ast.For, var: str, env: Env) -> Expr:
        """The exclusive upper bound of an ascending loop: ``E`` of ``i < E`` / ``E > i``,
        ``E + 1`` of ``i <= E`` / ``E >= i``."""
        return self._counter_bound(node, var, env, ("<", "<="), f"only {var} < E, {var} <= E, E > {var}, E >= {var}", "")

    def for_cond_down(self, node: c_ast.For, var: str, env: Env) -> Expr:
        """The lowest counter value of a descending loop: ``lo`` of ``i >= lo`` / ``lo <= i``,
        ``lo + 1`` of ``i > lo`` / ``lo < i``."""
        return self._counter_bound(node, var, env, (">", ">="), f"only {var} >= E, {var} > E, E <= {var}, E < {var}",
                                   " of a descending loop")

    def _counter_bound(self, node: c_ast.For, var: str, env: Env, ops: tuple[str, str], forms: str,
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
            u.fail(f"loop condition '{render(cond)}'{what} is not supported ({forms})", cond)
        if offset is not None:
            # `i + e <= E` is `i <= E - e` on the integers: the loop IR's ints are exact, C's
            # `i + e` is undefined where it overflows, and the type gate (c_types) has refused
            # a comparison or sum computed in an unsigned type
            sign, e_node = offset
            bound_node = c_ast.BinaryOp("-" if sign == "+" else "+", bound_node, e_node, coord=cond.coord)
        b = u.integer(bound_node, env, "loop bound must be an integer expression")
        add_one = (op == ops[1]) if ops[0] == "<" else (op == ops[0])
        return plus_one(b, u.loc(cond), fold_difference=True) if add_one else b

    def for_step(self, node: c_ast.For, var: str, env: Env | None = None) -> int:
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
            return isinstance(n, c_ast.Constant) and n.type == "int" and int_literal(n.value) == 1

        def constant(n: c_ast.Node) -> int | None:
            if isinstance(n, c_ast.Constant) and n.type == "int":
                v = int_literal(n.value)
                return v if v >= 1 else None
            if (
                isinstance(n, c_ast.ID) and env is not None and env.lookup(n.name) is None
                and n.name in u.enum_constants
            ):  # an enumeration constant: an int constant
                v = u.enum_constants[n.name]
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
            f"loop step '{render(step)}' is not supported "
            f"(only {var}++, {var} += c and {var} = {var} + c for a constant c >= 1, and {var}--, --{var}, "
            f"{var} -= 1, {var} = {var} - 1)",
            step,
        )
