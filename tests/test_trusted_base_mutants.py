"""Tests that kill the mutants mutation testing found surviving in the trusted base.

``benchmarks/mutation.py`` runs mutmut on the code whose bugs would produce a wrong
"verified" (``tenspiler/ir/semantics.py``, ``tenspiler/frontend/c_types.py``, the
division side conditions of ``tenspiler/vc/kernel.py``, ``tenspiler/frontend/preprocess.py``,
``tenspiler/ir/smt.py``); ``benchmarks/results/mutation.md`` lists the mutants, the ones
these tests kill and why the remaining survivors are equivalent. Each test names the
mutation it is there for; all are fast unit tests (cvc5 is asked on a handful of closed
terms, as in ``tests/test_semantics.py``).
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from pycparser import c_parser

from tenspiler.check.c import UB_MESSAGE
from tenspiler.check.differential import model_mismatch, reference_states
from tenspiler.errors import LiftError
from tenspiler.frontend import c_types as ct
from tenspiler.frontend.c import parse_c_source
from tenspiler.ir.semantics import (
    SMT_PRELUDE,
    UNARY_FUNCTIONS,
    UndefinedBehaviour,
    c_div,
    divides,
    np_binop,
    np_call,
    py_binop,
    py_call,
    py_cast,
    smt_binop,
    smt_call,
    smt_cast,
    smt_const,
    smt_sort,
)
from tenspiler.loops.interp import run_function
from tenspiler.loops.ir import (
    Binary,
    Call,
    Cast,
    Compare,
    Const,
    DType,
    Load,
    Logical,
    Not,
    Select,
    Unary,
    Var,
)
from tenspiler.pipeline import lift_parsed
from tenspiler.vc.symexec import cond_divisors, divisors
from tenspiler.verify.certificate import recheck_text

INT = DType.INT
UINT8 = DType.UINT8
FLOAT = DType.FLOAT
DOUBLE = DType.DOUBLE


def smt_answers(checks: list[tuple[str, str]], sort: str = "Int") -> list[str]:
    """cvc5's answer to ``term ≠ expected`` for each pair (``unsat``: the term computes
    ``expected``)."""
    lines = ["(set-logic ALL)", "(set-option :incremental true)", SMT_PRELUDE.rstrip()]
    for term, expected in checks:
        lines += ["(push 1)", f"(assert (not (= {term} {expected})))", "(check-sat)", "(pop 1)"]
    return recheck_text("\n".join(lines) + "\n", "test_trusted_base_mutants")


def assert_smt_computes(checks: list[tuple[str, str]]) -> None:
    answers = smt_answers(checks)
    assert answers == ["unsat"] * len(checks), list(zip(checks, answers, strict=True))


# ================================================================ tenspiler/ir/semantics.py


@pytest.mark.parametrize("op", ["/", "%", "//", "mod"])
def test_divides_integer_division_and_remainder(op: str) -> None:
    # mutants of divides(): the zero-divisor side conditions hang on it
    assert divides(op, INT)
    assert divides(op, UINT8)
    assert not divides(op, DOUBLE)
    assert not divides(op, FLOAT)


@pytest.mark.parametrize("op", ["+", "-", "*"])
def test_divides_not_other_operators(op: str) -> None:
    assert not divides(op, INT)
    assert not divides(op, DOUBLE)


def test_zero_divisor_message_names_the_operator() -> None:
    with pytest.raises(UndefinedBehaviour, match="/ by zero"):
        py_binop("/", 1, 0, INT)


@pytest.mark.parametrize(
    ("op", "x", "y", "expected"),
    [
        ("/", 7.0, 2.0, 3.5),
        ("/", -7.0, 2.0, -3.5),
        ("%", 7.5, 2.0, 1.5),  # C fmod: the sign of the dividend
        ("%", -7.5, 2.0, -1.5),
        ("%", 7.5, -2.0, 1.5),
    ],
)
def test_real_division_and_fmod(op: str, x: float, y: float, expected: float) -> None:
    # mutants of the float branches of py_binop / np_binop (/ ↔ *, / ↔ fmod, fmod arguments)
    assert py_binop(op, x, y, DOUBLE) == expected
    assert np.asarray(np_binop(op, np.float64(x), np.float64(y), DOUBLE)).item() == expected
    got = np_binop(op, np.array([x, x]), np.array([y, y]), DOUBLE)
    assert np.asarray(got).tolist() == [expected, expected]


def test_real_division_smt() -> None:
    assert_smt_computes([(smt_binop("/", smt_const(7.0, DOUBLE), smt_const(2.0, DOUBLE), DOUBLE), smt_const(3.5, DOUBLE))])


def test_py_cast_of_numpy_integers() -> None:
    # mutants that send non-float values through math.trunc (numpy integers lack __trunc__)
    assert py_cast(np.int64(-7), INT) == -7
    assert py_cast(np.int64(300), UINT8) == 44
    assert py_cast(np.int32(5), DOUBLE) == 5.0


def test_c_div_converts_to_int64_first() -> None:
    # mutants dropping dtype=np.int64 in c_div: -128 / -1 overflows int8 but not int64
    x = np.array([-128, 7, -7], dtype=np.int8)
    y = np.array([-1, -2, 2], dtype=np.int8)
    assert c_div(x, y).tolist() == [128, -3, -3]
    assert c_div(x, np.array([-1, -2, 2], dtype=np.int64)).tolist() == [128, -3, -3]


def test_smt_cast_identity_conversions() -> None:
    # mutant 'dst == UINT8 and src != UINT8' → 'or': an int → int conversion is the identity
    assert smt_cast("x", INT, INT) == "x"
    assert smt_cast("x", UINT8, UINT8) == "x"
    assert smt_cast("x", DOUBLE, DOUBLE) == "x"
    assert smt_cast("x", DOUBLE, FLOAT) == "x"
    assert smt_cast("x", UINT8, INT) == "x"
    assert_smt_computes([(smt_cast("300", INT, INT), "300"), (smt_cast("(- 1)", INT, INT), "(- 1)")])


def test_smt_sort() -> None:
    assert smt_sort(INT) == smt_sort(UINT8) == "Int"
    assert smt_sort(DOUBLE) == smt_sort(FLOAT) == "Real"


@pytest.mark.parametrize(
    ("func", "x", "expected"),
    [
        ("exp", 0.0, 1.0),
        ("exp", 1.0, math.e),
        ("sqrt", 4.0, 2.0),
        ("sqrt", 0.0, 0.0),
        ("log", 1.0, 0.0),
        ("log", math.e, 1.0),
        ("tanh", 0.0, 0.0),
        ("fabs", -2.5, 2.5),
        ("fabs", 2.5, 2.5),
        ("fabs", -0.0, 0.0),
    ],
)
def test_unary_functions(func: str, x: float, expected: float) -> None:
    # py_call / np_call had no test among the fast ones
    assert py_call(func, x) == pytest.approx(expected)
    assert float(np_call(func, x)) == pytest.approx(expected)
    assert np.asarray(np_call(func, np.array([x, x]))).tolist() == pytest.approx([expected, expected])
    assert py_call(func, int(x)) == pytest.approx(UNARY_FUNCTIONS[func][0](float(int(x))))


@pytest.mark.parametrize(("func", "x"), [("sqrt", -1.0), ("log", -1.0), ("log", 0.0), ("log", 0), ("sqrt", -1)])
def test_unary_domain_errors(func: str, x: float) -> None:
    with pytest.raises(UndefinedBehaviour, match=func):
        py_call(func, x)


def test_unary_functions_defined_at_domain_edges() -> None:
    assert py_call("sqrt", 0) == 0.0
    assert py_call("exp", -1.0) == pytest.approx(math.exp(-1.0))
    assert py_call("fabs", -3) == 3.0
    assert py_call("tanh", -1.0) == pytest.approx(math.tanh(-1.0))
    with np.errstate(all="raise"):  # np_call silences NumPy's domain warnings itself
        assert math.isnan(float(np_call("sqrt", -1.0)))
        assert float(np_call("log", 0.0)) == -math.inf


def test_smt_call() -> None:
    assert smt_call("fabs", "x") == "(tenspiler.fabs x)"
    assert smt_call("exp", "y") == "(tenspiler.exp y)"
    lines = ["(set-logic ALL)", "(set-option :incremental true)", SMT_PRELUDE.rstrip()]
    for term, expected in [
        (smt_call("fabs", smt_const(-2.5, DOUBLE)), smt_const(2.5, DOUBLE)),
        (smt_call("fabs", smt_const(2.5, DOUBLE)), smt_const(2.5, DOUBLE)),
        (smt_call("fabs", smt_const(0.0, DOUBLE)), smt_const(0.0, DOUBLE)),
    ]:
        lines += ["(push 1)", f"(assert (not (= {term} {expected})))", "(check-sat)", "(pop 1)"]
    assert recheck_text("\n".join(lines) + "\n", "test_trusted_base_mutants") == ["unsat"] * 3


# ================================================================ tenspiler/frontend/c_types.py


#: a kernel whose loop body is the case; every array element type the gate distinguishes
_KERNEL = (
    "void f(int *a, long *b, unsigned char *u, int *out, long *lo, unsigned char *uo, int n) "
    "{ for (int i = 0; i < n; i++) { %s } }"
)


def gate(body: str) -> str | None:
    """``None`` if the kernel with loop body ``body`` lifts, else the refusal message."""
    try:
        parse_c_source(_KERNEL % body, "k.c")
    except LiftError as e:
        assert e.loc is not None and e.loc.line == 1
        return e.message
    return None


@pytest.mark.parametrize(
    ("body", "rule"),
    [
        # an unsigned int value that may not fit int, converted implicitly (C11 §6.3.1.3p3:
        # implementation-defined; only an explicit cast is read as GCC's reduction modulo 2^32)
        ("out[i] = a[i] + 0xFFFFFFFF;", "assignment: conversion from 'unsigned int' to 'int' may change the value"),
        ("out[i] = a[i] / 2u;", "assignment: conversion from 'unsigned int' to 'int'"),
        ("out[i] = a[i] % 2u;", "assignment: conversion from 'unsigned int' to 'int'"),
        ("out[i] = 2u / a[i];", "assignment: conversion from 'unsigned int' to 'int'"),
        ("out[i] = a[i] + -1u;", "assignment: conversion from 'unsigned int' to 'int'"),
        ("unsigned int c = 3; c = c - 4; out[i] = c;", "assignment: conversion from 'unsigned int' to 'int'"),
        # unsigned long arithmetic (C11 §6.2.5p9): wraps modulo 2^64, beyond the int64 model
        ("unsigned long c = 3; c--; out[i] = 1;", "'--' on 'unsigned long' (unsigned arithmetic wraps modulo 2^64"),
        ("lo[i] = b[i] * 2ul;", "unsigned arithmetic '*' in 'unsigned long' (wraps modulo 2^64"),
        # a signed operand converted to unsigned long in a comparison (C11 §6.3.1.8)
        ("if (b[i] != 1ul) out[i] = 1;", "comparison '!=' in 'unsigned long'"),
        # value-changing integer conversions (C11 §6.3.1.3)
        ("out[i] = b[i];", "assignment: conversion from 'long' to 'int' may change the value"),
        ("out[i] = (int)b[i];", "cast: conversion from 'long' to 'int'"),
        ("out[i] += b[i];", "compound assignment '+=': conversion from 'long' to 'int'"),
        ("int c = 2147483648L; out[i] = c;", "initialisation: conversion from 'long' to 'int'"),
        ("int c = -2147483649L; out[i] = c;", "initialisation: conversion from 'long' to 'int'"),
        ("out[i] = 3000000000;", "assignment: conversion from 'long' to 'int'"),
        ("out[i] = a[i] * 2147483648;", "conversion from 'long' to 'int'"),
        ("out[i] = a[i] > 0 ? b[i] : 1;", "conversion from 'long' to 'int'"),
        ("out[i] = a[i] > 0 ? 1 : 2147483648;", "conversion from 'long' to 'int'"),
        ("unsigned long c = b[i]; out[i] = 1;", "conversion from 'long' to 'unsigned long' wraps modulo 2^64"),
    ],
)
def test_type_gate_refuses(body: str, rule: str) -> None:
    message = gate(body)
    assert message is not None, body
    assert rule in message, (body, message)
    assert "is not supported" in message


@pytest.mark.parametrize(
    "body",
    [
        "out[i] = a[i] / 4 + (int)(0x10 + 3u);",  # a constant that does not wrap
        "out[i] = a[i] + (int)(5u - 1);",
        "out[i] = a[i] + (int)(5u - 5);",
        "out[i] = a[i] + (int)(2u * 3);",
        "out[i] = a[i] + (int)(7u / 2);",
        "out[i] = a[i] + (int)(7u % 4);",
        "out[i] = a[i] + (int)(-7 / 2 + 10u);",
        "out[i] = a[i] + (int)(-7 % 2 + 10u);",
        "if (u[i] < 10u) out[i] = 1;",  # an unsigned char is never negative
        "if (10u >= u[i]) out[i] = 1;",
        "if (5 < 10u) out[i] = 1;",
        "if (0 <= 10u) out[i] = 1;",
        "lo[i] = b[i] + 4294967295;",  # a decimal constant is a long
        "out[i] = a[i] < 0 ? -2147483648 : a[i];",  # -(long) that fits int
        "out[i] = a[i] > 0 ? 1L : 2L;",
        "out[i] = a[i] > 0 ? 2147483647L : -2147483648L;",
        "lo[i] = (long)a[i] * 3;",
        "lo[i] = a[i];",
        "lo[i] += a[i];",
        "uo[i] = a[i] + 1;",  # unsigned char is modelled modulo 256
        "uo[i] = b[i];",
        "int c = 2147483647L; out[i] = c;",
        "int c = -2147483648L; out[i] = c;",
        "int c = (int)2147483647L; out[i] = c;",
        "out[i] = 3000000000 - 1000000000;",
        "out[i] = 1000000000 * 2;",
        "out[i] = u[i] - 1;",  # promoted to int
        "out[i] = -u[i];",
        "out[i] = +a[i];",
        "unsigned char c = u[i]; c++; uo[i] = c;",
        "out[i] = u[i] / (int)2u;",
        # unsigned arithmetic that wraps, converted at once to a type that holds its
        # mathematical value: GCC's conversion modulo 2^n gives that value back (issue 32)
        "out[i] = (int)(u[i] - 1u);",
        "out[i] = a[i] + (int)(-1 + 0u);",
        "out[i] = a[i] + (int)(0u - 1);",
        "lo[i] = b[i] * 1ul;",
        "out[i] = u[i] / 2u;",  # [0, 127] fits int
        "out[i] = a[i] - 2147483647;",
        "out[i] = !a[i];",
        "out[i] = a[i] && b[i];",
    ],
)
def test_type_gate_accepts(body: str) -> None:
    assert gate(body) is None, body


needs_cc = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C compiler")

#: Operations the gate once refused and the exact integer model now computes (issue 34):
#: unsigned int arithmetic modulo 2^32 (C11 §6.2.5p9), conversions into unsigned int and the
#: narrow types modulo 2^n (§6.3.1.3p2), an explicit cast of unsigned int to int as GCC
#: documents it (modulo 2^32, §6.3.1.3p3), signed operands converted to unsigned int in
#: comparisons (§6.3.1.8). Each is compared with the compiled C (UBSan) on every type's
#: extremes; the scalars a body computes are stored where the comparison sees them.
GCC_MODELLED = [
    "out[i] = (a[i] - 1u) / 2;",  # [0, 2^31 - 1] fits int
    "out[i] = a[i] + (int)(0x80000000u * 2);",
    "out[i] = a[i] / 4 + (int)(7u / -1);",
    "out[i] = (int)-(3u);",
    "unsigned int c = a[i]; c *= 2; lo[i] = c;",
    "unsigned int c = 3; c += a[i]; lo[i] = c;",
    "unsigned int c = a[i]; c++; lo[i] = c;",
    "unsigned int c = a[i]; --c; lo[i] = c;",
    "unsigned int c = a[i]; lo[i] = c;",
    "if (a[i] < 10u) out[i] = 1;",
    "if (10u > a[i]) out[i] = 1;",
    "if (a[i] == 0xFFFFFFFF) out[i] = 1;",
    "if (-1 < 0u) out[i] = 1;",
    "out[i] = (int)(a[i] - 1u);",
    "out[i] = (int)(u[i] * 4294967295u);",
    "out[i] = (int)(unsigned int)a[i];",
    "short s = a[i]; out[i] = s;",
    "signed char c = a[i]; uo[i] = c; out[i] = c;",
    "out[i] = a[i] / 4 + (int)(7u % -2);",
    "out[i] = a[i] / 4 + (int)(-6 % 3u);",
    "unsigned int c = a[i]; c = c / 2u + a[i]; lo[i] = c;",
]

_EXTREMES_INT = [-(2**31), -(2**31) + 1, -2, -1, 0, 1, 2, 9, 10, 11, 2**31 - 2, 2**31 - 1]
_EXTREMES_LONG = [-(2**63), -(2**31) - 1, -1, 0, 1, 2**31, 2**32 - 1, 2**32, 2**63 - 1, 5, 7, 3]
_EXTREMES_UCHAR = [0, 1, 2, 127, 128, 254, 255, 9, 10, 11, 3, 4]


@needs_cc
@pytest.mark.parametrize("body", GCC_MODELLED)
def test_type_gate_case_is_modelled_as_gcc_computes(body: str, tmp_path: Path) -> None:
    fn = parse_c_source(_KERNEL % body, "k.c")
    n = len(_EXTREMES_INT)
    inputs = [
        {"a": np.roll(np.array(_EXTREMES_INT, dtype=np.int64), r), "b": np.roll(np.array(_EXTREMES_LONG, dtype=np.int64), r),
         "u": np.roll(np.array(_EXTREMES_UCHAR, dtype=np.int64), r), "out": np.zeros(n, dtype=np.int64),
         "lo": np.zeros(n, dtype=np.int64), "uo": np.zeros(n, dtype=np.int64), "n": n}
        for r in range(n)
    ]
    states = reference_states(fn, inputs, tmp_path, sanitize=True)
    compared = 0
    for x, state in zip(inputs, states, strict=True):
        if isinstance(state, str):
            assert UB_MESSAGE in state, state
            continue
        model = run_function(fn, {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in x.items()})
        assert model_mismatch(fn, model, state) is None, (body, x)
        compared += 1
    assert compared >= n // 2, (body, compared)


def test_unsigned_division_by_constant_zero_is_not_verified() -> None:
    # the gate types it; the divisor obligation (vc/kernel.py divisors) cannot be proved
    res = lift_parsed(parse_c_source(_KERNEL % "out[i] = a[i] + (int)(1u / 0);", "k.c"), check=False)
    assert res.status != "verified", res.summary


def test_type_gate_checks_helpers_and_returns() -> None:
    ok = "static int twice(int x) { return 2 * x; }\nvoid f(int *a, int *out, int n) { for (int i = 0; i < n; i++) out[i] = twice(a[i]); }"
    parse_c_source(ok, "k.c", "f")
    arg = "static int twice(int x) { return 2 * x; }\nvoid f(long *a, long *out, int n) { for (int i = 0; i < n; i++) out[i] = twice(a[i]); }"
    with pytest.raises(LiftError, match="argument 'x' of 'twice': conversion from 'long' to 'int'"):
        parse_c_source(arg, "k.c", "f")
    body = "static int g(int x) { return x + 1u; }\nvoid f(int *a, int *out, int n) { for (int i = 0; i < n; i++) out[i] = g(a[i]); }"
    with pytest.raises(LiftError, match="return: conversion from 'unsigned int' to 'int'"):
        parse_c_source(body, "k.c", "f")
    ret = "int f(long *a, int n) { long s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }"
    with pytest.raises(LiftError, match="return: conversion from 'long' to 'int'"):
        parse_c_source(ret, "k.c")
    parse_c_source("long f(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }", "k.c")
    cmp_ = "int f(long *a, int n) { int c = 0; for (int i = 0; i < n; i++) if (a[i] < 10ul) c++; return c; }"
    with pytest.raises(LiftError, match="comparison '<' in 'unsigned long'"):
        parse_c_source(cmp_, "k.c")


def test_cint_ranges() -> None:
    expected = {
        ct.BOOL: (0, 1), ct.SCHAR: (-128, 127), ct.UCHAR: (0, 255), ct.SHORT: (-32768, 32767),
        ct.USHORT: (0, 65535), ct.INT: (-(2**31), 2**31 - 1), ct.UINT: (0, 2**32 - 1),
        ct.LONG: (-(2**63), 2**63 - 1), ct.ULONG: (0, 2**64 - 1), ct.LLONG: (-(2**63), 2**63 - 1),
        ct.ULLONG: (0, 2**64 - 1),
    }
    for t, (lo, hi) in expected.items():
        assert (t.lo, t.hi) == (lo, hi), t
    assert ct.INT.holds(ct.SHORT) and ct.INT.holds(ct.UCHAR) and ct.INT.holds(ct.INT)
    assert not ct.INT.holds(ct.UINT) and not ct.UINT.holds(ct.INT) and not ct.INT.holds(ct.LONG)
    assert ct.LONG.holds(ct.UINT) and not ct.ULONG.holds(ct.SCHAR) and ct.UCHAR.holds(ct.BOOL)
    assert str(ct.ULONG) == "unsigned long" and str(ct.DOUBLE) == "double"
    assert str(ct.CPtr(ct.INT)) == "int *"


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["int"], ct.INT), (["signed"], ct.INT), (["signed", "int"], ct.INT), (["unsigned"], ct.UINT),
        (["unsigned", "int"], ct.UINT), (["long"], ct.LONG), (["long", "int"], ct.LONG),
        (["unsigned", "long"], ct.ULONG), (["long", "long"], ct.LLONG), (["unsigned", "long", "long"], ct.ULLONG),
        (["short"], ct.SHORT), (["unsigned", "short"], ct.USHORT), (["short", "int"], ct.SHORT),
        (["char"], ct.SCHAR), (["signed", "char"], ct.SCHAR), (["unsigned", "char"], ct.UCHAR),
        (["const", "unsigned", "char"], ct.UCHAR), (["static", "const", "int"], ct.INT),
        (["float"], ct.FLOAT), (["double"], ct.DOUBLE), (["long", "double"], ct.LDOUBLE),
        (["const", "double"], ct.DOUBLE), (["_Bool"], ct.BOOL), (["uint8_t"], ct.UCHAR),
        (["int8_t"], ct.SCHAR), (["uint32_t"], ct.UINT), (["int64_t"], ct.LONG), (["size_t"], ct.ULONG),
        (["ptrdiff_t"], ct.LONG), (["uint16_t"], ct.USHORT), (["uint64_t"], ct.ULONG),
        (["void"], None), (["struct"], None), ([], None), (["mytype"], None), (["const"], None),
    ],
)
def test_type_of_words(words: list[str], expected: object) -> None:
    assert ct.type_of_words(words) == expected


def test_plain_char_follows_the_target() -> None:
    assert ct.type_of_words(["char"], char_signed=False) == ct.UCHAR
    assert ct.type_of_words(["char"], char_signed=True) == ct.SCHAR
    assert ct.type_of_words(["signed", "char"], char_signed=False) == ct.SCHAR


def test_promote() -> None:
    for t in (ct.BOOL, ct.SCHAR, ct.UCHAR, ct.SHORT, ct.USHORT):
        assert ct.promote(t) == ct.INT
    for t in (ct.INT, ct.UINT, ct.LONG, ct.ULONG, ct.LLONG, ct.ULLONG, ct.FLOAT, ct.DOUBLE, None):
        assert ct.promote(t) == t


def test_usual_conversion_edges() -> None:
    uc = ct.usual_conversion
    assert uc(ct.INT, None) is None and uc(None, ct.INT) is None
    assert uc(ct.CPtr(ct.INT), ct.INT) is None and uc(ct.INT, ct.CPtr(ct.INT)) is None
    assert uc(ct.UCHAR, ct.UCHAR) == ct.INT and uc(ct.USHORT, ct.SHORT) == ct.INT
    assert uc(ct.INT, ct.UINT) == ct.UINT == uc(ct.UINT, ct.INT)
    assert uc(ct.LONG, ct.UINT) == ct.LONG == uc(ct.UINT, ct.LONG)
    assert uc(ct.LONG, ct.ULONG) == ct.ULONG == uc(ct.ULONG, ct.LONG)
    assert uc(ct.LLONG, ct.ULONG) == ct.ULLONG == uc(ct.ULONG, ct.LLONG)
    assert uc(ct.LONG, ct.LLONG) == ct.LLONG == uc(ct.LLONG, ct.LONG)
    assert uc(ct.ULONG, ct.UINT) == ct.ULONG == uc(ct.UINT, ct.ULONG)
    assert uc(ct.FLOAT, ct.LONG) == ct.FLOAT and uc(ct.DOUBLE, ct.FLOAT) == ct.DOUBLE
    assert uc(ct.LDOUBLE, ct.DOUBLE) == ct.LDOUBLE == uc(ct.FLOAT, ct.LDOUBLE)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", (ct.INT, 0)), ("7", (ct.INT, 7)), ("2147483647", (ct.INT, 2**31 - 1)),
        ("2147483648", (ct.LONG, 2**31)), ("9223372036854775807", (ct.LONG, 2**63 - 1)),
        ("9223372036854775808", None), ("0x7FFFFFFF", (ct.INT, 2**31 - 1)),
        ("0x80000000", (ct.UINT, 2**31)), ("0xFFFFFFFF", (ct.UINT, 2**32 - 1)),
        ("0x100000000", (ct.LONG, 2**32)), ("0x8000000000000000", (ct.ULONG, 2**63)),
        ("0xFFFFFFFFFFFFFFFF", (ct.ULONG, 2**64 - 1)), ("0x10000000000000000", None),
        ("017", (ct.INT, 15)), ("020000000000", (ct.UINT, 2**31)), ("00", (ct.INT, 0)),
        ("0b101", (ct.INT, 5)), ("0B11", (ct.INT, 3)),
        ("1u", (ct.UINT, 1)), ("1U", (ct.UINT, 1)), ("4294967296u", (ct.ULONG, 2**32)),
        ("1l", (ct.LONG, 1)), ("1L", (ct.LONG, 1)), ("1ul", (ct.ULONG, 1)), ("1LU", (ct.ULONG, 1)),
        ("1ll", (ct.LLONG, 1)), ("1LL", (ct.LLONG, 1)), ("1ull", (ct.ULLONG, 1)), ("1llu", (ct.ULLONG, 1)),
        ("0x1l", (ct.LONG, 1)), ("0x8000000000000000l", (ct.ULONG, 2**63)),
        ("0x1ll", (ct.LLONG, 1)), ("0x8000000000000000ll", (ct.ULLONG, 2**63)),
        ("9223372036854775808u", (ct.ULONG, 2**63)), ("18446744073709551616u", None),
        ("0xABCDEFu", (ct.UINT, 0xABCDEF)),
    ],
)
def test_literal_type(text: str, expected: object) -> None:
    assert ct.literal_type(text) == expected


# found by the mutation run: C divides a negative operand converted to the unsigned common
# type ((int)(7u % -2) is 7, not 1; (int)(-6 % 3u) is 1, not 0): once refused, now computed as
# gcc does (GCC_MODELLED, compared with the compiled C)


def test_too_large_literal_is_refused() -> None:
    message = gate("lo[i] = 18446744073709551616;")
    assert message is not None and "too large to be represented in any integer type" in message  # clang's


def test_constant_types() -> None:
    # float / double / long double / char constants (expr on c_ast.Constant)
    assert gate("lo[i] = b[i] + (long)1.5;") is None
    src = "double f(double *x, int n) { double s = 0; for (int i = 0; i < n; i++) s += x[i] * 2.0f + 1.0; return s; }"
    parse_c_source(src, "k.c")


# ================================================================ tenspiler/vc/kernel.py: divisors


_a, _b, _c, _d = (Var(n, INT) for n in "abcd")
_one = Const(1, INT)


def _div(op: str, x: object, y: object, dtype: DType = INT) -> Binary:
    return Binary(op, x, y, dtype)  # type: ignore[arg-type]


@pytest.mark.parametrize("op", ["/", "%", "//", "mod"])
def test_divisors_of_every_integer_division(op: str) -> None:
    assert divisors(_div(op, _a, _b)) == [((), _b)]
    assert divisors(_div(op, _a, _b, DOUBLE)) == []


def test_divisors_not_other_operators() -> None:
    assert divisors(_div("+", _a, _b)) == [] and divisors(_div("*", _a, _b)) == []
    assert divisors(_a) == [] and divisors(_one) == []


def test_divisors_nested_operands_in_order() -> None:
    # left operand first, then right, then the division itself
    e = _div("/", _div("%", _a, _b), _div("/", _c, _d))
    assert divisors(e) == [((), _b), ((), _d), ((), _div("/", _c, _d))]


def test_divisors_under_unary_cast_call_load() -> None:
    inner = _div("/", _a, _b)
    assert divisors(Unary("-", inner, INT)) == [((), _b)]
    assert divisors(Cast(inner, DOUBLE)) == [((), _b)]
    assert divisors(Call("exp", Cast(inner, DOUBLE), DOUBLE)) == [((), _b)]
    assert divisors(Load("x", inner, INT)) == [((), _b)]


def test_divisors_under_select_carry_the_guard() -> None:
    c = Compare("<", _a, _c)
    e = Select(c, _div("/", _a, _b), _div("%", _a, _d), INT)
    assert divisors(e) == [((c,), _b), ((Not(c),), _d)]
    # the condition's own divisions are unguarded; an outer guard is kept
    g = Compare("!=", _d, _one)
    cd = Compare("==", _div("/", _a, _d), _one)
    e2 = Select(cd, _a, _div("/", _c, _b), INT)
    assert divisors(e2, (g,)) == [((g,), _d), ((g, Not(cd)), _b)]


def test_cond_divisors_short_circuit() -> None:
    lhs = Compare("!=", _b, Const(0, INT))
    r = Compare("==", _div("%", _a, _b), Const(0, INT))
    assert cond_divisors(Logical("&&", lhs, r)) == [((lhs,), _b)]
    assert cond_divisors(Logical("||", lhs, r)) == [((Not(lhs),), _b)]
    assert cond_divisors(Not(Logical("&&", lhs, r))) == [((lhs,), _b)]
    left = Compare("<", _div("/", _a, _c), _div("/", _a, _d))
    assert cond_divisors(Logical("&&", left, r)) == [((), _c), ((), _d), ((left,), _b)]
    g = Compare(">", _a, _one)
    assert cond_divisors(Logical("||", lhs, r), (g,)) == [((g, Not(lhs)), _b)]
    assert cond_divisors(left, (g,)) == [((g,), _c), ((g,), _d)]
    with pytest.raises(AssertionError):
        cond_divisors(_a)  # type: ignore[arg-type]


# ---------------------------------------------------------------- TypeGate.expr: C11 §6.5 types


_DECLS = (
    "int *a; long *b; unsigned char *u; unsigned int w; unsigned long z; int x; long y; "
    "double d; float f; unsigned char **pp; short s; char c;"
)


def typeof(expr: str) -> object:
    """The type the gate gives ``expr`` with the variables of ``_DECLS`` in scope."""
    ast = c_parser.CParser().parse(f"void g(void) {{ {_DECLS} ({expr}); }}", "k.c")
    *decls, e = ast.ext[0].body.block_items
    tg = ct.TypeGate("k.c", lambda n: n, lambda n: None, lambda n: None, {})
    tg.scopes = [{}]
    for d in decls:
        tg.stmt(d)
    t = tg.expr(e)
    tg.flush()  # the end of the full expression: an unsigned operation that may wrap is refused
    return t


_PINT = ct.CPtr(ct.INT)


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("x", ct.INT), ("y", ct.LONG), ("w", ct.UINT), ("s", ct.SHORT), ("a", _PINT), ("q", None),
        ("a[0]", ct.INT), ("b[x]", ct.LONG), ("u[0]", ct.UCHAR), ("pp[0][1]", ct.UCHAR),
        ("*a", ct.INT), ("*pp", ct.CPtr(ct.UCHAR)), ("*x", None), ("&x", _PINT), ("&a[0]", _PINT),
        ("!y", ct.INT), ("!d", ct.INT), ("-u[0]", ct.INT), ("+s", ct.INT), ("+w", ct.UINT), ("-y", ct.LONG),
        ("x++", ct.INT), ("--y", ct.LONG), ("u[0]++", ct.UCHAR), ("d++", ct.DOUBLE), ("sizeof(x)", None),
        ("a + 1", _PINT), ("1 + a", _PINT), ("a - 1", _PINT), ("a + x", _PINT), ("a - a", None),
        ("a < a", ct.INT), ("a == a", ct.INT), ("a * 1", None),
        ("x && y", ct.INT), ("x || d", ct.INT), ("x < y", ct.INT), ("d >= x", ct.INT), ("x != u[0]", ct.INT),
        ("x & y", ct.LONG), ("x << 1", ct.INT),
        # unsigned int arithmetic and comparisons, modelled modulo 2^32 (issue 34)
        ("w + 1", ct.UINT), ("w * w", ct.UINT), ("-w", ct.UINT), ("w++", ct.UINT), ("++w", ct.UINT),
        ("w -= 1", ct.UINT), ("x / w", ct.UINT), ("w % x", ct.UINT), ("(x + 1u) * 2", ct.UINT),
        ("x < w", ct.INT), ("w >= x", ct.INT), ("w = x", ct.UINT), ("s = x", ct.SHORT), ("c = 200", ct.SCHAR),
        ("x ? w : x", ct.UINT), ("x ? x : w", ct.UINT),
        ("x + y", ct.LONG), ("u[0] * u[0]", ct.INT), ("s - s", ct.INT), ("x / y", ct.LONG), ("y % x", ct.LONG),
        ("d * x", ct.DOUBLE), ("f * x", ct.FLOAT), ("f * d", ct.DOUBLE), ("w / 2u", ct.UINT), ("z % 3", ct.ULONG),
        ("x ? y : x", ct.LONG), ("x ? a : 0", _PINT), ("x ? 0 : a", _PINT), ("x ? f : d", ct.DOUBLE),
        ("(long)x", ct.LONG), ("(unsigned char)y", ct.UCHAR), ("(double)x", ct.DOUBLE), ("(int *)a", _PINT),
        ("y = x", ct.LONG), ("y += x", ct.LONG), ("u[0] = x", ct.UCHAR), ("d = x", ct.DOUBLE), ("x <<= 1", ct.INT),
        ("1.0f", ct.FLOAT), ("1.0", ct.DOUBLE), ("'c'", ct.INT),
        ("\"s\"", None), ("7", ct.INT), ("7u", ct.UINT), ("7ul", ct.ULONG), ("2147483648", ct.LONG),
        ("exp(d)", ct.DOUBLE), ("sqrt(x)", ct.DOUBLE), ("fabs(d)", ct.DOUBLE), ("tanh(d)", ct.DOUBLE), ("log(d)", ct.DOUBLE),
        ("expf(f)", ct.FLOAT), ("sqrtf(f)", ct.FLOAT), ("logf(f)", ct.FLOAT), ("fabsf(f)", ct.FLOAT), ("tanhf(f)", ct.FLOAT),
        ("foo(x)", None), ("x, y", ct.LONG), ("y, x", ct.INT),
    ],
)
def test_type_gate_expression_types(expr: str, expected: object) -> None:
    assert typeof(expr) == expected


@pytest.mark.parametrize(
    ("expr", "rule"),
    [
        ("--z", "'--' on 'unsigned long'"), ("z - 1", "unsigned arithmetic '-'"), ("z * z", "unsigned arithmetic '*'"),
        ("x < z", "comparison '<' in 'unsigned long'"),
        ("x = y", "assignment: conversion from 'long' to 'int'"),
        ("(int)y", "cast: conversion from 'long' to 'int'"), ("x += y", "compound assignment '+='"),
        ("x = w", "conversion from 'unsigned int' to 'int'"),
        ("x = x ? y : 0", "conversion from 'long' to 'int'"),
    ],
)
def test_type_gate_expression_refusals(expr: str, rule: str) -> None:
    with pytest.raises(LiftError) as info:
        typeof(expr)
    assert rule in info.value.message
    assert info.value.loc is not None and info.value.loc.file == "k.c" and info.value.loc.line == 1


@pytest.mark.parametrize(
    "expr",
    [
        "w / 2u", "w % 7", "u[0] / w", "w < 10u", "u[0] < w", "w == z", "w < 3", "z > 0", "x = 1", "x = 2147483647L",
        "x = -2147483648L", "x = (int)5u", "x = x ? 1L : 2L", "y = w", "y = x", "u[0] = y",
        "x = 1u + 2", "x = 3u * 5u", "x = 9u / 2", "x = 9u % 2", "x = 5u - 5", "x = -(5)", "x = +5",
        "x = (long)7", "x = (unsigned char)300", "d = w", "x = d", "x = 'c'",
    ],
)
def test_type_gate_expression_accepted(expr: str) -> None:
    typeof(expr)


def test_divisors_keep_an_outer_guard_everywhere() -> None:
    # a dropped guard would *assume* a divisor non-zero where C never divides by it
    g = Compare("!=", _c, _one)
    ab, cd = _div("/", _a, _b), _div("%", _c, _d)
    assert divisors(_div("+", ab, cd), (g,)) == [((g,), _b), ((g,), _d)]
    assert divisors(Load("x", ab, INT), (g,)) == [((g,), _b)]
    assert divisors(Unary("-", ab, INT), (g,)) == [((g,), _b)]
    assert divisors(Cast(ab, DOUBLE), (g,)) == [((g,), _b)]
    lhs = Compare("<", ab, _one)
    rhs = Compare("<", cd, _one)
    assert cond_divisors(Logical("&&", lhs, rhs), (g,)) == [((g,), _b), ((g, lhs), _d)]
    assert cond_divisors(Logical("||", lhs, rhs), (g,)) == [((g,), _b), ((g, Not(lhs)), _d)]
    assert cond_divisors(Not(lhs), (g,)) == [((g,), _b)]


@pytest.mark.parametrize(
    "expr",
    [
        "7 / w", "7 % w", "w /= 2", "w %= 3", "x = (int)+5u", "x = +(-2147483647 - 1) + 0L",
        "x = (int)(4294967295u / 2)", "y = (long)(9223372036854775807ul / 1)", "x = (int)(7u / 1)",
        "y = 4294967294u + 1", "x = (int)(5u - (unsigned int)1)", "w / +2147483647",
    ],
)
def test_type_gate_constant_folding_accepts(expr: str) -> None:
    typeof(expr)


@pytest.mark.parametrize(
    ("expr", "rule"),
    [
        ("++z", "'++' on 'unsigned long'"),
        ("x = -y", "assignment: conversion from 'long' to 'int'"),
        ("x = y ? z : y", "'?:' branch: conversion from 'long' to 'unsigned long'"),
    ],
)
def test_type_gate_more_refusals(expr: str, rule: str) -> None:
    with pytest.raises(LiftError) as info:
        typeof(expr)
    assert rule in info.value.message


def test_type_gate_helper_return_type_and_no_parameters() -> None:
    narrowing = (
        "static long g(long v) { return v; }\n"
        "void f(long *b, int *out, int n) { for (int i = 0; i < n; i++) out[i] = g(b[i]); }"
    )
    with pytest.raises(LiftError, match="conversion from 'long' to 'int'"):
        parse_c_source(narrowing, "k.c", "f")
    no_params = (
        "static int one() { return 1; }\n"
        "void f(int *a, int *out, int n) { for (int i = 0; i < n; i++) out[i] = a[i] + one(); }"
    )
    parse_c_source(no_params, "k.c", "f")


def test_np_call_computes_in_float64() -> None:
    assert np.asarray(np_call("fabs", np.array([-3]))).dtype == np.float64
    assert np.asarray(np_call("exp", np.array([1.0], dtype=np.float32))).dtype == np.float64


# Statement and declaration forms the typing gate must descend into (mutants of
# TypeGate.stmt / decl_type / type_of_words that skip one of them survived the first run).
_NARROW = "conversion from 'long' to 'int'"


@pytest.mark.parametrize(
    "src",
    [
        # for-init, if/else branches, nested blocks
        "void f(long *a, int *out, int n) { for (int k = a[0]; k < n; k++) out[k] = 0; }",
        "void f(long *a, int *out, int n) { for (int i = 0; i < n; i++) { if (i > 1) out[i] = a[i]; } }",
        "void f(long *a, int *out, int n) { for (int i = 0; i < n; i++) { if (i > 1) out[i] = 0; else out[i] = a[i]; } }",
        "void f(long *a, int *out, int n) { for (int i = 0; i < n; i++) { { { out[i] = a[i]; } } } }",
        # qualifiers do not hide a type
        "void f(const long *restrict a, int *out, int n) { for (int i = 0; i < n; i++) out[i] = a[i]; }",
        "void f(long *a, int *out, int n) { for (int i = 0; i < n; i++) { volatile int t = a[i]; out[i] = t; } }",
        # a struct parameter's field
        "typedef struct s { long v; } s;\nvoid f(s p, int *out, int n) { for (int i = 0; i < n; i++) out[i] = p.v; }",
        # a helper's own body
        "static int g(long x) { int y = x; return y; }\nvoid f(long *a, int *out, int n) { for (int i = 0; i < n; i++) out[i] = g(a[i]); }",
    ],
)
def test_narrowing_is_found_in_every_statement_form(src: str) -> None:
    with pytest.raises(LiftError, match=_NARROW):
        parse_c_source(src, "k.c")
