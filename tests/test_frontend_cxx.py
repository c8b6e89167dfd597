"""The C++ std::vector subset: rewrite, lowering to the flat loop IR, refusals, and the
generated entry with the C++ signature."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tenspiler.errors import LiftError
from tenspiler.frontend.c import parse_c_source
from tenspiler.frontend.cxx import rewrite_cxx
from tenspiler.loops.interp import run_function
from tenspiler.loops.ir import DType, Load, PointerType, ScalarType, VectorParam
from tenspiler.pipeline import lift_file
from tenspiler.vc.symexec import subexpressions

HERE = Path(__file__).parent


def cxx(src: str, function: str | None = None):  # type: ignore[no-untyped-def]
    return parse_c_source(src, "k.cc", function, cxx=True)


def test_rewrite_keeps_lines_and_columns() -> None:
    text = "using namespace std;\nstd::vector<std::vector<float>> f(const vector<int> &v);\n"
    out, used = rewrite_cxx(text, "k.cc")
    assert len(out) == len(text)
    assert [len(line) for line in out.split("\n")] == [len(line) for line in text.split("\n")]
    assert out.split("\n")[1].startswith("__vec2_float")
    assert "&" not in out and "std" not in out and "vector" not in out
    assert sorted(used) == ["__vec1_int", "__vec2_float"]


def test_vector_parameters_are_flattened_with_their_sizes() -> None:
    fn = cxx(
        "#include <vector>\nusing namespace std;\n"
        "float f(vector<vector<float>> m, vector<float> v, int k) {\n"
        "  float s = 0.0f;\n"
        "  for (int i = 0; i < m.size(); i++) s += m[i][k] * v[i];\n"
        "  return s;\n}\n"
    )
    assert [(p.name, p.type) for p in fn.params] == [
        ("m", PointerType(DType.FLOAT)),
        ("m__rows", ScalarType(DType.INT)),
        ("m__cols", ScalarType(DType.INT)),
        ("v", PointerType(DType.FLOAT)),
        ("v__size", ScalarType(DType.INT)),
        ("k", ScalarType(DType.INT)),
    ]
    assert fn.cxx is not None and fn.cxx.result is None
    assert fn.cxx.signature == (
        VectorParam("m", 2, DType.FLOAT, ("m__rows", "m__cols"), "float"),
        VectorParam("v", 1, DType.FLOAT, ("v__size",), "float"),
        "k",
    )
    # m[i][k] reads the flat element i * m__cols + k, and only a column inside the row
    m = np.array([[1.0, 2.0], [3.0, 4.0]])
    inputs = {"m": m.reshape(-1), "m__rows": 2, "m__cols": 2, "v": np.array([10.0, 100.0]), "v__size": 2, "k": 1}
    assert run_function(fn, inputs)["return"] == pytest.approx(2.0 * 10 + 4.0 * 100)
    with pytest.raises(IndexError, match="index 2 into a row"):
        run_function(fn, {**inputs, "k": 2})
    loads = [e for s in fn.body for e in _exprs(s) if isinstance(e, Load) and e.array == "m"]
    assert loads and all(ld.row is not None for ld in loads)


def _exprs(s):  # type: ignore[no-untyped-def]
    from tenspiler.loops.ir import Assign, For, Return, Store

    match s:
        case Assign(value=v) | Return(value=v) if v is not None:
            yield from subexpressions(v)
        case Store(index=i, value=v):
            yield from subexpressions(i)
            yield from subexpressions(v)
        case For(body=body):
            for b in body:
                yield from _exprs(b)


def test_push_back_builds_the_returned_rows() -> None:
    fn = cxx(
        "#include <vector>\nusing namespace std;\n"
        "vector<vector<int>> f(vector<vector<int>> a, int s) {\n"
        "  vector<vector<int>> out;\n"
        "  for (int r = 0; r < a.size(); r++) {\n"
        "    vector<int> row;\n"
        "    for (int c = 0; c < a[0].size(); c++) row.push_back(a[r][c] * s);\n"
        "    out.push_back(row);\n"
        "  }\n"
        "  return out;\n}\n"
    )
    assert fn.return_dtype is None and fn.params[-1].name == "out"
    assert fn.cxx is not None and fn.cxx.result is not None
    r = fn.cxx.result
    assert (r.array, r.rank, r.elem, r.elem_cxx) == ("out", 2, DType.INT, "int")
    a = np.arange(6).reshape(2, 3)
    final = run_function(fn, {"a": a.reshape(-1), "a__rows": 2, "a__cols": 3, "s": 5, "out": np.zeros(8, dtype=np.int64)})
    assert list(final["out"][:6]) == list((a * 5).reshape(-1))
    assert list(final["out"][6:]) == [0, 0]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("vector<float> out; for (int i = 0; i < n; i++) if (a[i] > 0) out.push_back(a[i]); return out;",
         "6:62: push_back inside if is not supported"),
        ("vector<float> out; for (int i = 0; i < n; i++) a[i] = 0; return out;",
         "6:48: writing or taking the address of an element of vector 'a' is not supported"),
        ("vector<float> out; a.push_back(1.0f); return out;",
         "6:20: push_back on parameter 'a' is not supported"),
        ("vector<float> out; out.clear(); return out;",
         "6:20: method 'clear' is not supported (only size() and push_back())"),
        ("vector<float> out; for (int i = 0; i < n; i++) for (int j = 0; j < i; j++) out.push_back(a[j]); return out;",
         "6:76: the length of the returned vector depends on 'i'"),
        ("vector<float> out; vector<float> tmp; return out;",
         "6:34: a second local vector 'tmp' is not supported"),
        ("vector<float> out; return a;",
         "6:20: 'f' returns a vector<float>: it must return the local vector it builds"),
    ],
)
def test_constructs_outside_the_subset_are_refused_with_a_location(body: str, message: str) -> None:
    src = f"#include <vector>\nusing namespace std;\n\n\nvector<float> f(vector<float> a, int n) {{\n{body}\n}}\n"
    with pytest.raises(LiftError) as e:
        cxx(src)
    assert str(e.value).startswith(f"k.cc:{message}"), str(e.value)


def test_a_local_vector_is_only_allowed_as_the_result() -> None:
    src = "#include <vector>\nusing namespace std;\nfloat f(vector<float> a) {\n  vector<float> t;\n  return a[0];\n}\n"
    with pytest.raises(LiftError, match=r"k.cc:4:17: local vector<float> 't' is not supported"):
        cxx(src)


def test_generated_entry_takes_and_returns_nested_arrays(tmp_path: Path) -> None:
    res = lift_file(HERE / "kernels" / "img_avg.cc", ["numpy"], out_dir=tmp_path)
    assert res.status == "verified", res.message
    ns: dict[str, object] = {}
    exec(compile(res.code["numpy"], "img_avg.py", "exec"), ns)
    img_avg = ns["img_avg"]
    a = np.array([[10, 255], [0, 3], [7, 8]], dtype=np.uint8)
    b = np.array([[20, 255], [1, 4], [9, 9]], dtype=np.uint8)
    got = img_avg(a, b)  # type: ignore[operator]
    assert got.dtype == np.uint8 and got.shape == (3, 2)
    assert got.tolist() == [[15, 255], [0, 3], [8, 8]]
    # the shape precondition of the proof is checked, never silently violated
    with pytest.raises(ValueError, match="b__cols == a__cols"):
        img_avg(a, b[:, :1])  # type: ignore[operator]
    assert img_avg(np.zeros((0, 0)), np.zeros((0, 0))).shape == (0, 0)  # type: ignore[operator]


@pytest.mark.parametrize("name", ["img_avg.cc", "block_dot.cc", "col_sums.c"])
def test_summary_invariants_and_numpy_golden(name: str, golden, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Golden TensIR summary + loop invariants and generated NumPy code for 2-D kernels
    of the C++ subset and the strided / transposed views."""
    res = lift_file(HERE / "kernels" / name, ["numpy"], out_dir=tmp_path)
    assert res.status == "verified", res.message
    stem = name.split(".")[0]
    golden(f"tensir/{stem}.txt", "\n".join([res.summary or "", *res.invariants]) + "\n")
    golden(f"numpy/{stem}.py", res.code["numpy"])
