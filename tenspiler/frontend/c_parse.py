"""Reading a C / C++ translation unit: comments blanked (keeping every line and column), the
C preprocessor run (:mod:`tenspiler.frontend.preprocess`), the C++ ``std::vector`` subset
rewritten (:mod:`tenspiler.frontend.cxx`), typedefs for the ``<stdint.h>`` names prepended
on one line followed by a ``# 1`` line marker, and pycparser's syntax errors located at the
user's ``file:line:col`` (or, when libclang is available, clang's first parse error:
:mod:`tenspiler.frontend.c_diagnose`)."""

from __future__ import annotations

import re

from pycparser import c_ast, c_parser

from tenspiler.errors import BadInput, SourceLoc
from tenspiler.frontend.c_diagnose import first_parse_error
from tenspiler.frontend.cxx import VectorType, rewrite_cxx
from tenspiler.frontend.cxx import prelude as cxx_prelude
from tenspiler.frontend.preprocess import preprocess
from tenspiler.loops.ir import DType

__all__ = ["BUILTIN_TYPEDEFS", "PRELUDE_TYPEDEFS", "parse_translation_unit"]


def parse_translation_unit(text: str, filename: str, cxx: bool) -> tuple[list[c_ast.Node], dict[str, VectorType]]:
    """The top-level declarations and definitions of the C source ``text`` (line ends
    already ``\\n``), without the prelude's typedefs, and (``cxx``: the C++ ``std::vector``
    subset) the vector typedef names it uses.

    Raises:
        BadInput: an unterminated comment, a preprocessor error, a C++ construct outside
            the subset or a syntax error, located in ``filename``.
    """
    prepared = _prepare(text, filename, cxx)
    vectors: dict[str, VectorType] = {}
    head = " ".join(f"typedef {c} {n};" for n, c in PRELUDE_TYPEDEFS)
    n_head = len(PRELUDE_TYPEDEFS)
    if cxx:
        prepared, vectors = rewrite_cxx(prepared, filename)
        decls, n = cxx_prelude(vectors)
        head, n_head = f"{head} {decls}", n_head + n
    parser = c_parser.CParser()
    try:
        ast = parser.parse(head + "\n# 1\n" + prepared, filename)
    except c_parser.ParseError as e:
        raise first_parse_error(text, filename, cxx) or _syntax_error(str(e), parser, filename, text) from None
    return list(ast.ext[n_head:]), vectors


#: Typedefs made known to pycparser; prepended on one line followed by a ``# 1`` marker.
PRELUDE_TYPEDEFS: tuple[tuple[str, str], ...] = (
    ("uint8_t", "unsigned char"),
    ("int8_t", "signed char"),
    ("int32_t", "int"),
    ("int64_t", "long"),
    ("size_t", "unsigned long"),
    ("int16_t", "short"),
    ("uint16_t", "unsigned short"),
    ("uint32_t", "unsigned int"),
    ("uint64_t", "unsigned long"),
    ("ptrdiff_t", "long"),
)

#: What the prelude typedef names mean (``None``: refused when used).
BUILTIN_TYPEDEFS: dict[str, DType | None] = {
    "uint8_t": DType.UINT8,
    "int8_t": DType.INT8,
    "int32_t": DType.INT,
    "int64_t": DType.INT,
    "size_t": None,  # unsigned: wraps modulo 2^64, not modelled
    "int16_t": DType.INT16,
    "uint16_t": DType.UINT16,
    "uint32_t": DType.UINT32,
    "uint64_t": None,
    "ptrdiff_t": None,  # (a long; not needed by kernels)
}


def _prepare(text: str, filename: str, cxx: bool = False) -> str:
    """Blank comments (keeping every line and column), then run the C preprocessor
    (:func:`tenspiler.frontend.preprocess.preprocess`: ``#include``/``#pragma`` blanked,
    macros and conditionals executed with the predefined macros of the build the check
    compiles, checked against that build's preprocessor)."""
    return preprocess(_blank_comments(text, filename), filename, cxx)


def _blank_comments(text: str, filename: str) -> str:
    """Replace ``/* */`` and ``//`` comments by spaces, keeping newlines."""
    out = list(text)
    i, n = 0, len(text)
    line, line_start = 1, 0
    while i < n:
        c = text[i]
        if c == "\n":
            line, line_start = line + 1, i + 1
            i += 1
        elif c in "\"'":
            i += 1
            while i < n and text[i] != c and text[i] != "\n":
                i += 2 if text[i] == "\\" else 1
            i += 1
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out[i] = " "
                    i += 1  # continued comment: keep the newline
                    line, line_start = line + 1, i + 1
                else:
                    out[i] = " "
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise BadInput(
                    "unterminated comment", SourceLoc(filename, line, i - line_start + 1)
                )
            for j in range(i, end + 2):
                if text[j] == "\n":
                    line, line_start = line + 1, j + 1
                else:
                    out[j] = " "
            i = end + 2
        else:
            i += 1
    return "".join(out)


_PARSE_ERROR_RE = re.compile(r"(\d+)(?::(\d+))?: (.*)", re.DOTALL)


def _syntax_error(msg: str, parser: c_parser.CParser, filename: str, text: str) -> BadInput:
    """Turn a pycparser ``ParseError`` message into a located :class:`BadInput`."""
    body = msg[len(filename) + 1 :] if msg.startswith(filename + ":") else msg
    m = _PARSE_ERROR_RE.fullmatch(body)
    if m is not None:
        loc = SourceLoc(filename, int(m.group(1)), int(m.group(2) or 1))
        what = m.group(3)
    else:
        what = body.strip()
        loc = _current_token_loc(parser, filename) or _end_loc(filename, text)
    if what.startswith("before: "):
        return BadInput(f"syntax error before '{what[len('before: ') :]}'", loc)
    if what == "At end of input":
        return BadInput("syntax error: unexpected end of input", _end_loc(filename, text))
    return BadInput(f"syntax error: {what}", loc)


def _current_token_loc(parser: c_parser.CParser, filename: str) -> SourceLoc | None:
    """Location of the token pycparser was looking at (its messages sometimes lack one)."""
    try:
        stream = parser._tokens  # private, hence the defensive access
        tok = stream._buffer[stream._index]
    except (AttributeError, IndexError):
        return None
    if tok is None:
        return None
    return SourceLoc(filename, tok.lineno, tok.column)


def _end_loc(filename: str, text: str) -> SourceLoc:
    lines = text.rstrip("\n").split("\n")
    return SourceLoc(filename, len(lines), len(lines[-1]) + 1)
