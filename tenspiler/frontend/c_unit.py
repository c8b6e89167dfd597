"""A C translation unit read the way the compiler reads it: clang's parse of the file with its
compile flags, then only what the kernel needs handed to the lowering.

:func:`read_unit` parses the file with libclang (clang's own parser and type checker) with
the build's language flags, the user's :class:`~tenspiler.frontend.flags.CompileFlags`
(``-I``/``-D``/``-U``/``-std``/``-include``, or a compilation database's entry) and the
system compiler's include directories, so system and project headers, GNU extensions and
byte-order marks are read as the compiler reads them. Then:

* **clang's diagnostics.** An error clang reports anywhere in the unit (a syntax error, an
  unknown type name, a header not found) refuses the file with clang's message at clang's
  location, as a compiler would: ``f.c:3:10: error: 'x.h' file not found (add its folder
  with -I DIR)``. The implicit declarations GCC 12 accepts with a warning (implicit function
  declarations, implicit ``int``, int/pointer conversions) are warnings here too, since
  ``--check`` compiles with GCC.
* **What the kernel needs** (:func:`needed`): the kernel, the functions of the file it calls,
  and every declaration they refer to (variables, typedefs, structs, unions, enums),
  transitively, from clang's cross-references (``cursor.referenced``), not from names.
* **The rest of the file is blanked** (replaced by spaces, every newline and preprocessor
  directive kept, so line, column and the conditional structure stay the file's): another
  function, a global or a type the kernel does not use can no longer block it.
* **Declarations from headers become a prelude** (:func:`prelude`): typedefs, structs,
  unions and enums the needed code uses, written from clang's AST (enum constants with the
  values clang computed), and ``extern`` declarations of the header variables it reads. Names
  the lowering predefines (:data:`PRELUDE_TYPEDEFS`) are left to it.
* **Macros** come from the build's own preprocessor (:func:`build_macros`: ``cc -E -dD`` with
  the same flags): the predefined ones, the command line's and the headers' — each in the
  state the end of the file sees — restricted to those the kept text can expand.

A C++ file (the ``std::vector`` subset) is read whole by the lowering, with the build's
macros for its flags (:func:`build_macros`).
"""

from __future__ import annotations

import functools
import re
import shutil
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tenspiler.errors import BadInput, SourceLoc
from tenspiler.frontend.flags import NO_FLAGS, CompileFlags
from tenspiler.frontend.preprocess import Macros, compile_args, compiler
from tenspiler.runner import run_command

__all__ = ["PRELUDE_TYPEDEFS", "HeaderFunction", "Reading", "build_macros", "header_functions", "read_unit", "system_include_dirs"]

#: Diagnostics GCC 12 (the compiler ``--check`` uses) gives as warnings where clang 16+
#: defaults to errors: made warnings for clang too, so a file GCC compiles is read.
GCC_LENIENCY = (
    "-Wno-error=implicit-function-declaration",
    "-Wno-error=implicit-int",
    "-Wno-error=int-conversion",
    "-Wno-error=incompatible-function-pointer-types",
    "-Wno-error=incompatible-pointer-types",
    "-Wno-error=return-type",
)


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

#: The ``<stdint.h>`` / ``<stddef.h>`` names are predefined for the lowering
#: (:data:`PRELUDE_TYPEDEFS`), so clang reads the file with
#: those headers included first: a kernel using ``uint8_t`` without ``#include <stdint.h>``
#: is read as before (its ``--check`` compile, of the file as it is, fails as the compiler does).
PREDEFINED_HEADERS = ("-include", "stddef.h", "-include", "stdint.h")


@dataclass(frozen=True)
class HeaderFunction:
    """A function defined in a header (a ``static inline`` helper) that the kernel calls:
    its text from ``line`` of ``file``, indented to its column, to be preprocessed and
    lowered with the file."""

    file: str
    line: int
    text: str


@dataclass(frozen=True)
class Reading:
    """The file as the lowering reads it.

    ``text``: the file's text with what the kernel does not need blanked (the same
    lines); ``prelude``: C declarations from headers, one top-level declaration each; ``macros``: the build's
    macros the text may expand (``None``: no compiler, the preprocessor's own defaults);
    ``kernel``: the kernel clang found (``None``: the lowering chooses and reports);
    ``check_text``: what ``--check`` compiles — the file's text with the body of every
    function definition the kernel cannot reach replaced by ``;`` (``""``: the whole file)."""

    text: str
    prelude: tuple[str, ...] = ()
    macros: Macros | None = None
    kernel: str | None = None
    check_text: str = ""
    header_functions: tuple[HeaderFunction, ...] = ()


def read_unit(text: str, filename: str, function: str | None, flags: CompileFlags = NO_FLAGS) -> Reading:
    """Read the C file ``text`` (its name ``filename``: quoted includes are looked for next
    to it) with ``flags``; see the module docstring.

    Raises:
        BadInput: clang's first error, at its location.
    """
    import clang.cindex as ci

    args = [*compile_args(False, flags), *GCC_LENIENCY, *(f"-isystem{d}" for d in system_include_dirs(False)),
            *PREDEFINED_HEADERS]
    try:
        tu = ci.Index.create().parse(filename, args=args, unsaved_files=[(filename, text)], options=0)
    except ci.TranslationUnitLoadError as e:  # pragma: no cover - libclang failing as a whole
        raise BadInput(f"clang cannot read the file: {e}", SourceLoc(filename, 1, 1)) from None
    _raise_first_error(tu, filename)
    kernel = _choose_kernel(tu, filename, function)
    if kernel is None:
        return Reading(text, (), build_macros(text, filename, flags), None)
    keep, headers = needed(kernel, filename)
    reduced = _blank_unneeded(text, tu, filename, keep)
    helpers = header_functions(headers)
    # the macros the kept text and the header functions can expand
    macros = build_macros(text, filename, flags, reach="\n".join([reduced, *(h.text for h in helpers)]))
    return Reading(reduced, prelude(headers), macros, kernel.spelling, _check_text(text, tu, filename, keep), helpers)


# ------------------------------------------------------------------ diagnostics


def _raise_first_error(tu: Any, filename: str) -> None:
    import clang.cindex as ci

    for d in tu.diagnostics:
        if d.severity < ci.Diagnostic.Error:
            continue
        f = d.location.file
        loc = SourceLoc(f.name if f is not None else filename, max(d.location.line, 1), max(d.location.column, 1))
        msg = d.spelling
        if msg.endswith("file not found"):
            msg += " (add its folder with -I DIR, or give the build's --compile-commands)"
        what = "syntax error" if d.category_name == "Parse Issue" else "error"
        raise BadInput(f"{what}: {msg}", loc)


# ------------------------------------------------------------------ the kernel and what it needs


def _in_file(cursor: Any, filename: str) -> bool:
    f = cursor.location.file
    return f is not None and f.name == filename


def _choose_kernel(tu: Any, filename: str, function: str | None) -> Any | None:
    import clang.cindex as ci

    defs = [
        c for c in tu.cursor.get_children()
        if c.kind == ci.CursorKind.FUNCTION_DECL and c.is_definition() and _in_file(c, filename)
    ]
    if function is not None:
        found = [c for c in defs if c.spelling == function]
        return found[-1] if found else None
    public = [c for c in defs if c.storage_class != ci.StorageClass.STATIC]
    return public[-1] if public else None


def _key(cursor: Any) -> tuple[str, int]:
    f = cursor.location.file
    return (f.name if f is not None else "", cursor.extent.start.offset)


def needed(kernel: Any, filename: str) -> tuple[dict[tuple[str, int], Any], dict[tuple[str, int], Any]]:
    """The declarations the kernel needs, transitively: those of ``filename`` (kept as
    text) and those of headers (written by :func:`prelude`), each keyed by file and offset,
    in the order found."""
    import clang.cindex as ci

    K = ci.CursorKind
    keep: dict[tuple[str, int], Any] = {}
    headers: dict[tuple[str, int], Any] = {}
    work = [kernel]
    keep[_key(kernel)] = kernel
    while work:
        decl = work.pop()
        for node in decl.walk_preorder():
            for ref in _references(node):
                if ref.kind == K.ENUM_CONSTANT_DECL:
                    ref = ref.semantic_parent
                if ref is None or ref.kind not in _DECL_KINDS:
                    continue
                local = ref.semantic_parent is None or ref.semantic_parent.kind != K.TRANSLATION_UNIT
                if local and ref.kind not in (K.STRUCT_DECL, K.UNION_DECL, K.ENUM_DECL):
                    continue  # a local, a parameter, a field
                d = ref.get_definition() or ref
                k = _key(d)
                if k in keep or k in headers:
                    continue
                if _in_file(d, filename):
                    keep[k] = d
                    work.append(d)
                else:
                    headers[k] = d
                    if (d.kind != K.FUNCTION_DECL or d.is_definition()) and not _predefined_typedef(d):
                        work.append(d)  # a header's helper function is lowered like the file's
    return keep, headers


@functools.cache
def _decl_kinds() -> frozenset[Any]:
    import clang.cindex as ci

    K = ci.CursorKind
    return frozenset({K.FUNCTION_DECL, K.VAR_DECL, K.TYPEDEF_DECL, K.STRUCT_DECL, K.UNION_DECL, K.ENUM_DECL})


class _Kinds:
    def __contains__(self, kind: object) -> bool:
        return kind in _decl_kinds()


_DECL_KINDS = _Kinds()


def _references(node: Any) -> Iterator[Any]:
    ref = node.referenced
    if ref is not None and ref != node:
        yield ref
    try:
        t = node.type
    except Exception:
        return
    seen = 0
    while t is not None and seen < 16:
        seen += 1
        d = t.get_declaration()
        if d is not None and d.kind in _DECL_KINDS:
            yield d
        nxt = t.get_pointee()
        if nxt.kind.name == "INVALID":
            nxt = t.element_type if t.kind.name.endswith("ARRAY") else None
        t = nxt if nxt is not None and nxt.kind.name != "INVALID" else None


def _predefined_typedef(cursor: Any) -> bool:
    import clang.cindex as ci

    return cursor.kind == ci.CursorKind.TYPEDEF_DECL and cursor.spelling in dict(PRELUDE_TYPEDEFS)


# ------------------------------------------------------------------ blanking the rest


def _blank_unneeded(text: str, tu: Any, filename: str, keep: Mapping[tuple[str, int], Any]) -> str:
    """``text`` with the top-level declarations of ``filename`` outside ``keep`` blanked
    (see the module docstring); a character inside a kept declaration's extent is never
    blanked."""
    import clang.cindex as ci

    K = ci.CursorKind
    blankable = {K.FUNCTION_DECL, K.VAR_DECL, K.TYPEDEF_DECL, K.STRUCT_DECL, K.UNION_DECL, K.ENUM_DECL}
    data = text.encode("utf-8")
    char_of = _char_offsets(text, data)
    kept: list[tuple[int, int]] = []
    drop: list[tuple[int, int]] = []
    for c in tu.cursor.get_children():
        if not _in_file(c, filename):
            continue
        span = (char_of(c.extent.start.offset), char_of(c.extent.end.offset))
        if _key(c) in keep or (c.kind == K.FUNCTION_DECL and (c.get_definition() and _key(c.get_definition()) in keep)):
            kept.append(span)
        elif c.kind in blankable:
            drop.append(span)
        else:
            kept.append(span)
    mask = bytearray(len(text) + 1)
    for a, b in drop:
        mask[a:b] = b"\x01" * (b - a)
    for a, b in kept:
        mask[a:b] = bytes(b - a)
    out: list[str] = []
    pos, continued = 0, False
    for line in text.split("\n"):
        directive = continued or line.lstrip(" \t").startswith("#")  # kept: the conditionals stay whole
        continued = directive and line.endswith("\\")
        seg = mask[pos : pos + len(line)]
        if directive or 1 not in seg:
            out.append(line)
        elif 0 not in seg:
            out.append("")  # nothing on this line is kept
        else:
            out.append("".join(" " if m else ch for ch, m in zip(line, seg, strict=True)))
        pos += len(line) + 1
    return "\n".join(out)


def _check_text(text: str, tu: Any, filename: str, keep: Mapping[tuple[str, int], Any]) -> str:
    """The file's text with the body of each function definition that neither the kernel
    nor a file-scope declaration reaches (transitively) replaced by ``;``, newlines kept, so
    the compiler's line numbers stay the file's. A definition carrying an attribute (a
    constructor runs when the library loads), or whose body is not literally ``{ ... }``
    in the file or holds a preprocessor directive, is kept whole."""
    import clang.cindex as ci

    K = ci.CursorKind
    top = [c for c in tu.cursor.get_children() if _in_file(c, filename)]
    data = text.encode("utf-8")
    char_of = _char_offsets(text, data)
    bodies: dict[tuple[str, int], tuple[int, int]] = {}  # the definitions whose body can be cut
    roots = [c for c in top if c.kind == K.VAR_DECL]
    for c in top:
        if c.kind != K.FUNCTION_DECL or not c.is_definition():
            continue
        body = [ch for ch in c.get_children() if ch.kind == K.COMPOUND_STMT]
        cut = bool(body) and not any("ATTR" in ch.kind.name for ch in c.get_children())
        if cut:
            a, b = char_of(body[-1].extent.start.offset), char_of(body[-1].extent.end.offset)
            cut = text[a : a + 1] == "{" and text[b - 1 : b] == "}" and not re.search(r"(?m)^[ \t]*#(?![ \t]*pragma)", text[a:b])
        if cut:
            bodies[_key(c)] = (a, b)
        else:
            roots.append(c)  # kept whole: what it calls is kept too
    reach = dict(keep)
    for c in roots:
        reach.update(needed(c, filename)[0])
    out = list(text)
    for k, (a, b) in bodies.items():
        if k in reach:
            continue
        for i in range(a, b):
            if out[i] != "\n":
                out[i] = " "
        out[a] = ";"
    return "".join(out)


def _char_offsets(text: str, data: bytes) -> Any:
    """Byte offset in the UTF-8 ``data`` → character offset in ``text``."""
    if len(data) == len(text):
        return lambda b: b
    table = [0] * (len(data) + 1)
    pos = 0
    for ci_, ch in enumerate(text):
        n = len(ch.encode("utf-8"))
        for k in range(n):
            table[pos + k] = ci_
        pos += n
    table[pos] = len(text)
    return lambda b: table[min(b, len(data))]


# ------------------------------------------------------------------ the prelude from headers


def prelude(headers: Mapping[tuple[str, int], Any]) -> tuple[str, ...]:
    """C declarations (one top-level declaration each) for the header declarations the kernel needs, written from
    clang's AST, each after those it refers to."""
    import clang.cindex as ci

    K = ci.CursorKind
    done: set[tuple[str, int]] = set()
    out: list[str] = []

    def emit(d: Any) -> None:
        k = _key(d)
        if k in done:
            return
        done.add(k)
        if _predefined_typedef(d) or d.kind == K.FUNCTION_DECL:
            return
        for node in d.walk_preorder():
            for ref in _references(node):
                if ref.kind == K.ENUM_CONSTANT_DECL:
                    ref = ref.semantic_parent
                r = ref.get_definition() or ref
                if _key(r) in headers and _key(r) != k and not _inline_record(r, d):
                    emit(r)
        text = _declaration(d)
        if text:
            out.append(text)

    for d in headers.values():
        emit(d)
    return tuple(out)


def header_functions(headers: Mapping[tuple[str, int], Any]) -> tuple[HeaderFunction, ...]:
    """The text of each function defined in a header that the kernel reaches, in the order
    of the headers' declarations."""
    import clang.cindex as ci

    out: list[HeaderFunction] = []
    for d in sorted(headers.values(), key=_key):
        if d.kind != ci.CursorKind.FUNCTION_DECL or not d.is_definition():
            continue
        start, end = d.extent.start, d.extent.end
        if start.file is None or end.file is None or start.file.name != end.file.name:
            continue
        try:
            data = open(start.file.name, "rb").read()  # noqa: SIM115 - read once, closed by GC
        except OSError:
            continue
        text = data[start.offset : end.offset].decode("utf-8", errors="replace")
        out.append(HeaderFunction(start.file.name, start.line, " " * (start.column - 1) + text))
    return tuple(out)


def _inline_record(record: Any, typedef: Any) -> bool:
    """Whether ``record`` is the anonymous struct/union/enum ``typedef`` defines inline."""
    import clang.cindex as ci

    K = ci.CursorKind
    return typedef.kind == K.TYPEDEF_DECL and record.kind != K.ENUM_DECL and _untagged(record) and (
        typedef.underlying_typedef_type.get_declaration() == record
    )


def _declaration(d: Any) -> str:
    import clang.cindex as ci

    K = ci.CursorKind
    if d.kind == K.TYPEDEF_DECL:
        under = d.underlying_typedef_type
        rec = under.get_declaration()
        if rec is not None and rec.kind == K.ENUM_DECL and _untagged(rec):
            # an untagged enum's type is compatible with its integer type (C11 §6.7.2.2p4, the
            # one clang computes); its constants are declared on their own, as ints
            return f"typedef {rec.enum_type.spelling} {d.spelling};"
        if rec is not None and rec.kind in (K.STRUCT_DECL, K.UNION_DECL) and _untagged(rec):
            return f"typedef {_record_body(rec)} {d.spelling};"
        return f"typedef {_declarator(under.spelling, d.spelling)};"
    if d.kind in (K.STRUCT_DECL, K.UNION_DECL, K.ENUM_DECL):
        if _untagged(d):
            return f"{_record_body(d)};" if d.kind == K.ENUM_DECL else ""
        return f"{_record_body(d)};"
    if d.kind == K.VAR_DECL:
        return f"extern {_declarator(d.type.spelling, d.spelling)};"
    return ""


def _record_body(rec: Any) -> str:
    import clang.cindex as ci

    K = ci.CursorKind
    word = {K.STRUCT_DECL: "struct", K.UNION_DECL: "union", K.ENUM_DECL: "enum"}[rec.kind]
    tag = "" if _untagged(rec) else f" {rec.spelling}"
    if rec.kind == K.ENUM_DECL:
        items = ", ".join(f"{c.spelling} = {c.enum_value}" for c in rec.get_children() if c.kind == K.ENUM_CONSTANT_DECL)
        return f"enum{tag} {{ {items} }}"
    if not rec.is_definition():
        return f"{word}{tag}"
    fields = " ".join(f"{_declarator(f.type.spelling, f.spelling)};" for f in rec.type.get_fields())
    return f"{word}{tag} {{ {fields} }}"


def _untagged(rec: Any) -> bool:
    """Whether the struct / union / enum ``rec`` is written without a tag (``struct { ... }``;
    clang names such a record after its typedef)."""
    tokens = [t.spelling for t in rec.get_tokens()][:2]
    return rec.is_anonymous() or (len(tokens) == 2 and tokens[1] == "{")


def _declarator(spelling: str, name: str) -> str:
    """A declaration of ``name`` with the type clang spells ``spelling`` (``int``, ``float
    *``, ``void (*)(int)``, ``float [4]``)."""
    if "(*)" in spelling:
        return spelling.replace("(*)", f"(*{name})", 1)
    if "[" in spelling:
        i = spelling.index("[")
        return f"{spelling[:i].rstrip()} {name}{spelling[i:]}"
    return f"{spelling} {name}"


# ------------------------------------------------------------------ the build's macros and headers


@functools.cache
def system_include_dirs(cxx: bool) -> tuple[str, ...]:
    """The system compiler's ``#include <...>`` search list (``cc -E -v``), in order; empty
    without a compiler."""
    cc = compiler(cxx)
    if shutil.which(cc) is None:
        return ()
    r = run_command([cc, "-E", "-v", "-x", "c++" if cxx else "c", "-", "-o", "/dev/null"], 30, input="")
    dirs: list[str] = []
    inside = False
    for line in r.stderr.splitlines():
        if line.startswith("#include <...> search starts here"):
            inside = True
        elif line.startswith("End of search list"):
            break
        elif inside:
            dirs.append(line.strip())
    return tuple(dirs)


_MARKER = re.compile(r'# \d+ "((?:[^"\\]|\\.)*)"')
_DEFINE = re.compile(r"#define (\w+(?:\([^)]*\))?)(?: (.*))?$")
_UNDEF = re.compile(r"#undef (\w+)")
_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")


#: the call ``assert(E)`` expands to for the lowering (:func:`build_macros`)
ASSERT_MARKER = "__tenspiler_assert"


def build_macros(
    text: str, filename: str, flags: CompileFlags = NO_FLAGS, cxx: bool = False, reach: str | None = None
) -> Macros | None:
    """The macros the build defines for ``filename`` (``cc -E -dD`` with the build's flags
    and ``flags``, the file's text on stdin under its own name) that are not defined in the
    file itself, restricted to those ``reach`` (default ``text``) can reach (its identifiers,
    then those of the reached macros' bodies); ``None`` without a compiler or when it fails (the file's errors
    are clang's to report)."""
    cc = compiler(cxx)
    if shutil.which(cc) is None:
        return None
    from pathlib import Path

    home = Path(filename).resolve().parent
    cmd = [cc, "-E", "-dD", *compile_args(cxx, flags), "-iquote", str(home), "-", "-o", "-"]
    r = run_command(cmd, 60, input=text)
    if r.returncode != 0:
        return None
    builtin: dict[str, tuple[str, str]] = {}
    given: dict[str, tuple[str, str]] = {}
    where = ""
    for line in r.stdout.splitlines():
        if not line.startswith("#"):
            continue
        m = _MARKER.match(line)
        if m:
            where = m.group(1)
            continue
        m = _DEFINE.match(line)
        if m:
            head, body = m.group(1), m.group(2) or ""
            name = head.split("(")[0]
            if where == "<stdin>":
                given.pop(name, None)
                continue
            (builtin if where == "<built-in>" else given)[name] = (head, body)
            continue
        m = _UNDEF.match(line)
        if m:
            builtin.pop(m.group(1), None)
            given.pop(m.group(1), None)
    reached: set[str] = set()
    todo = set(_IDENT.findall(text if reach is None else reach))
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        for table in (given, builtin):
            if name in table:
                todo |= set(_IDENT.findall(table[name][1])) - reached
    if "assert" in given and "__assert_fail" in given["assert"][1]:
        # <assert.h> without NDEBUG: assert(E) aborts where E is false (C11 §7.2.1.1). The
        # lowering reads the marker call as a precondition of the function (c_stmts.assertion);
        # under NDEBUG the header's assert(E) is ((void) 0) and stays so
        given["assert"] = (given["assert"][0], f"{ASSERT_MARKER}(expr)")
    return Macros(
        {head: body for n, (head, body) in builtin.items()},
        {head: body for n, (head, body) in given.items() if n in reached},
    )
