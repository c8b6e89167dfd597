"""Python as people write it (issue 34): annotations of any common form, default values,
argument checks (``if not xs: raise ValueError(...)``, early returns), ... Each kernel of
``tests/kernels/python_idioms/`` is lifted with ``--check`` (the original function against
the generated code on adversarial inputs) and its generated code is run on inputs where the
checks fire: the same exception class, or the same early value."""

from __future__ import annotations

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
    ("reads_element", r"the condition of an argument check may raise \(a list element\)"),
    ("after_loop", r"an argument check after a loop is not supported"),
    ("custom_exception", "raising 'MyError' is not supported"),
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
