"""``--check`` compiles the kernel and what it reaches, not the whole file
(:mod:`tenspiler.frontend.c_unit`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tenspiler.frontend.c import parse_c_source

SOURCE = """\
#include <math.h>
#define SQ(x) ((x) * (x))
typedef struct { int a; } pair;
static int helper(int a, int b) { return a > b ? a : b; }
static int twice(int a) { return helper(a, a) * 2; }
int unrelated(int *a, int n) {
    int s = 0; /* } a brace in a comment */
    for (int i = 0; i < n; i++) { s += a[i]; if (s > 3) { s = "}"[0]; } }
    return s;
}
int guarded(void)
{
#if 1
  return 1;
#endif
}
void kernel(int *out, int *a, int n) {
    for (int i = 0; i < n; i++) out[i] = twice(a[i]) + SQ(2);
}
int after(int x) { return x + unrelated(&x, 1); }
"""


def test_the_check_source_holds_the_kernel_and_what_it_calls_only() -> None:
    fn = parse_c_source(SOURCE, "k.c", "kernel")
    text = fn.check_source
    assert fn.source == SOURCE
    lines, original = text.split("\n"), SOURCE.split("\n")
    assert len(lines) == len(original)  # the compiler's line numbers are the file's
    assert lines[:3] == original[:3]  # directives and declarations
    # the kernel and the helpers it reaches (transitively) are the file's text, line for line
    for start in ("static int helper(", "static int twice(", "void kernel("):
        k = next(i for i, line in enumerate(original) if line.startswith(start))
        end = next(j for j in range(k, len(original)) if original[j].rstrip().endswith("}"))
        assert lines[k:end + 1] == original[k:end + 1]
    # unrelated functions are declared, their bodies gone
    assert "int unrelated(int *a, int n) ;" in text and "s += a[i]" not in text
    assert "int after(int x) ;" in text and "unrelated(&x, 1)" not in text
    # a body with a preprocessor directive is kept whole (the cut could not be made safely)
    assert "#if 1\n  return 1;\n#endif" in text


def test_cxx_files_are_compiled_whole() -> None:
    src = ("#include <vector>\nint unrelated(int x) { return x; }\n"
           "std::vector<int> k(std::vector<int> a, int n) {\n    std::vector<int> out;\n"
           "    for (int i = 0; i < n; i++) out.push_back(a[i] + 1);\n    return out;\n}\n")
    fn = parse_c_source(src, "k.cc", "k", cxx=True)
    assert fn.check_source in ("", src)


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs cc")
def test_the_check_passes_on_the_cut_file(tmp_path: Path) -> None:
    from tenspiler.pipeline import lift_file

    path = tmp_path / "k.c"
    path.write_text(SOURCE)
    res = lift_file(path, ("numpy",), function="kernel", check=True)
    assert res.status == "verified", res.message
    assert res.check is not None and all(c["ok"] for c in res.check.values())
