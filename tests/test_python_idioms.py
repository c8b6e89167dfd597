"""Python as people write it (issue 34): annotations of any common form, default values,
argument checks (``if not xs: raise ValueError(...)``, early returns), ... Each kernel of
``tests/kernels/python_idioms/`` is lifted with ``--check`` (the original function against
the generated code on adversarial inputs) and its generated code is run on inputs where the
checks fire: the same exception class, or the same early value."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tenspiler.errors import LiftError
from tenspiler.frontend.python import parse_python_file
from tenspiler.loops.ir import DType, PointerType, ScalarType
from tenspiler.pipeline import lift_file

KERNELS = Path(__file__).resolve().parent / "kernels" / "python_idioms"


def _outcome(f: Any, *args: Any) -> tuple[str, Any]:
    try:
        with np.errstate(all="ignore"):
            v = f(*args)
    except Exception as e:  # the class is what is compared
        return "raised", type(e).__name__
    if v is None:
        return "value", None
    return "value", np.asarray(v, dtype=np.float64).tolist()


def lift_and_compare(kernel: str, function: str, cases: list[tuple[Any, ...]], tmp_path: Path) -> str:
    """Lift ``function`` of ``kernel`` with the check, then compare the generated NumPy
    code with the original on ``cases`` (deep copies of the arguments each side)."""
    import copy

    res = lift_file(KERNELS / kernel, ("numpy",), function=function, out_dir=tmp_path, check=True)
    assert res.status == "verified", res.message
    assert res.check is not None and all(c["ok"] for c in res.check.values()), res.check
    ns: dict[str, Any] = {"__name__": "original"}
    exec(compile((KERNELS / kernel).read_text(), kernel, "exec"), ns)
    gen: dict[str, Any] = {"__name__": "generated"}
    exec(compile(res.code["numpy"], "numpy", "exec"), gen)
    for args in cases:
        want = _outcome(ns[function], *copy.deepcopy(args))
        got = _outcome(gen[function], *copy.deepcopy(args))
        if want[0] == "value" and got[0] == "value" and want[1] is not None:
            assert np.allclose(got[1], want[1], equal_nan=True), (function, args, want, got)
        else:
            assert got == want, (function, args)
    return res.code["numpy"]


# ---------------------------------------------------------------- annotations, defaults


def test_annotation_forms_give_the_types() -> None:
    fn = parse_python_file(KERNELS / "annotations.py", "weighted")
    types = {p.name: p.type for p in fn.params}
    assert types["xs"] == PointerType(DType.DOUBLE)  # list[int | float]: the join, float
    assert types["ws"] == PointerType(DType.DOUBLE)  # Optional[Sequence[float]]
    assert types["scale"] == ScalarType(DType.DOUBLE)  # "float | None" = 1.0
    fn = parse_python_file(KERNELS / "annotations.py", "pick")
    assert {p.name: p.type for p in fn.params}["twice"] == ScalarType(DType.INT)  # bool


@pytest.mark.parametrize("function", ["weighted", "pick"])
def test_annotated_kernels_lift(function: str, tmp_path: Path) -> None:
    cases = {"weighted": [([1, 2.5], [2.0, -1.0], 3.0), ([], [], 0.5)],
             "pick": [([1.0, 2.0], 0), ([1.0, 2.0], 1), ([], 1)]}[function]
    lift_and_compare("annotations.py", function, cases, tmp_path)


def test_module_type_aliases_name_their_types() -> None:
    fn = parse_python_file(KERNELS / "aliases.py", "dist2")
    assert {p.name: p.type for p in fn.params}["a"] == PointerType(DType.DOUBLE)
    fn = parse_python_file(KERNELS / "aliases.py", "scaled_total")
    assert {p.name: p.type for p in fn.params}["k"] == ScalarType(DType.DOUBLE)


@pytest.mark.parametrize("function", ["dist2", "scaled_total"])
def test_aliased_kernels_lift(function: str, tmp_path: Path) -> None:
    cases = {"dist2": [([0.0, 0.0], [3.0, 4.0]), ([], []), ([1.0, 2.0, 3.0], [1.5])],
             "scaled_total": [([1.0, -2.5], 2.0), ([], 3.0)]}[function]
    lift_and_compare("aliases.py", function, cases, tmp_path)


@pytest.mark.parametrize(
    "alias",
    [
        "V = typing.Union[list[int], np.ndarray]",  # int64 arrays wrap where Python ints do not
        "V = typing.Union[list[list[float]], np.ndarray]",  # rank 2
        "V = np.ndarray",  # an array alone
        "V = typing.Union[list[float], int]",  # mixed ranks
        "V = list[float]\nV = list[int]",  # bound twice: not an alias
    ],
)
def test_unsupported_aliases_are_refused(alias: str, tmp_path: Path) -> None:
    src = tmp_path / "k.py"
    src.write_text(f"import typing\nimport numpy as np\n{alias}\n\ndef f(xs: V) -> float:\n    return 1.0\n")
    with pytest.raises(LiftError, match=r"annotation 'V' .* is not supported"):
        parse_python_file(src)


@pytest.mark.parametrize("annotation", ["dict[str, int]", "list[int | str]", "int | list[int]", "Iterator[float]"])
def test_unsupported_annotations_are_refused(annotation: str, tmp_path: Path) -> None:
    src = tmp_path / "k.py"
    src.write_text(f"def f(xs: {annotation}) -> float:\n    return 1.0\n")
    with pytest.raises(LiftError, match=r"annotation .* is not supported"):
        parse_python_file(src)


def test_helper_defaults_are_filled_in(tmp_path: Path) -> None:
    src = tmp_path / "k.py"
    src.write_text(
        "def scaled(x: float, k: float = 2.0) -> float:\n    return x * k\n\n"
        "def f(xs: list[float]) -> float:\n    s = 0.0\n    for x in xs:\n        s += scaled(x)\n    return s\n"
    )
    res = lift_file(src, ("numpy",), function="f", check=True)
    assert res.status == "verified", res.message
    src.write_text(
        "K = 2.0\ndef scaled(x: float, k: float = K) -> float:\n    return x * k\n\n"
        "def f(xs: list[float]) -> float:\n    s = 0.0\n    for x in xs:\n        s += scaled(x)\n    return s\n"
    )
    with pytest.raises(LiftError, match="default value 'K' of 'scaled' is not a number literal"):
        parse_python_file(src, "f")


# ---------------------------------------------------------------- argument checks

GUARD_CASES = {
    "mean": [([],), ([1.0, 2.0, 4.0],)],
    "chebyshev": [([1.0], [1.0, 2.0]), ([], []), ([1.0, -2.0], [0.5, 3.0])],
    "prefix_mean": [([1.0, 2.0], 0), ([1.0, 2.0], -3), ([1.0, 2.0], 3), ([1.0, 2.0], 2), ([], 0)],
    "checked_scale": [([1.0], 2), ([1.0], -1), ([1.0, 2.0, 3.0], 2)],
    "message_first": [([1.0], 2), ([1.0], -1)],
}


@pytest.mark.parametrize("function", sorted(GUARD_CASES))
def test_argument_checks(function: str, tmp_path: Path) -> None:
    code = lift_and_compare("guards.py", function, GUARD_CASES[function], tmp_path)
    assert "raise ValueError" in code or "return 0" in code


def test_argument_check_is_kept_in_the_loop_ir_interface() -> None:
    fn = parse_python_file(KERNELS / "guards.py", "prefix_mean")
    assert fn.python is not None
    guards = fn.python.guards
    assert [g.exception for g in guards] == [None, "IndexError"]
    assert guards[0].value is not None and guards[0].value.value == 0


@pytest.mark.parametrize(("function", "message"), [
    ("after_division", r"an argument check after a statement that may raise \(a division\) is not supported"),
    ("reads_element", r"an argument check after, or with, a list subscript 'xs\[0\]' is not supported"),
    ("after_loop", r"an argument check after a loop is not supported"),
    ("custom_exception", "raising 'MyError' is not supported"),
    ("row_length_check", r"an argument check after, or with, a list subscript 'm\[0\]' is not supported"),
])
def test_unsafe_argument_checks_are_refused(function: str, message: str) -> None:
    with pytest.raises(LiftError, match=message):
        parse_python_file(KERNELS / "guards_refused.py", function)


# ---------------------------------------------------------------- unpacking, reversed, range values

UNPACKING_CASES = {
    "swap_sums": [([1.0, 2.0], [3.0, -1.0]), ([1.0], []), ([], [])],
    "chained": [([1.0, -2.0],), ([],)],
    "reversed_sum": [([1.0, -2.0, 4.0],), ([],)],
    "reversed_indices": [([1.0, 5.0, 5.0, -2.0],), ([3.0],), ([],)],
    "range_values": [([1.0, 2.0], 1, 4), ([1.0], 4, 1), ([], 0, 0)],
}


@pytest.mark.parametrize("function", sorted(UNPACKING_CASES))
def test_unpacking_reversed_and_range_values(function: str, tmp_path: Path) -> None:
    lift_and_compare("unpacking.py", function, UNPACKING_CASES[function], tmp_path)


def test_unpacking_evaluates_every_value_first() -> None:
    from tenspiler.loops.interp import run_function

    src = KERNELS.parent / "python_idioms" / "unpacking.py"
    fn = parse_python_file(src, "swap_sums")
    xs, ys = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])
    state = run_function(fn, {"xs": xs, "xs__size": 3, "ys": ys, "ys__size": 3})
    assert state["return"] == pytest.approx((0 * 1.0 + 1 * 2.0 + 2 * 3.0) - (4.0 + 5.0 + 6.0))


@pytest.mark.parametrize(("function", "message"), [
    ("too_many", r"unpacking 3 values into 2 names \(Python raises ValueError\)"),
    ("enumerate_reversed", r"enumerate\(reversed\(...\)\) is not supported"),
    ("max_reversed", r"max\(\) over reversed\(\) is not supported"),
    ("twice", "a name assigned twice by one unpacking is not supported"),
])
def test_unsafe_unpacking_is_refused(function: str, message: str) -> None:
    with pytest.raises(LiftError, match=message):
        parse_python_file(KERNELS / "unpacking_refused.py", function)


# ---------------------------------------------------------------- results written in place

IN_PLACE_CASES = {
    "double_all": [([1.0, -2.5],), ([],)],
    "axpy": [(2.0, [1.0, 2.0], [3.0, 4.0]), (1.0, [], [])],
    "scale_matrix": [([[1.0, 2.0], [3.0, 4.0]], -0.5), ([], 2.0)],
    "normalize": [([1.0, 3.0],), ([],), ([1.0, -1.0],)],
    "two_outputs": [([1.0, 2.0], [0.0, 0.0], [0.0, 0.0])],
    "zero_ints": [([1, 2, 3],), ([],)],
}


def _in_place_outcome(f: Any, *args: Any) -> tuple[Any, ...]:
    import copy

    args = copy.deepcopy(args)
    out = _outcome(f, *args)
    return out, [np.asarray(a, dtype=np.float64).tolist() if isinstance(a, list) else a for a in args]


@pytest.mark.parametrize("function", sorted(IN_PLACE_CASES))
def test_results_written_in_place(function: str, tmp_path: Path) -> None:
    res = lift_file(KERNELS / "in_place.py", ("numpy",), function=function, out_dir=tmp_path, check=True)
    assert res.status == "verified", res.message
    assert res.check is not None and all(c["ok"] for c in res.check.values()), res.check
    ns: dict[str, Any] = {"__name__": "original"}
    exec(compile((KERNELS / "in_place.py").read_text(), "in_place.py", "exec"), ns)
    gen: dict[str, Any] = {"__name__": "generated"}
    exec(compile(res.code["numpy"], "numpy", "exec"), gen)
    for args in IN_PLACE_CASES[function]:
        (kind, want), want_args = _in_place_outcome(ns[function], *args)
        (gkind, got), got_args = _in_place_outcome(gen[function], *args)
        assert kind == gkind, (args, kind, gkind)
        if kind == "raised":
            assert want == got
            continue
        assert (want is None) == (got is None)
        if want is not None:
            assert np.allclose(got, want, equal_nan=True)
        for w, g in zip(want_args, got_args, strict=True):
            assert np.allclose(np.asarray(g, dtype=np.float64), np.asarray(w, dtype=np.float64), equal_nan=True)


def test_in_place_rows_are_written_into_the_given_lists(tmp_path: Path) -> None:
    res = lift_file(KERNELS / "in_place.py", ("numpy",), function="scale_matrix", out_dir=tmp_path, check=False)
    assert res.status == "verified", res.message
    gen: dict[str, Any] = {"__name__": "generated"}
    exec(compile(res.code["numpy"], "numpy", "exec"), gen)
    rows = [[1.0, 2.0], [3.0, 4.0]]
    m = [rows[0], rows[1]]
    assert gen["scale_matrix"](m, 2.0) is None
    assert rows == [[2.0, 4.0], [6.0, 8.0]] and m[0] is rows[0]
    arr = np.array([[1.0, 2.0]])
    gen["scale_matrix"](arr, 3.0)
    assert arr.tolist() == [[3.0, 6.0]]
    # rows that are one list object ([[0.0] * 2] * 2): Python's result depends on the aliasing
    with pytest.raises(ValueError, match="distinct"):
        gen["scale_matrix"]([[1.0, 2.0]] * 2, 2.0)


def test_in_place_aliasing_arguments_are_a_precondition(tmp_path: Path) -> None:
    res = lift_file(KERNELS / "in_place.py", ("numpy",), function="axpy", out_dir=tmp_path, check=False)
    assert res.status == "verified", res.message
    gen: dict[str, Any] = {"__name__": "generated"}
    exec(compile(res.code["numpy"], "numpy", "exec"), gen)
    xs = [1.0, 2.0]
    with pytest.raises(ValueError, match="distinct"):
        gen["axpy"](2.0, xs, xs)


def test_in_place_is_numpy_only() -> None:
    pytest.importorskip("torch")
    res = lift_file(KERNELS / "in_place.py", ("torch",), function="double_all", check=False)
    assert res.status != "verified"
    assert "only the numpy backend writes results back" in res.message


@pytest.mark.parametrize(("function", "message"), [
    ("float_into_ints", "storing a float into the list of ints 'xs' is not supported"),
    ("int_into_floats", r"storing the int 'k' into the list of floats 'xs' is not supported"),
    ("writes_and_builds", "returning a list built with append from a function that also modifies a list argument"),
    ("returns_nothing", "must return a value .* or modify a list argument"),
])
def test_unsafe_in_place_writes_are_refused(function: str, message: str) -> None:
    with pytest.raises(LiftError, match=message):
        parse_python_file(KERNELS / "in_place_refused.py", function)


# ---------------------------------------------------------------- methods

METHOD_CASES = {
    "Vec.norm": [([3.0, 4.0], 2.0), ([], 1.0)],
    "Vec.add_into": [([1.0, 2.0], 0.5, [1.0, 1.0])],
    "Vec.dot": [([1.0, 2.0], [3.0, 4.0, 5.0])],
    "Vec.total": [([1.0, 2.0],), ([],)],
    "Matrix.scale_into": [([[1.0, 2.0]], [[0.0, 0.0]], 3.0)],
}


@pytest.mark.parametrize("qualname", sorted(METHOD_CASES))
def test_methods_lift(qualname: str, tmp_path: Path) -> None:
    import copy

    res = lift_file(KERNELS / "methods.py", ("numpy",), function=qualname, out_dir=tmp_path, check=True)
    assert res.status == "verified", res.message
    assert res.check is not None and all(c["ok"] for c in res.check.values()), res.check
    ns: dict[str, Any] = {"__name__": "original"}
    exec(compile((KERNELS / "methods.py").read_text(), "methods.py", "exec"), ns)
    gen: dict[str, Any] = {"__name__": "generated"}
    exec(compile(res.code["numpy"], "numpy", "exec"), gen)
    cls_name, meth = qualname.split(".")
    entry = gen[f"{cls_name}_{meth}"]
    fn = parse_python_file(KERNELS / "methods.py", qualname)
    assert fn.python is not None and fn.python.method is not None
    attrs = fn.python.method[3]
    for args in METHOD_CASES[qualname]:
        want_args, got_args = copy.deepcopy(args), copy.deepcopy(args)
        if fn.python.method[2] == "instance":
            obj = object.__new__(ns[cls_name])
            for a, v in zip(attrs, want_args[: len(attrs)], strict=True):
                setattr(obj, a, v)
            want = getattr(obj, meth)(*want_args[len(attrs):])
        else:
            want = getattr(ns[cls_name], meth)(*want_args)
        got = entry(*got_args)
        assert (want is None) == (got is None)
        if want is not None:
            assert np.isclose(got, want)
        for w, g in zip(want_args, got_args, strict=True):
            assert np.allclose(np.asarray(g, dtype=np.float64), np.asarray(w, dtype=np.float64))


def test_instance_attributes_are_leading_parameters() -> None:
    fn = parse_python_file(KERNELS / "methods.py", "Vec.add_into")
    assert fn.python is not None and fn.python.method == ("Vec", "add_into", "instance", ("data", "scale"))
    assert fn.cxx is not None
    assert [v if isinstance(v, str) else v.name for v in fn.cxx.signature] == ["self_data", "self_scale", "out"]
    # the class body's annotation types the attribute
    assert {p.name: p.type for p in fn.params}["self_scale"] == ScalarType(DType.DOUBLE)


@pytest.mark.parametrize(("qualname", "message"), [
    ("Derived.total", "which has a base class 'Base', is not supported"),
    ("Counter.bump", "assigning the attribute 'self.count' is not supported"),
    ("Counter.calls", "calling the method 'self.helper' is not supported"),
    ("Counter.uses_property", "'self.scale' is a method or property of class 'Counter', not a value"),
    ("Counter.passes_self", r"'self' used other than to read an attribute"),
    ("Counter.uses_cls", "'cls' used in the class method 'Counter.uses_cls' is not supported"),
    ("Counter.nothing", "method 'nothing' is not defined in class 'Counter'"),
    ("Nope.f", "class 'Nope' is not defined at the top level"),
])
def test_unsafe_methods_are_refused(qualname: str, message: str) -> None:
    with pytest.raises(LiftError, match=message):
        parse_python_file(KERNELS / "methods_refused.py", qualname)


# ---------------------------------------------------------------- math, rows, bools

MATH_ROWS_CASES = {
    "powers": [([1.5, -2.0],), ([],)],
    "floors": [([1.5, -1.5, 2.0, -0.0, 0.25],), ([],)],
    "norm": [([3.0, -4.0],), ([],)],
    "scalar_multiply": [([[1, 2], [3, 4]], 0.5), ([], 2.0)],
    "row_totals": [([[1.0, 2.0], [3.0, -4.0]],), ([],)],
    "count_positive": [([1.0, -2.0, 0.0, 3.0],), ([],)],
}


@pytest.mark.parametrize("function", sorted(MATH_ROWS_CASES))
def test_math_rows_and_bools(function: str, tmp_path: Path) -> None:
    lift_and_compare("math_rows.py", function, MATH_ROWS_CASES[function], tmp_path)


def test_floor_is_exact_on_the_loop_ir() -> None:
    from tenspiler.loops.interp import run_function

    fn = parse_python_file(KERNELS / "math_rows.py", "floors")
    xs = [1.5, -1.5, 2.0, -2.0, 0.5, -0.5, 0.0]
    assert fn.cxx is not None and fn.cxx.result is not None
    state = run_function(fn, {"xs": np.array(xs), "xs__size": len(xs), fn.cxx.result.array: np.zeros(len(xs), np.int64)})
    want = [math.floor(x) + math.ceil(x) - math.trunc(x) for x in xs]
    assert list(state[fn.cxx.result.array][: len(xs)]) == want


@pytest.mark.parametrize(("function", "message"), [
    ("pow_var", r"math.pow is only supported with a literal integer exponent 1..8 \(got 'p'\)"),
    ("pow_half", r"math.pow is only supported with a literal integer exponent 1..8 \(got '0.5'\)"),
    ("rows_written", r"iterating over the rows of 'm' while assigning 'row' or the list is not supported"),
    ("bool_operand", r"'x > 0 and x' is not a bool"),
    ("start_at_inf", r"float\('-inf'\) is not supported: infinities and NaN are not real numbers"),
    ("math_inf", r"'math.inf' is not supported: infinities and NaN are not real numbers"),
])
def test_unsupported_math_rows_and_bools_are_refused(function: str, message: str) -> None:
    with pytest.raises(LiftError, match=message):
        parse_python_file(KERNELS / "math_rows_refused.py", function)


# ---------------------------------------------------------------- validation helpers


def test_validation_helpers_run_on_the_objects_given(tmp_path: Path) -> None:
    cases = [
        ([1.0, 2.0], [3.0, 0.5], 0),
        ([], [1.0], 0),  # ValueError from the helper
        ([1.0, "a"], [1.0, 2.0], 0),  # TypeError before any conversion
        ((1.0, 2.0), [1.0, 2.0], 0),  # a tuple is not a list: TypeError
        ([1.0], [1.0, 2.0], 0),  # ValueError from the length check
    ]
    code = lift_and_compare("validation.py", "total_distance", cases, tmp_path)
    entry = code[code.index("def total_distance("):]
    assert entry.index("_check_numbers(") < entry.index("np.asarray(")


@pytest.mark.parametrize(("function", "message"), [
    ("sorts", "expression statement in the validation helper '_sorts' is not supported"),
    ("reads_element", "in the validation helper '_reads_element' is not supported"),
    ("returns", "the validation helper '_returns' returns a value"),
    ("uses_global", "attribute 'math.inf' in the validation helper '_global' is not supported"),
    ("not_a_parameter", r"the argument '\[1.0\]' of the validation call is not a parameter or a literal"),
])
def test_unsafe_validation_helpers_are_refused(function: str, message: str) -> None:
    with pytest.raises(LiftError, match=message):
        parse_python_file(KERNELS / "validation_refused.py", function)


def test_zip_of_rows_reads_rows_through_subscripts() -> None:
    from tenspiler.loops.interp import run_function

    fn = parse_python_file(KERNELS / "math_rows.py", "zipped_rows")
    a, b = [[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, -8.0]]
    state = run_function(fn, {"a": np.array(a).reshape(-1), "a__rows": 2, "a__cols": 2,
                              "b": np.array(b).reshape(-1), "b__rows": 2, "b__cols": 2})
    assert state["return"] == pytest.approx(sum(x * y for ra, rb in zip(a, b, strict=True) for x, y in zip(ra, rb, strict=True)))


# ---------------------------------------------------------------- slices

SLICE_CASES = {
    "head_sum": [([1.0, 2.0, 4.0], 2), ([1.0, 2.0, 4.0], -1), ([1.0, 2.0], -5), ([1.0, 2.0], 7), ([], 0)],
    "tail_max": [([3.0, 1.0, 5.0],), ([3.0],), ([],)],
}


@pytest.mark.parametrize("function", sorted(SLICE_CASES))
def test_slices_lift(function: str, tmp_path: Path) -> None:
    lift_and_compare("slices.py", function, SLICE_CASES[function], tmp_path)


def test_slice_bounds_are_pythons_on_the_loop_ir() -> None:
    from tenspiler.loops.interp import run_function

    fn = parse_python_file(KERNELS / "slices.py", "window_sum")
    xs = [1.0, 2.0, 4.0, 8.0, 16.0]
    for a in range(-7, 8):
        for b in range(-7, 8):
            state = run_function(fn, {"xs": np.array(xs), "xs__size": len(xs), "a": a, "b": b})
            assert state["return"] == sum(xs[a:b]), (a, b)


@pytest.mark.parametrize(("function", "message"), [
    ("stepped", r"a slice with step '2' is not supported"),
    ("writes_while_slicing", r"a loop over the slice 'xs\[1:\]' that assigns elements of 'xs' is not supported"),
])
def test_unsupported_slices_are_refused(function: str, message: str) -> None:
    with pytest.raises(LiftError, match=message):
        parse_python_file(KERNELS / "slices_refused.py", function)


# ---------------------------------------------------------------- checks calling helpers with lists, zip(*m)

PROLOGUE_CASES: dict[str, list[tuple[Any, ...]]] = {
    "grid_diff": [([[1.0, 2.0]], [[0.5, -0.25]]), ([], []), ([[1.0]], []), ([[0.0], [3.0]], [[1.0], [-2.0]])],
    "product": [
        ([[1.0, 2.0], [3.0, 4.0]], [[5.0], [6.0]]),
        ([], []),  # IndexError from the helper reading g[0]
        ([[1.0]], [[1.0, 2.0], [3.0, 4.0]]),  # ValueError from _conformable
        ([[1.0]], [[]]),  # zip(*[[]]) yields nothing: one empty row
        ([[]], [[]]),  # 0 != 1: ValueError
        ([[0.0, -1.5]], [[2.0, 0.0], [0.0, 0.0]]),
    ],
    "col_totals": [([],), ([[]],), ([[], []],), ([[1.0, 2.0], [3.0, -4.0]],), ([[0.0]],)],
    "col_heights": [([],), ([[]],), ([[1, 2], [3, 4], [5, 6]],)],
    # zip truncates to the shorter list; rows of different lengths (also a list without rows
    # beside one with rows of 2) are outside the proof's shape precondition, 'a__cols ==
    # min(a__cols, b__cols)', which the generated code checks (ValueError): only equal row
    # lengths here
    "pair_diff": [([], []), ([[1.0, 2.0], [3.0, 4.0]], [[0.5, 0.5]]), ([[]], [[]]), ([[1.0]], [[2.0], [3.0]])],
}


@pytest.mark.parametrize("function", sorted(PROLOGUE_CASES))
def test_checks_with_list_helpers_and_star_zip_lift(function: str, tmp_path: Path) -> None:
    code = lift_and_compare("checks_prologue.py", function, PROLOGUE_CASES[function], tmp_path)
    if function in ("grid_diff", "product"):
        entry = code[code.index(f"def {function}("):]
        assert entry.index("_validate_checks(") < entry.index("np.asarray(")  # the checks run first


def test_final_raise_becomes_a_check() -> None:
    import ast

    from tenspiler.frontend.py_stmts import final_raise_as_check

    body = ast.parse("x = 1\nif ok(a):\n    y = 2\n    return y\nraise TypeError('no')\n").body
    out = final_raise_as_check(body)
    assert [ast.unparse(s) for s in out] == ["x = 1", "if not ok(a):\n    raise TypeError('no')", "y = 2", "return y"]
    kept = ast.parse("if ok(a):\n    y = 2\nraise TypeError('no')\n").body  # the if does not return
    assert final_raise_as_check(kept) == kept


@pytest.mark.parametrize(("function", "message"), [
    ("dims_used_later", "'rows' is assigned by the argument checks at the top .* used after them"),
    ("sorts_first", "expression statement in the validation helper '_sorts' is not supported"),
    ("prints_first", "expression statement in the validation helper '_prints' is not supported"),
    ("column_element", r"subscript of .*zip\(\*"),
    ("star_of_local", r"zip\(\*\[xs, xs\]\) is only supported of a list of lists parameter"),
])
def test_unsafe_list_checks_and_star_zips_are_refused(function: str, message: str) -> None:
    with pytest.raises(LiftError, match=message):
        parse_python_file(KERNELS / "checks_prologue_refused.py", function)
