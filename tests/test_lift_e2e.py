"""End-to-end: the project's own kernels (tests/kernels, examples) through the pipeline,
and the certificates they produce re-checked by a fresh cvc5."""

from __future__ import annotations

from pathlib import Path

import pytest

from tenspiler.pipeline import lift_file
from tenspiler.verify.certificate import is_valid, recheck

HERE = Path(__file__).parent
KERNELS = HERE / "kernels"
EXAMPLES = HERE.parent / "examples"

LIFTABLE = {
    "darken_u8.c": "out[0:n] = cast(select(take(base, n) > take(active, n), take(active, n), take(base, n)), uint8)",
    "lighten_u8.c": "out[0:n] = select(take(base, n) < take(active, n), take(active, n), take(base, n))",
    "burn_u8.c": "out[0:n] = select(take(active, n) == 0, 255, cast(scalar_tensor(255, tensor_tensor(scalar_tensor(255, take(base, n), -), take(active, n), /), -), uint8))",
    "overlay_u8.c": "out[0:n] = select(take(base, n) >= 128, cast(tensor_scalar(tensor_tensor(tensor_tensor(scalar_tensor(2, take(base, n), *), take(base, n), +), tensor_scalar(tensor_tensor(scalar_tensor(2, take(base, n), *), take(base, n), *), 255, /), -), 255, -), uint8), cast(tensor_scalar(tensor_tensor(scalar_tensor(2, take(base, n), *), take(base, n), *), 255, /), uint8))",
    "relu.c": "y[0:n] = select(take(x, n) > 0.0, take(x, n), 0.0)",
    "softmax_exp.c": "out[0:n] = map(exp, tensor_scalar(take(x, n), max_val, -))",
    "sum_exp.c": "return = reduce_sum(map(exp, tensor_scalar(take(x, n), m, -)))",
    "rms_scale.c": "o[0:size] = tensor_tensor(take(w, size), scalar_tensor((1.0 / sqrt(((ss / cast(size, float)) + 1e-05))), take(x, size), *), *)",
    "max_val.c": "return = select(n > 0, select(reduce_max(take(a, n)) > -1000, reduce_max(take(a, n)), -1000), -1000)",
    "softmax_max.c": "return = select(max_pos > 1, select(reduce_max(slice(input, 1, max_pos)) > reduce_sum(slice(input, 0, 1)), reduce_max(slice(input, 1, max_pos)), reduce_sum(slice(input, 0, 1))), reduce_sum(slice(input, 0, 1)))",
    "mean_float.c": "return = (cast(reduce_sum(take(a, n)), float) / cast(n, float))",
    "count_pos.c": "return = reduce_sum(select(take(a, n) > 0, 1, 0))",
    "avg3.c": "out[1:(n - 1)] = tensor_scalar(tensor_tensor(tensor_tensor(slice(in, 0, (n - 2)), slice(in, 1, (n - 1)), +), slice(in, 2, n), +), 3.0, /)",
    "neg_reciprocal.c": "out[0:n] = scalar_tensor(1.0, scalar_tensor(-1, take(a, n), *), /)",
    "sum_abs.c": "return = reduce_sum(select(take(a, n) < 0, scalar_tensor(0, take(a, n), -), take(a, n)))",
    "gemv_acc.c": "y[0:M] = reduce_rows(tensor_tensor(matrix(A, M, N), take(x, N), *))",
    "gemv_inplace.c": "y[0:M] = tensor_tensor(take(y, M), reduce_rows(tensor_tensor(matrix(A, M, N), take(x, N), *)), +)",
    "flat_copy2.c": "out[0:(m * n)] = scalar_tensor(2, take(A, (m * n)), *)",
    "walk_matvec.c": "r[0:n] = reduce_rows(tensor_tensor(matrix(m, n, n), take(v, n), *))",
    "mat_total.c": "return = reduce_sum(take(A, (m * n)))",
    "frob.c": "return = reduce_sum(tensor_tensor(take(A, (m * n)), take(A, (m * n)), *))",
    "row_exp_sum.c": "out[0:m] = reduce_rows(map(exp, matrix(A, m, n)))",
    "rowmax.c": "out[0:m] = select(reduce_rows_max(matrix(A, m, n)) > -100000, reduce_rows_max(matrix(A, m, n)), -100000)",
    "scale_fixed.c": "b[0:64] = scalar_tensor(3, take(a, 64), *)",
    "sum_long.c": "return = reduce_sum(take(a, n))",
    "dotll.c": "return = reduce_sum(tensor_tensor(take(a, n), take(b, n), *))",
    "count_and_sum.c": "return = (n + (3 + n))\nb[0:n] = tensor_scalar(take(a, n), 2, *)",
    "ddot.c": "return = reduce_sum(tensor_tensor(take(x, n), take(y, n), *))",
    "diff_next.c": "d[0:(n - 1)] = tensor_tensor(slice(a, 1, n), take(a, (n - 1)), -)",
    "drain.c": "return = ((2 * (acc - reduce_sum(tensor_scalar(take(a, n), 7, %)))) + n)",
    "helper_square.c": "out[0:n] = tensor_scalar(tensor_tensor(take(a, n), take(a, n), *), 1, +)",
    "mean_pixel.c": "return = reduce_sum(take(img, n))",
    "shifted_window.c": "out[2:(n + 1)] = tensor_tensor(slice(a, 0, (n - 1)), slice(a, 2, (n + 1)), +)",
    "screen_u8.c": "out[0:n] = cast(tensor_tensor(tensor_tensor(take(base, n), take(active, n), +), tensor_scalar(tensor_tensor(take(base, n), take(active, n), *), 255, /), -), uint8)",
    "float_to_u8.c": "out[0:n] = cast(tensor_scalar(cast(take(a, n), uint8), 3, +), uint8)",
    "int_times_float.c": "out[0:n] = tensor_scalar(cast(take(a, n), float), s, *)",
    "mean_int.c": "return = (reduce_sum(take(a, n)) / n)",
    "row_sums.c": "out[0:rows] = reduce_rows(matrix(m, rows, cols))",
    "mat_axpy.c": "Z[0:(rows * cols)] = tensor_tensor(scalar_tensor(a, take(X, (rows * cols)), *), take(Y, (rows * cols)), +)",
    "gemv_bias.c": "y[0:M] = tensor_tensor(scalar_tensor(2, reduce_rows(tensor_tensor(matrix(A, M, N), tensor_scalar(take(x, N), 1, -), *)), *), take(b, M), +)",
    "weighted_residual.c": "return = reduce_sum(tensor_tensor(scalar_tensor(w, take(x, n), *), take(y, n), -))",
    # a darknet-style struct of row pointers passed by value
    "struct_scale.c": "assume im__data__cols == im__w\nim__data[0:(im__h * im__w)] = tensor_scalar(tensor_scalar(take(im__data, (im__h * im__w)), im__gain, *), bias, +)",
    # the C++ std::vector subset
    "vec_axpy.cc": "out[0:x__size] = tensor_tensor(scalar_tensor(a, take(x, x__size), *), take(y, x__size), +)",
    "img_avg.cc": "assume b__cols == a__cols\nout[0:(a__rows * a__cols)] = cast(tensor_scalar(tensor_tensor(take(a, (a__rows * a__cols)), take(b, (a__rows * a__cols)), +), 2, /), uint8)",
    "row_norms.cc": "out[0:m__rows] = reduce_rows(tensor_tensor(matrix(m, m__rows, m__cols), matrix(m, m__rows, m__cols), *))",
    "vec_dot.cc": "return = reduce_sum(tensor_tensor(take(a, n), take(b, n), *))",
    # strided and transposed reads in loop nests
    "row_broadcast3.c": "C[0:(m * (n * p))] = flatten(stack(i < m: flatten(tensor_tensor(matrix(tail(T, (i * (n * p))), p, n), take(x, n), +))))",
    "col_sums.c": "out[0:n] = reduce_rows(transpose(matrix(A, m, n, n)))",
    "block_dot.cc": "out[0:m__rows] = reduce_rows(tensor_tensor(matrix(tail(m, off), m__rows, len, m__cols), take(v, len), *))",
}

#: VC clauses of the kernels lifted as rows of a loop nest (``tenspiler/vc/blocks.py``)
BLOCK_CLAUSES = {"row_broadcast3.c": 15}

NOT_LIFTABLE = {
    "prefix_sum.c": "a scan",
    "recurrence.c": "recurrence",
}


@pytest.mark.parametrize("name", sorted(LIFTABLE))
def test_project_kernels_lift_verify_and_match_cc(name: str, tmp_path: Path) -> None:
    res = lift_file(KERNELS / name, ["numpy"], out_dir=tmp_path, check=True)
    assert res.status == "verified", res.message
    assert res.summary == LIFTABLE[name]
    assert res.check is not None and res.check["numpy"]["ok"], res.check
    assert res.check["numpy"]["passed"] == res.check["numpy"]["inputs"] > 0
    assert res.solver and all(s["answer"] == "unsat" for s in res.solver)
    # single loop: 4 clauses; loop nest: 7; rows of a nest (a block kernel) as listed
    assert len(res.solver) == BLOCK_CLAUSES[name] if name in BLOCK_CLAUSES else len(res.solver) in (4, 7)
    assert res.certificate is not None and is_valid(recheck(res.certificate))
    assert Path(res.outputs["numpy"]).read_text() == res.code["numpy"]
    assert set(res.timings) >= {"parse", "analyze", "synthesis", "verification", "codegen", "check"}


@pytest.mark.parametrize("name", sorted(NOT_LIFTABLE))
def test_scans_and_recurrences_are_not_lifted(name: str, tmp_path: Path) -> None:
    res = lift_file(KERNELS / name, ["numpy"], out_dir=tmp_path / "out")
    assert res.status == "not_lifted" and res.exit_code == 1
    assert NOT_LIFTABLE[name] in res.message
    assert f"{name}:" in res.message  # located
    assert not (tmp_path / "out").exists()  # nothing written


def test_example_in_readme_lifts(tmp_path: Path) -> None:
    res = lift_file(EXAMPLES / "saxpy.c", ["numpy"], out_dir=tmp_path, check=True)
    assert res.status == "verified", res.message
    assert res.summary == "y[0:n] = tensor_tensor(scalar_tensor(a, take(x, n), *), take(y, n), +)"
    assert any("real numbers" in a for a in res.assumptions)
    assert res.check is not None and res.check["numpy"]["ok"]


def test_existing_outputs_are_not_overwritten(tmp_path: Path) -> None:
    target = tmp_path / "saxpy.py"
    target.write_text("user file\n")
    res = lift_file(EXAMPLES / "saxpy.c", ["numpy"], out_dir=tmp_path)
    assert res.status == "error" and "already exists" in res.message
    assert target.read_text() == "user file\n"
    assert not (tmp_path / "saxpy.smt2").exists()
    res = lift_file(EXAMPLES / "saxpy.c", ["numpy"], out_dir=tmp_path, force=True)
    assert res.status == "verified"
    assert target.read_text() == res.code["numpy"]


def test_generated_code_runs(tmp_path: Path) -> None:
    import numpy as np

    res = lift_file(KERNELS / "diff_next.c", ["numpy"], out_dir=tmp_path)
    ns: dict[str, object] = {}
    exec(compile(res.code["numpy"], "diff_next.py", "exec"), ns)
    a = np.array([1, 4, 9, 16, 25])
    d = np.array([7, 7, 7, 7, 7])
    out = ns["diff_next"](a, d, 5)  # type: ignore[operator]
    assert out.tolist() == [3, 5, 7, 9, 7]  # d[4] untouched: the loop stops at n - 1
    assert d.tolist() == [7, 7, 7, 7, 7]  # inputs are not mutated


def test_generated_code_checks_the_proof_preconditions(tmp_path: Path) -> None:
    import numpy as np

    res = lift_file(KERNELS / "diff_next.c", ["numpy"], out_dir=tmp_path)
    ns: dict[str, object] = {}
    exec(compile(res.code["numpy"], "diff_next.py", "exec"), ns)
    f = ns["diff_next"]
    a = np.arange(5)
    with pytest.raises(ValueError, match="precondition"):
        f(a, a, -3)  # type: ignore[operator]  # negative trip count: NumPy would wrap
    with pytest.raises(ValueError, match="precondition"):
        f(a, a, 9)  # type: ignore[operator]  # arrays shorter than the kernel reads


#: Kernels whose generated NumPy code computes its output in blocks (``_store_blocks``): at
#: least two elementwise operations on views of the parameters.
BLOCKED = ("burn_u8.c", "overlay_u8.c", "screen_u8.c", "avg3.c", "int_times_float.c")


@pytest.mark.parametrize("name", BLOCKED)
def test_blocked_elementwise_code_matches_cc_on_long_inputs(name: str, tmp_path: Path) -> None:
    """The check's inputs are short (one block); here the generated code runs on inputs of
    several blocks (64 Ki elements each) and a short last one, against the compiled source,
    with each type's extremes among the values."""
    import numpy as np

    from tenspiler.check import differential_check
    from tenspiler.codegen import get_backend
    from tenspiler.loops.ir import DType, PointerType
    from tenspiler.pipeline import parse_source_file
    from tenspiler.synth.search import synthesize
    from tenspiler.vc.analyze import analyze_kernel

    fn = parse_source_file(KERNELS / name)
    ps = synthesize(analyze_kernel(fn)).summary
    code = get_backend("numpy").generate(fn, ps)
    assert "_store_blocks(" in code.text
    rng = np.random.default_rng(7)
    inputs = []
    for n in (2 * 65536 + 77, 65536, 65537):
        x: dict[str, object] = {}
        for p in fn.params:
            if not isinstance(p.type, PointerType):
                x[p.name] = n if p.name == "n" else float(rng.standard_normal())
            elif p.type.elem == DType.UINT8:
                x[p.name] = rng.integers(0, 256, n + 2, dtype=np.uint8)
                x[p.name][:6] = [0, 1, 127, 128, 254, 255]  # type: ignore[index]
            elif p.type.elem.is_float:
                x[p.name] = rng.standard_normal(n + 2).astype(np.float32)
            else:
                x[p.name] = rng.integers(-(2**29), 2**29, n + 2)
        inputs.append(x)
    result = differential_check(fn, ps, code, inputs, tmp_path)
    assert result.ok, result.first_failure
