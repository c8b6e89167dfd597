"""The C preprocessor, run for real: macros mean what the compiler sees.

A kernel's ``#define``/``#undef``/``#if`` directives are executed by **pcpp** (a C99
preprocessor on PyPI), chosen over the system ``cpp`` as the *producer* of the text because
it keeps the user's spacing, so the columns of every unexpanded token stay exact for
``file:line:col`` messages (GCC's ``cpp -E`` collapses runs of blanks). When a system
preprocessor is available (``cpp``, else ``cc -E``/``gcc -E``) it is the *referee*: the same
text is preprocessed by it too, with the compiler's own predefined macros, and any
difference in the resulting token stream refuses the kernel ("the preprocessors disagree"),
so the lowering never sees code the compiler would not.

What is done before preprocessing (every line and column kept):

* comments are blanked (pcpp would shrink each to one blank);
* ``#include`` lines are blanked: the standard headers cannot be parsed by pycparser. The
  object-like macros of ``<limits.h>``, ``<stdint.h>``, ``<float.h>`` and ``<math.h>``
  that kernels use are predefined instead, with the values of the x86-64 / AArch64 LP64
  ABI that GCC's headers give them (:data:`HEADER_MACROS`); any other name from a header
  stays undeclared and the lowering refuses it;
* ``#pragma`` lines are blanked (OpenMP and vectoriser hints do not change the meaning of
  sequential code);
* the predefined macros of the build the differential check compiles (``$CC -dM -E`` with
  :data:`C_BUILD_FLAGS`, or ``$CXX`` with :data:`CXX_BUILD_FLAGS` for a C++ kernel) are
  defined, so ``#ifdef __GNUC__``/``__x86_64__``/``__STDC_VERSION__``/``__OPTIMIZE__``/
  ``__cplusplus`` take the branch of that build (without a compiler: a fixed GCC-on-x86-64
  ``-O2`` set). One set of macros: the proof reads the kernel as ``tenspiler.check.c``
  compiles it (it imports the same flags), and the generated code is the proof's.

``#error`` and malformed directives raise :class:`~tenspiler.errors.BadInput` at their
line.
"""

from __future__ import annotations

import functools
import io
import os
import re
import shutil
from dataclasses import dataclass, field

from tenspiler.errors import BadInput, SourceLoc
from tenspiler.frontend.flags import NO_FLAGS, CompileFlags
from tenspiler.runner import run_command

__all__ = ["CXX_BUILD_FLAGS", "C_BUILD_FLAGS", "HEADER_MACROS", "Macros", "can_check", "compile_args", "compiler", "preprocess"]

#: The flags of the one build a C kernel is read as: the frontend's preprocessing (the
#: predefined macros and the referee) and the differential check's compile
#: (``tenspiler.check.c``) both use them. Each one changes predefined macros: the
#: language standard (``__STDC_VERSION__``), the optimisation level (``-O2`` defines
#: ``__OPTIMIZE__`` and not ``__NO_INLINE__``), position-independent code (``-fPIC``: no
#: ``__PIE__``); flags that change none (``-shared``, UBSan) are the check's own.
C_BUILD_FLAGS: tuple[str, ...] = ("-std=gnu17", "-O2", "-fPIC")
#: The same for a C++ kernel (``__cplusplus`` is 201703L).
CXX_BUILD_FLAGS: tuple[str, ...] = ("-std=c++17", "-O2", "-fPIC")


def compiler(cxx: bool) -> str:
    """The compiler of the build: ``$CXX`` or ``c++`` for C++, ``$CC`` or ``cc`` for C."""
    return os.environ.get("CXX", "c++") if cxx else os.environ.get("CC", "cc")


def can_check(language: str) -> bool:
    """Whether translation validation can run for a kernel in ``language`` (``"c"``,
    ``"cxx"`` or ``"python"``): Python always; C / C++ when ``$CC``/``cc`` or
    ``$CXX``/``c++`` is on ``PATH``."""
    if language == "python":
        return True
    return shutil.which(compiler(language == "cxx")) is not None


def build_flags(cxx: bool) -> tuple[str, ...]:
    """The language and :data:`C_BUILD_FLAGS` / :data:`CXX_BUILD_FLAGS`."""
    return ("-x", "c++", *CXX_BUILD_FLAGS) if cxx else ("-x", "c", *C_BUILD_FLAGS)


def compile_args(cxx: bool, flags: CompileFlags = NO_FLAGS) -> list[str]:
    """:func:`build_flags` with the user's ``flags`` (:class:`~tenspiler.frontend.flags.
    CompileFlags`) after them; their ``-std=`` replaces the build's default standard."""
    base = [a for a in build_flags(cxx) if not (flags.std and a.startswith("-std="))]
    return [*base, *([f"-std={flags.std}"] if flags.std else []), *flags.command_line()]

#: Object-like macros of the standard headers kernels use, as GCC's headers define them on
#: LP64 targets (glibc ``limits.h``/``stdint.h``, GCC ``float.h``, glibc ``math.h``), by
#: header; a header's macros are defined only if the file includes it (C or C++ name).
#: A ``U``/``L`` suffix keeps each literal's C type (an unsigned one is refused where used).
HEADER_MACROS: dict[str, dict[str, str]] = {
    "limits": {
        "CHAR_BIT": "8",
        "SCHAR_MIN": "(-128)",
        "SCHAR_MAX": "127",
        "UCHAR_MAX": "255",
        "CHAR_MIN": "(-128)",
        "CHAR_MAX": "127",
        "SHRT_MIN": "(-32768)",
        "SHRT_MAX": "32767",
        "USHRT_MAX": "65535",
        "INT_MIN": "(-2147483647 - 1)",
        "INT_MAX": "2147483647",
        "LONG_MIN": "(-9223372036854775807L - 1L)",
        "LONG_MAX": "9223372036854775807L",
        "ULONG_MAX": "18446744073709551615UL",
        "LLONG_MIN": "(-9223372036854775807LL - 1LL)",
        "LLONG_MAX": "9223372036854775807LL",
    },
    "stdint": {
        "UINT_MAX": "4294967295U",
        "INT8_MIN": "(-128)",
        "INT8_MAX": "(127)",
        "UINT8_MAX": "(255)",
        "INT16_MIN": "(-32767-1)",
        "INT16_MAX": "(32767)",
        "UINT16_MAX": "(65535)",
        "INT32_MIN": "(-2147483647-1)",
        "INT32_MAX": "(2147483647)",
        "UINT32_MAX": "(4294967295U)",
        "INT64_MIN": "(-9223372036854775807L-1)",
        "INT64_MAX": "(9223372036854775807L)",
    },
    "float": {
        "FLT_MAX": "3.40282346638528859811704183484516925e+38F",
        "FLT_MIN": "1.17549435082228750796873653722224568e-38F",
        "FLT_EPSILON": "1.19209289550781250000000000000000000e-7F",
        "DBL_MAX": "1.79769313486231570814527423731704357e+308",
        "DBL_MIN": "2.22507385850720138309023271733240406e-308",
        "DBL_EPSILON": "2.22044604925031308084726333618164062e-16",
    },
    "math": {
        "M_E": "2.7182818284590452354",
        "M_LOG2E": "1.4426950408889634074",
        "M_LOG10E": "0.43429448190325182765",
        "M_LN2": "0.69314718055994530942",
        "M_LN10": "2.30258509299404568402",
        "M_PI": "3.14159265358979323846",
        "M_PI_2": "1.57079632679489661923",
        "M_PI_4": "0.78539816339744830962",
        "M_1_PI": "0.31830988618379067154",
        "M_2_PI": "0.63661977236758134308",
        "M_SQRT2": "1.41421356237309504880",
        "M_SQRT1_2": "0.70710678118654752440",
        # glibc's spellings (GCC builtins): refused by name where they are used
        # (c_inline.BUILTIN_SPECIAL), the real-number model has no infinity or NaN
        "INFINITY": "(__builtin_inff ())",
        "NAN": '(__builtin_nanf (""))',
        "HUGE_VAL": "(__builtin_huge_val ())",
        "HUGE_VALF": "(__builtin_huge_valf ())",
    },
}

_HEADER_OF: dict[str, str] = {
    "limits.h": "limits", "climits": "limits", "stdint.h": "stdint", "cstdint": "stdint",
    "inttypes.h": "stdint", "cinttypes": "stdint", "float.h": "float", "cfloat": "float",
    "math.h": "math", "cmath": "math",
}
_INCLUDE_RE = re.compile(r'[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]')


#: Predefined macros used when no system preprocessor exists (GCC 12 on x86-64, C17, -O2).
_FALLBACK_PREDEFINED: dict[str, str] = {
    "__OPTIMIZE__": "1",
    "__STDC__": "1",
    "__STDC_VERSION__": "201710L",
    "__STDC_HOSTED__": "1",
    "__GNUC__": "12",
    "__GNUC_MINOR__": "2",
    "__x86_64__": "1",
    "__x86_64": "1",
    "__LP64__": "1",
    "_LP64": "1",
    "__linux__": "1",
    "__CHAR_BIT__": "8",
    "__SIZEOF_INT__": "4",
    "__SIZEOF_LONG__": "8",
    "__INT_MAX__": "0x7fffffff",
    "__LONG_MAX__": "0x7fffffffffffffffL",
}

_DIRECTIVE_RE = re.compile(r"[ \t]*#[ \t]*(\w*)")
_DEFINE_RE = re.compile(r"#define (\S+?)(?:\s(.*))?$")
_LINE_MARKER_RE = re.compile(r"#(?:line)?\s*\d+(?:\s.*)?$")


def system_preprocessor(cxx: bool = False) -> tuple[str, ...] | None:
    """The command preprocessing as the build does: the build's :func:`compiler` with
    ``-E`` and :func:`build_flags` (else ``cpp``, ``gcc -E`` or ``clang -E`` with them), or
    ``None`` if there is none."""
    return _preprocessor(compiler(cxx), cxx)


@functools.cache
def _preprocessor(cc: str, cxx: bool) -> tuple[str, ...] | None:
    flags = build_flags(cxx)
    if shutil.which(cc):
        return (cc, "-E", *flags)
    if shutil.which("cpp"):
        return ("cpp", *flags)
    for other in ("gcc", "clang"):
        if shutil.which(other):
            return (other, "-E", *flags)
    return None


def predefined_macros(cxx: bool = False) -> tuple[tuple[str, str], ...]:
    """The predefined object-like macros of the build (``-dM`` with
    :func:`system_preprocessor`), or a fixed GCC-on-x86-64 ``-O2`` set when there is no
    system preprocessor."""
    return _predefined(system_preprocessor(cxx))


@functools.cache
def _predefined(cmd: tuple[str, ...] | None) -> tuple[tuple[str, str], ...]:
    if cmd is not None:
        try:
            res = run_command([*cmd, "-dM", "-", "-o", "-"], 30, input="")
            out = res.stdout if res.returncode == 0 else None
        except OSError:
            out = None
        if out is not None:
            found: list[tuple[str, str]] = []
            for line in out.splitlines():
                m = _DEFINE_RE.match(line)
                if m and "(" not in m.group(1):  # function-like builtins are not needed
                    found.append((m.group(1), m.group(2) or ""))
            return tuple(found)
    return tuple(_FALLBACK_PREDEFINED.items())


def _macro_names(cxx: bool = False) -> frozenset[str]:
    return _names(predefined_macros(cxx))


@functools.cache
def _names(predefined: tuple[tuple[str, str], ...]) -> frozenset[str]:
    return frozenset(n for n, _ in predefined) | frozenset(
        n for group in HEADER_MACROS.values() for n in group
    )


def header_macros(text: str) -> dict[str, str]:
    """The :data:`HEADER_MACROS` of the standard headers ``text`` includes."""
    out: dict[str, str] = {}
    for line in text.split("\n"):
        m = _INCLUDE_RE.match(line)
        if m and m.group(1) in _HEADER_OF:
            out.update(HEADER_MACROS[_HEADER_OF[m.group(1)]])
    return out


def char_is_signed() -> bool:
    """Whether plain ``char`` is signed on the system compiler's target (GCC defines
    ``__CHAR_UNSIGNED__`` where it is not, e.g. on AArch64)."""
    return "__CHAR_UNSIGNED__" not in _macro_names()


def _blank_lines(text: str, drop: frozenset[str]) -> str:
    """Blank (to empty lines) every directive named in ``drop`` with its continuation
    lines, so line numbers do not move."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = _DIRECTIVE_RE.match(lines[i])
        if m is None or m.group(1) not in drop:
            i += 1
            continue
        while True:
            cont = lines[i].rstrip().endswith("\\")
            lines[i] = ""
            i += 1
            if not cont or i >= len(lines):
                break
    return "\n".join(lines)


@dataclass(frozen=True)
class Macros:
    """Macro definitions of a build, ``name`` or ``name(params)`` → replacement text:
    ``builtin`` the compiler's predefined ones, ``given`` the command line's and the
    headers' (:func:`tenspiler.frontend.c_unit.build_macros`)."""

    builtin: dict[str, str] = field(default_factory=dict)
    given: dict[str, str] = field(default_factory=dict)


def preprocess(
    text: str, filename: str, cxx: bool = False, macros: Macros | None = None, flags: CompileFlags = NO_FLAGS
) -> str:
    """Preprocess comment-free C ``text`` (comments already blanked, see the module
    docstring) and return text for pycparser whose lines and columns are the user's.
    ``cxx``: a C++ kernel (the C++ build's macros, :data:`CXX_BUILD_FLAGS`). ``macros``:
    the build's macros (predefined, command line, headers) read from the compiler for this
    file, used instead of the predefined set and :data:`HEADER_MACROS`; ``flags``: the
    user's compile flags (their ``-std`` for the referee).

    Returns:
        The preprocessed text. It contains ``# N "file"`` line markers where lines were
        removed, so pycparser's coordinates stay the user's; a kernel without directives
        comes back unchanged.

    Raises:
        BadInput: ``#error``, a malformed directive, or a disagreement with the system
            preprocessor (located at the first differing line when known).
    """
    if macros is None:
        headers = header_macros(text)
        predefined = predefined_macros(cxx)
        names = _macro_names(cxx)
    else:
        headers = dict(macros.given)
        predefined = tuple(macros.builtin.items())
        names = frozenset(n.split("(")[0] for n in (*macros.given, *macros.builtin))
    text = _blank_lines(text, frozenset({"include", "pragma", "import"}))
    if not any(
        _DIRECTIVE_RE.match(line) for line in text.split("\n") if "#" in line
    ) and not set(re.findall(r"\b[A-Za-z_]\w*\b", text)) & names:
        return text  # nothing to expand
    from pcpp import Preprocessor

    errors: list[tuple[int, str]] = []

    class _Pre(Preprocessor):
        def on_error(self, file: str, line: int, msg: str) -> None:
            errors.append((line, msg))
            self.return_code += 1

        def on_include_not_found(self, *args: object) -> None:  # pragma: no cover
            raise AssertionError("#include lines are blanked before preprocessing")

    pre = _Pre()
    pre.line_directive = "#"
    pre.compress = 0
    for name, value in predefined:
        pre.define(f"{name} {value}")
    for name, value in headers.items():
        pre.define(f"{name} {value}")
    pre.parse(text, filename)
    out = io.StringIO()
    pre.write(out)
    if errors:
        line, msg = errors[0]
        msg = msg.strip()
        raise BadInput(f"preprocessor: {msg}", SourceLoc(filename, max(line, 1), 1))
    result = out.getvalue()
    _referee(text, result, filename, headers, cxx, flags)
    return result


def _tokens(text: str) -> str:
    """The token stream of preprocessed text as one string without blanks or line
    markers (both preprocessors' outputs are compared this way)."""
    kept = [ln for ln in text.split("\n") if not _LINE_MARKER_RE.match(ln.strip())]
    return re.sub(r"\s+", "", "".join(kept))


def _referee(
    text: str, produced: str, filename: str, headers: dict[str, str], cxx: bool = False,
    flags: CompileFlags = NO_FLAGS,
) -> None:
    """Check pcpp's output against the system preprocessor's (see the module docstring)."""
    cmd = system_preprocessor(cxx)
    if cmd is None:
        return
    if flags.std:
        cmd = tuple(f"-std={flags.std}" if a.startswith("-std=") else a for a in cmd)
    defines = [f"-D{name}={value}" for name, value in headers.items()]
    try:
        proc = run_command([*cmd, "-nostdinc", "-P", *defines, "-", "-o", "-"], 60, input=text)
    except OSError:
        return
    if proc.timed_out:
        return
    if proc.returncode != 0:
        m = re.search(r"<stdin>:(\d+):(\d+): (?:fatal )?error: (.*)", proc.stderr)
        if m:
            raise BadInput(
                f"preprocessor: {m.group(3)}",
                SourceLoc(filename, int(m.group(1)), int(m.group(2))),
            )
        raise BadInput(f"preprocessor: {proc.stderr.strip()}", SourceLoc(filename, 1, 1))
    # the referee reads stdin: its __FILE__ is "<stdin>" where pcpp's is the file's name
    refereed = proc.stdout.replace('"<stdin>"', '"' + filename.replace("\\", "\\\\").replace('"', '\\"') + '"')
    if _tokens(refereed) != _tokens(produced):
        raise BadInput(
            "the preprocessors disagree on this file (pcpp and the system cpp expand its "
            "macros differently): not lifted, since the result might not be the program "
            "the compiler sees",
            SourceLoc(filename, 1, 1),
        )
