"""Differential check: generated NumPy code against the compiled original C source."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import numpy as np
import pytest
from test_codegen_numpy import KERNELS, Kernel, make_fn, tv

from tenspiler.check import (
    CheckResult,
    compile_c,
    differential_check,
    outputs_of,
    run_c,
    run_generated,
)
from tenspiler.codegen import GeneratedCode, get_backend
from tenspiler.errors import CodegenError
from tenspiler.ir.terms import (
    ArrayOutput,
    Lit,
    ProgramSummary,
    ScalarOp,
    ScalarVar,
    Take,
    TensorScalar,
    TensorTensor,
)
from tenspiler.loops.ir import DType

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")

INT = DType.INT
n = ScalarVar("n", INT)


def inputs_for(k: Kernel, count: int = 40, seed: int = 0) -> list[dict[str, object]]:
    rng = np.random.default_rng(seed)
    return [k.inputs(rng) for _ in range(count)]


def numpy_code(k: Kernel) -> GeneratedCode:
    return get_backend("numpy").generate(k.fn, k.ps)


# ---------------------------------------------------------------- run_c


def test_run_c_vadd_final_state(tmp_path: Path) -> None:
    k = KERNELS["vadd"]
    kernel = compile_c(k.fn, tmp_path)
    a, b, c = np.array([1, 2, 3]), np.array([10, -20, 30]), np.array([5, 5, 5])
    state = run_c(kernel, k.fn, {"a": a, "b": b, "c": c, "n": 2})
    assert state["return"] is None
    assert set(state) == {"return", "a", "b", "c"}
    assert np.asarray(state["c"]).dtype == np.int64
    assert np.asarray(state["c"]).tolist() == [11, -18, 5]
    assert c.tolist() == [5, 5, 5]  # the caller's array is copied, not written


def test_run_c_return_types(tmp_path: Path) -> None:
    dot = KERNELS["dot"]
    state = run_c(compile_c(dot.fn, tmp_path), dot.fn, {"a": [1, 2], "b": [3, -4], "n": 2})
    assert state["return"] == -5 and type(state["return"]) is int
    fdot = KERNELS["fdot"]
    state = run_c(compile_c(fdot.fn, tmp_path), fdot.fn, {"a": [0.5, 2], "b": [4, 0.25], "n": 2})
    assert state["return"] == 2.5 and type(state["return"]) is float
    assert np.asarray(state["a"]).dtype == np.float64


def test_run_c_uint8_wraps(tmp_path: Path) -> None:
    k = KERNELS["add_u8"]
    state = run_c(compile_c(k.fn, tmp_path), k.fn, {"a": [200], "b": [100], "out": [0], "n": 1})
    assert np.asarray(state["out"]).dtype == np.int64
    assert np.asarray(state["out"]).tolist() == [44]


@pytest.mark.parametrize("name", ["vadd", "dot", "vrecip"])
def test_run_c_agrees_with_generated(name: str, tmp_path: Path) -> None:
    k = KERNELS[name]
    kernel = compile_c(k.fn, tmp_path)
    code = numpy_code(k)
    for x in inputs_for(k, 10):
        expected = outputs_of(k.fn, k.ps, run_c(kernel, k.fn, x))
        got = run_generated(code, x)
        assert len(expected) == 1
        np.testing.assert_allclose(np.asarray(got), np.asarray(expected[0]), rtol=1e-6)


def test_run_c_rejects_values_outside_the_c_type(tmp_path: Path) -> None:
    k = KERNELS["vadd"]
    kernel = compile_c(k.fn, tmp_path)
    with pytest.raises(ValueError, match="range of C int"):
        run_c(kernel, k.fn, {"a": [2**31], "b": [0], "c": [0], "n": 1})
    with pytest.raises(ValueError, match="non-integer"):
        run_c(kernel, k.fn, {"a": [0.5], "b": [0], "c": [0], "n": 1})
    with pytest.raises(KeyError, match="'n'"):
        run_c(kernel, k.fn, {"a": [1], "b": [0], "c": [0]})


# ---------------------------------------------------------------- compile_c


def test_compile_error_carries_cc_stderr(tmp_path: Path) -> None:
    fn = make_fn("broken", "int* a, int n", None, "void broken(int *a, int n) { a[0] = ; }\n")
    with pytest.raises(CodegenError, match="compiling broken") as e:
        compile_c(fn, tmp_path)
    assert "error" in str(e.value)


def test_compile_uses_a_temp_dir_under_workdir(tmp_path: Path) -> None:
    kernel = compile_c(KERNELS["vadd"].fn, tmp_path)
    assert tmp_path in kernel.library.parents
    assert kernel.library.parent != tmp_path


def test_static_kernel_and_helper_functions(tmp_path: Path) -> None:
    src = (
        "static int twice(int x) { return 2 * x; }\n"
        "static void dbl(int *a, int *out, int n) {\n"
        "  for (int i = 0; i < n; i++) out[i] = twice(a[i]);\n}\n"
    )
    fn = make_fn("dbl", "int* a, int* out, int n", None, src)
    ps = ProgramSummary(
        "dbl",
        (
            ArrayOutput(
                "out", Lit(0, INT), n, TensorTensor("+", Take(tv("a"), n), Take(tv("a"), n), INT)
            ),
        ),
    )
    code = get_backend("numpy").generate(fn, ps)
    inputs = [{"a": [1, -2, 3], "out": [0, 0, 0], "n": m} for m in range(4)]
    result = differential_check(fn, ps, code, inputs, tmp_path)
    assert result.ok, result.first_failure


def test_wrong_pointer_element_type_is_a_compile_error(tmp_path: Path) -> None:
    fn = make_fn("wide", "int* a, int n", None, "void wide(long *a, int n) { a[0] = n; }\n")
    with pytest.raises(CodegenError, match=r"incompatible[- ]pointer"):
        compile_c(fn, tmp_path)


# ---------------------------------------------------------------- differential_check


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_generated_numpy_matches_c(name: str, tmp_path: Path) -> None:
    k = KERNELS[name]
    inputs = inputs_for(k)
    result = differential_check(k.fn, k.ps, numpy_code(k), inputs, tmp_path)
    assert result == CheckResult("numpy", len(inputs), len(inputs), None, True)


def test_wrong_summary_is_caught(tmp_path: Path) -> None:
    k = KERNELS["divmod_vec"]
    q, m = k.ps.outputs
    assert isinstance(m, ArrayOutput)
    wrong = TensorTensor(
        "%", Take(tv("a"), n), Take(tv("b"), ScalarOp("+", n, Lit(0, INT), INT)), INT
    )
    wrong_m = ArrayOutput("m", m.lo, m.hi, TensorTensor("-", wrong, Take(tv("q"), n), INT))
    ps = ProgramSummary(k.ps.function, (q, wrong_m))
    code = get_backend("numpy").generate(k.fn, ps)
    result = differential_check(k.fn, ps, code, inputs_for(k, 20), tmp_path)
    assert not result.ok and result.n_passed < result.n_inputs
    assert result.first_failure is not None
    assert result.first_failure.startswith("input #")
    assert "m[0:n] = tensor_tensor(tensor_tensor(take(a, n)" in result.first_failure
    assert "C gave" in result.first_failure


@pytest.mark.parametrize(
    ("body", "failure"),
    [
        ("{ int *p = 0; p[n] = 1; }", "the C function crashed (SIGSEGV)"),
        ("{ for (;;) {} }", "timed out (wall clock): the C function did not return within 0.5 s"),
    ],
)
def test_crashing_or_hanging_c_kernel_is_reported_not_fatal(
    body: str, failure: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tenspiler.check.c as check

    monkeypatch.setattr(check, "C_TIMEOUT", 0.5)
    src = f"void boom(int *a, int n) {{ if (n == 2) {body} a[0] = n; }}\n"
    fn = make_fn("boom", "int* a, int n", None, src)
    one = Lit(1, INT)
    zeroed = TensorScalar("*", Take(tv("a"), one), Lit(0, INT), False, INT)
    ps = ProgramSummary(
        "boom", (ArrayOutput("a", Lit(0, INT), one, TensorScalar("+", zeroed, n, False, INT)),)
    )
    code = get_backend("numpy").generate(fn, ps)
    inputs = [{"a": [5, 6], "n": m} for m in (1, 2, 3)]
    result = differential_check(fn, ps, code, inputs, tmp_path)
    assert (result.n_inputs, result.n_passed, result.ok) == (3, 2, False)
    assert result.first_failure is not None
    assert result.first_failure.startswith("input #1 ")
    assert result.first_failure.endswith(failure)


def test_array_written_by_c_but_missing_from_summary(tmp_path: Path) -> None:
    k = KERNELS["divmod_vec"]
    ps = ProgramSummary(k.ps.function, k.ps.outputs[:1])  # forgets m
    code = get_backend("numpy").generate(k.fn, ps)
    inputs = [{"a": [7], "b": [2], "q": [0], "m": [0], "n": 1}]
    result = differential_check(k.fn, ps, code, inputs, tmp_path)
    assert not result.ok
    assert "C modified 'm'" in (result.first_failure or "")


def test_generated_code_that_mutates_its_input_fails(tmp_path: Path) -> None:
    k = KERNELS["vadd"]
    code = numpy_code(k)
    evil = code.text.replace("r = out.copy()", "r = out")  # the store helper (_store)
    assert evil != code.text
    from dataclasses import replace

    result = differential_check(
        k.fn, k.ps, replace(code, text=evil), [{"a": [1], "b": [2], "c": [0, 5], "n": 1}], tmp_path
    )
    assert not result.ok
    assert "modified its input 'c'" in (result.first_failure or "")


def test_empty_input_list_is_refused(tmp_path: Path) -> None:
    k = KERNELS["vadd"]
    with pytest.raises(ValueError, match="at least one input"):
        differential_check(k.fn, k.ps, numpy_code(k), [], tmp_path)


def test_outputs_of_follows_summary_order() -> None:
    k = KERNELS["divmod_vec"]
    state = {"return": None, "a": 1, "b": 2, "q": "Q", "m": "M"}
    assert outputs_of(k.fn, k.ps, state) == ("Q", "M")
    flipped = ProgramSummary(k.ps.function, k.ps.outputs[::-1])
    assert outputs_of(k.fn, flipped, state) == ("M", "Q")
    dot = KERNELS["dot"]
    assert outputs_of(dot.fn, dot.ps, {"return": 5, "a": 0, "b": 0}) == (5,)


def test_parse_c_source_when_available(tmp_path: Path) -> None:
    c_frontend = pytest.importorskip("tenspiler.frontend.c")
    k = KERNELS["vadd"]
    fn = c_frontend.parse_c_source(k.fn.source, "vadd.c")
    assert [p.name for p in fn.params] == [p.name for p in k.fn.params]
    code = get_backend("numpy").generate(fn, k.ps)
    result = differential_check(fn, k.ps, code, inputs_for(k, 10), tmp_path)
    assert result.ok, result.first_failure


def test_subnormal_inputs_are_skipped_only_for_libraries_that_flush_them() -> None:
    """XLA and TensorFlow flush subnormal floats to zero (documented in their code): their
    check skips inputs holding one; every other backend is compared on all inputs."""
    from tenspiler.pipeline import _flushes_subnormals, _has_subnormal

    assert _has_subnormal({"x": np.array([1.0, -1e-45], dtype=np.float32), "n": 2})
    assert _has_subnormal({"s": 1e-39})  # a Python float: subnormal as a C float
    assert _has_subnormal({"x": np.array([3e-310])})
    assert not _has_subnormal({"x": np.array([0.0, -0.0, 1e-30, np.inf, np.nan], dtype=np.float32), "s": 0.0})
    assert not _has_subnormal({"x": np.array([1e-300]), "k": np.array([0, 1])})
    # a C float array arrives as float64 holding float32 values: its C type decides
    from tenspiler.frontend.c import parse_c_source

    fn = parse_c_source("void f(float *x, double *y, int n) { for (int i = 0; i < n; i++) y[i] = x[i]; }", "f.c")
    tiny32 = float(np.nextafter(np.float32(0), np.float32(-1)))  # -1.4e-45, float32's smallest subnormal
    assert _has_subnormal({"x": np.array([0.0, tiny32]), "y": np.array([0.0]), "n": 2}, fn)
    assert not _has_subnormal({"x": np.array([0.0]), "y": np.array([tiny32]), "n": 1}, fn)
    assert _flushes_subnormals("jax", None) and _flushes_subnormals("tensorflow", None)
    assert not any(_flushes_subnormals(b, None) for b in ("numpy", "torch", "mlx"))


def test_check_compares_float_division_by_zero_with_c() -> None:
    """``0 - x`` equals C's ``-x`` on the reals, not in IEEE arithmetic: at ``x = +0.0`` it is
    +0.0 where ``-x`` is -0.0, and ``1 / -x`` shows it (+inf against C's -inf). The model has
    no value for a float division by zero, but the check keeps such inputs for the generated
    code (C gives ±inf there) and so catches the lost sign; ``negated`` (``-1 * x``) passes."""
    from tenspiler.frontend.c import parse_c_source
    from tenspiler.ir.terms import TensorVar, negated
    from tenspiler.pipeline import _differential
    from tenspiler.vc.analyze import analyze_kernel

    path = Path(__file__).parent / "kernels" / "neg_reciprocal.c"
    fn = parse_c_source(path.read_text(), str(path))
    k = analyze_kernel(fn)
    f = DType.FLOAT
    a = Take(TensorVar("a", f), n)

    def check(neg: TensorScalar | object) -> dict[str, dict[str, object]]:
        value = TensorScalar("/", neg, Lit(1.0, f), True, f)  # type: ignore[arg-type]
        ps = ProgramSummary(fn.name, (ArrayOutput("out", Lit(0, INT), n, value),))
        return _differential(fn, k, ps, {"numpy": get_backend("numpy").generate(fn, ps)}, seed=0)

    lossy = check(TensorScalar("-", a, Lit(0, f), True, f))
    assert not lossy["numpy"]["ok"]
    assert "-inf" in str(lossy["numpy"]["first_failure"])
    assert lossy["loop-ir"]["ok"] and lossy["loop-ir"]["outside_model"] > 0
    exact = check(negated(a, f, True))
    assert exact["numpy"]["ok"], exact["numpy"]["first_failure"]


# ---------------------------------------------------------------- threads and forks

#: What a process that loaded JAX prints when it forks, and TensorFlow's start-up banners.
_FORK_WARNING = "os.fork()"
_TF_BANNERS = ("oneDNN custom operations", "absl::InitializeLog", "cuda", "TensorFlow binary is optimized")


def test_array_library_code_is_checked_in_fresh_interpreters(tmp_path: Path) -> None:
    """``--check`` runs the code of JAX / TensorFlow (which start threads) in fresh
    interpreters: the lifting process never loads them, so it forks safely afterwards (the
    Gemmini check's worker, or the C reference of a next lift), and nothing they print
    reaches the user: no "os.fork() was called ... JAX is multithreaded" warning, no
    TensorFlow banner."""
    import importlib.util
    import os
    import subprocess
    import sys

    names = [b for b in ("jax", "tensorflow") if importlib.util.find_spec(b) is not None]
    if not names:
        pytest.skip("neither jax nor tensorflow is installed")
    # a backend whose check forks after the array libraries' checks (Gemmini's worker)
    forking = "gemmini" if importlib.util.find_spec("egglog") is not None else "tpc_c"
    root = Path(__file__).resolve().parents[1]
    script = (
        "import sys\n"
        "from tenspiler.cli import main\n"
        f"code = main([{str(root / 'examples' / 'saxpy.c')!r}, '--to', {','.join([*names, forking])!r}, '--check', '--json'])\n"
        "print('LOADED', sorted(m for m in ('jax', 'tensorflow', 'torch', 'mlx') if m in sys.modules))\n"
        "sys.exit(code)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TF_", "ABSL_", "JAX_"))}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    env["PYTHONPATH"] = os.pathsep.join([str(root), *filter(None, [os.environ.get("PYTHONPATH")])])
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path,
                       timeout=900, env=env)
    assert p.returncode == 0, p.stderr
    assert _FORK_WARNING not in p.stderr and not any(b in p.stderr for b in _TF_BANNERS), p.stderr
    assert p.stdout.rstrip().splitlines()[-1] == "LOADED []"
    import json

    d = json.loads(p.stdout[: p.stdout.rindex("LOADED")])
    for b in [*names, forking]:
        assert d["check"][b]["ok"] and d["check"][b]["passed"] == d["check"][b]["inputs"] > 0, d["check"][b]


def test_a_crashing_check_interpreter_fails_that_backend_only(tmp_path: Path) -> None:
    """A fresh interpreter that dies (here: the generated torch code exits the process)
    fails that backend's check with the reason; it is not a crash of the lift."""
    import dataclasses

    from tenspiler.check import CheckJob
    from tenspiler.runner import Crashed, FreshInterpreters

    pytest.importorskip("torch")
    k = KERNELS["vadd"]
    code = get_backend("torch").generate(k.fn, k.ps)
    bad = dataclasses.replace(code, text=code.text + "\nimport os\nos._exit(7)\n")
    inputs = [k.inputs(np.random.default_rng(0))]
    job = CheckJob(k.fn, k.ps, bad, inputs, [dict(inputs[0])])
    with FreshInterpreters("tenspiler.check.differential:check_job", [job]) as pool:
        (outcome,) = pool.start().results()
    assert isinstance(outcome, Crashed) and outcome.returncode == 7


def test_the_source_runs_once_per_input_for_all_backends(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--check`` with several backends runs the compiled source once per input (one
    ``run_c_all`` over the inputs), its results shared by every backend's comparison."""
    from tenspiler.check import differential
    from tenspiler.pipeline import lift_file

    calls: list[int] = []
    real = differential.run_c_all

    def counted(kernel: object, fn: object, inputs: list[object]) -> object:
        calls.append(len(inputs))
        return real(kernel, fn, inputs)  # type: ignore[arg-type]

    monkeypatch.setattr(differential, "run_c_all", counted)
    backends = ["numpy", "tpc_c", *(["torch"] if importlib.util.find_spec("torch") else [])]
    res = lift_file(Path(__file__).resolve().parents[1] / "examples" / "saxpy.c", backends, check=True)
    assert res.status == "verified" and res.check is not None and set(backends) <= set(res.check)
    assert len(calls) == 1 and calls[0] >= res.check["numpy"]["inputs"]


def test_the_check_finds_the_files_own_quoted_headers(tmp_path: Path) -> None:
    """The check compiles a copy of the file elsewhere: its ``#include "defs.h"`` is still found
    in the file's own directory, as the compiler finds it (-iquote; six darknet functions
    verified and then failed the check with 'blas.h: No such file or directory')."""
    from tenspiler.pipeline import lift_file

    (tmp_path / "defs.h").write_text("void scale(float *x, float a, int n);\n")
    src = tmp_path / "k.c"
    src.write_text('#include "defs.h"\nvoid scale(float *x, float a, int n) {\n'
                   "  for (int i = 0; i < n; i++) x[i] = a * x[i];\n}\n")
    res = lift_file(src, ("numpy",), check=True)
    assert res.status == "verified", res.message
    assert res.check is not None and all(c["ok"] for c in res.check.values())
