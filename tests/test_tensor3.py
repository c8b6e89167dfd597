"""3-D tensors: C++ ``vector<vector<vector<T>>>`` and Python ``list[list[list[T]]]``
parameters (flattened row-major, sizes ``planes, rows, cols``), read as ``x[p][r][c]``, and
3-D loop nests over flat arrays — lifted through block loops (the outer loop writes one
row of ``rows * cols`` elements per plane). End-to-end lifts with checks and re-checks, the
frontends' index arithmetic and undefined-behaviour checks, mutants that must not verify
with the original's candidate, and refusals with their reasons."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tenspiler.errors import LiftError, VerificationError
from tenspiler.frontend.c import parse_c_file, parse_c_source
from tenspiler.frontend.python import parse_python_source
from tenspiler.loops.interp import run_function
from tenspiler.loops.ir import Load, Return, VectorParam
from tenspiler.pipeline import lift_file
from tenspiler.synth.search import synthesize
from tenspiler.vc.analyze import analyze_kernel
from tenspiler.vc.blocks import BlockKernel
from tenspiler.verify.verifier import prove
from tests.lifting import assert_lifts

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks" / "kernels" / "tensor3"

GET = """#include <vector>
using namespace std;
float get(vector<vector<vector<float>>> x, int p, int r, int c) { return x[p][r][c]; }
"""


@pytest.mark.parametrize("path", sorted(BENCH.iterdir()), ids=lambda p: p.name)
def test_tensor3_kernels_verify_check_and_recheck(path: Path, tmp_path: Path) -> None:
    res = assert_lifts(path, tmp_path)
    assert res.summary is not None and "flatten(" in res.summary


def test_cxx_3d_parameter_is_flat_with_three_sizes() -> None:
    fn = parse_c_source(GET, "get.cc", cxx=True)
    assert fn.cxx is not None
    (v, *_) = fn.cxx.signature
    assert isinstance(v, VectorParam) and v.rank == 3 and v.sizes == ("x__planes", "x__rows", "x__cols")
    ret = fn.body[-1]
    assert isinstance(ret, Return) and isinstance(ret.value, Load)
    assert ret.value.row is not None and ret.value.plane is not None
    x = np.arange(2 * 3 * 4, dtype=np.float32)
    dims = {"x__planes": 2, "x__rows": 3, "x__cols": 4}
    assert run_function(fn, {"x": x, **dims, "p": 1, "r": 2, "c": 3})["return"] == x[(1 * 3 + 2) * 4 + 3]


@pytest.mark.parametrize(("p", "r", "c"), [(0, 3, 0), (0, 0, 4), (1, -1, 2)])
def test_an_index_outside_its_row_or_plane_is_undefined(p: int, r: int, c: int) -> None:
    """``x[0][3][0]`` of a 2x3x4 tensor is inside the flat buffer but outside plane 0: C++
    has no such element, so the loop-IR interpreter refuses it (as for rows of 2-D vectors)."""
    fn = parse_c_source(GET, "get.cc", cxx=True)
    dims = {"x__planes": 2, "x__rows": 3, "x__cols": 4}
    with pytest.raises(IndexError, match="into a row of x out of range"):
        run_function(fn, {"x": np.zeros(24, dtype=np.float32), **dims, "p": p, "r": r, "c": c})


def test_python_3d_list_parameter() -> None:
    src = ("def get(x: list[list[list[int]]], p: int, r: int, c: int) -> int:\n"
           "    return x[p][r][c] + len(x) + len(x[0]) + len(x[0][0])\n")
    fn = parse_python_source(src, "get.py")
    assert fn.cxx is not None
    (v, *_) = fn.cxx.signature
    assert isinstance(v, VectorParam) and v.rank == 3
    x = np.arange(24, dtype=np.int64)
    dims = {"x__planes": 2, "x__rows": 3, "x__cols": 4}
    assert run_function(fn, {"x": x, **dims, "p": 1, "r": 0, "c": 2})["return"] == (1 * 3 + 0) * 4 + 2 + 2 + 3 + 4


@pytest.mark.parametrize(("src", "name", "reason"), [
    ("#include <vector>\nusing namespace std;\nint f(vector<vector<vector<int>>> x) { return x[0][0][0][0]; }\n",
     "f.cc", "too many subscripts"),
    ("#include <vector>\nusing namespace std;\nint f(vector<vector<vector<int>>> x) { return x[0][1]; }\n",
     "f.cc", "used as a value is not supported"),
    ("#include <vector>\nusing namespace std;\nvector<vector<vector<int>>> f(vector<vector<vector<int>>> x) "
     "{ vector<vector<vector<int>>> o; return o; }\n", "f.cc", "returning a vector<vector<vector<int>>> is not supported"),
    ("def f(x: list[list[list[int]]]) -> int:\n    return x[0][1]\n", "f.py", "is a row of the 3-D list"),
    ("def f(x: list[list[list[int]]]) -> int:\n    return x[0]\n", "f.py", r"plane 'x\[0\]'"),
])
def test_refusals_name_the_reason(src: str, name: str, reason: str) -> None:
    with pytest.raises(LiftError, match=reason):
        if name.endswith(".py"):
            parse_python_source(src, name)
        else:
            parse_c_source(src, name, cxx=True)


@pytest.fixture(scope="module")
def add3_candidate() -> object:
    k = analyze_kernel(parse_c_file(BENCH / "add3.cc"))
    assert isinstance(k, BlockKernel)
    return synthesize(k).candidate


@pytest.mark.parametrize("mutation", [
    ("y[p][r][c]", "y[p][c][r]"),          # swapped indices
    ("x[p][r][c] +", "x[p][r][0] +"),      # a fixed column
    ("x[p][r][c] + y", "x[p][r][c] - y"),  # a swapped operator
    ("int r = 0;", "int r = 1;"),          # a wrong bound
])
def test_mutants_of_add3_do_not_verify_with_its_candidate(mutation: tuple[str, str], add3_candidate: object) -> None:
    text = (BENCH / "add3.cc").read_text()
    assert mutation[0] in text
    try:
        km = analyze_kernel(parse_c_source(text.replace(mutation[0], mutation[1]), "mutant.cc", cxx=True))
    except Exception as err:  # refused outright: not verified either
        assert "not" in str(err)
        return
    with pytest.raises(VerificationError):
        if isinstance(km, BlockKernel):
            prove(km.kernel, add3_candidate)  # type: ignore[arg-type]
        prove(km, add3_candidate)  # type: ignore[arg-type]


def test_a_3d_reduction_is_refused_with_the_reason(tmp_path: Path) -> None:
    src = tmp_path / "total.c"
    src.write_text("int total(int P, int R, int C, int *A) { int s = 0; for (int i = 0; i < P; i++) "
                   "for (int j = 0; j < R; j++) for (int k = 0; k < C; k++) s += A[(i * R + j) * C + k]; return s; }\n")
    res = lift_file(src, ("numpy",), out_dir=tmp_path / "out")
    assert res.status == "not_lifted" and "deeper than two" in res.message


@pytest.fixture(scope="module")
def plane_sums_proof() -> tuple[object, object]:
    k = analyze_kernel(parse_c_file(BENCH / "plane_sums_flat.c"))
    assert isinstance(k, BlockKernel)
    cand = synthesize(k).candidate
    return cand, k.summary(cand)


@pytest.mark.parametrize("mutation", [
    ("s += x[(p * R + r) * C + c];", "s += x[(p * R + r) * C + c + 1];"),  # an index off by one
    ("s += x[(p * R + r) * C + c];", "s += x[(p * C + r) * C + c];"),      # a wrong plane stride
    ("out[p] = s;", "out[p] = s + 1.0;"),                                  # another stored value
    ("for (int c = 0; c < C; c++)", "for (int c = 1; c < C; c++)"),        # a wrong bound
])
def test_mutants_of_plane_sums_do_not_verify_with_its_summary(mutation: tuple[str, str],
                                                             plane_sums_proof: tuple[object, object]) -> None:
    """Per-plane sums: the row kernel is a nest total stored after the nest, lifted to the
    row sums of the planes. A mutated source is refused, or fails the row kernel's proof, or
    fails the outer proof of the original's summary."""
    from tenspiler.errors import NotLiftable

    cand, ps = plane_sums_proof
    text = (BENCH / "plane_sums_flat.c").read_text()
    assert mutation[0] in text
    with pytest.raises((VerificationError, NotLiftable)):
        km = analyze_kernel(parse_c_source(text.replace(mutation[0], mutation[1]), "mutant.c"))
        assert isinstance(km, BlockKernel)
        prove(km.kernel, cand)  # type: ignore[arg-type]
        prove(km, cand, ps=ps)  # type: ignore[arg-type]


AXIS2 = (BENCH / "sum_axis2.c").read_text()


@pytest.mark.parametrize("mutation", [
    ("x[(p * R + r) * C + c]", "x[(p * R + r) * C + c + 1]"),   # index off by one
    ("x[(p * R + r) * C + c]", "x[(r * P + p) * C + c]"),       # planes and rows swapped
    ("out[p * R + r]", "out[r * P + p]"),                       # the output transposed
    ("c < C; c++", "c < C - 1; c++"),                           # a wrong bound
], ids=["off-by-one", "swapped-axes", "transposed-output", "bound"])
def test_mutants_of_an_axis_sum_do_not_verify(mutation: tuple[str, str]) -> None:
    """The sum over the last axis (rows lifted as ``stack``): every level proved with the
    original's candidate and summary must fail on a mutant (or the mutant is refused)."""
    from tests.lifting import assert_mutant_not_verified

    syn = synthesize(analyze_kernel(parse_c_file(BENCH / "sum_axis2.c")))
    assert_mutant_not_verified(AXIS2, mutation, syn.candidate, syn.summary)


@pytest.mark.parametrize("empty", [[], [[]], [[], []], [[[]], [[]]]])
def test_generated_entry_takes_nested_lists_with_an_empty_level(empty: list, tmp_path: Path) -> None:
    """``[[], []]`` (two planes of no row) is a 3-D value with no element: the generated
    entry reads it as shape (2, 0, 0), as the C++ or Python source does, and returns an
    empty result."""
    import importlib.util

    res = lift_file(BENCH / "add3.cc", ("numpy",), out_dir=tmp_path)
    assert res.status == "verified"
    spec = importlib.util.spec_from_file_location("add3_gen", tmp_path / "add3.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert np.asarray(mod.add3(empty, empty)).size == 0
