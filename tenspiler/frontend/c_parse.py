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
from tenspiler.frontend.c_unit import PRELUDE_TYPEDEFS, Reading
from tenspiler.frontend.cxx import VectorType, rewrite_cxx
from tenspiler.frontend.cxx import prelude as cxx_prelude
from tenspiler.frontend.flags import NO_FLAGS, CompileFlags
from tenspiler.frontend.preprocess import preprocess
from tenspiler.loops.ir import DType

__all__ = ["BUILTIN_TYPEDEFS", "GNU_KEYWORDS", "HARMLESS_ATTRIBUTES", "PRELUDE_TYPEDEFS", "iso_spellings", "parse_translation_unit"]


def parse_translation_unit(
    text: str, filename: str, cxx: bool, reading: Reading | None = None, flags: CompileFlags = NO_FLAGS
) -> tuple[list[c_ast.Node], dict[str, VectorType]]:
    """The top-level declarations and definitions of the C source ``text`` (line ends
    already ``\\n``), without the prelude's typedefs, and (``cxx``: the C++ ``std::vector``
    subset) the vector typedef names it uses. ``reading``: clang's reading of the file
    (:func:`tenspiler.frontend.c_unit.read_unit`: what the kernel does not need blanked,
    the headers' declarations as a prelude, the build's macros); ``flags``: the user's
    compile flags.

    Raises:
        BadInput: an unterminated comment, a preprocessor error, a C++ construct outside
            the subset or a syntax error, located in ``filename``.
    """
    body = reading.text if reading is not None else text
    prepared = preprocess(_blank_comments(body, filename), filename, cxx,
                          reading.macros if reading is not None else None, flags)
    prepared = _collapse_blank_runs(iso_spellings(prepared, filename), filename)
    vectors: dict[str, VectorType] = {}
    head = " ".join(f"typedef {c} {n};" for n, c in PRELUDE_TYPEDEFS)
    n_head = len(PRELUDE_TYPEDEFS)
    if reading is not None and reading.prelude:  # the headers' declarations are the unit's: kept in the result
        head = f"{head} {' '.join(reading.prelude)}"
    if cxx:
        prepared, vectors = rewrite_cxx(prepared, filename)
        decls, n = cxx_prelude(vectors)
        head, n_head = f"{head} {decls}", n_head + n
    helpers = ""  # the header functions the kernel calls, each at its header's line and column
    for h in reading.header_functions if reading is not None else ():
        at_its_line = "\n" * (h.line - 1) + h.text  # the preprocessor numbers the header's lines
        chunk = preprocess(_blank_comments(at_its_line, h.file), h.file, cxx, reading.macros if reading else None, flags)
        helpers += f'\n# 1 "{h.file}"\n' + _collapse_blank_runs(iso_spellings(chunk, h.file), h.file)
    if helpers:
        helpers += f'\n# 1 "{filename}"'
    parser = c_parser.CParser()
    try:
        ast = parser.parse(head + helpers + "\n# 1\n" + prepared, filename)
    except c_parser.ParseError as e:
        raise first_parse_error(text, filename, cxx) or _syntax_error(str(e), parser, filename, text) from None
    return list(ast.ext[n_head:]), vectors


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


#: GNU C keywords pycparser does not read, and the ISO C keyword each one means (GCC manual,
#: "Alternate Keywords"); written over the same columns.
GNU_KEYWORDS: dict[str, str] = {
    "__extension__": "",
    "__inline__": "inline", "__inline": "inline",
    "__restrict__": "restrict", "__restrict": "restrict",
    "__const__": "const", "__const": "const",
    "__signed__": "signed", "__signed": "signed",
    "__volatile__": "volatile", "__volatile": "volatile",
}

#: GNU attributes that do not change what sequential code computes (inlining, linkage,
#: warnings, alignment, optimisation hints); any other attribute in the code the kernel
#: needs (``vector_size``, ``mode``, ``packed``, ``cleanup``, ...) is refused by name.
HARMLESS_ATTRIBUTES = frozenset({
    "always_inline", "noinline", "inline", "unused", "used", "hot", "cold", "const", "pure",
    "nonnull", "nothrow", "leaf", "gnu_inline", "warn_unused_result", "aligned", "visibility", "section",
    "weak", "deprecated", "format", "malloc", "optimize", "target", "noreturn", "artificial",
    "flatten", "returns_nonnull", "access", "alloc_size", "nodiscard", "maybe_unused",
    "fallthrough", "no_instrument_function", "no_sanitize", "no_sanitize_undefined",
})

_GNU_WORD = re.compile(r"\b(__attribute__|__attribute|" + "|".join(sorted(GNU_KEYWORDS, key=len, reverse=True)) + r")\b")
_ATTR_NAME = re.compile(r"\s*(?:__)?([A-Za-z_]\w*?)(?:__)?\s*(?:\(|,|$)")


def iso_spellings(text: str, filename: str) -> str:
    """Preprocessed ``text`` with GNU keywords written as the ISO keywords they mean
    (:data:`GNU_KEYWORDS`) and ``__attribute__((...))`` blanked when every attribute in it is
    :data:`HARMLESS_ATTRIBUTES`, each over the same columns (string and character literals
    are left alone).

    Raises:
        BadInput: an attribute outside :data:`HARMLESS_ATTRIBUTES`, at its location.
    """
    if "__" not in text:
        return text
    out = list(text)
    pos = 0
    for m in _GNU_WORD.finditer(text):
        if m.start() < pos or _in_literal(text, m.start()):
            continue
        word = m.group(1)
        if word in GNU_KEYWORDS:
            new = GNU_KEYWORDS[word]
            out[m.start() : m.end()] = list(new.ljust(len(word)))
            pos = m.end()
            continue
        end = _balanced(text, m.end())
        if end is None:
            continue
        inner = text[m.end() : end].strip()
        inner = inner[1:-1].strip() if inner.startswith("(") else inner
        inner = inner[1:-1] if inner.startswith("(") and inner.endswith(")") else inner
        for item in _top_level_items(inner):
            name = _ATTR_NAME.match(item)
            attr = name.group(1) if name else item.strip()
            if attr and attr not in HARMLESS_ATTRIBUTES:
                raise BadInput(f"GNU attribute '{attr}' is not supported (it may change types or layout)",
                               _prepared_loc(text, m.start(), filename))
        for i in range(m.start(), end):
            if out[i] != "\n":
                out[i] = " "
        pos = end
    return "".join(out)


def _collapse_blank_runs(text: str, filename: str, at_least: int = 8) -> str:
    """``text`` with each run of ``at_least`` or more blank lines (what the kernel does not
    need, blanked) replaced by a ``# N "file"`` line marker, so pycparser's coordinates stay
    the file's while it lexes far less."""
    lines = text.split("\n")
    if len(lines) < 2 * at_least:
        return text
    out: list[str] = []
    line, name = 1, filename
    run: list[str] = []
    for ln in [*lines, None]:
        if ln is not None and not ln.strip():
            run.append(ln)
            continue
        if len(run) >= at_least:
            out.append(f'# {line + len(run)} "{name}"')
        else:
            out.extend(run)
        line += len(run)
        run = []
        if ln is None:
            break
        m = _MARKER_LINE.fullmatch(ln.strip())
        out.append(ln)
        if m:
            line, name = int(m.group(1)), m.group(2) or name
        else:
            line += 1
    return "\n".join(out)


def _in_literal(text: str, i: int) -> bool:
    """Whether offset ``i`` lies inside a string or character literal on its line."""
    start = text.rfind("\n", 0, i) + 1
    quote = ""
    j = start
    while j < i:
        c = text[j]
        if quote:
            if c == "\\":
                j += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        j += 1
    return bool(quote)


def _balanced(text: str, i: int) -> int | None:
    """The offset after the parenthesised group starting (after blanks) at ``i``."""
    while i < len(text) and text[i] in " \t\n":
        i += 1
    if i >= len(text) or text[i] != "(":
        return None
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return j + 1
    return None


def _top_level_items(inner: str) -> list[str]:
    items, depth, cur = [], 0, ""
    for c in inner:
        if c == "," and depth == 0:
            items.append(cur)
            cur = ""
            continue
        depth += c == "("
        depth -= c == ")"
        cur += c
    return [*items, cur]


_MARKER_LINE = re.compile(r'#(?:line)?\s*(\d+)(?:\s+"([^"]*)")?')


def _prepared_loc(text: str, offset: int, filename: str) -> SourceLoc:
    """The user's location of ``offset`` in preprocessed text with ``# N "file"`` markers."""
    line, name = 1, filename
    start = 0
    for ln in text[:offset].split("\n")[:-1]:
        m = _MARKER_LINE.fullmatch(ln.strip())
        if m:
            line, name = int(m.group(1)), m.group(2) or name
        else:
            line += 1
        start += len(ln) + 1
    return SourceLoc(name, line, offset - start + 1)


def _prepare(text: str, filename: str, cxx: bool = False) -> str:
    """Blank comments (keeping every line and column), then run the C preprocessor
    (:func:`tenspiler.frontend.preprocess.preprocess`: ``#include``/``#pragma`` blanked,
    macros and conditionals executed with the predefined macros of the build the check
    compiles, checked against that build's preprocessor)."""
    return preprocess(_blank_comments(text, filename), filename, cxx)


_LEXEME = re.compile(r"[\"'/]")


def _blank_comments(text: str, filename: str) -> str:
    """Replace ``/* */`` and ``//`` comments by spaces, keeping newlines (string and
    character literals are skipped; a ``//`` comment continued by a backslash-newline goes
    on)."""
    out: list[str] = []
    i, n = 0, len(text)
    while True:
        m = _LEXEME.search(text, i)
        if m is None:
            out.append(text[i:])
            return "".join(out)
        k = m.start()
        c = text[k]
        if c in "\"'":
            j = k + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", k):
            j = k
            while True:
                e = text.find("\n", j)
                if e < 0:
                    e = n
                if e > 0 and text[e - 1] == "\\" and e < n:  # continued comment: keep the newline
                    j = e + 1
                    continue
                break
            out.append(text[i:k])
            out.append(re.sub(r"[^\n]", " ", text[k:e]))
            i = e
        elif text.startswith("/*", k):
            end = text.find("*/", k + 2)
            if end < 0:
                line = text.count("\n", 0, k) + 1
                raise BadInput("unterminated comment", SourceLoc(filename, line, k - (text.rfind("\n", 0, k) + 1) + 1))
            out.append(text[i:k])
            out.append(re.sub(r"[^\n]", " ", text[k : end + 2]))
            i = end + 2
        else:
            out.append(text[i : k + 1])
            i = k + 1


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
