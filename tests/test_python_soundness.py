"""Soundness of the Python frontend: module-level names are folded only when their value
at call time is known (never rebound anywhere in the module, and equal in the running
module), builtins / helpers / math names the subset relies on must not be rebound, and the
constructs the frontend accepts mean in the generated NumPy code what they mean in Python
(compared with the original function on adversarial inputs)."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tenspiler
from tenspiler.errors import LiftError
from tenspiler.frontend.python import folded_globals, parse_python_function, parse_python_source
from tenspiler.loops.ir import DType, Function, Param, ScalarType

KERNEL = (
    "def f(xs):\n"
    "    out = []\n"
    "    for x in xs:\n"
    "        out.append(x * SCALE)\n"
    "    return out\n"
)


def py(src: str, function: str | None = "f") -> Function:
    return parse_python_source(src, "k.py", function)


def load_module(tmp_path: Path, name: str, text: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Import ``text`` as module ``name`` from a file (it stays in ``sys.modules`` for the
    test: the frontend compares the running module's globals with its source)."""
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, mod)
    spec.loader.exec_module(mod)
    return mod


# ---------------------------------------------------------------- rebound module globals

#: (module text before the kernel, line of the rebinding, the construct named)
REBOUND = {
    "global_in_function": ("SCALE = 2\n\ndef set_scale(s):\n    global SCALE\n    SCALE = s\n", 5, "assignment, under 'global' in 'set_scale'"),
    "global_augmented": ("SCALE = 2\n\ndef bump():\n    global SCALE\n    SCALE += 1\n", 5, "augmented assignment, under 'global' in 'bump'"),
    "global_for_in_nested": (
        "SCALE = 2\n\nclass C:\n    def m(self):\n        def g():\n            global SCALE\n"
        "            for SCALE in range(3):\n                pass\n",
        7,
        "for loop, under 'global' in 'g'",
    ),
    "global_in_class_body": ("SCALE = 2\n\nclass C:\n    global SCALE\n    SCALE = 3\n", 5, "under 'global' in class 'C'"),
    "global_del": ("SCALE = 2\n\ndef drop():\n    global SCALE\n    del SCALE\n", 5, "del, under 'global' in 'drop'"),
    "second_assignment": ("SCALE = 2\nSCALE = 3\n", 2, "assignment"),
    "int_then_float": ("SCALE = 2\nSCALE = 2.0\n", 2, "assignment"),
    "computed_before": ("SCALE = 1 + 1\nSCALE = 2\n", 1, "assignment"),
    "augmented": ("SCALE = 2\nSCALE *= 3\n", 2, "augmented assignment"),
    "for_target": ("SCALE = 2\nfor SCALE in range(3):\n    pass\n", 2, "for loop"),
    "import_as": ("SCALE = 2\nimport os as SCALE\n", 2, "import"),
    "from_import": ("SCALE = 2\nfrom os import sep as SCALE\n", 2, "import"),
    "del": ("SCALE = 2\ndel SCALE\n", 2, "del"),
    "def": ("SCALE = 2\n\ndef SCALE():\n    return 3\n", 3, "def"),
    "class": ("SCALE = 2\n\nclass SCALE:\n    pass\n", 3, "class"),
    "except_as": ("SCALE = 2\ntry:\n    pass\nexcept Exception as SCALE:\n    pass\n", 4, "except ... as"),
    "walrus": ("SCALE = 2\nif (SCALE := 5):\n    pass\n", 2, "assignment expression"),
    "with_as": ("SCALE = 2\nwith open(__file__) as SCALE:\n    pass\n", 2, "with ... as"),
    "tuple_target": ("SCALE = 2\nSCALE, other = 1, 2\n", 2, "assignment"),
    "in_if": ("SCALE = 2\nif __name__ != '__main__':\n    SCALE = 7\n", 3, "assignment"),
    "in_main_else": ("SCALE = 2\nif __name__ == '__main__':\n    pass\nelse:\n    SCALE = 7\n", 5, "assignment"),
    "in_main_with_name_bound": ("SCALE = 2\n__name__ = '__main__'\nif __name__ == '__main__':\n    SCALE = 7\n", 4,
                                "assignment"),
    "attribute_of_the_module": ("import sys\nSCALE = 2\nsys.modules[__name__].SCALE = 3\n", 3, ""),
    "setattr": ("import k\nSCALE = 2\nsetattr(k, 'SCALE', 3)\n", 3, "setattr()"),
    "globals_dict": ("SCALE = 2\n\ndef g():\n    globals()['SCALE'] = 3\n", 4, "globals() may bind any global"),
    "exec": ("SCALE = 2\n\ndef g():\n    exec('SCALE = 3')\n", 4, "exec() may bind any global"),
    "star_import": ("SCALE = 2\nfrom os.path import *\n", 2, "import *"),
}


@pytest.mark.parametrize("case", sorted(REBOUND))
def test_a_rebound_module_global_is_not_folded(case: str) -> None:
    before, line, why = REBOUND[case]
    src = before + "\n" + KERNEL
    use = before.count("\n") + 5  # the line of 'x * SCALE'
    with pytest.raises(LiftError, match=rf"^k.py:{use}:24: module global 'SCALE' (is|may be) rebound at line {line} \(") as e:
        py(src)
    assert why in str(e.value) and "its value at call time is unknown; pass it as a parameter" in str(e.value)


def test_a_constant_bound_once_is_folded_and_a_parameter_shadows_it() -> None:
    for before in (
        "SCALE = 2\n",
        "SCALE: int = 2\n",
        "SCALE = 2\nSCALE = 2\n",  # the same literal again: the value is still 2
        "SCALE = 2\n\nclass C:\n    SCALE = 3\n",  # a class attribute
        "SCALE = 2\n\ndef g():\n    SCALE = 5\n    return SCALE\n",  # a local of g
        "SCALE = 2\n\ndef g():\n    global SCALE\n    return SCALE\n",  # declared, never bound
        "SCALE = 2\nTABLE = [SCALE for SCALE in range(3)]\n",  # the comprehension's own variable
        "SCALE = 2\ng = lambda: (SCALE := 3)\n",  # binds the lambda's local
        # the script's main block never runs on import, where the lifted function is called
        "SCALE = 2\nif __name__ == '__main__':\n    SCALE = 7\n",
        "SCALE = 2\nif '__main__' == __name__:\n    exec(input())\n    print(globals())\n",
    ):
        fn = py(before + "\n" + KERNEL)
        assert "2" in repr(fn.body), before
    # a parameter of the kernel named like the global is the parameter (as in Python)
    src = "SCALE = 2\n\ndef f(xs, SCALE: int):\n    out = []\n    for x in xs:\n        out.append(x * SCALE)\n    return out\n\n"
    src += "def set_scale(s):\n    global SCALE\n    SCALE = s\n"
    fn = py(src)
    assert Param("SCALE", ScalarType(DType.INT), fn.param("SCALE").loc) in fn.params


def test_a_global_rebound_in_a_helper_module_is_refused_through_a_helper() -> None:
    src = (
        "SCALE = 2\n\ndef scaled(v):\n    return v * SCALE\n\n"
        "def f(xs):\n    out = []\n    for x in xs:\n        out.append(scaled(x))\n    return out\n\n"
        "def set_scale(s):\n    global SCALE\n    SCALE = s\n"
    )
    with pytest.raises(LiftError, match=r"^k.py:4:16: module global 'SCALE' is rebound at line 14 "):
        py(src)


ISSUE = (
    "SCALE = 2\n\n\n"
    "def set_scale(s):\n"
    "    global SCALE\n"
    "    SCALE = s\n\n\n"
    "def scale_all(xs):\n"
    "    out = []\n"
    "    for x in xs:\n"
    "        out.append(x * SCALE)\n"
    "    return out\n\n\n"
    "def scale_sum(xs):\n"
    "    s = 0.0\n"
    "    for i in range(len(xs)):\n"
    "        s += xs[i] * SCALE\n"
    "    return s\n"
)


def test_the_issue_example_is_refused_for_a_live_function_and_a_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mod = load_module(tmp_path, "tsp_issue_scale", ISSUE, monkeypatch)
    mod.set_scale(5)
    assert mod.scale_all([1.0, 2.0]) == [5.0, 10.0]  # what a folded SCALE = 2 would get wrong
    path = tmp_path / "tsp_issue_scale.py"
    for fn, line, col in ((mod.scale_all, 12, 24), (mod.scale_sum, 19, 22)):
        want = (
            rf"{line}:{col}: module global 'SCALE' is rebound at line 6 \(assignment, under 'global' in "
            r"'set_scale'\): its value at call time is unknown; pass it as a parameter"
        )
        with pytest.raises(LiftError, match=want):
            tenspiler.lift(fn, to="numpy", cache=False)
        with pytest.raises(LiftError, match=want):
            parse_python_function(fn)
        with pytest.raises(LiftError, match=want):
            tenspiler.lift(path, function=fn.__name__, cache=False)


def test_a_global_changed_in_the_running_module_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = "SCALE = 2\n\n\n" + KERNEL
    mod = load_module(tmp_path, "tsp_live_scale", text, monkeypatch)
    res = tenspiler.lift(mod.f, to="numpy", cache=False)  # unchanged: folded and correct
    xs = [0.0, -1.5, 3.0, 1e300]
    assert np.asarray(res.compile()(xs)).tolist() == mod.f(xs)
    mod.SCALE = 5  # another module rebinds it: the source cannot show this
    want = r"module global 'SCALE' is 5 in the running module but 2 in its source"
    with pytest.raises(LiftError, match=want):
        parse_python_function(mod.f)
    with pytest.raises(LiftError, match=want):
        tenspiler.lift(mod.f, to="numpy", cache=False)
    mod.SCALE = 2.0  # equal, but a float: 'x * SCALE' is another function on ints
    with pytest.raises(LiftError, match=r"module global 'SCALE' is 2.0 in the running module but 2 in its source"):
        parse_python_function(mod.f)


def test_the_decorator_keeps_the_original_function_when_a_global_is_rebound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "import tenspiler\n\nSCALE = 2\n\n\n@tenspiler.lifted(cache=False)\n" + KERNEL
    text += "\n\ndef set_scale(s):\n    global SCALE\n    SCALE = s\n"
    with pytest.warns(tenspiler.LiftWarning, match=r"module global 'SCALE' is rebound at line 16"):
        mod = load_module(tmp_path, "tsp_decorated_scale", text, monkeypatch)
    assert not hasattr(mod.f, "lifted")  # the legacy function, which reads SCALE at call time
    mod.set_scale(7)
    assert mod.f([1, 2]) == [7, 14]


def test_folded_globals_names_what_a_caller_must_keep() -> None:
    src = "SCALE = 2\nOFF = -0.5\nUNUSED = 9\n\n\ndef f(xs):\n    s = OFF\n    for x in xs:\n        s += x * SCALE\n    return s\n"
    assert folded_globals(src, "k.py", "f") == {"SCALE": 2, "OFF": -0.5}


def test_a_live_function_is_lifted_from_its_own_def(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``f`` rebound by a later ``def f``: the function object given is the first one."""
    text = (
        "def f(xs):\n    out = []\n    for x in xs:\n        out.append(x * 2)\n    return out\n\n\n"
        "first = f\n\n\n"
        "def f(xs):\n    out = []\n    for x in xs:\n        out.append(x * 3)\n    return out\n"
    )
    mod = load_module(tmp_path, "tsp_two_defs", text, monkeypatch)
    fn = parse_python_function(mod.first)
    assert fn.loc is not None and fn.loc.line == 1
    assert parse_python_function(mod.f).loc.line == 11  # type: ignore[union-attr]


# ---------------------------------------------------------------- builtins, helpers, math

BODY = (
    "def f(xs):\n    out = []\n    for i in range(len(xs)):\n"
    "        out.append(abs(xs[i]) + h(xs[i]) + math.exp(xs[i]) + max(xs[i], 0.0) + sqrt(xs[i]) + pi)\n"
    "    return out\n"
)
HEAD = "import math\nfrom math import sqrt, pi\n\n\ndef h(x):\n    return 2 * x\n\n\n"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("from numpy import abs\n", r"builtin 'abs' is rebound at line 9 \(import\): its meaning at call time is unknown"),
        ("max = min\n", r"builtin 'max' is rebound at line 9 \(assignment\)"),
        ("def range(n):\n    return [0]\n", r"builtin 'range' is rebound at line 9 \(def\)"),
        ("def g():\n    global len\n    len = 3\n", r"builtin 'len' is rebound at line 11 \(assignment, under 'global' in 'g'\)"),
        ("h = lambda x: 3 * x\n", r"function 'h' is rebound at line 9 \(assignment\): the function called at run time is unknown"),
        ("if True:\n    def h(x):\n        return 3 * x\n", r"function 'h' is rebound at line 10 \(def\)"),
        ("import cmath as math\n", r"'math' is rebound at line 9 \(import\)"),
        ("sqrt = abs\n", r"'sqrt' is rebound at line 9 \(assignment\)"),
        ("pi = 3\n", r"module global 'pi' is rebound at line 2 \(import\)"),
    ],
)
def test_a_rebound_builtin_helper_or_math_name_is_refused(extra: str, message: str) -> None:
    with pytest.raises(LiftError, match=message):
        py(HEAD + extra + "\n" + BODY)


def test_unrebound_builtins_helpers_and_math_are_accepted() -> None:
    py(HEAD + BODY)
    py(HEAD + "import math\n\n\ndef h(x):\n    return 2 * x\n\n\n" + BODY)  # the same bindings again


# ---------------------------------------------------------------- Python semantics, end to end


def lift_and_run(tmp_path: Path, src: str, name: str, argsets: list[tuple[Any, ...]]) -> str:
    """Lift ``name`` of ``src`` to NumPy and compare the compiled result with the Python
    function on every argument tuple where Python returns; the summary is returned."""
    path = tmp_path / f"{name}.py"
    path.write_text(src)
    ns: dict[str, Any] = {}
    exec(compile(src, str(path), "exec"), ns)
    res = tenspiler.lift(path, to="numpy", function=name, cache=False)
    fast = res.compile()
    compared = 0
    for args in argsets:
        try:
            want = ns[name](*args)
        except ArithmeticError:
            continue  # Python raises: no result to compare
        got = fast(*args)
        if isinstance(want, list):
            g = np.asarray(got).tolist()
            assert len(g) == len(want), (args, want, g)
            for a, b in zip(want, g, strict=True):
                assert type(a) is not float or type(b) is float, (args, want, g)  # a float stays a float
                assert a == b or math.isclose(a, b, rel_tol=1e-12), (args, want, g)
        else:
            assert want == got or math.isclose(want, got, rel_tol=1e-12), (args, want, got)
        compared += 1
    assert compared, name
    assert res.summary is not None
    return res.summary


INTS = [[], [0], [-7, 7, 0, 1, -1, 3, -3, 255, -256, 2**40, -(2**40) - 1]]


def test_floor_division_and_modulo_with_negative_operands(tmp_path: Path) -> None:
    src = (
        "def fd(a: list[int], d: int):\n    out = []\n    for x in a:\n        out.append(x // d)\n    return out\n\n\n"
        "def fm(a: list[int], d: int):\n    out = []\n    for x in a:\n        out.append(x % d)\n    return out\n\n\n"
        "def fc(a: list[int]):\n    out = []\n    for x in a:\n        out.append(x // -4 + x % -3)\n    return out\n"
    )
    args = [(a, d) for a in INTS for d in (3, -3, 1, -1, 7, 2, 0)]
    assert "//" in lift_and_run(tmp_path, src, "fd", args)
    assert "mod" in lift_and_run(tmp_path, src, "fm", args)
    lift_and_run(tmp_path, src, "fc", [(a,) for a in INTS])


def test_true_division_of_ints_is_a_float_and_int_truncates(tmp_path: Path) -> None:
    src = (
        "def td(a: list[int], d: int):\n    out = []\n    for x in a:\n        out.append(x / d + x // 2)\n    return out\n\n\n"
        "def it(a: list[float]):\n    out = []\n    for x in a:\n        out.append(int(x) + int(-x / 4))\n    return out\n\n\n"
        "def mean(a: list[int]):\n    s = 0\n    for x in a:\n        s += x\n    return s / len(a)\n"
    )
    lift_and_run(tmp_path, src, "td", [(a, d) for a in INTS for d in (3, -3, 7, 0)])
    floats = [[], [-2.5, -0.5, 0.5, 2.5, -1.0, 1e15 + 0.5, -3.999, 7.0, -7.0, 1e-300]]
    lift_and_run(tmp_path, src, "it", [(a,) for a in floats])
    lift_and_run(tmp_path, src, "mean", [(a,) for a in INTS])


def test_abs_min_max_and_truth_values(tmp_path: Path) -> None:
    src = (
        "def am(a: list[int], b: list[float]):\n    out = []\n    for i in range(len(a)):\n"
        "        out.append(abs(a[i]) - abs(b[i]) + min(float(a[i]), b[i]) * 3 + max(b[i], float(a[i])))\n    return out\n\n\n"
        "def tv(a: list[float], t: float):\n    c = 0\n    for x in a:\n        if x:\n            c += 1\n"
        "        if not x - t:\n            c += 10\n        if x > t > -x:\n            c += 100\n    return c\n"
    )
    lift_and_run(tmp_path, src, "am", [([1, -2, 3, 0, -5], [1.0, -2.5, 3.5, -0.0, -5.0]), ([], [])])
    lift_and_run(tmp_path, src, "tv", [([0.0, -0.0, 1.0, 2.0, -1.0, 1e300], t) for t in (2.0, 0.0, -1.0, 1e300)] + [([], 1.0)])


def test_min_of_an_int_and_a_float_is_refused() -> None:
    """Python's ``min(a, b)`` compares an int and a float exactly (and returns the int
    itself); the model converts the int to a float first: refused, ``float(a)`` is explicit."""
    from tenspiler.errors import LiftError
    from tenspiler.frontend.python import parse_python_source

    with pytest.raises(LiftError, match="Python compares them exactly"):
        parse_python_source("def f(a: int, b: float) -> float:\n    return min(a, b)\n", "f.py")


def test_a_folded_constant_straddled_by_the_inputs(tmp_path: Path) -> None:
    src = (
        "LIMIT = 100\nSTEP = -3\n\n\n"
        "def clip(a: list[int]):\n    out = []\n    for x in a:\n"
        "        out.append(LIMIT if x > LIMIT else x // STEP)\n    return out\n"
    )
    lift_and_run(tmp_path, src, "clip", [([99, 100, 101, -100, -101, 0, 2**40],), ([],)])


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("round(x)", r"call to 'round' is not supported"),
        ("x + True", r"boolean value 'True' is not supported"),
        ("(x > 0) + 1", r"'x > 0' is a truth value"),
        ("x // 2.0", r"'//' on floats is not supported"),
        ("x % 2.5", r"'%' on floats is not supported"),
        ("int(x) ** int(x)", r"'\*\*' of two ints is only supported with a literal integer exponent"),
        ("divmod(x, 2)", r"call to 'divmod' is not supported"),
        ("x and 1", r"is a truth value"),
    ],
)
def test_constructs_without_a_sound_meaning_are_refused(body: str, message: str) -> None:
    with pytest.raises(LiftError, match=message):
        py(f"def f(a: list[float]):\n    out = []\n    for x in a:\n        out.append({body})\n    return out\n")


def test_cache_hit_and_lifted_wrapper_see_a_rebound_global(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A cached result is not returned once the running module rebinds a folded constant,
    and a @lifted function calls the original while the constant differs."""
    import importlib
    import sys

    import tenspiler

    src = tmp_path / "gmod_rebound.py"
    src.write_text(
        "SCALE = 2\n"
        "def f(xs: list[float]) -> list[float]:\n"
        "    out = []\n"
        "    for i in range(len(xs)):\n"
        "        out.append(xs[i] * SCALE)\n"
        "    return out\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = importlib.import_module("gmod_rebound")
    try:
        cache = tmp_path / "cache"
        first = tenspiler.lift(mod.f, check=False, cache_dir=cache)
        assert not first.from_cache
        assert tenspiler.lift(mod.f, check=False, cache_dir=cache).from_cache
        mod.SCALE = 5
        with pytest.raises(tenspiler.LiftError, match="SCALE"):
            tenspiler.lift(mod.f, check=False, cache_dir=cache)
        mod.SCALE = 2
        fast = tenspiler.lifted(cache_dir=cache, check=False)(mod.f)
        assert hasattr(fast, "lifted")
        assert list(fast([1.5])) == [3.0]
        mod.SCALE = 5
        assert list(fast([1.5])) == [7.5]  # the original function, as Python would
    finally:
        sys.modules.pop("gmod_rebound", None)


def test_the_main_block_counts_when_the_module_runs_as_the_script() -> None:
    """``if __name__ == "__main__":`` runs when the module is the script: a live namespace
    named ``__main__`` (a function lifted from the running script) reads its body."""
    import ast

    from tenspiler.frontend.py_globals import ModuleNames

    text = "SCALE = 2\nif __name__ == '__main__':\n    SCALE = 7\n"

    def lines(live: dict[str, Any]) -> list[int]:
        names = ModuleNames(text, "k.py", ast.parse(text), live=[live])
        return [getattr(s.node, "lineno", 0) for s in names.bindings.get("SCALE", [])]

    assert lines({"__name__": "__main__"}) == [1, 3]
    assert lines({"__name__": "k"}) == [1]
