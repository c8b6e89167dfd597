"""``len(m[i])`` of a list of lists raises ``IndexError`` in Python when ``m`` has no row
``i``: the model raises there too (an argument check at the top level, or a read inside a
loop over the rows of ``m``), or the read is refused by name
(``tenspiler.frontend.py_stmts.Kernel.row_read``). The fuzz regressions
``tests/kernels/fuzz_regressions/python_*_empty_*.py`` are the 2-D and 3-D cases the red
team found."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tenspiler.errors import BadInput
from tenspiler.frontend.python import parse_python_file
from tenspiler.pipeline import lift_file

KERNELS = Path(__file__).resolve().parent / "kernels" / "python_rows"


def _outcome(f: Any, *args: Any) -> tuple[str, Any]:
    try:
        v = f(*args)
    except Exception as e:  # the class is what is compared
        return "raised", type(e).__name__
    if isinstance(v, int):
        return "value", v
    return "value", [[float(y) for y in x] if hasattr(x, "__len__") else float(x) for x in v]


CASES = {
    "col_sums_first_row.py": [([],), ([[1.0, 2.0], [3.0, -4.0]],), ([[]],), ([[5.0]],)],
    "row_sums_in_loop.py": [([],), ([[1.0, 2.0], [3.0, -4.0]],), ([[], []],)],
    "len_in_other_loop.py": [([1.0], []), ([], []), ([2.0, -1.0], [[1.0, 2.0]]), ([3.0], [[]])],
    "product_rows.py": [([[1.0, 2.0]], []), ([], []), ([[1.0, 2.0], [3.0, 4.0]], [[1.0], [2.0]])],
    "second_row_len.py": [([], 2.0), ([[1.0, 2.0]], 2.0), ([[1.0], [2.0]], -1.0), ([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], 0.5)],
}


@pytest.mark.parametrize("kernel", sorted(CASES))
def test_row_length_raises_as_python(kernel: str, tmp_path: Path) -> None:
    res = lift_file(KERNELS / kernel, ("numpy",), out_dir=tmp_path, check=True)
    assert res.status == "verified", res.message
    assert res.check is not None and all(c["ok"] for c in res.check.values()), res.check
    name = kernel[:-3]
    ns: dict[str, Any] = {"__name__": "original"}
    exec(compile((KERNELS / kernel).read_text(), kernel, "exec"), ns)
    gen: dict[str, Any] = {"__name__": "generated"}
    exec(compile(res.code["numpy"], "numpy", "exec"), gen)
    for args in CASES[kernel]:
        assert _outcome(gen[name], *args) == _outcome(ns[name], *args), args


@pytest.mark.parametrize(("kernel", "reason"), [
    ("len_in_branch.py", "inside a branch"),
    ("len_after_division.py", "after a statement that may raise (a division)"),
    ("len_at_param_index.py", "the index is neither a literal nor the counter of a loop over its rows"),
])
def test_row_length_that_may_raise_elsewhere_is_refused(kernel: str, reason: str) -> None:
    with pytest.raises(BadInput) as e:
        parse_python_file(KERNELS / kernel, kernel[:-3])
    assert "may have no such row (Python raises IndexError)" in str(e.value)
    assert reason in str(e.value)
