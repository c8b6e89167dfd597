"""A top-level ``if`` around loops whose condition reads only scalar parameters (and locals
computed from them before it) splits the function into paths (``loops/ir.py: PathSplit``,
``frontend/c_stmts.py: lower_paths``): each path's function is proved under its path
condition (a stated, checked precondition), the generated code branches on the condition
(``codegen/paths.py``), and ``--check`` compares it with the compiled C on inputs of every
path. Refused by name: conditions reading an array, a variable a loop writes, or with a side
effect."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tenspiler.check.generated import run_generated
from tenspiler.errors import BadInput
from tenspiler.frontend.c import parse_c_file, parse_c_source
from tenspiler.loops.interp import run_function
from tenspiler.loops.ir import path_leaves
from tenspiler.pipeline import lift_file
from tests.lifting import assert_lifts

KERNELS = Path(__file__).resolve().parent / "kernels" / "branch_paths"


@pytest.mark.parametrize(("name", "paths"), [("sign_branch.c", 2), ("mode_for.c", 3), ("sum_or_max.c", 2),
                                             ("shift_sign.c", 2), ("rare_path.c", 2)])
def test_paths_verify_check_every_path_and_recheck(name: str, paths: int, tmp_path: Path) -> None:
    res = assert_lifts(KERNELS / name, tmp_path)
    assert res.check is not None
    for b, c in res.check.items():
        assert len(c["paths"]) == paths, (b, c)
        assert all(p["inputs"] > 0 and p["passed"] == p["inputs"] for p in c["paths"]), (b, c)
    assert res.summary is not None and res.summary.count("if ") == paths
    assert any("the path condition" in a for a in res.assumptions), res.assumptions
    cert = Path(res.certificate or "").read_text()
    assert cert.count("; path ") == paths


def test_generated_code_branches_like_the_source(tmp_path: Path) -> None:
    """The entry takes the path C takes for both signs of the narrow count (the sign bit of
    ``amount + 1`` wrapped to int8: ``amount = 127`` wraps to -128), against the loop-IR
    interpreter (itself checked against the compiled C by assert_lifts)."""
    fn = parse_c_file(KERNELS / "sign_branch.c")
    res = lift_file(KERNELS / "sign_branch.c", ("numpy",), out_dir=tmp_path, check=False)
    assert res.status == "verified", res.message
    code = (tmp_path / "sign_branch.py").read_text()
    assert "def sign_branch__path1(" in code and "def sign_branch__path2(" in code
    from tenspiler.codegen import GeneratedCode

    gen = GeneratedCode("numpy", "python", ".py", code, "sign_branch", ("src", "amount", "dst", "count"))
    src = np.array([5, -3, 0, 7, 2**20, -(2**20)], dtype=np.int64)
    for amount in (-128, -2, -1, 0, 1, 5, 126, 127):
        inputs = {"src": src, "amount": amount, "dst": np.zeros(6, dtype=np.int64), "count": 6}
        want = run_function(fn, inputs)["dst"]
        got = run_generated(gen, inputs)
        assert np.array_equal(np.asarray(got), want), (amount, got, want)


def test_a_path_function_raises_outside_its_path_condition(tmp_path: Path) -> None:
    res = lift_file(KERNELS / "sign_branch.c", ("numpy",), out_dir=tmp_path, check=False)
    assert res.status == "verified", res.message
    ns: dict[str, object] = {}
    exec(compile((tmp_path / "sign_branch.py").read_text(), "sign_branch.py", "exec"), ns)
    path1 = ns["sign_branch__path1"]
    with pytest.raises(ValueError, match="path condition"):
        path1(np.zeros(2, dtype=np.int64), -5, np.zeros(2, dtype=np.int64), 2)  # type: ignore[operator]


def test_split_structure_and_interpreter() -> None:
    fn = parse_c_file(KERNELS / "mode_for.c")
    assert fn.split is not None and fn.body == ()
    leaves = path_leaves(fn)
    assert [tuple(t for _, t in conds) for conds, _ in leaves] == [(True,), (False, True), (False, False)]
    a = np.array([1, -2, 3], dtype=np.int64)
    for mode, want in ((3, a + 1), (4, a * a), (5, -a), (-1, -a), (-3, a + 1), (-2, -a)):  # C's % truncates
        got = run_function(fn, {"a": a, "mode": mode, "out": np.zeros(3, dtype=np.int64), "n": 3})["out"]
        assert np.array_equal(got, want), (mode, got)


@pytest.mark.parametrize(("name", "message"), [
    ("refuse_array_cond.c", "reads an array element"),
    ("refuse_loop_written.c", "reads 's', which the loop at line 4 writes"),
    ("refuse_side_effect.c", "has a side effect"),
])
def test_unsafe_conditions_are_refused_by_name(name: str, message: str) -> None:
    with pytest.raises(BadInput, match=message) as err:
        parse_c_file(KERNELS / name)
    assert err.value.loc is not None and err.value.loc.line >= 3


def test_a_path_that_leaves_the_output_unchanged_is_not_lifted() -> None:
    res = lift_file(KERNELS / "one_armed.c", ("numpy",), check=False)
    assert res.status != "verified"


def test_an_if_around_loops_inside_a_loop_is_still_refused() -> None:
    src = """void f(const int *a, int *out, int n, int m, int k) {
      for (int j = 0; j < m; j++) {
        if (k > 0) { for (int i = 0; i < n; i++) out[j * n + i] = a[i]; }
      }
    }"""
    with pytest.raises(BadInput, match="for loop inside if is not supported"):
        parse_c_source(src, "k.c")


def test_a_null_test_around_loops_is_not_a_split() -> None:
    src = """void f(const int *a, const int *b, int *out, int n) {
      if (b) { for (int i = 0; i < n; i++) out[i] = a[i] + b[i]; }
      else { for (int i = 0; i < n; i++) out[i] = a[i]; }
    }"""
    fn = parse_c_source(src, "k.c")
    assert fn.split is None


# ---------------------------------------------------------------- shifts by a run-time count


def _module(tmp_path: Path, name: str) -> dict[str, object]:
    res = lift_file(KERNELS / f"{name}.c", ("numpy",), out_dir=tmp_path, check=False)
    assert res.status == "verified", res.message
    ns: dict[str, object] = {}
    exec(compile((tmp_path / f"{name}.py").read_text(), f"{name}.py", "exec"), ns)
    return ns


def test_runtime_shift_counts_at_the_edges_and_outside(tmp_path: Path) -> None:
    """Counts 0 and 31 (width - 1) compute as C does (the loop-IR interpreter, itself checked
    against the compiled C); 32 and more, on either path, raise the stated precondition."""
    fn = parse_c_file(KERNELS / "shift_sign.c")
    entry = _module(tmp_path, "shift_sign")["shift_sign"]
    src = np.array([-32768, -3, -1, 0, 1, 7, 32767], dtype=np.int64)
    for bits in (0, 1, 15, 16, 17, 31, -1, -15, -16, -31):
        inputs = {"src": src, "bits": bits, "dst": np.zeros(7, dtype=np.int64), "count": 7}
        want = run_function(fn, inputs)["dst"]
        got = entry(src, bits, np.zeros(7, dtype=np.int64), 7)  # type: ignore[operator]
        assert np.array_equal(np.asarray(got), want), (bits, got, want)
    for bits in (32, 100, 127, -32, -128):
        with pytest.raises(ValueError, match="shift count"):
            entry(src, bits, np.zeros(7, dtype=np.int64), 7)  # type: ignore[operator]


def test_runtime_shift_count_is_a_stated_precondition() -> None:
    fn = parse_c_file(KERNELS / "shift_sign.c")
    for _, leaf in path_leaves(fn):
        whats = [w for _, _, w in leaf.requires if "shift count" in w]
        assert len(whats) == 2 and all("[0, 32)" in w for w in whats), leaf.requires


def test_the_integer_pow_has_one_semantics() -> None:
    """pow(2, k) of a shift: Python, NumPy and the SMT definition agree on every count in
    [0, 32); outside it the model has no value (C: undefined behaviour)."""
    import z3

    from tenspiler.ir import semantics as sem
    from tenspiler.loops.ir import DType

    ks = np.arange(32)
    assert [sem.py_binop("pow", 2, int(k), DType.INT) for k in ks] == list(sem.np_binop("pow", 2, ks, DType.INT))
    for bad in (-1, 32, 64):
        with pytest.raises(sem.UndefinedBehaviour):
            sem.py_binop("pow", 2, bad, DType.INT)
    for v in (0, 1, 13, 31):
        s = z3.Solver()
        s.from_string(sem.SMT_IPOW2 + f"\n(assert (not (= (tenspiler.pow2 {v}) {2**v})))")
        assert s.check() == z3.unsat


@pytest.mark.parametrize(("body", "message"), [
    ("for (int i = 0; i < n; i++) { int k = a[i]; out[i] = a[i] << k; }", "changes in the statement around it"),
    ("for (int i = 0; i < n; i++) out[i] = a[i] << a[0];", "reads an array element"),
    ("int k = 0; for (int i = 0; i < n; i++) k += a[i]; for (int i = 0; i < n; i++) out[i] = a[i] >> k;",
     "which the loop at line 1 writes"),
    ("for (int i = 0; i < n; i++) lo[i] = b[i] << n;", "a run-time count only for 32-bit operands"),
])
def test_unsafe_runtime_shift_counts_are_refused(body: str, message: str) -> None:
    src = f"void f(const int *a, const long *b, int *out, long *lo, int n) {{ {body} }}"
    with pytest.raises(BadInput, match=message):
        parse_c_source(src, "k.c")
