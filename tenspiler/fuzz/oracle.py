"""The independent differential oracle of the fuzzer.

:func:`lift_spec` lifts a kernel through the public API (``tenspiler.lift``) and reduces the
outcome to plain data. :func:`judge` then, for a verified kernel, runs

* C: the source compiled by ``gcc`` three times into a small program whose ``main`` reads
  test cases from stdin and prints every array and the return value after the call --
  ``-O0 -fwrapv``, ``-O2`` and ``-O0 -fsanitize=address,undefined,...
  -fno-sanitize-recover=all``. A case on which the sanitizer build aborts (signed overflow,
  division by zero, out-of-bounds access, float-cast overflow) or on which ``-O0 -fwrapv``
  and ``-O2`` disagree has undefined behaviour in C: it is discarded, not a counterexample.
* C++ (the ``std::vector`` subset): the same three builds with ``g++ -std=c++17``, the
  sanitizer one also with ``-D_GLIBCXX_ASSERTIONS`` (an out-of-range ``v[i]``, e.g.
  ``x[0].size()`` of a tensor without planes, aborts: the case is discarded); vector
  parameters are built from the test case (every 3-D parameter of a kernel rectangular, of
  one shape: the tool assumes same-length rows), the returned vector printed flat.
* Python: the original function, executed from the module source (so rebound globals take
  their final value); a case on which it raises is discarded.

against the generated NumPy function on adversarial inputs (sizes 0..3 and larger, every
type's extremes, values straddling each constant of the program, wide random values; for
kernels with narrow or unsigned integer arrays also ``corner`` inputs, every array at the same
corner of its type per index; strides and other :attr:`Param.choices` scalars drawn from
their lists before the arrays are sized; negative sizes for guards).
Cases that violate the generated code's own precondition checks (``ValueError:
precondition violated``) are discarded too: the proof assumes them. Integers are compared
exactly; a kernel touching floating point is compared with a tolerance (the tool verifies
over the reals) and only gross disagreements count -- except an index it returns
(``KernelSpec.exact_return``: argmax), compared exactly, ties included (the ``repeat``
inputs draw each array from one to three values, so ties are frequent).

This module deliberately shares nothing with :mod:`tenspiler.check`.
"""

from __future__ import annotations

import hashlib
import math
import os
import random
import re
import shutil
import struct
import tempfile
import traceback
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tenspiler.budget import SAFETY_NET_S
from tenspiler.fuzz.spec import TYPES, CType, KernelSpec, Param
from tenspiler.runner import run_command

GCC = os.environ.get("TENSPILER_FUZZ_CC", "gcc")
GXX = os.environ.get("TENSPILER_FUZZ_CXX", "g++")
SAN_FLAGS = ["-O0", "-fsanitize=address,undefined,float-cast-overflow,float-divide-by-zero",
             "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
VARIANTS = {"O0wrapv": ["-O0", "-fwrapv"], "O2": ["-O2"], "san": SAN_FLAGS}

# ----------------------------------------------------------------------------- lifting


def lift_spec(spec: KernelSpec, timeout: float = 20.0, proof_timeout: float = SAFETY_NET_S,
              check: bool = False) -> dict[str, Any]:
    """Lift ``spec`` to NumPy; plain data: ``status`` is ``verified``, ``refused`` (a clean
    :class:`~tenspiler.errors.BadInput` or :class:`~tenspiler.errors.NotLiftable`), ``timeout``
    (a wall-clock safety net fired: ``timeout`` seconds of synthesis, ``proof_timeout`` per
    clause; the verdict's own budget is counted in work) or ``crash`` (any other exception,
    or an ``internal error`` the pipeline caught). ``check=True`` also runs the tool's own
    differential check (``lift --check``, the CLI default)."""
    import tenspiler
    from tenspiler.errors import InternalError, TenspilerError, WallClockTimeout

    try:
        res = tenspiler.lift(spec.source, to="numpy", language=spec.language, function=spec.function,
                             timeout=timeout, proof_timeout=proof_timeout, cache=False, check=check)
    except (tenspiler.BadInput, tenspiler.NotLiftable, InternalError) as err:
        r = err.result
        message = r.message if r is not None else str(err)
        status = r.status if r is not None else "error"
        if isinstance(err, InternalError) or "internal error" in message:
            return {"status": "crash", "message": message, "tool_status": status}
        return {"status": "refused", "message": message, "tool_status": status}
    except WallClockTimeout as err:
        return {"status": "timeout", "message": str(err)}
    except TenspilerError as err:  # lift() promises one of the four above
        return {"status": "crash", "message": f"{type(err).__name__} escaped lift(): {err}"}
    except Exception as err:
        return {"status": "crash", "message": f"{type(err).__name__}: {err}",
                "traceback": traceback.format_exc(limit=8)}
    return {"status": "verified", "summary": res.summary or "", "assumptions": list(res.assumptions),
            "code": res.code.get("numpy", ""), "message": ""}


def refusal_category(message: str) -> str:
    """The first words of a refusal's reason, locations and quoted names stripped."""
    m = re.sub(r"^.*?\(\w+\):\s*", "", message, count=1)  # "<fn> was not lifted (status): "
    m = re.sub(r"^[^\s:]*:\d+:\d+:\s*", "", m)  # file:line:col:
    m = re.sub(r"'[^']*'", "'_'", m)
    m = re.sub(r"\d+", "N", m)
    words = m.split()
    return " ".join(words[:5]) if words else "(empty)"


# ----------------------------------------------------------------------------- inputs


def _f32(x: float) -> float:
    return float(np.float32(x))


def _value_pool(t: CType, constants: list[float], rng: random.Random) -> list[Any]:
    if t.is_float:
        pool: list[float] = [0.0, 1.0, -1.0, 0.5, -0.5, 2.0, 3.0, -7.0, 0.1, 100.0, -100.0, 1e-3]
        for c in constants:
            c = float(c)
            if abs(c) > 1e6:
                continue
            pool += [c, -c, c + 1, c - 1, math.nextafter(c, math.inf), math.nextafter(c, -math.inf), _f32(c)]
            if t.bits == 32:
                f = np.float32(c)
                pool += [float(np.nextafter(f, np.float32(np.inf))), float(np.nextafter(f, np.float32(-np.inf)))]
        pool += [rng.uniform(-1000, 1000) for _ in range(4)] + [float(rng.randint(-20, 20)) for _ in range(4)]
        return [_f32(p) if t.bits == 32 else p for p in pool]
    pool_i = {t.lo, t.lo + 1, t.hi, t.hi - 1, 0, 1, 2, 3, 7, 127, 128, 255, 256, 65535, 65536,
              2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**32 - 1, 2**63 - 1, -(2**63), -1, -2}
    for c in constants:
        if isinstance(c, float) and not c.is_integer():
            pool_i |= {math.floor(c), math.ceil(c)}
            continue
        c = int(c)
        pool_i |= {c - 1, c, c + 1, -c}
    if t.bits >= 32:  # float rounding boundaries (int -> float conversions, Python int / int)
        pool_i |= {2**24 + 1, 2**24 + 3, -(2**24) - 1, 2**53 + 1, 2**53 + 3, -(2**53) - 1, 2**53 + 2**29 + 1}
    pool_i |= {rng.randint(t.lo, t.hi) for _ in range(4)}
    pool_i |= {rng.randint(-(1 << rng.randint(1, t.bits - 1)), 1 << rng.randint(1, t.bits - 1)) for _ in range(4)}
    return sorted(v for v in pool_i if t.lo <= v <= t.hi)


def round_int_to_float(v: int, mant: int) -> float:
    """``v`` rounded once, to nearest, ties to even, to a float of ``mant`` significand bits
    (24: float32, 53: double), computed exactly on integers (``float(np.float32(v))`` rounds
    twice: int -> double -> float32)."""
    if v == 0:
        return 0.0
    sign, a = (-1, -v) if v < 0 else (1, v)
    shift = a.bit_length() - mant
    if shift > 0:
        q, r = divmod(a, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        a = q << shift
    f = float(a)  # exact: a has at most mant (+1 after a carry, a power of two) significant bits
    if mant == 24 and f >= 2.0**128:
        return sign * math.inf
    return sign * f


def _rounding_ints(t: CType) -> list[int]:
    """Integers of ``t`` at and around the float rounding boundaries: 2**24, 2**53, 2**63
    (+-0..3), the midpoints between two floats above 2**k (``2**k + 2**(k - p)``, and the next
    one, which rounds the other way under ties-to-even) and their neighbours -- where an
    integer converted to float32 through double (``2**k + 2**(k - 24) + 1``, k >= 53) rounds
    differently from a single rounding -- and the values just below 2**63 that round up to it."""
    out: set[int] = set()
    for k in (24, 25, 31, 32, 53, 54, 62, 63):
        for dlt in range(-3, 4):
            out |= {2**k + dlt, -(2**k) - dlt}
    for p, ks in ((24, (24, 25, 30, 31, 40, 52, 53, 54, 55, 58, 61, 62)), (53, (53, 54, 55, 60, 62))):
        for k in ks:
            h = 2 ** (k - p)
            for base in (2**k + h, 2**k + 3 * h):
                for dlt in (-1, 0, 1):
                    out |= {base + dlt, -(base + dlt)}
        top = 2**63 - 2 ** (62 - p)  # half an ulp below 2**63
        out |= {top - 1, top, top + 1, -top - 1}
    return sorted(v for v in out if t.lo <= v <= t.hi)


def _hot_ints(t: CType) -> list[int]:
    """The integers of ``t`` whose conversion to float32 rounds differently through double
    (``2**k + 2**(k - 24) +- 1`` and the next midpoint, k = 53..62), where Python's ``int /
    int`` differs from ``float(a) / float(b)`` (``2**53 + 1``, ``2**53 + 3``) and the 32-bit
    ones next to 2**24 and 2**31: the anchors of the ``boundary`` inputs."""
    out: set[int] = {2**24 + 1, 2**24 + 3, -(2**24) - 1, 2**31 - 1, -(2**31), 2**53 + 1, 2**53 + 3, -(2**53) - 3,
                     2**54 + 1, 2**54 + 3, 2**62 + 2**9 + 1}
    for k in range(53, 63):
        h = 2 ** (k - 24)
        # above the midpoint that ties down to 2**k, below the one that ties up: through
        # double these land on the midpoint and round the other way
        out |= {2**k + h + 1, 2**k + 3 * h - 1, -(2**k + h + 1)}
    return sorted(v for v in out if t.lo <= v <= t.hi)


def _float_images(v: int, t: CType) -> list[float]:
    """Float values of type ``t`` near the integer ``v``: its correct rounding, the
    double-rounded one (through double), and the neighbours of the correct one."""
    if t.bits == 32:
        right = round_int_to_float(v, 24)
        if not math.isfinite(right):
            return [_f32(3.0e38)]
        r32 = np.float32(right)
        twice = float(np.float32(float(v)))
        return [right, right, twice, float(np.nextafter(r32, np.float32(np.inf))),
                float(np.nextafter(r32, np.float32(-np.inf)))]
    right = float(v)  # Python's int -> float is correctly rounded
    return [right, right, math.nextafter(right, math.inf), math.nextafter(right, -math.inf)]


def mixes_int_float(spec: KernelSpec) -> bool:
    """A kernel with a 32- or 64-bit integer parameter and a float one (conversions between
    them), or Python integer parameters of 64 bits (``int / int`` true division)."""
    types = [TYPES[p.ctype] for p in spec.params if not p.size and not p.index and not p.choices]
    wide = any(not t.is_float and t.bits >= 32 for t in types)
    if spec.language == "python":
        return any(not t.is_float and t.bits == 64 for t in types)
    return wide and any(t.is_float for t in types)


def _big_sizes(spec: KernelSpec) -> list[int]:
    """Lengths around the kernel's literals 18..1100 (C++ and Python: ``v.size() / 256``
    differs from 0 only from 256 elements on)."""
    if spec.language not in ("cxx", "python") or spec.shape != "1d":
        return []
    out: set[int] = set()
    for c in spec.constants:
        if isinstance(c, (int, float)) and float(c).is_integer() and 18 <= c <= 1100:
            out |= {int(c) - 1, int(c), int(c) + 1}
    return sorted(out)


def _small(t: CType, rng: random.Random) -> Any:
    if t.is_float:
        v = rng.choice([float(rng.randint(-9, 9)), rng.randint(-40, 40) / 4, rng.uniform(-10, 10)])
        return _f32(v) if t.bits == 32 else v
    lo, hi = max(t.lo, -12), min(t.hi, 12)
    return rng.randint(lo, hi)


def _tight(t: CType, constants: list[float]) -> list[Any]:
    """Values exactly at and next to each constant: c - 1, c, c + 1 for integers; for reals
    c, its float32 rounding and their neighbours (where float and double comparisons differ)."""
    out: list[Any] = []
    for c in constants:
        if t.is_float:
            c = float(c)
            if abs(c) > 1e30:
                continue
            f = np.float32(c)
            vals = [c, float(f), float(np.nextafter(f, np.float32(np.inf))), float(np.nextafter(f, np.float32(-np.inf))),
                    math.nextafter(c, math.inf), math.nextafter(c, -math.inf)]
            out += [_f32(v) if t.bits == 32 else v for v in vals]
        else:
            out += [v for v in (math.floor(c) - 1, math.floor(c), math.ceil(c), math.ceil(c) + 1) if t.lo <= v <= t.hi]
    return out


#: ``corner`` inputs: every integer array takes, at each index, the same corner of its own type
#: (so ``a[i] * b[i]`` meets ``-32768 * -32768``, ``255 + 255``, ``0 - 1``, ``INT_MIN / -1``)
_CORNERS = ["lo", "lo", "lo+1", "hi", "hi", "hi-1", "0", "-1", "1", "mid"]


def _corner(t: CType, rank: str) -> int:
    v = {"lo": t.lo, "lo+1": t.lo + 1, "hi": t.hi, "hi-1": t.hi - 1, "0": 0, "-1": -1, "1": 1,
         "mid": (t.hi + 1) // 2}[rank]
    return v if t.lo <= v <= t.hi else t.hi


def corner_kernel(spec: KernelSpec) -> bool:
    """A kernel with an integer array narrower than 64 bits or unsigned (products of extremes
    overflow the type after promotion, narrow stores wrap, unsigned subtraction wraps): it
    gets the ``corner`` inputs too."""
    return any(p.array and not TYPES[p.ctype].is_float and (TYPES[p.ctype].bits < 64 or not TYPES[p.ctype].signed)
               for p in spec.params if p.ctype in TYPES)


_SIZES_1D = [0, 1, 2, 3, 1, 2, 3, 4, 5, 8, 17]
_SIZES_2D = [(0, 0), (0, 3), (3, 0), (1, 1), (1, 2), (2, 1), (2, 2), (2, 3), (3, 2), (3, 3), (4, 5)]
#: planes x rows x cols of the 3-D parameters (zero planes, zero rows, zero columns first)
_SIZES_3D = [(0, 0, 0), (1, 1, 1), (2, 0, 3), (2, 3, 0), (1, 2, 3), (2, 2, 2), (3, 1, 2), (0, 2, 2), (2, 3, 4),
             (3, 3, 1), (1, 4, 2), (4, 2, 3)]


@dataclass
class Case:
    """One input: parameter name -> value (a scalar or a list)."""

    values: dict[str, Any]
    mode: str


def make_cases(spec: KernelSpec, rng: random.Random, count: int = 48) -> list[Case]:
    consts = list(spec.constants)
    pools = {p.name: _value_pool(TYPES[p.ctype], consts, rng) for p in spec.params if not p.size}
    tight = {p.name: _tight(TYPES[p.ctype], consts) for p in spec.params if not p.size}
    cases: list[Case] = []
    modes = ["small", "extreme", "mixed", "straddle", "repeat"]
    bounds: dict[str, list[int]] = {}
    if mixes_int_float(spec):
        # integers at float rounding boundaries, floats at their (correct and wrong) roundings
        modes += ["boundary", "boundary"]
        bounds = {p.name: _rounding_ints(TYPES[p.ctype]) for p in spec.params
                  if not p.size and not p.index and not TYPES[p.ctype].is_float}
    if corner_kernel(spec):
        modes.append("corner")
    widest = max((TYPES[p.ctype] for p in spec.params if p.name in bounds), key=lambda t: t.bits, default=None)
    hot = _hot_ints(widest) if widest is not None else []
    sizes_1d = _SIZES_1D + _big_sizes(spec)
    python = spec.language == "python"
    for idx in range(count):
        mode = modes[idx % len(modes)]
        a0 = rng.choice(hot) if hot else 2**53 + 1
        r = rng.random()
        # one anchor (every operand meets the same boundary), two neighbours (a / b next
        # to 1.0: 2**53 + 1 and 2**53 are one double apart) or two unrelated ones
        anchors = [a0] if r < 0.35 else [a0, a0 + rng.choice([-2, -1, 1, 2])] if r < 0.75 else \
            [a0, rng.choice(hot) if hot else 2**24 + 1]
        dims3 = (0, 0, 0)
        if spec.shape == "2d":
            m, n = _SIZES_2D[idx % len(_SIZES_2D)] if idx < 2 * len(_SIZES_2D) else (rng.randint(0, 5), rng.randint(0, 5))
        elif spec.shape == "3d":
            dims3 = _SIZES_3D[idx % len(_SIZES_3D)] if idx < 2 * len(_SIZES_3D) else \
                (rng.randint(0, 4), rng.randint(0, 4), rng.randint(0, 4))
            m, n = 0, 0
        else:
            m, n = 0, (sizes_1d[idx % len(sizes_1d)] if idx < 2 * len(sizes_1d) else rng.randint(0, 12))
        if spec.negative_sizes and idx % 5 == 4:
            # a guard's case (``if (n <= 0) return;``): every array of a negative extent is empty
            n = rng.choice([-1, -1, -2, -7, -(2**31)])
        if spec.min_size:
            m, n = max(m, spec.min_size), max(n, spec.min_size)
        vals: dict[str, Any] = {}
        # small indices and drawn scalars (strides) first: the extents of the arrays may name them
        for p in spec.params:
            if p.index:
                vals[p.name] = rng.choice([0, 0, 1, 1, 2, 3])
            elif p.choices:
                vals[p.name] = p.choices[idx % len(p.choices)] if idx < len(p.choices) else rng.choice(p.choices)
        scope = {"n": n, "m": m, **{p.name: vals[p.name] for p in spec.params if p.index or p.choices}}
        first3 = True

        def draw(p: Param, mode: str = mode, anchors: list[int] = anchors) -> Any:
            t = TYPES[p.ctype]
            if mode == "boundary" and (python or rng.random() < 0.85):
                # one of the case's anchors (so that a float and an integer operand meet at
                # a rounding boundary), or its float images; never 0 in Python (a zero divisor
                # raises, and the quotient rounded twice would go unseen)
                if t.is_float:
                    return rng.choice(_float_images(rng.choice(anchors), t))
                fits = [a for a in anchors if t.lo <= a <= t.hi]
                if fits and rng.random() < (0.55 if python else 0.7):
                    return rng.choice(fits)
                if python and rng.random() < 0.7:  # a small divisor of a big int: 2**53 + 1 / 3
                    return rng.choice([1, 2, 3, 3, 7, 10, -3])
                return rng.choice(bounds.get(p.name) or [x for x in pools[p.name] if x] or [1])
            if mode == "corner":
                mode = "extreme"
            if mode == "small" or (mode == "mixed" and rng.random() < 0.6):
                return _small(t, rng)
            if mode == "straddle" and rng.random() < 0.6:
                near = tight.get(p.name) or []
                if near:
                    return rng.choice(near)
            return rng.choice(pools[p.name])

        palettes: dict[str, list[Any]] = {}
        ranks: list[str] = []  # ``corner`` mode: element t of every integer array at corner ranks[t]

        def element(p: Param, mode: str = mode, palettes: dict[str, list[Any]] = palettes) -> Any:
            """An array element; in ``repeat`` mode one of 1-3 values per array (ties:
            an argmax must pick the first / last of equal values exactly as the loop does)."""
            if mode != "repeat":
                return draw(p)
            if p.name not in palettes:
                palettes[p.name] = [draw(p, rng.choice(["small", "small", "extreme", "straddle"]))
                                    for _ in range(rng.choice([1, 2, 2, 3]))]
            return rng.choice(palettes[p.name])

        for p in spec.params:
            if p.index or p.choices:
                continue
            if p.size:
                vals[p.name] = m if p.name == "m" else n
            elif p.array:
                if p.extent == "2d":
                    vals[p.name] = [[element(p) for _ in range(n)] for _ in range(m)]
                    continue
                if p.extent == "3d":
                    P, R, C = dims3
                    if not first3 and idx % 8 == 7:
                        # a second tensor with more planes / rows than the first (same columns):
                        # the loops are bounded by the first, so the kernel reads a part of it
                        P, R = P + rng.randint(0, 1), R + rng.randint(0, 1)
                    first3 = False
                    vals[p.name] = [[[element(p) for _ in range(C)] for _ in range(R)] for _ in range(P)]
                    continue
                length = n if p.extent == "cols" else int(eval(p.extent or "n", dict(scope)))
                if mode == "corner" and not TYPES[p.ctype].is_float:
                    while len(ranks) < length:
                        ranks.append(rng.choice(_CORNERS))
                    vals[p.name] = [_corner(TYPES[p.ctype], r) for r in ranks[:max(length, 0)]]
                    continue
                vals[p.name] = [element(p) for _ in range(max(length, 0))]
            else:
                vals[p.name] = draw(p)
        if spec.language == "python" and spec.shape == "2d" and m == 0:
            continue  # len(m[0]) of an empty matrix raises in Python: no result to compare
        cases.append(Case(vals, mode))
    return cases


# ----------------------------------------------------------------------------- C harness


def _rd(t: CType) -> str:
    return "fz_rf()" if t.is_float else ("fz_ru()" if not t.signed else "fz_ri()")


def _pr(t: CType, expr: str) -> str:
    if t.is_float:
        return f'printf(" %a", (double)({expr}));'
    if t.signed:
        return f'printf(" %lld", (long long)({expr}));'
    return f'printf(" %llu", (unsigned long long)({expr}));'


def harness(spec: KernelSpec) -> str:
    if spec.language == "cxx":
        return harness_cxx(spec)
    lines = [spec.source, "", "#include <stdio.h>", "#include <stdlib.h>",
             "static long long fz_ri(void) { long long v; if (scanf(\"%lld\", &v) != 1) exit(97); return v; }",
             "static unsigned long long fz_ru(void) { unsigned long long v; if (scanf(\"%llu\", &v) != 1) exit(97); return v; }",
             "static double fz_rf(void) { char b[128]; if (scanf(\"%127s\", b) != 1) exit(97); return strtod(b, 0); }",
             "int main(void) {", "  long long fz__cases = fz_ri();",
             "  for (long long fz__c = 0; fz__c < fz__cases; fz__c++) {"]
    for p in spec.params:
        t = TYPES[p.ctype]
        if p.array:
            lines += [f"    long long fz__len_{p.name} = fz_ri();",
                      f"    {p.ctype} *fz_{p.name} = ({p.ctype} *)malloc(fz__len_{p.name} ? fz__len_{p.name} * sizeof({p.ctype}) : 1);",
                      f"    for (long long fz__t = 0; fz__t < fz__len_{p.name}; fz__t++) fz_{p.name}[fz__t] = ({p.ctype}){_rd(t)};"]
        else:
            lines.append(f"    {p.ctype} fz_{p.name} = ({p.ctype}){_rd(t)};")
    # an array through ``void *``: a 2-D / 3-D array parameter (``T A[m][n]``) takes the flat buffer
    args = ", ".join(f"(void *)fz_{p.name}" if p.array else f"fz_{p.name}" for p in spec.params)
    if spec.ret:
        lines.append(f"    {spec.ret} fz__r = {spec.function}({args});")
    else:
        lines.append(f"    {spec.function}({args});")
    lines.append('    printf("case %lld\\n", fz__c);')
    if spec.ret:
        lines += ['    printf("ret");', "    " + _pr(TYPES[spec.ret], "fz__r"), '    printf("\\n");']
    for p in spec.params:
        if p.array:
            lines += [f'    printf("{p.name}");',
                      f"    for (long long fz__t = 0; fz__t < fz__len_{p.name}; fz__t++) {_pr(TYPES[p.ctype], f'fz_{p.name}[fz__t]')}",
                      '    printf("\\n");', f"    free(fz_{p.name});"]
    lines += ["    fflush(stdout);", "  }", "  return 0;", "}", ""]
    return "\n".join(lines)


_CXX_PRELUDE = r"""
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <vector>
static long long fz_ri(void) { long long v; if (scanf("%lld", &v) != 1) exit(97); return v; }
static unsigned long long fz_ru(void) { unsigned long long v; if (scanf("%llu", &v) != 1) exit(97); return v; }
static double fz_rf(void) { char b[128]; if (scanf("%127s", b) != 1) exit(97); return strtod(b, 0); }
template <class T> static T fz_rd() {
  if constexpr (std::is_floating_point<T>::value) return (T)fz_rf();
  else if constexpr (std::is_signed<T>::value) return (T)fz_ri();
  else return (T)fz_ru();
}
template <class T> static void fz_pr(const T &v) {
  if constexpr (std::is_floating_point<T>::value) printf(" %a", (double)v);
  else if constexpr (std::is_signed<T>::value) printf(" %lld", (long long)v);
  else printf(" %llu", (unsigned long long)v);
}
template <class T> static void fz_pr(const std::vector<T> &v) { for (const auto &e : v) fz_pr(e); }
template <class T> static std::vector<T> fz_v1() {
  long long n = fz_ri(); std::vector<T> v;
  for (long long i = 0; i < n; i++) v.push_back(fz_rd<T>());
  return v;
}
template <class T> static std::vector<std::vector<T>> fz_v2() {
  long long r = fz_ri(); long long c = fz_ri(); std::vector<std::vector<T>> v(r);
  for (auto &row : v) for (long long j = 0; j < c; j++) row.push_back(fz_rd<T>());
  return v;
}
template <class T> static std::vector<std::vector<std::vector<T>>> fz_v3() {
  long long p = fz_ri(); long long r = fz_ri(); long long c = fz_ri(); std::vector<std::vector<std::vector<T>>> v(p);
  for (auto &pl : v) { pl.resize(r); for (auto &row : pl) for (long long j = 0; j < c; j++) row.push_back(fz_rd<T>()); }
  return v;
}
"""


def cxx_elem(ret: str) -> tuple[str, int]:
    """The element type and nesting depth of a C++ type: ``vector<vector<float>>`` -> ("float", 2)."""
    t = " ".join(ret.replace("std::", "").split())
    depth = 0
    while t.replace(" ", "").startswith("vector<"):
        t = t.split("<", 1)[1].rsplit(">", 1)[0].strip()
        depth += 1
    return t, depth


def _dims(v: Any, rank: int) -> list[int]:
    """The shape of a rectangular nested list of ``rank`` levels (an empty level: 0 below it)."""
    out: list[int] = []
    for _ in range(rank):
        out.append(len(v))
        v = v[0] if v else []
    return out


def harness_cxx(spec: KernelSpec) -> str:
    """A C++ program around ``spec.source``: per case, builds the vector parameters (1-D,
    2-D or 3-D, rectangular) and scalars from stdin, calls the kernel and prints its result
    flat (``ret v0 v1 ...``)."""
    lines = [spec.source, _CXX_PRELUDE, "int main(void) {", "  long long fz__cases = fz_ri();",
             "  for (long long fz__c = 0; fz__c < fz__cases; fz__c++) {"]
    for p in spec.params:
        if p.array:
            rank = {"3d": 3, "2d": 2}.get(p.extent or "", 1)
            lines.append(f"    auto fz_{p.name} = fz_v{rank}<{p.ctype}>();")
        else:
            lines.append(f"    {p.ctype} fz_{p.name} = fz_rd<{p.ctype}>();")
    args = ", ".join(f"fz_{p.name}" for p in spec.params)
    lines += [f"    auto fz__r = {spec.function}({args});", '    printf("case %lld\\nret", fz__c);', "    fz_pr(fz__r);",
              '    printf("\\n");', "    fflush(stdout);", "  }", "  return 0;", "}", ""]
    return "\n".join(lines)


def _fmt(t: CType, v: Any) -> str:
    return float(v).hex() if t.is_float else str(int(v))


def encode_cases(spec: KernelSpec, cases: list[Case]) -> str:
    out = [str(len(cases))]
    for c in cases:
        for p in spec.params:
            t = TYPES[p.ctype]
            v = c.values[p.name]
            if p.array and spec.language == "cxx" and p.extent in ("2d", "3d"):
                dims = _dims(v, 3 if p.extent == "3d" else 2)
                out.append(" ".join([str(x) for x in dims] + [_fmt(t, x) for x in _flat(v)]))
            elif p.array:
                out.append(" ".join([str(len(v))] + [_fmt(t, x) for x in v]))
            else:
                out.append(_fmt(t, v))
    return "\n".join(out) + "\n"


def _parse_num(t: CType, s: str) -> Any:
    return float.fromhex(s) if t.is_float else int(s)


def parse_output(spec: KernelSpec, text: str) -> list[dict[str, Any]]:
    """Completed cases, in order: {"ret": v, array name: [..]}."""
    types = {p.name: TYPES[p.ctype] for p in spec.params}
    ret_list = False
    if spec.language == "cxx" and spec.ret:
        elem, depth = cxx_elem(spec.ret)
        types["ret"], ret_list = TYPES[elem], depth > 0
    elif spec.ret:
        types["ret"] = TYPES[spec.ret]
    results: list[dict[str, Any]] = []
    cur: dict[str, Any] | None = None
    printed = 0 if spec.language == "cxx" else sum(p.array for p in spec.params)
    expected = 1 + (1 if spec.ret else 0) + printed
    seen = 0
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "case":
            cur, seen = {}, 1
            continue
        if cur is None:
            continue
        t = types[parts[0]]
        vals = [_parse_num(t, s) for s in parts[1:]]
        cur[parts[0]] = vals[0] if parts[0] == "ret" and not ret_list else vals
        seen += 1
        if seen == expected:
            results.append(cur)
            cur = None
    return results


@dataclass
class CBuild:
    dir: Path
    binaries: dict[str, Path]
    error: str = ""


def build_c(spec: KernelSpec, workdir: Path) -> CBuild:
    cxx = spec.language == "cxx"
    src = workdir / ("k.cc" if cxx else "k.c")
    src.write_text(harness(spec), encoding="utf-8")
    cmds = {}
    for name, flags in VARIANTS.items():
        exe = workdir / f"k_{name}"
        cmd = [GXX, "-std=c++17", *flags] + (["-D_GLIBCXX_ASSERTIONS"] if name == "san" else []) if cxx else [GCC, *flags]
        cmds[name] = (exe, [*cmd, "-w", "-o", str(exe), str(src), "-lm"])
    with ThreadPoolExecutor(len(cmds)) as pool:  # the builds run side by side
        done = {name: pool.submit(run_command, cmd, 120) for name, (_exe, cmd) in cmds.items()}
        results = {name: f.result() for name, f in done.items()}
    error = ""
    for name, r in results.items():
        if r.returncode != 0 and not error:
            error = f"{name}: {r.stderr.strip()[:2000]}"
    return CBuild(workdir, {n: e for n, (e, _cmd) in cmds.items()}, error)


def _run(exe: Path, data: str) -> tuple[int, str, str]:
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=0", UBSAN_OPTIONS="print_stacktrace=0")
    p = run_command([str(exe)], 30, env=env, input=data)
    if p.timed_out:
        return -999, "", "timeout"
    return p.returncode, p.stdout, p.stderr


def _run_all(spec: KernelSpec, exe: Path, cases: list[Case]) -> tuple[list[dict[str, Any] | None], list[str]]:
    """Run ``cases`` through one build; a case on which the program dies gets ``None`` (and
    the first line of its error), the program is restarted after it."""
    res: list[dict[str, Any] | None] = [None] * len(cases)
    notes = [""] * len(cases)
    start = 0
    while start < len(cases):
        rc, out, err = _run(exe, encode_cases(spec, cases[start:]))
        done = parse_output(spec, out)
        for j, d in enumerate(done[: len(cases) - start]):
            res[start + j] = d
        if rc == 0 and len(done) >= len(cases) - start:
            break
        bad = start + len(done)
        if bad >= len(cases):
            break
        first = next((ln for ln in err.splitlines() if "runtime error" in ln or "ERROR: AddressSanitizer" in ln),
                     err.strip()[:200] or f"exit code {rc}")
        notes[bad] = re.sub(r"^.*?runtime error: ", "", first)[:160]
        start = bad + 1
    return res, notes


def run_c(spec: KernelSpec, build: CBuild, cases: list[Case]) -> tuple[list[dict[str, Any] | None], list[str]]:
    """Per case: the C outputs, or ``None`` when the case has undefined behaviour (the
    sanitizer build aborts on it, or -O0 -fwrapv and -O2 disagree). Also the reasons."""
    san, san_notes = _run_all(spec, build.binaries["san"], cases)
    notes = ["sanitizer: " + n if r is None else "" for r, n in zip(san, san_notes, strict=True)]
    valid = [i for i, r in enumerate(san) if r is not None]
    sub = [cases[i] for i in valid]
    o0, _ = _run_all(spec, build.binaries["O0wrapv"], sub)
    o2, _ = _run_all(spec, build.binaries["O2"], sub)
    res: list[dict[str, Any] | None] = [None] * len(cases)
    for k, i in enumerate(valid):
        a, b = o0[k], o2[k]
        if a is None or b is None:
            notes[i] = "-O0 -fwrapv or -O2 build died on a sanitizer-clean case"
        elif not _same_bits(a, b):
            notes[i] = "-O0 -fwrapv and -O2 disagree"
        else:
            res[i] = a
    return res, notes


def _same_bits(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return repr(a) == repr(b)


# ----------------------------------------------------------------------------- NumPy side


def load_generated(code: str, function: str) -> Any:
    ns: dict[str, Any] = {"__name__": "tenspiler_fuzz_generated"}
    exec(compile(code, f"<generated {function}>", "exec"), ns)
    return ns[function]


def output_names(spec: KernelSpec, summary: str) -> list[str]:
    """The generated function's outputs in order: ``return`` and written array parameters
    (summary lines for locals are not returned)."""
    arrays = {p.name for p in spec.params if p.array}
    names: list[str] = []
    for line in summary.splitlines():
        # (a block of rows: ``C[lo:hi].rows(ldc)[:, :n] = ...``)
        m = re.match(r"\s*(\w+)\s*(\[[^\]]*\])?(?:\.rows\(.+?\)\[[^\]]*\])?\s*=", line)
        if not m:
            continue
        name = m.group(1)
        if (name == "return" or (m.group(2) and name in arrays)) and name not in names:
            names.append(name)
    return names


def _np_arg(t: CType, v: Any, p: Param | None = None) -> Any:
    if p is not None and p.extent == "3d":
        # a 3-D array of the exact shape: nested lists with an empty level ([[], []]) do not
        # say how many columns there are
        dt = (np.float32 if t.bits == 32 else np.float64) if t.is_float else np.int64
        return np.array(_flat(v), dtype=dt).reshape(_dims(v, 3))
    if isinstance(v, list):
        if t.is_float:
            return np.array(v, dtype=np.float32 if t.bits == 32 else np.float64)
        return list(v)
    return v


def _flat(x: Any) -> list[Any]:
    if isinstance(x, np.ndarray):
        return x.reshape(-1).tolist()
    if isinstance(x, (list, tuple)):
        out: list[Any] = []
        for e in x:
            out.extend(_flat(e))
        return out
    if isinstance(x, np.generic):
        return [x.item()]
    return [x]


# ----------------------------------------------------------------------------- comparison


def is_float_kernel(spec: KernelSpec) -> bool:
    if any(TYPES[p.ctype].is_float for p in spec.params):
        return True
    if spec.ret in ("float", "double"):
        return True
    if any(isinstance(c, float) and not float(c).is_integer() for c in spec.constants):
        return True
    code = re.sub(r"//[^\n]*|/\*.*?\*/", " ", spec.source, flags=re.S)
    return bool(re.search(r"\bfloat\b|\bdouble\b|\d\.\d*|\d[eE][+-]?\d", code)) if spec.language in ("c", "cxx") else \
        any("float" in p.ctype or "double" in p.ctype for p in spec.params)


def _float_atol(spec: KernelSpec, case: Case) -> float:
    """Absolute tolerance of a float kernel on ``case``: the tool verifies over the reals, so
    each rounding may contribute an error of one ulp of the largest magnitude in play (a
    float32 sum of values near 2**31 is off by hundreds); gross errors stay far above this."""
    mags = [abs(float(x)) for v in case.values.values() for x in (_flat(v) if isinstance(v, list) else [v])
            if isinstance(x, (int, float)) and math.isfinite(float(x))]
    scale = max(mags, default=1.0)
    length = max((len(_flat(v)) for v in case.values.values() if isinstance(v, list)), default=0)
    narrow = any(TYPES[p.ctype].bits == 32 and TYPES[p.ctype].is_float for p in spec.params) or spec.ret == "float" \
        or bool(re.search(r"\bfloat\b|\d[fF]\b", spec.source))
    return (2.0**-20 if narrow else 2.0**-48) * scale * _op_count(spec) * (length + 2)


def _op_count(spec: KernelSpec) -> float:
    return float(max(1, spec.source.count("*") + spec.source.count("+") + spec.source.count("-")))


def _close(want: Any, got: Any, floaty: bool, atol: float = 0.0) -> tuple[bool, bool]:
    """(agrees, bit-identical)."""
    try:
        if isinstance(want, float) or isinstance(got, float) or floaty:
            w, g = float(want), float(got)
            if w == g or (math.isnan(w) and math.isnan(g)):
                return True, True
            if not floaty:
                return False, False
            if math.isnan(w) or math.isnan(g) or math.isinf(w) or math.isinf(g):
                return (math.isinf(w) and math.isinf(g) and w == g), False
            return abs(w - g) <= max(1e-2 * max(1.0, abs(w), abs(g)), atol), False
        return int(want) == int(got), int(want) == int(got)
    except (TypeError, ValueError, OverflowError):
        return False, False


@dataclass
class Verdict:
    cls: str  # agrees | VERIFIED-BUT-WRONG | VERIFIED-INVALID-C | no-valid-input
    detail: str = ""
    counterexample: dict[str, Any] | None = None
    c_output: Any = None
    numpy_output: Any = None
    tested: int = 0
    discarded_ub: int = 0
    discarded_pre: int = 0
    inexact_float: bool = False
    float_width_mismatch: bool = False
    notes: list[str] = field(default_factory=list)
    #: cases on which Python raised and the generated code raised the same class
    raised_agree: int = 0
    #: a second counterexample of the other kind (Python kernels: a value where the first
    #: one is a raise, or the reverse): cls, detail, counterexample, reference, generated
    also: dict[str, Any] | None = None


def judge(spec: KernelSpec, lifted: dict[str, Any], seed: int = 0, count: int = 48,
          workdir: Path | None = None, extra_cases: list[Case] | None = None) -> Verdict:
    """Run a verified kernel's generated NumPy code against the reference on adversarial
    inputs (``extra_cases`` first); the first disagreement is returned as a counterexample."""
    rng = random.Random(seed * 1_000_003 + int(hashlib.sha256(spec.source.encode()).hexdigest()[:8], 16))
    cases = list(extra_cases or []) + make_cases(spec, rng, count)
    try:
        fn = load_generated(lifted["code"], spec.function)
    except Exception as e:
        return Verdict("VERIFIED-BUT-WRONG", f"generated code does not load: {type(e).__name__}: {e}")
    names = output_names(spec, lifted.get("summary", ""))
    if spec.language == "python":
        refs, notes = run_python(spec, cases)
    else:
        tmp = Path(tempfile.mkdtemp(prefix="fuzzc_", dir=workdir))
        try:
            build = build_c(spec, tmp)
            if build.error:
                return Verdict("VERIFIED-INVALID-C", "gcc rejects the verified kernel: " + build.error[:600])
            refs, notes = run_c(spec, build, cases)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    floaty = is_float_kernel(spec) and not spec.exact  # exact kernels: bit for bit
    v = _judge_cases(spec, lifted, fn, names, cases, refs, notes, floaty)
    if v.cls in ("VERIFIED-BUT-WRONG", "PRECONDITION-NOT-CHECKED") and spec.language == "python":
        # one counterexample of the other kind too (a raise where Python raises / a value
        # where it returns one): a ZeroDivisionError must not hide a wrong quotient
        first_raise = v.detail.startswith("Python raises")
        keep = [i for i, r in enumerate(refs) if r is not None and isinstance(r, Raised) != first_raise]
        w = _judge_cases(spec, lifted, fn, names, [cases[i] for i in keep], [refs[i] for i in keep],
                         [notes[i] for i in keep], floaty)
        if w.cls in ("VERIFIED-BUT-WRONG", "PRECONDITION-NOT-CHECKED"):
            v.also = {"cls": w.cls, "detail": w.detail, "counterexample": w.counterexample,
                      "reference": w.c_output, "generated": w.numpy_output}
    return v


def _judge_cases(spec: KernelSpec, lifted: dict[str, Any], fn: Any, names: list[str], cases: list[Case],
                 refs: list[Any], notes: list[str], floaty: bool) -> Verdict:
    v = Verdict("agrees")
    types = {p.name: TYPES[p.ctype] for p in spec.params}
    for case, ref, note in zip(cases, refs, notes, strict=True):
        if ref is None:
            v.discarded_ub += 1
            if note and len(v.notes) < 5:
                v.notes.append(note)
            continue
        args = [_np_arg(types[p.name], case.values[p.name], p) for p in spec.params]
        if isinstance(ref, Raised):
            w = _judge_raise(v, case, ref, fn, args, lifted.get("assumptions", []))
            if w is not None:
                return w
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                got = fn(*args)
        except ValueError as e:
            if "precondition" in str(e):
                v.discarded_pre += 1
                msg = "precondition refused an input C/Python accepts: " + str(e)[:120]
                if msg not in v.notes and len(v.notes) < 8:
                    v.notes.append(msg)
                continue
            return _wrong(v, case, ref, f"generated code raised ValueError: {e}", None)
        except Exception as e:
            return _wrong(v, case, ref, f"generated code raised {type(e).__name__}: {e}", None)
        bad = compare(spec, names, case, ref, got, floaty, v)
        broken = violated_assumptions(lifted.get("assumptions", []), case.values)
        if broken:
            # the proof assumed something this input violates: not a counterexample to the
            # proof, but the generated code promises to check its preconditions (ValueError)
            v.discarded_pre += 1
            if bad:
                w = _wrong(v, case, ref, f"stated precondition {broken[0]!r} is violated but the generated code "
                                         f"does not check it, and returns a wrong result ({bad})", got)
                w.cls = "PRECONDITION-NOT-CHECKED"
                return w
            continue
        v.tested += 1
        if bad:
            return _wrong(v, case, ref, bad, got)
    if v.tested == 0:
        v.cls = "no-valid-input"
    return v


def _judge_raise(v: Verdict, case: Case, ref: Raised, fn: Any, args: list[Any],
                 assumptions: list[str]) -> Verdict | None:
    """The Python function raised ``ref.cls`` on ``case``: the generated code must raise an
    instance of it (a subclass allowed). Anything else -- a value, another exception, also a
    ``ValueError: precondition ...`` where Python raises ``IndexError`` or
    ``ZeroDivisionError`` -- is a counterexample (``None``: no counterexample). A
    ``ValueError`` is accepted where Python raises ``ValueError`` (``max([])``,
    ``math.sqrt(-1.0)``)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            got = fn(*args)
    except Exception as e:
        if isinstance(e, ref.cls):
            v.tested += 1
            v.raised_agree += 1
            return None
        return _wrong(v, case, ref.describe(), f"Python raises {ref.cls.__name__} ({ref.message}), the generated "
                                               f"code raises {type(e).__name__}: {str(e)[:160]}",
                      f"raises {type(e).__name__}: {str(e)[:160]}")
    broken = violated_assumptions(assumptions, case.values)
    w = _wrong(v, case, ref.describe(), f"Python raises {ref.cls.__name__} ({ref.message}), the generated code "
                                        "returns a value" + (f" (and does not check the stated precondition "
                                                             f"{broken[0]!r})" if broken else ""), got)
    if broken:
        w.cls = "PRECONDITION-NOT-CHECKED"
    return w


_ASSUMPTION = re.compile(r":\s*([\w\s+\-*()]+?)\s*(<=|<|>=|>|==|!=)\s*([\w\s+\-*()]+?)\s*$")


def violated_assumptions(assumptions: list[str], values: dict[str, Any]) -> list[str]:
    """The stated assumptions of the form ``...: E1 op E2`` over scalar parameters (e.g.
    "the loop runs a non-negative number of times: 1 <= n") that ``values`` violates;
    assumptions the oracle cannot evaluate are skipped."""
    scalars = {k: v for k, v in values.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    for k, v in values.items():  # the lengths of lists / vectors, as the tool names them
        if isinstance(v, list):
            scalars.setdefault(f"{k}__size", len(v))
            scalars.setdefault(f"{k}__rows", len(v))
            if v and isinstance(v[0], list):
                scalars.setdefault(f"{k}__cols", len(v[0]))
    out = []
    for text in assumptions:
        m = _ASSUMPTION.search(text)
        if not m:
            continue
        names = set(re.findall(r"[A-Za-z_]\w*", m.group(1) + " " + m.group(3)))
        if not names <= set(scalars):
            continue
        try:
            ok = eval(f"({m.group(1)}) {m.group(2)} ({m.group(3)})", {"__builtins__": {}}, dict(scalars))
        except Exception:
            continue
        if not ok:
            out.append(text)
    return out


def _jsonable(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, (list, tuple)):
        return [_jsonable(e) for e in x]
    if isinstance(x, dict):
        return {k: _jsonable(e) for k, e in x.items()}
    if isinstance(x, np.generic):
        return x.item()
    return x


def _wrong(v: Verdict, case: Case, ref: Any, detail: str, got: Any) -> Verdict:
    v.cls = "VERIFIED-BUT-WRONG"
    v.detail = detail
    v.counterexample = _jsonable(case.values)
    v.c_output = _jsonable(ref)
    v.numpy_output = _jsonable(got)
    return v


def compare(spec: KernelSpec, names: list[str], case: Case, ref: Any, got: Any, floaty: bool, v: Verdict) -> str:
    """'' when the generated outputs agree with the reference, else what differs."""
    atol = _float_atol(spec, case) if floaty else 0.0
    if spec.language in ("python", "cxx"):
        want, have = _flat(ref if spec.language == "python" else ref.get("ret")), _flat(got)
        if len(want) != len(have):
            return f"result has {len(have)} elements, Python gives {len(want)}"
        for idx, (w, h) in enumerate(zip(want, have, strict=True)):
            if isinstance(w, int) and not isinstance(w, bool) and abs(w) >= 2**63:
                return ""  # outside int64: the documented limit of the generated code
            agree, exact = _close(w, h, floaty and not spec.exact_return, atol)
            v.inexact_float |= not exact
            if not agree:
                return f"element {idx}: {'Python' if spec.language == 'python' else 'C++'} {w!r}, generated {h!r}"
        return ""
    outs = got if len(names) > 1 else (got,) if names else ()
    if len(names) > 1 and (not isinstance(got, tuple) or len(got) != len(names)):
        return f"generated code returned {type(got).__name__}, expected {len(names)} outputs {names}"
    produced = dict(zip(names, outs, strict=False))
    if spec.ret and "return" not in produced:
        return "the summary has no return value but the C function returns one"
    for name in ["return"] + [p.name for p in spec.params if p.array]:
        if name == "return":
            if not spec.ret:
                continue
            # an index (argmax) is compared exactly, ties included, even in a float kernel
            agree, exact = _close(ref["ret"], _flat(produced["return"])[0], floaty and not spec.exact_return, atol)
            v.inexact_float |= not exact
            if not agree:
                return f"return value: C {ref['ret']!r}, generated {_flat(produced['return'])[0]!r}"
            continue
        want = ref[name]
        have = _flat(produced[name]) if name in produced else list(case.values[name])
        if name in produced and isinstance(produced[name], np.ndarray) and TYPES[_ptype(spec, name)].bits == 32 \
                and TYPES[_ptype(spec, name)].is_float and produced[name].dtype != np.float32:
            v.float_width_mismatch = True
        if len(want) != len(have):
            return f"{name}: length {len(have)}, C has {len(want)}"
        for idx, (w, h) in enumerate(zip(want, have, strict=True)):
            agree, exact = _close(w, h, floaty, atol)
            v.inexact_float |= not exact
            if not agree:
                src = "generated" if name in produced else "unchanged input (not an output of the summary)"
                return f"{name}[{idx}]: C {w!r}, {src} {h!r}"
    return ""


def _ptype(spec: KernelSpec, name: str) -> str:
    return next(p.ctype for p in spec.params if p.name == name)


# ----------------------------------------------------------------------------- Python side


_I64_LO, _I64_HI = -(2**63), 2**63 - 1


class _Int64Exceeded(OverflowError):
    pass


def _checked(name: str) -> Any:
    op = getattr(int, name)

    def method(self: int, *other: Any) -> Any:
        r = op(self, *other)
        if type(r) is int:  # a float (true division, int * float) or NotImplemented passes
            if not _I64_LO <= r <= _I64_HI:
                raise _Int64Exceeded(f"{name}: {r} is outside int64")
            return I64(r)
        return r

    return method


class I64(int):
    """A Python int whose arithmetic raises :class:`OverflowError` when a result (an
    intermediate value too, e.g. ``(x - c) * (x - c)`` compared and then dropped) leaves
    int64: the documented limit of the generated code, so such an input is discarded, not a
    counterexample. Literals combined with it give ``I64`` too (the reflected methods of a
    subclass win)."""

    __slots__ = ()


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__floordiv__", "__rfloordiv__",
              "__mod__", "__rmod__", "__pow__", "__rpow__", "__lshift__", "__rlshift__", "__neg__", "__pos__", "__abs__"):
    setattr(I64, _name, _checked(_name))


def _wrap_int64(v: Any) -> Any:
    if isinstance(v, list):
        return [_wrap_int64(x) for x in v]
    if isinstance(v, int) and not isinstance(v, bool):
        return I64(v)
    return v


def run_python(spec: KernelSpec, cases: list[Case]) -> tuple[list[Any], list[str]]:
    """The original function on each case: its result, :class:`Raised` when it raises (a
    ``ZeroDivisionError``, a math domain error, an ``IndexError``: the generated code must
    raise the same class), ``None`` when an intermediate int leaves int64 (the documented
    limit of the generated code, see :class:`I64`: discarded)."""
    ns: dict[str, Any] = {"__name__": "tenspiler_fuzz_original"}
    exec(compile(spec.source, "<kernel>", "exec"), ns)
    fn = ns[spec.function]
    refs: list[Any] = []
    notes: list[str] = []
    import copy

    for c in cases:
        args = [_wrap_int64(copy.deepcopy(c.values[p.name])) for p in spec.params]
        try:
            refs.append(_plain(fn(*args)))
            notes.append("")
        except _Int64Exceeded as e:
            refs.append(None)
            notes.append(f"Python int beyond int64 ({e})"[:160])
        except Exception as e:
            refs.append(Raised(type(e), str(e)[:200]))
            notes.append(f"Python raised {type(e).__name__}")
    return refs, notes


@dataclass
class Raised:
    """The Python reference raised ``cls`` on a case: the generated code must raise it too
    (an instance of ``cls``, a subclass allowed), else the kernel is wrong."""

    cls: type
    message: str

    def describe(self) -> str:
        return f"raises {self.cls.__name__}: {self.message}"


def _plain(x: Any) -> Any:
    """``x`` with every :class:`I64` back to a plain ``int``."""
    if isinstance(x, list):
        return [_plain(e) for e in x]
    if isinstance(x, tuple):
        return tuple(_plain(e) for e in x)
    if isinstance(x, I64):
        return int(x)
    return x


def describe_float(x: float) -> str:
    return f"{x!r} ({struct.pack('>d', x).hex()})"


# ----------------------------------------------------------------------------- kernel files

_C_FUNC = re.compile(r"^[ \t]*((?:static|inline|extern)\s+)*([A-Za-z_][\w \t]*?[\w*])\s*\b(\w+)\s*\(([^)]*)\)\s*\{", re.M)


def spec_from_file(path: Path) -> tuple[KernelSpec, list[Case]]:
    """A :class:`KernelSpec` for a hand-written kernel file (``.c``, ``.cc`` / ``.cpp`` or
    ``.py``) and the inputs its comments give. Comment lines (``//`` or ``#``) understood:

    * ``fuzz-spec: {json}`` -- ``{"extents": {"a": "n + 1"}, "sizes": ["n"], "indices": ["j"],
      "shape": "1d", "function": "f", "exact_return": true}`` (all optional; arrays default to
      length ``n``, size parameters to the scalars named ``n`` and ``m``; ``indices``: small
      index parameters, 0..3, that extents may name; ``exact_return``: the return value is an
      index, compared exactly; ``exact``: every output compared exactly, floats bit for bit;
      ``choices``: ``{"incx": [1, 2, -1]}``, scalars drawn from those values (strides; the
      extents may name them); ``negative_sizes``: some cases pass ``n < 0``; ``min_size``:
      the least size drawn;
      C++ vectors and Python lists of lists of lists are 3-D);
    * ``input: {json}`` -- a counterexample, parameter name -> value (tried first).
    """
    import ast
    import json

    text = path.read_text(encoding="utf-8")
    meta: dict[str, Any] = {}
    inputs: list[dict[str, Any]] = []
    for line in text.splitlines():
        m = re.match(r"\s*(?://|#)\s*(fuzz-spec|input):\s*(\{.*\})\s*$", line)
        if m:
            (meta.update if m.group(1) == "fuzz-spec" else inputs.append)(json.loads(m.group(2)))
    extents: dict[str, str] = meta.get("extents", {})
    choices: dict[str, list[int]] = meta.get("choices", {})
    sizes = set(meta.get("sizes", ["n", "m"]))
    indices = set(meta.get("indices", []))
    params: list[Param] = []
    if path.suffix == ".py":
        tree = ast.parse(text)
        defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
        fdef = next((d for d in defs if d.name == meta.get("function")), defs[-1])
        for a in fdef.args.args:
            ann = ast.unparse(a.annotation) if a.annotation else "float"
            ct = "int" if "int" in ann else "double"
            if ann.startswith("list[list[list"):
                params.append(Param(a.arg, ct, True, "3d"))
            elif ann.startswith("list[list"):
                params.append(Param(a.arg, ct, True, "2d"))
            elif ann.startswith("list"):
                params.append(Param(a.arg, ct, True, extents.get(a.arg, "n")))
            else:
                params.append(Param(a.arg, ct))
        if any(p.extent == "2d" for p in params):
            params = [Param(p.name, p.ctype, True, "cols") if p.array and p.extent == "n" else p for p in params]
        name, ret, lang = fdef.name, None, "python"
    elif path.suffix in (".cc", ".cpp"):
        name, ret, params = _cxx_signature(text, meta.get("function"), extents, sizes)
        lang = "cxx"
    else:
        funcs = [(m.group(1) or "", m.group(2).strip(), m.group(3), m.group(4)) for m in _C_FUNC.finditer(text)]
        funcs = [f for f in funcs if f[1] not in ("if", "for", "while", "return", "else")]
        chosen = [f for f in funcs if f[2] == meta.get("function")] or [f for f in funcs if "static" not in f[0]]
        _q, rtype, name, plist = chosen[-1]
        for part in [x.strip() for x in plist.split(",") if x.strip() and x.strip() != "void"]:
            part = re.sub(r"\b(const|restrict)\b", "", part).strip()
            pm = re.match(r"(.*?)(\*?)\s*(\w+)\s*(\[\s*\])?$", part)
            assert pm, f"cannot read parameter {part!r} of {path}"
            ty = " ".join(pm.group(1).replace("*", " ").split())
            arr = bool(pm.group(2) or pm.group(4) or "*" in pm.group(1))
            pname = pm.group(3)
            if arr:
                params.append(Param(pname, ty, True, extents.get(pname, "n")))
            else:
                params.append(Param(pname, ty, size=pname in sizes, index=pname in indices,
                                    choices=tuple(choices[pname]) if pname in choices else None))
        ret = None if rtype == "void" else " ".join(rtype.split())
        lang = "c"
    nums: list[float] = []
    for tok in re.findall(r"(?<![\w.])(0[xX][0-9a-fA-F]+|\d+\.\d*(?:[eE][+-]?\d+)?|\d+)[uUlLfF]*", text):
        try:
            nums.append(int(tok, 0) if not re.search(r"[.eE]", tok) or tok.lower().startswith("0x") else float(tok))
        except ValueError:
            nums.append(int(tok, 8) if tok.startswith("0") else float(tok))
    default_shape = "3d" if any(p.extent == "3d" for p in params) else \
        "2d" if "m" in {p.name for p in params} or any(p.extent == "2d" for p in params) else "1d"
    spec = KernelSpec(path.stem, lang, text, meta.get("function", name), params, ret,
                      sorted(set(nums), key=repr)[:40], [], meta.get("shape", default_shape),
                      exact_return=bool(meta.get("exact_return", False)), exact=bool(meta.get("exact", False)),
                      negative_sizes=bool(meta.get("negative_sizes", False)), min_size=int(meta.get("min_size", 0)))
    return spec, [Case(inp, "given") for inp in inputs]


_CXX_FUNC = re.compile(r"^[ \t]*((?:static|inline)\s+)*((?:std::)?[\w<>:, \t]*?[\w>])\s*\b(\w+)\s*\(([^)]*)\)\s*\{", re.M)


def _cxx_signature(text: str, function: str | None, extents: dict[str, str],
                   sizes: set[str]) -> tuple[str, str, list[Param]]:
    """Name, return type and parameters of a C++ kernel (the ``std::vector`` subset): a
    ``vector`` parameter (by value or ``const &``) is an array of extent ``n`` / ``2d`` /
    ``3d`` by its rank."""
    funcs = [(m.group(2).strip(), m.group(3), m.group(4)) for m in _CXX_FUNC.finditer(text)
             if m.group(3) not in ("if", "for", "while", "return", "else")]
    chosen = [f for f in funcs if f[1] == function] or funcs
    rtype, name, plist = chosen[-1]
    params: list[Param] = []
    depth, cur, parts = 0, "", []
    for ch in plist:  # split at commas outside <...>
        depth += (ch == "<") - (ch == ">")
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    for part in [x.strip() for x in parts if x.strip() and x.strip() != "void"]:
        part = re.sub(r"\bconst\b|&", " ", part).strip()
        pm = re.match(r"(.*?)\s*\b(\w+)$", part)
        assert pm, f"cannot read parameter {part!r}"
        ty, pname = " ".join(pm.group(1).split()), pm.group(2)
        elem, rank = cxx_elem(ty)
        if rank:
            params.append(Param(pname, elem, True, {1: extents.get(pname, "n"), 2: "2d", 3: "3d"}[rank]))
        else:
            params.append(Param(pname, elem, size=pname in sizes))
    return name, " ".join(rtype.split()), params
