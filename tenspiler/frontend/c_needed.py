"""The part of a C file ``--check`` compiles: the kernel, what it reaches, and every
declaration, in the file's own text.

A real file holds many functions; ``--check`` needs only the kernel and the functions it
calls (directly or through other functions, or by taking their address), but compiling
the whole file with UBSan costs seconds per thousand lines. :func:`check_source` returns the
file's text with the *body* of every other function definition replaced by ``;`` (its
newlines kept, so the compiler's line numbers stay the file's): the definition becomes a
declaration of the same function. Everything else — directives, typedefs, struct
definitions, global variables with their initialisers, prototypes, the kept functions — is
the file's text unchanged, so the code compiled for the kernel is exactly the source's.

Which functions are kept: the kernel, every function named in a kept function or in any
top-level declaration (a global initialiser may point at a function), transitively; and
conservatively every definition whose text the cut cannot be made in safely: a body that is
not a ``{`` at pycparser's location in the file (a macro wrote it), that holds a
preprocessor directive, whose matching ``}`` is not before the next top-level declaration,
an old-style (K&R) definition, or a definition with ``__attribute__`` / ``asm`` (a
constructor runs when the library is loaded).

C only: a C++ file (the ``std::vector`` subset is rewritten before pycparser reads it) is
compiled whole.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from pycparser import c_ast

__all__ = ["check_source"]

#: Words in a definition's header that keep it whole.
_KEEP_WORDS = re.compile(r"\b(__attribute__|__attribute|asm|__asm__|__asm)\b")


def _walk(node: c_ast.Node) -> Iterator[c_ast.Node]:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(child for _, child in n.children())


def _names(node: c_ast.Node) -> set[str]:
    """Every identifier used as a value in ``node`` (calls, addresses, variables)."""
    return {n.name for n in _walk(node) if isinstance(n, c_ast.ID)}


class _Text:
    """Offsets of ``line:col`` positions (1-based) in the file's text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0, *(m.end() for m in re.finditer("\n", text))]

    def offset(self, coord: object) -> int | None:
        line, col = getattr(coord, "line", None), getattr(coord, "column", None)
        if not isinstance(line, int) or not isinstance(col, int) or not 1 <= line <= len(self.starts) or col < 1:
            return None
        return self.starts[line - 1] + col - 1

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)


def _match_brace(text: str, start: int) -> int | None:
    """The offset of the ``}`` closing the ``{`` at ``start``, skipping comments, string
    and character literals; ``None`` if there is none or a preprocessor directive comes
    first (a directive may change which braces the compiler sees)."""
    depth, i, n = 0, start, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            j = i + 1
            while j < n and text[j] in " \t":
                j += 1
            if j < n and text[j] == "#":
                return None
        elif c in "\"'":
            i += 1
            while i < n and text[i] != c:
                if text[i] == "\n":
                    return None
                i += 2 if text[i] == "\\" else 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            if end < 0:
                return None
            i = end
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                return None
            i = end + 2
            continue
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def check_source(text: str, ext: list[c_ast.Node], kernel: str) -> str:
    """``text`` (the file pycparser read as ``ext``, its top-level nodes in file order) with
    the body of every function definition the kernel ``kernel`` does not reach replaced by
    ``;`` and as many newlines as it had (see the module docstring)."""
    where = _Text(text)
    defs = {node.decl.name: node for node in ext if isinstance(node, c_ast.FuncDef)}
    needed: set[str] = set()
    todo = [kernel, *(name for node in ext if not isinstance(node, c_ast.FuncDef) for name in _names(node))]
    while todo:
        name = todo.pop()
        if name in needed or name not in defs:
            continue
        needed.add(name)
        todo.extend(_names(defs[name]))
    cuts: list[tuple[int, int]] = []
    previous = 0
    for k, node in enumerate(ext):
        start = where.offset(node.coord)
        if not isinstance(node, c_ast.FuncDef) or node.decl.name in needed:
            previous = start if start is not None else previous
            continue
        cut = _body_span(where, node, ext[k + 1:], previous)
        if cut is not None:
            cuts.append(cut)
        previous = start if start is not None else previous
    out, at = [], 0
    for lo, hi in cuts:
        out += [text[at:lo], ";", "\n" * text.count("\n", lo, hi + 1)]
        at = hi + 1
    out.append(text[at:])
    return "".join(out)


def _body_span(where: _Text, node: c_ast.FuncDef, later: list[c_ast.Node], previous: int) -> tuple[int, int] | None:
    """``(offset of {, offset of })`` of ``node``'s body when it can be cut safely, else
    ``None`` (see the module docstring)."""
    if node.param_decls:
        return None
    lo = where.offset(node.body.coord)
    text = where.text
    if lo is None or text[lo:lo + 1] != "{" or _KEEP_WORDS.search(text, previous, lo):
        return None
    hi = _match_brace(text, lo)
    if hi is None:
        return None
    following = [o for o in (where.offset(n.coord) for n in later) if o is not None]
    if following and min(following) <= hi:
        return None
    inside = [o for o in (where.offset(n.coord) for n in _walk(node.body)) if o is not None]
    if any(not lo <= o < hi for o in inside):
        return None
    return lo, hi
