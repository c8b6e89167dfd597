"""The ACT export: tensor dataflow graphs as XLA-HLO text (``tenspiler/act/hlo.py``), the
Gemmini plan's device calls as graphs (``tenspiler/codegen/gemmini/act_graphs.py``) and ``lift --to hlo``
(``tenspiler/codegen/hlo_backend.py``).

XLA itself (jax / jaxlib) parses, compiles and runs the printed modules
(``tenspiler.act.hlo.xla_run``) in a *spawned* worker process: importing jax starts thread
pools, and the rest of the suite forks (cvc5 workers, the compiled C). Those tests are skipped
when jax / jaxlib are not installed (checked with ``find_spec``, which does not import them).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import multiprocessing
import shutil
import subprocess
import sys
import zlib
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tenspiler.act.graph import Graph, GraphBuilder, GraphError, Node, evaluate
from tenspiler.act.hlo import MODULE_SEPARATOR, hlo_name, split_modules, to_hlo, xla_errors, xla_run
from tenspiler.codegen import backend_names, get_backend
from tenspiler.codegen.gemmini import GemminiBackend
from tenspiler.codegen.gemmini.act_graphs import (
    ContractError,
    Exported,
    PlanRunner,
    Skipped,
    call_term,
    export_call,
    export_plan,
    no_wrap,
    param_values,
    plan_graphs,
    result_value,
    runner_spec,
    size_parameters,
)
from tenspiler.codegen.gemmini.lower import MAX_INT8_K, plan_summary
from tenspiler.codegen.hlo_backend import HloBackend, parse_sizes
from tenspiler.errors import CodegenError, LiftError
from tenspiler.ir import interp
from tenspiler.ir.terms import (
    ArrayOutput,
    Lit,
    ProgramSummary,
    ScalarVar,
    Take,
    TensorTensor,
    TensorVar,
)
from tenspiler.loops.ir import DType
from tenspiler.pipeline import check_examples, lift_file, parse_source_file
from tenspiler.synth.search import synthesize
from tenspiler.vc.analyze import analyze_kernel

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "hlo"
HAVE_XLA = importlib.util.find_spec("jax") is not None and importlib.util.find_spec("jaxlib") is not None
needs_xla = pytest.mark.skipif(not HAVE_XLA, reason="needs jax / jaxlib (the dev extra) to run XLA")
needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
I, F = DType.INT, DType.FLOAT  # noqa: E741 - the dtype names of the other TensIR tests


class Xla:
    """XLA in a spawned worker process (see the module docstring). XLA's parser aborts the
    process on some ill-formed modules (a failed ``CHECK``): the worker is then replaced."""

    def __init__(self) -> None:
        self.pool = self._start()

    @staticmethod
    def _start() -> ProcessPoolExecutor:
        return ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))

    def run(self, text: str, inputs: list[np.ndarray]) -> np.ndarray:
        return self.pool.submit(xla_run, text, inputs).result(timeout=600)

    def errors(self, text: str) -> str | None:
        """None when XLA parses and compiles ``text``, else why not."""
        try:
            return self.pool.submit(xla_errors, text).result(timeout=600)
        except BrokenProcessPool:
            self.pool.shutdown()
            self.pool = self._start()
            return "XLA aborted"


@pytest.fixture(scope="module")
def xla() -> Iterator[Xla]:
    if not HAVE_XLA:
        pytest.skip("needs jax / jaxlib (the dev extra) to run XLA")
    x = Xla()
    yield x
    x.pool.shutdown()


def same(got: np.ndarray, want: np.ndarray) -> bool:
    """Integers bit-exactly (and the same dtype), f32 within a tolerance (NaN == NaN)."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return False
    if want.dtype.kind == "f":  # sums may cancel: the tolerance follows the largest value
        big = float(np.max(np.abs(want[np.isfinite(want)]), initial=0.0))
        return bool(np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=2e-6, atol=2e-6 * big, equal_nan=True))
    return got.dtype == want.dtype and np.array_equal(got, want)


# ---------------------------------------------------------------- small graphs (goldens)


def matvec_s8() -> Graph:
    """An int8 matrix-vector product accumulated in int32 (ACT's K1 pattern)."""
    b = GraphBuilder()
    a = b.convert(b.parameter("A", "s8", (3, 4)), "s32")
    x = b.convert(b.parameter("x", "s8", (4, 1)), "s32")
    return b.build(b.reshape(b.dot(a, x), (3,)))


def softmax_f32() -> Graph:
    """Row-wise softmax without the max shift: exp, row sums, broadcast back, divide."""
    b = GraphBuilder()
    e = b.exponential(b.parameter("x", "f32", (2, 3)))
    s = b.reduce_add(e, (1,))
    return b.build(b.divide(e, b.broadcast(s, (2, 3), (0,))))


def all_ops_s32() -> Graph:
    """Every operator of the subset once (s8 / s32 / f32)."""
    b = GraphBuilder()
    p = b.parameter("p", "s32", (2, 3))
    q = b.parameter("q", "s8", (3, 2))
    k = b.constant([[1, -2, 3], [-4, 5, -6]], "s32")
    s = b.add(p, k)
    d = b.dot(s, b.convert(q, "s32"))                        # [2, 2]
    t = b.transpose(d, (1, 0))
    c = b.concatenate([t, b.slice(s, (0, 1), (2, 3))], 1)    # [2, 4]
    r = b.reshape(c, (4, 2))
    rows = b.reduce_add(r, (1,))                             # [4]
    seven = b.broadcast(b.constant(7, "s32"), (4,), ())
    q7 = b.divide(rows, seven)
    total = b.reduce_add(q7, (0,))                           # [1]: everything summed
    w = b.convert(b.convert(total, "s8"), "f32")             # s32 → s8 wraps
    return b.build(b.exponential(b.divide(w, b.constant([100.0], "f32"))))


GRAPHS = {"matvec_s8": matvec_s8, "softmax_f32": softmax_f32, "all_ops": all_ops_s32}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_small_graphs_golden(name: str, golden: Any) -> None:
    golden(f"hlo/{name}.hlo", to_hlo(GRAPHS[name](), name))


def test_text_is_deterministic_and_shows_each_ops_syntax() -> None:
    text = to_hlo(all_ops_s32(), "all_ops")
    assert text == to_hlo(all_ops_s32(), "all_ops")
    assert text.startswith("HloModule all_ops\n") and "ENTRY %main (p: s32[2,3], q: s8[3,2]) -> f32[1] {" in text
    for snippet in ["constant({ {1, -2, 3}, {-4, 5, -6} })", "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
                    "transpose(%dot.", "dimensions={1,0}", "slice={[0:2], [1:3]}", "concatenate(", "dimensions={1}",
                    "to_apply=%add_s32", "s32[] constant(0)", "broadcast(%constant.", "dimensions={}",
                    "exponential(", "divide(", "convert(", "reshape("]:
        assert snippet in text, snippet
    # a reduce over every dimension is an HLO scalar, reshaped to the graph's [1]
    assert "s32[] reduce(" in text and "s32[1] reshape(%reduce." in text
    assert text.count("ROOT") == 2  # the add computation's and the entry's


def test_parameter_names_become_unique_identifiers() -> None:
    b = GraphBuilder()
    xs = [b.parameter(n, "s32", (2,)) for n in ["a", "a", "pred", "main", "x-y", "1st", "s32", "f8e4m3"]]
    acc = xs[0]
    for x in xs[1:]:
        acc = b.add(acc, x)
    text = to_hlo(b.build(acc), "my kernel")
    sig = text.split("ENTRY %main (")[1].split(")")[0]
    assert sig == "a: s32[2], a_1: s32[2], pred_: s32[2], main_: s32[2], x_y: s32[2], _1st: s32[2], s32_: s32[2], f8e4m3_: s32[2]"
    assert text.startswith("HloModule my_kernel\n")
    assert hlo_name("f32") == "f32_" and hlo_name("alpha") == "alpha"


def test_unknown_ops_and_bad_operands_are_refused() -> None:
    with pytest.raises(GraphError, match="unknown op"):
        to_hlo(Graph((Node("maximum", "s32", (2,)),), 0), "m")
    with pytest.raises(GraphError, match="not earlier nodes"):
        to_hlo(Graph((Node("reshape", "s32", (2,), (0,)),), 0), "m")


def test_split_modules_cuts_at_the_separator_lines() -> None:
    one, two = to_hlo(matvec_s8(), "m1"), to_hlo(softmax_f32(), "m2")
    text = f"// header\n\n{MODULE_SEPARATOR}m1 ----\n{one}\n{MODULE_SEPARATOR}m2 ----\n// more\n{two}"
    parts = split_modules(text)
    assert len(parts) == 2 and "HloModule m1" in parts[0] and "HloModule m2" in parts[1]
    assert "m2" not in parts[0] and parts[1].startswith(MODULE_SEPARATOR)


# ---------------------------------------------------------------- XLA

I32 = np.iinfo(np.int32)


def _ints(rng: np.random.Generator, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    """Integers with extremes mixed in (so sums and products wrap)."""
    info = np.iinfo(np.int8 if dtype == "s8" else np.int32)
    v = rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=np.int64)
    extremes = rng.choice(np.array([info.min, info.max, -1, 0, 1]), size=shape)
    v = np.where(rng.random(shape) < 0.3, extremes, v)
    return v.astype(np.int8 if dtype == "s8" else np.int32)


def _values(rng: np.random.Generator, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    if dtype == "f32":
        return rng.normal(0, 3, size=shape).astype(np.float32)
    return _ints(rng, dtype, shape)


def op_case(op: str, dtype: str, rng: np.random.Generator) -> tuple[Graph, list[np.ndarray]]:
    """A graph applying ``op`` to parameters of random shapes, and inputs for it."""
    b = GraphBuilder()
    m, n, k = (int(x) for x in rng.integers(1, 6, 3))
    shapes: list[tuple[int, ...]] = []

    def param(shape: tuple[int, ...], dt: str = dtype) -> int:
        shapes.append(shape)
        return b.parameter(f"x{len(shapes) - 1}", dt, shape)

    inputs: list[np.ndarray] | None = None
    match op:
        case "parameter":
            out = param((m, n))
        case "constant":
            vals = _values(rng, dtype, (m, n))
            out = b.add(b.constant(vals, dtype), param((m, n)))
        case "broadcast":
            out = b.broadcast(param((n, m)), (m, k, n), (2, 0))
        case "slice":
            x = param((m + 2, n + 3))
            out = b.slice(x, (1, 2), (m + 1, n + 3))
        case "add":
            out = b.add(param((m, n)), param((m, n)))
        case "dot":
            out = b.dot(param((m, k)), param((k, n)))
        case "divide":
            out = b.divide(param((m, n)), param((m, n)))
            a = _values(rng, dtype, (m, n))
            d = _values(rng, dtype, (m, n))
            if dtype != "f32":
                d = np.where(d == 0, -1, d).astype(d.dtype)
                a.flat[0], d.flat[0] = np.iinfo(a.dtype).min, -1  # INT_MIN / -1 wraps to INT_MIN
            inputs = [a, d]
        case "concatenate":
            out = b.concatenate([param((m, n)), param((k, n)), param((1, n))], 0)
        case "reshape":
            out = b.reshape(param((m, n * k)), (n, m * k))
        case "transpose":
            out = b.transpose(param((m, n, k)), (2, 0, 1))
        case "convert":
            if dtype == "f32":  # integers to f32 (round to nearest even above 2^24)
                out = b.convert(param((m, n), "s32"), "f32")
                special = np.array([2**24 + 1, -(2**24) - 3, I32.max, I32.min, 7], dtype=np.int32)
                inputs = [special[np.arange(m * n) % 5].reshape(m, n)]
            else:  # s32 → s8 wraps, s8 → s32 sign-extends
                other = "s8" if dtype == "s32" else "s32"
                out = b.convert(b.convert(param((m, n), dtype), other), dtype)
        case "reduce_add":
            out = b.reduce_add(param((m, n, k)), tuple(int(d) for d in rng.choice(3, size=rng.integers(1, 4), replace=False)))
        case "exponential":
            out = b.exponential(param((m, n), "f32"))
        case _:
            raise AssertionError(op)
    g = b.build(out)
    if inputs is None:
        inputs = [_values(rng, g.nodes[i].dtype, g.nodes[i].shape) for i in g.parameters]
    return g, inputs


OP_DTYPES = [(op, dt) for op in ["parameter", "constant", "broadcast", "slice", "add", "dot", "divide", "concatenate",
                                 "reshape", "transpose", "convert", "reduce_add"]
             for dt in ["s8", "s32", "f32"]] + [("exponential", "f32")]


@needs_xla
@pytest.mark.parametrize(("op", "dtype"), OP_DTYPES)
def test_xla_computes_what_evaluate_defines(xla: Xla, op: str, dtype: str) -> None:
    """Each operator, printed as HLO, parsed, compiled and run by XLA on the CPU, gives the
    graph's value (integers bit-exactly, f32 within a tolerance) on random inputs."""
    rng = np.random.default_rng(zlib.crc32(f"{op}/{dtype}".encode()))
    for _ in range(4):
        g, inputs = op_case(op, dtype, rng)
        want = evaluate(g, inputs)
        got = xla.run(to_hlo(g, f"{op}_{dtype}"), inputs)
        assert same(got, want), (op, dtype, got, want, to_hlo(g, "m"))


@needs_xla
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_small_graphs_run_in_xla(xla: Xla, name: str) -> None:
    g = GRAPHS[name]()
    rng = np.random.default_rng(7)
    inputs = [_values(rng, g.nodes[i].dtype, g.nodes[i].shape) for i in g.parameters]
    if name == "all_ops":
        inputs[0] = (inputs[0] // 1024).astype(np.int32)  # no wrap before the divide
    assert same(xla.run(to_hlo(g, name), inputs), evaluate(g, inputs))


@needs_xla
def test_xla_validation_rejects_an_ill_shaped_module(xla: Xla) -> None:
    """The validation is not just the parser (which does not check shapes): compiling does."""
    b = GraphBuilder()
    x = b.parameter("x", "s32", (2,))
    good = to_hlo(b.build(b.add(x, x)), "m")
    bad = good.replace("ROOT %add.1 = s32[2]", "ROOT %add.1 = s32[3]").replace("-> s32[2]", "-> s32[3]")
    assert bad != good
    assert xla.errors(good) is None
    assert "add" in (xla.errors(bad) or "")
    # a reshape of the wrong size aborts XLA's parser (CHECK failure): the worker survives it
    worse = to_hlo(matvec_s8(), "bad").replace("s32[3] reshape", "s32[4] reshape").replace("-> s32[3]", "-> s32[4]")
    assert xla.errors(worse) is not None
    assert xla.errors(good) is None


# ---------------------------------------------------------------- device calls as graphs


@functools.cache
def lifted(path: str) -> tuple[Any, Any, Any]:
    """(function, kernel analysis, verified summary) of a kernel file (relative to the repo)."""
    fn = parse_source_file(ROOT / path)
    k = analyze_kernel(fn)
    return fn, k, synthesize(k).summary


def plan_of(path: str, config: str | None = None) -> tuple[Any, Any, Any, Any]:
    fn, k, ps = lifted(path)
    _, plan = GemminiBackend(config=config).plan(fn, ps)
    return fn, k, ps, plan


def compare_calls(path: str, config: str | None = None, count: int = 24, xla: Xla | None = None) -> dict[str, int]:
    """Every exported call, at the sizes of each check input, against the TensIR interpreter
    (and, with ``xla``, its HLO text run by XLA against the graph)."""
    fn, k, ps, plan = plan_of(path, config)
    names = size_parameters(fn, ps)
    stats = {"compared": 0, "contract": 0, "skipped": 0, "xla": 0}
    for inputs in check_examples(k, 3, count):
        env: dict[str, Any] = dict(inputs)
        sizes = {n: int(inputs[n]) for n in names}
        for call in plan.calls:
            want = interp.evaluate(call_term(call), env)
            r = export_call(call, sizes)
            if isinstance(r, Skipped):
                stats["skipped"] += 1
            else:
                try:
                    with np.errstate(over="ignore"):  # exp(100) is inf in float32, as in C
                        vals = param_values(r, env)
                except ContractError:
                    vals = None
                if vals is None or not no_wrap(r.graph, vals):
                    stats["contract"] += 1
                else:
                    with np.errstate(over="ignore"):
                        out = evaluate(r.graph, vals)
                    got = result_value(r, out)
                    if call.dtype.is_float:  # float32 against reals: sums may cancel, so the
                        w = np.asarray(want, dtype=np.float64)  # tolerance follows the largest value
                        big = float(np.max(np.abs(w), initial=1.0))
                        ok = bool(np.allclose(np.asarray(got), w, rtol=1e-5, atol=1e-5 * big)) or big > 3e38
                    else:
                        ok = np.array_equal(np.asarray(got), np.asarray(want))
                    assert ok, (path, call.name, got, want)
                    stats["compared"] += 1
                    if xla is not None and stats["xla"] < 3:
                        assert same(xla.run(to_hlo(r.graph, f"{fn.name}_{call.name}"), vals), out), (path, call.name)
                        stats["xla"] += 1
            env[call.name] = want
    return stats


KERNELS = [
    ("benchmarks/kernels/blas/gemv.c", None),              # int8 matrix-vector product
    ("benchmarks/kernels/blas/dot.c", None),               # dot product: a scalar result
    ("tests/kernels/mean_pixel.c", None),                  # uint8 sum: shifted into int8, added back
    ("tests/kernels/col_sums.c", None),                    # fp32: a ones row times a strided view
    ("tests/kernels/row_exp_sum.c", None),                 # a 2-D host-computed operand
    ("tests/kernels/mat_axpy.c", None),                    # fp32 affine: a scalar-parameter scale
    ("tests/kernels/gemv_bias.c", None),                   # two calls: literal scale and constant
    ("tests/kernels/weighted_residual.c", None),           # an earlier call's result as an operand
    ("benchmarks/kernels/llama/matmul.cc", None),          # fp32 views of a C++ matrix
    ("benchmarks/kernels/llama/transformer_part1.cc", None),
    ("tests/kernels/block_dot.cc", None),
    ("benchmarks/kernels/dsp/vsub.c", "int8"),
]


@pytest.mark.parametrize(("path", "config"), KERNELS)
def test_exported_calls_compute_the_summarys_values(path: str, config: str | None) -> None:
    stats = compare_calls(path, config)
    assert stats["compared"] >= 12, stats


@needs_xla
@pytest.mark.parametrize("path", ["benchmarks/kernels/blas/gemv.c", "tests/kernels/mean_pixel.c", "tests/kernels/col_sums.c",
                                  "tests/kernels/mat_axpy.c", "tests/kernels/gemv_bias.c", "benchmarks/kernels/blas/dot.c"])
def test_exported_calls_run_in_xla(xla: Xla, path: str) -> None:
    assert compare_calls(path, count=8, xla=xla)["xla"] >= 2


def test_plan_graphs_names_each_call_and_records_the_skipped_ones() -> None:
    _, _, _, plan = plan_of("tests/kernels/gemv_bias.c")
    skipped: list[Skipped] = []
    graphs = plan_graphs(plan, {"M": 4, "N": 3}, skipped)
    assert [n for n, _ in graphs] == ["g0", "g1"] and not skipped
    g0, g1 = (g for _, g in graphs)
    assert [g0.nodes[i].attrs[1] for i in g0.parameters] == ["x"]
    assert [(g1.nodes[i].attrs[1], g1.nodes[i].shape) for i in g1.parameters] == [("g1_x0", (4,)), ("b", (4,))]
    assert any(n.op == "dot" and n.shape == (4, 1) for n in g1.nodes)  # 2·x as x[4,1] · [[2]]


def test_relu_is_not_exported_and_says_why() -> None:
    _, _, _, plan = plan_of("tests/kernels/relu.c")
    skipped: list[Skipped] = []
    assert plan_graphs(plan, {"n": 8}, skipped) == []
    assert len(skipped) == 1 and "ReLU" in skipped[0].reason and "no operator" in skipped[0].reason


def test_int8_products_longer_than_the_accumulator_allows_are_not_exported() -> None:
    _, _, _, plan = plan_of("benchmarks/kernels/blas/gemv.c")
    (r,) = export_plan(plan, {"M": 2, "N": MAX_INT8_K + 1}).skipped
    assert "could wrap the int32 accumulator" in r.reason
    assert export_plan(plan, {"M": 2, "N": MAX_INT8_K}).exported
    (e,) = export_plan(plan, {"M": 0, "N": 3}).skipped
    assert "empty" in e.reason


def test_a_call_that_takes_the_first_terms_of_a_long_sum_computes_only_those() -> None:
    """Gemmini moves at most three operands per row: a + b + c + d is two calls, the first
    of which computes a + b (its ``source``, what its host fallback computes, is a + b too)."""
    n = ScalarVar("n", I)
    a, b, c, d = (Take(TensorVar(x, I), n) for x in "abcd")
    total = TensorTensor("+", TensorTensor("+", TensorTensor("+", a, b, I), c, I), d, I)
    ps = ProgramSummary("k", (ArrayOutput("out", Lit(0, I), n, total),))
    plan = plan_summary(ps, {"a", "b", "c", "d", "out"}, "int8")
    assert len(plan.calls) == 2 and plan.calls[0].source == TensorTensor("+", a, b, I)
    rng = np.random.default_rng(0)
    env = {x: rng.integers(-100, 100, 5) for x in "abcd"} | {"n": 5}
    (e0, e1) = export_plan(plan, {"n": 5}).exported
    part = result_value(e0, evaluate(e0.graph, param_values(e0, env)))
    assert part.tolist() == (env["a"] + env["b"]).tolist() == interp.evaluate(call_term(plan.calls[0]), env).tolist()
    env["g0"] = part
    assert result_value(e1, evaluate(e1.graph, param_values(e1, env))).tolist() == sum(env[x] for x in "abcd").tolist()


def test_int8_operands_outside_the_range_are_refused_and_wraps_detected() -> None:
    _, _, _, plan = plan_of("benchmarks/kernels/blas/dot.c")
    (e,) = export_plan(plan, {"n": 3}).exported
    assert isinstance(e, Exported) and e.scalar
    with pytest.raises(ContractError, match="outside s8"):
        param_values(e, {"a": np.array([1, 200, 3]), "b": np.array([1, 2, 3]), "n": 3})
    vals = param_values(e, {"a": np.array([1, -2, 3]), "b": np.array([4, 5, -6]), "n": 3})
    assert result_value(e, evaluate(e.graph, vals)) == 4 - 10 - 18 and no_wrap(e.graph, vals)
    b = GraphBuilder()
    x = b.parameter("x", "s32", (2, 2))
    g = b.build(b.dot(x, x))
    assert no_wrap(g, [np.full((2, 2), 30000, np.int32)]) and not no_wrap(g, [np.full((2, 2), 40000, np.int32)])


def test_size_parameters_are_the_scalars_in_shape_positions() -> None:
    fn, _, ps = lifted("tests/kernels/mat_axpy.c")
    assert size_parameters(fn, ps) == ["rows", "cols"]  # not the scale a
    fn, _, ps = lifted("benchmarks/kernels/llama/matmul.cc")
    assert size_parameters(fn, ps) == ["weight__rows", "weight__cols", "input__size"]


def test_plan_runner_is_the_summary() -> None:
    """The runner ``--check`` executes: graphs for exported calls, the interpreter for the rest."""
    fn, k, ps, plan = plan_of("tests/kernels/gemv_bias.c")
    runner = PlanRunner(runner_spec(fn, ps, plan))
    for inputs in check_examples(k, 1, 10):
        state = runner.run(inputs)
        (o,) = ps.outputs
        want = np.array(inputs["y"], dtype=np.int64)
        want[: int(inputs["M"])] = interp.evaluate(o.value, inputs)
        assert state["y"].tolist() == want.tolist()
    assert runner.graph_calls > 0


# ---------------------------------------------------------------- the backend and the CLI


def test_hlo_is_registered_and_sizes_parse() -> None:
    assert "hlo" in backend_names()
    assert parse_sizes("n=64, m = 32") == {"n": 64, "m": 32}
    for bad, msg in [("n", "not name=value"), ("n=0", "at least 1"), ("n=1,n=2", "twice"), ("", "empty"), ("n=-3", "not name=value")]:
        with pytest.raises(ValueError, match=msg):
            parse_sizes(bad)
    with pytest.raises(CodegenError, match="unknown option"):
        get_backend("hlo").with_options(dim=4)  # type: ignore[attr-defined]
    fn, _, ps = lifted("benchmarks/kernels/blas/gemv.c")
    with pytest.raises(LiftError, match="not a size parameter of gemv"):
        HloBackend({"Q": 3}).generate(fn, ps)
    fn, _, ps = lifted("benchmarks/kernels/llama/matmul.cc")  # assume weight__cols == input__size
    with pytest.raises(LiftError, match="violate the kernel's precondition"):
        HloBackend({"input__size": 3}).generate(fn, ps)


def run_cli(args: list[str], tmp_path: Path) -> tuple[int, str, str]:
    p = subprocess.run([sys.executable, "-m", "tenspiler.cli", *args], capture_output=True, text=True, cwd=tmp_path,
                       timeout=600, env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin",
                                        "HOME": str(tmp_path)})
    return p.returncode, p.stdout, p.stderr


def test_cli_writes_the_kernel_hlo_golden(tmp_path: Path, golden: Any) -> None:
    code, out, err = run_cli([str(ROOT / "benchmarks/kernels/blas/gemv.c"), "--to", "hlo", "-o", str(tmp_path / "o")], tmp_path)
    assert code == 0, err
    text = (tmp_path / "o" / "gemv.hlo").read_text()
    assert "Static sizes: M=64, N=64 (default: every size parameter 64" in text
    assert "# hlo: written to" in out
    golden("hlo/gemv.hlo", text)


def test_cli_hlo_sizes_and_several_modules(tmp_path: Path) -> None:
    code, _, err = run_cli([str(ROOT / "tests/kernels/gemv_bias.c"), "--to", "hlo", "--hlo-sizes", "M=3,N=5", "-o", str(tmp_path / "o")], tmp_path)
    assert code == 0, err
    text = (tmp_path / "o" / "gemv_bias.hlo").read_text()
    modules = split_modules(text)
    assert [m.splitlines()[0] for m in modules] == [f"{MODULE_SEPARATOR}gemv_bias_g0 ----", f"{MODULE_SEPARATOR}gemv_bias_g1 ----"]
    assert "ENTRY %main (x: s32[5]) -> s32[5]" in modules[0] and "-> s32[3]" in modules[1]


@pytest.mark.parametrize(("sizes", "message"), [("M=x", "not name=value"), ("M=0", "at least 1"), ("M=3,,N=2", "not name=value"),
                                                ("Q=4", "not a size parameter")])
def test_cli_rejects_malformed_sizes(tmp_path: Path, sizes: str, message: str) -> None:
    code, out, err = run_cli([str(ROOT / "benchmarks/kernels/blas/gemv.c"), "--to", "hlo", "--hlo-sizes", sizes, "-o", str(tmp_path / "o")], tmp_path)
    assert code == 2 and message in err and "--hlo-sizes" in err, err
    assert out == "" and not (tmp_path / "o").exists()


def test_cli_kernel_without_a_device_part_gets_a_file_saying_so(tmp_path: Path) -> None:
    code, _, err = run_cli([str(ROOT / "benchmarks/kernels/python/saxpy.py"), "--to", "hlo", "--json", "-o", str(tmp_path / "o")], tmp_path)
    assert code == 0, err
    text = (tmp_path / "o" / "saxpy.hlo").read_text()
    assert "No accelerator-bound part" in text and "HloModule" not in text and "double values" in text


def test_cli_to_all_includes_hlo(tmp_path: Path) -> None:
    code, out, err = run_cli([str(ROOT / "examples/saxpy.c"), "--to", "all", "--json", "-o", str(tmp_path / "o")], tmp_path)
    assert code == 0, err
    d = json.loads(out)
    assert Path(d["outputs"]["hlo"]).name == "saxpy.hlo" and d["placement"]["hlo"]["modules"] == ["g0"]


@needs_cc
@pytest.mark.parametrize("path", ["tests/kernels/gemv_bias.c", "tests/kernels/relu.c", "benchmarks/kernels/llama/matmul.cc",
                                  "tests/kernels/softmax_exp.c"])
def test_check_runs_the_exported_graphs(path: str) -> None:
    r = lift_file(ROOT / path, ["hlo"], check=True)
    assert r.status == "verified", r.message
    c = r.check["hlo"]  # type: ignore[index]
    assert c["ok"] and c["passed"] == c["inputs"] and "tenspiler.act.graph" in c["executed"]


@needs_xla
def test_every_golden_module_parses_and_compiles(xla: Xla) -> None:
    """Last in this file: the kernel golden is (re)written by a CLI test above."""
    files = sorted(GOLDEN.glob("*.hlo"))
    assert len(files) >= 4
    count = 0
    for f in files:
        text = f.read_text(encoding="utf-8")
        for module in split_modules(text) if MODULE_SEPARATOR in text else [text]:
            assert xla.errors(module) is None, (f.name, module)
            count += 1
    assert count >= 4
