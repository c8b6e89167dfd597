"""The Python frontend: lowering to the loop IR (with Python's semantics), refusals with
exact locations, and every kernel of benchmarks/kernels/python lifted, verified and
checked against the original Python function."""

from __future__ import annotations

import dataclasses
import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tenspiler.check import differential_check
from tenspiler.errors import LiftError
from tenspiler.frontend.python import parse_python_function, parse_python_source
from tenspiler.loops.interp import run_function
from tenspiler.loops.ir import (
    FLOOR_OPS,
    Binary,
    DType,
    For,
    Function,
    PointerType,
    ScalarType,
    VectorParam,
)
from tenspiler.pipeline import check_examples, lift_file
from tenspiler.synth.search import synthesize
from tenspiler.vc.analyze import analyze_kernel
from tenspiler.vc.symexec import subexpressions

KERNELS = Path(__file__).parent.parent / "benchmarks" / "kernels" / "python"


def py(src: str, function: str | None = None) -> Function:
    return parse_python_source(src, "k.py", function)


def run_both(src: str, *args: Any) -> tuple[Any, Any]:
    """(the Python function's result, the loop IR's result) on ``args``."""
    fn = py(src)
    namespace: dict[str, Any] = {}
    exec(compile(src, "k.py", "exec"), namespace)
    want = namespace[fn.name](*args)
    inputs: dict[str, Any] = {}
    assert fn.cxx is not None
    for v, a in zip(fn.cxx.signature, args, strict=True):
        if isinstance(v, str):
            inputs[v] = a
            continue
        arr = np.asarray(a, dtype=np.float64 if v.elem.is_float else np.int64)
        inputs[v.name] = arr.reshape(-1)
        for name, size in zip(v.sizes, arr.shape if arr.size else (0,) * v.rank, strict=True):
            inputs[name] = size
    r = fn.cxx.result
    if r is not None:
        inputs[r.array] = np.zeros(64, dtype=np.float64 if r.elem.is_float else np.int64)
    final = run_function(fn, inputs)
    if r is None:
        return want, final["return"]
    flat = np.asarray(want).reshape(-1)
    return want, np.asarray(final[r.array][: flat.size]).reshape(np.shape(want)).tolist()


def _ops(fn: Function) -> set[str]:
    out: set[str] = set()

    def walk(stmts: Any) -> None:
        for s in stmts:
            if isinstance(s, For):
                walk(s.body)
                continue
            for e in [getattr(s, "value", None), getattr(s, "index", None)]:
                if e is not None:
                    out.update(x.op for x in subexpressions(e) if isinstance(x, Binary))

    walk(fn.body)
    return out


# ---------------------------------------------------------------- lowering


def test_the_issue_example_is_flattened_like_a_cxx_vector_kernel() -> None:
    fn = py(
        "def normal_blend(base, active, opacity):\n"
        "    out = []\n"
        "    for i in range(len(base)):\n"
        "        out.append(opacity * active[i] + (1 - opacity) * base[i])\n"
        "    return out\n"
    )
    assert [(p.name, p.type) for p in fn.params] == [
        ("base", PointerType(DType.DOUBLE)),
        ("base__size", ScalarType(DType.INT)),
        ("active", PointerType(DType.DOUBLE)),
        ("active__size", ScalarType(DType.INT)),
        ("opacity", ScalarType(DType.DOUBLE)),
        ("out", PointerType(DType.DOUBLE)),
    ]
    assert fn.cxx is not None and fn.python is not None and fn.python.filename == "k.py"
    assert fn.cxx.signature == (
        VectorParam("base", 1, DType.DOUBLE, ("base__size",), "float"),
        VectorParam("active", 1, DType.DOUBLE, ("active__size",), "float"),
        "opacity",
    )
    assert fn.cxx.result is not None and fn.cxx.result.array == "out" and fn.return_dtype is None
    assert fn.source.startswith("def normal_blend")


def test_types_from_annotations_and_from_use() -> None:
    fn = py(
        "def f(m, v: list[int], k, n, w: 'float', idx: list[int]):\n"
        "    s = 0\n"
        "    for i in range(n):\n"
        "        s += m[i][k] * v[idx[i]] * w\n"
        "    return s\n"
    )
    types = {p.name: p.type for p in fn.params}
    assert types["m"] == PointerType(DType.DOUBLE) and "m__cols" in types  # m[i][k]: 2-D, floats
    assert types["v"] == PointerType(DType.INT)
    assert types["k"] == ScalarType(DType.INT)  # used in a subscript
    assert types["n"] == ScalarType(DType.INT)  # a range() bound
    assert types["w"] == ScalarType(DType.DOUBLE)
    assert dict(fn.locals)["s"] == DType.DOUBLE  # 0, then floats: the join is float
    assert fn.return_dtype == DType.DOUBLE


def test_a_float_appended_after_ints_makes_the_result_a_float_list() -> None:
    src = (
        "def f(a: list[int]):\n    out = []\n    for i in range(len(a)):\n"
        "        out.append(a[i])\n        out.append(a[i] / 2)\n    return out\n"
    )
    fn = py(src)
    assert fn.cxx is not None and fn.cxx.result is not None and fn.cxx.result.elem == DType.DOUBLE
    want, got = run_both(src, [3, -4, 7])
    assert got == want == [3, 1.5, -4, -2.0, 7, 3.5]


def test_floor_division_and_modulo_are_pythons() -> None:
    src = (
        "def f(a: list[int], d: int):\n    out = []\n    for i in range(len(a)):\n"
        "        out.append(a[i] // d + 1000 * (a[i] % d))\n    return out\n"
    )
    assert set(FLOOR_OPS) <= _ops(py(src))
    for d in (3, -3, 7, -1):
        want, got = run_both(src, [-7, -1, 0, 1, 7, 255, -256], d)
        assert got == want, d
    # true division is a float even on ints
    src2 = "def g(a: int, b: int):\n    q = 0.0\n    for i in range(1):\n        q += a / b\n    return q\n"
    fn = py(src2)
    assert fn.return_dtype == DType.DOUBLE
    assert run_both(src2, -7, 2) == (-3.5, -3.5)


def test_if_elif_else_helpers_min_max_abs() -> None:
    src = (
        "import math\n\n"
        "def clamp(v, lo, hi):\n"
        "    if v < lo:\n        return lo\n"
        "    elif v > hi:\n        return hi\n"
        "    return v\n\n"
        "def f(a: list[int], b: list[float], t: int):\n"
        "    out = []\n"
        "    for i in range(len(a)):\n"
        "        x = a[i]\n"
        "        if x > t and not x == 5:\n            y = x * 2\n"
        "        elif x < -t or x == 5:\n            y = -x\n"
        "        else:\n            y = abs(x) + min(x, t) - max(x, 0)\n"
        "        out.append(clamp(y, -4, 9) + abs(b[i]) + (1 if 0 <= x < 3 else 0) + math.fabs(x) + int(b[i]))\n"
        "    return out\n"
    )
    rng = random.Random(4)
    for _ in range(20):
        a = [rng.randint(-9, 9) for _ in range(6)]
        b = [rng.uniform(-5, 5) for _ in range(6)]
        want, got = run_both(src, a, b, rng.randint(-2, 4))
        assert np.allclose(got, want), (a, b)


def test_while_loop_is_a_counted_loop_and_keeps_the_counter() -> None:
    src = (
        "def f(a, n: int):\n    s = 0.0\n    i = 2\n    t = 1\n"
        "    while i < n:\n        s += a[i]\n        i += 1\n    return s + i\n"
    )
    fn = py(src)
    loop = next(s for s in fn.body if isinstance(s, For))
    assert loop.var == "i" and loop.start.value == 2  # type: ignore[union-attr]
    for n in (0, 2, 5):
        want, got = run_both(src, [1.0, 2.0, 4.0, 8.0, 16.0], n)
        assert got == want, n


def test_for_each_and_a_range_bound_evaluated_once() -> None:
    src = "def f(xs):\n    c = 0\n    for x in xs:\n        if x > 0:\n            c += 1\n    return c\n"
    assert run_both(src, [1.5, -2.0, 0.0, 3.0]) == (2, 2)
    src2 = (
        "def g(a, n: int):\n    s = 0.0\n    for i in range(n):\n        s += a[i]\n"
        "        n = n - 1\n    return s + n\n"
    )
    want, got = run_both(src2, [1.0, 2.0, 4.0, 8.0], 4)
    assert want == got == 15.0 + 0


def test_list_of_lists_result_and_module_constants() -> None:
    src = (
        "SCALE = 3\n\n"
        "def f(m: list[list[int]]):\n    out = []\n    for r in range(len(m)):\n        row = []\n"
        "        for c in range(len(m[0])):\n            row.append(m[r][c] * SCALE)\n"
        "        out.append(row)\n    return out\n"
    )
    fn = py(src)
    assert fn.cxx is not None and fn.cxx.result is not None and fn.cxx.result.rank == 2
    want, got = run_both(src, [[1, 2, 3], [4, 5, -6]])
    assert want == got == [[3, 6, 9], [12, 15, -18]]


def normal_blend_here(base, active, opacity):  # type: ignore[no-untyped-def]
    out = []
    for i in range(len(base)):
        out.append(opacity * active[i] + (1 - opacity) * base[i])
    return out


def test_parse_python_function_uses_the_real_file_and_lines() -> None:
    fn = parse_python_function(normal_blend_here)
    assert fn.loc is not None and fn.loc.file == __file__
    assert fn.loc.line == normal_blend_here.__code__.co_firstlineno and fn.loc.col == 1

    def nested(a):  # type: ignore[no-untyped-def]
        return a[-1]

    with pytest.raises(LiftError) as e:
        parse_python_function(nested)
    first = nested.__code__.co_firstlineno
    assert str(e.value) == f"{__file__}:{first + 1}:18: negative index -1 is not supported (Python reads from the end of the list)"


def test_columns_count_characters() -> None:
    with pytest.raises(LiftError, match=r"^k.py:2:18: bitwise operator '<<'"):
        py("def f(a):\n    é = 1.0; x = é << 1\n    return x\n")


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("    return a[0] // 2", "4:12: '//' on floats is not supported"),
        ("    return a[0] % n", "4:12: '%' on floats is not supported"),
        ("    return a[-1]", "4:14: negative index -1 is not supported (Python reads from the end of the list)"),
        ("    return a[1:3]", "4:14: slices are not supported"),
        ("    s = 0.0\n    for i in range(0, 9, 2):\n        s += a[i]\n    return s",
         "5:26: range() step '2' is not supported (only 1 and -1)"),
        ("    out = []\n    for i in range(9):\n        if a[i] > 0:\n            out.append(a[i])\n    return out",
         "7:13: append inside if is not supported (the length of the result would depend on the data)"),
        ("    for i in range(9):\n        return a[i]\n    return 0.0",
         "5:9: return before the end of the function is not supported"),
        ("    for i in range(9):\n        break\n    return 0.0", "5:9: 'break' is not supported"),
        ("    a[0][0] = 1.0\n    a[1] = 2.0\n    return 0.0",
         "5:5: assigning a whole row 'a[1]' of the list of lists 'a' is not supported (assign its elements)"),
        ("    for i in range(9):\n        pass\n    return i",
         "6:12: 'i' is read after its for loop (Python leaves it at its last value; not supported)"),
        ("    i = 0\n    while i < 9:\n        i = i + 2\n    return 0.0",
         "6:9: while loop body must end with 'i += 1' (a counted loop)"),
        ("    return [x for x in a if x > 0]",
         "4:29: a list comprehension with an 'if' clause is not supported (the length of the list would depend on the data"),
        ("    return len(a) ** len(a)", "4:22: '**' of two ints is only supported with a literal integer exponent 1..8"),
        ("    return a[0] > 0", "4:12: 'a[0] > 0' is a truth value; it is only supported as a condition"),
        ("    return True", "4:12: boolean value 'True' is not supported"),
        ("    return b", "4:12: unknown name 'b'"),
        ("    return f(a, n)", "4:12: recursive call to 'f' is not supported"),
        ("    return max(a[0], a[1], a[2])", "4:12: max() is only supported with two numbers"),
        ("    return sum(a, start=1.0)", "4:19: keyword argument start of sum() is not supported"),
        ("    out = []\n    t = []\n    return out", "5:5: a second local list 't' is not supported (only the returned one)"),
        ("    out = []\n    for i in range(n):\n        t = []\n        out.append(a[i])\n    return out",
         "6:9: local list 't' is not supported: a list created inside a loop must be a row of the returned list of lists"),
        ("    t = []\n    return 0.0", "4:5: local list 't' is not supported (a local list must be the one the function returns)"),
        ("    if n > 0:\n        x = 1.0\n    return x", "6:12: 'x' may be used before it is assigned"),
        ("    s = 0.0\n    for i in range(9):\n        for i in range(3):\n            s += 1\n    return s",
         "6:13: loop variable 'i' is already the variable of an enclosing loop"),
        ("    for i in range(9):\n        i = 2\n    return 0.0",
         "5:9: assigning the loop variable 'i' inside its loop is not supported"),
        ("    s = 0.0\n    for x in a:\n        s += x\n    else:\n        s = 1.0\n    return s", "8:9: for-else is not supported"),
        ("    return math.gamma(a[0])", "4:12: math.gamma is not supported (only exp, sqrt, log, tanh, fabs, pow, floor, ceil, trunc)"),
        ("    x = 1.0\n    return x if x in a else 0.0", "5:17: comparison 'in' is not supported"),
        ("    pass", "4:5: function 'f' must return a value (a number or the list it builds) or modify a list argument"),
        ("    k = len(a)\n    return a", "5:5: returning list 'a' is not supported (only the list the function builds with append)"),
        ("    a, b = divmod(n, 2)\n    return 0.0", "4:5: tuple assignment is not supported"),
        ("    with open('x') as h:\n        pass\n    return 0.0", "4:5: with statement is not supported"),
    ],
)
def test_constructs_outside_the_subset_are_refused_with_a_location(body: str, message: str) -> None:
    src = f"import math\n\ndef f(a, n):\n{body}\n"
    with pytest.raises(LiftError) as e:
        py(src)
    assert str(e.value).startswith(f"k.py:{message}"), str(e.value)


def test_signature_refusals_and_unknown_function() -> None:
    # a default value does not change the meaning: the lifted function takes every parameter
    assert [p.name for p in py("def f(a, n=3):\n    return n\n").params] == ["a", "n"]
    with pytest.raises(LiftError, match=r"^k.py:1:13: keyword-only parameter 'n' is not supported"):
        py("def f(a, *, n=3):\n    return n\n")
    with pytest.raises(LiftError, match=r"^k.py:1:1: function 'g' is not defined at the top level of k.py; defined: f"):
        py("def f(a):\n    return a[0]\n", "g")
    with pytest.raises(LiftError, match=r"^k.py:2:12: syntax error: '\(' was never closed"):
        py("def f(a):\n    return (\n")
    with pytest.raises(LiftError, match=r"^k.py:2:10: annotation 'dict\[str, int\]' of parameter 'b' is not supported"):
        py("def f(a,\n      b: dict[str, int]):\n    return a[0]\n")


# ---------------------------------------------------------------- end to end

#: The verified summary of every kernel of benchmarks/kernels/python (one line per output).
SUMMARIES = {
    "darken_blend": "assume active__cols == base__cols\nout[0:(base__rows * base__cols)] = select(take(active, (base__rows * base__cols)) < take(base, (base__rows * base__cols)), take(active, (base__rows * base__cols)), take(base, (base__rows * base__cols)))",
    "dot": "return = reduce_sum(tensor_tensor(take(a, a__size), take(b, a__size), *))",
    "lighten_blend": "assume active__cols == base__cols\nout[0:(base__rows * base__cols)] = select(take(base, (base__rows * base__cols)) > take(active, (base__rows * base__cols)), take(base, (base__rows * base__cols)), take(active, (base__rows * base__cols)))",
    "linear_burn": "assume active__cols == base__cols\nout[0:(base__rows * base__cols)] = select(tensor_tensor(take(base, (base__rows * base__cols)), take(active, (base__rows * base__cols)), +) < 255, 0, tensor_scalar(tensor_tensor(take(base, (base__rows * base__cols)), take(active, (base__rows * base__cols)), +), 255, -))",
    "matvec": "assume weight__cols == input__size\noutput[0:weight__rows] = reduce_rows(tensor_tensor(matrix(weight, weight__rows, input__size), take(input, input__size), *))",
    "mean": "return = (cast(reduce_sum(take(xs, xs__size)), double) / cast(xs__size, double))",
    "multiply_blend": "assume active__cols == base__cols\nout[0:(base__rows * base__cols)] = tensor_scalar(tensor_tensor(take(base, (base__rows * base__cols)), take(active, (base__rows * base__cols)), *), 255, //)",
    "normal_blend": "out[0:base__size] = tensor_tensor(scalar_tensor(opacity, take(active, base__size), *), scalar_tensor((1.0 - opacity), take(base, base__size), *), +)",
    "normal_blend_8bit": "assume active__cols == base__cols\nresult[0:(base__rows * base__cols)] = tensor_scalar(tensor_tensor(scalar_tensor(opacity, take(active, (base__rows * base__cols)), *), scalar_tensor((255 - opacity), take(base, (base__rows * base__cols)), *), +), 255, //)",
    "rmsnorm_part1": "return = reduce_sum(tensor_scalar(take(x, x__size), 2.0, pow))",
    "rmsnorm_part2": "out[0:x__size] = tensor_tensor(take(weight, x__size), scalar_tensor((1.0 / sqrt(((ss / cast(x__size, double)) + 1e-05))), take(x, x__size), *), *)",
    "row_sums": "sums[0:m__rows] = reduce_rows(matrix(m, m__rows, m__cols))",
    "running_max": "return = select(n > 1, select(reduce_max(slice(a, 1, n)) > reduce_sum(slice(a, 0, 1)), reduce_max(slice(a, 1, n)), reduce_sum(slice(a, 0, 1))), reduce_sum(slice(a, 0, 1)))",
    "saxpy": "result[0:x__size] = tensor_tensor(scalar_tensor(alpha, take(x, x__size), *), take(y, x__size), +)",
    "screen_blend": "assume active__cols == base__cols\nout[0:(base__rows * base__cols)] = tensor_tensor(tensor_tensor(take(base, (base__rows * base__cols)), take(active, (base__rows * base__cols)), +), tensor_scalar(tensor_tensor(take(base, (base__rows * base__cols)), take(active, (base__rows * base__cols)), *), 255, //), -)",
    "softmax_part1": "return = select(max_pos > 1, select(reduce_max(slice(x, 1, max_pos)) > reduce_sum(slice(x, 0, 1)), reduce_max(slice(x, 1, max_pos)), reduce_sum(slice(x, 0, 1))), reduce_sum(slice(x, 0, 1)))",
    "softmax_part2": "out[0:max_pos] = map(exp, tensor_scalar(take(x, max_pos), max_val, -))",
    "softmax_part3": "return = reduce_sum(take(x, max_pos))",
    "softmax_part4": "out[0:max_pos] = tensor_scalar(take(unnormalized, max_pos), total, /)",
    "vadd": "out[0:n] = tensor_tensor(take(a, n), take(b, n), +)",
    "vscal": "out[0:x__size] = scalar_tensor(s, take(x, x__size), *)",
}


def test_every_kernel_has_an_expected_summary() -> None:
    assert sorted(p.stem for p in KERNELS.glob("*.py")) == sorted(SUMMARIES)


@pytest.mark.parametrize("name", sorted(SUMMARIES))
def test_kernel_is_verified_and_agrees_with_the_python_function(name: str) -> None:
    res = lift_file(KERNELS / f"{name}.py", ["numpy"], check=True)
    assert res.status == "verified", res.message
    assert res.function == name
    assert res.summary == SUMMARIES[name]
    assert res.check is not None
    c = res.check["numpy"]
    assert c["ok"] and c["passed"] == c["inputs"] >= 100, c["first_failure"]  # random + adversarial
    assert c["reference"] == "the original Python function"


def test_generated_entry_takes_the_python_arguments() -> None:
    res = lift_file(KERNELS / "normal_blend_8bit.py", ["numpy"])
    assert res.status == "verified", res.message
    ns: dict[str, Any] = {}
    exec(compile(res.code["numpy"], "gen.py", "exec"), ns)
    src: dict[str, Any] = {}
    exec(compile((KERNELS / "normal_blend_8bit.py").read_text(), "k.py", "exec"), src)
    base, active = [[0, 255, 17], [-3, 100, 254]], [[255, 0, 200], [9, 100, 1]]
    got = ns["normal_blend_8bit"](base, active, 77)
    assert got.tolist() == src["normal_blend_8bit"](base, active, 77)
    with pytest.raises(ValueError, match="active__cols == base__cols"):
        ns["normal_blend_8bit"](base, [[1], [2]], 77)


def test_the_check_compares_with_the_original_function(tmp_path: Path) -> None:
    """A Python function that differs from the proved loop IR is caught: the reference is
    the function (module text), not the IR."""
    fn = parse_python_source((KERNELS / "saxpy.py").read_text(), str(KERNELS / "saxpy.py"))
    k = analyze_kernel(fn)
    syn = synthesize(k)
    from tenspiler.codegen import get_backend

    code = get_backend("numpy").generate(fn, syn.summary)
    inputs = check_examples(k, 0)[:8]
    assert differential_check(fn, syn.summary, code, inputs, tmp_path).ok
    wrong = dataclasses.replace(fn, source=fn.source.replace("alpha * x[i] + y[i]", "alpha * x[i] - y[i]"))
    r = differential_check(wrong, syn.summary, code, inputs, tmp_path)
    assert not r.ok and "the returned list: Python gave" in (r.first_failure or "")
    raising = dataclasses.replace(fn, source=fn.source.replace("result.append(", "result.append(1 / 0 + "))
    r = differential_check(raising, syn.summary, code, inputs, tmp_path)
    assert not r.ok and "the Python function raised ZeroDivisionError" in (r.first_failure or "")


def test_math_pi_and_sqrt_are_reals() -> None:
    src = "import math\n\ndef f(a):\n    s = 0.0\n    for i in range(len(a)):\n        s += math.sqrt(a[i]) * math.pi\n    return s\n"
    want, got = run_both(src, [1.0, 4.0, 9.0])
    assert math.isclose(want, got)
