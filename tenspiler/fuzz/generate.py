"""Write small random kernels (C and legacy Python) for the fuzzer.

Every generator is a function of a :class:`Draw` (three primitive choices), so the same code
runs under hypothesis (:func:`c_kernels`, :func:`python_kernels`, :func:`kernels`:
strategies whose examples shrink) and from a seeded :class:`random.Random`
(:func:`random_kernel`, used by the long campaign).

Shapes: one counted loop, a two-deep nest over a row-major matrix, several top-level loops
one after another (loop phases: a reduction read by a later loop, an array written and then
read or rewritten, running maxima from index 1, straight-line code between the loops, later
bounds ``n - 1`` / a local / a copy of a loop-computed count), fills and the loop counter
used as a value (``a[i] = v``, ``a[i] = i``, ``a[i] = b[i] + 2 * i``, ``s * i + 1.0f``), legacy
Python loops and the Python idioms (comprehensions, ``sum`` / ``max`` / ``min`` of a
generator, ``zip``, ``enumerate``, several loops per function), running products (``p *= F`` from ``1``,
sometimes from another start) and indices of extrema (argmax / argmin with their
near-misses), C and Python.

The kernels deliberately stray outside what the frontends accept (unsigned and short types,
``uint32_t``, ``%``/``/`` everywhere, carried scalars, macros redefined after ``#undef``,
rebound Python globals, ...): the tool must then refuse them cleanly.

A :class:`KernelSpec` carries the source plus what the oracle needs to call it: each
parameter's C type, whether it is an array, and the length of every array as a function of
the size parameters.
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Callable
from typing import Any

# re-exported: the fuzzer's users import them from here
from tenspiler.fuzz.spec import TYPES as TYPES
from tenspiler.fuzz.spec import CType as CType
from tenspiler.fuzz.spec import Draw as Draw
from tenspiler.fuzz.spec import KernelSpec as KernelSpec
from tenspiler.fuzz.spec import Param as Param
from tenspiler.fuzz.spec import ctype as ctype

# --------------------------------------------------------------------------- types, draws, specs
# (CType, TYPES, Draw, Param, KernelSpec: tenspiler.fuzz.spec, shared with the idioms and the oracle)

#: types the C frontend documents as accepted (drawn more often, so that much gets lifted)
_ACCEPTED = ["int", "int", "int", "long", "int64_t", "int32_t", "unsigned char", "uint8_t", "float", "double"]
_OTHER = ["long long", "short", "char", "signed char", "unsigned", "unsigned int", "unsigned long",
          "unsigned short", "int8_t", "uint32_t", "size_t"]


#: What a body generator returns: the C text, the parameters, the return type, the shape.
_Body = tuple[str, list[Param], str | None, str]


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
        #: plain decimal integer literals without suffix (the phase kernels use it often, so
        #: that their loops are not all refused for an unsigned literal)
        self.plain = False

    # leaves -----------------------------------------------------------------

    def literal(self, float_ctx: bool) -> str:
        d = self.d
        if float_ctx and d.coin(70):
            v = d.pick([0.0, 0.5, 0.1, 1.0, 2.0, 1e-3, 3.25, 100.0, 0.7, 0.1, 0.3, 1.1, 0.2])
            self.constants.append(v)
            return _float_literal(d, v, self.feats)
        v = d.pick([0, 1, 1, 2, 3, 7, 10, 100, 127, 128, 255, 256, 1000, 65535, 0x7F, 0x7FFFFFFF,
                    0xFFFFFFFF, 2147483648, -1, -2, -128])
        if self.plain and abs(v) >= 0x7FFFFFFF:
            v = d.pick([0, 1, 2, 3, 7, 10, 100, 127, -1])
        self.constants.append(v)
        if self.plain:
            return str(v)
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

#: percent chances of the shapes added with 0cecdf2 / 32c1d3d / bd37f49 (descending loops,
#: running minima, matrix outputs of a nest); ``TENSPILER_FUZZ_SHAPES=new`` (read by
#: :func:`random_kernel_from`) biases a campaign towards them
_SHAPES_DEFAULT: dict[str, int] = {"descending": 15, "running": 15, "inplace": 15, "dependent": 35,
                                   "matrix": 35, "nested": 35, "phases": 30}
_SHAPES_NEW: dict[str, int] = {"descending": 55, "running": 35, "inplace": 30, "dependent": 40,
                               "matrix": 80, "nested": 40, "phases": 10}
_SHAPES_DEFAULT["deep"] = _SHAPES_NEW["deep"] = 8
#: ``TENSPILER_FUZZ_SHAPES=deep``: mostly loop nests three deep (:func:`_deep_body`,
#: :func:`python_deep_kernel`)
_SHAPES_DEEP: dict[str, int] = {**_SHAPES_DEFAULT, "deep": 85}
_SHAPES: dict[str, int] = dict(_SHAPES_DEFAULT)
_DEEP_WIDER = {"int": "long", "float": "double", "int32_t": "int64_t"}


def _pick_type(d: Draw, accepted_percent: int | None = None) -> str:
    pct = 100 - _WILD[0] if accepted_percent is None else accepted_percent
    return d.pick(_ACCEPTED) if d.coin(pct) else d.pick(_OTHER)


def c_kernel(d: Draw, name: str = "kern", shape: str | None = None) -> KernelSpec:
    """A random C kernel: one counted loop, a doubly nested loop over a row-major matrix,
    several top-level loops one after another (loop phases, :func:`_phases_body`), a running
    product or the index of an extremum; ``shape`` (``"product"``, ``"argmax"``) forces one."""
    g = _CGen(d)
    _WILD[0] = 25 if d.coin(35) else 0  # most kernels use only documented types
    deep = shape is None and d.coin(_SHAPES["deep"])
    nested = d.coin(_SHAPES["nested"])
    if deep:
        # GEMM-like nests: mostly int / long / float / double, one type for all
        elem = d.pick(["int", "int", "long", "float", "float", "double"]) if d.coin(88) else _pick_type(d)
        out_t = elem if d.coin(85) else _pick_type(d)
        acc_t = elem if d.coin(80) else d.pick([_pick_type(d), _DEEP_WIDER.get(elem, elem)])
        scal_t = elem if d.coin(85) else _pick_type(d)
    else:
        elem = _pick_type(d)
        out_t = elem if d.coin(65) else _pick_type(d)
        acc_t = elem if d.coin(50) else _pick_type(d)
        scal_t = elem if d.coin(60) else _pick_type(d)
    float_ctx = ctype(elem).is_float or ctype(acc_t).is_float
    g.allow_mod = not any(ctype(t).is_float for t in (elem, out_t, acc_t, scal_t))
    macros = g.make_macros(float_ctx) if d.coin(40) else ""
    helper = g.make_helper(elem if d.coin(70) else acc_t) if d.coin(20) else ""
    exact = False
    if deep:
        body, params, ret, shape = _deep_body(g, elem, out_t, acc_t, scal_t, float_ctx)
    elif shape == "argmax" or (shape is None and d.coin(_SHAPES["argmax"])):
        body, params, ret, shape = _argmax_body(g, elem, scal_t)
        exact = True
    elif shape == "product" or (shape is None and d.coin(_SHAPES["product"])):
        body, params, ret, shape = _product_body(g, elem, acc_t, scal_t)
    elif nested and d.coin(_SHAPES["matrix"]):
        body, params, ret, shape = _matrix_body(g, elem, out_t, scal_t, float_ctx)
    elif nested:
        body, params, ret, shape = _nested_body(g, elem, out_t, acc_t, scal_t, float_ctx)
    elif d.coin(_SHAPES["phases"]):
        body, params, ret, shape = _phases_body(g, elem, out_t, acc_t, scal_t, float_ctx)
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
    return KernelSpec(name, "c", src, name, params, ret, sorted(set(g.constants), key=repr), sorted(g.feats), shape,
                      exact_return=exact)


def _single_body(g: _CGen, elem: str, out_t: str, acc_t: str, scal_t: str, float_ctx: bool) -> _Body:
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
    # a descending loop (commit 0cecdf2): element index i + shift, shift -1 for
    # ``for (i = n; i > lo; i--)`` reading a[i - 1]; ``top`` trims the last elements
    desc = d.coin(_SHAPES["descending"])
    shift = -1 if desc and d.coin(40) else 0
    top = d.pick([0, 0, 0, 1]) if desc else 0

    def at(off: int) -> str:
        return _index("i", shift + off)

    loads = [f"{x}[{at(0)}]" for x in ins]
    for x in ins:
        for off in range(1, max_off + 1):
            loads.append(f"{x}[{at(off)}]")
            g.feats.add("offset")
    env = {"loads": loads, "scalars": ["k"] if has_k else [], "vars": []}
    lines: list[str] = []
    # running minima / maxima (commit 32c1d3d) from the first element or a sentinel
    running = has_acc and d.coin(_SHAPES["running"])
    if running:
        run_from = d.pick(["first", "first", "sentinel"])
        acc_t = elem if run_from == "first" or d.coin(70) else acc_t
        if run_from == "first":
            g.feats.add("running-from-first")
            if desc:
                top = max(top, 1)
                init = f"{ins[0]}[n - 1]"
            else:
                start = max(start, d.pick([0, 1, 1, 1]))
                init = f"{ins[0]}[0]"
        else:
            g.feats.add("running-from-sentinel")
            init = _sentinel(g, acc_t)
        lines.append(f"  {acc_t} s = {init};")
    elif has_acc:
        init = g.literal(ctype(acc_t).is_float) if d.coin(40) else "0"
        lines.append(f"  {acc_t} s = {init};")
    # half of the kernels of the new shapes are plain (shallow expressions, no carried
    # scalars), so that they are not all refused for something else
    clean = (desc or running) and d.coin(50)
    if clean:
        g.feats.add("plain")
        g.plain = True
        g.depth_limit = 1
    prev = not clean and d.coin(20)
    if prev:
        g.feats.add("prev")
        lines.append(f"  {elem} prev = 0;")
        env["vars"].append("prev")
    flag = not clean and d.coin(15)
    if flag:
        g.feats.add("flag")
        lines.append("  int flag = 0;")
    if d.coin(20):
        env["vars"].append("i")
        g.feats.add("index-value")
    fill = has_out and d.coin(18)
    if fill and d.coin(40):
        start = d.pick([1, 2, 3, 5])
        g.feats.add("start-nonzero")
    o = f"out[{at(0)}]"
    # in-place updates (y[i] = a * x[i] + y[i]) and dependent bodies (b[i] = b[i + 1] + a[i]:
    # a descending one must be refused, its iterations do not commute)
    inplace = has_out and not fill and d.coin(_SHAPES["inplace"])
    dep: str | None = None
    out_extent = "n"
    if inplace:
        g.feats.add("in-place")
        env["loads"] = env["loads"] + [o, o]
        if d.coin(_SHAPES["dependent"]):
            g.feats.add("dependent")
            offs = [1, 1] + ([-1] if start >= 1 else [])
            off = d.pick(offs)
            dep = f"out[{at(off)}]"
            if off > 0 and top == 0:
                out_extent = "n + 1"
            env["loads"] = env["loads"] + [dep]
    loop_var = "long i" if d.coin(10) else "int i"
    if desc:
        g.feats.add("descending")
        if shift:
            g.feats.add("descending-shifted")
        if d.coin(25):
            g.feats.add("descending-declared-before")
            lines.append(f"  {loop_var[:-2]} i;")
            loop_var = "i"
        hi = f"n - {1 + top + shift}" if 1 + top + shift else "n"
        lo = start + (1 if shift else 0)  # the smallest i
        cond = d.pick([f"i >= {lo}", f"i >= {lo}", f"{lo} <= i", f"i > {lo - 1}", f"{lo - 1} < i"])
        step = d.pick(["i--", "i--", "--i", "i -= 1", "i = i - 1"])
        lines.append(f"  for ({loop_var} = {hi}; {cond}; {step}) {{")
    else:
        step = d.pick(["i++", "i++", "++i", "i += 1", "i = i + 1"])
        bound = "n - 1" if top else "n"
        lines.append(f"  for ({loop_var} = {start}; i < {bound}; {step}) {{")
    if not clean and d.coin(20):
        tmp_t = d.pick([elem, acc_t, _pick_type(d)])
        lines.append(f"    {tmp_t} t = {g.expr(env, float_ctx)};")
        env["vars"].append("t")
        g.feats.add("local")
    if fill:
        lines.append(f"    {o} = {_fill_value(g, env, out_t)};")
    elif dep is not None:
        rhs = d.pick([dep, f"{dep} {d.pick(['+', '+', '*', '-'])} {g.expr(env, float_ctx)}",
                      f"{g.expr(env, float_ctx)} + {dep}"])
        lines.append(f"    {o} = {rhs};")
    elif inplace and d.coin(50):
        # the axpy shape: out[i] = e * x[i] + out[i] (or op= spelling)
        form = d.pick(["axpy", "opeq", "plus"])
        if form == "axpy":
            lines.append(f"    {o} = {d.pick(env['scalars'] or [g.literal(float_ctx)])} * {d.pick(loads)} + {o};")
        elif form == "opeq":
            lines.append(f"    {o} {d.pick(['+=', '+=', '-=', '*='])} {g.expr(env, float_ctx)};")
        else:
            lines.append(f"    {o} = {o} {d.pick(['+', '*', '-'])} {g.expr(env, float_ctx)};")
    elif has_out:
        if d.coin(30):
            g.feats.add("if-else")
            lines.append(f"    if ({g.cond(env, float_ctx)}) {o} = {g.expr(env, float_ctx)};")
            if d.coin(70):
                lines.append(f"    else {o} = {g.expr(env, float_ctx)};")
            else:
                g.feats.add("if-no-else-store")
        else:
            lines.append(f"    {o} = {g.expr(env, float_ctx)};")
    if has_acc:
        form = d.pick(["plus", "pluseq", "ifplus", "max", "minus", "times", "div"])
        if running:
            form = d.pick(["min", "min", "max"])
        e = g.expr(env, float_ctx)
        if running and d.coin(60):
            e = d.pick(loads)
        if form == "min":
            g.feats.add("min-reduction")
            lines.append(f"    {_running_update(d, 's', e, True)}")
        elif form == "plus":
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
            lines.append(f"    {_running_update(d, 's', e, False)}" if running else f"    if ({e} > s) s = {e};")
        elif form == "times":
            g.feats.add("product-reduction")
            lines.append(f"    s = s * {e};")
        else:
            g.feats.add("div-in-loop")
            lines.append(f"    s = s + {e} / (k != 0 ? k : 1);" if has_k else f"    s = s + {e} / 2;")
    if flag:
        lines.append(f"    if ({g.cond(env, float_ctx)}) flag = 1;")
    if prev:
        lines.append(f"    prev = {ins[0]}[{at(0)}];")
    lines.append("  }")
    if out_extent != "n":
        params = [Param(p.name, p.ctype, p.array, out_extent, p.size) if p.name == "out" else p for p in params]
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


def _index(var: str, off: int) -> str:
    """``var + off`` spelled as C index text (``i``, ``i + 1``, ``i - 1``)."""
    return var if off == 0 else f"{var} + {off}" if off > 0 else f"{var} - {-off}"


def _sentinel(g: _CGen, t: str) -> str:
    """A start value for a running minimum or maximum: a large / small constant of type ``t``."""
    d = g.d
    ct = ctype(t)
    if ct.is_float:
        v: float = d.pick([1e30, -1e30, 3.4e38, 1e9, 0.0, 100.0])
        g.constants.append(v)
        return _float_literal(d, v, g.feats)
    iv = d.pick([ct.hi, ct.hi, ct.lo, 1000000 if ct.bits >= 32 else ct.hi, 0, 255 if ct.hi >= 255 else ct.hi])
    g.constants.append(iv)
    if iv == ct.lo and ct.signed:
        return f"({iv + 1} - 1)"  # -2147483648 is not a literal of its own type
    suffix = "L" if ct.bits == 64 and abs(iv) > 0x7FFFFFFF else ""
    suffix = ("U" if not ct.signed and iv > 0x7FFFFFFF else "") + suffix
    return f"{iv}{suffix}"


def _running_update(d: Draw, m: str, e: str, is_min: bool) -> str:
    """A running minimum (or maximum) update of ``m`` by ``e`` in one of the spellings the
    lifter recognises (``if (e < m) m = e;``, ``m = e < m ? e : m;``, ``m = m > e ? e : m;``, ...)."""
    lt, gt = ("<", ">") if is_min else (">", "<")
    eq = d.pick(["", "", "="])
    forms = [f"if ({e} {lt}{eq} {m}) {m} = {e};", f"if ({m} {gt}{eq} {e}) {m} = {e};",
             f"{m} = {e} {lt} {m} ? {e} : {m};", f"{m} = {m} {gt} {e} ? {e} : {m};",
             f"{m} = {m} {lt} {e} ? {m} : {e};", f"{m} = {e} {gt} {m} ? {m} : {e};"]
    return d.pick(forms)


def _fill_value(g: _CGen, env: dict[str, list[str]], t: str) -> str:
    """A store of a fill or of the loop counter used as a value (TensIR ``full`` / ``iota``):
    ``v``, ``0``, ``i``, ``b[i] + 2 * i``, ``s * i + 1.0f`` (int -> float), ..."""
    d = g.d
    is_f = ctype(t).is_float
    loads = env["loads"] or ["0"]
    scalars = env["scalars"]
    kind = d.pick(["const", "zero", "scalar", "iota", "iota", "iota-affine", "load-plus-i", "scaled-i", "i-float"])
    if kind == "scalar" and not scalars:
        kind = "const"
    if kind == "const":
        g.feats.add("fill")
        return g.literal(is_f)
    if kind == "zero":
        g.feats.add("fill")
        return d.pick(["0", "0.0f" if is_f else "0"])
    if kind == "scalar":
        g.feats.add("fill")
        v = d.pick(scalars)
        return v if d.coin(70) else f"{v} {d.pick(['+', '*'])} {g.literal(is_f)}"
    g.feats.add("iota")
    if kind == "iota":
        return "i"
    if kind == "iota-affine":
        return d.pick(["i + 1", "i - 1", "2 * i", "i * 3 + 1", "-i", "n - i", "(i + 1) * 2"])
    if kind == "load-plus-i":
        g.feats.add("iota-expr")
        return f"{d.pick(loads)} {d.pick(['+', '-', '*'])} {d.pick(['i', '2 * i', 'i * 2', '(i + 1)'])}"
    if kind == "scaled-i":
        g.feats.add("iota-expr")
        v = d.pick(scalars) if scalars else g.literal(is_f)
        return f"{v} * i {d.pick(['+', '-'])} {g.literal(is_f)}"
    g.feats.add("iota-float")
    v = d.pick(scalars) if scalars and d.coin(60) else g.literal(True)
    return d.pick([f"{v} * i + 1.0f", f"i * {v} + 0.5", f"(float) i * {v}", f"i / 2.0f + {v}", "(float) i"])


def _phases_body(g: _CGen, elem: str, out_t: str, acc_t: str, scal_t: str, float_ctx: bool) -> _Body:
    """Two or three top-level loops one after another (loop phases): reductions whose result
    a later loop reads, elementwise loops whose output a later loop reads or rewrites,
    running maxima from index 1, fills and iotas, with straight-line code between the loops
    (a copy of a loop's result, a modified parameter, a local bound) and later bounds that
    differ by a constant, are a local, or are a copy of a loop-computed count (which must be
    refused: the bound is late)."""
    d = g.d
    g.feats.add("phases")
    g.plain = d.coin(65)
    if d.coin(40):
        g.depth_limit = 1
    n_loops = d.pick([2, 2, 2, 3])
    if n_loops == 3:
        g.feats.add("phases-3")
    ins = ["a", "b"] if d.coin(50) else ["a"]
    offset = d.coin(12)
    n_t = d.pick(["int", "int", "int", "int", "long"])
    has_k = d.coin(40)
    lines: list[str] = []
    #: computed scalar locals (name -> C type); counts hold values in 0..n
    scalars: dict[str, str] = {}
    counts: list[str] = []
    int_scalars: list[str] = []  # integral computed scalars (usable as a late loop bound)
    safe_bounds: list[str] = []  # locals set from n by straight-line code
    written: dict[str, str] = {}  # array -> the range its last writer covered
    outs_used: list[str] = []
    out_types = {"out": out_t, "out2": elem if d.coin(60) else out_t}
    n_modified = False

    def env_for(loop_range: str) -> dict[str, list[str]]:
        loads = [f"{x}[i]" for x in ins]
        if offset:
            loads += [f"{x}[i + 1]" for x in ins]
        for arr in written:
            if arr not in ins:
                loads.append(f"{arr}[i]")
        sc = list(scalars) + (["k"] if has_k else [])
        return {"loads": loads, "scalars": sc, "vars": ["i"] if d.coin(15) else []}

    for p in range(n_loops):
        if p > 0 and d.coin(55):
            for _ in range(d.integer(1, 2)):
                what = d.pick(["copy", "copy", "modify", "param", "len", "len"])
                if what == "copy" and scalars:
                    src = d.pick(list(scalars))
                    name = f"c{p}"
                    if name in scalars:
                        continue
                    g.feats.add("phase-copy")
                    lines.append(f"  {scalars[src]} {name} = {src};")
                    scalars[name] = scalars[src]
                    if src in counts:
                        counts.append(name)
                    if src in int_scalars:
                        int_scalars.append(name)
                elif what == "modify" and scalars:
                    src = d.pick(list(scalars))
                    g.feats.add("phase-modify")
                    fl = ctype(scalars[src]).is_float
                    rhs = d.pick([f"{src} * {g.literal(fl)}", f"{src} + {g.literal(fl)}", f"{src} - 1"]
                                 + ([f"{src} + k"] if has_k else []))
                    lines.append(f"  {src} = {rhs};")
                    if src in counts:
                        counts.remove(src)
                elif what == "param" and not n_modified:
                    n_modified = True
                    g.feats.add("phase-param-modified")
                    lines.append(d.pick(["  n = n - 1;", "  n -= 1;", "  n = n / 2;", "  n--;"]))
                elif what == "len":
                    name = f"len{p}"
                    if name in safe_bounds:
                        continue
                    g.feats.add("phase-bound-local")
                    lines.append(f"  int {name} = {d.pick(['n', 'n - 1', 'n - 2', 'n / 2', 'n - 1 + 1'])};")
                    safe_bounds.append(name)
        # the loop's range
        r = d.integer(0, 99)
        if r < 62 or (r >= 80 and not safe_bounds and not counts):
            bound = "n"
        elif r < 72:
            g.feats.add("phase-bound-minus")
            bound = d.pick(["n - 1", "n - 2", "n + 0", "n - 1 + 1"])
        elif r < 80 and safe_bounds:
            bound = d.pick(safe_bounds)
        elif counts:
            g.feats.add("phase-bound-late")
            bound = d.pick(counts)
        else:
            bound = "n"
        start = d.pick([0, 0, 0, 0, 1])
        kinds = ["reduce", "reduce", "count", "runmax", "map", "map", "map", "fill"]
        if written:
            kinds += ["rewrite", "rewrite"]
        if int_scalars:
            kinds += ["late-accum"]
        kind = d.pick(kinds)
        if kind == "late-accum":
            # red team e4c5567: a loop bound copied from a loop-computed value
            g.feats.add("phase-bound-late")
            src = d.pick(int_scalars)
            name = f"kk{p}"
            lines.append(f"  {scalars[src]} {name} = {src};")
            lines.append(f"  int t{p} = 0;")
            lines.append(f"  for (int i = 0; i < {name}; i++) t{p} = t{p} + {d.pick(['1', '3', '2'])};")
            scalars[f"t{p}"] = "int"
            int_scalars.append(f"t{p}")
            continue
        if kind == "runmax":
            g.feats.add("running-max-from-1")
            arr = d.pick(ins + [x for x in written if x not in ins])
            name = f"m{p}"
            op = d.pick([">", ">", "<", ">="])
            lines.append(f"  {elem if arr in ins else out_types[arr]} {name} = {arr}[0];")
            lines.append(f"  for (int i = 1; i < {bound}; i++)")
            if d.coin(25):
                lines.append(f"    {name} = {arr}[i] {op} {name} ? {arr}[i] : {name};")
            else:
                lines.append(f"    if ({arr}[i] {op} {name}) {name} = {arr}[i];")
            scalars[name] = elem if arr in ins else out_types[arr]
            if not ctype(scalars[name]).is_float:
                int_scalars.append(name)
            continue
        env = env_for(bound)
        body: list[str] = []
        if kind in ("reduce", "count"):
            name = f"s{p}" if kind == "reduce" else f"cnt{p}"
            t = acc_t if kind == "reduce" else "int"
            init = "0" if kind == "count" or d.coin(60) else g.literal(ctype(t).is_float)
            lines.append(f"  {t} {name} = {init};")
            if kind == "count":
                g.feats.add("count")
                body.append(f"    if ({g.cond(env, float_ctx)}) {d.pick([f'{name}++', f'{name} += 1', f'{name} = {name} + 1'])};")
            else:
                form = d.pick(["plus", "pluseq", "pluseq", "ifplus", "max", "minus"])
                e = g.expr(env, float_ctx)
                if form == "plus":
                    body.append(f"    {name} = {name} + {e};")
                elif form == "pluseq":
                    body.append(f"    {name} += {e};")
                elif form == "minus":
                    body.append(f"    {name} -= {e};")
                elif form == "ifplus":
                    g.feats.add("cond-reduction")
                    body.append(f"    if ({g.cond(env, float_ctx)}) {name} += {e};")
                else:
                    g.feats.add("max-reduction")
                    body.append(f"    if ({e} > {name}) {name} = {e};")
            scalars[name] = t
            if not ctype(t).is_float:
                int_scalars.append(name)
            if kind == "count" and start == 0 and bound in ("n", "n + 0") and not n_modified:
                counts.append(name)
        else:
            if kind == "rewrite":
                tgt = d.pick(list(written))
                g.feats.add("phase-rewrite")
                if written[tgt] != f"{start}:{bound}":
                    g.feats.add("phase-rewrite-other-range")
                op = d.pick(["+", "*", "-"] + (["/"] if not ctype(out_types.get(tgt, elem)).is_float else []))
                body.append(f"    {tgt}[i] = {tgt}[i] {op} {g.expr(env, float_ctx)};")
            else:
                tgt = d.pick(["out", "out", "out", "out2", ins[0]]) if kind == "map" else d.pick(["out", "out2"])
                if tgt in ins:
                    g.feats.add("phase-in-place")
                if kind == "fill":
                    body.append(f"    {tgt}[i] = {_fill_value(g, env, out_types.get(tgt, elem))};")
                elif d.coin(20):
                    g.feats.add("if-else")
                    body.append(f"    if ({g.cond(env, float_ctx)}) {tgt}[i] = {g.expr(env, float_ctx)};")
                    body.append(f"    else {tgt}[i] = {g.expr(env, float_ctx)};")
                else:
                    body.append(f"    {tgt}[i] = {g.expr(env, float_ctx)};")
                if written and any(f"{w}[i]" in "".join(body) for w in written if w != tgt):
                    g.feats.add("phase-reads-written")
            if tgt not in ins and tgt not in outs_used:
                outs_used.append(tgt)
            written[tgt] = f"{start}:{bound}"
            if kind == "map" and d.coin(20):
                # the softmax shape: an elementwise store and a reduction in one loop
                name = f"s{p}"
                lines.append(f"  {acc_t} {name} = 0;")
                body.append(f"    {name} += {tgt}[i];")
                scalars[name] = acc_t
                if not ctype(acc_t).is_float:
                    int_scalars.append(name)
        if bound != "n":
            g.feats.add("phase-bound-" + ("local" if bound in safe_bounds else "late" if bound in counts else "minus"))
        if start:
            g.feats.add("start-nonzero")
        lines.append(f"  for (int i = {start}; i < {bound}; i++) {{")
        lines.extend(body)
        lines.append("  }")
    ret: str | None = None
    if scalars and (d.coin(80) or (not outs_used and not any(x in written for x in ins))):
        names = list(scalars)
        first = d.pick(names)
        ret = scalars[first]
        tail = first
        if len(names) > 1 and d.coin(40):
            tail = f"{first} {d.pick(['+', '-', '*'])} {d.pick(names)}"
        elif d.coin(15):
            tail = f"{first} + n"
        lines.append(f"  return {tail};")
    params = [Param(x, elem, True, "n + 1" if offset else "n") for x in ins]
    params += [Param(o, out_types[o], True, "n") for o in sorted(outs_used)]
    if has_k:
        params.append(Param("k", scal_t))
    params.append(Param("n", n_t, size=True))
    if n_t != "int":
        g.feats.add("bound-" + n_t)
    return "\n".join(lines) + "\n", params, ret, "1d"


def _nested_body(g: _CGen, elem: str, out_t: str, acc_t: str, scal_t: str, float_ctx: bool) -> _Body:
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


def _matrix_body(g: _CGen, elem: str, out_t: str, scal_t: str, float_ctx: bool) -> _Body:
    """A matrix output of a doubly nested loop (commit bd37f49): an element-wise store to a
    row-major ``m x n`` matrix reading per-row values ``x[i]`` and row vectors ``y[j]``:
    outer products, rank-1 updates (in place), column biases, pairwise differences and
    maxima, row scaling (``A[i*n+j] * x[i]``: refused today), or a random expression over
    them; the outer loop sometimes starts at 1 (refused)."""
    d = g.d
    g.feats.add("nested")
    g.feats.add("matrix-output")
    if d.coin(50):
        g.plain = True
        g.depth_limit = 1
    ij = d.pick(["i * n + j", "i * n + j", "i*n + j", "i*n+j", "j + i * n"])
    has_k = d.coin(25)
    x, y, a = "x[i]", "y[j]", f"A[{ij}]"
    form = d.pick(["outer", "outer", "ger", "ger", "bias", "diff", "maxsel", "rowscale", "generic", "generic"])
    g.feats.add("matrix-" + form)
    k = "k" if has_k else g.literal(float_ctx)
    tgt = f"B[{ij}]"
    env = {"loads": [x, y, a], "scalars": ["k"] if has_k else [], "vars": ["i", "j"] if d.coin(10) else []}
    if form == "outer":
        rhs = f"{x} {d.pick(['*', '*', '+', '-'])} {y}"
        if d.coin(25):
            rhs = f"{k} * {rhs}" if d.coin(50) else f"{y} * {x}"
        line = f"{tgt} = {rhs};"
    elif form == "ger":
        g.feats.add("in-place")
        tgt = a
        line = d.pick([f"{a} += {x} * {y};", f"{a} = {a} + {x} * {y};", f"{a} += {k} * {x} * {y};",
                       f"{a} = {x} * {y} + {a};", f"{a} -= {x} * {y};"])
    elif form == "bias":
        line = d.pick([f"{tgt} = {a} {d.pick(['+', '+', '-', '*'])} {y};", f"{tgt} = {y} + {a};"])
    elif form == "diff":
        line = d.pick([f"{tgt} = {x} - {y};", f"{tgt} = {y} - {x};", f"{tgt} = ({x} - {y}) * ({x} - {y});"])
    elif form == "maxsel":
        op = d.pick([">", ">", "<", ">=", "<="])
        line = d.pick([f"{tgt} = {x} {op} {y} ? {x} : {y};", f"{tgt} = {x} {op} {y} ? {y} : {x};"])
    elif form == "rowscale":
        line = d.pick([f"{tgt} = {a} * {x};", f"{tgt} = {x} * {a};", f"{tgt} = {a} * {x} + {y};"])
    else:
        line = f"{tgt} = {g.expr(env, float_ctx)};"
    row_local = d.coin(10)
    start = 1 if d.coin(12) else 0
    if start:
        g.feats.add("matrix-outer-from-1")
    lines = [f"  for (int i = {start}; i < m; i++) {{"]
    if row_local:
        g.feats.add("matrix-row-local")
        lines.append(f"    {elem} xi = x[i];")
        line = line.replace(x, "xi")
    lines.append("    for (int j = 0; j < n; j++)")
    lines.append(f"      {line}")
    lines.append("  }")
    used = " ".join(lines)
    params: list[Param] = []
    sizes = [Param("m", "int", size=True), Param("n", "int", size=True)]
    first_sizes = d.coin(50)
    if first_sizes:
        params += sizes
    if "A[" in used:
        params.append(Param("A", elem, True, "m * n"))
    if "x[i]" in used:
        params.append(Param("x", elem, True, "m"))
    if "y[j]" in used:
        params.append(Param("y", elem, True, "n"))
    if "B[" in used:
        params.append(Param("B", out_t, True, "m * n"))
    if re.search(r"\bk\b", used):
        params.append(Param("k", scal_t))
    if not first_sizes:
        params += sizes
    return "\n".join(lines) + "\n", params, None, "2d"


#: the deep shape's size parameters: the oracle gives ``m`` its own value and every other
#: size parameter the value of ``n``, so ``p`` (the third extent) always equals ``n`` in a
#: test. The roles (rows M, columns N, inner K) are a random permutation of the three
#: names, so that every pair of extents differs in most kernels.
_DEEP_SIZE_VALUE = {"m": "m", "n": "n", "p": "n"}

#: the near-misses of the deep shape (the tool must refuse them or get them right)
_DEEP_MISSES = ["stride", "stride", "other-row", "other-row", "operand-is-output", "carried-i", "carried-j",
                "declared-outside", "triangular", "triangular", "k-from-1", "k-from-1", "bias-row", "bias-col",
                "same-row-other-column", "max-plus"]


def _deep_body(g: _CGen, elem: str, out_t: str, acc_t: str, scal_t: str, float_ctx: bool) -> _Body:
    """A loop nest three deep whose outer loop writes one row per iteration (a *block loop*,
    :mod:`tenspiler.vc.blocks`): GEMM ``for i<M: for j<N: {acc = init; for k<K: acc += f(A,
    B); C[i*N+j] = g(acc, C[i*N+j], alpha, beta)}`` with A stored ``M x K`` (``A[i*K+k]``) or
    ``K x M`` (``A[k*M+i]``) and B ``K x N`` (``B[k*N+j]``) or ``N x K`` (``B[j*K+k]``),
    accumulation straight into C (``C[i*N+j] += ...``), alpha / beta scaling, a batched
    matrix-vector product and a 3-D element-wise nest; about a third of the kernels carry one
    deliberate near-miss (:data:`_DEEP_MISSES`: an output row stride other than the row
    length, reads of other rows of the output or of the output as an operand, accumulators
    carried across rows or elements, triangular bounds, ``k`` from 1, row / column biases,
    a max-plus product)."""
    d = g.d
    g.feats.add("deep")
    g.plain = d.coin(80)
    g.depth_limit = 1
    g.allow_mod = not any(ctype(t).is_float for t in (elem, out_t, acc_t, scal_t))
    names = ["m", "n", "p"]
    perm = [names[x] for x in d.pick([(0, 1, 2), (0, 1, 2), (0, 1, 2), (0, 2, 1), (1, 0, 2), (2, 0, 1), (1, 2, 0),
                                      (2, 1, 0)])]
    M, N, K = perm
    Mv, Nv, Kv = (_DEEP_SIZE_VALUE[x] for x in perm)
    miss = d.pick(_DEEP_MISSES) if d.coin(35) else None
    form = d.pick(["gemm"] * 12 + ["direct"] * 4 + ["batched", "tensor3"])
    if miss is not None:
        g.feats.add("deep-miss-" + miss)
        if form in ("batched", "tensor3"):
            form = "gemm"
    g.feats.add("deep-" + form)
    i_, j_, k_ = ("i", "j", "k") if d.coin(80) else d.pick([("i", "j", "l"), ("r", "c", "k"), ("i", "j", "p2")])
    ta, tb = d.coin(40), d.coin(40)

    def lin(outer: str, stride: str, inner: str) -> str:
        return d.pick([f"{outer} * {stride} + {inner}", f"{outer} * {stride} + {inner}", f"{outer}*{stride} + {inner}",
                       f"{inner} + {outer} * {stride}"])

    stride = N
    c_extent = f"{Mv} * {Nv}"
    if miss == "stride":
        # rows of another length than N: wider (gaps) or possibly narrower (rows overlap)
        stride, sv = d.pick([(f"({N} + 1)", f"({Nv} + 1)"), (f"({N} + 1)", f"({Nv} + 1)"), (f"2 * {N}", f"2 * {Nv}"),
                             (K, Kv), (M, Mv), (f"({N} - 1)", f"({Nv} - 1)")])
        c_extent = f"max(({Mv} - 1) * {sv} + {Nv} if {Mv} > 0 else 0, {Mv} * {Nv}, 0)"
    a_at = f"A[{lin(k_, M, i_)}]" if ta else f"A[{lin(i_, K, k_)}]"
    b_at = f"B[{lin(j_, K, k_)}]" if tb else f"B[{lin(k_, N, j_)}]"
    if ta:
        g.feats.add("deep-transposed-A")
    if tb:
        g.feats.add("deep-transposed-B")
    c_at = f"C[{lin(i_, stride, j_)}]"
    arrays = {"A": f"{Mv} * {Kv}", "B": f"{Kv} * {Nv}"}
    if miss == "operand-is-output":
        b_at = f"C[{lin(k_, N, j_)}]"
        arrays.pop("B")
        c_extent = f"max({Mv}, {Kv}) * {Nv}"
    triangular = None
    if miss == "triangular":
        triangular = d.pick(["j<i", "j<=i", "j=i", "k<i", "k<=i", "k=i"])
        g.feats.add("deep-triangular-" + triangular.replace("<", "lt").replace("=", "e"))
        # generous extents: the indices stay inside every array whatever the bounds
        big = f"({Mv} + {Nv} + 2) * ({Mv} + {Nv} + 2)"
        arrays = {x: big for x in arrays}
        c_extent = big
    scalars: list[str] = []
    has_alpha = d.coin(40)
    has_beta = (has_alpha and d.coin(60)) or d.coin(10)
    if has_alpha:
        scalars.append("alpha")
    if has_beta:
        scalars.append("beta")
    env = {"loads": [a_at, b_at], "scalars": scalars, "vars": []}
    fl = ctype(acc_t).is_float

    def lit(v: int) -> str:
        return (f"{float(v)}f" if acc_t == "float" else f"{float(v)}") if fl else str(v)

    # f(A, B): the product term
    r = d.integer(0, 99)
    if miss == "max-plus":
        prod = f"{a_at} + {b_at}"
    elif r < 62:
        prod = f"{a_at} * {b_at}"
    elif r < 72:
        prod = f"{b_at} * {a_at}"
    elif r < 80 and has_alpha:
        prod = f"alpha * {a_at} * {b_at}"
    elif r < 86:
        g.feats.add("deep-product-other")
        prod = d.pick([f"({a_at} - {b_at}) * ({a_at} - {b_at})", f"{a_at} + {b_at}", f"{a_at} * {b_at} * 2",
                       f"({a_at} + 1) * {b_at}"])
    else:
        g.feats.add("deep-product-expr")
        prod = g.expr(env, float_ctx)
    lines: list[str] = []
    ind = "  "

    def loop(var: str, bound: str, start: str = "0") -> str:
        step = d.pick([f"{var}++", f"{var}++", f"++{var}", f"{var} += 1"])
        decl = "int " if d.coin(90) else "long "
        return f"for ({decl}{var} = {start}; {var} < {bound}; {step})"

    j_start, j_bound, k_start, k_bound = "0", N, "0", K
    if triangular is not None:
        var, rel = triangular[0], triangular[1:]
        if rel == "<i":
            bound, start = i_, "0"
        elif rel == "<=i":
            bound, start = f"{i_} + 1", "0"
        else:
            bound, start = (N if var == "j" else K), i_
        if var == "j":
            j_start, j_bound = start, bound
        else:
            k_start, k_bound = start, bound
    if miss == "k-from-1":
        k_start = d.pick(["1", "1", "2"])
    acc_decl = acc_t
    init = d.pick(["0", "0", "0", lit(0)]) if d.coin(85) else g.literal(fl)
    if miss == "bias-row":
        arrays["bias"] = Mv
        bias = f"bias[{i_}]"
    elif miss == "bias-col":
        arrays["bias"] = Nv
        bias = f"bias[{j_}]"
    else:
        bias = ""
    if bias and d.coin(50):
        g.feats.add("deep-bias-init")
        init, bias = bias, ""
    if form == "batched":
        # y[i*N + j] = sum_k T[(i*N + j)*K + k] * x[i*K + k]: a batch of matrix-vector products
        arrays = {"T": f"{Mv} * {Nv} * {Kv}", "x": f"{Mv} * {Kv}"}
        a_at = f"T[({i_} * {N} + {j_}) * {K} + {k_}]"
        b_at = f"x[{lin(i_, K, k_)}]"
        prod = d.pick([f"{a_at} * {b_at}", f"{b_at} * {a_at}"])
    if form == "tensor3":
        # D[(i*N + j)*K + k] = T[(i*N + j)*K + k] op x[k]: element-wise over a 3-D array
        arrays = {"T": f"{Mv} * {Nv} * {Kv}", "x": Kv}
        t3 = f"(({i_} * {N} + {j_}) * {K} + {k_})"
        rhs = d.pick([f"T[{t3}] * x[{k_}]", f"T[{t3}] + x[{k_}]", f"x[{k_}] - T[{t3}]"]
                     + ([f"alpha * T[{t3}]"] if has_alpha else []))
        lines.append(f"{ind}{loop(i_, M)} {{")
        lines.append(f"{ind}  {loop(j_, N)} {{")
        lines.append(f"{ind}    {loop(k_, K)}")
        lines.append(f"{ind}      C[{t3}] = {rhs};")
        lines.append(f"{ind}  }}")
        lines.append(f"{ind}}}")
        c_extent = f"{Mv} * {Nv} * {Kv}"
        ret = None
    else:
        ret = None
        if miss in {"carried-i", "declared-outside"}:
            lines.append(f"{ind}{acc_decl} acc = {init};" if miss == "carried-i" else f"{ind}{acc_decl} acc;")
        lines.append(f"{ind}{loop(i_, M)} {{")
        if miss == "carried-j":
            lines.append(f"{ind}  {acc_decl} acc = {init};")
        lines.append(f"{ind}  {loop(j_, j_bound, j_start)} {{")
        body = ind + "    "
        upd_ops = ["acc += {e};", "acc += {e};", "acc = acc + {e};"]
        if form == "direct":
            g.feats.add("deep-accumulate-into-C")
            pre = d.pick(["", "", f"{c_at} = 0;", f"{c_at} = {lit(0)};"]
                         + ([f"{c_at} *= beta;", f"{c_at} = beta * {c_at};"] if has_beta else []))
            if pre:
                lines.append(f"{body}{pre}")
            lines.append(f"{body}{loop(k_, k_bound, k_start)}")
            upd = d.pick([f"{c_at} += {prod};", f"{c_at} += {prod};", f"{c_at} = {c_at} + {prod};",
                          f"{c_at} -= {prod};"])
            if miss == "max-plus":
                upd = f"if ({prod} > {c_at}) {c_at} = {prod};"
            lines.append(f"{body}  {upd}")
            if bias:
                lines.append(f"{body}{c_at} += {bias};")
        else:
            if miss == "declared-outside":
                lines.append(f"{body}acc = {init};")
            elif miss not in ("carried-i", "carried-j"):
                if d.coin(15):
                    g.feats.add("deep-acc-from-C")
                    init = c_at
                lines.append(f"{body}{acc_decl} acc = {init};")
            braces = d.coin(50)
            lines.append(f"{body}{loop(k_, k_bound, k_start)}" + (" {" if braces else ""))
            if miss == "max-plus":
                upd = d.pick([f"if ({prod} > acc) acc = {prod};", f"acc = {prod} > acc ? {prod} : acc;"])
            elif d.coin(8):
                g.feats.add("cond-reduction")
                upd = f"if ({a_at} > {lit(0)}) acc += {prod};"
            else:
                upd = d.pick(upd_ops).format(e=prod)
            lines.append(f"{body}  {upd}")
            if braces:
                lines.append(f"{body}}}")
            lines.append(f"{body}{_deep_store(g, c_at, N, i_, j_, stride, bias, scalars, miss, fl, lit)}")
        lines.append(f"{ind}  }}")
        lines.append(f"{ind}}}")
        if miss == "carried-i" and d.coin(40):
            ret = acc_t
            lines.append(f"{ind}return acc;")
    used = "\n".join(lines)
    if re.search(r"\b(alpha|beta)\b", used):
        g.feats.add("deep-alpha-beta")
    plist: list[Param] = []
    size_params = [Param(x, "int", size=True) for x in sorted(set(perm))]
    if d.coin(60):
        plist += size_params
    for x in ("alpha", "beta"):
        if re.search(rf"\b{x}\b", used):
            plist.append(Param(x, scal_t))
    for arr, ext in arrays.items():
        if re.search(rf"\b{arr}\[", used):
            plist.append(Param(arr, elem if arr != "bias" else out_t, True, ext))
    plist.append(Param("C", out_t, True, c_extent))
    if plist[0] is not size_params[0]:
        plist += size_params
    return used + "\n", plist, ret, "2d"


def _deep_store(g: _CGen, c_at: str, N: str, i_: str, j_: str, stride: str, bias: str, scalars: list[str],
                miss: str | None, fl: bool, lit: Callable[[int], str]) -> str:
    """The store ``C[i*N + j] = g(acc, C[i*N + j], alpha, beta)`` of a GEMM-like nest."""
    d = g.d
    alpha = "alpha" if "alpha" in scalars else None
    beta = "beta" if "beta" in scalars else None
    forms = ["acc", "acc", "acc", "plus-c"]
    if alpha:
        forms += ["alpha", "alpha"]
    if alpha and beta:
        forms += ["alpha-beta", "alpha-beta", "alpha-beta"]
    if beta:
        forms += ["beta"]
    forms += ["relu", "expr"]
    form = d.pick(forms)
    if form == "acc":
        rhs = "acc"
    elif form == "plus-c":
        g.feats.add("deep-plus-C")
        rhs = d.pick([f"{c_at} + acc", f"acc + {c_at}"])
    elif form == "alpha":
        rhs = d.pick(["alpha * acc", "acc * alpha"])
    elif form == "alpha-beta":
        rhs = d.pick([f"alpha * acc + beta * {c_at}", f"beta * {c_at} + alpha * acc", f"alpha * acc + {c_at} * beta"])
    elif form == "beta":
        rhs = d.pick([f"acc + beta * {c_at}", f"beta * {c_at} + acc"])
    elif form == "relu":
        g.feats.add("deep-relu")
        rhs = d.pick([f"acc > {lit(0)} ? acc : {lit(0)}", f"acc < {lit(0)} ? {lit(0)} : acc"])
    else:
        g.feats.add("deep-store-expr")
        env = {"loads": [c_at], "scalars": scalars, "vars": ["acc", "acc"]}
        rhs = g.expr(env, fl)
    if bias:
        rhs = d.pick([f"{rhs} + {bias}", f"{bias} + ({rhs})"]) if form != "acc" else f"acc + {bias}"
    if miss == "other-row":
        other = d.pick([f"C[{j_}]", f"C[{j_}]", f"C[({i_} - 1 < 0 ? 0 : {i_} - 1) * {stride} + {j_}]"])
        rhs = f"({rhs}) + {other}" if rhs != "acc" else f"acc + {other}"
    if miss == "same-row-other-column":
        other = f"C[{i_} * {stride} + ({N} - 1 - {j_})]"
        rhs = f"({rhs}) - {other}" if rhs != "acc" else f"acc - {other}"
    if form == "acc" and not bias and miss is None and d.coin(25):
        g.feats.add("deep-store-opeq")
        return d.pick([f"{c_at} += acc;", f"{c_at} += acc;"] + ([f"{c_at} = {c_at} * beta + acc;"] if beta else []))
    return f"{c_at} = {rhs};"


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


def python_idiom_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """A Python kernel written with the idioms (commit bd2b778): list comprehensions,
    ``sum`` / ``max`` / ``min`` over generator expressions, list comprehensions or list
    parameters, ``zip``, ``enumerate``, and several loops per function (a scalar an earlier
    loop or idiom computed, read by a later one)."""
    feats: set[str] = {"py-idiom"}
    consts: list[float] = []
    is_float = d.coin(40)
    et = "float" if is_float else "int"
    two = d.coin(50)
    scal = d.coin(30)

    def lit() -> str:
        if is_float and d.coin(60):
            v: float = d.pick([0.5, 0.1, 2.0, 1.5, 100.0])
        else:
            v = d.pick([0, 1, 2, 3, 7, 10, 100, 255, -1, -3])
        consts.append(v)
        return repr(v)

    scalars: list[str] = []

    def expr(leaves: list[str], depth: int = 0) -> str:
        if depth >= 2 or d.coin(40):
            return d.pick(leaves * 3 + scalars + (["c"] if scal else []) + [lit()])
        k = d.pick(["bin"] * 5 + ["ifexp", "minmax", "abs"])
        if k == "bin":
            op = d.pick(["+", "-", "*", "//", "%"] if not is_float else ["+", "-", "*", "/"])
            if op in ("//", "%", "/"):
                feats.add("div")
            return f"({expr(leaves, depth + 1)} {op} {expr(leaves, depth + 1)})"
        if k == "ifexp":
            feats.add("select")
            return (f"({expr(leaves, depth + 1)} if {expr(leaves, depth + 1)} {d.pick(['<', '>', '>='])} {lit()} "
                    f"else {expr(leaves, depth + 1)})")
        if k == "minmax":
            return f"{d.pick(['min', 'max'])}({expr(leaves, depth + 1)}, {expr(leaves, depth + 1)})"
        return f"abs({expr(leaves, depth + 1)})"

    def iteration() -> tuple[str, list[str]]:
        """A comprehension / generator ``for`` clause and the names it binds."""
        forms = ["x", "range", "enumerate"] + (["zip", "zip", "enumerate-zip"] if two else [])
        form = d.pick(forms)
        if form == "x":
            return "for x in xs", ["x"]
        if form == "range":
            return "for i in range(len(xs))", ["xs[i]"] + (["ys[i]"] if two else []) + ["i"]
        if form == "enumerate":
            feats.add("py-enumerate")
            return "for i, x in enumerate(xs)", ["x", "x", "i"]
        if form == "zip":
            feats.add("py-zip")
            return "for x, y in zip(xs, ys)", ["x", "y"]
        feats.add("py-enumerate")
        feats.add("py-zip")
        return "for i, (x, y) in enumerate(zip(xs, ys))", ["x", "y", "i"]

    body: list[str] = []
    n_scalar = d.pick([0, 1, 1, 1, 2, 2])
    for p in range(n_scalar):
        s = f"s{p}"
        form = d.pick(["sum-gen", "sum-gen", "sum-list", "max-gen", "min-gen", "maxmin-param", "sum-param",
                       "loop", "loop", "mean"])
        clause, leaves = iteration()
        if form == "sum-gen":
            feats.add("py-sum-gen")
            start = f", {lit()}" if d.coin(15) else ""
            body.append(f"    {s} = sum(({expr(leaves)} {clause}){start})" if start else f"    {s} = sum({expr(leaves)} {clause})")
        elif form == "sum-list":
            feats.add("py-sum-gen")
            body.append(f"    {s} = sum([{expr(leaves)} {clause}])")
        elif form in ("max-gen", "min-gen"):
            feats.add("py-maxmin-gen")
            body.append(f"    {s} = {form[:3]}({expr(leaves)} {clause})")
        elif form == "maxmin-param":
            feats.add("py-maxmin-gen")
            body.append(f"    {s} = {d.pick(['max', 'min'])}({d.pick(['xs', 'ys'] if two else ['xs'])})")
        elif form == "sum-param":
            feats.add("py-sum-gen")
            body.append(f"    {s} = sum(xs)")
        elif form == "mean":
            feats.add("py-sum-gen")
            body.append(f"    {s} = sum({expr(leaves)} {clause}) {'/' if is_float else '//'} len(xs)")
        else:
            feats.add("py-loop")
            body.append(f"    {s} = 0" + (".0" if is_float and d.coin(50) else ""))
            body.append(f"    {clause}:")
            if d.coin(25):
                feats.add("cond-reduction")
                body.append(f"        if {expr(leaves, 1)} > {lit()}:")
                body.append(f"            {s} += {expr(leaves)}")
            else:
                body.append(f"        {s} {d.pick(['+=', '+=', '-='])} {expr(leaves)}")
        scalars.append(s)
        if d.coin(20):
            feats.add("py-straight-line")
            body.append(f"    {s} = {s} {d.pick(['+', '*', '-'])} {lit()}")
    if n_scalar >= 1:
        feats.add("py-phases" if n_scalar > 1 or d.coin(0) else "py-scalar-then")
    ret: str
    if scalars and d.coin(35):
        ret = "float" if is_float else "int"
        tail = d.pick(scalars)
        if len(scalars) > 1 and d.coin(60):
            tail = f"{scalars[0]} {d.pick(['+', '-', '*'])} {scalars[1]}"
        body.append(f"    return {tail}")
    else:
        ret = "list"
        if scalars:
            feats.add("py-phases")
        clause, leaves = iteration()
        form = d.pick(["comp", "comp", "comp", "append", "named", "tmp"])
        if form == "comp":
            feats.add("py-listcomp")
            body.append(f"    return [{expr(leaves)} {clause}]")
        elif form == "named":
            feats.add("py-listcomp")
            body.append(f"    out = [{expr(leaves)} {clause}]")
            body.append("    return out")
        elif form == "tmp":
            # an intermediate list read by a later comprehension
            feats.add("py-listcomp")
            feats.add("py-intermediate-list")
            body.append(f"    tmp = [{expr(leaves)} {clause}]")
            body.append(f"    return [{expr(['t', 't'])} for t in tmp]")
        else:
            feats.add("py-loop")
            body.append("    out = []")
            body.append(f"    {clause}:")
            body.append(f"        out.append({expr(leaves)})")
            body.append("    return out")
    ann = "list[float]" if is_float else "list[int]"
    ctype_name = "double" if is_float else "int"
    args = [f"xs: {ann}"] + ([f"ys: {ann}"] if two else []) + ([f"c: {et}"] if scal else [])
    params = [Param("xs", ctype_name, True, "n")] + ([Param("ys", ctype_name, True, "n")] if two else []) \
        + ([Param("c", ctype_name)] if scal else [])
    src = "\n".join([f"def {name}({', '.join(args)}):", *body, ""])
    return KernelSpec(name, "python", src, name, params, ret, sorted(set(consts), key=repr), sorted(feats), "1d")


def python_deep_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """A Python GEMM-like nest three deep over flat row-major lists with explicit sizes
    (``A[i * p + k] * B[k * n + j]``, both transposes), the result built with ``append``
    (flat or a list of rows), a ``sum`` of a generator inside two loops, or a (nested) list
    comprehension; sometimes an ``alpha`` scale, and near-misses (``k`` from 1, triangular
    bounds, an accumulator carried across rows)."""
    feats: set[str] = {"deep", "py-deep"}
    is_float = d.coin(40)
    et = "float" if is_float else "int"
    ct = "double" if is_float else "int"
    perm = [["m", "n", "p"][x] for x in d.pick([(0, 1, 2), (0, 1, 2), (0, 2, 1), (1, 0, 2), (2, 0, 1)])]
    M, N, K = perm
    Mv, Nv, Kv = (_DEEP_SIZE_VALUE[x] for x in perm)
    ta, tb = d.coin(40), d.coin(40)
    a_at = f"A[k * {M} + i]" if ta else f"A[i * {K} + k]"
    b_at = f"B[j * {K} + k]" if tb else f"B[k * {N} + j]"
    if ta:
        feats.add("deep-transposed-A")
    if tb:
        feats.add("deep-transposed-B")
    alpha = d.coin(30)
    prod = d.pick([f"{a_at} * {b_at}"] * 4 + [f"{b_at} * {a_at}", f"({a_at} - {b_at}) * ({a_at} - {b_at})"])
    miss = d.pick(["k-from-1", "triangular", "carried-i", "max"]) if d.coin(30) else None
    if miss:
        feats.add("deep-miss-" + miss)
    k_range = f"range(1, {K})" if miss == "k-from-1" else f"range({K})"
    j_range = f"range({N})"
    big = miss == "triangular"
    if big:
        if d.coin(50):
            k_range = d.pick(["range(i)", "range(i + 1)", f"range(i, {K})"])
        else:
            j_range = d.pick(["range(i)", "range(i + 1)", f"range(i, {N})"])
    zero = "0.0" if is_float else "0"
    val = "alpha * s" if alpha else "s"
    form = d.pick(["append", "append", "rows", "sum-gen", "comp", "comp-rows"])
    if miss in ("carried-i", "max"):
        form = d.pick(["append", "rows"])
    feats.add("py-deep-" + form)
    body: list[str] = []
    gen = f"sum({prod} for k in {k_range})"
    if form in ("comp", "comp-rows"):
        feats.add("py-listcomp")
        v = f"alpha * {gen}" if alpha else gen
        if form == "comp":
            body.append(f"    return [{v} for i in range({M}) for j in {j_range}]")
        else:
            body.append(f"    return [[{v} for j in {j_range}] for i in range({M})]")
    else:
        body.append("    out = []")
        if miss == "carried-i":
            body.append(f"    s = {zero}")
        body.append(f"    for i in range({M}):")
        ind = "        "
        if form == "rows":
            body.append(f"{ind}row = []")
        body.append(f"{ind}for j in {j_range}:")
        tgt = "row" if form == "rows" else "out"
        if form == "sum-gen":
            feats.add("py-sum-gen")
            body.append(f"{ind}    {tgt}.append({'alpha * ' if alpha else ''}{gen})")
        else:
            if miss != "carried-i":
                body.append(f"{ind}    s = {zero}")
            body.append(f"{ind}    for k in {k_range}:")
            if miss == "max":
                body.append(f"{ind}        s = max(s, {prod})")
            else:
                body.append(f"{ind}        s {d.pick(['+=', '+=', '= s +'])} {prod}".replace("= s + ", "= s + "))
            body.append(f"{ind}    {tgt}.append({val})")
        if form == "rows":
            body.append(f"{ind}out.append(row)")
        body.append("    return out")
    ext = "(m + n + 2) * (m + n + 2)" if big else None
    params = [Param("A", ct, True, ext or f"{Mv} * {Kv}"), Param("B", ct, True, ext or f"{Kv} * {Nv}")]
    args = [f"A: list[{et}]", f"B: list[{et}]"]
    if alpha:
        params.append(Param("alpha", ct))
        args.append(f"alpha: {et}")
    for x in sorted(set(perm)):
        params.append(Param(x, "int", size=True))
        args.append(f"{x}: int")
    src = "\n".join([f"def {name}({', '.join(args)}):", *body, ""])
    return KernelSpec(name, "python", src, name, params, "list", [0, 1, 2] + ([0.5] if is_float else []),
                      sorted(feats), "2d")


# --------------------------------------------------------------------------- products and argmax

#: percent chances of the running-product and index-of-extremum shapes (commits 4955a92,
#: a507e15); ``TENSPILER_FUZZ_SHAPES=product,argmax`` (or ``--shapes`` of benchmarks/fuzz.py)
#: draws only those
_SHAPES_DEFAULT["product"] = _SHAPES_NEW["product"] = _SHAPES_DEEP["product"] = 5
_SHAPES_DEFAULT["argmax"] = _SHAPES_NEW["argmax"] = _SHAPES_DEEP["argmax"] = 6
#: shape names that restrict a campaign to kernels of that shape (C and Python)
FOCUS_SHAPES = ("product", "argmax", "tensor3", "poststore", "guardedprod", "window", "conversion", "cxxsize", "pyraise",
                "unsigned", "narrow", "bitwise", "whileloop", "guard", "stride", "reading", "control", "blas")
#: the focus shapes of the red team's four classes (drawn only when asked for, never in the default mix)
RED_TEAM_SHAPES = ("conversion", "cxxsize", "pyraise")

_ARG_TYPES = ["int", "int", "int", "long", "float", "float", "double", "double", "int64_t", "unsigned char"]
#: the key an argmax ranks by: a template over the index ``{i}`` (arrays a, b; scalar c)
_ARG_KEYS = ["a[{i}]", "a[{i}]", "a[{i}]", "a[{i}] - b[{i}]", "a[{i}] + b[{i}]", "a[{i}] * a[{i}]",
             "(a[{i}] - c) * (a[{i}] - c)", "-a[{i}]", "a[{i}] * b[{i}]", "c * a[{i}]", "a[{i}] * 2 + 1",
             "(a[{i}] < 0 ? -a[{i}] : a[{i}])"]
_ARG_MISSES = ["i-1", "i+1", "unguarded", "other-m", "min-vs-max", "reversed", "gather"]


def _extreme_literal(d: Draw, t: str, is_min: bool) -> str:
    """A start value above (argmin) / below (argmax) every value the oracle draws small:
    ``-1e30f``, ``-1000000``, ``INT_MIN`` spelled ``(-2147483647 - 1)``, ``0`` for unsigned."""
    ct = ctype(t)
    if ct.is_float:
        v = "1e30f" if ct.bits == 32 else d.pick(["1e300", "1e30"])
        return v if is_min else "-" + v
    if not ct.signed:
        return str(ct.hi) if is_min else "0"
    if ct.bits >= 32 and d.coin(60):
        return "1000000" if is_min else "-1000000"
    suffix = "L" if ct.bits == 64 else ""
    return f"{ct.hi}{suffix}" if is_min else f"(-{ct.hi}{suffix} - 1)"


def _argmax_body(g: _CGen, elem: str, scal_t: str) -> _Body:
    """The index of a running extremum (TensIR argmax, commit a507e15)::

        int best = 0; int m = a[0];
        for (int i = 1; i < n; i++) { if (a[i] > m) { m = a[i]; best = i; } }
        return best;

    from the first element or a sentinel (``best = -1``), ``>``/``>=``/``<``/``<=`` in either
    operand order, the two statements in either order, a key expression (``a[i] - b[i]``,
    ``(a[i] - c) * (a[i] - c)``, ...) sometimes through a local, and near-misses that must not
    verify as an argmax (``best = i - 1`` / ``i + 1``, the guard dropped for ``best``, ``m``
    updated from another expression than the compared one, a comparison with a running
    minimum while a maximum is kept, a reversed loop, the gather ``a[i] > a[best]``)."""
    d = g.d
    g.feats.add("argmax")
    g.plain = True
    elem = d.pick(_ARG_TYPES) if d.coin(85) else elem
    m_t = elem if d.coin(75) else d.pick(["long", "double", "float", "int"])
    idx_t = d.pick(["int", "int", "int", "int", "long"])
    is_min = d.coin(40)
    g.feats.add("argmin" if is_min else "argmax-max")
    op = ("<" if is_min else ">") + d.pick(["", "", "="])
    if "=" in op:
        g.feats.add("argmax-last")
    miss = d.pick(_ARG_MISSES) if d.coin(30) else None
    if miss:
        g.feats.add("argmax-miss-" + miss)
    key = d.pick(_ARG_KEYS)
    if miss == "other-m" and "b[" not in key:
        key = "a[{i}]"
    F = key.format(i="i")
    start = d.pick([0, 1, 1])
    init_kind = d.pick(["first", "first", "extreme", "extreme", "sentinel"])
    if init_kind == "first":
        best0, m0 = "0", key.format(i="0")
    else:
        best0 = d.pick(["-1", "-1", "0"])
        m0 = _extreme_literal(d, m_t, is_min) if init_kind == "extreme" else _sentinel(g, m_t)
        start = 0 if d.coin(80) else start
    g.feats.add("argmax-from-" + init_kind)
    uses_b = "b[" in key or miss == "other-m"
    uses_c = "c" in key.replace("{i}", "")
    params = [Param("a", elem, True, "n")] + ([Param("b", elem, True, "n")] if uses_b else []) \
        + ([Param("c", scal_t if d.coin(30) else elem)] if uses_c else []) + [Param("n", "int", size=True)]
    lines = [f"  {idx_t} best = {best0};"]
    if miss == "gather":
        lines.append(f"  for (int i = {max(start, 1)}; i < n; i++)")
        lines.append(f"    if (a[i] {op} a[best]) best = i;")
        lines.append("  return best;")
        return "\n".join(lines) + "\n", params, idx_t, "1d"
    m_decl = f"  {m_t} m = {m0};"
    lines.insert(d.pick([0, 1]), m_decl)
    if miss == "min-vs-max":
        lines.append(f"  {m_t} mn = {m0};")
    if miss == "reversed":
        lines.append(f"  for (int i = n - 1; i >= {start}; i--) {{")
    else:
        lines.append(f"  for (int i = {start}; i < n; i++) {{")
    val = F
    if d.coin(25) and miss not in ("other-m",):
        g.feats.add("argmax-local")
        lines.append(f"    {m_t} v = {F};")
        val = "v"
    ref = "mn" if miss == "min-vs-max" else "m"
    flipped = op.replace("<", "#").replace(">", "<").replace("#", ">")
    cmp = f"{val} {op} {ref}" if d.coin(70) else f"{ref} {flipped} {val}"
    target = {"i-1": "i - 1", "i+1": "i + 1"}.get(miss or "", "i")
    new_m = ("b[i]" if "b[" not in key else "a[i]") if miss == "other-m" else val
    if miss == "min-vs-max":
        lines.append(f"    if ({val} {'>' if is_min else '<'} mn) mn = {val};")
    stmts = [f"m = {new_m};", f"best = {target};"]
    if d.coin(35):
        stmts.reverse()
        g.feats.add("argmax-best-first")
    if miss == "unguarded":
        lines.append(f"    if ({cmp}) m = {new_m};")
        lines.append(f"    best = {target};")
    elif d.coin(15) and miss is None:
        g.feats.add("argmax-one-line")
        lines.append(f"    if ({cmp}) {{ {stmts[0]} {stmts[1]} }}")
    else:
        lines.append(f"    if ({cmp}) {{")
        lines += [f"      {s}" for s in stmts]
        lines.append("    }")
    lines.append("  }")
    lines.append("  return best;")
    return "\n".join(lines) + "\n", params, idx_t, "1d"


def _product_body(g: _CGen, elem: str, acc_t: str, scal_t: str) -> _Body:
    """A running product (TensIR reduce_prod, commit 4955a92): ``p *= F`` / ``p = p * F`` /
    ``p = F * p`` (sometimes guarded) from ``p = 1`` (``1.0f``, ``1.0``), and sometimes from
    another start (``2``, ``0``, ``k``, ``a[0]``): the tool refuses those by design."""
    d = g.d
    g.feats.add("product")
    g.plain = True
    g.depth_limit = 1
    g.allow_mod = False
    elem = d.pick(["int", "int", "long", "float", "float", "double", "double", "int64_t"]) if d.coin(85) else elem
    acc_t = elem if d.coin(70) else d.pick(["long", "double", "float", "int", acc_t])
    is_f = ctype(acc_t).is_float or ctype(elem).is_float
    ins = ["a", "b"] if d.coin(40) else ["a"]
    has_k = d.coin(30)
    params = [Param(x, elem, True, "n") for x in ins] + ([Param("k", scal_t)] if has_k else []) \
        + [Param("n", "int", size=True)]
    loads = [f"{x}[i]" for x in ins]
    env = {"loads": loads, "scalars": ["k"] if has_k else [], "vars": []}
    one = {"float": d.pick(["1.0f", "1", "1.0f"]), "double": d.pick(["1.0", "1", "1.0"])}.get(acc_t, d.pick(["1", "1", "1L"]))
    other = d.coin(15)
    if other:
        g.feats.add("product-other-start")
        init = d.pick(["2", "0", "-1", "3"] + (["k"] if has_k else []) + ["a[0]"])
    else:
        init = one
    lit = "1.0f" if acc_t == "float" else "1.0" if is_f else "1"
    kind = d.pick(["load", "load", "load", "one-minus", "plus", "pair", "scaled", "expr"])
    x = d.pick(loads)
    if kind == "scaled":
        F = f"({d.pick(env['scalars']) if env['scalars'] else g.literal(is_f)} * {x})"
    elif kind == "expr":
        F = g.expr(env, is_f)
    else:
        F = {"load": x, "one-minus": f"({lit} - {x})", "plus": f"({x} + {lit})",
             "pair": f"{loads[0]} * {loads[-1]}" if len(loads) > 1 else f"{x} * {x}"}[kind]
    g.feats.add("product-" + kind)
    form = d.pick(["opeq", "opeq", "times", "times-left", "guarded"])
    g.feats.add("product-" + form)
    if form == "guarded":
        upd = f"if ({g.cond(env, is_f)}) p *= {F};"
    else:
        upd = {"opeq": f"p *= {F};", "times": f"p = p * {F};", "times-left": f"p = {F} * p;"}[form]
    start = d.pick([0, 0, 0, 1])
    lines = [f"  {acc_t} p = {init};", f"  for (int i = {start}; i < n; i++)" + (" {" if d.coin(50) else "")]
    braced = lines[-1].endswith("{")
    lines.append(f"    {upd}")
    if braced:
        lines.append("  }")
    ret = acc_t if d.coin(85) else d.pick(["double", "long", "int"])
    lines.append("  return p;")
    return "\n".join(lines) + "\n", params, ret, "1d"


def python_argmax_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """The Python index of an extremum: ``for i in range(len(xs)): if xs[i] > m: m = xs[i];
    best = i`` and the ``enumerate`` form, from ``xs[0]`` or a sentinel, with the near-misses
    of :func:`_argmax_body`."""
    feats: set[str] = {"argmax", "py-argmax"}
    is_float = d.coin(40)
    et = "float" if is_float else "int"
    is_min = d.coin(40)
    feats.add("argmin" if is_min else "argmax-max")
    op = ("<" if is_min else ">") + d.pick(["", "", "="])
    if "=" in op:
        feats.add("argmax-last")
    miss = d.pick(_ARG_MISSES) if d.coin(30) else None
    if miss:
        feats.add("argmax-miss-" + miss)
    form = d.pick(["range", "range", "enumerate", "range-from-1"])
    if miss == "reversed":
        form = "reversed"
    feats.add("py-argmax-" + form)
    key = d.pick(["xs[{i}]", "xs[{i}]", "xs[{i}]", "xs[{i}] - ys[{i}]", "xs[{i}] * xs[{i}]", "(xs[{i}] - c) * (xs[{i}] - c)",
                  "-xs[{i}]", "abs(xs[{i}])", "xs[{i}] + ys[{i}]", "c * xs[{i}]"])
    F = key.replace("xs[{i}]", "x").format(i="i") if form == "enumerate" else key.format(i="i")
    init_kind = d.pick(["first", "first", "extreme", "sentinel"])
    if init_kind == "first":
        best0, m0 = "0", key.format(i="0")
    else:
        best0 = d.pick(["-1", "-1", "0"])
        if init_kind == "extreme":
            m0 = ("1e30" if is_min else "-1e30") if is_float else ("1000000" if is_min else "-1000000")
            if d.coin(25):
                m0 = "float('inf')" if is_min else "float('-inf')"
        else:
            m0 = d.pick(["0", "100", "-100", "2147483647", "-2147483648"] + (["0.5"] if is_float else []))
    feats.add("argmax-from-" + init_kind)
    uses_ys = "ys[" in key or miss == "other-m"
    uses_c = "c" in key.replace("{i}", "")
    ann = f"list[{et}]"
    args = [f"xs: {ann}"] + ([f"ys: {ann}"] if uses_ys else []) + ([f"c: {et}"] if uses_c else [])
    ct = "double" if is_float else "int"
    params = [Param("xs", ct, True, "n")] + ([Param("ys", ct, True, "n")] if uses_ys else []) \
        + ([Param("c", ct)] if uses_c else [])
    body = [f"    best = {best0}"]
    if miss == "gather":
        body.append("    for i in range(1, len(xs)):")
        body.append(f"        if xs[i] {op} xs[best]:")
        body.append("            best = i")
    else:
        body.insert(d.pick([0, 1]), f"    m = {m0}")
        if miss == "min-vs-max":
            body.append(f"    mn = {m0}")
        head = {"range": "for i in range(len(xs)):", "enumerate": "for i, x in enumerate(xs):",
                "range-from-1": "for i in range(1, len(xs)):", "reversed": "for i in range(len(xs) - 1, -1, -1):"}[form]
        body.append(f"    {head}")
        target = {"i-1": "i - 1", "i+1": "i + 1"}.get(miss or "", "i")
        new_m = ("ys[i]" if "ys[" not in key else "xs[i]") if miss == "other-m" else F
        ref = "m"
        if miss == "min-vs-max":
            body.append(f"        if {F} {'>' if is_min else '<'} mn:")
            body.append(f"            mn = {F}")
            ref = "mn"
        cmp = f"{F} {op} {ref}" if d.coin(75) else f"{ref} {op.replace('<', '#').replace('>', '<').replace('#', '>')} {F}"
        stmts = [f"m = {new_m}", f"best = {target}"]
        if d.coin(35):
            stmts.reverse()
            feats.add("argmax-best-first")
        body.append(f"        if {cmp}:")
        if miss == "unguarded":
            body.append(f"            m = {new_m}")
            body.append(f"        best = {target}")
        else:
            body += [f"            {s}" for s in stmts]
    body.append("    return best")
    src = "\n".join([f"def {name}({', '.join(args)}):", *body, ""])
    consts: list[float] = [0, 1, 2, -1] + ([0.5] if is_float else [])
    return KernelSpec(name, "python", src, name, params, "int", consts, sorted(feats), "1d", exact_return=True)


def python_product_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """A Python running product: ``p *= x`` / ``p = p * f`` over ``for x in xs``, ``range``,
    ``enumerate`` or ``zip``, from ``1`` / ``1.0`` and sometimes from another start."""
    feats: set[str] = {"product", "py-product"}
    is_float = d.coin(50)
    et = "float" if is_float else "int"
    two = d.coin(35)
    scal = d.coin(25)
    form = d.pick(["x", "x", "range", "enumerate"] + (["zip"] if two else []))
    feats.add("py-product-" + form)
    head, leaves = {"x": ("for x in xs:", ["x"]), "range": ("for i in range(len(xs)):", ["xs[i]"] + (["ys[i]"] if two else [])),
                    "enumerate": ("for i, x in enumerate(xs):", ["x"]), "zip": ("for x, y in zip(xs, ys):", ["x", "y"])}[form]
    one = "1.0" if is_float and d.coin(70) else "1"
    other = d.coin(15)
    if other:
        feats.add("product-other-start")
        init = d.pick(["2", "0", "-1"] + (["c"] if scal else []))
    else:
        init = one
    lit = "1.0" if is_float else "1"
    x = d.pick(leaves)
    kind = d.pick(["load", "load", "load", "one-minus", "plus", "pair", "scaled"])
    F = {"load": x, "one-minus": f"({lit} - {x})", "plus": f"{lit} + {x}" if d.coin(50) else f"({x} + {lit})",
         "pair": f"{leaves[0]} * {leaves[-1]}", "scaled": f"{'c' if scal else '2'} * {x}"}[kind]
    feats.add("product-" + kind)
    upd = d.pick(["opeq", "opeq", "times", "guarded"])
    feats.add("product-" + upd)
    body = [f"    p = {init}", f"    {head}"]
    if upd == "opeq":
        body.append(f"        p *= {F}")
    elif upd == "times":
        body.append(f"        p = p * ({F})")
    else:
        body.append(f"        if {x} {d.pick(['>', '<', '!='])} 0:")
        body.append(f"            p *= {F}")
    body.append("    return p")
    ann = f"list[{et}]"
    args = [f"xs: {ann}"] + ([f"ys: {ann}"] if two else []) + ([f"c: {et}"] if scal else [])
    ct = "double" if is_float else "int"
    params = [Param("xs", ct, True, "n")] + ([Param("ys", ct, True, "n")] if two else []) + ([Param("c", ct)] if scal else [])
    src = "\n".join([f"def {name}({', '.join(args)}):", *body, ""])
    return KernelSpec(name, "python", src, name, params, et, [0, 1, 2, -1] + ([0.5] if is_float else []),
                      sorted(feats), "1d")


# --------------------------------------------------------------------------- 3-D tensors, stores after a loop, guarded products

#: percent of all kernels (default mix) of the shapes added with 79b4bf4 / 2873ca1 (3-D
#: vector / list parameters, per-plane sums), fa55b1a / 249115e (stores after a loop or a
#: two-deep nest) and 96a59fb (guarded running products); ``TENSPILER_FUZZ_SHAPES=tensor3``,
#: ``poststore``, ``guardedprod`` draw only those
_SHAPES_DEFAULT["tensor3"] = _SHAPES_NEW["tensor3"] = 5
_SHAPES_DEFAULT["poststore"] = _SHAPES_NEW["poststore"] = 4
_SHAPES_DEFAULT["guardedprod"] = _SHAPES_NEW["guardedprod"] = 3
#: ``TENSPILER_FUZZ_SHAPES=deep`` stays a campaign of deep nests
_SHAPES_DEEP["tensor3"] = _SHAPES_DEEP["poststore"] = _SHAPES_DEEP["guardedprod"] = 0
#: share (percent) of Python kernels among the 3-D ones (the rest is C++ std::vector code)
_T3_PYTHON = 40

#: element types of C++ vectors the frontend documents (tenspiler/frontend/cxx.py), and a few
#: it refuses (drawn rarely: the refusal must be clean)
_T3_ELEMS = ["int", "int", "int", "float", "float", "double", "double", "uint8_t", "int32_t"]
_T3_ELEMS_OTHER = ["long", "short", "unsigned", "int64_t", "char"]


def _t3_loops(d: Draw, x: str, names: tuple[str, str, str], style: str, lang: str) -> tuple[list[str], list[str]]:
    """The headers of a planes / rows / cols loop nest over the 3-D parameter ``x`` (C++ or
    Python) and the lines declaring the bound locals before it. ``style``: ``direct``
    (``x.size()``, ``x[0].size()``, ``x[0][0].size()``), ``perplane`` (``x[p].size()``,
    ``x[p][r].size()``) or ``locals`` (``int P = x.size(); ...``: reads ``x[0]`` even when
    the tensor has no plane, undefined in C++ / an IndexError in Python: such inputs are
    discarded)."""
    p, r, _c = names
    pre: list[str] = []
    if lang == "cxx":
        dims = {"direct": [f"{x}.size()", f"{x}[0].size()", f"{x}[0][0].size()"],
                "perplane": [f"{x}.size()", f"{x}[{p}].size()", f"{x}[{p}][{r}].size()"],
                "locals": ["P", "R", "C"]}[style]
        if style == "locals":
            t = d.pick(["int", "int", "int", "long"])
            pre = [f"  {t} P = {x}.size();", f"  {t} R = {x}[0].size();", f"  {t} C = {x}[0][0].size();"]
        loop_t = d.pick(["int", "int", "int", "int", "long"]) if d.coin(95) else "size_t"
        heads = []
        for var, bound in zip(names, dims, strict=True):
            step = d.pick([f"{var}++", f"{var}++", f"++{var}", f"{var} += 1"])
            heads.append(f"for ({loop_t} {var} = 0; {var} < {bound}; {step})")
        return heads, pre
    dims = {"direct": [f"len({x})", f"len({x}[0])", f"len({x}[0][0])"],
            "perplane": [f"len({x})", f"len({x}[{p}])", f"len({x}[{p}][{r}])"],
            "locals": ["P", "R", "C"]}[style]
    if style == "locals":
        pre = [f"    P = len({x})", f"    R = len({x}[0])", f"    C = len({x}[0][0])"]
    return [f"for {var} in range({bound}):" for var, bound in zip(names, dims, strict=True)], pre


def cxx_tensor3_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """A C++ kernel over ``vector<vector<vector<T>>>`` parameters (commits 79b4bf4, 2873ca1):
    a planes / rows / cols triple loop reading ``x[p][r][c]`` (and ``y[p][r][c]``), building

    * ``map``: a flat ``vector<T>`` by ``push_back`` of a random element-wise expression over
      the two tensors, a scalar and literals (selects, casts, ``%`` on integers);
    * ``rows``: a ``vector<vector<T>>`` with one row per plane (``row.push_back``);
    * ``planesum``: one scalar per plane accumulated over rows and columns (``s += E``,
      ``s = s + E``, ``if (c) s += E``), pushed once per plane;

    and near-misses the tool must refuse or get right: a per-plane maximum, a total over the
    whole tensor returned as a scalar, the loop counter used as a value, a scalar carried
    across planes, an element type the subset does not know. Bounds from ``x.size()``,
    ``x[p].size()`` or locals; parameters by ``const &`` or by value."""
    g = _CGen(d)
    _WILD[0] = 0
    g.plain = True
    g.depth_limit = d.pick([1, 2, 2])
    feats = g.feats
    feats.update({"tensor3", "cxx", "cxx-tensor3"})
    elem = d.pick(_T3_ELEMS) if d.coin(94) else d.pick(_T3_ELEMS_OTHER)
    if elem not in VECTOR_ELEMENT_TYPES:
        feats.add("t3-elem-unsupported")
    is_f = ctype(elem if elem in TYPES else "int").is_float
    g.allow_mod = not is_f
    two = d.coin(55)
    scal = d.coin(45)
    scal_t = elem if d.coin(75) or elem not in TYPES else d.pick(["int", "float", "double"])
    if elem == "uint8_t" and scal and d.coin(60):
        scal_t = "int"
    form = d.pick(["map"] * 9 + ["rows"] * 3 + ["planesum"] * 7 + ["planemax", "total", "carried"])
    feats.add("t3-" + form)
    style = d.pick(["direct", "direct", "perplane", "perplane", "locals"])
    feats.add("t3-bounds-" + style)
    names = d.pick([("p", "r", "c"), ("p", "r", "c"), ("b", "i", "j"), ("z", "y2", "x2")])
    p, r, c = names
    at = f"[{p}][{r}][{c}]"
    loads = [f"x{at}"] + ([f"y{at}"] if two else [])
    env = {"loads": loads, "scalars": ["k"] if scal else [], "vars": []}
    if d.coin(6):
        feats.add("t3-counter-value")
        env["vars"].append(d.pick([p, r, c]))
    heads, pre = _t3_loops(d, "x", names, style, "cxx")
    ref = "const " if d.coin(70) else ""
    amp = "&" if ref else ""
    vt = f"vector<vector<vector<{elem}>>>"
    std_prefix = d.coin(15)
    if std_prefix:
        feats.add("t3-std-prefix")
    args = [f"{ref}{vt}{amp} x"] + ([f"{ref}{vt}{amp} y"] if two else []) + ([f"{scal_t} k"] if scal else [])
    expr = g.expr(env, is_f)
    if not any(x in expr for x in ("x[", "y[")):
        expr = f"{d.pick(loads)} {d.pick(['+', '-', '*'])} {expr}" if d.coin(70) else d.pick(loads)
    lines = list(pre)
    ind = "  "
    acc_t = elem
    if form in ("planesum", "planemax", "total", "carried"):
        acc_t = elem if d.coin(60) or elem not in TYPES else d.pick(
            {"float": ["double", "float"], "uint8_t": ["int"], "int": ["double", "int"]}.get(elem, [elem]))
        zero = {"float": d.pick(["0", "0.0f", "0.0f"]), "double": d.pick(["0", "0.0"])}.get(acc_t, "0")
        upd = d.pick(["pluseq", "pluseq", "plus", "ifplus"])
        if form == "planemax":
            zero = f"x[{p}][0][0]" if d.coin(50) else ("-1e30f" if is_f else "-1000000")
        if form in ("planesum", "planemax"):
            lines.append(f"{ind}vector<{acc_t}> out;")
        if form in ("total", "carried"):
            lines.append(f"{ind}{acc_t} s = {zero};")
            if form == "carried":
                lines.append(f"{ind}vector<{acc_t}> out;")
        lines.append(f"{ind}{heads[0]} {{")
        if form in ("planesum", "planemax"):
            lines.append(f"{ind}  {acc_t} s = {zero};")
        lines.append(f"{ind}  {heads[1]}")
        lines.append(f"{ind}    {heads[2]}")
        if form == "planemax":
            lines.append(f"{ind}      if ({expr} > s) s = {expr};")
        elif upd == "pluseq":
            lines.append(f"{ind}      s += {expr};")
        elif upd == "plus":
            lines.append(f"{ind}      s = s + {expr};")
        else:
            feats.add("t3-cond-sum")
            lines.append(f"{ind}      if ({g.cond(env, is_f)}) s += {expr};")
        if form in ("planesum", "planemax", "carried"):
            post = "s"
            if d.coin(15):
                feats.add("t3-post-expr")
                post = d.pick([f"s * {g.literal(ctype(acc_t).is_float)}", f"s + {g.literal(ctype(acc_t).is_float)}"]
                              + (["s * k", "s + k"] if scal else []))
            lines.append(f"{ind}  out.push_back({post});")
        lines.append(f"{ind}}}")
        if form == "total":
            lines.append(f"{ind}return s;")
            ret = acc_t
        else:
            lines.append(f"{ind}return out;")
            ret = f"vector<{acc_t}>"
    elif form == "rows":
        lines.append(f"{ind}vector<vector<{elem}>> out;")
        lines.append(f"{ind}{heads[0]} {{")
        lines.append(f"{ind}  vector<{elem}> row;")
        lines.append(f"{ind}  {heads[1]}")
        lines.append(f"{ind}    {heads[2]}")
        lines.append(f"{ind}      row.push_back({expr});")
        lines.append(f"{ind}  out.push_back(row);")
        lines.append(f"{ind}}}")
        lines.append(f"{ind}return out;")
        ret = f"vector<vector<{elem}>>"
    else:
        lines.append(f"{ind}vector<{elem}> out;")
        lines.append(f"{ind}{heads[0]}")
        lines.append(f"{ind}  {heads[1]}")
        local = d.coin(20)
        braces = local or d.coin(30)
        lines.append(f"{ind}    {heads[2]}" + (" {" if braces else ""))
        if local:
            feats.add("t3-local")
            lines.append(f"{ind}      {elem} v = {expr};")
            expr = d.pick(["v", f"v {d.pick(['+', '*'])} {g.literal(is_f)}"])
        lines.append(f"{ind}      out.push_back({expr});")
        if braces:
            lines.append(f"{ind}    }}")
        lines.append(f"{ind}return out;")
        ret = f"vector<{elem}>"
    head = "#include <vector>\n" + ("#include <cstdint>\n" if re.search(r"\b\w+_t\b", "".join(lines + args)) or
                                      elem.endswith("_t") else "")
    src = head + "using namespace std;\n\n" + f"{ret} {name}({', '.join(args)}) {{\n" + "\n".join(lines) + "\n}\n"
    if std_prefix:
        src = re.sub(r"\bvector<", "std::vector<", src.replace("using namespace std;\n", ""))
    ptype = elem if elem in TYPES else "int"
    params = [Param("x", ptype, True, "3d")] + ([Param("y", ptype, True, "3d")] if two else []) \
        + ([Param("k", scal_t if scal_t in TYPES else "int")] if scal else [])
    return KernelSpec(name, "cxx", src, name, params, ret, sorted(set(g.constants), key=repr), sorted(feats), "3d")


#: C++ vector element types (tenspiler/frontend/cxx.py VECTOR_ELEMENTS; kept here so that the
#: fuzzer does not import the tool)
VECTOR_ELEMENT_TYPES = ("float", "double", "int", "int32_t", "uint8_t")


def python_tensor3_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """A Python kernel over ``list[list[list[T]]]`` parameters: the planes / rows / cols
    loops of :func:`cxx_tensor3_kernel` written with ``range(len(...))``, the result a flat
    list built by ``append``, one row per plane, or one sum per plane (also as ``sum`` of a
    generator over rows and columns); near-misses: a per-plane ``max``, a total, an
    accumulator carried across planes."""
    feats: set[str] = {"tensor3", "py-tensor3"}
    consts: list[float] = []
    is_float = d.coin(45)
    et = "float" if is_float else "int"
    two = d.coin(55)
    scal = d.coin(40)
    names = d.pick([("p", "r", "c"), ("p", "r", "c"), ("b", "i", "j")])
    p, r, c = names
    at = f"[{p}][{r}][{c}]"
    leaves = [f"x{at}"] * 3 + ([f"y{at}"] * 3 if two else []) + (["k"] if scal else [])
    if d.coin(5):
        feats.add("t3-counter-value")
        leaves.append(d.pick([p, r, c]))

    def lit() -> str:
        v: float = d.pick([0.5, 0.1, 2.0, 1.5, 100.0]) if is_float and d.coin(60) else d.pick([0, 1, 2, 3, 7, 10, 255, -1, -3])
        consts.append(v)
        return repr(v)

    def expr(depth: int = 0) -> str:
        if depth >= 2 or d.coin(40):
            return d.pick([*leaves, lit()])
        k = d.pick(["bin"] * 5 + ["ifexp", "minmax", "abs"])
        if k == "bin":
            op = d.pick(["+", "-", "*", "//", "%"] if not is_float else ["+", "-", "*", "/"])
            if op in ("//", "%", "/"):
                feats.add("div")
            return f"({expr(depth + 1)} {op} {expr(depth + 1)})"
        if k == "ifexp":
            feats.add("select")
            return f"({expr(depth + 1)} if {expr(depth + 1)} {d.pick(['<', '>', '<=', '>=', '==', '!='])} {lit()} else {expr(depth + 1)})"
        if k == "minmax":
            return f"{d.pick(['min', 'max'])}({expr(depth + 1)}, {expr(depth + 1)})"
        return f"abs({expr(depth + 1)})"

    form = d.pick(["map"] * 8 + ["rows"] * 3 + ["planesum"] * 6 + ["sumgen"] * 2 + ["comp", "planemax", "total", "carried"])
    feats.add("t3-" + form)
    style = d.pick(["direct", "direct", "perplane", "perplane", "locals"])
    feats.add("t3-bounds-" + style)
    heads, pre = _t3_loops(d, "x", names, style, "python")
    e = expr()
    if "y[" not in e and "x[" not in e:
        e = f"{d.pick(leaves[:6])} {d.pick(['+', '-', '*'])} {e}" if d.coin(70) else leaves[0]
    zero = "0.0" if is_float and d.coin(60) else "0"
    body = list(pre)
    if form == "comp":
        feats.add("py-listcomp")
        gens = " ".join("for " + h[4:-1] for h in heads)
        body.append(f"    return [{e} {gens}]")
    elif form == "sumgen":
        feats.add("py-sum-gen")
        body.append("    out = []")
        body.append(f"    {heads[0]}")
        body.append(f"        out.append(sum({e} {' '.join('for ' + h[4:-1] for h in heads[1:])}))")
        body.append("    return out")
    elif form in ("planesum", "planemax", "total", "carried"):
        if form != "total":
            body.append("    out = []")
        if form in ("total", "carried"):
            body.append(f"    s = {zero}")
        body.append(f"    {heads[0]}")
        if form in ("planesum", "planemax"):
            body.append(f"        s = {zero if form == 'planesum' else f'x[{p}][0][0]'}")
        body.append(f"        {heads[1]}")
        body.append(f"            {heads[2]}")
        if form == "planemax":
            body.append(f"                s = max(s, {e})")
        elif d.coin(25):
            feats.add("t3-cond-sum")
            body.append(f"                if {expr(1)} {d.pick(['<', '>', '!='])} {lit()}:")
            body.append(f"                    s += {e}")
        else:
            body.append(f"                s {d.pick(['+=', '+=', '= s +'])} {e}".replace("= s + ", "= s + "))
        if form != "total":
            body.append("        out.append(s)")
            body.append("    return out")
        else:
            body.append("    return s")
    elif form == "rows":
        body.append("    out = []")
        body.append(f"    {heads[0]}")
        body.append("        row = []")
        body.append(f"        {heads[1]}")
        body.append(f"            {heads[2]}")
        body.append(f"                row.append({e})")
        body.append("        out.append(row)")
        body.append("    return out")
    else:
        body.append("    out = []")
        body.append(f"    {heads[0]}")
        body.append(f"        {heads[1]}")
        body.append(f"            {heads[2]}")
        body.append(f"                out.append({e})")
        body.append("    return out")
    annotate = d.coin(85) or not is_float
    ann = f": list[list[list[{et}]]]" if annotate else ""
    if not annotate:
        feats.add("py-unannotated")
    args = [f"x{ann}"] + ([f"y{ann}"] if two else []) + ([f"k: {et}" if annotate else "k"] if scal else [])
    ct = "double" if is_float else "int"  # an unannotated kernel is a float one (the frontend's default)
    params = [Param("x", ct, True, "3d")] + ([Param("y", ct, True, "3d")] if two else []) + ([Param("k", ct)] if scal else [])
    ret = "int" if form == "total" and not is_float else "float" if form == "total" else "list"
    src = "\n".join([f"def {name}({', '.join(args)}):", *body, ""])
    return KernelSpec(name, "python", src, name, params, ret, sorted(set(consts), key=repr), sorted(feats), "3d")


def tensor3_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """A 3-D kernel: C++ (:func:`cxx_tensor3_kernel`) or Python (:func:`python_tensor3_kernel`)."""
    return python_tensor3_kernel(d, name) if d.coin(_T3_PYTHON) else cxx_tensor3_kernel(d, name)


#: near-misses of the stores after a loop (the tool must refuse them or get them right)
_POST_MISSES = ["same-array", "index-in-loop", "store-in-loop", "conditional-store", "store-before", "index-late"]


def poststore_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """A C kernel computing reductions in a loop (or a two-deep nest) and storing them after
    it (commits fa55b1a, 249115e)::

        void f(int n, T *a, T *out) { T s = 0; for (...) s += F; *out = s; }

    the reductions a sum, a running maximum / minimum (from ``a[0]`` or a sentinel), a
    product, a count, the index of an extremum (argmax); stores ``*out = s;``, ``out[0]``,
    ``out[K]`` (a literal), ``out[k]`` (a parameter) or ``out[j]`` (a local fixed before the
    loop), of ``s`` or a small expression of it, one or two stores to different arrays,
    sometimes a return value too; near-misses (:data:`_POST_MISSES`): two stores to one
    array, an index changed in the loop or after it, a store inside the loop as well, a
    conditional store, an accumulation through the pointer."""
    g = _CGen(d)
    _WILD[0] = 0
    g.plain = True
    g.depth_limit = 1
    feats = g.feats
    feats.add("poststore")
    elem = d.pick(["int", "int", "int", "long", "float", "float", "double", "double", "unsigned char", "int64_t"])
    is_f = ctype(elem).is_float
    g.allow_mod = not is_f
    nest = d.coin(25)
    if nest:
        feats.add("poststore-nest")
    two_in = d.coin(35)
    has_k = d.coin(30)
    scal_t = elem if d.coin(80) else d.pick(["int", "double"])
    idx = "i * n + j" if nest else "i"
    ins = ["a", "b"] if two_in else ["a"]
    loads = [f"{x}[{idx}]" for x in ins]
    env = {"loads": loads, "scalars": ["k"] if has_k else [], "vars": []}
    miss = d.pick(_POST_MISSES) if d.coin(18) else None
    if miss:
        feats.add("poststore-miss-" + miss)
    # a running maximum / minimum or a product over a two-deep nest is refused today ("not an
    # accumulation"): drawn rarely there
    kinds = ["sum", "sum", "sum", "max", "min", "prod", "count", "argmax", "argmax"] if not nest else \
        ["sum"] * 8 + ["count"] * 3 + ["max", "min", "prod"]
    n_red = 2 if d.coin(35) else 1
    reds = [d.pick(kinds) for _ in range(n_red)]
    if "argmax" in reds:
        reds = ["argmax"]
        n_red = 1
    pre: list[str] = []
    body: list[str] = []
    values: list[tuple[str, str]] = []  # (variable, C type) of each stored value
    first_from = False
    for idx_r, kind in enumerate(reds):
        v = f"s{idx_r}" if n_red > 1 else "s"
        feats.add("poststore-" + kind)
        # a wider accumulator (a narrowing one, unsigned char or long += float, is refused
        # by design: drawn rarely)
        wider = {"float": ["double", "float"], "double": ["double"], "unsigned char": ["int", "long", "int"],
                 "int": ["long", "int"], "long": ["long"], "int64_t": ["long", "int64_t"]}[elem]
        acc_t = d.pick(wider) if elem == "unsigned char" and kind in ("sum", "prod") else elem if d.coin(70) else d.pick(wider)
        if d.coin(4):
            feats.add("poststore-narrow-acc")
            acc_t = d.pick(["int", "long", "float", "unsigned char"])
        if kind in ("max", "min", "argmax"):
            # an unsigned char maximum kept in an unsigned char is refused (a narrowing update)
            acc_t = "int" if elem == "unsigned char" and d.coin(70) else elem if d.coin(85) else acc_t
        fl = ctype(acc_t).is_float or is_f
        F = d.pick(loads) if d.coin(55) else g.expr(env, is_f)
        if "[" not in F:
            F = f"{d.pick(loads)} {d.pick(['+', '*', '-'])} {F}" if d.coin(60) else d.pick(loads)
        if kind == "sum":
            init = "0" if d.coin(75) else g.literal(ctype(acc_t).is_float)
            pre.append(f"  {acc_t} {v} = {init};")
            body.append(d.pick([f"{v} += {F};", f"{v} = {v} + {F};", f"{v} -= {F};"]))
        elif kind == "count":
            acc_t = d.pick(["int", "int", "long"])
            pre.append(f"  {acc_t} {v} = 0;")
            cond = g.cond(env, is_f)
            if "[" not in cond:
                cond = f"{d.pick(loads)} {d.pick(['>', '<', '!=', '>='])} {g.literal(is_f)}"
            body.append(f"if ({cond}) {d.pick([f'{v}++', f'{v} += 1', f'{v} = {v} + 1'])};")
        elif kind == "prod":
            one = "1.0f" if acc_t == "float" else "1.0" if ctype(acc_t).is_float else "1"
            pre.append(f"  {acc_t} {v} = {one};")
            body.append(d.pick([f"{v} *= {F};", f"{v} = {v} * {F};"]))
        elif kind in ("max", "min"):
            from_first = not nest and d.coin(50) and not first_from
            if from_first:
                first_from = True
                pre.append(f"  {acc_t} {v} = {ins[0]}[0];")
                F = loads[0] if d.coin(70) else F
            else:
                pre.append(f"  {acc_t} {v} = {_sentinel(g, acc_t) if d.coin(50) else _extreme_literal(d, acc_t, kind == 'min')};")
            body.append(_running_update(d, v, F, kind == "min"))
        else:  # argmax
            is_min = d.coin(40)
            feats.add("poststore-argmin" if is_min else "poststore-argmax-max")
            op = ("<" if is_min else ">") + d.pick(["", "", "="])
            key = d.pick([*loads, F])
            if d.coin(50):
                pre.append(f"  {acc_t} m = {key.replace('[i]', '[0]')};")
                pre.append("  int best = 0;")
                first_from = True
            else:
                pre.append(f"  {acc_t} m = {_extreme_literal(d, acc_t, is_min)};")
                pre.append(f"  int best = {d.pick(['-1', '0'])};")
            body.append(f"if ({key} {op} m) {{ m = {key}; best = i; }}")
            values.append(("best", "int"))
            if d.coin(60):
                values.append(("m", acc_t))
            continue
        values.append((v, acc_t))
        if fl:
            g.feats.add("float")
    # the stores after the loop
    outs = ["out", "val"] if len(values) > 1 else ["out"]
    if len(values) == 1 and d.coin(20):
        outs = ["out", "out2"]
        values = values * 2
        feats.add("poststore-same-value-twice")
    stores: list[str] = []
    out_types: dict[str, str] = {}
    extents: dict[str, str] = {}
    fixed: list[str] = []
    for o, (v, t) in zip(outs, values, strict=False):
        where = d.pick(["star", "star", "zero", "lit", "lit", "param", "local"])
        feats.add("poststore-at-" + where)
        ot = t if d.coin(80) else d.pick([elem, "double", "long", "int"])
        out_types[o] = ot
        if where == "star":
            tgt, ext = f"*{o}", "1"
        elif where == "zero":
            tgt, ext = f"{o}[0]", "1"
        elif where == "lit":
            kk = d.integer(1, 3)
            tgt, ext = f"{o}[{kk}]", str(kk + d.pick([1, 1, 2]))
        else:
            if where == "param":
                tgt = f"{o}[j]"
            else:
                lit_j = d.integer(0, 3)
                if f"  int j{o} = {lit_j};" not in fixed:
                    fixed.append(f"  int j{o} = {lit_j};")
                tgt = f"{o}[j{o}]"
                ext = str(lit_j + 1)
            if where == "param":
                ext = "j + 1" if d.coin(70) else "j + 2"
        rhs = v
        if d.coin(20):
            feats.add("poststore-expr")
            tfl = ctype(t).is_float
            rhs = d.pick([f"{v} + {g.literal(tfl)}", f"{v} * {g.literal(tfl)}", f"{v} - 1"]
                         + ([f"{v} / n"] if not nest and v != "best" else []) + ([f"{v} + k"] if has_k else []))
        stores.append(f"  {tgt} = {rhs};")
        extents[o] = ext
    # near-misses
    if miss == "same-array" and len(stores) > 1:
        stores[1] = stores[1].replace("val", "out").replace("out2", "out")
        for o in ("val", "out2"):
            if o in extents:
                extents["out"] = f"({extents['out']}) + 4"
                extents.pop(o)
                out_types.pop(o)
        stores = [s.replace("*out", "out[0]") if n_ == 0 else s.replace("*out", "out[1]") for n_, s in enumerate(stores)]
    elif miss == "same-array":
        stores.append(stores[0].replace("*out", "out[0]").rsplit("=", 1)[0] + "= 0;")
    loop_extra: list[str] = []
    if miss == "index-in-loop":
        fixed.append("  int jj = 0;")
        loop_extra.append("jj = i;" if not nest else "jj = j;")
        stores[0] = f"  out[jj] = {values[0][0]};"
        extents["out"] = "n + m + 2" if nest else "n + 2"
    elif miss == "index-late":
        stores.insert(0, "  int jl = 0;")
        stores.insert(1, f"  if ({values[0][0]} > 0) jl = 1;")
        stores.append(f"  out[jl] = {values[0][0]};")
        extents["out"] = f"({extents['out']}) + 2"
    elif miss == "store-in-loop":
        loop_extra.append(stores[0].strip())
    elif miss == "conditional-store":
        stores[0] = f"  if (n > {d.pick([0, 1, 2])}) {stores[0].strip()}"
    before: list[str] = []
    if miss == "store-before":
        before.append(stores[0].replace(values[0][0], "0").replace(" / n", ""))
    lines = pre + fixed + before
    if nest:
        lines.append("  for (int i = 0; i < m; i++)" + (" {" if loop_extra or len(body) > 1 else ""))
        lines.append("    for (int j = 0; j < n; j++)" + (" {" if len(body) > 1 or loop_extra else ""))
        lines += [f"      {b}" for b in body + loop_extra]
        if len(body) > 1 or loop_extra:
            lines.append("    }")
        if loop_extra or len(body) > 1:
            lines.append("  }")
    else:
        start = "1" if first_from and d.coin(80) else "0"
        lines.append(f"  for (int i = {start}; i < n; i++) {{")
        lines += [f"    {b}" for b in body + loop_extra]
        lines.append("  }")
    lines += stores
    ret = None
    if d.coin(12):
        feats.add("poststore-and-return")
        ret = values[0][1]
        lines.append(f"  return {values[0][0]};")
    used = "\n".join(lines)
    size_params = [Param("m", "int", size=True), Param("n", "int", size=True)] if nest else [Param("n", "int", size=True)]
    plist: list[Param] = list(size_params) if d.coin(70) else []
    if re.search(r"\bj\b", used) and "[j]" in used and not nest:
        plist.append(Param("j", "int", index=True))
    elif nest and re.search(r"out\[j\]|val\[j\]|out2\[j\]", used):
        # the nest's inner counter is j: a parameter index is named jp there
        used = re.sub(r"(out|val|out2)\[j\]", r"\1[jp]", used)
        extents = {o: e.replace("j", "jp") for o, e in extents.items()}
        plist.append(Param("jp", "int", index=True))
    for x in ins:
        plist.append(Param(x, elem, True, "m * n" if nest else "n"))
    if has_k:
        plist.append(Param("k", scal_t))
    for o in ("out", "val", "out2"):
        if o in out_types and re.search(rf"\b{o}\b", used):
            plist.append(Param(o, out_types[o], True, extents[o]))
    if plist[0].name not in ("m", "n"):
        plist += size_params
    sig = ", ".join(f"{p.ctype} *{p.name}" if p.array else f"{p.ctype} {p.name}" for p in plist)
    src = f"#include <stdint.h>\n\n{ret or 'void'} {name}({sig}) {{\n{used}\n}}\n"
    return KernelSpec(name, "c", src, name, plist, ret, sorted(set(g.constants), key=repr), sorted(feats), "2d" if nest else "1d")


# --------------------------------------------------------------------------- windows (2-D convolutions)

#: percent of all kernels (default mix) of 2-D window kernels (commits 9c37296, 11806e6,
#: 2bb8ce9: sums over a window of a wider matrix, rows lifted as ``stack``);
#: ``TENSPILER_FUZZ_SHAPES=window`` draws only those
_SHAPES_DEFAULT["window"] = _SHAPES_NEW["window"] = 4
_SHAPES_DEEP["window"] = 0
#: the idioms of shipped C code (:mod:`tenspiler.fuzz.idioms`: unsigned, narrow, bitwise,
#: while loops with pointer bumps, guards, runtime strides): 2 percent each of the default mix
for _idiom in ("unsigned", "narrow", "bitwise", "whileloop", "guard", "stride", "reading", "control", "blas"):
    _SHAPES_DEFAULT[_idiom] = _SHAPES_NEW[_idiom] = 2
    _SHAPES_DEEP[_idiom] = 0
#: near-misses of the window shape: the tool must refuse them or get them right
_WINDOW_MISSES = ["col-off", "row-off", "ker-stride", "out-gap", "triangular", "carried", "reads-out", "b-from-1"]


def window_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """A 2-D correlation, C: four loops ``i < m, j < n, a < kh, b < kw`` summing
    ``F(img[(s*i + a)*iw + s*j + b], ker[a*kw + b])`` into an accumulator (from 0, a literal
    or a bias) stored as ``out[i*n + j] = G(acc)``; the image row stride ``iw`` a local
    (``s*n + kw - 1 + pad``), the stride ``s`` 1 or 2, sometimes a second image, a scalar
    factor, a clamp or a division after the sum, the window sum alone (a box filter), the
    loop conditions ``i + kh <= …`` style; about a fifth carry a near-miss
    (:data:`_WINDOW_MISSES`)."""
    g = _CGen(d)
    _WILD[0] = 0
    g.plain = True
    g.depth_limit = 1
    feats = g.feats
    feats.add("window")
    elem = d.pick(["int", "int", "long", "float", "float", "double", "double", "unsigned char"])
    is_f = ctype(elem).is_float
    g.allow_mod = not is_f
    acc_t = elem if elem != "unsigned char" else d.pick(["int", "long"])
    if d.coin(15) and not is_f:
        acc_t = "long"
    out_t = acc_t if d.coin(80) else d.pick([elem, "double", "int"])
    stride = 2 if d.coin(20) else 1
    pad = d.pick([0, 0, 1, 2])
    miss = d.pick(_WINDOW_MISSES) if d.coin(20) else None
    if stride == 2:
        feats.add("window-stride2")
    if miss:
        feats.add("window-miss-" + miss)
    a_, b_ = d.pick([("a", "b"), ("a", "b"), ("p", "q"), ("ki", "kj")])
    col = f"{stride} * j + {b_}" if stride == 2 else d.pick([f"j + {b_}", f"{b_} + j"])
    row = f"{stride} * i + {a_}" if stride == 2 else d.pick([f"i + {a_}", f"{a_} + i"])
    if miss == "col-off":
        col += " + 1"
    if miss == "row-off":
        row += " + 1"
    img = f"img[({row}) * iw + {col}]"
    kst = "kh" if miss == "ker-stride" else "kw"
    ker = f"ker[{a_} * {kst} + {b_}]"
    two = d.coin(15)
    loads = [img, ker] + ([img.replace("img[", "img2[")] if two else [])
    has_s = d.coin(35)
    env = {"loads": loads, "scalars": ["s"] if has_s else [], "vars": []}
    r = d.integer(0, 99)
    if r < 55:
        F = f"{img} * {ker}" if d.coin(80) else f"{ker} * {img}"
    elif r < 68:
        feats.add("window-box")
        F = img
    elif r < 78 and two:
        F = f"({img} - {loads[2]}) * {ker}"
    else:
        feats.add("window-expr")
        F = g.expr(env, is_f)
        if "img" not in F:
            F = f"{img} * {F}"
    if miss == "reads-out":
        F = f"{F} + out[i * n + j]"
    init_kind = d.pick(["zero", "zero", "zero", "lit", "bias"])
    init = {"zero": "0", "lit": g.literal(ctype(acc_t).is_float), "bias": "s" if has_s else "0"}[init_kind]
    post = d.pick(["acc", "acc", "acc", "scale", "clamp", "div", "plus"])
    feats.add("window-post-" + post)
    lit = g.literal(ctype(out_t).is_float)
    G = {"acc": "acc", "scale": f"acc * {lit}", "clamp": f"(acc > {lit} ? acc : {lit})",
         "div": "acc / (kh * kw)" if not ctype(acc_t).is_float else f"acc / ({acc_t})(kh * kw + 1)",
         "plus": f"acc + {lit}"}[post]
    out_idx = "i * (n + 1) + j" if miss == "out-gap" else d.pick(["i * n + j", "j + i * n", "n * i + j"])
    b_start = "1" if miss == "b-from-1" else "0"
    b_bound = f"{b_} <= {a_}" if miss == "triangular" else f"{b_} < kw"
    style = d.pick(["plain", "plain", "offset"])
    if style == "offset" and stride == 1 and miss is None:
        feats.add("window-offset-bounds")
        i_loop = "for (int i = 0; i + kh <= m + kh - 1; i++)"
    else:
        i_loop = "for (int i = 0; i < m; i++)"
    lines = [f"  int iw = {stride} * n + kw - 1 + {pad};"]
    carried = miss == "carried"
    if carried:
        lines.append(f"  {acc_t} acc = {init};")
    lines += [f"  {i_loop} {{", "    for (int j = 0; j < n; j++) {"]
    if not carried:
        lines.append(f"      {acc_t} acc = {init};")
    lines += [f"      for (int {a_} = 0; {a_} < kh; {a_}++)",
              f"        for (int {b_} = {b_start}; {b_bound}; {b_}++)",
              f"          acc += {F};",
              f"      out[{out_idx}] = {G};", "    }", "  }"]
    rows_needed = f"({stride} * m + kh + 2)"
    img_extent = f"{rows_needed} * ({stride} * n + kw + {pad} + 1) + 4"
    params = [Param("m", "int", size=True), Param("n", "int", size=True), Param("kh", "int", index=True),
              Param("kw", "int", index=True), Param("img", elem, True, img_extent)]
    if two:
        params.append(Param("img2", elem, True, img_extent))
    params += [Param("ker", elem, True, "(kh + 1) * (kw + 1) + 2"),
               Param("out", out_t, True, "m * (n + 1) + 2")]
    if has_s:
        params.append(Param("s", acc_t))
    sig = ", ".join(f"{p.ctype} *{p.name}" if p.array else f"{p.ctype} {p.name}" for p in params)
    body = "\n".join(lines)
    src = f"#include <stdint.h>\n\nvoid {name}({sig}) {{\n{body}\n}}\n"
    return KernelSpec(name, "c", src, name, params, None, sorted(set(g.constants), key=repr), sorted(feats), "2d")


def guardedprod_kernel(d: Draw, python_share: int = 25, name: str = "kern") -> KernelSpec:
    """A guarded running product (commit 96a59fb), C or Python: ``if (cond) p *= F;`` from
    ``p = 1`` (:func:`_guarded_product_c`, :func:`python_guarded_product_kernel`)."""
    return python_guarded_product_kernel(d, name) if d.coin(python_share) else _guarded_product_c(d, name)


_GP_CONDS = ["{a} > 0", "{a} != 0", "{a} < {k}", "{a} >= {lit}", "{b} > {a}", "{a} > 0 && {a} < {lit}",
             "{k} > 0", "{a} == {b}", "{a} <= {lit} || {a} > {k}", "!({a} < {lit})", "random"]
_GP_FACTORS = ["{a}", "{a}", "{a}", "{b}", "({one} - {a})", "{k}", "{lit}", "{a} * {b}", "({a} + {one})", "{a} * {k}",
               "random"]


def _paren(e: str) -> str:
    """``e`` in parentheses unless it is one token or already parenthesised (``p * (a * b)``,
    not ``p * a * b``, which is ``(p * a) * b`` and no longer a product update)."""
    if " " not in e or (e.startswith("(") and e.endswith(")") and e.count("(") == 1):
        return e
    return f"({e})"


def _guarded_product_c(d: Draw, name: str) -> KernelSpec:
    """``T p = 1; for (...) if (cond) p *= F; return p;`` with conditions over ``a[i]``,
    ``b[i]``, a scalar and literals, factors ``a[i]``, ``1 - a[i]``, a scalar or a literal
    (a power of the count), in the spellings ``if (c) p *= F;``, ``if (c) p = p * F;``,
    ``p = c ? p * F : p;``, ``p *= c ? F : 1;``, with an ``else`` factor, and near-misses (the
    ``else`` branch resets ``p``, another start than 1, the result stored after the loop)."""
    g = _CGen(d)
    _WILD[0] = 0
    g.plain = True
    g.depth_limit = 1
    g.allow_mod = False
    feats = g.feats
    feats.update({"guardedprod", "product"})
    elem = d.pick(["int", "int", "long", "long", "float", "float", "double", "double", "int64_t"])
    acc_t = elem if d.coin(75) else d.pick(["long", "double", "float", "int"])
    is_f = ctype(elem).is_float or ctype(acc_t).is_float
    has_b = d.coin(45)
    has_k = d.coin(45)
    scal_t = elem if d.coin(80) else d.pick(["int", "double"])
    one = "1.0f" if acc_t == "float" else "1.0" if is_f else "1"
    env = {"loads": ["a[i]"] + (["b[i]"] if has_b else []), "scalars": ["k"] if has_k else [], "vars": []}
    subst = {"a": "a[i]", "b": "b[i]" if has_b else "a[i]", "k": "k" if has_k else "2", "one": one}

    def fill(tpl: str, kind: str) -> str:
        if tpl == "random":
            feats.add(f"guardedprod-random-{kind}")
            return g.cond(env, is_f) if kind == "cond" else g.expr(env, is_f)
        return tpl.format(lit=g.literal(is_f), **subst)

    ct = d.pick(_GP_CONDS)
    cond = fill(ct, "cond")
    ft = d.pick(_GP_FACTORS)
    F = _paren(fill(ft, "factor"))
    if acc_t == "float" and d.coin(75):
        # float literals in a float product (a double factor narrows at every step: refused)
        cond, F = (re.sub(r"(?<![\w.])(\d+\.\d*(?:e[+-]?\d+)?)(?![\w.])", r"\1f", x) for x in (cond, F))
    if ft in ("{k}", "{lit}"):
        feats.add("guardedprod-invariant-factor")
    if ct == "{k} > 0":
        feats.add("guardedprod-invariant-cond")
    form = d.pick(["if-opeq"] * 5 + ["if-times", "if-times", "braced", "select-p", "select-factor", "else", "else-reset"])
    feats.add("guardedprod-" + form)
    if form == "if-opeq":
        upd = [f"if ({cond}) p *= {F};"]
    elif form == "if-times":
        upd = [f"if ({cond}) p = p * {F};" if d.coin(60) else f"if ({cond}) p = {F} * p;"]
    elif form == "braced":
        upd = [f"if ({cond}) {{", f"  p *= {F};", "}"]
    elif form == "select-p":
        upd = [f"p = ({cond}) ? p * {F} : p;" if d.coin(60) else f"p = !({cond}) ? p : p * {F};"]
    elif form == "select-factor":
        upd = [f"p *= ({cond}) ? {F} : {one};"]
    elif form == "else":
        G = _paren(fill(d.pick(_GP_FACTORS), "factor"))
        upd = [f"if ({cond}) p *= {F};", f"else p *= {G};"]
    else:
        upd = [f"if ({cond}) p *= {F};", f"else p = {d.pick([one, '0', 'p'])};"]
    init = one
    if d.coin(10):
        feats.add("product-other-start")
        init = d.pick(["2", "0", "-1"] + (["k"] if has_k else []))
    start = d.pick([0, 0, 0, 0, 1])
    lines = [f"  {acc_t} p = {init};", f"  for (int i = {start}; i < n; i++)" + (" {" if len(upd) > 1 or d.coin(40) else "")]
    braced = lines[-1].endswith("{")
    lines += [f"    {u}" for u in upd]
    if braced:
        lines.append("  }")
    stored = d.coin(15)
    params = [Param("n", "int", size=True)] if d.coin(50) else []
    params += [Param("a", elem, True, "n")] + ([Param("b", elem, True, "n")] if has_b else []) \
        + ([Param("k", scal_t)] if has_k else [])
    if stored:
        feats.add("guardedprod-stored")
        lines.append("  *out = p;")
        params.append(Param("out", acc_t, True, "1"))
        ret = None
    else:
        ret = acc_t if d.coin(85) else d.pick(["double", "long"])
        lines.append("  return p;")
    if params[0].name != "n":
        params.append(Param("n", "int", size=True))
    sig = ", ".join(f"{p.ctype} *{p.name}" if p.array else f"{p.ctype} {p.name}" for p in params)
    src = f"#include <stdint.h>\n\n{ret or 'void'} {name}({sig}) {{\n" + "\n".join(lines) + "\n}\n"
    return KernelSpec(name, "c", src, name, params, ret, sorted(set([*g.constants, 0, 1, 2]), key=repr), sorted(feats), "1d")


def python_guarded_product_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """A Python guarded running product: ``for x in xs: if x > 0: p *= x`` (``range``,
    ``enumerate``, ``zip``), conditions over the elements, a scalar and literals, an ``else``
    factor, the conditional expression ``p = p * x if c else p``, and the same near-misses as
    :func:`_guarded_product_c`."""
    feats: set[str] = {"guardedprod", "product", "py-guardedprod"}
    is_float = d.coin(50)
    et = "float" if is_float else "int"
    two = d.coin(40)
    scal = d.coin(40)
    form = d.pick(["x", "x", "range", "enumerate"] + (["zip"] if two else []))
    feats.add("py-guardedprod-" + form)
    head, xa, xb = {"x": ("for x in xs:", "x", "x"), "range": ("for i in range(len(xs)):", "xs[i]", "ys[i]" if two else "xs[i]"),
                    "enumerate": ("for i, x in enumerate(xs):", "x", "ys[i]" if two else "x"),
                    "zip": ("for x, y in zip(xs, ys):", "x", "y")}[form]
    lits = ["0.5", "2.0", "1.5", "0", "1", "-1"] if is_float else ["0", "1", "2", "3", "-1", "10"]
    one = "1.0" if is_float and d.coin(60) else "1"
    k = "c" if scal else d.pick(lits)
    conds = [f"{xa} > 0", f"{xa} != 0", f"{xa} < {k}", f"{xa} >= {d.pick(lits)}", f"{xb} > {xa}",
             f"0 < {xa} < {d.pick(lits)}", f"{xa} > 0 and {xa} < {d.pick(lits)}", f"{k} > 0", f"not {xa} < {d.pick(lits)}",
             f"{xa} % 2 == 0" if not is_float else f"{xa} > {xb}"]
    factors = [xa, xa, xa, xb, f"({one} - {xa})", k, d.pick(lits), f"({xa} * {xb})", f"({xa} + {one})"]
    cond = d.pick(conds)
    F = d.pick(factors)
    upd = d.pick(["opeq"] * 5 + ["times", "times", "ifexp", "else", "else-reset"])
    feats.add("guardedprod-" + upd)
    init = one
    if d.coin(10):
        feats.add("product-other-start")
        init = d.pick(["2", "0", "-1"] + (["c"] if scal else []))
    body = [f"    p = {init}", f"    {head}"]
    if upd == "opeq":
        body += [f"        if {cond}:", f"            p *= {F}"]
    elif upd == "times":
        body += [f"        if {cond}:", f"            p = p * {F}"]
    elif upd == "ifexp":
        body.append(f"        p = p * {F} if {cond} else p")
    elif upd == "else":
        body += [f"        if {cond}:", f"            p *= {F}", "        else:", f"            p *= {d.pick(factors)}"]
    else:
        body += [f"        if {cond}:", f"            p *= {F}", "        else:", f"            p = {d.pick([one, '0'])}"]
    body.append("    return p")
    ann = f"list[{et}]"
    args = [f"xs: {ann}"] + ([f"ys: {ann}"] if two else []) + ([f"c: {et}"] if scal else [])
    ct = "double" if is_float else "int"
    params = [Param("xs", ct, True, "n")] + ([Param("ys", ct, True, "n")] if two else []) + ([Param("c", ct)] if scal else [])
    src = "\n".join([f"def {name}({', '.join(args)}):", *body, ""])
    consts: list[float] = [0, 1, 2, 3, -1, 10] + ([0.5, 1.5] if is_float else [])
    return KernelSpec(name, "python", src, name, params, et, consts, sorted(feats), "1d")


# --------------------------------------------------------------------------- the red team's four classes
#
# Focus shapes for four classes of "verified but wrong" results: integer <-> float conversions
# rounded twice (``conversion``), C++ ``v.size()`` arithmetic done in a signed type instead of
# ``size_t`` (``cxxsize``), and Python functions that raise (``pyraise``, also ``int / int``
# of integers beyond 2**53, which Python rounds once). They are drawn only when asked for
# (``--shapes conversion,cxxsize,pyraise``), not in the default mix.

_CONV_INTS = ["long", "long", "int64_t", "int64_t", "int", "long long"]
_CONV_FLOATS = ["float", "float", "double"]


def conversion_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """A C kernel mixing 64-bit (and ``int``) integers with ``float`` / ``double`` arrays, one
    loop over ``n`` elements, each element one conversion and at most one float operation
    (so C and a correct translation round identically: ``KernelSpec.exact``):

    * ``cmp``: ``flag[i] = score[i] > lim;`` (the integer converted to the float type), also
      against an integer array, both orders, every comparison;
    * ``sub``: ``out[i] = t[i] - t0;`` / ``t0 - t[i]`` / ``+`` / ``*`` with a float output;
    * ``tofloat``: ``out[i] = (float) a[i];`` (implicit too), ``(float)(double) a[i]`` (two
      roundings in C as well), ``(double) a[i]``;
    * ``toint``: a truncating store ``out[i] = x[i];`` / ``(long) x[i]`` / ``(int)(x[i] * s)``
      into an integer array (out of range is undefined: discarded by the sanitizer build);
    * ``mixed``: ``out[i] = a[i] - (long) x[i];``, ``out[i] = x[i] < lim ? x[i] : (float) lim;``;
    * ``count``: ``c += x[i] > lim;`` returned (exact), ``s += x[i] - lim;`` (a float sum:
      compared within the float tolerance, not exactly).
    """
    feats: set[str] = {"conversion"}
    it = d.pick(_CONV_INTS)
    ft = d.pick(_CONV_FLOATS)
    scal_int = d.coin(60)  # the integer operand: a scalar ``lim`` or an array ``a[i]``
    ival = "lim" if scal_int else "a[i]"
    form = d.pick(["cmp"] * 4 + ["sub"] * 3 + ["tofloat"] * 2 + ["toint"] * 2 + ["mixed"] * 2 + ["count"] * 2)
    feats.add("conv-" + form)
    feats.add("conv-int-" + it.replace(" ", "-"))
    feats.add("conv-" + ft)
    params: list[Param] = [Param("x", ft, True, "n")]
    extra: list[Param] = []
    exact = True
    ret: str | None = None
    out_t = "int"
    lines: list[str] = []
    pre = ""
    op = d.pick(["<", "<=", ">", ">=", "==", "!="])
    if form == "cmp":
        out_t = d.pick(["int", "int", "long"])
        e = f"x[i] {op} {ival}" if d.coin(60) else f"{ival} {op} x[i]"
        if d.coin(25):
            feats.add("conv-cmp-select")
            e = f"({e}) ? 1 : 0"
        lines.append(f"    out[i] = {e};")
    elif form == "sub":
        out_t = ft if d.coin(80) else d.pick(_CONV_FLOATS)
        e = d.pick([f"x[i] - {ival}", f"x[i] - {ival}", f"{ival} - x[i]", f"x[i] + {ival}", f"x[i] * {ival}"])
        lines.append(f"    out[i] = {e};")
    elif form == "tofloat":
        out_t = ft
        scal_int = False
        ival = "a[i]"
        e = d.pick([f"({ft}) a[i]", "a[i]", f"({ft}) a[i]", "(float)(double) a[i]", "(double) a[i]"])
        if e == "(float)(double) a[i]":
            feats.add("conv-double-cast")
        lines.append(f"    out[i] = {e};")
    elif form == "toint":
        out_t = d.pick(["int", "long", "int64_t"])
        s = d.pick(["2", "3", "0.5f" if ft == "float" else "0.5", "k"])
        e = d.pick(["x[i]", f"({out_t}) x[i]", "(long) x[i]", f"({out_t})(x[i] * {s})"])
        if "k" in e:
            extra.append(Param("k", d.pick(["int", "long", ft])))
        lines.append(f"    out[i] = {e};")
    elif form == "mixed":
        k = d.pick(["sub", "sel", "sel2"])
        feats.add("conv-mixed-" + k)
        if k == "sub":
            out_t = it
            scal_int = False
            ival = "a[i]"
            lines.append(f"    out[i] = a[i] - ({it}) x[i];")
        else:
            out_t = ft
            if k == "sel":
                lines.append(f"    out[i] = x[i] {op} {ival} ? x[i] : ({ft}) {ival};")
            else:
                lines.append(f"    out[i] = x[i] {op} {ival} ? 1 : ({ft}) {ival};")
    else:  # count / float sum, returned
        if d.coin(65):
            feats.add("conv-count")
            ret = d.pick(["int", "long"])
            pre, upd = f"  {ret} c = 0;", f"    c += x[i] {op} {ival};" if d.coin(60) else f"    if (x[i] {op} {ival}) c++;"
        else:
            feats.add("conv-float-sum")
            exact = False  # a float sum: NumPy may add in another order
            ret = ft
            pre, upd = f"  {ft} c = 0;", f"    c += x[i] - {ival};"
        lines = [upd]
    if form == "toint":
        pass  # no integer operand
    elif not scal_int or ival == "a[i]":
        params.append(Param("a", it, True, "n"))
    else:
        params.append(Param("lim", it))
    params += extra
    if ret is None:
        params.append(Param("out", out_t, True, "n"))
    params.append(Param("n", "int", size=True))
    if d.coin(30):  # n first: the tool must not care
        params = params[-1:] + params[:-1]
    sig = ", ".join(f"{p.ctype} *{p.name}" if p.array else f"{p.ctype} {p.name}" for p in params)
    loop = d.pick(["for (int i = 0; i < n; i++)", "for (int i = 0; i < n; ++i)", "for (long i = 0; i < n; i++)"])
    body = ([pre] if ret else []) + [f"  {loop} {{", *lines, "  }"] + (["  return c;"] if ret else [])
    src = "#include <stdint.h>\n\n" + f"{ret or 'void'} {name}({sig}) {{\n" + "\n".join(body) + "\n}\n"
    return KernelSpec(name, "c", src, name, params, ret, [0, 1, 2, 3], sorted(feats), "1d", exact=exact)


_SIZE_ELEMS = ["float", "float", "double", "int", "int"]


def cxxsize_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """A C++ ``std::vector`` kernel with ``.size()`` arithmetic, which C++ does in ``size_t``
    (unsigned: ``i - v.size() / 2`` wraps to ~1.8e19 for small ``i``):

    * ``shift``: ``out.push_back(v[i] + s * (i - v.size() / D))`` (``D`` 2, 3, 256), also
      ``(v.size() - i)``, ``(i - v.size()) / 2``;
    * ``guard``: ``out.push_back(i < v.size() - K ? v[i] : s)`` (``size() - K`` wraps when the
      vector has fewer than ``K`` elements);
    * ``diff``: ``out.push_back(v[i] * (a.size() - b.size()))`` for two vectors of different
      lengths;
    * ``mean``: ``T sum = 0; ... return sum / v.size();`` (an ``int`` sum is converted to
      ``size_t``: a negative sum divides as a huge unsigned number);
    * ``signed``: the same through ``int n = v.size();`` (now signed: must not wrap).

    Loops ``for (int i = 0; i < v.size(); i++)`` (the exact idiom), ``size_t i``, ``i < n``
    with ``int n = v.size()``."""
    feats: set[str] = {"cxxsize", "cxx"}
    elem = d.pick(_SIZE_ELEMS)
    scal_t = elem if d.coin(80) else d.pick(["int", "float", "double"])
    form = d.pick(["shift"] * 4 + ["guard"] * 3 + ["diff"] * 2 + ["mean"] * 3 + ["signed"] * 2)
    feats.add("size-" + form)
    loop_style = d.pick(["int", "int", "int", "size_t", "local"])
    feats.add("size-loop-" + loop_style)
    pre: list[str] = []
    if loop_style == "local" or form == "signed":
        pre.append(f"  {d.pick(['int', 'int', 'long'])} n = v.size();")
        head = "for (int i = 0; i < n; i++)"
        size = "n" if form == "signed" else "v.size()"
    elif loop_style == "size_t":
        head = "for (size_t i = 0; i < v.size(); i++)"
        size = "v.size()"
    else:
        head = d.pick(["for (int i = 0; i < v.size(); i++)", "for (int i = 0; i < v.size(); ++i)"])
        size = "v.size()"
    div = d.pick([2, 2, 3, 4, 256, 256])
    K = d.pick([1, 2, 2, 3, 5])
    consts: list[float] = [0, 1, 2, div, K]
    params = [Param("v", elem, True, "n")]
    has_s = form in ("shift", "guard", "signed") or d.coin(30)
    if has_s:
        params.append(Param("s", scal_t))
    ret = f"vector<{elem}>"
    body: list[str] = []
    vt = f"vector<{elem}>"
    if form in ("shift", "signed"):
        e = d.pick([f"v[i] + s * (i - {size} / {div})", f"v[i] + s * (i - {size} / {div})", f"v[i] * ({size} - i)",
                    f"v[i] + s * (({size} - i) / {div})", f"v[i] + (i - {size}) / {div}", f"(i - {size} / {div}) * s",
                    f"v[i] - s * {size}", f"i < {size} / {div} ? v[i] : s"])
        body = [f"  {vt} out;", *pre, f"  {head}", f"    out.push_back({e});", "  return out;"]
    elif form == "guard":
        e = d.pick([f"i < {size} - {K} ? v[i] : s", f"i + {K} < {size} ? v[i] : s", f"i >= {size} - {K} ? s : v[i]",
                    f"{size} - {K} > i ? v[i] * s : v[i]"])
        body = [f"  {vt} out;", *pre, f"  {head}", f"    out.push_back({e});", "  return out;"]
    elif form == "diff":
        params.append(Param("b", elem, True, "(n * 3 + 1) % 7"))
        e = d.pick(["v[i] * (v.size() - b.size())", "v[i] + (b.size() - v.size())", "(v.size() - b.size()) / 2 + v[i]",
                    "v.size() - b.size() > 0 ? v[i] : 0"])
        body = [f"  {vt} out;", *pre, f"  {head}", f"    out.push_back({e});", "  return out;"]
        params = [Param("v", elem, True, "n"), Param("b", elem, True, "(n * 3 + 1) % 7")] + \
            [p for p in params if p.name == "s"]
    else:  # mean
        acc = elem if d.coin(70) else d.pick(["int", "long", "double", "float"])
        ret = acc
        feats.add("size-mean-" + acc)
        upd = d.pick(["v[i]", "v[i]", "v[i] - s" if has_s else "v[i] * 2"])
        tail = d.pick([f"sum / {size}", f"sum / {size}", f"(sum - {size}) / {div}", f"sum - {size}"])
        body = [f"  {acc} sum = 0;", *pre, f"  {head}", f"    sum += {upd};", f"  return {tail};"]
    order = params if d.coin(70) else params[::-1]
    cref = d.coin(65)
    args = [(f"const vector<{p.ctype}> &{p.name}" if cref else f"vector<{p.ctype}> {p.name}") if p.array
            else f"{p.ctype} {p.name}" for p in order]
    src = "#include <vector>\nusing namespace std;\n\n" + f"{ret} {name}({', '.join(args)}) {{\n" + "\n".join(body) + "\n}\n"
    return KernelSpec(name, "cxx", src, name, list(order), ret, sorted(set(consts), key=repr), sorted(feats), "1d")


def pyraise_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """A Python kernel where Python may raise -- the generated code must then raise the same
    exception class -- or divides integers beyond 2**53 (``/`` rounds the exact quotient
    once in Python):

    * ``div``: ``x / d`` with a float or int ``d`` that may be 0 (``ZeroDivisionError``), also
      ``xs[i] / ys[i]``, ``x // d``, ``x % d`` on ints;
    * ``math``: ``math.sqrt`` / ``math.log`` of values that may be negative or 0 (``ValueError``),
      ``math.exp`` of values above 709.78 (``OverflowError``);
    * ``guarded``: ``x / d if d != 0 else 0.0``, ``math.sqrt(x) if x >= 0 else 0.0`` and
      near-misses whose guard lets the bad value through (``d >= 0``);
    * ``index``: ``xs[0]`` of a list that may be empty (``IndexError``): ``m = xs[0]`` before
      a loop, ``sum(xs) / len(xs)`` (``ZeroDivisionError``), ``max(xs)`` (``ValueError``);
    * ``bigdiv``: ``tot[i] / cnt[i]`` of 64-bit ints, ``1 if a[i] / b[i] > 1.0 else 0``;

    each as a comprehension, an ``append`` loop or a sum."""
    feats: set[str] = {"pyraise"}
    form = d.pick(["div"] * 4 + ["math"] * 4 + ["guarded"] * 3 + ["index"] * 3 + ["bigdiv"] * 3)
    feats.add("pyraise-" + form)
    is_int = form == "bigdiv" or (form == "div" and d.coin(45)) or (form == "index" and d.coin(40))
    et = "int" if is_int else "float"
    ct = "long" if is_int else "double"
    two = d.coin(40) or form == "bigdiv"
    scal = form in ("div", "guarded") and d.coin(70)
    x, y = "xs[i]", "ys[i]" if two else "xs[i]"
    den = "d" if scal else y
    # float literals only in float kernels: one makes the oracle compare with a tolerance,
    # which would hide a quotient of ints rounded twice
    consts: list[float] = [0, 1, 2, 3, -1, 2**53, 2**53 + 1] + ([] if is_int else [0.5, 709.78, 710.0])
    imports = False
    pre: list[str] = []
    shape = d.pick(["comp", "append", "sum"])
    if form == "div":
        op = d.pick(["/", "/", "//", "%"]) if is_int else "/"
        feats.add("pyraise-op-" + {"/": "div", "//": "floordiv", "%": "mod"}[op])
        e = d.pick([f"{x} {op} {den}", f"({x} + 1) {op} {den}", f"{x} * 2 {op} {den}" if op == "/" else f"{x} {op} {den}"])
    elif form == "math":
        imports = True
        fn = d.pick(["sqrt", "sqrt", "log", "log", "exp", "exp"])
        feats.add("pyraise-" + fn)
        arg = d.pick([x, x, f"{x} - {y}", f"{x} * 2.0", f"{x} - 1.0"])
        e = f"math.{fn}({arg})"
        if d.coin(25):
            e = f"{e} * {y}"
    elif form == "guarded":
        imports = True
        g = d.pick(["div-ok", "div-ok", "div-miss", "sqrt-ok", "sqrt-miss", "log-ok", "log-miss", "exp-ok"])
        feats.add("pyraise-guard-" + g)
        e = {"div-ok": f"{x} / {den} if {den} != 0 else 0.0", "div-miss": f"{x} / {den} if {den} >= 0 else 0.0",
             "sqrt-ok": f"math.sqrt({x}) if {x} >= 0 else 0.0", "sqrt-miss": f"math.sqrt({x}) if {x} > -1.0 else 0.0",
             "log-ok": f"math.log({x}) if {x} > 0 else -1.0", "log-miss": f"math.log({x}) if {x} >= 0 else -1.0",
             "exp-ok": f"math.exp({x}) if {x} < 700.0 else 0.0"}[g]
        e = f"({e})"
    elif form == "index":
        k = d.pick(["first", "first", "mean", "max", "head"])
        feats.add("pyraise-index-" + k)
        if k == "first":
            pre = ["    m = xs[0]"]
            e = d.pick([f"{x} - m", f"{x} * m", f"{x} + m"])
        elif k == "mean":
            shape = "ret"
            e = "sum(xs) / len(xs)"
        elif k == "max":
            shape = "ret"
            e = d.pick(["max(xs)", "max(xs) - min(xs)", "min(xs)"])
        else:
            shape = "ret"
            e = d.pick(["xs[0]", "xs[0] * 2", "xs[0] + xs[len(xs) - 1]"])
    else:  # bigdiv
        k = d.pick(["quot", "quot", "cmp", "cmp2"])
        feats.add("pyraise-bigdiv-" + k)
        e = {"quot": f"{x} / {y}", "cmp": f"1 if {x} / {y} > 1.0 else 0", "cmp2": f"(1.0 if {x} / {y} == {x} // {y} else 0.0)"}[k]
    params = [Param("xs", ct, True, "n")] + ([Param("ys", ct, True, "n")] if two else []) \
        + ([Param("d", ct)] if scal else [])
    args = [f"xs: list[{et}]"] + ([f"ys: list[{et}]"] if two else []) + ([f"d: {et}"] if scal else [])
    body = list(pre)
    if shape == "ret":
        body.append(f"    return {e}")
        ret = "float" if "/" in e or not is_int else "int"
    elif shape == "comp":
        body.append(f"    return [{e} for i in range(len(xs))]")
        ret = "list"
    elif shape == "append":
        body += ["    out = []", "    for i in range(len(xs)):", f"        out.append({e})", "    return out"]
        ret = "list"
    else:
        body += ["    s = 0.0", "    for i in range(len(xs)):", f"        s += {e}", "    return s"]
        ret = "float"
    feats.add("pyraise-shape-" + shape)
    head = "import math\n\n\n" if imports or "math." in e else ""
    src = head + f"def {name}({', '.join(args)}):\n" + "\n".join(body) + "\n"
    return KernelSpec(name, "python", src, name, params, ret, consts, sorted(feats), "1d")


# --------------------------------------------------------------------------- entry points


def random_kernel(rng: random.Random, python_share: int = 25, name: str = "kern") -> KernelSpec:
    return random_kernel_from(Draw.from_random(rng), python_share, name)


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
    """A C kernel or (``python_share`` percent) a Python one; the shapes of
    :data:`_SHAPES` ``tensor3`` (C++ or Python), ``poststore`` (C) and ``guardedprod`` (C or
    Python) take their percent of all kernels first. ``TENSPILER_FUZZ_SHAPES`` is a
    comma-separated list: ``new`` / ``deep`` bias the shape mix; names of
    :data:`FOCUS_SHAPES` (``product``, ``argmax``, ``tensor3``, ``poststore``,
    ``guardedprod``) draw only kernels of those shapes."""
    _SHAPES.clear()
    names = [x.strip() for x in (os.environ.get("TENSPILER_FUZZ_SHAPES") or "").split(",") if x.strip()]
    base = next((x for x in names if x in ("new", "deep")), "")
    _SHAPES.update({"new": _SHAPES_NEW, "deep": _SHAPES_DEEP}.get(base, _SHAPES_DEFAULT))
    focus = [x for x in names if x in FOCUS_SHAPES]
    if focus:
        return focus_kernel(d, d.pick(focus), python_share, name)
    r = d.integer(0, 99)
    t3, ps, gp, win = _SHAPES["tensor3"], _SHAPES["poststore"], _SHAPES["guardedprod"], _SHAPES["window"]
    if r < t3:
        return tensor3_kernel(d, name)
    if r < t3 + ps:
        return poststore_kernel(d, name)
    if r < t3 + ps + gp:
        return guardedprod_kernel(d, python_share, name)
    if r < t3 + ps + gp + win:
        return window_kernel(d, name)
    from tenspiler.fuzz.idioms import IDIOM_SHAPES, idiom_kernel

    lo = t3 + ps + gp + win
    for shape in IDIOM_SHAPES:  # the idioms of shipped C code, _SHAPES[shape] percent each
        if r < lo + _SHAPES.get(shape, 0):
            return idiom_kernel(d, shape, python_share, name)
        lo += _SHAPES.get(shape, 0)
    if d.coin(python_share):
        if d.coin(_SHAPES["argmax"]):
            return python_argmax_kernel(d, name)
        if d.coin(_SHAPES["product"]):
            return python_product_kernel(d, name)
        if d.coin(_SHAPES["deep"]):
            return python_deep_kernel(d, name)
        return python_idiom_kernel(d, name) if d.coin(35) else python_kernel(d, name)
    return c_kernel(d, name)


def focus_kernel(d: Draw, shape: str, python_share: int = 25, name: str = "kern") -> KernelSpec:
    """A kernel of one of :data:`FOCUS_SHAPES`: ``"product"``, ``"argmax"`` (C or Python),
    ``"tensor3"`` (C++ or Python), ``"poststore"`` (C), ``"guardedprod"`` (C or Python),
    ``"window"`` (C) and the red team's classes ``"conversion"`` (C), ``"cxxsize"`` (C++),
    ``"pyraise"`` (Python), and the idioms of shipped C code (:mod:`tenspiler.fuzz.idioms`):
    ``"unsigned"``, ``"narrow"``, ``"bitwise"``, ``"whileloop"``, ``"stride"``, ``"reading"``, ``"control"``,
    ``"blas"`` (C),
    ``"guard"`` (C or Python)."""
    if shape not in FOCUS_SHAPES:
        raise ValueError(f"unknown shape {shape!r}; one of {', '.join(FOCUS_SHAPES)}")
    if shape == "tensor3":
        return tensor3_kernel(d, name)
    if shape == "poststore":
        return poststore_kernel(d, name)
    if shape == "guardedprod":
        return guardedprod_kernel(d, python_share, name)
    if shape == "window":
        return window_kernel(d, name)
    if shape == "conversion":
        return conversion_kernel(d, name)
    if shape == "cxxsize":
        return cxxsize_kernel(d, name)
    if shape == "pyraise":
        return pyraise_kernel(d, name)
    from tenspiler.fuzz.idioms import IDIOM_SHAPES, idiom_kernel

    if shape in IDIOM_SHAPES:
        return idiom_kernel(d, shape, python_share, name)
    if d.coin(python_share):
        return python_argmax_kernel(d, name) if shape == "argmax" else python_product_kernel(d, name)
    return c_kernel(d, name, shape=shape)


def focus_kernels(shape: str, python_share: int = 25) -> Any:
    """Hypothesis strategy of kernels of one focus shape (:data:`FOCUS_SHAPES`)."""
    from hypothesis import strategies as st

    return st.composite(lambda draw: focus_kernel(Draw.from_hypothesis(draw), shape, python_share))()
