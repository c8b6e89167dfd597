"""Value ranges of integer TensIR terms, and the narrowest safe dtype to compute each in.

Generated code used to compute every integer in int64. For image kernels on ``unsigned
char`` that multiplies the memory traffic of every temporary by eight (issue 5: NumPy with
int64 temporaries was slower than the C it replaces). Here an interval analysis, starting
from the C types of the parameters (``unsigned char`` ∈ [0, 255]; ``int`` is not bounded, so
int data stays int64), bounds the value of every integer node *for every input*, and
:class:`DtypePlan` picks for each node the narrowest machine dtype (of those the backend
offers) that holds the node's value **and** the values of its operands. Computing a node in
such a dtype is exact: the operands convert without loss, and the exact result is
representable, so no intermediate wraps. (The interval of ``x / y`` also covers ``|x|`` and
``|y|``: C division helpers take absolute values.)

The analysis is the usual interval abstract domain (Cousot & Cousot 1977); the dtype choice is
the "narrowest type that provably fits" of issue 5. It is a code generation decision only:
proofs are about mathematical integers (``tenspiler.ir.semantics``), and the choice is checked
by the differential tests of every backend against the reference interpreter on inputs that
include the extreme values of each C type (``tests/test_backends.py``, ``tests/test_ranges.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import assert_never

from tenspiler.codegen.base import operands
from tenspiler.ir.semantics import py_binop
from tenspiler.ir.terms import (
    BoolOp,
    Cmp,
    Flatten,
    Full,
    Iota,
    Lit,
    MatMul,
    Matrix,
    NotCond,
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
    Strided,
    Tail,
    Take,
    TensorCast,
    TensorMap,
    TensorScalar,
    TensorSelect,
    TensorTensor,
    TensorVar,
    Term,
    Transpose,
    children,
    cmp_pairs,
    is_tensor,
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
    Select,
    Store,
    Unary,
    Var,
)
from tenspiler.loops.ir import Cond as LoopCond

__all__ = [
    "INT_DTYPES",
    "DtypePlan",
    "Interval",
    "c_type_ranges",
    "is_static",
    "min_max",
    "needs_wrap",
    "param_ranges",
    "small_division",
    "term_range",
    "wrap_hazards",
]


@dataclass(frozen=True)
class Interval:
    """The integers ``lo ≤ v ≤ hi``; ``None`` is an open end (unbounded)."""

    lo: int | None
    hi: int | None

    def hull(self, other: Interval) -> Interval:
        lo = None if self.lo is None or other.lo is None else min(self.lo, other.lo)
        hi = None if self.hi is None or other.hi is None else max(self.hi, other.hi)
        return Interval(lo, hi)

    @property
    def bounded(self) -> bool:
        return self.lo is not None and self.hi is not None

    def extremum(self, other: Interval, bigger: bool) -> Interval:
        """The values of ``max(x, y)`` (``bigger``) or ``min(x, y)`` for x, y in the two."""
        def pick(a: int | None, b: int | None, open_is_big: bool) -> int | None:
            if a is None or b is None:  # an open end: -inf for lo, +inf for hi
                return (a if b is None else b) if bigger != open_is_big else None
            return max(a, b) if bigger else min(a, b)
        return Interval(pick(self.lo, other.lo, False), pick(self.hi, other.hi, True))

    def magnitude(self) -> Interval:
        """``[−m, m]`` with ``m`` the largest absolute value (open when unbounded)."""
        if not self.bounded:
            return UNBOUNDED
        assert self.lo is not None and self.hi is not None
        m = max(abs(self.lo), abs(self.hi))
        return Interval(-m, m)


UNBOUNDED = Interval(None, None)
UINT8_RANGE = Interval(0, 255)

#: Integer dtypes (NumPy names) from narrowest to widest, and the values each holds.
INT_DTYPES: dict[str, Interval] = {
    "uint8": Interval(0, 2**8 - 1),
    "int16": Interval(-(2**15), 2**15 - 1),
    "uint16": Interval(0, 2**16 - 1),
    "int32": Interval(-(2**31), 2**31 - 1),
    "int64": Interval(-(2**63), 2**63 - 1),
}

_ITEMSIZE = {"uint8": 1, "int16": 2, "uint16": 2, "int32": 4, "int64": 8}


def _fits(iv: Interval, dtype: str) -> bool:
    r = INT_DTYPES[dtype]
    assert r.lo is not None and r.hi is not None
    return iv.lo is not None and iv.hi is not None and r.lo <= iv.lo and iv.hi <= r.hi


def within(iv: Interval, outer: Interval) -> bool:
    """Every value of ``iv`` lies in the bounded ``outer``."""
    return iv.bounded and outer.lo <= iv.lo and iv.hi <= outer.hi  # type: ignore[operator]


def needs_wrap(t: Term, plan: DtypePlan | None) -> bool:
    """Whether the cast ``t`` to a ranged integer type can change a value (its operand's
    interval is not inside the type's range; without a plan: whenever the types differ)."""
    if not isinstance(t, ScalarCast | TensorCast):
        return False
    x = t.scalar if isinstance(t, ScalarCast) else t.tensor
    rng = t.dtype.int_range
    if rng is None or x.dtype == t.dtype:
        return False
    if plan is None or x.dtype.is_float:
        return True
    return not within(plan.range(x), Interval(*rng))


def _corners(f: Callable[[int, int], int], x: Interval, y: Interval) -> Interval:
    if x.lo is None or x.hi is None or y.lo is None or y.hi is None:
        return UNBOUNDED
    vals = [f(a, b) for a in (x.lo, x.hi) for b in (y.lo, y.hi)]
    return Interval(min(vals), max(vals))


def _c_div(a: int, b: int) -> int:
    return int(py_binop("/", a, b, DType.INT))


def binop_range(op: str, x: Interval, y: Interval) -> Interval:
    """Interval of ``x op y`` for the TensIR integer operators (C ``/`` and ``%`` truncate;
    ``//`` and ``mod`` are Python's flooring ones). A divisor interval containing 0 only
    bounds the quotient by the dividend's magnitude (a zero divisor is undefined behaviour
    in C, and reaches generated code only in lanes a select discards)."""
    match op:
        case "+":
            return _corners(lambda a, b: a + b, x, y)
        case "-":
            return _corners(lambda a, b: a - b, x, y)
        case "*":
            return _corners(lambda a, b: a * b, x, y)
        case "/" | "//":
            div = _c_div if op == "/" else (lambda a, b: a // b)
            if y.bounded and (y.lo > 0 or y.hi < 0):  # type: ignore[operator]
                return _corners(div, x, y)
            if x.lo is not None and x.lo >= 0 and y.lo is not None and y.lo >= 0:
                return Interval(0, x.hi)  # a divisor of 0 is undefined; else it is >= 1
            m = x.magnitude()
            return m if op == "/" or not m.bounded else Interval(m.lo - 1, m.hi)  # type: ignore[operator]
        case "%":  # sign of the dividend, |r| < |y|, |r| <= |x|
            if not (x.bounded and y.bounded):
                return UNBOUNDED
            assert x.lo is not None and x.hi is not None
            limit = max(abs(y.lo), abs(y.hi)) - 1  # type: ignore[arg-type]
            return Interval(max(min(x.lo, 0), -limit), min(max(x.hi, 0), limit))
        case "&" | "|" | "^":  # two's complement: within the operands' bit widths
            if not (x.bounded and y.bounded):
                return UNBOUNDED
            assert x.lo is not None and x.hi is not None and y.lo is not None and y.hi is not None
            if op == "&" and (x.lo >= 0 or y.lo >= 0):  # a non-negative operand bounds it
                return Interval(0, min(v.hi for v in (x, y) if v.lo is not None and v.lo >= 0))  # type: ignore[type-var]
            bits = max(max(abs(v) for v in (x.lo, x.hi, y.lo, y.hi)).bit_length(), 1)
            if x.lo >= 0 and y.lo >= 0:
                return Interval(0, 2**bits - 1)
            return Interval(-(2**bits), 2**bits - 1)
        case "pow":  # pow(2, k) of a run-time shift count: k in [0, 32) (semantics.IPOW2_EXPONENTS, checked first)
            lo = 0 if y.lo is None else min(max(y.lo, 0), 31)
            hi = 31 if y.hi is None else min(max(y.hi, 0), 31)
            return Interval(2**lo, 2**hi)
        case "mod":  # sign of the divisor, |r| < |y|
            if not y.bounded:
                return UNBOUNDED
            assert y.lo is not None and y.hi is not None
            limit = max(abs(y.lo), abs(y.hi)) - 1
            return Interval(0 if y.lo > 0 else -limit, 0 if y.hi < 0 else limit)
    raise ValueError(f"not an integer operator: {op!r}")


def param_ranges(fn: Function) -> dict[str, Interval]:
    """The interval of each integer parameter (a pointer's elements) from its C type:
    ``unsigned char`` [0, 255] (generated code converts such arguments to uint8, or modulo
    256 for a scalar, as the C call does); ``int`` is left unbounded, so that nothing rests
    on a caller passing only 32-bit values (int arrays are int64 arrays, and arithmetic
    on them stays int64)."""
    return {p.name: Interval(*r) for p in fn.params if (r := fn.dtype_of(p.name).int_range) is not None}


def min_max(t: TensorSelect | ScalarSelect) -> str | None:
    """``"minimum"`` / ``"maximum"`` when the integer select ``t`` is ``l < r ? l : r``
    (or another spelling of the smaller / larger of ``l`` and ``r``; ties pick equal
    values), else None. Not for reals: NaN compares false, ``np.minimum`` propagates it."""
    c = t.cond
    if t.dtype.is_float or not isinstance(c, Cmp) or c.op not in ("<", "<=", ">", ">="):
        return None
    if (t.then, t.else_) == (c.left, c.right):
        return "minimum" if c.op in ("<", "<=") else "maximum"
    if (t.then, t.else_) == (c.right, c.left):
        return "maximum" if c.op in ("<", "<=") else "minimum"
    return None


def term_range(t: Term, params: Mapping[str, Interval], memo: dict[Term, Interval] | None = None) -> Interval:
    """The interval holding every value (every element, for a tensor) of the integer term
    ``t`` when each parameter lies in ``params`` (a missing parameter is unbounded). Real
    terms are unbounded."""
    memo = {} if memo is None else memo
    if t in memo:
        return memo[t]

    def r(u: Term) -> Interval:
        return term_range(u, params, memo)

    out = UNBOUNDED
    if not getattr(t, "dtype", DType.INT).is_float:  # reals are unbounded
        match t:
            case Lit(value):
                out = Interval(int(value), int(value))
            case ScalarVar(name) | TensorVar(name):
                out = params.get(name, UNBOUNDED)
            case Size():
                out = Interval(0, None)
            case ScalarOp() | TensorTensor() | TensorScalar():
                a, b = operands(t)
                out = binop_range(t.op, r(a), r(b))
            case ScalarSelect(_, then, else_) | TensorSelect(_, then, else_):
                extremum = min_max(t)
                if extremum is not None:  # max(0, x) is >= 0, not the hull of 0 and x
                    out = r(then).extremum(r(else_), extremum == "maximum")
                else:
                    out = r(then).hull(r(else_))
            case ScalarCast(x) | TensorCast(x):
                if (rng := t.dtype.int_range) is not None:  # wraps into the type's range
                    inner, whole = r(x), Interval(*rng)
                    out = inner if within(inner, whole) else whole
                elif x.dtype.is_float:
                    out = UNBOUNDED
                else:
                    out = r(x)
            case Take(x) | Tail(x) | Slice(x) | Matrix(x) | Strided(x):
                out = r(x)
            case Full(_, v):
                out = r(v)
            case Iota(a, b):  # start … stop - 1 (empty when stop <= start: any interval)
                lo, hi = r(a).lo, r(b).hi
                out = Interval(lo, None if hi is None else hi - 1)
            case Transpose(m) | Flatten(m):
                out = r(m)
            case ReduceMax(x):
                out = r(x)
            case ReduceRows(m, _, kind) if kind == "max":
                out = r(m)
            case ReduceSum() | ReduceRows() | MatMul() | ReduceProd():
                out = UNBOUNDED  # the length is not bounded
            case ScalarApply() | TensorMap():
                out = UNBOUNDED
    memo[t] = out
    return out


def c_type_ranges(fn: Function) -> dict[str, Interval]:
    """The interval of each integer parameter (a pointer's elements) as its C type allows:
    ``int`` 32 bits, ``long`` / ``int64_t`` 64 bits, ``unsigned char`` [0, 255] (Python kernels: none)."""
    if fn.python is not None:
        return {}
    out: dict[str, Interval] = {}
    for p in fn.params:
        d = fn.dtype_of(p.name)
        if (rng := d.int_range) is not None:
            out[p.name] = Interval(*rng)
        elif d == DType.INT:
            # Param.c_type spells a 64-bit integer as written: long, long long, int64_t
            out[p.name] = INT_DTYPES["int64" if ("long" in p.c_type or "int64" in p.c_type) else "int32"]
    return out


#: A path of select conditions with the branch taken (True: ``then``).
Path = tuple[tuple[object, bool], ...]


def source_values(fn: Function) -> tuple[str, list[tuple[Binary, Path]]] | None:
    """The signed integer values a C kernel's one loop computes in every iteration, with
    the path of select conditions under which C evaluates each (the branch of a ``?:`` or
    an if-converted ``if``): ``("counter:stop", [(value, path)])`` (``stop`` a parameter
    name or a literal). C has no signed overflow
    (undefined behaviour, C11 §6.5p5), so on every input where the source is defined each
    such value lies in its C type — ``int`` or ``long`` —, inside int64. ``None`` unless
    the body is one ascending loop from 0 with a straight-line body (locals substituted).
    Arithmetic under a conversion to ``unsigned int`` (``unsigned int`` arithmetic, which
    wraps instead) is left out."""
    if fn.python is not None:
        return None
    loops = [s for s in fn.body if isinstance(s, For)]
    if len(loops) != 1 or loops[0].descending or loops[0].start != Const(0, DType.INT):
        return None
    loop = loops[0]
    env: dict[str, Expr] = {}
    out: list[tuple[Binary, Path]] = []

    def sub(e: Expr) -> Expr:
        match e:
            case Var(name) if name in env:
                return env[name]
            case Load(array, index, dtype):
                return Load(array, sub(index), dtype)
            case Unary(op, x, dtype):
                return Unary(op, sub(x), dtype)
            case Binary(op, a, b, dtype):
                return Binary(op, sub(a), sub(b), dtype)
            case Cast(x, dtype):
                return Cast(sub(x), dtype)
            case Select(c, a, b, dtype):
                return Select(sub_cond(c), sub(a), sub(b), dtype)
            case Call(func, x, dtype):
                return Call(func, sub(x), dtype)
        return e

    def sub_cond(c: LoopCond) -> LoopCond:
        match c:
            case Compare(op, a, b):
                return Compare(op, sub(a), sub(b))
            case Logical(op, a, b):
                return Logical(op, sub_cond(a), sub_cond(b))
            case Not(x):
                return Not(sub_cond(x))
            case _:
                assert_never(c)

    def collect(e: Expr, path: Path) -> None:
        match e:
            case Binary(_, a, b, DType.INT):
                out.append((e, path))
                collect(a, path)
                collect(b, path)
            case Cast(_, DType.UINT32):
                return  # unsigned int arithmetic wraps: no bound
            case Cast(x) | Unary(_, x):
                collect(x, path)
            case Select(c, a, b):
                collect(a, (*path, (c, True)))
                collect(b, (*path, (c, False)))

    for st in loop.body:
        match st:
            case Assign(target, value):
                v = sub(value)
                collect(v, ())
                env[target] = v
            case Store(_, _, value):
                collect(sub(value), ())
            case _:
                return None
    stop = loop.stop
    if not isinstance(stop, Var | Const) or isinstance(stop.value if isinstance(stop, Const) else 0, float):
        return None
    return f"{loop.var}:{stop.name if isinstance(stop, Var) else int(stop.value)}", out


def _text(t: ScalarVar | Lit) -> str:
    return t.name if isinstance(t, ScalarVar) else str(int(t.value))


def _same(t: Term, e: Expr, counter: str, assigned: set[str]) -> bool:
    """``t`` computes, at element ``k``, what ``e`` computes at iteration ``counter = k``:
    the same operators on the same loads ``a[counter]`` (``take(a, _)``), parameters and
    literals (conversions that keep every value, as TensIR drops them, skipped)."""
    if isinstance(e, Cast) and e.dtype == DType.INT and e.operand.dtype.int_range is not None:
        return _same(t, e.operand, counter, assigned)
    match t, e:
        case (ScalarOp(op, a, b, d) | TensorTensor(op, a, b, d)), Binary(op2, x, y, d2):
            return op == op2 and d == d2 and _same(a, x, counter, assigned) and _same(b, y, counter, assigned)
        case TensorScalar(op, _, _, _, d), Binary(op2, x, y, d2):
            a, b = operands(t)
            return op == op2 and d == d2 and _same(a, x, counter, assigned) and _same(b, y, counter, assigned)
        case Lit(v, d), Const(w, d2):
            return d == d2 and not d.is_float and int(v) == int(w)
        case ScalarVar(name, d), Var(name2, d2):
            return name == name2 and d == d2 and name not in assigned
        case Take(TensorVar(name), m), Load(array, Var(i)):
            # element k < m of the view is a[k], read by iteration k: m must be the loop's
            # trip count (so that every such iteration runs)
            var, _, stop = counter.partition(":")
            return (name == array and i == var and isinstance(m, ScalarVar | Lit) and _text(m) == stop
                    and stop not in assigned)
        case (ScalarCast(x, d) | TensorCast(x, d)), Cast(y, d2):
            return d == d2 and _same(x, y, counter, assigned)
        case (ScalarSelect(c, a, b, d) | TensorSelect(c, a, b, d)), Select(c2, x, y, d2):
            return (d == d2 and _same_cond(c, c2, counter, assigned) and _same(a, x, counter, assigned)
                    and _same(b, y, counter, assigned))
    return False


def _same_cond(c: object, c2: LoopCond, counter: str, assigned: set[str]) -> bool:
    match c, c2:
        case Cmp(op, a, b), Compare(op2, x, y):
            return op == op2 and _same(a, x, counter, assigned) and _same(b, y, counter, assigned)
        case BoolOp(op, a, b), Logical(op2, x, y):
            return ({"and": "&&", "or": "||"}[op] == op2 and _same_cond(a, x, counter, assigned)
                    and _same_cond(b, y, counter, assigned))
        case NotCond(a), Not(x):
            return _same_cond(a, x, counter, assigned)
    return False


def _assigned_in_loop(fn: Function) -> set[str]:
    out: set[str] = set()
    for st in fn.body:
        if isinstance(st, For):
            out.add(st.var)
            out |= {s.target for s in st.body if isinstance(s, Assign)}
        elif isinstance(st, Assign):
            out.add(st.target)
    return out


def wrap_hazards(fn: Function, terms: Iterable[Term]) -> list[Term]:
    """Integer subterms of ``terms`` whose value may leave int64 for inputs of the C types
    (:func:`c_type_ranges`) and that feed a comparison, a division or remainder, a
    conversion or a maximum — where a wrapped int64 value gives another result (``+ - *``
    and stores are exact modulo 2⁶⁴, so a value that fits in the end is right). The
    summary is proved over the mathematical integers; a synthesised term such as ``A * A``
    on ``long`` data can exceed 64 bits where the source (``A / A``) cannot. A term whose
    range is unbounded (a sum over the input's length) is not listed: the source computes
    such sums itself, in a C type whose overflow is undefined behaviour. Nor is a subterm
    that is, where the summary uses it (under the same select conditions), a signed value the
    C source's loop computes itself (:func:`source_values`): C has no signed overflow, so on
    every input where the source is defined it lies in ``int`` or ``long`` — ``2*b*a`` of the
    int overlay blend, where the generated code's other lanes are discarded by the select.
    A conversion into a ranged integer type (at most 32 bits) is no hazard either: it is
    exact on a value that wrapped modulo 2⁶⁴.

    Python kernels: generated code is equivalent to the Python function while every integer
    value fits in int64, the inputs included, so the values the function computes itself
    fit; the negations the synthesizer introduces (``0 - x``: a running minimum as the
    negated maximum of the negated values) need not, and are checked with int64 inputs."""
    python = fn.python is not None
    params = c_type_ranges(fn) if not python else {
        p.name: INT_DTYPES["int64"] for p in fn.params if fn.dtype_of(p.name) == DType.INT}
    memo: dict[Term, Interval] = {}
    found: list[Term] = []
    source = source_values(fn)
    assigned = _assigned_in_loop(fn)

    def computed_by_source(u: Term, path: Path) -> bool:
        """``u`` is, wherever ``path`` holds, a signed value the C source computes there
        (so it lies in int64 on every input where the source is defined; in the lanes a
        select discards its wrapped value does not matter)."""
        if source is None:
            return False
        counter, values = source
        for e, need in values:
            if _same(u, e, counter, assigned) and all(
                any(pol == pol2 and _same_cond(c, c2, counter, assigned) for c, pol in path)  # type: ignore[arg-type]
                for c2, pol2 in need
            ):
                return True
        return False

    def hazard(u: Term, path: Path) -> None:
        if getattr(u, "dtype", DType.INT).is_float:
            return
        if python and not (isinstance(u, ScalarOp | TensorScalar) and u.op == "-"
                           and any(isinstance(c, Lit) and c.value == 0 for c in operands(u))):
            return
        iv = term_range(u, params, memo)
        if iv.bounded and not _fits(iv, "int64") and u not in found and not computed_by_source(u, path):
            found.append(u)

    def walk(t: Term, path: Path) -> None:
        match t:
            case ScalarOp() | TensorTensor() | TensorScalar() if t.op in ("/", "%", "//", "mod"):
                for u in operands(t):
                    hazard(u, path)
            case ScalarCast(x) | TensorCast(x) if t.dtype.int_range is not None and not x.dtype.is_float:
                pass  # reduced modulo 2^n (n <= 32), which divides 2^64: exact on a wrapped value
            case ScalarCast(x) | TensorCast(x):
                hazard(x, path)
            case ReduceMax(x):
                hazard(x, path)
            case ReduceRows(m, _, kind) if kind == "max":
                hazard(m, path)
            case ScalarSelect(c, a, b) | TensorSelect(c, a, b):
                for pair in cmp_pairs(c):
                    for u in pair:
                        hazard(u, path)
                walk(a, (*path, (c, True)))
                walk(b, (*path, (c, False)))
                for u in children(t):
                    if u is not a and u is not b:
                        walk(u, path)
                return
        for u in children(t):
            walk(u, path)

    for t in terms:
        walk(t, ())
    return found


REAL_REPR = {DType.FLOAT: "float32", DType.DOUBLE: "float64"}


def is_static(t: Term, dtypes: Mapping[str, DType]) -> bool:
    """Whether ``t`` is an integer scalar computed from integer parameters, integer
    literals and shapes only (generated code computes it as an exact Python int)."""
    if is_tensor(t) or t.dtype.is_float:
        return False
    match t:
        case ScalarVar(name):
            return name in dtypes and not dtypes[name].is_float
        case Lit() | Size():
            return True
        case ScalarOp() | ScalarCast() | ScalarSelect():
            return all(is_static(c, dtypes) for c in children(t))
    return False


@dataclass
class DtypePlan:
    """The dtype each node of a summary is computed in (NumPy dtype names).

    Args:
        params: interval of each integer parameter (:func:`param_ranges`).
        param_dtypes: the C type of each parameter (a pointer's element type).
        param_reps: dtype each parameter arrives in (a pointer's elements).
        candidates: the integer dtypes the backend computes in, narrowest first; the empty
            tuple keeps every integer node in int64 (and ``unsigned char`` values unwrapped
            in int64 until stored).

    A real node is computed in its C type (float32 / float64). An integer node gets the
    narrowest candidate that holds its interval and its operands' intervals and is at least
    as wide as each non-static operand's dtype (arrays are only ever widened, never
    re-packed into a narrower type); ``int64`` when none fits. Static nodes
    (:func:`is_static`) are Python ints: exact, and they impose no dtype.
    """

    params: Mapping[str, Interval]
    param_dtypes: Mapping[str, DType]
    param_reps: Mapping[str, str]
    candidates: Sequence[str] = ()
    #: Interval of each integer parameter by its C type (:func:`c_type_ranges`).
    c_types: Mapping[str, Interval] = field(default_factory=dict)
    #: An elementwise select gets the narrowest candidate holding both branches' values, even
    #: when a branch is computed wider (the backend's select converts its operands: exact, as
    #: the values fit; a discarded lane's value does not matter). A bitwise blend costs five
    #: passes over its dtype's bytes, one conversion costs one.
    repack_selects: bool = False
    #: An elementwise conversion of reals to ``unsigned char`` is computed in uint8 (the
    #: backend's rule truncates and wraps it there), not truncated into int64 first.
    narrow_float_casts: bool = False
    _ranges: dict[Term, Interval] = field(default_factory=dict)
    _reps: dict[Term, str] = field(default_factory=dict)
    _c_ranges: dict[Term, Interval] = field(default_factory=dict)

    @classmethod
    def for_function(cls, fn: Function, candidates: Sequence[str], param_reps: Mapping[DType, str],
                     repack_selects: bool = False, narrow_float_casts: bool = False) -> DtypePlan:
        """The plan for ``fn``'s parameters: pointers arrive as ``param_reps[elem]``."""
        dtypes = {p.name: fn.dtype_of(p.name) for p in fn.params}
        reps = {name: param_reps[d] for name, d in dtypes.items()}
        return cls(param_ranges(fn), dtypes, reps, tuple(candidates), c_type_ranges(fn), repack_selects, narrow_float_casts)

    def range(self, t: Term) -> Interval:
        return term_range(t, self.params, self._ranges)

    def c_range(self, t: Term) -> Interval:
        """The interval of ``t`` over inputs of the parameters' C types."""
        return term_range(t, self.c_types, self._c_ranges)

    def static(self, t: Term) -> bool:
        return is_static(t, self.param_dtypes)

    def choose(self, intervals: Iterable[Interval], at_least: Iterable[str] = ()) -> str:
        """The narrowest candidate holding every interval, as wide as each of ``at_least``."""
        ivs = list(intervals)
        width = max((_ITEMSIZE.get(d, 8) for d in at_least), default=1)
        for d in self.candidates:
            if _ITEMSIZE[d] >= width and all(_fits(iv, d) for iv in ivs):
                return d
        return "int64"

    def operand_ranges(self, t: ScalarOp | TensorTensor | TensorScalar) -> list[Interval]:
        """What the dtype of an arithmetic node must hold besides its value: its operands'
        values; for ``/``, ``%``, ``//`` and ``mod`` their magnitudes (C-division helpers
        negate values)."""
        a, b = operands(t)
        ivs = [self.range(a), self.range(b)]
        if t.op in ("/", "%", "//", "mod") and not self.plain_division(t):
            return [iv.magnitude() for iv in ivs]
        return ivs

    def plain_division(self, t: ScalarOp | TensorTensor | TensorScalar) -> bool:
        """A non-negative dividend and a non-negative divisor: C's truncating and Python's
        flooring ``/ %`` agree with the machine's, no helper (nor negation) is needed. (A
        zero divisor is undefined behaviour; it can only occur in lanes a select discards,
        see :meth:`zero_divisor`.)"""
        x, y = (self.range(c) for c in operands(t))
        return x.lo is not None and x.lo >= 0 and y.lo is not None and y.lo >= 0

    def zero_divisor(self, t: ScalarOp | TensorTensor | TensorScalar) -> bool:
        """Whether the divisor's interval contains 0 (generated code then divides by
        ``max(y, 1)`` in a plain division: discarded lanes must not warn or raise)."""
        iv = self.range(operands(t)[1])
        return not (iv.lo is not None and iv.lo > 0) and not (iv.hi is not None and iv.hi < 0)

    def operand_reps(self, terms: Iterable[Term]) -> list[str]:
        """The dtypes of the non-static ``terms``."""
        return [self.rep(u) for u in terms if not self.static(u)]

    def rep(self, t: Term) -> str:
        """The NumPy dtype name ``t`` is computed in ("int64" for static integers)."""
        if t in self._reps:
            return self._reps[t]
        dtype: DType = t.dtype
        if dtype.is_float:
            out = REAL_REPR[dtype]
        elif self.static(t):
            out = "int64"
        else:
            match t:
                case ScalarVar(name) | TensorVar(name):
                    src = self.param_reps.get(name, "int64")
                    out = src if src in INT_DTYPES else "int64"
                case ScalarOp() | TensorTensor() | TensorScalar():
                    a, b = operands(t)
                    out = self.choose([self.range(t), *self.operand_ranges(t)], self.operand_reps([a, b]))
                case TensorSelect(_, then, else_) if self.repack_selects:
                    out = self.choose([self.range(then), self.range(else_)])
                case ScalarSelect(_, then, else_) | TensorSelect(_, then, else_):
                    out = self.choose([self.range(then), self.range(else_)], self.operand_reps([then, else_]))
                case ScalarCast(x) | TensorCast(x):
                    if (x.dtype.is_float and isinstance(t, TensorCast) and dtype == DType.UINT8
                            and self.narrow_float_casts and "uint8" in self.candidates):
                        out = "uint8"  # truncated and wrapped by the backend's rule
                    elif x.dtype.is_float:
                        out = "int64"  # truncated in int64, then wrapped when UINT8
                    elif dtype == DType.UINT8 and "uint8" in self.candidates:
                        out = "uint8"  # astype wraps modulo 256
                    elif dtype.int_range is not None and needs_wrap(t, self):
                        out = "int64"  # wrapped by the backend's rule, in int64
                    else:
                        out = self.rep(x) if self.candidates else "int64"
                case Take(x) | Tail(x) | Slice(x) | Matrix(x) | Strided(x) | Transpose(x) | Flatten(x) | ReduceMax(x):
                    out = self.rep(x)
                case ReduceRows(m, _, kind) if kind == "max":
                    out = self.rep(m)
                case Full(_, v):
                    out = self.choose([self.range(v)], self.operand_reps([v]))
                case Iota():
                    out = self.choose([self.range(t)])
                case _:
                    out = "int64"  # sums (unbounded length), sizes
        self._reps[t] = out
        return out


def small_division(t: ScalarOp | TensorTensor | TensorScalar, plan: DtypePlan) -> bool:
    """Both operands of the division ``t`` are below 2**24 in magnitude: their quotient
    computed in float32 and truncated (floored) is the exact integer quotient (the rounding
    error, < |x / y| * 2**-24 < 1 / |y|, is smaller than the quotient's distance to any other
    integer)."""
    return all(
        (m := plan.range(c).magnitude()).hi is not None and m.hi < 2**24
        for c in operands(t)
    )
