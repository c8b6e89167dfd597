"""SMT-LIB encoding of TensIR — the proof-side definition of every op.

Pointwise encoding (DESIGN.md, "Verification encoding"): a tensor term is compiled to its
*value at a symbolic index* ``k`` (slices shift ``k``, scalars broadcast), so an equation
between tensors becomes a quantified array fact that E-matching handles. Reductions are
``define-fun-rec`` functions that recurse over the prefix length
(``rsum(m) = rsum(m-1) + e[m-1]``), so one loop step is exactly one unfolding.

Each reduction function is *closed*: its parameters are the arrays and scalars its element
expression reads, so the same function serves every clause and the certificate.
Arithmetic comes from ``tenspiler.ir.semantics`` (C division, conversions).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tenspiler.ir import semantics as sem
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
    ReduceMax,
    ReduceProd,
    ReduceRows,
    ReduceSum,
    Scalar,
    ScalarApply,
    ScalarCast,
    ScalarOp,
    ScalarSelect,
    ScalarVar,
    Size,
    Slice,
    Stack,
    Strided,
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
    Transpose,
    cols,
    free_vars,
    is_tensor,
    promote,
    rank,
    row,
    rows,
)
from tenspiler.loops.ir import DType


def array_sort(dtype: DType) -> str:
    return f"(Array Int {sem.smt_sort(dtype)})"


@dataclass
class SmtEncoder:
    """Encodes TensIR terms given the SMT names of their free variables.

    Attributes:
        names: TensIR variable name → SMT term (an array for tensors, a value for scalars).
        lengths: TensIR tensor variable name → SMT term for its length (only needed by
            ``size``/``tail`` of a whole variable).
        definitions: ``define-fun-rec`` commands created so far, shared with sub-encoders.
    """

    names: Mapping[str, str]
    lengths: Mapping[str, str] = field(default_factory=dict)
    definitions: list[str] = field(default_factory=list)
    _rec_names: dict[str, str] = field(default_factory=dict)

    # ------------------------------------------------------------ scalars

    def scalar(self, t: Scalar) -> str:
        match t:
            case ScalarVar(name):
                return self.names[name]
            case Lit(value, dtype):
                return sem.smt_const(value, dtype)
            case ScalarOp(op, l, r, dtype):
                return sem.smt_binop(
                    op, self._conv(self.scalar(l), l.dtype, dtype),
                    self._conv(self.scalar(r), r.dtype, dtype), dtype,
                )
            case Size(x):
                return self.length(x)
            case ScalarCast(x, dtype):
                return sem.smt_cast(self.scalar(x), x.dtype, dtype)
            case ScalarApply(fn, x, dtype):
                return sem.smt_call(fn, self._conv(self.scalar(x), x.dtype, dtype))
            case ScalarSelect(cnd, a, b, dtype):
                return (f"(ite {self.cond(cnd, None)} {self._conv(self.scalar(a), a.dtype, dtype)} "
                        f"{self._conv(self.scalar(b), b.dtype, dtype)})")
            case ReduceSum(x, dtype):
                return self._reduction("rsum", x, dtype)
            case ReduceMax(x, dtype):
                return self._reduction("rmax", x, dtype)
            case ReduceProd(x, dtype):
                return self._reduction("rprod", x, dtype)
            case ArgMax(x, compare, last):
                return self._reduction("amaxl" if last else "amax", x, compare)
        raise TypeError(f"not a scalar TensIR term: {t!r}")

    # ------------------------------------------------------------ tensors

    def at(self, t: Tensor, k: str) -> str:
        """Value of element ``k`` (an SMT Int term, 0-based) of tensor ``t``."""
        match t:
            case TensorVar(name):
                return f"(select {self.names[name]} {k})"
            case Take(x, _):
                return self.at(x, k)
            case Full(_, value):
                return self.scalar(value)
            case Iota(start, _):
                return sem.smt_binop("+", self.scalar(start), k, DType.INT)
            case Tail(x, n):
                return self.at(x, _add(self.scalar(n), k))
            case Slice(x, lo, _):
                return self.at(x, _add(self.scalar(lo), k))
            case Strided(x, a0, _, step):
                st = self.scalar(step)
                if st == "0":  # a broadcast element: every k reads element a0
                    return self.at(x, self.scalar(a0))
                return self.at(x, _add(self.scalar(a0), f"(* {k} {st})"))
            case TensorTensor(op, l, r, dtype):
                return sem.smt_binop(
                    op, self._conv(self.at(l, k), l.dtype, dtype),
                    self._conv(self.at(r, k), r.dtype, dtype), dtype,
                )
            case TensorCast(x, dtype):
                return sem.smt_cast(self.at(x, k), x.dtype, dtype)
            case TensorMap(fn, x, dtype):
                return sem.smt_call(fn, self._conv(self.at(x, k), x.dtype, dtype))
            case TensorSelect(cnd, a, b, dtype):
                return (f"(ite {self.cond(cnd, k)} {self._conv(self._value(a, k), a.dtype, dtype)} "
                        f"{self._conv(self._value(b, k), b.dtype, dtype)})")
            case ReduceRows(x, dtype, kind):
                # element k is the sum (max) of row k: a reduction whose element expression
                # reads the row index, bound here to the SMT term k (a name not bound yet:
                # row reductions nest inside stacks and other rows)
                rv = fresh(ROW, self.names)
                inner = SmtEncoder({**self.names, rv: k}, self.lengths, self.definitions, self._rec_names)
                red = ReduceSum if kind == "sum" else ReduceMax
                return inner.scalar(red(row(x, ScalarVar(rv, DType.INT)), dtype))
            case Flatten(Matrix(x, _, _, None)):
                return self.at(x, k)  # a dense row-major view of a 1-D tensor: its elements
            case Flatten(m) if cols(m) == Lit(1, DType.INT):
                # one column: element k is the matrix element (k, 0)
                rv = fresh(ROW, self.names)
                inner = SmtEncoder({**self.names, rv: k}, self.lengths, self.definitions, self._rec_names)
                return inner.at(row(m, ScalarVar(rv, DType.INT)), "0")
            case Flatten(m):
                # row-major: element k is the matrix element (k div cols, k mod cols) (for
                # 0 <= k < rows * cols, where Euclidean div / mod are the row and column)
                rv = fresh(ROW, self.names)
                c = self.scalar(cols(m))
                inner = SmtEncoder({**self.names, rv: f"(div {k} {c})"}, self.lengths, self.definitions,
                                   self._rec_names)
                return inner.at(row(m, ScalarVar(rv, DType.INT)), f"(mod {k} {c})")
            case Stack(var, _, body):
                # element k is the body at var = k (a 1-D stack: the body is a scalar)
                inner = SmtEncoder({**self.names, var: k}, self.lengths, self.definitions, self._rec_names)
                return inner.scalar(body)  # type: ignore[arg-type]
            case TensorScalar(op, x, s, scalar_left, dtype):
                v = self._conv(self.at(x, k), x.dtype, dtype)
                c = self._conv(self.scalar(s), s.dtype, dtype)
                return sem.smt_binop(op, c, v, dtype) if scalar_left else sem.smt_binop(op, v, c, dtype)
        raise TypeError(f"not a tensor TensIR term: {t!r}")

    def _value(self, t: Term, k: str | None) -> str:
        """A term's value at element ``k`` (tensors) or itself (scalars, broadcast)."""
        return self.at(t, k) if is_tensor(t) and k is not None else self.scalar(t)  # type: ignore[arg-type]

    def cond(self, c: Cond, k: str | None) -> str:
        """A condition at element ``k`` (``None``: all operands are scalars)."""
        match c:
            case Cmp(op, l, r):
                d = promote(l.dtype, r.dtype)
                x = self._conv(self._value(l, k), l.dtype, d)
                y = self._conv(self._value(r, k), r.dtype, d)
                return f"(not (= {x} {y}))" if op == "!=" else f"({'=' if op == '==' else op} {x} {y})"
            case BoolOp(op, l, r):
                return f"({op} {self.cond(l, k)} {self.cond(r, k)})"
            case NotCond(x):
                return f"(not {self.cond(x, k)})"
        raise TypeError(f"not a TensIR condition: {c!r}")

    def length(self, t: Tensor) -> str:
        match t:
            case TensorVar(name):
                if name not in self.lengths:
                    raise ValueError(f"length of array '{name}' is not known to the encoding")
                return self.lengths[name]
            case Take(_, n) | Full(n, _):
                return self.scalar(n)
            case Flatten(m):
                return f"(* {self.scalar(rows(m))} {self.scalar(cols(m))})"
            case Iota(start, stop):
                return f"(- {self.scalar(stop)} {self.scalar(start)})"
            case Tail(x, n):
                return f"(- {self.length(x)} {self.scalar(n)})"
            case Slice(_, lo, ScalarOp("+", lo2, n, _)) if lo2 == lo:
                return self.scalar(n)  # a row of a matrix view: its column count, not a difference
            case Slice(_, lo, hi):
                return f"(- {self.scalar(hi)} {self.scalar(lo)})"
            case Strided(_, _, n, _):
                return self.scalar(n)
            case TensorTensor(_, l, _, _):
                return self.length(l)
            case TensorScalar(_, x, _, _, _) | TensorCast(x, _) | TensorMap(_, x, _):
                return self.length(x)
            case ReduceRows(x, _):
                return self.scalar(rows(x))
            case Stack(_, count, _):
                return self.scalar(count)
            case TensorSelect(cnd, a, b, _):
                return self.length(next(u for u in (a, b, *_cond_terms(cnd)) if is_tensor(u)))
        raise TypeError(f"not a tensor TensIR term: {t!r}")

    def known_length(self, t: Tensor) -> str | None:
        """:meth:`length` of a 1-D term, or ``None`` when the encoding cannot state it (a 2-D
        term, or one whose length is that of an array the encoding has no length for)."""
        if rank(t) != 1:
            return None
        try:
            return self.length(t)
        except ValueError:
            return None

    def range_conditions(self, t: Term) -> list[str]:
        """Side conditions under which the access ops in ``t`` are in range (for
        ``take``/``slice`` of a variable only the lower bounds are checkable: arrays have
        no modelled length, their sizes are preconditions)."""
        out: list[str] = []
        match t:
            case Take(_, n) | Full(n, _):
                out.append(f"(<= 0 {self.scalar(n)})")
            case Iota(start, stop):
                out.append(f"(<= {self.scalar(start)} {self.scalar(stop)})")
            case Slice(_, lo, hi):
                out.append(f"(<= 0 {self.scalar(lo)} {self.scalar(hi)})")
            case Tail(x, n):
                out.append(f"(<= 0 {self.scalar(n)} {self.length(x)})")
            case Strided(_, a0, n, step):
                out.append(f"(<= 0 {self.scalar(a0)})")
                out.append(f"(<= 0 {self.scalar(n)})")
                out.append(f"(<= 0 {self.scalar(step)})")
            case _:
                pass
        from tenspiler.ir.terms import children

        for c in children(t):
            out += self.range_conditions(c)
        return out

    # ------------------------------------------------------------ helpers

    @staticmethod
    def _conv(x: str, src: DType, dst: DType) -> str:
        if src.is_float == dst.is_float:
            return x
        return sem.smt_cast(x, src, dst)

    def _reduction(self, kind: str, x: Tensor, dtype: DType) -> str:
        """Closed recursive function over the prefix length of ``x``'s elements.

        Parameters are the variables the element expression reads, renamed ``x0, x1, …`` in
        order of first occurrence, so that structurally equal reductions over different
        variables (a row of a matrix seen from an inner loop and from the outer one) are
        one function and agree by definition, not by induction."""
        fv = sorted(element_vars(x))
        params = {v: f"|p:{v}|" for v in fv}
        lens = {v: f"|p:{v}.len|" for v in fv if v in self.lengths}
        sub = SmtEncoder(params, lens, self.definitions, self._rec_names)
        elem = sub._conv(sub.at(x, "(- m 1)"), x.dtype, dtype)
        first = sub._conv(sub.at(x, "0"), x.dtype, dtype)
        text = elem + " " + first
        used = [(v, params[v], self._sort_of(x, v), self.names[v]) for v in fv if params[v] in text]
        used += [(v, lens[v], "Int", self.lengths[v]) for v in fv if v in lens and lens[v] in text]
        used.sort(key=lambda u: text.index(u[1]))
        for n, (_, formal, _, _) in enumerate(used):
            elem = elem.replace(formal, f"x{n}")
            first = first.replace(formal, f"x{n}")
        sig = " ".join(f"(x{n} {sort})" for n, (_, _, sort, _) in enumerate(used))
        call_args = "".join(f" x{n}" for n in range(len(used)))
        prev = f"(NAME{call_args} (- m 1))"
        rmax_body = f"(ite (<= m 1) {first} (let ((r {prev}) (e {elem})) (ite (>= r e) r e)))"
        if kind in ("rsum", "rprod"):
            unit = ("0" if kind == "rsum" else "1") + (".0" if dtype.is_float else "")
            op = "+" if kind == "rsum" else "*"
            body = f"(ite (<= m 0) {unit} ({op} {prev} {elem}))"
        elif kind == "rmax":
            body = rmax_body
        else:  # amax / amaxl: the first / last index of the maximum, through rmax of the shorter prefix
            rmax = self._define("rmax", sig, rmax_body, sem.smt_sort(dtype))
            beats = ">" if kind == "amax" else ">="
            body = f"(ite (<= m 1) 0 (ite ({beats} {elem} ({rmax}{call_args} (- m 1))) (- m 1) {prev}))"
        name = self._define(kind, sig, body, "Int" if kind in ("amax", "amaxl") else sem.smt_sort(dtype))
        args = "".join(f" {actual}" for _, _, _, actual in used)
        return f"({name}{args} {self.length(x)})"

    def _define(self, kind: str, sig: str, body: str, sort: str) -> str:
        """Name of the ``define-fun-rec`` of ``body`` (``NAME`` standing for the function
        itself) over ``sig`` and the prefix length ``m``, created on first use."""
        key = f"{kind}:{sig}:{body}"
        name = self._rec_names.get(key)
        if name is None:
            name = f"{kind}_{len(self._rec_names)}"
            self._rec_names[key] = name
            self.definitions.append(
                f"(define-fun-rec {name} ({sig} (m Int)) {sort}\n  {body.replace('NAME', name)})"
            )
        return name

    @staticmethod
    def _sort_of(x: Term, var: str) -> str:
        found: dict[str, str] = {}

        def walk(t: Term) -> None:
            from tenspiler.ir.terms import children

            if isinstance(t, TensorVar) and t.name == var:
                found[var] = array_sort(t.dtype)
            elif isinstance(t, ScalarVar) and t.name == var:
                found[var] = sem.smt_sort(t.dtype)
            for c in children(t):
                walk(c)

        walk(x)
        return found[var]


#: Name of the row-index variable inside the encoding of :class:`ReduceRows`.
ROW = "$row"


def element_vars(t: Tensor) -> set[str]:
    """Free variables of the *elements* of ``t`` (not of its length): the parameters of a
    reduction function, so that prefixes of different lengths share one function."""
    match t:
        case TensorVar(name):
            return {name}
        case Take(x, _):
            return element_vars(x)
        case Full(_, v):
            return free_vars(v)
        case Flatten(m):
            return element_vars(m)
        case Iota(a, _):
            return free_vars(a)
        case Tail(x, n):
            return element_vars(x) | free_vars(n)
        case Slice(x, lo, _):
            return element_vars(x) | free_vars(lo)
        case TensorTensor(_, l, r, _):
            return element_vars(l) | element_vars(r)
        case TensorScalar(_, x, s, _, _):
            return element_vars(x) | free_vars(s)
        case TensorCast(x, _) | TensorMap(_, x, _):
            return element_vars(x)
        case Matrix(x, _, cols, stride):
            return element_vars(x) | free_vars(cols) | (set() if stride is None else free_vars(stride))
        case Transpose(m):
            return element_vars(m) | free_vars(m.rows)
        case Strided(x, a0, _, step):
            return element_vars(x) | free_vars(a0) | free_vars(step)
        case ReduceRows(x, _):
            return element_vars(x)
        case Stack(var, _, body):
            return (element_vars(body) if is_tensor(body) else free_vars(body)) - {var}
        case TensorSelect(c, a, b, _):
            out: set[str] = set()
            for u in (a, b, *_cond_terms(c)):
                out |= element_vars(u) if is_tensor(u) else free_vars(u)
            return out
    raise TypeError(f"not a tensor TensIR term: {t!r}")


def fresh(base: str, taken: Mapping[str, str]) -> str:
    """``base``, primed until it is not a name in ``taken`` (a bound variable that does not
    capture an enclosing one)."""
    name = base
    while name in taken:
        name += "'"
    return name


def _cond_terms(c: Cond) -> list[Term]:
    match c:
        case Cmp(_, l, r):
            return [l, r]
        case BoolOp(_, l, r):
            return _cond_terms(l) + _cond_terms(r)
        case NotCond(x):
            return _cond_terms(x)
    raise TypeError(f"not a TensIR condition: {c!r}")


def _add(a: str, b: str) -> str:
    if a == "0":
        return b
    if b == "0":
        return a
    return f"(+ {a} {b})"


