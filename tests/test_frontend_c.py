"""Tests of the C frontend (tenspiler.frontend.c)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tenspiler.bench.corpora import HOW_TO_GET, corpus_dir
from tenspiler.errors import LiftError, SourceLoc
from tenspiler.frontend.c import parse_c_file, parse_c_source
from tenspiler.loops.ir import (
    Assign,
    Binary,
    Cast,
    Compare,
    Const,
    DType,
    For,
    Load,
    Logical,
    Not,
    PointerType,
    Return,
    ScalarType,
    Select,
    Store,
    Unary,
    Var,
)

CORPUS = corpus_dir("c2taco")

#: Corpus kernels outside the accepted subset, with the expected refusal.
REFUSED: dict[str, str] = {}
#: Corpus files whose kernel is not named like the file.
KERNEL_NAMES = {"darknet/scale_matrix.c": "scale_matrix_int"}
LOCATED = re.compile(r"^(?P<file>.+):(?P<line>\d+):(?P<col>\d+): (?P<msg>.+)$")
#: The kernel the statement refusal tables complete with ``body }``.
KERNEL = "void f(int *a, int n) { "


def corpus(rel: str) -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"the C2TACO corpus is not at {CORPUS}: {HOW_TO_GET}")
    return CORPUS / rel


def corpus_files() -> list[str]:
    if not CORPUS.is_dir():
        return ["<the C2TACO corpus>"]  # one case, which skips saying how to get the corpus
    return sorted(str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*.c"))


def i(v: int) -> Const:
    return Const(v, DType.INT)


def iv(name: str) -> Var:
    return Var(name, DType.INT)


def ld(array: str, index: object, dtype: DType = DType.INT) -> Load:
    return Load(array, index, dtype)  # type: ignore[arg-type]


def add(a: object, b: object, dtype: DType = DType.INT) -> Binary:
    return Binary("+", a, b, dtype)  # type: ignore[arg-type]


def mul(a: object, b: object, dtype: DType = DType.INT) -> Binary:
    return Binary("*", a, b, dtype)  # type: ignore[arg-type]


def refused(src: str, function: str | None = None) -> LiftError:
    with pytest.raises(LiftError) as info:
        parse_c_source(src, "k.c", function)
    err = info.value
    assert err.loc is not None, str(err)
    assert LOCATED.match(str(err)), str(err)
    return err


# ---------------------------------------------------------------- corpus structure


def test_vadd_structure() -> None:
    fn = parse_c_file(corpus("dsp/vadd.c"))
    assert fn.name == "vadd"
    assert [(p.name, p.type) for p in fn.params] == [
        ("a", PointerType(DType.INT)),
        ("b", PointerType(DType.INT)),
        ("c", PointerType(DType.INT)),
        ("n", ScalarType(DType.INT)),
    ]
    assert fn.return_dtype is None
    assert fn.locals == (("i", DType.INT),)
    assert fn.body == (
        For("i", i(0), iv("n"), (Store("c", iv("i"), add(ld("a", iv("i")), ld("b", iv("i")))),)),
    )
    loop = fn.body[0]
    assert loop.loc == SourceLoc(str(corpus("dsp/vadd.c")), 3, 3)
    assert fn.loc is not None and fn.loc.line == 1
    assert "c[i] = a[i] + b[i]" in fn.source


def test_dot_structure() -> None:
    fn = parse_c_file(corpus("blas/dot.c"))
    assert fn.return_dtype == DType.INT
    assert fn.locals == (("sum", DType.INT), ("i", DType.INT))
    assert fn.body == (
        Assign("sum", i(0)),
        For(
            "i",
            i(0),
            iv("n"),
            (Assign("sum", add(iv("sum"), mul(ld("a", iv("i")), ld("b", iv("i"))))),),
        ),
        Return(iv("sum")),
    )


def test_gemv_nested_loops() -> None:
    fn = parse_c_file(corpus("blas/gemv.c"))
    assert fn.locals == (("i", DType.INT), ("sum", DType.INT), ("j", DType.INT))
    (outer,) = fn.body
    assert isinstance(outer, For) and outer.stop == iv("M")
    init, inner, store = outer.body
    assert init == Assign("sum", i(0))
    assert isinstance(inner, For) and inner.var == "j" and inner.stop == iv("N")
    index = add(iv("j"), mul(iv("i"), iv("N")))
    assert inner.body == (Assign("sum", add(iv("sum"), mul(ld("A", index), ld("x", iv("j"))))),)
    assert store == Store("y", iv("i"), iv("sum"))


def test_lmsfir2_stop_expression() -> None:
    fn = parse_c_file(corpus("utdsp/lmsfir2.c"))
    (loop,) = fn.body
    assert isinstance(loop, For)
    assert loop.stop == Binary("-", iv("NTAPS"), i(1), DType.INT)
    assert loop.body == (
        Store(
            "coefficient",
            iv("i"),
            add(ld("coefficient", iv("i")), mul(ld("input", iv("i")), iv("error"))),
        ),
    )


def test_compound_assign_on_array_and_declared_counter() -> None:
    fn = parse_c_file(corpus("darknet/scale_array.c"))
    assert fn.locals == (("i", DType.INT),)
    (loop,) = fn.body
    assert loop == For("i", i(0), iv("n"), (Store("a", iv("i"), mul(ld("a", iv("i")), iv("s"))),))


def test_vneg_and_vrecip() -> None:
    (loop,) = parse_c_file(corpus("dsp/vneg.c")).body
    assert isinstance(loop, For)
    assert loop.body == (Store("arr", iv("i"), Unary("-", ld("arr", iv("i")), DType.INT)),)
    (loop,) = parse_c_file(corpus("dsp/vrecip.c")).body
    assert isinstance(loop, For)
    assert loop.body == (Store("arr", iv("i"), Binary("/", i(1), ld("arr", iv("i")), DType.INT)),)


@pytest.mark.parametrize("rel", corpus_files())
def test_every_corpus_file(rel: str) -> None:
    path = corpus(rel)
    if rel in REFUSED:
        with pytest.raises(LiftError) as info:
            parse_c_file(path)
        m = LOCATED.match(str(info.value))
        assert m is not None, str(info.value)
        assert m["file"] == str(path)
        assert m["msg"] == REFUSED[rel]
        assert info.value.loc is not None and info.value.loc.line > 1
    else:
        fn = parse_c_file(path)
        assert fn.name == KERNEL_NAMES.get(rel, path.stem)
        assert any(isinstance(s, For) for s in fn.body)
        assert all(d == DType.INT for _, d in fn.locals)


def test_n_real_updates_pointer_walking() -> None:
    fn = parse_c_file(corpus("dspstone/n_real_updates.c"))
    names = ("p_a", "p_b", "p_c", "p_d")
    assert fn.locals == (*((n, DType.INT) for n in names), ("i", DType.INT))
    assert fn.body[:4] == tuple(Assign(n, i(0)) for n in names)
    loop = fn.body[4]
    assert isinstance(loop, For) and loop.stop == iv("N")
    value = add(ld("C", iv("p_c")), mul(ld("A", iv("p_a")), ld("B", iv("p_b"))))
    # post-increments follow the statement, in source order
    assert loop.body == (
        Store("D", iv("p_d"), value),
        *(Assign(n, add(iv(n), i(1))) for n in ("p_d", "p_c", "p_a", "p_b")),
    )
    assert loop.body[0].loc == SourceLoc(str(corpus("dspstone/n_real_updates.c")), 8, 6)


def test_mat1x3_pointer_walking() -> None:
    fn = parse_c_file(corpus("dspstone/mat1x3.c"))
    assert [n for n, _ in fn.locals] == ["p_x", "p_h", "p_y", "f", "i"]
    assert fn.body[:2] == (Assign("p_h", i(0)), Assign("p_y", i(0)))
    outer = fn.body[2]
    assert isinstance(outer, For) and outer.var == "i"
    zero, reset, inner, step = outer.body
    assert zero == Store("y", iv("p_y"), i(0))
    assert reset == Assign("p_x", i(0))
    assert step == Assign("p_y", add(iv("p_y"), i(1)))
    assert isinstance(inner, For) and inner.var == "f"
    acc = add(ld("y", iv("p_y")), mul(ld("h", iv("p_h")), ld("x", iv("p_x"))))
    assert inner.body == (
        Store("y", iv("p_y"), acc),
        Assign("p_h", add(iv("p_h"), i(1))),
        Assign("p_x", add(iv("p_x"), i(1))),
    )


def test_corpus_listing_is_complete() -> None:
    corpus("")  # skips, saying how to get it, without the corpus
    files = corpus_files()
    assert set(REFUSED) <= set(files)
    assert len(files) - len(REFUSED) >= 40


# ---------------------------------------------------------------- preprocessing, choice


def test_directives_and_comments_keep_locations() -> None:
    src = (
        "#include <stdint.h>\n"
        "#pragma once\n"
        "/* a comment\n"
        "   over lines */ #define N 4\n"
        "// uint8_t kernel\n"
        "void f(uint8_t *a, int64_t n) { // trailing\n"
        "  for (int32_t i = 0; i < n; i++) a[i] = 1; /* x */\n"
        "}\n"
    )
    fn = parse_c_source(src, "k.c")
    assert fn.params[0].type == PointerType(DType.UINT8)
    assert fn.params[1].type == ScalarType(DType.INT)
    (loop,) = fn.body
    assert loop.loc == SourceLoc("k.c", 7, 3)
    assert isinstance(loop, For)
    assert loop.body == (Store("a", iv("i"), Const(1, DType.UINT8)),)


def test_default_function_is_last_non_static() -> None:
    src = (
        "int first(int x) { return x; }\n"
        "int second(int x) { return x + 1; }\n"
        "static int helper(int x) { return x * 2; }\n"
    )
    assert parse_c_source(src).name == "second"
    assert parse_c_source(src, function="helper").name == "helper"
    assert parse_c_source(src, function="first").name == "first"


def test_missing_function_lists_defined_names() -> None:
    err = refused("int a(int x) { return x; }\nint b(int x) { return x; }\n", "zz")
    assert err.message == "function 'zz' is not defined in k.c; defined: a, b"
    assert err.loc == SourceLoc("k.c", 1, 1)


def test_prototypes_are_not_definitions() -> None:
    src = "int g(int x);\nint f(int x) { return x; }\n"
    assert parse_c_source(src).name == "f"
    err = refused("int f(int x) { return g(x); }\nint g(int x);\n", "f")
    assert err.message == "call to 'g' is not supported"


# ---------------------------------------------------------------- loops


def test_le_condition_is_normalised() -> None:
    fn = parse_c_source("void f(int *a, int n) { for (int i = 1; i <= n; ++i) a[i] = 0; }")
    (loop,) = fn.body
    assert isinstance(loop, For)
    assert loop.start == i(1)
    assert loop.stop == add(iv("n"), i(1))


@pytest.mark.parametrize(
    ("cond", "step", "stop"),
    [
        ("n > i", "i += 1", iv("n")),
        ("n >= i", "i = i + 1", add(iv("n"), i(1))),
        ("i < n - 1", "i = 1 + i", Binary("-", iv("n"), i(1), DType.INT)),
    ],
)
def test_loop_forms(cond: str, step: str, stop: object) -> None:
    src = f"void f(int *a, int n) {{ int i; for (i = 0; {cond}; {step}) {{ a[i] = i; }} }}"
    (loop,) = parse_c_source(src).body
    assert isinstance(loop, For)
    assert loop.stop == stop
    assert loop.body == (Store("a", iv("i"), iv("i")),)


#: Loop forms outside the subset: (source, message).
LOOP_REFUSALS: list[tuple[str, str]] = [
    (
        "void f(int *a, int n) { for (int i = 1; i < n; i *= 2) a[i] = 0; }",
        "loop step 'i *= 2' is not supported (only i++, i += c and i = i + c for a constant c >= 1, and i--, --i, "
        "i -= 1, i = i - 1)",
    ),
    (
        "void f(int *a, int n) { for (int i = 0; i < n; i--) a[i] = 0; }",
        "loop condition 'i < n' of a descending loop is not supported (only i >= E, i > E, E <= i, E < i)",
    ),
    (
        "void f(int *a, int n) { for (int i = 0; i > n; i++) a[i] = 0; }",
        "loop condition 'i > n' is not supported (only i < E, i <= E, E > i, E >= i)",
    ),
    (
        "void f(int *a, int n) { for (int i = 0; i < n; i++) { a[i] = 0; i = i + 1; } }",
        "loop counter 'i' is assigned in the loop body",
    ),
    (
        "void f(int *a, int n) { for (int i = 0; i < n; i++) { n = n - 1; a[i] = 0; } }",
        "loop bound reads 'n', which the loop body writes",
    ),
    (
        "void f(int *a, int n) { for (int i = 0; i < a[0]; i++) { a[i] = 0; } }",
        "loop bound reads 'a', which the loop body writes",
    ),
    (  # also inside a math call
        "void f(float *a, int n) { for (int i = 0; i < (int)sqrtf((float)n); i++) { n = n - 1; a[i] = 0; } }",
        "loop bound reads 'n', which the loop body writes",
    ),
    (
        "void f(int *a, int n) { for (int i = 0; i < n - i; i++) { a[i] = 0; } }",
        "loop bound reads the loop counter 'i'",
    ),
    (
        "void f(int *a, int n) { int i = 0; for (; i < n; i += 2) a[i] = 0; }",
        "for loop without an initialiser is not supported: no variable is compared with a bound and stepped by 1 "
        "once per iteration (a counted loop steps one integer variable by 1 once per iteration and compares it "
        "with a bound the loop does not change)",
    ),
    (
        "void f(int *a, int n) { for (int i = 0; ; i++) a[i] = 0; }",
        "for loop without a condition is not supported",
    ),
    (
        "void f(int *a, int n) { for (int i = 0; i < n;) a[i] = 0; }",
        "for loop without a step is not supported",
    ),
    (
        "void f(int *a, int n) { for (n = 0; n < 3; n++) a[n] = 0; }",
        "loop counter 'n' must be a local int variable",
    ),
    (
        "void f(float *a, int n) { for (float x = 0; x < n; x++) a[0] = x; }",
        "loop counter 'x' must have type int",
    ),
    (
        "void f(int *a, float n) { for (int i = 0; i < n; i++) a[i] = 0; }",
        "loop bound must be an integer expression",
    ),
]


def test_counter_readable_after_loop() -> None:
    fn = parse_c_source("int f(int n) { int i; for (i = 0; i < n; i++) ; return i; }")
    assert fn.body[-1] == Return(iv("i"))


def test_sibling_loops_reuse_counter_name() -> None:
    src = (
        "void f(int *a, int n) {\n"
        "  for (int i = 0; i < n; i++) a[i] = 0;\n"
        "  for (int i = 0; i < n; i++) a[i] += 1;\n"
        "}\n"
    )
    fn = parse_c_source(src)
    assert fn.locals == (("i", DType.INT),)
    assert [type(s) for s in fn.body] == [For, For]


# ---------------------------------------------------------------- statements, types


def test_compound_assignments_desugar() -> None:
    src = (
        "int f(int *a, int x) {\n"
        "  int s = 0;\n"
        "  s += x; s -= 2; s *= x; s /= 3; s %= 5;\n"
        "  s++; --s;\n"
        "  a[x] -= s; a[0]++;\n"
        "  return s;\n"
        "}\n"
    )
    fn = parse_c_source(src)
    s = iv("s")
    assert fn.body == (
        Assign("s", i(0)),
        Assign("s", add(s, iv("x"))),
        Assign("s", Binary("-", s, i(2), DType.INT)),
        Assign("s", mul(s, iv("x"))),
        Assign("s", Binary("/", s, i(3), DType.INT)),
        Assign("s", Binary("%", s, i(5), DType.INT)),
        Assign("s", add(s, i(1))),
        Assign("s", Binary("-", s, i(1), DType.INT)),
        Store("a", iv("x"), Binary("-", ld("a", iv("x")), s, DType.INT)),
        Store("a", i(0), add(ld("a", i(0)), i(1))),
        Return(s),
    )


def test_uint8_store_gets_cast_and_promotion() -> None:
    src = "void f(unsigned char *a, uint8_t *b, int n) { for (int i = 0; i < n; i++) a[i] = b[i] + 100; }"
    (loop,) = parse_c_source(src).body
    assert isinstance(loop, For)
    b_i = Cast(ld("b", iv("i"), DType.UINT8), DType.INT)
    assert loop.body == (Store("a", iv("i"), Cast(add(b_i, i(100)), DType.UINT8)),)


def test_compound_assign_on_uint8_converts_back() -> None:
    (st,) = parse_c_source("void f(uint8_t *a) { a[0] *= 3; }").body
    a0 = Cast(ld("a", i(0), DType.UINT8), DType.INT)
    assert st == Store("a", i(0), Cast(mul(a0, i(3)), DType.UINT8))


def test_usual_arithmetic_conversions() -> None:
    src = "double f(float x, int k, double d) { float y = x * k + 1.5f; return y + d * 2; }"
    fn = parse_c_source(src)
    f, dd = DType.FLOAT, DType.DOUBLE
    x, k, d = Var("x", f), iv("k"), Var("d", dd)
    y_value = add(mul(x, Cast(k, f), f), Const(1.5, f), f)
    assert fn.body == (
        Assign("y", y_value),
        Return(add(Cast(Var("y", f), dd), mul(d, Const(2.0, dd), dd), dd)),
    )
    assert fn.locals == (("y", f),)


def test_literals_and_casts() -> None:
    src = "int f(float x) { int a = 0x10 + 010 + 3u; double z = 1e1; return (int)x + a + (int)z; }"
    fn = parse_c_source(src)
    # + 3u is computed in unsigned int; its operands and result lie in [0, 2^32), so
    # nothing is reduced modulo 2^32
    assert fn.body[0] == Assign("a", add(add(i(16), i(8)), i(3)))
    assert fn.body[1] == Assign("z", Const(10.0, DType.DOUBLE))
    ret = fn.body[2]
    assert ret == Return(
        add(
            add(Cast(Var("x", DType.FLOAT), DType.INT), iv("a")),
            Cast(Var("z", DType.DOUBLE), DType.INT),
        )
    )


def test_literal_conversion_is_folded() -> None:
    fn = parse_c_source("float f(void) { float s = 0; unsigned char c = 300; return s + c; }")
    assert fn.body[0] == Assign("s", Const(0.0, DType.FLOAT))
    assert fn.body[1] == Assign("c", Const(44, DType.UINT8))
    assert fn.params == ()


def test_uint8_index_is_cast_to_int() -> None:
    (ret,) = parse_c_source("int f(int *a, uint8_t k) { return a[k]; }").body
    assert ret == Return(ld("a", Cast(Var("k", DType.UINT8), DType.INT)))


def test_const_restrict_and_array_params() -> None:
    fn = parse_c_source("void f(const int a[], float *restrict b, const int n, long m) {}")
    assert [p.type for p in fn.params] == [
        PointerType(DType.INT),
        PointerType(DType.FLOAT),
        ScalarType(DType.INT),
        ScalarType(DType.INT),
    ]
    assert fn.body == ()


@pytest.mark.parametrize("ty", ["size_t", "unsigned long"])
def test_wrapping_or_narrow_integer_types_are_refused(ty: str) -> None:
    # unsigned data wraps; modelling its elements as mathematical integers would be unsound
    err = refused(f"void f({ty} *a, int n) {{}}\n")
    assert "is not supported" in err.message and err.loc is not None


@pytest.mark.parametrize(("ty", "spelled"), [("unsigned", "unsigned int"), ("unsigned int", "unsigned int"),
                                             ("uint32_t", "unsigned int"), ("size_t", "unsigned long"),
                                             ("unsigned long", "unsigned long")])
def test_unsigned_scalar_params_are_ints_called_with_their_c_type(ty: str, spelled: str) -> None:
    # a count or size: the type gate refuses every operation whose unsigned value differs
    fn = parse_c_source(f"void f(int *a, {ty} n) {{}}\n")
    assert fn.params[1].type == ScalarType(DType.INT) and fn.params[1].c_type == spelled
    err = refused(f"void f(int *a, {ty} n) {{ a[0] = n - 1; }}\n")
    assert "unsigned" in err.message and "not supported" in err.message


@pytest.mark.parametrize("ty", ["size_t", "unsigned long", "uint64_t"])
def test_wrapping_64_bit_unsigned_types_are_refused(ty: str) -> None:
    # unsigned long arithmetic wraps modulo 2^64, beyond the int64 generated code computes in
    err = refused(f"void f(int *a, {ty} *n) {{}}\n")
    assert "is not supported" in err.message and err.loc is not None


@pytest.mark.parametrize(("ty", "dtype"), [
    ("unsigned", DType.UINT32), ("unsigned int", DType.UINT32), ("uint32_t", DType.UINT32),
    ("short", DType.INT16), ("int16_t", DType.INT16), ("unsigned short", DType.UINT16),
    ("uint16_t", DType.UINT16), ("signed char", DType.INT8), ("int8_t", DType.INT8),
])
def test_narrow_and_unsigned_int_types_are_ranged(ty: str, dtype: DType) -> None:
    # modelled exactly: values in the type's range, conversions into it wrap modulo 2^n
    # (an unsigned int scalar is an INT holding its value, whose operations the gate types)
    fn = parse_c_source(f"void f(int *a, {ty} n, {ty} *b) {{}}\n")
    scalar = DType.INT if dtype == DType.UINT32 else dtype
    assert [p.type for p in fn.params[1:]] == [ScalarType(scalar), PointerType(dtype)]


def test_unsigned_int_arithmetic_is_reduced_modulo_2_32() -> None:
    (ret,) = parse_c_source("unsigned f(unsigned x) { return x - 1u; }").body
    # an unsigned scalar is an INT holding its value (c_decls); the result wraps into uint32
    assert ret == Return(Cast(Binary("-", Var("x", DType.INT), i(1), DType.INT), DType.UINT32))


def test_multiple_declarators_and_nested_blocks() -> None:
    fn = parse_c_source("int f(int x) { int a, b = 2; { a = x; ; } return a + b; }")
    assert fn.locals == (("a", DType.INT), ("b", DType.INT))
    assert fn.body == (Assign("b", i(2)), Assign("a", iv("x")), Return(add(iv("a"), iv("b"))))


def test_user_typedef_of_scalar() -> None:
    fn = parse_c_source("typedef float real;\nreal f(real *a) { return a[0]; }")
    assert fn.params[0].type == PointerType(DType.FLOAT)
    assert fn.return_dtype == DType.FLOAT


# ---------------------------------------------------------------- pointer walking

PTR = "void f(int *a, int *b, int n) { int *p = a, *q = b; "


def ptr_body(body: str) -> tuple[object, ...]:
    """The statements ``body`` lowers to, after the two pointer initialisations."""
    fn = parse_c_source(PTR + body + " }")
    assert fn.body[:2] == (Assign("p", i(0)), Assign("q", i(0)))
    return fn.body[2:]


def sub(a: object, b: object) -> Binary:
    return Binary("-", a, b, DType.INT)  # type: ignore[arg-type]


def inc(name: str, by: int = 1) -> Assign:
    return Assign(name, add(iv(name), i(by)))


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("n = *p;", (Assign("n", ld("a", iv("p"))),)),
        ("n = p[1];", (Assign("n", ld("a", add(iv("p"), i(1)))),)),
        ("n = p[0];", (Assign("n", ld("a", iv("p"))),)),
        ("n = *(p + n);", (Assign("n", ld("a", add(iv("p"), iv("n")))),)),
        ("n = *(2 + q);", (Assign("n", ld("b", add(iv("q"), i(2)))),)),
        ("n = (q - 1)[n];", (Assign("n", ld("b", add(sub(iv("q"), i(1)), iv("n")))),)),
        ("n = *p++;", (Assign("n", ld("a", iv("p"))), inc("p"))),
        ("n = *p--;", (Assign("n", ld("a", iv("p"))), Assign("p", sub(iv("p"), i(1))))),
        ("n = *++p;", (inc("p"), Assign("n", ld("a", iv("p"))))),
        ("n = *--p;", (Assign("p", sub(iv("p"), i(1))), Assign("n", ld("a", iv("p"))))),
        ("*p = n;", (Store("a", iv("p"), iv("n")),)),
        ("*p += n;", (Store("a", iv("p"), add(ld("a", iv("p")), iv("n"))),)),
        ("*p++ += 3;", (Store("a", iv("p"), add(ld("a", iv("p")), i(3))), inc("p"))),
        ("(*p)++;", (Store("a", iv("p"), add(ld("a", iv("p")), i(1))),)),
        ("p[1] = 2;", (Store("a", add(iv("p"), i(1)), i(2)),)),
        ("*q++ = *p++;", (Store("b", iv("q"), ld("a", iv("p"))), inc("q"), inc("p"))),
        ("p++;", (inc("p"),)),
        ("++p;", (inc("p"),)),
        ("p--;", (Assign("p", sub(iv("p"), i(1))),)),
        ("p += 2;", (inc("p", 2),)),
        ("p -= n;", (Assign("p", sub(iv("p"), iv("n"))),)),
        ("p = p + 2;", (inc("p", 2),)),
        ("p = 2 + p;", (Assign("p", add(iv("p"), i(2))),)),
        ("p = a;", (Assign("p", i(0)),)),
        ("p = &a[n + 1];", (Assign("p", add(iv("n"), i(1))),)),
        ("p = a + n;", (Assign("p", iv("n")),)),
        ("p = &p[1];", (inc("p"),)),
        ("p += *p;", (Assign("p", add(iv("p"), ld("a", iv("p")))),)),
        ("*p++;", (inc("p"),)),
        ("int *r = p + 1; *r = *p;", (Assign("r", add(iv("p"), i(1))), Store("a", iv("r"), ld("a", iv("p"))))),
        ("int x = *p++, y = *p++;", (Assign("x", ld("a", iv("p"))), inc("p"), Assign("y", ld("a", iv("p"))), inc("p"))),
    ],
)
def test_pointer_walking_lowering(body: str, expected: tuple[object, ...]) -> None:
    assert ptr_body(body) == expected


def test_pointer_declarations() -> None:
    src = (
        "void f(const float *x, float *y, int n) {\n"
        "  int k = 1, *unused; const float *px; float *py = &y[1];\n"
        "  px = x + k;\n"
        "  for (int i = 0; i < n; i++) *py++ = px[i] * 2;\n"
        "}\n"
    )
    fn = parse_c_source(src, "k.c")
    assert fn.locals == (
        ("k", DType.INT),
        ("unused", DType.INT),
        ("px", DType.INT),
        ("py", DType.INT),
        ("i", DType.INT),
    )
    assert fn.body[:3] == (Assign("k", i(1)), Assign("py", i(1)), Assign("px", iv("k")))
    assert fn.body[1].loc == SourceLoc("k.c", 2, 46)  # the declarator "*py"
    loop = fn.body[3]
    assert isinstance(loop, For)
    f = DType.FLOAT
    value = mul(ld("x", add(iv("px"), iv("i")), f), Const(2.0, f), f)
    assert loop.body == (Store("y", iv("py"), value), inc("py"))


def test_walked_parameter_gets_offset_local() -> None:
    src = (
        "void f(int *a, int *out, int n) {\n"
        "  int a__off = 0;\n"
        "  for (int i = 0; i < n; i++) { out[i] = *a + a[1] + a__off; a += 2; }\n"
        "}\n"
    )
    fn = parse_c_source(src, "k.c")
    assert fn.locals == (("a__off1", DType.INT), ("a__off", DType.INT), ("i", DType.INT))
    assert fn.body[0] == Assign("a__off1", i(0))
    assert fn.body[0].loc == SourceLoc("k.c", 1, 12)  # the parameter "*a"
    loop = fn.body[2]
    assert isinstance(loop, For)
    off = iv("a__off1")
    value = add(add(ld("a", off), ld("a", add(off, i(1)))), iv("a__off"))
    assert loop.body == (Store("out", iv("i"), value), inc("a__off1", 2))
    # untouched array parameters keep plain indices
    assert fn.params[1].type == PointerType(DType.INT)


def test_walked_parameter_with_post_increment() -> None:
    fn = parse_c_source("int f(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += *a++; return s; }")
    assert fn.locals[0] == ("a__off", DType.INT)
    loop = fn.body[2]
    assert isinstance(loop, For)
    assert loop.body == (Assign("s", add(iv("s"), ld("a", iv("a__off")))), inc("a__off"))


def test_pre_increment_in_return_and_dead_post_increment() -> None:
    fn = parse_c_source("int f(int *a) { int *p = a; return *++p + *a; }")
    assert fn.body == (Assign("p", i(0)), inc("p"), Return(add(ld("a", iv("p")), ld("a", i(0)))))
    fn = parse_c_source("int f(int *a) { int *p = a; return *p++; }")
    assert fn.body == (Assign("p", i(0)), Return(ld("a", iv("p"))))


def test_pointers_in_helper_arguments() -> None:
    src = "static int sq(int v) { return v * v; }\nint f(int *a) { int *p = a; int s = sq(*p++); return s + *p; }\n"
    fn = parse_c_source(src)
    a_p = ld("a", iv("p"))
    assert fn.body == (
        Assign("p", i(0)),
        Assign("s", mul(a_p, a_p)),
        inc("p"),
        Return(add(iv("s"), a_p)),
    )


#: Pointer misuse: (body after :data:`PTR`, message, column on line 1).
POINTER_REFUSALS: list[tuple[str, str, int]] = [
    ("int *r; n = *r;", "'r' may be used uninitialised", 66),
    ("int *r; r++;", "'r' may be used uninitialised", 61),
    (
        "int *r; for (int i = 0; i < n; i++) r = a; n = *r;",
        "'r' may be used uninitialised",
        101,
    ),
    ("p = b;", "pointer 'p' points into several arrays ('a' and 'b')", 53),
    ("p = &*q;", "pointer 'p' points into several arrays ('a' and 'b')", 53),
    ("a = b;", "pointer 'a' points into several arrays ('a' and 'b')", 53),
    ("float *r = a;", "pointer 'r' to float cannot point into 'a' of element type int", 59),
    ("long *r = &a[1];", "pointer 'r' to long cannot point into 'a' of element type int", 58),
    ("*p++ = *p++;", "unsequenced modification of 'p'", 61),
    ("*p++ = p[1];", "unsequenced modification of 'p'", 60),
    ("n = p[0] + *p++;", "unsequenced modification of 'p'", 65),
    ("*p++ = *q++ + *p;", "unsequenced modification of 'p'", 68),
    ("p = p + *p++;", "unsequenced modification of 'p'", 62),
    ("p = &*p++;", "unsequenced modification of 'p'", 53),
    ("*p-- += *(p - 1);", "unsequenced modification of 'p'", 63),
    ("n = p < q;", "pointer comparison 'p < q' is not supported", 57),
    ("n = p == a;", "pointer comparison 'p == a' is not supported", 57),
    ("n = p - q;", "pointer difference 'p - q' is not supported", 57),
    ("p = a + b;", "error: invalid operands to binary expression ('int *' and 'int *')", 59),
    ("n = 1 - p;", "error: invalid operands to binary expression ('int' and 'int *')", 59),
    ("n = &a[1];", "pointer value '&a[1]' used as a number is not supported", 58),
    ("n = p;", "use of pointer 'p' as a number is not supported", 57),
    ("int **pp;", "pointer-to-pointer local 'pp' is not supported", 58),
    ("int *r = &p;", "pointer to pointer '&p' is not supported", 63),
    ("n = *&p;", "pointer to pointer '&p' is not supported", 59),
    ("void *v;", "void pointer local 'v' is not supported", 58),
    ("int (*fp)(int);", "function pointer local 'fp' is not supported", 58),
    ("static int *r = 0;", "'static' local variables are not supported", 64),
    ("p *= 2;", "error: invalid operands to binary expression ('int *' and 'int')", 55),
    ("p += 1.5;", "error: invalid operands to binary expression ('int *' and 'double')", 55),
    ("p = (int *)a;", "pointer cast '(int *) a' is not supported", 57),
    (
        "int *r = p++;",
        "'++' on pointer 'p' inside an expression is not supported (only *p++, *p--, "
        "*++p, *--p and pointer updates as statements)",
        62,
    ),
    (
        "n = (p++)[0];",
        "'++' on pointer 'p' inside an expression is not supported (only *p++, *p--, "
        "*++p, *--p and pointer updates as statements)",
        58,
    ),
    ("for (int i = 0; i < *p++; i++) ;", "'++' inside an expression is not supported", 74),
    ("for (int *r = a; n > 0; n++) ;", "loop counter 'r' must have type int", 53),
    ("for (p = a; n > 0; n++) ;", "loop counter 'p' must be a local int variable", 58),
    (
        "for (int i = 0; i < *p; i++) p++;",
        "loop bound reads 'p', which the loop body writes",
        74,
    ),
    ("n = *n;", "error: indirection requires pointer operand ('int' invalid)", 57),
    (
        "n = n ? *p++ : 0;",
        "pointer increment in conditionally evaluated '*(p++)' is not supported",
        62,
    ),
    (
        "n = n > 0 && *p++;",
        "pointer increment in conditionally evaluated '*(p++)' is not supported",
        67,
    ),
    (
        "n = n ? 0 : *--q;",
        "pointer increment in conditionally evaluated '*(--q)' is not supported",
        68,
    ),
    ("if (p) n = 1;", "pointer 'p' used as a condition is not supported", 57),
    ("n = *p++ ? *p : 0;", "unsequenced modification of 'p'", 65),
    (
        "n = (n ? p : q)[0];",
        "pointer value '(n) ? (p) : (q)' is not supported (only A, &A[E], A + E, A - E and pointer "
        "variables)",
        58,
    ),
    (
        "p = n ? a : b;",
        "pointer value '(n) ? (a) : (b)' is not supported (only A, &A[E], A + E, A - E and pointer "
        "variables)",
        57,
    ),
    ("int *r; if (n) r = a; n = *r;", "'r' may be used uninitialised", 80),
    ("if (n) p = b;", "pointer 'p' points into several arrays ('a' and 'b')", 60),
]


#: Pointers escaping the kernel: (source, message).
POINTER_ESCAPE_REFUSALS: list[tuple[str, str]] = [
    (
        "static int g(int v) { return v; }\nint f(int *a) { int *p = a; return g(p); }",
        "passing pointer 'p' to 'g' is not supported (pointers may not escape the kernel)",
    ),
    (
        "static int g(int v) { return v; }\nint f(int *a) { return g(a + 1); }",
        "passing pointer 'a + 1' to 'g' is not supported (pointers may not escape the kernel)",
    ),
    ("int f(int *a) { int *p = a; return p; }", "returning pointer 'p' is not supported"),
    ("int f(int *a) { return &a[1]; }", "returning pointer '&a[1]' is not supported"),
    (
        "static int g(int *a) { a++; return a[0]; }\nint f(int *a) { return g(a); }",
        "helper 'g' changes its pointer parameter 'a'; not supported",
    ),
    (
        "static int g(int v) { int *q; return v; }\nint f(int x) { return g(x); }",
        "local pointer variable 'q' in helper function 'g' is not supported",
    ),
]


# ---------------------------------------------------------------- helpers


def test_helper_function_inlining() -> None:
    src = (
        "static int sq(int v) { int t = v * v; t += 1; return t; }\n"
        "static float half(float v) { return v / 2; }\n"
        "int f(int *a, int n) {\n"
        "  int s = 0;\n"
        "  for (int i = 0; i < n; i++) s += sq(a[i]) + (int)half(a[i]);\n"
        "  return s;\n"
        "}\n"
    )
    fn = parse_c_source(src)
    assert fn.name == "f"
    loop = fn.body[1]
    assert isinstance(loop, For)
    a_i = ld("a", iv("i"))
    sq = add(mul(a_i, a_i), i(1))
    half = Binary("/", Cast(a_i, DType.FLOAT), Const(2.0, DType.FLOAT), DType.FLOAT)
    assert loop.body == (Assign("s", add(iv("s"), add(sq, Cast(half, DType.INT)))),)


def test_helper_argument_converted_to_param_type() -> None:
    src = "static int trunc_(int v) { return v; }\nint f(double d) { return trunc_(d * 2); }\n"
    (ret,) = parse_c_source(src).body
    assert ret == Return(
        Cast(mul(Var("d", DType.DOUBLE), Const(2.0, DType.DOUBLE), DType.DOUBLE), DType.INT)
    )


#: Helper functions that cannot be inlined: (source, message).
HELPER_REFUSALS: list[tuple[str, str]] = [
    (
        "int g(int x) { return g(x); }\nint f(int x) { return g(x); }\n",
        "recursive call to 'g' is not supported",
    ),
    (
        "int f(int x) { return f(x - 1); }\n",
        "recursive call to 'f' is not supported",
    ),
    (
        "int g(int *p) { p[0] = 1; return p[0]; }\nint f(int *a) { return g(a); }\n",
        "assignment to 'p[0]' in a helper function is not supported",
    ),
    (
        "int g(int x) { while (x) x = 1; return x; }\nint f(int x) { return g(x); }\n",
        "while loop in helper function 'g' is not supported; a helper may only declare "
        "and assign scalars, branch with if/else and return a value ('return E;')",
    ),
    (
        "int g(int x) { int y; return y; }\nint f(int x) { return g(x); }\n",
        "'y' may be used uninitialised",
    ),
    (
        "int g(int x, int y) { return x; }\nint f(int x) { return g(x); }\n",
        "error: too few arguments to function call, expected 2, have 1",
    ),
    (
        "void g(int x) { }\nint f(int x) { return g(x); }\n",
        "error: returning 'void' from a function with incompatible result type 'int'",
    ),
    (
        "int g(int x, int *y) { if (x) return x; *y = 1; return 0; }\nvoid f(int x, int *y) { g(x, y); }\n",
        "call to 'g' as a statement is not supported (its value is discarded, and a 'return' of it does not "
        "end a path through its body)",
    ),
]


# ---------------------------------------------------------------- conditions, if-conversion

U8 = DType.UINT8
F32 = DType.FLOAT
F64 = DType.DOUBLE


def sel(c: object, then: object, else_: object, dtype: DType = DType.INT) -> Select:
    return Select(c, then, else_, dtype)  # type: ignore[arg-type]


def cmp(op: str, left: object, right: object) -> Compare:
    return Compare(op, left, right)  # type: ignore[arg-type]


def both(left: object, right: object) -> Logical:
    return Logical("&&", left, right)  # type: ignore[arg-type]


def bit(c: object) -> Select:
    """A condition as an int value (C's 1/0); also the ``__ifK`` flag assignments."""
    return sel(c, i(1), i(0))


def then_(flag: str) -> Compare:
    return cmp("!=", iv(flag), i(0))


def else_(flag: str) -> Compare:
    return cmp("==", iv(flag), i(0))


def test_ternary_usual_arithmetic_conversions() -> None:
    src = (
        "float f(int a, float b, uint8_t *u, uint8_t *v, int n) {\n"
        "  u[n] = u[n] > v[n] ? v[n] : u[n];\n"
        "  return a > 0 ? a : b;\n"
        "}\n"
    )
    store, ret = parse_c_source(src, "k.c").body
    u_n, v_n = Cast(ld("u", iv("n"), U8), DType.INT), Cast(ld("v", iv("n"), U8), DType.INT)
    # both uint8 branches are promoted to int; the store wraps back to uint8
    assert store == Store("u", iv("n"), Cast(sel(cmp(">", u_n, v_n), v_n, u_n), U8))
    assert ret == Return(sel(cmp(">", iv("a"), i(0)), Cast(iv("a"), F32), Var("b", F32), F32))
    assert isinstance(ret, Return) and isinstance(ret.value, Select)
    assert ret.value.loc == SourceLoc("k.c", 3, 10)
    assert ret.value.cond.loc == SourceLoc("k.c", 3, 10)


def test_comparisons_and_logic_as_values_and_conditions() -> None:
    src = (
        "int f(int a, double d, uint8_t *u) {\n"
        "  int x = a < d;\n"
        "  x = !a + (a && d != 0.5 || !(a >= 2));\n"
        "  x += d ? u[0] : 2.5f;\n"
        "  return x == 1;\n"
        "}\n"
    )
    d = Var("d", F64)
    a_ne0 = cmp("!=", iv("a"), i(0))
    assert parse_c_source(src).body == (
        Assign("x", bit(cmp("<", Cast(iv("a"), F64), d))),
        Assign(
            "x",
            add(
                bit(Not(a_ne0)),
                bit(
                    Logical(
                        "||",
                        both(a_ne0, cmp("!=", d, Const(0.5, F64))),
                        Not(cmp(">=", iv("a"), i(2))),
                    )
                ),
            ),
        ),
        Assign(
            "x",
            Cast(
                add(
                    Cast(iv("x"), F32),
                    # a non-comparison condition e is e != 0 (0 converted to e's type)
                    sel(
                        cmp("!=", d, Const(0.0, F64)),
                        Cast(ld("u", i(0), U8), F32),
                        Const(2.5, F32),
                        F32,
                    ),
                    F32,
                ),
                DType.INT,
            ),
        ),
        Return(bit(cmp("==", iv("x"), i(1)))),
    )


def test_helpers_with_ternary_bodies_inline() -> None:
    src = (
        "static int max(int a, int b) { return a > b ? a : b; }\n"
        "static float fmaxf(float a, float b) { return a > b ? a : b; }\n"
        "int f(int *x, float *y, int n) {\n"
        "  int m = 0;\n"
        "  for (int i = 0; i < n; i++) { m = max(m, x[i]); y[i] = fmaxf(y[i], 0.0f); }\n"
        "  return m;\n"
        "}\n"
    )
    loop = parse_c_source(src).body[1]
    assert isinstance(loop, For)
    x_i, y_i, zero = ld("x", iv("i")), ld("y", iv("i"), F32), Const(0.0, F32)
    assert loop.body == (
        Assign("m", sel(cmp(">", iv("m"), x_i), iv("m"), x_i)),
        Store("y", iv("i"), sel(cmp(">", y_i, zero), y_i, zero, F32)),
    )


def test_if_else_in_loop_becomes_guarded_selects() -> None:
    src = (
        "void f(int *x, int *y, int lo, int n) {\n"
        "  for (int i = 0; i < n; i++) {\n"
        "    if (x[i] < lo) y[i] = lo;\n"
        "    else { y[i] = x[i]; x[i] += 1; }\n"
        "  }\n"
        "}\n"
    )
    fn = parse_c_source(src, "k.c")
    assert fn.locals == (("i", DType.INT), ("__if1", DType.INT))
    (loop,) = fn.body
    assert isinstance(loop, For)
    x_i, y_i = ld("x", iv("i")), ld("y", iv("i"))
    assert loop.body == (
        Assign("__if1", bit(cmp("<", x_i, iv("lo")))),
        Store("y", iv("i"), sel(then_("__if1"), iv("lo"), y_i)),
        Store("y", iv("i"), sel(else_("__if1"), x_i, y_i)),
        Store("x", iv("i"), sel(else_("__if1"), add(x_i, i(1)), x_i)),
    )
    flag, then_store, else_store, compound = loop.body
    assert flag.loc == SourceLoc("k.c", 3, 5)  # the 'if'
    assert isinstance(flag, Assign) and flag.value.loc == SourceLoc("k.c", 3, 9)  # condition
    assert then_store.loc == SourceLoc("k.c", 3, 20)  # statements keep their locations
    assert else_store.loc == SourceLoc("k.c", 4, 12)
    assert compound.loc == SourceLoc("k.c", 4, 25)
    assert isinstance(then_store, Store) and isinstance(then_store.value, Select)
    assert then_store.value.cond.loc == SourceLoc("k.c", 3, 5)


def test_max_loop_keeps_the_old_value() -> None:
    src = (
        "int f(int *x, int n) {\n"
        "  int m = x[0];\n"
        "  for (int i = 1; i < n; i++) if (x[i] > m) m = x[i];\n"
        "  return m;\n"
        "}\n"
    )
    loop = parse_c_source(src).body[1]
    assert isinstance(loop, For)
    x_i = ld("x", iv("i"))
    assert loop.body == (
        Assign("__if1", bit(cmp(">", x_i, iv("m")))),
        Assign("m", sel(then_("__if1"), x_i, iv("m"))),
    )


def test_nested_if_and_else_if_chain() -> None:
    src = (
        "int f(int a, int b) {\n"
        "  int r;\n"
        "  if (a > 0) {\n"
        "    if (b > 0) r = 1;\n"
        "    else r = 2;\n"
        "  } else if (a < 0) r = 3;\n"
        "  else r = 4;\n"
        "  return r;\n"
        "}\n"
    )
    fn = parse_c_source(src, "k.c")
    assert [n for n, _ in fn.locals] == ["r", "__if1", "__if2", "__if3"]
    g1, g1e = then_("__if1"), else_("__if1")
    assert fn.body == (
        Assign("__if1", bit(cmp(">", iv("a"), i(0)))),
        # the inner condition is evaluated only under the outer guard
        Assign("__if2", sel(g1, bit(cmp(">", iv("b"), i(0))), i(0))),
        # 'r' holds no value before the if: the first guarded write keeps 0, not r
        Assign("r", sel(both(g1, then_("__if2")), i(1), i(0))),
        Assign("r", sel(both(g1, else_("__if2")), i(2), iv("r"))),
        Assign("__if3", sel(g1e, bit(cmp("<", iv("a"), i(0))), i(0))),
        Assign("r", sel(both(g1e, then_("__if3")), i(3), iv("r"))),
        Assign("r", sel(both(g1e, else_("__if3")), i(4), iv("r"))),
        Return(iv("r")),  # assigned on every path
    )
    assert fn.body[1].loc == SourceLoc("k.c", 4, 5)
    assert fn.body[4].loc == SourceLoc("k.c", 6, 10)  # 'else if': the inner 'if'


def test_if_without_else_declarations_and_float_zero() -> None:
    src = (
        "float f(float x, float y) {\n"
        "  float m;\n"
        "  if (x) { float t = x * 2; y = t; m = t; }\n"
        "  else m = y;\n"
        "  return m + y;\n"
        "}\n"
    )
    x, y, m, t = (Var(n, F32) for n in "xymt")
    g = then_("__if1")
    zero = Const(0.0, F32)
    assert parse_c_source(src).body == (
        Assign("__if1", bit(cmp("!=", x, zero))),
        Assign("t", sel(g, mul(x, Const(2.0, F32), F32), zero, F32)),
        Assign("y", sel(g, t, y, F32)),
        Assign("m", sel(g, t, zero, F32)),
        Assign("m", sel(else_("__if1"), y, m, F32)),
        Return(add(m, y, F32)),
    )


def test_fresh_flag_avoids_source_names() -> None:
    src = "int f(int __if1, int *a) { if (__if1) a[0] = __if1; if (a[1]) a[1] = 0; return a[0]; }"
    fn = parse_c_source(src)
    assert fn.locals == (("__if2", DType.INT), ("__if3", DType.INT))
    assert fn.body == (
        Assign("__if2", bit(cmp("!=", iv("__if1"), i(0)))),
        Store("a", i(0), sel(then_("__if2"), iv("__if1"), ld("a", i(0)))),
        Assign("__if3", bit(cmp("!=", ld("a", i(1)), i(0)))),
        Store("a", i(1), sel(then_("__if3"), i(0), ld("a", i(1)))),
        Return(ld("a", i(0))),
    )


def test_if_with_pointer_increments() -> None:
    src = PTR + "if (*p++ > 0) *q++ = n; n = *p + *q; }"
    g = then_("__if1")
    assert parse_c_source(src).body == (
        Assign("p", i(0)),
        Assign("q", i(0)),
        # the condition's increment happens once, before the branches
        Assign("__if1", bit(cmp(">", ld("a", iv("p")), i(0)))),
        inc("p"),
        Store("b", iv("q"), sel(g, iv("n"), ld("b", iv("q")))),
        Assign("q", sel(g, add(iv("q"), i(1)), iv("q"))),
        Assign("n", add(ld("a", iv("p")), ld("b", iv("q")))),
    )


#: ``if`` in a loop body: (body after :data:`KERNEL`, message, column on line 1).
IF_IN_LOOP_REFUSALS: list[tuple[str, str, int]] = [
    (
        "for (int i = 0; i < n; i++) if (a[i]) i = 0;",
        "loop counter 'i' is assigned in the loop body",
        63,
    ),
    (
        "for (int i = 0; i < n; i++) if (a[i]) n--;",
        "loop bound reads 'n', which the loop body writes",
        45,
    ),
    (
        "int x; for (int i = 0; i < n; i++) if (a[i]) x = i; n = x;",
        "'x' may be used uninitialised",
        81,
    ),
]


# ---------------------------------------------------------------- refusals


def test_syntax_error_as_clang_gives_it() -> None:
    """With libclang, clang's first parse error: where the ';' is missing, not the next token."""
    pytest.importorskip("clang.cindex")
    err = refused("int f(int x) {\n  int y = 1\n  return y;\n}\n")
    assert str(err) == "k.c:2:12: syntax error: expected ';' at end of declaration"
    err = refused("int f(int x) {\n  return x +;\n}\n")
    assert str(err) == "k.c:2:13: syntax error: expected expression"


#: Statements outside the subset: (body after :data:`KERNEL`, message, column on line 1).
STATEMENT_REFUSALS: list[tuple[str, str, int]] = [
    ("goto end; end: return;", "goto statement is not supported", 25),
    ("while (n) n -= 2;", "while loop is not supported: 'n' is not stepped by a constant 1 (a counted loop steps "
     "one integer variable by 1 once per iteration and compares it with a bound the loop does not change)", 25),
    ("do { n -= 2; } while (n);", "do-while loop is not supported: 'n' is not stepped by a constant 1 (a counted "
     "loop steps one integer variable by 1 once per iteration and compares it with a bound the loop does not "
     "change)", 25),
    ("if (n) return;", "return statement inside if is not supported", 32),
    # a top-level if around loops splits the function into paths (tests/test_branch_paths.py):
    # each path's loop is then read as any loop, and the condition must be a path condition
    ("if (n) for (;;) ;", "for loop without an initialiser is not supported: a loop without a condition (a counted "
     "loop steps one integer variable by 1 once per iteration and compares it with a bound the loop does not change)",
     32),
    ("if (a[0] > 0) { while (n) n--; }", "the condition 'a[0] > 0' of an if around loops reads an array element: not "
     "supported (a path condition must read only scalar parameters and locals computed from them before the if)", 29),
    ("for (int j = 0; j < n; j++) if (n) for (;;) ;", "for loop inside if is not supported", 60),
    ("for (int j = 0; j < n; j++) if (n) { while (n) n--; }", "while loop inside if is not supported", 62),
    ("for (int j = 0; j < n; j++) if (n) ; else do n--; while (n);", "do-while loop inside if is not supported", 67),
    ("if (n) break;", "error: 'break' statement not in loop or switch statement", 32),
    ("if (n) { if (a[0]) continue; }", "error: 'continue' statement not in loop statement", 44),
    ("if (n) a[0] = 1; else goto e; e: ;", "goto statement inside if is not supported", 47),
    ("if (n) { e: n = 1; }", "labelled statement inside if is not supported", 34),
    ("if (n) switch (n++) { }", "switch on 'n++', an expression with side effects, is not supported", 40),
    ("if (n = 1) ;", "assignment inside an expression is not supported", 29),
    # (a null test of an array parameter is false: tests/test_c_loops.py; of a local pointer, refused)
    ("int *q = a; if (q) n = 1;", "pointer 'q' used as a condition is not supported", 41),
    ("int *q = a; n = !q;", "pointer 'q' used as a condition is not supported", 42),
    ("int *q = a; n = q ? 1 : 2;", "pointer 'q' used as a condition is not supported", 41),
    ("n = n ? a : 2;", "use of array 'a' without an index is not supported", 33),
    ("n = n > 0 ? q : 2;", "error: use of undeclared identifier 'q'", 37),
    ("n = fmaxf(n);", "error: too few arguments to function call, expected 2, have 1", 36),
    ("n = max(n, 1);", "call to 'max' is not supported", 29),
    ("int x; if (n) x = 1; n = x;", "'x' may be used uninitialised", 50),
    ("int x; if (n) n = 1; else x = 2; n = x;", "'x' may be used uninitialised", 62),
    (
        "int x; if (n) { if (a[0]) x = 1; } else x = 2; n = x;",
        "'x' may be used uninitialised",
        76,
    ),
    ("int x; if (n) { int y = 1; x = y; } else x = y;", "error: use of undeclared identifier 'y'", 70),
    ("int x; if (n) n = x;", "'x' may be used uninitialised", 43),
    ("n = n < 3 ? n : n << n;", "the shift count of 'n << n' reads 'n', which changes in the statement around it: not supported (a run-time shift count must be fixed before its loop)", 41),
    ("switch (n) { n = 1; default: ; }", "statement before the first case label of a switch is not supported", 38),
    (
        "int *p = malloc(n);",
        "pointer 'p' may only point into an array parameter (A, &A[E], A + E, another "
        "pointer); 'malloc(n)' is not supported",
        34,
    ),
    ("a[0] = malloc(n);", "call to 'malloc' is not supported", 32),
    ("a[0] = *n;", "error: indirection requires pointer operand ('int' invalid)", 32),
    ("a[0] = a + 1;", "pointer value 'a + 1' used as a number is not supported", 32),
    ("a = 0;", "pointer 'a' may only point into an array parameter (A, &A[E], A + E, another pointer); '0' is not supported", 29),
    ("n = &n;", "address-of operator '&' is not supported", 30),
    ("n = n >> -1;", "shift count -1 outside [0, 32) is undefined behaviour (C11 §6.5.7p3)", 29),
    ("n <<= n;", "the shift count of 'n <<= n' reads 'n', which changes in the statement around it: not supported (a run-time shift count must be fixed before its loop)", 25),
    ("n = n << 40;", "shift count 40 outside [0, 32) is undefined behaviour (C11 §6.5.7p3)", 29),
    ("n = n & 2.0;", "error: invalid operands to binary expression ('int' and 'double')", 31),
    ("n = (n = 2);", "'n' reads 'n', which the same expression assigns (unsequenced, C11 §6.5p2)", 25),
    ("a[n++] = n;", "unsequenced modification and access of 'n' (C11 §6.5p2)", 34),
    ("n = 'a';", "character literal is not supported", 29),
    ("n = sizeof(int);", "sizeof is not supported", 29),
    ("int n = 1;", "error: redefinition of 'n'", 29),
    ("int x; int x;", "error: redefinition of 'x'", 36),
    ("int x; n = x;", "'x' may be used uninitialised", 36),
    ("int x; x += 1;", "'x' may be used uninitialised", 32),
    ("n = q;", "error: use of undeclared identifier 'q'", 29),
    ("int t[4];", "local array 't' is not supported", 29),
    ("static int s = 0;", "'static' local variables are not supported", 36),
    ("n = a[0][1];", "error: subscripted value is not an array, pointer, or vector", 33),
    ("n = n[0];", "error: subscripted value is not an array, pointer, or vector", 30),
    ("return; n = 1;", "return before the end of the function is not supported", 25),
    ("n + 1;", "expression statement 'n + 1' has no effect", 25),
    ("break;", "error: 'break' statement not in loop or switch statement", 25),
    (
        "float x = 1.0; n = x % 2;",
        "error: invalid operands to binary expression ('float' and 'int')",
        46,
    ),
    ("a[1.0] = 0;", "error: array subscript is not an integer", 26),
    ("long double x = 1;", "type 'long double' is not supported", 37),
    ("volatile int v = 1;", "'volatile' qualifier is not supported", 38),
    ("n = (n, 1);", "comma operator is not supported", 30),
    ("{ int x = 1; } n = x;", "error: use of undeclared identifier 'x'", 44),
]


#: Declarations outside the subset: (source, message).
DECLARATION_REFUSALS: list[tuple[str, str]] = [
    ("int g[4];\nint f(int x) { return x + g[0]; }", "global variable 'g' is not supported (only file-scope 'const' scalars and arrays with an initialiser, read as constants)"),
    (
        "struct s { int a; };\nint f(struct s *v) { return 0; }",
        "struct pointer parameter 'v' none of whose fields the function reads is not supported",
    ),
    ("union u { int a; };\nint f(union u v) { return 0; }", "union types are not supported"),
    ("int f(int **p) { return 0; }", "pointer-to-pointer parameter 'p' is not supported"),
    (
        "int f(int m[][3][2][2]) { return 0; }",
        "array parameter 'm' of more than three dimensions is not supported",
    ),
    ("int f(int x, ...) { return x; }", "variadic function 'f' is not supported"),
    ("int *f(int *a) { return a; }", "pointer type for return type of 'f' is not supported"),
    ("int f(int x) { x = 1; }", "function 'f' must end with 'return E;'"),
    ("void f(int x) { return x; }", "returning a value from void function 'f'"),
    ("int f(int x) { return; }", "'return;' in function 'f' returning a value"),
    ("static int f(int x) { return x; }", "no non-static function is defined in k.c"),
    ("int f(void *p) { return 0; }", "void pointer parameter 'p' is not supported"),
    ("int f(int x) { /* open", "error: unterminated /* comment"),
]


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(LiftError, match="cannot read"):
        parse_c_file(tmp_path / "missing.c")


def test_parse_c_file_reads_text(tmp_path: Path) -> None:
    path = tmp_path / "k.c"
    path.write_text("int f(int x) { return -x; }\n")
    fn = parse_c_file(path)
    assert fn.body == (Return(Unary("-", iv("x"), DType.INT)),)
    assert fn.body[0].loc == SourceLoc(str(path), 1, 16)


def test_inclusive_bound_minus_one_folds() -> None:
    from tenspiler.loops.ir import For

    fn = parse_c_source("void f(int *a, int n) { for (int i = 0; i <= n - 1; ++i) a[i] = 0; }")
    (loop,) = fn.body
    assert isinstance(loop, For) and loop.stop == Var("n", DType.INT)
    fn = parse_c_source("void f(int *a, int n) { for (int i = 0; i <= n - 3; ++i) a[i] = 0; }")
    (loop,) = fn.body
    assert isinstance(loop, For)
    assert loop.stop == Binary("-", Var("n", DType.INT), Const(2, DType.INT), DType.INT)


# ---------------------------------------------------------------- struct parameters

MAT = "typedef struct mat { int rows, cols; float **v; } mat;\n"


def test_struct_parameter_is_flattened() -> None:
    from tenspiler.loops.ir import StructField, StructParam

    fn = parse_c_source(
        MAT + "void f(mat m, float s) {\n"
        "  for (int r = 0; r < m.rows; r++)\n"
        "    for (int c = 0; c < m.cols; c++)\n"
        "      m.v[r][c] *= s;\n"
        "}\n",
        "k.c",
    )
    assert [(p.name, p.type) for p in fn.params] == [
        ("m__rows", ScalarType(DType.INT)),
        ("m__cols", ScalarType(DType.INT)),
        ("m__v", PointerType(DType.FLOAT)),
        ("m__v__cols", ScalarType(DType.INT)),
        ("s", ScalarType(DType.FLOAT)),
    ]
    assert fn.structs == (
        StructParam("m", "mat", (
            StructField("rows", "m__rows"),
            StructField("cols", "m__cols"),
            StructField("v", "m__v", "m__v__cols"),
        )),
    )
    (outer,) = fn.body
    assert isinstance(outer, For) and outer.stop == iv("m__rows")
    (inner,) = outer.body
    assert isinstance(inner, For) and inner.stop == iv("m__cols")
    (store,) = inner.body
    idx = add(mul(iv("r"), iv("m__v__cols")), iv("c"))
    old = Load("m__v", idx, DType.FLOAT)
    assert store == Store("m__v", idx, Binary("*", old, Var("s", DType.FLOAT), DType.FLOAT))
    # the row information (ignored by ==) says which column of which row length
    assert store.row == (iv("c"), iv("m__v__cols"))
    assert isinstance(store.value, Binary) and isinstance(store.value.left, Load)
    assert store.value.left.row == (iv("c"), iv("m__v__cols"))
    assert store.loc == SourceLoc("k.c", 5, 7)


def test_struct_spellings_widths_and_fresh_names() -> None:
    fn = parse_c_source(
        "struct img { long h; unsigned char **px; double g; };\n"
        "double f(struct img a) { int a__h = 0; return a.g + a.px[1][2] + a__h + a.h; }\n",
        "k.c",
    )
    assert [(p.name, p.type, p.c_type) for p in fn.params] == [
        ("a__h1", ScalarType(DType.INT), "long"),
        ("a__px", PointerType(DType.UINT8), ""),
        ("a__px__cols", ScalarType(DType.INT), ""),
        ("a__g", ScalarType(DType.DOUBLE), ""),
    ]
    (sp,) = fn.structs
    assert sp.c_type == "struct img" and sp.flat == ("a__h1", "a__px", "a__px__cols", "a__g")


def test_struct_row_stores_are_checked_by_the_interpreter() -> None:
    from tenspiler.loops.interp import run_function

    fn = parse_c_source(MAT + "void f(mat m) { for (int c = 0; c < m.cols; c++) m.v[1][c] = 7; }\n")
    out = run_function(fn, {"m__rows": 2, "m__cols": 2, "m__v": [0.0] * 6, "m__v__cols": 3})
    assert out["m__v"].tolist() == [0, 0, 0, 7, 7, 0]  # type: ignore[union-attr]
    with pytest.raises(IndexError, match=r"index 2 into a row of m__v out of range \[0, 2\)"):
        run_function(fn, {"m__rows": 2, "m__cols": 3, "m__v": [0.0] * 6, "m__v__cols": 2})


#: Struct parameter misuse: (source, message, line, column).
STRUCT_REFUSALS: list[tuple[str, str, int, int]] = [
    (MAT + "void f(mat *m) { }", "struct pointer parameter 'm' none of whose fields the function reads is not supported", 2, 12),
    (MAT + "void f(mat m[]) { }", "array of struct parameter 'm' is not supported (structs are supported passed by value or as 'T *s')", 2, 12),
    (MAT + "int f(mat m) { return m->rows; }", "error: member reference type 'mat' (aka 'struct mat') is not a pointer; did you mean to use '.'?", 2, 24),
    (
        "typedef struct in { int a; } in;\ntypedef struct out { in x; int **v; } out;\nvoid f(out o) { }",
        "nested struct field 'x' of struct parameter 'o' is not supported", 2, 25,
    ),
    (
        "typedef struct s { float ***p; } s;\nvoid f(s q) { }",
        "pointer field 'p' of struct parameter 'q' is not supported (only scalar fields, 'T *' and 'T **' fields with T a scalar type)", 1, 28,
    ),
    ("typedef struct s { int a[4]; } s;\nvoid f(s q) { }", "array field 'a' of struct parameter 'q' is not supported", 1, 24),
    ("typedef struct s { int a : 3; } s;\nvoid f(s q) { }", "bit-field 'a' of struct parameter 'q' is not supported", 1, 24),
    ("struct q;\nvoid f(struct q s) { }", "error: variable has incomplete type 'struct q'", 2, 17),
    (MAT + "void f(mat m) { m.rows = 1; }", "assignment to struct field 'm.rows' is not supported", 2, 17),
    (MAT + "void f(mat m) { m.rows++; }", "assignment to struct field 'm.rows' is not supported", 2, 17),
    (MAT + "void f(mat m, mat k) { m = k; }", "assignment to struct 'm' is not supported", 2, 24),
    (MAT + "void f(mat m, mat k) { m.v[0] = k.v[0]; }", "assignment to row pointer 'm.v[0]' is not supported", 2, 24),
    (MAT + "void f(mat m, float *p) { p[0] = m.v[0]; }", "error: assigning to 'float' from incompatible type 'float *'; dereference with *", 2, 32),
    (MAT + "void f(mat m) { float *p = &m.v[0][0]; }", "pointer to struct field element 'm.v[0][0]' is not supported", 2, 29),
    (MAT + "void f(mat m) { mat t; }", "struct local 't' is not supported", 2, 21),
    (MAT + "void f(mat m) { mat *p; }", "pointer to struct local 'p' is not supported", 2, 21),
    (MAT + "static int g(int x) { return x; }\nint f(mat m) { return g(m); }", "error: passing 'mat' (aka 'struct mat') to parameter of incompatible type 'int'", 3, 25),
    (
        MAT + "static int g(mat x) { return x.rows; }\nint f(mat m) { return g(m); }",
        "helper 'g' has struct parameter 'x'; only scalar parameters are supported", 2, 18,
    ),
    (MAT + "int f(mat m) { return m; }", "error: returning 'mat' (aka 'struct mat') from a function with incompatible result type 'int'", 2, 23),
    (MAT + "int f(mat m) { return m.size; }", "error: no member named 'size' in 'struct mat'", 2, 25),
    (MAT + "int f(mat m) { return m.rows[0]; }", "error: subscripted value is not an array, pointer, or vector", 2, 29),
    (MAT + "int f(int x) { return x.rows; }", "error: member reference base type 'int' is not a structure or union", 2, 24),
    ("void f(struct { int a; } s) { }", "struct parameter 's': a struct type defined in the parameter list is not supported", 1, 26),
]


def test_struct_parameters_are_refused_in_the_cxx_subset() -> None:
    with pytest.raises(LiftError) as info:
        parse_c_source(MAT + "float f(mat m) { return m.v[0][0]; }\n", "k.cc", cxx=True)
    assert str(info.value) == "k.cc:2:13: struct parameter 'm' is not supported in the C++ subset"


# ---------------------------------------------------------------- the refusal tables


def in_kernel(prefix: str, cases: list[tuple[str, str, int]]) -> list[tuple[str, str, int, int]]:
    """Statement refusals ``(body, message, col)`` as ``(src, message, line, col)``: ``src``
    is ``prefix body }``, one line."""
    return [(f"{prefix}{body} }}", message, 1, col) for body, message, col in cases]


@pytest.mark.parametrize(
    ("src", "message"),
    [*LOOP_REFUSALS, *POINTER_ESCAPE_REFUSALS, *HELPER_REFUSALS, *DECLARATION_REFUSALS],
)
def test_refusal_message(src: str, message: str) -> None:
    assert refused(src).message == message


@pytest.mark.parametrize(
    ("src", "message", "line", "col"),
    [
        *in_kernel(PTR, POINTER_REFUSALS),
        *in_kernel(KERNEL, IF_IN_LOOP_REFUSALS),
        *in_kernel(KERNEL, STATEMENT_REFUSALS),
        *STRUCT_REFUSALS,
    ],
)
def test_located_refusal(src: str, message: str, line: int, col: int) -> None:
    err = refused(src)
    assert err.message == message
    assert err.loc == SourceLoc("k.c", line, col), src.split("\n")[line - 1][col - 1 :]
