"""Focus shapes for the idioms of shipped C code (CMSIS-DSP, BLAS, codecs): unsigned
arithmetic modulo 2**n, narrow types, bitwise operations, ``while`` loops with pointer
bumps, early-return guards and runtime strides.

Each generator writes kernels that are sometimes inside what the tool models exactly and
sometimes deliberately just outside it (a near-miss: ``-1 < 0u``, a ``uint16_t * uint16_t``
product that overflows ``int`` after promotion, a saturation bound off by one, a LOOPUNROLL
tail mask that drops elements, a guard that lets ``n == 0`` through, a stride start for
negative increments with the wrong sign); the feature ``<shape>-miss-<what>`` names the
near-miss. Values straddle each type's extremes (the oracle's pools hold every type's
``lo``/``hi`` and their neighbours, and each kernel's constants).

What the oracle needs beyond the usual parameters: :attr:`Param.choices` (a scalar the
oracle draws from a fixed list before the arrays: strides, leading dimensions, shift
counts; the extents may name it), :attr:`KernelSpec.negative_sizes` (guards: some cases
pass ``n <= 0``) and :attr:`KernelSpec.min_size` (``do { ... } while (--n);`` without a
guard: ``n >= 1`` is the caller's promise).

The shapes, each drawn only by ``--focus NAME`` or with :data:`IDIOM_SHARE` percent each of
the default mix: ``unsigned``, ``narrow``, ``bitwise``, ``whileloop``, ``guard`` (C and
Python), ``stride``, ``reading`` (what a real file wraps a kernel in: VLA 2-D / 3-D array
parameters, chained assignments, inline helpers, enums and constant tables, with unrelated
file-scope text the tool must read past), ``control`` (``switch``, an ``if`` around loops on
a parameter, shifts by a run-time count, nests accumulating into an output element,
``uint32_t`` and float-of-double accumulators), ``blas`` (matrix products and scalings on
blocks of rows with leading dimensions, in the ``i, k, j`` and ``k, j`` orders, through
helpers chosen by a flag).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tenspiler.fuzz.spec import Draw, KernelSpec, Param

IDIOM_SHAPES = ("unsigned", "narrow", "bitwise", "whileloop", "guard", "stride", "reading", "control", "blas")
#: percent of all kernels of the default mix, per idiom shape
IDIOM_SHARE = 2

_INCLUDES = "#include <stddef.h>\n#include <stdint.h>\n\n"
_EXTREMES = [0, 1, 2, 3, 7, 127, 128, 255, 256, 32767, 32768, 65535, 65536, 2**31 - 1, 2**31, 2**32 - 1, 2**32,
             2**63 - 1, -1, -128, -32768, -(2**31)]


def _decl(p: Param, const: bool) -> str:
    if p.array:
        return f"{'const ' if const else ''}{p.ctype} *{p.name}"
    return f"{p.ctype} {p.name}"


def _spec(d: Draw, name: str, ret: str | None, params: list[Param], outputs: set[str], body: list[str],
          feats: set[str], consts: Sequence[int | float], shape: str = "1d", **kw: object) -> KernelSpec:
    const = d.coin(50)
    sig = ", ".join(_decl(p, const and p.name not in outputs) for p in params)
    src = _INCLUDES + f"{ret or 'void'} {name}({sig}) {{\n" + "\n".join(body) + "\n}\n"
    lits = [int(x, 16) if x[:2] in ("0x", "0X") else int(x) for x in
            re.findall(r"(?<![\w.])(0[xX][0-9a-fA-F]+|\d+)(?=[uUlL]*\b)", "\n".join(body))]
    return KernelSpec(name, "c", src, name, params, ret, sorted(set(consts) | set(lits) | {0, 1}, key=repr),
                      sorted(feats), shape, **kw)  # type: ignore[arg-type]


def _suffix(d: Draw, text: str) -> str:
    """Respell every ``U`` literal suffix at random (``U``, ``u``, ``UL``, ``ul``): the type
    changes (unsigned int / unsigned long), the oracle computes what C does either way."""
    return re.sub(r"(?<=[0-9a-fA-F])U\b", lambda _m: d.pick(["U", "U", "U", "u", "UL", "ul"]), text)


# --------------------------------------------------------------------------- unsigned

#: 32-bit and narrower unsigned types mostly (64-bit ones: a few)
_UNSIGNED = ["uint32_t", "uint32_t", "uint32_t", "unsigned", "unsigned", "unsigned int", "uint16_t", "uint8_t", "uint8_t",
             "size_t", "unsigned long", "uint64_t"]
_UNS_EXPRS = ["a[i] + b[i]", "a[i] - b[i]", "a[i] * b[i]", "a[i] * 3U + b[i]", "a[i] - 1U", "0U - a[i]",
              "a[i] + 0xFFFFFFFFU", "a[i] * 2654435761U", "(a[i] + b[i]) / 3U", "a[i] % 10U", "a[i] / 2U + b[i] % 7U",
              "a[i] - b[i] * k", "a[i] + k", "(a[i] - k) / 5U", "a[i] * 40503UL", "a[i] + 1UL", "b[i] - a[i] - 1U"]
_LOOPS_U = ["for (size_t i = 0; i < n; i++)", "for (uint32_t i = 0; i < n; i++)", "for (unsigned i = 0; i < n; ++i)",
            "for (int i = 0; i < n; i++)", "for (int i = 0; i < n; i++)", "for (int i = 0; i < n; i++)",
            "for (unsigned long i = 0; i < n; i++)"]


def unsigned_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """Unsigned data and accumulators (``uint32_t``, ``unsigned``, ``size_t``, ``uint16_t``,
    ``uint8_t``, ...), C:

    * ``map``: ``out[i] = E(a[i], b[i])`` with wrapping ``+ - *``, ``U`` / ``UL`` literals,
      division and modulo by nonzero constants, stored into an unsigned (narrower: wraps
      again) or signed output; ``uint16_t`` / ``uint8_t`` operands promote to ``int`` (a
      ``uint16_t`` product overflows ``int``: undefined, discarded);
    * ``sum``: ``acc += E`` / ``acc = acc * 31U + a[i]`` returned (an ``int`` accumulator of
      unsigned terms is the near-miss ``unsigned-miss-int-acc``);
    * ``cmp``: comparisons mixing signed and unsigned (``s[i] < u[i]``, ``s[i] < 0u``,
      ``u[i] > -1``: the usual arithmetic conversions make ``-1 < 0u`` false, but a
      ``uint16_t`` promotes to ``int`` and compares signed);
    * ``divmod``: ``a[i] / C``, ``a[i] % C`` by nonzero constants, ``s[i] / 3U`` of a signed
      ``s`` (converted to unsigned first: ``unsigned-miss-signed-div``);
    * ``counter``: unsigned loop counters, count-down ``for (size_t i = n; i-- > 0; )``, the
      counter as an unsigned value (``a[i] * (i - 1U)`` wraps at ``i == 0``);
    * ``local``: an unsigned scalar local given a signed value (``unsigned c = s[i];``, ``c =
      s[i] * 3;``, ``c += s[i];``), stored modulo 2^32 as C does."""
    feats: set[str] = {"unsigned"}
    T = d.pick(_UNSIGNED)
    n_t = d.pick(["int", "int", "int", "size_t", "uint32_t", "unsigned"])
    form = d.pick(["map"] * 4 + ["sum"] * 3 + ["cmp"] * 3 + ["divmod"] * 2 + ["counter"] * 2 + ["local"] * 2)
    feats |= {"unsigned-" + form, "unsigned-type-" + T.replace(" ", "-")}
    loop = d.pick(_LOOPS_U)
    if n_t != "int":
        feats.add("unsigned-n-" + n_t)
    if loop.startswith("for (int") and n_t != "int":
        feats.add("unsigned-signed-counter")
    params: list[Param] = []
    outputs: set[str] = set()
    ret: str | None = None
    body: list[str] = []
    has_k = False
    if form in ("map", "sum"):
        e = d.pick(_UNS_EXPRS)
        has_k = re.search(r"\bk\b", e) is not None
        params = [Param("a", T, True, "n"), Param("b", T, True, "n")]
        if form == "map":
            out_t = d.pick([T, T, "uint32_t", "uint8_t", "uint16_t", "int", "uint64_t", "long"])
            feats.add("unsigned-out-" + out_t.replace(" ", "-"))
            params.append(Param("out", out_t, True, "n"))
            outputs.add("out")
            body = [f"  {loop} {{", f"    out[i] = {_suffix(d, e)};", "  }"]
        else:
            A = d.pick([T, "uint32_t", "size_t", "uint64_t", "unsigned", "uint16_t", "uint8_t", "int"])
            if A == "int":
                feats.add("unsigned-miss-int-acc")
            init = d.pick(["0", "0", "0U", "1U", "0xFFFFFFFFU", "5381U"])
            upd = d.pick([f"acc += {e};", f"acc += {e};", "acc = acc * 31U + a[i];", "acc = acc * 33U ^ a[i];",
                          f"acc -= {e};"])
            feats.add("unsigned-acc-" + A.replace(" ", "-"))
            ret = A
            body = [f"  {A} acc = {_suffix(d, init)};", f"  {loop} {{", f"    {_suffix(d, upd)}", "  }", "  return acc;"]
        if has_k:
            params.append(Param("k", d.pick([T, T, "unsigned", "int"])))
    elif form == "cmp":
        S = d.pick(["int", "int", "long", "int16_t", "int8_t", "int32_t"])
        U = d.pick(["unsigned", "uint32_t", "uint16_t", "size_t", "uint8_t"])
        feats |= {"unsigned-cmp-" + S.replace(" ", "-"), "unsigned-cmp-" + U.replace(" ", "-")}
        op = d.pick(["<", "<=", ">", ">=", "==", "!="])
        kind = d.pick(["arrays", "zero", "minus1", "scalar", "cast", "count", "sum"])
        feats.add("unsigned-cmp-" + kind)
        params = [Param("s", S, True, "n"), Param("u", U, True, "n")]
        if kind == "arrays":
            e = f"s[i] {op} u[i]"
        elif kind == "zero":
            e = f"s[i] {op} {_suffix(d, '0U')}"
        elif kind == "minus1":
            e = f"u[i] {op} -1"
        elif kind == "scalar":
            e = f"s[i] {op} k"
            params.append(Param("k", U))
        elif kind == "cast":
            e = f"s[i] {op} ({S}) u[i]"
        else:
            e = f"s[i] + u[i] {op} {_suffix(d, '10U')}"
        if kind == "count":
            ret = "int"
            body = ["  int c = 0;", f"  {loop} {{", f"    if (s[i] {op} u[i]) c++;", "  }", "  return c;"]
        else:
            out_t = d.pick(["int", "int", "uint8_t", S])
            params.append(Param("out", out_t, True, "n"))
            outputs.add("out")
            rhs = e if d.coin(60) else f"({e}) ? s[i] : ({S}) u[i]"
            body = [f"  {loop} {{", f"    out[i] = {rhs};", "  }"]
    elif form == "divmod":
        signed_src = d.coin(35)
        src_t = d.pick(["int", "long", "int16_t"]) if signed_src else T
        C = d.pick(["3U", "10U", "7", "0x10U", "255U", "1U", "2UL", "1000000007U", "3", "60U"])
        op = d.pick(["/", "%"])
        if signed_src:
            feats.add("unsigned-miss-signed-div" if "U" in C else "unsigned-signed-div")
        e = d.pick([f"a[i] {op} {C}", f"(a[i] + 1U) {op} {C}", f"a[i] {op} {C} + a[i]", f"(unsigned) a[i] {op} {C}"])
        params = [Param("a", src_t, True, "n")]
        out_t = d.pick([src_t, "uint32_t", "long", "int"])
        params.append(Param("out", out_t, True, "n"))
        outputs.add("out")
        body = [f"  {loop} {{", f"    out[i] = {_suffix(d, e)};", "  }"]
    elif form == "local":
        # an unsigned scalar local given a signed value: C stores it modulo 2^n (a negative
        # s[i] becomes a large value), then computes with it in the unsigned type
        S = d.pick(["int", "int", "long", "int16_t"])
        U = d.pick(["unsigned", "uint32_t", "unsigned int"])
        style = d.pick(["init", "assign", "compound"])
        feats.add("unsigned-local-" + style)
        params = [Param("s", S, True, "n")]
        out_t = d.pick(["long", "uint32_t", "int64_t", "uint64_t"])
        params.append(Param("out", out_t, True, "n"))
        outputs.add("out")
        use = d.pick(["c", "c % 1000U", "c / 3U", "c >> 4"])
        step = {"init": [f"    {U} c = s[i];"], "assign": [f"    {U} c;", "    c = s[i] * 3;"],
                "compound": [f"    {U} c = s[i];", "    c += s[i];"]}[style]
        body = [f"  {loop} {{", *step, f"    out[i] = {use};", "  }"]
    else:  # counter
        style = d.pick(["up", "up", "down", "down", "down-gt", "down-gt", "value", "value", "wrapstart"])
        feats.add("unsigned-counter-" + style)
        params = [Param("a", T, True, "n"), Param("out", T, True, "n")]
        outputs.add("out")
        if style == "up":
            body = [f"  {loop} {{", "    out[i] = a[i] + 1U;" if d.coin(50) else "    out[n - 1 - i] = a[i];", "  }"]
        elif style == "down":
            ct = d.pick(["size_t", "unsigned", "uint32_t"])
            body = [f"  for ({ct} i = n; i-- > 0; ) {{", d.pick(["    out[i] = a[i] * 2U;", "    out[i] = a[n - 1 - i];"]),
                    "  }"]
        elif style == "down-gt":
            ct = d.pick(["size_t", "unsigned", "uint32_t"])
            body = [f"  for ({ct} i = n; i > 0; i--) {{", "    out[i - 1] = a[i - 1] - i;", "  }"]
        elif style == "wrapstart":
            # ``i >= 0`` is always true for an unsigned counter, only the break ends the walk;
            # n == 0 starts at SIZE_MAX (out of bounds: undefined, discarded)
            feats.add("unsigned-miss-wrapping-start")
            body = ["  for (size_t i = n - 1; i >= 0; i--) {", "    out[i] = a[i] + 1U;", "    if (i == 0) break;", "  }"]
        else:
            body = [f"  {loop} {{", d.pick(["    out[i] = a[i] * (i - 1U);", "    out[i] = a[i] + i * 0x9E3779B9U;",
                                             "    out[i] = (i - n) / 2U;"]), "  }"]
            body = [_suffix(d, x) for x in body]
    params.append(Param("n", n_t, size=True))
    if d.coin(25):
        params = params[-1:] + params[:-1]
    return _spec(d, name, ret, params, outputs, body, feats, _EXTREMES)


# --------------------------------------------------------------------------- narrow

_NARROW = ["char", "signed char", "short", "int8_t", "int16_t", "uint16_t", "unsigned char", "uint8_t",
           "unsigned short"]


def narrow_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """Narrow element types (``char``, ``signed char``, ``short``, ``int8_t``, ``int16_t``,
    ``uint16_t``, ...) with integer promotion and wrapping narrowing stores, C:

    * ``store``: ``y[i] = (short)(a[i] * b[i]);``, implicit ``y[i] = a[i] + b[i];`` (the
      conversion to a narrow signed type is implementation-defined: GCC wraps modulo 2**n),
      ``y[i] = -a[i];``, ``y[i] = a[i] * k;``;
    * ``dot``: ``int32_t s = 0; s += a[i] * b[i];`` returned (int8 / int16 dot products in
      ``int32_t``, ``int``, ``int64_t``); a ``short`` / ``int8_t`` accumulator is the
      near-miss ``narrow-miss-narrow-acc`` (each ``+=`` wraps);
    * ``promote``: ``out[i] = a[i] * a[i];`` into ``int`` (``uint16_t``: may overflow ``int``,
      undefined, discarded), ``(a[i] + b[i]) / 2``, ``a[i] < 0 ? -a[i] : a[i]`` stored back
      narrow (``-(-128)`` wraps);
    * ``compare``: ``c += a[i] == (char) 200;``, ``c += a[i] > 127;`` (never true for a
      signed 8-bit element)."""
    feats: set[str] = {"narrow"}
    T = d.pick(_NARROW)
    form = d.pick(["store"] * 4 + ["dot"] * 3 + ["promote"] * 3 + ["compare"] * 2)
    feats |= {"narrow-" + form, "narrow-type-" + T.replace(" ", "-")}
    loop = d.pick(["for (int i = 0; i < n; i++)", "for (int i = 0; i < n; ++i)", "for (int32_t i = 0; i < n; i++)"])
    params = [Param("a", T, True, "n"), Param("b", T, True, "n")]
    outputs: set[str] = set()
    ret: str | None = None
    body: list[str]
    if form == "store":
        out_t = d.pick([T, T, "short", "int8_t", "int16_t", "char", "uint8_t"])
        e = d.pick(["a[i] * b[i]", "a[i] + b[i]", "a[i] - b[i]", "-a[i]", "a[i] * k", "a[i] + b[i] + k",
                    "(a[i] + b[i]) / 2", "a[i] * 3 - b[i]"])
        cast = d.coin(55)
        feats.add("narrow-store-" + ("cast" if cast else "implicit"))
        rhs = f"({out_t})({e})" if cast else e
        if "k" in e:
            params.append(Param("k", d.pick(["int", "int", "short", T])))
        params.append(Param("y", out_t, True, "n"))
        outputs.add("y")
        body = [f"  {loop} {{", f"    y[i] = {rhs};", "  }"]
    elif form == "dot":
        A = d.pick(["int32_t", "int32_t", "int", "long", "int64_t", "short", "int16_t", "int8_t", "uint16_t"])
        if A in ("short", "int16_t", "int8_t", "uint16_t"):
            feats.add("narrow-miss-narrow-acc")
        feats.add("narrow-acc-" + A)
        upd = d.pick(["s += a[i] * b[i];", "s += a[i] * b[i];", f"s += ({A}) a[i] * ({A}) b[i];", "s += a[i];",
                      "s += a[i] * k;", "s -= a[i] * b[i];", "s += (int16_t)(a[i] * b[i]);"])
        if "k" in upd:
            params.append(Param("k", "int"))
        ret = A
        body = [f"  {A} s = 0;", f"  {loop} {{", f"    {upd}", "  }", "  return s;"]
    elif form == "promote":
        kind = d.pick(["square", "avg", "abs", "diff", "widen"])
        feats.add("narrow-promote-" + kind)
        out_t = "int" if kind != "abs" else d.pick([T, "int"])
        e = {"square": "a[i] * a[i]", "avg": "(a[i] + b[i]) / 2", "abs": "a[i] < 0 ? -a[i] : a[i]",
             "diff": "a[i] - b[i]", "widen": "a[i] * 256 + b[i]"}[kind]
        if kind == "square" and T in ("uint16_t", "unsigned short"):
            feats.add("narrow-miss-int-overflow")
        params.append(Param("out", out_t, True, "n"))
        outputs.add("out")
        body = [f"  {loop} {{", f"    out[i] = {e};", "  }"]
    else:
        e = d.pick(["a[i] == (char) 200", "a[i] > 127", "a[i] == -1", "a[i] < b[i]", "(a[i] & 0x80) != 0",
                    f"a[i] == ({T}) 255", "a[i] + b[i] > 200"])
        ret = "int"
        body = ["  int c = 0;", f"  {loop} {{", f"    c += {e};", "  }", "  return c;"]
        params = [p for p in params if p.name != "b" or "b[i]" in e]
    params.append(Param("n", "int", size=True))
    return _spec(d, name, ret, params, outputs, body, feats, _EXTREMES)


# --------------------------------------------------------------------------- bitwise

_BIT_TYPES = ["int", "int32_t", "uint32_t", "unsigned", "int16_t", "uint8_t", "uint16_t", "int64_t", "uint64_t"]
_MASKS = ["0xFF", "0xFFU", "0x7F", "0xFFFF", "0x80000000U", "1", "0xF0", "0x55555555", "255"]


def bitwise_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """Bitwise operations, C:

    * ``logic``: ``& | ^ ~``, masks (``a[i] & 0xFF``, ``a[i] & ~b[i]``, ``(a[i] ^ b[i]) & 0xFF``);
    * ``shiftc``: ``<<`` / ``>>`` by constants (``>>`` of a negative value is arithmetic in
      GCC; ``<<`` of a negative value, or into the sign bit, is undefined: discarded);
    * ``shiftv``: by a bounded variable (``s`` drawn by the oracle from 0..31, 32 for the
      out-of-range near-miss), ``a[i] >> (s & 31)``, ``1U << (b[i] & 31U)``;
    * ``fixed``: Q15 / Q7 / Q31 products ``(a[i] * b[i]) >> 15`` (also rounded ``+ 0x4000``,
      narrowed ``(int16_t)(...)``, Q31 through ``int64_t``);
    * ``sat``: CMSIS-style saturation written out (``if (s > 32767) s = 32767; else if (s <
      -32768) s = -32768;``), the ternary form, and near-misses (a bound off by one, only
      the upper clamp, ``>=``);
    * ``reduce``: ``acc ^= a[i]``, ``acc |= a[i]``, ``acc &= a[i]`` from ``~0``, parity
      counts ``acc += a[i] & 1``."""
    feats: set[str] = {"bitwise"}
    form = d.pick(["logic"] * 3 + ["shiftc"] * 3 + ["shiftv"] * 2 + ["fixed"] * 3 + ["sat"] * 3 + ["reduce"] * 2)
    feats.add("bitwise-" + form)
    loop = d.pick(["for (int i = 0; i < n; i++)", "for (int i = 0; i < n; i++)", "for (int i = 0; i < n; ++i)",
                   "for (uint32_t i = 0; i < n; i++)"])
    outputs: set[str] = set()
    ret: str | None = None
    params: list[Param] = []
    body: list[str] = []
    consts: list[int | float] = list(_EXTREMES)
    if form in ("logic", "shiftc", "shiftv"):
        T = d.pick(_BIT_TYPES)
        feats.add("bitwise-type-" + T)
        params = [Param("a", T, True, "n")]
        if form == "logic":
            e = d.pick(["a[i] & b[i]", "a[i] | b[i]", "a[i] ^ b[i]", "~a[i]", "a[i] & ~b[i]", f"a[i] & {d.pick(_MASKS)}",
                        "(a[i] ^ b[i]) & 0xFF", "a[i] | 0x80", "~a[i] & 0xFFFF", "(a[i] & 0xF) | (b[i] & 0xF0)"])
        elif form == "shiftc":
            c = d.pick([1, 2, 3, 4, 8, 15, 16, 24, 31])
            e = d.pick([f"a[i] << {c}", f"a[i] >> {c}", "(a[i] >> 4) & 0xF", "(uint8_t)(a[i] >> 8)",
                        f"a[i] >> {c} << {c}", "(a[i] << 1) | (a[i] >> 31)", f"a[i] << {c}U", "-a[i] >> 1"])
            consts.append(c)
        else:
            kind = d.pick(["scalar", "scalar", "masked", "array-masked", "one-shl", "guarded"])
            feats.add("bitwise-shiftv-" + kind)
            choices = (0, 1, 2, 3, 7, 8, 15, 16, 31) + ((32,) if d.coin(25) else ())
            if 32 in choices:
                feats.add("bitwise-miss-shift-width")
            if kind in ("scalar", "guarded"):
                params.append(Param("s", "int", choices=choices))
                e = d.pick(["a[i] >> s", "a[i] << s", "(a[i] >> s) & 1"])
            elif kind == "masked":
                params.append(Param("s", "int", choices=choices))
                e = d.pick(["a[i] >> (s & 31)", "a[i] << (s & 7)"])
            elif kind == "array-masked":
                e = d.pick(["a[i] >> (b[i] & 31)", "a[i] << (b[i] & 7)", "a[i] >> (b[i] & 15U)"])
            else:
                e = d.pick(["1U << (b[i] & 31U)", "a[i] & (1U << (b[i] & 31U))", "(a[i] >> (b[i] & 31)) & 1U"])
            if kind == "guarded":
                body.append("  if (s < 0 || s > 31) return;")
        if "b[i]" in e:
            params.append(Param("b", d.pick([T, T, "int", "uint8_t"]), True, "n"))
        out_t = d.pick([T, T, T, "uint8_t", "int", "uint32_t", "int64_t"])
        params.append(Param("out", out_t, True, "n"))
        outputs.add("out")
        body += [f"  {loop} {{", f"    out[i] = {e};", "  }"]
    elif form == "fixed":
        q = d.pick(["q15", "q15", "q15", "q7", "q31"])
        feats.add("bitwise-fixed-" + q)
        T = {"q15": d.pick(["int16_t", "short", "int16_t"]), "q7": d.pick(["int8_t", "signed char"]), "q31": "int32_t"}[q]
        params = [Param("a", T, True, "n"), Param("b", T, True, "n")]
        if q == "q15":
            e = d.pick(["(a[i] * b[i]) >> 15", "(int16_t)((a[i] * b[i]) >> 15)", "(short)(((int) a[i] * b[i]) >> 15)",
                        "(a[i] * b[i] + 0x4000) >> 15", "(a[i] * b[i]) >> 16", "(int16_t)((a[i] * b[i] + (1 << 14)) >> 15)"])
            out_t = d.pick(["int16_t", "int", "int32_t"])
        elif q == "q7":
            e = d.pick(["(a[i] * b[i]) >> 7", "(int8_t)((a[i] * b[i]) >> 7)", "(a[i] * b[i] + 64) >> 7"])
            out_t = d.pick(["int8_t", "int", "int16_t"])
        else:
            e = d.pick(["(int32_t)(((int64_t) a[i] * b[i]) >> 31)", "(int32_t)(((int64_t) a[i] * b[i]) >> 32)",
                        "(a[i] * b[i]) >> 31"])
            if e == "(a[i] * b[i]) >> 31":
                feats.add("bitwise-miss-q31-no-widen")
            out_t = "int32_t"
        params.append(Param("out", out_t, True, "n"))
        outputs.add("out")
        body = [f"  {loop} {{", f"    out[i] = {e};", "  }"]
    elif form == "sat":
        q = d.pick(["q15", "q15", "q7"])
        hi, lo = (32767, -32768) if q == "q15" else (127, -128)
        T = "int16_t" if q == "q15" else "int8_t"
        miss = d.pick(["off-by-one", "upper-only", "ge", "lo-wrong"]) if d.coin(25) else None
        if miss:
            feats.add("bitwise-miss-sat-" + miss)
        h, lw = (hi + 1 if miss == "off-by-one" else hi), (lo + 1 if miss == "lo-wrong" else lo)
        cmp_hi = ">=" if miss == "ge" else ">"
        src = d.pick(["a[i] + b[i]", "a[i] - b[i]", "(a[i] * b[i]) >> 15" if q == "q15" else "(a[i] * b[i]) >> 7",
                      "a[i] * 2", "a[i] + b[i] + 1"])
        style = d.pick(["if", "if", "ternary", "acc"])
        feats.add("bitwise-sat-" + style)
        params = [Param("a", T, True, "n"), Param("b", T, True, "n")]
        clamp = [f"    if (s {cmp_hi} {h}) s = {h};"] + ([] if miss == "upper-only" else [f"    else if (s < {lw}) s = {lw};"])
        if style == "if":
            params.append(Param("out", T, True, "n"))
            outputs.add("out")
            body = [f"  {loop} {{", f"    int32_t s = {src};", *clamp, f"    out[i] = ({T}) s;", "  }"]
        elif style == "ternary":
            params.append(Param("out", T, True, "n"))
            outputs.add("out")
            body = [f"  {loop} {{", f"    int32_t s = {src};",
                    f"    out[i] = ({T})(s {cmp_hi} {h} ? {h} : (s < {lw} ? {lw} : s));", "  }"]
        else:
            ret = T
            body = ["  int32_t s = 0;", f"  {loop} {{", f"    s += {src};", "  }",
                    *[x[2:] for x in clamp], f"  return ({T}) s;"]
        consts += [hi, lo, h, lw]
    else:  # reduce
        T = d.pick(["uint32_t", "uint32_t", "unsigned", "int", "uint8_t", "uint16_t", "int32_t", "uint64_t"])
        kind = d.pick(["xor", "or", "and", "parity", "sign"])
        feats.add("bitwise-reduce-" + kind)
        init = {"and": d.pick(["~0", "0xFFFFFFFFU", "~0U", "-1"])}.get(kind, "0")
        upd = {"xor": "acc ^= a[i];", "or": "acc |= a[i];", "and": "acc &= a[i];", "parity": "acc += a[i] & 1;",
               "sign": "acc += (a[i] >> 31) & 1;"}[kind]
        A = d.pick([T, T, "uint32_t", "int"])
        params = [Param("a", T, True, "n")]
        ret = A
        body = [f"  {A} acc = {init};", f"  {loop} {{", f"    {upd}", "  }", "  return acc;"]
    params.append(Param("n", "int", size=True))
    return _spec(d, name, ret, params, outputs, body, feats, consts)


# --------------------------------------------------------------------------- while loops with pointer bumps

_WL_TYPES = ["int", "int32_t", "int16_t", "uint32_t", "float", "int8_t", "uint8_t", "q31"]


def _wl_f(d: Draw, T: str) -> tuple[str, bool]:
    """An element function of ``x`` and ``y`` (templates ``{x}``/``{y}``); True when it
    names an operand twice (the pointer loads go to temporaries first)."""
    if T == "float":
        f = d.pick(["{x} + {y}", "{x} * {y}", "{x} - {y}", "{x} * k + {y}", "{x} * {x}"])
    elif T in ("int16_t", "int8_t"):
        f = d.pick([f"({T})({{x}} + {{y}})", f"({T})({{x}} * {{y}})", "{x} - {y}", f"({T})(({{x}} * {{y}}) >> 7)",
                    "({x} + {y}) >> 1"])
    else:
        f = d.pick(["{x} + {y}", "{x} - {y}", "{x} * {y}", "{x} * k", "({x} + {y}) >> 1", "{x} & {y}", "{x} * {x} + {y}"])
    twice = f.count("{x}") > 1 or f.count("{y}") > 1
    return f, twice


def whileloop_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """``while`` loops and pointer bumps (CMSIS-DSP, codecs), C:

    * ``blk``: ``uint32_t blkCnt = blockSize; while (blkCnt > 0U) { *pDst++ = f(*pSrcA++,
      *pSrcB++); blkCnt--; }``;
    * ``whilei``: ``int i = 0; while (i < n) { ...; i++; }``;
    * ``dowhile``: ``do { ... } while (--n);`` after ``if (n == 0) return;`` or, without the
      guard, with ``n >= 1`` promised by the caller (the oracle draws ``n >= 1``); the guard
      ``if (n < 0)`` that lets 0 through is the near-miss ``whileloop-miss-guard``;
    * ``countdown``: ``while (n--)`` / ``while (n-- > 0)``;
    * ``bump``: ``*out = f(*x, *y); out++; x += K; y++;`` (strided reads, ``out += 2`` leaves
      every other element untouched);
    * ``unroll``: CMSIS's LOOPUNROLL: ``blkCnt = blockSize >> 2U`` with a 4x unrolled body,
      then the tail ``blkCnt = blockSize & 0x3U`` (``% 0x4U``); near-misses: a tail mask
      ``& 0x1U`` (elements dropped), three copies in the unrolled body;
    * ``dot``: the same loops as a dot product (``sum += (*pSrcA++) * (*pSrcB++);``) stored
      through ``*result = sum;`` or returned."""
    feats: set[str] = {"whileloop"}
    T = d.pick(_WL_TYPES)
    ET = "int32_t" if T == "q31" else T
    form = d.pick(["blk"] * 3 + ["whilei"] * 2 + ["dowhile"] * 2 + ["countdown"] * 2 + ["bump"] * 2 + ["unroll"] * 3
                  + ["dot"] * 2 + ["first"] * 2 + ["postinc"] * 2)
    feats |= {"whileloop-" + form, "whileloop-type-" + T}
    f, twice = _wl_f(d, ET)
    K = ""
    has_k = "k" in f
    params: list[Param] = []
    outputs: set[str] = set()
    ret: str | None = None
    min_size = 0
    n_name, n_t = "n", d.pick(["uint32_t", "uint32_t", "int", "size_t", "unsigned"])

    def apply(x: str, y: str) -> str:
        return f.format(x=x, y=y)

    def step(indent: str) -> list[str]:
        """One element through the bumped pointers."""
        if twice:
            return [f"{indent}inA = *pSrcA++;", f"{indent}inB = *pSrcB++;", f"{indent}*pDst++ = {apply('inA', 'inB')};"]
        return [f"{indent}*pDst++ = {apply('*pSrcA++', '*pSrcB++')};"]

    temps = [f"  {ET} inA, inB;"] if twice else []
    body: list[str] = []
    if form in ("blk", "unroll", "dot", "countdown", "dowhile"):
        n_name = "blockSize" if form in ("blk", "unroll", "dot") else "n"
        params = [Param("pSrcA", ET, True, "n"), Param("pSrcB", ET, True, "n")]
    if form == "blk":
        params.append(Param("pDst", ET, True, "n"))
        outputs.add("pDst")
        body = [*temps, "  uint32_t blkCnt = blockSize;", "  while (blkCnt > 0U) {", *step("    "), "    blkCnt--;", "  }"]
    elif form == "unroll":
        miss = d.pick(["tail-mask", "three-copies"]) if d.coin(25) else None
        if miss:
            feats.add("whileloop-miss-" + miss)
        params.append(Param("pDst", ET, True, "n"))
        outputs.add("pDst")
        copies = 3 if miss == "three-copies" else 4
        tail = "blockSize & 0x1U" if miss == "tail-mask" else d.pick(["blockSize & 0x3U", "blockSize % 0x4U",
                                                                      "blockSize & 3U"])
        body = [*temps, "  uint32_t blkCnt;", "  blkCnt = blockSize >> 2U;", "  while (blkCnt > 0U) {"]
        for _ in range(copies):
            body += step("    ")
        body += ["    blkCnt--;", "  }", f"  blkCnt = {tail};", "  while (blkCnt > 0U) {", *step("    "), "    blkCnt--;",
                 "  }"]
    elif form == "dot":
        A = {"int16_t": d.pick(["int64_t", "int32_t"]), "int8_t": "int32_t", "uint8_t": "uint32_t", "float": "float",
             "int32_t": "int64_t", "int": "long", "uint32_t": "uint32_t"}.get(ET, "int64_t")
        unrolled = d.coin(50)
        feats.add("whileloop-dot-" + ("unrolled" if unrolled else "plain"))
        mul = f"({A}) *pSrcA++ * *pSrcB++" if A != ET and d.coin(60) else "(*pSrcA++) * (*pSrcB++)"
        upd = f"    sum += {mul};"
        body = [f"  {A} sum = 0;", "  uint32_t blkCnt;"]
        if unrolled:
            body += ["  blkCnt = blockSize >> 2U;", "  while (blkCnt > 0U) {", upd, upd, upd, upd, "    blkCnt--;", "  }",
                     "  blkCnt = blockSize & 0x3U;"]
        else:
            body += ["  blkCnt = blockSize;"]
        body += ["  while (blkCnt > 0U) {", upd, "    blkCnt--;", "  }"]
        if d.coin(50):
            params.append(Param("result", A, True, "1"))
            outputs.add("result")
            body.append("  *result = sum;")
        else:
            ret = A
            body.append("  return sum;")
        has_k = False
    elif form == "whilei":
        params = [Param("a", ET, True, "n"), Param("b", ET, True, "n"), Param("out", ET, True, "n")]
        outputs.add("out")
        inc = d.pick(["i++;", "++i;", "i += 1;"])
        body = ["  int i = 0;", "  while (i < n) {", f"    out[i] = {apply('a[i]', 'b[i]')};", f"    {inc}", "  }"]
        n_t = "int"
    elif form == "countdown":
        params.append(Param("pDst", ET, True, "n"))
        outputs.add("pDst")
        head = d.pick(["while (n--)", "while (n-- > 0)", "while (n > 0)"])
        feats.add("whileloop-countdown-" + {"while (n--)": "postdec", "while (n-- > 0)": "postdec-gt",
                                            "while (n > 0)": "gt"}[head])
        inner = step("    ") + (["    n--;"] if head == "while (n > 0)" else [])
        body = [*temps, f"  {head} {{", *inner, "  }"]
    elif form == "dowhile":
        params.append(Param("pDst", ET, True, "n"))
        outputs.add("pDst")
        guard = d.pick(["eq", "eq", "le", "none", "miss"]) if n_t == "int" else d.pick(["eq", "eq", "none"])
        feats.add("whileloop-dowhile-" + guard)
        if guard == "miss":
            feats.add("whileloop-miss-guard")
        g = {"eq": ["  if (n == 0) return;"], "le": ["  if (n <= 0) return;"], "none": [],
             "miss": ["  if (n < 0) return;"]}[guard]
        if guard == "none":
            min_size = 1
        body = [*g, *temps, "  do {", *step("    "), "  } while (--n);"]
    elif form == "first":
        # CMSIS arm_max / arm_min: the first element before the loop, blockSize - 1U after it
        # (blockSize == 0 reads out of bounds: undefined, discarded)
        params = [Param("pSrc", ET, True, "n")]
        op = d.pick([">", "<", ">=", "<="])
        ret = ET
        body = [f"  {ET} m = *pSrc++;", "  uint32_t blkCnt = blockSize - 1U;", "  while (blkCnt > 0U) {",
                f"    {ET} v = *pSrc++;", f"    if (v {op} m) m = v;", "    blkCnt--;", "  }", "  return m;"]
        n_name = "blockSize"
        has_k = False
    elif form == "postinc":
        # the counter stepped inside an expression: sequenced (``s += a[i++];``) or, the
        # near-miss, unsequenced with another use of it (``out[i] = a[i++];``, C11 6.5p2)
        kind = d.pick(["sum", "sum", "copy", "copy", "unsequenced"])
        feats.add("whileloop-postinc-" + kind)
        if kind == "unsequenced":
            feats.add("whileloop-miss-unsequenced")
        params = [Param("a", ET, True, "n")]
        n_t = "int"
        if kind == "sum":
            A = {"float": "float", "uint32_t": "uint32_t"}.get(ET, "long")
            ret = A
            body = [f"  {A} s = 0;", "  int i = 0;", "  while (i < n) {", "    s += a[i++];", "  }", "  return s;"]
        else:
            params.append(Param("out", ET, True, "n"))
            outputs.add("out")
            stmt = "out[i] = a[i++];" if kind == "unsequenced" else d.pick(["*out++ = a[i++];", "out[j++] = a[i++];"])
            body = ["  int i = 0;"] + (["  int j = 0;"] if "j++" in stmt else []) + ["  while (i < n) {", f"    {stmt}",
                                                                                     "  }"]
        has_k = False
    else:  # bump
        K = d.pick(["1", "2", "2", "3"])
        out_step = d.pick(["1", "1", "1", "2"])
        feats.add(f"whileloop-bump-{K}x-{out_step}out")
        params = [Param("x", ET, True, f"n * {K}"), Param("y", ET, True, "n"), Param("out", ET, True, f"n * {out_step}")]
        outputs.add("out")
        ob = "out++;" if out_step == "1" else f"out += {out_step};"
        xb = "x++;" if K == "1" else f"x += {K};"
        body = ["  for (int i = 0; i < n; i++) {", f"    *out = {apply('*x', '*y')};", f"    {ob}", f"    {xb}",
                "    y++;", "  }"]
        n_t = "int"
    if has_k:
        params.append(Param("k", ET))
    params.append(Param(n_name, n_t, size=True))
    return _spec(d, name, ret, params, outputs, body, feats, _EXTREMES, min_size=min_size)


# --------------------------------------------------------------------------- guards

def guard_kernel(d: Draw, python_share: int = 30, name: str = "kern") -> KernelSpec:
    """Early-return guards before (and inside) a loop, C or Python; ``n`` may be negative
    (:attr:`KernelSpec.negative_sizes`).

    C: ``if (n <= 0) return;`` before a map, ``if (n <= 0) return 0;`` before a sum,
    ``if (n == 0) return 0; ... return s / n;``, ``if (n < 2) return;`` before a loop from 1
    (``n < 3``: the near-miss ``guard-miss-bound``), ``if (n > 8) return -1;`` (taken for some
    sizes), ``if (n <= 0) return 0;`` before a product (whose empty value is 1), a store before
    the guard, ``if (!k) return -1;`` before a division by
    ``k``, ``if (!a || !out) return;`` (pointers: never taken here), the first element read
    after ``if (n <= 0) return 0;`` (near-miss ``guard-miss-lt``: ``if (n < 0)`` reads
    ``a[0]`` of an empty array: undefined, discarded), and early returns inside the loop
    (``for (...) if (a[i] == k) return i; return -1;``).

    Python (:func:`python_guard_kernel`)."""
    if d.coin(python_share):
        return python_guard_kernel(d, name)
    feats: set[str] = {"guard"}
    T = d.pick(["int", "int", "long", "float", "double", "int32_t"])
    isf = T in ("float", "double")
    form = d.pick(["void", "sum", "mean", "first", "divk", "null", "find", "all", "cap", "prod", "store-before",
                   "offset", "offset"])
    feats |= {"guard-" + form, "guard-type-" + T}
    loop = d.pick(["for (int i = 0; i < n; i++)", "for (int i = 0; i < n; ++i)"])
    miss = d.coin(20)
    params: list[Param] = [Param("a", T, True, "n")]
    outputs: set[str] = set()
    ret: str | None = None
    body: list[str]
    le = "n < 0" if miss else d.pick(["n <= 0", "n < 1", "n <= 0"])
    if miss:
        feats.add("guard-miss-lt")
    if form == "void":
        params.append(Param("out", T, True, "n"))
        outputs.add("out")
        body = [f"  if ({le}) return;", f"  {loop} {{", "    out[i] = a[i] * 2 + 1;", "  }"]
    elif form == "sum":
        ret = T
        rv = d.pick(["0", "0", "-1"])
        body = [f"  if ({le}) return {rv};", f"  {T} s = 0;", f"  {loop} {{", "    s += a[i];", "  }", "  return s;"]
    elif form == "mean":
        ret = T
        g = "n < 0" if miss else d.pick(["n == 0", "n <= 0", "!n"])
        body = [f"  if ({g}) return 0;", f"  {T} s = 0;", f"  {loop} {{", "    s += a[i];", "  }", "  return s / n;"]
    elif form == "first":
        ret = T
        body = [f"  if ({le}) return 0;", f"  {T} m = a[0];", "  for (int i = 1; i < n; i++) {", "    if (a[i] > m) m = a[i];",
                "  }", "  return m;"]
    elif form == "divk":
        kt = "int" if not isf else T
        params.append(Param("k", kt))
        params.append(Param("out", T, True, "n"))
        outputs.add("out")
        ret = "int"
        g = d.pick(["!k", "k == 0"])
        den = "(k - 1)" if miss else "k"
        body = [f"  if ({g}) return -1;", f"  {loop} {{", f"    out[i] = a[i] / {den};", "  }", "  return 0;"]
    elif form == "null":
        params.append(Param("out", T, True, "n"))
        outputs.add("out")
        g = d.pick(["!a || !out", "a == NULL || out == NULL", "!a"])
        body = [f"  if ({g}) return;", f"  if ({le}) return;", f"  {loop} {{", "    out[i] = a[i] - 1;", "  }"]
    elif form == "find":
        ret = "int"
        params.append(Param("k", T))
        op = d.pick(["==", ">", "<"])
        body = [f"  {loop} {{", f"    if (a[i] {op} k) return i;", "  }", "  return -1;"]
    elif form == "cap":
        # an upper bound (taken for some of the oracle's sizes): the result is a select on it
        ret = T
        cap = d.pick([4, 8, 8, 16])
        body = [f"  if (n > {cap}) return -1;", f"  {T} s = 0;", f"  {loop} {{", "    s += a[i];", "  }", "  return s;"]
    elif form == "prod":
        # the guard's value (0) differs from what the rest returns for n <= 0 (1)
        ret = T
        body = [f"  if ({le}) return 0;", f"  {T} p = 1;", f"  {loop} {{", "    p *= a[i];", "  }", "  return p;"]
    elif form == "offset":
        # ``if (n < G) return;`` before a loop from 1: G <= 2 only skips loops that run zero
        # times; G == 3 also skips n == 2 (one iteration): the near-miss guard-miss-bound
        G = d.pick([1, 2, 2, 3])
        if G == 3:
            feats.add("guard-miss-bound")
        params.append(Param("out", T, True, "n"))
        outputs.add("out")
        body = [f"  if (n < {G}) return;", "  for (int i = 1; i < n; i++) {", "    out[i] = a[i] - a[i - 1];", "  }"]
    elif form == "store-before":
        params.append(Param("out", T, True, "n + 1"))
        outputs.add("out")
        body = ["  out[0] = 0;", f"  if ({le}) return;", f"  {loop} {{", "    out[i + 1] = out[i] + a[i];", "  }"]
    else:
        ret = "int"
        body = [f"  if ({le}) return 0;", f"  {loop} {{", "    if (a[i] <= 0) return 0;", "  }", "  return 1;"]
    params.append(Param("n", "int", size=True))
    if d.coin(25):
        params = params[-1:] + params[:-1]
    return _spec(d, name, ret, params, outputs, body, feats, [0, 1, 2, -1, -2], negative_sizes=True)


def python_guard_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """Python guards: ``if not xs: raise ValueError(...)`` before a mean, a sum or a maximum;
    ``if len(a) != len(b): raise ValueError(...)`` before a zip / an indexed loop (the second
    list is one longer for some sizes); ``if not xs: return 0`` / ``return 0.0`` /
    ``if len(xs) == 0: return []``. Near-misses: ``if len(a) < len(b)`` only (``a[i] *
    b[i]`` over ``range(len(a))`` raises ``IndexError`` when ``b`` is shorter), a guard on
    the wrong list."""
    feats: set[str] = {"guard", "py-guard"}
    is_int = d.coin(40)
    et, ct = ("int", "long") if is_int else ("float", "double")
    form = d.pick(["raise-empty", "raise-empty", "raise-len", "raise-len", "ret-empty", "ret-empty"])
    feats.add("py-guard-" + form)
    lines: list[str]
    params = [Param("xs", ct, True, "n")]
    args = [f"xs: list[{et}]"]
    if form == "raise-empty":
        g = d.pick(["if not xs:", "if len(xs) == 0:"])
        msg = d.pick(['"empty input"', '"xs must not be empty"'])
        tail = d.pick(["mean", "sum", "max", "first"])
        feats.add("py-guard-then-" + tail)
        lines = [f"    {g}", f"        raise ValueError({msg})"]
        if tail == "mean":
            lines += ["    s = 0" + ("" if is_int else ".0"), "    for x in xs:", "        s += x", "    return s / len(xs)"]
        elif tail == "sum":
            lines += ["    return sum(x * x for x in xs)"]
        elif tail == "max":
            lines += ["    m = xs[0]", "    for x in xs:", "        if x > m:", "            m = x", "    return m"]
        else:
            lines += ["    return [x - xs[0] for x in xs]"]
    elif form == "raise-len":
        params.append(Param("ys", ct, True, "n if n % 3 else n + 1"))
        args.append(f"ys: list[{et}]")
        miss = d.pick(["none", "none", "lt", "wrong"]) if d.coin(30) else "none"
        g = {"none": "if len(xs) != len(ys):", "lt": "if len(xs) > len(ys):", "wrong": "if not xs:"}[miss]
        if miss != "none":
            feats.add("py-guard-miss-" + miss)
        lines = [f"    {g}", '        raise ValueError("length mismatch")']
        tail = d.pick(["zip", "dot", "append"])
        feats.add("py-guard-then-" + tail)
        if tail == "zip":
            lines += ["    return [x + y for x, y in zip(xs, ys)]"]
        elif tail == "dot":
            lines += ["    s = 0" + ("" if is_int else ".0"), "    for i in range(len(xs)):", "        s += xs[i] * ys[i]",
                      "    return s"]
        else:
            lines += ["    out = []", "    for i in range(len(xs)):", "        out.append(xs[i] - ys[i])", "    return out"]
    else:
        z = "0" if is_int else d.pick(["0.0", "0"])
        kind = d.pick(["sum", "mean", "list"])
        feats.add("py-guard-ret-" + kind)
        if kind == "list":
            lines = ["    if len(xs) == 0:", "        return []", "    return [x * 2 for x in xs]"]
        elif kind == "sum":
            lines = ["    if not xs:", f"        return {z}", "    s = xs[0]", "    for x in xs[1:]:", "        s += x",
                     "    return s"]
        else:
            lines = ["    if not xs:", f"        return {z}", "    return sum(xs) / len(xs)"]
    src = f"def {name}({', '.join(args)}):\n" + "\n".join(lines) + "\n"
    ret = "list" if "return [" in src or "return out" in src else ("int" if is_int and "/" not in src else "float")
    return KernelSpec(name, "python", src, name, params, ret, [0, 1, 2, -1], sorted(feats), "1d")


# --------------------------------------------------------------------------- runtime strides

def _span(n: str, inc: str) -> str:
    """Elements a walk of ``n`` steps of ``inc`` (any sign) touches, as an extent."""
    return f"max({n} - 1, 0) * abs({inc}) + 1 if {n} > 0 else 0"


def stride_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """Runtime strides (BLAS level 1 / 2), C; the oracle draws the strides from
    :attr:`Param.choices` (1 and 2 always, 0 where the kernel reads or accumulates through
    it, negative ones where the kernel starts at ``(1 - n) * inc`` as reference BLAS does)
    and sizes every array to the span the walk touches:

    * ``index``: ``y[i * incy] += a * x[i * incx];`` (axpy), ``y[i * incy] = x[i * incx];``,
      ``x[i * incx] *= a;``, ``s += x[i * incx] * y[i * incy];`` (0 allowed: ``y[0]``
      accumulates every term);
    * ``blas``: ``ix = incx < 0 ? (1 - n) * incx : 0;`` then ``ix += incx`` (negative
      strides walk backwards); ``stride-miss-start-sign`` starts at ``(n - 1) * incx``
      (out of bounds for a negative stride: undefined, discarded);
    * ``ptr``: ``s += *x * *y; x += incx; y += incy;``;
    * ``rows``: ``a_ptr += lda`` row walking for a matrix-vector product (``lda`` may be
      below ``n``: rows overlap) and the indexed ``A[r * lda + j]``;
    * ``stride-miss-offset``: ``x[i * incx + 1]`` (an offset the tool must carry)."""
    feats: set[str] = {"stride"}
    T = d.pick(["float", "float", "double", "int", "int", "long"])
    form = d.pick(["index"] * 4 + ["blas"] * 3 + ["ptr"] * 2 + ["rows"] * 3)
    feats |= {"stride-" + form, "stride-type-" + T}
    it = d.pick(["int", "int", "long", "size_t"]) if form != "blas" else "int"
    params: list[Param] = []
    outputs: set[str] = set()
    ret: str | None = None
    body: list[str]
    nonneg: tuple[int, ...] = (1, 1, 2, 3, 0)
    signed: tuple[int, ...] = (1, 1, 2, -1, -2, 3, 0, -3)
    if form == "rows":
        lda = Param("lda", d.pick(["int", "int", "long", "size_t"]), choices=(1, 2, 3, 4, 5, 6, 0))
        a_ext = "max(m - 1, 0) * lda + n if m > 0 else 0"
        params = [Param("m", "int", size=True), Param("n", "int", size=True), Param("A", T, True, a_ext),
                  lda, Param("x", T, True, "n"), Param("y", T, True, "m")]
        outputs.add("y")
        ptr = d.coin(55)
        feats.add("stride-rows-" + ("ptr" if ptr else "index"))
        early = ptr and d.coin(20)
        if early:  # the bump before the row's use: rows 1..m, not 0..m-1
            feats.add("stride-miss-bump-first")
            params[2] = Param("A", T, True, "m * lda + n if m > 0 else 0")
        load = "a_ptr[j]" if ptr else "A[r * lda + j]"
        body = ([f"  const {T} *a_ptr = A;"] if ptr else []) + \
            ["  for (int r = 0; r < m; r++) {"] + (["    a_ptr += lda;"] if early else []) + \
            [f"    {T} s = 0;", "    for (int j = 0; j < n; j++)", f"      s += {load} * x[j];", "    y[r] = s;"] + \
            (["    a_ptr += lda;"] if ptr and not early else []) + ["  }"]
        return _spec(d, name, None, params, outputs, body, feats, [0, 1, 2], shape="2d")
    miss_off = form == "index" and d.coin(15)
    if miss_off:
        feats.add("stride-miss-offset")
    kind = d.pick(["axpy", "copy", "scal", "dot"])
    feats.add("stride-" + kind)
    choices_x: tuple[int, ...] = signed if form == "blas" else nonneg
    choices_y = choices_x
    if kind == "scal":
        choices_x = tuple(c for c in choices_x if c != 0) or (1,)
    incx = Param("incx", "int", choices=choices_x)
    incy = Param("incy", "int", choices=choices_y)
    plus = "+ 1" if miss_off else ""
    x_ext = f"({_span('n', 'incx')}) + 1" if miss_off else _span("n", "incx")
    x = Param("x", T, True, x_ext)
    y = Param("y", T, True, _span("n", "incy"))
    alpha = Param("alpha", T)
    loop = f"for ({it} i = 0; i < n; i++)"
    if kind == "scal":
        params = [x, incx, alpha]
        outputs.add("x")
    elif kind == "dot":
        params = [x, incx, y, incy]
        ret = T
    else:
        params = ([alpha] if kind == "axpy" else []) + [x, incx, y, incy]
        outputs.add("y")
    if form == "index":
        xi, yi = f"x[i * incx {plus}]".replace(" ]", "]"), "y[i * incy]"
        stmt = {"axpy": f"{yi} += alpha * {xi};", "copy": f"{yi} = {xi};", "scal": f"{xi} = alpha * {xi};",
                "dot": f"s += {xi} * {yi};"}[kind]
        body = ([f"  {T} s = 0;"] if kind == "dot" else []) + [f"  {loop} {{", f"    {stmt}", "  }"] + \
            (["  return s;"] if kind == "dot" else [])
    elif form == "blas":
        start = d.pick(["ok", "ok", "ok", "miss"])
        if start == "miss":
            feats.add("stride-miss-start-sign")
        sx = "(1 - n) * incx" if start == "ok" else "(n - 1) * incx"
        stmt = {"axpy": "y[iy] += alpha * x[ix];", "copy": "y[iy] = x[ix];", "scal": "x[ix] = alpha * x[ix];",
                "dot": "s += x[ix] * y[iy];"}[kind]
        uses_y = kind != "scal"
        body = ["  int ix = 0;"] + (["  int iy = 0;"] if uses_y else []) + ([f"  {T} s = 0;"] if kind == "dot" else [])
        body += [f"  if (incx < 0) ix = {sx};"] + (["  if (incy < 0) iy = (1 - n) * incy;"] if uses_y else [])
        body += [f"  {loop} {{", f"    {stmt}", "    ix += incx;"] + (["    iy += incy;"] if uses_y else []) + ["  }"]
        body += ["  return s;"] if kind == "dot" else []
    else:  # ptr
        stmt = {"axpy": "*y += alpha * *x;", "copy": "*y = *x;", "scal": "*x = alpha * *x;", "dot": "s += *x * *y;"}[kind]
        uses_y = kind != "scal"
        body = [f"  {T} s = 0;"] if kind == "dot" else []
        if d.coin(40):
            # negative strides: the pointers start at the far end, as reference BLAS does
            feats.add("stride-ptr-negative")
            incx = Param("incx", "int", choices=signed if kind != "scal" else (1, 2, -1, -2))
            incy = Param("incy", "int", choices=signed)
            params = [incx if p.name == "incx" else incy if p.name == "incy" else p for p in params]
            body += ["  if (incx < 0) x += (1 - n) * incx;"] + (["  if (incy < 0) y += (1 - n) * incy;"] if uses_y else [])
        body += [f"  {loop} {{", f"    {stmt}", "    x += incx;"] + \
            (["    y += incy;"] if uses_y else []) + ["  }"] + (["  return s;"] if kind == "dot" else [])
    params.append(Param("n", "int", size=True))
    return _spec(d, name, ret, params, outputs, body, feats, [0, 1, 2, -1])


def idiom_kernel(d: Draw, shape: str, python_share: int = 30, name: str = "kern") -> KernelSpec:
    """A kernel of one of :data:`IDIOM_SHAPES`."""
    if shape == "guard":
        return guard_kernel(d, python_share, name)
    return {"unsigned": unsigned_kernel, "narrow": narrow_kernel, "bitwise": bitwise_kernel,
            "whileloop": whileloop_kernel, "stride": stride_kernel, "reading": reading_kernel,
            "control": control_kernel, "blas": blas_kernel}[shape](d, name)


# --------------------------------------------------------------------------- reading

#: file-scope text a real file has around the kernel, outside the subset the tool lowers: the
#: tool must read past it (only the kernel and what it reaches are lowered)
_NOISE = {
    "union": "union fz_bits { float f; unsigned int u; };",
    "goto": "static int fz_other(int *p, int n) {\n  int i = 0;\nagain:\n  if (i < n) { p[i] = 0; i++; goto again; }\n  return i;\n}",
    "global-array": "static double fz_table[4] = {1.0, 2.0, 3.0, 4.0};",
    "attribute": "__attribute__((unused)) static int fz_unused(int x) { return x * 2; }",
    "funcptr": "typedef void (*fz_cb)(float *, int);",
    "varargs": "#include <stdarg.h>\nstatic int fz_count(int n, ...) { va_list a; va_start(a, n); va_end(a); return n; }",
}


def reading_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """What real files wrap a kernel in (issue 34's reading of files as the compiler reads
    them), C:

    * ``vla2``: a C99 variable length 2-D array parameter ``T A[m][n]`` read by rows (row
      sums into ``y[m]``) or mapped into ``B[m][n]``;
    * ``vla3``: a 3-D one ``T A[m][r][n]`` (``r`` drawn by the oracle) mapped into ``B``;
    * ``chained``: chained assignments ``out[i] = t = E;`` / ``s = t = 0;``;
    * ``helper``: a ``static inline`` helper with a ``register`` local, called per element;
    * ``enum``: an enumeration constant and a ``static const`` table read at constant indices;
    * noise around it (``reading-noise-<what>``): a union, a function with ``goto``, a global
      array, a GNU attribute, a function-pointer typedef, a variadic function, an OpenMP
      ``#pragma`` before the loop, a UTF-8 byte-order mark;
    * ``reading-miss-row``: ``A[i][j + 1]`` reads past its row at ``j = n - 1`` (undefined in
      C, C11 J.2: such cases are discarded; the tool must not depend on them)."""
    feats: set[str] = {"reading"}
    T = d.pick(["float", "double", "int", "long", "double"])
    form = d.pick(["vla2"] * 3 + ["vla3"] * 2 + ["chained"] * 2 + ["helper"] * 2 + ["enum"] * 2)
    feats |= {"reading-" + form, "reading-type-" + T}
    k = d.pick([2, 3, -1, 5])
    pre: list[str] = []
    params: list[Param]
    outputs: set[str] = set()
    ret: str | None = None
    shape = "1d"
    pragma = "  #pragma omp parallel for\n" if d.coin(20) else ""
    if pragma:
        feats.add("reading-noise-pragma")
    f = d.pick(["{x} * K + 1", "{x} > 0 ? {x} : -{x}", "{x} - K", "{x} * {x}"])
    if form in ("vla2", "vla3"):
        shape = "2d"
        miss = form == "vla2" and d.coin(15)
        three = form == "vla3"
        dims = "[m][r][n]" if three else "[m][n]"
        idx = "[i][q][j]" if three else "[i][j]"
        params = [Param("m", "int", size=True)] + ([Param("r", "int", choices=(0, 1, 2, 3))] if three else []) + \
            [Param("n", "int", size=True)]
        ext = "m * r * n" if three else "m * n"
        sig = ", ".join(f"int {p.name}" for p in params)
        const = "const " if d.coin(50) else ""
        rows = not three and d.coin(50)
        if rows:
            feats.add("reading-vla2-rows")
            read = "A[i][j + 1]" if miss else "A[i][j]"
            if miss:
                feats.add("reading-miss-row")
            sig += f", {const}{T} A[m][n], {T} y[m]"
            params += [Param("A", T, True, ext), Param("y", T, True, "m")]
            outputs.add("y")
            body = ["  for (int i = 0; i < m; i++) {", f"    {T} s = 0;", pragma + "    for (int j = 0; j < n; j++)",
                    f"      s += {f.format(x=read).replace('K', str(k))};", "    y[i] = s;", "  }"]
        else:
            sig += f", {const}{T} A{dims}, {T} B{dims}"
            params += [Param("A", T, True, ext), Param("B", T, True, ext)]
            outputs.add("B")
            inner = f"B{idx} = {f.format(x='A' + idx).replace('K', str(k))};"
            loops = ["  for (int i = 0; i < m; i++)"] + (["    for (int q = 0; q < r; q++)"] if three else []) + \
                [("      " if three else "    ") + "for (int j = 0; j < n; j++)"]
            body = [*loops, ("        " if three else "      ") + inner]
            body[0] = pragma + body[0]
        src_sig = sig
    else:
        params = [Param("a", T, True, "n"), Param("out", T, True, "n"), Param("n", "int", size=True)]
        outputs.add("out")
        src_sig = f"const {T} *a, {T} *out, int n"
        e = f.format(x="a[i]").replace("K", "K_" if form == "enum" else str(k))
        if form == "chained":
            if d.coin(50):
                body = [f"  {T} t;", pragma + "  for (int i = 0; i < n; i++)", f"    out[i] = t = {e};"]
                feats.add("reading-chained-store")
            else:
                body = [f"  {T} s, t;", "  s = t = 0;", pragma + "  for (int i = 0; i < n; i++) {",
                        f"    s += {e};", "    t += a[i];", "  }", "  return s - t;"]
                feats.add("reading-chained-init")
                params = [Param("a", T, True, "n"), Param("n", "int", size=True)]
                outputs.discard("out")
                src_sig, ret = f"const {T} *a, int n", T
        elif form == "helper":
            pre.append(f"static inline {T} fz_h({T} x) {{\n  register {T} v = {f.format(x='x').replace('K', str(k))};\n  return v;\n}}")
            body = [pragma + "  for (int i = 0; i < n; i++)", "    out[i] = fz_h(a[i]);"]
        else:
            pre.append(f"enum {{ K_ = {k}, FZ_OTHER = K_ * 2 }};")
            pre.append(f"static const {T} fz_c[3] = {{1, {k}, 4}};")
            body = [pragma + "  for (int i = 0; i < n; i++)", f"    out[i] = {e} + fz_c[1] * FZ_OTHER;"]
    noise = [w for w in _NOISE if d.coin(25)]
    feats |= {"reading-noise-" + w for w in noise}
    bom = d.coin(15)
    if bom:
        feats.add("reading-noise-bom")
    src = ("\ufeff" if bom else "") + _INCLUDES + "\n".join(_NOISE[w] for w in noise) + ("\n\n" if noise else "") + \
        "\n".join(pre) + ("\n\n" if pre else "") + f"{ret or 'void'} {name}({src_sig}) {{\n" + "\n".join(body) + "\n}\n"
    return KernelSpec(name, "c", src, name, params, ret, sorted({0, 1, k, -k}), sorted(feats), shape)


# --------------------------------------------------------------------------- control

_CTL_TYPES = ["int", "int", "int32_t", "unsigned", "uint32_t", "int16_t", "uint8_t", "short", "float", "double"]


def control_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """The control flow and accumulations of shipped C that the frontend rewrites, C:

    * ``switch``: a selector parameter (``int``, ``unsigned``, ``unsigned char``, ``short``)
      switched on per element in an inline helper (``case K: return E;``, fall-through,
      ``default`` first, in the middle or missing with ``return 0;`` after) or in the loop
      body (``break``), labels near the selector type's limits; the oracle draws the
      selector among the labels, their neighbours and the type's extremes;
    * ``paths``: ``if (C) { loop } else if (C2) { loop } else { loop }`` on a condition of a
      scalar parameter (``k > c``, ``k % 3 == 1``, ``(unsigned) k < c``, ``(k & 4) != 0``)
      and a local computed from it before;
    * ``shift``: ``a[i] << k`` / ``a[i] >> k`` by a parameter count (a count of 32 or -1 is
      undefined: discarded), on promoted narrow data, stored narrow;
    * ``accnest``: ``out[i] = c; for (j) out[i] += x[i*n + j] ...; out[i] *= s;`` (scalar
      replacement; ``control-miss-other-elem`` reads ``out`` at another index);
    * ``uacc``: a ``uint32_t`` accumulator from a constant, ``+=`` / ``-=`` of int, long,
      unsigned char or unsigned terms, returned;
    * ``fdbl``: a ``float`` accumulator of ``double`` terms (``pow``, double literals)."""
    feats: set[str] = {"control"}
    form = d.pick(["switch"] * 3 + ["paths"] * 3 + ["shift"] * 2 + ["accnest"] * 2 + ["uacc"] * 2 + ["fdbl"])
    feats.add("control-" + form)
    loop = "for (int i = 0; i < n; i++)"
    if form == "switch":
        T = d.pick(["int", "int", "float", "double", "int16_t", "uint8_t"])
        S = d.pick(["int", "unsigned", "unsigned char", "short", "int"])
        lim = {"int": 2**31 - 1, "unsigned": 2**32 - 1, "unsigned char": 255, "short": 32767}[S]
        labels = sorted(set(d.pick([[0, 1, 2], [1, 3, 5], [0, 2, lim], [lim - 1, lim, 7]])))
        exprs = ["x + 1", "x * 2", "x - 3", "-x", "x * x", "x / 2" if T in ("float", "double") else "x >> 1"]
        cases: list[str] = []
        where_default = d.pick(["first", "middle", "none", "last"])
        fall = d.coin(40)
        for k, lab in enumerate(labels):
            if (where_default, k) in (("first", 0), ("middle", 1)):
                cases.append(f"    default: return ({T})({d.pick(exprs)});")
            if fall and k == 0:
                cases.append(f"    case {lab}:")  # falls through to the next label
                feats.add("control-switch-fall")
                continue
            cases.append(f"    case {lab}{'U' if S == 'unsigned' else ''}: return ({T})({d.pick(exprs)});")
        if where_default == "last":
            cases.append(f"    default: return ({T})({d.pick(exprs)});")
        feats.add("control-switch-default-" + where_default)
        helper = ([f"static inline {T} pick({T} x, {S} sel)", "{", "  switch (sel) {", *cases, "  }",
                   "  return 0;" if where_default == "none" else "  return x;", "}", ""])
        params = [Param("a", T, True, "n"), Param("out", T, True, "n"),
                  Param("sel", S, choices=tuple(sorted(v for v in {*labels, *(x + 1 for x in labels), 0, lim} if v <= lim)))]
        params.append(Param("n", "int", size=True))
        spec = _spec(d, name, None, params, {"out"}, [f"  {loop}", "    out[i] = pick(a[i], sel);"], feats, labels)
        spec.source = spec.source.replace(f"void {name}(", "\n".join(helper) + f"void {name}(", 1)
        return spec
    if form == "paths":
        T = d.pick(["int", "int", "float", "double", "int16_t"])
        c = d.pick([0, 1, 3, 10, 100])
        conds = [f"k > {c}", "k % 3 == 1", f"(unsigned) k < {c}U", "(k & 4) != 0", f"m == {2 * c + 1}"]
        first, second = d.pick(conds), d.pick(conds)
        exprs = ["a[i] + 1", "a[i] * 2", "a[i] - b[i]", "a[i] * b[i]", "b[i]", "0"]
        arms = [d.pick(exprs), d.pick(exprs), d.pick(exprs)]
        chain = d.coin(50)
        body = ["  int m = 2 * k + 1;", f"  if ({first}) {{", f"    {loop} out[i] = ({T})({arms[0]});"]
        if chain:
            feats.add("control-paths-chain")
            body += [f"  }} else if ({second}) {{", f"    {loop} out[i] = ({T})({arms[1]});"]
        body += ["  } else {", f"    {loop} out[i] = ({T})({arms[2]});", "  }"]
        params = [Param("a", T, True, "n"), Param("b", T, True, "n"), Param("out", T, True, "n"),
                  Param("k", "int", choices=(c - 1, c, c + 1, 0, 1, 4, 5, -1, -5, 2 * c + 1)), Param("n", "int", size=True)]
        return _spec(d, name, None, params, {"out"}, body, feats, [c, 2 * c + 1])
    if form == "shift":
        T = d.pick(["int", "unsigned", "uint32_t", "int16_t", "uint8_t", "short", "uint16_t"])
        U = d.pick([T, T, "int", "uint8_t", "int16_t"])
        e = d.pick(["a[i] << k", "a[i] >> k", "(a[i] << k) >> 1", "a[i] >> k << 1", "(a[i] + b[i]) >> k"])
        pre = d.pick(["", "  int s = k & 31;", "  int s = -k;"])
        count = "k" if not pre else "s"
        if pre:
            feats.add("control-shift-local")
            e = e.replace("k", "s")
        params = [Param("a", T, True, "n"), Param("b", T, True, "n"), Param("out", U, True, "n"),
                  Param("k", "int", choices=(0, 1, 3, 7, 15, 16, 31, 32, -1, -3) if count == "k" else (0, 1, 3, 31, -1, -3, -16, 33)),
                  Param("n", "int", size=True)]
        body = ([pre] if pre else []) + [f"  {loop}", f"    out[i] = ({U})({e});"]
        return _spec(d, name, None, params, {"out"}, body, feats, [1, 31])
    if form == "accnest":
        T = d.pick(["float", "double", "int", "int", "float"])
        init = d.pick(["0", "1", "b[i]"])
        op = d.pick(["+=", "+=", "-="])
        term = d.pick(["x[i * n + j]", "x[i * n + j] * c", "x[j * m + i]", "x[i * n + j] * x[i * n + j]"])
        miss = d.coin(15)
        post = d.pick(["    out[i] *= c;", "    out[i] += 1;", ""])
        body = ["  for (int i = 0; i < m; i++) {", f"    out[i] = {init};", "    for (int j = 0; j < n; j++)",
                f"      out[i] {op} {term}{' + out[0]' if miss else ''};"] + ([post] if post else []) + ["  }"]
        if miss:
            feats.add("control-miss-other-elem")
        params = [Param("x", T, True, "m * n"), Param("b", T, True, "m"), Param("c", T), Param("out", T, True, "m"),
                  Param("m", "int", size=True), Param("n", "int", size=True)]
        return _spec(d, name, None, params, {"out"}, body, feats, [0, 1], shape="2d")
    if form == "uacc":
        T = d.pick(["int", "long", "unsigned char", "unsigned", "uint16_t", "int16_t"])
        k0 = d.pick(["0", "1", "0xFFFFFFFFU", "7U", "2147483648U"])
        op = d.pick(["+=", "+=", "-="])
        term = d.pick(["a[i]", "a[i] * 3", "a[i] - 1", "(a[i] + 1U)"])
        body = [f"  uint32_t s = {k0};", f"  {loop}", f"    s {op} {term};", "  return s;"]
        params = [Param("a", T, True, "n"), Param("n", "int", size=True)]
        return _spec(d, name, "uint32_t", params, set(), body, feats, [0, 1, 3])
    # fdbl
    term = d.pick(["a[i] * 0.5", "pow(a[i], 2.0)", "a[i] * 0.1 + b[i]", "pow(a[i] - b[i], 2)", "(double) a[i] / 4"])
    body = ["  float s = 0;", f"  {loop}", f"    s += {term};", "  return s;"]
    params = [Param("a", "float", True, "n"), Param("b", "float", True, "n"), Param("n", "int", size=True)]
    spec = _spec(d, name, "float", params, set(), body, feats, [0, 1, 2])
    spec.source = "#include <math.h>\n" + spec.source
    return spec


# --------------------------------------------------------------------------- blas

_LDS = (1, 2, 3, 4, 5, 7, 8)


def blas_kernel(d: Draw, name: str = "kern") -> KernelSpec:
    """Matrix products and scalings as BLAS-like C writes them (issue 34's darknet GEMMs),
    on blocks of rows stored with leading dimensions (``lda``, ``ldb``, ``ldc``, drawn by the
    oracle; ``C`` long enough for ``m`` rows of ``ldc``), C:

    * ``ikj``: ``for i for k { a = alpha * A[i*lda + k]; for j C[i*ldc + j] += a * B[k*ldb + j]; }``
      (loop interchange; ``blas-hoist-plain`` without ``alpha``);
    * ``ijk``: ``for i for j { s = 0; for k s += A[..] * B[..]; C[i*ldc + j] (+)= s; }`` with
      either operand read transposed (``A[i + k*lda]``, ``B[j*ldb + k]``);
    * ``scale``: a two-deep ``C[i*ldc + j] = beta * C[i*ldc + j]`` (or ``= A[i*lda + j] op C``);
    * ``kj``: a vector-matrix product in the ``k, j`` order, ``y[j] += x[k] * A[k*n + j]``;
    * ``paths``: ``scale`` then ``if (t) helper_ikj(...); else helper_ijk(...);``, helpers with loops;
    * near-misses (the tool must refuse them or get them right): ``blas-miss-skew``
      (``y[j + k]``: a dependence across ``j``), ``blas-miss-hoist-reads-out`` (the hoisted
      value reads ``C``), ``blas-miss-hoist-reads-j`` (it reads the inner counter, declared
      before the nest: its value there is not the interchanged loop's), ``blas-miss-triangular`` (``j < k``), ``blas-miss-wide`` (``j <= n``:
      rows one element wider), ``blas-miss-offset`` (``C[i*ldc + j + 1]``)."""
    feats: set[str] = {"blas"}
    T = d.pick(["float", "double", "int", "float", "double", "long"])
    form = d.pick(["ikj"] * 3 + ["ijk"] * 3 + ["scale"] * 2 + ["kj"] * 2 + ["paths"] * 2)
    feats |= {"blas-" + form, "blas-type-" + T}
    misses = {"ikj": ["hoist-reads-out", "hoist-reads-j", "triangular", "wide", "offset"], "ijk": ["wide", "offset"],
              "scale": ["wide", "offset"], "kj": ["skew", "triangular"], "paths": []}[form]
    miss = d.pick(misses) if misses and d.coin(35) else ""
    if miss:
        feats.add("blas-miss-" + miss)
    lds = {x: Param(x, "int", choices=_LDS) for x in ("lda", "ldb", "ldc")}
    # (the oracle sizes only m and n: the reduction length is drawn like a leading dimension)
    sizes = [Param("m", "int", size=True), Param("n", "int", size=True), Param("k", "int", choices=(0, 1, 2, 3, 5))]
    wide = "<=" if miss == "wide" else "<"
    off = " + 1" if miss == "offset" else ""
    jbound = "q" if miss == "triangular" else "n"

    def ikj(fn: str, static: bool) -> list[str]:
        hoist = "alpha * A[i * lda + q]" if not d.coin(30) else "A[i * lda + q]"
        if hoist == "A[i * lda + q]":
            feats.add("blas-hoist-plain")
        if miss == "hoist-reads-out":
            hoist += " + C[i * ldc]"
        jdecl, jloop = ("  int j = 0;", "j = 0") if miss == "hoist-reads-j" else ("", "int j = 0")
        if miss == "hoist-reads-j":
            hoist += " + j"  # (j: its value before the nest at q = 0, then n)
        return [f"{'static ' if static else ''}void {fn}(int m, int n, int k, {T} alpha, const {T} *A, int lda, "
                f"const {T} *B, int ldb, {T} *C, int ldc) {{", *([jdecl] if jdecl else []),
                "  for (int i = 0; i < m; i++)", "    for (int q = 0; q < k; q++) {", f"      {T} a = {hoist};",
                f"      for ({jloop}; j {wide} {jbound}; j++)", f"        C[i * ldc + j{off}] += a * B[q * ldb + j];",
                "    }", "}"]

    def ijk(fn: str, static: bool) -> list[str]:
        a = d.pick(["A[i * lda + q]", "A[i + q * lda]"])
        b = d.pick(["B[q * ldb + j]", "B[j * ldb + q]"])
        feats.add("blas-a-transposed" if a == "A[i + q * lda]" else "blas-a-plain")
        feats.add("blas-b-transposed" if b == "B[j * ldb + q]" else "blas-b-plain")
        store = d.pick(["+=", "="])
        return [f"{'static ' if static else ''}void {fn}(int m, int n, int k, {T} alpha, const {T} *A, int lda, "
                f"const {T} *B, int ldb, {T} *C, int ldc) {{",
                "  for (int i = 0; i < m; i++)", f"    for (int j = 0; j {wide} n; j++) {{", f"      {T} s = 0;",
                "      for (int q = 0; q < k; q++)", f"        s += alpha * {a} * {b};",
                f"      C[i * ldc + j{off}] {store} s;", "    }", "}"]

    # A, B: k x (m or n) either way round: long enough for every order and leading dimension
    mats = [Param("A", T, True, "(m + k + 1) * lda + m + k"), Param("B", T, True, "(n + k + 1) * ldb + n + k"),
            Param("C", T, True, "(m + 1) * ldc + n + 1")]
    if form in ("ikj", "ijk"):
        src = (ikj if form == "ikj" else ijk)(name, False)
        params = [*sizes, Param("alpha", T), mats[0], lds["lda"], mats[1], lds["ldb"], mats[2], lds["ldc"]]
        spec = _spec(d, name, None, params, {"C"}, [], feats, [0, 1], shape="2d")
        spec.source = _INCLUDES + "\n".join(src) + "\n"
    elif form == "scale":
        e = d.pick(["beta * C[i * ldc + j]", "C[i * ldc + j] + A[i * lda + j]", "A[i * lda + j] * beta"])
        body = ["  for (int i = 0; i < m; i++)", f"    for (int j = 0; j {wide} n; j++)",
                f"      C[i * ldc + j{off}] = {e};"]
        params = [sizes[0], sizes[1], Param("beta", T), Param("A", T, True, "(m + 1) * lda + n + 1"), lds["lda"],
                  mats[2], lds["ldc"]]
        spec = _spec(d, name, None, params, {"C"}, body, feats, [0, 1], shape="2d")
    elif form == "kj":
        idx = "j + q" if miss == "skew" else "j"
        body = ["  for (int q = 0; q < k; q++) {", f"    {T} xq = x[q];", f"    for (int j = 0; j < {jbound}; j++)",
                f"      y[{idx}] += xq * A[q * n + j];", "  }"]
        params = [Param("k", "int", choices=(0, 1, 2, 3, 5)), Param("n", "int", size=True), Param("x", T, True, "k"),
                  Param("A", T, True, "k * n + 1"), Param("y", T, True, "n + k + 1")]
        spec = _spec(d, name, None, params, {"y"}, body, feats, [0, 1])
    else:  # paths
        helpers = [*ikj("fz_ab_ikj", True), "", *ijk("fz_ab_ijk", True)]
        body = ["  for (int i = 0; i < m; i++)", "    for (int j = 0; j < n; j++)", "      C[i * ldc + j] *= beta;",
                "  if (t)", "    fz_ab_ikj(m, n, k, alpha, A, lda, B, ldb, C, ldc);", "  else",
                "    fz_ab_ijk(m, n, k, alpha, A, lda, B, ldb, C, ldc);"]
        params = [Param("t", "int", choices=(0, 1, 2, -1)), *sizes, Param("alpha", T), mats[0], lds["lda"], mats[1],
                  lds["ldb"], Param("beta", T), mats[2], lds["ldc"]]
        spec = _spec(d, name, None, params, {"C"}, body, feats, [0, 1], shape="2d")
        spec.source = spec.source.replace(f"void {name}(", "\n".join(helpers) + f"\n\nvoid {name}(", 1)
    spec.features = sorted(feats)
    return spec
