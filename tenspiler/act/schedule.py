"""Device procedures: loop nests of accelerator instructions, written once, rendered to C and
run in Python.

A :class:`Proc` is a tiny imperative program — ``for`` loops, ``if``, ``let`` bindings and
instruction statements whose attributes are integer/float expressions over the procedure's
parameters (pointers, sizes, scale factors). :func:`render_c` prints it as a C function that
issues each instruction with its ``gemmini.h`` macro (the macro name and argument order come
from the ISA description); :func:`run_proc` evaluates it in Python for concrete arguments and
returns the instruction stream (the "Gemmini assembly" of that call). Because both come from
the same :class:`Proc`, the C recording check (:mod:`tenspiler.codegen.gemmini.harness`) —
the compiled C issues exactly the stream :func:`run_proc` predicts — tests the C text, the C
compiler and the macro mapping against the assembly.

Expression semantics: integers are unsigned 64-bit in C (``uint64_t``) and Python ints here;
the procedures only build non-negative values (sizes, offsets, addresses), ``//`` is C's
``/`` on them, and :func:`render_c` wraps every operation in parentheses.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from tenspiler.act.isa import Inst, IsaDescription

__all__ = [
    "E",
    "For",
    "If",
    "Instr",
    "Let",
    "Param",
    "Proc",
    "const",
    "emin",
    "render_c",
    "run_proc",
    "simplify",
    "var",
]


@dataclass(frozen=True)
class E:
    """An expression: ``op`` is ``"const"``, ``"var"``, a binary operator
    (``+ - * // %``), ``"min"``, ``"max"``, a comparison (``< <= == !=``), ``"and"``, or
    ``"select"`` (``args = (cond, a, b)``)."""

    op: str
    args: tuple[E | int | float | str, ...]

    def _bin(self, op: str, other: ExprLike, swap: bool = False) -> E:
        o = lift(other)
        return E(op, (o, self) if swap else (self, o))

    def __add__(self, o: ExprLike) -> E:
        return self._bin("+", o)

    def __radd__(self, o: ExprLike) -> E:
        return self._bin("+", o, True)

    def __sub__(self, o: ExprLike) -> E:
        return self._bin("-", o)

    def __rsub__(self, o: ExprLike) -> E:
        return self._bin("-", o, True)

    def __mul__(self, o: ExprLike) -> E:
        return self._bin("*", o)

    def __rmul__(self, o: ExprLike) -> E:
        return self._bin("*", o, True)

    def __floordiv__(self, o: ExprLike) -> E:
        return self._bin("//", o)

    def __mod__(self, o: ExprLike) -> E:
        return self._bin("%", o)

    def lt(self, o: ExprLike) -> E:
        return self._bin("<", o)

    def le(self, o: ExprLike) -> E:
        return self._bin("<=", o)

    def eq(self, o: ExprLike) -> E:
        return self._bin("==", o)


ExprLike = E | int | float


def lift(x: ExprLike) -> E:
    return x if isinstance(x, E) else const(x)


def const(v: int | float) -> E:
    return E("const", (v,))


def var(name: str) -> E:
    return E("var", (name,))


def emin(a: ExprLike, b: ExprLike) -> E:
    return E("min", (lift(a), lift(b)))


def select(c: E, a: ExprLike, b: ExprLike) -> E:
    return E("select", (c, lift(a), lift(b)))


@dataclass(frozen=True)
class Instr:
    """Issue instruction ``name`` with attribute expressions ``args`` (macro order)."""

    name: str
    args: tuple[ExprLike, ...]


@dataclass(frozen=True)
class For:
    """``for (v = start; v < stop; v += step) body``."""

    v: str
    start: ExprLike
    stop: ExprLike
    step: int
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class If:
    cond: E
    then: tuple[Stmt, ...]
    else_: tuple[Stmt, ...] = ()


@dataclass(frozen=True)
class Let:
    """``const uint64_t v = e;`` (scoped to the rest of the enclosing block)."""

    v: str
    e: ExprLike


Stmt = Instr | For | If | Let


@dataclass(frozen=True)
class Param:
    """A procedure parameter: ``kind`` ``"ptr"`` (a DRAM pointer, ``ctype`` its element type),
    ``"size"`` (``uint64_t``) or ``"float"`` (a ``float`` scale factor)."""

    name: str
    kind: Literal["ptr", "size", "float"]
    ctype: str = ""
    #: a pointer the device writes through (not ``const``)
    written: bool = False


@dataclass(frozen=True)
class Proc:
    """A device procedure: ``name(params) { body }``, with a comment saying what it computes."""

    name: str
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    doc: str = ""


# ---------------------------------------------------------------------------- Python


def _eval(e: ExprLike, env: Mapping[str, int | float]) -> int | float:
    if not isinstance(e, E):
        return e
    op, a = e.op, e.args
    if op == "const":
        return a[0]  # type: ignore[return-value]
    if op == "var":
        return env[a[0]]  # type: ignore[index]
    if op == "select":
        return _eval(a[1], env) if _eval(a[0], env) else _eval(a[2], env)  # type: ignore[arg-type]
    x, y = _eval(a[0], env), _eval(a[1], env)  # type: ignore[arg-type]
    match op:
        case "+":
            return x + y
        case "-":
            r = x - y
            if isinstance(r, int) and r < 0:
                raise ValueError(f"negative intermediate {x} - {y} in a device procedure")
            return r
        case "*":
            return x * y
        case "//":
            return x // y
        case "%":
            return x % y
        case "min":
            return min(x, y)
        case "max":
            return max(x, y)
        case "<":
            return int(x < y)
        case "<=":
            return int(x <= y)
        case "==":
            return int(x == y)
        case "!=":
            return int(x != y)
        case "and":
            return int(bool(x) and bool(y))
    raise ValueError(f"unknown operator {op}")


def run_proc(proc: Proc, args: Mapping[str, int | float]) -> list[Inst]:
    """The instruction stream ``proc`` issues for the concrete ``args`` (pointers as integer
    addresses, sizes, float scale factors). The procedure is translated once to a Python
    function (:func:`_compiled`, cached) with the semantics of :func:`_eval`.

    Raises:
        KeyError: an argument is missing.
        ValueError: a subtraction went negative (the procedures build non-negative values).
    """
    return _compiled(proc)(*(args[p.name] for p in proc.params))


def _sub(x: int | float, y: int | float) -> int | float:
    r = x - y
    if isinstance(r, int) and r < 0:
        raise ValueError(f"negative intermediate {x} - {y} in a device procedure")
    return r


_PY_BIN = {"+": "({} + {})", "*": "({} * {})", "//": "({} // {})", "%": "({} % {})", "min": "min({}, {})",
           "max": "max({}, {})", "<": "int({} < {})", "<=": "int({} <= {})", "==": "int({} == {})",
           "!=": "int({} != {})", "and": "int(bool({}) and bool({}))", "-": "_sub({}, {})"}


@functools.lru_cache(maxsize=128)
def _compiled(proc: Proc) -> Callable[..., list[Inst]]:
    """``proc`` as a Python function of its parameters returning its instruction stream.
    Every binding gets its own Python name, so a ``let`` or loop variable is visible exactly
    where :func:`_eval`'s scoped environments make it visible."""
    lines: list[str] = []
    counter = [0]

    def fresh(v: str) -> str:
        counter[0] += 1
        return f"v{counter[0]}_{v}"

    def expr(e: ExprLike, scope: Mapping[str, str]) -> str:
        if not isinstance(e, E):
            return repr(e)
        op, a = e.op, e.args
        if op == "const":
            return repr(a[0])
        if op == "var":
            return scope[str(a[0])]
        if op == "select":
            return f"({expr(a[1], scope)} if {expr(a[0], scope)} else {expr(a[2], scope)})"  # type: ignore[arg-type]
        if op not in _PY_BIN:
            raise ValueError(f"unknown operator {op}")
        return _PY_BIN[op].format(expr(a[0], scope), expr(a[1], scope))  # type: ignore[arg-type]

    def block(stmts: Sequence[Stmt], scope: dict[str, str], depth: int) -> None:
        scope = dict(scope)
        pad = "    " * depth
        start = len(lines)
        for st in stmts:
            match st:
                case Instr(name, a):
                    lines.append(f"{pad}out.append(Inst({name!r}, ({''.join(expr(x, scope) + ', ' for x in a)})))")
                case Let(v, e):
                    py = fresh(v)
                    lines.append(f"{pad}{py} = {expr(e, scope)}")
                    scope[v] = py
                case If(c, then, else_):
                    lines.append(f"{pad}if {expr(c, scope)}:")
                    block(then, scope, depth + 1)
                    lines.append(f"{pad}else:")
                    block(else_, scope, depth + 1)
                case For(v, lo, hi, step, body):
                    py = fresh(v)
                    lines.append(f"{pad}for {py} in range({expr(lo, scope)}, {expr(hi, scope)}, {step}):")
                    block(body, {**scope, v: py}, depth + 1)
        if len(lines) == start:
            lines.append(f"{pad}pass")

    params = {p.name: fresh(p.name) for p in proc.params}
    block(proc.body, params, 1)
    src = f"def _proc({', '.join(params.values())}):\n    out = []\n" + "\n".join(lines) + "\n    return out\n"
    ns: dict[str, object] = {"Inst": Inst, "_sub": _sub}
    exec(compile(src, f"<proc {proc.name}>", "exec"), ns)
    return ns["_proc"]  # type: ignore[return-value]


# ---------------------------------------------------------------------------- C


def simplify(e: ExprLike, consts: Mapping[str, int] | None = None) -> ExprLike:
    """``e`` with constant subexpressions folded, ``x*1``, ``x+0``, ``x-0``, ``x//1`` and
    ``0*x`` removed and the variables in ``consts`` replaced (for printing: :func:`render_c`;
    the recording check compares the printed C with :func:`run_proc`, so a wrong rule here
    fails it)."""
    if not isinstance(e, E):
        return e
    if e.op == "const":
        return e
    if e.op == "var":
        name = str(e.args[0])
        return const(consts[name]) if consts and name in consts else e
    args = tuple(simplify(a, consts) if isinstance(a, E) else a for a in e.args)
    folded = E(e.op, args)
    vals = [_const_int(a) for a in args]
    if all(v is not None for v in vals):
        try:
            return const(int(_eval(folded, {})))
        except (ValueError, ZeroDivisionError):
            return folded
    if len(args) == 2:
        x, y = args
        vx, vy = vals
        if isinstance(x, str) or isinstance(y, str):  # operands are expressions, never names
            return folded
        if e.op == "*" and 0 in (vx, vy):
            return const(0)
        if e.op in ("*", "//") and vy == 1:
            return x
        if e.op == "*" and vx == 1:
            return y
        if e.op in ("+", "-") and vy == 0:
            return x
        if e.op == "+" and vx == 0:
            return y
    return folded


def _c(e: ExprLike, ptrs: frozenset[str] = frozenset()) -> str:
    """C text of ``e``; a pointer parameter in ``ptrs`` reads as its byte address."""
    if not isinstance(e, E):
        return _c_const(e)
    op, a = e.op, e.args
    if op == "const":
        return _c_const(a[0])  # type: ignore[arg-type]
    if op == "var":
        return f"((uint64_t)({a[0]}))" if a[0] in ptrs else str(a[0])
    if op == "select":
        return f"({_c(a[0], ptrs)} ? {_c(a[1], ptrs)} : {_c(a[2], ptrs)})"  # type: ignore[arg-type]
    x, y = _c(a[0], ptrs), _c(a[1], ptrs)  # type: ignore[arg-type]
    if op in ("min", "max"):
        return f"TENSPILER_{op.upper()}({x}, {y})"
    c_op = {"//": "/", "and": "&&"}.get(op, op)
    return f"({x} {c_op} {y})"


def _const_int(e: object) -> int | None:
    """The value of an integer constant expression, else ``None``."""
    if isinstance(e, E) and e.op == "const" and isinstance(e.args[0], int) and not isinstance(e.args[0], bool):
        return e.args[0]
    return None


def _c_const(v: int | float | str) -> str:
    if isinstance(v, float):
        return f"{v!r}f" if math.isfinite(v) else "NAN"
    if isinstance(v, int):
        return f"{v}u" if v < 2**31 else f"{v:#x}ull"
    return str(v)


def _c_arg(kind: str, e: ExprLike, ptrs: frozenset[str]) -> str:
    text = _c(e, ptrs)
    return f"(float)({text})" if kind == "float" else text


def render_c(proc: Proc, isa: IsaDescription, indent: str = "    ") -> str:
    """``proc`` as a ``static void`` C function issuing ``gemmini.h`` macros (the macro of each
    instruction and its argument order from ``isa``)."""
    params = ", ".join(
        f"{'' if p.written else 'const '}{p.ctype} *{p.name}" if p.kind == "ptr" else f"uint64_t {p.name}" if p.kind == "size" else f"float {p.name}"
        for p in proc.params
    )
    ptrs = frozenset(p.name for p in proc.params if p.kind == "ptr")
    lines: list[str] = []
    if proc.doc:
        lines += ["/* " + proc.doc.replace("*/", "* /").replace("\n", "\n * ") + " */"]
    lines.append(f"static void {proc.name}({params}) {{")
    marker_args = ", ".join(f"(uint64_t)({p.name})" if p.kind != "float" else f"tenspiler_fbits({p.name})" for p in proc.params)
    lines.append(f'{indent}TENSPILER_PROC("{proc.name}", {len(proc.params)}{", " + marker_args if marker_args else ""});')

    consts: dict[str, int] = {}

    def block(stmts: Sequence[Stmt], depth: int) -> None:
        pad = indent * depth
        for s in stmts:
            match s:
                case Instr(name, a):
                    spec = isa.spec(name)
                    args = [_c_arg(at.kind, simplify(x, consts), ptrs) for at, x in zip(spec.attrs, a, strict=True)]
                    args += [str(v) for v in spec.fixed_args]
                    lines.append(f"{pad}{spec.macro}({', '.join(args)});")
                case Let(v, e):
                    lines.append(f"{pad}const uint64_t {v} = {_c(simplify(e, consts), ptrs)};")
                case If(c, then, else_):
                    lines.append(f"{pad}if ({_c(simplify(c, consts), ptrs)}) {{")
                    block(then, depth + 1)
                    if else_:
                        lines.append(f"{pad}}} else {{")
                        block(else_, depth + 1)
                    lines.append(f"{pad}}}")
                case For(v, start, stop, step, body):
                    lo, hi = simplify(start, consts), simplify(stop, consts)
                    clo, chi = _const_int(lo), _const_int(hi)
                    if clo is not None and chi is not None and clo < chi <= clo + step:
                        # one iteration: the loop variable is a constant of the body
                        saved = consts.get(v)
                        consts[v] = clo
                        block(body, depth)
                        if saved is None:
                            del consts[v]
                        else:
                            consts[v] = saved
                        continue
                    if clo is not None and chi is not None and chi <= clo:
                        continue  # no iteration
                    shadowed = consts.pop(v, None)
                    lines.append(f"{pad}for (uint64_t {v} = {_c(lo, ptrs)}; {v} < {_c(hi, ptrs)}; {v} += {step}) {{")
                    block(body, depth + 1)
                    lines.append(f"{pad}}}")
                    if shadowed is not None:
                        consts[v] = shadowed

    block(proc.body, 1)
    lines.append("}")
    return "\n".join(lines) + "\n"
