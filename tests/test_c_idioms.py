"""C idioms of real code other than loops and integer types (issue 34): ``<math.h>`` functions,
``<math.h>``/``<float.h>`` constants, ``register``, enumeration constants and enum-typed
locals, file-scope ``const`` scalars and arrays.

Each kernel of ``tests/kernels/mathc/`` that is accepted lifts, passes the translation
validation (the loop IR and the generated code against the compiled C on adversarial inputs)
and its certificate re-checks; the unsafe variants are refused by name."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from tenspiler.errors import BadInput
from tenspiler.frontend.c import parse_c_file, parse_c_source
from tenspiler.loops.interp import run_function
from tenspiler.loops.ir import Binary, Call, Const, Select
from tests.lifting import assert_lifts

KERNELS = Path(__file__).resolve().parent / "kernels" / "mathc"


@pytest.mark.parametrize(
    "name",
    [
        "clamp_fminf",  # fminf(fmaxf(x, lo), hi)
        "relu_fmax",  # fmax(x, 0.0) in double
        "elu_expm1f",  # expm1f under a select
        "gelu_tanhf",  # tanhf and powf(v, 3)
        "rotate_cosf",  # cosf, sinf
        "square_powf",  # powf(x, 2) summed
        "pow_alpha",  # pow(x[i], alpha): the C library's pow, uninterpreted in the proof
        "pow_frac",  # powf by 2.5f, pow of two arrays
        "pow_sum",  # sum of pow(fabs(x[i]), p), then pow(s, 1.0 / p)
        "round_q",  # (int) round(x[i] * s): C's round, halfway cases away from zero
        "round_sum",  # round and roundf summed
        "floor_grad",  # floorf(x[i]) == x[i]: C's floor, exact in the proof
        "static_const",  # static const scalar and array read at constant indices
        "register_dot",  # register locals
        "enum_act",  # enum constants, an enum-typed local, an enum constant as loop step
        "gemv_2d",  # double A[N][M] with macro sizes
        "scale_vla",  # C99 VLA parameters double A[n][m]
        "col_sums_vla",  # a VLA read down its columns
        "layer_relu",  # const layer *l: l->outputs, l->output[i]
        "layer_scale",  # a struct pointer with fields the kernel does not read (nested struct, function pointer)
        "fill_stmt",  # fill_cpu(n, 0, x, 1): a void helper with a loop, called as a statement
        "scal_stmt",  # a helper scaling an array in place after a copy loop
        "shortcut_helpers",  # copy_cpu then axpy_cpu into a struct pointer's array field
        "helper_walk",  # a helper walking its pointer parameters (locals, not substituted)
        "helpers_nested",  # a helper calling a helper twice, then a call at an offset
        "mvt_2d",  # PolyBench mvt: x1[i] += A[i][j] * y_1[j], A[N][N] read with its row length N
        "gesummv_vla",  # PolyBench gesummv with VLA parameters
        "scale_3d",  # a C99 VLA 3-D array parameter double A[np][nr][nc]
        "plane_fill_3d",  # float A[][ROWS][COLS] updated in place
        "assert_pre",  # assert(n <= m && ...) at the top: a stated, checked precondition
    ],
)
def test_idiom_lifts_and_checks(name: str, tmp_path: Path) -> None:
    assert_lifts(KERNELS / f"{name}.c", tmp_path, function=name)


def _parse(body: str, prelude: str = "#include <math.h>\n#include <float.h>\n") -> object:
    return parse_c_source(prelude + body, "t.c", "f")


def test_unary_math_functions_lower_to_calls_in_their_type() -> None:
    fn = _parse("float f(float x, double y) { return expm1f(x) + cosf(x) + sinf(x) + (float)(cos(y) + sin(y) + expm1(y)); }")
    calls = []

    def walk(e: object) -> None:
        if isinstance(e, Call):
            calls.append((e.func, e.dtype.value))
        for v in getattr(e, "__dict__", {}).values():
            if hasattr(v, "dtype") or isinstance(v, tuple):
                for x in v if isinstance(v, tuple) else (v,):
                    walk(x)

    for s in fn.body:
        walk(getattr(s, "value", None))
    assert sorted(calls) == sorted([
        ("expm1", "float"), ("cos", "float"), ("sin", "float"),
        ("cos", "double"), ("sin", "double"), ("expm1", "double"),
    ])


def test_fmin_fmax_are_selects_with_c_value_on_finite_arguments() -> None:
    fn = _parse("double f(double x, double y) { return fmin(x, y) - 10 * fmax(x, y); }")
    ret = fn.body[-1].value
    assert isinstance(ret, Binary)
    for x, y in [(1.0, 2.0), (2.0, 1.0), (-3.5, -3.5), (0.0, -1e300), (1e-300, 0.0)]:
        out = run_function(fn, {"x": x, "y": y})["return"]
        assert out == min(x, y) - 10 * max(x, y)
    inner = ret.left
    assert isinstance(inner, Select)


@pytest.mark.parametrize("exponent", ["a", "-1", "9", "2.5", "0.5"])
def test_pow_of_other_exponents_is_the_pow_operator(exponent: str) -> None:
    fn = _parse(f"double f(double x, double a) {{ return pow(x, {exponent}); }}")
    e = fn.body[-1].value
    assert isinstance(e, Binary) and e.op == "pow"
    for x, a in [(2.0, 3.0), (0.5, -2.0), (9.0, 0.5), (-2.0, 3.0), (1e-3, 2.5)]:
        y = a if exponent == "a" else float(exponent)
        if x < 0 and not y.is_integer():
            continue  # outside the reals (test_pow_outside_the_reals_is_outside_the_model)
        want = math.pow(x, y)
        assert run_function(fn, {"x": x, "a": a})["return"] == want


def test_round_is_c_round_in_every_definition() -> None:
    """``round`` is C's (halfway cases away from zero) in the Python and NumPy definitions —
    compared with the C library's own ``round`` — and in SMT-LIB (exact: cvc5 computes it);
    NumPy's and Python's ``round`` (half to even) differ on the halfway cases."""
    import ctypes
    import ctypes.util

    import numpy as np

    from tenspiler.ir.semantics import (
        np_round,
        py_round,
        smt_call,
        smt_const,
        smt_extra_declarations,
    )
    from tenspiler.loops.ir import DType
    from tests.test_semantics import assert_smt_computes

    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    libm.round.restype, libm.round.argtypes = ctypes.c_double, [ctypes.c_double]
    values = [0.5, 1.5, 2.5, -0.5, -2.5, 0.49999999999999994, -0.49999999999999994, 4503599627370497.0, 3.7, -3.7,
              2.5000000000000004, -1e300, 0.0]
    got_np = np_round(np.array(values)).tolist()
    for v, n in zip(values, got_np, strict=True):
        assert py_round(v) == n == libm.round(v), v
    assert np.round(2.5) != libm.round(2.5) and round(-0.5) != libm.round(-0.5)
    checks = [(smt_call("round", smt_const(v, DType.DOUBLE)), smt_const(libm.round(v), DType.DOUBLE))
              for v in (0.5, -2.5, 3.7, -3.2, 0.25)]
    assert smt_extra_declarations(checks[0][0])
    assert_smt_computes(checks)


def test_floor_is_c_floor_in_every_definition() -> None:
    """``floor`` is C's in the Python and NumPy definitions — compared with the C library's own
    ``floor`` — and in SMT-LIB (exact: cvc5 computes it), on negatives, halves and values where
    a float64 has no fractional bits left."""
    import ctypes
    import ctypes.util

    import numpy as np

    from tenspiler.ir.semantics import np_call, py_call, smt_call, smt_const, smt_extra_declarations
    from tenspiler.loops.ir import DType
    from tests.test_semantics import assert_smt_computes

    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    libm.floor.restype, libm.floor.argtypes = ctypes.c_double, [ctypes.c_double]
    values = [0.5, 1.0, -0.5, -1.0, -2.5, 2.5, 3.7, -3.7, 0.49999999999999994, -1e-300, 4503599627370497.0,
              -4503599627370497.0, 1e300, 0.0]
    got_np = np_call("floor", np.array(values)).tolist()
    for v, n in zip(values, got_np, strict=True):
        assert py_call("floor", v) == n == libm.floor(v), v
    checks = [(smt_call("floor", smt_const(v, DType.DOUBLE)), smt_const(libm.floor(v), DType.DOUBLE))
              for v in (0.5, -2.5, 3.7, -3.2, -1.0, 0.25)]
    assert smt_extra_declarations(checks[0][0])
    assert_smt_computes(checks)


def test_pow_outside_the_reals_is_outside_the_model() -> None:
    from tenspiler.ir.semantics import OutsideModel, np_pow, py_pow

    for x, y in [(-2.0, 0.5), (0.0, -1.0), (10.0, 400.0)]:
        with pytest.raises(OutsideModel):
            py_pow(x, y)
        assert not math.isfinite(float(np_pow(x, y)))  # C: NaN / inf, as np.power
    assert py_pow(-2.0, 3.0) == -8.0 and py_pow(0.0, 0.0) == 1.0


@pytest.mark.parametrize(("exponent", "factors"), [("0", 0), ("1.0", 1), ("2", 2), ("3.f", 3), ("(float)4", 4), ("8", 8)])
def test_pow_of_small_integer_constant_is_a_product(exponent: str, factors: int) -> None:
    fn = _parse(f"double f(double x) {{ return pow(x, {exponent}); }}")
    for x in (-1.5, 0.0, 2.0, 3.25):
        assert run_function(fn, {"x": x})["return"] == pytest.approx(math.pow(x, factors))
    e = fn.body[-1].value
    if factors == 0:
        assert isinstance(e, Const) and e.value == 1
    count = 0
    while isinstance(e, Binary):
        assert e.op == "*"
        count += 1
        e = e.left
    assert count == max(factors - 1, 0)


LAYER = (
    "typedef struct { int w, h; } size2;\n"
    "typedef struct layer { int outputs; size2 shape; unsigned long flops; float *output; float **rows; } layer;\n"
)

REFUSED = {
    # math functions
    "fminf with one argument": ("void f(float *x, int n) { for (int i = 0; i < n; i++) x[i] = fminf(x[i]); }", "error: too few arguments to function call, expected 2, have 1"),
    "fmaxf of a pointer": ("void f(float *x, int n) { for (int i = 0; i < n; i++) x[i] = fmaxf(x, 1); }", "error: passing 'float *' to parameter of incompatible type 'float'; dereference with *"),
    # constants the real-number model does not have
    "INFINITY": ("void f(float *x, int n) { for (int i = 0; i < n; i++) x[i] = -INFINITY; }", "INFINITY (__builtin_inff, an infinity) is not supported"),
    "NAN": ("void f(float *x, int n) { for (int i = 0; i < n; i++) x[i] = NAN; }", "NAN (__builtin_nanf, a NaN) is not supported"),
    "HUGE_VAL": ("void f(double *x, int n) { for (int i = 0; i < n; i++) x[i] = HUGE_VAL; }", "HUGE_VAL (__builtin_huge_val, an infinity) is not supported"),
    # storage classes other than register
    "static local": ("void f(float *x, int n) { static float s = 0; for (int i = 0; i < n; i++) x[i] = s; }", "'static' local variables are not supported"),
    # enums: a struct field of an enum type, a conversion and arithmetic that wrap (enum-typed
    # parameters: tests/test_c_switch.py)
    "enum field": ("typedef enum {A, B} e; typedef struct { e k; } s; void f(float *x, int n, s v) { for (int i = 0; i < n; i++) x[i] = v.k == A; }", "enum-typed field 'k' of struct parameter 'v' is not supported"),
    # file-scope objects other than initialised constants
    "global array": ("float g[2] = {1, 2}; void f(float *x, int n) { for (int i = 0; i < n; i++) x[i] = g[1]; }", "global variable 'g' is not supported"),
    "extern constant array": ("extern const float g[4]; void f(float *x, int n) { for (int i = 0; i < n; i++) x[i] = g[1]; }", "global variable 'g' is not supported"),
    "global written by the kernel": ("float g = 1; void f(float *x, int n) { for (int i = 0; i < n; i++) x[i] = g; g = 2; }", "global variable 'g' is written by the function"),
    "global written by a helper": ("float g = 1; static void h(void) { g = 0; }\nvoid f(float *x, int n) { h(); for (int i = 0; i < n; i++) x[i] = g; }", "global variable 'g' is written by 'h'"),
    "const pointer to mutable data": ("float *const p = 0; void f(float *x, int n) { for (int i = 0; i < n; i++) x[i] = p[i]; }", "global variable 'p' is not supported"),
    "store into a constant array": ("static const float c[2] = {1, 2}; void f(float *x, int n) { for (int i = 0; i < n; i++) c[0] = x[i]; }", "error: cannot assign to variable 'c' with const-qualified type 'const float[2]'"),
    "constant array at a variable index": ("static const float c[2] = {1, 2}; void f(float *x, int n) { for (int i = 0; i < n; i++) x[i] = c[i]; }", "constant array 'c' read at the non-constant index 'i'"),
    "constant array out of bounds": ("static const float c[2] = {1, 2}; void f(float *x, int n) { for (int i = 0; i < n; i++) x[i] = c[2]; }", "index 2 is outside constant array 'c' of 2 elements"),
    # 2-D array parameters
    "VLA row length assigned": ("void f(int n, int m, double A[n][m]) { m = 2; for (int i = 0; i < n; i++) A[i][0] = 0; }", "row length 'm' of 2-D array parameter 'A' reads 'm', which the function assigns"),
    "row of a 2-D array as a value": ("void f(int n, double A[n][4]) { double *p = A[0]; for (int i = 0; i < n; i++) p[i] = 0; }", "row 'A[0]' of 2-D array 'A' used as a value is not supported"),
    "2-D array as a pointer": ("void f(int n, double A[n][4]) { for (int i = 0; i < n; i++) *(A + i) = 0; }", "error: array type 'double[4]' is not assignable"),
    "address of a 2-D element": ("void f(int n, double A[n][4]) { double *p = &A[0][1]; for (int i = 0; i < n; i++) p[i] = 0; }", "pointer to 2-D array element 'A[0][1]' is not supported"),
    "too many subscripts": ("void f(int n, double A[n][4], double *y) { for (int i = 0; i < n; i++) y[i] = A[i][0][1]; }", "error: subscripted value is not an array, pointer, or vector"),
    "four dimensions": ("void f(int n, double A[n][4][4][2]) { }", "array parameter 'A' of more than three dimensions is not supported"),
    "plane of a 3-D array as a value": ("void f(int n, double A[n][4][4]) { double *p = A[0][1]; for (int i = 0; i < n; i++) p[i] = 0; }", "pointer 'p' may only point into an array parameter (A, &A[E], A + E, another pointer); 'A[0][1]' is not supported"),
    "address of a 3-D element": ("void f(int n, double A[n][4][4]) { double *p = &A[0][1][2]; for (int i = 0; i < n; i++) p[i] = 0; }", "pointer to 3-D array element 'A[0][1][2]' is not supported"),
    "3-D array updated": ("void f(int n, double A[n][4][4]) { A++; }", "updating 3-D array parameter 'A' is not supported"),
    "3-D VLA row count assigned": ("void f(int n, int r, double A[n][r][2]) { r = 2; for (int i = 0; i < n; i++) A[i][0][0] = 0; }", "row count 'r' of 3-D array parameter 'A' reads 'r', which the function assigns"),
    "2-D array updated": ("void f(int n, double A[n][4]) { A++; }", "updating 2-D array parameter 'A' is not supported"),
    # assert(E): a precondition only where it runs exactly once, on parameters
    "assert in a loop": ("#include <assert.h>\nvoid f(float *x, int n) { for (int i = 0; i < n; i++) { assert(i < n); x[i] = 0; } }", "assert(i < n) inside a loop, an if or a helper is not supported"),
    "assert after a guard": ("#include <assert.h>\nvoid f(float *x, int n) { if (n <= 0) return; assert(n < 9); for (int i = 0; i < n; i++) x[i] = 0; }", "assert(n < 9) after an early return is not supported"),
    "assert on a local": ("#include <assert.h>\nvoid f(float *x, int n) { int k = 2 * n; assert(k > 0); for (int i = 0; i < n; i++) x[i] = 0; }", "reads 'k', which is not a scalar parameter the function leaves unchanged"),
    "assert on data": ("#include <assert.h>\nvoid f(float *x, int n) { assert(x[0] > 0); for (int i = 0; i < n; i++) x[i] = 0; }", "only comparisons (<, <=, >, >=, ==) of integer expressions joined by && are supported"),
    "assert with or": ("#include <assert.h>\nvoid f(float *x, int n, int m) { assert(n < 9 || m < 9); for (int i = 0; i < n; i++) x[i] = 0; }", "only comparisons"),
    # struct pointer parameters
    "dot on a struct pointer": (LAYER + "void f(layer *l) { for (int i = 0; i < l->outputs; i++) l.output[i] = 0; }", "error: member reference type 'layer *' (aka 'struct layer *') is a pointer; did you mean to use '->'?"),
    "arrow on a struct value": ("typedef struct layer { int outputs; float *output; } layer;\nvoid f(layer l) { for (int i = 0; i < l->outputs; i++) l.output[i] = 0; }", "error: member reference type 'layer' (aka 'struct layer') is not a pointer; did you mean to use '.'?"),
    "nested struct field read": (LAYER + "void f(layer *l) { for (int i = 0; i < l->shape.w; i++) l->output[i] = 0; }", "nested struct field 'shape' of struct parameter 'l' is not supported"),
    "unsigned field read": (LAYER + "void f(layer *l) { for (int i = 0; i < l->flops; i++) l->output[i] = 0; }", "type 'unsigned long' is not supported"),
    "field assigned": (LAYER + "void f(layer *l) { l->outputs = 0; }", "assignment to struct field 'l->outputs' is not supported"),
    "array field as a number": (LAYER + "void f(layer *l, float *y) { y[0] = l->output; }", "error: assigning to 'float' from incompatible type 'float *'; dereference with *"),
    "struct pointer to a helper": (LAYER + "static int g(int x) { return x; }\nvoid f(layer *l, int *y) { y[0] = g(l) + l->outputs; }", "passing struct 'l' to 'g' is not supported"),
    # helpers called as statements
    "recursive statement helper": ("void g(float *x, int n) { g(x, n); }\nvoid f(float *x, int n) { g(x, n); }", "recursive call to 'g' is not supported"),
    "non-void helper as a statement": ("int g(float *x) { if (x[0] > 0) return 1; x[0] = 2; return 0; }\nvoid f(float *x) { g(x); }", "call to 'g' as a statement is not supported (its value is discarded, and a 'return' of it does not end a path"),
    "helper arity": ("void g(float *x, int n) { }\nvoid f(float *x, int n) { g(x); }", "error: too few arguments to function call, expected 2, have 1"),
    "helper global hidden at the call": ("enum { K = 2 };\nvoid g(float *x) { x[0] = K; }\nvoid f(float *x, int K) { g(x); }", "helper 'g' reads the file-scope 'K', which 'K' of 'f' hides at the call"),
    "helper with a struct parameter": (LAYER + "void g(layer *l) { l->output[0] = 0; }\nvoid f(layer *l) { g(l); l->output[1] = 1; }", "helper 'g' called as a statement has parameter 'l' of a type that is not supported"),
    # (at the top level the if splits the function into paths: tests/test_interchange.py)
    "helper loop under if": ("void g(float *x, int n) { for (int i = 0; i < n; i++) x[i] = 0; }\nvoid f(float *x, int n) { for (int k = 0; k < 2; k++) if (n > 2) g(x, n); }", "for loop inside if is not supported"),
    "helper writing a scalar pointer argument's target": ("void g(float *s) { s[1] = 1; }\nvoid f(float *x, float s) { g(&s); x[0] = s; }", "address-of operator '&' is not supported"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_unsafe_variant_is_refused_by_name(case: str) -> None:
    body, message = REFUSED[case]
    with pytest.raises(BadInput) as info:
        _parse(body)
    assert message in str(info.value), str(info.value)


@pytest.mark.parametrize(("name", "message"), [
    ("max_inf", "INFINITY (__builtin_inff, an infinity) is not supported"),
])
def test_measured_kernel_refused_by_name(name: str, message: str) -> None:
    with pytest.raises(BadInput, match=re.escape(message)):
        parse_c_file(KERNELS / f"{name}.c", name)


def test_file_constants_values() -> None:
    fn = _parse(
        "enum { K = 3, L, M = K * L - 20 };\n"
        "static const double c[4] = {1.5, -2};\nstatic const float h = 0.1;\n"
        "double f(void) { return c[0] + c[1] + c[3] + h + K + L + M; }",
        prelude="",
    )
    # 0.1 converted to float (the real model keeps real -> real conversions exact), K=3, L=4, M=-8
    assert run_function(fn, {})["return"] == pytest.approx(1.5 - 2 + 0 + 0.1 + 3 + 4 - 8)


def test_enum_constant_shadowed_by_a_local_is_the_local() -> None:
    fn = _parse("enum { N = 5 }; int f(int k) { int N = k; return N + 1; }", prelude="")
    assert run_function(fn, {"k": 10})["return"] == 11


def test_2d_array_element_outside_its_row_is_refused_by_the_interpreter() -> None:
    fn = _parse("void f(int n, int m, double A[n][m], double *y) { for (int i = 0; i < n; i++) y[i] = A[i][m]; }", prelude="")
    with pytest.raises(IndexError, match="out of range"):
        run_function(fn, {"n": 1, "m": 2, "A": [1.0, 2.0, 3.0, 4.0], "y": [0.0]})
    fn = _parse("void f(int n, int m, double A[n][m], double *y) { for (int i = 0; i < n; i++) y[i] = A[i][m - 1]; }", prelude="")
    assert run_function(fn, {"n": 2, "m": 2, "A": [1.0, 2.0, 3.0, 4.0], "y": [0.0, 0.0]})["y"].tolist() == [2.0, 4.0]


def test_struct_pointer_flattens_only_the_fields_read() -> None:
    fn = _parse(LAYER + "void f(const layer *l, float *y) { for (int i = 0; i < l->outputs; i++) y[i] = l->output[i]; }", prelude="")
    assert [p.name for p in fn.params] == ["l__outputs", "l__output", "y"]
    assert fn.structs[0].pointer


def test_statement_helper_arguments_are_evaluated_before_the_body() -> None:
    """A scalar argument reading an array the helper writes is copied into a local first
    (C evaluates arguments before the call): g(x[0], x) sets every x[i] to the old x[0]."""
    fn = _parse("void g(float v, float *y, int n) { for (int i = 0; i < n; i++) y[i] = v; }\n"
                "void f(float *x, int n) { g(x[0], x, n); }", prelude="")
    assert run_function(fn, {"x": [5.0, 1.0, 2.0], "n": 3})["x"].tolist() == [5.0, 5.0, 5.0]


def test_statement_helper_locals_do_not_capture_the_kernel_names() -> None:
    fn = _parse("void g(float *y, int n) { for (int i = 0; i < n; i++) y[i] += 1; }\n"
                "void f(float *x, int n) { for (int i = 0; i < n; i++) g(x + i, 1); }", prelude="")
    assert run_function(fn, {"x": [1.0, 2.0, 3.0], "n": 3})["x"].tolist() == [2.0, 3.0, 4.0]


def test_enum_and_constant_initialiser_expressions() -> None:
    fn = _parse(
        "enum e { A = 1 << 2, B = A | 1, C = -7 / 2, D = ~0, E = 7 % -3 };\n"
        "static const double third = 1.0 / 3.0;\n"
        "double f(void) { return A * 1000 + B * 100 + C * 10 + D + E * 10000 + third; }",
        prelude="",
    )
    # C truncates: -7 / 2 == -3, 7 % -3 == 1
    assert run_function(fn, {})["return"] == pytest.approx(4000 + 500 - 30 - 1 + 10000 + 1 / 3)



@pytest.mark.parametrize("body", [
    "typedef enum {A, B} e; void f(float *x, int n, int k) { e a = k; for (int i = 0; i < n; i++) x[i] = a == A; }",
    "typedef enum {A, B} e; void f(float *x, int n, int k) { e a = k > 0 ? A : B; for (int i = 0; i < n; i++) x[i] = a - 1; }",
])
def test_unsigned_enum_values_wrap_as_unsigned_int(body: str, tmp_path: Path) -> None:
    """An enum without negative enumerators is GCC's unsigned int: a conversion into it and
    its arithmetic wrap modulo 2^32 (exact integers), checked against the compiled C."""
    from tenspiler.pipeline import lift_file

    src = tmp_path / "k.c"
    src.write_text(body + "\n")
    res = lift_file(src, ["numpy"], function="f", check=True)
    assert res.status == "verified", res.message
    assert res.check is not None and all(c["ok"] for c in res.check.values())


def test_assert_is_a_stated_precondition_and_void_casts_are_no_ops() -> None:
    fn = parse_c_file(KERNELS / "assert_pre.c")
    assert [(str(w)) for _, _, w in fn.requires][:2] == [
        "assert((n <= m) && (m < 100000)) at line 5 holds", "assert((n <= m) && (m < 100000)) at line 5 holds"]
    assert len(fn.requires) == 4  # n <= m, m + 1 <= 100000, n <= n, n <= n
    # under NDEBUG assert(E) is ((void) 0): nothing
    src = "#include <assert.h>\nvoid f(float *x, int n) { assert(n > 99); (void)n; for (int i = 0; i < n; i++) x[i] = 0; }"
    from tenspiler.frontend.flags import CompileFlags

    fn = parse_c_source(src, "t.c", "f", flags=CompileFlags(("-DNDEBUG",)))
    assert fn.requires == ()


def test_floor_stair_model_agrees_with_c(tmp_path: Path) -> None:
    """``int n = floor(x); n % 2 == 0 ? floor(x / 2.) : (x - n) + floor(x / 2.)`` (the
    conversion of a floor to int, ``%`` of it): the loop IR — the proof's model — agrees with
    the compiled C on negatives, integers, halves and values near them. (Its proof does not
    finish within the budget: cvc5 on ``%`` of a converted real; not lifted.)"""
    import ctypes
    import shutil
    import subprocess

    import numpy as np

    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    path = KERNELS / "floor_stair.c"
    fn = parse_c_file(path, "floor_stair")
    lib = tmp_path / "libstair.so"
    subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(lib), str(path), "-lm"], check=True)
    cf = ctypes.CDLL(str(lib)).floor_stair
    cf.argtypes = [ctypes.POINTER(ctypes.c_float), ctypes.c_int]
    x = np.array([-1e6, -7.5, -3.0, -2.75, -2.0, -1.5, -1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 2.5,
                  3.0, 3.999, 4.0, 5.5, 1e6, 123457.5], dtype=np.float32)
    want = x.copy()
    cf(want.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), len(want))
    got = run_function(fn, {"x": x.astype(np.float64), "n": len(x)})["x"]
    np.testing.assert_allclose(np.asarray(got, dtype=np.float32), want, rtol=1e-6)


def test_float_accumulator_of_double_terms_is_a_reduction(tmp_path: Path) -> None:
    """``float s; s += pow(..)``: the sum converted back to float at every step is, over the
    reals, the reduction of the terms; the generated code agrees with the compiled C."""
    res = assert_lifts(KERNELS / "sq_dev_float.c", tmp_path)
    assert res.summary is not None and "reduce_sum" in res.summary, res.summary
