"""Counted ``for`` loops of the C frontend: ``for (i = E0; i < E1; i++)`` and its
variants (inclusive and mirrored conditions, ``i + e < E``), descending loops
(``for (i = hi; i >= lo; i--)``) and strided ones (``i += c``, lowered to a counter over the
iterations), as loop-IR :class:`~tenspiler.loops.ir.For` (shared logic:
:mod:`tenspiler.frontend.counted`)."""

from __future__ import annotations

from collections.abc import Mapping

from pycparser import c_ast

from tenspiler.errors import BadInput
from tenspiler.frontend.c_access import offset_plus
from tenspiler.frontend.c_bindings import Binding, Env, int_literal, render
from tenspiler.frontend.c_induction import Induction, analyze
from tenspiler.frontend.c_inline import Unit
from tenspiler.frontend.common import Scalar, names_read, names_written, vars_read, writes
from tenspiler.frontend.counted import CountedLoops, plus_one, trip_count
from tenspiler.loops.ir import Assign, Binary, Compare, Const, DType, Expr, For, Select, Stmt, Var

__all__ = ["ForLoops"]


class ForLoops(CountedLoops):
    """The ``for`` loops of :class:`tenspiler.frontend.c_stmts.Kernel`."""

    unit: Unit
    locals: dict[str, DType]
    #: ``(left, right, what, loc)``: ``left <= right`` the lowering of a loop relies on
    #: (a run-time step); the function's :attr:`~tenspiler.loops.ir.Function.requires`
    step_requires: list[tuple[Expr, Expr, str, object]]
    emitted: list[list[Stmt]]
    blocks: list[list[c_ast.Node]]

    def stmt(self, node: c_ast.Node, env: Env) -> list[Stmt]:
        """Lower a statement (:meth:`tenspiler.frontend.c_stmts.Kernel.stmt`)."""
        raise NotImplementedError

    def declare(self, name: str, dtype: DType, node: c_ast.Node, env: Env, binding: Binding | None = None) -> None:
        """Declare a local (:meth:`tenspiler.frontend.c_stmts.Kernel.declare`)."""
        raise NotImplementedError

    # ----------------------------------------------------------- for loops

    def for_loop(self, node: c_ast.For, env: Env) -> list[Stmt]:
        u = self.unit
        env.scopes.append({})
        try:
            var, first = self.for_init(node, env)
            raw_step = self.for_step(node, var, env)
            runtime_step: Expr | None = None if isinstance(raw_step, int) else raw_step
            step = raw_step if isinstance(raw_step, int) else 0
            descending = step == -1
            prologue: tuple[Stmt, ...] = ()
            start: Expr
            stop: Expr
            if runtime_step is not None:
                # for (i = a; i < b; i += s), s a run-time integer the function never writes:
                # as a constant step, under the precondition 1 <= s (s <= 0 never ends the
                # loop when it runs: C's undefined behaviour; Function.requires)
                loc = u.loc(node)
                bound = self.for_cond(node, var, env)
                k = f"{var}__k"
                n = 1
                while k in self.locals or env.lookup(k) is not None:
                    k, n = f"{var}__k{n}", n + 1
                self.locals[k] = DType.INT
                one = Const(1, DType.INT, loc)
                span = Binary("+", Binary("-", bound, first, DType.INT, loc), Binary("-", runtime_step, one, DType.INT, loc),
                              DType.INT, loc)
                start, stop = Const(0, DType.INT, loc), Binary("/", span, runtime_step, DType.INT, loc)
                at = Binary("+", first, Binary("*", runtime_step, Var(k, DType.INT, loc), DType.INT, loc), DType.INT, loc)
                prologue = (Assign(var, at, loc),)
                first_reads = names_read(first) | names_read(runtime_step)
                self.step_requires.append((one, runtime_step, f"the step '{render(node.next.rvalue)}' of the loop at line "
                                           f"{loc.line if loc else '?'} is positive", loc))
            elif descending:  # for (i = hi; i >= lo; i--): the iterations lo..hi in reverse order
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
                what = "step" if runtime_step is not None and name in names_read(runtime_step) else "start"
                raise BadInput(f"the {what} of this strided loop reads '{name}', which the loop body writes", u.loc(node))
            return [For(k, start, stop, body, u.loc(node))]
        for name, rloc in vars_read(start if descending else stop):
            if name == var:
                raise BadInput(f"loop bound reads the loop counter '{var}'", rloc)
            if name in written:
                raise BadInput(f"loop bound reads '{name}', which the loop body writes", rloc)
        loop = For(var, start, stop, body, u.loc(node), descending)
        return self.substitute_inductions(loop, node, env)

    # ----------------------------------------------------------- while / do-while

    def scoped_body(self, header: tuple[str, Expr, Expr], items: list[c_ast.Node], env: Env) -> list[Stmt]:
        """The loop body ``items`` lowered in a scope of its own under the loop ``header``."""
        env.scopes.append({})
        try:
            with self.loop_body(header, env):
                return self.block(items, env)  # type: ignore[attr-defined]
        finally:
            env.scopes.pop()

    def counted_loop(self, node: c_ast.While | c_ast.DoWhile | c_ast.For, env: Env) -> list[Stmt]:
        """A ``while`` / ``do``-``while`` loop, or a ``for`` loop without an initialiser,
        whose counter the induction analysis finds (:mod:`tenspiler.frontend.c_induction`),
        as a loop-IR ``For``.

        With counter ``c`` stepped by ``s = ±1`` and tested against bound ``B`` (``c < B``,
        ``c <= B``, ``c != B`` ascending; ``c > B``, ``c >= B``, ``c != B`` descending), the
        tests see ``t0, t0 + s, ...`` from the value ``t0`` the counter has at the first
        test, and the loop runs while the test holds. The body sees ``t_j`` (the step is
        the last statement, or ``--c`` in the condition) or ``t_j + s`` (the step is the
        first statement, or ``c--`` in the condition): the counter itself is the loop-IR
        counter over those values, ascending or descending, and the step statement is
        dropped. ``!=`` reads as ``<`` / ``>``: where they differ the C loop never ends
        (a signed counter overflows: undefined behaviour; an unsigned one is refused by the
        type gate unless the bound is 0). After the loop the counter holds C's value (a
        step before the body is one past the IR counter's, ``c--`` in the condition
        steps once more and wraps an unsigned counter: fixed up after the loop). A
        ``do``-``while`` is the same loop when its condition is ``!=`` (the first
        iteration's test, skipped, holds wherever C is defined); others are refused.
        A step inside an expression of the body (``s += a[i++]``) keeps the counter as an
        induction variable of a fresh loop counter over the same number of iterations."""
        u = self.unit
        loc = u.loc(node)
        kind = "do-while loop" if isinstance(node, c_ast.DoWhile) else "while loop" if isinstance(node, c_ast.While) \
            else "for loop without an initialiser"
        ind = analyze(node)
        if not isinstance(ind, Induction):
            u.fail(f"{kind} is not supported: {ind} (a counted loop steps one integer variable by 1 once per "
                   "iteration and compares it with a bound the loop does not change)", node)
        c = ind.counter
        b = env.lookup(c)
        if not isinstance(b, Scalar):
            u.fail(f"loop counter '{c}' of this {kind} must be an integer variable", node)
        if b.dtype != DType.INT:
            u.fail(f"loop counter '{c}' of this {kind} must have an integer type of at least int's rank", node)
        if c not in env.assigned:
            u.fail(f"'{c}' may be used uninitialised", node)
        if c in self.loop_vars:
            u.fail(f"'{c}' is already the counter of an enclosing loop", node)
        ascending = ind.step > 0
        if ascending and ind.op not in ("<", "<=", "!="):
            u.fail(f"the condition of this {kind} does not bound its ascending counter '{c}' "
                   f"(only {c} < E, {c} <= E, {c} != E)", node.cond)
        if not ascending and ind.op not in (">", ">=", "!="):
            u.fail(f"the condition of this {kind} does not bound its descending counter '{c}' "
                   f"(only {c} > E, {c} >= E, {c} != E)", node.cond)
        if isinstance(node, c_ast.DoWhile) and (ind.op != "!=" or ind.where in ("first", "inside", "cond-post")):
            u.fail(f"do-while loop: only a condition '{c} != E' tested after the step at the end of the body "
                   f"or as '--{c}' / '++{c}' is supported (its first iteration runs before the test)", node.cond)
        tloc = u.loc(ind.step_node)
        bound = Const(0, DType.INT, tloc) if ind.bound is None else u.integer(
            ind.bound, env, "loop bound must be an integer expression")
        one = Const(1, DType.INT, tloc)
        t0: Expr = Var(c, DType.INT, tloc)
        if ind.where == "cond-pre" and not isinstance(node, c_ast.DoWhile):
            # the step before the first test: t0 = c + s (a do-while's body runs first, with
            # c: it is the pre-test loop whose first test, at c, holds where C is defined)
            t0 = Binary("+" if ascending else "-", t0, one, DType.INT, tloc)
        seen_after_step = ind.where in ("first", "cond-post")
        start: Expr
        stop: Expr
        if ascending:
            hi = bound if ind.op in ("<", "!=") else plus_one(bound, tloc)  # exclusive, of the tests
            start, stop = t0, hi
            if seen_after_step:
                start, stop = plus_one(start, tloc), plus_one(stop, tloc)
        else:
            lo = plus_one(bound, tloc) if ind.op in (">", "!=") else bound  # inclusive, of the tests
            start, stop = lo, plus_one(t0, tloc)
            if seen_after_step:
                start = bound if ind.op in (">", "!=") else Binary("-", bound, one, DType.INT, tloc)
                stop = t0
        ctype = getattr(u, "gate_counter_types", {}).get(id(node))
        items = list(node.stmt.block_items or []) if isinstance(node.stmt, c_ast.Compound) else [node.stmt]
        fresh_counter = ind.where == "inside"
        if fresh_counter:
            var = self.fresh_local(f"{c}__k", env)
            if not ascending:
                # the iterations over a fresh counter need not run in the counter's order
                start, stop = Const(0, DType.INT, tloc), Binary("-", stop, start, DType.INT, tloc)
            header: tuple[str, Expr, Expr] = (var, start, stop)
            pre: list[Stmt] = []
            if c in names_read(start) | names_read(stop):
                entry = self.fresh_local(f"{c}__entry", env)
                pre.append(Assign(entry, Var(c, DType.INT, tloc), tloc))
                env.assigned.add(entry)
                start = _subst(start, {c: Var(entry, DType.INT, tloc)})
                stop = _subst(stop, {c: Var(entry, DType.INT, tloc)})
                header = (var, start, stop)
            body = self.scoped_body(header, items, env)
            written = names_written(body)
            for name, rloc in vars_read(bound):
                if name in written:
                    raise BadInput(f"loop bound reads '{name}', which the loop body writes", rloc)
            loop = For(var, start, stop, tuple(body), loc)
            out = [*pre, loop]
        else:
            if ind.update is not None:
                items = [it for it in items if it is not ind.update]
            header = (c, start, stop)
            body = self.scoped_body(header, items, env)
            for name, wloc in writes(body):
                if name == c:
                    raise BadInput(f"loop counter '{c}' is assigned in the loop body", wloc)
            written = names_written(body)
            for name, rloc in vars_read(start if not ascending else stop):
                if name in written:
                    raise BadInput(f"loop bound reads '{name}', which the loop body writes", rloc)
            if _mentions_counter(start if not ascending else stop, c):
                u.fail(f"the bound of this {kind} reads its counter '{c}'", node.cond)
            out = (self.substitute_inductions(For(c, start, stop, tuple(body), loc), node, env) if ascending
                   else [For(c, start, stop, tuple(body), loc, descending=True)])
            live = self.live_after(node, c)
            if not ascending and not any(c in names_read(e) for e in _body_exprs(body)):
                # the body does not read the counter: its iterations are the same statements,
                # so they run in ascending order over a fresh counter; the counter gets the
                # value the descending loop leaves, min(start, stop) - 1
                k = self.fresh_local(f"{c}__k", env)
                entry_copy: list[Stmt] = []
                if c in names_read(start) | names_read(stop):
                    entry = self.fresh_local(f"{c}__entry", env)
                    entry_copy.append(Assign(entry, Var(c, DType.INT, tloc), tloc))
                    env.assigned.add(entry)
                    start, stop = _subst(start, {c: Var(entry, DType.INT, tloc)}), _subst(stop, {c: Var(entry, DType.INT, tloc)})
                low = Select(Compare("<", stop, start, tloc), stop, start, DType.INT, tloc)
                out = [*entry_copy, For(k, start, stop, tuple(body), loc)]
                if live:
                    out.append(Assign(c, Binary("-", low, one, DType.INT, tloc), tloc))
            if ind.where == "first" and live:
                # the IR counter ends one step past C's (C tested the value before its step)
                out.append(Assign(c, Binary("-" if ascending else "+", Var(c, DType.INT, tloc), one, DType.INT, tloc),
                                  tloc))
        env.assigned.add(c)
        if ind.where == "cond-post" and ctype is not None and not ctype.signed and self.live_after(node, c):
            # the last test's step wraps an unsigned counter (modulo 2^bits, C11 §6.2.5p9)
            cv = Var(c, DType.INT, tloc)
            m = Const(1 << ctype.bits, DType.INT, tloc)
            zero = Const(0, DType.INT, tloc)
            out.append(Assign(c, Select(Compare("<", cv, zero, tloc), Binary("+", cv, m, DType.INT, tloc),
                                        Select(Compare(">=", cv, m, tloc), Binary("-", cv, m, DType.INT, tloc), cv,
                                               DType.INT, tloc), DType.INT, tloc), tloc))
        return out

    def substitute_inductions(self, loop: For, node: c_ast.Node, env: Env) -> list[Stmt]:
        """Induction variables with a loop-invariant step that is not a constant
        (``a_ptr += lda``, ``k = k + n``): a scalar ``v`` written once per iteration, by the
        top-level statement ``v = v ± e`` where ``e`` (a sum, difference or product of
        scalars and constants) reads nothing the loop writes, holds ``v0 + k*e`` before
        that statement and ``v0 + (k+1)*e`` after it in iteration ``k = i - start``; its
        reads are replaced by those closed forms, the statement is dropped, and ``v`` gets
        ``v0 + trips*e`` after the loop where it is read later. Exact on the model's integers
        (C's values agree wherever C is defined: signed and pointer overflow are undefined,
        unsigned arithmetic that may wrap was refused by the type gate). ``v0`` is the value
        the block assigned to ``v`` just before, or a copy of ``v`` taken before the loop.
        Constant steps are left to the kernel analysis (inductions ``x = x + c``)."""
        if loop.descending:
            return [loop]
        body = list(loop.body)
        written = names_written(body)
        counts: dict[str, int] = {}
        for name, _ in writes(body):
            counts[name] = counts.get(name, 0) + 1
        pre: list[Stmt] = []
        post: list[Stmt] = []
        for pos, st in enumerate(list(body)):
            if not isinstance(st, Assign) or counts.get(st.target, 0) != 1 or self.locals.get(st.target) != DType.INT:
                continue
            v = st.target
            step = _invariant_step(st.value, v)
            if step is None:
                continue
            sign, e = step
            if names_read(e) & (written | {loop.var}):
                continue
            if not any(v in names_read(x) for x in _body_exprs([b for i, b in enumerate(body) if i != pos])):
                continue  # never read in the loop: a reduction, the kernel analysis's
            loc = st.loc
            start = loop.start
            if names_read(start) & (written | {loop.var}):
                # the start as the loop begins (a while loop's counter starts from itself)
                first = self.fresh_local(f"{loop.var}__start", env)
                pre.append(Assign(first, start, loc))
                env.assigned.add(first)
                start = Var(first, DType.INT, loc)
            k: Expr = Var(loop.var, DType.INT, loc) if start == Const(0, DType.INT) else \
                Binary("-", Var(loop.var, DType.INT, loc), start, DType.INT, loc)
            v0 = self.entry_value(v, written | {loop.var}, pre, env, loc, node)

            def at(steps: Expr, v0: Expr = v0, e: Expr = e, sign: str = sign, loc: object = loc) -> Expr:
                delta = Binary("*", steps, e, DType.INT, loc)  # type: ignore[arg-type]
                return offset_plus(v0, delta, "+" if sign == "+" else "-", loc)  # type: ignore[arg-type]

            one = Const(1, DType.INT, loc)
            before, after = at(k), at(offset_plus(k, one, "+", loc))
            body = [_replace_var(b, v, before if i < pos else after) for i, b in enumerate(body)]
            body[pos] = None  # type: ignore[call-overload]
            body = [b for b in body if b is not None]
            if self.live_after(node, v):
                post.append(Assign(v, at(trip_count(start, loop.stop, loc)), loc))
            rest = self.substitute_inductions(For(loop.var, loop.start, loop.stop, tuple(body), loop.loc), node, env)
            return [*pre, *rest, *post]
        return [loop]

    def entry_value(self, v: str, written: set[str], pre: list[Stmt], env: Env, loc: object,
                    node: c_ast.Node) -> Expr:
        """The value ``v`` has when loop ``node`` starts: the expression of its last
        assignment among the statements just lowered in the block that holds ``node`` as
        an item (not a loop around it: ``for (...) for (...)``) when nothing after it changes
        what it reads; else a fresh copy of ``v`` assigned before the loop."""
        items = self.blocks[-1] if self.blocks else getattr(self, "function_items", [])
        direct = any(it is node for it in items)
        emitted = self.emitted[-1] if self.emitted and direct else []
        later: set[str] = set()
        for st in reversed(emitted):
            if isinstance(st, Assign) and st.target == v:
                reads = names_read(st.value)
                if not (reads & (later | written)) and v not in reads and not _has_load_or_call(st.value):
                    return st.value
                break
            later |= names_written([st])
            if v in later:
                break
        copy = self.fresh_local(f"{v}__0", env)
        pre.append(Assign(copy, Var(v, DType.INT, loc), loc))  # type: ignore[arg-type]
        env.assigned.add(copy)
        return Var(copy, DType.INT, loc)  # type: ignore[arg-type]

    def live_after(self, node: c_ast.Node, name: str) -> bool:
        """Whether the value ``name`` has after loop ``node`` may be read (conservatively:
        ``name`` appears in a statement after the one holding ``node`` in an enclosing
        block, or, inside another loop, anywhere else in the blocks around ``node``)."""
        lists = [getattr(self, "function_items", []), *self.blocks]
        inside_loop = bool(self.loops)
        for items in lists:
            pos = next((i for i, it in enumerate(items) if _contains(it, node)), None)
            if pos is None:
                continue
            others = items[pos + 1:] if not inside_loop else items[:pos] + items[pos + 1:]
            if any(_mentions(it, name) for it in others):
                return True
            if inside_loop and _mentions_outside(items[pos], node, name):
                return True  # e.g. the header of an enclosing loop, run after its body
        return False

    def fresh_local(self, base: str, env: Env) -> str:
        """A new INT local named ``base`` (or ``base1``, ...) that nothing uses."""
        name, n = base, 1
        while name in self.locals or env.lookup(name) is not None or name in self.taken:  # type: ignore[attr-defined]
            name, n = f"{base}{n}", n + 1
        self.locals[name] = DType.INT
        return name

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

    def for_step(self, node: c_ast.For, var: str, env: Env | None = None) -> int | Expr:
        """The step: ``1`` (``i++``, ``++i``, ``i += 1``, ``i = i + 1``), ``-1`` (their
        decrements: a descending loop), a constant ``c >= 2`` (``i += c``, ``i = i + c``: a
        strided loop) or a run-time integer expression of scalar parameters (``i += s``:
        a loop-IR expression; ``step_requires`` gets ``1 <= s``)."""
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
            case c_ast.Assignment(op="+=", lvalue=x, rvalue=c) if is_var(x) and env is not None and not (
                    isinstance(c, c_ast.Constant)) and not _mentions(c, var):
                return u.integer(c, env, "loop step must be an integer expression")
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


def _subst(e: Expr, sub: Mapping[str, Expr]) -> Expr:
    from tenspiler.loops.ir import map_expr

    return map_expr(e, lambda x: sub.get(x.name, x) if isinstance(x, Var) else x)


def _mentions_counter(e: Expr, c: str) -> bool:
    return c in names_read(e)


def _body_exprs(body: tuple[Stmt, ...] | list[Stmt]) -> list[Expr]:
    """Every expression of ``body`` (loop bounds included), for what it reads."""
    from tenspiler.loops.ir import map_stmt_exprs

    out: list[Expr] = []

    def see(e: Expr) -> Expr:
        out.append(e)
        return e

    for st in body:
        map_stmt_exprs(st, see)
    return out


def _contains(tree: c_ast.Node, node: c_ast.Node) -> bool:
    return tree is node or any(_contains(c, node) for _, c in tree.children())


def _mentions(tree: c_ast.Node, name: str) -> bool:
    return (isinstance(tree, c_ast.ID) and tree.name == name) or any(_mentions(c, name) for _, c in tree.children())


def _invariant_step(value: Expr, v: str) -> tuple[str, Expr] | None:
    """``("+", e)`` / ``("-", e)`` when ``value`` is ``v + e``, ``e + v`` or ``v - e`` with ``e``
    a non-constant sum, difference or product of scalar variables and constants."""
    def simple(e: Expr) -> bool:
        match e:
            case Var() | Const():
                return e.dtype == DType.INT
            case Binary("+" | "-" | "*", a, b, DType.INT):
                return simple(a) and simple(b)
        return False

    match value:
        case Binary("+", Var(name), e, DType.INT) if name == v:
            pass
        case Binary("+", e, Var(name), DType.INT) if name == v:
            pass
        case Binary("-", Var(name), e, DType.INT) if name == v:
            if simple(e) and not isinstance(e, Const) and v not in names_read(e):
                return "-", e
            return None
        case _:
            return None
    if simple(e) and not isinstance(e, Const) and v not in names_read(e):
        return "+", e
    return None


def _has_load_or_call(e: Expr) -> bool:
    from tenspiler.loops.ir import Call, Load

    found = [False]

    def see(x: Expr) -> Expr:
        if isinstance(x, Load | Call):
            found[0] = True
        return x

    from tenspiler.loops.ir import map_expr

    map_expr(e, see)
    return found[0]


def _replace_var(st: Stmt, v: str, by: Expr) -> Stmt:
    from tenspiler.loops.ir import map_stmt_exprs

    return map_stmt_exprs(st, lambda x: by if isinstance(x, Var) and x.name == v else x)


def _mentions_outside(tree: c_ast.Node, node: c_ast.Node, name: str) -> bool:
    """Whether ``name`` appears in ``tree`` outside the subtree ``node``."""
    if tree is node:
        return False
    return (isinstance(tree, c_ast.ID) and tree.name == name) or any(
        _mentions_outside(c, node, name) for _, c in tree.children())
