"""The backend registry and the NumPy backend: golden files, op properties, contract.

``KERNELS`` (C text, hand-built loop-IR signature, hand-written summary, input generator) is
also used by ``test_check.py`` for the differential check against the compiled C.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tenspiler.codegen import (
    GeneratedCode,
    backend_names,
    get_backend,
    missing_ops,
    op_key,
    register_backend,
    returned_outputs,
)
from tenspiler.codegen import numpy_backend as nb
from tenspiler.errors import CodegenError
from tenspiler.ir.semantics import py_binop
from tenspiler.ir.terms import (
    ArrayOutput,
    Lit,
    ProgramSummary,
    ReduceMax,
    ReduceSum,
    ScalarOp,
    ScalarOutput,
    ScalarVar,
    Size,
    Slice,
    Tail,
    Take,
    Tensor,
    TensorScalar,
    TensorTensor,
    TensorVar,
)
from tenspiler.loops.ir import (
    BIN_OPS,
    BITWISE_OPS,
    FLOOR_OPS,
    POW_OPS,
    DType,
    Function,
    Param,
    PointerType,
    ScalarType,
)

INT, UINT8, FLOAT, DOUBLE = DType.INT, DType.UINT8, DType.FLOAT, DType.DOUBLE

# ---------------------------------------------------------------- kernels


def make_fn(name: str, params: str, ret: DType | None = None, source: str = "") -> Function:
    """A loop-IR signature from ``"int* a, int n"`` (the body is not needed here)."""
    dtypes = {"int": INT, "uchar": UINT8, "float": FLOAT, "double": DOUBLE}
    ps = []
    for item in params.split(","):
        ty, pname = item.split()
        if ty.endswith("*"):
            ps.append(Param(pname, PointerType(dtypes[ty[:-1]])))
        else:
            ps.append(Param(pname, ScalarType(dtypes[ty])))
    return Function(name, tuple(ps), ret, (), (), source=source)


def tv(name: str, dtype: DType = INT) -> TensorVar:
    return TensorVar(name, dtype)


def sv(name: str, dtype: DType = INT) -> ScalarVar:
    return ScalarVar(name, dtype)


def lit(v: int | float, dtype: DType = INT) -> Lit:
    return Lit(v, dtype)


n = sv("n")
ZERO = lit(0)


def ints(rng: np.random.Generator, size: int, lo: int = -20, hi: int = 20) -> np.ndarray:
    return rng.integers(lo, hi + 1, size=size)


def nonzero(rng: np.random.Generator, size: int) -> np.ndarray:
    v = ints(rng, size)
    return np.where(v == 0, 7, v)


def floats(rng: np.random.Generator, size: int) -> np.ndarray:
    return rng.uniform(-4.0, 4.0, size=size)


@dataclass(frozen=True)
class Kernel:
    fn: Function
    ps: ProgramSummary
    inputs: Callable[[np.random.Generator], dict[str, object]]


def _kernel(
    source: str,
    params: str,
    ret: DType | None,
    outputs: tuple[Any, ...],
    inputs: Callable[[np.random.Generator], dict[str, object]],
) -> Kernel:
    name = source.split("(")[0].split()[-1]
    return Kernel(make_fn(name, params, ret, source), ProgramSummary(name, outputs), inputs)


def _n(rng: np.random.Generator, cap: int = 9) -> int:
    return int(rng.integers(0, cap + 1))


KERNELS: dict[str, Kernel] = {
    "vadd": _kernel(
        "void vadd(int *a, int *b, int *c, int n) {\n"
        "  for (int i = 0; i < n; i++) c[i] = a[i] + b[i];\n}\n",
        "int* a, int* b, int* c, int n",
        None,
        (ArrayOutput("c", ZERO, n, TensorTensor("+", Take(tv("a"), n), Take(tv("b"), n), INT)),),
        lambda r: {"a": ints(r, 12), "b": ints(r, 12), "c": ints(r, 12), "n": _n(r, 12)},
    ),
    "dot": _kernel(
        "int dot(int *a, int *b, int n) {\n"
        "  int s = 0;\n  for (int i = 0; i < n; i++) s += a[i] * b[i];\n  return s;\n}\n",
        "int* a, int* b, int n",
        INT,
        (
            ScalarOutput(
                "return",
                ReduceSum(TensorTensor("*", Take(tv("a"), n), Take(tv("b"), n), INT), INT),
            ),
        ),
        lambda r: {"a": ints(r, 10), "b": ints(r, 10), "n": _n(r, 10)},
    ),
    "scale_inplace": _kernel(
        "void scale_inplace(int *a, int k, int n) {\n"
        "  for (int i = 0; i < n; i++) a[i] = a[i] * k;\n}\n",
        "int* a, int k, int n",
        None,
        (ArrayOutput("a", ZERO, n, TensorScalar("*", Take(tv("a"), n), sv("k"), False, INT)),),
        lambda r: {"a": ints(r, 10), "k": int(ints(r, 1)[0]), "n": _n(r, 10)},
    ),
    "divmod_vec": _kernel(
        "void divmod_vec(int *a, int *b, int *q, int *m, int n) {\n"
        "  for (int i = 0; i < n; i++) { q[i] = a[i] / b[i]; m[i] = a[i] % b[i]; }\n}\n",
        "int* a, int* b, int* q, int* m, int n",
        None,
        (
            ArrayOutput("q", ZERO, n, TensorTensor("/", Take(tv("a"), n), Take(tv("b"), n), INT)),
            ArrayOutput("m", ZERO, n, TensorTensor("%", Take(tv("a"), n), Take(tv("b"), n), INT)),
        ),
        lambda r: {
            "a": ints(r, 10),
            "b": nonzero(r, 10),
            "q": ints(r, 10),
            "m": ints(r, 10),
            "n": _n(r, 10),
        },
    ),
    "mean_int": _kernel(
        "int mean_int(int *a, int n) {\n"
        "  int s = 0;\n  for (int i = 0; i < n; i++) s += a[i];\n  return s / n;\n}\n",
        "int* a, int n",
        INT,
        (ScalarOutput("return", ScalarOp("/", ReduceSum(Take(tv("a"), n), INT), n, INT)),),
        lambda r: {"a": ints(r, 10), "n": _n(r, 9) + 1},
    ),
    "suffix_sum": _kernel(
        "int suffix_sum(int *a, int lo, int n) {\n"
        "  int s = 0;\n  for (int i = lo; i < n; i++) s += a[i];\n  return s;\n}\n",
        "int* a, int lo, int n",
        INT,
        (
            ScalarOutput(
                "return",
                ReduceSum(Take(Tail(tv("a"), sv("lo")), ScalarOp("-", n, sv("lo"), INT)), INT),
            ),
        ),
        lambda r: (lambda hi: {"a": ints(r, 12), "lo": int(r.integers(0, hi + 1)), "n": hi})(
            _n(r, 12)
        ),
    ),
    "diff": _kernel(
        "void diff(int *a, int *out, int n) {\n"
        "  for (int i = 1; i < n; i++) out[i] = a[i] - a[i - 1];\n}\n",
        "int* a, int* out, int n",
        None,
        (
            ArrayOutput(
                "out",
                lit(1),
                n,
                TensorTensor(
                    "-",
                    Slice(tv("a"), lit(1), n),
                    Take(tv("a"), ScalarOp("-", n, lit(1), INT)),
                    INT,
                ),
            ),
        ),
        lambda r: {"a": ints(r, 10), "out": ints(r, 10), "n": _n(r, 9) + 1},
    ),
    "kmod": _kernel(
        "void kmod(int *a, int *out, int k, int n) {\n"
        "  for (int i = 0; i < n; i++) out[i] = k % a[i];\n}\n",
        "int* a, int* out, int k, int n",
        None,
        (ArrayOutput("out", ZERO, n, TensorScalar("%", Take(tv("a"), n), sv("k"), True, INT)),),
        lambda r: {"a": nonzero(r, 10), "out": ints(r, 10), "k": int(ints(r, 1)[0]), "n": _n(r)},
    ),
    "vmax": _kernel(
        "int vmax(int *a, int n) {\n"
        "  int m = a[0];\n"
        "  for (int i = 1; i < n; i++) m = a[i] > m ? a[i] : m;\n  return m;\n}\n",
        "int* a, int n",
        INT,
        (ScalarOutput("return", ReduceMax(Take(tv("a"), n), INT)),),
        lambda r: {"a": ints(r, 10), "n": _n(r, 9) + 1},
    ),
    "vrecip": _kernel(
        "void vrecip(float *a, float *out, int n) {\n"
        "  for (int i = 0; i < n; i++) out[i] = 1.0f / a[i];\n}\n",
        "float* a, float* out, int n",
        None,
        (
            ArrayOutput(
                "out",
                ZERO,
                n,
                TensorScalar("/", Take(tv("a", FLOAT), n), lit(1.0, FLOAT), True, FLOAT),
            ),
        ),
        lambda r: {
            "a": np.where(np.abs(x := floats(r, 10)) < 0.1, 0.5, x),
            "out": floats(r, 10),
            "n": _n(r, 10),
        },
    ),
    "saxpy": _kernel(
        "void saxpy(float *x, float *y, float *out, float alpha, int n) {\n"
        "  for (int i = 0; i < n; i++) out[i] = alpha * x[i] + y[i];\n}\n",
        "float* x, float* y, float* out, float alpha, int n",
        None,
        (
            ArrayOutput(
                "out",
                ZERO,
                n,
                TensorTensor(
                    "+",
                    TensorScalar("*", Take(tv("x", FLOAT), n), sv("alpha", FLOAT), True, FLOAT),
                    Take(tv("y", FLOAT), n),
                    FLOAT,
                ),
            ),
        ),
        lambda r: {
            "x": floats(r, 10),
            "y": floats(r, 10),
            "out": floats(r, 10),
            "alpha": float(floats(r, 1)[0]),
            "n": _n(r, 10),
        },
    ),
    "fdot": _kernel(
        "double fdot(float *a, float *b, int n) {\n"
        "  double s = 0.0;\n  for (int i = 0; i < n; i++) s += a[i] * b[i];\n  return s;\n}\n",
        "float* a, float* b, int n",
        DOUBLE,
        (
            ScalarOutput(
                "return",
                ReduceSum(
                    TensorTensor("*", Take(tv("a", FLOAT), n), Take(tv("b", FLOAT), n), FLOAT),
                    DOUBLE,
                ),
            ),
        ),
        lambda r: {"a": floats(r, 10), "b": floats(r, 10), "n": _n(r, 10)},
    ),
    "dscale": _kernel(
        "void dscale(double *a, double *out, int n) {\n"
        "  for (int i = 0; i < n; i++) out[i] = a[i] * 0.5 - n;\n}\n",
        "double* a, double* out, int n",
        None,
        (
            ArrayOutput(
                "out",
                ZERO,
                n,
                TensorScalar(
                    "-",
                    TensorScalar("*", Take(tv("a", DOUBLE), n), lit(0.5, DOUBLE), False, DOUBLE),
                    n,
                    False,
                    DOUBLE,
                ),
            ),
        ),
        lambda r: {"a": floats(r, 10), "out": floats(r, 10), "n": _n(r, 10)},
    ),
    "add_u8": _kernel(
        "void add_u8(unsigned char *a, unsigned char *b, unsigned char *out, int n) {\n"
        "  for (int i = 0; i < n; i++) out[i] = a[i] + b[i];\n}\n",
        "uchar* a, uchar* b, uchar* out, int n",
        None,
        (
            ArrayOutput(
                "out",
                ZERO,
                n,
                TensorTensor("+", Take(tv("a", UINT8), n), Take(tv("b", UINT8), n), INT),
            ),
        ),
        lambda r: {
            "a": ints(r, 10, 0, 255),
            "b": ints(r, 10, 0, 255),
            "out": ints(r, 10, 0, 255),
            "n": _n(r, 10),
        },
    ),
}


def generate(k: Kernel) -> GeneratedCode:
    return get_backend("numpy").generate(k.fn, k.ps)


def load(code: GeneratedCode) -> Callable[..., Any]:
    namespace: dict[str, Any] = {}
    exec(code.text, namespace)
    return namespace[code.entry]


# ---------------------------------------------------------------- registry


def test_numpy_is_registered() -> None:
    assert "numpy" in backend_names()
    assert get_backend("numpy").name == "numpy"
    assert backend_names() == sorted(backend_names())


def test_unknown_backend_lists_known_names() -> None:
    with pytest.raises(CodegenError) as e:
        get_backend("fortran")
    msg = str(e.value)
    assert "'fortran'" in msg
    assert ", ".join(backend_names()) in msg


def test_duplicate_registration_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from tenspiler.codegen import registry

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    with pytest.raises(ValueError, match="numpy"):
        register_backend(get_backend("numpy"))

    class Other(nb.NumpyBackend):
        name = "zz_test_other"

    register_backend(Other())
    assert backend_names()[-1] == "zz_test_other"
    with pytest.raises(ValueError, match="zz_test_other"):
        register_backend(Other())


# ---------------------------------------------------------------- golden files


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_golden(name: str, golden: Callable[[str, str], None]) -> None:
    code = generate(KERNELS[name])
    assert code.backend == "numpy" and code.language == "python"
    assert code.filename_suffix == ".py" and code.entry == name
    assert code.params == tuple(p.name for p in KERNELS[name].fn.params)
    golden(f"numpy/{name}.py", code.text)


def test_generation_is_deterministic() -> None:
    for k in KERNELS.values():
        assert generate(k).text == generate(k).text


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_generated_module_imports_only_numpy(name: str) -> None:
    tree = ast.parse(generate(KERNELS[name]).text)
    imports = [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)]
    assert [ast.unparse(node) for node in imports] == ["import numpy as np"]
    fns = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]
    assert fns[-1] == name and all(f in nb.HELPERS for f in fns[:-1])


# ---------------------------------------------------------------- contract


def test_vadd_values_and_dtype() -> None:
    f = load(generate(KERNELS["vadd"]))
    a, b, c = np.array([1, -2, 3, 4]), np.array([10, 20, -30, 40]), np.array([7, 7, 7, 7])
    out = f(a, b, c, 3)
    assert out.dtype == np.int64
    assert out.tolist() == [11, 18, -27, 7]
    assert c.tolist() == [7, 7, 7, 7]  # input untouched
    assert f([1], [2], [0], 0).tolist() == [0]


def test_dot_returns_python_int_and_zero_for_empty() -> None:
    f = load(generate(KERNELS["dot"]))
    r = f(np.array([1, 2, 3]), np.array([4, -5, 6]), 3)
    assert r == 12 and type(r) is int
    assert f(np.array([], dtype=np.int32), np.array([], dtype=np.int32), 0) == 0


def test_in_place_output_does_not_mutate_input() -> None:
    f = load(generate(KERNELS["scale_inplace"]))
    a = np.array([1, -2, 3, 4], dtype=np.int64)  # already the computation dtype
    out = f(a, -3, 2)
    assert out.tolist() == [-3, 6, 3, 4]
    assert a.tolist() == [1, -2, 3, 4]
    assert out is not a


def test_division_truncates_toward_zero() -> None:
    f = load(generate(KERNELS["divmod_vec"]))
    a = np.array([7, -7, 7, -7, 0, -1])
    b = np.array([2, 2, -2, -2, 5, 3])
    q, m = f(a, b, np.zeros(6), np.zeros(6), 6)
    assert q.tolist() == [3, -3, -3, 3, 0, 0]
    assert m.tolist() == [1, -1, 1, -1, 0, -1]
    assert (q * b + m == a).all()
    g = load(generate(KERNELS["mean_int"]))
    assert g(np.array([-3, -4, 0]), 2) == -3  # -7 / 2 truncates to -3 (floor would be -4)


def test_tail_is_not_take() -> None:
    f = load(generate(KERNELS["suffix_sum"]))
    a = np.array([1, 10, 100, 1000])
    assert f(a, 1, 3) == 110
    assert f(a, 3, 3) == 0


def test_scalar_left_operand_order() -> None:
    f = load(generate(KERNELS["kmod"]))
    out = f(np.array([3, -3, 4]), np.zeros(3, dtype=np.int64), -7, 3)
    assert out.tolist() == [-1, -1, -3]  # k % a[i], not a[i] % k


def test_uint8_wraps_on_store() -> None:
    f = load(generate(KERNELS["add_u8"]))
    out = f(np.array([200, 1], dtype=np.uint8), np.array([100, 2], dtype=np.uint8), [9, 9], 2)
    assert out.dtype == np.uint8
    assert out.tolist() == [44, 3]


def test_float_dtypes() -> None:
    vrecip = load(generate(KERNELS["vrecip"]))
    out = vrecip(np.array([2.0, 4.0, 8.0]), np.zeros(3), 2)
    assert out.dtype == np.float32 and out.tolist() == [0.5, 0.25, 0.0]
    fdot = load(generate(KERNELS["fdot"]))
    r = fdot(np.array([0.1, 0.2], dtype=np.float32), np.array([3.0, 3.0]), 2)
    assert type(r) is float
    expected = float(np.float32(0.1) * np.float32(3.0)) + float(np.float32(0.2) * np.float32(3.0))
    assert r == pytest.approx(expected, rel=1e-12)
    dscale = load(generate(KERNELS["dscale"]))
    out = dscale(np.array([1.0, 3.0]), np.array([9.0, 9.0]), 1)
    assert out.dtype == np.float64 and out.tolist() == [-0.5, 9.0]


def test_several_outputs_are_a_tuple_in_summary_order() -> None:
    k = KERNELS["divmod_vec"]
    swapped = ProgramSummary(k.ps.function, k.ps.outputs[::-1])
    f = load(nb.NUMPY.generate(k.fn, swapped))
    m, q = f([7], [2], [0], [0], 1)
    assert (q.tolist(), m.tolist()) == ([3], [1])


def test_local_scalar_outputs_are_not_returned() -> None:
    k = KERNELS["vadd"]
    ps = ProgramSummary("vadd", (*k.ps.outputs, ScalarOutput("i", n)))
    assert returned_outputs(ps) == k.ps.outputs
    out = load(nb.NUMPY.generate(k.fn, ps))([1], [2], [0], 1)
    assert out.tolist() == [3]


def test_keyword_parameter_names_are_renamed() -> None:
    fn = make_fn("copy", "int* in, int* np, int len")
    body = Take(tv("in"), sv("len"))
    ps = ProgramSummary("copy", (ArrayOutput("np", ZERO, sv("len"), body),))
    code = nb.NUMPY.generate(fn, ps)
    assert "def copy(in_, np_, len):" in code.text
    assert code.params == ("in", "np", "len")
    assert load(code)([5, 6], [0, 0, 0], 2).tolist() == [5, 6, 0]


def test_float_literals_are_module_constants_named_apart_from_parameters() -> None:
    # `float` literals are hoisted to module constants (a NumPy scalar costs ~0.2 us a call to
    # build); a parameter already holding the constant's first-choice name keeps it
    fn = make_fn("shift", "float* a, float* out, float _F32_0, int n")
    body = TensorScalar("*", Take(tv("a", FLOAT), sv("n")), lit(0.5, FLOAT), False, FLOAT)
    body = TensorScalar("+", body, sv("_F32_0", FLOAT), False, FLOAT)
    body = TensorScalar("+", body, lit(0.5, FLOAT), False, FLOAT)
    code = nb.NUMPY.generate(fn, ProgramSummary("shift", (ArrayOutput("out", ZERO, sv("n"), body),)))
    assert "_F32_0_ = np.float32(0.5)" in code.text and code.text.count("np.float32(0.5)") == 1
    out = load(code)(np.array([1.0, 3.0], dtype=np.float32), np.zeros(3, dtype=np.float32), 10.0, 2)
    assert out.dtype == np.float32 and out.tolist() == [11.0, 12.0, 0.0]


# ---------------------------------------------------------------- errors and partial support


def test_missing_rule_names_the_op() -> None:
    class NoFmod(nb.NumpyBackend):
        name = "nofmod"
        rules: ClassVar[Mapping[str, nb.Rule]] = {
            k: v for k, v in nb.RULES.items() if k != "tensor_tensor(%)"
        }

    k = KERNELS["divmod_vec"]
    backend = NoFmod()
    q, m = (o.value for o in k.ps.outputs)  # type: ignore[union-attr]
    assert backend.supports(q) and not backend.supports(m)
    assert missing_ops(m, backend.rules) == ["tensor_tensor(%)"]
    with pytest.raises(CodegenError, match=r"'nofmod' has no rule for tensor_tensor\(%\)"):
        backend.generate(k.fn, k.ps)


def test_every_op_key_has_a_numpy_rule() -> None:
    keys = {"scalar_var", "tensor_var", "lit", "size", "take", "tail", "slice"}
    keys |= {"reduce_sum", "reduce_max", "scalar_cast", "tensor_cast", "matrix", "reduce_rows", "scalar_select", "tensor_select"}
    keys |= {"matrix_strided", "transpose", "strided", "full", "iota", "flatten", "matmul", "reduce_prod", "argmax",
             "stack"}
    keys |= {f"{node}({fn})" for node in ("scalar_apply", "map") for fn in ("exp", "sqrt", "log", "tanh", "fabs", "expm1", "cos", "sin", "round", "floor")}
    keys |= {
        f"{node}({op})"
        for node in ("scalar_op", "tensor_tensor", "tensor_scalar", "scalar_tensor")
        for op in BIN_OPS + FLOOR_OPS + BITWISE_OPS + POW_OPS
    }
    assert set(nb.RULES) == keys
    assert all(callable(r) and r.__name__ != "<lambda>" for r in nb.RULES.values())
    assert op_key(TensorScalar("-", tv("a"), n, True, INT)) == "scalar_tensor(-)"


@pytest.mark.parametrize(
    ("ps", "message"),
    [
        (
            ProgramSummary("vadd", (ArrayOutput("z", ZERO, n, Take(tv("a"), n)),)),
            "'z' is not a pointer parameter",
        ),
        (
            ProgramSummary("vadd", (ArrayOutput("c", ZERO, n, Take(tv("q"), n)),)),
            "'q' is not a parameter",
        ),
        (
            ProgramSummary("vadd", (ArrayOutput("c", ZERO, n, Take(tv("n"), n)),)),
            "used as a tensor",
        ),
        (ProgramSummary("vadd", (ScalarOutput("return", n),)), "returns void"),
        (ProgramSummary("other", ()), "summary of 'other'"),
        (
            ProgramSummary(
                "vadd",
                (ArrayOutput("c", ZERO, n, Take(tv("a"), n)), ArrayOutput("c", n, n, tv("a"))),
            ),
            "two outputs for array 'c'",
        ),
    ],
)
def test_summary_must_fit_the_function(ps: ProgramSummary, message: str) -> None:
    with pytest.raises(CodegenError, match=message):
        nb.NUMPY.generate(KERNELS["vadd"].fn, ps)


# ---------------------------------------------------------------- property tests per op

OP_FN = make_fn("op", "int* a, int* b, int* out, int s, int t, int n, int lo, int hi", INT)


@st.composite
def op_inputs(draw: st.DrawFn) -> dict[str, Any]:
    size = draw(st.integers(0, 8))
    elems = st.integers(-40, 40) | st.sampled_from([0, -1, 1])
    arr = st.lists(elems, min_size=size, max_size=size)
    lo = draw(st.integers(0, size))
    return {
        "a": draw(arr),
        "b": draw(arr),
        "out": draw(arr),
        "s": draw(elems),
        "t": draw(elems),
        "n": draw(st.integers(0, size)),
        "lo": lo,
        "hi": draw(st.integers(lo, size)),
    }


def _elementwise(kind: str, op: str) -> tuple[ProgramSummary, Callable[[Mapping[str, Any]], Any]]:
    a, b, s = Take(tv("a"), n), Take(tv("b"), n), sv("s")
    terms: dict[str, Tensor] = {
        "tensor_tensor": TensorTensor(op, a, b, INT),  # type: ignore[arg-type]
        "tensor_scalar": TensorScalar(op, a, s, False, INT),  # type: ignore[arg-type]
        "scalar_tensor": TensorScalar(op, a, s, True, INT),  # type: ignore[arg-type]
    }
    term = terms[kind]

    def reference(x: Mapping[str, Any]) -> list[int]:
        out = list(x["out"])
        for i in range(x["n"]):
            left, right = {
                "tensor_tensor": (x["a"][i], x["b"][i]),
                "tensor_scalar": (x["a"][i], x["s"]),
                "scalar_tensor": (x["s"], x["a"][i]),
            }[kind]
            assume(op not in ("/", "%", "//", "mod") or right != 0)
            out[i] = py_binop(op, left, right, INT)  # type: ignore[arg-type]
        return out

    return ProgramSummary("op", (ArrayOutput("out", ZERO, n, term),)), reference


def _scalar_op(op: str) -> tuple[ProgramSummary, Callable[[Mapping[str, Any]], Any]]:
    def reference(x: Mapping[str, Any]) -> int:
        assume(op not in ("/", "%", "//", "mod") or x["t"] != 0)
        return py_binop(op, x["s"], x["t"], INT)  # type: ignore[arg-type]

    term = ScalarOp(op, sv("s"), sv("t"), INT)  # type: ignore[arg-type]
    return ProgramSummary("op", (ScalarOutput("return", term),)), reference


def _with_out(x: Mapping[str, Any], lo: int, values: list[int]) -> list[int]:
    out = list(x["out"])
    out[lo : lo + len(values)] = values
    return out


def _reduce_max_ref(x: Mapping[str, Any]) -> int:
    assume(x["n"] > 0)
    return max(x["a"][: x["n"]])


size_a = Size(tv("a"))
STRUCTURAL: dict[str, tuple[ProgramSummary, Callable[[Mapping[str, Any]], Any]]] = {
    "take": (
        ProgramSummary("op", (ArrayOutput("out", ZERO, n, Take(tv("a"), n)),)),
        lambda x: _with_out(x, 0, x["a"][: x["n"]]),
    ),
    "tail": (
        ProgramSummary(
            "op",
            (
                ArrayOutput(
                    "out", ZERO, ScalarOp("-", size_a, sv("lo"), INT), Tail(tv("a"), sv("lo"))
                ),
            ),
        ),
        lambda x: _with_out(x, 0, x["a"][x["lo"] :]),
    ),
    "slice": (
        ProgramSummary(
            "op", (ArrayOutput("out", sv("lo"), sv("hi"), Slice(tv("a"), sv("lo"), sv("hi"))),)
        ),
        lambda x: _with_out(x, x["lo"], x["a"][x["lo"] : x["hi"]]),
    ),
    "size": (ProgramSummary("op", (ScalarOutput("return", size_a),)), lambda x: len(x["a"])),
    "reduce_sum": (
        ProgramSummary("op", (ScalarOutput("return", ReduceSum(Take(tv("a"), n), INT)),)),
        lambda x: sum(x["a"][: x["n"]]),
    ),
    "reduce_max": (
        ProgramSummary("op", (ScalarOutput("return", ReduceMax(Take(tv("a"), n), INT)),)),
        _reduce_max_ref,
    ),
    "lit": (ProgramSummary("op", (ScalarOutput("return", lit(-17)),)), lambda x: -17),
}

PROPERTY_CASES = {
    **{
        f"{kind}({op})": _elementwise(kind, op)
        for kind in ("tensor_tensor", "tensor_scalar", "scalar_tensor")
        for op in BIN_OPS + FLOOR_OPS + BITWISE_OPS
    },
    **{f"scalar_op({op})": _scalar_op(op) for op in BIN_OPS + FLOOR_OPS + BITWISE_OPS},
    **STRUCTURAL,
}


@pytest.mark.parametrize("case", sorted(PROPERTY_CASES))
def test_op_matches_python_reference(case: str) -> None:
    ps, reference = PROPERTY_CASES[case]
    f = load(nb.NUMPY.generate(OP_FN, ps))

    @settings(max_examples=150, deadline=None)
    @given(op_inputs())
    def check(x: dict[str, Any]) -> None:
        expected = reference(x)
        args = {
            k: (np.array(v, dtype=np.int32) if isinstance(v, list) else v) for k, v in x.items()
        }
        before = {k: np.copy(v) for k, v in args.items()}
        got = f(**args)
        if isinstance(expected, list):
            assert got.dtype == np.int64
            assert got.tolist() == expected
        else:
            assert type(got) is int and got == expected
        for k, v in args.items():
            assert np.array_equal(v, before[k]), f"input {k} was modified"

    check()


@pytest.mark.parametrize(
    ("op", "then_a", "expected"),
    [("<", True, "min(a, b)"), ("<=", True, "min(a, b)"), (">", True, "max(a, b)"), (">=", False, "min(a, b)"),
     ("<", False, "max(a, b)")],
)
def test_result_length_min_and_max(op: str, then_a: bool, expected: str) -> None:
    """A result length min(len(a), len(b)) (Python's zip) renders exactly: a select of two
    operands compared with each other is their minimum or maximum."""
    from tenspiler.codegen.python_host import render_loop_expr
    from tenspiler.loops.ir import Compare, Select, Var

    a, b = Var("a", DType.INT), Var("b", DType.INT)
    e = Select(Compare(op, a, b), a if then_a else b, b if then_a else a, DType.INT)  # type: ignore[arg-type]
    assert render_loop_expr(e, {}) == expected


def test_block_views_are_the_views_of_an_elementwise_term_of_several_ops() -> None:
    """``block_views``: an elementwise term of two or more operations on 1-D views of the
    parameters is computed in blocks; a single operation, a scalar that reads a tensor (a
    reduction would be recomputed per block, of one block) or a view of a computed tensor
    is not."""
    from tenspiler.codegen.numpy_backend import block_views

    n = ScalarVar("n", INT)
    a, b = Take(tv("a"), n), Slice(tv("b"), Lit(1, INT), ScalarOp("+", n, Lit(1, INT), INT))
    two = TensorScalar("*", TensorTensor("+", a, b, INT), ScalarOp("-", n, Lit(1, INT), INT), False, INT)
    assert block_views(two) == [a, b]
    assert block_views(TensorTensor("+", a, b, INT)) is None
    assert block_views(TensorScalar("-", TensorTensor("+", a, b, INT), ReduceSum(a, INT), False, INT)) is None
    assert block_views(TensorScalar("-", Take(TensorTensor("+", a, b, INT), n), Lit(1, INT), False, INT)) is None
