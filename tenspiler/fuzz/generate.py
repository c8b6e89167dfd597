"""Write small random kernels (C and legacy Python) for the fuzzer.

Every generator is a function of a :class:`Draw` (three primitive choices), so the same code
runs under hypothesis (:func:`c_kernels`, :func:`python_kernels`, :func:`kernels`:
strategies whose examples shrink) and from a seeded :class:`random.Random`
(:func:`random_kernel`, used by the long campaign).

The kernels deliberately stray outside what the frontends accept (unsigned and short types,
``uint32_t``, ``%``/``/`` everywhere, carried scalars, macros redefined after ``#undef``,
rebound Python globals, ...): the tool must then refuse them cleanly.

A :class:`KernelSpec` carries the source plus what the oracle needs to call it: each
parameter's C type, whether it is an array, and the length of every array as a function of
the size parameters.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")


# --------------------------------------------------------------------------- types


@dataclass(frozen=True)
class CType:
    """A C scalar type: its spelling and machine meaning (LP64, x86-64 gcc)."""

    spelling: str
    kind: str  # "int" or "float"
    bits: int
    signed: bool = True

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def lo(self) -> int:
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def hi(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1


_TYPES = [
    CType("int", "int", 32),
    CType("long", "int", 64),
    CType("long long", "int", 64),
    CType("short", "int", 16),
    CType("char", "int", 8),
    CType("signed char", "int", 8),
    CType("unsigned char", "int", 8, False),
    CType("unsigned", "int", 32, False),
    CType("unsigned int", "int", 32, False),
    CType("unsigned long", "int", 64, False),
    CType("unsigned short", "int", 16, False),
    CType("uint8_t", "int", 8, False),
    CType("int8_t", "int", 8),
    CType("int32_t", "int", 32),
    CType("int64_t", "int", 64),
    CType("uint32_t", "int", 32, False),
    CType("size_t", "int", 64, False),
    CType("float", "float", 32),
    CType("double", "float", 64),
]
TYPES: dict[str, CType] = {t.spelling: t for t in _TYPES}

#: types the C frontend documents as accepted (drawn more often, so that much gets lifted)
_ACCEPTED = ["int", "int", "int", "long", "int64_t", "int32_t", "unsigned char", "uint8_t", "float", "double"]
_OTHER = ["long long", "short", "char", "signed char", "unsigned", "unsigned int", "unsigned long",
          "unsigned short", "int8_t", "uint32_t", "size_t"]


def ctype(spelling: str) -> CType:
    return TYPES[spelling]


# --------------------------------------------------------------------------- draws


class Draw:
    """The three primitive choices every generator is written with."""

    def __init__(self, choose: Callable[[Sequence[Any]], Any], integer: Callable[[int, int], int]) -> None:
        self._choose = choose
        self._integer = integer

    def pick(self, options: Sequence[T]) -> T:
        return self._choose(list(options))  # type: ignore[no-any-return]

    def integer(self, lo: int, hi: int) -> int:
        return self._integer(lo, hi)

    def coin(self, percent: int = 50) -> bool:
        return self._integer(0, 99) < percent

    @staticmethod
    def from_random(rng: random.Random) -> Draw:
        return Draw(rng.choice, rng.randint)

    @staticmethod
    def from_hypothesis(draw: Callable[[Any], Any]) -> Draw:
        from hypothesis import strategies as st

        return Draw(lambda xs: draw(st.sampled_from(xs)), lambda lo, hi: draw(st.integers(lo, hi)))


# --------------------------------------------------------------------------- specs


@dataclass(frozen=True)
class Param:
    """A parameter of the kernel: ``extent`` is the array length as a Python expression over
    the size parameters (``"n + 1"``, ``"m * n"``); ``None`` for a scalar. ``size`` marks
    a loop-bound parameter (``n``, ``m``), chosen by the oracle, not drawn as data."""

    name: str
    ctype: str
    array: bool = False
    extent: str | None = None
    size: bool = False


@dataclass
class KernelSpec:
    name: str
    language: str  # "c" or "python"
    source: str
    function: str
    params: list[Param]
    ret: str | None  # C type of the return value (python: "int"/"float"/"list")
    constants: list[float] = field(default_factory=list)
    features: list[str] = field(default_factory=list)
    shape: str = "1d"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "language": self.language, "source": self.source,
            "function": self.function, "ret": self.ret, "constants": self.constants,
            "features": self.features, "shape": self.shape,
            "params": [p.__dict__ for p in self.params],
        }

    @staticmethod
    def from_json(d: dict[str, Any]) -> KernelSpec:
        return KernelSpec(
            d["name"], d["language"], d["source"], d["function"], [Param(**p) for p in d["params"]],
            d["ret"], list(d.get("constants", [])), list(d.get("features", [])), d.get("shape", "1d"),
        )


# --------------------------------------------------------------------------- C kernels


def _int_literal(d: Draw, value: int, feats: set[str]) -> str:
    """``value`` spelled with a random base and suffix (a negative value as ``-lit``)."""
    sign, v = ("-", -value) if value < 0 else ("", value)
    base = d.pick(["dec", "dec", "dec", "hex", "oct"]) if v > 7 else "dec"
    text = {"dec": str(v), "hex": hex(v) if d.coin() else hex(v).upper().replace("0X", "0x"),
            "oct": "0" + oct(v)[2:]}[base]
    suffix = d.pick(["", "", "", "", "u", "U", "l", "L", "ul", "UL", "LL"])
    if base != "dec":
        feats.add("literal-" + base)
    if suffix:
        feats.add("literal-suffix")
    return sign + text + suffix


def _float_literal(d: Draw, value: float, feats: set[str]) -> str:
    text = repr(value)
    if "e" not in text and "." not in text:
        text += ".0"
    if d.coin(40):
        feats.add("float-literal-f")
        return text + "f"
    return text


class _CGen:
    """One C kernel being written."""

    def __init__(self, d: Draw) -> None:
        self.d = d
        self.feats: set[str] = set()
        self.constants: list[float] = []
        self.helpers: list[str] = []
        self.macros: list[str] = []
        self.macro_names: list[str] = []
        self.depth_limit = 2
        self.allow_mod = True

    # leaves -----------------------------------------------------------------

    def literal(self, float_ctx: bool) -> str:
        d = self.d
        if float_ctx and d.coin(70):
            v = d.pick([0.0, 0.5, 0.1, 1.0, 2.0, 1e-3, 3.25, 100.0, 0.7, 0.1, 0.3, 1.1, 0.2])
            self.constants.append(v)
            return _float_literal(d, v, self.feats)
        v = d.pick([0, 1, 1, 2, 3, 7, 10, 100, 127, 128, 255, 256, 1000, 65535, 0x7F, 0x7FFFFFFF,
                    0xFFFFFFFF, 2147483648, -1, -2, -128])
        self.constants.append(v)
        if abs(v) >= 0x7FFFFFFF:
            self.feats.add("literal-wide")
        return _int_literal(d, v, self.feats)

    def leaf(self, env: dict[str, list[str]], float_ctx: bool) -> str:
        d = self.d
        kinds = ["load"] * 5 + ["scalar"] * 2 + ["lit"] * 2 + (["macro"] if self.macro_names else []) + ["var"]
        kind = d.pick(kinds)
        if kind == "load" and env["loads"]:
            return d.pick(env["loads"])
        if kind == "scalar" and env["scalars"]:
            return d.pick(env["scalars"])
        if kind == "macro":
            self.feats.add("macro")
            return d.pick(self.macro_names)
        if kind == "var" and env["vars"]:
            return d.pick(env["vars"])
        return self.literal(float_ctx)

    # expressions ------------------------------------------------------------

    def cond(self, env: dict[str, list[str]], float_ctx: bool) -> str:
        d = self.d
        a = self.leaf(env, float_ctx) if d.coin(50) else self.expr(env, float_ctx, 1)
        b = self.literal(float_ctx) if d.coin(70) else self.expr(env, float_ctx, 1)
        op = d.pick(["<", "<=", ">", ">=", "==", "!="])
        c = f"{a} {op} {b}"
        if d.coin(15):
            self.feats.add("short-circuit")
            x = self.leaf(env, float_ctx)
            c = f"{x} != 0 && {d.pick(env['loads'] or ['1'])} / {x} > {self.literal(False)}"
        elif d.coin(10):
            c = f"({c}) {d.pick(['&&', '||'])} ({self.expr(env, float_ctx, 1)} {d.pick(['<', '>'])} {self.literal(float_ctx)})"
        return c

    def expr(self, env: dict[str, list[str]], float_ctx: bool, depth: int = 0) -> str:
        d = self.d
        if depth >= self.depth_limit or d.coin(35):
            return self.leaf(env, float_ctx)
        k = d.pick(["bin"] * 6 + ["cast", "select", "call", "paren"])
        if k == "bin":
            op = d.pick(["+", "+", "-", "*", "*", "/", "%"] if self.allow_mod else ["+", "+", "-", "*", "*", "/"])
            if op in "/%":
                self.feats.add("div" if op == "/" else "mod")
            a = self.expr(env, float_ctx, depth + 1)
            b = self.expr(env, float_ctx, depth + 1)
            return f"({a} {op} {b})"
        if k == "cast":
            t = _pick_type(d)
            self.feats.add("cast")
            if ctype(t).bits < 32 or not ctype(t).signed:
                self.feats.add("cast-narrow-or-unsigned")
            return f"(({t}) {self.expr(env, float_ctx, depth + 1)})"
        if k == "select":
            self.feats.add("select")
            return f"({self.cond(env, float_ctx)} ? {self.expr(env, float_ctx, depth + 1)} : {self.expr(env, float_ctx, depth + 1)})"
        if k == "call" and self.helpers:
            self.feats.add("helper")
            name = d.pick(self.helpers)
            return f"{name}({self.expr(env, float_ctx, depth + 1)}, {self.expr(env, float_ctx, depth + 1)})"
        return f"({self.expr(env, float_ctx, depth + 1)})"

    # pieces -----------------------------------------------------------------

    def make_macros(self, float_ctx: bool) -> str:
        d = self.d
        lines: list[str] = []
        for idx in range(d.integer(0, 2)):
            name = f"K{idx}"
            lines.append(f"#define {name} {self.literal(float_ctx)}")
            if d.coin(30):
                self.feats.add("macro-redefined")
                lines.append(f"#undef {name}")
                lines.append(f"#define {name} {self.literal(float_ctx)}")
            if d.coin(10):
                self.feats.add("macro-expression")
                lines.append(f"#undef {name}")
                lines.append(f"#define {name} ({self.literal(float_ctx)} + 1)")
            self.macro_names.append(name)
        return "\n".join(lines)

    def make_helper(self, t: str) -> str:
        d = self.d
        name = d.pick(["h", "mix", "clampv", "pick"])
        self.feats.add("helper")
        env = {"loads": ["a", "b"], "scalars": [], "vars": []}
        self.depth_limit = 1
        body = self.expr(env, ctype(t).is_float, 0)
        if d.coin(40):
            body = f"a {d.pick(['>', '<'])} b ? a : b"
        self.depth_limit = 2
        kw = "static " if d.coin(80) else "static inline "
        self.helpers.append(name)
        return f"{kw}{t} {name}({t} a, {t} b) {{ return {body}; }}"


#: share (percent) of type draws outside the accepted set; c_kernel sets it per kernel
_WILD = [20]


def _pick_type(d: Draw, accepted_percent: int | None = None) -> str:
    pct = 100 - _WILD[0] if accepted_percent is None else accepted_percent
    return d.pick(_ACCEPTED) if d.coin(pct) else d.pick(_OTHER)


def c_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """A random C kernel: one counted loop, or a doubly nested loop over a row-major matrix."""
    g = _CGen(d)
    _WILD[0] = 25 if d.coin(35) else 0  # most kernels use only documented types
    nested = d.coin(35)
    elem = _pick_type(d)
    out_t = elem if d.coin(65) else _pick_type(d)
    acc_t = elem if d.coin(50) else _pick_type(d)
    scal_t = elem if d.coin(60) else _pick_type(d)
    float_ctx = ctype(elem).is_float or ctype(acc_t).is_float
    g.allow_mod = not any(ctype(t).is_float for t in (elem, out_t, acc_t, scal_t))
    macros = g.make_macros(float_ctx) if d.coin(40) else ""
    helper = g.make_helper(elem if d.coin(70) else acc_t) if d.coin(20) else ""
    if nested:
        body, params, ret, shape = _nested_body(g, elem, out_t, acc_t, scal_t, float_ctx)
    else:
        body, params, ret, shape = _single_body(g, elem, out_t, acc_t, scal_t, float_ctx)
    sig = ", ".join(f"{p.ctype} *{p.name}" if p.array else f"{p.ctype} {p.name}" for p in params)
    head = "#include <stdint.h>\n#include <stddef.h>\n"
    parts = [head + (macros + "\n" if macros else "")]
    if helper:
        parts.append(helper + "\n")
    parts.append(f"{ret or 'void'} {name}({sig}) {{\n{body}}}\n")
    if g.macro_names and d.coin(25):
        # a redefinition after the function: the body keeps the definition in force above it
        g.feats.add("macro-redefined-after")
        m = d.pick(g.macro_names)
        parts.append(f"#undef {m}\n#define {m} {g.literal(float_ctx)}\n")
    src = "".join(parts)
    for p in params:
        if ctype(p.ctype).spelling not in _ACCEPTED:
            g.feats.add("type-" + p.ctype.replace(" ", "-"))
    return KernelSpec(name, "c", src, name, params, ret, sorted(set(g.constants), key=repr), sorted(g.feats), shape)


def _single_body(g: _CGen, elem: str, out_t: str, acc_t: str, scal_t: str, float_ctx: bool):
    d = g.d
    max_off = d.pick([0, 0, 0, 1, 2])
    start = d.pick([0, 0, 0, 1])
    n_in = d.integer(1, 2)
    ins = ["a", "b"][:n_in]
    extent = "n" if max_off == 0 else f"n + {max_off}"
    params = [Param(x, elem, True, extent) for x in ins]
    has_out = d.coin(70)
    has_acc = d.coin(60) or not has_out
    if has_out:
        params.append(Param("out", out_t, True, "n"))
    has_k = d.coin(50)
    if has_k:
        params.append(Param("k", scal_t))
    params.append(Param("n", d.pick(["int", "int", "int", "long"] + (["unsigned", "size_t"] if _WILD[0] else [])), size=True))
    if params[-1].ctype != "int":
        g.feats.add("bound-" + params[-1].ctype)
    loads = [f"{x}[i]" for x in ins]
    for x in ins:
        for off in range(1, max_off + 1):
            loads.append(f"{x}[i + {off}]")
            g.feats.add("offset")
    env = {"loads": loads, "scalars": ["k"] if has_k else [], "vars": []}
    lines: list[str] = []
    if has_acc:
        init = g.literal(ctype(acc_t).is_float) if d.coin(40) else "0"
        lines.append(f"  {acc_t} s = {init};")
    prev = d.coin(20)
    if prev:
        g.feats.add("prev")
        lines.append(f"  {elem} prev = 0;")
        env["vars"].append("prev")
    flag = d.coin(15)
    if flag:
        g.feats.add("flag")
        lines.append("  int flag = 0;")
    if d.coin(20):
        env["vars"].append("i")
        g.feats.add("index-value")
    loop_var = "long i" if d.coin(10) else "int i"
    step = d.pick(["i++", "i++", "++i", "i += 1", "i = i + 1"])
    lines.append(f"  for ({loop_var} = {start}; i < n; {step}) {{")
    if d.coin(20):
        tmp_t = d.pick([elem, acc_t, _pick_type(d)])
        lines.append(f"    {tmp_t} t = {g.expr(env, float_ctx)};")
        env["vars"].append("t")
        g.feats.add("local")
    if has_out:
        if d.coin(30):
            g.feats.add("if-else")
            lines.append(f"    if ({g.cond(env, float_ctx)}) out[i] = {g.expr(env, float_ctx)};")
            if d.coin(70):
                lines.append(f"    else out[i] = {g.expr(env, float_ctx)};")
            else:
                g.feats.add("if-no-else-store")
        else:
            lines.append(f"    out[i] = {g.expr(env, float_ctx)};")
    if has_acc:
        form = d.pick(["plus", "pluseq", "ifplus", "max", "minus", "times", "div"])
        e = g.expr(env, float_ctx)
        if form == "plus":
            lines.append(f"    s = s + {e};")
        elif form == "pluseq":
            lines.append(f"    s += {e};")
        elif form == "minus":
            lines.append(f"    s -= {e};")
        elif form == "ifplus":
            g.feats.add("cond-reduction")
            lines.append(f"    if ({g.cond(env, float_ctx)}) s += {e};")
        elif form == "max":
            g.feats.add("max-reduction")
            lines.append(f"    if ({e} > s) s = {e};")
        elif form == "times":
            g.feats.add("product-reduction")
            lines.append(f"    s = s * {e};")
        else:
            g.feats.add("div-in-loop")
            lines.append(f"    s = s + {e} / (k != 0 ? k : 1);" if has_k else f"    s = s + {e} / 2;")
    if flag:
        lines.append(f"    if ({g.cond(env, float_ctx)}) flag = 1;")
    if prev:
        lines.append(f"    prev = {ins[0]}[i];")
    lines.append("  }")
    ret: str | None = None
    if has_acc and d.coin(85):
        ret = d.pick([acc_t, acc_t, _pick_type(d)])
        tail = d.pick(["s", "s", "s / n", "s + flag" if flag else "s", "s % 7" if g.allow_mod else "s / 7"])
        if "/" in tail or "%" in tail:
            g.feats.add("post-div")
        if "flag" in tail:
            g.feats.add("flag-returned")
        lines.append(f"  return {tail};")
    elif flag and d.coin(50):
        ret = "int"
        lines.append("  return flag;")
    return "\n".join(lines) + "\n", params, ret, "1d"


def _nested_body(g: _CGen, elem: str, out_t: str, acc_t: str, scal_t: str, float_ctx: bool):
    d = g.d
    g.feats.add("nested")
    params = [Param("A", elem, True, "m * n")]
    has_x = d.coin(60)
    if has_x:
        params.append(Param("x", elem, True, "n"))
    elementwise = d.coin(40)
    if elementwise:
        params.append(Param("B", out_t, True, "m * n"))
    params.append(Param("out", acc_t if d.coin(60) else out_t, True, "m"))
    has_k = d.coin(35)
    if has_k:
        params.append(Param("k", scal_t))
    params += [Param("m", "int", size=True), Param("n", "int", size=True)]
    loads = ["A[i * n + j]", "A[i*n+j]"] + (["x[j]"] if has_x else [])
    env = {"loads": loads, "scalars": ["k"] if has_k else [], "vars": []}
    if d.coin(15):
        env["vars"].append("j")
    carried = d.coin(30)
    init = "0" if d.coin(70) else g.literal(ctype(acc_t).is_float)
    lines: list[str] = []
    if carried:
        g.feats.add("carried-across-rows")
        lines.append(f"  {acc_t} s = {init};")
    lines.append("  for (int i = 0; i < m; i++) {")
    if not carried:
        lines.append(f"    {acc_t} s = {init};")
    lines.append("    for (int j = 0; j < n; j++) {")
    if elementwise:
        if d.coin(25):
            g.feats.add("if-else")
            lines.append(f"      if ({g.cond(env, float_ctx)}) B[i * n + j] = {g.expr(env, float_ctx)};")
            lines.append(f"      else B[i * n + j] = {g.expr(env, float_ctx)};")
        else:
            lines.append(f"      B[i * n + j] = {g.expr(env, float_ctx)};")
    form = d.pick(["plus", "pluseq", "ifplus", "max"])
    e = g.expr(env, float_ctx)
    if form == "plus":
        lines.append(f"      s = s + {e};")
    elif form == "pluseq":
        lines.append(f"      s += {e};")
    elif form == "ifplus":
        g.feats.add("cond-reduction")
        lines.append(f"      if ({g.cond(env, float_ctx)}) s += {e};")
    else:
        g.feats.add("max-reduction")
        lines.append(f"      if ({e} > s) s = {e};")
    lines.append("    }")
    lines.append(d.pick(["    out[i] = s;", "    out[i] = s;", f"    out[i] = s {d.pick(['+', '*', '/'])} {g.literal(float_ctx)};"]))
    lines.append("  }")
    ret = None
    if carried and d.coin(40):
        ret = acc_t
        lines.append("  return s;")
    return "\n".join(lines) + "\n", params, ret, "2d"


# --------------------------------------------------------------------------- Python kernels


def python_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """A legacy-Python kernel over lists (1-D, sometimes 2-D), ints or floats."""
    feats: set[str] = set()
    consts: list[float] = []
    is_float = d.coin(35)
    et = "float" if is_float else "int"
    nested = d.coin(25)

    def lit() -> str:
        if is_float and d.coin(60):
            v = d.pick([0.5, 0.1, 2.0, 1.5, 100.0])
        else:
            v = d.pick([0, 1, 2, 3, 7, 10, 100, 255, -1, -3])
        consts.append(v)
        return repr(v)

    glob_lines: list[str] = []
    late_lines: list[str] = []
    globals_: list[str] = []
    if d.coin(35):
        glob_lines.append(f"K = {lit()}")
        globals_.append("K")
        feats.add("global")
        if d.coin(40):
            feats.add("global-rebound")
            where = d.pick(["before", "after"])
            (glob_lines if where == "before" else late_lines).append(f"K = {lit()}")

    leaves = ["xs[i]"] if not nested else ["m[i][j]"]
    two = d.coin(50)
    if two:
        leaves.append("ys[i]" if not nested else "v[j]")
    scal = d.coin(40)
    if scal:
        leaves.append("c")
    leaves += globals_

    def leaf() -> str:
        return d.pick(leaves * 2 + [lit()] + (["i"] if d.coin(15) else []))

    def expr(depth: int = 0) -> str:
        if depth >= 2 or d.coin(35):
            return leaf()
        k = d.pick(["bin"] * 5 + ["ifexp", "minmax", "abs", "int"])
        if k == "bin":
            ops = ["+", "-", "*", "//", "%"] if not is_float else ["+", "-", "*", "/"]
            op = d.pick(ops)
            if op in ("//", "%", "/"):
                feats.add("div")
            return f"({expr(depth + 1)} {op} {expr(depth + 1)})"
        if k == "ifexp":
            feats.add("select")
            return f"({expr(depth + 1)} if {expr(depth + 1)} {d.pick(['<', '>', '<=', '>=', '==', '!='])} {lit()} else {expr(depth + 1)})"
        if k == "minmax":
            return f"{d.pick(['min', 'max'])}({expr(depth + 1)}, {expr(depth + 1)})"
        if k == "abs":
            return f"abs({expr(depth + 1)})"
        feats.add("int-cast")
        return f"int({expr(depth + 1)})"

    ann = "list[float]" if is_float else "list[int]"
    ann2 = "list[list[float]]" if is_float else "list[list[int]]"
    params: list[Param] = []
    args: list[str] = []
    ctype_name = "double" if is_float else "int"
    if nested:
        feats.add("nested")
        args.append(f"m: {ann2}")
        params.append(Param("m", ctype_name, True, "2d"))
        if two:
            args.append(f"v: {ann}")
            params.append(Param("v", ctype_name, True, "cols"))
    else:
        args.append(f"xs: {ann}")
        params.append(Param("xs", ctype_name, True, "n"))
        if two:
            args.append(f"ys: {ann}")
            params.append(Param("ys", ctype_name, True, "n"))
    if scal:
        args.append(f"c: {et}")
        params.append(Param("c", ctype_name))
    body: list[str] = []
    reduce = d.coin(50)
    if nested:
        body.append("    out = []")
        body.append("    for i in range(len(m)):")
        if reduce:
            body.append("        s = 0" + (".0" if is_float else ""))
            body.append("        for j in range(len(m[0])):")
            if d.coin(30):
                feats.add("cond-reduction")
                body.append(f"            if {expr(1)} > {lit()}:")
                body.append(f"                s += {expr()}")
            else:
                body.append(f"            s += {expr()}")
            body.append("        out.append(s)")
        else:
            body.append("        row = []")
            body.append("        for j in range(len(m[0])):")
            body.append(f"            row.append({expr()})")
            body.append("        out.append(row)")
        body.append("    return out")
        ret = "list"
    else:
        loop = d.pick(["range", "range", "while"])
        if reduce:
            body.append("    s = 0" + (".0" if is_float and d.coin(50) else ""))
        else:
            body.append("    out = []")
        if loop == "range":
            body.append("    for i in range(len(xs)):")
            ind = "        "
        else:
            feats.add("while")
            body.append("    i = 0")
            body.append("    while i < len(xs):")
            ind = "        "
        if reduce:
            if d.coin(30):
                feats.add("cond-reduction")
                body.append(f"{ind}if {expr(1)} {d.pick(['<', '>'])} {lit()}:")
                body.append(f"{ind}    s += {expr()}")
                if d.coin(40):
                    body.append(f"{ind}else:")
                    body.append(f"{ind}    s -= {expr()}")
            else:
                body.append(f"{ind}s {d.pick(['+=', '+=', '-='])} {expr()}")
        else:
            body.append(f"{ind}out.append({expr()})")
        if loop == "while":
            body.append(f"{ind}i += 1")
        body.append("    return s" if reduce else "    return out")
        ret = ("float" if is_float else "int") if reduce else "list"
    src = "\n".join([*glob_lines, "", "", f"def {name}({', '.join(args)}):", *body, "", *late_lines]) + "\n"
    return KernelSpec(name, "python", src, name, params, ret, sorted(set(consts), key=repr), sorted(feats),
                      "2d" if nested else "1d")


# --------------------------------------------------------------------------- entry points


def random_kernel(rng: random.Random, python_share: int = 25, name: str = "kern") -> KernelSpec:
    d = Draw.from_random(rng)
    return python_kernel(d, name) if d.coin(python_share) else c_kernel(d, name)


def c_kernels() -> Any:
    """Hypothesis strategy of C :class:`KernelSpec`."""
    from hypothesis import strategies as st

    return st.composite(lambda draw: c_kernel(Draw.from_hypothesis(draw)))()


def python_kernels() -> Any:
    """Hypothesis strategy of Python :class:`KernelSpec`."""
    from hypothesis import strategies as st

    return st.composite(lambda draw: python_kernel(Draw.from_hypothesis(draw)))()


def kernels(python_share: int = 25) -> Any:
    """Hypothesis strategy of C and Python kernels."""
    from hypothesis import strategies as st

    return st.composite(lambda draw: random_kernel_from(Draw.from_hypothesis(draw), python_share))()


def random_kernel_from(d: Draw, python_share: int = 25, name: str = "kern") -> KernelSpec:
    return python_kernel(d, name) if d.coin(python_share) else c_kernel(d, name)
