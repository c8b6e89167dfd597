"""The TPC-C backend (Intel Gaudi): kernels compiled against tpc_emulation.h with ``cc`` and run
through the generated host part, compared with the reference interpreter (per op, with
hypothesis) and with the original C (whole kernels, ``--check``); the device/host split;
the generated text (golden files under tests/golden/tpc_c/)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tenspiler.check import term_magnitude
from tenspiler.codegen import GeneratedCode, backend_names, get_backend, returned_outputs
from tenspiler.codegen.split import DeviceKernel, split_summary
from tenspiler.codegen.tpc_c import TPC_C
from tenspiler.codegen.tpc_c.emulation import EmulatedDevice, compile_kernel, split_index_space
from tenspiler.errors import CodegenError
from tenspiler.ir.interp import evaluate
from tenspiler.ir.semantics import UndefinedBehaviour, np_cast, py_binop, py_cast, results_agree
from tenspiler.ir.terms import (
    ArrayOutput,
    BoolOp,
    Cmp,
    Lit,
    Matrix,
    NotCond,
    ProgramSummary,
    ReduceMax,
    ReduceRows,
    ReduceSum,
    ScalarOp,
    ScalarOutput,
    ScalarVar,
    Slice,
    Take,
    TensorCast,
    TensorMap,
    TensorScalar,
    TensorSelect,
    TensorTensor,
    TensorVar,
    Term,
)
from tenspiler.loops.ir import DType, Function, Param, PointerType, ScalarType
from tenspiler.pipeline import lift_file

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler (cc)")

ROOT = Path(__file__).resolve().parent.parent
INT, UINT8, FLOAT, DOUBLE = DType.INT, DType.UINT8, DType.FLOAT, DType.DOUBLE
INT_MIN, INT_MAX = -(2**31), 2**31 - 1


def sig(name: str, params: str, ret: DType | None = None, source: str = "") -> Function:
    """A loop-IR signature from ``"int* a, float s"`` (the body is not needed)."""
    types = {"int": INT, "uchar": UINT8, "float": FLOAT, "double": DOUBLE}
    ps = []
    for item in params.split(","):
        ty, pname = item.split()
        ps.append(Param(pname, PointerType(types[ty[:-1]]) if ty.endswith("*") else ScalarType(types[ty])))
    return Function(name, tuple(ps), ret, (), (), source=source)


def tv(name: str, d: DType = INT) -> TensorVar:
    return TensorVar(name, d)


def sv(name: str, d: DType = INT) -> ScalarVar:
    return ScalarVar(name, d)


def lit(v: int | float, d: DType = INT) -> Lit:
    return Lit(v, d)


n = sv("n")


def out(value: Term, array: str = "out") -> ArrayOutput:
    return ArrayOutput(array, lit(0), n, value)  # type: ignore[arg-type]


# ---------------------------------------------------------------- running

_HOSTS: dict[str, dict[str, Any]] = {}


def host_namespace(code: GeneratedCode) -> dict[str, Any]:
    """The generated host module, executed once per text."""
    host = dict(code.extra_files)["_host.py"]
    ns = _HOSTS.get(host)
    if ns is None:
        ns = {"__name__": "tenspiler_tpc_host"}
        exec(compile(host, "<tpc host>", "exec"), ns)
        _HOSTS[host] = ns
    return ns


def run_tpc(code: GeneratedCode, inputs: Mapping[str, Any], members: int = 3) -> tuple[tuple[Any, ...], EmulatedDevice]:
    ns = host_namespace(code)
    dev = EmulatedDevice(code.text, ns["KERNELS"], members=members)
    ns["set_device"](dev)
    args = [np.copy(inputs[p]) if isinstance(inputs[p], np.ndarray) else inputs[p] for p in code.params]
    got = ns[code.entry](*args)
    n_out = len(returned_outputs_of(code))
    return (got,) if n_out == 1 else tuple(got or ()), dev


def returned_outputs_of(code: GeneratedCode) -> list[Any]:
    return [o for o in (code.placement or {}).get("outputs", [])]


def reference(fn: Function, ps: ProgramSummary, inputs: Mapping[str, Any]) -> tuple[Any, ...]:
    """What the summary means (reference interpreter), in the NumPy backend's result format."""
    results: list[Any] = []
    for o in returned_outputs(ps):
        if isinstance(o, ArrayOutput):
            elem = fn.param(o.array).type.elem  # type: ignore[union-attr]
            arr = np.array(inputs[o.array], dtype=np.float64 if elem.is_float else np.int64)
            lo, hi = evaluate(o.lo, inputs), evaluate(o.hi, inputs)
            arr[lo:hi] = np_cast(evaluate(o.value, inputs), elem)
            results.append(arr)
        else:
            assert fn.return_dtype is not None
            results.append(py_cast(evaluate(o.value, inputs), fn.return_dtype))
    return tuple(results)


def same(want: Any, got: Any, exact: bool, magnitude: float = 0.0) -> bool:
    """Exactly, or within float32 rounding of the larger of the result's and the terms'
    magnitude (``check.term_magnitude``: a cancelling sum's error scales with its terms)."""
    w, g = np.asarray(want, dtype=np.float64), np.asarray(got, dtype=np.float64)
    if w.shape != g.shape:
        return False
    if exact:
        return bool(np.array_equal(w, g))
    return results_agree(w, g, DType.FLOAT, magnitude)


def check_against_reference(
    fn: Function, ps: ProgramSummary, inputs: Mapping[str, Any], members: int = 3, numpy_exact: bool = False
) -> None:
    """The TPC lowering agrees with the reference interpreter (floats: within rounding); with
    ``numpy_exact``, also bit for bit with the NumPy backend's code (where both evaluate the
    same binary32 operations in the same order: no reductions)."""
    code = TPC_C.generate(fn, ps)
    try:
        want = reference(fn, ps, inputs)
    except UndefinedBehaviour:
        assume(False)
    got, _ = run_tpc(code, inputs, members)
    float_out = [
        (fn.param(o.array).type.elem.is_float if isinstance(o, ArrayOutput) else bool(fn.return_dtype and fn.return_dtype.is_float))  # type: ignore[union-attr]
        for o in returned_outputs(ps)
    ]
    magnitude = term_magnitude(fn, ps, inputs)
    for w, g, is_float in zip(want, got, float_out, strict=True):
        assert same(w, g, exact=not is_float, magnitude=magnitude), f"reference {w!r}, tpc_c {g!r} (inputs {dict(inputs)!r})"
    if numpy_exact:
        ns: dict[str, Any] = {}
        numpy_code = get_backend("numpy").generate(fn, ps)
        exec(numpy_code.text, ns)
        res = ns[numpy_code.entry](*(inputs[p] for p in numpy_code.params))
        res = (res,) if len(float_out) == 1 else tuple(res or ())
        for w, g in zip(res, got, strict=True):
            assert np.array_equal(np.asarray(w, dtype=np.float64), np.asarray(g, dtype=np.float64), equal_nan=True), (w, g)


FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def int_arrays(size: int, lo: int, hi: int) -> st.SearchStrategy[np.ndarray]:
    edge = st.sampled_from([lo, hi, 0, -1, 1])
    return st.lists(st.integers(lo, hi) | edge, min_size=size, max_size=size).map(
        lambda v: np.array(v, dtype=np.int64)
    )


# ---------------------------------------------------------------- registry and files


def test_tpc_c_is_registered_and_emits_three_files() -> None:
    assert "tpc_c" in backend_names()
    fn = sig("vadd", "int* a, int* b, int* out, int n")
    ps = ProgramSummary("vadd", (out(TensorTensor("+", Take(tv("a"), n), Take(tv("b"), n), INT)),))
    code = get_backend("tpc_c").generate(fn, ps)
    assert (code.backend, code.language, code.filename_suffix) == ("tpc_c", "tpc-c", ".tpc.c")
    assert [s for s, _ in code.extra_files] == ["_glue.cpp", "_host.py"]
    assert code.runner is not None and "tpc_emulation.h" in code.runner.description
    assert code.params == ("a", "b", "out", "n")
    text = code.text
    for needle in (
        "void main(tensor a, tensor b, tensor out_out)",
        "get_index_space_offset()",
        "get_index_space_size()",
        "int5 coords",
        "v_i32_ld_tnsr_b(coords, a)",
        "v_i32_add_b(",
        "v_i32_st_tnsr(coords, out_out,",
    ):
        assert needle in text
    glue = dict(code.extra_files)["_glue.cpp"]
    for needle in ("GetKernelName", "GetGcDefinitions", "indexSpaceGeometry[0]", "tpc_lib_api::DATA_I32", "NOT compiled here"):
        assert needle in glue
    assert code.placement is not None
    assert code.placement["outputs"][0]["where"] == "device"


def test_generation_is_deterministic() -> None:
    fn, ps = BLEND
    assert TPC_C.generate(fn, ps).text == TPC_C.generate(fn, ps).text


BLEND = (
    sig("normal_blend_8", "uchar* base, uchar* active, uchar* out, uchar opacity, int n"),
    ProgramSummary(
        "normal_blend_8",
        (
            out(
                TensorCast(
                    TensorScalar(
                        "/",
                        TensorTensor(
                            "+",
                            TensorScalar("*", Take(tv("active", UINT8), n), sv("opacity", UINT8), True, INT),
                            TensorScalar(
                                "*", Take(tv("base", UINT8), n), ScalarOp("-", lit(255), sv("opacity", UINT8), INT), True, INT
                            ),
                            INT,
                        ),
                        lit(255),
                        False,
                        INT,
                    ),
                    UINT8,
                )
            ),
        ),
    ),
)


@pytest.mark.parametrize("part", ["tpc.c", "glue.cpp", "host.py"])
def test_golden_blend(part: str, golden: Callable[[str, str], None]) -> None:
    code = TPC_C.generate(*BLEND)
    files = {"tpc.c": code.text, **{s.lstrip("_"): t for s, t in code.extra_files}}
    name = {"tpc.c": "normal_blend_8.tpc.c", "glue.cpp": "normal_blend_8_glue.cpp", "host.py": "normal_blend_8_host.py"}[part]
    golden(f"tpc_c/{name}", files[part])


def test_blend_kernel_values() -> None:
    fn, ps = BLEND
    rng = np.random.default_rng(1)
    for size, members in ((0, 1), (1, 1), (63, 2), (64, 3), (65, 2), (255, 1), (256, 2), (257, 3), (300, 4), (1030, 3)):
        inputs = {
            "base": rng.integers(0, 256, size), "active": rng.integers(0, 256, size),
            "out": rng.integers(0, 256, size), "opacity": int(rng.integers(0, 256)), "n": size,
        }
        check_against_reference(fn, ps, inputs, members, numpy_exact=True)


# ---------------------------------------------------------------- integer ops (hypothesis)

IOP = sig("iop", "int* a, int* b, int* out, int s, int n")
_KINDS = ("tensor_tensor", "tensor_scalar", "scalar_tensor")


def _int_term(kind: str, op: str) -> Term:
    a, b, s = Take(tv("a"), n), Take(tv("b"), n), sv("s")
    return {
        "tensor_tensor": TensorTensor(op, a, b, INT),  # type: ignore[arg-type]
        "tensor_scalar": TensorScalar(op, a, s, False, INT),  # type: ignore[arg-type]
        "scalar_tensor": TensorScalar(op, a, s, True, INT),  # type: ignore[arg-type]
    }[kind]


@st.composite
def int_inputs(draw: st.DrawFn, lo: int, hi: int, nonzero_divisor: bool) -> dict[str, Any]:
    size = draw(st.sampled_from([0, 1, 5, 63, 64, 65, 130]))
    a = draw(int_arrays(size, lo, hi))
    b = draw(int_arrays(size, lo, hi))
    s = draw(st.integers(lo, hi) | st.sampled_from([lo, hi, -1, 1, 7]))
    if nonzero_divisor:
        b = np.where(b == 0, 3, b)
        a = np.where(a == 0, -5, a)  # a is the divisor of scalar_tensor
        s = s or -2
    return {"a": a, "b": b, "out": draw(int_arrays(size, -9, 9)), "s": s, "n": draw(st.integers(0, size)),
            "members": draw(st.integers(1, 4))}


@pytest.mark.parametrize("kind", _KINDS)
@pytest.mark.parametrize("op", ["+", "-", "*"])
def test_int_arithmetic_matches_interpreter(kind: str, op: str) -> None:
    ps = ProgramSummary("iop", (out(_int_term(kind, op)),))

    @FAST
    @given(int_inputs(-(2**15), 2**15, False))
    def prop(x: dict[str, Any]) -> None:
        check_against_reference(IOP, ps, x, x.pop("members"))

    prop()


@pytest.mark.parametrize("kind", _KINDS)
@pytest.mark.parametrize("op", ["/", "%"])
def test_int_division_is_exact_c_division(kind: str, op: str) -> None:
    """C `/` truncates toward zero and `%` has the sign of the dividend, over all of int32
    (negative operands, INT_MIN, INT_MAX), computed by the emitted long division."""
    ps = ProgramSummary("iop", (out(_int_term(kind, op)),))

    @FAST
    @given(int_inputs(INT_MIN, INT_MAX, True))
    def prop(x: dict[str, Any]) -> None:
        left, right = {"tensor_tensor": (x["a"], x["b"]), "tensor_scalar": (x["a"], x["s"]), "scalar_tensor": (x["s"], x["a"])}[kind]
        assume(not np.any((np.asarray(left) == INT_MIN) & (np.asarray(right) == -1)))  # overflow: UB in C
        check_against_reference(IOP, ps, x, x.pop("members"))

    prop()


def test_int_division_edge_cases() -> None:
    values = [INT_MIN, INT_MIN + 1, -(2**30), -255, -7, -1, 0, 1, 7, 255, 2**30, INT_MAX]
    pairs = [(x, y) for x in values for y in values if y != 0 and not (x == INT_MIN and y == -1)]
    a = np.array([p[0] for p in pairs], dtype=np.int64)
    b = np.array([p[1] for p in pairs], dtype=np.int64)
    for op in ("/", "%"):
        ps = ProgramSummary("iop", (out(TensorTensor(op, Take(tv("a"), n), Take(tv("b"), n), INT)),))  # type: ignore[arg-type]
        inputs = {"a": a, "b": b, "out": np.zeros_like(a), "s": 0, "n": len(pairs)}
        got, _ = run_tpc(TPC_C.generate(IOP, ps), inputs)
        for (x, y), g in zip(pairs, got[0], strict=True):
            assert g == py_binop(op, x, y, INT), (x, op, y, g)  # the one semantics


def test_int_sum_partials_wrap_like_c() -> None:
    """Lane partial sums may overflow int32 where the C loop does not; the host combines them
    modulo 2**32, which is exact whenever the C sum does not overflow."""
    fn = sig("isum", "int* a, int n", INT)
    ps = ProgramSummary("isum", (ScalarOutput("return", ReduceSum(Take(tv("a"), n), INT)),))
    a = np.zeros(200, dtype=np.int64)
    a[[0, 64, 128]] = 2**30  # lane 0: 3 * 2**30 overflows
    a[[1, 65, 129]] = -(2**30)  # C's running sum stays within int32
    a[199] = 5
    got, dev = run_tpc(TPC_C.generate(fn, ps), {"a": a, "n": 200}, members=2)
    assert got == (5,) and dev.launches == ["tenspiler_isum_k0"]


# ---------------------------------------------------------------- uint8, casts, selects


def test_uint8_kernels_walk_256_element_blocks() -> None:
    """A vector access to an 8-bit tensor moves 256 elements (UNPACK / PACK switches), so a
    kernel with an unsigned char tensor walks 256-element blocks in four 64-lane quarters:
    8-bit in / int out, int in / 8-bit out, and an 8-bit reduction, over several blocks and
    index-space members (a wrong layout, or a packing store past the member's block, shows)."""
    fn = sig("mix", "uchar* a, int* b, int* iout, uchar* uout, int n")
    a8, b = Take(tv("a", UINT8), n), Take(tv("b"), n)
    ps = ProgramSummary(
        "mix",
        (
            out(TensorTensor("-", TensorScalar("*", a8, lit(3), False, INT), b, INT), "iout"),
            out(TensorCast(TensorTensor("+", b, a8, INT), UINT8), "uout"),
        ),
    )
    code = TPC_C.generate(fn, ps)
    ns = host_namespace(code)
    assert [k["block"] for k in ns["KERNELS"].values()] == [256, 256]
    assert code.text.count("d += 256") == 2 and "d += 64)" not in code.text
    assert "SW_UNPACK | SW_UNPCK_8_TO_32" in code.text and "SW_PACK | SW_PCK_32_TO_8" in code.text
    glue = dict(code.extra_files)["_glue.cpp"]
    assert "static const unsigned kK0Block = 256;" in glue and "static const unsigned kK1Block = 256;" in glue
    rfn = sig("rmix", "uchar* a, int* b, int n", INT)
    rps = ProgramSummary("rmix", (ScalarOutput("return", ReduceSum(TensorTensor("+", a8, b, INT), INT)),))
    mfn = sig("rmax", "uchar* a, int n", INT)
    mps = ProgramSummary("rmax", (ScalarOutput("return", ReduceMax(TensorScalar("-", a8, lit(7), False, INT), INT)),))
    rng = np.random.default_rng(8)
    for size, members in ((0, 1), (1, 2), (64, 1), (255, 2), (256, 3), (257, 2), (600, 3), (1100, 4)):
        x = {"a": rng.integers(0, 256, size), "b": rng.integers(-500, 500, size), "iout": rng.integers(-9, 9, size),
             "uout": rng.integers(0, 256, size), "n": size}
        check_against_reference(fn, ps, x, members, numpy_exact=True)
        check_against_reference(rfn, rps, x, members)
        if size:
            check_against_reference(mfn, mps, x, members)
    # a float kernel is not affected
    assert [k["block"] for k in host_namespace(TPC_C.generate(*_FLOAT_SUB))["KERNELS"].values()] == [64]


def test_emulated_8bit_access_is_a_256_element_byte_permutation() -> None:
    """tpc_emulation.h models LD_TNSR / ST_TNSR with SW_UNPACK | SW_UNPCK_8_TO_32 /
    SW_PACK | SW_PCK_32_TO_8 as tpc_llvm's TPCEliminateRedundantLinearity.cpp does: byte k of
    lane L <-> element d + 64 k + L of the 8-bit tensor (256 elements per access, pad 0 past
    the end, stores past the end dropped)."""
    source = """\
void main(tensor src, tensor lanes, tensor copy, tensor low)
{
    int5 c = {0, 0, 0, 0, 0};
    c[0] = get_index_space_offset()[0] * 256;
    int64 x = v_i32_ld_tnsr_b(c, src, SW_UNPACK | SW_UNPCK_8_TO_32);
    v_i32_st_tnsr(c, lanes, x);
    v_i32_st_tnsr(c, copy, x, SW_PACK | SW_PCK_32_TO_8);
    v_i32_st_tnsr(c, low, v_i32_and_b(x, 255), SW_PACK | SW_PCK_32_TO_8);
}
"""
    spec = {"name": "perm", "index": 0, "kind": "map", "scalars": [],
            "tensors": [("src", "uint8", "input"), ("lanes", "int32", "output"), ("copy", "uint8", "output"),
                        ("low", "uint8", "output")]}
    dev = EmulatedDevice(source, {"k0": spec}, members=1)
    src = np.random.default_rng(9).integers(0, 256, 200).astype(np.uint8)
    lanes = np.zeros(64, dtype=np.int32)
    copy = np.zeros(200, dtype=np.uint8)
    low = np.full(200, 7, dtype=np.uint8)
    dev.launch("perm", [src, lanes, copy, low], [], (1,))
    padded = np.zeros(256, dtype=np.uint32)
    padded[:200] = src
    want = padded[0:64] | padded[64:128] << 8 | padded[128:192] << 16 | padded[192:256] << 24
    assert np.array_equal(lanes.view(np.uint32), want)
    assert np.array_equal(copy, src)  # the packing store inverts the unpacking load
    assert np.array_equal(low[:64], src[:64]) and not low[64:].any()  # it writes all 256 elements


_FLOAT_SUB = (
    sig("fsub", "float* x, float* out, float s, int n"),
    ProgramSummary("fsub", (out(TensorScalar("-", Take(tv("x", FLOAT), n), sv("s", FLOAT), True, FLOAT)),)),
)


def test_scalar_minus_tensor_is_c_subtraction() -> None:
    """`s - x` is SUB(MOV(s), x): for x == s it is +0.0 as in C (not -(x - s) = -0.0)."""
    code = TPC_C.generate(*_FLOAT_SUB)
    assert "SW_NEG" not in code.text and "v_f32_sub_b(v_f32_mov_b(s), v0)" in code.text
    x = np.array([1.5, -2.0, 0.0, 3.25], dtype=np.float32)
    got, _ = run_tpc(code, {"x": x, "out": np.zeros(4, dtype=np.float32), "s": 1.5, "n": 4})
    want = np.float32(1.5) - x
    assert np.array_equal(got[0], want) and not np.signbit(got[0][0])


def test_uint8_promotion_and_wrap() -> None:
    fn = sig("u8", "uchar* a, uchar* b, uchar* out, int s, int n")
    a8, b8 = Take(tv("a", UINT8), n), Take(tv("b", UINT8), n)
    # (a * b - 300 + s) stored into unsigned char: computed in int, wrapped modulo 256
    term = TensorScalar("+", TensorScalar("-", TensorTensor("*", a8, b8, INT), lit(300), False, INT), sv("s"), False, INT)
    ps = ProgramSummary("u8", (out(term),))
    ps_cast = ProgramSummary("u8", (out(TensorCast(TensorScalar("-", a8, sv("s"), True, INT), UINT8)),))

    @FAST
    @given(st.integers(0, 130), st.integers(-1000, 1000), st.integers(1, 4), st.randoms(use_true_random=False))
    def prop(size: int, s: int, members: int, r: Any) -> None:
        rng = np.random.default_rng(r.getrandbits(32))
        x = {"a": rng.integers(0, 256, size), "b": rng.integers(0, 256, size), "out": rng.integers(0, 256, size), "s": s, "n": size}
        check_against_reference(fn, ps, x, members, numpy_exact=True)
        check_against_reference(fn, ps_cast, x, members, numpy_exact=True)

    prop()


def test_casts_between_int_and_float() -> None:
    fn = sig("cv", "float* f, int* i, int* iout, float* fout, int n")
    f, i = Take(tv("f", FLOAT), n), Take(tv("i"), n)
    ps = ProgramSummary(
        "cv",
        (
            out(TensorTensor("-", TensorCast(f, INT), i, INT), "iout"),  # float -> int truncates
            out(TensorScalar("*", TensorCast(i, FLOAT), lit(0.5, FLOAT), False, FLOAT), "fout"),
        ),
    )
    fu = sig("cu", "float* f, uchar* out, int n")
    ps_u8 = ProgramSummary("cu", (out(TensorCast(Take(tv("f", FLOAT), n), UINT8)),))
    rng = np.random.default_rng(3)
    for size in (0, 7, 64, 100):
        x = {
            "f": rng.uniform(-300, 300, size).astype(np.float32), "i": rng.integers(-99, 99, size),
            "iout": rng.integers(-9, 9, size), "fout": rng.uniform(-1, 1, size), "n": size,
        }
        check_against_reference(fn, ps, x, numpy_exact=True)
        check_against_reference(
            fu, ps_u8, {"f": rng.uniform(0, 255.9, size).astype(np.float32), "out": rng.integers(0, 256, size), "n": size},
            numpy_exact=True,
        )


SEL = sig("sel", "int* a, float* x, float* out, int s, float t, int n")


@pytest.mark.parametrize(
    "cond",
    [
        "a > s", "x <= t", "a == 0 and x > 0", "a < 0 or x != t", "not (x >= t)", "a >= x",
        "not (a != s or x < 0)",
    ],
)
def test_selects_and_compound_conditions(cond: str) -> None:
    a, x = Take(tv("a"), n), Take(tv("x", FLOAT), n)
    atoms = {"a": a, "x": x, "s": sv("s"), "t": sv("t", FLOAT), "0": lit(0)}

    def parse(text: str) -> Any:
        text = text.strip()
        if text.startswith("not ("):
            return NotCond(parse(text[5:-1]))
        for word in (" or ", " and "):
            if word in text:
                left, right = text.split(word, 1)
                return BoolOp(word.strip(), parse(left), parse(right))  # type: ignore[arg-type]
        left, op, right = text.split()
        return Cmp(op, atoms[left], atoms[right])  # type: ignore[arg-type]

    term = TensorSelect(parse(cond), TensorScalar("*", x, lit(2.0, FLOAT), False, FLOAT), lit(-1.5, FLOAT), FLOAT)
    ps = ProgramSummary("sel", (out(term),))
    rng = np.random.default_rng(5)
    for size in (0, 3, 64, 90):
        inputs = {
            "a": rng.integers(-3, 3, size), "x": rng.integers(-3, 3, size).astype(np.float32),
            "out": np.zeros(size), "s": int(rng.integers(-2, 2)), "t": 1.0, "n": size,
        }
        check_against_reference(SEL, ps, inputs, numpy_exact=True)


# ---------------------------------------------------------------- floats


FOP = sig("fop", "float* x, float* y, float* out, float s, int n")


@pytest.mark.parametrize("op", ["+", "-", "*"])
@pytest.mark.parametrize("kind", _KINDS)
def test_float_ops_are_binary32(op: str, kind: str) -> None:
    """float lanes compute in IEEE binary32 like C `float`: bit-identical to the NumPy
    backend's float32 code, and close to the (real-valued) reference interpreter."""
    x, y, s = Take(tv("x", FLOAT), n), Take(tv("y", FLOAT), n), sv("s", FLOAT)
    term = {
        "tensor_tensor": TensorTensor(op, x, y, FLOAT),  # type: ignore[arg-type]
        "tensor_scalar": TensorScalar(op, x, s, False, FLOAT),  # type: ignore[arg-type]
        "scalar_tensor": TensorScalar(op, x, s, True, FLOAT),  # type: ignore[arg-type]
    }[kind]
    ps = ProgramSummary("fop", (out(term),))
    code = TPC_C.generate(FOP, ps)
    ns: dict[str, Any] = {}
    exec(get_backend("numpy").generate(FOP, ps).text, ns)

    @FAST
    @given(st.integers(0, 140), st.floats(-1e3, 1e3, width=32), st.integers(1, 4), st.randoms(use_true_random=False))
    def prop(size: int, sval: float, members: int, r: Any) -> None:
        rng = np.random.default_rng(r.getrandbits(32))
        inputs = {
            "x": rng.uniform(-1e3, 1e3, size).astype(np.float32), "y": rng.uniform(-1e3, 1e3, size).astype(np.float32),
            "out": np.zeros(size, dtype=np.float32), "s": sval, "n": size,
        }
        got, _ = run_tpc(code, inputs, members)
        numpy_out = ns["fop"](*(inputs[p] for p in ("x", "y", "out", "s", "n")))
        assert np.array_equal(got[0], numpy_out)
        check_against_reference(FOP, ps, inputs, members)

    prop()


def test_float_division_runs_on_the_host_and_is_exact() -> None:
    """No exact vector division in TPC-C: `/` on floats is computed on the host (IEEE
    binary32 division, correctly rounded), and the device works on its result."""
    x, y = Take(tv("x", FLOAT), n), Take(tv("y", FLOAT), n)
    div = TensorTensor("/", x, y, FLOAT)
    ps_root = ProgramSummary("fop", (out(div),))
    ps_inner = ProgramSummary("fop", (out(TensorTensor("+", div, TensorScalar("*", x, sv("s", FLOAT), False, FLOAT), FLOAT)),))
    rng = np.random.default_rng(11)
    size = 150
    xs = rng.uniform(-10, 10, size).astype(np.float32)
    ys = rng.uniform(0.5, 3, size).astype(np.float32) * rng.choice([-1, 1], size).astype(np.float32)
    inputs = {"x": xs, "y": ys, "out": np.zeros(size, dtype=np.float32), "s": 0.0, "n": size}

    code = TPC_C.generate(FOP, ps_root)
    assert code.placement is not None
    placed = code.placement["outputs"][0]
    assert placed["where"] == "host" and "float division" in placed["notes"][0]
    assert code.placement["kernels"] == []
    got, dev = run_tpc(code, inputs)
    assert np.array_equal(got[0], xs / ys) and dev.launches == []  # exact: bit-identical

    code = TPC_C.generate(FOP, ps_inner)
    assert code.placement is not None
    assert code.placement["outputs"][0]["where"] == "mixed"
    assert code.placement["host_values"][0]["computes"] == "tensor_tensor(take(x, n), take(y, n), /)"
    assert "v_reciprocal" not in code.text and "tensor h0" in code.text
    got, dev = run_tpc(code, inputs)
    assert np.array_equal(got[0], xs / ys) and dev.launches == ["tenspiler_fop_k0"]


def test_math_functions() -> None:
    fn = sig("fm", "float* x, float* out, int n")
    x = Take(tv("x", FLOAT), n)
    for func in ("exp", "sqrt", "log", "tanh", "fabs"):
        arg = TensorMap("fabs", x, FLOAT) if func in ("sqrt", "log") else x
        term = TensorMap(func, TensorScalar("+", arg, lit(0.25, FLOAT), False, FLOAT), FLOAT)
        ps = ProgramSummary("fm", (out(term),))
        code = TPC_C.generate(fn, ps)
        assert (f"v_{func}_f32" if func != "fabs" else "v_f32_abs_b") in code.text
        rng = np.random.default_rng(2)
        check_against_reference(fn, ps, {"x": rng.uniform(-4, 4, 100).astype(np.float32), "out": np.zeros(100), "n": 100})


# ---------------------------------------------------------------- reductions


@pytest.mark.parametrize("dtype", [INT, FLOAT])
@pytest.mark.parametrize("kind", ["sum", "max"])
def test_reductions_partial_on_device_combined_on_host(dtype: DType, kind: str) -> None:
    fn = sig("red", f"{'int' if dtype == INT else 'float'}* a, int lo, int n", dtype)
    view = Slice(tv("a", dtype), sv("lo"), n)
    body = TensorScalar("*", view, lit(3, dtype) if dtype == INT else lit(3.0, dtype), False, dtype)
    red = ReduceSum(body, dtype) if kind == "sum" else ReduceMax(body, dtype)
    ps = ProgramSummary("red", (ScalarOutput("return", ScalarOp("-", red, sv("lo"), dtype)),))
    code = TPC_C.generate(fn, ps)
    assert code.placement is not None
    assert code.placement["outputs"][0]["where"] == "mixed"
    assert code.placement["kernels"][0]["kind"] == f"reduce_{kind}"

    @FAST
    @given(st.integers(0, 200), st.integers(0, 10), st.integers(1, 5), st.randoms(use_true_random=False))
    def prop(size: int, lo: int, members: int, r: Any) -> None:
        assume(lo <= size and (kind == "sum" or lo < size))
        rng = np.random.default_rng(r.getrandbits(32))
        a = rng.integers(-1000, 1000, size) if dtype == INT else rng.uniform(-50, 50, size).astype(np.float32)
        check_against_reference(fn, ps, {"a": a, "lo": lo, "n": size}, members)

    prop()


def test_reductions_are_launched_lazily_and_once() -> None:
    """`select(n > 1, max(a[1:n]) ..., a[0])`: the reduction kernel runs only when the host
    expression needs it, and once for its two uses."""
    fn = sig("smax", "float* a, int n", FLOAT)
    rmax = ReduceMax(Slice(tv("a", FLOAT), lit(1), n), FLOAT)
    first = ReduceSum(Slice(tv("a", FLOAT), lit(0), lit(1)), FLOAT)
    term = ScalarOp("+", rmax, rmax, FLOAT)
    from tenspiler.ir.terms import ScalarSelect

    ps = ProgramSummary("smax", (ScalarOutput("return", ScalarSelect(Cmp(">", n, lit(1)), term, first, FLOAT)),))
    code = TPC_C.generate(fn, ps)
    assert code.placement is not None and len(code.placement["kernels"]) == 2
    assert "#if TENSPILER_KERNEL == 1" in code.text
    a = np.array([4.0, -1.0, 2.5, 0.5], dtype=np.float32)
    got, dev = run_tpc(code, {"a": a, "n": 4})
    assert got == (5.0,) and dev.launches == ["tenspiler_smax_k0"]
    got, dev = run_tpc(code, {"a": a, "n": 1})
    assert got == (4.0,) and dev.launches == ["tenspiler_smax_k1"]


# ---------------------------------------------------------------- the device/host split


def test_matrix_vector_product_runs_on_the_host() -> None:
    fn = sig("gemv", "int M, int N, int* A, int* x, int* b, int* y")
    M, N = sv("M"), sv("N")
    mv = ReduceRows(TensorTensor("*", Matrix(tv("A"), M, N), Take(tv("x"), N), INT), INT)
    only = ProgramSummary("gemv", (ArrayOutput("y", lit(0), M, mv),))
    code = TPC_C.generate(fn, only)
    assert code.placement is not None
    p = code.placement["outputs"][0]
    assert p["where"] == "host" and p["device_kernels"] == [] and "reduce_rows" in p["host_ops"]
    assert "2-D term" in p["notes"][0]
    assert "No device kernel" in code.text and "no device kernel" in dict(code.extra_files)["_glue.cpp"]
    rng = np.random.default_rng(4)
    inputs = {"M": 5, "N": 70, "A": rng.integers(-9, 9, 350), "x": rng.integers(-9, 9, 70), "b": rng.integers(-9, 9, 5), "y": np.zeros(5, dtype=np.int64)}
    check_against_reference(fn, only, inputs)

    # 2 * (A x) + b: the product on the host (h0), the elementwise rest on the device
    bias = ProgramSummary(
        "gemv", (ArrayOutput("y", lit(0), M, TensorTensor("+", TensorScalar("*", mv, lit(2), True, INT), Take(tv("b"), M), INT)),)
    )
    code = TPC_C.generate(fn, bias)
    assert code.placement is not None
    p = code.placement["outputs"][0]
    assert p["where"] == "mixed" and p["device_kernels"] == ["k0"]
    assert code.placement["kernels"][0]["device_term"] == "tensor_tensor(scalar_tensor(2, h0, *), take(b, M), +)"
    assert code.placement["host_values"][0]["computes"].startswith("reduce_rows(")
    check_against_reference(fn, bias, inputs)


def test_split_interface_is_backend_neutral() -> None:
    """A toy device that only adds ints: the generic split hoists the rest to the host."""

    class AddOnly:
        def node_problem(self, t: Term) -> str | None:
            if isinstance(t, TensorVar | Take):
                return None
            if isinstance(t, TensorTensor) and t.op == "+":
                return None
            return "toy device: only +"

        def inline_scalar(self, s: Term) -> bool:
            return isinstance(s, ScalarVar | Lit)

        def reduce_problem(self, r: ReduceSum | ReduceMax) -> str | None:
            return None if isinstance(r, ReduceSum) else "toy device: no max"

        def output_problem(self, o: ArrayOutput) -> str | None:
            return None

    a, b = Take(tv("a"), n), Take(tv("b"), n)
    ps = ProgramSummary(
        "f",
        (
            ArrayOutput("c", lit(0), n, TensorTensor("+", TensorTensor("*", a, b, INT), b, INT)),
            ScalarOutput("return", ScalarOp("+", ReduceSum(a, INT), ReduceMax(b, INT), INT)),
        ),
    )
    s = split_summary(ps, AddOnly(), taken={"h0"})
    assert [k.kind for k in s.kernels] == ["map", "reduce_sum"]
    assert [h.name for h in s.host_values] == ["h0_"]  # avoids the parameter name h0
    assert s.kernels[0].host_values == ("h0_",) and isinstance(s.kernels[0], DeviceKernel)
    assert [p.where for p in s.placements] == ["mixed", "mixed"]
    report = s.to_json()
    assert report["outputs"][1]["host"] == "(k1 + reduce_max(take(b, n)))"
    assert any("toy device: no max" in note for note in report["outputs"][1]["notes"])
    json.dumps(report)


def test_double_and_wide_integers_run_on_the_host() -> None:
    fn = sig("dd", "double* x, double* out, int n")
    ps = ProgramSummary("dd", (out(TensorScalar("*", Take(tv("x", DOUBLE), n), lit(2.0, DOUBLE), False, DOUBLE)),))
    code = TPC_C.generate(fn, ps)
    assert code.placement is not None and "64-bit float" in code.placement["outputs"][0]["notes"][0]
    check_against_reference(fn, ps, {"x": np.arange(5.0), "out": np.zeros(5), "n": 5})
    wide = Function("w", sig("w", "int* a, int* out, int n").params, None, (), (), source="void w(long *a, ...)")
    ps = ProgramSummary("w", (out(TensorScalar("+", Take(tv("a"), n), lit(1), False, INT)),))
    code = TPC_C.generate(wide, ps)
    assert code.placement is not None and "32 bits" in code.placement["outputs"][0]["notes"][0]


def test_float_value_into_double_array_runs_on_the_host() -> None:
    fn = sig("fd", "float* x, double* out, int n")
    ps = ProgramSummary("fd", (out(TensorScalar("*", Take(tv("x", FLOAT), n), lit(2.0, FLOAT), False, FLOAT)),))
    code = TPC_C.generate(fn, ps)
    assert code.placement is not None and code.placement["outputs"][0]["where"] == "host"
    check_against_reference(fn, ps, {"x": np.arange(70, dtype=np.float32), "out": np.zeros(70), "n": 70})


def test_supports() -> None:
    a = Take(tv("a"), n)
    assert TPC_C.supports(TensorTensor("/", a, a, INT))
    assert not TPC_C.supports(TensorTensor("/", Take(tv("x", FLOAT), n), Take(tv("x", FLOAT), n), FLOAT))
    assert TPC_C.supports(ReduceSum(a, INT))
    assert not TPC_C.supports(ReduceRows(Matrix(tv("a"), n, n), INT))


# ---------------------------------------------------------------- intrinsics table

_EMITTED = re.compile(r"\b(v_[a-z0-9_]+|read_lane_id_[a-z0-9_]+|get_index_space_[a-z]+|as_u?int64|SW_[A-Z0-9_]+)\b")
_SEL = re.compile(r"v_(f32|i32|u32)_sel_(eq|neq|less|leq|grt|geq)_(f32|i32|u32)_b")


def test_intrinsics_table_covers_the_emitted_names() -> None:
    """Every intrinsic / builtin / switch the generator emits is listed in INTRINSICS.md
    (with the Habana source it was checked against)."""
    table = (ROOT / "tenspiler/codegen/tpc_c/INTRINSICS.md").read_text()
    f, x, a = Take(tv("f", FLOAT), n), Take(tv("x", FLOAT), n), Take(tv("a"), n)
    mfn = sig("many", "int* a, float* f, float* x, int* iout, float* fout, uchar* uout, int s, int n")
    ps = ProgramSummary(
        "many",
        (
            out(TensorTensor("%", TensorTensor("/", a, TensorCast(f, INT), INT), lit(7), INT), "iout"),
            out(TensorSelect(BoolOp("and", Cmp(">", a, sv("s")), Cmp("<=", x, lit(0.5, FLOAT))),
                             TensorMap("exp", TensorMap("fabs", x, FLOAT), FLOAT),
                             TensorMap("tanh", TensorCast(a, FLOAT), FLOAT), FLOAT), "fout"),
            out(TensorCast(TensorMap("log", TensorMap("sqrt", TensorScalar("-", f, lit(1.0, FLOAT), True, FLOAT), FLOAT), FLOAT), UINT8), "uout"),
        ),
    )
    codes = [TPC_C.generate(mfn, ps), TPC_C.generate(*BLEND), TPC_C.generate(*_FLOAT_SUB)]
    for dtype in (INT, FLOAT):
        rfn = sig("red", f"{'int' if dtype == INT else 'float'}* a, uchar* u, int n", dtype)
        body = Take(tv("a", dtype), n)
        for red in (ReduceSum(body, dtype), ReduceMax(body, dtype)):
            codes.append(TPC_C.generate(rfn, ProgramSummary("red", (ScalarOutput("return", red),))))
        codes.append(TPC_C.generate(rfn, ProgramSummary("red", (ScalarOutput("return", ReduceSum(Take(tv("u", UINT8), n), INT)),))))
    names = {m for c in codes for m in _EMITTED.findall(c.text)}
    assert {"v_i32_ld_tnsr_b", "v_u32_sel_geq_u32_b", "SW_UNPACK", "v_exp_f32", "v_f32_max_b"} <= names
    missing = sorted(
        nm for nm in names if f"`{nm}" not in table and nm not in table and not (_SEL.fullmatch(nm) and "v_R_sel_CMP_C_b" in table)
    )
    assert not missing, f"emitted but not in INTRINSICS.md: {missing}"


# ---------------------------------------------------------------- emulation


def test_index_space_split() -> None:
    assert split_index_space(10, 3) == [(0, 4), (4, 3), (7, 3)]
    assert split_index_space(2, 5) == [(0, 1), (1, 1)]
    assert split_index_space(0, 3) == []


def test_emulation_rejects_bad_kernels_and_arguments() -> None:
    spec = {"name": "bad", "index": 0, "kind": "map", "tensors": [("a", "float32", "input")], "scalars": []}
    with pytest.raises(CodegenError, match="does not compile"):
        compile_kernel("void main(tensor a) { float64 v = v_f32_frobnicate_b(a); }\n", spec)
    code = TPC_C.generate(*BLEND)
    dev = EmulatedDevice(code.text, host_namespace(code)["KERNELS"])
    with pytest.raises(TypeError, match="uint8"):
        dev.launch("tenspiler_normal_blend_8_k0", [np.zeros(3, np.int32)] * 3, [1], (1,))


# ---------------------------------------------------------------- whole kernels vs the original C

KERNEL_FILES = [
    ("examples/saxpy.c", ["device"]),
    ("tests/kernels/burn_u8.c", ["device"]),
    ("tests/kernels/overlay_u8.c", ["device"]),
    ("tests/kernels/relu.c", ["device"]),
    ("tests/kernels/softmax_exp.c", ["device"]),
    ("tests/kernels/rms_scale.c", ["mixed"]),
    ("tests/kernels/mean_int.c", ["mixed"]),
    ("tests/kernels/count_and_sum.c", ["host", "device"]),
    ("tests/kernels/gemv_acc.c", ["host"]),
    ("tests/kernels/img_avg.cc", ["device"]),
    ("benchmarks/kernels/blend/normal_blend.cc", ["device"]),
    ("benchmarks/kernels/blend/screen_blend.cc", ["device"]),
    ("benchmarks/kernels/llama/softmax_part2.cc", ["device"]),
    ("benchmarks/kernels/llama/rmsnorm_part1.cc", ["mixed"]),
    ("benchmarks/kernels/llama/softmax_part4.cc", ["host"]),
]


@pytest.mark.parametrize("path,where", KERNEL_FILES, ids=[Path(p).name for p, _ in KERNEL_FILES])
def test_lifted_kernel_checks_against_the_original(path: str, where: Sequence[str], tmp_path: Path) -> None:
    res = lift_file(ROOT / path, ["tpc_c"], check=True)
    assert res.status == "verified", res.message
    assert res.check is not None
    c = res.check["tpc_c"]
    assert c["ok"] and c["passed"] == c["inputs"] >= 100, c["first_failure"]  # random + adversarial
    assert "tpc_emulation.h" in c["executed"]
    assert [o["where"] for o in res.placement["tpc_c"]["outputs"]] == list(where)


def test_cli_writes_kernel_glue_and_host(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tenspiler.cli", str(ROOT / "examples/saxpy.c"), "--to", "tpc_c", "-o", str(tmp_path), "--json"],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["saxpy.smt2", "saxpy.tpc.c", "saxpy_glue.cpp", "saxpy_host.py"]
    assert data["outputs"]["tpc_c"].endswith("saxpy.tpc.c")
    assert set(data["code"]) == {"tpc_c", "tpc_c:saxpy_glue.cpp", "tpc_c:saxpy_host.py"}
    assert data["placement"]["tpc_c"]["outputs"][0]["where"] == "device"
    assert (tmp_path / "saxpy.tpc.c").read_text() == data["code"]["tpc_c"]
