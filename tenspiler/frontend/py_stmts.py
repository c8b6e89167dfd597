"""Statements of the Python kernel: the function and its parameters (lists flattened like
C++ vectors), assignments (the types of locals joined over their values), the returned list
built by ``append``, counted loops (``for`` over ``range`` or a list, the counted
``while``) and if-conversion, after the idioms are desugared
(:mod:`tenspiler.frontend.py_comprehensions`)."""

from __future__ import annotations

import ast
import copy
from typing import NoReturn

from tenspiler.errors import BadInput, SourceLoc
from tenspiler.frontend.common import (
    IfConversion,
    Scalar,
    cond_vars_read,
    convert,
    names_read,
    names_written,
    vars_read,
)
from tenspiler.frontend.counted import plus_one
from tenspiler.frontend.lists import ResultList, ResultLists, ResultRow, flat_list_param
from tenspiler.frontend.py_ast import (
    appended_name,
    appends,
    assigned_names,
    describe,
    is_docstring,
    is_int_literal,
    is_name,
)
from tenspiler.frontend.py_comprehensions import Desugar
from tenspiler.frontend.py_exprs import Expressions, Scope
from tenspiler.frontend.py_types import (
    RESULT_KEY,
    Binding,
    DeadLoopVar,
    ListParam,
    ParamType,
    Uses,
)
from tenspiler.loops.ir import (
    ArgGuard,
    Assign,
    Binary,
    Call,
    Cast,
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
    PythonInterface,
    Return,
    ScalarType,
    Select,
    Stmt,
    Store,
    Unary,
    Var,
    VectorParam,
)
from tenspiler.loops.observed import unobserved_sites

__all__ = ["Kernel"]

#: The builtin exception classes an argument check may raise.
#: What Python raises at each kind of raising operation (``tenspiler.loops.observed``).
_SITE_RAISES = {
    "division": "ZeroDivisionError where the divisor is 0",
    "pow": "ZeroDivisionError, OverflowError or ValueError",
    "sqrt": "ValueError on a negative number",
    "log": "ValueError on a number that is not positive",
    "exp": "OverflowError above 709.78",
}

_EXCEPTIONS = frozenset({
    "ValueError", "TypeError", "IndexError", "ZeroDivisionError", "ArithmeticError", "OverflowError",
    "RuntimeError", "Exception", "KeyError", "LookupError", "NotImplementedError", "AssertionError",
})


#: The builtins a validation helper may call (they only inspect numbers and lists).
_INSPECTING = frozenset({"isinstance", "len", "type", "str", "repr", "int", "float", "bool", "list", "tuple",
                         "all", "any", "abs", "min", "max"})


def _is_message_assign(s: ast.stmt) -> bool:
    """``msg = "literal"`` or ``msg = f"... {name} ..."`` (formatting a name cannot raise
    for numbers and lists): a message built before ``raise``."""
    if not (isinstance(s, ast.Assign) and len(s.targets) <= 1 and all(isinstance(t, ast.Name) for t in s.targets)):
        return False
    v = s.value
    if isinstance(v, ast.Constant):
        return isinstance(v.value, str)
    if isinstance(v, ast.JoinedStr):
        return all(isinstance(p, ast.Constant) or (isinstance(p, ast.FormattedValue) and isinstance(p.value, ast.Name)
                                                   and p.format_spec is None) for p in v.values)
    return False


def validation_source(mod: Expressions, fdef: ast.FunctionDef, values: bool = False) -> str:
    """The text of the validation helper ``fdef`` (no docstring, annotations or decorators)
    after checking that running it on the arguments only inspects them and may raise: it
    has ``if`` / ``for`` / ``raise`` / local assignments / ``pass`` / ``return`` only,
    reads its parameters, its locals, the builtins of :data:`_INSPECTING` and builtin
    exception classes (none of them rebound by the module), calls nothing else and reads
    no attribute but ``__name__``.

    ``values``: a helper whose value a validation prologue reads (:func:`validation_prologue`)
    may also return values, read elements (``m[0]``: Python raises ``IndexError`` as it
    does, the text running on the objects given) and call other such helpers (passed as
    its callers: their texts are checked by the caller of this function)."""
    if fdef.decorator_list:
        mod.fail(f"decorated validation helper '{fdef.name}' is not supported", fdef.decorator_list[0])
    params = {a.arg for a in mod.plain_params(fdef)}
    body = [s for k, s in enumerate(fdef.body) if not (k == 0 and is_docstring(s))]
    local = assigned_names(body)
    for node in (n for s in body for n in ast.walk(s)):
        if isinstance(node, ast.stmt) and not isinstance(node, ast.If | ast.For | ast.Raise | ast.Assign | ast.Pass
                                                         | ast.Return | ast.Expr):
            mod.fail(f"{describe(node)} in the validation helper '{fdef.name}' is not supported", node)
        match node:
            case ast.Expr(value=v) if not (isinstance(v, ast.Constant) and isinstance(v.value, str)):
                mod.fail(f"expression statement in the validation helper '{fdef.name}' is not supported", node)
            case ast.Return(value=v) if not values and v is not None and not (
                    isinstance(v, ast.Constant) and v.value is None):
                mod.fail(f"the validation helper '{fdef.name}' returns a value", node)
            case ast.Assign(targets=targets) if not all(
                    isinstance(t, ast.Name) or (values and isinstance(t, ast.Tuple)
                                                and all(isinstance(e, ast.Name) for e in t.elts))
                    for t in targets):
                mod.fail(f"assignment '{ast.unparse(node)}' in the validation helper '{fdef.name}' is not supported", node)
            case ast.For(target=t) if not isinstance(t, ast.Name) or node.orelse:
                mod.fail(f"for loop '{ast.unparse(t)}' in the validation helper '{fdef.name}' is not supported", node)
            case ast.Raise(exc=exc, cause=cause):
                f = exc.func if isinstance(exc, ast.Call) else exc
                if cause is not None or not (isinstance(f, ast.Name) and f.id in _EXCEPTIONS):
                    mod.fail(f"the validation helper '{fdef.name}' raises something else than a builtin exception",
                             node)
            case ast.Call(func=f) if not (isinstance(f, ast.Name) and (
                    f.id in _INSPECTING or f.id in _EXCEPTIONS or (values and f.id in mod.defs and f.id not in local
                                                                   and f.id not in params))):
                mod.fail(f"call '{ast.unparse(node)}' in the validation helper '{fdef.name}' is not supported", node)
            case ast.Attribute(attr=attr) if attr != "__name__":
                mod.fail(f"attribute '{ast.unparse(node)}' in the validation helper '{fdef.name}' is not supported", node)
            case ast.Subscript(ctx=ast.Load()) if values:
                pass
            case ast.Subscript() | ast.Lambda() | ast.ListComp() | ast.SetComp() | ast.DictComp() | ast.GeneratorExp() \
                    | ast.NamedExpr() | ast.Await() | ast.Yield() | ast.YieldFrom() | ast.Starred():
                mod.fail(f"{describe(node)} in the validation helper '{fdef.name}' is not supported", node)
            case ast.Name(id=name, ctx=ast.Load()) if values and name in mod.defs and name not in params \
                    and name not in local:
                mod.stable_helper(name, node)
            case ast.Name(id=name, ctx=ast.Load()) if name not in params and name not in local:
                if name not in _INSPECTING and name not in _EXCEPTIONS:
                    mod.fail(f"the validation helper '{fdef.name}' reads '{name}' (only its parameters, its "
                             "locals and inspecting builtins)", node)
                mod.stable_builtin(name, node)
            case ast.Name(id=name, ctx=ast.Store()) if name in params:
                mod.fail(f"the validation helper '{fdef.name}' assigns its parameter '{name}'", node)
    clean = copy.deepcopy(fdef)
    clean.decorator_list = []
    clean.returns = None
    clean.body = copy.deepcopy(body) or [ast.Pass()]
    for a in ast.walk(clean.args):
        if isinstance(a, ast.arg):
            a.annotation = None
    clean.args.defaults = []
    clean.args.kw_defaults = []
    return ast.unparse(ast.fix_missing_locations(clean))


def final_raise_as_check(body: list[ast.stmt]) -> list[ast.stmt]:
    """``if C: ...; return X`` followed by a final ``raise E(...)``, the last two top-level
    statements, as ``if not C: raise E(...)`` followed by the ``if``'s body: Python evaluates
    ``C`` once either way, raises where it is false and runs the body (which returns)
    where it is true."""
    if len(body) < 2:
        return body
    last, before = body[-1], body[-2]
    if not (isinstance(last, ast.Raise) and isinstance(before, ast.If) and not before.orelse
            and _always_returns(before.body)):
        return body
    test = ast.copy_location(ast.UnaryOp(op=ast.Not(), operand=before.test), before.test)
    check = ast.copy_location(ast.If(test=test, body=[last], orelse=[]), before)
    return [*body[:-2], check, *before.body]


def _always_returns(body: list[ast.stmt]) -> bool:
    """Whether ``body`` ends every path with ``return``: its last statement is a
    ``return``, or an ``if`` / ``else`` whose branches both do."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, ast.Return):
        return True
    return isinstance(last, ast.If) and _always_returns(last.body) and _always_returns(last.orelse)


def _reads_names(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names for n in ast.walk(node))


def validation_prologue(mod: Expressions, fdef: ast.FunctionDef, body: list[ast.stmt],
                        list_params: set[str]) -> tuple[ArgGuard | None, list[ast.stmt]]:
    """The leading top-level statements of ``body`` that call a module helper with a list
    parameter (``if _check(m) and _sizes(a, b): ...``, ``rows, cols = _sizes(a, b)``), or
    read a local such a statement assigned, kept as Python text: one
    :class:`~tenspiler.loops.ir.ArgGuard` ``call`` whose text (the statements in a
    ``def`` of the parameters they read, the helpers they call, transitively, as nested
    ``def`` s) the generated entry runs first on the objects given, as Python runs them.
    They may only inspect (``if``, assignments of names, ``raise`` of builtin exceptions,
    helper calls, the builtins of :data:`_INSPECTING`; the helpers as
    :func:`validation_source` with ``values``) and their locals may not be read after them.
    Returns ``(None, body)`` when the function does not start with such a statement (a
    call statement ``helper(xs)`` alone is the stricter validation call of
    :meth:`Kernel.validation_call`)."""
    params = {a.arg for a in mod.plain_params(fdef)}

    def calls_with_list(node: ast.AST) -> bool:
        return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in mod.defs
                   and any(isinstance(a, ast.Name) and a.id in list_params for a in n.args)
                   for n in ast.walk(node))

    k = 0
    local: set[str] = set()
    while k < len(body):
        st = body[k]
        if not isinstance(st, ast.If | ast.Assign | ast.Expr) or (isinstance(st, ast.Expr) and is_docstring(st)):
            break
        # (a call statement alone is a validation call, :meth:`Kernel.validation_call`)
        if not ((calls_with_list(st) and not isinstance(st, ast.Expr)) or _reads_names(st, local)):
            break
        local |= assigned_names([st])
        k += 1
    if k == 0:
        return None, body
    prologue, rest = body[:k], body[k:]
    helpers: list[str] = []
    read: list[str] = []

    def need(name: str, node: ast.AST) -> None:
        if name in helpers:
            return
        mod.stable_helper(name, node)
        helpers.append(name)
        helper = mod.defs[name]
        text = validation_source(mod, helper, values=True)
        for n in ast.walk(ast.parse(text)):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in mod.defs \
                    and n.func.id not in {a.arg for a in ast.walk(helper.args) if isinstance(a, ast.arg)}:
                need(n.func.id, n)

    for node in (n for st in prologue for n in ast.walk(st)):
        if isinstance(node, ast.stmt) and not isinstance(node, ast.If | ast.Assign | ast.Raise | ast.Pass | ast.Expr):
            mod.fail(f"{describe(node)} in the argument checks kept as Python text (they call a helper with a list) "
                     "is not supported", node)
        match node:
            case ast.Expr(value=ast.Call()):
                pass
            case ast.Expr():
                mod.fail("expression statement in the argument checks is not supported", node)
            case ast.Assign(targets=targets) if not all(
                    isinstance(t, ast.Name) or (isinstance(t, ast.Tuple) and all(isinstance(e, ast.Name) for e in t.elts))
                    for t in targets):
                mod.fail(f"assignment '{ast.unparse(node)}' in the argument checks is not supported", node)
            case ast.Raise(exc=exc, cause=cause):
                f = exc.func if isinstance(exc, ast.Call) else exc
                if cause is not None or not (isinstance(f, ast.Name) and f.id in _EXCEPTIONS):
                    mod.fail("an argument check raising something else than a builtin exception is not supported", node)
            case ast.Call(func=ast.Name(id=name)) if name in mod.defs and name not in local and name not in params:
                need(name, node)
            case ast.Call(func=f) if not (isinstance(f, ast.Name) and (f.id in _INSPECTING or f.id in _EXCEPTIONS)):
                mod.fail(f"call '{ast.unparse(node)}' in the argument checks is not supported", node)
            case ast.Attribute(attr=attr) if attr != "__name__":
                mod.fail(f"attribute '{ast.unparse(node)}' in the argument checks is not supported", node)
            case ast.Subscript(ctx=ast.Load()):
                pass
            case ast.Subscript() | ast.Lambda() | ast.ListComp() | ast.SetComp() | ast.DictComp() | ast.GeneratorExp() \
                    | ast.NamedExpr() | ast.Await() | ast.Yield() | ast.YieldFrom() | ast.Starred():
                mod.fail(f"{describe(node)} in the argument checks is not supported", node)
            case ast.Name(id=name, ctx=ast.Load()) if name in params:
                if name not in read:
                    read.append(name)
            case ast.Name(id=name, ctx=ast.Load()) if name not in local and name not in mod.defs:
                if name not in _INSPECTING and name not in _EXCEPTIONS:
                    mod.fail(f"the argument checks read '{name}' (only parameters, their locals, helpers and "
                             "inspecting builtins)", node)
                mod.stable_builtin(name, node)
            case ast.Name(id=name, ctx=ast.Store()) if name in params:
                mod.fail(f"the argument checks assign parameter '{name}'", node)
    for st in rest:
        for n in ast.walk(st):
            if isinstance(n, ast.Name) and n.id in local:
                mod.fail(f"'{n.id}' is assigned by the argument checks at the top (kept as Python text, they call a "
                         "helper with a list) and used after them: not supported", n)
    order = [p for p in (a.arg for a in mod.plain_params(fdef)) if p in read]
    lines = [f"def checks({', '.join(order)}):"]
    for name in helpers:
        lines += ["    " + line for line in validation_source(mod, mod.defs[name], values=True).split("\n")]
    for st in prologue:
        lines += ["    " + line for line in ast.unparse(st).split("\n")]
    return ArgGuard(None, None, "", None, mod.loc(prologue[0]), ("\n".join(lines), "checks", tuple(order))), rest


def _may_raise(e: Expr) -> str:
    """Why evaluating ``e`` may raise in Python (``""``: it cannot): a division by a
    non-literal or zero, a math function, a list element."""
    match e:
        case Binary(op=op, left=left, right=right):
            if op in ("/", "//", "mod", "%") and not (isinstance(right, Const) and right.value != 0):
                return "a division"
            return _may_raise(left) or _may_raise(right)
        case Call(func=func):
            return f"math.{func}"
        case Load():
            return "a list element"
        case Unary(operand=x) | Cast(operand=x):
            return _may_raise(x)
        case Select(cond=c, then=a, else_=b):
            return _may_raise_cond(c) or _may_raise(a) or _may_raise(b)
    return ""


def _stmt_may_raise(st: Stmt) -> str:
    """Why executing ``st`` may raise (``""``: it cannot)."""
    match st:
        case Assign(value=value) | Return(value=value) if value is not None:
            return _may_raise(value)
        case Store(index=index, value=value):
            return _may_raise(index) or _may_raise(value)
        case For(start=start, stop=stop, body=body):
            return _may_raise(start) or _may_raise(stop) or next((w for b in body if (w := _stmt_may_raise(b))), "")
    return ""


def _may_raise_cond(c: Cond) -> str:
    match c:
        case Compare(left=a, right=b):
            return _may_raise(a) or _may_raise(b)
        case Logical(left=a, right=b):
            return _may_raise_cond(a) or _may_raise_cond(b)
    return _may_raise_cond(c.operand)


def _subst(e: Expr, values: dict[str, Expr]) -> Expr:
    match e:
        case Var(name=name) if name in values:
            return values[name]
        case Binary(op=op, left=a, right=b, dtype=d, loc=loc):
            return Binary(op, _subst(a, values), _subst(b, values), d, loc)
        case Unary(op=op, operand=x, dtype=d, loc=loc):
            return Unary(op, _subst(x, values), d, loc)
        case Cast(operand=x, dtype=d, loc=loc):
            return Cast(_subst(x, values), d, loc)
        case Select(cond=c, then=a, else_=b, dtype=d, loc=loc):
            return Select(_subst_cond(c, values), _subst(a, values), _subst(b, values), d, loc)
        case Call(func=f, arg=x, dtype=d, loc=loc):
            return Call(f, _subst(x, values), d, loc)
    return e


def _subst_cond(c: Cond, values: dict[str, Expr]) -> Cond:
    match c:
        case Compare(op=op, left=a, right=b, loc=loc):
            return Compare(op, _subst(a, values), _subst(b, values), loc)
        case Logical(op=op, left=a, right=b, loc=loc):
            return Logical(op, _subst_cond(a, values), _subst_cond(b, values), loc)
    return Not(_subst_cond(c.operand, values), c.loc)

INT, DOUBLE = DType.INT, DType.DOUBLE


class Kernel(Scope, IfConversion, ResultLists):
    """Lowering of the chosen function's body to loop-IR statements (one pass of the
    type inference, see :meth:`tenspiler.frontend.python.Module.lower`)."""

    def __init__(self, mod: Expressions, fdef: ast.FunctionDef, types: dict[str, DType]) -> None:
        self.mod = mod
        self.fdef = fdef
        self.name = fdef.name
        self.inlining = (fdef.name,)
        self.types = types
        #: Names whose type this pass found to be float although it assumed int.
        self.promoted: dict[str, DType] = {}
        self.locals: dict[str, DType] = {}
        self.env: dict[str, Binding] = {}
        self.params: set[str] = set()
        self.assigned: set[str] = set()
        self.written: set[str] = set()
        self.guard: Cond | None = None
        self.if_count = 0
        self.loops = []
        self.blocks: list[list[ast.stmt]] = []
        #: the argument checks before the first loop, in source order
        self.arg_guards: list[ArgGuard] = []
        #: preconditions ``left <= right`` (``Function.requires``)
        self.requires: list[tuple[Expr, Expr, str]] = []
        #: the loop-IR statements of the function's top level emitted so far
        self.top_emitted: list[Stmt] = []
        #: the loop-IR statements emitted so far in each enclosing block, outermost first
        self.emitted_stack: list[list[Stmt]] = []
        #: the list parameters the function modifies in place
        self.written_lists: set[str] = set()
        self.taken: set[str] = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name)}
        arg_names = {a.arg for a in ast.walk(fdef.args) if isinstance(a, ast.arg)}
        self.taken |= arg_names
        body = [s for k, s in enumerate(fdef.body) if not (k == 0 and is_docstring(s))]
        body = final_raise_as_check(body)
        guard, body = validation_prologue(mod, fdef, body, self.list_params(body))
        if guard is not None:
            self.arg_guards.append(guard)
        # comprehensions, sum / max / min of sequences, zip / enumerate: explicit loops
        self.body_stmts = Desugar(mod, self.fresh, arg_names).function_body(body)
        self.local_names = assigned_names(self.body_stmts)
        self.init_result_lists()
        self.result_rank = 0
        self.result_elem: DType | None = types.get(RESULT_KEY)

    def fail(self, message: str, node: ast.AST | None) -> NoReturn:
        self.mod.fail(message, node)

    def require(self, left: Expr, right: Expr, what: str, node: ast.AST) -> None:
        if not any(r[0] == left and r[1] == right for r in self.requires):
            self.requires.append((left, right, what))

    def list_params(self, body: list[ast.stmt]) -> set[str]:
        """The parameters that are lists (annotated so, or used so by ``body``, as
        :meth:`lower` types them)."""
        uses = Uses.of(body)
        out: set[str] = set()
        for a in self.mod.plain_params(self.fdef):
            t = self.mod.annotation(a.annotation, f"parameter '{a.arg}'") if a.annotation is not None else None
            if (t is not None and t.rank > 0) or (t is None and (a.annotation is not None or uses.lists.get(a.arg, 0))):
                out.add(a.arg)
        return out

    # ----------------------------------------------------------- scope

    def lookup(self, name: str) -> Binding | None:
        return self.env.get(name)

    def read(self, name: str, node: ast.AST) -> Expr:
        loc = self.mod.loc(node)
        match self.env.get(name):
            case Scalar(dtype=dtype):
                if name not in self.assigned:
                    self.fail(f"'{name}' may be used before it is assigned", node)
                return Var(name, dtype, loc)
            case ListParam() | ResultList() | ResultRow():
                self.fail(f"list '{name}' used as a number is not supported", node)
            case DeadLoopVar():
                self.fail(
                    f"'{name}' is read after its for loop (Python leaves it at its last value; not supported)",
                    node,
                )
        if name in self.local_names:
            self.fail(f"'{name}' may be used before it is assigned", node)
        return self.global_value(name, node)

    # ----------------------------------------------------------- the function

    def lower(self) -> Function:
        mod, fdef = self.mod, self.fdef
        params: list[Param] = []
        signature: list[VectorParam | str] = []
        uses = Uses.of(self.body_stmts)
        for a in mod.plain_params(fdef):
            name = a.arg
            if name in self.params:
                self.fail(f"duplicate parameter '{name}'", a)
            t = mod.annotation(a.annotation, f"parameter '{name}'") if a.annotation is not None else None
            if t is None:
                rank = uses.lists.get(name, 0)
                if a.annotation is not None and rank == 0:
                    rank = 1  # a bare 'list' annotation
                if rank:
                    t = ParamType(rank, DOUBLE)
                else:
                    t = ParamType(0, INT if name in uses.int_context else DOUBLE)
            loc = mod.loc(a)
            self.params.add(name)
            self.assigned.add(name)
            if t.rank == 0:
                params.append(Param(name, ScalarType(t.dtype), loc))
                self.env[name] = Scalar(t.dtype)
                signature.append(name)
                continue
            flat, sizes, vp = flat_list_param(name, t.rank, t.dtype, "float" if t.dtype.is_float else "int", loc, self.fresh)
            params.extend(flat)
            self.env[name] = ListParam(name, t.rank, t.dtype, sizes)
            signature.append(vp)
        stmts = self.body_stmts
        if not stmts or not isinstance(stmts[-1], ast.Return):
            # falling off the end returns None: a function that modifies its list arguments
            end = fdef.body[-1] if fdef.body else fdef
            stmts = [*stmts, ast.copy_location(ast.Return(value=None), end)]
        self.result_rank = self.result_shape_rank(stmts)
        body = self.block(stmts[:-1])
        last = stmts[-1]
        assert isinstance(last, ast.Return)
        body.append(self.ret(last))
        result = None
        if self.result is not None:
            elem = self.result_elem or INT
            elem_cxx = "float" if elem.is_float else "int"
            result = self.result_interface(params, body, elem, elem_cxx, mod.loc(fdef), mod.loc(fdef), "list")
        ret = body[-1]
        assert isinstance(ret, Return)
        fn = Function(
            name=self.name,
            params=tuple(params),
            return_dtype=None if ret.value is None else ret.value.dtype,
            locals=tuple(self.locals.items()),
            body=tuple(body),
            source=mod.text,
            loc=mod.loc(fdef),
            cxx=CxxInterface(tuple(signature), result),
            python=PythonInterface(mod.filename, mod.int_true_division, mod.float_of_int, tuple(self.arg_guards),
                                   tuple(sorted(self.written_lists))),
            requires=tuple(self.requires),
        )
        for site in unobserved_sites(fn):
            raise BadInput(
                f"{'the value' if site.target.startswith('__') else repr(site.target) + ': the value'} computed here "
                "is never used, or only under a condition or by a later "
                f"iteration, but computing it can raise ({_SITE_RAISES[site.kind]}), and Python raises whether or not "
                "the value is used: the summary would not show where (not supported; use the value or remove the "
                "computation)", site.loc)
        return fn

    def result_shape_rank(self, stmts: list[ast.stmt]) -> int:
        """Rank of the returned list (0: a number is returned): 2 when a list created
        with ``x = []`` is appended to it."""
        last = stmts[-1]
        assert isinstance(last, ast.Return)
        if not isinstance(last.value, ast.Name):
            return 0
        name = last.value.id
        empty = {
            t.id
            for node in (n for s in stmts for n in ast.walk(s))
            for t in (
                node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
            )
            if isinstance(t, ast.Name) and isinstance(getattr(node, "value", None), ast.List)
        }
        if name not in empty:
            return 0
        for node in (n for s in stmts for n in ast.walk(s)):
            pair = appended_name(node)
            if pair is not None and pair[0] == name and pair[1] in empty:
                return 2
        return 1

    def ret(self, s: ast.Return) -> Return:
        loc = self.mod.loc(s)
        if s.value is None or (isinstance(s.value, ast.Constant) and s.value.value is None):
            if not self.written_lists:
                self.fail(f"function '{self.name}' must return a value (a number or the list it builds) "
                          "or modify a list argument", s)
            return Return(None, loc)
        if self.written_lists and self.result is not None:
            self.fail("returning a list built with append from a function that also modifies a list argument "
                      "is not supported", s)
        if isinstance(s.value, ast.Name):
            match self.env.get(s.value.id):
                case ResultList():
                    return Return(None, loc)
                case ListParam() | ResultRow():
                    self.fail(f"returning list '{s.value.id}' is not supported (only the list the function builds with append)", s)
        return Return(self.expr(s.value), loc)

    def expr(self, node: ast.expr) -> Expr:
        return self.mod.expr(node, self)

    def cond(self, node: ast.expr) -> Cond:
        return self.mod.cond(node, self)

    # ----------------------------------------------------------- statements

    def block(self, stmts: list[ast.stmt]) -> list[Stmt]:
        self.blocks.append(stmts)
        out: list[Stmt] = []
        if len(self.blocks) == 1:
            self.top_emitted = out
        self.emitted_stack.append(out)
        try:
            for s in stmts:
                out.extend(self.stmt(s, out))
        finally:
            self.blocks.pop()
            self.emitted_stack.pop()
        return out

    def stmt(self, s: ast.stmt, emitted: list[Stmt]) -> list[Stmt]:
        match s:
            case ast.Pass() | ast.Assert():
                return []
            case ast.Expr() if is_docstring(s):
                return []
            case ast.Expr(value=ast.Call(func=ast.Attribute(attr="append"))):
                return self.append(s)
            case ast.Expr(value=ast.Call(func=ast.Name(id=helper)) as call) if (
                    helper in self.mod.defs and helper not in self.local_names and self.is_check_position()):
                return self.validation_call(s, call, helper, emitted)
            case ast.Expr(value=ast.Call() as call):
                self.fail(f"call '{ast.unparse(call)}' as a statement is not supported", s)
            case ast.Expr():
                self.fail(f"expression statement '{ast.unparse(s)}' has no effect", s)
            case ast.If() if self.is_arg_guard(s):
                return self.arg_guard(s, emitted)
            case ast.If():
                return self.if_stmt(s)
            case ast.For() | ast.While() | ast.Return() | ast.Break() | ast.Continue() if self.guard is not None:
                self.fail(f"{describe(s)} inside if is not supported", s)
            case ast.For():
                return self.for_loop(s)
            case ast.While():
                return [self.while_loop(s, emitted)]
            case ast.Assign() | ast.AnnAssign() | ast.AugAssign():
                return self.guarded_lowering(self, lambda: self.assignment(s))
            case ast.Return():
                self.fail("return before the end of the function is not supported", s)
        self.fail(f"{describe(s)} is not supported", s)

    def assignment(self, s: ast.Assign | ast.AnnAssign | ast.AugAssign) -> list[Stmt]:
        match s:
            case ast.Assign(targets=targets) if len(targets) != 1:
                self.fail("chained assignment 'a = b = E' is not supported", s)
            case ast.Assign(targets=[ast.Name(id=name)], value=ast.List(elts=[])):
                return self.list_decl(name, s, None)
            case ast.AnnAssign(target=ast.Name(id=name), annotation=ann, value=ast.List(elts=[])):
                return self.list_decl(name, s, ann)
            case ast.Assign(targets=[ast.Name(id=name)], value=value):
                return [self.assign(name, self.expr(value), s)]
            case ast.AnnAssign(target=ast.Name(id=name), annotation=ann, value=value):
                t = self.mod.annotation(ann, f"'{name}'")
                if t is None or t.rank != 0:
                    self.fail(f"local list '{name}' is not supported (only 'out = []' for the returned list)", s)
                if t.dtype == DOUBLE and name not in self.params and self.locals.get(name) != DOUBLE:
                    # 'x: float = 0': x is a float variable
                    if name in self.locals:
                        if name in self.loop_names():
                            self.fail(f"loop variable '{name}' is also annotated as a float", s)
                        self.promoted[name] = DOUBLE
                    self.locals[name] = DOUBLE
                    self.env[name] = Scalar(DOUBLE)
                if value is None:
                    return []
                return [self.assign(name, self.expr(value), s)]
            case ast.AugAssign(target=ast.Name(id=name), op=op, value=value):
                b = self.env.get(name)
                if isinstance(b, ListParam | ResultList | ResultRow):
                    self.fail(f"'{ast.unparse(s)}' on list '{name}' is not supported (only append)", s)
                current = self.read(name, s.target)
                return [self.assign(name, self.mod.binop(op, current, value, self, s), s)]
        target = s.targets[0] if isinstance(s, ast.Assign) else s.target
        if isinstance(target, ast.Subscript):
            root: ast.expr = target
            while isinstance(root, ast.Subscript):
                root = root.value
            b = self.env.get(root.id) if isinstance(root, ast.Name) else None
            if isinstance(b, ListParam) and s.value is not None:
                return [self.store_element(b, target, s)]
            if isinstance(b, ResultList | ResultRow):
                self.fail("assigning to an element of the list being built is not supported (only append)", target)
            self.fail(f"assignment to '{ast.unparse(target)}' is not supported", target)
        if isinstance(target, ast.Tuple | ast.List):
            self.fail("tuple assignment is not supported", target)
        if isinstance(s, ast.Assign | ast.AnnAssign) and isinstance(s.value, ast.List | ast.ListComp):
            self.fail("a list literal is not supported (only 'out = []' for the returned list)", s.value)
        self.fail(f"assignment to '{ast.unparse(target)}' is not supported", target)

    def store_element(self, b: ListParam, target: ast.Subscript, s: ast.Assign | ast.AnnAssign | ast.AugAssign) -> Store:
        """``xs[i] = E``, ``m[i][j] = E`` (and ``op=``): the list argument is modified in
        place (Python passes the list object itself); its element type is kept: a float is
        not stored into a list of ints, an int into a list of floats only as a literal."""
        if isinstance(s, ast.AnnAssign):
            self.fail("an annotated assignment to a list element is not supported", s)
        if b.rank == 3:
            self.fail(f"assigning to an element of the 3-D list '{b.name}' is not supported", target)
        if b.rank == 2 and not isinstance(target.value, ast.Subscript):
            self.fail(f"assigning a whole row '{ast.unparse(target)}' of the list of lists '{b.name}' is not "
                      "supported (assign its elements)", target)
        current = self.mod.subscript(target, self)  # the element (refuses rows, bad indices)
        assert isinstance(current, Load)
        loc = self.mod.loc(s)
        assert s.value is not None
        if isinstance(s, ast.AugAssign):
            value = self.mod.binop(s.op, current, s.value, self, s)
        else:
            value = self.expr(s.value)
        if value.dtype != b.elem:
            if b.elem == INT:
                self.fail(f"storing a float into the list of ints '{b.name}' is not supported "
                          "(annotate it as a list of floats)", s)
            if not (isinstance(value, Const) and abs(value.value) <= 2**53):
                self.fail(f"storing the int '{ast.unparse(s.value)}' into the list of floats '{b.name}' is not "
                          "supported (Python keeps an int there; write float(...))", s)
        self.written_lists.add(b.name)
        self.written.add(b.name)
        return Store(b.name, current.index, convert(value, b.elem), loc, current.row)

    def assign(self, name: str, value: Expr, node: ast.stmt) -> Assign:
        """``name = value`` for a number variable (its type joins the value's)."""
        loc = self.mod.loc(node)
        b = self.env.get(name)
        if isinstance(b, ListParam | ResultList | ResultRow):
            self.fail(f"assigning a number to list '{name}' is not supported", node)
        if name in self.loop_vars:
            self.fail(f"assigning the loop variable '{name}' inside its loop is not supported", node)
        if name in self.params:
            assert isinstance(b, Scalar)
            if b.dtype == INT and value.dtype == DOUBLE:
                self.fail(f"assigning a float to int parameter '{name}' is not supported", node)
            self.assigned.add(name)
            return Assign(name, convert(value, b.dtype), loc)
        dtype = self.locals.get(name) or self.types.get(name) or value.dtype
        if dtype == INT and value.dtype == DOUBLE:
            if name in self.loop_names():
                self.fail(f"loop variable '{name}' is also assigned a float", node)
            self.promoted[name] = DOUBLE  # run again with name as a float
            dtype = DOUBLE
        self.locals[name] = dtype
        self.env[name] = Scalar(dtype)
        self.assigned.add(name)
        return Assign(name, convert(value, dtype), loc)

    def loop_names(self) -> set[str]:
        return {n for n, b in self.env.items() if isinstance(b, DeadLoopVar)} | set(self.loop_vars)

    # ----------------------------------------------------------- lists

    def list_decl(self, name: str, node: ast.stmt, ann: ast.expr | None) -> list[Stmt]:
        """``out = []``: the returned list (at the top of the body) or a row of it (in a
        loop body whose last statement is ``out.append(row)``)."""
        loc = self.mod.loc(node)
        b = self.env.get(name)
        if isinstance(b, ListParam | Scalar) and name in self.params:
            self.fail(f"rebinding parameter '{name}' to a list is not supported", node)
        elem: DType | None = None
        if ann is not None:
            t = self.mod.annotation(ann, f"'{name}'")
            if t is not None and t.rank == 0:
                self.fail(f"'{name}' is annotated as a number but assigned a list", node)
            elem = t.dtype if t is not None else None
        if not self.loops and self.guard is None:
            if self.result_rank == 0:
                self.fail(f"local list '{name}' is not supported (a local list must be the one the function returns)", node)
            if self.result is not None or isinstance(b, Scalar):
                self.fail(f"a second local list '{name}' is not supported (only the returned one)", node)
            if elem is not None and self.result_elem is None:
                self.result_elem = elem
            length, init = self.result_length(name, self, loc)
            self.result = ResultList(name, self.result_rank, name, length)
            self.env[name] = self.result
            return init
        items = self.blocks[-1] if self.blocks else []
        last = items[-1] if items else None
        r = self.result
        if self.guard is not None or r is None or r.rank != 2 or not appends(last, r.name, name) or (
            b is not None and not isinstance(b, ResultRow)
        ):
            want = f"{r.name}.append({name})" if r is not None else "out.append(row)"
            self.fail(
                f"local list '{name}' is not supported: a list created inside a loop must be a row "
                f"of the returned list of lists, appended by the last statement of its block ('{want}')",
                node,
            )
        if elem is not None and self.result_elem is None:
            self.result_elem = elem
        assert last is not None
        self.env[name] = ResultRow(name, r.name, len(self.loops), last)
        return []

    def append(self, s: ast.Expr) -> list[Stmt]:
        """``v.append(E)`` on the returned list or one of its rows: store ``E`` at the
        result's next element and count it. Refused under an ``if`` (the length of the
        result would depend on the data)."""
        call = s.value
        assert isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
        loc = self.mod.loc(s)
        if call.keywords or len(call.args) != 1:
            self.fail("append takes one argument", s)
        obj = call.func.value
        if not isinstance(obj, ast.Name):
            self.fail(f"append on '{ast.unparse(obj)}' is not supported", s)
        if self.guard is not None:
            self.fail("append inside if is not supported (the length of the result would depend on the data)", s)
        b = self.env.get(obj.id)
        arg = call.args[0]
        match b:
            case ResultList(rank=1):
                return self.push_element(b, b, self.element(self.expr(arg)), loc)
            case ResultRow(into=into):
                into_b = self.env.get(into)
                assert isinstance(into_b, ResultList)
                return self.push_element(b, into_b, self.element(self.expr(arg)), loc)
            case ResultList():
                row = self.env.get(arg.id) if isinstance(arg, ast.Name) else None
                if not self.is_row_push(b, row, s):
                    self.fail(
                        f"{b.name}.append takes the row list created in the same block, as that block's last statement",
                        s,
                    )
                self.push_row(loc)
                return []
            case ListParam():
                self.fail(f"append to parameter '{obj.id}' is not supported (the kernel may not modify its arguments)", s)
            case None if obj.id not in self.local_names:
                self.read(obj.id, obj)
        self.fail(f"append on '{obj.id}', which is not the list the function builds, is not supported", s)

    def element(self, value: Expr) -> Expr:
        """``value`` appended to the returned list, converted to its element type: the join
        of the types of all appended values (a float promotes an int list: run again)."""
        elem = self.result_elem or value.dtype
        if elem == INT and value.dtype == DOUBLE:
            self.promoted[RESULT_KEY] = DOUBLE
            elem = DOUBLE
        self.result_elem = elem
        return convert(value, elem)

    # ----------------------------------------------------------- loops

    def for_loop(self, s: ast.For) -> list[Stmt]:
        loc = self.mod.loc(s)
        if s.orelse:
            self.fail("for-else is not supported", s.orelse[0])
        if not isinstance(s.target, ast.Name):
            self.fail(f"for loop target '{ast.unparse(s.target)}' is not supported (only a variable)", s.target)
        var = s.target.id
        if var in self.params:
            self.fail(f"loop variable '{var}' is a parameter", s.target)
        if var in self.loop_vars:
            self.fail(f"loop variable '{var}' is already the variable of an enclosing loop", s.target)
        if isinstance(self.env.get(var), ListParam | ResultList | ResultRow):
            self.fail(f"loop variable '{var}' is a list", s.target)
        it = s.iter
        pre: list[Stmt] = []
        each: ListParam | None = None
        descending = False
        if (isinstance(it, ast.Call) and is_name(it.func, "reversed") and "reversed" not in self.local_names
                and len(it.args) == 1 and not it.keywords and isinstance(it.args[0], ast.Call)
                and is_name(it.args[0].func, "range")):
            # reversed(range(a, b)): the same iterations, from b - 1 down to a
            self.mod.stable_builtin("reversed", it.func)
            descending, it = True, it.args[0]
            if len(it.args) == 3 and not is_int_literal(it.args[2], 1):
                self.fail(f"reversed(range()) with step '{ast.unparse(it.args[2])}' is not supported (only 1)", it.args[2])
        if (isinstance(it, ast.Call) and is_name(it.func, "reversed") and "reversed" not in self.local_names
                and len(it.args) == 1 and not it.keywords and isinstance(it.args[0], ast.Name)
                and isinstance(self.env.get(it.args[0].id), ListParam)):
            # reversed(xs): the elements from the last to the first (a descending loop)
            self.mod.stable_builtin("reversed", it.func)
            descending, it = True, it.args[0]
        if isinstance(it, ast.Call) and is_name(it.func, "range") and "range" not in self.local_names:
            self.mod.stable_builtin("range", it.func)
            if it.keywords:
                self.fail("keyword arguments are not supported", it.keywords[0])
            args = it.args
            if not 1 <= len(args) <= 3:
                self.fail(f"range() with {len(args)} arguments", it)
            down = len(args) == 3 and not descending and (
                isinstance(args[2], ast.UnaryOp) and isinstance(args[2].op, ast.USub) and is_int_literal(args[2].operand, 1))
            if len(args) == 3 and not is_int_literal(args[2], 1) and not down:
                self.fail(f"range() step '{ast.unparse(args[2])}' is not supported (only 1 and -1)", args[2])
            bounds = [self.loop_bound(a) for a in args[:2]]
            start, stop = (Const(0, INT, loc), bounds[0]) if len(bounds) == 1 else (bounds[0], bounds[1])
            if down:  # range(a, b, -1): a, a - 1, ..., b + 1 -- the iterations b + 1 .. a descending
                start, stop, descending = plus_one(bounds[1], loc), plus_one(bounds[0], loc), True
            counter = var
            if self.locals.get(var, INT) != INT:
                self.fail(f"loop variable '{var}' is also assigned a float", s.target)
        elif isinstance(it, ast.Name) and isinstance(self.env.get(it.id), ListParam):
            lp = self.env[it.id]
            assert isinstance(lp, ListParam)
            if lp.rank != 1:
                self.fail(f"iterating over the rows of '{lp.name}' is not supported (use range(len({lp.name})))", it)
            each = lp
            counter = self.fresh(f"{var}__k")
            start, stop = Const(0, INT, loc), Var(lp.sizes[0], INT, loc)
        else:
            self.fail(
                f"for loop over '{ast.unparse(it)}' is not supported (only range(...) or a list parameter)", it
            )
        self.locals[counter] = INT
        with self.loop_body((counter, start, stop), self):
            head: list[Stmt] = []
            if each is not None:
                head = [self.assign(var, Load(each.name, Var(counter, INT, loc), each.elem, loc), s)]
            else:
                self.env[var] = Scalar(INT)
            self.assigned.add(counter)
            body = head + self.block(list(s.body))
        self.env[var] = DeadLoopVar(var)
        written = names_written(body)
        if counter in written:  # pragma: no cover - assignments to it are refused
            self.fail(f"loop variable '{var}' is assigned in the loop body", s)
        if names_read(stop) & (written | {counter}):
            # Python evaluates range() once: keep the bound in a fresh local
            snap = self.fresh("__stop")
            self.locals[snap] = INT
            pre.append(Assign(snap, stop, loc))
            stop = Var(snap, INT, loc)
        if counter in names_read(start) or (descending and names_read(start) & written):
            snap = self.fresh("__start")
            self.locals[snap] = INT
            pre.append(Assign(snap, start, loc))
            start = Var(snap, INT, loc)
        return [*pre, For(counter, start, stop, tuple(body), loc, descending)]

    def loop_bound(self, node: ast.expr) -> Expr:
        e = self.expr(node)
        if e.dtype.is_float:
            self.fail(f"range() bound '{ast.unparse(node)}' is a float (an int is needed)", node)
        return e

    def while_loop(self, s: ast.While, emitted: list[Stmt]) -> For:
        """``i = E0; while i < E: body; i += 1`` → ``for (i = E0; i < E; i++) body``;
        after the loop ``i`` is ``max(E0, E)``, as in Python."""
        loc = self.mod.loc(s)
        if s.orelse:
            self.fail("while-else is not supported", s.orelse[0])
        test = s.test
        counter: str | None = None
        bound_node: ast.expr | None = None
        inclusive = False
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            op, left, right = test.ops[0], test.left, test.comparators[0]
            if isinstance(op, ast.Lt | ast.LtE) and isinstance(left, ast.Name):
                counter, bound_node, inclusive = left.id, right, isinstance(op, ast.LtE)
            elif isinstance(op, ast.Gt | ast.GtE) and isinstance(right, ast.Name):
                counter, bound_node, inclusive = right.id, left, isinstance(op, ast.GtE)
        if counter is None or bound_node is None:
            self.fail(
                f"while loop condition '{ast.unparse(test)}' is not supported "
                "(only i < E, i <= E, E > i, E >= i with a counter i incremented by 1 at the end of the body)",
                test,
            )
        body_nodes = list(s.body)
        last = body_nodes[-1]
        increments = (
            isinstance(last, ast.AugAssign) and isinstance(last.op, ast.Add) and is_name(last.target, counter)
            and is_int_literal(last.value, 1)
        ) or (
            isinstance(last, ast.Assign) and len(last.targets) == 1 and is_name(last.targets[0], counter)
            and isinstance(last.value, ast.BinOp) and isinstance(last.value.op, ast.Add)
            and (
                (is_name(last.value.left, counter) and is_int_literal(last.value.right, 1))
                or (is_int_literal(last.value.left, 1) and is_name(last.value.right, counter))
            )
        )
        if not increments:
            self.fail(f"while loop body must end with '{counter} += 1' (a counted loop)", last)
        b = self.env.get(counter)
        if counter in self.params or not isinstance(b, Scalar) or counter not in self.assigned:
            self.fail(f"while loop counter '{counter}' must be a local int variable assigned before the loop", test)
        if b.dtype != INT:
            self.fail(f"while loop counter '{counter}' is a float", test)
        if counter in self.loop_vars:
            self.fail(f"'{counter}' is already the counter of an enclosing loop", test)
        bound = self.expr(bound_node)
        if bound.dtype.is_float:
            self.fail(f"while loop bound '{ast.unparse(bound_node)}' is a float (an int is needed)", bound_node)
        stop: Expr = bound
        if inclusive:
            stop = Binary("+", bound, Const(1, INT, loc), INT, loc)
        start = self.counter_start(counter, emitted, loc)
        with self.loop_body((counter, start, stop), self):
            body = self.block(body_nodes[:-1])
        self.assigned.add(counter)
        written = names_written(body)
        for name, _ in vars_read(stop):
            if name == counter or name in written:
                self.fail(f"while loop bound reads '{name}', which the loop body writes", bound_node)
        return For(counter, start, stop, tuple(body), loc)

    def counter_start(self, counter: str, emitted: list[Stmt], loc: SourceLoc) -> Expr:
        """The value the counter has when the loop starts: the expression of its last
        assignment in the current block when nothing after it changes what it reads,
        else the variable itself."""
        later: set[str] = set()
        for st in reversed(emitted):
            if isinstance(st, Assign) and st.target == counter:
                reads = names_read(st.value)
                if not (reads & later) and counter not in reads:
                    return st.value
                break
            later |= names_written([st])
            if counter in later:
                break
        return Var(counter, INT, loc)

    # ----------------------------------------------------------- argument checks

    def is_check_position(self) -> bool:
        """Among the top-level statements (where argument checks may be)."""
        return not self.loops and self.guard is None and len(self.blocks) == 1

    def validation_call(self, s: ast.Expr, call: ast.Call, helper: str, emitted: list[Stmt]) -> list[Stmt]:
        """``helper(a, b)`` as a statement: a validation helper (it only inspects its
        arguments, with ``if`` / ``for`` / ``isinstance`` / ``len`` ..., and raises), called
        with parameters. Its text runs in the generated entry on the objects given, in the
        order of the argument checks (:class:`~tenspiler.loops.ir.ArgGuard` ``call``)."""
        if any(isinstance(st, For) for st in emitted):
            self.fail("a validation call after a loop is not supported (only before the first loop)", s)
        self.no_row_reads_before(s)
        for st in emitted:
            if isinstance(st, Assign) and _may_raise(st.value):
                self.fail(f"a validation call after a statement that may raise ({_may_raise(st.value)}) is not supported",
                          s)
        self.mod.stable_helper(helper, call.func)
        if call.keywords:
            self.fail("keyword arguments are not supported", call.keywords[0])
        args: list[str] = []
        for a in call.args:
            if isinstance(a, ast.Constant) and type(a.value) in (str, int, float):
                args.append(repr(a.value))  # a literal, passed as written
                continue
            if not (isinstance(a, ast.Name) and a.id in self.params):
                self.fail(f"the argument '{ast.unparse(a)}' of the validation call is not a parameter or a literal", a)
            if a.id in self.assigned_before(emitted):
                self.fail(f"parameter '{a.id}' is assigned before the validation call", a)
            args.append(a.id)
        fdef = self.mod.defs[helper]
        params = self.mod.plain_params(fdef)
        if len(args) != len(params):
            self.fail(f"call to '{helper}' with {len(args)} arguments; it takes {len(params)}", call)
        text = validation_source(self.mod, fdef)
        self.arg_guards.append(ArgGuard(None, None, "", None, self.mod.loc(s), (text, helper, tuple(args))))
        return []

    def is_arg_guard(self, s: ast.If) -> bool:
        """``if C: raise E(...)`` / ``if C: return N`` (``elif`` chains of them) among the
        top-level statements before the first loop."""
        if not self.is_check_position():
            return False
        while True:
            body = [b for b in s.body if not isinstance(b, ast.Pass)]
            while len(body) > 1 and _is_message_assign(body[0]):
                body = body[1:]
            if len(body) != 1 or not isinstance(body[0], ast.Raise | ast.Return):
                return False
            if not s.orelse:
                return True
            if len(s.orelse) != 1 or not isinstance(s.orelse[0], ast.If):
                return False
            s = s.orelse[0]

    def arg_guard(self, s: ast.If, emitted: list[Stmt]) -> list[Stmt]:
        """An argument check (:class:`~tenspiler.loops.ir.ArgGuard`): its condition over the
        entry values (locals assigned before it by straight-line code substituted), which
        must not raise; the statements before it must not raise either (Python would raise
        there first)."""
        if any(isinstance(st, For) for st in emitted) or (self.result is not None and any(
                isinstance(st, Store) for st in emitted)):
            self.fail("an argument check after a loop is not supported (only before the first loop)", s)
        self.no_row_reads_before(s)
        values: dict[str, Expr] = {}
        for st in emitted:
            if isinstance(st, Assign):
                why = _may_raise(st.value)
                if why:
                    self.fail(f"an argument check after a statement that may raise ({why}) is not supported", s)
                values[st.target] = _subst(st.value, values)
        arms: list[ast.If] = [s]
        while arms[-1].orelse:
            nxt = arms[-1].orelse[0]
            assert isinstance(nxt, ast.If)
            arms.append(nxt)
        for arm in arms:
            cond = _subst_cond(self.cond(arm.test), values)
            why = _may_raise_cond(cond)
            if why:
                self.fail(f"the condition of an argument check may raise ({why}): not supported", arm.test)
            params_read = {n for n, _ in cond_vars_read(cond)}
            for name in params_read:
                if name not in self.params and not self.is_size(name):
                    self.fail(f"the condition of an argument check reads '{name}', which is not a parameter "
                              "or a value computed from parameters before it", arm.test)
                if name in self.params and name in self.assigned_before(emitted):
                    self.fail(f"the condition of an argument check reads parameter '{name}' after it is assigned", arm.test)
            body = [b for b in arm.body if not isinstance(b, ast.Pass)]
            messages: dict[str, str] = {}
            while len(body) > 1 and _is_message_assign(body[0]):
                first = body[0]
                assert isinstance(first, ast.Assign) and isinstance(first.targets[0], ast.Name)
                v = first.value
                messages[first.targets[0].id] = str(v.value) if isinstance(v, ast.Constant) else ast.unparse(v)
                body = body[1:]
            stmt = body[0]
            loc = self.mod.loc(arm)
            if isinstance(stmt, ast.Raise):
                exc, message = self.raised(stmt, messages)
                self.arg_guards.append(ArgGuard(cond, exc, message, None, loc))
            else:
                assert isinstance(stmt, ast.Return)
                if stmt.value is None:
                    self.fail("an early 'return' without a value is not supported", stmt)
                value = _subst(self.expr(stmt.value), values)
                if not isinstance(value, Const):
                    self.fail(f"an early return of '{ast.unparse(stmt.value)}' is not supported (only a number literal)",
                              stmt.value)
                if self.result_rank:
                    self.fail("an early return of a number from a function returning a list", stmt)
                self.arg_guards.append(ArgGuard(cond, None, "", value, loc))
        return []

    def no_row_reads_before(self, s: ast.stmt) -> None:
        """Refuse an argument check or validation call ``s`` whose condition, or a statement
        before which, subscripts a list: ``len(m[0])`` is a row length in the model but
        raises ``IndexError`` in Python when ``m`` is empty."""
        block = self.blocks[-1] if self.blocks else []
        before = block[: next((k for k, b in enumerate(block) if b is s), len(block))]
        tests = [s.test] if isinstance(s, ast.If) else []
        node = s
        while isinstance(node, ast.If) and node.orelse and isinstance(node.orelse[0], ast.If):
            node = node.orelse[0]
            tests.append(node.test)
        for part in [*before, *tests]:
            for n in ast.walk(part):
                if isinstance(n, ast.Subscript):
                    self.fail(f"an argument check after, or with, a list subscript '{ast.unparse(n)}' is not "
                              "supported (Python raises IndexError there when the list is empty)", n)

    def row_read(self, lp: ListParam, indices: tuple[Expr, ...], node: ast.expr) -> None:
        """``len(m[i])`` (``indices`` ``(i,)``) or ``len(x[p][r])`` (``(p, r)``): Python
        raises ``IndexError`` when a subscript is not below its list's length. Exact in two
        cases, refused otherwise: (1) each index is a counter ``k`` of an enclosing loop over
        ``[s, n)`` with ``s >= 0`` a literal and ``n`` that length (a literal index ``c <= s``
        too), so the row exists whenever the loop body runs; (2) a literal index ``c >= 0``
        in the top-level straight-line code, after nothing that may raise: an argument check
        ``length <= c`` raising ``IndexError('list index out of range')`` (the model's row
        length is otherwise read from a row that does not exist)."""
        loc = self.mod.loc(node)
        for level, idx in enumerate(indices):
            size = lp.sizes[level]
            if self.row_exists_in_loop(size, idx):
                continue
            why = (f"len({ast.unparse(node)}) where '{lp.name}' may have no such row (Python raises IndexError) is "
                   "not supported")
            if not (isinstance(idx, Const) and isinstance(idx.value, int) and idx.value >= 0):
                self.fail(f"{why}: the index is neither a literal nor the counter of a loop over its rows", node)
            if self.guard is not None:
                self.fail(f"{why}: inside a branch", node)
            cond: Cond = Compare("<=", Var(size, INT, loc), Const(idx.value, INT, loc), loc)
            if self.loops:
                # evaluated first in the first iteration of every enclosing loop: it raises
                # iff each loop runs (bounds over the entry values) and the row is missing
                cond = self.runs_first(why, node, cond, loc)
            else:
                for st in self.top_emitted:
                    if isinstance(st, For):
                        self.fail(f"{why}: after a loop (only before the first loop)", node)
                    if isinstance(st, Assign | Store) and _may_raise(st.value):
                        self.fail(f"{why}: after a statement that may raise ({_may_raise(st.value)})", node)
            guard = ArgGuard(cond, "IndexError", "list index out of range", None, loc)
            if guard not in self.arg_guards:
                self.arg_guards.append(guard)

    def runs_first(self, why: str, node: ast.expr, cond: Cond, loc: SourceLoc | None) -> Cond:
        """``cond`` conjoined with "every enclosing loop runs", over the entry values: the
        condition under which Python reaches the statement being lowered in the first
        iteration of every enclosing loop, before anything that may raise. Refused unless
        nothing emitted before it (at the top level and in the enclosing loop bodies) may
        raise, and the loops' bounds are over parameters and list sizes no statement assigns."""
        values: dict[str, Expr] = {}
        for depth, emitted in enumerate(self.emitted_stack):
            for st in emitted:
                bad = _stmt_may_raise(st)
                if bad:
                    self.fail(f"{why}: after a statement that may raise ({bad})", node)
                if depth == 0 and isinstance(st, Assign):
                    values[st.target] = _subst(st.value, values)
        assigned = set().union(*(names_written(e) for e in self.emitted_stack))
        for _, start, stop in self.loops:
            runs = Compare("<", _subst(start, values), _subst(stop, values), loc)
            for name, _ in cond_vars_read(runs):
                if not (name in self.params or self.is_size(name)) or name in assigned - set(values):
                    self.fail(f"{why}: inside a loop whose bounds are not parameters or list sizes", node)
            if _may_raise_cond(runs):
                self.fail(f"{why}: inside a loop whose bounds may raise", node)
            cond = Logical("&&", runs, cond, loc)
        return cond

    def row_exists_in_loop(self, size: str, idx: Expr) -> bool:
        """Whether the body of an enclosing loop over ``[s, size)`` (``s >= 0`` a literal;
        ``size`` directly or through a local assigned it once at the top level) is where
        ``idx`` is read, with ``idx`` that loop's counter or a literal ``<= s``."""
        for var, start, stop in self.loops:
            if not (isinstance(start, Const) and isinstance(start.value, int) and start.value >= 0):
                continue
            if not self.is_length(stop, size):
                continue
            if idx == Var(var, INT) or (isinstance(idx, Const) and isinstance(idx.value, int)
                                        and 0 <= idx.value <= start.value):
                return True
        return False

    def is_length(self, e: Expr, size: str) -> bool:
        """``e`` is at most the size parameter ``size``: ``size`` itself, a local assigned it
        once at the top level, or the minimum of two values one of which is (``zip``)."""
        if isinstance(e, Select) and isinstance(e.cond, Compare) and e.cond.op in ("<", "<=", ">", ">="):
            lo, hi = (e.cond.left, e.cond.right) if e.cond.op in ("<", "<=") else (e.cond.right, e.cond.left)
            return (e.then, e.else_) == (lo, hi) and (self.is_length(lo, size) or self.is_length(hi, size))
        if not isinstance(e, Var):
            return False
        if e.name == size:
            return True
        stores = [n for s in self.body_stmts for n in ast.walk(s)
                  if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id == e.name]
        return len(stores) == 1 and any(isinstance(st, Assign) and st.target == e.name and st.value == Var(size, INT)
                                        for st in self.top_emitted)

    def is_size(self, name: str) -> bool:
        return any(isinstance(b, ListParam) and name in b.sizes for b in self.env.values())

    @staticmethod
    def assigned_before(emitted: list[Stmt]) -> set[str]:
        return {st.target for st in emitted if isinstance(st, Assign)}

    def raised(self, r: ast.Raise, messages: dict[str, str] | None = None) -> tuple[str, str]:
        """``raise E`` / ``raise E("literal")`` / ``raise E(msg)`` (``msg`` one of the
        ``messages`` assigned just before) of a builtin exception class ``E``: its name and
        message."""
        messages = messages or {}
        if r.cause is not None:
            self.fail("'raise ... from ...' is not supported", r.cause)
        exc = r.exc
        message = ""
        if isinstance(exc, ast.Call):
            if exc.keywords or len(exc.args) > 1:
                self.fail(f"exception arguments '{ast.unparse(exc)}' are not supported (one message at most)", exc)
            if exc.args:
                a = exc.args[0]
                if isinstance(a, ast.Constant) and isinstance(a.value, str):
                    message = a.value
                elif not isinstance(a, ast.JoinedStr | ast.Name | ast.Constant):
                    self.fail(f"exception message '{ast.unparse(a)}' is not supported", a)
                elif isinstance(a, ast.Name) and a.id in messages:
                    message = messages[a.id]
                elif isinstance(a, ast.JoinedStr) and _is_message_assign(ast.Assign(targets=[], value=a)):
                    message = ast.unparse(a)
                else:
                    self.fail(f"exception message '{ast.unparse(a)}' is not supported (a string literal, an "
                              "f-string of names, or a name assigned one just before)", a)
            exc = exc.func
        if not isinstance(exc, ast.Name) or exc.id not in _EXCEPTIONS:
            what = ast.unparse(exc) if exc is not None else "(re-raise)"
            self.fail(f"raising '{what}' is not supported (only a builtin exception class)", r)
        if exc.id in self.local_names or exc.id in self.params:
            self.fail(f"'{exc.id}' is a local of the function, not the builtin exception", exc)
        self.mod.stable_builtin(exc.id, exc)
        return exc.id, message

    # ----------------------------------------------------------- if-conversion

    def if_stmt(self, s: ast.If) -> list[Stmt]:
        """If-conversion, as in the C frontend: ``__ifK = C ? 1 : 0`` once, then the
        then-statements guarded by ``__ifK != 0`` and the else-statements by
        ``__ifK == 0`` (conjoined with the enclosing guard)."""
        loc, cloc = self.mod.loc(s), self.mod.loc(s.test)
        return self.convert_if(
            self, loc, Const(0, INT, cloc), lambda flag: [self.flag_assignment(flag, self.cond(s.test), loc, cloc)],
            lambda: self.block(list(s.body)), (lambda: self.block(list(s.orelse))) if s.orelse else None,
        )
