"""Python's ``**`` with a float result and a power that is not a small literal: the C
library's ``pow`` (``semantics.py_pow``; uninterpreted in proofs), raising what Python
raises (``codegen/raises.py``: ZeroDivisionError for ``0.0 ** y``, ``y < 0``, unless the
power is known non-negative; OverflowError where finite operands give a result beyond the
doubles), refused by name where Python's result is a complex number, where two exception
classes could come first inside a loop, and for ``int ** int``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tenspiler.errors import BadInput
from tenspiler.frontend.python import parse_python_file
from tenspiler.pipeline import lift_file

KERNELS = Path(__file__).resolve().parent / "kernels" / "python_pow"


def _outcome(f: Any, *args: Any) -> tuple[str, Any]:
    try:
        v = f(*args)
    except Exception as e:  # the class is what is compared
        return "raised", type(e).__name__
    return "value", [float(x) for x in v] if hasattr(v, "__len__") else float(v)


CASES = {
    "p_norm.py": [([1.0, -2.0], [4.0, 2.0], 2), ([1e200, 0.0], [-1e200, 0.0], 2), ([1e300, 1e300], [0.0, 0.0], 1),
                  ([], [], 3), ([1.0], [2.0], 0)],
    "poly_eval.py": [([1.0, 2.0, 3.0], -2.0), ([1.0, 1.0], 0.0), ([0.0] * 40 + [1.0], 1e10), ([], 5.0)],
    "root_sum_squares.py": [([3.0, 0.0], [0.0, 4.0]), ([1e200], [-1e200]), ([], [])],
    "pow_elems.py": [([4.0, -9.0, 0.0],), ([1e250],), ([],)],
    "pow_guarded_int.py": [([-2.0, 0.0, 3.0], 3), ([0.0, 2.0], 0), ([1e100], 4), ([1.0], -1)],
}


@pytest.mark.parametrize("kernel", sorted(CASES))
def test_pow_lifts_and_raises_as_python(kernel: str, tmp_path: Path) -> None:
    res = lift_file(KERNELS / kernel, ("numpy",), out_dir=tmp_path, check=True)
    assert res.status == "verified", res.message
    assert res.check is not None and all(c["ok"] for c in res.check.values()), res.check
    assert "pow" in res.summary
    name = kernel[:-3]
    ns: dict[str, Any] = {"__name__": "original"}
    exec(compile((KERNELS / kernel).read_text(), kernel, "exec"), ns)
    gen: dict[str, Any] = {"__name__": "generated"}
    exec(compile(res.code["numpy"], "numpy", "exec"), gen)
    for args in CASES[kernel]:
        want, got = _outcome(ns[name], *args), _outcome(gen[name], *args)
        if want[0] == "value" and got[0] == "value":
            assert got[1] == pytest.approx(want[1], rel=1e-12), args
        else:
            assert got == want, args


@pytest.mark.parametrize(("kernel", "message"), [
    ("pow_complex.py", "Python's '**' of a base that may be negative to a power that may not be an integer is a complex"),
    ("pow_two_classes.py", "may raise OverflowError or ZeroDivisionError inside its loops"),
])
def test_pow_python_cannot_model_is_not_lifted(kernel: str, message: str) -> None:
    res = lift_file(KERNELS / kernel, ("numpy",), check=False)
    assert res.status == "not_lifted"
    assert message in res.message


def test_int_to_an_int_power_is_refused() -> None:
    with pytest.raises(BadInput, match="'\\*\\*' of two ints is only supported with a literal integer exponent"):
        parse_python_file(KERNELS / "int_pow.py", "int_pow")
