"""Concrete program states: random inputs that satisfy the preconditions, and fast
evaluation of candidates on them (paper §5.2, "restricting program states").

Inputs are dictionaries ``param name → int | float | 1-D np.ndarray``. The source's
meaning on them comes from the loop-IR interpreter, the candidate's from the TensIR
reference interpreter — both built on ``tenspiler.ir.semantics``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from tenspiler.ir.interp import evaluate
from tenspiler.ir.semantics import OutsideInt64, OutsideModel, UndefinedBehaviour
from tenspiler.ir.terms import ArrayOutput, ProgramSummary, ScalarOutput, rank
from tenspiler.loops.interp import StepLimitExceeded, run_function
from tenspiler.loops.ir import Const, DType, PointerType, Var, VectorParam
from tenspiler.vc.symexec import subexpressions

#: Tolerances for float outputs (the proof is over reals; the tests run in float64).
RTOL, ATOL = 1e-6, 1e-9


@dataclass(frozen=True)
class Example:
    """One program state: inputs and the source's final state on them."""

    inputs: Mapping[str, Any]
    final: Mapping[str, Any]
    #: why the model has no final state on these inputs (a float division by zero:
    #: :class:`tenspiler.ir.semantics.OutsideModel`), or "" — kept only for checks that
    #: compare the generated code with the compiled source
    outside_model: str = ""


def make_example(k: Any, inputs: Mapping[str, Any], run: bool = True, outside_model: bool = False) -> Example | None:
    """Run the source on ``inputs``; ``None`` if they violate a precondition of the proof
    (``k.admits``: trip counts, index ranges) or C has undefined behaviour on them. A kernel
    whose ``interpret`` is false (:class:`tenspiler.vc.generalize.AtSizes`: literal sizes too
    large for the interpreter), or ``run=False`` (a caller that needs admitted inputs only),
    gives examples without a final state. ``outside_model``: inputs on which the model has
    no value but C does (:class:`~tenspiler.ir.semantics.OutsideModel`), and for a Python
    function inputs on which it raises (a zero divisor, a math domain or range error, an
    index out of range: the generated code must raise the same exception), give an example
    without a final state that says why, instead of ``None``."""
    try:
        if not k.admits(inputs) or not _requires_hold(k.fn, inputs):
            return None
        if not run or not getattr(k, "interpret", True):
            return Example(inputs, {})
        return Example(inputs, run_function(k.fn, inputs, observe=getattr(k, "live_out", ())))
    except OutsideModel as e:
        return Example(inputs, {}, str(e)) if outside_model else None
    except OutsideInt64:
        return None  # outside the stated int64 assumption of a Python function
    except (UndefinedBehaviour, IndexError, ZeroDivisionError, OverflowError, ValueError) as e:
        if outside_model and k.fn.python is not None:
            # Python raises here (a zero divisor, a math domain or range error, an index out
            # of range): the generated code must raise the same exception
            return Example(inputs, {}, f"the Python function raises here ({type(e).__name__}: {e})")
        if isinstance(e, ValueError):
            raise
        return None
    except StepLimitExceeded:
        return None  # (a run too long for the interpreter's budget: another input is drawn)


def _requires_hold(fn: Any, inputs: Mapping[str, Any]) -> bool:
    """The frontend's preconditions (``Function.requires``) hold on ``inputs``."""
    if not fn.requires:
        return True
    from tenspiler.vc.conditions import lift_entry_scalar

    return all(evaluate(lift_entry_scalar(left), inputs) <= evaluate(lift_entry_scalar(right), inputs)
               for left, right, _ in fn.requires)


def random_examples(
    k: Any, rng: np.random.Generator, count: int, max_trips: int = 6, magnitude: int = 9, run: bool = True,
    outside_model: bool = False,
) -> list[Example]:
    """``count`` examples with trip counts spread over ``0..max_trips`` and element values
    in ``[-magnitude, magnitude]`` (negatives and zeros included; ``unsigned char`` over
    its whole range); arrays are long enough for ``max_trips`` rows of ``max_trips``
    elements in a loop nest. A quarter of the elements are *boundary values*: the
    program's constants and their neighbours, 0 and ±1 — so that branches such as
    ``a == 0 ? 255 : …`` are exercised (a uniform uint8 hits 0 once in 256 draws).
    ``run=False``: inputs the proof's preconditions admit, the source not run (no final
    state; inputs on which it has undefined behaviour are not dropped). ``outside_model``:
    as :func:`make_example`."""
    special = _special_values(k.fn)
    # a path of a split function (loops/ir PathSplit) holds where its conditions do: integer
    # scalars are drawn from their constants and neighbours a quarter of the time, so that a
    # path taken only at a constant (k == 1000) has inputs
    path_values = sorted({int(e.value) + d for left, right, what in k.fn.requires
                          if what.startswith("the path condition")
                          for x in (left, right) for e in subexpressions(x)
                          if isinstance(e, Const) and not isinstance(e.value, float) for d in (-1, 0, 1)})

    def scalar(p: Any) -> int | float:
        d = p.type.dtype
        if path_values and not d.is_float and rng.random() < 0.25:
            v = path_values[int(rng.integers(0, len(path_values)))]
            r = d.int_range
            if r is None or r[0] <= v <= r[1]:
                return v
        if d.is_float:
            return float(np.round(rng.uniform(-magnitude, magnitude), 2))
        if (r := d.int_range) is not None:
            return int(rng.integers(r[0], r[1] + 1))
        return int(rng.integers(-2, max_trips + 2))

    def elements(d: DType, n: int, c_type: str = "") -> np.ndarray:
        del c_type
        return _elements(rng, d, n, magnitude, special)

    return _examples(k, rng, count, max_trips, scalar, elements, run, outside_model)


#: Value range of each C integer type the frontend accepts (``Param.c_type`` spelling; ""
#: is ``int``).
C_INT_RANGES: dict[str, tuple[int, int]] = {
    "": (-(2**31), 2**31 - 1),
    "int": (-(2**31), 2**31 - 1),
    "long": (-(2**63), 2**63 - 1),
    "int64_t": (-(2**63), 2**63 - 1),
    "long long": (-(2**63), 2**63 - 1),
    "long int": (-(2**63), 2**63 - 1),
    "unsigned char": (0, 255),
    # the ranged integer types, by DType.c_name
    "signed char": (-128, 127),
    "short": (-(2**15), 2**15 - 1),
    "unsigned short": (0, 2**16 - 1),
    "unsigned int": (0, 2**32 - 1),
    "unsigned long": (0, 2**63 - 1),  # drawn below 2^63 (int64 inputs)
}


def in_c_range(p: Any, v: int | float) -> int | float:
    """Scalar input ``v`` of parameter ``p`` moved into its C type's range (an unsigned
    count or size is never negative: ``-1`` becomes ``0``)."""
    c_type = str(getattr(p, "c_type", "") or "")
    if isinstance(v, float) or not c_type.startswith("unsigned") or c_type not in C_INT_RANGES:
        return v
    lo, hi = C_INT_RANGES[c_type]
    return min(max(int(v), lo), hi)


def rounding_boundaries(lo: int, hi: int) -> list[int]:
    """Integers in ``[lo, hi]`` where a conversion to a real type rounds: ±2**k and its
    neighbours for k = 24 (float32's significand), 31, 53 (float64's), 62, 63, and the values
    that a conversion through float64 rounds twice: 2**k + 2**(k-24) + 1 for k >= 53 is just
    above a float32 half-way point, but float64 rounds it down to that point first (C's
    ``(float)`` of 2**53 + 2**29 + 1 is 2**53 + 2**30, through double it is 2**53)."""
    out: set[int] = set()
    for k in (24, 31, 53, 62, 63):
        for v in (2**k - 1, 2**k, 2**k + 1, 2**k + 2, 2**k + 3):
            out |= {v, -v}
    for k in (53, 54, 60, 62):
        for v in (2**k + 2 ** (k - 24) + 1, 2**k + 3 * 2 ** (k - 24) - 1, 2**k - 2 ** (k - 25) - 1):
            out |= {v, -v}
    for k in (54, 55, 61):  # float64 half-way points: neighbours round apart (a quotient of them)
        for v in (2**k + 2 ** (k - 53) - 1, 2**k + 3 * 2 ** (k - 53) - 1):
            out |= {v, -v}
    return sorted(v for v in out if lo <= v <= hi)


def rounded_boundaries() -> list[float]:
    """:func:`rounding_boundaries` of int64 as C converts them to float and double (one
    rounding each), and their float32 neighbours: real inputs that straddle a converted
    integer, so that a comparison of a real with an integer rounded the wrong way shows."""
    out: set[float] = set()
    for v in rounding_boundaries(-(2**63), 2**63 - 1):
        f32 = np.float32(np.int64(v))
        out |= {float(v), float(f32), float(np.nextafter(f32, np.float32(np.inf))),
                float(np.nextafter(f32, np.float32(-np.inf)))}
    return sorted(out)


def adversarial_examples(
    k: Any, rng: np.random.Generator, count: int, max_trips: int = 5, outside_model: bool = False
) -> list[Example]:
    """``count`` examples for translation validation, chosen to expose a model that
    differs from C: trip counts ``-1..max_trips`` (zero and negative sizes included); every
    other integer scalar and element drawn from the extremes of its C type (``INT_MIN``,
    ``INT_MAX`` and their neighbours, ``LONG_MIN``…, 0, 255), wide magnitudes (``±10^k``
    for ``k`` up to 9 or 18) and the program's constants and their neighbours (values that
    straddle every threshold of its conditions); floats from the program's constants, their
    float32 and float64 neighbours (so a comparison done in the wrong precision shows) and
    magnitudes from 1e-3 to 1e4. Integers also take the values where a conversion to a real
    type rounds (:func:`rounding_boundaries`: 2**24, 2**53, 2**63 and their neighbours, the
    values rounded twice through float64; for Python functions, whose ints are unbounded,
    those within int64), and reals those values as C converts them and their neighbours
    (:func:`rounded_boundaries`), so that an integer → real conversion or an int / int
    division that rounds twice shows. Inputs on which the source has undefined behaviour are
    dropped by the caller (the C reference runs with UBSan) and by :func:`make_example`
    (``outside_model`` as there)."""
    fn = k.fn
    consts = _program_constants(fn)
    special = _special_values(fn)
    bounds = k.bounds
    bound_vars = {e.name for b in bounds for e in subexpressions(b) if isinstance(e, Var)}
    sizes = {n for v in (fn.cxx.signature if fn.cxx is not None else ()) if isinstance(v, VectorParam) for n in v.sizes}
    integer_params = any(
        not p.type.elem.is_float if isinstance(p.type, PointerType)
        else not p.type.dtype.is_float and p.name not in bound_vars and p.name not in sizes
        for p in fn.params
    )
    rounded = rounded_boundaries()
    real_params = any(
        p.type.elem.is_float if isinstance(p.type, PointerType) else p.type.dtype.is_float for p in fn.params
    )
    # one input in four of a kernel mixing integers and reals (or dividing Python ints) is
    # *aligned*: every integer near one rounding boundary v and every real at v as C
    # converts it, so that a comparison of the two, or a quotient of two neighbouring
    # integers, is decided by how the conversion rounds
    aligned: list[int | None] = [None]
    align = integer_params and (real_params or fn.python is not None)

    def begin() -> None:
        aligned[0] = None
        if align and rng.random() < 1 / 4:
            sensitive = [v for v in rounding_boundaries(-(2**62), 2**62) if abs(v) > 2**24]
            aligned[0] = int(sensitive[int(rng.integers(0, len(sensitive)))])

    def aligned_ints(lo: int, hi: int, n: int) -> np.ndarray | None:
        v = aligned[0]
        if v is None or (lo, hi) == (0, 255):
            return None
        if not lo <= v + 3 <= hi or not lo <= v - 1 <= hi:  # the boundary nearest v that the type holds
            inside = [b for b in rounding_boundaries(lo + 1, hi - 3) if abs(b) > 2**24 and (b > 0) == (v > 0)]
            if not inside:
                return None
            want = abs(v).bit_length()
            v = min(inside, key=lambda b: abs(abs(b).bit_length() - want))
        return np.array([v + int(d) for d in rng.integers(-1, 4, n)], dtype=np.int64)

    def aligned_floats(d: DType, n: int) -> np.ndarray | None:
        v = aligned[0]
        if v is None:
            return None
        f32 = np.float32(np.int64(v))
        pool = [float(f32), float(v), float(np.nextafter(f32, np.float32(np.inf))),
                float(np.nextafter(f32, np.float32(-np.inf))), float(np.float32(np.int64(v + 1)))]
        vals = np.array([pool[int(i)] for i in rng.integers(0, len(pool), n)])
        return vals.astype(np.float32).astype(np.float64) if d == DType.FLOAT else vals

    def ints(c_type: str, n: int) -> np.ndarray:
        # one mode per array, so that not every input overflows: the type's extremes (and
        # the program's constants), wide magnitudes, or small values around the constants
        lo, hi = C_INT_RANGES.get(c_type, C_INT_RANGES[""])
        boundaries = rounding_boundaries(lo, hi) if (lo, hi) != (0, 255) else []
        if fn.python is not None and (lo, hi) != (0, 255):
            # Python ints are unbounded; the generated code computes in int64 (a stated
            # assumption; inputs whose values leave int64 are dropped by the interpreter):
            # magnitudes whose products of three still fit, and the rounding boundaries
            lo, hi = -(2**20), 2**20
            boundaries = rounding_boundaries(-(2**62), 2**62)
            if (a := aligned_ints(-(2**62), 2**62, n)) is not None:
                return a
        elif (a := aligned_ints(lo, hi, n)) is not None:
            return a
        near = [v for v in special if lo <= v <= hi]
        mode = rng.choice(["extreme", "wide", "small", "rounding"], p=[0.2, 0.3, 0.35, 0.15])
        if mode == "rounding" and boundaries:
            pool = [*boundaries, *near, 0, 1]
            return np.array([pool[int(i)] for i in rng.integers(0, len(pool), n)], dtype=np.int64)
        if mode in ("extreme", "rounding"):
            pool = [*near, lo, lo + 1, hi, hi - 1, 0, 1]
            return np.array([pool[int(i)] for i in rng.integers(0, len(pool), n)], dtype=np.int64)
        if mode == "wide":
            digits = 18 if hi > 2**32 else 9 if hi > 2**20 else 6
            mags = 10 ** rng.integers(0, digits + 1, n).astype(object)
            signs = rng.choice([-1, 1] if lo < 0 else [1], n).astype(object)
            vals = [min(max(int(s * m * int(rng.integers(1, 10))), lo), hi) for s, m in zip(signs, mags, strict=True)]
            return np.array(vals, dtype=np.int64)
        small = rng.integers(max(lo, -20), min(hi, 20) + 1, n).astype(np.int64)
        pick = rng.random(n) < 0.5
        if near and pick.any():
            small[pick] = rng.choice(np.array(near, dtype=np.int64), int(pick.sum()))
        return small

    def floats(d: DType, n: int) -> np.ndarray:
        if (a := aligned_floats(d, n)) is not None:
            return a
        pool: list[float] = [0.0, -0.0, 1.0, -1.0, 0.5]
        for c in consts:
            if isinstance(c, float) or d.is_float:
                c32 = np.float32(c)
                pool += [float(c), float(c32), float(np.nextafter(c32, np.float32(np.inf))),
                         float(np.nextafter(c32, np.float32(-np.inf))),
                         float(np.nextafter(float(c), np.inf)), float(np.nextafter(float(c), -np.inf))]
        wide = rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(-3, 4, n)
        pick = rng.random(n) < 0.5
        if integer_params and rng.random() < 0.15:  # one array in 7: converted integers
            pool = [*pool, *rounded]
        vals = np.where(pick, rng.choice(np.array(pool), n), wide)
        return vals.astype(np.float32).astype(np.float64) if d == DType.FLOAT else vals

    def scalar(p: Any) -> int | float:
        d = p.type.dtype
        if p.name in bound_vars and not d.is_float:
            return int(rng.integers(-1, max_trips + 1))
        if d.is_float:
            if rng.random() < 0.15:  # a zero (of either sign) for a scalar divisor, in any mode
                return float(rng.choice([0.0, -0.0]))
            return float(floats(d, 1)[0])
        return int(ints(d.c_name if d.int_range is not None else p.c_type, 1)[0])

    def elements(d: DType, n: int, c_type: str = "") -> np.ndarray:
        if d.is_float:
            return floats(d, n)
        return ints(d.c_name if d.int_range is not None else c_type, n)

    return _examples(k, rng, count, max_trips, scalar, elements, outside_model=outside_model, begin=begin)


def _special_values(fn: Any) -> list[int | float]:
    """The program's constants and their neighbours, 0 and ±1."""
    return sorted({v + d for v in _program_constants(fn) for d in (-1, 0, 1)} | {0, 1, -1})


def array_length(k: Any, max_trips: int) -> int:
    """The length of the arrays of :func:`random_examples`' inputs: room for ``max_trips``
    iterations (rows of ``max_trips`` in a nest), or for a constant loop bound (``#define N
    64``; of literal sizes, :class:`tenspiler.vc.generalize.AtSizes`, at any size)."""
    in_bounds = [e.value for b in k.bounds for e in subexpressions(b) if isinstance(e, Const)]
    most = 2**62 if not getattr(k, "interpret", True) else 4096
    biggest = max([int(v) for v in in_bounds if isinstance(v, int) and 0 < v <= most] + [max_trips])
    return (biggest * biggest if k.nested else biggest) + 8


def _examples(
    k: Any, rng: np.random.Generator, count: int, max_trips: int,
    scalar: Any, elements: Any, run: bool = True, outside_model: bool = False, begin: Any = None,
) -> list[Example]:
    """``count`` examples whose scalar parameters come from ``scalar(param)`` and whose
    arrays, long enough for ``max_trips`` (rows of ``max_trips``) iterations or a constant
    loop bound, from ``elements(dtype, length, c_type)``; inputs the source rejects
    (:func:`make_example`) are redrawn, up to ``200 * count`` attempts."""
    fn = k.fn
    length = array_length(k, max_trips)
    out: list[Example] = []
    attempts = 0
    # literal sizes (AtSizes: nothing is interpreted, admits is cheap): arrays read at a
    # stride wider than the loop bound need more than bound² elements; grow until admitted
    grow = not getattr(k, "interpret", True)
    while len(out) < count and attempts < count * 200:
        attempts += 1
        if grow and not out and attempts % 10 == 0 and 2 * length <= getattr(k, "max_length", 2**24):
            length *= 2
        inputs: dict[str, Any] = {}
        if begin is not None:  # a new input: the generator may choose a mode for all of it
            begin()
        for p in fn.params:
            if isinstance(p.type, PointerType):
                inputs[p.name] = elements(p.type.elem, length, p.c_type)
            else:
                inputs[p.name] = in_c_range(p, scalar(p))
        if fn.cxx is not None:
            _vector_shapes(fn, inputs, rng, max_trips + 2, length)
        if fn.structs:
            _struct_shapes(fn, inputs, rng, max_trips + 2, length, elements)
        ex = make_example(k, inputs, run, outside_model)
        if ex is not None:
            out.append(ex)
    return out


def _vector_shapes(fn: Any, inputs: dict[str, Any], rng: np.random.Generator, most: int, length: int) -> None:
    """C++ kernels: give every vector parameter a shape (sizes from a small pool in
    ``[0, most]``, so that equal lengths are common) and truncate its flat elements to
    it, as a real ``vector`` would hold; the returned vector's buffer gets room for the
    largest result. ``vector<vector<T>>`` parameters get at least one row (``v[0].size()``,
    the usual way to read the row length, is undefined behaviour on an empty vector)."""

    pool = [int(v) for v in rng.integers(0, most + 1, 2)]

    def dim() -> int:
        return pool[int(rng.integers(0, 2))] if rng.random() < 0.85 else int(rng.integers(0, most + 1))

    for v in fn.cxx.signature:
        if not isinstance(v, VectorParam):
            continue
        shape = [dim() for _ in range(v.rank)]
        if v.rank >= 2:
            shape[0] = max(shape[0], 1)  # kernels read v[0].size(): undefined on no rows
        if v.rank == 3:
            shape[1] = max(shape[1], 1)  # and v[0][0].size()
        for name, size in zip(v.sizes, shape, strict=True):
            inputs[name] = size
        inputs[v.name] = np.asarray(inputs[v.name])[: int(np.prod(shape))]
        if inputs[v.name].shape[0] < int(np.prod(shape)):
            inputs[v.name] = np.resize(inputs[v.name], int(np.prod(shape)))
    r = fn.cxx.result
    if r is not None:
        inputs[r.array] = np.resize(np.asarray(inputs[r.array]), max(length, most * most + 8))


def _struct_shapes(fn: Any, inputs: dict[str, Any], rng: np.random.Generator, most: int,
                   length: int, elements: Any) -> None:
    """C struct parameters: their INT scalar fields and the row lengths of their ``T **``
    fields (``StructField.cols``) take values from one small pool in ``[0, most]`` (so
    that equal sizes, as a kernel's shape preconditions need, are common); each ``T **``
    field's flat buffer holds a whole number of rows of that length, at least ``most``
    rows and at least ``length`` elements (``elements(dtype, n)`` draws them)."""
    pool = [int(v) for v in rng.integers(0, most + 1, 2)]

    def size() -> int:
        return pool[int(rng.integers(0, 2))] if rng.random() < 0.85 else int(rng.integers(0, most + 1))

    for sp in fn.structs:
        for f in sp.fields:
            p = fn.param(f.param)
            if f.cols is None:
                if not isinstance(p.type, PointerType) and p.type.dtype == DType.INT:
                    inputs[f.param] = size()
                continue
            cols = size()
            inputs[f.cols] = cols
            n = cols * max(most, -(-length // cols)) if cols > 0 else length
            inputs[f.param] = elements(p.type.elem, n, p.c_type)


def _elements(rng: np.random.Generator, d: DType, length: int, magnitude: int,
              special: list[int | float]) -> np.ndarray:
    r = d.int_range
    if d.is_float:
        values = np.round(rng.uniform(-magnitude, magnitude, length), 2)
    elif r is not None:
        values = rng.integers(r[0], r[1] + 1, length).astype(np.int64)
    else:
        values = rng.integers(-magnitude, magnitude + 1, length).astype(np.int64)
    lo, hi = r if r is not None else (-max(magnitude, 255), max(magnitude, 255))
    pool = [v for v in special if lo <= v <= hi]
    pick = rng.random(length) < 0.25
    if pool and pick.any():
        values[pick] = rng.choice(np.array(pool, dtype=values.dtype), int(pick.sum()))
    return values


def _program_constants(fn: Any) -> set[int | float]:
    from tenspiler.vc.symexec import program_constants

    return {c.value for c in program_constants(fn.body)}


def summary_outputs(ps: ProgramSummary, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """Evaluate a summary: ``{"return": v}`` and each output array's full final value."""
    out: dict[str, Any] = {}
    for o in ps.outputs:
        match o:
            case ScalarOutput(name, value):
                out[name] = evaluate(value, inputs)
            case ArrayOutput(array, lo, hi, value, step) if step is not None and rank(value) == 2:
                arr = np.array(inputs[array], copy=True)
                a, b, s = evaluate(lo, inputs), evaluate(hi, inputs), evaluate(step, inputs)
                v = np.asarray(evaluate(value, inputs))
                if arr.dtype.kind != "f" and v.dtype.kind == "f":
                    arr = arr.astype(np.float64)
                if v.ndim != 2:
                    raise IndexError(f"{array}: a block of rows needs a 2-D value, not shape {v.shape}")
                nr, nc = v.shape
                if not (0 <= nc <= s) or b - a != nr * s or (
                        nr > 0 and nc > 0 and not (a >= 0 and a + (nr - 1) * s + nc <= arr.shape[0])):
                    raise IndexError(f"{array}[{a}:{b}] in rows of {s} does not fit the value's shape {v.shape}")
                arr[a + np.arange(nr, dtype=np.int64)[:, None] * s + np.arange(nc, dtype=np.int64)] = v
                out[array] = arr
            case ArrayOutput(array, lo, hi, value, step) if step is not None:
                arr = np.array(inputs[array], copy=True)
                a, b, s = evaluate(lo, inputs), evaluate(hi, inputs), evaluate(step, inputs)
                v = evaluate(value, inputs)
                if arr.dtype.kind != "f" and np.asarray(v).dtype.kind == "f":
                    arr = arr.astype(np.float64)
                n = (b - a) // s if s >= 1 else -1
                if s < 1 or b < a or (b - a) % s or np.shape(v) != (n,) or (
                        n > 0 and not (a >= 0 and a + (n - 1) * s < arr.shape[0])):
                    raise IndexError(f"{array}[{a}:{b}:{s}] does not fit the value's shape {np.shape(v)}")
                arr[a + np.arange(n, dtype=np.int64) * s] = v
                out[array] = arr
            case ArrayOutput(array, lo, hi, value):
                arr = np.array(inputs[array], copy=True)
                a, b = evaluate(lo, inputs), evaluate(hi, inputs)
                v = evaluate(value, inputs)
                if arr.dtype.kind != "f" and np.asarray(v).dtype.kind == "f":
                    arr = arr.astype(np.float64)
                if not (0 <= a <= b <= arr.shape[0]) or np.shape(v) != (b - a,):
                    raise IndexError(f"{array}[{a}:{b}] does not fit the value's shape {np.shape(v)}")
                arr[a:b] = v
                out[array] = arr
    return out


def same(x: Any, y: Any) -> bool:
    x, y = np.asarray(x), np.asarray(y)
    if x.shape != y.shape:
        return False
    if x.dtype.kind == "f" or y.dtype.kind == "f":
        return bool(np.allclose(x, y, rtol=RTOL, atol=ATOL))
    return bool(np.array_equal(x, y))


def mismatch(ps: ProgramSummary, ex: Example, only: str | None = None) -> str | None:
    """Describe how the summary disagrees with the source on ``ex`` (``None`` if it
    agrees). ``only`` restricts the comparison to one output."""
    try:
        got = summary_outputs(ps, ex.inputs)
    except (UndefinedBehaviour, IndexError, ValueError, ZeroDivisionError, OverflowError) as exc:
        return f"the summary cannot be evaluated: {exc}"
    for name, value in got.items():
        if only is not None and name != only:
            continue
        if not same(value, ex.final[name]):
            return f"{name}: source gives {_fmt(ex.final[name])}, summary gives {_fmt(value)}"
    return None


def _fmt(v: Any) -> str:
    a = np.asarray(v)
    return str(a.tolist()) if a.ndim else str(a.item())


def jsonable_inputs(inputs: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (np.asarray(v).tolist()) for k, v in inputs.items()}
