"""Where a Python kernel raises: the exceptions generated code must raise as Python does.

A Python function raises ``ZeroDivisionError`` on ``x / 0``, ``x // 0`` and ``x % 0``,
``ValueError`` on ``math.sqrt`` of a negative number and ``math.log`` of a non-positive one,
``OverflowError`` on ``math.exp`` of a number above 709.78… (its result would not be finite).
The proof is about the inputs on which none of this happens (on the others the source has
no value); there the generated code must raise the same exception, before computing
anything. NumPy and the array libraries raise nothing there (they give ±inf or NaN).

:func:`raise_checks` finds each such operation (a *site*) in the summary and builds, as a
TensIR term, the number of elements on which it raises: its condition (``divisor == 0``,
``arg < 0`` …) under the conditions of the selects around it (Python evaluates one branch
of a conditional), counted over the elements of the elementwise tensor it is computed in.
Which of the source's operations a site stands for decides whether Python evaluates it once
per loop iteration (a site inside a loop raises only if the loop runs) or once (straight-line
code, e.g. ``inv = 1.0 / math.sqrt(ss / n)`` before the loop, raises even when the loop runs
no iteration): the loop IR says which operation kinds occur inside loops and which outside
(:func:`source_sites`); a scalar site of a kind that occurs in both places is refused.

The order in which Python raises two different exceptions is that of its loops, which a
summary does not keep: sites of different exception classes are refused unless each of them
is evaluated once (straight-line code, checked in evaluation order). What is left outside
this model — a summary's operation that stands for none of the source's — is the
translation validation's: its adversarial inputs hold zeros, negatives, large values and
empty lists, and the generated code must raise what the original function raises
(``tenspiler.check.python``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import cast

from tenspiler.codegen.base import output_term
from tenspiler.errors import CodegenError
from tenspiler.ir.printer import show
from tenspiler.ir.terms import (
    ArgMax,
    BoolOp,
    Cmp,
    Cond,
    Flatten,
    Full,
    Iota,
    Lit,
    Matrix,
    NotCond,
    Output,
    ReduceMax,
    ReduceProd,
    ReduceRows,
    ReduceSum,
    ScalarApply,
    ScalarCast,
    ScalarOp,
    ScalarSelect,
    ScalarVar,
    Size,
    Slice,
    Tail,
    Take,
    Tensor,
    TensorCast,
    TensorMap,
    TensorScalar,
    TensorSelect,
    TensorTensor,
    TensorVar,
    Term,
    children,
    cmp_pairs,
    is_tensor,
    length,
    rank,
)
from tenspiler.loops.ir import (
    Assign,
    Binary,
    Call,
    Cast,
    Compare,
    Const,
    DType,
    Expr,
    For,
    Function,
    Load,
    Logical,
    Not,
    Return,
    Select,
    Stmt,
    Store,
    Unary,
    Var,
)
from tenspiler.loops.ir import Cond as LCond

__all__ = ["DBL_MAX", "EXP_LIMIT", "RaiseCheck", "non_negative", "raise_checks", "row_read_checks", "source_sites"]

#: The largest double whose ``math.exp`` is finite: above it Python raises OverflowError
#: ("math range error"); ``exp(709.782712893384)`` is 1.7976931348622732e308.
EXP_LIMIT = 709.782712893384

_DIVISIONS = ("/", "//", "mod", "%")


@dataclass(frozen=True)
class RaiseCheck:
    """One site: Python raises ``exception(message)`` when ``count`` (an INT TensIR term
    over the parameters) is not 0 — the number of elements on which the site raises — or,
    for a check of the source's loops (:func:`row_read_checks`), when ``condition`` (a loop-IR
    condition over the parameters) holds."""

    exception: str
    message: str
    count: Term | None = None
    condition: LCond | None = None


def _kind(op_or_func: str) -> str:
    return "division" if op_or_func in _DIVISIONS else op_or_func


def source_sites(fn: Function) -> dict[str, set[bool]]:
    """The kinds of raising operations of ``fn``'s loop IR (``"division"`` by anything but a
    non-zero literal, ``"sqrt"``, ``"log"``, ``"exp"``, ``"pow"``) → whether they occur inside a loop
    (``True``), outside every loop (``False``), or both. ``"pow:invariant"``: the same for the
    ``pow`` operations whose operands do not change from one iteration of the enclosing loops
    to the next (the only ones a scalar ``pow`` of a summary can stand for: one whose operands
    change is an elementwise term of the summary)."""
    found: dict[str, set[bool]] = {}

    def varies(e: Expr, changing: frozenset[str]) -> bool:
        match e:
            case Var(name=name):
                return name in changing
            case Binary(left=left, right=right):
                return varies(left, changing) or varies(right, changing)
            case Load(array=array, index=index):
                return array in changing or varies(index, changing)
            case Unary(operand=operand) | Cast(operand=operand) | Call(arg=operand):
                return varies(operand, changing)
            case Select():
                return True  # (not needed by the sites yet: conservative)
        return False

    def expr(e: Expr, in_loop: bool, changing: frozenset[str] = frozenset()) -> None:
        match e:
            case Binary(op=op, left=left, right=right):
                if op in _DIVISIONS and not (isinstance(right, Const) and right.value != 0):
                    found.setdefault("division", set()).add(in_loop)
                if op == "pow":
                    found.setdefault("pow", set()).add(in_loop)
                    if not (varies(left, changing) or varies(right, changing)):
                        found.setdefault("pow:invariant", set()).add(in_loop)
                expr(left, in_loop, changing)
                expr(right, in_loop, changing)
            case Call(func=func, arg=arg):
                if func in ("sqrt", "log", "exp"):
                    found.setdefault(func, set()).add(in_loop)
                expr(arg, in_loop, changing)
            case Select(cond=c, then=then, else_=else_):
                cond(c, in_loop, changing)
                expr(then, in_loop, changing)
                expr(else_, in_loop, changing)
            case Load(index=index):
                expr(index, in_loop, changing)
            case Unary(operand=operand) | Cast(operand=operand):
                expr(operand, in_loop, changing)

    def cond(c: LCond, in_loop: bool, changing: frozenset[str]) -> None:
        match c:
            case Compare(left=left, right=right):
                expr(left, in_loop, changing)
                expr(right, in_loop, changing)
            case Logical(left=left, right=right):
                cond(left, in_loop, changing)
                cond(right, in_loop, changing)
            case Not(operand=operand):
                cond(operand, in_loop, changing)

    def written(body: Sequence[Stmt]) -> set[str]:
        out: set[str] = set()
        for s in body:
            match s:
                case Assign(target=target):
                    out.add(target)
                case Store(array=array):
                    out.add(array)
                case For(var=var, body=inner):
                    out |= {var, *written(inner)}
        return out

    def stmts(body: Sequence[Stmt], in_loop: bool, changing: frozenset[str]) -> None:
        for s in body:
            match s:
                case Assign(value=value) | Return(value=value) if value is not None:
                    expr(value, in_loop, changing)
                case Store(index=index, value=value):
                    expr(index, in_loop, changing)
                    expr(value, in_loop, changing)
                case For(var=var, start=start, stop=stop, body=inner):
                    expr(start, in_loop, changing)
                    expr(stop, in_loop, changing)
                    stmts(inner, True, changing | {var, *written(inner)})

    stmts(fn.body, False, frozenset())
    return found


def _sites(t: Term, exact_quotient: bool, fn: Function | None = None) -> list[tuple[str, str, str, Cond]]:
    """``(kind, exception, message, condition)`` of each way a node raises (``[]``: it
    cannot). ``x ** y`` of floats (``pow``): ZeroDivisionError for ``0.0 ** y``, ``y < 0``
    finite (not a site when ``y >= 0`` is known: :func:`non_negative`), OverflowError where
    finite operands give a result beyond the doubles (C's ``pow`` gives ±inf there, and
    Python raises exactly then; an infinite operand, e.g. a sum that overflowed, Python's
    ``**`` answers without calling ``pow`` and without raising). A negative base to a non-integer power is a complex number
    in Python: refused unless the base is known non-negative or the power an integer."""
    if isinstance(t, ScalarOp | TensorTensor | TensorScalar) and t.op == "pow":
        base, power = _operands(t)
        if not (_integral(power) or non_negative(base, fn)):
            raise CodegenError(
                f"'{show(t)}': Python's '**' of a base that may be negative to a power that may not be an "
                "integer is a complex number (not modelled; only a base known to be >= 0, or an int power)"
            )
        out: list[tuple[str, str, str, Cond]] = []

        def finite(u: Term) -> Cond:  # Python's float ** answers an infinite operand itself
            size: Term = TensorMap("fabs", u, u.dtype) if is_tensor(u) else ScalarApply("fabs", u, u.dtype)  # type: ignore[arg-type]
            return Cmp("<=", size, Lit(DBL_MAX, DType.DOUBLE))

        operands_finite = BoolOp("and", finite(base), finite(power))
        if not non_negative(power, fn):
            zero = Lit(0.0, base.dtype)
            out.append(("pow", "ZeroDivisionError", "0.0 cannot be raised to a negative power",
                        BoolOp("and", BoolOp("and", Cmp("==", base, zero), Cmp("<", power, zero)), finite(power))))
        out.append(("pow", "OverflowError", "(34, 'Numerical result out of range')",
                    BoolOp("and", operands_finite, NotCond(finite(t)))))
        return out
    site = _site(t, exact_quotient)
    if site is not None and site[0] == "division" and _positive(_operands(cast(ScalarOp, t))[1], fn):
        return []  # a divisor the argument checks leave positive
    return [] if site is None else [site]


def _positive(t: Term, fn: Function | None) -> bool:
    """Every value of ``t`` is ``> 0``: a positive literal, or (converted) a parameter that
    an argument check of ``fn`` leaves positive."""
    match t:
        case Lit(v):
            return v > 0
        case ScalarCast(x):
            return _positive(x, fn)
        case ScalarVar(name):
            low = _guarded_lower_bound(name, fn)
            return low is not None and low[0] >= 0 and (low[0] > 0 or low[1])
    return False


#: The largest finite double.
DBL_MAX = 1.7976931348623157e308


def _operands(t: ScalarOp | TensorTensor | TensorScalar) -> tuple[Term, Term]:
    if isinstance(t, TensorScalar):
        return (t.scalar, t.tensor) if t.scalar_left else (t.tensor, t.scalar)
    return t.left, t.right


def _integral(t: Term) -> bool:
    """``t``'s values are integers: a conversion of an int, or an integer literal."""
    match t:
        case ScalarCast(x) | TensorCast(x):
            return not x.dtype.is_float
        case Lit(v):
            return float(v).is_integer()
    return not getattr(t, "dtype", DType.DOUBLE).is_float


def non_negative(t: Term, fn: Function | None = None) -> bool:
    """A sufficient syntactic condition for every value of ``t`` being ``>= 0`` — in C's and
    Python's floating point as in the reals (a sum, a product or a quotient of non-negative
    doubles is non-negative; a rounding never changes a sign): literals, sizes, |x|, x * x,
    exp, sqrt, powers of non-negative bases, sums, products and quotients of such, ranges
    from a non-negative start, and a parameter ``p`` that an argument check of ``fn`` (a
    Python kernel's ``if p < c: raise ...`` / ``return``, ``c >= 0``) leaves non-negative."""

    def nn(u: Term) -> bool:
        match u:
            case Lit(v):
                return v >= 0
            case Size():
                return True
            case ScalarApply(f, x) | TensorMap(f, x):
                return f in ("fabs", "exp", "sqrt") or (f == "expm1" and nn(x))
            case ScalarOp(op, a, b) | TensorTensor(op, a, b):
                return _nn_op(op, a, b, nn)
            case TensorScalar(op, x, c, left):
                return _nn_op(op, c, x, nn) if left else _nn_op(op, x, c, nn)
            case ScalarCast(x) | TensorCast(x):
                return nn(x)
            case ReduceSum(x) | ReduceRows(x) | ReduceProd(x) | ReduceMax(x):
                return nn(x)
            case Take(x) | Tail(x) | Slice(x) | Flatten(x) | Matrix(x):
                return not isinstance(x, TensorVar) and nn(x)
            case Iota(start):
                return nn(start)
            case ScalarSelect(_, a, b) | TensorSelect(_, a, b):
                return nn(a) and nn(b)
            case ScalarVar(name):
                return fn is not None and _guarded_non_negative(name, fn)
        return False

    return nn(t)


def _nn_op(op: str, a: Term, b: Term, nn: Callable[[Term], bool]) -> bool:
    if op == "*" and a == b:
        return True
    if op in ("+", "*", "/", "//"):
        return nn(a) and nn(b)
    if op == "pow":  # a non-negative base, or an even integer power
        return nn(a) or (isinstance(b, Lit) and float(b.value).is_integer() and int(b.value) % 2 == 0)
    return False


def _guarded_non_negative(name: str, fn: Function) -> bool:
    """An argument check leaves ``name >= 0`` (:func:`_guarded_lower_bound`)."""
    low = _guarded_lower_bound(name, fn)
    return low is not None and low[0] >= 0


def _guarded_lower_bound(name: str, fn: Function | None) -> tuple[float, bool] | None:
    """``(c, strict)``: an argument check ``if name < c: raise ...`` / ``return`` of the
    Python kernel ``fn`` (checked before its body, in order, each raising or returning)
    leaves ``name >= c`` in the body; ``if name <= c`` leaves ``name > c`` (``name >= c + 1``
    for an int: ``(c + 1, False)``). The greatest such bound, or ``None``."""
    guards = fn.python.guards if fn is not None and fn.python is not None else ()
    best: tuple[float, bool] | None = None
    for g in guards:
        bound: tuple[float, bool] | None = None
        match g.cond:
            case Compare(op="<", left=Var(name=v), right=Const(value=c)) if v == name:
                bound = (c, False)
            case Compare(op="<=", left=Var(name=v, dtype=d), right=Const(value=c)) if v == name:
                bound = (c + 1, False) if not d.is_float else (c, True)
        if bound is not None and (best is None or bound > best):
            best = bound
    return best


def _site(t: Term, exact_quotient: bool) -> tuple[str, str, str, Cond] | None:
    """``(kind, exception, message, condition)`` of a raising node, else ``None``."""
    if isinstance(t, ScalarOp | TensorTensor | TensorScalar) and t.op in _DIVISIONS:
        divisor = t.right if isinstance(t, ScalarOp | TensorTensor) else (t.tensor if t.scalar_left else t.scalar)
        if isinstance(divisor, Lit) and divisor.value != 0:
            return None
        if t.op == "mod":
            message = "integer modulo by zero"
        elif t.op == "//":
            message = "integer division or modulo by zero"
        elif exact_quotient:
            message = "division by zero"
        else:
            message = "float division by zero" if t.dtype.is_float else "integer division or modulo by zero"
        zero = Lit(0.0 if divisor.dtype.is_float else 0, divisor.dtype)
        return "division", "ZeroDivisionError", message, Cmp("==", divisor, zero)
    if isinstance(t, ScalarApply | TensorMap) and t.func in ("sqrt", "log", "exp"):
        arg = t.scalar if isinstance(t, ScalarApply) else t.tensor
        if t.func == "exp":
            return "exp", "OverflowError", "math range error", Cmp(">", arg, Lit(EXP_LIMIT, DType.DOUBLE))
        zero = Lit(0.0, arg.dtype) if arg.dtype.is_float else Lit(0, arg.dtype)
        return t.func, "ValueError", "math domain error", Cmp("<" if t.func == "sqrt" else "<=", arg, zero)
    return None


def _cond_terms(c: Cond) -> Iterator[Term]:
    for left, right in cmp_pairs(c):
        yield left
        yield right


def _tensor_cond(c: Cond) -> bool:
    return any(is_tensor(u) for u in _cond_terms(c))


def _and(conds: Sequence[Cond]) -> Cond:
    out = conds[0]
    for c in conds[1:]:
        out = BoolOp("and", out, c)
    return out


_ELEMENTWISE = (TensorTensor, TensorScalar, TensorMap, TensorCast, TensorSelect)
_SCALAR_OPS = (ScalarOp, ScalarApply, ScalarCast, ScalarSelect)
_REDUCTIONS = (ReduceSum, ReduceMax, ReduceProd, ArgMax, ReduceRows)
_LEAVES = (Lit, ScalarVar, TensorVar, Size, Iota)


def _covers(x: Tensor, nr: Term, nc: Term) -> bool:
    """Whether ``matrix(x, nr, nc)`` holds every element of ``x`` (its length is ``nr *
    nc`` as written: ``nc`` or ``nr`` the literal 1 and the other its length)."""
    n = length(x)
    return (nc == Lit(1, DType.INT) and nr == n) or (nr == Lit(1, DType.INT) and nc == n)


def raise_checks(outputs: Sequence[Output], fn: Function, exact_quotient: bool = False) -> list[RaiseCheck]:
    """The raising sites of a Python kernel's summary ``outputs``, in evaluation order (see
    the module docstring); ``exact_quotient``: a division of two converted ints is Python's
    ``int / int`` (its message says ``division by zero``).

    Raises:
        CodegenError: a site whose evaluation Python's cannot be told from the summary (a
            scalar operation the source has both inside and outside loops; one inside a
            view, a matrix product or a stack), or sites of different exception classes
            that are not all evaluated once.
    """
    kinds = source_sites(fn)
    checks: list[tuple[RaiseCheck, bool]] = []

    def has_site(t: Term) -> bool:
        return bool(_sites(t, exact_quotient, fn)) or any(has_site(c) for c in children(t))

    def refuse(why: str, t: Term) -> CodegenError:
        return CodegenError(
            f"the Python kernel may raise in '{show(t)}' ({why}): the generated code cannot tell where Python "
            "raises (the proof holds where it does not)"
        )

    def visit(t: Term, path: list[Cond], lanes: Term | None) -> None:
        inside(t, path, lanes)  # operands are evaluated first: their sites come first
        for site in _sites(t, exact_quotient, fn):
            if site[0] not in kinds:
                continue
            kind, exc, message, cond = site
            places = kinds[kind]
            if kind == "pow" and not _tensor_cond(cond):
                places = kinds.get("pow:invariant", {True})
            site_lanes = t if lanes is None and is_tensor(t) else lanes
            conds = [*path, cond]
            if not _tensor_cond(cond):
                # the condition is one scalar (a scalar operation, or a tensor divided by a
                # scalar): where the source computes it decides how often it is evaluated
                if places == {True, False}:
                    raise refuse(f"'{kind}' occurs inside and outside the source's loops", t)
                if places == {False}:  # straight-line code: evaluated once, unconditionally
                    site_lanes = None
                    conds = [c for c in conds if not _tensor_cond(c)]
                elif site_lanes is None:
                    raise refuse(f"'{kind}' occurs only inside the source's loops", t)
            one, zero = Lit(1, DType.INT), Lit(0, DType.INT)
            if site_lanes is not None and any(_tensor_cond(c) for c in conds):
                mask: Term = TensorSelect(_and(conds), one, zero, DType.INT)
                if rank(cast(Tensor, site_lanes)) == 2:  # the elements of a matrix, row by row
                    mask = Flatten(cast(Tensor, mask))
                count: Term = ReduceSum(cast(Tensor, mask), DType.INT)
            elif site_lanes is not None:  # a scalar evaluated for each element, if there is one
                lanes_1d = cast(Tensor, site_lanes)  # (a tensor node: set from is_tensor terms only)
                if rank(lanes_1d) != 1:
                    raise refuse("a scalar evaluated for each element of a matrix", t)
                count = ScalarSelect(_and([*conds, Cmp(">", length(lanes_1d), zero)]), one, zero, DType.INT)
            else:
                count = ScalarSelect(_and(conds), one, zero, DType.INT)
            checks.append((RaiseCheck(exc, message, count), site_lanes is None))

    def inside(t: Term, path: list[Cond], lanes: Term | None) -> None:
        match t:
            case TensorSelect(c, then, else_) | ScalarSelect(c, then, else_):
                inner = t if lanes is None and isinstance(t, TensorSelect) else lanes
                for u in _cond_terms(c):
                    visit(u, path, inner)
                visit(then, [*path, c], inner)
                visit(else_, [*path, NotCond(c)], inner)
            case _ if isinstance(t, _ELEMENTWISE):
                for u in children(t):
                    visit(u, path, lanes if lanes is not None else t)
            case Full(n, value):
                visit(n, path, lanes)
                visit(value, path, lanes if lanes is not None else t)
            case _ if isinstance(t, _SCALAR_OPS):
                for u in children(t):
                    visit(u, path, lanes)
            case _ if isinstance(t, _REDUCTIONS):
                # a reduction is a loop of its own, run whatever the enclosing elements are
                if lanes is not None and has_site(t) and any(_tensor_cond(c) for c in path):
                    raise refuse("a reduction under an elementwise condition", t)
                for u in children(t):
                    visit(u, [c for c in path if not _tensor_cond(c)], None)
            case Flatten(m):  # every element of m, in row order
                visit(m, path, lanes)
            case Matrix(x, nr, nc, None) if rank(x) == 1 and _covers(x, nr, nc):
                visit(x, path, lanes)  # all of x, reshaped
                visit(nr, path, lanes)
                visit(nc, path, lanes)
            case _ if isinstance(t, _LEAVES):
                pass
            case _:
                if any(has_site(u) for u in children(t)):
                    raise refuse(f"inside {type(t).__name__}", t)

    for o in outputs:
        visit(output_term(o), [], None)
    if len({c.exception for c, _ in checks}) > 1 and not all(once for _, once in checks):
        raise CodegenError(
            "the Python kernel may raise " + " or ".join(sorted({c.exception for c, _ in checks}))
            + " inside its loops: which one Python raises first depends on the order of its loops, "
            "which the summary does not keep"
        )
    return [c for c, _ in checks]


# ---------------------------------------------------------------- rows of a list of lists


def row_read_checks(fn: Function) -> list[RaiseCheck] | None:
    """For a Python kernel, where it reads a list of lists beyond a row's end: each
    ``x[r][c]`` (``Load.row``, ``Load.plane``) inside counted loops raises ``IndexError`` in
    Python when ``c`` reaches the row length, although the flat index stays inside the
    array (the proof's model, and the generated code, read the next row). For an index affine
    in loop counters whose bounds are parameters, the largest index is reached (every loop
    runs) exactly when every enclosing loop runs: the check is that condition and ``max >=
    length``. ``None`` when some read is not of that form (the translation validation, whose
    inputs hold ragged shapes, is then the only check)."""
    import sympy

    from tenspiler.vc.symexec import assignments, from_sympy, index_difference, to_sympy

    once = Counter(st.target for st in assignments(fn.body))
    counters = _counters(fn.body)
    params = {sympy.Symbol(p.name, integer=True) for p in fn.params}
    env: dict[sympy.Symbol, sympy.Expr] = {}  # locals assigned once before any loop
    checks: list[RaiseCheck] = []
    unsupported = False

    def over_params(e: Expr) -> sympy.Expr | None:
        se = to_sympy(e)
        if se is None:
            return None
        se = sympy.expand(se.subs(env))
        return se if se.free_symbols <= params else None

    def largest(index: Expr, loops: list[tuple[sympy.Symbol, sympy.Expr, sympy.Expr]]) -> Expr | None:
        se = to_sympy(index)
        if se is None:
            return None
        se = sympy.expand(se.subs(env))
        xs = [x for x, _, _ in loops]
        if xs and sympy.Poly(se, *xs).total_degree() > 1:
            return None
        for x, start, stop in loops:
            c = se.coeff(x, 1)
            if not c.is_Integer:
                return None
            se = se.subs(x, stop - 1 if c > 0 else start)
        return from_sympy(sympy.expand(se)) if se.free_symbols <= params else None

    def visit(body: Sequence[Stmt], loops: list[tuple[sympy.Symbol, sympy.Expr, sympy.Expr]]) -> None:
        nonlocal unsupported
        for st in body:
            exprs: list[Expr] = []
            match st:
                case Assign(target=target, value=value):
                    exprs = [value]
                    if not loops and once[target] == 1 and target not in counters and (v := over_params(value)) is not None:
                        env[sympy.Symbol(target, integer=True)] = v
                case Store(index=index, value=value):
                    exprs = [index, value]
                case Return(value=value) if value is not None:
                    exprs = [value]
                case For(var=var, start=start, stop=stop, body=inner):
                    a, b = over_params(start), over_params(stop)
                    if a is None or b is None:
                        unsupported = unsupported or _has_row_reads(inner)
                        continue
                    visit(inner, [*loops, (sympy.Symbol(var, integer=True), a, b)])
                    continue
            for e in exprs:
                for ld in _unconditional_loads(e):
                    for pair in (ld.row, ld.plane):
                        if pair is None:
                            continue
                        length = over_params(pair[1])
                        top = largest(pair[0], loops)
                        length_e = None if length is None else from_sympy(length)
                        if top is None or length_e is None:
                            unsupported = True
                            continue
                        gap = index_difference(top, length_e)
                        if gap is not None and gap < 0:
                            continue  # the loop runs up to the row length: never beyond it
                        cond: LCond = Compare(">=", top, length_e)
                        for _, a, b in reversed(loops):
                            lo, hi = from_sympy(a), from_sympy(b)
                            assert lo is not None and hi is not None  # polynomials over the parameters
                            cond = Logical("&&", Compare("<", lo, hi), cond)
                        checks.append(RaiseCheck("IndexError", "list index out of range", condition=cond))

    visit(fn.body, [])
    return None if unsupported else checks


def _counters(body: Sequence[Stmt]) -> set[str]:
    """The counters of the loops of ``body``, nested ones included."""
    return {st.var for st in body if isinstance(st, For)} | {
        v for st in body if isinstance(st, For) for v in _counters(st.body)}


def _unconditional_loads(e: Expr) -> Iterator[Load]:
    """The loads ``e`` evaluates whenever it is evaluated (not under a select's branch)."""
    match e:
        case Load(index=index):
            yield e
            yield from _unconditional_loads(index)
        case Binary(left=left, right=right):
            yield from _unconditional_loads(left)
            yield from _unconditional_loads(right)
        case Unary(operand=x) | Cast(operand=x) | Call(arg=x):
            yield from _unconditional_loads(x)


def _has_row_reads(body: Sequence[Stmt]) -> bool:
    def expr_has(e: Expr) -> bool:
        match e:
            case Load(row=row, plane=plane, index=index):
                return row is not None or plane is not None or expr_has(index)
            case Binary(left=left, right=right):
                return expr_has(left) or expr_has(right)
            case Unary(operand=x) | Cast(operand=x) | Call(arg=x):
                return expr_has(x)
            case Select(then=then, else_=else_):
                return expr_has(then) or expr_has(else_)
        return False

    for st in body:
        match st:
            case Assign(value=value) | Return(value=value) if value is not None and expr_has(value):
                return True
            case Store(index=index, value=value) if expr_has(index) or expr_has(value):
                return True
            case For(body=inner) if _has_row_reads(inner):
                return True
    return False
