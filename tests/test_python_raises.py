"""Issue 32, class 4: where a Python function raises, the generated code raises the same
exception (``tenspiler.codegen.raises``), and the translation validation compares
exceptions too (``tenspiler.check.python``: inputs on which Python raises are kept).

Each kernel of ``tests/kernels/issue32/raises/`` is lifted with ``--check`` (NumPy and, when
installed, PyTorch) and its generated code run on inputs where Python raises and where it
does not: the same exception class, or the same value.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tenspiler.codegen import python_host
from tenspiler.pipeline import lift_file

KERNELS = Path(__file__).resolve().parent / "kernels" / "issue32" / "raises"
BACKENDS = ("numpy", "torch") if importlib.util.find_spec("torch") is not None else ("numpy",)


def _outcome(f: Any, *args: Any) -> tuple[str, Any]:
    try:
        with np.errstate(all="ignore"):
            v = f(*args)
    except Exception as e:  # the class is what is compared
        return "raised", type(e).__name__
    if hasattr(v, "numpy"):
        v = v.numpy()
    return "value", np.asarray(v, dtype=np.float64).tolist()


CASES = {
    "scale_div.py": [([1.0, 2.0], 0.0), ([1.0, 2.0], -0.0), ([], 0.0), ([1.0, -3.0], 4.0)],
    "guarded_div.py": [([1.0, 2.0], [0.0, 4.0]), ([5.0], [-0.0])],
    "loop_floordiv.py": [([1, 2], 0), ([], 0), ([7, -7], -3)],
    "hoisted_div.py": [([], 0.0), ([1.0], 0.0), ([1.0, 2.0], 0.5)],
    "rms_scale.py": [([], 1.0), ([1.0], -1.0), ([1.0, 2.0], -2e-5), ([1.0, 2.0], 8.0), ([], -1.0)],
    "exp_all.py": [([1.0, 709.0], ), ([1.0, 710.0], ), ([-1000.0], )],
    "sqrt_all.py": [([4.0, -1.0], ), ([4.0, -0.0], ), ([], )],
    "first_elem.py": [([], ), ([3, 1, 2], )],
}


@pytest.mark.parametrize("kernel", sorted(CASES))
def test_generated_code_raises_what_python_raises(kernel: str, tmp_path: Path) -> None:
    res = lift_file(KERNELS / kernel, BACKENDS, out_dir=tmp_path, check=True)
    assert res.status == "verified", res.message
    assert res.check is not None and all(c["ok"] for c in res.check.values()), res.check
    name = kernel[:-3]
    ns: dict[str, Any] = {"__name__": "original"}
    exec(compile((KERNELS / kernel).read_text(), kernel, "exec"), ns)
    for backend in BACKENDS:
        gen: dict[str, Any] = {"__name__": f"generated_{backend}"}
        exec(compile(res.code[backend], backend, "exec"), gen)
        for args in CASES[kernel]:
            want = _outcome(ns[name], *args)
            got = _outcome(gen[name], *args)
            if want[0] == "value" and got[0] == "value":
                assert np.allclose(got[1], want[1], equal_nan=True), (backend, args, want, got)
            else:
                assert got == want, (backend, args)


def test_two_exception_classes_in_a_loop_are_refused() -> None:
    res = lift_file(KERNELS / "inv_sqrt_loop.py", ("numpy",), check=False)
    assert res.status == "not_lifted"
    assert "ValueError or ZeroDivisionError" in res.message


def test_assumption_names_what_must_not_raise() -> None:
    res = lift_file(KERNELS / "rms_scale.py", ("numpy",), check=False)
    assert res.status == "verified", res.message
    text = " ".join(res.assumptions)
    assert "divisors are non-zero (ZeroDivisionError)" in text
    assert "math.sqrt arguments are >= 0 (ValueError)" in text


def test_the_check_catches_code_that_does_not_raise(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # without its raise checks the generated code returns inf where Python raises: the
    # translation validation must refuse it (its adversarial inputs hold zero divisors)
    monkeypatch.setattr(python_host, "python_raises", lambda fn, outputs, ctx: [])
    res = lift_file(KERNELS / "scale_div.py", ("numpy",), out_dir=tmp_path, check=True)
    assert res.status == "not_lifted", res.message
    assert "ZeroDivisionError" in res.message


def test_exp_limit_is_pythons() -> None:
    from tenspiler.codegen.raises import EXP_LIMIT

    math.exp(EXP_LIMIT)
    with pytest.raises(OverflowError):
        math.exp(float(np.nextafter(EXP_LIMIT, math.inf)))
