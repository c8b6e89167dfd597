"""A C file read as the compiler reads it (tenspiler.frontend.c_unit, tenspiler.frontend.flags):
clang's parse with the file's compile flags, only what the kernel needs lowered, header
declarations as a prelude, the build's macros, --check compiled with the same flags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tenspiler.cli import main
from tenspiler.errors import BadInput
from tenspiler.frontend.c import parse_c_file
from tenspiler.frontend.c_unit import read_unit
from tenspiler.frontend.flags import CompileFlags, from_compile_commands
from tenspiler.loops.ir import DType, PointerType
from tenspiler.pipeline import lift_file

HEADER = """\
#ifndef DSP_TYPES_H
#define DSP_TYPES_H
#include <stdint.h>
#include <stdio.h>
typedef float real_t;
typedef int32_t q31_t;
typedef enum { DSP_DONE = 0, DSP_BAD = -1 } dsp_status;
#define DSP_OK 0
typedef struct { int n; real_t *data; } vec_t;
#define DSP_SCALE(x) ((x) * 2.0f)
#define DSP_INLINE static __inline __attribute__((always_inline))
DSP_INLINE int dsp_unused(int v) { return __builtin_expect(v, 0); }
#endif
"""

SOURCE = """\
\ufeff#include "dsp_types.h"
#include <math.h>

FILE *log_file;                                   /* a global the kernel never reads */
static vec_t scratch = {0, 0};
__attribute__((constructor)) static void setup(void) { log_file = stdout; }
void dump(const real_t *x, int n) { for (int i = 0; i < n; i++) fprintf(log_file, "%f", x[i]); }

int dsp_scale(const real_t *src, real_t *dst, int n) {
  for (int i = 0; i < n; i++) {
#ifdef DSP_OFFSET
    dst[i] = DSP_SCALE(src[i]) + DSP_OFFSET;
#else
    dst[i] = DSP_SCALE(src[i]);
#endif
  }
  return DSP_OK;
}
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "dsp_types.h").write_text(HEADER)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "dsp.c").write_text(SOURCE, encoding="utf-8")
    return tmp_path


def test_a_kernel_in_a_real_file_reads_with_its_include_path(project: Path) -> None:
    flags = CompileFlags.parse(["-I", "include"], project)
    fn = parse_c_file(project / "src" / "dsp.c", "dsp_scale", flags)
    assert [p.name for p in fn.params] == ["src", "dst", "n"]
    src = fn.param("src").type
    assert isinstance(src, PointerType) and src.elem == DType.FLOAT  # real_t from the header
    assert fn.return_dtype == DType.INT
    assert fn.compile_flags == (f"-I{project / 'include'}",)


def test_without_the_include_path_the_compilers_error_names_the_header(project: Path) -> None:
    with pytest.raises(BadInput) as e:
        parse_c_file(project / "src" / "dsp.c", "dsp_scale")
    assert e.value.loc is not None and (e.value.loc.line, e.value.loc.col) == (1, 10)
    assert e.value.message.startswith("error: 'dsp_types.h' file not found (add its folder with -I DIR")


def test_a_kernel_lifts_and_checks_with_defines(project: Path) -> None:
    """The -D reaches the reading (the #ifdef branch) and --check's compile alike: the check
    compares the compiled file with the generated code, so a mismatch would fail it."""
    flags = CompileFlags.parse(["-I", "include", "-DDSP_OFFSET=1.5f"], project)
    res = lift_file(project / "src" / "dsp.c", ["numpy"], function="dsp_scale", check=True, flags=flags)
    assert res.status == "verified", res.message
    assert res.check is not None and res.check["numpy"]["ok"], res.check
    assert "1.5" in res.code["numpy"]


def test_the_cli_takes_compiler_flags_and_compile_commands(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = project / "src" / "dsp.c"
    assert main([str(src), "--function", "dsp_scale", "-I", str(project / "include"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "verified"
    db = project / "build" / "compile_commands.json"
    db.parent.mkdir()
    db.write_text(json.dumps([{"directory": str(project / "build"), "file": "../src/dsp.c",
                               "command": "cc -O2 -I../include -DDSP_OFFSET=2 -c ../src/dsp.c -o dsp.o"}]))
    assert from_compile_commands(db, src).args == (f"-I{project / 'include'}", "-DDSP_OFFSET=2")
    assert main([str(src), "--function", "dsp_scale", "--compile-commands", str(db), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "verified"
    assert main([str(src), "--function", "dsp_scale", "--compile-commands", str(project / "none.json")]) == 2
    assert "cannot read the compilation database" in capsys.readouterr().err


def test_nothing_outside_the_kernel_blocks_it(tmp_path: Path) -> None:
    """Globals, GNU extensions, other functions with unsupported code: the kernel is lowered
    alone; a global it reads is still the lowering's to judge."""
    src = tmp_path / "k.c"
    src.write_text(
        "#include <stdlib.h>\n"
        "struct node { struct node *next; void (*visit)(struct node *); };\n"
        "static struct node *head;\n"
        "static __inline__ int twice(int v) { return v << 1; }\n"
        "void walk(void) { for (struct node *p = head; p; p = p->next) p->visit(p); }\n"
        "int g[2];\n"
        "void axpy(float a, const float *x, float *y, int n) {\n"
        "  for (int i = 0; i < n; i++) y[i] += a * x[i];\n"
        "}\n"
        "int uses_global(int x) { return x + g[1]; }\n"
    )
    fn = parse_c_file(src, "axpy")
    assert fn.name == "axpy" and len(fn.check_source) == len(src.read_text()) - 0  # bodies cut, lines kept
    assert "p->visit" not in fn.check_source and "y[i] += a * x[i]" in fn.check_source
    with pytest.raises(BadInput, match="global variable 'g' is not supported"):
        parse_c_file(src, "uses_global")


def test_clang_reports_type_errors_where_the_compiler_does(tmp_path: Path) -> None:
    src = tmp_path / "k.c"
    src.write_text("void f(float *x, int n) {\n  for (int i = 0; i < n; i++) x[i] = y;\n}\n")
    with pytest.raises(BadInput) as e:
        parse_c_file(src, "f")
    assert str(e.value) == f"{src}:2:38: error: use of undeclared identifier 'y'"


def test_flags_are_normalised() -> None:
    f = CompileFlags.parse(["-I", "inc", "-DN=64", "-O2", "-std=c99", "-include", "x.h", "-Isrc", "-UX", "-Wall"], "/p")
    assert f.args == ("-I/p/inc", "-DN=64", "-std=c99", "-include/p/x.h", "-I/p/src", "-UX")
    assert f.std == "c99"
    assert f.command_line() == ["-I/p/inc", "-DN=64", "-include", "/p/x.h", "-I/p/src", "-UX"]


def test_the_prelude_is_written_from_clangs_ast(project: Path) -> None:
    """Only the header declarations the kernel reaches, each after what it uses; enum
    constants with clang's values; the predefined <stdint.h> names left to the lowering."""
    src = project / "src" / "dsp.c"
    text = src.read_text(encoding="utf-8").lstrip("\ufeff") + (
        "dsp_status status_of(vec_t v, q31_t k) { return v.n > k ? DSP_DONE : DSP_BAD; }\n"
    )
    reading = read_unit(text, str(src), "status_of", CompileFlags.parse(["-I", "include"], project))
    assert reading.prelude == (
        "enum { DSP_DONE = 0, DSP_BAD = -1 };",
        "typedef int dsp_status;",
        "typedef float real_t;",
        "typedef struct { int n; real_t * data; } vec_t;",
        "typedef int32_t q31_t;",
    )
    assert "dump" not in reading.text and "fprintf" not in reading.text and "return v.n > k" in reading.text
    assert reading.text.count("\n") == text.count("\n") and "#ifdef DSP_OFFSET" in reading.text
    assert reading.macros is not None and reading.macros.given == {}  # only the macros the kept text reaches
    reading = read_unit(text, str(src), "dsp_scale", CompileFlags.parse(["-I", "include"], project))
    assert reading.macros is not None and reading.macros.given == {"DSP_SCALE(x)": "((x) * 2.0f)", "DSP_OK": "0"}


def test_gnu_keywords_read_as_iso_and_harmless_attributes_dropped(tmp_path: Path) -> None:
    src = tmp_path / "k.c"
    src.write_text(
        "#define FORCE static __inline__ __attribute__((always_inline, unused))\n"
        "FORCE float sq(float v) { return v * v; }\n"
        "void k(const float * __restrict x, float * __restrict__ y, int n) __attribute__((nonnull));\n"
        "void k(const float * __restrict x, float * __restrict__ y, int n) {\n"
        "  for (int i = 0; i < n; i++) y[i] = __extension__ sq(x[i]);\n"
        "}\n"
    )
    res = lift_file(src, ["numpy"], function="k", check=True)
    assert res.status == "verified", res.message
    assert res.check is not None and res.check["numpy"]["ok"]


def test_an_attribute_that_changes_types_is_refused_by_name(tmp_path: Path) -> None:
    src = tmp_path / "k.c"
    src.write_text(
        "typedef int i8 __attribute__((mode(QI)));\n"
        "void k(i8 *y, int n) {\n  for (int i = 0; i < n; i++) y[i] = y[i] + 1;\n}\n"
    )
    with pytest.raises(BadInput) as e:
        parse_c_file(src, "k")
    assert str(e.value) == f"{src}:1:16: GNU attribute 'mode' is not supported (it may change types or layout)"


def test_a_macro_using_the_file_name_reads() -> None:
    """__FILE__ is the file's name for pcpp and "<stdin>" for the referee: not a disagreement."""
    from tenspiler.frontend.preprocess import preprocess

    out = preprocess('#define HERE __FILE__\nconst char *w = HERE;\n', "dir/k.c")
    assert '"dir/k.c"' in out


def test_a_check_that_cannot_compile_says_the_proof_succeeded(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--check compiles with the lift's flags; when the source still does not compile there,
    the result says so, and that every VC clause was unsat (not verified: nothing emitted)."""
    from tenspiler.check import differential
    from tenspiler.errors import CodegenError

    def broken(fn: object, workdir: object, sanitize: bool = False) -> None:
        raise CodegenError("compiling dsp_scale with cc failed (exit 1):\nerror: something")

    monkeypatch.setattr(differential, "compile_c", broken)
    flags = CompileFlags.parse(["-I", "include"], project)
    res = lift_file(project / "src" / "dsp.c", ["numpy"], function="dsp_scale", check=True, flags=flags)
    assert res.status == "not_lifted"
    assert res.message.startswith("the proof succeeded (every VC clause unsat), but --check could not run: compiling")
    assert "--no-check" in res.message


def test_a_cxx_file_takes_the_defines_too(tmp_path: Path) -> None:
    src = tmp_path / "v.cc"
    src.write_text(
        "#include <vector>\nstd::vector<float> scale(std::vector<float> x) {\n  std::vector<float> out;\n"
        "  for (int i = 0; i < x.size(); i++) out.push_back(FACTOR * x[i]);\n  return out;\n}\n"
    )
    res = lift_file(src, ["numpy"], check=True, flags=CompileFlags.parse(["-DFACTOR=3.0f"]))
    assert res.status == "verified", res.message
    assert res.check is not None and res.check["numpy"]["ok"]
    assert "3.0" in res.summary


def test_the_projects_example_lifts_with_a_header_helper() -> None:
    """examples/project: the README's real-file example (a header's static inline helper,
    a BOM, a FILE * global, a constructor); with -I and with the compilation database."""
    root = Path(__file__).resolve().parents[1] / "examples" / "project"
    src = root / "src" / "dsp.c"
    for flags in (CompileFlags.parse(["-I", str(root / "include")]),
                  from_compile_commands(root / "compile_commands.json", src)):
        res = lift_file(src, ["numpy"], function="dsp_gain_clip", check=True, flags=flags)
        assert res.status == "verified", res.message
        assert res.check is not None and res.check["numpy"]["ok"]
        assert "select(" in res.summary


def test_the_default_kernel_is_the_files_last_non_static_function(tmp_path: Path) -> None:
    """Chosen on the whole file: a helper it calls, defined after it, is not the default."""
    src = tmp_path / "k.c"
    src.write_text(
        "float scale(float v);\n"
        "void k(float *y, int n) {\n  for (int i = 0; i < n; i++) y[i] = scale(y[i]);\n}\n"
        "float scale(float v) { return 2.0f * v; }\n"
        "static void unused(void) { }\n"
    )
    assert parse_c_file(src).name == "scale"
    src.write_text(src.read_text().replace("float scale(float v) {", "static float scale(float v) {")
                   .replace("float scale(float v);", "static float scale(float v);"))
    assert parse_c_file(src).name == "k"


def test_a_global_the_kernel_reads_is_a_parameter(tmp_path: Path) -> None:
    """Its value at the call: the lifted function takes it after its own parameters, and the
    check's wrapper assigns the global before calling the compiled C. Another function of
    the file may write it (between calls); the kernel or a helper writing it is refused."""
    src = tmp_path / "g.c"
    src.write_text(
        "int GS = 0;\nstatic float bias;\nvoid set_gs(int g) { GS = g; bias = 0.5f * g; }\n"
        "void scale(const float *q, float *x, int n) {\n"
        "  for (int i = 0; i < n; i++) x[i] = q[i] * GS + bias;\n}\n"
    )
    res = lift_file(src, ["numpy"], function="scale", check=True)
    assert res.status == "verified", res.message
    assert res.check is not None and res.check["numpy"]["ok"]
    fn = parse_c_file(src, "scale")
    assert [(p.name, p.global_var) for p in fn.params][-2:] == [("GS", True), ("bias", True)]
    assert "def scale(q, x, n, GS, bias)" in res.code["numpy"]
    src.write_text(src.read_text().replace("x[i] = q[i] * GS + bias;", "x[i] = q[i] * GS + bias; GS++;"))
    with pytest.raises(BadInput, match="global variable 'GS' is written by the function: not supported"):
        parse_c_file(src, "scale")


def test_chained_assignments(tmp_path: Path) -> None:
    """a = b = E is b = E then a = b, with C's conversions at each step (C11 §6.5.16p3):
    the int in the middle truncates; checked against the compiled C."""
    src = tmp_path / "k.c"
    src.write_text(
        "void k(float *y, float *z, const float *w, int n) {\n  int t;\n"
        "  for (int i = 0; i < n; i++) { y[i] = z[i] = t = w[i] * 2.5f; }\n}\n"
    )
    res = lift_file(src, ["numpy"], check=True)
    assert res.status == "verified", res.message
    assert res.check is not None and res.check["numpy"]["ok"]
    src.write_text("void k(int *a, int b, int n) {\n  for (int i = 0; i < n; i++) a[b] = b = i;\n}\n")
    with pytest.raises(BadInput, match=r"'a\[b\]' reads 'b', which the same expression assigns"):
        parse_c_file(src)


def test_the_check_calls_the_kernel_with_its_typedefs_widths(tmp_path: Path) -> None:
    """A 64-bit integer parameter spelled through typedefs (``q63_t`` → ``int64_t``): the
    check's wrapper and buffers use ``long``, as the compiled kernel expects."""
    src = tmp_path / "k.c"
    src.write_text(
        "#include <stdint.h>\ntypedef int64_t q63_t;\ntypedef q63_t acc_t;\n"
        "void k(const int *a, acc_t *out, int n) {\n  for (int i = 0; i < n; i++) out[i] = (acc_t)a[i] * 3;\n}\n"
    )
    fn = parse_c_file(src, "k")
    assert fn.param("out").c_type == "int64_t"
    res = lift_file(src, ["numpy"], function="k", check=True)
    assert res.status == "verified", res.message
    assert res.check is not None and res.check["numpy"]["ok"]


def test_a_refusal_in_a_header_helper_names_the_header_line(tmp_path: Path) -> None:
    (tmp_path / "h.h").write_text("/* a helper */\n\nstatic inline int twice(int v) {\n  return (int)(2ul * v);\n}\n")
    src = tmp_path / "k.c"
    src.write_text('#include "h.h"\nvoid k(int *y, int n) {\n  for (int i = 0; i < n; i++) y[i] = twice(y[i]);\n}\n')
    with pytest.raises(BadInput) as e:
        parse_c_file(src, "k")
    assert e.value.loc is not None and (e.value.loc.file, e.value.loc.line) == (str(tmp_path / "h.h"), 4)
