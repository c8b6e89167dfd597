"""The Python frontend's idioms (issue 15): list comprehensions, ``sum`` / ``max`` / ``min``
of sequences, ``zip`` and ``enumerate``. Each is desugared to the explicit loops the
frontend already reads, so the tests compare with the loop IR of the explicit program,
run the loop-IR interpreter against the Python function on random inputs, check the
refusals (message and location) and lift the ``benchmarks/kernels/python_idioms`` kernels
end to end with the translation validation on."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tenspiler.errors import LiftError
from tenspiler.frontend.python import parse_python_source
from tenspiler.loops.interp import run_function
from tenspiler.loops.ir import For, Function
from tenspiler.pipeline import lift_file
from tenspiler.vc.analyze import analyze_kernel

IDIOMS = Path(__file__).parent.parent / "benchmarks" / "kernels" / "python_idioms"


def py(src: str) -> Function:
    return parse_python_source(src, "k.py")


def same_loop_ir(a: Function, b: Function) -> None:
    """Same parameters, locals, statements and list interface (locations are not compared)."""
    assert a.params == b.params
    assert a.return_dtype == b.return_dtype
    assert dict(a.locals) == dict(b.locals)
    assert a.body == b.body
    assert a.cxx is not None and b.cxx is not None
    assert a.cxx.signature == b.cxx.signature
    assert a.cxx.result == b.cxx.result


def python_value(src: str, args: list[Any]) -> tuple[bool, Any]:
    """(True, result) of the Python function, or (False, exception type name)."""
    namespace: dict[str, Any] = {}
    exec(compile(src, "k.py", "exec"), namespace)
    fn = py(src)
    try:
        return True, namespace[fn.name](*args)
    except Exception as e:
        return False, type(e).__name__


def loop_ir_value(fn: Function, args: list[Any]) -> Any:
    """The loop-IR interpreter's result for the Python arguments ``args``."""
    assert fn.cxx is not None
    inputs: dict[str, Any] = {}
    for v, a in zip(fn.cxx.signature, args, strict=True):
        if isinstance(v, str):
            inputs[v] = a
            continue
        arr = np.asarray(a, dtype=np.float64 if v.elem.is_float else np.int64)
        inputs[v.name] = arr.reshape(-1)
        shape = arr.shape if arr.size else (len(a), 0)[: v.rank]
        for name, size in zip(v.sizes, shape, strict=True):
            inputs[name] = size
    r = fn.cxx.result
    if r is not None:
        inputs[r.array] = np.zeros(256, dtype=np.float64 if r.elem.is_float else np.int64)
    final = run_function(fn, inputs)
    if r is None:
        return final["return"]
    assert fn.cxx is not None
    sizes = {n: inputs[n] for v in fn.cxx.signature if not isinstance(v, str) for n in v.sizes}
    sizes.update({k: inputs[k] for k in fn.cxx.signature if isinstance(k, str)})
    flat = final[r.array]
    dims = [int(_evaluate_size(e, sizes)) for e in r.shape]
    return np.asarray(flat[: int(np.prod(dims))]).reshape(dims).tolist()


def _evaluate_size(e: Any, env: dict[str, Any]) -> int:
    from tenspiler.loops.ir import Binary, Compare, Const, Select, Var

    match e:
        case Const(value=v):
            return int(v)
        case Var(name=n):
            return int(env[n])
        case Binary(op=op, left=left, right=right):
            a, b = _evaluate_size(left, env), _evaluate_size(right, env)
            return {"+": a + b, "-": a - b, "*": a * b}[op]
        case Select(cond=Compare(op=op, left=left, right=right), then=then, else_=else_):
            a, b = _evaluate_size(left, env), _evaluate_size(right, env)
            holds = {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b, "==": a == b, "!=": a != b}[op]
            return _evaluate_size(then if holds else else_, env)
    raise AssertionError(f"size {e!r}")


# ---------------------------------------------------------------- same loop IR as the explicit loops

PAIRS = [
    (  # a list comprehension over a list parameter
        "def f(xs):\n    return [max(x, 0.0) for x in xs]\n",
        "def f(xs):\n    out = []\n    for x in xs:\n        out.append(max(x, 0.0))\n    return out\n",
    ),
    (  # over range, returned directly
        "def f(a, b, n: int):\n    return [a[i] * b[i] for i in range(n)]\n",
        "def f(a, b, n: int):\n    out = []\n    for i in range(n):\n        out.append(a[i] * b[i])\n    return out\n",
    ),
    (  # assigned, then returned; zip stops at the shorter list
        "def f(xs, ws):\n    out = [x * w for x, w in zip(xs, ws)]\n    return out\n",
        "def f(xs, ws):\n    out = []\n    for x__k in range(min(len(xs), len(ws))):\n        x = xs[x__k]\n"
        "        w = ws[x__k]\n        out.append(x * w)\n    return out\n",
    ),
    (  # nested comprehensions: a list of lists
        "def f(A: list[list[int]], n: int, m: int):\n    return [[A[i][j] + 1 for j in range(m)] for i in range(n)]\n",
        "def f(A: list[list[int]], n: int, m: int):\n    out = []\n    for i in range(n):\n        row = []\n"
        "        for j in range(m):\n            row.append(A[i][j] + 1)\n        out.append(row)\n    return out\n",
    ),
    (  # a row built by a comprehension in an explicit loop
        "def f(A: list[list[int]], n: int, m: int):\n    out = []\n    for i in range(n):\n"
        "        r = [A[i][j] * 2 for j in range(m)]\n        out.append(r)\n    return out\n",
        "def f(A: list[list[int]], n: int, m: int):\n    out = []\n    for i in range(n):\n        r = []\n"
        "        for j in range(m):\n            r.append(A[i][j] * 2)\n        out.append(r)\n    return out\n",
    ),
    (  # sum of a generator: an accumulator from the int 0
        "def f(a, b, n: int):\n    return sum(a[i] * b[i] for i in range(n))\n",
        "def f(a, b, n: int):\n    __sum = 0\n    for i in range(n):\n        __sum = __sum + a[i] * b[i]\n    return __sum\n",
    ),
    (
        "def f(a, b):\n    return sum(x * y for x, y in zip(a, b))\n",
        "def f(a, b):\n    __sum = 0\n    for x__k in range(min(len(a), len(b))):\n        x = a[x__k]\n        y = b[x__k]\n"
        "        __sum = __sum + x * y\n    return __sum\n",
    ),
    (  # sum of a list parameter, with a start value
        "def f(xs):\n    return sum(xs, 1.5)\n",
        "def f(xs):\n    __sum = 1.5\n    for __v in xs:\n        __sum = __sum + __v\n    return __sum\n",
    ),
    (  # sum with an if clause: the element is added only where it holds
        "def f(xs):\n    return sum(x * 2 for x in xs if x > 0)\n",
        "def f(xs):\n    __sum = 0\n    for x in xs:\n        if x > 0:\n            __sum = __sum + x * 2\n    return __sum\n",
    ),
    (  # max of a list: from element 0, the first maximum kept
        "def f(xs: list[int]):\n    return max(xs)\n",
        "def f(xs: list[int]):\n    __max = xs[0]\n    for __k in range(1, len(xs)):\n        __max = max(__max, xs[__k])\n"
        "    return __max\n",
    ),
    (  # min of a generator over range(start, stop)
        "def f(a, n: int):\n    return min(a[i] * 3 for i in range(2, n))\n",
        "def f(a, n: int):\n    __min = a[2] * 3\n    for i in range(3, n):\n        __min = min(__min, a[i] * 3)\n    return __min\n",
    ),
    (  # max over enumerate
        "def f(xs):\n    return max(x - i for i, x in enumerate(xs))\n",
        "def f(xs):\n    __max = xs[0] - 0\n    for i in range(1, len(xs)):\n        __max = max(__max, xs[i] - i)\n    return __max\n",
    ),
    (  # enumerate and zip in for statements
        "def f(xs, s):\n    out = []\n    for i, x in enumerate(xs):\n        out.append(x * s + i)\n    return out\n",
        "def f(xs, s):\n    out = []\n    for i in range(len(xs)):\n        x = xs[i]\n        out.append(x * s + i)\n    return out\n",
    ),
    (
        "def f(a, b):\n    t = 0.0\n    for k, (x, y) in enumerate(zip(a, b)):\n        t += x * y * k\n    return t\n",
        "def f(a, b):\n    t = 0.0\n    for k in range(min(len(a), len(b))):\n        x = a[k]\n        y = b[k]\n"
        "        t += x * y * k\n    return t\n",
    ),
    (  # a sum per row: the nest with a per-row reduction
        "def f(m: list[list[float]], v, r: int, c: int):\n    return [sum(m[i][j] * v[j] for j in range(c)) for i in range(r)]\n",
        "def f(m: list[list[float]], v, r: int, c: int):\n    out = []\n    for i in range(r):\n        __sum = 0\n"
        "        for j in range(c):\n            __sum = __sum + m[i][j] * v[j]\n        out.append(__sum)\n    return out\n",
    ),
    (  # a sum used as a value, then a comprehension: two top-level loops
        "def f(xs):\n    s = sum(xs)\n    return [x / s for x in xs]\n",
        "def f(xs):\n    __sum = 0\n    for __v in xs:\n        __sum = __sum + __v\n    s = __sum\n    out = []\n"
        "    for x in xs:\n        out.append(x / s)\n    return out\n",
    ),
    (  # a comprehension variable that names another variable is renamed (its own scope)
        "def f(a, n: int, m: int):\n    out = []\n    for i in range(n):\n        out.append(sum(a[i] for i in range(m)) + i)\n"
        "    return out\n",
        "def f(a, n: int, m: int):\n    out = []\n    for i in range(n):\n        __sum = 0\n        for i1 in range(m):\n"
        "            __sum = __sum + a[i1]\n        out.append(__sum + i)\n    return out\n",
    ),
    (  # several for clauses nest; a later iterable may read an earlier variable
        "def f(a, n: int):\n    return sum(a[i] * a[j] for i in range(n) for j in range(i))\n",
        "def f(a, n: int):\n    __sum = 0\n    for i in range(n):\n        for j in range(i):\n"
        "            __sum = __sum + a[i] * a[j]\n    return __sum\n",
    ),
]


@pytest.mark.parametrize(("sugar", "explicit"), PAIRS)
def test_idioms_give_the_loop_ir_of_the_explicit_loops(sugar: str, explicit: str) -> None:
    same_loop_ir(py(sugar), py(explicit))


def test_several_top_level_loops_are_not_refused_by_the_frontend() -> None:
    fn = py("def f(xs, ys):\n    s = sum(xs)\n    t = max(ys)\n    return [x * s - t for x in xs]\n")
    assert sum(isinstance(s, For) for s in fn.body) == 3


# ---------------------------------------------------------------- the loop IR computes what Python does

def _floats(rng: random.Random, n: int) -> list[float]:
    return [rng.choice([0.0, -0.0, 1.0, -2.5, rng.uniform(-9, 9)]) for _ in range(n)]


def _ints(rng: random.Random, n: int) -> list[int]:
    return [rng.randint(-6, 6) for _ in range(n)]


CONCRETE: list[tuple[str, Any]] = [
    ("def f(xs):\n    return [max(x, 0.0) for x in xs]\n", lambda r: [_floats(r, r.randint(0, 7))]),
    ("def f(a: list[int], b: list[int], n: int):\n    return [a[i] * b[i] for i in range(n)]\n",
     lambda r: [_ints(r, 8), _ints(r, 8), r.randint(0, 8)]),
    ("def f(xs, ws):\n    out = [x * w for x, w in zip(xs, ws)]\n    return out\n",
     lambda r: [_floats(r, r.randint(0, 6)), _floats(r, r.randint(0, 6))]),
    ("def f(A: list[list[int]], n: int, m: int):\n    return [[A[i][j] + 1 for j in range(m)] for i in range(n)]\n",
     lambda r: (lambda n, m: [[_ints(r, m) for _ in range(n)], n, m])(r.randint(1, 4), r.randint(1, 4))),
    ("def f(a: list[int], b: list[int], n: int):\n    return sum(a[i] * b[i] for i in range(n))\n",
     lambda r: [_ints(r, 6), _ints(r, 6), r.randint(-2, 6)]),
    ("def f(a, b):\n    return sum(x * y for x, y in zip(a, b))\n",
     lambda r: [_floats(r, r.randint(0, 6)), _floats(r, r.randint(0, 6))]),
    ("def f(xs: list[int]):\n    return sum(xs)\n", lambda r: [_ints(r, r.randint(0, 6))]),
    ("def f(xs):\n    return sum(xs, 0.5)\n", lambda r: [_floats(r, r.randint(0, 6))]),
    ("def f(xs: list[int]):\n    return sum(x * x for x in xs if x % 2 == 1)\n", lambda r: [_ints(r, r.randint(0, 6))]),
    ("def f(xs: list[int]):\n    return max(xs)\n", lambda r: [_ints(r, r.randint(1, 6))]),
    ("def f(xs):\n    return min(xs)\n", lambda r: [_floats(r, r.randint(1, 6))]),
    ("def f(a: list[int], n: int):\n    return max(a[i] * (i - 2) for i in range(1, n))\n",
     lambda r: [_ints(r, 7), r.randint(2, 7)]),
    ("def f(xs: list[int]):\n    return max(x - i for i, x in enumerate(xs))\n", lambda r: [_ints(r, r.randint(1, 6))]),
    ("def f(a: list[int], b: list[int]):\n    return min(x * y for x, y in zip(a, b))\n",
     lambda r: [_ints(r, r.randint(1, 6)), _ints(r, r.randint(1, 6))]),
    ("def f(xs, s):\n    out = []\n    for i, x in enumerate(xs):\n        out.append(x * s + i)\n    return out\n",
     lambda r: [_floats(r, r.randint(0, 6)), r.uniform(-3, 3)]),
    ("def f(a: list[int], b: list[int], c: list[int]):\n    out = []\n    for x, y, z in zip(a, b, c):\n"
     "        out.append(x * y - z)\n    return out\n",
     lambda r: [_ints(r, r.randint(0, 5)), _ints(r, r.randint(0, 5)), _ints(r, r.randint(0, 5))]),
    ("def f(a, b):\n    t = 0.0\n    for k, (x, y) in enumerate(zip(a, b)):\n        t += x * y * k\n    return t\n",
     lambda r: [_floats(r, r.randint(0, 6)), _floats(r, r.randint(0, 6))]),
    ("def f(m: list[list[int]], v: list[int], r: int, c: int):\n"
     "    return [sum(m[i][j] * v[j] for j in range(c)) for i in range(r)]\n",
     lambda r: (lambda n, m: [[_ints(r, m) for _ in range(n)], _ints(r, m), n, m])(r.randint(1, 4), r.randint(1, 4))),
    ("def f(xs):\n    s = sum(xs)\n    return [x * s for x in xs]\n", lambda r: [_floats(r, r.randint(0, 6))]),
    ("def f(a: list[int], n: int, m: int):\n    out = []\n    for i in range(n):\n"
     "        out.append(sum(a[i] for i in range(m)) + i)\n    return out\n",
     lambda r: [_ints(r, 6), r.randint(0, 5), r.randint(0, 6)]),
    ("def f(a: list[int], n: int):\n    return sum(a[i] * a[j] for i in range(n) for j in range(i))\n",
     lambda r: [_ints(r, 6), r.randint(0, 6)]),
    # a for target keeps its last value after the loop (its value before if the loop did not run)
    ("def f(xs):\n    x = 1.5\n    for i, x in enumerate(xs):\n        pass\n    return x\n",
     lambda r: [_floats(r, r.randint(0, 4))]),
    # a comprehension variable named like a module constant is the comprehension's own
    ("SCALE = 2\n\ndef f(xs: list[int]):\n    return [SCALE * x for SCALE in xs for x in xs]\n",
     lambda r: [_ints(r, r.randint(0, 4))]),
    ("def f(xs: list[int]):\n    return max(sum(xs[j] for j in range(i)) for i in range(1, len(xs)))\n",
     lambda r: [_ints(r, r.randint(2, 6))]),
    # several for clauses: a flat list; a comprehension per row over list parameters
    ("def f(a: list[int], b: list[int], n: int, m: int):\n    return [a[i] * b[j] for i in range(n) for j in range(m)]\n",
     lambda r: [_ints(r, 5), _ints(r, 5), r.randint(0, 5), r.randint(0, 5)]),
    ("def f(a: list[int], b: list[int]):\n    return [x * y for x in a for y in b]\n",
     lambda r: [_ints(r, r.randint(0, 4)), _ints(r, r.randint(0, 4))]),
    ("def f(a: list[int], b: list[int]):\n    return [[x * y for y in b] for x in a]\n",
     lambda r: [_ints(r, r.randint(1, 4)), _ints(r, r.randint(1, 4))]),
]


@pytest.mark.parametrize(("src", "make"), CONCRETE, ids=[f"concrete{k}" for k in range(len(CONCRETE))])
def test_the_loop_ir_computes_what_the_python_function_returns(src: str, make: Any) -> None:
    fn = py(src)
    rng = random.Random(src)
    compared = 0
    for _ in range(40):
        args = make(rng)
        ok, want = python_value(src, args)
        if not ok:  # e.g. a list too short for n: Python raises, there is no result
            continue
        got = loop_ir_value(fn, args)
        assert np.allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float), rtol=1e-12, atol=1e-12), (args, want, got)
        compared += 1
    assert compared >= 10


def test_max_of_a_sequence_needs_a_non_empty_one() -> None:
    """Python's max / min of an empty sequence raise ValueError: the loop starts from element
    0 and runs ``range(1, len)``, whose trip count ``1 <= len`` is a precondition."""
    ok, what = python_value("def f(xs):\n    return max(xs)\n", [[]])
    assert not ok and what == "ValueError"
    k = analyze_kernel(py("def f(xs: list[int]):\n    return max(xs)\n"))
    assert not k.admits({"xs": np.zeros(0, dtype=np.int64), "xs__size": 0})
    assert k.admits({"xs": np.zeros(1, dtype=np.int64), "xs__size": 1})
    k = analyze_kernel(py("def f(a, n: int):\n    return min(a[i] for i in range(n))\n"))
    assert not k.admits({"a": np.zeros(4), "a__size": 4, "n": 0})


# ---------------------------------------------------------------- refusals

REFUSED = [
    ("    return [x for x in a if x > 0]",
     "4:29: a list comprehension with an 'if' clause is not supported (the length of the list would depend on the data"),
    ("    out = [[x for x in a if x > 0] for i in range(n)]\n    return out", "4:29: a list comprehension with an 'if' clause"),
    ("    return max(x for x in a if x > 0)",
     "4:32: max() over a filtered sequence ('if' clause) is not supported (it may be empty, where Python raises)"),
    ("    return max(a[i] for i in range(n) for j in range(n))",
     "4:15: max() over a comprehension with several 'for' clauses is not supported"),
    ("    return sum(a) if n > 0 else 0.0",
     "4:12: sum() of a sequence in a branch of a conditional expression is not supported (only where Python evaluates it once)"),
    ("    return n > 0 and sum(a) > 0",
     "4:22: sum() of a sequence in an operand of 'and' after the first is not supported"),
    ("    i = 0\n    while i < sum(a):\n        i += 1\n    return 0.0",
     "5:15: sum() of a sequence in the condition of a while loop (evaluated on every iteration) is not supported"),
    ("    s = 0.0\n    if n > 0:\n        s = sum(a)\n    return s",
     "6:13: sum() inside if is not supported (it is a loop; compute it before the if)"),
    ("    s = 0.0\n    if n > 0:\n        s = max(a)\n    return s",
     "6:13: max() of a sequence inside if is not supported (it is a loop; compute it before the if)"),
    ("    return helper(a[0])", "2:16: sum() of a sequence is only supported in the statements of the lifted function"),
    ("    return sum(x * y for x, y in zip(a, a, strict=True))",
     "4:44: zip(..., strict=...) is only supported as strict=False (with strict=True Python raises when the lengths differ)"),
    ("    s = 0.0\n    for i, x in enumerate(a, 1):\n        s += x * i\n    return s",
     "5:17: enumerate() with a start is not supported (only enumerate(xs))"),
    ("    s = 0.0\n    for x, y in zip(a, a, a):\n        s += x\n    return s",
     "5:9: zip() of 3 lists must be unpacked into 3 names (got '(x, y)')"),
    ("    s = 0.0\n    for t in zip(a, a):\n        s += 1.0\n    return s", "5:9: zip() of 2 lists must be unpacked into 2 names (got 't')"),
    ("    s = 0.0\n    for x, y in zip(a, range(n)):\n        s += x\n    return s",
     "5:24: zip() over 'range(n)' is not supported (only list parameters and their rows)"),
    ("    s = 0.0\n    for x, y in a:\n        s += x\n    return s",
     "5:9: unpacking '(x, y)' is only supported from zip() or enumerate()"),
    ("    return max(a, default=0.0)", "4:19: keyword argument default of max() is not supported"),
    ("    return [sum(a[i] for i in range(n)) for i in range(n)]",
     "4:16: comprehension variable 'i' shadows the variable of an enclosing comprehension"),
    ("    return abs([x for x in a])",
     "4:16: list comprehension is only supported as the returned list ('return [...]', 'out = [...]', a row "
     "'out.append([...])') or as the argument of sum / max / min"),
    ("    t = [x * 2 for x in a]\n    return sum(t)",
     "4:5: local list 't' is not supported (a local list must be the one the function returns)"),
    ("    return sum({x for x in a})", "4:16: sum() of a set comprehension is not supported"),
    ("    return [j for i in range(n) for j in range(j)]",
     "4:42: 'j' is read in the iterable of the comprehension clause that binds it (Python raises UnboundLocalError)"),
    ("    return max(a[0], a[1], a[2])", "4:12: max() is only supported with two numbers"),
]


@pytest.mark.parametrize(("body", "message"), REFUSED)
def test_idioms_outside_the_subset_are_refused_with_a_location(body: str, message: str) -> None:
    if body.lstrip().startswith("return helper"):
        src = f"def helper(v):\n    return v + sum(w for w in range(3))\n\ndef f(a, n):\n{body}\n"
    else:
        src = f"import math\n\ndef f(a, n):\n{body}\n"
    with pytest.raises(LiftError) as e:
        py(src)
    assert str(e.value).startswith(f"k.py:{message}"), str(e.value)


def test_builtins_the_desugared_loops_use_must_be_the_builtins() -> None:
    """zip() becomes range(min(len(a), len(b))): a module def named min would be inlined."""
    src = "def min(p, q):\n    return p + q\n\ndef f(a, b):\n    return sum(x * y for x, y in zip(a, b))\n"
    with pytest.raises(LiftError) as e:
        parse_python_source(src, "k.py", "f")
    assert str(e.value) == (
        "k.py:5:34: zip() is read as a loop written with the builtin 'min', which this module or function rebinds"
    )
    src = "def f(a):\n    len = 3\n    return max(a) + len\n"
    with pytest.raises(LiftError, match="3:16: iterating over 'a' by index is read as a loop written with the builtin 'len'"):
        py(src)
    src = "range = 4\n\ndef f(a):\n    s = 0.0\n    for i, x in enumerate(a):\n        s += x\n    return s\n"
    with pytest.raises(LiftError, match="builtin 'range' is rebound at line 1"):
        py(src)


def test_rows_of_a_list_of_lists_are_walked_by_index() -> None:
    # `for row in m` reads row as m[k] (issue 34); assigning the list while walking it is refused
    fn = py("def f(m: list[list[int]]):\n    return [[x + 1 for x in row] for row in m]\n")
    assert fn.cxx is not None and fn.cxx.result is not None and fn.cxx.result.rank == 2
    with pytest.raises(LiftError, match="iterating over the rows of 'm' while assigning 'row' or the list"):
        py("def f(m: list[list[float]]):\n    s = 0.0\n    for row in m:\n        m[0][0] = 1.0\n"
           "        s += row[0]\n    return s\n")


# ---------------------------------------------------------------- end to end

SUMMARIES = {
    "relu_comp": "out[0:xs__size] = select(0.0 > take(xs, xs__size), 0.0, take(xs, xs__size))",
    "sum_gen": "return = reduce_sum(tensor_tensor(take(a, n), take(b, n), *))",
    "dot_zip": "return = reduce_sum(tensor_tensor(take(a, select(b__size < a__size, b__size, a__size)), "
    "take(b, select(b__size < a__size, b__size, a__size)), *))",
    "scale_enumerate": "out[0:xs__size] = tensor_tensor(tensor_scalar(take(xs, xs__size), scale, *), "
    "cast(iota(0, xs__size), double), +)",
    "add2d_comp": None,  # a nest: its summary has a shape assumption line
    "maxval": None,
    "matvec_sum": None,
}


@pytest.mark.parametrize("name", sorted(SUMMARIES))
def test_idiom_kernels_lift_and_pass_the_check(name: str) -> None:
    res = lift_file(IDIOMS / f"{name}.py", ["numpy"], check=True)
    assert res.status == "verified", res.message
    assert res.function == name
    if SUMMARIES[name] is not None:
        assert res.summary == SUMMARIES[name]
    assert res.check is not None
    c = res.check["numpy"]
    assert c["ok"] and c["passed"] == c["inputs"] >= 100, c["first_failure"]
    assert c["reference"] == "the original Python function"


def test_maxval_assumes_a_non_empty_list_and_its_code_refuses_an_empty_one() -> None:
    res = lift_file(IDIOMS / "maxval.py", ["numpy"], check=True)
    assert res.status == "verified", res.message
    assert any("1 <= xs__size" in a for a in res.assumptions), res.assumptions
    ns: dict[str, Any] = {}
    exec(compile(res.code["numpy"], "gen.py", "exec"), ns)
    assert ns["maxval"]([3, -1, 7, 7, 2]) == 7
    with pytest.raises(ValueError):
        ns["maxval"]([])
