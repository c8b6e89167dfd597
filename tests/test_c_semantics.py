"""C semantics of the frontend against the compiler: literal types, the usual arithmetic
conversions and the preprocessor, and the regression kernels of the soundness issue's
classes 1-4 and 10 (``tests/kernels/c_semantics/``): each is either verified and agrees
bit-exactly with gcc on adversarial inputs (the fuzzer's independent oracle, and the
tool's own translation validation), or refused with the named rule (``expect: refused``);
``expect: sound`` allows a clean "not lifted" as well."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tenspiler.errors import LiftError
from tenspiler.frontend import c_types
from tenspiler.frontend.c import parse_c_source
from tenspiler.pipeline import lift_file

KERNELS = Path(__file__).parent / "kernels" / "c_semantics"
CC = shutil.which("gcc") or shutil.which("cc")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler")

#: C spelling → the name ``_Generic`` prints for it.
_TYPES = {
    "_Bool": c_types.BOOL, "signed char": c_types.SCHAR, "unsigned char": c_types.UCHAR,
    "short": c_types.SHORT, "unsigned short": c_types.USHORT, "int": c_types.INT,
    "unsigned int": c_types.UINT, "long": c_types.LONG, "unsigned long": c_types.ULONG,
    "long long": c_types.LLONG, "unsigned long long": c_types.ULLONG,
    "float": c_types.FLOAT, "double": c_types.DOUBLE, "long double": c_types.LDOUBLE,
}
_GENERIC = "_Generic((X), " + ", ".join(f'{t}: "{t}"' for t in _TYPES) + ', default: "?")'


def _gcc_types(exprs: list[str]) -> list[str]:
    """The type gcc gives each C expression (``_Generic``), one per line."""
    assert CC is not None
    body = "\n".join(f'  puts({_GENERIC.replace("X", e)});' for e in exprs)
    src = f"#include <stdio.h>\nint main(void) {{\n{body}\n  return 0;\n}}\n"
    exe = Path(tempfile.mkdtemp()) / "types"
    subprocess.run([CC, "-std=c11", "-w", "-x", "c", "-", "-o", str(exe)], input=src, check=True, text=True)
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split("\n")[:-1]


_BOUNDARIES = [0, 1, 7, 8, 2**15, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**63 - 1, 2**63, 2**64 - 1]
_SUFFIXES = ["", "u", "U", "l", "L", "ul", "LU", "ll", "ULL", "llu"]


def _spell(value: int, base: str, suffix: str) -> str:
    body = {"dec": str(value), "hex": hex(value), "oct": "0" + oct(value)[2:] if value else "0"}[base]
    return body + suffix


@needs_cc
@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(
    st.one_of(st.sampled_from(_BOUNDARIES), st.integers(0, 2**64 - 1)),
    st.sampled_from(["dec", "hex", "oct"]),
    st.sampled_from(_SUFFIXES),
), min_size=1, max_size=12))
def test_literal_types_agree_with_gcc(literals: list[tuple[int, str, str]]) -> None:
    texts = [_spell(v, b, s) for v, b, s in literals]
    texts = [t for t in texts if c_types.literal_type(t) is not None]  # gcc only warns on too-large
    if not texts:
        return
    gcc = _gcc_types(texts)
    ours = [str(c_types.literal_type(t)[0]) for t in texts]  # type: ignore[index]
    assert ours == gcc, list(zip(texts, ours, gcc, strict=True))


@needs_cc
def test_usual_arithmetic_conversions_agree_with_gcc() -> None:
    names = list(_TYPES)
    pairs = [(a, b) for a in names for b in names]
    gcc = _gcc_types([f"({a})0 + ({b})0" for a, b in pairs])
    ours = [str(c_types.usual_conversion(_TYPES[a], _TYPES[b])) for a, b in pairs]
    assert ours == gcc


def _expectation(path: Path) -> tuple[str, str]:
    m = re.search(r"expect: (verified|refused|sound)(?: \"(.*)\")?", path.read_text())
    assert m is not None, path
    return m.group(1), m.group(2) or ""


CASES = sorted(KERNELS.glob("*.c"))


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_c_semantics_kernel(path: Path) -> None:
    kind, text = _expectation(path)
    if kind == "refused":
        res = lift_file(path, check=False)
        assert res.status == "error", (res.status, res.summary)
        assert text in res.message
        assert re.match(rf"{re.escape(str(path))}:\d+:\d+: ", res.message)
        return
    if CC is None:
        pytest.skip("no C compiler")
    res = lift_file(path, check=True)
    if kind == "sound" and res.status != "verified":  # a clean "not lifted" is acceptable
        assert res.status == "not_lifted" and "internal error" not in res.message, res.message
        return
    assert res.status == "verified", res.message
    assert all(c["ok"] for c in res.check.values())
    assert res.check["loop-ir"]["inputs"] >= 60
    assert text in res.summary
    from tenspiler.fuzz.campaign import check_file

    rec = check_file(path)
    assert rec["cls"] == "agrees", rec


def _refused(src: str) -> LiftError:
    with pytest.raises(LiftError) as e:
        parse_c_source(src, "k.c")
    return e.value


def test_preprocessor_errors_are_located() -> None:
    err = _refused("#define N 4\nint f(int *a) {\n  return a[N] + oops;\n}\n")
    assert err.message == "error: use of undeclared identifier 'oops'"
    assert (err.loc.line, err.loc.col) == (3, 17)  # the user's column, after expansion
    err = _refused("#if 1\n#error no kernel here\n#endif\nint f(void) { return 0; }\n")
    assert "no kernel here" in err.message and err.loc.line == 2


def test_header_constants_need_their_header() -> None:
    err = _refused("int f(int *a) { return a[0] == INT_MAX; }\n")
    assert err.message == "error: use of undeclared identifier 'INT_MAX'"
    fn = parse_c_source("#include <limits.h>\nint f(int *a) { return a[0] == INT_MAX; }\n")
    assert "2147483647" in repr(fn.body)
