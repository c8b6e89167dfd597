"""The TensIR constructors ``full(length, value)`` (a fill) and ``iota(start, stop)`` (the loop
counter used as a value), end to end: interpreter, SMT encoding (tied together with cvc5),
printer, range analysis, the NumPy and PyTorch rules, the device backends' declines, and lifts
of small kernels (tests/kernels/{vfill,zero,iota,ramp,affine}.c) — including summaries that
must *not* verify."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_codegen_numpy import load, make_fn
from test_tensir_smt import assert_agree, smt_proves

from tenspiler.codegen import get_backend, op_key
from tenspiler.codegen.ranges import DtypePlan, Interval, term_range
from tenspiler.errors import VerificationError
from tenspiler.ir.interp import evaluate
from tenspiler.ir.printer import show
from tenspiler.ir.semantics import UndefinedBehaviour
from tenspiler.ir.smt import SmtEncoder, element_vars
from tenspiler.ir.terms import (
    ArrayOutput,
    Cmp,
    Full,
    Iota,
    Lit,
    ProgramSummary,
    ReduceSum,
    Scalar,
    ScalarOp,
    ScalarVar,
    Size,
    Slice,
    Tail,
    Take,
    Tensor,
    TensorCast,
    TensorScalar,
    TensorSelect,
    TensorTensor,
    TensorVar,
    Term,
    children,
    is_tensor,
    map_children,
    rank,
    substitute,
)
from tenspiler.loops.ir import BIN_OPS, DType
from tenspiler.pipeline import lift_file, parse_source_file
from tenspiler.synth.trees import expression_tree, leaf_pools
from tenspiler.vc.analyze import analyze_kernel
from tenspiler.vc.conditions import BOUND, Candidate
from tenspiler.vc.kernel import LoopKernel
from tenspiler.verify.verifier import prove, verify

INT, FLOAT, UINT8 = DType.INT, DType.FLOAT, DType.UINT8
KERNELS = Path(__file__).parent / "kernels"
A = TensorVar("a", INT)
S = ScalarVar("s", INT)
T = ScalarVar("t", INT)
N = ScalarVar("n", INT)


def lit(v: int) -> Lit:
    return Lit(v, INT)


# ---------------------------------------------------------------- terms and interpreter


def test_terms_are_tensors_with_dtypes() -> None:
    f = Full(N, ScalarVar("v", FLOAT))
    i = Iota(lit(2), N)
    assert is_tensor(f) and is_tensor(i) and rank(f) == rank(i) == 1
    assert f.dtype == FLOAT and i.dtype == INT
    assert Full(N, ScalarVar("c", UINT8)).dtype == UINT8  # the value's dtype
    assert children(f) == [N, f.value] and children(i) == [lit(2), N]
    assert map_children(i, lambda c: c) is i
    assert substitute(i, {"n": lit(7)}) == Iota(lit(2), lit(7))
    assert substitute(Full(ScalarOp("-", N, S, INT), T), {"t": lit(1)}) == Full(ScalarOp("-", N, S, INT), lit(1))


def test_interpreter_values() -> None:
    assert evaluate(Iota(lit(0), N), {"n": 4}).tolist() == [0, 1, 2, 3]
    assert evaluate(Iota(S, N), {"s": -2, "n": 2}).tolist() == [-2, -1, 0, 1]
    assert evaluate(Iota(N, N), {"n": 5}).shape == (0,)
    v = evaluate(Full(N, ScalarVar("x", FLOAT)), {"n": 3, "x": 0.5})
    assert v.dtype == np.float64 and v.tolist() == [0.5, 0.5, 0.5]
    w = evaluate(Full(lit(2), S), {"s": -9})
    assert w.dtype == np.int64 and w.tolist() == [-9, -9]
    assert evaluate(Full(lit(0), S), {"s": 1}).shape == (0,)
    assert evaluate(Size(Iota(lit(3), lit(10))), {}) == 7
    assert evaluate(ReduceSum(Iota(lit(1), N), INT), {"n": 5}) == 10


def test_interpreter_refuses_ill_formed_shapes() -> None:
    with pytest.raises(IndexError, match="iota"):
        evaluate(Iota(lit(3), lit(2)), {})
    with pytest.raises(IndexError, match="full"):
        evaluate(Full(lit(-1), lit(0)), {})


def test_printer() -> None:
    assert show(Full(N, lit(0))) == "full(n, 0)"
    assert show(Full(ScalarOp("-", N, S, INT), Lit(0.5, FLOAT))) == "full((n - s), 0.5)"
    assert show(Iota(lit(0), N)) == "iota(0, n)"
    assert show(TensorScalar("*", Iota(lit(1), N), lit(2), True, INT)) == "scalar_tensor(2, iota(1, n), *)"
    assert op_key(Full(N, lit(0))) == "full" and op_key(Iota(lit(0), N)) == "iota"


# ---------------------------------------------------------------- SMT encoding


def test_encoding_is_pointwise() -> None:
    enc = SmtEncoder({"n": "n0", "s": "s0", "v": "v0"})
    assert enc.at(Full(N, ScalarVar("v", FLOAT)), "k") == "v0"
    assert enc.at(Iota(S, N), "k") == "(+ s0 k)"
    assert enc.length(Iota(S, N)) == "(- n0 s0)"
    assert enc.length(Full(N, S)) == "n0"
    assert enc.range_conditions(Iota(S, N)) == ["(<= s0 n0)"]
    assert enc.range_conditions(Full(N, S)) == ["(<= 0 n0)"]
    # a reduction's parameters: what the elements read, not the length
    assert element_vars(Iota(S, N)) == {"s"} and element_vars(Full(N, T)) == {"t"}


def test_prefix_substitution_gives_the_invariant_terms() -> None:
    """The invariant is the summary with the bound replaced by the counter: element k of
    iota(start, i) is start + k and the length i - start."""
    bound = ScalarVar(BOUND, INT)
    enc = SmtEncoder({"s": "s0", BOUND: "i.h"})
    assert enc.at(Iota(S, bound), "(- k s0)") == "(+ s0 (- k s0))"
    assert enc.length(Iota(S, bound)) == "(- i.h s0)"
    assert enc.length(Full(ScalarOp("-", bound, S, INT), T)) == "(- i.h s0)"


values = st.integers(-6, 6)
OPS = list(BIN_OPS)


@st.composite
def cases(draw: Callable[[st.SearchStrategy[Any]], Any]) -> tuple[Term, dict[str, Any]]:
    """A well-formed term built around full / iota, over the int tensors ``a``, ``b`` and
    int scalars ``s``, ``t`` of :mod:`test_tensir_smt`, with its concrete inputs."""
    env = {"a": draw(st.lists(values, max_size=5)), "b": draw(st.lists(values, max_size=5)),
           "s": draw(values), "t": draw(values)}
    scalars: list[tuple[Scalar, int]] = [(lit(k), k) for k in range(-3, 4)] + [(S, env["s"]), (T, env["t"])]

    def length(lo: int) -> tuple[Scalar, int]:
        """A length term with value >= lo (literal, scalar, size of a, or a sum)."""
        opts = [(x, v) for x, v in scalars if v >= lo] + [(Size(A), len(env["a"]))]
        opts += [(ScalarOp("+", x, lit(1), INT), v + 1) for x, v in scalars if v + 1 >= lo]
        return draw(st.sampled_from([o for o in opts if o[1] >= lo]))

    def leaf() -> tuple[Tensor, int]:
        if draw(st.booleans()):
            start, sv = draw(st.sampled_from(scalars))
            stop, tv = length(sv)
            return Iota(start, stop), tv - sv
        n, nv = length(0)
        value, _ = draw(st.sampled_from(scalars))
        return Full(n, value), nv

    def tensor(depth: int) -> tuple[Tensor, int]:
        kind = draw(st.sampled_from(["leaf", "ts", "tt", "take", "tail", "slice", "cast"] if depth else ["leaf"]))
        if kind == "leaf":
            return leaf()
        x, lx = tensor(depth - 1)
        if kind == "ts":
            s, _ = draw(st.sampled_from(scalars))
            return TensorScalar(draw(st.sampled_from(OPS)), x, s, draw(st.booleans()), INT), lx
        if kind == "tt":  # with the input a (cut to equal lengths) or another full/iota term
            y, ly = (A, len(env["a"])) if draw(st.booleans()) else tensor(depth - 1)
            m = min(lx, ly)
            x2 = x if lx == m else Take(x, lit(m))
            y2 = y if ly == m else Take(y, lit(m))
            pair = (x2, y2) if draw(st.booleans()) else (y2, x2)
            return TensorTensor(draw(st.sampled_from(OPS)), *pair, INT), m
        if kind == "cast":
            return TensorCast(x, UINT8), lx
        k = draw(st.integers(0, lx))
        if kind == "take":
            return Take(x, lit(k)), k
        if kind == "tail":
            return Tail(x, lit(k)), lx - k
        hi = draw(st.integers(k, lx))
        return Slice(x, lit(k), lit(hi)), hi - k

    t, _ = tensor(draw(st.sampled_from([0, 1, 2, 3])))
    return (ReduceSum(t, INT) if draw(st.booleans()) else t), env


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(cases())
def test_interpreter_and_smt_agree(case: tuple[Term, dict[str, Any]]) -> None:
    """One semantics: cvc5 proves the encoding's value (every element and the length) equals
    the interpreter's on random inputs (tests/test_tensir_smt.py's checker)."""
    term, env = case
    try:
        evaluate(term, env)
    except UndefinedBehaviour:
        assume(False)
    assert_agree(term, env)


@pytest.mark.parametrize(("term", "wrong"), [
    (Iota(S, T), [0, 1]),  # not start-based
    (Iota(lit(0), lit(3)), [1, 2, 3]),  # off by one
    (Full(lit(2), S), [4, 4, 4]),  # one element too many
])
def test_smt_refutes_wrong_values(term: Term, wrong: list[int]) -> None:
    env = {"a": [], "b": [], "s": 4, "t": 6}
    assert not smt_proves(term, env, np.asarray(wrong))


# ---------------------------------------------------------------- range analysis and codegen


def test_iota_interval_is_start_to_stop_minus_one() -> None:
    u8 = {"m": Interval(0, 255), "c": Interval(0, 255)}
    assert term_range(Iota(lit(0), ScalarVar("m", INT)), u8) == Interval(0, 254)
    assert term_range(Iota(lit(-3), lit(10)), {}) == Interval(-3, 9)
    assert term_range(Iota(lit(0), N), {}) == Interval(0, None)  # an int bound: unbounded
    assert term_range(Full(N, ScalarVar("c", INT)), u8) == Interval(0, 255)
    fn = make_fn("f", "uchar* o, uchar c, uchar m")
    plan = DtypePlan.for_function(fn, ("uint8", "int16", "int32", "int64"), {d: "int64" for d in DType})
    assert plan.rep(Iota(lit(0), ScalarVar("m", INT))) == "uint8"
    assert plan.rep(Iota(lit(-1), ScalarVar("m", INT))) == "int16"
    assert plan.rep(Full(ScalarVar("m", INT), ScalarVar("c", UINT8))) == "uint8"


def _numpy(fn_params: str, ps: ProgramSummary, backend: str = "numpy") -> tuple[str, Any]:
    fn = make_fn(ps.function, fn_params)
    code = get_backend(backend).generate(fn, ps)
    return code.text, load(code)


def test_numpy_rules() -> None:
    ps = ProgramSummary("f", (ArrayOutput("a", lit(0), N, TensorTensor(
        "+", Take(TensorVar("b", INT), N), TensorScalar("*", Iota(lit(0), N), lit(2), True, INT), INT)),))
    text, f = _numpy("int* a, int* b, int n", ps)
    assert "np.arange(0, n, dtype=np.int64)" in text
    assert f(np.zeros(4, np.int64), np.array([5, 5, 5, 5]), 3).tolist() == [5, 7, 9, 0]
    ps2 = ProgramSummary("g", (ArrayOutput("a", lit(1), N, Full(ScalarOp("-", N, lit(1), INT), ScalarVar("v", FLOAT))),))
    text2, g = _numpy("float* a, float v, int n", ps2)
    assert "np.full(" in text2 and "dtype=np.float32" in text2
    out = g(np.zeros(4, np.float32), 1.5, 3)
    assert out.dtype == np.float32 and out.tolist() == [0.0, 1.5, 1.5, 0.0]


def test_numpy_narrows_iota_of_a_byte_bound() -> None:
    ps = ProgramSummary("h", (ArrayOutput("o", lit(0), ScalarVar("m", INT), Iota(lit(0), ScalarVar("m", INT))),))
    text, h = _numpy("uchar* o, uchar m", ps)
    assert "np.arange(0, m, dtype=np.uint8)" in text
    assert h(np.zeros(300, np.uint8), 255)[:256].tolist() == [*range(255), 0]


def test_torch_rules() -> None:
    pytest.importorskip("torch")
    ps = ProgramSummary("f", (ArrayOutput("a", lit(0), N, TensorScalar(
        "+", TensorCast(Iota(lit(0), N), FLOAT), ScalarVar("v", FLOAT), False, FLOAT)),))
    text, f = _numpy("float* a, float v, int n", ps, "torch")
    assert "torch.arange(0, n, dtype=torch.int64)" in text
    got = get_backend("torch").to_numpy(f(np.zeros(5, np.float32), 0.5, 4))  # type: ignore[attr-defined]
    assert got.tolist() == [0.5, 1.5, 2.5, 3.5, 0.0]
    ps2 = ProgramSummary("g", (ArrayOutput("a", lit(0), N, Full(N, ScalarVar("v", INT))),))
    text2, g = _numpy("int* a, int v, int n", ps2, "torch")
    assert "torch.full((n,), v, dtype=torch.int64)" in text2
    assert get_backend("torch").to_numpy(g(np.zeros(3, np.int64), -4, 2)).tolist() == [-4, -4, 0]  # type: ignore[attr-defined]


def test_array_backend_declines_iota_of_a_computed_bound() -> None:
    """A jit compiler needs static shapes: iota / full whose bounds are not static integers
    become NumPy host code (the docstring lists them)."""
    pytest.importorskip("torch")
    b = TensorVar("b", INT)
    stop = ReduceSum(Slice(b, lit(0), lit(1)), INT)  # b[0]: not static
    ps = ProgramSummary("f", (ArrayOutput("a", lit(0), N, Take(TensorScalar("+", Iota(lit(0), stop), lit(0), False, INT), N)),))
    text, _ = _numpy("int* a, int* b, int n", ps, "torch")
    assert "np.arange" in text and "iota(0, reduce_sum(slice(b, 0, 1)))" in text


# ---------------------------------------------------------------- synthesis and lifting


def _kernel(name: str) -> LoopKernel:
    k = analyze_kernel(parse_source_file(KERNELS / name))
    assert isinstance(k, LoopKernel)
    return k


def test_counter_is_an_iota_leaf_and_only_where_it_is_a_value() -> None:
    k = _kernel("ramp.c")
    pools = leaf_pools(k, [k.arrays[0].value])
    assert Iota(lit(0), ScalarVar(BOUND, INT)) in pools.vectors
    assert "vec" in str(expression_tree(k.arrays[0].value, k))
    k2 = _kernel("vfill.c")
    assert not any(isinstance(v, Iota) for v in leaf_pools(k2, [k2.arrays[0].value]).vectors)
    # a[i] = b[i]: the counter only indexes, so no iota leaf
    k3 = _kernel("helper_square.c")
    assert not any(isinstance(v, Iota) for v in leaf_pools(k3, [a.value for a in k3.arrays]).vectors)


LIFTS = {
    "vfill.c": "arr[0:n] = full(n, v)",
    "zero.c": "a[0:n] = full(n, 0.0)",
    "iota.c": "a[0:n] = iota(0, n)",
    "ramp.c": "a[0:n] = tensor_tensor(take(b, n), scalar_tensor(2, iota(0, n), *), +)",
    "affine.c": "a[0:n] = tensor_scalar(scalar_tensor(s, cast(iota(0, n), float), *), 1.0, +)",
    "mzero.c": "m[0:(rows * n)] = full((rows * n), 0.0)",  # a loop nest
}


@pytest.mark.parametrize("name", sorted(LIFTS))
def test_kernels_lift_verify_and_check(name: str, tmp_path: Path) -> None:
    res = lift_file(KERNELS / name, backends=("numpy",), out_dir=tmp_path, check=True)
    assert res.status == "verified", res.message
    assert res.summary == LIFTS[name]
    assert res.check is not None and res.check["numpy"]["ok"], res.check
    assert res.solver and all(s["answer"] == "unsat" for s in res.solver)
    assert len(res.solver) == (7 if name == "mzero.c" else 4)


def test_nest_counters_as_values_are_not_lifted_yet(tmp_path: Path) -> None:
    """In a loop nest the counters over the flat index are a division and a remainder by the
    row length (iota(0, m*n) / n): not attempted; refused with the location."""
    src = tmp_path / "mij.c"
    src.write_text("void mij(int *m, int rows, int n) {\n  for (int i = 0; i < rows; i++)\n"
                   "    for (int j = 0; j < n; j++)\n      m[i * n + j] = i + j;\n}\n")
    res = lift_file(src, backends=("numpy",), out_dir=tmp_path / "out")
    assert res.status == "not_lifted" and "mij.c:4:" in res.message
    assert "the loop counter 'i' is used as a value" in res.message


def _proves(k: LoopKernel, term: Tensor) -> bool:
    try:
        verify(k, Candidate((), ((k.arrays[0].array, term),)), (), 10.0)
    except VerificationError:
        return False
    return True


def test_mutants_do_not_verify() -> None:
    """Summaries one step off the right one are rejected (concretely or by cvc5)."""
    bound = ScalarVar(BOUND, INT)
    k = _kernel("iota.c")
    assert _proves(k, Iota(lit(0), bound))
    assert not _proves(k, Iota(lit(1), ScalarOp("+", bound, lit(1), INT)))  # a[i] = i + 1
    assert not _proves(k, Iota(lit(0), ScalarOp("+", bound, lit(1), INT)))  # off-by-one bound
    assert not _proves(k, Iota(lit(0), ScalarOp("-", bound, lit(1), INT)))
    f = _kernel("vfill.c")
    v = ScalarVar("v", INT)
    assert _proves(f, Full(bound, v))
    assert not _proves(f, Full(ScalarOp("+", bound, lit(1), INT), v))  # one element too many
    assert not _proves(f, Full(bound, ScalarOp("+", v, lit(1), INT)))


def test_mutants_fail_the_unbounded_clauses_too() -> None:
    """Without the concrete and bounded refutations: the unbounded clauses alone reject
    ``a[i] = i`` summarised as iota(1, n + 1) (``a[i] = i + 1``) and full(n + 1, v)."""
    bound = ScalarVar(BOUND, INT)
    for name, term in (("iota.c", Iota(lit(1), ScalarOp("+", bound, lit(1), INT))),
                       ("vfill.c", Full(ScalarOp("+", bound, lit(1), INT), ScalarVar("v", INT)))):
        k = _kernel(name)
        with pytest.raises(VerificationError):
            prove(k, Candidate((), ((k.arrays[0].array, term),)), 10.0)


def test_post_clause_states_the_value_length() -> None:
    """Not only for full / iota: ``y[0:n] = select(take(x, n + 1) > 0, …)`` agrees with relu
    on every element of ``[0, n)`` but is one element too long; the post clause refutes it."""
    k = _kernel("relu.c")
    bound = ScalarVar(BOUND, INT)
    for m in (bound, ScalarOp("+", bound, lit(1), INT)):
        x = Take(TensorVar("x", FLOAT), m)
        zero = Lit(0.0, FLOAT)
        t = TensorSelect(Cmp(">", x, zero), x, zero, FLOAT)
        if m is bound:
            prove(k, Candidate((), (("y", t),)), 10.0)
        else:
            with pytest.raises(VerificationError, match="post"):
                prove(k, Candidate((), (("y", t),)), 10.0)


BENCH = Path(__file__).parent.parent / "benchmarks" / "kernels" / "fill_iota"
BENCH_SUMMARIES = {
    "distance_from.c": "d[0:n] = select(iota(0, n) > c, tensor_scalar(iota(0, n), c, -), scalar_tensor(c, iota(0, n), -))",
    "fill_offset.c": "a[3:(n + 2)] = full((n - 1), -7)",
    "index_sum.c": "return = reduce_sum(scalar_tensor(3, iota(1, n), *))",
    "mat_fill.c": "m[0:(rows * cols)] = full((rows * cols), (bias + 1))",
    "linspace.c": "out[0:n] = scalar_tensor(lo, scalar_tensor(step, cast(iota(0, n), double), *), +)",
    "memset_tail.c": "buf[from:n] = full((n - from), value)",
    "positional_bias.c": "y[0:n] = tensor_tensor(take(x, n), tensor_scalar(iota(0, n), 4, /), +)",
    "sawtooth.c": "out[0:n] = cast(iota(0, n), uint8)",
    "window_mask.c": "out[0:n] = select(iota(0, n) >= k, take(in, n), 0.0)",
}


def test_benchmark_folder_is_covered() -> None:
    assert sorted(p.name for p in BENCH.glob("*.c")) == sorted(BENCH_SUMMARIES)


@pytest.mark.parametrize("name", sorted(BENCH_SUMMARIES))
def test_benchmark_kernels_lift(name: str, tmp_path: Path) -> None:
    res = lift_file(BENCH / name, backends=("numpy", "tpc_c", "gemmini"), out_dir=tmp_path, check=True)
    assert res.status == "verified", res.message
    assert res.summary == BENCH_SUMMARIES[name]
    assert res.check is not None and all(c["ok"] for c in res.check.values()), res.check


def test_device_backends_decline_to_the_host_with_a_reason(tmp_path: Path) -> None:
    res = lift_file(KERNELS / "vfill.c", backends=("tpc_c", "gemmini"), out_dir=tmp_path, check=True)
    assert res.status == "verified", res.message
    assert res.check is not None and all(c["ok"] for c in res.check.values()), res.check
    tpc = (tmp_path / "vfill.tpc.c").read_text()
    assert "full is generated by the host (no TPC rule generates a constant or index vector)" in tpc
    gem = (tmp_path / "vfill.gemmini.c").read_text()
    assert "full(n, v): generated by the host (no Gemmini rule here writes a constant" in gem


def test_iota_is_not_the_counter_plus_one(tmp_path: Path) -> None:
    """``a[i] = i + 1`` is not ``iota(0, n)`` (nor ``iota(0, n + 1)``): cvc5 refutes both
    without concrete examples; ``tensor_scalar(iota(0, n), 1, +)`` and ``iota(1, n + 1)`` are
    proved."""
    src = tmp_path / "next.c"
    src.write_text("void next(int *a, int n) {\n  for (int i = 0; i < n; i++)\n    a[i] = i + 1;\n}\n")
    k = analyze_kernel(parse_source_file(src))
    assert isinstance(k, LoopKernel)
    bound = ScalarVar(BOUND, INT)
    plus1 = ScalarOp("+", bound, lit(1), INT)
    for wrong in (Iota(lit(0), bound), Iota(lit(0), plus1)):
        with pytest.raises(VerificationError):
            prove(k, Candidate((), (("a", wrong),)), 10.0)
    for right in (TensorScalar("+", Iota(lit(0), bound), lit(1), False, INT), Iota(lit(1), plus1)):
        prove(k, Candidate((), (("a", right),)), 10.0)
